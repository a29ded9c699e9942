/* bpfout_events — the event records a window keeps: "bpfspec:ev TEXT"
 * lines (bpfout.h), at most BPFOUT_MAX_EVENTS per window and the rest
 * counted by probe name, and the join() line that completes a record
 * ending in BPFOUT_JOIN_MARK (bpfout_internal.h).  Records are kept as
 * the bytes they stand for (safe_wire_decode); the window owns them. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/bpfout_internal.h"
#include "util/safe.h"

/* Counts record S (LEN bytes) as not kept in W, by its first word. */
static void drop_record(bpfout_window *w, const char *s, size_t len)
{
	size_t n = 0;
	while (n < len && s[n] != ' ')
		n++;
	w->events_dropped++;
	for (size_t i = 0; i < w->n_dropped_by; i++)
		if (strlen(w->dropped_by[i].name) == n && memcmp(w->dropped_by[i].name, s, n) == 0) {
			w->dropped_by[i].count++;
			return;
		}
	if (w->n_dropped_by == BPFOUT_DROPPED_NAMES || n >= sizeof w->dropped_by[0].name)
		return;
	struct bpfout_dropped *d = &w->dropped_by[w->n_dropped_by++];
	memcpy(d->name, s, n);
	d->name[n] = '\0';
	d->count = 1;
}

uint64_t bpfout_dropped_records(const bpfout_window *w, const char *name)
{
	for (size_t i = 0; w && name && i < w->n_dropped_by; i++)
		if (strcmp(w->dropped_by[i].name, name) == 0)
			return w->dropped_by[i].count;
	return 0;
}

/* Keeps one event record in the open window. */
bpfout_line bpfout_feed_event(bpfout *p, const char *s, size_t len)
{
	bpfout_window *w = p->cur;

	if (len && s[len - 1] == '\n')
		len--;
	if (w->n_events >= BPFOUT_MAX_EVENTS) {
		drop_record(w, s, len);
		return BPFOUT_LINE_EVENT;
	}
	char **ev = bpfout_grow(w->events, &w->cap_events, w->n_events + 1, sizeof *ev);
	char *copy = ev ? strndup(s, len) : NULL;
	if (ev)
		w->events = ev;
	if (!copy) {
		drop_record(w, s, len);
		return BPFOUT_LINE_EVENT;
	}
	safe_wire_decode(copy);
	w->events[w->n_events++] = copy;
	size_t cl = strlen(copy), ml = strlen(" " BPFOUT_JOIN_MARK);
	p->join_pending = cl >= ml && strcmp(copy + cl - ml, " " BPFOUT_JOIN_MARK) == 0;
	return BPFOUT_LINE_EVENT;
}

/* A join line (TEXT) right after an event that waits for one: the event's
 * mark becomes TEXT.  Returns whether it was such a line. */
bool bpfout_complete_join(bpfout *p, bool pending, const char *text)
{
	bpfout_window *w = p->cur;
	if (!pending || !w->n_events)
		return false;
	char *ev = w->events[w->n_events - 1];
	size_t keep = strlen(ev) - strlen(BPFOUT_JOIN_MARK), tl = strcspn(text, "\n");
	if (tl > BPFOUT_JOIN_MAX)
		tl = BPFOUT_JOIN_MAX;
	char *joined = realloc(ev, keep + tl + 1);
	if (!joined)
		return false;
	memcpy(joined + keep, text, tl);
	joined[keep + tl] = '\0';
	w->events[w->n_events - 1] = joined;
	return true;
}
