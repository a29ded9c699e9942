/* runner — runs bpftrace as a child process and feeds its output to a
 * bpfout parser.
 *
 * bpftrace is started with fork/execve and an argv array (never a shell),
 * as `bpftrace -f json /dev/fd/3`, the program being passed through a
 * sealed memfd (no file on disk, nothing another user can read or swap).
 * It runs in its own process group: a terminal's Ctrl-C reaches bpfspec,
 * which forwards one SIGINT (bpftrace detaches, runs END, prints maps);
 * a second Ctrl-C or SIGTERM kills bpftrace outright (the kernel detaches
 * its probes when its file descriptors close).  stderr is classified:
 * the harmless RLIMIT_MEMLOCK line is dropped, other lines are shown
 * prefixed with "bpftrace: ", with the program's name replaced by
 * "<generated program>" so that `bpfspec gen` shows the line meant.
 *
 * Ownership: runner_result_free releases what runner_run stored; the
 * options are borrowed. */
#ifndef BPFSPEC_RUNNER_H
#define BPFSPEC_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpfout.h"
#include "gen.h"

/* A command started by bpfspec and held before execve until the probes
 * are attached (-c): released when the program's BEGIN probe runs, which
 * bpftrace does only after attaching every probe. */
typedef struct held_command {
	pid_t pid;		/* 0 when none */
	int release_fd;		/* write end of the pipe the child waits on */
	int status;		/* wait status once reaped */
	bool reaped;
} held_command;

/* Forks a child that waits, then runs PATH with ARGV.  Returns 0, or -1
 * after a diagnostic. */
int runner_hold_command(const char *path, char *const argv[], held_command *h);

/* Lets the held child run (it execs).  Returns 0 or -1. */
int runner_release(held_command *h);

/* Makes a held child exit without running the command, and reaps it. */
void runner_abandon(held_command *h);

typedef void (*runner_window_fn)(void *ctx, const bpfout_window *w);

typedef struct runner_opts {
	const char *bpftrace;	/* program name (PATH search) or path */
	const program *prog;
	pid_t pid;		/* traced process, watched for exit */
	held_command *held;	/* -c: released once probes attach; or NULL */
	uint64_t window_ns;	/* > 0: the program ends its window itself */
	bpfout *out;		/* receives every stdout line */
	runner_window_fn on_window;	/* called when the program's own window
					 * completes before any stop (signal,
					 * target exit) */
	void *ctx;
	bool verbose;
	uint64_t t0_ns;		/* CLOCK_MONOTONIC when bpfspec started, for -v */
} runner_opts;

typedef struct runner_result {
	bool started;		/* bpftrace was executed */
	int exit_code;		/* bpftrace's exit code; -1 if killed by a signal */
	int term_signal;	/* the signal that killed it, or 0 */
	bool interrupted;	/* SIGINT/SIGTERM received once (forwarded) */
	bool forced;		/* received twice: bpftrace was killed */
	bool target_exited;	/* the traced process ended during the run */
	bool window_done;	/* on_window was called */
	unsigned error_lines;	/* stderr lines that said ERROR */
	uint64_t attach_ns;	/* start to attached_probes, 0 if never */
	uint64_t elapsed_ns;	/* attached_probes to the end of the run */
	uint64_t stop_mono_ns;	/* CLOCK_MONOTONIC (bpftrace's nsecs) of the first
				 * stop: signal or target exit; 0 if none */
	char first_error[512];	/* the first ERROR line, cleaned */
} runner_result;

/* Runs bpftrace to completion.  Returns 0 when it ran (whatever its exit
 * status; see RES), -1 when it could not be started (diagnosed). */
int runner_run(const runner_opts *o, runner_result *res);

/* Exit status meaning "interrupted twice". */
#define RUNNER_FORCED_EXIT 130

#endif
