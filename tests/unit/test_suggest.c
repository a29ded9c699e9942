/* Unit tests for suggest.c: the distance behind every "did you mean". */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "util/suggest.h"

START_TEST(test_known_distances)
{
	static const struct {
		const char *a, *b;
		size_t d;
	} cases[] = {
		{ "", "", 0 },		   { "openat", "openat", 0 }, { "opnat", "openat", 1 },
		{ "oepnat", "openat", 1 }, /* a swap is one edit */
		{ "openta", "openat", 1 }, { "", "read", 4 },	      { "read", "", 4 },
		{ "kitten", "sitting", 3 }, { "timers", "timres", 1 }, { "ab", "ba", 1 },
		{ "abc", "ca", 3 },	   /* OSA, not unrestricted Damerau */
		{ "latency", "latnecy", 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t d = suggest_distance_str(cases[i].a, cases[i].b);
		ck_assert_msg(d == cases[i].d, "'%s' vs '%s': %zu, expected %zu", cases[i].a,
			      cases[i].b, d, cases[i].d);
		/* Symmetric. */
		ck_assert_uint_eq(suggest_distance_str(cases[i].b, cases[i].a), d);
	}
}
END_TEST

/* A prefix of a longer text is compared by its length, not up to a NUL. */
START_TEST(test_lengths_not_nul)
{
	ck_assert_uint_eq(suggest_distance("openat,read", 6, "openat", 6), 0);
	ck_assert_uint_eq(suggest_distance("openat,read", 4, "openat", 6), 2);
}
END_TEST

/* Past SUGGEST_MAX_LEN, a word is far from everything; at it, still measured. */
START_TEST(test_long_words)
{
	char a[SUGGEST_MAX_LEN + 2], b[SUGGEST_MAX_LEN + 2];
	memset(a, 'x', sizeof a);
	memset(b, 'x', sizeof b);
	a[SUGGEST_MAX_LEN] = b[SUGGEST_MAX_LEN] = '\0';
	b[0] = 'y';
	ck_assert_uint_eq(suggest_distance_str(a, b), 1);
	a[SUGGEST_MAX_LEN] = 'x';
	a[SUGGEST_MAX_LEN + 1] = '\0';
	ck_assert_uint_eq(suggest_distance_str(a, b), SUGGEST_FAR);
	ck_assert_uint_eq(suggest_distance_str(b, a), SUGGEST_FAR);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("suggest");
	TCase *tc = tcase_create("distance");
	tcase_add_test(tc, test_known_distances);
	tcase_add_test(tc, test_lengths_not_nul);
	tcase_add_test(tc, test_long_words);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
