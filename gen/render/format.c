/* format — the table of output formats (format.h). */
#include "render/format.h"

#include <string.h>

#include "render/render.h"

static int one_text(FILE *out, const report *rep, bool line)
{
	(void)line;
	return render_text(out, rep);
}

static int one_json(FILE *out, const report *rep, bool line)
{
	return line ? render_json_line(out, rep) : render_json(out, rep);
}

static int one_prom(FILE *out, const report *rep, bool line)
{
	(void)line;
	return render_prom(out, rep);
}

static int one_folded(FILE *out, const report *rep, bool line)
{
	(void)line;
	return render_folded(out, rep);
}

static const output_format formats[] = {
	{ .name = "text", .one = one_text, .what = "report", .interval_headers = true,
	  .diff = true },
	{ .name = "json", .one = one_json, .what = "JSON report", .diff = true },
	{ .name = "prom", .one = one_prom, .what = "Prometheus text", .one_report = true },
	{ .name = "html", .whole = render_html, .what = "HTML report",
	  .no_cumulative = "-o html draws each interval as a heatmap column: it takes -i without "
			   "--cumulative (the page sums the intervals itself)" },
	{ .name = "trace", .whole = render_trace, .what = "trace", .slices = true,
	  .needs_timeline = true,
	  .no_cumulative = "-o trace puts every interval's slices on one timeline: it takes -i "
			   "without --cumulative",
	  .not_from_saved = "a saved report has no slices: -o trace is for run and the "
			    "one-liners, which record them as they trace" },
	{ .name = "folded", .one = one_folded, .what = "folded stacks", .needs_stacks = true },
};

#define N_FORMATS (sizeof formats / sizeof *formats)

const output_format *const output_format_text = &formats[0];

const output_format *output_format_at(size_t i)
{
	return i < N_FORMATS ? &formats[i] : NULL;
}

const output_format *output_format_named(const char *name)
{
	for (size_t i = 0; name && i < N_FORMATS; i++)
		if (strcmp(name, formats[i].name) == 0)
			return &formats[i];
	return NULL;
}
