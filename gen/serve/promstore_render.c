/* promstore_render — the store as Prometheus text exposition format 0.0.4
 * (promstore.h).  Numbers: counts as integers; durations as exact decimal
 * seconds from the integer totals, trailing zeros dropped ("0.0188",
 * "4.294967296", "2"), which is also how -o prom prints them, so le values
 * are byte for byte the same in both; the caller's gauges in the shortest
 * form that reads back as the same double (bpfspec never sets a locale,
 * so the decimal point is '.'). */
#include "serve/promstore.h"
#include "serve/promstore_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* T as decimal seconds into OUT (32 bytes hold any). */
static void fmt_time(char *out, size_t len, ps_time t)
{
	if (!t.ns) {
		snprintf(out, len, "%llu", (unsigned long long)t.s);
		return;
	}
	int n = snprintf(out, len, "%llu.%09u", (unsigned long long)t.s, (unsigned)t.ns);
	while (n > 0 && (size_t)n < len && out[n - 1] == '0')
		out[--n] = '\0';
}

static void fmt_gauge(char *out, size_t len, double v)
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

/* HELP text: '\\' and newline escaped, as the format asks. */
static void put_help(FILE *out, const char *help)
{
	for (; *help; help++) {
		if (*help == '\\')
			fputs("\\\\", out);
		else if (*help == '\n')
			fputs("\\n", out);
		else
			fputc(*help, out);
	}
}

/* NAME+SUFFIX{KEY[,le="LE"]} VALUE */
static void put_sample(FILE *out, const char *name, const char *suffix, const char *key,
		       const char *le, const char *value)
{
	fprintf(out, "%s%s", name, suffix);
	if (*key || le)
		fprintf(out, "{%s%s%s%s%s}", key, *key && le ? "," : "", le ? "le=\"" : "", le ? le : "",
			le ? "\"" : "");
	fprintf(out, " %s\n", value);
}

static void put_histogram(FILE *out, const ps_family *f, const ps_series *s,
			  char le[PS_LE_N][32])
{
	char v[32];
	uint64_t cum = 0;

	for (size_t i = 0; i < PS_LE_N; i++) {
		cum = ps_add_u64(cum, s->le[i]);
		snprintf(v, sizeof v, "%llu", (unsigned long long)cum);
		put_sample(out, f->name, "_bucket", s->key, le[i], v);
	}
	snprintf(v, sizeof v, "%llu", (unsigned long long)s->count);
	put_sample(out, f->name, "_bucket", s->key, "+Inf", v);
	fmt_time(v, sizeof v, s->time);
	put_sample(out, f->name, "_sum", s->key, NULL, v);
	snprintf(v, sizeof v, "%llu", (unsigned long long)s->count);
	put_sample(out, f->name, "_count", s->key, NULL, v);
}

static const char *type_name(ps_type t)
{
	switch (t) {
	case PS_COUNTER:
		return "counter";
	case PS_GAUGE:
		return "gauge";
	case PS_HISTOGRAM:
		return "histogram";
	}
	return "untyped";
}

int promstore_render(const promstore *ps, FILE *out)
{
	char le[PS_LE_N][32], v[32];

	for (size_t i = 0; i < PS_LE_N; i++) {
		uint64_t ns = promstore_le_ns(i);
		fmt_time(le[i], sizeof le[i],
			 (ps_time){ ns / 1000000000u, (uint32_t)(ns % 1000000000u) });
	}
	for (size_t i = 0; i < ps->n_fams; i++) {
		const ps_family *f = ps->fams[i];
		if (!f->n_series)
			continue;
		if (f->help) {
			fprintf(out, "# HELP %s ", f->name);
			put_help(out, f->help);
			fputc('\n', out);
		}
		fprintf(out, "# TYPE %s %s\n", f->name, type_name(f->type));
		for (size_t k = 0; k < f->n_series; k++) {
			const ps_series *s = f->series[k];
			switch (f->type) {
			case PS_HISTOGRAM:
				put_histogram(out, f, s, le);
				continue;
			case PS_GAUGE:
				fmt_gauge(v, sizeof v, s->gauge);
				break;
			case PS_COUNTER:
				if (f->seconds)
					fmt_time(v, sizeof v, s->time);
				else
					snprintf(v, sizeof v, "%llu", (unsigned long long)s->count);
				break;
			}
			put_sample(out, f->name, "", s->key, NULL, v);
		}
	}
	/* A full disk shows only when the buffer is written out. */
	if (fflush(out) == EOF || ferror(out))
		return -1;
	return 0;
}
