/* kind — the kinds of probe a spec can hold, known by every stage.
 *
 * One enum for the spec (what to trace), the program (what gen emits) and
 * the report model (what a report holds), with its names as specs and JSON
 * reports write them.  Stages dispatch on the enum in switch statements
 * (the build has -Wswitch-enum): a new kind that a stage does not handle
 * does not compile.  Bottom module: standard headers only. */
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

/* Whether a report of KIND holds durations (count, sum, min, max,
 * percentiles): latency, syscalls and utilization do; events and count
 * hold records and hits. */
bool kind_has_durations(probe_kind kind);

#endif
