/* render_internal — what the renderers (render_text.c, render_json.c,
 * render_prom.c) share with the kinds (gen/kinds/), which write their own
 * rows, fields and families.  Not for any other module.
 *
 * Every string the traced process controls (thread names, paths, symbols)
 * goes through safe.h here: text cells are escaped and cut to their
 * column, JSON strings are valid UTF-8 with the exact bytes beside them,
 * label values are escaped. */
#ifndef BPFSPEC_RENDER_INTERNAL_H
#define BPFSPEC_RENDER_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/report.h"
#include "util/promtext.h"

/* ---- text ---------------------------------------------------------- */

/* The THREAD column: a thread name (15 bytes at most in the kernel) and
 * " (main)"; event tables have no suffix. */
#define TEXT_THREAD_COLS 22
#define TEXT_EVENT_THREAD_COLS 16

/* Spaces that pad S's text form to WIDTH columns (0 when it is wider). */
int text_pad_to(size_t width, const char *s);

/* Group GR's thread name in the THREAD column, " (main)" after PID's. */
void text_thread_cell(FILE *out, const report_group *gr, report_pids pids);

/* NS in P's unit with 3-4 significant digits ("40.31ms"); past 99999 of
 * a unit, the next one up. */
void text_fmt_dur(char *out, size_t len, uint64_t ns, uint64_t per_unit, const char *unit);

/* NS in the unit that suits its size: 512ns, 1.05us, 40.3ms. */
void text_fmt_auto(char *out, size_t len, uint64_t ns);

/* COUNT TOTAL %WIN MEAN P50 P90 P99 MAX of ST in P's unit, '\n' ended. */
void text_stats_row(FILE *out, const report_stats *st, const report_probe *p, uint64_t window_ns);

/* The distribution ST as log2 rows with bars (nothing when empty). */
void text_histogram(FILE *out, const report_stats *st);

/* "\nNAME: " — the first line of a probe's section, up to its title. */
void text_section(FILE *out, const report_probe *p);

/* ---- JSON ---------------------------------------------------------- */

/* V as a JSON integer (INT64_MAX when larger). */
json_t *rjson_u64(uint64_t v);

/* S as a JSON string, invalid UTF-8 bytes as U+FFFD; null for NULL. */
json_t *rjson_text(const char *s);

/* The exact bytes of S, lower-case hex, as a JSON string. */
json_t *rjson_hex(const char *s);

/* Sets KEY of OBJ to rjson_text(S) and, when S is not valid UTF-8,
 * KEY_hex to its exact bytes. */
void rjson_put_bytes(json_t *obj, const char *key, const char *s);

/* count, sum, min, max, mean, p50, p90, p99 (ns) and buckets of ST. */
void rjson_put_stats(json_t *obj, const report_stats *st);

/* The fields every syscall record of the report has, with one set of
 * names (docs/report.md): syscall, duration_ns, ret, and when the record
 * has them error, fd, path (path_hex, path_truncated), address
 * (address_hex) and length.  Its writer adds the record's own fields
 * around them: an events record's t_ns, tid and thread, a loop blocker's
 * phase, main_thread, nested_loop and command. */
void rjson_put_syscall(json_t *obj, const report_event *ev);

/* A group's object with what says whose it is: tid, thread, main_thread. */
json_t *rjson_group(const report_group *g, report_pids pids);

/* Every feature's members of probe P's object JP (after its statistics),
 * and of its group G's object JG (model/feature.h). */
void rjson_put_features(json_t *jp, const report_probe *p, const report *rep);
void rjson_put_group_features(json_t *jg, const report_probe *p, const report_group *g);

/* Groups G[0..N) as thread totals: whose, count, sum, min, max, mean. */
json_t *rjson_thread_totals(const report_group *g, size_t n, report_pids pids);

/* ---- Prometheus ---------------------------------------------------- */

/* Numbers and label pairs: util/promtext.h (promtext_seconds,
 * promtext_u64, promtext_label). */

/* One metric family: its HELP and TYPE lines are written before its first
 * sample, so a family without samples leaves no trace. */
typedef struct prom_family {
	const char *name;
	const char *type;
	const char *help;
	bool started;
} prom_family;

/* One sample of F: NAME+SUFFIX{LS[0..N)} VALUE (promtext_sample), F's
 * HELP and TYPE first. */
void prom_sample(FILE *out, prom_family *f, const char *suffix, const promtext_label *ls, size_t n,
		 const char *value);

/* Histogram ST of F with labels LS[0..N), its buckets folded onto -o
 * prom's le layout (one bound per power of two, promtext.h). */
void prom_histogram(FILE *out, prom_family *f, const promtext_label *ls, size_t n,
		    const report_stats *st);

/* The next attached probe of KIND in REP at or after index *I (advancing
 * *I past it), or NULL: for (size_t i = 0; (p = prom_next(rep, K, &i));). */
const report_probe *prom_next(const report *rep, probe_kind kind, size_t *i);

/* The labels spec, probe, tid, thread, main of group GR of probe P into
 * LS; TID (24 bytes) holds the tid as text. */
void prom_thread_labels(promtext_label ls[5], char tid[24], const report *rep,
			const report_probe *p, const report_group *gr);

#endif
