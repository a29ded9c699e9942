/* render_html — what the files of the HTML report share: the page
 * (render_html.c), its pictures (render_html_charts.c) and the sections
 * features add (model/feature.h's html).  Not for other modules: render.h
 * has render_html.
 *
 * A stream is the reports of consecutive intervals (REPS[0..N)), one
 * heatmap column each; a single report is a stream of one.  Probes and
 * threads are found by name and tid in each report, so an interval that
 * lacks one (no calls, thread not yet started) leaves its column empty. */
#ifndef BPFSPEC_RENDER_HTML_H
#define BPFSPEC_RENDER_HTML_H

#include <stdbool.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>

#include "model/report.h"

#define HTML_HEAT_LEVELS 9	/* classes h0..h8 of report.css */

/* NS as the text view writes a duration ("412.3ms"). */
void html_put_dur(FILE *out, uint64_t ns);

/* A table cell of a duration, sortable by its nanoseconds ("-" when not
 * HAVE); of a count. */
void html_td_dur(FILE *out, uint64_t ns, bool have);
void html_td_count(FILE *out, uint64_t v);

/* "name (tid N, main)" of thread TID whose name is NAME (NULL: gone),
 * escaped for HTML; "all threads" for tid 0. */
void html_put_thread(FILE *out, const char *name, long tid, report_pids pids);

/* Probe NAME of REP, or NULL. */
const report_probe *html_probe_named(const report *rep, const char *name);

/* P's group of thread TID (0: not per thread), or NULL (P may be NULL). */
const report_group *html_group_of(const report_probe *p, long tid);

/* Adds ST to ACC (counts, sum, extremes, buckets by bound) and computes
 * ACC's percentiles again.  ACC's buckets are owned (free them).
 * Returns 0, or -1 when out of memory (ACC unchanged). */
int html_merge_stats(report_stats *acc, const report_stats *st);

/* What one figure draws: thread TID's durations of probe PROBE, or
 * (SYSCALL not NULL) one syscall's of a syscalls probe, or (SPAN) one
 * row of a span probe: stage STAGE (NULL: whole spans) and label LABEL
 * (NULL: none; "other" with OTHER), or (HTTP) one route of an http
 * probe: METHOD and ROUTE (the routes past the spec's limit with
 * OTHER). */
typedef struct html_series {
	const char *probe;
	long tid;
	const char *syscall;
	bool span;
	const char *stage, *label;
	bool other;
	bool http;
	const char *method, *route;
} html_series;

/* Whether A and B (either may be NULL) are the same text. */
static inline bool html_same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* S's statistics in REP, or NULL when REP does not have it. */
const report_stats *html_series_stats(const report *rep, const html_series *s);

/* The latency heatmap of S over the stream: x is the interval
 * (INTERVAL_NS long), y the bucket (log scale), a cell's heat its count.
 * A <figure class="heatmap"> whose data-cells hold every non-empty bucket
 * of every interval, and whose canvas the page's script draws with one
 * pixel per cell (render_html_charts.c says how they are packed).
 * Nothing when S has no bucket in any interval. */
void html_heatmap(FILE *out, const report *const *reps, size_t n, const html_series *s,
		  uint64_t interval_ns);

/* S's buckets in REP as bars (one rect.bar each) over a log latency axis. */
void html_histogram(FILE *out, const report *rep, const html_series *s, uint64_t window_ns);

/* The busy share of thread S->tid of utilization probe S->probe per
 * interval: a <figure class="util"> (data-busy) the script draws. */
void html_utilization_strip(FILE *out, const report *const *reps, size_t n, const html_series *s,
			    uint64_t interval_ns);

/* Http probe NAME's routes over REPS[0..N) (render_html_routes.c): a
 * table, slowest p99 first, and a figure per route (a heatmap over the
 * intervals of INTERVAL_NS, or, for one report, a histogram of its
 * WINDOW_NS).  Returns 0, or -1 when out of memory. */
int html_put_routes(FILE *out, const report *const *reps, size_t n, const char *name,
		    uint64_t interval_ns, uint64_t window_ns);

#endif
