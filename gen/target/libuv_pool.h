/* libuv_pool — how many threads a process's libuv thread pool has.
 *
 * libuv starts its pool on the first piece of work, with
 * UV_THREADPOOL_SIZE threads from the process's environment (a number
 * read as atoi reads it; 0 counts as 1, more than 1024 as 1024) or 4.
 * Recent libuv releases (those of node 22 and later; node 18 and 20 do
 * not) name each pool thread "libuv-worker": when the process has such
 * threads, their number is the size.  Otherwise the size is what the environment the process
 * started with says (JavaScript that changes process.env before the
 * pool starts is not seen), or libuv's default.  /proc's files are read
 * bounded, as everything the traced process controls. */
#ifndef BPFSPEC_LIBUV_POOL_H
#define BPFSPEC_LIBUV_POOL_H

#include <sys/types.h>

/* Where a pool's size was read. */
typedef enum {
	LIBUV_POOL_THREADS,	/* its threads named "libuv-worker" */
	LIBUV_POOL_ENVIRONMENT,	/* UV_THREADPOOL_SIZE in /proc/PID/environ */
	LIBUV_POOL_DEFAULT,	/* neither: libuv's default, 4 */
} libuv_pool_source;

/* The pool size of process PID under PROC_ROOT ("/proc"), and where it
 * was read (*SOURCE).  Returns the size (1..1024), or -1 with errno set
 * when the process cannot be read (gone, or exited and not yet reaped:
 * ENOENT). */
int libuv_pool_size(const char *proc_root, pid_t pid, libuv_pool_source *source);

/* The size UV_THREADPOOL_SIZE=VALUE gives a pool (VALUE: the text after
 * '=').  Exposed for tests. */
int libuv_pool_size_of_env(const char *value);

/* "thread names", "UV_THREADPOOL_SIZE" or "libuv's default". */
const char *libuv_pool_source_name(libuv_pool_source source);

#endif
