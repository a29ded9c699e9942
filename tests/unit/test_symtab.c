/* Unit tests for symtab: lookups in this test binary's own tables (a
 * LOCAL function proves .symtab is read), in /usr/bin/node when present,
 * and every error path. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>

#include "target/elf_hash.h"
#include "target/symtab.h"

static volatile int probe_sink;

/* LOCAL symbol: only .symtab knows it ("used" keeps it from being dropped
 * or renamed by interprocedural optimisation). */
static __attribute__((noinline, used)) int local_probe_target(void)
{
	return probe_sink + 1;
}

/* Global function of this test binary. */
int global_probe_target(int x);
__attribute__((noinline)) int global_probe_target(int x)
{
	return x * 2 + probe_sink;
}

/* Load bias and build id of the main program, read from memory. */
struct self_info {
	uintptr_t bias;
	char build_id[41];
	int done;
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct self_info *s = data;

	(void)size;
	if (s->done++)
		return 1;	/* the first object is the main program */
	s->bias = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			const unsigned char *name = p + sizeof(*nh);
			const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= 20) {
				for (unsigned k = 0; k < nh->n_descsz; k++)
					sprintf(s->build_id + 2 * k, "%02x", desc[k]);
				return 1;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

static struct self_info self_info(void)
{
	struct self_info s;

	memset(&s, 0, sizeof(s));
	dl_iterate_phdr(phdr_cb, &s);
	return s;
}

START_TEST(test_local_and_global_in_self)
{
	symtab_query q[] = {
		{ .name = "local_probe_target" },
		{ .name = "global_probe_target" },
		{ .name = "symtab_resolve" },
		{ .name = "no_such_function_xyz" },
		{ .name = "probe_sink" },	/* a variable, not a function */
		{ .name = "" },
	};
	size_t nq = sizeof(q) / sizeof(q[0]);
	struct self_info self = self_info();
	symtab_info info;
	char err[256] = "";

	ck_assert_int_eq(symtab_resolve("/proc/self/exe", q, nq, &info, err,
					sizeof(err)), 0);
	ck_assert_msg(err[0] == '\0', "unexpected error: %s", err);
	ck_assert(info.is_elf);
	ck_assert(info.has_symtab);
	ck_assert_uint_gt(info.n_symbols, 3);

	ck_assert_uint_eq(q[0].n_matches, 1);
	ck_assert_uint_eq(q[0].matches[0].addr + self.bias,
			  (uintptr_t)&local_probe_target);
	ck_assert_uint_gt(q[0].matches[0].size, 0);
	ck_assert_uint_eq(q[1].n_matches, 1);
	ck_assert_uint_eq(q[1].matches[0].addr + self.bias,
			  (uintptr_t)&global_probe_target);
	ck_assert_uint_eq(q[2].n_matches, 1);
	ck_assert_uint_eq(q[2].matches[0].addr + self.bias,
			  (uintptr_t)&symtab_resolve);
	ck_assert_uint_eq(q[3].n_matches, 0);
	ck_assert_ptr_null(q[3].matches);
	ck_assert_uint_eq(q[4].n_matches, 0);
	ck_assert_uint_eq(q[5].n_matches, 0);

	symtab_query_free(q, nq);
	for (size_t i = 0; i < nq; i++) {
		ck_assert_ptr_null(q[i].matches);
		ck_assert_uint_eq(q[i].n_matches, 0);
	}
	ck_assert_int_eq(local_probe_target(), probe_sink + 1);
}
END_TEST

START_TEST(test_build_id_matches_memory)
{
	struct self_info self = self_info();
	symtab_info info;
	char err[256];

	ck_assert_int_eq(symtab_resolve("/proc/self/exe", NULL, 0, &info, err,
					sizeof(err)), 0);
	ck_assert_str_eq(info.build_id, self.build_id);
	for (const char *p = info.build_id; *p; p++)
		ck_assert(strchr("0123456789abcdef", *p));
}
END_TEST

START_TEST(test_same_name_twice)
{
	symtab_query q[] = {
		{ .name = "local_probe_target" },
		{ .name = "main" },
		{ .name = "local_probe_target" },
	};
	char err[256];

	ck_assert_int_eq(symtab_resolve("/proc/self/exe", q, 3, NULL, err,
					sizeof(err)), 0);
	ck_assert_uint_eq(q[0].n_matches, 1);
	ck_assert_uint_eq(q[1].n_matches, 1);
	ck_assert_uint_eq(q[2].n_matches, 1);
	ck_assert_uint_eq(q[0].matches[0].addr, q[2].matches[0].addr);
	ck_assert_ptr_ne(q[0].matches, q[2].matches);
	symtab_query_free(q, 3);
}
END_TEST

/* Many queries: the hash table grows past its first size. */
START_TEST(test_many_queries)
{
	enum { N = 300 };
	symtab_query q[N];
	char names[N][32];
	char err[256];

	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "absent_%d", i);
		q[i] = (symtab_query){ .name = names[i] };
	}
	q[N / 2].name = "local_probe_target";
	q[N - 1].name = "global_probe_target";
	ck_assert_int_eq(symtab_resolve("/proc/self/exe", q, N, NULL, err,
					sizeof(err)), 0);
	for (int i = 0; i < N; i++)
		ck_assert_uint_eq(q[i].n_matches,
				  i == N / 2 || i == N - 1 ? 1 : 0);
	symtab_query_free(q, N);
}
END_TEST

START_TEST(test_libc_dynsym)
{
	symtab_query q[] = { { .name = "malloc" }, { .name = "memcpy" } };
	symtab_info info;
	char err[256];
	const char *libc = NULL;
	const char *paths[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6",
		"/lib64/libc.so.6", "/usr/lib/libc.so.6",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], R_OK) == 0) {
			libc = paths[i];
			break;
		}
	if (!libc)
		return;
	ck_assert_int_eq(symtab_resolve(libc, q, 2, &info, err, sizeof(err)), 0);
	ck_assert(info.has_dynsym);
	ck_assert_uint_ge(q[0].n_matches, 1);
	/* memcpy is an IFUNC in glibc: it counts as a function. */
	ck_assert_uint_ge(q[1].n_matches, 1);
	for (size_t i = 1; i < q[1].n_matches; i++)
		ck_assert_uint_gt(q[1].matches[i].addr, q[1].matches[i - 1].addr);
	symtab_query_free(q, 2);
}
END_TEST

/* Node keeps .symtab: libuv's phase functions are LOCAL symbols there;
 * uv_run is GLOBAL and in .dynsym too, so it proves deduplication. */
START_TEST(test_node)
{
	symtab_query q[] = {
		{ .name = "uv__run_timers" }, { .name = "uv__run_idle" },
		{ .name = "uv__run_prepare" }, { .name = "uv__io_poll" },
		{ .name = "uv__run_check" }, { .name = "uv_run" },
		{ .name = "uv__run_closing_handles" },	/* inlined: absent */
	};
	symtab_info info;
	char err[256];

	if (access("/usr/bin/node", R_OK) != 0)
		return;
	ck_assert_int_eq(symtab_resolve("/usr/bin/node", q, 7, &info, err,
					sizeof(err)), 0);
	ck_assert(info.has_symtab);
	ck_assert(info.has_dynsym);
	ck_assert_uint_eq(strlen(info.build_id), 40);
	for (int i = 0; i < 6; i++) {
		ck_assert_msg(q[i].n_matches == 1, "%s: %zu matches", q[i].name,
			      q[i].n_matches);
		ck_assert_uint_ne(q[i].matches[0].addr, 0);
	}
	ck_assert_uint_eq(q[6].n_matches, 0);
	symtab_query_free(q, 7);
}
END_TEST

/* ---- elf_hash: the loader's table against a walk of .dynsym ---- */

typedef struct named_value {
	const char *name;
	uint64_t value;
} named_value;

static int by_name_value(const void *a, const void *b)
{
	const named_value *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->value < y->value ? -1 : x->value > y->value;
}

/* Every defined function of PATH's .dynsym is found by elf_hash_lookup,
 * at the value of a symbol of that name (versioned names repeat: memcpy
 * has two); names that are absent or only imported are not.  Returns
 * how many names were looked up. */
static size_t hash_matches_walk(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_ne(elf_version(EV_CURRENT), EV_NONE);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ck_assert_ptr_nonnull(elf);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) && (gelf_getshdr(scn, &sh), sh.sh_type != SHT_DYNSYM))
		;
	ck_assert_ptr_nonnull(scn);
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh.sh_size / sh.sh_entsize, nf = 0, imported = 0;
	named_value *funcs = calloc(n, sizeof *funcs);
	const char *import = NULL;
	ck_assert_ptr_nonnull(funcs);
	/* Plain tests in the loops: every ck_assert is a write to check's
	 * log, and node has 100,000 symbols. */
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			ck_abort_msg("%s: symbol %zu unreadable", path, i);
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		if (sym.st_shndx == SHN_UNDEF) {
			import = name;
			imported++;
		} else if (sym.st_value) {
			funcs[nf++] = (named_value){ name, sym.st_value };
		}
	}
	qsort(funcs, nf, sizeof *funcs, by_name_value);
	for (size_t i = 0; i < nf; i++) {
		uint64_t addr;
		if (elf_hash_lookup(elf, &funcs[i].name, 1, &addr) != 0)
			ck_abort_msg("%s: no .gnu.hash table read", path);
		named_value key = { funcs[i].name, addr };
		if (!bsearch(&key, funcs, nf, sizeof *funcs, by_name_value))
			ck_abort_msg("%s: %s found at 0x%llx, not the value of a symbol of that "
				     "name", path, funcs[i].name, (unsigned long long)addr);
	}
	const char *absent[] = { "bpfspec_no_such_symbol", import ? import : "" };
	uint64_t addrs[2] = { 1, 1 };
	ck_assert_int_eq(elf_hash_lookup(elf, absent, 2, addrs), 0);
	ck_assert_uint_eq(addrs[0], 0);
	/* An import of a function is in .dynsym, undefined: not found
	 * (unless the file also defines one of that name). */
	named_value key = { absent[1], addrs[1] };
	ck_assert(addrs[1] == 0 || bsearch(&key, funcs, nf, sizeof *funcs, by_name_value));
	free(funcs);
	elf_end(elf);
	close(fd);
	(void)imported;
	return nf;
}

START_TEST(test_gnu_hash_same_as_walk)
{
	/* This test binary exports no function: nothing to find. */
	ck_assert_uint_eq(hash_matches_walk("/proc/self/exe"), 0);
	ck_assert_uint_ge(hash_matches_walk("/lib/x86_64-linux-gnu/libc.so.6"), 1000);
	if (access("/usr/bin/node", R_OK) == 0) {
		ck_assert_uint_ge(hash_matches_walk("/usr/bin/node"), 10000);
		/* And libuv's version functions, which libuv.c looks up so. */
		int fd = open("/usr/bin/node", O_RDONLY | O_CLOEXEC);
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		const char *names[] = { "uv_version_string", "uv_version" };
		uint64_t addrs[2];
		ck_assert_int_eq(elf_hash_lookup(elf, names, 2, addrs), 0);
		symtab_query q[] = { { .name = names[0] }, { .name = names[1] } };
		char err[256];
		ck_assert_int_eq(symtab_resolve("/usr/bin/node", q, 2, NULL, err, sizeof err), 0);
		ck_assert_uint_eq(q[0].n_matches, 1);
		ck_assert_uint_eq(q[1].n_matches, 1);
		ck_assert_uint_eq(addrs[0], q[0].matches[0].addr);
		ck_assert_uint_eq(addrs[1], q[1].matches[0].addr);
		symtab_query_free(q, 2);
		elf_end(elf);
		close(fd);
	}
}
END_TEST

/* A damaged .gnu.hash (libc's, with each header word set to 0, to a
 * huge value, or chains that never end) is "no table" or a miss, never
 * a read past its section (the asan and valgrind passes watch). */
START_TEST(test_gnu_hash_damaged)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	int in = open(libc, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(in, 0);
	off_t size = lseek(in, 0, SEEK_END);
	unsigned char *bytes = malloc((size_t)size);
	ck_assert_ptr_nonnull(bytes);
	ck_assert_int_eq(pread(in, bytes, (size_t)size, 0), size);
	ck_assert_uint_ne(elf_version(EV_CURRENT), EV_NONE);
	Elf *elf = elf_begin(in, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) && (gelf_getshdr(scn, &sh), sh.sh_type != SHT_GNU_HASH))
		;
	ck_assert_ptr_nonnull(scn);
	uint64_t off = sh.sh_offset, len = sh.sh_size;
	elf_end(elf);
	close(in);
	static const uint32_t values[] = { 0, 1, 0x7fffffff, 0xffffffff };
	const char *names[] = { "malloc", "free", "memcpy", "bpfspec_no_such_symbol" };
	for (int word = 0; word < 5; word++) {
		for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
			char path[] = "/tmp/bpfspec-elfhash-XXXXXX";
			int fd = mkstemp(path);
			ck_assert_int_ge(fd, 0);
			unsigned char *copy = malloc((size_t)size);
			memcpy(copy, bytes, (size_t)size);
			if (word < 4) {
				memcpy(copy + off + 4 * word, &values[v], 4);
			} else {
				/* Every chain word without its end bit. */
				for (uint64_t i = 16; i + 4 <= len; i += 4)
					copy[off + i] &= 0xfe;
			}
			ck_assert_int_eq(write(fd, copy, (size_t)size), size);
			free(copy);
			Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
			ck_assert_ptr_nonnull(e);
			uint64_t addrs[4];
			int rc = elf_hash_lookup(e, names, 4, addrs);
			ck_assert(rc == 0 || rc == -1);
			ck_assert_uint_eq(addrs[3], 0);
			elf_end(e);
			close(fd);
			unlink(path);
		}
	}
	free(bytes);
}
END_TEST

/* A file without .gnu.hash (a relocatable object has no dynamic
 * symbols): "no table", every address 0. */
START_TEST(test_gnu_hash_absent)
{
	char path[] = "/tmp/bpfspec-elfhash-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	/* This test binary's own ELF header and nothing else: sections
	 * cut off, so no table can be read. */
	int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	unsigned char head[64];
	ck_assert_int_eq(read(self, head, sizeof head), (ssize_t)sizeof head);
	close(self);
	ck_assert_int_eq(write(fd, head, sizeof head), (ssize_t)sizeof head);
	ck_assert_uint_ne(elf_version(EV_CURRENT), EV_NONE);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const char *names[] = { "malloc" };
	uint64_t addr = 7;
	if (elf)
		ck_assert_int_eq(elf_hash_lookup(elf, names, 1, &addr), -1);
	ck_assert_uint_eq(addr, elf ? 0 : 7);
	if (elf)
		elf_end(elf);
	close(fd);
	unlink(path);
}
END_TEST

/* A running digest of every symbol symtab_foreach shows. */
typedef struct digest {
	uint64_t h;
	size_t n;
} digest;

static int digest_add(void *ctx, const symtab_symbol *sym)
{
	digest *d = ctx;
	for (const char *c = sym->name; *c; c++)
		d->h = (d->h ^ (unsigned char)*c) * 1099511628211ull;
	d->h = (d->h ^ sym->addr) * 1099511628211ull;
	d->h = (d->h ^ sym->size ^ ((uint64_t)sym->local << 63)) * 1099511628211ull;
	d->n++;
	return 0;
}

/* bpfspec maps native tables itself and gives their pages back a slice
 * at a time; reading through libelf must show exactly the same symbols,
 * in the same order, on this test program, libc and node. */
START_TEST(test_own_mapping_same_as_libelf)
{
	const char *paths[] = { "/proc/self/exe", "/lib/x86_64-linux-gnu/libc.so.6",
				"/usr/bin/node" };
	char err[256];

	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		digest mine = { 14695981039346656037ull, 0 }, lib = mine;
		symtab_info a, b;

		if (access(paths[i], R_OK) != 0)
			continue;
		symtab_set_own_mapping(true);
		size_t walks = symtab_own_mapping_walks();
		ck_assert_int_eq(symtab_foreach(paths[i], digest_add, &mine, &a, err, sizeof err), 0);
		ck_assert_msg(symtab_own_mapping_walks() > walks, "%s: not walked by the own mapping",
			      paths[i]);
		symtab_set_own_mapping(false);
		walks = symtab_own_mapping_walks();
		ck_assert_int_eq(symtab_foreach(paths[i], digest_add, &lib, &b, err, sizeof err), 0);
		ck_assert_uint_eq(symtab_own_mapping_walks(), walks);
		symtab_set_own_mapping(true);
		ck_assert_msg(mine.n > 100, "%s: only %zu symbols", paths[i], mine.n);
		ck_assert_msg(mine.n == lib.n && mine.h == lib.h,
			      "%s: %zu symbols mapped, %zu through libelf", paths[i], mine.n, lib.n);
		ck_assert(a.has_symtab == b.has_symtab && a.has_dynsym == b.has_dynsym);
		ck_assert_str_eq(a.build_id, b.build_id);
	}
}
END_TEST

static char tmpdir[] = "/tmp/test_symtab.XXXXXX";

static char *write_temp(const char *name, const void *data, size_t len)
{
	char *path;
	FILE *f;

	ck_assert_int_ge(asprintf(&path, "%s/%s", tmpdir, name), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

static void setup_tmp(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown_tmp(void)
{
	static const char *const files[] = { "a.txt", "empty", "trunc.elf", "hdr.elf" };

	for (size_t i = 0; i < 4; i++) {
		char p[128];

		snprintf(p, sizeof(p), "%s/%s", tmpdir, files[i]);
		unlink(p);
	}
	rmdir(tmpdir);
	strcpy(tmpdir, "/tmp/test_symtab.XXXXXX");
}

/* Each row: a path (or a file made for it) and the exact message. */
START_TEST(test_errors)
{
	static const char text[] = "#!/bin/sh\necho not an elf file\n";
	char *txt = write_temp("a.txt", text, sizeof(text) - 1);
	char *empty = write_temp("empty", "", 0);
	struct {
		const char *path;
		const char *msg;
	} rows[] = {
		{ "/nonexistent/dir/file", "cannot open: No such file or directory" },
		{ "/", "cannot open: Is a directory" },
		{ "/dev/null", "cannot open: not a regular file" },
		{ txt, "not an ELF file" },
		{ empty, "not an ELF file" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		symtab_query q[] = { { .name = "main" } };
		symtab_info info;
		char err[256] = "";

		memset(&info, 0xff, sizeof(info));
		ck_assert_int_eq(symtab_resolve(rows[i].path, q, 1, &info, err,
						sizeof(err)), -1);
		ck_assert_str_eq(err, rows[i].msg);
		ck_assert_uint_eq(q[0].n_matches, 0);
		ck_assert_ptr_null(q[0].matches);
		ck_assert(!info.is_elf);
		symtab_query_free(q, 1);
	}
	/* A small ERRBUF is cut, still NUL-terminated. */
	{
		char err[8];
		symtab_query q[] = { { .name = "main" } };

		ck_assert_int_eq(symtab_resolve(txt, q, 1, NULL, err, sizeof(err)), -1);
		ck_assert_str_eq(err, "not an ");
		ck_assert_int_eq(symtab_resolve(txt, q, 1, NULL, NULL, 0), -1);
	}
	free(txt);
	free(empty);
}
END_TEST

/* Only the first bytes of a real ELF file: damaged, never a crash. */
START_TEST(test_truncated_elf)
{
	char buf[4096];
	int fd = open("/proc/self/exe", O_RDONLY);
	ssize_t n;
	char *p;
	symtab_query q[] = { { .name = "main" } };
	char err[256] = "";
	int rc;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_int_eq(n, (ssize_t)sizeof(buf));

	p = write_temp("trunc.elf", buf, sizeof(buf));
	rc = symtab_resolve(p, q, 1, NULL, err, sizeof(err));
	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(err, "truncated ELF file: section headers past its end");
	ck_assert_uint_eq(q[0].n_matches, 0);
	symtab_query_free(q, 1);
	free(p);

	p = write_temp("hdr.elf", buf, 20);	/* shorter than an ELF header */
	ck_assert_int_eq(symtab_resolve(p, q, 1, NULL, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "invalid ELF file data");	/* libelf's words */
	free(p);
}
END_TEST

static Suite *symtab_suite(void)
{
	Suite *s = suite_create("symtab");
	TCase *tc = tcase_create("core");
	TCase *err = tcase_create("errors");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_local_and_global_in_self);
	tcase_add_test(tc, test_own_mapping_same_as_libelf);
	tcase_add_test(tc, test_build_id_matches_memory);
	tcase_add_test(tc, test_same_name_twice);
	tcase_add_test(tc, test_many_queries);
	tcase_add_test(tc, test_libc_dynsym);
	tcase_add_test(tc, test_node);
	tcase_add_test(tc, test_gnu_hash_same_as_walk);
	tcase_add_test(tc, test_gnu_hash_absent);
	tcase_add_test(tc, test_gnu_hash_damaged);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(err, setup_tmp, teardown_tmp);
	tcase_add_test(err, test_errors);
	tcase_add_test(err, test_truncated_elf);
	suite_add_tcase(s, err);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(symtab_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
