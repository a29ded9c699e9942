/* bpfout_internal — what the files of bpfout (bpfout.c, bpfout_lines.c,
 * bpfout_events.c, bpfout_markers.c, bpfout_numbers.c, bpfout_shared.c)
 * share: the parser's state and the helpers more than one uses.  Not for
 * other modules. */
#ifndef BPFSPEC_BPFOUT_INTERNAL_H
#define BPFSPEC_BPFOUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "run/bpfout.h"

#define MAX_LINE	((size_t)64 << 20)	/* longer lines are skipped */
#define MAX_NOTES	10000			/* then one "dropped" note */
#define MAX_NOTE_LEN	1024			/* longer notes are cut */

struct bpfout {
	long attached;
	uint64_t lost;
	bpfout_window **windows;	/* complete; pointers never move */
	size_t n_windows, cap_windows;
	bpfout_window *cur;		/* the trailing window */
	bool in_section;		/* flush seen, end not yet */
	bool begin_seen;
	char **notes;
	size_t n_notes, cap_notes;
	char **probe_names;		/* "bpfspec:probes": shared maps' probes, 1-based */
	size_t n_probe_names;
	size_t lineno;
	bool line_clamped;		/* an integer of this line was clamped */
	bool join_pending;		/* the last line was an event ending in
					 * BPFOUT_JOIN_MARK (bpfout.h) */
};

/* bpfout.c */
void *bpfout_grow(void *arr, size_t *cap, size_t need, size_t size);
/* Adds "line N: " + the formatted text as a note (cut, controls as '?'). */
void bpfout_note(bpfout *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int bpfout_window_put(bpfout_window *w, bpfout_map *m);
/* Frees what M holds and zeroes it. */
void bpfout_map_clear(bpfout_map *m);
/* Frees W's maps (its events stay) and leaves it with none. */
void bpfout_window_clear_maps(bpfout_window *w);
/* S's length without its one trailing newline, for "%.*s". */
int bpfout_chomp_len(const char *s);
void bpfout_split_ikeys_len(bpfout_entry *e, size_t key_len);

/* bpfout_events.c: the event records of the open window. */
/* Keeps event record S (LEN bytes, "bpfspec:ev " cut off; a trailing
 * newline allowed) in P's open window, or counts it as dropped when the
 * window is full or memory is short.  Returns BPFOUT_LINE_EVENT. */
bpfout_line bpfout_feed_event(bpfout *p, const char *s, size_t len);
/* A join line (TEXT) right after an event that waits for one (PENDING):
 * the event's mark becomes TEXT.  Returns whether it was such a line. */
bool bpfout_complete_join(bpfout *p, bool pending, const char *text);

/* bpfout_shared.c: maps the probes share (@b[N, ...] for probe N). */
/* Reads the names after "bpfspec:probes" (S, LEN bytes: " NAME NAME...",
 * a trailing newline allowed), replacing any named before: PROBES, or
 * MESSAGE (noted) when malformed. */
bpfout_line bpfout_feed_probes(bpfout *p, const char *s, size_t len);
/* Frees the probe names (bpfout_free; a new probes line). */
void bpfout_forget_probes(bpfout *p);
/* Moves M into the trailing window; a shared map (bpfout_shared.c) goes
 * in as one map per probe.  Returns 0, or -1 when M was lost (out of
 * memory: the caller notes it).  M is cleared either way. */
int bpfout_put_map(bpfout *p, bpfout_map *m);

/* bpfout_markers.c: the window markers. */
/* A printf record S (LEN bytes) that starts with "bpfspec:" (not
 * "bpfspec:ev "): the marker's effect on P's windows, and what the line
 * turned out to be; a malformed or misplaced marker is noted
 * (BPFOUT_LINE_MESSAGE). */
bpfout_line bpfout_feed_marker(bpfout *p, const char *s, size_t len);

/* bpfout_numbers.c: integers as bpftrace writes them. */

/* Parses the LEN bytes of S as a whole decimal integer (optional sign,
 * digits, nothing else).  Returns 0 with *NEG and *MAG set; -1 when it is
 * not one or overflows 64 bits of magnitude. */
int bpfout_parse_decimal(const char *s, size_t len, bool *neg, uint64_t *mag);
/* A sign and magnitude clamped into int64; sets *CLAMPED when it had to. */
int64_t bpfout_clamp_i64(bool neg, uint64_t mag, bool *clamped);
/* J as a signed integer: a JSON integer, an integral real, or with
 * STRINGS a decimal string; clamped to int64 (the line noted).  Returns
 * 0, or -1 when J is none of these. */
int bpfout_json_i64(bpfout *p, const json_t *j, bool strings, int64_t *out);
/* J as a count: negative values are refused, all of uint64 kept. */
int bpfout_json_u64(bpfout *p, const json_t *j, uint64_t *out);
/* True when J is a string bpftrace 0.24+ wrote for an integer a double
 * cannot hold exactly (a genuine string such as a comm "1234" is not);
 * sets *OUT, clamped to int64. */
bool bpfout_is_quoted_big_int(bpfout *p, const json_t *j, int64_t *out);

/* bpfout_lines.c: what is done to a line before (or instead of) jansson. */

/* Rewrites bpftrace's "\uffffffXX" escapes in LINE into the bytes they
 * stand for (safe.h wire code points where not UTF-8).  Returns a malloc'ed
 * copy and its length in *OUT_LEN, with the counts of repaired bytes and
 * of bytes carried as wire code points; NULL when there was nothing to
 * repair (or no memory). */
char *bpfout_repair_high_bytes(const char *line, size_t len, size_t *out_len, size_t *repaired,
			size_t *replaced);
/* A map dump of plain integers, read without jansson: true when LINE was
 * one and is now in P; false (nothing changed) otherwise. */
bool bpfout_fast_map_line(bpfout *p, const char *line, size_t len);
/* A printf record of an event, read without jansson: true and *KIND when
 * LINE was one. */
bool bpfout_fast_event_line(bpfout *p, const char *line, size_t len, bpfout_line *kind);

#endif
