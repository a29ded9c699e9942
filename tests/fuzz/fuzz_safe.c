/* libFuzzer harness for safe.c, the writers of text the traced process
 * controls: the input bytes, cut at the first NUL, are such a string.
 * Checks: the text form holds only printable ASCII and valid UTF-8
 * characters that take a column (no control byte, no C1, no bidi or
 * zero-width code point); decoding its three escapes gives the input back;
 * safe_fputs writes the same bytes as safe_text and safe_width counts
 * them; a table cell is exactly its width whatever the input (for ASCII
 * output, its length); the Prometheus label value holds no newline and no
 * unescaped quote; the lossy form is valid UTF-8.
 * Build and run: tests/fuzz/run.sh [SECONDS] safe. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/safe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The code point of the valid sequence at S (LEN bytes). */
static uint32_t code_point(const unsigned char *s, size_t len)
{
	uint32_t cp = len == 1 ? s[0] : s[0] & (0xff >> (len + 1));
	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

static void put_utf8(char **o, uint32_t cp)
{
	unsigned char *u = (unsigned char *)*o;
	size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	if (n == 1) {
		u[0] = (unsigned char)cp;
	} else {
		for (size_t i = n - 1; i > 0; i--, cp >>= 6)
			u[i] = (unsigned char)(0x80 | (cp & 0x3f));
		u[0] = (unsigned char)((0xf00 >> n) | cp);
	}
	*o += n;
}

/* Decodes the text form T; aborts on anything the form never holds. */
static char *decode(const char *t)
{
	char *out = malloc(strlen(t) + 1), *o = out;
	if (!out)
		abort();
	while (*t) {
		const unsigned char *u = (const unsigned char *)t;
		size_t len = safe_utf8_len(t, strlen(t));
		if (len == 0 || u[0] < 0x20 || u[0] == 0x7f)
			abort();	/* a raw control byte or invalid UTF-8 */
		if (len > 1) {
			uint32_t cp = code_point(u, len);
			if (cp < 0xa0 || (cp >= 0x200b && cp <= 0x200f) ||
			    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
			    cp == 0xfeff)
				abort();	/* a hidden code point left raw */
			memcpy(o, t, len);
			o += len;
			t += len;
			continue;
		}
		if (*t != '\\') {
			*o++ = *t++;
			continue;
		}
		char digits[9] = { 0 };
		if (t[1] == '\\') {
			*o++ = '\\';
			t += 2;
		} else if (t[1] == 'x') {
			memcpy(digits, t + 2, 2);
			*o++ = (char)strtoul(digits, NULL, 16);
			t += 4;
		} else if (t[1] == 'u' || t[1] == 'U') {
			size_t n = t[1] == 'u' ? 4 : 8;
			memcpy(digits, t + 2, n);
			put_utf8(&o, (uint32_t)strtoul(digits, NULL, 16));
			t += 2 + n;
		} else {
			abort();	/* a lone backslash: ambiguous */
		}
	}
	*o = '\0';
	return out;
}

static char *captured(int (*write)(const char *, FILE *), const char *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f || write(s, f) != 0)
		abort();
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	char *text = safe_text(s);
	if (!text)
		abort();
	char *back = decode(text);
	if (strcmp(back, s) != 0)
		abort();	/* not reversible */
	size_t len;
	char *written = captured(safe_fputs, s, &len);
	if (strcmp(written, text) != 0)
		abort();

	/* A cell: exactly WIDTH columns.  When the text form is ASCII, a
	 * column is a byte. */
	char *cell = NULL;
	size_t cell_len;
	FILE *f = open_memstream(&cell, &cell_len);
	if (!f || safe_fputs_cell(s, " (main)", 22, f) != 0)
		abort();
	fclose(f);
	if (memchr(cell, '\n', cell_len))
		abort();
	/* The suffix is never cut: " (main)", then only padding. */
	size_t end = cell_len;
	while (end > 0 && cell[end - 1] == ' ')
		end--;
	if (end < 6 || memcmp(cell + end - 6, "(main)", 6) != 0)
		abort();
	bool ascii = true;
	for (const char *p = text; *p; p++)
		if ((unsigned char)*p >= 0x80)
			ascii = false;
	if (ascii && cell_len != 22)
		abort();

	char *label = captured(safe_fputs_prom_label, s, &len);
	for (size_t i = 0; i < len; i++) {
		if (label[i] == '\n')
			abort();
		if (label[i] == '\\')
			i++;	/* an escape: the next byte is taken as is */
		else if (label[i] == '"')
			abort();
	}

	char *lossy = safe_utf8_lossy(s);
	if (!lossy || !safe_utf8_valid(lossy, strlen(lossy)))
		abort();

	free(lossy);
	free(label);
	free(cell);
	free(written);
	free(back);
	free(text);
	free(s);
	return 0;
}
