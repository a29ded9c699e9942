/* render_html — the HTML report (render.h): the page, its header and
 * tables; the pictures are render_html_charts.c's. */
#include "render/render.h"

#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "model/feature.h"
#include "model/kind.h"
#include "render/render_html.h"
#include "render/render_internal.h"
#include "util/safe.h"
#include "util/version.h"

#define HTML_MAX_EVENT_ROWS 2000	/* an events table's rows, over all intervals */
#define HTML_MAX_THREADS 256		/* threads of one probe shown */
#define HTML_MAX_PROBES 256		/* probes over a stream */
#define HTML_TOP_SYSCALLS 5		/* a syscalls probe's figures: the slowest in total
					 * over the stream */

/* The run's facts, over the stream. */
typedef struct page {
	const report *const *reps;
	size_t n;
	const report *first, *last;
	uint64_t window_ns;	/* all intervals */
	uint64_t interval_ns;	/* the first's (every one's, but the last may be cut) */
	/* Each probe of the stream, once, in order of first appearance: the
	 * last interval's entry for it (what it is, whether it attached). */
	const report_probe *probes[HTML_MAX_PROBES];
	size_t n_probes;
} page;

void html_put_dur(FILE *out, uint64_t ns)
{
	char t[32];
	text_fmt_auto(t, sizeof t, ns);
	fputs(t, out);
}

void html_td_dur(FILE *out, uint64_t ns, bool have)
{
	if (!have) {
		fputs("<td data-sort=\"-1\">-</td>", out);
		return;
	}
	fprintf(out, "<td data-sort=\"%llu\">", (unsigned long long)ns);
	html_put_dur(out, ns);
	fputs("</td>", out);
}

void html_td_count(FILE *out, uint64_t v)
{
	fprintf(out, "<td data-sort=\"%llu\">%llu</td>", (unsigned long long)v, (unsigned long long)v);
}

void html_put_thread(FILE *out, const char *name, long tid, report_pids pids)
{
	if (tid == 0) {
		fputs("all threads", out);
		return;
	}
	safe_fputs_html(name ? name : "?", out);
	fprintf(out, " (tid %ld%s)", tid, report_pids_has(pids, tid) ? ", main" : "");
}

/* The tids of probe NAME's groups over the stream, in order of first
 * appearance, into TIDS (at most MAX) with a name for each.  Returns how
 * many. */
static size_t stream_threads(const page *pg, const char *name, long *tids, const char **names,
			     size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < pg->n; i++) {
		const report_probe *p = html_probe_named(pg->reps[i], name);
		for (size_t g = 0; p && g < p->n_groups; g++) {
			size_t k = 0;
			while (k < n && tids[k] != p->groups[g].tid)
				k++;
			if (k == n && n < max) {
				tids[n] = p->groups[g].tid;
				names[n++] = p->groups[g].thread;
			} else if (k < n && !names[k]) {
				names[k] = p->groups[g].thread;
			}
		}
	}
	return n;
}

/* ---- header --------------------------------------------------------- */

static void put_head(FILE *out, const page *pg)
{
	const embedded_file *css = embedded_find("templates/report.css");
	const embedded_file *js = embedded_find("templates/report.js");

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", out);
	/* Nothing is fetched: no default source; the style and script are
	 * the ones below, named by hash. */
	fprintf(out, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'sha256-%s'; script-src 'sha256-%s'; img-src 'none'; base-uri 'none'; "
		"form-action 'none'\">\n", css && css->sha256 ? css->sha256 : "",
		js && js->sha256 ? js->sha256 : "");
	fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"bpfspec " BPFSPEC_VERSION "\">\n<title>bpfspec: ", out);
	safe_fputs_html(pg->first->spec_name, out);
	if (pg->first->pid) {
		fputs(" on ", out);
		report_fput_pids(out, report_pids_of(pg->first));
	}
	fputs("</title>\n<style>", out);
	if (css)
		fwrite(css->data, 1, css->len, out);
	fputs("</style>\n</head>\n<body>\n", out);
}

static void put_facts(FILE *out, const page *pg)
{
	const report *r = pg->first;
	char stamp[64];

	fputs("<header>\n<h1>bpfspec: ", out);
	safe_fputs_html(r->spec_name, out);
	fputs("</h1>\n<dl class=\"facts\">\n", out);
	if (r->pid) {
		fputs("<dt>target</dt><dd>", out);
		report_fput_pids(out, report_pids_of(r));
		if (r->binary) {
			fputs(", ", out);
			safe_fputs_html(r->binary, out);
		}
		fputs("</dd>\n", out);
	}
	if (r->start_unix_ns) {
		report_utc_stamp(stamp, sizeof stamp, r->start_unix_ns, false);
		fprintf(out, "<dt>started</dt><dd>%s</dd>\n", stamp);
	}
	fputs("<dt>window</dt><dd>", out);
	html_put_dur(out, pg->window_ns);
	if (pg->n > 1) {
		fprintf(out, " in %zu intervals of ", pg->n);
		html_put_dur(out, pg->interval_ns);
	}
	fputs("</dd>\n", out);
	if (r->spec_path) {
		fputs("<dt>spec</dt><dd>", out);
		safe_fputs_html(r->spec_path, out);
		fputs("</dd>\n", out);
	}
	if (r->n_params) {
		fputs("<dt>parameters</dt><dd>", out);
		for (size_t i = 0; i < r->n_params; i++) {
			fputs(i ? ", " : "", out);
			safe_fputs_html(r->param_names[i], out);
			fputc('=', out);
			safe_fputs_html(r->param_values[i], out);
			fputs(r->param_set[i] ? " (set)" : "", out);
		}
		fputs("</dd>\n", out);
	}
	if (r->entry_only)
		fputs("<dt>timing</dt><dd>entry-only (each phase from its entry to the next "
		      "phase's entry on its thread)</dd>\n", out);
	fputs("<dt>bpftrace</dt><dd>", out);
	safe_fputs_html(r->bpftrace_version ? r->bpftrace_version : "unknown", out);
	fputs("</dd>\n", out);
	if (r->libuv_version) {
		fputs("<dt>libuv</dt><dd>", out);
		safe_fputs_html(r->libuv_version, out);
		fputs("</dd>\n", out);
	}
	fputs("</dl>\n</header>\n", out);
}

static void put_warnings(FILE *out, const page *pg)
{
	uint64_t lost = 0;
	for (size_t i = 0; i < pg->n; i++) {
		const report *r = pg->reps[i];
		lost += r->lost_events;
		if (r->partial) {
			fputs("<p class=\"warning\">PARTIAL: ", out);
			safe_fputs_html(r->partial_reason ? r->partial_reason : "run cut short", out);
			fputs("</p>\n", out);
		}
	}
	if (lost)
		fprintf(out, "<p class=\"warning\">bpftrace lost %llu events: figures are too low</p>\n",
			(unsigned long long)lost);
	/* The last report's warnings: a stream repeats them every interval. */
	for (size_t i = 0; i < pg->last->n_warnings; i++) {
		fputs("<p class=\"warning\">", out);
		safe_fputs_html(pg->last->warnings[i], out);
		fputs("</p>\n", out);
	}
}

/* ---- summary -------------------------------------------------------- */

/* PROBE's statistics over the stream (all threads), into *ST (owned
 * buckets), and the busiest thread's share of the window (utilization). */
static int probe_totals(const page *pg, const char *name, report_stats *st, double *busiest)
{
	long tids[HTML_MAX_THREADS];
	const char *names[HTML_MAX_THREADS];
	size_t nt = stream_threads(pg, name, tids, names, HTML_MAX_THREADS);

	memset(st, 0, sizeof *st);
	*busiest = 0;
	for (size_t i = 0; i < pg->n; i++) {
		const report_probe *p = html_probe_named(pg->reps[i], name);
		if (p && html_merge_stats(st, &p->st) < 0)
			return -1;
	}
	for (size_t t = 0; t < nt; t++) {
		uint64_t busy = 0, idle = 0;
		for (size_t i = 0; i < pg->n; i++) {
			const report_group *g = html_group_of(html_probe_named(pg->reps[i], name), tids[t]);
			if (g)
				busy += g->busy_ns, idle += g->idle_ns;
		}
		if (busy + idle && (double)busy / (double)(busy + idle) > *busiest)
			*busiest = (double)busy / (double)(busy + idle);
	}
	return 0;
}

static int put_summary(FILE *out, const page *pg)
{
	fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"sortable\">\n<thead><tr>"
	      "<th>probe</th><th>kind</th><th>count</th><th>p50</th><th>p99</th><th>max</th>"
	      "<th>busy</th></tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < pg->n_probes; i++) {
		const report_probe *p = pg->probes[i];
		const kind_shape *sh = kind_shape_of(p->kind);
		report_stats st;
		double busiest;
		if (probe_totals(pg, p->name, &st, &busiest) < 0)
			return -1;
		fputs("<tr data-probe=\"", out);
		safe_fputs_html(p->name, out);
		fputs("\"><td>", out);
		safe_fputs_html(p->name, out);
		fprintf(out, "</td><td>%s</td>", kind_name(p->kind));
		if (!p->attached) {
			fputs("<td class=\"text\" colspan=\"5\">not attached: ", out);
			safe_fputs_html(p->reason ? p->reason : "unknown reason", out);
			fputs("</td></tr>\n", out);
			free(st.buckets);
			continue;
		}
		html_td_count(out, st.count);
		html_td_dur(out, st.p50_ns, sh->durations && st.count);
		html_td_dur(out, st.p99_ns, sh->durations && st.count);
		html_td_dur(out, st.max_ns, sh->durations && st.count);
		if (sh->busy)
			fprintf(out, "<td data-sort=\"%.4f\">%.1f%%</td>", busiest, busiest * 100);
		else
			fputs("<td data-sort=\"-1\">-</td>", out);
		fputs("</tr>\n", out);
		free(st.buckets);
	}
	fputs("</tbody>\n</table>\n</section>\n", out);
	return 0;
}

/* ---- per probe ------------------------------------------------------ */

/* The name of the page's first probe that attached and measures busy and
 * idle time (a utilization probe), or NULL. */
static const char *utilization_probe(const page *pg)
{
	for (size_t i = 0; i < pg->n_probes; i++)
		if (kind_shape_of(pg->probes[i]->kind)->busy && pg->probes[i]->attached)
			return pg->probes[i]->name;
	return NULL;
}

/* One syscall of a syscalls probe over the stream. */
typedef struct syscall_total {
	const char *name;
	report_stats st;	/* merged (owned buckets) */
	uint64_t errors;
} syscall_total;

/* Slowest total first; the name breaks a tie (the browser test orders
 * them alike). */
static int by_total(const void *a, const void *b)
{
	const syscall_total *x = a, *y = b;
	if (x->st.sum_ns != y->st.sum_ns)
		return x->st.sum_ns > y->st.sum_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void syscall_totals_free(syscall_total *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++)
		free(t[i].st.buckets);
	free(t);
}

/* Every syscall probe NAME measured in any interval, merged over the
 * stream, slowest total first, into *OUT (free with syscall_totals_free).
 * Returns how many, or -1 when out of memory. */
static long syscall_totals(const page *pg, const char *name, syscall_total **out)
{
	syscall_total *t = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < pg->n; i++) {
		const report_probe *p = html_probe_named(pg->reps[i], name);
		for (size_t k = 0; p && k < p->n_syscalls; k++) {
			const report_syscall *sc = &p->syscalls[k];
			size_t j = 0;
			while (j < n && strcmp(t[j].name, sc->name) != 0)
				j++;
			if (j == n) {
				if (n == cap) {
					syscall_total *nt = realloc(t, (cap = cap ? cap * 2 : 16) * sizeof *nt);
					if (!nt)
						goto oom;
					t = nt;
				}
				t[n++] = (syscall_total){ .name = sc->name };
			}
			if (html_merge_stats(&t[j].st, &sc->st) < 0)
				goto oom;
			t[j].errors += sc->error_count;
		}
	}
	if (n)
		qsort(t, n, sizeof *t, by_total);
	*out = t;
	return (long)n;
oom:
	syscall_totals_free(t, n);
	return -1;
}

/* A syscalls probe's table, each syscall over the stream (T[0..N)). */
static void put_syscalls(FILE *out, const syscall_total *t, size_t n)
{
	if (n == 0)
		return;
	fputs("<table class=\"sortable\">\n<thead><tr><th>syscall</th><th>calls</th><th>errors</th>"
	      "<th>p50</th><th>p99</th><th>max</th><th>total</th></tr></thead>\n<tbody>\n", out);
	for (size_t s = 0; s < n; s++) {
		const report_stats *st = &t[s].st;
		fputs("<tr><td>", out);
		safe_fputs_html(t[s].name, out);
		fputs("</td>", out);
		html_td_count(out, st->count);
		html_td_count(out, t[s].errors);
		html_td_dur(out, st->p50_ns, st->count);
		html_td_dur(out, st->p99_ns, st->count);
		html_td_dur(out, st->max_ns, st->count);
		html_td_dur(out, st->sum_ns, true);
		fputs("</tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
}

/* One syscall's errors by errno over the stream. */
typedef struct errno_total {
	const char *syscall, *error;
	uint64_t count;
} errno_total;

static int by_count(const void *a, const void *b)
{
	const errno_total *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int c = strcmp(x->syscall, y->syscall);
	return c ? c : strcmp(x->error, y->error);
}

/* Syscalls probe NAME's errors by syscall and errno over the stream, the
 * commonest first, as a sortable table (none when no call failed).
 * Returns 0, or -1 when out of memory. */
static int put_errnos(FILE *out, const page *pg, const char *name)
{
	errno_total *t = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < pg->n; i++) {
		const report_probe *p = html_probe_named(pg->reps[i], name);
		for (size_t k = 0; p && k < p->n_syscalls; k++) {
			const report_syscall *sc = &p->syscalls[k];
			for (size_t e = 0; e < sc->n_errors; e++) {
				const report_errno *er = &sc->errors[e];
				size_t j = 0;
				while (j < n && (strcmp(t[j].syscall, sc->name) != 0 ||
						 strcmp(t[j].error, er->name) != 0))
					j++;
				if (j == n) {
					if (n == cap) {
						errno_total *nt = realloc(t, (cap = cap ? cap * 2 : 16) * sizeof *nt);
						if (!nt) {
							free(t);
							return -1;
						}
						t = nt;
					}
					t[n++] = (errno_total){ .syscall = sc->name, .error = er->name };
				}
				t[j].count += er->count;
			}
		}
	}
	if (n) {
		qsort(t, n, sizeof *t, by_count);
		fputs("<h3>errors by errno</h3>\n<table class=\"sortable errnos\">\n<thead><tr>"
		      "<th>syscall</th><th>errno</th><th>calls</th></tr></thead>\n<tbody>\n", out);
		for (size_t j = 0; j < n; j++) {
			fputs("<tr><td>", out);
			safe_fputs_html(t[j].syscall, out);
			fputs("</td><td class=\"text\">", out);
			safe_fputs_html(t[j].error, out);
			fputs("</td>", out);
			html_td_count(out, t[j].count);
			fputs("</tr>\n", out);
		}
		fputs("</tbody>\n</table>\n", out);
	}
	free(t);
	return 0;
}

/* One event's "what" cell: the syscall, or the probe point's values. */
static void put_event_what(FILE *out, const report_event *e)
{
	if (e->syscall) {
		safe_fputs_html(e->syscall, out);
		return;
	}
	for (size_t a = 0; a < e->n_args; a++) {
		const report_value *v = &e->args[a];
		fputs(a ? ", " : "", out);
		safe_fputs_html(v->name, out);
		fputc('=', out);
		if (v->type == REPORT_VALUE_STRING)
			safe_fputs_html(v->s, out);
		else if (v->type == REPORT_VALUE_INT)
			fprintf(out, "%lld", v->i);
		else
			fprintf(out, "%llu", v->u);
	}
}

/* An events probe's records over the stream, sortable. */
static void put_events(FILE *out, const page *pg, const char *name)
{
	size_t rows = 0, total = 0;
	uint64_t dropped = 0, offset = 0;

	fputs("<table class=\"sortable events\">\n<thead><tr><th>time</th><th>thread</th><th>event</th>"
	      "<th>latency</th><th>result</th><th>detail</th></tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < pg->n; offset += pg->reps[i]->duration_ns, i++) {
		const report_probe *p = html_probe_named(pg->reps[i], name);
		if (!p)
			continue;
		dropped += p->events_dropped;
		total += p->n_events;
		for (size_t k = 0; k < p->n_events && rows < HTML_MAX_EVENT_ROWS; k++, rows++) {
			const report_event *e = &p->events[k];
			uint64_t t = offset + e->t_ns;
			fprintf(out, "<tr><td data-sort=\"%llu\">+%.6f s</td><td class=\"text\">",
				(unsigned long long)t, (double)t / 1e9);
			html_put_thread(out, e->thread, e->tid, report_pids_of(pg->first));
			fputs("</td><td class=\"text\">", out);
			put_event_what(out, e);
			fputs("</td>", out);
			html_td_dur(out, e->latency_ns, e->syscall != NULL);
			if (e->syscall) {
				fprintf(out, "<td data-sort=\"%lld\">%lld", e->ret, e->ret);
				if (e->error) {
					fputc(' ', out);
					safe_fputs_html(e->error, out);
				}
				fputs("</td>", out);
			} else {
				fputs("<td>-</td>", out);
			}
			fputs("<td class=\"text\">", out);
			if (e->path)
				safe_fputs_html(e->path, out);
			else if (e->address)
				safe_fputs_html(e->address, out);
			else if (e->has_length)
				fprintf(out, "%llu bytes", (unsigned long long)e->length);
			fputs("</td></tr>\n", out);
		}
	}
	fputs("</tbody>\n</table>\n", out);
	if (rows < total || dropped)
		fprintf(out, "<p class=\"note\">%zu of %zu records shown; %llu more not recorded (over "
			"the limit)</p>\n", rows, total, (unsigned long long)dropped);
}

/* A count probe's hits per thread over the stream. */
static void put_counts(FILE *out, const page *pg, const char *name, const long *tids,
		       const char *const *names, size_t nt)
{
	fputs("<table class=\"sortable\">\n<thead><tr><th>thread</th><th>hits</th></tr></thead>\n"
	      "<tbody>\n", out);
	for (size_t t = 0; t < nt; t++) {
		uint64_t hits = 0;
		for (size_t i = 0; i < pg->n; i++) {
			const report_group *g = html_group_of(html_probe_named(pg->reps[i], name), tids[t]);
			hits += g ? g->st.count : 0;
		}
		fputs("<tr><td class=\"text\">", out);
		html_put_thread(out, names[t], tids[t], report_pids_of(pg->first));
		fputs("</td>", out);
		html_td_count(out, hits);
		fputs("</tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
}

/* Probe P's heading: the start of its section, its name, kind and
 * function (or probe point), and how it is derived when it is. */
static void put_probe_title(FILE *out, const report_probe *p)
{
	fputs("<section class=\"probe\" data-probe=\"", out);
	safe_fputs_html(p->name, out);
	fputs("\">\n<h2>", out);
	safe_fputs_html(p->name, out);
	fprintf(out, " <small>(%s", kind_name(p->kind));
	if (p->function || p->probe) {
		fputs(": ", out);
		safe_fputs_html(p->function ? p->function : p->probe, out);
	}
	fputs(")</small></h2>\n", out);
	if (p->derived) {
		fputs("<p class=\"note\">", out);
		safe_fputs_html(p->derived, out);
		fputs("</p>\n", out);
	}
}

/* Syscalls probe P over the stream: its syscalls' table, its errors by
 * errno, and a figure for each of the HTML_TOP_SYSCALLS slowest in total
 * (a heatmap over the intervals, or the one report's histogram).
 * Returns 0, or -1 when out of memory. */
static int put_syscall_charts(FILE *out, const page *pg, const report_probe *p)
{
	syscall_total *t;
	long ns = syscall_totals(pg, p->name, &t);
	if (ns < 0)
		return -1;
	put_syscalls(out, t, (size_t)ns);
	if (put_errnos(out, pg, p->name) < 0) {
		syscall_totals_free(t, (size_t)ns);
		return -1;
	}
	for (long k = 0; k < ns && k < HTML_TOP_SYSCALLS; k++) {
		html_series s = { .probe = p->name, .syscall = t[k].name };
		fputs("<h3>", out);
		safe_fputs_html(s.syscall, out);
		fputs(" (all threads)</h3>\n", out);
		if (pg->n > 1)
			html_heatmap(out, pg->reps, pg->n, &s, pg->interval_ns);
		else
			html_histogram(out, pg->reps[0], &s, pg->window_ns);
	}
	syscall_totals_free(t, (size_t)ns);
	return 0;
}

/* Span probe P's figures: one per row (stage and label) seen in any
 * report of the stream, in the order first seen (a stage's rows together,
 * whole spans last, in each report): a heatmap over the intervals, or
 * the one report's histogram. */
static void put_span_charts(FILE *out, const page *pg, const report_probe *p)
{
	size_t shown = 0;
	for (size_t i = 0; i < pg->n; i++) {
		const report_probe *q = html_probe_named(pg->reps[i], p->name);
		for (size_t k = 0; q && k < q->n_span_rows; k++) {
			const report_span_row *r = &q->span_rows[k];
			html_series s = { .probe = p->name, .span = true, .stage = r->stage,
					  .label = r->label, .other = r->other };
			bool before = false;	/* drawn for an earlier report */
			for (size_t j = 0; j < i && !before; j++)
				before = html_series_stats(pg->reps[j], &s) != NULL;
			if (before)
				continue;
			fputs("<h3>", out);
			safe_fputs_html(r->stage ? r->stage : "total", out);
			fputs(" &middot; ", out);
			safe_fputs_html(r->label ? r->label : "all", out);
			fputs("</h3>\n", out);
			if (pg->n > 1)
				html_heatmap(out, pg->reps, pg->n, &s, pg->interval_ns);
			else
				html_histogram(out, pg->reps[0], &s, pg->window_ns);
			shown++;
		}
	}
	if (shown == 0)
		fputs("<p class=\"note\">no spans in the window</p>\n", out);
}

/* Timed probe P's figures per thread (TIDS[0..NT) with NAMES): over
 * intervals, a busy-share strip and a heatmap; for one report, the
 * thread's busy share (a utilization probe) and a histogram.  A note
 * when no thread made a call. */
static void put_thread_charts(FILE *out, const page *pg, const report_probe *p,
			      const long *tids, const char *const *names, size_t nt)
{
	const kind_shape *sh = kind_shape_of(p->kind);

	for (size_t t = 0; t < nt; t++) {
		fputs("<h3>", out);
		html_put_thread(out, names[t], tids[t], report_pids_of(pg->first));
		fputs("</h3>\n", out);
		html_series s = { .probe = p->name, .tid = tids[t] };
		/* The thread's busy share above its heatmap: its own for a
		 * utilization probe, else the spec's utilization probe's
		 * (when it has one and measured this thread). */
		const char *busy = sh->busy ? p->name : utilization_probe(pg);
		if (busy && pg->n > 1)
			html_utilization_strip(out, pg->reps, pg->n,
					       &(html_series){ .probe = busy, .tid = tids[t] },
					       pg->interval_ns);
		if (pg->n > 1) {
			html_heatmap(out, pg->reps, pg->n, &s, pg->interval_ns);
		} else {
			const report_group *g = html_group_of(p, tids[t]);
			if (sh->busy && g)
				fprintf(out, "<p class=\"note\">busy %.1f%% of the window</p>\n",
					g->utilization * 100);
			html_histogram(out, pg->reps[0], &s, pg->window_ns);
		}
	}
	if (nt == 0)
		fputs("<p class=\"note\">no calls in the window</p>\n", out);
}

/* Probe P's section: its heading, then (when it attached) what its kind's
 * shape holds over the stream.  Returns 0, or -1 when out of memory. */
static int put_probe(FILE *out, const page *pg, const report_probe *p)
{
	const kind_shape *sh = kind_shape_of(p->kind);
	long tids[HTML_MAX_THREADS];
	const char *names[HTML_MAX_THREADS];

	put_probe_title(out, p);
	if (!p->attached) {
		fputs("<p class=\"note\">not attached: ", out);
		safe_fputs_html(p->reason ? p->reason : "unknown reason", out);
		fputs("</p>\n</section>\n", out);
		return 0;
	}
	size_t nt = stream_threads(pg, p->name, tids, names, HTML_MAX_THREADS);
	if (nt == HTML_MAX_THREADS)
		fprintf(out, "<p class=\"note\">Threads past the first %d are left out of this "
			"page; -o json has them all.</p>\n", HTML_MAX_THREADS);
	if (sh->per_syscall && put_syscall_charts(out, pg, p) < 0)
		return -1;
	if (sh->events)
		put_events(out, pg, p->name);
	if (!sh->durations && !sh->events && !sh->per_syscall && !sh->http)
		put_counts(out, pg, p->name, tids, names, nt);
	if (sh->http &&
	    html_put_routes(out, pg->reps, pg->n, p->name, pg->interval_ns, pg->window_ns) < 0)
		return -1;
	if (sh->spans)
		put_span_charts(out, pg, p);
	else if (sh->durations && !sh->per_syscall)
		put_thread_charts(out, pg, p, tids, names, nt);
	fputs("</section>\n", out);
	return 0;
}

int render_html(FILE *out, const report *const *reps, size_t n)
{
	if (n == 0)
		return -1;
	/* Each report of a cumulative stream holds the ones before it: the
	 * last one is the whole run, and adding them up would count the
	 * first interval N times. */
	bool cumulative = false;
	for (size_t i = 0; i < n; i++)
		cumulative |= reps[i]->cumulative;
	if (cumulative && n > 1) {
		reps += n - 1;
		n = 1;
	}
	page pg = { .reps = reps, .n = n, .first = reps[0], .last = reps[n - 1],
		    .interval_ns = reps[0]->duration_ns };
	for (size_t i = 0; i < n; i++) {
		pg.window_ns += reps[i]->duration_ns;
		for (size_t k = 0; k < reps[i]->n_probes; k++) {
			const report_probe *p = &reps[i]->probes[k];
			size_t j = 0;
			while (j < pg.n_probes && strcmp(pg.probes[j]->name, p->name) != 0)
				j++;
			if (j < pg.n_probes)
				pg.probes[j] = p;
			else if (j < HTML_MAX_PROBES)
				pg.probes[pg.n_probes++] = p;
		}
	}

	put_head(out, &pg);
	put_facts(out, &pg);
	if (cumulative)
		fputs("<p class=\"note\">A cumulative stream (<code>-i --cumulative</code>): each "
		      "report covers the run so far; this page shows the last, the whole run.</p>\n",
		      out);
	put_warnings(out, &pg);
	if (n > 1)
		fputs("<noscript><p class=\"warning\">The heatmaps are drawn by the page's own script: "
		      "allow scripts for this file to see them (the tables need none).</p></noscript>\n",
		      out);
	if (put_summary(out, &pg) < 0)
		return -1;
	for (size_t i = 0; i < pg.n_probes; i++)
		if (put_probe(out, &pg, pg.probes[i]) < 0)
			return -1;
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->html && (*f)->html(out, reps, n) < 0)
			return -1;
	const embedded_file *js = embedded_find("templates/report.js");
	fputs("<div id=\"tip\" role=\"tooltip\" hidden></div>\n<script>", out);
	if (js)
		fwrite(js->data, 1, js->len, out);
	fputs("</script>\n</body>\n</html>\n", out);
	return ferror(out) ? -1 : 0;
}
