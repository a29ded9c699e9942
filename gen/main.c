/* main — bpfspec's command line.  Parses options, then drives the
 * pipeline: spec → target → resolve → gen → runner/bpfout → report →
 * render.  No stage logic lives here. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "bpfout.h"
#include "diag.h"
#include "embedded.h"
#include "gen.h"
#include "render.h"
#include "report.h"
#include "resolve.h"
#include "runner.h"
#include "spec.h"
#include "symtab.h"
#include "target.h"
#include "version.h"

/* Exit statuses (documented in README.md and bpfspec --help). */
enum {
	EXIT_OK = 0,
	EXIT_CHECK_FAILED = 1,	/* reserved for runbook checks */
	EXIT_USAGE = 2,
	EXIT_SPEC = 3,
	EXIT_TARGET = 4,
	EXIT_TRACER = 5,
	EXIT_OUTPUT = 6,
	EXIT_PARTIAL = 7,
	EXIT_FORCED = RUNNER_FORCED_EXIT,
};

typedef enum { OUT_TEXT, OUT_JSON } out_format;

typedef struct settings {
	const char *spec_arg;
	pid_t pid;
	const char *binary;
	char **cmd;		/* owned argv for -c, NULL-terminated */
	uint64_t duration_ns;
	bool duration_set;
	out_format format;
	bool verbose;
} settings;

static const char usage_text[] =
	"usage: bpfspec COMMAND [OPTIONS]\n"
	"\n"
	"Commands:\n"
	"  run SPEC (-p PID | -c CMD | -- CMD ARG...) [-d DURATION] [-o text|json] [-v]\n"
	"        trace a process with SPEC and print a report\n"
	"  gen SPEC (-p PID | --binary PATH) [-d DURATION]\n"
	"        print the bpftrace program SPEC becomes, without running it\n"
	"  check SPEC...\n"
	"        validate specs; errors name the file, line and column\n"
	"  list  list the bundled specs\n"
	"\n"
	"SPEC is a YAML file, or the name of a bundled spec (see `bpfspec list`).\n"
	"\n"
	"Options:\n"
	"  -p, --pid PID          trace this running process (and all its threads)\n"
	"  -c, --command CMD      start CMD (split on spaces, no shell) held until the\n"
	"                         probes are attached; the run ends when it exits\n"
	"  -d, --duration D       window length: 10 (seconds), 500ms, 10s, 2m; 0 = until\n"
	"                         Ctrl-C or target exit; default: the spec's duration\n"
	"  -o, --output-format F  text (default) or json (schema: docs/report.md)\n"
	"      --binary PATH      (gen) resolve symbols in PATH; the program then traces\n"
	"                         every process running it\n"
	"  -v, --verbose          say what happens at each stage\n"
	"  -h, --help             this help;  -V, --version  the version\n"
	"\n"
	"Exit status: 0 ok; 2 usage; 3 invalid spec; 4 target problem (pid, binary,\n"
	"symbol); 5 bpftrace failed; 6 output could not be written; 7 partial report\n"
	"(the target exited before the window ended); 130 interrupted twice.\n"
	"\n"
	"Examples:\n"
	"  bpfspec run libuv-phases -p $(pgrep -n node) -d 10s\n"
	"  bpfspec run libuv-phases -d 5s -o json -- node app.js\n"
	"  bpfspec gen specs/libuv-phases.yaml --binary /usr/bin/node\n"
	"  bpfspec check specs/*.yaml\n";

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "bpfspec: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nhint: see `bpfspec --help`\n");
	return EXIT_USAGE;
}

/* Loads SPEC: a path, or the name of a bundled spec. */
static spec *load_spec(const char *arg)
{
	if (!strchr(arg, '/') && access(arg, F_OK) != 0) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "specs/%s%s", arg,
			 strstr(arg, ".yaml") ? "" : ".yaml");
		const embedded_file *f = embedded_find(path);
		if (f)
			return spec_parse(path, f->data, f->len);
	}
	return spec_load(arg);
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

static void free_argv(char **argv)
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

/* -d takes bare seconds (bcc habit) or a spec duration. */
static int parse_cli_duration(const char *s, uint64_t *ns)
{
	char buf[64];
	size_t n = strlen(s);
	if (n && n < 32 && strspn(s, "0123456789.") == n) {
		snprintf(buf, sizeof buf, "%ss", s);
		s = buf;
	}
	return spec_parse_duration(s, ns);
}

static int parse_options(int argc, char **argv, settings *cfg, bool allow_binary)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "command", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output-format", required_argument, NULL, 'o' },
		{ "binary", required_argument, NULL, 'B' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	/* Options may follow SPEC; everything after "--" is the command. */
	int n_opts = argc;
	for (int k = 1; k < argc; k++)
		if (strcmp(argv[k], "--") == 0) {
			n_opts = k;
			break;
		}
	optind = 1;
	while ((c = getopt_long(n_opts, argv, "p:c:d:o:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pid(optarg, &cfg->pid) < 0)
				return usage_error("invalid pid '%s': expected a positive number", optarg);
			break;
		case 'c':
			free_argv(cfg->cmd);
			cfg->cmd = split_command(optarg);
			if (!cfg->cmd || !cfg->cmd[0])
				return usage_error("empty command '%s'", optarg);
			break;
		case 'd':
			if (parse_cli_duration(optarg, &cfg->duration_ns) < 0)
				return usage_error("invalid duration '%s': use e.g. 10, 500ms, 10s, 2m "
						   "(at most 1 day)", optarg);
			cfg->duration_set = true;
			break;
		case 'o':
			if (strcmp(optarg, "text") == 0)
				cfg->format = OUT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				cfg->format = OUT_JSON;
			else
				return usage_error("unknown output format '%s': use text or json", optarg);
			break;
		case 'B':
			if (!allow_binary)
				return usage_error("%s: --binary is only for `bpfspec gen`", "option");
			cfg->binary = optarg;
			break;
		case 'v':
			cfg->verbose = true;
			diag_set_verbose(1);
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		default:
			return EXIT_USAGE;
		}
	}
	int i = optind;
	if (i < n_opts)
		cfg->spec_arg = argv[i++];
	if (i < n_opts)
		return usage_error("unexpected argument '%s'", argv[i]);
	if (n_opts < argc) {
		i = n_opts;
		i++;
		if (i >= argc)
			return usage_error("%s: nothing after '--'", "command");
		free_argv(cfg->cmd);
		cfg->cmd = calloc((size_t)(argc - i + 1), sizeof *cfg->cmd);
		if (!cfg->cmd)
			return EXIT_USAGE;
		for (int k = 0; i < argc; k++, i++)
			cfg->cmd[k] = strdup(argv[i]);
	}
	if (!cfg->spec_arg)
		return usage_error("%s: no SPEC given", "missing argument");
	int targets = (cfg->pid > 0) + (cfg->cmd != NULL) + (cfg->binary != NULL);
	if (targets != 1)
		return usage_error("%s", allow_binary ? "give exactly one of -p PID, --binary PATH"
						      : "give exactly one of -p PID, -c CMD or -- CMD");
	if (allow_binary && cfg->cmd)
		return usage_error("%s: gen takes -p PID or --binary PATH", "-c");
	return EXIT_OK;
}

static uint64_t start_ns;	/* CLOCK_MONOTONIC at start, for -v timings */

/* Run context shared with the window callback. */
typedef struct run_ctx {
	const settings *cfg;
	const resolved *res;
	const program *prog;
	bpfout *out;
	bool printed;
	bool partial;		/* the report printed was partial */
	bool write_failed;
	pid_t pid;
	uint64_t window_ns;
	runner_result *rr;
} run_ctx;

/* Whether the run so far makes the report partial, and why (in WHY). */
static bool run_is_partial(const run_ctx *ctx, char *why, size_t len)
{
	const runner_result *rr = ctx->rr;
	if (rr->forced) {
		snprintf(why, len, "interrupted twice: bpftrace was killed");
		return true;
	}
	if (rr->stop == RUNNER_STOP_TARGET && !ctx->cfg->cmd && ctx->window_ns > 0) {
		snprintf(why, len, "target pid %d exited %.2f s into a %.2f s window", (int)ctx->pid,
			 (double)(rr->stop_mono_ns - rr->begin_mono_ns) / 1e9,
			 (double)ctx->window_ns / 1e9);
		return true;
	}
	if (rr->stop == RUNNER_STOP_NONE || rr->stop == RUNNER_STOP_TRACER) {
		if (rr->term_signal)
			snprintf(why, len, "bpftrace was killed by %s", strsignal(rr->term_signal));
		else
			snprintf(why, len, "bpftrace stopped on its own (exit status %d)", rr->exit_code);
		return true;
	}
	return false;
}

static int emit_report(run_ctx *ctx, const bpfout_window *w)
{
	char why[256] = "";
	bool partial = run_is_partial(ctx, why, sizeof why);
	report_run info = {
		.pid = ctx->pid,
		.partial = partial,
		.partial_reason = partial ? why : NULL,
		.attached_probes = bpfout_attached(ctx->out),
		.expected_probes = ctx->prog->expected_attach,
		.lost_events = bpfout_lost_events(ctx->out),
		.begin_ns = ctx->rr->begin_mono_ns,
		.stop_ns = ctx->rr->stop_mono_ns,
	};
	report *rep = report_build(ctx->res, w, &info);
	if (!rep) {
		diag_error(NULL, "out of memory building the report");
		return -1;
	}
	if (info.attached_probes >= 0 && info.attached_probes < info.expected_probes) {
		char msg[160];
		snprintf(msg, sizeof msg, "only %ld of %ld probes attached: some figures are missing",
			 info.attached_probes, info.expected_probes);
		report_add_warning(rep, msg);
		diag_warn("%s", msg);
	}
	for (size_t i = 0; i < bpfout_note_count(ctx->out); i++)
		report_add_warning(rep, bpfout_note_at(ctx->out, i));
	int rc = ctx->cfg->format == OUT_JSON ? render_json(stdout, rep) : render_text(stdout, rep);
	if (rc == 0 && fflush(stdout) != 0)
		rc = -1;
	if (rc < 0) {
		diag_error("check the disk or the pipe stdout goes to",
			   "cannot write the report: %s", strerror(errno));
		ctx->write_failed = true;
	}
	report_free(rep);
	ctx->printed = true;
	ctx->partial = partial;
	return rc;
}

static void on_window(void *arg, const bpfout_window *w)
{
	emit_report(arg, w);
}

/* Where bpfspec's own window trigger lives, for the program's uprobe.
 * Returns 0 and fills PATH (size LEN) and *ADDR, or -1 (the program then
 * falls back to bpftrace's SIGINT path). */
static int find_trigger(char *path, size_t len, uint64_t *addr)
{
	char err[256];
	ssize_t n = readlink("/proc/self/exe", path, len - 1);
	if (n <= 0)
		return -1;
	path[n] = '\0';
	symtab_query q = { .name = RUNNER_TRIGGER_SYMBOL };
	if (symtab_resolve(path, &q, 1, NULL, err, sizeof err) < 0 || q.n_matches != 1) {
		symtab_query_free(&q, 1);
		return -1;
	}
	*addr = q.matches[0].addr;
	symtab_query_free(&q, 1);
	return 0;
}

static int cmd_run_or_gen(int argc, char **argv, bool gen_only)
{
	settings cfg = { .format = OUT_TEXT };
	int rc = parse_options(argc, argv, &cfg, gen_only);
	spec *s = NULL;
	target *t = NULL;
	resolved *res = NULL;
	program *prog = NULL;
	bpfout *out = NULL;
	held_command held = { .release_fd = -1 };
	char *cmd_path = NULL;
	char self[PATH_MAX];
	uint64_t trigger_addr = 0;

	if (rc != EXIT_OK)
		goto done;
	if (!(s = load_spec(cfg.spec_arg))) {
		rc = EXIT_SPEC;
		goto done;
	}
	uint64_t window = cfg.duration_set ? cfg.duration_ns : s->duration_ns;
	rc = EXIT_TARGET;
	if (cfg.pid > 0) {
		if (!(t = target_from_pid(cfg.pid)))
			goto done;
	} else if (cfg.binary) {
		if (!(t = target_from_path(cfg.binary)))
			goto done;
	} else {
		if (!(cmd_path = target_find_executable(cfg.cmd[0])))
			goto done;
		if (!(t = target_from_path(cmd_path)))
			goto done;
	}
	if (!(res = resolve_spec(s, t)))
		goto done;
	if (!gen_only && resolve_check_tracepoints(res) < 0)
		goto done;
	bool has_trigger = !gen_only && find_trigger(self, sizeof self, &trigger_addr) == 0;
	if (!gen_only && !has_trigger)
		diag_verbose("bpfspec's own symbol table is unavailable: windows end through "
			     "SIGINT, after bpftrace detaches");
	if (cfg.cmd) {
		if (runner_hold_command(cmd_path, cfg.cmd, &held) < 0)
			goto done;
		t->pid = held.pid;
	}
	gen_options go = {
		.pid = t->pid,
		.window_ns = window,
		.trigger_path = has_trigger ? self : NULL,
		.trigger_addr = trigger_addr,
		.trigger_pid = getpid(),
	};
	if (!(prog = gen_program(res, &go))) {
		rc = EXIT_SPEC;
		goto done;
	}
	if (gen_only) {
		rc = fputs(prog->text, stdout) < 0 || fflush(stdout) != 0 ? EXIT_OUTPUT : EXIT_OK;
		if (rc != EXIT_OK)
			diag_error(NULL, "cannot write the program: %s", strerror(errno));
		goto done;
	}

	out = bpfout_new();
	if (!out) {
		diag_error(NULL, "out of memory");
		rc = EXIT_TRACER;
		goto done;
	}
	const char *bpftrace = getenv("BPFSPEC_BPFTRACE");
	runner_result rr;
	memset(&rr, 0, sizeof rr);
	run_ctx ctx = { .cfg = &cfg, .res = res, .prog = prog, .out = out, .pid = t->pid,
			.window_ns = window, .rr = &rr };
	runner_opts ro = {
		.bpftrace = bpftrace && *bpftrace ? bpftrace : "bpftrace",
		.prog = prog,
		.has_trigger = has_trigger,
		.pid = t->pid,
		.held = cfg.cmd ? &held : NULL,
		.window_ns = window,
		.out = out,
		.on_window = on_window,
		.ctx = &ctx,
		.t0_ns = start_ns,
	};
	diag_verbose("running bpftrace on pid %d, window %.3f s", (int)t->pid, (double)window / 1e9);
	if (runner_run(&ro, &rr) < 0) {
		rc = EXIT_TRACER;
		goto done;
	}
	if (cfg.cmd && !held.reaped)
		runner_abandon(&held);	/* the window ended before the command did */
	if (cfg.cmd && held.reaped && WIFEXITED(held.status) && WEXITSTATUS(held.status) == 127)
		diag_warn("the command exited with status 127: it may not have run at all");

	if (!rr.begun) {
		if (rr.interrupted) {
			diag_error(NULL, "interrupted before the probes were attached: no report");
			rc = EXIT_FORCED;
		} else {
			char how[64];
			if (rr.term_signal)
				snprintf(how, sizeof how, "killed by %s", strsignal(rr.term_signal));
			else
				snprintf(how, sizeof how, "exit status %d", rr.exit_code);
			diag_error(rr.error_lines ? "the lines above are bpftrace's own; `bpfspec gen` "
						    "with the same arguments shows the program"
						  : "run again with -v for details",
				   "bpftrace failed before attaching its probes (%s)", how);
			rc = EXIT_TRACER;
		}
		goto done;
	}
	if (!ctx.printed) {
		/* No window completed: report what was printed (bpftrace died). */
		const bpfout_window *w = bpfout_window_count(out) ? bpfout_window_at(out, 0)
								  : bpfout_trailing(out);
		if (emit_report(&ctx, w) < 0) {
			rc = EXIT_OUTPUT;
			goto done;
		}
	}
	if (ctx.write_failed)
		rc = EXIT_OUTPUT;
	else if (rr.forced)
		rc = EXIT_FORCED;
	else if (ctx.partial && rr.stop == RUNNER_STOP_TARGET)
		rc = EXIT_PARTIAL;
	else if (ctx.partial)
		rc = EXIT_TRACER;
	else
		rc = EXIT_OK;
done:
	if (held.pid > 0 && !held.reaped)
		runner_abandon(&held);
	bpfout_free(out);
	program_free(prog);
	resolved_free(res);
	target_free(t);
	spec_free(s);
	free(cmd_path);
	free_argv(cfg.cmd);
	return rc;
}

static int cmd_check(int argc, char **argv)
{
	int rc = EXIT_OK;
	if (argc < 2)
		return usage_error("%s: check needs at least one SPEC", "missing argument");
	for (int i = 1; i < argc; i++) {
		spec *s = load_spec(argv[i]);
		if (!s) {
			rc = EXIT_SPEC;
			continue;
		}
		printf("%s: ok (%zu probe%s)\n", argv[i], s->n_probes, s->n_probes == 1 ? "" : "s");
		spec_free(s);
	}
	return rc;
}

static int cmd_list(void)
{
	for (size_t i = 0; i < embedded_count; i++) {
		const char *p = embedded_files[i].path;
		if (strncmp(p, "specs/", 6) != 0)
			continue;
		spec *s = spec_parse(p, embedded_files[i].data, embedded_files[i].len);
		if (!s)
			continue;
		printf("%-20s %s\n", s->name, s->description ? s->description : "");
		spec_free(s);
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		return usage_error("%s: no command given", "missing argument");
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("bpfspec %s (report schema %d)\n", BPFSPEC_VERSION, BPFSPEC_REPORT_SCHEMA);
		return EXIT_OK;
	}
	if (strcmp(cmd, "run") == 0)
		return cmd_run_or_gen(argc - 1, argv + 1, false);
	if (strcmp(cmd, "gen") == 0)
		return cmd_run_or_gen(argc - 1, argv + 1, true);
	if (strcmp(cmd, "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(cmd, "list") == 0)
		return cmd_list();
	return usage_error("unknown command '%s'", cmd);
}
