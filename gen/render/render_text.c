/* render_text — the terminal view of a report (see render.h).
 *
 * A summary table (one row per probe), then per probe a histogram with
 * bars in the style of bcc's tools (log2 rows folded from the finer
 * buckets, empty rows at both ends trimmed) and, when the probe ran on
 * more than one thread, a per-thread table. */
#include "model/feature.h"
#include "render/render.h"
#include "render/render_internal.h"

#include "model/kind.h"

#include "util/safe.h"
#include "util/units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BAR_WIDTH 40

/* Our own names, such as syscalls', push the row rather than lose
 * letters. */
int text_pad_to(size_t width, const char *s)
{
	size_t cols = safe_width(s);
	return cols < width ? (int)(width - cols) : 0;
}

/* Names are written through safe_fputs_cell, so a hostile one is cut to
 * the column, never wider. */
void render_text_warnings(FILE *out, const report *rep, const char *indent)
{
	if (rep->partial) {
		fprintf(out, "%sPARTIAL: ", indent);
		safe_fputs(rep->partial_reason ? rep->partial_reason : "run cut short", out);
		fputc('\n', out);
	}
	if (rep->lost_events)
		fprintf(out, "%sWARNING: bpftrace lost %llu events: figures are too low\n", indent,
			(unsigned long long)rep->lost_events);
}

void text_thread_cell(FILE *out, const report_group *gr, report_pids pids)
{
	safe_fputs_cell(gr->thread, report_pids_has(pids, gr->tid) ? " (main)" : NULL,
			TEXT_THREAD_COLS, out);
}

void text_section(FILE *out, const report_probe *p)
{
	fputc('\n', out);
	safe_fputs(p->name, out);
	fputs(": ", out);
}

void text_fmt_dur(char *out, size_t len, uint64_t ns, uint64_t per_unit, const char *unit)
{
	double v = (double)ns / (double)per_unit;
	/* Past 99999 of a unit, the next one up reads better. */
	if (v >= 100000 && per_unit < 1000000000ull && unit && *unit) {
		time_unit up = unit_for(per_unit * 1000);
		text_fmt_dur(out, len, ns, unit_ns(up), unit_name(up));
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

void text_fmt_auto(char *out, size_t len, uint64_t ns)
{
	time_unit u = unit_for(ns);
	if (u == UNIT_NS)
		snprintf(out, len, "%lluns", (unsigned long long)ns);
	else
		text_fmt_dur(out, len, ns, unit_ns(u), unit_name(u));
}

void text_stats_row(FILE *out, const report_stats *st, const report_probe *p, uint64_t window_ns)
{
	char total[32], mean[32], p50[32], p90[32], p99[32], max[32];
	text_fmt_dur(total, sizeof total, st->sum_ns, p->unit_ns, p->unit);
	text_fmt_dur(mean, sizeof mean, st->count ? st->sum_ns / st->count : 0, p->unit_ns, p->unit);
	text_fmt_dur(p50, sizeof p50, st->p50_ns, p->unit_ns, p->unit);
	text_fmt_dur(p90, sizeof p90, st->p90_ns, p->unit_ns, p->unit);
	text_fmt_dur(p99, sizeof p99, st->p99_ns, p->unit_ns, p->unit);
	text_fmt_dur(max, sizeof max, st->max_ns, p->unit_ns, p->unit);
	double share = window_ns ? 100.0 * (double)st->sum_ns / (double)window_ns : 0;
	fprintf(out, "%10llu %11s %6.1f%% %10s %10s %10s %10s %10s\n",
		(unsigned long long)st->count, total, share, mean, p50, p90, p99, max);
}

void text_histogram(FILE *out, const report_stats *st)
{
	uint64_t rows[65] = { 0 };
	int first = -1, last = -1;
	uint64_t peak = 0;

	for (size_t i = 0; i < st->n_buckets; i++) {
		const report_bucket *b = &st->buckets[i];
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
		text_fmt_auto(a, sizeof a, lo);
		text_fmt_auto(b, sizeof b, hi);
		snprintf(range, sizeof range, "%s -> %s", a, b);
		int n = peak ? (int)((rows[r] * BAR_WIDTH + peak - 1) / peak) : 0;
		memset(bar, '*', (size_t)n);
		memset(bar + n, ' ', (size_t)(BAR_WIDTH - n));
		bar[BAR_WIDTH] = '\0';
		fprintf(out, "  %25s : %-8llu |%s|\n", range, (unsigned long long)rows[r], bar);
	}
}

int render_text(FILE *out, const report *rep)
{
	char dur[32], from[48] = "";
	text_fmt_dur(dur, sizeof dur, rep->duration_ns, 1000000000ull, " s");
	if (rep->start_unix_ns) {
		memcpy(from, " from ", 7);
		report_utc_stamp(from + 6, sizeof from - 6, rep->start_unix_ns, false);
	}
	fputs("bpfspec ", out);
	safe_fputs(rep->spec_name, out);
	if (rep->pid > 0) {
		fputs(": ", out);
		report_fput_pids(out, report_pids_of(rep));
		fputs(" (", out);
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
	render_text_warnings(out, rep, "");
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
			text_pad_to(p->derived ? 13 : 14, p->name), "");
		if (!p->attached) {
			fputs("not attached: ", out);
			safe_fputs(p->reason ? p->reason : "unknown reason", out);
			fputc('\n', out);
			continue;
		}
		kind_ops_of(p->kind)->text_row(out, p, rep);
	}
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->text)
			(*f)->text(out, rep);
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		if (p->attached)
			kind_ops_of(p->kind)->text_details(out, p, rep);
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
