/* diag — messages about problems, pointing into sources (see diag.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/safe.h"

/* Echoed source lines longer than this many columns are cut to a window
 * around the caret, so a huge one-line file cannot flood the terminal. */
#define SHOW_COLS 160
#define SHOW_BEFORE 60

static FILE *diag_out;
static int diag_verbose_on;
static unsigned diag_errors;

static FILE *stream(void)
{
	return diag_out ? diag_out : stderr;
}

void diag_set_stream(FILE *out)
{
	diag_out = out;
}

void diag_set_verbose(int on)
{
	diag_verbose_on = on;
}

unsigned diag_error_count(void)
{
	return diag_errors;
}

void diag_reset_counts(void)
{
	diag_errors = 0;
}

/* Writes the message FMT, AP in safe.h's text form: whatever a path or
 * name quoted in it holds, it cannot break the line or reach the
 * terminal as a control sequence. */
static void put_message(FILE *f, const char *fmt, va_list ap)
{
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("(out of memory formatting the message)", f);
		return;
	}
	safe_fputs(msg, f);
	free(msg);
}

static void put_hint(FILE *f, const char *hint)
{
	if (!hint)
		return;
	fputs("hint: ", f);
	safe_fputs(hint, f);
	fputc('\n', f);
}

static const char *level_name(diag_level level)
{
	switch (level) {
	case DIAG_ERROR:
		return "error";
	case DIAG_WARNING:
		return "warning";
	case DIAG_NOTE:
		return "note";
	}
	return "error";
}

static int is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t diag_char_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (n == 0 || u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		len = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		len = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		len = 4;
	else
		return 1;
	if (u[0] == 0xe0)
		lo = 0xa0;
	else if (u[0] == 0xed)
		hi = 0x9f;
	else if (u[0] == 0xf0)
		lo = 0x90;
	else if (u[0] == 0xf4)
		hi = 0x8f;
	if (n < len || u[1] < lo || u[1] > hi)
		return 1;
	for (size_t i = 2; i < len; i++)
		if (!is_cont(u[i]))
			return 1;
	return len;
}

/* The code point of a valid sequence of LEN > 1 bytes. */
static uint32_t decode(const unsigned char *u, size_t len)
{
	uint32_t cp = u[0] & (0xff >> (len + 1));

	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (u[i] & 0x3f);
	return cp;
}

/* Characters a terminal would not show as themselves: C1 controls,
 * invisible and direction-changing marks, line separators, the BOM. */
static int hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
	       cp == 0xfeff;
}

/* Writes the character at S (LEN bytes) so that it takes one column:
 * tabs and printable characters as they are, anything else as '?'. */
static void put_char(FILE *f, const char *s, size_t len)
{
	unsigned char c = (unsigned char)s[0];

	if (len == 1) {
		fputc(c == '\t' || (c >= 0x20 && c < 0x7f) ? c : '?', f);
		return;
	}
	if (hidden(decode((const unsigned char *)s, len)))
		fputc('?', f);
	else
		fwrite(s, 1, len, f);
}

static unsigned count_cols(const char *s, size_t n)
{
	unsigned cols = 0;

	for (size_t i = 0; i < n; i += diag_char_len(s + i, n - i))
		cols++;
	return cols;
}

diag_loc diag_loc_of(const diag_src *src, size_t start, size_t end)
{
	diag_loc loc = { 1, 1, 1, src };
	const char *t = src->text;
	size_t line_start = 0, line_end, i;

	if (start > src->len)
		start = src->len;
	for (i = 0; i < start; i++) {
		if (t[i] == '\n') {
			loc.line++;
			line_start = i + 1;
		}
	}
	loc.col = 1 + count_cols(t + line_start, start - line_start);
	for (line_end = start; line_end < src->len && t[line_end] != '\n'; line_end++)
		;
	if (end > line_end)
		end = line_end;
	if (end > start)
		loc.span = count_cols(t + start, end - start);
	return loc;
}

/* Prints line LOC.line of SRC and a caret line under LOC.  Prints nothing
 * when the text has no such line. */
static void print_source(FILE *f, const diag_src *src, diag_loc loc)
{
	const char *t = src->text;
	size_t pos = 0, end, i;
	unsigned col, span, ncols, first = 1, last, c;
	int width = 5;
	char num[16];

	if (!t)
		return;
	for (unsigned line = 1; line < loc.line; line++) {
		const char *nl = memchr(t + pos, '\n', src->len - pos);
		if (!nl)
			return;
		pos = (size_t)(nl - t) + 1;
	}
	for (end = pos; end < src->len && t[end] != '\n'; end++)
		;
	if (end > pos && t[end - 1] == '\r')
		end--;

	ncols = count_cols(t + pos, end - pos);
	col = loc.col ? loc.col : 1;
	if (col > ncols + 1)
		col = ncols + 1;
	last = ncols;
	if (ncols > SHOW_COLS) {
		if (col > SHOW_BEFORE)
			first = col - SHOW_BEFORE;
		last = first + SHOW_COLS - 1;
		if (last > ncols) {
			last = ncols;
			first = last - SHOW_COLS + 1;
		}
	}
	span = loc.span ? loc.span : 1;
	if (col + span - 1 > last)
		span = col <= last ? last - col + 1 : 1;

	snprintf(num, sizeof(num), "%u", loc.line);
	if ((int)strlen(num) > width)
		width = (int)strlen(num);

	fprintf(f, "%*s |", width, num);
	if (ncols)
		fputs(first > 1 ? " ..." : " ", f);
	for (i = pos, c = 1; i < end; c++) {
		size_t len = diag_char_len(t + i, end - i);
		if (c >= first && c <= last)
			put_char(f, t + i, len);
		i += len;
	}
	if (last < ncols)
		fputs("...", f);
	fputc('\n', f);

	fprintf(f, "%*s | %s", width, "", first > 1 ? "   " : "");
	for (i = pos, c = 1; c < col && i < end; c++) {
		size_t len = diag_char_len(t + i, end - i);
		if (c >= first)
			fputc(t[i] == '\t' ? '\t' : ' ', f);
		i += len;
	}
	fputc('^', f);
	for (c = 1; c < span; c++)
		fputc('~', f);
	fputc('\n', f);
}

void diag_at(diag_level level, const diag_src *src, diag_loc loc,
	     const char *hint, const char *fmt, ...)
{
	FILE *f = stream();
	va_list ap;

	if (level == DIAG_ERROR)
		diag_errors++;
	if (loc.src)
		src = loc.src;
	fputs("bpfspec: ", f);
	if (src && src->path) {
		safe_fputs(src->path, f);
		if (loc.line)
			fprintf(f, ":%u:%u", loc.line, loc.col ? loc.col : 1);
		fputs(": ", f);
	}
	fprintf(f, "%s: ", level_name(level));
	va_start(ap, fmt);
	put_message(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	if (src && loc.line)
		print_source(f, src, loc);
	put_hint(f, hint);
	fflush(f);
}

void diag_verror(const char *hint, const char *fmt, va_list ap)
{
	FILE *f = stream();

	diag_errors++;
	fputs("bpfspec: error: ", f);
	put_message(f, fmt, ap);
	fputc('\n', f);
	put_hint(f, hint);
	fflush(f);
}

void diag_error(const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_verror(hint, fmt, ap);
	va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
	FILE *f = stream();
	va_list ap;

	fputs("bpfspec: warning: ", f);
	va_start(ap, fmt);
	put_message(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
}

void diag_verbose(const char *fmt, ...)
{
	FILE *f = stream();
	va_list ap;

	if (!diag_verbose_on)
		return;
	fputs("bpfspec: note: ", f);
	va_start(ap, fmt);
	put_message(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
}
