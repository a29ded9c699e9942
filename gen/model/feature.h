/* feature — a cross-cutting feature: what it adds to a run at each stage,
 * one row of hooks.  The stage drivers call every feature's hook at fixed
 * points, so no stage names a feature; a feature's code lives in its own
 * folder (attribution: gen/attribution/) and includes only the layers'
 * headers.  Adding a feature is its folder (defining feature_NAME), its
 * line in gen/LAYERS and a row in model/feature.c.
 *
 * Every hook may be NULL (nothing to add at that point) and does nothing
 * for a run or a report that does not use the feature.  The hooks of the
 * phases (probe_hooks, nested_loop_entry, json_probe, json_group) are
 * called by the latency kind, where a phase's probes and fields are
 * written; the others by the stage drivers. */
#ifndef BPFSPEC_FEATURE_H
#define BPFSPEC_FEATURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/report.h"

/* Each stage's types, complete in its own layer (program/generator_internal.h,
 * program/resolve.h, run/bpfout.h, render/report_load_internal.h,
 * serve/promstore_plan.h). */
struct gen_parts;
struct resolved;
struct bpfout_window;
struct json_t;
struct loader;
struct ps_add;
struct ps_family_def;

typedef struct feature_ops {
	const char *name;

	/* ---- program (program/generator_internal.h) ---- */
	/* Adds to BEGIN's map typings and window starts, after the kinds'. */
	void (*begin)(struct gen_parts *pt, const struct resolved *r);
	/* Appends the feature's probes, maps and BEGIN typings once per
	 * program, after the kinds'.  Returns 0, or -1 after a diagnostic. */
	int (*emit)(struct gen_parts *pt, const struct resolved *r);
	/* The statements of probe I's entry (ENTRY) or return, reading the
	 * probe's $now: owned text without a final '\n', or NULL. */
	char *(*probe_hooks)(const struct gen_parts *pt, const struct resolved *r, size_t i,
			     bool entry);
	/* The statement an entry-only libuv phase runs before it returns for
	 * a call of another loop than the thread's (a nested loop): a static
	 * string, "" when nothing. */
	const char *(*nested_loop_entry)(const struct resolved *r);

	/* ---- run (run/report_internal.h) ---- */
	/* Adds the feature's figures from window W (NULL: nothing printed)
	 * to REP, whose probes are filled; the window began at BEGIN_NS.
	 * Returns 0, or -1 out of memory. */
	int (*fill)(report *rep, const struct resolved *r, const struct bpfout_window *w,
		    uint64_t begin_ns);

	/* ---- render (render/render_internal.h) ---- */
	/* The text after the probes' sections. */
	void (*text)(FILE *out, const report *rep);
	/* The report-wide members of the JSON report, into ROOT. */
	void (*json)(struct json_t *root, const report *rep);
	/* Members of probe P's JSON object, and of its group G's. */
	void (*json_probe)(struct json_t *jp, const report_probe *p, const report *rep);
	void (*json_group)(struct json_t *jg, const report_probe *p, const report_group *g);
	/* The feature's Prometheus families, after the kinds'. */
	void (*prom)(FILE *out, const report *rep);
	/* The feature's sections of the HTML page of the stream REPS[0..N)
	 * (consecutive intervals; one for a cumulative stream), after the
	 * probes'.  Returns 0, or -1 out of memory. */
	int (*html)(FILE *out, const report *const *reps, size_t n);
	/* What the timeline (-o trace) draws of REP for the feature: *N
	 * records, each a slice on its thread's track from t_ns (when it
	 * began, since the window began) lasting latency_ns, in category
	 * *CAT; NULL when none. */
	const report_event *(*timeline)(const report *rep, size_t *n, const char **cat);

	/* ---- load (render/report_load_internal.h) ---- */
	/* Reads back what json_probe/json_group wrote for probe P (OBJ at the
	 * JSON path BASE), and what json wrote (ROOT).  Return 0, or -1 after
	 * a diagnostic. */
	int (*load_probe)(struct loader *l, const struct json_t *obj, const char *base,
			  report_probe *p);
	int (*load)(struct loader *l, const struct json_t *root, report *rep);

	/* ---- serve (serve/promstore_plan.h) ---- */
	/* Plans the feature's series of group G of probe P (its thread's
	 * LABELS), after the kind's, and of REP as a whole (the target's
	 * labels WHOLE), after the report's own.  Return 0, or -1 (errno
	 * set). */
	int (*serve_group)(struct ps_add *a, const report_probe *p, const report_group *g,
			   const char *labels);
	int (*serve)(struct ps_add *a, const report *rep, const char *whole);
	/* The families those fill, then NULL. */
	const struct ps_family_def *const *serve_families;
} feature_ops;

/* Every feature, NULL-terminated, in the order their output comes. */
extern const feature_ops *const features[];


#endif
