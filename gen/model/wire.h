/* wire — what passes between a generated program and the report: the
 * maps a probe of each kind prints at every window's end.  A map is named
 * @PREFIX_NAME (NAME: the probe's), or for a kind whose maps are shared,
 * @PREFIX keyed by the probe's number first; the prefixes are below.  Each kind
 * (gen/kinds/) prints (and clears) exactly the maps of wire_of(kind) and
 * reads them back by these prefixes, and tests/unit/test_wire.c checks
 * every kind's program prints its table and nothing else.  Bottom module
 * (kind.h only).
 *
 * Records (events) are printf lines that gen/kinds/events.c both writes
 * and parses, and with -o trace gen/kinds/latency.c too (its slices, with
 * "evn" and WIRE_DROPPED as events have them); window markers: generator.h. */
#ifndef BPFSPEC_WIRE_H
#define BPFSPEC_WIRE_H

#include <stdbool.h>

#include "model/kind.h"

#define WIRE_BUCKETS "b"	/* [key, bucket] -> calls: log-linear histogram
				 * (syscalls: [nr, bucket]) */
#define WIRE_SUM "sum"		/* [key] -> ns in total (syscalls: in WIRE_STATS) */
#define WIRE_MIN "min"		/* [key] -> shortest ns (syscalls: [key, nr]) */
#define WIRE_MAX "max"		/* [key] -> longest ns (syscalls: [key, nr]) */
#define WIRE_STATS "st"		/* syscalls: [key, nr] -> stats(): calls and ns
				 * in total, one map update for both */
#define WIRE_ERRORS "err"	/* syscalls: [nr, errno] -> failed calls */
#define WIRE_HITS "c"		/* count: [key] -> hits */
#define WIRE_THREAD "evcomm"	/* events: [tid] -> thread name */
#define WIRE_DROPPED "evdrop"	/* events: -> records over the limit */
#define WIRE_WAITING "uin"	/* utilization: [tid] -> when the wait in
				 * progress began (kept across windows) */
/* utilization's stalls (from a wait's end to the thread's next wait),
 * as WIRE_BUCKETS, WIRE_SUM, WIRE_MIN and WIRE_MAX have its waits */
#define WIRE_STALL_BUCKETS "sb"
#define WIRE_STALL_SUM "ssum"
#define WIRE_STALL_MIN "smin"
#define WIRE_STALL_MAX "smax"

typedef struct wire_kind {
	const char *const *cleared;	/* printed, then cleared, every window */
	const char *const *kept;	/* printed every window, never cleared by it */
	/* The cleared maps are one map each for all the kind's probes:
	 * @PREFIX[N, key...], N the probe's number in the program's
	 * "bpfspec:probes" line (generator.h); bpfout hands them on as @PREFIX_NAME.
	 * A program then has four timed maps, not four per probe. */
	bool shared;
} wire_kind;

/* No map; the maps of durations (buckets, sum, min, max), latency's and
 * utilization's.  NULL-terminated. */
extern const char *const wire_no_maps[];
extern const char *const wire_timed_maps[];

/* The maps a probe of KIND prints (its row's, model/kind.h). */
const wire_kind *wire_of(probe_kind kind);

#endif
