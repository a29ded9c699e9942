/* main — bpfspec's entry: the table of its commands, help and version.
 * Each command is a function of its own layer: cmd/commands.h,
 * cmd/symbols.h and serve/serve.h. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/symbols.h"
#include "serve/serve.h"
#include "util/usage.h"
#include "util/version.h"

/* Every command: those of settings (cli_parse reads the options their
 * OPTIONS say they take) run RUN; the others parse their own arguments
 * in MAIN. */
typedef struct command {
	const char *name;
	const cli_command *options;
	int (*run)(settings *cfg);
	int (*main)(int argc, char **argv);
} command;

static const command commands[] = {
	{ "run", &cmd_run_cli, cmd_trace, NULL },
	{ "gen", &cmd_gen_cli, cmd_trace, NULL },
	{ "latency", &cmd_latency_cli, cmd_trace, NULL },
	{ "syscalls", &cmd_syscalls_cli, cmd_trace, NULL },
	{ "count", &cmd_count_cli, cmd_trace, NULL },
	{ "diff", &cmd_diff_cli, cmd_diff, NULL },
	{ "report", &cmd_report_cli, cmd_report, NULL },
	{ "check", NULL, NULL, cmd_check },
	{ "list", NULL, NULL, cmd_list },
	{ "symbols", NULL, NULL, symbols_main },
	{ "serve", NULL, NULL, serve_main },
};

static const command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

/* `bpfspec help [CMD]`, `-h`, `--help`. */
static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		fputs(cli_usage_text, stdout);
		return EXIT_OK;
	}
	const command *c = find_command(argv[1]);
	if (!c)
		return usage_error("no help on '%s': it is not a command", argv[1]);
	if (c->main) {
		char *help_argv[] = { (char *)c->name, (char *)"--help", NULL };
		return c->main(2, help_argv);
	}
	fputs(cli_help(c->options->mode), stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	cmd_start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	signal(SIGPIPE, SIG_IGN);
	/* Standard streams must exist, or a file opened later would take
	 * their place (a memfd read as stdout, for instance). */
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			return EXIT_OUTPUT;
	if (argc < 2)
		return usage_error("%s: no command given", "missing argument");
	const char *name = argv[1];
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0)
		return cmd_help(argc - 1, argv + 1);
	if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0) {
		printf("bpfspec %s (report schema %d)\n", BPFSPEC_VERSION, BPFSPEC_REPORT_SCHEMA);
		return EXIT_OK;
	}
	const command *c = find_command(name);
	if (!c)
		return usage_error("unknown command '%s'", name);
	if (c->main)
		return c->main(argc - 1, argv + 1);
	settings cfg = { .mode = c->options->mode };
	int rc = cli_parse(argc - 1, argv + 1, c->options, &cfg);
	if (rc == EXIT_OK)
		rc = c->run(&cfg);
	cli_free_argv(cfg.cmd);
	return rc;
}
