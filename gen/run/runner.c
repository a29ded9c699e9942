/* runner — see runner.h. */
#include "run/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/runner_internal.h"
#include "util/child.h"
#include "util/diag.h"
#include "util/safe.h"


int64_t runner_clock_offset_ns(void)
{
	struct timespec rt, mono;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &rt);
	return ((int64_t)rt.tv_sec - (int64_t)mono.tv_sec) * 1000000000ll +
	       ((int64_t)rt.tv_nsec - (int64_t)mono.tv_nsec);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pidfd_open_compat(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* The traced processes, each through a pidfd that polls readable once
 * it has exited (a pid that could not be opened is not watched). */
typedef struct target_watch {
	pid_t pids[GEN_MAX_PIDS];
	int fds[GEN_MAX_PIDS];	/* -1: not watched (any more) */
	size_t n;
} target_watch;

static void watch_open(target_watch *tw, const pid_t *pids, size_t n)
{
	tw->n = n < GEN_MAX_PIDS ? n : GEN_MAX_PIDS;
	for (size_t i = 0; i < tw->n; i++) {
		tw->pids[i] = pids[i];
		tw->fds[i] = pids[i] > 0 ? pidfd_open_compat(pids[i]) : -1;
	}
}

/* Appends a pollfd per watched process to PF (from *N on); their
 * indexes into IDX (-1: not polled). */
static void watch_polls(const target_watch *tw, struct pollfd *pf, int *n, int *idx)
{
	for (size_t i = 0; i < tw->n; i++) {
		idx[i] = -1;
		if (tw->fds[i] >= 0) {
			pf[*n] = (struct pollfd){ tw->fds[i], POLLIN, 0 };
			idx[i] = (*n)++;
		}
	}
}

/* The first watched process that has exited (per PF and IDX from
 * watch_polls, or polled now when PF is NULL), no longer watched; 0 when
 * none has. */
static pid_t watch_exited(target_watch *tw, const struct pollfd *pf, const int *idx)
{
	for (size_t i = 0; i < tw->n; i++) {
		if (tw->fds[i] < 0)
			continue;
		struct pollfd now = { tw->fds[i], POLLIN, 0 };
		bool gone = pf ? idx[i] >= 0 && pf[idx[i]].revents
			       : poll(&now, 1, 0) > 0 && now.revents;
		if (!gone)
			continue;
		close(tw->fds[i]);
		tw->fds[i] = -1;
		return tw->pids[i];
	}
	return 0;
}

static void watch_close(target_watch *tw)
{
	for (size_t i = 0; i < tw->n; i++)
		if (tw->fds[i] >= 0)
			close(tw->fds[i]);
	tw->n = 0;
}

/* noinline and with a side effect the compiler must keep, so that the
 * function exists at its own address for the program's uprobe. */
__attribute__((noinline)) void runner_window_end(int final)
{
	__asm__ volatile("" : : "r"(final) : "memory");
}

/* One of bpftrace's output pipes, read by lines. */
typedef struct pipe_in {
	int fd;			/* -1 once its end was read */
	line_buffer lines;
} pipe_in;

typedef struct run_state {
	const runner_opts *o;
	runner_result *res;
	pid_t bpf_pid;
	int bpf_pidfd;		/* polls readable once bpftrace ended; -1: none */
	int sig_fd;		/* the stop signals (signalfd) */
	sigset_t old_mask;	/* the caller's, put back unless a signal came */
	pipe_in out, err;	/* bpftrace's stdout and stderr */
	target_watch tw;
	runner_pids_in pids_in;	/* a changing set of processes (or fd -1) */
	uint64_t kill_deadline;	/* SIGKILL after this, once SIGINT was sent */
	uint64_t t_start;
	uint64_t trigger_deadline;	/* fall back to SIGINT after this, unless
					 * bpftrace is still at work */
	unsigned long long trigger_cpu_ticks;	/* bpftrace's CPU time at the last look */
	size_t trigger_lines;	/* stdout lines read by the last look */
	size_t stdout_lines;	/* stdout lines read in all */
	bool triggered;		/* the final trigger was sent */
	bool sent_int;
	size_t flushes;		/* windows asked for through the trigger */
	size_t final_index;	/* window number of the final flush */
	uint64_t next_tick;	/* CLOCK_MONOTONIC of the next interval end */
	uint64_t next_progress;	/* when to redraw the countdown */
	unsigned ticks;		/* intervals ended */
	bool starting;		/* window start triggered; waiting for "started",
				 * then "begun" (templates/window_start.bt.in) */
	bool holding;		/* an interval's flush holds the run until
				 * "bpfspec:held" (templates/window.bt.in) */
	uint64_t hold_start;	/* CLOCK_MONOTONIC when the hold began */
	uint64_t hold_deadline;	/* a stop that waits for the hold falls back to
				 * SIGINT after this */
	size_t held_window;	/* 1 + the index of the window whose report waits
				 * for its hold's end; 0: none */
	bool kernel_functions;	/* the program has kprobe/kfunc probes */
} run_state;

/* Whether program TEXT attaches to kernel functions (a probe line that
 * starts with one of their probe types). */
static bool has_kernel_function_probes(const char *text)
{
	static const char *const kinds[] = { "kprobe:", "kretprobe:", "kfunc:", "kretfunc:",
					     "fentry:", "fexit:" };
	for (const char *line = text; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
			if (strncmp(line, kinds[i], strlen(kinds[i])) == 0)
				return true;
	}
	return false;
}

/* How long bpftrace may go without answering the final trigger while it
 * neither prints nor uses CPU.  A bpftrace starved on a saturated host is
 * slow, not dead (its answer, stacks named, took over 10 s with four busy
 * loops on two CPUs): while it works, it is waited for, up to
 * TRIGGER_LIMIT_NS in all. */
#define TRIGGER_PATIENCE_NS (3000000000ull)
#define TRIGGER_LIMIT_NS (120000000000ull)

/* User plus system CPU time of process PID, in clock ticks; 0 when it
 * cannot be read. */
static unsigned long long process_cpu_ticks(pid_t pid)
{
	char path[64], text[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	/* After the command name's closing parenthesis: state, then fields
	 * 4 to 13, then utime and stime (proc(5)). */
	const char *p = strrchr(text, ')');
	unsigned long long utime, stime;
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &utime, &stime) != 2)
		return 0;
	return utime + stime;
}

/* Whether bpftrace did something since the last look (printed a line or
 * used CPU) while it has not answered the final trigger; if so, the
 * deadline moves on, within TRIGGER_LIMIT_NS of the trigger. */
static bool bpftrace_progressed(run_state *st, uint64_t now)
{
	unsigned long long ticks = process_cpu_ticks(st->bpf_pid);
	bool worked = st->stdout_lines != st->trigger_lines || ticks != st->trigger_cpu_ticks;
	st->trigger_lines = st->stdout_lines;
	st->trigger_cpu_ticks = ticks;
	if (!worked || now > st->res->stop_mono_ns + TRIGGER_LIMIT_NS)
		return false;
	diag_verbose("bpftrace is still at work on the window trigger's answer; waiting");
	st->trigger_deadline = now + TRIGGER_PATIENCE_NS;
	return true;
}

/* Ends the window the quickest way available.  CAUSE is recorded if it
 * is the first. */
static void request_stop(run_state *st, runner_stop cause)
{
	runner_result *res = st->res;
	if (res->stop == RUNNER_STOP_NONE) {
		res->stop = cause;
		res->stop_mono_ns = now_ns();
	}
	if (res->window_done)
		return;
	/* The last window ends once the interval before it has resumed
	 * (handle_stdout_line): its maps may still be being cleared. */
	if (st->holding && !st->sent_int)
		return;
	if (st->o->has_trigger && res->begun && !st->triggered) {
		diag_verbose("ending the window through the program's trigger");
		st->final_index = st->flushes++;
		runner_window_end(1);
		st->triggered = true;
		st->trigger_deadline = now_ns() + TRIGGER_PATIENCE_NS;
		st->trigger_cpu_ticks = process_cpu_ticks(st->bpf_pid);
		st->trigger_lines = st->stdout_lines;
		return;
	}
	if (!st->sent_int && st->bpf_pid > 0) {
		diag_verbose("stopping bpftrace with SIGINT");
		kill(st->bpf_pid, SIGINT);
		st->sent_int = true;
	}
}

/* The window begins at AT (CLOCK_MONOTONIC): the utilization's first
 * look, the held command's release, and a stop that came while bpftrace
 * was attaching. */
static void begin_window(run_state *st, uint64_t at)
{
	runner_result *res = st->res;
	res->begun = true;
	res->begin_mono_ns = at;
	diag_verbose("the window begins");
	res->begin_realtime_offset_ns = runner_clock_offset_ns();
	st->starting = false;
	if (st->o->on_begin)
		st->o->on_begin(st->o->ctx);
	if (st->o->held && runner_release(st->o->held) < 0)
		diag_warn("could not release the command (pid %d)", (int)st->o->held->pid);
	if (res->stop != RUNNER_STOP_NONE)
		request_stop(st, res->stop);
}

static void report_window(run_state *st, size_t idx, bool final);

/* The window whose report waited for its hold's end, if any. */
static void report_held_window(run_state *st)
{
	if (!st->held_window)
		return;
	size_t idx = st->held_window - 1;
	st->held_window = 0;
	report_window(st, idx, false);
}

/* Hands window IDX to the caller (a held one before it, first), then
 * keeps only its bounds (long -i runs stay small). */
static void report_window(run_state *st, size_t idx, bool final)
{
	runner_result *res = st->res;
	report_held_window(st);
	res->window_done = final;
	res->windows++;
	if (st->o->on_window)
		st->o->on_window(st->o->ctx, bpfout_window_at(st->o->out, idx), idx, final);
	bpfout_window_release(st->o->out, idx);
}

/* An interval's clears are done ("bpfspec:held"): the next interval
 * begins; the time held is not traced, so the next tick and the
 * window's end move on by it.  Then the held window is reported, and a
 * stop that came meanwhile ends the run at once. */
static void resume_interval(run_state *st)
{
	runner_result *res = st->res;
	runner_window_end(RUNNER_INTERVAL_RESUME);
	st->holding = false;
	uint64_t held = now_ns() - st->hold_start;
	diag_verbose("the run was held %.1f ms while bpftrace printed and cleared an interval's maps",
		     (double)held / 1e6);
	res->held_ns += held;
	st->next_tick += held;
	report_held_window(st);
	if (res->stop != RUNNER_STOP_NONE)
		request_stop(st, res->stop);
}

static void handle_stdout_line(run_state *st, const char *line, size_t len)
{
	runner_result *res = st->res;
	bpfout_line kind = bpfout_feed(st->o->out, line, len);
	st->stdout_lines++;
	/* bpftrace 0.17 runs BEGIN before it attaches the other probes but
	 * reads the program's output only once all are attached: reading the
	 * BEGIN line is the moment the window starts. */
	if (kind == BPFOUT_LINE_BEGIN && !res->begun && !st->starting) {
		uint64_t now = now_ns();
		res->attach_ns = now - st->t_start;
		diag_verbose("bpftrace attached %ld probes %.3f s after it started, %.3f s after "
			     "bpfspec did", bpfout_attached(st->o->out), (double)res->attach_ns / 1e9,
			     st->o->t0_ns ? (double)(now - st->o->t0_ns) / 1e9 : 0.0);
		/* With the trigger, the program first drops what it gathered
		 * while attaching; the window begins once it says so. */
		if (st->o->has_trigger) {
			st->starting = true;
			runner_window_end(RUNNER_WINDOW_START);
			return;
		}
		begin_window(st, now);
		return;
	}
	/* The clears are done: the window begins.  The trigger's uprobe runs
	 * the start statements inside this call, so the window begins in the
	 * kernel now, however long bpftrace's userspace takes to print
	 * "bpfspec:begun" (seconds on a saturated host): the window's end is
	 * counted from here, not from that line. */
	if (kind == BPFOUT_LINE_STARTED && st->starting && !res->begun) {
		uint64_t before = now_ns();
		runner_window_end(RUNNER_WINDOW_BEGIN);
		begin_window(st, before + (now_ns() - before) / 2);
		return;
	}
	/* An interval's clears are done: the next interval begins, and a
	 * stop that came meanwhile ends it at once. */
	if (kind == BPFOUT_LINE_HELD && st->holding) {
		resume_interval(st);
		return;
	}
	/* The same moment on bpftrace's clock, which the report measures
	 * from: bpftrace's nsecs may be another clock than ours (boot time). */
	if (kind == BPFOUT_LINE_BEGUN && st->o->has_trigger && !res->begin_trace_ns) {
		res->begin_trace_ns = bpfout_trailing(st->o->out)->begin_ns;
		return;
	}
	if (kind == BPFOUT_LINE_WINDOW && !res->window_done) {
		size_t idx = bpfout_window_count(st->o->out) - 1;
		bool final;
		if (idx < st->flushes)
			final = st->triggered && idx == st->final_index;
		else if (st->sent_int)
			final = true;	/* END's flush after SIGINT */
		else
			return;		/* a flush nobody asked for: not a window */
		/* A held interval is reported once the next one has begun:
		 * building the report must not lengthen the hold. */
		if (!final && st->holding) {
			st->held_window = idx + 1;
			return;
		}
		report_window(st, idx, final);
	}
}
static void handle_stderr_line(run_state *st, const char *line, size_t len)
{
	char text[1024];
	size_t n = len < sizeof text - 1 ? len : sizeof text - 1;

	memcpy(text, line, n);
	text[n] = '\0';
	if (n && text[n - 1] == '\r')
		text[--n] = '\0';
	if (strstr(text, "couldn't set RLIMIT_MEMLOCK")) {
		diag_verbose("bpftrace: %s (harmless on this kernel)", text);
		return;
	}
	/* 0.25+ reads the kernel's list of traceable functions at every
	 * start and warns when it cannot: news only for a program with
	 * kernel-function probes. */
	if (strstr(text, "available_filter_functions") && !st->kernel_functions) {
		diag_verbose("bpftrace: %s (this program has no kernel-function probe)", text);
		return;
	}
	if (n == 0)
		return;
	/* A sampled stack whose id is an error (its slot in the stack map
	 * held another stack: the map full, or two stacks colliding): one
	 * line per sample under load, counted for the report instead. */
	if (strstr(text, "failed to look up stack id")) {
		st->res->stacks_unread++;
		diag_verbose("bpftrace: %s", text);
		return;
	}
	/* Point at the generated program instead of the memfd path. */
	char shown[1200];
	if (strncmp(text, RUNNER_SCRIPT_NAME ":", strlen(RUNNER_SCRIPT_NAME) + 1) == 0)
		snprintf(shown, sizeof shown, "<generated program>:%s", text + strlen(RUNNER_SCRIPT_NAME) + 1);
	else
		snprintf(shown, sizeof shown, "%s", text);
	if (strstr(text, "ERROR")) {
		if (!st->res->error_lines)
			snprintf(st->res->first_error, sizeof st->res->first_error, "%.500s", shown);
		st->res->error_lines++;
	}
	fputs("bpftrace: ", stderr);
	safe_fputs(shown, stderr);	/* it may quote the target's paths */
	fputc('\n', stderr);
}

static void on_stdout_line(void *st, const char *line, size_t len)
{
	handle_stdout_line(st, line, len);
}

static void on_stderr_line(void *st, const char *line, size_t len)
{
	handle_stderr_line(st, line, len);
}

/* Reads what pipe P has; at its end, closes it. */
static void pump(run_state *st, pipe_in *p, line_fn on_line)
{
	if (line_buffer_read(&p->lines, p->fd, on_line, st, "bpftrace") < 0) {
		close(p->fd);
		p->fd = -1;
	}
}

/* Adds SIG to MASK.  SIGHUP is left alone when the caller ignores it
 * (nohup); SIGINT and SIGTERM always stop a run, even in a background job
 * of a script, whose shell starts it with SIGINT ignored. */
static void add_stop_signal(sigset_t *mask, int sig)
{
	struct sigaction sa;
	if (sig == SIGHUP && sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
		return;
	sigaddset(mask, sig);
}

static void reap_bpftrace(run_state *st, int status)
{
	st->res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	st->res->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	st->bpf_pid = 0;
}

/* Redraws the countdown line: "bpfspec: 3 s of 10 s, Ctrl-C ends it". */
static void show_progress(const runner_opts *o, const runner_result *res, uint64_t now)
{
	unsigned long el = (unsigned long)((now - res->begin_mono_ns) / 1000000000ull);
	if (o->window_ns)
		fprintf(stderr, "\r\033[Kbpfspec: tracing, %lu s of %lu s (Ctrl-C ends it now)", el,
			(unsigned long)(o->window_ns / 1000000000ull));
	else
		fprintf(stderr, "\r\033[Kbpfspec: tracing for %lu s (Ctrl-C ends it)", el);
}

/* Before the probes are attached nothing bounds bpftrace's start-up; a
 * few hundred tracepoints take tens of seconds, this is far beyond. */
#define ATTACH_TIMEOUT_NS (600ull * 1000000000ull)

/* Whether bpftrace's exec failed: its child writes the errno to
 * EXEC_FD, which closes without a word when the exec succeeds.  Said
 * and reaped when it failed. */
static bool exec_failed(run_state *st, int exec_fd)
{
	int e = 0;
	ssize_t n;
	do
		n = read(exec_fd, &e, sizeof e);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof e)
		return false;
	int status;
	waitpid(st->bpf_pid, &status, 0);
	st->bpf_pid = 0;
	if (e == ENOENT)
		diag_error("install it (apt-get install bpftrace) or point BPFSPEC_BPFTRACE at it",
			   "bpftrace not found: '%s' is not in PATH", st->o->bpftrace);
	else
		diag_error("check that the bpftrace binary is executable", "cannot run '%s': %s",
			   st->o->bpftrace, strerror(e));
	return true;
}

/* An interval ends at NOW (-i): the program's trigger flushes it, or the
 * last one (-n) ends the run. */
static void check_interval(run_state *st, uint64_t now)
{
	const runner_opts *o = st->o;
	if (!st->next_tick)
		st->next_tick = st->res->begin_mono_ns + o->interval_ns;
	if (now < st->next_tick || st->holding)
		return;		/* a tick during a hold waits for its end */
	st->ticks++;
	st->next_tick += o->interval_ns;
	if (o->interval_count && st->ticks >= o->interval_count) {
		request_stop(st, RUNNER_STOP_DURATION);
	} else {
		st->flushes++;
		st->hold_start = now_ns();
		runner_window_end(0);
		st->holding = o->prog->held_intervals;
		st->hold_deadline = now + TRIGGER_LIMIT_NS;
	}
}

/* Starts bpftrace on O's program: the stop signals blocked and read
 * through a signalfd, its output through pipes, its exit through a
 * pidfd.  Returns 0, or -1 after saying why (bpftrace then is not
 * running). */
static int start_bpftrace(run_state *st)
{
	const runner_opts *o = st->o;
	int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 }, exec_pipe[2] = { -1, -1 };
	sigset_t mask;
	int rc = -1, script_fd;

	sigemptyset(&mask);
	add_stop_signal(&mask, SIGINT);
	add_stop_signal(&mask, SIGTERM);
	add_stop_signal(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &st->old_mask);
	st->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if ((script_fd = runner_program_memfd(o->prog)) < 0)
		return -1;
	if (pipe2(out_pipe, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0 ||
	    pipe2(exec_pipe, O_CLOEXEC) < 0 || st->sig_fd < 0) {
		diag_error(NULL, "cannot set up pipes for bpftrace: %s", strerror(errno));
		goto out;
	}
	st->t_start = now_ns();
	st->bpf_pid = runner_start_bpftrace(o, script_fd, out_pipe[1], err_pipe[1], exec_pipe[1]);
	if (st->bpf_pid < 0) {
		st->bpf_pid = 0;
		diag_error(NULL, "cannot fork: %s", strerror(errno));
		goto out;
	}
	close(exec_pipe[1]);
	exec_pipe[1] = -1;
	if (exec_failed(st, exec_pipe[0]))
		goto out;
	st->res->started = true;
	st->out.fd = out_pipe[0];
	st->err.fd = err_pipe[0];
	out_pipe[0] = err_pipe[0] = -1;
	st->bpf_pidfd = pidfd_open_compat(st->bpf_pid);
	if (!o->pids_from_stdin)
		watch_open(&st->tw, o->pids, o->n_pids);
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (out_pipe[i] >= 0) close(out_pipe[i]);
		if (err_pipe[i] >= 0) close(err_pipe[i]);
		if (exec_pipe[i] >= 0) close(exec_pipe[i]);
	}
	close(script_fd);
	return rc;
}

/* The clock's part of the loop at NOW: the window's or the interval's
 * end, a final trigger left unanswered, an attach that never ends, a
 * bpftrace that ignores SIGINT, the countdown line. */
static void check_clocks(run_state *st, uint64_t now)
{
	const runner_opts *o = st->o;
	runner_result *res = st->res;
	if (o->window_ns && res->begun && res->stop == RUNNER_STOP_NONE && !st->holding &&
	    now >= res->begin_mono_ns + res->held_ns + o->window_ns)
		request_stop(st, RUNNER_STOP_DURATION);
	if (o->interval_ns && res->begun && res->stop == RUNNER_STOP_NONE && o->has_trigger)
		check_interval(st, now);
	if (st->triggered && !res->window_done && !st->sent_int && now > st->trigger_deadline &&
	    !bpftrace_progressed(st, now)) {
		/* The trigger stays the final window's: an answer that comes
		 * after all is that window, END's flush is not. */
		diag_warn("bpftrace has not answered its window trigger for %.0f s and does no "
			  "work; stopping it", (double)TRIGGER_PATIENCE_NS / 1e9);
		kill(st->bpf_pid, SIGINT);
		st->sent_int = true;
	}
	if (st->holding && res->stop != RUNNER_STOP_NONE && !st->sent_int && now > st->hold_deadline) {
		diag_warn("bpftrace has not finished an interval's flush in %.0f s; stopping it",
			  (double)TRIGGER_LIMIT_NS / 1e9);
		kill(st->bpf_pid, SIGINT);
		st->sent_int = true;
	}
	if (!res->begun && !st->sent_int && now > st->t_start + ATTACH_TIMEOUT_NS) {
		diag_warn("bpftrace has not attached its probes after %llu s; stopping it",
			  ATTACH_TIMEOUT_NS / 1000000000ull);
		request_stop(st, RUNNER_STOP_SIGNAL);
	}
	if (st->sent_int && !st->kill_deadline)
		st->kill_deadline = now + ATTACH_TIMEOUT_NS;
	if (st->kill_deadline && now > st->kill_deadline && st->bpf_pid > 0) {
		diag_warn("bpftrace did not stop; killing it");
		kill(st->bpf_pid, SIGKILL);
		st->kill_deadline = UINT64_MAX;
	}
	if (o->progress && res->begun && res->stop == RUNNER_STOP_NONE && now >= st->next_progress) {
		show_progress(o, res, now);
		st->next_progress = now + 1000000000ull;
	}
	if (o->progress && st->next_progress && res->stop != RUNNER_STOP_NONE) {
		fputs("\r\033[K", stderr);	/* the report takes the line */
		st->next_progress = UINT64_MAX;
	}
}

/* How long the loop may sleep at NOW: until the window's or the
 * interval's end, at most 200 ms (50 ms when bpftrace's end is polled
 * by waitpid, without a pidfd). */
static int poll_timeout(run_state *st, uint64_t now)
{
	const runner_opts *o = st->o;
	const runner_result *res = st->res;
	int timeout_ms = 200;
	if (st->bpf_pidfd < 0 && st->bpf_pid > 0) {
		int status;
		if (waitpid(st->bpf_pid, &status, WNOHANG) == st->bpf_pid)
			reap_bpftrace(st, status);
		timeout_ms = 50;
	}
	if ((o->window_ns || st->next_tick) && res->begun && res->stop == RUNNER_STOP_NONE) {
		uint64_t end = o->window_ns ? res->begin_mono_ns + res->held_ns + o->window_ns
					    : UINT64_MAX;
		if (st->next_tick && st->next_tick < end)
			end = st->next_tick;
		uint64_t left_ms = end > now ? (end - now + 999999) / 1000000 : 0;
		if (left_ms < (uint64_t)timeout_ms)
			timeout_ms = (int)left_ms;
	}
	return timeout_ms;
}

/* The stop signals read from the signalfd: the first ends the window, a
 * second kills bpftrace outright. */
static void take_signals(run_state *st)
{
	runner_result *res = st->res;
	struct signalfd_siginfo si;
	while (read(st->sig_fd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (!res->interrupted) {
			res->interrupted = true;
			diag_verbose("signal %u: ending the window", si.ssi_signo);
			request_stop(st, RUNNER_STOP_SIGNAL);
		} else if (!res->forced) {
			res->forced = true;
			if (st->bpf_pid > 0)
				kill(st->bpf_pid, SIGKILL);
		}
	}
}

/* Records that traced process GONE exited (the first one ends the run). */
static void target_gone(run_state *st, pid_t gone, bool stop)
{
	const runner_opts *o = st->o;
	runner_result *res = st->res;
	res->target_exited = true;
	if (!res->exited_pid)
		res->exited_pid = gone;
	if (!stop)
		return;
	if (o->held && o->held->pid == gone && !o->held->reaped) {
		waitpid(o->held->pid, &o->held->status, 0);
		o->held->reaped = true;
	}
	diag_verbose("target pid %d exited", (int)gone);
	request_stop(st, RUNNER_STOP_TARGET);
}

/* One turn of the loop: waits for output, a signal, a target's or
 * bpftrace's end, or the clock, and takes what came.  Returns 0, or -1
 * when poll failed (said). */
static int turn(run_state *st)
{
	struct pollfd pf[5 + GEN_MAX_PIDS];
	int idx_out = -1, idx_err = -1, idx_bpf = -1, idx_pids = -1, idx_tgt[GEN_MAX_PIDS], n = 0;
	if (st->out.fd >= 0) { pf[n] = (struct pollfd){ st->out.fd, POLLIN, 0 }; idx_out = n++; }
	if (st->err.fd >= 0) { pf[n] = (struct pollfd){ st->err.fd, POLLIN, 0 }; idx_err = n++; }
	int idx_sig = n;
	pf[n++] = (struct pollfd){ st->sig_fd, POLLIN, 0 };
	if (st->bpf_pid > 0 && st->bpf_pidfd >= 0) {
		pf[n] = (struct pollfd){ st->bpf_pidfd, POLLIN, 0 };
		idx_bpf = n++;
	}
	watch_polls(&st->tw, pf, &n, idx_tgt);
	/* Changes of the set wait for the window: BEGIN's set is the first. */
	if (st->pids_in.fd >= 0 && st->res->begun) {
		pf[n] = (struct pollfd){ st->pids_in.fd, POLLIN, 0 };
		idx_pids = n++;
	}
	uint64_t now = now_ns();
	check_clocks(st, now);
	int pr = poll(pf, (nfds_t)n, poll_timeout(st, now));
	if (pr < 0 && errno != EINTR) {
		diag_error(NULL, "poll failed: %s", strerror(errno));
		return -1;
	}
	if (pr <= 0)
		return 0;
	if (idx_out >= 0 && pf[idx_out].revents)
		pump(st, &st->out, on_stdout_line);
	if (idx_err >= 0 && pf[idx_err].revents)
		pump(st, &st->err, on_stderr_line);
	if (pf[idx_sig].revents)
		take_signals(st);
	if (idx_pids >= 0 && pf[idx_pids].revents)
		runner_pids_read(&st->pids_in);
	for (pid_t gone; (gone = watch_exited(&st->tw, pf, idx_tgt)) > 0;)
		target_gone(st, gone, true);
	int status;
	if (idx_bpf >= 0 && pf[idx_bpf].revents &&
	    waitpid(st->bpf_pid, &status, WNOHANG) == st->bpf_pid) {
		reap_bpftrace(st, status);
		close(st->bpf_pidfd);
		st->bpf_pidfd = -1;
	}
	return 0;
}

/* Closes what the run opened; ends bpftrace unless LEFT_DETACHING (its
 * last report is out: the kernel ends it with bpfspec); a stop signal
 * that came stays blocked (and is discarded at exit), so it cannot kill
 * bpfspec before the report is written. */
static void finish(run_state *st, bool left_detaching)
{
	const runner_opts *o = st->o;
	if (st->bpf_pid > 0 && !left_detaching) {
		kill(st->bpf_pid, SIGKILL);
		waitpid(st->bpf_pid, NULL, 0);
	}
	if (o->held && o->held->pid > 0 && o->held->release_fd >= 0)
		runner_abandon(o->held);
	if (st->out.fd >= 0) close(st->out.fd);
	if (st->err.fd >= 0) close(st->err.fd);
	line_buffer_free(&st->out.lines);
	line_buffer_free(&st->err.lines);
	line_buffer_free(&st->pids_in.lines);
	if (st->bpf_pidfd >= 0) close(st->bpf_pidfd);
	watch_close(&st->tw);
	if (st->sig_fd >= 0) {
		struct signalfd_siginfo si;
		bool any = st->res->interrupted;
		while (read(st->sig_fd, &si, sizeof si) == (ssize_t)sizeof si)
			any = true;
		close(st->sig_fd);
		if (!any)
			sigprocmask(SIG_SETMASK, &st->old_mask, NULL);
	}
}

int runner_run(const runner_opts *o, runner_result *res)
{
	run_state st = { .o = o, .res = res, .bpf_pidfd = -1, .sig_fd = -1,
			  .out = { .fd = -1, .lines = { .max_line = CHILD_LINE_MAX } },
			  .err = { .fd = -1, .lines = { .max_line = CHILD_LINE_MAX } },
			  .pids_in = { .fd = o->pids_from_stdin ? STDIN_FILENO : -1,
				       .lines = { .max_line = 64 }, .o = o },
			  .kernel_functions = has_kernel_function_probes(o->prog->text) };
	bool left_detaching = false;	/* the last report is out, bpftrace still runs */

	memset(res, 0, sizeof *res);
	res->exit_code = -1;
	if (start_bpftrace(&st) < 0) {
		finish(&st, false);
		return -1;
	}
	while (st.out.fd >= 0 || st.err.fd >= 0 || st.bpf_pid > 0) {
		if (turn(&st) < 0)
			break;
		/* The last report is out: bpftrace's detach (about 0.1 s a
		 * probe) is not waited for.  A bpftrace killed on a second
		 * signal is reaped (the user asked for it gone). */
		if (res->window_done && st.bpf_pid > 0 && !res->forced) {
			diag_verbose("the last window is reported; bpftrace detaches on its own");
			left_detaching = true;
			break;
		}
	}
	/* bpftrace may have ended first: look at the targets again. */
	for (pid_t gone; (gone = watch_exited(&st.tw, NULL, NULL)) > 0;)
		target_gone(&st, gone, false);
	if (res->stop == RUNNER_STOP_NONE) {
		res->stop = res->target_exited ? RUNNER_STOP_TARGET : RUNNER_STOP_TRACER;
		res->stop_mono_ns = now_ns();
	}
	if (res->begun)
		res->elapsed_ns = res->stop_mono_ns > res->begin_mono_ns
				  ? res->stop_mono_ns - res->begin_mono_ns : 0;
	finish(&st, left_detaching);
	return 0;
}
