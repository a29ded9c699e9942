/* Unit tests for discover: --target parsing and its messages, diffs of
 * two scans, and one scan of the real /proc.  Fixture scans:
 * test_discover_scan.c; pod labels and thread roles:
 * test_discover_labels.c. */
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

static const char *argv0;

/* ---- parsing ---- */

START_TEST(test_parse_kinds)
{
	static const struct {
		const char *arg, *name;
		discover_kind kind;
		const char *value;
	} cases[] = {
		{ "api=comm=node", "api", DISCOVER_COMM, "node" },
		{ "a.b-c_9=exe=/usr/bin/node*", "a.b-c_9", DISCOVER_EXE, "/usr/bin/node*" },
		{ "w=cmdline=--port=80", "w", DISCOVER_CMDLINE, "--port=80" },
		{ "k=cgroup=/kubepods.slice/*", "k", DISCOVER_CGROUP, "/kubepods.slice/*" },
		{ "n=unit=nginx", "n", DISCOVER_UNIT, "nginx" },
		{ "p=pid=0042", "p", DISCOVER_PID, "0042" },
		{ "s=k8s-namespace=shop", "s", DISCOVER_K8S_NAMESPACE, "shop" },
		{ "a=k8s-pod=api-*", "a", DISCOVER_K8S_POD, "api-*" },
		{ "c=k8s-container=no=de", "c", DISCOVER_K8S_CONTAINER, "no=de" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		discover_target t;

		parse_ok(cases[i].arg, &t);
		ck_assert_str_eq(t.name, cases[i].name);
		ck_assert_int_eq(t.kind, cases[i].kind);
		ck_assert_str_eq(t.value, cases[i].value);
		ck_assert_int_eq(t.pid, t.kind == DISCOVER_PID ? 42 : 0);
		ck_assert(t.has_re == (t.kind == DISCOVER_CMDLINE));
		ck_assert_int_eq(strncmp(strchr(cases[i].arg, '=') + 1, discover_kind_name(t.kind),
					 strlen(discover_kind_name(t.kind))), 0);
		discover_target_free(&t);
		ck_assert_ptr_null(t.value);
		discover_target_free(&t);	/* twice: a no-op */
	}
	discover_target_free(NULL);
}
END_TEST

START_TEST(test_parse_errors)
{
	static const struct {
		const char *arg, *msg;
	} cases[] = {
		{ "api=cmdlin=x", "--target 'api=cmdlin=x': unknown selector 'cmdlin' (did you mean "
				  "'cmdline'?); selectors: comm, exe, cmdline, cgroup, unit, pid, "
				  "k8s-namespace, k8s-pod, k8s-container" },
		{ "api=COMM=x", "--target 'api=COMM=x': unknown selector 'COMM' (did you mean "
				"'comm'?); selectors: comm, exe, cmdline, cgroup, unit, pid, "
				"k8s-namespace, k8s-pod, k8s-container" },
		{ "api=bogus=x", "--target 'api=bogus=x': unknown selector 'bogus'; selectors: "
				 "comm, exe, cmdline, cgroup, unit, pid, k8s-namespace, k8s-pod, "
				 "k8s-container" },
		{ "api=k8s-pods=x", "--target 'api=k8s-pods=x': unknown selector 'k8s-pods' (did "
				    "you mean 'k8s-pod'?); selectors: comm, exe, cmdline, cgroup, "
				    "unit, pid, k8s-namespace, k8s-pod, k8s-container" },
		{ "api=K8S-Namespace=x", "--target 'api=K8S-Namespace=x': unknown selector "
					 "'K8S-Namespace' (did you mean 'k8s-namespace'?); "
					 "selectors: comm, exe, cmdline, cgroup, unit, pid, "
					 "k8s-namespace, k8s-pod, k8s-container" },
		{ "api=k8s-namespace=", "--target 'api=k8s-namespace=': selector 'k8s-namespace' "
					"needs a value after '=': a glob, e.g. k8s-namespace=shop" },
		{ "api=k8s-pod", "--target 'api=k8s-pod': selector 'k8s-pod' needs a value after "
				 "'=': a glob, e.g. k8s-pod='api-*'" },
		{ "api=k8s-container=", "--target 'api=k8s-container=': selector 'k8s-container' "
					"needs a value after '=': a glob, e.g. k8s-container=node" },
		{ "api", "--target 'api': expected NAME=KIND=VALUE, e.g. api=comm=node; "
			 "selectors: comm, exe, cmdline, cgroup, unit, pid, k8s-namespace, "
			 "k8s-pod, k8s-container" },
		{ "api=node", "--target 'api=node': expected NAME=KIND=VALUE, e.g. api=comm=node; "
			      "selectors: comm, exe, cmdline, cgroup, unit, pid, k8s-namespace, "
			      "k8s-pod, k8s-container" },
		{ "api=comm", "--target 'api=comm': selector 'comm' needs a value after '=': "
			      "a glob, e.g. comm=node" },
		{ "api=pid=", "--target 'api=pid=': selector 'pid' needs a value after '=': "
			      "a process id, e.g. pid=1234" },
		{ "=comm=node", "--target '=comm=node': the target name before the first '=' is "
				"empty; name the target, e.g. api=comm=node" },
		{ "a b=comm=x", "--target 'a b=comm=x': target name 'a b' may hold only letters, "
				"digits, '_', '.' and '-' (it becomes a label value)" },
		{ "a\"}=comm=x", "--target 'a\"}=comm=x': target name 'a\"}' may hold only "
				 "letters, digits, '_', '.' and '-' (it becomes a label value)" },
		{ "api=pid=0", "--target 'api=pid=0': pid '0' is not a process id; give a whole "
			       "number from 1 to 4194304, e.g. pid=1234" },
		{ "api=unit=a/b", "--target 'api=unit=a/b': unit 'a/b' holds a '/'; give a unit "
				  "name, e.g. unit=nginx or unit=nginx.service (a cgroup path "
				  "goes in cgroup=)" },
	};
	static const char *const bad_pids[] = {
		"-1", "+5", "12x", " 7", "4194305", "99999999999999999999", "0x10",
	};
	char err[256], arg[64];
	discover_target t;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(discover_target_parse(cases[i].arg, &t, err, sizeof(err)), -1);
		ck_assert_str_eq(err, cases[i].msg);
		ck_assert_ptr_null(t.value);
		ck_assert(!t.has_re);
	}
	for (size_t i = 0; i < sizeof(bad_pids) / sizeof(bad_pids[0]); i++) {
		snprintf(arg, sizeof(arg), "p=pid=%s", bad_pids[i]);
		ck_assert_int_eq(discover_target_parse(arg, &t, err, sizeof(err)), -1);
		ck_assert_contains(err, "is not a process id; give a whole number from 1 to");
	}
	parse_ok("p=pid=4194304", &t);
	ck_assert_int_eq(t.pid, 4194304);
	discover_target_free(&t);
}
END_TEST

/* A bad regex reports regerror's own words. */
START_TEST(test_parse_bad_regex)
{
	char err[256], want[160];
	discover_target t;
	regex_t re;
	int rc = regcomp(&re, "(", REG_EXTENDED | REG_NOSUB);

	ck_assert_int_ne(rc, 0);
	regerror(rc, &re, want, sizeof(want));
	regfree(&re);
	ck_assert_int_eq(discover_target_parse("api=cmdline=(", &t, err, sizeof(err)), -1);
	ck_assert_contains(err, "--target 'api=cmdline=(': the cmdline regex does not compile: ");
	ck_assert_contains(err, want);
	ck_assert_contains(err, "give a POSIX extended regex");
}
END_TEST

/* A long argument is quoted cut, so the reason still fits; a small buffer
 * is never overrun. */
START_TEST(test_parse_long_argument)
{
	char arg[400], err[256], tiny[8];
	discover_target t;

	memset(arg, 'x', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = '\0';
	ck_assert_int_eq(discover_target_parse(arg, &t, err, sizeof(err)), -1);
	ck_assert_contains(err, "...': expected NAME=KIND=VALUE");
	ck_assert_contains(err, "selectors: comm, exe, cmdline, cgroup, unit, pid, "
				"k8s-namespace, k8s-pod, k8s-container");
	memcpy(arg, "api=cmdlin=", 11);
	ck_assert_int_eq(discover_target_parse(arg, &t, err, sizeof(err)), -1);
	ck_assert_contains(err, "(did you mean 'cmdline'?)");
	memset(arg, 'n', 64);
	memcpy(arg + 64, "=comm=x", 8);
	ck_assert_int_eq(discover_target_parse(arg, &t, err, sizeof(err)), -1);
	ck_assert_contains(err, "the target name is 64 bytes long; use at most 63");
	ck_assert_int_eq(discover_target_parse("api=cmdlin=x", &t, tiny, sizeof(tiny)), -1);
	ck_assert_str_eq(tiny, "--targe");
	ck_assert_int_eq(discover_target_parse("api=cmdlin=x", &t, tiny, 0), -1);
}
END_TEST

/* ---- diffs ---- */

START_TEST(test_diff)
{
	static const char *const args[] = {
		"a=comm=node", "b=exe=/usr/bin/node", "c=pid=4190003", NULL,
	};
	discover_set before, after;
	discover_diff d;

	fx_tree();
	scan_args(args, &before);
	fx_remove(P(1));
	FX(P(9), "comm", "node\n");
	FX(P(9), "cmdline", "node\0nine.js\0");
	fx_exe(P(9), "/usr/bin/node");
	scan_args(args, &after);

	ck_assert_int_eq(discover_set_diff(&before, &after, &d), 0);
	ck_assert(d.changed);
	ck_assert_uint_eq(d.n, 3);
	ck_assert_uint_eq(d.per[0].n_added, 1);
	ck_assert_int_eq(d.per[0].added[0], P(9));
	ck_assert_uint_eq(d.per[0].n_removed, 1);
	ck_assert_int_eq(d.per[0].removed[0], P(1));
	ck_assert_uint_eq(d.per[1].n_added, 1);
	ck_assert_int_eq(d.per[1].added[0], P(9));
	ck_assert_uint_eq(d.per[1].n_removed, 1);
	ck_assert_int_eq(d.per[1].removed[0], P(1));
	ck_assert_uint_eq(d.per[2].n_added + d.per[2].n_removed, 0);
	ck_assert_ptr_null(d.per[2].added);
	discover_diff_free(&d);

	ck_assert_int_eq(discover_set_diff(&after, &after, &d), 0);
	ck_assert(!d.changed);
	for (size_t i = 0; i < d.n; i++)
		ck_assert_uint_eq(d.per[i].n_added + d.per[i].n_removed, 0);
	discover_diff_free(&d);

	ck_assert_int_eq(discover_set_diff(NULL, &before, &d), 0);	/* the first scan */
	ck_assert(d.changed);
	ck_assert_uint_eq(d.per[0].n_added, 2);
	ck_assert_int_eq(d.per[0].added[0], P(1));
	ck_assert_int_eq(d.per[0].added[1], P(8));
	ck_assert_uint_eq(d.per[2].n_added, 1);
	ck_assert_uint_eq(d.per[0].n_removed, 0);
	discover_diff_free(&d);
	discover_diff_free(&d);
	discover_diff_free(NULL);

	before.n = 2;	/* a different list of targets */
	errno = 0;
	ck_assert_int_eq(discover_set_diff(&before, &after, &d), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(d.per);
	before.n = 3;
	discover_set_free(&before);
	discover_set_free(&after);
}
END_TEST

/* ---- the real /proc ---- */

/* ARGV0 as an ERE that matches it literally. */
static void regex_literal(char *out, size_t size, const char *s)
{
	size_t o = 0;

	for (; *s && o + 3 < size; s++) {
		if (strchr("\\^$.|?*+()[]{}", *s))
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o] = '\0';
}

/* pid= finds this process; cmdline= of its argv[0] finds a forked copy
 * (same arguments) but not this process, which discover leaves out. */
START_TEST(test_real_proc)
{
	char me[64], re[PATH_MAX * 2], arg[PATH_MAX * 2 + 32], c;
	const char *args[] = { me, arg, NULL };
	int pfd[2];
	pid_t copy;
	discover_set set;
	discover_proc self;
	discover_target t;

	ck_assert_int_eq(pipe(pfd), 0);
	copy = fork();
	ck_assert_int_ge(copy, 0);
	if (copy == 0) {
		close(pfd[1]);
		_exit(read(pfd[0], &c, 1) < 0);	/* until the test closes the pipe */
	}
	close(pfd[0]);
	snprintf(me, sizeof(me), "me=pid=%d", (int)getpid());
	regex_literal(re, sizeof(re), argv0);
	snprintf(arg, sizeof(arg), "argv0=cmdline=%s", re);
	scan_dir_args("/proc", args, &set);
	ck_pids(&set.per[0], "self");
	ck_assert_msg(discover_match_has(&set.per[1], copy), "cmdline=%s missed pid %d", re,
		      (int)copy);
	ck_assert(!discover_match_has(&set.per[1], getpid()));
	discover_set_free(&set);

	/* Left out as itself, not for want of a match. */
	parse_ok(arg, &t);
	ck_assert_int_eq(discover_proc_read("/proc", getpid(), DISCOVER_F_CMDLINE, &self), 0);
	ck_assert_ptr_nonnull(self.cmdline);
	ck_assert_int_eq(regexec(&t.re, self.cmdline, 0, NULL, 0), 0);
	discover_proc_free(&self);
	discover_target_free(&t);

	close(pfd[1]);
	ck_assert_int_eq(waitpid(copy, NULL, 0), copy);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("discover");
	TCase *parse = tcase_create("parse");
	TCase *diff = tcase_create("diff");
	TCase *real = tcase_create("real");

	tcase_add_test(parse, test_parse_kinds);
	tcase_add_test(parse, test_parse_errors);
	tcase_add_test(parse, test_parse_bad_regex);
	tcase_add_test(parse, test_parse_long_argument);
	suite_add_tcase(s, parse);

	tcase_add_checked_fixture(diff, setup, teardown);
	tcase_add_test(diff, test_diff);
	suite_add_tcase(s, diff);

	tcase_set_timeout(real, 30);
	tcase_add_test(real, test_real_proc);
	suite_add_tcase(s, real);
	return s;
}

int main(int argc, char **argv)
{
	(void)argc;
	argv0 = argv[0];
	return run_suite(suite());
}
