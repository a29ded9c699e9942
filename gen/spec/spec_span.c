/* spec_span — a span probe's 'points' and 'labels' (spec_internal.h,
 * docs/spec.md#spans).
 *
 * 'points' is a list of mappings {stage, probe, key, label}: the probe
 * points where a span starts (no stage) and where each of its stages
 * ends, in order, consecutive points of one stage being alternatives.
 * Every text that reaches the program passed a grammar here: the probe
 * point its form's, the key and label the value grammar of events
 * (argN, retval, args.FIELD) with an optional whole offset, a label
 * that value too, or func, or str(VALUE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"

static const char *const point_keys[] = { "stage", "probe", "key", "label", NULL };
enum { PT_STAGE, PT_PROBE, PT_KEY, PT_LABEL, N_PT };

#define POINTS_HINT "a point is a mapping such as '{stage: run, probe: \"uprobe:main:work_done\", " \
	"key: arg0}'; see docs/spec.md#spans"
#define KEY_FORMS "a key is argN, retval or args.FIELD, optionally plus or minus a whole " \
	"offset ('arg1 + 88': a member's address from its container's)"

void spec_span_point_free(spec_span_point *pt)
{
	free(pt->stage);
	free(pt->probe);
	free(pt->key_field);
	free(pt->label_field);
	memset(pt, 0, sizeof(*pt));
}

/* Parses "VALUE", "VALUE + N" or "VALUE - N" (spaces optional around
 * the sign, N 0..SPAN_MAX_OFFSET, digits without leading zeros) into PT's
 * key.  Returns false when S is none of them. */
static bool parse_key(const char *s, size_t len, spec_span_point *pt)
{
	size_t v = 0;
	while (v < len && s[v] != ' ' && s[v] != '+' && s[v] != '-')
		v++;
	if (!sl_parse_value(s, v, &pt->key_src, &pt->key_index))
		return false;
	if (pt->key_src == VALUE_FIELD && !(pt->key_field = strndup(s + 5, v - 5)))
		return false;
	size_t i = v;
	while (i < len && s[i] == ' ')
		i++;
	if (i == len)
		return v == len;
	int sign = s[i] == '-' ? -1 : 1;
	if (s[i] != '+' && s[i] != '-')
		return false;
	for (i++; i < len && s[i] == ' '; i++)
		;
	if (i == len || !is_digit(s[i]) || (s[i] == '0' && i + 1 < len))
		return false;
	long n = 0;
	for (; i < len && is_digit(s[i]) && n <= SPAN_MAX_OFFSET; i++)
		n = n * 10 + (s[i] - '0');
	if (i < len || n > SPAN_MAX_OFFSET)
		return false;
	pt->key_offset = sign * n;
	return true;
}

/* Why VALUE (argN, retval or args.FIELD, as SRC and INDEX) cannot be read
 * at a point of type T, or NULL when it can.  ENTRY_ARGS: argN may be read
 * at a return probe (bpfspec reads it at the call's entry). */
static const char *value_misfit(value_source src, int index, point_type t, bool entry_args)
{
	bool ret = t == POINT_URETPROBE || t == POINT_KRETPROBE;
	if (src == VALUE_RETVAL && !ret)
		return "only a uretprobe or kretprobe has a return value";
	if (src == VALUE_FIELD && t != POINT_TRACEPOINT)
		return "only tracepoints have fields";
	if (src == VALUE_ARG && t == POINT_TRACEPOINT)
		return "a tracepoint's values are its fields (args.FIELD)";
	if (src == VALUE_ARG && ret && !entry_args)
		return "a return probe has no arguments";
	if (src == VALUE_ARG && index > 5 && t != POINT_USDT)
		return "bpftrace reads arg0 to arg5 of a uprobe or kprobe";
	return NULL;
}

/* Checks V, the 'probe' of point PT: a point with arguments or a return
 * value. */
static bool check_point_probe(loader *ld, spec_span_point *pt, const node *v, const char *where)
{
	char buf[SHOW_BUF], why[512];

	if (memchr(v->value, '\0', v->len) ||
	    spec_parse_point(v->value, &pt->point, why, sizeof(why)) < 0) {
		if (memchr(v->value, '\0', v->len))
			snprintf(why, sizeof why, "it contains a NUL character");
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), POINT_FORMS,
			  "invalid probe point '%s' %s: %s", sl_show(buf, v->value, v->len), where, why);
		return false;
	}
	if (pt->point == POINT_SOFTWARE || pt->point == POINT_PROFILE ||
	    pt->point == POINT_INTERVAL) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
			  "a span's points are uprobe, uretprobe, usdt, tracepoint, kprobe or "
			  "kretprobe points: they have a key to pair them",
			  "probe point '%s' %s has no values to key a span with",
			  sl_show(buf, v->value, v->len), where);
		return false;
	}
	return (pt->probe = sl_dup_value(v)) != NULL || !sl_no_memory(ld);
}

#define LABEL_FORMS "a label is func (the function a uprobe is on), an integer argN, retval " \
	"or args.FIELD, or str(VALUE), the string VALUE points to (its first 31 bytes)"

/* Checks V, the 'label' of point PT: "func" (a uprobe's function), a
 * value, or "str(VALUE)" (the string the value points to). */
static bool check_point_label(loader *ld, spec_span_point *pt, const node *v, const char *where)
{
	char buf[SHOW_BUF];
	const char *s = v->value;
	size_t len = v->len;
	bool string = len > 5 && memcmp(s, "str(", 4) == 0 && s[len - 1] == ')';

	if (sl_node_is(v, "func")) {
		pt->label = SPAN_LABEL_FUNC;
		return true;
	}
	if (string) {
		s += 4;
		len -= 5;
	}
	if (memchr(v->value, '\0', v->len) ||
	    !sl_parse_value(s, len, &pt->label_src, &pt->label_index)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), LABEL_FORMS, "invalid label '%s' %s",
			  sl_show(buf, v->value, v->len), where);
		return false;
	}
	pt->label = string ? SPAN_LABEL_STRING : SPAN_LABEL_VALUE;
	if (pt->label_src == VALUE_FIELD && !(pt->label_field = strndup(s + 5, len - 5)))
		return sl_no_memory(ld);
	return true;
}

/* Checks one key K and its value V of point PT. */
static bool check_point_entry(loader *ld, spec_span_point *pt, int key, const node *v,
			      const char *where)
{
	char buf[SHOW_BUF];

	switch (key) {
	case PT_STAGE:
		if (!sl_probe_name_ok(v->value, v->len)) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
				  "a stage name is 1-32 characters: a lowercase letter, then "
				  "lowercase letters, digits or '_'",
				  "invalid stage name '%s' %s", sl_show(buf, v->value, v->len), where);
			return false;
		}
		return (pt->stage = sl_dup_value(v)) != NULL || !sl_no_memory(ld);
	case PT_PROBE:
		return check_point_probe(ld, pt, v, where);
	case PT_KEY:
		if (memchr(v->value, '\0', v->len) || !parse_key(v->value, v->len, pt)) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), KEY_FORMS,
				  "invalid key '%s' %s", sl_show(buf, v->value, v->len), where);
			return false;
		}
		return true;
	default:
		return check_point_label(ld, pt, v, where);
	}
}

/* Checks item V (number I + 1) of 'points' into PT: its keys, then that
 * its key and label can be read at its probe point. */
static bool check_point(loader *ld, spec_span_point *pt, const node *v, size_t i,
			const char *where)
{
	const node *seen[N_PT] = { 0 };
	char what[160], name[200];
	bool ok = true;

	if (v->type != NODE_MAP) {
		if (v->type != NODE_BAD)
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), POINTS_HINT,
				  "point %zu %s must be a mapping, not %s", i + 1, where,
				  sl_is_null(v) ? "an empty item" : sl_type_name(v));
		return false;
	}
	pt->loc = sl_node_loc(ld, v);
	snprintf(what, sizeof(what), "in point %zu %s", i + 1, where);
	for (size_t j = 0; j + 1 < v->n_kids; j += 2) {
		const node *k = v->kids[j], *val = v->kids[j + 1];
		int key = sl_check_key(ld, k, point_keys, seen, what);
		snprintf(name, sizeof(name), "'%s' %s", key >= 0 ? point_keys[key] : "?", what);
		if (key < 0 || !sl_want_scalar(ld, k, val, name, "key: arg0", true) ||
		    !check_point_entry(ld, pt, key, val, what))
			ok = false;
	}
	for (int j = PT_PROBE; j <= PT_KEY; j++)
		if (!seen[j]) {
			sl_report(ld, DIAG_ERROR, pt->loc, POINTS_HINT, "point %zu %s has no '%s'",
				  i + 1, where, point_keys[j]);
			ok = false;
		}
	if (!ok)
		return false;
	const char *why = value_misfit(pt->key_src, pt->key_index, pt->point, true);
	const char *hint = KEY_FORMS;
	if (!why && (pt->label == SPAN_LABEL_VALUE || pt->label == SPAN_LABEL_STRING)) {
		why = value_misfit(pt->label_src, pt->label_index, pt->point, false);
		hint = LABEL_FORMS;
	}
	if (!why && pt->label == SPAN_LABEL_FUNC && pt->point != POINT_UPROBE &&
	    pt->point != POINT_URETPROBE)
		why = "'label: func' names the function of a uprobe or uretprobe";
	if (why)
		sl_report(ld, DIAG_ERROR, pt->loc, hint, "point %zu %s: %s", i + 1, where, why);
	return why == NULL;
}

/* Whether stage names A and B (NULL: the start) are the same. */
static bool same_stage(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The order of P's points: the span's start first (points without a
 * stage), then one stage after another, each stage's points together, at
 * least one stage, and the label read at the points of one stage. */
static void check_point_order(loader *ld, const spec_probe *p, const char *where)
{
	const char *label_stage = NULL;
	bool labelled = false;

	for (size_t i = 0; i < p->n_points; i++) {
		const spec_span_point *pt = &p->points[i], *prev = i ? &p->points[i - 1] : NULL;
		const char *fix = NULL, *why = NULL;
		if (!pt->stage && prev && prev->stage) {
			why = "comes after a stage without one";
			fix = "the points that start a span come first, without 'stage'";
		} else if (pt->stage && (!prev || (prev->stage && strcmp(prev->stage, pt->stage)))) {
			for (size_t j = 0; j + 1 < i && !why; j++)
				if (p->points[j].stage && !strcmp(p->points[j].stage, pt->stage))
					why = "repeats a stage that an other stage followed";
			if (!prev)
				why = "has a stage, but no point starts the span";
			fix = "list the points in the order the work passes them; the points of "
			      "one stage (alternatives) stand together";
		} else if (pt->label && labelled && !same_stage(label_stage, pt->stage)) {
			why = "reads the label again";
			fix = "a span's label is read at the points of one stage";
		}
		if (pt->label) {
			labelled = true;
			label_stage = pt->stage;
		}
		if (why)
			sl_report(ld, DIAG_ERROR, pt->loc, fix, "point %zu %s %s", i + 1, where, why);
	}
	if (p->n_points && !p->points[p->n_points - 1].stage)
		sl_report(ld, DIAG_ERROR, p->points[0].loc,
			  "add at least one point with 'stage': where the span's first stage ends",
			  "the points %s start a span but never end it", where);
}

void sl_check_span_points(loader *ld, spec_probe *p, const node *k, const node *v,
			  const char *where)
{
	char hint[256];

	if (v->type == NODE_BAD)
		return;
	if (sl_is_null(v) || v->type != NODE_SEQ || v->n_kids < 2) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, sl_is_null(v) ? k : v), POINTS_HINT,
			  "'points' %s must be a list of at least two points%s", where,
			  v->type == NODE_SEQ ? " (a start and an end)" : "");
		return;
	}
	if (v->n_kids > SPEC_MAX_SPAN_POINTS) {
		snprintf(hint, sizeof(hint), "a span has at most %d points, alternatives included",
			 SPEC_MAX_SPAN_POINTS);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v->kids[SPEC_MAX_SPAN_POINTS]), hint,
			  "too many points (%zu) %s", v->n_kids, where);
		return;
	}
	if (!(p->points = calloc(v->n_kids, sizeof(*p->points)))) {
		sl_no_memory(ld);
		return;
	}
	bool ok = true;
	for (size_t i = 0; i < v->n_kids; i++) {
		spec_span_point *pt = &p->points[p->n_points++];
		if (!check_point(ld, pt, v->kids[i], i, where))
			ok = false;
	}
	if (ok)
		check_point_order(ld, p, where);
}

/* Reads V as a whole number from 1 to MAX, digits only, no leading
 * zero.  Returns it, or 0 when it is not one. */
static unsigned long whole_number(const node *v, unsigned long max)
{
	unsigned long n = 0;
	size_t i;
	for (i = 0; i < v->len && is_digit(v->value[i]) && n <= max; i++)
		n = n * 10 + (unsigned long)(v->value[i] - '0');
	if (i < v->len || v->len == 0 || n > max || v->value[0] == '0')
		return 0;
	return n;
}

void sl_check_span_labels(loader *ld, spec_probe *p, const node *v, const char *where)
{
	char buf[SHOW_BUF], hint[160];
	unsigned long n = whole_number(v, SPEC_MAX_SPAN_LABELS);

	if (n == 0) {
		snprintf(hint, sizeof hint, "write a whole number from 1 to %d, digits only: the "
			 "labels kept apart, the rest counted as \"other\"", SPEC_MAX_SPAN_LABELS);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "invalid labels '%s' %s",
			  sl_show(buf, v->value, v->len), where);
		return;
	}
	p->labels = (unsigned)n;
}

void sl_check_span_open(loader *ld, spec_probe *p, const node *v, const char *where)
{
	char buf[SHOW_BUF], hint[256];
	unsigned long n = whole_number(v, SPEC_MAX_OPEN_SPANS);

	if (n == 0) {
		snprintf(hint, sizeof hint, "write a whole number from 1 to %d, digits only: the "
			 "spans the kernel keeps open at once; a span that falls on a taken slot "
			 "evicts the span there (counted)", SPEC_MAX_OPEN_SPANS);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "invalid open '%s' %s",
			  sl_show(buf, v->value, v->len), where);
		return;
	}
	p->limit = (unsigned)n;
}

void sl_check_span_pool(loader *ld, spec_probe *p, const node *v, const char *where)
{
	char buf[SHOW_BUF];
	if (v->len != 5 || memcmp(v->value, "libuv", 5) != 0) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
			  "write 'pool: libuv' (libuv's thread pool, the one pool bpfspec knows), or "
			  "leave 'pool' out",
			  "unknown pool '%s' %s", sl_show(buf, v->value, v->len), where);
		return;
	}
	p->pool_libuv = true;
	p->pool_loc = sl_node_loc(ld, v);
}

void sl_check_span_stage_key(loader *ld, spec_probe *p, char **out, diag_loc *loc, const node *v,
			     const char *where)
{
	char buf[SHOW_BUF];
	(void)p;
	if (!sl_probe_name_ok(v->value, v->len)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
			  "name one of the span's stages (a 'stage' of its points)",
			  "invalid stage name '%s' %s", sl_show(buf, v->value, v->len), where);
		return;
	}
	*loc = sl_node_loc(ld, v);
	if (!(*out = sl_dup_value(v)))
		sl_no_memory(ld);
}
