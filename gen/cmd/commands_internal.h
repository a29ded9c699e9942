/* commands_internal — what the commands (commands.c, trace.c) share:
 * the runbook conditions of a run (--fail-if and the spec's checks) and
 * the writing of reports in the chosen format.  Not for other modules. */
#ifndef BPFSPEC_COMMANDS_INTERNAL_H
#define BPFSPEC_COMMANDS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/cli.h"
#include "model/condition.h"
#include "model/report.h"
#include "spec/spec.h"

/* The conditions a run or a diff is judged by (owned). */
typedef struct condition_set {
	condition *items[2 * MAX_CHECKS];
	size_t n;
} condition_set;

void condition_set_free(condition_set *cs);

/* Parses CFG's --fail-if conditions into CS (before any tracing); a
 * relative one (+N%) only when ALLOW_RELATIVE (diff).  Returns EXIT_OK,
 * or EXIT_USAGE after a message pointing into the condition. */
int parse_cli_checks(const settings *cfg, condition_set *cs, bool allow_relative);

/* Adds spec S's own checks (already validated by the loader) to CS.
 * Returns 0, or -1 after saying why. */
int add_spec_checks(const spec *s, condition_set *cs);

/* Evaluates every check of CS on AFTER (against BEFORE when not NULL:
 * diff) and says each that failed, LABEL after "check failed".  Returns
 * how many failed, or -1 when one could not be evaluated (said). */
int run_checks(const condition_set *cs, const report *before, const report *after,
	       const char *label);

/* Writes REPS[0..N) to CFG's output, replaced whole or nothing
 * (util/output.h): in a whole-run format (HTML, trace) one file of them
 * all, else each in turn, the first being interval INDEX of a stream when
 * STREAM (text sections, JSON lines); FINAL: the stream's last.  Returns
 * 0, or -1 after saying why. */
int write_reports(const settings *cfg, const report *const *reps, size_t n, bool stream,
		  size_t index, bool final);

#endif
