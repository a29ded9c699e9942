/* serve — `bpfspec serve`'s loop: scan, start and stop children, read
 * their reports, answer signals (serve.h). */
#include "serve/serve.h"
#include "serve/serve_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/btversion.h"
#include "run/runner.h"
#include "spec/spec.h"
#include "spec/spec_source.h"
#include "util/diag.h"
#include "util/safe.h"
#include "util/usage.h"
#include "util/version.h"

uint64_t serve_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A sealed memfd holding LEN bytes of TEXT (a spec as it loaded), or -1
 * after a message. */
static int snapshot(const char *arg, const char *text, size_t len)
{
	int fd = memfd_create("bpfspec-spec", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t done = 0;
	while (fd >= 0 && done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (fd < 0 || done < len ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		diag_error(NULL, "cannot keep a copy of '%s': %s", arg, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* What serve keeps of each spec as it loads (load_specs). */
typedef struct spec_facts {
	char names[SERVE_MAX_SPECS][64];
	int fds[SERVE_MAX_SPECS];
	bool alone[SERVE_MAX_SPECS];	/* serve_config.spec_alone */
	bool times[SERVE_MAX_SPECS];	/* serve_config.spec_times */
	bool files[SERVE_MAX_SPECS];	/* serve_config.spec_files */
} spec_facts;

/* Whether S's programs are for one executable each (serve_family.c):
 * span probes, stacks, and https read at OpenSSL's addresses in one
 * executable or its libssl (resolve_join refuses to share them). */
static bool spec_is_alone(const spec *s)
{
	for (size_t i = 0; i < s->n_probes; i++)
		if (s->probes[i].kind == PROBE_SPAN ||
		    spec_kind_needs_of(s->probes[i].kind)->tls_functions)
			return true;
	return s->stack_ns > 0;
}

/* Whether S times functions (its programs differ with libuv's order). */
static bool spec_times_functions(const spec *s)
{
	for (size_t i = 0; i < s->n_probes; i++)
		if (spec_kind_needs_of(s->probes[i].kind)->function)
			return true;
	return false;
}

/* Whether S's programs attach to the executables' files: it times
 * functions, or counts or records at uprobe or USDT points. */
static bool spec_uses_files(const spec *s)
{
	for (size_t i = 0; i < s->n_probes; i++) {
		const spec_probe *p = &s->probes[i];
		if (p->probe && (p->point == POINT_UPROBE || p->point == POINT_URETPROBE ||
				 p->point == POINT_USDT))
			return true;
	}
	return spec_times_functions(s) || spec_is_alone(s);
}

/* Loads every spec of CFG, to report a bad one before anything runs (and
 * before a reload replaces running children): into F, its name (two
 * specs may not share one: their series would fold), whether its programs
 * are for one executable each and whether it times functions, and for a file a
 * copy of the text that loaded into FDS (-1 for a bundled spec), which
 * the children read: a file edited later reaches them only through a
 * reload.  Returns 0, or -1 after the spec's own diagnostics (nothing
 * left open). */
static int load_specs(const serve_config *cfg, spec_facts *f)
{
	char (*names)[64] = f->names;
	int *fds = f->fds;
	size_t i;
	for (i = 0; i < cfg->n_specs; i++) {
		fds[i] = -1;
		spec *s = spec_source_load(cfg->specs[i], cfg->sets, cfg->n_sets);
		if (!s)
			break;
		snprintf(names[i], 64, "%s", s->name);
		f->alone[i] = spec_is_alone(s);
		f->times[i] = spec_times_functions(s);
		f->files[i] = spec_uses_files(s);
		if (!spec_source_is_bundled(cfg->specs[i]))
			fds[i] = snapshot(cfg->specs[i], s->src.text, s->src.len);
		spec_free(s);
		if (!spec_source_is_bundled(cfg->specs[i]) && fds[i] < 0)
			break;
		size_t k;
		for (k = 0; k < i && strcmp(names[k], names[i]) != 0; k++)
			;
		if (k < i) {
			diag_error("give each spec its own name (the `name:` of a copy)",
				   "'%s' and '%s' are both named '%s': their metrics would "
				   "fold together", cfg->specs[k], cfg->specs[i], names[i]);
			i++;
			break;
		}
	}
	if (i == cfg->n_specs)
		return 0;
	for (size_t k = 0; k <= i && k < cfg->n_specs; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	return -1;
}

/* Makes F the specs' (caller holds the lock): the old copies closed, and
 * serve's own gauges under a name that changed deleted. */
static void commit_specs(serve *sv, const spec_facts *f)
{
	serve_config *cfg = &sv->cfg;
	const char (*names)[64] = f->names;
	const int *fds = f->fds;
	for (size_t i = 0; i < cfg->n_specs; i++) {
		cfg->spec_alone[i] = f->alone[i];
		cfg->spec_times[i] = f->times[i];
		cfg->spec_files[i] = f->files[i];
		if (cfg->spec_fds[i] >= 0)
			close(cfg->spec_fds[i]);
		cfg->spec_fds[i] = fds[i];
		if (cfg->spec_names[i][0] && strcmp(cfg->spec_names[i], names[i]) != 0)
			for (size_t t = 0; t < cfg->n_targets; t++) {
				promstore_label l[] = { { "spec", cfg->spec_names[i] },
							{ "target", cfg->targets[t].name } };
				promstore_gauge_delete(sv->store, "bpfspec_up", l, 2);
				promstore_gauge_delete(sv->store, "bpfspec_probes_attached", l, 2);
			}
		snprintf(cfg->spec_names[i], sizeof cfg->spec_names[i], "%s", names[i]);
	}
}

/* The slot of spec SP on target T of FAMILY that takes a process of
 * EXE: one whose running child traces it in place, else one idle
 * (serve_family.c), else, at SERVE_MAX_FAMILY_SLOTS, the newest one (its
 * child then starts again on its files: scan), else NULL: a new one. */
static serve_slot *find_slot(serve *sv, size_t sp, size_t t, int family, serve_exe exe)
{
	serve_slot *idle = NULL, *newest = NULL;
	size_t n = 0;
	for (size_t i = 0; i < sv->n_slots; i++) {
		serve_slot *s = &sv->slots[i];
		if (s->spec != sp || s->target != t || s->family != family)
			continue;
		if (serve_family_traces(s, exe, sv->cfg.spec_files[sp]))
			return s;
		if (!idle && serve_family_idle(s))
			idle = s;
		if (!s->gone && (!newest || s->last_start_ns > newest->last_start_ns))
			newest = s;
		n += !s->gone;
	}
	if (idle || family == SERVE_FAMILY_ALONE)
		return idle;
	return n >= SERVE_MAX_FAMILY_SLOTS ? newest : NULL;
}

static serve_slot *add_slot(serve *sv, size_t sp, size_t t, int family, serve_exe exe)
{
	if (sv->n_slots == sv->cap_slots) {
		size_t cap = sv->cap_slots ? 2 * sv->cap_slots : 16;
		serve_slot *grown = realloc(sv->slots, cap * sizeof *grown);
		if (!grown)
			return NULL;
		sv->slots = grown;
		sv->cap_slots = cap;
	}
	serve_slot *s = &sv->slots[sv->n_slots++];
	memset(s, 0, sizeof *s);
	s->spec = sp;
	s->target = t;
	s->family = family;
	s->alone = exe;
	s->in_fd = s->out_fd = s->err_fd = -1;
	return s;
}

/* The executable's identity of PID, and its path (raw) in EXE. */
static int exe_of(const serve *sv, pid_t pid, struct stat *st, char *exe, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "%s/%d/exe", sv->cfg.proc_root, (int)pid);
	if (stat(path, st) < 0)
		return -1;
	ssize_t n = readlink(path, exe, len - 1);
	exe[n > 0 ? (size_t)n : 0] = '\0';
	return 0;
}

/* Sets the wanted pids of every slot of target T from the scan's M:
 * grouped by family (serve_family.c), new slots made for new families,
 * and slots no process is in any more marked gone. */
static void plan_target(serve *sv, size_t t, const discover_match *m)
{
	for (size_t i = 0; i < sv->n_slots; i++)
		if (sv->slots[i].target == t)
			sv->slots[i].n_pids = sv->slots[i].n_over = 0;
	for (size_t k = 0; k < m->n; k++) {
		struct stat st;
		char exe[256];
		if (exe_of(sv, m->pids[k], &st, exe, sizeof exe) < 0)
			continue;	/* gone, or no executable */
		if (st.st_dev == sv->self_dev && st.st_ino == sv->self_ino)
			continue;	/* bpfspec itself: another serve, a child */
		serve_exe id = { st.st_dev, st.st_ino };
		for (size_t p = 0; p < sv->cfg.n_specs; p++) {
			int family = serve_family_of(sv, p, m->pids[k], id);
			serve_slot *s = find_slot(sv, p, t, family, id);
			if (!s && !(s = add_slot(sv, p, t, family, id))) {
				fprintf(stderr, "bpfspec serve: out of memory: pid %d is not traced\n",
					(int)m->pids[k]);
				continue;
			}
			s->gone = false;
			if (s->n_pids == 0)
				snprintf(s->exe, sizeof s->exe, "%s", exe);
			if (s->n_pids < SERVE_MAX_PIDS) {
				s->pid_exes[s->n_pids] = id;
				s->pids[s->n_pids++] = m->pids[k];
			} else
				s->n_over++;
		}
	}
	for (size_t i = 0; i < sv->n_slots; i++)
		if (sv->slots[i].target == t && sv->slots[i].n_pids == 0)
			sv->slots[i].gone = true;
}

static void say_target_change(serve *sv, size_t t, size_t before, size_t now)
{
	const discover_target *tg = &sv->cfg.targets[t];
	if (now == 0 && (before > 0 || !sv->warned_empty[t])) {
		fprintf(stderr, "bpfspec serve: target '%s' (%s=", tg->name,
			discover_kind_name(tg->kind));
		safe_fputs(tg->value, stderr);
		fprintf(stderr, ") matches no process%s; it is scanned again every interval\n",
			sv->unreadable[t] ? " that could be read" : "");
		sv->warned_empty[t] = true;
	} else if (now != before && sv->cfg.verbose) {
		fprintf(stderr, "bpfspec serve: target '%s': %zu process%s\n", tg->name, now,
			now == 1 ? "" : "es");
	}
}

static void scan(serve *sv)
{
	discover_set set;
	if (discover_scan(sv->cfg.proc_root, sv->k8s, sv->cfg.targets, sv->cfg.n_targets, &set) < 0) {
		fprintf(stderr, "bpfspec serve: cannot scan %s: %s; the processes stay as the "
				"last scan found them (in a container: run it with hostPID and /proc "
				"mounted)\n", sv->cfg.proc_root, strerror(errno));
		return;
	}
	for (size_t t = 0; t < set.n; t++) {
		size_t before = sv->matched[t];
		pthread_mutex_lock(&sv->lock);
		plan_target(sv, t, &set.per[t]);
		sv->unreadable[t] = set.per[t].unreadable;
		sv->matched[t] = set.per[t].n;
		pthread_mutex_unlock(&sv->lock);
		say_target_change(sv, t, before, set.per[t].n);
	}
	discover_set_free(&set);
	pthread_mutex_lock(&sv->lock);
	if (sv->k8s)
		k8s_cache_sweep(sv->k8s);
	serve_k8s_note(sv);
	pthread_mutex_unlock(&sv->lock);
	for (size_t i = 0; i < sv->n_slots; i++) {
		serve_slot *s = &sv->slots[i];
		if (s->n_over && s->n_over != s->said_over)
			fprintf(stderr, "bpfspec serve: %s/%s: %zu processes beyond the first %d "
					"are not traced\n", sv->cfg.spec_names[s->spec],
				sv->cfg.targets[s->target].name, s->n_over, SERVE_MAX_PIDS);
		s->said_over = s->n_over;
		/* A process joins or leaves: the running child is told (no
		 * new bpftrace, no gap); a child that cannot be told starts
		 * again on the new set. */
		if (!s->child || s->stopping)
			continue;
		if (!s->gone && sv->cfg.spec_files[s->spec] && serve_family_new_exe(s)) {
			/* A new executable past SERVE_MAX_FAMILY_SLOTS (find_slot):
			 * its uprobes need a new program. */
			fprintf(stderr, "bpfspec serve: %s/%s: a process of an executable its "
					"bpftrace does not attach to, with %d bpftrace running for "
					"it already: starting the newest again\n",
				sv->cfg.spec_names[s->spec], sv->cfg.targets[s->target].name,
				SERVE_MAX_FAMILY_SLOTS);
			serve_child_stop(sv, s);
		} else if (s->gone || (!serve_churn_settled(s) && serve_churn_tell(sv, s) < 0)) {
			serve_child_stop(sv, s);
		}
	}
	pthread_mutex_lock(&sv->lock);
	serve_update_gauges(sv);
	pthread_mutex_unlock(&sv->lock);
}

/* Starts the children that should run; forgets gone slots whose child
 * has ended. */
static void start_due(serve *sv, bool stopping_all)
{
	uint64_t now = serve_now_ns();
	for (size_t i = 0; i < sv->n_slots; i++) {
		serve_slot *s = &sv->slots[i];
		if (s->child) {
			if (s->stopping)
				serve_child_stop(sv, s);	/* SIGKILL past the grace */
			continue;
		}
		if (s->gone) {
			pthread_mutex_lock(&sv->lock);
			*s = sv->slots[--sv->n_slots];
			serve_update_gauges(sv);
			pthread_mutex_unlock(&sv->lock);
			i--;
			continue;
		}
		if (!stopping_all && s->n_pids && now >= s->not_before_ns)
			serve_child_start(sv, s);
	}
}

static serve_slot *slot_of_child(serve *sv, pid_t pid)
{
	for (size_t i = 0; i < sv->n_slots; i++)
		if (sv->slots[i].child == pid)
			return &sv->slots[i];
	return NULL;
}

static void reap(serve *sv)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		serve_slot *s = slot_of_child(sv, pid);
		if (s)
			serve_child_ended(sv, s, status);
	}
}

static void reload(serve *sv)
{
	spec_facts f;
	fprintf(stderr, "bpfspec serve: SIGHUP: reading the specs again\n");
	if (load_specs(&sv->cfg, &f) < 0) {
		fprintf(stderr, "bpfspec serve: the specs above did not load: serve goes on with "
				"the specs it had\n");
		return;
	}
	pthread_mutex_lock(&sv->lock);
	commit_specs(sv, &f);
	serve_update_gauges(sv);
	for (size_t i = 0; i < sv->n_slots; i++) {
		sv->slots[i].failures = 0;	/* a new spec: no backoff left */
		sv->slots[i].not_before_ns = 0;
	}
	pthread_mutex_unlock(&sv->lock);
	for (size_t i = 0; i < sv->n_slots; i++)
		serve_child_stop(sv, &sv->slots[i]);
}

/* The descriptors the loop polls: the signals' first, then each open
 * pipe of a child, with the slot it belongs to (owned by the loop). */
typedef struct poll_set {
	struct pollfd *fds;
	serve_slot **owner;	/* of fds[k], k >= 1 */
	size_t n, cap;
} poll_set;

/* Fills PS with SIG_FD and the children's open pipes, growing it as
 * needed.  Returns 0, or -1 after a message when out of memory. */
static int poll_set_fill(poll_set *ps, serve *sv, int sig_fd)
{
	size_t want = 1 + 2 * sv->n_slots;
	if (want > ps->cap) {
		struct pollfd *f = realloc(ps->fds, want * sizeof *ps->fds);
		serve_slot **o = f ? realloc(ps->owner, want * sizeof *ps->owner) : NULL;
		if (f)
			ps->fds = f;
		if (!o) {
			fprintf(stderr, "bpfspec serve: out of memory\n");
			return -1;
		}
		ps->owner = o;
		ps->cap = want;
	}
	ps->n = 0;
	ps->fds[ps->n++] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
	for (size_t i = 0; i < sv->n_slots; i++) {
		serve_slot *s = &sv->slots[i];
		if (s->out_fd >= 0) {
			ps->owner[ps->n] = s;
			ps->fds[ps->n++] = (struct pollfd){ .fd = s->out_fd, .events = POLLIN };
		}
		if (s->err_fd >= 0) {
			ps->owner[ps->n] = s;
			ps->fds[ps->n++] = (struct pollfd){ .fd = s->err_fd, .events = POLLIN };
		}
	}
	return 0;
}

/* Reads what the children wrote on the pipes PS found ready; closes a
 * pipe at its end (reap() finishes the slot). */
static void read_children(serve *sv, const poll_set *ps)
{
	for (size_t k = 1; k < ps->n; k++) {
		if (!(ps->fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		serve_slot *s = ps->owner[k];
		if (!serve_child_read(sv, s, ps->fds[k].fd)) {
			/* End of output: the fd closes; reap() finishes the slot. */
			if (ps->fds[k].fd == s->out_fd) {
				close(s->out_fd);
				s->out_fd = -1;
			} else if (ps->fds[k].fd == s->err_fd) {
				close(s->err_fd);
				s->err_fd = -1;
			}
		}
	}
}

/* Answers the signals waiting on SIG_FD: SIGCHLD reaps, SIGHUP reloads,
 * the first SIGTERM or SIGINT stops every child and sets *STOPPING_ALL
 * and *STOP_BEGAN. */
static void take_signals(serve *sv, int sig_fd, bool *stopping_all, uint64_t *stop_began)
{
	struct signalfd_siginfo si;
	while (read(sig_fd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD)
			reap(sv);
		else if (si.ssi_signo == SIGHUP && !*stopping_all)
			reload(sv);
		else if ((si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) && !*stopping_all) {
			fprintf(stderr, "bpfspec serve: %s: stopping\n",
				strsignal((int)si.ssi_signo));
			*stopping_all = true;
			*stop_began = serve_now_ns();
			for (size_t i = 0; i < sv->n_slots; i++)
				serve_child_stop(sv, &sv->slots[i]);
		}
	}
}

/* True, while stopping, when every child has ended or the children have
 * had their grace and more since STOP_BEGAN. */
static bool stopped_all(const serve *sv, uint64_t stop_began)
{
	bool any = false;
	for (size_t i = 0; i < sv->n_slots; i++)
		any |= sv->slots[i].child != 0;
	return !any || serve_now_ns() - stop_began > SERVE_STOP_GRACE_NS + 2000000000ull;
}

/* Reads every child's output, signals and timers until SIGTERM/SIGINT;
 * then stops the children and waits for their last reports.  Returns
 * EXIT_OK, or EXIT_TRACER when it could not go on (said). */
static int loop(serve *sv, int sig_fd)
{
	bool stopping_all = false;
	uint64_t stop_began = 0;
	poll_set ps = { 0 };
	int rc = EXIT_OK;
	for (;;) {
		uint64_t now = serve_now_ns();
		if (!stopping_all && (sv->rescan || now >= sv->next_scan_ns)) {
			sv->rescan = false;
			sv->next_scan_ns = now + sv->cfg.interval_ns;
			scan(sv);
		}
		start_due(sv, stopping_all);
		if (stopping_all && stopped_all(sv, stop_began))
			break;
		if (poll_set_fill(&ps, sv, sig_fd) < 0) {
			rc = EXIT_TRACER;
			break;
		}
		if (poll(ps.fds, ps.n, 500) < 0 && errno != EINTR) {
			fprintf(stderr, "bpfspec serve: poll: %s\n", strerror(errno));
			rc = EXIT_TRACER;
			break;
		}
		read_children(sv, &ps);
		if (!(ps.fds[0].revents & POLLIN))
			continue;
		take_signals(sv, sig_fd, &stopping_all, &stop_began);
		reap(sv);
	}
	free(ps.fds);
	free(ps.owner);
	return rc;
}

/* What serve needs before its loop: bpftrace, specs, the listener. */
static int prepare(serve *sv, serve_http_web **web, serve_http **http)
{
	serve_config *cfg = &sv->cfg;
	if (cfg->bpftrace)
		setenv("BPFSPEC_BPFTRACE", cfg->bpftrace, 1);
	const char *bt = getenv("BPFSPEC_BPFTRACE");
	int major, minor;
	bool remembered;	/* when it can be kept, the runs serve starts find it */
	if (btversion_get(bt && *bt ? bt : "bpftrace", sv->bpftrace_version,
			  sizeof sv->bpftrace_version, &major, &minor, &remembered) < 0) {
		diag_error("install bpftrace (apt-get install bpftrace), or give --bpftrace PATH",
			   "cannot run '%s --version'", bt && *bt ? bt : "bpftrace");
		return EXIT_TRACER;
	}
	spec_facts f;
	if (load_specs(cfg, &f) < 0)
		return EXIT_SPEC;
	commit_specs(sv, &f);
	struct stat self;
	if (stat("/proc/self/exe", &self) == 0) {
		sv->self_dev = self.st_dev;
		sv->self_ino = self.st_ino;
	}
	if (cfg->web_config && !(*web = serve_http_web_load(cfg->web_config)))
		return EXIT_USAGE;
	if (!(sv->store = promstore_new())) {
		diag_error(NULL, "out of memory");
		return EXIT_TRACER;
	}
	promstore_label info[] = { { "version", BPFSPEC_VERSION },
				   { "bpftrace_version", sv->bpftrace_version } };
	promstore_gauge_set(sv->store, "bpfspec_build_info",
			    "bpfspec's version and the bpftrace it runs; always 1.", info, 2, 1);
	serve_host_cgroupns(sv);
	if (sv->pod_labels && !(sv->k8s = k8s_cache_new(cfg->host_run))) {
		diag_error(NULL, "out of memory");
		return EXIT_TRACER;
	}
	serve_update_gauges(sv);
	serve_http_config hc = { .listen = cfg->listen, .web = *web,
				 .metrics = serve_write_metrics, .index = serve_write_index,
				 .ctx = sv };
	char err[512];
	if (!(*http = serve_http_start(&hc, err, sizeof err))) {
		diag_error(NULL, "%s", err);
		return EXIT_USAGE;
	}
	fprintf(stderr, "bpfspec serve: listening on %s://%s/\n",
		*web && serve_http_web_tls(*web) ? "https" : "http", serve_http_address(*http));
	return EXIT_OK;
}

int serve_main(int argc, char **argv)
{
	serve sv;
	memset(&sv, 0, sizeof sv);
	int rc = serve_cli_parse(argc, argv, &sv.cfg);
	if (rc != EXIT_OK) {
		serve_config_free(&sv.cfg);
		return rc == EXIT_DONE ? EXIT_OK : rc;
	}
	diag_set_verbose(sv.cfg.verbose);
	pthread_mutex_init(&sv.lock, NULL);
	/* Signals arrive through a descriptor; blocked before any thread
	 * starts, so the HTTP thread never takes one. */
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &old);
	int sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	serve_http_web *web = NULL;
	serve_http *http = NULL;
	if (sig_fd < 0) {
		diag_error(NULL, "signalfd: %s", strerror(errno));
		rc = EXIT_TRACER;
	} else {
		rc = prepare(&sv, &web, &http);
	}
	if (rc == EXIT_OK) {
		fprintf(stderr, "bpfspec serve: ready: %zu spec%s, %zu target%s, interval %.3g s\n",
			sv.cfg.n_specs, sv.cfg.n_specs == 1 ? "" : "s", sv.cfg.n_targets,
			sv.cfg.n_targets == 1 ? "" : "s", (double)sv.cfg.interval_ns / 1e9);
		rc = loop(&sv, sig_fd);
		for (size_t i = 0; i < sv.n_slots; i++)
			if (sv.slots[i].child) {
				kill(sv.slots[i].child, SIGKILL);
				int status;
				waitpid(sv.slots[i].child, &status, 0);
				serve_child_ended(&sv, &sv.slots[i], status);
			}
	}
	serve_http_stop(http);
	serve_http_web_free(web);
	if (sig_fd >= 0)
		close(sig_fd);
	promstore_free(sv.store);
	k8s_cache_free(sv.k8s);
	for (size_t i = 0; i < sv.cfg.n_specs; i++)
		if (sv.cfg.spec_fds[i] >= 0)
			close(sv.cfg.spec_fds[i]);
	free(sv.slots);
	serve_config_free(&sv.cfg);
	pthread_mutex_destroy(&sv.lock);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
