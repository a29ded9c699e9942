/* spec — loads and validates YAML probe specs (see spec.h, docs/spec.md).
 *
 * Two passes.  The first reads libyaml events into a small tree of nodes
 * (rejecting anchors, aliases, tags, directives and extra documents as it
 * goes); the second walks the tree against the spec format and fills a
 * struct spec, reporting every problem it finds.  Only strings that pass
 * their check are copied into the spec.  The loader's files:
 * spec_internal.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec_internal.h"

/* ---- entry points ---- */

void spec_free(spec *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_probes; i++) {
		spec_probe *p = &s->probes[i];
		free(p->name);
		free(p->function);
		free(p->object);
		free(p->missing_reason);
		free(p->description);
		free(p->syscalls);
		free(p->probe);
		for (size_t j = 0; j < p->n_args; j++)
			spec_arg_free(&p->args[j]);
		free(p->args);
		for (size_t j = 0; j < p->n_points; j++)
			spec_span_point_free(&p->points[j]);
		free(p->points);
		free(p->workers);
		free(p->wait);
	}
	free(s->probes);
	for (size_t i = 0; i < s->n_checks; i++)
		free(s->checks[i]);
	free(s->checks);
	free(s->check_locs);
	for (size_t i = 0; i < s->n_params; i++) {
		free(s->params[i].name);
		free(s->params[i].value);
		free(s->params[i].description);
	}
	free(s->params);
	for (size_t i = 0; i < s->n_set_srcs; i++)
		free((char *)s->set_srcs[i].text);
	free(s->set_srcs);
	for (size_t i = 0; i < s->n_objects; i++)
		free(s->objects[i]);
	free(s->objects);
	free(s->name);
	free(s->description);
	free((char *)s->src.text);
	free(s->path);
	free(s);
}

/* Parses TEXT (LEN bytes, malloc'ed, taken over) as the spec at PATH. */
static spec *parse_owned(const char *path, char *text, size_t len, char *const *sets,
			 size_t n_sets)
{
	loader ld = { 0 };
	spec *s = calloc(1, sizeof(*s));
	node *root = NULL;
	bool broken = false;
	const char *nul;

	if (!s || !(s->path = strdup(path))) {
		free(s);
		free(text);
		diag_error(NULL, "out of memory");
		return NULL;
	}
	s->blocker_ns = SPEC_DEFAULT_BLOCKER_NS;
	/* A UTF-8 byte order mark is dropped; positions count from after it. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		memmove(text, text + 3, len - 3);
		len -= 3;
		text[len] = '\0';
	}
	s->src = (diag_src){ s->path, text, len };
	ld.src = &s->src;

	if (len > SPEC_MAX_BYTES) {
		sl_report(&ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL },
		       "specs are short text files; check that this is the right file",
		       "the spec is too large (%zu bytes; the limit is 1 MiB)", len);
	} else if (len >= 2 && ((unsigned char)text[0] == 0xff || (unsigned char)text[0] == 0xfe) &&
		   ((unsigned char)text[1] == 0xff || (unsigned char)text[1] == 0xfe)) {
		sl_report(&ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL },
		       "save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)",
		       "the spec is UTF-16 text; specs must be UTF-8");
	} else if ((nul = memchr(text, '\0', len))) {
		size_t off = (size_t)(nul - text);
		sl_report(&ld, DIAG_ERROR, diag_loc_of(&s->src, off, off + 1),
		       "specs are UTF-8 text; check that this is the right file",
		       "the spec contains a NUL byte");
	} else {
		root = sl_build_tree(&ld, &broken);
		if (broken)
			;
		else if (!root || sl_is_null(root))
			sl_report(&ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL },
			       "a spec needs at least a 'probes:' list; see docs/spec.md",
			       "the spec is empty");
		else if (root->type == NODE_BAD)
			;
		else if (root->type != NODE_MAP)
			sl_report(&ld, DIAG_ERROR, sl_node_loc(&ld, root),
			       "start the file with keys such as 'name: ...' and 'probes:'",
			       "a spec must be a mapping of keys, not %s", sl_type_name(root));
		else if (sl_apply_parameters(&ld, s, root, sets, n_sets))
			sl_check_top(&ld, s, root);
	}
	sl_node_free(root);
	if (ld.dropped)
		diag_at(DIAG_NOTE, &s->src, (diag_loc){ 0, 0, 0, NULL }, NULL,
			"%u more errors not shown", ld.dropped);
	if (ld.errors || ld.dropped || broken) {
		spec_free(s);
		return NULL;
	}
	return s;
}

spec *spec_parse(const char *path, const char *text, size_t len)
{
	return spec_parse_set(path, text, len, NULL, 0);
}

spec *spec_load(const char *path)
{
	return spec_load_set(path, NULL, 0);
}

spec *spec_parse_set(const char *path, const char *text, size_t len, char *const *sets,
		     size_t n_sets)
{
	char *copy;

	if (len > SPEC_MAX_BYTES) {
		diag_src src = { path, NULL, 0 };
		diag_at(DIAG_ERROR, &src, (diag_loc){ 0, 0, 0, NULL },
			"specs are short text files; check that this is the right file",
			"the spec is too large (%zu bytes; the limit is 1 MiB)", len);
		return NULL;
	}
	copy = malloc(len + 1);
	if (!copy) {
		diag_error(NULL, "out of memory");
		return NULL;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	return parse_owned(path, copy, len, sets, n_sets);
}

spec *spec_load_set(const char *path, char *const *sets, size_t n_sets)
{
	struct stat st;
	char *text;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		diag_error(errno == ENOENT ? "check the path of the spec file"
					   : "check the file's permissions",
			   "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > SPEC_MAX_BYTES) {
		diag_src src = { path, NULL, 0 };
		close(fd);
		diag_at(DIAG_ERROR, &src, (diag_loc){ 0, 0, 0, NULL },
			"specs are short text files; check that this is the right file",
			"the spec is too large (%lld bytes; the limit is 1 MiB)",
			(long long)st.st_size);
		return NULL;
	}
	/* Read at most one byte past the limit: pipes have no size. */
	text = malloc(SPEC_MAX_BYTES + 2);
	if (!text) {
		close(fd);
		diag_error(NULL, "out of memory");
		return NULL;
	}
	while (len <= SPEC_MAX_BYTES) {
		ssize_t r = read(fd, text + len, SPEC_MAX_BYTES + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			diag_error(e == EISDIR ? "give the path of a .yaml file" : NULL,
				   "cannot read '%s': %s", path, strerror(e));
			free(text);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (len > SPEC_MAX_BYTES) {
		diag_src src = { path, NULL, 0 };
		free(text);
		diag_at(DIAG_ERROR, &src, (diag_loc){ 0, 0, 0, NULL },
			"specs are short text files; check that this is the right file",
			"the spec is too large (more than 1 MiB)");
		return NULL;
	}
	text[len] = '\0';
	return parse_owned(path, text, len, sets, n_sets);
}
