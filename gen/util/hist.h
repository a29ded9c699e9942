/* hist — the log-linear histogram buckets of every duration bpfspec
 * measures: below 16 ns one bucket per nanosecond, then 16 buckets per
 * power of two (each at most 1/16 of its lower bound wide).  The
 * programs compute the same index in bpftrace (templates/latency.bt.in
 * and the kinds' templates); reports read the bounds back from it.
 * Bottom module: standard headers only. */
#ifndef BPFSPEC_HIST_H
#define BPFSPEC_HIST_H

#include <stdint.h>

/* The index of the bucket holding NS. */
uint64_t hist_bucket_index(uint64_t ns);

/* The bounds [*LO, *HI) of bucket INDEX; UINT64_MAX for both past the
 * last bucket. */
void hist_bucket_bounds(uint64_t index, uint64_t *lo, uint64_t *hi);

#endif
