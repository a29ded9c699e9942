/* libwork — a shared library whose one function takes a known time:
 * work_sleep(ms) sleeps MS milliseconds with clock_nanosleep. */
#include <time.h>

__attribute__((noinline)) int work_sleep(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	return clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}
