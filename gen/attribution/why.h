/* why — attribution of latency phases (spec 'attribute: true'): each
 * attributed phase's time on each thread split, in the kernel, into
 * on-CPU, blocked in each syscall, waiting for a CPU and asleep outside
 * a syscall; and the loop blockers, the syscalls made inside those phases
 * at least the spec's 'blockers' long (templates/why.bt.in).
 *
 * gen: the phases' own probes mark the phase a thread is in (why_hooks,
 * which latency.c puts into their entries and returns); why_emit adds
 * the scheduler and syscall tracepoints once per program.
 * report (why_report.c): why_fill reads the maps and records into the
 * latency probes' groups (report_split) and the report's blockers.
 *
 * A phase is numbered by its index among the spec's probes plus one; a
 * thread is in at most one attributed phase at a time (loop phases never
 * nest: when attributed probes do, the inner one's start ends the outer
 * one's attribution). */
#ifndef BPFSPEC_WHY_H
#define BPFSPEC_WHY_H

#include <stdbool.h>
#include <stddef.h>

#include "model/report.h"
#include "program/resolve.h"
#include "run/bpfout.h"

struct gen_parts;

/* The name in the attribution maps (@cpu__why ...) and blocker records. */
#define WHY_NAME "_why"
/* With the spec's 'stacks', how often a thread's user stack is sampled
 * (only while it runs inside an attributed phase that lasted that long),
 * and the most frames kept, innermost first. */
#define WHY_STACK_HZ 499
#define WHY_STACK_FRAMES 48
/* With V8 metadata in the target, the frames of the frame-pointer chain
 * whose JavaScript function the sampler records (the innermost). */
#define WHY_V8_FRAMES 16
/* Added to the phase number of a nested loop's epoll wait in the poll
 * phase (templates/why.bt.in): bpfspec reads @sys__why's and the records'
 * phase numbers modulo it.  A spec has at most 64 probes. */
#define WHY_NESTED_WAIT 128

/* Whether any active latency probe of R is attributed. */
bool why_wanted(const resolved *r);

/* Whether probe I of R is an active, attributed latency probe. */
bool why_attributed(const resolved *r, size_t i);

/* The syscalls the program follows are numbered below this (the map
 * word of templates/why.bt.in keeps 10 bits of number + 1). */
#define WHY_MAX_NR 1023

/* What the report needs to know of syscall numbers, looked up once. */
typedef struct why_syscalls {
	char kind[WHY_MAX_NR];	/* 's' a path, 'f' an fd, 0 nothing */
	bool opens[WHY_MAX_NR];	/* opens a path: the fd it returns is named by it */
	int close_nr;		/* close's number, -1 when unknown */
} why_syscalls;

/* Fills T for this machine's syscall numbers. */
void why_syscall_table(why_syscalls *t);

/* The statements of probe I's entry (ENTRY true: the thread's phase
 * ends, probe I's begins when attributed) or return (probe I's ends; a
 * derived attributed phase whose gap starts there begins).  They read
 * the probe's $now.  Owned text ending without '\n', or NULL when there
 * is nothing to do (no attribution). */
char *why_hooks(const struct gen_parts *pt, const resolved *r, size_t i, bool entry);

/* With entry-only timing, the statement a libuv phase's entry runs before
 * it returns for a call of another loop than the thread's (a nested
 * loop: templates/phase.bt.in's loop test): the thread is then inside a
 * nested loop until its own loop's next phase, and its epoll waits in the
 * poll phase are that loop's, not the idle loop's.  A static string, ""
 * when R has no attribution. */
const char *why_nested_entry(const resolved *r);

/* BEGIN's typings of the maps the phases' probes read, when why_wanted. */
void why_begin(struct gen_parts *pt, const resolved *r);

/* Appends the attribution's tracepoints and registers its maps, once per
 * program, when why_wanted.  Returns 0, or -1 after a diagnostic. */
int why_emit(struct gen_parts *pt, const resolved *r);

/* Fills the splits of REP's attributed probes and REP's blockers from W
 * (NULL: nothing printed).  Returns 0, or -1 out of memory. */
int why_fill(report *rep, const resolved *r, const bpfout_window *w, uint64_t begin_ns);

#endif
