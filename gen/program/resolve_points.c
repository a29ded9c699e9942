/* resolve_points — the functions a kind's probe points name in the
 * target (resolve_internal.h): a span's uprobe and uretprobe points on
 * OBJECT main are looked up in the target's executable before the run.
 * bpftrace up to 0.23 drops a uprobe on a missing symbol without a word
 * (../shared/PLATFORM.md), which would leave a stage that never ends and
 * a report of nothing; the error here names the pid, the file and the
 * symbol instead. */
#include <stdio.h>
#include <string.h>

#include "program/resolve.h"
#include "program/resolve_internal.h"
#include "target/debuginfo.h"
#include "target/symtab.h"
#include "util/diag.h"

/* The symbol of point PT when it is a uprobe or uretprobe on OBJECT
 * main, else NULL. */
static const char *main_symbol(const spec_span_point *pt)
{
	if (pt->point != POINT_UPROBE && pt->point != POINT_URETPROBE)
		return NULL;
	const char *obj = strchr(pt->probe, ':') + 1, *rest = strchr(obj, ':');
	return rest - obj == 4 && memcmp(obj, "main", 4) == 0 ? rest + 1 : NULL;
}

/* Checks probe RP's points against the target's executable T->exe.
 * Returns 0, or -1 after a diagnostic per missing symbol. */
static int check_probe_points(const resolved_probe *rp, const target *t)
{
	const spec_probe *sp = rp->sp;
	symtab_query q[SPEC_MAX_SPAN_POINTS];
	size_t at[SPEC_MAX_SPAN_POINTS], nq = 0;
	debuginfo_outcome out;
	char err[256];
	int failed = 0;

	for (size_t i = 0; i < sp->n_points && nq < SPEC_MAX_SPAN_POINTS; i++) {
		const char *sym = main_symbol(&sp->points[i]);
		if (sym) {
			q[nq] = (symtab_query){ .name = sym };
			at[nq++] = i;
		}
	}
	if (nq == 0)
		return 0;
	char who[4200];	/* "pid N (EXE)", or EXE without a process */
	if (t->pid > 0)
		snprintf(who, sizeof who, "pid %ld (%s)", (long)t->pid, t->exe);
	else
		snprintf(who, sizeof who, "%s", t->exe);
	if (debuginfo_resolve(t->exe, q, nq, &out, err, sizeof err) < 0) {
		diag_error("check that the process still runs", "%s: cannot read its symbols "
			   "for probe '%s': %s", who, sp->name, err);
		debuginfo_outcome_free(&out);
		return -1;
	}
	for (size_t j = 0; j < nq; j++)
		if (q[j].n_matches == 0) {
			diag_error("a point on OBJECT main names a function of the target's executable; "
				   "when the function lives in a library (a node linking libuv.so "
				   "dynamically: Debian's nodejs), write the library's absolute path in "
				   "the point instead of main (a static function of a stripped library "
				   "needs its debug symbols: libuv1-dbgsym for Debian's libuv)",
				   "%s: no function %s for point %zu of probe '%s' (%s)",
				   who, q[j].name, at[j] + 1, sp->name,
				   out.info.has_symtab ? ".symtab and .dynsym searched"
						       : "the file is stripped");
			failed = 1;
		}
	symtab_query_free(q, nq);
	debuginfo_outcome_free(&out);
	return failed ? -1 : 0;
}

int resolve_check_points(const resolved *r)
{
	int failed = 0;
	for (size_t i = 0; r->tg && r->tg->exe && i < r->n_probes; i++) {
		const resolved_probe *rp = &r->probes[i];
		if (rp->active && spec_kind_needs_of(rp->sp->kind)->point_symbols &&
		    check_probe_points(rp, r->tg) < 0)
			failed = 1;
	}
	return failed ? -1 : 0;
}
