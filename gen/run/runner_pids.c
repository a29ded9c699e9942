/* runner_pids — a run whose traced processes change while it runs
 * (runner_opts.pids_from_stdin; runner_internal.h): a line "+PID" or
 * "-PID" becomes a call of runner_pids_change, which the program's
 * uprobe turns into a change of its @pids (templates/pids.bt.in).  The
 * lines come from whoever started the run (serve): still untrusted text,
 * read strictly. */
#include "run/runner_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/diag.h"
#include "util/safe.h"

/* noinline and with a side effect the compiler must keep, so that the
 * function exists at its own address for the program's uprobe. */
__attribute__((noinline)) void runner_pids_change(int pid, int traced)
{
	__asm__ volatile("" : : "r"(pid), "r"(traced) : "memory");
}

/* The pid of LINE ("+PID" or "-PID", a positive decimal int and nothing
 * more) and whether it joins; 0 when LINE is not one. */
static pid_t parse_change(const char *line, size_t len, bool *traced)
{
	if (len < 2 || len > 11 || (line[0] != '+' && line[0] != '-'))
		return 0;
	char *end;
	errno = 0;
	long v = strtol(line + 1, &end, 10);
	if (line[1] < '0' || line[1] > '9' || errno || end != line + len || v <= 0 ||
	    v > 0x7fffffff)
		return 0;
	*traced = line[0] == '+';
	return (pid_t)v;
}

static void on_line(void *ctx, const char *line, size_t len)
{
	const runner_pids_in *from = ctx;
	bool traced;
	pid_t pid = parse_change(line, len, &traced);
	if (!pid) {
		fputs("bpfspec: warning: ignored a line on stdin that is neither +PID nor -PID: ",
		      stderr);
		safe_fputs(line, stderr);
		fputc('\n', stderr);
		return;
	}
	runner_pids_change((int)pid, traced ? 1 : 0);
	diag_verbose("pid %d %s", (int)pid, traced ? "joins the traced processes"
						    : "leaves the traced processes");
	if (from->o->on_pids)
		from->o->on_pids(from->o->ctx, pid, traced);
}

void runner_pids_read(runner_pids_in *from)
{
	if (from->fd >= 0 && line_buffer_read(&from->lines, from->fd, on_line, from, "stdin") < 0)
		from->fd = -1;
}
