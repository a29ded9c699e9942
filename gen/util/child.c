/* child — see child.h. */
#include "util/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/safe.h"

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

/* Makes FD the child's TARGET (CHILD_INHERIT: left as it is, -1:
 * /dev/null).  Returns 0, or -1. */
static int give_fd(int fd, int target)
{
	if (fd == CHILD_INHERIT)
		return 0;
	if (fd < 0) {
		fd = open("/dev/null", (target == STDIN_FILENO ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
		if (fd < 0)
			return -1;
	}
	if (fd == target) {
		/* dup2 onto itself would keep close-on-exec */
		int fl = fcntl(fd, F_GETFD);
		return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
	}
	return dup2(fd, target) < 0 ? -1 : 0;
}

/* Waits for the byte that lets the child go on.  Returns 0, or -1 when
 * the pipe closed without one. */
static int wait_release(int fd)
{
	char c;
	ssize_t n;
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/* The child's side of child_start: never returns. */
static void run_child(const child_setup *s, pid_t parent)
{
	child_reset_signals();
	if (s->own_group)
		setpgid(0, 0);
	if (s->death_signal) {
		prctl(PR_SET_PDEATHSIG, s->death_signal);
		if (getppid() != parent)
			_exit(127);	/* bpfspec ended before the line above */
	}
	if (give_fd(s->in_fd, STDIN_FILENO) < 0 || give_fd(s->out_fd, STDOUT_FILENO) < 0 ||
	    give_fd(s->err_fd, STDERR_FILENO) < 0 || (s->fd3 >= 0 && give_fd(s->fd3, 3) < 0))
		_exit(127);
	if (s->hold_writer >= 0)
		close(s->hold_writer);
	if (s->hold_fd >= 0 && wait_release(s->hold_fd) < 0)
		_exit(127);
	if (s->before_exec)
		s->before_exec(s->ctx);
	if (s->search)
		execvp(s->path, s->argv);
	else
		execv(s->path, s->argv);
	int e = errno;
	if (s->errno_fd >= 0 && write(s->errno_fd, &e, sizeof e) < 0)
		_exit(127);
	if (s->say_failure) {
		fputs("bpfspec: error: cannot run '", stderr);
		safe_fputs(s->path, stderr);
		fprintf(stderr, "': %s\n", strerror(e));
	}
	_exit(127);
}

pid_t child_start(const child_setup *s)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0)
		run_child(s, parent);
	if (pid > 0 && s->own_group)
		setpgid(pid, pid);	/* either side may run first */
	return pid;
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
