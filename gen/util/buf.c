/* buf — see buf.h. */
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool buf_reserve(buf *b, size_t extra)
{
	if (b->failed)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1) {
		if (cap > (size_t)-1 / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	char *d = realloc(b->data, cap);
	if (!d) {
		b->failed = true;
		return false;
	}
	b->data = d;
	b->cap = cap;
	return true;
}

void buf_put(buf *b, const char *s, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_putc(buf *b, char c)
{
	buf_put(b, &c, 1);
}

void buf_puts(buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void buf_printf(buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if ((size_t)n < sizeof small) {
		buf_put(b, small, (size_t)n);
		return;
	}
	if (!buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *buf_take(buf *b)
{
	char *d = b->data;
	bool failed = b->failed;

	if (!failed && !d)
		d = calloc(1, 1);
	if (failed) {
		free(d);
		d = NULL;
	}
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
	return d;
}

void buf_free(buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}
