/* Unit tests for spec and diag: good specs (every field, defaults, YAML
 * spellings), the duration grammar, each class of error with its wording
 * and location, the diagnostic format itself, spec_load on files that
 * cannot be specs, and robustness on truncated and mangled input.
 * Run under valgrind (CK_FORK=no) to check that nothing leaks. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "spec/spec.h"
#include "spec/spec_internal.h"
#include "util/diag.h"
#include "util/systab.h"

/* Parses TEXT as "t/test.yaml"; *OUT gets the diagnostics (owned). */
static spec *parse(const char *text, char **out)
{
	spec *s;

	capture_start();
	s = spec_parse("t/test.yaml", text, strlen(text));
	*out = capture_end();
	return s;
}

/* TEXT must fail to load; returns the diagnostics (owned). */
static char *parse_fail(const char *text)
{
	char *out;
	spec *s = parse(text, &out);

	ck_assert_msg(s == NULL, "expected a failure for:\n%s", text);
	ck_assert_msg(diag_error_count() > 0, "no error counted for:\n%s", text);
	ck_assert_contains(out, "error: ");
	return out;
}

#define PROBE_OK "probes:\n  - name: timers\n    kind: latency\n    function: f\n"
/* The start of a syscalls probe and of an events probe (3 lines each). */
#define SYS "probes:\n  - name: io\n    kind: syscalls\n"
#define EV "probes:\n  - name: slow\n    kind: events\n"

/* ---- good specs ---------------------------------------------------- */

static const char full_spec[] =
	"# comment\n"
	"name: libuv-phases   # trailing comment\n"
	"description: Time in each libuv phase, per loop thread\n"
	"objects: [main, \"libuv.so*\"]\n"
	"duration: 1.5s\n"
	"probes:\n"
	"  - name: timers\n"
	"    kind: latency\n"
	"    function: uv__run_timers\n"
	"    object: main\n"
	"    optional: true\n"
	"    missing_reason: static in libuv's core.c; inlined\n"
	"    unit: ms\n"
	"    per_thread: false\n"
	"    description: Running timers\n"
	"  - name: poll\n"
	"    kind: latency\n"
	"    function: _ZN4node5Realm$x.1\n";

START_TEST(test_full)
{
	char *out;
	spec *s = parse(full_spec, &out);

	ck_assert_msg(s != NULL, "unexpected failure:\n%s", out);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(s->path, "t/test.yaml");
	ck_assert_str_eq(s->name, "libuv-phases");
	ck_assert_str_eq(s->description, "Time in each libuv phase, per loop thread");
	ck_assert_uint_eq(s->n_objects, 2);
	ck_assert_str_eq(s->objects[0], "main");
	ck_assert_str_eq(s->objects[1], "libuv.so*");
	ck_assert_uint_eq(s->duration_ns, 1500000000ULL);
	ck_assert_uint_eq(s->n_probes, 2);

	spec_probe *p = &s->probes[0];
	ck_assert_str_eq(p->name, "timers");
	ck_assert_uint_eq(p->name_loc.line, 7);
	ck_assert_uint_eq(p->name_loc.col, 11);
	ck_assert_uint_eq(p->name_loc.span, 6);
	ck_assert_int_eq(p->kind, PROBE_LATENCY);
	ck_assert_uint_eq(p->kind_loc.line, 8);
	ck_assert_str_eq(p->function, "uv__run_timers");
	ck_assert_uint_eq(p->function_loc.line, 9);
	ck_assert_uint_eq(p->function_loc.col, 15);
	ck_assert_uint_eq(p->function_loc.span, 14);
	ck_assert_str_eq(p->object, "main");
	ck_assert_uint_eq(p->object_loc.line, 10);
	ck_assert(p->optional);
	ck_assert_str_eq(p->missing_reason, "static in libuv's core.c; inlined");
	ck_assert_int_eq(p->unit, UNIT_MS);
	ck_assert(!p->per_thread);
	ck_assert_str_eq(p->description, "Running timers");

	p = &s->probes[1];
	ck_assert_str_eq(p->name, "poll");
	ck_assert_str_eq(p->function, "_ZN4node5Realm$x.1");

	/* The spec keeps its text for later diagnostics. */
	ck_assert_uint_eq(s->src.len, strlen(full_spec));
	ck_assert_mem_eq(s->src.text, full_spec, s->src.len);
	ck_assert_str_eq(s->src.path, "t/test.yaml");
	spec_free(s);
	free(out);
}
END_TEST

START_TEST(test_defaults)
{
	char *out;
	spec *s;

	capture_start();
	s = spec_parse("some/dir/my-spec.v2.yaml", PROBE_OK, strlen(PROBE_OK));
	out = capture_end();
	ck_assert_msg(s != NULL, "unexpected failure:\n%s", out);
	ck_assert_str_eq(s->name, "my-spec.v2");
	ck_assert_ptr_null(s->description);
	ck_assert_uint_eq(s->n_objects, 1);
	ck_assert_str_eq(s->objects[0], "main");
	ck_assert_uint_eq(s->duration_ns, 0);
	ck_assert_uint_eq(s->n_probes, 1);
	ck_assert_ptr_null(s->probes[0].object);
	ck_assert_ptr_null(s->probes[0].missing_reason);
	ck_assert_ptr_null(s->probes[0].description);
	ck_assert(!s->probes[0].optional);
	ck_assert(s->probes[0].per_thread);
	ck_assert_int_eq(s->probes[0].unit, UNIT_US);
	ck_assert_uint_eq(s->n_checks, 0);
	ck_assert_ptr_null(s->checks);
	ck_assert_ptr_null(s->check_locs);
	spec_free(s);
	free(out);

	capture_start();
	s = spec_parse("x.yml", PROBE_OK, strlen(PROBE_OK));
	out = capture_end();
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "x");
	spec_free(s);
	free(out);

	/* A file name that cannot be a spec name needs a 'name:'. */
	capture_start();
	s = spec_parse("My Spec.yaml", PROBE_OK, strlen(PROBE_OK));
	out = capture_end();
	ck_assert_ptr_null(s);
	ck_assert_contains(out, "bpfspec: My Spec.yaml: error: the file name does not make a valid spec name ('My Spec')");
	ck_assert_contains(out, "hint: add a 'name:' line");
	free(out);

	capture_start();
	s = spec_parse("My Spec.yaml", "name: ok\n" PROBE_OK, strlen("name: ok\n" PROBE_OK));
	out = capture_end();
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "ok");
	spec_free(s);
	free(out);
}
END_TEST

/* Different YAML spellings of the same spec. */
START_TEST(test_spellings)
{
	static const char *const texts[] = {
		/* flow style, quoted strings */
		"{\"name\": 'x', probes: [{name: \"timers\", kind: 'latency', function: f, unit: \"ms\"}]}",
		/* explicit document markers */
		"---\nname: x\n" PROBE_OK "    unit: ms\n...\n",
		/* CRLF line ends and a UTF-8 byte order mark */
		"\xef\xbb\xbfname: x\r\nprobes:\r\n  - name: timers\r\n    kind: latency\r\n"
		"    function: f\r\n    unit: ms\r\n",
		/* indentless sequence, comments everywhere */
		"name: x # c\nprobes: # c\n- name: timers # c\n  kind: latency\n  function: f\n"
		"  unit: ms\n# end\n",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *out;
		spec *s = parse(texts[i], &out);
		ck_assert_msg(s != NULL, "case %zu failed:\n%s", i, out);
		ck_assert_str_eq(s->name, "x");
		ck_assert_uint_eq(s->n_probes, 1);
		ck_assert_str_eq(s->probes[0].name, "timers");
		ck_assert_str_eq(s->probes[0].function, "f");
		ck_assert_int_eq(s->probes[0].unit, UNIT_MS);
		spec_free(s);
		free(out);
	}
}
END_TEST

START_TEST(test_text_fields)
{
	char *out;
	spec *s;

	/* Folded blocks and multi-line plain scalars fold into one line;
	 * trailing line breaks are dropped. */
	s = parse("description: >\n  one\n  two\n" PROBE_OK "    description: a\n      b\n", &out);
	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_str_eq(s->description, "one two");
	ck_assert_str_eq(s->probes[0].description, "a b");
	spec_free(s);
	free(out);

	/* UTF-8 text is fine in descriptions. */
	s = parse("description: \"caf\xc3\xa9 \xe2\x86\x92 ok\"\n" PROBE_OK, &out);
	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_str_eq(s->description, "caf\xc3\xa9 \xe2\x86\x92 ok");
	spec_free(s);
	free(out);

	/* Exactly at the limits. */
	char big[1200];
	memset(big, 'a', 1000);
	big[1000] = '\0';
	char *text;
	ck_assert_int_ge(asprintf(&text, "description: %s\n" PROBE_OK "    optional: true\n"
				  "    missing_reason: %.200s\n", big, big), 0);
	s = parse(text, &out);
	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_uint_eq(strlen(s->description), 1000);
	ck_assert_uint_eq(strlen(s->probes[0].missing_reason), 200);
	spec_free(s);
	free(out);
	free(text);

	ck_assert_int_ge(asprintf(&text, "description: %sb\n" PROBE_OK, big), 0);
	out = parse_fail(text);
	ck_assert_contains(out, "error: 'description' is too long (1001 bytes)");
	free(out);
	free(text);
}
END_TEST

START_TEST(test_names_and_limits)
{
	char *out, *text;
	spec *s;
	size_t o = 0;

	/* 64 probes load; names of 32 characters and functions of 256 too. */
	text = malloc(64 * 400 + 64);
	o += (size_t)sprintf(text, "name: a%063d\nprobes:\n", 0);
	for (int i = 0; i < 64; i++)
		o += (size_t)sprintf(text + o, "  - {name: p%031d, kind: latency, function: f%0255d}\n", i, i);
	s = parse(text, &out);
	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_uint_eq(s->n_probes, 64);
	ck_assert_uint_eq(strlen(s->name), 64);
	ck_assert_uint_eq(strlen(s->probes[63].name), 32);
	ck_assert_uint_eq(strlen(s->probes[63].function), 256);
	spec_free(s);
	free(out);

	/* One more probe is too many. */
	sprintf(text + o, "  - {name: extra, kind: latency, function: f}\n");
	out = parse_fail(text);
	ck_assert_contains(out, "error: too many probes (65)");
	ck_assert_contains(out, ":67:5: ");
	free(out);
	free(text);
}
END_TEST

/* ---- syscalls and events probes ----------------------------------- */

static const char syscalls_spec[] =
	"name: sys\n"
	"probes:\n"
	"  - name: io\n"
	"    kind: syscalls\n"
	"    syscalls: [openat, read, write, close]\n"
	"    unit: ms\n"
	"    per_thread: false\n"
	"    description: File I/O\n"
	"  - name: slow_opens\n"
	"    threshold: 1.5ms\n"	/* before the kind: still an events key */
	"    kind: events\n"
	"    syscalls:\n"
	"      - connect\n"
	"      - \"openat\"\n"
	"    limit: 200\n"
	"  - name: every\n"
	"    kind: syscalls\n"
	"    syscalls: all\n"
	"  - {name: ev, kind: \"events\", syscalls: [read]}\n"
	"  - {name: ev2, kind: events, syscalls: [write], threshold: \"0\", limit: \"100000\"}\n"
	"  - {name: ev3, kind: events, syscalls: [write], limit: 1}\n"
	"  - {name: lat, kind: latency, function: f}\n";

/* The syscall's number on this architecture, which must have it. */
static int nr_of(const char *name)
{
	int nr = systab_syscall_nr(name);

	ck_assert_msg(nr >= 0, "no syscall '%s' on this architecture", name);
	return nr;
}

START_TEST(test_syscall_probes)
{
	char *out;
	spec *s = parse(syscalls_spec, &out);
	spec_probe *p;

	ck_assert_msg(s != NULL, "unexpected failure:\n%s", out);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(s->n_probes, 7);

	p = &s->probes[0];
	ck_assert_int_eq(p->kind, PROBE_SYSCALLS);
	ck_assert_uint_eq(p->kind_loc.line, 4);
	ck_assert_uint_eq(p->n_syscalls, 4);
	ck_assert_int_eq(p->syscalls[0], nr_of("openat"));
	ck_assert_int_eq(p->syscalls[1], nr_of("read"));
	ck_assert_int_eq(p->syscalls[2], nr_of("write"));
	ck_assert_int_eq(p->syscalls[3], nr_of("close"));
	ck_assert(!p->all_syscalls);
	ck_assert_uint_eq(p->syscalls_loc.line, 5);
	ck_assert_uint_eq(p->syscalls_loc.col, 15);
	ck_assert_uint_eq(p->syscalls_loc.span, 28);
	ck_assert_ptr_null(p->function);
	ck_assert_ptr_null(p->object);
	ck_assert(!p->optional);
	ck_assert_int_eq(p->unit, UNIT_MS);
	ck_assert(!p->per_thread);
	ck_assert_str_eq(p->description, "File I/O");
	ck_assert_uint_eq(p->threshold_ns, 0);

	p = &s->probes[1];
	ck_assert_str_eq(p->name, "slow_opens");
	ck_assert_int_eq(p->kind, PROBE_EVENTS);
	ck_assert_uint_eq(p->n_syscalls, 2);
	ck_assert_int_eq(p->syscalls[0], nr_of("connect"));
	ck_assert_int_eq(p->syscalls[1], nr_of("openat"));
	ck_assert_uint_eq(p->syscalls_loc.line, 13);
	ck_assert_uint_eq(p->syscalls_loc.col, 7);
	ck_assert_uint_eq(p->threshold_ns, 1500000);
	ck_assert_uint_eq(p->limit, 200);
	ck_assert_int_eq(p->unit, UNIT_US);
	ck_assert(p->per_thread);

	p = &s->probes[2];
	ck_assert_int_eq(p->kind, PROBE_SYSCALLS);
	ck_assert(p->all_syscalls);
	ck_assert_uint_eq(p->n_syscalls, 0);
	ck_assert_uint_eq(p->syscalls_loc.line, 18);
	ck_assert_uint_eq(p->syscalls_loc.col, 15);
	ck_assert_uint_eq(p->syscalls_loc.span, 3);

	/* Defaults of an events probe. */
	p = &s->probes[3];
	ck_assert_int_eq(p->kind, PROBE_EVENTS);
	ck_assert_uint_eq(p->threshold_ns, 0);
	ck_assert_uint_eq(p->limit, SPEC_DEFAULT_EVENT_LIMIT);
	ck_assert_uint_eq(p->n_syscalls, 1);
	ck_assert_int_eq(p->syscalls[0], nr_of("read"));

	/* Quoted values read like plain ones; the limits' edges. */
	ck_assert_uint_eq(s->probes[4].threshold_ns, 0);
	ck_assert_uint_eq(s->probes[4].limit, SPEC_MAX_EVENT_LIMIT);
	ck_assert_uint_eq(s->probes[5].limit, 1);

	/* A latency probe has none of it. */
	p = &s->probes[6];
	ck_assert_int_eq(p->kind, PROBE_LATENCY);
	ck_assert_ptr_null(p->syscalls);
	ck_assert_uint_eq(p->n_syscalls, 0);
	ck_assert(!p->all_syscalls);
	ck_assert_uint_eq(p->limit, 0);
	spec_free(s);
	free(out);
}
END_TEST

/* Lists of the most syscalls a probe may name, and one more. */
START_TEST(test_syscall_limits)
{
	static const struct { const char *kind; size_t max; const char *hint; } kinds[] = {
		{ "syscalls", SPEC_MAX_SYSCALLS, "hint: a probe names at most 64 syscalls; write 'syscalls: all' to measure every syscall\n" },
		{ "events", 16, "hint: an events probe names at most 16 syscalls; record the few that matter" },
	};

	ck_assert_uint_ge(systab_n_syscalls, SPEC_MAX_SYSCALLS + 1);
	for (size_t k = 0; k < 2; k++) {
		char *text = malloc(64 + (SPEC_MAX_SYSCALLS + 1) * 40), *out;
		size_t o = (size_t)sprintf(text, "probes:\n  - name: p\n    kind: %s\n    syscalls:\n",
					   kinds[k].kind);
		spec *s;

		for (size_t i = 0; i < kinds[k].max; i++)
			o += (size_t)sprintf(text + o, "      - %s\n", systab_syscalls[i].name);
		s = parse(text, &out);
		ck_assert_msg(s != NULL, "%s: %s", kinds[k].kind, out);
		ck_assert_uint_eq(s->probes[0].n_syscalls, kinds[k].max);
		for (size_t i = 0; i < kinds[k].max; i++)
			ck_assert_int_eq(s->probes[0].syscalls[i], systab_syscalls[i].nr);
		spec_free(s);
		free(out);

		sprintf(text + o, "      - %s\n", systab_syscalls[kinds[k].max].name);
		out = parse_fail(text);
		char want[64];
		snprintf(want, sizeof(want), ":%zu:9: error: too many syscalls (%zu) in probe 'p'",
			 kinds[k].max + 5, kinds[k].max + 1);
		ck_assert_contains(out, want);
		ck_assert_contains(out, kinds[k].hint);
		ck_assert_uint_eq(count_of(out, ": error: "), 1);
		free(out);
		free(text);
	}
}
END_TEST

/* What a probe's kind decides: which keys are misplaced and which are
 * required; with no valid kind, only the kind is reported. */
START_TEST(test_kind_rules)
{
	static const struct { const char *text; const char *absent; } cases[] = {
		/* no 'function' needed for the new kinds */
		{ SYS "    syscalls: [read]\n    unit: ms\n    optional: true\n", "has no 'function'" },
		{ EV "    syscalls: [read]\n    optional: true\n", "has no 'function'" },
		/* a misplaced missing_reason is one error, not two */
		{ EV "    syscalls: [read]\n    missing_reason: x\n", "needs 'optional: true'" },
		/* an unknown or missing kind: neither 'function' nor 'syscalls' is required */
		{ "probes:\n  - name: t\n    kind: sycalls\n    syscalls: [read]\n", "has no" },
		{ "probes:\n  - name: t\n    kind: latancy\n", "has no 'function'" },
		{ "probes:\n  - name: t\n    syscalls: [read]\n", "has no 'syscalls'" },
		{ "probes:\n  - {kind: x}\n", "has no 'function'" },
		/* nor are keys of other kinds reported */
		{ "probes:\n  - name: t\n    kind: sycalls\n    syscalls: all\n    function: f\n    limit: 5\n",
		  "does not apply" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = parse_fail(cases[i].text);
		ck_assert_msg(strstr(out, cases[i].absent) == NULL,
			      "case %zu: unexpected \"%s\" in:\n%s", i, cases[i].absent, out);
		ck_assert_msg(count_of(out, ": error: ") == (i == 6 ? 2 : 1), "case %zu:\n%s", i, out);
		free(out);
	}

	/* An unknown kind still has its values checked. */
	char *out = parse_fail("probes:\n  - name: t\n    kind: sycalls\n    syscalls: [opneat]\n"
			       "    limit: 0\n");
	ck_assert_contains(out, "unknown probe kind 'sycalls'");
	ck_assert_contains(out, "did you mean 'syscalls'?");
	ck_assert_contains(out, "unknown syscall 'opneat'");
	ck_assert_contains(out, "'limit' in probe 't' must be at least 1");
	free(out);
}
END_TEST

/* ---- durations ----------------------------------------------------- */

START_TEST(test_durations)
{
	static const struct { const char *text; int rc; uint64_t ns; } cases[] = {
		{ "0", 0, 0 },
		{ "0s", 0, 0 },
		{ "250ms", 0, 250000000ULL },
		{ "10s", 0, 10000000000ULL },
		{ "1.5s", 0, 1500000000ULL },
		{ "2m", 0, 120000000000ULL },
		{ "100us", 0, 100000ULL },
		{ "7ns", 0, 7 },
		{ "1.5h", 0, 5400000000000ULL },
		{ "0.000000001s", 0, 1 },
		{ "1.25000us", 0, 1250 },
		{ "24h", 0, 86400000000000ULL },
		{ "1440m", 0, 86400000000000ULL },
		{ "86400s", 0, 86400000000000ULL },
		{ "007s", 0, 7000000000ULL },
		{ "24.000h", 0, 86400000000000ULL },
		{ "86400000000000ns", 0, 86400000000000ULL },
		{ "24.0000001h", -1, 0 },	/* above a day */
		{ "86400000000001ns", -1, 0 },
		{ "25h", -1, 0 },
		{ "99999h", -1, 0 },
		{ "99999999999999999999999999s", -1, 0 },
		{ "", -1, 0 },
		{ "10", -1, 0 },		/* no unit */
		{ "10 s", -1, 0 },
		{ "10 sec", -1, 0 },
		{ "10sec", -1, 0 },
		{ " 10s", -1, 0 },
		{ "10s ", -1, 0 },
		{ "-1s", -1, 0 },
		{ "+1s", -1, 0 },
		{ "1e9s", -1, 0 },
		{ "1.s", -1, 0 },
		{ ".5s", -1, 0 },
		{ "1.5.2s", -1, 0 },
		{ "1.5ns", -1, 0 },	/* not a whole nanosecond */
		{ "10S", -1, 0 },
		{ "10Ms", -1, 0 },
		{ "s", -1, 0 },
		{ "0x10s", -1, 0 },
		{ "1d", -1, 0 },
		{ "1.0000000000000000001s", -1, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ns = 12345;
		int rc = spec_parse_duration(cases[i].text, &ns);
		ck_assert_msg(rc == cases[i].rc, "'%s': rc %d, want %d", cases[i].text, rc,
			      cases[i].rc);
		if (rc == 0)
			ck_assert_msg(ns == cases[i].ns, "'%s': %llu ns, want %llu", cases[i].text,
				      (unsigned long long)ns, (unsigned long long)cases[i].ns);
		else
			ck_assert_uint_eq(ns, 12345);	/* untouched on failure */
	}
	ck_assert_int_eq(spec_parse_duration(NULL, NULL), -1);
}
END_TEST

START_TEST(test_names_of_enums)
{
	ck_assert_str_eq(unit_name(UNIT_NS), "ns");
	ck_assert_str_eq(unit_name(UNIT_US), "us");
	ck_assert_str_eq(unit_name(UNIT_MS), "ms");
	ck_assert_str_eq(unit_name(UNIT_S), "s");
	ck_assert_uint_eq(unit_ns(UNIT_NS), 1);
	ck_assert_uint_eq(unit_ns(UNIT_US), 1000);
	ck_assert_uint_eq(unit_ns(UNIT_MS), 1000000);
	ck_assert_uint_eq(unit_ns(UNIT_S), 1000000000);
	ck_assert_str_eq(unit_name(UNIT_AUTO), "auto");
	ck_assert_str_eq(spec_kind_name(PROBE_LATENCY), "latency");
	ck_assert_str_eq(spec_kind_name(PROBE_SYSCALLS), "syscalls");
	ck_assert_str_eq(spec_kind_name(PROBE_EVENTS), "events");
	ck_assert_str_eq(spec_kind_name(PROBE_COUNT), "count");
	ck_assert_str_eq(spec_kind_name(PROBE_SPAN), "span");
	ck_assert_str_eq(spec_kind_name(PROBE_HTTP), "http");
	ck_assert_str_eq(spec_kind_name((probe_kind)N_PROBE_KINDS), "?");
	spec_free(NULL);
}
END_TEST

/* ---- errors -------------------------------------------------------- */

/* Each case: a spec and what its diagnostics must contain (up to 3). */
static const struct {
	const char *text;
	const char *want[3];
} bad[] = {
	/* unknown keys, with a suggestion */
	{ PROBE_OK "    fucntion: g\n",
	  { "t/test.yaml:5:5: error: unknown key 'fucntion' in probe 'timers'\n"
	    "    5 |     fucntion: g\n"
	    "      |     ^~~~~~~~\n",
	    "hint: did you mean 'function'? valid keys are: name, kind, function, object, "
	    "optional, missing_reason, syscalls, probe, threshold, limit, unit, per_thread, "
	    "description, args, derived, attribute, points, labels, open, wait, workers, pool\n" } },
	{ "probe:\n  - a\n",
	  { ":1:1: error: unknown key 'probe' at the top level",
	    "did you mean 'probes'? valid keys are: name, description, objects, duration, probes",
	    "error: the spec has no 'probes'" } },
	{ PROBE_OK "    zzzzzzzz: 1\n", { "unknown key 'zzzzzzzz'", "hint: valid keys are: name," } },
	/* spans */
#define SPAN_HEAD "probes:\n  - name: job\n    kind: span\n"
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n",
	  { ":5:7: error: 'points' in probe 'job' must be a list of at least two points (a start and an end)" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {probe: \"uprobe:main:b\", key: arg0}\n",
	  { "error: the points in probe 'job' start a span but never end it" } },
	{ SPAN_HEAD "    points:\n      - {stage: run, probe: \"uprobe:main:a\", key: arg0}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { ":5:9: error: point 1 in probe 'job' has a stage, but no point starts the span" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0 * 2}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { ":5:39: error: invalid key 'arg0 * 2' in point 1 in probe 'job'", "optionally plus or minus a whole offset" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: retval}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { "point 1 in probe 'job': only a uretprobe or kretprobe has a return value" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"tracepoint:sched:sched_switch\", key: arg0}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { "a tracepoint's values are its fields (args.FIELD)" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"profile:hz:99\", key: arg0}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { "probe point 'profile:hz:99' in point 1 in probe 'job' has no values to key a span with" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: run, probe: \"uprobe:main:b\", key: arg0}\n"
		    "      - {stage: done, probe: \"uprobe:main:c\", key: arg0}\n      - {stage: run, probe: \"uprobe:main:d\", key: arg0}\n",
	  { "point 4 in probe 'job' repeats a stage that an other stage followed" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: total, probe: \"uprobe:main:b\", key: arg0}\n",
	  { "point 2 in probe 'job': a stage cannot be named 'total'" } },
	{ SPAN_HEAD "    open: 5000\n    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { ":4:11: error: invalid open '5000' in probe 'job'" } },
	{ SPAN_HEAD "    labels: 4\n    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { "'labels' in probe 'job', but no point reads a label" } },
	{ SPAN_HEAD "    wait: queued\n    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { "'wait' in probe 'job' names no stage of its points: 'queued'", "'wait' in probe 'job' needs 'workers'" } },
	{ SPAN_HEAD "    pool: glibc\n    workers: end\n    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { ":4:11: error: unknown pool 'glibc' in probe 'job'", "write 'pool: libuv'" } },
	{ SPAN_HEAD "    pool: libuv\n    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { ":4:11: error: 'pool' in probe 'job' needs 'workers'" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: end, probe: \"kprobe:x\", key: arg0, label: func}\n",
	  { "'label: func' names the function of a uprobe" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0, label: str(arg1}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { ":5:52: error: invalid label 'str(arg1' in point 1 in probe 'job'",
	    "hint: a label is func (the function a uprobe is on), an integer argN, retval or args.FIELD, or str(VALUE), the string VALUE points to (its first 31 bytes)\n" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0, label: 'str(arg1, 64)'}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { ":5:52: error: invalid label 'str(arg1, 64)' in point 1 in probe 'job'" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0, label: str(func)}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { "invalid label 'str(func)' in point 1 in probe 'job'" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0, label: str()}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { "invalid label 'str()' in point 1 in probe 'job'" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0, label: str(retval)}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { ":5:9: error: point 1 in probe 'job': only a uretprobe or kretprobe has a return value",
	    "hint: a label is func" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: end, probe: \"tracepoint:sched:sched_switch\", key: args.prev_pid, label: str(arg1)}\n",
	  { "point 2 in probe 'job': a tracepoint's values are its fields (args.FIELD)" } },
	{ SPAN_HEAD "    points:\n      - {probe: \"uprobe:main:a\", key: arg0, label: str(arg1)}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0, label: func}\n",
	  { "point 2 in probe 'job' reads the label again" } },
	{ SPAN_HEAD "    function: f\n    points:\n      - {probe: \"uprobe:main:a\", key: arg0}\n      - {stage: end, probe: \"uprobe:main:b\", key: arg0}\n",
	  { "'function' in probe 'job' does not apply to a span probe" } },
#undef SPAN_HEAD
	/* wrong types */
	{ "objects: main\n" PROBE_OK, { ":1:10: error: 'objects' must be a list, not a single value" } },
	{ "probes: {name: x}\n", { ":1:9: error: 'probes' must be a list, not a mapping" } },
	{ "probes:\n  - timers\n", { ":2:5: error: probe 1 must be a mapping, not a single value" } },
	{ PROBE_OK "    unit: [ms]\n", { ":5:11: error: 'unit' in probe 'timers' must be a single value, not a list" } },
	{ "name: {a: b}\n" PROBE_OK, { "'name' must be a single value, not a mapping" } },
	{ "objects: [[main]]\n" PROBE_OK, { "object 1 must be a single value, not a list" } },
	{ "- name: x\n", { ":1:1: error: a spec must be a mapping of keys, not a list" } },
	{ "just text\n", { "error: a spec must be a mapping of keys, not a single value" } },
	{ "[a]: 1\n" PROBE_OK, { "a key at the top level must be a word, not a list" } },
	/* missing fields point at the probe's first key */
	{ "probes:\n  - name: timers\n    kind: latency\n",
	  { ":2:5: error: probe 'timers' has no 'function'", "hint: add the function" } },
	{ "probes:\n  - kind: latency\n    function: f\n", { ":2:5: error: probe 1 has no 'name'" } },
	/* without a kind, what else is required is unknown (see test_kind_rules) */
	{ "probes:\n  - {}\n", { ":2:5: error: probe 1 has no 'name'", "probe 1 has no 'kind'",
				"hint: add 'kind: latency' (time a function), 'kind: syscalls' (latency and errors per syscall), 'kind: events' (a record per slow call, or per hit of a probe point), 'kind: count' (hits of a probe point), 'kind: utilization' (busy and idle time of the loop threads), 'kind: span' (work from one probe point to others, across threads) or 'kind: http' (HTTP/1.x requests per route)\n" } },
	{ "probes:\n  - name: t\n    function: f\n", { "probe 't' has no 'kind'", "hint: add 'kind: latency' (time a function)\n" } },
	{ "probes:\n  - name: t\n    syscalls: [read]\n", { "probe 't' has no 'kind'", "hint: add 'kind: syscalls' (latency and errors per syscall) or 'kind: events'" } },
	{ "name: x\n", { ":1:1: error: the spec has no 'probes'" } },
	/* empty values */
	{ PROBE_OK "    unit:\n", { ":5:5: error: 'unit' in probe 'timers' has no value", "or remove the line" } },
	{ "probes:\n  - name: timers\n    kind: latency\n    function: ~\n",
	  { "'function' in probe 'timers' has no value", "hint: give it a value, as in 'function: uv__run_timers'\n" } },
	{ "probes:\n  - name: a\n    kind: latency\n    function: f\n  -\n", { "error: probe 2 is empty" } },
	/* duplicates */
	{ PROBE_OK "    unit: ms\n    unit: us\n",
	  { ":6:5: error: duplicate key 'unit' in probe 'timers'", ":5:5: note: 'unit' was first given here" } },
	{ "name: a\nname: b\n" PROBE_OK, { ":2:1: error: duplicate key 'name' at the top level" } },
	{ PROBE_OK "  - name: timers\n    kind: latency\n    function: g\n",
	  { ":5:11: error: duplicate probe name 'timers'", "hint: probe names must be unique",
	    ":2:11: note: probe 'timers' was first defined here" } },
	{ "objects: [main, main]\n" PROBE_OK, { ":1:17: error: object 'main' is listed twice" } },
	/* kinds, units, booleans */
	{ "probes:\n  - name: t\n    kind: latancy\n    function: f\n",
	  { ":3:11: error: unknown probe kind 'latancy' in probe 't'", "did you mean 'latency'? valid kinds are: latency, syscalls, events, count, utilization, span, http\n" } },
	{ "probes:\n  - name: t\n    kind: counter\n    function: f\n",
	  { "unknown probe kind 'counter'", "hint: did you mean 'count'? valid kinds are: latency, syscalls, events, count, utilization, span, http\n" } },
	{ PROBE_OK "    unit: msec\n", { "error: unknown unit 'msec' in probe 'timers'", "did you mean 'ms'? valid units are: ns, us, ms, s" } },
	{ PROBE_OK "    unit: MS\n", { "unknown unit 'MS'" } },
	{ PROBE_OK "    optional: yes\n", { "'optional' in probe 'timers' must be true or false, not 'yes'", "yes, no, on, off and 1 are not accepted" } },
	{ PROBE_OK "    per_thread: 1\n", { "'per_thread' in probe 'timers' must be true or false, not '1'" } },
	{ PROBE_OK "    per_thread: True\n", { "must be true or false, not 'True'" } },
	{ PROBE_OK "    optional: \"true\"\n", { "must be true or false, not the quoted string \"true\"", "remove the quotes" } },
	{ PROBE_OK "    missing_reason: inlined\n",
	  { ":5:5: error: 'missing_reason' in probe 'timers' needs 'optional: true'" } },
	{ PROBE_OK "    optional: false\n    missing_reason: inlined\n", { "needs 'optional: true'" } },
	/* durations */
	{ "duration: 10 sec\n" PROBE_OK, { ":1:11: error: invalid duration '10 sec'", "no space" } },
	{ "duration: -1s\n" PROBE_OK, { "invalid duration '-1s'", "cannot be negative" } },
	{ "duration: 99999h\n" PROBE_OK, { "duration '99999h' is longer than a day", "the longest duration is 24h" } },
	{ "duration: 1e9s\n" PROBE_OK, { "invalid duration '1e9s'" } },
	{ "duration: 10\n" PROBE_OK, { "invalid duration '10'", "units: ns, us, ms, s, m, h" } },
	/* grammars */
	{ "name: Libuv\n" PROBE_OK, { ":1:7: error: invalid spec name 'Libuv'", "a spec name is 1-64 characters" } },
	{ "name: a2222222222222222222222222222222222222222222222222222222222222222\n" PROBE_OK, { "invalid spec name" } },
	{ "probes:\n  - name: Timers\n    kind: latency\n    function: f\n",
	  { ":2:11: error: invalid probe name 'Timers'", "a probe name is 1-32 characters" } },
	{ "probes:\n  - name: a22222222222222222222222222222222\n    kind: latency\n    function: f\n", { "invalid probe name" } },
	{ "probes:\n  - name: 1st\n    kind: latency\n    function: f\n", { "invalid probe name '1st'" } },
	{ "probes:\n  - name: t\n    kind: latency\n    function: \"a;b\"\n",
	  { "invalid function name 'a;b' in probe 't'", "a function is a symbol name" } },
	{ "probes:\n  - name: t\n    kind: latency\n    function: \"ns::f(int)\"\n", { "give the mangled name" } },
	{ "probes:\n  - name: t\n    kind: latency\n    function: 9f\n", { "invalid function name '9f'" } },
	{ "objects: [\"/lib/libuv.so\"]\n" PROBE_OK, { "invalid object '/lib/libuv.so' in 'objects'", "without their directory" } },
	{ "objects: [\"lib uv\"]\n" PROBE_OK, { "invalid object 'lib uv'", "'main' (the executable) or a file-name glob" } },
	{ "objects: []\n" PROBE_OK, { ":1:10: error: 'objects' is empty" } },
	{ PROBE_OK "    object: \"a{b}\"\n", { "invalid object 'a{b}' in probe 'timers'" } },
	/* free text */
	{ "description: \"a\\tb\"\n" PROBE_OK, { "'description' contains a control or invisible character (U+0009)", "replace the tab" } },
	{ "description: \"a\\x1b[31mred\"\n" PROBE_OK, { "(U+001B)" } },
	{ "description: \"a\\u202eb\"\n" PROBE_OK, { "(U+202E)" } },
	{ "description: |\n  one\n  two\n" PROBE_OK, { "'description' must be one line of text", "'>-'" } },
	{ "description: \"a\\0b\"\n" PROBE_OK, { "(U+0000)" } },
	/* empty probes, empty files */
	{ "probes: []\n", { ":1:9: error: 'probes' is empty", "list at least one probe" } },
	{ "probes:\n", { ":1:1: error: 'probes' is empty" } },
	{ "", { "bpfspec: t/test.yaml: error: the spec is empty\nhint: a spec needs at least a 'probes:' list" } },
	{ "# just a comment\n\n", { "error: the spec is empty" } },
	{ "---\n", { "error: the spec is empty" } },
	/* YAML features that specs reject */
	{ "name: &n x\n" PROBE_OK, { ":1:7: error: anchors are not allowed in specs ('&n')", "    1 | name: &n x\n      |       ^~\n" } },
	{ "name: x\n" PROBE_OK "    description: *n\n", { ":6:18: error: aliases are not allowed in specs ('*n')" } },
	{ "name: !!str x\n" PROBE_OK, { ":1:7: error: tags are not allowed in specs ('!!str')", "remove the tag" } },
	{ "objects: !seq [main]\n" PROBE_OK, { "tags are not allowed in specs ('!seq')" } },
	{ PROBE_OK "---\n" PROBE_OK, { ":5:1: error: a spec file holds one YAML document; this is a second one" } },
	{ "%YAML 1.1\n---\n" PROBE_OK, { ":1:1: error: YAML directives are not allowed in specs" } },
	/* YAML syntax */
	{ "name: \"x\n", { "error: invalid YAML: found unexpected end of stream", "note: while scanning a quoted scalar that starts here" } },
	{ "probes:\n\t- name: x\n", { ":2:1: error: invalid YAML:", "indent with spaces" } },
	{ "name: a: b\n", { ":1:8: error: invalid YAML: mapping values are not allowed in this context" } },
	{ "probes:\n  - name: a\n   kind: b\n", { "error: invalid YAML: " } },
	{ "name: @x\n", { "error: invalid YAML: found character that cannot start any token", "quote the value" } },
	/* bytes that are not text */
	{ "name: \xff\n", { ":1:7: error: invalid UTF-8 in the spec (byte 0xFF)", "    1 | name: ?\n" } },
	{ "name: \xc3\n", { ":1:7: error: invalid UTF-8 in the spec (byte 0xC3)" } },
	{ "description: caf\xe9 ok\n", { ":1:17: error: invalid UTF-8 in the spec (byte 0xE9)", "    1 | description: caf? ok\n      |                 ^\n" } },
	{ "name: a\x01\n", { ":1:8: error: control character U+0001 is not allowed in a spec" } },
	{ "\xff\xfen\0a\0", { "the spec is UTF-16 text" } },
	/* nesting */
	{ "probes: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
	  { "error: the spec is nested too deeply (more than 64 levels)" } },
	{ PROBE_OK "    unit: {a: {b: {c: d}}}\n", { "'unit' in probe 'timers' must be a single value, not a mapping" } },
	/* syscalls and events probes: keys of other kinds */
	{ SYS "    syscalls: [read]\n    function: f\n",
	  { ":5:5: error: 'function' in probe 'io' does not apply to a syscalls probe\n",
	    "hint: remove it: a syscalls probe measures the syscalls in its 'syscalls' list; to time a function, add a separate probe with 'kind: latency'\n" } },
	{ EV "    syscalls: [read]\n    object: main\n",
	  { ":5:5: error: 'object' in probe 'slow' does not apply to an events probe",
	    "hint: remove it: an events probe records slow calls of its 'syscalls', or each hit of its 'probe'; 'object' says where a latency probe's 'function' is\n" } },
	{ SYS "    syscalls: all\n    optional: true\n", { ":5:5: error: 'optional' in probe 'io' does not apply to a syscalls probe" } },
	{ EV "    syscalls: [read]\n    missing_reason: x\n", { ":5:5: error: 'missing_reason' in probe 'slow' does not apply to an events probe" } },
	{ PROBE_OK "    syscalls: [read]\n",
	  { ":5:5: error: 'syscalls' in probe 'timers' does not apply to a latency probe",
	    "hint: remove it: a latency probe times its 'function'; to measure syscalls, add a separate probe with 'kind: syscalls' or 'kind: events'\n" } },
	{ PROBE_OK "    threshold: 1ms\n", { ":5:5: error: 'threshold' in probe 'timers' does not apply to a latency probe", "add a separate probe with 'kind: events'" } },
	{ PROBE_OK "    limit: 10\n",
	  { "'limit' in probe 'timers' does not apply to a latency probe",
	    "hint: remove it: a latency probe times its 'function'; to record single slow calls, add a separate probe with 'kind: events'\n" } },
	{ SYS "    syscalls: all\n    limit: 10\n", { ":5:5: error: 'limit' in probe 'io' does not apply to a syscalls probe" } },
	{ SYS "    syscalls: all\n    threshold: 1ms\n", { "'threshold' in probe 'io' does not apply to a syscalls probe", "hint: remove it: a syscalls probe measures the syscalls in its 'syscalls' list; to record each call at least that long, add a separate probe with 'kind: events'" } },
	/* the kind applies to keys before it too */
	{ "probes:\n  - name: io\n    function: f\n    kind: syscalls\n    syscalls: all\n",
	  { ":3:5: error: 'function' in probe 'io' does not apply to a syscalls probe" } },
	/* syscalls is required */
	{ SYS "    unit: ms\n",
	  { ":2:5: error: probe 'io' has no 'syscalls'",
	    "hint: add the syscalls to measure, e.g. 'syscalls: [openat, read]', or 'syscalls: all'\n" } },
	{ EV "    threshold: 1ms\n",
	  { ":2:5: error: probe 'slow' has no 'syscalls' or 'probe'",
	    "hint: add the syscalls to record, e.g. 'syscalls: [openat, connect]', or a probe "
	    "point whose hits to record, e.g. 'probe: \"uretprobe:/bin/bash:readline\"'\n" } },
	/* syscall names */
	{ SYS "    syscalls: [opneat, read]\n",
	  { "t/test.yaml:4:16: error: unknown syscall 'opneat' on this architecture\n"
	    "    4 |     syscalls: [opneat, read]\n"
	    "      |                ^~~~~~\n"
	    "hint: did you mean 'openat'? `ausyscall --dump` or `bpftrace -l 'tracepoint:syscalls:sys_enter_*'` lists them\n" } },
	{ SYS "    syscalls: [zzzzzzzz]\n",
	  { "unknown syscall 'zzzzzzzz' on this architecture", "hint: check the spelling; `ausyscall --dump`" } },
	{ SYS "    syscalls: [__x64_sys_read]\n",
	  { "unknown syscall '__x64_sys_read'", "hint: did you mean 'read'? give the syscall's name without the '__x64_sys_' prefix\n" } },
	{ SYS "    syscalls: [sys_write]\n", { "did you mean 'write'? give the syscall's name without the 'sys_' prefix\n" } },
	{ SYS "    syscalls: [Read]\n",
	  { ":4:16: error: invalid syscall name 'Read' in probe 'io'", "hint: did you mean 'read'? syscall names are lowercase\n" } },
	{ SYS "    syscalls: [\"read;system\"]\n",
	  { "invalid syscall name 'read;system' in probe 'io'", "hint: a syscall name is lowercase letters, digits and '_', as in 'openat' (at most 64 characters)\n" } },
	{ SYS "    syscalls: [\"read\\0x\"]\n", { "invalid syscall name 'read?x'" } },
	{ SYS "    syscalls: [\"read()\"]\n", { "invalid syscall name 'read()'" } },
	{ SYS "    syscalls: [\"\"]\n", { ":4:16: error: invalid syscall name '' in probe 'io'" } },
	{ SYS "    syscalls: [sssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss]\n", { "invalid syscall name 'sss" } },
	{ SYS "    syscalls: [ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss]\n", { "unknown syscall 'sss", "check the spelling" } },
	{ SYS "    syscalls: [read, write, read]\n",
	  { ":4:29: error: syscall 'read' is listed twice in probe 'io'", "hint: remove one of them\n",
	    ":4:16: note: 'read' was first listed here" } },
	/* the word all */
	{ SYS "    syscalls: [\"all\"]\n",
	  { ":4:16: error: unknown syscall 'all' on this architecture",
	    "hint: to measure every syscall, write 'syscalls: all', with no brackets or quotes\n" } },
	{ SYS "    syscalls: [read, all]\n", { ":4:22: error: unknown syscall 'all'" } },
	{ SYS "    syscalls: \"all\"\n",
	  { ":4:15: error: 'syscalls' in probe 'io' must be a list, not a single value",
	    "hint: write all without quotes to measure every syscall, or a list as in 'syscalls: [openat, read]'\n" } },
	{ SYS "    syscalls: 'all'\n", { "must be a list, not a single value", "write all without quotes" } },
	{ SYS "    syscalls: ALL\n", { "'syscalls' in probe 'io' must be a list, not a single value" } },
	{ EV "    syscalls: all\n",
	  { ":4:15: error: 'syscalls: all' in probe 'slow': an events probe needs named syscalls\n",
	    "hint: list the syscalls to record, as in 'syscalls: [openat, connect]' (at most 16); to measure every syscall, use a probe with 'kind: syscalls'\n" } },
	{ EV "    syscalls: [all]\n", { "'syscalls: all' in probe 'slow': an events probe needs named syscalls" } },
	/* shapes */
	{ SYS "    syscalls: openat\n",
	  { ":4:15: error: 'syscalls' in probe 'io' must be a list, not a single value",
	    "hint: write a list, even of one syscall, as in 'syscalls: [openat]'; 'syscalls: all' measures every syscall\n" } },
	{ EV "    syscalls: openat\n", { "hint: write a list, even of one syscall, as in 'syscalls: [openat]'\n" } },
	{ SYS "    syscalls: {read: 1}\n", { "'syscalls' in probe 'io' must be a list, not a mapping" } },
	{ SYS "    syscalls: []\n", { ":4:15: error: 'syscalls' in probe 'io' is empty", "or write 'syscalls: all'" } },
	{ SYS "    syscalls:\n", { ":4:5: error: 'syscalls' in probe 'io' has no value" } },
	{ EV "    syscalls: ~\n",
	  { "'syscalls' in probe 'slow' has no value", "hint: list the syscalls to record, as in 'syscalls: [openat, connect]'\n" } },
	{ SYS "    syscalls:\n      - read\n      -\n", { ":6:8: error: syscall 2 in probe 'io' is empty", "hint: remove the empty item" } },
	{ SYS "    syscalls: [read, [write]]\n", { ":4:22: error: syscall 2 in probe 'io' must be a name, not a list" } },
	{ SYS "    syscalls: [{read: 1}]\n", { "syscall 1 in probe 'io' must be a name, not a mapping", "separated by commas" } },
	{ SYS "    syscalls: [[[[[read]]]]]\n", { "syscall 1 in probe 'io' must be a name, not a list" } },
	{ SYS "    syscalls: [read, *x]\n", { ":4:22: error: aliases are not allowed in specs ('*x')" } },
	{ SYS "    syscalls: &x [read]\n", { ":4:15: error: anchors are not allowed in specs ('&x')" } },
	/* threshold */
	{ EV "    syscalls: [read]\n    threshold: 1 ms\n",
	  { ":5:16: error: invalid threshold '1 ms' in probe 'slow'",
	    "hint: write a number and a unit with no space, e.g. 100us, 1ms or 1.5s (units: ns, us, ms, s, m, h); 0 records every call\n" } },
	{ EV "    syscalls: [read]\n    threshold: -1ms\n",
	  { "invalid threshold '-1ms' in probe 'slow'", "hint: a threshold cannot be negative; use 0 to record every call\n" } },
	{ EV "    syscalls: [read]\n    threshold: 25h\n",
	  { "threshold '25h' in probe 'slow' is longer than a day", "hint: the longest threshold is 24h; use 0 to record every call\n" } },
	{ EV "    syscalls: [read]\n    threshold: 10\n", { "invalid threshold '10'" } },
	{ EV "    syscalls: [read]\n    threshold: 1e3ms\n", { "invalid threshold '1e3ms'" } },
	{ EV "    syscalls: [read]\n    threshold:\n",
	  { ":5:5: error: 'threshold' in probe 'slow' has no value", "as in 'threshold: 1ms', or remove the line" } },
	{ EV "    syscalls: [read]\n    threshold: [1ms]\n", { "'threshold' in probe 'slow' must be a single value, not a list" } },
	/* limit */
	{ EV "    syscalls: [read]\n    limit: 1e3\n",
	  { ":5:12: error: invalid limit '1e3' in probe 'slow'",
	    "hint: write a whole number of records from 1 to 100000, digits only, as in 'limit: 1000'\n" } },
	{ EV "    syscalls: [read]\n    limit: 0x10\n", { "invalid limit '0x10' in probe 'slow'" } },
	{ EV "    syscalls: [read]\n    limit: -1\n",
	  { "invalid limit '-1' in probe 'slow'", "hint: a limit cannot be negative; write a whole number" } },
	{ EV "    syscalls: [read]\n    limit: +5\n", { "invalid limit '+5'" } },
	{ EV "    syscalls: [read]\n    limit: 1.5\n", { "invalid limit '1.5'" } },
	{ EV "    syscalls: [read]\n    limit: 1_000\n", { "invalid limit '1_000'" } },
	{ EV "    syscalls: [read]\n    limit: \" 100\"\n", { "invalid limit ' 100'" } },
	{ EV "    syscalls: [read]\n    limit: \"\"\n", { "invalid limit '' in probe 'slow'" } },
	{ EV "    syscalls: [read]\n    limit: 0\n",
	  { ":5:12: error: 'limit' in probe 'slow' must be at least 1, not 0\n",
	    "hint: keep at least 1 record, or remove the line for the default (1000)" } },
	{ EV "    syscalls: [read]\n    limit: 000\n", { "must be at least 1" } },
	{ EV "    syscalls: [read]\n    limit: 0100\n",
	  { "invalid limit '0100' in probe 'slow'", "hint: write the number without leading zeros" } },
	{ EV "    syscalls: [read]\n    limit: 100001\n",
	  { ":5:12: error: 'limit' in probe 'slow' must be at most 100000, not 100001\n",
	    "hint: keep at most 100000 records; raise 'threshold' so that fewer calls are recorded" } },
	{ EV "    syscalls: [read]\n    limit: 99999999999999999999999999\n", { "'limit' in probe 'slow' must be at most 100000, not 99999999999999999999999999\n" } },
	{ EV "    syscalls: [read]\n    limit:\n", { "'limit' in probe 'slow' has no value" } },
	{ EV "    syscalls: [read]\n    limit: [1]\n", { "'limit' in probe 'slow' must be a single value, not a list" } },
	/* checks: the value */
	{ PROBE_OK "checks:\n", { ":5:1: error: 'checks' has no value", "hint: list conditions that fail the run" } },
	{ PROBE_OK "checks: []\n", { ":5:9: error: 'checks' is empty" } },
	{ PROBE_OK "checks: timers.p99 > 1ms\n",
	  { ":5:9: error: 'checks' must be a list, not a single value", "hint: write a list, even of one check" } },
	{ PROBE_OK "checks: {a: b}\n", { "'checks' must be a list, not a mapping" } },
	{ PROBE_OK "checks:\n  - timers.p99 > 1ms\n  -\n", { ":7:4: error: check 2 is empty" } },
	{ PROBE_OK "checks: [[timers.p99 > 1ms]]\n", { ":5:10: error: check 1 must be a condition, not a list" } },
	{ PROBE_OK "checks: [{a: b}]\n", { "error: check 1 must be a condition, not a mapping" } },
	{ PROBE_OK "checks: [\"timers.p99 > 1ms\\0\"]\n", { ":5:10: error: check 1 contains a NUL character" } },
	/* checks: parse errors at their column, plain or quoted */
	{ PROBE_OK "checks:\n  - timers.p95 > 100ms\n",
	  { "t/test.yaml:6:12: error: invalid check: unknown statistic 'p95': use count, sum, min, "
	    "max, mean, p50, p90, p99, errors, errors.ENAME or lost\n"
	    "    6 |   - timers.p95 > 100ms\n"
	    "      |            ^~~\n"
	    "hint: see docs/spec.md#checks\n" } },
	{ PROBE_OK "checks: [\"timers.p99 > 100 ms\"]\n",
	  { ":5:27: error: invalid check: remove the space between the number and its unit" } },
	{ PROBE_OK "checks: ['timers.p99 = 1ms']\n",
	  { ":5:22: error: invalid check: '=' is not an operator: write '==' to compare" } },
	{ PROBE_OK "checks:\n  - timers.p99 >\n",
	  { ":6:17: error: invalid check: expected a value after '>', such as 100ms or +20%" } },
	{ PROBE_OK "checks: [\"tim\u00e9rs.p99 > 1ms\"]\n",
	  { ":5:14: error: invalid check: expected '.' and a statistic after probe 'tim', as in "
	    "'tim.p99', not a non-ASCII character" } },
	/* ... or at the item, with the column in the message, when the
	 * text is not the source as is (escapes, folded lines, blocks) */
	{ PROBE_OK "checks: [\"timers.p99\\t> 1 sec\"]\n",
	  { ":5:10: error: invalid check (at column 16 of its text): unexpected text after the value '1'",
	    "      |          ^~~~~~~~~~~~~~~~~~~~~\n" } },
	{ PROBE_OK "checks:\n  - timers.p99\n    > 1 sec\n",
	  { ":6:5: error: invalid check (at column 16 of its text)" } },
	{ PROBE_OK "checks:\n  - >-\n    timers.p99\n    > 1 sec\n",
	  { ":6:5: error: invalid check (at column 16 of its text)" } },
	{ PROBE_OK "checks: ['it''s.p99 > 1']\n",
	  { ":5:10: error: invalid check (at column 3 of its text): expected '.' and a statistic after "
	    "probe 'it', as in 'it.p99', not '''" } },
	/* checks: relative changes, duplicates */
	{ PROBE_OK "checks: [timers.p99 > +20%]\n",
	  { ":5:23: error: check 'timers.p99 > +20%' is a relative change, which a spec cannot check",
	    "relative changes compare two reports (a diff); see docs/spec.md#checks" } },
	{ PROBE_OK "checks: [timers.count < -5%]\n", { ":5:25: error: check 'timers.count < -5%' is a relative change" } },
	{ PROBE_OK "checks:\n  - timers.p99 > 1ms\n  - timers.p99 > 1ms\n",
	  { ":7:5: error: check 'timers.p99 > 1ms' is listed twice", ":6:5: note: it was first listed here" } },
	/* checks: what they read must be in the spec */
	{ PROBE_OK "checks: [timer.p99 > 1ms]\n",
	  { ":5:10: error: check refers to probe 'timer', which this spec does not define",
	    "hint: did you mean 'timers'? valid probes are: timers\n" } },
	{ "checks: [\"zzz.count > 0\"]\n" PROBE_OK,
	  { ":1:11: error: check refers to probe 'zzz', which this spec does not define" } },
	{ PROBE_OK "checks: [timers.errors > 0]\n",
	  { ":5:17: error: check reads the errors of probe 'timers', a latency probe, which does not count errors" } },
	{ PROBE_OK "checks: [timers.read.p99 > 0]\n",
	  { ":5:17: error: check reads syscall 'read' of probe 'timers', a latency probe, which has no syscalls" } },
	{ EV "    syscalls: [read]\nchecks: [slow.p99 > 1ms]\n",
	  { ":5:15: error: check reads 'p99' of probe 'slow', an events probe, which counts events and has no duration statistics",
	    "hint: an events probe can be checked on count and lost, e.g. 'slow.count > 0'" } },
	{ EV "    syscalls: [read]\nchecks: [slow.read.count > 1]\n",
	  { ":5:15: error: check reads syscall 'read' of probe 'slow', an events probe, which has no syscalls" } },
	{ "probes:\n  - {name: u, kind: utilization}\nchecks: [u.errors > 0, u.epoll_wait.max > 1ms, u.p99 > 1ms]\n",
	  { ":3:12: error: check reads the errors of probe 'u', a utilization probe, which does not count errors",
	    "hint: a utilization probe can be checked on count, sum, min, max, mean, p50, p90, p99 and lost, e.g. 'u.p99 > 10ms'",
	    ":3:26: error: check reads syscall 'epoll_wait' of probe 'u', a utilization probe, which has no syscalls" } },
	{ "probes:\n  - name: io\n    kind: syscalls\n    syscalls: [openat, read]\nchecks: [io.write.count > 0]\n",
	  { ":5:13: error: check refers to syscall 'write', which probe 'io' does not measure",
	    "hint: add it to the probe's 'syscalls', or check one it measures: openat, read\n" } },
	{ "probes:\n  - name: io\n    kind: syscalls\n    syscalls: [openat]\nchecks: [io.nosuchcall.count > 0]\n",
	  { "check refers to syscall 'nosuchcall', which probe 'io' does not measure" } },
};

/* A value each probe key accepts, to write it into a probe of any kind. */
static const char *const key_values[N_PROBE] = {
	[P_NAME] = "p", [P_KIND] = "latency", [P_FUNCTION] = "f", [P_OBJECT] = "main",
	[P_OPTIONAL] = "true", [P_MISSING_REASON] = "inlined", [P_SYSCALLS] = "[read]",
	[P_PROBE] = "\"kprobe:f\"", [P_THRESHOLD] = "1ms", [P_LIMIT] = "10", [P_UNIT] = "ms",
	[P_PER_THREAD] = "false", [P_DESCRIPTION] = "x", [P_ARGS] = "[{name: a, value: arg0}]",
	[P_DERIVED] = "libuv-pending",
};

/* Every kind says what it is, and a key it does not take is refused with
 * a hint about that kind (before, a utilization probe given 'syscalls'
 * was told what a latency probe does). */
START_TEST(test_every_kind_refuses_keys_it_does_not_take)
{
	const probe_kind kind = (probe_kind)_i;
	const spec_kind_rules *rules = sl_kind_rules(kind);
	char text[512], want[512];

	ck_assert_ptr_nonnull(rules);
	ck_assert_int_eq(rules->kind, kind);
	ck_assert_ptr_eq(spec_kind_needs_of(kind), &rules->needs);
	ck_assert_uint_eq(rules->keys & KEYS_EVERY, KEYS_EVERY);
	ck_assert_ptr_nonnull(rules->purpose);
	ck_assert_ptr_nonnull(rules->offer);
	ck_assert_msg(strstr(rules->offer, kind_name(kind)), "%s", rules->offer);
	/* A required key is one the kind takes, with a hint to add it. */
	ck_assert(!rules->required || (rules->keys & KEY(rules->required)));
	ck_assert(!rules->required || rules->required_hint);
	if (rules->keys & KEY(P_SYSCALLS)) {
		ck_assert_uint_gt(rules->max_syscalls, 0);
		/* The loader keeps the first of each name in an array this long. */
		ck_assert_uint_le(rules->max_syscalls, SPEC_MAX_SYSCALLS);
		ck_assert_ptr_nonnull(rules->syscalls_verb);
		ck_assert_ptr_nonnull(rules->syscalls_example);
	}
	for (int key = 0; key < N_PROBE; key++) {
		if (rules->keys & KEY(key))
			continue;
		snprintf(text, sizeof text, "probes:\n  - name: p\n    kind: %s\n    %s: %s\n",
			 kind_name(kind), sl_probe_keys[key], key_values[key]);
		char *out = parse_fail(text);
		snprintf(want, sizeof want, "error: '%s' in probe 'p' does not apply to %s %s probe\n",
			 sl_probe_keys[key], kind_shape_of(kind)->article, kind_name(kind));
		ck_assert_msg(strstr(out, want), "%s %s:\n%s", kind_name(kind), sl_probe_keys[key], out);
		if (rules->instead && rules->instead[key])
			snprintf(want, sizeof want, "hint: remove it: %s", rules->instead[key]);
		else
			snprintf(want, sizeof want, "hint: remove it: %s %s probe %s; ",
				 kind_shape_of(kind)->article, kind_name(kind), rules->purpose);
		ck_assert_msg(strstr(out, want), "%s %s:\n%s", kind_name(kind), sl_probe_keys[key], out);
		/* No other kind's purpose is told as this kind's. */
		for (int other = 0; other < N_PROBE_KINDS; other++)
			ck_assert_msg(other == _i || !strstr(out, sl_kind_rules((probe_kind)other)->purpose),
				      "%s %s:\n%s", kind_name(kind), sl_probe_keys[key], out);
		free(out);
	}
}
END_TEST

START_TEST(test_error_cases)
{
	char *out = parse_fail(bad[_i].text);

	for (int j = 0; j < 3 && bad[_i].want[j]; j++)
		ck_assert_msg(strstr(out, bad[_i].want[j]) != NULL,
			      "case %d: expected \"%s\" in:\n%s", _i, bad[_i].want[j], out);
	/* Every error comes with a hint. */
	ck_assert_uint_eq(count_of(out, ": error: "), count_of(out, "\nhint: "));
	free(out);
}
END_TEST

START_TEST(test_nul_byte)
{
	static const char text[] = "name: a\0b\n" PROBE_OK;
	char *out;
	spec *s;

	capture_start();
	s = spec_parse("t/test.yaml", text, sizeof(text) - 1);
	out = capture_end();
	ck_assert_ptr_null(s);
	ck_assert_contains(out, "t/test.yaml:1:8: error: the spec contains a NUL byte\n"
				"    1 | name: a?b\n"
				"      |        ^\n");
	free(out);
}
END_TEST

/* Checks load as written, in order, with their locations, before or
 * after the probes they read. */
/* ---- count probes ---- */

START_TEST(test_count_points)
{
	static const struct { const char *text; point_type type; } good[] = {
		{ "tracepoint:sched:sched_switch", POINT_TRACEPOINT },
		{ "tracepoint:syscalls:sys_enter_getppid", POINT_TRACEPOINT },
		{ "tracepoint:a:b", POINT_TRACEPOINT },
		{ "uprobe:main:uv__run_timers", POINT_UPROBE },
		{ "uprobe:/usr/lib/x86_64-linux-gnu/libc.so.6:malloc", POINT_UPROBE },
		{ "uprobe:/opt/a+b/lib-x_1.so:f.part.0", POINT_UPROBE },
		{ "uretprobe:main:_ZN4node5Realm16RunBootstrappingEv", POINT_URETPROBE },
		{ "usdt:main:node:gc__start", POINT_USDT },
		{ "usdt:/usr/bin/node:Node:HTTP_server", POINT_USDT },
		{ "kprobe:do_sys_openat2", POINT_KPROBE },
		{ "software:cpu-clock:1", POINT_SOFTWARE },
		{ "software:bpf-output:1000000000", POINT_SOFTWARE },
		{ "software:page-faults:100", POINT_SOFTWARE },
		{ "profile:hz:1", POINT_PROFILE },
		{ "profile:hz:10000", POINT_PROFILE },
		{ "kretprobe:vfs_read", POINT_KRETPROBE },
		{ "interval:s:1", POINT_INTERVAL },
		{ "interval:ms:86400000", POINT_INTERVAL },
	};
	static const struct { const char *text, *why; } rejected[] = {
		{ "", "empty" },
		{ "tracepoint:sched", "written tracepoint:CATEGORY:NAME" },
		{ "tracepoint:sched:sched_switch:x", "written tracepoint:CATEGORY:NAME" },
		{ "tracepoint:Sched:x", "category 'Sched'" },
		{ "tracepoint:sched:*", "name '*'" },
		{ "tracepoint:sched:", "name ''" },
		{ "tracepoint:sched:a b", "name 'a b'" },
		{ "tracepoint:s:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "is not 1-64" },
		{ "kretprobe:f+1", "symbol 'f+1'" },
		{ "kretprobe:a:b", "written kretprobe:SYMBOL" },
		{ "interval:us:10", "takes 's' or 'ms'" },
		{ "interval:s:0", "period '0'" },
		{ "interval:s:86401", "period '86401'" },
		{ "interval:ms:86400001", "period '86400001'" },
		{ "interval:ms:010", "period '010'" },
		{ "interval:s", "written interval:s:N or interval:ms:N" },
		{ "watchpoint:0x1:8:w", "unknown probe type 'watchpoint'" },
		{ "BEGIN", "unknown probe type 'BEGIN'" },
		{ "t:a:b", "unknown probe type 't'" },
		{ "uprobe:libc.so.6:malloc", "neither 'main' nor" },
		{ "uprobe:/usr/lib/lib c.so:f", "neither 'main' nor" },
		{ "uprobe:/usr/lib/*.so:f", "neither 'main' nor" },
		{ "uprobe:/:f", "neither 'main' nor" },
		{ "uprobe:main:f*", "symbol 'f*'" },
		{ "uprobe:main:1f", "symbol '1f'" },
		{ "uprobe:main:f { exit(); }", "symbol" },
		{ "uprobe:main", "written uprobe:OBJECT:SYMBOL" },
		{ "uretprobe:main:", "symbol ''" },
		{ "usdt:main:node", "written usdt:OBJECT:PROVIDER:NAME" },
		{ "usdt:main:no-de:gc", "provider 'no-de'" },
		{ "usdt:main:node:gc*", "name 'gc*'" },
		{ "kprobe:do_sys_open+4", "symbol 'do_sys_open+4'" },
		{ "kprobe:a:b", "written kprobe:SYMBOL" },
		{ "software:faults:1", "unknown software event 'faults'" },
		{ "software:cpu-clock:0", "period '0'" },
		{ "software:cpu-clock:1000000001", "period '1000000001'" },
		{ "software:cpu-clock:01", "period '01'" },
		{ "software:cpu-clock:-1", "period '-1'" },
		{ "software:cpu-clock", "written software:EVENT:PERIOD" },
		{ "profile:hz:0", "frequency '0'" },
		{ "profile:hz:10001", "frequency '10001'" },
		{ "profile:ms:10", "takes 'hz'" },
		{ "profile:hz:1e3", "frequency '1e3'" },
		{ "a:b:c:d:e:f", "too many" },
	};
	char why[512];
	point_type type;

	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		why[0] = '\0';
		ck_assert_msg(spec_parse_point(good[i].text, &type, why, sizeof why) == 0,
			      "'%s' rejected: %s", good[i].text, why);
		ck_assert_int_eq(type, good[i].type);
	}
	for (size_t i = 0; i < sizeof rejected / sizeof *rejected; i++) {
		ck_assert_msg(spec_parse_point(rejected[i].text, &type, why, sizeof why) < 0,
			      "'%s' accepted", rejected[i].text);
		ck_assert_contains(why, rejected[i].why);
	}
}
END_TEST

/* A span's labels: an integer, a string at a uprobe ('str(argN)') and a
 * tracepoint's string field, each read where it is written. */
START_TEST(test_span_labels)
{
	char *out;
	spec *s = parse("probes:\n"
			"  - name: lookup\n"
			"    kind: span\n"
			"    labels: 3\n"
			"    points:\n"
			"      - {probe: \"uprobe:main:submit\", key: arg0, label: str(arg1)}\n"
			"      - {stage: done, probe: \"uretprobe:main:finish\", key: arg0}\n"
			"  - name: open\n"
			"    kind: span\n"
			"    points:\n"
			"      - {probe: \"uprobe:main:a\", key: arg0}\n"
			"      - {stage: opened, probe: \"tracepoint:syscalls:sys_enter_openat\",\n"
			"         key: args.filename, label: 'str(args.filename)'}\n"
			"  - name: typed\n"
			"    kind: span\n"
			"    points:\n"
			"      - {probe: \"usdt:main:node:work\", key: arg0, label: arg11}\n"
			"      - {stage: ran, probe: \"uretprobe:main:b\", key: arg0}\n", &out);

	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_str_eq(out, "");
	free(out);
	const spec_span_point *pt = &s->probes[0].points[0];
	ck_assert_int_eq(pt->label, SPAN_LABEL_STRING);
	ck_assert_int_eq(pt->label_src, VALUE_ARG);
	ck_assert_int_eq(pt->label_index, 1);
	ck_assert_uint_eq(s->probes[0].labels, 3);
	ck_assert_int_eq(s->probes[0].points[1].label, SPAN_LABEL_NONE);
	pt = &s->probes[1].points[1];
	ck_assert_int_eq(pt->label, SPAN_LABEL_STRING);
	ck_assert_int_eq(pt->label_src, VALUE_FIELD);
	ck_assert_str_eq(pt->label_field, "filename");
	ck_assert_uint_eq(s->probes[1].labels, SPEC_DEFAULT_SPAN_LABELS);
	pt = &s->probes[2].points[0];
	ck_assert_int_eq(pt->label, SPAN_LABEL_VALUE);
	ck_assert_int_eq(pt->label_index, 11);
	spec_free(s);
}
END_TEST

START_TEST(test_point_events)
{
	char *out;
	spec *s = parse("probes:\n"
			"  - name: line\n"
			"    kind: events\n"
			"    probe: uretprobe:main:readline\n"
			"    limit: 20\n"
			"    args: [{name: line, value: retval, type: string}]\n"
			"  - name: req\n"
			"    kind: events\n"
			"    probe: usdt:/opt/node:node:http__server__request\n"
			"    args:\n"
			"      - name: port\n"
			"        value: arg3\n"
			"      - {type: uint, value: arg11, name: fd}\n"
			"      - {name: url, value: 'arg5', type: \"string\"}\n"
			"  - name: opens\n"
			"    kind: events\n"
			"    probe: tracepoint:syscalls:sys_enter_openat\n"
			"    args: [{name: path, value: args.filename, type: string}]\n"
			"  - name: bare\n"
			"    kind: events\n"
			"    probe: kprobe:vfs_read\n"
			"checks: [line.count > 5]\n", &out);

	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_str_eq(out, "");
	free(out);
	const spec_probe *p = &s->probes[0];
	ck_assert(spec_is_point_events(p));
	ck_assert_int_eq(p->point, POINT_URETPROBE);
	ck_assert_str_eq(p->object, "main");
	ck_assert_str_eq(p->function, "readline");
	ck_assert_uint_eq(p->limit, 20);
	ck_assert_uint_eq(p->n_args, 1);
	ck_assert_str_eq(p->args[0].name, "line");
	ck_assert_int_eq(p->args[0].src, VALUE_RETVAL);
	ck_assert_int_eq(p->args[0].type, ARG_STRING);
	p = &s->probes[1];
	ck_assert_uint_eq(p->limit, SPEC_DEFAULT_EVENT_LIMIT);
	ck_assert_ptr_null(p->object);
	ck_assert_uint_eq(p->n_args, 3);
	ck_assert_int_eq(p->args[0].src, VALUE_ARG);
	ck_assert_int_eq(p->args[0].index, 3);
	ck_assert_int_eq(p->args[0].type, ARG_INT);
	ck_assert_str_eq(p->args[1].name, "fd");
	ck_assert_int_eq(p->args[1].index, 11);
	ck_assert_int_eq(p->args[1].type, ARG_UINT);
	ck_assert_int_eq(p->args[2].type, ARG_STRING);
	p = &s->probes[2];
	ck_assert_int_eq(p->args[0].src, VALUE_FIELD);
	ck_assert_str_eq(p->args[0].field, "filename");
	ck_assert_uint_eq(s->probes[3].n_args, 0);
	ck_assert(spec_is_point_events(&s->probes[3]));
	spec_free(s);

	/* Values are a strict grammar: no expressions, nothing around them. */
	static const char *const bad_values[] = {
		"arg01", "arg12", "arg", "arg-1", "ARG0", " arg0", "arg0 ", "retval+1",
		"args.", "args.1x", "args.Filename", "args->filename", "arg0;exit()",
		"str(arg0)", "args.a.b", "$1",
	};
	for (size_t i = 0; i < sizeof bad_values / sizeof *bad_values; i++) {
		char text[400];
		snprintf(text, sizeof text, "probes:\n  - name: e\n    kind: events\n"
			 "    probe: usdt:main:a:b\n    args: [{name: v, value: \"%s\"}]\n",
			 bad_values[i]);
		out = parse_fail(text);
		ck_assert_contains(out, "invalid argument value");
		free(out);
	}
}
END_TEST

START_TEST(test_count_probes)
{
	char *out;
	spec *s = parse("probes:\n"
			"  - name: sw\n"
			"    kind: count\n"
			"    probe: tracepoint:sched:sched_switch\n"
			"  - name: fn\n"
			"    kind: count\n"
			"    probe: \"uprobe:main:uv__run_timers\"\n"
			"    per_thread: false\n"
			"  - name: lib\n"
			"    kind: count\n"
			"    probe: 'uretprobe:/usr/lib/libuv.so.1:uv_run'\n"
			"checks: [sw.count > 100, fn.lost > 0]\n", &out);

	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_str_eq(out, "");
	free(out);
	ck_assert_int_eq(s->probes[0].kind, PROBE_COUNT);
	ck_assert_int_eq(s->probes[0].point, POINT_TRACEPOINT);
	ck_assert_str_eq(s->probes[0].probe, "tracepoint:sched:sched_switch");
	ck_assert_ptr_null(s->probes[0].object);
	ck_assert_ptr_null(s->probes[0].function);
	ck_assert_int_eq(s->probes[1].point, POINT_UPROBE);
	ck_assert_str_eq(s->probes[1].object, "main");
	ck_assert_str_eq(s->probes[1].function, "uv__run_timers");
	ck_assert(!s->probes[1].per_thread);
	ck_assert_int_eq(s->probes[2].point, POINT_URETPROBE);
	ck_assert_ptr_null(s->probes[2].object);
	ck_assert_str_eq(s->probes[2].function, "uv_run");
	spec_free(s);

	static const struct { const char *yaml, *msg, *hint; } rejected[] = {
		{ "probes:\n  - {name: c, kind: count}\n", "probe 'c' has no 'probe'",
		  "hint: add the probe point to count" },
		{ "probes:\n  - {name: c, kind: count, probe: \"tracepoint:sched:*\"}\n",
		  "invalid probe point 'tracepoint:sched:*' in probe 'c': tracepoint name '*'",
		  "hint: a probe point is one of tracepoint:CATEGORY:NAME" },
		{ "probes:\n  - {name: c, kind: count, probe: [a]}\n",
		  "'probe' in probe 'c' must be a single value", "hint: write a single value" },
		{ "probes:\n  - {name: c, kind: count, probe: \"kprobe:f\\0\"}\n",
		  "it contains a NUL character", "hint: a probe point is one of" },
		{ "probes:\n  - {name: c, kind: count, probe: \"kprobe:f\", function: f}\n",
		  "'function' in probe 'c' does not apply to a count probe",
		  "'probe: \"uprobe:main:FUNCTION\"'" },
		{ "probes:\n  - {name: c, kind: count, probe: \"kprobe:f\", unit: ms}\n",
		  "'unit' in probe 'c' does not apply to a count probe",
		  "counts the hits of its 'probe'; 'unit' is how durations are shown" },
		{ "probes:\n  - {name: c, kind: count, probe: \"kprobe:f\", syscalls: [read]}\n",
		  "'syscalls' in probe 'c' does not apply to a count probe",
		  "tracepoint:syscalls:sys_enter_openat" },
		{ "probes:\n  - {name: c, kind: latency, function: f, probe: \"kprobe:f\"}\n",
		  "'probe' in probe 'c' does not apply to a latency probe", "kind: count" },
		{ "probes:\n  - {name: c, probe: \"kprobe:f\"}\n", "probe 'c' has no 'kind'",
		  "or 'kind: count' (hits of a probe point)" },
		{ "probes:\n  - {name: c, kind: count, probe: \"kprobe:f\"}\nchecks: [c.p99 > 1ms]\n",
		  "check reads 'p99' of probe 'c', a count probe", "'c.count > 0'" },
		{ "probes:\n  - {name: c, kind: count, probe: \"kprobe:f\"}\nchecks: [c.read.count > 1]\n",
		  "check reads syscall 'read' of probe 'c', a count probe, which has no syscalls",
		  "'c.count > 0'" },
	};
	for (size_t i = 0; i < sizeof rejected / sizeof *rejected; i++) {
		out = parse_fail(rejected[i].yaml);
		ck_assert_contains(out, rejected[i].msg);
		ck_assert_contains(out, rejected[i].hint);
		free(out);
	}
}
END_TEST

START_TEST(test_checks)
{
	static const char text[] =
		"checks:\n"
		"  - timers.p99 > 100ms\n"
		"  - \"io.errors.ENOENT >= 10\"\n"
		"  - 'io.openat.p99>5ms'\n"
		"  - all.futex.count > 1000\n"
		"  - slow.count > 0\n"
		"  - slow.lost != 0\n"
		"  - timers.lost > 0\n"
		"  - >-\n"
		"    timers.mean\n"
		"    < 1.5us\n"
		"probes:\n"
		"  - name: timers\n"
		"    kind: latency\n"
		"    function: f\n"
		"  - name: io\n"
		"    kind: syscalls\n"
		"    syscalls: [openat, read]\n"
		"  - name: all\n"
		"    kind: syscalls\n"
		"    syscalls: all\n"
		"  - name: slow\n"
		"    kind: events\n"
		"    syscalls: [connect]\n";
	static const struct {
		const char *text;
		unsigned line, col, span;
	} want[] = {
		{ "timers.p99 > 100ms", 2, 5, 18 },
		{ "io.errors.ENOENT >= 10", 3, 5, 24 },
		{ "io.openat.p99>5ms", 4, 5, 19 },
		{ "all.futex.count > 1000", 5, 5, 22 },
		{ "slow.count > 0", 6, 5, 14 },
		{ "slow.lost != 0", 7, 5, 14 },
		{ "timers.lost > 0", 8, 5, 15 },
		{ "timers.mean < 1.5us", 9, 5, 2 },
	};
	char *out;
	spec *s = parse(text, &out);

	ck_assert_msg(s != NULL, "unexpected failure:\n%s", out);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(s->n_checks, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < s->n_checks; i++) {
		ck_assert_str_eq(s->checks[i], want[i].text);
		ck_assert_uint_eq(s->check_locs[i].line, want[i].line);
		ck_assert_uint_eq(s->check_locs[i].col, want[i].col);
		ck_assert_uint_eq(s->check_locs[i].span, want[i].span);
	}
	spec_free(s);
	free(out);
}
END_TEST

/* 64 checks load, 65 do not. */
START_TEST(test_checks_limit)
{
	char text[4096], *out;
	size_t o = (size_t)snprintf(text, sizeof(text), PROBE_OK "checks:\n");
	spec *s;

	for (int i = 0; i < SPEC_MAX_CHECKS; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "  - timers.count > %d\n", i);
	s = parse(text, &out);
	ck_assert_msg(s != NULL, "unexpected failure:\n%s", out);
	ck_assert_uint_eq(s->n_checks, SPEC_MAX_CHECKS);
	spec_free(s);
	free(out);
	snprintf(text + o, sizeof(text) - o, "  - timers.count > 64\n");
	out = parse_fail(text);
	ck_assert_contains(out, ":70:5: error: too many checks (65)\n");
	ck_assert_contains(out, "hint: a spec has at most 64 checks");
	free(out);
}
END_TEST

/* A probe that failed to load is not reported again by the checks that
 * read it. */
START_TEST(test_checks_after_bad_probe)
{
	char *out = parse_fail("probes:\n"
			       "  - name: Timers\n"
			       "    kind: latency\n"
			       "    function: f\n"
			       "checks: [timers.p99 > 1ms, timers.p95 > 1ms]\n");

	ck_assert_contains(out, "invalid probe name 'Timers'");
	ck_assert_contains(out, ":5:35: error: invalid check: unknown statistic 'p95'");
	ck_assert_uint_eq(count_of(out, ": error: "), 2);
	free(out);
}
END_TEST

/* One run reports every problem, in a stable order. */
START_TEST(test_all_errors_reported)
{
	char *out = parse_fail("name: Bad\n"
			       "duration: 1 s\n"
			       "colour: red\n"
			       "probes:\n"
			       "  - name: a\n"
			       "    kind: latency\n"
			       "    function: f\n"
			       "    unit: sec\n"
			       "  - name: a\n"
			       "    kind: latency\n"
			       "    optional: no\n");
	const char *order[] = {
		":1:7: error: invalid spec name",
		":2:11: error: invalid duration",
		":3:1: error: unknown key 'colour'",
		":8:11: error: unknown unit 'sec'",
		":9:11: error: duplicate probe name 'a'",
		":11:15: error: 'optional' in probe 'a' must be true or false",
		":9:5: error: probe 'a' has no 'function'",
	};
	const char *p = out;

	ck_assert_uint_eq(count_of(out, ": error: "), 7);
	ck_assert_uint_eq(diag_error_count(), 7);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *q = strstr(p, order[i]);
		ck_assert_msg(q != NULL, "expected \"%s\" after the previous ones in:\n%s", order[i], out);
		p = q;
	}
	free(out);
}
END_TEST

START_TEST(test_error_cap)
{
	char text[4096];
	size_t o = 0;
	char *out;

	for (int i = 0; i < 70; i++)
		o += (size_t)sprintf(text + o, "k%d: 1\n", i);
	sprintf(text + o, "%s", PROBE_OK);
	out = parse_fail(text);
	ck_assert_uint_eq(count_of(out, ": error: "), 50);
	ck_assert_contains(out, "bpfspec: t/test.yaml: note: 20 more errors not shown\n");
	free(out);
}
END_TEST

/* ---- spec_load ----------------------------------------------------- */

static char tmpdir[PATH_MAX];

static void setup_tmp(void)
{
	strcpy(tmpdir, "/tmp/test_spec.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown_tmp(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *write_file(const char *name, const char *text, size_t len)
{
	char *path;
	FILE *f;

	ck_assert_int_ge(asprintf(&path, "%s/%s", tmpdir, name), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
	return path;
}

START_TEST(test_load)
{
	char *path = write_file("good.yaml", full_spec, strlen(full_spec)), *out, *msg;
	spec *s;

	capture_start();
	s = spec_load(path);
	out = capture_end();
	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_str_eq(s->path, path);
	ck_assert_str_eq(s->name, "libuv-phases");
	ck_assert_uint_eq(s->src.len, strlen(full_spec));
	spec_free(s);
	free(out);
	free(path);

	/* Messages name the path as given. */
	path = write_file("bad.yaml", "name: X\n" PROBE_OK, strlen("name: X\n" PROBE_OK));
	capture_start();
	s = spec_load(path);
	out = capture_end();
	ck_assert_ptr_null(s);
	ck_assert_int_ge(asprintf(&msg, "bpfspec: %s:1:7: error: invalid spec name 'X'", path), 0);
	ck_assert_contains(out, msg);
	free(msg);
	free(out);
	free(path);
}
END_TEST

START_TEST(test_load_failures)
{
	char *path, *out, *msg;
	spec *s;

	ck_assert_int_ge(asprintf(&path, "%s/absent.yaml", tmpdir), 0);
	capture_start();
	s = spec_load(path);
	out = capture_end();
	ck_assert_ptr_null(s);
	ck_assert_int_ge(asprintf(&msg, "bpfspec: error: cannot read '%s': No such file or directory\nhint: ", path), 0);
	ck_assert_contains(out, msg);
	ck_assert_uint_eq(diag_error_count(), 1);
	free(msg);
	free(out);

	capture_start();
	s = spec_load(tmpdir);
	out = capture_end();
	ck_assert_ptr_null(s);
	ck_assert_contains(out, "Is a directory\nhint: give the path of a .yaml file\n");
	free(out);
	free(path);

	/* Over 1 MiB: rejected before parsing, whatever it holds. */
	size_t len = 1024 * 1024 + 1;
	char *big = malloc(len);
	memset(big, '#', len);
	path = write_file("big.yaml", big, len);
	capture_start();
	s = spec_load(path);
	out = capture_end();
	ck_assert_ptr_null(s);
	ck_assert_contains(out, ": error: the spec is too large (1048577 bytes; the limit is 1 MiB)\n");
	free(out);

	capture_start();
	s = spec_parse("big.yaml", big, len);
	out = capture_end();
	ck_assert_ptr_null(s);
	ck_assert_contains(out, "bpfspec: big.yaml: error: the spec is too large");
	free(out);
	free(path);

	/* Exactly 1 MiB is read (and here, is a comment: an empty spec). */
	path = write_file("edge.yaml", big, len - 1);
	capture_start();
	s = spec_load(path);
	out = capture_end();
	ck_assert_ptr_null(s);
	ck_assert_contains(out, "error: the spec is empty");
	free(out);
	free(path);
	free(big);
}
END_TEST

/* ---- robustness ---------------------------------------------------- */

/* Every prefix of a good spec, and the spec with bytes replaced, must
 * load or fail cleanly (valgrind and the sanitizers check the rest). */
START_TEST(test_mangled)
{
	size_t len = strlen(full_spec);
	char *text = malloc(len + 1);
	static const char junk[] = { '\0', '\n', ' ', '\t', '&', '*', '!', '[', '{', '"',
				      '\'', ':', '-', '#', '|', '>', '\xff', '\xc3', '%', '?' };
	unsigned seed = 12345;
	FILE *null = fopen("/dev/null", "w");

	ck_assert_ptr_nonnull(null);
	diag_set_stream(null);
	for (size_t n = 0; n <= len; n++)
		spec_free(spec_parse("t.yaml", full_spec, n));
	for (int round = 0; round < 3000; round++) {
		memcpy(text, full_spec, len + 1);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245 + 12345;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245 + 12345;
			text[at] = junk[(seed >> 8) % sizeof(junk)];
		}
		spec_free(spec_parse("t.yaml", text, len));
	}
	{
		/* A deep flow nest of the whole 1 MiB is refused quickly. */
		size_t big = 1024 * 1024;
		char *deep = malloc(big);
		memset(deep, '[', big);
		ck_assert_ptr_null(spec_parse("deep.yaml", deep, big));
		free(deep);
	}
	diag_set_stream(NULL);
	fclose(null);
	free(text);
}
END_TEST

/* ---- diag ---------------------------------------------------------- */

static const char diag_text[] =
	"first: line\n"
	"\tkey:\tvalue\n"
	"caf\xc3\xa9: bad\x01 \xff end\r\n"
	"last";

START_TEST(test_diag_format)
{
	diag_src src = { "f.yaml", diag_text, sizeof(diag_text) - 1 };
	char *out;

	capture_start();
	diag_at(DIAG_ERROR, &src, (diag_loc){ 1, 8, 4, NULL }, "do this", "bad %s", "thing");
	out = capture_end();
	ck_assert_str_eq(out, "bpfspec: f.yaml:1:8: error: bad thing\n"
			      "    1 | first: line\n"
			      "      |        ^~~~\n"
			      "hint: do this\n");
	ck_assert_uint_eq(diag_error_count(), 1);
	free(out);

	/* Tabs are kept in the padding so the caret lines up. */
	capture_start();
	diag_at(DIAG_WARNING, &src, (diag_loc){ 2, 7, 5, NULL }, NULL, "w");
	out = capture_end();
	ck_assert_str_eq(out, "bpfspec: f.yaml:2:7: warning: w\n"
			      "    2 | \tkey:\tvalue\n"
			      "      | \t    \t^~~~~\n");
	ck_assert_uint_eq(diag_error_count(), 0);
	free(out);

	/* Control and invalid bytes print as '?'; UTF-8 is one column;
	 * the CR of a CRLF is not echoed; the span stops at the line end. */
	capture_start();
	diag_at(DIAG_NOTE, &src, (diag_loc){ 3, 7, 99, NULL }, NULL, "n");
	out = capture_end();
	ck_assert_str_eq(out, "bpfspec: f.yaml:3:7: note: n\n"
			      "    3 | caf\xc3\xa9: bad? ? end\n"
			      "      |       ^~~~~~~~~~\n");
	free(out);

	/* The last line has no newline; a caret past its end is allowed. */
	capture_start();
	diag_at(DIAG_ERROR, &src, (diag_loc){ 4, 5, 1, NULL }, NULL, "eof");
	out = capture_end();
	ck_assert_str_eq(out, "bpfspec: f.yaml:4:5: error: eof\n"
			      "    4 | last\n"
			      "      |     ^\n");
	free(out);

	/* No such line: the header only.  Line 0: no position at all. */
	capture_start();
	diag_at(DIAG_ERROR, &src, (diag_loc){ 9, 1, 1, NULL }, NULL, "gone");
	diag_at(DIAG_ERROR, &src, (diag_loc){ 0, 0, 0, NULL }, "h", "whole file");
	out = capture_end();
	ck_assert_str_eq(out, "bpfspec: f.yaml:9:1: error: gone\n"
			      "bpfspec: f.yaml: error: whole file\n"
			      "hint: h\n");
	ck_assert_uint_eq(diag_error_count(), 2);
	free(out);
}
END_TEST

START_TEST(test_diag_long_line)
{
	char line[1000];
	diag_src src = { "l.yaml", line, sizeof(line) };
	char *out;

	for (size_t i = 0; i < sizeof(line); i++)
		line[i] = (char)('a' + i % 26);
	capture_start();
	diag_at(DIAG_ERROR, &src, (diag_loc){ 1, 500, 3, NULL }, NULL, "x");
	out = capture_end();
	/* A window around the caret, marked with "...", caret aligned. */
	const char *l1 = strchr(out, '\n') + 1, *l2 = strchr(l1, '\n') + 1;
	ck_assert(strncmp(l1, "    1 | ...", 11) == 0);
	ck_assert_uint_eq(strchr(l1, '\n') - l1, 8 + 3 + 160 + 3);
	const char *caret = strchr(l2, '^');
	ck_assert_ptr_nonnull(caret);
	ck_assert_int_eq(l1[caret - l2], line[499]);
	ck_assert(strncmp(caret, "^~~\n", 4) == 0);
	free(out);
}
END_TEST

START_TEST(test_diag_plain)
{
	char *out;

	capture_start();
	diag_error("try again", "cannot %s", "open");
	diag_error(NULL, "no hint");
	diag_warn("careful %d", 1);
	diag_verbose("hidden");
	diag_set_verbose(1);
	diag_verbose("shown %s", "now");
	diag_set_verbose(0);
	out = capture_end();
	ck_assert_str_eq(out, "bpfspec: error: cannot open\n"
			      "hint: try again\n"
			      "bpfspec: error: no hint\n"
			      "bpfspec: warning: careful 1\n"
			      "bpfspec: note: shown now\n");
	ck_assert_uint_eq(diag_error_count(), 2);
	diag_reset_counts();
	ck_assert_uint_eq(diag_error_count(), 0);
	free(out);
}
END_TEST

START_TEST(test_diag_locations)
{
	static const char text[] = "ab\ncaf\xc3\xa9 x\xff y\n\nz";
	diag_src src = { "x", text, sizeof(text) - 1 };
	diag_loc l;

	ck_assert_uint_eq(diag_char_len("a", 1), 1);
	ck_assert_uint_eq(diag_char_len("\xc3\xa9", 2), 2);
	ck_assert_uint_eq(diag_char_len("\xc3", 1), 1);	/* cut short */
	ck_assert_uint_eq(diag_char_len("\xe2\x86\x92", 3), 3);
	ck_assert_uint_eq(diag_char_len("\xf0\x9f\x98\x80", 4), 4);
	ck_assert_uint_eq(diag_char_len("\xed\xa0\x80", 3), 1);	/* surrogate */
	ck_assert_uint_eq(diag_char_len("\xc0\xaf", 2), 1);	/* overlong */
	ck_assert_uint_eq(diag_char_len("\xff", 1), 1);

	l = diag_loc_of(&src, 0, 2);
	ck_assert(l.line == 1 && l.col == 1 && l.span == 2);
	l = diag_loc_of(&src, 9, 12);	/* "x\xff " after "café " */
	ck_assert_msg(l.line == 2 && l.col == 6 && l.span == 3, "%u:%u+%u", l.line, l.col, l.span);
	l = diag_loc_of(&src, 3, 100);	/* clipped to the line */
	ck_assert(l.line == 2 && l.col == 1 && l.span == 9);
	l = diag_loc_of(&src, 14, 14);	/* the empty line */
	ck_assert(l.line == 3 && l.col == 1 && l.span == 1);
	l = diag_loc_of(&src, 999, 999);	/* past the end: the end */
	ck_assert(l.line == 4 && l.col == 2 && l.span == 1);
}
END_TEST

/* ---- parameters and --set --------------------------------------------- */

static const char PARAM_SPEC[] =
	"parameters:\n"
	"  threshold:\n"
	"    default: 1ms\n"
	"    description: slowest open recorded\n"
	"  calls: [openat, read]\n"
	"  every: all\n"
	"  records: 200\n"
	"probes:\n"
	"  - name: file\n"
	"    kind: syscalls\n"
	"    syscalls: ${calls}\n"
	"  - name: any\n"
	"    kind: syscalls\n"
	"    syscalls: ${every}\n"
	"  - name: slow\n"
	"    kind: events\n"
	"    syscalls: [openat]\n"
	"    threshold: \"${threshold}\"\n"
	"    limit: ${records}\n";

/* Parses PARAM_SPEC with SETS; *OUT gets the diagnostics (owned). */
static spec *parse_set(char *const *sets, size_t n, char **out)
{
	spec *s;

	capture_start();
	s = spec_parse_set("t/p.yaml", PARAM_SPEC, strlen(PARAM_SPEC), sets, n);
	*out = capture_end();
	return s;
}

START_TEST(test_param_defaults)
{
	char *out;
	spec *s = parse_set(NULL, 0, &out);

	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(s->probes[0].n_syscalls, 2);
	ck_assert(s->probes[1].all_syscalls);
	ck_assert_uint_eq(s->probes[2].threshold_ns, 1000000);
	ck_assert_uint_eq(s->probes[2].limit, 200);
	ck_assert_uint_eq(s->n_params, 4);
	ck_assert_str_eq(s->params[0].name, "threshold");
	ck_assert_str_eq(s->params[0].value, "1ms");
	ck_assert_str_eq(s->params[0].description, "slowest open recorded");
	ck_assert_str_eq(s->params[1].value, "openat,read");
	ck_assert(!s->params[0].overridden);
	spec_free(s);
	free(out);
}
END_TEST

START_TEST(test_param_overrides)
{
	char *sets[] = { "threshold=5ms", "calls=write", "every=openat,close",
			 "records=7", "threshold=20ms", "calls=[read, write, close]" };
	char *out;
	spec *s = parse_set(sets, 6, &out);

	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_uint_eq(s->probes[2].threshold_ns, 20000000);	/* the later wins */
	ck_assert_uint_eq(s->probes[2].limit, 7);
	ck_assert_uint_eq(s->probes[0].n_syscalls, 3);
	ck_assert(!s->probes[1].all_syscalls);
	ck_assert_uint_eq(s->probes[1].n_syscalls, 2);
	ck_assert_str_eq(s->params[0].value, "20ms");
	ck_assert(s->params[0].overridden);
	ck_assert_str_eq(s->params[1].value, "read,write,close");
	spec_free(s);
	free(out);

	char *one[] = { "every=openat" };	/* one name where the default is all */
	s = parse_set(one, 1, &out);
	ck_assert_msg(s != NULL, "%s", out);
	ck_assert_uint_eq(s->probes[1].n_syscalls, 1);
	spec_free(s);
	free(out);
}
END_TEST

/* Each bad --set: the message and where it points in the --set text. */
static const struct {
	const char *set, *msg, *where;
} bad_sets[] = {
	{ "threshold=abc", "invalid threshold 'abc'", "--set:1:11:" },
	{ "thresold=2ms", "no parameter 'thresold'", "did you mean 'threshold'" },
	{ "threshold", "has no '=VALUE'", "--set:1:1:" },
	{ "Threshold=1ms", "invalid parameter name", "--set:1:1:" },
	{ "calls=openat,,read", "empty value in the list", "--set:1:14:" },
	{ "calls=openat,nosuch", "unknown syscall 'nosuch'", "--set:1:14:" },
	{ "records=0", "limit", "--set:1:9:" },
	{ "records=1;system(\"x\")", "limit", "--set:1:9:" },
	{ "threshold=1ms}\n", "threshold", "--set:1:11:" },
};

START_TEST(test_param_bad_sets)
{
	char *sets[] = { (char *)bad_sets[_i].set };
	char *out;
	spec *s = parse_set(sets, 1, &out);

	ck_assert_msg(s == NULL, "accepted --set %s", bad_sets[_i].set);
	ck_assert_contains(out, bad_sets[_i].msg);
	ck_assert_contains(out, bad_sets[_i].where);
	free(out);
}
END_TEST

START_TEST(test_param_spec_errors)
{
	char *out;

	out = parse_fail("probes:\n  - {name: a, kind: syscalls, syscalls: \"${x}\"}\n");
	ck_assert_contains(out, "t/test.yaml:2:41: error: unknown parameter 'x'");
	free(out);
	out = parse_fail("parameters: {t: 1ms}\nprobes:\n  - {name: a, kind: events, "
			 "syscalls: [read], threshold: \"x${t}\"}\n");
	ck_assert_contains(out, "not a whole parameter value");
	free(out);
	out = parse_fail("parameters: [a, b]\nprobes:\n  - {name: a, kind: syscalls, syscalls: all}\n");
	ck_assert_contains(out, "'parameters' must be a mapping");
	free(out);
	/* A list default cannot smuggle a mapping or a key. */
	out = parse_fail("parameters: {k: [{a: b}]}\nprobes:\n  - {name: a, kind: syscalls, syscalls: \"${k}\"}\n");
	ck_assert_contains(out, "is not a value");
	free(out);
	/* --set on a spec without parameters. */
	char *sets[] = { "x=1" };
	capture_start();
	spec *s = spec_parse_set("t/n.yaml", "probes:\n  - {name: a, kind: syscalls, syscalls: all}\n",
				 52, sets, 1);
	out = capture_end();
	ck_assert_ptr_null(s);
	ck_assert_contains(out, "this spec declares no parameters");
	free(out);
}
END_TEST

START_TEST(test_param_unused_warns)
{
	char *out;
	spec *s = parse("parameters: {t: 1ms}\nprobes:\n  - {name: a, kind: syscalls, syscalls: all}\n",
			&out);

	ck_assert_ptr_nonnull(s);
	ck_assert_contains(out, "warning: parameter 't' is not used");
	spec_free(s);
	free(out);
}
END_TEST

static Suite *spec_suite(void)
{
	Suite *s = suite_create("spec");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_spellings);
	tcase_add_test(tc, test_text_fields);
	tcase_add_test(tc, test_names_and_limits);
	tcase_add_test(tc, test_syscall_probes);
	tcase_add_test(tc, test_syscall_limits);
	tcase_add_test(tc, test_kind_rules);
	tcase_add_test(tc, test_durations);
	tcase_add_test(tc, test_names_of_enums);
	tcase_add_loop_test(tc, test_error_cases, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_loop_test(tc, test_every_kind_refuses_keys_it_does_not_take, 0, N_PROBE_KINDS);
	tcase_add_test(tc, test_nul_byte);
	tcase_add_test(tc, test_count_points);
	tcase_add_test(tc, test_point_events);
	tcase_add_test(tc, test_span_labels);
	tcase_add_test(tc, test_count_probes);
	tcase_add_test(tc, test_checks);
	tcase_add_test(tc, test_checks_limit);
	tcase_add_test(tc, test_checks_after_bad_probe);
	tcase_add_test(tc, test_all_errors_reported);
	tcase_add_test(tc, test_error_cap);
	tcase_add_test(tc, test_mangled);
	tcase_add_test(tc, test_param_defaults);
	tcase_add_test(tc, test_param_overrides);
	tcase_add_loop_test(tc, test_param_bad_sets, 0, (int)(sizeof(bad_sets) / sizeof(bad_sets[0])));
	tcase_add_test(tc, test_param_spec_errors);
	tcase_add_test(tc, test_param_unused_warns);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_add_checked_fixture(tc, setup_tmp, teardown_tmp);
	tcase_add_test(tc, test_load);
	tcase_add_test(tc, test_load_failures);
	suite_add_tcase(s, tc);

	tc = tcase_create("diag");
	tcase_add_test(tc, test_diag_format);
	tcase_add_test(tc, test_diag_long_line);
	tcase_add_test(tc, test_diag_plain);
	tcase_add_test(tc, test_diag_locations);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(spec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
