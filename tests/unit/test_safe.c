/* Unit tests for safe: the text form of strings the traced process
 * controls (every escape, what stays as it is, reversibility), display
 * widths, table cells that hostile names cannot widen, Prometheus label
 * values, the lossy UTF-8 and hex forms that JSON carries, and diag
 * messages quoting hostile paths.  Run under valgrind (CK_FORK=no). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/report.h"
#include "render/render.h"
#include "util/diag.h"
#include "util/safe.h"

#define ESC "\x1b"
/* A string literal where the report model wants a char *. */
#define S_(s) ((char *)(s))

/* What WRITE(S, f) wrote, as an owned string. */
static char *written(int (*write)(const char *, FILE *), const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(write(s, f), 0);
	fclose(f);
	return text;
}

static char *cell(const char *s, const char *suffix, size_t width)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(safe_fputs_cell(s, suffix, width, f), 0);
	fclose(f);
	return text;
}

static void assert_text(const char *in, const char *want)
{
	char *got = safe_text(in);
	ck_assert_str_eq(got, want);
	char *fp = written(safe_fputs, in);	/* both writers agree */
	ck_assert_str_eq(fp, want);
	free(fp);
	free(got);
}

/* True when TEXT holds no byte a terminal would act on: no C0 control but
 * '\n', no DEL, no byte >= 0x80 (the escapes are ASCII; valid wide
 * characters are checked elsewhere). */
static int terminal_safe_ascii(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p >= 0x7f)
			return 0;
	return 1;
}

/* ---- UTF-8 validity -------------------------------------------------- */

START_TEST(test_utf8_len)
{
	ck_assert_uint_eq(safe_utf8_len("a", 1), 1);
	ck_assert_uint_eq(safe_utf8_len("\xc3\xa9", 2), 2);
	ck_assert_uint_eq(safe_utf8_len("\xe2\x80\xae", 3), 3);
	ck_assert_uint_eq(safe_utf8_len("\xf0\x9f\x98\x80", 4), 4);
	ck_assert_uint_eq(safe_utf8_len("\xc3\xa9", 1), 0);	/* cut short */
	ck_assert_uint_eq(safe_utf8_len("\xc0\xaf", 2), 0);	/* overlong '/' */
	ck_assert_uint_eq(safe_utf8_len("\xe0\x80\xaf", 3), 0);	/* overlong */
	ck_assert_uint_eq(safe_utf8_len("\xed\xa0\x80", 3), 0);	/* surrogate */
	ck_assert_uint_eq(safe_utf8_len("\xf4\x90\x80\x80", 4), 0);	/* > U+10FFFF */
	ck_assert_uint_eq(safe_utf8_len("\x9b", 1), 0);	/* lone continuation */
	ck_assert_uint_eq(safe_utf8_len("\xff", 1), 0);
	ck_assert(safe_utf8_valid("caf\xc3\xa9", 5));
	ck_assert(!safe_utf8_valid("caf\xc3", 4));
}
END_TEST

/* ---- the text form --------------------------------------------------- */

START_TEST(test_text_plain_is_unchanged)
{
	assert_text("/usr/bin/node", "/usr/bin/node");
	assert_text("caf\xc3\xa9 \xe4\xb8\xad", "caf\xc3\xa9 \xe4\xb8\xad");	/* é, 中 */
	assert_text("", "");
	assert_text(NULL, "?");
}
END_TEST

START_TEST(test_text_escapes)
{
	/* C0 controls, DEL, a backslash. */
	assert_text(ESC "[31mRED" ESC "]0;x\x07", "\\x1b[31mRED\\x1b]0;x\\x07");
	assert_text("a\rb\nc\td\x7f", "a\\x0db\\x0ac\\x09d\\x7f");
	assert_text("a\\x1b", "a\\\\x1b");
	/* Invalid UTF-8: each byte.  A lone 0x9b (CSI in 8-bit terminals). */
	assert_text("\x9b" "31m", "\\x9b31m");
	assert_text("\xff\xfe", "\\xff\\xfe");
	assert_text("\xc0\xaf", "\\xc0\\xaf");
	/* Code points a terminal acts on or does not show: C1 CSI, RLO,
	 * isolates, zero-width space, BOM, line separator, soft hyphen, a
	 * combining mark, and one above U+FFFF (a tag character). */
	assert_text("\xc2\x9b", "\\u009b");
	assert_text("abc\xe2\x80\xaetxt.exe", "abc\\u202etxt.exe");
	assert_text("\xe2\x81\xa6x\xe2\x81\xa9", "\\u2066x\\u2069");
	assert_text("a\xe2\x80\x8b" "b", "a\\u200bb");
	assert_text("\xef\xbb\xbfx", "\\ufeffx");
	assert_text("a\xe2\x80\xa8" "b", "a\\u2028b");
	assert_text("a\xc2\xad" "b", "a\\u00adb");
	assert_text("e\xcc\x81", "e\\u0301");
	assert_text("\xf3\xa0\x80\x81", "\\U000e0001");
}
END_TEST

/* Decoding the three escapes gives back the original bytes. */
static char *decode_text(const char *t)
{
	char *out = malloc(strlen(t) + 1), *o = out;

	while (*t) {
		if (t[0] != '\\') {
			*o++ = *t++;
		} else if (t[1] == '\\') {
			*o++ = '\\';
			t += 2;
		} else if (t[1] == 'x') {
			unsigned b;
			ck_assert_int_eq(sscanf(t + 2, "%2x", &b), 1);
			*o++ = (char)b;
			t += 4;
		} else {
			unsigned cp, n = t[1] == 'u' ? 4 : 8;
			char digits[9] = { 0 };
			memcpy(digits, t + 2, n);
			cp = (unsigned)strtoul(digits, NULL, 16);
			if (cp < 0x800) {
				*o++ = (char)(0xc0 | cp >> 6);
			} else if (cp < 0x10000) {
				*o++ = (char)(0xe0 | cp >> 12);
				*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
			} else {
				*o++ = (char)(0xf0 | cp >> 18);
				*o++ = (char)(0x80 | (cp >> 12 & 0x3f));
				*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
			}
			*o++ = (char)(0x80 | (cp & 0x3f));
			t += 2 + n;
		}
	}
	*o = '\0';
	return out;
}

START_TEST(test_text_is_reversible_and_safe)
{
	static const char *const hostile[] = {
		ESC "]52;c;aGk=\x07", "\\x41\\\\", "\x9b\xc2\x9b\xe2\x80\xae\xff",
		"/tmp/\xe2\x81\xa7" "evil\r\n", "\xf3\xa0\x80\x81\xcc\x81\xc2\xad",
	};
	for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
		char *t = safe_text(hostile[i]);
		ck_assert_msg(terminal_safe_ascii(t), "unsafe text form %zu: %s", i, t);
		char *back = decode_text(t);
		ck_assert_str_eq(back, hostile[i]);
		free(back);
		free(t);
	}
}
END_TEST

START_TEST(test_quoted)
{
	char *q = written(safe_fputs_quoted, "say \"hi\"" ESC);
	ck_assert_str_eq(q, "\"say \\\"hi\\\"\\x1b\"");
	free(q);
}
END_TEST

/* ---- widths and cells ------------------------------------------------ */

START_TEST(test_width)
{
	ck_assert_uint_eq(safe_width("node"), 4);
	ck_assert_uint_eq(safe_width(ESC "[31m"), 8);	/* \x1b[31m */
	ck_assert_uint_eq(safe_width("\xe4\xb8\xad"), 2);	/* a wide character */
	ck_assert_uint_eq(safe_width("\xe2\x80\xae"), 6);	/* \u202e */
	ck_assert_uint_eq(safe_width("\\"), 2);
}
END_TEST

START_TEST(test_cell_fits_exactly)
{
	char *c = cell("node", " (main)", 22);
	ck_assert_str_eq(c, "node (main)           ");
	free(c);
	c = cell("worker", NULL, 16);
	ck_assert_str_eq(c, "worker          ");
	free(c);
	/* Exactly the width: no cut mark. */
	c = cell("0123456789abcdef", NULL, 16);
	ck_assert_str_eq(c, "0123456789abcdef");
	free(c);
}
END_TEST

START_TEST(test_cell_cuts_hostile_names)
{
	/* 15 bytes that would be 34 columns: cut, never wider than 16,
	 * and an escape is never split. */
	char *c = cell(ESC "[31mRED" ESC "]0;x\x07", NULL, 16);
	ck_assert_str_eq(c, "\\x1b[31mRED..   ");
	free(c);
	c = cell(ESC ESC ESC ESC ESC, NULL, 16);
	ck_assert_str_eq(c, "\\x1b\\x1b\\x1b..  ");
	free(c);
	/* The suffix survives the cut. */
	c = cell("\xe2\x80\xae\xe2\x80\xae\xe2\x80\xae\xe2\x80\xae", " (main)", 22);
	ck_assert_str_eq(c, "\\u202e\\u202e.. (main) ");
	ck_assert_uint_eq(strlen(c), 22);
	free(c);
	/* A wide character that would cross the edge is left out. */
	c = cell("abcdefghijklm\xe4\xb8\xad\xe4\xb8\xad", NULL, 16);
	ck_assert_str_eq(c, "abcdefghijklm.. ");
	free(c);
}
END_TEST

/* ---- Prometheus, JSON ------------------------------------------------ */

START_TEST(test_prom_label)
{
	/* The scraper unescapes \\ and \" and reads the text form. */
	char *l = written(safe_fputs_prom_label, "a\"b\\c" ESC "\n\xff");
	ck_assert_str_eq(l, "a\\\"b\\\\\\\\c\\\\x1b\\\\x0a\\\\xff");
	free(l);
}
END_TEST

START_TEST(test_lossy_and_hex)
{
	char *v = safe_utf8_lossy("a\xff\xc3\xa9\xed\xa0\x80");
	ck_assert_str_eq(v, "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(v);
	char hex[16];
	safe_hex(hex, "\x1b" "A\xff", 3);
	ck_assert_str_eq(hex, "1b41ff");
}
END_TEST

/* ---- the wire form: bytes through UTF-8-only JSON -------------------- */

START_TEST(test_wire_round_trip)
{
	/* Valid text, an invalid byte, a truncated sequence, and a real
	 * character in the reserved range (U+10FF9B). */
	static const char in[] = "caf\xc3\xa9 \xff \xe2\x82 \xf4\x8f\xbe\x9b .";
	char wire[sizeof in * SAFE_WIRE_LEN], *o = wire;
	size_t n = sizeof in - 1, used;

	for (size_t i = 0; i < n; i += used)
		o += safe_wire_encode((const unsigned char *)in + i, n - i, o, &used);
	*o = '\0';
	ck_assert(safe_utf8_valid(wire, strlen(wire)));
	ck_assert_ptr_nonnull(strstr(wire, "caf\xc3\xa9 \xf4\x8f\xbf\xbf "));	/* 0xff */
	safe_wire_decode(wire);
	ck_assert_str_eq(wire, in);
}
END_TEST

/* ---- diag quotes paths in the text form ---------------------------- */

START_TEST(test_diag_message_is_one_safe_line)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	diag_set_stream(f);
	diag_error("install the debug file for '/tmp/x\ny'",
		   "pid 42 runs '/tmp/a\nb" ESC "[2J/prog', which has no symbol 'f\xe2\x80\xae'");
	diag_set_stream(NULL);
	fclose(f);
	ck_assert_str_eq(text,
			 "bpfspec: error: pid 42 runs '/tmp/a\\x0ab\\x1b[2J/prog', which has no "
			 "symbol 'f\\u202e'\n"
			 "hint: install the debug file for '/tmp/x\\x0ay'\n");
	free(text);
}
END_TEST

/* ---- the text report: a hostile thread name keeps its row -------- */

START_TEST(test_render_text_hostile_thread)
{
	report_group g[] = {
		{ .tid = 7, .thread = S_("node"), .st = { .count = 1, .sum_ns = 5 } },
		{ .tid = 8, .thread = S_(ESC "]0;x\x07\xe2\x80\xae" ESC "[2J\xff"),
		  .st = { .count = 2, .sum_ns = 9 } },
	};
	report_probe probes[] = {
		{ .name = S_("timers"), .kind = PROBE_LATENCY, .function = S_("f"),
		  .object = S_("/srv/" ESC "[31m/node"), .unit = S_("ns"), .unit_ns = 1,
		  .attached = true, .groups = g, .n_groups = 2, .st = { .count = 3, .sum_ns = 14 } },
	};
	report rep = { .spec_name = S_("s"), .pid = 7, .binary = S_("/srv/" ESC "[31m/node"),
		       .duration_ns = 1000, .probes = probes, .n_probes = 1 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_int_eq(render_text(f, &rep), 0);
	fclose(f);
	ck_assert_msg(terminal_safe_ascii(text), "raw bytes in:\n%s", text);
	ck_assert_ptr_nonnull(strstr(text, "pid 7 (/srv/\\x1b[31m/node)"));
	/* Both thread rows end COUNT in the same column: TID (8), THREAD
	 * (22) and COUNT (10) with a space between, after two spaces. */
	const char *main_row = strstr(text, "\n  7        node (main)");
	const char *bad_row = strstr(text, "\n  8        \\x1b]0;x\\x07\\u202e..");
	ck_assert_ptr_nonnull(main_row);
	ck_assert_ptr_nonnull(bad_row);
	ck_assert_int_eq(main_row[1 + 2 + 8 + 1 + 22 + 10], '1');
	ck_assert_int_eq(bad_row[1 + 2 + 8 + 1 + 22 + 10], '2');
	ck_assert_int_eq(bad_row[1 + 2 + 8 + 1 + 22 + 11], ' ');
	free(text);
}
END_TEST

static Suite *safe_suite(void)
{
	Suite *s = suite_create("safe");
	TCase *tc = tcase_create("safe");
	tcase_add_test(tc, test_utf8_len);
	tcase_add_test(tc, test_text_plain_is_unchanged);
	tcase_add_test(tc, test_text_escapes);
	tcase_add_test(tc, test_text_is_reversible_and_safe);
	tcase_add_test(tc, test_quoted);
	tcase_add_test(tc, test_width);
	tcase_add_test(tc, test_cell_fits_exactly);
	tcase_add_test(tc, test_cell_cuts_hostile_names);
	tcase_add_test(tc, test_prom_label);
	tcase_add_test(tc, test_lossy_and_hex);
	tcase_add_test(tc, test_wire_round_trip);
	tcase_add_test(tc, test_diag_message_is_one_safe_line);
	tcase_add_test(tc, test_render_text_hostile_thread);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(safe_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
