/* runner_child — the runner's children (runner.h): the command held
 * before exec for -c, bpftrace started on the program's memfd with the
 * settings of its version, and `bpftrace --version`. */
#include "run/runner.h"
#include "run/runner_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/child.h"
#include "util/diag.h"
#include "util/safe.h"

int runner_hold_command(const char *path, char *const argv[], held_command *h)
{
	int fds[2];

	memset(h, 0, sizeof *h);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		diag_error(NULL, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	child_setup cs = { .path = path, .argv = argv, .in_fd = CHILD_INHERIT,
			   .out_fd = CHILD_INHERIT, .err_fd = CHILD_INHERIT, .fd3 = -1,
			   .hold_fd = fds[0], .hold_writer = fds[1], .errno_fd = -1,
			   .say_failure = true };
	pid_t pid = child_start(&cs);
	close(fds[0]);
	if (pid < 0) {
		diag_error(NULL, "cannot fork: %s", strerror(errno));
		close(fds[1]);
		return -1;
	}
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

int runner_program_memfd(const program *p)
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

/* bpftrace's settings for O's version, in the child before its exec. */
static void set_bpftrace_env(void *ctx)
{
	const runner_opts *o = ctx;
	/* Map keys: room for every thread's buckets, 16384 keys a probe:
	 * probes that share their maps (generator.h) share the room too, up to 4
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
		 * one (runner_stacks_per_process; cmd/trace.c refuses that). */
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
}

pid_t runner_start_bpftrace(const runner_opts *o, int script_fd, int out_w, int err_w, int errno_w)
{
	char *argv[] = { (char *)o->bpftrace, "-f", "json", RUNNER_SCRIPT_NAME, NULL };
	/* Its own group, and it dies with bpfspec: an orphaned bpftrace
	 * would keep its probes. */
	child_setup cs = { .path = o->bpftrace, .search = true, .argv = argv, .in_fd = -1,
			   .out_fd = out_w, .err_fd = err_w, .fd3 = script_fd, .hold_fd = -1,
			   .hold_writer = -1, .death_signal = SIGKILL, .own_group = true,
			   .errno_fd = errno_w, .before_exec = set_bpftrace_env, .ctx = (void *)o };
	return child_start(&cs);
}

bool runner_stacks_per_process(int major, int minor)
{
	return major > 0 || minor >= 20;
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
	char *argv[] = { (char *)bpftrace, "--version", NULL };
	child_setup cs = { .path = bpftrace, .search = true, .argv = argv, .in_fd = CHILD_INHERIT,
			   .out_fd = fds[1], .err_fd = -1, .fd3 = -1, .hold_fd = -1,
			   .hold_writer = -1, .errno_fd = -1 };
	pid_t pid = child_start(&cs);
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
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
