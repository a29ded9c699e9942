/* call_loop — calls an empty function, call_loop_work(), in a tight loop
 * and prints the mean wall time per call, in nanoseconds, every half
 * second: the price a probe on that function adds to each call.
 * Usage: call_loop [SECONDS]   (0 or none: until killed) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void call_loop_work(void)
{
	__asm__ volatile("");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double limit = argc > 1 ? atof(argv[1]) : 0, start = now_s();

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (limit <= 0 || now_s() - start < limit) {
		double t0 = now_s();
		long calls = 0;
		while (now_s() - t0 < 0.5) {
			for (int i = 0; i < 1000; i++)
				call_loop_work();
			calls += 1000;
		}
		printf("%.1f\n", (now_s() - t0) / (double)calls * 1e9);
	}
	return 0;
}
