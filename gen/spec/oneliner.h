/* oneliner — the specs behind the one-liner commands.
 *
 * `bpfspec latency FUNC...`, `bpfspec syscalls [NAME,...]` and
 * `bpfspec count PROBE...` write a
 * spec as YAML text and hand it to the same loader as a spec file, so a
 * one-liner is validated exactly like a spec and `--emit-spec` prints a
 * file the user can keep and grow.  Values are written as double-quoted
 * YAML scalars with every unusual byte escaped: whatever the arguments,
 * the text parses into the structure intended, and the loader's grammar
 * then decides whether the values are acceptable.
 *
 * Ownership: both return an owned NUL-terminated string, or NULL when
 * out of memory. */
#ifndef BPFSPEC_ONELINER_H
#define BPFSPEC_ONELINER_H

#include <stddef.h>
#include <stdint.h>

/* A latency probe per function, searched in the executable first, then
 * in every object mapped into the target. */
char *oneliner_latency(char *const *funcs, size_t n_funcs, uint64_t duration_ns);

/* One syscalls probe: LIST is "openat,read,..." or NULL/"all" for every
 * syscall. */
char *oneliner_syscalls(const char *list, uint64_t duration_ns);

/* A count probe per probe point (quoted as given: the loader checks the
 * grammar), named after the point: its last part ("sched_switch"), the
 * event of a software point, "profile" for profile points; unique. */
char *oneliner_count(char *const *points, size_t n_points, uint64_t duration_ns);

#endif
