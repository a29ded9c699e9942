/* Unit tests for libuv (decoding uv_version_string and uv_version), for
 * the thread pool's size (libuv_pool, on a fabricated /proc) and for
 * `bpfspec symbols`' name filter. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "cmd/symbols.h"
#include "target/libuv.h"
#include "target/libuv_pool.h"

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

START_TEST(test_pool_size_of_env)
{
	ck_assert_int_eq(libuv_pool_size_of_env("2"), 2);
	ck_assert_int_eq(libuv_pool_size_of_env(" 16abc"), 16);	/* atoi: leading digits */
	ck_assert_int_eq(libuv_pool_size_of_env("0"), 1);
	ck_assert_int_eq(libuv_pool_size_of_env(""), 1);
	ck_assert_int_eq(libuv_pool_size_of_env("many"), 1);
	ck_assert_int_eq(libuv_pool_size_of_env("1024"), 1024);
	ck_assert_int_eq(libuv_pool_size_of_env("1025"), 1024);
	ck_assert_int_eq(libuv_pool_size_of_env("99999999999999999999999"), 1024);
	ck_assert_int_eq(libuv_pool_size_of_env("-3"), 1024);	/* unsigned in libuv */
	ck_assert_int_eq(libuv_pool_size_of_env("+7"), 7);
}
END_TEST

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

/* Writes LEN bytes of TEXT to DIR/NAME. */
static void put_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* Makes thread TID of process 42 under ROOT, named COMM. */
static void put_thread(const char *root, int tid, const char *comm)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/42/task/%d", root, tid);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	put_file(dir, "comm", comm, strlen(comm));
}

START_TEST(test_pool_size)
{
	char root[] = "/tmp/bpfspec-pool.XXXXXX", dir[512];
	libuv_pool_source src;
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(dir, sizeof dir, "%s/42", root);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof dir, "%s/42/task", root);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof dir, "%s/42", root);
	char exe[600];
	snprintf(exe, sizeof exe, "%s/exe", dir);
	/* Exited, not reaped: no executable. */
	ck_assert_int_eq(libuv_pool_size(root, 42, &src), -1);
	ck_assert_int_eq(symlink("/usr/bin/node", exe), 0);

	/* No environment file, no pool threads: libuv's default. */
	put_thread(root, 42, "node\n");
	ck_assert_int_eq(libuv_pool_size(root, 42, &src), 4);
	ck_assert_int_eq(src, LIBUV_POOL_DEFAULT);
	/* The environment: the first setting counts, a name that only ends
	 * with the variable's does not. */
	static const char env[] = "XUV_THREADPOOL_SIZE=9\0UV_THREADPOOL_SIZE=2\0UV_THREADPOOL_SIZE=3\0";
	put_file(dir, "environ", env, sizeof env - 1);
	ck_assert_int_eq(libuv_pool_size(root, 42, &src), 2);
	ck_assert_int_eq(src, LIBUV_POOL_ENVIRONMENT);
	/* A setting cut off at the end of the file is not read. */
	put_file(dir, "environ", "A=1\0UV_THREADPOOL_SIZE=2", 24);
	ck_assert_int_eq(libuv_pool_size(root, 42, &src), 4);
	/* Threads named libuv-worker win over the environment; a name that
	 * only begins so does not count. */
	put_file(dir, "environ", env, sizeof env - 1);
	put_thread(root, 43, "libuv-worker\n");
	put_thread(root, 44, "libuv-worker\n");
	put_thread(root, 45, "libuv-worker-x\n");
	put_thread(root, 46, "libuv-worker");
	ck_assert_int_eq(libuv_pool_size(root, 42, &src), 2);
	ck_assert_int_eq(src, LIBUV_POOL_THREADS);
	ck_assert_str_eq(libuv_pool_source_name(src), "thread names");
	/* A process that is gone. */
	ck_assert_int_eq(libuv_pool_size(root, 7, &src), -1);

	ck_assert_int_eq(nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
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
	tcase_add_test(tc, test_pool_size_of_env);
	tcase_add_test(tc, test_pool_size);
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
