/* Unit tests for discover_labels.c: kubelet's cgroup layouts and their
 * near misses, and the roles of node's threads by the names node 20 and
 * node 24 give them. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "target/discover.h"

#define UID "0f6c6a4e-7d0b-4b8e-9a3f-2c1d5e6f7a8b"
#define UID_ "0f6c6a4e_7d0b_4b8e_9a3f_2c1d5e6f7a8b"
#define ID "4a5b6c7d8e9f00112233445566778899aabbccddeeff00112233445566778899"

START_TEST(test_pod_layouts)
{
	static const struct {
		const char *path, *qos;
		k8s_runtime runtime;
	} cases[] = {
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/"
		  "cri-containerd-" ID ".scope", "burstable", K8S_RUNTIME_CONTAINERD },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/"
		  "docker-" ID ".scope", "besteffort", K8S_RUNTIME_DOCKER },
		{ "/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", "guaranteed",
		  K8S_RUNTIME_CRIO },
		{ "/kubepods/burstable/pod" UID "/" ID, "burstable", K8S_RUNTIME_ANY },
		{ "/kubepods/besteffort/pod" UID "/" ID, "besteffort", K8S_RUNTIME_ANY },
		{ "/kubepods/pod" UID "/" ID, "guaranteed", K8S_RUNTIME_ANY },
		/* CRI-O's cgroupfs manager. */
		{ "/kubepods/burstable/pod" UID "/crio-" ID, "burstable", K8S_RUNTIME_CRIO },
		{ "/kubepods/pod" UID "/crio-" ID, "guaranteed", K8S_RUNTIME_CRIO },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		discover_pod pod;

		ck_assert_msg(discover_pod_labels(cases[i].path, &pod), "no labels for %s",
			      cases[i].path);
		ck_assert_str_eq(pod.uid, UID);
		ck_assert_str_eq(pod.container_id, ID);
		ck_assert_str_eq(pod.qos, cases[i].qos);
		ck_assert_int_eq(pod.runtime, cases[i].runtime);
	}
}
END_TEST

START_TEST(test_pod_near_misses)
{
	static const char *const paths[] = {
		"", "/", "kubepods/pod" UID "/" ID, "/system.slice/kubelet.service",
		/* The container ID one hex digit short, long, upper-case. */
		"/kubepods/pod" UID "/" ID "0",
		"/kubepods/pod" UID "/4a5b6c7d8e9f00112233445566778899aabbccddeeff0011223344556677889",
		"/kubepods/pod" UID "/4A5B6C7D8E9F00112233445566778899AABBCCDDEEFF00112233445566778899",
		"/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID "0.scope",
		/* No pod component; a pod without a container. */
		"/kubepods.slice/kubepods-burstable.slice/cri-containerd-" ID ".scope",
		"/kubepods/burstable/" ID,
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice",
		"/kubepods/pod" UID,
		/* Trailing garbage: a cgroup below the container, a suffix, a '/'. */
		"/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" ID ".scope/init.scope",
		"/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" ID ".scopex",
		"/kubepods/pod" UID "/" ID "/",
		"/kubepods/pod" UID "/" ID "/x",
		/* A UID with the other separator, a digit short, upper-case. */
		"/kubepods.slice/kubepods-pod" UID ".slice/docker-" ID ".scope",
		"/kubepods/pod" UID_ "/" ID,
		"/kubepods/pod0f6c6a4e-7d0b-4b8e-9a3f-2c1d5e6f7a8/" ID,
		"/kubepods/pod0F6C6A4E-7D0B-4B8E-9A3F-2C1D5E6F7A8B/" ID,
		/* A QoS class that does not agree with its pod slice; an unknown one. */
		"/kubepods.slice/kubepods-burstable.slice/kubepods-besteffort-pod" UID_ ".slice/"
		"docker-" ID ".scope",
		"/kubepods/guaranteed/pod" UID "/" ID,
		/* crio's conmon, an unknown runtime, a systemd name in a cgroupfs tree. */
		"/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" ID ".scope",
		"/kubepods.slice/kubepods-pod" UID_ ".slice/podman-" ID ".scope",
		"/kubepods/pod" UID "/docker-" ID ".scope",
		"/kubepods/pod" UID "/crio-" ID ".scope",
		"/kubepods/pod" UID "/crio-conmon-" ID,
		"/kubepods/pod" UID "/libpod-" ID,
		"/kubepods/pod" UID "/crio-" ID "0",
		"/kubepods//pod" UID "/" ID,
		/* Not at the root: a delegated subtree (a user's, a container's own)
		 * could be named so; a nested node; a cgroup namespace's view. */
		"/user.slice/user-1000.slice/user@1000.service/kubepods/pod" UID "/" ID,
		"/kubepods/pod" UID "/" ID "/kubepods/pod" UID "/" ID,
		"/docker/abc/kubepods/burstable/pod" UID "/" ID,
		"/../../kubepods-burstable-pod" UID_ ".slice/cri-containerd-" ID ".scope",
	};
	discover_pod pod;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		memset(&pod, 'x', sizeof(pod));
		ck_assert_msg(!discover_pod_labels(paths[i], &pod), "labels for %s", paths[i]);
		ck_assert_str_eq(pod.uid, "");
		ck_assert_str_eq(pod.container_id, "");
		ck_assert_ptr_null(pod.qos);
	}
	ck_assert(!discover_pod_labels(NULL, &pod));
}
END_TEST

/* A path of more components than the parser keeps is not a pod's (and
 * the parser keeps to its array). */
START_TEST(test_pod_deep_path)
{
	char path[4096] = "";
	discover_pod pod;

	strcat(path, "/kubepods/pod" UID "/" ID);
	for (int i = 0; i < 70; i++)
		strcat(path, "/d");
	ck_assert(!discover_pod_labels(path, &pod));
}
END_TEST

START_TEST(test_thread_roles)
{
	static const struct {
		int pid, tid;
		const char *comm, *role;
	} cases[] = {
		/* node 24.21.0 */
		{ 100, 100, "MainThread", "main" },
		{ 100, 101, "libuv-worker", "pool" },
		{ 100, 102, "WorkerThread", "worker" },
		{ 100, 103, "V8Worker", "other" },
		{ 100, 104, "DelayedTaskSche", "other" },
		{ 100, 105, "SignalInspector", "other" },
		{ 100, 106, "InspectorIo", "other" },
		{ 100, 107, "my-named-worker", "other" },	/* new Worker(f, { name }) */
		/* node 20.20.2: every thread "node" */
		{ 200, 200, "node", "main" },
		{ 200, 201, "node", "other" },
		/* The main thread by its id, whatever its name. */
		{ 300, 300, "libuv-worker", "main" },
		{ 300, 300, NULL, "main" },
		{ 300, 301, NULL, "other" },
		{ 300, 302, "libuv-worker\n", "other" },
		{ 0, 0, "libuv-worker", "pool" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_str_eq(discover_thread_role(cases[i].pid, cases[i].tid, cases[i].comm),
				 cases[i].role);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("discover_labels");
	TCase *pods = tcase_create("pods");
	TCase *threads = tcase_create("threads");

	tcase_add_test(pods, test_pod_layouts);
	tcase_add_test(pods, test_pod_near_misses);
	tcase_add_test(pods, test_pod_deep_path);
	suite_add_tcase(s, pods);
	tcase_add_test(threads, test_thread_roles);
	suite_add_tcase(s, threads);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
