/* Unit tests for report: report_percentile on hand-made buckets, then
 * report_build fed by the real bpfout parser with bpftrace JSON lines that
 * follow generator.h's map naming (@b_NAME[key, bucket], @sum/min/max_NAME[key]):
 * totals, per-thread groups (main thread first), percentiles inside the
 * right bucket, a skipped probe, a run without data, and a recorded
 * fixture that holds none of bpfspec's maps.  Run under valgrind
 * (CK_FORK=no) for leaks. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "model/report.h"
#include "run/report_build.h"
#include "program/generator.h"
#include "program/resolve.h"
#include "render/render.h"
#include "render/report_load.h"
#include "run/bpfout.h"
#include "spec/spec.h"
#include "target/target.h"
#include "util/diag.h"
#include "util/hist.h"

/* ---- report_percentile --------------------------------------------- */

static report_stats stats_of(report_bucket *b, size_t n, uint64_t min, uint64_t max)
{
	report_stats st = { .buckets = b, .n_buckets = n, .min_ns = min, .max_ns = max };

	for (size_t i = 0; i < n; i++)
		st.count += b[i].count;
	return st;
}

START_TEST(test_percentile_empty)
{
	report_stats st = { 0 };
	report_bucket b[] = { { 10, 20, 0 } };

	ck_assert_uint_eq(report_percentile(&st, 0.5), 0);
	st = stats_of(b, 1, 0, 0);
	ck_assert_uint_eq(st.count, 0);
	ck_assert_uint_eq(report_percentile(&st, 0.5), 0);
	ck_assert_uint_eq(report_percentile(&st, 0.99), 0);
	/* A count without buckets (inconsistent input) gives 0, not a crash. */
	st = (report_stats){ .count = 5, .min_ns = 3, .max_ns = 9 };
	ck_assert_uint_eq(report_percentile(&st, 0.5), 0);
}
END_TEST

START_TEST(test_percentile_single_bucket)
{
	report_bucket b[] = { { 1000, 1064, 10 } };
	report_stats st = stats_of(b, 1, 1000, 1063);

	ck_assert_uint_eq(report_percentile(&st, 0.0), 1000);
	ck_assert_uint_eq(report_percentile(&st, 0.5), 1032);
	ck_assert_uint_eq(report_percentile(&st, 0.25), 1016);
	/* The bucket's exclusive end is clamped to the exact max. */
	ck_assert_uint_eq(report_percentile(&st, 1.0), 1063);

	/* One sample: every percentile is that sample (min == max). */
	b[0].count = 1;
	st = stats_of(b, 1, 1040, 1040);
	ck_assert_uint_eq(report_percentile(&st, 0.5), 1040);
	ck_assert_uint_eq(report_percentile(&st, 0.9), 1040);
	ck_assert_uint_eq(report_percentile(&st, 0.99), 1040);
}
END_TEST

START_TEST(test_percentile_interpolation)
{
	report_bucket b[] = { { 0, 100, 50 }, { 100, 200, 50 } };
	report_stats st = stats_of(b, 2, 0, 200);

	ck_assert_uint_eq(report_percentile(&st, 0.25), 50);
	/* Rank 50 ends the first bucket: its last value, not the next
	 * bucket's first (hi_ns is exclusive). */
	ck_assert_uint_eq(report_percentile(&st, 0.50), 99);
	ck_assert_uint_eq(report_percentile(&st, 0.75), 150);
	ck_assert_uint_eq(report_percentile(&st, 0.90), 180);
	ck_assert_uint_eq(report_percentile(&st, 0.99), 198);

	/* Uneven counts: rank 0.9 * 10 = 9 falls 8/9 into the second bucket. */
	report_bucket c[] = { { 1600, 1700, 1 }, { 3200, 3400, 9 } };
	st = stats_of(c, 2, 1600, 3399);
	ck_assert_uint_eq(report_percentile(&st, 0.10), 1699);
	ck_assert_uint_eq(report_percentile(&st, 0.90), 3200 + 178);	/* 177.8 rounded */
	ck_assert_uint_eq(report_percentile(&st, 0.50), 3200 + 89);	/* 4/9 of 200 */

	/* Empty buckets in between are skipped. */
	report_bucket d[] = { { 0, 10, 0 }, { 10, 20, 4 }, { 20, 30, 0 }, { 30, 40, 4 } };
	st = stats_of(d, 4, 0, 40);
	ck_assert_uint_eq(report_percentile(&st, 0.0), 10);
	ck_assert_uint_eq(report_percentile(&st, 0.5), 19);
	ck_assert_uint_eq(report_percentile(&st, 0.75), 35);
}
END_TEST

START_TEST(test_percentile_clamping)
{
	report_bucket b[] = { { 1000, 2000, 10 } };
	report_stats st = stats_of(b, 1, 1500, 1800);

	ck_assert_uint_eq(report_percentile(&st, 0.10), 1500);	/* 1100 < min */
	ck_assert_uint_eq(report_percentile(&st, 0.60), 1600);
	ck_assert_uint_eq(report_percentile(&st, 0.90), 1800);	/* 1900 > max */

	/* Percentiles never decrease with q. */
	report_bucket c[] = { { 16, 17, 3 }, { 48, 50, 5 }, { 1024, 1088, 2 } };
	st = stats_of(c, 3, 16, 1050);
	uint64_t prev = 0;
	for (int i = 0; i <= 100; i++) {
		uint64_t v = report_percentile(&st, i / 100.0);
		ck_assert_uint_ge(v, prev);
		ck_assert_uint_ge(v, st.min_ns);
		ck_assert_uint_le(v, st.max_ns);
		prev = v;
	}

	/* Near the top of the range, still clamped and still exact enough. */
	uint64_t lo = (uint64_t)1 << 62, w = (uint64_t)1 << 58;
	report_bucket d[] = { { lo, lo + w, 1 } };
	st = stats_of(d, 1, lo + 5, lo + 5);
	ck_assert_uint_eq(report_percentile(&st, 0.5), lo + 5);

	/* The last bucket ends at 2^64: its top converts without overflow. */
	report_bucket e[] = { { (uint64_t)31 << 59, UINT64_MAX, 1 } };
	st = stats_of(e, 1, (uint64_t)31 << 59, UINT64_MAX - 1);
	ck_assert_uint_eq(report_percentile(&st, 1.0), UINT64_MAX - 1);
	ck_assert_uint_eq(report_percentile(&st, 0.0), (uint64_t)31 << 59);
}
END_TEST

/* Exact buckets (below 16 ns, one value each) give exact percentiles, and
 * an estimate always lies in the bucket that holds its rank. */
START_TEST(test_percentile_inside_bucket)
{
	report_bucket b[] = { { 5, 6, 2 }, { 48, 50, 1 } };
	report_stats st = stats_of(b, 2, 5, 49);

	ck_assert_uint_eq(report_percentile(&st, 0.5), 5);
	ck_assert_uint_eq(report_percentile(&st, 0.66), 5);
	ck_assert_uint_eq(report_percentile(&st, 0.9), 49);

	for (uint64_t idx = 0; idx < 400; idx += 7) {
		uint64_t lo, hi;
		hist_bucket_bounds(idx, &lo, &hi);
		report_bucket c[] = { { lo, hi, 3 } };
		st = stats_of(c, 1, 0, UINT64_MAX);
		for (int q = 0; q <= 100; q++) {
			uint64_t v = report_percentile(&st, q / 100.0);
			ck_assert_msg(v >= lo && v < hi, "q %d: %llu outside [%llu, %llu)", q,
				      (unsigned long long)v, (unsigned long long)lo,
				      (unsigned long long)hi);
		}
	}
}
END_TEST

/* ---- report_build -------------------------------------------------- */

static const char spec_yaml[] =
	"name: demo\n"
	"probes:\n"
	"  - name: timers\n"
	"    kind: latency\n"
	"    function: uv__run_timers\n"
	"    unit: us\n"
	"  - name: poll\n"
	"    kind: latency\n"
	"    function: uv__io_poll\n"
	"    per_thread: false\n"
	"  - name: gone\n"
	"    kind: latency\n"
	"    function: missing_fn\n"
	"    optional: true\n";

typedef struct fixture {
	spec *s;
	char exe[64];
	char *objects[1];
	target t;
	uint64_t addrs[2];
	char reason[64];
	resolved_probe rp[3];
	resolved r;
	bpfout *out;
} fixture;

static fixture fx;

static void setup(void)
{
	char *diag = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&diag, &len);

	memset(&fx, 0, sizeof fx);
	diag_set_stream(f);
	fx.s = spec_parse("t/demo.yaml", spec_yaml, strlen(spec_yaml));
	diag_set_stream(NULL);
	fclose(f);
	ck_assert_msg(fx.s != NULL, "spec does not parse:\n%s", diag);
	free(diag);

	strcpy(fx.exe, "/usr/bin/x");
	fx.objects[0] = fx.exe;
	fx.t = (target){ .pid = 100, .exe = fx.exe, .objects = fx.objects, .n_objects = 1 };
	fx.addrs[0] = 0x1000;
	fx.addrs[1] = 0x2000;
	strcpy(fx.reason, "missing_fn: not found (inlined)");
	fx.rp[0] = (resolved_probe){ .sp = &fx.s->probes[0], .active = true,
				     .object = fx.exe, .addrs = fx.addrs, .n_addrs = 1 };
	fx.rp[1] = (resolved_probe){ .sp = &fx.s->probes[1], .active = true,
				     .object = fx.exe, .addrs = fx.addrs + 1, .n_addrs = 1 };
	fx.rp[2] = (resolved_probe){ .sp = &fx.s->probes[2], .active = false,
				     .reason = fx.reason };
	fx.r = (resolved){ .sp = fx.s, .tg = &fx.t, .probes = fx.rp, .n_probes = 3,
			   .n_active = 2 };
	fx.out = bpfout_new();
	ck_assert_ptr_nonnull(fx.out);
}

static void teardown(void)
{
	bpfout_free(fx.out);
	spec_free(fx.s);
	memset(&fx, 0, sizeof fx);
}

static void feed(const char *line)
{
	bpfout_line k = bpfout_feed(fx.out, line, strlen(line));
	ck_assert_msg(k != BPFOUT_LINE_SKIPPED && k != BPFOUT_LINE_MESSAGE,
		      "line not understood: %s", line);
}

/* Bucket 300 is [28 << 17, 29 << 17) = [3670016, 3801088); bucket 301 is
 * [3801088, 3932160).  Bucket 5 is [5, 6), bucket 40 is [48, 50). */
static const char *const window_lines[] = {
	"{\"type\": \"attached_probes\", \"data\": {\"probes\": 6}}",
	"{\"type\": \"printf\", \"data\": \"bpfspec:begin 1000000000\\n\"}",
	"{\"type\": \"printf\", \"data\": \"bpfspec:flush 2500000000\\n\"}",
	/* tid 100 (main): 3 in bucket 300; tid 101: 1 in 300; tid 50: 2 in 301.
	 * Entries that cannot come from the generated program are ignored. */
	"{\"type\": \"map\", \"data\": {\"@b_timers\": {\"100,300\": 3, \"101,300\": 1, "
	"\"50,301\": 2, \"100,-1\": 7, \"100\": 7, \"100,300,1\": 7, \"101,299\": 0}}}",
	"{\"type\": \"map\", \"data\": {\"@sum_timers\": {\"100\": 11100000, \"101\": 3750000, "
	"\"50\": 7700000}}}",
	"{\"type\": \"map\", \"data\": {\"@min_timers\": {\"100\": 3680000, \"101\": 3750000, "
	"\"50\": 3810000}}}",
	"{\"type\": \"map\", \"data\": {\"@max_timers\": {\"100\": 3790000, \"101\": 3750000, "
	"\"50\": 3890000}}}",
	/* Not per thread: key 0. */
	"{\"type\": \"map\", \"data\": {\"@b_poll\": {\"0,5\": 2, \"0,40\": 1}}}",
	"{\"type\": \"map\", \"data\": {\"@sum_poll\": {\"0\": 59}}}",
	"{\"type\": \"map\", \"data\": {\"@min_poll\": {\"0\": 5}}}",
	"{\"type\": \"map\", \"data\": {\"@max_poll\": {\"0\": 49}}}",
	"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
};

static const bpfout_window *feed_window(void)
{
	for (size_t i = 0; i < sizeof window_lines / sizeof *window_lines; i++)
		feed(window_lines[i]);
	ck_assert_uint_eq(bpfout_window_count(fx.out), 1);
	const bpfout_window *w = bpfout_window_at(fx.out, 0);
	ck_assert_ptr_nonnull(w);
	ck_assert(w->complete);
	return w;
}

static report_run run_of(long pid)
{
	return (report_run){ .pid = pid, .duration_ns = 777, .attached_probes = 6,
			     .expected_probes = 6 };
}

static void check_bucket(const report_stats *st, size_t i, uint64_t index, uint64_t count)
{
	uint64_t lo, hi;

	hist_bucket_bounds(index, &lo, &hi);
	ck_assert_uint_gt(st->n_buckets, i);
	ck_assert_uint_eq(st->buckets[i].lo_ns, lo);
	ck_assert_uint_eq(st->buckets[i].hi_ns, hi);
	ck_assert_uint_eq(st->buckets[i].count, count);
}

/* P lies in bucket INDEX and in [min, max] of ST. */
static void check_in_bucket(const report_stats *st, uint64_t p, uint64_t index)
{
	uint64_t lo, hi;

	hist_bucket_bounds(index, &lo, &hi);
	ck_assert_msg(p >= lo && p < hi, "%llu not in bucket %llu [%llu, %llu)",
		      (unsigned long long)p, (unsigned long long)index,
		      (unsigned long long)lo, (unsigned long long)hi);
	ck_assert_uint_ge(p, st->min_ns);
	ck_assert_uint_le(p, st->max_ns);
}

/* unit: auto takes the unit of the probe's p99: timers' calls here are
 * 3.68 to 7.7 ms, so ms (as unit_for says), not the us of the spec. */
START_TEST(test_build_unit_auto)
{
	fx.s->probes[0].unit = UNIT_AUTO;
	const bpfout_window *w = feed_window();
	report_run run = run_of(100);
	report *rep = report_build(&fx.r, w, &run);

	ck_assert_ptr_nonnull(rep);
	const report_probe *p = &rep->probes[0];
	ck_assert_uint_ge(p->st.p99_ns, 1000000);
	ck_assert_str_eq(p->unit, "ms");
	ck_assert_uint_eq(p->unit_ns, 1000000);
	report_free(rep);
}
END_TEST

START_TEST(test_build_window)
{
	const bpfout_window *w = feed_window();
	report_run run = run_of(100);
	report *rep = report_build(&fx.r, w, &run);

	ck_assert_ptr_nonnull(rep);
	ck_assert_str_eq(rep->spec_name, "demo");
	ck_assert_str_eq(rep->spec_path, "t/demo.yaml");
	ck_assert_str_eq(rep->binary, "/usr/bin/x");
	ck_assert_int_eq(rep->pid, 100);
	/* The markers give the duration, not run->duration_ns. */
	ck_assert_uint_eq(rep->duration_ns, 1500000000ull);
	ck_assert(!rep->partial);
	ck_assert_ptr_null(rep->partial_reason);
	ck_assert_int_eq(rep->attached_probes, 6);
	ck_assert_int_eq(rep->expected_probes, 6);
	ck_assert_uint_eq(rep->n_probes, 3);

	/* timers: totals over every thread. */
	const report_probe *p = &rep->probes[0];
	ck_assert_str_eq(p->name, "timers");
	ck_assert_int_eq(p->kind, PROBE_LATENCY);
	ck_assert_str_eq(p->function, "uv__run_timers");
	ck_assert_str_eq(p->object, "/usr/bin/x");
	ck_assert_str_eq(p->unit, "us");
	ck_assert_uint_eq(p->unit_ns, 1000);
	ck_assert(p->attached);
	ck_assert_ptr_null(p->reason);
	ck_assert_uint_eq(p->st.count, 6);
	ck_assert_uint_eq(p->st.sum_ns, 11100000 + 3750000 + 7700000);
	ck_assert_uint_eq(p->st.min_ns, 3680000);
	ck_assert_uint_eq(p->st.max_ns, 3890000);
	ck_assert_uint_eq(p->st.n_buckets, 2);
	check_bucket(&p->st, 0, 300, 4);
	check_bucket(&p->st, 1, 301, 2);
	/* Rank 3 of 6 is 3/4 into bucket 300; ranks 5.4 and 5.94 are in
	 * bucket 301 but above the exact max, so clamped to it. */
	ck_assert_uint_eq(p->st.p50_ns, 3670016 + 98304);
	check_in_bucket(&p->st, p->st.p50_ns, 300);
	ck_assert_uint_eq(p->st.p90_ns, 3890000);
	ck_assert_uint_eq(p->st.p99_ns, 3890000);
	check_in_bucket(&p->st, p->st.p90_ns, 301);

	/* Groups: main thread (tid == pid) first, then by tid. */
	ck_assert_uint_eq(p->n_groups, 3);
	ck_assert_int_eq(p->groups[0].tid, 100);
	ck_assert_int_eq(p->groups[1].tid, 50);
	ck_assert_int_eq(p->groups[2].tid, 101);

	const report_stats *g = &p->groups[0].st;
	ck_assert_uint_eq(g->count, 3);
	ck_assert_uint_eq(g->sum_ns, 11100000);
	ck_assert_uint_eq(g->min_ns, 3680000);
	ck_assert_uint_eq(g->max_ns, 3790000);
	ck_assert_uint_eq(g->n_buckets, 1);
	check_bucket(g, 0, 300, 3);
	ck_assert_uint_eq(g->p50_ns, 3670016 + 65536);
	check_in_bucket(g, g->p50_ns, 300);
	check_in_bucket(g, g->p90_ns, 300);
	ck_assert_uint_le(g->p50_ns, g->p90_ns);
	ck_assert_uint_le(g->p90_ns, g->p99_ns);

	g = &p->groups[1].st;
	ck_assert_uint_eq(g->count, 2);
	ck_assert_uint_eq(g->sum_ns, 7700000);
	ck_assert_uint_eq(g->min_ns, 3810000);
	ck_assert_uint_eq(g->max_ns, 3890000);
	check_bucket(g, 0, 301, 2);
	check_in_bucket(g, g->p50_ns, 301);

	/* One sample: the percentiles are that sample. */
	g = &p->groups[2].st;
	ck_assert_uint_eq(g->count, 1);
	ck_assert_uint_eq(g->sum_ns, 3750000);
	ck_assert_uint_eq(g->min_ns, 3750000);
	ck_assert_uint_eq(g->max_ns, 3750000);
	ck_assert_uint_eq(g->p50_ns, 3750000);
	ck_assert_uint_eq(g->p99_ns, 3750000);

	/* The groups add up to the probe. */
	uint64_t count = 0, sum = 0;
	for (size_t i = 0; i < p->n_groups; i++) {
		count += p->groups[i].st.count;
		sum += p->groups[i].st.sum_ns;
	}
	ck_assert_uint_eq(count, p->st.count);
	ck_assert_uint_eq(sum, p->st.sum_ns);

	/* poll: one group keyed 0. */
	p = &rep->probes[1];
	ck_assert_str_eq(p->name, "poll");
	ck_assert_str_eq(p->unit, "us");	/* the default */
	ck_assert_uint_eq(p->st.count, 3);
	ck_assert_uint_eq(p->st.sum_ns, 59);
	ck_assert_uint_eq(p->st.min_ns, 5);
	ck_assert_uint_eq(p->st.max_ns, 49);
	check_bucket(&p->st, 0, 5, 2);
	check_bucket(&p->st, 1, 40, 1);
	check_in_bucket(&p->st, p->st.p50_ns, 5);
	check_in_bucket(&p->st, p->st.p99_ns, 40);
	ck_assert_uint_eq(p->n_groups, 1);
	ck_assert_int_eq(p->groups[0].tid, 0);
	ck_assert_ptr_null(p->groups[0].thread);
	ck_assert_uint_eq(p->groups[0].st.count, 3);

	/* gone: listed, not attached, with its reason and no data. */
	p = &rep->probes[2];
	ck_assert_str_eq(p->name, "gone");
	ck_assert_str_eq(p->function, "missing_fn");
	ck_assert(!p->attached);
	ck_assert_str_eq(p->reason, "missing_fn: not found (inlined)");
	ck_assert_ptr_null(p->object);
	ck_assert_uint_eq(p->st.count, 0);
	ck_assert_uint_eq(p->n_groups, 0);
	ck_assert_uint_eq(p->st.n_buckets, 0);

	ck_assert_int_eq(report_add_warning(rep, "first"), 0);
	ck_assert_int_eq(report_add_warning(rep, "second"), 0);
	ck_assert_uint_eq(rep->n_warnings, 2);
	ck_assert_str_eq(rep->warnings[1], "second");
	report_free(rep);
}
END_TEST

/* The report copies what it holds: it outlives spec, resolution, parser. */
START_TEST(test_build_owns_strings)
{
	const bpfout_window *w = feed_window();
	report_run run = run_of(100);
	run.partial = true;
	char why[] = "bpftrace was killed";
	run.partial_reason = why;
	report *rep = report_build(&fx.r, w, &run);

	ck_assert_ptr_nonnull(rep);
	teardown();
	memset(why, 'X', sizeof why - 1);
	ck_assert_str_eq(rep->spec_name, "demo");
	ck_assert_str_eq(rep->binary, "/usr/bin/x");
	ck_assert(rep->partial);
	ck_assert_str_eq(rep->partial_reason, "bpftrace was killed");
	ck_assert_str_eq(rep->probes[2].reason, "missing_fn: not found (inlined)");
	ck_assert_str_eq(rep->probes[0].object, "/usr/bin/x");
	ck_assert_uint_eq(rep->probes[0].st.count, 6);
	report_free(rep);
	report_free(NULL);
}
END_TEST

/* A stop time inside the window ends it there; one outside is ignored. */
START_TEST(test_build_stop)
{
	const bpfout_window *w = feed_window();
	static const struct {
		uint64_t stop_ns, want;
	} cases[] = {
		{ 0, 1500000000ull },
		{ 2000000000ull, 1000000000ull },
		{ 2500000000ull, 1500000000ull },
		{ 3000000000ull, 1500000000ull },
		{ 1000000000ull, 1500000000ull },
		{ 500, 1500000000ull },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		report_run run = run_of(100);
		run.stop_ns = cases[i].stop_ns;
		report *rep = report_build(&fx.r, w, &run);
		ck_assert_ptr_nonnull(rep);
		ck_assert_msg(rep->duration_ns == cases[i].want, "stop %llu: duration %llu, want %llu",
			      (unsigned long long)cases[i].stop_ns,
			      (unsigned long long)rep->duration_ns,
			      (unsigned long long)cases[i].want);
		report_free(rep);
	}
}
END_TEST

/* The window's start (bpftrace clock) is dated with the caller's offset
 * to the wall clock; without one the report is undated. */
START_TEST(test_build_dated)
{
	const bpfout_window *w = feed_window();
	report_run run = run_of(100);
	report *rep = report_build(&fx.r, w, &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->start_unix_ns, 0);
	report_free(rep);

	uint64_t begin = w->begin_ns;
	run.realtime_offset_ns = (int64_t)(1795371625859646789ull - begin);
	rep = report_build(&fx.r, w, &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->start_unix_ns, 1795371625859646789ull);
	char s[48];
	report_utc_stamp(s, sizeof s, rep->start_unix_ns, true);
	ck_assert_str_eq(s, "2026-11-22T18:20:25.859646Z");
	report_utc_stamp(s, sizeof s, rep->start_unix_ns, false);
	ck_assert_str_eq(s, "2026-11-22 18:20:25 UTC");
	report_free(rep);
}
END_TEST

/* No window at all (bpftrace died first): every probe is listed, empty. */
START_TEST(test_build_no_data)
{
	report_run run = run_of(0);
	report *rep = report_build(&fx.r, NULL, &run);

	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->duration_ns, 777);
	ck_assert_uint_eq(rep->n_probes, 3);
	for (size_t i = 0; i < 2; i++) {
		ck_assert(rep->probes[i].attached);
		ck_assert_uint_eq(rep->probes[i].st.count, 0);
		ck_assert_uint_eq(rep->probes[i].st.min_ns, 0);
		ck_assert_uint_eq(rep->probes[i].st.max_ns, 0);
		ck_assert_uint_eq(rep->probes[i].st.p50_ns, 0);
		ck_assert_uint_eq(rep->probes[i].n_groups, 0);
	}
	ck_assert(!rep->probes[2].attached);
	report_free(rep);

	/* An empty trailing window: same. */
	rep = report_build(&fx.r, bpfout_trailing(fx.out), &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->duration_ns, 777);
	ck_assert_uint_eq(rep->probes[0].st.count, 0);
	report_free(rep);
}
END_TEST

/* Thread names come from /proc for the traced pid: this process here. */
START_TEST(test_build_thread_names)
{
	long me = (long)getpid();
	char line[512], comm[64] = "";

	snprintf(line, sizeof line,
		 "{\"type\": \"map\", \"data\": {\"@b_timers\": {\"%ld,20\": 1, \"4000000000,20\": 2}}}",
		 me);
	feed(line);
	report_run run = run_of(me);
	report *rep = report_build(&fx.r, bpfout_trailing(fx.out), &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_int_eq(target_thread_name((pid_t)me, (pid_t)me, comm, sizeof comm), 0);

	const report_probe *p = &rep->probes[0];
	ck_assert_uint_eq(p->n_groups, 2);
	ck_assert_int_eq(p->groups[0].tid, me);
	ck_assert_ptr_nonnull(p->groups[0].thread);
	ck_assert_str_eq(p->groups[0].thread, comm);
	ck_assert_int_eq(p->groups[1].tid, 4000000000L);
	ck_assert_ptr_null(p->groups[1].thread);	/* no such thread */
	/* No min/max maps printed: they stay 0 and the count is still exact. */
	ck_assert_uint_eq(p->st.count, 3);
	report_free(rep);
}
END_TEST

/* Several traced processes (-p CHILD -p ME): each one's main thread is
 * named from its own /proc and marked main, in the order of the pids;
 * the JSON says every pid and reads back the same.  A report written
 * before pids existed reads as its pid alone. */
START_TEST(test_build_several_pids)
{
	long me = (long)getpid(), child = (long)waiting_child("mpchild");
	long pids[] = { child, me };
	char line[512], comm[64] = "";

	snprintf(line, sizeof line,
		 "{\"type\": \"map\", \"data\": {\"@b_timers\": {\"%ld,20\": 1, "
		 "\"4000000000,20\": 2, \"%ld,20\": 4}}}", me, child);
	feed(line);
	report_run run = run_of(child);
	run.pids = pids;
	run.n_pids = 2;
	report *rep = report_build(&fx.r, bpfout_trailing(fx.out), &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_int_eq(rep->pid, child);
	ck_assert_uint_eq(rep->n_pids, 2);
	ck_assert_int_eq(rep->pids[1], me);
	ck_assert_int_eq(target_thread_name((pid_t)me, (pid_t)me, comm, sizeof comm), 0);

	const report_probe *p = &rep->probes[0];
	ck_assert_uint_eq(p->n_groups, 3);
	ck_assert_int_eq(p->groups[0].tid, child);
	ck_assert_str_eq(p->groups[0].thread, "mpchild");
	ck_assert_int_eq(p->groups[1].tid, me);
	ck_assert_str_eq(p->groups[1].thread, comm);
	ck_assert_int_eq(p->groups[2].tid, 4000000000L);
	ck_assert_ptr_null(p->groups[2].thread);
	ck_assert(report_pids_has(report_pids_of(rep), me));
	ck_assert(report_pids_has(report_pids_of(rep), child));
	ck_assert(!report_pids_has(report_pids_of(rep), 4000000000L));

	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);
	ck_assert_int_eq(render_json(f, rep), 0);
	fclose(f);
	snprintf(line, sizeof line, "\"pid\": %ld,\n    \"pids\": [\n      %ld,\n      %ld\n    ],",
		 child, child, me);
	ck_assert_contains(json, line);
	ck_assert_uint_eq(count_of(json, "\"main_thread\": true"), 2);
	ck_assert_uint_eq(count_of(json, "\"main_thread\": false"), 1);

	capture_start();
	report *back = report_parse_json(json, len, "several.json");
	free(capture_end());
	ck_assert_ptr_nonnull(back);
	ck_assert_int_eq(back->pid, child);
	ck_assert_uint_eq(back->n_pids, 2);
	ck_assert_int_eq(back->pids[0], child);
	ck_assert_int_eq(back->pids[1], me);
	report_free(back);

	/* pids[0] must be pid. */
	char *bad = strdup(json);
	snprintf(line, sizeof line, "\"pid\": %ld,", child);
	char *at = strstr(bad, line);
	ck_assert_ptr_nonnull(at);
	at[7] = at[7] == '9' ? '8' : '9';	/* another pid */
	capture_start();
	ck_assert_ptr_null(report_parse_json(bad, strlen(bad), "bad.json"));
	char *diags = capture_end();
	ck_assert_contains(diags, "target.pids[0]");
	free(diags);
	free(bad);

	/* Without pids (an older report): pid alone. */
	char *old = strstr(json, ",\n    \"pids\": [");
	ck_assert_ptr_nonnull(old);
	memmove(old + 1, strstr(old, "],") + 2, strlen(strstr(old, "],") + 2) + 1);
	capture_start();
	back = report_parse_json(json, strlen(json), "old.json");
	diags = capture_end();
	ck_assert_msg(back != NULL, "a report without pids does not load:\n%s", diags);
	free(diags);
	ck_assert_uint_eq(back->n_pids, 0);
	ck_assert_uint_eq(report_pids_of(back).n, 1);
	ck_assert_int_eq(report_pids_of(back).v[0], child);
	report_free(back);
	free(json);
	report_free(rep);
	kill((pid_t)child, SIGKILL);
	ck_assert_int_eq(waitpid((pid_t)child, NULL, 0), child);
}
END_TEST

/* A recorded 0.17 window (tests/fixtures) holds none of bpfspec's maps:
 * the duration comes from its markers, the probes stay empty. */
static FILE *open_fixture(const char *name)
{
	char path[4096];
	const char *top = getenv("TOP");
	FILE *f;

	snprintf(path, sizeof path, "%s/tests/fixtures/%s", top ? top : ".", name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repo top or set TOP)", path);
	return f;
}

START_TEST(test_build_foreign_fixture)
{
	FILE *f = open_fixture("bpftrace-0.17-windows.jsonl");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, f)) >= 0)
		bpfout_feed(fx.out, line, (size_t)n);
	free(line);
	fclose(f);
	ck_assert_uint_eq(bpfout_window_count(fx.out), 3);

	report_run run = run_of(3476);
	report *rep = report_build(&fx.r, bpfout_window_at(fx.out, 0), &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->duration_ns, 271346405436ull - 270346158543ull);
	ck_assert_uint_eq(rep->probes[0].st.count, 0);
	ck_assert_uint_eq(rep->probes[0].n_groups, 0);
	report_free(rep);
}
END_TEST

/* Utilization: idle = completed waits + waits in progress up to the
 * window's end (from its start at most) + a whole window for a thread
 * seen waiting as the window began that never woke. */
START_TEST(test_utilization)
{
	static const char yaml[] = "probes:\n  - {name: loop, kind: utilization}\n";
	static const char *const lines[] = {
		"{\"type\": \"printf\", \"data\": \"bpfspec:begin 900000000\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:flush 3000000000\\n\"}",
		"{\"type\": \"map\", \"data\": {\"@b_loop\": {\"100,400\": 2, \"101,380\": 1}}}",
		"{\"type\": \"map\", \"data\": {\"@sum_loop\": {\"100\": 500000000, \"101\": 100000000}}}",
		"{\"type\": \"map\", \"data\": {\"@min_loop\": {\"100\": 200000000, \"101\": 100000000}}}",
		"{\"type\": \"map\", \"data\": {\"@max_loop\": {\"100\": 300000000, \"101\": 100000000}}}",
		/* 100 waits since 2.8 s; 102 since before the window began. */
		"{\"type\": \"map\", \"data\": {\"@uin_loop\": {\"100\": 2800000000, \"102\": 500000000}}}",
		/* stalls: 100 two (300 and 200 ms: buckets 401, 391), 101 one
		 * (50 ms, bucket 359) */
		"{\"type\": \"map\", \"data\": {\"@sb_loop\": {\"100,401\": 1, \"100,391\": 1, "
		"\"101,359\": 1}}}",
		"{\"type\": \"map\", \"data\": {\"@ssum_loop\": {\"100\": 500000000, \"101\": 50000000}}}",
		"{\"type\": \"map\", \"data\": {\"@smin_loop\": {\"100\": 200000000, \"101\": 50000000}}}",
		"{\"type\": \"map\", \"data\": {\"@smax_loop\": {\"100\": 300000000, \"101\": 50000000}}}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
	};
	spec *s = spec_parse("t/u.yaml", yaml, strlen(yaml));
	ck_assert_ptr_nonnull(s);
	char exe[] = "/usr/bin/x";
	char *objs[] = { exe };
	target t = { .pid = 100, .exe = exe, .objects = objs, .n_objects = 1 };
	resolved_probe rp = { .sp = &s->probes[0], .active = true };
	resolved r = { .sp = s, .tg = &t, .probes = &rp, .n_probes = 1, .n_active = 1 };
	bpfout *out = bpfout_new();
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		bpfout_feed(out, lines[i], strlen(lines[i]));
	const bpfout_window *w = bpfout_window_at(out, 0);
	ck_assert_ptr_nonnull(w);
	long waiting[] = { 103, 101 };	/* 101 woke during the window */
	report_run run = { .pid = 100, .begin_ns = 1000000000, .attached_probes = -1,
			   .waiting_tids = waiting, .n_waiting = 2 };
	report *rep = report_build(&r, w, &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->duration_ns, 2000000000);
	const report_probe *p = &rep->probes[0];
	ck_assert_int_eq(p->kind, PROBE_UTILIZATION);
	ck_assert_uint_eq(p->n_groups, 4);
	static const struct { long tid; uint64_t idle; } want[] = {
		{ 100, 700000000 }, { 101, 100000000 }, { 102, 2000000000 }, { 103, 2000000000 },
	};
	for (size_t i = 0; i < 4; i++) {
		const report_group *g = &p->groups[i];
		ck_assert_int_eq(g->tid, want[i].tid);
		ck_assert_uint_eq(g->idle_ns, want[i].idle);
		ck_assert_uint_eq(g->idle_ns + g->busy_ns, 2000000000);
		ck_assert_double_eq_tol(g->utilization, (double)g->busy_ns / 2e9, 1e-9);
	}
	ck_assert_double_eq_tol(p->utilization, 0.95, 1e-9);
	/* Stalls: per thread, and all threads together. */
	ck_assert(p->has_stalls);
	static const struct { uint64_t count, sum, min, max; } stalls[] = {
		{ 2, 500000000, 200000000, 300000000 }, { 1, 50000000, 50000000, 50000000 },
		{ 0, 0, 0, 0 }, { 0, 0, 0, 0 },
	};
	for (size_t i = 0; i < 4; i++) {
		const report_stats *st = &p->groups[i].stalls;
		ck_assert_uint_eq(st->count, stalls[i].count);
		ck_assert_uint_eq(st->sum_ns, stalls[i].sum);
		ck_assert_uint_eq(st->min_ns, stalls[i].min);
		ck_assert_uint_eq(st->max_ns, stalls[i].max);
		ck_assert_uint_eq(st->n_buckets, stalls[i].count);
	}
	ck_assert_uint_eq(p->groups[0].stalls.p99_ns, 300000000);
	ck_assert_uint_eq(p->stalls.count, 3);
	ck_assert_uint_eq(p->stalls.sum_ns, 550000000);
	ck_assert_uint_eq(p->stalls.min_ns, 50000000);
	ck_assert_uint_eq(p->stalls.max_ns, 300000000);
	/* The waits are the waits still. */
	ck_assert_uint_eq(p->st.count, 3);
	ck_assert_uint_eq(p->st.sum_ns, 600000000);
	/* Text: the longest stall in the summary, a table, and the busiest
	 * thread's histogram (101: 95% busy). */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_int_eq(render_text(f, rep), 0);
	fclose(f);
	ck_assert_contains(text, "busiest thread 95.0% busy; longest stall 300.0ms (below)\n");
	ck_assert_contains(text, "STALLS       TOTAL       P50~       P99~        MAX\n");
	ck_assert_contains(text, "                 2     500.0ms    201.3ms    300.0ms    300.0ms\n");
	ck_assert_contains(text, "stalls of the busiest thread (tid 101)\n");
	free(text);
	report_free(rep);
	bpfout_free(out);
	spec_free(s);
}
END_TEST


/* ---- attribution (gen/attribution/why.h) ------------------------------------------- */

/* A nested loop's epoll wait (node's execSync) is a blocker marked
 * nested_loop, named by the command line of the child its thread forked
 * just before (not another thread's, not one forked long before, not one
 * whose join line never came); one blocker a child, from the start of the
 * clone that forked it to the end of its last wait, the thread's other
 * blockers in between folded in. */
START_TEST(test_attribution_nested_loop)
{
	static const char yaml[] = "name: why\ntiming: entry-only\nblockers: 1ms\n"
				   "probes:\n  - name: timers\n    kind: latency\n"
				   "    function: uv__run_timers\n    attribute: true\n";
	static const char *const lines[] = {
		"{\"type\": \"printf\", \"data\": \"bpfspec:begin 1000000000\\n\"}",
		/* tid 100 forks /bin/sh -c sleep 0.03 inside a clone begun at
		 * 1.0995 s, waits 3 ms for its exec, then twice in a nested loop
		 * (its phase, 1, + 128 in the second record) */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1099500000 100 1 56 1500000 4242 n 17\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1100000000 100 0 59 0 4242 x <join>\\n\"}",
		"{\"type\": \"join\", \"data\": \"/bin/sh -c sleep 0.03\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1101000000 100 1 0 3000000 0 n 20\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1104000000 100 1 281 10000000 1 n 19\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1115000000 100 129 281 20000000 1 n 19\\n\"}",
		/* tid 101 blocked meanwhile: not folded */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1110000000 101 1 0 2000000 0 n 5\\n\"}",
		/* another thread's child, forked meanwhile */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1105000000 101 0 59 0 4243 x <join>\\n\"}",
		"{\"type\": \"join\", \"data\": \"ls -l\"}",
		/* a child whose join line did not come, then its wait */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1300000000 100 0 59 0 4244 x <join>\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1301000000 100 1 281 20000000 1 n 19\\n\"}",
		/* a wait 0.5 s after the last child seen: that child is not its */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1800000000 100 1 232 5000000 1 n 19\\n\"}",
		/* a read: no nested loop */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1900000000 100 1 0 5000000 3 n 7\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:flush 2000000000\\n\"}",
		"{\"type\": \"map\", \"data\": {\"@sum_timers\": {\"100\": 70000000}}}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
	};
	spec *s = spec_parse("t/why.yaml", yaml, strlen(yaml));
	ck_assert_ptr_nonnull(s);
	char exe[] = "/usr/bin/x";
	char *objs[] = { exe };
	target t = { .pid = 100, .exe = exe, .objects = objs, .n_objects = 1 };
	resolved_probe rp[1] = { { .sp = &s->probes[0], .active = true } };
	resolved r = { .sp = s, .tg = &t, .probes = rp, .n_probes = 1, .n_active = 1 };
	bpfout *out = bpfout_new();
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		bpfout_feed(out, lines[i], strlen(lines[i]));
	report_run run = { .pid = 0, .begin_ns = 1000000000, .attached_probes = -1 };
	report *rep = report_build(&r, bpfout_window_at(out, 0), &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->n_blockers, 5);
	ck_assert_uint_eq(rep->blockers_dropped, 0);
	const report_event *b = rep->blockers;
	ck_assert_str_eq(b[0].syscall, "epoll_pwait");
	ck_assert_str_eq(b[0].phase, "timers");
	ck_assert(b[0].nested_loop);
	ck_assert_str_eq(b[0].command, "/bin/sh -c sleep 0.03");
	ck_assert_uint_eq(b[0].t_ns, 99500000);	/* the clone's start */
	ck_assert_uint_eq(b[0].latency_ns, 35500000);	/* to the last wait's end */
	ck_assert_int_eq(b[1].tid, 101);
	ck_assert_str_eq(b[1].syscall, "read");
	ck_assert(b[2].nested_loop);
	ck_assert_ptr_null(b[2].command);
	ck_assert_uint_eq(b[2].latency_ns, 21000000);	/* from its fork: its command unknown */
	ck_assert_str_eq(b[3].syscall, "epoll_wait");
	ck_assert(b[3].nested_loop);
	ck_assert_ptr_null(b[3].command);
	ck_assert(!b[4].nested_loop);
	ck_assert_ptr_null(b[4].command);
	/* the text view says what the loop waited for; JSON has it */
	char *text = NULL, *json = NULL;
	size_t tl = 0, jl = 0;
	FILE *f = open_memstream(&text, &tl);
	ck_assert_int_eq(render_text(f, rep), 0);
	fclose(f);
	ck_assert_contains(text, "nested loop waiting for /bin/sh -c sleep 0.03");
	ck_assert_contains(text, "nested loop waiting for a child not seen starting");
	f = open_memstream(&json, &jl);
	ck_assert_int_eq(render_json(f, rep), 0);
	fclose(f);
	ck_assert_contains(json, "\"nested_loop\": true");
	ck_assert_contains(json, "\"command\": \"/bin/sh -c sleep 0.03\"");
	free(text);
	free(json);
	report_free(rep);
	bpfout_free(out);
	spec_free(s);
}
END_TEST

/* The attribution maps and records of one window: the parts per phase and
 * thread (a thread without a completed call is dropped), the syscalls'
 * calls, time and sleep, sleep outside syscalls as "other"; blockers with
 * a path, with an fd named by an open record (the last open of that fd
 * before the call), with an errno, one before the window (dropped) and
 * one malformed (counted); stacks folded outermost first, offsets
 * dropped, merged when they differ only in offsets, with 0.20-0.23's
 * escaped newlines too. */
START_TEST(test_attribution)
{
	static const char yaml[] = "name: why\ntiming: entry-only\nblockers: 2ms\nstacks: 10ms\n"
				   "probes:\n  - name: timers\n    kind: latency\n"
				   "    function: uv__run_timers\n    attribute: true\n"
				   "  - name: poll\n    kind: latency\n    function: uv__io_poll\n";
	static const char *const lines[] = {
		"{\"type\": \"printf\", \"data\": \"bpfspec:begin 1000000000\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1100000000 100 1 257 10000 7 s /tmp/old\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1200000000 100 1 257 10000 7 s /tmp/fifo\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1900000000 100 1 257 10000 7 s /tmp/later\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1300000000 100 1 0 15000000 3 n 7\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1250000000 100 1 257 3000000 -2 s /etc/x\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 900000000 100 1 0 5000000 3 n 7\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1400000000 100 9 0 5000000 3 n 7\\n\"}",
		/* fd 7 closed, then read again: no path; a slow open names fd 9 */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1450000000 100 1 3 5000 0 n 7\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1500000000 100 1 0 4000000 3 n 7\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1600000000 100 1 257 4000000 9 s  /slow\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1700000000 100 1 0 4000000 3 n 9\\n\"}",
		/* a read under the threshold is no blocker; a futex's number is no fd */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1750000000 100 1 0 1000 3 n 9\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1800000000 100 1 202 3000000 0 n 1234\\n\"}",
		/* a slow close names the path its fd was opened with */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1820000000 100 1 257 10000 11 s /tmp/eleven\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev _why 1850000000 100 1 3 3000000 0 n 11\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:flush 2000000000\\n\"}",
		"{\"type\": \"map\", \"data\": {\"@b_timers\": {\"100,400\": 2}}}",
		"{\"type\": \"map\", \"data\": {\"@sum_timers\": {\"100\": 70000000}}}",
		"{\"type\": \"map\", \"data\": {\"@min_timers\": {\"100\": 30000000}}}",
		"{\"type\": \"map\", \"data\": {\"@max_timers\": {\"100\": 40000000}}}",
		"{\"type\": \"map\", \"data\": {\"@cpu__why\": {\"1,100\": 40000000, \"1,555\": 9}}}",
		"{\"type\": \"map\", \"data\": {\"@wait__why\": {\"1,100\": 5000000}}}",
		"{\"type\": \"map\", \"data\": {\"@blk__why\": {\"1,100\": 23000000}}}",
		"{\"type\": \"map\", \"data\": {\"@oth__why\": {\"1,100\": 2000000, \"1,555\": 0}}}",
		/* time asleep per syscall, a call in progress included: not the
		 * parts (nor is a key -1 there) */
		"{\"type\": \"map\", \"data\": {\"@slp__why\": {\"1,100,0\": 21000000, \"1,100,-1\": "
		"2000000, \"1,100,202\": 3000000}}}",
		"{\"type\": \"stats\", \"data\": {\"@sys__why\": {"
		"\"1,100,0\": {\"count\": 4, \"average\": 5250000, \"total\": 21000000}, "
		"\"1,100,202\": {\"count\": 1, \"average\": 3100000, \"total\": 3100000}, "
		"\"1,100,257\": {\"count\": 2, \"average\": 1750000, \"total\": 3500000}}}}",
		"{\"type\": \"map\", \"data\": {\"@stk__why\": {\"1,100,\\n    spin+12\\n    run+4\\n\": 5, "
		"\"1,100,\\n    spin+40\\n    run+4\\n\": 2, "
		"\"1,100,\\\\n        a;b+3\\\\n        main+1\\\\n\": 1}}}",
		"{\"type\": \"map\", \"data\": {\"@evdrop__why\": 3}}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
	};
	spec *s = spec_parse("t/why.yaml", yaml, strlen(yaml));
	ck_assert_ptr_nonnull(s);
	char exe[] = "/usr/bin/x";
	char *objs[] = { exe };
	target t = { .pid = 100, .exe = exe, .objects = objs, .n_objects = 1 };
	resolved_probe rp[2] = { { .sp = &s->probes[0], .active = true },
				 { .sp = &s->probes[1], .active = true } };
	resolved r = { .sp = s, .tg = &t, .probes = rp, .n_probes = 2, .n_active = 2 };
	bpfout *out = bpfout_new();
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		bpfout_feed(out, lines[i], strlen(lines[i]));
	const bpfout_window *w = bpfout_window_at(out, 0);
	ck_assert_ptr_nonnull(w);
	report_run run = { .pid = 0, .begin_ns = 1000000000, .attached_probes = -1 };
	report *rep = report_build(&r, w, &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert(rep->attributed);
	ck_assert_uint_eq(rep->blocker_ns, 2000000);
	ck_assert_uint_eq(rep->stack_ns, 10000000);
	const report_probe *p = &rep->probes[0];
	ck_assert(p->attributed && !rep->probes[1].attributed);
	ck_assert_uint_eq(p->n_groups, 1);
	const report_split *g = p->groups[0].split;
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->cpu_ns, 40000000);
	ck_assert_uint_eq(g->wait_ns, 5000000);
	ck_assert_uint_eq(g->blocked_ns, 23000000);
	ck_assert_uint_eq(g->other_ns, 2000000);
	ck_assert_uint_eq(g->cpu_ns + g->wait_ns + g->blocked_ns + g->other_ns, 70000000);
	ck_assert_uint_eq(g->n_syscalls, 3);
	ck_assert_str_eq(g->syscalls[0].name, "read");	/* most blocked first */
	ck_assert_uint_eq(g->syscalls[0].calls, 4);
	ck_assert_uint_eq(g->syscalls[0].time_ns, 21000000);
	ck_assert_uint_eq(g->syscalls[0].blocked_ns, 21000000);
	ck_assert_str_eq(g->syscalls[1].name, "futex");
	ck_assert_str_eq(g->syscalls[2].name, "openat");	/* never asleep */
	ck_assert_uint_eq(g->syscalls[2].blocked_ns, 0);
	ck_assert_uint_eq(p->split.cpu_ns, 40000000);	/* tid 555 had no call */
	/* blockers: two in the window, in time order; one before it, one of
	 * an unknown phase (counted), 3 over the limit */
	ck_assert_uint_eq(rep->n_blockers, 7);
	ck_assert_uint_eq(rep->blockers_dropped, 4);
	const report_event *b = &rep->blockers[0];
	ck_assert_uint_eq(b->t_ns, 250000000);
	ck_assert_str_eq(b->syscall, "openat");
	ck_assert_str_eq(b->phase, "timers");
	ck_assert_str_eq(b->error, "ENOENT");
	ck_assert_str_eq(b->path, "/etc/x");
	ck_assert(!b->has_fd);
	b = &rep->blockers[1];
	ck_assert_str_eq(b->syscall, "read");
	ck_assert(b->has_fd);
	ck_assert_int_eq(b->fd, 7);
	ck_assert_str_eq(b->path, "/tmp/fifo");
	ck_assert_uint_eq(b->latency_ns, 15000000);
	ck_assert_ptr_null(b->error);
	ck_assert(rep->blockers[2].has_fd && rep->blockers[2].fd == 7);
	ck_assert_ptr_null(rep->blockers[2].path);	/* closed since */
	ck_assert_str_eq(rep->blockers[3].path, " /slow");	/* its own leading space */
	ck_assert_str_eq(rep->blockers[4].path, " /slow");	/* opened by a blocker */
	ck_assert_str_eq(rep->blockers[5].syscall, "futex");
	ck_assert(!rep->blockers[5].has_fd);
	ck_assert_ptr_null(rep->blockers[5].path);
	ck_assert_str_eq(rep->blockers[6].syscall, "close");
	ck_assert(rep->blockers[6].has_fd && rep->blockers[6].fd == 11);
	ck_assert_str_eq(rep->blockers[6].path, "/tmp/eleven");
	/* stacks */
	ck_assert_uint_eq(p->stack_samples, 8);
	ck_assert_uint_eq(p->n_stacks, 2);
	ck_assert_str_eq(p->stacks[0].frames, "run;spin");
	ck_assert_uint_eq(p->stacks[0].samples, 7);
	ck_assert_str_eq(p->stacks[1].frames, "main;a:b");
	report_free(rep);
	bpfout_free(out);
	spec_free(s);
}
END_TEST

/* ---- syscall -1: rt_sigreturn ------------------------------------------ */

/* raw_syscalls:sys_exit gives rt_sigreturn number -1 (the registers it
 * restores include orig_ax): the row is rt_sigreturn, not syscall_-1, and
 * its "return value" (the interrupted code's rax) is no errno; an events
 * record of it is named the same way and carries no error. */
START_TEST(test_syscall_minus_one_is_rt_sigreturn)
{
	static const char yaml[] = "name: sc\nprobes:\n  - name: all\n    kind: syscalls\n"
				   "    syscalls: all\n  - name: slow\n    kind: events\n"
				   "    syscalls: [rt_sigreturn, read]\n    threshold: 1us\n";
	static const char *const lines[] = {
		"{\"type\": \"printf\", \"data\": \"bpfspec:begin 1000\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev slow 1500 101 -1 5000 -4 - \\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:flush 2000\\n\"}",
		"{\"type\": \"map\", \"data\": {\"@b_all\": {\"-1,100\": 2, \"0,100\": 1}}}",
		"{\"type\": \"stats\", \"data\": {\"@st_all\": {\"101,-1\": {\"count\": 2, "
		"\"average\": 150, \"total\": 300}, \"101,0\": {\"count\": 1, \"average\": 150, "
		"\"total\": 150}}}}",
		"{\"type\": \"map\", \"data\": {\"@min_all\": {\"101,-1\": 100, \"101,0\": 150}}}",
		"{\"type\": \"map\", \"data\": {\"@max_all\": {\"101,-1\": 200, \"101,0\": 150}}}",
		"{\"type\": \"map\", \"data\": {\"@err_all\": {\"0,9\": 1}}}",
		"{\"type\": \"map\", \"data\": {\"@evcomm_slow\": {\"101\": \"node\"}}}",
		"{\"type\": \"map\", \"data\": {\"@evdrop_slow\": 0}}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
	};
	static char exe[] = "/usr/bin/node";
	static char *objects[] = { exe };
	target t = { .pid = 101, .exe = exe, .objects = objects, .n_objects = 1 };
	spec *s = spec_parse("t/sc.yaml", yaml, strlen(yaml));
	ck_assert_ptr_nonnull(s);
	resolved_probe rp[2] = { { .sp = &s->probes[0], .active = true },
				 { .sp = &s->probes[1], .active = true } };
	resolved r = { .sp = s, .tg = &t, .probes = rp, .n_probes = 2, .n_active = 2 };
	bpfout *out = bpfout_new();
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		bpfout_feed(out, lines[i], strlen(lines[i]));
	ck_assert_uint_eq(bpfout_window_count(out), 1);
	report_run run = run_of(101);
	report *rep = report_build(&r, bpfout_window_at(out, 0), &run);
	ck_assert_ptr_nonnull(rep);

	const report_probe *p = &rep->probes[0];
	ck_assert_uint_eq(p->n_syscalls, 2);
	bool seen = false;
	for (size_t i = 0; i < p->n_syscalls; i++) {
		ck_assert_str_ne(p->syscalls[i].name, "syscall_-1");
		if (p->syscalls[i].nr == -1) {
			seen = true;
			ck_assert_str_eq(p->syscalls[i].name, "rt_sigreturn");
			ck_assert_uint_eq(p->syscalls[i].st.count, 2);
			ck_assert_uint_eq(p->syscalls[i].error_count, 0);
		} else {
			ck_assert_str_eq(p->syscalls[i].name, "read");
		}
	}
	ck_assert(seen);
	const report_probe *ev = &rep->probes[1];
	ck_assert_uint_eq(ev->n_events, 1);
	ck_assert_str_eq(ev->events[0].syscall, "rt_sigreturn");
	ck_assert_ptr_null(ev->events[0].error);
	report_free(rep);
	bpfout_free(out);
	spec_free(s);
}
END_TEST

/* A record stamped before the window began (read late from another CPU's
 * buffer) is not the window's: the maps, cleared as it began, do not
 * hold its call either. */
START_TEST(test_record_before_window)
{
	static const char yaml[] = "probes:\n  - {name: slow, kind: events, syscalls: [read]}\n";
	static const char *const lines[] = {
		"{\"type\": \"printf\", \"data\": \"bpfspec:begin 1000\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev slow 900 101 0 50 3 n 3\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev slow 1500 101 0 50 3 n 3\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:flush 2000\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
	};
	static char exe[] = "/usr/bin/x";
	static char *objects[] = { exe };
	target t = { .pid = 101, .exe = exe, .objects = objects, .n_objects = 1 };
	spec *s = spec_parse("t/ev.yaml", yaml, strlen(yaml));
	ck_assert_ptr_nonnull(s);
	resolved_probe rp = { .sp = &s->probes[0], .active = true };
	resolved r = { .sp = s, .tg = &t, .probes = &rp, .n_probes = 1, .n_active = 1 };
	bpfout *out = bpfout_new();
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		bpfout_feed(out, lines[i], strlen(lines[i]));
	report_run run = { .pid = 0, .attached_probes = -1 };
	report *rep = report_build(&r, bpfout_window_at(out, 0), &run);
	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(rep->probes[0].n_events, 1);
	ck_assert_uint_eq(rep->probes[0].events[0].t_ns, 500);
	ck_assert_uint_eq(rep->probes[0].st.count, 1);
	report_free(rep);
	bpfout_free(out);
	spec_free(s);
}
END_TEST

/* ---- events on a probe point ---------------------------------------- */

static const char point_spec_yaml[] =
	"name: pt\n"
	"probes:\n"
	"  - name: req\n"
	"    kind: events\n"
	"    probe: \"usdt:main:node:http__server__request\"\n"
	"    args:\n"
	"      - {name: url, value: arg5, type: string}\n"
	"      - {name: port, value: arg3}\n"
	"      - {name: fd, value: arg6, type: uint}\n";

/* Builds the report of one window holding LINES (bpftrace JSON lines). */
static report *point_report(spec **sp, const char *const *lines, size_t n)
{
	static char exe[] = "/usr/bin/node";
	static char *objects[] = { exe };
	static target t = { .pid = 100, .exe = exe, .objects = objects, .n_objects = 1 };
	static resolved_probe rp;
	static resolved r;
	bpfout *out = bpfout_new();

	*sp = spec_parse("t/pt.yaml", point_spec_yaml, strlen(point_spec_yaml));
	ck_assert_ptr_nonnull(*sp);
	ck_assert(spec_is_point_events(&(*sp)->probes[0]));
	rp = (resolved_probe){ .sp = &(*sp)->probes[0], .active = true, .object = exe };
	r = (resolved){ .sp = *sp, .tg = &t, .probes = &rp, .n_probes = 1, .n_active = 1 };
	for (size_t i = 0; i < n; i++)
		bpfout_feed(out, lines[i], strlen(lines[i]));
	ck_assert_uint_eq(bpfout_window_count(out), 1);
	report_run run = run_of(100);
	report *rep = report_build(&r, bpfout_window_at(out, 0), &run);
	bpfout_free(out);
	ck_assert_ptr_nonnull(rep);
	return rep;
}

START_TEST(test_point_events)
{
	static const char *const lines[] = {
		"{\"type\": \"printf\", \"data\": \"bpfspec:begin 1000\\n\"}",
		/* Numbers first (port, fd), then the string: the rest of the line. */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev req 1500 101 = 8080 7 /a b?c=\\\"d\\\" = 1\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev req 1600 101 = -1 18446744073709551615 \\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev req 1700 101 = 1 2 \\u001b[31mred\\tx\\n\"}",
		/* Malformed: skipped, never half-read. */
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev req 1800 101 = x 2 /\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev req 1800 101 = 1 -2 /\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev req 1800 101 = 1\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev req 1800 101 8 1 2 /\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:flush 2000\\n\"}",
		"{\"type\": \"map\", \"data\": {\"@evdrop_req\": 4}}",
		"{\"type\": \"map\", \"data\": {\"@evcomm_req\": {\"101\": \"node\"}}}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
	};
	spec *s;
	report *rep = point_report(&s, lines, sizeof lines / sizeof *lines);
	const report_probe *p = &rep->probes[0];

	ck_assert_int_eq(p->kind, PROBE_EVENTS);
	ck_assert_str_eq(p->probe, "usdt:main:node:http__server__request");
	ck_assert_uint_eq(p->n_events, 3);
	ck_assert_uint_eq(p->events_dropped, 4);
	ck_assert_uint_eq(p->st.count, 7);
	const report_event *e = &p->events[0];
	ck_assert_ptr_null(e->syscall);
	ck_assert_uint_eq(e->t_ns, 500);
	ck_assert_int_eq(e->tid, 101);
	ck_assert_str_eq(e->thread, "node");
	ck_assert_uint_eq(e->n_args, 3);
	ck_assert_str_eq(e->args[0].name, "url");
	ck_assert_str_eq(e->args[0].s, "/a b?c=\"d\" = 1");
	ck_assert(!e->args[0].truncated);
	ck_assert_str_eq(e->args[1].name, "port");
	ck_assert_int_eq(e->args[1].i, 8080);
	ck_assert_str_eq(e->args[2].name, "fd");
	ck_assert_uint_eq(e->args[2].u, 7);
	e = &p->events[1];
	ck_assert_str_eq(e->args[0].s, "");
	ck_assert_int_eq(e->args[1].i, -1);
	ck_assert(e->args[2].u == 18446744073709551615ULL);
	ck_assert_str_eq(p->events[2].args[0].s, "\x1b[31mred\tx");

	/* Every format escapes what the program chose. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_int_eq(render_text(f, rep), 0);
	fclose(f);
	ck_assert_msg(strstr(text, "url=\"/a b?c=\\\"d\\\" = 1\" port=8080 fd=7\n"), "%s", text);
	ck_assert_msg(strstr(text, "url=\"\\x1b[31mred\\x09x\""), "%s", text);
	ck_assert_msg(!strchr(text, '\x1b'), "raw escape in text output");
	free(text);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(render_json(f, rep), 0);
	fclose(f);
	ck_assert_msg(strstr(text, "\"url\": \"\\u001B[31mred\\tx\",\n"), "%s", text);
	ck_assert_msg(strstr(text, "\"url\": \"/a b?c=\\\"d\\\" = 1\",\n"), "%s", text);
	/* Above INT64_MAX, a uint is a decimal string (JSON numbers lose it). */
	ck_assert_msg(strstr(text, "\"fd\": \"18446744073709551615\"\n"), "%s", text);
	ck_assert_msg(!strstr(text, "threshold_ns"), "%s", text);
	free(text);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(render_prom(f, rep), 0);
	fclose(f);
	ck_assert_msg(!strstr(text, "31mred") && !strstr(text, "b?c"),
		      "a string reached prom output:\n%s", text);
	free(text);
	report_free(rep);
	spec_free(s);
}
END_TEST

START_TEST(test_point_events_bytes)
{
	/* 199 bytes fill BPFTRACE_STRLEN: truncated; invalid UTF-8 in JSON
	 * becomes U+FFFD, with args_hex beside. */
	char line[600], url[200];
	memset(url, 'u', 199);
	url[199] = '\0';
	snprintf(line, sizeof line,
		 "{\"type\": \"printf\", \"data\": \"bpfspec:ev req 1500 101 = 1 2 %s\\n\"}", url);
	const char *const lines[] = {
		"{\"type\": \"printf\", \"data\": \"bpfspec:begin 1000\\n\"}",
		line,
		"{\"type\": \"printf\", \"data\": \"bpfspec:ev req 1600 101 = 1 2 caf\\u00e9\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:flush 2000\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
	};
	spec *s;
	report *rep = point_report(&s, lines, sizeof lines / sizeof *lines);
	const report_probe *p = &rep->probes[0];
	ck_assert_uint_eq(p->n_events, 2);
	ck_assert(p->events[0].args[0].truncated);
	ck_assert(!p->events[1].args[0].truncated);
	/* A lone byte 0xe9 (Latin-1 é) is not UTF-8. */
	free(p->events[1].args[0].s);
	p->events[1].args[0].s = strdup("caf\xe9!");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_int_eq(render_json(f, rep), 0);
	fclose(f);
	ck_assert_msg(strstr(text, "\"truncated\": \"url\"") || strstr(text, "\"truncated\":\"url\""),
		      "%s", text);
	/* ASCII JSON (JSON_ENSURE_ASCII): U+FFFD as an escape, and the
	 * exact bytes in args_hex. */
	ck_assert_msg(strstr(text, "caf\\uFFFD!"), "%s", text);
	ck_assert_msg(strstr(text, "\"url\": \"636166e921\""), "%s", text);
	free(text);
	report_free(rep);
	spec_free(s);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("percentile");

	tcase_add_test(tc, test_utilization);
	tcase_add_test(tc, test_percentile_empty);
	tcase_add_test(tc, test_percentile_single_bucket);
	tcase_add_test(tc, test_percentile_interpolation);
	tcase_add_test(tc, test_percentile_clamping);
	tcase_add_test(tc, test_percentile_inside_bucket);
	suite_add_tcase(s, tc);

	tc = tcase_create("build");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_build_window);
	tcase_add_test(tc, test_build_unit_auto);
	tcase_add_test(tc, test_syscall_minus_one_is_rt_sigreturn);
	tcase_add_test(tc, test_record_before_window);
	tcase_add_test(tc, test_build_dated);
	tcase_add_test(tc, test_build_owns_strings);
	tcase_add_test(tc, test_build_stop);
	tcase_add_test(tc, test_build_no_data);
	tcase_add_test(tc, test_build_thread_names);
	tcase_add_test(tc, test_build_several_pids);
	tcase_add_test(tc, test_build_foreign_fixture);
	suite_add_tcase(s, tc);

	tc = tcase_create("point_events");
	tcase_add_test(tc, test_point_events);
	tcase_add_test(tc, test_attribution);
	tcase_add_test(tc, test_attribution_nested_loop);
	tcase_add_test(tc, test_point_events_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(report_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
