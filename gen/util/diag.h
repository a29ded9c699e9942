/* diag — every message bpfspec prints about a problem goes through here.
 *
 * Format (lower-case, one prefix):
 *   bpfspec: FILE:LINE:COL: error: MESSAGE
 *       LINE | source line
 *            |     ^~~~
 *   hint: what to do next
 * Messages without a location drop the FILE:LINE:COL part.
 *
 * Every message, hint and path is written in safe.h's text form: a
 * path or name quoted in a message cannot break its line or act on the
 * terminal.  (An echoed source line shows such characters as '?', so
 * that the caret under it stays in its column.)
 *
 * Ownership: nothing here takes ownership; strings are copied or used
 * during the call only.  The output stream defaults to stderr and can be
 * redirected (tests).  Not thread-safe (bpfspec is single-threaded). */
#ifndef BPFSPEC_DIAG_H
#define BPFSPEC_DIAG_H

#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>

/* A source text that locations point into; text need not be NUL-terminated. */
typedef struct diag_src {
	const char *path;	/* as the user named it */
	const char *text;
	size_t len;
} diag_src;

/* 1-based line and column; span = number of columns to underline (>= 1).
 * src: the text the location points into, when it is not the one passed
 * with it to diag_at (a --set value inside a spec, for instance); NULL
 * means "the SRC given alongside". */
typedef struct diag_loc {
	unsigned line;
	unsigned col;
	unsigned span;
	const struct diag_src *src;
} diag_loc;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } diag_level;

/* Redirects all diagnostics to OUT (NULL restores stderr). */
void diag_set_stream(FILE *out);

/* Prints a message pointing into SRC at LOC, with the source line and a
 * caret; HINT (may be NULL) is printed as "hint: ..." after it.
 * A LOC with line 0 prints only "FILE: level: message". */
void diag_at(diag_level level, const diag_src *src, diag_loc loc,
	     const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Prints "bpfspec: error: MESSAGE" and "hint: HINT" (HINT may be NULL). */
void diag_error(const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* diag_error with a va_list (for callers' own printf-like wrappers). */
void diag_verror(const char *hint, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Prints "bpfspec: warning: MESSAGE". */
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "bpfspec: note: MESSAGE" only when verbose is on. */
void diag_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_set_verbose(int on);

/* Columns count characters: a valid UTF-8 sequence is one column, any
 * other byte (a tab included) is one column too.  diag_char_len returns
 * the length in bytes of the character at S, which has N >= 1 bytes left. */
size_t diag_char_len(const char *s, size_t n);

/* The location of bytes [START, END) of SRC: line and column of START,
 * span = columns up to END or the end of START's line (at least 1);
 * its src is SRC, so it is shown against SRC wherever it is reported. */
diag_loc diag_loc_of(const diag_src *src, size_t start, size_t end);

/* Number of errors printed since start (or the last reset). */
unsigned diag_error_count(void);
void diag_reset_counts(void);

#endif
