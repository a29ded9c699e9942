/* promstore_internal — what promstore.c (the store: families, series,
 * label text, the caller's families), promstore_add.c (adding a report)
 * and promstore_render.c (the exposition) share.  Not for any other
 * module; tests use its allocation hook.
 *
 * A family holds its series sorted by key: the series' label pairs as the
 * exposition writes them between the braces (values already escaped), so
 * that two series are one in Prometheus exactly when they are one here,
 * and the sorted order is the output order. */
#ifndef BPFSPEC_PROMSTORE_INTERNAL_H
#define BPFSPEC_PROMSTORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/promstore.h"
#include "serve/promstore_plan.h"

#define PS_LE_N PROMSTORE_LE_N

/* A duration total: exact, with 2^64 s of room. */
typedef struct ps_time {
	uint64_t s;
	uint32_t ns;	/* 0 .. 999999999 */
} ps_time;

typedef struct ps_series {
	char *key;	/* `spec="x",probe="y",...`: no braces; "" for none */
	uint64_t born;	/* the store's gen when it was created */
	uint64_t count;	/* counters of things; histograms: _count (== +Inf) */
	ps_time time;	/* counters of seconds; histograms: _sum */
	double gauge;
	uint64_t *le;	/* histograms: PS_LE_N counts per bound, not cumulative */
} ps_series;

typedef struct ps_family {
	char *name;
	char *help;	/* NULL: none */
	ps_type type;
	bool seconds;	/* a counter of seconds (time), else of things (count) */
	ps_series **series;	/* sorted by key (strcmp) */
	size_t n_series, cap_series;
} ps_family;

/* A growable NUL-terminated string, grown through ps_realloc. */
typedef struct ps_text {
	char *data;
	size_t len, cap;
} ps_text;

/* One value of an add to apply once every series it needs exists. */
typedef struct ps_plan_item {
	ps_series *s;
	ps_type type;
	bool seconds;
	uint64_t v;	/* counters: the count or nanoseconds to add; gauges:
			 * the part of a ratio (ps_plan_ratio) */
	uint64_t whole;	/* gauges: the whole of the ratio */
	const report_stats *st;	/* histograms */
} ps_plan_item;

/* The labels of one thread during an add (promstore_add.c). */
typedef struct ps_thread {
	long tid;
	bool skip;
	char *labels;	/* its label pairs, thread_role last (tid 0: none) */
} ps_thread;

struct promstore {
	ps_family **fams;	/* sorted by name; none is empty between calls */
	size_t n_fams, cap_fams;
	uint64_t gen;	/* one more at each call that may create series */
	long fail_after;	/* tests: the Nth allocation from now fails; 0: none */
	/* scratch of one call, kept for its room */
	ps_text key;
	ps_plan_item *plan;
	size_t n_plan, cap_plan;
	ps_thread *threads;	/* sorted by tid */
	size_t n_threads, cap_threads;
};

/* Whether NAME is taken by a family the store fills from reports (the
 * report's own, or a kind's or a feature's row's): no caller's family may
 * take it (promstore_add.c). */
bool ps_builtin_name(const char *name);

/* realloc(P, N) unless the test hook says this one fails: NULL, errno
 * ENOMEM, P untouched. */
void *ps_realloc(promstore *ps, void *p, size_t n);
/* A (*CAP elements of SIZE bytes) grown to hold NEED, or NULL (ENOMEM;
 * A untouched); *CAP updated. */
void *ps_grow(promstore *ps, void *a, size_t *cap, size_t need, size_t size);
/* False (errno ENOMEM) when the test hook fails this allocation: for
 * allocations made elsewhere (safe_text). */
bool ps_alloc_ok(promstore *ps);

/* Appends N bytes of S to T.  Returns 0, or -1 (ENOMEM). */
int ps_text_put(promstore *ps, ps_text *t, const char *s, size_t n);
/* Appends `,NAME="VALUE"` (no comma when T is empty): VALUE's text form
 * (safe.h) with '\\' and '"' escaped; NULL is "".  Returns 0, or -1. */
int ps_text_label(promstore *ps, ps_text *t, const char *name, const char *value);

/* The family NAME, or NULL. */
ps_family *ps_family_find(const promstore *ps, const char *name);
/* The family NAME, created with TYPE, SECONDS and HELP (copied) when it
 * does not exist; NULL (errno EINVAL) when it exists with another type,
 * or (ENOMEM) out of memory. */
ps_family *ps_family_get(promstore *ps, const char *name, ps_type type, bool seconds,
			 const char *help);
/* F's series KEY, or NULL; *AT (may be NULL) is where it is or would go. */
ps_series *ps_series_find(const ps_family *f, const char *key, size_t *at);
/* F's series KEY, created (zero, born now) when absent; NULL (ENOMEM). */
ps_series *ps_series_get(promstore *ps, ps_family *f, const char *key);
/* Removes series I of F. */
void ps_series_remove(ps_family *f, size_t i);
/* Undoes a failed call: removes the series born at the current gen and
 * the families left empty. */
void ps_rollback(promstore *ps);

/* Saturating additions. */
uint64_t ps_add_u64(uint64_t a, uint64_t b);
void ps_time_add(ps_time *t, uint64_t ns);

/* Tests: the Nth allocation of the store from now fails (ENOMEM); 0
 * turns this off. */
void promstore_fail_alloc(promstore *ps, long n);

#endif
