/* spec — loads and validates a YAML probe spec (libyaml).
 *
 * Every problem found is reported through diag with FILE:LINE:COL, the
 * source line and a hint; loading continues past an error so that one run
 * reports all of them.  The returned spec is fully validated: every string
 * that may reach a generated script has already been checked against a
 * strict grammar (see docs/spec.md).
 *
 * Ownership: spec_load/spec_parse return an owned spec or NULL;
 * spec_free(NULL) is a no-op.  All strings inside belong to the spec. */
#ifndef BPFSPEC_SPEC_H
#define BPFSPEC_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/kind.h"
#include "util/diag.h"
#include "util/units.h"

/* The forms of a count probe's probe point (docs/spec.md). */
typedef enum {
	POINT_TRACEPOINT,	/* tracepoint:CATEGORY:NAME */
	POINT_UPROBE,		/* uprobe:OBJECT:SYMBOL */
	POINT_URETPROBE,	/* uretprobe:OBJECT:SYMBOL */
	POINT_USDT,		/* usdt:OBJECT:PROVIDER:NAME */
	POINT_KPROBE,		/* kprobe:SYMBOL */
	POINT_KRETPROBE,	/* kretprobe:SYMBOL */
	POINT_SOFTWARE,		/* software:EVENT:PERIOD */
	POINT_PROFILE,		/* profile:hz:N */
	POINT_INTERVAL,		/* interval:s:N, interval:ms:N */
} point_type;

/* Where an event argument's value comes from (docs/spec.md#event-arguments). */
typedef enum {
	VALUE_ARG,		/* argN: uprobe, usdt, kprobe */
	VALUE_RETVAL,		/* retval: uretprobe, kretprobe */
	VALUE_FIELD,		/* args.FIELD: tracepoint */
} value_source;

typedef enum { ARG_INT, ARG_UINT, ARG_STRING } arg_type;

/* One argument an events probe on a probe point records. */
typedef struct spec_arg {
	char *name;		/* [a-z][a-z0-9_]{0,31}, unique in the probe */
	value_source src;
	int index;		/* VALUE_ARG: N of argN (0..11) */
	char *field;		/* VALUE_FIELD: [a-z_][a-z0-9_]{0,63}; else NULL */
	arg_type type;		/* default int */
	diag_loc loc;		/* the argument's mapping */
	diag_loc value_loc;
} spec_arg;

/* A point of a span probe (docs/spec.md#spans): a probe point where the
 * span reaches a stage, and the key that pairs it with the span's other
 * points.  Consecutive points with the same stage are alternatives (the
 * stage ends at whichever fires); points without a stage start a span. */
typedef struct spec_span_point {
	char *stage;		/* NULL: starts the span; else the stage ending
				 * here, [a-z][a-z0-9_]{0,31} */
	char *probe;		/* the probe point as written (its form's grammar) */
	point_type point;	/* uprobe, uretprobe, usdt, tracepoint, kprobe,
				 * kretprobe */
	/* The key: argN (on a uretprobe or kretprobe: the call's argument,
	 * read at its entry on the same thread), retval or args.FIELD, plus
	 * key_offset (a struct member's address from its container's). */
	value_source key_src;
	int key_index;		/* VALUE_ARG: N */
	char *key_field;	/* VALUE_FIELD: FIELD; else NULL */
	long key_offset;	/* -SPAN_MAX_OFFSET..SPAN_MAX_OFFSET */
	/* The span's label is read here: SPAN_LABEL_FUNC the function the
	 * uprobe is on (named by bpftrace), SPAN_LABEL_VALUE an integer,
	 * SPAN_LABEL_STRING the NUL-terminated string it points to ('str(
	 * VALUE)': its first SPAN_LABEL_BYTES bytes), the value
	 * label_src/label_index/label_field. */
	enum { SPAN_LABEL_NONE, SPAN_LABEL_FUNC, SPAN_LABEL_VALUE, SPAN_LABEL_STRING } label;
	value_source label_src;
	int label_index;
	char *label_field;
	diag_loc loc;		/* the point's mapping */
} spec_span_point;

/* Most points of a span (alternatives included), the largest key offset,
 * the default and largest number of open spans and of labels. */
#define SPEC_MAX_SPAN_POINTS 32
#define SPAN_MAX_OFFSET 65536
#define SPEC_DEFAULT_OPEN_SPANS 1024
#define SPEC_MAX_OPEN_SPANS 2048
#define SPEC_DEFAULT_SPAN_LABELS 16
#define SPEC_MAX_SPAN_LABELS 64
/* The bytes a string label keeps ('label: str(arg1)'): a longer string
 * is cut there, and strings that share them are one label. */
#define SPAN_LABEL_BYTES 31

/* Most arguments one event records; at most one of them a string. */
#define SPEC_MAX_EVENT_ARGS 6

/* Most syscalls one probe may name (beyond that, use `all`). */
#define SPEC_MAX_SYSCALLS 64
/* Default and largest number of event records a probe keeps. */
#define SPEC_DEFAULT_EVENT_LIMIT 1000
#define SPEC_MAX_EVENT_LIMIT 100000
/* Most checks (runbook conditions, condition.h) one spec may hold. */
#define SPEC_MAX_CHECKS 64
/* Default threshold of the loop blockers (spec key blockers): 1 ms. */
#define SPEC_DEFAULT_BLOCKER_NS 1000000ULL


typedef struct spec_probe {
	char *name;		/* [a-z][a-z0-9_]{0,31}, unique in the spec */
	diag_loc name_loc;
	probe_kind kind;
	diag_loc kind_loc;
	char *function;		/* symbol: [A-Za-z_][A-Za-z0-9_.$]{0,255} */
	diag_loc function_loc;
	char *object;		/* NULL, or object glob (see spec.objects) */
	diag_loc object_loc;
	bool optional;		/* missing symbol: warn and skip, not fail */
	/* When the (optional) function is missing, time the libuv phase it
	 * runs as a gap between the probed phases around it (resolve.h). */
	enum { DERIVED_NONE, DERIVED_LIBUV_PENDING, DERIVED_LIBUV_CLOSING } derived;
	diag_loc derived_loc;
	char *missing_reason;	/* NULL, or text shown when the symbol is missing */
	time_unit unit;		/* display unit; reports keep nanoseconds */
	bool per_thread;	/* group by thread (default true) */
	/* latency: split each call's time into on-CPU, blocked in syscalls,
	 * waiting for a CPU and asleep otherwise (gen/attribution/why.c) */
	bool attribute;
	diag_loc attribute_loc;
	char *description;	/* NULL or free text (never reaches a script) */

	/* syscalls and events: the syscalls, by number (systab.h), in the
	 * order given, without repeats; all_syscalls = the word `all`
	 * (syscalls kind only; n_syscalls is then 0). */
	int *syscalls;
	size_t n_syscalls;
	bool all_syscalls;
	diag_loc syscalls_loc;
	/* events: calls at least this slow are recorded (default 0: all);
	 * at most `limit` records are kept, the rest only counted. */
	uint64_t threshold_ns;
	unsigned limit;

	/* count, and events on a probe point (probe != NULL; then
	 * n_syscalls is 0): the probe point as written (it passed the
	 * grammar of its form), and its form.  uprobe/uretprobe/usdt on
	 * OBJECT `main` also set object to "main" (and uprobe/uretprobe
	 * function to SYMBOL), so that the symbol is resolved in the
	 * target's executable.  Events on uprobe, uretprobe, usdt,
	 * tracepoint, kprobe and kretprobe points only. */
	char *probe;
	diag_loc probe_loc;
	point_type point;
	/* events on a probe point: the values each record carries, in the
	 * spec's order (0..SPEC_MAX_EVENT_ARGS, at most one string); each
	 * value fits the point (argN not on a uretprobe, ...). */
	spec_arg *args;
	size_t n_args;
	/* span: its points, in order (2..SPEC_MAX_SPAN_POINTS, alternatives
	 * included); its stages are the distinct stages of the points, in
	 * order; at most `limit` spans (the spec's 'open') are open at
	 * once (the rest evict older ones, counted); at most `labels`
	 * distinct labels, the rest counted as "other". */
	spec_span_point *points;
	size_t n_points;
	unsigned labels;
	/* span: the stage worker threads run (each thread's time in it is
	 * kept), and the stage that waits for one (text reports say when
	 * the wait is a large part of the span); NULL: none.  Each names a
	 * stage of the points, the wait's before the workers'. */
	char *workers;
	diag_loc workers_loc;
	char *wait;
	diag_loc wait_loc;
	/* span: the workers stage runs on libuv's thread pool ('pool:
	 * libuv'): reports give the pool's size (target/libuv_pool.h). */
	bool pool_libuv;
	diag_loc pool_loc;
} spec_probe;

/* A parameter the spec declares (`parameters:`), with the value in force:
 * its default, or the --set value that overrode it. */
typedef struct spec_param {
	char *name;		/* [a-z][a-z0-9_]{0,31} */
	char *value;		/* as text; a list's items joined with "," */
	char *description;	/* NULL or free text */
	bool overridden;	/* true: value came from --set */
} spec_param;

/* Most parameters one spec may declare. */
#define SPEC_MAX_PARAMS 32

typedef struct spec {
	char *path;		/* as given */
	char *name;		/* from the spec, or the file's basename without .yaml */
	char *description;	/* NULL or free text */
	/* Where functions are searched, in order: "main" is the target's
	 * executable; any other entry is a glob matched against the basename
	 * of each object mapped into the target (e.g. "libuv.so*").
	 * Always at least one entry (default: "main"). */
	char **objects;
	size_t n_objects;
	uint64_t duration_ns;	/* default window; 0 = until stopped */
	/* timing: entry-only.  Latency probes then have no return probe: a
	 * probe's time runs from its entry to the next entry of any latency
	 * probe of the spec on the same thread (for phases of a loop, which
	 * run one after another and never nest).  false: entry-return. */
	bool entry_only;
	/* blockers: with attributed latency probes, each syscall at least this
	 * long made inside one of them is recorded (default
	 * SPEC_DEFAULT_BLOCKER_NS; 0 records every one). */
	uint64_t blocker_ns;
	/* stacks: with attributed latency probes, the user stack of a thread
	 * is sampled (WHY_STACK_HZ) while it runs inside one of them that has
	 * lasted at least this long; 0 (the default): no sampling. */
	uint64_t stack_ns;
	spec_probe *probes;
	size_t n_probes;	/* >= 1 */
	/* Checks, as written: each parses with check_parse, is absolute (no
	 * "+20%") and reads a probe of this spec in a way its kind allows.
	 * check_locs[i] is where checks[i] is written.  n_checks may be 0. */
	char **checks;
	diag_loc *check_locs;
	size_t n_checks;
	spec_param *params;	/* in the order declared; n_params may be 0 */
	size_t n_params;
	diag_src src;		/* the spec's text, for later diagnostics */
	/* The --set texts, as sources of the locations of values they gave. */
	diag_src *set_srcs;
	size_t n_set_srcs;
} spec;

/* Reads PATH and parses it.  Returns an owned spec, or NULL after
 * reporting every problem (unreadable file, YAML syntax, validation). */
spec *spec_load(const char *path);

/* Same as spec_load but on TEXT of LEN bytes, named PATH in messages. */
spec *spec_parse(const char *path, const char *text, size_t len);

/* spec_load and spec_parse with parameter overrides: SETS[0..N_SETS) are
 * "NAME=VALUE" texts as given to --set (borrowed during the call).  Every
 * NAME must be a declared parameter; a later --set of a name wins.  The
 * value of a list parameter is split on commas.  A value is validated
 * where it is used, exactly like the spec's own text, and errors in it
 * point into the --set text ("--set:1:COL"). */
spec *spec_load_set(const char *path, char *const *sets, size_t n_sets);
spec *spec_parse_set(const char *path, const char *text, size_t len,
		     char *const *sets, size_t n_sets);

void spec_free(spec *s);

/* Parses "250ms", "10s", "1.5s", "2m", "100us", "0"; returns 0 on success
 * and stores nanoseconds in *ns, -1 on a malformed or out-of-range value
 * (above 1 day). */
int spec_parse_duration(const char *text, uint64_t *ns);

/* A duration as an option gives it: bare seconds ("10", "0.5": bcc's
 * habit) or a spec duration ("500ms", "2m").  Returns 0, or -1 when it is
 * neither. */
int spec_parse_option_duration(const char *s, uint64_t *ns);

/* The syscalls an event loop blocks in when it has nothing to do: what a
 * utilization probe times (NULL-terminated).  The one list gen, resolve
 * and the run's thread snapshot all use. */
extern const char *const spec_loop_waits[];

const char *spec_kind_name(probe_kind k);	/* "latency", "syscalls", "events", "count", "utilization" */

/* What a probe of a kind needs of the target and the machine: what
 * resolve.c looks up and checks.  Each kind's file (gen/kinds/KIND.c)
 * says it. */
typedef struct spec_kind_needs {
	bool function;		/* its 'function' is timed in the target: looked up
				 * there, with libuv's version and derived phases */
	bool syscall_tracepoints;	/* raw_syscalls:sys_enter and sys_exit */
	bool loop_waits;	/* syscalls:sys_enter_ of each of spec_loop_waits */
	bool point_symbols;	/* the functions its points name on OBJECT main
				 * (span points) exist in the executable */
	bool tls_functions;	/* OpenSSL's SSL_read, SSL_write and SSL_free,
				 * in the executable or a libssl it maps, when
				 * there (resolve.h): TLS plain text */
} spec_kind_needs;

/* What KIND needs (never NULL for a kind of the enum). */
const spec_kind_needs *spec_kind_needs_of(probe_kind kind);

/* True for events probes that record hits of a probe point (not syscalls). */
bool spec_is_point_events(const spec_probe *p);

/* Checks a count probe point against the grammar of its form.  Returns 0
 * and sets *TYPE, or -1 and writes why into WHY (SIZE bytes). */
int spec_parse_point(const char *text, point_type *type, char *why, size_t size);

#endif
