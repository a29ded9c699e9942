/* kind — the kinds of probe a spec can hold, known by every stage.
 *
 * One enum for the spec (what to trace), the program (what gen emits) and
 * the report model (what a report holds), with its names as specs and JSON
 * reports write them, and the shape of its report.  The stages above the
 * report model dispatch through kind_ops (kind_ops.h: a switch, and the
 * build has -Wswitch-enum, so a kind without operations does not
 * compile); those that only read reports or checks read the kind's shape
 * here.  Bottom module: standard headers only. */
#ifndef BPFSPEC_KIND_H
#define BPFSPEC_KIND_H

#include <stdbool.h>

typedef enum {
	PROBE_LATENCY,		/* entry/return pair on a function */
	PROBE_SYSCALLS,		/* latency of a set of syscalls, with errors */
	PROBE_EVENTS,		/* one record per slow syscall, or per hit of a probe point */
	PROBE_COUNT,		/* hits of one probe point */
	PROBE_UTILIZATION,	/* busy vs idle (waiting in epoll) per loop thread */
} probe_kind;

#define N_PROBE_KINDS 5

/* The names, by kind, then NULL: "latency", "syscalls", "events",
 * "count", "utilization". */
extern const char *const kind_names[N_PROBE_KINDS + 1];

/* KIND's name; "?" for a value outside the enum. */
const char *kind_name(probe_kind kind);

/* The kind named NAME into *KIND.  Returns 0, or -1 for an unknown name. */
int kind_from_name(const char *name, probe_kind *kind);

/* What a report of a kind holds (docs/report.md), and so what a runbook
 * check (check.h) can read of it, what the report loader expects and
 * what a diff compares.  One table in kind.c: spec checking, check
 * evaluation, report loading and diff read it instead of naming kinds. */
typedef struct kind_shape {
	bool durations;		/* statistics of durations (sum, min, max, mean,
				 * p50, p90, p99), per thread too; else counts
				 * (per thread for count probes) */
	bool per_syscall;	/* a syscalls array, each with statistics and
				 * errors: PROBE.SYSCALL.STAT and errors paths */
	bool events;		/* an events array (and a threshold for syscalls) */
	bool busy;		/* utilization, and idle and busy time per thread */
	bool timeline;		/* -o trace draws each of its calls (slices,
				 * durations) or records (events) */
	const char *article;	/* "a" or "an", before the kind's name */
	const char *counts;	/* what its count counts: "calls", "hits", ... */
} kind_shape;

/* KIND's shape; for a value outside the enum, a count alone. */
const kind_shape *kind_shape_of(probe_kind kind);

#endif
