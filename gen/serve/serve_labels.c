/* serve_labels — what `bpfspec serve` says about its slots: the labels
 * of their reports' threads (Kubernetes names from the runtime's state,
 * target/k8s.h, included), its own metrics, and the status page
 * (serve_internal.h).
 *
 * A thread's process is the one of the slot's pids it belongs to (its
 * Tgid in /proc/TID/status, read when the report is added); a thread gone
 * by then is labelled with the target only, and no pid or pod.  Series of
 * the target as a whole (tid 0) get pod labels when every process of the
 * slot is in the same container, and a pid when it traces one process. */
#include "serve/serve_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safe.h"
#include "util/version.h"

void serve_read_pod(serve *sv, serve_pod *p, pid_t pid)
{
	memset(p, 0, sizeof *p);
	p->pid = pid;
	discover_proc proc;
	if (!sv->pod_labels ||
	    discover_proc_read(sv->cfg.proc_root, p->pid, DISCOVER_F_CGROUP, &proc) < 0)
		return;
	p->in_pod = discover_pod_labels(proc.cgroup, &p->pod);
	discover_proc_free(&proc);
	const k8s_names *names = p->in_pod && sv->k8s
		? k8s_cache_get(sv->k8s, p->pod.runtime, p->pod.container_id, NULL)
		: NULL;
	if (names) {
		p->names = *names;
		p->has_names = true;
	}
}

void serve_read_pods(serve *sv, serve_slot *s)
{
	for (size_t i = 0; i < s->n_run; i++)
		serve_read_pod(sv, &s->pods[i], s->run_pids[i]);
	serve_k8s_note(sv);
}

void serve_k8s_note(serve *sv)
{
	const char *problem = sv->k8s ? k8s_cache_problem(sv->k8s) : NULL;
	sv->k8s_failed = sv->k8s ? k8s_cache_failed(sv->k8s) : 0;
	if (!problem || sv->k8s_said)
		return;
	snprintf(sv->k8s_problem, sizeof sv->k8s_problem, "%s", problem);
	sv->k8s_said = true;
	fputs("bpfspec serve: warning: cannot read a container's Kubernetes names: ", stderr);
	safe_fputs(problem, stderr);
	fputs("; its series have no k8s_namespace_name, k8s_pod_name or k8s_container_name "
	      "(said once; the status page counts such containers; docs/fleet.md)\n", stderr);
}

/* The process of the slot that thread TID belongs to, or 0. */
static pid_t owner_of(const serve *sv, const serve_slot *s, long tid)
{
	for (size_t i = 0; i < s->n_run; i++)
		if (s->run_pids[i] == tid)
			return (pid_t)tid;
	if (s->n_run == 1)
		return s->run_pids[0];
	char path[64], line[256];
	snprintf(path, sizeof path, "%s/%ld/status", sv->cfg.proc_root, tid);
	FILE *f = fopen(path, "re");
	pid_t tgid = 0;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "Tgid:", 5) == 0) {
			tgid = (pid_t)strtol(line + 5, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	for (size_t i = 0; i < s->n_run; i++)
		if (s->run_pids[i] == tgid)
			return tgid;
	return 0;
}

static const serve_pod *pod_of(const serve_slot *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_run; i++)
		if (s->pods[i].pid == pid)
			return s->pods[i].in_pod ? &s->pods[i] : NULL;
	return NULL;
}

/* The pod every process of S is in, or NULL. */
static const serve_pod *common_pod(const serve_slot *s)
{
	const serve_pod *first = s->n_run ? pod_of(s, s->run_pids[0]) : NULL;
	for (size_t i = 1; first && i < s->n_run; i++) {
		const serve_pod *p = pod_of(s, s->run_pids[i]);
		if (!p || strcmp(p->pod.uid, first->pod.uid) != 0 ||
		    strcmp(p->pod.container_id, first->pod.container_id) != 0)
			return NULL;
	}
	return first;
}

int serve_label_thread(void *arg, const report *rep, long tid, const char *thread,
		       promstore_labelset *out)
{
	const serve_label_ctx *c = arg;
	const serve_slot *s = c->slot;
	out->target = c->sv->cfg.targets[s->target].name;
	const serve_pod *pod;
	pid_t pid = 0;
	if (tid == 0) {
		pod = common_pod(s);
		pid = s->n_run == 1 ? s->run_pids[0] : 0;
	} else {
		pid = owner_of(c->sv, s, tid);
		pod = pid ? pod_of(s, pid) : NULL;
		out->role = pid && tid == pid ? PROMSTORE_ROLE_MAIN
					      : promstore_node_role(rep, tid, thread);
		if (out->role == PROMSTORE_ROLE_MAIN && tid != pid)
			out->role = PROMSTORE_ROLE_OTHER;	/* main of no traced pid */
	}
	if (pod) {
		out->pod_uid = pod->pod.uid;
		out->container_id = pod->pod.container_id;
	}
	if (pod && pod->has_names) {
		out->k8s_namespace = pod->names.namespace_name;
		out->pod = pod->names.pod_name;
		out->container = pod->names.container_name;
	}
	if (c->sv->cfg.pid_label && pid)
		out->pid = pid;
	return 0;
}

/* The labeler's context lives in the slot's call: one report at a time
 * (the loop's thread). */
static serve_label_ctx current;

promstore_labeler serve_labeler(serve *sv, serve_slot *slot)
{
	current = (serve_label_ctx){ .sv = sv, .slot = slot };
	return (promstore_labeler){ .labels = serve_label_thread, .ctx = &current };
}

void serve_update_gauges(serve *sv)
{
	const serve_config *cfg = &sv->cfg;
	for (size_t t = 0; t < cfg->n_targets; t++) {
		promstore_label tl[] = { { "target", cfg->targets[t].name } };
		promstore_gauge_set(sv->store, "bpfspec_targets",
				    "Processes the target selects (the last scan).", tl, 1,
				    (double)sv->matched[t]);
		for (size_t p = 0; p < cfg->n_specs; p++) {
			bool any = false, all_up = true;
			double attached = 0;
			for (size_t i = 0; i < sv->n_slots; i++) {
				const serve_slot *s = &sv->slots[i];
				if (s->spec != p || s->target != t || s->gone)
					continue;
				any = true;
				all_up &= s->child && s->up;
				attached += s->child && s->up ? s->attached : 0;
			}
			promstore_label l[] = { { "spec", cfg->spec_names[p] },
						{ "target", cfg->targets[t].name } };
			promstore_gauge_set(sv->store, "bpfspec_up",
					    "1 when every bpftrace of the spec on the target runs "
					    "and has delivered an interval.",
					    l, 2, any && all_up ? 1 : 0);
			promstore_gauge_set(sv->store, "bpfspec_probes_attached",
					    "Probes attached by the spec's bpftraces on the target.",
					    l, 2, attached);
		}
	}
}

int serve_write_metrics(void *ctx, FILE *out)
{
	serve *sv = ctx;
	pthread_mutex_lock(&sv->lock);
	uint64_t t0 = serve_now_ns();
	promstore_gauge_set(sv->store, "bpfspec_scrape_duration_seconds",
			    "How long the previous scrape took to render.", NULL, 0,
			    (double)sv->last_scrape_ns / 1e9);
	int rc = promstore_render(sv->store, out);
	sv->last_scrape_ns = serve_now_ns() - t0;
	pthread_mutex_unlock(&sv->lock);
	return rc;
}

static const char *slot_state(const serve_slot *s, char *text, size_t len)
{
	uint64_t now = serve_now_ns();
	if (s->child && s->up)
		return "up";
	if (s->child && s->stopping)
		return "stopping";
	if (s->child)
		return "starting";
	if (s->not_before_ns > now) {
		snprintf(text, len, "down: next start in %llu s",
			 (unsigned long long)((s->not_before_ns - now) / 1000000000ull + 1));
		return text;
	}
	return "down";
}

/* Where the Kubernetes names come from, and the first failure to read
 * them (caller holds the lock). */
static void write_k8s_state(const serve *sv, FILE *out)
{
	fputs("<p>Kubernetes names: ", out);
	if (!sv->k8s) {
		fputs("none (the processes' cgroup paths cannot be read whole)</p>\n", out);
		return;
	}
	fputs("read from the container runtimes' state under ", out);
	safe_fputs_html(sv->cfg.host_run, out);
	if (sv->k8s_problem[0]) {
		fprintf(out, "; containers without names: %zu; the first failure: ", sv->k8s_failed);
		safe_fputs_html(sv->k8s_problem, out);
	}
	fputs("</p>\n", out);
}

int serve_write_index(void *ctx, FILE *out)
{
	serve *sv = ctx;
	const serve_config *cfg = &sv->cfg;
	pthread_mutex_lock(&sv->lock);
	fputs("<h2>Targets</h2>\n<table>\n<tr><th>target</th><th>selector</th>"
	      "<th>processes</th></tr>\n", out);
	for (size_t t = 0; t < cfg->n_targets; t++) {
		fputs("<tr><td>", out);
		safe_fputs_html(cfg->targets[t].name, out);
		fprintf(out, "</td><td>%s=", discover_kind_name(cfg->targets[t].kind));
		safe_fputs_html(cfg->targets[t].value, out);
		fprintf(out, "</td><td>%zu</td></tr>\n", sv->matched[t]);
	}
	fputs("</table>\n", out);
	write_k8s_state(sv, out);
	fputs("<h2>bpftrace per spec and target</h2>\n<table>\n"
	      "<tr><th>spec</th><th>target</th><th>executable</th><th>pids</th>"
	      "<th>state</th><th>probes</th><th>starts</th><th>last error</th></tr>\n", out);
	for (size_t i = 0; i < sv->n_slots; i++) {
		const serve_slot *s = &sv->slots[i];
		char state[64];
		fputs("<tr><td>", out);
		safe_fputs_html(cfg->spec_names[s->spec], out);
		fputs("</td><td>", out);
		safe_fputs_html(cfg->targets[s->target].name, out);
		fputs("</td><td>", out);
		safe_fputs_html(s->exe, out);
		if (s->n_run_exes > 1)
			fprintf(out, " and %zu more", s->n_run_exes - 1);
		fputs("</td><td>", out);
		for (size_t k = 0; k < s->n_pids && k < 16; k++)
			fprintf(out, "%s%d", k ? " " : "", (int)s->pids[k]);
		if (s->n_pids > 16)
			fprintf(out, " (+%zu)", s->n_pids - 16);
		fprintf(out, "</td><td>%s</td><td>%u/%u</td><td>%llu</td><td>",
			slot_state(s, state, sizeof state), s->attached, s->expected,
			(unsigned long long)s->starts);
		safe_fputs_html(s->last_error, out);
		fputs("</td></tr>\n", out);
	}
	fprintf(out, "</table>\n<p>bpfspec %s, bpftrace %s, interval %.3g s</p>\n",
		BPFSPEC_VERSION, sv->bpftrace_version, (double)cfg->interval_ns / 1e9);
	pthread_mutex_unlock(&sv->lock);
	return ferror(out) ? -1 : 0;
}

/* The parent of PID, or 0. */
static pid_t parent_of(const char *proc_root, pid_t pid)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "%s/%d/stat", proc_root, (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char *got = fgets(line, sizeof line, f);
	fclose(f);
	char *close = got ? strrchr(line, ')') : NULL;	/* comm may hold ')' */
	int ppid = 0;
	if (!close || sscanf(close + 1, " %*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

/* The host's cgroup namespace: PID 1's, or where that cannot be read (a
 * sandbox whose PID 1 is another user namespace's), the outermost
 * ancestor's whose can.  Fills *NS and its path; returns -1 when none. */
static int host_cgroupns(const serve *sv, struct stat *ns, char *path, size_t len)
{
	snprintf(path, len, "%s/1/ns/cgroup", sv->cfg.proc_root);
	if (stat(path, ns) == 0)
		return 0;
	int found = -1;
	char p[64];
	for (pid_t pid = getppid(); pid > 1; pid = parent_of(sv->cfg.proc_root, pid)) {
		snprintf(p, sizeof p, "%s/%d/ns/cgroup", sv->cfg.proc_root, (int)pid);
		struct stat st;
		if (stat(p, &st) == 0) {
			*ns = st;
			snprintf(path, len, "%s", p);
			found = 0;
		}
	}
	return found;
}

void serve_host_cgroupns(serve *sv)
{
	struct stat mine, host;
	char path[64];
	sv->pod_labels = true;
	if (stat("/proc/self/ns/cgroup", &mine) < 0 ||
	    host_cgroupns(sv, &host, path, sizeof path) < 0 ||
	    (mine.st_dev == host.st_dev && mine.st_ino == host.st_ino))
		return;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && setns(fd, CLONE_NEWCGROUP) == 0) {
		close(fd);
		fprintf(stderr, "bpfspec serve: entered the host's cgroup namespace, to read "
				"processes' cgroup paths whole\n");
		return;
	}
	int saved = errno;
	if (fd >= 0)
		close(fd);
	sv->pod_labels = false;
	fprintf(stderr, "bpfspec serve: warning: runs in a cgroup namespace of its own and cannot "
			"enter the host's (%s): no pod_uid, container_id or Kubernetes name labels, "
			"and k8s-* targets match nothing; run it with hostPID and CAP_SYS_ADMIN, or "
			"privileged (docs/fleet.md)\n",
		strerror(saved));
}
