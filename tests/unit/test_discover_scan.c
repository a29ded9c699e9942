/* Unit tests for discover's scans of fixture /proc trees: every selector,
 * hostile fields (escape bytes, a 1 MiB cmdline, newlines), kernel
 * threads, bpfspec's own pid, vanished and unreadable processes. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "discover_fixture.h"
#include "helpers.h"
#include "target/discover.h"

/* ---- scanning ---- */

/* Every selector on the fixture tree: what each matches and how many
 * processes it could not read (7: its cmdline; 8: its exe). */
START_TEST(test_scan_selectors)
{
	static const struct {
		const char *arg, *pids;
		size_t unreadable;
	} cases[] = {
		{ "a=comm=node", "1 8", 1 },	/* not self, not the kernel thread */
		{ "b=comm=kworker*", "", 1 },
		{ "c=comm=\x1b[[]31mevil*", "4", 1 },	/* raw bytes, as the process set them */
		{ "d=comm=a\nb", "5", 1 },		/* only the final newline is cut */
		{ "e=exe=/usr/bin/node", "1 2", 2 },	/* 2 runs a deleted /usr/bin/node */
		{ "f=exe=*(deleted)", "", 2 },
		{ "g=exe=/opt/x\n/y", "4", 2 },
		{ "h=cmdline=server\\.js --port=80", "1", 1 },
		{ "i=cmdline=^python3 -m http\\.server$", "5", 1 },
		{ "j=cmdline=^node AAAA", "4", 1 },
		{ "k=cmdline=marker", "", 1 },	/* past the 64 KiB read */
		{ "l=cgroup=/system.slice/*", "1 5 8", 1 },
		{ "m=cgroup=/user.slice/*.scope", "2", 1 },	/* '*' crosses '/' */
		{ "n=cgroup=*", "1 2 5 8", 1 },	/* 4 has no cgroup v2 line */
		{ "o=cgroup=/fake", "", 1 },		/* "0::" inside a line is not one */
		{ "p=unit=api", "1", 1 },
		{ "q=unit=api.service", "1", 1 },
		{ "r=unit=w.scope", "2", 1 },
		{ "s=unit=user@1000", "2", 1 },
		{ "t=unit=w", "", 1 },			/* w.service, not w.scope */
		{ "u=unit=system", "", 1 },		/* system.slice has a dot */
		{ "v=pid=4190003", "3", 0 },		/* a kernel thread, by pid */
		{ "w=pid=4190006", "6", 0 },		/* listed, so it exists */
		{ "x=pid=4190099", "", 0 },
		{ "y=pid=417", "", 0 },		/* the entry "0417" names no pid */
	};
	const char *args[sizeof(cases) / sizeof(cases[0]) + 1];
	discover_set set;

	fx_tree();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		args[i] = cases[i].arg;
	args[sizeof(cases) / sizeof(cases[0])] = NULL;
	scan_args(args, &set);
	for (size_t i = 0; i < set.n; i++) {
		char text[512];

		ck_assert_msg(strcmp(pids_text(&set.per[i], text, sizeof(text)), cases[i].pids) == 0,
			      "%s: matched '%s', expected '%s'", cases[i].arg, text, cases[i].pids);
		ck_assert_msg(set.per[i].unreadable == cases[i].unreadable,
			      "%s: %zu unreadable, expected %zu", cases[i].arg,
			      set.per[i].unreadable, cases[i].unreadable);
	}
	discover_set_free(&set);
	discover_set_free(&set);
	discover_set_free(NULL);
}
END_TEST

/* bpfspec's own process is found by pid= only; a process matching two
 * targets is listed under both. */
START_TEST(test_scan_self_and_overlap)
{
	char me[64];
	const char *args[] = { me, "node=comm=node", "js=cmdline=\\.js", NULL };
	discover_set set;

	fx_tree();
	snprintf(me, sizeof(me), "me=pid=%d", (int)getpid());
	scan_args(args, &set);
	ck_pids(&set.per[0], "self");
	ck_pids(&set.per[1], "1 8");
	ck_pids(&set.per[2], "1 2 8");
	ck_assert(discover_match_has(&set.per[2], P(1)));
	ck_assert(discover_match_has(&set.per[2], P(8)));
	ck_assert(!discover_match_has(&set.per[2], P(5)));
	ck_assert(!discover_match_has(&set.per[2], getpid()));
	discover_set_free(&set);
}
END_TEST

START_TEST(test_proc_fields)
{
	discover_proc p;

	fx_tree();
	ck_assert_int_eq(discover_proc_read(root, P(4), DISCOVER_F_ALL, &p), 0);
	ck_assert_str_eq(p.comm, "\x1b[31mevil\x07");
	ck_assert_str_eq(p.exe, "/opt/x\n/y");
	ck_assert(!p.exe_deleted);
	ck_assert(p.cmdline_cut);
	ck_assert_uint_eq(p.cmdline_raw, DISCOVER_CMDLINE_MAX);
	ck_assert_uint_eq(strlen(p.cmdline), DISCOVER_CMDLINE_MAX);
	ck_assert_int_eq(strncmp(p.cmdline, "node AAAA", 9), 0);
	ck_assert_ptr_null(p.cgroup);
	ck_assert_int_eq(p.cgroup_err, 0);
	ck_assert_uint_eq(p.fields, DISCOVER_F_ALL);
	discover_proc_free(&p);

	ck_assert_int_eq(discover_proc_read(root, P(2), DISCOVER_F_EXE | DISCOVER_F_CGROUP, &p), 0);
	ck_assert_str_eq(p.exe, "/usr/bin/node");
	ck_assert(p.exe_deleted);
	ck_assert_str_eq(p.cgroup, "/user.slice/user-1000.slice/user@1000.service/app.slice/w.scope");
	ck_assert_ptr_null(p.comm);	/* not asked for */
	ck_assert_ptr_null(p.cmdline);
	ck_assert_uint_eq(p.fields, DISCOVER_F_EXE | DISCOVER_F_CGROUP);
	discover_proc_free(&p);

	ck_assert_int_eq(discover_proc_read(root, P(3), DISCOVER_F_ALL, &p), 0);
	ck_assert_uint_eq(p.cmdline_raw, 0);
	ck_assert_str_eq(p.cmdline, "");
	ck_assert_int_eq(p.exe_err, ENOENT);
	ck_assert_str_eq(p.cgroup, "/");
	discover_proc_free(&p);

	ck_assert_int_eq(discover_proc_read(root, P(5), DISCOVER_F_ALL, &p), 0);
	ck_assert_str_eq(p.comm, "a\nb");
	ck_assert_str_eq(p.cmdline, "python3 -m http.server");
	ck_assert_str_eq(p.cgroup, "/system.slice/web.service");
	discover_proc_free(&p);

	FX(P(9), "cmdline", "a\0\0b\0\0\0");	/* an empty argument; padding */
	ck_assert_int_eq(discover_proc_read(root, P(9), DISCOVER_F_CMDLINE, &p), 0);
	ck_assert_str_eq(p.cmdline, "a  b");
	ck_assert_uint_eq(p.cmdline_raw, 7);
	discover_proc_free(&p);

	ck_assert_int_eq(discover_proc_read(root, P(8), DISCOVER_F_EXE, &p), 0);
	ck_assert_int_eq(p.exe_err, EINVAL);
	discover_proc_free(&p);

	ck_assert_int_eq(discover_proc_read(root, P(99), DISCOVER_F_ALL, &p), 0);
	ck_assert_int_eq(p.comm_err, ENOENT);
	ck_assert_int_eq(p.exe_err, ENOENT);
	ck_assert_int_eq(p.cmdline_err, ENOENT);
	ck_assert_int_eq(p.cgroup_err, ENOENT);
	ck_assert_ptr_null(p.comm);
	discover_proc_free(&p);
	discover_proc_free(NULL);
}
END_TEST

/* Scans the targets, as nobody when root (whom EACCES never stops), and
 * returns each target's matches and unreadable count in OUT.  Returns
 * false when root may not become nobody here (a user namespace without
 * that uid): nothing to check then. */
static bool scan_unprivileged(const char *const *args, size_t n, size_t out[][2])
{
	int pfd[2], status;
	pid_t child;

	if (geteuid() != 0) {
		discover_set set;
		scan_args(args, &set);
		for (size_t i = 0; i < n; i++) {
			out[i][0] = set.per[i].n;
			out[i][1] = set.per[i].unreadable;
		}
		discover_set_free(&set);
		return true;
	}
	ck_assert_int_eq(pipe(pfd), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		discover_set set;
		size_t got[8][2] = { { 0 } };

		close(pfd[0]);
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(77);
		scan_args(args, &set);
		for (size_t i = 0; i < n && i < 8; i++) {
			got[i][0] = set.per[i].n;
			got[i][1] = set.per[i].unreadable;
		}
		discover_set_free(&set);
		_exit(write(pfd[1], got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 3);
	}
	close(pfd[1]);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		close(pfd[0]);
		fprintf(stderr, "test_scan_eacces: cannot become uid 65534 here: not checked\n");
		return false;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	{
		size_t got[8][2];
		ck_assert_int_eq(read(pfd[0], got, sizeof(got)), (ssize_t)sizeof(got));
		memcpy(out, got, n * sizeof(got[0]));
	}
	close(pfd[0]);
	return true;
}

/* EACCES on the one field a target needs counts for that target only. */
START_TEST(test_scan_eacces)
{
	static const char *const args[] = { "a=comm=*", "b=cmdline=node", "c=exe=*", NULL };
	char p[PATH_MAX + 32];
	size_t got[3][2];

	FX(P(1), "comm", "node\n");
	FX(P(1), "cmdline", "node\0a.js\0");
	fx_exe(P(1), "/usr/bin/node");
	snprintf(p, sizeof(p), "%s/%d/comm", root, (int)P(1));
	ck_assert_int_eq(chmod(p, 0), 0);
	if (!scan_unprivileged(args, 3, got))
		return;
	ck_assert_uint_eq(got[0][0], 0);
	ck_assert_uint_eq(got[0][1], 1);
	ck_assert_uint_eq(got[1][0], 1);
	ck_assert_uint_eq(got[1][1], 0);
	ck_assert_uint_eq(got[2][0], 1);
	ck_assert_uint_eq(got[2][1], 0);
}
END_TEST

START_TEST(test_scan_errors)
{
	discover_target t;
	discover_set set = { .n = 7 };

	parse_ok("a=comm=x", &t);
	errno = 0;
	ck_assert_int_eq(discover_scan("/nonexistent/proc", NULL, &t, 1, &set), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(set.per);
	ck_assert_uint_eq(set.n, 0);
	ck_assert_int_eq(discover_scan(root, NULL, &t, 0, &set), 0);	/* no targets */
	ck_assert_uint_eq(set.n, 0);
	discover_set_free(&set);
	discover_target_free(&t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("discover_scan");
	TCase *tc = tcase_create("scan");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_scan_selectors);
	tcase_add_test(tc, test_scan_self_and_overlap);
	tcase_add_test(tc, test_proc_fields);
	tcase_add_test(tc, test_scan_eacces);
	tcase_add_test(tc, test_scan_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
