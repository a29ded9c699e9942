/* v8names — names a JavaScript function from its SharedFunctionInfo, read
 * out of a live node process's heap (/proc/PID/mem) with the layout of
 * v8meta.h: "NAME SCRIPT:LINE" ("NAME SCRIPT" when the line cannot be
 * had).
 *
 * Everything read is the target's and untrusted: every object's map is
 * read and its instance type checked before a field of it is used,
 * string lengths and the depth of cons/thin/sliced strings are capped,
 * and anything odd (a moved or freed object, a type not expected, an
 * unreadable page) gives no name (-1), never a guess.  Names come back
 * through safe_text (util/safe.h): printable, bounded.
 *
 * The heap is read through a v8names_reader, so tests feed fabricated
 * bytes.
 *
 * Ownership: v8names_proc_open returns an owned reader closed by
 * v8names_proc_close (NULL is a no-op); names are written into the
 * caller's buffer. */
#ifndef BPFSPEC_V8NAMES_H
#define BPFSPEC_V8NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "target/v8meta.h"

/* Reads LEN bytes at ADDR of the target into OUT.  Returns 0, or -1 when
 * any of them cannot be read. */
typedef int (*v8names_read_fn)(void *ctx, uint64_t addr, void *out, size_t len);

typedef struct v8names_reader {
	v8names_read_fn read;
	void *ctx;
} v8names_reader;

/* The longest function or script name kept, in bytes (longer ones are
 * cut, with "..." at the end). */
#define V8NAMES_TEXT_MAX 160

/* Names the function the sampler recorded as SAMPLED (a
 * SharedFunctionInfo's tagged address and its mark: v8meta.h):
 * "NAME SCRIPT:LINE" into OUT (size LEN, at least 2*V8NAMES_TEXT_MAX+24
 * advised), "(anonymous)" for a function without a name.  Returns 0, or
 * -1 (OUT "") when the address holds no SharedFunctionInfo, or one
 * without the mark (the function sampled moved away), or an object on
 * the way is not what it should be. */
int v8names_function(const v8meta *m, const v8names_reader *r, uint64_t sampled, char *out,
		     size_t len);

/* A reader of process PID's memory (/proc/PID/mem).  NULL when it cannot
 * be opened (gone, or not permitted). */
v8names_reader *v8names_proc_open(long pid);
void v8names_proc_close(v8names_reader *r);

#endif
