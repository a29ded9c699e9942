/* usdt_prog — a USDT fixture: waits, then fires bpfspec_test:tick N times.
 *
 * usdt_prog [N [DELAY_MS [GAP_US]]]  (defaults 100, 1000, 1000)
 *
 * Sleeps DELAY_MS (time for the tracer to attach), then fires
 * bpfspec_test:tick(i, "tick-<i>") for i = 1..N with GAP_US microseconds
 * between hits, and bpfspec_test:done(N, -1) once; then exits.  A second
 * probe, bpfspec_test:start, fires once with no arguments before the
 * delay (so it is never seen by a tracer that attaches later). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

static long arg_or(int argc, char **argv, int i, long fallback)
{
	return argc > i ? strtol(argv[i], NULL, 10) : fallback;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	long n = arg_or(argc, argv, 1, 100);
	long delay_ms = arg_or(argc, argv, 2, 1000);
	long gap_us = arg_or(argc, argv, 3, 1000);
	char label[32];

	DTRACE_PROBE(bpfspec_test, start);
	sleep_us(delay_ms * 1000);
	for (int i = 1; i <= n; i++) {
		snprintf(label, sizeof(label), "tick-%d", i);
		DTRACE_PROBE2(bpfspec_test, tick, i, label);
		if (gap_us > 0)
			sleep_us(gap_us);
	}
	DTRACE_PROBE2(bpfspec_test, done, (unsigned long)n, -1);
	return 0;
}
