/* resolve_needs — what a run needs beyond the probes' functions
 * (resolve_check_tracepoints, resolve.h): tracefs and the tracepoints the
 * probes use, kprobes, and a debug file where bpftrace finds it.  Each
 * missing piece is said with how to get it. */
#include "program/resolve.h"
#include "program/resolve_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/diag.h"

/* Where tracefs is mounted (its events directory there), or NULL. */
static const char *tracefs_root(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/events", roots[i]);
		if (access(path, F_OK) == 0)
			return roots[i];
	}
	return NULL;
}

/* The probe uses the tracepoint CAT:NAME (written into CAT and NAME). */
static bool tracepoint_of(const spec_probe *sp, char *cat, char *name, size_t size)
{
	if (!has_point(sp) || sp->point != POINT_TRACEPOINT)
		return false;
	const char *c = sp->probe + strlen("tracepoint:"), *n = strchr(c, ':');
	snprintf(cat, size, "%.*s", (int)(n - c), c);
	snprintf(name, size, "%s", n + 1);
	return true;
}

static bool kprobes_available(void)
{
	return access("/sys/bus/event_source/devices/kprobe", F_OK) == 0 ||
	       access("/sys/kernel/tracing/kprobe_events", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/kprobe_events", F_OK) == 0;
}

/* Says that RP's object is stripped and its debug file is not where
 * bpftrace looks (rp->tracer_path is set). */
static void say_debug_file_unseen(const resolved_probe *rp)
{
	const spec_probe *sp = rp->sp;
	char hint[PATH_MAX * 2 + 100];

	snprintf(hint, sizeof hint, "put the debug file where bpftrace looks: "
		 "ln -s %s %s (or install the package's -dbgsym)",
		 rp->debug_file, rp->tracer_path);
	diag_error(hint, "probe '%s': %s is stripped and its debug file %s is not "
		   "where bpftrace (libbcc) looks for one, so bpftrace would refuse "
		   "the address of '%s' (bpfspec never passes --unsafe)", sp->name,
		   rp->object, rp->debug_file, sp->function);
}

/* Checks what the active probes of R need beyond tracefs: a debug file
 * where bpftrace finds it, and kprobes for a kprobe.  Sets *NEEDED when
 * some probe needs tracefs, *SYSCALLS when one needs the syscall
 * tracepoints.  Returns 0, or -1 after a diagnostic for each fault. */
static int check_probe_needs(const resolved *r, bool *needed, bool *syscalls)
{
	char cat[80], name[80];
	int rc = 0;

	for (size_t i = 0; i < r->n_probes; i++) {
		const resolved_probe *rp = &r->probes[i];
		const spec_probe *sp = rp->sp;
		if (!rp->active)
			continue;
		if (rp->tracer_path) {
			say_debug_file_unseen(rp);
			rc = -1;
		}
		const spec_kind_needs *needs = spec_kind_needs_of(sp->kind);
		if (needs->syscall_tracepoints)
			*needed = *syscalls = true;
		if (needs->loop_waits)
			*needed = true;
		if (tracepoint_of(sp, cat, name, sizeof cat))
			*needed = true;
		if (has_point(sp) && (sp->point == POINT_KPROBE || sp->point == POINT_KRETPROBE) &&
		    !kprobes_available()) {
			diag_error("count a tracepoint instead (`bpftrace -l 'tracepoint:*'` lists "
				   "them), or run on a kernel built with CONFIG_KPROBES",
				   "probe '%s': kprobes are not available on this kernel "
				   "(CONFIG_KPROBES is off): no /sys/bus/event_source/devices/kprobe "
				   "or kprobe_events", sp->name);
			rc = -1;
		}
	}
	return rc;
}

/* Where tracefs is mounted, readable, with the syscall tracepoints when
 * SYSCALLS; NULL after a diagnostic when it is not. */
static const char *usable_tracefs(bool syscalls)
{
	const char *root;
	char path[256];

	if (access("/sys/kernel/tracing", X_OK) != 0 && errno == EACCES) {
		diag_error("run bpfspec as root (tracing needs CAP_SYS_ADMIN, or CAP_BPF with "
			   "CAP_PERFMON, and read access to tracefs)",
			   "cannot read /sys/kernel/tracing: permission denied");
		return NULL;
	}
	if (!(root = tracefs_root()) ||
	    (syscalls && (snprintf(path, sizeof path, "%s/events/raw_syscalls/sys_enter", root),
			  access(path, F_OK) != 0))) {
		diag_error("mount it (as root): mount -t tracefs nodev /sys/kernel/tracing",
			   "%s tracepoints are unavailable: tracefs is not mounted "
			   "(no /sys/kernel/tracing/events%s)", syscalls ? "syscall" : "kernel",
			   syscalls ? "/raw_syscalls" : "");
		return NULL;
	}
	return root;
}

/* Checks that the syscall tracepoints of the loop's waits exist under
 * tracefs ROOT for every active probe of R that reads them.  Returns 0,
 * or -1 after a diagnostic for each probe that lacks one. */
static int check_loop_waits(const resolved *r, const char *root)
{
	char path[256];
	int rc = 0;

	for (size_t i = 0; i < r->n_probes; i++) {
		const spec_probe *sp = r->probes[i].sp;
		if (!r->probes[i].active || !spec_kind_needs_of(sp->kind)->loop_waits)
			continue;
		for (size_t k = 0; spec_loop_waits[k]; k++) {
			snprintf(path, sizeof path, "%s/events/syscalls/sys_enter_%s", root,
				 spec_loop_waits[k]);
			if (access(path, F_OK) == 0)
				continue;
			diag_error("utilization needs the kernel's syscall tracepoints "
				   "(CONFIG_FTRACE_SYSCALLS) and a kernel with epoll_pwait2 (5.11 or "
				   "later); use a syscalls probe on epoll_pwait instead",
				   "probe '%s': tracepoint syscalls:sys_enter_%s does not exist on this "
				   "kernel (no %s)", sp->name, spec_loop_waits[k], path);
			rc = -1;
			break;
		}
	}
	return rc;
}

/* Checks that the tracepoint of every active tracepoint probe of R
 * exists under tracefs ROOT.  Returns 0, or -1 after a diagnostic for
 * each one that does not. */
static int check_tracepoints_exist(const resolved *r, const char *root)
{
	char cat[80], name[80], path[256];
	int rc = 0;

	for (size_t i = 0; i < r->n_probes; i++) {
		const spec_probe *sp = r->probes[i].sp;
		if (!r->probes[i].active || !tracepoint_of(sp, cat, name, sizeof cat))
			continue;
		snprintf(path, sizeof path, "%s/events/%s/%s", root, cat, name);
		if (access(path, F_OK) == 0)
			continue;
		char hint[200];
		snprintf(hint, sizeof hint, "check the name: `bpftrace -l 'tracepoint:%s:*'` lists "
			 "the tracepoints of that category", cat);
		diag_error(hint, "probe '%s': tracepoint '%s' does not exist on this kernel (no %s)",
			   sp->name, sp->probe, path);
		rc = -1;
	}
	return rc;
}

int resolve_check_tracepoints(const resolved *r)
{
	bool needed = false, syscalls = false;
	const char *root;
	int rc = check_probe_needs(r, &needed, &syscalls);

	if (!needed)
		return rc;
	if (!(root = usable_tracefs(syscalls)))
		return -1;
	if (check_loop_waits(r, root) < 0)
		rc = -1;
	if (check_tracepoints_exist(r, root) < 0)
		rc = -1;
	return rc;
}
