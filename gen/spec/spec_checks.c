/* spec_checks — 'checks': runbook conditions, each located in the spec (spec_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/condition.h"
#include "spec/spec_internal.h"
#include "util/systab.h"

/* ---- checks ---- */

#define CHECKS_HINT "see docs/spec.md#checks"

/* The statistics of condition.h's grammar that a probe-level path may end in. */
static const char *const check_stats[] = {
	"count", "sum", "min", "max", "mean", "p50", "p90", "p99", "errors", "lost", NULL,
};

/* Where column COL (1-based, in characters) of the text of check item V
 * is in the source, underlining the word that starts there.  Returns
 * false when V's value is not its source text as is (escapes, folded
 * lines, block scalars): a column inside it cannot be mapped. */
static bool check_col_loc(const loader *ld, const node *v, size_t col, diag_loc *out)
{
	const diag_src *src = v->src ? v->src : ld->src;
	size_t off = sl_mark_offset(src, v->start), q = 0, i = 0, end;

	if (!v->plain) {
		if (off >= src->len || (src->text[off] != '"' && src->text[off] != '\''))
			return false;
		q = 1;
	}
	if (memchr(v->value, '\n', v->len) || memchr(v->value, '\r', v->len) ||
	    off + q + v->len + q > src->len ||
	    memcmp(src->text + off + q, v->value, v->len) != 0 ||
	    (q && src->text[off + q + v->len] != src->text[off]))
		return false;
	for (size_t c = 1; c < col && i < v->len; c++)
		i += diag_char_len(v->value + i, v->len - i);
	for (end = i; end < v->len && (is_lower(v->value[end]) || is_upper(v->value[end]) ||
				      is_digit(v->value[end]) || v->value[end] == '_');)
		end++;
	if (end == i)
		end = i + (i < v->len ? diag_char_len(v->value + i, v->len - i) : 1);
	*out = diag_loc_of(src, off + q + i, off + q + end);
	return true;
}

/* The location of column COL of check item V, or the item when the
 * column cannot be mapped. */
static diag_loc check_loc(const loader *ld, const node *v, size_t col)
{
	diag_loc loc;

	return check_col_loc(ld, v, col, &loc) ? loc : sl_node_loc(ld, v);
}

/* The dot-separated words of the path of TEXT, a check that parsed:
 * PROBE "." STAT ["." ERRNO] or PROBE "." SYSCALL "." STAT ["." ERRNO].
 * Each word is [A-Za-z0-9_]{1,64} (check_parse made sure). */
typedef struct check_path {
	char probe[65], syscall[65], stat[65];	/* syscall: "" at probe level */
	size_t syscall_col, stat_col;		/* 1-based columns in TEXT */
	size_t len;				/* bytes of TEXT the path takes */
	size_t route_col;			/* PROBE[ROUTE]: its '[', else 0 */
} check_path;

static void check_path_of(const char *text, check_path *cp)
{
	char words[4][65] = { { 0 } };
	size_t cols[4] = { 0 }, n = 0, i = 0;

	cp->route_col = 0;
	while (n < 4) {
		size_t len = 0;
		cols[n] = i + 1;
		while (text[i] && text[i] != '.' && text[i] != '[' && !strchr(" \t<>=!", text[i]))
			if (len < 64)
				words[n][len++] = text[i++];
			else
				i++;
		if (n == 0 && text[i] == '[') {
			/* PROBE[ROUTE]: check_parse made sure a ']' ends it */
			cp->route_col = i + 1;
			i = (size_t)(strchr(text + i, ']') - text) + 1;
		}
		n++;
		if (text[i] != '.')
			break;
		i++;
	}
	cp->len = i;
	memcpy(cp->probe, words[0], sizeof(cp->probe));
	cp->syscall[0] = '\0';
	cp->syscall_col = 0;
	for (i = 0; check_stats[i]; i++)
		if (strcmp(words[1], check_stats[i]) == 0)
			break;
	if (check_stats[i]) {
		memcpy(cp->stat, words[1], sizeof(cp->stat));
		cp->stat_col = cols[1];
	} else {
		memcpy(cp->syscall, words[1], sizeof(cp->syscall));
		cp->syscall_col = cols[1];
		memcpy(cp->stat, words[2], sizeof(cp->stat));
		cp->stat_col = cols[2];
	}
}

/* The byte offset in a check's text of what follows "PROBE.". */
static size_t cols_of_stat_start(const check_path *cp)
{
	return (cp->syscall[0] ? cp->syscall_col : cp->stat_col) - 1;
}

/* The statistics a probe of shape SH can be checked on, for hints:
 * "count, sum, ..., p99 and lost". */
static const char *stats_offered(const kind_shape *sh)
{
	if (sh->per_syscall)
		return "count, sum, min, max, mean, p50, p90, p99, errors and lost, of the probe "
		       "or of one of its syscalls";
	if (sh->durations)
		return "count, sum, min, max, mean, p50, p90, p99 and lost";
	if (sh->http)
		return "count and lost, and a route's count, sum, min, max, mean, p50, p90 and p99 "
		       "(the route in brackets after the probe: 'requests[GET /users/:id].p99')";
	return "count and lost";
}

/* Whether STAT is one of durations (check_stats: sum to p99). */
static bool stat_is_duration(const char *stat)
{
	return strcmp(stat, "count") != 0 && strcmp(stat, "errors") != 0 &&
	       strcmp(stat, "lost") != 0;
}

/* Checks that syscall CP->syscall of check item V is one that syscalls
 * probe P measures.  Returns false after reporting. */
static bool check_measured_syscall(loader *ld, const node *v, const spec_probe *p,
				   const check_path *cp)
{
	char hint[512];
	size_t o;
	int nr;

	if (!cp->syscall[0] || p->all_syscalls)
		return true;
	nr = systab_syscall_nr(cp->syscall);
	for (size_t i = 0; i < p->n_syscalls; i++)
		if (p->syscalls[i] == nr)
			return true;
	o = (size_t)snprintf(hint, sizeof(hint), "add it to the probe's 'syscalls', or check one "
			     "it measures: ");
	for (size_t i = 0; i < p->n_syscalls && o < sizeof(hint); i++)
		o += (size_t)snprintf(hint + o, sizeof(hint) - o, "%s%s", i ? ", " : "",
				      systab_syscall_name(p->syscalls[i]));
	sl_report(ld, DIAG_ERROR, check_loc(ld, v, cp->syscall_col), hint,
	       "check refers to syscall '%s', which probe '%s' does not measure", cp->syscall,
	       p->name);
	return false;
}

/* Checks that check C (item V, text TEXT) reads probe P as its kind's
 * report shape (kind.h) allows.  Returns false after reporting. */
static bool check_fits_probe(loader *ld, const node *v, const char *text, const spec_probe *p,
			     const check_path *cp)
{
	const kind_shape *sh = kind_shape_of(p->kind);
	const char *kind = kind_name(p->kind);
	size_t from = cols_of_stat_start(cp);
	char hint[512];

	snprintf(hint, sizeof(hint), "%s %s probe can be checked on %s, e.g. '%s.%s'%s",
		 sh->article, kind, stats_offered(sh), p->name,
		 sh->durations ? "p99 > 10ms" : "count > 0",
		 sh->per_syscall ? "" : "; per-syscall statistics and errors are those of probes "
					"with 'kind: syscalls'");
	if (cp->route_col && !sh->http) {
		sl_report(ld, DIAG_ERROR, check_loc(ld, v, cp->route_col), hint,
			  "check reads a route of probe '%s', %s %s probe, which has no routes "
			  "(http probes have)", p->name, sh->article, kind);
		return false;
	}
	if (cp->route_col)
		return true;
	if (cp->syscall[0] && !sh->per_syscall) {
		sl_report(ld, DIAG_ERROR, check_loc(ld, v, cp->syscall_col), hint,
		       "check reads syscall '%s' of probe '%s', %s %s probe, which has no "
		       "syscalls", cp->syscall, p->name, sh->article, kind);
		return false;
	}
	if (strcmp(cp->stat, "errors") == 0 && !sh->per_syscall) {
		sl_report(ld, DIAG_ERROR, check_loc(ld, v, cp->stat_col), hint,
		       "check reads the errors of probe '%s', %s %s probe, which does not count "
		       "errors", p->name, sh->article, kind);
		return false;
	}
	if (stat_is_duration(cp->stat) && !sh->durations) {
		sl_report(ld, DIAG_ERROR, check_loc(ld, v, cp->stat_col), hint,
		       "check reads '%.*s' of probe '%s', %s %s probe, which counts %s and has "
		       "no duration statistics", (int)(cp->len - from), text + from, p->name, sh->article,
		       kind, sh->counts);
		return false;
	}
	return check_measured_syscall(ld, v, p, cp);
}

/* Checks that the probe check TEXT (item V) reads is defined in S, and
 * read as its kind allows. */
static void check_refs(loader *ld, const spec *s, const node *v, const char *text)
{
	const char *names[SPEC_MAX_PROBES + 1];
	char hint[512];
	check_path cp;

	check_path_of(text, &cp);
	for (size_t i = 0; i < s->n_probes; i++) {
		if (s->probes[i].name && strcmp(s->probes[i].name, cp.probe) == 0) {
			check_fits_probe(ld, v, text, &s->probes[i], &cp);
			return;
		}
		names[i] = s->probes[i].name;
	}
	names[s->n_probes] = NULL;
	sl_report(ld, DIAG_ERROR, check_loc(ld, v, 1),
	       sl_choices_hint(hint, sizeof(hint), cp.probe, "probes", names),
	       "check refers to probe '%s', which this spec does not define", cp.probe);
}

/* The probe names of S are all known: every item of the probes list
 * PROBES became a probe with a valid name (else a check naming a probe
 * that failed to load would be reported twice). */
static bool probe_names_known(const spec *s, const node *probes)
{
	if (!probes || probes->type != NODE_SEQ || probes->n_kids != s->n_probes)
		return false;
	for (size_t i = 0; i < s->n_probes; i++)
		if (!s->probes[i].name)
			return false;
	return true;
}

/* Checks V, the value of key K ('checks'), as a list: not empty, at most
 * SPEC_MAX_CHECKS items.  Returns false after reporting (or when V is an
 * alias, already reported). */
static bool check_checks_list(loader *ld, const node *k, const node *v)
{
	if (v->type == NODE_BAD)
		return false;
	if (sl_is_null(v) || (v->type == NODE_SEQ && v->n_kids == 0)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, sl_is_null(v) ? k : v),
		       "list conditions that fail the run, as in 'checks: [\"timers.p99 > "
		       "100ms\"]', or remove the line; " CHECKS_HINT,
		       "'checks' %s", sl_is_null(v) ? "has no value" : "is empty");
		return false;
	}
	if (v->type != NODE_SEQ) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "write a list, even of one check, as in 'checks: [\"timers.p99 > 100ms\"]' "
		       "or '- timers.p99 > 100ms' on the next line; " CHECKS_HINT,
		       "'checks' must be a list, not %s", sl_type_name(v));
		return false;
	}
	if (v->n_kids > SPEC_MAX_CHECKS) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v->kids[SPEC_MAX_CHECKS]),
		       "a spec has at most 64 checks; keep the ones that matter",
		       "too many checks (%zu)", v->n_kids);
		return false;
	}
	return true;
}

/* Reports check item O, which check_parse rejected with ERR ("column N:
 * message"): at column N when it maps, else at the item. */
static void report_unparsed_check(loader *ld, const node *o, const char *err)
{
	size_t col = strtoul(err + strlen("column "), NULL, 10);
	const char *msg = strstr(err, ": ");
	diag_loc loc;

	msg = msg ? msg + 2 : err;
	if (check_col_loc(ld, o, col, &loc))
		sl_report(ld, DIAG_ERROR, loc, CHECKS_HINT, "invalid check: %s", msg);
	else
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, o), CHECKS_HINT,
		       "invalid check (at column %zu of its text): %s", col, msg);
}

/* Checks O, item I + 1 of 'checks', as a condition: text without NUL
 * that check_parse reads as an absolute check.  Returns false after
 * reporting (or when O is an alias, already reported). */
static bool check_condition(loader *ld, const node *o, size_t i)
{
	char buf[SHOW_BUF], err[512];
	condition *c;

	if (o->type == NODE_BAD)
		return false;
	if (sl_is_null(o) || o->type != NODE_SCALAR) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, o),
		       sl_is_null(o) ? "remove the empty item, or write a condition such as "
				    "'timers.p99 > 100ms'"
				  : "a check is one condition written as text, such as "
				    "'timers.p99 > 100ms'; " CHECKS_HINT,
		       "check %zu %s", i + 1, sl_is_null(o) ? "is empty"
					      : o->type == NODE_SEQ ? "must be a condition, not a list"
								    : "must be a condition, not a mapping");
		return false;
	}
	if (memchr(o->value, '\0', o->len)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, o), "remove the \\0 escape",
		       "check %zu contains a NUL character", i + 1);
		return false;
	}
	c = condition_parse(o->value, err, sizeof(err));
	if (!c) {
		report_unparsed_check(ld, o, err);
		return false;
	}
	if (condition_is_relative(c)) {
		condition_free(c);
		sl_report(ld, DIAG_ERROR,
		       check_loc(ld, o, (size_t)(strpbrk(o->value, "+-") - o->value) + 1),
		       "a spec's checks judge one run: write an absolute value, as in "
		       "'timers.p99 > 100ms'; relative changes compare two reports (a diff); "
		       CHECKS_HINT,
		       "check '%s' is a relative change, which a spec cannot check",
		       sl_show(buf, o->value, o->len));
		return false;
	}
	condition_free(c);
	return true;
}

/* Adds condition O (check_condition passed it) to S's checks, unless it
 * repeats one; when REFS, first checks the probe it reads
 * (check_refs).  S owns the copy.  Returns false when out of memory
 * (reported). */
static bool add_check(loader *ld, spec *s, const node *o, bool refs)
{
	char buf[SHOW_BUF];
	size_t j;

	for (j = 0; j < s->n_checks; j++)
		if (strcmp(s->checks[j], o->value) == 0)
			break;
	if (j < s->n_checks) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, o), "remove one of them",
		       "check '%s' is listed twice", sl_show(buf, o->value, o->len));
		sl_report(ld, DIAG_NOTE, s->check_locs[j], NULL, "it was first listed here");
		return true;
	}
	if (refs)
		check_refs(ld, s, o, o->value);
	s->checks[s->n_checks] = sl_dup_value(o);
	if (!s->checks[s->n_checks])
		return sl_no_memory(ld);
	s->check_locs[s->n_checks++] = sl_node_loc(ld, o);
	return true;
}

/* Checks V, the value of key K ('checks'): a list of conditions, each
 * parsed by check_parse.  Runs after the probes are loaded (PROBES is
 * their list, or NULL), so that checks can be matched with them. */
void sl_check_checks(loader *ld, spec *s, const node *k, const node *v, const node *probes)
{
	bool refs = probe_names_known(s, probes);

	if (!check_checks_list(ld, k, v))
		return;
	s->checks = calloc(v->n_kids, sizeof(*s->checks));
	s->check_locs = calloc(v->n_kids, sizeof(*s->check_locs));
	if (!s->checks || !s->check_locs) {
		sl_no_memory(ld);
		return;
	}
	for (size_t i = 0; i < v->n_kids; i++)
		if (check_condition(ld, v->kids[i], i) && !add_check(ld, s, v->kids[i], refs))
			return;
}

/* The default name: PATH's basename without .yaml or .yml. */
