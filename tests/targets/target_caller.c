/* target_caller — calls libtarget's target_tick() exactly COUNT times,
 * after waiting DELAY_MS (time for a tracer to attach to its pid), then
 * waits DELAY_MS again and exits.
 * Usage: target_caller COUNT DELAY_MS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "target_api.h"

static void pause_ms(int ms)
{
	struct timespec d = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&d, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: target_caller COUNT DELAY_MS\n");
		return 2;
	}
	int count = atoi(argv[1]), delay = atoi(argv[2]);

	pause_ms(delay);
	for (int i = 0; i < count; i++)
		target_tick(1);
	pause_ms(100);
	return 0;
}
