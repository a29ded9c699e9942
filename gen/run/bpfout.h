/* bpfout — parses bpftrace's `-f json` output, one line at a time.
 *
 * Understands bpftrace 0.17 through 0.24+ (see ../shared/PLATFORM.md and
 * tests/fixtures/): blank lines and plain-text lines are tolerated,
 * malformed JSON (for instance 0.17's "\uffffffXX" escapes) is skipped and
 * noted, never fatal.
 *
 * bpfspec's generated scripts frame their map dumps with printf markers:
 *   "bpfspec:begin NS"  window 0 starts at NS (bpftrace's nsecs)
 *   "bpfspec:started NS" the maps gathered while attaching are cleared
 *   "bpfspec:begun NS"  window 0 begins at NS instead (records before it
 *                       are dropped: templates/window_start.bt.in)
 *   "bpfspec:flush NS"  the current window ends at NS; maps follow
 *   "bpfspec:end"       the maps of that flush are complete
 *   "bpfspec:held NS"   that flush's maps are cleared (held intervals)
 *   "bpfspec:resumed NS" the next window begins at NS instead of at the
 *                       flush (templates/window_resume.bt.in)
 *   "bpfspec:ev TEXT"   one event record, kept in the open window; a TEXT
 *                       that ends in " <join>" (BPFOUT_JOIN_MARK) takes,
 *                       in the mark's place, the text of a join() line
 *                       that comes right after it (at most
 *                       BPFOUT_JOIN_MAX bytes, up to a newline); without
 *                       one, the mark stays
 *   "bpfspec:probes NAME..."  the probes, numbered from 1, of the maps they
 *                       share: from then on a map "@WORD" (no '_') of
 *                       integers keyed [N, REST...] is kept as one map
 *                       per probe, "@WORD_NAME" keyed [REST...]
 *                       (bpfout_shared.c)
 * Maps printed between flush and end belong to that window; the next window
 * starts at the previous flush's NS.  Maps printed anywhere else (bpftrace's
 * own exit-time dump) are collected in the "trailing" window, which is never
 * complete.
 *
 * Ownership: bpfout_new returns an owned parser, bpfout_free(NULL) is a
 * no-op; every pointer returned by an accessor is borrowed and stays valid
 * until bpfout_free (windows are never moved once complete). */
#ifndef BPFSPEC_BPFOUT_H
#define BPFSPEC_BPFOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	BPFOUT_VALUE_INT,	/* count/sum/min/max/avg/plain integer map */
	BPFOUT_VALUE_STATS,	/* stats(): count, total, average */
	BPFOUT_VALUE_HIST,	/* hist()/lhist(): buckets */
	BPFOUT_VALUE_STRING,	/* string-valued map */
} bpfout_value_type;

typedef struct bpfout_bucket {
	int64_t lo;		/* inclusive; INT64_MIN when open below */
	int64_t hi;		/* inclusive; INT64_MAX when open above */
	uint64_t count;
} bpfout_bucket;

typedef struct bpfout_entry {
	char *key;		/* raw key text; "" for a map without keys */
	int64_t ikeys[8];	/* the key's comma-separated parts as integers */
	size_t n_ikeys;		/* 0 unless every part is an integer */
	bpfout_value_type type;
	int64_t value;		/* INT */
	uint64_t stats_count;	/* STATS */
	int64_t stats_total;	/* STATS */
	bpfout_bucket *buckets;	/* HIST, ascending */
	size_t n_buckets;
	char *str;		/* STRING */
} bpfout_entry;

typedef struct bpfout_map {
	char *name;		/* with the '@', e.g. "@b_timers" */
	bpfout_entry *entries;
	size_t n_entries;
	char *key_arena;	/* when set, the entries' keys point into it (and
				 * every entry is BPFOUT_VALUE_INT) */
} bpfout_map;

#define BPFOUT_MAX_EVENTS 100000
#define BPFOUT_JOIN_MARK "<join>"
#define BPFOUT_JOIN_MAX 512
#define BPFOUT_DROPPED_NAMES 16

typedef struct bpfout_window {
	uint64_t begin_ns;	/* bpftrace nsecs; 0 when unknown */
	uint64_t end_ns;	/* 0 when the window has not been flushed */
	bool complete;		/* "bpfspec:end" seen */
	bpfout_map *maps;	/* a map printed twice keeps the last print */
	size_t n_maps;
	/* Event records: printf lines "bpfspec:ev TEXT" that arrived while
	 * this window was open, TEXT kept verbatim (newline cut), at most
	 * BPFOUT_MAX_EVENTS; the rest are only counted. */
	char **events;
	size_t n_events, cap_events;
	uint64_t events_dropped;
	/* The records not kept, by their first word (the probe's name), for
	 * the first BPFOUT_DROPPED_NAMES names (events_dropped counts all). */
	struct bpfout_dropped {
		char name[48];
		uint64_t count;
	} dropped_by[BPFOUT_DROPPED_NAMES];
	size_t n_dropped_by;
} bpfout_window;

/* How many records of probe NAME window W did not keep (over
 * BPFOUT_MAX_EVENTS, or out of memory). */
uint64_t bpfout_dropped_records(const bpfout_window *w, const char *name);

/* What one fed line turned out to be. */
typedef enum {
	BPFOUT_LINE_IGNORED,	/* blank line */
	BPFOUT_LINE_ATTACHED,	/* attached_probes */
	BPFOUT_LINE_BEGIN,	/* bpfspec:begin marker */
	BPFOUT_LINE_PROBES,	/* bpfspec:probes: the shared maps' probe names */
	BPFOUT_LINE_STARTED,	/* bpfspec:started: the window-start clears are done */
	BPFOUT_LINE_BEGUN,	/* bpfspec:begun NS: the first window begins at NS
				 * (records before it are dropped) */
	BPFOUT_LINE_HELD,	/* bpfspec:held NS: an interval's clears are done */
	BPFOUT_LINE_RESUMED,	/* bpfspec:resumed NS: the open window begins at NS */
	BPFOUT_LINE_FLUSH,	/* bpfspec:flush marker */
	BPFOUT_LINE_WINDOW,	/* bpfspec:end: a window became complete */
	BPFOUT_LINE_DATA,	/* a map/hist/stats/value record */
	BPFOUT_LINE_EVENT,	/* a bpfspec:ev record */
	BPFOUT_LINE_LOST,	/* lost_events */
	BPFOUT_LINE_MESSAGE,	/* anything else worth showing (noted) */
	BPFOUT_LINE_SKIPPED,	/* unparseable; noted with the reason */
} bpfout_line;

typedef struct bpfout bpfout;

bpfout *bpfout_new(void);
void bpfout_free(bpfout *p);

/* Feeds one line of LEN bytes (no trailing newline needed; a trailing
 * '\n' or "\r\n" is ignored).  Never fails: problems become notes. */
bpfout_line bpfout_feed(bpfout *p, const char *line, size_t len);

/* Number of probes bpftrace said it attached; -1 before that line. */
long bpfout_attached(const bpfout *p);

/* Events bpftrace reported lost (sum of every lost_events record). */
uint64_t bpfout_lost_events(const bpfout *p);

/* Complete windows, in order. */
size_t bpfout_window_count(const bpfout *p);
const bpfout_window *bpfout_window_at(const bpfout *p, size_t i);

/* The window being filled: maps after the last end marker (or all maps
 * when no marker was ever seen).  Never NULL; may have no maps. */
const bpfout_window *bpfout_trailing(const bpfout *p);

/* Frees the maps and events of complete window I once it has been
 * reported (its begin/end stay): a long run of intervals then holds one
 * window's data at a time.  Pointers into that window's maps and events
 * become invalid.  No-op for an index out of range. */
void bpfout_window_release(bpfout *p, size_t i);

/* Finds map NAME (with '@') in W; NULL when it was not printed. */
const bpfout_map *bpfout_window_map(const bpfout_window *w, const char *name);

/* Finds the entry whose raw key text is KEY ("" for a map without keys) in
 * M; NULL when absent.  print(VALUE) of a plain integer is kept as the map
 * named "" (no '@') in the window where it was printed. */
const bpfout_entry *bpfout_map_entry(const bpfout_map *m, const char *key);

/* Human-readable notes: printf text that is not a marker, plain-text
 * lines, helper errors, skipped lines with the reason and line number. */
size_t bpfout_note_count(const bpfout *p);
const char *bpfout_note_at(const bpfout *p, size_t i);

#endif
