/* hist — see hist.h. */
#include "util/hist.h"

uint64_t hist_bucket_index(uint64_t ns)
{
	if (ns < 16)
		return ns;
	unsigned e = 63 - (unsigned)__builtin_clzll(ns);
	return (uint64_t)(e - 3) * 16 + ((ns >> (e - 4)) & 15);
}

void hist_bucket_bounds(uint64_t index, uint64_t *lo, uint64_t *hi)
{
	if (index < 16) {
		*lo = index;
		*hi = index + 1;
		return;
	}
	unsigned e = (unsigned)(index / 16) + 3;
	uint64_t m = index % 16;
	if (e > 63) {
		*lo = *hi = UINT64_MAX;
		return;
	}
	*lo = (16 + m) << (e - 4);
	*hi = (e == 63 && m == 15) ? UINT64_MAX : (17 + m) << (e - 4);
}
