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
 * probe, "@WORD_NAME", keyed by the rest: exactly what a program with a
 * map per probe prints. */
#include <stdlib.h>
#include <string.h>

#include "bpfout_internal.h"

#define MAX_PROBE_NAME 47

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
 * integer entries whose first key is one of the named probes'. */
static bool shared_map(bpfout *p, const bpfout_map *m)
{
	if (!p->n_probe_names || m->name[0] != '@' || !m->name[1] || !m->n_entries)
		return false;
	for (const char *c = m->name + 1; *c; c++)
		if (!name_char(*c) || *c == '_')
			return false;
	for (size_t i = 0; i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		if (e->type != BPFOUT_VALUE_INT || e->n_ikeys < 2 || e->ikeys[0] < 1 ||
		    (uint64_t)e->ikeys[0] > p->n_probe_names) {
			bpfout_note(p, "%s: kept whole: key \"%s\" does not start with a probe's "
				    "number (1 to %zu)", m->name, e->key, p->n_probe_names);
			return false;
		}
	}
	return true;
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

/* Moves the entries of M numbered PROBE into a map of their own in P's
 * window.  Returns 0, or -1 out of memory (noted). */
static int put_probe_part(bpfout *p, const bpfout_map *m, size_t probe)
{
	size_t n = 0, bytes = 0;
	for (size_t i = 0; i < m->n_entries; i++)
		if ((uint64_t)m->entries[i].ikeys[0] == probe) {
			n++;
			bytes += strlen(rest_of_key(m->entries[i].key)) + 1;
		}
	if (!n)
		return 0;
	bpfout_map part = { 0 };
	part.entries = calloc(n, sizeof *part.entries);
	part.key_arena = malloc(bytes);
	size_t name_len = strlen(m->name) + 1 + strlen(p->probe_names[probe - 1]) + 1;
	part.name = malloc(name_len);
	if (!part.entries || !part.key_arena || !part.name) {
		free(part.entries);
		free(part.key_arena);
		free(part.name);
		bpfout_note(p, "skipped: %s: out of memory", m->name);
		return -1;
	}
	snprintf(part.name, name_len, "%s_%s", m->name, p->probe_names[probe - 1]);
	char *ap = part.key_arena;
	for (size_t i = 0; i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		if ((uint64_t)e->ikeys[0] != probe)
			continue;
		bpfout_entry *d = &part.entries[part.n_entries++];
		const char *rest = rest_of_key(e->key);
		size_t len = strlen(rest);
		memcpy(ap, rest, len + 1);
		d->key = ap;
		ap += len + 1;
		d->type = BPFOUT_VALUE_INT;
		d->value = e->value;
		d->n_ikeys = e->n_ikeys - 1;
		memcpy(d->ikeys, e->ikeys + 1, d->n_ikeys * sizeof *d->ikeys);
	}
	if (bpfout_window_put(p->cur, &part) < 0) {
		bpfout_note(p, "skipped: %s: out of memory", m->name);
		return -1;
	}
	return 0;
}

int bpfout_put_map(bpfout *p, bpfout_map *m)
{
	if (!shared_map(p, m))
		return bpfout_window_put(p->cur, m);
	for (size_t k = 1; k <= p->n_probe_names; k++)
		put_probe_part(p, m, k);	/* a failure is noted there */
	bpfout_map_clear(m);
	return 0;
}
