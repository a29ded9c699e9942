/* discover_internal — what discover.c and discover_proc.c share: reading
 * a process's fields through a directory descriptor already open on
 * /proc/PID, so that one scan reads every field of one process from the
 * same process.  Not for other modules. */
#ifndef BPFSPEC_DISCOVER_INTERNAL_H
#define BPFSPEC_DISCOVER_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include "target/discover.h"

/* Opens directory PID under ROOT_FD.  Returns the descriptor, or -1 with
 * errno set (ENOENT: the process is gone). */
int discover_proc_open(int root_fd, pid_t pid);

/* Reads FIELDS (DISCOVER_F_*) not yet read into OUT from the process
 * directory DIR_FD (OUT->pid is set by the caller).  A field that cannot
 * be read gets its errno.  Returns 0, or -1 with errno ENOMEM. */
int discover_proc_read_fd(int dir_fd, unsigned fields, discover_proc *out);

/* True when ERR says the process is gone rather than unreadable. */
static inline bool discover_err_gone(int err)
{
	return err == ENOENT || err == ESRCH;
}

#endif
