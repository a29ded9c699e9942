/* render_prom — the Prometheus text exposition format 0.0.4 (see render.h;
 * names, types and why the counts are gauges: docs/report.md, section
 * "Prometheus").
 *
 * Every value is the window's: histograms keep their type (the only way
 * to expose a distribution in 0.0.4), the other counts are gauges.  All
 * histograms share one fixed bucket layout, powers of two from 2^10 ns to
 * 2^35 ns, so that series can be summed by `le` across threads, probes,
 * runs and hosts.  Durations are printed as exact decimal seconds from
 * the integer nanoseconds.  No sample carries a timestamp.  The lines and
 * numbers are util/promtext.h's, the writer serve's exposition shares. */
#include "model/feature.h"
#include "render/render.h"
#include "render/render_internal.h"

#include "model/kind.h"

#include "util/promtext.h"

#include <stdbool.h>
#include <stdint.h>

/* -o prom's le layout: one bound per power of two (promtext.h). */
#define LE_STEPS 1

/* F's HELP and TYPE lines, before its first sample. */
static void prom_start(FILE *out, prom_family *f)
{
	if (!f->started) {
		promtext_header(out, f->name, f->type, f->help);
		f->started = true;
	}
}

void prom_sample(FILE *out, prom_family *f, const char *suffix, const promtext_label *ls, size_t n,
		 const char *value)
{
	promtext_labels labels = { .pairs = ls, .n = n };

	prom_start(out, f);
	promtext_sample(out, f->name, suffix, &labels, NULL, value);
}

/* The log-linear buckets fold onto the fixed power-of-two
 * bounds: a bucket [lo, hi) counts toward the first bound >= hi, so
 * every value it counts is below le; buckets past the last bound count in
 * +Inf only.  _count (== the +Inf bucket) and _sum are exact. */
void prom_histogram(FILE *out, prom_family *f, const promtext_label *ls, size_t n,
		    const report_stats *st)
{
	uint64_t cum[PROMTEXT_LE_N(LE_STEPS)] = { 0 }, total = 0;
	promtext_labels labels = { .pairs = ls, .n = n };
	promtext_le le;
	char sum[PROMTEXT_NUM_LEN];

	for (size_t i = 0; i < st->n_buckets; i++) {
		const report_bucket *b = &st->buckets[i];
		int at = promtext_le_index(LE_STEPS, b->hi_ns);
		total += b->count;
		if (at >= 0)
			cum[at] += b->count;
	}
	for (size_t i = 1; i < PROMTEXT_LE_N(LE_STEPS); i++)
		cum[i] += cum[i - 1];
	/* The report derives count from the buckets; should they ever
	 * disagree, the larger keeps the series cumulative. */
	if (st->count > total)
		total = st->count;
	promtext_le_init(&le, LE_STEPS);
	promtext_seconds(sum, sizeof sum, st->sum_ns);
	prom_start(out, f);
	promtext_histogram(out, f->name, &labels, &le, cum, total, sum);
}

const report_probe *prom_next(const report *rep, probe_kind kind, size_t *i)
{
	for (; *i < rep->n_probes; (*i)++) {
		const report_probe *p = &rep->probes[*i];
		if (p->attached && p->kind == kind) {
			(*i)++;
			return p;
		}
	}
	return NULL;
}

void prom_thread_labels(promtext_label ls[5], char tid[24], const report *rep,
			const report_probe *p, const report_group *gr)
{
	snprintf(tid, 24, "%ld", gr->tid);
	ls[0] = (promtext_label){ "spec", rep->spec_name };
	ls[1] = (promtext_label){ "probe", p->name };
	ls[2] = (promtext_label){ "tid", tid };
	ls[3] = (promtext_label){ "thread", gr->thread };
	ls[4] = (promtext_label){ "main",
				  report_pids_has(report_pids_of(rep), gr->tid) ? "true" : "false" };
}

/* Per-thread totals of the probes whose kind keeps them
 * (kind_ops.prom_thread_totals). */
static void put_thread_totals(FILE *out, prom_family *time_f, prom_family *calls_f,
			      const report *rep)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < rep->n_probes; i++) {
			const report_probe *p = &rep->probes[i];
			if (!p->attached || !kind_ops_of(p->kind)->prom_thread_totals)
				continue;
			for (size_t g = 0; g < p->n_groups; g++) {
				const report_group *gr = &p->groups[g];
				char tid[24], v[32];
				promtext_label ls[5];
				if (gr->tid == 0)	/* the probe is not per thread */
					continue;
				prom_thread_labels(ls, tid, rep, p, gr);
				if (pass == 0)
					promtext_seconds(v, sizeof v, gr->st.sum_ns);
				else
					promtext_u64(v, sizeof v, gr->st.count);
				prom_sample(out, pass == 0 ? time_f : calls_f, "", ls, 5, v);
			}
		}
}

int render_prom(FILE *out, const report *rep)
{
	prom_family target_info = { "bpfspec_target_info", "gauge",
			  "The traced process (pid 0: none) and its executable; always 1.", false };
	prom_family window = { "bpfspec_window_seconds", "gauge",
			  "Length of the measured window; every other value is for this window.",
			  false };
	prom_family started = { "bpfspec_window_start_timestamp_seconds", "gauge",
			   "When the window began, in seconds since the Unix epoch.", false };
	prom_family partial = { "bpfspec_report_partial", "gauge",
			   "1 when the window was cut short (target exited, bpftrace died or was killed).",
			   false };
	prom_family lost = { "bpfspec_lost_events", "gauge",
			"Events bpftrace reported lost in the window (figures are then too low).",
			false };
	prom_family attached = { "bpfspec_probe_attached", "gauge",
			    "1 when the probe was attached, 0 when it was skipped.", false };
	prom_family thread_time = { "bpfspec_thread_time_seconds", "gauge",
			       "Time the thread spent in the probe's calls in the window.", false };
	prom_family thread_calls = { "bpfspec_thread_calls", "gauge",
				"Calls the thread completed in the window.", false };
	char v[32], pid[24];

	snprintf(pid, sizeof pid, "%ld", rep->pid);
	promtext_label spec_l[] = { { "spec", rep->spec_name }, { "pid", pid },
				    { "binary", rep->binary } };
	prom_sample(out, &target_info, "", spec_l, 3, "1");
	promtext_seconds(v, sizeof v, rep->duration_ns);
	prom_sample(out, &window, "", spec_l, 1, v);
	if (rep->start_unix_ns) {
		snprintf(v, sizeof v, "%llu.%06llu",
			 (unsigned long long)(rep->start_unix_ns / 1000000000ull),
			 (unsigned long long)(rep->start_unix_ns % 1000000000ull / 1000));
		prom_sample(out, &started, "", spec_l, 1, v);
	}
	prom_sample(out, &partial, "", spec_l, 1, rep->partial ? "1" : "0");
	promtext_u64(v, sizeof v, rep->lost_events);
	prom_sample(out, &lost, "", spec_l, 1, v);

	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name } };
		prom_sample(out, &attached, "", ls, 2, p->attached ? "1" : "0");
	}
	for (int k = 0; k < N_PROBE_KINDS; k++)
		kind_ops_of((probe_kind)k)->prom(out, rep);
	put_thread_totals(out, &thread_time, &thread_calls, rep);
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->prom)
			(*f)->prom(out, rep);

	/* A full disk shows only when the buffer is written out. */
	if (fflush(out) == EOF || ferror(out))
		return -1;
	return 0;
}
