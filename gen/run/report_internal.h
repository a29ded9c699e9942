/* report_internal — what report_build.c shares with the kinds (gen/kinds/) for
 * filling a report from one window of bpftrace output.  Not for any other
 * module.  Functions returning a pointer return NULL out of memory. */
#ifndef BPFSPEC_REPORT_INTERNAL_H
#define BPFSPEC_REPORT_INTERNAL_H

#include <stdint.h>

#include "model/kind.h"
#include "model/report.h"
#include "run/bpfout.h"

/* What report_build knows of the run when it fills a probe (a kind's
 * fill, model/kind.h). */
typedef struct kind_fill_ctx {
	const report_run *run;
	report_pids pids;	/* the traced processes (none: n 0) */
	uint64_t begin_ns;	/* the window, bpftrace's clock */
	uint64_t end_ns;
	const char *exe;	/* the target's executable, or NULL */
} kind_fill_ctx;

/* With -o trace: the window's slices of probe NAME, records "NAME START
 * TID NS" (gen_put_slice) or "NAME START TID NS MORE" (gen_put_slice_with:
 * MORE kept in the event's label, for the kind to read), into P's events
 * (t_ns: when each ended), and the count over the limit.  A call (span) that began in the interval
 * before belongs to the one it ended in (the program drops those that
 * began before the first).  Returns 0, or -1 out of memory. */
int report_fill_slices(report_probe *p, const char *name, const bpfout_window *w,
		       const kind_fill_ctx *ctx);

/* Map @PREFIX_NAME of window W (wire.h's prefixes), or NULL when W is
 * NULL or did not print it. */
const bpfout_map *report_window_map(const bpfout_window *w, const char *prefix,
				    const char *name);

/* The value of scalar map @PREFIX_NAME (a count()) in W: 0 when W is
 * NULL, did not print it, or printed something else. */
uint64_t report_window_scalar(const bpfout_window *w, const char *prefix, const char *name);

/* For each entry [KEY, BUCKET] -> N of histogram map M (NULL: none), adds
 * N to bucket BUCKET of TOTAL and of the stats STATS_OF(CTX, KEY) names
 * (NULL out of memory).  Returns 0, or -1 out of memory. */
int report_add_histogram(const bpfout_map *m, report_stats *total,
			 report_stats *(*stats_of)(void *ctx, long key), void *ctx);

/* The name of thread TID of one of the processes PIDS as /proc has it
 * now (owned), or NULL when there is no process or the thread is gone
 * (or of another process). */
char *report_thread_name(report_pids pids, long tid);

/* The name of syscall NR as raw_syscalls:sys_exit gives it (owned): -1
 * is rt_sigreturn (see report.c), an unknown number "syscall_N". */
char *report_exit_syscall_name(long nr);

/* Latency-shaped maps of probe NAME (@b_, @sum_, @min_, @max_ keyed by
 * tid or 0) into P's groups and totals; thread names of processes PIDS.
 * Latency and utilization probes.  Returns 0, or -1 out of memory. */
int report_fill_timed(report_probe *p, const char *name, const bpfout_window *w,
		      report_pids pids);

/* Utilization probe NAME's stall maps (@sb_, @ssum_, @smin_, @smax_NAME
 * keyed by tid, wire.h) into the stalls of P's groups (added when
 * missing) and P's; before report_fill_timed, which names and sorts the
 * groups.  Returns 0, or -1 out of memory. */
int report_fill_stalls(report_probe *p, const char *name, const bpfout_window *w);

#endif
