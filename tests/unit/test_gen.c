/* Unit tests for gen: the log-linear bucket arithmetic (exhaustively for
 * small values, then random and edge 64-bit values, against the bounds and
 * against a C copy of templates/latency.bt.in), and gen_program on a spec,
 * target and resolution built by hand: attach points, pid filter, window,
 * expected attach count, rejected object paths, and comment text that must
 * not escape its comment.  Run under valgrind (CK_FORK=no) for leaks. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "program/generator.h"
#include "program/generator_maps_rule.h"
#include "program/resolve.h"
#include "spec/spec.h"
#include "target/target.h"
#include "util/diag.h"
#include "util/hist.h"
#include "util/tmpl.h"

/* xorshift64*: the same "random" values on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* ---- bucket arithmetic --------------------------------------------- */

/* The bucket index computed the way templates/bucket.bt.in does it, line
 * by line (bpftrace integers are 64-bit; the shifts and masks are the
 * same in C).  template_lines[] holds the template's text for each step:
 * test_template_mirror checks that the template still says exactly that. */
static const char *const template_lines[] = {
	"\t$v = $ns;\n",
	"\t$e = (int64)0;\n",
	"\tif (($v >> 32) > 0) { $v = $v >> 32; $e = $e + 32; }\n",
	"\tif (($v >> 16) > 0) { $v = $v >> 16; $e = $e + 16; }\n",
	"\tif (($v >> 8) > 0) { $v = $v >> 8; $e = $e + 8; }\n",
	"\tif (($v >> 4) > 0) { $v = $v >> 4; $e = $e + 4; }\n",
	"\tif (($v >> 2) > 0) { $v = $v >> 2; $e = $e + 2; }\n",
	"\tif (($v >> 1) > 0) { $e = $e + 1; }\n",
	"\t$b = $ns;\n",
	"\tif ($e >= 4) { $b = ($e - 3) * 16 + (($ns >> ($e - 4)) & 15); }\n",
};

static uint64_t template_index(uint64_t ns)
{
	/* The template's signed arithmetic ($ns < 2^63 ns). */
	int64_t v = (int64_t)ns;
	int64_t e = 0;
	if ((v >> 32) > 0) { v = v >> 32; e = e + 32; }
	if ((v >> 16) > 0) { v = v >> 16; e = e + 16; }
	if ((v >> 8) > 0) { v = v >> 8; e = e + 8; }
	if ((v >> 4) > 0) { v = v >> 4; e = e + 4; }
	if ((v >> 2) > 0) { v = v >> 2; e = e + 2; }
	if ((v >> 1) > 0) { e = e + 1; }
	int64_t b = (int64_t)ns;
	if (e >= 4) { b = (e - 3) * 16 + (((int64_t)ns >> (e - 4)) & 15); }
	return (uint64_t)b;
}

START_TEST(test_template_mirror)
{
	const char *t = tmpl_get("bucket.bt.in");
	const char *at;

	ck_assert_ptr_nonnull(t);
	/* The steps appear in this order, each exactly once. */
	at = t;
	for (size_t i = 0; i < sizeof template_lines / sizeof *template_lines; i++) {
		const char *hit = strstr(at, template_lines[i]);
		ck_assert_msg(hit != NULL,
			      "templates/bucket.bt.in no longer contains (after the previous "
			      "step) \"%s\": update template_index() in this test to match",
			      template_lines[i]);
		ck_assert_uint_eq(count_of(t, template_lines[i]), 1);
		at = hit + strlen(template_lines[i]);
	}
	/* No other assignment to the variables the mirror models. */
	ck_assert_uint_eq(count_of(t, "$b ="), 2);
	ck_assert_uint_eq(count_of(t, "$e ="), 7 + 1);	/* + the comment */
	ck_assert_uint_eq(count_of(t, "$v ="), 6);
	ck_assert_uint_eq(count_of(t, "$ns ="), 0);	/* $ns is the input */
	/* Every histogram template takes the fragment as it is. */
	ck_assert_uint_eq(count_of(tmpl_get("latency.bt.in"), "\n${bucket}\n"), 1);
	ck_assert_uint_eq(count_of(tmpl_get("syscalls.bt.in"), "\n${bucket}\n"), 1);
}
END_TEST

/* Checks one value: its bucket holds it, is narrow enough, and the
 * template computes the same index. */
static void check_value(uint64_t v)
{
	uint64_t idx = hist_bucket_index(v), lo, hi;

	hist_bucket_bounds(idx, &lo, &hi);
	/* UINT64_MAX is the one value an exclusive uint64 bound cannot
	 * exceed: the last bucket's hi saturates there. */
	ck_assert_msg(lo <= v && (v < hi || (v == UINT64_MAX && hi == UINT64_MAX)),
		      "value %llu: bucket %llu is [%llu, %llu)", (unsigned long long)v,
		      (unsigned long long)idx, (unsigned long long)lo, (unsigned long long)hi);
	if (v >= 16)
		ck_assert_msg(hi - lo <= lo / 16, "value %llu: bucket [%llu, %llu) wider than lo/16",
			      (unsigned long long)v, (unsigned long long)lo,
			      (unsigned long long)hi);
	else
		ck_assert_msg(idx == v && lo == v && hi == v + 1, "value %llu: bucket %llu [%llu, %llu)",
			      (unsigned long long)v, (unsigned long long)idx,
			      (unsigned long long)lo, (unsigned long long)hi);
	/* The template is signed: durations below 2^63 ns (292 years). */
	if (v <= (uint64_t)INT64_MAX)
		ck_assert_msg(template_index(v) == idx, "value %llu: template index %llu, gen %llu",
			      (unsigned long long)v, (unsigned long long)template_index(v),
			      (unsigned long long)idx);
}

START_TEST(test_bucket_small_exhaustive)
{
	uint64_t prev = 0;

	for (uint64_t v = 0; v <= 100000; v++) {
		check_value(v);
		uint64_t idx = hist_bucket_index(v);
		/* Monotonic, and no index skipped. */
		if (v > 0)
			ck_assert_msg(idx == prev || idx == prev + 1, "index jumps from %llu to %llu at %llu",
				      (unsigned long long)prev, (unsigned long long)idx,
				      (unsigned long long)v);
		prev = idx;
	}
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

START_TEST(test_bucket_random_and_edges)
{
	enum { N_RANDOM = 200000 };
	size_t n = 0;
	uint64_t *vals = malloc((N_RANDOM + 3 * 64 + 1) * sizeof *vals);

	ck_assert_ptr_nonnull(vals);
	for (int i = 0; i < N_RANDOM; i++) {
		uint64_t r = rng_next();
		/* Spread over every magnitude, not just the top bits. */
		vals[n++] = r >> (rng_next() % 64);
	}
	for (unsigned k = 0; k < 64; k++) {
		uint64_t p = (uint64_t)1 << k;
		vals[n++] = p - 1;
		vals[n++] = p;
		vals[n++] = p + 1;
	}
	vals[n++] = UINT64_MAX;
	for (size_t i = 0; i < n; i++)
		check_value(vals[i]);

	qsort(vals, n, sizeof *vals, cmp_u64);
	for (size_t i = 1; i < n; i++)
		ck_assert_msg(hist_bucket_index(vals[i - 1]) <= hist_bucket_index(vals[i]),
			      "index of %llu > index of %llu", (unsigned long long)vals[i - 1],
			      (unsigned long long)vals[i]);
	free(vals);
}
END_TEST

/* Every bucket, from 0 to the one holding UINT64_MAX: the buckets tile
 * [0, 2^64) without gaps, and both ends of each map back to it. */
START_TEST(test_bucket_tiling)
{
	uint64_t last = hist_bucket_index(UINT64_MAX), prev_hi = 0;

	ck_assert_uint_eq(last, 60 * 16 + 15);
	ck_assert_uint_eq(hist_bucket_index(16), 16);
	ck_assert_uint_eq(hist_bucket_index(32), 32);
	ck_assert_uint_eq(hist_bucket_index(1000000), 16 * 16 + 14);	/* 2^19 * 1.90 */
	for (uint64_t i = 0; i <= last; i++) {
		uint64_t lo, hi;
		hist_bucket_bounds(i, &lo, &hi);
		ck_assert_msg(lo == prev_hi, "bucket %llu starts at %llu, previous ended at %llu",
			      (unsigned long long)i, (unsigned long long)lo,
			      (unsigned long long)prev_hi);
		ck_assert_msg(hi > lo, "bucket %llu is empty", (unsigned long long)i);
		ck_assert_uint_eq(hist_bucket_index(lo), i);
		ck_assert_uint_eq(hist_bucket_index(hi - 1), i);
		prev_hi = hi;
	}
	ck_assert_uint_eq(prev_hi, UINT64_MAX);
}
END_TEST

/* ---- gen_program --------------------------------------------------- */

static const char spec_yaml[] =
	"name: demo\n"
	"probes:\n"
	"  - name: timers\n"
	"    kind: latency\n"
	"    function: uv__run_timers\n"
	"  - name: gone\n"
	"    kind: latency\n"
	"    function: missing_fn\n"
	"    optional: true\n";

/* A spec, a target and a resolution, all built by hand. */
typedef struct fixture {
	spec *s;
	char exe[64];
	char *objects[1];
	target t;
	uint64_t addrs[2];
	char reason[256];
	char object[64];
	resolved_probe rp[2];
	resolved r;
} fixture;

static fixture fx;

static void fixture_build(const char *spec_path, const char *text)
{
	char *out;

	memset(&fx, 0, sizeof fx);
	capture_start();
	fx.s = spec_parse(spec_path, text, strlen(text));
	out = capture_end();
	ck_assert_msg(fx.s != NULL, "spec does not parse:\n%s", out);
	free(out);
	ck_assert_uint_eq(fx.s->n_probes, 2);

	strcpy(fx.exe, "/usr/bin/x");
	fx.objects[0] = fx.exe;
	fx.t = (target){ .pid = 0, .exe = fx.exe, .objects = fx.objects, .n_objects = 1 };
	fx.addrs[0] = 0x1000;
	fx.addrs[1] = 0x2000;
	strcpy(fx.object, "/usr/bin/x");
	strcpy(fx.reason, "missing_fn: not found");
	fx.rp[0] = (resolved_probe){ .sp = &fx.s->probes[0], .active = true,
				     .object = fx.object, .addrs = fx.addrs, .n_addrs = 2 };
	fx.rp[1] = (resolved_probe){ .sp = &fx.s->probes[1], .active = false,
				     .reason = fx.reason };
	fx.r = (resolved){ .sp = fx.s, .tg = &fx.t, .probes = fx.rp, .n_probes = 2,
			   .n_active = 1 };
}

static void setup(void)
{
	fixture_build("t/test.yaml", spec_yaml);
}

static void teardown(void)
{
	spec_free(fx.s);
	fx.s = NULL;
}

/* Generates with PID and WINDOW_NS; must succeed silently. */
static program *generate(pid_t pid, uint64_t window_ns)
{
	gen_options o = { .pid = pid, .window_ns = window_ns };
	char *out;
	program *p;

	capture_start();
	p = gen_program(&fx.r, &o);
	out = capture_end();
	ck_assert_msg(p != NULL, "gen_program failed:\n%s", out);
	ck_assert_msg(out[0] == '\0', "gen_program printed:\n%s", out);
	free(out);
	ck_assert_ptr_nonnull(p->text);
	ck_assert_uint_eq(p->len, strlen(p->text));
	return p;
}

/* Generates and expects a failure; returns the diagnostics (owned). */
static char *generate_fail(void)
{
	gen_options o = { .pid = 0, .window_ns = 0 };
	char *out;
	program *p;

	capture_start();
	p = gen_program(&fx.r, &o);
	out = capture_end();
	ck_assert_msg(p == NULL, "gen_program should fail, gave:\n%s", p ? p->text : "");
	ck_assert_uint_ge(diag_error_count(), 1);
	return out;
}

/* Braces outside comment lines balance, and no placeholder is left. */
static void check_shape(const char *text)
{
	int depth = 0;
	int in_comment = 0, at_start = 1;

	for (const char *c = text; *c; c++) {
		if (at_start)
			in_comment = c[0] == '/' && c[1] == '/';
		at_start = *c == '\n';
		if (in_comment)
			continue;
		if (*c == '{')
			depth++;
		else if (*c == '}')
			ck_assert_msg(--depth >= 0, "unbalanced '}' in:\n%s", text);
	}
	ck_assert_msg(depth == 0, "unbalanced '{' in:\n%s", text);
	ck_assert_lacks(text, "${");
	ck_assert_msg(lines_starting(text, "##") == 0, "template comment left in:\n%s", text);
}

START_TEST(test_program_pid_window)
{
	program *p = generate(42, 1500000000ull);
	const char *t = p->text;

	check_shape(t);
	ck_assert_msg(strncmp(t, "// Generated by bpfspec ", 24) == 0, "no header:\n%s", t);
	ck_assert_contains(t, "// spec:   demo (t/test.yaml)\n");
	ck_assert_contains(t, "// target: pid 42, /usr/bin/x\n");
	ck_assert_contains(t, "//   timers       uv__run_timers in /usr/bin/x 0x1000 0x2000\n");
	ck_assert_contains(t, "//   gone         skipped: missing_fn: not found\n");
	ck_assert_contains(t, "BEGIN\n");
	ck_assert_contains(t, "END\n");

	ck_assert_contains(t, "uprobe:/usr/bin/x:0x1000,\nuprobe:/usr/bin/x:0x2000\n/pid == 42/\n");
	ck_assert_contains(t, "uretprobe:/usr/bin/x:0x1000,\nuretprobe:/usr/bin/x:0x2000\n"
			      "/pid == 42 && (@pair_start[tid] || @pair_nest[tid])/\n");
	ck_assert_uint_eq(lines_starting(t, "uprobe:"), 2);
	ck_assert_uint_eq(lines_starting(t, "uretprobe:"), 2);
	ck_assert_uint_eq(count_of(t, "/pid == 42"), 2);

	/* The timed maps are shared, keyed by the probe's number first:
	 * BEGIN names the probes in order (wire.h). */
	ck_assert_contains(t, "\tprintf(\"bpfspec:probes timers gone\\n\");\n");
	ck_assert_contains(t, "\t@b[1, tid, $b] = count();\n");
	ck_assert_contains(t, "@sum[1, tid] = sum($ns);");

	ck_assert_contains(t, "interval:ms:1500\n");
	ck_assert_uint_eq(lines_starting(t, "interval:"), 1);
	/* Maps printed at the window's end and at END, helpers cleared at END. */
	ck_assert_uint_eq(count_of(t, "\tprint(@b);\n"), 2);
	ck_assert_uint_eq(count_of(t, "\tprint(@max);\n"), 2);
	ck_assert_uint_eq(count_of(t, "\tprint("), 8);
	ck_assert_uint_eq(count_of(t, "\tclear(@pair_start);\n"), 1);
	/* The inactive probe only shows up in the header, and holds its
	 * place in the probes line. */
	ck_assert_uint_eq(count_of(t, "gone"), 2);
	ck_assert_uint_eq(count_of(t, "missing_fn"), 1);
	ck_assert_lacks(t, "_gone");

	ck_assert_uint_eq(p->expected_attach, 1 + 2 * 2 + 1 + 1);
	program_free(p);
}
END_TEST

/* Several processes (-p A -p B, in that order, not sorted): every probe
 * tests each pid, the header names them all. */
START_TEST(test_program_several_pids)
{
	static const pid_t pids[] = { 42, 7 };
	gen_options o = { .pids = pids, .n_pids = 2, .window_ns = 1500000000ull };
	char *out;

	capture_start();
	program *p = gen_program(&fx.r, &o);
	out = capture_end();
	ck_assert_msg(p != NULL && out[0] == '\0', "gen_program failed:\n%s", out);
	free(out);
	const char *t = p->text;
	check_shape(t);
	ck_assert_contains(t, "// target: pids 42, 7, /usr/bin/x\n");
	ck_assert_contains(t, "uprobe:/usr/bin/x:0x1000,\nuprobe:/usr/bin/x:0x2000\n"
			      "/pid == 42 || pid == 7/\n");
	ck_assert_contains(t, "uretprobe:/usr/bin/x:0x1000,\nuretprobe:/usr/bin/x:0x2000\n"
			      "/(pid == 42 || pid == 7) && (@pair_start[tid] || @pair_nest[tid])/\n");
	ck_assert_uint_eq(count_of(t, "pid == 42"), 2);
	ck_assert_uint_eq(count_of(t, "pid == 7"), 2);
	program_free(p);

	/* One pid through the array reads as .pid did. */
	o.n_pids = 1;
	capture_start();
	p = gen_program(&fx.r, &o);
	free(capture_end());
	ck_assert_ptr_nonnull(p);
	ck_assert_contains(p->text, "// target: pid 42, /usr/bin/x\n");
	ck_assert_contains(p->text, "\n/pid == 42/\n");
	ck_assert_contains(p->text, "\n/pid == 42 && (@pair_start[tid]");
	ck_assert_lacks(p->text, "pid == 7");
	program_free(p);
}
END_TEST

/* The most pids a program takes, the largest pids: nothing is cut; one
 * more is refused. */
START_TEST(test_program_pid_limit)
{
	pid_t pids[GEN_MAX_PIDS + 1];
	for (size_t i = 0; i < GEN_MAX_PIDS + 1; i++)
		pids[i] = 2147483647 - (pid_t)i;
	gen_options o = { .pids = pids, .n_pids = GEN_MAX_PIDS };
	char *out;

	capture_start();
	program *p = gen_program(&fx.r, &o);
	out = capture_end();
	ck_assert_msg(p != NULL, "gen_program failed:\n%s", out);
	free(out);
	char last[64];
	snprintf(last, sizeof last, " || pid == %d/\n", (int)pids[GEN_MAX_PIDS - 1]);
	ck_assert_contains(p->text, "\n/pid == 2147483647 || pid == 2147483646 || ");
	ck_assert_contains(p->text, last);
	snprintf(last, sizeof last, " || pid == %d) && (@pair_start", (int)pids[GEN_MAX_PIDS - 1]);
	ck_assert_contains(p->text, last);
	program_free(p);

	o.n_pids = GEN_MAX_PIDS + 1;
	capture_start();
	p = gen_program(&fx.r, &o);
	out = capture_end();
	ck_assert_ptr_null(p);
	ck_assert_contains(out, "65 processes to trace: one program traces at most 64");
	free(out);
}
END_TEST

/* With a trigger, bpfspec's own function ends the window, whatever the
 * duration, and only bpfspec's process can fire it. */
START_TEST(test_program_trigger_window)
{
	gen_options o = { .pid = 42, .window_ns = 1500000000ull,
			  .trigger_path = "/usr/local/bin/bpfspec", .trigger_addr = 0x4321,
			  .trigger_pid = 777 };
	capture_start();
	program *p = gen_program(&fx.r, &o);
	free(capture_end());
	ck_assert_ptr_nonnull(p);
	/* The last window (arg0 1) stops every count before its maps are
	 * printed: print() reads them later, one after another. */
	ck_assert_contains(p->text, "\nuprobe:/usr/local/bin/bpfspec:0x4321\n/pid == 777 && arg0 < 2/\n{\n"
				    "\tif (arg0 != 0) { @wstart = (int64)(nsecs + 2000000000000000000); }"
				    " else { @wkeep = @wstart; @wstart = (int64)(nsecs + 1000000000000000000); }\n"
				    "\tprintf(\"bpfspec:flush %llu\\n\", nsecs);\n");
	/* An interval's flush (arg0 0) holds every count until its clears
	 * are done and bpfspec resumes the run with runner_window_end(4),
	 * which puts the run's start back. */
	ck_assert(p->held_intervals);
	ck_assert_contains(p->text, "\tclear(@max);\n\tif (arg0 == 0) { printf(\"bpfspec:held %llu\\n\", nsecs); }\n"
				    "\tprintf(\"bpfspec:end\\n\");\n\tif (arg0 != 0) { exit(); }\n}\n");
	ck_assert_contains(p->text, "\nuprobe:/usr/local/bin/bpfspec:0x4321\n/pid == 777 && arg0 == 4/\n{\n"
				    "\t@wstart = @wkeep;\n");
	ck_assert_uint_eq(count_of(p->text, "\t@wstart = (int64)nsecs;\n"), 2);
	ck_assert_contains(p->text, "\tprintf(\"bpfspec:resumed %llu\\n\", nsecs);\n}\n");
	/* runner_window_end(2) drops what came while attaching and holds
	 * every count; calls in progress are forgotten. */
	ck_assert_contains(p->text, "\nuprobe:/usr/local/bin/bpfspec:0x4321\n/pid == 777 && arg0 == 2/\n{\n"
				    "\tclear(@b);\n");
	ck_assert_contains(p->text, "\tclear(@pair_start);\n\tclear(@pair_nest);\n");
	/* Until runner_window_end(3), no call counts; then the window
	 * begins, in the kernel and for bpfspec. */
	ck_assert_contains(p->text, "\t@wstart = (int64)(nsecs + 1000000000000000000);\n"
				    "\tprintf(\"bpfspec:started %llu\\n\", nsecs);\n}\n");
	ck_assert_contains(p->text, "\nuprobe:/usr/local/bin/bpfspec:0x4321\n/pid == 777 && arg0 == 3/\n{\n");
	ck_assert_contains(p->text, "\t@wstart = (int64)nsecs;\n\tprintf(\"bpfspec:begun %llu\\n\", nsecs);\n}\n");
	ck_assert_lacks(p->text, "interval:");
	ck_assert_uint_eq(p->expected_attach, 1 + 2 * 2 + 1 + 3 + 1);
	program_free(p);

	/* Cumulative intervals clear nothing: no hold, no resume. */
	o.cumulative = true;
	capture_start();
	p = gen_program(&fx.r, &o);
	free(capture_end());
	ck_assert_ptr_nonnull(p);
	ck_assert(!p->held_intervals);
	ck_assert_lacks(p->text, "@wkeep");
	ck_assert_lacks(p->text, "bpfspec:held");
	ck_assert_uint_eq(p->expected_attach, 1 + 2 * 2 + 1 + 2 + 1);
	program_free(p);
	o.cumulative = false;

	/* A trigger path bpftrace cannot take is refused, not emitted. */
	o.trigger_path = "/tmp/a b/bpfspec";
	capture_start();
	p = gen_program(&fx.r, &o);
	char *err = capture_end();
	ck_assert_ptr_null(p);
	ck_assert_contains(err, "characters bpftrace cannot take");
	free(err);
}
END_TEST

START_TEST(test_program_any_pid_no_window)
{
	program *p = generate(0, 0);
	const char *t = p->text;

	check_shape(t);
	ck_assert_contains(t, "// target: any process running /usr/bin/x\n");
	ck_assert_contains(t, "uprobe:/usr/bin/x:0x2000\n{\n");
	ck_assert_contains(t, "uretprobe:/usr/bin/x:0x2000\n/(@pair_start[tid] || @pair_nest[tid])/\n");
	ck_assert_lacks(t, "pid ==");
	ck_assert_lacks(t, "interval:");
	ck_assert_uint_eq(count_of(t, "\tprint(@b);\n"), 1);
	ck_assert_uint_eq(p->expected_attach, 1 + 2 * 2 + 1);
	program_free(p);
}
END_TEST

/* The interval is the window rounded up to whole milliseconds. */
START_TEST(test_program_window_rounding)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} cases[] = {
		{ 1, "interval:ms:1\n" },
		{ 1000000, "interval:ms:1\n" },
		{ 1000001, "interval:ms:2\n" },
		{ 250000000, "interval:ms:250\n" },
		{ 86400000000000ull, "interval:ms:86400000\n" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		program *p = generate(0, cases[i].ns);
		ck_assert_contains(p->text, cases[i].want);
		ck_assert_uint_eq(lines_starting(p->text, "interval:"), 1);
		ck_assert_uint_eq(p->expected_attach, 7);
		program_free(p);
	}
}
END_TEST

START_TEST(test_program_not_per_thread)
{
	fx.s->probes[0].per_thread = false;
	program *p = generate(0, 0);
	ck_assert_contains(p->text, "@b[1, 0, $b] = count();");
	ck_assert_contains(p->text, "@max[1, 0] = max($ns);");
	/* The start time is always per thread. */
	ck_assert_contains(p->text, "@pair_start[tid] = $now;");
	program_free(p);
}
END_TEST

START_TEST(test_program_no_active_probe)
{
	fx.rp[0].active = false;
	fx.rp[0].object = NULL;
	fx.rp[0].addrs = NULL;
	fx.rp[0].n_addrs = 0;
	fx.rp[0].reason = fx.reason;
	fx.r.n_active = 0;

	program *p = generate(7, 0);
	check_shape(p->text);
	ck_assert_lacks(p->text, "uprobe:");
	ck_assert_lacks(p->text, "print(@");
	ck_assert_uint_eq(p->expected_attach, 2);
	program_free(p);

	p = generate(7, 1000000000ull);
	check_shape(p->text);
	ck_assert_uint_eq(p->expected_attach, 3);
	program_free(p);
}
END_TEST

/* Paths bpftrace cannot take in an attach point are refused. */
START_TEST(test_program_bad_object)
{
	static const char *const bad[] = {
		"/usr/bin/x y", "/usr/bin/x\"y", "/usr/bin/x\ny", "/usr/bin/x:1",
		"/usr/bin/x\ty", "/usr/bin/x'y", "/usr/bin/x{y}", "/usr/bin/x;y",
		"usr/bin/x", "", "/usr/bin/caf\xc3\xa9",
	};

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		strcpy(fx.object, bad[i]);
		char *out = generate_fail();
		ck_assert_contains(out, "error: probe 'timers': object path '");
		ck_assert_contains(out, "hint: ");
		free(out);
	}
	/* What the grammar allows; bpftrace 0.17 reads a bare path only up to
	 * a '+', so such a path is quoted. */
	strcpy(fx.object, "/opt/App-1.2/lib/libc++_x.so.6");
	program *p = generate(0, 0);
	ck_assert_contains(p->text, "uprobe:\"/opt/App-1.2/lib/libc++_x.so.6\":0x1000,\n");
	program_free(p);
	strcpy(fx.object, "/opt/App-1.2/lib/libc_x.so.6");
	p = generate(0, 0);
	ck_assert_contains(p->text, "uprobe:/opt/App-1.2/lib/libc_x.so.6:0x1000,\n");
	program_free(p);
}
END_TEST

/* Checks that INJECTED never starts a line of TEXT and that every line
 * holding it is a comment. */
static void check_contained(const char *text, const char *injected)
{
	ck_assert_msg(lines_starting(text, injected) == 0, "\"%s\" starts a line in:\n%s",
		      injected, text);
	for (const char *line = text; line; ) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *copy = strndup(line, len);
		ck_assert_ptr_nonnull(copy);
		if (strstr(copy, "INJECTED"))
			ck_assert_msg(strncmp(copy, "//", 2) == 0, "not a comment: \"%s\"", copy);
		free(copy);
		line = nl ? nl + 1 : NULL;
	}
}

START_TEST(test_program_comment_injection)
{
	static const char injected[] = "INJECTED BEGIN { system(\"id\"); }";
	program *p;

	/* A reason (from the spec's missing_reason, free text). */
	snprintf(fx.reason, sizeof fx.reason, "gone\n%s\r\n%s\n", injected, injected);
	p = generate(0, 0);
	check_contained(p->text, injected);
	ck_assert_contains(p->text, "// Generated by bpfspec");
	ck_assert_contains(p->text, "skipped: gone?INJECTED");
	program_free(p);

	/* The executable's path (the traced object is a library here). */
	snprintf(fx.exe, sizeof fx.exe, "/usr/bin/x\n%s", injected);
	strcpy(fx.object, "/usr/lib/libx.so.1");
	p = generate(3, 0);
	check_contained(p->text, injected);
	ck_assert_contains(p->text, "// target: pid 3, /usr/bin/x?INJECTED");
	program_free(p);
}
END_TEST

START_TEST(test_program_spec_path_injection)
{
	static const char injected[] = "INJECTED END { exit(); }";
	char path[128];

	teardown();
	snprintf(path, sizeof path, "t/x\n%s\n.yaml", injected);
	fixture_build(path, spec_yaml);
	program *p = generate(0, 0);
	check_contained(p->text, injected);
	ck_assert_contains(p->text, "// spec:   demo (t/x?INJECTED");
	program_free(p);
}
END_TEST

/* ---- count probes -------------------------------------------------- */

static const char count_yaml[] =
	"name: counts\n"
	"probes:\n"
	"  - {name: sw, kind: count, probe: \"tracepoint:sched:sched_switch\"}\n"
	"  - {name: fn, kind: count, probe: \"uprobe:main:uv__run_timers\"}\n"
	"  - {name: fnret, kind: count, probe: \"uretprobe:main:uv__run_timers\", per_thread: false}\n"
	"  - {name: lib, kind: count, probe: \"uprobe:/usr/lib/libuv.so.1:uv_run\"}\n"
	"  - {name: gc, kind: count, probe: \"usdt:main:node:gc__start\"}\n"
	"  - {name: gc2, kind: count, probe: \"usdt:/usr/bin/node:node:gc__done\"}\n"
	"  - {name: opens, kind: count, probe: \"kprobe:do_sys_openat2\"}\n"
	"  - {name: faults, kind: count, probe: \"software:page-faults:100\"}\n"
	"  - {name: prof, kind: count, probe: \"profile:hz:99\"}\n";

/* Each form of probe point becomes its attach point, with the pid
 * filter, and @c_NAME[tid] (or [0]); OBJECT main names the executable. */
START_TEST(test_program_count)
{
	char exe[] = "/usr/bin/x", *objs[] = { exe }, *out;
	uint64_t addrs[2] = { 0x1000, 0x2000 };
	resolved_probe rp[9];
	spec *s;

	capture_start();
	s = spec_parse("t/count.yaml", count_yaml, strlen(count_yaml));
	out = capture_end();
	ck_assert_msg(s != NULL, "spec does not parse:\n%s", out);
	free(out);
	ck_assert_uint_eq(s->n_probes, 9);
	target t = { .pid = 0, .exe = exe, .objects = objs, .n_objects = 1 };
	for (size_t i = 0; i < 9; i++)
		rp[i] = (resolved_probe){ .sp = &s->probes[i], .active = true };
	rp[1].object = rp[2].object = exe;
	rp[1].addrs = rp[2].addrs = addrs;
	rp[1].n_addrs = 2;
	rp[2].n_addrs = 1;
	rp[4].object = exe;
	resolved r = { .sp = s, .tg = &t, .probes = rp, .n_probes = 9, .n_active = 9 };
	gen_options o = { .pid = 42 };

	capture_start();
	program *p = gen_program(&r, &o);
	out = capture_end();
	ck_assert_msg(p != NULL, "gen_program failed:\n%s", out);
	free(out);
	check_shape(p->text);
	/* Hits before the window began (the trigger's start) do not count;
	 * kernel probes read the start as kptr(@wstart) (bpftrace 0.27 warns
	 * of an address space mismatch otherwise: window_start.bt.in). */
#define COUNTED(wstart, map) "\t// before the window began (window_start.bt.in): not this window's\n" \
		     "\tif ((int64)nsecs >= " wstart ") {\n\t\t" map " = count();\n\t}\n}\n"
	ck_assert_contains(p->text, "\ntracepoint:sched:sched_switch\n/pid == 42/\n{\n"
				    COUNTED("kptr(@wstart)", "@c_sw[tid]"));
	ck_assert_contains(p->text, "\nuprobe:/usr/bin/x:0x1000,\nuprobe:/usr/bin/x:0x2000\n"
				    "/pid == 42/\n{\n" COUNTED("@wstart", "@c_fn[tid]"));
	ck_assert_contains(p->text, "\nuretprobe:/usr/bin/x:0x1000\n/pid == 42/\n{\n"
				    COUNTED("@wstart", "@c_fnret[0]"));
#undef COUNTED
	ck_assert_contains(p->text, "\nuprobe:/usr/lib/libuv.so.1:uv_run\n/pid == 42/\n");
	ck_assert_contains(p->text, "\nusdt:/usr/bin/x:node:gc__start\n/pid == 42/\n");
	ck_assert_contains(p->text, "\nusdt:/usr/bin/node:node:gc__done\n/pid == 42/\n");
	ck_assert_contains(p->text, "\nkprobe:do_sys_openat2\n/pid == 42/\n");
	ck_assert_contains(p->text, "\nsoftware:page-faults:100\n/pid == 42/\n");
	ck_assert_contains(p->text, "\nprofile:hz:99\n/pid == 42/\n");
	ck_assert_contains(p->text, "//   fn           count of uprobe:main:uv__run_timers in "
				    "/usr/bin/x 0x1000 0x2000\n");
	ck_assert_contains(p->text, "\tprint(@c_prof);\n");
	ck_assert_contains(p->text, "\tclear(@c_sw);\n");
	/* BEGIN, END, one per attach point (the uprobe on main: two). */
	ck_assert_uint_eq(p->expected_attach, 2 + 10);
	program_free(p);

	/* Without a pid: no filter. */
	o.pid = 0;
	capture_start();
	p = gen_program(&r, &o);
	out = capture_end();
	free(out);
	ck_assert_ptr_nonnull(p);
	ck_assert_lacks(p->text, "pid ==");
	ck_assert_contains(p->text, "\ntracepoint:sched:sched_switch\n{\n");
	program_free(p);
	spec_free(s);
}
END_TEST

/* The delete() statements follow the bpftrace that runs the program:
 * 0.17-0.23 refuse its value in an assignment, 0.25+ warns when it is
 * discarded (0.24 returns it).  Unknown (0.0) is 0.17's dialect. */
/* With pids_addr, the traced set changes in place: every probe tests
 * @pids, BEGIN fills it with the pids given, only bpfspec's own process
 * can add or remove one through runner_pids_change, and only END clears
 * it. */
START_TEST(test_program_pid_map)
{
	static const pid_t pids[] = { 42, 7 };
	gen_options o = { .pids = pids, .n_pids = 2,
			  .trigger_path = "/usr/local/bin/bpfspec", .trigger_addr = 0x4321,
			  .pids_addr = 0x5678, .trigger_pid = 777 };
	capture_start();
	program *p = gen_program(&fx.r, &o);
	char *out = capture_end();
	ck_assert_msg(p != NULL && out[0] == '\0', "gen_program failed:\n%s", out);
	free(out);
	const char *t = p->text;
	check_shape(t);
	ck_assert_contains(t, "uprobe:/usr/bin/x:0x1000,\nuprobe:/usr/bin/x:0x2000\n"
			      "/@pids[(uint64)pid]/\n");
	ck_assert_contains(t, "/@pids[(uint64)pid] && (@pair_start[tid] || @pair_nest[tid])/\n");
	ck_assert_lacks(t, "pid == 42");
	ck_assert_contains(t, "\t@pids[(uint64)42] = 1;\n\t@pids[(uint64)7] = 1;\n");
	ck_assert_contains(t, "\nuprobe:/usr/local/bin/bpfspec:0x5678\n/pid == 777/\n{\n"
			      "\tif (arg1) {\n\t\t@pids[arg0] = 1;\n\t} else {\n"
			      "\t\tdelete(@pids[arg0]);\n\t}\n}\n");
	ck_assert_uint_eq(count_of(t, "clear(@pids)"), 1);
	ck_assert_contains(t, "END\n{\n");
	ck_assert_contains(strstr(t, "END\n{\n"), "\tclear(@pids);\n");
	ck_assert_uint_eq(p->expected_attach, 1 + 2 * 2 + 1 + 3 + 1 + 1);
	program_free(p);

	/* Without the trigger's path there is no way to change the set:
	 * the pids are written in, as without pids_addr. */
	o.trigger_path = NULL;
	o.window_ns = 1000000000ull;
	capture_start();
	p = gen_program(&fx.r, &o);
	free(capture_end());
	ck_assert_ptr_nonnull(p);
	ck_assert_lacks(p->text, "@pids");
	ck_assert_contains(p->text, "/pid == 42 || pid == 7/\n");
	program_free(p);
}
END_TEST

START_TEST(test_program_delete_dialect)
{
	static const struct {
		int major, minor;
		bool assigned;
	} cases[] = { { 0, 0, false }, { 0, 17, false }, { 0, 23, false },
		      { 0, 24, true },	{ 0, 27, true },  { 1, 0, true } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		gen_options o = { .pid = 42, .window_ns = 1000000000ull,
				  .bpftrace_major = cases[i].major,
				  .bpftrace_minor = cases[i].minor };
		capture_start();
		program *p = gen_program(&fx.r, &o);
		char *out = capture_end();
		ck_assert_msg(p != NULL, "gen_program failed:\n%s", out);
		free(out);
		check_shape(p->text);
		if (cases[i].assigned) {
			ck_assert_contains(p->text, "\t$deleted = delete(@pair_start[tid]);\n");
			ck_assert_lacks(p->text, "\tdelete(");
		} else {
			ck_assert_contains(p->text, "\tdelete(@pair_start[tid]);\n");
			ck_assert_lacks(p->text, "$deleted");
		}
		program_free(p);
	}
}
END_TEST

/* A path with '+' (bpftrace 0.17 cuts a bare path there) is quoted in
 * every uprobe by address: latency pairs, entry-only phases and both
 * window triggers. */
START_TEST(test_program_plus_paths_quoted)
{
	gen_options o = { .pid = 42, .window_ns = 1000000000ull,
			  .trigger_path = "/opt/c++/bpfspec", .trigger_addr = 0x4321,
			  .trigger_pid = 777 };
	strcpy(fx.object, "/opt/node+v24/node");
	for (int entry_only = 0; entry_only <= 1; entry_only++) {
		fx.s->entry_only = entry_only;
		capture_start();
		program *p = gen_program(&fx.r, &o);
		char *out = capture_end();
		ck_assert_msg(p != NULL, "gen_program failed:\n%s", out);
		free(out);
		check_shape(p->text);
		ck_assert_contains(p->text, "uprobe:\"/opt/node+v24/node\":0x1000,\n"
					    "uprobe:\"/opt/node+v24/node\":0x2000\n");
		if (!entry_only)
			ck_assert_contains(p->text, "uretprobe:\"/opt/node+v24/node\":0x1000,\n");
		/* the window's end, its held start and begin, the interval's resume */
		ck_assert_uint_eq(count_of(p->text, "\nuprobe:\"/opt/c++/bpfspec\":0x4321\n"), 4);
		ck_assert_lacks(p->text, ":/opt/");
		program_free(p);
	}
	fx.s->entry_only = false;
}
END_TEST

/* Entry-only phases add a call to the phase entered before, $prev (its
 * number in the shared maps): one set of statements when the phases are
 * grouped alike, one per phase when one is per thread and one is not
 * (their keys differ). */
START_TEST(test_program_entry_only_shared)
{
	fx.s->entry_only = true;
	fx.rp[1] = fx.rp[0];
	fx.rp[1].sp = &fx.s->probes[1];
	program *p = generate(0, 1000000000ull);
	ck_assert_contains(p->text, "\tprintf(\"bpfspec:probes timers gone\\n\");\n");
	ck_assert_contains(p->text, "\t\t@b[$prev, tid, $b] = count();\n\t\t@sum[$prev, tid] = sum($ns);\n");
	ck_assert_contains(p->text, "\t@phase_cur[tid] = 1;\n");
	ck_assert_contains(p->text, "\t@phase_cur[tid] = 2;\n");
	ck_assert_lacks(p->text, "if ($prev ==");
	ck_assert_uint_eq(count_of(p->text, "\tprint("), 8);
	program_free(p);

	fx.s->probes[1].per_thread = false;
	p = generate(0, 1000000000ull);
	ck_assert_contains(p->text, "\t\tif ($prev == 1) {\n\t\t\t@b[1, tid, $b] = count();\n");
	ck_assert_contains(p->text, "\t\tif ($prev == 2) {\n\t\t\t@b[2, 0, $b] = count();\n");
	ck_assert_contains(p->text, "\t\t\t@max[2, 0] = max($ns);\n");
	ck_assert_lacks(p->text, "@b[$prev");
	program_free(p);

	/* A probe's number is its place in the spec, active or not: with
	 * the first one skipped, the second is still 2, for pairs too. */
	fx.rp[0].active = false;
	p = generate(0, 1000000000ull);
	ck_assert_contains(p->text, "\t@phase_cur[tid] = 2;\n");
	ck_assert_lacks(p->text, "@phase_cur[tid] = 1;");
	program_free(p);
	fx.s->entry_only = false;
	p = generate(0, 1000000000ull);
	ck_assert_contains(p->text, "\t@b[2, 0, $b] = count();\n");
	ck_assert_contains(p->text, "\tprintf(\"bpfspec:probes timers gone\\n\");\n");
	ck_assert_lacks(p->text, "@b[1,");
	program_free(p);
}
END_TEST

/* A map the probes delete from: cleared by BEGIN or END only, printed or
 * cleared by no other probe (a thread's exit may delete from any). */
START_TEST(test_maps_rule)
{
	ck_assert_int_eq(gen_check_maps_rule("BEGIN\n{\n\tclear(@a);\n}\n\n"
					     "uprobe:/x:0x1\n/pid == 1/\n{\n\tdelete(@a[tid]);\n}\n\n"
					     "END\n{\n\tprint(@a);\n\tclear(@a);\n}\n"), 0);
	/* printed at each window: several attach points, 0.24's form */
	ck_assert_int_eq(gen_check_maps_rule("uprobe:/x:0x1,\nuprobe:/x:0x2\n{\n"
					     "\tif (1) {\n\t\t$deleted = delete(@a_b[tid]);\n\t}\n}\n\n"
					     "interval:ms:1000\n{\n\tprint(@a_b);\n}\n"), -1);
	/* cleared as a held window starts (the trigger's probe) */
	ck_assert_int_eq(gen_check_maps_rule("uprobe:/x:0x1\n{\n\tdelete(@s[tid]);\n}\n"
					     "uprobe:/b:0x2\n/pid == 3 && arg0 == 2/\n{\n"
					     "\tclear(@s);\n}\n"), -1);
	ck_assert_int_eq(gen_check_maps_rule("tracepoint:sched:sched_process_exit\n/pid == 1/\n{\n"
					     "\tdelete(@u[tid]);\n}\n"
					     "interval:ms:1000\n{\n\tprint(@u);\n}\n"), 0);
	/* a name that begins another's is another map */
	ck_assert_int_eq(gen_check_maps_rule("uprobe:/x:0x1\n{\n\tdelete(@ab[tid]);\n}\n"
					     "interval:ms:1000\n{\n\tprint(@abc);\n\tclear(@a);\n}\n"),
			 0);
}
END_TEST

START_TEST(test_program_free_null)
{
	program_free(NULL);
}
END_TEST

/* Processes of three executables in one program (resolve_join): each
 * uprobe on every file once (a file reached twice, as a shared library
 * would be, is written once), the probes counted per attach point. */
START_TEST(test_program_joined_executables)
{
	char exe2[] = "/opt/b/node", exe3[] = "/opt/c/node";
	char *objs2[] = { exe2 }, *objs3[] = { exe3 };
	target t2 = { .exe = exe2, .objects = objs2, .n_objects = 1 };
	target t3 = { .exe = exe3, .objects = objs3, .n_objects = 1 };
	uint64_t a2[] = { 0x3000 }, a3[] = { 0x1000 };
	resolved_probe rp2[2] = { { .sp = &fx.s->probes[0], .active = true, .object = exe2,
				    .addrs = a2, .n_addrs = 1 },
				  { .sp = &fx.s->probes[1] } };
	resolved_probe rp3[2] = { { .sp = &fx.s->probes[0], .active = true, .object = fx.object,
				    .addrs = a3, .n_addrs = 1 },
				  { .sp = &fx.s->probes[1] } };
	resolved r2 = { .sp = fx.s, .tg = &t2, .probes = rp2, .n_probes = 2, .n_active = 1 };
	resolved r3 = { .sp = fx.s, .tg = &t3, .probes = rp3, .n_probes = 2, .n_active = 1 };
	capture_start();
	ck_assert_int_eq(resolve_join(&fx.r, &r2), 0);
	ck_assert_int_eq(resolve_join(&fx.r, &r3), 0);
	free(capture_end());
	ck_assert_uint_eq(fx.rp[0].n_same, 2);
	ck_assert_uint_eq(fx.r.n_also, 2);

	pid_t pids[] = { 10, 20, 30 };
	gen_options o = { .pids = pids, .n_pids = 3 };
	capture_start();
	program *p = gen_program(&fx.r, &o);
	free(capture_end());
	ck_assert_ptr_nonnull(p);
	ck_assert_contains(p->text, "uprobe:/usr/bin/x:0x1000,\nuprobe:/usr/bin/x:0x2000,\n"
				    "uprobe:/opt/b/node:0x3000\n");
	ck_assert_contains(p->text, "uretprobe:/opt/b/node:0x3000\n");
	ck_assert_ptr_null(strstr(p->text, "/opt/c/node:"));	/* its only point is x's */
	ck_assert_contains(p->text, "/usr/bin/x, /opt/b/node and /opt/c/node");
	ck_assert_uint_eq(p->expected_attach, 2 + 6);	/* BEGIN, END; 3 entries, 3 returns */
	program_free(p);
	free(fx.rp[0].same);
	free(fx.r.also);
	fx.rp[0].same = NULL;
	fx.r.also = NULL;
}
END_TEST

/* Specs whose programs are written for one executable are refused. */
START_TEST(test_join_refused)
{
	char exe2[] = "/opt/b/node";
	target t2 = { .exe = exe2 };
	resolved_probe rp2[2] = { { .sp = &fx.s->probes[0] }, { .sp = &fx.s->probes[1] } };
	resolved r2 = { .sp = fx.s, .tg = &t2, .probes = rp2, .n_probes = 2 };
	char old[] = "1.44.2";
	r2.libuv_version = old;
	capture_start();
	ck_assert_int_eq(resolve_join(&fx.r, &r2), -1);
	char *out = capture_end();
	ck_assert_contains(out, "either side of 1.45");
	ck_assert_contains(out, "/opt/b/node");
	free(out);
	r2.libuv_version = NULL;
	fx.s->stack_ns = 1000000;
	capture_start();
	ck_assert_int_eq(resolve_join(&fx.r, &r2), -1);
	out = capture_end();
	ck_assert_contains(out, "samples stacks");
	free(out);
	fx.s->stack_ns = 0;
	ck_assert_ptr_null(fx.r.also);
}
END_TEST

static Suite *gen_suite(void)
{
	Suite *s = suite_create("gen");
	TCase *tc = tcase_create("buckets");

	tcase_add_test(tc, test_template_mirror);
	tcase_add_test(tc, test_bucket_small_exhaustive);
	tcase_add_test(tc, test_bucket_random_and_edges);
	tcase_add_test(tc, test_bucket_tiling);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("program");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_program_pid_window);
	tcase_add_test(tc, test_program_several_pids);
	tcase_add_test(tc, test_program_joined_executables);
	tcase_add_test(tc, test_join_refused);
	tcase_add_test(tc, test_program_pid_map);
	tcase_add_test(tc, test_program_pid_limit);
	tcase_add_test(tc, test_program_any_pid_no_window);
	tcase_add_test(tc, test_program_trigger_window);
	tcase_add_test(tc, test_program_window_rounding);
	tcase_add_test(tc, test_program_not_per_thread);
	tcase_add_test(tc, test_program_entry_only_shared);
	tcase_add_test(tc, test_program_no_active_probe);
	tcase_add_test(tc, test_program_bad_object);
	tcase_add_test(tc, test_program_comment_injection);
	tcase_add_test(tc, test_program_spec_path_injection);
	tcase_add_test(tc, test_program_count);
	tcase_add_test(tc, test_program_delete_dialect);
	tcase_add_test(tc, test_program_plus_paths_quoted);
	tcase_add_test(tc, test_program_free_null);
	tcase_add_test(tc, test_maps_rule);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gen_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
