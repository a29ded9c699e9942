/* Unit tests for debuginfo (CRC32, debug file search and matching, where
 * bpftrace looks) and for symtab's debuglink parser and C++ name matching. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/debuginfo.h"
#include "target/symtab.h"

static char tmpdir[] = "/tmp/test_debuginfo.XXXXXX";

static void setup_tmp(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void teardown_tmp(void)
{
	debuginfo_clear_dirs();
	/* Only the directory this fixture made, depth first. */
	ck_assert_int_eq(nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
	strcpy(tmpdir, "/tmp/test_debuginfo.XXXXXX");
}

/* Writes LEN bytes of DATA to TMPDIR/NAME (directories made); returns the
 * owned path. */
static char *put_file(const char *name, const void *data, size_t len)
{
	char *path, *slash;
	FILE *f;

	ck_assert_int_ge(asprintf(&path, "%s/%s", tmpdir, name), 0);
	for (slash = strchr(path + strlen(tmpdir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

/* Copies this test binary (a real ELF file with a build id) to NAME:
 * read whole at once (a sanitizer build of it is tens of MB). */
static char *put_self(const char *name)
{
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int fd = open("/proc/self/exe", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	char *data = malloc((size_t)st.st_size);
	ck_assert_ptr_nonnull(data);
	while (len < (size_t)st.st_size && (n = read(fd, data + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	close(fd);
	ck_assert_uint_eq(len, (size_t)st.st_size);
	char *path = put_file(name, data, len);
	free(data);
	return path;
}

START_TEST(test_crc32)
{
	uint32_t crc = 1;
	char *p = put_file("check.txt", "123456789", 9);

	ck_assert_int_eq(debuginfo_file_crc(p, &crc), 0);
	ck_assert_uint_eq(crc, 0xcbf43926u);	/* the CRC-32 check value */
	free(p);
	p = put_file("empty", "", 0);
	ck_assert_int_eq(debuginfo_file_crc(p, &crc), 0);
	ck_assert_uint_eq(crc, 0);
	free(p);
	ck_assert_int_eq(debuginfo_file_crc("/nonexistent/x", &crc), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(debuginfo_file_crc(tmpdir, &crc), -1);
}
END_TEST

START_TEST(test_parse_debuglink)
{
	static const struct {
		const char *what;
		const char *data;
		size_t size;
		bool big_endian;
		int rc;
		const char *name;
		uint32_t crc;
	} rows[] = {
		{ "padded to 4", "lib.so.debug\0\0\0\0\x49\xce\x61\x32", 20, false, 0,
		  "lib.so.debug", 0x3261ce49u },
		{ "big-endian", "ab\0\0\x32\x61\xce\x49", 8, true, 0, "ab", 0x3261ce49u },
		{ "name of 3: no padding", "abc\0\x01\0\0\0", 8, false, 0, "abc", 1 },
		{ "no CRC room", "abc\0\x01\0\0", 7, false, -1, NULL, 0 },
		{ "no NUL", "abcdefgh", 8, false, -1, NULL, 0 },
		{ "empty name", "\0\0\0\0\1\0\0\0", 8, false, -1, NULL, 0 },
		{ "a slash", "../x\0\0\0\0\1\0\0\0", 12, false, -1, NULL, 0 },
		{ "empty section", "", 0, false, -1, NULL, 0 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		char name[64] = "";
		uint32_t crc = 0;
		int rc = symtab_parse_debuglink(rows[i].data, rows[i].size, rows[i].big_endian,
						name, sizeof name, &crc);

		ck_assert_msg(rc == rows[i].rc, "%s: rc %d", rows[i].what, rc);
		if (rc == 0) {
			ck_assert_str_eq(name, rows[i].name);
			ck_assert_uint_eq(crc, rows[i].crc);
		}
	}
	/* A name longer than the caller's buffer is refused, not cut. */
	char small[4];
	uint32_t crc;
	ck_assert_int_eq(symtab_parse_debuglink("abcd\0\0\0\0\1\0\0\0", 12, false, small,
						sizeof small, &crc), -1);
}
END_TEST

START_TEST(test_demangled_is)
{
	static const struct {
		const char *demangled, *name;
		bool is;
	} rows[] = {
		{ "a::b::f(int)", "a::b::f", true },
		{ "a::b::f", "a::b::f", true },
		{ "a::b::f(int) const", "a::b::f", true },
		{ "a::b::f(int) [clone .isra.0]", "a::b::f", true },
		{ "a::b::fg(int)", "a::b::f", false },
		{ "a::b::f<int>(int)", "a::b::f", false },
		{ "x::a::b::f()", "a::b::f", false },
		{ "a::b::f::g()", "a::b::f", false },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		ck_assert_msg(symtab_demangled_is(rows[i].demangled, rows[i].name) == rows[i].is,
			      "%s vs %s", rows[i].demangled, rows[i].name);
}
END_TEST

START_TEST(test_demangle)
{
	char *d = symtab_demangle("_ZN4shop7billing6Ledger4PostEl");

	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d, "shop::billing::Ledger::Post(long)");
	free(d);
	ck_assert_ptr_null(symtab_demangle("main"));
	ck_assert_ptr_null(symtab_demangle("_Z"));
	ck_assert_ptr_null(symtab_demangle("_Zgarbage!"));
}
END_TEST

/* std:: mangles as "St": the piece filter must not demand "3std". */
START_TEST(test_cxx_std_in_libstdcxx)
{
	const char *lib = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
	symtab_query q[] = { { .name = "std::terminate" }, { .name = "_ZSt9terminatev" },
			     { .name = "std::no_such_function_here" } };
	char err[200];

	if (access(lib, R_OK) != 0)
		return;
	ck_assert_int_eq(symtab_resolve(lib, q, 3, NULL, err, sizeof err), 0);
	ck_assert_uint_ge(q[0].n_matches, 1);
	ck_assert_uint_eq(q[0].matches[0].addr, q[1].matches[0].addr);
	ck_assert_uint_eq(q[2].n_matches, 0);
	symtab_query_free(q, 3);
}
END_TEST

/* On node: the C++ name finds the one address of its mangled symbol. */
START_TEST(test_cxx_node)
{
	symtab_query q[] = {
		{ .name = "v8::internal::Heap::CollectGarbage" },
		{ .name = "_ZN2v88internal4Heap14CollectGarbageENS0_15AllocationSpaceENS0_23"
			  "GarbageCollectionReasonENS_15GCCallbackFlagsE" },
		{ .name = "v8::internal::Heap::CollectGarbag" },
	};
	char err[200];

	if (access("/usr/bin/node", R_OK) != 0)
		return;
	ck_assert_int_eq(symtab_resolve("/usr/bin/node", q, 3, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(q[1].n_matches, 1);
	ck_assert_uint_eq(q[0].n_matches, 1);
	ck_assert_uint_ge(q[0].n_names, 1);
	ck_assert_uint_eq(q[0].matches[0].addr, q[1].matches[0].addr);
	ck_assert_uint_eq(q[2].n_matches, 0);
	symtab_query_free(q, 3);
}
END_TEST

/* A fake object whose debuglink names a copy of this binary. */
START_TEST(test_find_by_debuglink)
{
	char *obj = put_file("lib/libx.so", "not elf", 7);
	char *dbg = put_self("lib/.debug/libx.so.debug");
	symtab_info info = { .is_elf = true };
	char *tried = NULL, *found;

	strcpy(info.debuglink, "libx.so.debug");
	ck_assert_int_eq(debuginfo_file_crc(dbg, &info.debuglink_crc), 0);
	found = debuginfo_find(obj, &info, &tried);
	ck_assert_ptr_nonnull(found);
	ck_assert_str_eq(found, dbg);
	/* Tried first: beside the object. */
	ck_assert_ptr_nonnull(tried);
	ck_assert_ptr_nonnull(strstr(tried, "/lib/libx.so.debug (no such file)"));
	free(found);
	free(tried);

	info.debuglink_crc ^= 1;	/* another build's CRC */
	found = debuginfo_find(obj, &info, &tried);
	ck_assert_ptr_null(found);
	ck_assert_ptr_nonnull(strstr(tried, ".debug/libx.so.debug (does not match: CRC32 "));
	free(tried);
	free(obj);
	free(dbg);
}
END_TEST

/* A --debug-dir with a build-id tree; a wrong build id is named. */
START_TEST(test_find_by_build_id)
{
	symtab_info self, info = { .is_elf = true };
	char err[200], name[400], dir[64], *tried = NULL, *found, *dbg, *obj;

	ck_assert_int_eq(symtab_resolve("/proc/self/exe", NULL, 0, &self, err, sizeof err), 0);
	ck_assert_uint_eq(strlen(self.build_id), 40);
	snprintf(name, sizeof name, "dbg/.build-id/%.2s/%s.debug", self.build_id, self.build_id + 2);
	dbg = put_self(name);
	obj = put_file("bin/app", "x", 1);
	snprintf(dir, sizeof dir, "%s/dbg", tmpdir);
	ck_assert_int_eq(debuginfo_add_dir(dir), 0);

	strcpy(info.build_id, self.build_id);
	found = debuginfo_find(obj, &info, &tried);
	ck_assert_ptr_nonnull(found);
	ck_assert_str_eq(found, dbg);
	ck_assert_ptr_null(tried);	/* the first candidate matched */
	free(found);

	/* The same file under another object's build id does not match. */
	char other[41];
	memset(other, 'a', 40);
	other[40] = '\0';
	memcpy(other, self.build_id, 2);	/* same directory, other name */
	snprintf(name, sizeof name, "dbg/.build-id/%.2s/%s.debug", other, other + 2);
	free(put_self(name));
	strcpy(info.build_id, other);
	found = debuginfo_find(obj, &info, &tried);
	ck_assert_ptr_null(found);
	ck_assert_ptr_nonnull(strstr(tried, "(does not match: build id "));
	ck_assert_ptr_nonnull(strstr(tried, ", the object has "));
	ck_assert_ptr_nonnull(strstr(tried, "aaaaaaaaaaaa)"));
	free(tried);
	free(dbg);
	free(obj);
}
END_TEST

/* An object seen through /proc/PID/root: that root first, then the host. */
START_TEST(test_container_root_first)
{
	symtab_info info = { .is_elf = true };
	char *tried = NULL;
	const char *id = "abcdef0123456789abcdef0123456789abcdef01";

	strcpy(info.build_id, id);
	strcpy(info.debuglink, "libz.so.debug");
	ck_assert_ptr_null(debuginfo_find("/proc/999999999/root/usr/lib/libz.so", &info, &tried));
	ck_assert_ptr_nonnull(tried);
	const char *in_root = strstr(tried, "/proc/999999999/root/usr/lib/debug/.build-id/ab/"
					    "cdef0123456789abcdef0123456789abcdef01.debug (no such file)");
	const char *root_link = strstr(tried, "/proc/999999999/root/usr/lib/debug/usr/lib/libz.so.debug");
	const char *on_host = strstr(tried, ", /usr/lib/debug/.build-id/ab/"
					    "cdef0123456789abcdef0123456789abcdef01.debug (no such file)");
	const char *host_link = strstr(tried, ", /usr/lib/debug/usr/lib/libz.so.debug (no such file)");
	ck_assert_ptr_nonnull(in_root);
	ck_assert_ptr_nonnull(root_link);
	ck_assert_ptr_nonnull(on_host);
	ck_assert_ptr_nonnull(host_link);
	ck_assert(in_root < on_host);
	free(tried);

	/* Neither a build id nor a debuglink: nothing to look for. */
	symtab_info bare = { .is_elf = true };
	ck_assert_ptr_null(debuginfo_find("/usr/lib/libz.so", &bare, &tried));
	ck_assert_ptr_null(tried);
}
END_TEST

START_TEST(test_tracer_sees)
{
	symtab_info info = { .is_elf = true };
	const char *id = "abcdef0123456789abcdef0123456789abcdef01";

	strcpy(info.build_id, id);
	strcpy(info.debuglink, "libz.so.debug");
	ck_assert(debuginfo_tracer_sees("/usr/lib/libz.so", &info,
		"/usr/lib/debug/.build-id/ab/cdef0123456789abcdef0123456789abcdef01.debug"));
	ck_assert(debuginfo_tracer_sees("/usr/lib/libz.so", &info, "/usr/lib/libz.so.debug"));
	ck_assert(debuginfo_tracer_sees("/usr/lib/libz.so", &info, "/usr/lib/.debug/libz.so.debug"));
	ck_assert(debuginfo_tracer_sees("/usr/lib/libz.so", &info,
					"/usr/lib/debug/usr/lib/libz.so.debug"));
	ck_assert(!debuginfo_tracer_sees("/usr/lib/libz.so", &info, "/opt/dbg/libz.so.debug"));
	ck_assert(!debuginfo_tracer_sees("/proc/5/root/usr/lib/libz.so", &info,
		"/proc/5/root/usr/lib/debug/.build-id/ab/cdef0123456789abcdef0123456789abcdef01.debug"));
}
END_TEST

START_TEST(test_install_hint)
{
	symtab_info info = { .is_elf = true };
	char hint[512];

	strcpy(info.build_id, "abcdef0123456789abcdef0123456789abcdef01");
	debuginfo_install_hint("/usr/lib/libz.so", &info, hint, sizeof hint);
	ck_assert_str_eq(hint, "install the debug symbols of the package that ships "
			       "/usr/lib/libz.so (PKG-dbgsym on Debian), which puts its debug "
			       "file at /usr/lib/debug/.build-id/ab/"
			       "cdef0123456789abcdef0123456789abcdef01.debug; or pass "
			       "--debug-dir DIR where its debug file is");
}
END_TEST

static Suite *debuginfo_suite(void)
{
	Suite *s = suite_create("debuginfo");
	TCase *names = tcase_create("names");
	TCase *files = tcase_create("files");

	tcase_set_timeout(names, 30);
	tcase_add_test(names, test_parse_debuglink);
	tcase_add_test(names, test_demangled_is);
	tcase_add_test(names, test_demangle);
	tcase_add_test(names, test_cxx_std_in_libstdcxx);
	tcase_add_test(names, test_cxx_node);
	tcase_add_test(names, test_tracer_sees);
	tcase_add_test(names, test_install_hint);
	suite_add_tcase(s, names);

	tcase_set_timeout(files, 30);
	tcase_add_checked_fixture(files, setup_tmp, teardown_tmp);
	tcase_add_test(files, test_crc32);
	tcase_add_test(files, test_find_by_debuglink);
	tcase_add_test(files, test_find_by_build_id);
	tcase_add_test(files, test_container_root_first);
	suite_add_tcase(s, files);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(debuginfo_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
