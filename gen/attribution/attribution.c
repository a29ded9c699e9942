/* attribution — the feature's row (model/feature.h): where each stage
 * calls it.  why.h says what attribution is; why.c writes its part of the
 * program, why_report.c reads it into the report, render_why.c shows it,
 * report_load_why.c reads a JSON report's back, serve_why.c adds its
 * series to serve's store. */
#include "attribution/render_why.h"
#include "attribution/report_load_why.h"
#include "attribution/serve_why.h"
#include "attribution/why.h"
#include "model/feature.h"

const feature_ops feature_attribution = {
	.name = "attribution",
	.begin = why_begin,
	.emit = why_emit,
	.probe_hooks = why_hooks,
	.nested_loop_entry = why_nested_entry,
	.fill = why_fill,
	.text = render_why_text,
	.json = render_why_json,
	.json_probe = render_why_json_probe,
	.json_group = render_why_json_group,
	.prom = render_why_prom,
	.html = render_why_html,
	.timeline = render_why_timeline,
	.load_probe = rl_load_attribution,
	.load = rl_load_blockers,
	.serve_group = serve_why_group,
	.serve = serve_why_report,
	.serve_families = serve_why_families,
};
