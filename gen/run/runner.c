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
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/safe.h"

#define SCRIPT_FD 3
#define SCRIPT_NAME "/dev/fd/3"
#define LINE_MAX_BYTES (16u << 20)

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

/* Restores what a child must not inherit from bpfspec: the blocked
 * signals and the ignored SIGPIPE. */
static void child_reset_signals(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

int runner_hold_command(const char *path, char *const argv[], held_command *h)
{
	int fds[2];

	memset(h, 0, sizeof *h);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		diag_error(NULL, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		diag_error(NULL, "cannot fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		char c;
		ssize_t n;
		child_reset_signals();
		close(fds[1]);
		do
			n = read(fds[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);
		execv(path, argv);
		fputs("bpfspec: error: cannot run '", stderr);
		safe_fputs(path, stderr);
		fprintf(stderr, "': %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	h->pid = pid;
	h->release_fd = fds[1];
	return 0;
}

int runner_release(held_command *h)
{
	if (h->release_fd < 0)
		return 0;
	ssize_t n;
	do
		n = write(h->release_fd, "g", 1);
	while (n < 0 && errno == EINTR);
	close(h->release_fd);
	h->release_fd = -1;
	return n == 1 ? 0 : -1;
}

/* Waits up to MS milliseconds for PID to end; reaps it.  Returns 0 when
 * it was reaped. */
static int reap_within(pid_t pid, int *status, int ms)
{
	for (int waited = 0;; waited += 20) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return 0;
		if (waited >= ms)
			return -1;
		struct timespec ts = { 0, 20 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

void runner_abandon(held_command *h)
{
	if (h->pid <= 0 || h->reaped)
		return;
	if (h->release_fd >= 0) {
		/* Never released: it exits without running the command. */
		close(h->release_fd);
		h->release_fd = -1;
		if (reap_within(h->pid, &h->status, 3000) == 0) {
			h->reaped = true;
			return;
		}
	}
	kill(h->pid, SIGTERM);
	kill(h->pid, SIGCONT);
	if (reap_within(h->pid, &h->status, 3000) < 0) {
		diag_warn("command (pid %d) ignored SIGTERM for 3 s: killing it", (int)h->pid);
		kill(h->pid, SIGKILL);
		while (waitpid(h->pid, &h->status, 0) < 0 && errno == EINTR)
			;
	}
	h->reaped = true;
}

/* noinline and with a side effect the compiler must keep, so that the
 * function exists at its own address for the program's uprobe. */
__attribute__((noinline)) void runner_window_end(int final)
{
	__asm__ volatile("" : : "r"(final) : "memory");
}

/* Writes the program into a sealed memfd. Returns the fd or -1. */
static int program_memfd(const program *p)
{
	int fd = memfd_create("bpfspec-program", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		diag_error(NULL, "memfd_create failed: %s", strerror(errno));
		return -1;
	}
	size_t off = 0;
	while (off < p->len) {
		ssize_t n = write(fd, p->text + off, p->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			diag_error(NULL, "cannot write the program to a memfd: %s", strerror(errno));
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
	return fd;
}

/* A line-splitting reader over one pipe. */
typedef struct line_reader {
	int fd;			/* -1 once EOF was seen */
	char *data;
	size_t len, cap;
} line_reader;

typedef struct run_state {
	const runner_opts *o;
	runner_result *res;
	pid_t bpf_pid;
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
		res->window_done = final;
		res->windows++;
		if (st->o->on_window)
			st->o->on_window(st->o->ctx, bpfout_window_at(st->o->out, idx), idx, final);
		/* Reported: only its bounds are kept (long -i runs stay small). */
		bpfout_window_release(st->o->out, idx);
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
	/* Point at the generated program instead of the memfd path. */
	char shown[1200];
	if (strncmp(text, SCRIPT_NAME ":", strlen(SCRIPT_NAME) + 1) == 0)
		snprintf(shown, sizeof shown, "<generated program>:%s", text + strlen(SCRIPT_NAME) + 1);
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

/* Reads what is available; calls the handler per complete line.
 * Returns 0, or -1 at EOF (remaining bytes handled as a last line). */
static int pump(run_state *st, line_reader *r, bool is_stdout)
{
	char chunk[65536];
	ssize_t n = read(r->fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		if (r->len) {
			if (is_stdout)
				handle_stdout_line(st, r->data, r->len);
			else
				handle_stderr_line(st, r->data, r->len);
		}
		r->len = 0;
		close(r->fd);
		r->fd = -1;
		return -1;
	}
	if (r->len + (size_t)n > r->cap) {
		size_t cap = r->cap ? r->cap : 65536;
		while (cap < r->len + (size_t)n)
			cap *= 2;
		char *d = realloc(r->data, cap);
		if (!d) {
			diag_error(NULL, "out of memory reading bpftrace's output");
			return 0;
		}
		r->data = d;
		r->cap = cap;
	}
	memcpy(r->data + r->len, chunk, (size_t)n);
	r->len += (size_t)n;
	size_t start = 0;
	for (size_t i = 0; i < r->len; i++) {
		if (r->data[i] != '\n')
			continue;
		if (is_stdout)
			handle_stdout_line(st, r->data + start, i - start);
		else
			handle_stderr_line(st, r->data + start, i - start);
		start = i + 1;
	}
	if (start == 0 && r->len > LINE_MAX_BYTES) {
		/* A line this long is not bpftrace's: hand it over in pieces. */
		if (is_stdout)
			handle_stdout_line(st, r->data, r->len);
		start = r->len;
	}
	memmove(r->data, r->data + start, r->len - start);
	r->len -= start;
	return 0;
}

static int exec_bpftrace(const runner_opts *o, int script_fd, int out_w, int err_w,
			 int report_w, pid_t parent)
{
	char *argv[] = { (char *)o->bpftrace, "-f", "json", SCRIPT_NAME, NULL };
	int devnull;

	child_reset_signals();
	setpgid(0, 0);
	/* Die with bpfspec: an orphaned bpftrace would keep its probes. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		if (devnull > STDERR_FILENO)
			close(devnull);
	}
	dup2(out_w, STDOUT_FILENO);
	dup2(err_w, STDERR_FILENO);
	if (script_fd != SCRIPT_FD) {
		dup2(script_fd, SCRIPT_FD);
	} else {
		int fl = fcntl(SCRIPT_FD, F_GETFD);
		fcntl(SCRIPT_FD, F_SETFD, fl & ~FD_CLOEXEC);
	}
	/* Map keys: room for every thread's buckets, 16384 keys a probe:
	 * probes that share their maps (gen.h) share the room too, up to 4
	 * probes' (65536 keys; bpftrace gives every map that size, and the
	 * kernel allocates it whole: libuv-phases' maps take 14 MiB at
	 * 16384, 56 MiB at 65536, 101 MiB at 7 times 16384, where a map per
	 * probe took 50 MiB); paths in event records: 200 bytes,
	 * 0.17's largest string.  0.20 renamed both settings and 0.24 dropped
	 * the old names: use the ones this bpftrace reads (both when its
	 * version is unknown). */
	unsigned share = o->shared_probes < 1 ? 1 : o->shared_probes > 4 ? 4 : o->shared_probes;
	char keys[16];
	snprintf(keys, sizeof keys, "%u", 16384 * share);
	bool renamed = o->version_major > 0 || o->version_minor >= 20;
	bool unknown = o->version_major == 0 && o->version_minor == 0;
	/* 0.24's str() keeps one byte more of the same setting: 199 bytes
	 * on every version (REPORT_PATH_MAX). */
	bool longer_str = o->version_major > 0 || o->version_minor >= 24;
	if (!renamed || unknown) {
		setenv("BPFTRACE_MAP_KEYS_MAX", keys, 0);
		setenv("BPFTRACE_STRLEN", "200", 0);
		/* Before 0.20, user symbols (ustack: attribution's stacks) are
		 * cached only where ASLR is off: else each frame reloads the
		 * object's symbol table, and a flush of a few hundred node
		 * stacks took minutes.  The cache is kept per executable:
		 * exact for one process, wrong for the stacks of a second
		 * one (runner_stacks_per_process; main.c refuses that). */
		setenv("BPFTRACE_CACHE_USER_SYMBOLS", "1", 0);
	}
	if (renamed || unknown) {
		setenv("BPFTRACE_MAX_MAP_KEYS", keys, 0);
		setenv("BPFTRACE_MAX_STRLEN", longer_str ? "199" : "200", 0);
	}
	/* From 0.18 a cut string ends in "..", which could be the string's
	 * own bytes: none, so strings are the target's bytes on every
	 * version; a cut one is known by its length (report.h). */
	setenv("BPFTRACE_STR_TRUNC_TRAILER", "", 1);
	execvp(o->bpftrace, argv);
	int e = errno;
	ssize_t w = write(report_w, &e, sizeof e);
	(void)w;
	_exit(127);
}

bool runner_stacks_per_process(int major, int minor)
{
	return major > 0 || minor >= 20;
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

int runner_bpftrace_version(const char *bpftrace, char *version, size_t len, int *major,
			    int *minor)
{
	int fds[2];
	char out[256];
	size_t n = 0;

	version[0] = '\0';
	*major = *minor = 0;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		char *argv[] = { (char *)bpftrace, "--version", NULL };
		child_reset_signals();
		dup2(fds[1], STDOUT_FILENO);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		execvp(bpftrace, argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t r = read(fds[0], out + n, sizeof out - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == sizeof out - 1)
			break;
	}
	out[n] = '\0';
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* "bpftrace v0.17.0" (some builds add a suffix: "v0.20.1-dirty"). */
	const char *v = strstr(out, " v");
	int patch = 0;
	if (!v || sscanf(v + 2, "%d.%d.%d", major, minor, &patch) < 2)
		return -1;
	snprintf(version, len, "%d.%d.%d", *major, *minor, patch);
	return 0;
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

int runner_run(const runner_opts *o, runner_result *res)
{
	run_state st = { .o = o, .res = res,
			  .kernel_functions = has_kernel_function_probes(o->prog->text) };
	int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 }, exec_pipe[2] = { -1, -1 };
	int script_fd = -1, sfd = -1, bpf_pidfd = -1;
	target_watch tw = { .n = 0 };
	line_reader rout = { .fd = -1 }, rerr = { .fd = -1 };
	sigset_t mask, old;
	int rc = -1;
	bool left_detaching = false;	/* the last report is out, bpftrace still runs */

	memset(res, 0, sizeof *res);
	res->exit_code = -1;
	sigemptyset(&mask);
	add_stop_signal(&mask, SIGINT);
	add_stop_signal(&mask, SIGTERM);
	add_stop_signal(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if ((script_fd = program_memfd(o->prog)) < 0)
		goto out;
	if (pipe2(out_pipe, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0 ||
	    pipe2(exec_pipe, O_CLOEXEC) < 0 || sfd < 0) {
		diag_error(NULL, "cannot set up pipes for bpftrace: %s", strerror(errno));
		goto out;
	}
	st.t_start = now_ns();
	pid_t parent = getpid();
	st.bpf_pid = fork();
	if (st.bpf_pid < 0) {
		st.bpf_pid = 0;
		diag_error(NULL, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (st.bpf_pid == 0)
		exec_bpftrace(o, script_fd, out_pipe[1], err_pipe[1], exec_pipe[1], parent);
	setpgid(st.bpf_pid, st.bpf_pid);
	close(out_pipe[1]);
	close(err_pipe[1]);
	close(exec_pipe[1]);
	out_pipe[1] = err_pipe[1] = exec_pipe[1] = -1;
	{
		int e = 0;
		ssize_t n;
		do
			n = read(exec_pipe[0], &e, sizeof e);
		while (n < 0 && errno == EINTR);
		if (n == (ssize_t)sizeof e) {
			int status;
			waitpid(st.bpf_pid, &status, 0);
			st.bpf_pid = 0;
			if (e == ENOENT)
				diag_error("install it (apt-get install bpftrace) or point BPFSPEC_BPFTRACE "
					   "at it", "bpftrace not found: '%s' is not in PATH", o->bpftrace);
			else
				diag_error("check that the bpftrace binary is executable",
					   "cannot run '%s': %s", o->bpftrace, strerror(e));
			goto out;
		}
	}
	res->started = true;
	rout.fd = out_pipe[0];
	rerr.fd = err_pipe[0];
	out_pipe[0] = err_pipe[0] = -1;
	bpf_pidfd = pidfd_open_compat(st.bpf_pid);
	watch_open(&tw, o->pids, o->n_pids);

	uint64_t kill_deadline = 0;
	while (rout.fd >= 0 || rerr.fd >= 0 || st.bpf_pid > 0) {
		struct pollfd pf[4 + GEN_MAX_PIDS];
		int idx_out = -1, idx_err = -1, idx_bpf = -1, idx_tgt[GEN_MAX_PIDS], n = 0;
		if (rout.fd >= 0) { pf[n] = (struct pollfd){ rout.fd, POLLIN, 0 }; idx_out = n++; }
		if (rerr.fd >= 0) { pf[n] = (struct pollfd){ rerr.fd, POLLIN, 0 }; idx_err = n++; }
		int idx_sig = n;
		pf[n++] = (struct pollfd){ sfd, POLLIN, 0 };
		if (st.bpf_pid > 0 && bpf_pidfd >= 0) { pf[n] = (struct pollfd){ bpf_pidfd, POLLIN, 0 }; idx_bpf = n++; }
		watch_polls(&tw, pf, &n, idx_tgt);

		uint64_t now = now_ns();
		if (o->window_ns && res->begun && res->stop == RUNNER_STOP_NONE &&
		    now >= res->begin_mono_ns + o->window_ns)
			request_stop(&st, RUNNER_STOP_DURATION);
		if (o->interval_ns && res->begun && res->stop == RUNNER_STOP_NONE && o->has_trigger) {
			if (!st.next_tick)
				st.next_tick = res->begin_mono_ns + o->interval_ns;
			if (now >= st.next_tick) {
				st.ticks++;
				st.next_tick += o->interval_ns;
				if (o->interval_count && st.ticks >= o->interval_count) {
					request_stop(&st, RUNNER_STOP_DURATION);
				} else {
					st.flushes++;
					runner_window_end(0);
				}
			}
		}
		if (st.triggered && !res->window_done && !st.sent_int && now > st.trigger_deadline &&
		    !bpftrace_progressed(&st, now)) {
			/* The trigger stays the final window's: an answer that
			 * comes after all is that window, END's flush is not. */
			diag_warn("bpftrace has not answered its window trigger for %.0f s and does no "
				  "work; stopping it", (double)TRIGGER_PATIENCE_NS / 1e9);
			kill(st.bpf_pid, SIGINT);
			st.sent_int = true;
		}
		if (!res->begun && !st.sent_int && now > st.t_start + ATTACH_TIMEOUT_NS) {
			diag_warn("bpftrace has not attached its probes after %llu s; stopping it",
				  ATTACH_TIMEOUT_NS / 1000000000ull);
			request_stop(&st, RUNNER_STOP_SIGNAL);
		}
		if (st.sent_int && !kill_deadline)
			kill_deadline = now + ATTACH_TIMEOUT_NS;
		if (kill_deadline && now > kill_deadline && st.bpf_pid > 0) {
			diag_warn("bpftrace did not stop; killing it");
			kill(st.bpf_pid, SIGKILL);
			kill_deadline = UINT64_MAX;
		}
		if (o->progress && res->begun && res->stop == RUNNER_STOP_NONE &&
		    now >= st.next_progress) {
			show_progress(o, res, now);
			st.next_progress = now + 1000000000ull;
		}
		if (o->progress && st.next_progress && res->stop != RUNNER_STOP_NONE) {
			fputs("\r\033[K", stderr);	/* the report takes the line */
			st.next_progress = UINT64_MAX;
		}
		int timeout_ms = 200;
		if (bpf_pidfd < 0 && st.bpf_pid > 0) {
			int status;
			if (waitpid(st.bpf_pid, &status, WNOHANG) == st.bpf_pid)
				reap_bpftrace(&st, status);
			timeout_ms = 50;
		}
		if ((o->window_ns || st.next_tick) && res->begun && res->stop == RUNNER_STOP_NONE) {
			uint64_t end = o->window_ns ? res->begin_mono_ns + o->window_ns : UINT64_MAX;
			if (st.next_tick && st.next_tick < end)
				end = st.next_tick;
			uint64_t left_ms = end > now ? (end - now + 999999) / 1000000 : 0;
			if (left_ms < (uint64_t)timeout_ms)
				timeout_ms = (int)left_ms;
		}
		int pr = poll(pf, (nfds_t)n, timeout_ms);
		if (pr < 0 && errno != EINTR) {
			diag_error(NULL, "poll failed: %s", strerror(errno));
			break;
		}
		if (pr <= 0)
			continue;
		if (idx_out >= 0 && pf[idx_out].revents)
			pump(&st, &rout, true);
		if (idx_err >= 0 && pf[idx_err].revents)
			pump(&st, &rerr, false);
		if (pf[idx_sig].revents) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
				if (!res->interrupted) {
					res->interrupted = true;
					diag_verbose("signal %u: ending the window", si.ssi_signo);
					request_stop(&st, RUNNER_STOP_SIGNAL);
				} else if (!res->forced) {
					res->forced = true;
					if (st.bpf_pid > 0)
						kill(st.bpf_pid, SIGKILL);
				}
			}
		}
		for (pid_t gone; (gone = watch_exited(&tw, pf, idx_tgt)) > 0;) {
			res->target_exited = true;
			if (!res->exited_pid)
				res->exited_pid = gone;
			if (o->held && o->held->pid == gone && !o->held->reaped) {
				waitpid(o->held->pid, &o->held->status, 0);
				o->held->reaped = true;
			}
			diag_verbose("target pid %d exited", (int)gone);
			request_stop(&st, RUNNER_STOP_TARGET);
		}
		if (idx_bpf >= 0 && pf[idx_bpf].revents) {
			int status;
			if (waitpid(st.bpf_pid, &status, WNOHANG) == st.bpf_pid) {
				reap_bpftrace(&st, status);
				close(bpf_pidfd);
				bpf_pidfd = -1;
			}
		}
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
	for (pid_t gone; (gone = watch_exited(&tw, NULL, NULL)) > 0;) {
		res->target_exited = true;
		if (!res->exited_pid)
			res->exited_pid = gone;
	}
	if (res->stop == RUNNER_STOP_NONE) {
		res->stop = res->target_exited ? RUNNER_STOP_TARGET : RUNNER_STOP_TRACER;
		res->stop_mono_ns = now_ns();
	}
	if (res->begun)
		res->elapsed_ns = res->stop_mono_ns > res->begin_mono_ns
				  ? res->stop_mono_ns - res->begin_mono_ns : 0;
	rc = 0;
out:
	if (st.bpf_pid > 0 && !left_detaching) {
		kill(st.bpf_pid, SIGKILL);
		waitpid(st.bpf_pid, NULL, 0);
	}
	if (o->held && o->held->pid > 0 && o->held->release_fd >= 0)
		runner_abandon(o->held);
	for (int i = 0; i < 2; i++) {
		if (out_pipe[i] >= 0) close(out_pipe[i]);
		if (err_pipe[i] >= 0) close(err_pipe[i]);
		if (exec_pipe[i] >= 0) close(exec_pipe[i]);
	}
	if (rout.fd >= 0) close(rout.fd);
	if (rerr.fd >= 0) close(rerr.fd);
	free(rout.data);
	free(rerr.data);
	if (script_fd >= 0) close(script_fd);
	if (bpf_pidfd >= 0) close(bpf_pidfd);
	watch_close(&tw);
	/* A stop signal that arrived stays blocked (and is discarded at exit)
	 * so it cannot kill bpfspec before the report is written. */
	if (sfd >= 0) {
		struct signalfd_siginfo si;
		bool any = res->interrupted;
		while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
			any = true;
		close(sfd);
		if (!any)
			sigprocmask(SIG_SETMASK, &old, NULL);
	}
	return rc;
}
