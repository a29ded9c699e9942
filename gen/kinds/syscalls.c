/* syscalls — latency of a set of syscalls (or every one) with their
 * errors, from raw_syscalls enter and exit (templates/syscalls.bt.in).
 * Maps: wire.h's syscalls set; histograms per syscall only, totals per
 * thread and syscall, so the maps stay small whatever the threads. */
#include "model/kind.h"

#include <stdlib.h>
#include <string.h>

#include "model/wire.h"
#include "program/generator_internal.h"
#include "render/render_internal.h"
#include "run/report_internal.h"
#include "serve/promstore_plan.h"
#include "spec/spec_internal.h"
#include "util/safe.h"
#include "util/systab.h"

/* ---- gen ----------------------------------------------------------- */

static int syscalls_emit(gen_parts *pt, const resolved *r, size_t i)
{
	static const char *const in_flight[] = { "start", NULL };
	const resolved_probe *rp = &r->probes[i];
	buf pred = BUF_INIT, exit_test = BUF_INIT, what = BUF_INIT;

	gen_syscall_filter(pt, rp->sp, &pred, &exit_test, &what);
	char *p = buf_take(&pred), *x = buf_take(&exit_test), *w = buf_take(&what);
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "name", rp->sp->name);
	gen_vars_set(&v, "what", w);
	gen_vars_set(&v, "enter_pred", p);
	gen_vars_set(&v, "pid_test", pt->pid_test);
	gen_vars_set(&v, "exit_test", x);
	gen_vars_set(&v, "key", rp->sp->per_thread ? "tid" : "0");
	gen_vars_set(&v, "bucket", pt->bucket);
	gen_vars_set(&v, "delete", pt->delete_call);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "syscalls.bt.in", &v);
	free(p);
	free(x);
	free(w);
	pt->attach += 2;
	gen_add_maps(pt, rp->sp->name, wire_of(PROBE_SYSCALLS)->cleared, NULL, in_flight);
	return rc;
}

static void syscalls_describe(buf *b, const resolved_probe *rp)
{
	buf_puts(b, "syscalls of ");
	gen_put_syscalls(b, rp->sp);
}

/* ---- report -------------------------------------------------------- */

static report_syscall *find_syscall(report_probe *p, long nr)
{
	for (size_t i = 0; i < p->n_syscalls; i++)
		if (p->syscalls[i].nr == nr)
			return &p->syscalls[i];
	report_syscall *ns = realloc(p->syscalls, (p->n_syscalls + 1) * sizeof *ns);
	if (!ns)
		return NULL;
	p->syscalls = ns;
	report_syscall *sc = &ns[p->n_syscalls];
	memset(sc, 0, sizeof *sc);
	sc->nr = nr;
	sc->st.min_ns = UINT64_MAX;
	if (!(sc->name = report_exit_syscall_name(nr)))
		return NULL;
	p->n_syscalls++;
	return sc;
}

/* The stats of probe CTX's syscall number KEY. */
static report_stats *syscall_stats(void *ctx, long key)
{
	report_syscall *sc = find_syscall(ctx, key);
	return sc ? &sc->st : NULL;
}

/* Most frequent first. */
static int errno_order(const void *a, const void *b)
{
	const report_errno *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->number > y->number) - (x->number < y->number);
}

/* Slowest total first. */
static int syscall_order(const void *a, const void *b)
{
	const report_syscall *x = a, *y = b;
	if (x->st.sum_ns != y->st.sum_ns)
		return x->st.sum_ns > y->st.sum_ns ? -1 : 1;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

/* Adds V (kind K: 0 count, 1 sum, 2 min, 3 max) to stats ST. */
static void stats_merge(report_stats *st, int k, uint64_t v)
{
	switch (k) {
	case 0: st->count += v; break;
	case 1: st->sum_ns += v; break;
	case 2: if (v < st->min_ns) st->min_ns = v; break;
	default: if (v > st->max_ns) st->max_ns = v; break;
	}
}

/* @err_NAME[nr, errno] into each syscall's errors. */
static int fill_errors(report_probe *p, const bpfout_map *m)
{
	for (size_t i = 0; m && i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		if (e->n_ikeys != 2 || e->type != BPFOUT_VALUE_INT || e->value <= 0)
			continue;
		report_syscall *sc = find_syscall(p, (long)e->ikeys[0]);
		if (!sc)
			return -1;
		report_errno *ne = realloc(sc->errors, (sc->n_errors + 1) * sizeof *ne);
		if (!ne)
			return -1;
		sc->errors = ne;
		report_errno *er = &ne[sc->n_errors];
		er->number = (long)e->ikeys[1];
		er->count = (uint64_t)e->value;
		const char *en = systab_errno_name(er->number);
		er->name = en ? strdup(en) : NULL;
		if (!er->name && asprintf(&er->name, "E%ld", er->number) < 0)
			er->name = NULL;
		if (!er->name)
			return -1;
		sc->n_errors++;
		sc->error_count += er->count;
	}
	return 0;
}

/* Adds map M's values per thread and syscall to P's syscalls, threads
 * and totals, merged as stats_merge's KIND: 1 for the stats map (its
 * entries' count, and their total as the sum), 2 for min, 3 for max.
 * Returns 0, or -1 when out of memory. */
static int fill_totals(report_probe *p, const bpfout_map *m, int kind)
{
	bool stats = kind == 1;
	for (size_t i = 0; m && i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		int64_t v = stats ? e->stats_total : e->value;
		if (e->n_ikeys != 2 || e->type != (stats ? BPFOUT_VALUE_STATS : BPFOUT_VALUE_INT) ||
		    v < 0)
			continue;
		long tid = (long)e->ikeys[0];
		report_syscall *sc = find_syscall(p, (long)e->ikeys[1]);
		report_group *th = sc ? report_find_thread(&sc->threads, &sc->n_threads, tid) : NULL;
		report_group *g = report_find_thread(&p->groups, &p->n_groups, tid);
		if (!th || !g)
			return -1;
		if (stats) {	/* a syscall's calls come from its histogram */
			th->st.count = e->stats_count;
			stats_merge(&g->st, 0, e->stats_count);
		}
		stats_merge(&th->st, kind, (uint64_t)v);
		stats_merge(&g->st, kind, (uint64_t)v);
		stats_merge(&sc->st, kind, (uint64_t)v);
		stats_merge(&p->st, kind, (uint64_t)v);
	}
	return 0;
}

/* Histograms per syscall (@b_NAME[nr, bucket]); calls and sum per thread
 * and syscall in one stats() map (@st_NAME[key, nr]), min and max the
 * same (@min_, @max_), summed per syscall, per thread and for the probe;
 * errors per syscall. */
static int syscalls_fill(report_probe *p, const resolved_probe *rp, const bpfout_window *w,
			 const kind_fill_ctx *ctx)
{
	const char *name = rp->sp->name;
	report_pids pids = ctx->pids;

	p->st.min_ns = UINT64_MAX;
	if (report_add_histogram(report_window_map(w, WIRE_BUCKETS, name), &p->st, syscall_stats,
				 p) < 0)
		return -1;
	if (fill_totals(p, report_window_map(w, WIRE_STATS, name), 1) < 0 ||
	    fill_totals(p, report_window_map(w, WIRE_MIN, name), 2) < 0 ||
	    fill_totals(p, report_window_map(w, WIRE_MAX, name), 3) < 0)
		return -1;
	if (fill_errors(p, report_window_map(w, WIRE_ERRORS, name)) < 0)
		return -1;
	for (size_t i = 0; i < p->n_syscalls; i++) {
		report_syscall *sc = &p->syscalls[i];
		if (sc->st.min_ns == UINT64_MAX)
			sc->st.min_ns = 0;
		report_finish_stats(&sc->st);
		for (size_t t = 0; t < sc->n_threads; t++) {
			report_group *th = &sc->threads[t];
			if (th->st.min_ns == UINT64_MAX)
				th->st.min_ns = 0;
			th->thread = report_thread_name(pids, th->tid);
		}
		report_sort_groups(sc->threads, sc->n_threads, pids);
		if (sc->n_errors > 1)
			qsort(sc->errors, sc->n_errors, sizeof *sc->errors, errno_order);
	}
	for (size_t i = 0; i < p->n_groups; i++) {
		report_group *g = &p->groups[i];
		if (g->st.min_ns == UINT64_MAX)
			g->st.min_ns = 0;
		g->thread = report_thread_name(pids, g->tid);
	}
	if (p->st.min_ns == UINT64_MAX)
		p->st.min_ns = 0;
	uint64_t sum = p->st.sum_ns;
	report_finish_stats(&p->st);	/* count from buckets */
	p->st.sum_ns = sum;
	report_sort_groups(p->groups, p->n_groups, pids);
	if (p->n_syscalls > 1)
		qsort(p->syscalls, p->n_syscalls, sizeof *p->syscalls, syscall_order);
	return 0;
}

/* ---- render -------------------------------------------------------- */

static void syscalls_text_row(FILE *out, const report_probe *p, const report *rep)
{
	text_stats_row(out, &p->st, p, rep->duration_ns);
}

/* One row per syscall, slowest total first, its four commonest errors. */
static void syscall_row(FILE *out, const report_probe *p, const report_syscall *sc)
{
	char total[32], mean[32], p50[32], p99[32], max[32];
	text_fmt_dur(total, sizeof total, sc->st.sum_ns, p->unit_ns, p->unit);
	text_fmt_dur(mean, sizeof mean, sc->st.count ? sc->st.sum_ns / sc->st.count : 0,
		     p->unit_ns, p->unit);
	text_fmt_dur(p50, sizeof p50, sc->st.p50_ns, p->unit_ns, p->unit);
	text_fmt_dur(p99, sizeof p99, sc->st.p99_ns, p->unit_ns, p->unit);
	text_fmt_dur(max, sizeof max, sc->st.max_ns, p->unit_ns, p->unit);
	fputs("  ", out);
	safe_fputs(sc->name, out);
	fprintf(out, "%*s", text_pad_to(18, sc->name), "");
	fprintf(out, " %10llu %11s %10s %10s %10s %10s ", (unsigned long long)sc->st.count,
		total, mean, p50, p99, max);
	for (size_t e = 0; e < sc->n_errors && e < 4; e++) {
		fputc(' ', out);
		safe_fputs(sc->errors[e].name, out);
		fprintf(out, " %llu", (unsigned long long)sc->errors[e].count);
	}
	if (sc->n_errors > 4)
		fprintf(out, " ...");
	fputc('\n', out);
}

static void syscalls_text_details(FILE *out, const report_probe *p, const report *rep)
{
	if (p->st.count == 0 && p->n_groups == 0)
		return;	/* nothing seen */
	text_section(out, p);
	fputs("syscalls, slowest total first\n", out);
	fprintf(out, "  %-18s %10s %11s %10s %10s %10s %10s  %s\n", "SYSCALL", "COUNT", "TOTAL",
		"MEAN", "P50~", "P99~", "MAX", "ERRORS");
	for (size_t i = 0; i < p->n_syscalls; i++)
		syscall_row(out, p, &p->syscalls[i]);
	if (p->n_groups < 2)
		return;
	fprintf(out, "\n  %-8s %-*s %10s %11s %10s\n", "TID", TEXT_THREAD_COLS, "THREAD", "COUNT",
		"TOTAL", "MAX");
	for (size_t g = 0; g < p->n_groups; g++) {
		const report_group *gr = &p->groups[g];
		char total[32], max[32];
		text_fmt_dur(total, sizeof total, gr->st.sum_ns, p->unit_ns, p->unit);
		text_fmt_dur(max, sizeof max, gr->st.max_ns, p->unit_ns, p->unit);
		fprintf(out, "  %-8ld ", gr->tid);
		text_thread_cell(out, gr, report_pids_of(rep));
		fprintf(out, " %10llu %11s %10s\n", (unsigned long long)gr->st.count, total, max);
	}
}

/* No per-thread histograms for syscalls: thread totals only. */
static void syscalls_json(json_t *jp, const report_probe *p, const report *rep)
{
	json_t *arr = json_array();
	rjson_put_stats(jp, &p->st);
	json_object_set_new(jp, "groups",
			    rjson_thread_totals(p->groups, p->n_groups, report_pids_of(rep)));
	for (size_t i = 0; i < p->n_syscalls; i++) {
		const report_syscall *sc = &p->syscalls[i];
		json_t *js = json_object();
		json_object_set_new(js, "syscall", rjson_text(sc->name));
		json_object_set_new(js, "nr", json_integer(sc->nr));
		rjson_put_stats(js, &sc->st);
		json_object_set_new(js, "error_count", rjson_u64(sc->error_count));
		json_t *errs = json_object();
		for (size_t e = 0; e < sc->n_errors; e++)
			json_object_set_new(errs, sc->errors[e].name, rjson_u64(sc->errors[e].count));
		json_object_set_new(js, "errors", errs);
		json_object_set_new(js, "threads",
				    rjson_thread_totals(sc->threads, sc->n_threads, report_pids_of(rep)));
		json_array_append_new(arr, js);
	}
	json_object_set_new(jp, "syscalls", arr);
}

static void syscalls_prom(FILE *out, const report *rep)
{
	const report_probe *p;
	prom_family latency = { "bpfspec_syscall_latency_seconds", "histogram",
				"Latency of the syscall in the window, all threads together.", false };
	prom_family errors = { "bpfspec_syscall_errors", "gauge",
			       "Calls of the syscall that failed with this errno in the window.", false };
	char v[32];

	for (size_t i = 0; (p = prom_next(rep, PROBE_SYSCALLS, &i));) {
		for (size_t s = 0; s < p->n_syscalls; s++) {
			promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name },
						{ "syscall", p->syscalls[s].name } };
			prom_histogram(out, &latency, ls, 3, &p->syscalls[s].st);
		}
	}
	for (size_t i = 0; (p = prom_next(rep, PROBE_SYSCALLS, &i));) {
		for (size_t s = 0; s < p->n_syscalls; s++)
			for (size_t e = 0; e < p->syscalls[s].n_errors; e++) {
				const report_errno *er = &p->syscalls[s].errors[e];
				promtext_label ls[] = { { "spec", rep->spec_name },
							{ "probe", p->name },
							{ "syscall", p->syscalls[s].name },
							{ "errno", er->name } };
				promtext_u64(v, sizeof v, er->count);
				prom_sample(out, &errors, "", ls, 4, v);
			}
	}
}

/* ---- spec ---- */

static const spec_kind_rules syscalls_spec_rules = {
	.kind = PROBE_SYSCALLS,
	.needs = { .syscall_tracepoints = true },
	.keys = KEYS_EVERY | KEY(P_SYSCALLS) | KEY(P_UNIT) | KEY(P_PER_THREAD),
	.purpose = "measures the syscalls in its 'syscalls' list",
	.offer = "'kind: syscalls' (latency and errors per syscall)",
	.all_syscalls = true,
	.max_syscalls = SPEC_MAX_SYSCALLS,
	.syscalls_verb = "measure",
	.syscalls_example = "syscalls: [openat, read]",
	.required = P_SYSCALLS,
	.required_hint = "add the syscalls to measure, e.g. 'syscalls: [openat, read]', or "
			 "'syscalls: all'",
};

static const char *const syscalls_maps[] = { WIRE_BUCKETS, WIRE_STATS, WIRE_MIN, WIRE_MAX,
					     WIRE_ERRORS, NULL };
/* ---- serve --------------------------------------------------------- */

static const ps_family_def syscall_latency_family = {
	"bpfspec_syscall_latency_seconds",
	"Duration of the calls of the syscall, all threads of the target together.", PS_HISTOGRAM,
	true
};
static const ps_family_def syscall_errors_family = {
	"bpfspec_syscall_errors_total", "Calls of the syscall that failed with this errno.",
	PS_COUNTER, false
};
static const ps_family_def syscall_seconds_family = {
	"bpfspec_syscall_seconds_total", "Time the threads of this role spent in the syscall.",
	PS_COUNTER, true
};
static const ps_family_def syscall_calls_family = {
	"bpfspec_syscall_calls_total", "Calls of the syscall the threads of this role completed.",
	PS_COUNTER, false
};
static const ps_family_def *const syscalls_families[] = {
	&syscall_latency_family, &syscall_errors_family, &syscall_seconds_family,
	&syscall_calls_family, NULL
};

/* Syscall SC's time and calls per thread (per role, once labelled). */
static int syscalls_serve_threads(ps_add *a, const report_syscall *sc)
{
	for (size_t t = 0; t < sc->n_threads; t++) {
		const report_group *th = &sc->threads[t];
		const char *labels;
		if (ps_plan_thread_labels(a, th->tid, th->thread, &labels) < 0)
			return -1;
		if (labels && (ps_plan(a, &syscall_seconds_family, labels, "syscall", sc->name, NULL,
				       NULL, th->st.sum_ns, NULL) < 0 ||
			       ps_plan(a, &syscall_calls_family, labels, "syscall", sc->name, NULL,
				       NULL, th->st.count, NULL) < 0))
			return -1;
	}
	return 0;
}

/* Histograms and errors for the target as a whole, calls and time per
 * role. */
static int syscalls_serve(ps_add *a, const report_probe *p)
{
	const char *whole;
	if (ps_plan_thread_labels(a, 0, NULL, &whole) < 0)
		return -1;
	for (size_t i = 0; i < p->n_syscalls; i++) {
		const report_syscall *sc = &p->syscalls[i];
		if (whole && ps_plan(a, &syscall_latency_family, whole, "syscall", sc->name, NULL,
				     NULL, 0, &sc->st) < 0)
			return -1;
		for (size_t e = 0; whole && e < sc->n_errors; e++)
			if (ps_plan(a, &syscall_errors_family, whole, "syscall", sc->name, "errno",
				    sc->errors[e].name, sc->errors[e].count, NULL) < 0)
				return -1;
		if (syscalls_serve_threads(a, sc) < 0)
			return -1;
	}
	return 0;
}

static const wire_kind syscalls_wire = { .cleared = syscalls_maps, .kept = wire_no_maps };

const kind_ops kind_syscalls_ops = {
	.kind = PROBE_SYSCALLS,
	.shape = { .durations = true, .per_syscall = true, .article = "a", .counts = "calls" },
	.wire = &syscalls_wire,
	.spec = &syscalls_spec_rules,
	.emit = syscalls_emit,
	.describe = syscalls_describe,
	.fill = syscalls_fill,
	.text_row = syscalls_text_row,
	.text_details = syscalls_text_details,
	.json_fields = syscalls_json,
	.prom = syscalls_prom,
	.prom_thread_totals = true,
	.serve = syscalls_serve,
	.serve_families = syscalls_families,
};
