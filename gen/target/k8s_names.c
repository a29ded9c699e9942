/* k8s_names — reading one container's names from its runtime's config.json
 * (see k8s.h for the layouts and the rules on hostile files). */
#include "target/k8s.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ID_LEN 64

/* The annotation keys of one runtime, in k8s_names' order. */
typedef struct name_keys {
	const char *namespace_name, *pod_name, *container_name;
} name_keys;

static const name_keys containerd_keys = {
	"io.kubernetes.cri.sandbox-namespace",
	"io.kubernetes.cri.sandbox-name",
	"io.kubernetes.cri.container-name",
};
static const name_keys crio_keys = {
	"io.kubernetes.pod.namespace",
	"io.kubernetes.pod.name",
	"io.kubernetes.container.name",
};

/* containers/storage's drivers, whose containers live in <driver>-containers. */
static const char *const storage_drivers[] = { "overlay", "vfs", "btrfs", "zfs" };

__attribute__((format(printf, 3, 4)))
static void say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* VALUE (valid UTF-8: jansson checks) into OUT, cut at K8S_NAME_MAX bytes
 * and at a character. */
static void keep_name(const char *value, size_t len, char *out)
{
	if (len > K8S_NAME_MAX) {
		len = K8S_NAME_MAX;
		while (len > 0 && ((unsigned char)value[len] & 0xc0) == 0x80)
			len--;
	}
	memcpy(out, value, len);
	out[len] = '\0';
}

/* Annotation KEY of ANN into OUT ("" when absent).  Returns -1 when it
 * is not a string. */
static int take(json_t *ann, const char *key, char *out, bool *any, char *why, size_t whylen)
{
	json_t *v = json_object_get(ann, key);

	out[0] = '\0';
	if (!v)
		return 0;
	if (!json_is_string(v)) {
		say(why, whylen, "annotation %s is not a string", key);
		return -1;
	}
	keep_name(json_string_value(v), json_string_length(v), out);
	*any |= out[0] != '\0';
	return 0;
}

k8s_status k8s_names_parse(const char *text, size_t n, k8s_runtime rt, k8s_names *out, char *why,
			   size_t whylen)
{
	const name_keys *keys = rt == K8S_RUNTIME_CONTAINERD ? &containerd_keys : &crio_keys;
	json_error_t err;
	json_t *root, *ann;
	bool any = false;
	k8s_status st;

	memset(out, 0, sizeof(*out));
	root = json_loadb(text, n, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		say(why, whylen, "not JSON (line %d, column %d: %s)", err.line, err.column, err.text);
		return K8S_MALFORMED;
	}
	ann = json_is_object(root) ? json_object_get(root, "annotations") : NULL;
	if (!json_is_object(root) || (ann && !json_is_object(ann))) {
		say(why, whylen, "not an OCI runtime config (%s is not an object)",
		    json_is_object(root) ? "\"annotations\"" : "the document");
		st = K8S_MALFORMED;
	} else if (ann && (take(ann, keys->namespace_name, out->namespace_name, &any, why, whylen) < 0 ||
			   take(ann, keys->pod_name, out->pod_name, &any, why, whylen) < 0 ||
			   take(ann, keys->container_name, out->container_name, &any, why, whylen) < 0)) {
		st = K8S_MALFORMED;
	} else {
		st = any ? K8S_FOUND : K8S_NO_NAMES;
	}
	json_decref(root);
	if (st == K8S_MALFORMED)
		memset(out, 0, sizeof(*out));
	return st;
}

/* The status of failing to open or read a config with errno ERR. */
static k8s_status status_of(int err)
{
	if (err == ENOENT || err == ENOTDIR)
		return K8S_ABSENT;
	if (err == ELOOP)
		return K8S_MALFORMED;	/* a symbolic link where the file should be */
	return err == ENOMEM ? K8S_NO_MEMORY : K8S_UNREADABLE;
}

/* Reads N bytes from FD into BUF (room for N + 1).  Returns the bytes
 * read, up to N + 1 (more than N: the file grew), or -1. */
static ssize_t read_all(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got <= n) {
		ssize_t r = read(fd, buf + got, n + 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Reads regular file PATH whole (at most K8S_CONFIG_MAX bytes) into an
 * owned *TEXT of *N bytes. */
static k8s_status read_config(const char *path, char **text, size_t *n, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	k8s_status rc = K8S_FOUND;
	ssize_t got = -1;
	char *buf = NULL;

	if (fd < 0) {
		rc = status_of(errno);
		say(why, whylen, "%s: %s", path, errno == ELOOP ? "a symbolic link" : strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = K8S_UNREADABLE;
		say(why, whylen, "%s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode) || st.st_size > K8S_CONFIG_MAX) {
		rc = K8S_MALFORMED;
		say(why, whylen, "%s: %s", path, S_ISREG(st.st_mode) ? "larger than "
		    K8S_CONFIG_MAX_TEXT : "not a regular file");
	} else if (!(buf = malloc((size_t)st.st_size + 1))) {
		rc = K8S_NO_MEMORY;
	} else if ((got = read_all(fd, buf, (size_t)st.st_size)) < 0 || got > st.st_size) {
		rc = K8S_UNREADABLE;
		say(why, whylen, "%s: %s", path, got < 0 ? strerror(errno) : "changed while read");
	}
	close(fd);
	if (rc != K8S_FOUND) {
		free(buf);
		return rc;
	}
	*text = buf;
	*n = (size_t)got;
	return K8S_FOUND;
}

/* Reads and parses the config at PATH. */
static k8s_status read_at(const char *path, k8s_runtime rt, k8s_names *out, char *why,
			  size_t whylen)
{
	char *text = NULL, reason[K8S_WHY_MAX];
	size_t n = 0;
	k8s_status st = read_config(path, &text, &n, why, whylen);

	if (st != K8S_FOUND)
		return st;
	st = k8s_names_parse(text, n, rt, out, reason, sizeof(reason));
	free(text);
	if (st == K8S_MALFORMED)
		say(why, whylen, "%s: %s", path, reason);
	return st;
}

static bool is_id(const char *id)
{
	size_t n = 0;

	for (; id[n] && n <= ID_LEN; n++)
		if (!((id[n] >= '0' && id[n] <= '9') || (id[n] >= 'a' && id[n] <= 'f')))
			return false;
	return n == ID_LEN;
}

/* Tries the config at PATH (made by the caller; false when it did not
 * fit) for RT; *DONE when the search ends here (found, or a failure
 * other than absence). */
static k8s_status try_path(const char *path, bool fits, k8s_runtime rt, k8s_names *out, char *why,
			   size_t whylen, bool *done)
{
	k8s_status st;

	if (!fits) {
		say(why, whylen, "%.64s...: %s", path, strerror(ENAMETOOLONG));
		*done = true;
		return K8S_UNREADABLE;
	}
	st = read_at(path, rt, out, why, whylen);
	*done = st != K8S_ABSENT;
	return st;
}

k8s_status k8s_names_read(const char *run_root, k8s_runtime rt, const char *id, k8s_names *out,
			  char *why, size_t whylen)
{
	char path[PATH_MAX];
	bool done = false;
	k8s_status st = K8S_ABSENT;

	memset(out, 0, sizeof(*out));
	if (!is_id(id)) {
		say(why, whylen, "not a container id");
		return K8S_ABSENT;
	}
	if (rt == K8S_RUNTIME_DOCKER) {
		say(why, whylen, "container %.12s runs on docker, whose state bpfspec does not read",
		    id);
		return K8S_UNSUPPORTED;
	}
	if (rt != K8S_RUNTIME_CRIO) {
		int w = snprintf(path, sizeof(path), "%s/containerd/io.containerd.runtime.v2.task/"
				 "k8s.io/%s/config.json", run_root, id);
		st = try_path(path, w > 0 && (size_t)w < sizeof(path), K8S_RUNTIME_CONTAINERD, out,
			      why, whylen, &done);
	}
	for (size_t i = 0; !done && rt != K8S_RUNTIME_CONTAINERD && i < sizeof(storage_drivers) / sizeof(*storage_drivers); i++) {
		int w = snprintf(path, sizeof(path), "%s/containers/storage/%s-containers/%s/"
				 "userdata/config.json", run_root, storage_drivers[i], id);
		st = try_path(path, w > 0 && (size_t)w < sizeof(path), K8S_RUNTIME_CRIO, out, why,
			      whylen, &done);
	}
	if (st == K8S_ABSENT)
		say(why, whylen, "no runtime state for container %.12s under %s (neither "
		    "containerd's nor CRI-O's config.json)", id, run_root);
	return st;
}

bool k8s_status_failed(k8s_status status)
{
	return status != K8S_FOUND && status != K8S_NO_NAMES;
}
