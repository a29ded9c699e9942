/* helpers.h — what the unit tests share: substring assertions, counting,
 * and capturing what diag prints.  Header-only (static inline), so each
 * test stays one file that make builds alone. */
#ifndef BPFSPEC_TEST_HELPERS_H
#define BPFSPEC_TEST_HELPERS_H

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "util/diag.h"

#define ck_assert_contains(hay, needle)                                    \
	ck_assert_msg(strstr((hay), (needle)) != NULL,                     \
		      "expected \"%s\" in:\n%s", (needle), (hay))
#define ck_assert_lacks(hay, needle)                                       \
	ck_assert_msg(strstr((hay), (needle)) == NULL,                     \
		      "did not expect \"%s\" in:\n%s", (needle), (hay))

/* A child of this test that waits until killed, named NAME (NULL: as
 * this test); returns once it is named and SIGTERM ends it (check's
 * SIGTERM handler, inherited, would end the whole process group). */
static inline pid_t waiting_child(const char *name)
{
	int fds[2];
	char c;
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		if (name)
			prctl(PR_SET_NAME, name);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &c, 1), 1);
	close(fds[0]);
	return pid;
}

/* Occurrences of NEEDLE in HAY (not overlapping). */
static inline unsigned count_of(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Number of lines of TEXT that begin with PREFIX. */
static inline unsigned lines_starting(const char *text, const char *prefix)
{
	unsigned n = 0;
	size_t len = strlen(prefix);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, len) == 0)
			n++;
	return n;
}

/* What diag prints between capture_start and capture_end. */
typedef struct capture {
	char *buf;
	size_t len;
	FILE *file;
} capture;

static inline capture *capture_state(void)
{
	static capture c;
	return &c;
}

/* Sends diag's output to memory and resets its error counts. */
static inline void capture_start(void)
{
	capture *c = capture_state();
	c->file = open_memstream(&c->buf, &c->len);
	ck_assert_ptr_nonnull(c->file);
	diag_set_stream(c->file);
	diag_reset_counts();
}

/* Returns what diag printed since capture_start (owned). */
static inline char *capture_end(void)
{
	capture *c = capture_state();
	diag_set_stream(NULL);
	fclose(c->file);
	char *s = c->buf;
	c->buf = NULL;
	c->file = NULL;
	return s;
}

/* Runs suite S (owned) and returns the exit status of a test binary. */
static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Fails naming the first line where GOT and WANT differ (check cannot
 * carry a message as long as a whole output). */
static inline void assert_same_text(const char *got, const char *want)
{
	size_t i = 0, line = 1, start = 0;
	while (got[i] && got[i] == want[i]) {
		if (got[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	ck_assert_msg(got[i] == want[i], "line %zu differs:\n got: %.*s\nwant: %.*s", line,
		      (int)strcspn(got + start, "\n"), got + start,
		      (int)strcspn(want + start, "\n"), want + start);
}

#endif
