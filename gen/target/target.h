/* target — what process (or file) is being traced, and what it maps.
 *
 * From a pid: /proc/PID/exe gives the executable, /proc/PID/maps the
 * file-backed objects mapped into it (executable mappings only), with the
 * executable first.  From a path (--binary, or -c before the command
 * runs): just that file.
 *
 * Ownership: constructors return an owned target or NULL after reporting
 * the problem through diag (naming the pid and path, saying what to do);
 * target_free(NULL) is a no-op. */
#ifndef BPFSPEC_TARGET_H
#define BPFSPEC_TARGET_H

#include <stddef.h>
#include <sys/types.h>

/* Most processes one target holds (-p repeated). */
#define TARGET_MAX_PIDS 64

typedef struct target {
	pid_t pid;		/* 0 when built from a path; else pids[0] */
	pid_t pids[TARGET_MAX_PIDS];	/* the traced processes (-p, or the command) */
	size_t n_pids;		/* 0 when built from a path */
	char *exe;		/* absolute path of the executable */
	char **objects;		/* mapped objects, exe first; n_objects >= 1 */
	size_t n_objects;
} target;

target *target_from_pid(pid_t pid);
target *target_from_path(const char *path);

/* A target of the N processes PIDS (1 to TARGET_MAX_PIDS, no pid twice),
 * which must all run the same executable file (the same st_dev and
 * st_ino behind /proc/PID/exe): objects and symbols are the first pid's.
 * NULL after a diagnostic naming the pid at fault (a process of another
 * executable: both pids and both paths). */
target *target_from_pids(const pid_t *pids, size_t n);

/* Numbers the executable files the N processes PIDS run (1 to
 * TARGET_MAX_PIDS, no pid twice): GROUP[i] gets the 0-based number of
 * pid i's file (the same st_dev and st_ino), in the order the files first
 * appear.  Returns how many files, or 0 after a diagnostic naming the pid
 * at fault (gone, a thread, no executable). */
size_t target_group_by_exe(const pid_t *pids, size_t n, size_t *group);

/* Sets T's process to PID (a command bpfspec started from T's path). */
void target_set_pid(target *t, pid_t pid);

/* Finds an executable the way execvp would (PATH search when NAME has no
 * slash) and returns an owned absolute path, or NULL after a diagnostic. */
char *target_find_executable(const char *name);

/* execvp's PATH search for NAME (no slash), silently: an owned absolute
 * path (links resolved) of the first regular file on PATH this process
 * may execute, or NULL with errno ENOENT (none) or ENOMEM. */
char *target_search_path(const char *name);

/* Returns the first object whose basename matches GLOB (fnmatch), or
 * "main" → the executable.  Borrowed pointer, NULL when none matches. */
const char *target_find_object(const target *t, const char *glob);

/* Reads /proc/PID/task/TID/comm into BUF (NUL-terminated, newline cut).
 * Returns 0, or -1 when the thread is gone. */
int target_thread_name(pid_t pid, pid_t tid, char *buf, size_t len);

/* The threads of PID that are inside one of the syscalls NRS[0..N_NRS)
 * right now (/proc/PID/task/TID/syscall; needs ptrace access, as root
 * has).  Stores up to MAX thread ids in TIDS; returns how many. */
size_t target_threads_in_syscalls(pid_t pid, const int *nrs, size_t n_nrs, long *tids,
				  size_t max);

void target_free(target *t);

#endif
