/* generator — see generator.h. */
#include "program/generator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/feature.h"
#include "model/kind.h"
#include "model/wire.h"
#include "program/generator_internal.h"
#include "program/generator_maps_rule.h"
#include "spec/spec.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/systab.h"
#include "util/tmpl.h"
#include "util/version.h"

const char *gen_window_start_read(point_type point)
{
	switch (point) {
	case POINT_TRACEPOINT:
	case POINT_KPROBE:
	case POINT_KRETPROBE:
	case POINT_SOFTWARE:
		return "kptr(@wstart)";
	case POINT_UPROBE:
	case POINT_URETPROBE:
	case POINT_USDT:
	case POINT_PROFILE:
	case POINT_INTERVAL:
		break;
	}
	return "@wstart";
}

/* A path bpftrace 0.17 can take in an attach point without quoting. */
static int path_is_plain(const char *p)
{
	if (*p != '/')
		return 0;
	for (; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '/' || c == '.' || c == '_' ||
		      c == '-' || c == '+'))
			return 0;
	}
	return 1;
}

/* Appends plain path P (path_is_plain) as an attach point takes it:
 * bpftrace 0.17's lexer stops a bare path at '+' (libstdc++.so.6), so a
 * path with one is quoted. */
static void put_attach_path(buf *b, const char *p)
{
	buf_printf(b, strchr(p, '+') ? "\"%s\"" : "%s", p);
}

void gen_put_address_points(buf *b, const char *type, const char *path,
			    const uint64_t *addrs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		buf_printf(b, "%s%s:", k ? ",\n" : "", type);
		put_attach_path(b, path);
		buf_printf(b, ":0x%llx", (unsigned long long)addrs[k]);
	}
}

void gen_put_comment(buf *b, const char *s)
{
	for (; s && *s; s++)
		buf_putc(b, (*s >= 0x20 && *s < 0x7f) ? *s : '?');
}

static const char *vars_lookup(const char *name, void *ctx)
{
	const gen_vars *v = ctx;
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->names[i], name) == 0)
			return v->values[i];
	return NULL;
}

void gen_vars_set(gen_vars *v, const char *name, const char *value)
{
	if (v->n == sizeof v->names / sizeof *v->names) {
		v->overflow = true;
		return;
	}
	v->names[v->n] = name;
	v->values[v->n] = value ? value : "";
	v->n++;
}

int gen_render(buf *out, const char *name, gen_vars *v)
{
	char err[256];
	const char *text = tmpl_get(name);

	if (!text) {
		diag_error("the build is incomplete; rebuild bpfspec",
			   "template '%s' is missing", name);
		return -1;
	}
	if (v->overflow) {
		diag_error("this is a bug in bpfspec; please report it",
			   "template '%s' was given more variables than gen_vars holds", name);
		return -1;
	}
	char *r = tmpl_render(name, text, vars_lookup, v, err, sizeof err);
	if (!r) {
		diag_error("this is a bug in bpfspec; please report it", "%s", err);
		return -1;
	}
	buf_puts(out, r);
	free(r);
	return 0;
}

/* Whether the bpftrace O names is MAJOR.MINOR or later (0.0, unknown,
 * is taken as the oldest supported, 0.17). */
static bool bpftrace_at_least(const gen_options *o, int major, int minor)
{
	return o->bpftrace_major > major ||
	       (o->bpftrace_major == major && o->bpftrace_minor >= minor);
}


char *gen_chop(char *s)
{
	if (s && *s)
		s[strlen(s) - 1] = '\0';
	return s;
}

bool gen_plain_object(const char *probe, const char *p)
{
	if (path_is_plain(p))
		return true;
	diag_error("bpftrace cannot name this file in a probe; copy or link it to a "
		   "plain path (letters, digits, / . _ - +)",
		   "probe '%s': object path '%s' has characters bpftrace cannot take", probe, p);
	return false;
}

void gen_put_where(buf *b, const resolved_probe *rp)
{
	buf_puts(b, " in ");
	gen_put_comment(b, rp->object);
	for (size_t k = 0; k < rp->n_addrs; k++)
		buf_printf(b, " 0x%llx", (unsigned long long)rp->addrs[k]);
	if (rp->n_same)
		buf_printf(b, ", and in %zu more executable%s", rp->n_same,
			   rp->n_same == 1 ? "" : "s");
}

void gen_put_syscalls(buf *b, const spec_probe *sp)
{
	if (sp->all_syscalls || sp->n_syscalls == 0) {
		buf_puts(b, "every syscall");
		return;
	}
	for (size_t i = 0; i < sp->n_syscalls; i++) {
		const char *n = systab_syscall_name(sp->syscalls[i]);
		buf_printf(b, "%s%s", i ? ", " : "", n ? n : "?");
	}
}

void gen_add_maps(gen_parts *pt, const char *name, const char *const *print,
		  const char *const *clear_only, const char *const *in_flight)
{
	const char *sep = name ? "_" : "";
	if (!name)
		name = "";
	for (; print && *print; print++) {
		buf_printf(&pt->prints, "\tprint(@%s%s%s);\n", *print, sep, name);
		buf_printf(&pt->clears, "\tclear(@%s%s%s);\n", *print, sep, name);
	}
	for (; clear_only && *clear_only; clear_only++)
		buf_printf(&pt->clears, "\tclear(@%s%s%s);\n", *clear_only, sep, name);
	/* The probes delete from these as calls end: a clear() while they
	 * run can meet a key they just deleted, which bpftrace 0.17 does not
	 * survive ("Could not clear map"), so only END clears them; stale
	 * entries from before the window are told apart by @wstart. */
	for (; in_flight && *in_flight; in_flight++)
		buf_printf(&pt->finals, "\tclear(@%s%s%s);\n", *in_flight, sep, name);
}

void gen_add_late_maps(gen_parts *pt, const char *name, const char *const *print)
{
	for (; print && *print; print++) {
		buf_printf(&pt->late_prints, "\tprint(@%s_%s);\n", *print, name);
		buf_printf(&pt->late_clears, "\tclear(@%s_%s);\n", *print, name);
	}
}

void gen_add_shared_maps(gen_parts *pt, probe_kind kind)
{
	const wire_kind *w = wire_of(kind);
	if (!w->shared || pt->shared_added[kind])
		return;
	pt->shared_added[kind] = true;
	gen_add_maps(pt, NULL, w->cleared, NULL, NULL);
}

/* The "bpfspec:probes" line BEGIN prints when a probe of R keeps its
 * figures in shared maps (wire.h): every probe's name, in R's order, so
 * that number gen_probe_number(I) is probe I.  "" when none does. */
static char *probes_line(const resolved *r)
{
	bool shared = false;
	for (size_t i = 0; i < r->n_probes; i++)
		shared |= r->probes[i].active && wire_of(r->probes[i].sp->kind)->shared;
	if (!shared)
		return strdup("");
	buf b = BUF_INIT;
	buf_puts(&b, "\t// latency probes share @b, @sum, @min and @max, whose first key\n"
		     "\t// is the probe's number in this list (from 1)\n"
		     "\tprintf(\"bpfspec:probes");
	for (size_t i = 0; i < r->n_probes; i++)
		buf_printf(&b, " %s", r->probes[i].sp->name);
	buf_puts(&b, "\\n\");");
	return buf_take(&b);
}

/* "args->id == A || ..." for SP's listed syscalls; on EXIT, rt_sigreturn
 * is also -1 (report.c says why). */
static void put_syscall_ids(buf *b, const spec_probe *sp, bool exit)
{
	int sigreturn = systab_syscall_nr("rt_sigreturn");
	for (size_t i = 0; i < sp->n_syscalls; i++) {
		buf_printf(b, "%sargs->id == %d", i ? " || " : "", sp->syscalls[i]);
		if (exit && sp->syscalls[i] == sigreturn)
			buf_puts(b, " || args->id == -1");
	}
}

void gen_syscall_filter(const gen_parts *pt, const spec_probe *sp, buf *pred, buf *exit_test,
			buf *what)
{
	bool ids = !sp->all_syscalls && sp->n_syscalls > 0;

	gen_put_syscalls(what, sp);
	if (ids) {
		buf_putc(exit_test, '(');
		put_syscall_ids(exit_test, sp, true);
		buf_puts(exit_test, ") && ");
	}
	if (!ids) {
		buf_puts(pred, pt->pid_filter);
		return;
	}
	buf_printf(pred, "/%s(", pt->pid_test);
	put_syscall_ids(pred, sp, false);
	buf_puts(pred, ")/");
}

int gen_pid_filter(gen_parts *pt, const pid_t *pids, size_t n)
{
	buf e = BUF_INIT;

	pt->pid_filter[0] = pt->pid_test[0] = '\0';
	if (n > GEN_MAX_PIDS) {
		diag_error("run one bpfspec per group of processes",
			   "%zu processes to trace: one program traces at most %d", n, GEN_MAX_PIDS);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (pids[i] <= 0) {
			buf_free(&e);
			diag_error("this is a bug in bpfspec; please report it", "invalid pid %d",
				   (int)pids[i]);
			return -1;
		}
		buf_printf(&e, "%spid == %d", i ? " || " : "", (int)pids[i]);
	}
	if (n == 0)
		return 0;
	if (!e.data) {
		diag_error(NULL, "out of memory");
		return -1;
	}
	snprintf(pt->pid_filter, sizeof pt->pid_filter, "/%s/", e.data);
	snprintf(pt->pid_test, sizeof pt->pid_test, n > 1 ? "(%s) && " : "%s && ", e.data);
	buf_free(&e);
	return 0;
}

int gen_pid_map_filter(gen_parts *pt, const pid_t *pids, size_t n)
{
	if (gen_pid_filter(pt, pids, n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		buf_printf(&pt->types, "\t@pids[(uint64)%d] = 1;\n", (int)pids[i]);
	buf_puts(&pt->finals, "\tclear(@pids);\n");
	snprintf(pt->pid_filter, sizeof pt->pid_filter, "/@pids[(uint64)pid]/");
	snprintf(pt->pid_test, sizeof pt->pid_test, "@pids[(uint64)pid] && ");
	return 0;
}

/* Whether the attach points in B (",\n"-separated) hold POINT already. */
static bool has_point_text(const buf *b, const char *point)
{
	size_t len = strlen(point);
	for (const char *p = b->len ? b->data : NULL; p; p = strstr(p, ",\n")) {
		if (*p == ',')
			p += 2;
		if (strncmp(p, point, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
	}
	return false;
}

void gen_put_point_once(buf *b, const char *point, unsigned *n)
{
	if (has_point_text(b, point))
		return;
	buf_printf(b, "%s%s", *n ? ",\n" : "", point);
	(*n)++;
}

/* TYPE:PATH:0xADDR of each address of P into B, once each. */
static void put_addresses_once(buf *b, const char *type, const resolved_probe *p, unsigned *n)
{
	for (size_t k = 0; k < p->n_addrs; k++) {
		buf one = BUF_INIT;
		buf_printf(&one, "%s:", type);
		put_attach_path(&one, p->object);
		buf_printf(&one, ":0x%llx", (unsigned long long)p->addrs[k]);
		if (one.data)
			gen_put_point_once(b, one.data, n);
		else
			b->failed = true;
		buf_free(&one);
	}
}

unsigned gen_put_probe_points(buf *b, const char *type, const resolved_probe *rp)
{
	unsigned n = 0;
	for (size_t s = 0; s <= rp->n_same; s++) {
		const resolved_probe *p = s ? rp->same[s - 1] : rp;
		if (!gen_plain_object(rp->sp->name, p->object))
			return 0;
		put_addresses_once(b, type, p, &n);
	}
	return n;
}

/* The spec's point P->sp->probe, TYPE:OBJECT:REST, into B once, OBJECT
 * main standing for P's executable. */
static void put_named_point(buf *b, const resolved_probe *p, unsigned *n)
{
	const char *probe = p->sp->probe, *obj = strchr(probe, ':') + 1, *rest = strchr(obj, ':');
	char path[1100];
	snprintf(path, sizeof path, "%.*s", (int)(rest - obj), obj);
	buf one = BUF_INIT;
	buf_printf(&one, "%.*s", (int)(obj - probe), probe);
	put_attach_path(&one, p->object ? p->object : path);
	buf_puts(&one, rest);
	if (one.data)
		gen_put_point_once(b, one.data, n);
	else
		b->failed = true;
	buf_free(&one);
}

/* The spec's point as written (it passed the grammar of its form), or, on
 * OBJECT main, the target's executable: uprobes by address (as latency
 * probes), usdt by path; the same in the executables joined to the
 * target's (resolved_probe.same). */
unsigned gen_point_attach(const resolved_probe *rp, buf *at)
{
	const spec_probe *sp = rp->sp;

	if (rp->object && rp->n_addrs)
		return gen_put_probe_points(at, sp->point == POINT_URETPROBE ? "uretprobe" : "uprobe",
					    rp);
	if (sp->point != POINT_UPROBE && sp->point != POINT_URETPROBE && sp->point != POINT_USDT) {
		buf_puts(at, sp->probe);
		return 1;
	}
	unsigned n = 0;
	for (size_t s = 0; s <= rp->n_same; s++) {
		const resolved_probe *p = s ? rp->same[s - 1] : rp;
		if (p->object && !gen_plain_object(sp->name, p->object))
			return 0;
		put_named_point(at, p, &n);
	}
	return n;
}

void gen_put_slice(buf *b, const gen_parts *pt, const char *name, const char *start,
		   const char *tid, int indent)
{
	gen_put_slice_with(b, pt, name, start, tid, NULL, NULL, indent);
}

void gen_put_slice_with(buf *b, const gen_parts *pt, const char *name, const char *start,
			const char *tid, const char *more_format, const char *more, int indent)
{
	if (!pt->slice_min_ns)
		return;
	buf_printf(b, "%.*sif ($ns >= %llu) {\n", indent, "\t\t\t\t\t\t",
		   (unsigned long long)pt->slice_min_ns);
	buf_printf(b, "%.*s\tif (@evn_%s < %d) {\n", indent, "\t\t\t\t\t\t", name, GEN_SLICE_LIMIT);
	buf_printf(b, "%.*s\t\t@evn_%s = @evn_%s + 1;\n", indent, "\t\t\t\t\t\t", name, name);
	buf_printf(b, "%.*s\t\tprintf(\"bpfspec:ev %s %%lld %%d %%lld%s\\n\", %s, %s, $ns%s%s);\n",
		   indent, "\t\t\t\t\t\t", name, more_format ? more_format : "", start, tid,
		   more ? ", " : "", more ? more : "");
	buf_printf(b, "%.*s\t} else {\n%.*s\t\t@%s_%s = count();\n%.*s\t}\n%.*s}\n", indent,
		   "\t\t\t\t\t\t", indent, "\t\t\t\t\t\t", WIRE_DROPPED, name, indent, "\t\t\t\t\t\t",
		   indent, "\t\t\t\t\t\t");
}

void gen_add_slice_maps(gen_parts *pt, const char *name)
{
	static const char *const printed[] = { WIRE_DROPPED, NULL }, *const counter[] = { "evn", NULL };
	if (pt->slice_min_ns)
		gen_add_maps(pt, name, printed, counter, NULL);
}

/* Renders bucket.bt.in once; its text is inserted into every probe. */
static char *render_bucket(void)
{
	gen_vars none = { .n = 0 };
	buf b = BUF_INIT;
	if (gen_render(&b, "bucket.bt.in", &none) < 0) {
		buf_free(&b);
		return NULL;
	}
	while (b.len && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	return buf_take(&b);
}

/* TEXT with one more tab before each line (owned), or NULL when out of
 * memory. */
static char *nested(const char *text)
{
	buf b = BUF_INIT;
	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");
		buf_printf(&b, "\t%.*s", (int)len, l);
		l += len;
		if (*l == '\n')
			buf_putc(&b, *l++);
	}
	return buf_take(&b);
}

/* The header's "//   name  what" line for one probe. */
static void describe_probe(buf *b, const resolved_probe *rp)
{
	buf_printf(b, "//   %-12s ", rp->sp->name);
	if (!rp->active) {
		buf_puts(b, "skipped: ");
		gen_put_comment(b, rp->reason);
		return;
	}
	kind_ops_of(rp->sp->kind)->describe(b, rp);
}

/* The traced processes of O into *N: its pids, or its pid alone (none
 * when 0). */
static const pid_t *gen_pids(const gen_options *o, size_t *n)
{
	if (o->n_pids > 0) {
		*n = o->n_pids;
		return o->pids;
	}
	*n = o->pid > 0 ? 1 : 0;
	return &o->pid;
}

/* The header comment: version, spec, target and one line per probe. */
static int put_header(gen_parts *pt, const resolved *r, const gen_options *o)
{
	buf syms = BUF_INIT, tgt = BUF_INIT, path = BUF_INIT;

	size_t n;
	const pid_t *pids = gen_pids(o, &n);
	for (size_t i = 0; i < n; i++)
		buf_printf(&tgt, "%s %d", i == 0 ? (n > 1 ? "pids" : "pid") : ",", (int)pids[i]);
	buf_puts(&tgt, n ? ", " : "any process running ");
	gen_put_comment(&tgt, r->tg->exe);
	for (size_t k = 0; k < r->n_also; k++) {
		buf_puts(&tgt, k + 1 < r->n_also ? ", " : " and ");
		gen_put_comment(&tgt, r->also[k]->tg->exe);
	}
	for (size_t i = 0; i < r->n_probes; i++) {
		describe_probe(&syms, &r->probes[i]);
		if (i + 1 < r->n_probes)
			buf_putc(&syms, '\n');
	}
	gen_put_comment(&path, r->sp->path);
	char *spec_path = buf_take(&path), *target_text = buf_take(&tgt), *sym_text = buf_take(&syms);
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "version", BPFSPEC_VERSION);
	gen_vars_set(&v, "spec_name", r->sp->name);
	gen_vars_set(&v, "spec_path", spec_path);
	gen_vars_set(&v, "target", target_text);
	gen_vars_set(&v, "symbols", sym_text);
	int rc = gen_render(&pt->out, "header.bt.in", &v);
	free(spec_path);
	free(target_text);
	free(sym_text);
	buf_putc(&pt->out, '\n');
	return rc;
}

/* Whether the program holds each interval's flush (-i with a trigger,
 * not cumulative): the flush moves @wstart out of reach, prints and
 * clears, and says "bpfspec:held"; bpfspec then resumes the run
 * (RUNNER_INTERVAL_RESUME), which puts @wstart back.  bpftrace prints
 * and clears a map at a time, in its userspace, while the probes run: a
 * call that ended between two clears would otherwise keep its total in
 * one map and lose its parts with the other (seen under load, 54 ms of
 * a phase without its split).  A call that ends during the hold (a
 * millisecond, tens under load) is in no interval. */
static bool held_intervals(const gen_options *o)
{
	return o->trigger_path && !o->cumulative;
}

/* BEGIN: what starts a window (kept in *START_TEXT for the window
 * probes: utilization probes move their start) and, in BEGIN only, the
 * maps' typings and @wstart, the window's start (the window-start probe
 * moves it; entries of maps END alone clears that are older were left
 * over from attaching: they are skipped).  *BEGIN_TEXT: all of BEGIN's
 * statements, which the window-start probe repeats. */
static int put_begin(gen_parts *pt, const resolved *r, const gen_options *o, char **start_text,
		     char **begin_text)
{
	for (size_t i = 0; i < r->n_probes; i++) {
		const kind_ops *ops = kind_ops_of(r->probes[i].sp->kind);
		if (r->probes[i].active && ops->begin)
			ops->begin(pt, r, i);
	}
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->begin)
			(*f)->begin(pt, r);
	/* Held intervals (put_window) keep the run's start while one is
	 * flushed. */
	if (held_intervals(o)) {
		buf_puts(&pt->types, "\t@wkeep = (int64)0;\n");
		buf_puts(&pt->finals, "\tclear(@wkeep);\n");
	}
	char *types = buf_take(&pt->types);
	*start_text = gen_chop(buf_take(&pt->starts));
	if (!*start_text || !types ||
	    asprintf(begin_text, "%s%s%s\t@wstart = (int64)nsecs;", *start_text,
		     **start_text ? "\n" : "", types) < 0) {
		/* Without @wstart set, no call would ever count. */
		*begin_text = NULL;
		free(types);
		diag_error(NULL, "out of memory");
		return -1;
	}
	free(types);
	buf_puts(&pt->finals, "\tclear(@wstart);\n");
	char *probes = probes_line(r);
	if (!probes) {
		diag_error(NULL, "out of memory");
		return -1;
	}
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "probes", probes);
	gen_vars_set(&v, "start_stmts", *begin_text);
	pt->attach++;
	int rc = gen_render(&pt->out, "begin.bt.in", &v);
	free(probes);
	return rc;
}

/* Further ahead than window_start.bt.in's held start (1e18), so that
 * utilization.bt.in tells the two apart; computed in uint64, then cast
 * (0.23 and 0.27 warn about the other forms). */
#define FREEZE "@wstart = (int64)(nsecs + 2000000000000000000);"
#define HOLD "@wkeep = @wstart; @wstart = (int64)(nsecs + 1000000000000000000);"

/* What the window probes say, one statement per line (owned). */
typedef struct window_texts {
	char *prints, *clears;		/* result maps */
	char *late_prints, *late_clears;	/* gen_add_late_maps' */
	char *all_prints, *all_clears;	/* both: END, the held start */
	char *helpers;			/* helper maps' clears */
} window_texts;

/* A then B, a newline between when both have statements. */
static char *join_lines(const char *a, const char *b)
{
	char *out = NULL;
	if (asprintf(&out, "%s%s%s", a ? a : "", a && *a && b && *b ? "\n" : "", b ? b : "") < 0)
		return NULL;
	return out;
}

/* Takes PT's print and clear statements into T.  Returns 0, or -1 out
 * of memory (said). */
static int take_window_texts(gen_parts *pt, window_texts *t)
{
	t->prints = gen_chop(buf_take(&pt->prints));
	t->clears = gen_chop(buf_take(&pt->clears));
	t->late_prints = gen_chop(buf_take(&pt->late_prints));
	t->late_clears = gen_chop(buf_take(&pt->late_clears));
	t->helpers = gen_chop(buf_take(&pt->helpers));
	t->all_prints = join_lines(t->prints, t->late_prints);
	t->all_clears = join_lines(t->clears, t->late_clears);
	if (t->prints && t->clears && t->late_prints && t->late_clears && t->helpers &&
	    t->all_prints && t->all_clears)
		return 0;
	diag_error(NULL, "out of memory");
	return -1;
}

static void window_texts_free(window_texts *t)
{
	free(t->prints);
	free(t->clears);
	free(t->late_prints);
	free(t->late_clears);
	free(t->all_prints);
	free(t->all_clears);
	free(t->helpers);
}

/* The trigger's window-start probes (held start, begin) and, with held
 * intervals, the interval's resume. */
static int put_window_starts(gen_parts *pt, const gen_options *o, const char *probe,
			     const window_texts *t, const char *start_text, const char *begin_text)
{
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)o->trigger_pid);
	gen_vars sv = { .n = 0 };
	gen_vars_set(&sv, "window_probe", probe);
	gen_vars_set(&sv, "pid", pid);
	gen_vars_set(&sv, "clear_maps", t->all_clears);
	gen_vars_set(&sv, "clear_helpers", t->helpers);
	gen_vars_set(&sv, "restart_stmts", pt->restarts.data);
	gen_vars_set(&sv, "start_stmts", begin_text);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "window_start.bt.in", &sv);
	pt->attach += 2;
	if (!held_intervals(o))
		return rc;
	gen_vars rv = { .n = 0 };
	gen_vars_set(&rv, "window_probe", probe);
	gen_vars_set(&rv, "pid", pid);
	gen_vars_set(&rv, "start_stmts", start_text);
	buf_putc(&pt->out, '\n');
	rc |= gen_render(&pt->out, "window_resume.bt.in", &rv);
	pt->attach++;
	return rc;
}

/* The probe through which bpfspec changes the traced processes
 * (templates/pids.bt.in), when O asks for one. */
static int put_pids_probe(gen_parts *pt, const gen_options *o)
{
	if (!o->pids_addr || !o->trigger_path)
		return 0;
	buf probe = BUF_INIT;
	gen_put_address_points(&probe, "uprobe", o->trigger_path, &o->pids_addr, 1);
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)o->trigger_pid);
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "pids_probe", probe.data ? probe.data : "");
	gen_vars_set(&v, "pid", pid);
	gen_vars_set(&v, "delete", pt->delete_call);
	buf_putc(&pt->out, '\n');
	int rc = probe.data ? gen_render(&pt->out, "pids.bt.in", &v) : -1;
	if (!probe.data)
		diag_error(NULL, "out of memory");
	buf_free(&probe);
	pt->attach++;
	return rc;
}

/* The probes that end a window (and with a trigger, start the next):
 * every O->window_ns, or when bpfspec calls its own trigger function. */
static int put_window(gen_parts *pt, const gen_options *o, const window_texts *t,
		      const char *start_text, const char *begin_text)
{
	char probe[4200], filter[64] = "";

	if (o->trigger_path && !path_is_plain(o->trigger_path)) {
		diag_error("install bpfspec under a plain path (letters, digits, / . _ - +)",
			   "bpfspec's own path '%s' has characters bpftrace cannot take", o->trigger_path);
		return -1;
	}
	if (!o->trigger_path && o->window_ns == 0)
		return 0;
	if (o->trigger_path) {
		buf tp = BUF_INIT;
		gen_put_address_points(&tp, "uprobe", o->trigger_path, &o->trigger_addr, 1);
		snprintf(probe, sizeof probe, "%s", tp.data ? tp.data : "");
		buf_free(&tp);
		snprintf(filter, sizeof filter, "/pid == %d && arg0 < 2/", (int)o->trigger_pid);
	} else {
		snprintf(probe, sizeof probe, "interval:ms:%llu",
			 (unsigned long long)((o->window_ns + 999999) / 1000000));
	}
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "window_probe", probe);
	gen_vars_set(&v, "window_filter", filter);
	gen_vars_set(&v, "exit_stmt", o->trigger_path ? "\tif (arg0 != 0) { exit(); }" : "\texit();");
	gen_vars_set(&v, "freeze_stmt", !o->trigger_path ? "\t" FREEZE
					: held_intervals(o) ? "\tif (arg0 != 0) { " FREEZE " } else { " HOLD " }"
					: "\tif (arg0 != 0) { " FREEZE " }");
	gen_vars_set(&v, "print_maps", t->prints);
	gen_vars_set(&v, "clear_maps", o->cumulative ? "" : t->clears);
	gen_vars_set(&v, "held_stmt", held_intervals(o)
					      ? "\tif (arg0 == 0) { printf(\"bpfspec:held %llu\\n\", nsecs); }"
					      : "");
	gen_vars_set(&v, "late_print_maps", t->late_prints);
	gen_vars_set(&v, "late_clear_maps", o->cumulative ? "" : t->late_clears);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "window.bt.in", &v);
	pt->attach++;
	if (o->trigger_path)
		rc |= put_window_starts(pt, o, probe, t, start_text, begin_text);
	return rc;
}
#undef FREEZE
#undef HOLD

/* END: the last print, then every map cleared (helpers, and the maps
 * only END may clear). */
static int put_end(gen_parts *pt, const window_texts *t)
{
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "print_maps", t->all_prints);
	gen_vars_set(&v, "clear_maps", t->all_clears);
	buf_puts(&pt->helpers, t->helpers);
	if (*t->helpers)
		buf_putc(&pt->helpers, '\n');
	buf_puts(&pt->helpers, pt->finals.data ? pt->finals.data : "");
	char *end_clears = gen_chop(buf_take(&pt->helpers));
	gen_vars_set(&v, "clear_helpers", end_clears);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "end.bt.in", &v);
	free(end_clears);
	pt->attach++;
	return rc;
}

program *gen_program(const resolved *r, const gen_options *o)
{
	gen_parts pt = { .out = BUF_INIT, .prints = BUF_INIT, .clears = BUF_INIT,
			 .late_prints = BUF_INIT, .late_clears = BUF_INIT, .helpers = BUF_INIT, .starts = BUF_INIT, .types = BUF_INIT,
			 .finals = BUF_INIT, .restarts = BUF_INIT, .slice_min_ns = o->slice_min_ns,
			 .delete_call = bpftrace_at_least(o, 0, 24) ? "$deleted = delete" : "delete",
			 .u64_field = bpftrace_at_least(o, 0, 27) ? "" : "(uint64)" };
	program *prog = calloc(1, sizeof *prog);
	char *start_text = NULL, *begin_text = NULL;
	int failed = 0;

	if (!prog) {
		diag_error(NULL, "out of memory");
		return NULL;
	}
	if (!(pt.bucket = render_bucket()) || !(pt.bucket_nested = nested(pt.bucket))) {
		if (pt.bucket)
			diag_error(NULL, "out of memory");
		free(pt.bucket);
		free(prog);
		return NULL;
	}
	size_t n_pids;
	const pid_t *pids = gen_pids(o, &n_pids);
	failed |= o->pids_addr && o->trigger_path ? gen_pid_map_filter(&pt, pids, n_pids)
						  : gen_pid_filter(&pt, pids, n_pids);
	failed |= put_header(&pt, r, o);
	failed |= put_begin(&pt, r, o, &start_text, &begin_text);
	for (size_t i = 0; i < r->n_probes && !failed; i++)
		if (r->probes[i].active)
			failed |= kind_ops_of(r->probes[i].sp->kind)->emit(&pt, r, i);
	for (const feature_ops *const *f = features; *f && !failed; f++)
		if ((*f)->emit)
			failed |= (*f)->emit(&pt, r);
	window_texts wt = { 0 };
	failed |= take_window_texts(&pt, &wt);
	if (!failed)
		failed |= put_window(&pt, o, &wt, start_text, begin_text);
	if (!failed)
		failed |= put_pids_probe(&pt, o);
	if (!failed)
		failed |= put_end(&pt, &wt);
	window_texts_free(&wt);
	free(start_text);
	free(begin_text);
	buf_free(&pt.finals);
	buf_free(&pt.restarts);
	buf_free(&pt.starts);
	buf_free(&pt.types);
	buf_free(&pt.helpers);
	free(pt.bucket);
	free(pt.bucket_nested);
	prog->expected_attach = pt.attach;
	prog->held_intervals = held_intervals(o);
	for (size_t i = 0; i < r->n_probes; i++)
		prog->shared_probes += r->probes[i].active && wire_of(r->probes[i].sp->kind)->shared;
	prog->len = pt.out.len;
	prog->text = buf_take(&pt.out);
	if (!failed && !prog->text) {
		diag_error(NULL, "out of memory");
		failed = 1;
	}
	if (failed || gen_check_maps_rule(prog->text) < 0) {
		program_free(prog);
		return NULL;
	}
	return prog;
}

void program_free(program *p)
{
	if (!p)
		return;
	free(p->text);
	free(p);
}
