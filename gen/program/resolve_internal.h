/* resolve_internal — what resolve.c (the probes' functions in the
 * target) and resolve_needs.c (what a run needs beyond them) share.  Not
 * for other modules. */
#ifndef BPFSPEC_RESOLVE_INTERNAL_H
#define BPFSPEC_RESOLVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "spec/spec.h"

/* The probe names a probe point (count probes, events on a point: the
 * spec takes 'probe' of no other kind). */
static inline bool has_point(const spec_probe *p)
{
	return p->probe != NULL;
}

#endif
