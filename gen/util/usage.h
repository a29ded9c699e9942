/* usage — what every command of bpfspec shares with its caller: the exit
 * statuses and the usage error.  The commands (cmd/) and serve (serve/)
 * both speak through it, so neither needs the other. */
#ifndef BPFSPEC_USAGE_H
#define BPFSPEC_USAGE_H

/* Exit statuses (documented in README.md, bpfspec(1) and --help). */
enum {
	EXIT_OK = 0,
	EXIT_CHECK_FAILED = 1,	/* a --fail-if or spec check held */
	EXIT_USAGE = 2,
	EXIT_SPEC = 3,
	EXIT_TARGET = 4,
	EXIT_TRACER = 5,
	EXIT_OUTPUT = 6,
	EXIT_PARTIAL = 7,
	EXIT_FORCED = 130,	/* a second Ctrl-C or SIGTERM: 128 + SIGINT */
	/* Not an exit status: a stage finished the command early and well
	 * (gen printed its program); the command exits 0. */
	EXIT_DONE = -1,
};

/* Says "error: FMT" with a hint to --help on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
