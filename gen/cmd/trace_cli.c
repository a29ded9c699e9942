/* trace_cli — the options `bpfspec run`, `gen` and the one-liners
 * (latency, syscalls, count) take, and the rules between them: their
 * cli_command rows (cli.h), which main.c's table points to. */
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/commands_internal.h"

/* The options each takes (cli.c: what each sets), a line each for
 * TARGET, the window, the report, the spec, and those of every command. */

/* run SPEC TARGET: a spec over a window (or every -i), reported. */
static const cli_opt run_takes[] = {
	OPT_PID, OPT_COMMAND,
	OPT_DURATION, OPT_INTERVAL, OPT_COUNT, OPT_CUMULATIVE,
	OPT_OUTPUT_FORMAT, OPT_OUTPUT, OPT_TRACE_THRESHOLD, OPT_FAIL_IF,
	OPT_SET, OPT_PIDS_FROM_STDIN,
	OPT_DEBUG_DIR, OPT_VERBOSE, OPT_HELP, OPT_END,
};

/* gen SPEC (-p PID | --binary PATH): run's, but the program is printed:
 * for the executable of -p or for PATH, in a bpftrace's dialect.  -c is
 * read, and refused by gen's rules (as -- CMD is). */
static const cli_opt gen_takes[] = {
	OPT_PID, OPT_COMMAND, OPT_BINARY,
	OPT_DURATION, OPT_INTERVAL, OPT_COUNT, OPT_CUMULATIVE,
	OPT_OUTPUT_FORMAT, OPT_OUTPUT, OPT_TRACE_THRESHOLD, OPT_FAIL_IF,
	OPT_SET, OPT_BPFTRACE_VERSION,
	OPT_DEBUG_DIR, OPT_VERBOSE, OPT_HELP, OPT_END,
};

/* latency, syscalls, count TARGET ...: run's without --set (their spec
 * is their arguments), and they may print that spec or its program. */
static const cli_opt oneliner_takes[] = {
	OPT_PID, OPT_COMMAND,
	OPT_DURATION, OPT_INTERVAL, OPT_COUNT, OPT_CUMULATIVE,
	OPT_OUTPUT_FORMAT, OPT_OUTPUT, OPT_TRACE_THRESHOLD, OPT_FAIL_IF,
	OPT_EMIT_SPEC, OPT_EMIT_PROGRAM, OPT_BPFTRACE_VERSION,
	OPT_DEBUG_DIR, OPT_VERBOSE, OPT_HELP, OPT_END,
};

static const char pids_and_command[] = "-p and a command (-c, --) cannot be combined: a "
				       "command is traced alone; give -p PID (repeatable) or "
				       "one command";

/* run, gen: one SPEC. */
static int spec_argument(settings *cfg)
{
	if (cfg->n_args == 0)
		return usage_error("%s: no SPEC given", "missing argument");
	if (cfg->n_args > 1)
		return usage_error("unexpected argument '%s'", cfg->args[1]);
	cfg->spec_arg = cfg->args[0];
	return EXIT_OK;
}

static int latency_arguments(settings *cfg)
{
	if (cfg->n_args == 0)
		return usage_error("%s: name at least one FUNC", "missing argument");
	return EXIT_OK;
}

static int syscalls_arguments(settings *cfg)
{
	if (cfg->n_args > 1)
		return usage_error("unexpected argument '%s': give syscalls as one "
				   "comma-separated list", cfg->args[1]);
	return EXIT_OK;
}

static int count_arguments(settings *cfg)
{
	if (cfg->n_args == 0)
		return usage_error("%s: name at least one PROBE, e.g. "
				   "tracepoint:sched:sched_switch", "missing argument");
	return EXIT_OK;
}

/* One target to trace: -p PID (repeatable), -c CMD or -- CMD; none when
 * the command only PRINTS (--emit-spec). */
static int check_target(const settings *cfg, bool prints)
{
	if (cfg->n_pids > 0 && cfg->cmd)
		return usage_error("%s", pids_and_command);
	if (!prints && (cfg->n_pids > 0) + (cfg->cmd != NULL) != 1)
		return usage_error("%s", "give exactly one of -p PID, -c CMD or -- CMD");
	return EXIT_OK;
}

/* The rules of the window and report options of a traced run (-n, -i,
 * --cumulative, -o, --trace-threshold), and the threshold's default. */
static int check_window(settings *cfg)
{
	if (cfg->interval_count && !cfg->interval_ns)
		return usage_error("%s", "-n counts intervals: give -i too");
	if (cfg->format->one_report && cfg->interval_ns && !cfg->output_path)
		return usage_error("-o %s with -i needs --output FILE (rewritten every interval): "
				   "one stream cannot hold several scrapes", cfg->format->name);
	if (cfg->cumulative && !cfg->interval_ns)
		return usage_error("%s", "--cumulative applies to -i intervals");
	if (cfg->cumulative && cfg->format->no_cumulative)
		return usage_error("%s", cfg->format->no_cumulative);
	if (cfg->trace_threshold_set && !cfg->format->slices)
		return usage_error("%s", "--trace-threshold is the shortest phase -o trace "
				   "records: give -o trace too");
	if (!cfg->trace_threshold_set)
		cfg->trace_threshold_ns = 1000000;
	return EXIT_OK;
}

/* run's rules.  --emit-spec is refused after them (cli.c): given it, run
 * is told so, not that it lacks a target. */
static int run_check(settings *cfg)
{
	int rc = check_target(cfg, cfg->emit_spec) ?: check_window(cfg);
	if (rc == EXIT_OK && cfg->pids_from_stdin && (!cfg->n_pids || !cfg->interval_ns))
		return usage_error("%s", "--pids-from-stdin changes the -p processes of a run "
				   "with -i: give -p PID and -i");
	return rc;
}

/* gen's rules: one of -p and --binary, no command. */
static int gen_check(settings *cfg)
{
	if (cfg->n_pids > 0 && cfg->cmd)
		return usage_error("%s", pids_and_command);
	if (cfg->cmd)
		return usage_error("%s", "gen takes -p PID or --binary PATH");
	if (cfg->n_pids > 0 && cfg->binary)
		return usage_error("%s", "give one of -p PID or --binary PATH");
	if (cfg->n_pids == 0 && !cfg->binary)
		return usage_error("%s", "gen needs -p PID or --binary PATH to resolve symbols");
	return check_window(cfg);
}

/* The one-liners' rules: --bpftrace-version only for --emit-program. */
static int oneliner_check(settings *cfg)
{
	int rc = check_target(cfg, cfg->emit_spec) ?: check_window(cfg);
	if (rc == EXIT_OK && (cfg->bpftrace_major || cfg->bpftrace_minor) && !cfg->emit_program)
		return cli_refuse(OPT_BPFTRACE_VERSION);
	return rc;
}

const cli_command cmd_run_cli = {
	.mode = MODE_RUN, .options = run_takes, .arguments = spec_argument, .check = run_check,
};
const cli_command cmd_gen_cli = {
	.mode = MODE_GEN, .options = gen_takes, .arguments = spec_argument, .check = gen_check,
};
const cli_command cmd_latency_cli = {
	.mode = MODE_LATENCY, .options = oneliner_takes, .arguments = latency_arguments,
	.check = oneliner_check,
};
const cli_command cmd_syscalls_cli = {
	.mode = MODE_SYSCALLS, .options = oneliner_takes, .arguments = syscalls_arguments,
	.check = oneliner_check,
};
const cli_command cmd_count_cli = {
	.mode = MODE_COUNT, .options = oneliner_takes, .arguments = count_arguments,
	.check = oneliner_check,
};
