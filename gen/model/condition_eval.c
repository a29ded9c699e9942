/* condition_eval — evaluates parsed conditions (condition.c) on the report model
 * (report.h): the only part of condition that knows reports, so the parser
 * (used by spec.c) stays below the model. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/condition_internal.h"
#include "model/report.h"
#include "util/units.h"

#define WHY_DIGITS 4		/* significant digits of durations in WHY */

/* ---- evaluation ---- */

/* Writes into WHY (LEN bytes, may be NULL). */
static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* A statistic's value, exactly: Q + R/DEN nanoseconds or calls (R <
 * DEN).  Only mean has a fraction; comparisons stay in integers, so that
 * "p99 > 18446744073709551614" is decided on every platform alike. */
typedef struct value {
	uint64_t q, r, den;
} value;

static value value_of(uint64_t v)
{
	return (value){ v, 0, 1 };
}

/* -1, 0 or 1 as V is below, at or above T. */
static int value_cmp(value v, uint64_t t)
{
	if (v.q != t)
		return v.q < t ? -1 : 1;
	return v.r ? 1 : 0;
}

static double value_double(value v)
{
	return (double)v.q + (double)v.r / (double)v.den;
}

/* Writes duration NS (>= 0) with DIGITS significant digits, in the
 * largest unit (ns, us, ms, s) that keeps it at least 1: "132.4ms". */
static void format_duration(double ns, int digits, char *buf, size_t size)
{
	time_unit u = UNIT_NS;

	while (u + 1 < N_TIME_UNITS && ns >= (double)unit_ns(u + 1))
		u++;
	for (;;) {
		double v = ns / (double)unit_ns(u);
		int whole = 1, decimals;
		char *dot, *end;

		for (double t = 10; v >= t && whole < 40; t *= 10)
			whole++;
		decimals = digits > whole ? digits - whole : 0;
		snprintf(buf, size, "%.*f", decimals, v);
		/* 999.96us rounds to 1000us: say 1ms. */
		if (u + 1 < N_TIME_UNITS && strtod(buf, NULL) >= 1000) {
			u++;
			continue;
		}
		dot = strchr(buf, '.');
		if (dot) {
			end = buf + strlen(buf);
			while (end > dot + 1 && end[-1] == '0')
				*--end = '\0';
			if (end == dot + 1)
				*dot = '\0';
		}
		strncat(buf, unit_name(u), size - strlen(buf) - 1);
		return;
	}
}

/* Writes V (a duration in ns, or a count) for WHY. */
static void format_value(const condition *c, value v, int digits, char *buf, size_t size)
{
	if (condition_stat_is_duration(c->stat))
		format_duration(value_double(v), digits, buf, size);
	else
		snprintf(buf, size, "%llu", (unsigned long long)v.q);
}

/* Writes V and the threshold T so that they read differently when they
 * differ: more digits when the first try shows the same text for both. */
static void format_pair(const condition *c, value v, uint64_t t, char *vbuf, char *tbuf,
			size_t size)
{
	for (int digits = WHY_DIGITS; digits <= 18; digits += 2) {
		format_value(c, v, digits, vbuf, size);
		format_value(c, value_of(t), digits, tbuf, size);
		if (value_cmp(v, t) == 0 || strcmp(vbuf, tbuf) != 0)
			return;
	}
}

/* Whether "A op B" holds, given CMP: -1, 0 or 1 as A is below, at or
 * above B. */
static bool holds_for(int cmp, condition_op op)
{
	switch (op) {
	case OP_GT: return cmp > 0;
	case OP_GE: return cmp >= 0;
	case OP_LT: return cmp < 0;
	case OP_LE: return cmp <= 0;
	case OP_EQ: return cmp == 0;
	case OP_NE: return cmp != 0;
	}
	return false;
}

static const report_probe *find_probe(const report *rep, const char *name)
{
	for (size_t i = 0; i < rep->n_probes; i++)
		if (rep->probes[i].name && strcmp(rep->probes[i].name, name) == 0)
			return &rep->probes[i];
	return NULL;
}

/* Errors of syscall SC: all of them, or those of errno NAME (0 when that
 * errno does not appear). */
static uint64_t syscall_errors(const report_syscall *sc, const char *name)
{
	uint64_t n = 0;

	if (!name)
		return sc->error_count;
	for (size_t i = 0; i < sc->n_errors; i++)
		if (sc->errors[i].name && strcmp(sc->errors[i].name, name) == 0)
			n += sc->errors[i].count;
	return n;
}

/* Reads statistic S of ST (WHAT names its owner for "recorded no calls"). */
static int stats_value(const condition *c, const report_stats *st, const char *what,
		       value *out, char *why, size_t len)
{
	switch (c->stat) {
	case ST_COUNT:
		*out = value_of(st->count);
		return 0;
	case ST_SUM:
		*out = value_of(st->sum_ns);
		return 0;
	case ST_MIN: case ST_MAX: case ST_MEAN: case ST_P50: case ST_P90: case ST_P99:
	case ST_ERRORS: case ST_LOST: case N_STATS:
		break;	/* below */
	}
	if (st->count == 0) {
		/* No calls: nothing was slow.  A runbook's "p99 > 100ms" passes,
		 * it does not break the run. */
		(void)what;
		(void)why;
		(void)len;
		*out = value_of(0);
		return 0;
	}
	switch (c->stat) {
	case ST_MIN: *out = value_of(st->min_ns); break;
	case ST_MAX: *out = value_of(st->max_ns); break;
	case ST_MEAN:
		*out = (value){ st->sum_ns / st->count, st->sum_ns % st->count, st->count };
		break;
	case ST_P50: *out = value_of(st->p50_ns); break;
	case ST_P90: *out = value_of(st->p90_ns); break;
	case ST_P99: *out = value_of(st->p99_ns); break;
	case ST_COUNT: case ST_SUM: case ST_ERRORS: case ST_LOST: case N_STATS:
		break;	/* taken above, or not a statistic of durations */
	}
	return 0;
}

/* Says in WHY that C's probe is not in REP, naming the probes it has: a
 * one-liner's probe is named after its function, but made a valid name
 * (ns::f -> ns_f). */
static void say_no_probe(const condition *c, const report *rep, char *why, size_t len)
{
	size_t n = 0;

	say(why, len, "probe '%s' is not in the report", c->probe);
	for (size_t i = 0; why && rep->probes && i < rep->n_probes; i++) {
		n = strlen(why);
		if (n + 1 >= len)
			break;
		snprintf(why + n, len - n, "%s%s", i ? ", " : " (its probes: ",
			 rep->probes[i].name);
	}
	n = why ? strlen(why) : 0;
	if (rep->n_probes && n + 1 < len)
		snprintf(why + n, len - n, ")");
}

/* Whether a probe of P's kind holds what C's path reads: kind.h's shape,
 * as spec_checks.c reads it (a report from a file may hold any path).
 * Returns 0, or -1 with WHY. */
static int check_fits_kind(const condition *c, const report_probe *p, char *why, size_t len)
{
	const kind_shape *sh = kind_shape_of(p->kind);
	const char *kind = kind_name(p->kind);

	if (c->route && !sh->http) {
		say(why, len, "probe '%s' is %s %s probe: routes are http probes'", c->probe,
		    sh->article, kind);
		return -1;
	}
	if (c->route)
		return 0;
	if (!sh->durations && (c->syscall || c->stat != ST_COUNT)) {
		say(why, len, "probe '%s' is %s %s probe: only its count of %s (%s.count) and lost "
		    "can be checked, not %.*s", c->probe, sh->article, kind, sh->counts, c->probe,
		    (int)c->path_len, c->text);
		return -1;
	}
	if (c->syscall && !sh->per_syscall) {
		say(why, len, "probe '%s' is %s %s probe: it has no syscalls", c->probe, sh->article,
		    kind);
		return -1;
	}
	if (c->stat == ST_ERRORS && !sh->per_syscall) {
		say(why, len, "probe '%s' is %s %s probe: errors are counted by syscalls probes",
		    c->probe, sh->article, kind);
		return -1;
	}
	return 0;
}

/* The value C's path names in P, a probe with syscalls: of C's syscall
 * (all 0 when it was never called), or of the probe as a whole.  Returns
 * 0, or -1 with WHY. */
static int syscalls_value(const condition *c, const report_probe *p, value *out, char *why,
			  size_t len)
{
	char what[128];

	if (c->syscall) {
		const report_syscall *sc = NULL;
		for (size_t i = 0; i < p->n_syscalls && !sc; i++)
			if (p->syscalls[i].name && strcmp(p->syscalls[i].name, c->syscall) == 0)
				sc = &p->syscalls[i];
		if (!sc) {
			/* Never called in the window: every statistic is 0. */
			*out = value_of(0);
			return 0;
		}
		if (c->stat == ST_ERRORS) {
			*out = value_of(syscall_errors(sc, c->errno_name));
			return 0;
		}
		snprintf(what, sizeof(what), "syscall '%s' of probe '%s'", c->syscall, c->probe);
		return stats_value(c, &sc->st, what, out, why, len);
	}
	if (c->stat == ST_ERRORS) {
		uint64_t n = 0;
		for (size_t i = 0; i < p->n_syscalls; i++)
			n += syscall_errors(&p->syscalls[i], c->errno_name);
		*out = value_of(n);
		return 0;
	}
	snprintf(what, sizeof(what), "probe '%s'", c->probe);
	return stats_value(c, &p->st, what, out, why, len);
}

/* Whether route row R is C's route: "METHOD ROUTE", or ROUTE alone. */
static bool is_route(const condition *c, const report_http_route *r)
{
	size_t m = r->method ? strlen(r->method) : 0;
	if (r->route && strcmp(c->route, r->route) == 0)
		return true;
	return m && r->route && strncmp(c->route, r->method, m) == 0 && c->route[m] == ' ' &&
	       strcmp(c->route + m + 1, r->route) == 0;
}

/* The value C's path names in P, an http probe: of C's route (all 0 when
 * no request took it).  A route without a method must name one row: a
 * route requested with two methods is ambiguous.  Returns 0, or -1 with
 * WHY. */
static int route_value(const condition *c, const report_probe *p, value *out, char *why,
		       size_t len)
{
	const report_http_route *found = NULL;
	char what[160];

	for (size_t i = 0; i < p->n_http_routes; i++) {
		const report_http_route *r = &p->http_routes[i];
		if (!is_route(c, r))
			continue;
		if (found) {
			say(why, len, "route '%s' of probe '%s' was requested with more than one "
			    "method: name one, as in '%s[GET %s]'", c->route, c->probe, c->probe,
			    c->route);
			return -1;
		}
		found = r;
	}
	if (!found) {
		/* No request took it in the window: nothing was slow. */
		*out = value_of(0);
		return 0;
	}
	snprintf(what, sizeof(what), "route '%s' of probe '%s'", c->route, c->probe);
	return stats_value(c, &found->st, what, out, why, len);
}

/* The value C's path names in REP.  Returns 0, or -1 with WHY. */
static int path_value(const condition *c, const report *rep, value *out, char *why,
		      size_t len)
{
	const report_probe *p;
	char what[128];

	if (!rep) {
		say(why, len, "there is no report to check");
		return -1;
	}
	p = find_probe(rep, c->probe);
	if (!p) {
		say_no_probe(c, rep, why, len);
		return -1;
	}
	if (c->stat == ST_LOST) {
		*out = value_of(rep->lost_events);
		return 0;
	}
	if (!p->attached) {
		if (p->reason)
			say(why, len, "probe '%s' was not attached: %s", c->probe, p->reason);
		else
			say(why, len, "probe '%s' was not attached", c->probe);
		return -1;
	}
	if (check_fits_kind(c, p, why, len) < 0)
		return -1;
	if (kind_shape_of(p->kind)->per_syscall)
		return syscalls_value(c, p, out, why, len);
	if (c->route)
		return route_value(c, p, out, why, len);
	snprintf(what, sizeof(what), "probe '%s'", c->probe);
	return stats_value(c, &p->st, what, out, why, len);
}

int condition_eval(const condition *c, const report *rep, char *why, size_t len)
{
	char vbuf[64], tbuf[64];
	value v;
	bool holds;

	if (why && len)
		why[0] = '\0';
	if (!c) {
		say(why, len, "no check");
		return -1;
	}
	if (c->relative) {
		say(why, len, "'%s' is a relative change: it compares two reports (use it with "
		    "a diff)", c->text);
		return -1;
	}
	if (path_value(c, rep, &v, why, len) < 0)
		return -1;
	holds = holds_for(value_cmp(v, c->value), c->op);
	format_pair(c, v, c->value, vbuf, tbuf, sizeof(vbuf));
	say(why, len, "%.*s = %s %s %s", (int)c->path_len, c->text, vbuf,
	    check_op_names[holds ? c->op : check_op_negated[c->op]], tbuf);
	return holds;
}

int condition_eval_diff(const condition *c, const report *before, const report *after, char *why,
		    size_t len)
{
	char bbuf[64], abuf[64], change[64], sub[256];
	value b, a;
	double pct = 0;
	bool holds, from_zero = false;

	if (!c || !c->relative)
		return condition_eval(c, after, why, len);
	if (why && len)
		why[0] = '\0';
	if (path_value(c, before, &b, sub, sizeof(sub)) < 0) {
		say(why, len, "in the before report: %s", sub);
		return -1;
	}
	if (path_value(c, after, &a, sub, sizeof(sub)) < 0) {
		say(why, len, "in the after report: %s", sub);
		return -1;
	}
	/* From 0, any growth is more than any percentage; 0 to 0 is none. */
	if (b.q == 0 && b.r == 0)
		from_zero = a.q > 0 || a.r > 0;
	else
		pct = (value_double(a) - value_double(b)) * 100 / value_double(b);
	holds = holds_for(from_zero ? 1 : pct < c->pct ? -1 : pct > c->pct ? 1 : 0, c->op);
	format_value(c, b, WHY_DIGITS, bbuf, sizeof(bbuf));
	format_value(c, a, WHY_DIGITS, abuf, sizeof(abuf));
	if (from_zero) {
		snprintf(change, sizeof(change), "grew from 0");
	} else {
		snprintf(change, sizeof(change), "%+.1f%%", pct);
		/* +20.0% > +20%: show the digits that make the difference. */
		if (pct != c->pct && pct - c->pct < 0.05 && c->pct - pct < 0.05)
			snprintf(change, sizeof(change), "%+.4f%%", pct);
	}
	say(why, len, "%.*s = %s → %s (%s) %s %.*s", (int)c->path_len, c->text, bbuf, abuf,
	    change, check_op_names[holds ? c->op : check_op_negated[c->op]], (int)c->value_len,
	    c->text + c->value_off);
	return holds;
}
