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
#include "target/perfmap.h"

typedef struct why_v8check why_v8check;

/* The innermost frames a stack is checked on (the sampler walks
 * WHY_V8_FRAMES: why.h). */
#define WHY_V8CHECK_FRAMES 16

/* An empty check, or NULL out of memory. */
why_v8check *why_v8check_new(void);

/* One sampled stack as bpftrace named it: FRAME[i] (LEN[i] bytes, the
 * offset dropped) the i-th of its N frames from the innermost, OFFSET[i]
 * the offset into it bpftrace printed (0 none). */
typedef struct why_v8check_frames {
	const char *const *frame;
	const size_t *len;
	const uint64_t *offset;
	size_t n;
} why_v8check_frames;

/* Adds one stack F of process PID sampled SAMPLES times: HEAP[i] (NULL:
 * none) the heap's "NAME SCRIPT[:LINE]" of the i-th frame of the
 * frame-pointer chain, for i < N_HEAP ("JS:" before it is set aside);
 * WALKED: the walk found a JavaScript function in one of its frames at
 * least (named or not).  Each frame is compared as the newest line of
 * PID's perf map at its address names it (target/perfmap.h: bpftrace may
 * have named it from the line of freed code, counted in perf_map_stale);
 * a frame the perf map cannot place is counted apart (perf_map_unplaced)
 * and not compared.  C NULL: nothing is done. */
void why_v8check_stack(why_v8check *c, long pid, const why_v8check_frames *f,
		       const char *const *heap, size_t n_heap, bool walked, uint64_t samples);

/* Takes PM (owned; may be NULL: no overlaps known) as process PID's perf
 * map instead of the one the check would read (tests). */
void why_v8check_use_perfmap(why_v8check *c, long pid, perfmap *pm);

/* The figures so far into OUT (done set). */
void why_v8check_result(const why_v8check *c, report_js_check *out);

void why_v8check_free(why_v8check *c);

#endif
