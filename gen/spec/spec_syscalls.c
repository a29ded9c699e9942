/* spec_syscalls — a probe's 'syscalls' list (spec_internal.h).
 *
 * sl_check_syscalls reads the value of a probe's 'syscalls' key into the
 * probe: the syscall numbers of this machine's architecture (util/systab.h),
 * in the order listed and without repeats, or all_syscalls for the plain
 * word all where the probe's kind takes it.  Every fault is reported
 * through the loader (an unknown name with the known one it is closest
 * to, when one is close); the probe owns the list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"
#include "util/suggest.h"
#include "util/systab.h"

/* Where the syscall tables of this machine can be read. */
#define SYSCALL_LISTS "`ausyscall --dump` or `bpftrace -l 'tracepoint:syscalls:sys_enter_*'` " \
	"lists them"

/* The syscall closest to NAME (at most SYSCALL_GUESS_DISTANCE edits), or NULL. */
static const char *syscall_guess(const char *name)
{
	size_t best = SYSCALL_GUESS_DISTANCE + 1;
	const char *guess = NULL;

	for (size_t i = 0; i < systab_n_syscalls; i++) {
		size_t d = suggest_distance_str(name, systab_syscalls[i].name);
		if (d < best) {
			best = d;
			guess = systab_syscalls[i].name;
		}
	}
	return guess;
}

/* Checks item O of a 'syscalls' list in a probe with RULES.  Returns the
 * syscall's number, or -1 after reporting. */
static int check_syscall_name(loader *ld, const node *o, const spec_kind_rules *rules,
			      const char *where)
{
	char buf[SHOW_BUF], hint[256], lower[SYSCALL_NAME_MAX + 1];
	const char *guess, *sys;
	int nr;

	if (!sl_syscall_name_ok(o->value, o->len)) {
		const char *h = "a syscall name is lowercase letters, digits and '_', as in "
				"'openat' (at most 64 characters)";
		if (o->len <= SYSCALL_NAME_MAX && !memchr(o->value, '\0', o->len)) {
			for (size_t i = 0; i <= o->len; i++)
				lower[i] = is_upper(o->value[i]) ? (char)(o->value[i] - 'A' + 'a')
								 : o->value[i];
			if (systab_syscall_nr(lower) >= 0) {
				snprintf(hint, sizeof(hint),
					 "did you mean '%s'? syscall names are lowercase", lower);
				h = hint;
			}
		}
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, o), h, "invalid syscall name '%s' %s",
		       sl_show(buf, o->value, o->len), where);
		return -1;
	}
	nr = systab_syscall_nr(o->value);
	if (nr >= 0)
		return nr;

	if (strcmp(o->value, "all") == 0) {
		if (!rules->all_syscalls)
			snprintf(hint, sizeof(hint),
				 "%s %s probe needs named syscalls; list the ones to %s, e.g. '%s'",
				 kind_shape_of(rules->kind)->article, kind_name(rules->kind),
				 rules->syscalls_verb, rules->syscalls_example);
		else
			snprintf(hint, sizeof(hint),
				 "to measure every syscall, write 'syscalls: all', with no brackets "
				 "or quotes");
	} else if ((sys = strstr(o->value, "sys_")) && systab_syscall_nr(sys + 4) >= 0) {
		snprintf(hint, sizeof(hint),
			 "did you mean '%s'? give the syscall's name without the '%.*s' prefix",
			 sys + 4, (int)(sys + 4 - o->value), o->value);
	} else if ((guess = syscall_guess(o->value))) {
		snprintf(hint, sizeof(hint), "did you mean '%s'? " SYSCALL_LISTS, guess);
	} else {
		snprintf(hint, sizeof(hint), "check the spelling; " SYSCALL_LISTS);
	}
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, o), hint, "unknown syscall '%s' on this architecture",
	       o->value);
	return -1;
}

/* The node to read as the 'syscalls' list V: the plain word all for
 * [all] (as a list parameter set to "all" becomes); for a --set value of
 * one name (for a parameter whose default is all), ONE, made a list of
 * that one (its item stored in ONLY, both the caller's); else V. */
static const node *syscalls_list_of(const node *v, node *one, node **only)
{
	if (v->type == NODE_SEQ && v->n_kids == 1 && v->kids[0]->plain && sl_node_is(v->kids[0], "all"))
		return v->kids[0];
	if (v->type == NODE_SCALAR && v->src && !sl_node_is(v, "all") && !sl_is_null(v)) {
		only[0] = (node *)v;
		*one = (node){ .type = NODE_SEQ, .n_kids = 1, .kids = only, .start = v->start,
			       .end = v->end, .src = v->src };
		return one;
	}
	return v;
}

/* 'syscalls: all' (V) in probe P, whose kind has RULES: sets P's
 * all_syscalls where the kind takes it, else reports it. */
static void check_all_syscalls(loader *ld, spec_probe *p, const spec_kind_rules *rules,
			       const node *v, const char *where)
{
	char hint[256];

	if (!rules->all_syscalls) {
		snprintf(hint, sizeof(hint),
			 "list the syscalls to %s, as in '%s' (at most %zu); to measure "
			 "every syscall, use a probe with 'kind: syscalls'",
			 rules->syscalls_verb, rules->syscalls_example, rules->max_syscalls);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint,
			  "'syscalls: all' %s: %s %s probe needs named syscalls", where,
			  kind_shape_of(rules->kind)->article, kind_name(rules->kind));
		return;
	}
	p->all_syscalls = true;
	p->syscalls_loc = sl_node_loc(ld, v);
}

/* Reports V, a 'syscalls' value that is no list (nor the plain word all),
 * in a probe whose kind has RULES. */
static void report_syscalls_not_list(loader *ld, const spec_kind_rules *rules, const node *v,
				     const char *where)
{
	const char *every = rules->all_syscalls ? "; 'syscalls: all' measures every syscall" : "";
	char hint[256];

	if (v->type == NODE_SCALAR && sl_node_is(v, "all") && rules->all_syscalls)
		snprintf(hint, sizeof(hint),
			 "write all without quotes to measure every syscall, or a list as "
			 "in '%s'", rules->syscalls_example);
	else
		snprintf(hint, sizeof(hint), "write a list, even of one syscall, as in "
			 "'syscalls: [openat]'%s", every);
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "'syscalls' %s must be a list, not %s",
	       where, sl_type_name(v));
}

/* Reports the list V, longer than RULES->max_syscalls. */
static void report_too_many_syscalls(loader *ld, const spec_kind_rules *rules, const node *v,
				     const char *where)
{
	size_t max = rules->max_syscalls;
	char hint[256];

	if (!rules->all_syscalls)
		snprintf(hint, sizeof(hint),
			 "%s %s probe names at most %zu syscalls; %s the few that matter, "
			 "and measure the rest with a syscalls probe",
			 kind_shape_of(rules->kind)->article, kind_name(rules->kind), max,
			 rules->syscalls_verb);
	else
		snprintf(hint, sizeof(hint),
			 "a probe names at most %zu syscalls; write 'syscalls: all' to measure "
			 "every syscall", max);
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v->kids[max]), hint,
	       "too many syscalls (%zu) %s", v->n_kids, where);
}

/* Reads the items of the list V (at most SPEC_MAX_SYSCALLS) into
 * P->syscalls (allocated for V's items): each a known syscall, listed
 * once; the others are reported and left out. */
static void read_syscall_items(loader *ld, spec_probe *p, const spec_kind_rules *rules,
			       const node *v, const char *where)
{
	const node *first[SPEC_MAX_SYSCALLS];
	char hint[256];

	for (size_t i = 0; i < v->n_kids; i++) {
		const node *o = v->kids[i];
		size_t j;
		int nr;

		if (o->type == NODE_BAD)
			continue;
		if (sl_is_null(o) || o->type != NODE_SCALAR) {
			snprintf(hint, sizeof(hint), "%s, as in '%s'",
				 sl_is_null(o) ? "remove the empty item, or write a syscall name"
					    : "list syscall names separated by commas",
				 rules->syscalls_example);
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, o), hint, "syscall %zu %s %s", i + 1,
			       where, sl_is_null(o) ? "is empty" : o->type == NODE_SEQ
							      ? "must be a name, not a list"
							      : "must be a name, not a mapping");
			continue;
		}
		nr = check_syscall_name(ld, o, rules, where);
		if (nr < 0)
			continue;
		for (j = 0; j < p->n_syscalls; j++)
			if (p->syscalls[j] == nr)
				break;
		if (j < p->n_syscalls) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, o), "remove one of them",
			       "syscall '%s' is listed twice %s", o->value, where);
			sl_report(ld, DIAG_NOTE, sl_node_loc(ld, first[j]), NULL,
			       "'%s' was first listed here", first[j]->value);
			continue;
		}
		first[p->n_syscalls] = o;
		p->syscalls[p->n_syscalls++] = nr;
	}
}

/* Checks the value V of key K ('syscalls') of probe P, whose kind has
 * RULES: a list of syscall names, or (where the kind allows) the plain
 * word all.  WHERE is "in probe 'x'". */
void sl_check_syscalls(loader *ld, spec_probe *p, const spec_kind_rules *rules, const node *k,
		       const node *v, const char *where)
{
	node one, *only[1];
	char hint[256];

	if (v->type == NODE_BAD)
		return;
	if (sl_is_null(v) || (v->type == NODE_SEQ && v->n_kids == 0)) {
		snprintf(hint, sizeof(hint), "list the syscalls to %s, as in '%s'%s",
			 rules->syscalls_verb, rules->syscalls_example,
			 rules->all_syscalls ? ", or write 'syscalls: all'" : "");
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, sl_is_null(v) ? k : v), hint,
		       "'syscalls' %s %s", where, sl_is_null(v) ? "has no value" : "is empty");
		return;
	}
	v = syscalls_list_of(v, &one, only);
	if (v->type == NODE_SCALAR && v->plain && sl_node_is(v, "all")) {
		check_all_syscalls(ld, p, rules, v, where);
		return;
	}
	if (v->type != NODE_SEQ) {
		report_syscalls_not_list(ld, rules, v, where);
		return;
	}
	if (v->n_kids > rules->max_syscalls) {
		report_too_many_syscalls(ld, rules, v, where);
		return;
	}
	p->syscalls = calloc(v->n_kids, sizeof(*p->syscalls));
	if (!p->syscalls) {
		sl_no_memory(ld);
		return;
	}
	read_syscall_items(ld, p, rules, v, where);
	p->syscalls_loc = sl_node_loc(ld, v);
}
