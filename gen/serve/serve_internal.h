/* serve_internal — the state `bpfspec serve` shares between its modules
 * (serve.c: the loop; serve_cli.c: the options; serve_child.c: the
 * children; serve_labels.c: labels, self-metrics and the status page).
 * Not for other modules.
 *
 * Locking: the HTTP thread reads the store and the slots' state under
 * sv->lock; the loop's thread takes it to change either.  Everything
 * else (pipes, buffers) is the loop's alone. */
#ifndef BPFSPEC_SERVE_INTERNAL_H
#define BPFSPEC_SERVE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/report.h"
#include "serve/promstore.h"
#include "serve/serve_http.h"
#include "target/discover.h"
#include "util/buf.h"
#include "util/child.h"

#define SERVE_MAX_SPECS 32
#define SERVE_MAX_TARGETS 64
#define SERVE_MAX_PIDS 64	/* per child: `bpfspec run` takes at most 64 -p */
/* Processes a slot labels: those its child traces, and those that left
 * it, until their last interval is in (serve_churn.c). */
#define SERVE_MAX_LABELLED (2 * SERVE_MAX_PIDS)
#define SERVE_MAX_SETS 64
#define SERVE_MAX_UV_ORDERS 64	/* executables whose libuv serve remembers */
/* Slots (bpftraces) of one spec, target and family at most: a rollout
 * runs the old image's and the new one's side by side; a third file
 * while both run starts the newest slot's child again on its files. */
#define SERVE_MAX_FAMILY_SLOTS 2
#define SERVE_DEFAULT_INTERVAL_NS 10000000000ull
#define SERVE_MIN_INTERVAL_NS 1000000000ull
#define SERVE_BACKOFF_MAX_S 60
#define SERVE_STOP_GRACE_NS 10000000000ull	/* SIGTERM, then SIGKILL */

typedef struct serve_config {
	const char *specs[SERVE_MAX_SPECS];	/* as given: files or bundled names */
	size_t n_specs;
	/* Each spec's name (its `name:`, the reports' and the labels'),
	 * read at start and at each reload that loads; owned. */
	char spec_names[SERVE_MAX_SPECS][64];
	/* A copy of each spec file's text as it last loaded (a sealed
	 * memfd), which the children read; -1 for a bundled spec; owned. */
	int spec_fds[SERVE_MAX_SPECS];
	/* Each spec's programs are for one executable each (stacks, spans:
	 * resolve_join refuses them); else one program traces every
	 * executable of a target (with libuv on one side of 1.45). */
	bool spec_alone[SERVE_MAX_SPECS];
	bool spec_times[SERVE_MAX_SPECS];	/* it times functions (libuv matters) */
	/* Its programs have uprobes or USDT probes, which are placed on the
	 * executables' files: a process of a new file needs a new program.
	 * A spec of kernel probes alone takes any process in place. */
	bool spec_files[SERVE_MAX_SPECS];
	discover_target targets[SERVE_MAX_TARGETS];	/* owned */
	size_t n_targets;
	char *sets[SERVE_MAX_SETS];	/* --set NAME=VALUE, for every spec */
	size_t n_sets;
	const char *listen;	/* NULL: SERVE_HTTP_DEFAULT_LISTEN */
	const char *web_config;	/* NULL: plain HTTP, no auth */
	const char *bpftrace;	/* NULL: $BPFSPEC_BPFTRACE or "bpftrace" */
	const char *proc_root;	/* "/proc" */
	const char *host_run;	/* the host's /run as serve sees it (--host-run) */
	uint64_t interval_ns;
	bool pid_label;		/* --pid-label */
	bool verbose;
} serve_config;

/* A process's pod labels, read when its child starts. */
typedef struct serve_pod {
	pid_t pid;
	bool in_pod;
	discover_pod pod;
	bool has_names;		/* names were read (in_pod only) */
	k8s_names names;
} serve_pod;

/* An executable file. */
typedef struct serve_exe {
	dev_t dev;
	ino_t ino;
} serve_exe;

/* The processes of a target one program traces: of one executable
 * (SERVE_FAMILY_ALONE), or of every executable whose libuv is 1.45 or
 * later (or unknown), or of every one whose libuv is older. */
enum { SERVE_FAMILY_ALONE, SERVE_FAMILY_UV_NEW, SERVE_FAMILY_UV_OLD };

/* One spec on one target's processes of one family of executables: one
 * bpftrace for all of them (serve_family.c). */
typedef struct serve_slot {
	size_t spec, target;	/* indices into the config */
	int family;		/* SERVE_FAMILY_* */
	serve_exe alone;	/* the executable, for SERVE_FAMILY_ALONE */
	char exe[256];		/* the first executable, raw, for messages */
	/* The executable of each wanted pid (pid_exes[i]: pids[i]'s), and
	 * those the running child's program attaches to: a process of
	 * another one needs a new program. */
	serve_exe pid_exes[SERVE_MAX_PIDS];
	serve_exe run_exes[SERVE_MAX_PIDS];
	size_t n_run_exes;
	pid_t pids[SERVE_MAX_PIDS];	/* wanted (the last scan), ascending */
	size_t n_pids;
	size_t n_over;		/* matched beyond SERVE_MAX_PIDS: not traced */
	size_t said_over;	/* n_over when it was last said */
	/* What the running child traces, then the processes that left it
	 * (serve_churn.c): their threads keep their labels until the
	 * reports of the intervals they were in have come. */
	pid_t run_pids[SERVE_MAX_LABELLED];
	size_t n_run;
	serve_pod pods[SERVE_MAX_LABELLED];	/* of run_pids */
	pid_t left[SERVE_MAX_PIDS];	/* of run_pids: no longer traced */
	size_t n_left;
	unsigned left_reports;	/* reports to come before they are forgotten */
	pid_t child;		/* 0: none running */
	int in_fd;		/* the child's stdin: "+PID", "-PID" lines; -1: closed */
	int out_fd, err_fd;	/* -1: closed */
	line_buffer out_line, err_line;	/* a line read in part */
	bool up;		/* the child delivered a report since it started */
	bool stopping;		/* SIGTERM sent (restart, reload or removal) */
	uint64_t stop_sent_ns;
	bool gone;		/* no process left: removed once the child ends */
	unsigned failures;	/* in a row; a report resets them */
	uint64_t not_before_ns;	/* no start before (backoff) */
	uint64_t last_start_ns;
	uint64_t starts;
	unsigned attached, expected;	/* probes, from the last report */
	char last_error[256];	/* the child's last error line, raw */
} serve_slot;

typedef struct serve {
	serve_config cfg;
	dev_t self_dev;		/* this binary's file: never a target */
	ino_t self_ino;
	char bpftrace_version[32];
	pthread_mutex_t lock;
	promstore *store;
	serve_slot *slots;
	size_t n_slots, cap_slots;
	size_t matched[SERVE_MAX_TARGETS];	/* processes per target, last scan */
	size_t unreadable[SERVE_MAX_TARGETS];
	bool warned_empty[SERVE_MAX_TARGETS];
	uint64_t next_scan_ns;
	bool rescan;		/* scan at the next turn of the loop */
	uint64_t last_scrape_ns;	/* the previous scrape's duration */
	bool pod_labels;	/* cgroup paths are seen from the host's namespace */
	k8s_cache *k8s;		/* the containers' Kubernetes names; NULL: none */
	/* What the status page shows of the names (under the lock): the
	 * first failure to read them, raw, and how many containers have
	 * none; k8s_said once it is on stderr. */
	char k8s_problem[K8S_WHY_MAX];
	size_t k8s_failed;
	bool k8s_said;
	/* The libuv order (SERVE_FAMILY_UV_*) of the executables seen last,
	 * read once each (serve_family.c). */
	struct {
		serve_exe exe;
		int family;
	} uv_orders[SERVE_MAX_UV_ORDERS];
	size_t n_uv_orders, next_uv_order;
} serve;

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t serve_now_ns(void);

/* serve_cli.c: parses ARGV[1..ARGC) into CFG (targets owned: free with
 * serve_config_free).  Returns EXIT_OK, EXIT_DONE after --help, or
 * EXIT_USAGE after a message. */
int serve_cli_parse(int argc, char **argv, serve_config *cfg);
void serve_config_free(serve_config *cfg);
extern const char serve_help_text[];

/* serve_child.c.  Starts SLOT's child on its wanted pids.  Returns 0, or
 * -1 after a message (the slot is then backed off). */
int serve_child_start(serve *sv, serve_slot *slot);
/* Asks the child to end (SIGTERM) once; SIGKILL after the grace. */
void serve_child_stop(serve *sv, serve_slot *slot);
/* serve_churn.c.  Tells SLOT's running child which processes join and
 * leave, so that its traced set becomes the wanted pids without a new
 * bpftrace.  Returns 0, or -1 when the child could not be told (it is
 * then to be restarted). */
int serve_churn_tell(serve *sv, serve_slot *slot);
/* Whether SLOT's child traces exactly its wanted pids. */
bool serve_churn_settled(const serve_slot *slot);
/* A report of SLOT came in: the processes that left it are forgotten
 * after the reports of the intervals they were in (caller holds the
 * lock). */
void serve_churn_reported(serve_slot *slot);
/* Reads the pod labels of P->pid into P (caller holds the lock). */
void serve_read_pod(serve *sv, serve_pod *p, pid_t pid);

/* serve_family.c.  The family (SERVE_FAMILY_*) of process PID, which
 * runs executable EXE, for spec SPEC. */
int serve_family_of(serve *sv, size_t spec, pid_t pid, serve_exe exe);
/* Whether SLOT's running child (not stopping) traces a process of
 * executable EXE in place: its program attaches to EXE, or is of kernel
 * probes alone (FILES false), or SLOT is of EXE alone
 * (SERVE_FAMILY_ALONE, whatever its child does). */
bool serve_family_traces(const serve_slot *slot, serve_exe exe, bool files);
/* Whether SLOT (of several executables, still wanted) has no running
 * child, or one stopping: its next child starts on all its processes,
 * whatever their files.  A process no running child traces goes to such
 * a slot, else to a new slot whose child starts beside the running ones
 * (make before break): the processes already traced are not untraced
 * while it attaches, and the old child ends with its last process. */
bool serve_family_idle(const serve_slot *slot);
/* Whether a wanted process of SLOT runs an executable its running child's
 * program does not attach to (it must start again). */
bool serve_family_new_exe(const serve_slot *slot);
/* Takes the executables of SLOT's wanted pids as its child's (it starts
 * on them). */
void serve_family_started(serve_slot *slot);

/* Reads what the child wrote; adds each complete report.  Returns false
 * at the end of its output. */
bool serve_child_read(serve *sv, serve_slot *slot, int fd);
/* Handles the end of SLOT's child with wait STATUS: reads what is left,
 * marks the slot down and plans its restart. */
void serve_child_ended(serve *sv, serve_slot *slot, int status);

/* serve_labels.c.  The labeler of SLOT's reports (one at a time: its
 * context is static). */
promstore_labeler serve_labeler(serve *sv, serve_slot *slot);
/* The labeler's function, on a serve_label_ctx (promstore.h's contract):
 * target always; thread_role main for a traced pid's main thread; pod_uid,
 * container_id and the Kubernetes names of the thread's process (tid 0:
 * of every process of the slot, when they share one container); pid with
 * --pid-label (tid 0: when the slot traces one process). */
typedef struct serve_label_ctx {
	serve *sv;
	serve_slot *slot;
} serve_label_ctx;
int serve_label_thread(void *ctx, const report *rep, long tid, const char *thread,
		       promstore_labelset *out);
/* Reads the pod labels and Kubernetes names of SLOT's run_pids (caller
 * holds the lock). */
void serve_read_pods(serve *sv, serve_slot *slot);
/* Takes the names' state for the status page (caller holds the lock), and
 * says the first failure to read names on stderr, once. */
void serve_k8s_note(serve *sv);
/* Sets bpfspec_up, bpfspec_probes_attached and bpfspec_targets from the
 * slots (caller holds the lock). */
void serve_update_gauges(serve *sv);
/* The HTTP callbacks. */
int serve_write_metrics(void *ctx, FILE *out);
int serve_write_index(void *ctx, FILE *out);
/* Enters the host's cgroup namespace when serve runs in another one and
 * may leave it; says once when pod labels cannot be read.  Sets
 * sv->pod_labels. */
void serve_host_cgroupns(serve *sv);

#endif
