/* report — see report.h. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "target.h"

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

/* Adds COUNT to bucket INDEX of ST, keeping buckets sorted. */
static int stats_add_bucket(report_stats *st, uint64_t index, uint64_t count)
{
	uint64_t lo, hi;
	gen_bucket_bounds(index, &lo, &hi);
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

static void stats_finish(report_stats *st)
{
	st->count = 0;
	for (size_t i = 0; i < st->n_buckets; i++)
		st->count += st->buckets[i].count;
	st->p50_ns = report_percentile(st, 0.50);
	st->p90_ns = report_percentile(st, 0.90);
	st->p99_ns = report_percentile(st, 0.99);
}

static report_group *find_group(report_probe *p, long tid)
{
	for (size_t i = 0; i < p->n_groups; i++)
		if (p->groups[i].tid == tid)
			return &p->groups[i];
	report_group *ng = realloc(p->groups, (p->n_groups + 1) * sizeof *ng);
	if (!ng)
		return NULL;
	p->groups = ng;
	memset(&ng[p->n_groups], 0, sizeof *ng);
	ng[p->n_groups].tid = tid;
	ng[p->n_groups].st.min_ns = UINT64_MAX;
	return &ng[p->n_groups++];
}

static const bpfout_map *window_map(const bpfout_window *w, const char *kind, const char *name)
{
	char mapname[96];
	if (!w)
		return NULL;
	snprintf(mapname, sizeof mapname, "@%s_%s", kind, name);
	return bpfout_window_map(w, mapname);
}

static long main_pid;

static int group_order(const void *a, const void *b)
{
	const report_group *x = a, *y = b;
	if (x->tid == y->tid)
		return 0;
	if (x->tid == main_pid)
		return -1;
	if (y->tid == main_pid)
		return 1;
	return x->tid < y->tid ? -1 : 1;
}

static int fill_latency(report_probe *p, const char *name, const bpfout_window *w, long pid)
{
	const bpfout_map *m;

	if ((m = window_map(w, "b", name)))
		for (size_t i = 0; i < m->n_entries; i++) {
			const bpfout_entry *e = &m->entries[i];
			if (e->n_ikeys != 2 || e->type != BPFOUT_VALUE_INT || e->value <= 0 ||
			    e->ikeys[1] < 0)
				continue;
			report_group *g = find_group(p, (long)e->ikeys[0]);
			if (!g || stats_add_bucket(&g->st, (uint64_t)e->ikeys[1], (uint64_t)e->value) < 0 ||
			    stats_add_bucket(&p->st, (uint64_t)e->ikeys[1], (uint64_t)e->value) < 0)
				return -1;
		}
	static const char *const kinds[] = { "sum", "min", "max" };
	p->st.min_ns = UINT64_MAX;
	for (size_t k = 0; k < 3; k++) {
		if (!(m = window_map(w, kinds[k], name)))
			continue;
		for (size_t i = 0; i < m->n_entries; i++) {
			const bpfout_entry *e = &m->entries[i];
			if (e->n_ikeys != 1 || e->type != BPFOUT_VALUE_INT || e->value < 0)
				continue;
			report_group *g = find_group(p, (long)e->ikeys[0]);
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
		stats_finish(&g->st);
		if (pid > 0) {
			char comm[64];
			if (target_thread_name((pid_t)pid, (pid_t)g->tid, comm, sizeof comm) == 0)
				g->thread = strdup(comm);
		}
	}
	if (p->st.min_ns == UINT64_MAX)
		p->st.min_ns = 0;
	stats_finish(&p->st);
	main_pid = pid;
	if (p->n_groups > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(p->groups, p->n_groups, sizeof *p->groups, group_order);
	return 0;
}

report *report_build(const resolved *r, const bpfout_window *w, const report_run *run)
{
	report *rep = calloc(1, sizeof *rep);
	if (!rep)
		return NULL;
	rep->spec_name = dup_or_null(r->sp->name);
	rep->spec_path = dup_or_null(r->sp->path);
	rep->pid = run->pid;
	rep->binary = dup_or_null(r->tg->exe);
	rep->duration_ns = run->duration_ns;
	if (w && w->begin_ns && w->end_ns > w->begin_ns) {
		uint64_t end = w->end_ns;
		if (run->stop_ns > w->begin_ns && run->stop_ns < end)
			end = run->stop_ns;
		rep->duration_ns = end - w->begin_ns;
	}
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
		p->kind = strdup(spec_kind_name(rp->sp->kind));
		p->function = dup_or_null(rp->sp->function);
		p->object = dup_or_null(rp->active ? rp->object : NULL);
		p->unit = strdup(spec_unit_name(rp->sp->unit));
		p->unit_ns = spec_unit_ns(rp->sp->unit);
		p->attached = rp->active;
		p->reason = dup_or_null(rp->reason);
		if (!p->name || !p->kind || !p->unit) {
			report_free(rep);
			return NULL;
		}
		if (rp->active && fill_latency(p, rp->sp->name, w, run->pid) < 0) {
			report_free(rep);
			return NULL;
		}
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
		free(p->kind);
		free(p->function);
		free(p->object);
		free(p->unit);
		free(p->reason);
		free(p->st.buckets);
		for (size_t g = 0; g < p->n_groups; g++) {
			free(p->groups[g].thread);
			free(p->groups[g].st.buckets);
		}
		free(p->groups);
	}
	free(rep->probes);
	for (size_t i = 0; i < rep->n_warnings; i++)
		free(rep->warnings[i]);
	free(rep->warnings);
	free(rep->spec_name);
	free(rep->spec_path);
	free(rep->binary);
	free(rep->partial_reason);
	free(rep);
}
