/* k8s_cache — each container's names read once (see k8s.h): an array
 * sorted by container id, swept of the containers no longer asked for. */
#include "target/k8s.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
	char id[65];
	k8s_status status;
	bool used;		/* asked for since the last sweep */
	k8s_names names;
} entry;

struct k8s_cache {
	char *run_root;
	entry *e;
	size_t n, cap;
	entry scratch;		/* a container read when the cache is full */
	char problem[K8S_WHY_MAX];	/* the first failure; "" when none */
};

k8s_cache *k8s_cache_new(const char *run_root)
{
	k8s_cache *c = calloc(1, sizeof(*c));

	if (c && !(c->run_root = strdup(run_root))) {
		free(c);
		return NULL;
	}
	return c;
}

void k8s_cache_free(k8s_cache *c)
{
	if (!c)
		return;
	free(c->e);
	free(c->run_root);
	free(c);
}

const char *k8s_cache_run_root(const k8s_cache *c)
{
	return c->run_root;
}

/* Index of ID, or where it would go (*FOUND false). */
static size_t find(const k8s_cache *c, const char *id, bool *found)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c->e[mid].id, id);
		if (d == 0) {
			*found = true;
			return mid;
		}
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* A new entry for ID at index AT, or the scratch entry when the cache is
 * full or cannot grow. */
static entry *insert(k8s_cache *c, size_t at, const char *id)
{
	entry *e = &c->scratch;

	if (c->n < K8S_CACHE_MAX && c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		entry *grown = realloc(c->e, cap * sizeof(*grown));
		if (grown) {
			c->e = grown;
			c->cap = cap;
		}
	}
	if (c->n < c->cap) {
		memmove(&c->e[at + 1], &c->e[at], (c->n - at) * sizeof(*c->e));
		c->n++;
		e = &c->e[at];
	}
	memset(e, 0, sizeof(*e));
	snprintf(e->id, sizeof(e->id), "%s", id);
	return e;
}

const k8s_names *k8s_cache_get(k8s_cache *c, k8s_runtime rt, const char *id, k8s_status *status)
{
	bool found;
	size_t at = find(c, id, &found);
	entry *e = found ? &c->e[at] : insert(c, at, id);

	if (!found) {
		char why[K8S_WHY_MAX] = "";
		e->status = k8s_names_read(c->run_root, rt, id, &e->names, why, sizeof(why));
		if (k8s_status_failed(e->status) && !c->problem[0])
			snprintf(c->problem, sizeof(c->problem), "%s", why[0] ? why : "out of memory");
	}
	e->used = true;
	if (status)
		*status = e->status;
	return e->status == K8S_FOUND ? &e->names : NULL;
}

void k8s_cache_sweep(k8s_cache *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (!c->e[i].used)
			continue;
		c->e[i].used = false;
		if (k != i)
			c->e[k] = c->e[i];
		k++;
	}
	c->n = k;
}

const char *k8s_cache_problem(const k8s_cache *c)
{
	return c->problem[0] ? c->problem : NULL;
}

size_t k8s_cache_failed(const k8s_cache *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += k8s_status_failed(c->e[i].status);
	return n;
}
