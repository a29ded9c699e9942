/* commands — bpfspec's commands but serve and symbols (main/main.c's
 * table runs them): run, gen, latency, syscalls and count trace
 * (cmd_trace, trace.c: the pipeline spec → target → resolve → gen →
 * runner/bpfout → report → render); diff, report, check and list read
 * reports and specs (commands.c).  The CMD_TRACE-like
 * commands take the settings cli_parse filled; the others their argv
 * (ARGV[0] is the command's name).  Each returns an exit status
 * (util/usage.h). */
#ifndef BPFSPEC_COMMANDS_H
#define BPFSPEC_COMMANDS_H

#include <stdint.h>

#include "cmd/cli.h"

/* CLOCK_MONOTONIC when bpfspec started, for -v's timings (main sets it). */
extern uint64_t cmd_start_ns;

/* The options each command of settings takes and the rules between them
 * (cli_parse reads them): trace.c's, then commands.c's. */
extern const cli_command cmd_run_cli, cmd_gen_cli, cmd_latency_cli, cmd_syscalls_cli,
	cmd_count_cli;
extern const cli_command cmd_diff_cli, cmd_report_cli;

int cmd_trace(settings *cfg);
int cmd_diff(settings *cfg);
int cmd_report(settings *cfg);
int cmd_check(int argc, char **argv);
int cmd_list(int argc, char **argv);

#endif
