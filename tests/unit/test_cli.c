/* Unit tests for cli: -p repeated (several processes in one program),
 * its limits and the targets it cannot be combined with.  Diagnostics
 * are captured and their wording checked. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "helpers.h"
#include "util/diag.h"

/* Parses ARGS (NULL-terminated, the command first) for MODE into *CFG;
 * returns cli_parse's status, and what it printed in *OUT (owned). */
static int parse(run_mode mode, const char *const *args, settings *cfg, char **out)
{
	char *argv[200];
	int argc = 0;
	for (; args[argc]; argc++)
		argv[argc] = (char *)args[argc];
	argv[argc] = NULL;
	memset(cfg, 0, sizeof *cfg);
	cfg->mode = mode;
	capture_start();
	int rc = cli_parse(argc, argv, cfg);
	*out = capture_end();
	return rc;
}

START_TEST(test_pids_in_order)
{
	static const char *const args[] = { "run", "libuv-phases", "-p", "40", "-p", "12",
					    "--pid", "7", "-d", "0", "-i", "10s", "-o", "json",
					    NULL };
	settings cfg;
	char *out;
	ck_assert_int_eq(parse(MODE_RUN, args, &cfg, &out), EXIT_OK);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(cfg.n_pids, 3);
	ck_assert_int_eq(cfg.pids[0], 40);
	ck_assert_int_eq(cfg.pids[1], 12);
	ck_assert_int_eq(cfg.pids[2], 7);
	ck_assert_str_eq(cfg.spec_arg, "libuv-phases");
	free(out);
	cli_free_argv(cfg.cmd);

	static const char *const gen[] = { "gen", "libuv-phases", "-p", "3", "-p", "4", NULL };
	ck_assert_int_eq(parse(MODE_GEN, gen, &cfg, &out), EXIT_OK);
	ck_assert_uint_eq(cfg.n_pids, 2);
	free(out);
}
END_TEST

START_TEST(test_pid_twice)
{
	static const char *const args[] = { "run", "s.yaml", "-p", "40", "-p", "12", "-p", "40",
					    NULL };
	settings cfg;
	char *out;
	ck_assert_int_eq(parse(MODE_RUN, args, &cfg, &out), EXIT_USAGE);
	ck_assert_contains(out, "bpfspec: error: pid 40 is given twice (-p)");
	free(out);
}
END_TEST

/* 64 pids are taken, the 65th is a usage error naming the limit. */
START_TEST(test_pid_limit)
{
	const char *args[2 + 2 * 65 + 1] = { "run", "s.yaml" };
	char pids[65][16];
	size_t n = 2;
	for (int i = 0; i < 65; i++) {
		snprintf(pids[i], sizeof pids[i], "%d", 1000 + i);
		args[n++] = "-p";
		args[n++] = pids[i];
	}
	settings cfg;
	char *out;
	args[n - 2] = NULL;	/* 64 */
	ck_assert_int_eq(parse(MODE_RUN, args, &cfg, &out), EXIT_OK);
	ck_assert_uint_eq(cfg.n_pids, 64);
	ck_assert_int_eq(cfg.pids[63], 1063);
	free(out);
	args[n - 2] = "-p";	/* 65 */
	ck_assert_int_eq(parse(MODE_RUN, args, &cfg, &out), EXIT_USAGE);
	ck_assert_contains(out, "more than 64 pids (-p 1064): one run traces at most 64 processes");
	free(out);
}
END_TEST

/* A command is traced alone: -p does not go with -c or --. */
START_TEST(test_pids_and_command)
{
	static const char *const c[] = { "run", "s.yaml", "-p", "40", "-c", "sleep 1", NULL };
	static const char *const dash[] = { "run", "s.yaml", "-p", "40", "-p", "41", "--",
					    "sleep", "1", NULL };
	settings cfg;
	char *out;
	ck_assert_int_eq(parse(MODE_RUN, c, &cfg, &out), EXIT_USAGE);
	ck_assert_contains(out, "-p and a command (-c, --) cannot be combined");
	free(out);
	cli_free_argv(cfg.cmd);
	ck_assert_int_eq(parse(MODE_RUN, dash, &cfg, &out), EXIT_USAGE);
	ck_assert_contains(out, "-p and a command (-c, --) cannot be combined");
	free(out);
	cli_free_argv(cfg.cmd);
}
END_TEST

START_TEST(test_bad_pid)
{
	static const char *const args[] = { "run", "s.yaml", "-p", "40", "-p", "4x", NULL };
	settings cfg;
	char *out;
	ck_assert_int_eq(parse(MODE_RUN, args, &cfg, &out), EXIT_USAGE);
	ck_assert_contains(out, "invalid pid '4x': expected a positive number");
	free(out);
}
END_TEST

/* The help says -p may be repeated, and when the run ends. */
/* -o takes every format of the table (render/format.h) by name, text by
 * default; an unknown one is refused with the list; and what a row says
 * of a format is enforced: no --cumulative for html, --output for prom
 * with -i, --trace-threshold only with trace. */
START_TEST(test_formats)
{
	settings cfg;
	char *out;
	for (size_t i = 0; output_format_names[i]; i++) {
		const output_format *f = output_format_named(output_format_names[i]);
		ck_assert_ptr_nonnull(f);
		ck_assert_str_eq(f->name, output_format_names[i]);
		ck_assert_msg(!f->one != !f->whole, "%s: one of one and whole", f->name);
		const char *args[] = { "run", "s.yaml", "-p", "4", "-o", f->name, NULL };
		ck_assert_int_eq(parse(MODE_RUN, args, &cfg, &out), EXIT_OK);
		ck_assert_ptr_eq(cfg.format, f);
		free(out);
	}
	static const char *const plain[] = { "run", "s.yaml", "-p", "4", NULL };
	ck_assert_int_eq(parse(MODE_RUN, plain, &cfg, &out), EXIT_OK);
	ck_assert_ptr_eq(cfg.format, output_format_text);
	free(out);
	static const char *const bad[] = { "run", "s.yaml", "-p", "4", "-o", "xml", NULL };
	ck_assert_int_eq(parse(MODE_RUN, bad, &cfg, &out), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(out, "unknown output format 'xml': use text, json, prom, html, "
					  "trace or folded"));
	free(out);
	static const char *const cumulative[] = { "run", "s.yaml", "-p", "4", "-i", "1",
						  "--cumulative", "-o", "html", NULL };
	ck_assert_int_eq(parse(MODE_RUN, cumulative, &cfg, &out), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(out, "heatmap column"));
	free(out);
	static const char *const prom[] = { "run", "s.yaml", "-p", "4", "-i", "1", "-o", "prom",
					    NULL };
	ck_assert_int_eq(parse(MODE_RUN, prom, &cfg, &out), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(out, "-o prom with -i needs --output FILE"));
	free(out);
	/* diff and report trace nothing: no target is asked of them. */
	static const char *const diff[] = { "diff", "a.json", "b.json", "-o", "json", NULL };
	ck_assert_int_eq(parse(MODE_DIFF, diff, &cfg, &out), EXIT_OK);
	free(out);
	static const char *const saved[] = { "report", "a.json", "-o", "html", NULL };
	ck_assert_int_eq(parse(MODE_REPORT, saved, &cfg, &out), EXIT_OK);
	free(out);
	static const char *const saved_trace[] = { "report", "a.json", "-o", "trace", NULL };
	ck_assert_int_eq(parse(MODE_REPORT, saved_trace, &cfg, &out), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(out, "a saved report has no slices"));
	free(out);
	static const char *const threshold[] = { "run", "s.yaml", "-p", "4", "-o", "json",
						 "--trace-threshold", "2ms", NULL };
	ck_assert_int_eq(parse(MODE_RUN, threshold, &cfg, &out), EXIT_USAGE);
	free(out);
}
END_TEST

START_TEST(test_help_repeated_pid)
{
	ck_assert_contains(cli_help(MODE_RUN), "-p may be\nrepeated");
	ck_assert_contains(cli_help(MODE_RUN), "any\n-p process, exits");
	ck_assert_contains(cli_help(MODE_GEN), "-p PID [-p PID]...");
	ck_assert_contains(cli_usage_text, "-p may be\nrepeated");
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("pids");
	tcase_add_test(tc, test_pids_in_order);
	tcase_add_test(tc, test_pid_twice);
	tcase_add_test(tc, test_pid_limit);
	tcase_add_test(tc, test_pids_and_command);
	tcase_add_test(tc, test_bad_pid);
	tcase_add_test(tc, test_help_repeated_pid);
	tcase_add_test(tc, test_formats);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(cli_suite());
}
