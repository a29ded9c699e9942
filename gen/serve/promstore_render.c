/* promstore_render — the store as Prometheus text exposition format 0.0.4
 * (promstore.h).  Numbers: counts as integers; durations as exact decimal
 * seconds from the integer totals, trailing zeros dropped; the caller's
 * gauges in the shortest form that reads back as the same double.  Lines
 * and numbers are util/promtext.h's, the writer -o prom shares, so le
 * values are byte for byte the same in both. */
#include "serve/promstore.h"
#include "serve/promstore_internal.h"

#include "util/promtext.h"

/* Series S of histogram F: its per-bound counts made cumulative. */
static void put_histogram(FILE *out, const ps_family *f, const ps_series *s,
			  const promtext_le *le)
{
	uint64_t cum[PS_LE_N], c = 0;
	char sum[PROMTEXT_NUM_LEN];

	for (size_t i = 0; i < PS_LE_N; i++)
		cum[i] = c = ps_add_u64(c, s->le[i]);
	promtext_seconds_split(sum, sizeof sum, s->time.s, s->time.ns);
	promtext_histogram(out, f->name, &(promtext_labels){ .key = s->key }, le, cum, s->count,
			   sum);
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
	promtext_le le;
	char v[PROMTEXT_NUM_LEN];

	promtext_le_init(&le, PROMSTORE_LE_STEPS);
	for (size_t i = 0; i < ps->n_fams; i++) {
		const ps_family *f = ps->fams[i];
		if (!f->n_series)
			continue;
		promtext_header(out, f->name, type_name(f->type), f->help);
		for (size_t k = 0; k < f->n_series; k++) {
			const ps_series *s = f->series[k];
			switch (f->type) {
			case PS_HISTOGRAM:
				put_histogram(out, f, s, &le);
				continue;
			case PS_GAUGE:
				promtext_gauge(v, sizeof v, s->gauge);
				break;
			case PS_COUNTER:
				if (f->seconds)
					promtext_seconds_split(v, sizeof v, s->time.s, s->time.ns);
				else
					promtext_u64(v, sizeof v, s->count);
				break;
			}
			promtext_sample(out, f->name, "", &(promtext_labels){ .key = s->key }, NULL, v);
		}
	}
	/* A full disk shows only when the buffer is written out. */
	if (fflush(out) == EOF || ferror(out))
		return -1;
	return 0;
}
