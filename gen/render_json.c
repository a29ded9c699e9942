/* render_json — the versioned JSON report (see render.h). */
#include "render.h"

#include <jansson.h>

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

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

int render_json(FILE *out, const report *rep)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_integer(BPFSPEC_REPORT_SCHEMA));
	json_object_set_new(root, "bpfspec_version", json_string(BPFSPEC_VERSION));
	json_object_set_new(root, "spec", jstr(rep->spec_name));
	json_object_set_new(root, "spec_path", jstr(rep->spec_path));
	json_t *t = json_object();
	json_object_set_new(t, "pid", json_integer(rep->pid));
	json_object_set_new(t, "binary", jstr(rep->binary));
	json_object_set_new(root, "target", t);
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
		json_object_set_new(jp, "name", json_string(p->name));
		json_object_set_new(jp, "kind", json_string(p->kind));
		json_object_set_new(jp, "function", jstr(p->function));
		json_object_set_new(jp, "object", jstr(p->object));
		json_object_set_new(jp, "unit", json_string(p->unit));
		json_object_set_new(jp, "attached", json_boolean(p->attached));
		if (!p->attached)
			json_object_set_new(jp, "reason", jstr(p->reason));
		put_stats(jp, &p->st);
		json_t *groups = json_array();
		for (size_t g = 0; g < p->n_groups; g++) {
			json_t *jg = json_object();
			json_object_set_new(jg, "tid", json_integer(p->groups[g].tid));
			json_object_set_new(jg, "thread", jstr(p->groups[g].thread));
			json_object_set_new(jg, "main_thread",
					    json_boolean(rep->pid > 0 && p->groups[g].tid == rep->pid));
			put_stats(jg, &p->groups[g].st);
			json_array_append_new(groups, jg);
		}
		json_object_set_new(jp, "groups", groups);
		json_array_append_new(probes, jp);
	}
	json_object_set_new(root, "probes", probes);
	json_t *warnings = json_array();
	for (size_t i = 0; i < rep->n_warnings; i++)
		json_array_append_new(warnings, json_string(rep->warnings[i]));
	json_object_set_new(root, "warnings", warnings);

	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	/* A full disk shows only when the buffer is written out. */
	if (fflush(out) == EOF || ferror(out))
		rc = -1;
	return rc == 0 ? 0 : -1;
}
