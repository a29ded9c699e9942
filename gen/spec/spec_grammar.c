/* spec_grammar — names of enum values, durations, grammars and count probe points (spec_internal.h). */
#include <stdio.h>
#include <string.h>

#include "spec/spec_internal.h"

/* ---- names of enum values ---- */

const char *const spec_loop_waits[] = { "epoll_wait", "epoll_pwait", "epoll_pwait2", NULL };

const char *spec_kind_name(probe_kind k)
{
	return kind_name(k);
}

/* ---- durations ---- */

/* Parses TEXT like spec_parse_duration.  Returns 0, -1 when malformed,
 * -2 when well-formed but longer than a day. */
int sl_parse_duration(const char *text, uint64_t *ns)
{
	/* Windows also take minutes and hours, beyond units.h's four. */
	static const struct { const char *name; uint64_t mult; } longer[] = {
		{ "m", 60000000000ULL }, { "h", 3600000000000ULL },
	};
	time_unit u;
	const char *p = text, *frac, *unit;
	uint64_t whole = 0, num = 0, mult = 0, per_unit, den = 1;
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
	if (unit_lookup(unit, strlen(unit), &u) == 0)
		mult = unit_ns(u);
	for (k = 0; k < sizeof(longer) / sizeof(longer[0]); k++)
		if (strcmp(unit, longer[k].name) == 0)
			mult = longer[k].mult;
	if (!mult)
		return -1;
	if (too_big || whole > DAY_NS / mult)
		return -2;
	per_unit = mult;

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
	whole *= per_unit;
	if (whole + num > DAY_NS)
		return -2;
	*ns = whole + num;
	return 0;
}

int spec_parse_duration(const char *text, uint64_t *ns)
{
	uint64_t v;

	if (sl_parse_duration(text, &v) != 0)
		return -1;
	*ns = v;
	return 0;
}

int spec_parse_option_duration(const char *s, uint64_t *ns)
{
	char buf[64];
	size_t n = strlen(s);
	if (n && n < 32 && strspn(s, "0123456789.") == n) {
		snprintf(buf, sizeof buf, "%ss", s);
		s = buf;
	}
	return spec_parse_duration(s, ns);
}

/* ---- grammars ---- */


/* C is one of the characters of SET (never NUL). */
static bool in_set(char c, const char *set)
{
	return c && strchr(set, c);
}

/* [a-z][a-z0-9_]{0,31} */
bool sl_probe_name_ok(const char *s, size_t len)
{
	if (len < 1 || len > PROBE_NAME_MAX || !is_lower(s[0]))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!is_lower(s[i]) && !is_digit(s[i]) && s[i] != '_')
			return false;
	return true;
}

/* [a-z0-9][a-z0-9_.-]{0,63} */
bool sl_spec_name_ok(const char *s, size_t len)
{
	if (len < 1 || len > SPEC_NAME_MAX || !(is_lower(s[0]) || is_digit(s[0])))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!is_lower(s[i]) && !is_digit(s[i]) && !in_set(s[i], "_.-"))
			return false;
	return true;
}

/* [A-Za-z_][A-Za-z0-9_.$]{0,255} */
bool sl_function_ok(const char *s, size_t len)
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
bool sl_cxx_function_ok(const char *s, size_t len)
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
bool sl_syscall_name_ok(const char *s, size_t len)
{
	if (len < 1 || len > SYSCALL_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_lower(s[i]) && !is_digit(s[i]) && s[i] != '_')
			return false;
	return true;
}

/* "main" or [A-Za-z0-9_.+*?[\]-]{1,128} (which has no '/') */
bool sl_object_ok(const char *s, size_t len)
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

/* The probe types of a count probe's point, and how many ':'-separated
 * parts each takes. */
static const struct { const char *name; point_type type; size_t fields; } point_forms[] = {
	{ "tracepoint", POINT_TRACEPOINT, 3 }, { "uprobe", POINT_UPROBE, 3 },
	{ "uretprobe", POINT_URETPROBE, 3 }, { "usdt", POINT_USDT, 4 },
	{ "kprobe", POINT_KPROBE, 2 }, { "kretprobe", POINT_KRETPROBE, 2 },
	{ "software", POINT_SOFTWARE, 3 }, { "profile", POINT_PROFILE, 3 },
	{ "interval", POINT_INTERVAL, 3 },
};
#define N_POINT_FORMS (sizeof point_forms / sizeof *point_forms)

/* How each probe type is written, by point_type. */
static const char *const point_shapes[] = {
	"tracepoint:CATEGORY:NAME", "uprobe:OBJECT:SYMBOL", "uretprobe:OBJECT:SYMBOL",
	"usdt:OBJECT:PROVIDER:NAME", "kprobe:SYMBOL", "kretprobe:SYMBOL",
	"software:EVENT:PERIOD", "profile:hz:N", "interval:s:N or interval:ms:N",
};

/* Cuts TEXT at its ':'s into at most 5 parts: F[i] points into TEXT,
 * FL[i] is its length.  Returns the number of parts, or 0 after writing
 * into WHY (SIZE bytes) why TEXT is no probe point (empty, too long, too
 * many parts). */
static size_t cut_point(const char *text, const char **f, size_t *fl, char *why, size_t size)
{
	size_t n = 0, len = strlen(text);
	const char *p = text;

	if (len == 0) {
		snprintf(why, size, "it is empty");
		return 0;
	}
	if (len > POINT_MAX) {
		snprintf(why, size, "it is longer than %d bytes", POINT_MAX);
		return 0;
	}
	for (;;) {
		const char *c = strchr(p, ':');
		if (n == 5) {
			snprintf(why, size, "it has too many ':'-separated parts");
			return 0;
		}
		f[n] = p;
		fl[n++] = c ? (size_t)(c - p) : strlen(p);
		if (!c)
			break;
		p = c + 1;
	}
	return n;
}

/* Checks the parts after the first of an uprobe, uretprobe or usdt point
 * of TYPE (F, FL as cut_point makes them): an object, then a symbol or a
 * provider and a name.  Returns 0, or -1 after writing into WHY. */
static int check_object_point(point_type type, const char *const *f, const size_t *fl,
			      char *why, size_t size)
{
	char buf[SHOW_BUF];

	if (!point_object_ok(f[1], fl[1])) {
		snprintf(why, size, "object '%s' is neither 'main' nor a plain absolute "
			 "path (/ then letters, digits, / . _ + -)", sl_show(buf, f[1], fl[1]));
		return -1;
	}
	if (type == POINT_USDT) {
		for (size_t i = 2; i < 4; i++)
			if (!point_word_ok(f[i], fl[i], false)) {
				snprintf(why, size, "usdt %s '%s' is not 1-64 of A-Z a-z 0-9 _",
					 i == 2 ? "provider" : "name", sl_show(buf, f[i], fl[i]));
				return -1;
			}
	} else if (!sl_function_ok(f[2], fl[2])) {
		snprintf(why, size, "symbol '%s' is not a function name", sl_show(buf, f[2], fl[2]));
		return -1;
	}
	return 0;
}

/* Checks the event and period of a software point (F, FL as cut_point
 * makes them).  Returns 0, or -1 after writing into WHY. */
static int check_software_point(const char *const *f, const size_t *fl, char *why, size_t size)
{
	char buf[SHOW_BUF];
	size_t e;

	for (e = 0; software_events[e]; e++)
		if (strlen(software_events[e]) == fl[1] &&
		    memcmp(software_events[e], f[1], fl[1]) == 0)
			break;
	if (!software_events[e]) {
		snprintf(why, size, "unknown software event '%s' (cpu-clock, task-clock, "
			 "page-faults, context-switches, cpu-migrations, minor-faults, "
			 "major-faults, alignment-faults, emulation-faults, dummy, bpf-output)",
			 sl_show(buf, f[1], fl[1]));
		return -1;
	}
	if (!point_number_ok(f[2], fl[2], 1000000000)) {
		snprintf(why, size, "period '%s' is not a whole number from 1 to 1000000000",
			 sl_show(buf, f[2], fl[2]));
		return -1;
	}
	return 0;
}

/* Checks the unit and number of a profile or interval point of TYPE (F,
 * FL as cut_point makes them).  Returns 0, or -1 after writing into WHY. */
static int check_timer_point(point_type type, const char *const *f, const size_t *fl,
			     char *why, size_t size)
{
	char buf[SHOW_BUF];
	bool ms;

	if (type == POINT_PROFILE) {
		if (fl[1] != 2 || memcmp(f[1], "hz", 2) != 0) {
			snprintf(why, size, "profile takes 'hz', not '%s'", sl_show(buf, f[1], fl[1]));
			return -1;
		}
		if (!point_number_ok(f[2], fl[2], 10000)) {
			snprintf(why, size, "frequency '%s' is not a whole number from 1 to 10000",
				 sl_show(buf, f[2], fl[2]));
			return -1;
		}
		return 0;
	}
	ms = fl[1] == 2 && memcmp(f[1], "ms", 2) == 0;
	if (!ms && !(fl[1] == 1 && f[1][0] == 's')) {
		snprintf(why, size, "interval takes 's' or 'ms', not '%s'", sl_show(buf, f[1], fl[1]));
		return -1;
	}
	if (!point_number_ok(f[2], fl[2], ms ? 86400000 : 86400)) {
		snprintf(why, size, "period '%s' is not a whole number from 1 to %s",
			 sl_show(buf, f[2], fl[2]), ms ? "86400000 (a day)" : "86400 (a day)");
		return -1;
	}
	return 0;
}

/* Checks the parts after the first of a point of TYPE (F, FL as
 * cut_point makes them, as many as TYPE takes).  Returns 0, or -1 after
 * writing into WHY. */
static int check_point_parts(point_type type, const char *const *f, const size_t *fl,
			     char *why, size_t size)
{
	char buf[SHOW_BUF];

	switch (type) {
	case POINT_TRACEPOINT:
		for (size_t i = 1; i < 3; i++)
			if (!point_word_ok(f[i], fl[i], true)) {
				snprintf(why, size, "tracepoint %s '%s' is not 1-64 of a-z 0-9 _",
					 i == 1 ? "category" : "name", sl_show(buf, f[i], fl[i]));
				return -1;
			}
		return 0;
	case POINT_UPROBE:
	case POINT_URETPROBE:
	case POINT_USDT:
		return check_object_point(type, f, fl, why, size);
	case POINT_KPROBE:
	case POINT_KRETPROBE:
		if (!sl_function_ok(f[1], fl[1])) {
			snprintf(why, size, "symbol '%s' is not a function name", sl_show(buf, f[1], fl[1]));
			return -1;
		}
		return 0;
	case POINT_SOFTWARE:
		return check_software_point(f, fl, why, size);
	case POINT_PROFILE:
	case POINT_INTERVAL:
		return check_timer_point(type, f, fl, why, size);
	}
	return 0;
}

int spec_parse_point(const char *text, point_type *type, char *why, size_t size)
{
	const char *f[5];
	size_t fl[5], n, k;
	char buf[SHOW_BUF];

	n = cut_point(text, f, fl, why, size);
	if (n == 0)
		return -1;
	for (k = 0; k < N_POINT_FORMS; k++)
		if (strlen(point_forms[k].name) == fl[0] &&
		    memcmp(point_forms[k].name, f[0], fl[0]) == 0)
			break;
	if (k == N_POINT_FORMS) {
		snprintf(why, size, "unknown probe type '%s'", sl_show(buf, f[0], fl[0]));
		return -1;
	}
	if (n != point_forms[k].fields) {
		snprintf(why, size, "a %s probe point is written %s", point_forms[k].name,
			 point_shapes[point_forms[k].type]);
		return -1;
	}
	if (check_point_parts(point_forms[k].type, f, fl, why, size) < 0)
		return -1;
	*type = point_forms[k].type;
	return 0;
}
