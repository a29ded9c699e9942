/* render — writes a report for people (text), programs (JSON) or
 * Prometheus (text exposition format 0.0.4).
 *
 * JSON is the contract runbooks rely on (schema version
 * BPFSPEC_REPORT_SCHEMA, see docs/report.md): within a schema fields are
 * only ever added, a rename comes with the next number; all durations are
 * integer nanoseconds.
 *
 * Every function returns 0, or -1 when writing to OUT failed (the caller
 * reports it: a full disk or a closed pipe must not pass silently). */
#ifndef BPFSPEC_RENDER_H
#define BPFSPEC_RENDER_H

#include <stdio.h>

#include "model/report.h"

int render_text(FILE *out, const report *rep);
/* The lines of the text view that warn of REP's figures: PARTIAL (why
 * the run was cut short) and lost events, each after INDENT.  The text
 * view and diff's print them alike. */
void render_text_warnings(FILE *out, const report *rep, const char *indent);
int render_json(FILE *out, const report *rep);

/* The same JSON on one line (NDJSON, for -i intervals). */
int render_json_line(FILE *out, const report *rep);

/* Writes REP as Prometheus metrics (format 0.0.4, for node_exporter's
 * textfile collector or a Pushgateway): families bpfspec_*, every value
 * the window's, histograms in seconds on fixed power-of-two buckets, other
 * counts as gauges, label values escaped, no sample timestamps (the window's start is
 * the gauge bpfspec_window_start_timestamp_seconds; docs/report.md,
 * "Prometheus").  Returns 0, or -1 when writing to OUT failed. */
int render_prom(FILE *out, const report *rep);

/* Writes one self-contained HTML page of the reports REPS[0..N) (N >= 1):
 * consecutive intervals of one run (-i, or an NDJSON stream read back),
 * or one report.  The page holds its style and its one script inline,
 * allowed by their hashes in a Content-Security-Policy that forbids every
 * fetch; everything on it is computed from the report model (the summary
 * over all intervals, a latency heatmap per probe and thread, histograms
 * for a single window, utilization strips, syscalls and events tables),
 * and every string the traced process controls is escaped (safe.h).
 * Returns 0, or -1 when writing to OUT failed or out of memory. */
int render_html(FILE *out, const report *const *reps, size_t n);

/* Writes the reports REPS[0..N) (N >= 1, consecutive intervals of one
 * run) as one Chrome Trace Event JSON file (Perfetto UI, chrome://tracing):
 * a track per thread with the slices of latency probes (-o trace records
 * them) and the records of events probes, nested by time, utilization as
 * counters, timestamps in microseconds of CLOCK_MONOTONIC (render_trace.c).
 * Returns 0, or -1 when writing to OUT failed or out of memory. */
int render_trace(FILE *out, const report *const *reps, size_t n);

/* Every sampled stack of REP (attribution's 'stacks'), one line each in
 * the folded form flame graph tools read:
 * "PHASE;THREAD_(tid_N);OUTER;...;INNER SAMPLES".  Returns 0, or -1 when
 * writing failed. */
int render_folded(FILE *out, const report *rep);

#endif
