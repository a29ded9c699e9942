/* span — work timed from one probe point to others, across threads
 * (span.h; docs/spec.md#spans): the kind's row, its spec rules, its
 * report and its outputs.  Its probes: span_program.c. */
#include "kinds/span.h"

#include <stdlib.h>
#include <string.h>

#include "model/kind.h"
#include "model/wire.h"
#include "program/generator_internal.h"
#include "render/render_internal.h"
#include "run/report_internal.h"
#include "serve/promstore_plan.h"
#include "spec/spec_internal.h"
#include "target/libuv_pool.h"
#include "target/symtab.h"
#include "util/safe.h"

size_t span_stage_of(const spec_probe *p, size_t i)
{
	size_t stage = 0;
	for (size_t k = 0; k <= i && k < p->n_points; k++)
		if (p->points[k].stage &&
		    (k == 0 || !p->points[k - 1].stage ||
		     strcmp(p->points[k - 1].stage, p->points[k].stage) != 0))
			stage++;
	return stage;
}

size_t span_stages(const spec_probe *p)
{
	return p->n_points ? span_stage_of(p, p->n_points - 1) : 0;
}

bool span_labelled(const spec_probe *p)
{
	for (size_t i = 0; i < p->n_points; i++)
		if (p->points[i].label != SPAN_LABEL_NONE)
			return true;
	return false;
}

bool span_string_labelled(const spec_probe *p)
{
	for (size_t i = 0; i < p->n_points; i++)
		if (p->points[i].label == SPAN_LABEL_STRING)
			return true;
	return false;
}

/* ---- spec ---- */

/* The index + 1 of P's stage NAME, 0 when P has none of that name. */
static size_t stage_number(const spec_probe *p, const char *name)
{
	for (size_t i = 0; name && i < p->n_points; i++)
		if (p->points[i].stage && strcmp(p->points[i].stage, name) == 0)
			return span_stage_of(p, i);
	return 0;
}

/* 'wait' and 'workers' name stages of P, the wait's before the workers';
 * 'pool' says what runs the workers stage. */
static void check_stage_keys(loader *ld, spec_probe *p, const char *where)
{
	if (p->wait && !stage_number(p, p->wait))
		sl_report(ld, DIAG_ERROR, p->wait_loc, "name one of the span's stages",
			  "'wait' %s names no stage of its points: '%s'", where, p->wait);
	if (p->workers && !stage_number(p, p->workers))
		sl_report(ld, DIAG_ERROR, p->workers_loc, "name one of the span's stages",
			  "'workers' %s names no stage of its points: '%s'", where, p->workers);
	if (p->wait && !p->workers)
		sl_report(ld, DIAG_ERROR, p->wait_loc,
			  "add 'workers: STAGE', the stage the threads it waits for run",
			  "'wait' %s needs 'workers'", where);
	if (p->wait && p->workers && stage_number(p, p->wait) >= stage_number(p, p->workers) &&
	    stage_number(p, p->workers))
		sl_report(ld, DIAG_ERROR, p->wait_loc,
			  "the wait for a worker comes before the stage the worker runs",
			  "'wait' %s names a stage that does not come before '%s'", where, p->workers);
	if (p->pool_libuv && !p->workers)
		sl_report(ld, DIAG_ERROR, p->pool_loc,
			  "add 'workers: STAGE', the stage the pool's threads run",
			  "'pool' %s needs 'workers'", where);
}

size_t span_workers_stage(const spec_probe *p)
{
	return stage_number(p, p->workers);
}

/* Whether a point of probe MAP's 'points' has a 'label' key, valid or
 * not (an invalid one was reported already). */
static bool points_name_a_label(const node *map)
{
	const node *points = NULL;
	for (size_t k = 0; k + 1 < map->n_kids; k += 2)
		if (sl_node_is(map->kids[k], "points"))
			points = map->kids[k + 1];
	for (size_t i = 0; points && points->type == NODE_SEQ && i < points->n_kids; i++) {
		const node *pt = points->kids[i];
		for (size_t k = 0; pt->type == NODE_MAP && k + 1 < pt->n_kids; k += 2)
			if (sl_node_is(pt->kids[k], "label"))
				return true;
	}
	return false;
}

/* The rules between a span's keys: its points, a stage not named
 * "total" (whole spans are), 'labels' with a label, 'limit' within the
 * open-span table's bound. */
static void span_check(loader *ld, spec_probe *p, const node *map, const node *const *seen,
		       const char *label, const char *where)
{
	(void)label;
	for (size_t i = 0; i < p->n_points; i++)
		if (p->points[i].stage && strcmp(p->points[i].stage, "total") == 0)
			sl_report(ld, DIAG_ERROR, p->points[i].loc,
				  "reports call the whole span 'total'; name the stage after what "
				  "happens in it",
				  "point %zu %s: a stage cannot be named 'total'", i + 1, where);
	if (seen[P_LABELS] && !span_labelled(p) && !points_name_a_label(map))
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, seen[P_LABELS]),
			  "add 'label' to the point where the label is read, or remove 'labels'",
			  "'labels' %s, but no point reads a label", where);
	check_stage_keys(ld, p, where);
	if (!seen[P_OPEN])
		p->limit = SPEC_DEFAULT_OPEN_SPANS;
	if (!seen[P_LABELS])
		p->labels = SPEC_DEFAULT_SPAN_LABELS;
}

static const char *const span_instead[N_PROBE] = {
	[P_PROBE] = "a span names its probe points in 'points', each with the key that pairs "
		    "them: 'points: [{probe: \"uprobe:main:submit\", key: arg0}, {stage: run, "
		    "probe: \"uprobe:main:done\", key: arg0}]'",
	[P_FUNCTION] = "a span names its probe points in 'points' (see docs/spec.md#spans)",
};

static const spec_kind_rules span_spec_rules = {
	.kind = PROBE_SPAN,
	.needs = { .point_symbols = true },
	.keys = KEYS_EVERY | KEY(P_POINTS) | KEY(P_LABELS) | KEY(P_OPEN) | KEY(P_WAIT) | KEY(P_WORKERS) | KEY(P_POOL) | KEY(P_UNIT),
	.purpose = "times work from one probe point to others, across threads",
	.offer = "'kind: span' (work from one probe point to others, across threads)",
	.instead = span_instead,
	.required = P_POINTS,
	.required_hint = "add the points a span passes, e.g. 'points: [{probe: "
			 "\"uprobe:main:submit\", key: arg0}, {stage: run, probe: "
			 "\"uprobe:main:done\", key: arg0}]'; see docs/spec.md#spans",
	.default_limit = SPEC_DEFAULT_OPEN_SPANS,
	.check = span_check,
};

/* ---- program ---- */

static void span_describe(buf *b, const resolved_probe *rp)
{
	const spec_probe *sp = rp->sp;
	buf_printf(b, "span of %zu stage%s:", span_stages(sp), span_stages(sp) == 1 ? "" : "s");
	for (size_t i = 0; i < sp->n_points; i++)
		if (sp->points[i].stage && span_stage_of(sp, i) != (i ? span_stage_of(sp, i - 1) : 0)) {
			buf_putc(b, ' ');
			gen_put_comment(b, sp->points[i].stage);
		}
}

/* ---- run ---- */

/* The row of P for stage STAGE (P's n_stages: whole spans), label kind
 * LK and label text LABEL, added when missing; NULL out of memory. */
static report_span_row *row_of(report_probe *p, size_t stage, long lk, const char *label)
{
	const char *text = lk == SPAN_LABEL ? label : lk == SPAN_OTHER ? "other" : NULL;
	const char *name = stage < p->n_stages ? p->stages[stage] : NULL;
	for (size_t i = 0; i < p->n_span_rows; i++) {
		report_span_row *r = &p->span_rows[i];
		if ((r->stage == name || (r->stage && name && !strcmp(r->stage, name))) &&
		    r->other == (lk == SPAN_OTHER) &&
		    (r->label == text || (r->label && text && !strcmp(r->label, text))))
			return r;
	}
	report_span_row *rows = realloc(p->span_rows, (p->n_span_rows + 1) * sizeof *rows);
	if (!rows)
		return NULL;
	p->span_rows = rows;
	report_span_row *r = &rows[p->n_span_rows];
	memset(r, 0, sizeof *r);
	r->st.min_ns = UINT64_MAX;
	r->other = lk == SPAN_OTHER;
	p->n_span_rows++;	/* counted from here: report_free frees what it has */
	if ((name && !(r->stage = strdup(name))) || (text && !(r->label = strdup(text))))
		return NULL;
	return r;
}

/* Splits KEY "N,N[,N],LABEL" into its N_INTS leading integers and the
 * label after them.  Returns false when it is not that. */
static bool split_key(const char *key, long *ints, size_t n_ints, const char **label)
{
	const char *s = key;
	for (size_t i = 0; i < n_ints; i++) {
		char *end;
		ints[i] = strtol(s, &end, 10);
		if (end == s || *end != ',' || ints[i] < 0)
			return false;
		s = end + 1;
	}
	*label = s;
	return true;
}

/* With a string label (TEXTS: the window's @splt map, perhaps empty;
 * NULL for a probe without one): the string numbered *LABEL, its first
 * SPAN_LABEL_BYTES bytes
 * copied into OUT, *LABEL then pointing there.  A number the map does
 * not know (it always should) makes *LK other. */
static void string_label(const bpfout_map *texts, long *lk, const char **label,
			 char out[SPAN_LABEL_BYTES + 1])
{
	if (!texts || *lk != SPAN_LABEL)
		return;
	const bpfout_entry *e = bpfout_map_entry(texts, *label);
	if (!e || e->type != BPFOUT_VALUE_STRING || !e->str) {
		*lk = SPAN_OTHER;
		return;
	}
	snprintf(out, SPAN_LABEL_BYTES + 1, "%s", e->str);
	*label = out;
}

/* Adds map M's entries (buckets when BUCKETS, else a sum, min or max as
 * WHICH says) to P's rows, and whole spans' buckets to P's own stats;
 * TEXTS: string labels' texts (string_label). */
static int add_map(report_probe *p, const bpfout_map *m, const bpfout_map *texts, bool buckets,
		   char which)
{
	for (size_t i = 0; m && i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		long k[3];
		const char *label;
		char text[SPAN_LABEL_BYTES + 1];
		if (e->type != BPFOUT_VALUE_INT || e->value < 0 ||
		    !split_key(e->key, k, buckets ? 3 : 2, &label) || (size_t)k[0] > p->n_stages)
			continue;
		string_label(texts, &k[1], &label, text);
		report_span_row *r = row_of(p, (size_t)k[0], k[1], label);
		uint64_t v = (uint64_t)e->value;
		if (!r)
			return -1;
		if (buckets) {
			if (report_add_bucket(&r->st, (uint64_t)k[2], v) < 0 ||
			    ((size_t)k[0] == p->n_stages && report_add_bucket(&p->st, (uint64_t)k[2], v) < 0))
				return -1;
		} else if (which == 's') {
			r->st.sum_ns += v;
		} else if (which == 'm') {
			r->st.min_ns = v < r->st.min_ns ? v : r->st.min_ns;
		} else {
			r->st.max_ns = v > r->st.max_ns ? v : r->st.max_ns;
		}
	}
	return 0;
}

/* Where row R's stage stands among STAGES (a char *const * of
 * n_stages + 1 entries, NULL last): whole spans (stage NULL) last. */
static size_t stage_index(const report_span_row *r, char *const *stages)
{
	size_t i = 0;
	for (; stages[i]; i++)
		if (r->stage && !strcmp(stages[i], r->stage))
			return i;
	return i;
}

/* Rows by stage in order (whole spans last), then most spans first,
 * other last.  CTX: the stages, NULL-terminated. */
static int compare_rows(const void *a, const void *b, void *ctx)
{
	const report_span_row *x = a, *y = b;
	size_t sx = stage_index(x, ctx), sy = stage_index(y, ctx);
	if (sx != sy)
		return sx < sy ? -1 : 1;
	if (x->other != y->other)
		return x->other ? 1 : -1;
	if (x->st.count != y->st.count)
		return x->st.count > y->st.count ? -1 : 1;
	return x->label && y->label ? strcmp(x->label, y->label) : (x->label != NULL) - (y->label != NULL);
}

/* P's stats from its whole spans' rows: sum, min and max. */
static void finish_rows(report_probe *p)
{
	p->st.min_ns = UINT64_MAX;
	for (size_t i = 0; i < p->n_span_rows; i++) {
		report_span_row *r = &p->span_rows[i];
		report_finish_stats(&r->st);
		if (r->st.min_ns == UINT64_MAX)
			r->st.min_ns = 0;
		if (r->stage)
			continue;
		p->st.sum_ns += r->st.sum_ns;
		p->st.min_ns = r->st.min_ns < p->st.min_ns ? r->st.min_ns : p->st.min_ns;
		p->st.max_ns = r->st.max_ns > p->st.max_ns ? r->st.max_ns : p->st.max_ns;
	}
	report_finish_stats(&p->st);
	if (p->st.min_ns == UINT64_MAX)
		p->st.min_ns = 0;
	if (p->n_span_rows)	/* no rows: no array (qsort takes no NULL) */
		qsort_r(p->span_rows, p->n_span_rows, sizeof *p->span_rows, compare_rows, p->stages);
}

/* Workers by tid. */
static int compare_workers(const void *a, const void *b)
{
	const report_span_worker *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* P's stage names, from its spec. */
static int add_stages(report_probe *p, const spec_probe *sp)
{
	size_t n = span_stages(sp);
	if (!(p->stages = calloc(n + 1, sizeof *p->stages)))	/* NULL-terminated */
		return -1;
	for (size_t i = 0; i < sp->n_points; i++) {
		size_t s = span_stage_of(sp, i);
		if (s && !p->stages[s - 1]) {
			if (!(p->stages[s - 1] = strdup(sp->points[i].stage)))
				return -1;
			p->n_stages = s;
		}
	}
	return 0;
}

/* The threads of map @spw_NAME in W, by tid, with their names. */
static int add_workers(report_probe *p, const bpfout_map *m, const kind_fill_ctx *ctx)
{
	if (!m || !m->n_entries)
		return 0;
	if (!(p->workers = calloc(m->n_entries, sizeof *p->workers)))
		return -1;
	for (size_t i = 0; i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		if (e->n_ikeys != 1 || e->type != BPFOUT_VALUE_INT || e->value < 0)
			continue;
		report_span_worker *wk = &p->workers[p->n_workers++];
		wk->tid = (long)e->ikeys[0];
		wk->busy_ns = (uint64_t)e->value;
		wk->thread = report_thread_name(ctx->pids, wk->tid);
	}
	if (p->n_workers)
		qsort(p->workers, p->n_workers, sizeof *p->workers, compare_workers);
	return 0;
}

/* What name_labels looks for: the rows and slices whose label is an
 * address. */
typedef struct unnamed {
	report_probe *p;
	size_t left;		/* labels still unnamed */
} unnamed;

/* Whether *LABEL is an address, "0x..." (bpftrace prints one it could
 * not name: the process was gone by then). */
static bool is_address(const char *label)
{
	return label && strncmp(label, "0x", 2) == 0;
}

/* Gives *LABEL SYM's name when it is SYM's address.  Returns 1 when it
 * did, 0 when not, -1 out of memory. */
static int name_label(char **label, const symtab_symbol *sym)
{
	char *end;
	if (!is_address(*label) || strtoull(*label, &end, 16) != sym->addr || *end)
		return 0;
	char *name = strdup(sym->name);
	if (!name)
		return -1;
	free(*label);
	*label = name;
	return 1;
}

/* Names the rows and slices whose label is SYM's address. */
static int name_rows(void *ctx, const symtab_symbol *sym)
{
	unnamed *u = ctx;
	int rc = 0;
	for (size_t i = 0; i < u->p->n_span_rows && rc >= 0; i++)
		if ((rc = name_label(&u->p->span_rows[i].label, sym)) > 0)
			u->left--;
	for (size_t i = 0; i < u->p->n_events && rc >= 0; i++)
		if ((rc = name_label(&u->p->events[i].label, sym)) > 0)
			u->left--;
	return rc < 0 || !u->left ? -1 : 0;
}

/* With 'label: func', rows and slices labelled by an address bpftrace
 * could not name get the name of the function at that address in EXE (an
 * executable not loaded at another address: official node builds); the
 * others keep the address. */
static void name_labels(report_probe *p, const spec_probe *sp, const char *exe)
{
	unnamed u = { .p = p };
	char err[256];
	bool func = false;
	for (size_t i = 0; i < sp->n_points; i++)
		func |= sp->points[i].label == SPAN_LABEL_FUNC;
	for (size_t i = 0; i < p->n_span_rows; i++)
		u.left += is_address(p->span_rows[i].label);
	for (size_t i = 0; i < p->n_events; i++)
		u.left += is_address(p->events[i].label);
	if (func && exe && u.left)
		(void)symtab_foreach(exe, name_rows, &u, NULL, err, sizeof err);
}

/* With 'pool: libuv': the pools' size of the traced processes PIDS as
 * /proc has them now, and where it was read.  Returns 0, or -1 out of
 * memory. */
static int add_pool(report_probe *p, report_pids pids)
{
	const char *source = NULL;
	for (size_t i = 0; i < pids.n; i++) {
		libuv_pool_source src;
		int n = libuv_pool_size("/proc", (pid_t)pids.v[i], &src);
		if (n <= 0)
			continue;
		p->pool_size += (uint64_t)n;
		if (!source)
			source = libuv_pool_source_name(src);
		else if (strcmp(source, libuv_pool_source_name(src)) != 0)
			source = "several";
	}
	return source && !(p->pool_source = strdup(source)) ? -1 : 0;
}

/* P's slices (-o trace) labelled as its rows: each event's label, "LK
 * LABEL" as the program printed it (span_program.c), becomes the label's
 * text (TEXTS: string_label's), "other", or NULL (none).  Returns 0, or
 * -1 out of memory. */
static int label_slices(report_probe *p, const bpfout_map *texts)
{
	for (size_t i = 0; i < p->n_events; i++) {
		report_event *ev = &p->events[i];
		char *end, text[SPAN_LABEL_BYTES + 1];
		long lk = ev->label ? strtol(ev->label, &end, 10) : SPAN_NO_LABEL;
		const char *label = ev->label && *end == ' ' ? end + 1 : NULL;
		if (lk == SPAN_LABEL && label)
			string_label(texts, &lk, &label, text);
		char *copy = lk == SPAN_OTHER ? strdup("other")
			     : lk == SPAN_LABEL && label ? strdup(label) : NULL;
		if ((lk == SPAN_OTHER || (lk == SPAN_LABEL && label)) && !copy)
			return -1;
		free(ev->label);
		ev->label = copy;
	}
	return 0;
}

static int span_fill(report_probe *p, const resolved_probe *rp, const bpfout_window *w,
		     const kind_fill_ctx *ctx)
{
	static const bpfout_map no_texts;	/* a string label, no @splt printed */
	const char *n = rp->sp->name;
	if ((rp->sp->wait && !(p->span_wait = strdup(rp->sp->wait))) ||
	    (rp->sp->workers && !(p->span_work = strdup(rp->sp->workers))) ||
	    add_workers(p, report_window_map(w, SPAN_WORKER, n), ctx) < 0 ||
	    (rp->sp->pool_libuv && add_pool(p, ctx->pids) < 0))
		return -1;
	const bpfout_map *texts = NULL;
	if (span_string_labelled(rp->sp) &&
	    !(texts = report_window_map(w, SPAN_LABEL_TEXT, n)))
		texts = &no_texts;
	if (add_stages(p, rp->sp) < 0 ||
	    add_map(p, report_window_map(w, SPAN_BUCKETS, n), texts, true, 'b') < 0 ||
	    add_map(p, report_window_map(w, SPAN_SUM, n), texts, false, 's') < 0 ||
	    add_map(p, report_window_map(w, SPAN_MIN, n), texts, false, 'm') < 0 ||
	    add_map(p, report_window_map(w, SPAN_MAX, n), texts, false, 'x') < 0)
		return -1;
	if (ctx->run->slice_min_ns && w &&
	    (report_fill_slices(p, n, w, ctx) < 0 || label_slices(p, texts) < 0))
		return -1;
	name_labels(p, rp->sp, ctx->exe);
	finish_rows(p);
	uint64_t opened = report_window_scalar(w, SPAN_OPENED, n), gone = report_window_scalar(w, SPAN_GONE, n);
	p->spans_open = opened > gone ? opened - gone : 0;
	p->spans_evicted = report_window_scalar(w, SPAN_EVICTED, n);
	return 0;
}

/* ---- the row ---- */

static const char *const span_cleared[] = { SPAN_BUCKETS, SPAN_SUM, SPAN_MIN, SPAN_MAX,
					    SPAN_EVICTED, SPAN_WORKER, NULL };
static const char *const span_kept[] = { SPAN_OPENED, SPAN_GONE, SPAN_LABEL_TEXT, NULL };
static const wire_kind span_wire = { .cleared = span_cleared, .kept = span_kept };

const kind_ops kind_span_ops = {
	.kind = PROBE_SPAN,
	.shape = { .durations = true, .spans = true, .timeline = true, .article = "a",
		   .counts = "spans" },
	.wire = &span_wire,
	.spec = &span_spec_rules,
	.emit = span_emit,
	.describe = span_describe,
	.fill = span_fill,
	.text_row = span_text_row,
	.text_details = span_text_details,
	.json_fields = span_json,
	.prom = span_prom,
	.prom_thread_totals = false,
	.serve = span_serve,
	.serve_families = span_families,
};
