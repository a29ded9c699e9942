/* runner_internal — what runner.c (the run's loop) shares with
 * runner_child.c (the children it starts) and runner_pids.c (a changing
 * set of processes).  Not for other modules. */
#ifndef BPFSPEC_RUNNER_INTERNAL_H
#define BPFSPEC_RUNNER_INTERNAL_H

#include <sys/types.h>

#include "run/runner.h"
#include "util/child.h"

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

/* runner_pids.c: the lines of a changing set of processes
 * (runner_opts.pids_from_stdin). */
typedef struct runner_pids_in {
	int fd;			/* -1: not read (any more) */
	line_buffer lines;
	const runner_opts *o;
} runner_pids_in;

/* Reads what FROM->fd has and applies every complete line: the program
 * is told through runner_pids_change, then FROM->o->on_pids.  At the end
 * of the input FROM->fd becomes -1 (it is not closed: it is stdin). */
void runner_pids_read(runner_pids_in *from);

#endif
