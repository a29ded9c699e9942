/* Unit tests for units.c: the one table of time units. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "util/units.h"

START_TEST(test_names_and_sizes)
{
	static const struct {
		time_unit u;
		const char *name;
		uint64_t ns;
	} cases[] = { { UNIT_NS, "ns", 1 },	       { UNIT_US, "us", 1000 },
		      { UNIT_MS, "ms", 1000000 },     { UNIT_S, "s", 1000000000 },
		      { UNIT_AUTO, "auto", 1000 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_str_eq(unit_name(cases[i].u), cases[i].name);
		ck_assert_uint_eq(unit_ns(cases[i].u), cases[i].ns);
	}
	ck_assert_str_eq(unit_name((time_unit)99), "?");
	ck_assert_ptr_null(unit_names[UNIT_AUTO + 1]);
}
END_TEST

START_TEST(test_lookup)
{
	time_unit u = UNIT_AUTO;
	ck_assert_int_eq(unit_lookup("ms", 2, &u), 0);
	ck_assert_int_eq(u, UNIT_MS);
	ck_assert_int_eq(unit_lookup("s", 1, &u), 0);
	ck_assert_int_eq(u, UNIT_S);
	ck_assert_int_eq(unit_lookup("msec", 2, &u), 0);	/* by length: "ms" */
	ck_assert_int_eq(unit_lookup("msec", 4, &u), -1);
	ck_assert_int_eq(unit_lookup("auto", 4, &u), -1);	/* a spec's choice, not a unit */
	ck_assert_int_eq(unit_lookup("", 0, &u), -1);
	ck_assert_int_eq(unit_lookup("m", 1, &u), -1);
}
END_TEST

START_TEST(test_unit_for)
{
	ck_assert_int_eq(unit_for(0), UNIT_NS);
	ck_assert_int_eq(unit_for(999), UNIT_NS);
	ck_assert_int_eq(unit_for(1000), UNIT_US);
	ck_assert_int_eq(unit_for(999999), UNIT_US);
	ck_assert_int_eq(unit_for(47968000), UNIT_MS);
	ck_assert_int_eq(unit_for(1000000000), UNIT_S);
	ck_assert_int_eq(unit_for(UINT64_MAX), UNIT_S);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("units");
	tcase_add_test(tc, test_names_and_sizes);
	tcase_add_test(tc, test_lookup);
	tcase_add_test(tc, test_unit_for);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
