/* oneliner — see oneliner.h. */
#include "spec/oneliner.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

/* Appends S as a double-quoted YAML scalar. */
static void put_quoted(buf *b, const char *s)
{
	buf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_printf(b, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			buf_printf(b, "\\x%02x", *p);
		else
			buf_putc(b, (char)*p);
	}
	buf_putc(b, '"');
}

/* A probe name from a function name: lower-case letters, digits and '_',
 * starting with a letter, at most 32 bytes, unique among the first N.
 * A C name that is already one (uv__io_poll) is kept as it is. */
static void probe_name(char *out, size_t len, const char *func, char names[][33], size_t n)
{
	size_t k = 0;
	for (const char *p = func; *p && k + 1 < len && k < 32; p++) {
		char c = *p;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			c = '_';
		if (k == 0 && !(c >= 'a' && c <= 'z'))
			continue;	/* leading '_' or digits */
		/* "ns::f" -> "ns_f"; a C name keeps its "__" (uv__io_poll),
		 * so that checks and diffs find it by the name typed. */
		if (c == '_' && k && out[k - 1] == '_' && *p != '_')
			continue;
		out[k++] = c;
	}
	while (k && out[k - 1] == '_')
		k--;
	if (k == 0)
		k = (size_t)snprintf(out, len, "func");
	out[k] = '\0';
	char base[33];
	snprintf(base, sizeof base, "%.32s", out);
	for (unsigned dup = 2;; dup++) {
		bool taken = false;
		for (size_t i = 0; i < n; i++)
			if (strcmp(names[i], out) == 0)
				taken = true;
		if (!taken)
			return;
		char suffix[16];
		int sl = snprintf(suffix, sizeof suffix, "_%u", dup);
		snprintf(out, len, "%.*s%s", 32 - sl, base, suffix);
	}
}

static void put_duration(buf *b, uint64_t ns)
{
	if (ns == 0)
		return;		/* until Ctrl-C or the target exits */
	if (ns % 1000000000ull == 0)
		buf_printf(b, "duration: %llus\n", (unsigned long long)(ns / 1000000000ull));
	else if (ns % 1000000ull == 0)
		buf_printf(b, "duration: %llums\n", (unsigned long long)(ns / 1000000ull));
	else
		buf_printf(b, "duration: %lluns\n", (unsigned long long)ns);
}

char *oneliner_latency(char *const *funcs, size_t n_funcs, uint64_t duration_ns)
{
	buf b = BUF_INIT;
	char names[64][33];

	buf_puts(&b, "# Written by `bpfspec latency`: entry-to-return latency of functions,\n"
		     "# looked up in the executable first, then in every mapped library.\n"
		     "name: latency\n"
		     "objects: [main, \"*\"]\n");
	put_duration(&b, duration_ns);
	buf_puts(&b, "probes:\n");
	for (size_t i = 0; i < n_funcs && i < 64; i++) {
		probe_name(names[i], sizeof names[i], funcs[i], names, i);
		buf_printf(&b, "  - name: %s\n    kind: latency\n    function: ", names[i]);
		put_quoted(&b, funcs[i]);
		buf_puts(&b, "\n    unit: auto\n");
	}
	if (n_funcs > 64)
		buf_puts(&b, "# (only the first 64 functions)\n");
	return buf_take(&b);
}

char *oneliner_count(char *const *points, size_t n_points, uint64_t duration_ns)
{
	buf b = BUF_INIT;
	char names[64][33];

	buf_puts(&b, "# Written by `bpfspec count`: how often each probe point fires, per\n"
		     "# thread.\n"
		     "name: count\n");
	put_duration(&b, duration_ns);
	buf_puts(&b, "probes:\n");
	for (size_t i = 0; i < n_points && i < 64; i++) {
		const char *pt = points[i], *last = strrchr(pt, ':');
		char base[80];
		last = last ? last + 1 : pt;
		if (strncmp(pt, "profile:", 8) == 0)
			snprintf(base, sizeof base, "profile");
		else if (strncmp(pt, "interval:", 9) == 0)
			snprintf(base, sizeof base, "ticks");
		else if (strncmp(pt, "kretprobe:", 10) == 0 || strncmp(pt, "uretprobe:", 10) == 0)
			snprintf(base, sizeof base, "%.60s_ret", last);
		else if (strncmp(pt, "software:", 9) == 0)
			snprintf(base, sizeof base, "%.*s", (int)strcspn(pt + 9, ":"), pt + 9);
		else
			snprintf(base, sizeof base, "%s", last);
		probe_name(names[i], sizeof names[i], base, names, i);
		buf_printf(&b, "  - name: %s\n    kind: count\n    probe: ", names[i]);
		put_quoted(&b, pt);
		buf_putc(&b, '\n');
	}
	if (n_points > 64)
		buf_puts(&b, "# (only the first 64 probe points)\n");
	return buf_take(&b);
}

char *oneliner_syscalls(const char *list, uint64_t duration_ns)
{
	buf b = BUF_INIT;

	buf_puts(&b, "# Written by `bpfspec syscalls`: syscall latency and errors, per\n"
		     "# syscall and thread.\n"
		     "name: syscalls\n");
	put_duration(&b, duration_ns);
	buf_puts(&b, "probes:\n  - name: syscalls\n    kind: syscalls\n    syscalls: ");
	if (!list || !*list || strcmp(list, "all") == 0) {
		buf_puts(&b, "all\n");
	} else {
		buf_putc(&b, '[');
		char *copy = strdup(list), *save = NULL;
		int first = 1;
		for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
		     t = strtok_r(NULL, ",", &save)) {
			buf_puts(&b, first ? "" : ", ");
			put_quoted(&b, t);
			first = 0;
		}
		free(copy);
		buf_puts(&b, "]\n");
	}
	buf_puts(&b, "    unit: auto\n");
	return buf_take(&b);
}
