/* why_v8check — the perf map's JavaScript names checked against V8's
 * heap's; see why_v8check.h. */
#include "attribution/why_v8check.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Functions whose shares are compared at most: past them, a function
 * new to the check is left out of the shares (not of the counts). */
#define CHECK_FUNCTIONS_MAX 1024
/* Processes whose perf maps are read at most (the last 4 MB of each):
 * past them, bpftrace's names stand unchecked for staleness. */
#define CHECK_PERFMAPS_MAX 4

typedef struct function_share {
	char *key;		/* NAME SCRIPT, no line */
	uint64_t perf_map, v8_heap;	/* samples with it on their stack */
} function_share;

typedef struct process_map {
	long pid;
	perfmap *pm;		/* NULL: none read */
} process_map;

struct why_v8check {
	report_js_check r;
	function_share *fn;
	size_t n, cap;
	process_map map[CHECK_PERFMAPS_MAX];
	size_t n_maps;
};

why_v8check *why_v8check_new(void)
{
	why_v8check *c = calloc(1, sizeof *c);
	if (c)
		c->r.done = true;
	return c;
}

/* Copies S (LEN bytes) without its spaces into OUT (size REPORT_JS_CHECK_NAME,
 * cut when longer). */
static void copy_unspaced(char *out, const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len && s[i] && n + 1 < REPORT_JS_CHECK_NAME; i++)
		if (s[i] != ' ')
			out[n++] = s[i];
	out[n] = '\0';
}

/* The length of OUT without a trailing ":DIGITS" (OUT's length when it
 * has none). */
static size_t without_number(const char *out)
{
	size_t n = strlen(out), k = n;
	while (k > 0 && out[k - 1] >= '0' && out[k - 1] <= '9')
		k--;
	return k < n && k > 0 && out[k - 1] == ':' ? k - 1 : n;
}

/* The perf map's name of a JavaScript function in frame S (LEN bytes:
 * "JS:~NAME SCRIPT:LINE:COLUMN", node 18 "LazyCompile:~NAME SCRIPT:LINE")
 * as NAMESCRIPT:LINE into OUT (the tier mark, and node 24's "'" of code
 * entered by on-stack replacement, dropped).  Returns false when S is no
 * such frame. */
static bool perf_map_function(const char *s, size_t len, char *out)
{
	static const char *const tags[] = { "JS:", "LazyCompile:", "Function:" };
	size_t tag = 0;
	for (size_t k = 0; k < sizeof tags / sizeof *tags && !tag; k++)
		if (len > strlen(tags[k]) && strncmp(s, tags[k], strlen(tags[k])) == 0)
			tag = strlen(tags[k]);
	if (!tag)
		return false;
	if (tag < len && strchr("~*^+", s[tag]))
		tag++;
	if (tag < len && s[tag] == '\'')	/* node 24+: code entered on the stack (OSR) */
		tag++;
	copy_unspaced(out, s + tag, len - tag);
	size_t line = without_number(out);
	if (line < strlen(out)) {
		char dropped = out[line];
		out[line] = '\0';
		if (without_number(out) == line)	/* only LINE: kept */
			out[line] = dropped;
	}
	return out[0] != '\0';
}

/* Whether the perf-map lines named A (ALEN bytes) and B (BLEN) are one
 * function's: as perf_map_function has them, or spelled the same. */
static bool same_perf_line(const char *a, size_t alen, const char *b, size_t blen)
{
	char x[REPORT_JS_CHECK_NAME], y[REPORT_JS_CHECK_NAME];
	bool fx = perf_map_function(a, alen, x), fy = perf_map_function(b, blen, y);
	if (fx || fy)
		return fx && fy && strcmp(x, y) == 0;
	copy_unspaced(x, a, alen);
	copy_unspaced(y, b, blen);
	return strcmp(x, y) == 0;
}

/* The heap's name H ("JS:NAME SCRIPT[:LINE]", "JS:(anonymous) SCRIPT...")
 * as NAMESCRIPT[:LINE] into OUT, the perf map's form. */
static void heap_function(const char *h, char *out)
{
	static const char anonymous[] = "(anonymous)";
	if (strncmp(h, "JS:", 3) == 0)
		h += 3;
	if (strncmp(h, anonymous, sizeof anonymous - 1) == 0)
		h += sizeof anonymous - 1;
	copy_unspaced(out, h, strlen(h));
}

/* Whether the heap's HEAP and the perf map's PERF are one function: the
 * same, or HEAP without the line PERF has. */
static bool same_function(const char *heap, const char *perf)
{
	size_t n = strlen(heap);
	if (strcmp(heap, perf) == 0)
		return true;
	return without_number(heap) == n && strncmp(heap, perf, n) == 0 && perf[n] == ':' &&
	       without_number(perf) == n;
}

/* Adds SAMPLES to the share of the function KEY (its line dropped) as
 * the perf map (PERF true) or the heap names it. */
static void add_share(why_v8check *c, const char *key, bool perf, uint64_t samples)
{
	size_t len = without_number(key), i = 0;
	while (i < c->n && !(strlen(c->fn[i].key) == len && strncmp(c->fn[i].key, key, len) == 0))
		i++;
	if (i == c->n) {
		if (c->n >= CHECK_FUNCTIONS_MAX)
			return;
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 32;
			function_share *fn = realloc(c->fn, cap * sizeof *fn);
			if (!fn)
				return;
			c->fn = fn;
			c->cap = cap;
		}
		char *k = strndup(key, len);
		if (!k)
			return;
		c->fn[c->n++] = (function_share){ .key = k };
	}
	*(perf ? &c->fn[i].perf_map : &c->fn[i].v8_heap) += samples;
}

/* Adds SAMPLES to the share of each function of KEYS (N of them) once,
 * however often it is on the stack. */
static void add_shares(why_v8check *c, char keys[][REPORT_JS_CHECK_NAME], size_t n, bool perf,
		       uint64_t samples)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < i && strcmp(keys[k], keys[i]) != 0)
			k++;
		if (k == i)
			add_share(c, keys[i], perf, samples);
	}
}

/* Frame I (0 the innermost) checked: the perf map's PERF ("" none)
 * against the heap's HEAP ("" none), SAMPLES times; WALKED: the walk
 * found a JavaScript frame somewhere in the stack. */
static void check_frame(why_v8check *c, size_t i, const char *perf, const char *heap,
			bool walked, uint64_t samples)
{
	report_js_check *r = &c->r;
	if (!perf[0]) {
		if (heap[0])
			r->heap_only += samples;
		return;
	}
	r->frames += samples;
	if (!heap[0]) {
		r->unnamed += samples;
		r->unnamed_no_walk += walked ? 0 : samples;
	} else if (same_function(heap, perf)) {
		r->same += samples;
	} else {
		r->different += samples;
		r->different_innermost += i == 0 ? samples : 0;
		if (!r->differ_perf_map[0]) {
			memcpy(r->differ_perf_map, perf, REPORT_JS_CHECK_NAME);
			memcpy(r->differ_v8_heap, heap, REPORT_JS_CHECK_NAME);
		}
	}
}

/* The perf map of process PID (read once; NULL: none, or past
 * CHECK_PERFMAPS_MAX processes, where overlaps are not known). */
static const perfmap *perfmap_of(why_v8check *c, long pid)
{
	for (size_t i = 0; i < c->n_maps; i++)
		if (c->map[i].pid == pid)
			return c->map[i].pm;
	if (c->n_maps == CHECK_PERFMAPS_MAX)
		return NULL;
	c->map[c->n_maps] = (process_map){ .pid = pid, .pm = perfmap_open(pid) };
	return c->map[c->n_maps++].pm;
}

void why_v8check_use_perfmap(why_v8check *c, long pid, perfmap *pm)
{
	for (size_t i = 0; i < c->n_maps; i++)
		if (c->map[i].pid == pid) {
			perfmap_free(c->map[i].pm);
			c->map[i].pm = pm;
			return;
		}
	if (c->n_maps < CHECK_PERFMAPS_MAX)
		c->map[c->n_maps++] = (process_map){ .pid = pid, .pm = pm };
	else
		perfmap_free(pm);
}

/* The perf map's function PERF (perf_map_function's form) of frame I of
 * F: of the code at the frame's address now (the newest line of PM
 * holding it), counted in C's perf_map_stale when bpftrace named it from
 * an older line.  Returns false (PERF "") when PM cannot place the frame;
 * with no PM, bpftrace's name stands. */
static bool live_function(why_v8check *c, const perfmap *pm, const why_v8check_frames *f,
			  size_t i, char *perf, uint64_t samples)
{
	if (!pm)
		return true;
	const char *live = perfmap_live_name(pm, f->frame[i], f->len[i], f->offset[i],
					     same_perf_line);
	if (!live) {
		perf[0] = '\0';
		return false;
	}
	if (!same_perf_line(live, strlen(live), f->frame[i], f->len[i])) {
		c->r.perf_map_stale += samples;
		if (!perf_map_function(live, strlen(live), perf))
			perf[0] = '\0';
	}
	return true;
}

void why_v8check_stack(why_v8check *c, long pid, const why_v8check_frames *f,
		       const char *const *heap, size_t n_heap, bool walked, uint64_t samples)
{
	char perf_keys[WHY_V8CHECK_FRAMES][REPORT_JS_CHECK_NAME];
	char heap_keys[WHY_V8CHECK_FRAMES][REPORT_JS_CHECK_NAME];
	size_t n_perf = 0, n_keys = 0;
	if (!c)
		return;
	const perfmap *pm = perfmap_of(c, pid);
	c->r.samples += samples;
	c->r.samples_no_walk += walked ? 0 : samples;
	for (size_t i = 0; i < n_heap && i < WHY_V8CHECK_FRAMES; i++) {
		char perf[REPORT_JS_CHECK_NAME] = "", named[REPORT_JS_CHECK_NAME] = "";
		if (i < f->n && perf_map_function(f->frame[i], f->len[i], perf) &&
		    !live_function(c, pm, f, i, perf, samples)) {
			c->r.frames += samples;
			c->r.perf_map_unplaced += samples;
			continue;	/* neither name is compared, nor in the shares */
		}
		if (perf[0])
			memcpy(perf_keys[n_perf++], perf, sizeof perf);
		if (heap[i])
			heap_function(heap[i], named);
		if (named[0])
			memcpy(heap_keys[n_keys++], named, sizeof named);
		check_frame(c, i, perf, named, walked, samples);
	}
	add_shares(c, perf_keys, n_perf, true, samples);
	add_shares(c, heap_keys, n_keys, false, samples);
}

void why_v8check_result(const why_v8check *c, report_js_check *out)
{
	*out = c->r;
	out->share_difference = 0;
	out->share_function[0] = '\0';
	for (size_t i = 0; i < c->n && c->r.samples; i++) {
		uint64_t a = c->fn[i].perf_map, b = c->fn[i].v8_heap;
		double d = (double)(a > b ? a - b : b - a) / (double)c->r.samples;
		if (d > out->share_difference || !out->share_function[0]) {
			out->share_difference = d;
			copy_unspaced(out->share_function, c->fn[i].key, strlen(c->fn[i].key));
		}
	}
}

void why_v8check_free(why_v8check *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->fn[i].key);
	for (size_t i = 0; i < c->n_maps; i++)
		perfmap_free(c->map[i].pm);
	free(c->fn);
	free(c);
}
