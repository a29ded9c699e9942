/* safe — the one rule for writing text that bpfspec did not choose.
 *
 * Thread names, file paths, lines a shell read, USDT string arguments,
 * the target's executable and object paths, symbol names in its binary,
 * and every string of a report read back from a file (diff, report) can
 * be set by whoever controls the traced process.  Before such a string
 * reaches a terminal, a log, a scrape or a page it goes through the
 * writer of that output kind below; nothing else decides how it looks.
 *
 * The text form (terminals, stderr, Prometheus label values):
 *   - printable characters as they are (valid UTF-8 of width >= 1);
 *   - a backslash as "\\", so every escape below is unambiguous;
 *   - a control byte (C0, DEL) and each byte of invalid UTF-8 as "\xNN";
 *   - a code point a terminal would act on or not show as itself (C1
 *     controls such as U+009B CSI, bidirectional overrides and isolates,
 *     zero-width and other format characters, line and paragraph
 *     separators, the BOM, combining marks, unassigned code points:
 *     anything wcwidth(3) gives no column) as "\uNNNN", or "\UNNNNNNNN"
 *     above U+FFFF;
 *   hex digits lower-case.  The form is reversible: decoding the three
 *   escapes gives back the original bytes.
 *
 * A bottom module: standard headers only; nothing of ours above it.
 * Ownership: safe_text returns an owned string (free it) or NULL when out
 * of memory; the writers borrow their arguments.  A NULL string is
 * written as "?". */
#ifndef BPFSPEC_SAFE_H
#define BPFSPEC_SAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Length in bytes of the valid UTF-8 sequence at S (at most N bytes
 * read; S need not be NUL-terminated), or 0 when S does not start one:
 * overlong forms, surrogates and code points above U+10FFFF are invalid. */
size_t safe_utf8_len(const char *s, size_t n);

/* True when all of S (N bytes) is valid UTF-8. */
bool safe_utf8_valid(const char *s, size_t n);

/* S with each byte of an invalid UTF-8 sequence replaced by U+FFFD
 * (owned), or NULL when out of memory: what a JSON string can carry.
 * Lossy; JSON writers pair it with safe_hex of the exact bytes. */
char *safe_utf8_lossy(const char *s);

/* The text form of S, NUL-terminated (owned), or NULL when out of memory. */
char *safe_text(const char *s);

/* Writes the text form of S to OUT.  Returns 0, or -1 on a write error. */
int safe_fputs(const char *s, FILE *out);

/* Writes S in double quotes: the text form with '"' also escaped as
 * "\"" (for values whose end must be visible: event arguments). */
int safe_fputs_quoted(const char *s, FILE *out);

/* Columns a terminal gives the text form of S. */
size_t safe_width(const char *s);

/* Writes the text form of S followed by SUFFIX (ours, printable ASCII;
 * may be NULL) in exactly WIDTH columns, left-aligned and padded with
 * spaces.  When it does not fit, S's text form is cut at a character (an
 * escape is never split) and ends with "..", then SUFFIX: a hostile name
 * can neither push the next column nor hide the suffix.  A table's
 * column of names is then as wide as its header says. */
int safe_fputs_cell(const char *s, const char *suffix, size_t width, FILE *out);

/* Writes S as a Prometheus label value (without the quotes): its text
 * form, with '\\' and '"' escaped as the exposition format requires, so
 * the value a scraper reads is the text form. */
int safe_fputs_prom_label(const char *s, FILE *out);

/* Writes S for HTML text or a quoted attribute value: its text form,
 * with '&', '<', '>', '"' and '\'' as character references, so the page
 * shows the text form and no byte of S can open a tag or end a value. */
int safe_fputs_html(const char *s, FILE *out);

/* Raw bytes through a UTF-8-only channel (bpftrace's JSON output, once
 * bpfout has repaired it): byte B of a sequence that is not valid UTF-8
 * travels as code point SAFE_WIRE_BASE + B (B >= 0x80; plane 16, private
 * use), and so does each byte of a real character in that range, so the
 * mapping is exact both ways.  SAFE_WIRE_LEN is the UTF-8 length of one. */
#define SAFE_WIRE_BASE 0x10ff00u
#define SAFE_WIRE_LEN 4

/* Encodes the N bytes at S (N >= 1) for the wire into OUT (room for
 * SAFE_WIRE_LEN * N bytes): a valid UTF-8 character outside the reserved
 * range as it is, anything else byte by byte.  Sets *USED to the bytes of
 * S consumed (a whole character or one byte); returns the bytes written. */
size_t safe_wire_encode(const unsigned char *s, size_t n, char *out, size_t *used);

/* Decodes wire text S in place: each reserved code point back to its
 * byte.  The result is never longer; it holds no NUL byte if S held none. */
void safe_wire_decode(char *s);

/* Writes the N bytes of S as lower-case hex ("ff1b") into OUT, which has
 * room for 2 * N + 1 bytes. */
void safe_hex(char *out, const char *s, size_t n);

/* The value of hex digit C (either case), or -1. */
int safe_hex_value(char c);

#endif
