/* diff — compares two reports probe by probe (see diff.h); reading them
 * back from JSON is report_load.c. */
#include "render/diff.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "util/safe.h"
#include "util/units.h"
#include "util/version.h"

/* ---- comparing ----------------------------------------------------------- */

/* What one side shows of a probe or of one of its syscalls. */
typedef struct side {
	bool present;		/* in this report */
	bool attached;
	bool has_stats;		/* p50, p99, max (latency, syscalls) */
	bool has_errors;	/* syscalls */
	bool has_busy;		/* utilization */
	const char *reason;
	uint64_t count, p50, p99, max, errors;
	uint64_t busy_ppm;	/* utilization in parts per million */
	uint64_t duration_ns;
	const report_syscall *sc;	/* per-errno counts, or NULL */
} side;

static const report_probe *find_probe(const report *rep, const char *name)
{
	for (size_t i = 0; rep && i < rep->n_probes; i++)
		if (strcmp(rep->probes[i].name, name) == 0)
			return &rep->probes[i];
	return NULL;
}

static const report_syscall *find_syscall(const report_probe *p, const char *name)
{
	for (size_t i = 0; p && i < p->n_syscalls; i++)
		if (strcmp(p->syscalls[i].name, name) == 0)
			return &p->syscalls[i];
	return NULL;
}

static side probe_side(const report *rep, const report_probe *p)
{
	side s = { .duration_ns = rep->duration_ns };
	if (!p)
		return s;
	s.present = true;
	s.attached = p->attached;
	s.reason = p->reason;
	s.has_stats = kind_shape_of(p->kind)->durations;
	s.has_errors = kind_shape_of(p->kind)->per_syscall;
	s.has_busy = kind_shape_of(p->kind)->busy;
	s.busy_ppm = p->utilization > 0 ? (uint64_t)(p->utilization * 1e6 + 0.5) : 0;
	s.count = p->st.count;
	s.p50 = p->st.p50_ns;
	s.p99 = p->st.p99_ns;
	s.max = p->st.max_ns;
	for (size_t i = 0; i < p->n_syscalls; i++)
		s.errors += p->syscalls[i].error_count;
	return s;
}

/* The side of syscall NAME of P (a syscalls probe, or NULL). */
static side syscall_side(const report *rep, const report_probe *p, const char *name)
{
	side s = { .duration_ns = rep->duration_ns };
	if (p && !p->attached) {
		s.present = s.has_stats = s.has_errors = true;
		s.reason = p->reason;
		return s;
	}
	const report_syscall *sc = find_syscall(p, name);
	if (!sc)
		return s;
	s.present = s.attached = s.has_stats = s.has_errors = true;
	s.count = sc->st.count;
	s.p50 = sc->st.p50_ns;
	s.p99 = sc->st.p99_ns;
	s.max = sc->st.max_ns;
	s.errors = sc->error_count;
	s.sc = sc;
	return s;
}

static bool has_errno(const report_syscall *sc, const char *name)
{
	for (size_t i = 0; sc && i < sc->n_errors; i++)
		if (strcmp(sc->errors[i].name, name) == 0)
			return true;
	return false;
}

static uint64_t errno_count(const report_syscall *sc, const char *name)
{
	for (size_t i = 0; sc && i < sc->n_errors; i++)
		if (strcmp(sc->errors[i].name, name) == 0)
			return sc->errors[i].count;
	return 0;
}

/* V rounded to the nearest multiple of 1/SCALE (without libm). */
static double round_to(double v, double scale)
{
	double x = v * scale;
	if (!(x > -1e15 && x < 1e15))
		return v;	/* too large for a fraction to matter, or NaN */
	return (double)(long long)(x < 0 ? x - 0.5 : x + 0.5) / scale;
}

/* AFTER - BEFORE, saturated to the int64 range. */
static int64_t delta(uint64_t before, uint64_t after)
{
	if (after >= before) {
		uint64_t d = after - before;
		return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
	}
	uint64_t d = before - after;
	return d > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)d;
}

/* Relative change in percent, rounded to 0.01; false when BEFORE is 0. */
static bool pct(double before, double after, double *out)
{
	if (before <= 0)
		return false;
	*out = round_to((after - before) / before * 100.0, 100.0);
	return true;
}

/* Calls per second over the window; false for an empty window. */
static bool rate(uint64_t count, uint64_t duration_ns, double *out)
{
	if (!duration_ns)
		return false;
	*out = round_to((double)count / ((double)duration_ns / 1e9), 1000.0);
	return true;
}

/* The status of a comparison: both sides attached, or why not. */
static const char *status(const side *b, const side *a)
{
	if (!b->present)
		return "new";
	if (!a->present)
		return "gone";
	if (!b->attached || !a->attached)
		return "not_attached";
	return "compared";
}

/* ---- text ---- */

/* NS with 3-4 significant digits in the unit that suits it: 512ns,
 * 1.050us, 40.31ms, 2.000s. */
static void fmt_ns(char *out, size_t len, uint64_t ns)
{
	time_unit u = unit_for(ns);
	if (u == UNIT_NS) {
		snprintf(out, len, "%lluns", (unsigned long long)ns);
		return;
	}
	double v = (double)ns / (double)unit_ns(u);
	snprintf(out, len, v >= 100 ? "%.1f%s" : v >= 10 ? "%.2f%s" : "%.3f%s", v, unit_name(u));
}

static double dabs(double v)
{
	return v < 0 ? -v : v;
}

static void fmt_rate(char *out, size_t len, double v)
{
	double m = dabs(v);
	snprintf(out, len, m >= 1000 ? "%.0f/s" : m >= 100 ? "%.1f/s" : m >= 10 ? "%.2f/s" : "%.3f/s",
		 v);
}

typedef enum { V_COUNT, V_RATE, V_DUR, V_BUSY } value_kind;

static void fmt_value(char *out, size_t len, value_kind k, uint64_t v, uint64_t duration_ns)
{
	double r;
	if (k == V_DUR)
		fmt_ns(out, len, v);
	else if (k == V_BUSY)
		snprintf(out, len, "%.1f%%", (double)v / 1e4);
	else if (k == V_COUNT)
		snprintf(out, len, "%llu", (unsigned long long)v);
	else if (rate(v, duration_ns, &r))
		fmt_rate(out, len, r);
	else
		snprintf(out, len, "-");
}

static void fmt_change(char *out, size_t len, value_kind k, const side *b, const side *a,
		       uint64_t vb, uint64_t va)
{
	double rb, ra;
	int64_t d = delta(vb, va);
	const char *sign = d > 0 ? "+" : d < 0 ? "-" : "";
	uint64_t mag = d < 0 ? (uint64_t)(-d) : (uint64_t)d;
	char num[40];

	if (k == V_RATE) {
		if (!rate(vb, b->duration_ns, &rb) || !rate(va, a->duration_ns, &ra)) {
			snprintf(out, len, "-");
			return;
		}
		fmt_rate(num, sizeof num, dabs(ra - rb));
		snprintf(out, len, "%s%s", ra > rb ? "+" : ra < rb ? "-" : "", num);
		return;
	}
	if (k == V_DUR)
		fmt_ns(num, sizeof num, mag);
	else if (k == V_BUSY)	/* percentage points */
		snprintf(num, sizeof num, "%.1fpt", (double)mag / 1e4);
	else
		snprintf(num, sizeof num, "%llu", (unsigned long long)mag);
	snprintf(out, len, "%s%s", sign, num);
}

static void fmt_pct(char *out, size_t len, value_kind k, const side *b, const side *a,
		    uint64_t vb, uint64_t va)
{
	double p, rb, ra;
	bool ok;
	if (k == V_RATE)
		ok = rate(vb, b->duration_ns, &rb) && rate(va, a->duration_ns, &ra) && pct(rb, ra, &p);
	else
		ok = pct((double)vb, (double)va, &p);
	if (ok)
		snprintf(out, len, p == 0 ? "%.1f%%" : "%+.1f%%", p);
	else
		out[0] = '\0';
}

#define ROW_FMT "  %-14s %-10s %12s %12s %12s %9s"
#define ROW_FMT_NOLABEL "  %-10s %12s %12s %12s %9s"

/* S without its trailing spaces. */
static char *rstrip(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

/* Side S's value V as a row shows it: "-" when S does not have the
 * probe, "n/a" when its probe did not attach. */
static void fmt_side(char *out, size_t len, value_kind k, const side *s, uint64_t v)
{
	if (!s->present)
		snprintf(out, len, "-");
	else if (!s->attached)
		snprintf(out, len, "n/a");
	else
		fmt_value(out, len, k, v, s->duration_ns);
}

/* One row: LABEL (syscall name, blank, or NULL: no label column), STAT, the values of both
 * sides and the change; a side that does not show the value prints "-"
 * (missing) or "n/a" (not attached). */
static void text_row(FILE *out, const char *label, const char *stat, value_kind k, const side *b,
		     const side *a, uint64_t vb, uint64_t va)
{
	char sb[48], sa[48], chg[64], pc[24];
	const char *st = status(b, a);

	fmt_side(sb, sizeof sb, k, b, vb);
	fmt_side(sa, sizeof sa, k, a, va);
	pc[0] = '\0';
	if (strcmp(st, "compared") == 0) {
		fmt_change(chg, sizeof chg, k, b, a, vb, va);
		fmt_pct(pc, sizeof pc, k, b, a, vb, va);
	} else if (strcmp(st, "not_attached") == 0) {
		snprintf(chg, sizeof chg, "n/a");
	} else {
		snprintf(chg, sizeof chg, "%s", st);
	}
	/* Names come from the reports' files: safe.h's text form. */
	char *safe_label = label ? safe_text(label) : NULL, *safe_stat = safe_text(stat);
	char line[512];
	if (label)
		snprintf(line, sizeof line, ROW_FMT, safe_label ? safe_label : "?",
			 safe_stat ? safe_stat : "?", sb, sa, chg, pc);
	else
		snprintf(line, sizeof line, ROW_FMT_NOLABEL, safe_stat ? safe_stat : "?", sb, sa,
			 chg, pc);
	free(safe_label);
	free(safe_stat);
	fputs(rstrip(line), out);
	fputc('\n', out);
}

/* The rows of one probe (LABEL NULL, or "(all)" for a syscalls probe),
 * or of one syscall (LABEL = its name). */
static void text_block(FILE *out, const char *label, const side *b, const side *a)
{
	bool stats = (!b->present || !b->attached || b->has_stats) &&
		     (!a->present || !a->attached || a->has_stats);
	bool errors = (b->has_errors || !b->present) && (a->has_errors || !a->present);
	bool busy = (b->has_busy || !b->present) && (a->has_busy || !a->present);

	text_row(out, label, "count", V_COUNT, b, a, b->count, a->count);
	text_row(out, label ? "" : NULL, "count/s", V_RATE, b, a, b->count, a->count);
	if (stats) {
		text_row(out, label ? "" : NULL, "p50~", V_DUR, b, a, b->p50, a->p50);
		text_row(out, label ? "" : NULL, "p99~", V_DUR, b, a, b->p99, a->p99);
		text_row(out, label ? "" : NULL, "max", V_DUR, b, a, b->max, a->max);
	}
	if (busy)
		text_row(out, label ? "" : NULL, "busy", V_BUSY, b, a, b->busy_ppm, a->busy_ppm);
	if (errors) {
		text_row(out, label ? "" : NULL, "errors", V_COUNT, b, a, b->errors, a->errors);
		/* Per errno, before's order first, then errnos only after has. */
		for (int pass = 0; pass < 2; pass++) {
			const report_syscall *sc = pass == 0 ? b->sc : a->sc;
			for (size_t i = 0; sc && i < sc->n_errors; i++) {
				const char *en = sc->errors[i].name;
				if (pass == 1 && has_errno(b->sc, en))
					continue;
				char stat[32];
				snprintf(stat, sizeof stat, "  %s", en);
				text_row(out, label ? "" : NULL, stat, V_COUNT, b, a,
					 errno_count(b->sc, en), errno_count(a->sc, en));
			}
		}
	}
}

static void text_side(FILE *out, const char *which, const report *rep)
{
	char dur[32];
	fmt_ns(dur, sizeof dur, rep->duration_ns);
	fprintf(out, "  %-7s ", which);
	safe_fputs(rep->spec_name, out);
	fputs(", ", out);
	if (rep->pid > 0) {
		report_fput_pids(out, report_pids_of(rep));
		fputs(" (", out);
		safe_fputs(rep->binary, out);
		fputc(')', out);
	} else {
		safe_fputs(rep->binary, out);
	}
	fprintf(out, ", window %s", dur);
	if (rep->start_unix_ns) {
		char from[40];
		report_utc_stamp(from, sizeof from, rep->start_unix_ns, false);
		fprintf(out, " from %s", from);
	}
	fputc('\n', out);
	render_text_warnings(out, rep, "          ");
}

/* Walks the probe names of BEFORE in order, then those only AFTER has;
 * NULL at the end.  Start with a zeroed name_iter. */
typedef struct name_iter {
	int pass;
	size_t i;
} name_iter;

static const char *next_probe(name_iter *it, const report *before, const report *after)
{
	for (; it->pass < 2; it->pass++, it->i = 0) {
		const report *from = it->pass == 0 ? before : after;
		while (it->i < from->n_probes) {
			const char *name = from->probes[it->i++].name;
			if (it->pass == 0 || !find_probe(before, name))
				return name;
		}
	}
	return NULL;
}

/* The same for the syscalls of two syscalls probes (either may be NULL). */
static const char *next_syscall(name_iter *it, const report_probe *before,
				const report_probe *after)
{
	for (; it->pass < 2; it->pass++, it->i = 0) {
		const report_probe *from = it->pass == 0 ? before : after;
		while (from && it->i < from->n_syscalls) {
			const char *name = from->syscalls[it->i++].name;
			if (it->pass == 0 || !find_syscall(before, name))
				return name;
		}
	}
	return NULL;
}

static bool windows_differ(const report *b, const report *a)
{
	uint64_t hi = b->duration_ns > a->duration_ns ? b->duration_ns : a->duration_ns;
	uint64_t lo = b->duration_ns > a->duration_ns ? a->duration_ns : b->duration_ns;
	return (double)(hi - lo) > 0.01 * (double)hi;
}

static bool is_syscalls(const report_probe *p)
{
	return p && kind_shape_of(p->kind)->per_syscall;
}

/* P when its syscalls are to be listed: a probe that was not attached
 * has none to show. */
static const report_probe *listed(const report_probe *p)
{
	return p && p->attached ? p : NULL;
}

static void diff_text(FILE *out, const report *before, const report *after)
{
	const char *spec_b = before->spec_name ? before->spec_name : "?";
	const char *spec_a = after->spec_name ? after->spec_name : "?";

	fputs("bpfspec diff ", out);
	safe_fputs(spec_b, out);
	if (strcmp(spec_b, spec_a) != 0) {
		fputs(" -> ", out);
		safe_fputs(spec_a, out);
	}
	fputc('\n', out);
	text_side(out, "before:", before);
	text_side(out, "after:", after);
	if (windows_differ(before, after))
		fprintf(out, "note: the windows differ in length: compare count/s, not count\n");

	name_iter it = { 0 };
	const char *name;
	while ((name = next_probe(&it, before, after))) {
		const report_probe *pb = find_probe(before, name), *pa = find_probe(after, name);
		side b = probe_side(before, pb), a = probe_side(after, pa);
		fputc('\n', out);
		safe_fputs(name, out);
		fputs(" (", out);
		fputs(kind_name(pa ? pa->kind : pb->kind), out);
		fputc(')', out);
		if (pb && pa && pb->kind != pa->kind) {
			fputs(": kind changed from ", out);
			fputs(kind_name(pb->kind), out);
		}
		const char *rb = pb && !pb->attached ? pb->reason ? pb->reason : "unknown reason" : NULL;
		const char *ra = pa && !pa->attached ? pa->reason ? pa->reason : "unknown reason" : NULL;
		if (rb && ra && strcmp(rb, ra) == 0) {
			fputs("\n  not attached in either report: ", out);
			safe_fputs(rb, out);
		} else {
			if (rb) {
				fputs("\n  before: not attached: ", out);
				safe_fputs(rb, out);
			}
			if (ra) {
				fputs("\n  after:  not attached: ", out);
				safe_fputs(ra, out);
			}
		}
		fputc('\n', out);
		if (pb && !pb->attached && pa && !pa->attached)
			continue;
		bool syscalls = is_syscalls(pb) || is_syscalls(pa);
		if (syscalls)
			fprintf(out, ROW_FMT "\n", "SYSCALL", "STAT", "BEFORE", "AFTER", "CHANGE", "%");
		else
			fprintf(out, ROW_FMT_NOLABEL "\n", "STAT", "BEFORE", "AFTER", "CHANGE", "%");
		text_block(out, syscalls ? "(all)" : NULL, &b, &a);
		if (!syscalls)
			continue;
		const report_probe *sb = is_syscalls(pb) ? pb : NULL;
		const report_probe *sa = is_syscalls(pa) ? pa : NULL;
		name_iter sit = { 0 };
		const char *sc;
		while ((sc = next_syscall(&sit, listed(sb), listed(sa)))) {
			side xb = syscall_side(before, sb, sc), xa = syscall_side(after, sa, sc);
			text_block(out, sc, &xb, &xa);
		}
	}
	fprintf(out, "\n~ p50 and p99 are estimates (see the reports' percentile_method); "
		     "count and max are exact.\n");
}

/* ---- JSON ---- */

static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *json_header(const report *rep)
{
	json_t *o = json_object();
	json_object_set_new(o, "spec", jstr(rep->spec_name));
	json_object_set_new(o, "pid", json_integer(rep->pid));
	json_object_set_new(o, "binary", jstr(rep->binary));
	if (rep->start_unix_ns)
		json_object_set_new(o, "window_start_unix_ns", jint(rep->start_unix_ns));
	json_object_set_new(o, "duration_ns", jint(rep->duration_ns));
	json_object_set_new(o, "partial", json_boolean(rep->partial));
	json_object_set_new(o, "lost_events", jint(rep->lost_events));
	return o;
}

static json_t *json_side(const side *s)
{
	double r;
	if (!s->present)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "attached", json_boolean(s->attached));
	if (!s->attached) {
		json_object_set_new(o, "reason", jstr(s->reason));
		return o;
	}
	json_object_set_new(o, "count", jint(s->count));
	json_object_set_new(o, "count_per_s",
			    rate(s->count, s->duration_ns, &r) ? json_real(r) : json_null());
	if (s->has_stats) {
		json_object_set_new(o, "p50_ns", jint(s->p50));
		json_object_set_new(o, "p99_ns", jint(s->p99));
		json_object_set_new(o, "max_ns", jint(s->max));
	}
	if (s->has_errors)
		json_object_set_new(o, "error_count", jint(s->errors));
	if (s->has_busy)
		json_object_set_new(o, "utilization", json_real((double)s->busy_ppm / 1e6));
	if (s->sc) {
		json_t *errs = json_object();
		for (size_t i = 0; i < s->sc->n_errors; i++)
			json_object_set_new(errs, s->sc->errors[i].name, jint(s->sc->errors[i].count));
		json_object_set_new(o, "errors", errs);
	}
	return o;
}

static json_t *jpct(double b, double a)
{
	double p;
	return pct(b, a, &p) ? json_real(p) : json_null();
}

/* KEY: the integer change, KEY_PCT: the relative change (null when the
 * before value is 0). */
static void put_change(json_t *o, const char *key, const char *key_pct, uint64_t b, uint64_t a)
{
	json_object_set_new(o, key, json_integer(delta(b, a)));
	json_object_set_new(o, key_pct, jpct((double)b, (double)a));
}

static json_t *json_change(const side *b, const side *a)
{
	double rb, ra;
	if (strcmp(status(b, a), "compared") != 0)
		return json_null();
	json_t *o = json_object();
	put_change(o, "count", "count_pct", b->count, a->count);
	if (rate(b->count, b->duration_ns, &rb) && rate(a->count, a->duration_ns, &ra)) {
		json_object_set_new(o, "count_per_s", json_real(round_to(ra - rb, 1000.0)));
		json_object_set_new(o, "count_per_s_pct", jpct(rb, ra));
	} else {
		json_object_set_new(o, "count_per_s", json_null());
		json_object_set_new(o, "count_per_s_pct", json_null());
	}
	if (b->has_stats && a->has_stats) {
		put_change(o, "p50_ns", "p50_pct", b->p50, a->p50);
		put_change(o, "p99_ns", "p99_pct", b->p99, a->p99);
		put_change(o, "max_ns", "max_pct", b->max, a->max);
	}
	if (b->has_errors && a->has_errors)
		put_change(o, "error_count", "error_count_pct", b->errors, a->errors);
	if (b->has_busy && a->has_busy) {
		json_object_set_new(o, "utilization",
				    json_real((double)delta(b->busy_ppm, a->busy_ppm) / 1e6));
		json_object_set_new(o, "utilization_pct",
				    jpct((double)b->busy_ppm, (double)a->busy_ppm));
	}
	if (b->sc && a->sc) {
		json_t *errs = json_object();
		for (int pass = 0; pass < 2; pass++) {
			const report_syscall *sc = pass == 0 ? b->sc : a->sc;
			for (size_t i = 0; sc && i < sc->n_errors; i++) {
				const char *en = sc->errors[i].name;
				if (pass == 1 && has_errno(b->sc, en))
					continue;
				json_object_set_new(errs, en,
						    json_integer(delta(errno_count(b->sc, en),
								       errno_count(a->sc, en))));
			}
		}
		json_object_set_new(o, "errors", errs);
	}
	return o;
}

static json_t *json_compare(const char *key, const char *name, const char *kind, const side *b,
			    const side *a)
{
	json_t *o = json_object();
	json_object_set_new(o, key, json_string(name));
	if (kind)
		json_object_set_new(o, "kind", json_string(kind));
	json_object_set_new(o, "status", json_string(status(b, a)));
	json_object_set_new(o, "before", json_side(b));
	json_object_set_new(o, "after", json_side(a));
	json_object_set_new(o, "change", json_change(b, a));
	return o;
}

static int diff_json(FILE *out, const report *before, const report *after)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_integer(BPFSPEC_REPORT_SCHEMA));
	json_object_set_new(root, "bpfspec_version", json_string(BPFSPEC_VERSION));
	json_object_set_new(root, "before", json_header(before));
	json_object_set_new(root, "after", json_header(after));
	json_t *probes = json_array();
	name_iter it = { 0 };
	const char *name;
	while ((name = next_probe(&it, before, after))) {
		const report_probe *pb = find_probe(before, name), *pa = find_probe(after, name);
		side b = probe_side(before, pb), a = probe_side(after, pa);
		json_t *jp = json_compare("name", name, kind_name(pa ? pa->kind : pb->kind), &b, &a);
		if (is_syscalls(pb) || is_syscalls(pa)) {
			const report_probe *sb = is_syscalls(pb) ? pb : NULL;
			const report_probe *sa = is_syscalls(pa) ? pa : NULL;
			json_t *arr = json_array();
			name_iter sit = { 0 };
			const char *sc;
			while ((sc = next_syscall(&sit, listed(sb), listed(sa)))) {
				side xb = syscall_side(before, sb, sc), xa = syscall_side(after, sa, sc);
				json_array_append_new(arr, json_compare("syscall", sc, NULL, &xb, &xa));
			}
			json_object_set_new(jp, "syscalls", arr);
		}
		json_array_append_new(probes, jp);
	}
	json_object_set_new(root, "probes", probes);

	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) |
			       JSON_ENSURE_ASCII);
	json_decref(root);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	return rc;
}

int diff_render(FILE *out, const report *before, const report *after, diff_format fmt)
{
	int rc = 0;
	if (fmt == DIFF_JSON)
		rc = diff_json(out, before, after);
	else
		diff_text(out, before, after);
	if (fflush(out) == EOF || ferror(out))
		rc = -1;
	return rc == 0 ? 0 : -1;
}
