/* stamp — runs a command and writes a timeline of what it printed, for
 * scripts/bench.sh: when each line of its stdout and stderr arrived, when
 * it was sent a signal, when it exited, and (-m) its own peak RSS.
 *
 * Usage: stamp [-o FILE] [-s PATTERN] [-w MS] [-m] -- CMD ARG...
 *   -o FILE     the command's stdout, byte for byte (default: discarded)
 *   -s PATTERN  send the command SIGINT MS milliseconds (-w, default 2000)
 *               after the first line containing PATTERN (either stream)
 *   -m          trace the command (ptrace with PTRACE_O_TRACEEXIT and
 *               PTRACE_O_TRACEEXEC; its children are not traced) to read
 *               VmHWM from its /proc/PID/status when it exits, while its
 *               memory is still mapped: the command's own peak, never its
 *               children's (getrusage and wait4 fold reaped children in)
 * SIGINT and SIGTERM sent to stamp are passed on to the command.
 *
 * The timeline goes to stdout, one record a line, seconds since the fork
 * (CLOCK_MONOTONIC):
 *   T out TEXT | T err TEXT | T sig NAME | T exit STATUS
 *   T hwm KB anon KB file KB   (-m: VmHWM, then RssAnon and RssFile at exit)
 * STATUS is the exit code, or 128+N when killed by signal N.  stamp exits
 * 0 when it could run the command (whatever the command's status), 1 on
 * its own failure, 2 on a usage error. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 4096

typedef struct stream {
	int fd;			/* read end; -1 once at EOF */
	const char *name;	/* "out" or "err" */
	char buf[LINE_MAX_BYTES];
	size_t len;
} stream;

typedef struct settings {
	const char *out_path;
	const char *pattern;
	long wait_ms;
	int measure_hwm;
	char **argv;
} settings;

static double t0;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void record(const char *kind, const char *text)
{
	printf("%.6f %s %s\n", now_s() - t0, kind, text);
	fflush(stdout);
}

/* Parses the options into S.  Returns 0 on success; -1 on a usage error. */
static int parse_args(int argc, char **argv, settings *s)
{
	int c;
	while ((c = getopt(argc, argv, "+o:s:w:m")) != -1) {
		switch (c) {
		case 'o': s->out_path = optarg; break;
		case 's': s->pattern = optarg; break;
		case 'w': {
			char *end;
			errno = 0;
			s->wait_ms = strtol(optarg, &end, 10);
			if (errno || *end || s->wait_ms < 0 || s->wait_ms > 3600000)
				return -1;
			break;
		}
		case 'm': s->measure_hwm = 1; break;
		default: return -1;
		}
	}
	if (optind >= argc)
		return -1;
	s->argv = argv + optind;
	return 0;
}

/* Writes into TEXT (SIZE bytes) "HWM anon ANON file FILE": VmHWM, and
 * RssAnon and RssFile now, in kB, from /proc/PID/status; -1 for a value
 * that cannot be read. */
static void read_memory(pid_t pid, char *text, size_t size)
{
	char path[64], line[256];
	long hwm = -1, anon = -1, file = -1;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		sscanf(line, "VmHWM: %ld kB", &hwm);
		sscanf(line, "RssAnon: %ld kB", &anon);
		sscanf(line, "RssFile: %ld kB", &file);
	}
	if (f)
		fclose(f);
	snprintf(text, size, "%ld anon %ld file %ld", hwm, anon, file);
}

/* Forks and execs S->argv with stdout and stderr on pipes (OUT_FD,
 * ERR_FD).  Under -m the child asks to be traced and stops itself before
 * exec; the parent then sets PTRACE_O_TRACEEXIT.  Returns the pid; -1 on
 * failure. */
static pid_t start_child(const settings *s, int *out_fd, int *err_fd)
{
	int po[2], pe[2];
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)
		return -1;
	t0 = now_s();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		sigset_t none;
		/* A shell starts background jobs with SIGINT ignored, and an
		 * ignored signal stays ignored across exec: the command must
		 * die of the SIGINT stamp sends, as it would at a terminal.
		 * Restored before the unblock, so a pending one is not lost. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		if (s->measure_hwm) {
			ptrace(PTRACE_TRACEME, 0, NULL, NULL);
			raise(SIGSTOP);
		}
		execvp(s->argv[0], s->argv);
		fprintf(stderr, "stamp: cannot run %s: %s\n", s->argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	*out_fd = po[0];
	*err_fd = pe[0];
	if (s->measure_hwm) {
		int st;
		if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st) ||
		    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC)) < 0 ||
		    ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
			return -1;
	}
	return pid;
}

/* Reads what is available on ST; records each complete line (a line
 * longer than the buffer is recorded in pieces).  Copies stdout bytes to
 * COPY when it is not NULL.  Returns 1 when a recorded line contained
 * PATTERN, else 0. */
static int drain(stream *st, FILE *copy, const char *pattern)
{
	char chunk[LINE_MAX_BYTES];
	ssize_t n = read(st->fd, chunk, sizeof chunk);
	int matched = 0;
	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			if (st->len) {
				st->buf[st->len] = '\0';
				record(st->name, st->buf);
				matched = pattern && strstr(st->buf, pattern);
			}
			close(st->fd);
			st->fd = -1;
		}
		return matched;
	}
	if (copy)
		fwrite(chunk, 1, (size_t)n, copy);
	for (ssize_t i = 0; i < n; i++) {
		if (chunk[i] != '\n' && st->len < sizeof st->buf - 1) {
			st->buf[st->len++] = chunk[i];
			continue;
		}
		st->buf[st->len] = '\0';
		record(st->name, st->buf);
		if (pattern && strstr(st->buf, pattern))
			matched = 1;
		st->len = 0;
		if (chunk[i] != '\n')
			st->buf[st->len++] = chunk[i];
	}
	return matched;
}

/* Handles one wait status of the traced or plain child.  Returns 1 when
 * the child is gone (its exit recorded), else 0. */
static int handle_status(pid_t pid, int st, int traced)
{
	char text[96];
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		snprintf(text, sizeof text, "%d",
			 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		record("exit", text);
		return 1;
	}
	if (traced && WIFSTOPPED(st)) {
		int sig = WSTOPSIG(st);
		if (sig == SIGTRAP && (st >> 16) == PTRACE_EVENT_EXIT) {
			read_memory(pid, text, sizeof text);
			record("hwm", text);
		}
		if (sig == SIGTRAP && (st >> 16) != 0)
			sig = 0;	/* an event stop (exec, exit), not a signal */
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	return 0;
}

static void send_signal(pid_t pid, int sig)
{
	kill(pid, sig);
	record("sig", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "other");
}

int main(int argc, char **argv)
{
	settings s = { .wait_ms = 2000 };
	if (parse_args(argc, argv, &s) < 0) {
		fprintf(stderr, "usage: stamp [-o FILE] [-s PATTERN] [-w MS] [-m] -- CMD ARG...\n");
		return 2;
	}
	FILE *copy = NULL;
	if (s.out_path && !(copy = fopen(s.out_path, "w"))) {
		fprintf(stderr, "stamp: cannot write %s: %s\n", s.out_path, strerror(errno));
		return 1;
	}
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	stream out = { .name = "out" }, err = { .name = "err" };
	pid_t pid = sfd < 0 ? -1 : start_child(&s, &out.fd, &err.fd);
	if (pid < 0) {
		fprintf(stderr, "stamp: cannot start %s: %s\n", s.argv[0], strerror(errno));
		return 1;
	}
	double fire_at = -1;	/* when to send SIGINT, seconds since t0 */
	int gone = 0;
	while (!gone || out.fd >= 0 || err.fd >= 0) {
		struct pollfd p[3] = { { sfd, POLLIN, 0 }, { out.fd, POLLIN, 0 }, { err.fd, POLLIN, 0 } };
		/* Once the command is gone, its children get 3 s to close the
		 * pipes they inherited. */
		int timeout = gone ? 3000 : -1;
		if (fire_at >= 0 && !gone) {
			double left = fire_at - (now_s() - t0);
			timeout = left <= 0 ? 0 : (int)(left * 1000) + 1;
		}
		int ready = poll(p, 3, timeout);
		if ((ready < 0 && errno != EINTR) || (ready == 0 && gone))
			break;
		if (fire_at >= 0 && now_s() - t0 >= fire_at) {
			fire_at = -1;
			if (!gone)
				send_signal(pid, SIGINT);
		}
		int matched = 0;
		if (p[1].revents)
			matched |= drain(&out, copy, s.pattern);
		if (p[2].revents)
			matched |= drain(&err, NULL, s.pattern);
		if (matched && s.pattern) {
			fire_at = now_s() - t0 + (double)s.wait_ms / 1000;
			s.pattern = NULL;	/* the first match only */
		}
		if (p[0].revents) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) == sizeof si && si.ssi_signo != SIGCHLD && !gone)
				send_signal(pid, (int)si.ssi_signo);
			int st;
			pid_t w;
			while (!gone && (w = waitpid(pid, &st, WNOHANG | __WALL)) > 0)
				gone = handle_status(pid, st, s.measure_hwm);
		}
	}
	if (copy && fclose(copy) != 0) {
		fprintf(stderr, "stamp: cannot write %s: %s\n", s.out_path, strerror(errno));
		return 1;
	}
	return 0;
}
