/* systab — this architecture's syscall numbers and errno names.
 *
 * The tables are generated at build time from the C library's headers
 * (scripts/gen-systab.sh), sorted by number.  Lookups return borrowed
 * static strings. */
#ifndef BPFSPEC_SYSTAB_H
#define BPFSPEC_SYSTAB_H

#include <stddef.h>

typedef struct systab_entry {
	int nr;
	const char *name;
} systab_entry;

extern const systab_entry systab_syscalls[];
extern const size_t systab_n_syscalls;
extern const systab_entry systab_errnos[];
extern const size_t systab_n_errnos;

/* Syscall number of NAME ("openat"), or -1 when this architecture has none. */
int systab_syscall_nr(const char *name);

/* Name of syscall NR, or NULL. */
const char *systab_syscall_name(long nr);

/* Name of errno E ("ENOENT"), or NULL. */
const char *systab_errno_name(long e);

#endif
