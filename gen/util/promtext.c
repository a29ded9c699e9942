/* promtext — see promtext.h. */
#include "util/promtext.h"

#include "util/safe.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

void promtext_seconds_split(char *out, size_t len, uint64_t s, uint32_t ns)
{
	if (!ns) {
		snprintf(out, len, "%llu", (unsigned long long)s);
		return;
	}
	int n = snprintf(out, len, "%llu.%09u", (unsigned long long)s, (unsigned)ns);
	while (n > 0 && (size_t)n < len && out[n - 1] == '0')
		out[--n] = '\0';
}

void promtext_seconds(char *out, size_t len, uint64_t ns)
{
	promtext_seconds_split(out, len, ns / 1000000000u, (uint32_t)(ns % 1000000000u));
}

void promtext_u64(char *out, size_t len, uint64_t v)
{
	snprintf(out, len, "%llu", (unsigned long long)v);
}

void promtext_gauge(char *out, size_t len, double v)
{
	if (isnan(v)) {
		snprintf(out, len, "NaN");
	} else if (isinf(v)) {
		snprintf(out, len, "%cInf", v > 0 ? '+' : '-');
	} else {
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(out, len, "%.*g", prec, v);
			if (strtod(out, NULL) == v)
				break;
		}
	}
}

void promtext_header(FILE *out, const char *name, const char *type, const char *help)
{
	if (help) {
		fprintf(out, "# HELP %s ", name);
		for (; *help; help++) {
			if (*help == '\\')
				fputs("\\\\", out);
			else if (*help == '\n')
				fputs("\\n", out);
			else
				fputc(*help, out);
		}
		fputc('\n', out);
	}
	fprintf(out, "# TYPE %s %s\n", name, type);
}

void promtext_sample(FILE *out, const char *name, const char *suffix, const promtext_labels *ls,
		     const char *le, const char *value)
{
	bool key = ls && ls->key && *ls->key;
	size_t n = ls ? ls->n : 0;
	char sep = '{';

	fprintf(out, "%s%s", name, suffix);
	if (key) {
		fprintf(out, "%c%s", sep, ls->key);
		sep = ',';
	}
	for (size_t i = 0; i < n; i++, sep = ',') {
		fprintf(out, "%c%s=\"", sep, ls->pairs[i].name);
		if (ls->pairs[i].value)	/* the target's strings: safe.h's text form */
			safe_fputs_prom_label(ls->pairs[i].value, out);
		fputc('"', out);
	}
	if (le) {
		fprintf(out, "%cle=\"%s\"", sep, le);
		sep = ',';
	}
	fprintf(out, "%s %s\n", sep == ',' ? "}" : "", value);
}

uint64_t promtext_le_ns(unsigned steps, size_t i)
{
	unsigned k = PROMTEXT_LE_FIRST + (unsigned)(i / steps);
	uint64_t octave = (uint64_t)1 << k;
	return octave + (i % steps) * (octave / steps);
}

int promtext_le_index(unsigned steps, uint64_t hi)
{
	if (hi <= (uint64_t)1 << PROMTEXT_LE_FIRST)
		return 0;
	int k = 63 - __builtin_clzll(hi - 1);	/* 2^k < hi <= 2^(k+1) */
	uint64_t step = ((uint64_t)1 << k) / steps;
	uint64_t j = (hi - ((uint64_t)1 << k) + step - 1) / step;	/* 1 .. STEPS */
	size_t i = (size_t)(k - PROMTEXT_LE_FIRST) * steps + (size_t)j;
	return i >= PROMTEXT_LE_N(steps) ? -1 : (int)i;
}

void promtext_le_init(promtext_le *le, unsigned steps)
{
	le->n = steps && steps <= PROMTEXT_LE_STEPS_MAX ? PROMTEXT_LE_N(steps) : 0;
	for (size_t i = 0; i < le->n; i++)
		promtext_seconds(le->text[i], sizeof le->text[i], promtext_le_ns(steps, i));
}

void promtext_histogram(FILE *out, const char *name, const promtext_labels *ls,
			const promtext_le *le, const uint64_t *cum, uint64_t count,
			const char *sum)
{
	char v[PROMTEXT_NUM_LEN];

	for (size_t i = 0; i < le->n; i++) {
		promtext_u64(v, sizeof v, cum[i]);
		promtext_sample(out, name, "_bucket", ls, le->text[i], v);
	}
	promtext_u64(v, sizeof v, count);
	promtext_sample(out, name, "_bucket", ls, "+Inf", v);
	promtext_sample(out, name, "_sum", ls, NULL, sum);
	promtext_sample(out, name, "_count", ls, NULL, v);
}
