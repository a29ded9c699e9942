/* wire — see wire.h. */
#include "model/wire.h"

#include <stddef.h>

const char *const wire_no_maps[] = { NULL };
const char *const wire_timed_maps[] = { WIRE_BUCKETS, WIRE_SUM, WIRE_MIN, WIRE_MAX, NULL };

const wire_kind *wire_of(probe_kind kind)
{
	static const wire_kind nothing = { wire_no_maps, wire_no_maps, false };
	const kind_ops *ops = kind_ops_of(kind);
	return ops ? ops->wire : &nothing;
}
