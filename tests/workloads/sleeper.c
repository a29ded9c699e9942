/* sleeper — calls libwork's work_sleep(MS) exactly COUNT times, after
 * waiting DELAY_MS first (time for a tracer to attach to its pid).
 * Usage: sleeper COUNT MS DELAY_MS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int work_sleep(int ms);

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: sleeper COUNT MS DELAY_MS\n");
		return 2;
	}
	int count = atoi(argv[1]), ms = atoi(argv[2]), delay = atoi(argv[3]);
	struct timespec d = { delay / 1000, (long)(delay % 1000) * 1000000L };
	nanosleep(&d, NULL);
	for (int i = 0; i < count; i++)
		work_sleep(ms);
	return 0;
}
