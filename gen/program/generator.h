/* generator — turns a resolved spec into a bpftrace program.  Its names
 * begin with gen_ (gen_program, gen_options, and for the kinds
 * generator_internal.h's gen_parts, gen_render, gen_add_maps...).
 *
 * The generator decides what the program contains; the templates under
 * templates/ (embedded at build time) decide how it reads.  Only values
 * that passed validation reach the text: probe names and symbols (spec
 * grammar), object paths (checked here against a conservative path
 * grammar), integers printed by bpfspec.  Comment text is reduced to
 * printable ASCII.
 *
 * Map naming contract, printed and read back by the kinds (gen/kinds/,
 * with wire.h's prefixes; key: the thread id when
 * per_thread, else 0; all durations in nanoseconds):
 *   latency:  @b[N, key, bucket] (count)  @sum/@min/@max[N, key], shared
 *             by the program's latency probes, N the probe's number in
 *             the "bpfspec:probes NAME..." line BEGIN prints (1-based, in
 *             the spec's order); bpfout hands them on as @b_NAME[key,
 *             bucket] and @sum_/@min_/@max_NAME[key] (uprobe pairs,
 *             entry-only phases and derived phases alike)
 *   utilization: @b_NAME[tid, bucket], @sum_/@min_/@max_NAME[tid]: time in
 *             epoll waits; @sb_NAME[tid, bucket], @ssum_/@smin_/@smax_NAME[tid]:
 *             stalls, from a wait's end to the thread's next wait
 *   syscalls: @b_NAME[nr, bucket] (count)   @st_NAME[key, nr] (stats: calls and
 *             their total)  @min_/@max_NAME[key, nr]
 *             @err_NAME[nr, errno] (count)
 *   events:   printf "bpfspec:ev NAME TIME TID NR NS RET KIND ARG" records,
 *             @evcomm_NAME[tid] (thread name)  @evdrop_NAME (count over limit)
 *   point events: printf "bpfspec:ev NAME TIME TID =VALUES" records,
 *             @evcomm_NAME, @evdrop_NAME as above
 *   count:    @c_NAME[key] (count)
 *   window markers (printf): bpfspec:begin NS, bpfspec:probes NAME...,
 *             bpfspec:started NS,
 *             bpfspec:begun NS (the trigger's window start:
 *             templates/window_start.bt.in), bpfspec:flush NS, bpfspec:end,
 *             bpfspec:held NS and bpfspec:resumed NS (an interval's flush
 *             and the next interval's start: window.bt.in,
 *             window_resume.bt.in)
 *   helpers, never printed: @start_NAME @evstart_NAME @evarg_NAME @evn_NAME
 *             @gapK_NAME (derived phases) @pair_start @pair_nest (libuv pairs)
 *             @phase_cur @phase_t @phase_loop (entry-only)
 *             @uin_NAME @uout_NAME @ustart_NAME (utilization) @wstart (window start)
 *             @wkeep (the run's start while an interval is flushed)
 *             @pids (the traced processes, with gen_options.pids_addr)
 *
 * Ownership: gen_program returns an owned program or NULL after a
 * diagnostic; program_free(NULL) is a no-op. */
#ifndef BPFSPEC_GENERATOR_H
#define BPFSPEC_GENERATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "program/resolve.h"

/* Bytes of a sockaddr an event record carries ('r' arguments, %r):
 * sockaddr_in6 is 28 bytes, sockaddr_un 110 (a 108-byte path). */
#define GEN_SOCKADDR_BYTES 110

/* Most processes one program traces (-p repeated). */
#define GEN_MAX_PIDS TARGET_MAX_PIDS

typedef struct gen_options {
	/* The traced processes: PIDS[0..N_PIDS) when N_PIDS > 0, else PID
	 * alone (0 = any process).  Every probe tests "pid == A || pid == B"
	 * (at most GEN_MAX_PIDS).  bpftrace is never given -p, so USDT and
	 * uprobes attach by path whatever the number of processes (usdt
	 * semaphores through the kernel's reference counter, which counts
	 * for every process of the file), and the test is what filters. */
	pid_t pid;
	const pid_t *pids;
	size_t n_pids;
	uint64_t window_ns;	/* > 0: the program ends itself after this long
				 * (ignored when a trigger is given) */
	/* When set, the window ends when process trigger_pid calls the
	 * function at trigger_addr in trigger_path (bpfspec's own
	 * bpfspec_window_end): bpfspec then decides when a window ends. */
	const char *trigger_path;
	uint64_t trigger_addr;
	pid_t trigger_pid;
	/* Nonzero (with trigger_path): the traced processes may change while
	 * the program runs.  Every probe tests @pids[pid] instead of the pids
	 * written into it; BEGIN puts PIDS there, and trigger_pid's calls of
	 * bpfspec's own runner_pids_change(PID, TRACED), at this address in
	 * trigger_path, add or remove one (templates/pids.bt.in). */
	uint64_t pids_addr;
	bool cumulative;	/* interval flushes keep the maps (-i --cumulative) */
	/* The bpftrace that will run the program (0.0 = unknown: the 0.17
	 * dialect).  Where versions disagree on what compiles silently,
	 * the program is written in this one's dialect: from 0.24,
	 * delete() returns a value (and 0.25+ warns when it is discarded;
	 * 0.17-0.23 refuse to assign it). */
	int bpftrace_major, bpftrace_minor;
	/* > 0: latency probes also print each call at least this long, as a
	 * record "bpfspec:ev NAME START TID NS" (a slice of -o trace; at
	 * most GEN_SLICE_LIMIT a window, the rest counted in @evdrop_NAME). */
	uint64_t slice_min_ns;
} gen_options;

#define GEN_SLICE_LIMIT 20000	/* slices a latency probe prints per window */

typedef struct program {
	char *text;		/* NUL-terminated bpftrace source */
	size_t len;
	unsigned expected_attach;	/* what bpftrace's attached_probes should say */
	unsigned shared_probes;	/* probes whose figures share maps (wire.h) */
	bool held_intervals;	/* an interval's flush (runner_window_end(0)) holds
				 * the run until bpfspec resumes it (4) after
				 * reading "bpfspec:held" (templates/window.bt.in) */
} program;

program *gen_program(const resolved *r, const gen_options *o);
void program_free(program *p);

#endif
