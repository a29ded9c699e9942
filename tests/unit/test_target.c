/* Unit tests for target: this process as a target, processes that are
 * gone, zombies, kernel threads, binaries replaced under a running
 * process, PATH search, object globs and thread names.  Diagnostics are
 * captured and their wording checked. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "target/target.h"
#include "util/diag.h"

static char tmpdir[PATH_MAX];

static void setup_tmp(void)
{
	char tmpl[] = "/tmp/test_target.XXXXXX";
	char *real;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	real = realpath(tmpl, NULL);
	ck_assert_ptr_nonnull(real);
	snprintf(tmpdir, sizeof(tmpdir), "%s", real);
	free(real);
}

static void teardown_tmp(void)
{
	static const char *const names[] = {
		"sleep", "sleep.new", "lib.bin", "noexec", "bin/tool", "bin/plain",
	};
	char p[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, names[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/bin", tmpdir);
	rmdir(p);
	rmdir(tmpdir);
}

static char *tmp_path(const char *name)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", tmpdir, name), 0);
	return p;
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	ck_assert_int_ge(in, 0);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_int_ge(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	ck_assert_int_eq(n, 0);
	close(in);
	ck_assert_int_eq(fchmod(out, mode), 0);
	close(out);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

/* Starts PATH ("sleep 30") and returns once it has exec'd, or -1 when
 * it cannot run (a noexec /tmp). */
static pid_t spawn_sleep(const char *path)
{
	int pfd[2], err = 0;
	pid_t pid;
	ssize_t n;

	ck_assert_int_eq(pipe2(pfd, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *argv[] = { "sleep", "30", NULL };

		close(pfd[0]);
		execv(path, argv);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], &err, sizeof(err));	/* EOF: exec worked */
	close(pfd[0]);
	if (n > 0) {
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

static void stop_child(pid_t pid)
{
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}

/* A pid that no process has (one that just exited and was reaped). */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	return pid;
}

static bool has_object(const target *t, const char *path)
{
	for (size_t i = 0; i < t->n_objects; i++)
		if (strcmp(t->objects[i], path) == 0)
			return true;
	return false;
}

/* ---- target_from_pid ----------------------------------------------- */

START_TEST(test_self)
{
	char *self = realpath("/proc/self/exe", NULL);
	target *t = target_from_pid(getpid());
	bool libc = false;

	ck_assert_ptr_nonnull(self);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->pid, getpid());
	ck_assert_str_eq(t->exe, self);
	ck_assert_uint_ge(t->n_objects, 2);
	ck_assert_str_eq(t->objects[0], t->exe);
	for (size_t i = 0; i < t->n_objects; i++) {
		const char *base = strrchr(t->objects[i], '/');

		ck_assert_msg(t->objects[i][0] == '/', "not a path: %s",
			      t->objects[i]);
		ck_assert_ptr_null(strstr(t->objects[i], "(deleted)"));
		if (strncmp(base + 1, "libc.so", 7) == 0)
			libc = true;
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(t->objects[i], t->objects[j]);
	}
	ck_assert_msg(libc, "libc is not among the objects");
	target_free(t);
	target_free(NULL);
	free(self);
}
END_TEST

START_TEST(test_no_such_pid)
{
	pid_t pid = dead_pid();
	char want[96];
	char *out;

	capture_start();
	ck_assert_ptr_null(target_from_pid(pid));
	out = capture_end();
	snprintf(want, sizeof(want), "error: no process with pid %d\n", (int)pid);
	ck_assert_contains(out, want);
	snprintf(want, sizeof(want), "hint: check the pid with `ps -p %d`",
		 (int)pid);
	ck_assert_contains(out, want);
	free(out);
}
END_TEST

START_TEST(test_invalid_pid)
{
	static const pid_t pids[] = { 0, -1, -42 };

	for (size_t i = 0; i < sizeof(pids) / sizeof(pids[0]); i++) {
		char *out;

		capture_start();
		ck_assert_ptr_null(target_from_pid(pids[i]));
		out = capture_end();
		ck_assert_contains(out, "error: invalid pid");
		free(out);
	}
}
END_TEST

START_TEST(test_zombie)
{
	pid_t pid = fork();
	siginfo_t si;
	char *out;

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	/* Wait for the exit without reaping: the child stays a zombie. */
	memset(&si, 0, sizeof(si));
	ck_assert_int_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	capture_start();
	ck_assert_ptr_null(target_from_pid(pid));
	out = capture_end();
	ck_assert_contains(out, "has exited (zombie)");
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	free(out);
}
END_TEST

/* ONE and DEAD as a list (static: one test at a time). */
static const pid_t *gone_too(pid_t one, pid_t dead)
{
	static pid_t v[2];
	v[0] = one;
	v[1] = dead;
	return v;
}

/* Several processes of one executable: two sleeps.  Another executable
 * (this test's own, or valgrind's under valgrind), a pid given twice, a
 * process gone: refused, naming the pid.  (Not a fork of this test: under
 * valgrind the fork and the test do not show one executable.) */
START_TEST(test_several_pids)
{
	pid_t one = spawn_sleep("/bin/sleep"), two = spawn_sleep("/bin/sleep"), dead = dead_pid();
	char *out, sleep_path[PATH_MAX];

	ck_assert_int_gt(one, 0);
	ck_assert_int_gt(two, 0);
	ck_assert_ptr_nonnull(realpath("/bin/sleep", sleep_path));
	pid_t pids[] = { two, one };
	capture_start();
	target *t = target_from_pids(pids, 2);
	out = capture_end();
	ck_assert_msg(t != NULL, "two processes of one file refused:\n%s", out);
	free(out);
	ck_assert_int_eq(t->pid, two);
	ck_assert_uint_eq(t->n_pids, 2);
	ck_assert_int_eq(t->pids[0], two);
	ck_assert_int_eq(t->pids[1], one);
	target_free(t);

	pid_t other[] = { one, two, getpid() };
	capture_start();
	ck_assert_ptr_null(target_from_pids(other, 3));
	out = capture_end();
	char want[PATH_MAX + 64];
	snprintf(want, sizeof want, "pid %d runs ", (int)getpid());
	ck_assert_contains(out, want);
	snprintf(want, sizeof want, ", but pid %d runs %s", (int)one, sleep_path);
	ck_assert_contains(out, want);
	ck_assert_contains(out, "run again");
	free(out);

	/* Grouped by file instead (run makes one program of them). */
	size_t group[3];
	capture_start();
	ck_assert_uint_eq(target_group_by_exe(other, 3, group), 2);
	free(capture_end());
	ck_assert_uint_eq(group[0], 0);
	ck_assert_uint_eq(group[1], 0);
	ck_assert_uint_eq(group[2], 1);
	capture_start();
	ck_assert_uint_eq(target_group_by_exe(gone_too(one, dead), 2, group), 0);
	out = capture_end();
	snprintf(want, sizeof want, "no process with pid %d", (int)dead);
	ck_assert_contains(out, want);
	free(out);

	pid_t twice[] = { one, two, one };
	capture_start();
	ck_assert_ptr_null(target_from_pids(twice, 3));
	out = capture_end();
	snprintf(want, sizeof want, "pid %d is given twice", (int)one);
	ck_assert_contains(out, want);
	free(out);

	pid_t gone[] = { one, dead };
	capture_start();
	ck_assert_ptr_null(target_from_pids(gone, 2));
	out = capture_end();
	snprintf(want, sizeof want, "no process with pid %d", (int)dead);
	ck_assert_contains(out, want);
	free(out);

	stop_child(one);
	stop_child(two);
}
END_TEST

START_TEST(test_kernel_thread)
{
	char comm[32] = "";
	char *out;

	/* pid 2 is kthreadd, unless we are in a pid namespace. */
	if (target_thread_name(2, 2, comm, sizeof(comm)) < 0 ||
	    strcmp(comm, "kthreadd") != 0)
		return;
	capture_start();
	ck_assert_ptr_null(target_from_pid(2));
	out = capture_end();
	ck_assert_contains(out, "error: pid 2 is a kernel thread");
	ck_assert_contains(out, "hint: pick a user-space process");
	free(out);
}
END_TEST

/* Without privileges, the exe of a root process cannot be read (here:
 * the test itself, from a child that dropped to nobody): the hint says
 * what tracing needs. */
START_TEST(test_permission)
{
	pid_t pid;
	int status;

	if (geteuid() != 0)
		return;	/* cannot drop to an unprivileged user */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pid_t parent = getppid();
		char want[64];
		target *t;
		char *out;
		int ok;

		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		snprintf(want, sizeof(want),
			 "cannot read the executable of pid %d", (int)parent);
		capture_start();
		t = target_from_pid(parent);
		out = capture_end();
		ok = t == NULL && strstr(out, want) &&
		     strstr(out, "hint: tracing needs root") &&
		     strstr(out, "CAP_PERFMON") && strstr(out, "ptrace");
		if (!ok)
			fprintf(stderr, "unexpected output:\n%s", out);
		target_free(t);
		free(out);
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

/* The binary still in place: its path is used as it is. */
START_TEST(test_exe_in_place)
{
	char *copy = tmp_path("sleep");
	target *t;
	pid_t pid;

	copy_file("/bin/sleep", copy, 0755);
	pid = spawn_sleep(copy);
	if (pid < 0) {
		free(copy);
		return;	/* /tmp is noexec here */
	}
	t = target_from_pid(pid);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->exe, copy);
	ck_assert_str_eq(t->objects[0], copy);
	target_free(t);
	stop_child(pid);
	free(copy);
}
END_TEST

/* Deleted, or replaced by a new file (an upgrade): /proc/PID/exe is the
 * only path to the running copy, and a warning says so. */
START_TEST(test_exe_deleted_or_replaced)
{
	char *copy = tmp_path("sleep"), *next = tmp_path("sleep.new");

	for (int replace = 0; replace <= 1; replace++) {
		char want[64];
		target *t;
		char *out;
		pid_t pid;

		copy_file("/bin/sleep", copy, 0755);
		pid = spawn_sleep(copy);
		if (pid < 0)
			break;
		if (replace) {
			copy_file("/bin/sleep", next, 0755);
			ck_assert_int_eq(rename(next, copy), 0);
		} else {
			ck_assert_int_eq(unlink(copy), 0);
		}
		capture_start();
		t = target_from_pid(pid);
		out = capture_end();
		ck_assert_ptr_nonnull(t);
		snprintf(want, sizeof(want), "/proc/%d/exe", (int)pid);
		ck_assert_str_eq(t->exe, want);
		ck_assert_str_eq(t->objects[0], want);
		ck_assert_contains(out, "warning: the executable of pid");
		ck_assert_contains(out, "was deleted or replaced");
		ck_assert_contains(out, copy);
		/* The old path must not come back through the maps. */
		for (size_t i = 1; i < t->n_objects; i++)
			ck_assert_ptr_null(strstr(t->objects[i], copy));
		target_free(t);
		free(out);
		stop_child(pid);
	}
	free(copy);
	free(next);
}
END_TEST

/* Executable mappings of plain files become objects (once each); a
 * deleted one is left out with a warning; memfd is left out silently. */
START_TEST(test_mapped_files)
{
	char *lib = tmp_path("lib.bin");
	void *a, *b, *m;
	target *t;
	char *out;
	int fd, mfd;

	write_file(lib, "not really code, but mapped executable\n", 0644);
	fd = open(lib, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	a = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	b = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (a == MAP_FAILED || b == MAP_FAILED) {
		free(lib);
		return;	/* noexec mount */
	}
	mfd = memfd_create("bpfspec-test", 0);
	ck_assert_int_ge(mfd, 0);
	ck_assert_int_eq(ftruncate(mfd, 4096), 0);
	m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, mfd, 0);
	close(mfd);

	capture_start();
	t = target_from_pid(getpid());
	out = capture_end();
	ck_assert_ptr_nonnull(t);
	ck_assert(has_object(t, lib));
	for (size_t i = 0; i < t->n_objects; i++)
		ck_assert_ptr_null(strstr(t->objects[i], "memfd"));
	ck_assert_str_eq(out ? out : "", "");
	target_free(t);
	free(out);

	ck_assert_int_eq(unlink(lib), 0);
	capture_start();
	t = target_from_pid(getpid());
	out = capture_end();
	ck_assert_ptr_nonnull(t);
	ck_assert(!has_object(t, lib));
	ck_assert_contains(out, "warning: pid");
	ck_assert_contains(out, "lib.bin (deleted): that file was replaced");
	target_free(t);
	free(out);

	munmap(a, 4096);
	munmap(b, 4096);
	if (m != MAP_FAILED)
		munmap(m, 4096);
	free(lib);
}
END_TEST

/* ---- target_from_path --------------------------------------------- */

START_TEST(test_from_path)
{
	char *sh = realpath("/bin/sh", NULL);
	target *t = target_from_path("/bin/sh");
	char *out;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->pid, 0);
	ck_assert_str_eq(t->exe, sh);
	ck_assert_uint_eq(t->n_objects, 1);
	ck_assert_str_eq(t->objects[0], sh);
	ck_assert_str_eq(target_find_object(t, "main"), sh);
	target_free(t);
	free(sh);

	static const struct {
		const char *path;
		const char *msg;
	} rows[] = {
		{ "/nonexistent/bin/x",
		  "error: cannot use /nonexistent/bin/x as the target: No such file or directory" },
		{ "/", "error: cannot use / as the target: Is a directory" },
		{ "/dev/null", "error: cannot use /dev/null as the target: not a regular file" },
		{ "", "error: empty target path" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		capture_start();
		ck_assert_ptr_null(target_from_path(rows[i].path));
		out = capture_end();
		ck_assert_contains(out, rows[i].msg);
		ck_assert_contains(out, "hint: ");
		free(out);
	}
}
END_TEST

/* ---- target_find_executable ---------------------------------------- */

START_TEST(test_find_executable)
{
	char *sh = target_find_executable("sh");
	char *real = realpath("/bin/sh", NULL);
	char *out, *p;

	ck_assert_ptr_nonnull(sh);
	ck_assert_int_eq(sh[0], '/');
	ck_assert_int_eq(access(sh, X_OK), 0);
	free(sh);

	p = target_find_executable("/bin/sh");
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p, real);
	free(p);
	free(real);

	capture_start();
	ck_assert_ptr_null(target_find_executable("no-such-cmd-xyz"));
	out = capture_end();
	ck_assert_contains(out, "error: command 'no-such-cmd-xyz' not found in PATH\n");
	ck_assert_contains(out, "hint: ");
	free(out);

	capture_start();
	ck_assert_ptr_null(target_find_executable("/etc/passwd"));
	ck_assert_ptr_null(target_find_executable("/nonexistent/cmd"));
	ck_assert_ptr_null(target_find_executable("/"));
	ck_assert_ptr_null(target_find_executable(""));
	out = capture_end();
	ck_assert_contains(out, "error: cannot run /etc/passwd: Permission denied");
	ck_assert_contains(out, "error: cannot run /nonexistent/cmd: No such file or directory");
	ck_assert_contains(out, "error: cannot run /: Is a directory");
	ck_assert_contains(out, "error: empty command");
	free(out);
}
END_TEST

/* PATH order, non-executable entries skipped, "" is the current
 * directory, and an unset PATH falls back to the default one. */
START_TEST(test_find_executable_path)
{
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char *bin = tmp_path("bin"), *tool = tmp_path("bin/tool");
	char *plain = tmp_path("bin/plain"), *noexec = tmp_path("noexec");
	char *path, *p, *out, cwd[PATH_MAX];

	ck_assert_int_eq(mkdir(bin, 0755), 0);
	write_file(tool, "#!/bin/sh\n", 0755);
	write_file(plain, "#!/bin/sh\n", 0644);
	write_file(noexec, "#!/bin/sh\n", 0644);

	ck_assert_int_ge(asprintf(&path, "/nonexistent:%s:/usr/bin:/bin", bin), 0);
	ck_assert_int_eq(setenv("PATH", path, 1), 0);
	p = target_find_executable("tool");
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p, tool);
	free(p);
	capture_start();
	ck_assert_ptr_null(target_find_executable("plain"));
	out = capture_end();
	ck_assert_contains(out, "command 'plain' not found in PATH");
	free(out);
	free(path);

	/* An empty entry means the current directory. */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(bin), 0);
	ck_assert_int_eq(setenv("PATH", "/nonexistent:", 1), 0);
	p = target_find_executable("tool");
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p, tool);
	free(p);

	ck_assert_int_eq(unsetenv("PATH"), 0);
	p = target_find_executable("sh");	/* /usr/bin or /bin */
	ck_assert_ptr_nonnull(p);
	free(p);

	if (old) {
		setenv("PATH", old, 1);
		free(old);
	}
	free(bin);
	free(tool);
	free(plain);
	free(noexec);
}
END_TEST

/* ---- target_find_object, target_thread_name ------------------------ */

START_TEST(test_find_object)
{
	target *t = target_from_pid(getpid());
	const char *libc, *any;

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_eq(target_find_object(t, "main"), t->exe);
	libc = target_find_object(t, "libc.so*");
	ck_assert_ptr_nonnull(libc);
	ck_assert_int_eq(strncmp(strrchr(libc, '/') + 1, "libc.so", 7), 0);
	/* A glob with a slash is matched against the whole path. */
	ck_assert_ptr_eq(target_find_object(t, "*/libc.so*"), libc);
	ck_assert_ptr_null(target_find_object(t, "libc.so"));
	ck_assert_ptr_null(target_find_object(t, "no-such-lib*.so"));
	/* Order: the executable comes first. */
	any = target_find_object(t, "*");
	ck_assert_ptr_eq(any, t->objects[0]);
	ck_assert_ptr_null(target_find_object(NULL, "main"));
	ck_assert_ptr_null(target_find_object(t, NULL));
	target_free(t);
}
END_TEST

static pthread_barrier_t barrier;
static pid_t worker_tid;

static void *worker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "bpfspec-worker", 0, 0, 0);
	worker_tid = gettid();
	pthread_barrier_wait(&barrier);	/* named */
	pthread_barrier_wait(&barrier);	/* checked: may exit */
	return NULL;
}

START_TEST(test_thread_name)
{
	char name[64], saved[17] = "", small[4];
	pthread_t th;

	ck_assert_int_eq(pthread_barrier_init(&barrier, NULL, 2), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, worker, NULL), 0);
	pthread_barrier_wait(&barrier);

	ck_assert_int_eq(target_thread_name(getpid(), worker_tid, name,
					    sizeof(name)), 0);
	ck_assert_str_eq(name, "bpfspec-worker");
	ck_assert_int_eq(target_thread_name(getpid(), worker_tid, small,
					    sizeof(small)), 0);
	ck_assert_str_eq(small, "bpf");

	/* The main thread, renamed here (a name is cut to 15 bytes). */
	ck_assert_int_eq(prctl(PR_GET_NAME, saved, 0, 0, 0), 0);
	ck_assert_int_eq(prctl(PR_SET_NAME, "main-thread-name-too-long", 0, 0, 0), 0);
	ck_assert_int_eq(target_thread_name(getpid(), getpid(), name,
					    sizeof(name)), 0);
	prctl(PR_SET_NAME, saved, 0, 0, 0);
	ck_assert_str_eq(name, "main-thread-nam");

	pthread_barrier_wait(&barrier);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	pthread_barrier_destroy(&barrier);

	/* A thread that is gone.  pthread_join returns when the thread has
	 * exited, a moment before the kernel takes its /proc/PID/task entry
	 * away: wait for that (at most 5 s). */
	char task[64];
	snprintf(task, sizeof task, "/proc/self/task/%ld", (long)worker_tid);
	for (int i = 0; i < 5000 && access(task, F_OK) == 0; i++)
		usleep(1000);
	strcpy(name, "x");
	ck_assert_int_eq(target_thread_name(getpid(), worker_tid, name,
					    sizeof(name)), -1);
	ck_assert_str_eq(name, "");
	ck_assert_int_eq(target_thread_name(getpid(), getpid(), name, 0), -1);
}
END_TEST

static Suite *target_suite(void)
{
	Suite *s = suite_create("target");
	TCase *pid = tcase_create("pid");
	TCase *tmp = tcase_create("files");
	TCase *misc = tcase_create("lookup");

	tcase_add_test(pid, test_self);
	tcase_add_test(pid, test_no_such_pid);
	tcase_add_test(pid, test_invalid_pid);
	tcase_add_test(pid, test_zombie);
	tcase_add_test(pid, test_several_pids);
	tcase_add_test(pid, test_kernel_thread);
	tcase_add_test(pid, test_permission);
	suite_add_tcase(s, pid);

	tcase_add_checked_fixture(tmp, setup_tmp, teardown_tmp);
	tcase_set_timeout(tmp, 30);
	tcase_add_test(tmp, test_exe_in_place);
	tcase_add_test(tmp, test_exe_deleted_or_replaced);
	tcase_add_test(tmp, test_mapped_files);
	tcase_add_test(tmp, test_find_executable_path);
	suite_add_tcase(s, tmp);

	tcase_add_test(misc, test_from_path);
	tcase_add_test(misc, test_find_executable);
	tcase_add_test(misc, test_find_object);
	tcase_add_test(misc, test_thread_name);
	suite_add_tcase(s, misc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(target_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
