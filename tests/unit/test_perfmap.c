/* Unit tests for perfmap.c: a perf map's lines, the newest line at an
 * address, and files a traced process could write to hurt its reader
 * (FIFOs, links, NUL bytes, huge sizes, many lines of one name, a file
 * larger than what is read). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "target/perfmap.h"

static char dir[] = "/tmp/bpfspec-perfmap.XXXXXX";
static char path[64];

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/perf-1.map", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
	strcpy(dir, "/tmp/bpfspec-perfmap.XXXXXX");
}

/* Writes LEN bytes of TEXT to the map file. */
static void write_map(const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* One function's lines when they are spelled alike. */
static bool same_text(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* NAME at OFFSET's newest line, "" when not placed. */
static const char *live(const perfmap *pm, const char *name, uint64_t offset)
{
	const char *n = perfmap_live_name(pm, name, strlen(name), offset, same_text);
	return n ? n : "";
}

START_TEST(test_newest_line_wins)
{
	static const char text[] = "1000 100 JS:*churn /w/x.js:17:1\n"
				   "1040 20 JS:^remove node:internal/linkedlist:16:16\n"
				   "2000 50 JS:~tick /w/x.js:62:1\n"
				   "junk\n\n3000 10\n4000 zz JS:bad\n";
	write_map(text, sizeof text - 1);
	perfmap *pm = perfmap_read(path);
	ck_assert_ptr_nonnull(pm);
	ck_assert_uint_eq(perfmap_lines(pm), 3);
	ck_assert_str_eq(live(pm, "JS:*churn /w/x.js:17:1", 0x10), "JS:*churn /w/x.js:17:1");
	ck_assert_str_eq(live(pm, "JS:*churn /w/x.js:17:1", 0x48),
			 "JS:^remove node:internal/linkedlist:16:16");
	ck_assert_str_eq(live(pm, "JS:*churn/w/x.js:17:1", 0x10), "JS:*churn /w/x.js:17:1");
	ck_assert_str_eq(live(pm, "JS:*churn /w/x.js:17:1", 0x100), "");	/* past it */
	ck_assert_str_eq(live(pm, "JS:~gone", 0), "");
	perfmap_free(pm);
	perfmap_free(NULL);
}
END_TEST

START_TEST(test_not_a_regular_file)
{
	/* a FIFO nobody writes: refused at once, not waited on */
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_ptr_null(perfmap_read(path));
	unlink(path);
	/* a link to a device (or anywhere): not followed */
	ck_assert_int_eq(symlink("/dev/zero", path), 0);
	ck_assert_ptr_null(perfmap_read(path));
	unlink(path);
	ck_assert_ptr_null(perfmap_read(path));	/* none */
	write_map("", 0);
	ck_assert_ptr_null(perfmap_read(path));	/* empty */
}
END_TEST

START_TEST(test_hostile_lines)
{
	/* NUL bytes, a huge size, an overflowing range, a long name */
	char text[4096];
	size_t n = 0;
	n += (size_t)sprintf(text + n, "1000 10 JS:a");
	text[n++] = '\0';
	n += (size_t)sprintf(text + n, "b\n");
	n += (size_t)sprintf(text + n, "2000 7fffffffffffff00 JS:huge\n");
	n += (size_t)sprintf(text + n, "ffffffffffffff00 1000 JS:wraps\n");
	n += (size_t)sprintf(text + n, "5000 10 JS:");
	memset(text + n, 'x', 1000);
	n += 1000;
	text[n++] = '\n';
	write_map(text, n);
	perfmap *pm = perfmap_read(path);
	ck_assert_ptr_nonnull(pm);
	ck_assert_uint_eq(perfmap_lines(pm), 2);
	ck_assert_str_eq(live(pm, "JS:a b", 4), "JS:a b");
	ck_assert_str_eq(live(pm, "JS:huge", 0x10), "");
	perfmap_free(pm);
}
END_TEST

START_TEST(test_lookups_are_bounded)
{
	/* 20000 lines of one name at one address, and 20000 overlapping
	 * lines before another: each lookup gives up, quickly */
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 20000; i++)
		fprintf(f, "1000 100 JS:same\n%x 100000 JS:o%d\n", 0x100000 + i, i);
	fclose(f);
	perfmap *pm = perfmap_read(path);
	ck_assert_ptr_nonnull(pm);
	ck_assert_uint_eq(perfmap_lines(pm), 40000);
	ck_assert_str_eq(live(pm, "JS:same", 4), "");
	ck_assert_str_eq(live(pm, "JS:o19999", 4), "");
	perfmap_free(pm);
}
END_TEST

START_TEST(test_only_the_newest_bytes_read)
{
	/* a file past PERFMAP_BYTES_MAX: its first lines are not read, its
	 * last ones are */
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	size_t bytes = 0;
	for (int i = 0; bytes < PERFMAP_BYTES_MAX + (1u << 20); i++)
		bytes += (size_t)fprintf(f, "%x 10 JS:f%d /w/x.js:1:1\n", 0x1000 + 16 * i, i);
	fprintf(f, "ffff0000 10 JS:last\n");
	fclose(f);
	perfmap *pm = perfmap_read(path);
	ck_assert_ptr_nonnull(pm);
	ck_assert_str_eq(live(pm, "JS:f0 /w/x.js:1:1", 0), "");
	ck_assert_str_eq(live(pm, "JS:last", 0), "JS:last");
	ck_assert_uint_le(perfmap_lines(pm), PERFMAP_BYTES_MAX / 20);
	perfmap_free(pm);
}
END_TEST

static Suite *perfmap_suite(void)
{
	Suite *s = suite_create("perfmap");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_newest_line_wins);
	tcase_add_test(tc, test_not_a_regular_file);
	tcase_add_test(tc, test_hostile_lines);
	tcase_add_test(tc, test_lookups_are_bounded);
	tcase_add_test(tc, test_only_the_newest_bytes_read);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(perfmap_suite());
}
