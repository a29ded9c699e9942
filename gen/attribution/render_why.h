/* render_why — attribution (attribution/why.h) in the text, JSON and
 * Prometheus outputs, through the feature's hooks (attribution.c).  Every function does nothing for a report
 * without attributed probes (report.attributed false). */
#ifndef BPFSPEC_RENDER_WHY_H
#define BPFSPEC_RENDER_WHY_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "model/report.h"

/* The "why" table (phase, thread, total, on-CPU, waiting for a CPU,
 * blocked, other, the syscalls it was blocked in) and the slowest loop
 * blockers. */
void render_why_text(FILE *out, const report *rep);

/* The "attribution" object of a split whose phase took TOTAL_NS (new
 * reference): on_cpu_ns, waiting_for_cpu_ns, blocked_ns,
 * other_off_cpu_ns, unaccounted_ns, syscalls. */
json_t *render_why_json_split(const report_split *s, uint64_t total_ns);

/* The "stacks" array of attributed probe P (new reference): tid, stack
 * (folded), samples. */
json_t *render_why_json_stacks(const report_probe *p);

/* An attributed probe P's "attribution" and, with stack sampling, its
 * "stacks" (new members of JP). */
void render_why_json_probe(json_t *jp, const report_probe *p, const report *rep);

/* Group G's "attribution" when it has a split (a new member of JG). */
void render_why_json_group(json_t *jg, const report_probe *p, const report_group *g);

/* The report's "blockers" object into ROOT. */
void render_why_json(json_t *root, const report *rep);

/* bpfspec_phase_cause_seconds, bpfspec_phase_syscall_blocked_seconds,
 * bpfspec_loop_blockers. */
void render_why_prom(FILE *out, const report *rep);

/* The HTML page's sections (render_why_html.c): where each attributed
 * phase's time went per thread over the stream REPS[0..N), and the
 * slowest loop blockers.  Returns 0, or -1 out of memory. */
int render_why_html(FILE *out, const report *const *reps, size_t n);

/* The loop blockers, as slices of category "blocker" on the timeline. */
const report_event *render_why_timeline(const report *rep, size_t *n, const char **cat);

#endif
