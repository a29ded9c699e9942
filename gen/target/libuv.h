/* libuv — which libuv a target carries, read from its code.
 *
 * libuv_version_string() returns a pointer to a string literal: its
 * x86-64 body is `lea rax,[rip+X]; ret` (PIC) or `mov eax,X; ret`
 * (non-PIE executables), optionally after an endbr64 and a frame
 * pointer's `push rbp; mov rbp,rsp` (then ending `pop rbp; ret`), and the
 * string is read at X.  When that fails, uv_version()'s `mov eax,imm32; ret` gives
 * (major << 16 | minor << 8 | patch).  Nothing is run; only the file is
 * read.  Other architectures, or other code shapes, give no version.
 *
 * Ownership: nothing is allocated for the caller. */
#ifndef BPFSPEC_LIBUV_H
#define BPFSPEC_LIBUV_H

#include <stdbool.h>
#include <stddef.h>

#include "target/target.h"

/* Reads the libuv version of the ELF file PATH into OUT (size LEN), e.g.
 * "1.46.0".  Returns 0, or -1 when PATH has no libuv or its code does not
 * have a shape this module reads (OUT is then ""). */
int libuv_version(const char *path, char *out, size_t len);

/* Whether NAME is one of libuv's loop phase functions (uv__run_timers,
 * uv__io_poll, ...), whose first argument is the loop (uv_loop_t *). */
bool libuv_is_phase_function(const char *name);

/* The function that ends a loop (its first argument), exported by
 * every libuv: node's spawnSync and execSync close their nested loop
 * with it. */
#define LIBUV_LOOP_CLOSE "uv_loop_close"

/* The same for a target: the first of its objects (executable first)
 * that holds libuv.  OBJECT (may be NULL) receives that object's path
 * (borrowed from T).  Returns 0, or -1 when none does. */
int libuv_target_version(const target *t, char *out, size_t len, const char **object);

/* Decodes the body of uv_version_string at ADDR (bytes CODE[0..N)): the
 * address of the string it returns into *STR.  Returns 0, or -1 when the
 * code has another shape.  Exposed for tests. */
int libuv_decode_string_fn(const unsigned char *code, size_t n, unsigned long long addr,
			   unsigned long long *str);

/* Decodes uv_version's body into "MAJOR.MINOR.PATCH" in OUT.  Returns 0,
 * or -1 when the code has another shape.  Exposed for tests. */
int libuv_decode_version_fn(const unsigned char *code, size_t n, char *out, size_t len);

#endif
