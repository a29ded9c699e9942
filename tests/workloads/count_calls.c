/* count_calls — makes an exact, known number of calls, for tests of
 * count probes.
 *
 * Usage: count_calls func N
 *            calls counted_function() exactly N times, then exits 0;
 *        count_calls getppid N DELAY_MS
 *            waits for SIGUSR2 or DELAY_MS, whichever comes first (time for
 *            a tracer to attach; the wait is rt_sigtimedwait), then calls
 *            getppid() exactly N times and exits 0.
 * counted_function is never inlined and does not call getppid. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void counted_function(unsigned long i)
{
	__asm__ volatile("" ::: "memory");
	sink += i;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "func") == 0) {
		long n = atol(argv[2]);
		for (long i = 0; i < n; i++)
			counted_function((unsigned long)i);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "getppid") == 0) {
		long n = atol(argv[2]), delay = atol(argv[3]);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR2);
		sigprocmask(SIG_BLOCK, &set, NULL);
		struct timespec ts = { delay / 1000, (delay % 1000) * 1000000L };
		sigtimedwait(&set, NULL, &ts);
		for (long i = 0; i < n; i++)
			sink += (unsigned long)getppid();
		return 0;
	}
	fprintf(stderr, "usage: count_calls func N | count_calls getppid N DELAY_MS\n");
	return 2;
}
