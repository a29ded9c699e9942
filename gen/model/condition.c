/* condition — runbook conditions on reports (see condition.h, docs/spec.md#checks):
 * the parser.  Evaluation on reports is condition_eval.c.
 *
 * A hand-written recursive-descent parser over the grammar of condition.h:
 * one function per rule, each consuming from a cursor and failing with
 * "column N: what is wrong: what is expected".  Nothing is accepted that
 * the grammar does not describe: no spaces but around the operator, no
 * trailing text, no exponents, hex or signs on absolute values.  Values
 * are exact: durations are whole nanoseconds, counts whole numbers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/condition_internal.h"
#include "util/diag.h"
#include "util/suggest.h"
#include "util/systab.h"
#include "util/units.h"

#define CHECK_TEXT_MAX 256
#define NAME_MAX_LEN 32		/* probe names, as in specs */
#define SYSCALL_MAX_LEN 64	/* syscall names, as in specs */
#define ERRNO_MAX_LEN 16		/* longer than any errno name */
#define SHOW_MAX 32		/* words quoted in messages are cut to this */

static const char *const stat_names[N_STATS] = {
	"count", "sum", "min", "max", "mean", "p50", "p90", "p99", "errors", "lost",
};

const char *const check_op_names[] = { ">", ">=", "<", "<=", "==", "!=" };
const condition_op check_op_negated[] = { OP_LE, OP_LT, OP_GE, OP_GT, OP_NE, OP_EQ };

#define STATS_ALL "count, sum, min, max, mean, p50, p90, p99, errors, errors.ENAME or lost"
#define STATS_SYSCALL "count, sum, min, max, mean, p50, p90, p99, errors or errors.ENAME"
#define OPERATORS "an operator (>, >=, <, <=, ==, !=)"

/* ---- characters ---- */

static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_blank(char c) { return c == ' ' || c == '\t'; }
static bool is_word(char c) { return is_lower(c) || is_upper(c) || is_digit(c) || c == '_'; }

bool condition_stat_is_duration(condition_stat s)
{
	return s != ST_COUNT && s != ST_ERRORS && s != ST_LOST;
}

/* What a count statistic counts, for messages. */
static const char *stat_counts(condition_stat s)
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


/* route := "[" [METHOD " "] ROUTE "]": printable ASCII but ']', as an
 * http probe's report writes its routes.  The cursor is on '['. */
static int parse_route(parser *p, condition *c)
{
	size_t start = ++p->pos;
	char what[32];

	while (p->pos < p->len && p->text[p->pos] != ']') {
		unsigned char ch = (unsigned char)p->text[p->pos];
		if (ch < 0x20 || ch > 0x7e)
			return fail(p, p->pos, "unexpected %s in the route: a route is printable "
				    "text, as in '%s[GET /users/:id].p99'",
				    describe_as(p, p->pos, false, what, sizeof(what)), c->probe);
		p->pos++;
	}
	if (p->pos >= p->len)
		return fail(p, start - 1, "the route after '%s' has no closing ']', as in "
			    "'%s[/users/:id].p99'", c->probe, c->probe);
	if (p->pos == start || p->text[start] == ' ' || p->text[p->pos - 1] == ' ')
		return fail(p, start, "expected a route between the brackets, [ROUTE] or "
			    "[METHOD ROUTE], as in '%s[GET /users/:id].p99'", c->probe);
	c->route = strndup(p->text + start, p->pos - start);
	if (!c->route)
		return fail(p, start, "out of memory");
	p->pos++;
	return 0;
}

/* probe := [a-z][a-z0-9_]{0,31} [route] */
static int parse_probe(parser *p, condition *c)
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
	if (p->pos < p->len && p->text[p->pos] == '[' && parse_route(p, c) < 0)
		return -1;
	if (p->pos >= p->len || p->text[p->pos] != '.')
		return fail(p, p->pos, "expected '.' and a statistic after probe '%s', as in '%s.p99', "
			    "not %s", c->probe, c->probe, describe(p, p->pos, what, sizeof(what)));
	p->pos++;
	return 0;
}

/* ERRNO := E[A-Z0-9]*, a name this architecture knows or E<number> (the
 * name reports give an errno they cannot name).  The cursor is past
 * "errors.". */
static int parse_errno(parser *p, condition *c)
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
static int parse_stat_path(parser *p, condition *c)
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
	c->stat = (condition_stat)st;
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
static int parse_op(parser *p, condition *c)
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
	p->pos += strlen(check_op_names[c->op]);
	return 0;
}

/* number := digits ["." digits].  Sets *INT_LEN and *FRAC_LEN (0 when
 * there is no fraction; the '.' is then absent). */
static int scan_number(parser *p, const condition *c, size_t *int_len, size_t *frac_len)
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
		return fail(p, p->pos, "expected a number after '%s', not %s", check_op_names[c->op],
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
static int parse_relative(parser *p, condition *c)
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
static int parse_unit(parser *p, condition *c, uint64_t *mult)
{
	size_t start = p->pos, len;
	time_unit u;
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
	if (unit_lookup(p->text + start, len, &u) == 0) {
		if (!condition_stat_is_duration(c->stat))
			return fail(p, start, "'%s' is a number of %s, not a duration: remove the "
				    "unit '%s'", stat_names[c->stat], stat_counts(c->stat),
				    unit_name(u));
		*mult = unit_ns(u);
		return 0;
	}
	return fail(p, start, "unknown unit '%s': use ns, us, ms or s",
		    word(p, start, len, buf, sizeof(buf)));
}

/* number [unit], the cursor on the first digit. */
static int parse_absolute(parser *p, condition *c)
{
	size_t start = p->pos, int_len, frac_len, frac_off, unit_off;
	uint64_t whole, mult, frac = 0, den = 1, unit_ns;
	char num[CHECK_TEXT_MAX + 1], *end, buf[64];
	const char *big = condition_stat_is_duration(c->stat)
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
	if (frac_len && !condition_stat_is_duration(c->stat))
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
static int parse_value(parser *p, condition *c)
{
	char what[32], buf[64];
	int rc;

	skip_blanks(p);
	c->value_off = p->pos;
	if (p->pos >= p->len)
		return fail(p, p->pos, "expected a value after '%s', such as %s or +20%%",
			    check_op_names[c->op], condition_stat_is_duration(c->stat) ? "100ms" : "5");
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
		if (!c->relative && condition_stat_is_duration(c->stat) &&
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

/* A route's statistics are its requests': count, sum, min, max, mean and
 * the percentiles; not a syscall's, errors or the report's lost. */
static int route_stat_ok(parser *p, const condition *c)
{
	if (c->route && (c->syscall || c->stat == ST_ERRORS || c->stat == ST_LOST))
		return fail(p, (size_t)(strchr(p->text, ']') - p->text) + 2,
			    "a route's statistics are its requests': count, sum, min, max, mean, "
			    "p50, p90 or p99, as in '%s[%s].p99'", c->probe, c->route);
	return 0;
}

void condition_free(condition *c)
{
	if (!c)
		return;
	free(c->text);
	free(c->probe);
	free(c->syscall);
	free(c->route);
	free(c->errno_name);
	free(c);
}

condition *condition_parse(const char *text, char *err, size_t errlen)
{
	parser p = { .text = text ? text : "", .err = err, .errlen = errlen };
	condition *c;

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
	if (parse_probe(&p, c) < 0 || parse_stat_path(&p, c) < 0 || route_stat_ok(&p, c) < 0) {
		condition_free(c);
		return NULL;
	}
	c->path_len = p.pos;
	skip_blanks(&p);
	if (parse_op(&p, c) < 0 || parse_value(&p, c) < 0) {
		condition_free(c);
		return NULL;
	}
	return c;
}

const char *condition_text(const condition *c)
{
	return c ? c->text : NULL;
}

bool condition_is_relative(const condition *c)
{
	return c && c->relative;
}

