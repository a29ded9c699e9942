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

/* Every command: those of settings (cli.c parses their options) run
 * RUN; the others parse their own arguments in MAIN. */
typedef struct command {
	const char *name;
	run_mode mode;
	int (*run)(settings *cfg);
	int (*main)(int argc, char **argv);
} command;

static const command commands[] = {
	{ "run", MODE_RUN, cmd_trace, NULL },
	{ "gen", MODE_GEN, cmd_trace, NULL },
	{ "latency", MODE_LATENCY, cmd_trace, NULL },
	{ "syscalls", MODE_SYSCALLS, cmd_trace, NULL },
	{ "count", MODE_COUNT, cmd_trace, NULL },
	{ "diff", MODE_DIFF, cmd_diff, NULL },
	{ "report", MODE_REPORT, cmd_report, NULL },
	{ "check", MODE_CHECK, NULL, cmd_check },
	{ "list", MODE_LIST, NULL, cmd_list },
	{ "symbols", MODE_RUN, NULL, symbols_main },
	{ "serve", MODE_RUN, NULL, serve_main },
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
	fputs(cli_help(c->mode), stdout);
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
	settings cfg = { .mode = c->mode };
	int rc = cli_parse(argc - 1, argv + 1, &cfg);
	if (rc == EXIT_OK)
		rc = c->run(&cfg);
	cli_free_argv(cfg.cmd);
	return rc;
}
