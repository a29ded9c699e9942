/* safe — the one rule for writing text that bpfspec did not choose
 * (see safe.h). */
#include "util/safe.h"

#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

size_t safe_utf8_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;
	uint32_t cp, min;

	if (n == 0)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		len = 2, cp = u[0] & 0x1f, min = 0x80;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		len = 3, cp = u[0] & 0x0f, min = 0x800;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		len = 4, cp = u[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

bool safe_utf8_valid(const char *s, size_t n)
{
	for (size_t i = 0, len; i < n; i += len)
		if ((len = safe_utf8_len(s + i, n - i)) == 0)
			return false;
	return true;
}

char *safe_utf8_lossy(const char *s)
{
	size_t len = strlen(s), o = 0;
	char *copy = malloc(len * 3 + 1);

	if (!copy)
		return NULL;
	for (size_t i = 0, n; i < len; i += n) {
		n = safe_utf8_len(s + i, len - i);
		if (n) {
			memcpy(copy + o, s + i, n);
			o += n;
		} else {
			memcpy(copy + o, "\xef\xbf\xbd", 3);	/* U+FFFD */
			o += 3;
			n = 1;
		}
	}
	copy[o] = '\0';
	return copy;
}

static uint32_t decode(const unsigned char *u, size_t len)
{
	uint32_t cp = len == 1 ? u[0] : u[0] & (0xff >> (len + 1));

	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (u[i] & 0x3f);
	return cp;
}

size_t safe_wire_encode(const unsigned char *s, size_t n, char *out, size_t *used)
{
	size_t len = safe_utf8_len((const char *)s, n);
	uint32_t cp;

	if (len > 0 && (len != SAFE_WIRE_LEN || (cp = decode(s, len)) < SAFE_WIRE_BASE + 0x80)) {
		memcpy(out, s, len);
		*used = len;
		return len;
	}
	cp = SAFE_WIRE_BASE + s[0];
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	*used = 1;
	return SAFE_WIRE_LEN;
}

void safe_wire_decode(char *s)
{
	char *o = s;
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		/* U+10FF80..U+10FFFF is F4 8F BE/BF xx. */
		if (u[0] == 0xf4 && u[1] == 0x8f && (u[2] == 0xbe || u[2] == 0xbf) &&
		    (u[3] & 0xc0) == 0x80) {
			*o++ = (char)((u[2] & 0x03) << 6 | (u[3] & 0x3f));
			u += 4;
		} else {
			*o++ = (char)*u++;
		}
	}
	*o = '\0';
}

/* Columns a terminal gives CP, or 0 when it must be escaped.  wcwidth(3)
 * answers in the C.UTF-8 locale, whatever the process's own locale; when
 * that locale is missing, only the ranges listed here are shown as they
 * are, one column each. */
static int columns(uint32_t cp)
{
	static locale_t utf8;
	static bool tried;

	if (cp < 0xa0 || cp == 0xad)	/* C1 controls; the soft hyphen */
		return 0;
	if (!tried) {
		tried = true;
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	}
	if (!utf8) {
		bool hidden = (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
			      (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff || cp == 0x061c ||
			      (cp >= 0x0300 && cp <= 0x036f) || (cp >= 0xd800 && cp <= 0xf8ff) ||
			      cp >= 0xe0000;
		return hidden ? 0 : 1;
	}
	locale_t old = uselocale(utf8);
	int w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w > 0 ? w : 0;
}

/* One character of S's text form: its text in OUT (NUL-terminated, at
 * most 10 bytes + NUL), its columns in *COLS.  Returns the bytes of S it
 * stands for (0 at the end of S). */
static size_t next_unit(const char *s, char out[12], size_t *cols)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;

	if (!*u)
		return 0;
	len = safe_utf8_len(s, strnlen(s, 4));
	if (len == 0 || (len == 1 && (u[0] < 0x20 || u[0] == 0x7f))) {
		snprintf(out, 12, "\\x%02x", u[0]);
		*cols = 4;
		return 1;
	}
	if (len == 1) {
		if (u[0] == '\\') {
			memcpy(out, "\\\\", 3);
			*cols = 2;
		} else {
			out[0] = (char)u[0];
			out[1] = '\0';
			*cols = 1;
		}
		return 1;
	}
	uint32_t cp = decode(u, len);
	int w = columns(cp);
	if (w == 0) {
		int n = snprintf(out, 12, cp > 0xffff ? "\\U%08x" : "\\u%04x", (unsigned)cp);
		*cols = (size_t)n;
	} else {
		memcpy(out, s, len);
		out[len] = '\0';
		*cols = (size_t)w;
	}
	return len;
}

char *safe_text(const char *s)
{
	char unit[12], *text;
	size_t cols, used = 0, cap = 0;

	if (!s)
		s = "?";
	for (const char *p = s; *p;) {
		size_t n = next_unit(p, unit, &cols);
		cap += strlen(unit);
		p += n;
	}
	text = malloc(cap + 1);
	if (!text)
		return NULL;
	for (const char *p = s; *p;) {
		size_t n = next_unit(p, unit, &cols);
		size_t ul = strlen(unit);
		memcpy(text + used, unit, ul);
		used += ul;
		p += n;
	}
	text[used] = '\0';
	return text;
}

/* Writes S's text form to OUT with a backslash before each character of
 * it that is in MORE (a second layer of escaping: a quote, a format's
 * own escapes).  Returns 0, or -1 on a write error. */
static int put_text(const char *s, const char *more, FILE *out)
{
	char unit[12];
	size_t cols;

	if (!s)
		s = "?";
	for (size_t n; (n = next_unit(s, unit, &cols)) > 0; s += n)
		for (const char *c = unit; *c; c++)
			if ((strchr(more, *c) && fputc('\\', out) == EOF) || fputc(*c, out) == EOF)
				return -1;
	return 0;
}

int safe_fputs(const char *s, FILE *out)
{
	return put_text(s, "", out);
}

int safe_fputs_quoted(const char *s, FILE *out)
{
	if (fputc('"', out) == EOF || put_text(s, "\"", out) < 0)
		return -1;
	return fputc('"', out) == EOF ? -1 : 0;
}

size_t safe_width(const char *s)
{
	char unit[12];
	size_t cols, width = 0;

	if (!s)
		s = "?";
	for (size_t n; (n = next_unit(s, unit, &cols)) > 0; s += n)
		width += cols;
	return width;
}

int safe_fputs_cell(const char *s, const char *suffix, size_t width, FILE *out)
{
	static const char cut_mark[] = "..";
	size_t suffix_cols = suffix ? strlen(suffix) : 0;
	size_t room, cols, used = 0;
	char unit[12];
	bool cut = safe_width(s) + suffix_cols > width;

	if (!s)
		s = "?";
	/* What S may take: all but the suffix, and the cut mark when cut. */
	room = width > suffix_cols ? width - suffix_cols : 0;
	if (cut)
		room = room > strlen(cut_mark) ? room - strlen(cut_mark) : 0;
	for (size_t n; (n = next_unit(s, unit, &cols)) > 0 && used + cols <= room; s += n) {
		if (fputs(unit, out) == EOF)
			return -1;
		used += cols;
	}
	if (cut && fputs(cut_mark, out) == EOF)
		return -1;
	if (suffix && fputs(suffix, out) == EOF)
		return -1;
	used += (cut ? strlen(cut_mark) : 0) + suffix_cols;
	for (; used < width; used++)
		if (fputc(' ', out) == EOF)
			return -1;
	return 0;
}

int safe_fputs_prom_label(const char *s, FILE *out)
{
	return put_text(s, "\\\"", out);
}

int safe_fputs_html(const char *s, FILE *out)
{
	char unit[12];
	size_t cols;

	if (!s)
		s = "?";
	for (size_t n; (n = next_unit(s, unit, &cols)) > 0; s += n)
		for (const char *c = unit; *c; c++) {
			const char *ref = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;"
				       : *c == '"' ? "&quot;" : *c == '\'' ? "&#39;" : NULL;
			if (ref ? fputs(ref, out) == EOF : fputc(*c, out) == EOF)
				return -1;
		}
	return 0;
}

void safe_hex(char *out, const char *s, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[(unsigned char)s[i] >> 4];
		out[2 * i + 1] = digits[(unsigned char)s[i] & 0xf];
	}
	out[2 * n] = '\0';
}

int safe_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
