/* Unit tests for render: the JSON report (schema 2, docs/report.md) parsed
 * back with jansson, every documented field with its type and value; the
 * text view's probe rows, skipped probes and percentile note; and write
 * errors (/dev/full) reported as -1 by both.  The report is built by
 * report_build from bpftrace JSON lines fed to the real parser.  Run under
 * valgrind (CK_FORK=no) for leaks. */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/report.h"
#include "run/report_build.h"
#include "program/resolve.h"
#include "render/render.h"
#include "run/bpfout.h"
#include "spec/spec.h"
#include "target/target.h"
#include "util/diag.h"
#include "util/version.h"

/* ---- helpers ------------------------------------------------------- */

static const char spec_yaml[] =
	"name: demo\n"
	"probes:\n"
	"  - name: timers\n"
	"    kind: latency\n"
	"    function: uv__run_timers\n"
	"    unit: ms\n"
	"  - name: poll\n"
	"    kind: latency\n"
	"    function: uv__io_poll\n"
	"    per_thread: false\n"
	"  - name: gone\n"
	"    kind: latency\n"
	"    function: missing_fn\n"
	"    optional: true\n";

/* Bucket 300 is [3670016, 3801088), 301 is [3801088, 3932160). */
static const char *const lines[] = {
	"{\"type\": \"attached_probes\", \"data\": {\"probes\": 5}}",
	"{\"type\": \"printf\", \"data\": \"bpfspec:begin 1000000000\\n\"}",
	"{\"type\": \"printf\", \"data\": \"bpfspec:flush 3000000000\\n\"}",
	"{\"type\": \"map\", \"data\": {\"@b_timers\": {\"100,300\": 3, \"50,301\": 2}}}",
	"{\"type\": \"map\", \"data\": {\"@sum_timers\": {\"100\": 11100000, \"50\": 7700000}}}",
	"{\"type\": \"map\", \"data\": {\"@min_timers\": {\"100\": 3680000, \"50\": 3810000}}}",
	"{\"type\": \"map\", \"data\": {\"@max_timers\": {\"100\": 3790000, \"50\": 3890000}}}",
	"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
};

static report *rep;

/* Builds the report of LINES for a spec/target/resolution made by hand,
 * then frees everything but the report. */
static void setup(void)
{
	char *diag = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&diag, &len);

	diag_set_stream(f);
	spec *s = spec_parse("t/demo.yaml", spec_yaml, strlen(spec_yaml));
	diag_set_stream(NULL);
	fclose(f);
	ck_assert_msg(s != NULL, "spec does not parse:\n%s", diag);
	free(diag);

	char exe[] = "/usr/bin/x", reason[] = "missing_fn: not found (inlined)";
	char *objects[] = { exe };
	target t = { .pid = 100, .exe = exe, .objects = objects, .n_objects = 1 };
	uint64_t addrs[] = { 0x1000, 0x2000 };
	resolved_probe rp[] = {
		{ .sp = &s->probes[0], .active = true, .object = exe, .addrs = addrs, .n_addrs = 1 },
		{ .sp = &s->probes[1], .active = true, .object = exe, .addrs = addrs + 1,
		  .n_addrs = 1 },
		{ .sp = &s->probes[2], .active = false, .reason = reason },
	};
	resolved r = { .sp = s, .tg = &t, .probes = rp, .n_probes = 3, .n_active = 2 };

	bpfout *p = bpfout_new();
	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		bpfout_feed(p, lines[i], strlen(lines[i]));
	ck_assert_uint_eq(bpfout_window_count(p), 1);
	report_run run = { .pid = 100, .attached_probes = bpfout_attached(p),
			   .expected_probes = 5, .lost_events = 3 };
	rep = report_build(&r, bpfout_window_at(p, 0), &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_int_eq(report_add_warning(rep, "bpftrace lost 3 events"), 0);
	bpfout_free(p);
	spec_free(s);
}

static void teardown(void)
{
	report_free(rep);
	rep = NULL;
}

typedef int (*render_fn)(FILE *, const report *);

/* Renders REP with FN into memory; returns the text (owned). */
static char *render_to_string(render_fn fn)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fn(f, rep), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

/* Renders and parses the JSON report; returns the root (owned). */
static json_t *render_parsed(void)
{
	char *text = render_to_string(render_json);
	json_error_t err;
	json_t *root = json_loads(text, 0, &err);

	ck_assert_msg(root != NULL, "invalid JSON at line %d: %s\n%s", err.line, err.text, text);
	ck_assert_msg(text[strlen(text) - 1] == '\n', "no final newline");
	free(text);
	return root;
}

/* OBJ[KEY] exists and has TYPE; returns it (borrowed). */
static json_t *field(const json_t *obj, const char *key, json_type type)
{
	ck_assert_msg(json_is_object(obj), "not an object where \"%s\" is expected", key);
	json_t *v = json_object_get(obj, key);
	ck_assert_msg(v != NULL, "missing key \"%s\"", key);
	ck_assert_msg(json_typeof(v) == type, "key \"%s\" has type %d, want %d", key,
		      (int)json_typeof(v), (int)type);
	return v;
}

static json_int_t int_field(const json_t *obj, const char *key)
{
	return json_integer_value(field(obj, key, JSON_INTEGER));
}

static const char *str_field(const json_t *obj, const char *key)
{
	return json_string_value(field(obj, key, JSON_STRING));
}

static void check_bool(const json_t *obj, const char *key, int want)
{
	json_t *v = json_object_get(obj, key);
	ck_assert_msg(v != NULL && json_is_boolean(v), "\"%s\" missing or not a boolean", key);
	ck_assert_int_eq(json_is_true(v), want);
}

/* The statistics fields of a probe or group, against ST. */
static void check_stats(const json_t *obj, const report_stats *st)
{
	ck_assert_int_eq(int_field(obj, "count"), (json_int_t)st->count);
	ck_assert_int_eq(int_field(obj, "sum_ns"), (json_int_t)st->sum_ns);
	ck_assert_int_eq(int_field(obj, "min_ns"), (json_int_t)st->min_ns);
	ck_assert_int_eq(int_field(obj, "max_ns"), (json_int_t)st->max_ns);
	ck_assert_int_eq(int_field(obj, "mean_ns"),
			 (json_int_t)(st->count ? st->sum_ns / st->count : 0));
	ck_assert_int_eq(int_field(obj, "p50_ns"), (json_int_t)st->p50_ns);
	ck_assert_int_eq(int_field(obj, "p90_ns"), (json_int_t)st->p90_ns);
	ck_assert_int_eq(int_field(obj, "p99_ns"), (json_int_t)st->p99_ns);
	json_t *bs = field(obj, "buckets", JSON_ARRAY);
	ck_assert_uint_eq(json_array_size(bs), st->n_buckets);
	for (size_t i = 0; i < st->n_buckets; i++) {
		json_t *b = json_array_get(bs, i);
		ck_assert_int_eq(int_field(b, "lo_ns"), (json_int_t)st->buckets[i].lo_ns);
		ck_assert_int_eq(int_field(b, "hi_ns"), (json_int_t)st->buckets[i].hi_ns);
		ck_assert_int_eq(int_field(b, "count"), (json_int_t)st->buckets[i].count);
		ck_assert_uint_eq(json_object_size(b), 3);
	}
}

/* ---- JSON ---------------------------------------------------------- */

START_TEST(test_json_top)
{
	json_t *root = render_parsed();

	ck_assert_int_eq(int_field(root, "schema"), 2);
	ck_assert_int_eq(BPFSPEC_REPORT_SCHEMA, 2);
	ck_assert_str_eq(str_field(root, "bpfspec_version"), BPFSPEC_VERSION);
	ck_assert_str_eq(str_field(root, "spec"), "demo");
	ck_assert_str_eq(str_field(root, "spec_path"), "t/demo.yaml");
	json_t *t = field(root, "target", JSON_OBJECT);
	ck_assert_int_eq(int_field(t, "pid"), 100);
	ck_assert_str_eq(str_field(t, "binary"), "/usr/bin/x");
	ck_assert_int_eq(int_field(root, "duration_ns"), 2000000000);
	check_bool(root, "partial", 0);
	ck_assert_ptr_null(json_object_get(root, "partial_reason"));
	ck_assert_int_eq(int_field(root, "lost_events"), 3);
	ck_assert_int_eq(int_field(root, "attached_probes"), 5);
	ck_assert_int_eq(int_field(root, "expected_probes"), 5);
	ck_assert_str_eq(str_field(root, "percentile_method"), REPORT_PERCENTILE_METHOD);
	json_t *w = field(root, "warnings", JSON_ARRAY);
	ck_assert_uint_eq(json_array_size(w), 1);
	ck_assert_str_eq(json_string_value(json_array_get(w, 0)), "bpftrace lost 3 events");
	ck_assert_uint_eq(json_array_size(field(root, "probes", JSON_ARRAY)), 3);
	json_decref(root);
}
END_TEST

START_TEST(test_json_probes)
{
	json_t *root = render_parsed();
	json_t *probes = field(root, "probes", JSON_ARRAY);

	ck_assert_uint_eq(json_array_size(probes), rep->n_probes);
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		json_t *jp = json_array_get(probes, i);

		ck_assert_str_eq(str_field(jp, "name"), p->name);
		ck_assert_str_eq(str_field(jp, "kind"), "latency");
		ck_assert_str_eq(str_field(jp, "function"), p->function);
		ck_assert_str_eq(str_field(jp, "unit"), p->unit);
		check_bool(jp, "attached", p->attached);
		if (p->attached) {
			ck_assert_str_eq(str_field(jp, "object"), "/usr/bin/x");
			ck_assert_msg(json_object_get(jp, "reason") == NULL,
				      "probe %s is attached but has a reason", p->name);
		} else {
			field(jp, "object", JSON_NULL);
			ck_assert_str_eq(str_field(jp, "reason"), p->reason);
		}
		check_stats(jp, &p->st);

		json_t *groups = field(jp, "groups", JSON_ARRAY);
		ck_assert_uint_eq(json_array_size(groups), p->n_groups);
		for (size_t g = 0; g < p->n_groups; g++) {
			json_t *jg = json_array_get(groups, g);
			ck_assert_int_eq(int_field(jg, "tid"), p->groups[g].tid);
			ck_assert_ptr_nonnull(json_object_get(jg, "thread"));
			check_bool(jg, "main_thread", p->groups[g].tid == 100);
			check_stats(jg, &p->groups[g].st);
		}
	}

	/* The values themselves, for one probe. */
	json_t *timers = json_array_get(probes, 0);
	ck_assert_int_eq(int_field(timers, "count"), 5);
	ck_assert_int_eq(int_field(timers, "sum_ns"), 18800000);
	ck_assert_int_eq(int_field(timers, "min_ns"), 3680000);
	ck_assert_int_eq(int_field(timers, "max_ns"), 3890000);
	ck_assert_int_eq(int_field(timers, "mean_ns"), 3760000);
	json_t *b0 = json_array_get(field(timers, "buckets", JSON_ARRAY), 0);
	ck_assert_int_eq(int_field(b0, "lo_ns"), 3670016);
	ck_assert_int_eq(int_field(b0, "hi_ns"), 3801088);
	ck_assert_int_eq(int_field(b0, "count"), 3);
	json_t *g0 = json_array_get(field(timers, "groups", JSON_ARRAY), 0);
	ck_assert_int_eq(int_field(g0, "tid"), 100);
	check_bool(g0, "main_thread", 1);
	ck_assert_int_eq(int_field(g0, "count"), 3);
	json_t *poll = json_array_get(probes, 1);
	ck_assert_int_eq(int_field(poll, "count"), 0);
	ck_assert_uint_eq(json_array_size(field(poll, "buckets", JSON_ARRAY)), 0);
	ck_assert_uint_eq(json_array_size(field(poll, "groups", JSON_ARRAY)), 0);
	json_decref(root);
}
END_TEST

START_TEST(test_json_partial)
{
	rep->partial = true;
	rep->partial_reason = strdup("the target exited");
	ck_assert_ptr_nonnull(rep->partial_reason);
	json_t *root = render_parsed();
	check_bool(root, "partial", 1);
	ck_assert_str_eq(str_field(root, "partial_reason"), "the target exited");
	json_decref(root);
}
END_TEST

/* Text that needs escaping stays one valid JSON string. */
START_TEST(test_json_escaping)
{
	free(rep->probes[2].reason);
	rep->probes[2].reason = strdup("a \"quoted\"\nline\\ \x01 caf\xc3\xa9");
	ck_assert_ptr_nonnull(rep->probes[2].reason);
	json_t *root = render_parsed();
	json_t *gone = json_array_get(field(root, "probes", JSON_ARRAY), 2);
	ck_assert_str_eq(str_field(gone, "reason"), "a \"quoted\"\nline\\ \x01 caf\xc3\xa9");
	json_decref(root);
}
END_TEST

/* ---- text ---------------------------------------------------------- */

START_TEST(test_text)
{
	char *text = render_to_string(render_text);

	ck_assert_contains(text, "bpfspec demo: pid 100 (/usr/bin/x), window 2.000 s\n");
	ck_assert_contains(text, "WARNING: bpftrace lost 3 events");
	ck_assert_contains(text, "PROBE ");
	ck_assert_contains(text, "\ntimers ");
	ck_assert_contains(text, "\npoll ");
	ck_assert_contains(text, "\ngone           not attached: missing_fn: not found (inlined)\n");
	ck_assert_contains(text, "timers: uv__run_timers in /usr/bin/x\n");
	/* Units: timers in ms. */
	ck_assert_contains(text, "18.80ms");
	ck_assert_contains(text, "distribution");
	/* Two threads: a per-thread table with the main thread marked. */
	ck_assert_contains(text, "TID ");
	ck_assert_contains(text, " (main)");
	ck_assert_contains(text, "warning: bpftrace lost 3 events");
	ck_assert_contains(text, "~ percentiles are estimates: " REPORT_PERCENTILE_METHOD
				 "; count, total, min and max are exact.\n");
	free(text);
}
END_TEST

START_TEST(test_text_partial)
{
	rep->partial = true;
	rep->attached_probes = 3;
	char *text = render_to_string(render_text);
	ck_assert_contains(text, "PARTIAL: run cut short\n");
	ck_assert_contains(text, "WARNING: 3 of 5 probes attached\n");
	free(text);
}
END_TEST

/* ---- write errors -------------------------------------------------- */

static void check_write_error(render_fn fn, const char *what)
{
	FILE *f = fopen("/dev/full", "w");

	ck_assert_msg(f != NULL, "cannot open /dev/full");
	ck_assert_msg(fn(f, rep) == -1, "%s to /dev/full did not return -1", what);
	fclose(f);
}

START_TEST(test_write_errors)
{
	check_write_error(render_json, "render_json");
	check_write_error(render_text, "render_text");
}
END_TEST

/* Unbuffered: the very first write fails. */
START_TEST(test_write_error_unbuffered)
{
	FILE *f = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(f);
	setvbuf(f, NULL, _IONBF, 0);
	ck_assert_int_eq(render_json(f, rep), -1);
	ck_assert_int_eq(render_text(f, rep), -1);
	fclose(f);
}
END_TEST

static Suite *render_suite(void)
{
	Suite *s = suite_create("render");
	TCase *tc = tcase_create("json");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_json_top);
	tcase_add_test(tc, test_json_probes);
	tcase_add_test(tc, test_json_partial);
	tcase_add_test(tc, test_json_escaping);
	suite_add_tcase(s, tc);

	tc = tcase_create("text");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_text_partial);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_write_errors);
	tcase_add_test(tc, test_write_error_unbuffered);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(render_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
