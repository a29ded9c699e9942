/* cli — bpfspec's command line: the help pages, the options of the
 * commands of settings and what each sets, the one parser that reads
 * them, and usage errors.  Each command says which options it takes and
 * the rules between them (its cli_command, beside it: commands.h); it
 * decides nothing about a run: the commands read the settings.
 *
 * Ownership: cli_parse fills CFG with pointers into ARGV, except cfg->cmd
 * (owned: cli_free_argv). */
#ifndef BPFSPEC_CLI_H
#define BPFSPEC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "render/format.h"
#include "target/target.h"
#include "util/usage.h"

typedef enum {
	MODE_RUN, MODE_GEN, MODE_LATENCY, MODE_SYSCALLS, MODE_COUNT, MODE_DIFF,
	MODE_CHECK, MODE_LIST, MODE_REPORT,
} run_mode;

#define MAX_CHECKS 64
#define MAX_SETS 64

typedef struct settings {
	run_mode mode;
	const char *spec_arg;	/* run, gen: the spec */
	char **args;		/* latency: functions; syscalls: list; count: probe
				 * points; diff, report: files */
	size_t n_args;
	pid_t pids[TARGET_MAX_PIDS];	/* -p, in order (repeatable; no pid twice) */
	size_t n_pids;
	const char *binary;
	char **cmd;		/* owned argv for -c, NULL-terminated */
	uint64_t duration_ns;
	bool duration_set;
	uint64_t interval_ns;
	unsigned interval_count;
	bool cumulative;
	/* --pids-from-stdin: the traced processes change through "+PID" and
	 * "-PID" lines on stdin (serve's children; runner_opts). */
	bool pids_from_stdin;
	const output_format *format;	/* -o (never NULL once parsed) */
	uint64_t trace_threshold_ns;	/* -o trace: a phase's slice, at least (1 ms) */
	bool trace_threshold_set;
	const char *output_path;	/* --output FILE */
	const char *fail_if[MAX_CHECKS];
	size_t n_fail_if;
	char *sets[MAX_SETS];	/* --set NAME=VALUE, in order */
	size_t n_sets;
	bool emit_spec;
	bool emit_program;
	bool verbose;
	/* --bpftrace-version: the dialect gen writes (0.0: the bpftrace run
	 * would start, 0.17 without one). */
	int bpftrace_major, bpftrace_minor;
} settings;

/* The help page of a command (the whole usage without one). */
extern const char cli_usage_text[];
const char *cli_help(run_mode mode);

/* Every option of the commands of settings (cli.c: what each sets), in
 * the one order getopt_long is given them whatever the command. */
typedef enum {
	OPT_PID, OPT_COMMAND, OPT_DURATION, OPT_INTERVAL, OPT_COUNT, OPT_CUMULATIVE,
	OPT_OUTPUT_FORMAT, OPT_OUTPUT, OPT_FAIL_IF, OPT_EMIT_SPEC, OPT_EMIT_PROGRAM,
	OPT_BINARY, OPT_SET, OPT_DEBUG_DIR, OPT_BPFTRACE_VERSION, OPT_TRACE_THRESHOLD,
	OPT_PIDS_FROM_STDIN, OPT_VERBOSE, OPT_HELP,
	OPT_END,	/* ends a command's table */
} cli_opt;

/* A command of settings: the options it takes and the rules between them
 * and its arguments.  Each rule returns EXIT_OK, or EXIT_USAGE after
 * saying why. */
typedef struct cli_command {
	run_mode mode;
	const cli_opt *options;	/* those it takes, up to OPT_END */
	/* Said of any option it does not take (NULL: that option's own words,
	 * as cli_refuse says them). */
	const char *refusal;
	int (*arguments)(settings *cfg);	/* its arguments: cfg->args */
	int (*check)(settings *cfg);	/* the rules between its options */
} cli_command;

/* Parses ARGV[1..ARGC) (ARGV[0] is the command's name) for CMD into CFG,
 * whose mode becomes CMD's; -h prints CMD's help page and exits.  Every
 * option is read (a bad value is said first), then CMD's arguments are
 * checked, then an option CMD does not take is refused (--set, --binary),
 * then CMD's rules hold, then the options of a printed program
 * (--emit-*, --bpftrace-version) are refused.  Returns EXIT_OK or, after
 * a usage error, EXIT_USAGE. */
int cli_parse(int argc, char **argv, const cli_command *cmd, settings *cfg);

/* Says why OPT is not for the command at hand, in its own words, and
 * returns EXIT_USAGE (for an option a command takes only with another). */
int cli_refuse(cli_opt opt);

void cli_free_argv(char **argv);

#endif
