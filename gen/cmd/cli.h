/* cli — bpfspec's command line: the help pages, the options of every
 * command into a settings struct, and usage errors.  It decides nothing
 * about a run; the commands (commands.h) read the settings.
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

/* Parses ARGV[1..ARGC) (ARGV[0] is the command) into CFG, whose mode is
 * set.  Returns EXIT_OK or, after a usage error, EXIT_USAGE. */
int cli_parse(int argc, char **argv, settings *cfg);

void cli_free_argv(char **argv);

#endif
