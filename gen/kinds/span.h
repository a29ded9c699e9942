/* span — a span probe's parts shared by its files (gen/kinds/span.c: the
 * row, spec rules, reports and outputs; span_program.c: its probes).
 *
 * A span is work that passes probe points in order, perhaps on other
 * threads: it starts at a point without a stage, and each later point
 * ends a stage (docs/spec.md#spans).  The kernel keeps the open spans
 * in a table of `limit` slots, a span's slot picked by its key; a span
 * that falls on a slot another open span holds evicts it (counted).
 *
 * Maps, NAME the probe's (wire.h's prefixes are per kind; these are the
 * span's):
 *   @spb_NAME[STAGE, LK, BUCKET, LABEL]  spans (stages) by log-linear bucket
 *   @spsum_NAME[STAGE, LK, LABEL], @spmin_..., @spmax_...   ns
 *   @spev_NAME                           spans evicted in the window
 *   @spopen_NAME, @spgone_NAME           spans opened, and ended or
 *                                        evicted, since tracing began (kept)
 *   @spw_NAME[TID]                       with 'workers': ns each thread spent
 *                                        in that stage, begun and ended on it
 *   @splt_NAME[NUMBER]                   with a string label: each string
 *                                        kept apart, by the number LABEL
 *                                        holds (kept)
 * STAGE is the stage's index (0 for the first), the number of stages
 * for whole spans; LK is 0 (no label), 1 (LABEL is the label: a string
 * label's number in @splt) or 2 (other: past the spec's 'labels';
 * LABEL 0). */
#ifndef BPFSPEC_KINDS_SPAN_H
#define BPFSPEC_KINDS_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "spec/spec.h"

#define SPAN_BUCKETS "spb"
#define SPAN_SUM "spsum"
#define SPAN_MIN "spmin"
#define SPAN_MAX "spmax"
#define SPAN_EVICTED "spev"
#define SPAN_OPENED "spopen"
#define SPAN_GONE "spgone"
#define SPAN_WORKER "spw"
#define SPAN_LABEL_TEXT "splt"

/* LK's values. */
enum { SPAN_NO_LABEL, SPAN_LABEL, SPAN_OTHER };

/* The stage point I of P ends: 0 for a point that starts the span, else
 * 1 + the index of its stage among P's stages. */
size_t span_stage_of(const spec_probe *p, size_t i);

/* How many stages P has. */
size_t span_stages(const spec_probe *p);

/* The number (1-based, as span_stage_of's) of P's 'workers' stage; 0:
 * none. */
size_t span_workers_stage(const spec_probe *p);

/* Whether a point of P reads a label; a string label ('str(VALUE)'). */
bool span_labelled(const spec_probe *p);
bool span_string_labelled(const spec_probe *p);

struct gen_parts;
struct resolved;
struct report_probe;
struct report;
struct json_t;
struct ps_add;

/* The row's operations at each stage (model/kind.h), defined in
 * span_program.c (emit) and span_render.c (the outputs). */
int span_emit(struct gen_parts *pt, const struct resolved *r, size_t i);
void span_text_row(FILE *out, const struct report_probe *p, const struct report *rep);
void span_text_details(FILE *out, const struct report_probe *p, const struct report *rep);
void span_json(struct json_t *jp, const struct report_probe *p, const struct report *rep);
void span_prom(FILE *out, const struct report *rep);
int span_serve(struct ps_add *a, const struct report_probe *p);
extern const struct ps_family_def *const span_families[];

#endif
