/* systab — lookups over the generated tables (see systab.h). */
#include "util/systab.h"

#include <string.h>

static const char *by_number(const systab_entry *t, size_t n, long nr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid].nr == nr)
			return t[mid].name;
		if (t[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int systab_syscall_nr(const char *name)
{
	for (size_t i = 0; i < systab_n_syscalls; i++)
		if (strcmp(systab_syscalls[i].name, name) == 0)
			return systab_syscalls[i].nr;
	return -1;
}

const char *systab_syscall_name(long nr)
{
	return by_number(systab_syscalls, systab_n_syscalls, nr);
}

const char *systab_errno_name(long e)
{
	return by_number(systab_errnos, systab_n_errnos, e);
}
