/* Unit tests for util/child.c: the line reader runner and serve share
 * (lines split across reads, the last line without its '\n', lines over
 * the limit in pieces, no limit for serve's reports, NUL-terminated
 * lines) and the signal reset of a fork. */
#include <check.h>
#include <fcntl.h>
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

static Suite *suite(void)
{
	Suite *s = suite_create("child");
	TCase *tc = tcase_create("child");
	tcase_add_test(tc, test_lines_across_reads);
	tcase_add_test(tc, test_long_lines);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_reset_signals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
