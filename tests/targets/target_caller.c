/* target_caller — calls libtarget's target_tick() exactly COUNT times,
 * once it receives SIGUSR1 (the test sends it when its tracer has
 * attached) or DELAY_MS have passed, whichever comes first; then waits
 * 100 ms and exits.
 * Usage: target_caller COUNT DELAY_MS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "start_signal.h"
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

	wait_for_start(delay);
	for (int i = 0; i < count; i++)
		target_tick(1);
	pause_ms(100);
	return 0;
}
