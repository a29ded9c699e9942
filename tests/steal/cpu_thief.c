/* cpu_thief PERCENT [LONGEST_MS] — takes about PERCENT% of every CPU
 * away from all other work, in bursts, the way a busy hypervisor steals
 * vCPU time: one thread per CPU it may run on, pinned, at the highest
 * real-time priority, spins for a burst (1-10 ms nine times in ten,
 * otherwise 20 ms to LONGEST_MS, default 80) and then sleeps long enough
 * to keep to PERCENT on average.  Runs until killed.
 *
 * A test that judges a tracer against truth must hold while this runs
 * (tests/under_steal.sh): the host's CI machines lose 20-30% of their
 * CPU in bursts.  The kernel's real-time throttle (95% by default) keeps
 * the machine usable whatever PERCENT is. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int steal_percent;
static int longest_ms = 80;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A burst length in ns: 1-10 ms nine times in ten, 20 ms to longest_ms
 * otherwise. */
static long long burst_ns(unsigned int *seed)
{
	int r = rand_r(seed);

	if (r % 10 != 0)
		return (1 + r / 10 % 10) * 1000000LL;
	return (20 + r / 10 % (longest_ms - 19)) * 1000000LL;
}

static void *thief(void *arg)
{
	unsigned int seed = (unsigned int)(long)arg * 7919u + (unsigned int)getpid();
	volatile unsigned long sink = 0;

	for (;;) {
		long long burst = burst_ns(&seed);
		long long end = now_ns() + burst;
		long long rest = burst * (100 - steal_percent) / steal_percent;
		struct timespec ts = { rest / 1000000000LL, rest % 1000000000LL };

		while (now_ns() < end)
			for (int i = 0; i < 1000; i++)
				sink += (unsigned long)i;
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	cpu_set_t allowed;
	struct sched_param sp = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };

	steal_percent = argc > 1 ? atoi(argv[1]) : 0;
	if (argc > 2)
		longest_ms = atoi(argv[2]);
	if (argc < 2 || argc > 3 || steal_percent < 1 || steal_percent > 90 ||
	    longest_ms < 20 || longest_ms > 900) {
		fprintf(stderr, "usage: cpu_thief PERCENT [LONGEST_MS]   (PERCENT 1-90: the share of every CPU to take;\n"
			"       LONGEST_MS 20-900: the longest burst, default 80)\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
		perror("cpu_thief: sched_getaffinity");
		return 1;
	}
	for (long c = 0; c < CPU_SETSIZE; c++) {
		pthread_attr_t attr;
		pthread_t t;
		cpu_set_t set;
		int err;

		if (!CPU_ISSET((int)c, &allowed))
			continue;
		pthread_attr_init(&attr);
		CPU_ZERO(&set);
		CPU_SET((int)c, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
		err = pthread_create(&t, &attr, thief, (void *)c);
		if (err != 0) {
			fprintf(stderr, "cpu_thief: cannot start a real-time thread on CPU %ld: %s%s\n",
				c, strerror(err), err == EPERM ? " (run as root)" : "");
			return 1;
		}
		pthread_attr_destroy(&attr);
	}
	pause();
	return 0;
}
