/* utilization — busy vs idle per loop thread, as eventLoopUtilization:
 * the time each thread waits in epoll (spec_loop_waits) from the wait
 * syscalls' enter and exit tracepoints (templates/utilization.bt.in),
 * and the rest of the window.  Maps: wire.h's timed set keyed by tid,
 * plus @uin_NAME[tid], the start of a wait in progress, kept across
 * windows. */
#include "model/kind.h"

#include <stdlib.h>

#include "model/wire.h"
#include "program/generator_internal.h"
#include "render/render_internal.h"
#include "run/report_internal.h"
#include "serve/promstore_plan.h"
#include "spec/spec.h"
#include "spec/spec_internal.h"
#include "util/safe.h"

/* ---- gen ----------------------------------------------------------- */

/* Every window starts at its own time, which the busy/idle split of the
 * waits in progress is measured from.  @uout_NAME, read by the wait's
 * entry before its exit fills it, is typed first: bpftrace 0.17 and
 * 0.23 take the stall's arithmetic for mixed signs otherwise (tid 0's
 * entry is never a traced thread's). */
static void utilization_begin(gen_parts *pt, const resolved *r, size_t i)
{
	buf_printf(&pt->starts, "\t@ustart_%s = (int64)nsecs;\n", r->probes[i].sp->name);
	buf_printf(&pt->types, "\t@uout_%s[0] = (int64)0;\n", r->probes[i].sp->name);
}

static int utilization_emit(gen_parts *pt, const resolved *r, size_t i)
{
	const resolved_probe *rp = &r->probes[i];
	buf enter = BUF_INIT, exit_ = BUF_INIT;

	for (size_t k = 0; spec_loop_waits[k]; k++) {
		buf_printf(&enter, "%stracepoint:syscalls:sys_enter_%s", k ? ",\n" : "", spec_loop_waits[k]);
		buf_printf(&exit_, "%stracepoint:syscalls:sys_exit_%s", k ? ",\n" : "", spec_loop_waits[k]);
		pt->attach += 2;
	}
	pt->attach++;	/* sched_process_exit */
	char *e = buf_take(&enter), *x = buf_take(&exit_);
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "name", rp->sp->name);
	gen_vars_set(&v, "enter", e);
	gen_vars_set(&v, "exit", x);
	gen_vars_set(&v, "pid_filter", pt->pid_filter);
	gen_vars_set(&v, "pid_test", pt->pid_test);
	gen_vars_set(&v, "bucket", pt->bucket);
	gen_vars_set(&v, "delete", pt->delete_call);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "utilization.bt.in", &v);
	free(e);
	free(x);
	/* Waits in progress stay across windows: printed, never cleared by a
	 * flush; the window start moves with every flush. */
	static const char *const wait_ends[] = { "uout", NULL };
	gen_add_maps(pt, rp->sp->name, wire_of(PROBE_UTILIZATION)->cleared, NULL, wait_ends);
	for (const char *const *k = wire_of(PROBE_UTILIZATION)->kept; *k; k++)
		buf_printf(&pt->prints, "\tprint(@%s_%s);\n", *k, rp->sp->name);
	/* clear() runs later, in bpftrace's userspace, after the statements
	 * that follow it in the kernel: the window start is only ever
	 * overwritten, or a clear would undo the new value. */
	buf_printf(&pt->finals, "\tclear(@" WIRE_WAITING "_%s);\n", rp->sp->name);
	buf_printf(&pt->finals, "\tclear(@ustart_%s);\n", rp->sp->name);
	return rc;
}

static void utilization_describe(buf *b, const resolved_probe *rp)
{
	(void)rp;
	buf_puts(b, "utilization: time in ");
	for (size_t k = 0; spec_loop_waits[k]; k++)
		buf_printf(b, "%s%s", k ? ", " : "", spec_loop_waits[k]);
	buf_puts(b, " per thread");
}

/* ---- report -------------------------------------------------------- */

/* Whether E, an entry of @uin_NAME, is a thread's wait in progress (0:
 * the thread waits no more). */
static bool wait_in_progress(const bpfout_entry *e)
{
	return e->n_ikeys == 1 && e->type == BPFOUT_VALUE_INT && e->value != 0;
}

/* The waits of each thread in epoll, as a latency probe's calls, and the
 * window [begin, end) (bpftrace's clock) split into idle and busy time.
 * Threads waiting when the window began (the run's waiting_tids) or
 * when it ended (@uin_NAME[tid] = the wait's start) are counted even
 * when no wait ended inside it. */
static int utilization_fill(report_probe *p, const resolved_probe *rp, const bpfout_window *w,
			    const kind_fill_ctx *ctx)
{
	const char *name = rp->sp->name;
	const bpfout_map *in = report_window_map(w, WIRE_WAITING, name);
	uint64_t begin = ctx->begin_ns, end = ctx->end_ns, win = end > begin ? end - begin : 0;

	for (size_t i = 0; in && i < in->n_entries; i++)
		if (wait_in_progress(&in->entries[i]) &&
		    !report_find_thread(&p->groups, &p->n_groups, (long)in->entries[i].ikeys[0]))
			return -1;
	for (size_t i = 0; i < ctx->run->n_waiting; i++)
		if (!report_find_thread(&p->groups, &p->n_groups, ctx->run->waiting_tids[i]))
			return -1;
	if (report_fill_stalls(p, name, w) < 0 || report_fill_timed(p, name, w, ctx->pids) < 0)
		return -1;
	p->has_stalls = true;
	p->utilization = 0;
	for (size_t i = 0; i < p->n_groups; i++) {
		report_group *g = &p->groups[i];
		bool waiting = false;
		g->idle_ns = g->st.sum_ns;
		for (size_t k = 0; in && k < in->n_entries; k++) {
			const bpfout_entry *e = &in->entries[k];
			if (!wait_in_progress(e) || e->ikeys[0] != g->tid)
				continue;
			uint64_t from = (uint64_t)e->value > begin ? (uint64_t)e->value : begin;
			if (from < end)
				g->idle_ns += end - from;
			waiting = true;
		}
		/* Waiting when the window began and never woke: idle throughout. */
		if (!waiting && g->st.count == 0)
			g->idle_ns = win;
		if (g->idle_ns > win)
			g->idle_ns = win;
		g->busy_ns = win - g->idle_ns;
		g->utilization = win ? (double)g->busy_ns / (double)win : 0.0;
		if (g->utilization > p->utilization)
			p->utilization = g->utilization;
	}
	return 0;
}

/* ---- render -------------------------------------------------------- */

/* The stall histogram's name in -o prom and serve alike (bpfspec's own:
 * not what monitorEventLoopDelay measures, docs/serve-metrics.md). */
#define STALL_FAMILY "bpfspec_eventloop_stall_seconds"
#define STALL_HELP \
	"Stalls of the event loop thread: each the time from the end of one of its waits in " \
	"epoll to the start of the next (one turn of the loop, all its phases)."

static void utilization_text_row(FILE *out, const report_probe *p, const report *rep)
{
	(void)rep;
	char stall[32] = "";
	fprintf(out, "%10llu waits in epoll; busiest thread %.1f%% busy", (unsigned long long)p->st.count,
		100.0 * p->utilization);
	if (p->stalls.count) {
		text_fmt_auto(stall, sizeof stall, p->stalls.max_ns);
		fprintf(out, "; longest stall %s", stall);
	}
	fputs(" (below)\n", out);
}

/* The group of P with the highest utilization that stalled, or NULL. */
static const report_group *busiest_stalling(const report_probe *p)
{
	/* (stall counts are unknown, not 0, in a report written before) */
	const report_group *best = NULL;
	for (size_t g = 0; g < p->n_groups; g++)
		if (p->groups[g].stalls.count &&
		    (!best || p->groups[g].utilization > best->utilization))
			best = &p->groups[g];
	return best;
}

/* Each thread's stalls, then the busiest one's distribution. */
static void utilization_text_stalls(FILE *out, const report_probe *p, const report *rep)
{
	const report_group *busiest = busiest_stalling(p);
	if (!busiest)
		return;
	fputs("\nstalls (from a wait's end to the thread's next wait: a turn of its loop) per thread\n",
	      out);
	fprintf(out, "  %-8s %-*s %10s %11s %10s %10s %10s\n", "TID", TEXT_THREAD_COLS, "THREAD",
		"STALLS", "TOTAL", "P50~", "P99~", "MAX");
	for (size_t g = 0; g < p->n_groups; g++) {
		const report_group *gr = &p->groups[g];
		char sum[32], p50[32], p99[32], max[32];
		text_fmt_auto(sum, sizeof sum, gr->stalls.sum_ns);
		text_fmt_auto(p50, sizeof p50, gr->stalls.p50_ns);
		text_fmt_auto(p99, sizeof p99, gr->stalls.p99_ns);
		text_fmt_auto(max, sizeof max, gr->stalls.max_ns);
		fprintf(out, "  %-8ld ", gr->tid);
		text_thread_cell(out, gr, report_pids_of(rep));
		fprintf(out, " %10llu %11s %10s %10s %10s\n", (unsigned long long)gr->stalls.count, sum,
			p50, p99, max);
	}
	fprintf(out, "stalls of the busiest thread (tid %ld)\n", busiest->tid);
	text_histogram(out, &busiest->stalls);
}

/* Busy and idle time of each thread that waited in epoll, then the waits'
 * distribution, then the stalls. */
static void utilization_text_details(FILE *out, const report_probe *p, const report *rep)
{
	if (p->st.count == 0 && p->n_groups == 0)
		return;	/* nothing seen */
	text_section(out, p);
	fputs("busy vs idle (waiting in epoll) per thread, as eventLoopUtilization\n", out);
	fprintf(out, "  %-8s %-*s %8s %11s %11s %10s %10s %10s\n", "TID", TEXT_THREAD_COLS, "THREAD",
		"UTIL", "BUSY", "IDLE", "WAITS", "P50~", "MAX");
	for (size_t g = 0; g < p->n_groups; g++) {
		const report_group *gr = &p->groups[g];
		char busy[32], idle[32], p50[32], max[32];
		text_fmt_auto(busy, sizeof busy, gr->busy_ns);
		text_fmt_auto(idle, sizeof idle, gr->idle_ns);
		text_fmt_auto(p50, sizeof p50, gr->st.p50_ns);
		text_fmt_auto(max, sizeof max, gr->st.max_ns);
		fprintf(out, "  %-8ld ", gr->tid);
		text_thread_cell(out, gr, report_pids_of(rep));
		fprintf(out, " %7.1f%% %11s %11s %10llu %10s %10s\n", 100.0 * gr->utilization, busy,
			idle, (unsigned long long)gr->st.count, p50, max);
	}
	if (p->st.count)
		text_histogram(out, &p->st);
	utilization_text_stalls(out, p, rep);
}

/* ST as an object of its own: the statistics fields of a latency probe. */
static json_t *stats_object(const report_stats *st)
{
	json_t *o = json_object();
	rjson_put_stats(o, st);
	return o;
}

static void utilization_json(json_t *jp, const report_probe *p, const report *rep)
{
	json_t *groups = json_array();
	rjson_put_stats(jp, &p->st);
	json_object_set_new(jp, "utilization", json_real(p->utilization));
	if (p->has_stalls)
		json_object_set_new(jp, "stalls", stats_object(&p->stalls));
	for (size_t g = 0; g < p->n_groups; g++) {
		const report_group *gr = &p->groups[g];
		json_t *jg = rjson_group(gr, report_pids_of(rep));
		rjson_put_stats(jg, &gr->st);
		json_object_set_new(jg, "idle_ns", rjson_u64(gr->idle_ns));
		json_object_set_new(jg, "busy_ns", rjson_u64(gr->busy_ns));
		json_object_set_new(jg, "utilization", json_real(gr->utilization));
		if (p->has_stalls)
			json_object_set_new(jg, "stalls", stats_object(&gr->stalls));
		json_array_append_new(groups, jg);
	}
	json_object_set_new(jp, "groups", groups);
}

static void utilization_prom(FILE *out, const report *rep)
{
	const report_probe *p;
	prom_family util = { "bpfspec_thread_utilization_ratio", "gauge",
			     "Share of the window the thread was busy (not waiting in epoll), 0 to 1.",
			     false };
	prom_family idle = { "bpfspec_thread_idle_seconds", "gauge",
			     "Time the thread waited in epoll in the window.", false };

	prom_family stalls = { STALL_FAMILY, "histogram", STALL_HELP, false };

	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; (p = prom_next(rep, PROBE_UTILIZATION, &i));) {
			for (size_t g = 0; g < p->n_groups; g++) {
				const report_group *gr = &p->groups[g];
				char tid[24], v[32];
				promtext_label ls[5];
				prom_thread_labels(ls, tid, rep, p, gr);
				if (pass == 2) {
					if (p->has_stalls)
						prom_histogram(out, &stalls, ls, 5, &gr->stalls);
					continue;
				}
				if (pass == 0)
					snprintf(v, sizeof v, "%.6f", gr->utilization);
				else
					promtext_seconds(v, sizeof v, gr->idle_ns);
				prom_sample(out, pass == 0 ? &util : &idle, "", ls, 5, v);
			}
		}
}

/* ---- spec ---- */

static const spec_kind_rules utilization_spec_rules = {
	.kind = PROBE_UTILIZATION,
	.needs = { .loop_waits = true },
	.keys = KEYS_EVERY | KEY(P_UNIT),
	.purpose = "splits each loop thread's time into busy and idle (waiting in epoll)",
	.offer = "'kind: utilization' (busy and idle time of the loop threads)",
};

static const char *const utilization_cleared[] = { WIRE_BUCKETS,	   WIRE_SUM,
						    WIRE_MIN,	   WIRE_MAX,
						    WIRE_STALL_BUCKETS, WIRE_STALL_SUM,
						    WIRE_STALL_MIN, WIRE_STALL_MAX,
						    NULL };
static const char *const utilization_kept[] = { WIRE_WAITING, NULL };
/* ---- serve --------------------------------------------------------- */

static const ps_family_def loop_time_family = {
	"nodejs_eventloop_time_seconds_total",
	"Time the event loop thread was active (outside epoll waits) or idle (waiting in epoll).",
	PS_COUNTER, true
};
/* OpenTelemetry's nodejs.eventloop.utilization (a gauge of unit 1), under
 * the name its Prometheus translation gives it. */
static const ps_family_def loop_utilization_family = {
	"nodejs_eventloop_utilization_ratio",
	"Share of the last interval the event loop threads of the role were active (not waiting "
	"in epoll), 0 to 1.", PS_GAUGE, false
};
static const ps_family_def loop_stall_family = { STALL_FAMILY, STALL_HELP, PS_HISTOGRAM, false };
static const ps_family_def *const utilization_families[] = { &loop_time_family,
							     &loop_utilization_family,
							     &loop_stall_family, NULL };

static int utilization_serve_group(ps_add *a, const report_probe *p, const report_group *g,
				   const char *labels)
{
	if (ps_plan(a, &loop_time_family, labels, "nodejs_eventloop_state", "active", NULL, NULL,
		    g->busy_ns, NULL) < 0)
		return -1;
	if (ps_plan(a, &loop_time_family, labels, "nodejs_eventloop_state", "idle", NULL, NULL,
		    g->idle_ns, NULL) < 0)
		return -1;
	if (ps_plan_ratio(a, &loop_utilization_family, labels, NULL, NULL, g->busy_ns,
			  g->busy_ns + g->idle_ns) < 0)
		return -1;
	if (!p->has_stalls)
		return 0;
	return ps_plan(a, &loop_stall_family, labels, NULL, NULL, NULL, NULL, 0, &g->stalls);
}

static int utilization_serve(ps_add *a, const report_probe *p)
{
	return ps_plan_groups(a, p, utilization_serve_group);
}

static const wire_kind utilization_wire = { .cleared = utilization_cleared,
					    .kept = utilization_kept };

const kind_ops kind_utilization_ops = {
	.kind = PROBE_UTILIZATION,
	.shape = { .durations = true, .busy = true, .article = "a", .counts = "waits" },
	.wire = &utilization_wire,
	.spec = &utilization_spec_rules,
	.begin = utilization_begin,
	.emit = utilization_emit,
	.describe = utilization_describe,
	.fill = utilization_fill,
	.text_row = utilization_text_row,
	.text_details = utilization_text_details,
	.json_fields = utilization_json,
	.prom = utilization_prom,
	.prom_thread_totals = false,
	.serve = utilization_serve,
	.serve_families = utilization_families,
};
