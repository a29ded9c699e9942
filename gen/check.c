/* check — runbook conditions on reports (see check.h, docs/spec.md#checks).
 *
 * A hand-written recursive-descent parser over the grammar of check.h:
 * one function per rule, each consuming from a cursor and failing with
 * "column N: what is wrong: what is expected".  Nothing is accepted that
 * the grammar does not describe: no spaces but around the operator, no
 * trailing text, no exponents, hex or signs on absolute values.  Values
 * are exact: durations are whole nanoseconds, counts whole numbers.
 * Evaluation reads the report model (report.h) only. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diag.h"
#include "systab.h"
#include "suggest.h"

#define CHECK_TEXT_MAX 256
#define NAME_MAX_LEN 32		/* probe names, as in specs */
#define SYSCALL_MAX_LEN 64	/* syscall names, as in specs */
#define ERRNO_MAX_LEN 16		/* longer than any errno name */
#define SHOW_MAX 32		/* words quoted in messages are cut to this */
#define WHY_DIGITS 4		/* significant digits of durations in WHY */

typedef enum {
	ST_COUNT, ST_SUM, ST_MIN, ST_MAX, ST_MEAN, ST_P50, ST_P90, ST_P99, ST_ERRORS, ST_LOST,
	N_STATS,
} check_stat;

static const char *const stat_names[N_STATS] = {
	"count", "sum", "min", "max", "mean", "p50", "p90", "p99", "errors", "lost",
};

typedef enum { OP_GT, OP_GE, OP_LT, OP_LE, OP_EQ, OP_NE } check_op;

static const char *const op_names[] = { ">", ">=", "<", "<=", "==", "!=" };
/* The operator that holds exactly when OP does not: WHY shows it. */
static const check_op op_negated[] = { OP_LE, OP_LT, OP_GE, OP_GT, OP_NE, OP_EQ };

#define STATS_ALL "count, sum, min, max, mean, p50, p90, p99, errors, errors.ENAME or lost"
#define STATS_SYSCALL "count, sum, min, max, mean, p50, p90, p99, errors or errors.ENAME"
#define OPERATORS "an operator (>, >=, <, <=, ==, !=)"

struct check {
	char *text;		/* as written */
	size_t path_len;	/* text[0, path_len) is the path: "poll.p99" */
	char *probe;
	char *syscall;		/* NULL: the probe as a whole */
	check_stat stat;
	char *errno_name;	/* errors.ENAME: "ENAME"; else NULL */
	check_op op;
	bool relative;
	double pct;		/* relative: the signed change in percent */
	uint64_t value;		/* absolute: nanoseconds (durations) or a count */
	size_t value_off, value_len;	/* the value as written */
};

/* ---- characters ---- */

static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_blank(char c) { return c == ' ' || c == '\t'; }
static bool is_word(char c) { return is_lower(c) || is_upper(c) || is_digit(c) || c == '_'; }

/* Durations are everything but count, errors and lost. */
static bool stat_is_duration(check_stat s)
{
	return s != ST_COUNT && s != ST_ERRORS && s != ST_LOST;
}

/* What a count statistic counts, for messages. */
static const char *stat_counts(check_stat s)
{
	return s == ST_COUNT ? "calls" : s == ST_ERRORS ? "failed calls" : "lost events";
}

/* ---- the parser ---- */

typedef struct parser {
	const char *text;
	size_t len;
	size_t pos;
	char *err;
	size_t errlen;
} parser;

/* The 1-based column of byte OFF: characters before it, plus one. */
static size_t column_of(const parser *p, size_t off)
{
	size_t col = 1;

	for (size_t i = 0; i < off && i < p->len; col++)
		i += diag_char_len(p->text + i, p->len - i);
	return col;
}

/* Writes "column N: MESSAGE" for byte OFF into the caller's buffer.
 * Returns -1, for `return fail(...)`. */
static int fail(parser *p, size_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(parser *p, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || p->errlen == 0)
		return -1;
	n = snprintf(p->err, p->errlen, "column %zu: ", column_of(p, off));
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Describes the character at OFF for messages: "'x'", "a space" ("space"
 * without ARTICLE), "the end of the text". */
static const char *describe_as(const parser *p, size_t off, bool article, char *buf, size_t size)
{
	unsigned char c = off < p->len ? (unsigned char)p->text[off] : 0;
	const char *a = article ? "a " : "";

	if (off >= p->len)
		snprintf(buf, size, "the end of the text");
	else if (c == ' ')
		snprintf(buf, size, "%sspace", a);
	else if (c == '\t')
		snprintf(buf, size, "%stab", a);
	else if (c > 0x20 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else if (c < 0x80)
		snprintf(buf, size, "%scontrol character", a);
	else
		snprintf(buf, size, "%snon-ASCII character", a);
	return buf;
}

static const char *describe(const parser *p, size_t off, char *buf, size_t size)
{
	return describe_as(p, off, true, buf, size);
}

/* A word of the text, quoted in messages: at most SHOW_MAX characters
 * (words hold ASCII only). */
static const char *word(const parser *p, size_t off, size_t len, char *buf, size_t size)
{
	if (len > SHOW_MAX)
		snprintf(buf, size, "%.*s...", SHOW_MAX, p->text + off);
	else
		snprintf(buf, size, "%.*s", (int)len, p->text + off);
	return buf;
}

/* Reads a word ([A-Za-z0-9_]*) at the cursor; returns its length. */
static size_t scan_word(parser *p)
{
	size_t start = p->pos;

	while (p->pos < p->len && is_word(p->text[p->pos]))
		p->pos++;
	return p->pos - start;
}

/* The word at OFF (LEN bytes) is [a-z][a-z0-9_]*. */
static bool lower_name_ok(const parser *p, size_t off, size_t len)
{
	if (len == 0 || !is_lower(p->text[off]))
		return false;
	for (size_t i = 1; i < len; i++)
		if (is_upper(p->text[off + i]))
			return false;
	return true;
}

static int stat_lookup(const parser *p, size_t off, size_t len)
{
	for (int i = 0; i < N_STATS; i++)
		if (strlen(stat_names[i]) == len && memcmp(stat_names[i], p->text + off, len) == 0)
			return i;
	return -1;
}


/* probe := [a-z][a-z0-9_]{0,31} */
static int parse_probe(parser *p, check *c)
{
	size_t start = p->pos, len;
	char buf[64], what[32];

	if (p->pos < p->len && is_blank(p->text[p->pos]))
		return fail(p, p->pos, "unexpected %s at the start: a condition begins with a "
			    "probe name, as in 'poll.p99 > 100ms'",
			    describe_as(p, p->pos, false, what, sizeof(what)));
	len = scan_word(p);
	if (len == 0)
		return fail(p, start, "expected a probe name (a lowercase letter, then lowercase "
			    "letters, digits or '_'), not %s", describe(p, start, what, sizeof(what)));
	if (!lower_name_ok(p, start, len))
		return fail(p, start, "invalid probe name '%s': a probe name is a lowercase letter, "
			    "then lowercase letters, digits or '_'", word(p, start, len, buf, sizeof(buf)));
	if (len > NAME_MAX_LEN)
		return fail(p, start, "probe name '%s' is too long (at most %d characters)",
			    word(p, start, len, buf, sizeof(buf)), NAME_MAX_LEN);
	c->probe = strndup(p->text + start, len);
	if (!c->probe)
		return fail(p, start, "out of memory");
	if (p->pos >= p->len || p->text[p->pos] != '.')
		return fail(p, p->pos, "expected '.' and a statistic after probe '%s', as in '%s.p99', "
			    "not %s", c->probe, c->probe, describe(p, p->pos, what, sizeof(what)));
	p->pos++;
	return 0;
}

/* ERRNO := E[A-Z0-9]*, a name this architecture knows or E<number> (the
 * name reports give an errno they cannot name).  The cursor is past
 * "errors.". */
static int parse_errno(parser *p, check *c)
{
	size_t start = p->pos, len = scan_word(p), best = 3;
	const char *guess = NULL;
	char buf[64], what[32];
	bool known = false, numeric = len > 1;

	if (len == 0)
		return fail(p, start, "expected an errno name after 'errors.', such as ENOENT or "
			    "EAGAIN, not %s", describe(p, start, what, sizeof(what)));
	if (p->text[start] != 'E') {
		return fail(p, start, "invalid errno name '%s': errno names are uppercase and start "
			    "with 'E', as in ENOENT", word(p, start, len, buf, sizeof(buf)));
	}
	for (size_t i = 1; i < len; i++) {
		char ch = p->text[start + i];
		if (!is_upper(ch) && !is_digit(ch))
			return fail(p, start, "invalid errno name '%s': errno names are uppercase "
				    "letters and digits, as in ENOENT",
				    word(p, start, len, buf, sizeof(buf)));
		if (!is_digit(ch))
			numeric = false;
	}
	for (size_t i = 0; i < systab_n_errnos && !known; i++) {
		const char *name = systab_errnos[i].name;
		size_t d;
		if (strlen(name) == len && memcmp(name, p->text + start, len) == 0) {
			known = true;
			break;
		}
		d = suggest_distance(p->text + start, len, name, strlen(name));
		if (d < best) {
			best = d;
			guess = name;
		}
	}
	if (len > ERRNO_MAX_LEN)
		return fail(p, start, "errno name '%s' is too long (at most %d characters)",
			    word(p, start, len, buf, sizeof(buf)), ERRNO_MAX_LEN);
	if (!known && !numeric) {
		if (guess)
			return fail(p, start, "unknown errno '%s': did you mean %s?",
				    word(p, start, len, buf, sizeof(buf)), guess);
		return fail(p, start, "unknown errno '%s': use a name from errno(3), such as "
			    "ENOENT or EAGAIN", word(p, start, len, buf, sizeof(buf)));
	}
	c->errno_name = strndup(p->text + start, len);
	return c->errno_name ? 0 : fail(p, start, "out of memory");
}

/* After PROBE ".": stat | syscall "." stat, where a stat may be
 * errors "." ERRNO. */
static int parse_stat_path(parser *p, check *c)
{
	size_t start = p->pos, len = scan_word(p);
	char buf[64], what[32];
	int st;

	if (len == 0)
		return fail(p, start, "expected a statistic after '%s.', not %s: use " STATS_ALL,
			    c->probe, describe(p, start, what, sizeof(what)));
	st = stat_lookup(p, start, len);
	if (st < 0 && p->pos < p->len && p->text[p->pos] == '.') {
		/* PROBE.SYSCALL.STAT */
		if (!lower_name_ok(p, start, len))
			return fail(p, start, "invalid syscall name '%s': syscall names are lowercase, "
				    "as in 'openat'", word(p, start, len, buf, sizeof(buf)));
		if (len > SYSCALL_MAX_LEN)
			return fail(p, start, "syscall name '%s' is too long (at most %d characters)",
				    word(p, start, len, buf, sizeof(buf)), SYSCALL_MAX_LEN);
		c->syscall = strndup(p->text + start, len);
		if (!c->syscall)
			return fail(p, start, "out of memory");
		p->pos++;
		start = p->pos;
		len = scan_word(p);
		if (len == 0)
			return fail(p, start, "expected a statistic after '%s.%s.', not %s: use "
				    STATS_SYSCALL, c->probe, c->syscall,
				    describe(p, start, what, sizeof(what)));
		st = stat_lookup(p, start, len);
		if (st == ST_LOST)
			return fail(p, start, "'lost' counts the events the whole report lost, not a "
				    "syscall's: write '%s.lost'", c->probe);
		if (st < 0)
			return fail(p, start, "unknown statistic '%s' of syscall '%s': use "
				    STATS_SYSCALL, word(p, start, len, buf, sizeof(buf)), c->syscall);
	} else if (st < 0) {
		if (lower_name_ok(p, start, len) && len <= SYSCALL_MAX_LEN) {
			char name[SYSCALL_MAX_LEN + 1];
			memcpy(name, p->text + start, len);
			name[len] = '\0';
			if (systab_syscall_nr(name) >= 0)
				return fail(p, p->pos, "expected '.' and a statistic after syscall '%s', "
					    "as in '%s.%s.p99'", name, c->probe, name);
		}
		return fail(p, start, "unknown statistic '%s': use " STATS_ALL,
			    word(p, start, len, buf, sizeof(buf)));
	}
	c->stat = (check_stat)st;
	if (p->pos < p->len && p->text[p->pos] == '.') {
		if (st != ST_ERRORS)
			return fail(p, p->pos, "unexpected '.' after the statistic '%s'%s",
				    stat_names[st], c->syscall ? "" :
				    ": a syscall is named before its statistic, as in 'io.read.p99'");
		p->pos++;
		return parse_errno(p, c);
	}
	return 0;
}

static void skip_blanks(parser *p)
{
	while (p->pos < p->len && is_blank(p->text[p->pos]))
		p->pos++;
}

/* op := ">" | ">=" | "<" | "<=" | "==" | "!=" */
static int parse_op(parser *p, check *c)
{
	const char *t = p->text + p->pos;
	size_t left = p->len - p->pos;
	char what[32];

	if (left == 0)
		return fail(p, p->pos, "expected " OPERATORS " and a value after '%.*s'",
			    (int)c->path_len, p->text);
	if (left >= 3 && t[0] == '\xe2' && t[1] == '\x89' &&
	    (t[2] == '\xa5' || t[2] == '\xa4' || t[2] == '\xa0'))
		return fail(p, p->pos, "write '%s' for '%.3s'",
			    t[2] == '\xa5' ? ">=" : t[2] == '\xa4' ? "<=" : "!=", t);
	if (left >= 2 && t[0] == '<' && t[1] == '>')
		return fail(p, p->pos, "'<>' is not an operator: write '!='");
	if (left >= 2 && t[0] == '=' && (t[1] == '>' || t[1] == '<'))
		return fail(p, p->pos, "'=%c' is not an operator: write '%c='", t[1], t[1]);
	if (t[0] == '=' && (left < 2 || t[1] != '='))
		return fail(p, p->pos, "'=' is not an operator: write '==' to compare");
	if (t[0] == '!' && (left < 2 || t[1] != '='))
		return fail(p, p->pos, "expected '!=' (not equal), not '!' alone");
	switch (t[0]) {
	case '>':
		c->op = left >= 2 && t[1] == '=' ? OP_GE : OP_GT;
		break;
	case '<':
		c->op = left >= 2 && t[1] == '=' ? OP_LE : OP_LT;
		break;
	case '=':
		c->op = OP_EQ;
		break;
	case '!':
		c->op = OP_NE;
		break;
	default:
		return fail(p, p->pos, "expected " OPERATORS " after '%.*s', not %s",
			    (int)c->path_len, p->text, describe(p, p->pos, what, sizeof(what)));
	}
	p->pos += strlen(op_names[c->op]);
	return 0;
}

/* number := digits ["." digits].  Sets *INT_LEN and *FRAC_LEN (0 when
 * there is no fraction; the '.' is then absent). */
static int scan_number(parser *p, const check *c, size_t *int_len, size_t *frac_len)
{
	size_t start = p->pos;
	char what[32];

	while (p->pos < p->len && is_digit(p->text[p->pos]))
		p->pos++;
	*int_len = p->pos - start;
	*frac_len = 0;
	if (*int_len == 0) {
		if (p->pos < p->len && p->text[p->pos] == '.')
			return fail(p, p->pos, "write a digit before the '.', as in 0.5");
		return fail(p, p->pos, "expected a number after '%s', not %s", op_names[c->op],
			    describe(p, p->pos, what, sizeof(what)));
	}
	if (p->pos < p->len && p->text[p->pos] == '.') {
		size_t dot = ++p->pos;
		while (p->pos < p->len && is_digit(p->text[p->pos]))
			p->pos++;
		*frac_len = p->pos - dot;
		if (*frac_len == 0)
			return fail(p, p->pos, "expected digits after '.', not %s",
				    describe(p, p->pos, what, sizeof(what)));
	}
	return 0;
}

/* ("+"|"-") number "%", the cursor on the sign. */
static int parse_relative(parser *p, check *c)
{
	size_t sign = p->pos, int_len, frac_len;
	char num[CHECK_TEXT_MAX + 1], *end, what[32], buf[64];
	double v;

	p->pos++;
	if (scan_number(p, c, &int_len, &frac_len) < 0)
		return -1;
	if (p->pos >= p->len || p->text[p->pos] != '%') {
		if (p->pos < p->len && is_lower(p->text[p->pos]))
			return fail(p, p->pos, "a signed value is a relative change in percent: write "
				    "%s%%, or drop the sign for an absolute value",
				    word(p, sign, p->pos - sign, buf, sizeof(buf)));
		return fail(p, p->pos, "expected '%%' after '%s': a signed value is a relative "
			    "change, as in +20%%, not %s", word(p, sign, p->pos - sign, buf, sizeof(buf)),
			    describe(p, p->pos, what, sizeof(what)));
	}
	/* The span is digits and at most one '.': nothing strtod could
	 * read differently (no hex, exponent, inf, nan or spaces). */
	memcpy(num, p->text + sign + 1, p->pos - sign - 1);
	num[p->pos - sign - 1] = '\0';
	errno = 0;
	v = strtod(num, &end);
	if (*end || errno == ERANGE || !isfinite(v))
		return fail(p, sign + 1, "the change '%s' is too large",
			    word(p, sign + 1, p->pos - sign - 1, buf, sizeof(buf)));
	if (p->text[sign] == '-' && v > 100)
		return fail(p, sign, "a value cannot shrink by more than 100%%: use -100%% at most");
	p->pos++;
	c->relative = true;
	c->pct = p->text[sign] == '-' ? -v : v;
	return 0;
}

/* The unit word at the cursor: ns us ms s (a letter run). */
static int parse_unit(parser *p, check *c, uint64_t *mult)
{
	static const struct { const char *name; uint64_t mult; } units[] = {
		{ "ns", 1 }, { "us", 1000ULL }, { "ms", 1000000ULL }, { "s", 1000000000ULL },
	};
	size_t start = p->pos, len;
	char buf[64];

	*mult = 1;
	/* "µs" (U+00B5) and "μs" (U+03BC): say what to write instead. */
	if (p->len - p->pos >= 3 &&
	    (memcmp(p->text + p->pos, "\xc2\xb5s", 3) == 0 ||
	     memcmp(p->text + p->pos, "\xce\xbcs", 3) == 0))
		return fail(p, p->pos, "write microseconds as 'us'");
	while (p->pos < p->len && (is_lower(p->text[p->pos]) || is_upper(p->text[p->pos])))
		p->pos++;
	len = p->pos - start;
	if (len == 0)
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strlen(units[i].name) != len || memcmp(units[i].name, p->text + start, len) != 0)
			continue;
		if (!stat_is_duration(c->stat))
			return fail(p, start, "'%s' is a number of %s, not a duration: remove the "
				    "unit '%s'", stat_names[c->stat], stat_counts(c->stat),
				    units[i].name);
		*mult = units[i].mult;
		return 0;
	}
	return fail(p, start, "unknown unit '%s': use ns, us, ms or s",
		    word(p, start, len, buf, sizeof(buf)));
}

/* number [unit], the cursor on the first digit. */
static int parse_absolute(parser *p, check *c)
{
	size_t start = p->pos, int_len, frac_len, frac_off, unit_off;
	uint64_t whole, mult, frac = 0, den = 1, unit_ns;
	char num[CHECK_TEXT_MAX + 1], *end, buf[64];
	const char *big = stat_is_duration(c->stat)
				  ? "the largest duration is 18446744073709551615ns, about 584 years"
				  : "the largest count is 18446744073709551615";

	if (scan_number(p, c, &int_len, &frac_len) < 0)
		return -1;
	frac_off = start + int_len + 1;
	if (p->pos < p->len && p->text[p->pos] == '%')
		return fail(p, start, "a relative change needs its sign: write +%s%% (grew by "
			    "more than that) or -%s%% (shrank)",
			    word(p, start, p->pos - start, buf, sizeof(buf)),
			    word(p, start, p->pos - start, buf, sizeof(buf)));
	unit_off = p->pos;
	if (parse_unit(p, c, &mult) < 0)
		return -1;
	if (frac_len && !stat_is_duration(c->stat))
		return fail(p, frac_off - 1, "'%s' is a whole number of %s: remove the fraction",
			    stat_names[c->stat], stat_counts(c->stat));

	memcpy(num, p->text + start, int_len);
	num[int_len] = '\0';
	errno = 0;
	whole = strtoull(num, &end, 10);
	if (*end || errno == ERANGE || whole > UINT64_MAX / mult)
		return fail(p, start, "the value '%s' is too large: %s",
			    word(p, start, p->pos - start, buf, sizeof(buf)), big);
	/* The fraction as FRAC / DEN, trailing zeros dropped; MULT * FRAC /
	 * DEN must be a whole number of nanoseconds. */
	while (frac_len && p->text[frac_off + frac_len - 1] == '0')
		frac_len--;
	if (frac_len > 9)
		goto not_whole;
	for (size_t i = 0; i < frac_len; i++) {
		frac = frac * 10 + (uint64_t)(p->text[frac_off + i] - '0');
		den *= 10;
	}
	unit_ns = mult;
	if ((frac * unit_ns) % den)
		goto not_whole;
	frac = frac * unit_ns / den;	/* < 1e18: no overflow */
	whole *= unit_ns;
	if (whole > UINT64_MAX - frac)
		return fail(p, start, "the value '%s' is too large: %s",
			    word(p, start, p->pos - start, buf, sizeof(buf)), big);
	c->value = whole + frac;
	return 0;
not_whole:
	return fail(p, start, "'%s' is not a whole number of nanoseconds%s",
		    word(p, start, p->pos - start, buf, sizeof(buf)),
		    unit_off == p->pos ? " (a value without a unit is in ns)" : "");
}

/* value := number [unit] | ("+"|"-") number "%" */
static int parse_value(parser *p, check *c)
{
	char what[32], buf[64];
	int rc;

	skip_blanks(p);
	c->value_off = p->pos;
	if (p->pos >= p->len)
		return fail(p, p->pos, "expected a value after '%s', such as %s or +20%%",
			    op_names[c->op], stat_is_duration(c->stat) ? "100ms" : "5");
	if (p->text[p->pos] == '+' || p->text[p->pos] == '-')
		rc = parse_relative(p, c);
	else
		rc = parse_absolute(p, c);
	if (rc < 0)
		return -1;
	c->value_len = p->pos - c->value_off;
	if (p->pos >= p->len)
		return 0;

	/* Something follows the value. */
	if (is_blank(p->text[p->pos])) {
		size_t blank = p->pos;
		skip_blanks(p);
		if (p->pos >= p->len)
			return fail(p, blank, "unexpected space after the value: remove it");
		if (!c->relative && stat_is_duration(c->stat) &&
		    !is_lower(p->text[c->value_off + c->value_len - 1])) {
			size_t w = p->pos;
			while (w < p->len && is_lower(p->text[w]))
				w++;
			if (w == p->len &&
			    (w - p->pos == 1 ? p->text[p->pos] == 's'
			     : w - p->pos == 2 && strchr("num", p->text[p->pos]) &&
			       p->text[p->pos + 1] == 's'))
				return fail(p, blank, "remove the space between the number and its "
					    "unit: write %s%s",
					    word(p, c->value_off, c->value_len, buf, sizeof(buf)),
					    p->text + p->pos);
		}
		return fail(p, p->pos, "unexpected text after the value '%s': a condition ends "
			    "with its value (one condition per check)",
			    word(p, c->value_off, c->value_len, buf, sizeof(buf)));
	}
	return fail(p, p->pos, "unexpected %s after the value '%s': a condition ends with its "
		    "value", describe_as(p, p->pos, false, what, sizeof(what)),
		    word(p, c->value_off, c->value_len, buf, sizeof(buf)));
}

void check_free(check *c)
{
	if (!c)
		return;
	free(c->text);
	free(c->probe);
	free(c->syscall);
	free(c->errno_name);
	free(c);
}

check *check_parse(const char *text, char *err, size_t errlen)
{
	parser p = { .text = text ? text : "", .err = err, .errlen = errlen };
	check *c;

	if (err && errlen)
		err[0] = '\0';
	p.len = strnlen(p.text, CHECK_TEXT_MAX + 1);
	if (p.len == 0) {
		fail(&p, 0, "the condition is empty: write PROBE.STAT OP VALUE, as in "
		     "'poll.p99 > 100ms'");
		return NULL;
	}
	if (p.len > CHECK_TEXT_MAX) {
		p.len = strlen(p.text);
		fail(&p, CHECK_TEXT_MAX, "the condition is too long (%zu bytes; at most %d)",
		     p.len, CHECK_TEXT_MAX);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->text = strdup(p.text))) {
		free(c);
		fail(&p, 0, "out of memory");
		return NULL;
	}
	if (parse_probe(&p, c) < 0 || parse_stat_path(&p, c) < 0) {
		check_free(c);
		return NULL;
	}
	c->path_len = p.pos;
	skip_blanks(&p);
	if (parse_op(&p, c) < 0 || parse_value(&p, c) < 0) {
		check_free(c);
		return NULL;
	}
	return c;
}

const char *check_text(const check *c)
{
	return c ? c->text : NULL;
}

bool check_is_relative(const check *c)
{
	return c && c->relative;
}

/* ---- evaluation ---- */

/* Writes into WHY (LEN bytes, may be NULL). */
static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* A statistic's value, exactly: Q + R/DEN nanoseconds or calls (R <
 * DEN).  Only mean has a fraction; comparisons stay in integers, so that
 * "p99 > 18446744073709551614" is decided on every platform alike. */
typedef struct value {
	uint64_t q, r, den;
} value;

static value value_of(uint64_t v)
{
	return (value){ v, 0, 1 };
}

/* -1, 0 or 1 as V is below, at or above T. */
static int value_cmp(value v, uint64_t t)
{
	if (v.q != t)
		return v.q < t ? -1 : 1;
	return v.r ? 1 : 0;
}

static double value_double(value v)
{
	return (double)v.q + (double)v.r / (double)v.den;
}

/* Writes duration NS (>= 0) with DIGITS significant digits, in the
 * largest unit (ns, us, ms, s) that keeps it at least 1: "132.4ms". */
static void format_duration(double ns, int digits, char *buf, size_t size)
{
	static const struct { const char *name; double div; } units[] = {
		{ "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	size_t u = 0;

	while (u + 1 < 4 && ns >= units[u + 1].div)
		u++;
	for (;;) {
		double v = ns / units[u].div;
		int whole = 1, decimals;
		char *dot, *end;

		for (double t = 10; v >= t && whole < 40; t *= 10)
			whole++;
		decimals = digits > whole ? digits - whole : 0;
		snprintf(buf, size, "%.*f", decimals, v);
		/* 999.96us rounds to 1000us: say 1ms. */
		if (u + 1 < 4 && strtod(buf, NULL) >= 1000) {
			u++;
			continue;
		}
		dot = strchr(buf, '.');
		if (dot) {
			end = buf + strlen(buf);
			while (end > dot + 1 && end[-1] == '0')
				*--end = '\0';
			if (end == dot + 1)
				*dot = '\0';
		}
		strncat(buf, units[u].name, size - strlen(buf) - 1);
		return;
	}
}

/* Writes V (a duration in ns, or a count) for WHY. */
static void format_value(const check *c, value v, int digits, char *buf, size_t size)
{
	if (stat_is_duration(c->stat))
		format_duration(value_double(v), digits, buf, size);
	else
		snprintf(buf, size, "%llu", (unsigned long long)v.q);
}

/* Writes V and the threshold T so that they read differently when they
 * differ: more digits when the first try shows the same text for both. */
static void format_pair(const check *c, value v, uint64_t t, char *vbuf, char *tbuf,
			size_t size)
{
	for (int digits = WHY_DIGITS; digits <= 18; digits += 2) {
		format_value(c, v, digits, vbuf, size);
		format_value(c, value_of(t), digits, tbuf, size);
		if (value_cmp(v, t) == 0 || strcmp(vbuf, tbuf) != 0)
			return;
	}
}

/* Whether "A op B" holds, given CMP: -1, 0 or 1 as A is below, at or
 * above B. */
static bool holds_for(int cmp, check_op op)
{
	switch (op) {
	case OP_GT: return cmp > 0;
	case OP_GE: return cmp >= 0;
	case OP_LT: return cmp < 0;
	case OP_LE: return cmp <= 0;
	case OP_EQ: return cmp == 0;
	default: return cmp != 0;
	}
}

static const report_probe *find_probe(const report *rep, const char *name)
{
	for (size_t i = 0; i < rep->n_probes; i++)
		if (rep->probes[i].name && strcmp(rep->probes[i].name, name) == 0)
			return &rep->probes[i];
	return NULL;
}

static bool kind_is(const report_probe *p, const char *kind)
{
	return p->kind && strcmp(p->kind, kind) == 0;
}

/* Errors of syscall SC: all of them, or those of errno NAME (0 when that
 * errno does not appear). */
static uint64_t syscall_errors(const report_syscall *sc, const char *name)
{
	uint64_t n = 0;

	if (!name)
		return sc->error_count;
	for (size_t i = 0; i < sc->n_errors; i++)
		if (sc->errors[i].name && strcmp(sc->errors[i].name, name) == 0)
			n += sc->errors[i].count;
	return n;
}

/* Reads statistic S of ST (WHAT names its owner for "recorded no calls"). */
static int stats_value(const check *c, const report_stats *st, const char *what,
		       value *out, char *why, size_t len)
{
	switch (c->stat) {
	case ST_COUNT:
		*out = value_of(st->count);
		return 0;
	case ST_SUM:
		*out = value_of(st->sum_ns);
		return 0;
	default:
		break;
	}
	if (st->count == 0) {
		/* No calls: nothing was slow.  A runbook's "p99 > 100ms" passes,
		 * it does not break the run. */
		(void)what;
		(void)why;
		(void)len;
		*out = value_of(0);
		return 0;
	}
	switch (c->stat) {
	case ST_MIN: *out = value_of(st->min_ns); break;
	case ST_MAX: *out = value_of(st->max_ns); break;
	case ST_MEAN:
		*out = (value){ st->sum_ns / st->count, st->sum_ns % st->count, st->count };
		break;
	case ST_P50: *out = value_of(st->p50_ns); break;
	case ST_P90: *out = value_of(st->p90_ns); break;
	default: *out = value_of(st->p99_ns); break;
	}
	return 0;
}

/* The value C's path names in REP.  Returns 0, or -1 with WHY. */
static int path_value(const check *c, const report *rep, value *out, char *why,
		      size_t len)
{
	const report_probe *p;
	char what[128];

	if (!rep) {
		say(why, len, "there is no report to check");
		return -1;
	}
	p = find_probe(rep, c->probe);
	if (!p) {
		/* Name the probes it has: a one-liner's probe is named after
		 * its function, but made a valid name (ns::f -> ns_f). */
		size_t n = 0;
		say(why, len, "probe '%s' is not in the report", c->probe);
		for (size_t i = 0; why && rep->probes && i < rep->n_probes; i++) {
			n = strlen(why);
			if (n + 1 >= len)
				break;
			snprintf(why + n, len - n, "%s%s", i ? ", " : " (its probes: ",
				 rep->probes[i].name);
		}
		n = why ? strlen(why) : 0;
		if (rep->n_probes && n + 1 < len)
			snprintf(why + n, len - n, ")");
		return -1;
	}
	if (c->stat == ST_LOST) {
		*out = value_of(rep->lost_events);
		return 0;
	}
	if (!p->attached) {
		if (p->reason)
			say(why, len, "probe '%s' was not attached: %s", c->probe, p->reason);
		else
			say(why, len, "probe '%s' was not attached", c->probe);
		return -1;
	}
	if (kind_is(p, "events") || kind_is(p, "count")) {
		if (c->syscall || c->stat != ST_COUNT) {
			say(why, len, "probe '%s' is %s probe: only its count of %s (%s.count) and "
			    "lost can be checked, not %.*s", c->probe,
			    kind_is(p, "count") ? "a count" : "an events",
			    kind_is(p, "count") ? "hits" : "slow calls", c->probe,
			    (int)c->path_len, c->text);
			return -1;
		}
		*out = value_of(p->st.count);
		return 0;
	}
	if (!kind_is(p, "syscalls")) {
		const char *kind = p->kind ? p->kind : "latency";
		if (c->syscall) {
			say(why, len, "probe '%s' is a %s probe: it has no syscalls", c->probe, kind);
			return -1;
		}
		if (c->stat == ST_ERRORS) {
			say(why, len, "probe '%s' is a %s probe: errors are counted by syscalls probes",
			    c->probe, kind);
			return -1;
		}
		snprintf(what, sizeof(what), "probe '%s'", c->probe);
		return stats_value(c, &p->st, what, out, why, len);
	}
	if (c->syscall) {
		const report_syscall *sc = NULL;
		for (size_t i = 0; i < p->n_syscalls && !sc; i++)
			if (p->syscalls[i].name && strcmp(p->syscalls[i].name, c->syscall) == 0)
				sc = &p->syscalls[i];
		if (!sc) {
			/* Never called in the window: every statistic is 0. */
			*out = value_of(0);
			return 0;
		}
		if (c->stat == ST_ERRORS) {
			*out = value_of(syscall_errors(sc, c->errno_name));
			return 0;
		}
		snprintf(what, sizeof(what), "syscall '%s' of probe '%s'", c->syscall, c->probe);
		return stats_value(c, &sc->st, what, out, why, len);
	}
	if (c->stat == ST_ERRORS) {
		uint64_t n = 0;
		for (size_t i = 0; i < p->n_syscalls; i++)
			n += syscall_errors(&p->syscalls[i], c->errno_name);
		*out = value_of(n);
		return 0;
	}
	snprintf(what, sizeof(what), "probe '%s'", c->probe);
	return stats_value(c, &p->st, what, out, why, len);
}

int check_eval(const check *c, const report *rep, char *why, size_t len)
{
	char vbuf[64], tbuf[64];
	value v;
	bool holds;

	if (why && len)
		why[0] = '\0';
	if (!c) {
		say(why, len, "no check");
		return -1;
	}
	if (c->relative) {
		say(why, len, "'%s' is a relative change: it compares two reports (use it with "
		    "a diff)", c->text);
		return -1;
	}
	if (path_value(c, rep, &v, why, len) < 0)
		return -1;
	holds = holds_for(value_cmp(v, c->value), c->op);
	format_pair(c, v, c->value, vbuf, tbuf, sizeof(vbuf));
	say(why, len, "%.*s = %s %s %s", (int)c->path_len, c->text, vbuf,
	    op_names[holds ? c->op : op_negated[c->op]], tbuf);
	return holds;
}

int check_eval_diff(const check *c, const report *before, const report *after, char *why,
		    size_t len)
{
	char bbuf[64], abuf[64], change[64], sub[256];
	value b, a;
	double pct = 0;
	bool holds, from_zero = false;

	if (!c || !c->relative)
		return check_eval(c, after, why, len);
	if (why && len)
		why[0] = '\0';
	if (path_value(c, before, &b, sub, sizeof(sub)) < 0) {
		say(why, len, "in the before report: %s", sub);
		return -1;
	}
	if (path_value(c, after, &a, sub, sizeof(sub)) < 0) {
		say(why, len, "in the after report: %s", sub);
		return -1;
	}
	/* From 0, any growth is more than any percentage; 0 to 0 is none. */
	if (b.q == 0 && b.r == 0)
		from_zero = a.q > 0 || a.r > 0;
	else
		pct = (value_double(a) - value_double(b)) * 100 / value_double(b);
	holds = holds_for(from_zero ? 1 : pct < c->pct ? -1 : pct > c->pct ? 1 : 0, c->op);
	format_value(c, b, WHY_DIGITS, bbuf, sizeof(bbuf));
	format_value(c, a, WHY_DIGITS, abuf, sizeof(abuf));
	if (from_zero) {
		snprintf(change, sizeof(change), "grew from 0");
	} else {
		snprintf(change, sizeof(change), "%+.1f%%", pct);
		/* +20.0% > +20%: show the digits that make the difference. */
		if (pct != c->pct && pct - c->pct < 0.05 && c->pct - pct < 0.05)
			snprintf(change, sizeof(change), "%+.4f%%", pct);
	}
	say(why, len, "%.*s = %s → %s (%s) %s %.*s", (int)c->path_len, c->text, bbuf, abuf,
	    change, op_names[holds ? c->op : op_negated[c->op]], (int)c->value_len,
	    c->text + c->value_off);
	return holds;
}
