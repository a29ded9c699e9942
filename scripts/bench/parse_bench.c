/* parse_bench — throughput of bpfspec's output parser (gen/run/bpfout.h), for
 * scripts/bench.sh.  Linked against the project's objects, like the unit
 * tests.
 *
 * Reads recorded `bpftrace -f json` output of bpfspec's generated programs
 * (FILE...: each holds a "bpfspec:flush" ... "bpfspec:end" window of map
 * dumps), and builds in memory a stream of about MB megabytes: one
 * "bpfspec:begin" line, then the recorded windows in turn, again and
 * again, each with its own flush time and followed by EVENTS printf event
 * records ("bpfspec:ev ...", as the events template prints them).  It
 * then feeds the stream to a new parser line by line, ROUNDS times, timing
 * only bpfout_feed, and prints one line:
 *   bytes B lines L windows W skipped S best_s T median_s M mb_per_s R
 * where R is B / M / 1e6 (the median round).  Exits 1 when the parser did
 * not find every window or skipped a line: a throughput of a parser that
 * understood nothing would mean nothing.
 *
 * Usage: parse_bench MB EVENTS ROUNDS FILE... */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "run/bpfout.h"

typedef struct text {
	char *data;
	size_t len, cap;
} text;

static void text_add(text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 1 << 16;
		while (cap < t->len + n + 1)
			cap *= 2;
		char *d = realloc(t->data, cap);
		if (!d) {
			fprintf(stderr, "parse_bench: out of memory\n");
			exit(1);
		}
		t->data = d;
		t->cap = cap;
	}
	memcpy(t->data + t->len, s, n);
	t->len += n;
	t->data[t->len] = '\0';
}

static void text_addf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_addf(text *t, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0)
		text_add(t, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* Appends to BODY the map lines of the first recorded window in PATH:
 * every line after its "bpfspec:flush" record, up to (not including) the
 * "bpfspec:end" record.  Returns the number of lines; -1 when PATH cannot
 * be read or holds no complete window. */
static long read_window(const char *path, text *body)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int in = 0, done = 0;
	long lines = 0;
	while (!done && (n = getline(&line, &cap, f)) > 0) {
		if (strstr(line, "\"bpfspec:flush ")) {
			in = 1;
			continue;
		}
		if (in && strstr(line, "\"bpfspec:end")) {
			done = 1;
			continue;
		}
		if (in && n > 1) {
			text_add(body, line, (size_t)n);
			lines++;
		}
	}
	free(line);
	fclose(f);
	if (!done)
		fprintf(stderr, "parse_bench: %s: no complete bpfspec window\n", path);
	return done ? lines : -1;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Feeds STREAM to a new parser, line by line.  Returns the seconds spent
 * in bpfout_feed; stores the complete windows and skipped lines. */
static double feed_all(const text *stream, size_t *windows, size_t *skipped, size_t *lines)
{
	bpfout *p = bpfout_new();
	if (!p) {
		fprintf(stderr, "parse_bench: out of memory\n");
		exit(1);
	}
	*skipped = *lines = 0;
	double t0 = now_s();
	for (const char *s = stream->data, *end = s + stream->len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (bpfout_feed(p, s, len) == BPFOUT_LINE_SKIPPED)
			(*skipped)++;
		(*lines)++;
		s += len + 1;
	}
	double took = now_s() - t0;
	*windows = bpfout_window_count(p);
	bpfout_free(p);
	return took;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: parse_bench MB EVENTS ROUNDS FILE...\n");
		return 2;
	}
	long mb = atol(argv[1]), events = atol(argv[2]), rounds = atol(argv[3]);
	if (mb < 1 || mb > 1024 || events < 0 || events > 10000 || rounds < 1 || rounds > 20) {
		fprintf(stderr, "parse_bench: MB 1..1024, EVENTS 0..10000, ROUNDS 1..20\n");
		return 2;
	}
	int n_files = argc - 4;
	text *bodies = calloc((size_t)n_files, sizeof *bodies);
	if (!bodies)
		return 1;
	for (int i = 0; i < n_files; i++)
		if (read_window(argv[4 + i], &bodies[i]) < 0)
			return 1;

	text stream = { 0 };
	uint64_t ns = 1000000000;
	size_t expect_windows = 0;
	text_addf(&stream, "{\"type\": \"attached_probes\", \"data\": {\"probes\": 13}}\n");
	text_addf(&stream, "{\"type\": \"printf\", \"data\": \"bpfspec:begin %llu\\n\"}\n",
		  (unsigned long long)ns);
	while (stream.len < (size_t)mb * 1000000) {
		const text *b = &bodies[expect_windows % (size_t)n_files];
		for (long e = 0; e < events; e++)
			text_addf(&stream, "{\"type\": \"printf\", \"data\": \"bpfspec:ev slow_io %llu "
				  "%ld openat %ld -2 s /var/lib/app/cache/entry-%ld.json\\n\"}\n",
				  (unsigned long long)(ns + (uint64_t)e * 1000), 4000 + e % 7,
				  1000000 + e * 37, e);
		ns += 1000000000;
		text_addf(&stream, "{\"type\": \"printf\", \"data\": \"bpfspec:flush %llu\\n\"}\n",
			  (unsigned long long)ns);
		text_add(&stream, b->data, b->len);
		text_addf(&stream, "{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}\n");
		expect_windows++;
	}

	double *took = calloc((size_t)rounds, sizeof *took);
	size_t windows = 0, skipped = 0, lines = 0;
	if (!took)
		return 1;
	for (long r = 0; r < rounds; r++) {
		took[r] = feed_all(&stream, &windows, &skipped, &lines);
		if (windows != expect_windows || skipped) {
			fprintf(stderr, "parse_bench: the parser found %zu windows of %zu, skipped %zu lines\n",
				windows, expect_windows, skipped);
			return 1;
		}
	}
	qsort(took, (size_t)rounds, sizeof *took, cmp_double);
	double median = took[rounds / 2];
	printf("bytes %zu lines %zu windows %zu skipped %zu best_s %.4f median_s %.4f mb_per_s %.1f\n",
	       stream.len, lines, windows, skipped, took[0], median, (double)stream.len / median / 1e6);
	for (int i = 0; i < n_files; i++)
		free(bodies[i].data);
	free(bodies);
	free(stream.data);
	free(took);
	return 0;
}
