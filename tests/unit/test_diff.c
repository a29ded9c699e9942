/* Unit tests for diff: JSON reports recorded with the real tool
 * (tests/fixtures/reports/, see the README there; schema 1) are loaded
 * back into the report model and written again byte for byte but for what
 * schema 2 renamed, attribution (splits and loop blockers) too; a schema 2
 * report is written again as it was; every load error names the file and
 * the JSON path, and its message is checked; the text and JSON
 * comparisons of two recorded runs show the expected rows and numbers.
 * Run under valgrind (CK_FORK=no) for leaks. */
#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "model/report.h"
#include "render/diff.h"
#include "render/render.h"
#include "render/report_load.h"
#include "util/diag.h"
#include "util/systab.h"
#include "util/version.h"

/* ---- helpers ------------------------------------------------------------ */

static const char *const fixtures[] = {
	"phases-before.json", "phases-after.json", "file-io.json", "file-io-events.json",
	"utilization.json", "hostile-count.json", "hostile-usdt.json",
};

/* The path of tests/fixtures/reports/NAME from the repo top (the tests
 * run from there), or from $TOP. */
static void fixture_path(char *out, size_t len, const char *name)
{
	static const char *const dirs[] = { ".", "..", "../.." };
	const char *top = getenv("TOP");

	if (top) {
		snprintf(out, len, "%s/tests/fixtures/reports/%s", top, name);
		if (access(out, R_OK) == 0)
			return;
	}
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		snprintf(out, len, "%s/tests/fixtures/reports/%s", dirs[i], name);
		if (access(out, R_OK) == 0)
			return;
	}
	ck_abort_msg("fixture %s not found (run from the repo top or set TOP)", name);
}

/* The bytes of fixture NAME (owned, NUL-terminated); *LEN their number. */
static char *fixture_text(const char *name, size_t *len)
{
	char path[4096];
	fixture_path(path, sizeof path, name);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char *text = NULL;
	size_t cap = 0;
	*len = 0;
	for (;;) {
		text = realloc(text, cap += 65536);
		ck_assert_ptr_nonnull(text);
		size_t got = fread(text + *len, 1, cap - *len - 1, f);
		*len += got;
		if (got == 0)
			break;
	}
	text[*len] = '\0';
	fclose(f);
	return text;
}

/* Diagnostics go to memory while a test loads something. */
static char *diag_text;
static size_t diag_len;
static FILE *diag_mem;

static void setup(void)
{
	diag_text = NULL;
	diag_mem = open_memstream(&diag_text, &diag_len);
	ck_assert_ptr_nonnull(diag_mem);
	diag_set_stream(diag_mem);
}

static void teardown(void)
{
	diag_set_stream(NULL);
	fclose(diag_mem);
	free(diag_text);
	diag_mem = NULL;
	diag_text = NULL;
}

/* What was diagnosed since the last call (borrowed until the next). */
static const char *diagnostics(void)
{
	fflush(diag_mem);
	return diag_text ? diag_text : "";
}

static void clear_diagnostics(void)
{
	diag_set_stream(NULL);
	fclose(diag_mem);
	free(diag_text);
	setup();
}

static report *load_fixture(const char *name)
{
	char path[4096];
	fixture_path(path, sizeof path, name);
	report *rep = report_load_json(path);
	ck_assert_msg(rep != NULL, "%s does not load:\n%s", name, diagnostics());
	return rep;
}

/* Parses TEXT as a report named NAME, expecting it to fail; returns the
 * diagnostics (borrowed). */
static const char *load_error(const char *text, size_t len, const char *name)
{
	clear_diagnostics();
	report *rep = report_parse_json(text, len, name);
	ck_assert_msg(rep == NULL, "%s loaded although it should not", name);
	const char *d = diagnostics();
	ck_assert_msg(*d, "no diagnostic for %s", name);
	return d;
}

static json_t *fixture_json(const char *name)
{
	size_t len;
	char *text = fixture_text(name, &len);
	json_error_t err;
	json_t *root = json_loadb(text, len, 0, &err);
	ck_assert_msg(root != NULL, "%s: %s", name, err.text);
	free(text);
	return root;
}

/* The report ROOT (consumed) describes, through the loader. */
static report *report_of(json_t *root, const char *name)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	ck_assert_ptr_nonnull(text);
	json_decref(root);
	report *rep = report_parse_json(text, strlen(text), name);
	ck_assert_msg(rep != NULL, "%s does not load:\n%s", name, diagnostics());
	free(text);
	return rep;
}

/* Loads ROOT (consumed) expecting an error; returns the diagnostics. */
static const char *json_error_of(json_t *root, const char *name)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	ck_assert_ptr_nonnull(text);
	json_decref(root);
	const char *d = load_error(text, strlen(text), name);
	free(text);
	return d;
}

/* ROOT.probes[I] (borrowed). */
static json_t *probe_at(json_t *root, size_t i)
{
	json_t *p = json_array_get(json_object_get(root, "probes"), i);
	ck_assert_ptr_nonnull(p);
	return p;
}

static char *diff_to_string(const report *b, const report *a, diff_format fmt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(diff_render(f, b, a, fmt), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(text), len);
	ck_assert_msg(len > 0 && text[len - 1] == '\n', "no final newline");
	return text;
}

static json_t *diff_parsed(const report *b, const report *a)
{
	char *text = diff_to_string(b, a, DIFF_JSON);
	json_error_t err;
	json_t *root = json_loads(text, 0, &err);
	ck_assert_msg(root != NULL, "invalid JSON at line %d: %s\n%s", err.line, err.text, text);
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

static double real_field(const json_t *obj, const char *key)
{
	return json_real_value(field(obj, key, JSON_REAL));
}

static const char *str_field(const json_t *obj, const char *key)
{
	return json_string_value(field(obj, key, JSON_STRING));
}

/* The element of ARR whose KEY is NAME (borrowed). */
static json_t *find_by(const json_t *arr, const char *key, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (strcmp(str_field(v, key), name) == 0)
			return v;
	ck_abort_msg("no element with %s \"%s\"", key, name);
	return NULL;
}

/* 100 * (A - B) / B rounded to 0.01, as the diff computes it. */
static double pct_of(double b, double a)
{
	double x = (a - b) / b * 100.0 * 100.0;
	return (double)(long long)(x < 0 ? x - 0.5 : x + 0.5) / 100.0;
}

static void ck_assert_near(double got, double want)
{
	ck_assert_msg(got - want < 1e-9 && want - got < 1e-9, "got %.17g, want %.17g", got, want);
}

/* ---- loading: the model ------------------------------------------------- */

START_TEST(test_load_phases)
{
	report *rep = load_fixture("phases-before.json");

	ck_assert_str_eq(rep->spec_name, "libuv-phases");
	ck_assert_str_eq(rep->spec_path, "specs/libuv-phases.yaml");
	ck_assert_int_eq(rep->pid, 24140);
	ck_assert_str_eq(rep->binary, "/usr/bin/node");
	ck_assert_uint_eq(rep->duration_ns, 3000553904u);
	ck_assert(!rep->partial);
	ck_assert_ptr_null(rep->partial_reason);
	ck_assert_int_eq(rep->attached_probes, 13);
	ck_assert_int_eq(rep->expected_probes, 13);
	ck_assert_uint_eq(rep->n_probes, 7);
	ck_assert_uint_eq(rep->n_warnings, 0);

	const report_probe *t = &rep->probes[0];
	ck_assert_str_eq(t->name, "timers");
	ck_assert_int_eq(t->kind, PROBE_LATENCY);
	ck_assert_str_eq(t->function, "uv__run_timers");
	ck_assert_str_eq(t->object, "/usr/bin/node");
	ck_assert_str_eq(t->unit, "ms");
	ck_assert_uint_eq(t->unit_ns, 1000000);
	ck_assert(t->attached);
	ck_assert_uint_eq(t->st.count, 165);
	ck_assert_uint_eq(t->st.sum_ns, 1272774818u);
	ck_assert_uint_eq(t->st.min_ns, 389);
	ck_assert_uint_eq(t->st.max_ns, 41083505);
	ck_assert_uint_eq(t->st.p50_ns, 2035890);
	ck_assert_uint_eq(t->st.p90_ns, 40707218);
	ck_assert_uint_eq(t->st.p99_ns, 41083505);
	ck_assert_uint_gt(t->st.n_buckets, 10);
	ck_assert_uint_eq(t->st.buckets[0].lo_ns, 384);
	ck_assert_uint_eq(t->st.buckets[0].hi_ns, 400);
	ck_assert_uint_eq(t->st.buckets[0].count, 4);
	uint64_t total = 0;
	for (size_t i = 0; i < t->st.n_buckets; i++)
		total += t->st.buckets[i].count;
	ck_assert_uint_eq(total, 165);
	/* Main thread first, with its own histogram. */
	ck_assert_uint_eq(t->n_groups, 3);
	ck_assert_int_eq(t->groups[0].tid, 24140);
	ck_assert_uint_gt(t->groups[0].st.n_buckets, 0);
	uint64_t groups = 0;
	for (size_t g = 0; g < t->n_groups; g++)
		groups += t->groups[g].st.count;
	ck_assert_uint_eq(groups, 165);

	const report_probe *pend = &rep->probes[1];
	ck_assert_str_eq(pend->name, "pending");
	ck_assert(!pend->attached);
	ck_assert_ptr_null(pend->object);
	ck_assert_ptr_nonnull(pend->reason);
	ck_assert_contains(pend->reason, "inlined by the compiler");
	report_free(rep);
}
END_TEST

START_TEST(test_load_syscalls_events)
{
	report *rep = load_fixture("file-io-events.json");

	ck_assert_uint_eq(rep->n_probes, 2);
	const report_probe *f = &rep->probes[0];
	ck_assert_int_eq(f->kind, PROBE_SYSCALLS);
	ck_assert_uint_eq(f->unit_ns, 1000);
	ck_assert_uint_eq(f->n_syscalls, 4);
	ck_assert_uint_eq(f->n_groups, 5);
	ck_assert_uint_eq(f->groups[0].st.n_buckets, 0);
	uint64_t count = 0;
	const report_syscall *openat = NULL;
	for (size_t i = 0; i < f->n_syscalls; i++) {
		count += f->syscalls[i].st.count;
		if (strcmp(f->syscalls[i].name, "openat") == 0)
			openat = &f->syscalls[i];
	}
	ck_assert_uint_eq(count, f->st.count);
	ck_assert_ptr_nonnull(openat);
	ck_assert_int_eq(openat->nr, 257);
	ck_assert_uint_eq(openat->st.count, 1662);
	ck_assert_uint_gt(openat->st.n_buckets, 0);
	ck_assert_uint_eq(openat->error_count, 5);
	ck_assert_uint_eq(openat->n_errors, 1);
	ck_assert_str_eq(openat->errors[0].name, "ENOENT");
	ck_assert_int_eq(openat->errors[0].number, 2);
	ck_assert_uint_eq(openat->errors[0].count, 5);
	ck_assert_uint_gt(openat->n_threads, 1);
	ck_assert_ptr_nonnull(openat->threads[0].thread);

	const report_probe *ev = &rep->probes[1];
	ck_assert_int_eq(ev->kind, PROBE_EVENTS);
	ck_assert_uint_eq(ev->threshold_ns, 20000);
	ck_assert_uint_eq(ev->st.count, 16);
	ck_assert_uint_eq(ev->n_events, 8);
	ck_assert_uint_eq(ev->events_dropped, 8);
	ck_assert_uint_eq(ev->n_groups, 0);
	ck_assert_uint_eq(ev->events[0].t_ns, 24881906);
	ck_assert_int_eq(ev->events[0].tid, 24931);
	ck_assert_str_eq(ev->events[0].thread, "node");
	ck_assert_str_eq(ev->events[0].syscall, "openat");
	ck_assert_uint_eq(ev->events[0].latency_ns, 25504);
	ck_assert_int_eq(ev->events[0].ret, 3);
	ck_assert_ptr_null(ev->events[0].error);
	ck_assert_str_eq(ev->events[0].path, "/etc/ssl/certs/ca-certificates.crt");
	ck_assert(!ev->events[0].path_truncated);
	ck_assert_ptr_null(ev->events[0].address);
	ck_assert(!ev->events[0].has_length);
	report_free(rep);
}
END_TEST

/* Every documented optional field: partial_reason, event error, address,
 * length, path_truncated; nulls where the schema allows them. */
START_TEST(test_load_optional_fields)
{
	json_t *root = fixture_json("file-io-events.json");
	json_object_set_new(root, "partial", json_true());
	json_object_set_new(root, "partial_reason", json_string("the target exited"));
	json_object_set_new(root, "spec_path", json_null());
	json_object_set_new(json_object_get(root, "target"), "binary", json_null());
	json_t *ev = json_array_get(json_object_get(probe_at(root, 1), "events"), 1);
	json_object_set_new(ev, "ret", json_integer(-2));
	json_object_set_new(ev, "error", json_string("ENOENT"));
	json_object_set_new(ev, "path_truncated", json_true());
	json_object_set_new(ev, "thread", json_null());
	ev = json_array_get(json_object_get(probe_at(root, 1), "events"), 2);
	json_object_del(ev, "path");
	json_object_set_new(ev, "address", json_string("[::1]:80"));
	json_object_set_new(ev, "length", json_integer(4096));
	report *rep = report_of(root, "opt.json");

	ck_assert(rep->partial);
	ck_assert_str_eq(rep->partial_reason, "the target exited");
	ck_assert_ptr_null(rep->spec_path);
	ck_assert_ptr_null(rep->binary);
	const report_event *e = rep->probes[1].events;
	ck_assert_int_eq(e[1].ret, -2);
	ck_assert_str_eq(e[1].error, "ENOENT");
	ck_assert(e[1].path_truncated);
	ck_assert_ptr_null(e[1].thread);
	ck_assert_ptr_null(e[2].path);
	ck_assert_str_eq(e[2].address, "[::1]:80");
	ck_assert(e[2].has_length);
	ck_assert_uint_eq(e[2].length, 4096);

	/* Both renderers take the loaded report as they take a fresh one. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_int_eq(render_text(f, rep), 0);
	fclose(f);
	ck_assert_contains(text, "PARTIAL: the target exited");
	ck_assert_contains(text, "-2 ENOENT");
	ck_assert_contains(text, "[::1]:80");
	free(text);
	report_free(rep);
}
END_TEST

START_TEST(test_load_stdin)
{
	char path[4096];
	fixture_path(path, sizeof path, "file-io.json");
	int fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	int saved = dup(0);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fd, 0), 0);
	close(fd);
	report *rep = report_load_json("-");
	ck_assert_int_eq(dup2(saved, 0), 0);
	close(saved);
	clearerr(stdin);
	ck_assert_msg(rep != NULL, "stdin does not load:\n%s", diagnostics());
	ck_assert_str_eq(rep->spec_name, "file-io");
	report_free(rep);
}
END_TEST

/* ---- loading: round trip -------------------------------------------------- */

/* TEXT with every FROM replaced by TO (owned). */
static char *replaced(const char *text, const char *from, const char *to)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(f);
	for (const char *at; (at = strstr(text, from)); text = at + strlen(from))
		fprintf(f, "%.*s%s", (int)(at - text), text, to);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return out;
}

/* render_json(load(F)) is F byte for byte, but for what this bpfspec
 * writes otherwise: its version (should it have moved on since F was
 * recorded), schema 2 for the fixtures' 1, and the duration of an events
 * record named duration_ns, not latency_ns (docs/report.md, "Schema
 * history"). */
START_TEST(test_round_trip)
{
	const char *name = fixtures[_i];
	size_t len;
	char *want = fixture_text(name, &len);
	static const char key[] = "\"bpfspec_version\": \"";
	char *v = strstr(want, key);
	ck_assert_ptr_nonnull(v);
	v += strlen(key);
	char *end = strchr(v, '"');
	ck_assert_ptr_nonnull(end);
	char *versioned = NULL;
	ck_assert_int_ge(asprintf(&versioned, "%.*s%s%s", (int)(v - want), want, BPFSPEC_VERSION,
				  end), 0);
	ck_assert_ptr_nonnull(strstr(versioned, "\n  \"schema\": 1,\n"));
	char *schema2 = replaced(versioned, "\n  \"schema\": 1,\n", "\n  \"schema\": 2,\n");
	char *expect = replaced(schema2, "\"latency_ns\": ", "\"duration_ns\": ");
	free(schema2);
	free(versioned);

	report *rep = load_fixture(name);
	char *got = NULL;
	size_t got_len = 0;
	FILE *f = open_memstream(&got, &got_len);
	ck_assert_int_eq(render_json(f, rep), 0);
	fclose(f);
	if (strcmp(got, expect) != 0) {
		size_t i = 0;
		while (got[i] && got[i] == expect[i])
			i++;
		ck_abort_msg("%s: round trip differs at byte %zu:\n--- got\n%.200s\n--- want\n%.200s",
			     name, i, got + (i > 80 ? i - 80 : 0), expect + (i > 80 ? i - 80 : 0));
	}
	free(got);
	free(expect);
	free(want);
	report_free(rep);
}
END_TEST

/* ---- loading: attribution ------------------------------------------------- */

/* The JSON value TEXT spells with ' for " (owned). */
static json_t *json_of(const char *text)
{
	char *dq = strdup(text);
	ck_assert_ptr_nonnull(dq);
	for (char *c = dq; *c; c++)
		if (*c == '\'')
			*c = '"';
	json_error_t err;
	json_t *v = json_loads(dq, 0, &err);
	ck_assert_msg(v != NULL, "%s: %s", err.text, dq);
	free(dq);
	return v;
}

/* An "attribution" object as render_why_json_split writes it for a phase
 * of TOTAL_NS: the parts, what they leave of the total, and two syscalls
 * ("syscall_999": a number this architecture has no name for). */
static json_t *attribution_json(json_int_t total_ns)
{
	json_t *a = json_of(
		"{'on_cpu_ns': 600000000, 'waiting_for_cpu_ns': 20000000, 'blocked_ns': 300000000,"
		" 'other_off_cpu_ns': 9000000, 'syscalls': ["
		"  {'syscall': 'read', 'calls': 12, 'time_ns': 310000000, 'blocked_ns': 290000000},"
		"  {'syscall': 'syscall_999', 'calls': 3, 'time_ns': 15000000,"
		"   'blocked_ns': 10000000}]}");
	json_object_set_new(a, "unaccounted_ns", json_integer(total_ns - 929000000));
	return a;
}

/* phases-before.json with probe "timers" attributed (as a whole and on
 * its main thread) and two loop blockers: a read of fd 7, which was
 * opened as /tmp/fifo, and a write that failed on a thread whose name is
 * not UTF-8 (thread holds the lossy text, thread_hex the bytes). */
static json_t *attributed_json(void)
{
	json_t *root = fixture_json("phases-before.json");
	json_t *timers = probe_at(root, 0);
	json_t *g0 = json_array_get(json_object_get(timers, "groups"), 0);
	json_int_t sum = json_integer_value(json_object_get(timers, "sum_ns"));
	json_object_set_new(timers, "attribution", attribution_json(sum));
	sum = json_integer_value(json_object_get(g0, "sum_ns"));
	json_object_set_new(g0, "attribution", attribution_json(sum));
	json_object_set_new(root, "blockers", json_of(
		"{'threshold_ns': 1000000, 'not_recorded': 3, 'records': ["
		"  {'t_ns': 1500000, 'phase': 'timers', 'tid': 24140, 'thread': 'node',"
		"   'main_thread': true, 'syscall': 'read', 'duration_ns': 2500000, 'ret': 4096,"
		"   'fd': 7, 'path': '/tmp/fifo'},"
		"  {'t_ns': 2000000, 'phase': 'timers', 'tid': 24164, 'thread': 'w\\ufffdk',"
		"   'thread_hex': '77ff6b', 'main_thread': false, 'syscall': 'write',"
		"   'duration_ns': 1200000, 'ret': -11, 'error': 'EAGAIN'}]}"));
	return root;
}

/* S is attribution_json's split. */
static void check_split(const report_split *s)
{
	ck_assert_uint_eq(s->cpu_ns, 600000000);
	ck_assert_uint_eq(s->wait_ns, 20000000);
	ck_assert_uint_eq(s->blocked_ns, 300000000);
	ck_assert_uint_eq(s->other_ns, 9000000);
	ck_assert_uint_eq(s->n_syscalls, 2);
	ck_assert_str_eq(s->syscalls[0].name, "read");
	ck_assert_int_eq(s->syscalls[0].nr, systab_syscall_nr("read"));
	ck_assert_int_ge(s->syscalls[0].nr, 0);
	ck_assert_uint_eq(s->syscalls[0].calls, 12);
	ck_assert_uint_eq(s->syscalls[0].time_ns, 310000000);
	ck_assert_uint_eq(s->syscalls[0].blocked_ns, 290000000);
	ck_assert_str_eq(s->syscalls[1].name, "syscall_999");
	ck_assert_int_eq(s->syscalls[1].nr, -1);
	ck_assert_uint_eq(s->syscalls[1].calls, 3);
	ck_assert_uint_eq(s->syscalls[1].time_ns, 15000000);
	ck_assert_uint_eq(s->syscalls[1].blocked_ns, 10000000);
}

/* REP is attributed_json's report. */
static void check_attributed(const report *rep)
{
	ck_assert(rep->attributed);
	ck_assert_uint_eq(rep->blocker_ns, 1000000);
	ck_assert_uint_eq(rep->blockers_dropped, 3);
	const report_probe *t = &rep->probes[0];
	ck_assert(t->attributed);
	check_split(&t->split);
	ck_assert_ptr_nonnull(t->groups[0].split);
	check_split(t->groups[0].split);
	ck_assert_ptr_null(t->groups[1].split);
	ck_assert_ptr_null(t->groups[2].split);
	for (size_t i = 1; i < rep->n_probes; i++)
		ck_assert(!rep->probes[i].attributed);

	ck_assert_uint_eq(rep->n_blockers, 2);
	const report_event *e = rep->blockers;
	ck_assert_uint_eq(e[0].t_ns, 1500000);
	ck_assert_str_eq(e[0].phase, "timers");
	ck_assert_int_eq(e[0].tid, 24140);
	ck_assert_str_eq(e[0].thread, "node");
	ck_assert_str_eq(e[0].syscall, "read");
	ck_assert_uint_eq(e[0].latency_ns, 2500000);
	ck_assert_int_eq(e[0].ret, 4096);
	ck_assert_ptr_null(e[0].error);
	ck_assert(e[0].has_fd);
	ck_assert_int_eq(e[0].fd, 7);
	ck_assert_str_eq(e[0].path, "/tmp/fifo");
	ck_assert(!e[0].path_truncated);
	ck_assert_uint_eq(e[1].t_ns, 2000000);
	ck_assert_int_eq(e[1].tid, 24164);
	ck_assert_str_eq(e[1].thread, "w\xffk");	/* the bytes of thread_hex */
	ck_assert_str_eq(e[1].syscall, "write");
	ck_assert_uint_eq(e[1].latency_ns, 1200000);
	ck_assert_int_eq(e[1].ret, -11);
	ck_assert_str_eq(e[1].error, "EAGAIN");
	ck_assert(!e[1].has_fd);
	ck_assert_ptr_null(e[1].path);
}

/* REP as render_json writes it (owned). */
static char *json_text(const report *rep)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(render_json(f, rep), 0);
	fclose(f);
	return text;
}

/* A report without attribution loads without it. */
START_TEST(test_load_no_attribution)
{
	report *rep = load_fixture("phases-before.json");
	ck_assert(!rep->attributed);
	ck_assert_uint_eq(rep->n_blockers, 0);
	ck_assert_ptr_null(rep->blockers);
	for (size_t i = 0; i < rep->n_probes; i++) {
		ck_assert(!rep->probes[i].attributed);
		ck_assert_uint_eq(rep->probes[i].split.n_syscalls, 0);
		for (size_t g = 0; g < rep->probes[i].n_groups; g++)
			ck_assert_ptr_null(rep->probes[i].groups[g].split);
	}
	report_free(rep);
}
END_TEST

/* The splits and the blockers load into the model, and render_json
 * writes back what was loaded: the same objects, and a fixed point. */
START_TEST(test_load_attribution)
{
	json_t *want = attributed_json();
	report *rep = report_of(json_incref(want), "why.json");
	check_attributed(rep);

	/* The text view re-renders them as a fresh report's. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_int_eq(render_text(f, rep), 0);
	fclose(f);
	ck_assert_contains(text, "WHY: ");
	ck_assert_contains(text, "read 290.0ms (12)");
	ck_assert_contains(text, "LOOP BLOCKERS: syscalls of 1.000ms or more");
	ck_assert_contains(text, "(and 3 not recorded: over the limit)");
	ck_assert_contains(text, "/tmp/fifo (fd 7)");
	ck_assert_contains(text, "-11 EAGAIN");
	free(text);

	char *once = json_text(rep);
	json_error_t err;
	json_t *got = json_loads(once, 0, &err);
	ck_assert_msg(got != NULL, "render_json wrote invalid JSON: %s", err.text);
	ck_assert(json_equal(json_object_get(got, "blockers"), json_object_get(want, "blockers")));
	json_t *gt = probe_at(got, 0), *wt = probe_at(want, 0);
	ck_assert(json_equal(json_object_get(gt, "attribution"),
			     json_object_get(wt, "attribution")));
	json_t *gg = json_object_get(gt, "groups"), *wg = json_object_get(wt, "groups");
	ck_assert(json_equal(json_object_get(json_array_get(gg, 0), "attribution"),
			     json_object_get(json_array_get(wg, 0), "attribution")));
	ck_assert_ptr_null(json_object_get(json_array_get(gg, 1), "attribution"));
	ck_assert_ptr_null(json_object_get(probe_at(got, 2), "attribution"));
	json_decref(got);
	json_decref(want);

	report *back = report_parse_json(once, strlen(once), "once.json");
	ck_assert_msg(back != NULL, "once.json does not load:\n%s", diagnostics());
	check_attributed(back);
	char *twice = json_text(back);
	ck_assert_str_eq(twice, once);
	free(twice);
	free(once);
	report_free(back);
	report_free(rep);
}
END_TEST

/* ---- loading: schemas ------------------------------------------------------ */

/* ROOT (a fixture, schema 1) as schema 2 has it: the number, and its
 * events records' latency_ns named duration_ns. */
static void to_schema2(json_t *root)
{
	size_t i, k;
	json_t *p, *ev;

	json_object_set_new(root, "schema", json_integer(2));
	json_array_foreach(json_object_get(root, "probes"), i, p) {
		json_array_foreach(json_object_get(p, "events"), k, ev) {
			json_t *d = json_object_get(ev, "latency_ns");
			if (!d)
				continue;
			json_object_set(ev, "duration_ns", d);
			json_object_del(ev, "latency_ns");
		}
	}
}

/* One loop blocker of 2.5 ms, a read of fd 7 opened as /tmp/fifo (a
 * "blockers" object). */
static json_t *one_blocker(void)
{
	return json_of("{'threshold_ns': 1000000, 'not_recorded': 0, 'records': ["
		       "  {'t_ns': 1500000, 'phase': 'timers', 'tid': 24931, 'thread': 'node',"
		       "   'main_thread': true, 'syscall': 'read', 'duration_ns': 2500000,"
		       "   'ret': 4096, 'fd': 7, 'path': '/tmp/fifo'}]}");
}

/* A schema 1 report, as an earlier bpfspec wrote it, loads: its events
 * records' durations from latency_ns, its blockers' from duration_ns
 * (their name in 1 already); written again, it is schema 2 and neither
 * record has latency_ns. */
START_TEST(test_load_schema1)
{
	json_t *root = fixture_json("file-io-events.json");
	ck_assert_int_eq(int_field(root, "schema"), 1);
	json_object_set_new(root, "blockers", one_blocker());
	report *rep = report_of(root, "old.json");
	const report_probe *p = &rep->probes[1];
	ck_assert_uint_eq(p->n_events, 8);
	ck_assert_str_eq(p->events[0].syscall, "openat");
	ck_assert_uint_eq(p->events[0].latency_ns, 25504);
	ck_assert_uint_eq(p->events[7].latency_ns, 23612);
	ck_assert_uint_eq(rep->n_blockers, 1);
	ck_assert_uint_eq(rep->blockers[0].latency_ns, 2500000);

	char *text = json_text(rep);
	json_error_t err;
	json_t *got = json_loads(text, 0, &err);
	ck_assert_msg(got != NULL, "render_json wrote invalid JSON: %s", err.text);
	ck_assert_int_eq(int_field(got, "schema"), 2);
	json_t *ev = json_array_get(json_object_get(probe_at(got, 1), "events"), 0);
	ck_assert_int_eq(int_field(ev, "duration_ns"), 25504);
	json_t *b = json_array_get(json_object_get(json_object_get(got, "blockers"), "records"), 0);
	ck_assert_int_eq(int_field(b, "duration_ns"), 2500000);
	ck_assert_lacks(text, "latency_ns");
	json_decref(got);
	free(text);
	report_free(rep);
}
END_TEST

/* A schema 2 report whose events records have every field of a syscall
 * record (error, path with path_hex and path_truncated, address, length)
 * and a blocker with fd: written again, it is the same JSON, and that
 * text is a fixed point. */
START_TEST(test_round_trip_schema2)
{
	json_t *want = fixture_json("file-io-events.json");
	to_schema2(want);
	json_object_set_new(want, "bpfspec_version", json_string(BPFSPEC_VERSION));
	json_t *evs = json_object_get(probe_at(want, 1), "events");
	json_t *ev = json_array_get(evs, 1);
	json_object_set_new(ev, "ret", json_integer(-2));
	json_object_set_new(ev, "error", json_string("ENOENT"));
	json_object_set_new(ev, "path_truncated", json_true());
	ev = json_array_get(evs, 2);
	json_object_del(ev, "path");
	json_object_set_new(ev, "address", json_string("[::1]:80"));
	json_object_set_new(ev, "length", json_integer(4096));
	ev = json_array_get(evs, 3);
	json_object_set_new(ev, "path", json_string("/tmp/a\xef\xbf\xbd" "b"));	/* U+FFFD */
	json_object_set_new(ev, "path_hex", json_string("2f746d702f61ff62"));
	json_object_set_new(want, "blockers", one_blocker());

	report *rep = report_of(json_incref(want), "new.json");
	const report_event *e = rep->probes[1].events;
	ck_assert_uint_eq(e[0].latency_ns, 25504);
	ck_assert_str_eq(e[1].error, "ENOENT");
	ck_assert(e[1].path_truncated);
	ck_assert_ptr_null(e[2].path);
	ck_assert_str_eq(e[2].address, "[::1]:80");
	ck_assert(e[2].has_length);
	ck_assert_uint_eq(e[2].length, 4096);
	ck_assert_str_eq(e[3].path, "/tmp/a\xff" "b");	/* the bytes of path_hex */
	ck_assert(!e[3].has_fd);
	ck_assert(rep->blockers[0].has_fd);
	ck_assert_int_eq(rep->blockers[0].fd, 7);
	ck_assert_uint_eq(rep->blockers[0].latency_ns, 2500000);

	char *once = json_text(rep);
	json_error_t err;
	json_t *got = json_loads(once, 0, &err);
	ck_assert_msg(got != NULL, "render_json wrote invalid JSON: %s", err.text);
	ck_assert(json_equal(json_object_get(probe_at(got, 1), "events"), evs));
	ck_assert(json_equal(json_object_get(got, "blockers"), json_object_get(want, "blockers")));
	ck_assert(json_equal(got, want));
	json_decref(got);
	json_decref(want);

	report *back = report_parse_json(once, strlen(once), "once.json");
	ck_assert_msg(back != NULL, "once.json does not load:\n%s", diagnostics());
	char *twice = json_text(back);
	ck_assert_str_eq(twice, once);
	free(twice);
	free(once);
	report_free(back);
	report_free(rep);
}
END_TEST

/* ---- loading: errors ----------------------------------------------------- */

START_TEST(test_error_schema)
{
	json_t *root = fixture_json("phases-before.json");
	json_object_set_new(root, "schema", json_integer(3));
	const char *d = json_error_of(root, "before.json");
	ck_assert_contains(d, "bpfspec: error: before.json: report schema 3 is not supported by "
			      "this bpfspec (schema 2)\n");
	ck_assert_contains(d, "hint: ");

	root = fixture_json("phases-before.json");
	json_object_set_new(root, "schema", json_integer(0));
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "before.json: report schema 0 is not supported by this bpfspec "
			      "(schema 2)\n");

	root = fixture_json("phases-before.json");
	json_object_del(root, "schema");
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "before.json: schema: missing (expected an integer)");

	root = fixture_json("phases-before.json");
	json_object_set_new(root, "schema", json_string("1"));
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "before.json: schema: expected an integer, found a string");
}
END_TEST

/* Each schema has one name for an events record's duration: 2 does not
 * read 1's, nor 1 the name 2 gave it. */
START_TEST(test_error_duration_names)
{
	json_t *root = fixture_json("file-io-events.json");
	to_schema2(root);
	json_t *ev = json_array_get(json_object_get(probe_at(root, 1), "events"), 4);
	json_object_set(ev, "latency_ns", json_object_get(ev, "duration_ns"));
	json_object_del(ev, "duration_ns");
	const char *d = json_error_of(root, "ev.json");
	ck_assert_contains(d, "bpfspec: error: ev.json: probes[1].events[4].duration_ns: missing "
			      "(expected a non-negative integer)\n");

	root = fixture_json("file-io-events.json");
	ev = json_array_get(json_object_get(probe_at(root, 1), "events"), 4);
	json_object_set(ev, "duration_ns", json_object_get(ev, "latency_ns"));
	json_object_del(ev, "latency_ns");
	d = json_error_of(root, "ev.json");
	ck_assert_contains(d, "bpfspec: error: ev.json: probes[1].events[4].latency_ns: missing "
			      "(expected a non-negative integer)\n");
}
END_TEST

START_TEST(test_error_fields)
{
	/* A missing field, a wrong type, a negative count: each named by path. */
	json_t *root = fixture_json("phases-before.json");
	json_object_del(probe_at(root, 2), "p99_ns");
	const char *d = json_error_of(root, "before.json");
	ck_assert_contains(d, "bpfspec: error: before.json: probes[2].p99_ns: missing "
			      "(expected a non-negative integer)\n");
	ck_assert_contains(d, "hint: ");

	root = fixture_json("phases-before.json");
	json_object_set_new(probe_at(root, 2), "p99_ns", json_string("9us"));
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "before.json: probes[2].p99_ns: expected a non-negative integer, "
			      "found a string");

	root = fixture_json("phases-before.json");
	json_object_set_new(probe_at(root, 0), "count", json_integer(-1));
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "before.json: probes[0].count: expected a non-negative integer, "
			      "found -1");

	root = fixture_json("phases-before.json");
	json_object_set_new(probe_at(root, 0), "max_ns", json_real(1.5));
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "probes[0].max_ns: expected a non-negative integer, found a real "
			      "number");

	root = fixture_json("phases-before.json");
	json_t *b = json_array_get(json_object_get(probe_at(root, 0), "buckets"), 3);
	json_object_del(b, "hi_ns");
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "probes[0].buckets[3].hi_ns: missing");

	root = fixture_json("phases-before.json");
	json_t *g = json_array_get(json_object_get(probe_at(root, 4), "groups"), 1);
	json_object_set_new(g, "thread", json_integer(5));
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "probes[4].groups[1].thread: expected a string or null, found an "
			      "integer");

	root = fixture_json("phases-before.json");
	json_object_set_new(json_object_get(root, "target"), "pid", json_null());
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "before.json: target.pid: expected an integer, found null");

	root = fixture_json("phases-before.json");
	json_object_set_new(root, "probes", json_object());
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "before.json: probes: expected an array, found an object");

	root = fixture_json("phases-before.json");
	json_array_append_new(json_object_get(root, "warnings"), json_false());
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "before.json: warnings[0]: expected a string, found false");

	root = fixture_json("phases-before.json");
	json_object_set_new(probe_at(root, 3), "kind", json_string("histogram"));
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "probes[3].kind: unknown kind 'histogram' (latency, syscalls, "
			      "events, count, utilization, span or http)");

	root = fixture_json("phases-before.json");
	json_object_set_new(probe_at(root, 3), "unit", json_string("min"));
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "probes[3].unit: unknown unit 'min' (ns, us, ms or s)");

	root = fixture_json("phases-before.json");
	json_array_set_new(json_object_get(root, "probes"), 5, json_string("check"));
	d = json_error_of(root, "before.json");
	ck_assert_contains(d, "before.json: probes[5]: expected an object, found a string");
}
END_TEST

START_TEST(test_error_nested)
{
	/* Deep paths: a syscall's threads, its errors, an event. */
	json_t *root = fixture_json("file-io.json");
	json_t *sc = json_array_get(json_object_get(probe_at(root, 0), "syscalls"), 1);
	json_t *th = json_array_get(json_object_get(sc, "threads"), 0);
	json_object_set_new(th, "tid", json_string("24672"));
	const char *d = json_error_of(root, "after.json");
	ck_assert_contains(d, "after.json: probes[0].syscalls[1].threads[0].tid: expected an "
			      "integer, found a string");

	root = fixture_json("file-io.json");
	sc = json_array_get(json_object_get(probe_at(root, 0), "syscalls"), 1);
	json_object_set_new(json_object_get(sc, "errors"), "ENOENT", json_string("5"));
	d = json_error_of(root, "after.json");
	ck_assert_contains(d, "after.json: probes[0].syscalls[1].errors.ENOENT: expected a "
			      "non-negative integer, found a string");

	root = fixture_json("file-io-events.json");
	json_t *ev = json_array_get(json_object_get(probe_at(root, 1), "events"), 4);
	json_object_del(ev, "latency_ns");
	d = json_error_of(root, "ev.json");
	ck_assert_contains(d, "ev.json: probes[1].events[4].latency_ns: missing");

	root = fixture_json("file-io-events.json");
	ev = json_array_get(json_object_get(probe_at(root, 1), "events"), 0);
	json_object_set_new(ev, "length", json_string("4096"));
	d = json_error_of(root, "ev.json");
	ck_assert_contains(d, "ev.json: probes[1].events[0].length: expected a non-negative "
			      "integer, found a string");

	root = fixture_json("file-io-events.json");
	json_object_del(probe_at(root, 1), "events_dropped");
	d = json_error_of(root, "ev.json");
	ck_assert_contains(d, "ev.json: probes[1].events_dropped: missing");

	/* The exact bytes of a name or an argument: hex digits in pairs,
	 * none of them a NUL byte. */
	static const char *const bad_hex[] = { "9be", "9bzz", "6100" };
	for (size_t i = 0; i < sizeof bad_hex / sizeof *bad_hex; i++) {
		root = fixture_json("hostile-usdt.json");
		ev = json_array_get(json_object_get(probe_at(root, 0), "events"), 0);
		json_object_set_new(ev, "thread_hex", json_string(bad_hex[i]));
		d = json_error_of(root, "u.json");
		ck_assert_contains(d, "u.json: probes[0].events[0].thread_hex: expected pairs of "
				      "hex digits, none of them 00");
	}
	root = fixture_json("hostile-usdt.json");
	ev = json_array_get(json_object_get(probe_at(root, 0), "events"), 1);
	json_object_set_new(json_object_get(ev, "args_hex"), "text", json_integer(7));
	d = json_error_of(root, "u.json");
	ck_assert_contains(d, "u.json: probes[0].events[1].args_hex.text: expected a string, "
			      "found an integer");
	root = fixture_json("hostile-usdt.json");
	ev = json_array_get(json_object_get(probe_at(root, 0), "events"), 1);
	json_object_set_new(json_object_get(ev, "args"), "text", json_true());
	d = json_error_of(root, "u.json");
	ck_assert_contains(d, "u.json: probes[0].events[1].args.text: expected an integer or a "
			      "string, found true");
	root = fixture_json("hostile-usdt.json");
	ev = json_array_get(json_object_get(probe_at(root, 0), "events"), 2);
	json_object_set_new(ev, "truncated", json_string("txt"));
	d = json_error_of(root, "u.json");
	ck_assert_contains(d, "u.json: probes[0].events[2].truncated: 'txt' names no argument");

	/* A syscall event is one by its probe, not by its fields. */
	root = fixture_json("file-io-events.json");
	ev = json_array_get(json_object_get(probe_at(root, 1), "events"), 3);
	json_object_del(ev, "syscall");
	d = json_error_of(root, "ev.json");
	ck_assert_contains(d, "ev.json: probes[1].events[3].syscall: missing");

	/* Utilization is a fraction, and always written. */
	static const double bad_util[] = { -0.5, 1.5, 1e300 };
	for (size_t i = 0; i < sizeof bad_util / sizeof *bad_util; i++) {
		root = fixture_json("utilization.json");
		json_object_set_new(probe_at(root, 0), "utilization", json_real(bad_util[i]));
		d = json_error_of(root, "u.json");
		ck_assert_contains(d, "u.json: probes[0].utilization: expected a number from 0 to 1");
	}
	root = fixture_json("utilization.json");
	json_object_del(json_array_get(json_object_get(probe_at(root, 0), "groups"), 0),
			"utilization");
	d = json_error_of(root, "u.json");
	ck_assert_contains(d, "u.json: probes[0].groups[0].utilization: missing");
}
END_TEST

START_TEST(test_error_ndjson)
{
	/* Interval mode writes one compact report per line. */
	const char *names[] = { "phases-before.json", "phases-after.json", "phases-before.json" };
	char *nd = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&nd, &len);
	for (size_t i = 0; i < 3; i++) {
		json_t *root = fixture_json(names[i]);
		ck_assert_int_eq(json_dumpf(root, f, JSON_COMPACT | JSON_PRESERVE_ORDER), 0);
		fputc('\n', f);
		json_decref(root);
	}
	fclose(f);
	const char *d = load_error(nd, len, "run.ndjson");
	ck_assert_contains(d, "bpfspec: error: run.ndjson: holds 3 JSON values, not one report");
	ck_assert_contains(d, "hint: pick one line: `sed -n 3p run.ndjson > one.json`");
	free(nd);

	/* Two pretty-printed reports back to back: still one hint. */
	size_t l1, l2;
	char *a = fixture_text("file-io.json", &l1);
	char *b = fixture_text("file-io-events.json", &l2);
	char *both = NULL;
	ck_assert_int_ge(asprintf(&both, "%s%s", a, b), 0);
	d = load_error(both, l1 + l2, "two.json");
	ck_assert_contains(d, "two.json: holds 2 JSON values");
	ck_assert_contains(d, "pick one line");
	free(a);
	free(b);
	free(both);
}
END_TEST

START_TEST(test_error_not_json)
{
	static const char text[] = "bpfspec libuv-phases: pid 1 (/usr/bin/node), window 3.00 s\n";
	const char *d = load_error(text, strlen(text), "report.txt");
	ck_assert_contains(d, "bpfspec: report.txt:1:1: error: not a JSON report: ");
	ck_assert_contains(d, "bpfspec libuv-phases: pid 1");	/* the line, with a caret */
	ck_assert_contains(d, "^");
	ck_assert_contains(d, "hint: ");

	/* A report cut short: the error points at its end. */
	size_t len;
	char *cut = fixture_text("phases-before.json", &len);
	d = load_error(cut, 249, "cut.json");
	ck_assert_contains(d, "bpfspec: cut.json:13:21: error: not a JSON report: ");
	ck_assert_contains(d, "not a JSON report: ");
	free(cut);

	/* Trailing garbage is not "several values". */
	static const char junk[] = "{\"schema\": 1} trailing";
	d = load_error(junk, strlen(junk), "junk.json");
	ck_assert_contains(d, "junk.json:1:");
	ck_assert_lacks(d, "pick one line");

	static const char arr[] = "[1, 2]";
	d = load_error(arr, strlen(arr), "arr.json");
	ck_assert_contains(d, "arr.json: expected a JSON object (a report), found an array");

	static const char dup[] = "{\"schema\": 1, \"schema\": 1}";
	d = load_error(dup, strlen(dup), "dup.json");
	ck_assert_contains(d, "dup.json:1:");
	ck_assert_contains(d, "duplicate object key");
}
END_TEST

START_TEST(test_error_empty)
{
	const char *d = load_error("", 0, "empty.json");
	ck_assert_contains(d, "bpfspec: error: empty.json: empty file: expected a JSON report\n");
	ck_assert_contains(d, "hint: write one with `bpfspec run SPEC -o json > FILE`");
	d = load_error(" \n\t\n", 4, "blank.json");
	ck_assert_contains(d, "blank.json: empty file");

	clear_diagnostics();
	ck_assert_ptr_null(report_load_json("/nonexistent/before.json"));
	ck_assert_contains(diagnostics(),
			   "bpfspec: error: cannot open /nonexistent/before.json: No such file");
}
END_TEST

START_TEST(test_error_attribution)
{
	/* Wrong types inside the splits and the blockers, each named by path. */
	json_t *root = attributed_json();
	json_object_set_new(probe_at(root, 0), "attribution", json_string("on-CPU"));
	const char *d = json_error_of(root, "why.json");
	ck_assert_contains(d, "bpfspec: error: why.json: probes[0].attribution: expected an "
			      "object, found a string\n");

	root = attributed_json();
	json_t *g0 = json_array_get(json_object_get(probe_at(root, 0), "groups"), 0);
	json_t *a = json_object_get(g0, "attribution");
	json_t *sc = json_array_get(json_object_get(a, "syscalls"), 1);
	json_object_set_new(sc, "calls", json_string("3"));
	d = json_error_of(root, "why.json");
	ck_assert_contains(d, "why.json: probes[0].groups[0].attribution.syscalls[1].calls: "
			      "expected a non-negative integer, found a string");

	root = attributed_json();
	json_object_del(json_object_get(probe_at(root, 0), "attribution"), "unaccounted_ns");
	d = json_error_of(root, "why.json");
	ck_assert_contains(d, "why.json: probes[0].attribution.unaccounted_ns: missing "
			      "(expected an integer)");

	root = attributed_json();
	json_object_set_new(root, "blockers", json_array());
	d = json_error_of(root, "why.json");
	ck_assert_contains(d, "why.json: blockers: expected an object, found an array");

	root = attributed_json();
	json_t *recs = json_object_get(json_object_get(root, "blockers"), "records");
	json_object_set_new(json_array_get(recs, 0), "fd", json_string("7"));
	d = json_error_of(root, "why.json");
	ck_assert_contains(d, "why.json: blockers.records[0].fd: expected an integer, found a "
			      "string");

	root = attributed_json();
	recs = json_object_get(json_object_get(root, "blockers"), "records");
	json_object_del(json_array_get(recs, 1), "phase");
	d = json_error_of(root, "why.json");
	ck_assert_contains(d, "why.json: blockers.records[1].phase: missing (expected a string)");

	root = attributed_json();
	recs = json_object_get(json_object_get(root, "blockers"), "records");
	json_object_set_new(json_array_get(recs, 1), "thread_hex", json_string("77006b"));
	d = json_error_of(root, "why.json");
	ck_assert_contains(d, "why.json: blockers.records[1].thread_hex: expected pairs of hex "
			      "digits, none of them 00");
}
END_TEST

/* ---- diff: text ----------------------------------------------------------- */

START_TEST(test_diff_text_phases)
{
	report *b = load_fixture("phases-before.json");
	report *a = load_fixture("phases-after.json");
	char *t = diff_to_string(b, a, DIFF_TEXT);

	ck_assert_contains(t, "bpfspec diff libuv-phases\n");
	ck_assert_contains(t, "  before: libuv-phases, pid 24140 (/usr/bin/node), window 3.001s\n");
	ck_assert_contains(t, "  after:  libuv-phases, pid 24564 (/usr/bin/node), window 3.002s\n");
	ck_assert_lacks(t, "windows differ");
	ck_assert_contains(t, "\ntimers (latency)\n"
			      "  STAT             BEFORE        AFTER       CHANGE         %\n"
			      "  count               165          143          -22    -13.3%\n"
			      "  count/s         54.99/s      47.64/s     -7.352/s    -13.4%\n"
			      "  p50~            2.036ms      2.038ms     +2.553us     +0.1%\n"
			      "  p99~            41.08ms      63.51ms     +22.43ms    +54.6%\n"
			      "  max             41.08ms      64.21ms     +23.13ms    +56.3%\n");
	ck_assert_contains(t, "  p50~            2.624us      2.080us       -544ns    -20.7%\n");
	ck_assert_contains(t, "\npending (latency)\n  not attached in either report: "
			      "uv__run_pending: not in /usr/bin/node");
	ck_assert_contains(t, "\ncheck (latency)\n");
	ck_assert_contains(t, "  p99~            18.21ms      43.61ms     +25.40ms   +139.4%\n");
	ck_assert_contains(t, "~ p50 and p99 are estimates");
	/* No row ends in spaces. */
	ck_assert_lacks(t, " \n");
	free(t);
	report_free(a);
	report_free(b);
}
END_TEST

/* A loop-utilization report diffs like a latency probe (its waits in
 * epoll); the loader once refused its kind ("unknown kind"). */
START_TEST(test_diff_text_utilization)
{
	report *b = load_fixture("utilization.json");
	report *a = load_fixture("utilization.json");
	ck_assert_int_eq(b->probes[0].kind, PROBE_UTILIZATION);
	ck_assert_uint_eq(b->probes[0].n_groups, 3);
	char *t = diff_to_string(b, a, DIFF_TEXT);

	ck_assert_contains(t, "\nloop (utilization)\n"
			      "  STAT             BEFORE        AFTER       CHANGE         %\n"
			      "  count               234          234            0      0.0%\n");
	ck_assert_contains(t, "  max             53.29ms      53.29ms          0ns      0.0%\n");
	ck_assert_contains(t, "  busy              58.1%        58.1%        0.0pt      0.0%\n");
	free(t);

	/* The loop got busier: 58.1% -> 75%, +16.9 points, +29.0%. */
	a->probes[0].utilization = 0.75;
	t = diff_to_string(b, a, DIFF_TEXT);
	ck_assert_contains(t, "  busy              58.1%        75.0%      +16.9pt    +29.0%\n");
	free(t);
	json_t *root = diff_parsed(b, a);
	json_t *jp = json_array_get(field(root, "probes", JSON_ARRAY), 0);
	ck_assert_double_eq_tol(json_real_value(field(field(jp, "before", JSON_OBJECT),
						       "utilization", JSON_REAL)),
				0.581444, 1e-6);
	ck_assert_double_eq_tol(json_real_value(field(field(jp, "after", JSON_OBJECT),
						       "utilization", JSON_REAL)),
				0.75, 1e-6);
	json_t *chg = field(jp, "change", JSON_OBJECT);
	ck_assert_double_eq_tol(json_real_value(field(chg, "utilization", JSON_REAL)), 0.168556,
				1e-6);
	ck_assert_double_eq_tol(json_real_value(field(chg, "utilization_pct", JSON_REAL)), 28.99,
				0.01);
	json_decref(root);
	report_free(a);
	report_free(b);
}
END_TEST

START_TEST(test_diff_text_syscalls)
{
	report *b = load_fixture("file-io.json");
	report *a = load_fixture("file-io-events.json");
	char *t = diff_to_string(b, a, DIFF_TEXT);

	ck_assert_contains(t, "bpfspec diff file-io -> file-io-events\n");
	ck_assert_contains(t, ", window 3.000s\n");
	ck_assert_contains(t, ", window 2.001s\n");
	ck_assert_contains(t, "note: the windows differ in length: compare count/s, not count\n");
	ck_assert_contains(t, "\nfile (syscalls)\n"
			      "  SYSCALL        STAT             BEFORE        AFTER       CHANGE         %\n"
			      "  (all)          count             27728        18148        -9580    -34.5%\n"
			      "                 count/s          9242/s       9071/s     -170.1/s     -1.8%\n");
	ck_assert_contains(t, "                 errors                5            5            0      0.0%\n"
			      "  read           count             12628         8273        -4355    -34.5%\n");
	ck_assert_contains(t, "  openat         count              2533         1662         -871    -34.4%\n");
	ck_assert_contains(t, "                   ENOENT              5            5            0      0.0%\n");
	ck_assert_contains(t, "  close          count              2528         1657         -871    -34.5%\n");
	/* An events probe: counts only, no percentage from zero. */
	ck_assert_contains(t, "\nslow_opens (events)\n"
			      "  STAT             BEFORE        AFTER       CHANGE         %\n"
			      "  count                 0           16          +16\n"
			      "  count/s         0.000/s      7.998/s     +7.998/s\n\n");
	free(t);
	report_free(a);
	report_free(b);
}
END_TEST

/* Probes and syscalls on one side only, and a probe attached on one side. */
static void one_sided(report **before, report **after)
{
	json_t *b = fixture_json("file-io.json");
	json_t *a = fixture_json("file-io.json");
	/* after: slow_opens renamed (gone + new), openat's errors changed,
	 * a new syscall, close gone; before: file not attached. */
	json_object_set_new(probe_at(a, 1), "name", json_string("slow_reads"));
	json_t *scs = json_object_get(probe_at(a, 0), "syscalls");
	json_t *openat = json_array_get(scs, 1);
	json_object_set_new(json_object_get(openat, "errors"), "EACCES", json_integer(3));
	json_object_set_new(openat, "error_count", json_integer(8));
	json_object_set_new(json_array_get(scs, 3), "syscall", json_string("statx"));
	*after = report_of(a, "after.json");
	*before = report_of(b, "before.json");
}

START_TEST(test_diff_text_one_sided)
{
	report *b, *a;
	one_sided(&b, &a);
	char *t = diff_to_string(b, a, DIFF_TEXT);
	ck_assert_contains(t, "                   ENOENT              5            5            0      0.0%\n"
			      "                   EACCES              0            3           +3\n");
	ck_assert_contains(t, "  close          count              2528            -         gone\n");
	ck_assert_contains(t, "  statx          count                 -         2528          new\n");
	ck_assert_contains(t, "\nslow_opens (events)\n"
			      "  STAT             BEFORE        AFTER       CHANGE         %\n"
			      "  count                 0            -         gone\n");
	ck_assert_contains(t, "\nslow_reads (events)\n"
			      "  STAT             BEFORE        AFTER       CHANGE         %\n"
			      "  count                 -            0          new\n");
	free(t);

	/* Attached in one report only: n/a. */
	free(b->probes[0].reason);
	b->probes[0].reason = strdup("no syscalls tracepoints");
	b->probes[0].attached = false;
	t = diff_to_string(b, a, DIFF_TEXT);
	ck_assert_contains(t, "\nfile (syscalls)\n  before: not attached: no syscalls tracepoints\n");
	ck_assert_contains(t, "  (all)          count               n/a        27728          n/a\n");
	ck_assert_contains(t, "  openat         count               n/a         2533          n/a\n");
	/* A probe that was not attached has no syscalls to list. */
	ck_assert_contains(t, "  statx          count               n/a         2528          n/a\n");
	ck_assert_lacks(t, "  close ");
	free(t);
	report_free(a);
	report_free(b);
}
END_TEST

/* ---- diff: JSON ----------------------------------------------------------- */

START_TEST(test_diff_json_phases)
{
	report *b = load_fixture("phases-before.json");
	report *a = load_fixture("phases-after.json");
	json_t *root = diff_parsed(b, a);

	ck_assert_int_eq(int_field(root, "schema"), 2);
	ck_assert_str_eq(str_field(root, "bpfspec_version"), BPFSPEC_VERSION);
	json_t *hb = field(root, "before", JSON_OBJECT), *ha = field(root, "after", JSON_OBJECT);
	ck_assert_str_eq(str_field(hb, "spec"), "libuv-phases");
	ck_assert_int_eq(int_field(hb, "pid"), 24140);
	ck_assert_int_eq(int_field(hb, "duration_ns"), 3000553904);
	ck_assert_int_eq(int_field(ha, "pid"), 24564);
	ck_assert_int_eq(int_field(ha, "duration_ns"), (json_int_t)a->duration_ns);

	json_t *probes = field(root, "probes", JSON_ARRAY);
	ck_assert_uint_eq(json_array_size(probes), 7);
	/* Every probe's numbers from the two reports. */
	for (size_t i = 0; i < b->n_probes; i++) {
		const report_probe *pb = &b->probes[i], *pa = &a->probes[i];
		json_t *jp = json_array_get(probes, i);
		ck_assert_str_eq(str_field(jp, "name"), pb->name);
		ck_assert_str_eq(str_field(jp, "kind"), "latency");
		ck_assert(json_object_get(jp, "syscalls") == NULL);
		if (!pb->attached) {
			ck_assert_str_eq(str_field(jp, "status"), "not_attached");
			json_t *sb = field(jp, "before", JSON_OBJECT);
			ck_assert(json_is_false(field(sb, "attached", JSON_FALSE)));
			ck_assert_str_eq(str_field(sb, "reason"), pb->reason);
			ck_assert(json_object_get(sb, "count") == NULL);
			field(jp, "change", JSON_NULL);
			continue;
		}
		ck_assert_str_eq(str_field(jp, "status"), "compared");
		json_t *sb = field(jp, "before", JSON_OBJECT), *sa = field(jp, "after", JSON_OBJECT);
		json_t *c = field(jp, "change", JSON_OBJECT);
		ck_assert_int_eq(int_field(sb, "count"), (json_int_t)pb->st.count);
		ck_assert_int_eq(int_field(sa, "count"), (json_int_t)pa->st.count);
		ck_assert_int_eq(int_field(sb, "p50_ns"), (json_int_t)pb->st.p50_ns);
		ck_assert_int_eq(int_field(sa, "p99_ns"), (json_int_t)pa->st.p99_ns);
		ck_assert_int_eq(int_field(sa, "max_ns"), (json_int_t)pa->st.max_ns);
		ck_assert_int_eq(int_field(c, "count"),
				 (json_int_t)pa->st.count - (json_int_t)pb->st.count);
		ck_assert_int_eq(int_field(c, "p50_ns"),
				 (json_int_t)pa->st.p50_ns - (json_int_t)pb->st.p50_ns);
		ck_assert_int_eq(int_field(c, "p99_ns"),
				 (json_int_t)pa->st.p99_ns - (json_int_t)pb->st.p99_ns);
		ck_assert_int_eq(int_field(c, "max_ns"),
				 (json_int_t)pa->st.max_ns - (json_int_t)pb->st.max_ns);
		ck_assert_near(real_field(c, "count_pct"),
			       pct_of((double)pb->st.count, (double)pa->st.count));
		ck_assert_near(real_field(c, "p50_pct"),
			       pct_of((double)pb->st.p50_ns, (double)pa->st.p50_ns));
		ck_assert_near(real_field(c, "p99_pct"),
			       pct_of((double)pb->st.p99_ns, (double)pa->st.p99_ns));
		ck_assert_near(real_field(c, "max_pct"),
			       pct_of((double)pb->st.max_ns, (double)pa->st.max_ns));
		double rb = pb->st.count / (b->duration_ns / 1e9);
		double ra = pa->st.count / (a->duration_ns / 1e9);
		ck_assert_msg(real_field(sb, "count_per_s") - rb < 0.0005 &&
			      rb - real_field(sb, "count_per_s") < 0.0005, "count_per_s");
		ck_assert_msg(real_field(c, "count_per_s") - (ra - rb) < 0.002 &&
			      (ra - rb) - real_field(c, "count_per_s") < 0.002, "count_per_s change");
		ck_assert(json_object_get(c, "error_count") == NULL);
	}
	/* The timers row, by hand. */
	json_t *c = field(json_array_get(probes, 0), "change", JSON_OBJECT);
	ck_assert_int_eq(int_field(c, "count"), -22);
	ck_assert_int_eq(int_field(c, "p99_ns"), 63512248 - 41083505);
	ck_assert_near(real_field(c, "p99_pct"), 54.59);
	ck_assert_near(real_field(c, "count_pct"), -13.33);
	json_decref(root);
	report_free(a);
	report_free(b);
}
END_TEST

START_TEST(test_diff_json_syscalls)
{
	report *b, *a;
	one_sided(&b, &a);
	json_t *root = diff_parsed(b, a);
	json_t *probes = field(root, "probes", JSON_ARRAY);
	ck_assert_uint_eq(json_array_size(probes), 3);

	json_t *file = find_by(probes, "name", "file");
	ck_assert_str_eq(str_field(file, "status"), "compared");
	json_t *c = field(file, "change", JSON_OBJECT);
	ck_assert_int_eq(int_field(c, "error_count"), 3);
	ck_assert_near(real_field(c, "error_count_pct"), 60.0);
	ck_assert_int_eq(int_field(field(file, "before", JSON_OBJECT), "error_count"), 5);
	json_t *scs = field(file, "syscalls", JSON_ARRAY);
	ck_assert_uint_eq(json_array_size(scs), 5);

	json_t *openat = find_by(scs, "syscall", "openat");
	ck_assert_str_eq(str_field(openat, "status"), "compared");
	json_t *eb = field(field(openat, "before", JSON_OBJECT), "errors", JSON_OBJECT);
	json_t *ea = field(field(openat, "after", JSON_OBJECT), "errors", JSON_OBJECT);
	ck_assert_uint_eq(json_object_size(eb), 1);
	ck_assert_int_eq(int_field(eb, "ENOENT"), 5);
	ck_assert_int_eq(int_field(ea, "EACCES"), 3);
	c = field(openat, "change", JSON_OBJECT);
	ck_assert_int_eq(int_field(c, "count"), 0);
	ck_assert_near(real_field(c, "count_pct"), 0.0);
	ck_assert_int_eq(int_field(c, "error_count"), 3);
	json_t *ec = field(c, "errors", JSON_OBJECT);
	ck_assert_int_eq(int_field(ec, "ENOENT"), 0);
	ck_assert_int_eq(int_field(ec, "EACCES"), 3);

	/* read has no errors on either side: no relative change from zero. */
	c = field(find_by(scs, "syscall", "read"), "change", JSON_OBJECT);
	field(c, "error_count_pct", JSON_NULL);

	json_t *close_ = find_by(scs, "syscall", "close");
	ck_assert_str_eq(str_field(close_, "status"), "gone");
	field(close_, "after", JSON_NULL);
	field(close_, "change", JSON_NULL);
	ck_assert_int_eq(int_field(field(close_, "before", JSON_OBJECT), "count"), 2528);
	json_t *statx = find_by(scs, "syscall", "statx");
	ck_assert_str_eq(str_field(statx, "status"), "new");
	field(statx, "before", JSON_NULL);

	ck_assert_str_eq(str_field(find_by(probes, "name", "slow_opens"), "status"), "gone");
	json_t *sr = find_by(probes, "name", "slow_reads");
	ck_assert_str_eq(str_field(sr, "status"), "new");
	ck_assert_str_eq(str_field(sr, "kind"), "events");
	json_t *sa = field(sr, "after", JSON_OBJECT);
	ck_assert_int_eq(int_field(sa, "count"), 0);
	ck_assert(json_object_get(sa, "p50_ns") == NULL);
	json_decref(root);

	/* Zero-length window: no rates. */
	a->duration_ns = 0;
	root = diff_parsed(b, a);
	file = find_by(field(root, "probes", JSON_ARRAY), "name", "file");
	field(field(file, "after", JSON_OBJECT), "count_per_s", JSON_NULL);
	field(field(file, "change", JSON_OBJECT), "count_per_s", JSON_NULL);
	json_decref(root);
	report_free(a);
	report_free(b);
}
END_TEST

START_TEST(test_diff_write_error)
{
	report *b = load_fixture("phases-before.json");
	report *a = load_fixture("phases-after.json");
	FILE *f = fopen("/dev/full", "w");
	if (!f) {
		report_free(a);
		report_free(b);
		return;	/* no /dev/full here */
	}
	ck_assert_int_eq(diff_render(f, b, a, DIFF_TEXT), -1);
	fclose(f);
	f = fopen("/dev/full", "w");
	ck_assert_int_eq(diff_render(f, b, a, DIFF_JSON), -1);
	fclose(f);
	report_free(a);
	report_free(b);
}
END_TEST

static Suite *diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("load");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_load_phases);
	tcase_add_test(tc, test_diff_text_utilization);
	tcase_add_test(tc, test_load_syscalls_events);
	tcase_add_test(tc, test_load_optional_fields);
	tcase_add_test(tc, test_load_stdin);
	tcase_add_loop_test(tc, test_round_trip, 0, sizeof fixtures / sizeof *fixtures);
	tcase_add_test(tc, test_load_no_attribution);
	tcase_add_test(tc, test_load_attribution);
	tcase_add_test(tc, test_load_schema1);
	tcase_add_test(tc, test_round_trip_schema2);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_error_schema);
	tcase_add_test(tc, test_error_duration_names);
	tcase_add_test(tc, test_error_fields);
	tcase_add_test(tc, test_error_nested);
	tcase_add_test(tc, test_error_ndjson);
	tcase_add_test(tc, test_error_not_json);
	tcase_add_test(tc, test_error_empty);
	tcase_add_test(tc, test_error_attribution);
	suite_add_tcase(s, tc);

	tc = tcase_create("render");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_diff_text_phases);
	tcase_add_test(tc, test_diff_text_syscalls);
	tcase_add_test(tc, test_diff_text_one_sided);
	tcase_add_test(tc, test_diff_json_phases);
	tcase_add_test(tc, test_diff_json_syscalls);
	tcase_add_test(tc, test_diff_write_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(diff_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
