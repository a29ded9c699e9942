/* syscall_loop — makes N cheap syscalls in a tight loop and writes how
 * long the loop took, for scripts/bench-syscalls.sh and section 3d of
 * scripts/bench.sh (scripts/bench/syscall_call.sh).
 *
 * Usage: syscall_loop N getppid|read OUT
 *   getppid  N getppid() calls (a syscall that does almost nothing)
 *   read     N one-byte read()s of /dev/zero
 * OUT receives "calls N\nloop_ns NS\n".  The loop is timed with
 * clock_gettime(CLOCK_MONOTONIC), which the vDSO answers without a
 * syscall, so a tracer's start-up and attach time are not included. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[2], "getppid") && strcmp(argv[2], "read"))) {
		fprintf(stderr, "usage: syscall_loop N getppid|read OUT\n");
		return 2;
	}
	long n = atol(argv[1]);
	int use_read = strcmp(argv[2], "read") == 0;
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	volatile long sink = 0;
	char c;
	long long t0 = now_ns();
	if (use_read) {
		for (long i = 0; i < n; i++)
			sink += read(fd, &c, 1);
	} else {
		for (long i = 0; i < n; i++)
			sink += getppid();
	}
	long long t1 = now_ns();
	FILE *f = fopen(argv[3], "w");
	if (!f || fprintf(f, "calls %ld\nloop_ns %lld\n", n, t1 - t0) < 0 || fclose(f)) {
		perror(argv[3]);
		return 1;
	}
	return 0;
}
