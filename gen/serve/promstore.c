/* promstore — see promstore.h: the store (families, series, label text)
 * and the caller's own families.  Adding a report: promstore_add.c;
 * writing the exposition: promstore_render.c. */
#include "serve/promstore.h"
#include "serve/promstore_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/safe.h"

/* ---- memory ---------------------------------------------------------- */

bool ps_alloc_ok(promstore *ps)
{
	if (ps->fail_after > 0 && --ps->fail_after == 0) {
		errno = ENOMEM;
		return false;
	}
	return true;
}

void *ps_realloc(promstore *ps, void *p, size_t n)
{
	void *np = ps_alloc_ok(ps) ? realloc(p, n) : NULL;
	if (!np)
		errno = ENOMEM;
	return np;
}

void promstore_fail_alloc(promstore *ps, long n)
{
	ps->fail_after = n;
}

void *ps_grow(promstore *ps, void *a, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return a;
	size_t ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	void *na = ps_realloc(ps, a, ncap * size);
	if (na)
		*cap = ncap;
	return na;
}

uint64_t ps_add_u64(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void ps_time_add(ps_time *t, uint64_t ns)
{
	uint64_t s = ns / 1000000000u;
	uint32_t frac = (uint32_t)(ns % 1000000000u) + t->ns;
	if (frac >= 1000000000u) {
		frac -= 1000000000u;
		s++;
	}
	if (t->s > UINT64_MAX - s) {	/* 2^64 s: saturate */
		t->s = UINT64_MAX;
		t->ns = 999999999u;
		return;
	}
	t->s += s;
	t->ns = frac;
}

/* ---- label text -------------------------------------------------------- */

int ps_text_put(promstore *ps, ps_text *t, const char *s, size_t n)
{
	char *d = ps_grow(ps, t->data, &t->cap, t->len + n + 1, 1);
	if (!d)
		return -1;
	t->data = d;
	memcpy(t->data + t->len, s, n);
	t->len += n;
	t->data[t->len] = '\0';
	return 0;
}

/* S with '\\' and '"' escaped. */
static int put_escaped(promstore *ps, ps_text *t, const char *s)
{
	for (size_t n; *s; s += n) {
		n = strcspn(s, "\\\"");
		if (ps_text_put(ps, t, s, n) < 0)
			return -1;
		if (s[n] && (ps_text_put(ps, t, "\\", 1) < 0 || ps_text_put(ps, t, s + n, 1) < 0))
			return -1;
		n += !!s[n];
	}
	return 0;
}

int ps_text_label(promstore *ps, ps_text *t, const char *name, const char *value)
{
	if (!value)
		value = "";
	if ((t->len && ps_text_put(ps, t, ",", 1) < 0) || ps_text_put(ps, t, name, strlen(name)) < 0 ||
	    ps_text_put(ps, t, "=\"", 2) < 0)
		return -1;
	/* Printable ASCII but '\\' is its own text form: no copy. */
	bool plain = true;
	for (const unsigned char *c = (const unsigned char *)value; *c && plain; c++)
		plain = *c >= 0x20 && *c < 0x7f && *c != '\\';
	int rc;
	if (plain) {
		rc = put_escaped(ps, t, value);
	} else {
		char *text = ps_alloc_ok(ps) ? safe_text(value) : NULL;
		if (!text) {
			errno = ENOMEM;
			return -1;
		}
		rc = put_escaped(ps, t, text);
		free(text);
	}
	return rc < 0 ? -1 : ps_text_put(ps, t, "\"", 1);
}

/* ---- families and series ------------------------------------------------ */

/* Index of family NAME in PS, or where it would go (*FOUND false). */
static size_t family_at(const promstore *ps, const char *name, bool *found)
{
	size_t lo = 0, hi = ps->n_fams;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ps->fams[mid]->name, name);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

ps_family *ps_family_find(const promstore *ps, const char *name)
{
	bool found;
	size_t i = family_at(ps, name, &found);
	return found ? ps->fams[i] : NULL;
}

static void family_free(ps_family *f)
{
	for (size_t i = 0; i < f->n_series; i++) {
		free(f->series[i]->key);
		free(f->series[i]->le);
		free(f->series[i]);
	}
	free(f->series);
	free(f->name);
	free(f->help);
	free(f);
}

ps_family *ps_family_get(promstore *ps, const char *name, ps_type type, bool seconds,
			 const char *help)
{
	bool found;
	size_t i = family_at(ps, name, &found);
	if (found) {
		if (ps->fams[i]->type != type || ps->fams[i]->seconds != seconds) {
			errno = EINVAL;
			return NULL;
		}
		return ps->fams[i];
	}
	ps_family **fams = ps_grow(ps, ps->fams, &ps->cap_fams, ps->n_fams + 1, sizeof *fams);
	if (!fams)
		return NULL;
	ps->fams = fams;
	ps_family *f = ps_realloc(ps, NULL, sizeof *f);
	if (!f)
		return NULL;
	*f = (ps_family){ .type = type, .seconds = seconds };
	f->name = ps_alloc_ok(ps) ? strdup(name) : NULL;
	f->help = help && ps_alloc_ok(ps) ? strdup(help) : NULL;
	if (!f->name || (help && !f->help)) {
		family_free(f);
		errno = ENOMEM;
		return NULL;
	}
	memmove(&ps->fams[i + 1], &ps->fams[i], (ps->n_fams - i) * sizeof *ps->fams);
	ps->fams[i] = f;
	ps->n_fams++;
	return f;
}

ps_series *ps_series_find(const ps_family *f, const char *key, size_t *at)
{
	size_t lo = 0, hi = f->n_series;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(f->series[mid]->key, key);
		if (c == 0) {
			lo = mid;
			if (at)
				*at = mid;
			return f->series[mid];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (at)
		*at = lo;
	return NULL;
}

ps_series *ps_series_get(promstore *ps, ps_family *f, const char *key)
{
	size_t at;
	ps_series *s = ps_series_find(f, key, &at);
	if (s)
		return s;
	ps_series **arr = ps_grow(ps, f->series, &f->cap_series, f->n_series + 1, sizeof *arr);
	if (!arr)
		return NULL;
	f->series = arr;
	if (!(s = ps_realloc(ps, NULL, sizeof *s)))
		return NULL;
	*s = (ps_series){ .born = ps->gen };
	s->key = ps_alloc_ok(ps) ? strdup(key) : NULL;
	if (f->type == PS_HISTOGRAM && s->key && ps_alloc_ok(ps))
		s->le = calloc(PS_LE_N, sizeof *s->le);
	if (!s->key || (f->type == PS_HISTOGRAM && !s->le)) {
		free(s->key);
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	memmove(&f->series[at + 1], &f->series[at], (f->n_series - at) * sizeof *f->series);
	f->series[at] = s;
	f->n_series++;
	return s;
}

void ps_series_remove(ps_family *f, size_t i)
{
	free(f->series[i]->key);
	free(f->series[i]->le);
	free(f->series[i]);
	memmove(&f->series[i], &f->series[i + 1], (f->n_series - i - 1) * sizeof *f->series);
	f->n_series--;
}

/* Removes the families left without series (none is rendered anyway,
 * but a family that stayed would keep its type and help). */
static void drop_empty_families(promstore *ps)
{
	for (size_t i = 0; i < ps->n_fams;) {
		if (ps->fams[i]->n_series) {
			i++;
			continue;
		}
		family_free(ps->fams[i]);
		memmove(&ps->fams[i], &ps->fams[i + 1], (ps->n_fams - i - 1) * sizeof *ps->fams);
		ps->n_fams--;
	}
}

void ps_rollback(promstore *ps)
{
	for (size_t i = 0; i < ps->n_fams; i++) {
		ps_family *f = ps->fams[i];
		for (size_t k = f->n_series; k-- > 0;)
			if (f->series[k]->born == ps->gen)
				ps_series_remove(f, k);
	}
	drop_empty_families(ps);
}

promstore *promstore_new(void)
{
	return calloc(1, sizeof(promstore));
}

void promstore_free(promstore *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n_fams; i++)
		family_free(ps->fams[i]);
	free(ps->fams);
	free(ps->key.data);
	free(ps->plan);
	free(ps->threads);
	free(ps);
}

size_t promstore_series(const promstore *ps)
{
	size_t n = 0;
	for (size_t i = 0; i < ps->n_fams; i++)
		n += ps->fams[i]->n_series;
	return n;
}

/* ---- the caller's families ------------------------------------------------ */

#define PS_MAX_LABELS 16

static bool name_ok(const char *s, bool colon)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || (colon && *s == ':')))
			return false;
	return true;
}

static int by_label_name(const void *a, const void *b)
{
	return strcmp(((const promstore_label *)a)->name, ((const promstore_label *)b)->name);
}

/* Checks NAME and LABELS of a caller's family and writes the series key
 * into ps->key.  Returns 0, or -1 (EINVAL, ENOMEM). */
static int caller_key(promstore *ps, const char *name, const promstore_label *labels, size_t n)
{
	promstore_label sorted[PS_MAX_LABELS];

	if (!name_ok(name, true) || n > PS_MAX_LABELS || (n && !labels))
		goto invalid;
	if (ps_builtin_name(name))
		goto invalid;
	for (size_t i = 0; i < n; i++) {
		if (!name_ok(labels[i].name, false) || strncmp(labels[i].name, "__", 2) == 0)
			goto invalid;
		sorted[i] = labels[i];
	}
	qsort(sorted, n, sizeof *sorted, by_label_name);
	ps->key.len = 0;
	if (ps_text_put(ps, &ps->key, "", 0) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (i && strcmp(sorted[i - 1].name, sorted[i].name) == 0)
			goto invalid;
		if (sorted[i].value && *sorted[i].value &&
		    ps_text_label(ps, &ps->key, sorted[i].name, sorted[i].value) < 0)
			return -1;
	}
	return 0;
invalid:
	errno = EINVAL;
	return -1;
}

/* The series of caller's family NAME with LABELS, created if need be. */
static ps_series *caller_series(promstore *ps, const char *name, const char *help, ps_type type,
				const promstore_label *labels, size_t n)
{
	ps_family *f;
	ps_series *s;

	ps->gen++;
	if (caller_key(ps, name, labels, n) < 0 || !(f = ps_family_get(ps, name, type, false, help)) ||
	    !(s = ps_series_get(ps, f, ps->key.data))) {
		int err = errno;
		ps_rollback(ps);
		errno = err;
		return NULL;
	}
	return s;
}

int promstore_gauge_set(promstore *ps, const char *name, const char *help,
			const promstore_label *labels, size_t n, double value)
{
	ps_series *s = caller_series(ps, name, help, PS_GAUGE, labels, n);
	if (!s)
		return -1;
	s->gauge = value;
	return 0;
}

int promstore_counter_add(promstore *ps, const char *name, const char *help,
			  const promstore_label *labels, size_t n, uint64_t delta)
{
	ps_series *s = caller_series(ps, name, help, PS_COUNTER, labels, n);
	if (!s)
		return -1;
	s->count = ps_add_u64(s->count, delta);
	return 0;
}

int promstore_gauge_delete(promstore *ps, const char *name, const promstore_label *labels,
			   size_t n)
{
	size_t at;
	if (caller_key(ps, name, labels, n) < 0)
		return -1;
	ps_family *f = ps_family_find(ps, name);
	if (!f)
		return 0;
	if (f->type != PS_GAUGE) {
		errno = EINVAL;
		return -1;
	}
	if (ps_series_find(f, ps->key.data, &at)) {
		ps_series_remove(f, at);
		drop_empty_families(ps);
	}
	return 0;
}
