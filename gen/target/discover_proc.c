/* discover_proc — one process's fields for discover (see discover.h).
 *
 * Every file is read through the process's directory descriptor with a
 * bound (the process chooses what its cmdline and comm hold, and how
 * long); bytes are kept as they are.  Nothing trusts a NUL terminator in
 * what was read: each buffer gets one after the bytes counted. */
#include "target/discover.h"
#include "target/discover_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DELETED_SUFFIX " (deleted)"
#define EXE_PATH_MAX 4096	/* the kernel's d_path limit for the exe link */

int discover_proc_open(int root_fd, pid_t pid)
{
	char name[24];

	snprintf(name, sizeof(name), "%d", (int)pid);
	return openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

char *discover_read_bounded(int dir_fd, const char *name, size_t cap, size_t *len, bool *cut)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	size_t n = 0;
	char *buf, *fit;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 2);	/* one byte past CAP tells a cut; one for the NUL */
	if (!buf) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	while (n < cap + 1) {
		ssize_t r = read(fd, buf + n, cap + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*cut = n > cap;
	*len = *cut ? cap : n;
	buf[*len] = '\0';
	fit = realloc(buf, *len + 1);
	return fit ? fit : buf;
}

/* comm as the kernel writes it: the name and a newline.  Only that final
 * newline is cut: a name may hold newlines of its own. */
static int read_comm(int dir_fd, discover_proc *p)
{
	size_t len;
	bool cut;
	char *s = discover_read_bounded(dir_fd, "comm", DISCOVER_COMM_MAX, &len, &cut);

	if (!s) {
		p->comm_err = errno;
		return errno == ENOMEM ? -1 : 0;
	}
	if (len > 0 && !cut && s[len - 1] == '\n')
		s[len - 1] = '\0';
	p->comm = s;
	return 0;
}

static int read_exe(int dir_fd, discover_proc *p)
{
	char *buf = malloc(EXE_PATH_MAX), *fit;
	ssize_t n;
	size_t ls = strlen(DELETED_SUFFIX);

	if (!buf)
		return -1;
	n = readlinkat(dir_fd, "exe", buf, EXE_PATH_MAX);
	if (n < 0 || n >= EXE_PATH_MAX) {
		p->exe_err = n < 0 ? errno : ENAMETOOLONG;
		free(buf);
		return 0;
	}
	buf[n] = '\0';
	if ((size_t)n > ls && strcmp(buf + n - ls, DELETED_SUFFIX) == 0) {
		buf[n - (ssize_t)ls] = '\0';
		p->exe_deleted = true;
	}
	fit = realloc(buf, strlen(buf) + 1);
	p->exe = fit ? fit : buf;
	return 0;
}

/* The arguments, NUL-separated, joined by single spaces.  The NULs that
 * end the text are dropped first (each argument ends with one; a process
 * that rewrote its arguments may pad with more). */
static int read_cmdline(int dir_fd, discover_proc *p)
{
	size_t len;
	bool cut;
	char *s = discover_read_bounded(dir_fd, "cmdline", DISCOVER_CMDLINE_MAX, &len, &cut);

	if (!s) {
		p->cmdline_err = errno;
		return errno == ENOMEM ? -1 : 0;
	}
	p->cmdline_raw = len;
	p->cmdline_cut = cut;
	while (len > 0 && s[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	s[len] = '\0';
	p->cmdline = s;
	return 0;
}

/* The path of the "0::" line (cgroup v2's), up to its newline; NULL when
 * there is none (a cgroup v1 only system, a mangled file). */
static char *v2_path(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - s) : len;

		if (end - i >= 3 && memcmp(s + i, "0::", 3) == 0)
			return strndup(s + i + 3, end - i - 3);
		i = end + 1;
	}
	return NULL;
}

static int read_cgroup(int dir_fd, discover_proc *p)
{
	size_t len;
	bool cut;
	char *s = discover_read_bounded(dir_fd, "cgroup", DISCOVER_CGROUP_FILE_MAX, &len, &cut);

	if (!s) {
		p->cgroup_err = errno;
		return errno == ENOMEM ? -1 : 0;
	}
	errno = 0;
	p->cgroup = v2_path(s, len);
	free(s);
	return !p->cgroup && errno == ENOMEM ? -1 : 0;
}

int discover_proc_read_fd(int dir_fd, unsigned fields, discover_proc *out)
{
	unsigned todo = fields & ~out->fields & DISCOVER_F_ALL;
	int rc = 0;

	out->fields |= todo;
	if (todo & DISCOVER_F_CMDLINE)
		rc = rc ?: read_cmdline(dir_fd, out);
	if (todo & DISCOVER_F_COMM)
		rc = rc ?: read_comm(dir_fd, out);
	if (todo & DISCOVER_F_EXE)
		rc = rc ?: read_exe(dir_fd, out);
	if (todo & DISCOVER_F_CGROUP)
		rc = rc ?: read_cgroup(dir_fd, out);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}

/* Every field in FIELDS failed with ERR (the directory would not open). */
static void fail_fields(discover_proc *p, unsigned fields, int err)
{
	p->fields = fields & DISCOVER_F_ALL;
	p->comm_err = fields & DISCOVER_F_COMM ? err : 0;
	p->exe_err = fields & DISCOVER_F_EXE ? err : 0;
	p->cmdline_err = fields & DISCOVER_F_CMDLINE ? err : 0;
	p->cgroup_err = fields & DISCOVER_F_CGROUP ? err : 0;
}

int discover_proc_read(const char *proc_root, pid_t pid, unsigned fields, discover_proc *out)
{
	int root_fd, dir_fd, rc;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	root_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir_fd = root_fd < 0 ? -1 : discover_proc_open(root_fd, pid);
	if (dir_fd < 0) {
		fail_fields(out, fields, errno);
		if (root_fd >= 0)
			close(root_fd);
		return 0;
	}
	close(root_fd);
	rc = discover_proc_read_fd(dir_fd, fields, out);
	close(dir_fd);
	if (rc < 0) {
		discover_proc_free(out);
		errno = ENOMEM;
	}
	return rc;
}

void discover_proc_free(discover_proc *p)
{
	if (!p)
		return;
	free(p->comm);
	free(p->exe);
	free(p->cmdline);
	free(p->cgroup);
	memset(p, 0, sizeof(*p));
}
