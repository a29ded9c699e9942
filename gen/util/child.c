/* child — see child.h. */
#include "util/child.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/diag.h"

void child_reset_signals(void)
{
	sigset_t none;
	struct sigaction sa;
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGHUP && sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			continue;
		signal(sig, SIG_DFL);	/* SIGKILL, SIGSTOP and the unused: refused, harmless */
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Room for N more bytes and a NUL.  Returns 0, or -1 out of memory. */
static int reserve(line_buffer *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 65536;
	while (cap < b->len + n + 1)
		cap *= 2;
	char *d = realloc(b->data, cap);
	if (!d)
		return -1;
	b->data = d;
	b->cap = cap;
	return 0;
}

/* Hands over B's complete lines (a '\n' ends each, or max_line bytes),
 * and all of it when LAST; keeps the rest. */
static void hand_over(line_buffer *b, line_fn fn, void *ctx, int last)
{
	size_t start = 0;
	for (size_t i = 0; i < b->len; i++) {
		if (b->data[i] != '\n' && (!b->max_line || i - start < b->max_line))
			continue;
		if (b->data[i] == '\n') {
			b->data[i] = '\0';
			fn(ctx, b->data + start, i - start);
			start = i + 1;
		} else {	/* max_line bytes without a '\n': a piece */
			char keep = b->data[i];
			b->data[i] = '\0';
			fn(ctx, b->data + start, i - start);
			b->data[i] = keep;
			start = i;
		}
	}
	if (last && start < b->len) {
		b->data[b->len] = '\0';
		fn(ctx, b->data + start, b->len - start);
		start = b->len;
	}
	memmove(b->data, b->data + start, b->len - start);
	b->len -= start;
}

int line_buffer_read(line_buffer *b, int fd, line_fn fn, void *ctx, const char *who)
{
	char chunk[65536];
	ssize_t n;
	do
		n = read(fd, chunk, sizeof chunk);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n <= 0) {
		if (b->len)
			hand_over(b, fn, ctx, 1);
		return -1;
	}
	if (reserve(b, (size_t)n) < 0) {
		diag_error(NULL, "out of memory reading %s's output", who);
		return 1;
	}
	memcpy(b->data + b->len, chunk, (size_t)n);
	b->len += (size_t)n;
	hand_over(b, fn, ctx, 0);
	return 1;
}

void line_buffer_flush(line_buffer *b, line_fn fn, void *ctx)
{
	if (b->len)
		hand_over(b, fn, ctx, 1);
}

void line_buffer_free(line_buffer *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
