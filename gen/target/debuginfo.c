/* debuginfo — see debuginfo.h. */
#include "target/debuginfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/buf.h"
#include "util/diag.h"

#define DEBUG_DIRS_MAX 32

static char *debug_dirs[DEBUG_DIRS_MAX];
static size_t n_debug_dirs;

int debuginfo_add_dir(const char *dir)
{
	char *copy;
	size_t len = strlen(dir);

	if (n_debug_dirs == DEBUG_DIRS_MAX) {
		errno = E2BIG;
		return -1;
	}
	copy = strdup(dir);
	if (!copy)
		return -1;
	/* "dir/" and "dir" are the same directory: keep paths tidy. */
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	debug_dirs[n_debug_dirs++] = copy;
	return 0;
}

void debuginfo_clear_dirs(void)
{
	for (size_t i = 0; i < n_debug_dirs; i++)
		free(debug_dirs[i]);
	n_debug_dirs = 0;
}

int debuginfo_file_crc(const char *path, uint32_t *crc)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uLong c = crc32(0L, Z_NULL, 0);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	/* Read a slice at a time: a debug file can be hundreds of MB, and
	 * mapping it whole would make them all bpfspec's resident memory. */
	enum { CRC_SLICE = 256 * 1024 };
	unsigned char *slice = malloc(CRC_SLICE);
	if (!slice) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, slice, CRC_SLICE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(slice);
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		c = crc32(c, slice, (uInt)n);
	}
	free(slice);
	close(fd);
	*crc = (uint32_t)c;
	return 0;
}

/* Splits OBJECT into the root it was reached through ("/proc/PID/root",
 * or "" on the host) and the path inside that root.  ROOT has room for
 * 64 bytes. */
static const char *split_root(const char *object, char root[64])
{
	const char *p = object + strlen("/proc/");
	size_t digits;

	root[0] = '\0';
	if (strncmp(object, "/proc/", 6) != 0)
		return object;
	digits = strspn(p, "0123456789");
	if (digits == 0 || digits > 10 || strncmp(p + digits, "/root/", 6) != 0)
		return object;
	snprintf(root, 64, "%.*s", (int)(p + digits + 5 - object), object);
	return p + digits + 5;
}

/* How a candidate was found, hence how it must match. */
typedef enum { BY_BUILD_ID, BY_LINK } found_by;

/* The search in progress. */
typedef struct search {
	const char *object;
	const symtab_info *info;
	struct stat obj_st;
	bool have_obj_st;
	buf *tried;
	char *found;
} search;

static void tried_add(search *s, const char *path, const char *why)
{
	buf_printf(s->tried, "%s%s (%s)", s->tried->len ? ", " : "", path, why);
}

/* True when PATH's build id or CRC says it belongs to the object; else
 * writes why not into WHY. */
static bool candidate_matches(search *s, const char *path, found_by how,
			      char *why, size_t len)
{
	symtab_info dinf;
	char err[200];
	uint32_t crc;

	if (symtab_resolve(path, NULL, 0, &dinf, err, sizeof err) < 0) {
		snprintf(why, len, "%s", err);
		return false;
	}
	bool same_id = s->info->build_id[0] &&
		       strcmp(dinf.build_id, s->info->build_id) == 0;
	if (same_id)
		return true;
	if (how == BY_LINK) {
		if (debuginfo_file_crc(path, &crc) < 0) {
			snprintf(why, len, "cannot read: %s", strerror(errno));
			return false;
		}
		if (crc == s->info->debuglink_crc)
			return true;
		snprintf(why, len, "does not match: CRC32 %08x, the debuglink wants %08x",
			 (unsigned)crc, (unsigned)s->info->debuglink_crc);
		return false;
	}
	snprintf(why, len, "does not match: build id %s, the object has %s",
		 dinf.build_id[0] ? dinf.build_id : "(none)", s->info->build_id);
	return false;
}

/* Tries PATH.  Returns true when it is the debug file (s->found set). */
static bool try_candidate(search *s, const char *path, found_by how)
{
	struct stat st;
	char why[300];

	if (stat(path, &st) < 0) {
		tried_add(s, path, errno == ENOENT ? "no such file" : strerror(errno));
		return false;
	}
	if (s->have_obj_st && st.st_dev == s->obj_st.st_dev && st.st_ino == s->obj_st.st_ino)
		return false;	/* the object itself, not its debug file */
	if (!S_ISREG(st.st_mode)) {
		tried_add(s, path, "not a regular file");
		return false;
	}
	if (!candidate_matches(s, path, how, why, sizeof why)) {
		tried_add(s, path, why);
		diag_warn("debug file %s is not the one of %s: %s", path, s->object, why);
		return false;
	}
	s->found = strdup(path);
	return true;
}

/* Tries DIR/.build-id/xx/yyyy.debug (ROOT prefixed). */
static bool try_build_id(search *s, const char *root, const char *dir)
{
	const char *id = s->info->build_id;
	char path[PATH_MAX];

	if (strlen(id) <= 2)
		return false;
	int n = snprintf(path, sizeof path, "%s%s/.build-id/%.2s/%s.debug", root, dir, id,
			 id + 2);
	return n > 0 && (size_t)n < sizeof path && try_candidate(s, path, BY_BUILD_ID);
}

/* Tries PREFIX/LINK (ROOT prefixed), the debuglink name in a directory. */
static bool try_link(search *s, const char *root, const char *prefix, const char *dir)
{
	char path[PATH_MAX];

	int n = snprintf(path, sizeof path, "%s%s%s/%s", root, prefix, dir, s->info->debuglink);
	return n > 0 && (size_t)n < sizeof path && try_candidate(s, path, BY_LINK);
}

/* Tries a --debug-dir DIR: its build-id tree, DIR/LINK, DIR/OBJDIR/LINK. */
static bool try_user_dir(search *s, const char *dir, const char *objdir)
{
	if (s->info->build_id[0] && try_build_id(s, "", dir))
		return true;
	if (!s->info->debuglink[0])
		return false;
	return try_link(s, "", dir, "") || try_link(s, "", dir, objdir);
}

/* Tries the standard places inside ROOT ("" for the host). */
static bool try_standard(search *s, const char *root, const char *objdir)
{
	if (s->info->build_id[0] && try_build_id(s, root, "/usr/lib/debug"))
		return true;
	if (!s->info->debuglink[0])
		return false;
	return try_link(s, root, objdir, "") || try_link(s, root, objdir, "/.debug") ||
	       try_link(s, root, "/usr/lib/debug", objdir);
}

char *debuginfo_find(const char *object, const symtab_info *info, char **tried)
{
	buf rejected = BUF_INIT;
	search s = { .object = object, .info = info, .tried = &rejected };
	char root[64], objdir[PATH_MAX];
	const char *inner = split_root(object, root);
	const char *slash = strrchr(inner, '/');

	*tried = NULL;
	if (!info->build_id[0] && !info->debuglink[0])
		return NULL;
	s.have_obj_st = stat(object, &s.obj_st) == 0;
	snprintf(objdir, sizeof objdir, "%.*s", slash ? (int)(slash - inner) : 0, inner);
	bool found = false;
	for (size_t i = 0; i < n_debug_dirs && !found; i++)
		found = try_user_dir(&s, debug_dirs[i], objdir);
	if (!found && root[0])
		found = try_standard(&s, root, objdir);
	if (!found)
		try_standard(&s, "", objdir);
	*tried = rejected.len ? buf_take(&rejected) : NULL;
	buf_free(&rejected);
	return s.found;
}

/* Resolves, in the debug file PATH, the queries of Q that OBJECT lacked,
 * and moves their matches into Q. */
static void resolve_missing(const char *path, symtab_query *q, size_t nq, char **tried)
{
	symtab_query *sub = calloc(nq ? nq : 1, sizeof *sub);
	size_t *idx = calloc(nq ? nq : 1, sizeof *idx);
	size_t n = 0;
	char err[200];

	if (!sub || !idx) {
		free(sub);
		free(idx);
		return;
	}
	for (size_t i = 0; i < nq; i++)
		if (q[i].n_matches == 0) {
			sub[n].name = q[i].name;
			idx[n++] = i;
		}
	if (symtab_resolve(path, sub, n, NULL, err, sizeof err) < 0) {
		char *more = NULL;
		if (asprintf(&more, "%s%s%s (%s)", *tried ? *tried : "", *tried ? ", " : "",
			     path, err) >= 0) {
			free(*tried);
			*tried = more;
		}
	} else {
		for (size_t k = 0; k < n; k++) {
			symtab_query *dst = &q[idx[k]];

			dst->matches = sub[k].matches;
			dst->n_matches = sub[k].n_matches;
			dst->n_names = sub[k].n_names;
			dst->in_debug_file = sub[k].n_matches > 0;
			sub[k].matches = NULL;
		}
	}
	symtab_query_free(sub, n);
	free(sub);
	free(idx);
}

int debuginfo_resolve(const char *object, symtab_query *q, size_t nq,
		      debuginfo_outcome *out, char *errbuf, size_t errlen)
{
	bool missing = false;

	memset(out, 0, sizeof *out);
	if (symtab_resolve(object, q, nq, &out->info, errbuf, errlen) < 0)
		return -1;
	for (size_t i = 0; i < nq; i++)
		missing |= q[i].n_matches == 0 && q[i].name && q[i].name[0];
	if (!missing)
		return 0;
	out->looked = out->info.build_id[0] || out->info.debuglink[0];
	out->debug_file = debuginfo_find(object, &out->info, &out->tried);
	if (out->debug_file) {
		diag_verbose("%s: debug file %s", object, out->debug_file);
		resolve_missing(out->debug_file, q, nq, &out->tried);
	}
	return 0;
}

void debuginfo_outcome_free(debuginfo_outcome *out)
{
	if (!out)
		return;
	free(out->debug_file);
	out->debug_file = NULL;
	free(out->tried);
	out->tried = NULL;
}

bool debuginfo_tracer_sees(const char *object, const symtab_info *info,
			   const char *debug_file)
{
	char path[PATH_MAX];
	const char *slash = strrchr(object, '/');
	int dirlen = slash ? (int)(slash - object) : 0;
	const char *id = info->build_id;

	if (strlen(id) > 2) {
		snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
		if (strcmp(path, debug_file) == 0)
			return true;
	}
	if (!info->debuglink[0])
		return false;
	/* OBJDIR/LINK, OBJDIR/.debug/LINK, /usr/lib/debug/OBJDIR/LINK */
	static const char *const prefixes[] = { "", "", "/usr/lib/debug" };
	static const char *const subdirs[] = { "", "/.debug", "" };
	for (size_t i = 0; i < 3; i++) {
		int n = snprintf(path, sizeof path, "%s%.*s%s/%s", prefixes[i], dirlen, object,
				 subdirs[i], info->debuglink);
		if (n > 0 && (size_t)n < sizeof path && strcmp(path, debug_file) == 0)
			return true;
	}
	return false;
}

void debuginfo_install_hint(const char *object, const symtab_info *info,
			    char *hint, size_t len)
{
	char where[200] = "";

	if (info->build_id[0] && strlen(info->build_id) > 2)
		snprintf(where, sizeof where, ", which puts its debug file at "
			 "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 info->build_id, info->build_id + 2);
	snprintf(hint, len, "install the debug symbols of the package that ships %s "
		 "(PKG-dbgsym on Debian)%s; or pass --debug-dir DIR where its debug file is",
		 object, where);
}
