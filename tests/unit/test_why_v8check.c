/* Unit tests for why_v8check.c: the perf map's names of JavaScript frames
 * (as bpftrace 0.17 and 0.24+ print them, node 18's and node 20+'s
 * forms, tier and on-stack-replacement marks) against the heap's, frame
 * by frame and as function shares. */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "attribution/why_v8check.h"

/* Adds a stack of N frames FRAMES (the perf map's side) and heap names
 * HEAP (N_HEAP of them) to C, SAMPLES times; walked when a name is. */
static void add(why_v8check *c, const char *const *frames, size_t n, const char *const *heap,
		size_t n_heap, uint64_t samples)
{
	size_t len[16];
	uint64_t offset[16] = { 0 };
	bool walked = false;
	for (size_t i = 0; i < n; i++)
		len[i] = strlen(frames[i]);
	for (size_t i = 0; i < n_heap; i++)
		walked = walked || heap[i];
	why_v8check_frames f = { .frame = frames, .len = len, .offset = offset, .n = n };
	why_v8check_stack(c, 0, &f, heap, n_heap, walked, samples);
}

/* Adds frame FRAME at OFFSET, named HEAP by the heap, of process PID,
 * once. */
static void add_at(why_v8check *c, long pid, const char *frame, uint64_t offset,
		   const char *heap)
{
	size_t len = strlen(frame);
	why_v8check_frames f = { .frame = &frame, .len = &len, .offset = &offset, .n = 1 };
	why_v8check_stack(c, pid, &f, &heap, 1, true, 1);
}

START_TEST(test_forms_of_the_same_function)
{
	static const struct { const char *perf, *heap; } same[] = {
		{ "JS:~busyInner /w/x.js:8:19", "JS:busyInner /w/x.js:8" },
		{ "LazyCompile:*busyInner /w/x.js:8", "JS:busyInner /w/x.js:8" },
		{ "JS:~busyInner/w/x.js:8:19", "JS:busyInner /w/x.js:8" },	/* 0.24+ */
		{ "JS:*'busyInner /w/x.js:8:19", "JS:busyInner /w/x.js:8" },	/* OSR */
		{ "JS:+'busyOuter /w/x.js:43:19", "JS:busyOuter /w/x.js:43" },
		{ "JS:^listOnTimeout node:internal/timers:524:25", "JS:listOnTimeout node:internal/timers" },
		{ "JS:~ /w/x.js:77:26", "JS:(anonymous) /w/x.js:77" },
	};
	for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
		why_v8check *c = why_v8check_new();
		ck_assert_ptr_nonnull(c);
		const char *frames[] = { same[i].perf }, *heap[] = { same[i].heap };
		add(c, frames, 1, heap, 1, 3);
		report_js_check r;
		why_v8check_result(c, &r);
		ck_assert_msg(r.done && r.frames == 3 && r.same == 3 && r.different == 0,
			      "%s against %s: %llu of %llu the same", same[i].perf, same[i].heap,
			      (unsigned long long)r.same, (unsigned long long)r.frames);
		ck_assert_double_eq_tol(r.share_difference, 0, 1e-9);
		why_v8check_free(c);
	}
}
END_TEST

START_TEST(test_differences_and_gaps_counted)
{
	why_v8check *c = why_v8check_new();
	/* the innermost frame in a prologue: the heap names the caller */
	const char *f1[] = { "JS:~inner /w/x.js:8:19", "JS:~outer /w/x.js:43:19", "uv_run+12" };
	const char *h1[] = { "JS:outer /w/x.js:43", "JS:outer /w/x.js:43", NULL };
	add(c, f1, 3, h1, 3, 2);
	/* a wrong line further out */
	const char *f2[] = { "JS:~inner /w/x.js:8:19", "JS:~outer /w/x.js:43:19" };
	const char *h2[] = { "JS:inner /w/x.js:8", "JS:outer /w/x.js:44" };
	add(c, f2, 2, h2, 2, 1);
	/* taken in the kernel: no frame walked */
	const char *h3[] = { NULL, NULL };
	add(c, f2, 2, h3, 2, 5);
	/* a builtin on top, its caller named by the heap only; one unnamed */
	const char *f4[] = { "Builtins_MathTrunc", "JS:~outer /w/x.js:43:19" };
	const char *h4[] = { "JS:inner /w/x.js:8", NULL };
	add(c, f4, 2, h4, 2, 4);
	report_js_check r;
	why_v8check_result(c, &r);
	ck_assert_uint_eq(r.samples, 12);
	ck_assert_uint_eq(r.samples_no_walk, 5);
	ck_assert_uint_eq(r.frames, 2 * 2 + 2 + 2 * 5 + 4);
	ck_assert_uint_eq(r.same, 2 + 1);
	ck_assert_uint_eq(r.different, 2 + 1);
	ck_assert_uint_eq(r.different_innermost, 2);
	ck_assert_uint_eq(r.unnamed, 2 * 5 + 4);
	ck_assert_uint_eq(r.unnamed_no_walk, 2 * 5);
	ck_assert_uint_eq(r.heap_only, 4);
	ck_assert_str_eq(r.differ_perf_map, "inner/w/x.js:8");
	ck_assert_str_eq(r.differ_v8_heap, "outer/w/x.js:43");
	/* outer: on every stack by the perf map, on 2+1 by the heap (its
	 * line set aside); inner: 2+1+5 against 1+4 */
	ck_assert_str_eq(r.share_function, "outer/w/x.js");
	ck_assert_double_eq_tol(r.share_difference, (12.0 - 3.0) / 12.0, 1e-9);
	why_v8check_free(c);
}
END_TEST

START_TEST(test_nothing_and_null)
{
	why_v8check *c = why_v8check_new();
	report_js_check r;
	why_v8check_result(c, &r);
	ck_assert(r.done);
	ck_assert_uint_eq(r.frames, 0);
	ck_assert_str_eq(r.share_function, "");
	const char *f[] = { "JS:~" }, *h[] = { "JS:" };	/* empty names: no function */
	add(c, f, 1, h, 1, 1);
	why_v8check_result(c, &r);
	ck_assert_uint_eq(r.frames, 0);
	why_v8check_stack(NULL, 0, &(why_v8check_frames){ .frame = f, .n = 1 }, h, 1, true, 1);
	/* the walk found functions the heap could no longer read (moved) */
	add_at(c, 0, "JS:~inner /w/x.js:8:19", 0, NULL);
	add_at(c, 0, "JS:~inner /w/x.js:8:19", 0, NULL);
	why_v8check_result(c, &r);
	ck_assert_uint_eq(r.unnamed, 2);
	ck_assert_uint_eq(r.unnamed_no_walk, 0);
	ck_assert_uint_eq(r.samples_no_walk, 0);
	why_v8check_free(c);
	why_v8check_free(NULL);
}
END_TEST

START_TEST(test_stale_perf_map_lines)
{
	/* churn's optimized code freed and remove's code put at 0x1040 in
	 * its range; tick's code at two tiers on one range (one function) */
	static const char lines[] =
		"1000 100 JS:*churn /w/x.js:17:1\n"
		"1040 20 JS:^remove node:internal/linkedlist:16:16\n"
		"2000 50 JS:~tick /w/x.js:62:1\n"
		"2000 80 JS:+tick /w/x.js:62:1\n"
		"not a line\n3000 0 JS:~empty /w/x.js:1:1\n";
	char path[] = "/tmp/bpfspec-perfmap.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, lines, sizeof lines - 1), (ssize_t)(sizeof lines - 1));
	close(fd);
	perfmap *pm = perfmap_read(path);
	unlink(path);
	ck_assert_ptr_nonnull(pm);
	ck_assert_uint_eq(perfmap_lines(pm), 4);
	why_v8check *c = why_v8check_new();
	why_v8check_use_perfmap(c, 42, pm);
	add_at(c, 42, "JS:*churn /w/x.js:17:1", 0x10, "JS:churn /w/x.js:17");	/* churn's alone */
	/* named from churn's freed line: the code there is remove's */
	add_at(c, 42, "JS:*churn /w/x.js:17:1", 0x48, "JS:remove node:internal/linkedlist");
	add_at(c, 42, "JS:^remove node:internal/linkedlist:16:16", 4,
	       "JS:remove node:internal/linkedlist");
	add_at(c, 42, "JS:~tick/w/x.js:62:1", 0x10, "JS:tick /w/x.js:62");	/* 0.24's form */
	add_at(c, 42, "JS:+tick /w/x.js:62:1", 0x60, "JS:tick /w/x.js:62");
	add_at(c, 42, "JS:~tick /w/x.js:62:1", 0x60, "JS:tick /w/x.js:62");	/* past its line */
	add_at(c, 42, "JS:~gone /w/x.js:9:1", 0, "JS:other /w/x.js:1");	/* no such line */
	add_at(c, 7, "JS:*churn /w/x.js:17:1", 0x48, "JS:churn /w/x.js:17");	/* no map */
	report_js_check r;
	why_v8check_result(c, &r);
	ck_assert_uint_eq(r.frames, 8);
	ck_assert_uint_eq(r.perf_map_unplaced, 2);
	ck_assert_uint_eq(r.perf_map_stale, 1);
	ck_assert_uint_eq(r.same, 6);
	ck_assert_uint_eq(r.different, 0);
	ck_assert_uint_eq(r.same + r.different + r.unnamed + r.perf_map_unplaced, r.frames);
	why_v8check_free(c);
}
END_TEST

static Suite *why_v8check_suite(void)
{
	Suite *s = suite_create("why_v8check");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_forms_of_the_same_function);
	tcase_add_test(tc, test_differences_and_gaps_counted);
	tcase_add_test(tc, test_nothing_and_null);
	tcase_add_test(tc, test_stale_perf_map_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(why_v8check_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
