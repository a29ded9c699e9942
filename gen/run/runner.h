/* runner — runs bpftrace as a child process and feeds its output to a
 * bpfout parser.
 *
 * bpftrace is started with fork/execve and an argv array (never a shell),
 * as `bpftrace -f json /dev/fd/3`, the program being passed through a
 * sealed memfd (no file on disk, nothing another user can read or swap).
 * It runs in its own process group and dies with bpfspec
 * (PR_SET_PDEATHSIG), so no probe outlives the run.
 *
 * When the window ends — the duration has passed since the probes were
 * attached, Ctrl-C or SIGTERM arrived, or a traced process exited (with
 * several, the first of them to exit ends the run: the others are not
 * traced on without it; unless the set changes through stdin,
 * runner_opts.pids_from_stdin, as serve's children's does) — bpfspec
 * calls runner_window_end(), a function of its own that the program
 * probes (see gen_options.trigger_*): the program prints its maps at once,
 * before bpftrace spends ~0.1 s per probe detaching, and exits.  If the
 * program cannot be triggered (bpftrace still attaching, no trigger in the
 * program), bpftrace gets SIGINT instead (it detaches, runs END, which
 * prints the maps).  A bpftrace that has not answered the trigger after
 * 3 s is sent SIGINT only if it has neither printed nor used CPU since:
 * on a saturated host it is slow, not dead (up to 120 s in all).  A second
 * Ctrl-C or SIGTERM kills bpftrace outright; the kernel detaches its probes
 * when its file descriptors close.
 *
 * Once the last window is reported, runner_run returns without waiting
 * for bpftrace's detach: bpftrace goes on detaching until bpfspec exits,
 * when the kernel ends it (PR_SET_PDEATHSIG) and detaches what is left as
 * its descriptors close.  Its exit status is then unknown (exit_code -1).
 *
 * The window starts when the program's BEGIN line is read: bpftrace 0.17
 * runs BEGIN before attaching the other probes, but reads its output only
 * once every probe is attached.  With the trigger, it starts when bpfspec
 * calls runner_window_end(RUNNER_WINDOW_BEGIN), whose uprobe starts it in
 * the kernel, not when bpftrace gets round to printing that it did.
 *
 * stderr is classified: the harmless RLIMIT_MEMLOCK line is dropped,
 * other lines are shown prefixed with "bpftrace: ", with the program's
 * name replaced by "<generated program>".
 *
 * Ownership: options are borrowed; the result holds no pointers. */
#ifndef BPFSPEC_RUNNER_H
#define BPFSPEC_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "program/generator.h"
#include "run/bpfout.h"

/* A command started by bpfspec and held before execve until the probes
 * are attached (-c). */
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

/* Ends the held child: never released → it exits without running the
 * command; running → SIGTERM, then SIGKILL after 3 s.  Always reaps. */
void runner_abandon(held_command *h);

/* The function the generated program probes to end a window.  Calling it
 * from bpfspec's own process is what ends the window: FINAL 0 ends one
 * interval (-i; with held intervals, RUNNER_INTERVAL_RESUME starts the
 * next), FINAL 1 the last window, after which bpftrace exits;
 * RUNNER_WINDOW_START, once every probe is attached, drops what the
 * program gathered while attaching, and RUNNER_WINDOW_BEGIN, once that is
 * done, starts the first window (templates/window_start.bt.in). */
void runner_window_end(int final);
#define RUNNER_WINDOW_START 2
#define RUNNER_WINDOW_BEGIN 3
/* After an interval's flush in a program with held intervals
 * (program.held_intervals): the next interval begins once the clears are
 * done (templates/window_resume.bt.in). */
#define RUNNER_INTERVAL_RESUME 4

/* Name of that function in bpfspec's symbol table. */
#define RUNNER_TRIGGER_SYMBOL "runner_window_end"

/* The function the program probes to change the processes it traces
 * (gen_options.pids_addr): calling it from bpfspec's own process adds
 * PID (TRACED 1) or removes it (TRACED 0). */
void runner_pids_change(int pid, int traced);
#define RUNNER_PIDS_SYMBOL "runner_pids_change"

/* Called for each window the program completes: W is window number
 * INDEX (0-based) of the run; FINAL is true for the last one. */
typedef void (*runner_window_fn)(void *ctx, const bpfout_window *w, size_t index, bool final);

typedef struct runner_opts {
	const char *bpftrace;	/* program name (PATH search) or path */
	const program *prog;
	bool has_trigger;	/* the program probes runner_window_end() */
	/* The traced processes, PIDS[0..N_PIDS), each watched for exit
	 * (through a pidfd): the first to exit ends the run. */
	const pid_t *pids;
	size_t n_pids;
	/* The traced processes change through lines on stdin (a program
	 * made with gen_options.pids_addr), read once the window has begun:
	 * "+PID" adds one, "-PID" removes one, anything else is said and
	 * skipped.  PIDS are then not watched: a traced process's exit does
	 * not end the run (whoever writes the lines says when one leaves).
	 * At the end of stdin the set stays as it is.  ON_PIDS, when set,
	 * is called after each change. */
	bool pids_from_stdin;
	void (*on_pids)(void *ctx, pid_t pid, bool traced);
	held_command *held;	/* -c: released once probes attach; or NULL */
	uint64_t window_ns;	/* > 0: end the run after this long */
	uint64_t interval_ns;	/* > 0: end an interval this often (-i) */
	unsigned interval_count;	/* > 0: stop after this many intervals (-n) */
	bpfout *out;		/* receives every stdout line */
	runner_window_fn on_window;	/* called at every complete window */
	void (*on_begin)(void *ctx);	/* NULL, or called as the window starts */
	void *ctx;
	uint64_t t0_ns;		/* CLOCK_MONOTONIC when bpfspec started, for -v */
	bool progress;		/* a one-line countdown on stderr (a terminal) */
	int version_major;	/* bpftrace's version, for its settings' names */
	int version_minor;
	unsigned shared_probes;	/* the program's shared_probes (generator.h): every map
				 * gets room for 16384 keys each, up to 4 */
} runner_opts;

/* Runs `BPFTRACE --version` (no shell) and stores "0.17.0" in VERSION
 * (size LEN) and the numbers in *MAJOR, *MINOR.  Returns 0, or -1 when it
 * could not be run or said something else (VERSION is then ""). */
int runner_bpftrace_version(const char *bpftrace, char *version, size_t len, int *major,
			    int *minor);

/* Whether bpftrace MAJOR.MINOR, run with the runner's settings, names the
 * frames of user stacks (ustack) with each process's own symbols.  Before
 * 0.20 (and for an unknown version, 0.0) the runner turns on
 * BPFTRACE_CACHE_USER_SYMBOLS, without which a flush of node stacks takes
 * minutes: that cache is kept per executable, filled from the first
 * process whose stack it names, so the frames of another process of the
 * same executable (other load addresses, another perf map) would get
 * wrong names. */
bool runner_stacks_per_process(int major, int minor);

typedef enum {
	RUNNER_STOP_NONE,
	RUNNER_STOP_DURATION,	/* the window's duration passed */
	RUNNER_STOP_SIGNAL,	/* SIGINT/SIGTERM/SIGHUP */
	RUNNER_STOP_TARGET,	/* a traced process exited (exited_pid) */
	RUNNER_STOP_TRACER,	/* bpftrace ended by itself */
} runner_stop;

typedef struct runner_result {
	bool started;		/* bpftrace was executed */
	int exit_code;		/* bpftrace's exit code; -1 if killed by a signal */
	int term_signal;	/* the signal that killed it, or 0 */
	runner_stop stop;	/* what ended the window first */
	bool interrupted;	/* a stop signal was received */
	bool forced;		/* received twice: bpftrace was killed */
	bool target_exited;	/* a traced process ended during the run */
	pid_t exited_pid;	/* the first traced process seen ended, or 0 */
	bool window_done;	/* the final window completed */
	size_t windows;		/* windows reported through on_window */
	bool begun;		/* the window began (BEGIN line read; with the trigger,
				 * "bpfspec:begun") */
	unsigned error_lines;	/* stderr lines that said ERROR */
	uint64_t stacks_unread;	/* "failed to look up stack id" lines: stack
				 * samples bpftrace could not print (counted,
				 * shown with -v only) */
	uint64_t attach_ns;	/* bpftrace start to probes attached, 0 if never */
	uint64_t begin_mono_ns;	/* CLOCK_MONOTONIC when the window began */
	uint64_t held_ns;	/* time held between intervals so far (held
				 * intervals): not traced, so the window's end
				 * (-d) and each interval's move on by it */
	uint64_t begin_trace_ns;	/* the same moment on bpftrace's clock (its
					 * nsecs), with the trigger; else 0 */
	int64_t begin_realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC then */
	uint64_t stop_mono_ns;	/* CLOCK_MONOTONIC of the stop, 0 if none */
	uint64_t elapsed_ns;	/* window start to stop (or run end) */
	char first_error[512];	/* the first ERROR line, cleaned */
} runner_result;

/* Runs bpftrace to completion.  Returns 0 when it ran (whatever its exit
 * status; see RES), -1 when it could not be started (diagnosed).  Signals
 * SIGINT, SIGTERM and SIGHUP (unless ignored by the caller) stay blocked
 * on return when one arrived, so that a late one cannot kill bpfspec
 * before the report is written. */
int runner_run(const runner_opts *o, runner_result *res);

/* CLOCK_REALTIME minus CLOCK_MONOTONIC now: dates a moment of the
 * bpftrace clock (its nsecs is CLOCK_MONOTONIC) on the wall clock. */
int64_t runner_clock_offset_ns(void);

#endif
