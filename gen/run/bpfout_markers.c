/* bpfout_markers — the "bpfspec:" markers a generated program prints
 * between its map dumps (bpfout.h lists them), and what each does to the
 * parser's windows: where the first one begins, where the open one ends
 * and when it is complete, where the next one begins after a hold
 * (bpfout_internal.h).  A marker out of place or malformed is noted, never
 * fatal. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/bpfout_internal.h"

/* True when S is "bpfspec:" WORD, then " " and a decimal NS when WANT_NS,
 * then at most one newline.  Sets *NS. */
static bool parse_marker(const char *s, size_t len, const char *word, bool want_ns, uint64_t *ns)
{
	size_t wl = strlen(word), i = 8 + wl;
	bool neg;

	if (len && s[len - 1] == '\n')
		len--;
	if (len < i || memcmp(s + 8, word, wl) != 0)
		return false;
	if (!want_ns)
		return len == i;
	return len > i + 1 && s[i] == ' ' && s[i + 1] >= '0' && s[i + 1] <= '9' &&
	       bpfout_parse_decimal(s + i + 1, len - i - 1, &neg, ns) == 0;
}

/* "bpfspec:begin NS": the first window starts at NS; a second begin is
 * noted and ignored.  Returns BPFOUT_LINE_BEGIN. */
static bpfout_line marker_begin(bpfout *p, uint64_t ns)
{
	if (p->begin_seen || p->n_windows || p->in_section) {
		bpfout_note(p, "ignored a second begin marker (%" PRIu64 ")", ns);
	} else {
		p->cur->begin_ns = ns;
		p->begin_seen = true;
	}
	return BPFOUT_LINE_BEGIN;
}

/* "bpfspec:begun NS": the first window begins now, at NS; the records
 * printed before it are from the attach and are dropped.  After the
 * first window the marker is noted and ignored (BPFOUT_LINE_MESSAGE). */
static bpfout_line marker_begun(bpfout *p, uint64_t ns)
{
	if (p->n_windows || p->in_section) {
		bpfout_note(p, "ignored a begun marker after the first window (%" PRIu64 ")", ns);
		return BPFOUT_LINE_MESSAGE;
	}
	for (size_t i = 0; i < p->cur->n_events; i++)
		free(p->cur->events[i]);
	p->cur->n_events = 0;
	p->cur->events_dropped = 0;
	p->cur->n_dropped_by = 0;
	p->cur->begin_ns = ns;
	return BPFOUT_LINE_BEGUN;
}

/* "bpfspec:resumed NS": the open window begins at NS, not at the flush
 * before it; what ended during the hold counted nowhere
 * (window_resume.bt.in).  Outside the gap between two windows it is noted
 * and ignored (BPFOUT_LINE_MESSAGE). */
static bpfout_line marker_resumed(bpfout *p, uint64_t ns)
{
	if (p->in_section || !p->n_windows) {
		bpfout_note(p, "ignored a resumed marker outside the gap between two windows "
			    "(%" PRIu64 ")", ns);
		return BPFOUT_LINE_MESSAGE;
	}
	if (ns > p->cur->begin_ns)
		p->cur->begin_ns = ns;
	return BPFOUT_LINE_RESUMED;
}

/* "bpfspec:flush NS": the open window ends at NS and its maps follow.
 * Returns BPFOUT_LINE_FLUSH. */
static bpfout_line marker_flush(bpfout *p, uint64_t ns)
{
	if (p->in_section) {
		/* The end marker of the previous flush never came (a lost
		 * event?): its maps may be partial, drop them; the maps that
		 * follow cover both intervals, since the script clears only
		 * after printing. */
		bpfout_note(p, "flush marker while the window ending at %" PRIu64
		     " was still open (end marker lost?): that window was dropped",
		     p->cur->end_ns);
		bpfout_window_clear_maps(p->cur);
		p->cur->begin_ns = p->cur->end_ns;
	}
	p->cur->end_ns = ns;
	p->in_section = true;
	return BPFOUT_LINE_FLUSH;
}

/* "bpfspec:end": the flushed window is complete; it joins P->windows and
 * a new open window begins at its end (BPFOUT_LINE_WINDOW).  Without a
 * flush before it the marker is noted and ignored (BPFOUT_LINE_MESSAGE);
 * out of memory, the window's maps are dropped and noted
 * (BPFOUT_LINE_SKIPPED). */
static bpfout_line marker_end(bpfout *p)
{
	if (!p->in_section) {
		bpfout_note(p, "ignored an end marker without a flush marker before it");
		return BPFOUT_LINE_MESSAGE;
	}
	bpfout_window *next = calloc(1, sizeof *next);
	bpfout_window **ws = bpfout_grow(p->windows, &p->cap_windows, p->n_windows + 1,
				  sizeof *ws);
	if (ws)
		p->windows = ws;
	if (!next || !ws) {
		free(next);
		bpfout_note(p, "out of memory: window ending at %" PRIu64 " dropped", p->cur->end_ns);
		bpfout_window_clear_maps(p->cur);
		p->cur->begin_ns = p->cur->end_ns;
		p->cur->end_ns = 0;
		p->in_section = false;
		return BPFOUT_LINE_SKIPPED;
	}
	p->cur->complete = true;
	next->begin_ns = p->cur->end_ns;
	p->windows[p->n_windows++] = p->cur;
	p->cur = next;
	p->in_section = false;
	return BPFOUT_LINE_WINDOW;
}

/* A printf record S (LEN bytes) that starts with "bpfspec:": the marker it
 * is, handed to its handler; what the line turned out to be.  A malformed
 * marker is noted (BPFOUT_LINE_MESSAGE). */
bpfout_line bpfout_feed_marker(bpfout *p, const char *s, size_t len)
{
	uint64_t ns = 0;

	if (parse_marker(s, len, "begin", true, &ns))
		return marker_begin(p, ns);
	if (len >= 14 && memcmp(s + 8, "probes", 6) == 0 && (len == 14 || s[14] == ' '))
		return bpfout_feed_probes(p, s + 14, len - 14);
	if (parse_marker(s, len, "started", true, &ns))
		return BPFOUT_LINE_STARTED;
	if (parse_marker(s, len, "begun", true, &ns))
		return marker_begun(p, ns);
	if (parse_marker(s, len, "held", true, &ns))
		return BPFOUT_LINE_HELD;
	if (parse_marker(s, len, "resumed", true, &ns))
		return marker_resumed(p, ns);
	if (parse_marker(s, len, "flush", true, &ns))
		return marker_flush(p, ns);
	if (parse_marker(s, len, "end", false, &ns))
		return marker_end(p);
	bpfout_note(p, "malformed bpfspec marker: %.*s", bpfout_chomp_len(s), s);
	return BPFOUT_LINE_MESSAGE;
}
