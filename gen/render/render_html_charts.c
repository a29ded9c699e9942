/* render_html_charts — the pictures of the HTML report (render_html.h):
 * latency heatmaps across intervals, histograms of one window, and
 * utilization strips.  Every figure is drawn from the report model's
 * buckets as they are (no re-binning): a heatmap cell is one bucket of
 * one interval, a bar one bucket of the window.
 *
 * A histogram is inline SVG, a rect per bar with its bounds and count in
 * data attributes.  A heatmap or strip has a cell per interval, 3,600 in
 * an hour at -i 1: its numbers are packed (html_pack_*: unsigned varints,
 * 7 bits a byte, low bits first, in base64) into data attributes of its
 * <figure>, and the page's script (report.js) draws them into a canvas
 * of one pixel per cell, and reads them for the tooltip.  The axes are
 * SVG. */
#include "render/render_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "util/hist.h"
#include "util/safe.h"

#define PLOT_LEFT 64		/* px for the latency axis labels */
#define PLOT_WIDTH 880		/* px of the plot area */
#define AXIS_BELOW 18		/* px for the time axis labels */
#define TICK_MIN_PX 90		/* px between time axis labels, at least */
/* Columns of one canvas at most: a heatmap of more intervals is drawn on
 * several side by side (browsers draw nothing on a canvas wider than
 * 32767 px, Firefox, or 65535, Chromium: 9 and 18 hours at -i 1). */
#define CANVAS_COLUMNS 8192

/* The packing of numbers into a data attribute: varints in base64. */
typedef struct packer {
	FILE *out;
	unsigned char pending[3];
	int n_pending;
} packer;

static const char b64_digits[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void pack_byte(packer *pk, unsigned char c)
{
	pk->pending[pk->n_pending++] = c;
	if (pk->n_pending < 3)
		return;
	unsigned v = (unsigned)pk->pending[0] << 16 | (unsigned)pk->pending[1] << 8 | pk->pending[2];
	char four[4] = { b64_digits[v >> 18 & 63], b64_digits[v >> 12 & 63], b64_digits[v >> 6 & 63],
			 b64_digits[v & 63] };
	fwrite(four, 1, 4, pk->out);
	pk->n_pending = 0;
}

static void pack_number(packer *pk, uint64_t v)
{
	while (v >= 0x80) {
		pack_byte(pk, (unsigned char)(v | 0x80));
		v >>= 7;
	}
	pack_byte(pk, (unsigned char)v);
}

/* Writes what is pending, padded with '='. */
static void pack_end(packer *pk)
{
	if (pk->n_pending == 0)
		return;
	int n = pk->n_pending;
	while (pk->n_pending < 3)
		pk->pending[pk->n_pending++] = 0;
	unsigned v = (unsigned)pk->pending[0] << 16 | (unsigned)pk->pending[1] << 8 | pk->pending[2];
	char four[4] = { b64_digits[v >> 18 & 63], b64_digits[v >> 12 & 63],
			 n > 1 ? b64_digits[v >> 6 & 63] : '=', '=' };
	fwrite(four, 1, 4, pk->out);
	pk->n_pending = 0;
}

const report_probe *html_probe_named(const report *rep, const char *name)
{
	for (size_t i = 0; rep && i < rep->n_probes; i++)
		if (rep->probes[i].name && name && strcmp(rep->probes[i].name, name) == 0)
			return &rep->probes[i];
	return NULL;
}

const report_group *html_group_of(const report_probe *p, long tid)
{
	for (size_t i = 0; p && i < p->n_groups; i++)
		if (p->groups[i].tid == tid)
			return &p->groups[i];
	return NULL;
}

const report_stats *html_series_stats(const report *rep, const html_series *s)
{
	const report_probe *p = html_probe_named(rep, s->probe);
	if (p && s->span) {
		for (size_t i = 0; i < p->n_span_rows; i++) {
			const report_span_row *r = &p->span_rows[i];
			if (html_same_text(r->stage, s->stage) && html_same_text(r->label, s->label) &&
			    r->other == s->other)
				return &r->st;
		}
		return NULL;
	}
	if (p && s->http) {
		for (size_t i = 0; i < p->n_http_routes; i++) {
			const report_http_route *r = &p->http_routes[i];
			if (html_same_text(r->method, s->method) && html_same_text(r->route, s->route) &&
			    r->other == s->other)
				return &r->st;
		}
		return NULL;
	}
	if (p && s->syscall) {
		for (size_t i = 0; i < p->n_syscalls; i++)
			if (p->syscalls[i].name && strcmp(p->syscalls[i].name, s->syscall) == 0)
				return &p->syscalls[i].st;
		return NULL;
	}
	const report_group *g = html_group_of(p, s->tid);
	return g ? &g->st : NULL;
}

int html_merge_stats(report_stats *acc, const report_stats *st)
{
	if (st->count == 0)
		return 0;
	if (acc->count == 0 || st->min_ns < acc->min_ns)
		acc->min_ns = st->min_ns;
	if (st->max_ns > acc->max_ns)
		acc->max_ns = st->max_ns;
	acc->count += st->count;
	acc->sum_ns += st->sum_ns;
	if (st->n_buckets == 0)
		return 0;
	report_bucket *m = malloc((acc->n_buckets + st->n_buckets) * sizeof *m);
	if (!m)
		return -1;
	size_t i = 0, j = 0, n = 0;
	while (i < acc->n_buckets || j < st->n_buckets) {
		if (j == st->n_buckets || (i < acc->n_buckets && acc->buckets[i].lo_ns < st->buckets[j].lo_ns))
			m[n++] = acc->buckets[i++];
		else if (i == acc->n_buckets || st->buckets[j].lo_ns < acc->buckets[i].lo_ns)
			m[n++] = st->buckets[j++];
		else {
			m[n] = acc->buckets[i++];
			m[n++].count += st->buckets[j++].count;
		}
	}
	free(acc->buckets);
	acc->buckets = m;
	acc->n_buckets = n;
	acc->p50_ns = report_percentile(acc, 0.50);
	acc->p90_ns = report_percentile(acc, 0.90);
	acc->p99_ns = report_percentile(acc, 0.99);
	return 0;
}

/* "count: 1 [levels] MAX" under a heatmap. */
static void heat_legend(FILE *out, uint64_t max)
{
	fputs("<div class=\"legend\"><span class=\"label\">count 1</span>", out);
	for (int k = 0; k < HTML_HEAT_LEVELS; k++)
		fprintf(out, "<span class=\"swatch h%d\"></span>", k);
	fprintf(out, "<span class=\"label\">%llu (log scale)</span></div>\n", (unsigned long long)max);
}

/* D (a power of ten of nanoseconds) as an axis label: "1 ns", "10 us". */
static void decade_label(char *out, size_t len, uint64_t d)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	int u = 0;
	while (d >= 1000 && u < 3)
		d /= 1000, u++;
	snprintf(out, len, "%llu %s", (unsigned long long)d, units[u]);
}

/* Labels of the latency axis: at the rows holding 1 ns, 10 ns, ... 100 s
 * and at the lowest row, for rows MIN..MAX drawn ROW_PX high each. */
static void latency_axis(FILE *out, uint64_t min_idx, uint64_t max_idx, double row_px)
{
	uint64_t last_label = UINT64_MAX;
	char t[32];

	for (uint64_t d = 1; d <= 100000000000ull; d *= 10) {
		uint64_t idx = hist_bucket_index(d);
		if (idx < min_idx || idx > max_idx)
			continue;
		double y = (double)(max_idx - idx + 1) * row_px;
		decade_label(t, sizeof t, d);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
			"<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
			PLOT_LEFT - 6, y + 4, t, PLOT_LEFT - 4, PLOT_LEFT, y, y);
		last_label = idx;
	}
	if (last_label == UINT64_MAX) {
		uint64_t lo, hi;
		hist_bucket_bounds(min_idx, &lo, &hi);
		text_fmt_auto(t, sizeof t, lo);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PLOT_LEFT - 6,
			(double)(max_idx - min_idx + 1) * row_px, t);
	}
}

/* The lowest and highest bucket index and the largest count of S over
 * the stream.  Returns false when it has no bucket anywhere. */
static bool bucket_span(const report *const *reps, size_t n, const html_series *s,
			uint64_t *min_idx, uint64_t *max_idx, uint64_t *max_count)
{
	bool any = false;
	*min_idx = UINT64_MAX, *max_idx = 0, *max_count = 0;
	for (size_t i = 0; i < n; i++) {
		const report_stats *st = html_series_stats(reps[i], s);
		for (size_t b = 0; st && b < st->n_buckets; b++) {
			uint64_t idx = hist_bucket_index(st->buckets[b].lo_ns);
			*min_idx = idx < *min_idx ? idx : *min_idx;
			*max_idx = idx > *max_idx ? idx : *max_idx;
			if (st->buckets[b].count > *max_count)
				*max_count = st->buckets[b].count;
			any = true;
		}
	}
	return any;
}

/* data-NAME="..." of each interval's p50 or p99 (0: no calls), packed. */
static void interval_percentiles(FILE *out, const report *const *reps, size_t n,
				 const html_series *s, const char *name, bool p99)
{
	packer pk = { .out = out };
	fprintf(out, " data-%s=\"", name);
	for (size_t i = 0; i < n; i++) {
		const report_stats *st = html_series_stats(reps[i], s);
		pack_number(&pk, st ? (p99 ? st->p99_ns : st->p50_ns) : 0);
	}
	pack_end(&pk);
	fputc('"', out);
}

/* The attributes naming S, and the intervals (N of INTERVAL_NS each). */
static void series_attributes(FILE *out, const html_series *s, size_t n, uint64_t interval_ns)
{
	fputs(" data-probe=\"", out);
	safe_fputs_html(s->probe, out);
	if (s->syscall) {
		fputs("\" data-syscall=\"", out);
		safe_fputs_html(s->syscall, out);
	}
	if (s->span) {
		/* "STAGE LABEL": "total" for whole spans, "-" for no label. */
		fputs("\" data-row=\"", out);
		safe_fputs_html(s->stage ? s->stage : "total", out);
		fputc(' ', out);
		safe_fputs_html(s->label ? s->label : "-", out);
	}
	if (s->http) {
		/* "METHOD ROUTE" ("other other" past the spec's limit). */
		fputs("\" data-row=\"", out);
		safe_fputs_html(s->method, out);
		fputc(' ', out);
		safe_fputs_html(s->route, out);
	}
	fprintf(out, "\" data-tid=\"%ld\" data-intervals=\"%zu\" data-interval-ns=\"%llu\"", s->tid, n,
		(unsigned long long)interval_ns);
}

/* The opening of a histogram's svg: class CLS, the series, the window. */
static void svg_open(FILE *out, const char *cls, const html_series *s, size_t n,
		     uint64_t interval_ns, int height)
{
	fprintf(out, "<svg class=\"%s\"", cls);
	series_attributes(out, s, n, interval_ns);
	fprintf(out, " width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"", PLOT_LEFT + PLOT_WIDTH, height,
		PLOT_LEFT + PLOT_WIDTH, height);
}

/* The canvases of N intervals by ROWS cells, CANVAS_COLUMNS wide at most,
 * each with its first interval, closing the plot's div. */
static void put_canvases(FILE *out, size_t n, uint64_t rows)
{
	size_t first = 0;
	do {
		size_t w = n - first < CANVAS_COLUMNS ? n - first : CANVAS_COLUMNS;
		fprintf(out, "<canvas class=\"cells\" data-first=\"%zu\" width=\"%zu\" height=\"%llu\">"
			"</canvas>", first, w, (unsigned long long)rows);
		first += CANVAS_COLUMNS;
	} while (first < n);
	fputs("</div>\n", out);
}

/* The width in px of a plot of N intervals: PLOT_WIDTH, or one px per
 * interval when there are more (the figure then scrolls sideways: a
 * narrower picture would merge intervals, and a short spike with them). */
static int plot_width(size_t n)
{
	return n > PLOT_WIDTH ? (int)n : PLOT_WIDTH;
}

/* T seconds as a time axis label: "+90 s", "+5 min". */
static void time_label(char *out, size_t len, double t)
{
	if (t >= 60 && fmod(t, 60) == 0)
		snprintf(out, len, "+%g min", t / 60);
	else
		snprintf(out, len, "+%.*f s", t == floor(t) ? 0 : 1, t);
}

/* The time axis at Y under a plot PLOT_W px wide of N intervals of
 * INTERVAL_NS: +0 s, the end, and round steps at least TICK_MIN_PX apart
 * between them. */
static void time_axis(FILE *out, size_t n, uint64_t interval_ns, int plot_w, int y)
{
	static const unsigned steps_s[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
					    3600, 7200, 21600, 43200, 86400 };
	double total_s = (double)n * (double)interval_ns / 1e9;
	char t[32];

	fprintf(out, "<text x=\"%d\" y=\"%d\">+0 s</text>", PLOT_LEFT, y);
	if (total_s <= 0)
		return;
	double px_per_s = plot_w / total_s, step = 0;
	for (size_t k = 0; k < sizeof steps_s / sizeof *steps_s && step == 0; k++)
		if (steps_s[k] * px_per_s >= TICK_MIN_PX)
			step = steps_s[k];
	for (double at = step; step > 0 && (total_s - at) * px_per_s >= TICK_MIN_PX; at += step) {
		time_label(t, sizeof t, at);
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
			PLOT_LEFT + at * px_per_s, y, t);
	}
	time_label(t, sizeof t, total_s);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", PLOT_LEFT + plot_w, y, t);
}

/* data-row-lo-ns and data-row-hi-ns: each row's bounds, from the top row
 * (bucket MAX_IDX) down to MIN_IDX's. */
static void row_bounds(FILE *out, uint64_t min_idx, uint64_t max_idx)
{
	for (int hi = 0; hi < 2; hi++) {
		fprintf(out, " data-row-%s-ns=\"", hi ? "hi" : "lo");
		for (uint64_t idx = max_idx + 1; idx-- > min_idx;) {
			uint64_t lo_ns, hi_ns;
			hist_bucket_bounds(idx, &lo_ns, &hi_ns);
			fprintf(out, "%s%llu", idx == max_idx ? "" : ",",
				(unsigned long long)(hi ? hi_ns : lo_ns));
		}
		fputc('"', out);
	}
}

/* data-cells="...": per interval, the number of its non-empty cells, then
 * for each from the top row down the rows skipped since the last one and
 * its count.  COLUMN is scratch for ROWS counts. */
static void heat_cells(FILE *out, const report *const *reps, size_t n, const html_series *s,
		       uint64_t max_idx, uint64_t rows, uint64_t *column)
{
	packer pk = { .out = out };
	fputs(" data-cells=\"", out);
	for (size_t i = 0; i < n; i++) {
		const report_stats *st = html_series_stats(reps[i], s);
		uint64_t cells = 0;
		memset(column, 0, rows * sizeof *column);
		/* By row, whatever the order of the report's buckets. */
		for (size_t b = 0; st && b < st->n_buckets; b++)
			column[max_idx - hist_bucket_index(st->buckets[b].lo_ns)] += st->buckets[b].count;
		for (uint64_t r = 0; r < rows; r++)
			cells += column[r] != 0;
		pack_number(&pk, cells);
		for (uint64_t r = 0, next = 0; r < rows; r++) {
			if (column[r] == 0)
				continue;
			pack_number(&pk, r - next);
			pack_number(&pk, column[r]);
			next = r + 1;
		}
	}
	pack_end(&pk);
	fputc('"', out);
}

void html_heatmap(FILE *out, const report *const *reps, size_t n, const html_series *s,
		  uint64_t interval_ns)
{
	uint64_t min_idx, max_idx, max_count;
	if (!bucket_span(reps, n, s, &min_idx, &max_idx, &max_count))
		return;
	uint64_t rows = max_idx - min_idx + 1;
	uint64_t *column = calloc(rows, sizeof *column);
	if (!column)
		return;
	/* Rows of 2 to 8 px, 320 px in all when that allows: a cell stays
	 * big enough to point at over a wide range of latencies. */
	double row_px = 320.0 / (double)rows;
	row_px = row_px < 2 ? 2 : row_px > 8 ? 8 : row_px;
	int plot_h = (int)(row_px * (double)rows + 0.5), plot_w = plot_width(n);

	fputs("<figure class=\"heatmap\"", out);
	series_attributes(out, s, n, interval_ns);
	fprintf(out, " data-rows=\"%llu\" data-max-count=\"%llu\" data-plot-width=\"%d\" "
		"data-plot-height=\"%d\"", (unsigned long long)rows, (unsigned long long)max_count,
		plot_w, plot_h);
	row_bounds(out, min_idx, max_idx);
	heat_cells(out, reps, n, s, max_idx, rows, column);
	interval_percentiles(out, reps, n, s, "p50-ns", false);
	interval_percentiles(out, reps, n, s, "p99-ns", true);
	free(column);
	fprintf(out, ">\n<div class=\"plot\"><svg class=\"axes\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\">\n", PLOT_LEFT + plot_w, plot_h + AXIS_BELOW, PLOT_LEFT + plot_w,
		plot_h + AXIS_BELOW);
	latency_axis(out, min_idx, max_idx, row_px);
	time_axis(out, n, interval_ns, plot_w, plot_h + 14);
	fputs("</svg>", out);
	put_canvases(out, n, rows);
	heat_legend(out, max_count);
	fputs("</figure>\n", out);
}

void html_histogram(FILE *out, const report *rep, const html_series *s, uint64_t window_ns)
{
	const report_stats *st = html_series_stats(rep, s);
	uint64_t min_idx = UINT64_MAX, max_idx = 0, max_count = 0;
	if (!st)
		return;
	for (size_t b = 0; b < st->n_buckets; b++) {
		uint64_t idx = hist_bucket_index(st->buckets[b].lo_ns);
		min_idx = idx < min_idx ? idx : min_idx;
		max_idx = idx > max_idx ? idx : max_idx;
		max_count = st->buckets[b].count > max_count ? st->buckets[b].count : max_count;
	}
	if (st->n_buckets == 0 || max_count == 0)
		return;
	const int plot_h = 140;
	double col_px = (double)PLOT_WIDTH / (double)(max_idx - min_idx + 1);
	char t[32];

	fputs("<figure>\n", out);
	svg_open(out, "hist", s, 1, window_ns, plot_h + AXIS_BELOW);
	fputs(">\n", out);
	fprintf(out, "<text x=\"%d\" y=\"10\" text-anchor=\"end\">%llu</text>"
		"<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", PLOT_LEFT - 6,
		(unsigned long long)max_count, PLOT_LEFT - 6, plot_h);
	for (uint64_t d = 1; d <= 100000000000ull; d *= 10) {
		uint64_t idx = hist_bucket_index(d);
		if (idx < min_idx || idx > max_idx)
			continue;
		decade_label(t, sizeof t, d);
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			PLOT_LEFT + ((double)(idx - min_idx) + 0.5) * col_px, plot_h + 14, t);
	}
	for (size_t b = 0; b < st->n_buckets; b++) {
		const report_bucket *bk = &st->buckets[b];
		uint64_t idx = hist_bucket_index(bk->lo_ns);
		double h = (double)plot_h * (double)bk->count / (double)max_count;
		if (h < 1)
			h = 1;
		fprintf(out, "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
			"data-lo-ns=\"%llu\" data-hi-ns=\"%llu\" data-count=\"%llu\"/>\n",
			PLOT_LEFT + (double)(idx - min_idx) * col_px, plot_h - h,
			col_px > 2 ? col_px - 1 : col_px, h, (unsigned long long)bk->lo_ns,
			(unsigned long long)bk->hi_ns, (unsigned long long)bk->count);
	}
	fputs("</svg>\n</figure>\n", out);
}

void html_utilization_strip(FILE *out, const report *const *reps, size_t n, const html_series *s,
			    uint64_t interval_ns)
{
	const int strip_h = 14, plot_w = plot_width(n);
	bool any = false;
	for (size_t i = 0; i < n && !any; i++)
		any = html_group_of(html_probe_named(reps[i], s->probe), s->tid) != NULL;
	if (!any)
		return;
	packer pk = { .out = out };
	fputs("<figure class=\"util\"", out);
	series_attributes(out, s, n, interval_ns);
	fprintf(out, " data-plot-width=\"%d\" data-plot-height=\"%d\" data-busy=\"", plot_w, strip_h);
	/* Per interval: 0 when the thread is not in it, else the busy share
	 * in thousandths, plus one. */
	for (size_t i = 0; i < n; i++) {
		const report_group *g = html_group_of(html_probe_named(reps[i], s->probe), s->tid);
		double u = g ? g->utilization : 0;
		u = u < 0 ? 0 : u > 1 ? 1 : u;
		pack_number(&pk, g ? (uint64_t)lround(u * 1000) + 1 : 0);
	}
	pack_end(&pk);
	fprintf(out, "\">\n<div class=\"plot\"><svg class=\"axes\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\"><text x=\"%d\" y=\"11\" text-anchor=\"end\">busy</text></svg>",
		PLOT_LEFT + plot_w, strip_h, PLOT_LEFT + plot_w, strip_h, PLOT_LEFT - 6);
	put_canvases(out, n, 1);
	fputs("</figure>\n", out);
}
