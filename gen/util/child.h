/* child — what bpfspec's child processes share (bpftrace under the
 * runner, `bpfspec run` under serve, a held -c command): the signals a
 * fork must not pass on, and the reading of a child's output by lines.
 *
 * Ownership: a line_buffer owns its data; line_buffer_free releases it
 * (a zeroed buffer is empty and needs no setup). */
#ifndef BPFSPEC_CHILD_H
#define BPFSPEC_CHILD_H

#include <stddef.h>

/* bpftrace's longest line handed over whole (the runner's max_line): a
 * longer one is not bpftrace's, and goes in pieces of this size. */
#define CHILD_LINE_MAX (16u << 20)

/* In a fork, before exec: unblocks every signal and puts every signal
 * back to its default (bpfspec blocks the stop signals and ignores
 * SIGPIPE; an ignored SIGCHLD inherited from further up would keep a
 * child from reaping its own).  A SIGHUP the user ignores (nohup) stays
 * ignored. */
void child_reset_signals(void);

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
