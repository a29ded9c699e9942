/* promstore — the cumulative metric totals of `bpfspec serve`, and their
 * Prometheus text exposition (format 0.0.4).
 *
 * serve runs one bpftrace per spec with a fixed interval; each interval
 * gives a report (report.h) holding that interval's deltas.  The store
 * adds them up, so that what it exposes is cumulative and monotonic for
 * the life of the store, across bpftrace and target restarts:
 *   - a counter only ever grows; a histogram's buckets, _sum and _count
 *     only ever grow;
 *   - a series, once created, stays (with its totals) even when no later
 *     interval mentions it; only the caller's own gauges can be deleted;
 *   - durations are kept as exact integers (seconds and nanoseconds) and
 *     printed as exact decimal seconds: no floating-point drift;
 *   - counts saturate at 2^64 - 1 instead of wrapping (never reached in
 *     practice); seconds have 2^64 s of room.
 *
 * Series labels: spec and probe, then the labels the caller's labeler
 * gives each thread (target, k8s_namespace_name, k8s_pod_name,
 * k8s_container_name, pod_uid, container_id, pid, thread_role), then the family's own (syscall, errno, cause,
 * nodejs_eventloop_state).  The threads of one target and role fold into
 * one series (their values are summed): thread names and ids never become
 * labels, which bounds the number of series.  The families (R: per
 * thread_role, none for probes not per thread; T: for the target as a
 * whole; docs/serve-metrics.md):
 *   latency probes      bpfspec_latency_seconds                  histogram R
 *     attributed        bpfspec_phase_cause_seconds_total{cause}   counter R
 *                       bpfspec_phase_syscall_blocked_seconds_total{syscall} R
 *   syscalls probes     bpfspec_syscall_latency_seconds{syscall} histogram T
 *                       bpfspec_syscall_errors_total{syscall,errno} counter T
 *                       bpfspec_syscall_seconds_total{syscall}     counter R
 *                       bpfspec_syscall_calls_total{syscall}       counter R
 *   count probes        bpfspec_probe_hits_total                   counter R
 *   events probes       bpfspec_events_total                       counter T
 *   utilization probes  nodejs_eventloop_time_seconds_total{nodejs_eventloop_state} R
 *                       nodejs_eventloop_utilization_ratio        gauge R
 *                       bpfspec_eventloop_stall_seconds           histogram R
 *   the spec (no probe) bpfspec_loop_blockers_total (attributed specs),
 *                       bpfspec_window_seconds_total, bpfspec_lost_events_total T
 * cause: on_cpu, waiting_for_cpu, blocked_syscall, off_cpu_other;
 * nodejs_eventloop_state: active, idle.  Histograms use a fixed le layout
 * (PROMSTORE_LE_*, below); a report bucket [lo, hi) counts at the first
 * bound >= hi.
 *
 * Label values are safe.h's text form, escaped as the format asks (the
 * same rule as -o prom, docs/report.md): any byte sequence renders to
 * valid UTF-8 with no control character; a 0xff byte reaches Prometheus
 * as the four characters \xff.
 *
 * Errors: functions returning int give 0, or -1 with errno ENOMEM (out of
 * memory), EINVAL (a bad argument, said below) or ECANCELED (the labeler
 * said so).  A failed call leaves the store as it was.
 * Layering: above the report model (report.h; libuv.h for the roles),
 * beside the renderers; serve calls it, nothing below calls it.
 * Ownership: promstore_new returns an owned store or NULL (out of
 * memory); promstore_free(NULL) is a no-op.  The store copies every
 * string it keeps: reports, labelers' strings and labels may go once a
 * call returns.  Not thread-safe: one caller at a time. */
#ifndef BPFSPEC_PROMSTORE_H
#define BPFSPEC_PROMSTORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/report.h"
#include "util/promtext.h"

typedef struct promstore promstore;

/* A thread's part in a Node.js process; rendered as thread_role.  Zero
 * (a labelset's initial value) is OTHER. */
typedef enum {
	PROMSTORE_ROLE_OTHER,	/* "other" */
	PROMSTORE_ROLE_MAIN,	/* "main": the main thread's loop */
	PROMSTORE_ROLE_WORKER,	/* "worker": a worker_thread's loop */
	PROMSTORE_ROLE_POOL,	/* "pool": libuv's threadpool */
} promstore_role;

#define PROMSTORE_N_ROLES 4

/* The labels of one thread of an interval's target.  The store zeroes it
 * before each call; NULL or "" for namespace, pod or container and pid 0
 * leave that label out (Prometheus reads an empty value as no label).
 * Strings are borrowed and copied at once. */
typedef struct promstore_labelset {
	const char *target;	/* always a label; NULL is "" */
	const char *k8s_namespace;	/* label k8s_namespace_name */
	const char *pod;	/* label k8s_pod_name */
	const char *container;	/* label k8s_container_name */
	const char *pod_uid;	/* from the cgroup path (discover_pod_labels) */
	const char *container_id;
	long pid;		/* > 0: label "pid" */
	promstore_role role;	/* ignored for tid 0 */
} promstore_labelset;

/* How the caller labels threads.  labels() fills *OUT for thread TID
 * named THREAD (NULL: the thread is gone) of INTERVAL's target; TID 0
 * asks for the target as a whole, for the series that no thread has
 * (syscall histograms and errors, events, blockers, window and lost
 * events) and for probes that are not per thread (no thread_role
 * label).  It is called once per distinct tid per promstore_add.
 * Returns 0, 1 to leave that thread (or, for tid 0, those series) out,
 * or -1 to make promstore_add fail with errno ECANCELED. */
typedef struct promstore_labeler {
	int (*labels)(void *ctx, const report *interval, long tid, const char *thread,
		      promstore_labelset *out);
	void *ctx;
} promstore_labeler;

/* A label of the caller's own families. */
typedef struct promstore_label {
	const char *name;
	const char *value;	/* NULL or "": the label is left out */
} promstore_label;

/* Fixed histogram layout, util/promtext.h's: from 2^10 ns to 2^35 ns
 * (0.000001024 s .. 34.359738368 s), PROMSTORE_LE_STEPS bounds per power
 * of two (every other bound of the reports' log-linear buckets: 2^k +
 * j 2^(k-3) ns), then +Inf.  Eight per power of two keep histogram_quantile within 12.5%
 * of a value; -o prom, a snapshot, keeps one per power of two. */
#define PROMSTORE_LE_FIRST PROMTEXT_LE_FIRST
#define PROMSTORE_LE_LAST PROMTEXT_LE_LAST
#define PROMSTORE_LE_STEPS 8
#define PROMSTORE_LE_N PROMTEXT_LE_N(PROMSTORE_LE_STEPS)

/* Bound I (0 .. PROMSTORE_LE_N - 1) in nanoseconds. */
uint64_t promstore_le_ns(size_t i);

promstore *promstore_new(void);
void promstore_free(promstore *ps);

/* Adds INTERVAL's deltas (a report of one interval; EINVAL when it is
 * cumulative, report.cumulative).  LAB may be NULL: target is then the
 * base name of the report's binary, the role promstore_node_role's, and
 * there are no other labels.  Probes that were not attached add nothing.
 * On failure nothing was added: the series this call created are removed
 * again and no value changed. */
int promstore_add(promstore *ps, const report *interval, const promstore_labeler *lab);

/* The role of thread TID named THREAD (may be NULL) in REP: what
 * discover_thread_role (discover.h) tells from the name and the pid (MAIN:
 * tid is one of the report's pids: the main thread of every traced
 * process; POOL: "libuv-worker", libuv >= 1.50; WORKER: "WorkerThread",
 * worker_threads since nodejs/node#56416); else WORKER when it ran
 * an event loop in this interval (a group of a utilization probe, or of a
 * latency probe on a libuv phase function); else OTHER.  On Node.js 20
 * every thread is named "node": a pool thread is then OTHER. */
promstore_role promstore_node_role(const report *rep, long tid, const char *thread);

/* "main", "worker", "pool", "other"; NULL for a value outside the enum. */
const char *promstore_role_name(promstore_role role);

/* The caller's own families (serve's: bpfspec_up, bpfspec_targets, ...),
 * rendered with the store's, in the same sorted order.  NAME must match
 * [a-zA-Z_:][a-zA-Z0-9_:]* and be none of the store's families nor begin
 * with one of its histograms' names and '_'; label names
 * [a-zA-Z_][a-zA-Z0-9_]*, not beginning "__", at most 16, no two alike;
 * else EINVAL, as for a name already used with the other type.  Labels
 * are sorted by name, so their order does not make another series.  HELP
 * is the first call's (may be NULL: none given).  Counters should end in
 * _total (promtool's lint). */
int promstore_gauge_set(promstore *ps, const char *name, const char *help,
			const promstore_label *labels, size_t n, double value);
/* Removes a gauge series (absent: nothing to do, 0). */
int promstore_gauge_delete(promstore *ps, const char *name, const promstore_label *labels,
			   size_t n);
int promstore_counter_add(promstore *ps, const char *name, const char *help,
			  const promstore_label *labels, size_t n, uint64_t delta);

/* Series in the store (histograms count once), for a self-metric. */
size_t promstore_series(const promstore *ps);

/* Writes the exposition to OUT: families sorted by name, each with one
 * HELP and one TYPE line; its series sorted by their label text (bytes);
 * a histogram's buckets ascending by le, cumulative, then +Inf (==
 * _count), _sum, _count.  No timestamps.  Returns 0, or -1 when writing
 * failed. */
int promstore_render(const promstore *ps, FILE *out);

#endif
