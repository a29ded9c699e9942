/* spec — loads and validates YAML probe specs (see spec.h, docs/spec.md).
 *
 * Two passes.  The first reads libyaml events into a small tree of nodes
 * (rejecting anchors, aliases, tags, directives and extra documents as it
 * goes); the second walks the tree against the spec format and fills a
 * struct spec, reporting every problem it finds.  Only strings that pass
 * their check are copied into the spec. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "spec.h"
#include "systab.h"
#include "suggest.h"

#include "check.h"

#define SPEC_MAX_BYTES (1024 * 1024)
#define SPEC_MAX_PROBES 64
#define SPEC_MAX_OBJECTS 32
#define SPEC_MAX_ERRORS 50	/* more are counted, not shown */
/* top mapping > probes list > probe mapping > syscalls or args list >
 * argument mapping */
#define SPEC_DEPTH 5
#define YAML_MAX_DEPTH 64	/* deeper than this, reading stops */
#define DESCRIPTION_MAX 1000
#define REASON_MAX 200
#define PROBE_NAME_MAX 32
#define SPEC_NAME_MAX 64
#define FUNCTION_MAX 256
#define OBJECT_MAX 128
#define POINT_MAX 1024	/* a count probe's probe point, in bytes */
#define POINT_WORD_MAX 64	/* tracepoint, usdt words */
#define SYSCALL_NAME_MAX 64
#define EVENTS_MAX_SYSCALLS 16	/* an events probe names a few calls */
#define SYSCALL_GUESS_DISTANCE 2	/* "did you mean" at most this far off */
#define DAY_NS (86400ULL * 1000000000ULL)
#define SHOW_BUF 64		/* user text quoted in messages is cut to fit */

/* ---- names of enum values ---- */

static const char *const unit_names[] = { "ns", "us", "ms", "s", "auto", NULL };
static const uint64_t unit_mults[] = { 1, 1000, 1000000, 1000000000, 1000 };
static const char *const kind_names[] = {
	"latency", "syscalls", "events", "count", "utilization", NULL,
};

const char *const spec_loop_waits[] = { "epoll_wait", "epoll_pwait", "epoll_pwait2", NULL };

const char *spec_unit_name(time_unit u)
{
	return (unsigned)u <= UNIT_AUTO ? unit_names[u] : "?";
}

uint64_t spec_unit_ns(time_unit u)
{
	return (unsigned)u <= UNIT_AUTO ? unit_mults[u] : 1;
}

time_unit spec_unit_for(uint64_t ns)
{
	return ns >= 1000000000ull ? UNIT_S : ns >= 1000000 ? UNIT_MS : ns >= 1000 ? UNIT_US : UNIT_NS;
}

const char *spec_kind_name(probe_kind k)
{
	return (unsigned)k < 5 ? kind_names[k] : "?";
}

/* ---- durations ---- */

/* Parses TEXT like spec_parse_duration.  Returns 0, -1 when malformed,
 * -2 when well-formed but longer than a day. */
static int parse_duration(const char *text, uint64_t *ns)
{
	static const struct { const char *name; uint64_t mult; } units[] = {
		{ "ns", 1 }, { "us", 1000ULL }, { "ms", 1000000ULL },
		{ "s", 1000000000ULL }, { "m", 60000000000ULL }, { "h", 3600000000000ULL },
	};
	const char *p = text, *frac, *unit;
	uint64_t whole = 0, num = 0, mult = 0, unit_ns, den = 1;
	size_t nfrac, k;
	bool too_big = false;

	if (!text)
		return -1;
	if (strcmp(text, "0") == 0) {
		*ns = 0;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > DAY_NS)
			too_big = true;	/* keep scanning: still check the form */
		else
			whole = whole * 10 + (uint64_t)(*p - '0');
	}
	frac = p;
	if (*p == '.') {
		frac = ++p;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	nfrac = (size_t)(p - frac);
	unit = p;
	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (strcmp(unit, units[k].name) == 0)
			mult = units[k].mult;
	if (!mult)
		return -1;
	if (too_big || whole > DAY_NS / mult)
		return -2;
	unit_ns = mult;

	/* The fraction as NUM / 10^nfrac, trailing zeros dropped. */
	while (nfrac && frac[nfrac - 1] == '0')
		nfrac--;
	if (nfrac > 18)
		return -1;	/* finer than any unit can express */
	for (k = 0; k < nfrac; k++) {
		num = num * 10 + (uint64_t)(frac[k] - '0');
		den *= 10;
	}
	/* NUM * MULT / DEN must be a whole number of nanoseconds. */
	while (den > 1 && mult % 10 == 0) {
		mult /= 10;
		den /= 10;
	}
	if (num % den)
		return -1;
	num = num / den * mult;		/* < the unit's size: no overflow */
	whole *= unit_ns;
	if (whole + num > DAY_NS)
		return -2;
	*ns = whole + num;
	return 0;
}

int spec_parse_duration(const char *text, uint64_t *ns)
{
	uint64_t v;

	if (parse_duration(text, &v) != 0)
		return -1;
	*ns = v;
	return 0;
}

/* ---- grammars ---- */

static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* C is one of the characters of SET (never NUL). */
static bool in_set(char c, const char *set)
{
	return c && strchr(set, c);
}

/* [a-z][a-z0-9_]{0,31} */
static bool probe_name_ok(const char *s, size_t len)
{
	if (len < 1 || len > PROBE_NAME_MAX || !is_lower(s[0]))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!is_lower(s[i]) && !is_digit(s[i]) && s[i] != '_')
			return false;
	return true;
}

/* [a-z0-9][a-z0-9_.-]{0,63} */
static bool spec_name_ok(const char *s, size_t len)
{
	if (len < 1 || len > SPEC_NAME_MAX || !(is_lower(s[0]) || is_digit(s[0])))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!is_lower(s[i]) && !is_digit(s[i]) && !in_set(s[i], "_.-"))
			return false;
	return true;
}

/* [A-Za-z_][A-Za-z0-9_.$]{0,255} */
static bool function_ok(const char *s, size_t len)
{
	if (len < 1 || len > FUNCTION_MAX || !(is_lower(s[0]) || is_upper(s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!is_lower(s[i]) && !is_upper(s[i]) && !is_digit(s[i]) && !in_set(s[i], "_.$"))
			return false;
	return true;
}

/* A C++ name without parameters: two or more [A-Za-z_][A-Za-z0-9_]*
 * joined by "::" (v8::internal::Heap::CollectGarbage), at most 256 bytes. */
static bool cxx_function_ok(const char *s, size_t len)
{
	size_t pieces = 0;

	if (len < 1 || len > FUNCTION_MAX)
		return false;
	for (size_t i = 0; i < len;) {
		if (!(is_lower(s[i]) || is_upper(s[i]) || s[i] == '_'))
			return false;
		while (i < len && (is_lower(s[i]) || is_upper(s[i]) || is_digit(s[i]) || s[i] == '_'))
			i++;
		pieces++;
		if (i == len)
			break;
		if (len - i < 3 || s[i] != ':' || s[i + 1] != ':')
			return false;
		i += 2;
	}
	return pieces >= 2;
}

/* [a-z0-9_]{1,64}: checked before a name is looked up or shown. */
static bool syscall_name_ok(const char *s, size_t len)
{
	if (len < 1 || len > SYSCALL_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_lower(s[i]) && !is_digit(s[i]) && s[i] != '_')
			return false;
	return true;
}

/* "main" or [A-Za-z0-9_.+*?[\]-]{1,128} (which has no '/') */
static bool object_ok(const char *s, size_t len)
{
	if (len < 1 || len > OBJECT_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_lower(s[i]) && !is_upper(s[i]) && !is_digit(s[i]) &&
		    !in_set(s[i], "_.+*?[]-"))
			return false;
	return true;
}

/* ---- count probe points ---- */

static const char *const software_events[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", NULL,
};

/* [a-z0-9_]{1,64} (LOWER) or [A-Za-z0-9_]{1,64} */
static bool point_word_ok(const char *s, size_t len, bool lower)
{
	if (len < 1 || len > POINT_WORD_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_lower(s[i]) && !is_digit(s[i]) && s[i] != '_' && (lower || !is_upper(s[i])))
			return false;
	return true;
}

/* "main", or a plain absolute path: "/" then [A-Za-z0-9/._+-]. */
static bool point_object_ok(const char *s, size_t len)
{
	if (len == 4 && memcmp(s, "main", 4) == 0)
		return true;
	if (len < 2 || s[0] != '/')
		return false;
	for (size_t i = 1; i < len; i++)
		if (!is_lower(s[i]) && !is_upper(s[i]) && !is_digit(s[i]) && !in_set(s[i], "/._+-"))
			return false;
	return true;
}

/* Digits, no leading zero, from 1 to MAX. */
static bool point_number_ok(const char *s, size_t len, uint64_t max)
{
	uint64_t v = 0;

	if (len < 1 || len > 10 || s[0] == '0')
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	return v >= 1 && v <= max;
}

static const char *show(char *buf, const char *s, size_t len);

int spec_parse_point(const char *text, point_type *type, char *why, size_t size)
{
	static const struct { const char *name; point_type type; size_t fields; } forms[] = {
		{ "tracepoint", POINT_TRACEPOINT, 3 }, { "uprobe", POINT_UPROBE, 3 },
		{ "uretprobe", POINT_URETPROBE, 3 }, { "usdt", POINT_USDT, 4 },
		{ "kprobe", POINT_KPROBE, 2 }, { "kretprobe", POINT_KRETPROBE, 2 },
		{ "software", POINT_SOFTWARE, 3 }, { "profile", POINT_PROFILE, 3 },
		{ "interval", POINT_INTERVAL, 3 },
	};
	const char *f[5];
	size_t fl[5], n = 0, len = strlen(text), k;
	char buf[SHOW_BUF];
	const char *p = text;

	if (len == 0) {
		snprintf(why, size, "it is empty");
		return -1;
	}
	if (len > POINT_MAX) {
		snprintf(why, size, "it is longer than %d bytes", POINT_MAX);
		return -1;
	}
	for (;;) {
		const char *c = strchr(p, ':');
		if (n == 5) {
			snprintf(why, size, "it has too many ':'-separated parts");
			return -1;
		}
		f[n] = p;
		fl[n++] = c ? (size_t)(c - p) : strlen(p);
		if (!c)
			break;
		p = c + 1;
	}
	for (k = 0; k < sizeof forms / sizeof *forms; k++)
		if (strlen(forms[k].name) == fl[0] && memcmp(forms[k].name, f[0], fl[0]) == 0)
			break;
	if (k == sizeof forms / sizeof *forms) {
		snprintf(why, size, "unknown probe type '%s'", show(buf, f[0], fl[0]));
		return -1;
	}
	if (n != forms[k].fields) {
		static const char *const shapes[] = {
			"tracepoint:CATEGORY:NAME", "uprobe:OBJECT:SYMBOL", "uretprobe:OBJECT:SYMBOL",
			"usdt:OBJECT:PROVIDER:NAME", "kprobe:SYMBOL", "kretprobe:SYMBOL",
			"software:EVENT:PERIOD", "profile:hz:N", "interval:s:N or interval:ms:N",
		};
		snprintf(why, size, "a %s probe point is written %s", forms[k].name,
			 shapes[forms[k].type]);
		return -1;
	}
	switch (forms[k].type) {
	case POINT_TRACEPOINT:
		for (size_t i = 1; i < 3; i++)
			if (!point_word_ok(f[i], fl[i], true)) {
				snprintf(why, size, "tracepoint %s '%s' is not 1-64 of a-z 0-9 _",
					 i == 1 ? "category" : "name", show(buf, f[i], fl[i]));
				return -1;
			}
		break;
	case POINT_UPROBE:
	case POINT_URETPROBE:
	case POINT_USDT:
		if (!point_object_ok(f[1], fl[1])) {
			snprintf(why, size, "object '%s' is neither 'main' nor a plain absolute "
				 "path (/ then letters, digits, / . _ + -)", show(buf, f[1], fl[1]));
			return -1;
		}
		if (forms[k].type == POINT_USDT) {
			for (size_t i = 2; i < 4; i++)
				if (!point_word_ok(f[i], fl[i], false)) {
					snprintf(why, size, "usdt %s '%s' is not 1-64 of A-Z a-z 0-9 _",
						 i == 2 ? "provider" : "name", show(buf, f[i], fl[i]));
					return -1;
				}
		} else if (!function_ok(f[2], fl[2])) {
			snprintf(why, size, "symbol '%s' is not a function name", show(buf, f[2], fl[2]));
			return -1;
		}
		break;
	case POINT_KPROBE:
	case POINT_KRETPROBE:
		if (!function_ok(f[1], fl[1])) {
			snprintf(why, size, "symbol '%s' is not a function name", show(buf, f[1], fl[1]));
			return -1;
		}
		break;
	case POINT_SOFTWARE: {
		size_t e;
		for (e = 0; software_events[e]; e++)
			if (strlen(software_events[e]) == fl[1] &&
			    memcmp(software_events[e], f[1], fl[1]) == 0)
				break;
		if (!software_events[e]) {
			snprintf(why, size, "unknown software event '%s' (cpu-clock, task-clock, "
				 "page-faults, context-switches, cpu-migrations, minor-faults, "
				 "major-faults, alignment-faults, emulation-faults, dummy, bpf-output)",
				 show(buf, f[1], fl[1]));
			return -1;
		}
		if (!point_number_ok(f[2], fl[2], 1000000000)) {
			snprintf(why, size, "period '%s' is not a whole number from 1 to 1000000000",
				 show(buf, f[2], fl[2]));
			return -1;
		}
		break;
	}
	case POINT_PROFILE:
		if (fl[1] != 2 || memcmp(f[1], "hz", 2) != 0) {
			snprintf(why, size, "profile takes 'hz', not '%s'", show(buf, f[1], fl[1]));
			return -1;
		}
		if (!point_number_ok(f[2], fl[2], 10000)) {
			snprintf(why, size, "frequency '%s' is not a whole number from 1 to 10000",
				 show(buf, f[2], fl[2]));
			return -1;
		}
		break;
	case POINT_INTERVAL: {
		bool ms = fl[1] == 2 && memcmp(f[1], "ms", 2) == 0;
		if (!ms && !(fl[1] == 1 && f[1][0] == 's')) {
			snprintf(why, size, "interval takes 's' or 'ms', not '%s'",
				 show(buf, f[1], fl[1]));
			return -1;
		}
		if (!point_number_ok(f[2], fl[2], ms ? 86400000 : 86400)) {
			snprintf(why, size, "period '%s' is not a whole number from 1 to %s",
				 show(buf, f[2], fl[2]), ms ? "86400000 (a day)" : "86400 (a day)");
			return -1;
		}
		break;
	}
	}
	*type = forms[k].type;
	return 0;
}

/* ---- the loader's diagnostics ---- */

typedef struct loader {
	const diag_src *src;
	unsigned errors;	/* shown */
	unsigned dropped;	/* past SPEC_MAX_ERRORS */
	bool muted;		/* the last error was dropped: so are its notes */
} loader;

static void vreport(loader *ld, diag_level level, diag_loc loc, const char *hint,
		    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void vreport(loader *ld, diag_level level, diag_loc loc, const char *hint,
		    const char *fmt, va_list ap)
{
	char msg[1024];

	if (level == DIAG_ERROR) {
		ld->muted = ld->errors >= SPEC_MAX_ERRORS;
		if (ld->muted) {
			ld->dropped++;
			return;
		}
		ld->errors++;
	} else if (ld->muted) {
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	diag_at(level, ld->src, loc, hint, "%s", msg);
}

static void report(loader *ld, diag_level level, diag_loc loc, const char *hint,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void report(loader *ld, diag_level level, diag_loc loc, const char *hint,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(ld, level, loc, hint, fmt, ap);
	va_end(ap);
}

/* The byte offset of a libyaml mark: LINE counts libyaml's line breaks
 * (LF, CR, CRLF, NEL, LS, PS) and COLUMN counts characters. */
static size_t mark_offset(const diag_src *src, yaml_mark_t m)
{
	const char *t = src->text;
	size_t n = src->len, i = 0, line = 0, col;

	while (line < m.line && i < n) {
		size_t k = diag_char_len(t + i, n - i);
		if (t[i] == '\r' && i + 1 < n && t[i + 1] == '\n')
			k = 2;
		if (t[i] == '\n' || t[i] == '\r' ||
		    (k == 2 && (unsigned char)t[i] == 0xc2 && (unsigned char)t[i + 1] == 0x85) ||
		    (k == 3 && memcmp(t + i, "\xe2\x80\xa8", 3) == 0) ||
		    (k == 3 && memcmp(t + i, "\xe2\x80\xa9", 3) == 0))
			line++;
		i += k;
	}
	for (col = 0; col < m.column && i < n; col++)
		i += diag_char_len(t + i, n - i);
	return i;
}

static diag_loc marks_loc(const loader *ld, yaml_mark_t start, yaml_mark_t end)
{
	/* Past the error limit nothing more is shown: finding the column
	 * (a scan from the start of the text) would only cost time. */
	if (ld->errors >= SPEC_MAX_ERRORS)
		return (diag_loc){ 0, 0, 0, NULL };
	return diag_loc_of(ld->src, mark_offset(ld->src, start), mark_offset(ld->src, end));
}

/* Writes S (LEN bytes) into BUF for quoting in a message: printable ASCII
 * kept, any other character shown as '?', cut with "..." to fit. */
static const char *show(char *buf, const char *s, size_t len)
{
	size_t o = 0, i = 0;

	while (i < len && o < SHOW_BUF - 4) {
		size_t k = diag_char_len(s + i, len - i);
		buf[o++] = k == 1 && s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
		i += k;
	}
	if (i < len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/* ---- pass 1: YAML events to a tree ---- */

typedef enum { NODE_SCALAR, NODE_SEQ, NODE_MAP, NODE_BAD } node_type;

/* NODE_BAD stands for an alias, already reported.  A collection nested
 * deeper than SPEC_DEPTH is kept without its contents: the format expects
 * a plain value there, so checking its type reports it. */
typedef struct node {
	node_type type;
	yaml_mark_t start, end;
	char *value;		/* scalar: NUL-terminated (may hold NULs) */
	size_t len;
	bool plain;		/* scalar written without quotes */
	const diag_src *src;	/* where start/end point; NULL: the spec */
	struct node **kids;	/* sequence items; mapping key, value, key, ... */
	size_t n_kids, cap;
} node;

static void node_free(node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_kids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->value);
	free(n);
}

typedef struct builder {
	loader *ld;
	node *root;
	node *open[SPEC_DEPTH];	/* collections being filled */
	int depth;
	int skip;		/* open collections inside a contents-less one */
	node *skipped;		/* the contents-less collection */
	int docs;
	bool stop;		/* read no further */
	bool broken;		/* the tree is incomplete: do not validate it */
} builder;

static void out_of_memory(builder *b)
{
	if (!b->broken)
		report(b->ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL }, NULL,
		       "out of memory while reading the spec");
	b->broken = b->stop = true;
}

/* Adds N to the open collection (or makes it the root); takes N. */
static bool attach(builder *b, node *n)
{
	node *parent;

	if (!n) {
		out_of_memory(b);
		return false;
	}
	if (b->depth == 0) {
		if (b->root)
			node_free(b->root);
		b->root = n;
		return true;
	}
	parent = b->open[b->depth - 1];
	if (parent->n_kids == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		node **kids = realloc(parent->kids, cap * sizeof(*kids));
		if (!kids) {
			node_free(n);
			out_of_memory(b);
			return false;
		}
		parent->kids = kids;
		parent->cap = cap;
	}
	parent->kids[parent->n_kids++] = n;
	return true;
}

static node *node_new(node_type type, const yaml_event_t *ev)
{
	node *n = calloc(1, sizeof(*n));

	if (n) {
		n->type = type;
		n->start = ev->start_mark;
		n->end = ev->end_mark;
	}
	return n;
}

static const char *const no_refs_hint =
	"remove the anchor and write values out in full; specs reject anchors and "
	"aliases so that a small file cannot expand into a huge one";

/* Reports an anchor and a tag found on a node; both are written before
 * the node, from START on, in either order. */
static void reject_properties(builder *b, yaml_mark_t start, const char *anchor,
			      const char *tag)
{
	const diag_src *src = b->ld->src;
	const char *t = src->text;
	size_t off = mark_offset(src, start), end;
	char buf[SHOW_BUF];

	for (int w = 0; w < 2 && (anchor || tag) && off < src->len; w++) {
		end = off + 1;
		if (t[off] == '&' && anchor) {
			while (end < src->len && (is_lower(t[end]) || is_upper(t[end]) ||
						  is_digit(t[end]) || t[end] == '-' || t[end] == '_'))
				end++;
			report(b->ld, DIAG_ERROR, diag_loc_of(src, off, end), no_refs_hint,
			       "anchors are not allowed in specs ('&%s')",
			       show(buf, anchor, strlen(anchor)));
			anchor = NULL;
		} else if (t[off] == '!' && tag) {
			while (end < src->len && !strchr(" \t\r\n,[]{}", t[end]))
				end++;
			report(b->ld, DIAG_ERROR, diag_loc_of(src, off, end),
			       "remove the tag; quote the value if it must be read as text",
			       "tags are not allowed in specs ('%s')", show(buf, t + off, end - off));
			tag = NULL;
		} else {
			break;
		}
		off = end;
		while (off < src->len && strchr(" \t\r\n", t[off]))
			off++;
	}
	/* Not found where expected (should not happen): point at the node. */
	if (anchor)
		report(b->ld, DIAG_ERROR, marks_loc(b->ld, start, start), no_refs_hint,
		       "anchors are not allowed in specs ('&%s')", show(buf, anchor, strlen(anchor)));
	if (tag)
		report(b->ld, DIAG_ERROR, marks_loc(b->ld, start, start),
		       "remove the tag; quote the value if it must be read as text",
		       "tags are not allowed in specs ('%s')", show(buf, tag, strlen(tag)));
}

static void open_collection(builder *b, const yaml_event_t *ev, node_type type,
			    const char *anchor, const char *tag)
{
	node *n;

	if (anchor || tag)
		reject_properties(b, ev->start_mark, anchor, tag);
	if (b->depth + b->skip >= YAML_MAX_DEPTH) {
		report(b->ld, DIAG_ERROR, marks_loc(b->ld, ev->start_mark, ev->start_mark),
		       "a spec is a mapping, holding a list of probes, each a mapping of "
		       "plain values; remove the extra brackets or indentation",
		       "the spec is nested too deeply (more than %d levels)", YAML_MAX_DEPTH);
		b->broken = b->stop = true;
		return;
	}
	if (b->skip) {
		b->skip++;
		return;
	}
	n = node_new(type, ev);
	if (!attach(b, n))
		return;
	if (b->depth == SPEC_DEPTH) {
		b->skip = 1;
		b->skipped = n;
	} else {
		b->open[b->depth++] = n;
	}
}

static void close_collection(builder *b, const yaml_event_t *ev)
{
	if (b->skip) {
		if (--b->skip == 0)
			b->skipped->end = ev->end_mark;
		return;
	}
	if (b->depth > 0)
		b->open[--b->depth]->end = ev->end_mark;
}

static void on_event(builder *b, const yaml_event_t *ev)
{
	node *n;
	char buf[SHOW_BUF];

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++) {
			report(b->ld, DIAG_ERROR, marks_loc(b->ld, ev->start_mark, ev->end_mark),
			       "keep one spec per file; remove this '---' line and what follows, "
			       "or move it into a file of its own",
			       "a spec file holds one YAML document; this is a second one");
			b->stop = true;
			return;
		}
		if (ev->data.document_start.version_directive ||
		    ev->data.document_start.tag_directives.start !=
		    ev->data.document_start.tag_directives.end)
			report(b->ld, DIAG_ERROR, marks_loc(b->ld, ev->start_mark, ev->start_mark),
			       "remove the lines starting with '%'",
			       "YAML directives are not allowed in specs");
		break;
	case YAML_ALIAS_EVENT:
		report(b->ld, DIAG_ERROR, marks_loc(b->ld, ev->start_mark, ev->end_mark),
		       "write the value out in full, or quote it if it is text starting with "
		       "'*'; specs reject aliases so that a small file cannot expand into a "
		       "huge one",
		       "aliases are not allowed in specs ('*%s')",
		       show(buf, (const char *)ev->data.alias.anchor,
			    strlen((const char *)ev->data.alias.anchor)));
		if (!b->skip)
			attach(b, node_new(NODE_BAD, ev));
		break;
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.anchor || ev->data.scalar.tag)
			reject_properties(b, ev->start_mark, (const char *)ev->data.scalar.anchor,
					  (const char *)ev->data.scalar.tag);
		if (b->skip)
			break;
		n = node_new(NODE_SCALAR, ev);
		if (n) {
			n->len = ev->data.scalar.length;
			n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			n->value = malloc(n->len + 1);
			if (!n->value) {
				free(n);
				n = NULL;
			} else {
				memcpy(n->value, ev->data.scalar.value, n->len);
				n->value[n->len] = '\0';
			}
		}
		attach(b, n);
		break;
	case YAML_SEQUENCE_START_EVENT:
		open_collection(b, ev, NODE_SEQ, (const char *)ev->data.sequence_start.anchor,
				(const char *)ev->data.sequence_start.tag);
		break;
	case YAML_MAPPING_START_EVENT:
		open_collection(b, ev, NODE_MAP, (const char *)ev->data.mapping_start.anchor,
				(const char *)ev->data.mapping_start.tag);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		close_collection(b, ev);
		break;
	default:
		break;
	}
}

/* A hint for libyaml's common complaints. */
static const char *syntax_hint(const loader *ld, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "";
	size_t off = mark_offset(ld->src, p->problem_mark);
	char c = off < ld->src->len ? ld->src->text[off] : '\0';

	if (strstr(problem, "tab"))
		return "YAML does not allow tabs for indentation; indent with spaces";
	if (strstr(problem, "cannot start any token")) {
		if (c == '\t')
			return "YAML does not allow tabs for indentation; indent with spaces";
		return "quote the value: characters such as @ ` % | > cannot start a plain value";
	}
	if (strstr(problem, "mapping values are not allowed"))
		return "quote a value that contains ': ', or check the indentation of the key";
	if (strstr(problem, "could not find expected ':'"))
		return "a key lacks its ':', or a value spanning lines needs quotes";
	if (p->context && (strstr(p->context, "alias") || strstr(p->context, "anchor")))
		return "quote a value that starts with '*' or '&', e.g. object: \"*.so\"";
	if (strstr(problem, "expected ',' or"))
		return "inside [...] or {...}, quote values that hold brackets, braces or "
		       "commas, and close every bracket";
	if (strstr(problem, "did not find expected"))
		return "check the indentation: the keys of one mapping, and the items of one "
		       "list, must line up";
	if (strstr(problem, "end of stream"))
		return "a quote or bracket is not closed";
	return "see docs/spec.md for the format; quote values with special characters";
}

static void report_yaml_error(loader *ld, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "unknown problem";
	size_t off;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		report(ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL }, NULL,
		       "out of memory while reading the spec");
		return;
	case YAML_READER_ERROR:
		off = p->problem_offset;
		if (strstr(problem, "control character")) {
			report(ld, DIAG_ERROR, diag_loc_of(ld->src, off, off + 1),
			       "remove it: specs are plain text (tabs and line breaks are fine)",
			       "control character U+%04X is not allowed in a spec",
			       (unsigned)p->problem_value);
		} else if (strstr(problem, "UTF-8") || strstr(problem, "Unicode")) {
			/* libyaml points at the byte after a bad sequence's start
			 * at times: find the first byte that is not UTF-8. */
			const char *t = ld->src->text;
			for (size_t i = 0; i < ld->src->len; i += diag_char_len(t + i, ld->src->len - i)) {
				if ((unsigned char)t[i] >= 0x80 &&
				    diag_char_len(t + i, ld->src->len - i) == 1) {
					off = i;
					break;
				}
			}
			report(ld, DIAG_ERROR, diag_loc_of(ld->src, off, off + 1),
			       "specs must be UTF-8 text; convert the file (e.g. iconv -t UTF-8) "
			       "or remove the byte",
			       "invalid UTF-8 in the spec (byte 0x%02X)",
			       off < ld->src->len ? (unsigned char)ld->src->text[off] : 0);
		} else {
			report(ld, DIAG_ERROR, diag_loc_of(ld->src, off, off + 1), NULL,
			       "cannot read the spec: %s", problem);
		}
		return;
	default:
		report(ld, DIAG_ERROR, marks_loc(ld, p->problem_mark, p->problem_mark),
		       syntax_hint(ld, p), "invalid YAML: %s", problem);
		if (p->context && p->context_mark.line != p->problem_mark.line)
			report(ld, DIAG_NOTE, marks_loc(ld, p->context_mark, p->context_mark), NULL,
			       "%s that starts here", p->context);
		return;
	}
}

/* Reads TEXT into a tree.  Returns the root (NULL when the text holds no
 * document) and sets *BROKEN when the tree must not be validated. */
static node *build_tree(loader *ld, bool *broken)
{
	builder b = { .ld = ld };
	yaml_parser_t p;
	yaml_event_t ev;

	if (!yaml_parser_initialize(&p)) {
		out_of_memory(&b);
		*broken = true;
		return NULL;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)ld->src->text, ld->src->len);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	while (!b.stop) {
		bool end;
		if (!yaml_parser_parse(&p, &ev)) {
			report_yaml_error(ld, &p);
			b.broken = true;
			break;
		}
		on_event(&b, &ev);
		end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (end)
			break;
	}
	yaml_parser_delete(&p);
	*broken = b.broken;
	return b.root;
}

/* ---- pass 2: the tree against the format ---- */

enum {
	TOP_NAME, TOP_DESCRIPTION, TOP_OBJECTS, TOP_DURATION, TOP_PROBES, TOP_CHECKS,
	TOP_PARAMETERS, TOP_TIMING, N_TOP,
};
static const char *const top_keys[] = {
	"name", "description", "objects", "duration", "probes", "checks", "parameters",
	"timing", NULL,
};
static const char *const top_examples[] = {
	"name: libuv-phases", "description: Time in each libuv loop phase",
	"objects: [main, \"libuv.so*\"]", "duration: 10s", "probes: [...]",
	"checks: [\"timers.p99 > 100ms\"]", "parameters: {threshold: 1ms}",
	"timing: entry-only",
};

enum {
	P_NAME, P_KIND, P_FUNCTION, P_OBJECT, P_OPTIONAL, P_MISSING_REASON, P_SYSCALLS,
	P_PROBE, P_THRESHOLD, P_LIMIT, P_UNIT, P_PER_THREAD, P_DESCRIPTION, P_ARGS, P_DERIVED,
	N_PROBE,
};
static const char *const probe_keys[] = {
	"name", "kind", "function", "object", "optional", "missing_reason", "syscalls",
	"probe", "threshold", "limit", "unit", "per_thread", "description", "args", "derived", NULL,
};
static const char *const probe_examples[] = {
	"name: timers", "kind: latency", "function: uv__run_timers", "object: \"libuv.so*\"",
	"optional: true", "missing_reason: inlined by the compiler", "syscalls: [openat, read]",
	"probe: \"tracepoint:sched:sched_switch\"", "threshold: 1ms", "limit: 1000", "unit: ms", "per_thread: false",
	"description: Time spent running timers",
	"args: [{name: line, value: retval, type: string}]",
	"derived: libuv-pending",
};

/* The kinds each probe key applies to. */
#define K_LATENCY (1u << PROBE_LATENCY)
#define K_SYSCALLS (1u << PROBE_SYSCALLS)
#define K_EVENTS (1u << PROBE_EVENTS)
#define K_COUNT (1u << PROBE_COUNT)
#define K_UTIL (1u << PROBE_UTILIZATION)
#define K_ALL (K_LATENCY | K_SYSCALLS | K_EVENTS | K_COUNT)
static const unsigned probe_key_kinds[] = {
	K_ALL | K_UTIL, K_ALL | K_UTIL, K_LATENCY, K_LATENCY, K_LATENCY, K_LATENCY,
	K_SYSCALLS | K_EVENTS, K_COUNT | K_EVENTS, K_EVENTS, K_EVENTS,
	K_LATENCY | K_SYSCALLS | K_EVENTS | K_UTIL, K_ALL, K_ALL | K_UTIL,
	K_EVENTS, K_LATENCY,
};

/* The forms a count probe's 'probe' may take, for hints. */
#define POINT_FORMS "a probe point is one of tracepoint:CATEGORY:NAME, uprobe:OBJECT:SYMBOL, " \
	"uretprobe:OBJECT:SYMBOL, usdt:OBJECT:PROVIDER:NAME, kprobe:SYMBOL, kretprobe:SYMBOL, " \
	"software:EVENT:PERIOD, profile:hz:N, interval:s:N, interval:ms:N (OBJECT: main or an " \
	"absolute path); see docs/spec.md#count-probes"

static diag_loc node_loc(const loader *ld, const node *n)
{
	if (!n->src)
		return marks_loc(ld, n->start, n->end);
	if (ld->errors >= SPEC_MAX_ERRORS)
		return (diag_loc){ 0, 0, 0, NULL };
	return diag_loc_of(n->src, mark_offset(n->src, n->start), mark_offset(n->src, n->end));
}

/* Where a mapping starts, for "has no 'x'": its first key. */
static diag_loc map_loc(const loader *ld, const node *map)
{
	return node_loc(ld, map->n_kids ? map->kids[0] : map);
}

/* N is a scalar holding exactly WORD. */
static bool node_is(const node *n, const char *word)
{
	return n->type == NODE_SCALAR && n->len == strlen(word) &&
	       memcmp(n->value, word, n->len) == 0;
}

static bool is_null(const node *n)
{
	return n->type == NODE_SCALAR && n->plain &&
	       (n->len == 0 || node_is(n, "~") || node_is(n, "null") || node_is(n, "Null") ||
		node_is(n, "NULL"));
}

static const char *type_name(const node *n)
{
	switch (n->type) {
	case NODE_SEQ:
		return "a list";
	case NODE_MAP:
		return "a mapping";
	default:
		return is_null(n) ? "nothing" : "a single value";
	}
}


/* Writes "did you mean 'X'? valid WHAT are: A, B, C" into HINT. */
static const char *choices_hint(char *hint, size_t size, const char *word,
				const char *what, const char *const *words)
{
	size_t best = 3, o = 0;
	const char *guess = NULL;

	for (size_t i = 0; words[i]; i++) {
		size_t d = suggest_distance_str(word, words[i]);
		if (d < best) {
			best = d;
			guess = words[i];
		}
	}
	if (guess)
		o += (size_t)snprintf(hint, size, "did you mean '%s'? ", guess);
	o += (size_t)snprintf(hint + o, size - o, "valid %s are: ", what);
	for (size_t i = 0; words[i] && o < size; i++)
		o += (size_t)snprintf(hint + o, size - o, "%s%s", i ? ", " : "", words[i]);
	return hint;
}

/* Checks one key of a mapping: a plain word, known, not seen before.
 * Returns its index in KEYS, or -1 after reporting it.  WHERE is
 * "at the top level" or "in probe 'x'". */
static int check_key(loader *ld, const node *k, const char *const *keys, const node **seen,
		     const char *where)
{
	char buf[SHOW_BUF], hint[256];
	int i;

	if (k->type == NODE_BAD)
		return -1;
	if (k->type != NODE_SCALAR) {
		report(ld, DIAG_ERROR, node_loc(ld, k), "keys are plain words such as 'name'",
		       "a key %s must be a word, not %s", where, type_name(k));
		return -1;
	}
	if (is_null(k)) {
		report(ld, DIAG_ERROR, node_loc(ld, k), "write 'key: value'",
		       "a key %s is missing before the ':'", where);
		return -1;
	}
	for (i = 0; keys[i]; i++)
		if (strlen(keys[i]) == k->len && memcmp(keys[i], k->value, k->len) == 0)
			break;
	if (!keys[i]) {
		report(ld, DIAG_ERROR, node_loc(ld, k),
		       choices_hint(hint, sizeof(hint), k->value, "keys", keys),
		       "unknown key '%s' %s", show(buf, k->value, k->len), where);
		return -1;
	}
	if (seen[i]) {
		report(ld, DIAG_ERROR, node_loc(ld, k),
		       "a key may appear once in a mapping; remove one of them",
		       "duplicate key '%s' %s", keys[i], where);
		report(ld, DIAG_NOTE, node_loc(ld, seen[i]), NULL,
		       "'%s' was first given here", keys[i]);
		return -1;
	}
	seen[i] = k;
	return i;
}

/* Checks that value V of key K is a non-empty plain value.  WHAT names the
 * key ("'function' in probe 'x'"), EXAMPLE shows it used.  Returns false
 * after reporting (or when V is an alias, already reported). */
static bool want_scalar(loader *ld, const node *k, const node *v, const char *what,
			const char *example, bool required)
{
	char hint[256];

	if (v->type == NODE_BAD)
		return false;
	if (is_null(v)) {
		snprintf(hint, sizeof(hint), "give it a value, as in '%s'%s", example,
			 required ? "" : ", or remove the line");
		report(ld, DIAG_ERROR, node_loc(ld, k), hint, "%s has no value", what);
		return false;
	}
	if (v->type != NODE_SCALAR) {
		snprintf(hint, sizeof(hint), "write a single value on the key's line, as in '%s'",
			 example);
		report(ld, DIAG_ERROR, node_loc(ld, v), hint, "%s must be a single value, not %s",
		       what, type_name(v));
		return false;
	}
	return true;
}

static char *dup_value(const node *v)
{
	char *s = malloc(v->len + 1);

	if (s)
		memcpy(s, v->value, v->len + 1);
	return s;
}

/* Reports a missing allocation; returns false. */
static bool no_memory(loader *ld)
{
	report(ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL }, NULL, "out of memory");
	return false;
}

/* Free text: at most MAX bytes, one line, no control or invisible
 * characters.  Trailing line breaks (from block scalars) are dropped. */
static bool check_prose(loader *ld, const node *k, const node *v, const char *what,
		       const char *example, size_t max, char **out)
{
	size_t len, i;

	if (!want_scalar(ld, k, v, what, example, false))
		return false;
	for (len = v->len; len && v->value[len - 1] == '\n'; len--)
		;
	if (len > max) {
		char hint[128];
		snprintf(hint, sizeof(hint), "shorten it to at most %zu bytes", max);
		report(ld, DIAG_ERROR, node_loc(ld, v), hint, "%s is too long (%zu bytes)", what,
		       len);
		return false;
	}
	for (i = 0; i < len;) {
		size_t n = diag_char_len(v->value + i, len - i);
		const unsigned char *u = (const unsigned char *)v->value + i;
		uint32_t cp = u[0];

		if (n == 2)
			cp = (uint32_t)(u[0] & 0x1f) << 6 | (u[1] & 0x3f);
		else if (n == 3)
			cp = (uint32_t)(u[0] & 0x0f) << 12 | (uint32_t)(u[1] & 0x3f) << 6 | (u[2] & 0x3f);
		else if (n == 4)
			cp = 0x10000;	/* beyond anything rejected below */
		else if (u[0] >= 0x80)
			cp = 0x7f;	/* not UTF-8 */
		if (cp == '\n') {
			report(ld, DIAG_ERROR, node_loc(ld, v),
			       "join the lines, or write it as a folded block ('>-') so that YAML "
			       "joins them",
			       "%s must be one line of text", what);
			return false;
		}
		/* C0 and C1 controls, DEL, invisible and direction marks, line
		 * separators, BOM; a byte that is not UTF-8 (it cannot pass
		 * libyaml) counts as a control too. */
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x200b && cp <= 0x200f) ||
		    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
		    cp == 0xfeff) {
			report(ld, DIAG_ERROR, node_loc(ld, v),
			       cp == '\t' ? "replace the tab with spaces"
					  : "remove it: this text is plain, printable characters",
			       "%s contains a control or invisible character (U+%04X)", what,
			       (unsigned)cp);
			return false;
		}
		i += n;
	}
	*out = malloc(len + 1);
	if (!*out)
		return no_memory(ld);
	memcpy(*out, v->value, len);
	(*out)[len] = '\0';
	return true;
}

static bool check_bool(loader *ld, const node *k, const node *v, const char *what,
		       const char *example, bool *out)
{
	char buf[SHOW_BUF];

	if (!want_scalar(ld, k, v, what, example, false))
		return false;
	if (node_is(v, "true") || node_is(v, "false")) {
		if (!v->plain) {
			report(ld, DIAG_ERROR, node_loc(ld, v),
			       "remove the quotes: booleans are written true or false",
			       "%s must be true or false, not the quoted string \"%s\"", what,
			       show(buf, v->value, v->len));
			return false;
		}
		*out = v->value[0] == 't';
		return true;
	}
	report(ld, DIAG_ERROR, node_loc(ld, v),
	       "write true or false (lowercase, no quotes); yes, no, on, off and 1 are not "
	       "accepted",
	       "%s must be true or false, not '%s'", what, show(buf, v->value, v->len));
	return false;
}

static bool check_object(loader *ld, const node *v, const char *what, char **out)
{
	char buf[SHOW_BUF];
	const char *hint =
		"an object is 'main' (the executable) or a file-name glob made of letters, "
		"digits and _ . + - * ? [ ], such as 'libuv.so*'";

	if (object_ok(v->value, v->len)) {
		*out = dup_value(v);
		return *out ? true : no_memory(ld);
	}
	if (memchr(v->value, '/', v->len))
		hint = "objects match file names without their directory; write e.g. 'libuv.so*'";
	else if (v->len > OBJECT_MAX)
		hint = "object names are at most 128 characters";
	report(ld, DIAG_ERROR, node_loc(ld, v), hint, "invalid object '%s'%s",
	       show(buf, v->value, v->len), what);
	return false;
}

/* How messages about one duration field read. */
typedef struct duration_field {
	const char *name;	/* "duration" */
	const char *examples;	/* "500ms, 10s or 1.5m" */
	const char *zero;	/* what 0 does: "trace until stopped" */
	const char *zero_is;	/* "means until stopped" */
} duration_field;

static const duration_field duration_top = {
	"duration", "500ms, 10s or 1.5m", "trace until stopped", "means until stopped",
};
static const duration_field duration_threshold = {
	"threshold", "100us, 1ms or 1.5s", "record every call", "records every call",
};

/* Checks the duration value V of key K (F says which field; WHAT names it
 * as want_scalar does; WHERE is "" or " in probe 'x'").  Returns true and
 * sets *NS, or false after reporting. */
static bool check_duration_value(loader *ld, const node *k, const node *v,
				 const duration_field *f, const char *what, const char *where,
				 const char *example, uint64_t *ns)
{
	char buf[SHOW_BUF], hint[256];
	int rc;

	if (!want_scalar(ld, k, v, what, example, false))
		return false;
	rc = memchr(v->value, '\0', v->len) ? -1 : parse_duration(v->value, ns);
	if (rc == 0)
		return true;
	if (rc == -2) {
		snprintf(hint, sizeof(hint), "the longest %s is 24h; use 0 to %s", f->name, f->zero);
		report(ld, DIAG_ERROR, node_loc(ld, v), hint, "%s '%s'%s is longer than a day",
		       f->name, show(buf, v->value, v->len), where);
	} else if (v->value[0] == '-') {
		snprintf(hint, sizeof(hint), "a %s cannot be negative; use 0 to %s", f->name,
			 f->zero);
		report(ld, DIAG_ERROR, node_loc(ld, v), hint, "invalid %s '%s'%s", f->name,
		       show(buf, v->value, v->len), where);
	} else {
		snprintf(hint, sizeof(hint),
			 "write a number and a unit with no space, e.g. %s (units: ns, us, ms, s, "
			 "m, h); 0 %s", f->examples, f->zero_is);
		report(ld, DIAG_ERROR, node_loc(ld, v), hint, "invalid %s '%s'%s", f->name,
		       show(buf, v->value, v->len), where);
	}
	return false;
}

static void check_objects(loader *ld, spec *s, const node *k, const node *v)
{
	char what[32];

	if (v->type == NODE_BAD)
		return;
	if (v->type == NODE_SEQ && v->n_kids == 0) {
		report(ld, DIAG_ERROR, node_loc(ld, v),
		       "list at least one object, or remove the line to search only the "
		       "executable",
		       "'objects' is empty");
		return;
	}
	if (v->type != NODE_SEQ) {
		if (is_null(v))
			report(ld, DIAG_ERROR, node_loc(ld, k),
			       "list where to look for functions, as in 'objects: [main, "
			       "\"libuv.so*\"]', or remove the line",
			       "'objects' has no value");
		else
			report(ld, DIAG_ERROR, node_loc(ld, v),
			       "write a list, even of one object: 'objects: [main, \"libuv.so*\"]'",
			       "'objects' must be a list, not %s", type_name(v));
		return;
	}
	if (v->n_kids > SPEC_MAX_OBJECTS) {
		report(ld, DIAG_ERROR, node_loc(ld, v->kids[SPEC_MAX_OBJECTS]),
		       "a spec searches at most 32 objects; use globs such as 'libfoo*.so*'",
		       "too many objects (%zu)", v->n_kids);
		return;
	}
	s->objects = calloc(v->n_kids, sizeof(*s->objects));
	if (!s->objects) {
		no_memory(ld);
		return;
	}
	for (size_t i = 0; i < v->n_kids; i++) {
		const node *o = v->kids[i];
		char *obj = NULL;
		size_t j;

		snprintf(what, sizeof(what), "object %zu", i + 1);
		if (!want_scalar(ld, k, o, what, "objects: [main, \"libuv.so*\"]", true) ||
		    !check_object(ld, o, " in 'objects'", &obj))
			continue;
		for (j = 0; j < s->n_objects; j++)
			if (strcmp(s->objects[j], obj) == 0)
				break;
		if (j < s->n_objects) {
			report(ld, DIAG_ERROR, node_loc(ld, o), "remove one of them",
			       "object '%s' is listed twice", obj);
			free(obj);
			continue;
		}
		s->objects[s->n_objects++] = obj;
	}
}

/* The probe's name for messages: "probe 'timers'" when its mapping has a
 * valid name, else "probe N". */
static void probe_label(const node *map, size_t index, char *buf, size_t size)
{
	for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
		const node *k = map->kids[i], *v = map->kids[i + 1];
		if (node_is(k, "name") &&
		    v->type == NODE_SCALAR && probe_name_ok(v->value, v->len)) {
			snprintf(buf, size, "probe '%s'", v->value);
			return;
		}
	}
	snprintf(buf, size, "probe %zu", index + 1);
}

static void check_probe_name(loader *ld, spec *s, spec_probe *p, const node *v)
{
	char buf[SHOW_BUF];

	if (!probe_name_ok(v->value, v->len)) {
		report(ld, DIAG_ERROR, node_loc(ld, v),
		       "a probe name is 1-32 characters: a lowercase letter, then lowercase "
		       "letters, digits or '_' (it names bpftrace maps)",
		       "invalid probe name '%s'", show(buf, v->value, v->len));
		return;
	}
	for (size_t i = 0; i < s->n_probes; i++) {
		if (s->probes[i].name && strcmp(s->probes[i].name, v->value) == 0) {
			report(ld, DIAG_ERROR, node_loc(ld, v), "probe names must be unique; rename one",
			       "duplicate probe name '%s'", v->value);
			report(ld, DIAG_NOTE, s->probes[i].name_loc, NULL,
			       "probe '%s' was first defined here", v->value);
			return;
		}
	}
	p->name = dup_value(v);
	if (!p->name)
		no_memory(ld);
	p->name_loc = node_loc(ld, v);
}

/* The kind a probe's mapping names, when it names a valid one (the first
 * 'kind' key counts, as for any duplicate key); else -1. */
static int probe_kind_in(const node *map)
{
	for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
		if (!node_is(map->kids[i], "kind"))
			continue;
		for (int j = 0; kind_names[j]; j++)
			if (node_is(map->kids[i + 1], kind_names[j]))
				return j;
		return -1;
	}
	return -1;
}

static const char *kind_article(int kind)
{
	return kind == PROBE_EVENTS ? "an" : "a";
}

/* Reports key K (index KEY) of a probe of kind KIND, which it does not
 * apply to. */
static void report_misplaced_key(loader *ld, const node *k, int key, int kind,
				 const char *where)
{
	const char *name = probe_keys[key], *kname = kind_names[kind];
	char hint[256];

	if (key == P_PROBE)
		snprintf(hint, sizeof(hint),
			 "remove it: 'probe' is the probe point a count probe counts hits of; "
			 "to count hits, add a separate probe with 'kind: count'");
	else if (kind == PROBE_COUNT && key == P_FUNCTION)
		snprintf(hint, sizeof(hint),
			 "remove it: a count probe names its function in 'probe', as in "
			 "'probe: \"uprobe:main:FUNCTION\"'");
	else if (kind == PROBE_COUNT && key == P_SYSCALLS)
		snprintf(hint, sizeof(hint),
			 "remove it: a count probe names a syscall in 'probe', as in "
			 "'probe: \"tracepoint:syscalls:sys_enter_openat\"'");
	else if (kind == PROBE_COUNT)
		snprintf(hint, sizeof(hint),
			 "remove it: a count probe only counts the hits of its 'probe'; '%s' "
			 "does not apply to it", name);
	else if (key == P_FUNCTION)
		snprintf(hint, sizeof(hint),
			 "remove it: %s %s probe measures the syscalls in its 'syscalls' list; "
			 "to time a function, add a separate probe with 'kind: latency'",
			 kind_article(kind), kname);
	else if (key == P_SYSCALLS)
		snprintf(hint, sizeof(hint),
			 "remove it: a latency probe times its 'function'; to measure syscalls, "
			 "add a separate probe with 'kind: syscalls' or 'kind: events'");
	else if (key == P_THRESHOLD || key == P_LIMIT)
		snprintf(hint, sizeof(hint),
			 "remove it: '%s' belongs to events probes, %s; to record single slow "
			 "calls, add a separate probe with 'kind: events'",
			 name, key == P_THRESHOLD ? "which record each call at least that long"
						  : "where it caps the records kept");
	else
		snprintf(hint, sizeof(hint),
			 "remove it: '%s' is about a latency probe's function, and %s %s probe "
			 "has none",
			 name, kind_article(kind), kname);
	report(ld, DIAG_ERROR, node_loc(ld, k), hint, "'%s' %s does not apply to %s %s probe",
	       name, where, kind_article(kind), kname);
}

/* Where the syscall tables of this machine can be read. */
#define SYSCALL_LISTS "`ausyscall --dump` or `bpftrace -l 'tracepoint:syscalls:sys_enter_*'` " \
	"lists them"

/* The syscall closest to NAME (at most SYSCALL_GUESS_DISTANCE edits), or NULL. */
static const char *syscall_guess(const char *name)
{
	size_t best = SYSCALL_GUESS_DISTANCE + 1;
	const char *guess = NULL;

	for (size_t i = 0; i < systab_n_syscalls; i++) {
		size_t d = suggest_distance_str(name, systab_syscalls[i].name);
		if (d < best) {
			best = d;
			guess = systab_syscalls[i].name;
		}
	}
	return guess;
}

/* Checks item O of a 'syscalls' list in a probe of kind KIND (-1 when
 * not known).  Returns the syscall's number, or -1 after reporting. */
static int check_syscall_name(loader *ld, const node *o, int kind, const char *where)
{
	char buf[SHOW_BUF], hint[256], lower[SYSCALL_NAME_MAX + 1];
	const char *guess, *sys;
	int nr;

	if (!syscall_name_ok(o->value, o->len)) {
		const char *h = "a syscall name is lowercase letters, digits and '_', as in "
				"'openat' (at most 64 characters)";
		if (o->len <= SYSCALL_NAME_MAX && !memchr(o->value, '\0', o->len)) {
			for (size_t i = 0; i <= o->len; i++)
				lower[i] = is_upper(o->value[i]) ? (char)(o->value[i] - 'A' + 'a')
								 : o->value[i];
			if (systab_syscall_nr(lower) >= 0) {
				snprintf(hint, sizeof(hint),
					 "did you mean '%s'? syscall names are lowercase", lower);
				h = hint;
			}
		}
		report(ld, DIAG_ERROR, node_loc(ld, o), h, "invalid syscall name '%s' %s",
		       show(buf, o->value, o->len), where);
		return -1;
	}
	nr = systab_syscall_nr(o->value);
	if (nr >= 0)
		return nr;

	if (strcmp(o->value, "all") == 0) {
		if (kind == PROBE_EVENTS)
			snprintf(hint, sizeof(hint),
				 "events need named syscalls; list the ones to record, e.g. "
				 "'syscalls: [openat, connect]'");
		else
			snprintf(hint, sizeof(hint),
				 "to measure every syscall, write 'syscalls: all', with no brackets "
				 "or quotes");
	} else if ((sys = strstr(o->value, "sys_")) && systab_syscall_nr(sys + 4) >= 0) {
		snprintf(hint, sizeof(hint),
			 "did you mean '%s'? give the syscall's name without the '%.*s' prefix",
			 sys + 4, (int)(sys + 4 - o->value), o->value);
	} else if ((guess = syscall_guess(o->value))) {
		snprintf(hint, sizeof(hint), "did you mean '%s'? " SYSCALL_LISTS, guess);
	} else {
		snprintf(hint, sizeof(hint), "check the spelling; " SYSCALL_LISTS);
	}
	report(ld, DIAG_ERROR, node_loc(ld, o), hint, "unknown syscall '%s' on this architecture",
	       o->value);
	return -1;
}

/* Checks the value V of key K ('syscalls') of probe P, of kind KIND (-1
 * when not known): a list of syscall names, or (syscalls kind only) the
 * plain word all.  WHERE is "in probe 'x'". */
static void check_syscalls(loader *ld, spec_probe *p, int kind, const node *k, const node *v,
			   const char *where)
{
	size_t max = kind == PROBE_EVENTS ? EVENTS_MAX_SYSCALLS : SPEC_MAX_SYSCALLS;
	const node *first[SPEC_MAX_SYSCALLS];
	const char *example = kind == PROBE_EVENTS ? "syscalls: [openat, connect]"
						   : "syscalls: [openat, read]";
	char hint[256];

	if (v->type == NODE_BAD)
		return;
	if (is_null(v) || (v->type == NODE_SEQ && v->n_kids == 0)) {
		snprintf(hint, sizeof(hint), "list the syscalls to %s, as in '%s'%s",
			 kind == PROBE_EVENTS ? "record" : "measure", example,
			 kind == PROBE_EVENTS ? "" : ", or write 'syscalls: all'");
		report(ld, DIAG_ERROR, node_loc(ld, is_null(v) ? k : v), hint,
		       "'syscalls' %s %s", where, is_null(v) ? "has no value" : "is empty");
		return;
	}
	/* [all], as a list parameter set to "all" becomes, means all too; a
	 * --set value of one name (for a parameter whose default is all) is a
	 * list of that one. */
	if (v->type == NODE_SEQ && v->n_kids == 1 && v->kids[0]->plain && node_is(v->kids[0], "all"))
		v = v->kids[0];
	node *only[1] = { (node *)v };
	node one = { .type = NODE_SEQ, .n_kids = 1, .kids = only };
	if (v->type == NODE_SCALAR && v->src && !node_is(v, "all") && !is_null(v)) {
		one.start = v->start;
		one.end = v->end;
		one.src = v->src;
		v = &one;
	}
	if (v->type == NODE_SCALAR && v->plain && node_is(v, "all")) {
		if (kind == PROBE_EVENTS) {
			report(ld, DIAG_ERROR, node_loc(ld, v),
			       "list the syscalls to record, as in 'syscalls: [openat, connect]' "
			       "(at most 16); to measure every syscall, use a probe with "
			       "'kind: syscalls'",
			       "'syscalls: all' %s: events need named syscalls", where);
			return;
		}
		p->all_syscalls = true;
		p->syscalls_loc = node_loc(ld, v);
		return;
	}
	if (v->type != NODE_SEQ) {
		if (v->type == NODE_SCALAR && node_is(v, "all") && kind != PROBE_EVENTS)
			snprintf(hint, sizeof(hint),
				 "write all without quotes to measure every syscall, or a list as "
				 "in '%s'", example);
		else
			snprintf(hint, sizeof(hint), "write a list, even of one syscall, as in "
				 "'syscalls: [openat]'%s",
				 kind == PROBE_EVENTS ? "" : "; 'syscalls: all' measures every syscall");
		report(ld, DIAG_ERROR, node_loc(ld, v), hint, "'syscalls' %s must be a list, not %s",
		       where, type_name(v));
		return;
	}
	if (v->n_kids > max) {
		if (kind == PROBE_EVENTS)
			snprintf(hint, sizeof(hint),
				 "an events probe names at most %d syscalls; record the few whose "
				 "slow calls matter, and measure the rest with a syscalls probe",
				 EVENTS_MAX_SYSCALLS);
		else
			snprintf(hint, sizeof(hint),
				 "a probe names at most %d syscalls; write 'syscalls: all' to measure "
				 "every syscall", SPEC_MAX_SYSCALLS);
		report(ld, DIAG_ERROR, node_loc(ld, v->kids[max]), hint,
		       "too many syscalls (%zu) %s", v->n_kids, where);
		return;
	}
	p->syscalls = calloc(v->n_kids, sizeof(*p->syscalls));
	if (!p->syscalls) {
		no_memory(ld);
		return;
	}
	for (size_t i = 0; i < v->n_kids; i++) {
		const node *o = v->kids[i];
		size_t j;
		int nr;

		if (o->type == NODE_BAD)
			continue;
		if (is_null(o) || o->type != NODE_SCALAR) {
			snprintf(hint, sizeof(hint), "%s, as in '%s'",
				 is_null(o) ? "remove the empty item, or write a syscall name"
					    : "list syscall names separated by commas",
				 example);
			report(ld, DIAG_ERROR, node_loc(ld, o), hint, "syscall %zu %s %s", i + 1,
			       where, is_null(o) ? "is empty" : o->type == NODE_SEQ
							      ? "must be a name, not a list"
							      : "must be a name, not a mapping");
			continue;
		}
		nr = check_syscall_name(ld, o, kind, where);
		if (nr < 0)
			continue;
		for (j = 0; j < p->n_syscalls; j++)
			if (p->syscalls[j] == nr)
				break;
		if (j < p->n_syscalls) {
			report(ld, DIAG_ERROR, node_loc(ld, o), "remove one of them",
			       "syscall '%s' is listed twice %s", o->value, where);
			report(ld, DIAG_NOTE, node_loc(ld, first[j]), NULL,
			       "'%s' was first listed here", first[j]->value);
			continue;
		}
		first[p->n_syscalls] = o;
		p->syscalls[p->n_syscalls++] = nr;
	}
	p->syscalls_loc = node_loc(ld, v);
}

/* Checks V, the 'limit' of an events probe: a whole number of records,
 * 1..SPEC_MAX_EVENT_LIMIT, digits only.  Returns true and sets *OUT. */
static bool check_limit(loader *ld, const node *v, const char *where, unsigned *out)
{
	char buf[SHOW_BUF], hint[256];
	unsigned long long n = 0;
	size_t i;

	for (i = 0; i < v->len && is_digit(v->value[i]); i++)
		if (n <= SPEC_MAX_EVENT_LIMIT)
			n = n * 10 + (unsigned)(v->value[i] - '0');
	if (i < v->len || v->len == 0) {
		snprintf(hint, sizeof(hint),
			 "%swrite a whole number of records from 1 to %d, digits only, as in "
			 "'limit: 1000'",
			 v->value[0] == '-' ? "a limit cannot be negative; " : "",
			 SPEC_MAX_EVENT_LIMIT);
		report(ld, DIAG_ERROR, node_loc(ld, v), hint, "invalid limit '%s' %s",
		       show(buf, v->value, v->len), where);
		return false;
	}
	if (n == 0) {
		snprintf(hint, sizeof(hint),
			 "keep at least 1 record, or remove the line for the default (%d); "
			 "'threshold' chooses which calls are recorded",
			 SPEC_DEFAULT_EVENT_LIMIT);
		report(ld, DIAG_ERROR, node_loc(ld, v), hint, "'limit' %s must be at least 1, not 0",
		       where);
		return false;
	}
	if (v->value[0] == '0') {
		report(ld, DIAG_ERROR, node_loc(ld, v),
		       "write the number without leading zeros (YAML tools may read them as "
		       "octal)",
		       "invalid limit '%s' %s", show(buf, v->value, v->len), where);
		return false;
	}
	if (n > SPEC_MAX_EVENT_LIMIT) {
		snprintf(hint, sizeof(hint),
			 "keep at most %d records; raise 'threshold' so that fewer calls are "
			 "recorded (the rest are still counted)",
			 SPEC_MAX_EVENT_LIMIT);
		report(ld, DIAG_ERROR, node_loc(ld, v), hint, "'limit' %s must be at most %d, not %s",
		       where, SPEC_MAX_EVENT_LIMIT, show(buf, v->value, v->len));
		return false;
	}
	*out = (unsigned)n;
	return true;
}

/* Checks V, the 'probe' of a count probe P: one of the forms of
 * spec_parse_point.  On OBJECT main, sets P's object (and function). */
static void check_point(loader *ld, spec_probe *p, const node *v, const char *where)
{
	char buf[SHOW_BUF], why[512];
	point_type type;

	if (memchr(v->value, '\0', v->len)) {
		report(ld, DIAG_ERROR, node_loc(ld, v), POINT_FORMS,
		       "invalid probe point '%s' %s: it contains a NUL character",
		       show(buf, v->value, v->len), where);
		return;
	}
	if (spec_parse_point(v->value, &type, why, sizeof(why)) < 0) {
		report(ld, DIAG_ERROR, node_loc(ld, v), POINT_FORMS, "invalid probe point '%s' %s: %s",
		       show(buf, v->value, v->len), where, why);
		return;
	}
	p->probe = dup_value(v);
	if (!p->probe) {
		no_memory(ld);
		return;
	}
	p->point = type;
	p->probe_loc = node_loc(ld, v);
	if (type == POINT_UPROBE || type == POINT_URETPROBE || type == POINT_USDT) {
		const char *obj = strchr(p->probe, ':') + 1, *end = strchr(obj, ':');
		if (type != POINT_USDT && !(p->function = strdup(end + 1)))
			no_memory(ld);
		if (end - obj == 4 && memcmp(obj, "main", 4) == 0 && !(p->object = strdup("main")))
			no_memory(ld);
	}
}

/* ---- events on a probe point: 'args' ---- */

static const char *const arg_keys[] = { "name", "value", "type", NULL };
static const char *const arg_type_names[] = { "int", "uint", "string", NULL };
#define ARG_HINT "an argument is a mapping such as '{name: line, value: retval, type: string}'; " \
	"see docs/spec.md#event-arguments"
#define VALUE_FORMS "a value is argN (N from 0 to 11), retval or args.FIELD"

/* Parses an argument's value: "argN" (N 0..11, no leading zero), "retval",
 * "args.FIELD" (FIELD [a-z_][a-z0-9_]{0,63}).  Returns true and fills A. */
static bool parse_arg_value(const char *s, size_t len, spec_arg *a)
{
	if (len == 6 && memcmp(s, "retval", 6) == 0) {
		a->src = VALUE_RETVAL;
		return true;
	}
	if (len >= 4 && len <= 5 && memcmp(s, "arg", 3) == 0 && is_digit(s[3]) &&
	    (len == 4 || (s[3] != '0' && is_digit(s[4])))) {
		a->src = VALUE_ARG;
		a->index = len == 4 ? s[3] - '0' : (s[3] - '0') * 10 + (s[4] - '0');
		return a->index <= 11;
	}
	if (len > 5 && len <= 5 + POINT_WORD_MAX && memcmp(s, "args.", 5) == 0 &&
	    !is_digit(s[5])) {
		for (size_t i = 5; i < len; i++)
			if (!is_lower(s[i]) && !is_digit(s[i]) && s[i] != '_')
				return false;
		a->src = VALUE_FIELD;
		return true;
	}
	return false;
}

/* Checks item V (number I + 1) of a probe's 'args' into A.  Returns true
 * when it is complete and valid. */
static bool check_arg(loader *ld, spec_probe *p, spec_arg *a, const node *v, size_t i,
		      const char *where)
{
	const node *seen[3] = { 0 };
	char buf[SHOW_BUF], hint[256], what[128];
	bool ok = true;

	if (v->type == NODE_BAD)
		return false;
	if (v->type != NODE_MAP) {
		report(ld, DIAG_ERROR, node_loc(ld, v), ARG_HINT,
		       "argument %zu %s must be a mapping, not %s", i + 1, where,
		       is_null(v) ? "an empty item" : type_name(v));
		return false;
	}
	a->loc = node_loc(ld, v);
	snprintf(what, sizeof(what), "in argument %zu %s", i + 1, where);
	for (size_t j = 0; j + 1 < v->n_kids; j += 2) {
		const node *k = v->kids[j], *val = v->kids[j + 1];
		int key = check_key(ld, k, arg_keys, seen, what);
		if (key < 0) {
			ok = false;
			continue;
		}
		snprintf(hint, sizeof(hint), "'%s' %s", arg_keys[key], what);
		if (!want_scalar(ld, k, val, hint, "name: line", true)) {
			ok = false;
			continue;
		}
		if (key == 0) {
			if (!probe_name_ok(val->value, val->len)) {
				report(ld, DIAG_ERROR, node_loc(ld, val),
				       "an argument name is 1-32 characters: a lowercase letter, then "
				       "lowercase letters, digits or '_'",
				       "invalid argument name '%s' %s", show(buf, val->value, val->len),
				       where);
				ok = false;
				continue;
			}
			for (size_t o = 0; o < p->n_args; o++)
				if (strcmp(p->args[o].name, val->value) == 0) {
					report(ld, DIAG_ERROR, node_loc(ld, val),
					       "argument names must be unique in a probe; rename one",
					       "duplicate argument name '%s' %s", val->value, where);
					ok = false;
				}
			if (ok && !(a->name = dup_value(val)))
				return no_memory(ld);
		} else if (key == 1) {
			a->value_loc = node_loc(ld, val);
			if (memchr(val->value, '\0', val->len) ||
			    !parse_arg_value(val->value, val->len, a)) {
				report(ld, DIAG_ERROR, node_loc(ld, val),
				       VALUE_FORMS "; no expressions",
				       "invalid argument value '%s' %s", show(buf, val->value, val->len),
				       where);
				ok = false;
			} else if (a->src == VALUE_FIELD && !(a->field = strdup(val->value + 5))) {
				return no_memory(ld);
			}
		} else {
			size_t t;
			for (t = 0; arg_type_names[t]; t++)
				if (node_is(val, arg_type_names[t]))
					break;
			if (arg_type_names[t]) {
				a->type = (arg_type)t;
				continue;
			}
			report(ld, DIAG_ERROR, node_loc(ld, val),
			       choices_hint(hint, sizeof(hint), val->value, "types", arg_type_names),
			       "unknown argument type '%s' %s", show(buf, val->value, val->len), where);
			ok = false;
		}
	}
	for (size_t j = 0; j < 2; j++)
		if (!seen[j]) {
			report(ld, DIAG_ERROR, node_loc(ld, v), ARG_HINT, "argument %zu %s has no '%s'",
			       i + 1, where, arg_keys[j]);
			ok = false;
		}
	return ok;
}

static void spec_arg_free(spec_arg *a)
{
	free(a->name);
	free(a->field);
	memset(a, 0, sizeof(*a));
}

/* Checks V, the 'args' of events probe P: a list of at most
 * SPEC_MAX_EVENT_ARGS arguments. */
static void check_args(loader *ld, spec_probe *p, const node *k, const node *v, const char *where)
{
	char hint[256];

	if (v->type == NODE_BAD)
		return;
	if (is_null(v) || v->type != NODE_SEQ || v->n_kids == 0) {
		report(ld, DIAG_ERROR, node_loc(ld, is_null(v) ? k : v), ARG_HINT,
		       "'args' %s must be a list of arguments%s", where,
		       is_null(v) || v->type == NODE_SEQ ? " (it is empty)" : "");
		return;
	}
	if (v->n_kids > SPEC_MAX_EVENT_ARGS) {
		snprintf(hint, sizeof(hint), "an event records at most %d arguments; keep the ones "
			 "that tell the story", SPEC_MAX_EVENT_ARGS);
		report(ld, DIAG_ERROR, node_loc(ld, v->kids[SPEC_MAX_EVENT_ARGS]), hint,
		       "too many arguments (%zu) %s", v->n_kids, where);
		return;
	}
	p->args = calloc(v->n_kids, sizeof(*p->args));
	if (!p->args) {
		no_memory(ld);
		return;
	}
	for (size_t i = 0; i < v->n_kids; i++) {
		spec_arg *a = &p->args[p->n_args];
		if (check_arg(ld, p, a, v->kids[i], i, where))
			p->n_args++;
		else
			spec_arg_free(a);
	}
}

/* Events on a probe point: the point is one that has arguments, and each
 * argument's value is one that point has. */
static void check_point_events(loader *ld, const spec_probe *p, const char *where)
{
	const spec_arg *string = NULL;
	bool ret = p->point == POINT_URETPROBE || p->point == POINT_KRETPROBE;

	if (p->point == POINT_SOFTWARE || p->point == POINT_PROFILE || p->point == POINT_INTERVAL) {
		report(ld, DIAG_ERROR, p->probe_loc,
		       "events record hits of uprobe, uretprobe, usdt, tracepoint, kprobe or "
		       "kretprobe points; count software, profile and interval points with "
		       "'kind: count'",
		       "probe point '%s' %s cannot record events", p->probe, where);
		return;
	}
	for (size_t i = 0; i < p->n_args; i++) {
		const spec_arg *a = &p->args[i];
		const char *why = NULL, *fix = NULL;
		if (a->src == VALUE_RETVAL && !ret) {
			why = "only a uretprobe or kretprobe has a return value";
			fix = "read arguments (argN) here, or record the return value with a "
			      "'uretprobe:' point";
		} else if (a->src == VALUE_ARG && ret) {
			why = "a return probe has no arguments";
			fix = "record 'retval' here, or the arguments with a 'uprobe:' point";
		} else if (a->src == VALUE_ARG && p->point == POINT_TRACEPOINT) {
			why = "a tracepoint's values are its fields";
			fix = "write args.FIELD; the format file under "
			      "/sys/kernel/tracing/events/CATEGORY/NAME/ lists the fields";
		} else if (a->src == VALUE_FIELD && p->point != POINT_TRACEPOINT) {
			why = "only tracepoints have fields";
			fix = "write argN (uprobe, usdt, kprobe) or retval (uretprobe, kretprobe)";
		} else if (a->src == VALUE_ARG && a->index > 5 && p->point != POINT_USDT) {
			why = "bpftrace reads arg0 to arg5 of a uprobe or kprobe";
			fix = "use an argument from arg0 to arg5";
		}
		if (why) {
			report(ld, DIAG_ERROR, a->value_loc, fix,
			       "argument '%s' %s: %s", a->name, where, why);
			continue;
		}
		if (a->type == ARG_STRING && string) {
			report(ld, DIAG_ERROR, a->loc,
			       "an event records at most one string (it ends the record); record "
			       "the other as a number, or use a second probe",
			       "argument '%s' %s is a second string", a->name, where);
			report(ld, DIAG_NOTE, string->loc, NULL, "the first string is '%s'",
			       string->name);
			continue;
		}
		if (a->type == ARG_STRING)
			string = a;
	}
}

bool spec_is_point_events(const spec_probe *p)
{
	return p->kind == PROBE_EVENTS && p->probe != NULL;
}

static void check_probe(loader *ld, spec *s, const node *map, size_t index)
{
	spec_probe *p = &s->probes[s->n_probes++];
	const node *seen[N_PROBE] = { 0 };
	bool optional_ok = true;
	int kind = probe_kind_in(map);
	char label[64], where[80], suffix[88], what[128], buf[SHOW_BUF], hint[256];

	p->unit = UNIT_US;
	p->per_thread = true;
	if (kind == PROBE_EVENTS)
		p->limit = SPEC_DEFAULT_EVENT_LIMIT;
	probe_label(map, index, label, sizeof(label));
	snprintf(where, sizeof(where), "in %s", label);

	for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
		const node *k = map->kids[i], *v = map->kids[i + 1];
		int key = check_key(ld, k, probe_keys, seen, where);
		if (key < 0)
			continue;
		/* Keys of other kinds: reported once the kind is known. */
		if (kind >= 0 && !(probe_key_kinds[key] & (1u << kind))) {
			report_misplaced_key(ld, k, key, kind, where);
			continue;
		}
		if (key == P_SYSCALLS) {
			check_syscalls(ld, p, kind, k, v, where);
			continue;
		}
		if (key == P_ARGS) {
			check_args(ld, p, k, v, where);
			continue;
		}
		snprintf(what, sizeof(what), "'%s' in %s", probe_keys[key], label);
		if (!want_scalar(ld, k, v, what, probe_examples[key],
				 key == P_NAME || key == P_KIND || key == P_FUNCTION ||
				 key == P_PROBE)) {
			if (key == P_OPTIONAL)
				optional_ok = false;
			continue;
		}
		switch (key) {
		case P_NAME:
			check_probe_name(ld, s, p, v);
			break;
		case P_KIND:
			if (kind >= 0) {
				p->kind = (probe_kind)kind;
				p->kind_loc = node_loc(ld, v);
				break;
			}
			report(ld, DIAG_ERROR, node_loc(ld, v),
			       choices_hint(hint, sizeof(hint), v->value, "kinds", kind_names),
			       "unknown probe kind '%s' %s", show(buf, v->value, v->len), where);
			break;
		case P_FUNCTION:
			if (function_ok(v->value, v->len) || cxx_function_ok(v->value, v->len)) {
				p->function = dup_value(v);
				if (!p->function)
					no_memory(ld);
				p->function_loc = node_loc(ld, v);
				break;
			}
			report(ld, DIAG_ERROR, node_loc(ld, v),
			       strpbrk(v->value, "<>")
				       ? "templates are not supported: give the mangled name (as `nm FILE` "
					 "prints it, or `bpfspec symbols` lists it)"
				       : strstr(v->value, "::")
				       ? "a C++ name is identifiers joined by '::' (ns::Class::method), "
					 "without parameters; or give the mangled name as `nm FILE` prints it"
				       : "a function is a symbol name: a letter or '_', then letters, "
					 "digits, '_', '.' or '$' (at most 256 characters)",
			       "invalid function name '%s' %s", show(buf, v->value, v->len), where);
			break;
		case P_PROBE:
			check_point(ld, p, v, where);
			break;
		case P_OBJECT:
			snprintf(what, sizeof(what), " %s", where);
			if (check_object(ld, v, what, &p->object))
				p->object_loc = node_loc(ld, v);
			break;
		case P_OPTIONAL:
			optional_ok = check_bool(ld, k, v, what, probe_examples[key], &p->optional);
			break;
		case P_MISSING_REASON:
			check_prose(ld, k, v, what, probe_examples[key], REASON_MAX, &p->missing_reason);
			break;
		case P_THRESHOLD:
			snprintf(suffix, sizeof(suffix), " %s", where);
			check_duration_value(ld, k, v, &duration_threshold, what, suffix,
					     probe_examples[key], &p->threshold_ns);
			break;
		case P_LIMIT:
			check_limit(ld, v, where, &p->limit);
			break;
		case P_UNIT: {
			size_t u;
			for (u = 0; u <= UNIT_AUTO; u++)
				if (node_is(v, unit_names[u]))
					break;
			if (u <= UNIT_AUTO) {
				p->unit = (time_unit)u;
				break;
			}
			report(ld, DIAG_ERROR, node_loc(ld, v),
			       choices_hint(hint, sizeof(hint), v->value, "units", unit_names),
			       "unknown unit '%s' %s", show(buf, v->value, v->len), where);
			break;
		}
		case P_PER_THREAD:
			check_bool(ld, k, v, what, probe_examples[key], &p->per_thread);
			break;
		case P_DESCRIPTION:
			check_prose(ld, k, v, what, probe_examples[key], DESCRIPTION_MAX,
				   &p->description);
			break;
		case P_DERIVED:
			p->derived_loc = node_loc(ld, v);
			if (node_is(v, "libuv-pending"))
				p->derived = DERIVED_LIBUV_PENDING;
			else if (node_is(v, "libuv-closing"))
				p->derived = DERIVED_LIBUV_CLOSING;
			else
				report(ld, DIAG_ERROR, node_loc(ld, v),
				       "derived is libuv-pending or libuv-closing: the libuv phase "
				       "the missing function runs, timed between the phases around "
				       "it in the loop order of the target's libuv",
				       "unknown derived phase '%s' %s", show(buf, v->value, v->len),
				       where);
			break;
		}
	}

	if (!seen[P_NAME])
		report(ld, DIAG_ERROR, map_loc(ld, map),
		       "add e.g. 'name: timers' (a lowercase letter, then lowercase letters, "
		       "digits or '_')",
		       "%s has no 'name'", label);
	if (!seen[P_KIND])
		report(ld, DIAG_ERROR, map_loc(ld, map),
		       seen[P_FUNCTION] ? "add 'kind: latency' to time the function"
		       : seen[P_PROBE] ? "add 'kind: count' to count the hits of the probe point"
		       : seen[P_SYSCALLS]
			       ? "add 'kind: syscalls' (latency and errors per syscall) or "
				 "'kind: events' (a record per slow call)"
			       : "add 'kind: latency' (time a function), 'kind: syscalls' (latency "
				 "and errors per syscall), 'kind: events' (a record per slow call) or "
				 "'kind: count' (hits of a probe point)",
		       "%s has no 'kind'", label);
	if (kind == PROBE_LATENCY && !seen[P_FUNCTION])
		report(ld, DIAG_ERROR, map_loc(ld, map),
		       "add the function to time, e.g. 'function: uv__run_timers'",
		       "%s has no 'function'", label);
	if (kind == PROBE_COUNT && !seen[P_PROBE])
		report(ld, DIAG_ERROR, map_loc(ld, map),
		       "add the probe point to count, e.g. 'probe: \"tracepoint:sched:sched_switch\"'; "
		       POINT_FORMS,
		       "%s has no 'probe'", label);
	if (kind == PROBE_EVENTS && seen[P_SYSCALLS] && seen[P_PROBE])
		report(ld, DIAG_ERROR, node_loc(ld, seen[P_PROBE]),
		       "an events probe records either slow syscalls ('syscalls') or hits of a "
		       "probe point ('probe'); use two probes",
		       "%s has both 'syscalls' and 'probe'", label);
	if (kind == PROBE_EVENTS && seen[P_PROBE] && seen[P_THRESHOLD])
		report(ld, DIAG_ERROR, node_loc(ld, seen[P_THRESHOLD]),
		       "remove it: every hit of a probe point is recorded (up to 'limit'); "
		       "'threshold' selects slow syscalls",
		       "'threshold' %s does not apply to events on a probe point", where);
	if (kind == PROBE_EVENTS && seen[P_ARGS] && !seen[P_PROBE])
		report(ld, DIAG_ERROR, node_loc(ld, seen[P_ARGS]),
		       "add the probe point whose arguments to record, e.g. "
		       "'probe: \"uretprobe:/bin/bash:readline\"'; syscall events choose their "
		       "own fields",
		       "'args' %s needs a 'probe'", where);
	if (kind == PROBE_EVENTS && p->probe && !seen[P_SYSCALLS])
		check_point_events(ld, p, where);
	if (kind == PROBE_SYSCALLS && !seen[P_SYSCALLS])
		report(ld, DIAG_ERROR, map_loc(ld, map),
		       "add the syscalls to measure, e.g. 'syscalls: [openat, read]', or "
		       "'syscalls: all'",
		       "%s has no 'syscalls'", label);
	if (kind == PROBE_EVENTS && !seen[P_SYSCALLS] && !seen[P_PROBE])
		report(ld, DIAG_ERROR, map_loc(ld, map),
		       "add the syscalls to record, e.g. 'syscalls: [openat, connect]', or a "
		       "probe point whose hits to record, e.g. "
		       "'probe: \"uretprobe:/bin/bash:readline\"'",
		       "%s has no 'syscalls' or 'probe'", label);
	if (seen[P_DERIVED] && !p->optional && optional_ok)
		report(ld, DIAG_ERROR, node_loc(ld, seen[P_DERIVED]),
		       "a derived phase stands in for a function that may be missing; add "
		       "'optional: true'",
		       "'derived' %s needs 'optional: true'", where);
	if (seen[P_MISSING_REASON] && !p->optional && optional_ok &&
	    (kind < 0 || kind == PROBE_LATENCY))
		report(ld, DIAG_ERROR, node_loc(ld, seen[P_MISSING_REASON]),
		       "missing_reason explains why an optional probe may be absent; add "
		       "'optional: true' or remove missing_reason",
		       "'missing_reason' %s needs 'optional: true'", where);
}

static void check_probes(loader *ld, spec *s, const node *k, const node *v)
{
	size_t n;

	if (v->type == NODE_BAD)
		return;
	if (is_null(v) || (v->type == NODE_SEQ && v->n_kids == 0)) {
		report(ld, DIAG_ERROR, node_loc(ld, is_null(v) ? k : v),
		       "list at least one probe under 'probes:', e.g. '- name: timers' with "
		       "its 'kind' and 'function' below it",
		       "'probes' is empty");
		return;
	}
	if (v->type != NODE_SEQ) {
		report(ld, DIAG_ERROR, node_loc(ld, v),
		       "write a list of probes, each item starting with '- ', e.g. "
		       "'- name: timers'",
		       "'probes' must be a list, not %s", type_name(v));
		return;
	}
	n = v->n_kids;
	if (n > SPEC_MAX_PROBES) {
		report(ld, DIAG_ERROR, node_loc(ld, v->kids[SPEC_MAX_PROBES]),
		       "a spec has at most 64 probes; split it into several specs",
		       "too many probes (%zu)", n);
		n = SPEC_MAX_PROBES;
	}
	s->probes = calloc(n, sizeof(*s->probes));
	if (!s->probes) {
		no_memory(ld);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const node *item = v->kids[i];
		if (item->type == NODE_BAD)
			continue;
		if (is_null(item)) {
			report(ld, DIAG_ERROR, node_loc(ld, item),
			       "remove the empty item, or give the probe its 'name', 'kind' and "
			       "'function'",
			       "probe %zu is empty", i + 1);
			continue;
		}
		if (item->type != NODE_MAP) {
			report(ld, DIAG_ERROR, node_loc(ld, item),
			       "a probe is a mapping of 'key: value' lines, e.g. '- name: timers' "
			       "followed by 'kind: latency' and 'function: ...' indented below it",
			       "probe %zu must be a mapping, not %s", i + 1, type_name(item));
			continue;
		}
		check_probe(ld, s, item, i);
	}
}

/* ---- checks ---- */

#define CHECKS_HINT "see docs/spec.md#checks"

/* The statistics of check.h's grammar that a probe-level path may end in. */
static const char *const check_stats[] = {
	"count", "sum", "min", "max", "mean", "p50", "p90", "p99", "errors", "lost", NULL,
};

/* Where column COL (1-based, in characters) of the text of check item V
 * is in the source, underlining the word that starts there.  Returns
 * false when V's value is not its source text as is (escapes, folded
 * lines, block scalars): a column inside it cannot be mapped. */
static bool check_col_loc(const loader *ld, const node *v, size_t col, diag_loc *out)
{
	const diag_src *src = v->src ? v->src : ld->src;
	size_t off = mark_offset(src, v->start), q = 0, i = 0, end;

	if (!v->plain) {
		if (off >= src->len || (src->text[off] != '"' && src->text[off] != '\''))
			return false;
		q = 1;
	}
	if (memchr(v->value, '\n', v->len) || memchr(v->value, '\r', v->len) ||
	    off + q + v->len + q > src->len ||
	    memcmp(src->text + off + q, v->value, v->len) != 0 ||
	    (q && src->text[off + q + v->len] != src->text[off]))
		return false;
	for (size_t c = 1; c < col && i < v->len; c++)
		i += diag_char_len(v->value + i, v->len - i);
	for (end = i; end < v->len && (is_lower(v->value[end]) || is_upper(v->value[end]) ||
				      is_digit(v->value[end]) || v->value[end] == '_');)
		end++;
	if (end == i)
		end = i + (i < v->len ? diag_char_len(v->value + i, v->len - i) : 1);
	*out = diag_loc_of(src, off + q + i, off + q + end);
	return true;
}

/* The location of column COL of check item V, or the item when the
 * column cannot be mapped. */
static diag_loc check_loc(const loader *ld, const node *v, size_t col)
{
	diag_loc loc;

	return check_col_loc(ld, v, col, &loc) ? loc : node_loc(ld, v);
}

/* The dot-separated words of the path of TEXT, a check that parsed:
 * PROBE "." STAT ["." ERRNO] or PROBE "." SYSCALL "." STAT ["." ERRNO].
 * Each word is [A-Za-z0-9_]{1,64} (check_parse made sure). */
typedef struct check_path {
	char probe[65], syscall[65], stat[65];	/* syscall: "" at probe level */
	size_t syscall_col, stat_col;		/* 1-based columns in TEXT */
	size_t len;				/* bytes of TEXT the path takes */
} check_path;

static void check_path_of(const char *text, check_path *cp)
{
	char words[4][65] = { { 0 } };
	size_t cols[4] = { 0 }, n = 0, i = 0;

	while (n < 4) {
		size_t len = 0;
		cols[n] = i + 1;
		while (text[i] && text[i] != '.' && !strchr(" \t<>=!", text[i]))
			if (len < 64)
				words[n][len++] = text[i++];
			else
				i++;
		n++;
		if (text[i] != '.')
			break;
		i++;
	}
	cp->len = i;
	memcpy(cp->probe, words[0], sizeof(cp->probe));
	cp->syscall[0] = '\0';
	cp->syscall_col = 0;
	for (i = 0; check_stats[i]; i++)
		if (strcmp(words[1], check_stats[i]) == 0)
			break;
	if (check_stats[i]) {
		memcpy(cp->stat, words[1], sizeof(cp->stat));
		cp->stat_col = cols[1];
	} else {
		memcpy(cp->syscall, words[1], sizeof(cp->syscall));
		cp->syscall_col = cols[1];
		memcpy(cp->stat, words[2], sizeof(cp->stat));
		cp->stat_col = cols[2];
	}
}

/* The byte offset in a check's text of what follows "PROBE.". */
static size_t cols_of_stat_start(const check_path *cp)
{
	return (cp->syscall[0] ? cp->syscall_col : cp->stat_col) - 1;
}

/* Checks that check C (item V, text TEXT) reads probe P as its kind
 * allows.  Returns false after reporting. */
static bool check_fits_probe(loader *ld, const node *v, const char *text, const spec_probe *p,
			     const check_path *cp)
{
	char hint[512];
	size_t o;
	int nr;

	switch (p->kind) {
	case PROBE_LATENCY:
		if (cp->syscall[0]) {
			snprintf(hint, sizeof(hint),
				 "a latency probe times a function as a whole; write e.g. "
				 "'%s.p99 > 10ms', or check a probe with 'kind: syscalls'", p->name);
			report(ld, DIAG_ERROR, check_loc(ld, v, cp->syscall_col), hint,
			       "check reads syscall '%s' of probe '%s', a latency probe, which has "
			       "no syscalls", cp->syscall, p->name);
			return false;
		}
		if (strcmp(cp->stat, "errors") == 0) {
			report(ld, DIAG_ERROR, check_loc(ld, v, cp->stat_col),
			       "errors are counted by probes with 'kind: syscalls'; a latency probe "
			       "has count, sum, min, max, mean, p50, p90, p99 (and lost)",
			       "check reads the errors of probe '%s', a latency probe, which does not "
			       "count errors", p->name);
			return false;
		}
		return true;
	case PROBE_COUNT:
		if (cp->syscall[0] || (strcmp(cp->stat, "count") != 0 &&
				       strcmp(cp->stat, "lost") != 0)) {
			snprintf(hint, sizeof(hint),
				 "a count probe counts the hits of its probe point: check how many "
				 "there were, e.g. '%s.count > 0'", p->name);
			report(ld, DIAG_ERROR,
			       check_loc(ld, v, cp->syscall[0] ? cp->syscall_col : cp->stat_col), hint,
			       "check reads '%.*s' of probe '%s', a count probe, which can be "
			       "checked on its count and lost only",
			       (int)(cp->len - cols_of_stat_start(cp)), text + cols_of_stat_start(cp),
			       p->name);
			return false;
		}
		return true;
	case PROBE_EVENTS:
		if (cp->syscall[0] || (strcmp(cp->stat, "count") != 0 &&
				       strcmp(cp->stat, "lost") != 0)) {
			snprintf(hint, sizeof(hint),
				 "an events probe records single slow calls: check how many there "
				 "were, e.g. '%s.count > 0'; for latency statistics, use a probe with "
				 "'kind: syscalls'", p->name);
			report(ld, DIAG_ERROR,
			       check_loc(ld, v, cp->syscall[0] ? cp->syscall_col : cp->stat_col), hint,
			       "check reads '%.*s' of probe '%s', an events probe, which can be "
			       "checked on its count and lost only",
			       (int)(cp->len - cols_of_stat_start(cp)), text + cols_of_stat_start(cp),
			       p->name);
			return false;
		}
		return true;
	case PROBE_UTILIZATION:
		if (cp->syscall[0] || strcmp(cp->stat, "errors") == 0) {
			report(ld, DIAG_ERROR,
			       check_loc(ld, v, cp->syscall[0] ? cp->syscall_col : cp->stat_col),
			       "a utilization probe times the waits of each loop thread: check "
			       "count, sum, min, max, mean, p50, p90 or p99 of them",
			       "check reads '%.*s' of probe '%s', a utilization probe, which has no "
			       "syscalls or errors", (int)(cp->len - cols_of_stat_start(cp)),
			       text + cols_of_stat_start(cp), p->name);
			return false;
		}
		return true;
	default:
		break;
	}
	if (!cp->syscall[0] || p->all_syscalls)
		return true;
	nr = systab_syscall_nr(cp->syscall);
	for (size_t i = 0; i < p->n_syscalls; i++)
		if (p->syscalls[i] == nr)
			return true;
	o = (size_t)snprintf(hint, sizeof(hint), "add it to the probe's 'syscalls', or check one "
			     "it measures: ");
	for (size_t i = 0; i < p->n_syscalls && o < sizeof(hint); i++)
		o += (size_t)snprintf(hint + o, sizeof(hint) - o, "%s%s", i ? ", " : "",
				      systab_syscall_name(p->syscalls[i]));
	report(ld, DIAG_ERROR, check_loc(ld, v, cp->syscall_col), hint,
	       "check refers to syscall '%s', which probe '%s' does not measure", cp->syscall,
	       p->name);
	return false;
}

/* Checks that the probe check TEXT (item V) reads is defined in S, and
 * read as its kind allows. */
static void check_refs(loader *ld, const spec *s, const node *v, const char *text)
{
	const char *names[SPEC_MAX_PROBES + 1];
	char hint[512];
	check_path cp;

	check_path_of(text, &cp);
	for (size_t i = 0; i < s->n_probes; i++) {
		if (s->probes[i].name && strcmp(s->probes[i].name, cp.probe) == 0) {
			check_fits_probe(ld, v, text, &s->probes[i], &cp);
			return;
		}
		names[i] = s->probes[i].name;
	}
	names[s->n_probes] = NULL;
	report(ld, DIAG_ERROR, check_loc(ld, v, 1),
	       choices_hint(hint, sizeof(hint), cp.probe, "probes", names),
	       "check refers to probe '%s', which this spec does not define", cp.probe);
}

/* The probe names of S are all known: every item of the probes list
 * PROBES became a probe with a valid name (else a check naming a probe
 * that failed to load would be reported twice). */
static bool probe_names_known(const spec *s, const node *probes)
{
	if (!probes || probes->type != NODE_SEQ || probes->n_kids != s->n_probes)
		return false;
	for (size_t i = 0; i < s->n_probes; i++)
		if (!s->probes[i].name)
			return false;
	return true;
}

/* Checks V, the value of key K ('checks'): a list of conditions, each
 * parsed by check_parse.  Runs after the probes are loaded (PROBES is
 * their list, or NULL), so that checks can be matched with them. */
static void check_checks(loader *ld, spec *s, const node *k, const node *v, const node *probes)
{
	bool refs = probe_names_known(s, probes);
	char buf[SHOW_BUF], err[512];

	if (v->type == NODE_BAD)
		return;
	if (is_null(v) || (v->type == NODE_SEQ && v->n_kids == 0)) {
		report(ld, DIAG_ERROR, node_loc(ld, is_null(v) ? k : v),
		       "list conditions that fail the run, as in 'checks: [\"timers.p99 > "
		       "100ms\"]', or remove the line; " CHECKS_HINT,
		       "'checks' %s", is_null(v) ? "has no value" : "is empty");
		return;
	}
	if (v->type != NODE_SEQ) {
		report(ld, DIAG_ERROR, node_loc(ld, v),
		       "write a list, even of one check, as in 'checks: [\"timers.p99 > 100ms\"]' "
		       "or '- timers.p99 > 100ms' on the next line; " CHECKS_HINT,
		       "'checks' must be a list, not %s", type_name(v));
		return;
	}
	if (v->n_kids > SPEC_MAX_CHECKS) {
		report(ld, DIAG_ERROR, node_loc(ld, v->kids[SPEC_MAX_CHECKS]),
		       "a spec has at most 64 checks; keep the ones that matter",
		       "too many checks (%zu)", v->n_kids);
		return;
	}
	s->checks = calloc(v->n_kids, sizeof(*s->checks));
	s->check_locs = calloc(v->n_kids, sizeof(*s->check_locs));
	if (!s->checks || !s->check_locs) {
		no_memory(ld);
		return;
	}
	for (size_t i = 0; i < v->n_kids; i++) {
		const node *o = v->kids[i];
		check *c;
		const char *msg;
		diag_loc loc;
		size_t col, j;

		if (o->type == NODE_BAD)
			continue;
		if (is_null(o) || o->type != NODE_SCALAR) {
			report(ld, DIAG_ERROR, node_loc(ld, o),
			       is_null(o) ? "remove the empty item, or write a condition such as "
					    "'timers.p99 > 100ms'"
					  : "a check is one condition written as text, such as "
					    "'timers.p99 > 100ms'; " CHECKS_HINT,
			       "check %zu %s", i + 1, is_null(o) ? "is empty"
						      : o->type == NODE_SEQ ? "must be a condition, not a list"
									    : "must be a condition, not a mapping");
			continue;
		}
		if (memchr(o->value, '\0', o->len)) {
			report(ld, DIAG_ERROR, node_loc(ld, o), "remove the \\0 escape",
			       "check %zu contains a NUL character", i + 1);
			continue;
		}
		c = check_parse(o->value, err, sizeof(err));
		if (!c) {
			/* "column N: message": point at column N when it maps. */
			col = strtoul(err + strlen("column "), NULL, 10);
			msg = strstr(err, ": ");
			msg = msg ? msg + 2 : err;
			if (check_col_loc(ld, o, col, &loc))
				report(ld, DIAG_ERROR, loc, CHECKS_HINT, "invalid check: %s", msg);
			else
				report(ld, DIAG_ERROR, node_loc(ld, o), CHECKS_HINT,
				       "invalid check (at column %zu of its text): %s", col, msg);
			continue;
		}
		if (check_is_relative(c)) {
			check_free(c);
			report(ld, DIAG_ERROR,
			       check_loc(ld, o, (size_t)(strpbrk(o->value, "+-") - o->value) + 1),
			       "a spec's checks judge one run: write an absolute value, as in "
			       "'timers.p99 > 100ms'; relative changes compare two reports (a diff); "
			       CHECKS_HINT,
			       "check '%s' is a relative change, which a spec cannot check",
			       show(buf, o->value, o->len));
			continue;
		}
		check_free(c);
		for (j = 0; j < s->n_checks; j++)
			if (strcmp(s->checks[j], o->value) == 0)
				break;
		if (j < s->n_checks) {
			report(ld, DIAG_ERROR, node_loc(ld, o), "remove one of them",
			       "check '%s' is listed twice", show(buf, o->value, o->len));
			report(ld, DIAG_NOTE, s->check_locs[j], NULL, "it was first listed here");
			continue;
		}
		if (refs)
			check_refs(ld, s, o, o->value);
		s->checks[s->n_checks] = dup_value(o);
		if (!s->checks[s->n_checks]) {
			no_memory(ld);
			return;
		}
		s->check_locs[s->n_checks++] = node_loc(ld, o);
	}
}

/* The default name: PATH's basename without .yaml or .yml. */
/* ---- parameters: declared defaults, --set overrides, ${NAME} values ----
 *
 * Runs on the tree before it is checked against the format: every value
 * that is exactly "${NAME}" is replaced by a copy of the parameter's value
 * node (the default as written, or a node made from the --set text), so
 * the normal checks validate it and point at where it was written. */

typedef struct param_def {
	const node *key;	/* the name, in the spec */
	const node *value;	/* the default as written */
	const node *set;	/* the --set value (owned by the caller), or NULL */
	char *description;
	bool used;
} param_def;

static const char *const param_keys[] = { "default", "description", NULL };
static const char params_doc[] = "see docs/spec.md#parameters";

static bool param_name_ok(const char *s, size_t len)
{
	return probe_name_ok(s, len);
}

/* A default is a plain value or a list of plain values. */
static bool check_param_value(loader *ld, const node *k, const node *v)
{
	char buf[SHOW_BUF];

	if (v->type == NODE_BAD)
		return false;
	if (is_null(v)) {
		report(ld, DIAG_ERROR, node_loc(ld, k),
		       "give the default after the ':', as in 'threshold: 1ms', or "
		       "'syscalls: [openat, read]'",
		       "parameter '%s' has no default", show(buf, k->value, k->len));
		return false;
	}
	if (v->type == NODE_MAP) {
		report(ld, DIAG_ERROR, node_loc(ld, v),
		       "a default is one value or a list of values",
		       "the default of parameter '%s' must not be a mapping",
		       show(buf, k->value, k->len));
		return false;
	}
	if (v->type == NODE_SEQ) {
		if (v->n_kids == 0) {
			report(ld, DIAG_ERROR, node_loc(ld, v), "list at least one value",
			       "the default of parameter '%s' is an empty list",
			       show(buf, k->value, k->len));
			return false;
		}
		for (size_t i = 0; i < v->n_kids; i++) {
			if (v->kids[i]->type != NODE_SCALAR || is_null(v->kids[i])) {
				report(ld, DIAG_ERROR, node_loc(ld, v->kids[i]),
				       "a list default holds plain values, as in [openat, read]",
				       "item %zu of the default of parameter '%s' is not a value",
				       i + 1, show(buf, k->value, k->len));
				return false;
			}
		}
	}
	return true;
}

/* Reads one entry NAME: DEFAULT or NAME: {default: D, description: T}. */
static bool read_param(loader *ld, const node *k, const node *v, param_def *def)
{
	char buf[SHOW_BUF];

	if (k->type != NODE_SCALAR || !param_name_ok(k->value, k->len)) {
		report(ld, DIAG_ERROR, node_loc(ld, k),
		       "a parameter name is a lowercase letter, then up to 31 lowercase "
		       "letters, digits or '_'",
		       "invalid parameter name '%s'",
		       k->type == NODE_SCALAR ? show(buf, k->value, k->len) : "(not a word)");
		return false;
	}
	def->key = k;
	if (v->type != NODE_MAP) {
		def->value = v;
		return check_param_value(ld, k, v);
	}
	const node *seen[2] = { 0 };
	for (size_t i = 0; i + 1 < v->n_kids; i += 2) {
		const node *pk = v->kids[i], *pv = v->kids[i + 1];
		int key = check_key(ld, pk, param_keys, seen, "in a parameter");
		if (key == 0)
			def->value = pv;
		else if (key == 1)
			check_prose(ld, pk, pv, "'description' of a parameter", "description: slowest "
				   "call to record", DESCRIPTION_MAX, &def->description);
	}
	if (!seen[0]) {
		report(ld, DIAG_ERROR, map_loc(ld, v), "add 'default: VALUE'",
		       "parameter '%s' has no 'default'", show(buf, k->value, k->len));
		return false;
	}
	return check_param_value(ld, k, def->value);
}

/* Reads the 'parameters' mapping V into DEFS (room for SPEC_MAX_PARAMS).
 * Returns the number read, or -1 after reporting errors. */
static int read_params(loader *ld, const node *v, param_def *defs)
{
	int n = 0;
	bool ok = true;
	char buf[SHOW_BUF];

	if (v->type == NODE_BAD)
		return -1;
	if (is_null(v))
		return 0;
	if (v->type != NODE_MAP) {
		report(ld, DIAG_ERROR, node_loc(ld, v),
		       "write one 'NAME: DEFAULT' per line under 'parameters:'",
		       "'parameters' must be a mapping of names to defaults, not %s", type_name(v));
		return -1;
	}
	for (size_t i = 0; i + 1 < v->n_kids; i += 2) {
		const node *k = v->kids[i];
		if (n == SPEC_MAX_PARAMS) {
			report(ld, DIAG_ERROR, node_loc(ld, k), NULL,
			       "too many parameters (at most %d)", SPEC_MAX_PARAMS);
			return -1;
		}
		if (!read_param(ld, k, v->kids[i + 1], &defs[n])) {
			free(defs[n].description);
			defs[n].description = NULL;
			ok = false;
			continue;
		}
		for (int j = 0; j < n; j++) {
			if (defs[j].key->len == k->len && memcmp(defs[j].key->value, k->value, k->len) == 0) {
				report(ld, DIAG_ERROR, node_loc(ld, k), "remove one of them",
				       "parameter '%s' is declared twice", show(buf, k->value, k->len));
				ok = false;
			}
		}
		n++;
	}
	return ok ? n : -1;
}

/* The libyaml-style mark of byte OFF of TEXT (line 0, column in characters). */
static yaml_mark_t text_mark(const char *text, size_t off)
{
	yaml_mark_t m = { 0, 0, 0 };

	for (size_t i = 0; i < off; m.column++)
		i += diag_char_len(text + i, off - i);
	m.index = off;
	return m;
}

static node *set_scalar(const diag_src *src, size_t start, size_t end)
{
	node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->type = NODE_SCALAR;
	n->src = src;
	n->start = text_mark(src->text, start);
	n->end = text_mark(src->text, end);
	n->plain = true;
	n->len = end - start;
	n->value = strndup(src->text + start, n->len);
	if (!n->value) {
		free(n);
		return NULL;
	}
	return n;
}

/* The value node of --set text SRC whose value starts at byte START: a
 * list (split on commas, optional [ ]) when the default is a list, else
 * one plain value.  NULL after reporting. */
static node *set_value(loader *ld, const diag_src *src, size_t start, const param_def *def)
{
	const char *t = src->text;
	size_t end = src->len;
	node *seq;

	/* One value, unless the default is a list or the value is one. */
	if (def->value->type != NODE_SEQ && !memchr(t + start, ',', end - start) &&
	    !(end > start && t[start] == '[')) {
		node *v = set_scalar(src, start, end);
		if (!v)
			no_memory(ld);
		return v;
	}
	if (end > start && t[start] == '[' && t[end - 1] == ']') {
		start++;
		end--;
	}
	seq = calloc(1, sizeof(*seq));
	if (!seq) {
		no_memory(ld);
		return NULL;
	}
	seq->type = NODE_SEQ;
	seq->src = src;
	seq->start = text_mark(t, start);
	seq->end = text_mark(t, end);
	builder b = { .ld = ld, .depth = 1 };
	b.open[0] = seq;
	for (size_t i = start; i <= end;) {
		size_t j = i, a, z;
		while (j < end && t[j] != ',')
			j++;
		for (a = i; a < j && t[a] == ' '; a++)
			;
		for (z = j; z > a && t[z - 1] == ' '; z--)
			;
		if (a == z) {
			report(ld, DIAG_ERROR, diag_loc_of(src, a, a + 1),
			       "separate the values with single commas, as in 'NAME=openat,read'",
			       "empty value in the list given to --set");
			node_free(seq);
			return NULL;
		}
		if (!attach(&b, set_scalar(src, a, z))) {
			node_free(seq);
			return NULL;
		}
		i = j + 1;
	}
	return seq;
}

/* Applies one --set text (SRC) to DEFS[0..N). */
static bool apply_set(loader *ld, const diag_src *src, param_def *defs, int n,
		      node **owned)
{
	const char *t = src->text, *eq = memchr(t, '=', src->len);
	size_t name_len = eq ? (size_t)(eq - t) : src->len;
	const char *names[SPEC_MAX_PARAMS + 1];
	char hint[512], buf[SHOW_BUF];
	int i;

	if (!eq || !param_name_ok(t, name_len)) {
		report(ld, DIAG_ERROR, diag_loc_of(src, 0, name_len),
		       "write --set NAME=VALUE, NAME a parameter the spec declares",
		       eq ? "invalid parameter name '%s'" : "'%s' has no '=VALUE'",
		       show(buf, t, name_len));
		return false;
	}
	for (i = 0; i < n; i++)
		if (defs[i].key->len == name_len && memcmp(defs[i].key->value, t, name_len) == 0)
			break;
	if (i == n) {
		char name[40];
		for (int j = 0; j < n; j++)
			names[j] = defs[j].key->value;
		names[n] = NULL;
		snprintf(name, sizeof(name), "%.*s", (int)name_len, t);
		if (n)
			choices_hint(hint, sizeof(hint), name, "parameters", names);
		else
			snprintf(hint, sizeof(hint), "this spec declares no parameters; %s",
				 params_doc);
		report(ld, DIAG_ERROR, diag_loc_of(src, 0, name_len), hint,
		       "the spec has no parameter '%s'", name);
		return false;
	}
	*owned = set_value(ld, src, name_len + 1, &defs[i]);
	if (!*owned)
		return false;
	defs[i].set = *owned;	/* a later --set of the same name wins */
	return true;
}

static node *node_copy(const node *n)
{
	node *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	*c = *n;
	c->kids = NULL;
	c->n_kids = c->cap = 0;
	c->value = NULL;
	if (n->value && !(c->value = malloc(n->len + 1)))
		goto fail;
	if (n->value)
		memcpy(c->value, n->value, n->len + 1);
	if (n->n_kids) {
		c->kids = calloc(n->n_kids, sizeof(*c->kids));
		if (!c->kids)
			goto fail;
		c->cap = n->n_kids;
		for (; c->n_kids < n->n_kids; c->n_kids++)
			if (!(c->kids[c->n_kids] = node_copy(n->kids[c->n_kids])))
				goto fail;
	}
	return c;
fail:
	node_free(c);
	return NULL;
}

/* Replaces every "${NAME}" value under *SLOT by the parameter's value. */
static void substitute(loader *ld, node **slot, param_def *defs, int n)
{
	node *v = *slot;
	char buf[SHOW_BUF], hint[512];
	const char *names[SPEC_MAX_PARAMS + 1];

	if (v->type == NODE_SEQ || v->type == NODE_MAP) {
		for (size_t i = v->type == NODE_MAP; i < v->n_kids; i += 1 + (v->type == NODE_MAP))
			substitute(ld, &v->kids[i], defs, n);
		return;
	}
	if (v->type != NODE_SCALAR || !memmem(v->value, v->len, "${", 2))
		return;
	if (v->len < 4 || memcmp(v->value, "${", 2) != 0 || v->value[v->len - 1] != '}' ||
	    memchr(v->value + 2, '}', v->len - 3)) {
		report(ld, DIAG_ERROR, node_loc(ld, v),
		       "a parameter is a whole value: write 'threshold: ${NAME}', not text "
		       "around it",
		       "'${' in '%s' is not a whole parameter value", show(buf, v->value, v->len));
		return;
	}
	const char *name = v->value + 2;
	size_t len = v->len - 3;
	for (int i = 0; i < n; i++) {
		if (defs[i].key->len != len || memcmp(defs[i].key->value, name, len) != 0)
			continue;
		node *c = node_copy(defs[i].set ? defs[i].set : defs[i].value);
		if (!c) {
			no_memory(ld);
			return;
		}
		defs[i].used = true;
		node_free(v);
		*slot = c;
		return;
	}
	for (int j = 0; j < n; j++)
		names[j] = defs[j].key->value;
	names[n] = NULL;
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 40 ? len : 40), name);
	if (n)
		choices_hint(hint, sizeof(hint), buf, "parameters", names);
	else
		snprintf(hint, sizeof(hint), "declare it under 'parameters:'; %s", params_doc);
	report(ld, DIAG_ERROR, node_loc(ld, v), hint, "unknown parameter '%s'",
	       show(buf, name, len));
}

/* The value text recorded in the spec: a list's items joined with ",". */
static char *param_text(const node *v)
{
	size_t len = 0, o = 0;
	char *t;

	if (v->type == NODE_SCALAR)
		return strndup(v->value, v->len);
	for (size_t i = 0; i < v->n_kids; i++)
		len += v->kids[i]->len + 1;
	t = malloc(len + 1);
	if (!t)
		return NULL;
	for (size_t i = 0; i < v->n_kids; i++) {
		if (i)
			t[o++] = ',';
		memcpy(t + o, v->kids[i]->value, v->kids[i]->len);
		o += v->kids[i]->len;
	}
	t[o] = '\0';
	return t;
}

static bool record_params(loader *ld, spec *s, param_def *defs, int n)
{
	s->params = calloc((size_t)n + 1, sizeof(*s->params));
	if (!s->params)
		return no_memory(ld);
	for (int i = 0; i < n; i++) {
		spec_param *p = &s->params[s->n_params++];
		p->name = strndup(defs[i].key->value, defs[i].key->len);
		p->value = param_text(defs[i].set ? defs[i].set : defs[i].value);
		p->description = defs[i].description;
		defs[i].description = NULL;
		p->overridden = defs[i].set != NULL;
		if (!p->name || !p->value)
			return no_memory(ld);
	}
	return true;
}

/* Reads 'parameters' from ROOT (a mapping), applies SETS, and replaces
 * every placeholder in the other values.  Returns false after reporting
 * errors (the tree must then not be checked: placeholders may remain). */
static bool apply_parameters(loader *ld, spec *s, node *root, char *const *sets,
			     size_t n_sets)
{
	param_def defs[SPEC_MAX_PARAMS] = { 0 };
	node **owned = NULL;
	const node *pv = NULL;
	unsigned errors = ld->errors + ld->dropped;
	int n = 0;
	char buf[SHOW_BUF];

	for (size_t i = 0; i + 1 < root->n_kids; i += 2)
		if (!pv && node_is(root->kids[i], "parameters"))
			pv = root->kids[i + 1];
	if (pv)
		n = read_params(ld, pv, defs);
	if (n >= 0 && n_sets) {
		s->set_srcs = calloc(n_sets, sizeof(*s->set_srcs));
		owned = calloc(n_sets, sizeof(*owned));
		if (!s->set_srcs || !owned) {
			no_memory(ld);
			n_sets = 0;
		}
		for (size_t i = 0; i < n_sets; i++) {
			diag_src *src = &s->set_srcs[s->n_set_srcs];
			if (!(src->text = strdup(sets[i]))) {
				no_memory(ld);
				break;
			}
			src->path = "--set";
			src->len = strlen(src->text);
			s->n_set_srcs++;
			apply_set(ld, src, defs, n, &owned[i]);
		}
	}
	if (n > 0 && ld->errors + ld->dropped == errors) {
		for (size_t i = 0; i + 1 < root->n_kids; i += 2)
			if (root->kids[i + 1] != pv)
				substitute(ld, &root->kids[i + 1], defs, n);
		for (int i = 0; i < n && ld->errors + ld->dropped == errors; i++)
			if (!defs[i].used)
				report(ld, DIAG_WARNING, node_loc(ld, defs[i].key),
				       "use it as a whole value, as in 'threshold: ${NAME}', or "
				       "remove it",
				       "parameter '%s' is not used", show(buf, defs[i].key->value,
									  defs[i].key->len));
		if (ld->errors + ld->dropped == errors)
			record_params(ld, s, defs, n);
	} else if (n == 0 && ld->errors + ld->dropped == errors) {
		/* No parameters: a placeholder is an unknown name, reported. */
		for (size_t i = 0; i + 1 < root->n_kids; i += 2)
			substitute(ld, &root->kids[i + 1], defs, 0);
	}
	for (int i = 0; i < n; i++)
		free(defs[i].description);
	for (size_t i = 0; i < n_sets && owned; i++)
		node_free(owned[i]);
	free(owned);
	return ld->errors + ld->dropped == errors;
}

static void default_name(loader *ld, spec *s)
{
	const char *base = strrchr(s->path, '/');
	size_t len;
	char buf[SHOW_BUF];

	base = base ? base + 1 : s->path;
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".yaml") == 0)
		len -= 5;
	else if (len > 4 && strcmp(base + len - 4, ".yml") == 0)
		len -= 4;
	if (!spec_name_ok(base, len)) {
		report(ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL },
		       "add a 'name:' line (lowercase letters, digits, '_', '.' and '-'), or "
		       "rename the file",
		       "the file name does not make a valid spec name ('%s')", show(buf, base, len));
		return;
	}
	s->name = strndup(base, len);
	if (!s->name)
		no_memory(ld);
}

static void check_top(loader *ld, spec *s, const node *root)
{
	const node *seen[N_TOP] = { 0 }, *probes_key = NULL, *probes = NULL, *checks = NULL;
	char buf[SHOW_BUF];

	for (size_t i = 0; i + 1 < root->n_kids; i += 2) {
		const node *k = root->kids[i], *v = root->kids[i + 1];
		char what[32];
		int key = check_key(ld, k, top_keys, seen, "at the top level");
		if (key < 0)
			continue;
		snprintf(what, sizeof(what), "'%s'", top_keys[key]);
		switch (key) {
		case TOP_NAME:
			if (!want_scalar(ld, k, v, what, top_examples[key], false))
				break;
			if (!spec_name_ok(v->value, v->len)) {
				report(ld, DIAG_ERROR, node_loc(ld, v),
				       "a spec name is 1-64 characters: a lowercase letter or digit, "
				       "then lowercase letters, digits, '_', '.' or '-'",
				       "invalid spec name '%s'", show(buf, v->value, v->len));
				break;
			}
			s->name = dup_value(v);
			if (!s->name)
				no_memory(ld);
			break;
		case TOP_DESCRIPTION:
			check_prose(ld, k, v, what, top_examples[key], DESCRIPTION_MAX,
				   &s->description);
			break;
		case TOP_OBJECTS:
			check_objects(ld, s, k, v);
			break;
		case TOP_DURATION:
			check_duration_value(ld, k, v, &duration_top, "'duration'", "",
					     top_examples[key], &s->duration_ns);
			break;
		case TOP_PROBES:
			probes_key = k;
			probes = v;
			check_probes(ld, s, k, v);
			break;
		case TOP_CHECKS:
			checks = v;	/* once the probes are known */
			break;
		case TOP_PARAMETERS:
			break;		/* read and applied before (apply_parameters) */
		case TOP_TIMING:
			if (!want_scalar(ld, k, v, what, top_examples[key], false))
				break;
			if (node_is(v, "entry-only"))
				s->entry_only = true;
			else if (!node_is(v, "entry-return"))
				report(ld, DIAG_ERROR, node_loc(ld, v),
				       "entry-return (the default) times each call from entry to "
				       "return; entry-only times loop phases from one phase's entry "
				       "to the next's, without return probes",
				       "invalid timing '%s'", show(buf, v->value, v->len));
			break;
		}
	}
	if (checks)
		check_checks(ld, s, seen[TOP_CHECKS], checks, probes);
	if (!probes_key)
		report(ld, DIAG_ERROR, map_loc(ld, root),
		       "add a 'probes:' list; see docs/spec.md for an example",
		       "the spec has no 'probes'");
	if (!seen[TOP_NAME])
		default_name(ld, s);
	if (!seen[TOP_OBJECTS]) {
		s->objects = calloc(1, sizeof(*s->objects));
		if (s->objects && (s->objects[0] = strdup("main")))
			s->n_objects = 1;
		else
			no_memory(ld);
	}
}

/* ---- entry points ---- */

void spec_free(spec *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_probes; i++) {
		spec_probe *p = &s->probes[i];
		free(p->name);
		free(p->function);
		free(p->object);
		free(p->missing_reason);
		free(p->description);
		free(p->syscalls);
		free(p->probe);
		for (size_t j = 0; j < p->n_args; j++)
			spec_arg_free(&p->args[j]);
		free(p->args);
	}
	free(s->probes);
	for (size_t i = 0; i < s->n_checks; i++)
		free(s->checks[i]);
	free(s->checks);
	free(s->check_locs);
	for (size_t i = 0; i < s->n_params; i++) {
		free(s->params[i].name);
		free(s->params[i].value);
		free(s->params[i].description);
	}
	free(s->params);
	for (size_t i = 0; i < s->n_set_srcs; i++)
		free((char *)s->set_srcs[i].text);
	free(s->set_srcs);
	for (size_t i = 0; i < s->n_objects; i++)
		free(s->objects[i]);
	free(s->objects);
	free(s->name);
	free(s->description);
	free((char *)s->src.text);
	free(s->path);
	free(s);
}

/* Parses TEXT (LEN bytes, malloc'ed, taken over) as the spec at PATH. */
static spec *parse_owned(const char *path, char *text, size_t len, char *const *sets,
			 size_t n_sets)
{
	loader ld = { 0 };
	spec *s = calloc(1, sizeof(*s));
	node *root = NULL;
	bool broken = false;
	const char *nul;

	if (!s || !(s->path = strdup(path))) {
		free(s);
		free(text);
		diag_error(NULL, "out of memory");
		return NULL;
	}
	/* A UTF-8 byte order mark is dropped; positions count from after it. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		memmove(text, text + 3, len - 3);
		len -= 3;
		text[len] = '\0';
	}
	s->src = (diag_src){ s->path, text, len };
	ld.src = &s->src;

	if (len > SPEC_MAX_BYTES) {
		report(&ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL },
		       "specs are short text files; check that this is the right file",
		       "the spec is too large (%zu bytes; the limit is 1 MiB)", len);
	} else if (len >= 2 && ((unsigned char)text[0] == 0xff || (unsigned char)text[0] == 0xfe) &&
		   ((unsigned char)text[1] == 0xff || (unsigned char)text[1] == 0xfe)) {
		report(&ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL },
		       "save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)",
		       "the spec is UTF-16 text; specs must be UTF-8");
	} else if ((nul = memchr(text, '\0', len))) {
		size_t off = (size_t)(nul - text);
		report(&ld, DIAG_ERROR, diag_loc_of(&s->src, off, off + 1),
		       "specs are UTF-8 text; check that this is the right file",
		       "the spec contains a NUL byte");
	} else {
		root = build_tree(&ld, &broken);
		if (broken)
			;
		else if (!root || is_null(root))
			report(&ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL },
			       "a spec needs at least a 'probes:' list; see docs/spec.md",
			       "the spec is empty");
		else if (root->type == NODE_BAD)
			;
		else if (root->type != NODE_MAP)
			report(&ld, DIAG_ERROR, node_loc(&ld, root),
			       "start the file with keys such as 'name: ...' and 'probes:'",
			       "a spec must be a mapping of keys, not %s", type_name(root));
		else if (apply_parameters(&ld, s, root, sets, n_sets))
			check_top(&ld, s, root);
	}
	node_free(root);
	if (ld.dropped)
		diag_at(DIAG_NOTE, &s->src, (diag_loc){ 0, 0, 0, NULL }, NULL,
			"%u more errors not shown", ld.dropped);
	if (ld.errors || ld.dropped || broken) {
		spec_free(s);
		return NULL;
	}
	return s;
}

spec *spec_parse(const char *path, const char *text, size_t len)
{
	return spec_parse_set(path, text, len, NULL, 0);
}

spec *spec_load(const char *path)
{
	return spec_load_set(path, NULL, 0);
}

spec *spec_parse_set(const char *path, const char *text, size_t len, char *const *sets,
		     size_t n_sets)
{
	char *copy;

	if (len > SPEC_MAX_BYTES) {
		diag_src src = { path, NULL, 0 };
		diag_at(DIAG_ERROR, &src, (diag_loc){ 0, 0, 0, NULL },
			"specs are short text files; check that this is the right file",
			"the spec is too large (%zu bytes; the limit is 1 MiB)", len);
		return NULL;
	}
	copy = malloc(len + 1);
	if (!copy) {
		diag_error(NULL, "out of memory");
		return NULL;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	return parse_owned(path, copy, len, sets, n_sets);
}

spec *spec_load_set(const char *path, char *const *sets, size_t n_sets)
{
	struct stat st;
	char *text;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		diag_error(errno == ENOENT ? "check the path of the spec file"
					   : "check the file's permissions",
			   "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > SPEC_MAX_BYTES) {
		diag_src src = { path, NULL, 0 };
		close(fd);
		diag_at(DIAG_ERROR, &src, (diag_loc){ 0, 0, 0, NULL },
			"specs are short text files; check that this is the right file",
			"the spec is too large (%lld bytes; the limit is 1 MiB)",
			(long long)st.st_size);
		return NULL;
	}
	/* Read at most one byte past the limit: pipes have no size. */
	text = malloc(SPEC_MAX_BYTES + 2);
	if (!text) {
		close(fd);
		diag_error(NULL, "out of memory");
		return NULL;
	}
	while (len <= SPEC_MAX_BYTES) {
		ssize_t r = read(fd, text + len, SPEC_MAX_BYTES + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			diag_error(e == EISDIR ? "give the path of a .yaml file" : NULL,
				   "cannot read '%s': %s", path, strerror(e));
			free(text);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (len > SPEC_MAX_BYTES) {
		diag_src src = { path, NULL, 0 };
		free(text);
		diag_at(DIAG_ERROR, &src, (diag_loc){ 0, 0, 0, NULL },
			"specs are short text files; check that this is the right file",
			"the spec is too large (more than 1 MiB)");
		return NULL;
	}
	text[len] = '\0';
	return parse_owned(path, text, len, sets, n_sets);
}
