/* spec_args — events on a probe point: 'args' (spec_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"

/* ---- events on a probe point: 'args' ---- */

static const char *const arg_keys[] = { "name", "value", "type", NULL };
static const char *const arg_type_names[] = { "int", "uint", "string", NULL };
#define ARG_HINT "an argument is a mapping such as '{name: line, value: retval, type: string}'; " \
	"see docs/spec.md#event-arguments"
#define VALUE_FORMS "a value is argN (N from 0 to 11), retval or args.FIELD"

/* Parses a value: "argN" (N 0..11, no leading zero), "retval",
 * "args.FIELD" (FIELD [a-z_][a-z0-9_]{0,63}).  Returns true and sets
 * *SRC (and *INDEX for argN). */
bool sl_parse_value(const char *s, size_t len, value_source *src, int *index)
{
	if (len == 6 && memcmp(s, "retval", 6) == 0) {
		*src = VALUE_RETVAL;
		return true;
	}
	if (len >= 4 && len <= 5 && memcmp(s, "arg", 3) == 0 && is_digit(s[3]) &&
	    (len == 4 || (s[3] != '0' && is_digit(s[4])))) {
		*src = VALUE_ARG;
		*index = len == 4 ? s[3] - '0' : (s[3] - '0') * 10 + (s[4] - '0');
		return *index <= 11;
	}
	if (len > 5 && len <= 5 + POINT_WORD_MAX && memcmp(s, "args.", 5) == 0 &&
	    !is_digit(s[5])) {
		for (size_t i = 5; i < len; i++)
			if (!is_lower(s[i]) && !is_digit(s[i]) && s[i] != '_')
				return false;
		*src = VALUE_FIELD;
		return true;
	}
	return false;
}

/* Checks VAL, the 'name' of an argument of probe P: a valid name, unlike
 * those of P's arguments before it.  Returns false after reporting. */
static bool check_arg_name(loader *ld, const spec_probe *p, const node *val, const char *where)
{
	char buf[SHOW_BUF];
	bool ok = true;

	if (!sl_probe_name_ok(val->value, val->len)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, val),
		       "an argument name is 1-32 characters: a lowercase letter, then "
		       "lowercase letters, digits or '_'",
		       "invalid argument name '%s' %s", sl_show(buf, val->value, val->len),
		       where);
		return false;
	}
	for (size_t o = 0; o < p->n_args; o++)
		if (strcmp(p->args[o].name, val->value) == 0) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, val),
			       "argument names must be unique in a probe; rename one",
			       "duplicate argument name '%s' %s", val->value, where);
			ok = false;
		}
	return ok;
}

/* Checks VAL, the 'value' of argument A: one of VALUE_FORMS, parsed into
 * A (its source and index; not the field's name, which the caller
 * copies).  Returns false after reporting. */
static bool check_arg_value(loader *ld, spec_arg *a, const node *val, const char *where)
{
	char buf[SHOW_BUF];

	a->value_loc = sl_node_loc(ld, val);
	if (memchr(val->value, '\0', val->len) || !sl_parse_value(val->value, val->len, &a->src, &a->index)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, val),
		       VALUE_FORMS "; no expressions",
		       "invalid argument value '%s' %s", sl_show(buf, val->value, val->len),
		       where);
		return false;
	}
	return true;
}

/* Checks VAL, the 'type' of argument A: one of arg_type_names, set in A.
 * Returns false after reporting. */
static bool check_arg_type(loader *ld, spec_arg *a, const node *val, const char *where)
{
	char buf[SHOW_BUF], hint[256];
	size_t t;

	for (t = 0; arg_type_names[t]; t++)
		if (sl_node_is(val, arg_type_names[t]))
			break;
	if (arg_type_names[t]) {
		a->type = (arg_type)t;
		return true;
	}
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, val),
	       sl_choices_hint(hint, sizeof(hint), val->value, "types", arg_type_names),
	       "unknown argument type '%s' %s", sl_show(buf, val->value, val->len), where);
	return false;
}

/* Checks item V (number I + 1) of a probe's 'args' into A.  Returns true
 * when it is complete and valid.  A's strings are A's (spec_arg_free). */
static bool check_arg(loader *ld, spec_probe *p, spec_arg *a, const node *v, size_t i,
		      const char *where)
{
	const node *seen[3] = { 0 };
	char hint[256], what[128];
	bool ok = true;

	if (v->type == NODE_BAD)
		return false;
	if (v->type != NODE_MAP) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), ARG_HINT,
		       "argument %zu %s must be a mapping, not %s", i + 1, where,
		       sl_is_null(v) ? "an empty item" : sl_type_name(v));
		return false;
	}
	a->loc = sl_node_loc(ld, v);
	snprintf(what, sizeof(what), "in argument %zu %s", i + 1, where);
	for (size_t j = 0; j + 1 < v->n_kids; j += 2) {
		const node *k = v->kids[j], *val = v->kids[j + 1];
		int key = sl_check_key(ld, k, arg_keys, seen, what);
		if (key < 0) {
			ok = false;
			continue;
		}
		snprintf(hint, sizeof(hint), "'%s' %s", arg_keys[key], what);
		if (!sl_want_scalar(ld, k, val, hint, "name: line", true)) {
			ok = false;
			continue;
		}
		if (key == 0) {
			if (!check_arg_name(ld, p, val, where))
				ok = false;
			else if (ok && !(a->name = sl_dup_value(val)))
				return sl_no_memory(ld);
		} else if (key == 1) {
			if (!check_arg_value(ld, a, val, where))
				ok = false;
			else if (a->src == VALUE_FIELD && !(a->field = strdup(val->value + 5)))
				return sl_no_memory(ld);
		} else if (!check_arg_type(ld, a, val, where)) {
			ok = false;
		}
	}
	for (size_t j = 0; j < 2; j++)
		if (!seen[j]) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), ARG_HINT, "argument %zu %s has no '%s'",
			       i + 1, where, arg_keys[j]);
			ok = false;
		}
	return ok;
}

void spec_arg_free(spec_arg *a)
{
	free(a->name);
	free(a->field);
	memset(a, 0, sizeof(*a));
}

/* Checks V, the 'args' of events probe P: a list of at most
 * SPEC_MAX_EVENT_ARGS arguments. */
static void check_args(loader *ld, spec_probe *p, const node *k, const node *v, const char *where)
{
	char hint[256];

	if (v->type == NODE_BAD)
		return;
	if (sl_is_null(v) || v->type != NODE_SEQ || v->n_kids == 0) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, sl_is_null(v) ? k : v), ARG_HINT,
		       "'args' %s must be a list of arguments%s", where,
		       sl_is_null(v) || v->type == NODE_SEQ ? " (it is empty)" : "");
		return;
	}
	if (v->n_kids > SPEC_MAX_EVENT_ARGS) {
		snprintf(hint, sizeof(hint), "an event records at most %d arguments; keep the ones "
			 "that tell the story", SPEC_MAX_EVENT_ARGS);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v->kids[SPEC_MAX_EVENT_ARGS]), hint,
		       "too many arguments (%zu) %s", v->n_kids, where);
		return;
	}
	p->args = calloc(v->n_kids, sizeof(*p->args));
	if (!p->args) {
		sl_no_memory(ld);
		return;
	}
	for (size_t i = 0; i < v->n_kids; i++) {
		spec_arg *a = &p->args[p->n_args];
		if (check_arg(ld, p, a, v->kids[i], i, where))
			p->n_args++;
		else
			spec_arg_free(a);
	}
}

/* Events on a probe point: the point is one that has arguments, and each
 * argument's value is one that point has. */
void sl_check_point_events(loader *ld, const spec_probe *p, const char *where)
{
	const spec_arg *string = NULL;
	bool ret = p->point == POINT_URETPROBE || p->point == POINT_KRETPROBE;

	if (p->point == POINT_SOFTWARE || p->point == POINT_PROFILE || p->point == POINT_INTERVAL) {
		sl_report(ld, DIAG_ERROR, p->probe_loc,
		       "events record hits of uprobe, uretprobe, usdt, tracepoint, kprobe or "
		       "kretprobe points; count software, profile and interval points with "
		       "'kind: count'",
		       "probe point '%s' %s cannot record events", p->probe, where);
		return;
	}
	for (size_t i = 0; i < p->n_args; i++) {
		const spec_arg *a = &p->args[i];
		const char *why = NULL, *fix = NULL;
		if (a->src == VALUE_RETVAL && !ret) {
			why = "only a uretprobe or kretprobe has a return value";
			fix = "read arguments (argN) here, or record the return value with a "
			      "'uretprobe:' point";
		} else if (a->src == VALUE_ARG && ret) {
			why = "a return probe has no arguments";
			fix = "record 'retval' here, or the arguments with a 'uprobe:' point";
		} else if (a->src == VALUE_ARG && p->point == POINT_TRACEPOINT) {
			why = "a tracepoint's values are its fields";
			fix = "write args.FIELD; the format file under "
			      "/sys/kernel/tracing/events/CATEGORY/NAME/ lists the fields";
		} else if (a->src == VALUE_FIELD && p->point != POINT_TRACEPOINT) {
			why = "only tracepoints have fields";
			fix = "write argN (uprobe, usdt, kprobe) or retval (uretprobe, kretprobe)";
		} else if (a->src == VALUE_ARG && a->index > 5 && p->point != POINT_USDT) {
			why = "bpftrace reads arg0 to arg5 of a uprobe or kprobe";
			fix = "use an argument from arg0 to arg5";
		}
		if (why) {
			sl_report(ld, DIAG_ERROR, a->value_loc, fix,
			       "argument '%s' %s: %s", a->name, where, why);
			continue;
		}
		if (a->type == ARG_STRING && string) {
			sl_report(ld, DIAG_ERROR, a->loc,
			       "an event records at most one string (it ends the record); record "
			       "the other as a number, or use a second probe",
			       "argument '%s' %s is a second string", a->name, where);
			sl_report(ld, DIAG_NOTE, string->loc, NULL, "the first string is '%s'",
			       string->name);
			continue;
		}
		if (a->type == ARG_STRING)
			string = a;
	}
}

bool spec_is_point_events(const spec_probe *p)
{
	return kind_shape_of(p->kind)->events && p->probe != NULL;
}

/* One probe's mapping being checked (check_probe): what its keys' checks
 * share.  P is S's probe being filled; LD, S and RULES are borrowed. */
typedef struct probe_check {
	loader *ld;
	spec *s;
	spec_probe *p;
	int kind;			/* the kind the mapping names, or -1 */
	/* KIND's rules; until the kind is known, a 'syscalls' list is read
	 * as a syscalls probe's. */
	const spec_kind_rules *rules;
	const node *seen[N_PROBE];	/* each key's node, or NULL */
	bool optional_ok;		/* 'optional' was not reported invalid */
	char label[64];			/* "probe 'x'" or "probe N" */
	char where[80];			/* "in probe 'x'" */
} probe_check;

/* Checks V, the 'kind' of probe P: KIND, the kind it names
 * (sl_probe_kind_in), is set in P; -1 is reported. */
static void check_kind_value(loader *ld, spec_probe *p, int kind, const node *v,
			     const char *where)
{
	char buf[SHOW_BUF], hint[512];

	if (kind >= 0) {
		p->kind = (probe_kind)kind;
		p->kind_loc = sl_node_loc(ld, v);
		return;
	}
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
	       sl_choices_hint(hint, sizeof(hint), v->value, "kinds", kind_names),
	       "unknown probe kind '%s' %s", sl_show(buf, v->value, v->len), where);
}

/* Checks V, the 'function' of probe P: a symbol or a C++ name, copied
 * into P (P owns it), else reported with a hint for what it looks like. */
static void check_function(loader *ld, spec_probe *p, const node *v, const char *where)
{
	char buf[SHOW_BUF];

	if (sl_function_ok(v->value, v->len) || sl_cxx_function_ok(v->value, v->len)) {
		p->function = sl_dup_value(v);
		if (!p->function)
			sl_no_memory(ld);
		p->function_loc = sl_node_loc(ld, v);
		return;
	}
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
	       strpbrk(v->value, "<>")
		       ? "templates are not supported: give the mangled name (as `nm FILE` "
			 "prints it, or `bpfspec symbols` lists it)"
		       : strstr(v->value, "::")
		       ? "a C++ name is identifiers joined by '::' (ns::Class::method), "
			 "without parameters; or give the mangled name as `nm FILE` prints it"
		       : "a function is a symbol name: a letter or '_', then letters, "
			 "digits, '_', '.' or '$' (at most 256 characters)",
	       "invalid function name '%s' %s", sl_show(buf, v->value, v->len), where);
}

/* Checks V, the 'unit' of probe P: one of unit_names, set in P, else
 * reported. */
static void check_unit(loader *ld, spec_probe *p, const node *v, const char *where)
{
	char buf[SHOW_BUF], hint[512];
	size_t u;

	for (u = 0; u <= UNIT_AUTO; u++)
		if (sl_node_is(v, unit_names[u]))
			break;
	if (u <= UNIT_AUTO) {
		p->unit = (time_unit)u;
		return;
	}
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
	       sl_choices_hint(hint, sizeof(hint), v->value, "units", unit_names),
	       "unknown unit '%s' %s", sl_show(buf, v->value, v->len), where);
}

/* Checks V, the 'derived' of probe P: libuv-pending or libuv-closing,
 * set in P, else reported.  P's derived_loc is V's either way. */
static void check_derived(loader *ld, spec_probe *p, const node *v, const char *where)
{
	char buf[SHOW_BUF];

	p->derived_loc = sl_node_loc(ld, v);
	if (sl_node_is(v, "libuv-pending"))
		p->derived = DERIVED_LIBUV_PENDING;
	else if (sl_node_is(v, "libuv-closing"))
		p->derived = DERIVED_LIBUV_CLOSING;
	else
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "derived is libuv-pending or libuv-closing: the libuv phase "
		       "the missing function runs, timed between the phases around "
		       "it in the loop order of the target's libuv",
		       "unknown derived phase '%s' %s", sl_show(buf, v->value, v->len), where);
}

/* Checks V, the single value of key K (index KEY, neither 'syscalls'
 * nor 'args'), into the probe: each key's value is checked and stored
 * by its own rule.  WHAT names the key as sl_want_scalar does. */
static void check_probe_scalar(probe_check *pc, int key, const node *k, const node *v,
			       const char *what)
{
	loader *ld = pc->ld;
	spec_probe *p = pc->p;
	const char *example = sl_probe_examples[key];
	char suffix[88];

	switch (key) {
	case P_NAME:
		sl_check_probe_name(ld, pc->s, p, v);
		break;
	case P_KIND:
		check_kind_value(ld, p, pc->kind, v, pc->where);
		break;
	case P_FUNCTION:
		check_function(ld, p, v, pc->where);
		break;
	case P_PROBE:
		sl_check_point(ld, p, v, pc->where);
		break;
	case P_OBJECT:
		snprintf(suffix, sizeof(suffix), " %s", pc->where);
		if (sl_check_object(ld, v, suffix, &p->object))
			p->object_loc = sl_node_loc(ld, v);
		break;
	case P_OPTIONAL:
		pc->optional_ok = sl_check_bool(ld, k, v, what, example, &p->optional);
		break;
	case P_MISSING_REASON:
		sl_check_prose(ld, k, v, what, example, REASON_MAX, &p->missing_reason);
		break;
	case P_THRESHOLD:
		snprintf(suffix, sizeof(suffix), " %s", pc->where);
		sl_check_duration_value(ld, k, v, &sl_duration_threshold, what, suffix, example,
					&p->threshold_ns);
		break;
	case P_LIMIT:
		sl_check_limit(ld, v, pc->where, &p->limit);
		break;
	case P_UNIT:
		check_unit(ld, p, v, pc->where);
		break;
	case P_PER_THREAD:
		sl_check_bool(ld, k, v, what, example, &p->per_thread);
		break;
	case P_ATTRIBUTE:
		if (sl_check_bool(ld, k, v, what, example, &p->attribute))
			p->attribute_loc = sl_node_loc(ld, v);
		break;
	case P_DESCRIPTION:
		sl_check_prose(ld, k, v, what, example, DESCRIPTION_MAX, &p->description);
		break;
	case P_DERIVED:
		check_derived(ld, p, v, pc->where);
		break;
	case P_LABELS:
		sl_check_span_labels(ld, p, v, pc->where);
		break;
	case P_OPEN:
		sl_check_span_open(ld, p, v, pc->where);
		break;
	case P_WAIT:
	case P_WORKERS:
		sl_check_span_stage_key(ld, p, key == P_WAIT ? &p->wait : &p->workers,
					key == P_WAIT ? &p->wait_loc : &p->workers_loc, v, pc->where);
		break;
	case P_POOL:
		sl_check_span_pool(ld, p, v, pc->where);
		break;
	}
}

/* Checks key K and its value V, an entry of the probe's mapping: a known
 * key, once, that the probe's kind takes, with a value of the key's
 * form. */
static void check_probe_entry(probe_check *pc, const node *k, const node *v)
{
	char what[128];
	int key = sl_check_key(pc->ld, k, sl_probe_keys, pc->seen, pc->where);

	if (key < 0)
		return;
	/* Keys of other kinds: reported once the kind is known. */
	if (pc->kind >= 0 && !(pc->rules->keys & KEY(key))) {
		sl_report_misplaced_key(pc->ld, k, key, (probe_kind)pc->kind, pc->where);
		return;
	}
	if (key == P_SYSCALLS) {
		sl_check_syscalls(pc->ld, pc->p, pc->rules, k, v, pc->where);
		return;
	}
	if (key == P_ARGS) {
		check_args(pc->ld, pc->p, k, v, pc->where);
		return;
	}
	if (key == P_POINTS) {
		sl_check_span_points(pc->ld, pc->p, k, v, pc->where);
		return;
	}
	snprintf(what, sizeof(what), "'%s' in %s", sl_probe_keys[key], pc->label);
	if (!sl_want_scalar(pc->ld, k, v, what, sl_probe_examples[key],
			    key == P_NAME || key == P_KIND || key == P_FUNCTION || key == P_PROBE)) {
		if (key == P_OPTIONAL)
			pc->optional_ok = false;
		return;
	}
	check_probe_scalar(pc, key, k, v, what);
}

/* Once every key of the probe's mapping MAP is read: the keys every
 * probe and its kind require, the kind's rules between keys, and the
 * keys that need 'optional: true'. */
static void check_probe_whole(probe_check *pc, const node *map)
{
	loader *ld = pc->ld;
	const spec_probe *p = pc->p;
	const spec_kind_rules *rules = pc->rules;
	char hint[512];

	if (!pc->seen[P_NAME])
		sl_report(ld, DIAG_ERROR, sl_map_loc(ld, map),
		       "add e.g. 'name: timers' (a lowercase letter, then lowercase letters, "
		       "digits or '_')",
		       "%s has no 'name'", pc->label);
	if (!pc->seen[P_KIND])
		sl_report(ld, DIAG_ERROR, sl_map_loc(ld, map),
			  sl_missing_kind_hint(hint, sizeof hint, pc->seen), "%s has no 'kind'",
			  pc->label);
	if (pc->kind >= 0 && rules->required && !pc->seen[rules->required])
		sl_report(ld, DIAG_ERROR, sl_map_loc(ld, map), rules->required_hint,
			  "%s has no '%s'", pc->label, sl_probe_keys[rules->required]);
	if (pc->kind >= 0 && rules->check)
		rules->check(ld, pc->p, map, pc->seen, pc->label, pc->where);
	if (pc->seen[P_DERIVED] && !p->optional && pc->optional_ok)
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, pc->seen[P_DERIVED]),
		       "a derived phase stands in for a function that may be missing; add "
		       "'optional: true'",
		       "'derived' %s needs 'optional: true'", pc->where);
	if (pc->seen[P_MISSING_REASON] && !p->optional && pc->optional_ok &&
	    (pc->kind < 0 || (rules->keys & KEY(P_MISSING_REASON))))
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, pc->seen[P_MISSING_REASON]),
		       "missing_reason explains why an optional probe may be absent; add "
		       "'optional: true' or remove missing_reason",
		       "'missing_reason' %s needs 'optional: true'", pc->where);
}

/* Checks MAP, item INDEX of 'probes', into the next probe of S (S owns
 * it, valid or not: spec_free frees what was read). */
static void check_probe(loader *ld, spec *s, const node *map, size_t index)
{
	probe_check pc = {
		.ld = ld,
		.s = s,
		.p = &s->probes[s->n_probes++],
		.kind = sl_probe_kind_in(map),
		.optional_ok = true,
	};

	pc.rules = sl_kind_rules(pc.kind >= 0 ? (probe_kind)pc.kind : PROBE_SYSCALLS);
	pc.p->unit = UNIT_US;
	pc.p->per_thread = true;
	if (pc.kind >= 0)
		pc.p->limit = pc.rules->default_limit;
	sl_probe_label(map, index, pc.label, sizeof(pc.label));
	snprintf(pc.where, sizeof(pc.where), "in %s", pc.label);
	for (size_t i = 0; i + 1 < map->n_kids; i += 2)
		check_probe_entry(&pc, map->kids[i], map->kids[i + 1]);
	check_probe_whole(&pc, map);
}

void sl_check_probes(loader *ld, spec *s, const node *k, const node *v)
{
	size_t n;

	if (v->type == NODE_BAD)
		return;
	if (sl_is_null(v) || (v->type == NODE_SEQ && v->n_kids == 0)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, sl_is_null(v) ? k : v),
		       "list at least one probe under 'probes:', e.g. '- name: timers' with "
		       "its 'kind' and 'function' below it",
		       "'probes' is empty");
		return;
	}
	if (v->type != NODE_SEQ) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "write a list of probes, each item starting with '- ', e.g. "
		       "'- name: timers'",
		       "'probes' must be a list, not %s", sl_type_name(v));
		return;
	}
	n = v->n_kids;
	if (n > SPEC_MAX_PROBES) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v->kids[SPEC_MAX_PROBES]),
		       "a spec has at most 64 probes; split it into several specs",
		       "too many probes (%zu)", n);
		n = SPEC_MAX_PROBES;
	}
	s->probes = calloc(n, sizeof(*s->probes));
	if (!s->probes) {
		sl_no_memory(ld);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const node *item = v->kids[i];
		if (item->type == NODE_BAD)
			continue;
		if (sl_is_null(item)) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, item),
			       "remove the empty item, or give the probe its 'name', 'kind' and "
			       "'function'",
			       "probe %zu is empty", i + 1);
			continue;
		}
		if (item->type != NODE_MAP) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, item),
			       "a probe is a mapping of 'key: value' lines, e.g. '- name: timers' "
			       "followed by 'kind: latency' and 'function: ...' indented below it",
			       "probe %zu must be a mapping, not %s", i + 1, sl_type_name(item));
			continue;
		}
		check_probe(ld, s, item, i);
	}
}
