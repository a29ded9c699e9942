/* bpfout — parses bpftrace's `-f json` output, one line at a time.
 *
 * Each line is parsed with jansson, then copied into plain C structures
 * (bpfout.h) so callers never see a json_t.  The format differences between
 * bpftrace 0.17 and 0.24+ are handled here and nowhere else:
 *
 *   record            0.17                           0.24+
 *   attached_probes   {"data": {"probes": N}}        also "count": N
 *   lost_events       {"data": {"events": N}}        also "count": N
 *   big integers      bare (jansson rejects > 2^63)  quoted strings
 *   helper_error      helper/retcode/line/col        adds msg/filename
 *   new types         -                              errorf, warnf,
 *                                                    runtime_error, tseries
 *
 * Both versions print bytes >= 0x80 inside strings as "\uffffffXX" (a sign-
 * extended char through "\\u%04x").  jansson accepts "\uffff" followed by
 * the literal text "ffXX", so such lines parse but carry garbage: they are
 * repaired before parsing (see bpfout_repair_high_bytes). */
#include "run/bpfout.h"
#include "util/safe.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "run/bpfout_internal.h"

/* ---- small helpers ---------------------------------------------------- */

static void *xrealloc_array(void *ptr, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return realloc(ptr, n * size);
}

/* Grows ARR (of *CAP elements of SIZE) to hold at least NEED.  Returns the
 * array, possibly moved; NULL on allocation failure (ARR is untouched). */
void *bpfout_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return arr;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	void *n = xrealloc_array(arr, ncap, size);
	if (n)
		*cap = ncap;
	return n;
}

/* Adds "line N: " + the formatted text as a note.  Control characters other
 * than tab and newline become '?'; the note is cut at MAX_NOTE_LEN bytes. */
void bpfout_note(bpfout *p, const char *fmt, ...)
{
	if (p->n_notes > MAX_NOTES)
		return;
	char **notes = bpfout_grow(p->notes, &p->cap_notes, p->n_notes + 1, sizeof *notes);
	if (!notes)
		return;
	p->notes = notes;

	char *body = NULL, *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&body, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (p->n_notes == MAX_NOTES)
		n = asprintf(&text, "line %zu: too many notes; later ones are dropped", p->lineno);
	else
		n = asprintf(&text, "line %zu: %s", p->lineno, body);
	free(body);
	if (n < 0)
		return;
	safe_wire_decode(text);	/* printf text keeps the bytes it had */
	if (strlen(text) > MAX_NOTE_LEN) {
		/* Cut on a UTF-8 boundary and mark the cut. */
		size_t cut = MAX_NOTE_LEN - 3;
		while (cut > 0 && ((unsigned char)text[cut] & 0xc0) == 0x80)
			cut--;
		memcpy(text + cut, "...", 4);
	}
	for (unsigned char *c = (unsigned char *)text; *c; c++)
		if ((*c < 0x20 && *c != '\t' && *c != '\n') || *c == 0x7f)
			*c = '?';
	p->notes[p->n_notes++] = text;
}

/* Length of S without its one trailing newline (printf text usually has
 * one), for "%.*s". */
int bpfout_chomp_len(const char *s)
{
	size_t n = strlen(s);
	if (n && s[n - 1] == '\n')
		n--;
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* ---- windows ------------------------------------------------------------ */

static void entry_clear(bpfout_entry *e)
{
	free(e->key);
	free(e->buckets);
	free(e->str);
}

void bpfout_map_clear(bpfout_map *m)
{
	if (!m)
		return;
	/* A map with a key arena comes from fast_map_line: integer entries
	 * whose keys are in the arena, nothing else to free. */
	for (size_t i = 0; !m->key_arena && i < m->n_entries; i++)
		entry_clear(&m->entries[i]);
	free(m->entries);
	free(m->key_arena);
	free(m->name);
	memset(m, 0, sizeof *m);
}

void bpfout_window_clear_maps(bpfout_window *w)
{
	for (size_t i = 0; i < w->n_maps; i++)
		bpfout_map_clear(&w->maps[i]);
	free(w->maps);
	w->maps = NULL;
	w->n_maps = 0;
}

static void window_free(bpfout_window *w)
{
	if (!w)
		return;
	bpfout_window_clear_maps(w);
	for (size_t i = 0; i < w->n_events; i++)
		free(w->events[i]);
	free(w->events);
	free(w);
}

/* Moves M into W, replacing a map of the same name.  Returns 0 on success;
 * -1 on allocation failure (M is cleared either way). */
int bpfout_window_put(bpfout_window *w, bpfout_map *m)
{
	for (size_t i = 0; i < w->n_maps; i++) {
		if (strcmp(w->maps[i].name, m->name) == 0) {
			bpfout_map_clear(&w->maps[i]);
			w->maps[i] = *m;
			memset(m, 0, sizeof *m);
			return 0;
		}
	}
	bpfout_map *nm = xrealloc_array(w->maps, w->n_maps + 1, sizeof *nm);
	if (!nm) {
		bpfout_map_clear(m);
		return -1;
	}
	w->maps = nm;
	w->maps[w->n_maps++] = *m;
	memset(m, 0, sizeof *m);
	return 0;
}

/* ---- public lifecycle and accessors -------------------------------------- */

bpfout *bpfout_new(void)
{
	bpfout *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->attached = -1;
	p->cur = calloc(1, sizeof *p->cur);
	if (!p->cur) {
		free(p);
		return NULL;
	}
	return p;
}

void bpfout_free(bpfout *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_windows; i++)
		window_free(p->windows[i]);
	free(p->windows);
	window_free(p->cur);
	for (size_t i = 0; i < p->n_notes; i++)
		free(p->notes[i]);
	free(p->notes);
	bpfout_forget_probes(p);
	free(p);
}

long bpfout_attached(const bpfout *p)
{
	return p ? p->attached : -1;
}

uint64_t bpfout_lost_events(const bpfout *p)
{
	return p ? p->lost : 0;
}

size_t bpfout_window_count(const bpfout *p)
{
	return p ? p->n_windows : 0;
}

const bpfout_window *bpfout_window_at(const bpfout *p, size_t i)
{
	return p && i < p->n_windows ? p->windows[i] : NULL;
}

void bpfout_window_release(bpfout *p, size_t i)
{
	if (!p || i >= p->n_windows)
		return;
	bpfout_window *w = p->windows[i];
	bpfout_window_clear_maps(w);
	for (size_t k = 0; k < w->n_events; k++)
		free(w->events[k]);
	free(w->events);
	w->events = NULL;
	w->n_events = w->cap_events = 0;
}

const bpfout_window *bpfout_trailing(const bpfout *p)
{
	return p ? p->cur : NULL;
}

const bpfout_map *bpfout_window_map(const bpfout_window *w, const char *name)
{
	if (!w || !name)
		return NULL;
	for (size_t i = 0; i < w->n_maps; i++)
		if (strcmp(w->maps[i].name, name) == 0)
			return &w->maps[i];
	return NULL;
}

const bpfout_entry *bpfout_map_entry(const bpfout_map *m, const char *key)
{
	if (!m || !key)
		return NULL;
	for (size_t i = 0; i < m->n_entries; i++)
		if (strcmp(m->entries[i].key, key) == 0)
			return &m->entries[i];
	return NULL;
}

size_t bpfout_note_count(const bpfout *p)
{
	return p ? p->n_notes : 0;
}

const char *bpfout_note_at(const bpfout *p, size_t i)
{
	return p && i < p->n_notes ? p->notes[i] : NULL;
}

/* ---- keys --------------------------------------------------------------- */

/* Fills E->ikeys from E->key when every comma-separated part (at most 8) is
 * a decimal integer; uint64 parts above INT64_MAX keep their bits. */
void bpfout_split_ikeys_len(bpfout_entry *e, size_t key_len)
{
	const char *s = e->key, *stop = e->key + key_len;
	size_t n = 0;

	e->n_ikeys = 0;
	if (!key_len)
		return;
	for (;;) {
		const char *end = memchr(s, ',', (size_t)(stop - s));
		size_t len = end ? (size_t)(end - s) : (size_t)(stop - s);
		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		bool neg;
		uint64_t mag;
		if (n == 8 || bpfout_parse_decimal(s, len, &neg, &mag) < 0)
			return;
		if (neg && mag > (uint64_t)INT64_MAX + 1)
			return;
		e->ikeys[n++] = neg ? (int64_t)(0 - mag) : (int64_t)mag;
		if (!end)
			break;
		s = end + 1;
	}
	e->n_ikeys = n;
}

static void split_ikeys(bpfout_entry *e)
{
	bpfout_split_ikeys_len(e, strlen(e->key));
}

/* ---- values ------------------------------------------------------------- */

typedef enum { KIND_MAP, KIND_HIST, KIND_STATS } record_kind;

static int bucket_order(const void *a, const void *b)
{
	const bpfout_bucket *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Reads a hist()/lhist() bucket list.  Returns NULL on success, else why. */
static const char *parse_buckets(bpfout *p, const json_t *arr, bpfout_entry *e)
{
	size_t n = json_array_size(arr);

	e->type = BPFOUT_VALUE_HIST;
	if (n == 0)
		return NULL;
	e->buckets = xrealloc_array(NULL, n, sizeof *e->buckets);
	if (!e->buckets)
		return "out of memory";
	for (size_t i = 0; i < n; i++) {
		const json_t *b = json_array_get(arr, i);
		const json_t *jmin = json_object_get(b, "min"), *jmax = json_object_get(b, "max");
		bpfout_bucket *o = &e->buckets[i];

		if (!json_is_object(b))
			return "a bucket is not an object";
		if (bpfout_json_u64(p, json_object_get(b, "count"), &o->count) < 0)
			return "a bucket's count is missing or not a count";
		o->lo = INT64_MIN;
		o->hi = INT64_MAX;
		if (jmin && bpfout_json_i64(p, jmin, true, &o->lo) < 0)
			return "a bucket's min is not an integer";
		if (jmax && bpfout_json_i64(p, jmax, true, &o->hi) < 0)
			return "a bucket's max is not an integer";
		if (o->lo > o->hi)
			return "a bucket's min is above its max";
		e->n_buckets++;
	}
	qsort(e->buckets, e->n_buckets, sizeof *e->buckets, bucket_order);
	return NULL;
}

/* True for stats()' {"count": C, "average": A, "total": T}. */
static bool is_stats_object(const json_t *v)
{
	return json_is_object(v) && json_object_size(v) == 3 &&
	       json_object_get(v, "count") && json_object_get(v, "average") &&
	       json_object_get(v, "total");
}

static const char *json_kind_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "value is a record";
	case JSON_ARRAY: return "value is a tuple or array";
	case JSON_STRING: return "value is a string";
	case JSON_NULL: return "value is null";
	case JSON_INTEGER:
	case JSON_REAL:
	case JSON_TRUE:
	case JSON_FALSE: return "value is not an integer";
	}
	return "value is not an integer";
}

/* Fills E's value from V.  Returns NULL on success, else why it could not. */
static const char *parse_value(bpfout *p, record_kind kind, const json_t *v, bpfout_entry *e)
{
	if (kind == KIND_HIST) {
		if (!json_is_array(v))
			return "hist value is not a bucket list";
		return parse_buckets(p, v, e);
	}
	if (json_is_object(v)) {
		if (kind != KIND_STATS || !is_stats_object(v))
			return "value is a record";
		int64_t avg;
		e->type = BPFOUT_VALUE_STATS;
		if (bpfout_json_u64(p, json_object_get(v, "count"), &e->stats_count) < 0)
			return "stats count is not a count";
		if (bpfout_json_i64(p, json_object_get(v, "total"), true, &e->stats_total) < 0)
			return "stats total is not an integer";
		if (bpfout_json_i64(p, json_object_get(v, "average"), true, &avg) < 0)
			return "stats average is not an integer";
		e->value = avg;
		return NULL;
	}
	if (json_is_string(v)) {
		int64_t iv;
		if (bpfout_is_quoted_big_int(p, v, &iv)) {
			e->type = BPFOUT_VALUE_INT;
			e->value = iv;
			return NULL;
		}
		if (kind == KIND_STATS)
			return "avg value is not an integer";
		e->type = BPFOUT_VALUE_STRING;
		e->str = strdup(json_string_value(v));
		if (!e->str)
			return "out of memory";
		safe_wire_decode(e->str);
		/* A numeric string also fills value, for callers that want it. */
		bool neg, clamped = false;
		uint64_t mag;
		if (bpfout_parse_decimal(e->str, strlen(e->str), &neg, &mag) == 0)
			e->value = bpfout_clamp_i64(neg, mag, &clamped);
		return NULL;
	}
	if (json_is_boolean(v)) {
		e->type = BPFOUT_VALUE_INT;
		e->value = json_is_true(v);
		return NULL;
	}
	e->type = BPFOUT_VALUE_INT;
	if (bpfout_json_i64(p, v, false, &e->value) < 0)
		return json_kind_name(v);
	return NULL;
}

/* Adds entry KEY=V to M; counts a failure in *SKIPPED and keeps the first
 * reason in *WHY / *WHY_KEY (borrowed from the json tree). */
static int map_add(bpfout *p, bpfout_map *m, record_kind kind, const char *key,
		   const json_t *v, size_t *skipped, const char **why, const char **why_key)
{
	bpfout_entry *e = &m->entries[m->n_entries];
	memset(e, 0, sizeof *e);
	const char *err = parse_value(p, kind, v, e);
	if (!err && !(e->key = strdup(key)))
		err = "out of memory";
	if (!err)
		safe_wire_decode(e->key);
	if (err) {
		entry_clear(e);
		if (!(*skipped)++) {
			*why = err;
			*why_key = key;
		}
		return -1;
	}
	split_ikeys(e);
	m->n_entries++;
	return 0;
}

/* Builds map NAME from V.  Returns 0 when the map was built (possibly with
 * some entries skipped and noted); -1 when nothing usable was in it. */
static int parse_map(bpfout *p, record_kind kind, const char *name, const json_t *v,
		     bpfout_map *m)
{
	size_t skipped = 0;
	const char *why = NULL, *why_key = NULL;
	bool keyed = json_is_object(v) && !(kind == KIND_STATS && is_stats_object(v));

	memset(m, 0, sizeof *m);
	if (!(m->name = strdup(name)))
		return -1;
	if (!keyed && !json_is_array(v) && kind == KIND_HIST) {
		bpfout_note(p, "%s: skipped: hist %s", name, json_kind_name(v));
		bpfout_map_clear(m);
		return -1;
	}
	size_t n = keyed ? json_object_size(v) : 1;
	if (n && !(m->entries = xrealloc_array(NULL, n, sizeof *m->entries))) {
		bpfout_note(p, "skipped: %s: out of memory", name);
		bpfout_map_clear(m);
		return -1;
	}
	if (keyed) {
		const char *key;
		const json_t *val;
		json_object_foreach((json_t *)v, key, val)
			map_add(p, m, kind, key, val, &skipped, &why, &why_key);
	} else {
		map_add(p, m, kind, "", v, &skipped, &why, &why_key);
	}
	if (skipped) {
		if (*why_key)
			bpfout_note(p, "%s: skipped %zu of %zu entries (first: key \"%s\": %s)", name,
			     skipped, n, why_key, why);
		else
			bpfout_note(p, "%s: skipped: %s", name, why);
	}
	if (m->n_entries == 0 && skipped) {
		bpfout_map_clear(m);
		return -1;
	}
	return 0;
}

/* ---- records ------------------------------------------------------------ */

static bpfout_line feed_maps(bpfout *p, const char *type, record_kind kind, const json_t *data)
{
	int used = 0;
	const char *name;
	const json_t *v;

	if (!json_is_object(data) || json_object_size(data) == 0) {
		bpfout_note(p, "skipped: %s record without a map", type);
		return BPFOUT_LINE_SKIPPED;
	}
	json_object_foreach((json_t *)data, name, v) {
		bpfout_map m;
		if (parse_map(p, kind, name, v, &m) < 0)
			continue;
		if (bpfout_put_map(p, &m) < 0) {
			bpfout_note(p, "skipped: %s: out of memory", name);
			continue;
		}
		used++;
	}
	return used ? BPFOUT_LINE_DATA : BPFOUT_LINE_SKIPPED;
}

/* print() of a non-map value: an integer joins the current window as the
 * map named "" (no '@'), anything else becomes a note. */
static bpfout_line feed_value(bpfout *p, const json_t *data)
{
	bpfout_map m = { 0 };
	int64_t iv;

	if (json_is_integer(data) || json_is_real(data) || json_is_boolean(data) ||
	    (json_is_string(data) && bpfout_is_quoted_big_int(p, data, &iv))) {
		if (parse_map(p, KIND_MAP, "", data, &m) == 0 && bpfout_window_put(p->cur, &m) == 0)
			return BPFOUT_LINE_DATA;
		return BPFOUT_LINE_SKIPPED;
	}
	if (json_is_string(data)) {
		bpfout_note(p, "value: %s", json_string_value(data));
		return BPFOUT_LINE_MESSAGE;
	}
	char *text = json_dumps(data, JSON_COMPACT | JSON_ENCODE_ANY);
	bpfout_note(p, "value: %s", text ? text : "(unprintable)");
	free(text);
	return BPFOUT_LINE_MESSAGE;
}

static bpfout_line feed_printf(bpfout *p, const json_t *data)
{
	if (!json_is_string(data)) {
		bpfout_note(p, "skipped: printf record without text");
		return BPFOUT_LINE_SKIPPED;
	}
	const char *s = json_string_value(data);
	size_t len = json_string_length(data);
	if (len >= 11 && memcmp(s, "bpfspec:ev ", 11) == 0)
		return bpfout_feed_event(p, s + 11, len - 11);
	if (len >= 8 && memcmp(s, "bpfspec:", 8) == 0)
		return bpfout_feed_marker(p, s, len);
	bpfout_note(p, "printf: %.*s", bpfout_chomp_len(s), s);
	return BPFOUT_LINE_MESSAGE;
}

/* "count" (0.24+) or data.FIELD (all versions). */
static int counted(bpfout *p, const json_t *root, const char *field, uint64_t *out)
{
	if (bpfout_json_u64(p, json_object_get(root, "count"), out) == 0)
		return 0;
	return bpfout_json_u64(p, json_object_get(json_object_get(root, "data"), field), out);
}

/* helper_error, errorf, warnf, runtime_error, print_error: a message with a
 * script location. */
static bpfout_line feed_located(bpfout *p, const char *type, const json_t *root)
{
	const char *msg = json_string_value(json_object_get(root, "msg"));
	const char *helper = json_string_value(json_object_get(root, "helper"));
	const char *file = json_string_value(json_object_get(root, "filename"));
	int64_t line = 0, col = 0, rc = 0;
	char where[96] = "";

	if (bpfout_json_i64(p, json_object_get(root, "line"), true, &line) == 0) {
		bpfout_json_i64(p, json_object_get(root, "col"), true, &col);
		snprintf(where, sizeof where, " at %s:%" PRId64 ":%" PRId64,
			 file ? file : "script", line, col);
	}
	if (helper) {
		bool has_rc = bpfout_json_i64(p, json_object_get(root, "retcode"), true, &rc) == 0;
		if (!msg && has_rc && rc < 0 && rc > -4096)
			msg = strerror((int)-rc);
		if (msg)
			bpfout_note(p, "%s: %s failed: %s (%" PRId64 ")%s", type, helper, msg, rc, where);
		else
			bpfout_note(p, "%s: %s failed with %" PRId64 "%s", type, helper, rc, where);
	} else {
		bpfout_note(p, "%s: %s%s", type, msg ? msg : "(no message)", where);
	}
	return BPFOUT_LINE_MESSAGE;
}

static bpfout_line feed_record(bpfout *p, const json_t *root, bool join_pending)
{
	const json_t *data = json_object_get(root, "data");
	const char *type = json_string_value(json_object_get(root, "type"));
	uint64_t n;

	if (!json_is_object(root) || !type) {
		bpfout_note(p, "skipped: not a bpftrace record (no \"type\")");
		return BPFOUT_LINE_SKIPPED;
	}
	if (strcmp(type, "map") == 0)
		return feed_maps(p, type, KIND_MAP, data);
	if (strcmp(type, "hist") == 0 || strcmp(type, "lhist") == 0)
		return feed_maps(p, type, KIND_HIST, data);
	if (strcmp(type, "stats") == 0)
		return feed_maps(p, type, KIND_STATS, data);
	if (strcmp(type, "printf") == 0)
		return feed_printf(p, data);
	if (strcmp(type, "value") == 0)
		return feed_value(p, data);
	if (strcmp(type, "attached_probes") == 0) {
		if (counted(p, root, "probes", &n) < 0 || n > LONG_MAX) {
			bpfout_note(p, "skipped: attached_probes without a probe count");
			return BPFOUT_LINE_SKIPPED;
		}
		p->attached = (long)n;
		return BPFOUT_LINE_ATTACHED;
	}
	if (strcmp(type, "lost_events") == 0) {
		if (counted(p, root, "events", &n) < 0) {
			bpfout_note(p, "skipped: lost_events without an event count");
			return BPFOUT_LINE_SKIPPED;
		}
		p->lost = n > UINT64_MAX - p->lost ? UINT64_MAX : p->lost + n;
		bpfout_note(p, "bpftrace lost %" PRIu64 " events", n);
		return BPFOUT_LINE_LOST;
	}
	if (strcmp(type, "time") == 0 || strcmp(type, "cat") == 0 ||
	    strcmp(type, "join") == 0 || strcmp(type, "syscall") == 0) {
		const char *t = json_string_value(data);
		if (!t) {
			bpfout_note(p, "skipped: %s record without text", type);
			return BPFOUT_LINE_SKIPPED;
		}
		if (strcmp(type, "join") == 0 && bpfout_complete_join(p, join_pending, t))
			return BPFOUT_LINE_EVENT;
		bpfout_note(p, "%s: %.*s", type, bpfout_chomp_len(t), t);
		return BPFOUT_LINE_MESSAGE;
	}
	if (strcmp(type, "helper_error") == 0 || strcmp(type, "runtime_error") == 0 ||
	    strcmp(type, "errorf") == 0 || strcmp(type, "warnf") == 0 ||
	    strcmp(type, "print_error") == 0)
		return feed_located(p, type, root);
	if (strcmp(type, "tseries") == 0) {
		const char *name = NULL;
		const json_t *v;
		if (json_is_object(data))
			json_object_foreach((json_t *)data, name, v)
				break;
		bpfout_note(p, "tseries map %s is not supported; skipped", name ? name : "(unnamed)");
		return BPFOUT_LINE_MESSAGE;
	}
	bpfout_note(p, "unknown bpftrace record type \"%s\"", type);
	return BPFOUT_LINE_MESSAGE;
}

/* ---- feeding ------------------------------------------------------------ */

static json_t *load(const char *s, size_t len, size_t flags, json_error_t *err)
{
	return json_loadb(s, len, JSON_ALLOW_NUL | flags, err);
}

bpfout_line bpfout_feed(bpfout *p, const char *line, size_t len)
{
	if (!p)
		return BPFOUT_LINE_SKIPPED;
	p->lineno++;
	p->line_clamped = false;
	bool join_pending = p->join_pending;	/* only for the very next line */
	p->join_pending = false;
	if (!line)
		len = 0;
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	size_t start = 0;
	while (start < len && (line[start] == ' ' || line[start] == '\t'))
		start++;
	if (start == len)
		return BPFOUT_LINE_IGNORED;
	line += start;
	len -= start;

	if (line[0] != '{') {
		int n = len > MAX_NOTE_LEN ? MAX_NOTE_LEN : (int)len;
		bpfout_note(p, "%.*s", n, line);
		return BPFOUT_LINE_MESSAGE;
	}
	if (len > MAX_LINE) {
		bpfout_note(p, "skipped: line of %zu bytes is longer than %zu", len, MAX_LINE);
		return BPFOUT_LINE_SKIPPED;
	}

	if (bpfout_fast_map_line(p, line, len))
		return BPFOUT_LINE_DATA;
	bpfout_line ev;
	if (bpfout_fast_event_line(p, line, len, &ev))
		return ev;

	size_t fixed_len = 0, repaired = 0, replaced = 0;
	char *fixed = bpfout_repair_high_bytes(line, len, &fixed_len, &repaired, &replaced);
	const char *text = fixed ? fixed : line;
	size_t tlen = fixed ? fixed_len : len;
	json_error_t err;
	json_t *root = load(text, tlen, 0, &err);

	if (!root && strstr(err.text, "too big integer")) {
		/* 0.17 prints uint64 values above INT64_MAX as bare numbers: read
		 * the line's integers as doubles (exact up to 2^53); the big one is
		 * then clamped, and noted, where it is used. */
		root = load(text, tlen, JSON_DECODE_INT_AS_REAL, &err);
	}
	free(fixed);
	if (!root) {
		bpfout_note(p, "skipped: %s", err.text);
		return BPFOUT_LINE_SKIPPED;
	}
	/* Repaired escapes lose nothing (repair_high_bytes): no note. */
	(void)replaced;

	bpfout_line kind = feed_record(p, root, join_pending);
	json_decref(root);
	if (p->line_clamped)
		bpfout_note(p, "an integer outside the int64 range was clamped");
	return kind;
}
