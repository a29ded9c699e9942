/* kind — the kinds of probe a spec can hold, one row each.
 *
 * A kind is a file, gen/kinds/NAME.c, which defines its row kind_NAME_ops:
 * its name, its shape (what its report holds), its maps, its spec rules
 * and what it does at every stage (emit its probes, fill its report,
 * render it, add it to serve's store).  The stages hold what every kind shares (the program's
 * skeleton, the report's header, the renderers' layout) and call the row
 * for the rest; those that only read reports or checks read its shape.
 * Adding a kind is its file and a line in PROBE_KINDS below (plus its
 * templates).  The row's stage types are named as incomplete structs:
 * each is complete in its own layer (program/generator_internal.h,
 * program/resolve.h, run/bpfout.h, run/report_internal.h,
 * spec/spec_internal.h, model/report.h, serve/promstore_plan.h).
 *
 * Every operation but prom is given a probe of its own kind; prom is
 * given the whole report and writes its kind's families over every probe
 * of that kind in it. */
#ifndef BPFSPEC_KIND_H
#define BPFSPEC_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Every kind, in the order specs, reports and tables list them: its
 * value and its name (its row is kind_NAME_ops).
 *   latency      an entry/return pair on a function
 *   syscalls     latency of a set of syscalls, with errors
 *   events       one record per slow syscall, or per hit of a probe point
 *   count        hits of one probe point
 *   utilization  busy vs idle (waiting in epoll) per loop thread
 *   span         work from one probe point to others, across threads
 *   http         HTTP/1.x server requests per route, from the syscalls */
#define PROBE_KINDS(X) \
	X(PROBE_LATENCY, latency) \
	X(PROBE_SYSCALLS, syscalls) \
	X(PROBE_EVENTS, events) \
	X(PROBE_COUNT, count) \
	X(PROBE_UTILIZATION, utilization) \
	X(PROBE_SPAN, span) \
	X(PROBE_HTTP, http)

#define KIND_ENUM_VALUE(value, name) value,
typedef enum { PROBE_KINDS(KIND_ENUM_VALUE) } probe_kind;
#undef KIND_ENUM_VALUE

#define KIND_PLUS_ONE(value, name) +1
enum { N_PROBE_KINDS = 0 PROBE_KINDS(KIND_PLUS_ONE) };
#undef KIND_PLUS_ONE

/* What a report of a kind holds (docs/report.md), and so what a runbook
 * check (condition.h) can read of it, what the report loader expects and
 * what a diff compares: spec checking, check evaluation, report loading
 * and diff read it instead of naming kinds. */
typedef struct kind_shape {
	bool durations;		/* statistics of durations (sum, min, max, mean,
				 * p50, p90, p99), per thread too; else counts
				 * (per thread for count probes) */
	bool per_syscall;	/* a syscalls array, each with statistics and
				 * errors: PROBE.SYSCALL.STAT and errors paths */
	bool events;		/* an events array (and a threshold for syscalls) */
	bool busy;		/* utilization, and idle and busy time per thread */
	bool spans;		/* stages, rows per stage and label, open and
				 * evicted spans (span probes) */
	bool http;		/* routes (method, route, statuses with their
				 * durations) and slow requests (http probes) */
	bool timeline;		/* -o trace draws each of its calls (slices,
				 * durations) or records (events) */
	const char *article;	/* "a" or "an", before the kind's name */
	const char *counts;	/* what its count counts: "calls", "hits", ... */
} kind_shape;

struct buf;
struct gen_parts;
struct resolved;
struct resolved_probe;
struct bpfout_window;
struct kind_fill_ctx;
struct report;
struct report_probe;
struct wire_kind;
struct spec_kind_rules;
struct json_t;
struct ps_add;
struct ps_family_def;

typedef struct kind_ops {
	probe_kind kind;
	/* ---- model ---- */
	kind_shape shape;
	/* The maps its probes print (model/wire.h). */
	const struct wire_kind *wire;
	/* ---- spec (spec/spec_internal.h) ---- */
	/* The keys it takes, the rules between them, what it needs of the
	 * target (read by resolve). */
	const struct spec_kind_rules *spec;

	/* ---- program (program/generator_internal.h) ---- */
	/* Statements for BEGIN: window starts (parts' starts, repeated with
	 * every window) and map typings (parts' types, BEGIN only), for
	 * active probe R->probes[I].  NULL: none. */
	void (*begin)(struct gen_parts *pt, const struct resolved *r, size_t i);
	/* The probes of active probe R->probes[I], appended to the program.
	 * Returns 0, or -1 after a diagnostic. */
	int (*emit)(struct gen_parts *pt, const struct resolved *r, size_t i);
	/* The rest of the header's "//   NAME  ..." line of active probe RP. */
	void (*describe)(struct buf *b, const struct resolved_probe *rp);

	/* ---- run (run/report_internal.h) ---- */
	/* Fills attached probe P from window W (NULL: nothing was printed).
	 * Returns 0, or -1 out of memory. */
	int (*fill)(struct report_probe *p, const struct resolved_probe *rp, const struct bpfout_window *w,
		    const struct kind_fill_ctx *ctx);

	/* ---- render (render/render_internal.h) ---- */
	/* P's row of the text summary after its name, '\n' included. */
	void (*text_row)(FILE *out, const struct report_probe *p, const struct report *rep);
	/* What follows the summary for P: its table or histogram. */
	void (*text_details)(FILE *out, const struct report_probe *p, const struct report *rep);
	/* P's fields of the JSON report, in docs/report.md's order. */
	void (*json_fields)(struct json_t *jp, const struct report_probe *p, const struct report *rep);
	/* The Prometheus families of this kind, over every attached probe of
	 * it in REP (a family's samples must be together). */
	void (*prom)(FILE *out, const struct report *rep);
	/* P's groups are thread totals of durations, exported as
	 * bpfspec_thread_time_seconds and bpfspec_thread_calls. */
	bool prom_thread_totals;

	/* ---- serve (serve/promstore_plan.h) ---- */
	/* Plans attached probe P's series in serve's store.  Returns 0, or
	 * -1 (errno set). */
	int (*serve)(struct ps_add *a, const struct report_probe *p);
	/* The families it fills, then NULL. */
	const struct ps_family_def *const *serve_families;
} kind_ops;

#define KIND_ROW(value, name) extern const kind_ops kind_##name##_ops;
PROBE_KINDS(KIND_ROW)
#undef KIND_ROW

/* KIND's row (never NULL for a kind of the enum; NULL outside it). */
const kind_ops *kind_ops_of(probe_kind kind);

/* The names, by kind, then NULL: "latency", "syscalls", "events",
 * "count", "utilization". */
extern const char *const kind_names[N_PROBE_KINDS + 1];

/* KIND's name; "?" for a value outside the enum. */
const char *kind_name(probe_kind kind);

/* The kind named NAME into *KIND.  Returns 0, or -1 for an unknown name. */
int kind_from_name(const char *name, probe_kind *kind);

/* KIND's shape; for a value outside the enum, a count alone. */
const kind_shape *kind_shape_of(probe_kind kind);

#endif
