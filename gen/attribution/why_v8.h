/* why_v8 — names the JavaScript frames of loop-why's stacks from the
 * SharedFunctionInfo addresses the stack sampler recorded (why.c), by
 * reading them out of the live process's heap (target/v8names.h) at the
 * window's end.  A name is looked up once per process and address.
 *
 * Ownership: why_v8_new returns an owned namer, why_v8_free(NULL) is a
 * no-op; names returned are borrowed until why_v8_free. */
#ifndef BPFSPEC_WHY_V8_H
#define BPFSPEC_WHY_V8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct why_v8 why_v8;

/* Whether the environment turned the sampler's walk of V8's frames off
 * (BPFSPEC_V8_WALK=0: the stacks are sampled as without V8 metadata;
 * for measuring the walk's cost, or to leave the target's memory
 * unread). */
bool why_v8_walk_off(void);

/* A namer for processes running executable EXE, or NULL when EXE carries
 * no usable V8 metadata, or the walk is off (the reason then in WHY,
 * size LEN), or memory runs out (WHY "out of memory"). */
why_v8 *why_v8_new(const char *exe, char *why, size_t len);

/* "NAME SCRIPT:LINE" of the function whose SharedFunctionInfo is SFI in
 * process PID, or NULL when it cannot be read as one (gone, moved, not
 * what the sampler took it for). */
const char *why_v8_name(why_v8 *v, long pid, uint64_t sfi);

void why_v8_free(why_v8 *v);

#endif
