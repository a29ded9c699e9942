/* start_signal.h — how the test programs here wait for their tracer:
 * the test sends SIGUSR1 once bpfspec says "the window begins". */
#ifndef START_SIGNAL_H
#define START_SIGNAL_H

#include <signal.h>
#include <time.h>

/* Returns when SIGUSR1 arrives or after DELAY_MS, whichever comes first. */
static inline void wait_for_start(long delay_ms)
{
	sigset_t go;
	struct timespec limit = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };

	sigemptyset(&go);
	sigaddset(&go, SIGUSR1);
	sigprocmask(SIG_BLOCK, &go, NULL);
	sigtimedwait(&go, NULL, &limit);
}

#endif
