/* syscall_sleeps — syscalls whose latencies are known, for the accuracy
 * rows of scripts/bench.sh: N nanosleep(10 ms), 2N clock_nanosleep(2 ms)
 * and N poll(no fds, 5 ms), interleaved, each made with syscall(2) so the
 * syscall is exactly the one named (glibc may pick another for its
 * wrappers).  Each call is timed around the syscall with the vDSO clock;
 * OUT receives the measured truth per syscall, one line each:
 *   NAME count N total_ns T p50_ns P p99_ns Q max_ns M
 * (percentiles by nearest rank).
 *
 * Usage: syscall_sleeps N OUT */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

typedef struct kind {
	const char *name;
	int64_t *took;
	long n;
} kind;

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t percentile(const int64_t *v, long n, int p)
{
	long rank = (n * p + 99) / 100;
	return v[rank < 1 ? 0 : rank - 1];
}

static void timed(kind *k, long nr, long a, long b, long c, long d)
{
	int64_t t0 = now_ns();
	syscall(nr, a, b, c, d);
	k->took[k->n++] = now_ns() - t0;
}

static void write_truth(FILE *f, kind *k)
{
	int64_t total = 0;
	for (long i = 0; i < k->n; i++)
		total += k->took[i];
	qsort(k->took, (size_t)k->n, sizeof *k->took, cmp_i64);
	fprintf(f, "%s count %ld total_ns %lld p50_ns %lld p99_ns %lld max_ns %lld\n", k->name, k->n,
		(long long)total, (long long)percentile(k->took, k->n, 50),
		(long long)percentile(k->took, k->n, 99), (long long)k->took[k->n - 1]);
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[1]) : 0;
	if (n < 1 || n > 10000) {
		fprintf(stderr, "usage: syscall_sleeps N OUT (N 1..10000)\n");
		return 2;
	}
	kind ks[3] = { { "nanosleep", NULL, 0 }, { "clock_nanosleep", NULL, 0 }, { "poll", NULL, 0 } };
	for (int i = 0; i < 3; i++)
		if (!(ks[i].took = malloc(sizeof(int64_t) * (size_t)n * 2)))
			return 1;
	struct timespec ten = { 0, 10000000 }, two = { 0, 2000000 };
	for (long i = 0; i < n; i++) {
		timed(&ks[0], SYS_nanosleep, (long)&ten, 0, 0, 0);
		timed(&ks[1], SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)&two, 0);
		timed(&ks[1], SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)&two, 0);
		timed(&ks[2], SYS_poll, 0, 0, 5, 0);
	}
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 1;
	for (int i = 0; i < 3; i++) {
		write_truth(f, &ks[i]);
		free(ks[i].took);
	}
	return fclose(f) == 0 ? 0 : 1;
}
