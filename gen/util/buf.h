/* buf — a growable byte buffer for building text (scripts, reports).
 *
 * Allocation failure is sticky: it sets `failed`, later appends do
 * nothing, and the owner checks `failed` once at the end.
 * Ownership: the buffer owns `data`; buf_take hands it to the caller and
 * resets the buffer; buf_free on an empty buffer is a no-op. */
#ifndef BPFSPEC_BUF_H
#define BPFSPEC_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct buf {
	char *data;	/* NUL-terminated when len > 0 */
	size_t len;
	size_t cap;
	bool failed;
} buf;

#define BUF_INIT { NULL, 0, 0, false }

void buf_putc(buf *b, char c);
void buf_puts(buf *b, const char *s);
void buf_put(buf *b, const char *s, size_t n);
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Returns the owned, NUL-terminated text ("" when empty), or NULL when an
 * allocation failed; the buffer is reset either way. */
char *buf_take(buf *b);
void buf_free(buf *b);

#endif
