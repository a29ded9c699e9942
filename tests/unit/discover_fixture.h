/* discover_fixture.h — what the discover tests share: a fixture tree
 * laid out like /proc in a mkdtemp directory (fx_tree describes its
 * processes), and scanning it.  Header-only (static inline), as
 * helpers.h, so each test stays one file that make builds alone. */
#ifndef BPFSPEC_TEST_DISCOVER_FIXTURE_H
#define BPFSPEC_TEST_DISCOVER_FIXTURE_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/discover.h"

#define P(n) ((pid_t)(4190000 + (n)))
#define BIG_CMDLINE (1024 * 1024)

/* The fixture's root: a mkdtemp directory laid out like /proc. */
static char root[PATH_MAX];

static inline void fx_dir(const char *rel)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
}

/* Writes LEN bytes of DATA to ROOT/PID/NAME (the pid's directory made). */
static inline void fx_file(pid_t pid, const char *name, const void *data, size_t len)
{
	char p[PATH_MAX + 64], d[24];
	int fd;

	snprintf(d, sizeof(d), "%d", (int)pid);
	fx_dir(d);
	snprintf(p, sizeof(p), "%s/%d/%s", root, (int)pid, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

#define FX(pid, name, lit) fx_file((pid), (name), (lit), sizeof(lit) - 1)

static inline void fx_exe(pid_t pid, const char *to)
{
	char p[PATH_MAX + 64], d[24];

	snprintf(d, sizeof(d), "%d", (int)pid);
	fx_dir(d);
	snprintf(p, sizeof(p), "%s/%d/exe", root, (int)pid);
	ck_assert_int_eq(symlink(to, p), 0);
}

static inline char *big_cmdline(size_t *len)
{
	char *s = malloc(BIG_CMDLINE);

	ck_assert_ptr_nonnull(s);
	memcpy(s, "node\0", 5);
	memset(s + 5, 'A', BIG_CMDLINE - 5);
	memcpy(s + BIG_CMDLINE - 8, "marker", 7);	/* far past the bound */
	s[BIG_CMDLINE - 1] = '\0';
	*len = BIG_CMDLINE;
	return s;
}

/* The tree most tests scan: see each process's comment. */
static inline void fx_tree(void)
{
	char self[PATH_MAX + 8];
	size_t len;
	char *big;

	/* 1: a node server in a systemd service. */
	FX(P(1), "comm", "node\n");
	FX(P(1), "cmdline", "node\0/srv/api/server.js\0--port=80\0");
	fx_exe(P(1), "/usr/bin/node");
	FX(P(1), "cgroup", "0::/system.slice/api.service\n");
	/* 2: node 24 (comm MainThread), upgraded since it started; hybrid cgroups. */
	FX(P(2), "comm", "MainThread\n");
	FX(P(2), "cmdline", "/usr/bin/node\0worker.js\0");
	fx_exe(P(2), "/usr/bin/node (deleted)");
	FX(P(2), "cgroup", "1:name=systemd:/x\n"
			   "0::/user.slice/user-1000.slice/user@1000.service/app.slice/w.scope\n");
	/* 3: a kernel thread: empty cmdline, no exe. */
	FX(P(3), "comm", "kworker/0:1\n");
	FX(P(3), "cmdline", "");
	FX(P(3), "cgroup", "0::/\n");
	/* 4: hostile: escape bytes in comm, a 1 MiB cmdline, a newline in the
	 * exe path, no cgroup v2 line. */
	FX(P(4), "comm", "\x1b[31mevil\x07\n");
	big = big_cmdline(&len);
	fx_file(P(4), "cmdline", big, len);
	free(big);
	fx_exe(P(4), "/opt/x\n/y");
	FX(P(4), "cgroup", "1:cpu:/foo\n2:memory:/0::/fake\n");
	/* 5: a newline inside comm; arguments rewritten without a final NUL;
	 * a cgroup file without a final newline. */
	FX(P(5), "comm", "a\nb\n");
	FX(P(5), "cmdline", "python3\0-m\0http.server");
	fx_exe(P(5), "/usr/bin/python3.11");
	FX(P(5), "cgroup", "0::/system.slice/web.service");
	/* 6: vanished between readdir and the reads: an empty directory. */
	fx_dir("4190006");
	/* 7: its cmdline cannot be read (a directory: EISDIR). */
	FX(P(7), "comm", "node\n");
	fx_dir("4190007/cmdline");
	fx_exe(P(7), "/usr/bin/node");
	/* 8: its exe cannot be read (not a link: EINVAL). */
	FX(P(8), "comm", "node\n");
	FX(P(8), "cmdline", "node\0eight.js\0");
	FX(P(8), "exe", "/usr/bin/node");
	FX(P(8), "cgroup", "0::/system.slice/eight.service\n");
	/* This process: found by pid= only. */
	FX(getpid(), "comm", "node\n");
	FX(getpid(), "cmdline", "node\0self.js\0");
	fx_exe(getpid(), "/usr/bin/node");
	/* Entries that name no process. */
	fx_dir("sys");
	fx_dir("0");
	fx_dir("0417");
	fx_dir("4194305");
	snprintf(self, sizeof(self), "%s/self", root);
	ck_assert_int_eq(symlink("4190001", self), 0);
}

static inline void setup(void)
{
	char tmpl[] = "/tmp/test_discover.XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_int_eq(chmod(tmpl, 0755), 0);
	snprintf(root, sizeof(root), "%s", tmpl);
}

static inline int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static inline void teardown(void)
{
	ck_assert_int_eq(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static inline void fx_remove(pid_t pid)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/%d", root, (int)pid);
	ck_assert_int_eq(nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* ---- helpers ---- */

static inline void parse_ok(const char *arg, discover_target *t)
{
	char err[256] = "";

	ck_assert_msg(discover_target_parse(arg, t, err, sizeof(err)) == 0, "%s: %s", arg, err);
}

/* Scans DIR for the targets ARGS (NULL-terminated) into SET. */
static inline void scan_dir_args(const char *dir, const char *const *args, discover_set *set)
{
	discover_target t[32];
	size_t n = 0;

	for (; args[n]; n++) {
		ck_assert_uint_lt(n, 32);
		parse_ok(args[n], &t[n]);
	}
	ck_assert_int_eq(discover_scan(dir, NULL, t, n, set), 0);
	ck_assert_uint_eq(set->n, n);
	for (size_t i = 0; i < n; i++)
		discover_target_free(&t[i]);
}

static inline void scan_args(const char *const *args, discover_set *set)
{
	scan_dir_args(root, args, set);
}

/* M's pids as "1 8 self" (fixture pids by their N in P(N); this process
 * as "self") into TEXT (size LEN). */
static inline const char *pids_text(const discover_match *m, char *text, size_t len)
{
	size_t o = 0;

	text[0] = '\0';
	for (size_t i = 0; i < m->n && o < len; i++) {
		const char *sep = i ? " " : "";
		pid_t pid = m->pids[i];

		if (pid == getpid())
			o += (size_t)snprintf(text + o, len - o, "%sself", sep);
		else
			o += (size_t)snprintf(text + o, len - o, "%s%d", sep,
					      (int)(pid > P(0) ? pid - P(0) : pid));
	}
	return text;
}

#define ck_pids(m, want)                                                                \
	do {                                                                            \
		char text_[512];                                                        \
		ck_assert_str_eq(pids_text((m), text_, sizeof(text_)), (want));         \
	} while (0)

#endif
