/* span_render — a span probe's outputs (span.h): text, JSON, -o prom and
 * serve's series.  Labels come from the traced process (a symbol's
 * name, a number it passed): every output escapes them as its format
 * wants (safe.h, rjson_put_bytes, promtext). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/span.h"
#include "model/report.h"
#include "render/render_internal.h"
#include "serve/promstore_plan.h"
#include "util/safe.h"

/* Columns of a label in the text table. */
#define LABEL_COLS 28

/* Row R's stage for people and Prometheus: its name, "total" for whole
 * spans. */
static const char *stage_text(const report_span_row *r)
{
	return r->stage ? r->stage : "total";
}

/* The summary: whole spans, as a latency probe's row. */
void span_text_row(FILE *out, const report_probe *p, const report *rep)
{
	text_stats_row(out, &p->st, p, rep->duration_ns);
}

/* The row of P for stage STAGE (NULL: whole spans) and the label of ROW
 * (the same label), or NULL. */
static const report_span_row *row_for(const report_probe *p, const char *stage,
				      const report_span_row *row)
{
	for (size_t i = 0; i < p->n_span_rows; i++) {
		const report_span_row *r = &p->span_rows[i];
		bool same_stage = stage ? r->stage && !strcmp(r->stage, stage) : !r->stage;
		bool same_label = r->other == row->other &&
				  (r->label == row->label ||
				   (r->label && row->label && !strcmp(r->label, row->label)));
		if (same_stage && same_label)
			return r;
	}
	return NULL;
}

/* The threads that ran the workers stage, and how busy they were. */
static void put_workers(FILE *out, const report_probe *p, uint64_t window_ns)
{
	char busy[32];
	if (!p->span_work)
		return;
	fprintf(out, "threads that ran '%s': %zu", p->span_work, p->n_workers);
	if (p->pool_size)
		fprintf(out, " of a pool of %llu (%s)", (unsigned long long)p->pool_size,
			p->pool_source ? p->pool_source : "?");
	fputs("\n", out);
	for (size_t i = 0; i < p->n_workers; i++) {
		const report_span_worker *wk = &p->workers[i];
		text_fmt_auto(busy, sizeof busy, wk->busy_ns);
		fprintf(out, "  %-8ld ", wk->tid);
		safe_fputs_cell(wk->thread ? wk->thread : "?", NULL, TEXT_THREAD_COLS, out);
		fprintf(out, " busy %s, %.0f%% of the window\n", busy,
			window_ns ? 100.0 * (double)wk->busy_ns / (double)window_ns : 0.0);
	}
}

/* How busy the threads that ran the stage were over the window, and how
 * many of the pool's they were when its size is known: "all 2 were busy
 * 97% of the window", "2 of the pool's 4 ran it, busy 48% of the
 * window". */
static void put_busy_share(FILE *out, const report_probe *p, uint64_t busy, uint64_t window_ns)
{
	if (!window_ns || !p->n_workers) {
		fputs("\n", out);
		return;
	}
	double share = 100.0 * (double)busy / ((double)window_ns * (double)p->n_workers);
	if (p->pool_size && p->n_workers >= p->pool_size)
		fprintf(out, ": all %zu were busy %.0f%% of the window\n", p->n_workers, share);
	else if (p->pool_size)
		fprintf(out, ": %zu of the pool's %llu ran it, busy %.0f%% of the window\n",
			p->n_workers, (unsigned long long)p->pool_size, share);
	else
		fprintf(out, ": the %zu that ran it were busy %.0f%% of the window\n", p->n_workers,
			share);
}

/* With 'wait': when the wait is half or more of the whole span's p99
 * for the label whose wait is longest, a line that says so, with how
 * busy the workers were. */
static void put_verdict(FILE *out, const report_probe *p, uint64_t window_ns)
{
	const report_span_row *worst = NULL, *whole;
	char wait[32], total[32];
	uint64_t busy = 0;

	for (size_t i = 0; p->span_wait && i < p->n_span_rows; i++) {
		const report_span_row *r = &p->span_rows[i];
		if (r->stage && !strcmp(r->stage, p->span_wait) &&
		    (!worst || r->st.p99_ns > worst->st.p99_ns))
			worst = r;
	}
	if (!worst || !(whole = row_for(p, NULL, worst)) || 2 * worst->st.p99_ns < whole->st.p99_ns)
		return;
	for (size_t i = 0; i < p->n_workers; i++)
		busy += p->workers[i].busy_ns;
	text_fmt_auto(wait, sizeof wait, worst->st.p99_ns);
	text_fmt_auto(total, sizeof total, whole->st.p99_ns);
	fputs("verdict: ", out);
	safe_fputs(worst->label ? worst->label : p->name, out);
	fprintf(out, " spans waited p99 %s in '%s' (of p99 %s in all) for a thread running '%s'", wait,
		p->span_wait, total, p->span_work);
	put_busy_share(out, p, busy, window_ns);
}

/* A row per stage and label, then open and evicted spans, the workers
 * and the verdict. */
void span_text_details(FILE *out, const report_probe *p, const report *rep)
{
	text_section(out, p);
	fprintf(out, "spans by stage%s (%llu still open",
		p->n_span_rows && p->span_rows[0].label ? " and label" : "",
		(unsigned long long)p->spans_open);
	if (p->spans_evicted)
		fprintf(out, "; %llu evicted: more spans were open than 'limit' allows",
			(unsigned long long)p->spans_evicted);
	fputs(")\n", out);
	fprintf(out, "  %-12s %-*s %10s %11s %10s %10s %10s %10s\n", "STAGE", LABEL_COLS, "LABEL",
		"COUNT", "TOTAL", "MEAN", "P50~", "P99~", "MAX");
	for (size_t i = 0; i < p->n_span_rows; i++) {
		const report_span_row *r = &p->span_rows[i];
		const report_stats *st = &r->st;
		char total[32], mean[32], p50[32], p99[32], max[32];
		text_fmt_dur(total, sizeof total, st->sum_ns, p->unit_ns, p->unit);
		text_fmt_dur(mean, sizeof mean, st->count ? st->sum_ns / st->count : 0, p->unit_ns,
			     p->unit);
		text_fmt_dur(p50, sizeof p50, st->p50_ns, p->unit_ns, p->unit);
		text_fmt_dur(p99, sizeof p99, st->p99_ns, p->unit_ns, p->unit);
		text_fmt_dur(max, sizeof max, st->max_ns, p->unit_ns, p->unit);
		fprintf(out, "  %-12s ", stage_text(r));
		safe_fputs_cell(r->label ? r->label : "-", NULL, LABEL_COLS, out);
		fprintf(out, " %10llu %11s %10s %10s %10s %10s\n", (unsigned long long)st->count, total,
			mean, p50, p99, max);
	}
	put_workers(out, p, rep->duration_ns);
	put_verdict(out, p, rep->duration_ns);
}

void span_json(json_t *jp, const report_probe *p, const report *rep)
{
	json_t *stages = json_array(), *rows = json_array();
	(void)rep;
	rjson_put_stats(jp, &p->st);
	for (size_t i = 0; i < p->n_stages; i++)
		json_array_append_new(stages, rjson_text(p->stages[i]));
	json_object_set_new(jp, "stages", stages);
	for (size_t i = 0; i < p->n_span_rows; i++) {
		const report_span_row *r = &p->span_rows[i];
		json_t *jr = json_object();
		json_object_set_new(jr, "stage", rjson_text(r->stage));
		if (r->label)
			rjson_put_bytes(jr, "label", r->label);
		else
			json_object_set_new(jr, "label", json_null());
		json_object_set_new(jr, "other", json_boolean(r->other));
		rjson_put_stats(jr, &r->st);
		json_array_append_new(rows, jr);
	}
	json_object_set_new(jp, "rows", rows);
	json_object_set_new(jp, "groups", json_array());
	json_object_set_new(jp, "open", rjson_u64(p->spans_open));
	json_object_set_new(jp, "evicted", rjson_u64(p->spans_evicted));
	json_object_set_new(jp, "wait", rjson_text(p->span_wait));
	json_object_set_new(jp, "workers_stage", rjson_text(p->span_work));
	json_t *workers = json_array();
	for (size_t i = 0; i < p->n_workers; i++) {
		const report_span_worker *wk = &p->workers[i];
		json_t *jw = json_object();
		json_object_set_new(jw, "tid", json_integer(wk->tid));
		if (wk->thread)
			rjson_put_bytes(jw, "thread", wk->thread);
		else
			json_object_set_new(jw, "thread", json_null());
		json_object_set_new(jw, "busy_ns", rjson_u64(wk->busy_ns));
		json_array_append_new(workers, jw);
	}
	json_object_set_new(jp, "workers", workers);
	json_object_set_new(jp, "pool_size", p->pool_size ? rjson_u64(p->pool_size) : json_null());
	json_object_set_new(jp, "pool_source", rjson_text(p->pool_source));
}

void span_prom(FILE *out, const report *rep)
{
	const report_probe *p;
	prom_family span = { "bpfspec_span_seconds", "histogram",
			     "Duration of a span probe's stages (stage=\"total\": whole spans) in the "
			     "window, by label.", false };
	prom_family open = { "bpfspec_spans_open", "gauge",
			     "Spans of a span probe open as the window ended.", false };
	prom_family evicted = { "bpfspec_spans_evicted", "gauge",
				"Spans of a span probe evicted from the full table in the window.",
				false };
	char v[32];

	for (size_t i = 0; (p = prom_next(rep, PROBE_SPAN, &i));)
		for (size_t k = 0; k < p->n_span_rows; k++) {
			const report_span_row *r = &p->span_rows[k];
			promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name },
						{ "stage", stage_text(r) },
						{ "label", r->label ? r->label : "" } };
			prom_histogram(out, &span, ls, 4, &r->st);
		}
	for (size_t i = 0; (p = prom_next(rep, PROBE_SPAN, &i));) {
		promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name } };
		promtext_u64(v, sizeof v, p->spans_open);
		prom_sample(out, &open, "", ls, 2, v);
		promtext_u64(v, sizeof v, p->spans_evicted);
		prom_sample(out, &evicted, "", ls, 2, v);
	}
}

/* ---- serve --------------------------------------------------------- */

static const ps_family_def span_family = {
	"bpfspec_span_seconds",
	"Duration of a span probe's stages (stage=\"total\": whole spans), by target and label.",
	PS_HISTOGRAM, true
};
static const ps_family_def evicted_family = {
	"bpfspec_span_evictions_total",
	"Spans of a span probe evicted from its full table of open spans.", PS_COUNTER, false
};
static const ps_family_def open_family = {
	"bpfspec_spans_open", "Spans of a span probe open as the last interval ended.", PS_GAUGE,
	false
};
const ps_family_def *const span_families[] = { &span_family, &evicted_family, &open_family,
					       NULL };

int span_serve(ps_add *a, const report_probe *p)
{
	const char *whole;
	if (ps_plan_thread_labels(a, 0, NULL, &whole) < 0)
		return -1;
	if (!whole)
		return 0;
	for (size_t k = 0; k < p->n_span_rows; k++) {
		const report_span_row *r = &p->span_rows[k];
		if (ps_plan(a, &span_family, whole, "stage", stage_text(r), "label",
			    r->label ? r->label : "", 0, &r->st) < 0)
			return -1;
	}
	if (ps_plan(a, &evicted_family, whole, NULL, NULL, NULL, NULL, p->spans_evicted, NULL) < 0)
		return -1;
	/* A gauge of one part over one whole: the open spans themselves. */
	return ps_plan_ratio(a, &open_family, whole, NULL, NULL, p->spans_open, 1);
}
