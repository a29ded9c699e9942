/* tmpl — see tmpl.h. */
#include "util/tmpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "util/buf.h"

const char *tmpl_get(const char *name)
{
	char path[256];

	if (snprintf(path, sizeof path, "templates/%s", name) >= (int)sizeof path)
		return NULL;
	const embedded_file *f = embedded_find(path);
	return f ? f->data : NULL;
}

static int is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || c == '_';
}

static int is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

char *tmpl_render(const char *name, const char *text, tmpl_lookup_fn lookup,
		  void *ctx, char *errbuf, size_t errlen)
{
	buf out = BUF_INIT;
	unsigned line = 1;
	const char *p = text;
	int at_line_start = 1;

	while (*p) {
		if (at_line_start && p[0] == '#' && p[1] == '#') {
			const char *nl = strchr(p, '\n');
			if (!nl)
				break;
			p = nl + 1;
			line++;
			continue;
		}
		at_line_start = 0;
		if (p[0] == '$' && p[1] == '{') {
			char key[64];
			size_t n = 0;
			const char *q = p + 2;
			while (is_name_char(*q) && n + 1 < sizeof key)
				key[n++] = *q++;
			key[n] = '\0';
			if (*q != '}' || n == 0 || !is_name_start(key[0])) {
				snprintf(errbuf, errlen,
					 "template %s:%u: malformed placeholder", name, line);
				buf_free(&out);
				return NULL;
			}
			const char *val = lookup(key, ctx);
			if (!val) {
				snprintf(errbuf, errlen,
					 "template %s:%u: unknown placeholder '${%s}'",
					 name, line, key);
				buf_free(&out);
				return NULL;
			}
			buf_puts(&out, val);
			p = q + 1;
			/* A line that was only an empty placeholder disappears. */
			if (!*val && *p == '\n' && (out.len == 0 || out.data[out.len - 1] == '\n')) {
				p++;
				line++;
				at_line_start = 1;
			}
			continue;
		}
		if (*p == '\n') {
			line++;
			at_line_start = 1;
		}
		buf_putc(&out, *p++);
	}
	if (out.failed) {
		snprintf(errbuf, errlen, "template %s: out of memory", name);
		buf_free(&out);
		return NULL;
	}
	return buf_take(&out);
}
