/* libFuzzer harness for check: the input bytes, as a NUL-terminated
 * string, go to condition_parse; a condition that parses is evaluated on a
 * small fixed report (a latency, a syscalls, an events and a detached
 * probe), alone and as a diff against a second report, with WHY buffers
 * of several sizes.  Seeds: tests/fuzz/corpus/check/.
 *
 * Build and run (from the top of the tree, after `make`):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -D_GNU_SOURCE \
 *     -iquote gen -iquote build/gen tests/fuzz/fuzz_check.c gen/model/check.c gen/util/diag.c \
 *     gen/util/systab.c build/gen/systab_data.c -o build/fuzz_check
 *   build/fuzz_check -max_total_time=60 -max_len=512 -dict=tests/fuzz/check.dict \
 *     -artifact_prefix=build/ build/fuzz_check_corpus tests/fuzz/corpus/check
 * (mkdir build/fuzz_check_corpus first: new inputs go there, not into the seeds). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/condition.h"
#include "model/report.h"

static report_errno errnos[] = {
	{ (char *)"ENOENT", 2, 3 },
	{ (char *)"E523", 523, 1 },
};

static report_syscall syscalls[] = {
	{ .name = (char *)"openat", .nr = 257,
	  .st = { .count = 5, .sum_ns = 50000, .min_ns = 2000, .max_ns = 20000,
		  .p50_ns = 8000, .p90_ns = 15000, .p99_ns = 19800 },
	  .errors = errnos, .n_errors = 2, .error_count = 4 },
	{ .name = (char *)"read", .nr = 0 },	/* no calls */
};

static report_probe probes_a[] = {
	{ .name = (char *)"poll", .kind = PROBE_LATENCY, .attached = true,
	  .st = { .count = 10, .sum_ns = 1000000, .min_ns = 1, .max_ns = UINT64_MAX,
		  .p50_ns = 50000, .p90_ns = 200000, .p99_ns = 132400000 } },
	{ .name = (char *)"io", .kind = PROBE_SYSCALLS, .attached = true,
	  .st = { .count = 5, .sum_ns = 50000 }, .syscalls = syscalls, .n_syscalls = 2 },
	{ .name = (char *)"slow", .kind = PROBE_EVENTS, .attached = true, .st = { .count = 3 } },
	{ .name = (char *)"gone", .kind = PROBE_LATENCY, .reason = (char *)"not found" },
	{ .name = (char *)"idle", .attached = true },
};

/* The same probes, with other values: zeros where A has some. */
static report_probe probes_b[] = {
	{ .name = (char *)"poll", .kind = PROBE_LATENCY, .attached = true,
	  .st = { .count = 0 } },
	{ .name = (char *)"io", .kind = PROBE_SYSCALLS, .attached = true },
	{ .name = (char *)"slow", .kind = PROBE_EVENTS, .attached = true,
	  .st = { .count = UINT64_MAX } },
	{ .name = (char *)"gone", .kind = PROBE_LATENCY, .attached = true,
	  .st = { .count = 1, .sum_ns = UINT64_MAX, .max_ns = UINT64_MAX } },
};

static const report rep_a = {
	.lost_events = 2, .probes = probes_a, .n_probes = sizeof(probes_a) / sizeof(probes_a[0]),
};
static const report rep_b = {
	.lost_events = 0, .probes = probes_b, .n_probes = sizeof(probes_b) / sizeof(probes_b[0]),
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t why_sizes[] = { 1, 7, 64, 512 };
	char *text = malloc(size + 1), err[256], why[512];
	condition *c;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	c = condition_parse(text, err, size % 2 ? sizeof(err) : 9);
	if (c) {
		if (strcmp(condition_text(c), text) != 0)
			abort();
		for (size_t i = 0; i < sizeof(why_sizes) / sizeof(why_sizes[0]); i++) {
			size_t n = why_sizes[i];
			int r[4] = {
				condition_eval(c, &rep_a, why, n),
				condition_eval(c, &rep_b, why, n),
				condition_eval_diff(c, &rep_a, &rep_b, why, n),
				condition_eval_diff(c, &rep_b, &rep_a, why, n),
			};
			for (int k = 0; k < 4; k++)
				if (r[k] < -1 || r[k] > 1 || strlen(why) >= n)
					abort();
		}
		/* Relative checks never evaluate on one report. */
		if (condition_is_relative(c) && condition_eval(c, &rep_a, NULL, 0) != -1)
			abort();
		condition_free(c);
	} else if (strncmp(err, "column ", 7) != 0 && size % 2) {
		abort();	/* every error names its column */
	}
	free(text);
	return 0;
}
