/* wire — see wire.h. */
#include "model/wire.h"

#include <stddef.h>

static const char *const none[] = { NULL };
static const char *const timed[] = { WIRE_BUCKETS, WIRE_SUM, WIRE_MIN, WIRE_MAX, NULL };
static const char *const syscalls[] = { WIRE_BUCKETS, WIRE_STATS, WIRE_MIN, WIRE_MAX, WIRE_ERRORS,
					NULL };
static const char *const events[] = { WIRE_THREAD, WIRE_DROPPED, NULL };
static const char *const hits[] = { WIRE_HITS, NULL };
static const char *const waiting[] = { WIRE_WAITING, NULL };

static const wire_kind kinds[N_PROBE_KINDS] = {
	[PROBE_LATENCY] = { timed, none, .shared = true },
	[PROBE_SYSCALLS] = { syscalls, none },
	[PROBE_EVENTS] = { events, none },
	[PROBE_COUNT] = { hits, none },
	[PROBE_UTILIZATION] = { timed, waiting },
};

const wire_kind *wire_of(probe_kind kind)
{
	static const wire_kind nothing = { none, none, false };
	return (unsigned)kind < N_PROBE_KINDS ? &kinds[kind] : &nothing;
}
