/* discover — which processes each `--target NAME=SELECTOR` selects.
 *
 * The process selection of a long-running `bpfspec serve`: every interval
 * it scans /proc, keeps per target the sorted pids that match, and diffs
 * the result against the previous scan (serve restarts its tracer only
 * when a set changed).  Nothing here prints; nothing depends on serve.
 *
 * Selectors (the text after NAME=):
 *   comm=GLOB     /proc/PID/comm, fnmatch(3) without flags.  Node 20's
 *                 is "node"; node 24 (and the 22.x, 23.x releases with
 *                 nodejs/node#56416) names its main thread "MainThread",
 *                 which is then the process's comm: prefer exe= or
 *                 cmdline= for node.
 *   exe=GLOB      readlink /proc/PID/exe: the path in the process's own
 *                 mount namespace (a container's /usr/bin/node matches
 *                 exe=/usr/bin/node).  A " (deleted)" suffix (the binary
 *                 was replaced or removed since the process began) is cut
 *                 before matching and reported as exe_deleted: an
 *                 upgraded node keeps matching exe=/usr/bin/node.
 *   cmdline=REGEX the arguments joined by single spaces (trailing NULs
 *                 dropped, so "a\0\0b\0" reads "a  b"), searched (not
 *                 anchored) with a POSIX extended regex (REG_NOSUB); only
 *                 the first DISCOVER_CMDLINE_MAX bytes are read and seen.
 *   cgroup=GLOB   the cgroup v2 path (the "0::" line of /proc/PID/cgroup),
 *                 fnmatch without flags: '*' and '?' also match '/', so
 *                 cgroup='*.scope' matches every path ending in .scope,
 *                 however deep.
 *   unit=NAME     a component of that path equals NAME, or NAME.service
 *                 when NAME holds no '.' (unit=nginx: nginx.service).
 *   pid=N         exactly that process, if /proc lists it (a thread id,
 *                 which /proc does not list, matches nothing).
 *   k8s-namespace=GLOB, k8s-pod=GLOB, k8s-container=GLOB
 *                 the Kubernetes namespace, pod name or container name of
 *                 the pod's container the process runs in (its cgroup path,
 *                 discover_pod_labels, then the runtime's state, k8s.h),
 *                 fnmatch without flags.  A process in no pod, or whose
 *                 names cannot be read, matches none of them (the latter
 *                 is counted in `unreadable`).
 *
 * Scanning.  Every process listed under the proc root is read through
 * one directory descriptor, so all its fields come from the same process
 * even if its pid is reused mid-scan.  A process whose cmdline file is
 * empty (a kernel thread, a zombie) and bpfspec's own process (getpid)
 * are matched by pid= only.  A process that vanishes while read (ENOENT,
 * ESRCH) is skipped silently; one whose field a target needs cannot be
 * read for any other reason (EACCES, EPERM, ...) is counted in that
 * target's `unreadable`.  A process may match several targets: it is
 * listed under each.
 *
 * Hostile input.  comm, exe, cmdline and cgroup are set by the process
 * (or whoever named its cgroup): they are read with bounded reads, kept
 * raw (any byte but NUL: a NUL ends comm, exe and cgroup) and never
 * printed here.  Whoever shows one writes it through safe.h.
 *
 * Ownership: a parsed discover_target holds allocations (discover_target_
 * free releases them; it may be moved with memcpy, never duplicated);
 * discover_scan and discover_set_diff fill caller-provided structs whose
 * arrays are owned (discover_set_free, discover_diff_free; both no-ops on
 * a zeroed struct).  discover_proc_read likewise (discover_proc_free).
 * Strings returned as const char * are static. */
#ifndef BPFSPEC_DISCOVER_H
#define BPFSPEC_DISCOVER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "target/k8s.h"

#define DISCOVER_NAME_MAX 63			/* a target name: [A-Za-z0-9_.-]{1,63} */
#define DISCOVER_CMDLINE_MAX (64 * 1024)	/* bytes of cmdline read */
#define DISCOVER_COMM_MAX 64			/* bytes of comm read */
#define DISCOVER_CGROUP_FILE_MAX (64 * 1024)	/* bytes of /proc/PID/cgroup read */
#define DISCOVER_PID_MAX 4194304		/* the kernel's PID_MAX_LIMIT */

typedef enum {
	DISCOVER_COMM,
	DISCOVER_EXE,
	DISCOVER_CMDLINE,
	DISCOVER_CGROUP,
	DISCOVER_UNIT,
	DISCOVER_PID,
	DISCOVER_K8S_NAMESPACE,
	DISCOVER_K8S_POD,
	DISCOVER_K8S_CONTAINER,
} discover_kind;

typedef struct discover_target {
	char name[DISCOVER_NAME_MAX + 1];
	discover_kind kind;
	char *value;		/* owned: the text after KIND= */
	pid_t pid;		/* DISCOVER_PID */
	regex_t re;		/* DISCOVER_CMDLINE, compiled when has_re */
	bool has_re;
} discover_target;

/* Parses ARG, "NAME=KIND=VALUE" (the VALUE may hold '='), into OUT.
 * Returns 0, or -1 with OUT left empty and ERR (size ERRLEN) holding a
 * sentence that quotes ARG as given and says what to do, e.g.
 *   --target 'api=cmdlin=x': unknown selector 'cmdlin' (did you mean
 *   'cmdline'?); selectors: comm, exe, cmdline, cgroup, unit, pid
 * ARG is the user's text: print ERR through diag (safe.h's text form). */
int discover_target_parse(const char *arg, discover_target *out, char *err, size_t errlen);

/* Releases what discover_target_parse allocated and zeroes T.  Safe on a
 * zeroed target and on NULL. */
void discover_target_free(discover_target *t);

/* "comm", "exe", ... for KIND. */
const char *discover_kind_name(discover_kind kind);

/* What one target matched in one scan. */
typedef struct discover_match {
	pid_t *pids;		/* ascending, no duplicates; NULL when none */
	size_t n;
	size_t unreadable;	/* processes whose needed field could not be read */
} discover_match;

typedef struct discover_set {
	discover_match *per;	/* one per target, in the targets' order */
	size_t n;
} discover_set;

/* Scans PROC_ROOT ("/proc", or a fixture laid out like it) for the N
 * TARGETS and fills OUT.  NAMES gives the Kubernetes names of the k8s-*
 * selectors (NULL: they match nothing); the caller sweeps it.  Returns 0,
 * or -1 with errno set when PROC_ROOT cannot be listed or memory runs out
 * (OUT is then empty). */
int discover_scan(const char *proc_root, k8s_cache *names, const discover_target *targets,
		  size_t n, discover_set *out);

void discover_set_free(discover_set *s);

/* True when pid is in M (binary search). */
bool discover_match_has(const discover_match *m, pid_t pid);

/* The pids that appeared in and disappeared from one target's match. */
typedef struct discover_change {
	pid_t *added;		/* ascending; NULL when none */
	size_t n_added;
	pid_t *removed;
	size_t n_removed;
} discover_change;

typedef struct discover_diff {
	discover_change *per;	/* one per target */
	size_t n;
	bool changed;		/* any target gained or lost a pid */
} discover_diff;

/* Compares two scans of the same targets.  OLD may be NULL (the first
 * scan: every pid appeared).  Returns 0, or -1 with errno EINVAL when the
 * sets have different numbers of targets, ENOMEM when out of memory (OUT
 * is then empty). */
int discover_set_diff(const discover_set *old, const discover_set *cur, discover_diff *out);

void discover_diff_free(discover_diff *d);

/* Which fields discover_proc_read reads (bits). */
enum {
	DISCOVER_F_COMM = 1u << 0,
	DISCOVER_F_EXE = 1u << 1,
	DISCOVER_F_CMDLINE = 1u << 2,
	DISCOVER_F_CGROUP = 1u << 3,
	DISCOVER_F_ALL = 0xfu,
};

/* One process's fields, raw.  A field not asked for, or not read, is
 * NULL with its *_err saying why (0: not asked for, or absent). */
typedef struct discover_proc {
	pid_t pid;
	unsigned fields;	/* the fields read, or tried (DISCOVER_F_*) */
	char *comm;		/* the final newline cut */
	int comm_err;
	char *exe;		/* " (deleted)" cut, see exe_deleted */
	bool exe_deleted;
	int exe_err;		/* ENOENT: no executable (kernel thread, zombie) or gone */
	char *cmdline;		/* arguments joined by single spaces, NUL-terminated */
	size_t cmdline_raw;	/* bytes the file gave (0: kernel thread or zombie) */
	bool cmdline_cut;	/* longer than DISCOVER_CMDLINE_MAX */
	int cmdline_err;
	char *cgroup;		/* the v2 path; NULL (err 0) when there is no "0::" line */
	int cgroup_err;
} discover_proc;

/* Reads FIELDS (DISCOVER_F_*) of process PID under PROC_ROOT into OUT.
 * A field that cannot be read gets its errno in OUT; the call still
 * returns 0.  Returns -1 with errno ENOMEM only when memory runs out
 * (OUT is then empty). */
int discover_proc_read(const char *proc_root, pid_t pid, unsigned fields, discover_proc *out);

void discover_proc_free(discover_proc *p);

/* Reads at most CAP bytes of file NAME under directory DIR_FD (a
 * process's /proc directory, say) into an owned buffer with a NUL after
 * them, never blocking on a FIFO.  Sets *LEN to the bytes kept and *CUT
 * when the file held more.  Returns the buffer, or NULL with errno set. */
char *discover_read_bounded(int dir_fd, const char *name, size_t cap, size_t *len, bool *cut);

/* Kubernetes labels of a process, from its cgroup v2 path (kubelet's
 * layouts; see discover_labels.c).  Every string is validated (hex and
 * dashes), safe to print as it is. */
typedef struct discover_pod {
	char uid[37];		/* 8-4-4-4-12 lower-case hex, with dashes */
	char container_id[65];	/* 64 lower-case hex */
	const char *qos;	/* "guaranteed", "burstable" or "besteffort" */
	k8s_runtime runtime;	/* the runtime the path names, if it does */
} discover_pod;

/* Fills OUT and returns true when CGROUP_PATH (may be NULL) is a pod's
 * container; returns false, OUT zeroed, when it is not: that is "no
 * labels", not an error. */
bool discover_pod_labels(const char *cgroup_path, discover_pod *out);

/* The role of thread TID of node process PID whose comm is COMM (may be
 * NULL): "main", "pool" (libuv's threadpool), "worker" (a worker_threads
 * Worker under its default name) or "other".  See discover_labels.c for
 * the names node gives its threads.  COMM is the process's to choose: a
 * thread can claim any role but "main". */
const char *discover_thread_role(pid_t pid, pid_t tid, const char *comm);

#endif
