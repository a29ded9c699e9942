/* kind — see kind.h. */
#include "model/kind.h"

#include <string.h>

const char *const kind_names[N_PROBE_KINDS + 1] = {
	"latency", "syscalls", "events", "count", "utilization", NULL,
};

const char *kind_name(probe_kind kind)
{
	return (unsigned)kind < N_PROBE_KINDS ? kind_names[kind] : "?";
}

int kind_from_name(const char *name, probe_kind *kind)
{
	for (int k = 0; name && k < N_PROBE_KINDS; k++)
		if (strcmp(name, kind_names[k]) == 0) {
			*kind = (probe_kind)k;
			return 0;
		}
	return -1;
}

static const kind_shape shapes[N_PROBE_KINDS] = {
	[PROBE_LATENCY] = { .durations = true, .timeline = true, .article = "a", .counts = "calls" },
	[PROBE_SYSCALLS] = { .durations = true, .per_syscall = true, .article = "a",
			     .counts = "calls" },
	[PROBE_EVENTS] = { .events = true, .timeline = true, .article = "an", .counts = "events" },
	[PROBE_COUNT] = { .article = "a", .counts = "hits" },
	[PROBE_UTILIZATION] = { .durations = true, .busy = true, .article = "a",
				.counts = "waits" },
};

const kind_shape *kind_shape_of(probe_kind kind)
{
	static const kind_shape unknown = { .article = "a", .counts = "hits" };

	return (unsigned)kind < N_PROBE_KINDS ? &shapes[kind] : &unknown;
}
