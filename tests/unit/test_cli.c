/* Unit tests for cli: -p repeated (several processes in one program),
 * its limits and the targets it cannot be combined with.  Diagnostics
 * are captured and their wording checked. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "helpers.h"
#include "util/diag.h"

/* Parses ARGS (NULL-terminated, the command first) for CMD into *CFG;
 * returns cli_parse's status, and what it printed in *OUT (owned). */
static int parse(const cli_command *cmd, const char *const *args, settings *cfg, char **out)
{
	char *argv[200];
	int argc = 0;
	for (; args[argc]; argc++)
		argv[argc] = (char *)args[argc];
	argv[argc] = NULL;
	memset(cfg, 0, sizeof *cfg);
	capture_start();
	int rc = cli_parse(argc, argv, cmd, cfg);
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
	ck_assert_int_eq(parse(&cmd_run_cli, args, &cfg, &out), EXIT_OK);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(cfg.n_pids, 3);
	ck_assert_int_eq(cfg.pids[0], 40);
	ck_assert_int_eq(cfg.pids[1], 12);
	ck_assert_int_eq(cfg.pids[2], 7);
	ck_assert_str_eq(cfg.spec_arg, "libuv-phases");
	free(out);
	cli_free_argv(cfg.cmd);

	static const char *const gen[] = { "gen", "libuv-phases", "-p", "3", "-p", "4", NULL };
	ck_assert_int_eq(parse(&cmd_gen_cli, gen, &cfg, &out), EXIT_OK);
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
	ck_assert_int_eq(parse(&cmd_run_cli, args, &cfg, &out), EXIT_USAGE);
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
	ck_assert_int_eq(parse(&cmd_run_cli, args, &cfg, &out), EXIT_OK);
	ck_assert_uint_eq(cfg.n_pids, 64);
	ck_assert_int_eq(cfg.pids[63], 1063);
	free(out);
	args[n - 2] = "-p";	/* 65 */
	ck_assert_int_eq(parse(&cmd_run_cli, args, &cfg, &out), EXIT_USAGE);
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
	ck_assert_int_eq(parse(&cmd_run_cli, c, &cfg, &out), EXIT_USAGE);
	ck_assert_contains(out, "-p and a command (-c, --) cannot be combined");
	free(out);
	cli_free_argv(cfg.cmd);
	ck_assert_int_eq(parse(&cmd_run_cli, dash, &cfg, &out), EXIT_USAGE);
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
	ck_assert_int_eq(parse(&cmd_run_cli, args, &cfg, &out), EXIT_USAGE);
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
	for (size_t i = 0; output_format_at(i); i++) {
		const output_format *f = output_format_named(output_format_at(i)->name);
		ck_assert_ptr_eq(f, output_format_at(i));
		ck_assert_msg(!f->one != !f->whole, "%s: one of one and whole", f->name);
		const char *args[] = { "run", "s.yaml", "-p", "4", "-o", f->name, NULL };
		ck_assert_int_eq(parse(&cmd_run_cli, args, &cfg, &out), EXIT_OK);
		ck_assert_ptr_eq(cfg.format, f);
		free(out);
	}
	static const char *const plain[] = { "run", "s.yaml", "-p", "4", NULL };
	ck_assert_int_eq(parse(&cmd_run_cli, plain, &cfg, &out), EXIT_OK);
	ck_assert_ptr_eq(cfg.format, output_format_text);
	free(out);
	static const char *const bad[] = { "run", "s.yaml", "-p", "4", "-o", "xml", NULL };
	ck_assert_int_eq(parse(&cmd_run_cli, bad, &cfg, &out), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(out, "unknown output format 'xml': use text, json, prom, html, "
					  "trace or folded"));
	free(out);
	static const char *const cumulative[] = { "run", "s.yaml", "-p", "4", "-i", "1",
						  "--cumulative", "-o", "html", NULL };
	ck_assert_int_eq(parse(&cmd_run_cli, cumulative, &cfg, &out), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(out, "heatmap column"));
	free(out);
	static const char *const prom[] = { "run", "s.yaml", "-p", "4", "-i", "1", "-o", "prom",
					    NULL };
	ck_assert_int_eq(parse(&cmd_run_cli, prom, &cfg, &out), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(out, "-o prom with -i needs --output FILE"));
	free(out);
	/* diff and report trace nothing: no target is asked of them. */
	static const char *const diff[] = { "diff", "a.json", "b.json", "-o", "json", NULL };
	ck_assert_int_eq(parse(&cmd_diff_cli, diff, &cfg, &out), EXIT_OK);
	free(out);
	static const char *const saved[] = { "report", "a.json", "-o", "html", NULL };
	ck_assert_int_eq(parse(&cmd_report_cli, saved, &cfg, &out), EXIT_OK);
	free(out);
	static const char *const saved_trace[] = { "report", "a.json", "-o", "trace", NULL };
	ck_assert_int_eq(parse(&cmd_report_cli, saved_trace, &cfg, &out), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(out, "a saved report has no slices"));
	free(out);
	static const char *const threshold[] = { "run", "s.yaml", "-p", "4", "-o", "json",
						 "--trace-threshold", "2ms", NULL };
	ck_assert_int_eq(parse(&cmd_run_cli, threshold, &cfg, &out), EXIT_USAGE);
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

/* ---- command lines, word for word ------------------------------------ */

/* The command named NAME. */
static const cli_command *command_named(const char *name)
{
	static const struct {
		const char *name;
		const cli_command *cmd;
	} commands[] = {
		{ "run", &cmd_run_cli }, { "gen", &cmd_gen_cli }, { "latency", &cmd_latency_cli },
		{ "syscalls", &cmd_syscalls_cli }, { "count", &cmd_count_cli },
		{ "diff", &cmd_diff_cli }, { "report", &cmd_report_cli },
	};
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].cmd;
	ck_abort_msg("no command %s", name);
	return NULL;
}

/* Parses ARGS (the command's name first) with standard error sent to a
 * file: returns cli_parse's status, and all it wrote there
 * (getopt_long's messages too) in *ERR (owned). */
static int parse_stderr(const char *const *args, char **err)
{
	char *argv[200];
	int argc = 0;
	for (; args[argc]; argc++)
		argv[argc] = (char *)args[argc];
	argv[argc] = NULL;
	settings cfg;
	memset(&cfg, 0, sizeof cfg);
	FILE *file = tmpfile();
	ck_assert_ptr_nonnull(file);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(fileno(file), STDERR_FILENO), 0);
	int rc = cli_parse(argc, argv, command_named(args[0]), &cfg);
	fflush(stderr);
	ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
	close(saved);
	cli_free_argv(cfg.cmd);
	diag_set_verbose(0);
	long len = ftell(file);
	ck_assert_int_ge(len, 0);
	*err = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(*err);
	rewind(file);
	ck_assert_uint_eq(fread(*err, 1, (size_t)len, file), (size_t)len);
	fclose(file);
	return rc;
}

#define USAGE(msg) "bpfspec: error: " msg "\nhint: see `bpfspec --help`\n"

/* Command lines of every command of settings and what cli_parse says of
 * them, word for word: unknown and ambiguous options, missing values,
 * bad numbers, options of another command, conflicting ones, and lines
 * it takes (EXIT_OK, nothing said: what follows is the command's).  The
 * --help pages, which exit, are test_docs.sh's. */
static const struct line {
	const char *args[12];	/* the command's name first */
	int rc;
	const char *err;
} lines[] = {
	{ { "run", "s.yaml", "-p", "40", "--bogus" },
	  EXIT_USAGE, "run: unrecognized option '--bogus'\n" },
	{ { "run", "s.yaml", "-x" },
	  EXIT_USAGE, "run: invalid option -- 'x'\n" },
	{ { "run", "-vx", "s.yaml" },
	  EXIT_USAGE, "run: invalid option -- 'x'\n" },
	{ { "latency", "-p", "40", "f", "--c", "x" },
	  EXIT_USAGE, "latency: option '--c' is ambiguous; possibilities: '--command' "
	  "'--count' '--cumulative'\n" },
	{ { "run", "s.yaml", "--d", "1" },
	  EXIT_USAGE, "run: option '--d' is ambiguous; possibilities: '--duration' "
	  "'--debug-dir'\n" },
	{ { "run", "s.yaml", "--o", "json" },
	  EXIT_USAGE, "run: option '--o' is ambiguous; possibilities: '--output-format' "
	  "'--output'\n" },
	{ { "latency", "f", "--e" },
	  EXIT_USAGE, "latency: option '--e' is ambiguous; possibilities: '--emit-spec' "
	  "'--emit-program'\n" },
	{ { "gen", "s.yaml", "--b", "x" },
	  EXIT_USAGE, "gen: option '--b' is ambiguous; possibilities: '--binary' "
	  "'--bpftrace-version'\n" },
	{ { "run", "s.yaml", "--=x" },
	  EXIT_USAGE, "run: option '--=x' is ambiguous; possibilities: '--pid' "
	  "'--command' '--duration' '--interval' '--count' '--cumulative' "
	  "'--output-format' '--output' '--fail-if' '--emit-spec' "
	  "'--emit-program' '--binary' '--set' '--debug-dir' "
	  "'--bpftrace-version' '--trace-threshold' '--pids-from-stdin' '--verbose' '--help'\n" },
	{ { "report", "f", "--em" },
	  EXIT_USAGE, "report: option '--em' is ambiguous; possibilities: '--emit-spec' "
	  "'--emit-program'\n" },
	{ { "run", "s.yaml", "--emit" },
	  EXIT_USAGE, "run: option '--emit' is ambiguous; possibilities: '--emit-spec' "
	  "'--emit-program'\n" },
	{ { "run", "s.yaml", "-p", "40", "--dur", "1" },
	  EXIT_OK, "" },
	{ { "report", "f", "--cum" },
	  EXIT_USAGE, USAGE("report takes FILE, -o and --output only: it renders a saved "
	  "report, it traces nothing") },
	{ { "diff", "a", "b", "--bogus" },
	  EXIT_USAGE, "diff: unrecognized option '--bogus'\n" },
	{ { "run", "s.yaml", "-p" },
	  EXIT_USAGE, "run: option requires an argument -- 'p'\n" },
	{ { "run", "s.yaml", "--pid" },
	  EXIT_USAGE, "run: option '--pid' requires an argument\n" },
	{ { "latency", "f", "-d" },
	  EXIT_USAGE, "latency: option requires an argument -- 'd'\n" },
	{ { "gen", "s.yaml", "--binary" },
	  EXIT_USAGE, "gen: option '--binary' requires an argument\n" },
	{ { "report", "f", "-o" },
	  EXIT_USAGE, "report: option requires an argument -- 'o'\n" },
	{ { "diff", "a", "b", "--fail-if" },
	  EXIT_USAGE, "diff: option '--fail-if' requires an argument\n" },
	{ { "run", "s.yaml", "--set" },
	  EXIT_USAGE, "run: option '--set' requires an argument\n" },
	{ { "run", "s.yaml", "-p", "40", "--output=" },
	  EXIT_OK, "" },
	{ { "run", "s.yaml", "-p", "0" },
	  EXIT_USAGE, USAGE("invalid pid '0': expected a positive number") },
	{ { "run", "s.yaml", "-p", "abc" },
	  EXIT_USAGE, USAGE("invalid pid 'abc': expected a positive number") },
	{ { "run", "s.yaml", "-p", "40", "-p", "40" },
	  EXIT_USAGE, USAGE("pid 40 is given twice (-p)") },
	{ { "run", "s.yaml", "-p", "40", "-d", "2x" },
	  EXIT_USAGE, USAGE("invalid duration '2x': use e.g. 10, 500ms, 10s, 2m (at most 1 day)") },
	{ { "run", "s.yaml", "-p", "40", "-i", "1ms" },
	  EXIT_USAGE, USAGE("invalid interval '1ms': use e.g. 1, 500ms, 10s (10ms to 1 day)") },
	{ { "run", "s.yaml", "-p", "40", "-n", "0" },
	  EXIT_USAGE, USAGE("invalid count '0': expected 1 to 1000000") },
	{ { "run", "s.yaml", "-p", "40", "-n", "-5" },
	  EXIT_USAGE, USAGE("invalid count '-5': expected 1 to 1000000") },
	{ { "run", "s.yaml", "-p", "40", "-n", "1000001" },
	  EXIT_USAGE, USAGE("invalid count '1000001': expected 1 to 1000000") },
	{ { "gen", "s.yaml", "-p", "40", "--bpftrace-version", "0.16" },
	  EXIT_USAGE, USAGE("invalid bpftrace version '0.16': expected e.g. 0.23 or 0.27.1 "
	  "(0.17 or later)") },
	{ { "gen", "s.yaml", "-p", "40", "--bpftrace-version", "1" },
	  EXIT_USAGE, USAGE("invalid bpftrace version '1': expected e.g. 0.23 or 0.27.1 (0.17 "
	  "or later)") },
	{ { "run", "s.yaml", "-p", "40", "--trace-threshold", "10ns" },
	  EXIT_USAGE, USAGE("invalid threshold '10ns': use e.g. 1ms, 200us, 0.5ms (1us or more)") },
	{ { "run", "s.yaml", "-p", "40", "-o", "xml" },
	  EXIT_USAGE, USAGE("unknown output format 'xml': use text, json, prom, html, trace or "
	  "folded") },
	{ { "run", "s.yaml", "-c", "" },
	  EXIT_USAGE, USAGE("empty command ''") },
	{ { "run", "s.yaml", "-c", "   " },
	  EXIT_USAGE, USAGE("empty command '   '") },
	{ { "latency", "-p", "40", "f", "--set", "a=b" },
	  EXIT_USAGE, USAGE("--set overrides a spec's parameters: it is for run and gen; "
	  "one-liners take their values as arguments") },
	{ { "syscalls", "-p", "40", "--binary", "/bin/true" },
	  EXIT_USAGE, USAGE("--binary is only for `bpfspec gen`") },
	{ { "count", "-p", "40", "tracepoint:a:b", "--binary", "x", "--set",
		  "a=b" },
	  EXIT_USAGE, USAGE("--set overrides a spec's parameters: it is for run and gen; "
	  "one-liners take their values as arguments") },
	{ { "latency", "--binary", "x", "--set", "a=b" },
	  EXIT_USAGE, USAGE("missing argument: name at least one FUNC") },
	{ { "run", "s.yaml", "-p", "40", "--binary", "/bin/true" },
	  EXIT_USAGE, USAGE("--binary is only for `bpfspec gen`") },
	{ { "run", "s.yaml", "-p", "40", "--emit-spec" },
	  EXIT_USAGE, USAGE("--emit-spec and --emit-program are for latency, syscalls and count") },
	{ { "run", "s.yaml", "--emit-spec" },
	  EXIT_USAGE, USAGE("--emit-spec and --emit-program are for latency, syscalls and count") },
	{ { "run", "s.yaml", "--emit-spec", "-n", "3" },
	  EXIT_USAGE, USAGE("-n counts intervals: give -i too") },
	{ { "run", "s.yaml", "-p", "40", "-c", "x", "--emit-spec" },
	  EXIT_USAGE, USAGE("-p and a command (-c, --) cannot be combined: a command is traced "
	  "alone; give -p PID (repeatable) or one command") },
	{ { "run", "s.yaml", "-p", "40", "--bpftrace-version", "0.23" },
	  EXIT_USAGE, USAGE("--bpftrace-version is for gen and --emit-program; run writes for "
	  "the bpftrace it starts (BPFSPEC_BPFTRACE)") },
	{ { "run", "s.yaml", "-p", "40", "--bpftrace-version", "0.23",
		  "--emit-program" },
	  EXIT_USAGE, USAGE("--emit-spec and --emit-program are for latency, syscalls and count") },
	{ { "run", "s.yaml", "-p", "40", "--bpftrace-version", "0.23",
		  "--emit-spec" },
	  EXIT_USAGE, USAGE("--bpftrace-version is for gen and --emit-program; run writes for "
	  "the bpftrace it starts (BPFSPEC_BPFTRACE)") },
	{ { "run", "s.yaml", "-p", "40", "--bpftrace-version", "0.23", "-n", "3" },
	  EXIT_USAGE, USAGE("-n counts intervals: give -i too") },
	{ { "run", "s.yaml", "-p", "40", "--bpftrace-version", "bad", "--binary",
		  "x" },
	  EXIT_USAGE, USAGE("invalid bpftrace version 'bad': expected e.g. 0.23 or 0.27.1 "
	  "(0.17 or later)") },
	{ { "run", "s.yaml", "--binary", "x", "--emit-spec", "-p", "40", "-n",
		  "2" },
	  EXIT_USAGE, USAGE("--binary is only for `bpfspec gen`") },
	{ { "gen", "s.yaml", "-p", "40", "--emit-program" },
	  EXIT_USAGE, USAGE("--emit-spec and --emit-program are for latency, syscalls and count") },
	{ { "gen", "s.yaml", "--emit-spec" },
	  EXIT_USAGE, USAGE("gen needs -p PID or --binary PATH to resolve symbols") },
	{ { "gen", "s.yaml", "-c", "ls" },
	  EXIT_USAGE, USAGE("gen takes -p PID or --binary PATH") },
	{ { "gen", "s.yaml", "-p", "40", "-c", "ls" },
	  EXIT_USAGE, USAGE("-p and a command (-c, --) cannot be combined: a command is traced "
	  "alone; give -p PID (repeatable) or one command") },
	{ { "gen", "s.yaml", "-p", "40", "--binary", "/bin/true" },
	  EXIT_USAGE, USAGE("give one of -p PID or --binary PATH") },
	{ { "gen", "s.yaml", "--", "ls" },
	  EXIT_USAGE, USAGE("gen takes -p PID or --binary PATH") },
	{ { "gen", "s.yaml", "--binary", "x", "-c", "ls" },
	  EXIT_USAGE, USAGE("gen takes -p PID or --binary PATH") },
	{ { "gen", "s.yaml", "--binary", "x", "-i", "1", "-o", "prom" },
	  EXIT_USAGE, USAGE("-o prom with -i needs --output FILE (rewritten every interval): "
	  "one stream cannot hold several scrapes") },
	{ { "gen", "s.yaml", "--binary", "/nonexistent-xyz" },
	  EXIT_OK, "" },
	{ { "report", "f", "-p", "40" },
	  EXIT_USAGE, USAGE("report takes FILE, -o and --output only: it renders a saved "
	  "report, it traces nothing") },
	{ { "report", "f", "-d", "bad" },
	  EXIT_USAGE, USAGE("invalid duration 'bad': use e.g. 10, 500ms, 10s, 2m (at most 1 "
	  "day)") },
	{ { "report", "f", "-p", "40", "-p", "40" },
	  EXIT_USAGE, USAGE("pid 40 is given twice (-p)") },
	{ { "report", "f", "--", "x" },
	  EXIT_USAGE, USAGE("report takes FILE, -o and --output only: it renders a saved "
	  "report, it traces nothing") },
	{ { "report", "--", "x" },
	  EXIT_USAGE, USAGE("arguments: report takes one FILE (a JSON report or an NDJSON "
	  "stream; - for standard input)") },
	{ { "report", "f", "-o", "trace", "--", "x" },
	  EXIT_USAGE, USAGE("report takes FILE, -o and --output only: it renders a saved "
	  "report, it traces nothing") },
	{ { "report", "f", "-o", "trace" },
	  EXIT_USAGE, USAGE("a saved report has no slices: -o trace is for run and the "
	  "one-liners, which record them as they trace") },
	{ { "report", "f", "-o", "trace", "--set", "a=b" },
	  EXIT_USAGE, USAGE("report takes FILE, -o and --output only: it renders a saved "
	  "report, it traces nothing") },
	{ { "report", "f", "--emit-spec", "--bpftrace-version", "0.23" },
	  EXIT_OK, "" },
	{ { "report", "f", "--binary", "x" },
	  EXIT_USAGE, USAGE("report takes FILE, -o and --output only: it renders a saved "
	  "report, it traces nothing") },
	{ { "report", "f", "--fail-if", "a > 1" },
	  EXIT_USAGE, USAGE("report takes FILE, -o and --output only: it renders a saved "
	  "report, it traces nothing") },
	{ { "report", "f", "g" },
	  EXIT_USAGE, USAGE("arguments: report takes one FILE (a JSON report or an NDJSON "
	  "stream; - for standard input)") },
	{ { "report" },
	  EXIT_USAGE, USAGE("arguments: report takes one FILE (a JSON report or an NDJSON "
	  "stream; - for standard input)") },
	{ { "diff", "a", "b", "-p", "40", "--binary", "x", "--set", "a=b",
		  "--emit-spec" },
	  EXIT_OK, "" },
	{ { "diff", "a", "b", "-o", "prom" },
	  EXIT_USAGE, USAGE("diff writes text or json (-o text|json)") },
	{ { "diff", "a" },
	  EXIT_USAGE, USAGE("arguments: diff takes BEFORE.json AFTER.json") },
	{ { "diff", "a", "b", "-p", "40", "-p", "40" },
	  EXIT_USAGE, USAGE("pid 40 is given twice (-p)") },
	{ { "diff", "a", "b", "-o", "html", "-p", "40" },
	  EXIT_USAGE, USAGE("diff writes text or json (-o text|json)") },
	{ { "latency", "-p", "40", "f", "--bpftrace-version", "0.23" },
	  EXIT_USAGE, USAGE("--bpftrace-version is for gen and --emit-program; run writes for "
	  "the bpftrace it starts (BPFSPEC_BPFTRACE)") },
	{ { "latency", "-p", "40", "f", "--bpftrace-version", "0.23",
		  "--emit-program" },
	  EXIT_OK, "" },
	{ { "latency", "f" },
	  EXIT_USAGE, USAGE("give exactly one of -p PID, -c CMD or -- CMD") },
	{ { "latency", "-p", "40" },
	  EXIT_USAGE, USAGE("missing argument: name at least one FUNC") },
	{ { "count", "-p", "40" },
	  EXIT_USAGE, USAGE("missing argument: name at least one PROBE, e.g. "
	  "tracepoint:sched:sched_switch") },
	{ { "syscalls", "-p", "40", "a", "b" },
	  EXIT_USAGE, USAGE("unexpected argument 'b': give syscalls as one comma-separated list") },
	{ { "syscalls", "-p", "40", "-c", "no-such-cmd-xyz" },
	  EXIT_USAGE, USAGE("-p and a command (-c, --) cannot be combined: a command is traced "
	  "alone; give -p PID (repeatable) or one command") },
	{ { "latency", "-c", "no-such-cmd-xyz", "f" },
	  EXIT_OK, "" },
	{ { "latency", "--emit-spec", "f" },
	  EXIT_OK, "" },
	{ { "latency", "--emit-program", "f" },
	  EXIT_USAGE, USAGE("give exactly one of -p PID, -c CMD or -- CMD") },
	{ { "syscalls", "--emit-spec", "read,write", "-d", "5s" },
	  EXIT_OK, "" },
	{ { "count", "--emit-spec", "tracepoint:sched:sched_switch",
		  "profile:hz:99" },
	  EXIT_OK, "" },
	{ { "run" },
	  EXIT_USAGE, USAGE("missing argument: no SPEC given") },
	{ { "run", "s.yaml", "t", "-p", "40" },
	  EXIT_USAGE, USAGE("unexpected argument 't'") },
	{ { "run", "s.yaml", "-p", "40", "-c", "ls" },
	  EXIT_USAGE, USAGE("-p and a command (-c, --) cannot be combined: a command is traced "
	  "alone; give -p PID (repeatable) or one command") },
	{ { "run", "s.yaml", "-p", "40", "--", "ls" },
	  EXIT_USAGE, USAGE("-p and a command (-c, --) cannot be combined: a command is traced "
	  "alone; give -p PID (repeatable) or one command") },
	{ { "run", "s.yaml", "-p", "40", "--" },
	  EXIT_USAGE, USAGE("command: nothing after '--'") },
	{ { "run", "--", "ls" },
	  EXIT_USAGE, USAGE("missing argument: no SPEC given") },
	{ { "run", "s.yaml", "-p", "40", "-n", "3" },
	  EXIT_USAGE, USAGE("-n counts intervals: give -i too") },
	{ { "run", "s.yaml", "-p", "40", "-i", "1", "-o", "prom" },
	  EXIT_USAGE, USAGE("-o prom with -i needs --output FILE (rewritten every interval): "
	  "one stream cannot hold several scrapes") },
	{ { "run", "s.yaml", "-p", "40", "--cumulative" },
	  EXIT_USAGE, USAGE("--cumulative applies to -i intervals") },
	{ { "run", "s.yaml", "-p", "40", "--pids-from-stdin" },
	  EXIT_USAGE, USAGE("--pids-from-stdin changes the -p processes of a run with -i: "
	  "give -p PID and -i") },
	{ { "run", "s.yaml", "-i", "1", "--pids-from-stdin", "--", "node" },
	  EXIT_USAGE, USAGE("--pids-from-stdin changes the -p processes of a run with -i: "
	  "give -p PID and -i") },
	{ { "gen", "s.yaml", "-p", "40", "--pids-from-stdin" },
	  EXIT_USAGE, USAGE("--pids-from-stdin is not an option of this command") },
	{ { "run", "s.yaml", "-p", "40", "-i", "1", "--cumulative", "-o", "html" },
	  EXIT_USAGE, USAGE("-o html draws each interval as a heatmap column: it takes -i "
	  "without --cumulative (the page sums the intervals itself)") },
	{ { "run", "s.yaml", "-p", "40", "--trace-threshold", "2ms" },
	  EXIT_USAGE, USAGE("--trace-threshold is the shortest phase -o trace records: give -o "
	  "trace too") },
	{ { "run", "s.yaml", "-p", "40", "-o", "trace", "--trace-threshold",
		  "2ms" },
	  EXIT_OK, "" },
	{ { "run", "s.yaml", "-p40" },
	  EXIT_OK, "" },
	{ { "run", "s.yaml", "-p", "40", "--output-format=json",
		  "--output=/dev/null" },
	  EXIT_OK, "" },
	{ { "run", "s.yaml", "-p", "40", "--debug-dir", "/tmp" },
	  EXIT_OK, "" },
	{ { "run", "s.yaml", "-p", "40", "--fail-if", "poll.p99 > +20%" },
	  EXIT_OK, "" },
	{ { "run", "s.yaml", "--", "-p", "1" },
	  EXIT_OK, "" },
	{ { "count", "-p", "40", "x", "--dur=1", "--set=a=b" },
	  EXIT_USAGE, USAGE("--set overrides a spec's parameters: it is for run and gen; "
	  "one-liners take their values as arguments") },

};

START_TEST(test_lines)
{
	const struct line *l = &lines[_i];
	char *err;
	int rc = parse_stderr(l->args, &err);
	ck_assert_msg(rc == l->rc, "line %d (%s %s...): status %d, expected %d", _i, l->args[0],
		      l->args[1] ? l->args[1] : "", rc, l->rc);
	assert_same_text(err, l->err);
	free(err);
}
END_TEST

/* 64 --set and 64 --fail-if are taken (then refused by a command that
 * takes neither); the 65th is said to be one too many, first. */
START_TEST(test_too_many)
{
	static const char *const words[][2] = { { "latency", "--set" }, { "report", "--fail-if" } };
	const char *said[] = { USAGE("at most 64 --set options"),
			       USAGE("at most 64 --fail-if conditions") };
	for (size_t k = 0; k < 2; k++) {
		const char *args[3 + 2 * 65 + 1] = { words[k][0], "-p40", "f" };
		size_t n = 3;
		for (int i = 0; i < 65; i++) {
			args[n++] = words[k][1];
			args[n++] = "a=1";
		}
		char *err;
		ck_assert_int_eq(parse_stderr(args, &err), EXIT_USAGE);
		assert_same_text(err, said[k]);
		free(err);
	}
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
	tc = tcase_create("lines");
	tcase_add_loop_test(tc, test_lines, 0, (int)(sizeof lines / sizeof *lines));
	tcase_add_test(tc, test_too_many);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(cli_suite());
}
