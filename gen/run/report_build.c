/* report — see report.h. */
#include "model/report.h"
#include "run/report_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "attribution/why.h"
#include "model/kind_ops.h"
#include "model/wire.h"
#include "target/target.h"
#include "util/buf.h"
#include "util/hist.h"
#include "util/systab.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

uint64_t report_percentile(const report_stats *st, double q)
{
	if (st->count == 0 || st->n_buckets == 0)
		return 0;
	double rank = q * (double)st->count;
	uint64_t cum = 0;
	for (size_t i = 0; i < st->n_buckets; i++) {
		const report_bucket *b = &st->buckets[i];
		if ((double)(cum + b->count) >= rank && b->count > 0) {
			double frac = (rank - (double)cum) / (double)b->count;
			if (frac < 0)
				frac = 0;
			double v = (double)b->lo_ns + frac * (double)(b->hi_ns - b->lo_ns);
			/* Stay inside the bucket (hi_ns is exclusive); a double
			 * of 2^64 or more does not convert to uint64_t. */
			uint64_t r = v >= 0x1p64 ? UINT64_MAX : (uint64_t)(v + 0.5);
			if (r >= b->hi_ns && b->hi_ns > b->lo_ns)
				r = b->hi_ns - 1;
			if (r < st->min_ns)
				r = st->min_ns;
			if (r > st->max_ns)
				r = st->max_ns;
			return r;
		}
		cum += b->count;
	}
	return st->max_ns;
}

int report_add_bucket(report_stats *st, uint64_t index, uint64_t count)
{
	uint64_t lo, hi;
	hist_bucket_bounds(index, &lo, &hi);
	size_t i = 0;
	while (i < st->n_buckets && st->buckets[i].lo_ns < lo)
		i++;
	if (i < st->n_buckets && st->buckets[i].lo_ns == lo) {
		st->buckets[i].count += count;
		return 0;
	}
	report_bucket *nb = realloc(st->buckets, (st->n_buckets + 1) * sizeof *nb);
	if (!nb)
		return -1;
	st->buckets = nb;
	memmove(&nb[i + 1], &nb[i], (st->n_buckets - i) * sizeof *nb);
	nb[i] = (report_bucket){ lo, hi, count };
	st->n_buckets++;
	return 0;
}

void report_finish_stats(report_stats *st)
{
	st->count = 0;
	for (size_t i = 0; i < st->n_buckets; i++)
		st->count += st->buckets[i].count;
	st->p50_ns = report_percentile(st, 0.50);
	st->p90_ns = report_percentile(st, 0.90);
	st->p99_ns = report_percentile(st, 0.99);
}

report_group *report_find_thread(report_group **arr, size_t *n, long tid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*arr)[i].tid == tid)
			return &(*arr)[i];
	report_group *ng = realloc(*arr, (*n + 1) * sizeof *ng);
	if (!ng)
		return NULL;
	*arr = ng;
	memset(&ng[*n], 0, sizeof *ng);
	ng[*n].tid = tid;
	ng[*n].st.min_ns = UINT64_MAX;
	return &ng[(*n)++];
}

const bpfout_map *report_window_map(const bpfout_window *w, const char *prefix, const char *name)
{
	char mapname[96];
	if (!w)
		return NULL;
	snprintf(mapname, sizeof mapname, "@%s_%s", prefix, name);
	return bpfout_window_map(w, mapname);
}

report_pids report_pids_of(const report *rep)
{
	if (rep->n_pids)
		return (report_pids){ rep->pids, rep->n_pids };
	return (report_pids){ &rep->pid, rep->pid > 0 };
}

report_pids report_run_pids(const report_run *run)
{
	if (run->n_pids && run->pids)
		return (report_pids){ run->pids, run->n_pids };
	return (report_pids){ &run->pid, run->pid > 0 };
}

bool report_pids_has(report_pids p, long tid)
{
	for (size_t i = 0; i < p.n; i++)
		if (p.v[i] > 0 && p.v[i] == tid)
			return true;
	return false;
}

void report_fput_pids(FILE *out, report_pids p)
{
	for (size_t i = 0; i < p.n; i++)
		fprintf(out, "%s%ld", i ? ", " : p.n > 1 ? "pids " : "pid ", p.v[i]);
}

/* Where TID stands in P: its index when a main thread, else P.n. */
static size_t main_rank(const report_pids *p, long tid)
{
	size_t i = 0;
	while (i < p->n && p->v[i] != tid)
		i++;
	return i;
}

/* The main threads (in *PIDS' order) first, then by tid. */
static int group_order(const void *a, const void *b, void *pids)
{
	const report_group *x = a, *y = b;
	size_t rx = main_rank(pids, x->tid), ry = main_rank(pids, y->tid);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->tid == y->tid)
		return 0;
	return x->tid < y->tid ? -1 : 1;
}

void report_sort_groups(report_group *g, size_t n, report_pids pids)
{
	if (n > 1)	/* qsort_r(NULL, 0, ...) is undefined */
		qsort_r(g, n, sizeof *g, group_order, &pids);
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

/* The stats of probe CTX's group for thread KEY. */
static report_stats *group_stats(void *ctx, long key)
{
	report_probe *p = ctx;
	report_group *g = report_find_thread(&p->groups, &p->n_groups, key);
	return g ? &g->st : NULL;
}

int report_fill_timed(report_probe *p, const char *name, const bpfout_window *w,
		      report_pids pids)
{
	const bpfout_map *m;

	if (report_add_histogram(report_window_map(w, WIRE_BUCKETS, name), &p->st, group_stats, p) < 0)
		return -1;
	static const char *const kinds[] = { WIRE_SUM, WIRE_MIN, WIRE_MAX };
	p->st.min_ns = UINT64_MAX;
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
			uint64_t v = (uint64_t)e->value;
			if (k == 0) {
				g->st.sum_ns = v;
				p->st.sum_ns += v;
			} else if (k == 1) {
				g->st.min_ns = v;
				if (v < p->st.min_ns)
					p->st.min_ns = v;
			} else {
				g->st.max_ns = v;
				if (v > p->st.max_ns)
					p->st.max_ns = v;
			}
		}
	}
	for (size_t i = 0; i < p->n_groups; i++) {
		report_group *g = &p->groups[i];
		if (g->st.min_ns == UINT64_MAX)
			g->st.min_ns = 0;
		report_finish_stats(&g->st);
		g->thread = report_thread_name(pids, g->tid);
	}
	if (p->st.min_ns == UINT64_MAX)
		p->st.min_ns = 0;
	report_finish_stats(&p->st);
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

void report_free_values(report_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].s);
	}
	free(v);
}

void report_utc_stamp(char *out, size_t len, uint64_t unix_ns, bool rfc3339)
{
	time_t secs = (time_t)(unix_ns / 1000000000ull);
	struct tm tmv;
	char day[32];
	if (!gmtime_r(&secs, &tmv) ||
	    !strftime(day, sizeof day, rfc3339 ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tmv)) {
		snprintf(out, len, "?");
		return;
	}
	if (rfc3339)
		snprintf(out, len, "%s.%06luZ", day, (unsigned long)(unix_ns % 1000000000ull / 1000));
	else
		snprintf(out, len, "%s UTC", day);
}

void report_split_free(report_split *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_syscalls; i++)
		free(s->syscalls[i].name);
	free(s->syscalls);
}

void report_free_events(report_event *ev, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(ev[k].thread);
		free(ev[k].syscall);
		free(ev[k].error);
		free(ev[k].path);
		free(ev[k].address);
		free(ev[k].phase);
		free(ev[k].command);
		report_free_values(ev[k].args, ev[k].n_args);
	}
	free(ev);
}

report *report_build(const resolved *r, const bpfout_window *w, const report_run *run)
{
	report *rep = calloc(1, sizeof *rep);
	if (!rep)
		return NULL;
	rep->spec_name = dup_or_null(r->sp->name);
	rep->spec_path = dup_or_null(r->sp->path);
	if (r->sp->n_params) {
		size_t n = r->sp->n_params;
		rep->param_names = calloc(n, sizeof *rep->param_names);
		rep->param_values = calloc(n, sizeof *rep->param_values);
		rep->param_set = calloc(n, sizeof *rep->param_set);
		if (!rep->param_names || !rep->param_values || !rep->param_set) {
			report_free(rep);
			return NULL;
		}
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
	if (pids.n && !(rep->pids = malloc(pids.n * sizeof *rep->pids))) {
		report_free(rep);
		return NULL;
	}
	if (pids.n)
		memcpy(rep->pids, pids.v, pids.n * sizeof *rep->pids);
	rep->n_pids = pids.n;
	rep->binary = dup_or_null(r->tg->exe);
	rep->libuv_version = dup_or_null(r->libuv_version);
	rep->bpftrace_version = dup_or_null(run->bpftrace_version);
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
	rep->cumulative = run->cumulative;
	rep->partial = run->partial;
	rep->partial_reason = dup_or_null(run->partial_reason);
	rep->lost_events = run->lost_events;
	rep->attached_probes = run->attached_probes;
	rep->expected_probes = run->expected_probes;
	rep->probes = calloc(r->n_probes, sizeof *rep->probes);
	if (!rep->probes) {
		report_free(rep);
		return NULL;
	}
	rep->n_probes = r->n_probes;
	for (size_t i = 0; i < r->n_probes; i++) {
		const resolved_probe *rp = &r->probes[i];
		report_probe *p = &rep->probes[i];
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
		if (!p->name || !p->unit) {
			report_free(rep);
			return NULL;
		}
		int rc = 0;
		/* Not attached: nothing to fill. */
		if (rp->active) {
			kind_fill_ctx ctx = { .run = run, .pids = report_pids_of(rep), .begin_ns = begin,
					      .end_ns = begin + rep->duration_ns };
			rc = kind_ops_of(rp->sp->kind)->fill(p, rp, w, &ctx);
		}
		if (rc < 0) {
			report_free(rep);
			return NULL;
		}
		if (rp->sp->unit == UNIT_AUTO && set_unit(p, unit_for(p->st.p99_ns)) < 0) {
			report_free(rep);
			return NULL;
		}
	}
	if (why_fill(rep, r, w, begin) < 0) {
		report_free(rep);
		return NULL;
	}
	return rep;
}

int report_add_warning(report *rep, const char *text)
{
	char **nw = realloc(rep->warnings, (rep->n_warnings + 1) * sizeof *nw);
	if (!nw)
		return -1;
	rep->warnings = nw;
	if (!(nw[rep->n_warnings] = strdup(text)))
		return -1;
	rep->n_warnings++;
	return 0;
}

void report_free(report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->n_probes; i++) {
		report_probe *p = &rep->probes[i];
		free(p->name);
		free(p->function);
		free(p->probe);
		free(p->object);
		free(p->debug_file);
		free(p->unit);
		free(p->reason);
		free(p->derived);
		free(p->st.buckets);
		for (size_t g = 0; g < p->n_groups; g++) {
			free(p->groups[g].thread);
			free(p->groups[g].st.buckets);
			report_split_free(p->groups[g].split);
			free(p->groups[g].split);
		}
		report_split_free(&p->split);
		for (size_t k = 0; k < p->n_stacks; k++)
			free(p->stacks[k].frames);
		free(p->stacks);
		free(p->groups);
		for (size_t k = 0; k < p->n_syscalls; k++) {
			report_syscall *sc = &p->syscalls[k];
			free(sc->name);
			free(sc->st.buckets);
			for (size_t e = 0; e < sc->n_errors; e++)
				free(sc->errors[e].name);
			free(sc->errors);
			for (size_t t = 0; t < sc->n_threads; t++)
				free(sc->threads[t].thread);
			free(sc->threads);
		}
		free(p->syscalls);
		report_free_events(p->events, p->n_events);
	}
	free(rep->probes);
	report_free_events(rep->blockers, rep->n_blockers);
	for (size_t i = 0; i < rep->n_warnings; i++)
		free(rep->warnings[i]);
	free(rep->warnings);
	free(rep->spec_name);
	free(rep->spec_path);
	for (size_t i = 0; i < rep->n_params; i++) {
		free(rep->param_names[i]);
		free(rep->param_values[i]);
	}
	free(rep->param_names);
	free(rep->param_values);
	free(rep->param_set);
	free(rep->binary);
	free(rep->pids);
	free(rep->libuv_version);
	free(rep->bpftrace_version);
	free(rep->partial_reason);
	free(rep);
}
