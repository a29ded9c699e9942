/* condition — runbook conditions on reports: "poll.p99 > 100ms".
 *
 * Grammar (whitespace allowed around the operator):
 *   condition := path op value
 *   path      := probe "." stat
 *              | probe "." syscall "." stat          (syscalls probes)
 *   stat      := count | sum | min | max | mean | p50 | p90 | p99
 *              | errors | errors "." ERRNO            (syscalls: e.g. errors.ENOENT)
 *              | lost                                 (the report's lost events)
 *   op        := ">" | ">=" | "<" | "<=" | "==" | "!="
 *   value     := number [unit]      unit: ns us ms s (durations; default ns)
 *              | ("+"|"-") number "%"   relative change, only with diffs
 * probe, syscall: [a-z][a-z0-9_]*; ERRNO: E[A-Z0-9]*.
 * A condition that holds is a failure ("--fail-if").  A probe or syscall
 * with no calls in the window reads 0 for every statistic (nothing was
 * slow, nothing failed).
 *
 * Ownership: condition_parse returns an owned condition or NULL (message in ERR);
 * condition_free(NULL) is a no-op. */
#ifndef BPFSPEC_CONDITION_H
#define BPFSPEC_CONDITION_H

#include <stdbool.h>
#include <stddef.h>

/* report.h's report: only pointed to here, so this header includes
 * nothing of bpfspec's (spec.c parses checks without the report model). */
struct report;

typedef struct condition condition;

/* Parses TEXT.  On error returns NULL and writes "column N: what is wrong"
 * (1-based column) into ERR (size ERRLEN). */
condition *condition_parse(const char *text, char *err, size_t errlen);

void condition_free(condition *c);

/* The condition as written. Borrowed. */
const char *condition_text(const condition *c);

/* True when the value is a relative change ("+20%"): usable with diffs only. */
bool condition_is_relative(const condition *c);

/* Evaluates C on REP.  Returns 1 when the condition holds (the check
 * fails), 0 when it does not, -1 when it cannot be evaluated (the probe,
 * syscall or stat is not in the report, or a relative check): WHY (size
 * LEN) then says which.  On 0 and 1, WHY shows the value, e.g.
 * "poll.p99 = 132.4ms > 100ms". */
int condition_eval(const condition *c, const struct report *rep, char *why, size_t len);

/* Like condition_eval on AFTER, but a relative value compares AFTER with
 * BEFORE ("poll.p99 > +20%": grew by more than 20%); an absolute value
 * compares AFTER alone. */
int condition_eval_diff(const condition *c, const struct report *before, const struct report *after,
		    char *why, size_t len);

#endif
