/* libFuzzer harness for perfmap.c, the reader of the perf map a traced
 * process writes (/tmp/perf-PID.map): the input is the file's bytes.
 * Each frame looked up is named by a line of the input (its name, after
 * "START SIZE ") or by the input's first bytes, at offsets taken from
 * the input.  Checks: no crash, no read outside the input
 * (AddressSanitizer), a lookup ends (libFuzzer's timeout), and a name
 * found is one of the map's, at most PERFMAP_NAME_MAX bytes.
 * Build and run: tests/fuzz/run.sh [SECONDS] perfmap. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_text(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* Looks NAME (LEN bytes) up at a few offsets, checking what comes back. */
static void look_up(const perfmap *pm, const char *name, size_t len, const uint8_t *data,
		    size_t size)
{
	for (size_t k = 0; k < 4; k++) {
		uint64_t offset = size > k ? data[size - 1 - k] * (k + 1) : k;
		const char *live = perfmap_live_name(pm, name, len, offset, same_text);
		if (live && strlen(live) > PERFMAP_NAME_MAX)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	perfmap *pm = perfmap_parse(f, (off_t)size);
	fclose(f);
	if (!pm)
		return 0;
	size_t lines = 0;
	for (const uint8_t *p = data, *end = data + size; p < end && lines < 8; lines++) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		const uint8_t *stop = nl ? nl : end;
		const uint8_t *sp = memchr(p, ' ', (size_t)(stop - p));
		sp = sp ? memchr(sp + 1, ' ', (size_t)(stop - sp - 1)) : NULL;
		if (sp)
			look_up(pm, (const char *)sp + 1, (size_t)(stop - sp - 1), data, size);
		p = stop + 1;
	}
	look_up(pm, (const char *)data, size < 16 ? size : 16, data, size);
	if (perfmap_lines(pm) == 0)
		abort();
	perfmap_free(pm);
	return 0;
}
