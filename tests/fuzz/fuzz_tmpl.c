/* libFuzzer harness for the template expander (tmpl.c): the input bytes,
 * cut at the first NUL, are a template; the lookup knows a few names,
 * among them an empty value (a line holding only it disappears) and a
 * value that itself looks like a placeholder (it must be copied, never
 * expanded again).  Checks: an error leaves a message naming the template
 * that fits ERRBUF, names passed to the lookup fit tmpl's 64-byte buffer,
 * and the output is at most the input with every placeholder replaced by
 * the longest value.
 * Build and run: tests/fuzz/run.sh [SECONDS] tmpl. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/tmpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct { const char *name, *value; } values[] = {
	{ "name", "timers" },
	{ "key", "tid" },
	{ "empty", "" },
	{ "entry_filter", "/pid == 1234/" },
	{ "nested", "${name}" },	/* must come out verbatim */
	{ "long_value", "0123456789012345678901234567890123456789" },
	{ "a", "x" },
	{ "_", "\n" },
};
#define LONGEST 40

static unsigned lookups;

static const char *lookup(const char *name, void *ctx)
{
	(void)ctx;
	lookups++;
	if (strlen(name) >= 64)
		abort();	/* tmpl promised names fit its 64-byte buffer */
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
		if (strcmp(name, values[i].name) == 0)
			return values[i].value;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[128];
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	lookups = 0;
	err[0] = '\0';
	/* A small error buffer half of the time: messages are cut, never overflow. */
	size_t errlen = size % 2 ? sizeof err : 5;
	char *out = tmpl_render("fuzz.bt.in", text, lookup, NULL, err, errlen);
	if (out) {
		size_t in = strlen(text), n = strlen(out);
		if (n > in + (size_t)lookups * LONGEST)
			abort();
		free(out);
	} else {
		if (err[0] == '\0' || strlen(err) >= errlen)
			abort();
		if (errlen == sizeof err && strncmp(err, "template fuzz.bt.in", 19) != 0)
			abort();
	}
	free(text);
	return 0;
}
