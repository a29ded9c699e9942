/* report_internal — what report.c shares with the kinds (gen/kinds/) for
 * filling a report from one window of bpftrace output.  Not for any other
 * module.  Functions returning a pointer return NULL out of memory. */
#ifndef BPFSPEC_REPORT_INTERNAL_H
#define BPFSPEC_REPORT_INTERNAL_H

#include <stdint.h>

#include "model/report.h"
#include "run/bpfout.h"

/* Map @PREFIX_NAME of window W (wire.h's prefixes), or NULL when W is
 * NULL or did not print it. */
const bpfout_map *report_window_map(const bpfout_window *w, const char *prefix,
				    const char *name);

/* The entry for thread TID in *ARR (of *N), added (min_ns UINT64_MAX)
 * when missing. */
report_group *report_find_thread(report_group **arr, size_t *n, long tid);

/* Adds COUNT to bucket INDEX (gen.h's log-linear index) of ST, keeping
 * the buckets sorted.  Returns 0, or -1 out of memory. */
int report_add_bucket(report_stats *st, uint64_t index, uint64_t count);

/* For each entry [KEY, BUCKET] -> N of histogram map M (NULL: none), adds
 * N to bucket BUCKET of TOTAL and of the stats STATS_OF(CTX, KEY) names
 * (NULL out of memory).  Returns 0, or -1 out of memory. */
int report_add_histogram(const bpfout_map *m, report_stats *total,
			 report_stats *(*stats_of)(void *ctx, long key), void *ctx);

/* Sets ST's count from its buckets and its percentiles. */
void report_finish_stats(report_stats *st);

/* Sorts groups G[0..N): the main threads (tid in PIDS) first, in PIDS'
 * order, then by tid. */
void report_sort_groups(report_group *g, size_t n, report_pids pids);

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

/* Frees what S holds (not S); NULL is a no-op. */
void report_split_free(report_split *s);

/* Frees the N events EV and the array. */
void report_free_events(report_event *ev, size_t n);

/* Frees the N values of a point event. */
void report_free_values(report_value *v, size_t n);

#endif
