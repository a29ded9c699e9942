/* Unit tests for lazylib.c: libraries loaded on first use, and the
 * errors that name the library and its package. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "util/lazylib.h"
#include "util/lazylib_mhd.h"

START_TEST(test_open_errors)
{
	static const char *const zlib_names[] = { "crc32", "bpfspec_no_such_function" };
	void *slots[2] = { (void *)1, (void *)1 };
	char err[256];

	ck_assert_int_eq(lazylib_open("libbpfspec-absent.so.9", "bpfspec-absent", zlib_names,
				      slots, 1, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "cannot load libbpfspec-absent.so.9 ("), "%s", err);
	ck_assert_msg(strstr(err, "apt-get install bpfspec-absent"), "%s", err);

	ck_assert_int_eq(lazylib_open("libz.so.1", "zlib1g", zlib_names, slots, 2, err,
				      sizeof err), -1);
	ck_assert_msg(strstr(err, "libz.so.1 has no bpfspec_no_such_function"), "%s", err);
	ck_assert_ptr_null(slots[0]);	/* nothing half-resolved is left */
	ck_assert_ptr_null(slots[1]);

	ck_assert_int_eq(lazylib_open("libz.so.1", "zlib1g", zlib_names, slots, 1, err,
				      sizeof err), 0);
	ck_assert_ptr_nonnull(slots[0]);
}
END_TEST

/* Each loader's table is whole, and the same on every call. */
START_TEST(test_loaders)
{
	char err[256];
	const lazylib_mhd *mhd = lazylib_mhd_load(err, sizeof err);
	ck_assert_msg(mhd != NULL, "%s", err);
	ck_assert_ptr_eq(lazylib_mhd_load(err, sizeof err), mhd);
	void *const *fn = (void *const *)mhd;
	for (size_t i = 0; i < sizeof *mhd / sizeof(void *); i++)
		ck_assert_ptr_nonnull(fn[i]);
	ck_assert_int_eq(mhd->is_feature_supported(MHD_FEATURE_MESSAGES), MHD_YES);

	lazylib_crypt_fn *crypt_fn = lazylib_crypt_load(err, sizeof err);
	ck_assert_msg(crypt_fn != NULL, "%s", err);
	struct crypt_data *cd = calloc(1, sizeof *cd);
	ck_assert_ptr_nonnull(cd);
	/* A bcrypt hash made with it checks its password, and no other. */
	const char *made = crypt_fn("bpfspec", "$2b$04$abcdefghijklmnopqrstuu", cd);
	ck_assert_ptr_nonnull(made);
	ck_assert_uint_eq(strlen(made), 60);
	char hash[61];
	strcpy(hash, made);
	ck_assert_str_eq(crypt_fn("bpfspec", hash, cd), hash);
	ck_assert_str_ne(crypt_fn("bpfspeC", hash, cd), hash);
	free(cd);

	lazylib_demangle_fn *demangle = lazylib_demangle_load(err, sizeof err);
	ck_assert_msg(demangle != NULL, "%s", err);
	int status = -1;
	char *name = demangle("_ZN2v88internal4Heap2GCEv", NULL, NULL, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_str_eq(name, "v8::internal::Heap::GC()");
	free(name);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lazylib");
	TCase *tc = tcase_create("lazylib");
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_loaders);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
