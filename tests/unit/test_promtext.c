/* Unit tests for promtext.c: the Prometheus text writer of -o prom and
 * serve.  Numbers (exact seconds, integers, shortest gauges), the HELP
 * and TYPE lines, sample lines with escaped and pre-rendered labels, the
 * le layouts (bounds, where a bucket falls, their text) and a
 * histogram's lines, each compared byte for byte.  Run under valgrind
 * (CK_FORK=no) for leaks. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "util/promtext.h"

/* What WRITE(f) wrote, NUL-terminated (owned). */
#define WRITTEN(text, write)                                              \
	do {                                                              \
		size_t len_ = 0;                                          \
		FILE *f = open_memstream(&(text), &len_);                 \
		ck_assert_ptr_nonnull(f);                                 \
		write;                                                    \
		ck_assert_int_eq(fclose(f), 0);                           \
	} while (0)

START_TEST(test_seconds)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = { { 0, "0" },
		      { 1, "0.000000001" },
		      { 11100000, "0.0111" },
		      { 1024, "0.000001024" },
		      { 2000000000, "2" },
		      { 4294967296, "4.294967296" },
		      { 34359738368, "34.359738368" },
		      { UINT64_MAX, "18446744073.709551615" } };
	char v[PROMTEXT_NUM_LEN];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		promtext_seconds(v, sizeof v, cases[i].ns);
		ck_assert_str_eq(v, cases[i].text);
	}
	promtext_seconds_split(v, sizeof v, UINT64_MAX, 999999999);
	ck_assert_str_eq(v, "18446744073709551615.999999999");
	promtext_seconds_split(v, sizeof v, 3, 500000000);
	ck_assert_str_eq(v, "3.5");
	promtext_seconds_split(v, sizeof v, 7, 0);
	ck_assert_str_eq(v, "7");
	/* Cut short: no zero stripped past what was written. */
	char small[4];
	promtext_seconds(small, sizeof small, 1500000000);
	ck_assert_str_eq(small, "1.5");
}
END_TEST

START_TEST(test_u64_and_gauge)
{
	char v[PROMTEXT_NUM_LEN];
	promtext_u64(v, sizeof v, 0);
	ck_assert_str_eq(v, "0");
	promtext_u64(v, sizeof v, UINT64_MAX);
	ck_assert_str_eq(v, "18446744073709551615");
	static const struct {
		double v;
		const char *text;
	} cases[] = { { 0, "0" },	  { 1, "1" },	   { -2.5, "-2.5" },
		      { 0.1, "0.1" },	  { 1e21, "1e+21" }, { 1.0 / 3, "0.3333333333333333" },
		      { 123456789, "123456789" } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		promtext_gauge(v, sizeof v, cases[i].v);
		ck_assert_str_eq(v, cases[i].text);
		ck_assert(strtod(v, NULL) == cases[i].v);
	}
	promtext_gauge(v, sizeof v, NAN);
	ck_assert_str_eq(v, "NaN");
	promtext_gauge(v, sizeof v, INFINITY);
	ck_assert_str_eq(v, "+Inf");
	promtext_gauge(v, sizeof v, -INFINITY);
	ck_assert_str_eq(v, "-Inf");
	promtext_gauge(v, sizeof v, -1.7976931348623157e308);
	ck_assert_uint_lt(strlen(v), PROMTEXT_NUM_LEN);
	ck_assert(strtod(v, NULL) == -1.7976931348623157e308);
}
END_TEST

START_TEST(test_header)
{
	char *text = NULL;
	WRITTEN(text, promtext_header(f, "a_total", "counter", "One \\ two\nthree."));
	ck_assert_str_eq(text, "# HELP a_total One \\\\ two\\nthree.\n# TYPE a_total counter\n");
	free(text);
	WRITTEN(text, promtext_header(f, "b", "gauge", NULL));
	ck_assert_str_eq(text, "# TYPE b gauge\n");
	free(text);
}
END_TEST

START_TEST(test_sample)
{
	static const promtext_label pairs[] = { { "spec", "s\"\\\n\xff" },
						{ "thread", NULL },
						{ "x", "" } };
	static const promtext_labels both = { .key = "k=\"v\"", .pairs = pairs, .n = 1 };
	static const promtext_labels escaped = { .pairs = pairs, .n = 3 };
	static const promtext_labels key = { .key = "k=\"v\"" }, empty = { .key = "" };
	/* Values: safe.h's text form, then '\\' and '"' escaped; NULL is "". */
	static const struct {
		const char *suffix;
		const promtext_labels *ls;
		const char *le, *value, *text;
	} cases[] = {
		{ "", NULL, NULL, "1", "m 1\n" },
		{ "", &empty, NULL, "1", "m 1\n" },
		{ "_bucket", &empty, "+Inf", "2", "m_bucket{le=\"+Inf\"} 2\n" },
		{ "_sum", &key, NULL, "0.5", "m_sum{k=\"v\"} 0.5\n" },
		{ "_bucket", &key, "0.000001024", "3", "m_bucket{k=\"v\",le=\"0.000001024\"} 3\n" },
		{ "", &escaped, NULL, "4",
		  "m{spec=\"s\\\"\\\\\\\\\\\\x0a\\\\xff\",thread=\"\",x=\"\"} 4\n" },
		{ "_bucket", &both, "1", "5",
		  "m_bucket{k=\"v\",spec=\"s\\\"\\\\\\\\\\\\x0a\\\\xff\",le=\"1\"} 5\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *text = NULL;
		WRITTEN(text, promtext_sample(f, "m", cases[i].suffix, cases[i].ls, cases[i].le,
					      cases[i].value));
		ck_assert_str_eq(text, cases[i].text);
		free(text);
	}
}
END_TEST

START_TEST(test_le_layout)
{
	ck_assert_uint_eq(PROMTEXT_LE_N(1), 26);
	ck_assert_uint_eq(PROMTEXT_LE_N(8), 201);
	ck_assert_uint_eq(promtext_le_ns(1, 0), 1024);
	ck_assert_uint_eq(promtext_le_ns(1, 25), 1ull << 35);
	ck_assert_uint_eq(promtext_le_ns(8, 1), 1152);
	ck_assert_uint_eq(promtext_le_ns(8, 8), 2048);
	ck_assert_uint_eq(promtext_le_ns(8, 200), 1ull << 35);
	/* Every bound of one step per power of two is one of eight's. */
	for (size_t i = 0; i < PROMTEXT_LE_N(1); i++)
		ck_assert_uint_eq(promtext_le_ns(1, i), promtext_le_ns(8, 8 * i));
	/* A bucket ending at HI counts at the first bound >= HI. */
	static const unsigned steps[] = { 1, 2, 4, 8 };
	static const uint64_t his[] = { 0,	   1,	      1024,	  1025,	    1152,
					1153,	   2047,      2048,	  2049,	    3670017,
					1ull << 34, (1ull << 35) - 1, 1ull << 35, (1ull << 35) + 1,
					UINT64_MAX };
	for (size_t s = 0; s < 4; s++)
		for (size_t h = 0; h < sizeof his / sizeof his[0]; h++) {
			int want = -1;
			for (size_t i = 0; i < PROMTEXT_LE_N(steps[s]) && want < 0; i++)
				if (his[h] <= promtext_le_ns(steps[s], i))
					want = (int)i;
			ck_assert_int_eq(promtext_le_index(steps[s], his[h]), want);
		}
	promtext_le le;
	promtext_le_init(&le, 1);
	ck_assert_uint_eq(le.n, 26);
	ck_assert_str_eq(le.text[0], "0.000001024");
	ck_assert_str_eq(le.text[12], "0.004194304");
	ck_assert_str_eq(le.text[25], "34.359738368");
	promtext_le_init(&le, 8);
	ck_assert_uint_eq(le.n, 201);
	ck_assert_str_eq(le.text[1], "0.000001152");
	ck_assert_str_eq(le.text[200], "34.359738368");
	promtext_le_init(&le, 16);
	ck_assert_uint_eq(le.n, 0);
}
END_TEST

START_TEST(test_histogram)
{
	char *text = NULL;
	promtext_le le;
	uint64_t cum[PROMTEXT_LE_N(1)] = { 0 };
	promtext_label pair = { "probe", "p" };
	promtext_labels ls = { .pairs = &pair, .n = 1 };

	promtext_le_init(&le, 1);
	for (size_t i = 2; i < le.n; i++)
		cum[i] = 5;
	WRITTEN(text, promtext_histogram(f, "h_seconds", &ls, &le, cum, 6, "0.25"));
	ck_assert_contains(text, "h_seconds_bucket{probe=\"p\",le=\"0.000001024\"} 0\n"
				 "h_seconds_bucket{probe=\"p\",le=\"0.000002048\"} 0\n"
				 "h_seconds_bucket{probe=\"p\",le=\"0.000004096\"} 5\n");
	const char *end = "h_seconds_bucket{probe=\"p\",le=\"34.359738368\"} 5\n"
			  "h_seconds_bucket{probe=\"p\",le=\"+Inf\"} 6\n"
			  "h_seconds_sum{probe=\"p\"} 0.25\n"
			  "h_seconds_count{probe=\"p\"} 6\n";
	ck_assert_str_eq(text + strlen(text) - strlen(end), end);
	ck_assert_uint_eq(count_of(text, "\n"), 29);
	free(text);
	WRITTEN(text, promtext_histogram(f, "h", NULL, &le, cum, 0, "0"));
	ck_assert_contains(text, "h_bucket{le=\"+Inf\"} 0\nh_sum 0\nh_count 0\n");
	free(text);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("promtext");
	TCase *tc = tcase_create("promtext");
	tcase_add_test(tc, test_seconds);
	tcase_add_test(tc, test_u64_and_gauge);
	tcase_add_test(tc, test_header);
	tcase_add_test(tc, test_sample);
	tcase_add_test(tc, test_le_layout);
	tcase_add_test(tc, test_histogram);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
