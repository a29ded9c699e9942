/* serve_why — attribution's series in serve's store: each attributed
 * group's time by cause and by syscall slept in, and the report's loop
 * blockers (docs/serve-metrics.md).  The hooks of the feature's row
 * (model/feature.h, serve/promstore_plan.h). */
#ifndef BPFSPEC_SERVE_WHY_H
#define BPFSPEC_SERVE_WHY_H

#include "model/report.h"

struct ps_add;
struct ps_family_def;

/* feature_ops' serve_group, serve and serve_families. */
int serve_why_group(struct ps_add *a, const report_probe *p, const report_group *g,
		    const char *labels);
int serve_why_report(struct ps_add *a, const report *rep, const char *whole);
extern const struct ps_family_def *const serve_why_families[];

#endif
