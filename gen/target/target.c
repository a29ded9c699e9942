/* target — what process (or file) is being traced, and what it maps.
 *
 * The executable of a process is found through /proc/PID/exe.  The path
 * that link shows is only trusted when it leads to the very file the
 * process runs (same st_dev and st_ino): a binary upgraded since the
 * process started, or a process in another mount namespace, is reached
 * through /proc/PID/root or /proc/PID/exe instead. */
#include "target/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/diag.h"

#define DELETED_SUFFIX " (deleted)"
#define PF_KTHREAD_FLAG 0x00200000UL	/* include/linux/sched.h */
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

static const char perm_hint[] =
	"tracing needs root, or CAP_SYS_ADMIN (or CAP_PERFMON and CAP_BPF) "
	"and ptrace access to the process: run bpfspec with sudo";
static const char root_perm_hint[] =
	"bpfspec runs as root, yet the kernel denies it ptrace access to this "
	"process (another user namespace or container, a security module, or "
	"yama's ptrace_scope); uprobes need the same access";

static void oom(void)
{
	diag_error(NULL, "out of memory");
}

/* Returns an owned copy of A followed by B, or NULL when out of memory. */
static char *concat(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);

	if (!s)
		return NULL;
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Reads the symbolic link PATH into an owned string.  Returns NULL with
 * errno set on failure. */
static char *read_link(const char *path)
{
	size_t cap = 256;

	for (;;) {
		char *buf = malloc(cap);
		ssize_t n;

		if (!buf)
			return NULL;
		n = readlink(path, buf, cap);
		if (n < 0) {
			int e = errno;

			free(buf);
			errno = e;
			return NULL;
		}
		if ((size_t)n < cap) {
			buf[n] = '\0';
			return buf;
		}
		free(buf);
		if (cap >= 65536) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		cap *= 2;
	}
}

/* Facts from /proc/PID/stat.  Returns 0, or -1 when it cannot be read. */
static int proc_stat(pid_t pid, char *state, unsigned long *flags)
{
	char path[64], buf[1024];
	const char *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp session tty_nr tpgid flags ...";
	 * comm may hold spaces and parentheses, so start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", state, flags) != 2)
		return -1;
	return 0;
}

static bool same_file(const char *path, const struct stat *want)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == want->st_dev &&
	       st.st_ino == want->st_ino;
}

/* Fills ST for the file the magic link PROC_EXE leads to.  Opened with
 * O_PATH rather than stat()ed: the same answer, and the one valgrind
 * gives too (it fakes /proc/self/exe for its client on open, not stat).
 * Returns 0, or -1 with errno set. */
static int exe_identity(const char *proc_exe, struct stat *st)
{
	int fd = open(proc_exe, O_PATH | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return stat(proc_exe, st);
	rc = fstat(fd, st);
	close(fd);
	return rc;
}

/* Explains why /proc/PID/exe could not be read (errno ERR). */
static void report_exe_error(pid_t pid, int err)
{
	char state = '?';
	unsigned long flags = 0;
	char hint[64];

	if (err == EACCES || err == EPERM) {
		diag_error(geteuid() == 0 ? root_perm_hint : perm_hint,
			   "cannot read the executable of pid %d: %s",
			   (int)pid, strerror(err));
		return;
	}
	if (proc_stat(pid, &state, &flags) < 0) {
		snprintf(hint, sizeof(hint), "check the pid with `ps -p %d`",
			 (int)pid);
		diag_error(hint, "no process with pid %d (it has exited)",
			   (int)pid);
		return;
	}
	if (flags & PF_KTHREAD_FLAG) {
		diag_error("pick a user-space process: a kernel thread runs no "
			   "executable, so it has no functions to uprobe",
			   "pid %d is a kernel thread", (int)pid);
		return;
	}
	if (state == 'Z' || state == 'X') {
		diag_error("trace a running process: this one has exited and "
			   "waits for its parent to reap it",
			   "pid %d has exited (zombie): it has no executable "
			   "any more", (int)pid);
		return;
	}
	diag_error(NULL, "cannot read /proc/%d/exe: %s", (int)pid,
		   strerror(err));
}

/* Finds a path that leads to the executable of PID, whose /proc/PID/exe
 * link reads LINK.  Sets *VIA_ROOT when the path goes through
 * /proc/PID/root.  Returns an owned path, or NULL when out of memory. */
static char *resolve_exe(pid_t pid, const char *link, bool *via_root)
{
	char proc_exe[64], root[64];
	struct stat want;
	bool deleted = ends_with(link, DELETED_SUFFIX);
	char *stripped = NULL, *cand[4] = { NULL };
	char *found = NULL;

	*via_root = false;
	snprintf(proc_exe, sizeof(proc_exe), "/proc/%d/exe", (int)pid);
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	if (exe_identity(proc_exe, &want) < 0)
		return strdup(link);	/* nothing to compare with: trust it */

	if (deleted) {
		stripped = strndup(link, strlen(link) - strlen(DELETED_SUFFIX));
		if (!stripped)
			return NULL;
	}
	/* A file really named "x (deleted)" is found by the first two. */
	cand[0] = strdup(link);
	cand[1] = concat(root, link);
	if (stripped) {
		cand[2] = strdup(stripped);
		cand[3] = concat(root, stripped);
	}
	for (int i = 0; i < 4; i++) {
		if (!cand[i] && (i < 2 || stripped))
			goto out;	/* out of memory */
		if (cand[i] && same_file(cand[i], &want)) {
			found = cand[i];
			cand[i] = NULL;
			*via_root = i % 2 == 1;
			goto out;
		}
	}
	if (deleted)
		diag_warn("the executable of pid %d, %s, was deleted or replaced "
			  "(upgraded?) since the process started; probing the "
			  "running copy through %s", (int)pid, stripped,
			  proc_exe);
	else
		diag_warn("the executable of pid %d, %s, is not reachable at "
			  "that path (another mount namespace?); probing it "
			  "through %s", (int)pid, link, proc_exe);
	found = strdup(proc_exe);
out:
	for (int i = 0; i < 4; i++)
		free(cand[i]);
	free(stripped);
	return found;
}

/* Appends an owned PATH to T->objects.  Returns 0, or -1 (PATH freed). */
static int add_object(target *t, char *path)
{
	char **v = realloc(t->objects, (t->n_objects + 1) * sizeof(*v));

	if (!v) {
		free(path);
		return -1;
	}
	t->objects = v;
	t->objects[t->n_objects++] = path;
	return 0;
}

static bool seen_path(char **seen, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(seen[i], path) == 0)
			return true;
	return false;
}

/* Adds the executable file-backed mappings of /proc/PID/maps to T, in
 * order of first appearance, skipping EXE_LINK (already objects[0]).
 * Returns 0, or -1 after a diagnostic. */
static int read_maps(target *t, const char *exe_link, bool via_root)
{
	char path[64], root[64];
	char *line = NULL, **seen = NULL;
	size_t cap = 0, n_seen = 0;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)t->pid);
	snprintf(root, sizeof(root), "/proc/%d/root", (int)t->pid);
	f = fopen(path, "re");
	if (!f) {
		int e = errno;

		diag_error(e == EACCES || e == EPERM ?
				   (geteuid() == 0 ? root_perm_hint : perm_hint) :
				   NULL,
			   "cannot read %s: %s", path, strerror(e));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		char perms[8];
		int name_at = 0;
		char *name, *obj;
		size_t len;

		/* start-end perms offset dev inode [pathname] */
		if (sscanf(line, "%*x-%*x %7s %*x %*x:%*x %*u %n", perms,
			   &name_at) != 1 || name_at == 0)
			continue;
		name = line + name_at;
		len = strlen(name);
		if (len && name[len - 1] == '\n')
			name[--len] = '\0';
		/* Anonymous memory, [vdso], [stack], [anon:...]: no file;
		 * memfd, shared memory and devices: nothing to probe by path. */
		if (strchr(perms, 'x') == NULL || name[0] != '/' ||
		    strncmp(name, "/memfd:", 7) == 0 ||
		    strncmp(name, "/dev/", 5) == 0 ||
		    strncmp(name, "/SYSV", 5) == 0)
			continue;
		if (strcmp(name, exe_link) == 0 || seen_path(seen, n_seen, name))
			continue;
		char **s = realloc(seen, (n_seen + 1) * sizeof(*s));
		if (!s || !(s[n_seen] = strdup(name))) {
			seen = s ? s : seen;
			rc = -1;
			oom();
			break;
		}
		seen = s;
		n_seen++;
		if (ends_with(name, DELETED_SUFFIX)) {
			diag_warn("pid %d maps %s: that file was replaced since "
				  "the process loaded it, so its functions cannot "
				  "be probed by path (restart the process to "
				  "probe them)", (int)t->pid, name);
			continue;
		}
		obj = via_root ? concat(root, name) :
				 strdup(name);
		if (!obj || add_object(t, obj) < 0) {
			rc = -1;
			oom();
			break;
		}
	}
	free(line);
	for (size_t i = 0; i < n_seen; i++)
		free(seen[i]);
	free(seen);
	fclose(f);
	return rc;
}

/* The thread group id of PID from /proc/PID/status; -1 when unknown. */
static long read_tgid(pid_t pid)
{
	char path[64], line[256];
	long tgid = -1;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

target *target_from_pid(pid_t pid)
{
	char dir[64], exe_path[64], hint[64];
	struct stat st;
	target *t;
	char *link, *exe;
	bool via_root;

	if (pid <= 0) {
		diag_error("give the pid of a running process (see `ps`)",
			   "invalid pid %d", (int)pid);
		return NULL;
	}
	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	snprintf(hint, sizeof(hint), "check the pid with `ps -p %d`", (int)pid);
	if (stat(dir, &st) < 0) {
		if (errno == ENOENT)
			diag_error(hint, "no process with pid %d", (int)pid);
		else
			diag_error(hint, "cannot look at %s: %s", dir,
				   strerror(errno));
		return NULL;
	}
	/* /proc/TID exists for every thread, but the program filters on the
	 * process id (bpftrace's pid is the thread group id). */
	long tgid = read_tgid(pid);
	if (tgid > 0 && tgid != pid) {
		char thint[96];
		snprintf(thint, sizeof thint, "trace the process instead: -p %ld", tgid);
		diag_error(thint, "pid %d is a thread of process %ld, not a process", (int)pid, tgid);
		return NULL;
	}
	snprintf(exe_path, sizeof(exe_path), "/proc/%d/exe", (int)pid);
	link = read_link(exe_path);
	if (!link) {
		report_exe_error(pid, errno);
		return NULL;
	}
	exe = resolve_exe(pid, link, &via_root);
	t = calloc(1, sizeof(*t));
	if (!exe || !t) {
		oom();
		free(exe);
		free(t);
		free(link);
		return NULL;
	}
	target_set_pid(t, pid);
	t->exe = exe;
	exe = strdup(exe);
	if (!exe || add_object(t, exe) < 0) {
		oom();
		free(link);
		target_free(t);
		return NULL;
	}
	if (read_maps(t, link, via_root) < 0) {
		free(link);
		target_free(t);
		return NULL;
	}
	free(link);
	return t;
}

void target_set_pid(target *t, pid_t pid)
{
	t->pid = pid;
	t->pids[0] = pid;
	t->n_pids = pid > 0 ? 1 : 0;
}

/* The executable file of PID, whose path is in *LINK (owned), into ST.
 * Returns 0, or -1 after a diagnostic (no such process, a thread, no
 * executable). */
static int process_exe(pid_t pid, struct stat *st, char **link)
{
	char path[64];
	long tgid = read_tgid(pid);

	*link = NULL;
	if (tgid < 0) {
		char hint[64];
		snprintf(hint, sizeof(hint), "check the pid with `ps -p %d`", (int)pid);
		diag_error(hint, "no process with pid %d", (int)pid);
		return -1;
	}
	if (tgid != pid) {
		char thint[96];
		snprintf(thint, sizeof thint, "trace the process instead: -p %ld", tgid);
		diag_error(thint, "pid %d is a thread of process %ld, not a process", (int)pid, tgid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	*link = read_link(path);
	if (!*link || exe_identity(path, st) < 0) {
		report_exe_error(pid, errno);
		free(*link);
		*link = NULL;
		return -1;
	}
	return 0;
}

/* Whether process PID runs the file T's first process runs (FIRST).
 * Returns 0, or -1 after a diagnostic. */
static int check_same_exe(const target *t, const struct stat *first, const char *first_link,
			  pid_t pid)
{
	struct stat st;
	char *link;

	if (process_exe(pid, &st, &link) < 0)
		return -1;
	int rc = 0;
	if (st.st_dev != first->st_dev || st.st_ino != first->st_ino) {
		diag_error("a process that ran another file a moment ago (it exec'd): run again",
			   "pid %d runs %s, but pid %d runs %s", (int)pid, link, (int)t->pid,
			   first_link);
		rc = -1;
	}
	free(link);
	return rc;
}

target *target_from_pids(const pid_t *pids, size_t n)
{
	struct stat first;
	char *first_link = NULL;

	if (n == 0 || n > TARGET_MAX_PIDS) {
		diag_error("give 1 to 64 pids", "%zu pids to trace", n);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < i; k++)
			if (pids[i] == pids[k]) {
				diag_error("give each pid once", "pid %d is given twice", (int)pids[i]);
				return NULL;
			}
	target *t = target_from_pid(pids[0]);
	if (!t || n == 1)
		return t;
	if (process_exe(pids[0], &first, &first_link) < 0) {
		target_free(t);
		return NULL;
	}
	for (size_t i = 1; i < n; i++) {
		if (check_same_exe(t, &first, first_link, pids[i]) < 0) {
			free(first_link);
			target_free(t);
			return NULL;
		}
		t->pids[t->n_pids++] = pids[i];
	}
	free(first_link);
	return t;
}

size_t target_group_by_exe(const pid_t *pids, size_t n, size_t *group)
{
	struct stat seen[TARGET_MAX_PIDS];
	size_t n_seen = 0;

	if (n == 0 || n > TARGET_MAX_PIDS) {
		diag_error("give 1 to 64 pids", "%zu pids to trace", n);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char *link;
		if (process_exe(pids[i], &st, &link) < 0)
			return 0;
		free(link);
		size_t k;
		for (k = 0; k < n_seen; k++)
			if (seen[k].st_dev == st.st_dev && seen[k].st_ino == st.st_ino)
				break;
		if (k == n_seen)
			seen[n_seen++] = st;
		group[i] = k;
	}
	return n_seen;
}

target *target_from_path(const char *path)
{
	const char *hint = "give the path of an executable or shared library";
	char *real;
	struct stat st;
	target *t;
	int fd;

	if (!path || !*path) {
		diag_error(hint, "empty target path");
		return NULL;
	}
	real = realpath(path, NULL);
	if (!real) {
		diag_error(hint, "cannot use %s as the target: %s", path,
			   strerror(errno));
		return NULL;
	}
	if (stat(real, &st) < 0) {
		diag_error(hint, "cannot use %s as the target: %s", path,
			   strerror(errno));
		free(real);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(hint, "cannot use %s as the target: %s", path,
			   S_ISDIR(st.st_mode) ? strerror(EISDIR) :
						 "not a regular file");
		free(real);
		return NULL;
	}
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		diag_error(e == EACCES ? "check its permissions, or run bpfspec "
					 "as root" : hint,
			   "cannot read %s: %s", path, strerror(e));
		free(real);
		return NULL;
	}
	close(fd);

	t = calloc(1, sizeof(*t));
	if (!t) {
		oom();
		free(real);
		return NULL;
	}
	t->exe = real;
	real = strdup(real);
	if (!real || add_object(t, real) < 0) {
		oom();
		target_free(t);
		return NULL;
	}
	return t;
}

/* Returns true when PATH is a regular file this process may execute. */
static bool is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

char *target_find_executable(const char *name)
{
	char *real;

	if (!name || !*name) {
		diag_error("name the command to run after -c", "empty command");
		return NULL;
	}
	if (strchr(name, '/')) {
		struct stat st;

		if (stat(name, &st) < 0) {
			diag_error("check the path of the command",
				   "cannot run %s: %s", name, strerror(errno));
			return NULL;
		}
		if (!is_executable(name)) {
			diag_error("give the path of an executable file "
				   "(chmod +x?)", "cannot run %s: %s", name,
				   S_ISDIR(st.st_mode) ? strerror(EISDIR) :
				   !S_ISREG(st.st_mode) ? "not a regular file" :
				   strerror(EACCES));
			return NULL;
		}
		real = realpath(name, NULL);
		if (!real)
			diag_error(NULL, "cannot run %s: %s", name,
				   strerror(errno));
		return real;
	}

	real = target_search_path(name);
	if (!real && errno == ENOMEM)
		oom();
	else if (!real)
		diag_error("check the spelling, install it, or give the command's "
			   "full path", "command '%s' not found in PATH", name);
	return real;
}

char *target_search_path(const char *name)
{
	const char *dirs = getenv("PATH");
	if (!dirs)
		dirs = DEFAULT_PATH;
	/* execvp's search: each PATH entry in turn, "" meaning ".". */
	for (const char *p = dirs;; p++) {
		const char *end = strchrnul(p, ':');
		size_t dlen = (size_t)(end - p);
		char *cand;

		if (asprintf(&cand, "%.*s%s%s", (int)dlen, p,
			     dlen ? "/" : "./", name) < 0) {
			errno = ENOMEM;
			return NULL;
		}
		if (is_executable(cand)) {
			char *real = realpath(cand, NULL);
			free(cand);
			if (!real)
				errno = ENOMEM;
			return real;
		}
		free(cand);
		if (*end == '\0')
			break;
		p = end;
	}
	errno = ENOENT;
	return NULL;
}

const char *target_find_object(const target *t, const char *glob)
{
	if (!t || !glob)
		return NULL;
	if (strcmp(glob, "main") == 0)
		return t->exe;
	for (size_t i = 0; i < t->n_objects; i++) {
		/* A glob with a slash is matched against the whole path. */
		const char *subject = strchr(glob, '/') ? t->objects[i] :
				      base_name(t->objects[i]);

		if (fnmatch(glob, subject, 0) == 0)
			return t->objects[i];
	}
	return NULL;
}

int target_thread_name(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[96];
	ssize_t n;
	int fd;

	if (!buf || len == 0)
		return -1;
	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
		 (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0) {
		buf[0] = '\0';
		return -1;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

size_t target_threads_in_syscalls(pid_t pid, const int *nrs, size_t n_nrs, long *tids,
				  size_t max)
{
	char path[64], line[64];
	size_t n = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return 0;
	while (n < max && (de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/syscall", (int)pid, tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t r = read(fd, line, sizeof(line) - 1);
		close(fd);
		if (r <= 0)
			continue;
		line[r] = '\0';
		/* "NR ARGS..." while in a syscall; "running" or "-1 ..." otherwise. */
		long nr = strtol(line, &end, 10);
		if (end == line || *end != ' ')
			continue;
		for (size_t k = 0; k < n_nrs; k++)
			if (nr == nrs[k]) {
				tids[n++] = tid;
				break;
			}
	}
	closedir(d);
	return n;
}

void target_free(target *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_objects; i++)
		free(t->objects[i]);
	free(t->objects);
	free(t->exe);
	free(t);
}
