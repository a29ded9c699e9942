/* spec_internal — what the files of the spec loader share (spec.c and
 * spec_*.c; see spec.h for the module's contract).  Not for other modules.
 *
 *   spec_grammar.c  names of enum values, durations, the small grammars
 *                   (names, symbols, paths) and count probe points
 *   spec_tree.c     the loader's diagnostics; pass 1: YAML events to a
 *                   tree of nodes with their marks
 *   spec_probes.c   pass 2: the tree against the format (keys, probes,
 *                   each kind's rules: sl_kind_rules, whose rows are in
 *                   gen/kinds/KIND.c)
 *   spec_syscalls.c a probe's 'syscalls' list: names to this machine's
 *                   syscall numbers, or all
 *   spec_args.c     a probe's keys (check_probe); events on a probe
 *                   point: 'args'
 *   spec_checks.c   'checks': runbook conditions, located in the spec
 *   spec_params.c   'parameters', --set overrides, ${NAME} values, the top
 *   spec.c          entry points: parse, load, free */
#ifndef BPFSPEC_SPEC_INTERNAL_H
#define BPFSPEC_SPEC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "spec/spec.h"
#include "util/diag.h"

#define SPEC_MAX_BYTES (1024 * 1024)
#define SPEC_MAX_PROBES 64
#define SPEC_MAX_OBJECTS 32
#define SPEC_MAX_ERRORS 50	/* more are counted, not shown */
/* top mapping > probes list > probe mapping > syscalls or args list >
 * argument mapping */
#define SPEC_DEPTH 5
#define YAML_MAX_DEPTH 64	/* deeper than this, reading stops */
#define DESCRIPTION_MAX 1000
#define REASON_MAX 200
#define PROBE_NAME_MAX 32
#define SPEC_NAME_MAX 64
#define FUNCTION_MAX 256
#define OBJECT_MAX 128
#define POINT_MAX 1024	/* a count probe's probe point, in bytes */
#define POINT_WORD_MAX 64	/* tracepoint, usdt words */
#define SYSCALL_NAME_MAX 64
#define EVENTS_MAX_SYSCALLS 16	/* an events probe names a few calls */
#define SYSCALL_GUESS_DISTANCE 2	/* "did you mean" at most this far off */
#define DAY_NS (86400ULL * 1000000000ULL)
#define SHOW_BUF 64		/* user text quoted in messages is cut to fit */

typedef struct loader {
	const diag_src *src;
	unsigned errors;	/* shown */
	unsigned dropped;	/* past SPEC_MAX_ERRORS */
	bool muted;		/* the last error was dropped: so are its notes */
} loader;

typedef enum { NODE_SCALAR, NODE_SEQ, NODE_MAP, NODE_BAD } node_type;

/* NODE_BAD stands for an alias, already reported.  A collection nested
 * deeper than SPEC_DEPTH is kept without its contents: the format expects
 * a plain value there, so checking its type reports it. */
typedef struct node {
	node_type type;
	yaml_mark_t start, end;
	char *value;		/* scalar: NUL-terminated (may hold NULs) */
	size_t len;
	bool plain;		/* scalar written without quotes */
	const diag_src *src;	/* where start/end point; NULL: the spec */
	struct node **kids;	/* sequence items; mapping key, value, key, ... */
	size_t n_kids, cap;
} node;

typedef struct builder {
	loader *ld;
	node *root;
	node *open[SPEC_DEPTH];	/* collections being filled */
	int depth;
	int skip;		/* open collections inside a contents-less one */
	node *skipped;		/* the contents-less collection */
	int docs;
	bool stop;		/* read no further */
	bool broken;		/* the tree is incomplete: do not validate it */
} builder;

enum {
	TOP_NAME, TOP_DESCRIPTION, TOP_OBJECTS, TOP_DURATION, TOP_PROBES, TOP_CHECKS,
	TOP_PARAMETERS, TOP_TIMING, TOP_BLOCKERS, TOP_STACKS, N_TOP,
};

enum {
	P_NAME, P_KIND, P_FUNCTION, P_OBJECT, P_OPTIONAL, P_MISSING_REASON, P_SYSCALLS,
	P_PROBE, P_THRESHOLD, P_LIMIT, P_UNIT, P_PER_THREAD, P_DESCRIPTION, P_ARGS, P_DERIVED,
	P_ATTRIBUTE, P_POINTS, P_LABELS, P_OPEN, P_WAIT, P_WORKERS, P_POOL, N_PROBE,
};

/* A set of probe keys: KEY(P_UNIT) | ... */
#define KEY(k) (1u << (k))
#define KEYS_EVERY (KEY(P_NAME) | KEY(P_KIND) | KEY(P_DESCRIPTION))	/* every kind's */

/* What a spec says of a probe of one kind: the keys it takes and the
 * rules between them.  Defined in the kind's file (gen/kinds/KIND.c),
 * the one place that knows the kind at every stage; the loader names
 * no kind. */
typedef struct spec_kind_rules {
	probe_kind kind;
	spec_kind_needs needs;
	unsigned keys;		/* the probe keys it takes (KEY(P_x) | ...) */
	unsigned not_offered;	/* keys it takes with a meaning of its own: a
				 * hint for another kind's misplaced key does
				 * not offer it for them */
	const char *purpose;	/* what it does, after "a count probe ": "counts
				 * the hits of its 'probe'" */
	const char *offer;	/* how a hint offers it: "'kind: count' (hits of a
				 * probe point)" */
	/* For a key it does not take, what to write instead, by key (NULL:
	 * the key's use or role, sl_probe_key_uses): "a count probe names
	 * its function in 'probe', ...".  NULL: none. */
	const char *const *instead;
	/* The key a probe of it must have (0, 'name', which every probe
	 * must have anyway: none), and the hint when it is missing. */
	int required;
	const char *required_hint;
	unsigned default_limit;	/* 'limit' when the spec gives none */
	/* Its 'syscalls' list, when it takes one: */
	bool all_syscalls;	/* 'syscalls: all' means every syscall */
	size_t max_syscalls;	/* at most this many names */
	const char *syscalls_verb;	/* what it does to them: "measure" */
	const char *syscalls_example;	/* "syscalls: [openat, read]" */
	/* Checks between P's keys once all are read: the keys it needs,
	 * those that exclude each other.  SEEN[P_x] is key P_x's node, or
	 * NULL; LABEL is "probe 'x'", WHERE "in probe 'x'".  NULL: none. */
	void (*check)(loader *ld, spec_probe *p, const node *map, const node *const *seen,
		      const char *label, const char *where);
} spec_kind_rules;

/* KIND's rules (never NULL for a kind of the enum). */
const spec_kind_rules *sl_kind_rules(probe_kind kind);

#define POINT_FORMS "a probe point is one of tracepoint:CATEGORY:NAME, uprobe:OBJECT:SYMBOL, " \
	"uretprobe:OBJECT:SYMBOL, usdt:OBJECT:PROVIDER:NAME, kprobe:SYMBOL, kretprobe:SYMBOL, " \
	"software:EVENT:PERIOD, profile:hz:N, interval:s:N, interval:ms:N (OBJECT: main or an " \
	"absolute path); see docs/spec.md#count-probes"

/* How messages about one duration field read. */
typedef struct duration_field {
	const char *name;	/* "duration" */
	const char *examples;	/* "500ms, 10s or 1.5m" */
	const char *zero;	/* what 0 does: "trace until stopped" */
	const char *zero_is;	/* "means until stopped" */
} duration_field;

/* ---- shared tables ---- */

extern const char *const sl_top_keys[];
extern const char *const sl_top_examples[];
extern const char *const sl_probe_keys[];
extern const char *const sl_probe_examples[];
extern const char *const sl_probe_key_roles[];
extern const char *const sl_probe_key_uses[];
extern const duration_field sl_duration_top;
extern const duration_field sl_duration_threshold;
extern const duration_field sl_duration_blockers;
extern const duration_field sl_duration_stacks;

/* ---- shared functions (defined in the file of their section; sl_: the
 * spec loader's, so that no name clashes with another module) ---- */

/* The next error will not be shown (SPEC_MAX_ERRORS are): a caller skips
 * composing its hint, so that a spec of a hundred thousand wrong keys
 * costs a count each, not a message each. */
static inline bool sl_quiet(const loader *ld) { return ld->errors >= SPEC_MAX_ERRORS; }
static inline bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static inline bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

int sl_parse_duration(const char *text, uint64_t *ns);
bool sl_probe_name_ok(const char *s, size_t len);
bool sl_spec_name_ok(const char *s, size_t len);
bool sl_function_ok(const char *s, size_t len);
bool sl_cxx_function_ok(const char *s, size_t len);
bool sl_syscall_name_ok(const char *s, size_t len);
bool sl_object_ok(const char *s, size_t len);
void sl_report(loader *ld, diag_level level, diag_loc loc, const char *hint,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
size_t sl_mark_offset(const diag_src *src, yaml_mark_t m);
diag_loc sl_marks_loc(const loader *ld, yaml_mark_t start, yaml_mark_t end);
const char *sl_show(char *buf, const char *s, size_t len);
void sl_node_free(node *n);
bool sl_attach(builder *b, node *n);
node *sl_build_tree(loader *ld, bool *broken);
diag_loc sl_node_loc(const loader *ld, const node *n);
diag_loc sl_map_loc(const loader *ld, const node *map);
bool sl_node_is(const node *n, const char *word);
bool sl_is_null(const node *n);
const char *sl_type_name(const node *n);
const char *sl_choices_hint(char *hint, size_t size, const char *word,
				const char *what, const char *const *words);
int sl_check_key(loader *ld, const node *k, const char *const *keys, const node **seen,
		     const char *where);
bool sl_want_scalar(loader *ld, const node *k, const node *v, const char *what,
			const char *example, bool required);
char *sl_dup_value(const node *v);
bool sl_no_memory(loader *ld);
bool sl_check_prose(loader *ld, const node *k, const node *v, const char *what,
		       const char *example, size_t max, char **out);
bool sl_check_bool(loader *ld, const node *k, const node *v, const char *what,
		       const char *example, bool *out);
bool sl_check_object(loader *ld, const node *v, const char *what, char **out);
bool sl_check_duration_value(loader *ld, const node *k, const node *v,
				 const duration_field *f, const char *what, const char *where,
				 const char *example, uint64_t *ns);
void sl_check_objects(loader *ld, spec *s, const node *k, const node *v);
void sl_probe_label(const node *map, size_t index, char *buf, size_t size);
void sl_check_probe_name(loader *ld, spec *s, spec_probe *p, const node *v);
int sl_probe_kind_in(const node *map);
void sl_report_misplaced_key(loader *ld, const node *k, int key, probe_kind kind,
			     const char *where);
void sl_check_syscalls(loader *ld, spec_probe *p, const spec_kind_rules *rules, const node *k,
		       const node *v, const char *where);
const char *sl_missing_kind_hint(char *out, size_t size, const node *const *seen);
void sl_check_point_events(loader *ld, const spec_probe *p, const char *where);
bool sl_check_limit(loader *ld, const node *v, const char *where, unsigned *out);
void sl_check_point(loader *ld, spec_probe *p, const node *v, const char *where);
void spec_arg_free(spec_arg *a);
bool sl_parse_value(const char *s, size_t len, value_source *src, int *index);
void sl_check_span_points(loader *ld, spec_probe *p, const node *k, const node *v,
			  const char *where);
void sl_check_span_labels(loader *ld, spec_probe *p, const node *v, const char *where);
void sl_check_span_open(loader *ld, spec_probe *p, const node *v, const char *where);
/* 'pool': the one pool bpfspec knows, libuv. */
void sl_check_span_pool(loader *ld, spec_probe *p, const node *v, const char *where);
void sl_check_span_stage_key(loader *ld, spec_probe *p, char **out, diag_loc *loc, const node *v,
			     const char *where);
void spec_span_point_free(spec_span_point *pt);
void sl_check_probes(loader *ld, spec *s, const node *k, const node *v);
void sl_check_checks(loader *ld, spec *s, const node *k, const node *v, const node *probes);
bool sl_apply_parameters(loader *ld, spec *s, node *root, char *const *sets,
			     size_t n_sets);
void sl_check_top(loader *ld, spec *s, const node *root);

#endif
