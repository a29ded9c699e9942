/* render_why — attribution (gen/attribution/why.h) in the text, JSON and Prometheus
 * outputs: render_text, render_json, render_prom and the latency kind's
 * JSON fields call these.  Every function does nothing for a report
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

/* Every sampled stack of REP, one line each in the folded form flame
 * graph tools read: "PHASE;THREAD_(tid_N);OUTER;...;INNER SAMPLES".
 * Returns 0, or -1 when writing failed. */
int render_why_folded(FILE *out, const report *rep);

/* The report's "blockers" object into ROOT. */
void render_why_json(json_t *root, const report *rep);

/* bpfspec_phase_cause_seconds, bpfspec_phase_syscall_blocked_seconds,
 * bpfspec_loop_blockers. */
void render_why_prom(FILE *out, const report *rep);

#endif
