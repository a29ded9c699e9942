/* syscall_mix — makes an exact, known number of three syscalls, for
 * tests that count syscalls of a process traced with -p.
 *
 * Usage: syscall_mix DELAY_MS MISSING_PATH [SLEEPS OPENS READS]
 *
 * It first waits for SIGUSR2 or DELAY_MS, whichever comes first (time for
 * a tracer to attach; the wait is rt_sigtimedwait, so nothing counted is
 * in progress while probes attach), then, in this order:
 *   - clock_nanosleep(CLOCK_MONOTONIC, 10 ms)       exactly SLEEPS times (50)
 *   - openat(AT_FDCWD, MISSING_PATH) failing ENOENT exactly OPENS times (37)
 *   - read() of one byte from a pipe whose writer, a forked child process,
 *     sleeps 5 ms before each byte                  exactly READS times (20)
 * and exits 0 (1 if any call did not behave as described).
 *
 * Between the start signal and its exit the process makes no other
 * clock_nanosleep, openat or read: the pipes and the child are set up
 * before the wait, and the parent talks to the child with write() (one
 * request byte per reply), so every read() waits for the child's 5 ms
 * sleep.  The child is a separate process (tgid), not a thread, so its
 * own sleeps and reads belong to another pid. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLEEP_NS 10000000L	/* the parent's clock_nanosleep */
#define WRITER_NS 5000000L	/* the child's sleep before each byte */

static void child(int req, int rep)
{
	const struct timespec d = { 0, WRITER_NS };
	char c;
	/* One reply per request; EOF on the request pipe ends the child. */
	while (read(req, &c, 1) == 1) {
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL) == EINTR)
			;
		if (write(rep, &c, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 6) {
		fprintf(stderr, "usage: syscall_mix DELAY_MS MISSING_PATH [SLEEPS OPENS READS]\n");
		return 2;
	}
	long delay = atol(argv[1]);
	const char *missing = argv[2];
	int sleeps = argc == 6 ? atoi(argv[3]) : 50;
	int opens = argc == 6 ? atoi(argv[4]) : 37;
	int reads = argc == 6 ? atoi(argv[5]) : 20;
	int req[2], rep[2];

	if (pipe(req) || pipe(rep)) {
		perror("pipe");
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(req[1]);
		close(rep[0]);
		child(req[0], rep[1]);
	}
	close(req[0]);
	close(rep[1]);

	/* The start: SIGUSR2 or the delay. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	struct timespec wait = { delay / 1000, (delay % 1000) * 1000000L };
	while (sigtimedwait(&set, NULL, &wait) < 0 && errno == EINTR)
		;

	/* The counted phase. */
	int bad = 0;
	const struct timespec d = { 0, SLEEP_NS };
	for (int i = 0; i < sleeps; i++)
		if (clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL) != 0)
			bad = 1;
	for (int i = 0; i < opens; i++) {
		int fd = openat(AT_FDCWD, missing, O_RDONLY);
		if (fd >= 0 || errno != ENOENT)
			bad = 1;
		if (fd >= 0)
			close(fd);
	}
	for (int i = 0; i < reads; i++) {
		char c = 'x';
		if (write(req[1], &c, 1) != 1 || read(rep[0], &c, 1) != 1)
			bad = 1;
	}

	close(req[1]);	/* EOF: the child exits */
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bad = 1;
	return bad;
}
