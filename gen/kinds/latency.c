/* latency — a function timed from entry to return on each thread, by a
 * uprobe/uretprobe pair (templates/latency.bt.in); from its entry to the
 * next phase's entry when the spec says timing: entry-only
 * (templates/phase.bt.in); or, for a derived phase (resolve.h), from the
 * gap between the phases around it.  Maps: wire.h's timed set, shared by
 * the program's latency probes: keyed by the probe's number
 * (gen_probe_number), then by tid (per_thread) or 0. */
#include "model/kind.h"

#include <stdlib.h>
#include <string.h>

#include "model/wire.h"
#include "program/generator_internal.h"
#include "render/render_internal.h"
#include "run/report_internal.h"
#include "serve/promstore_plan.h"
#include "spec/spec_internal.h"
#include "target/libuv.h"
#include "util/safe.h"

/* ---- gen ----------------------------------------------------------- */

/* The grouping key of probe SP's figures. */
static const char *group_key(const spec_probe *sp)
{
	return sp->per_thread ? "tid" : "0";
}

/* The statements that add $ns (bucket $b) to the shared timed maps
 * (wire.h) of the probe numbered NUMBER (a literal or a variable) with
 * KEY, indented by INDENT tabs. */
static void put_record(buf *b, int indent, const char *number, const char *key)
{
	static const char tabs[] = "\t\t\t\t\t\t";
	buf_printf(b, "%.*s@b[%s, %s, $b] = count();\n", indent, tabs, number, key);
	buf_printf(b, "%.*s@sum[%s, %s] = sum($ns);\n", indent, tabs, number, key);
	buf_printf(b, "%.*s@min[%s, %s] = min($ns);\n", indent, tabs, number, key);
	buf_printf(b, "%.*s@max[%s, %s] = max($ns);\n", indent, tabs, number, key);
}

/* The statements that time derived phases at probe number SELF's entry
 * (ENTRY true: the gaps it ends) or return (the gaps it starts), for
 * every derived probe of R.  They read the probe's $now, the moment its
 * call begins or ends, so a gap adjoins the calls around it exactly. */
static char *derived_hooks(const gen_parts *pt, const resolved *r, size_t self, bool entry)
{
	buf b = BUF_INIT;

	for (size_t i = 0; i < r->n_probes; i++) {
		const resolved_probe *d = &r->probes[i];
		const char *n = d->sp->name;
		char num[16];
		snprintf(num, sizeof num, "%u", gen_probe_number(i));
		for (size_t k = 0; d->active && d->derived && k < d->n_gaps; k++) {
			if (!entry && d->gap_after[k] == self) {
				buf_printf(&b, "\t@gap%zu_%s[tid] = $now;\n", k, n);
			} else if (entry && d->gap_before[k] == self) {
				buf_printf(&b, "\t$g = @gap%zu_%s[tid];\n"
					   "\tif ($g != 0 && $g >= @wstart) {\n"
					   "\t\t// derived: %s's gap %zu ends here\n"
					   "\t\t$ns = $now - $g;\n"
					   "\t\t%s(@gap%zu_%s[tid]);\n%s\n",
					   k, n, n, k, pt->delete_call, k, n, pt->bucket_nested);
				put_record(&b, 2, num, group_key(d->sp));
				gen_put_slice(&b, pt, n, "$g", "tid", 2);
				buf_puts(&b, "\t}\n");
			}
		}
	}
	return gen_chop(buf_take(&b));
}

/* A followed by B, lines of statements (owned, either may be NULL);
 * NULL when both are. */
static char *joined(char *a, char *b)
{
	if (!a || !*a) {
		free(a);
		return b;
	}
	if (!b || !*b) {
		free(b);
		return a;
	}
	char *out = NULL;
	if (asprintf(&out, "%s\n%s", a, b) < 0)
		out = NULL;
	free(a);
	free(b);
	return out;
}

/* A derived phase has no probe of its own: its maps, filled by the hooks
 * of the phases around it, and its gap timestamps. */
static void emit_derived(gen_parts *pt, const resolved_probe *rp)
{
	gen_add_shared_maps(pt, PROBE_LATENCY);
	gen_add_slice_maps(pt, rp->sp->name);
	for (size_t k = 0; k < rp->n_gaps; k++)
		buf_printf(&pt->finals, "\tclear(@gap%zu_%s);\n", k, rp->sp->name);
}

/* A libuv phase's entry and return (templates/latency.bt.in).  The phases
 * of one loop run one after another on its thread, so a thread has at
 * most one phase call of its own loop in flight: all the phase pairs of
 * a spec share one start, @pair_start[tid].  A phase entered while that
 * start is set is a nested loop's (node's execSync and spawnSync run a
 * loop of their own on the thread, inside a phase of its loop): it only
 * counts in @pair_nest, up at its entry and down at its return, and the
 * outer call goes on around it.  bpfspec started inside a nested loop
 * takes that loop's calls for the thread's until it ends; the outer
 * call's return then finds no start and is dropped, and from there on
 * the thread's own loop is timed.
 *
 * A start set before a held window start (@pair_since, set at its step
 * 1, once every probe is attached) may be a return's that was not
 * attached yet: it never ends, and would make every later call a nested
 * one.  Such a start is forgotten at the thread's next entry, its nest
 * count with it.  The probes delete from both maps, so a clear() there
 * would race them (bpftrace 0.17 aborts when a key vanishes under its
 * clear): only END clears them. */
static char *pair_loop_entry(const gen_parts *pt)
{
	char *out = NULL;
	if (asprintf(&out,
		     "\t$in_flight = @pair_start[tid];\n"
		     "\tif ($in_flight != 0) {\n"
		     "\t\tif ($in_flight >= @pair_since) {\n"
		     "\t\t\t@pair_nest[tid] = @pair_nest[tid] + 1;\n\t\t\treturn;\n\t\t}\n"
		     "\t\t%s(@pair_nest[tid]);\n\t}",
		     pt->delete_call) < 0)
		out = NULL;
	return out;
}

/* The return's side: a nested call's return counts down (the entry at
 * zero deleted, so the map holds only threads inside a nested loop). */
static char *pair_loop_return(const gen_parts *pt)
{
	char *out = NULL;
	if (asprintf(&out,
		     "\t$nest = @pair_nest[tid];\n"
		     "\tif ($nest > 0) {\n"
		     "\t\tif ($nest == 1) { %s(@pair_nest[tid]); }\n"
		     "\t\telse { @pair_nest[tid] = $nest - 1; }\n"
		     "\t\treturn;\n\t}",
		     pt->delete_call) < 0)
		out = NULL;
	return out;
}

/* Whether probe I is R's first pair on a libuv phase (the one whose
 * BEGIN types @pair_start, @pair_nest and @pair_since, whose held
 * window start sets @pair_since, and whose END clears them). */
static bool first_loop_pair(const resolved *r, size_t i)
{
	if (r->sp->entry_only)
		return false;
	for (size_t k = 0; k < r->n_probes; k++) {
		const resolved_probe *p = &r->probes[k];
		if (p->active && !p->derived && p->sp->kind == PROBE_LATENCY &&
		    libuv_is_phase_function(p->sp->function))
			return k == i;
	}
	return false;
}

/* An entry/return pair, with the derived phases' hooks of probe I. */
static int emit_pair(gen_parts *pt, const resolved *r, size_t i)
{
	static const char *const in_flight[] = { "start", NULL };
	const resolved_probe *rp = &r->probes[i];

	buf entry = BUF_INIT, ret = BUF_INIT;
	unsigned n_points = gen_put_probe_points(&entry, "uprobe", rp);
	if (!n_points || !gen_put_probe_points(&ret, "uretprobe", rp)) {
		buf_free(&entry);
		buf_free(&ret);
		return -1;
	}
	char *e = buf_take(&entry), *rt = buf_take(&ret);
	char *on_entry = joined(derived_hooks(pt, r, i, true), gen_feature_hooks(pt, r, i, true)),
	     *on_return = joined(gen_feature_hooks(pt, r, i, false), derived_hooks(pt, r, i, false));
	buf slice = BUF_INIT;
	gen_put_slice(&slice, pt, rp->sp->name, "$t0", "tid", 1);
	char *on_slice = gen_chop(buf_take(&slice));
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "name", rp->sp->name);
	gen_vars_set(&v, "function", rp->sp->function);
	gen_vars_set(&v, "entry", e);
	gen_vars_set(&v, "return", rt);
	gen_vars_set(&v, "entry_filter", pt->pid_filter);
	gen_vars_set(&v, "pid_test", pt->pid_test);
	char number[16];
	snprintf(number, sizeof number, "%u", gen_probe_number(i));
	gen_vars_set(&v, "number", number);
	gen_vars_set(&v, "key", group_key(rp->sp));
	gen_vars_set(&v, "bucket", pt->bucket);
	gen_vars_set(&v, "on_entry", on_entry);
	gen_vars_set(&v, "on_return", on_return);
	gen_vars_set(&v, "on_slice", on_slice);
	gen_vars_set(&v, "delete", pt->delete_call);
	bool loop = libuv_is_phase_function(rp->sp->function);
	char *start = NULL, *return_test = NULL, *loop_entry = loop ? pair_loop_entry(pt) : NULL,
	     *loop_return = loop ? pair_loop_return(pt) : NULL;
	if (asprintf(&start, loop ? "@pair_start" : "@start_%s", rp->sp->name) < 0)
		start = NULL;
	if (asprintf(&return_test, loop ? "(%s[tid] || @pair_nest[tid])" : "%s[tid]",
		     start ? start : "") < 0)
		return_test = NULL;
	gen_vars_set(&v, "start", start);
	gen_vars_set(&v, "return_test", return_test);
	gen_vars_set(&v, "loop_entry", loop_entry);
	gen_vars_set(&v, "loop_return", loop_return);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "latency.bt.in", &v);
	free(start);
	free(return_test);
	free(loop_entry);
	free(loop_return);
	if (first_loop_pair(r, i)) {
		buf_puts(&pt->restarts, "\t@pair_since = (int64)nsecs;\n");
		buf_puts(&pt->finals, "\tclear(@pair_start);\n\tclear(@pair_nest);\n"
				      "\tclear(@pair_since);\n");
	}
	free(e);
	free(rt);
	free(on_entry);
	free(on_return);
	free(on_slice);
	pt->attach += 2 * n_points;
	gen_add_shared_maps(pt, PROBE_LATENCY);
	if (!loop)
		gen_add_maps(pt, rp->sp->name, NULL, NULL, in_flight);
	gen_add_slice_maps(pt, rp->sp->name);
	return rc;
}

/* The 1-based number of active latency probe I among R's: 1 for the
 * first entry-only phase, the one that types and clears their helper
 * maps (derived phases are never active there). */
static unsigned phase_index(const resolved *r, size_t i)
{
	unsigned n = 0;
	for (size_t k = 0; k <= i; k++)
		n += r->probes[k].active && r->probes[k].sp->kind == PROBE_LATENCY;
	return n;
}

/* Entry-only phases learn each thread's loop from the first phase entry
 * they see on it (@phase_loop), and leave other loops' calls out: the
 * nested loop node's spawnSync and execSync run inside a phase.  Started
 * inside such a nested loop, they would take it for the thread's; its
 * uv_loop_close makes the thread's loop be learnt again, from the next
 * phase entry, which is then the outer loop's. */
static int emit_loop_close(gen_parts *pt, const resolved *r)
{
	buf at = BUF_INIT, body = BUF_INIT;
	unsigned n_points = 0;
	for (size_t k = 0; k <= r->n_also; k++) {
		const resolved *o = k ? r->also[k - 1] : r;
		if (o->loop_close_object) {
			buf one = BUF_INIT;
			gen_put_address_points(&one, "uprobe", o->loop_close_object,
					       &o->loop_close_addr, 1);
			gen_put_point_once(&at, one.data ? one.data : "", &n_points);
			buf_free(&one);
		}
	}
	buf_printf(&body, "\n// ---- a loop closed: the thread's own, learnt again "
		   "(" LIBUV_LOOP_CLOSE ")\n%s\n%s%s{\n"
		   "\tif (arg0 == @phase_loop[tid]) { %s(@phase_loop[tid]); }\n}\n",
		   at.data ? at.data : "", pt->pid_filter, *pt->pid_filter ? "\n" : "",
		   pt->delete_call);
	buf_free(&at);
	if (!body.data) {
		buf_free(&body);
		return -1;
	}
	buf_puts(&pt->out, body.data);
	buf_free(&body);
	pt->attach += n_points;
	return 0;
}

/* The statements of an entry-only phase's entry that add $ns to the
 * phase the thread entered before, number $prev (phase.bt.in's
 * ${record}): one set for all when R's phases share their grouping key,
 * one per phase when they do not; with slices on, each phase's slice. */
static void put_phase_record(buf *rec, const gen_parts *pt, const resolved *r)
{
	int per_thread = -1;	/* -1 none seen yet, 2 mixed */
	for (size_t k = 0; k < r->n_probes; k++) {
		const resolved_probe *o = &r->probes[k];
		if (!o->active || o->sp->kind != PROBE_LATENCY)
			continue;
		if (per_thread == -1)
			per_thread = o->sp->per_thread;
		else if (per_thread != (int)o->sp->per_thread)
			per_thread = 2;
	}
	if (per_thread == 0 || per_thread == 1)
		put_record(rec, 2, "$prev", per_thread ? "tid" : "0");
	for (size_t k = 0; k < r->n_probes; k++) {
		const resolved_probe *o = &r->probes[k];
		if (!o->active || o->sp->kind != PROBE_LATENCY || (per_thread != 2 && !pt->slice_min_ns))
			continue;
		char num[16];
		snprintf(num, sizeof num, "%u", gen_probe_number(k));
		buf_printf(rec, "\t\tif ($prev == %s) {\n", num);
		if (per_thread == 2)
			put_record(rec, 3, num, group_key(o->sp));
		gen_put_slice(rec, pt, o->sp->name, "$t", "tid", 3);
		buf_puts(rec, "\t\t}\n");
	}
}

/* Entry-only timing: the entry of phase I closes whichever phase its
 * thread entered last (templates/phase.bt.in), so every phase records
 * the others' times too. */
static int emit_phase(gen_parts *pt, const resolved *r, size_t i)
{
	const resolved_probe *rp = &r->probes[i];
	unsigned index = phase_index(r, i);

	buf entry = BUF_INIT, rec = BUF_INIT;
	unsigned n_points = gen_put_probe_points(&entry, "uprobe", rp);
	if (!n_points) {
		buf_free(&entry);
		return -1;
	}
	put_phase_record(&rec, pt, r);
	char *e = buf_take(&entry), *rec_text = gen_chop(buf_take(&rec)), idx[16];
	snprintf(idx, sizeof idx, "%u", gen_probe_number(i));
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "name", rp->sp->name);
	gen_vars_set(&v, "function", rp->sp->function);
	gen_vars_set(&v, "entry", e);
	gen_vars_set(&v, "entry_filter", pt->pid_filter);
	gen_vars_set(&v, "index", idx);
	gen_vars_set(&v, "bucket", pt->bucket_nested);
	gen_vars_set(&v, "record", rec_text);
	char *on_entry = gen_feature_hooks(pt, r, i, true);
	gen_vars_set(&v, "on_entry", on_entry);
	char *loop_test = NULL, *nested = NULL;
	if (libuv_is_phase_function(rp->sp->function) &&
	    (!(nested = gen_feature_nested_loop_entry(r)) ||
	     asprintf(&loop_test, "\tif (@phase_loop[tid] == 0) { @phase_loop[tid] = arg0; }\n"
				  "\tif (arg0 != @phase_loop[tid]) { %sreturn; }",
		      nested) < 0))
		loop_test = NULL;
	free(nested);
	gen_vars_set(&v, "loop_test", loop_test);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "phase.bt.in", &v);
	free(e);
	free(rec_text);
	free(on_entry);
	free(loop_test);
	pt->attach += n_points;
	gen_add_shared_maps(pt, PROBE_LATENCY);
	gen_add_slice_maps(pt, rp->sp->name);
	if (index == 1) {
		/* The thread's loop learnt while attaching stays (a nested
		 * loop's, learnt first, is forgotten when it closes). */
		buf_puts(&pt->helpers, "\tclear(@phase_cur);\n\tclear(@phase_t);\n");
		buf_puts(&pt->finals, "\tclear(@phase_loop);\n");
	}
	if (index == 1 && libuv_is_phase_function(rp->sp->function) && r->loop_close_object)
		rc |= emit_loop_close(pt, r);
	return rc;
}

static int latency_emit(gen_parts *pt, const resolved *r, size_t i)
{
	const resolved_probe *rp = &r->probes[i];

	if (rp->derived) {
		emit_derived(pt, rp);
		return 0;
	}
	return r->sp->entry_only ? emit_phase(pt, r, i) : emit_pair(pt, r, i);
}

/* A map read above the probe that fills it needs a type first: bpftrace
 * 0.23 would type the variable read from it before the map has one and
 * then refuse the int64 it gets.  An entry for tid 0 (no user thread)
 * types it; it is never a gap ($g != 0) and END clears it.  So for a
 * derived phase's gaps (read at the next phase's entry) and for
 * entry-only phases' @phase_cur and @phase_t (read in the first phase's
 * probe: an untyped @phase_cur makes 0.23 take @b for a map without
 * keys), and
 * for the libuv pairs' @pair_start, @pair_nest and @pair_since (a feature types the
 * maps its hooks read in its own begin, model/feature.h). */
static void latency_begin(gen_parts *pt, const resolved *r, size_t i)
{
	const resolved_probe *rp = &r->probes[i];

	for (size_t k = 0; rp->derived && k < rp->n_gaps; k++)
		buf_printf(&pt->types, "\t@gap%zu_%s[0] = (int64)0;\n", k, rp->sp->name);
	if (!rp->derived && r->sp->entry_only && phase_index(r, i) == 1)
		buf_puts(&pt->types, "\t@phase_cur[0] = (int64)0;\n\t@phase_t[0] = (int64)0;\n"
				     "\t@phase_loop[0] = (uint64)0;\n");
	if (first_loop_pair(r, i))
		buf_puts(&pt->types, "\t@pair_start[0] = (int64)0;\n\t@pair_nest[0] = (int64)0;\n"
				     "\t@pair_since = (int64)0;\n");
}

static void latency_describe(buf *b, const resolved_probe *rp)
{
	gen_put_comment(b, rp->sp->function);
	if (rp->derived) {
		buf_puts(b, " (not in the target) ");
		gen_put_comment(b, rp->derived);
		return;
	}
	gen_put_where(b, rp);
}

/* ---- report -------------------------------------------------------- */

static int latency_fill(report_probe *p, const resolved_probe *rp, const bpfout_window *w,
			const kind_fill_ctx *ctx)
{
	if (report_fill_timed(p, rp->sp->name, w, ctx->pids) < 0)
		return -1;
	return ctx->run->slice_min_ns && w ? report_fill_slices(p, rp->sp->name, w, ctx) : 0;
}

/* ---- render -------------------------------------------------------- */

static void latency_text_row(FILE *out, const report_probe *p, const report *rep)
{
	text_stats_row(out, &p->st, p, rep->duration_ns);
}

/* The histogram and, with several threads, the per-thread table. */
static void latency_text_details(FILE *out, const report_probe *p, const report *rep)
{
	if (p->st.count == 0 && p->n_groups == 0)
		return;	/* nothing seen */
	text_section(out, p);
	if (p->derived) {
		safe_fputs(p->derived, out);
	} else {
		safe_fputs(p->function, out);
		fputs(" in ", out);
		safe_fputs(p->object, out);
	}
	fputc('\n', out);
	text_histogram(out, &p->st);
	if (p->n_groups < 2)
		return;
	fprintf(out, "\n  %-8s %-*s %10s %11s %7s %10s %10s %10s %10s %10s\n", "TID",
		TEXT_THREAD_COLS, "THREAD", "COUNT", "TOTAL", "%WIN", "MEAN", "P50~", "P90~", "P99~",
		"MAX");
	for (size_t g = 0; g < p->n_groups; g++) {
		const report_group *gr = &p->groups[g];
		fprintf(out, "  %-8ld ", gr->tid);
		text_thread_cell(out, gr, report_pids_of(rep));
		fputc(' ', out);
		text_stats_row(out, &gr->st, p, rep->duration_ns);
	}
}

static void latency_json(json_t *jp, const report_probe *p, const report *rep)
{
	json_t *groups = json_array();
	rjson_put_stats(jp, &p->st);
	rjson_put_features(jp, p, rep);
	for (size_t g = 0; g < p->n_groups; g++) {
		json_t *jg = rjson_group(&p->groups[g], report_pids_of(rep));
		rjson_put_stats(jg, &p->groups[g].st);
		rjson_put_group_features(jg, p, &p->groups[g]);
		json_array_append_new(groups, jg);
	}
	json_object_set_new(jp, "groups", groups);
}

static void latency_prom(FILE *out, const report *rep)
{
	const report_probe *p;
	prom_family latency = { "bpfspec_latency_seconds", "histogram",
				"Latency of the probed function in the window, all threads together.",
				false };

	for (size_t i = 0; (p = prom_next(rep, PROBE_LATENCY, &i));) {
		promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name },
					{ "function", p->function } };
		prom_histogram(out, &latency, ls, 3, &p->st);
	}
}

/* ---- spec ---- */

static const spec_kind_rules latency_spec_rules = {
	.kind = PROBE_LATENCY,
	.needs = { .function = true },
	.keys = KEYS_EVERY | KEY(P_FUNCTION) | KEY(P_OBJECT) | KEY(P_OPTIONAL) |
		KEY(P_MISSING_REASON) | KEY(P_UNIT) | KEY(P_PER_THREAD) | KEY(P_DERIVED) |
		KEY(P_ATTRIBUTE),
	.purpose = "times its 'function'",
	.offer = "'kind: latency' (time a function)",
	.required = P_FUNCTION,
	.required_hint = "add the function to time, e.g. 'function: uv__run_timers'",
};

/* ---- serve --------------------------------------------------------- */

static const ps_family_def latency_family = {
	"bpfspec_latency_seconds",
	"Duration of the calls of a latency probe's function (libuv phase specs: of the phase), "
	"by target and thread role.", PS_HISTOGRAM, true
};
static const ps_family_def *const latency_families[] = { &latency_family, NULL };

static int latency_serve_group(ps_add *a, const report_probe *p, const report_group *g,
			       const char *labels)
{
	(void)p;
	return ps_plan(a, &latency_family, labels, NULL, NULL, NULL, NULL, 0, &g->st);
}

static int latency_serve(ps_add *a, const report_probe *p)
{
	return ps_plan_groups(a, p, latency_serve_group);
}

static const wire_kind latency_wire = { .cleared = wire_timed_maps, .kept = wire_no_maps,
					.shared = true };

const kind_ops kind_latency_ops = {
	.kind = PROBE_LATENCY,
	.shape = { .durations = true, .timeline = true, .article = "a", .counts = "calls" },
	.wire = &latency_wire,
	.spec = &latency_spec_rules,
	.begin = latency_begin,
	.emit = latency_emit,
	.describe = latency_describe,
	.fill = latency_fill,
	.text_row = latency_text_row,
	.text_details = latency_text_details,
	.json_fields = latency_json,
	.prom = latency_prom,
	.prom_thread_totals = true,
	.serve = latency_serve,
	.serve_families = latency_families,
};
