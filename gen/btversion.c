/* btversion — see btversion.h. */
#include "btversion.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"

#define CACHE_FILE "bpftrace-versions"
#define CACHE_MAX_BYTES 16384	/* BTVERSION_MAX_ENTRIES lines fit many times */

/* PATH as execvp(3) searches it for NAME (a NAME with a '/' is itself):
 * the first regular file there that may be executed, in BUF.  0 or -1. */
static int find_executable(const char *name, char *buf, size_t len)
{
	struct stat st;
	if (strchr(name, '/')) {
		if ((size_t)snprintf(buf, len, "%s", name) >= len)
			return -1;
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";	/* glibc's execvp without PATH */
	for (const char *p = path;; ) {
		const char *end = strchrnul(p, ':');
		int dlen = (int)(end - p);
		/* an empty element is the current directory */
		int n = dlen ? snprintf(buf, len, "%.*s/%s", dlen, p, name)
			     : snprintf(buf, len, "%s", name);
		if (n > 0 && (size_t)n < len && stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(buf, X_OK) == 0)
			return 0;
		if (!*end)
			return -1;
		p = end + 1;
	}
}

/* The identity of the ELF executable at PATH in ST: 0, or -1 when it is
 * not a regular file that starts as ELF does (a script, say). */
static int elf_identity(const char *path, struct stat *st)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int ok = fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
		 read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
		 memcmp(magic, "\177ELF", 4) == 0;
	close(fd);
	return ok ? 0 : -1;
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

/* The identity part of an entry: "DEV INO SIZE MS MNS CS CNS". */
static int put_identity(char *buf, size_t len, const struct stat *st)
{
	return snprintf(buf, len, "%llu %llu %lld %lld %ld %lld %ld",
			(unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
			(long long)st->st_size, (long long)st->st_mtim.tv_sec,
			(long)st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
			(long)st->st_ctim.tv_nsec);
}

/* The cache file's text (owned, NUL-terminated), read from the trusted
 * directory DIR; NULL when there is none to trust.  *DIR_FD gets the
 * directory (the caller closes it; -1 when it is not to be trusted). */
static char *read_cache(const char *dir, int *dir_fd)
{
	struct stat st;
	*dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dir_fd < 0)
		return NULL;
	if (fstat(*dir_fd, &st) != 0 || !trusted(&st)) {
		close(*dir_fd);
		*dir_fd = -1;
		return NULL;
	}
	int fd = openat(*dir_fd, CACHE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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

/* The path of LINE when it is an entry (identity, version, path), with
 * the version's numbers in V[3] and the identity's length in *ID_LEN;
 * NULL when it is not one. */
static const char *parse_entry(const char *line, int v[3], size_t *id_len)
{
	const char *p = line;
	for (int field = 0; field < 7; field++) {	/* the identity's seven numbers */
		size_t n = strspn(p, "-0123456789");
		if (!n || p[n] != ' ')
			return NULL;
		p += n + 1;
	}
	*id_len = (size_t)(p - line - 1);
	int used = 0;
	if (sscanf(p, "%d.%d.%d %n", &v[0], &v[1], &v[2], &used) != 3 || !used ||
	    p[used - 1] != ' ' || v[0] < 0 || v[1] < 0 || v[2] < 0 || !p[used])
		return NULL;
	return p + used;
}

int btversion_lookup(const char *dir, const char *path, const struct stat *st, char *version,
		     size_t len, int *major, int *minor)
{
	int dir_fd;
	char *text = read_cache(dir, &dir_fd);
	char id[160];
	int rc = -1;

	if (dir_fd >= 0)
		close(dir_fd);
	if (!text)
		return -1;
	put_identity(id, sizeof id, st);
	size_t idlen = strlen(id);
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

/* DIR made (mode 0700) when missing, where its parent is the effective
 * user's; 0 when it exists now, or -1. */
static int make_dir(const char *dir)
{
	if (mkdir(dir, 0700) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	char parent[PATH_MAX];
	struct stat st;
	const char *slash = strrchr(dir, '/');
	if (!slash || slash == dir || (size_t)(slash - dir) >= sizeof parent)
		return -1;
	memcpy(parent, dir, (size_t)(slash - dir));
	parent[slash - dir] = '\0';
	/* ~/.cache itself, once: inside the user's own home only */
	const char *up = strrchr(parent, '/');
	if (!up || up == parent)
		return -1;
	char grand[PATH_MAX];
	memcpy(grand, parent, (size_t)(up - parent));
	grand[up - parent] = '\0';
	if (stat(grand, &st) != 0 || st.st_uid != geteuid())
		return -1;
	if (mkdir(parent, 0700) != 0 && errno != EEXIST)
		return -1;
	return mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

int btversion_store(const char *dir, const char *path, const struct stat *st,
		    const char *version)
{
	int ma, mi, pa, used = 0;
	if (strchr(path, '\n') || sscanf(version, "%d.%d.%d%n", &ma, &mi, &pa, &used) != 3 ||
	    version[used] != '\0' || make_dir(dir) != 0)
		return -1;
	int dir_fd;
	char *old = read_cache(dir, &dir_fd);
	if (dir_fd < 0) {
		free(old);
		return -1;
	}
	/* The other paths' entries, the newest (last) BTVERSION_MAX_ENTRIES - 1. */
	const char *keep[BTVERSION_MAX_ENTRIES];
	size_t n_keep = 0;
	for (char *line = old, *next; line && *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		int v[3];
		size_t n;
		const char *p = parse_entry(line, v, &n);
		if (!p || strcmp(p, path) == 0)
			continue;
		if (n_keep == BTVERSION_MAX_ENTRIES - 1) {
			memmove(keep, keep + 1, (n_keep - 1) * sizeof *keep);
			n_keep--;
		}
		keep[n_keep++] = line;
	}

	char tmp[] = CACHE_FILE ".XXXXXX";
	char full[PATH_MAX];
	int rc = -1;
	if ((size_t)snprintf(full, sizeof full, "%s/%s", dir, tmp) >= sizeof full)
		goto out;
	int fd = mkstemp(full);	/* mode 0600 */
	if (fd < 0)
		goto out;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(full);
		goto out;
	}
	char id[160];
	put_identity(id, sizeof id, st);
	for (size_t i = 0; i < n_keep; i++)
		fprintf(f, "%s\n", keep[i]);
	fprintf(f, "%s %s %s\n", id, version, path);
	const char *base = strrchr(full, '/') + 1;
	if (fclose(f) != 0 || renameat(dir_fd, base, dir_fd, CACHE_FILE) != 0)
		unlink(full);
	else
		rc = 0;
out:
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
	char path[PATH_MAX];
	struct stat before, after;
	char *dir = NULL;

	*remembered = false;
	if (find_executable(bpftrace, path, sizeof path) == 0 && elf_identity(path, &before) == 0)
		dir = btversion_dir();
	if (dir && btversion_lookup(dir, path, &before, version, len, major, minor) == 0) {
		*remembered = true;
		free(dir);
		return 0;
	}
	int rc = runner_bpftrace_version(bpftrace, version, len, major, minor);
	/* The file asked is the file looked at: nothing replaced it meanwhile. */
	if (rc == 0 && dir && elf_identity(path, &after) == 0 && same_identity(&before, &after))
		btversion_store(dir, path, &before, version);
	free(dir);
	return rc;
}
