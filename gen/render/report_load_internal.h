/* report_load_internal — what the files of the report loader share
 * (report_load.c, report_load_probe.c and report_load_why.c; see
 * report_load.h for the module's contract).  Not for other modules.
 *
 *   report_load.c        diagnostics and JSON paths, the typed field
 *                        readers (rl_get and its kin); the report's own
 *                        fields and its arrays; the entry points
 *   report_load_probe.c  one probe: its stats, groups, syscalls and events;
 *                        the fields every syscall record shares
 *   report_load_why.c    attribution (gen/attribution/why.h): the
 *                        "attribution" of a latency probe and of its
 *                        groups, the report's "blockers"
 *
 * Every function that fails prints the first problem only (naming the
 * file and the JSON path) and returns -1 or NULL; what it filled before
 * failing stays in the report, which report_free frees. */
#ifndef BPFSPEC_REPORT_LOAD_INTERNAL_H
#define BPFSPEC_REPORT_LOAD_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/report.h"

/* Room for a JSON path: "probes[2].groups[10].attribution.syscalls[3]". */
#define JPATH_LEN 160

typedef struct loader {
	const char *file;	/* as the user named it */
	bool failed;		/* a diagnostic was printed */
	int schema;		/* the report's, from BPFSPEC_REPORT_SCHEMA_OLDEST
				 * to BPFSPEC_REPORT_SCHEMA (util/version.h) */
} loader;

typedef enum { T_INT, T_UINT, T_NUM, T_STR, T_BOOL, T_ARR, T_OBJ } want_type;

/* ---- shared functions (defined in report_load.c; rl_: the report
 * loader's, so that no name clashes with another module) ---- */

/* Prints "FILE: PATH: MESSAGE" (the first problem only). Returns -1. */
int rl_fail(loader *l, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prints "FILE: out of memory" (unless a problem was). Returns -1. */
int rl_oom(loader *l);

/* What V is, for a diagnostic: "an integer", "null"... (static text). */
const char *rl_type_name(const json_t *v);

/* BASE.KEY (KEY alone at the top) and BASE[I] into OUT (JPATH_LEN). */
void rl_path_key(char *out, const char *base, const char *key);
void rl_path_idx(char *out, const char *base, size_t i);

/* The value of KEY in OBJ (at BASE), checked against T.  Returns NULL
 * when it is absent and OPTIONAL (no diagnostic), or after a diagnostic
 * when it is absent, of another type, or negative for T_UINT.  With
 * NULLABLE a JSON null is accepted and returned as is. */
json_t *rl_get(loader *l, const json_t *obj, const char *base, const char *key,
	       want_type t, bool nullable, bool optional);

/* Required fields of one type into *OUT.  Return 0, or -1 after a
 * diagnostic. */
int rl_get_u64(loader *l, const json_t *obj, const char *base, const char *key,
	       uint64_t *out);
int rl_get_long(loader *l, const json_t *obj, const char *base, const char *key, long *out);
int rl_get_bool(loader *l, const json_t *obj, const char *base, const char *key, bool *out);

/* Copies string KEY into *OUT (owned; NULL for a JSON null when NULLABLE,
 * or when absent and OPTIONAL).  Returns 0, or -1 after a diagnostic. */
int rl_get_str(loader *l, const json_t *obj, const char *base, const char *key, char **out,
	       bool nullable, bool optional);

/* As rl_get_str, for bytes the traced process controls (a thread name, a
 * path): the exact bytes of KEY_hex when the writer added it (they are
 * not UTF-8, and KEY holds a lossy text). */
int rl_get_bytes(loader *l, const json_t *obj, const char *base, const char *key, char **out,
		 bool nullable, bool optional);

/* Replaces *OUT (owned) with the bytes that hex string H (at PATH) spells.
 * Returns 0, or -1 after a diagnostic (*OUT as it was). */
int rl_put_hex_bytes(loader *l, const json_t *h, const char *path, char **out);

/* Required number KEY, a fraction from 0 to 1, into *OUT.  Returns 0, or
 * -1 after a diagnostic. */
int rl_get_fraction(loader *l, const json_t *obj, const char *base, const char *key,
		    double *out);

/* Required array KEY of OBJ (borrowed), or NULL after a diagnostic. */
json_t *rl_get_arr(loader *l, const json_t *obj, const char *base, const char *key);

/* Array element I of ARR (at BASE) as an object (borrowed), its path in
 * PATH (JPATH_LEN); NULL after a diagnostic. */
json_t *rl_elem_obj(loader *l, const json_t *arr, const char *base, size_t i, char *path);

/* Allocates N zeroed elements of SIZE into *OUT (NULL for N = 0).
 * Returns 0, or -1 after a diagnostic. */
int rl_alloc_array(loader *l, void **out, size_t n, size_t size);

/* ---- report_load_probe.c ---- */

/* Probe OBJ (at BASE) into P: what it is and where, what its kind's shape
 * holds (model/kind.h) and what the features' load_probe hooks read.
 * Returns 0, or -1 after a diagnostic (what was filled stays in P, for
 * report_free). */
int rl_load_probe(loader *l, const json_t *obj, const char *base, report_probe *p);

/* Statistics of durations at OBJ (at BASE) into ST: count, sum, min, max,
 * mean and, when FULL, percentiles and buckets.  Returns 0, or -1 after a
 * diagnostic. */
int rl_load_stats(loader *l, const json_t *obj, const char *base, report_stats *st, bool full);

/* A span probe's stages, rows, open and evicted spans (report_load_span.c).
 * Returns 0, or -1 after a diagnostic. */
int rl_load_spans(loader *l, const json_t *obj, const char *base, report_probe *p);

/* An http probe's routes, counters and slow requests
 * (report_load_http.c).  Returns 0, or -1 after a diagnostic. */
int rl_load_http(loader *l, const json_t *obj, const char *base, report_probe *p);

/* The fields every syscall record has (an events probe's, a loop
 * blocker's; render_internal.h's rjson_put_syscall writes them) of OBJ at
 * BASE into EV: syscall, its duration (key DURATION: "duration_ns", or a
 * schema 1 events record's "latency_ns"), ret, and error, fd, path
 * (path_hex, path_truncated), address and length when present.  The
 * caller reads the record's own fields.  Returns 0, or -1 after a
 * diagnostic. */
int rl_get_syscall(loader *l, const json_t *obj, const char *base, report_event *ev,
		   const char *duration);

#endif
