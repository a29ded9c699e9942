/* btversion — see btversion.h. */
#include "run/btversion.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "run/runner.h"
#include "target/target.h"

#define CACHE_FILE "bpftrace-versions"
/* BTVERSION_MAX_ENTRIES entries of paths up to MAX_PATH_KEPT bytes fit. */
#define MAX_PATH_KEPT 1024
#define CACHE_MAX_BYTES 65536

/* The identity of the ELF executable at PATH in ST: 0, or -1 when it is
 * not a regular file that starts as ELF does (a script, say).  Never
 * blocks: a FIFO or a device given as bpftrace is refused, not read. */
static int elf_identity(const char *path, struct stat *st)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int ok = fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
		 read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
		 memcmp(magic, "\177ELF", 4) == 0;
	close(fd);
	return ok ? 0 : -1;
}

/* Whether REAL (a path, links resolved) names a file called bpftrace*: a
 * launcher shared by many programs (snap's) keeps its identity when the
 * bpftrace behind it changes, and is asked every time. */
static bool named_bpftrace(const char *real)
{
	const char *base = strrchr(real, '/');
	return strncmp(base ? base + 1 : real, "bpftrace", 8) == 0;
}

static bool same_identity(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Whether ST (a directory or the file) is the effective user's and no
 * one else may write it. */
static bool trusted(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The directory NAME under AT (AT_FDCWD: NAME is a path; its links are
 * followed only when FOLLOW) as an fd, or -1 when it is missing or not
 * trusted. */
static int open_trusted_dir(int at, const char *name, bool follow)
{
	struct stat st;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd >= 0 && (fstat(fd, &st) != 0 || !trusted(&st))) {
		close(fd);
		errno = EPERM;
		fd = -1;
	}
	return fd;
}

/* DIR (".../bpfspec") as an fd, or -1.  Its parent (~/.cache, or
 * $XDG_CACHE_HOME) must be trusted too; everything below it is reached
 * through fds, never by path again, so nothing can be swapped in.  With
 * MAKE, DIR is made (0700) when missing, and so is its parent, inside a
 * trusted grandparent (the user's home). */
static int open_cache_dir(const char *dir, bool make)
{
	char parent[PATH_MAX];
	const char *last = strrchr(dir, '/');
	if (!last || last == dir || !last[1] || (size_t)(last - dir) >= sizeof parent)
		return -1;
	memcpy(parent, dir, (size_t)(last - dir));
	parent[last - dir] = '\0';
	int pfd = open_trusted_dir(AT_FDCWD, parent, true);
	if (pfd < 0 && make && errno == ENOENT) {
		char *up = strrchr(parent, '/');
		if (up && up != parent && up[1]) {
			*up = '\0';
			int gfd = open_trusted_dir(AT_FDCWD, parent, true);
			if (gfd >= 0) {
				if (mkdirat(gfd, up + 1, 0700) == 0 || errno == EEXIST)
					pfd = open_trusted_dir(gfd, up + 1, false);
				close(gfd);
			}
		}
	}
	if (pfd < 0)
		return -1;
	if (make && mkdirat(pfd, last + 1, 0700) != 0 && errno != EEXIST) {
		close(pfd);
		return -1;
	}
	int fd = open_trusted_dir(pfd, last + 1, false);
	close(pfd);
	return fd;
}

/* The identity part of an entry: "DEV INO SIZE MS MNS CS CNS". */
static void put_identity(char *buf, size_t len, const struct stat *st)
{
	snprintf(buf, len, "%llu %llu %lld %lld %ld %lld %ld", (unsigned long long)st->st_dev,
		 (unsigned long long)st->st_ino, (long long)st->st_size,
		 (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec,
		 (long long)st->st_ctim.tv_sec, (long)st->st_ctim.tv_nsec);
}

/* The cache file's text under DIR_FD (owned, NUL-terminated), or NULL
 * when there is none to trust. */
static char *read_cache(int dir_fd)
{
	struct stat st;
	int fd = openat(dir_fd, CACHE_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *text = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && trusted(&st) &&
	    st.st_size < CACHE_MAX_BYTES && (text = malloc((size_t)st.st_size + 1))) {
		ssize_t n = read(fd, text, (size_t)st.st_size);
		if (n != st.st_size) {
			free(text);
			text = NULL;
		} else {
			text[n] = '\0';
		}
	}
	close(fd);
	return text;
}

/* A number of at most 20 digits at *P (a '-' first when SIGNED), moved
 * past; false when there is none. */
static bool skip_number(const char **p, bool is_signed)
{
	const char *s = *p;
	if (is_signed && *s == '-')
		s++;
	size_t n = strspn(s, "0123456789");
	if (!n || n > 20)
		return false;
	*p = s + n;
	return true;
}

/* The path of LINE when it is an entry ("DEV INO SIZE MS MNS CS CNS
 * MAJOR.MINOR.PATCH PATH"), with the version's numbers in V[3] and the
 * identity's length in *ID_LEN; NULL when it is not one. */
static const char *parse_entry(const char *line, int v[3], size_t *id_len)
{
	const char *p = line;
	for (int field = 0; field < 7; field++) {
		if (!skip_number(&p, field >= 2) || *p != ' ')
			return NULL;
		p++;
	}
	*id_len = (size_t)(p - line - 1);
	for (int i = 0; i < 3; i++) {
		char *end;
		long n = strtol(p, &end, 10);
		if (end == p || *p < '0' || *p > '9' || n > 9999 || *end != (i < 2 ? '.' : ' '))
			return NULL;
		v[i] = (int)n;
		p = end + 1;
	}
	return *p ? p : NULL;
}

int btversion_lookup(const char *dir, const char *path, const struct stat *st, char *version,
		     size_t len, int *major, int *minor)
{
	int dir_fd = open_cache_dir(dir, false);
	if (dir_fd < 0)
		return -1;
	char *text = read_cache(dir_fd);
	close(dir_fd);
	if (!text)
		return -1;
	char id[160];
	put_identity(id, sizeof id, st);
	size_t idlen = strlen(id);
	int rc = -1;
	for (char *line = text, *next; *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		int v[3];
		size_t n;
		const char *p = parse_entry(line, v, &n);
		if (!p || n != idlen || strncmp(line, id, idlen) != 0 || strcmp(p, path) != 0)
			continue;
		snprintf(version, len, "%d.%d.%d", v[0], v[1], v[2]);
		*major = v[0];
		*minor = v[1];
		rc = 0;
	}
	free(text);
	return rc;
}

/* A new file under DIR_FD, mode 0600, of a name no one can foresee (in
 * NAME); its fd, or -1. */
static int create_temp(int dir_fd, char *name, size_t len)
{
	for (int tries = 0; tries < 8; tries++) {
		unsigned long long r;
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
			return -1;
		snprintf(name, len, "%s.%016llx", CACHE_FILE, r);
		int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int btversion_store(const char *dir, const char *path, const struct stat *st,
		    const char *version)
{
	int v[3];
	size_t n;
	char id[160], entry[160 + 32 + MAX_PATH_KEPT + 2];
	put_identity(id, sizeof id, st);
	/* The entry as it will be read back: a version and nothing else, a
	 * path of one line. */
	if (strlen(path) > MAX_PATH_KEPT || strchr(path, '\n') ||
	    (size_t)snprintf(entry, sizeof entry, "%s %s %s", id, version, path) >= sizeof entry ||
	    parse_entry(entry, v, &n) != entry + strlen(entry) - strlen(path))
		return -1;
	int dir_fd = open_cache_dir(dir, true);
	if (dir_fd < 0)
		return -1;
	char *old = read_cache(dir_fd);
	/* The other paths' entries, the newest (last) BTVERSION_MAX_ENTRIES - 1. */
	const char *keep[BTVERSION_MAX_ENTRIES];
	size_t n_keep = 0;
	for (char *line = old, *next; line && *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		const char *p = parse_entry(line, v, &n);
		if (!p || strcmp(p, path) == 0)
			continue;
		if (n_keep == BTVERSION_MAX_ENTRIES - 1) {
			memmove(keep, keep + 1, (n_keep - 1) * sizeof *keep);
			n_keep--;
		}
		keep[n_keep++] = line;
	}

	char tmp[64];
	int rc = -1, fd = create_temp(dir_fd, tmp, sizeof tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		for (size_t i = 0; i < n_keep; i++)
			fprintf(f, "%s\n", keep[i]);
		fprintf(f, "%s\n", entry);
		bool written = !ferror(f);
		if (fclose(f) == 0 && written &&
		    renameat(dir_fd, tmp, dir_fd, CACHE_FILE) == 0)
			rc = 0;
	} else if (fd >= 0) {
		close(fd);
	}
	if (fd >= 0 && rc != 0)
		unlinkat(dir_fd, tmp, 0);
	close(dir_fd);
	free(old);
	return rc;
}

char *btversion_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir = NULL;
	if (xdg && xdg[0] == '/') {
		if (asprintf(&dir, "%s/bpfspec", xdg) < 0)
			dir = NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&dir, "%s/.cache/bpfspec", strcmp(home, "/") == 0 ? "" : home) < 0)
			dir = NULL;
	}
	return dir;
}

int btversion_get(const char *bpftrace, char *version, size_t len, int *major, int *minor,
		  bool *remembered)
{
	struct stat before, after;
	char *dir = NULL;
	/* The file execvp would run, links resolved: the one asked and kept. */
	char *path = strchr(bpftrace, '/') ? realpath(bpftrace, NULL) : target_search_path(bpftrace);

	*remembered = false;
	if (path && elf_identity(path, &before) == 0 && named_bpftrace(path))
		dir = btversion_dir();
	if (dir && btversion_lookup(dir, path, &before, version, len, major, minor) == 0) {
		*remembered = true;
		free(dir);
		free(path);
		return 0;
	}
	/* Asked by that path, not through another search, and kept only
	 * when nothing replaced the file meanwhile. */
	int rc = runner_bpftrace_version(path ? path : bpftrace, version, len, major, minor);
	if (rc == 0 && dir && elf_identity(path, &after) == 0 && same_identity(&before, &after))
		btversion_store(dir, path, &before, version);
	free(dir);
	free(path);
	return rc;
}
