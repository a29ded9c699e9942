/* perfmap — a process's perf map: the "START SIZE NAME" lines V8 writes
 * to /tmp/perf-PID.map (node --perf-basic-prof), one per code object it
 * makes, which stack symbolizers (bpftrace's among them) name JIT frames
 * by.
 *
 * Lines are only ever added: when V8 frees code (a function deoptimized,
 * code collected, code space compacted) and new code takes its addresses,
 * the old line stays, and an address then lies in the lines of two
 * functions: the newer line is the code there now (V8 does not move code
 * while it writes a perf map), and a symbolizer may pick the older one.
 * perfmap_live_name finds the newer, for the check of heap names against
 * the perf map (attribution/why_v8check.h).
 *
 * The file is the traced process's and untrusted: only a regular file is
 * read (not a FIFO, a device or a last symbolic link), and only its last
 * PERFMAP_BYTES_MAX bytes (the newest lines); lines that do not parse, or
 * claim more than 16 MB of code, are skipped, names longer than
 * PERFMAP_NAME_MAX are cut, and a lookup looks at a bounded number of
 * lines (past them, the frame is not placed).
 *
 * Ownership: perfmap_read and perfmap_open return an owned map, freed by
 * perfmap_free (NULL is a no-op). */
#ifndef BPFSPEC_PERFMAP_H
#define BPFSPEC_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define PERFMAP_BYTES_MAX (4u << 20)
#define PERFMAP_NAME_MAX 256

typedef struct perfmap perfmap;

/* Whether two names of perf-map lines (A, ALEN bytes; B, BLEN bytes) are
 * one function's (its code at two tiers, say). */
typedef bool (*perfmap_same_fn)(const char *a, size_t alen, const char *b, size_t blen);

/* The path of process PID's perf map, as PID's own PID namespace numbers
 * it, seen through its root (/proc/PID/root/tmp/perf-NSPID.map), into
 * OUT (size LEN).  Returns 0, or -1 when PID cannot be looked at. */
int perfmap_path(long pid, char *out, size_t len);

/* The perf map at PATH, or NULL when it cannot be read or has no line. */
perfmap *perfmap_read(const char *path);

/* The perf map read from F, at its start and SIZE bytes long, as
 * perfmap_read reads a file (F is left open), or NULL when it has no
 * line or memory runs out. */
perfmap *perfmap_parse(FILE *f, off_t size);

/* Process PID's perf map (perfmap_path), or NULL. */
perfmap *perfmap_open(long pid);

/* The name of the newest line holding the frame a symbolizer named NAME
 * (LEN bytes; spaces are not compared: bpftrace 0.24 and later drop
 * them) at OFFSET bytes into it: the code that lies there now, which is
 * NAME's own line unless that code was freed and newer code took the
 * address.  NULL when no line called NAME holds OFFSET, or when lines
 * called NAME at several addresses have newest lines that SAME says are
 * different functions, or when more lines than the bounds allow would
 * have to be looked at (the frame cannot be placed).  Borrowed from PM. */
const char *perfmap_live_name(const perfmap *pm, const char *name, size_t len, uint64_t offset,
			      perfmap_same_fn same);

/* The lines read. */
size_t perfmap_lines(const perfmap *pm);

void perfmap_free(perfmap *pm);

#endif
