/* render_html_charts — the pictures of the HTML report (render_html.h):
 * latency heatmaps across intervals, histograms of one window, and
 * utilization strips, as inline SVG.  Every figure is drawn from the
 * report model's buckets as they are (no re-binning): a heatmap cell is
 * one bucket of one interval, a bar one bucket of the window, each with
 * its bounds and count in data attributes that the tooltip (report.js)
 * and the browser test read. */
#include "render_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "render_internal.h"
#include "safe.h"

#define PLOT_LEFT 64		/* px for the latency axis labels */
#define PLOT_WIDTH 880		/* px of the plot area */
#define AXIS_BELOW 18		/* px for the time axis labels */

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

/* The heat level (0..HTML_HEAT_LEVELS-1) of COUNT where the largest is
 * MAX: its share of MAX on a log scale, so that rare slow calls stay
 * visible beside a crowd of fast ones. */
static int heat_level(uint64_t count, uint64_t max)
{
	if (max <= 1)
		return HTML_HEAT_LEVELS - 1;
	int level = (int)(HTML_HEAT_LEVELS * log1p((double)count) / log1p((double)max));
	return level >= HTML_HEAT_LEVELS ? HTML_HEAT_LEVELS - 1 : level < 0 ? 0 : level;
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

/* data-NAME="v0,v1,..." of each interval's p50 or p99 (0: no calls). */
static void interval_list(FILE *out, const report *const *reps, size_t n, const html_series *s,
			  const char *attr, bool p99)
{
	fprintf(out, " data-%s=\"", attr);
	for (size_t i = 0; i < n; i++) {
		const report_stats *st = html_series_stats(reps[i], s);
		fprintf(out, "%s%llu", i ? "," : "",
			(unsigned long long)(st ? (p99 ? st->p99_ns : st->p50_ns) : 0));
	}
	fputc('"', out);
}

/* The opening of a figure's svg: class CLS, the series, and the interval
 * length for the tooltip. */
static void svg_open(FILE *out, const char *cls, const html_series *s, size_t n,
		     uint64_t interval_ns, int height)
{
	fprintf(out, "<svg class=\"%s\" data-probe=\"", cls);
	safe_fputs_html(s->probe, out);
	if (s->syscall) {
		fputs("\" data-syscall=\"", out);
		safe_fputs_html(s->syscall, out);
	}
	fprintf(out, "\" data-tid=\"%ld\" data-intervals=\"%zu\" data-interval-ns=\"%llu\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"", s->tid, n,
		(unsigned long long)interval_ns, PLOT_LEFT + PLOT_WIDTH, height,
		PLOT_LEFT + PLOT_WIDTH, height);
}

void html_heatmap(FILE *out, const report *const *reps, size_t n, const html_series *s,
		  uint64_t interval_ns)
{
	uint64_t min_idx, max_idx, max_count;
	if (!bucket_span(reps, n, s, &min_idx, &max_idx, &max_count))
		return;
	uint64_t rows = max_idx - min_idx + 1;
	/* Rows of 2 to 8 px, 320 px in all when that allows: a cell stays
	 * big enough to point at over a wide range of latencies. */
	double row_px = 320.0 / (double)rows;
	row_px = row_px < 2 ? 2 : row_px > 8 ? 8 : row_px;
	int plot_h = (int)(row_px * (double)rows + 0.5);

	fputs("<figure>\n", out);
	svg_open(out, "heatmap", s, n, interval_ns, plot_h + AXIS_BELOW);
	interval_list(out, reps, n, s, "p50-ns", false);
	interval_list(out, reps, n, s, "p99-ns", true);
	fputs(">\n", out);
	latency_axis(out, min_idx, max_idx, row_px);
	fprintf(out, "<text x=\"%d\" y=\"%d\">+0 s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">"
		"+%.1f s</text>\n", PLOT_LEFT, plot_h + 14, PLOT_LEFT + PLOT_WIDTH, plot_h + 14,
		(double)interval_ns * (double)n / 1e9);
	/* The cells, in a plot whose units are intervals and buckets. */
	fprintf(out, "<svg x=\"%d\" y=\"0\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %zu %llu\" "
		"preserveAspectRatio=\"none\">\n", PLOT_LEFT, PLOT_WIDTH, plot_h, n,
		(unsigned long long)rows);
	for (size_t i = 0; i < n; i++) {
		const report_stats *st = html_series_stats(reps[i], s);
		for (size_t b = 0; st && b < st->n_buckets; b++) {
			const report_bucket *bk = &st->buckets[b];
			uint64_t idx = hist_bucket_index(bk->lo_ns);
			fprintf(out, "<rect class=\"cell h%d\" x=\"%zu\" y=\"%llu\" width=\"1\" "
				"height=\"1\" data-interval=\"%zu\" data-lo-ns=\"%llu\" data-hi-ns=\"%llu\" "
				"data-count=\"%llu\"/>\n", heat_level(bk->count, max_count), i,
				(unsigned long long)(max_idx - idx), i, (unsigned long long)bk->lo_ns,
				(unsigned long long)bk->hi_ns, (unsigned long long)bk->count);
		}
	}
	fputs("</svg></svg>\n", out);
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
	const int strip_h = 14;
	bool any = false;
	for (size_t i = 0; i < n && !any; i++)
		any = html_group_of(html_probe_named(reps[i], s->probe), s->tid) != NULL;
	if (!any)
		return;
	fputs("<figure>\n", out);
	svg_open(out, "util", s, n, interval_ns, strip_h);
	fprintf(out, ">\n<text x=\"%d\" y=\"11\" text-anchor=\"end\">busy</text>\n"
		"<svg x=\"%d\" y=\"0\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %zu 1\" "
		"preserveAspectRatio=\"none\">\n", PLOT_LEFT - 6, PLOT_LEFT, PLOT_WIDTH, strip_h, n);
	for (size_t i = 0; i < n; i++) {
		const report_group *g = html_group_of(html_probe_named(reps[i], s->probe), s->tid);
		if (!g)
			continue;
		int tenth = (int)(g->utilization * 10);
		fprintf(out, "<rect class=\"ucell u%d\" x=\"%zu\" y=\"0\" width=\"1\" height=\"1\" "
			"data-interval=\"%zu\" data-utilization=\"%.4f\"/>\n",
			tenth > 9 ? 9 : tenth < 0 ? 0 : tenth, i, i, g->utilization);
	}
	fputs("</svg></svg>\n</figure>\n", out);
}
