/* promstore_plan — what a kind's row and a feature's hooks add to serve's
 * store for one interval's report (promstore.h, docs/serve-metrics.md).
 *
 * promstore_add runs an add in two steps, so that a failure adds nothing:
 * the plan finds or creates every series the report touches, then the
 * planned values are added.  Rows take part in the first step only, with
 * ps_plan (one value for one series) and the thread labels below; the
 * store applies the plan.
 *
 * Every series carries the labels spec and probe (the probe being
 * planned; none for the report's own families), then a thread's label
 * pairs (ps_plan_thread_labels: target, thread_role and the labeler's),
 * then up to two pairs of the row's.  The families a row fills are its
 * own (kind_ops' and feature_ops' serve_families): no caller's family
 * may take their names. */
#ifndef BPFSPEC_PROMSTORE_PLAN_H
#define BPFSPEC_PROMSTORE_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "model/report.h"

typedef enum { PS_COUNTER, PS_GAUGE, PS_HISTOGRAM } ps_type;

/* A family the store fills from reports. */
typedef struct ps_family_def {
	const char *name, *help;
	ps_type type;
	bool seconds;	/* counters: of seconds (a value is nanoseconds) */
} ps_family_def;

/* One add in progress (promstore_add.c). */
typedef struct ps_add ps_add;

/* Plans adding V (counters: a count or nanoseconds) or ST (histograms:
 * borrowed until the add ends) to the series of family F with the
 * current labels, LABELS (a thread's, from ps_plan_thread_labels) and up
 * to two more pairs (N1 = V1, N2 = V2; a NULL name: none).  Returns 0, or
 * -1 (errno set). */
int ps_plan(ps_add *a, const ps_family_def *f, const char *labels, const char *n1, const char *v1,
	    const char *n2, const char *v2, uint64_t v, const report_stats *st);

/* As ps_plan, with N more pairs: PAIRS[2i] = PAIRS[2i + 1]. */
int ps_plan_pairs(ps_add *a, const ps_family_def *f, const char *labels,
		  const char *const *pairs, size_t n, uint64_t v, const report_stats *st);

/* Whether family F may hold the series with the current labels, LABELS
 * and PAIRS (as ps_plan_pairs): 1 when it exists already or fewer than
 * MAX of F's series share the current labels and LABELS, else 0 (the row
 * then plans a catch-all series instead, so that labels a client chose
 * cannot grow the store for the life of serve); -1 (errno set). */
int ps_series_room(ps_add *a, const ps_family_def *f, const char *labels,
		   const char *const *pairs, size_t n, size_t max);

/* Plans setting gauge family F's series (labels as for ps_plan) to a
 * ratio: the PARTs planned for it in this add over their WHOLEs (the
 * threads of one role, say, pool into one figure).  A series whose
 * wholes add up to 0 keeps its value.  Returns 0, or -1 (errno set). */
int ps_plan_ratio(ps_add *a, const ps_family_def *f, const char *labels, const char *n1,
		  const char *v1, uint64_t part, uint64_t whole);

/* The label pairs of thread TID (named NAME; tid 0: the target as a
 * whole) into *LABELS, borrowed until the add ends; NULL when the
 * labeler leaves the thread out (plan nothing for it then).  Returns 0,
 * or -1 (errno set). */
int ps_plan_thread_labels(ps_add *a, long tid, const char *name, const char **labels);

/* Plans what a row adds for group G of probe P, whose thread has LABELS.
 * Returns 0, or -1 (errno set). */
typedef int ps_group_planner(ps_add *a, const report_probe *p, const report_group *g,
			     const char *labels);

/* Calls EACH for every group of P whose thread the labeler keeps, then
 * every feature's serve_group hook for it.  Returns 0, or -1 (errno set). */
int ps_plan_groups(ps_add *a, const report_probe *p, ps_group_planner *each);

#endif
