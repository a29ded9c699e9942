/* cpu_spin MS — spins on the CPU until this process has used MS
 * milliseconds of CPU time (CLOCK_PROCESS_CPUTIME_ID), then exits: a
 * known amount of on-CPU time however busy the machine is. */
#include <stdlib.h>
#include <time.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long want = (argc > 1 ? atoll(argv[1]) : 2000) * 1000000LL;
	long long start = cpu_ns();
	volatile unsigned long sink = 0;

	while (cpu_ns() - start < want)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
	return 0;
}
