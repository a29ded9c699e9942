/* k8s — the Kubernetes names of a pod's container (its namespace, pod and
 * container name), read from the state the container runtime keeps on
 * the host, without asking the API server.
 *
 * What a container runtime keeps.  For each container it runs, a CRI
 * runtime writes the OCI runtime config (config.json) that it hands to
 * runc or crun, and copies the pod's names into its annotations:
 *   containerd  RUN/containerd/io.containerd.runtime.v2.task/k8s.io/<id>/
 *               config.json (the shim's bundle: containerd's state
 *               directory, its runtime v2 task plugin, the CRI plugin's
 *               containerd namespace "k8s.io"); annotations
 *               io.kubernetes.cri.sandbox-namespace, io.kubernetes.cri.
 *               sandbox-name and io.kubernetes.cri.container-name
 *               (a pod's sandbox, the pause container, has no container
 *               name).
 *   CRI-O       RUN/containers/storage/<driver>-containers/<id>/userdata/
 *               config.json (containers/storage's run root, which podman
 *               shares; the driver is overlay unless configured
 *               otherwise); annotations io.kubernetes.pod.namespace,
 *               io.kubernetes.pod.name and io.kubernetes.container.name
 *               (kubelet's container labels, which CRI-O copies into the
 *               annotations).
 * RUN is the host's /run, wherever it is mounted.  <id> is the container
 * id of the cgroup path (discover_pod_labels): 64 lower-case hex, so it
 * can name no other file.
 *
 * Hostile input.  Whoever can write the runtime's state, or start a
 * container with annotations of its choosing (podman, nerdctl, ctr), can
 * put anything there.  The file is opened without following a final
 * symbolic link and without blocking (a FIFO or a device is refused as
 * not a regular file), and read up to K8S_CONFIG_MAX bytes; a larger
 * file is refused whole.  It must parse as JSON (jansson, duplicate keys
 * refused).  A name is kept as raw bytes (no NUL: jansson refuses
 * "\u0000"), cut at K8S_NAME_MAX bytes (Kubernetes' longest name, a
 * pod's: a DNS subdomain), at a character when it is UTF-8: whoever
 * shows one writes it through safe.h.
 *
 * The cache.  A container's names never change while it lives, so each
 * container's config is read once, when its names are first asked for,
 * and forgotten when a sweep finds it was not asked for since the
 * previous sweep (a scan calls both).  A failure is remembered the same
 * way: the container is not read again.  The first failure is kept as a
 * sentence for whoever says it (serve says it once).
 *
 * A target-layer module: util only.  Ownership: k8s_cache_new returns an
 * owned cache or NULL; k8s_cache_free(NULL) is a no-op.  Pointers
 * returned are borrowed from the cache, valid until the next call that
 * changes it (get or sweep). */
#ifndef BPFSPEC_K8S_H
#define BPFSPEC_K8S_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define K8S_NAME_MAX 253		/* bytes of a name kept */
#define K8S_CONFIG_MAX (2 * 1024 * 1024)	/* bytes of config.json read */
#define K8S_CONFIG_MAX_TEXT "2 MiB"
#define K8S_CACHE_MAX 4096		/* containers remembered */
#define K8S_WHY_MAX (PATH_MAX + 512)	/* a failure's sentence: a path and why */

/* Which runtime a cgroup path names: its scope's prefix (cri-containerd-,
 * crio-, docker-), or none (kubelet's cgroupfs layout names the bare id
 * for containerd and docker). */
typedef enum {
	K8S_RUNTIME_ANY,
	K8S_RUNTIME_CONTAINERD,
	K8S_RUNTIME_CRIO,
	K8S_RUNTIME_DOCKER,
} k8s_runtime;

/* A container's names; "" when the runtime's state does not hold one. */
typedef struct k8s_names {
	char namespace_name[K8S_NAME_MAX + 1];
	char pod_name[K8S_NAME_MAX + 1];
	char container_name[K8S_NAME_MAX + 1];
} k8s_names;

typedef enum {
	K8S_FOUND,		/* at least one name */
	K8S_NO_NAMES,		/* the config holds none: not a CRI container */
	K8S_ABSENT,		/* no runtime keeps state for the container */
	K8S_UNREADABLE,		/* the state is there, but cannot be read */
	K8S_MALFORMED,		/* read, but not a config, or too large */
	K8S_UNSUPPORTED,	/* a runtime whose state is not read (docker) */
	K8S_NO_MEMORY,
} k8s_status;

/* Reads the names from the N bytes of config.json TEXT (need not be
 * NUL-terminated) as runtime RT writes them (K8S_RUNTIME_CONTAINERD: its
 * keys; any other: CRI-O's) into OUT.  Only RT's own keys are read: CRI-O
 * copies a pod's own annotations into the config too, so there the
 * containerd keys are the pod's to choose (and the CRI-O keys are
 * kubelet's, written after them).  Returns K8S_FOUND, K8S_NO_NAMES or
 * K8S_MALFORMED (WHY, size WHYLEN, says what is wrong). */
k8s_status k8s_names_parse(const char *text, size_t n, k8s_runtime rt, k8s_names *out, char *why,
			   size_t whylen);

/* Reads the names of container ID (64 lower-case hex, else K8S_ABSENT)
 * of runtime RT from the runtime state under RUN_ROOT (the host's /run)
 * into OUT.  Every status but K8S_FOUND and K8S_NO_NAMES leaves OUT
 * empty and puts in WHY a sentence naming the file and the reason (raw:
 * RUN_ROOT is the user's text). */
k8s_status k8s_names_read(const char *run_root, k8s_runtime rt, const char *id, k8s_names *out,
			  char *why, size_t whylen);

typedef struct k8s_cache k8s_cache;

/* A cache reading under RUN_ROOT (copied), or NULL when out of memory. */
k8s_cache *k8s_cache_new(const char *run_root);
void k8s_cache_free(k8s_cache *c);

/* The run root the cache reads under. */
const char *k8s_cache_run_root(const k8s_cache *c);

/* The names of container ID of runtime RT, read on the first call for
 * ID.  Returns them (K8S_FOUND) or NULL, with *STATUS (may be NULL) set
 * either way. */
const k8s_names *k8s_cache_get(k8s_cache *c, k8s_runtime rt, const char *id, k8s_status *status);

/* Forgets the containers not asked for since the previous sweep. */
void k8s_cache_sweep(k8s_cache *c);

/* The first failure to read a container's names (a sentence, raw), or
 * NULL when none failed.  K8S_NO_NAMES is not a failure. */
const char *k8s_cache_problem(const k8s_cache *c);

/* Containers of the cache whose names could not be read. */
size_t k8s_cache_failed(const k8s_cache *c);

/* True when STATUS is a failure to read (not "found", not "no names"). */
bool k8s_status_failed(k8s_status status);

#endif
