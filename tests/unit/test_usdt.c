/* Unit tests for usdt.c: the USDT notes of real files.  libstdc++ (mapped
 * into this test by the demangler's loader) has libstdcxx:throw, :rethrow
 * and :catch, two 8-byte arguments each. */
#include <check.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/usdt.h"
#include "util/lazylib.h"

static int find_libstdcxx(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libstdc++.so")) {
		snprintf(data, 4096, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

START_TEST(test_list_libstdcxx)
{
	char path[4096] = "";
	usdt_probe *p;
	size_t n;
	char err[256];

	ck_assert_msg(lazylib_demangle_load(err, sizeof err), "%s", err);
	dl_iterate_phdr(find_libstdcxx, path);
	ck_assert_msg(path[0], "libstdc++ is not mapped into the test");
	ck_assert_int_eq(usdt_list(path, &p, &n, err, sizeof err), 0);
	ck_assert_uint_ge(n, 3);
	for (size_t i = 1; i < n; i++)	/* sorted by provider, then name */
		ck_assert_int_le(strcmp(p[i - 1].provider, p[i].provider), 0);
	const usdt_probe *u = usdt_find(p, n, "libstdcxx", "throw");
	ck_assert_ptr_nonnull(u);
	ck_assert_uint_ge(u->n_locations, 1);
	ck_assert_int_eq(u->n_args, 2);
	ck_assert_int_eq(u->args[0].size, 8);
	ck_assert_int_eq(u->args[1].size, 8);
	ck_assert_ptr_nonnull(usdt_find(p, n, "libstdcxx", "catch"));
	ck_assert_ptr_null(usdt_find(p, n, "libstdcxx", "thro"));
	ck_assert_ptr_null(usdt_find(p, n, "libstdc", "throw"));
	usdt_list_free(p, n);
}
END_TEST

START_TEST(test_errors)
{
	usdt_probe *p = (usdt_probe *)1;
	size_t n = 7;
	char err[256];

	ck_assert_int_eq(usdt_list("/bin/sh", &p, &n, err, sizeof err), USDT_NONE);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(n, 0);
	ck_assert_msg(strstr(err, "/bin/sh has no USDT probes"), "%s", err);
	ck_assert_int_eq(usdt_list("/etc/passwd", &p, &n, err, sizeof err), USDT_ERROR);
	ck_assert_msg(strstr(err, "/etc/passwd: not an ELF file"), "%s", err);
	ck_assert_int_eq(usdt_list("/nonexistent/x", &p, &n, err, sizeof err), USDT_ERROR);
	ck_assert_msg(strstr(err, "/nonexistent/x: cannot open: No such file"), "%s", err);
	ck_assert_int_eq(usdt_list("/", &p, &n, err, sizeof err), USDT_ERROR);
	usdt_list_free(NULL, 0);
}
END_TEST

static Suite *usdt_suite(void)
{
	Suite *s = suite_create("usdt");
	TCase *tc = tcase_create("list");

	tcase_add_test(tc, test_list_libstdcxx);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(usdt_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
