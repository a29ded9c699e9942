/* render_prom — the Prometheus text exposition format 0.0.4 (see render.h;
 * names, types and why the counts are gauges: docs/report.md, section
 * "Prometheus").
 *
 * Every value is the window's: histograms keep their type (the only way
 * to expose a distribution in 0.0.4), the other counts are gauges.  All
 * histograms share one fixed bucket layout, powers of two from 2^10 ns to
 * 2^35 ns, so that series can be summed by `le` across threads, probes,
 * runs and hosts.  Durations are printed as exact decimal seconds from
 * the integer nanoseconds.  No sample carries a timestamp. */
#include "render.h"

#include "safe.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define LE_FIRST 10	/* le="0.000001024": 2^10 ns, about 1 us */
#define LE_LAST 35	/* le="34.359738368": 2^35 ns, about 34 s */
#define LE_N (LE_LAST - LE_FIRST + 1)

/* One metric family: its HELP and TYPE lines are written before its first
 * sample, so a family without samples leaves no trace. */
typedef struct family {
	const char *name;
	const char *type;
	const char *help;
	bool started;
} family;

typedef struct label {
	const char *name;
	const char *value;	/* NULL is written as "" (the label is then absent) */
} label;

/* Formats NS as exact decimal seconds, trailing zeros dropped:
 * 11100000 -> "0.0111", 2000000000 -> "2" (32 bytes hold any). */
static void fmt_seconds(char *out, size_t len, uint64_t ns)
{
	uint64_t s = ns / 1000000000u, frac = ns % 1000000000u;

	if (!frac) {
		snprintf(out, len, "%llu", (unsigned long long)s);
		return;
	}
	int n = snprintf(out, len, "%llu.%09llu", (unsigned long long)s, (unsigned long long)frac);
	while (n > 0 && (size_t)n < len && out[n - 1] == '0')
		out[--n] = '\0';
}

static void fmt_u64(char *out, size_t len, uint64_t v)
{
	snprintf(out, len, "%llu", (unsigned long long)v);
}

/* Writes one sample of F: NAME+SUFFIX{LABELS} VALUE, with F's HELP and
 * TYPE lines first when it is F's first sample. */
static void put_sample(FILE *out, family *f, const char *suffix, const label *ls, size_t n,
		       const char *value)
{
	if (!f->started) {
		fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name, f->type);
		f->started = true;
	}
	fprintf(out, "%s%s", f->name, suffix);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%c%s=\"", i ? ',' : '{', ls[i].name);
		if (ls[i].value)	/* the target's strings: safe.h's text form */
			safe_fputs_prom_label(ls[i].value, out);
		fputc('"', out);
	}
	fprintf(out, "%s %s\n", n ? "}" : "", value);
}

/* Writes histogram ST of F with labels LS[0..N) (LS has room for one
 * more: le).  The log-linear buckets fold onto the fixed power-of-two
 * bounds: a bucket [lo, hi) counts toward le=2^k ns when hi <= 2^k, so
 * every value it counts is below le; buckets past 2^LE_LAST ns count in
 * +Inf only.  _count (== the +Inf bucket) and _sum are exact. */
static void put_histogram(FILE *out, family *f, label *ls, size_t n, const report_stats *st)
{
	uint64_t per_le[LE_N] = { 0 }, total = 0;
	char v[32], le[32];

	for (size_t i = 0; i < st->n_buckets; i++) {
		const report_bucket *b = &st->buckets[i];
		total += b->count;
		for (int k = LE_FIRST; k <= LE_LAST; k++)
			if (b->hi_ns <= (uint64_t)1 << k) {
				per_le[k - LE_FIRST] += b->count;
				break;
			}
	}
	/* The report derives count from the buckets; should they ever
	 * disagree, the larger keeps the series cumulative. */
	if (st->count > total)
		total = st->count;
	uint64_t cum = 0;
	ls[n].name = "le";
	ls[n].value = le;
	for (int k = LE_FIRST; k <= LE_LAST; k++) {
		cum += per_le[k - LE_FIRST];
		fmt_seconds(le, sizeof le, (uint64_t)1 << k);
		fmt_u64(v, sizeof v, cum);
		put_sample(out, f, "_bucket", ls, n + 1, v);
	}
	snprintf(le, sizeof le, "+Inf");
	fmt_u64(v, sizeof v, total);
	put_sample(out, f, "_bucket", ls, n + 1, v);
	fmt_seconds(v, sizeof v, st->sum_ns);
	put_sample(out, f, "_sum", ls, n, v);
	fmt_u64(v, sizeof v, total);
	put_sample(out, f, "_count", ls, n, v);
}

/* Per-thread totals of the latency and syscalls probes. */
/* The labels of thread group GR of probe P: spec, probe, tid, thread and
 * main, into LS; TID (24 bytes) holds the tid as text. */
static void thread_labels(label ls[5], char tid[24], const report *rep, const report_probe *p,
			  const report_group *gr)
{
	snprintf(tid, 24, "%ld", gr->tid);
	ls[0] = (label){ "spec", rep->spec_name };
	ls[1] = (label){ "probe", p->name };
	ls[2] = (label){ "tid", tid };
	ls[3] = (label){ "thread", gr->thread };
	ls[4] = (label){ "main", rep->pid > 0 && gr->tid == rep->pid ? "true" : "false" };
}

static void put_threads(FILE *out, family *time_f, family *calls_f, const report *rep)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < rep->n_probes; i++) {
			const report_probe *p = &rep->probes[i];
			if (!p->attached || !((p->kind == PROBE_LATENCY) || (p->kind == PROBE_SYSCALLS)))
				continue;
			for (size_t g = 0; g < p->n_groups; g++) {
				const report_group *gr = &p->groups[g];
				char tid[24], v[32];
				label ls[5];
				if (gr->tid == 0)	/* the probe is not per thread */
					continue;
				thread_labels(ls, tid, rep, p, gr);
				if (pass == 0)
					fmt_seconds(v, sizeof v, gr->st.sum_ns);
				else
					fmt_u64(v, sizeof v, gr->st.count);
				put_sample(out, pass == 0 ? time_f : calls_f, "", ls, 5, v);
			}
		}
}

int render_prom(FILE *out, const report *rep)
{
	family target_info = { "bpfspec_target_info", "gauge",
			  "The traced process (pid 0: none) and its executable; always 1.", false };
	family window = { "bpfspec_window_seconds", "gauge",
			  "Length of the measured window; every other value is for this window.",
			  false };
	family started = { "bpfspec_window_start_timestamp_seconds", "gauge",
			   "When the window began, in seconds since the Unix epoch.", false };
	family partial = { "bpfspec_report_partial", "gauge",
			   "1 when the window was cut short (target exited, bpftrace died or was killed).",
			   false };
	family lost = { "bpfspec_lost_events", "gauge",
			"Events bpftrace reported lost in the window (figures are then too low).",
			false };
	family attached = { "bpfspec_probe_attached", "gauge",
			    "1 when the probe was attached, 0 when it was skipped.", false };
	family latency = { "bpfspec_latency_seconds", "histogram",
			   "Latency of the probed function in the window, all threads together.",
			   false };
	family thread_time = { "bpfspec_thread_time_seconds", "gauge",
			       "Time the thread spent in the probe's calls in the window.", false };
	family thread_calls = { "bpfspec_thread_calls", "gauge",
				"Calls the thread completed in the window.", false };
	family sys_latency = { "bpfspec_syscall_latency_seconds", "histogram",
			       "Latency of the syscall in the window, all threads together.", false };
	family sys_errors = { "bpfspec_syscall_errors", "gauge",
			      "Calls of the syscall that failed with this errno in the window.", false };
	family events = { "bpfspec_events", "gauge",
			  "Calls at least as slow as the probe's threshold in the window, recorded or not.",
			  false };
	family dropped = { "bpfspec_events_dropped", "gauge",
			   "Slow calls not recorded in the window (over the probe's limit).", false };
	family hits = { "bpfspec_probe_hits", "gauge",
			"Hits of a count probe's probe point in the window, all threads together.",
			false };
	family thread_hits = { "bpfspec_thread_probe_hits", "gauge",
			       "Hits of a count probe's probe point by the thread in the window.",
			       false };
	family util = { "bpfspec_thread_utilization_ratio", "gauge",
			"Share of the window the thread was busy (not waiting in epoll), 0 to 1.",
			false };
	family idle = { "bpfspec_thread_idle_seconds", "gauge",
			"Time the thread waited in epoll in the window.", false };
	char v[32], pid[24];

	snprintf(pid, sizeof pid, "%ld", rep->pid);
	label spec_l[4] = { { "spec", rep->spec_name }, { "pid", pid }, { "binary", rep->binary } };
	put_sample(out, &target_info, "", spec_l, 3, "1");
	fmt_seconds(v, sizeof v, rep->duration_ns);
	put_sample(out, &window, "", spec_l, 1, v);
	if (rep->start_unix_ns) {
		snprintf(v, sizeof v, "%llu.%06llu",
			 (unsigned long long)(rep->start_unix_ns / 1000000000ull),
			 (unsigned long long)(rep->start_unix_ns % 1000000000ull / 1000));
		put_sample(out, &started, "", spec_l, 1, v);
	}
	put_sample(out, &partial, "", spec_l, 1, rep->partial ? "1" : "0");
	fmt_u64(v, sizeof v, rep->lost_events);
	put_sample(out, &lost, "", spec_l, 1, v);

	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		label ls[] = { { "spec", rep->spec_name }, { "probe", p->name } };
		put_sample(out, &attached, "", ls, 2, p->attached ? "1" : "0");
	}
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		if (!p->attached || p->kind != PROBE_LATENCY)
			continue;
		label ls[4] = { { "spec", rep->spec_name }, { "probe", p->name },
				{ "function", p->function } };
		put_histogram(out, &latency, ls, 3, &p->st);
	}
	put_threads(out, &thread_time, &thread_calls, rep);
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		if (!p->attached || p->kind != PROBE_SYSCALLS)
			continue;
		for (size_t s = 0; s < p->n_syscalls; s++) {
			label ls[4] = { { "spec", rep->spec_name }, { "probe", p->name },
					{ "syscall", p->syscalls[s].name } };
			put_histogram(out, &sys_latency, ls, 3, &p->syscalls[s].st);
		}
	}
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		if (!p->attached || p->kind != PROBE_SYSCALLS)
			continue;
		for (size_t s = 0; s < p->n_syscalls; s++)
			for (size_t e = 0; e < p->syscalls[s].n_errors; e++) {
				const report_errno *er = &p->syscalls[s].errors[e];
				label ls[] = { { "spec", rep->spec_name }, { "probe", p->name },
					       { "syscall", p->syscalls[s].name },
					       { "errno", er->name } };
				fmt_u64(v, sizeof v, er->count);
				put_sample(out, &sys_errors, "", ls, 4, v);
			}
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < rep->n_probes; i++) {
			const report_probe *p = &rep->probes[i];
			if (!p->attached || p->kind != PROBE_EVENTS)
				continue;
			label ls[] = { { "spec", rep->spec_name }, { "probe", p->name } };
			fmt_u64(v, sizeof v, pass == 0 ? p->st.count : p->events_dropped);
			put_sample(out, pass == 0 ? &events : &dropped, "", ls, 2, v);
		}

	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		if (!p->attached || p->kind != PROBE_COUNT)
			continue;
		label ls[] = { { "spec", rep->spec_name }, { "probe", p->name } };
		fmt_u64(v, sizeof v, p->st.count);
		put_sample(out, &hits, "", ls, 2, v);
	}
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		if (!p->attached || p->kind != PROBE_COUNT)
			continue;
		for (size_t g = 0; g < p->n_groups; g++) {
			const report_group *gr = &p->groups[g];
			char tid[24];
			label ls[5];
			if (gr->tid == 0)	/* the probe is not per thread */
				continue;
			thread_labels(ls, tid, rep, p, gr);
			fmt_u64(v, sizeof v, gr->st.count);
			put_sample(out, &thread_hits, "", ls, 5, v);
		}
	}

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < rep->n_probes; i++) {
			const report_probe *p = &rep->probes[i];
			if (!p->attached || p->kind != PROBE_UTILIZATION)
				continue;
			for (size_t g = 0; g < p->n_groups; g++) {
				const report_group *gr = &p->groups[g];
				char tid[24];
				label ls[5];
				thread_labels(ls, tid, rep, p, gr);
				if (pass == 0)
					snprintf(v, sizeof v, "%.6f", gr->utilization);
				else
					fmt_seconds(v, sizeof v, gr->idle_ns);
				put_sample(out, pass == 0 ? &util : &idle, "", ls, 5, v);
			}
		}

	/* A full disk shows only when the buffer is written out. */
	if (fflush(out) == EOF || ferror(out))
		return -1;
	return 0;
}
