/* cli — see cli.h. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "spec/spec.h"
#include "target/debuginfo.h"
#include "util/diag.h"

const char cli_usage_text[] =
	"usage: bpfspec COMMAND [OPTIONS]\n"
	"\n"
	"Commands:\n"
	"  run SPEC TARGET [--set NAME=VALUE]... [-d D] [-i S [-n N]] [-o F]\n"
	"        [--output FILE] [--fail-if C]...\n"
	"        trace a process with SPEC and print a report\n"
	"  latency TARGET FUNC...        one-liner: entry-to-return latency of functions\n"
	"  syscalls TARGET [NAME,...]    one-liner: syscall latency and errors (all by default)\n"
	"  count TARGET PROBE...         one-liner: how often probe points fire, per thread;\n"
	"        PROBE: tracepoint:CAT:NAME, uprobe:main:FUNC (or an absolute path for main),\n"
	"        uretprobe:..., usdt:OBJ:PROVIDER:NAME, kprobe:FUNC, software:EVENT:PERIOD,\n"
	"        profile:hz:N\n"
	"  gen SPEC (-p PID [-p PID]... | --binary PATH) [--set NAME=VALUE]... [-d D]\n"
	"      [--bpftrace-version V]\n"
	"        print the bpftrace program SPEC becomes, without running it\n"
	"  check SPEC... [--set NAME=VALUE]...\n"
	"        validate specs (errors name file, line, column)\n"
	"  diff BEFORE.json AFTER.json [-o text|json] [--fail-if C]...\n"
	"        compare two JSON reports probe by probe\n"
	"  report FILE [-o text|json|prom|html|folded] [--output FILE]\n"
	"        render a saved JSON report or -i stream (NDJSON) again, e.g. as HTML\n"
	"  list                          the bundled specs\n"
	"  symbols (-p PID | --binary PATH) [-o text|json] [GLOB]\n"
	"        functions (mangled and demangled) and USDT probes that can be traced\n"
	"  serve SPEC... --target NAME=SELECTOR... [--listen ADDR:PORT] [--interval D]\n"
	"        trace every process the targets select, all the time, as Prometheus\n"
	"        metrics on http://127.0.0.1:9477/metrics (`bpfspec serve --help`)\n"
	"\n"
	"TARGET is -p PID (a running process and all its threads; -p may be\n"
	"repeated, up to 64 processes of one executable in one program), -c 'CMD\n"
	"ARGS' (split on spaces, no shell) or -- CMD ARG... (exact); a command is\n"
	"held until the probes are attached.  The run ends when the command, or any\n"
	"-p process, exits.  SPEC is a YAML file or the name of a bundled spec\n"
	"(`bpfspec list`).\n"
	"\n"
	"Options:\n"
	"  -d, --duration D       window: 10 (seconds), 500ms, 10s, 2m; 0 = until Ctrl-C\n"
	"                         or the target exits; default: the spec's duration\n"
	"  -i, --interval S       a report every S (same syntax as -d), per interval\n"
	"  -n, --count N          stop after N intervals\n"
	"      --cumulative       with -i: each report covers the run so far\n"
	"  -o, --output-format F  text (default), json (one object; one line per\n"
	"                         interval with -i), prom (Prometheus text format),\n"
	"                         html (one self-contained page; with -i, written at\n"
	"                         the end with a heatmap column per interval) or trace\n"
	"                         (Chrome Trace Event JSON for Perfetto: a slice per\n"
	"                         phase call, records of events probes nested in them)\n"
	"                         or folded (the stacks a spec with 'stacks' sampled,\n"
	"                         one 'phase;thread;frames COUNT' line each, for flame\n"
	"                         graph tools)\n"
	"      --trace-threshold D  with -o trace: the shortest call that becomes a\n"
	"                         slice (default 1ms); shorter ones are counted\n"
	"      --output FILE      write the report to FILE, replaced atomically\n"
	"      --fail-if COND     exit with status 1 when COND holds, e.g.\n"
	"                         'poll.p99 > 100ms', 'syscalls.openat.errors.ENOENT > 0',\n"
	"                         with diff: 'poll.p99 > +20%'  (repeatable)\n"
	"      --emit-spec        (latency, syscalls, count) print the spec as YAML and stop\n"
	"      --emit-program     (latency, syscalls, count) print the bpftrace program\n"
	"                         and stop\n"
	"      --set NAME=VALUE   (run, gen, check) override a parameter of the spec;\n"
	"                         a list parameter takes VALUE,VALUE... (repeatable)\n"
	"      --binary PATH      (gen) resolve symbols in PATH; the program then traces\n"
	"                         every process running it\n"
	"      --bpftrace-version V  (gen, --emit-program) write the program for\n"
	"                         bpftrace V (e.g. 0.27); default: the one run starts\n"
	"      --debug-dir DIR    look for separate debug files of stripped objects in\n"
	"                         DIR first (.build-id/ tree or debuglink name; repeatable)\n"
	"  -v, --verbose          say what happens at each stage\n"
	"  -h, --help             this help (`bpfspec CMD --help`: one command's page);\n"
	"  -V, --version          the version\n"
	"\n"
	"Exit status: 0 ok; 1 a check failed; 2 usage; 3 invalid spec; 4 target\n"
	"problem (pid, binary, symbol, tracefs); 5 bpftrace failed; 6 output could not\n"
	"be written; 7 partial report (the target exited before the window ended);\n"
	"130 interrupted before a report (or twice).\n"
	"\n"
	"Examples:\n"
	"  bpfspec run libuv-phases -p $(pgrep -n node) -d 10s\n"
	"  bpfspec run libuv-phases -d 5s -o json -- node app.js\n"
	"  bpfspec latency -p $(pgrep -n node) uv__io_poll uv__run_timers -d 5\n"
	"  bpfspec syscalls -p $(pgrep -n node) openat,read -i 1 -n 10 -o json\n"
	"  bpfspec count -p $(pgrep -n node) tracepoint:sched:sched_switch -d 5\n"
	"  bpfspec run file-io -p 1234 --fail-if 'file.openat.errors.ENOENT > 0'\n"
	"  bpfspec run libuv-phases -p 1234 -o prom --output /var/lib/node_exporter/bpfspec.prom\n"
	"  bpfspec diff before.json after.json --fail-if 'poll.p99 > +20%'\n"
	"  bpfspec run libuv-phases -p 1234 -i 1 -n 60 -o html --output phases.html\n"
	"  bpfspec report stream.ndjson -o html --output stream.html\n"
	"  bpfspec run libuv-phases -p 1234 -d 10s -o trace --output loop.json\n"
	"  bpfspec gen specs/libuv-phases.yaml --binary /usr/bin/node\n"
	"  bpfspec symbols -p $(pgrep -n node) 'uv__run_*'\n";

/* One page per command, for `bpfspec CMD --help` and `bpfspec help CMD`. */
static const char help_target[] =
	"TARGET is -p PID (a running process and all its threads; -p may be\n"
	"repeated, up to 64 processes of one executable in one program), -c 'CMD\n"
	"ARGS' (split on spaces, no shell) or -- CMD ARG... (exact); a command is\n"
	"held until the probes are attached.  The run ends when the command, or any\n"
	"-p process, exits.\n";
static const char help_window[] =
	"  -d, --duration D       window: 10 (seconds), 500ms, 10s, 2m; 0 = until Ctrl-C\n"
	"                         or the target exits; default: the spec's, else 10s\n"
	"  -i, --interval S       a report every S, per interval (not cumulative)\n"
	"  -n, --count N          stop after N intervals\n"
	"      --cumulative       with -i: each report covers the run so far\n"
	"  -o, --output-format F  text (default), json (NDJSON with -i), prom, html,\n"
	"                         trace (Perfetto; --trace-threshold D, default 1ms) or\n"
	"                         folded (sampled stacks, for flame graphs)\n"
	"      --output FILE      write the report to FILE, replaced atomically\n"
	"      --fail-if COND     exit 1 when COND holds, e.g. 'poll.p99 > 100ms' (repeatable)\n"
	"  -v, --verbose          say what happens at each stage\n";

static const char help_run[] =
	"usage: bpfspec run SPEC TARGET [--set NAME=VALUE]... [OPTIONS]\n"
	"\n"
	"Traces TARGET with the probes of SPEC for one window (or every -i) and\n"
	"prints a report.  SPEC is a YAML file or a bundled spec's name (`bpfspec\n"
	"list`).  Checks in the spec and --fail-if conditions are evaluated after\n"
	"the window: exit 1 when one holds.\n";
static const char help_run_opts[] =
	"      --set NAME=VALUE   override a parameter the spec declares (repeatable;\n"
	"                         a list parameter takes VALUE,VALUE...)\n"
	"      --pids-from-stdin  with -p and -i: the traced processes change as lines\n"
	"                         +PID and -PID arrive on stdin, without a new bpftrace;\n"
	"                         a -p process's exit does not end the run (serve uses it)\n"
	"\n"
	"Examples:\n"
	"  bpfspec run libuv-phases -p $(pgrep -n node) -d 10s\n"
	"  bpfspec run file-io -p 1234 --set threshold=5ms --fail-if 'file.openat.errors.ENOENT > 0'\n"
	"  bpfspec run syscall-latency -p 1234 -i 1 -n 30 -o json\n"
	"  bpfspec run libuv-phases -d 5s -o json -- node app.js\n"
	"  bpfspec run libuv-phases -p 1234 -p 1240 -d 0 -i 10s -o json\n"
	"  bpfspec run libuv-phases -p 1234 -o prom --output /var/lib/node_exporter/bpfspec.prom\n"
	"  bpfspec run libuv-phases -p 1234 -i 1 -n 10 -o trace --output loop.json\n";
static const char help_gen[] =
	"usage: bpfspec gen SPEC (-p PID [-p PID]... | --binary PATH) [--set NAME=VALUE]...\n"
	"       [-d D] [--bpftrace-version V]\n"
	"\n"
	"Prints the bpftrace program SPEC becomes, without running it.  Symbols are\n"
	"resolved in the process PID (the first, when -p is repeated: every one must\n"
	"run the same executable) or in the file PATH; with --binary the program\n"
	"traces every process running PATH, and ends on Ctrl-C or after -d.\n"
	"\n"
	"The program is written for the bpftrace run would start (BPFSPEC_BPFTRACE,\n"
	"else bpftrace on PATH; 0.17 when there is none): versions differ in what\n"
	"compiles without warnings.  --bpftrace-version V (e.g. 0.27) writes it\n"
	"for another one, such as the one on the host that will run it.\n"
	"\n"
	"Examples:\n"
	"  bpfspec gen libuv-phases --binary /usr/bin/node > phases.bt && bpftrace phases.bt\n"
	"  bpfspec gen file-io -p 1234 --set threshold=10ms\n"
	"  bpfspec gen libuv-phases -p 1234 -p 1240\n"
	"  bpfspec gen libuv-phases --binary /usr/bin/node --bpftrace-version 0.27\n";
static const char help_latency[] =
	"usage: bpfspec latency TARGET FUNC... [OPTIONS]\n"
	"\n"
	"One-liner: entry-to-return latency of each FUNC, per thread.  Each FUNC is\n"
	"looked up in the executable first, then in every object mapped into the\n"
	"target.  --emit-spec prints the equivalent spec (a start for a spec file),\n"
	"--emit-program the bpftrace program.\n"
	"\n"
	"Examples:\n"
	"  bpfspec latency -p $(pgrep -n node) uv__io_poll uv__run_timers -d 5\n"
	"  bpfspec latency -p 1234 uv__io_poll --emit-spec > poll.yaml\n";
static const char help_syscalls[] =
	"usage: bpfspec syscalls TARGET [NAME,...] [OPTIONS]\n"
	"\n"
	"One-liner: latency, count and errors (by errno) of the named syscalls, or\n"
	"of every syscall, per thread; only TARGET's calls are counted.\n"
	"\n"
	"Examples:\n"
	"  bpfspec syscalls -p $(pgrep -n node) -d 10\n"
	"  bpfspec syscalls -p 1234 openat,read -i 1 -n 10 -o json\n"
	"  bpfspec syscalls -p 1234 openat --fail-if 'syscalls.openat.errors.ENOENT > 0'\n";
static const char help_count[] =
	"usage: bpfspec count TARGET PROBE... [OPTIONS]\n"
	"\n"
	"One-liner: how often each probe point fires in TARGET, per thread.\n"
	"PROBE: tracepoint:CAT:NAME, uprobe:main:FUNC (or an absolute path for main),\n"
	"uretprobe:..., usdt:OBJ:PROVIDER:NAME, kprobe:FUNC, software:EVENT:PERIOD,\n"
	"profile:hz:N.\n"
	"\n"
	"Examples:\n"
	"  bpfspec count -p $(pgrep -n node) tracepoint:sched:sched_switch -d 5\n"
	"  bpfspec count -p 1234 uprobe:main:uv__io_poll profile:hz:99 -d 10\n";
static const char help_diff[] =
	"usage: bpfspec diff BEFORE.json AFTER.json [-o text|json] [--fail-if COND]...\n"
	"\n"
	"Compares two JSON reports probe by probe (count, p50, p99, max, total) and\n"
	"says how much each changed.  Conditions may be relative: exit 1 when one holds.\n"
	"\n"
	"Examples:\n"
	"  bpfspec diff before.json after.json\n"
	"  bpfspec diff before.json after.json --fail-if 'poll.p99 > +20%' --fail-if 'timers.max > 50ms'\n";
static const char help_report[] =
	"usage: bpfspec report FILE [-o text|json|prom|html|folded] [--output FILE]\n"
	"\n"
	"Renders a report saved with -o json again, or a stream of them (one per\n"
	"line, from -i): text, JSON, Prometheus (one report only) or one HTML page\n"
	"(- reads standard input).  The HTML page is self-contained and fetches\n"
	"nothing: a latency heatmap per probe and thread across the intervals (a\n"
	"histogram for a single report), the summary, syscalls and events tables.\n"
	"\n"
	"Examples:\n"
	"  bpfspec run libuv-phases -p 1234 -i 1 -n 60 -o json > phases.ndjson\n"
	"  bpfspec report phases.ndjson -o html --output phases.html\n"
	"  bpfspec report before.json\n";
static const char help_check[] =
	"usage: bpfspec check SPEC... [--set NAME=VALUE]...\n"
	"\n"
	"Validates specs without tracing: every error names the file, line and\n"
	"column.  Prints each spec's probes and parameters.  Exit 3 when one is invalid.\n"
	"\n"
	"Examples:\n"
	"  bpfspec check my-spec.yaml\n"
	"  bpfspec check file-io --set threshold=5ms\n";
static const char help_list[] =
	"usage: bpfspec list\n"
	"\n"
	"Lists the bundled specs with their descriptions and parameters.  Run one\n"
	"with `bpfspec run NAME TARGET`; see its text with `bpfspec gen NAME --binary PATH`.\n";

const char *cli_help(run_mode mode)
{
	static char page[4096];
	const char *head = NULL, *tail = "";

	switch (mode) {
	case MODE_RUN: head = help_run; tail = help_run_opts; break;
	case MODE_GEN: return help_gen;
	case MODE_LATENCY: head = help_latency; break;
	case MODE_SYSCALLS: head = help_syscalls; break;
	case MODE_COUNT: head = help_count; break;
	case MODE_DIFF: return help_diff;
	case MODE_REPORT: return help_report;
	case MODE_CHECK: return help_check;
	case MODE_LIST: return help_list;
	}
	if (!head)
		return cli_usage_text;
	/* The shared parts: what TARGET is and the options of a traced run. */
	snprintf(page, sizeof page, "%s\n%s\nOptions:\n%s%s", head, help_target, help_window,
		 tail);
	return page;
}

static char **split_command(const char *s)
{
	size_t cap = 8, n = 0;
	char **argv = calloc(cap, sizeof *argv);
	char *copy = strdup(s), *save = NULL;
	if (!argv || !copy) {
		free(argv);
		free(copy);
		return NULL;
	}
	for (char *tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (n + 2 > cap) {
			char **na = realloc(argv, (cap *= 2) * sizeof *na);
			if (!na)
				break;
			argv = na;
		}
		argv[n++] = strdup(tok);
	}
	argv[n] = NULL;
	free(copy);
	return argv;
}

void cli_free_argv(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v <= 0 || v > INT_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* ---- what each option sets ------------------------------------------- */

/* Each takes an option's VALUE (NULL for one without) into CFG and
 * returns EXIT_OK, or EXIT_USAGE after saying why. */

/* -p: one more pid (not one given before, at most TARGET_MAX_PIDS). */
static int take_pid(settings *cfg, char *value)
{
	pid_t pid;
	if (parse_pid(value, &pid) < 0)
		return usage_error("invalid pid '%s': expected a positive number", value);
	for (size_t i = 0; i < cfg->n_pids; i++)
		if (cfg->pids[i] == pid)
			return usage_error("pid %d is given twice (-p)", (int)pid);
	if (cfg->n_pids == TARGET_MAX_PIDS)
		return usage_error("more than %d pids (-p %s): one run traces at most %d "
				   "processes; run one bpfspec per group of them",
				   TARGET_MAX_PIDS, value, TARGET_MAX_PIDS);
	cfg->pids[cfg->n_pids++] = pid;
	return EXIT_OK;
}

/* -c: the command, split on spaces (the last -c wins). */
static int take_command(settings *cfg, char *value)
{
	cli_free_argv(cfg->cmd);
	cfg->cmd = split_command(value);
	if (!cfg->cmd || !cfg->cmd[0])
		return usage_error("empty command '%s'", value);
	return EXIT_OK;
}

static int take_duration(settings *cfg, char *value)
{
	if (spec_parse_option_duration(value, &cfg->duration_ns) < 0)
		return usage_error("invalid duration '%s': use e.g. 10, 500ms, 10s, 2m "
				   "(at most 1 day)", value);
	cfg->duration_set = true;
	return EXIT_OK;
}

static int take_interval(settings *cfg, char *value)
{
	if (spec_parse_option_duration(value, &cfg->interval_ns) < 0 ||
	    cfg->interval_ns < 10000000ull)
		return usage_error("invalid interval '%s': use e.g. 1, 500ms, 10s "
				   "(10ms to 1 day)", value);
	return EXIT_OK;
}

static int take_count(settings *cfg, char *value)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(value, &end, 10);
	if (errno || *end || end == value || v == 0 || v > 1000000 || value[0] == '-')
		return usage_error("invalid count '%s': expected 1 to 1000000", value);
	cfg->interval_count = (unsigned)v;
	return EXIT_OK;
}

static int take_pids_from_stdin(settings *cfg, char *value)
{
	(void)value;
	cfg->pids_from_stdin = true;
	return EXIT_OK;
}

static int take_cumulative(settings *cfg, char *value)
{
	(void)value;
	cfg->cumulative = true;
	return EXIT_OK;
}

/* Says -o's NAME is no format, listing those there are ("use text,
 * json, ... or folded"); returns EXIT_USAGE. */
static int unknown_format(const char *name)
{
	char list[256] = "";
	size_t n = 0;
	while (output_format_at(n))
		n++;
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			 i == 0 ? "" : i + 1 == n ? " or " : ", ", output_format_at(i)->name);
	return usage_error("unknown output format '%s': use %s", name, list);
}

static int take_format(settings *cfg, char *value)
{
	if (!(cfg->format = output_format_named(value)))
		return unknown_format(value);
	return EXIT_OK;
}

static int take_output(settings *cfg, char *value)
{
	cfg->output_path = value;
	return EXIT_OK;
}

static int take_fail_if(settings *cfg, char *value)
{
	if (cfg->n_fail_if == MAX_CHECKS)
		return usage_error("at most %d --fail-if conditions", MAX_CHECKS);
	cfg->fail_if[cfg->n_fail_if++] = value;
	return EXIT_OK;
}

static int take_emit_spec(settings *cfg, char *value)
{
	(void)value;
	cfg->emit_spec = true;
	return EXIT_OK;
}

static int take_emit_program(settings *cfg, char *value)
{
	(void)value;
	cfg->emit_program = true;
	return EXIT_OK;
}

static int take_binary(settings *cfg, char *value)
{
	cfg->binary = value;
	return EXIT_OK;
}

static int take_set(settings *cfg, char *value)
{
	if (cfg->n_sets == MAX_SETS)
		return usage_error("at most %d --set options", MAX_SETS);
	cfg->sets[cfg->n_sets++] = value;
	return EXIT_OK;
}

static int take_debug_dir(settings *cfg, char *value)
{
	(void)cfg;
	if (debuginfo_add_dir(value) < 0)
		return usage_error("too many --debug-dir (at most 32): '%s'", value);
	return EXIT_OK;
}

/* --bpftrace-version: MAJOR.MINOR[.PATCH], 0.17 or later. */
static int take_bpftrace_version(settings *cfg, char *value)
{
	int major, minor, used = 0;
	if (sscanf(value, "%d.%d%n", &major, &minor, &used) != 2 ||
	    (value[used] != '\0' && value[used] != '.') || major < 0 || minor < 0 ||
	    (major == 0 && minor < 17) || major > 99 || minor > 999)
		return usage_error("invalid bpftrace version '%s': expected e.g. 0.23 "
				   "or 0.27.1 (0.17 or later)", value);
	cfg->bpftrace_major = major;
	cfg->bpftrace_minor = minor;
	return EXIT_OK;
}

static int take_trace_threshold(settings *cfg, char *value)
{
	if (spec_parse_option_duration(value, &cfg->trace_threshold_ns) < 0 ||
	    cfg->trace_threshold_ns < 1000)
		return usage_error("invalid threshold '%s': use e.g. 1ms, 200us, 0.5ms "
				   "(1us or more)", value);
	cfg->trace_threshold_set = true;
	return EXIT_OK;
}

static int take_verbose(settings *cfg, char *value)
{
	(void)value;
	cfg->verbose = true;
	diag_set_verbose(1);
	return EXIT_OK;
}

/* -h: the command's help page, and the end of bpfspec. */
static int take_help(settings *cfg, char *value)
{
	(void)value;
	fputs(cli_help(cfg->mode), stdout);
	exit(EXIT_OK);
}

/* An option: how getopt_long knows it, and what it sets. */
typedef struct cli_option {
	const char *name;	/* --NAME */
	char letter;		/* -L, or 0 */
	bool value;		/* takes a value */
	int (*take)(settings *cfg, char *value);
} cli_option;

/* Every option, each command's or not: getopt_long is given them all, in
 * this order, whatever the command, so that an abbreviation (--dur) means
 * the same option and an ambiguous one (--c) lists the same ones for
 * every command, and an option of another command is read and refused
 * (below) rather than unknown. */
static const cli_option options[OPT_END] = {
	[OPT_PID] = { "pid", 'p', true, take_pid },
	[OPT_COMMAND] = { "command", 'c', true, take_command },
	[OPT_DURATION] = { "duration", 'd', true, take_duration },
	[OPT_INTERVAL] = { "interval", 'i', true, take_interval },
	[OPT_COUNT] = { "count", 'n', true, take_count },
	[OPT_CUMULATIVE] = { "cumulative", 0, false, take_cumulative },
	[OPT_OUTPUT_FORMAT] = { "output-format", 'o', true, take_format },
	[OPT_OUTPUT] = { "output", 0, true, take_output },
	[OPT_FAIL_IF] = { "fail-if", 0, true, take_fail_if },
	[OPT_EMIT_SPEC] = { "emit-spec", 0, false, take_emit_spec },
	[OPT_EMIT_PROGRAM] = { "emit-program", 0, false, take_emit_program },
	[OPT_BINARY] = { "binary", 0, true, take_binary },
	[OPT_SET] = { "set", 0, true, take_set },
	[OPT_DEBUG_DIR] = { "debug-dir", 0, true, take_debug_dir },
	[OPT_BPFTRACE_VERSION] = { "bpftrace-version", 0, true, take_bpftrace_version },
	[OPT_TRACE_THRESHOLD] = { "trace-threshold", 0, true, take_trace_threshold },
	[OPT_PIDS_FROM_STDIN] = { "pids-from-stdin", 0, false, take_pids_from_stdin },
	[OPT_VERBOSE] = { "verbose", 'v', false, take_verbose },
	[OPT_HELP] = { "help", 'h', false, take_help },
};

/* ---- options a command does not take --------------------------------- */

/* What a command says of an option it does not take, unless it has words
 * of its own for any (cli_command.refusal), in this order: those not
 * LATE before the command's rules, the LATE ones (the options of a
 * printed program) after them.  --emit-program comes before
 * --bpftrace-version, which goes with it: a command given both is told
 * that --emit-program is not for it. */
static const struct refusal {
	cli_opt opt;
	bool late;
	const char *why;
} refusals[] = {
	{ OPT_SET, false, "--set overrides a spec's parameters: it is for run and gen; "
			  "one-liners take their values as arguments" },
	{ OPT_BINARY, false, "--binary is only for `bpfspec gen`" },
	{ OPT_EMIT_PROGRAM, true, "--emit-spec and --emit-program are for latency, syscalls "
				  "and count" },
	{ OPT_BPFTRACE_VERSION, true, "--bpftrace-version is for gen and --emit-program; run "
				      "writes for the bpftrace it starts (BPFSPEC_BPFTRACE)" },
	{ OPT_EMIT_SPEC, true, "--emit-spec and --emit-program are for latency, syscalls "
			       "and count" },
};

static const struct refusal *refusal_of(cli_opt opt)
{
	for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++)
		if (refusals[i].opt == opt)
			return &refusals[i];
	return NULL;
}

int cli_refuse(cli_opt opt)
{
	const struct refusal *r = refusal_of(opt);
	if (r)
		return usage_error("%s", r->why);
	return usage_error("--%s is not an option of this command", options[opt].name);
}

/* Refuses the first option of FOREIGN (those CMD does not take that were
 * given): of the LATE ones, or of the others (in CMD's words when it has
 * some).  Returns EXIT_OK when there is none, else EXIT_USAGE after
 * saying why. */
static int refuse_foreign(const cli_command *cmd, const bool *foreign, bool late)
{
	for (int o = 0; !late && cmd->refusal && o < OPT_END; o++)
		if (foreign[o])
			return usage_error("%s", cmd->refusal);
	for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++)
		if (refusals[i].late == late && foreign[refusals[i].opt])
			return usage_error("%s", refusals[i].why);
	for (int o = 0; !late && o < OPT_END; o++)
		if (foreign[o] && !refusal_of((cli_opt)o))
			return cli_refuse((cli_opt)o);
	return EXIT_OK;
}

/* ---- the parser ------------------------------------------------------ */

/* True when CMD takes option OPT. */
static bool takes(const cli_command *cmd, int opt)
{
	for (const cli_opt *o = cmd->options; *o != OPT_END; o++)
		if ((int)*o == opt)
			return true;
	return false;
}

/* getopt_long's value for a long option: past every letter. */
#define LONG_OPTION 256

/* The option getopt_long's C stands for, or -1 (an unknown option or a
 * missing value, which getopt_long has said). */
static int option_of(int c)
{
	for (int o = 0; o < OPT_END; o++)
		if (c == LONG_OPTION + o || (options[o].letter && c == options[o].letter))
			return o;
	return -1;
}

/* Reads the options of ARGV[1..N_OPTS) into CFG, every one of the table
 * above whatever CMD; sets FOREIGN[o] for one CMD does not take (read all
 * the same: a bad value is said before the command is).  Returns EXIT_OK,
 * or EXIT_USAGE after saying why. */
static int read_options(int n_opts, char **argv, const cli_command *cmd, settings *cfg,
			bool *foreign)
{
	struct option longopts[OPT_END + 1];
	char letters[2 * OPT_END + 1];
	size_t n = 0;
	for (int o = 0; o < OPT_END; o++) {
		longopts[o] = (struct option){ options[o].name,
					       options[o].value ? required_argument : no_argument,
					       NULL, LONG_OPTION + o };
		if (options[o].letter)
			n += (size_t)sprintf(letters + n, "%c%s", options[o].letter,
					     options[o].value ? ":" : "");
	}
	longopts[OPT_END] = (struct option){ NULL, 0, NULL, 0 };
	letters[n] = '\0';
	/* 0: getopt_long starts afresh (a parse before may have stopped
	 * inside a group of letters, -vx). */
	optind = 0;
	int c;
	while ((c = getopt_long(n_opts, argv, letters, longopts, NULL)) != -1) {
		int o = option_of(c);
		if (o < 0)
			return EXIT_USAGE;
		foreign[o] = foreign[o] || !takes(cmd, o);
		int rc = options[o].take(cfg, optarg);
		if (rc != EXIT_OK)
			return rc;
	}
	return EXIT_OK;
}

/* The command after "--", ARGV[FIRST..ARGC), into CFG (owned copies).
 * Returns EXIT_OK, or EXIT_USAGE. */
static int take_dash_command(int first, int argc, char **argv, settings *cfg)
{
	if (first >= argc)
		return usage_error("%s: nothing after '--'", "command");
	cli_free_argv(cfg->cmd);
	cfg->cmd = calloc((size_t)(argc - first + 1), sizeof *cfg->cmd);
	if (!cfg->cmd)
		return EXIT_USAGE;
	for (int k = 0, i = first; i < argc; k++, i++)
		if (!(cfg->cmd[k] = strdup(argv[i])))
			return EXIT_USAGE;
	return EXIT_OK;
}

int cli_parse(int argc, char **argv, const cli_command *cmd, settings *cfg)
{
	bool foreign[OPT_END] = { false };
	cfg->mode = cmd->mode;
	if (!cfg->format)
		cfg->format = output_format_text;
	/* Options may follow positional arguments; after "--" comes the command. */
	int n_opts = argc;
	for (int k = 1; k < argc; k++)
		if (strcmp(argv[k], "--") == 0) {
			n_opts = k;
			break;
		}
	int rc = read_options(n_opts, argv, cmd, cfg, foreign);
	if (rc != EXIT_OK)
		return rc;
	cfg->args = argv + optind;
	cfg->n_args = (size_t)(n_opts - optind);
	if (n_opts < argc && (rc = take_dash_command(n_opts + 1, argc, argv, cfg)) != EXIT_OK)
		return rc;
	rc = cmd->arguments(cfg);
	rc = rc ?: refuse_foreign(cmd, foreign, false);
	rc = rc ?: cmd->check(cfg);
	return rc ?: refuse_foreign(cmd, foreign, true);
}
