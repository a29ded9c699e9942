/* span_handoff — work handed from one thread to another, for a span
 * spec (tests/integration/test_span.sh): span_submit(item) on the main
 * thread, span_complete(item) on a worker thread after DELAY_MS.  Each
 * submit also names the item's work type, a string (arg1): phase 1's
 * items take WORK_TYPES' in turn, phase 2's are all "burst".  The types
 * hold the bytes a label must survive: a comma, quotes, an escape
 * sequence, a backslash, a newline, invalid UTF-8, and more than the
 * 31 bytes a span's string label keeps.
 *   phase 1: N items one at a time: submitted, handed over a pipe, the
 *            worker sleeps DELAY_MS and completes it; the main thread
 *            waits for that before the next (every span DELAY_MS long,
 *            one open at a time);
 *   phase 2: M more items submitted at once (M spans open together),
 *            then all completed by the worker.
 * Prints "N M" when done.  Usage: span_handoff N M DELAY_MS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct item {
	long id;
	char work_type[56];	/* copied from WORK_TYPES: memory the process wrote */
};

/* Phase 1's work types, item I taking WORK_TYPES[I % N_WORK_TYPES]
 * (tests/integration/test_span.sh knows them). */
static const char *const WORK_TYPES[] = {
	"fs",
	"dns,lookup \"q\"",
	"crypto\x1b[31m\\red\n",
	"\xff\xfezlib",
	"a-work-type-name-longer-than-31-bytes",
	"random",
};
#define N_WORK_TYPES (sizeof WORK_TYPES / sizeof *WORK_TYPES)

__attribute__((noinline)) void span_submit(struct item *it, const char *work_type)
{
	__asm__ volatile("" : : "r"(it), "r"(work_type) : "memory");
}

__attribute__((noinline)) void span_complete(struct item *it)
{
	__asm__ volatile("" : : "r"(it) : "memory");
}

static int to_worker[2], to_main[2];
static long delay_ms;

/* Completes every item read from the pipe: a NULL ends it. */
static void *worker(void *arg)
{
	struct item *it;
	(void)arg;
	while (read(to_worker[0], &it, sizeof it) == sizeof it && it) {
		if (it->id >= 0) {
			struct timespec d = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
			nanosleep(&d, NULL);
		}
		span_complete(it);
		if (write(to_main[1], &it, sizeof it) != sizeof it)
			abort();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: span_handoff N M DELAY_MS\n");
		return 2;
	}
	long n = atol(argv[1]), m = atol(argv[2]);
	delay_ms = atol(argv[3]);
	struct item *items = calloc((size_t)(n + m), sizeof *items);
	pthread_t t;
	if (!items || pipe(to_worker) || pipe(to_main) || pthread_create(&t, NULL, worker, NULL))
		return 1;
	for (long i = 0; i < n + m; i++) {
		struct item *it = &items[i], *back;
		it->id = i < n ? i : -1;	/* phase 2: completed without a delay */
		snprintf(it->work_type, sizeof it->work_type, "%s",
			 i < n ? WORK_TYPES[i % N_WORK_TYPES] : "burst");
		span_submit(it, it->work_type);
		if (i < n && (write(to_worker[1], &it, sizeof it) != sizeof it ||
			      read(to_main[0], &back, sizeof back) != sizeof back))
			return 1;
	}
	for (long i = n; i < n + m; i++) {
		struct item *it = &items[i], *back;
		if (write(to_worker[1], &it, sizeof it) != sizeof it ||
		    read(to_main[0], &back, sizeof back) != sizeof back)
			return 1;
	}
	struct item *end = NULL;
	if (write(to_worker[1], &end, sizeof end) != sizeof end || pthread_join(t, NULL))
		return 1;
	printf("%ld %ld\n", n, m);
	free(items);
	return 0;
}
