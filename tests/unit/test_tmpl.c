/* Unit tests for tmpl: placeholder expansion, "##" comment lines, every
 * class of malformed placeholder (with the template name and line in the
 * message), bpftrace's own "$var" syntax left alone, and the embedded
 * templates found by name.  Run under valgrind (CK_FORK=no) for leaks. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/tmpl.h"

/* ---- helpers ------------------------------------------------------- */

/* NULL-terminated name/value pairs. */
static const char *const values[] = {
	"name", "timers",
	"key", "tid",
	"empty", "",
	"x_1", "ONE",
	"multi", "a\nb",
	"dollar", "${name}",	/* values are not expanded again */
	NULL,
};

static unsigned lookups;

static const char *lookup(const char *name, void *ctx)
{
	const char *const *v = ctx;

	lookups++;
	for (size_t i = 0; v[i]; i += 2)
		if (strcmp(v[i], name) == 0)
			return v[i + 1];
	return NULL;
}

/* Expands TEXT; it must succeed and give WANT. */
static void expect_ok(const char *text, const char *want)
{
	char err[256] = "";
	char *got = tmpl_render("t.bt.in", text, lookup, (void *)values, err, sizeof err);

	ck_assert_msg(got != NULL, "rendering \"%s\" failed: %s", text, err);
	ck_assert_msg(strcmp(got, want) == 0, "rendering \"%s\":\n got \"%s\"\nwant \"%s\"",
		      text, got, want);
	free(got);
}

/* Expands TEXT; it must fail with a message containing each of WANT. */
static void expect_fail(const char *text, const char *want1, const char *want2)
{
	char err[256] = "";
	char *got = tmpl_render("t.bt.in", text, lookup, (void *)values, err, sizeof err);

	ck_assert_msg(got == NULL, "rendering \"%s\" should fail, got \"%s\"", text,
		      got ? got : "");
	ck_assert_msg(strstr(err, want1) != NULL, "expected \"%s\" in \"%s\"", want1, err);
	if (want2)
		ck_assert_msg(strstr(err, want2) != NULL, "expected \"%s\" in \"%s\"", want2, err);
}

/* ---- tests --------------------------------------------------------- */

static const struct {
	const char *text, *want;
} good[] = {
	/* No placeholders: unchanged. */
	{ "", "" },
	{ "BEGIN\n{\n\tprintf(\"hi\\n\");\n}\n", "BEGIN\n{\n\tprintf(\"hi\\n\");\n}\n" },
	{ "no newline at the end", "no newline at the end" },
	/* Placeholders. */
	{ "${name}", "timers" },
	{ "@b_${name}[${key}, $b]", "@b_timers[tid, $b]" },
	{ "${name}${name}", "timerstimers" },
	{ "a${empty}b", "ab" },
	{ "${x_1}", "ONE" },
	{ "${multi}\n${name}", "a\nb\ntimers" },
	{ "${dollar}", "${name}" },
	/* bpftrace variables and lone dollars stay. */
	{ "$ns = nsecs - @start[tid];", "$ns = nsecs - @start[tid];" },
	{ "$e >= 4 && $b", "$e >= 4 && $b" },
	{ "$", "$" },
	{ "$$", "$$" },
	{ "$${name}", "$timers" },
	{ "{name}", "{name}" },
	{ "$ {name}", "$ {name}" },
	/* "##" lines are dropped, wherever they are. */
	{ "## comment\nBEGIN\n", "BEGIN\n" },
	{ "## one\n## two ${nope}\nx\n", "x\n" },
	{ "a\n## comment\nb\n", "a\nb\n" },
	{ "a\n## last line without newline", "a\n" },
	{ "##\n", "" },
	{ "${name}\n## c\nb", "timers\nb" },
	/* ...but only at the start of a line, and only two of them. */
	{ "a ## b\n", "a ## b\n" },
	{ " ## b\n", " ## b\n" },
	{ "# one hash\n", "# one hash\n" },
	{ "x\n#\n", "x\n#\n" },
};

START_TEST(test_render_good)
{
	expect_ok(good[_i].text, good[_i].want);
}
END_TEST

static const struct {
	const char *text, *want1, *want2;
} bad[] = {
	{ "${nope}", "template t.bt.in:1:", "unknown placeholder '${nope}'" },
	{ "a\nb\n\t${nope}\n", "template t.bt.in:3:", "'${nope}'" },
	/* Dropped comment lines still count. */
	{ "## c\n## c\n${name}\n${nope}", "template t.bt.in:4:", "'${nope}'" },
	/* A value with newlines does not shift the template's line numbers. */
	{ "${multi}\n${nope}", "template t.bt.in:2:", "'${nope}'" },
	{ "${", "template t.bt.in:1:", "malformed placeholder" },
	{ "x\n${name", "template t.bt.in:2:", "malformed placeholder" },
	{ "${name\n}", "t.bt.in:1:", "malformed placeholder" },
	{ "${}", "t.bt.in:1:", "malformed placeholder" },
	{ "${Bad}", "t.bt.in:1:", "malformed placeholder" },
	{ "${nAme}", "t.bt.in:1:", "malformed placeholder" },
	{ "${1x}", "t.bt.in:1:", "malformed placeholder" },
	{ "${na-me}", "t.bt.in:1:", "malformed placeholder" },
	{ "${ name}", "t.bt.in:1:", "malformed placeholder" },
	{ "${name }", "t.bt.in:1:", "malformed placeholder" },
	{ "ok ${name} then ${}", "t.bt.in:1:", "malformed placeholder" },
	/* Longer than any name the renderer keeps. */
	{ "${aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}",
	  "t.bt.in:1:", NULL },
};

START_TEST(test_render_bad)
{
	expect_fail(bad[_i].text, bad[_i].want1, bad[_i].want2);
}
END_TEST

/* The lookup is asked only for well-formed names, once per placeholder. */
START_TEST(test_lookup_calls)
{
	char err[64];
	char *got;

	lookups = 0;
	got = tmpl_render("t", "$a $b ${name} ## ${key}\n## ${x}\n", lookup, (void *)values,
			  err, sizeof err);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, "$a $b timers ## tid\n");
	ck_assert_uint_eq(lookups, 2);
	free(got);

	lookups = 0;
	ck_assert_ptr_null(tmpl_render("t", "${Bad}", lookup, (void *)values, err, sizeof err));
	ck_assert_uint_eq(lookups, 0);
}
END_TEST

/* A small error buffer gets a truncated, NUL-terminated message. */
START_TEST(test_small_errbuf)
{
	char err[8];

	memset(err, 'X', sizeof err);
	ck_assert_ptr_null(tmpl_render("long-template-name.bt.in", "${nope}", lookup,
				       (void *)values, err, sizeof err));
	ck_assert_uint_eq(strlen(err), sizeof err - 1);
	ck_assert_str_eq(err, "templat");
}
END_TEST

/* Reads TOP/templates/NAME (TOP from the environment, else "."); owned. */
static char *read_template_file(const char *name)
{
	char path[4096];
	const char *top = getenv("TOP");
	FILE *f;
	char *text = NULL;
	size_t len = 0;

	snprintf(path, sizeof path, "%s/templates/%s", top ? top : ".", name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repo top or set TOP)", path);
	FILE *m = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(m);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return text;
}

START_TEST(test_get)
{
	static const char *const names[] = { "latency.bt.in", "header.bt.in", "begin.bt.in",
					     "end.bt.in", "window.bt.in" };

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		const char *t = tmpl_get(names[i]);
		ck_assert_msg(t != NULL, "template %s is not embedded", names[i]);
		char *file = read_template_file(names[i]);
		ck_assert_msg(strcmp(t, file) == 0, "embedded %s differs from templates/%s",
			      names[i], names[i]);
		free(file);
	}
	ck_assert_ptr_nonnull(strstr(tmpl_get("latency.bt.in"), "/${pid_test}${return_test}/"));
	ck_assert_ptr_null(tmpl_get("nope"));
	ck_assert_ptr_null(tmpl_get(""));
	ck_assert_ptr_null(tmpl_get("latency.bt"));
	ck_assert_ptr_null(tmpl_get("templates/latency.bt.in"));

	/* A name too long for the path buffer is just absent. */
	char longname[600];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	ck_assert_ptr_null(tmpl_get(longname));
}
END_TEST

/* Every embedded template expands with the names its header documents,
 * and no "##" line or placeholder survives. */
static const char *any_value(const char *name, void *ctx)
{
	(void)ctx;
	return name;
}

START_TEST(test_embedded_expand)
{
	static const char *const names[] = { "latency.bt.in", "header.bt.in", "begin.bt.in",
					     "end.bt.in", "window.bt.in" };
	char err[256];

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char *out = tmpl_render(names[i], tmpl_get(names[i]), any_value, NULL, err,
					sizeof err);
		ck_assert_msg(out != NULL, "%s: %s", names[i], err);
		ck_assert_msg(strstr(out, "${") == NULL, "%s: placeholder left", names[i]);
		ck_assert_msg(strncmp(out, "##", 2) != 0 && strstr(out, "\n##") == NULL,
			      "%s: comment line left", names[i]);
		free(out);
	}
}
END_TEST

static Suite *tmpl_suite(void)
{
	Suite *s = suite_create("tmpl");
	TCase *tc = tcase_create("render");

	tcase_add_loop_test(tc, test_render_good, 0, (int)(sizeof good / sizeof *good));
	tcase_add_loop_test(tc, test_render_bad, 0, (int)(sizeof bad / sizeof *bad));
	tcase_add_test(tc, test_lookup_calls);
	tcase_add_test(tc, test_small_errbuf);
	suite_add_tcase(s, tc);

	tc = tcase_create("embedded");
	tcase_add_test(tc, test_get);
	tcase_add_test(tc, test_embedded_expand);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tmpl_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
