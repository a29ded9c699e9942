/* hostile_names — a process that makes every string a tracer shows of it
 * hostile: its thread names, the paths it opens, a USDT string argument
 * (and, when the test runs it from such a directory, its executable's
 * path).
 *
 * hostile_names DIR SECONDS
 *
 * Names its main thread and a second thread (prctl(PR_SET_NAME), 15
 * bytes at most) with terminal escapes, a lone 0x9b, U+202E, invalid
 * UTF-8; creates DIR's hostile files (ESC sequences, an OSC 52 clipboard
 * write, BEL, CR, LF, 0x9b, U+202E, invalid UTF-8, a backslash, and a path of
 * about 4 KB in nested directories), then, every 50 ms in both threads
 * for SECONDS: opens and closes each file, calls hostile_work() (not
 * inlined: a latency one-liner times it) and fires the USDT probe
 * hostile:name with a hostile string.  Prints "ready" on stdout when
 * both threads run.  Exits 0, or 1 when a file cannot be made. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sdt.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAIN_NAME "\x1b[31mRED\x1b]0;x\a"	/* 14 bytes */
#define WORKER_NAME "\x9b\xe2\x80\xae\xff\xfe\rw\\"	/* 9 bytes */

static const char *const file_names[] = {
	"\x1b[2J\x1b[31mevil",
	"\x1b]52;c;aGk=\a",
	"bell\acr\r\nlf",
	"csi\x9b" "31m",
	"rlo\xe2\x80\xaetxt",
	"bad\xff\xfe",
	"back\\slash",
};
#define N_FILES (sizeof file_names / sizeof *file_names)

static char paths[N_FILES + 1][4200];
static double stop_at;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void hostile_work(void)
{
	struct timespec ts = { 0, 200000 };	/* 0.2 ms */
	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");
}

static void *loop(void *name)
{
	static const char usdt_text[] = "\x1b]52;c;aGk=\a\xe2\x80\xae\x9b\xff";

	if (name)
		prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
	while (now() < stop_at) {
		for (size_t i = 0; i <= N_FILES; i++) {
			int fd = open(paths[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			if (fd >= 0)
				close(fd);
		}
		hostile_work();
		DTRACE_PROBE1(hostile, name, usdt_text);
		struct timespec ts = { 0, 50000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* DIR/d..., nested until the path is about 4 KB long, then a file. */
static int make_long_path(const char *dir, char *out, size_t len)
{
	int n = snprintf(out, len, "%s", dir);
	while (n + 300 < 4000) {
		n += snprintf(out + n, len - (size_t)n, "/%.200s",
			      "dir\x1b[0m-ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
			      "ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
		if (mkdir(out, 0700) != 0 && errno != EEXIST)
			return -1;
	}
	snprintf(out + n, len - (size_t)n, "/long\x1b[5mfile");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: hostile_names DIR SECONDS\n");
		return 2;
	}
	for (size_t i = 0; i < N_FILES; i++)
		snprintf(paths[i], sizeof paths[i], "%s/%s", argv[1], file_names[i]);
	if (make_long_path(argv[1], paths[N_FILES], sizeof paths[N_FILES]) != 0) {
		perror("hostile_names: mkdir");
		return 1;
	}
	stop_at = now() + atof(argv[2]);
	prctl(PR_SET_NAME, (unsigned long)MAIN_NAME, 0, 0, 0);
	pthread_t worker;
	if (pthread_create(&worker, NULL, loop, (void *)WORKER_NAME) != 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	loop(NULL);
	pthread_join(worker, NULL);
	return 0;
}
