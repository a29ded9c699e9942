/* latency_mix — a function whose durations follow a known mix, for the
 * accuracy rows of scripts/bench.sh.
 *
 * Calls mix_work() COUNT times (a multiple of 10): 60% of the calls
 * busy-wait 1 ms, 30% 5 ms and 10% 40 ms, in a fixed pseudo-random order
 * (a seeded shuffle: the same order every run).  The busy-wait reads
 * clock_gettime(CLOCK_MONOTONIC) (the vDSO, no syscall), so a call lasts
 * its duration plus the few ns of one clock read.  Each call is also timed
 * from outside, and OUT receives the measured truth, one "key value" a
 * line: count, total_ns, p50_ns, p99_ns (nearest rank), max_ns, min_ns.
 *
 * Usage: latency_mix COUNT OUT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The traced function: busy-waits NS nanoseconds.  noinline and global,
 * so it keeps its own symbol and its own return. */
__attribute__((noinline)) void mix_work(int64_t ns)
{
	int64_t end = now_ns() + ns;
	while (now_ns() < end)
		;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentile P (0..100) of the N sorted values V. */
static int64_t percentile(const int64_t *v, long n, int p)
{
	long rank = (n * p + 99) / 100;
	return v[rank < 1 ? 0 : rank - 1];
}

int main(int argc, char **argv)
{
	long count = argc == 3 ? atol(argv[1]) : 0;
	if (count < 10 || count > 100000 || count % 10) {
		fprintf(stderr, "usage: latency_mix COUNT OUT (COUNT a multiple of 10, 10..100000)\n");
		return 2;
	}
	int64_t *plan = malloc(sizeof *plan * (size_t)count);
	int64_t *took = malloc(sizeof *took * (size_t)count);
	if (!plan || !took)
		return 1;
	for (long i = 0; i < count; i++)
		plan[i] = i % 10 < 6 ? 1000000 : i % 10 < 9 ? 5000000 : 40000000;
	uint32_t seed = 12345;	/* fixed: the same order every run */
	for (long i = count - 1; i > 0; i--) {
		seed = seed * 1103515245u + 12345u;
		long j = (long)((seed >> 8) % (uint32_t)(i + 1));
		int64_t t = plan[i];
		plan[i] = plan[j];
		plan[j] = t;
	}
	int64_t total = 0;
	for (long i = 0; i < count; i++) {
		int64_t t0 = now_ns();
		mix_work(plan[i]);
		took[i] = now_ns() - t0;
		total += took[i];
	}
	qsort(took, (size_t)count, sizeof *took, cmp_i64);
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "count %ld\ntotal_ns %lld\np50_ns %lld\np99_ns %lld\nmax_ns %lld\nmin_ns %lld\n",
		count, (long long)total, (long long)percentile(took, count, 50),
		(long long)percentile(took, count, 99), (long long)took[count - 1], (long long)took[0]);
	free(plan);
	free(took);
	return fclose(f) == 0 ? 0 : 1;
}
