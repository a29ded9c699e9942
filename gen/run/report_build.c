/* report_build — see report_build.h. */
#include "run/report_build.h"
#include "run/report_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "model/feature.h"
#include "model/kind.h"
#include "model/wire.h"
#include "target/target.h"
#include "util/buf.h"
#include "util/hist.h"
#include "util/systab.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

const bpfout_map *report_window_map(const bpfout_window *w, const char *prefix, const char *name)
{
	char mapname[96];
	if (!w)
		return NULL;
	snprintf(mapname, sizeof mapname, "@%s_%s", prefix, name);
	return bpfout_window_map(w, mapname);
}

uint64_t report_window_scalar(const bpfout_window *w, const char *prefix, const char *name)
{
	const bpfout_map *m = report_window_map(w, prefix, name);
	if (!m || m->n_entries != 1 || m->entries[0].type != BPFOUT_VALUE_INT ||
	    m->entries[0].value < 0)
		return 0;
	return (uint64_t)m->entries[0].value;
}

char *report_thread_name(report_pids pids, long tid)
{
	char comm[64];
	if (tid <= 0)
		return NULL;
	for (size_t i = 0; i < pids.n; i++)
		if (pids.v[i] > 0 &&
		    target_thread_name((pid_t)pids.v[i], (pid_t)tid, comm, sizeof comm) == 0)
			return strdup(comm);
	return NULL;
}

/* Sets P's display unit to U.  Returns 0, or -1 out of memory. */
static int set_unit(report_probe *p, time_unit u)
{
	char *name = strdup(unit_name(u));
	if (!name)
		return -1;
	free(p->unit);
	p->unit = name;
	p->unit_ns = unit_ns(u);
	return 0;
}

int report_add_histogram(const bpfout_map *m, report_stats *total,
			 report_stats *(*stats_of)(void *ctx, long key), void *ctx)
{
	for (size_t i = 0; m && i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		if (e->n_ikeys != 2 || e->type != BPFOUT_VALUE_INT || e->value <= 0 ||
		    e->ikeys[1] < 0)
			continue;
		report_stats *st = stats_of(ctx, (long)e->ikeys[0]);
		if (!st || report_add_bucket(st, (uint64_t)e->ikeys[1], (uint64_t)e->value) < 0 ||
		    report_add_bucket(total, (uint64_t)e->ikeys[1], (uint64_t)e->value) < 0)
			return -1;
	}
	return 0;
}

/* Which statistics of a group a set of duration maps fills. */
typedef report_stats *stats_pick(report_group *g);

static report_stats *pick_calls(report_group *g)
{
	return &g->st;
}

static report_stats *pick_stalls(report_group *g)
{
	return &g->stalls;
}

/* What report_add_histogram's callback needs: the probe and the pick. */
typedef struct group_stats_ctx {
	report_probe *p;
	stats_pick *pick;
} group_stats_ctx;

/* The picked stats of probe CTX's group for thread KEY. */
static report_stats *group_stats(void *ctx, long key)
{
	group_stats_ctx *c = ctx;
	report_group *g = report_find_thread(&c->p->groups, &c->p->n_groups, key);
	return g ? c->pick(g) : NULL;
}

/* The sum, min and max maps ([tid] -> ns) of probe NAME with prefixes
 * KINDS[0..3) into the picked stats of P's groups and into TOTAL.
 * Returns 0, or -1 out of memory. */
static int add_totals(report_probe *p, report_stats *total, const char *name,
		      const bpfout_window *w, const char *const kinds[3], stats_pick *pick)
{
	const bpfout_map *m;

	for (size_t k = 0; k < 3; k++) {
		if (!(m = report_window_map(w, kinds[k], name)))
			continue;
		for (size_t i = 0; i < m->n_entries; i++) {
			const bpfout_entry *e = &m->entries[i];
			if (e->n_ikeys != 1 || e->type != BPFOUT_VALUE_INT || e->value < 0)
				continue;
			report_group *g = report_find_thread(&p->groups, &p->n_groups, (long)e->ikeys[0]);
			if (!g)
				return -1;
			report_stats *st = pick(g);
			uint64_t v = (uint64_t)e->value;
			if (k == 0) {
				st->sum_ns = v;
				total->sum_ns += v;
			} else if (k == 1) {
				st->min_ns = v;
				if (v < total->min_ns)
					total->min_ns = v;
			} else {
				st->max_ns = v;
				if (v > total->max_ns)
					total->max_ns = v;
			}
		}
	}
	return 0;
}

int report_fill_slices(report_probe *p, const char *name, const bpfout_window *w,
		       const kind_fill_ctx *ctx)
{
	size_t nl = strlen(name);
	const bpfout_map *m;

	p->threshold_ns = ctx->run->slice_min_ns;
	if (w->n_events && !(p->events = calloc(w->n_events, sizeof *p->events)))
		return -1;
	for (size_t i = 0; i < w->n_events; i++) {
		const char *rec = w->events[i];
		long long start, ns;
		long tid;
		int used = 0;
		if (strncmp(rec, name, nl) != 0 || rec[nl] != ' ' ||
		    sscanf(rec + nl + 1, "%lld %ld %lld%n", &start, &tid, &ns, &used) != 3 ||
		    (rec[nl + 1 + used] != '\0' && rec[nl + 1 + used] != ' ') || start < 0 || ns < 0 ||
		    (uint64_t)start + (uint64_t)ns < ctx->begin_ns)
			continue;	/* malformed, or ended before this window (as events) */
		const char *more = rec + nl + 1 + used;
		report_event *ev = &p->events[p->n_events++];
		if (*more && !(ev->label = strdup(more + 1)))
			return -1;
		ev->t_ns = (uint64_t)start + (uint64_t)ns - ctx->begin_ns;
		ev->tid = tid;
		ev->latency_ns = (uint64_t)ns;
		const report_group *g = NULL;
		for (size_t k = 0; k < p->n_groups && !g; k++)
			g = p->groups[k].tid == tid ? &p->groups[k] : NULL;
		const report_event *prev = p->n_events > 1 ? &p->events[p->n_events - 2] : NULL;
		if (g && g->thread)
			ev->thread = strdup(g->thread);
		else if (prev && prev->tid == tid)	/* not per thread: no /proc read each */
			ev->thread = prev->thread ? strdup(prev->thread) : NULL;
		else
			ev->thread = report_thread_name(ctx->pids, tid);
	}
	/* Over the program's limit, and over bpfspec's (BPFOUT_MAX_EVENTS,
	 * shared by every probe). */
	p->events_dropped = bpfout_dropped_records(w, name);
	if ((m = report_window_map(w, WIRE_DROPPED, name)))
		for (size_t i = 0; i < m->n_entries; i++)
			if (m->entries[i].type == BPFOUT_VALUE_INT && m->entries[i].value > 0)
				p->events_dropped += (uint64_t)m->entries[i].value;
	/* Room was made for every record of the window: give back the rest. */
	if (p->n_events < w->n_events) {
		report_event *fit = p->n_events ? realloc(p->events, p->n_events * sizeof *fit) : NULL;
		if (fit || !p->n_events) {
			if (!p->n_events)
				free(p->events);
			p->events = fit;
		}
	}
	return 0;
}

/* Probe NAME's duration maps with prefixes MAPS (buckets, sum, min, max)
 * into the picked stats of P's groups (finished) and TOTAL.  Returns 0,
 * or -1 out of memory. */
static int fill_durations(report_probe *p, report_stats *total, const char *name,
			  const bpfout_window *w, const char *const maps[4], stats_pick *pick)
{
	group_stats_ctx c = { p, pick };

	if (report_add_histogram(report_window_map(w, maps[0], name), total, group_stats, &c) < 0)
		return -1;
	total->min_ns = UINT64_MAX;
	if (add_totals(p, total, name, w, maps + 1, pick) < 0)
		return -1;
	if (total->min_ns == UINT64_MAX)
		total->min_ns = 0;
	report_finish_stats(total);
	return 0;
}

int report_fill_stalls(report_probe *p, const char *name, const bpfout_window *w)
{
	static const char *const maps[] = { WIRE_STALL_BUCKETS, WIRE_STALL_SUM, WIRE_STALL_MIN,
					    WIRE_STALL_MAX };
	if (fill_durations(p, &p->stalls, name, w, maps, pick_stalls) < 0)
		return -1;
	for (size_t i = 0; i < p->n_groups; i++)
		report_finish_stats(&p->groups[i].stalls);
	return 0;
}

int report_fill_timed(report_probe *p, const char *name, const bpfout_window *w,
		      report_pids pids)
{
	static const char *const maps[] = { WIRE_BUCKETS, WIRE_SUM, WIRE_MIN, WIRE_MAX };

	if (fill_durations(p, &p->st, name, w, maps, pick_calls) < 0)
		return -1;
	for (size_t i = 0; i < p->n_groups; i++) {
		report_group *g = &p->groups[i];
		if (g->st.min_ns == UINT64_MAX)
			g->st.min_ns = 0;
		report_finish_stats(&g->st);
		g->thread = report_thread_name(pids, g->tid);
	}
	report_sort_groups(p->groups, p->n_groups, pids);
	return 0;
}

/* The kernel reports rt_sigreturn's exit with number -1 (it restores the
 * registers of the code the signal interrupted, orig_ax included: the
 * enter tracepoint saw 15), so -1 reads as rt_sigreturn. */
char *report_exit_syscall_name(long nr)
{
	const char *name = nr == -1 ? "rt_sigreturn" : systab_syscall_name(nr);
	char *out = NULL;
	if (name)
		return strdup(name);
	return asprintf(&out, "syscall_%ld", nr) < 0 ? NULL : out;
}

/* REP's spec, parameters, target and run facts from R and RUN.  Returns
 * 0, or -1 out of memory. */
static int put_header(report *rep, const resolved *r, const report_run *run)
{
	rep->spec_name = dup_or_null(r->sp->name);
	rep->spec_path = dup_or_null(r->sp->path);
	if (r->sp->n_params) {
		size_t n = r->sp->n_params;
		rep->param_names = calloc(n, sizeof *rep->param_names);
		rep->param_values = calloc(n, sizeof *rep->param_values);
		rep->param_set = calloc(n, sizeof *rep->param_set);
		if (!rep->param_names || !rep->param_values || !rep->param_set)
			return -1;
		for (; rep->n_params < n; rep->n_params++) {
			const spec_param *sp = &r->sp->params[rep->n_params];
			rep->param_names[rep->n_params] = dup_or_null(sp->name);
			rep->param_values[rep->n_params] = dup_or_null(sp->value);
			rep->param_set[rep->n_params] = sp->overridden;
		}
	}
	rep->entry_only = r->sp->entry_only;
	report_pids pids = report_run_pids(run);
	rep->pid = pids.n ? pids.v[0] : 0;
	if (pids.n && !(rep->pids = malloc(pids.n * sizeof *rep->pids)))
		return -1;
	if (pids.n)
		memcpy(rep->pids, pids.v, pids.n * sizeof *rep->pids);
	rep->n_pids = pids.n;
	rep->binary = dup_or_null(r->tg->exe);
	rep->libuv_version = dup_or_null(r->libuv_version);
	rep->bpftrace_version = dup_or_null(run->bpftrace_version);
	rep->cumulative = run->cumulative;
	rep->partial = run->partial;
	rep->partial_reason = dup_or_null(run->partial_reason);
	rep->lost_events = run->lost_events;
	rep->attached_probes = run->attached_probes;
	rep->expected_probes = run->expected_probes;
	return 0;
}

/* REP's window: where it began on bpftrace's clock (returned: the run's
 * start when W holds what came before it), how long it lasted (to a stop
 * before W's end) and when, on the wall clock. */
static uint64_t put_window(report *rep, const bpfout_window *w, const report_run *run)
{
	rep->duration_ns = run->duration_ns;
	uint64_t begin = w ? w->begin_ns : 0;
	if (run->begin_ns && w && (!w->end_ns || run->begin_ns < w->end_ns))
		begin = run->begin_ns;
	if (w && begin && w->end_ns > begin) {
		uint64_t end = w->end_ns;
		if (run->stop_ns > begin && run->stop_ns < end)
			end = run->stop_ns;
		rep->duration_ns = end - begin;
	} else if (w && begin && !w->end_ns && run->stop_ns > begin) {
		rep->duration_ns = run->stop_ns - begin;	/* never flushed */
	}
	if (begin && run->realtime_offset_ns && (int64_t)begin + run->realtime_offset_ns > 0)
		rep->start_unix_ns = (uint64_t)((int64_t)begin + run->realtime_offset_ns);
	rep->begin_clock_ns = begin;
	return begin;
}

/* Probe P of REP from resolved probe RP: what it is, and when attached
 * its figures from W, filled by its kind.  Returns 0, or -1 out of
 * memory. */
static int put_probe(report *rep, report_probe *p, const resolved_probe *rp,
		     const bpfout_window *w, const report_run *run)
{
	p->name = strdup(rp->sp->name);
	p->kind = rp->sp->kind;
	p->function = dup_or_null(rp->sp->function);
	p->probe = dup_or_null(rp->sp->probe);
	p->object = dup_or_null(rp->active ? rp->object : NULL);
	p->debug_file = dup_or_null(rp->active ? rp->debug_file : NULL);
	if (rp->active && rp->sp->function && strstr(rp->sp->function, "::"))
		p->matched_symbols = rp->n_names;
	/* unit: auto is decided once the figures are in (below). */
	p->unit = strdup(unit_name(rp->sp->unit == UNIT_AUTO ? UNIT_US : rp->sp->unit));
	p->unit_ns = unit_ns(rp->sp->unit == UNIT_AUTO ? UNIT_US : rp->sp->unit);
	p->attached = rp->active;
	p->reason = dup_or_null(rp->reason);
	p->derived = dup_or_null(rp->derived);
	if (!p->name || !p->unit)
		return -1;
	/* Not attached: nothing to fill. */
	if (rp->active) {
		kind_fill_ctx ctx = { .run = run, .pids = report_pids_of(rep),
				      .begin_ns = rep->begin_clock_ns,
				      .end_ns = rep->begin_clock_ns + rep->duration_ns,
				      .exe = rep->binary };
		if (kind_ops_of(rp->sp->kind)->fill(p, rp, w, &ctx) < 0)
			return -1;
	}
	if (rp->sp->unit == UNIT_AUTO && set_unit(p, unit_for(p->st.p99_ns)) < 0)
		return -1;
	return 0;
}

report *report_build(const resolved *r, const bpfout_window *w, const report_run *run)
{
	report *rep = calloc(1, sizeof *rep);
	if (!rep)
		return NULL;
	int rc = put_header(rep, r, run);
	uint64_t begin = put_window(rep, w, run);
	if (rc == 0 && !(rep->probes = calloc(r->n_probes, sizeof *rep->probes)))
		rc = -1;
	if (rc == 0)
		rep->n_probes = r->n_probes;
	for (size_t i = 0; rc == 0 && i < r->n_probes; i++)
		rc = put_probe(rep, &rep->probes[i], &r->probes[i], w, run);
	for (const feature_ops *const *f = features; rc == 0 && *f; f++)
		if ((*f)->fill)
			rc = (*f)->fill(rep, r, w, begin);
	if (rc < 0) {
		report_free(rep);
		return NULL;
	}
	return rep;
}

