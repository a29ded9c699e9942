/* child — what bpfspec's child processes share (bpftrace under the
 * runner, `bpftrace --version`, `bpfspec run` under serve, a held -c
 * command): how one is started (never through a shell), and the reading
 * of its output by lines.
 *
 * Ownership: a line_buffer owns its data; line_buffer_free releases it
 * (a zeroed buffer is empty and needs no setup). */
#ifndef BPFSPEC_CHILD_H
#define BPFSPEC_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* bpftrace's longest line handed over whole (the runner's max_line): a
 * longer one is not bpftrace's, and goes in pieces of this size. */
#define CHILD_LINE_MAX (16u << 20)

/* In a fork, before exec: unblocks every signal and puts every signal
 * back to its default (bpfspec blocks the stop signals and ignores
 * SIGPIPE; an ignored SIGCHLD inherited from further up would keep a
 * child from reaping its own).  A SIGHUP the user ignores (nohup) stays
 * ignored. */
void child_reset_signals(void);

/* A child's fd that is bpfspec's own (child_setup.in_fd, out_fd, err_fd). */
#define CHILD_INHERIT (-2)

/* What a child gets before its exec. */
typedef struct child_setup {
	const char *path;	/* the program's path, or with search its name */
	bool search;		/* looked up in PATH (execvp) */
	char *const *argv;
	int in_fd, out_fd, err_fd;	/* its stdin, stdout, stderr: an fd,
					 * CHILD_INHERIT, or -1 for /dev/null */
	int fd3;		/* -1, or what it gets as fd 3 (a program, a spec) */
	int hold_fd;		/* -1, or a pipe's read end: it waits for one byte
				 * there before its exec, and exits (127) if the
				 * pipe closes without one */
	int hold_writer;	/* that pipe's write end (closed in the child, so
				 * that bpfspec's copy alone keeps it open), or -1 */
	int death_signal;	/* 0, or what it gets when bpfspec ends
				 * (PR_SET_PDEATHSIG; it exits at once if bpfspec
				 * has ended already) */
	bool own_group;		/* in a process group of its own */
	int errno_fd;		/* -1, or an O_CLOEXEC pipe's write end that gets
				 * the errno (an int) when the exec fails */
	bool say_failure;	/* the exec's failure said on its stderr:
				 * "bpfspec: error: cannot run 'PATH': REASON" */
	void (*before_exec)(void *ctx);	/* NULL, or the last step before the exec
					 * (its environment) */
	void *ctx;
} child_setup;

/* Forks a child with the signals put back (child_reset_signals), set up
 * as S says, which then execs S->path; if the exec fails it exits with
 * status 127.  Returns its pid, or -1 (errno set) when the fork failed.
 * The caller keeps its fds: the child's copies are its own. */
pid_t child_start(const child_setup *s);

/* The part of a line read so far. */
typedef struct line_buffer {
	char *data;
	size_t len, cap;
	size_t max_line;	/* a line longer goes in pieces; 0: no limit */
} line_buffer;

/* Called per line: LINE[0..LEN) without its '\n', NUL-terminated. */
typedef void (*line_fn)(void *ctx, const char *line, size_t len);

/* Reads what FD has (one read) and calls FN for every line it completes.
 * Returns 1 when it read something, 0 when there was nothing to read yet
 * (EAGAIN), -1 at the end of the output or on an error: the last
 * line, when it has no '\n', is then handed over too (FD is the caller's
 * to close).  Out of memory, the bytes read are dropped and WHO is named
 * in the error ("bpftrace"). */
int line_buffer_read(line_buffer *b, int fd, line_fn fn, void *ctx, const char *who);

/* Hands over what B holds of a line without its '\n' yet, if anything
 * (a child that ended while something else kept its pipe open). */
void line_buffer_flush(line_buffer *b, line_fn fn, void *ctx);

void line_buffer_free(line_buffer *b);

#endif
