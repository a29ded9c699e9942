/* Unit tests for serve's parts that need no child: its options, the
 * labels of a report's threads (Kubernetes names included), the restart
 * plan after a child ends, the self-metrics and the status page. */
#include <check.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "helpers.h"
#include "serve/serve_internal.h"

#define UID "0f6c6a4e-7d0b-4b8e-9a3f-2c1d5e6f7a8b"
#define ID "4a5b6c7d8e9f00112233445566778899aabbccddeeff00112233445566778899"

static int parse(serve_config *cfg, const char *const *args)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = (char *)"serve";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	capture_start();
	int rc = serve_cli_parse(argc, argv, cfg);
	free(capture_end());
	return rc;
}

START_TEST(test_cli_good)
{
	serve_config cfg;
	const char *args[] = { "libuv-phases", "--target", "api=cmdline=server\\.js", "-i", "2",
			       "loop-why", "-t", "w=exe=*/node", "--pid-label", NULL };
	ck_assert_int_eq(parse(&cfg, args), EXIT_OK);
	ck_assert_uint_eq(cfg.n_specs, 2);
	ck_assert_str_eq(cfg.specs[1], "loop-why");
	ck_assert_uint_eq(cfg.n_targets, 2);
	ck_assert_str_eq(cfg.targets[0].name, "api");
	ck_assert_int_eq(cfg.targets[1].kind, DISCOVER_EXE);
	ck_assert_uint_eq(cfg.interval_ns, 2000000000ull);
	ck_assert(cfg.pid_label);
	ck_assert_ptr_null(cfg.listen);
	serve_config_free(&cfg);

	const char *defaults[] = { "x.yaml", "-t", "a=pid=1", NULL };
	ck_assert_int_eq(parse(&cfg, defaults), EXIT_OK);
	ck_assert_uint_eq(cfg.interval_ns, SERVE_DEFAULT_INTERVAL_NS);
	ck_assert(!cfg.pid_label);
	ck_assert_str_eq(cfg.host_run, "/run");
	serve_config_free(&cfg);

	const char *k8s[] = { "x.yaml", "-t", "s=k8s-namespace=shop", "--host-run", "/tmp", NULL };
	ck_assert_int_eq(parse(&cfg, k8s), EXIT_OK);
	ck_assert_int_eq(cfg.targets[0].kind, DISCOVER_K8S_NAMESPACE);
	ck_assert_str_eq(cfg.host_run, "/tmp");
	serve_config_free(&cfg);
}
END_TEST

START_TEST(test_cli_bad)
{
	static const char *const cases[][8] = {
		{ "libuv-phases", NULL },				/* no target */
		{ "-t", "a=pid=1", NULL },				/* no spec */
		{ "s", "-t", "a=pid=1", "-t", "a=comm=x", NULL },	/* a name twice */
		{ "s", "-t", "a=cmdlin=x", NULL },			/* no such selector */
		{ "s", "-t", "a=pid=1", "-i", "500ms", NULL },		/* under 1 s */
		{ "s", "-t", "a=pid=1", "-i", "soon", NULL },
		{ "s", "-t", "a=pid=1", "--unsafe", NULL },
		{ "s", "-t", "a=k8s-pods=x", NULL },
		{ "s", "-t", "a=pid=1", "--host-run", "/nonexistent/run", NULL },
		{ "s", "-t", "a=pid=1", "--host-run", "/etc/passwd", NULL },	/* not a directory */
		{ "s", "-t", "a=pid=1", "--host-run", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		serve_config cfg;
		ck_assert_msg(parse(&cfg, cases[i]) == EXIT_USAGE, "case %zu parsed", i);
		serve_config_free(&cfg);
	}
	serve_config cfg;
	const char *help[] = { "--help", NULL };
	ck_assert_int_eq(parse(&cfg, help), EXIT_DONE);
	serve_config_free(&cfg);
}
END_TEST

/* A serve with one target "api" and one slot tracing pids 100 and 200
 * (whose pod labels the test sets), /proc being a fixture in DIR. */
typedef struct fixture {
	serve sv;
	serve_slot slot;
	char dir[64];
} fixture;

static void fixture_init(fixture *f)
{
	memset(f, 0, sizeof *f);
	strcpy(f->dir, "/tmp/test_serve.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	f->sv.cfg.proc_root = f->dir;
	f->sv.cfg.specs[0] = "/etc/specs/phases.yaml";
	strcpy(f->sv.cfg.spec_names[0], "libuv-phases");
	f->sv.cfg.spec_fds[0] = -1;
	f->sv.cfg.n_specs = 1;
	strcpy(f->sv.cfg.targets[0].name, "api");
	f->sv.cfg.n_targets = 1;
	f->sv.cfg.interval_ns = SERVE_DEFAULT_INTERVAL_NS;
	f->sv.store = promstore_new();
	ck_assert_ptr_nonnull(f->sv.store);
	pthread_mutex_init(&f->sv.lock, NULL);
	f->slot.run_pids[0] = 100;
	f->slot.run_pids[1] = 200;
	f->slot.n_run = 2;
	f->slot.in_fd = f->slot.out_fd = f->slot.err_fd = -1;
	for (size_t i = 0; i < 2; i++) {
		f->slot.pods[i].pid = f->slot.run_pids[i];
		f->slot.pods[i].in_pod = true;
		strcpy(f->slot.pods[i].pod.uid, UID);
		strcpy(f->slot.pods[i].pod.container_id, ID);
	}
	f->sv.slots = &f->slot;
	f->sv.n_slots = 1;
}

static void fixture_free(fixture *f)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	ck_assert_int_eq(system(cmd), 0);
	promstore_free(f->sv.store);
	pthread_mutex_destroy(&f->sv.lock);
}

/* Writes DIR/TID/status saying the thread belongs to TGID. */
static void fake_thread(const fixture *f, long tid, long tgid)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%ld", f->dir, tid);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/%ld/status", f->dir, tid);
	FILE *out = fopen(path, "w");
	ck_assert_ptr_nonnull(out);
	fprintf(out, "Name:\tnode\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%ld\n", tgid);
	fclose(out);
}

static promstore_labelset labels_of(fixture *f, long tid)
{
	report rep;
	memset(&rep, 0, sizeof rep);
	rep.pid = 100;
	serve_label_ctx c = { .sv = &f->sv, .slot = &f->slot };
	promstore_labelset ls;
	memset(&ls, 0, sizeof ls);
	ck_assert_int_eq(serve_label_thread(&c, &rep, tid, "node", &ls), 0);
	ck_assert_str_eq(ls.target, "api");
	return ls;
}

START_TEST(test_labels)
{
	fixture f;
	fixture_init(&f);
	fake_thread(&f, 250, 200);
	fake_thread(&f, 260, 999);

	/* Each process's main thread is main, with its pod. */
	promstore_labelset ls = labels_of(&f, 200);
	ck_assert_int_eq(ls.role, PROMSTORE_ROLE_MAIN);
	ck_assert_str_eq(ls.pod_uid, UID);
	ck_assert_str_eq(ls.container_id, ID);
	ck_assert_int_eq(ls.pid, 0);	/* no --pid-label */
	/* Another thread of pid 200: its pod, not main. */
	ls = labels_of(&f, 250);
	ck_assert_int_ne(ls.role, PROMSTORE_ROLE_MAIN);
	ck_assert_str_eq(ls.pod_uid, UID);
	/* A thread of no traced process, or gone: the target only. */
	ls = labels_of(&f, 260);
	ck_assert_ptr_null(ls.pod_uid);
	ls = labels_of(&f, 270);
	ck_assert_ptr_null(ls.pod_uid);
	ck_assert_int_ne(ls.role, PROMSTORE_ROLE_MAIN);
	/* The target as a whole: the shared pod ... */
	ls = labels_of(&f, 0);
	ck_assert_str_eq(ls.container_id, ID);
	/* ... and none when the processes are in different containers. */
	f.slot.pods[1].pod.container_id[0] = 'f';
	ls = labels_of(&f, 0);
	ck_assert_ptr_null(ls.container_id);
	ls = labels_of(&f, 250);
	ck_assert_str_eq(ls.container_id + 1, ID + 1);
	ck_assert_int_eq(ls.container_id[0], 'f');

	/* --pid-label: the thread's process; tid 0 only for one process. */
	f.sv.cfg.pid_label = true;
	ck_assert_int_eq(labels_of(&f, 250).pid, 200);
	ck_assert_int_eq(labels_of(&f, 0).pid, 0);
	f.slot.n_run = 1;
	ck_assert_int_eq(labels_of(&f, 0).pid, 100);
	/* One process: every thread is its, even one gone. */
	ck_assert_int_eq(labels_of(&f, 270).pid, 100);
	fixture_free(&f);
}
END_TEST

/* The names of the thread's process become labels; "" ones do not. */
START_TEST(test_labels_names)
{
	fixture f;
	fixture_init(&f);
	promstore_labelset ls = labels_of(&f, 200);
	ck_assert_ptr_null(ls.k8s_namespace);	/* no names read */
	for (size_t i = 0; i < 2; i++) {
		f.slot.pods[i].has_names = true;
		strcpy(f.slot.pods[i].names.namespace_name, "shop");
		strcpy(f.slot.pods[i].names.pod_name, "api-7d9f");
	}
	ls = labels_of(&f, 200);
	ck_assert_str_eq(ls.k8s_namespace, "shop");
	ck_assert_str_eq(ls.pod, "api-7d9f");
	ck_assert_str_eq(ls.container, "");	/* left out by the store */
	ls = labels_of(&f, 0);
	ck_assert_str_eq(ls.pod, "api-7d9f");
	fixture_free(&f);
}
END_TEST

/* Writes TEXT to DIR/REL, making its directories. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	FILE *out = fopen(path, "w");
	ck_assert_ptr_nonnull(out);
	fputs(text, out);
	ck_assert_int_eq(fclose(out), 0);
}

/* What FN(F) writes on stderr. */
static char *stderr_of(void (*fn)(fixture *), fixture *f)
{
	char path[] = "/tmp/test_serve_err.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	dup2(fd, 2);
	fn(f);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char *text = calloc(1, 8192);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_ge(pread(fd, text, 8191, 0), 0);
	close(fd);
	unlink(path);
	return text;
}

static void read_pods(fixture *f)
{
	serve_read_pods(&f->sv, &f->slot);
}

#define CGROUP_OF(id) "0::/kubepods/burstable/pod" UID "/" id "\n"
#define OTHER_ID "5a5b6c7d8e9f00112233445566778899aabbccddeeff00112233445566778899"

/* Pid 100 in a containerd container whose config names it (hostile
 * text included), pid 200 in one whose config is not JSON: the names of
 * the first, none for the second, said once on stderr and on the page. */
START_TEST(test_read_pods_names)
{
	fixture f;
	fixture_init(&f);
	char run[128];
	snprintf(run, sizeof run, "%s/run", f.dir);
	put(f.dir, "100/cgroup", CGROUP_OF(ID));
	put(f.dir, "200/cgroup", CGROUP_OF(OTHER_ID));
	put(run, "containerd/io.containerd.runtime.v2.task/k8s.io/" ID "/config.json",
	    "{\"annotations\":{\"io.kubernetes.cri.sandbox-namespace\":\"shop\","
	    "\"io.kubernetes.cri.sandbox-name\":\"api\\u001b[2J\\\"<b>\","
	    "\"io.kubernetes.cri.container-name\":\"node\"}}");
	put(run, "containerd/io.containerd.runtime.v2.task/k8s.io/" OTHER_ID "/config.json", "{<i>");
	f.sv.cfg.host_run = run;
	f.sv.pod_labels = true;
	f.sv.k8s = k8s_cache_new(run);
	ck_assert_ptr_nonnull(f.sv.k8s);

	char *err = stderr_of(read_pods, &f);
	ck_assert(f.slot.pods[0].has_names);
	ck_assert_str_eq(f.slot.pods[0].names.namespace_name, "shop");
	ck_assert_str_eq(f.slot.pods[0].names.pod_name, "api\x1b[2J\"<b>");
	ck_assert(f.slot.pods[1].in_pod);
	ck_assert(!f.slot.pods[1].has_names);
	ck_assert_contains(err, "bpfspec serve: warning: cannot read a container's Kubernetes "
				"names: ");
	ck_assert_contains(err, "/k8s.io/" OTHER_ID "/config.json: not JSON");
	ck_assert_contains(err, "(said once;");
	free(err);
	err = stderr_of(read_pods, &f);
	ck_assert_str_eq(err, "");	/* once */
	free(err);
	ck_assert_uint_eq(f.sv.k8s_failed, 1);

	/* The page: where the names come from, the failure escaped. */
	char *page = NULL;
	size_t len;
	FILE *out = open_memstream(&page, &len);
	ck_assert_int_eq(serve_write_index(&f.sv, out), 0);
	fclose(out);
	ck_assert_contains(page, "<p>Kubernetes names: read from the container runtimes' state "
				 "under /tmp/test_serve.");
	ck_assert_contains(page, "; containers without names: 1; the first failure: ");
	ck_assert_contains(page, "not JSON (line 1, column ");
	free(page);
	strcpy(f.sv.k8s_problem, "/run/x: <script>\x1b[2J");
	out = open_memstream(&page, &len);
	ck_assert_int_eq(serve_write_index(&f.sv, out), 0);
	fclose(out);
	ck_assert_contains(page, "the first failure: /run/x: &lt;script&gt;\\x1b[2J</p>");
	free(page);

	/* The labels carry the names; the store escapes them. */
	promstore_labelset ls = labels_of(&f, 100);
	ck_assert_str_eq(ls.pod, "api\x1b[2J\"<b>");
	k8s_cache_free(f.sv.k8s);
	fixture_free(&f);
}
END_TEST

START_TEST(test_restart_plan)
{
	fixture f;
	fixture_init(&f);
	serve_slot *s = &f.slot;
	capture_start();

	/* Failures back off 1 s, 2 s, 4 s ... */
	uint64_t expect_s[] = { 1, 2, 4, 8, 16, 32, 60, 60 };
	for (size_t i = 0; i < sizeof expect_s / sizeof *expect_s; i++) {
		s->child = 4242;
		s->up = true;
		uint64_t before = serve_now_ns();
		serve_child_ended(&f.sv, s, W_EXITCODE(EXIT_TRACER, 0));
		ck_assert_int_eq(s->child, 0);
		ck_assert(!s->up);
		ck_assert_uint_ge(s->not_before_ns, before + expect_s[i] * 1000000000ull);
		ck_assert_uint_le(s->not_before_ns, serve_now_ns() + expect_s[i] * 1000000000ull);
	}
	ck_assert_uint_eq(s->failures, 8);
	/* Killed by a signal: a failure too. */
	s->child = 4242;
	serve_child_ended(&f.sv, s, SIGKILL);
	ck_assert_uint_eq(s->failures, 9);
	/* A traced process exited (pid 2000000000 cannot exist): scan
	 * again, no failure counted. */
	s->run_pids[1] = 2000000000;
	s->child = 4242;
	f.sv.rescan = false;
	serve_child_ended(&f.sv, s, W_EXITCODE(EXIT_PARTIAL, 0));
	ck_assert(f.sv.rescan);
	ck_assert_uint_eq(s->failures, 9);
	/* Status 4 while every process still runs: the target cannot be
	 * traced (no libuv, say), a failure with its backoff. */
	s->run_pids[0] = getpid();
	s->n_run = 1;
	s->child = 4242;
	f.sv.rescan = false;
	serve_child_ended(&f.sv, s, W_EXITCODE(EXIT_TARGET, 0));
	ck_assert(!f.sv.rescan);
	ck_assert_uint_eq(s->failures, 10);
	ck_assert_uint_gt(s->not_before_ns, serve_now_ns() + 50000000000ull);
	/* Stopped by serve: starts again at once. */
	s->child = 4242;
	s->stopping = true;
	s->not_before_ns = 0;
	f.sv.rescan = false;
	serve_child_ended(&f.sv, s, W_EXITCODE(EXIT_OK, 0));
	ck_assert_uint_eq(s->not_before_ns, 0);
	ck_assert(!f.sv.rescan);
	ck_assert(!s->stopping);
	free(capture_end());
	fixture_free(&f);
}
END_TEST

/* The scrape F's serve answers now (owned). */
static char *metrics_of(fixture *f)
{
	char *text = NULL;
	size_t len = 0;
	serve_update_gauges(&f->sv);
	FILE *out = open_memstream(&text, &len);
	ck_assert_int_eq(serve_write_metrics(&f->sv, out), 0);
	fclose(out);
	return text;
}

/* bpfspec_up is 1 only while every slot of the spec and target runs and
 * has reported; a target with no process has it 0. */
START_TEST(test_gauges)
{
	fixture f;
	fixture_init(&f);
	f.sv.matched[0] = 2;
	f.slot.child = 4242;
	f.slot.up = true;
	f.slot.attached = 14;
	char *text = metrics_of(&f);
	ck_assert_contains(text, "bpfspec_up{spec=\"libuv-phases\",target=\"api\"} 1\n");
	ck_assert_contains(text, "bpfspec_probes_attached{spec=\"libuv-phases\",target=\"api\"} 14\n");
	ck_assert_contains(text, "bpfspec_targets{target=\"api\"} 2\n");
	ck_assert_contains(text, "# TYPE bpfspec_scrape_duration_seconds gauge\n");
	free(text);

	f.slot.up = false;
	text = metrics_of(&f);
	ck_assert_contains(text, "bpfspec_up{spec=\"libuv-phases\",target=\"api\"} 0\n");
	ck_assert_contains(text, "bpfspec_probes_attached{spec=\"libuv-phases\",target=\"api\"} 0\n");
	free(text);

	f.sv.n_slots = 0;
	f.sv.matched[0] = 0;
	text = metrics_of(&f);
	ck_assert_contains(text, "bpfspec_up{spec=\"libuv-phases\",target=\"api\"} 0\n");
	ck_assert_contains(text, "bpfspec_targets{target=\"api\"} 0\n");
	free(text);
	fixture_free(&f);
}
END_TEST

/* tests/fixtures/reports/NAME as one JSON line with its newline (owned). */
static char *report_line(const char *name)
{
	char path[4096];
	const char *top = getenv("TOP");
	snprintf(path, sizeof path, "%s/tests/fixtures/reports/%s", top ? top : ".", name);
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	ck_assert_msg(root != NULL, "%s: %s (run from the repo top or set TOP)", path, err.text);
	char *text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	ck_assert_ptr_nonnull(text);
	size_t len = strlen(text);
	char *line = realloc(text, len + 2);
	ck_assert_ptr_nonnull(line);
	memcpy(line + len, "\n", 2);
	return line;
}

/* Hands LINE to the slot as its child's output. */
static void child_says(fixture *f, const char *line)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], line, strlen(line)), (ssize_t)strlen(line));
	close(p[1]);
	f->slot.out_fd = p[0];
	serve_child_read(&f->sv, &f->slot, p[0]);
	close(p[0]);
	f->slot.out_fd = -1;
	line_buffer_free(&f->slot.out_line);
}

/* A child serve asked to stop is down at once, and its last report adds
 * its figures without bringing it up: a slot reused for a new process
 * of the same executable is up only once the new child reports. */
START_TEST(test_stopping_child)
{
	fixture f;
	fixture_init(&f);
	f.sv.matched[0] = 1;
	char *line = report_line("phases-before.json");
	child_says(&f, line);
	ck_assert(f.slot.up);

	pid_t kid = waiting_child(NULL);
	f.slot.child = kid;
	serve_child_stop(&f.sv, &f.slot);
	ck_assert(f.slot.stopping);
	ck_assert(!f.slot.up);
	int status;
	ck_assert_int_eq(waitpid(kid, &status, 0), kid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);

	char *before = metrics_of(&f);
	child_says(&f, line);
	ck_assert(!f.slot.up);
	char *after = metrics_of(&f);
	ck_assert_contains(after, "bpfspec_up{spec=\"libuv-phases\",target=\"api\"} 0\n");
	ck_assert_str_ne(before, after);	/* the figures were added */
	free(before);
	free(after);
	free(line);
	fixture_free(&f);
}
END_TEST

/* What the running child is told when processes join and leave, and
 * how long a leaver keeps its labels. */
START_TEST(test_churn)
{
	fixture f;
	fixture_init(&f);
	f.sv.cfg.pid_label = true;
	signal(SIGPIPE, SIG_IGN);
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	f.slot.in_fd = p[1];
	f.slot.pids[0] = 100;
	f.slot.pids[1] = 300;
	f.slot.n_pids = 2;
	ck_assert(!serve_churn_settled(&f.slot));
	ck_assert_int_eq(serve_churn_tell(&f.sv, &f.slot), 0);
	ck_assert(serve_churn_settled(&f.slot));
	char got[64] = "";
	ck_assert_int_eq(read(p[0], got, sizeof got - 1), 10);
	ck_assert_str_eq(got, "-200\n+300\n");
	/* The leaver keeps its labels for two reports, then is forgotten. */
	ck_assert_int_eq(labels_of(&f, 200).pid, 200);
	ck_assert_int_eq(labels_of(&f, 200).role, PROMSTORE_ROLE_MAIN);
	ck_assert_int_eq(labels_of(&f, 300).pid, 300);
	serve_churn_reported(&f.slot);
	ck_assert_int_eq(labels_of(&f, 200).pid, 200);
	serve_churn_reported(&f.slot);
	ck_assert_int_eq(labels_of(&f, 200).pid, 0);
	ck_assert_uint_eq(f.slot.n_run, 2);
	ck_assert(serve_churn_settled(&f.slot));

	/* One that left comes back before it is forgotten: told again. */
	f.slot.n_pids = 1;	/* 300 leaves */
	ck_assert_int_eq(serve_churn_tell(&f.sv, &f.slot), 0);
	f.slot.n_pids = 2;	/* and is back */
	ck_assert(!serve_churn_settled(&f.slot));
	ck_assert_int_eq(serve_churn_tell(&f.sv, &f.slot), 0);
	ck_assert(serve_churn_settled(&f.slot));
	memset(got, 0, sizeof got);
	ck_assert_int_eq(read(p[0], got, sizeof got - 1), 10);
	ck_assert_str_eq(got, "-300\n+300\n");
	ck_assert_uint_eq(f.slot.n_run, 2);
	ck_assert_uint_eq(f.slot.n_left, 0);

	/* A child that does not read any more: -1, to be restarted. */
	close(p[0]);
	f.slot.pids[1] = 400;
	ck_assert_int_eq(serve_churn_tell(&f.sv, &f.slot), -1);
	close(p[1]);
	f.slot.in_fd = -1;
	ck_assert_int_eq(serve_churn_tell(&f.sv, &f.slot), -1);
	fixture_free(&f);
}
END_TEST

/* One slot for every executable of a target: a process of an executable
 * the child's program attaches to joins in place, one of another needs a
 * new program; a spec written for one executable gets a slot per file. */
START_TEST(test_families)
{
	fixture f;
	fixture_init(&f);
	serve_slot *s = &f.slot;
	serve_exe a = { 1, 100 }, b = { 1, 200 }, c = { 2, 100 };
	s->pids[0] = 100, s->pid_exes[0] = a;
	s->pids[1] = 200, s->pid_exes[1] = b;
	s->pids[2] = 300, s->pid_exes[2] = a;
	s->n_pids = 3;
	serve_family_started(s);
	ck_assert_uint_eq(s->n_run_exes, 2);
	ck_assert(!serve_family_new_exe(s));
	s->pids[3] = 400, s->pid_exes[3] = c;	/* another file */
	s->n_pids = 4;
	ck_assert(serve_family_new_exe(s));
	s->n_pids = 2;	/* fewer files: the program still fits */
	ck_assert(!serve_family_new_exe(s));
	/* Who takes a process: a running child (not stopping) its program's
	 * files, any file when its spec has kernel probes alone; a slot
	 * without a running child (or stopping) any file, unless gone */
	s->family = SERVE_FAMILY_UV_NEW;
	ck_assert(!serve_family_traces(s, a, true));
	ck_assert(serve_family_idle(s));
	s->child = 4242;
	ck_assert(serve_family_traces(s, a, true));
	ck_assert(!serve_family_traces(s, c, true));
	ck_assert(serve_family_traces(s, c, false));
	ck_assert(!serve_family_idle(s));
	s->stopping = true;
	ck_assert(!serve_family_traces(s, a, true));
	ck_assert(serve_family_idle(s));
	s->gone = true;	/* no process left: it ends, it takes none */
	ck_assert(!serve_family_idle(s));
	s->gone = s->stopping = false;
	s->family = SERVE_FAMILY_ALONE;
	s->alone = a;
	ck_assert(serve_family_traces(s, a, true));
	ck_assert(!serve_family_traces(s, b, false));
	ck_assert(!serve_family_idle(s));
	s->child = 0;
	s->family = SERVE_FAMILY_UV_NEW;

	/* Families: per spec, remembered per file (pid 0 is never read: a
	 * spec that times no function needs no libuv). */
	f.sv.cfg.spec_alone[0] = true;
	ck_assert_int_eq(serve_family_of(&f.sv, 0, 0, a), SERVE_FAMILY_ALONE);
	f.sv.cfg.spec_alone[0] = false;
	ck_assert_int_eq(serve_family_of(&f.sv, 0, 0, a), SERVE_FAMILY_UV_NEW);
	f.sv.cfg.spec_times[0] = true;
	f.sv.uv_orders[0].exe = b;
	f.sv.uv_orders[0].family = SERVE_FAMILY_UV_OLD;
	f.sv.n_uv_orders = 1;
	ck_assert_int_eq(serve_family_of(&f.sv, 0, 0, b), SERVE_FAMILY_UV_OLD);
	fixture_free(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("serve");
	TCase *cli = tcase_create("cli");
	TCase *state = tcase_create("state");

	tcase_add_test(cli, test_cli_good);
	tcase_add_test(cli, test_cli_bad);
	suite_add_tcase(s, cli);
	tcase_add_test(state, test_labels);
	tcase_add_test(state, test_labels_names);
	tcase_add_test(state, test_read_pods_names);
	tcase_add_test(state, test_restart_plan);
	tcase_add_test(state, test_gauges);
	tcase_add_test(state, test_stopping_child);
	tcase_add_test(state, test_churn);
	tcase_add_test(state, test_families);
	suite_add_tcase(s, state);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
