/* why_v8check — the perf map's names of JavaScript frames checked against
 * the names read from V8's heap (why_v8.h), for a target that wrote a
 * perf map and whose stacks the sampler also walked: the same frame
 * named twice, by two independent means.  The perf map stays the name
 * shown; the check says, per run, how far the heap's names can be
 * trusted where there is no perf map (report.h: report_js_check).
 *
 * Two names are the same function when their names and scripts match
 * and, where the heap has the definition line, their lines: the perf
 * map's tag ("JS:", node 18's "LazyCompile:"), tier mark ("~", "*", "^",
 * "+", then "'" for code entered by on-stack replacement) and column are
 * set aside, and spaces (bpftrace 0.24 drops them
 * from stack keys).
 *
 * Ownership: why_v8check_new returns an owned check, why_v8check_free
 * (NULL) is a no-op; nothing passed in is kept. */
#ifndef BPFSPEC_WHY_V8CHECK_H
#define BPFSPEC_WHY_V8CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/report.h"

typedef struct why_v8check why_v8check;

/* The innermost frames a stack is checked on (the sampler walks
 * WHY_V8_FRAMES: why.h). */
#define WHY_V8CHECK_FRAMES 16

/* An empty check, or NULL out of memory. */
why_v8check *why_v8check_new(void);

/* Adds one stack sampled SAMPLES times: FRAME[i] (LEN[i] bytes, offsets
 * dropped) the i-th of its N frames from the innermost as bpftrace named
 * it, HEAP[i] (NULL: none) the heap's "NAME SCRIPT[:LINE]" of the i-th
 * frame of the frame-pointer chain, for i < N_HEAP ("JS:" before it is
 * set aside); WALKED: the walk found a JavaScript function in one of its
 * frames at least (named or not).  C NULL: nothing is done. */
void why_v8check_stack(why_v8check *c, const char *const *frame, const size_t *len, size_t n,
		       const char *const *heap, size_t n_heap, bool walked, uint64_t samples);

/* The figures so far into OUT (done set). */
void why_v8check_result(const why_v8check *c, report_js_check *out);

void why_v8check_free(why_v8check *c);

#endif
