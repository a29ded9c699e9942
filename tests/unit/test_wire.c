/* Unit tests for wire.c: the program of every kind prints exactly the
 * maps wire_of() names for it, clears the ones it clears every window
 * and keeps the kept ones (report.c reads them by the same prefixes). */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "gen.h"
#include "resolve.h"
#include "spec.h"
#include "target.h"
#include "wire.h"
#include "helpers.h"

/* One spec per kind, with a probe named "p". */
static const struct {
	probe_kind kind;
	const char *yaml;
} specs[] = {
	{ PROBE_LATENCY, "name: w\nprobes:\n  - name: p\n    kind: latency\n    function: f\n" },
	{ PROBE_SYSCALLS,
	  "name: w\nprobes:\n  - name: p\n    kind: syscalls\n    syscalls: [openat, read]\n" },
	{ PROBE_EVENTS, "name: w\nprobes:\n  - name: p\n    kind: events\n    syscalls: [openat]\n"
			"    threshold: 1ms\n" },
	{ PROBE_COUNT,
	  "name: w\nprobes:\n  - name: p\n    kind: count\n    probe: tracepoint:sched:sched_switch\n" },
	{ PROBE_UTILIZATION, "name: w\nprobes:\n  - name: p\n    kind: utilization\n" },
};

/* The program for spec I, with a trigger (so every window is flushed by
 * bpfspec's own probe) and pid 42.  Owned. */
static program *generate(size_t i)
{
	capture_start();
	spec *s = spec_parse("t/wire.yaml", specs[i].yaml, strlen(specs[i].yaml));
	char *out = capture_end();
	ck_assert_msg(s != NULL, "spec %zu does not parse:\n%s", i, out);
	free(out);
	ck_assert_int_eq(s->probes[0].kind, specs[i].kind);

	static char exe[] = "/usr/bin/x";
	char *objects[] = { exe };
	target t = { .pid = 42, .exe = exe, .objects = objects, .n_objects = 1 };
	uint64_t addrs[] = { 0x1000 };
	resolved_probe rp = { .sp = &s->probes[0], .active = true };
	if (specs[i].kind == PROBE_LATENCY) {
		rp.object = exe;
		rp.addrs = addrs;
		rp.n_addrs = 1;
	}
	resolved r = { .sp = s, .tg = &t, .probes = &rp, .n_probes = 1, .n_active = 1 };
	gen_options o = { .pid = 42, .window_ns = 1000000000ull, .trigger_path = "/usr/bin/b",
			  .trigger_addr = 0x99, .trigger_pid = 7 };
	capture_start();
	program *p = gen_program(&r, &o);
	out = capture_end();
	ck_assert_msg(p != NULL, "gen_program failed for kind %s:\n%s", kind_name(specs[i].kind),
		      out);
	free(out);
	spec_free(s);
	return p;
}

/* Number of NULL-terminated LIST's entries. */
static unsigned list_len(const char *const *list)
{
	unsigned n = 0;
	while (list[n])
		n++;
	return n;
}

START_TEST(test_program_prints_its_wire)
{
	program *p = generate((size_t)_i);
	const wire_kind *w = wire_of(specs[_i].kind);
	const char *name = kind_name(specs[_i].kind);
	char stmt[64];

	/* Each map of the table: printed at the window's flush and at END. */
	for (const char *const *m = w->cleared; *m; m++) {
		snprintf(stmt, sizeof stmt, "\tprint(@%s_p);\n", *m);
		ck_assert_msg(count_of(p->text, stmt) == 2, "%s: '%s' printed %u times, not 2",
			      name, *m, count_of(p->text, stmt));
		snprintf(stmt, sizeof stmt, "\tclear(@%s_p);\n", *m);
		ck_assert_msg(count_of(p->text, stmt) >= 1, "%s: '%s' is never cleared", name, *m);
	}
	for (const char *const *m = w->kept; *m; m++) {
		snprintf(stmt, sizeof stmt, "\tprint(@%s_p);\n", *m);
		ck_assert_msg(count_of(p->text, stmt) == 2, "%s: kept '%s' printed %u times", name,
			      *m, count_of(p->text, stmt));
	}
	/* And nothing else: every print() is one of them. */
	unsigned prints = count_of(p->text, "\tprint(@");
	ck_assert_msg(prints == 2 * (list_len(w->cleared) + list_len(w->kept)),
		      "%s: %u print() statements for %u maps in the wire table:\n%s", name, prints,
		      list_len(w->cleared) + list_len(w->kept), p->text);
	program_free(p);
}
END_TEST

START_TEST(test_every_kind_has_a_table)
{
	for (int k = 0; k < N_PROBE_KINDS; k++) {
		const wire_kind *w = wire_of((probe_kind)k);
		ck_assert_ptr_nonnull(w->cleared);
		ck_assert_ptr_nonnull(w->kept);
		ck_assert_uint_ge(list_len(w->cleared) + list_len(w->kept), 1);
	}
	ck_assert_uint_eq(list_len(wire_of((probe_kind)N_PROBE_KINDS)->cleared), 0);
	ck_assert_uint_eq(sizeof specs / sizeof specs[0], N_PROBE_KINDS);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("wire");
	tcase_add_loop_test(tc, test_program_prints_its_wire, 0, sizeof specs / sizeof specs[0]);
	tcase_add_test(tc, test_every_kind_has_a_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
