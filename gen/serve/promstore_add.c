/* promstore_add — adding one interval's report to the store (promstore.h).
 *
 * Two steps, so that a failure adds nothing: the plan finds or creates
 * every series the report touches (allocations happen here, and a
 * failure removes the series this call created), then the plan's values
 * are added (no allocation, cannot fail). */
#include "serve/promstore.h"
#include "serve/promstore_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/feature.h"
#include "model/kind.h"
#include "target/discover.h"
#include "target/libuv.h"

/* Names, types and labels: docs/serve-metrics.md.  The report's own
 * families; the kinds' and features' are in their rows. */
static const ps_family_def window_family = {
	"bpfspec_window_seconds_total", "Time measured: the intervals' windows added up.",
	PS_COUNTER, true
};
static const ps_family_def lost_family = {
	"bpfspec_lost_events_total",
	"Events bpftrace reported lost (the other figures are then too low).", PS_COUNTER, false
};
static const ps_family_def *const report_families[] = { &window_family, &lost_family, NULL };

/* Whether NAME is family F's, or one of its series' names (a histogram's
 * NAME_bucket, NAME_sum, NAME_count). */
static bool names_family(const ps_family_def *f, const char *name)
{
	size_t len = strlen(f->name);
	return strcmp(name, f->name) == 0 ||
	       (f->type == PS_HISTOGRAM && strncmp(name, f->name, len) == 0 && name[len] == '_');
}

static bool in_list(const ps_family_def *const *list, const char *name)
{
	for (; list && *list; list++)
		if (names_family(*list, name))
			return true;
	return false;
}

bool ps_builtin_name(const char *name)
{
	if (in_list(report_families, name))
		return true;
	for (size_t k = 0; k < N_PROBE_KINDS; k++)
		if (in_list(kind_ops_of((probe_kind)k)->serve_families, name))
			return true;
	for (const feature_ops *const *f = features; *f; f++)
		if (in_list((*f)->serve_families, name))
			return true;
	return false;
}

static const char *const role_names[PROMSTORE_N_ROLES] = {
	[PROMSTORE_ROLE_OTHER] = "other",
	[PROMSTORE_ROLE_MAIN] = "main",
	[PROMSTORE_ROLE_WORKER] = "worker",
	[PROMSTORE_ROLE_POOL] = "pool",
};

const char *promstore_role_name(promstore_role role)
{
	return (unsigned)role < PROMSTORE_N_ROLES ? role_names[role] : NULL;
}

/* Whether thread TID is a group of probe P. */
static bool in_groups(const report_probe *p, long tid)
{
	for (size_t g = 0; g < p->n_groups; g++)
		if (p->groups[g].tid == tid)
			return true;
	return false;
}

promstore_role promstore_node_role(const report *rep, long tid, const char *thread)
{
	/* A traced process's main thread (with several -p, each one's). */
	if (rep && report_pids_has(report_pids_of(rep), tid))
		return PROMSTORE_ROLE_MAIN;
	/* The names node gives its threads: discover_thread_role's. */
	const char *by_name = discover_thread_role(0, (pid_t)tid, thread);
	if (strcmp(by_name, "main") == 0)
		return PROMSTORE_ROLE_MAIN;
	if (strcmp(by_name, "pool") == 0)
		return PROMSTORE_ROLE_POOL;
	if (strcmp(by_name, "worker") == 0)
		return PROMSTORE_ROLE_WORKER;
	for (size_t i = 0; rep && tid > 0 && i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		/* a loop's thread: busy and idle time measured, or a libuv
		 * phase timed */
		bool loop = kind_shape_of(p->kind)->busy ||
			    (p->function && libuv_is_phase_function(p->function));
		if (p->attached && loop && in_groups(p, tid))
			return PROMSTORE_ROLE_WORKER;
	}
	return PROMSTORE_ROLE_OTHER;
}

/* The labeler when the caller gives none. */
static int default_labels(const report *rep, long tid, const char *thread, promstore_labelset *out)
{
	const char *slash = rep->binary ? strrchr(rep->binary, '/') : NULL;
	out->target = slash ? slash + 1 : rep->binary;
	out->role = promstore_node_role(rep, tid, thread);
	return 0;
}

/* ---- the plan -------------------------------------------------------------- */

struct ps_add {
	promstore *ps;
	const report *rep;
	const promstore_labeler *lab;
	const char *probe;	/* the probe label's value; NULL: no probe label */
};

/* Index of thread TID in ps->threads, or where it would go. */
static size_t thread_at(const promstore *ps, long tid, bool *found)
{
	size_t lo = 0, hi = ps->n_threads;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->threads[mid].tid == tid) {
			*found = true;
			return mid;
		}
		if (ps->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* ps_plan_thread_labels: the labeler is asked the first time only. */
int ps_plan_thread_labels(ps_add *a, long tid, const char *name, const char **labels)
{
	promstore *ps = a->ps;
	promstore_labelset ls;
	ps_text t = { 0 };
	bool found;
	size_t at = thread_at(ps, tid, &found);

	if (found) {
		*labels = ps->threads[at].skip ? NULL : ps->threads[at].labels;
		return 0;
	}
	ps_thread *arr = ps_grow(ps, ps->threads, &ps->cap_threads, ps->n_threads + 1, sizeof *arr);
	if (!arr)
		return -1;
	ps->threads = arr;
	memset(&ls, 0, sizeof ls);
	int rc = a->lab ? a->lab->labels(a->lab->ctx, a->rep, tid, name, &ls)
			: default_labels(a->rep, tid, name, &ls);
	if (rc < 0 || rc > 1 || (tid != 0 && (unsigned)ls.role >= PROMSTORE_N_ROLES)) {
		errno = rc < 0 ? ECANCELED : EINVAL;
		return -1;
	}
	if (rc == 0) {
		char pid[24];
		snprintf(pid, sizeof pid, "%ld", ls.pid);
		const struct {
			const char *name, *value;
		} pairs[] = {
			{ "target", ls.target ? ls.target : "" },
			{ "k8s_namespace_name", ls.k8s_namespace },
			{ "k8s_pod_name", ls.pod },
			{ "k8s_container_name", ls.container },
			{ "pod_uid", ls.pod_uid },
			{ "container_id", ls.container_id },
			{ "pid", ls.pid > 0 ? pid : NULL },
			{ "thread_role", tid != 0 ? role_names[ls.role] : NULL },
		};
		for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
			if (pairs[i].value && (i == 0 || *pairs[i].value) &&
			    ps_text_label(ps, &t, pairs[i].name, pairs[i].value) < 0) {
				free(t.data);
				return -1;
			}
	}
	memmove(&ps->threads[at + 1], &ps->threads[at], (ps->n_threads - at) * sizeof *ps->threads);
	ps->threads[at] = (ps_thread){ .tid = tid, .skip = rc == 1, .labels = t.data };
	ps->n_threads++;
	*labels = t.data;
	return 0;
}

/* The series of family DEF with the current labels, LABELS and up to two
 * more pairs, found or created; NULL (errno set) on failure. */
static ps_series *plan_series(ps_add *a, const ps_family_def *def, const char *labels,
			      const char *n1, const char *v1, const char *n2, const char *v2)
{
	promstore *ps = a->ps;
	ps_text *k = &ps->key;
	ps_family *fam;

	k->len = 0;
	if (ps_text_label(ps, k, "spec", a->rep->spec_name) < 0 ||
	    (a->probe && ps_text_label(ps, k, "probe", a->probe) < 0) ||
	    ps_text_put(ps, k, ",", 1) < 0 || ps_text_put(ps, k, labels, strlen(labels)) < 0 ||
	    (n1 && ps_text_label(ps, k, n1, v1) < 0) || (n2 && ps_text_label(ps, k, n2, v2) < 0))
		return NULL;
	if (!(fam = ps_family_get(ps, def->name, def->type, def->seconds, def->help)))
		return NULL;
	return ps_series_get(ps, fam, k->data);
}

static int plan_item(promstore *ps, ps_plan_item item);

/* The key of a series with the current labels, LABELS and PAIRS
 * (ps_plan_pairs') into ps->key; *FIXED_LEN (may be NULL) is the length
 * of its part before PAIRS.  Returns 0, or -1 (ENOMEM). */
static int pairs_key(ps_add *a, const char *labels, const char *const *pairs, size_t n,
		     size_t *fixed_len)
{
	promstore *ps = a->ps;
	ps_text *k = &ps->key;

	k->len = 0;
	if (ps_text_label(ps, k, "spec", a->rep->spec_name) < 0 ||
	    (a->probe && ps_text_label(ps, k, "probe", a->probe) < 0) ||
	    ps_text_put(ps, k, ",", 1) < 0 || ps_text_put(ps, k, labels, strlen(labels)) < 0)
		return -1;
	if (fixed_len)
		*fixed_len = k->len;
	for (size_t i = 0; i < n; i++)
		if (ps_text_label(ps, k, pairs[2 * i], pairs[2 * i + 1]) < 0)
			return -1;
	return 0;
}

int ps_series_room(ps_add *a, const ps_family_def *def, const char *labels,
		   const char *const *pairs, size_t n, size_t max)
{
	size_t fixed, at;
	if (pairs_key(a, labels, pairs, n, &fixed) < 0)
		return -1;
	const ps_family *fam = ps_family_find(a->ps, def->name);
	const char *key = a->ps->key.data;
	if (!fam || ps_series_find(fam, key, &at))
		return 1;
	/* Keys are sorted: those sharing the fixed part are one run around
	 * where this one would go. */
	size_t lo = at, hi = at;
	while (lo > 0 && strncmp(fam->series[lo - 1]->key, key, fixed) == 0)
		lo--;
	while (hi < fam->n_series && strncmp(fam->series[hi]->key, key, fixed) == 0)
		hi++;
	return hi - lo < max;
}

int ps_plan_pairs(ps_add *a, const ps_family_def *def, const char *labels,
		  const char *const *pairs, size_t n, uint64_t v, const report_stats *st)
{
	promstore *ps = a->ps;
	ps_family *fam;
	ps_series *s;

	if (pairs_key(a, labels, pairs, n, NULL) < 0)
		return -1;
	if (!(fam = ps_family_get(ps, def->name, def->type, def->seconds, def->help)) ||
	    !(s = ps_series_get(ps, fam, ps->key.data)))
		return -1;
	return plan_item(ps, (ps_plan_item){ .s = s, .type = def->type, .seconds = def->seconds,
					     .v = v, .st = st });
}

static int plan_item(promstore *ps, ps_plan_item item)
{
	ps_plan_item *arr = ps_grow(ps, ps->plan, &ps->cap_plan, ps->n_plan + 1, sizeof *arr);
	if (!arr)
		return -1;
	ps->plan = arr;
	ps->plan[ps->n_plan++] = item;
	return 0;
}

int ps_plan(ps_add *a, const ps_family_def *def, const char *labels, const char *n1, const char *v1,
	    const char *n2, const char *v2, uint64_t v, const report_stats *st)
{
	ps_series *s = plan_series(a, def, labels, n1, v1, n2, v2);
	if (!s)
		return -1;
	return plan_item(a->ps, (ps_plan_item){ .s = s, .type = def->type, .seconds = def->seconds,
						.v = v, .st = st });
}

int ps_plan_ratio(ps_add *a, const ps_family_def *def, const char *labels, const char *n1,
		  const char *v1, uint64_t part, uint64_t whole)
{
	promstore *ps = a->ps;
	ps_series *s = plan_series(a, def, labels, n1, v1, NULL, NULL);
	if (!s)
		return -1;
	/* One item per series: the threads of one role add up in it. */
	for (size_t i = 0; i < ps->n_plan; i++)
		if (ps->plan[i].s == s && ps->plan[i].type == PS_GAUGE) {
			ps->plan[i].v = ps_add_u64(ps->plan[i].v, part);
			ps->plan[i].whole = ps_add_u64(ps->plan[i].whole, whole);
			return 0;
		}
	return plan_item(ps, (ps_plan_item){ .s = s, .type = PS_GAUGE, .v = part, .whole = whole });
}

int ps_plan_groups(ps_add *a, const report_probe *p, ps_group_planner *each)
{
	for (size_t i = 0; i < p->n_groups; i++) {
		const report_group *g = &p->groups[i];
		const char *labels;
		if (ps_plan_thread_labels(a, g->tid, g->thread, &labels) < 0)
			return -1;
		if (!labels)
			continue;
		if (each(a, p, g, labels) < 0)
			return -1;
		for (const feature_ops *const *f = features; *f; f++)
			if ((*f)->serve_group && (*f)->serve_group(a, p, g, labels) < 0)
				return -1;
	}
	return 0;
}

/* The report's series: each attached probe's (its kind's row), then the
 * report's own and the features'. */
static int plan_report(ps_add *a)
{
	const report *rep = a->rep;
	const char *whole;

	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		const kind_ops *k = kind_ops_of(p->kind);
		a->probe = p->name;
		if (p->attached && k && k->serve && k->serve(a, p) < 0)
			return -1;
	}
	a->probe = NULL;
	if (ps_plan_thread_labels(a, 0, NULL, &whole) < 0)
		return -1;
	if (!whole)
		return 0;
	if (ps_plan(a, &window_family, whole, NULL, NULL, NULL, NULL, rep->duration_ns, NULL) < 0 ||
	    ps_plan(a, &lost_family, whole, NULL, NULL, NULL, NULL, rep->lost_events, NULL) < 0)
		return -1;
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->serve && (*f)->serve(a, rep, whole) < 0)
			return -1;
	return 0;
}

/* ---- applying it ------------------------------------------------------------- */

uint64_t promstore_le_ns(size_t i)
{
	return promtext_le_ns(PROMSTORE_LE_STEPS, i);
}

/* A bucket [lo, hi) counts at the first bound at or above hi
 * (promtext_le_index): every value it holds is below it. */
static void add_histogram(ps_series *s, const report_stats *st)
{
	uint64_t total = 0;

	for (size_t i = 0; i < st->n_buckets; i++) {
		const report_bucket *b = &st->buckets[i];
		int k = promtext_le_index(PROMSTORE_LE_STEPS, b->hi_ns);
		total = ps_add_u64(total, b->count);
		if (k >= 0)
			s->le[k] = ps_add_u64(s->le[k], b->count);
	}
	/* The report derives count from the buckets; should they disagree,
	 * the larger keeps +Inf at or above every bound. */
	if (st->count > total)
		total = st->count;
	s->count = ps_add_u64(s->count, total);
	ps_time_add(&s->time, st->sum_ns);
}

static void apply(const ps_plan_item *pl)
{
	switch (pl->type) {
	case PS_COUNTER:
		if (pl->seconds)
			ps_time_add(&pl->s->time, pl->v);
		else
			pl->s->count = ps_add_u64(pl->s->count, pl->v);
		break;
	case PS_HISTOGRAM:
		add_histogram(pl->s, pl->st);
		break;
	case PS_GAUGE:
		if (pl->whole)
			pl->s->gauge = (double)pl->v / (double)pl->whole;
		break;
	}
}

int promstore_add(promstore *ps, const report *interval, const promstore_labeler *lab)
{
	if (!ps || !interval || interval->cumulative || (lab && !lab->labels)) {
		errno = EINVAL;
		return -1;
	}
	ps_add a = { ps, interval, lab, NULL };
	ps->gen++;
	ps->n_plan = 0;
	int rc = plan_report(&a);
	if (rc == 0) {
		for (size_t i = 0; i < ps->n_plan; i++)
			apply(&ps->plan[i]);
	} else {
		int err = errno;
		ps_rollback(ps);
		errno = err;
	}
	for (size_t i = 0; i < ps->n_threads; i++)
		free(ps->threads[i].labels);
	ps->n_threads = 0;
	ps->n_plan = 0;
	return rc;
}
