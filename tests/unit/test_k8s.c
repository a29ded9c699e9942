/* Unit tests for k8s_names.c and k8s_cache.c: container names from
 * fixture runtime-state trees laid out as containerd's and CRI-O's
 * (containers/storage's), hostile configs (100 KB values, escape bytes,
 * quotes, missing keys, malformed JSON, a FIFO, a link to /dev/zero, a
 * file over the bound), the cache, and the k8s-* selectors of a scan. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "discover_fixture.h"
#include "helpers.h"
#include "target/discover.h"
#include "target/k8s.h"
#include "util/safe.h"

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define ID_C "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define ID_D "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
#define ID_E "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
#define UID "0f6c6a4e-7d0b-4b8e-9a3f-2c1d5e6f7a8b"
#define UID_ "0f6c6a4e_7d0b_4b8e_9a3f_2c1d5e6f7a8b"

#define CONTAINERD_CONFIG(ns, pod, ctr)                                                   \
	"{\"ociVersion\":\"1.1.0\",\"annotations\":{"                                     \
	"\"io.kubernetes.cri.container-type\":\"container\","                             \
	"\"io.kubernetes.cri.sandbox-namespace\":\"" ns "\","                             \
	"\"io.kubernetes.cri.sandbox-name\":\"" pod "\","                                 \
	"\"io.kubernetes.cri.container-name\":\"" ctr "\"}}"
#define CRIO_CONFIG(ns, pod, ctr)                                                         \
	"{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"args\":[\"node\"]},\"annotations\":{" \
	"\"io.kubernetes.pod.namespace\":\"" ns "\","                                     \
	"\"io.kubernetes.pod.name\":\"" pod "\","                                         \
	"\"io.kubernetes.container.name\":\"" ctr "\"}}"

/* ROOT/run: the fixture's host /run (ROOT is discover_fixture's /proc). */
static char run[PATH_MAX + 8];

static void k8s_setup(void)
{
	setup();
	int w = snprintf(run, sizeof(run), "%s/run", root);
	ck_assert(w > 0 && (size_t)w < sizeof(run));
}

/* Makes every directory of PATH's parent. */
static void mkdirs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s", p);
		*s = '/';
	}
}

static void containerd_path(const char *id, char *out, size_t len)
{
	int w = snprintf(out, len, "%s/containerd/io.containerd.runtime.v2.task/k8s.io/%s/"
			 "config.json", run, id);
	ck_assert(w > 0 && (size_t)w < len);
}

static void crio_path(const char *driver, const char *id, char *out, size_t len)
{
	int w = snprintf(out, len, "%s/containers/storage/%s-containers/%s/userdata/config.json",
			 run, driver, id);
	ck_assert(w > 0 && (size_t)w < len);
}

static void write_file(const char *path, const char *text, size_t len)
{
	mkdirs(path);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static void put_containerd(const char *id, const char *text)
{
	char p[PATH_MAX + 128];
	containerd_path(id, p, sizeof(p));
	write_file(p, text, strlen(text));
}

static void put_crio(const char *id, const char *text)
{
	char p[PATH_MAX + 128];
	crio_path("overlay", id, p, sizeof(p));
	write_file(p, text, strlen(text));
}

static k8s_status parse(const char *text, k8s_runtime rt, k8s_names *out, char *why)
{
	return k8s_names_parse(text, strlen(text), rt, out, why, K8S_WHY_MAX);
}

/* ---- parsing ---- */

START_TEST(test_parse_runtimes)
{
	k8s_names n;
	char why[K8S_WHY_MAX];

	ck_assert_int_eq(parse(CONTAINERD_CONFIG("shop", "api-7d9f", "node"),
			       K8S_RUNTIME_CONTAINERD, &n, why), K8S_FOUND);
	ck_assert_str_eq(n.namespace_name, "shop");
	ck_assert_str_eq(n.pod_name, "api-7d9f");
	ck_assert_str_eq(n.container_name, "node");
	ck_assert_int_eq(parse(CRIO_CONFIG("web", "web-0", "nginx"), K8S_RUNTIME_CRIO, &n, why),
			 K8S_FOUND);
	ck_assert_str_eq(n.namespace_name, "web");
	ck_assert_str_eq(n.pod_name, "web-0");
	ck_assert_str_eq(n.container_name, "nginx");
	/* Each runtime's own keys only: under CRI-O the containerd keys are
	 * a pod's own annotations, and the other way round. */
	ck_assert_int_eq(parse(CONTAINERD_CONFIG("shop", "api", "node"), K8S_RUNTIME_CRIO, &n, why),
			 K8S_NO_NAMES);
	ck_assert_int_eq(parse(CRIO_CONFIG("shop", "api", "node"), K8S_RUNTIME_CONTAINERD, &n, why),
			 K8S_NO_NAMES);
	/* A sandbox (no container name), an empty value, no annotations. */
	ck_assert_int_eq(parse("{\"annotations\":{\"io.kubernetes.cri.sandbox-namespace\":\"a\","
			       "\"io.kubernetes.cri.sandbox-name\":\"\"}}",
			       K8S_RUNTIME_CONTAINERD, &n, why), K8S_FOUND);
	ck_assert_str_eq(n.namespace_name, "a");
	ck_assert_str_eq(n.pod_name, "");
	ck_assert_str_eq(n.container_name, "");
	ck_assert_int_eq(parse("{\"annotations\":{}}", K8S_RUNTIME_CRIO, &n, why), K8S_NO_NAMES);
	ck_assert_int_eq(parse("{\"ociVersion\":\"1.0\"}", K8S_RUNTIME_CRIO, &n, why),
			 K8S_NO_NAMES);
	ck_assert_int_eq(parse("{\"annotations\":{\"io.kubernetes.pod.name\":\"\"}}",
			       K8S_RUNTIME_CRIO, &n, why), K8S_NO_NAMES);
}
END_TEST

START_TEST(test_parse_malformed)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "", "not JSON (line 1, column 0:" },
		{ "{\"annotations\":", "not JSON" },
		{ "{\"annotations\":{}} trailing", "not JSON" },
		{ "[1,2]", "not an OCI runtime config (the document is not an object)" },
		{ "{\"annotations\":[]}", "not an OCI runtime config (\"annotations\" is not an object)" },
		{ "{\"annotations\":{\"io.kubernetes.pod.name\":7}}",
		  "annotation io.kubernetes.pod.name is not a string" },
		{ "{\"annotations\":{\"io.kubernetes.container.name\":null}}",
		  "annotation io.kubernetes.container.name is not a string" },
		{ "{\"annotations\":{\"io.kubernetes.pod.name\":\"a\",\"io.kubernetes.pod.name\":\"b\"}}",
		  "not JSON" },
		{ "{\"annotations\":{\"io.kubernetes.pod.name\":\"a\\u0000b\"}}", "not JSON" },
		{ "{\"annotations\":{\"io.kubernetes.pod.name\":\"\xff\xfe\"}}", "not JSON" },
		{ "{\"annotations\":{\"io.kubernetes.pod.name\":\"\\ud800\"}}", "not JSON" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		k8s_names n;
		char why[K8S_WHY_MAX] = "";
		memset(&n, 'x', sizeof(n));
		ck_assert_msg(parse(cases[i].text, K8S_RUNTIME_CRIO, &n, why) == K8S_MALFORMED,
			      "case %zu", i);
		ck_assert_contains(why, cases[i].why);
		ck_assert_str_eq(n.pod_name, "");
		ck_assert_str_eq(n.namespace_name, "");
	}
	/* Not NUL-terminated: only N bytes are read. */
	k8s_names n;
	char why[K8S_WHY_MAX];
	const char *text = CRIO_CONFIG("a", "b", "c") "garbage";
	ck_assert_int_eq(k8s_names_parse(text, strlen(text) - 7, K8S_RUNTIME_CRIO, &n, why,
					 sizeof(why)), K8S_FOUND);
	ck_assert_int_eq(k8s_names_parse(text, strlen(text), K8S_RUNTIME_CRIO, &n, why, 0),
			 K8S_MALFORMED);	/* no room for why: nothing written */
}
END_TEST

/* Names are kept raw: escapes decoded, quotes and control bytes as they
 * are (safe.h writes them), cut at K8S_NAME_MAX bytes at a character. */
START_TEST(test_parse_hostile_values)
{
	k8s_names n;
	char why[K8S_WHY_MAX];

	ck_assert_int_eq(parse(CRIO_CONFIG("\\u001b[31mred\\u001b[0m", "q\\\"uo\\\\te\\n",
					   "\\u202eevil\\u0007"),
			       K8S_RUNTIME_CRIO, &n, why), K8S_FOUND);
	ck_assert_str_eq(n.namespace_name, "\x1b[31mred\x1b[0m");
	ck_assert_str_eq(n.pod_name, "q\"uo\\te\n");
	ck_assert_str_eq(n.container_name, "\xe2\x80\xae" "evil\a");

	/* 100 KB values; one whose cut falls inside a 3-byte character. */
	size_t big = 100 * 1024;
	char *text = malloc(3 * big + 512), *o = text;
	ck_assert_ptr_nonnull(text);
	o += sprintf(o, "{\"annotations\":{\"io.kubernetes.pod.namespace\":\"");
	memset(o, 'n', big);
	o += big;
	o += sprintf(o, "\",\"io.kubernetes.pod.name\":\"");
	for (size_t i = 0; i < big / 3; i++)
		o += sprintf(o, "\xe2\x82\xac");	/* U+20AC, 3 bytes */
	o += sprintf(o, "\",\"io.kubernetes.container.name\":\"x\"}}");
	ck_assert_int_eq(k8s_names_parse(text, (size_t)(o - text), K8S_RUNTIME_CRIO, &n, why,
					 sizeof(why)), K8S_FOUND);
	free(text);
	ck_assert_uint_eq(strlen(n.namespace_name), K8S_NAME_MAX);
	ck_assert_uint_eq(strlen(n.pod_name), K8S_NAME_MAX / 3 * 3);	/* 252: whole characters */
	ck_assert(safe_utf8_valid(n.pod_name, strlen(n.pod_name)));
	ck_assert_str_eq(n.container_name, "x");
}
END_TEST

/* ---- reading the runtimes' state ---- */

START_TEST(test_read_layouts)
{
	k8s_names n;
	char why[K8S_WHY_MAX], p[PATH_MAX + 128];

	put_containerd(ID_A, CONTAINERD_CONFIG("shop", "api-1", "node"));
	put_crio(ID_B, CRIO_CONFIG("web", "web-0", "nginx"));
	crio_path("vfs", ID_C, p, sizeof(p));
	write_file(p, CRIO_CONFIG("vfs", "v", "c"), strlen(CRIO_CONFIG("vfs", "v", "c")));

	/* containerd: found by its runtime and by a bare id (cgroupfs). */
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_CONTAINERD, ID_A, &n, why, sizeof(why)),
			 K8S_FOUND);
	ck_assert_str_eq(n.pod_name, "api-1");
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_ANY, ID_A, &n, why, sizeof(why)),
			 K8S_FOUND);
	ck_assert_str_eq(n.container_name, "node");
	/* CRI-O, overlay and vfs; the runtimes do not look in each other's. */
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_CRIO, ID_B, &n, why, sizeof(why)),
			 K8S_FOUND);
	ck_assert_str_eq(n.namespace_name, "web");
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_ANY, ID_B, &n, why, sizeof(why)),
			 K8S_FOUND);
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_CRIO, ID_C, &n, why, sizeof(why)),
			 K8S_FOUND);
	ck_assert_str_eq(n.namespace_name, "vfs");
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_CRIO, ID_A, &n, why, sizeof(why)),
			 K8S_ABSENT);
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_CONTAINERD, ID_B, &n, why, sizeof(why)),
			 K8S_ABSENT);
	/* Absent everywhere; docker's state is not read; not an id. */
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_ANY, ID_D, &n, why, sizeof(why)),
			 K8S_ABSENT);
	ck_assert_contains(why, "no runtime state for container dddddddddddd under ");
	ck_assert_contains(why, "(neither containerd's nor CRI-O's config.json)");
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_DOCKER, ID_A, &n, why, sizeof(why)),
			 K8S_UNSUPPORTED);
	ck_assert_contains(why, "runs on docker");
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_ANY, "../../etc", &n, why, sizeof(why)),
			 K8S_ABSENT);
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_ANY, ID_A "a", &n, why, sizeof(why)),
			 K8S_ABSENT);
	ck_assert_int_eq(k8s_names_read("/nonexistent", K8S_RUNTIME_ANY, ID_A, &n, why,
					sizeof(why)), K8S_ABSENT);
	ck_assert_str_eq(n.pod_name, "");
}
END_TEST

/* A FIFO, a link to /dev/zero, a directory, a file over the bound: each
 * refused at once, nothing read unbounded. */
START_TEST(test_read_hostile_files)
{
	k8s_names n;
	char why[K8S_WHY_MAX], p[PATH_MAX + 128];

	containerd_path(ID_A, p, sizeof(p));
	mkdirs(p);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_CONTAINERD, ID_A, &n, why, sizeof(why)),
			 K8S_MALFORMED);
	ck_assert_contains(why, "/k8s.io/" ID_A "/config.json: not a regular file");

	crio_path("overlay", ID_B, p, sizeof(p));
	mkdirs(p);
	ck_assert_int_eq(symlink("/dev/zero", p), 0);
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_CRIO, ID_B, &n, why, sizeof(why)),
			 K8S_MALFORMED);
	ck_assert_contains(why, "/overlay-containers/" ID_B "/userdata/config.json: a symbolic link");

	containerd_path(ID_C, p, sizeof(p));
	mkdirs(p);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_ANY, ID_C, &n, why, sizeof(why)),
			 K8S_MALFORMED);
	ck_assert_contains(why, "not a regular file");

	/* One byte over the bound, whatever it holds. */
	containerd_path(ID_D, p, sizeof(p));
	mkdirs(p);
	int fd = open(p, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, K8S_CONFIG_MAX + 1), 0);
	close(fd);
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_ANY, ID_D, &n, why, sizeof(why)),
			 K8S_MALFORMED);
	ck_assert_contains(why, "larger than 2 MiB");

	/* Malformed JSON in the file: the path and the reason. */
	put_crio(ID_E, "{\"annotations\":{\"io.kubernetes.pod.name\":");
	ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_ANY, ID_E, &n, why, sizeof(why)),
			 K8S_MALFORMED);
	ck_assert_contains(why, "/userdata/config.json: not JSON (line 1");

	/* A run root too long for a path; a file closed to the reader (only
	 * without root's DAC override). */
	char *long_root = malloc(PATH_MAX + 8);
	ck_assert_ptr_nonnull(long_root);
	memset(long_root, 'r', PATH_MAX + 7);
	long_root[0] = '/';
	long_root[PATH_MAX + 7] = '\0';
	ck_assert_int_eq(k8s_names_read(long_root, K8S_RUNTIME_ANY, ID_A, &n, why, sizeof(why)),
			 K8S_UNREADABLE);
	ck_assert_contains(why, strerror(ENAMETOOLONG));
	free(long_root);
	if (geteuid() != 0) {
		put_containerd(ID_E, CONTAINERD_CONFIG("a", "b", "c"));
		containerd_path(ID_E, p, sizeof(p));
		ck_assert_int_eq(chmod(p, 0), 0);
		ck_assert_int_eq(k8s_names_read(run, K8S_RUNTIME_CONTAINERD, ID_E, &n, why,
						sizeof(why)), K8S_UNREADABLE);
		ck_assert_contains(why, strerror(EACCES));
	}
}
END_TEST

/* ---- the cache ---- */

START_TEST(test_cache)
{
	k8s_cache *c = k8s_cache_new(run);
	k8s_status st;
	const k8s_names *n;

	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(k8s_cache_run_root(c), run);
	put_containerd(ID_A, CONTAINERD_CONFIG("shop", "api-1", "node"));
	put_crio(ID_B, "not json");
	n = k8s_cache_get(c, K8S_RUNTIME_ANY, ID_A, &st);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(st, K8S_FOUND);
	ck_assert_str_eq(n->pod_name, "api-1");
	ck_assert_ptr_null(k8s_cache_problem(c));
	/* Read once: a changed file is not read again while it is asked for. */
	put_containerd(ID_A, CONTAINERD_CONFIG("shop", "api-2", "node"));
	k8s_cache_sweep(c);
	ck_assert_str_eq(k8s_cache_get(c, K8S_RUNTIME_ANY, ID_A, NULL)->pod_name, "api-1");
	/* Failures: the first is kept, each counted, none read again. */
	ck_assert_ptr_null(k8s_cache_get(c, K8S_RUNTIME_CRIO, ID_B, &st));
	ck_assert_int_eq(st, K8S_MALFORMED);
	ck_assert_ptr_null(k8s_cache_get(c, K8S_RUNTIME_ANY, ID_C, &st));
	ck_assert_int_eq(st, K8S_ABSENT);
	ck_assert_contains(k8s_cache_problem(c), "/overlay-containers/" ID_B
						 "/userdata/config.json: not JSON");
	ck_assert_uint_eq(k8s_cache_failed(c), 2);
	put_crio(ID_B, CRIO_CONFIG("a", "b", "c"));
	ck_assert_ptr_null(k8s_cache_get(c, K8S_RUNTIME_CRIO, ID_B, NULL));
	/* A sweep forgets what was not asked for since the one before. */
	k8s_cache_sweep(c);
	ck_assert_ptr_nonnull(k8s_cache_get(c, K8S_RUNTIME_ANY, ID_A, NULL));
	k8s_cache_sweep(c);
	ck_assert_uint_eq(k8s_cache_failed(c), 0);
	ck_assert_str_eq(k8s_cache_get(c, K8S_RUNTIME_ANY, ID_A, NULL)->pod_name, "api-1");
	ck_assert_str_eq(k8s_cache_get(c, K8S_RUNTIME_CRIO, ID_B, NULL)->pod_name, "b");
	k8s_cache_sweep(c);
	k8s_cache_sweep(c);
	ck_assert_str_eq(k8s_cache_get(c, K8S_RUNTIME_ANY, ID_A, NULL)->pod_name, "api-2");
	k8s_cache_free(c);
	k8s_cache_free(NULL);
}
END_TEST

/* More containers than the cache holds: the rest are read each time. */
START_TEST(test_cache_full)
{
	k8s_cache *c = k8s_cache_new(run);
	char id[65];

	ck_assert_ptr_nonnull(c);
	for (unsigned i = 0; i < K8S_CACHE_MAX + 10; i++) {
		snprintf(id, sizeof(id), "%064x", i);
		ck_assert_ptr_null(k8s_cache_get(c, K8S_RUNTIME_ANY, id, NULL));
	}
	ck_assert_uint_eq(k8s_cache_failed(c), K8S_CACHE_MAX);
	put_containerd(ID_A, CONTAINERD_CONFIG("shop", "api-1", "node"));
	ck_assert_str_eq(k8s_cache_get(c, K8S_RUNTIME_ANY, ID_A, NULL)->namespace_name, "shop");
	ck_assert_uint_eq(k8s_cache_failed(c), K8S_CACHE_MAX);
	k8s_cache_free(c);
}
END_TEST

/* ---- the k8s-* selectors ---- */

/* Process N of the fixture /proc in cgroup CG. */
static void proc_in(int n, const char *cg)
{
	char line[512];
	int len = snprintf(line, sizeof(line), "0::%s\n", cg);

	FX(P(n), "comm", "node\n");
	FX(P(n), "cmdline", "node\0app.js\0");
	fx_exe(P(n), "/usr/bin/node");
	fx_file(P(n), "cgroup", line, (size_t)len);
}

static void scan_k8s(k8s_cache *c, const char *const *args, discover_set *set)
{
	discover_target t[8];
	size_t n = 0;

	memset(t, 0, sizeof(t));
	for (; args[n]; n++)
		parse_ok(args[n], &t[n]);
	ck_assert_int_eq(discover_scan(root, c, t, n, set), 0);
	for (size_t i = 0; i < n; i++)
		discover_target_free(&t[i]);
}

START_TEST(test_scan_selectors)
{
	static const char *const args[] = {
		"a=k8s-namespace=shop", "b=k8s-pod=api-*", "c=k8s-container=nginx",
		"d=k8s-namespace=*",	"e=k8s-container=*", NULL,
	};
	static const char *const want[] = { "1 2", "1", "2", "1 2 4", "1 2" };
	k8s_cache *c = k8s_cache_new(run);
	discover_set set;
	char text[128];

	ck_assert_ptr_nonnull(c);
	/* 1: containerd, systemd layout; 2: CRI-O, cgroupfs layout; 3: its
	 * config is malformed; 4: a sandbox-like config (no container name,
	 * a hostile namespace); 5: in no pod; 6: docker. */
	proc_in(1, "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
		   ".slice/cri-containerd-" ID_A ".scope");
	put_containerd(ID_A, CONTAINERD_CONFIG("shop", "api-7d9f", "node"));
	proc_in(2, "/kubepods/besteffort/pod" UID "/crio-" ID_B);
	put_crio(ID_B, CRIO_CONFIG("shop", "web-0", "nginx"));
	proc_in(3, "/kubepods/pod" UID "/" ID_C);
	put_containerd(ID_C, "{");
	proc_in(4, "/kubepods/pod" UID "/" ID_D);
	put_containerd(ID_D, "{\"annotations\":{\"io.kubernetes.cri.sandbox-namespace\":"
			     "\"\\u001b]0;x\\u0007\"}}");
	proc_in(5, "/system.slice/api.service");
	proc_in(6, "/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" ID_E ".scope");

	scan_k8s(c, args, &set);
	for (size_t i = 0; i < set.n; i++) {
		ck_assert_msg(strcmp(pids_text(&set.per[i], text, sizeof(text)), want[i]) == 0,
			      "%s: %s, not %s", args[i], text, want[i]);
		/* 3 (malformed) and 6 (docker) cannot be told: unreadable. */
		ck_assert_uint_eq(set.per[i].unreadable, 2);
	}
	discover_set_free(&set);
	ck_assert_uint_eq(k8s_cache_failed(c), 2);
	ck_assert_ptr_nonnull(k8s_cache_problem(c));

	/* Without a cache, or without k8s-* targets, no name is read. */
	scan_k8s(NULL, args, &set);
	for (size_t i = 0; i < set.n; i++)
		ck_assert_uint_eq(set.per[i].n, 0);
	discover_set_free(&set);
	k8s_cache_sweep(c);
	k8s_cache_sweep(c);
	static const char *const plain[] = { "p=comm=node", NULL };
	scan_k8s(c, plain, &set);
	ck_assert_uint_eq(set.per[0].n, 6);
	discover_set_free(&set);
	ck_assert_uint_eq(k8s_cache_failed(c), 0);
	k8s_cache_free(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("k8s");
	TCase *tc = tcase_create("k8s");

	tcase_add_checked_fixture(tc, k8s_setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_parse_runtimes);
	tcase_add_test(tc, test_parse_malformed);
	tcase_add_test(tc, test_parse_hostile_values);
	tcase_add_test(tc, test_read_layouts);
	tcase_add_test(tc, test_read_hostile_files);
	tcase_add_test(tc, test_cache);
	tcase_add_test(tc, test_cache_full);
	tcase_add_test(tc, test_scan_selectors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
