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

/* The child's side of bpftrace's fork (PARENT: bpfspec's pid): its own
 * process group, death with bpfspec, stdin from /dev/null, stdout to
 * OUT_W, stderr to ERR_W, the program at RUNNER_SCRIPT_FD, the settings
 * of O's bpftrace version, then exec.  If the exec fails, its errno is
 * written to REPORT_W.  Never returns. */
void runner_exec_bpftrace(const runner_opts *o, int script_fd, int out_w, int err_w, int report_w,
			  pid_t parent) __attribute__((noreturn));

#endif
