/* count — hits of one probe point (templates/count.bt.in): @c_NAME[key]
 * counts them, keyed by tid (per_thread) or 0.  Interval points tick on
 * one CPU whatever runs there: they are counted in all, with no pid
 * filter. */
#include "model/kind.h"

#include <stdlib.h>

#include "model/wire.h"
#include "program/generator_internal.h"
#include "render/render_internal.h"
#include "run/report_internal.h"
#include "serve/promstore_plan.h"
#include "spec/spec_internal.h"
#include "util/safe.h"

static int count_emit(gen_parts *pt, const resolved *r, size_t i)
{
	const resolved_probe *rp = &r->probes[i];
	const spec_probe *sp = rp->sp;
	buf at = BUF_INIT, what = BUF_INIT;
	bool interval = sp->point == POINT_INTERVAL;
	unsigned n = gen_point_attach(rp, &at);

	if (n == 0) {
		buf_free(&at);
		return -1;
	}
	gen_put_comment(&what, sp->probe);
	char *a = buf_take(&at), *w = buf_take(&what);
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "name", sp->name);
	gen_vars_set(&v, "what", w);
	gen_vars_set(&v, "attach", a);
	gen_vars_set(&v, "filter", interval ? "" : pt->pid_filter);
	gen_vars_set(&v, "key", sp->per_thread && !interval ? "tid" : "0");
	gen_vars_set(&v, "wstart", gen_window_start_read(sp->point));
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "count.bt.in", &v);
	free(a);
	free(w);
	pt->attach += n;
	gen_add_maps(pt, sp->name, wire_of(PROBE_COUNT)->cleared, NULL, NULL);
	return rc;
}

static void count_describe(buf *b, const resolved_probe *rp)
{
	buf_puts(b, "count of ");
	gen_put_comment(b, rp->sp->probe);
	if (rp->object)
		gen_put_where(b, rp);
}

/* Groups carry only a count. */
static int count_fill(report_probe *p, const resolved_probe *rp, const bpfout_window *w,
		      const kind_fill_ctx *ctx)
{
	const bpfout_map *m = report_window_map(w, WIRE_HITS, rp->sp->name);

	for (size_t i = 0; m && i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		if (e->n_ikeys != 1 || e->type != BPFOUT_VALUE_INT || e->value < 0)
			continue;
		report_group *g = report_find_thread(&p->groups, &p->n_groups, (long)e->ikeys[0]);
		if (!g)
			return -1;
		g->st.count += (uint64_t)e->value;
		p->st.count += (uint64_t)e->value;
	}
	for (size_t i = 0; i < p->n_groups; i++) {
		report_group *g = &p->groups[i];
		g->st.min_ns = 0;
		g->thread = report_thread_name(ctx->pids, g->tid);
	}
	report_sort_groups(p->groups, p->n_groups, ctx->pids);
	return 0;
}

static void count_text_row(FILE *out, const report_probe *p, const report *rep)
{
	(void)rep;
	fprintf(out, "%10llu hits of ", (unsigned long long)p->st.count);
	safe_fputs(p->probe, out);
	fputc('\n', out);
}

/* Hits per thread, when there are several threads. */
static void count_text_details(FILE *out, const report_probe *p, const report *rep)
{
	if (p->n_groups < 2)
		return;
	text_section(out, p);
	fputs("hits of ", out);
	safe_fputs(p->probe, out);
	fprintf(out, " per thread\n  %-8s %-*s %10s\n", "TID", TEXT_THREAD_COLS, "THREAD", "COUNT");
	for (size_t g = 0; g < p->n_groups; g++) {
		const report_group *gr = &p->groups[g];
		fprintf(out, "  %-8ld ", gr->tid);
		text_thread_cell(out, gr, report_pids_of(rep));
		fprintf(out, " %10llu\n", (unsigned long long)gr->st.count);
	}
}

static void count_json(json_t *jp, const report_probe *p, const report *rep)
{
	json_t *groups = json_array();
	json_object_set_new(jp, "count", rjson_u64(p->st.count));
	for (size_t g = 0; g < p->n_groups; g++) {
		json_t *jg = rjson_group(&p->groups[g], report_pids_of(rep));
		json_object_set_new(jg, "count", rjson_u64(p->groups[g].st.count));
		json_array_append_new(groups, jg);
	}
	json_object_set_new(jp, "groups", groups);
}

static void count_prom(FILE *out, const report *rep)
{
	const report_probe *p;
	prom_family hits = { "bpfspec_probe_hits", "gauge",
			     "Hits of a count probe's probe point in the window, all threads together.",
			     false };
	prom_family thread_hits = { "bpfspec_thread_probe_hits", "gauge",
				    "Hits of a count probe's probe point by the thread in the window.",
				    false };
	char v[32];

	for (size_t i = 0; (p = prom_next(rep, PROBE_COUNT, &i));) {
		promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name } };
		promtext_u64(v, sizeof v, p->st.count);
		prom_sample(out, &hits, "", ls, 2, v);
	}
	for (size_t i = 0; (p = prom_next(rep, PROBE_COUNT, &i));) {
		for (size_t g = 0; g < p->n_groups; g++) {
			const report_group *gr = &p->groups[g];
			char tid[24];
			promtext_label ls[5];
			if (gr->tid == 0)	/* the probe is not per thread */
				continue;
			prom_thread_labels(ls, tid, rep, p, gr);
			promtext_u64(v, sizeof v, gr->st.count);
			prom_sample(out, &thread_hits, "", ls, 5, v);
		}
	}
}

/* ---- spec ---- */

static const char *const count_instead[N_PROBE] = {
	[P_FUNCTION] = "a count probe names its function in 'probe', as in "
		       "'probe: \"uprobe:main:FUNCTION\"'",
	[P_SYSCALLS] = "a count probe names a syscall in 'probe', as in "
		       "'probe: \"tracepoint:syscalls:sys_enter_openat\"'",
};

static const spec_kind_rules count_spec_rules = {
	.kind = PROBE_COUNT,
	.keys = KEYS_EVERY | KEY(P_PROBE) | KEY(P_PER_THREAD),
	.purpose = "counts the hits of its 'probe'",
	.offer = "'kind: count' (hits of a probe point)",
	.instead = count_instead,
	.required = P_PROBE,
	.required_hint = "add the probe point to count, e.g. "
			 "'probe: \"tracepoint:sched:sched_switch\"'; " POINT_FORMS,
};

static const char *const count_maps[] = { WIRE_HITS, NULL };
/* ---- serve --------------------------------------------------------- */

static const ps_family_def hits_family = {
	"bpfspec_probe_hits_total", "Hits of a count probe's probe point.", PS_COUNTER, false
};
static const ps_family_def *const count_families[] = { &hits_family, NULL };

static int count_serve_group(ps_add *a, const report_probe *p, const report_group *g,
			     const char *labels)
{
	(void)p;
	return ps_plan(a, &hits_family, labels, NULL, NULL, NULL, NULL, g->st.count, NULL);
}

static int count_serve(ps_add *a, const report_probe *p)
{
	return ps_plan_groups(a, p, count_serve_group);
}

static const wire_kind count_wire = { .cleared = count_maps, .kept = wire_no_maps };

const kind_ops kind_count_ops = {
	.kind = PROBE_COUNT,
	.shape = { .article = "a", .counts = "hits" },
	.wire = &count_wire,
	.spec = &count_spec_rules,
	.emit = count_emit,
	.describe = count_describe,
	.fill = count_fill,
	.text_row = count_text_row,
	.text_details = count_text_details,
	.json_fields = count_json,
	.prom = count_prom,
	.prom_thread_totals = false,
	.serve = count_serve,
	.serve_families = count_families,
};
