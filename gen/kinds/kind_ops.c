/* kind_ops — see kind_ops.h. */
#include "model/kind_ops.h"

#include <stddef.h>

const kind_ops *kind_ops_of(probe_kind kind)
{
	switch (kind) {
	case PROBE_LATENCY:
		return &kind_latency_ops;
	case PROBE_SYSCALLS:
		return &kind_syscalls_ops;
	case PROBE_EVENTS:
		return &kind_events_ops;
	case PROBE_COUNT:
		return &kind_count_ops;
	case PROBE_UTILIZATION:
		return &kind_utilization_ops;
	}
	return NULL;
}
