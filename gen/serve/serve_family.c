/* serve_family — which processes of a target one bpftrace traces
 * (serve_internal.h).  A spec whose program is written for one executable
 * (it samples stacks, has span probes, or reads https in OpenSSL:
 * resolve_join refuses them) gets
 * a slot per executable; any other gets one slot per target for all its
 * executables, split only where libuv's loop order changed (1.45), which
 * changes the program's derived phases: the child's `bpfspec run` is
 * given processes of several executables and makes one program with
 * uprobes on each file.
 *
 * A process of an executable the running program does not attach to
 * (a new node image on the host, in a rollout) needs a new program: it
 * goes to a new slot of the same spec and target, whose child starts
 * beside the running one, so the processes already traced stay traced;
 * the old slot ends with its last process.  Past SERVE_MAX_FAMILY_SLOTS
 * slots of one family, the newest slot's child starts again on all its
 * files instead (serve.c).  A process of an executable already traced
 * joins in place (serve_churn.c). */
#include "serve/serve_internal.h"

#include <stdio.h>

#include "target/libuv.h"
#include "target/target.h"

static bool same_exe(serve_exe a, serve_exe b)
{
	return a.dev == b.dev && a.ino == b.ino;
}

/* The libuv order of PID's executable, read from its file, or from the
 * libraries it maps when the executable has no libuv. */
static int read_uv_order(const serve *sv, pid_t pid)
{
	char path[64], version[64];
	snprintf(path, sizeof path, "%s/%d/exe", sv->cfg.proc_root, (int)pid);
	int rc = libuv_version(path, version, sizeof version);
	if (rc < 0) {
		target *t = target_from_pid(pid);
		rc = t ? libuv_target_version(t, version, sizeof version, NULL) : -1;
		target_free(t);
	}
	unsigned major, minor;
	if (rc < 0 || sscanf(version, "%u.%u", &major, &minor) != 2)
		return SERVE_FAMILY_UV_NEW;	/* unknown: as resolve takes it */
	return major > 1 || (major == 1 && minor >= 45) ? SERVE_FAMILY_UV_NEW
							: SERVE_FAMILY_UV_OLD;
}

int serve_family_of(serve *sv, size_t spec, pid_t pid, serve_exe exe)
{
	if (sv->cfg.spec_alone[spec])
		return SERVE_FAMILY_ALONE;
	if (!sv->cfg.spec_times[spec])
		return SERVE_FAMILY_UV_NEW;
	for (size_t i = 0; i < sv->n_uv_orders; i++)
		if (same_exe(sv->uv_orders[i].exe, exe))
			return sv->uv_orders[i].family;
	int family = read_uv_order(sv, pid);
	size_t at = sv->n_uv_orders < SERVE_MAX_UV_ORDERS ? sv->n_uv_orders++
							  : sv->next_uv_order++ % SERVE_MAX_UV_ORDERS;
	sv->uv_orders[at].exe = exe;
	sv->uv_orders[at].family = family;
	return family;
}

/* Whether S's running child's program attaches to EXE. */
static bool attaches(const serve_slot *s, serve_exe exe)
{
	for (size_t k = 0; k < s->n_run_exes; k++)
		if (same_exe(s->run_exes[k], exe))
			return true;
	return false;
}

bool serve_family_traces(const serve_slot *s, serve_exe exe, bool files)
{
	if (s->family == SERVE_FAMILY_ALONE)
		return same_exe(s->alone, exe);
	return s->child && !s->stopping && (!files || attaches(s, exe));
}

bool serve_family_idle(const serve_slot *s)
{
	return s->family != SERVE_FAMILY_ALONE && !s->gone && (!s->child || s->stopping);
}

bool serve_family_new_exe(const serve_slot *s)
{
	for (size_t i = 0; i < s->n_pids; i++)
		if (!attaches(s, s->pid_exes[i]))
			return true;
	return false;
}

void serve_family_started(serve_slot *s)
{
	s->n_run_exes = 0;
	for (size_t i = 0; i < s->n_pids; i++) {
		size_t k;
		for (k = 0; k < s->n_run_exes && !same_exe(s->run_exes[k], s->pid_exes[i]); k++)
			;
		if (k == s->n_run_exes)
			s->run_exes[s->n_run_exes++] = s->pid_exes[i];
	}
}
