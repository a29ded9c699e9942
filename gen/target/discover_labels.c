/* discover_labels — what a process's cgroup and a thread's name say about
 * them: Kubernetes pod labels and the role of a node thread.
 *
 * Pods.  kubelet puts each container in a cgroup named after the pod's
 * QoS class, the pod's UID and the container's ID.  Two layouts, from
 * the root of the cgroup tree:
 *   systemd   /kubepods.slice/kubepods-burstable.slice/
 *               kubepods-burstable-pod<UID, '_' for '-'>.slice/
 *               <runtime>-<64 hex>.scope
 *             besteffort alike; a guaranteed pod sits directly below:
 *             /kubepods.slice/kubepods-pod<UID_>.slice/<runtime>-<id>.scope
 *             runtime: cri-containerd, docker, crio
 *   cgroupfs  /kubepods/burstable/pod<UID>/<64 hex>   (besteffort alike)
 *             /kubepods/pod<UID>/<64 hex>             (guaranteed)
 *             the container is the bare id under containerd and docker,
 *             crio-<64 hex> under CRI-O (its cgroupfs manager prefixes it
 *             as its systemd one does, cri-o internal/config/cgmgr)
 * The scope's prefix, or CRI-O's, says which runtime runs the container
 * (discover_pod.runtime); a bare id does not.
 * The container's cgroup must end the path: a cgroup below it, a pod
 * without a container, a UID or ID of the wrong length or case, or any
 * other name is "no labels" (crio's conmon-<id>.scope, for instance).
 * The layout must start at the root: a process may create cgroups below
 * its own (a delegated subtree) and name them like kubelet's, never at
 * the root.  So a node nested in a container (kind), or a path seen from
 * inside another cgroup namespace ("/../../kubepods-..."), gets no
 * labels: serve reads them in the host's cgroup namespace.
 *
 * Threads.  The names node gives its threads, as /proc/PID/task/TID/comm
 * shows them (15 bytes at most), observed:
 *   node 20.20.2 (libuv 1.46): every thread "node" (names are inherited
 *     from the creating thread, and nothing renames them);
 *   node 24.21.0 (libuv 1.52): main thread "MainThread" (so the process's
 *     comm too), libuv's threadpool "libuv-worker" (libuv 1.50 and
 *     later), V8's platform workers "V8Worker", "DelayedTaskSche"
 *     (DelayedTaskScheduler cut at 15), "SignalInspector", "InspectorIo"
 *     with --inspect, a worker_threads Worker "WorkerThread" or the first
 *     15 bytes of the name its creator gave (new Worker(f, {name})).
 * node's source also names "Watchdog", "SigintWatchdog" and
 * "TraceEventWorker" threads.  Only the main thread is told by its id;
 * the rest by name: "libuv-worker" is "pool", "WorkerThread" is "worker",
 * anything else "other", including a worker its creator named (its name
 * cannot be told from a native addon's thread) and every thread of a node
 * that names none. */
#include "target/discover.h"

#include <stdio.h>
#include <string.h>

#define MAX_COMPONENTS 64
#define UID_LEN 36
#define ID_LEN 64

typedef struct comp {
	const char *s;
	size_t len;
} comp;

static bool comp_is(comp c, const char *word)
{
	return c.len == strlen(word) && memcmp(c.s, word, c.len) == 0;
}

/* Splits absolute PATH at '/' into C (at most MAX).  Returns the number
 * of components, or 0 when PATH is not absolute, holds an empty component
 * ("//", a trailing '/') or too many. */
static size_t split(const char *path, comp *c, size_t max)
{
	size_t n = 0;

	if (path[0] != '/')
		return 0;
	for (const char *p = path + 1; *p;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (len == 0 || n == max || (slash && !slash[1]))
			return 0;
		c[n++] = (comp){ p, len };
		p += len + (slash != NULL);
	}
	return n;
}

static bool is_lower_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

/* C without PREFIX and SUFFIX into *MID, when C has both. */
static bool strip(comp c, const char *prefix, const char *suffix, comp *mid)
{
	size_t lp = strlen(prefix), ls = strlen(suffix);

	if (c.len < lp + ls || memcmp(c.s, prefix, lp) != 0 ||
	    memcmp(c.s + c.len - ls, suffix, ls) != 0)
		return false;
	*mid = (comp){ c.s + lp, c.len - lp - ls };
	return true;
}

/* A pod UID, 8-4-4-4-12 lower-case hex groups joined by SEP, into OUT
 * (size UID_LEN + 1) with dashes. */
static bool parse_uid(comp c, char sep, char *out)
{
	if (c.len != UID_LEN)
		return false;
	for (size_t i = 0; i < UID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? c.s[i] != sep : !is_lower_hex(c.s[i]))
			return false;
		out[i] = dash ? '-' : c.s[i];
	}
	out[UID_LEN] = '\0';
	return true;
}

/* A container ID, 64 lower-case hex, into OUT (size ID_LEN + 1). */
static bool parse_id(comp c, char *out)
{
	if (c.len != ID_LEN)
		return false;
	for (size_t i = 0; i < ID_LEN; i++)
		if (!is_lower_hex(c.s[i]))
			return false;
	memcpy(out, c.s, ID_LEN);
	out[ID_LEN] = '\0';
	return true;
}

/* <runtime>-<id>.scope into OUT->container_id and OUT->runtime. */
static bool parse_scope(comp c, discover_pod *out)
{
	static const struct {
		const char *prefix;
		k8s_runtime runtime;
	} runtimes[] = {
		{ "cri-containerd-", K8S_RUNTIME_CONTAINERD },
		{ "docker-", K8S_RUNTIME_DOCKER },
		{ "crio-", K8S_RUNTIME_CRIO },
	};
	comp id;

	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (strip(c, runtimes[i].prefix, ".scope", &id)) {
			out->runtime = runtimes[i].runtime;
			return parse_id(id, out->container_id);
		}
	return false;
}

/* The cgroupfs layout's container: <id>, or crio-<id> (CRI-O). */
static bool parse_cgroupfs_id(comp c, discover_pod *out)
{
	comp id;

	if (strip(c, "crio-", "", &id)) {
		out->runtime = K8S_RUNTIME_CRIO;
		return parse_id(id, out->container_id);
	}
	out->runtime = K8S_RUNTIME_ANY;
	return parse_id(c, out->container_id);
}

/* The QoS class component C names, or NULL: "kubepods-burstable.slice"
 * (systemd) or "burstable" (cgroupfs), besteffort alike. */
static const char *qos_of(comp c, bool systemd)
{
	static const char *const classes[] = { "burstable", "besteffort" };

	for (size_t i = 0; i < 2; i++) {
		comp mid;
		if (systemd ? strip(c, "kubepods-", ".slice", &mid) && comp_is(mid, classes[i])
			    : comp_is(c, classes[i]))
			return classes[i];
	}
	return NULL;
}

/* C[0..N) follow "kubepods.slice" or "kubepods". */
static bool parse_pod(const comp *c, size_t n, bool systemd, discover_pod *out)
{
	const char *qos = n ? qos_of(c[0], systemd) : NULL;
	size_t i = qos ? 1 : 0;
	char prefix[32];
	comp uid;

	if (n != i + 2)
		return false;
	if (systemd) {
		snprintf(prefix, sizeof(prefix), "kubepods-%s%spod", qos ? qos : "", qos ? "-" : "");
		if (!strip(c[i], prefix, ".slice", &uid) || !parse_uid(uid, '_', out->uid) ||
		    !parse_scope(c[i + 1], out))
			return false;
	} else if (!strip(c[i], "pod", "", &uid) || !parse_uid(uid, '-', out->uid) ||
		   !parse_cgroupfs_id(c[i + 1], out)) {
		return false;
	}
	out->qos = qos ? qos : "guaranteed";
	return true;
}

bool discover_pod_labels(const char *cgroup_path, discover_pod *out)
{
	comp c[MAX_COMPONENTS];
	size_t n;

	memset(out, 0, sizeof(*out));
	n = cgroup_path ? split(cgroup_path, c, MAX_COMPONENTS) : 0;
	if (n > 0 && (comp_is(c[0], "kubepods.slice") || comp_is(c[0], "kubepods")) &&
	    parse_pod(c + 1, n - 1, comp_is(c[0], "kubepods.slice"), out))
		return true;
	memset(out, 0, sizeof(*out));
	return false;
}

const char *discover_thread_role(pid_t pid, pid_t tid, const char *comm)
{
	if (pid > 0 && tid == pid)
		return "main";
	if (comm && strcmp(comm, "libuv-worker") == 0)
		return "pool";
	if (comm && strcmp(comm, "WorkerThread") == 0)
		return "worker";
	return "other";
}
