/* promtext — the one writer of the Prometheus text exposition format
 * 0.0.4, for -o prom (render/render_prom.c and the kinds' families) and
 * for `bpfspec serve` (serve/promstore_render.c).  What each output
 * holds stays with its caller; how a number, a HELP or TYPE line, a
 * sample line, the le bounds and a histogram look is decided here, so
 * that a scrape and a report write the same bytes for the same thing.
 *
 * Numbers: counts as integers; durations as exact decimal seconds from
 * integer nanoseconds, trailing zeros dropped ("0.0188", "4.294967296",
 * "2"); gauges in the shortest form that reads back as the same double
 * (bpfspec never sets a locale, so the decimal point is '.').  Every
 * number fits in PROMTEXT_NUM_LEN bytes.
 *
 * The le layout: bounds from 2^PROMTEXT_LE_FIRST ns to
 * 2^PROMTEXT_LE_LAST ns (0.000001024 s .. 34.359738368 s), STEPS bounds
 * per power of two (2^k + j 2^k / STEPS ns, j < STEPS), then +Inf.  -o
 * prom uses one step (a snapshot), serve eight (histogram_quantile within
 * 12.5%); every bound of the first is a bound of the second, so series
 * sum by le across both.
 *
 * Label values are escaped here (safe.h's text form, then '\\' and '"'),
 * unless the caller passes them pre-rendered (serve's series keys).
 * Write errors are left in OUT's error flag: callers check ferror once at
 * the end.  Bottom module: standard headers and util/safe.h only.
 * Ownership: every argument is borrowed; nothing is allocated. */
#ifndef BPFSPEC_PROMTEXT_H
#define BPFSPEC_PROMTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Room for any number this module writes, with its NUL. */
#define PROMTEXT_NUM_LEN 32

#define PROMTEXT_LE_FIRST 10	/* le="0.000001024": 2^10 ns, about 1 us */
#define PROMTEXT_LE_LAST 35	/* le="34.359738368": 2^35 ns, about 34 s */
#define PROMTEXT_LE_STEPS_MAX 8
/* Bounds of the layout with STEPS per power of two (+Inf not counted). */
#define PROMTEXT_LE_N(steps) ((size_t)(PROMTEXT_LE_LAST - PROMTEXT_LE_FIRST) * (steps) + 1)

/* Writes NS nanoseconds as exact decimal seconds into OUT (LEN bytes;
 * PROMTEXT_NUM_LEN hold any): 11100000 -> "0.0111", 2000000000 -> "2". */
void promtext_seconds(char *out, size_t len, uint64_t ns);

/* Writes S seconds and NS nanoseconds (0 .. 999999999) as exact decimal
 * seconds into OUT, as promtext_seconds: for totals past 2^64 ns. */
void promtext_seconds_split(char *out, size_t len, uint64_t s, uint32_t ns);

/* Writes V as a decimal integer into OUT (LEN bytes). */
void promtext_u64(char *out, size_t len, uint64_t v);

/* Writes V into OUT (LEN bytes) in the shortest "%g" form that reads back
 * as V; "NaN", "+Inf", "-Inf" for those. */
void promtext_gauge(char *out, size_t len, double v);

/* Writes the "# HELP NAME HELP" line ('\\' and newline of HELP escaped
 * as the format asks; none when HELP is NULL), then "# TYPE NAME TYPE"
 * (TYPE: "counter", "gauge", "histogram"). */
void promtext_header(FILE *out, const char *name, const char *type, const char *help);

/* One label pair; VALUE is the caller's (the target's strings included)
 * and is escaped on the way out.  NULL is written as "". */
typedef struct promtext_label {
	const char *name;
	const char *value;
} promtext_label;

/* The labels of one sample: KEY, pairs already rendered and escaped
 * (`a="x",b="y"`, no braces; NULL or "" for none), then PAIRS[0..N). */
typedef struct promtext_labels {
	const char *key;
	const promtext_label *pairs;
	size_t n;
} promtext_labels;

/* Writes one sample line: NAME SUFFIX {LABELS ,le="LE"} VALUE, with the
 * le pair only when LE is not NULL and no braces when there is no label
 * at all.  LS may be NULL (no labels); SUFFIX may be "" ("_bucket",
 * "_sum", "_count" for a histogram's lines). */
void promtext_sample(FILE *out, const char *name, const char *suffix, const promtext_labels *ls,
		     const char *le, const char *value);

/* Bound I (0 .. PROMTEXT_LE_N(STEPS) - 1) of the layout with STEPS (1, 2,
 * 4 or 8) bounds per power of two, in nanoseconds. */
uint64_t promtext_le_ns(unsigned steps, size_t i);

/* The bound (index, as for promtext_le_ns) of a bucket [lo, HI): the
 * first bound at or above HI, so that every value the bucket holds is
 * below it; -1 past the last (+Inf only).  A bucket that straddles a
 * bound counts at the next one, never at one some of its values exceed. */
int promtext_le_index(unsigned steps, uint64_t hi);

/* The le values of one layout as text, for promtext_histogram. */
typedef struct promtext_le {
	size_t n;	/* PROMTEXT_LE_N(steps) */
	char text[PROMTEXT_LE_N(PROMTEXT_LE_STEPS_MAX)][16];
} promtext_le;

/* Fills LE with the bounds of the layout with STEPS (1, 2, 4 or 8) per
 * power of two, as decimal seconds (none for a STEPS above 8). */
void promtext_le_init(promtext_le *le, unsigned steps);

/* Writes histogram NAME with labels LS (may be NULL): a NAME_bucket line
 * for each bound of LE with CUM[i], the cumulative count at or below it
 * (CUM has LE->n counts), one for +Inf with COUNT, NAME_sum with SUM (a
 * number already written, promtext_seconds) and NAME_count with COUNT. */
void promtext_histogram(FILE *out, const char *name, const promtext_labels *ls,
			const promtext_le *le, const uint64_t *cum, uint64_t count,
			const char *sum);

#endif
