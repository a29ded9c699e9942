/* bpfout_lines — what bpfout does to a line of bpftrace's output before
 * jansson sees it: the repair of bpftrace's high-byte escapes, and the fast
 * paths that read the commonest lines (integer map dumps, event records)
 * without building a JSON tree (bpfout_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "run/bpfout_internal.h"
#include "util/safe.h"

/* ---- line repair -------------------------------------------------------- */

/* The byte of a "\uffffffXX" escape at S (LEN bytes left), or -1. */
static int high_byte_escape(const char *s, size_t len)
{
	if (len < 10 || memcmp(s, "\\uffffff", 8) != 0)
		return -1;
	int hi = safe_hex_value(s[8]), lo = safe_hex_value(s[9]);
	return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
}

/* Rewrites bpftrace's "\uffffffXX" escapes in LINE into the raw bytes they
 * stand for; a byte that is not part of valid UTF-8 travels as its
 * safe.h wire code point (each 10-byte escape becomes at most 4 bytes), so
 * the JSON stays valid and the string keeps its exact bytes: bpfout
 * decodes the strings it hands out.  Returns a malloc'ed NUL-terminated
 * copy and its length in *OUT_LEN, with the counts of repaired bytes and
 * of bytes carried as wire code points; NULL when there was nothing to
 * repair (or no memory). */
char *bpfout_repair_high_bytes(const char *line, size_t len, size_t *out_len,
			       size_t *repaired, size_t *replaced)
{
	if (!memmem(line, len, "\\uffffff", 8))
		return NULL;
	/* Each 10-byte escape shrinks to 1 byte or to a 6-byte "\ufffd". */
	char *out = malloc(len + 1), *o = out;
	unsigned char *run = malloc(len / 10 + 1);
	if (!out || !run) {
		free(out);
		free(run);
		return NULL;
	}
	*repaired = *replaced = 0;
	for (size_t i = 0; i < len;) {
		if (line[i] != '\\') {
			*o++ = line[i++];
			continue;
		}
		if (high_byte_escape(line + i, len - i) < 0) {
			/* Any other escape: copy it whole so "\\\\uffffff..." (an
			 * escaped backslash, then text) is left alone. */
			*o++ = line[i++];
			if (i < len)
				*o++ = line[i++];
			continue;
		}
		size_t n = 0;
		int b;
		while ((b = high_byte_escape(line + i, len - i)) >= 0) {
			run[n++] = (unsigned char)b;
			i += 10;
		}
		*repaired += n;
		for (size_t k = 0, used; k < n; k += used) {
			size_t w = safe_wire_encode(run + k, n - k, o, &used);
			if (w != used)
				(*replaced)++;
			o += w;
		}
	}
	*o = '\0';
	*out_len = (size_t)(o - out);
	free(run);
	return out;
}

/* ---- the fast path for plain integer maps ----------------------------------
 *
 * Most of what bpftrace prints is map dumps of integers, one map a line:
 *   {"type": "map", "data": {"@b_timers": {"100,300": 3, "101,300": 1}}}
 * and stats() maps (syscalls' totals per thread and syscall):
 *   {"type": "stats", "data": {"@st_s": {"100,0": {"count": 2,
 *    "average": 150, "total": 300}}}}
 * Building a jansson tree of such a line (a hash table of every key) costs
 * more than the rest of bpfspec together, so lines of exactly these shapes
 * are read directly, to what the jansson path makes of them.  Anything
 * else — escapes, non-ASCII text, floats, integers outside int64, other
 * nested values, stats members in another order, several maps — returns
 * false before any state changes, and the line goes through jansson. */

typedef struct scan {
	const char *s, *end;
} scan;

static void scan_ws(scan *c)
{
	while (c->s < c->end && (*c->s == ' ' || *c->s == '\t'))
		c->s++;
}

static bool scan_char(scan *c, char ch)
{
	scan_ws(c);
	if (c->s < c->end && *c->s == ch) {
		c->s++;
		return true;
	}
	return false;
}

/* A string of printable ASCII without escapes: sets *STR and *LEN. */
static bool scan_string(scan *c, const char **str, size_t *len)
{
	if (!scan_char(c, '"'))
		return false;
	const char *b = c->s;
	while (c->s < c->end && *c->s != '"') {
		unsigned char ch = (unsigned char)*c->s;
		if (ch < 0x20 || ch > 0x7e || ch == '\\')
			return false;
		c->s++;
	}
	if (c->s == c->end)
		return false;
	*str = b;
	*len = (size_t)(c->s - b);
	c->s++;
	return true;
}

static bool scan_word(scan *c, const char *word)
{
	const char *s;
	size_t len;
	return scan_string(c, &s, &len) && len == strlen(word) && memcmp(s, word, len) == 0;
}

/* A JSON integer that fits int64. */
static bool scan_int(scan *c, int64_t *out)
{
	scan_ws(c);
	bool neg = c->s < c->end && *c->s == '-';
	const char *d = c->s + neg, *e = d;
	uint64_t mag = 0;
	while (e < c->end && *e >= '0' && *e <= '9') {
		if (mag > (UINT64_MAX - 9) / 10)
			return false;
		mag = mag * 10 + (uint64_t)(*e - '0');
		e++;
	}
	if (e == d || (e - d > 1 && *d == '0') || (e < c->end && strchr(".eE", *e)))
		return false;
	if (mag > (uint64_t)INT64_MAX + neg)
		return false;
	*out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	c->s = e;
	return true;
}

/* stats()' value {"count": C, "average": A, "total": T} into E, members
 * in bpftrace's order, C not negative. */
static bool scan_stats(scan *c, bpfout_entry *e)
{
	int64_t count, average, total;
	if (!scan_char(c, '{') || !scan_word(c, "count") || !scan_char(c, ':') ||
	    !scan_int(c, &count) || count < 0 || !scan_char(c, ',') ||
	    !scan_word(c, "average") || !scan_char(c, ':') || !scan_int(c, &average) ||
	    !scan_char(c, ',') || !scan_word(c, "total") || !scan_char(c, ':') ||
	    !scan_int(c, &total) || !scan_char(c, '}'))
		return false;
	e->type = BPFOUT_VALUE_STATS;
	e->stats_count = (uint64_t)count;
	e->stats_total = total;
	e->value = average;
	return true;
}

bool bpfout_fast_map_line(bpfout *p, const char *line, size_t len)
{
	scan c = { line, line + len };
	const char *name, *key;
	size_t name_len, key_len, n = 0, cap = 0;
	bpfout_entry *entries = NULL;
	bpfout_map m;
	int64_t v;
	/* Every key, NUL-terminated, in one block: they take less room than
	 * the line itself. */
	char *arena, *ap;

	const char *type;
	size_t type_len;
	if (memchr(line, '\\', len) || !scan_char(&c, '{') || !scan_word(&c, "type") ||
	    !scan_char(&c, ':') || !scan_string(&c, &type, &type_len))
		return false;
	bool stats = type_len == 5 && memcmp(type, "stats", 5) == 0;
	if (!stats && !(type_len == 3 && memcmp(type, "map", 3) == 0))
		return false;
	if (!scan_char(&c, ',') || !scan_word(&c, "data") || !scan_char(&c, ':') ||
	    !scan_char(&c, '{') || !scan_string(&c, &name, &name_len) || !scan_char(&c, ':') ||
	    !scan_char(&c, '{'))
		return false;
	if (!(ap = arena = malloc(len + 1)))
		return false;
	bool first = true;
	while (!scan_char(&c, '}')) {
		if ((!first && !scan_char(&c, ',')) || !scan_string(&c, &key, &key_len) ||
		    !scan_char(&c, ':'))
			goto fallback;
		/* An unkeyed stats map's value is the stats object itself. */
		if (stats && first && key_len == 5 && memcmp(key, "count", 5) == 0)
			goto fallback;
		first = false;
		if (n == cap) {
			bpfout_entry *ne = bpfout_grow(entries, &cap, n + 1, sizeof *ne);
			if (!ne)
				goto fallback;
			entries = ne;
		}
		bpfout_entry *e = &entries[n];
		memset(e, 0, sizeof *e);
		scan_ws(&c);
		if (stats && c.s < c.end && *c.s == '{') {
			if (!scan_stats(&c, e))
				goto fallback;
		} else if (scan_int(&c, &v)) {
			e->type = BPFOUT_VALUE_INT;
			e->value = v;
		} else {
			goto fallback;
		}
		memcpy(ap, key, key_len);
		ap[key_len] = '\0';
		e->key = ap;
		ap += key_len + 1;
		bpfout_split_ikeys_len(e, key_len);
		n++;
	}
	if (!scan_char(&c, '}') || !scan_char(&c, '}') || (scan_ws(&c), c.s != c.end))
		goto fallback;
	memset(&m, 0, sizeof m);
	if (!(m.name = strndup(name, name_len)))
		goto fallback;
	m.entries = entries;
	m.n_entries = n;
	m.key_arena = arena;
	if (bpfout_put_map(p, &m) < 0)
		bpfout_note(p, "skipped: %.*s: out of memory", (int)name_len, name);
	return true;
fallback:
	free(entries);	/* keys are in the arena, nothing else was allocated */
	free(arena);
	return false;
}

/* ---- the fast path for event records ----------------------------------------
 *
 * An events probe prints one record a call:
 *   {"type": "printf", "data": "bpfspec:ev 123 4567 openat\n"}
 * Its text is taken as it stands when it holds no escape, quote, control
 * or non-ASCII byte (any of these: false, and jansson reads the line), so
 * it is byte for byte what jansson would have decoded. */
bool bpfout_fast_event_line(bpfout *p, const char *line, size_t len, bpfout_line *kind)
{
	static const char head[] = "{\"type\": \"printf\", \"data\": \"bpfspec:ev ";
	static const char tail[] = "\\n\"}";
	const size_t hl = sizeof head - 1, tl = sizeof tail - 1;

	if (len < hl + tl || memcmp(line, head, hl) != 0 || memcmp(line + len - tl, tail, tl) != 0)
		return false;
	const char *text = line + hl;
	size_t n = len - hl - tl;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return false;
	}
	*kind = bpfout_feed_event(p, text, n);
	return true;
}
