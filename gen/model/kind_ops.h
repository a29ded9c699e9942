/* kind_ops — what a probe kind does at each stage, one struct per kind,
 * one file per kind (gen/kinds/KIND.c).
 *
 * The stages hold what every kind shares (the program's skeleton, the
 * report's header, the renderers' layout) and call the kind's operations
 * for the rest.  The kind's file also holds what the spec layer asks of
 * it (spec_kind_rules, spec_internal.h: the keys it takes, the rules
 * between them, what it needs of the target, which resolve.c reads), so
 * that neither the spec loader nor resolve names a kind.  Adding a kind
 * is one file here, a line in kind.h, kind_ops.c and spec_probes.c's
 * sl_kind_rules, its shape (kind.c), its wire table (wire.c) and
 * templates.  Below the report, spec checks, check evaluation, the report
 * loader and diff read the kind's shape (kind.h).
 *
 * Every operation but prom is given a probe of its own kind; prom is
 * given the whole report and writes its kind's families over every probe
 * of that kind in it. */
#ifndef BPFSPEC_KIND_OPS_H
#define BPFSPEC_KIND_OPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/kind.h"
#include "model/report.h"
#include "program/resolve.h"
#include "run/bpfout.h"
#include "util/buf.h"

struct gen_parts;
struct json_t;

/* What report_build knows of the run when it fills a probe. */
typedef struct kind_fill_ctx {
	const report_run *run;
	report_pids pids;	/* the traced processes (none: n 0) */
	uint64_t begin_ns;	/* the window, bpftrace's clock */
	uint64_t end_ns;
} kind_fill_ctx;

typedef struct kind_ops {
	probe_kind kind;

	/* ---- gen (gen_internal.h) ---- */
	/* Statements for BEGIN: window starts (parts' starts, repeated with
	 * every window) and map typings (parts' types, BEGIN only), for
	 * active probe R->probes[I].  NULL: none. */
	void (*begin)(struct gen_parts *pt, const resolved *r, size_t i);
	/* The probes of active probe R->probes[I], appended to the program.
	 * Returns 0, or -1 after a diagnostic. */
	int (*emit)(struct gen_parts *pt, const resolved *r, size_t i);
	/* The rest of the header's "//   NAME  ..." line of active probe RP. */
	void (*describe)(buf *b, const resolved_probe *rp);

	/* ---- report (report_internal.h) ---- */
	/* Fills attached probe P from window W (NULL: nothing was printed).
	 * Returns 0, or -1 out of memory. */
	int (*fill)(report_probe *p, const resolved_probe *rp, const bpfout_window *w,
		    const kind_fill_ctx *ctx);

	/* ---- render (render_internal.h) ---- */
	/* P's row of the text summary after its name, '\n' included. */
	void (*text_row)(FILE *out, const report_probe *p, const report *rep);
	/* What follows the summary for P: its table or histogram. */
	void (*text_details)(FILE *out, const report_probe *p, const report *rep);
	/* P's fields of the JSON report, in docs/report.md's order. */
	void (*json_fields)(struct json_t *jp, const report_probe *p, const report *rep);
	/* The Prometheus families of this kind, over every attached probe of
	 * it in REP (a family's samples must be together). */
	void (*prom)(FILE *out, const report *rep);
	/* P's groups are thread totals of durations, exported as
	 * bpfspec_thread_time_seconds and bpfspec_thread_calls. */
	bool prom_thread_totals;
} kind_ops;

/* The operations of KIND (never NULL for a kind of the enum). */
const kind_ops *kind_ops_of(probe_kind kind);

extern const kind_ops kind_latency_ops, kind_syscalls_ops, kind_events_ops, kind_count_ops,
	kind_utilization_ops;

#endif
