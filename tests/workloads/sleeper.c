/* sleeper — calls libwork's work_sleep(MS) exactly COUNT times, once
 * SIGUSR1 arrives (the test sends it when its tracer's window has begun)
 * or after DELAY_MS at the latest.  With LOG, appends each call's wall
 * time, measured around the call, to LOG ("DUR_NS" a line): a sleep ends
 * late when the host is busy, and the test judges the tracer against
 * what happened.
 * Usage: sleeper COUNT MS DELAY_MS [LOG] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../targets/start_signal.h"

int work_sleep(int ms);

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: sleeper COUNT MS DELAY_MS [LOG]\n");
		return 2;
	}
	int count = atoi(argv[1]), ms = atoi(argv[2]);
	FILE *log = NULL;

	if (argc == 5 && !(log = fopen(argv[4], "a"))) {
		perror(argv[4]);
		return 1;
	}
	wait_for_start(atol(argv[3]));
	for (int i = 0; i < count; i++) {
		long long t0 = now_ns();

		work_sleep(ms);
		if (log)
			fprintf(log, "%lld\n", now_ns() - t0);
	}
	if (log && fclose(log) != 0) {
		perror(argv[4]);
		return 1;
	}
	return 0;
}
