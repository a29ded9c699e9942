/* Unit tests for check: conditions that parse (and the value each one
 * reads, seen through evaluation), conditions that do not (each message
 * checked with its column), evaluation on hand-built reports (latency,
 * syscalls with errors, events, a missing probe, a probe that was not
 * attached, a probe without calls) and evaluation of diffs, relative and
 * absolute, including a value that grows from 0.  Run under valgrind
 * (CK_FORK=no) for leaks.
 *
 * Needs the project's headers on the quote path only (-iquote gen):
 * <check.h> is the Check framework, "condition.h" is bpfspec's. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/condition.h"
#include "model/report.h"

/* ---- a hand-built report ------------------------------------------- */

/* The parts of one report, so that tests can change a value and build
 * another. */
typedef struct fixture {
	report rep;
	report_probe probes[6];
	report_syscall syscalls[2];
	report_errno openat_errors[2];
} fixture;

#define MS 1000000ULL

/* A report with:
 *   lat    latency, 10 calls: sum 1ms, min 10us, max 500ms, p50 50us,
 *          p90 200us, p99 132.4ms
 *   io     syscalls: openat (5 calls, 3 ENOENT, 1 EACCES), read (2 calls,
 *          no errors)
 *   slow   events, 3 slow calls
 *   gone   latency, not attached
 *   idle   latency, attached, no calls
 *   bare   latency, not attached, no reason given
 * and 2 lost events. */
static void fixture_init(fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->openat_errors[0] = (report_errno){ (char *)"ENOENT", 2, 3 };
	f->openat_errors[1] = (report_errno){ (char *)"EACCES", 13, 1 };
	f->syscalls[0] = (report_syscall){
		.name = (char *)"openat", .nr = 257,
		.st = { .count = 5, .sum_ns = 50000, .min_ns = 2000, .max_ns = 20000,
			.p50_ns = 8000, .p90_ns = 15000, .p99_ns = 19800 },
		.errors = f->openat_errors, .n_errors = 2, .error_count = 4,
	};
	f->syscalls[1] = (report_syscall){
		.name = (char *)"read", .nr = 0,
		.st = { .count = 2, .sum_ns = 3000, .min_ns = 1000, .max_ns = 2000,
			.p50_ns = 1000, .p90_ns = 2000, .p99_ns = 2000 },
	};
	f->probes[0] = (report_probe){
		.name = (char *)"lat", .kind = PROBE_LATENCY, .attached = true,
		.st = { .count = 10, .sum_ns = 1 * MS, .min_ns = 10000, .max_ns = 500 * MS,
			.p50_ns = 50000, .p90_ns = 200000, .p99_ns = 132400000 },
	};
	f->probes[1] = (report_probe){
		.name = (char *)"io", .kind = PROBE_SYSCALLS, .attached = true,
		.st = { .count = 7, .sum_ns = 53000, .min_ns = 1000, .max_ns = 20000,
			.p50_ns = 5000, .p90_ns = 15000, .p99_ns = 19800 },
		.syscalls = f->syscalls, .n_syscalls = 2,
	};
	f->probes[2] = (report_probe){
		.name = (char *)"slow", .kind = PROBE_EVENTS, .attached = true,
		.st = { .count = 3 },
	};
	f->probes[3] = (report_probe){
		.name = (char *)"gone", .kind = PROBE_LATENCY, .attached = false,
		.reason = (char *)"function 'uv__run_idle' not found in main",
	};
	f->probes[4] = (report_probe){
		.name = (char *)"idle", .kind = PROBE_LATENCY, .attached = true,
	};
	f->probes[5] = (report_probe){
		.name = (char *)"bare", .kind = PROBE_LATENCY, .attached = false,
	};
	f->rep.probes = f->probes;
	f->rep.n_probes = 6;
	f->rep.lost_events = 2;
	f->rep.attached_probes = 4;
	f->rep.expected_probes = 6;
}

/* Parses TEXT, which must parse. */
static condition *parse_ok(const char *text)
{
	char err[256] = "";
	condition *c = condition_parse(text, err, sizeof(err));

	ck_assert_msg(c != NULL, "'%s' did not parse: %s", text, err);
	ck_assert_str_eq(condition_text(c), text);
	return c;
}

/* Evaluates TEXT on the standard fixture; *WHY gets the explanation. */
static int eval_text(const char *text, char *why, size_t len)
{
	fixture f;
	condition *c = parse_ok(text);
	int rc;

	fixture_init(&f);
	rc = condition_eval(c, &f.rep, why, len);
	condition_free(c);
	return rc;
}

/* ---- parsing: accepted --------------------------------------------- */

/* Each condition parses; evaluated on the fixture it gives RESULT and
 * WHY (when not NULL): together they show what was read. */
static const struct {
	const char *text;
	int result;
	const char *why;
} good[] = {
	/* durations, units and spacing */
	{ "lat.p99 > 100ms", 1, "lat.p99 = 132.4ms > 100ms" },
	{ "lat.p99>100ms", 1, "lat.p99 = 132.4ms > 100ms" },
	{ "lat.p99 \t>=\t 132.4ms", 1, "lat.p99 = 132.4ms >= 132.4ms" },
	{ "lat.p99 > 132.4ms", 0, "lat.p99 = 132.4ms <= 132.4ms" },
	{ "lat.p99 == 132400000", 1, "lat.p99 = 132.4ms == 132.4ms" },
	{ "lat.p99 == 132400000ns", 1, NULL },
	{ "lat.p99 == 132400us", 1, NULL },
	{ "lat.p99 == 0.1324s", 1, NULL },
	{ "lat.p99 != 0.1324s", 0, "lat.p99 = 132.4ms == 132.4ms" },
	{ "lat.p99 < 1s", 1, "lat.p99 = 132.4ms < 1s" },
	{ "lat.p99 <= 1.000s", 1, NULL },
	{ "lat.p99 > 1.5ms", 1, "lat.p99 = 132.4ms > 1.5ms" },
	{ "lat.p99 > 0", 1, "lat.p99 = 132.4ms > 0ns" },
	{ "lat.p99 > 0.000000001s", 1, "> 1ns" },
	{ "lat.p99 > 18446744073709551615", 0, NULL },
	{ "lat.p99 > 18446744073s", 0, NULL },
	/* rounding that would hide the difference shows more digits */
	{ "lat.p99 > 132399999ns", 1, "lat.p99 = 132.4ms > 132.399999ms" },
	{ "lat.p99 < 132400001", 1, "lat.p99 = 132.4ms < 132.400001ms" },
	/* every statistic */
	{ "lat.count > 9", 1, "lat.count = 10 > 9" },
	{ "lat.count >= 11", 0, "lat.count = 10 < 11" },
	{ "lat.sum == 1ms", 1, "lat.sum = 1ms == 1ms" },
	{ "lat.min == 10us", 1, "lat.min = 10us == 10us" },
	{ "lat.max == 500ms", 1, NULL },
	{ "lat.mean == 100us", 1, "lat.mean = 100us == 100us" },
	{ "lat.p50 == 50us", 1, NULL },
	{ "lat.p90 == 200us", 1, NULL },
	{ "lat.lost == 2", 1, "lat.lost = 2 == 2" },
	/* syscalls: probe and syscall levels, errors by errno */
	{ "io.count == 7", 1, NULL },
	{ "io.errors == 4", 1, "io.errors = 4 == 4" },
	{ "io.errors.ENOENT == 3", 1, "io.errors.ENOENT = 3 == 3" },
	{ "io.errors.EAGAIN > 0", 0, "io.errors.EAGAIN = 0 <= 0" },
	{ "io.errors.E123 == 0", 1, NULL },
	{ "io.openat.count == 5", 1, NULL },
	{ "io.openat.errors > 3", 1, "io.openat.errors = 4 > 3" },
	{ "io.openat.errors.EACCES != 0", 1, NULL },
	{ "io.read.errors.ENOENT == 0", 1, NULL },
	{ "io.openat.p99 > 19us", 1, "io.openat.p99 = 19.8us > 19us" },
	{ "io.read.mean == 1.5us", 1, "io.read.mean = 1.5us == 1.5us" },
	{ "io.read.max < 2us", 0, "io.read.max = 2us >= 2us" },
	/* events: the count of slow calls */
	{ "slow.count >= 3", 1, "slow.count = 3 >= 3" },
	{ "slow.lost > 0", 1, NULL },
	/* names: digits and '_' after the first letter, 32 characters */
	{ "a_1.count > 0", -1, "probe 'a_1' is not in the report" },
	{ "abcdefghijklmnopqrstuvwxyz123456.count > 0", -1, NULL },
};

START_TEST(test_parse_good)
{
	const char *text = good[_i].text;
	char why[256] = "";
	int rc = eval_text(text, why, sizeof(why));

	ck_assert_msg(rc == good[_i].result, "'%s': %d, not %d (%s)", text, rc, good[_i].result,
		      why);
	ck_assert_msg(why[0], "'%s': no explanation", text);
	if (good[_i].why)
		ck_assert_contains(why, good[_i].why);
}
END_TEST

START_TEST(test_parse_relative)
{
	static const char *const rel[] = {
		"lat.p99 > +20%", "lat.p99 < -10%", "lat.count>+0.5%", "io.errors.ENOENT != +0%",
		"lat.p99 >= -100%", "lat.lost > +1000000%",
	};
	char why[256];

	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		condition *c = parse_ok(rel[i]);
		fixture f;
		ck_assert_msg(condition_is_relative(c), "'%s' is relative", rel[i]);
		fixture_init(&f);
		/* One report cannot answer a relative check. */
		ck_assert_int_eq(condition_eval(c, &f.rep, why, sizeof(why)), -1);
		ck_assert_contains(why, "is a relative change: it compares two reports");
		condition_free(c);
	}
	{
		condition *c = parse_ok("lat.p99 > 20ms");
		ck_assert(!condition_is_relative(c));
		condition_free(c);
	}
	ck_assert(!condition_is_relative(NULL));
}
END_TEST

/* ---- parsing: rejected ---------------------------------------------- */

/* Each condition fails; the message starts with "column N: " and holds
 * the rest of ERR. */
static const struct {
	const char *text;
	const char *err;
} bad[] = {
	/* the whole text */
	{ "", "column 1: the condition is empty: write PROBE.STAT OP VALUE" },
	{ " lat.p99 > 1ms", "column 1: unexpected space at the start" },
	/* the probe */
	{ "1lat.p99 > 1ms", "column 1: invalid probe name '1lat': a probe name is a lowercase letter" },
	{ "Lat.p99 > 1ms", "column 1: invalid probe name 'Lat'" },
	{ "laT.p99 > 1ms", "column 1: invalid probe name 'laT'" },
	{ ".p99 > 1ms", "column 1: expected a probe name (a lowercase letter, then lowercase "
			"letters, digits or '_'), not '.'" },
	{ "> 1ms", "column 1: expected a probe name" },
	{ "abcdefghijklmnopqrstuvwxyz1234567.count > 0", "column 1: probe name "
	  "'abcdefghijklmnopqrstuvwxyz123456...' is too long (at most 32 characters)" },
	{ "lat", "column 4: expected '.' and a statistic after probe 'lat', as in 'lat.p99', "
		 "not the end of the text" },
	{ "lat > 1ms", "column 4: expected '.' and a statistic after probe 'lat'" },
	{ "lat-x.p99 > 1", "column 4: expected '.' and a statistic after probe 'lat', as in "
			   "'lat.p99', not '-'" },
	/* the statistic */
	{ "lat.p95 > 1ms", "column 5: unknown statistic 'p95': use count, sum, min, max, mean, "
			   "p50, p90, p99, errors, errors.ENAME or lost" },
	{ "lat.P99 > 1ms", "column 5: unknown statistic 'P99'" },
	{ "lat.p99x > 1ms", "column 5: unknown statistic 'p99x'" },
	{ "lat. p99 > 1ms", "column 5: expected a statistic after 'lat.', not a space" },
	{ "lat.", "column 5: expected a statistic after 'lat.', not the end of the text" },
	{ "lat..p99 > 1", "column 5: expected a statistic after 'lat.', not '.'" },
	{ "io.openat > 1", "column 10: expected '.' and a statistic after syscall 'openat', as "
			   "in 'io.openat.p99'" },
	{ "io.openat.p95 > 1", "column 11: unknown statistic 'p95' of syscall 'openat': use "
			       "count, sum, min, max, mean, p50, p90, p99, errors or errors.ENAME" },
	{ "io.openat.lost > 1", "column 11: 'lost' counts the events the whole report lost, "
				"not a syscall's: write 'io.lost'" },
	{ "io.openat.", "column 11: expected a statistic after 'io.openat.', not the end" },
	{ "io.Openat.count > 1", "column 4: invalid syscall name 'Openat': syscall names are "
				 "lowercase" },
	{ "lat.p99.max > 1", "column 8: unexpected '.' after the statistic 'p99': a syscall is "
			     "named before its statistic" },
	{ "io.read.p99.x > 1", "column 12: unexpected '.' after the statistic 'p99'" },
	/* errno names */
	{ "io.errors. > 0", "column 11: expected an errno name after 'errors.', such as ENOENT" },
	{ "io.errors.enoent > 0", "column 11: invalid errno name 'enoent': errno names are "
				  "uppercase" },
	{ "io.errors.ENOENt > 0", "column 11: invalid errno name 'ENOENt'" },
	{ "io.errors.ENOENTT > 0", "column 11: unknown errno 'ENOENTT': did you mean ENOENT?" },
	{ "io.errors.EXYZZYQQ > 0", "column 11: unknown errno 'EXYZZYQQ': use a name from "
				    "errno(3)" },
	{ "io.errors.E > 0", "column 11: unknown errno 'E'" },
	{ "io.errors.E12345678901234567 > 0", "column 11: errno name 'E12345678901234567' is too "
					      "long (at most 16 characters)" },
	{ "io.errors.ENOENT.x > 0", "column 17: expected an operator (>, >=, <, <=, ==, !=) "
				    "after 'io.errors.ENOENT', not '.'" },
	/* the operator */
	{ "lat.p99", "column 8: expected an operator (>, >=, <, <=, ==, !=) and a value after "
		     "'lat.p99'" },
	{ "lat.p99 ", "column 9: expected an operator (>, >=, <, <=, ==, !=) and a value" },
	{ "lat.p99 100ms", "column 9: expected an operator (>, >=, <, <=, ==, !=) after "
			   "'lat.p99', not '1'" },
	{ "lat.p99 = 1ms", "column 9: '=' is not an operator: write '==' to compare" },
	{ "lat.p99 => 1ms", "column 9: '=>' is not an operator: write '>='" },
	{ "lat.p99 =< 1ms", "column 9: '=<' is not an operator: write '<='" },
	{ "lat.p99 <> 1ms", "column 9: '<>' is not an operator: write '!='" },
	{ "lat.p99 ! 1ms", "column 9: expected '!=' (not equal)" },
	{ "lat.p99 \xe2\x89\xa5 1ms", "column 9: write '>=' for '\xe2\x89\xa5'" },
	{ "lat.p99 \xe2\x89\xa0 1ms", "column 9: write '!=' for '\xe2\x89\xa0'" },
	{ "lat.p99 === 1ms", "column 11: expected a number after '==', not '='" },
	{ "lat.p99 >> 1ms", "column 10: expected a number after '>', not '>'" },
	/* the value */
	{ "lat.p99 >", "column 10: expected a value after '>', such as 100ms or +20%" },
	{ "lat.count >  ", "column 14: expected a value after '>', such as 5 or +20%" },
	{ "lat.p99 > ms", "column 11: expected a number after '>', not 'm'" },
	{ "lat.p99 > .5ms", "column 11: write a digit before the '.', as in 0.5" },
	{ "lat.p99 > 1.ms", "column 13: expected digits after '.', not 'm'" },
	{ "lat.p99 > 1.", "column 13: expected digits after '.', not the end of the text" },
	{ "lat.p99 > 1e3", "column 12: unknown unit 'e': use ns, us, ms or s" },
	{ "lat.p99 > 0x10", "column 12: unknown unit 'x'" },
	{ "lat.p99 > 10sec", "column 13: unknown unit 'sec': use ns, us, ms or s" },
	{ "lat.p99 > 1m", "column 12: unknown unit 'm'" },
	{ "lat.p99 > 10MS", "column 13: unknown unit 'MS'" },
	{ "lat.p99 > 5\xc2\xb5s", "column 12: write microseconds as 'us'" },
	{ "lat.p99 > 1.5ns", "column 11: '1.5ns' is not a whole number of nanoseconds" },
	{ "lat.p99 > 1.5", "column 11: '1.5' is not a whole number of nanoseconds (a value "
			   "without a unit is in ns)" },
	{ "lat.p99 > 0.0000000001s", "column 11: '0.0000000001s' is not a whole number" },
	{ "lat.p99 > 18446744073709551616", "column 11: the value '18446744073709551616' is too "
					    "large: the largest duration is" },
	{ "lat.p99 > 18446744074s", "column 11: the value '18446744074s' is too large" },
	{ "lat.p99 > 18446744073.709551616s", "column 11: the value '18446744073.709551616s' is "
					      "too large" },
	{ "lat.count > 99999999999999999999999", "column 13: the value '99999999999999999999999' "
						 "is too large: the largest count is" },
	{ "lat.count > 5ms", "column 14: 'count' is a number of calls, not a duration: remove "
			     "the unit 'ms'" },
	{ "io.errors > 1s", "column 14: 'errors' is a number of failed calls, not a duration" },
	{ "lat.lost > 1ns", "column 13: 'lost' is a number of lost events, not a duration" },
	{ "lat.count > 1.5", "column 14: 'count' is a whole number of calls: remove the fraction" },
	{ "lat.count > 1.0", "column 14: 'count' is a whole number of calls" },
	/* relative values */
	{ "lat.p99 > 20%", "column 11: a relative change needs its sign: write +20% (grew by "
			   "more than that) or -20% (shrank)" },
	{ "lat.p99 > +20", "column 14: expected '%' after '+20': a signed value is a relative "
			   "change, as in +20%, not the end of the text" },
	{ "lat.p99 > +20ms", "column 14: a signed value is a relative change in percent: write "
			     "+20%, or drop the sign" },
	{ "lat.p99 > -20 %", "column 14: expected '%' after '-20'" },
	{ "lat.p99 > +%", "column 12: expected a number after '>', not '%'" },
	{ "lat.p99 > -150%", "column 11: a value cannot shrink by more than 100%" },
	{ "lat.p99 > +.5%", "column 12: write a digit before the '.'" },
	{ "lat.p99 > ++5%", "column 12: expected a number after '>', not '+'" },
	/* after the value */
	{ "lat.p99 > 1ms ", "column 14: unexpected space after the value: remove it" },
	{ "lat.p99 > 100 ms", "column 14: remove the space between the number and its unit: "
			      "write 100ms" },
	{ "lat.p99 > 1ms and lat.p50 > 1ms", "column 15: unexpected text after the value '1ms': a "
					     "condition ends with its value" },
	{ "lat.p99 > 1ms;", "column 14: unexpected ';' after the value '1ms'" },
	{ "lat.p99 > 1ms\n", "column 14: unexpected control character after the value" },
	{ "lat.p99 > +20%%", "column 15: unexpected '%' after the value '+20%'" },
	{ "lat.p99 > 1ms\xc3\xa9", "column 14: unexpected non-ASCII character after the value" },
	{ "lat.p99 > 1ms \xc3\xa9", "column 15: unexpected text after the value" },
};

START_TEST(test_parse_bad)
{
	const char *text = bad[_i].text;
	char err[512] = "";
	condition *c = condition_parse(text, err, sizeof(err));

	ck_assert_msg(c == NULL, "'%s' parsed", text);
	ck_assert_msg(strncmp(err, bad[_i].err, strlen(bad[_i].err)) == 0,
		      "'%s':\n got      \"%s\"\n expected \"%s...\"", text, err, bad[_i].err);
}
END_TEST

START_TEST(test_parse_limits)
{
	char text[400], err[256];
	condition *c;

	/* 256 bytes parse, 257 do not: "lat.p99 > 0.000...0ns". */
	memset(text, 0, sizeof(text));
	strcpy(text, "lat.p99 > 0.");
	memset(text + strlen(text), '0', 254 - strlen(text));
	strcat(text, "ns");
	ck_assert_uint_eq(strlen(text), 256);
	c = condition_parse(text, err, sizeof(err));
	ck_assert_msg(c != NULL, "256 bytes: %s", err);
	condition_free(c);
	strcat(text, "0");
	c = condition_parse(text, err, sizeof(err));
	ck_assert_ptr_null(c);
	ck_assert_str_eq(err, "column 257: the condition is too long (257 bytes; at most 256)");
	/* A value that overflows, long as it may be. */
	memset(text, 0, sizeof(text));
	strcpy(text, "lat.p99 > 1");
	memset(text + strlen(text), '0', 256 - strlen(text));
	c = condition_parse(text, err, sizeof(err));
	ck_assert_ptr_null(c);
	ck_assert_contains(err, "column 11: the value '1000");
	ck_assert_contains(err, "' is too large");
	/* Columns count characters: the 257th byte is the 129th "é". */
	memset(text, 0, sizeof(text));
	for (size_t i = 0; i < 150; i++)
		memcpy(text + 2 * i, "\xc3\xa9", 2);
	ck_assert_ptr_null(condition_parse(text, err, sizeof(err)));
	ck_assert_str_eq(err, "column 129: the condition is too long (300 bytes; at most 256)");

	/* A short buffer gets a cut message; none at all is fine. */
	c = condition_parse("lat.p95 > 1", err, 12);
	ck_assert_ptr_null(c);
	ck_assert_str_eq(err, "column 5: u");
	ck_assert_ptr_null(condition_parse("lat.p95 > 1", NULL, 0));
	ck_assert_ptr_null(condition_parse(NULL, err, sizeof(err)));
	ck_assert_contains(err, "column 1: the condition is empty");

	/* condition_free(NULL) is a no-op; text and accessors on NULL are safe. */
	condition_free(NULL);
	ck_assert_ptr_null(condition_text(NULL));
}
END_TEST

/* ---- evaluation ------------------------------------------------------ */

START_TEST(test_eval_cannot)
{
	static const struct {
		const char *text;
		const char *why;
	} cases[] = {
		{ "nope.p99 > 1ms", "probe 'nope' is not in the report (its probes: lat, " },
		{ "gone.p99 > 1ms",
		  "probe 'gone' was not attached: function 'uv__run_idle' not found in main" },
		{ "gone.count > 0", "probe 'gone' was not attached: function" },
		{ "bare.count > 0", "probe 'bare' was not attached" },
		{ "lat.errors > 0", "probe 'lat' is a latency probe: errors are counted by syscalls "
				    "probes" },
		{ "lat.errors.ENOENT > 0", "probe 'lat' is a latency probe: errors" },
		{ "lat.read.count > 0", "probe 'lat' is a latency probe: it has no syscalls" },
		{ "slow.p99 > 1ms", "probe 'slow' is an events probe: only its count of events "
				    "(slow.count) and lost can be checked, not slow.p99" },
		{ "slow.errors > 0", "probe 'slow' is an events probe" },
		{ "slow.openat.count > 0", "not slow.openat.count" },
	};
	char why[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = eval_text(cases[i].text, why, sizeof(why));
		ck_assert_msg(rc == -1, "'%s': %d (%s)", cases[i].text, rc, why);
		ck_assert_contains(why, cases[i].why);
	}
	/* A probe or syscall without calls reads 0 for every statistic:
	 * nothing was slow, nothing failed. */
	ck_assert_int_eq(eval_text("idle.p99 > 1ms", why, sizeof(why)), 0);
	ck_assert_int_eq(eval_text("idle.mean > 1ms", why, sizeof(why)), 0);
	ck_assert_int_eq(eval_text("idle.min < 1ms", why, sizeof(why)), 1);
	ck_assert_int_eq(eval_text("io.write.count > 0", why, sizeof(why)), 0);
	ck_assert_int_eq(eval_text("io.write.errors.ENOENT > 0", why, sizeof(why)), 0);
	/* Counts of a probe without calls are 0, not undefined. */
	ck_assert_int_eq(eval_text("idle.count == 0", why, sizeof(why)), 1);
	ck_assert_str_eq(why, "idle.count = 0 == 0");
	ck_assert_int_eq(eval_text("idle.sum > 0", why, sizeof(why)), 0);
	ck_assert_str_eq(why, "idle.sum = 0ns <= 0ns");
	/* lost is the report's, whatever the state of the probe. */
	ck_assert_int_eq(eval_text("gone.lost > 1", why, sizeof(why)), 1);
}
END_TEST

/* An http probe's routes: [ROUTE] or [METHOD ROUTE] after the probe
 * names one route's requests; a route no request took reads 0; a route
 * requested with two methods needs its method; bad routes fail to parse
 * at their column. */
START_TEST(test_eval_routes)
{
	static report_http_route routes[] = {
		{ .method = (char *)"GET", .route = (char *)"/users/:id",
		  .st = { .count = 40, .sum_ns = 80 * MS, .min_ns = MS, .max_ns = 30 * MS,
			  .p50_ns = 2 * MS, .p90_ns = 5 * MS, .p99_ns = 25 * MS } },
		{ .method = (char *)"GET", .route = (char *)"/static/app.js", .st = { .count = 3 } },
		{ .method = (char *)"POST", .route = (char *)"/static/app.js", .st = { .count = 1 } },
	};
	report_probe probe = { .name = (char *)"requests", .kind = PROBE_HTTP, .attached = true,
			       .st = { .count = 44 }, .http_routes = routes, .n_http_routes = 3 };
	report rep = { .probes = &probe, .n_probes = 1 };
	static const struct {
		const char *text;
		int result;
		const char *why;
	} cases[] = {
		{ "requests[/users/:id].p99 > 20ms", 1, "requests[/users/:id].p99 = 25ms > 20ms" },
		{ "requests[GET /users/:id].p50 > 20ms", 0, "= 2ms <= 20ms" },
		{ "requests[GET /users/:id].count == 40", 1, NULL },
		{ "requests[POST /users/:id].count > 0", 0, "= 0 <= 0" },
		{ "requests[/nowhere].p99 > 1ms", 0, NULL },
		{ "requests[POST /static/app.js].count == 1", 1, NULL },
		{ "requests[/static/app.js].count > 0", -1, "requested with more than one method: "
							    "name one, as in 'requests[GET "
							    "/static/app.js]'" },
		{ "requests.p99 > 1ms", -1, "only its count of requests" },
	};
	char why[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		condition *c = parse_ok(cases[i].text);
		int rc = condition_eval(c, &rep, why, sizeof(why));
		ck_assert_msg(rc == cases[i].result, "'%s': %d (%s)", cases[i].text, rc, why);
		if (cases[i].why)
			ck_assert_contains(why, cases[i].why);
		condition_free(c);
	}
	/* A route on a probe that has none. */
	ck_assert_int_eq(eval_text("lat[/x].p99 > 1ms", why, sizeof(why)), -1);
	ck_assert_contains(why, "probe 'lat' is a latency probe: routes are http probes'");

	static const struct {
		const char *text, *err;
	} bad_routes[] = {
		{ "requests[/x.p99 > 1ms", "column 9: the route after 'requests' has no closing ']'" },
		{ "requests[].p99 > 1ms", "column 10: expected a route between the brackets" },
		{ "requests[ /x].p99 > 1ms", "column 10: expected a route between the brackets" },
		{ "requests[/x\t].p99 > 1ms", "column 12: unexpected tab in the route" },
		{ "requests[/x].errors > 0", "column 14: a route's statistics are its requests'" },
		{ "requests[/x].lost > 0", "column 14: a route's statistics" },
		{ "requests[/x]p99 > 1ms", "column 13: expected '.' and a statistic" },
	};
	for (size_t i = 0; i < sizeof(bad_routes) / sizeof(bad_routes[0]); i++) {
		char err[256] = "";
		condition *c = condition_parse(bad_routes[i].text, err, sizeof(err));
		ck_assert_msg(c == NULL, "'%s' parsed", bad_routes[i].text);
		ck_assert_msg(strncmp(err, bad_routes[i].err, strlen(bad_routes[i].err)) == 0,
			      "'%s':\n got      \"%s\"\n expected \"%s...\"", bad_routes[i].text, err,
			      bad_routes[i].err);
	}
}
END_TEST

START_TEST(test_eval_why_format)
{
	static const struct {
		uint64_t ns;
		const char *shown;
	} cases[] = {
		{ 0, "0ns" }, { 1, "1ns" }, { 999, "999ns" }, { 1000, "1us" }, { 1500, "1.5us" },
		{ 12346, "12.35us" }, { 999960, "1ms" }, { 132400000, "132.4ms" },
		{ 1000000000, "1s" }, { 90000000000ULL, "90s" }, { 12345000000000ULL, "12345s" },
		{ UINT64_MAX, "18446744074s" },
	};
	char why[256], expect[128];
	fixture f;

	fixture_init(&f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		condition *c = parse_ok("lat.max >= 0");
		f.probes[0].st.max_ns = cases[i].ns;
		ck_assert_int_eq(condition_eval(c, &f.rep, why, sizeof(why)), 1);
		snprintf(expect, sizeof(expect), "lat.max = %s >= 0ns", cases[i].shown);
		ck_assert_str_eq(why, expect);
		condition_free(c);
	}
	/* A large count is shown in full. */
	{
		condition *c = parse_ok("lat.count > 18446744073709551614");
		f.probes[0].st.count = UINT64_MAX;
		ck_assert_int_eq(condition_eval(c, &f.rep, why, sizeof(why)), 1);
		ck_assert_str_eq(why, "lat.count = 18446744073709551615 > 18446744073709551614");
		condition_free(c);
	}
	/* A short WHY is cut, NULL is fine. */
	{
		condition *c = parse_ok("lat.p99 > 1ms");
		fixture_init(&f);
		ck_assert_int_eq(condition_eval(c, &f.rep, why, 8), 1);
		ck_assert_str_eq(why, "lat.p99");
		ck_assert_int_eq(condition_eval(c, &f.rep, NULL, 0), 1);
		ck_assert_int_eq(condition_eval(c, NULL, why, sizeof(why)), -1);
		ck_assert_str_eq(why, "there is no report to check");
		ck_assert_int_eq(condition_eval(NULL, &f.rep, why, sizeof(why)), -1);
		condition_free(c);
	}
}
END_TEST

/* ---- diffs ------------------------------------------------------------ */

START_TEST(test_eval_diff)
{
	fixture before, after;
	char why[256];
	static const struct {
		const char *text;
		int result;
		const char *why;
	} cases[] = {
		/* p99: 100ms -> 132.4ms, +32.4% */
		{ "lat.p99 > +20%", 1, "lat.p99 = 100ms → 132.4ms (+32.4%) > +20%" },
		{ "lat.p99 > +40%", 0, "lat.p99 = 100ms → 132.4ms (+32.4%) <= +40%" },
		{ "lat.p99 >= +32.4%", 1, NULL },
		{ "lat.p99 < -10%", 0, "(+32.4%) >= -10%" },
		{ "lat.p99 != +0%", 1, NULL },
		/* count: 10 -> 8, -20% */
		{ "lat.count < -10%", 1, "lat.count = 10 → 8 (-20.0%) < -10%" },
		{ "lat.count <= -20%", 1, NULL },
		{ "lat.count < -20%", 0, NULL },
		{ "lat.count > -100%", 1, NULL },
		/* errors.ENOENT: 3 -> 3, unchanged */
		{ "io.errors.ENOENT > +0%", 0, "io.errors.ENOENT = 3 → 3 (+0.0%) <= +0%" },
		{ "io.errors.ENOENT == +0%", 1, NULL },
		/* read errors: 0 -> 5 */
		{ "io.read.errors > +20%", 1, "io.read.errors = 0 → 5 (grew from 0) > +20%" },
		{ "io.read.errors > +1000000%", 1, NULL },
		{ "io.read.errors < -10%", 0, "(grew from 0) >= -10%" },
		/* EINTR: 0 -> 0, no change */
		{ "io.errors.EINTR > +20%", 0, "io.errors.EINTR = 0 → 0 (+0.0%) <= +20%" },
		{ "io.errors.EINTR == +0%", 1, NULL },
		/* absolute values read AFTER alone */
		{ "lat.p99 > 100ms", 1, "lat.p99 = 132.4ms > 100ms" },
		{ "lat.count == 10", 0, "lat.count = 8 != 10" },
		{ "io.read.errors == 5", 1, NULL },
		/* a side that cannot answer */
		{ "gone.p99 > +20%", -1, "in the before report: probe 'gone' was not attached" },
		{ "new.count > +20%", -1, "in the before report: probe 'new' is not in the report" },
		{ "old.count > +20%", -1, "in the after report: probe 'old' is not in the report" },
		{ "new.count == 0", 1, "new.count = 0 == 0" },
	};

	fixture_init(&before);
	fixture_init(&after);
	before.probes[0].st.p99_ns = 100 * MS;
	after.probes[0].st.count = 8;
	after.syscalls[1].errors = (report_errno[]){ { (char *)"EINTR", 4, 0 },
						     { (char *)"EBADF", 9, 5 } };
	after.syscalls[1].n_errors = 2;
	after.syscalls[1].error_count = 5;
	/* "old" is only before, "new" only after. */
	before.probes[5].name = (char *)"old";
	before.probes[5].attached = true;
	after.probes[5].name = (char *)"new";
	after.probes[5].attached = true;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		condition *c = parse_ok(cases[i].text);
		int rc = condition_eval_diff(c, &before.rep, &after.rep, why, sizeof(why));
		ck_assert_msg(rc == cases[i].result, "'%s': %d, not %d (%s)", cases[i].text, rc,
			      cases[i].result, why);
		if (cases[i].why)
			ck_assert_contains(why, cases[i].why);
		condition_free(c);
	}
}
END_TEST

/* A change that rounds to the threshold shows more digits. */
START_TEST(test_eval_diff_close)
{
	fixture before, after;
	char why[256];
	condition *c = parse_ok("lat.count > +20%");

	fixture_init(&before);
	fixture_init(&after);
	before.probes[0].st.count = 100000;
	after.probes[0].st.count = 120001;
	ck_assert_int_eq(condition_eval_diff(c, &before.rep, &after.rep, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "lat.count = 100000 → 120001 (+20.0010%) > +20%");
	after.probes[0].st.count = 120000;
	ck_assert_int_eq(condition_eval_diff(c, &before.rep, &after.rep, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "lat.count = 100000 → 120000 (+20.0%) <= +20%");
	condition_free(c);
}
END_TEST

static Suite *check_suite(void)
{
	Suite *s = suite_create("check");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, test_parse_good, 0, (int)(sizeof(good) / sizeof(good[0])));
	tcase_add_test(tc, test_parse_relative);
	tcase_add_loop_test(tc, test_parse_bad, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_parse_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("eval");
	tcase_add_test(tc, test_eval_cannot);
	tcase_add_test(tc, test_eval_routes);
	tcase_add_test(tc, test_eval_why_format);
	tcase_add_test(tc, test_eval_diff);
	tcase_add_test(tc, test_eval_diff_close);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(check_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
