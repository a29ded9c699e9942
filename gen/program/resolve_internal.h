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

struct resolved;

/* The functions the points of each active probe whose kind needs them
 * (spec_kind_needs.point_symbols) name on OBJECT main exist in the
 * target's executable (resolve_points.c).  Returns 0, or -1 after a
 * diagnostic per missing one. */
int resolve_check_points(const struct resolved *r);

/* libuv VERSION ("1.46.0") is 1.45 or later; unknown (NULL) counts as
 * later (resolve.c). */
bool libuv_new_order(const char *version);
/* Finds OpenSSL's functions (resolve_tls_functions) for each active
 * probe whose kind needs them (spec_kind_needs.tls_functions) in the
 * target's executable, else in a libssl.so* it maps (resolve_tls.c);
 * where none has them, sets the probe's tls_missing and warns that
 * HTTPS is not measured.  Never fails. */
void resolve_tls(struct resolved *r);

#endif
