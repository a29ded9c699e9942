/* report — the normalized result of a run, whatever the spec: the model
 * every output reads (run/report_build.h fills it from bpftrace's output,
 * render/report_load.h from a JSON report).
 *
 * Per probe and per thread group (and per syscall for syscalls probes):
 * count, sum, min, max (exact, from the kernel) and p50/p90/p99
 * (estimates: linear interpolation inside the log-linear bucket that
 * holds the rank, clamped to [min, max]; buckets are at most 1/16 of
 * their lower bound wide, so the estimate is within 6.25%).
 *
 * Ownership: report_free(NULL) is a no-op.  A report copies every string
 * it holds, so it outlives the spec, target and parser. */
#ifndef BPFSPEC_REPORT_H
#define BPFSPEC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "model/kind.h"

#define REPORT_PERCENTILE_METHOD \
	"linear interpolation within log-linear buckets (16 per power of two), clamped to [min, max]"

/* Longest path an event record carries: the program runs with
 * BPFTRACE_STRLEN=200, and a string that fills it was probably cut. */
#define REPORT_PATH_MAX 199

typedef struct report_bucket {
	uint64_t lo_ns;		/* inclusive */
	uint64_t hi_ns;		/* exclusive */
	uint64_t count;
} report_bucket;

typedef struct report_stats {
	uint64_t count, sum_ns, min_ns, max_ns;
	uint64_t p50_ns, p90_ns, p99_ns;
	report_bucket *buckets;	/* ascending, only non-empty buckets */
	size_t n_buckets;
} report_stats;

/* A syscall made inside an attributed phase (report_split). */
typedef struct report_why_syscall {
	char *name;		/* "read", or "syscall_N" when unknown */
	long nr;
	uint64_t calls;
	uint64_t time_ns;	/* from enter to exit, all calls */
	uint64_t blocked_ns;	/* of which asleep (off-CPU, not runnable) */
} report_why_syscall;

/* Where an attributed phase's time went (gen/attribution/why.h): running, runnable
 * but waiting for a CPU, asleep inside syscalls (blocked), asleep outside
 * any (other: page faults, ...).  Their sum is the phase's time but for
 * the calls in progress as the window ended (docs/report.md). */
typedef struct report_split {
	uint64_t cpu_ns, wait_ns, blocked_ns, other_ns;
	report_why_syscall *syscalls;	/* largest blocked_ns first, then time */
	size_t n_syscalls;
} report_split;

/* User stacks sampled inside an attributed phase (spec 'stacks'). */
typedef struct report_stack {
	long tid;
	char *frames;		/* outermost first, joined by ';' (the folded
				 * form flame graph tools read; a ';' inside a
				 * name is written ':') */
	uint64_t samples;
} report_stack;

typedef struct report_group {
	long tid;		/* thread id; 0 when the probe is not per thread */
	char *thread;		/* thread name, or NULL when the thread is gone */
	report_stats st;
	/* utilization probes: st times the thread's waits in epoll; idle_ns
	 * is their time inside the window (waits in progress at either end
	 * included), busy_ns the rest of the window, utilization = busy /
	 * window (0..1). */
	uint64_t idle_ns, busy_ns;
	double utilization;
	/* utilization probes: the thread's stalls, each from the end of one
	 * of its waits in epoll to the start of its next (one turn of its
	 * loop, every phase in it); one that ends in the window counts,
	 * whole (docs/report.md).  Empty in a report written before them. */
	report_stats stalls;
	report_split *split;	/* attributed latency probes: owned; else NULL */
} report_group;

typedef struct report_errno {
	char *name;		/* "ENOENT", or "E123" when unknown */
	long number;
	uint64_t count;
} report_errno;

/* One syscall of a syscalls probe.  Per-thread entries carry count, sum,
 * min and max but no buckets (the kernel keeps histograms per syscall
 * only, so that the map stays small whatever the number of threads). */
typedef struct report_syscall {
	char *name;		/* "openat", or "syscall_N" when unknown */
	long nr;
	report_stats st;
	report_errno *errors;	/* by count, largest first */
	size_t n_errors;
	uint64_t error_count;	/* calls that returned an error */
	report_group *threads;	/* main thread first, then by tid */
	size_t n_threads;
} report_syscall;

/* One argument of an event on a probe point. */
typedef struct report_value {
	char *name;		/* from the spec */
	enum { REPORT_VALUE_INT, REPORT_VALUE_UINT, REPORT_VALUE_STRING } type;
	long long i;		/* INT */
	unsigned long long u;	/* UINT */
	char *s;		/* STRING: bytes as the program had them (NUL-free) */
	bool truncated;		/* STRING: as long as bpftrace copies (REPORT_PATH_MAX) */
} report_value;

/* One record of an events probe: a slow syscall (syscall != NULL), or a
 * hit of a probe point (syscall == NULL; args holds the spec's values). */
typedef struct report_event {
	uint64_t t_ns;		/* since the window began */
	long tid;
	char *thread;		/* NULL when unknown */
	report_value *args;	/* probe point events, in the spec's order */
	size_t n_args;
	char *syscall;
	uint64_t latency_ns;	/* enter to exit (JSON: duration_ns) */
	long long ret;
	char *error;		/* errno name when ret < 0, else NULL */
	char *path;		/* path argument, or NULL */
	bool path_truncated;	/* longer than bpftrace could copy (REPORT_PATH_MAX) */
	char *address;		/* "127.0.0.1:80", "[::1]:80", or NULL */
	bool has_length;
	uint64_t length;	/* size/length argument when has_length */
	bool has_fd;
	long fd;		/* blockers: the fd argument when has_fd (path:
				 * what it was opened with, when seen) */
	char *phase;		/* blockers: the attributed phase; else NULL */
	bool nested_loop;	/* blockers: the wait of a loop of its own that the
				 * phase ran (node's spawnSync, execSync) */
	char *command;		/* blockers: with nested_loop, the command line of
				 * the child it waited for, when seen; else NULL */
	char *method;		/* http slow requests: the request's method */
	char *label;		/* span slices (-o trace): the span's label, from
				 * the traced process; NULL: none read */
} report_event;

/* One row of a span probe (gen/kinds/span.c): the durations of one of
 * its stages, or of whole spans (stage NULL), for one label. */
typedef struct report_span_row {
	char *stage;		/* the stage's name; NULL: start to end */
	char *label;		/* NULL: no label (none read, or none in the
				 * spec); else the label, "other" when
				 * other is set */
	bool other;		/* labels past the spec's 'labels' */
	report_stats st;
} report_span_row;

/* How many requests of an http route ended with one status code. */
typedef struct report_http_status {
	unsigned code;		/* 200..599 */
	report_stats st;	/* their durations (st.count: how many) */
} report_http_status;

/* One route of an http probe (gen/kinds/http.c): the requests of one
 * method to one folded request path, or those past the spec's 'labels'
 * (other, route "other"). */
typedef struct report_http_route {
	char *method;		/* bytes as the client sent them ("GET"); "other"
				 * with other */
	char *route;		/* the folded path: "/users/:id" (bytes as sent) */
	bool other;		/* past the spec's 'labels' */
	report_stats st;	/* first bytes read -> status line written */
	report_http_status *statuses;	/* by code */
	size_t n_statuses;
} report_http_route;

/* A thread that ran a span probe's 'workers' stage, and its time in it. */
typedef struct report_span_worker {
	long tid;
	char *thread;		/* NULL when unknown */
	uint64_t busy_ns;	/* in the window: stages begun and ended on it */
} report_span_worker;

typedef struct report_probe {
	char *name;
	probe_kind kind;	/* kind.h */
	char *probe;		/* count, events on a point: the probe point; else NULL */
	char *function;
	char *object;		/* NULL when not attached */
	char *debug_file;	/* separate debug file that gave the addresses */
	size_t matched_symbols;	/* C++ names: symbols matched; else 0 */
	char *unit;		/* display unit: "ns", "us", "ms", "s" */
	uint64_t unit_ns;
	bool attached;
	char *reason;		/* why not attached, or NULL */
	char *derived;		/* a derived phase: how it is timed; else NULL */
	report_stats st;	/* all groups together (count probes: only count) */
	double utilization;	/* utilization probes: the busiest thread's */
	/* utilization probes: every group's stalls; has_stalls false for a
	 * report written before stalls were measured (then no group has
	 * any either: unknown, not none) */
	report_stats stalls;
	bool has_stalls;
	report_group *groups;	/* main thread (tid == pid) first, then by tid */
	size_t n_groups;
	/* syscalls probes: per syscall, slowest total first */
	report_syscall *syscalls;
	size_t n_syscalls;
	/* events probes; and latency probes of -o trace (slices: each call
	 * at least threshold_ns long, t_ns at its return; not in JSON) */
	uint64_t threshold_ns;
	report_event *events;	/* in time order */
	size_t n_events;
	uint64_t events_dropped;	/* slow calls not recorded (over the limit) */
	/* latency probes with 'attribute: true': the split of every group
	 * together (and each group's in its split) */
	bool attributed;
	report_split split;
	report_stack *stacks;	/* most samples first */
	size_t n_stacks;
	uint64_t stack_samples;	/* all of them */
	/* span probes: the stages in order, then rows by stage (in that
	 * order, whole spans last) and label (most spans first); spans open
	 * when the window ended (since tracing began) and spans evicted in
	 * the window (the open-span table was full where they fell).
	 * stages is NULL-terminated (n_stages + 1 entries). */
	char **stages;
	size_t n_stages;
	report_span_row *span_rows;
	size_t n_span_rows;
	uint64_t spans_open, spans_evicted;
	/* The spec's 'wait' and 'workers' stages (NULL: none), and the
	 * threads that ran the workers stage, by tid. */
	char *span_wait, *span_work;
	report_span_worker *workers;
	size_t n_workers;
	/* With 'pool: libuv': the threads of the traced processes' pools
	 * (their sum) and where that was read ("thread names",
	 * "UV_THREADPOOL_SIZE", "libuv's default", or "several" when the
	 * processes differ); 0 and NULL: unknown. */
	uint64_t pool_size;
	char *pool_source;
	/* http probes: routes, slowest p99 first; request lines longer than
	 * the copy the program takes (their target cut); requests read while
	 * another was open on their connection (pipelined or unanswered: the
	 * earlier one is not measured); reads that began with HTTP/2's
	 * preface (not measured).  Slow requests (at least threshold_ns) are
	 * events: path the route, method, ret the status, fd the
	 * connection's (has_fd false: a TLS connection).  http_tls: the
	 * requests (of st.count) read as plain text in OpenSSL; tls_object:
	 * the file whose SSL_read and SSL_write were traced, else NULL and
	 * tls_missing why HTTPS is not measured (NULL when unknown: a report
	 * of before TLS was read). */
	report_http_route *http_routes;
	size_t n_http_routes;
	uint64_t http_cut, http_replaced, http2_seen, http_tls;
	char *tls_object, *tls_missing;
} report_probe;

/* What named a report's JavaScript frames. */
enum {
	REPORT_JS_NAMES_UNKNOWN,	/* not sampled, or an older report */
	REPORT_JS_NAMES_PERF_MAP,	/* the target's perf map, through bpftrace */
	REPORT_JS_NAMES_V8_HEAP,	/* V8's metadata and heap (attribution/why_v8.h) */
	REPORT_JS_NAMES_NONE,		/* nothing */
};

/* A perf map's JavaScript names checked against V8's heap's, frame by
 * frame (attribution/why_v8check.h), when the target wrote a perf map and
 * carries V8 metadata.  Counts are frames times their stacks' samples;
 * the shares are of all samples of the stacks. */
#define REPORT_JS_CHECK_NAME 200
typedef struct report_js_check {
	bool done;		/* false: not made (no perf map, or no walk) */
	uint64_t samples;	/* the stacks' samples */
	uint64_t samples_no_walk;	/* of them, those whose walk found no
					 * JS frame (taken in the kernel, or
					 * under 16 native frames: a GC) */
	uint64_t frames;	/* frames the perf map named a JS function */
	uint64_t same;		/* ... that the heap named the same */
	uint64_t different;	/* ... that the heap named another function */
	uint64_t different_innermost;	/* of those, the innermost frame: a
					 * sample as a function sets up or
					 * leaves its frame, whose frame
					 * pointer is still its caller's */
	uint64_t unnamed;	/* ... that the heap could not name */
	uint64_t unnamed_no_walk;	/* of those, in samples where the walk
					 * found no JS frame (samples_no_walk) */
	uint64_t perf_map_unplaced;	/* ... that the perf map's lines could
					 * not place (target/perfmap.h): not
					 * compared */
	uint64_t perf_map_stale;	/* frames bpftrace named from the line
					 * of freed code whose addresses newer
					 * code took: compared as the newer */
	uint64_t heap_only;	/* frames the heap named and the perf map did not */
	/* the largest difference between a function's share of the samples
	 * (a sample counts once per function on its stack) as the perf map
	 * names the frames and as the heap does, and that function */
	double share_difference;
	char share_function[REPORT_JS_CHECK_NAME];
	/* the first difference met ("" none): the perf map's and the heap's */
	char differ_perf_map[REPORT_JS_CHECK_NAME], differ_v8_heap[REPORT_JS_CHECK_NAME];
} report_js_check;

typedef struct report {
	char *spec_name;
	char *spec_path;
	/* The spec's parameters with the values in force (spec_param). */
	char **param_names;
	char **param_values;
	bool *param_set;	/* true: the value came from --set */
	size_t n_params;
	bool entry_only;	/* spec timing: entry-only (latency probes) */
	long pid;		/* the (first) traced process; 0: no single process */
	/* Every traced process, pid first (owned).  n_pids 0 with pid > 0
	 * (a report made before schema 1 said pids): pid alone;
	 * report_pids_of reads either. */
	long *pids;
	size_t n_pids;
	char *binary;
	char *bpftrace_version;	/* "0.17.0", or NULL when unknown */
	char *libuv_version;	/* the target's libuv, or NULL */
	uint64_t duration_ns;
	uint64_t start_unix_ns;	/* wall clock (Unix ns) the window began, 0: unknown */
	uint64_t begin_clock_ns;	/* bpftrace's clock (CLOCK_MONOTONIC) as the
					 * window began, 0: unknown; not in JSON */
	bool cumulative;	/* -i --cumulative: the run so far, not one interval */
	bool partial;
	char *partial_reason;	/* NULL unless partial */
	uint64_t lost_events;
	long attached_probes;	/* -1: bpftrace never said */
	long expected_probes;
	report_probe *probes;
	size_t n_probes;
	/* Attribution (gen/attribution/why.h): the loop blockers, syscalls at least
	 * blocker_ns long made inside attributed phases, in time order. */
	bool attributed;
	uint64_t blocker_ns;
	report_event *blockers;
	size_t n_blockers;
	uint64_t blockers_dropped;	/* over the limit, not recorded */
	/* Stacks sampled inside attributed phases lasting at least stack_ns
	 * (0: not sampled); js_symbols: the target wrote a perf map (node
	 * --perf-basic-prof), so JavaScript frames have names: 1 yes, 0 no,
	 * -1 unknown. */
	uint64_t stack_ns;
	int js_symbols;
	/* What named the stacks' JavaScript frames (REPORT_JS_NAMES_*);
	 * js_frames: frames the sampler's V8 walk found a JavaScript
	 * function in (each stack's times its samples), js_frames_named:
	 * those named from the target's heap. */
	int js_names;
	uint64_t js_frames, js_frames_named;
	report_js_check js_check;
	char **warnings;
	size_t n_warnings;
} report;

/* Facts about the run that the output does not carry. */
typedef struct report_run {
	long pid;		/* the traced process; with several, the first */
	const long *pids;	/* with several: all of them, PIDS[0] == pid; NULL:
				 * pid alone (N_PIDS 0) */
	size_t n_pids;
	const char *bpftrace_version;	/* NULL when unknown */
	uint64_t duration_ns;	/* used when the window has no markers */
	uint64_t begin_ns;	/* bpftrace clock (nsecs) when every probe was
				 * attached: overrides the BEGIN marker, which
				 * bpftrace 0.17 prints before attaching; 0 = none */
	int64_t realtime_offset_ns;	/* CLOCK_REALTIME minus CLOCK_MONOTONIC (the
				 * bpftrace clock), to date the window; 0: undated */
	uint64_t stop_ns;	/* bpftrace clock (nsecs) when the run was told to
				 * stop or the target exited: ends the window
				 * there, not after bpftrace's detach; 0 = none */
	bool cumulative;	/* -i --cumulative */
	uint64_t slice_min_ns;	/* -o trace: latency probes recorded each call
				 * at least this long (gen_options'); 0: not */
	bool partial;
	const char *partial_reason;
	long attached_probes;
	long expected_probes;
	uint64_t lost_events;
	/* Threads of the pids that were waiting in epoll when the window began
	 * (utilization: one with no wait seen since waited all along). */
	const long *waiting_tids;
	size_t n_waiting;
} report_run;

/* A set of traced processes: V[0..N), borrowed (N 0: none). */
typedef struct report_pids {
	const long *v;
	size_t n;
} report_pids;

/* REP's traced processes (its pids, or its pid alone); borrowed from REP. */
report_pids report_pids_of(const report *rep);

/* RUN's traced processes; borrowed from RUN. */
report_pids report_run_pids(const report_run *run);

/* Whether TID is the main thread of one of the processes P (its id is
 * the process id). */
bool report_pids_has(report_pids p, long tid);

/* Writes P for people to OUT: "pid 12" or "pids 12, 40" (nothing when
 * P is empty). */
void report_fput_pids(FILE *out, report_pids p);

/* Adds a warning (copied).  Returns 0, or -1 when out of memory. */
int report_add_warning(report *rep, const char *text);

void report_free(report *rep);

/* Writes UNIX_NS as UTC: "2026-11-22T18:18:34.123456Z" (RFC 3339, for
 * programs) when RFC3339, else "2026-11-22 18:18:34 UTC" (for people). */
void report_utc_stamp(char *out, size_t len, uint64_t unix_ns, bool rfc3339);

/* Percentile Q (0..1) of the buckets, clamped to [min, max]. Exposed for tests. */
uint64_t report_percentile(const report_stats *st, double q);

/* The entry for thread TID in *ARR (of *N), added (min_ns UINT64_MAX)
 * when missing. */
report_group *report_find_thread(report_group **arr, size_t *n, long tid);

/* Adds COUNT to bucket INDEX (util/hist.h's log-linear index) of ST,
 * keeping the buckets sorted.  Returns 0, or -1 out of memory. */
int report_add_bucket(report_stats *st, uint64_t index, uint64_t count);

/* Sets ST's count from its buckets and its percentiles. */
void report_finish_stats(report_stats *st);

/* Sorts groups G[0..N): the main threads (tid in PIDS) first, in PIDS'
 * order, then by tid. */
void report_sort_groups(report_group *g, size_t n, report_pids pids);

/* Frees what S holds (not S); NULL is a no-op. */
void report_split_free(report_split *s);

/* Frees the N routes R of an http probe and the array. */
void report_free_http_routes(report_http_route *r, size_t n);

/* Frees the N events EV and the array. */
void report_free_events(report_event *ev, size_t n);

/* Frees the N values of a point event. */
void report_free_values(report_value *v, size_t n);

#endif
