/* render_text — the terminal view of a report (see render.h).
 *
 * A summary table (one row per probe), then per probe a histogram with
 * bars in the style of bcc's tools (log2 rows folded from the finer
 * buckets, empty rows at both ends trimmed) and, when the probe ran on
 * more than one thread, a per-thread table. */
#include "render.h"

#include "safe.h"
#include "units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BAR_WIDTH 40
/* The THREAD column: a thread name (15 bytes at most in the kernel) and
 * " (main)"; event tables have no suffix.  Names are written through
 * safe_fputs_cell, so a hostile one is cut to the column, never wider. */
#define THREAD_COLS 22
#define EVENT_THREAD_COLS 16

/* Spaces that pad S's text form to WIDTH columns (0 when it is wider:
 * our own names, such as syscalls', push the row rather than lose
 * letters). */
static int pad_to(size_t width, const char *s)
{
	size_t cols = safe_width(s);
	return cols < width ? (int)(width - cols) : 0;
}

/* A thread's name in the THREAD column, " (main)" after pid's own. */
static void thread_cell(FILE *out, const report_group *gr, long pid)
{
	safe_fputs_cell(gr->thread, pid > 0 && gr->tid == pid ? " (main)" : NULL, THREAD_COLS, out);
}

/* Formats NS in UNIT with 3-4 significant digits. */
static void fmt_dur(char *out, size_t len, uint64_t ns, uint64_t per_unit, const char *unit)
{
	double v = (double)ns / (double)per_unit;
	/* Past 99999 of a unit, the next one up reads better. */
	if (v >= 100000 && per_unit < 1000000000ull && unit && *unit) {
		time_unit up = unit_for(per_unit * 1000);
		fmt_dur(out, len, ns, unit_ns(up), unit_name(up));
		return;
	}
	if (v == 0)
		snprintf(out, len, "0%s", unit);
	else if (v >= 1000)
		snprintf(out, len, "%.0f%s", v, unit);
	else if (v >= 100)
		snprintf(out, len, "%.1f%s", v, unit);
	else if (v >= 10)
		snprintf(out, len, "%.2f%s", v, unit);
	else
		snprintf(out, len, "%.3f%s", v, unit);
}

/* Formats NS with the unit that suits its size: 512ns, 1.05us, 40.3ms. */
static void fmt_auto(char *out, size_t len, uint64_t ns)
{
	time_unit u = unit_for(ns);
	if (u == UNIT_NS)
		snprintf(out, len, "%lluns", (unsigned long long)ns);
	else
		fmt_dur(out, len, ns, unit_ns(u), unit_name(u));
}

static void stats_row(FILE *out, const report_stats *st, const report_probe *p,
		      uint64_t window_ns)
{
	char total[32], mean[32], p50[32], p90[32], p99[32], max[32];
	fmt_dur(total, sizeof total, st->sum_ns, p->unit_ns, p->unit);
	fmt_dur(mean, sizeof mean, st->count ? st->sum_ns / st->count : 0, p->unit_ns, p->unit);
	fmt_dur(p50, sizeof p50, st->p50_ns, p->unit_ns, p->unit);
	fmt_dur(p90, sizeof p90, st->p90_ns, p->unit_ns, p->unit);
	fmt_dur(p99, sizeof p99, st->p99_ns, p->unit_ns, p->unit);
	fmt_dur(max, sizeof max, st->max_ns, p->unit_ns, p->unit);
	double share = window_ns ? 100.0 * (double)st->sum_ns / (double)window_ns : 0;
	fprintf(out, "%10llu %11s %6.1f%% %10s %10s %10s %10s %10s\n",
		(unsigned long long)st->count, total, share, mean, p50, p90, p99, max);
}

static void histogram(FILE *out, const report_probe *p)
{
	uint64_t rows[65] = { 0 };
	int first = -1, last = -1;
	uint64_t peak = 0;

	for (size_t i = 0; i < p->st.n_buckets; i++) {
		const report_bucket *b = &p->st.buckets[i];
		int r = b->lo_ns == 0 ? 0 : 64 - __builtin_clzll(b->lo_ns);
		rows[r] += b->count;
	}
	for (int r = 0; r < 65; r++) {
		if (!rows[r])
			continue;
		if (first < 0)
			first = r;
		last = r;
		if (rows[r] > peak)
			peak = rows[r];
	}
	if (first < 0)
		return;
	fprintf(out, "  %-25s : %-8s %s\n", "duration", "count", "distribution");
	for (int r = first; r <= last; r++) {
		uint64_t lo = r == 0 ? 0 : (uint64_t)1 << (r - 1);
		uint64_t hi = r == 0 ? 1 : (r == 64 ? UINT64_MAX : ((uint64_t)1 << r));
		char a[32], b[32], range[80], bar[BAR_WIDTH + 1];
		fmt_auto(a, sizeof a, lo);
		fmt_auto(b, sizeof b, hi);
		snprintf(range, sizeof range, "%s -> %s", a, b);
		int n = peak ? (int)((rows[r] * BAR_WIDTH + peak - 1) / peak) : 0;
		memset(bar, '*', (size_t)n);
		memset(bar + n, ' ', (size_t)(BAR_WIDTH - n));
		bar[BAR_WIDTH] = '\0';
		fprintf(out, "  %25s : %-8llu |%s|\n", range, (unsigned long long)rows[r], bar);
	}
}

static void syscall_table(FILE *out, const report_probe *p, long pid)
{
	fputc('\n', out);
	safe_fputs(p->name, out);
	fputs(": syscalls, slowest total first\n", out);
	fprintf(out, "  %-18s %10s %11s %10s %10s %10s %10s  %s\n", "SYSCALL", "COUNT", "TOTAL",
		"MEAN", "P50~", "P99~", "MAX", "ERRORS");
	for (size_t i = 0; i < p->n_syscalls; i++) {
		const report_syscall *sc = &p->syscalls[i];
		char total[32], mean[32], p50[32], p99[32], max[32];
		fmt_dur(total, sizeof total, sc->st.sum_ns, p->unit_ns, p->unit);
		fmt_dur(mean, sizeof mean, sc->st.count ? sc->st.sum_ns / sc->st.count : 0,
			p->unit_ns, p->unit);
		fmt_dur(p50, sizeof p50, sc->st.p50_ns, p->unit_ns, p->unit);
		fmt_dur(p99, sizeof p99, sc->st.p99_ns, p->unit_ns, p->unit);
		fmt_dur(max, sizeof max, sc->st.max_ns, p->unit_ns, p->unit);
		fputs("  ", out);
		safe_fputs(sc->name, out);
		fprintf(out, "%*s", pad_to(18, sc->name), "");
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
	if (p->n_groups > 1) {
		fprintf(out, "\n  %-8s %-*s %10s %11s %10s\n", "TID", THREAD_COLS, "THREAD", "COUNT",
			"TOTAL", "MAX");
		for (size_t g = 0; g < p->n_groups; g++) {
			const report_group *gr = &p->groups[g];
			char total[32], max[32];
			fmt_dur(total, sizeof total, gr->st.sum_ns, p->unit_ns, p->unit);
			fmt_dur(max, sizeof max, gr->st.max_ns, p->unit_ns, p->unit);
			fprintf(out, "  %-8ld ", gr->tid);
			thread_cell(out, gr, pid);
			fprintf(out, " %10llu %11s %10s\n", (unsigned long long)gr->st.count, total, max);
		}
	}
}

/* Records of an events probe on a probe point: NAME=VALUE per argument. */
static void point_event_table(FILE *out, const report_probe *p)
{
	fputc('\n', out);
	safe_fputs(p->name, out);
	fprintf(out, ": %zu hits of ", p->n_events);
	safe_fputs(p->probe, out);
	fputs(" recorded", out);
	if (p->events_dropped)
		fprintf(out, ", %llu more not recorded (over the limit)",
			(unsigned long long)p->events_dropped);
	fputc('\n', out);
	if (!p->n_events)
		return;
	fprintf(out, "  %10s %-8s %-*s %s\n", "TIME(s)", "TID", EVENT_THREAD_COLS, "THREAD",
		"ARGUMENTS");
	for (size_t i = 0; i < p->n_events; i++) {
		const report_event *ev = &p->events[i];
		fprintf(out, "  %10.6f %-8ld ", (double)ev->t_ns / 1e9, ev->tid);
		safe_fputs_cell(ev->thread, NULL, EVENT_THREAD_COLS, out);
		for (size_t a = 0; a < ev->n_args; a++) {
			const report_value *v = &ev->args[a];
			fputc(' ', out);
			safe_fputs(v->name, out);
			fputc('=', out);
			if (v->type == REPORT_VALUE_STRING)
				safe_fputs_quoted(v->s, out);
			else if (v->type == REPORT_VALUE_INT)
				fprintf(out, "%lld", v->i);
			else
				fprintf(out, "%llu", v->u);
			if (v->truncated)
				fputs("(truncated)", out);
		}
		fputc('\n', out);
	}
}

static void event_table(FILE *out, const report_probe *p)
{
	char thr[32];
	if (p->probe) {
		point_event_table(out, p);
		return;
	}
	fmt_dur(thr, sizeof thr, p->threshold_ns, p->unit_ns, p->unit);
	fputc('\n', out);
	safe_fputs(p->name, out);
	fprintf(out, ": %zu calls of at least %s recorded", p->n_events, thr);
	if (p->events_dropped)
		fprintf(out, ", %llu more not recorded (over the limit)",
			(unsigned long long)p->events_dropped);
	fputc('\n', out);
	if (!p->n_events)
		return;
	fprintf(out, "  %10s %-8s %-*s %-14s %10s %-14s %s\n", "TIME(s)", "TID", EVENT_THREAD_COLS, "THREAD",
		"SYSCALL", "LATENCY", "RESULT", "ARGUMENT");
	for (size_t i = 0; i < p->n_events; i++) {
		const report_event *ev = &p->events[i];
		char lat[32], res[48];
		fmt_dur(lat, sizeof lat, ev->latency_ns, p->unit_ns, p->unit);
		if (ev->error) {
			char *error = safe_text(ev->error);
			snprintf(res, sizeof res, "%lld %s", ev->ret, error ? error : "?");
			free(error);
		}
		else
			snprintf(res, sizeof res, "%lld", ev->ret);
		fprintf(out, "  %10.6f %-8ld ", (double)ev->t_ns / 1e9, ev->tid);
		safe_fputs_cell(ev->thread, NULL, EVENT_THREAD_COLS, out);
		fputc(' ', out);
		safe_fputs(ev->syscall, out);
		fprintf(out, "%*s", pad_to(14, ev->syscall), "");
		fprintf(out, " %10s %-14s ", lat, res);
		if (ev->path)
			safe_fputs(ev->path, out);
		else if (ev->address)
			safe_fputs(ev->address, out);
		else if (ev->has_length)
			fprintf(out, "%llu", (unsigned long long)ev->length);
		fputc('\n', out);
	}
}

/* A count probe's hits per thread, when there are several threads. */
static void count_table(FILE *out, const report_probe *p, long pid)
{
	if (p->n_groups < 2)
		return;
	fputc('\n', out);
	safe_fputs(p->name, out);
	fputs(": hits of ", out);
	safe_fputs(p->probe, out);
	fprintf(out, " per thread\n  %-8s %-*s %10s\n", "TID", THREAD_COLS, "THREAD", "COUNT");
	for (size_t g = 0; g < p->n_groups; g++) {
		const report_group *gr = &p->groups[g];
		fprintf(out, "  %-8ld ", gr->tid);
		thread_cell(out, gr, pid);
		fprintf(out, " %10llu\n", (unsigned long long)gr->st.count);
	}
}

/* A utilization probe: busy and idle time of each thread that waited in
 * epoll, then the waits' distribution. */
static void utilization_table(FILE *out, const report_probe *p, const report *rep)
{
	fputc('\n', out);
	safe_fputs(p->name, out);
	fputs(": busy vs idle (waiting in epoll) per thread, as eventLoopUtilization\n", out);
	fprintf(out, "  %-8s %-*s %8s %11s %11s %10s %10s %10s\n", "TID", THREAD_COLS, "THREAD",
		"UTIL", "BUSY", "IDLE", "WAITS", "P50~", "MAX");
	for (size_t g = 0; g < p->n_groups; g++) {
		const report_group *gr = &p->groups[g];
		char busy[32], idle[32], p50[32], max[32];
		fmt_auto(busy, sizeof busy, gr->busy_ns);
		fmt_auto(idle, sizeof idle, gr->idle_ns);
		fmt_auto(p50, sizeof p50, gr->st.p50_ns);
		fmt_auto(max, sizeof max, gr->st.max_ns);
		fprintf(out, "  %-8ld ", gr->tid);
		thread_cell(out, gr, rep->pid);
		fprintf(out, " %7.1f%% %11s %11s %10llu %10s %10s\n", 100.0 * gr->utilization, busy,
			idle, (unsigned long long)gr->st.count, p50, max);
	}
	if (p->st.count)
		histogram(out, p);
}

/* Probe P's row of the summary table, after its name (attached). */
static void summary_row(FILE *out, const report_probe *p, const report *rep)
{
	char thr[32];

	switch (p->kind) {
	case PROBE_COUNT:
		fprintf(out, "%10llu hits of ", (unsigned long long)p->st.count);
		safe_fputs(p->probe, out);
		fputc('\n', out);
		break;
	case PROBE_UTILIZATION:
		fprintf(out, "%10llu waits in epoll; busiest thread %.1f%% busy (below)\n",
			(unsigned long long)p->st.count, 100.0 * p->utilization);
		break;
	case PROBE_EVENTS:
		if (p->probe) {
			fprintf(out, "%10llu hits of ", (unsigned long long)p->st.count);
			safe_fputs(p->probe, out);
			fputs(" (records below)\n", out);
			break;
		}
		fmt_dur(thr, sizeof thr, p->threshold_ns, p->unit_ns, p->unit);
		fprintf(out, "%10llu calls of at least %s (records below)\n",
			(unsigned long long)p->st.count, thr);
		break;
	case PROBE_LATENCY:
	case PROBE_SYSCALLS:
		stats_row(out, &p->st, p, rep->duration_ns);
		break;
	}
}

/* A latency probe's histogram and, with several threads, its per-thread
 * table. */
static void latency_details(FILE *out, const report_probe *p, const report *rep)
{
	fputc('\n', out);
	safe_fputs(p->name, out);
	fputs(": ", out);
	if (p->derived) {
		safe_fputs(p->derived, out);
	} else {
		safe_fputs(p->function, out);
		fputs(" in ", out);
		safe_fputs(p->object, out);
	}
	fputc('\n', out);
	histogram(out, p);
	if (p->n_groups > 1) {
		fprintf(out, "\n  %-8s %-*s %10s %11s %7s %10s %10s %10s %10s %10s\n", "TID",
			THREAD_COLS, "THREAD", "COUNT", "TOTAL", "%WIN", "MEAN", "P50~", "P90~", "P99~",
			"MAX");
		for (size_t g = 0; g < p->n_groups; g++) {
			const report_group *gr = &p->groups[g];
			fprintf(out, "  %-8ld ", gr->tid);
			thread_cell(out, gr, rep->pid);
			fputc(' ', out);
			stats_row(out, &gr->st, p, rep->duration_ns);
		}
	}
}

/* What follows the summary for attached probe P: its kind's table. */
static void probe_details(FILE *out, const report_probe *p, const report *rep)
{
	if (p->kind != PROBE_EVENTS && p->st.count == 0 && p->n_groups == 0)
		return;	/* nothing seen */
	switch (p->kind) {
	case PROBE_EVENTS:
		event_table(out, p);
		break;
	case PROBE_COUNT:
		count_table(out, p, rep->pid);
		break;
	case PROBE_SYSCALLS:
		syscall_table(out, p, rep->pid);
		break;
	case PROBE_UTILIZATION:
		utilization_table(out, p, rep);
		break;
	case PROBE_LATENCY:
		latency_details(out, p, rep);
		break;
	}
}

int render_text(FILE *out, const report *rep)
{
	char dur[32], from[48] = "";
	fmt_dur(dur, sizeof dur, rep->duration_ns, 1000000000ull, " s");
	if (rep->start_unix_ns) {
		memcpy(from, " from ", 7);
		report_utc_stamp(from + 6, sizeof from - 6, rep->start_unix_ns, false);
	}
	fputs("bpfspec ", out);
	safe_fputs(rep->spec_name, out);
	if (rep->pid > 0) {
		fprintf(out, ": pid %ld (", rep->pid);
		safe_fputs(rep->binary, out);
		fputc(')', out);
	} else {
		fputs(": ", out);
		safe_fputs(rep->binary, out);
	}
	fprintf(out, ", window %s%s\n", dur, from);
	for (size_t i = 0; i < rep->n_params; i++) {
		fputs(i ? ", " : "parameters: ", out);
		safe_fputs(rep->param_names[i], out);
		fputc('=', out);
		safe_fputs(rep->param_values[i], out);
		fprintf(out, "%s%s", rep->param_set[i] ? " (set)" : "",
			i + 1 == rep->n_params ? "\n" : "");
	}
	if (rep->entry_only)
		fprintf(out, "timing: entry-only (each phase from its entry to the next phase's "
			"entry on its thread)\n");
	if (rep->partial) {
		fputs("PARTIAL: ", out);
		safe_fputs(rep->partial_reason ? rep->partial_reason : "run cut short", out);
		fputc('\n', out);
	}
	if (rep->lost_events)
		fprintf(out, "WARNING: bpftrace lost %llu events: figures are too low\n",
			(unsigned long long)rep->lost_events);
	if (rep->attached_probes >= 0 && rep->attached_probes < rep->expected_probes)
		fprintf(out, "WARNING: %ld of %ld probes attached\n", rep->attached_probes,
			rep->expected_probes);
	fprintf(out, "\n%-14s %10s %11s %7s %10s %10s %10s %10s %10s\n", "PROBE", "COUNT",
		"TOTAL", "%WIN", "MEAN", "P50~", "P90~", "P99~", "MAX");
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		/* Names past the column push the row, as before: a spec's
		 * own names are identifiers, only a report read back could
		 * hold anything else, and it is escaped. */
		safe_fputs(p->name, out);
		fprintf(out, "%s%*s ", p->derived ? "*" : "",
			pad_to(p->derived ? 13 : 14, p->name), "");
		if (!p->attached) {
			fputs("not attached: ", out);
			safe_fputs(p->reason ? p->reason : "unknown reason", out);
			fputc('\n', out);
			continue;
		}
		summary_row(out, p, rep);
	}
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		if (p->attached)
			probe_details(out, p, rep);
	}
	for (size_t i = 0; i < rep->n_probes; i++) {
		if (!rep->probes[i].derived)
			continue;
		fputs("\n* ", out);
		safe_fputs(rep->probes[i].name, out);
		fputs(": ", out);
		safe_fputs(rep->probes[i].derived, out);
	}
	for (size_t i = 0; i < rep->n_warnings; i++) {
		fputs("\nwarning: ", out);
		safe_fputs(rep->warnings[i], out);
	}
	fprintf(out, "\n~ percentiles are estimates: %s; count, total, min and max are exact.\n",
		REPORT_PERCENTILE_METHOD);
	fflush(out);
	return ferror(out) ? -1 : 0;
}
