/* libFuzzer harness for the spec loader (spec.c): the input bytes, exactly
 * as given (no NUL added: an over-read is an ASan error), go to spec_parse
 * as a file named "fuzz.yaml"; diagnostics go to /dev/null (they are still
 * formatted, source line and caret included).  A spec that loads is walked
 * and every string that may reach a generated bpftrace program is checked
 * against the grammar the loader promises (docs/spec.md, spec.h): a string
 * outside it is a smuggling path, and the harness aborts.
 * Build and run: tests/fuzz/run.sh [SECONDS] spec. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* S matches FIRST then REST{0,MAX-1}: each a set of allowed bytes. */
static int matches(const char *s, const char *first, const char *rest, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n > max || !strchr(first, s[0]))
		return 0;
	return strspn(s + 1, rest) == n - 1;
}

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define DIGIT "0123456789"

/* Whether NAME is two or more identifiers joined by "::", at most 256
 * bytes. */
static bool cxx_name(const char *name)
{
	size_t n = strlen(name), parts = 0;
	if (n > 256)
		return false;
	for (const char *q = name;; ) {
		const char *end = strstr(q, "::");
		size_t len = end ? (size_t)(end - q) : strlen(q);
		if (len == 0 || !strchr(LOWER UPPER "_", q[0]))
			return false;
		for (size_t i = 1; i < len; i++)
			if (!strchr(LOWER UPPER DIGIT "_", q[i]))
				return false;
		parts++;
		if (!end)
			break;
		q = end + 2;
	}
	return parts >= 2;
}

static void check_spec(const spec *s)
{
	if (!matches(s->name, LOWER DIGIT, LOWER DIGIT "_.-", 64))
		abort();
	if (s->n_objects < 1 || s->n_objects > 32)
		abort();
	for (size_t i = 0; i < s->n_objects; i++)
		if (!matches(s->objects[i], LOWER UPPER DIGIT "_.+-*?[]",
			     LOWER UPPER DIGIT "_.+-*?[]", 128))
			abort();
	if (s->n_probes < 1 || s->n_probes > 64)
		abort();
	if (s->duration_ns > 86400ull * 1000000000ull)
		abort();
	for (size_t i = 0; i < s->n_probes; i++) {
		const spec_probe *p = &s->probes[i];
		if (!matches(p->name, LOWER, LOWER DIGIT "_", 32))
			abort();
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->name, s->probes[j].name) == 0)
				abort();
		if (p->kind == PROBE_LATENCY) {
			/* a symbol, or a C++ name: identifiers joined by "::"
			 * (docs/spec.md, "symbol") */
			if (!p->function ||
			    (!matches(p->function, LOWER UPPER "_", LOWER UPPER DIGIT "_.$", 256) &&
			     !cxx_name(p->function)))
				abort();
		} else {
			if (p->function)
				abort();
			if (p->n_syscalls > SPEC_MAX_SYSCALLS)
				abort();
			if (p->kind == PROBE_EVENTS && (p->all_syscalls || p->limit == 0 ||
							p->limit > SPEC_MAX_EVENT_LIMIT))
				abort();
			for (size_t j = 0; j < p->n_syscalls; j++)
				if (p->syscalls[j] < 0)
					abort();
		}
		if (p->object && !matches(p->object, LOWER UPPER DIGIT "_.+-*?[]",
					  LOWER UPPER DIGIT "_.+-*?[]", 128))
			abort();
		/* Free text is never put in a script, but must be a string. */
		if (p->description)
			(void)strlen(p->description);
		if (p->missing_reason)
			(void)strlen(p->missing_reason);
		(void)unit_name(p->unit);
		(void)spec_kind_name(p->kind);
	}
	if (s->n_checks > SPEC_MAX_CHECKS)
		abort();
	for (size_t i = 0; i < s->n_checks; i++)
		if (strlen(s->checks[i]) == 0 || s->check_locs[i].line == 0)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;

	if (!sink) {
		sink = fopen("/dev/null", "w");
		if (!sink)
			abort();
		diag_set_stream(sink);
	}
	diag_reset_counts();
	spec *s = spec_parse("fuzz.yaml", (const char *)data, size);
	if (s) {
		if (diag_error_count() != 0)
			abort();	/* errors printed, yet a spec returned */
		check_spec(s);
		spec_free(s);
	} else if (diag_error_count() == 0) {
		abort();		/* rejected without saying why */
	}
	/* The duration grammar on its own, on a NUL-terminated copy. */
	if (size < 64) {
		char text[64];
		uint64_t ns;
		memcpy(text, data, size);
		text[size] = '\0';
		if (spec_parse_duration(text, &ns) == 0 && ns > 86400ull * 1000000000ull)
			abort();
	}
	return 0;
}
