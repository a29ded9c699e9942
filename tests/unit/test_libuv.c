/* Unit tests for libuv (decoding uv_version_string and uv_version) and
 * for `bpfspec symbols`' name filter. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/symbols.h"
#include "target/libuv.h"

START_TEST(test_decode_string_fn)
{
	/* lea rax,[rip+0x16901]; ret — at 0xef70 the string is at 0x25878. */
	static const unsigned char lea[] = { 0x48, 0x8d, 0x05, 0x01, 0x69, 0x01, 0x00, 0xc3 };
	/* endbr64; lea rax,[rip-0x10]; ret */
	static const unsigned char cet[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x8d, 0x05,
					     0xf0, 0xff, 0xff, 0xff, 0xc3 };
	/* mov eax,0x2ce582f; ret (non-PIE executable) */
	static const unsigned char mov[] = { 0xb8, 0x2f, 0x58, 0xce, 0x02, 0xc3 };
	/* push rbp: another shape */
	static const unsigned char other[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x8d, 0x05, 0, 0, 0, 0 };
	unsigned long long str = 0;

	ck_assert_int_eq(libuv_decode_string_fn(lea, sizeof lea, 0xef70, &str), 0);
	ck_assert_uint_eq(str, 0x25878);
	ck_assert_int_eq(libuv_decode_string_fn(cet, sizeof cet, 0x1000, &str), 0);
	ck_assert_uint_eq(str, 0x1000 + 4 + 7 - 0x10);
	ck_assert_int_eq(libuv_decode_string_fn(mov, sizeof mov, 0x18aba80, &str), 0);
	ck_assert_uint_eq(str, 0x2ce582f);
	ck_assert_int_eq(libuv_decode_string_fn(other, sizeof other, 0, &str), -1);
	ck_assert_int_eq(libuv_decode_string_fn(lea, 5, 0, &str), -1);	/* cut short */

	/* With a frame pointer (node 26): push rbp; mov rbp,rsp; mov
	 * eax,0x3feeefb; pop rbp; ret — and the same with lea. */
	static const unsigned char framed_mov[] = { 0x55, 0x48, 0x89, 0xe5, 0xb8, 0xfb, 0xee,
						    0xfe, 0x03, 0x5d, 0xc3 };
	static const unsigned char framed_lea[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5,
						    0x48, 0x8d, 0x05, 0x10, 0x00, 0x00, 0x00,
						    0x5d, 0xc3 };
	/* A frame set up but a bare ret: not a shape this reads. */
	static const unsigned char unbalanced[] = { 0x55, 0x48, 0x89, 0xe5, 0xb8, 0xfb, 0xee,
						    0xfe, 0x03, 0xc3 };
	ck_assert_int_eq(libuv_decode_string_fn(framed_mov, sizeof framed_mov, 0x1a0f740, &str), 0);
	ck_assert_uint_eq(str, 0x3feeefb);
	ck_assert_int_eq(libuv_decode_string_fn(framed_lea, sizeof framed_lea, 0x2000, &str), 0);
	ck_assert_uint_eq(str, 0x2000 + 8 + 7 + 0x10);
	ck_assert_int_eq(libuv_decode_string_fn(unbalanced, sizeof unbalanced, 0, &str), -1);
	ck_assert_int_eq(libuv_decode_string_fn(framed_mov, sizeof framed_mov - 1, 0, &str), -1);
}
END_TEST

START_TEST(test_decode_version_fn)
{
	static const unsigned char v146[] = { 0xb8, 0x00, 0x2e, 0x01, 0x00, 0xc3 };
	static const unsigned char cet[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xb8, 0x02, 0x2c, 0x01, 0x00, 0xc3 };
	static const unsigned char big[] = { 0xb8, 0x00, 0x00, 0x00, 0x01, 0xc3 };
	char out[32];

	ck_assert_int_eq(libuv_decode_version_fn(v146, sizeof v146, out, sizeof out), 0);
	ck_assert_str_eq(out, "1.46.0");
	ck_assert_int_eq(libuv_decode_version_fn(cet, sizeof cet, out, sizeof out), 0);
	ck_assert_str_eq(out, "1.44.2");
	ck_assert_int_eq(libuv_decode_version_fn(big, sizeof big, out, sizeof out), -1);
	ck_assert_int_eq(libuv_decode_version_fn(v146, 5, out, sizeof out), -1);
	/* push rbp; mov rbp,rsp; mov eax,0x013401; pop rbp; ret */
	static const unsigned char framed[] = { 0x55, 0x48, 0x89, 0xe5, 0xb8, 0x01, 0x34,
						0x01, 0x00, 0x5d, 0xc3 };
	ck_assert_int_eq(libuv_decode_version_fn(framed, sizeof framed, out, sizeof out), 0);
	ck_assert_str_eq(out, "1.52.1");
}
END_TEST

/* Real files: node's libuv, and a file without libuv. */
START_TEST(test_files)
{
	char out[64] = "x";

	ck_assert_int_eq(libuv_version("/proc/self/exe", out, sizeof out), -1);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(libuv_version("/nonexistent", out, sizeof out), -1);
	if (access("/usr/bin/node", R_OK) == 0) {
		ck_assert_int_eq(libuv_version("/usr/bin/node", out, sizeof out), 0);
		ck_assert_msg(strncmp(out, "1.", 2) == 0, "node's libuv: '%s'", out);
	}
}
END_TEST

START_TEST(test_symbols_name_matches)
{
	static const struct {
		const char *glob, *name, *demangled;
		bool match;
	} rows[] = {
		{ NULL, "anything", NULL, true },
		{ "uv__run_*", "uv__run_timers", NULL, true },
		{ "uv__run_*", "uv__io_poll", NULL, false },
		{ "_ZN4shop*", "_ZN4shop7billing6Ledger4PostEl", "shop::billing::Ledger::Post(long)", true },
		{ "shop::billing::Ledger::Post", "_ZN4shop7billing6Ledger4PostEl",
		  "shop::billing::Ledger::Post(long)", true },
		{ "shop::*::Post(long)", "_ZN4shop7billing6Ledger4PostEl",
		  "shop::billing::Ledger::Post(long)", true },
		{ "shop::billing::Ledger::Pos", "_ZN4shop7billing6Ledger4PostEl",
		  "shop::billing::Ledger::Post(long)", false },
		{ "*::Post", "main", NULL, false },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		ck_assert_msg(symbols_name_matches(rows[i].glob, rows[i].name, rows[i].demangled) ==
				      rows[i].match,
			      "row %zu", i);
}
END_TEST

static Suite *libuv_suite(void)
{
	Suite *s = suite_create("libuv");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_decode_string_fn);
	tcase_add_test(tc, test_decode_version_fn);
	tcase_add_test(tc, test_files);
	tcase_add_test(tc, test_symbols_name_matches);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(libuv_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
