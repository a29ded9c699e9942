/* report_load_probe — one probe of a JSON report read back (see
 * report_load_internal.h): its head (name, kind, function, unit...), its
 * stats and buckets, its thread groups, a syscalls probe's syscalls with
 * their errnos, an events probe's records with a probe point's arguments
 * (a slow syscall's fields through rl_get_syscall, which a loop blocker's
 * reader shares), and what the features' load_probe hooks read.  Which
 * parts a probe has is its kind's shape (model/kind.h).
 *
 * Every function returns 0, or -1 after a diagnostic naming the JSON path
 * of the first problem; what it filled before failing stays in the
 * probe (each array's count covers the entries begun), which report_free
 * frees. */
#include "render/report_load_internal.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/feature.h"
#include "model/kind.h"
#include "util/systab.h"
#include "util/units.h"

/* count, sum_ns, min_ns, max_ns, mean_ns; with FULL also the percentiles
 * and the buckets. */
int rl_load_stats(loader *l, const json_t *obj, const char *base, report_stats *st, bool full)
{
	uint64_t mean;

	if (rl_get_u64(l, obj, base, "count", &st->count) < 0 ||
	    rl_get_u64(l, obj, base, "sum_ns", &st->sum_ns) < 0 ||
	    rl_get_u64(l, obj, base, "min_ns", &st->min_ns) < 0 ||
	    rl_get_u64(l, obj, base, "max_ns", &st->max_ns) < 0 ||
	    rl_get_u64(l, obj, base, "mean_ns", &mean) < 0)
		return -1;
	if (!full)
		return 0;
	if (rl_get_u64(l, obj, base, "p50_ns", &st->p50_ns) < 0 ||
	    rl_get_u64(l, obj, base, "p90_ns", &st->p90_ns) < 0 ||
	    rl_get_u64(l, obj, base, "p99_ns", &st->p99_ns) < 0)
		return -1;
	json_t *bs = rl_get_arr(l, obj, base, "buckets");
	if (!bs)
		return -1;
	char bpath[JPATH_LEN], path[JPATH_LEN];
	rl_path_key(bpath, base, "buckets");
	size_t n = json_array_size(bs);
	if (rl_alloc_array(l, (void **)&st->buckets, n, sizeof *st->buckets) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *b = rl_elem_obj(l, bs, bpath, i, path);
		report_bucket *rb = &st->buckets[i];
		if (!b || rl_get_u64(l, b, path, "lo_ns", &rb->lo_ns) < 0 ||
		    rl_get_u64(l, b, path, "hi_ns", &rb->hi_ns) < 0 ||
		    rl_get_u64(l, b, path, "count", &rb->count) < 0)
			return -1;
		st->n_buckets = i + 1;
	}
	return 0;
}

/* The optional object KEY of OBJ (at BASE), a latency probe's statistics,
 * into ST (left empty when absent: a report written before it).  Returns
 * 0, or -1 after a diagnostic. */
static int load_optional_stats(loader *l, const json_t *obj, const char *base, const char *key,
			       report_stats *st, bool *present)
{
	char path[JPATH_LEN];
	json_t *o = rl_get(l, obj, base, key, T_OBJ, false, true);

	if (present)
		*present = o != NULL;
	if (!o)
		return l->failed ? -1 : 0;
	rl_path_key(path, base, key);
	return rl_load_stats(l, o, path, st, true);
}

/* What one entry of a groups or threads array holds besides tid,
 * thread and main_thread. */
typedef enum {
	GROUP_COUNT,		/* count alone (count probes) */
	GROUP_TOTALS,		/* count, sum, min, max, mean (syscalls probes) */
	GROUP_FULL,		/* and percentiles and buckets (latency) */
	GROUP_BUSY,		/* and idle_ns, busy_ns, utilization, stalls */
} group_holds;

static int load_group(loader *l, const json_t *obj, const char *base, report_group *g,
		      group_holds holds)
{
	bool main_thread;

	if (rl_get_long(l, obj, base, "tid", &g->tid) < 0 ||
	    rl_get_bytes(l, obj, base, "thread", &g->thread, true, false) < 0 ||
	    rl_get_bool(l, obj, base, "main_thread", &main_thread) < 0)
		return -1;
	if (holds == GROUP_COUNT)
		return rl_get_u64(l, obj, base, "count", &g->st.count);
	if (rl_load_stats(l, obj, base, &g->st, holds != GROUP_TOTALS) < 0)
		return -1;
	if (holds != GROUP_BUSY)
		return 0;
	if (rl_get_u64(l, obj, base, "idle_ns", &g->idle_ns) < 0 ||
	    rl_get_u64(l, obj, base, "busy_ns", &g->busy_ns) < 0 ||
	    rl_get_fraction(l, obj, base, "utilization", &g->utilization) < 0)
		return -1;
	return load_optional_stats(l, obj, base, "stalls", &g->stalls, NULL);
}

static int load_groups(loader *l, const json_t *obj, const char *base, const char *key,
		       report_group **out, size_t *n_out, group_holds holds)
{
	char gpath[JPATH_LEN], path[JPATH_LEN];
	json_t *arr = rl_get_arr(l, obj, base, key);

	if (!arr)
		return -1;
	rl_path_key(gpath, base, key);
	size_t n = json_array_size(arr);
	if (rl_alloc_array(l, (void **)out, n, sizeof **out) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *g = rl_elem_obj(l, arr, gpath, i, path);
		/* Counted before filling: report_free frees what was copied. */
		*n_out = i + 1;
		if (!g || load_group(l, g, path, &(*out)[i], holds) < 0)
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

	if (rl_get_str(l, obj, base, "syscall", &sc->name, false, false) < 0 ||
	    rl_get_long(l, obj, base, "nr", &sc->nr) < 0 ||
	    rl_load_stats(l, obj, base, &sc->st, true) < 0 ||
	    rl_get_u64(l, obj, base, "error_count", &sc->error_count) < 0)
		return -1;
	json_t *errs = rl_get(l, obj, base, "errors", T_OBJ, false, false);
	if (!errs)
		return -1;
	rl_path_key(epath, base, "errors");
	if (rl_alloc_array(l, (void **)&sc->errors, json_object_size(errs), sizeof *sc->errors) < 0)
		return -1;
	const char *name;
	json_t *v;
	json_object_foreach(errs, name, v) {
		report_errno *e = &sc->errors[sc->n_errors];
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			rl_path_key(path, epath, name);
			return rl_fail(l, path, "expected a non-negative integer, found %s",
				       rl_type_name(v));
		}
		if (!(e->name = strdup(name)))
			return rl_oom(l);
		sc->n_errors++;
		e->number = errno_number(name);
		e->count = (uint64_t)json_integer_value(v);
	}
	return load_groups(l, obj, base, "threads", &sc->threads, &sc->n_threads, GROUP_TOTALS);
}

/* The values of a point event: "args" in the spec's order, strings
 * that are not UTF-8 in "args_hex" as well, a cut string named by
 * "truncated" (gen/kinds/events.c writes them). */
static int load_args(loader *l, const json_t *obj, const char *base, report_event *ev)
{
	json_t *args = rl_get(l, obj, base, "args", T_OBJ, false, false), *v;
	char apath[JPATH_LEN], path[JPATH_LEN];
	char *truncated = NULL;
	const char *name;
	bool named = false;

	if (!args)
		return -1;
	rl_path_key(apath, base, "args");
	if (rl_alloc_array(l, (void **)&ev->args, json_object_size(args), sizeof *ev->args) < 0)
		return -1;
	json_t *hexes = rl_get(l, obj, base, "args_hex", T_OBJ, false, true);
	if (l->failed || rl_get_str(l, obj, base, "truncated", &truncated, false, true) < 0)
		return -1;
	json_object_foreach(args, name, v) {
		report_value *rv = &ev->args[ev->n_args];
		if (!(rv->name = strdup(name)))
			return free(truncated), rl_oom(l);
		ev->n_args++;
		rv->truncated = truncated && strcmp(truncated, name) == 0;
		named |= rv->truncated;
		if (json_is_integer(v) && json_integer_value(v) < 0) {
			rv->type = REPORT_VALUE_INT;
			rv->i = json_integer_value(v);
		} else if (json_is_integer(v)) {
			rv->type = REPORT_VALUE_UINT;
			rv->u = (unsigned long long)json_integer_value(v);
		} else if (json_is_string(v)) {
			/* A number past INT64_MAX is written as its decimal text,
			 * and reads back as that text. */
			rv->type = REPORT_VALUE_STRING;
			json_t *h = hexes ? json_object_get(hexes, name) : NULL;
			if (!(rv->s = strdup(json_string_value(v))))
				return free(truncated), rl_oom(l);
			char hpath[JPATH_LEN];
			rl_path_key(hpath, base, "args_hex");
			rl_path_key(path, hpath, name);
			if (h && (!json_is_string(h) || rl_put_hex_bytes(l, h, path, &rv->s) < 0)) {
				free(truncated);
				return l->failed ? -1 : rl_fail(l, path, "expected a string, found %s",
								 rl_type_name(h));
			}
		} else {
			rl_path_key(path, apath, name);
			free(truncated);
			return rl_fail(l, path, "expected an integer or a string, found %s",
				       rl_type_name(v));
		}
	}
	if (truncated && !named) {
		rl_path_key(path, base, "truncated");
		rl_fail(l, path, "'%s' names no argument of the event", truncated);
	}
	free(truncated);
	return l->failed ? -1 : 0;
}

int rl_get_syscall(loader *l, const json_t *obj, const char *base, report_event *ev,
		   const char *duration)
{
	json_t *v;

	if (rl_get_str(l, obj, base, "syscall", &ev->syscall, false, false) < 0 ||
	    rl_get_u64(l, obj, base, duration, &ev->latency_ns) < 0)
		return -1;
	if (!(v = rl_get(l, obj, base, "ret", T_INT, false, false)))
		return -1;
	ev->ret = (long long)json_integer_value(v);
	if (rl_get_str(l, obj, base, "error", &ev->error, false, true) < 0)
		return -1;
	if ((v = rl_get(l, obj, base, "fd", T_INT, false, true))) {
		ev->has_fd = true;
		ev->fd = (long)json_integer_value(v);
	}
	if (l->failed || rl_get_bytes(l, obj, base, "path", &ev->path, false, true) < 0)
		return -1;
	if ((v = rl_get(l, obj, base, "path_truncated", T_BOOL, false, true)))
		ev->path_truncated = json_is_true(v);
	if (l->failed || rl_get_bytes(l, obj, base, "address", &ev->address, false, true) < 0)
		return -1;
	if ((v = rl_get(l, obj, base, "length", T_UINT, false, true))) {
		ev->has_length = true;
		ev->length = (uint64_t)json_integer_value(v);
	}
	return l->failed ? -1 : 0;
}

/* One record: a slow syscall, or with POINT a hit of a probe point. */
static int load_event(loader *l, const json_t *obj, const char *base, report_event *ev,
		      bool point)
{
	if (rl_get_u64(l, obj, base, "t_ns", &ev->t_ns) < 0 ||
	    rl_get_long(l, obj, base, "tid", &ev->tid) < 0 ||
	    rl_get_bytes(l, obj, base, "thread", &ev->thread, true, false) < 0)
		return -1;
	if (point)
		return load_args(l, obj, base, ev);
	/* Schema 1 named an events record's duration apart from the other
	 * syscall records'. */
	return rl_get_syscall(l, obj, base, ev, l->schema == 1 ? "latency_ns" : "duration_ns");
}

/* What a probe is and where: name, kind, probe, function, object,
 * debug_file, matched_symbols, unit (and unit_ns), attached, derived and,
 * when not attached, reason, into P (copies P owns).  Returns 0, or -1
 * after a diagnostic. */
static int load_probe_head(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	char path[JPATH_LEN];
	char *kind = NULL;

	if (rl_get_str(l, obj, base, "name", &p->name, false, false) < 0 ||
	    rl_get_str(l, obj, base, "kind", &kind, false, false) < 0)
		return -1;
	int known = kind_from_name(kind, &p->kind);
	if (known < 0) {
		rl_path_key(path, base, "kind");
		rl_fail(l, path, "unknown kind '%s' (latency, syscalls, events, count, utilization, span or http)",
			kind);
	}
	free(kind);
	if (known < 0 ||
	    rl_get_str(l, obj, base, "probe", &p->probe, false, true) < 0 ||
	    rl_get_bytes(l, obj, base, "function", &p->function, true, false) < 0 ||
	    rl_get_bytes(l, obj, base, "object", &p->object, true, false) < 0 ||
	    rl_get_bytes(l, obj, base, "debug_file", &p->debug_file, false, true) < 0 ||
	    rl_get_str(l, obj, base, "unit", &p->unit, false, false) < 0 ||
	    rl_get_bool(l, obj, base, "attached", &p->attached) < 0)
		return -1;
	json_t *matched = rl_get(l, obj, base, "matched_symbols", T_UINT, false, true);
	if (l->failed)
		return -1;
	p->matched_symbols = matched ? (size_t)json_integer_value(matched) : 0;
	time_unit u;
	if (unit_lookup(p->unit, strlen(p->unit), &u) == 0)
		p->unit_ns = unit_ns(u);
	if (!p->unit_ns) {
		rl_path_key(path, base, "unit");
		return rl_fail(l, path, "unknown unit '%s' (ns, us, ms or s)", p->unit);
	}
	if (rl_get_str(l, obj, base, "derived", &p->derived, false, true) < 0)
		return -1;
	if (!p->attached && rl_get_str(l, obj, base, "reason", &p->reason, true, true) < 0)
		return -1;
	return 0;
}

/* A syscalls probe's "syscalls" array into P->syscalls (P->n_syscalls
 * counts the entries begun, for report_free).  Returns 0, or -1 after a
 * diagnostic. */
static int load_syscalls(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	char apath[JPATH_LEN], path[JPATH_LEN];
	json_t *arr = rl_get_arr(l, obj, base, "syscalls");

	if (!arr)
		return -1;
	rl_path_key(apath, base, "syscalls");
	size_t n = json_array_size(arr);
	if (rl_alloc_array(l, (void **)&p->syscalls, n, sizeof *p->syscalls) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *s = rl_elem_obj(l, arr, apath, i, path);
		p->n_syscalls = i + 1;
		if (!s || load_syscall(l, s, path, &p->syscalls[i]) < 0)
			return -1;
	}
	return 0;
}

/* An events probe's threshold_ns (none on a probe point), events_dropped
 * and "events" array into P (P->n_events counts the records begun, for
 * report_free).  Returns 0, or -1 after a diagnostic. */
static int load_events(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	char apath[JPATH_LEN], path[JPATH_LEN];

	/* Events on a probe point have no threshold. */
	if ((!p->probe && rl_get_u64(l, obj, base, "threshold_ns", &p->threshold_ns) < 0) ||
	    rl_get_u64(l, obj, base, "events_dropped", &p->events_dropped) < 0)
		return -1;
	json_t *arr = rl_get_arr(l, obj, base, "events");
	if (!arr)
		return -1;
	rl_path_key(apath, base, "events");
	size_t n = json_array_size(arr);
	if (rl_alloc_array(l, (void **)&p->events, n, sizeof *p->events) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *e = rl_elem_obj(l, arr, apath, i, path);
		p->n_events = i + 1;
		if (!e || load_event(l, e, path, &p->events[i], p->probe != NULL) < 0)
			return -1;
	}
	return 0;
}

/* Probe OBJ (at BASE) into P: its head, what its kind's shape holds, and
 * what the features read.  Returns 0, or -1 after a diagnostic (what was
 * filled stays in P, for report_free). */
int rl_load_probe(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	if (load_probe_head(l, obj, base, p) < 0)
		return -1;
	/* What each kind's report holds: kind.h's shape (the kind's
	 * json_fields write it, gen/kinds/).  A utilization probe has a
	 * latency probe's fields (its waits in epoll). */
	const kind_shape *sh = kind_shape_of(p->kind);
	/* A count probe's groups hold counts (an events probe's are
	 * empty); a syscalls probe's, thread totals (the percentiles are its
	 * syscalls'). */
	group_holds holds = !sh->durations ? GROUP_COUNT : sh->per_syscall ? GROUP_TOTALS
			    : sh->busy ? GROUP_BUSY : GROUP_FULL;
	if (sh->durations ? rl_load_stats(l, obj, base, &p->st, true) < 0
			  : rl_get_u64(l, obj, base, "count", &p->st.count) < 0)
		return -1;
	if (sh->busy && (rl_get_fraction(l, obj, base, "utilization", &p->utilization) < 0 ||
			 load_optional_stats(l, obj, base, "stalls", &p->stalls, &p->has_stalls) < 0))
		return -1;
	if (load_groups(l, obj, base, "groups", &p->groups, &p->n_groups, holds) < 0)
		return -1;
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->load_probe && (*f)->load_probe(l, obj, base, p) < 0)
			return -1;
	if (sh->per_syscall && load_syscalls(l, obj, base, p) < 0)
		return -1;
	if (sh->events && load_events(l, obj, base, p) < 0)
		return -1;
	if (sh->spans && rl_load_spans(l, obj, base, p) < 0)
		return -1;
	if (sh->http && rl_load_http(l, obj, base, p) < 0)
		return -1;
	return 0;
}
