/* Unit tests for util/child.c: the line reader runner and serve share
 * (lines split across reads, the last line without its '\n', lines over
 * the limit in pieces, no limit for serve's reports, NUL-terminated
 * lines) and the signal reset of a fork. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "util/child.h"

/* The lines handed over, joined by '|', each checked NUL-terminated. */
typedef struct seen {
	char text[4096];
	size_t lines;
	size_t longest;
} seen;

static void collect(void *ctx, const char *line, size_t len)
{
	seen *s = ctx;
	ck_assert_uint_eq(strlen(line), len);	/* NUL at LEN, no NUL inside */
	if (len > s->longest)
		s->longest = len;
	if (len < 256)
		snprintf(s->text + strlen(s->text), sizeof s->text - strlen(s->text), "%s%s",
			 s->lines ? "|" : "", line);
	s->lines++;
}

/* Writes TEXT to a pipe in writes of CHUNK bytes, reads it all through
 * B into S.  The pipe is non-blocking, as runner's and serve's are. */
static void feed(line_buffer *b, const char *text, size_t len, size_t chunk, seen *s)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	int rc = 0;
	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;
		ck_assert_int_eq(write(p[1], text + off, n), (ssize_t)n);
		while ((rc = line_buffer_read(b, p[0], collect, s, "test")) > 0)
			;
		ck_assert_int_eq(rc, 0);	/* EAGAIN: more may come */
	}
	close(p[1]);
	while ((rc = line_buffer_read(b, p[0], collect, s, "test")) > 0)
		;
	ck_assert_int_eq(rc, -1);
	close(p[0]);
	line_buffer_free(b);
}

START_TEST(test_lines_across_reads)
{
	static const char text[] = "first\nsecond line\n\nlast without newline";
	line_buffer b = { 0 };
	seen s = { .lines = 0 };
	feed(&b, text, strlen(text), 3, &s);
	ck_assert_str_eq(s.text, "first|second line||last without newline");
	ck_assert_uint_eq(s.lines, 4);
}
END_TEST

/* With a limit (the runner's), a longer line goes in pieces; without one
 * (serve's reports), whole. */
START_TEST(test_long_lines)
{
	size_t len = 3 * 65536 + 10;
	char *text = malloc(len + 1);
	ck_assert_ptr_nonnull(text);
	memset(text, 'x', len);
	text[len - 1] = '\n';
	line_buffer limited = { .max_line = 65536 };
	seen s = { .lines = 0 };
	feed(&limited, text, len, 65536, &s);
	ck_assert_uint_eq(s.lines, 4);	/* three pieces and the rest */
	ck_assert_uint_eq(s.longest, 65536);
	line_buffer whole = { 0 };
	seen w = { .lines = 0 };
	feed(&whole, text, len, 65536, &w);
	ck_assert_uint_eq(w.lines, 1);
	ck_assert_uint_eq(w.longest, len - 1);
	free(text);
}
END_TEST

/* A last line is handed over by flush when the pipe is still open. */
START_TEST(test_flush)
{
	int p[2];
	line_buffer b = { 0 };
	seen s = { .lines = 0 };
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(write(p[1], "a\nb", 3), 3);
	ck_assert_int_eq(line_buffer_read(&b, p[0], collect, &s, "test"), 1);
	ck_assert_str_eq(s.text, "a");
	line_buffer_flush(&b, collect, &s);
	ck_assert_str_eq(s.text, "a|b");
	line_buffer_flush(&b, collect, &s);	/* nothing left: nothing */
	ck_assert_uint_eq(s.lines, 2);
	line_buffer_free(&b);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* A child gets every signal back at its default and none blocked, but a
 * SIGHUP ignored (nohup) stays ignored. */
START_TEST(test_reset_signals)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		sigset_t all, now;
		struct sigaction sa;
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		signal(SIGPIPE, SIG_IGN);
		signal(SIGCHLD, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		child_reset_signals();
		sigprocmask(SIG_SETMASK, NULL, &now);
		int bad = sigismember(&now, SIGTERM) || sigismember(&now, SIGINT);
		sigaction(SIGPIPE, NULL, &sa);
		bad |= sa.sa_handler != SIG_DFL;
		sigaction(SIGCHLD, NULL, &sa);
		bad |= sa.sa_handler != SIG_DFL;
		sigaction(SIGHUP, NULL, &sa);
		bad |= sa.sa_handler != SIG_IGN;
		_exit(bad);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

/* Reads FD to its end into OUT (size LEN, NUL-terminated). */
static void read_all(int fd, char *out, size_t len)
{
	size_t n = 0;
	ssize_t r;
	while (n < len - 1 && (r = read(fd, out + n, len - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
}

/* child_start: the child reads what fd 3 is given, writes to the pipe
 * given as its stdout, and runs only once released. */
START_TEST(test_start_held_with_fd3)
{
	int in[2], out[2], hold[2];
	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(hold, O_CLOEXEC), 0);
	char *argv[] = { "cat", "/dev/fd/3", NULL };
	child_setup cs = { .path = "cat", .search = true, .argv = argv, .in_fd = -1,
			   .out_fd = out[1], .err_fd = CHILD_INHERIT, .fd3 = in[0],
			   .hold_fd = hold[0], .hold_writer = hold[1], .errno_fd = -1 };
	pid_t pid = child_start(&cs);
	ck_assert_int_gt(pid, 0);
	close(in[0]);
	close(out[1]);
	close(hold[0]);
	ck_assert_int_eq(write(in[1], "fd three\n", 9), 9);
	close(in[1]);
	/* held: nothing yet */
	struct pollfd pf = { out[0], POLLIN, 0 };
	ck_assert_int_eq(poll(&pf, 1, 100), 0);
	ck_assert_int_eq(write(hold[1], "g", 1), 1);
	close(hold[1]);
	char text[64];
	read_all(out[0], text, sizeof text);
	close(out[0]);
	ck_assert_str_eq(text, "fd three\n");
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

/* A hold whose pipe closes without the byte: the child never runs. */
START_TEST(test_start_abandoned)
{
	int hold[2];
	ck_assert_int_eq(pipe2(hold, O_CLOEXEC), 0);
	char *argv[] = { "true", NULL };
	child_setup cs = { .path = "/bin/true", .argv = argv, .in_fd = -1, .out_fd = -1,
			   .err_fd = -1, .fd3 = -1, .hold_fd = hold[0], .hold_writer = hold[1],
			   .errno_fd = -1 };
	pid_t pid = child_start(&cs);
	ck_assert_int_gt(pid, 0);
	close(hold[0]);
	close(hold[1]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 127);
}
END_TEST

/* An exec that fails: its errno reaches the caller's pipe, and the
 * reason is said on the child's stderr, its path made safe. */
START_TEST(test_start_exec_fails)
{
	int err[2], eno[2];
	ck_assert_int_eq(pipe2(err, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(eno, O_CLOEXEC), 0);
	char *argv[] = { "x", NULL };
	child_setup cs = { .path = "/nonexistent/bpfspec\x1b[31m", .argv = argv, .in_fd = -1,
			   .out_fd = -1, .err_fd = err[1], .fd3 = -1, .hold_fd = -1,
			   .hold_writer = -1, .errno_fd = eno[1], .say_failure = true };
	pid_t pid = child_start(&cs);
	ck_assert_int_gt(pid, 0);
	close(err[1]);
	close(eno[1]);
	int e = 0;
	ck_assert_int_eq(read(eno[0], &e, sizeof e), (ssize_t)sizeof e);
	ck_assert_int_eq(e, ENOENT);
	char text[256];
	read_all(err[0], text, sizeof text);
	ck_assert_str_eq(text, "bpfspec: error: cannot run '/nonexistent/bpfspec\\x1b[31m': "
			       "No such file or directory\n");
	close(err[0]);
	close(eno[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 127);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("child");
	TCase *tc = tcase_create("child");
	tcase_add_test(tc, test_lines_across_reads);
	tcase_add_test(tc, test_long_lines);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_reset_signals);
	tcase_add_test(tc, test_start_held_with_fd3);
	tcase_add_test(tc, test_start_abandoned);
	tcase_add_test(tc, test_start_exec_fails);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
