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

/* Parses an argument's value: "argN" (N 0..11, no leading zero), "retval",
 * "args.FIELD" (FIELD [a-z_][a-z0-9_]{0,63}).  Returns true and fills A. */
static bool parse_arg_value(const char *s, size_t len, spec_arg *a)
{
	if (len == 6 && memcmp(s, "retval", 6) == 0) {
		a->src = VALUE_RETVAL;
		return true;
	}
	if (len >= 4 && len <= 5 && memcmp(s, "arg", 3) == 0 && is_digit(s[3]) &&
	    (len == 4 || (s[3] != '0' && is_digit(s[4])))) {
		a->src = VALUE_ARG;
		a->index = len == 4 ? s[3] - '0' : (s[3] - '0') * 10 + (s[4] - '0');
		return a->index <= 11;
	}
	if (len > 5 && len <= 5 + POINT_WORD_MAX && memcmp(s, "args.", 5) == 0 &&
	    !is_digit(s[5])) {
		for (size_t i = 5; i < len; i++)
			if (!is_lower(s[i]) && !is_digit(s[i]) && s[i] != '_')
				return false;
		a->src = VALUE_FIELD;
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
	if (memchr(val->value, '\0', val->len) || !parse_arg_value(val->value, val->len, a)) {
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

static void check_probe(loader *ld, spec *s, const node *map, size_t index)
{
	spec_probe *p = &s->probes[s->n_probes++];
	const node *seen[N_PROBE] = { 0 };
	bool optional_ok = true;
	int kind = sl_probe_kind_in(map);
	/* Until the kind is known, a 'syscalls' list is read as a syscalls
	 * probe's. */
	const spec_kind_rules *rules = sl_kind_rules(kind >= 0 ? (probe_kind)kind : PROBE_SYSCALLS);
	char label[64], where[80], suffix[88], what[128], buf[SHOW_BUF], hint[512];

	p->unit = UNIT_US;
	p->per_thread = true;
	if (kind >= 0)
		p->limit = rules->default_limit;
	sl_probe_label(map, index, label, sizeof(label));
	snprintf(where, sizeof(where), "in %s", label);

	for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
		const node *k = map->kids[i], *v = map->kids[i + 1];
		int key = sl_check_key(ld, k, sl_probe_keys, seen, where);
		if (key < 0)
			continue;
		/* Keys of other kinds: reported once the kind is known. */
		if (kind >= 0 && !(rules->keys & KEY(key))) {
			sl_report_misplaced_key(ld, k, key, (probe_kind)kind, where);
			continue;
		}
		if (key == P_SYSCALLS) {
			sl_check_syscalls(ld, p, rules, k, v, where);
			continue;
		}
		if (key == P_ARGS) {
			check_args(ld, p, k, v, where);
			continue;
		}
		snprintf(what, sizeof(what), "'%s' in %s", sl_probe_keys[key], label);
		if (!sl_want_scalar(ld, k, v, what, sl_probe_examples[key],
				 key == P_NAME || key == P_KIND || key == P_FUNCTION ||
				 key == P_PROBE)) {
			if (key == P_OPTIONAL)
				optional_ok = false;
			continue;
		}
		switch (key) {
		case P_NAME:
			sl_check_probe_name(ld, s, p, v);
			break;
		case P_KIND:
			if (kind >= 0) {
				p->kind = (probe_kind)kind;
				p->kind_loc = sl_node_loc(ld, v);
				break;
			}
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
			       sl_choices_hint(hint, sizeof(hint), v->value, "kinds", kind_names),
			       "unknown probe kind '%s' %s", sl_show(buf, v->value, v->len), where);
			break;
		case P_FUNCTION:
			if (sl_function_ok(v->value, v->len) || sl_cxx_function_ok(v->value, v->len)) {
				p->function = sl_dup_value(v);
				if (!p->function)
					sl_no_memory(ld);
				p->function_loc = sl_node_loc(ld, v);
				break;
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
			break;
		case P_PROBE:
			sl_check_point(ld, p, v, where);
			break;
		case P_OBJECT:
			snprintf(what, sizeof(what), " %s", where);
			if (sl_check_object(ld, v, what, &p->object))
				p->object_loc = sl_node_loc(ld, v);
			break;
		case P_OPTIONAL:
			optional_ok = sl_check_bool(ld, k, v, what, sl_probe_examples[key], &p->optional);
			break;
		case P_MISSING_REASON:
			sl_check_prose(ld, k, v, what, sl_probe_examples[key], REASON_MAX, &p->missing_reason);
			break;
		case P_THRESHOLD:
			snprintf(suffix, sizeof(suffix), " %s", where);
			sl_check_duration_value(ld, k, v, &sl_duration_threshold, what, suffix,
					     sl_probe_examples[key], &p->threshold_ns);
			break;
		case P_LIMIT:
			sl_check_limit(ld, v, where, &p->limit);
			break;
		case P_UNIT: {
			size_t u;
			for (u = 0; u <= UNIT_AUTO; u++)
				if (sl_node_is(v, unit_names[u]))
					break;
			if (u <= UNIT_AUTO) {
				p->unit = (time_unit)u;
				break;
			}
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
			       sl_choices_hint(hint, sizeof(hint), v->value, "units", unit_names),
			       "unknown unit '%s' %s", sl_show(buf, v->value, v->len), where);
			break;
		}
		case P_PER_THREAD:
			sl_check_bool(ld, k, v, what, sl_probe_examples[key], &p->per_thread);
			break;
		case P_ATTRIBUTE:
			if (sl_check_bool(ld, k, v, what, sl_probe_examples[key], &p->attribute))
				p->attribute_loc = sl_node_loc(ld, v);
			break;
		case P_DESCRIPTION:
			sl_check_prose(ld, k, v, what, sl_probe_examples[key], DESCRIPTION_MAX,
				   &p->description);
			break;
		case P_DERIVED:
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
				       "unknown derived phase '%s' %s", sl_show(buf, v->value, v->len),
				       where);
			break;
		}
	}

	if (!seen[P_NAME])
		sl_report(ld, DIAG_ERROR, sl_map_loc(ld, map),
		       "add e.g. 'name: timers' (a lowercase letter, then lowercase letters, "
		       "digits or '_')",
		       "%s has no 'name'", label);
	if (!seen[P_KIND])
		sl_report(ld, DIAG_ERROR, sl_map_loc(ld, map),
			  sl_missing_kind_hint(hint, sizeof hint, seen), "%s has no 'kind'", label);
	if (kind >= 0 && rules->required && !seen[rules->required])
		sl_report(ld, DIAG_ERROR, sl_map_loc(ld, map), rules->required_hint,
			  "%s has no '%s'", label, sl_probe_keys[rules->required]);
	if (kind >= 0 && rules->check)
		rules->check(ld, p, map, seen, label, where);
	if (seen[P_DERIVED] && !p->optional && optional_ok)
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, seen[P_DERIVED]),
		       "a derived phase stands in for a function that may be missing; add "
		       "'optional: true'",
		       "'derived' %s needs 'optional: true'", where);
	if (seen[P_MISSING_REASON] && !p->optional && optional_ok &&
	    (kind < 0 || (rules->keys & KEY(P_MISSING_REASON))))
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, seen[P_MISSING_REASON]),
		       "missing_reason explains why an optional probe may be absent; add "
		       "'optional: true' or remove missing_reason",
		       "'missing_reason' %s needs 'optional: true'", where);
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
