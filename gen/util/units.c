/* units — see units.h. */
#include "util/units.h"

#include <string.h>

const char *const unit_names[] = { "ns", "us", "ms", "s", "auto", NULL };
static const uint64_t unit_mults[] = { 1, 1000, 1000000, 1000000000, 1000 };

const char *unit_name(time_unit u)
{
	return (unsigned)u <= UNIT_AUTO ? unit_names[u] : "?";
}

uint64_t unit_ns(time_unit u)
{
	return (unsigned)u <= UNIT_AUTO ? unit_mults[u] : 1;
}

time_unit unit_for(uint64_t ns)
{
	time_unit u = UNIT_NS;
	while (u + 1 < N_TIME_UNITS && ns >= unit_mults[u + 1])
		u++;
	return u;
}

int unit_lookup(const char *s, size_t len, time_unit *u)
{
	for (int k = 0; k < N_TIME_UNITS; k++)
		if (strlen(unit_names[k]) == len && memcmp(s, unit_names[k], len) == 0) {
			*u = (time_unit)k;
			return 0;
		}
	return -1;
}
