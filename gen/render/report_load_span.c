/* report_load_span — a span probe's fields of a JSON report back into
 * the model (report_load_internal.h; docs/report.md, "Span probes"). */
#include <stdlib.h>
#include <string.h>

#include "render/report_load_internal.h"

/* The stage names, NULL-terminated as report.h says. */
static int load_stages(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	char path[JPATH_LEN];
	json_t *arr = rl_get_arr(l, obj, base, "stages");
	if (!arr || rl_alloc_array(l, (void **)&p->stages, json_array_size(arr) + 1,
				   sizeof *p->stages) < 0)
		return -1;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		const json_t *s = json_array_get(arr, i);
		rl_path_idx(path, base, i);
		if (!json_is_string(s))
			return rl_fail(l, path, "a stage is a string, not %s", rl_type_name(s));
		if (!(p->stages[i] = strdup(json_string_value(s))))
			return rl_oom(l);
		p->n_stages = i + 1;
	}
	return 0;
}

/* Row OBJ (at BASE) into R. */
static int load_row(loader *l, const json_t *obj, const char *base, report_span_row *r)
{
	if (rl_get_str(l, obj, base, "stage", &r->stage, true, false) < 0 ||
	    rl_get_bytes(l, obj, base, "label", &r->label, true, false) < 0 ||
	    rl_get_bool(l, obj, base, "other", &r->other) < 0)
		return -1;
	return rl_load_stats(l, obj, base, &r->st, true);
}

/* The threads that ran the workers stage. */
static int load_workers(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	char path[JPATH_LEN], apath[JPATH_LEN];
	json_t *arr = rl_get_arr(l, obj, base, "workers");
	size_t n = arr ? json_array_size(arr) : 0;
	if (!arr || rl_alloc_array(l, (void **)&p->workers, n, sizeof *p->workers) < 0)
		return -1;
	rl_path_key(apath, base, "workers");
	for (size_t i = 0; i < n; i++) {
		json_t *e = rl_elem_obj(l, arr, apath, i, path);
		report_span_worker *wk = &p->workers[i];
		p->n_workers = i + 1;
		if (!e || rl_get_long(l, e, path, "tid", &wk->tid) < 0 ||
		    rl_get_bytes(l, e, path, "thread", &wk->thread, true, false) < 0 ||
		    rl_get_u64(l, e, path, "busy_ns", &wk->busy_ns) < 0)
			return -1;
	}
	return 0;
}

/* The pool's size and its source, both absent or null when unknown
 * (and in reports written before they were). */
static int load_pool(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	json_t *size = rl_get(l, obj, base, "pool_size", T_UINT, true, true);
	if (l->failed)
		return -1;
	if (size && !json_is_null(size))
		p->pool_size = (uint64_t)json_integer_value(size);
	return rl_get_str(l, obj, base, "pool_source", &p->pool_source, true, true);
}

int rl_load_spans(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	char path[JPATH_LEN], apath[JPATH_LEN];

	if (load_stages(l, obj, base, p) < 0 ||
	    rl_get_str(l, obj, base, "wait", &p->span_wait, true, false) < 0 ||
	    rl_get_str(l, obj, base, "workers_stage", &p->span_work, true, false) < 0 ||
	    load_workers(l, obj, base, p) < 0 || load_pool(l, obj, base, p) < 0 ||
	    rl_get_u64(l, obj, base, "open", &p->spans_open) < 0 ||
	    rl_get_u64(l, obj, base, "evicted", &p->spans_evicted) < 0)
		return -1;
	json_t *arr = rl_get_arr(l, obj, base, "rows");
	size_t n = arr ? json_array_size(arr) : 0;
	if (!arr || rl_alloc_array(l, (void **)&p->span_rows, n, sizeof *p->span_rows) < 0)
		return -1;
	rl_path_key(apath, base, "rows");
	for (size_t i = 0; i < n; i++) {
		json_t *e = rl_elem_obj(l, arr, apath, i, path);
		p->n_span_rows = i + 1;
		if (!e || load_row(l, e, path, &p->span_rows[i]) < 0)
			return -1;
	}
	return 0;
}
