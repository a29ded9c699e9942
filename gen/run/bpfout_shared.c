/* bpfout_shared — maps that several probes of a program share, told apart
 * by a probe number as their first key (bpfout_internal.h).
 *
 * A generated program keeps the timed maps of all its latency probes in
 * one map per prefix (@b[N, tid, bucket], @sum[N, tid], ...): bpftrace
 * then creates, prints and clears four maps where it would handle four per
 * probe, and its window and END programs shrink with them.  BEGIN names
 * the probes once, "bpfspec:probes NAME1 NAME2 ...", and every map
 * printed after that whose name is a plain word (no '_') and whose keys
 * all start with a probe's number (1-based) is handed on as one map per
 * probe, "@WORD_NAME", keyed by the rest: what a program with a map per
 * probe prints, but that a probe without entries gets no map (bpftrace
 * prints no empty map either, and a map of another kind of that name
 * stays), and that a second print of the shared map in one window
 * replaces only the parts it has entries for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/bpfout_internal.h"

#define MAX_PROBE_NAME 47
#define MAX_PROBE_NAMES 256	/* a spec has at most 64 probes */

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

void bpfout_forget_probes(bpfout *p)
{
	for (size_t i = 0; i < p->n_probe_names; i++)
		free(p->probe_names[i]);
	free(p->probe_names);
	p->probe_names = NULL;
	p->n_probe_names = 0;
}

bpfout_line bpfout_feed_probes(bpfout *p, const char *s, size_t len)
{
	char **names = NULL;
	size_t n = 0, cap = 0, i = 0;

	if (len && s[len - 1] == '\n')
		len--;
	while (i < len) {
		if (s[i] != ' ')
			goto malformed;
		size_t start = ++i;
		while (i < len && name_char(s[i]))
			i++;
		if (i == start || i - start > MAX_PROBE_NAME || (i < len && s[i] != ' '))
			goto malformed;
		if (n == MAX_PROBE_NAMES)
			goto malformed;
		char **grown = bpfout_grow(names, &cap, n + 1, sizeof *names);
		if (!grown || !(grown[n] = strndup(s + start, i - start))) {
			names = grown ? grown : names;
			bpfout_note(p, "out of memory: the probes marker was not read");
			goto fail;
		}
		names = grown;
		n++;
	}
	if (!n)
		goto malformed;
	bpfout_forget_probes(p);
	p->probe_names = names;
	p->n_probe_names = n;
	return BPFOUT_LINE_PROBES;
malformed:
	bpfout_note(p, "malformed bpfspec marker: bpfspec:probes%.*s", (int)(len > 200 ? 200 : len), s);
fail:
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	free(names);
	return BPFOUT_LINE_MESSAGE;
}

/* Whether M is a map the probes share: a plain word for a name, and only
 * integer entries whose keys have two parts or more, the first one of the
 * named probes' numbers.  A map that is one but for a number out of range
 * is noted (kept whole, its figures would reach no probe). */
static bool shared_map(bpfout *p, const bpfout_map *m)
{
	if (!p->n_probe_names || m->name[0] != '@' || !m->name[1] || !m->n_entries)
		return false;
	for (const char *c = m->name + 1; *c; c++)
		if (!name_char(*c) || *c == '_')
			return false;
	const bpfout_entry *outside = NULL;
	for (size_t i = 0; i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		if (e->type != BPFOUT_VALUE_INT || e->n_ikeys < 2)
			return false;
		if (!outside && (e->ikeys[0] < 1 || (uint64_t)e->ikeys[0] > p->n_probe_names))
			outside = e;
	}
	if (outside)
		bpfout_note(p, "%s: kept whole: key \"%s\" does not start with a probe's number "
			    "(1 to %zu)", m->name, outside->key, p->n_probe_names);
	return !outside;
}

/* The key text after the first part: "7,300,12" -> "300,12". */
static const char *rest_of_key(const char *key)
{
	const char *c = strchr(key, ',');
	c = c ? c + 1 : key + strlen(key);
	while (*c == ' ' || *c == '\t')
		c++;
	return c;
}

/* One probe's part of a shared map, being filled. */
typedef struct part {
	bpfout_map map;
	size_t bytes;		/* its keys' text, NULs included */
	char *next_key;		/* where the next key goes in its arena */
} part;

/* Allocates PT's map for N entries of probe number PROBE of shared map
 * M: 0, or -1 out of memory (nothing left allocated). */
static int part_alloc(const bpfout *p, const bpfout_map *m, size_t probe, part *pt, size_t n)
{
	const char *name = p->probe_names[probe - 1];
	size_t name_len = strlen(m->name) + 1 + strlen(name) + 1;
	pt->map.entries = calloc(n, sizeof *pt->map.entries);
	pt->map.key_arena = malloc(pt->bytes);
	pt->map.name = malloc(name_len);
	if (!pt->map.entries || !pt->map.key_arena || !pt->map.name) {
		bpfout_map_clear(&pt->map);
		return -1;
	}
	snprintf(pt->map.name, name_len, "%s_%s", m->name, name);
	pt->next_key = pt->map.key_arena;
	return 0;
}

int bpfout_put_map(bpfout *p, bpfout_map *m)
{
	if (!shared_map(p, m))
		return bpfout_window_put(p->cur, m);
	/* Two passes: each probe's entries and key bytes counted, then the
	 * entries moved into their probe's map. */
	part *parts = calloc(p->n_probe_names, sizeof *parts);
	size_t *counts = calloc(p->n_probe_names, sizeof *counts);
	if (!parts || !counts) {
		free(parts);
		free(counts);
		bpfout_note(p, "skipped: %s: out of memory", m->name);
		bpfout_map_clear(m);
		return 0;
	}
	for (size_t i = 0; i < m->n_entries; i++) {
		size_t k = (size_t)m->entries[i].ikeys[0] - 1;
		counts[k]++;
		parts[k].bytes += strlen(rest_of_key(m->entries[i].key)) + 1;
	}
	for (size_t k = 0; k < p->n_probe_names; k++)
		if (counts[k] && part_alloc(p, m, k + 1, &parts[k], counts[k]) < 0)
			bpfout_note(p, "skipped: %s_%s: out of memory", m->name, p->probe_names[k]);
	for (size_t i = 0; i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		part *pt = &parts[(size_t)e->ikeys[0] - 1];
		if (!pt->map.entries)
			continue;
		bpfout_entry *d = &pt->map.entries[pt->map.n_entries++];
		const char *rest = rest_of_key(e->key);
		size_t len = strlen(rest);
		memcpy(pt->next_key, rest, len + 1);
		d->key = pt->next_key;
		pt->next_key += len + 1;
		d->type = BPFOUT_VALUE_INT;
		d->value = e->value;
		d->n_ikeys = e->n_ikeys - 1;
		memcpy(d->ikeys, e->ikeys + 1, d->n_ikeys * sizeof *d->ikeys);
	}
	for (size_t k = 0; k < p->n_probe_names; k++)
		if (parts[k].map.entries && bpfout_window_put(p->cur, &parts[k].map) < 0)
			bpfout_note(p, "skipped: %s_%s: out of memory", m->name, p->probe_names[k]);
	free(parts);
	free(counts);
	bpfout_map_clear(m);
	return 0;
}
