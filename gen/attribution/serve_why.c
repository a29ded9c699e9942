/* serve_why — attribution's series in serve's store (serve_why.h). */
#include "attribution/serve_why.h"

#include "serve/promstore_plan.h"

static const ps_family_def cause_family = {
	"bpfspec_phase_cause_seconds_total",
	"Time of an attributed probe's calls by cause: on_cpu, waiting_for_cpu, blocked_syscall, "
	"off_cpu_other.", PS_COUNTER, true
};
static const ps_family_def blocked_family = {
	"bpfspec_phase_syscall_blocked_seconds_total",
	"Time an attributed probe's calls slept inside the syscall.", PS_COUNTER, true
};
static const ps_family_def blockers_family = {
	"bpfspec_loop_blockers_total",
	"Loop blockers: syscalls at least the spec's blockers threshold long made inside "
	"attributed probes' calls.", PS_COUNTER, false
};
const ps_family_def *const serve_why_families[] = { &cause_family, &blocked_family,
						    &blockers_family, NULL };

int serve_why_group(ps_add *a, const report_probe *p, const report_group *g, const char *labels)
{
	static const char *const causes[] = { "on_cpu", "waiting_for_cpu", "blocked_syscall",
					      "off_cpu_other" };
	const report_split *sp = g->split;

	if (!p->attributed || !sp)
		return 0;
	const uint64_t ns[] = { sp->cpu_ns, sp->wait_ns, sp->blocked_ns, sp->other_ns };
	for (size_t c = 0; c < sizeof causes / sizeof *causes; c++)
		if (ps_plan(a, &cause_family, labels, "cause", causes[c], NULL, NULL, ns[c], NULL) < 0)
			return -1;
	for (size_t i = 0; i < sp->n_syscalls; i++) {
		const report_why_syscall *w = &sp->syscalls[i];
		if (w->blocked_ns && ps_plan(a, &blocked_family, labels, "syscall", w->name, NULL,
					     NULL, w->blocked_ns, NULL) < 0)
			return -1;
	}
	return 0;
}

int serve_why_report(ps_add *a, const report *rep, const char *whole)
{
	if (!rep->attributed)
		return 0;
	uint64_t n = rep->n_blockers + rep->blockers_dropped;
	if (n < rep->blockers_dropped)
		n = UINT64_MAX;
	return ps_plan(a, &blockers_family, whole, NULL, NULL, NULL, NULL, n, NULL);
}
