/* btversion — which bpftrace will run: its version, asked once per
 * executable.
 *
 * `bpftrace --version` costs about 25 ms (bpftrace loads LLVM and clang
 * before it prints a line), half of what bpfspec may spend before
 * bpftrace starts.  The answer is kept in a small file of the user's,
 * $XDG_CACHE_HOME/bpfspec/bpftrace-versions (else
 * ~/.cache/bpfspec/...), per executable, keyed by the file's identity:
 * device, inode, size, mtime and ctime, all of which an upgrade, a copy
 * or an edit changes.  Only ELF executables whose real name starts with
 * "bpftrace" are remembered: a script (a wrapper) or a launcher (snap's)
 * can run a different bpftrace each time and is asked every time.  The
 * version is asked of the very file whose identity is kept, and kept
 * only when that identity did not change while it answered.
 *
 * The file is trusted only when it, its directory and that directory's
 * parent belong to the effective user and no one else may write them
 * (root with another user's HOME keeps nothing there); it is replaced
 * whole (a temporary file of mode 0600 beside it, of a random name,
 * renamed).  Anything wrong
 * with it — missing, unreadable, foreign, malformed — means "ask
 * bpftrace", never an error: the cache only ever saves time.
 *
 * Ownership: every argument is borrowed. */
#ifndef BPFSPEC_BTVERSION_H
#define BPFSPEC_BTVERSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* The version of BPFTRACE (a path, or a name looked up in PATH as
 * execvp does; kept under the file's path with links resolved) as
 * "MAJOR.MINOR.PATCH" in VERSION (LEN bytes), with
 * *MAJOR and *MINOR; *REMEMBERED says whether it came from the cache.
 * When bpftrace was asked, the answer is stored (best effort: this may
 * make the cache directory, and ~/.cache).  Returns 0, or -1 when
 * bpftrace cannot be run or says no version. */
int btversion_get(const char *bpftrace, char *version, size_t len, int *major, int *minor,
		  bool *remembered);

/* The cache's parts, for tests.  DIR is the cache directory. */

/* The entry of the executable at PATH whose identity is ST, from DIR's
 * file: 0 with VERSION, MAJOR and MINOR filled, or -1. */
int btversion_lookup(const char *dir, const char *path, const struct stat *st, char *version,
		     size_t len, int *major, int *minor);

/* Records VERSION for PATH with identity ST in DIR's file, keeping the
 * entries of other paths (at most BTVERSION_MAX_ENTRIES in all).  DIR is
 * made (0700) when missing, and its parent too when that is missing
 * inside a directory of the user's alone.  DIR's parent must be the
 * effective user's alone as well; below it, everything is reached
 * through directory fds.  Returns 0, or -1 (nothing changed). */
int btversion_store(const char *dir, const char *path, const struct stat *st,
		    const char *version);

#define BTVERSION_MAX_ENTRIES 16

/* The cache directory from the environment (owned; NULL when neither
 * XDG_CACHE_HOME nor HOME is an absolute path). */
char *btversion_dir(void);

#endif
