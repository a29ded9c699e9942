/* report — the report model's own operations: statistics, thread groups,
 * pids, warnings, freeing (report.h).  Building a report from bpftrace's
 * output is run/report_build.c's. */
#include "model/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/hist.h"

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

void report_free_http_routes(report_http_route *r, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(r[k].method);
		free(r[k].route);
		free(r[k].st.buckets);
		for (size_t s = 0; s < r[k].n_statuses; s++)
			free(r[k].statuses[s].st.buckets);
		free(r[k].statuses);
	}
	free(r);
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
		free(ev[k].method);
		free(ev[k].label);
		report_free_values(ev[k].args, ev[k].n_args);
	}
	free(ev);
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
		free(p->stalls.buckets);
		for (size_t g = 0; g < p->n_groups; g++) {
			free(p->groups[g].thread);
			free(p->groups[g].st.buckets);
			free(p->groups[g].stalls.buckets);
			report_split_free(p->groups[g].split);
			free(p->groups[g].split);
		}
		report_split_free(&p->split);
		for (size_t k = 0; k < p->n_stacks; k++)
			free(p->stacks[k].frames);
		free(p->stacks);
		for (size_t k = 0; k < p->n_stages; k++)
			free(p->stages[k]);
		free(p->stages);
		for (size_t k = 0; k < p->n_span_rows; k++) {
			free(p->span_rows[k].stage);
			free(p->span_rows[k].label);
			free(p->span_rows[k].st.buckets);
		}
		free(p->span_rows);
		free(p->span_wait);
		free(p->span_work);
		free(p->pool_source);
		free(p->tls_object);
		free(p->tls_missing);
		for (size_t k = 0; k < p->n_workers; k++)
			free(p->workers[k].thread);
		free(p->workers);
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
		report_free_http_routes(p->http_routes, p->n_http_routes);
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
