/* Unit tests for render_prom (Prometheus text format 0.0.4, docs/report.md
 * "Prometheus"): the exact output of a small hand-built report with every
 * probe kind; label values with quotes, backslashes, newlines and bytes
 * that are not UTF-8; the power-of-two folding of every real log-linear
 * bucket (cumulative, monotonic, ending with +Inf == _count); the fixed
 * bucket layout of an empty histogram; and write errors (/dev/full -> -1).
 * Reports are built by hand on the stack (nothing to free).  Run under
 * valgrind (CK_FORK=no) for leaks. */
#include <check.h>

#include "helpers.h"
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/report.h"
#include "program/generator.h"
#include "render/render.h"
#include "util/hist.h"

/* ---- helpers ------------------------------------------------------- */

/* Renders REP into memory; returns the text (owned). */
static char *render(const report *rep)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(render_prom(f, rep), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

/* TEXT holds LINE as a whole line. */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

#define ck_assert_line(text, line) \
	ck_assert_msg(has_line((text), (line)), "expected line\n%s\nin:\n%s", (line), (text))

#define S(x) ((char *)(x))

/* ---- the small report ----------------------------------------------- */

/* Bucket [3670016, 3801088) and [3801088, 3932160): both below 2^22 ns. */
static report_bucket timer_buckets[] = { { 3670016, 3801088, 3 }, { 3801088, 3932160, 2 } };
static report_group timer_groups[] = {
	{ .tid = 100, .thread = S("node"), .st = { .count = 3, .sum_ns = 11100000 } },
	{ .tid = 101, .thread = NULL, .st = { .count = 2, .sum_ns = 7700000 } },
};
/* [8, 9) is below 2^10 ns; [1024, 1088) below 2^11 ns. */
static report_bucket openat_buckets[] = { { 8, 9, 1 }, { 1024, 1088, 4 } };
static report_errno openat_errors[] = { { S("ENOENT"), 2, 2 } };
static report_syscall sys_syscalls[] = {
	{ .name = S("openat"), .nr = 257,
	  .st = { .count = 5, .sum_ns = 4500000000ull, .buckets = openat_buckets, .n_buckets = 2 },
	  .errors = openat_errors, .n_errors = 1, .error_count = 2 },
};
static report_group sys_groups[] = {
	{ .tid = 100, .thread = S("node"), .st = { .count = 5, .sum_ns = 4500000000ull } },
};

static report_probe small_probes[] = {
	{ .name = S("timers"), .kind = PROBE_LATENCY, .function = S("uv__run_timers"),
	  .object = S("/usr/bin/x"), .unit = S("ms"), .unit_ns = 1000000, .attached = true,
	  .st = { .count = 5, .sum_ns = 18800000, .buckets = timer_buckets, .n_buckets = 2 },
	  .groups = timer_groups, .n_groups = 2 },
	{ .name = S("gone"), .kind = PROBE_LATENCY, .function = S("missing_fn"), .unit = S("ns"),
	  .unit_ns = 1, .attached = false, .reason = S("missing_fn: not found (inlined)") },
	{ .name = S("sys"), .kind = PROBE_SYSCALLS, .unit = S("us"), .unit_ns = 1000,
	  .attached = true,
	  .st = { .count = 5, .sum_ns = 4500000000ull, .buckets = openat_buckets, .n_buckets = 2 },
	  .groups = sys_groups, .n_groups = 1, .syscalls = sys_syscalls, .n_syscalls = 1 },
	{ .name = S("slow"), .kind = PROBE_EVENTS, .unit = S("ms"), .unit_ns = 1000000,
	  .attached = true, .st = { .count = 7 }, .threshold_ns = 10000000, .events_dropped = 2 },
};

static const report small = {
	.spec_name = S("demo"), .spec_path = S("t/demo.yaml"), .pid = 100, .binary = S("/usr/bin/x"),
	.duration_ns = 2000000000, .lost_events = 3, .attached_probes = 5, .expected_probes = 5,
	.probes = small_probes, .n_probes = 4,
};

/* The 26 finite buckets of one histogram: counts C10..C35 at le = 2^10 ns
 * .. 2^35 ns, written out so that a change of layout shows here. */
#define BUCKETS(name, labels, c10, c11, c22)                                        \
	name "_bucket{" labels "le=\"0.000001024\"} " c10 "\n"                       \
	name "_bucket{" labels "le=\"0.000002048\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.000004096\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.000008192\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.000016384\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.000032768\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.000065536\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.000131072\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.000262144\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.000524288\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.001048576\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.002097152\"} " c11 "\n"                       \
	name "_bucket{" labels "le=\"0.004194304\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"0.008388608\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"0.016777216\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"0.033554432\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"0.067108864\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"0.134217728\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"0.268435456\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"0.536870912\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"1.073741824\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"2.147483648\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"4.294967296\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"8.589934592\"} " c22 "\n"                       \
	name "_bucket{" labels "le=\"17.179869184\"} " c22 "\n"                      \
	name "_bucket{" labels "le=\"34.359738368\"} " c22 "\n"

static const char small_expected[] =
	"# HELP bpfspec_target_info The traced process (pid 0: none) and its executable; always 1.\n"
	"# TYPE bpfspec_target_info gauge\n"
	"bpfspec_target_info{spec=\"demo\",pid=\"100\",binary=\"/usr/bin/x\"} 1\n"
	"# HELP bpfspec_window_seconds Length of the measured window; every other value is for this window.\n"
	"# TYPE bpfspec_window_seconds gauge\n"
	"bpfspec_window_seconds{spec=\"demo\"} 2\n"
	"# HELP bpfspec_report_partial 1 when the window was cut short (target exited, bpftrace died or was killed).\n"
	"# TYPE bpfspec_report_partial gauge\n"
	"bpfspec_report_partial{spec=\"demo\"} 0\n"
	"# HELP bpfspec_lost_events Events bpftrace reported lost in the window (figures are then too low).\n"
	"# TYPE bpfspec_lost_events gauge\n"
	"bpfspec_lost_events{spec=\"demo\"} 3\n"
	"# HELP bpfspec_probe_attached 1 when the probe was attached, 0 when it was skipped.\n"
	"# TYPE bpfspec_probe_attached gauge\n"
	"bpfspec_probe_attached{spec=\"demo\",probe=\"timers\"} 1\n"
	"bpfspec_probe_attached{spec=\"demo\",probe=\"gone\"} 0\n"
	"bpfspec_probe_attached{spec=\"demo\",probe=\"sys\"} 1\n"
	"bpfspec_probe_attached{spec=\"demo\",probe=\"slow\"} 1\n"
	"# HELP bpfspec_latency_seconds Latency of the probed function in the window, all threads together.\n"
	"# TYPE bpfspec_latency_seconds histogram\n"
	BUCKETS("bpfspec_latency_seconds",
		"spec=\"demo\",probe=\"timers\",function=\"uv__run_timers\",", "0", "0", "5")
	"bpfspec_latency_seconds_bucket{spec=\"demo\",probe=\"timers\",function=\"uv__run_timers\",le=\"+Inf\"} 5\n"
	"bpfspec_latency_seconds_sum{spec=\"demo\",probe=\"timers\",function=\"uv__run_timers\"} 0.0188\n"
	"bpfspec_latency_seconds_count{spec=\"demo\",probe=\"timers\",function=\"uv__run_timers\"} 5\n"
	"# HELP bpfspec_syscall_latency_seconds Latency of the syscall in the window, all threads together.\n"
	"# TYPE bpfspec_syscall_latency_seconds histogram\n"
	BUCKETS("bpfspec_syscall_latency_seconds", "spec=\"demo\",probe=\"sys\",syscall=\"openat\",",
		"1", "5", "5")
	"bpfspec_syscall_latency_seconds_bucket{spec=\"demo\",probe=\"sys\",syscall=\"openat\",le=\"+Inf\"} 5\n"
	"bpfspec_syscall_latency_seconds_sum{spec=\"demo\",probe=\"sys\",syscall=\"openat\"} 4.5\n"
	"bpfspec_syscall_latency_seconds_count{spec=\"demo\",probe=\"sys\",syscall=\"openat\"} 5\n"
	"# HELP bpfspec_syscall_errors Calls of the syscall that failed with this errno in the window.\n"
	"# TYPE bpfspec_syscall_errors gauge\n"
	"bpfspec_syscall_errors{spec=\"demo\",probe=\"sys\",syscall=\"openat\",errno=\"ENOENT\"} 2\n"
	"# HELP bpfspec_events Calls at least as slow as the probe's threshold in the window, recorded or not.\n"
	"# TYPE bpfspec_events gauge\n"
	"bpfspec_events{spec=\"demo\",probe=\"slow\"} 7\n"
	"# HELP bpfspec_events_dropped Slow calls not recorded in the window (over the probe's limit).\n"
	"# TYPE bpfspec_events_dropped gauge\n"
	"bpfspec_events_dropped{spec=\"demo\",probe=\"slow\"} 2\n"
	"# HELP bpfspec_thread_time_seconds Time the thread spent in the probe's calls in the window.\n"
	"# TYPE bpfspec_thread_time_seconds gauge\n"
	"bpfspec_thread_time_seconds{spec=\"demo\",probe=\"timers\",tid=\"100\",thread=\"node\",main=\"true\"} 0.0111\n"
	"bpfspec_thread_time_seconds{spec=\"demo\",probe=\"timers\",tid=\"101\",thread=\"\",main=\"false\"} 0.0077\n"
	"bpfspec_thread_time_seconds{spec=\"demo\",probe=\"sys\",tid=\"100\",thread=\"node\",main=\"true\"} 4.5\n"
	"# HELP bpfspec_thread_calls Calls the thread completed in the window.\n"
	"# TYPE bpfspec_thread_calls gauge\n"
	"bpfspec_thread_calls{spec=\"demo\",probe=\"timers\",tid=\"100\",thread=\"node\",main=\"true\"} 3\n"
	"bpfspec_thread_calls{spec=\"demo\",probe=\"timers\",tid=\"101\",thread=\"\",main=\"false\"} 2\n"
	"bpfspec_thread_calls{spec=\"demo\",probe=\"sys\",tid=\"100\",thread=\"node\",main=\"true\"} 5\n";

START_TEST(test_small_exact)
{
	char *text = render(&small);

	assert_same_text(text, small_expected);
	free(text);
}
END_TEST

/* Partial, no single process, no binary, a probe that is not per thread
 * (tid 0: no thread series), an attached probe that saw nothing (all
 * buckets present, all zero). */
START_TEST(test_partial_and_empty)
{
	report_group g0[] = { { .tid = 0, .st = { .count = 0 } } };
	report_probe probes[] = {
		{ .name = S("idle"), .kind = PROBE_LATENCY, .function = S("f"), .unit = S("ns"),
		  .unit_ns = 1, .attached = true, .groups = g0, .n_groups = 1 },
	};
	report rep = { .spec_name = S("s"), .pid = 0, .binary = NULL, .duration_ns = 1500000001,
		       .partial = true, .partial_reason = S("target exited"),
		       .attached_probes = -1, .probes = probes, .n_probes = 1 };
	char *text = render(&rep);

	ck_assert_line(text, "bpfspec_target_info{spec=\"s\",pid=\"0\",binary=\"\"} 1");
	ck_assert_line(text, "bpfspec_window_seconds{spec=\"s\"} 1.500000001");
	ck_assert_line(text, "bpfspec_report_partial{spec=\"s\"} 1");
	ck_assert_line(text, "bpfspec_lost_events{spec=\"s\"} 0");
	ck_assert_line(text, "bpfspec_latency_seconds_bucket{spec=\"s\",probe=\"idle\",function=\"f\",le=\"0.000001024\"} 0");
	ck_assert_line(text, "bpfspec_latency_seconds_bucket{spec=\"s\",probe=\"idle\",function=\"f\",le=\"34.359738368\"} 0");
	ck_assert_line(text, "bpfspec_latency_seconds_bucket{spec=\"s\",probe=\"idle\",function=\"f\",le=\"+Inf\"} 0");
	ck_assert_line(text, "bpfspec_latency_seconds_sum{spec=\"s\",probe=\"idle\",function=\"f\"} 0");
	ck_assert_line(text, "bpfspec_latency_seconds_count{spec=\"s\",probe=\"idle\",function=\"f\"} 0");
	/* Families without samples leave no HELP or TYPE line. */
	ck_assert_ptr_null(strstr(text, "bpfspec_thread_"));
	ck_assert_ptr_null(strstr(text, "bpfspec_syscall"));
	ck_assert_ptr_null(strstr(text, "bpfspec_events"));
	free(text);
}
END_TEST

/* ---- escaping -------------------------------------------------------- */

START_TEST(test_label_escaping)
{
	report_group g[] = {
		/* "\xff" is no UTF-8; "\xc3\xa9" (é) is; "\xc0\xaf" is an
		 * overlong '/'; "\xed\xa0\x80" a surrogate. */
		{ .tid = 7, .thread = S("a\xff\xc3\xa9\xc0\xaf\xed\xa0\x80z"), .st = { .count = 1 } },
	};
	report_probe probes[] = {
		{ .name = S("p\\q"), .kind = PROBE_LATENCY, .function = S("f\"g"), .unit = S("ns"),
		  .unit_ns = 1, .attached = true, .groups = g, .n_groups = 1 },
	};
	report rep = { .spec_name = S("say \"hi\"\\\nbye"), .pid = 7, .binary = S("/bin/\"x\""),
		       .probes = probes, .n_probes = 1 };
	char *text = render(&rep);

	ck_assert_line(text, "bpfspec_target_info{spec=" "\"say \\\"hi\\\"\\\\\\\\\\\\x0abye\"" ",pid=\"7\","
			     "binary=\"/bin/\\\"x\\\"\"} 1");
	ck_assert_line(text, "bpfspec_probe_attached{spec=" "\"say \\\"hi\\\"\\\\\\\\\\\\x0abye\"" ",probe=" "\"p\\\\\\\\q\"" "} 1");
	ck_assert_line(text, "bpfspec_latency_seconds_count{spec=" "\"say \\\"hi\\\"\\\\\\\\\\\\x0abye\"" ","
			     "probe=" "\"p\\\\\\\\q\"" ",function=\"f\\\"g\"} 0");
	/* Label values are safe.h's text form: where the thread's name
	 * had a raw 0xff byte, the scraper reads the four characters \xff. */
	ck_assert_line(text, "bpfspec_thread_calls{spec=" "\"say \\\"hi\\\"\\\\\\\\\\\\x0abye\"" ",probe=" "\"p\\\\\\\\q\"" ","
			     "tid=\"7\",thread=" "\"a\\\\xff\xc3" "\xa9" "\\\\xc0\\\\xaf\\\\xed\\\\xa0\\\\x80z\"" ",main=\"true\"} 1");
	/* The raw newline never reaches the output: every line is a
	 * comment or a sample. */
	for (char *line = text; *line; line = strchr(line, '\n') + 1)
		ck_assert_msg(line[0] == '#' || strncmp(line, "bpfspec_", 8) == 0,
			      "stray line: %.40s", line);
	free(text);
}
END_TEST

/* ---- bucket folding -------------------------------------------------- */

/* Parses the _bucket lines of TEXT (one histogram) into LE and COUNT;
 * returns how many there were.  +Inf is stored as UINT64_MAX ns. */
static size_t parse_buckets(const char *text, uint64_t *le_ns, uint64_t *count, size_t max)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, "_bucket{")); p++) {
		const char *le = strstr(p, "le=\"");
		ck_assert_ptr_nonnull(le);
		le += 4;
		ck_assert_uint_lt(n, max);
		if (strncmp(le, "+Inf\"", 5) == 0) {
			le_ns[n] = UINT64_MAX;
		} else {
			unsigned long long s, frac = 0;
			char digits[16] = "";
			ck_assert_int_ge(sscanf(le, "%llu.%15[0-9]", &s, digits), 1);
			/* right-pad the fraction to nanoseconds */
			for (size_t i = 0; i < 9; i++)
				frac = frac * 10 + (i < strlen(digits) ? (unsigned long long)(digits[i] - '0') : 0);
			le_ns[n] = s * 1000000000ull + frac;
		}
		const char *v = strstr(le, "} ");
		ck_assert_ptr_nonnull(v);
		count[n] = strtoull(v + 2, NULL, 10);
		n++;
	}
	return n;
}

static uint64_t sample_value(const char *text, const char *suffix)
{
	const char *p = strstr(text, suffix);
	ck_assert_msg(p != NULL, "no %s in:\n%s", suffix, text);
	p = strstr(p, "} ");
	ck_assert_ptr_nonnull(p);
	return strtoull(p + 2, NULL, 10);
}

/* Every real log-linear bucket up to past 2^40 ns, count 1 each: the
 * count at le = 2^k ns must be exactly the number of buckets starting
 * below 2^k (buckets never straddle a power of two), the series must
 * rise, the le values must be the powers of two 2^10..2^35 ns, and +Inf
 * must equal _count. */
START_TEST(test_folding_cumulative)
{
	static report_bucket bs[2000];
	size_t nb = 0;
	for (uint64_t i = 0;; i++) {
		uint64_t lo, hi;
		hist_bucket_bounds(i, &lo, &hi);
		if (lo > ((uint64_t)1 << 40))
			break;
		ck_assert_uint_lt(nb, sizeof bs / sizeof *bs);
		bs[nb++] = (report_bucket){ lo, hi, 1 };
	}
	report_probe probes[] = {
		{ .name = S("all"), .kind = PROBE_LATENCY, .function = S("f"), .unit = S("ns"),
		  .unit_ns = 1, .attached = true,
		  .st = { .count = nb, .sum_ns = 123, .buckets = bs, .n_buckets = nb } },
	};
	report rep = { .spec_name = S("s"), .pid = 1, .binary = S("b"), .probes = probes,
		       .n_probes = 1 };
	char *text = render(&rep);
	uint64_t le[64], count[64];
	size_t n = parse_buckets(text, le, count, 64);

	ck_assert_uint_eq(n, 27);
	for (size_t i = 0; i + 1 < n; i++) {
		ck_assert_uint_eq(le[i], (uint64_t)1 << (10 + i));
		size_t below = 0;
		for (size_t b = 0; b < nb; b++)
			below += bs[b].lo_ns < le[i];
		ck_assert_uint_eq(count[i], below);
		if (i > 0)
			ck_assert_uint_ge(count[i], count[i - 1]);
	}
	ck_assert_uint_eq(le[n - 1], UINT64_MAX);
	ck_assert_uint_ge(count[n - 1], count[n - 2]);
	ck_assert_uint_eq(count[n - 1], nb);
	ck_assert_uint_eq(sample_value(text, "_count{"), count[n - 1]);
	ck_assert_line(text, "bpfspec_latency_seconds_sum{spec=\"s\",probe=\"all\",function=\"f\"} 0.000000123");
	free(text);
}
END_TEST

/* A count larger than the buckets' total (calls no bucket recorded) goes
 * to +Inf, and _count follows it. */
/* A utilization probe's stalls: one histogram per thread, with the
 * thread gauges' labels; none when the report predates stalls. */
START_TEST(test_utilization_stalls)
{
	report_bucket b[] = { { 29360128, 30408704, 4 }, { 65536, 69632, 1 } };	/* 30 ms, 66 us */
	report_group g[] = {
		{ .tid = 100, .thread = S("node"), .idle_ns = 1200000000, .busy_ns = 800000000,
		  .utilization = 0.4,
		  .stalls = { .count = 5, .sum_ns = 120070000, .buckets = b, .n_buckets = 2 } },
		{ .tid = 101, .thread = S("node"), .idle_ns = 2000000000 },
	};
	report_probe p = { .name = S("loop"), .kind = PROBE_UTILIZATION, .unit = S("ms"),
			   .unit_ns = 1000000, .attached = true, .groups = g, .n_groups = 2,
			   .has_stalls = true };
	report rep = { .spec_name = S("u"), .pid = 100, .binary = S("/usr/bin/node"),
		       .duration_ns = 2000000000, .probes = &p, .n_probes = 1 };
#define L "spec=\"u\",probe=\"loop\",tid=\"100\",thread=\"node\",main=\"true\""
	char *text = render(&rep);
	ck_assert_ptr_nonnull(strstr(text, "# TYPE bpfspec_eventloop_stall_seconds histogram\n"));
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_bucket{" L ",le=\"0.000065536\"} 0");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_bucket{" L ",le=\"0.000131072\"} 1");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_bucket{" L ",le=\"0.016777216\"} 1");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_bucket{" L ",le=\"0.033554432\"} 5");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_bucket{" L ",le=\"+Inf\"} 5");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_sum{" L "} 0.12007");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_count{" L "} 5");
	/* A thread that never stalled has its (empty) histogram too. */
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_count{spec=\"u\",probe=\"loop\","
			     "tid=\"101\",thread=\"node\",main=\"false\"} 0");
	ck_assert_line(text, "bpfspec_thread_utilization_ratio{" L "} 0.400000");
	free(text);
#undef L
	p.has_stalls = false;
	text = render(&rep);
	ck_assert_ptr_null(strstr(text, "stall"));
	ck_assert_ptr_nonnull(strstr(text, "bpfspec_thread_idle_seconds{"));
	free(text);
}
END_TEST

START_TEST(test_count_beyond_buckets)
{
	report_bucket bs[] = { { 1024, 1088, 2 } };
	report_probe probes[] = {
		{ .name = S("p"), .kind = PROBE_LATENCY, .function = S("f"), .unit = S("ns"),
		  .unit_ns = 1, .attached = true,
		  .st = { .count = 5, .sum_ns = 9, .buckets = bs, .n_buckets = 1 } },
	};
	report rep = { .spec_name = S("s"), .probes = probes, .n_probes = 1 };
	char *text = render(&rep);

	ck_assert_line(text, "bpfspec_latency_seconds_bucket{spec=\"s\",probe=\"p\",function=\"f\",le=\"34.359738368\"} 2");
	ck_assert_line(text, "bpfspec_latency_seconds_bucket{spec=\"s\",probe=\"p\",function=\"f\",le=\"+Inf\"} 5");
	ck_assert_line(text, "bpfspec_latency_seconds_count{spec=\"s\",probe=\"p\",function=\"f\"} 5");
	free(text);
}
END_TEST

/* ---- write errors ---------------------------------------------------- */

START_TEST(test_write_error)
{
	FILE *f = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(render_prom(f, &small), -1);
	fclose(f);
}
END_TEST

START_TEST(test_write_error_unbuffered)
{
	FILE *f = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(f);
	setvbuf(f, NULL, _IONBF, 0);
	ck_assert_int_eq(render_prom(f, &small), -1);
	fclose(f);
}
END_TEST

static Suite *render_prom_suite(void)
{
	Suite *s = suite_create("render_prom");
	TCase *tc = tcase_create("output");

	tcase_add_test(tc, test_small_exact);
	tcase_add_test(tc, test_partial_and_empty);
	tcase_add_test(tc, test_label_escaping);
	tcase_add_test(tc, test_folding_cumulative);
	tcase_add_test(tc, test_count_beyond_buckets);
	tcase_add_test(tc, test_utilization_stalls);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_write_error);
	tcase_add_test(tc, test_write_error_unbuffered);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(render_prom_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
