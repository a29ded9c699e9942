/* render_json — the versioned JSON report (see render.h). */
#include "render.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safe.h"
#include "version.h"

static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* Adds the latency fields of ST to OBJ. */
static void put_stats(json_t *obj, const report_stats *st)
{
	json_object_set_new(obj, "count", jint(st->count));
	json_object_set_new(obj, "sum_ns", jint(st->sum_ns));
	json_object_set_new(obj, "min_ns", jint(st->min_ns));
	json_object_set_new(obj, "max_ns", jint(st->max_ns));
	json_object_set_new(obj, "mean_ns", jint(st->count ? st->sum_ns / st->count : 0));
	json_object_set_new(obj, "p50_ns", jint(st->p50_ns));
	json_object_set_new(obj, "p90_ns", jint(st->p90_ns));
	json_object_set_new(obj, "p99_ns", jint(st->p99_ns));
	json_t *bs = json_array();
	for (size_t i = 0; i < st->n_buckets; i++) {
		json_t *b = json_object();
		json_object_set_new(b, "lo_ns", jint(st->buckets[i].lo_ns));
		json_object_set_new(b, "hi_ns", jint(st->buckets[i].hi_ns));
		json_object_set_new(b, "count", jint(st->buckets[i].count));
		json_array_append_new(bs, b);
	}
	json_object_set_new(obj, "buckets", bs);
}

/* S as a JSON string (null for NULL): valid UTF-8 as is (jansson escapes
 * quotes and control characters), each byte of an invalid sequence as
 * U+FFFD.  Every string of the report goes through here, so none is ever
 * dropped for not being UTF-8. */
static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	char *valid = safe_utf8_lossy(s);
	json_t *j = valid ? json_string(valid) : NULL;
	free(valid);
	return j ? j : json_null();
}

/* The exact bytes of S, lower-case hex, as a JSON string. */
static json_t *jhex(const char *s)
{
	size_t len = strlen(s);
	char *hex = malloc(2 * len + 1);
	json_t *j;

	if (!hex)
		return json_null();
	safe_hex(hex, s, len);
	j = json_string(hex);
	free(hex);
	return j ? j : json_null();
}

/* Sets KEY of OBJ to S, a string the traced process controls (a path, a
 * thread name, a symbol): jstr(S), and when S is not valid UTF-8 also
 * KEY_hex, its exact bytes in hex, so nothing is lost. */
static void put_bytes(json_t *obj, const char *key, const char *s)
{
	json_object_set_new(obj, key, jstr(s));
	if (s && !safe_utf8_valid(s, strlen(s))) {
		char hex_key[64];
		snprintf(hex_key, sizeof hex_key, "%s_hex", key);
		json_object_set_new(obj, hex_key, jhex(s));
	}
}

/* Per-thread entries without buckets or percentiles (syscalls probes). */
static json_t *threads_json(const report_group *g, size_t n, long pid)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *jt = json_object();
		json_object_set_new(jt, "tid", json_integer(g[i].tid));
		put_bytes(jt, "thread", g[i].thread);
		json_object_set_new(jt, "main_thread", json_boolean(pid > 0 && g[i].tid == pid));
		json_object_set_new(jt, "count", jint(g[i].st.count));
		json_object_set_new(jt, "sum_ns", jint(g[i].st.sum_ns));
		json_object_set_new(jt, "min_ns", jint(g[i].st.min_ns));
		json_object_set_new(jt, "max_ns", jint(g[i].st.max_ns));
		json_object_set_new(jt, "mean_ns",
				    jint(g[i].st.count ? g[i].st.sum_ns / g[i].st.count : 0));
		json_array_append_new(arr, jt);
	}
	return arr;
}

static json_t *syscalls_json(const report_probe *p, long pid)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < p->n_syscalls; i++) {
		const report_syscall *sc = &p->syscalls[i];
		json_t *js = json_object();
		json_object_set_new(js, "syscall", jstr(sc->name));
		json_object_set_new(js, "nr", json_integer(sc->nr));
		put_stats(js, &sc->st);
		json_object_set_new(js, "error_count", jint(sc->error_count));
		json_t *errs = json_object();
		for (size_t e = 0; e < sc->n_errors; e++)
			json_object_set_new(errs, sc->errors[e].name, jint(sc->errors[e].count));
		json_object_set_new(js, "errors", errs);
		json_object_set_new(js, "threads", threads_json(sc->threads, sc->n_threads, pid));
		json_array_append_new(arr, js);
	}
	return arr;
}

/* The values of an event on a probe point, by name, in the spec's order. */
static json_t *event_args_json(const report_event *ev)
{
	json_t *args = json_object();
	for (size_t a = 0; a < ev->n_args; a++) {
		const report_value *v = &ev->args[a];
		json_t *jv;
		char big[24];
		if (v->type == REPORT_VALUE_STRING) {
			jv = jstr(v->s);
		} else if (v->type == REPORT_VALUE_INT) {
			jv = json_integer(v->i);
		} else if (v->u > (unsigned long long)INT64_MAX) {
			/* Beyond what a JSON integer holds here: decimal text. */
			snprintf(big, sizeof big, "%llu", v->u);
			jv = json_string(big);
		} else {
			jv = json_integer((json_int_t)v->u);
		}
		json_object_set_new(args, v->name, jv);
	}
	return args;
}

static json_t *events_json(const report_probe *p)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < p->n_events; i++) {
		const report_event *ev = &p->events[i];
		json_t *je = json_object();
		json_object_set_new(je, "t_ns", jint(ev->t_ns));
		json_object_set_new(je, "tid", json_integer(ev->tid));
		put_bytes(je, "thread", ev->thread);
		if (!ev->syscall) {
			json_object_set_new(je, "args", event_args_json(ev));
			json_t *args_hex = json_object();
			for (size_t a = 0; a < ev->n_args; a++) {
				const report_value *v = &ev->args[a];
				if (v->type == REPORT_VALUE_STRING && v->s &&
				    !safe_utf8_valid(v->s, strlen(v->s)))
					json_object_set_new(args_hex, v->name, jhex(v->s));
			}
			if (json_object_size(args_hex))
				json_object_set_new(je, "args_hex", args_hex);
			else
				json_decref(args_hex);
			for (size_t a = 0; a < ev->n_args; a++)
				if (ev->args[a].truncated)
					json_object_set_new(je, "truncated",
							    jstr(ev->args[a].name));
			json_array_append_new(arr, je);
			continue;
		}
		json_object_set_new(je, "syscall", jstr(ev->syscall));
		json_object_set_new(je, "latency_ns", jint(ev->latency_ns));
		json_object_set_new(je, "ret", json_integer(ev->ret));
		if (ev->error)
			json_object_set_new(je, "error", jstr(ev->error));
		if (ev->path) {
			/* Paths are bytes: one that is not UTF-8 gains path_hex. */
			put_bytes(je, "path", ev->path);
			if (ev->path_truncated)
				json_object_set_new(je, "path_truncated", json_true());
		}
		if (ev->address)
			put_bytes(je, "address", ev->address);
		if (ev->has_length)
			json_object_set_new(je, "length", jint(ev->length));
		json_array_append_new(arr, je);
	}
	return arr;
}

static int render_json_flags(FILE *out, const report *rep, size_t flags);

int render_json(FILE *out, const report *rep)
{
	return render_json_flags(out, rep, JSON_INDENT(2));
}

int render_json_line(FILE *out, const report *rep)
{
	return render_json_flags(out, rep, JSON_COMPACT);
}

/* A group's object with what says whose it is: tid, thread (and its
 * bytes when not UTF-8), main_thread. */
static json_t *group_json(const report_group *g, const report *rep)
{
	json_t *jg = json_object();
	json_object_set_new(jg, "tid", json_integer(g->tid));
	put_bytes(jg, "thread", g->thread);
	json_object_set_new(jg, "main_thread", json_boolean(rep->pid > 0 && g->tid == rep->pid));
	return jg;
}

/* The groups of a latency or utilization probe: per thread, with its
 * statistics (and, for utilization, its busy and idle time). */
static json_t *timed_groups(const report_probe *p, const report *rep, bool utilization)
{
	json_t *groups = json_array();
	for (size_t g = 0; g < p->n_groups; g++) {
		json_t *jg = group_json(&p->groups[g], rep);
		put_stats(jg, &p->groups[g].st);
		if (utilization) {
			json_object_set_new(jg, "idle_ns", jint(p->groups[g].idle_ns));
			json_object_set_new(jg, "busy_ns", jint(p->groups[g].busy_ns));
			json_object_set_new(jg, "utilization", json_real(p->groups[g].utilization));
		}
		json_array_append_new(groups, jg);
	}
	return groups;
}

/* The groups of a count probe: hits per thread (no durations). */
static json_t *count_groups(const report_probe *p, const report *rep)
{
	json_t *groups = json_array();
	for (size_t g = 0; g < p->n_groups; g++) {
		json_t *jg = group_json(&p->groups[g], rep);
		json_object_set_new(jg, "count", jint(p->groups[g].st.count));
		json_array_append_new(groups, jg);
	}
	return groups;
}

/* The fields probe P's kind holds, in the order docs/report.md lists
 * them (diff.c's loader reads the same per kind). */
static void put_kind_fields(json_t *jp, const report_probe *p, const report *rep)
{
	switch (p->kind) {
	case PROBE_LATENCY:
		put_stats(jp, &p->st);
		json_object_set_new(jp, "groups", timed_groups(p, rep, false));
		break;
	case PROBE_UTILIZATION:
		put_stats(jp, &p->st);
		json_object_set_new(jp, "utilization", json_real(p->utilization));
		json_object_set_new(jp, "groups", timed_groups(p, rep, true));
		break;
	case PROBE_SYSCALLS:
		put_stats(jp, &p->st);
		/* No per-thread histograms for syscalls: totals only. */
		json_object_set_new(jp, "groups", threads_json(p->groups, p->n_groups, rep->pid));
		json_object_set_new(jp, "syscalls", syscalls_json(p, rep->pid));
		break;
	case PROBE_COUNT:
		json_object_set_new(jp, "count", jint(p->st.count));
		json_object_set_new(jp, "groups", count_groups(p, rep));
		break;
	case PROBE_EVENTS:
		json_object_set_new(jp, "count", jint(p->st.count));
		json_object_set_new(jp, "groups", json_array());
		if (!p->probe)
			json_object_set_new(jp, "threshold_ns", jint(p->threshold_ns));
		json_object_set_new(jp, "events_dropped", jint(p->events_dropped));
		json_object_set_new(jp, "events", events_json(p));
		break;
	}
}

static int render_json_flags(FILE *out, const report *rep, size_t flags)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_integer(BPFSPEC_REPORT_SCHEMA));
	json_object_set_new(root, "bpfspec_version", json_string(BPFSPEC_VERSION));
	json_object_set_new(root, "spec", jstr(rep->spec_name));
	json_object_set_new(root, "spec_path", jstr(rep->spec_path));
	json_t *params = json_object();
	for (size_t i = 0; i < rep->n_params; i++)
		json_object_set_new(params, rep->param_names[i], jstr(rep->param_values[i]));
	json_object_set_new(root, "parameters", params);
	json_object_set_new(root, "timing", json_string(rep->entry_only ? "entry-only"
								       : "entry-return"));
	json_t *t = json_object();
	json_object_set_new(t, "pid", json_integer(rep->pid));
	put_bytes(t, "binary", rep->binary);
	if (rep->libuv_version)
		json_object_set_new(t, "libuv_version", jstr(rep->libuv_version));
	json_object_set_new(root, "target", t);
	if (rep->bpftrace_version)
		json_object_set_new(root, "bpftrace_version", jstr(rep->bpftrace_version));
	if (rep->start_unix_ns) {
		char stamp[40];
		report_utc_stamp(stamp, sizeof stamp, rep->start_unix_ns, true);
		json_object_set_new(root, "window_start", json_string(stamp));
		json_object_set_new(root, "window_start_unix_ns", jint(rep->start_unix_ns));
	}
	json_object_set_new(root, "duration_ns", jint(rep->duration_ns));
	json_object_set_new(root, "partial", json_boolean(rep->partial));
	if (rep->partial)
		json_object_set_new(root, "partial_reason", jstr(rep->partial_reason));
	json_object_set_new(root, "lost_events", jint(rep->lost_events));
	json_object_set_new(root, "attached_probes", json_integer(rep->attached_probes));
	json_object_set_new(root, "expected_probes", json_integer(rep->expected_probes));
	json_object_set_new(root, "percentile_method", json_string(REPORT_PERCENTILE_METHOD));
	json_t *probes = json_array();
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		json_t *jp = json_object();
		json_object_set_new(jp, "name", jstr(p->name));
		json_object_set_new(jp, "kind", json_string(kind_name(p->kind)));
		if (p->probe)
			json_object_set_new(jp, "probe", jstr(p->probe));
		put_bytes(jp, "function", p->function);
		put_bytes(jp, "object", p->object);
		if (p->debug_file)
			put_bytes(jp, "debug_file", p->debug_file);
		if (p->matched_symbols)
			json_object_set_new(jp, "matched_symbols",
					    json_integer((json_int_t)p->matched_symbols));
		json_object_set_new(jp, "unit", jstr(p->unit));
		json_object_set_new(jp, "attached", json_boolean(p->attached));
		if (!p->attached)
			json_object_set_new(jp, "reason", jstr(p->reason));
		if (p->derived)
			json_object_set_new(jp, "derived", jstr(p->derived));
		put_kind_fields(jp, p, rep);
		json_array_append_new(probes, jp);
	}
	json_object_set_new(root, "probes", probes);
	json_t *warnings = json_array();
	for (size_t i = 0; i < rep->n_warnings; i++)
		json_array_append_new(warnings, jstr(rep->warnings[i]));
	json_object_set_new(root, "warnings", warnings);

	/* ASCII only: a character past U+007F is a \uXXXX escape, so a
	 * report printed to a terminal holds no C1 control or bidi override
	 * (safe.h); a JSON reader gets the same string. */
	int rc = json_dumpf(root, out, flags | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(root);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	/* A full disk shows only when the buffer is written out. */
	if (fflush(out) == EOF || ferror(out))
		rc = -1;
	return rc == 0 ? 0 : -1;
}
