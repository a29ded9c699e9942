/* kind — see kind.h. */
#include "kind.h"

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

bool kind_has_durations(probe_kind kind)
{
	switch (kind) {
	case PROBE_LATENCY:
	case PROBE_SYSCALLS:
	case PROBE_UTILIZATION:
		return true;
	case PROBE_EVENTS:
	case PROBE_COUNT:
		return false;
	}
	return false;
}
