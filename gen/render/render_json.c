/* render_json — the versioned JSON report (see render.h). */
#include "model/feature.h"
#include "render/render.h"
#include "render/render_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kind.h"
#include "util/safe.h"
#include "util/version.h"

json_t *rjson_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

void rjson_put_stats(json_t *obj, const report_stats *st)
{
	json_object_set_new(obj, "count", rjson_u64(st->count));
	json_object_set_new(obj, "sum_ns", rjson_u64(st->sum_ns));
	json_object_set_new(obj, "min_ns", rjson_u64(st->min_ns));
	json_object_set_new(obj, "max_ns", rjson_u64(st->max_ns));
	json_object_set_new(obj, "mean_ns", rjson_u64(st->count ? st->sum_ns / st->count : 0));
	json_object_set_new(obj, "p50_ns", rjson_u64(st->p50_ns));
	json_object_set_new(obj, "p90_ns", rjson_u64(st->p90_ns));
	json_object_set_new(obj, "p99_ns", rjson_u64(st->p99_ns));
	json_t *bs = json_array();
	for (size_t i = 0; i < st->n_buckets; i++) {
		json_t *b = json_object();
		json_object_set_new(b, "lo_ns", rjson_u64(st->buckets[i].lo_ns));
		json_object_set_new(b, "hi_ns", rjson_u64(st->buckets[i].hi_ns));
		json_object_set_new(b, "count", rjson_u64(st->buckets[i].count));
		json_array_append_new(bs, b);
	}
	json_object_set_new(obj, "buckets", bs);
}

/* Valid UTF-8 as is (jansson escapes quotes and control characters), each
 * byte of an invalid sequence as U+FFFD.  Every string of the report goes
 * through here, so none is ever dropped for not being UTF-8. */
json_t *rjson_text(const char *s)
{
	if (!s)
		return json_null();
	char *valid = safe_utf8_lossy(s);
	json_t *j = valid ? json_string(valid) : NULL;
	free(valid);
	return j ? j : json_null();
}

json_t *rjson_hex(const char *s)
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

/* For every string the traced process controls (a path, a thread name, a
 * symbol), so that nothing is lost. */
void rjson_put_bytes(json_t *obj, const char *key, const char *s)
{
	json_object_set_new(obj, key, rjson_text(s));
	if (s && !safe_utf8_valid(s, strlen(s))) {
		char hex_key[64];
		snprintf(hex_key, sizeof hex_key, "%s_hex", key);
		json_object_set_new(obj, hex_key, rjson_hex(s));
	}
}

void rjson_put_syscall(json_t *obj, const report_event *ev)
{
	json_object_set_new(obj, "syscall", rjson_text(ev->syscall));
	json_object_set_new(obj, "duration_ns", rjson_u64(ev->latency_ns));
	json_object_set_new(obj, "ret", json_integer(ev->ret));
	if (ev->error)
		json_object_set_new(obj, "error", rjson_text(ev->error));
	if (ev->has_fd)
		json_object_set_new(obj, "fd", json_integer(ev->fd));
	if (ev->path) {
		/* Paths are bytes: one that is not UTF-8 gains path_hex. */
		rjson_put_bytes(obj, "path", ev->path);
		if (ev->path_truncated)
			json_object_set_new(obj, "path_truncated", json_true());
	}
	if (ev->address)
		rjson_put_bytes(obj, "address", ev->address);
	if (ev->has_length)
		json_object_set_new(obj, "length", rjson_u64(ev->length));
}

json_t *rjson_group(const report_group *g, report_pids pids)
{
	json_t *jg = json_object();
	json_object_set_new(jg, "tid", json_integer(g->tid));
	rjson_put_bytes(jg, "thread", g->thread);
	json_object_set_new(jg, "main_thread", json_boolean(report_pids_has(pids, g->tid)));
	return jg;
}

void rjson_put_features(json_t *jp, const report_probe *p, const report *rep)
{
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->json_probe)
			(*f)->json_probe(jp, p, rep);
}

void rjson_put_group_features(json_t *jg, const report_probe *p, const report_group *g)
{
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->json_group)
			(*f)->json_group(jg, p, g);
}

json_t *rjson_thread_totals(const report_group *g, size_t n, report_pids pids)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *jt = rjson_group(&g[i], pids);
		json_object_set_new(jt, "count", rjson_u64(g[i].st.count));
		json_object_set_new(jt, "sum_ns", rjson_u64(g[i].st.sum_ns));
		json_object_set_new(jt, "min_ns", rjson_u64(g[i].st.min_ns));
		json_object_set_new(jt, "max_ns", rjson_u64(g[i].st.max_ns));
		json_object_set_new(jt, "mean_ns",
				    rjson_u64(g[i].st.count ? g[i].st.sum_ns / g[i].st.count : 0));
		json_array_append_new(arr, jt);
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

/* The "parameters" object: each parameter's name and value text (owned
 * by the caller). */
static json_t *params_object(const report *rep)
{
	json_t *params = json_object();
	for (size_t i = 0; i < rep->n_params; i++)
		json_object_set_new(params, rep->param_names[i], rjson_text(rep->param_values[i]));
	return params;
}

/* The "target" object: pid, pids, binary and libuv_version (owned by the
 * caller). */
static json_t *target_object(const report *rep)
{
	json_t *t = json_object();
	json_object_set_new(t, "pid", json_integer(rep->pid));
	json_t *pids = json_array();
	report_pids ps = report_pids_of(rep);
	for (size_t i = 0; i < ps.n; i++)
		json_array_append_new(pids, json_integer(ps.v[i]));
	json_object_set_new(t, "pids", pids);
	rjson_put_bytes(t, "binary", rep->binary);
	if (rep->libuv_version)
		json_object_set_new(t, "libuv_version", rjson_text(rep->libuv_version));
	return t;
}

/* The window and the run's counts into ROOT: window_start (when dated),
 * duration_ns, cumulative, partial and its reason, lost_events,
 * attached_probes, expected_probes and percentile_method. */
static void put_window(json_t *root, const report *rep)
{
	if (rep->start_unix_ns) {
		char stamp[40];
		report_utc_stamp(stamp, sizeof stamp, rep->start_unix_ns, true);
		json_object_set_new(root, "window_start", json_string(stamp));
		json_object_set_new(root, "window_start_unix_ns", rjson_u64(rep->start_unix_ns));
	}
	json_object_set_new(root, "duration_ns", rjson_u64(rep->duration_ns));
	if (rep->cumulative)
		json_object_set_new(root, "cumulative", json_true());
	json_object_set_new(root, "partial", json_boolean(rep->partial));
	if (rep->partial)
		json_object_set_new(root, "partial_reason", rjson_text(rep->partial_reason));
	json_object_set_new(root, "lost_events", rjson_u64(rep->lost_events));
	json_object_set_new(root, "attached_probes", json_integer(rep->attached_probes));
	json_object_set_new(root, "expected_probes", json_integer(rep->expected_probes));
	json_object_set_new(root, "percentile_method", json_string(REPORT_PERCENTILE_METHOD));
}

/* One entry of "probes": what probe P of REP is and where, then what its
 * kind writes (json_fields).  Owned by the caller. */
static json_t *probe_object(const report_probe *p, const report *rep)
{
	json_t *jp = json_object();
	json_object_set_new(jp, "name", rjson_text(p->name));
	json_object_set_new(jp, "kind", json_string(kind_name(p->kind)));
	if (p->probe)
		json_object_set_new(jp, "probe", rjson_text(p->probe));
	rjson_put_bytes(jp, "function", p->function);
	rjson_put_bytes(jp, "object", p->object);
	if (p->debug_file)
		rjson_put_bytes(jp, "debug_file", p->debug_file);
	if (p->matched_symbols)
		json_object_set_new(jp, "matched_symbols",
				    json_integer((json_int_t)p->matched_symbols));
	json_object_set_new(jp, "unit", rjson_text(p->unit));
	json_object_set_new(jp, "attached", json_boolean(p->attached));
	if (!p->attached)
		json_object_set_new(jp, "reason", rjson_text(p->reason));
	if (p->derived)
		json_object_set_new(jp, "derived", rjson_text(p->derived));
	kind_ops_of(p->kind)->json_fields(jp, p, rep);
	return jp;
}

/* Writes ROOT (freed here) to OUT with FLAGS, then a newline, and flushes.
 * Returns 0, or -1 when writing failed. */
static int dump_root(FILE *out, json_t *root, size_t flags)
{
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

/* REP as one JSON object, with jansson's FLAGS (indented or compact). */
static int render_json_flags(FILE *out, const report *rep, size_t flags)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_integer(BPFSPEC_REPORT_SCHEMA));
	json_object_set_new(root, "bpfspec_version", json_string(BPFSPEC_VERSION));
	json_object_set_new(root, "spec", rjson_text(rep->spec_name));
	json_object_set_new(root, "spec_path", rjson_text(rep->spec_path));
	json_object_set_new(root, "parameters", params_object(rep));
	json_object_set_new(root, "timing", json_string(rep->entry_only ? "entry-only"
								       : "entry-return"));
	json_object_set_new(root, "target", target_object(rep));
	if (rep->bpftrace_version)
		json_object_set_new(root, "bpftrace_version", rjson_text(rep->bpftrace_version));
	put_window(root, rep);
	json_t *probes = json_array();
	for (size_t i = 0; i < rep->n_probes; i++)
		json_array_append_new(probes, probe_object(&rep->probes[i], rep));
	json_object_set_new(root, "probes", probes);
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->json)
			(*f)->json(root, rep);
	json_t *warnings = json_array();
	for (size_t i = 0; i < rep->n_warnings; i++)
		json_array_append_new(warnings, rjson_text(rep->warnings[i]));
	json_object_set_new(root, "warnings", warnings);
	return dump_root(out, root, flags);
}
