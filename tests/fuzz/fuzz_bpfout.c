/* libFuzzer harness for the bpftrace output parser (bpfout.c): the input
 * bytes are split into lines at '\n' and each line is fed, in its own
 * exactly-sized allocation (an over-read is an ASan error), to one parser;
 * then every accessor is walked: attached and lost counts, each complete
 * window and the trailing one, each map (looked up again by name), each
 * entry (looked up again by key), its buckets, string and event records,
 * and every note.  Checks the promises of bpfout.h: bounded events and
 * integer keys, ascending buckets, complete windows only in the list,
 * notes without control characters and at most 1 KiB.
 * Build and run: tests/fuzz/run.sh [SECONDS] bpfout. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/bpfout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;	/* keeps the reads from being optimized out */

static void touch(const char *s)
{
	if (!s)
		abort();
	sink += strlen(s);
}

static void walk_window(const bpfout_window *w, bool listed)
{
	if (!w)
		abort();
	if (listed && !w->complete)
		abort();
	if (w->n_events > w->cap_events && w->n_events)
		abort();
	if (w->n_events > BPFOUT_MAX_EVENTS)
		abort();
	for (size_t i = 0; i < w->n_events; i++)
		touch(w->events[i]);
	sink += w->events_dropped + w->begin_ns + w->end_ns;
	for (size_t i = 0; i < w->n_maps; i++) {
		const bpfout_map *m = &w->maps[i];
		touch(m->name);
		/* A map printed twice keeps the last print: names are unique. */
		if (bpfout_window_map(w, m->name) != m)
			abort();
		for (size_t j = 0; j < m->n_entries; j++) {
			const bpfout_entry *e = &m->entries[j];
			touch(e->key);
			const bpfout_entry *again = bpfout_map_entry(m, e->key);
			if (!again || strcmp(again->key, e->key) != 0)
				abort();
			if (e->n_ikeys > sizeof e->ikeys / sizeof e->ikeys[0])
				abort();
			for (size_t k = 0; k < e->n_ikeys; k++)
				sink += (size_t)e->ikeys[k];
			switch (e->type) {
			case BPFOUT_VALUE_INT:
				sink += (size_t)e->value;
				break;
			case BPFOUT_VALUE_STATS:
				sink += e->stats_count + (size_t)e->stats_total;
				break;
			case BPFOUT_VALUE_HIST:
				for (size_t k = 0; k < e->n_buckets; k++) {
					const bpfout_bucket *b = &e->buckets[k];
					if (b->lo > b->hi)
						abort();
					if (k && b->lo < e->buckets[k - 1].lo)
						abort();	/* "ascending" */
					sink += b->count;
				}
				break;
			case BPFOUT_VALUE_STRING:
				touch(e->str);
				break;
			default:
				abort();
			}
		}
	}
	if (bpfout_window_map(w, "@no such map, never printed") != NULL)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bpfout *p = bpfout_new();
	if (!p)
		return 0;
	size_t start = 0;
	while (start <= size) {
		const uint8_t *nl = memchr(data + start, '\n', size - start);
		size_t end = nl ? (size_t)(nl - data) : size;
		size_t len = end - start;
		/* Keep the '\n' on odd lines: both forms are allowed. */
		size_t feed = nl && (len % 2) ? len + 1 : len;
		char *line = malloc(feed ? feed : 1);
		if (!line)
			break;
		memcpy(line, data + start, feed);
		bpfout_line kind = bpfout_feed(p, line, feed);
		if (kind < BPFOUT_LINE_IGNORED || kind > BPFOUT_LINE_SKIPPED)
			abort();
		free(line);
		if (!nl)
			break;
		start = end + 1;
	}
	sink += (size_t)bpfout_attached(p) + bpfout_lost_events(p);
	size_t n = bpfout_window_count(p);
	for (size_t i = 0; i < n; i++)
		walk_window(bpfout_window_at(p, i), true);
	walk_window(bpfout_trailing(p), false);
	for (size_t i = 0; i < bpfout_note_count(p); i++) {
		const char *note = bpfout_note_at(p, i);
		touch(note);
		if (strlen(note) > 1024)
			abort();
		for (const unsigned char *c = (const unsigned char *)note; *c; c++)
			if ((*c < 0x20 && *c != '\t' && *c != '\n') || *c == 0x7f)
				abort();
	}
	bpfout_free(p);
	return 0;
}
