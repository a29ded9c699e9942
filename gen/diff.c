/* diff — reads JSON reports back and compares two of them (see diff.h).
 *
 * The loader is the inverse of render_json: every field render_json
 * writes is required with its documented type (docs/report.md), values
 * render_json derives (mean_ns, main_thread) are type-checked and
 * otherwise ignored, and the first problem found is reported with the
 * file name and the JSON path of the field. */
#include "diff.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "safe.h"
#include "systab.h"
#include "version.h"
#include "units.h"

/* ---- loading ----------------------------------------------------------- */

#define JPATH_LEN 160

static const char load_hint[] =
	"compare reports written by `bpfspec run SPEC -o json > FILE` "
	"(docs/report.md lists every field)";

typedef struct loader {
	const char *file;	/* as the user named it */
	bool failed;		/* a diagnostic was printed */
} loader;

/* Prints "FILE: PATH: MESSAGE" (the first problem only). Returns -1. */
static int ld_fail(loader *l, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ld_fail(loader *l, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (l->failed)
		return -1;
	l->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (path && *path)
		diag_error(load_hint, "%s: %s: %s", l->file, path, msg);
	else
		diag_error(load_hint, "%s: %s", l->file, msg);
	return -1;
}

static int ld_oom(loader *l)
{
	if (!l->failed)
		diag_error(NULL, "%s: out of memory", l->file);
	l->failed = true;
	return -1;
}

static void path_key(char *out, const char *base, const char *key)
{
	snprintf(out, JPATH_LEN, *base ? "%s.%s" : "%s%s", base, key);
}

static void path_idx(char *out, const char *base, size_t i)
{
	snprintf(out, JPATH_LEN, "%s[%zu]", base, i);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	case JSON_NULL: return "null";
	}
	return "?";
}

typedef enum { T_INT, T_UINT, T_STR, T_BOOL, T_ARR, T_OBJ } want_type;

static const char *const want_names[] = {
	[T_INT] = "an integer", [T_UINT] = "a non-negative integer", [T_STR] = "a string",
	[T_BOOL] = "true or false", [T_ARR] = "an array", [T_OBJ] = "an object",
};

static bool type_ok(const json_t *v, want_type t)
{
	switch (t) {
	case T_INT: return json_is_integer(v);
	case T_UINT: return json_is_integer(v);
	case T_STR: return json_is_string(v);
	case T_BOOL: return json_is_boolean(v);
	case T_ARR: return json_is_array(v);
	case T_OBJ: return json_is_object(v);
	}
	return false;
}

/* The value of KEY in OBJ (at BASE), checked against T.  Returns NULL
 * when it is absent and OPTIONAL (no diagnostic), or after a diagnostic
 * when it is absent, of another type, or negative for T_UINT.  With
 * NULLABLE a JSON null is accepted and returned as is. */
static json_t *ld_get(loader *l, const json_t *obj, const char *base, const char *key,
		      want_type t, bool nullable, bool optional)
{
	char path[JPATH_LEN];
	json_t *v = json_object_get(obj, key);

	if (!v) {
		if (!optional) {
			path_key(path, base, key);
			ld_fail(l, path, "missing (expected %s%s)", want_names[t],
				nullable ? " or null" : "");
		}
		return NULL;
	}
	if (nullable && json_is_null(v))
		return v;
	if (!type_ok(v, t)) {
		path_key(path, base, key);
		ld_fail(l, path, "expected %s%s, found %s", want_names[t],
			nullable ? " or null" : "", type_name(v));
		return NULL;
	}
	if (t == T_UINT && json_integer_value(v) < 0) {
		path_key(path, base, key);
		ld_fail(l, path, "expected a non-negative integer, found %lld",
			(long long)json_integer_value(v));
		return NULL;
	}
	return v;
}

static int get_u64(loader *l, const json_t *obj, const char *base, const char *key,
		   uint64_t *out)
{
	json_t *v = ld_get(l, obj, base, key, T_UINT, false, false);
	if (!v)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_long(loader *l, const json_t *obj, const char *base, const char *key, long *out)
{
	json_t *v = ld_get(l, obj, base, key, T_INT, false, false);
	if (!v)
		return -1;
	*out = (long)json_integer_value(v);
	return 0;
}

static int get_bool(loader *l, const json_t *obj, const char *base, const char *key, bool *out)
{
	json_t *v = ld_get(l, obj, base, key, T_BOOL, false, false);
	if (!v)
		return -1;
	*out = json_is_true(v);
	return 0;
}

/* Copies string KEY into *OUT (NULL for a JSON null when NULLABLE, or
 * when absent and OPTIONAL). */
static int get_str(loader *l, const json_t *obj, const char *base, const char *key, char **out,
		   bool nullable, bool optional)
{
	json_t *v = ld_get(l, obj, base, key, T_STR, nullable, optional);
	*out = NULL;
	if (!v)
		return l->failed ? -1 : 0;
	if (json_is_null(v))
		return 0;
	if (!(*out = strdup(json_string_value(v))))
		return ld_oom(l);
	return 0;
}

static json_t *get_arr(loader *l, const json_t *obj, const char *base, const char *key)
{
	return ld_get(l, obj, base, key, T_ARR, false, false);
}

/* Array element I of ARR (at BASE) as an object, its path in PATH. */
static json_t *elem_obj(loader *l, const json_t *arr, const char *base, size_t i, char *path)
{
	json_t *v = json_array_get(arr, i);
	path_idx(path, base, i);
	if (!json_is_object(v)) {
		ld_fail(l, path, "expected an object, found %s", type_name(v));
		return NULL;
	}
	return v;
}

/* Allocates N zeroed elements of SIZE (a valid pointer even for N = 0
 * is not needed: NULL is returned and the caller stores 0 elements). */
static int alloc_array(loader *l, void **out, size_t n, size_t size)
{
	*out = NULL;
	if (n == 0)
		return 0;
	if (!(*out = calloc(n, size)))
		return ld_oom(l);
	return 0;
}

/* count, sum_ns, min_ns, max_ns, mean_ns; with FULL also the percentiles
 * and the buckets. */
static int load_stats(loader *l, const json_t *obj, const char *base, report_stats *st,
		      bool full)
{
	uint64_t mean;

	if (get_u64(l, obj, base, "count", &st->count) < 0 ||
	    get_u64(l, obj, base, "sum_ns", &st->sum_ns) < 0 ||
	    get_u64(l, obj, base, "min_ns", &st->min_ns) < 0 ||
	    get_u64(l, obj, base, "max_ns", &st->max_ns) < 0 ||
	    get_u64(l, obj, base, "mean_ns", &mean) < 0)
		return -1;
	if (!full)
		return 0;
	if (get_u64(l, obj, base, "p50_ns", &st->p50_ns) < 0 ||
	    get_u64(l, obj, base, "p90_ns", &st->p90_ns) < 0 ||
	    get_u64(l, obj, base, "p99_ns", &st->p99_ns) < 0)
		return -1;
	json_t *bs = get_arr(l, obj, base, "buckets");
	if (!bs)
		return -1;
	char bpath[JPATH_LEN], path[JPATH_LEN];
	path_key(bpath, base, "buckets");
	size_t n = json_array_size(bs);
	if (alloc_array(l, (void **)&st->buckets, n, sizeof *st->buckets) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *b = elem_obj(l, bs, bpath, i, path);
		report_bucket *rb = &st->buckets[i];
		if (!b || get_u64(l, b, path, "lo_ns", &rb->lo_ns) < 0 ||
		    get_u64(l, b, path, "hi_ns", &rb->hi_ns) < 0 ||
		    get_u64(l, b, path, "count", &rb->count) < 0)
			return -1;
		st->n_buckets = i + 1;
	}
	return 0;
}

/* One entry of a groups or threads array: tid, thread, main_thread and
 * the statistics (FULL: with percentiles and buckets). */
static int load_group(loader *l, const json_t *obj, const char *base, report_group *g, bool full)
{
	bool main_thread;

	if (get_long(l, obj, base, "tid", &g->tid) < 0 ||
	    get_str(l, obj, base, "thread", &g->thread, true, false) < 0 ||
	    get_bool(l, obj, base, "main_thread", &main_thread) < 0)
		return -1;
	return load_stats(l, obj, base, &g->st, full);
}

static int load_groups(loader *l, const json_t *obj, const char *base, const char *key,
		       report_group **out, size_t *n_out, bool full)
{
	char gpath[JPATH_LEN], path[JPATH_LEN];
	json_t *arr = get_arr(l, obj, base, key);

	if (!arr)
		return -1;
	path_key(gpath, base, key);
	size_t n = json_array_size(arr);
	if (alloc_array(l, (void **)out, n, sizeof **out) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *g = elem_obj(l, arr, gpath, i, path);
		/* Counted before filling: report_free frees what was copied. */
		*n_out = i + 1;
		if (!g || load_group(l, g, path, &(*out)[i], full) < 0)
			return -1;
	}
	return 0;
}

/* The errno number of NAME: from this architecture's table, or "E123". */
static long errno_number(const char *name)
{
	for (size_t i = 0; i < systab_n_errnos; i++)
		if (strcmp(systab_errnos[i].name, name) == 0)
			return systab_errnos[i].nr;
	if (name[0] == 'E' && isdigit((unsigned char)name[1])) {
		char *end;
		errno = 0;
		long v = strtol(name + 1, &end, 10);
		if (!*end && errno == 0)
			return v;
	}
	return 0;
}

static int load_syscall(loader *l, const json_t *obj, const char *base, report_syscall *sc)
{
	char epath[JPATH_LEN], path[JPATH_LEN];

	if (get_str(l, obj, base, "syscall", &sc->name, false, false) < 0 ||
	    get_long(l, obj, base, "nr", &sc->nr) < 0 ||
	    load_stats(l, obj, base, &sc->st, true) < 0 ||
	    get_u64(l, obj, base, "error_count", &sc->error_count) < 0)
		return -1;
	json_t *errs = ld_get(l, obj, base, "errors", T_OBJ, false, false);
	if (!errs)
		return -1;
	path_key(epath, base, "errors");
	if (alloc_array(l, (void **)&sc->errors, json_object_size(errs), sizeof *sc->errors) < 0)
		return -1;
	const char *name;
	json_t *v;
	json_object_foreach(errs, name, v) {
		report_errno *e = &sc->errors[sc->n_errors];
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			path_key(path, epath, name);
			return ld_fail(l, path, "expected a non-negative integer, found %s",
				       type_name(v));
		}
		if (!(e->name = strdup(name)))
			return ld_oom(l);
		sc->n_errors++;
		e->number = errno_number(name);
		e->count = (uint64_t)json_integer_value(v);
	}
	return load_groups(l, obj, base, "threads", &sc->threads, &sc->n_threads, false);
}

static int load_event(loader *l, const json_t *obj, const char *base, report_event *ev)
{
	json_t *v;

	if (get_u64(l, obj, base, "t_ns", &ev->t_ns) < 0 ||
	    get_long(l, obj, base, "tid", &ev->tid) < 0 ||
	    get_str(l, obj, base, "thread", &ev->thread, true, false) < 0 ||
	    get_str(l, obj, base, "syscall", &ev->syscall, true, false) < 0 ||
	    get_u64(l, obj, base, "latency_ns", &ev->latency_ns) < 0)
		return -1;
	if (!(v = ld_get(l, obj, base, "ret", T_INT, false, false)))
		return -1;
	ev->ret = (long long)json_integer_value(v);
	if (get_str(l, obj, base, "error", &ev->error, false, true) < 0 ||
	    get_str(l, obj, base, "path", &ev->path, false, true) < 0 ||
	    get_str(l, obj, base, "address", &ev->address, false, true) < 0)
		return -1;
	if ((v = ld_get(l, obj, base, "path_truncated", T_BOOL, false, true)))
		ev->path_truncated = json_is_true(v);
	if ((v = ld_get(l, obj, base, "length", T_UINT, false, true))) {
		ev->has_length = true;
		ev->length = (uint64_t)json_integer_value(v);
	}
	return l->failed ? -1 : 0;
}


static int load_probe(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	char path[JPATH_LEN], apath[JPATH_LEN];
	char *kind = NULL;

	if (get_str(l, obj, base, "name", &p->name, false, false) < 0 ||
	    get_str(l, obj, base, "kind", &kind, false, false) < 0)
		return -1;
	int known = kind_from_name(kind, &p->kind);
	if (known < 0) {
		path_key(path, base, "kind");
		ld_fail(l, path, "unknown kind '%s' (latency, syscalls, events, count or utilization)",
			kind);
	}
	free(kind);
	if (known < 0 ||
	    get_str(l, obj, base, "function", &p->function, true, false) < 0 ||
	    get_str(l, obj, base, "object", &p->object, true, false) < 0 ||
	    get_str(l, obj, base, "unit", &p->unit, false, false) < 0 ||
	    get_bool(l, obj, base, "attached", &p->attached) < 0)
		return -1;
	/* What each kind's report holds (render_json.c writes it).  A
	 * utilization probe has a latency probe's fields (its waits in
	 * epoll), per-thread groups included. */
	bool is_latency = false, is_syscalls = false, is_events = false, is_count = false;
	switch (p->kind) {
	case PROBE_LATENCY:
	case PROBE_UTILIZATION:
		is_latency = true;
		break;
	case PROBE_SYSCALLS:
		is_syscalls = true;
		break;
	case PROBE_EVENTS:
		is_events = true;
		break;
	case PROBE_COUNT:
		is_count = true;
		break;
	}
	time_unit u;
	if (unit_lookup(p->unit, strlen(p->unit), &u) == 0)
		p->unit_ns = unit_ns(u);
	if (!p->unit_ns) {
		path_key(path, base, "unit");
		return ld_fail(l, path, "unknown unit '%s' (ns, us, ms or s)", p->unit);
	}
	if (get_str(l, obj, base, "derived", &p->derived, false, true) < 0)
		return -1;
	if (!p->attached && get_str(l, obj, base, "reason", &p->reason, true, true) < 0)
		return -1;
	if (is_events || is_count) {
		if (get_u64(l, obj, base, "count", &p->st.count) < 0)
			return -1;
		/* render_json writes an empty groups array for events probes,
		 * and counts alone for count probes: a diff reads the total. */
		if (!get_arr(l, obj, base, "groups"))
			return -1;
	} else if (load_stats(l, obj, base, &p->st, true) < 0 ||
		   load_groups(l, obj, base, "groups", &p->groups, &p->n_groups, is_latency) < 0) {
		return -1;
	}
	if (is_syscalls) {
		json_t *arr = get_arr(l, obj, base, "syscalls");
		if (!arr)
			return -1;
		path_key(apath, base, "syscalls");
		size_t n = json_array_size(arr);
		if (alloc_array(l, (void **)&p->syscalls, n, sizeof *p->syscalls) < 0)
			return -1;
		for (size_t i = 0; i < n; i++) {
			json_t *s = elem_obj(l, arr, apath, i, path);
			p->n_syscalls = i + 1;
			if (!s || load_syscall(l, s, path, &p->syscalls[i]) < 0)
				return -1;
		}
	}
	if (is_events) {
		if (get_u64(l, obj, base, "threshold_ns", &p->threshold_ns) < 0 ||
		    get_u64(l, obj, base, "events_dropped", &p->events_dropped) < 0)
			return -1;
		json_t *arr = get_arr(l, obj, base, "events");
		if (!arr)
			return -1;
		path_key(apath, base, "events");
		size_t n = json_array_size(arr);
		if (alloc_array(l, (void **)&p->events, n, sizeof *p->events) < 0)
			return -1;
		for (size_t i = 0; i < n; i++) {
			json_t *e = elem_obj(l, arr, apath, i, path);
			p->n_events = i + 1;
			if (!e || load_event(l, e, path, &p->events[i]) < 0)
				return -1;
		}
	}
	return 0;
}

/* The optional "parameters" object (name -> value text). */
static int load_params(loader *l, const json_t *root, report *rep)
{
	json_t *ps = ld_get(l, root, "", "parameters", T_OBJ, false, true), *v;
	const char *name;
	char path[JPATH_LEN];
	size_t n;

	if (!ps)
		return l->failed ? -1 : 0;
	n = json_object_size(ps);
	if (alloc_array(l, (void **)&rep->param_names, n, sizeof *rep->param_names) < 0 ||
	    alloc_array(l, (void **)&rep->param_values, n, sizeof *rep->param_values) < 0 ||
	    alloc_array(l, (void **)&rep->param_set, n, sizeof *rep->param_set) < 0)
		return -1;
	json_object_foreach(ps, name, v) {
		if (!json_is_string(v)) {
			path_key(path, "parameters", name);
			return ld_fail(l, path, "expected a string, found %s", type_name(v));
		}
		rep->param_names[rep->n_params] = strdup(name);
		rep->param_values[rep->n_params] = strdup(json_string_value(v));
		rep->n_params++;
		if (!rep->param_names[rep->n_params - 1] || !rep->param_values[rep->n_params - 1])
			return ld_oom(l);
	}
	return 0;
}

static int load_report(loader *l, const json_t *root, report *rep)
{
	char path[JPATH_LEN];
	json_t *v;

	if (!json_is_object(root))
		return ld_fail(l, NULL, "expected a JSON object (a report), found %s",
			       type_name(root));
	/* The schema first: a newer report may differ in any other field. */
	if (!(v = ld_get(l, root, "", "schema", T_INT, false, false)))
		return -1;
	if (json_integer_value(v) != BPFSPEC_REPORT_SCHEMA) {
		l->failed = true;
		diag_error("compare it with the bpfspec version that wrote it",
			   "%s: report schema %lld is not supported by this bpfspec (schema %d)",
			   l->file, (long long)json_integer_value(v), BPFSPEC_REPORT_SCHEMA);
		return -1;
	}
	if (!ld_get(l, root, "", "bpfspec_version", T_STR, false, false) ||
	    get_str(l, root, "", "spec", &rep->spec_name, true, false) < 0 ||
	    get_str(l, root, "", "spec_path", &rep->spec_path, true, false) < 0)
		return -1;
	if (load_params(l, root, rep) < 0)
		return -1;
	json_t *timing = ld_get(l, root, "", "timing", T_STR, false, true);
	if (l->failed)
		return -1;
	rep->entry_only = timing && strcmp(json_string_value(timing), "entry-only") == 0;
	json_t *t = ld_get(l, root, "", "target", T_OBJ, false, false);
	if (!t || get_long(l, t, "target", "pid", &rep->pid) < 0 ||
	    get_str(l, t, "target", "binary", &rep->binary, true, false) < 0)
		return -1;
	if (get_u64(l, root, "", "duration_ns", &rep->duration_ns) < 0 ||
	    get_bool(l, root, "", "partial", &rep->partial) < 0)
		return -1;
	/* Reports from before the window was dated have no start. */
	json_t *start = ld_get(l, root, "", "window_start_unix_ns", T_UINT, false, true);
	if (l->failed)
		return -1;
	if (start)
		rep->start_unix_ns = (uint64_t)json_integer_value(start);
	if (rep->partial &&
	    get_str(l, root, "", "partial_reason", &rep->partial_reason, true, true) < 0)
		return -1;
	if (get_u64(l, root, "", "lost_events", &rep->lost_events) < 0 ||
	    get_long(l, root, "", "attached_probes", &rep->attached_probes) < 0 ||
	    get_long(l, root, "", "expected_probes", &rep->expected_probes) < 0 ||
	    !ld_get(l, root, "", "percentile_method", T_STR, false, false))
		return -1;

	json_t *probes = get_arr(l, root, "", "probes");
	if (!probes)
		return -1;
	size_t n = json_array_size(probes);
	if (alloc_array(l, (void **)&rep->probes, n, sizeof *rep->probes) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *p = elem_obj(l, probes, "probes", i, path);
		rep->n_probes = i + 1;
		if (!p || load_probe(l, p, path, &rep->probes[i]) < 0)
			return -1;
	}

	json_t *warnings = get_arr(l, root, "", "warnings");
	if (!warnings)
		return -1;
	n = json_array_size(warnings);
	if (alloc_array(l, (void **)&rep->warnings, n, sizeof *rep->warnings) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		v = json_array_get(warnings, i);
		if (!json_is_string(v)) {
			path_idx(path, "warnings", i);
			return ld_fail(l, path, "expected a string, found %s", type_name(v));
		}
		if (!(rep->warnings[i] = strdup(json_string_value(v))))
			return ld_oom(l);
		rep->n_warnings = i + 1;
	}
	return 0;
}

static bool all_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

/* When TEXT holds several JSON values one after the other (NDJSON from
 * interval mode), returns how many and sets *LAST_LINE to the line the
 * last one starts on; otherwise returns 0. */
static size_t count_values(const char *text, size_t len, unsigned *last_line)
{
	size_t off = 0, n = 0;
	unsigned line = 1;

	while (off < len && !all_space(text + off, len - off)) {
		json_error_t err;
		/* Lines up to where the value starts. */
		while (off < len && isspace((unsigned char)text[off]))
			if (text[off++] == '\n')
				line++;
		json_t *v = json_loadb(text + off, len - off, JSON_DISABLE_EOF_CHECK, &err);
		if (!v)
			return 0;
		json_decref(v);
		if (err.position <= 0 || (size_t)err.position > len - off)
			return 0;
		*last_line = line;
		for (size_t i = 0; i < (size_t)err.position; i++)
			if (text[off + i] == '\n')
				line++;
		off += (size_t)err.position;
		n++;
	}
	return n > 1 ? n : 0;
}

report *report_parse_json(const char *text, size_t len, const char *name)
{
	loader l = { .file = name };
	json_error_t err;

	if (all_space(text, len)) {
		diag_error("write one with `bpfspec run SPEC -o json > FILE`",
			   "%s: empty file: expected a JSON report", name);
		return NULL;
	}
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		unsigned last_line = 0;
		size_t n = count_values(text, len, &last_line);
		if (n) {
			char hint[256];
			snprintf(hint, sizeof hint,
				 "pick one line: `sed -n %up %s > one.json` (the last report)",
				 last_line, strcmp(name, "<stdin>") == 0 ? "FILE" : name);
			diag_error(hint,
				   "%s: holds %zu JSON values, not one report (interval mode, -i, "
				   "writes one report per line)",
				   name, n);
			return NULL;
		}
		diag_src src = { .path = name, .text = text, .len = len };
		diag_loc loc = { 0, 0, 1, NULL };
		if (err.line > 0 && err.position >= 0 && (size_t)err.position <= len) {
			/* jansson points at the end of the offending token: underline
			 * a bare word or number from its start. */
			size_t end = (size_t)err.position, start = end;
			while (start > 0 && text[start - 1] &&
			       (isalnum((unsigned char)text[start - 1]) ||
				strchr("_.+-", text[start - 1])))
				start--;
			if (start == end && start > 0 && text[start - 1] != '\n')
				start--;
			loc = diag_loc_of(&src, start, end);
		}
		diag_at(DIAG_ERROR, &src, loc, load_hint, "not a JSON report: %s", err.text);
		return NULL;
	}
	report *rep = calloc(1, sizeof *rep);
	if (!rep) {
		json_decref(root);
		diag_error(NULL, "%s: out of memory", name);
		return NULL;
	}
	rep->attached_probes = -1;
	int rc = load_report(&l, root, rep);
	json_decref(root);
	if (rc < 0) {
		report_free(rep);
		return NULL;
	}
	return rep;
}

report *report_load_json(const char *path)
{
	bool is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "<stdin>" : path;
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		diag_error("check the path", "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 65536 > cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nt = realloc(text, ncap);
			if (!nt) {
				diag_error(NULL, "%s: out of memory", name);
				goto fail;
			}
			text = nt;
			cap = ncap;
		}
		size_t got = fread(text + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		diag_error(NULL, "cannot read %s: %s", name, strerror(errno));
		goto fail;
	}
	if (!is_stdin)
		fclose(f);
	report *rep = report_parse_json(text, len, name);
	free(text);
	return rep;
fail:
	if (!is_stdin)
		fclose(f);
	free(text);
	return NULL;
}

/* ---- comparing ----------------------------------------------------------- */

/* What one side shows of a probe or of one of its syscalls. */
typedef struct side {
	bool present;		/* in this report */
	bool attached;
	bool has_stats;		/* p50, p99, max (latency, syscalls) */
	bool has_errors;	/* syscalls */
	const char *reason;
	uint64_t count, p50, p99, max, errors;
	uint64_t duration_ns;
	const report_syscall *sc;	/* per-errno counts, or NULL */
} side;

static const report_probe *find_probe(const report *rep, const char *name)
{
	for (size_t i = 0; rep && i < rep->n_probes; i++)
		if (strcmp(rep->probes[i].name, name) == 0)
			return &rep->probes[i];
	return NULL;
}

static const report_syscall *find_syscall(const report_probe *p, const char *name)
{
	for (size_t i = 0; p && i < p->n_syscalls; i++)
		if (strcmp(p->syscalls[i].name, name) == 0)
			return &p->syscalls[i];
	return NULL;
}

static side probe_side(const report *rep, const report_probe *p)
{
	side s = { .duration_ns = rep->duration_ns };
	if (!p)
		return s;
	s.present = true;
	s.attached = p->attached;
	s.reason = p->reason;
	s.has_stats = kind_has_durations(p->kind);
	s.has_errors = p->kind == PROBE_SYSCALLS;
	s.count = p->st.count;
	s.p50 = p->st.p50_ns;
	s.p99 = p->st.p99_ns;
	s.max = p->st.max_ns;
	for (size_t i = 0; i < p->n_syscalls; i++)
		s.errors += p->syscalls[i].error_count;
	return s;
}

/* The side of syscall NAME of P (a syscalls probe, or NULL). */
static side syscall_side(const report *rep, const report_probe *p, const char *name)
{
	side s = { .duration_ns = rep->duration_ns };
	if (p && !p->attached) {
		s.present = s.has_stats = s.has_errors = true;
		s.reason = p->reason;
		return s;
	}
	const report_syscall *sc = find_syscall(p, name);
	if (!sc)
		return s;
	s.present = s.attached = s.has_stats = s.has_errors = true;
	s.count = sc->st.count;
	s.p50 = sc->st.p50_ns;
	s.p99 = sc->st.p99_ns;
	s.max = sc->st.max_ns;
	s.errors = sc->error_count;
	s.sc = sc;
	return s;
}

static bool has_errno(const report_syscall *sc, const char *name)
{
	for (size_t i = 0; sc && i < sc->n_errors; i++)
		if (strcmp(sc->errors[i].name, name) == 0)
			return true;
	return false;
}

static uint64_t errno_count(const report_syscall *sc, const char *name)
{
	for (size_t i = 0; sc && i < sc->n_errors; i++)
		if (strcmp(sc->errors[i].name, name) == 0)
			return sc->errors[i].count;
	return 0;
}

/* V rounded to the nearest multiple of 1/SCALE (without libm). */
static double round_to(double v, double scale)
{
	double x = v * scale;
	if (!(x > -1e15 && x < 1e15))
		return v;	/* too large for a fraction to matter, or NaN */
	return (double)(long long)(x < 0 ? x - 0.5 : x + 0.5) / scale;
}

/* AFTER - BEFORE, saturated to the int64 range. */
static int64_t delta(uint64_t before, uint64_t after)
{
	if (after >= before) {
		uint64_t d = after - before;
		return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
	}
	uint64_t d = before - after;
	return d > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)d;
}

/* Relative change in percent, rounded to 0.01; false when BEFORE is 0. */
static bool pct(double before, double after, double *out)
{
	if (before <= 0)
		return false;
	*out = round_to((after - before) / before * 100.0, 100.0);
	return true;
}

/* Calls per second over the window; false for an empty window. */
static bool rate(uint64_t count, uint64_t duration_ns, double *out)
{
	if (!duration_ns)
		return false;
	*out = round_to((double)count / ((double)duration_ns / 1e9), 1000.0);
	return true;
}

/* The status of a comparison: both sides attached, or why not. */
static const char *status(const side *b, const side *a)
{
	if (!b->present)
		return "new";
	if (!a->present)
		return "gone";
	if (!b->attached || !a->attached)
		return "not_attached";
	return "compared";
}

/* ---- text ---- */

/* NS with 3-4 significant digits in the unit that suits it: 512ns,
 * 1.050us, 40.31ms, 2.000s. */
static void fmt_ns(char *out, size_t len, uint64_t ns)
{
	time_unit u = unit_for(ns);
	if (u == UNIT_NS) {
		snprintf(out, len, "%lluns", (unsigned long long)ns);
		return;
	}
	double v = (double)ns / (double)unit_ns(u);
	snprintf(out, len, v >= 100 ? "%.1f%s" : v >= 10 ? "%.2f%s" : "%.3f%s", v, unit_name(u));
}

static double dabs(double v)
{
	return v < 0 ? -v : v;
}

static void fmt_rate(char *out, size_t len, double v)
{
	double m = dabs(v);
	snprintf(out, len, m >= 1000 ? "%.0f/s" : m >= 100 ? "%.1f/s" : m >= 10 ? "%.2f/s" : "%.3f/s",
		 v);
}

typedef enum { V_COUNT, V_RATE, V_DUR } value_kind;

static void fmt_value(char *out, size_t len, value_kind k, uint64_t v, uint64_t duration_ns)
{
	double r;
	if (k == V_DUR)
		fmt_ns(out, len, v);
	else if (k == V_COUNT)
		snprintf(out, len, "%llu", (unsigned long long)v);
	else if (rate(v, duration_ns, &r))
		fmt_rate(out, len, r);
	else
		snprintf(out, len, "-");
}

static void fmt_change(char *out, size_t len, value_kind k, const side *b, const side *a,
		       uint64_t vb, uint64_t va)
{
	double rb, ra;
	int64_t d = delta(vb, va);
	const char *sign = d > 0 ? "+" : d < 0 ? "-" : "";
	uint64_t mag = d < 0 ? (uint64_t)(-d) : (uint64_t)d;
	char num[40];

	if (k == V_RATE) {
		if (!rate(vb, b->duration_ns, &rb) || !rate(va, a->duration_ns, &ra)) {
			snprintf(out, len, "-");
			return;
		}
		fmt_rate(num, sizeof num, dabs(ra - rb));
		snprintf(out, len, "%s%s", ra > rb ? "+" : ra < rb ? "-" : "", num);
		return;
	}
	if (k == V_DUR)
		fmt_ns(num, sizeof num, mag);
	else
		snprintf(num, sizeof num, "%llu", (unsigned long long)mag);
	snprintf(out, len, "%s%s", sign, num);
}

static void fmt_pct(char *out, size_t len, value_kind k, const side *b, const side *a,
		    uint64_t vb, uint64_t va)
{
	double p, rb, ra;
	bool ok;
	if (k == V_RATE)
		ok = rate(vb, b->duration_ns, &rb) && rate(va, a->duration_ns, &ra) && pct(rb, ra, &p);
	else
		ok = pct((double)vb, (double)va, &p);
	if (ok)
		snprintf(out, len, p == 0 ? "%.1f%%" : "%+.1f%%", p);
	else
		out[0] = '\0';
}

#define ROW_FMT "  %-14s %-10s %12s %12s %12s %9s"
#define ROW_FMT_NOLABEL "  %-10s %12s %12s %12s %9s"

/* S without its trailing spaces. */
static char *rstrip(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

/* One row: LABEL (syscall name, blank, or NULL: no label column), STAT, the values of both
 * sides and the change; a side that does not show the value prints "-"
 * (missing) or "n/a" (not attached). */
static void text_row(FILE *out, const char *label, const char *stat, value_kind k, const side *b,
		     const side *a, uint64_t vb, uint64_t va)
{
	char sb[48], sa[48], chg[64], pc[24];
	const char *st = status(b, a);

	if (!b->present)
		snprintf(sb, sizeof sb, "-");
	else if (!b->attached)
		snprintf(sb, sizeof sb, "n/a");
	else
		fmt_value(sb, sizeof sb, k, vb, b->duration_ns);
	if (!a->present)
		snprintf(sa, sizeof sa, "-");
	else if (!a->attached)
		snprintf(sa, sizeof sa, "n/a");
	else
		fmt_value(sa, sizeof sa, k, va, a->duration_ns);
	pc[0] = '\0';
	if (strcmp(st, "compared") == 0) {
		fmt_change(chg, sizeof chg, k, b, a, vb, va);
		fmt_pct(pc, sizeof pc, k, b, a, vb, va);
	} else if (strcmp(st, "not_attached") == 0) {
		snprintf(chg, sizeof chg, "n/a");
	} else {
		snprintf(chg, sizeof chg, "%s", st);
	}
	/* Names come from the reports' files: safe.h's text form. */
	char *safe_label = label ? safe_text(label) : NULL, *safe_stat = safe_text(stat);
	char line[512];
	if (label)
		snprintf(line, sizeof line, ROW_FMT, safe_label ? safe_label : "?",
			 safe_stat ? safe_stat : "?", sb, sa, chg, pc);
	else
		snprintf(line, sizeof line, ROW_FMT_NOLABEL, safe_stat ? safe_stat : "?", sb, sa,
			 chg, pc);
	free(safe_label);
	free(safe_stat);
	fputs(rstrip(line), out);
	fputc('\n', out);
}

/* The rows of one probe (LABEL NULL, or "(all)" for a syscalls probe),
 * or of one syscall (LABEL = its name). */
static void text_block(FILE *out, const char *label, const side *b, const side *a)
{
	bool stats = (!b->present || !b->attached || b->has_stats) &&
		     (!a->present || !a->attached || a->has_stats);
	bool errors = (b->has_errors || !b->present) && (a->has_errors || !a->present);

	text_row(out, label, "count", V_COUNT, b, a, b->count, a->count);
	text_row(out, label ? "" : NULL, "count/s", V_RATE, b, a, b->count, a->count);
	if (stats) {
		text_row(out, label ? "" : NULL, "p50~", V_DUR, b, a, b->p50, a->p50);
		text_row(out, label ? "" : NULL, "p99~", V_DUR, b, a, b->p99, a->p99);
		text_row(out, label ? "" : NULL, "max", V_DUR, b, a, b->max, a->max);
	}
	if (errors) {
		text_row(out, label ? "" : NULL, "errors", V_COUNT, b, a, b->errors, a->errors);
		/* Per errno, before's order first, then errnos only after has. */
		for (int pass = 0; pass < 2; pass++) {
			const report_syscall *sc = pass == 0 ? b->sc : a->sc;
			for (size_t i = 0; sc && i < sc->n_errors; i++) {
				const char *en = sc->errors[i].name;
				if (pass == 1 && has_errno(b->sc, en))
					continue;
				char stat[32];
				snprintf(stat, sizeof stat, "  %s", en);
				text_row(out, label ? "" : NULL, stat, V_COUNT, b, a,
					 errno_count(b->sc, en), errno_count(a->sc, en));
			}
		}
	}
}

static void text_side(FILE *out, const char *which, const report *rep)
{
	char dur[32];
	fmt_ns(dur, sizeof dur, rep->duration_ns);
	fprintf(out, "  %-7s ", which);
	safe_fputs(rep->spec_name, out);
	fputs(", ", out);
	if (rep->pid > 0) {
		fprintf(out, "pid %ld (", rep->pid);
		safe_fputs(rep->binary, out);
		fputc(')', out);
	} else {
		safe_fputs(rep->binary, out);
	}
	fprintf(out, ", window %s", dur);
	if (rep->start_unix_ns) {
		char from[40];
		report_utc_stamp(from, sizeof from, rep->start_unix_ns, false);
		fprintf(out, " from %s", from);
	}
	fputc('\n', out);
	if (rep->partial) {
		fputs("          PARTIAL: ", out);
		safe_fputs(rep->partial_reason ? rep->partial_reason : "run cut short", out);
		fputc('\n', out);
	}
	if (rep->lost_events)
		fprintf(out, "          WARNING: bpftrace lost %llu events: figures are too low\n",
			(unsigned long long)rep->lost_events);
}

/* Walks the probe names of BEFORE in order, then those only AFTER has;
 * NULL at the end.  Start with a zeroed name_iter. */
typedef struct name_iter {
	int pass;
	size_t i;
} name_iter;

static const char *next_probe(name_iter *it, const report *before, const report *after)
{
	for (; it->pass < 2; it->pass++, it->i = 0) {
		const report *from = it->pass == 0 ? before : after;
		while (it->i < from->n_probes) {
			const char *name = from->probes[it->i++].name;
			if (it->pass == 0 || !find_probe(before, name))
				return name;
		}
	}
	return NULL;
}

/* The same for the syscalls of two syscalls probes (either may be NULL). */
static const char *next_syscall(name_iter *it, const report_probe *before,
				const report_probe *after)
{
	for (; it->pass < 2; it->pass++, it->i = 0) {
		const report_probe *from = it->pass == 0 ? before : after;
		while (from && it->i < from->n_syscalls) {
			const char *name = from->syscalls[it->i++].name;
			if (it->pass == 0 || !find_syscall(before, name))
				return name;
		}
	}
	return NULL;
}

static bool windows_differ(const report *b, const report *a)
{
	uint64_t hi = b->duration_ns > a->duration_ns ? b->duration_ns : a->duration_ns;
	uint64_t lo = b->duration_ns > a->duration_ns ? a->duration_ns : b->duration_ns;
	return (double)(hi - lo) > 0.01 * (double)hi;
}

static bool is_syscalls(const report_probe *p)
{
	return p && p->kind == PROBE_SYSCALLS;
}

/* P when its syscalls are to be listed: a probe that was not attached
 * has none to show. */
static const report_probe *listed(const report_probe *p)
{
	return p && p->attached ? p : NULL;
}

static void diff_text(FILE *out, const report *before, const report *after)
{
	const char *spec_b = before->spec_name ? before->spec_name : "?";
	const char *spec_a = after->spec_name ? after->spec_name : "?";

	fputs("bpfspec diff ", out);
	safe_fputs(spec_b, out);
	if (strcmp(spec_b, spec_a) != 0) {
		fputs(" -> ", out);
		safe_fputs(spec_a, out);
	}
	fputc('\n', out);
	text_side(out, "before:", before);
	text_side(out, "after:", after);
	if (windows_differ(before, after))
		fprintf(out, "note: the windows differ in length: compare count/s, not count\n");

	name_iter it = { 0 };
	const char *name;
	while ((name = next_probe(&it, before, after))) {
		const report_probe *pb = find_probe(before, name), *pa = find_probe(after, name);
		side b = probe_side(before, pb), a = probe_side(after, pa);
		fputc('\n', out);
		safe_fputs(name, out);
		fputs(" (", out);
		fputs(kind_name(pa ? pa->kind : pb->kind), out);
		fputc(')', out);
		if (pb && pa && pb->kind != pa->kind) {
			fputs(": kind changed from ", out);
			fputs(kind_name(pb->kind), out);
		}
		const char *rb = pb && !pb->attached ? pb->reason ? pb->reason : "unknown reason" : NULL;
		const char *ra = pa && !pa->attached ? pa->reason ? pa->reason : "unknown reason" : NULL;
		if (rb && ra && strcmp(rb, ra) == 0) {
			fputs("\n  not attached in either report: ", out);
			safe_fputs(rb, out);
		} else {
			if (rb) {
				fputs("\n  before: not attached: ", out);
				safe_fputs(rb, out);
			}
			if (ra) {
				fputs("\n  after:  not attached: ", out);
				safe_fputs(ra, out);
			}
		}
		fputc('\n', out);
		if (pb && !pb->attached && pa && !pa->attached)
			continue;
		bool syscalls = is_syscalls(pb) || is_syscalls(pa);
		if (syscalls)
			fprintf(out, ROW_FMT "\n", "SYSCALL", "STAT", "BEFORE", "AFTER", "CHANGE", "%");
		else
			fprintf(out, ROW_FMT_NOLABEL "\n", "STAT", "BEFORE", "AFTER", "CHANGE", "%");
		text_block(out, syscalls ? "(all)" : NULL, &b, &a);
		if (!syscalls)
			continue;
		const report_probe *sb = is_syscalls(pb) ? pb : NULL;
		const report_probe *sa = is_syscalls(pa) ? pa : NULL;
		name_iter sit = { 0 };
		const char *sc;
		while ((sc = next_syscall(&sit, listed(sb), listed(sa)))) {
			side xb = syscall_side(before, sb, sc), xa = syscall_side(after, sa, sc);
			text_block(out, sc, &xb, &xa);
		}
	}
	fprintf(out, "\n~ p50 and p99 are estimates (see the reports' percentile_method); "
		     "count and max are exact.\n");
}

/* ---- JSON ---- */

static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *json_header(const report *rep)
{
	json_t *o = json_object();
	json_object_set_new(o, "spec", jstr(rep->spec_name));
	json_object_set_new(o, "pid", json_integer(rep->pid));
	json_object_set_new(o, "binary", jstr(rep->binary));
	if (rep->start_unix_ns)
		json_object_set_new(o, "window_start_unix_ns", jint(rep->start_unix_ns));
	json_object_set_new(o, "duration_ns", jint(rep->duration_ns));
	json_object_set_new(o, "partial", json_boolean(rep->partial));
	json_object_set_new(o, "lost_events", jint(rep->lost_events));
	return o;
}

static json_t *json_side(const side *s)
{
	double r;
	if (!s->present)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "attached", json_boolean(s->attached));
	if (!s->attached) {
		json_object_set_new(o, "reason", jstr(s->reason));
		return o;
	}
	json_object_set_new(o, "count", jint(s->count));
	json_object_set_new(o, "count_per_s",
			    rate(s->count, s->duration_ns, &r) ? json_real(r) : json_null());
	if (s->has_stats) {
		json_object_set_new(o, "p50_ns", jint(s->p50));
		json_object_set_new(o, "p99_ns", jint(s->p99));
		json_object_set_new(o, "max_ns", jint(s->max));
	}
	if (s->has_errors)
		json_object_set_new(o, "error_count", jint(s->errors));
	if (s->sc) {
		json_t *errs = json_object();
		for (size_t i = 0; i < s->sc->n_errors; i++)
			json_object_set_new(errs, s->sc->errors[i].name, jint(s->sc->errors[i].count));
		json_object_set_new(o, "errors", errs);
	}
	return o;
}

static json_t *jpct(double b, double a)
{
	double p;
	return pct(b, a, &p) ? json_real(p) : json_null();
}

/* KEY: the integer change, KEY_PCT: the relative change (null when the
 * before value is 0). */
static void put_change(json_t *o, const char *key, const char *key_pct, uint64_t b, uint64_t a)
{
	json_object_set_new(o, key, json_integer(delta(b, a)));
	json_object_set_new(o, key_pct, jpct((double)b, (double)a));
}

static json_t *json_change(const side *b, const side *a)
{
	double rb, ra;
	if (strcmp(status(b, a), "compared") != 0)
		return json_null();
	json_t *o = json_object();
	put_change(o, "count", "count_pct", b->count, a->count);
	if (rate(b->count, b->duration_ns, &rb) && rate(a->count, a->duration_ns, &ra)) {
		json_object_set_new(o, "count_per_s", json_real(round_to(ra - rb, 1000.0)));
		json_object_set_new(o, "count_per_s_pct", jpct(rb, ra));
	} else {
		json_object_set_new(o, "count_per_s", json_null());
		json_object_set_new(o, "count_per_s_pct", json_null());
	}
	if (b->has_stats && a->has_stats) {
		put_change(o, "p50_ns", "p50_pct", b->p50, a->p50);
		put_change(o, "p99_ns", "p99_pct", b->p99, a->p99);
		put_change(o, "max_ns", "max_pct", b->max, a->max);
	}
	if (b->has_errors && a->has_errors)
		put_change(o, "error_count", "error_count_pct", b->errors, a->errors);
	if (b->sc && a->sc) {
		json_t *errs = json_object();
		for (int pass = 0; pass < 2; pass++) {
			const report_syscall *sc = pass == 0 ? b->sc : a->sc;
			for (size_t i = 0; sc && i < sc->n_errors; i++) {
				const char *en = sc->errors[i].name;
				if (pass == 1 && has_errno(b->sc, en))
					continue;
				json_object_set_new(errs, en,
						    json_integer(delta(errno_count(b->sc, en),
								       errno_count(a->sc, en))));
			}
		}
		json_object_set_new(o, "errors", errs);
	}
	return o;
}

static json_t *json_compare(const char *key, const char *name, const char *kind, const side *b,
			    const side *a)
{
	json_t *o = json_object();
	json_object_set_new(o, key, json_string(name));
	if (kind)
		json_object_set_new(o, "kind", json_string(kind));
	json_object_set_new(o, "status", json_string(status(b, a)));
	json_object_set_new(o, "before", json_side(b));
	json_object_set_new(o, "after", json_side(a));
	json_object_set_new(o, "change", json_change(b, a));
	return o;
}

static int diff_json(FILE *out, const report *before, const report *after)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_integer(BPFSPEC_REPORT_SCHEMA));
	json_object_set_new(root, "bpfspec_version", json_string(BPFSPEC_VERSION));
	json_object_set_new(root, "before", json_header(before));
	json_object_set_new(root, "after", json_header(after));
	json_t *probes = json_array();
	name_iter it = { 0 };
	const char *name;
	while ((name = next_probe(&it, before, after))) {
		const report_probe *pb = find_probe(before, name), *pa = find_probe(after, name);
		side b = probe_side(before, pb), a = probe_side(after, pa);
		json_t *jp = json_compare("name", name, kind_name(pa ? pa->kind : pb->kind), &b, &a);
		if (is_syscalls(pb) || is_syscalls(pa)) {
			const report_probe *sb = is_syscalls(pb) ? pb : NULL;
			const report_probe *sa = is_syscalls(pa) ? pa : NULL;
			json_t *arr = json_array();
			name_iter sit = { 0 };
			const char *sc;
			while ((sc = next_syscall(&sit, listed(sb), listed(sa)))) {
				side xb = syscall_side(before, sb, sc), xa = syscall_side(after, sa, sc);
				json_array_append_new(arr, json_compare("syscall", sc, NULL, &xb, &xa));
			}
			json_object_set_new(jp, "syscalls", arr);
		}
		json_array_append_new(probes, jp);
	}
	json_object_set_new(root, "probes", probes);

	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) |
			       JSON_ENSURE_ASCII);
	json_decref(root);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	return rc;
}

int diff_render(FILE *out, const report *before, const report *after, diff_format fmt)
{
	int rc = 0;
	if (fmt == DIFF_JSON)
		rc = diff_json(out, before, after);
	else
		diff_text(out, before, after);
	if (fflush(out) == EOF || ferror(out))
		rc = -1;
	return rc == 0 ? 0 : -1;
}
