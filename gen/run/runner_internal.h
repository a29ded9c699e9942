/* runner_internal — what runner.c (the run's loop) shares with
 * runner_child.c (the children it starts).  Not for other modules. */
#ifndef BPFSPEC_RUNNER_INTERNAL_H
#define BPFSPEC_RUNNER_INTERNAL_H

#include <sys/types.h>

#include "run/runner.h"

/* The program reaches bpftrace as this fd, named by this path. */
#define RUNNER_SCRIPT_FD 3
#define RUNNER_SCRIPT_NAME "/dev/fd/3"

/* Writes program P into a sealed memfd.  Returns the fd, or -1 after
 * saying why. */
int runner_program_memfd(const program *p);

/* Starts bpftrace on the program at SCRIPT_FD (it reads it as
 * RUNNER_SCRIPT_FD), stdout to OUT_W, stderr to ERR_W, in a process group
 * of its own, killed when bpfspec ends, with the settings of O's
 * bpftrace version.  If its exec fails, the errno goes to ERRNO_W.
 * Returns its pid, or -1 (errno set) when the fork failed. */
pid_t runner_start_bpftrace(const runner_opts *o, int script_fd, int out_w, int err_w, int errno_w);

#endif
