/* report_load_why — attribution read back from a JSON report, through
 * the feature's load hooks (attribution.c; render/report_load_internal.h
 * is the loader's API). */
#ifndef BPFSPEC_REPORT_LOAD_WHY_H
#define BPFSPEC_REPORT_LOAD_WHY_H

#include "render/report_load_internal.h"

/* The optional "attribution" of latency probe P (OBJ at BASE: sets
 * P->attributed and P->split) and of each of its groups (P->groups,
 * loaded from OBJ's "groups": each one's split); nothing for a probe of
 * another kind.  Returns 0, or -1 after a diagnostic. */
int rl_load_attribution(loader *l, const json_t *obj, const char *base, report_probe *p);

/* The optional "blockers" of report ROOT: sets REP->attributed,
 * blocker_ns, blockers_dropped and the blockers.  Returns 0, or -1 after
 * a diagnostic. */
int rl_load_blockers(loader *l, const json_t *root, report *rep);

#endif
