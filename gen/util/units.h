/* units — the time units every stage reads and writes: ns, us, ms, s.
 *
 * One table for specs (`unit:`, thresholds), checks (`poll.p99 > 100ms`),
 * reports (a probe's display unit) and diffs (reading a report's unit
 * back).  Formatting stays with each output, which picks its digits; the
 * unit itself comes from here.  Bottom module: standard headers only. */
#ifndef BPFSPEC_UNITS_H
#define BPFSPEC_UNITS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	UNIT_NS, UNIT_US, UNIT_MS, UNIT_S,
	UNIT_AUTO,	/* a spec's choice: the report picks the unit of each probe's p99 */
} time_unit;

#define N_TIME_UNITS 4	/* ns, us, ms, s: the units a value can have */

/* The names by unit, then NULL: "ns", "us", "ms", "s", "auto". */
extern const char *const unit_names[];

/* U's name ("?" outside the enum). */
const char *unit_name(time_unit u);

/* Nanoseconds in one U: 1, 1000, 1000000, 1000000000 (auto: 1000, as us). */
uint64_t unit_ns(time_unit u);

/* The unit that suits a duration of NS: the largest of ns, us, ms and s
 * in which it is at least 1. */
time_unit unit_for(uint64_t ns);

/* The unit named by S[0..LEN) ("ns", "us", "ms" or "s"; not auto) into
 * *U.  Returns 0, or -1 when it names none. */
int unit_lookup(const char *s, size_t len, time_unit *u);

#endif
