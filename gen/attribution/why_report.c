/* why_report — the attribution's maps and records read into a report;
 * see why.h. */
#include "attribution/why.h"
#include "attribution/why_v8.h"
#include "attribution/why_v8check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/wire.h"
#include "run/report_internal.h"
#include "spec/spec.h"
#include "target/perfmap.h"
#include "target/vdso.h"
#include "util/buf.h"
#include "util/systab.h"

/* The group of probe P that thread TID's figures go to: its own (per
 * thread) or the only one; NULL when the probe has no completed call
 * there (nothing to split) or out of memory. */
static report_split *split_of(report_probe *p, long tid)
{
	for (size_t g = 0; g < p->n_groups; g++) {
		report_group *gr = &p->groups[g];
		if (gr->tid != tid && gr->tid != 0)
			continue;
		if (!gr->split)
			gr->split = calloc(1, sizeof *gr->split);
		return gr->split;
	}
	return NULL;
}

/* Syscall NR's entry in S, added when missing; NULL out of memory. */
static report_why_syscall *split_syscall(report_split *s, long nr)
{
	for (size_t i = 0; i < s->n_syscalls; i++)
		if (s->syscalls[i].nr == nr)
			return &s->syscalls[i];
	report_why_syscall *ns = realloc(s->syscalls, (s->n_syscalls + 1) * sizeof *ns);
	if (!ns)
		return NULL;
	s->syscalls = ns;
	memset(&ns[s->n_syscalls], 0, sizeof *ns);
	ns[s->n_syscalls].nr = nr;
	if (!(ns[s->n_syscalls].name = report_exit_syscall_name(nr)))
		return NULL;
	return &ns[s->n_syscalls++];
}

/* The parts of completed calls (CPU, WAIT, BLOCKED, OTHER: keys [P, tid])
 * and, per syscall NR (keys [P, tid, NR]), the time asleep in it (SLEEP),
 * its calls and their time. */
enum part { PART_CPU, PART_WAIT, PART_BLOCKED, PART_OTHER, PART_SLEEP, PART_CALLS, PART_TIME };

/* Adds V to part PART of S (of syscall NR for the last three). */
static int split_add(report_split *s, enum part part, long nr, uint64_t v)
{
	report_why_syscall *sc;
	switch (part) {
	case PART_CPU:
		s->cpu_ns += v;
		return 0;
	case PART_WAIT:
		s->wait_ns += v;
		return 0;
	case PART_BLOCKED:
		s->blocked_ns += v;
		return 0;
	case PART_OTHER:
		s->other_ns += v;
		return 0;
	case PART_SLEEP:
		if (nr < 0)
			return 0;	/* outside syscalls: in PART_OTHER */
		break;
	case PART_CALLS:
	case PART_TIME:
		break;
	}
	if (!(sc = split_syscall(s, nr)))
		return -1;
	if (part == PART_SLEEP)
		sc->blocked_ns += v;
	else if (part == PART_CALLS)
		sc->calls += v;
	else
		sc->time_ns += v;
	return 0;
}

static int syscall_order(const void *a, const void *b)
{
	const report_why_syscall *x = a, *y = b;
	if (x->blocked_ns != y->blocked_ns)
		return x->blocked_ns < y->blocked_ns ? 1 : -1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? 1 : -1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* Reads map PREFIX (keys [phase, tid] or [phase, tid, nr]) into part PART
 * of the attributed probes' groups. */
static int read_part(report *rep, const bpfout_window *w, const char *prefix, enum part part)
{
	const bpfout_map *m = report_window_map(w, prefix, WHY_NAME);
	for (size_t i = 0; m && i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		size_t want = part == PART_SLEEP || part == PART_CALLS ? 3 : 2;
		/* the syscalls' map holds stats(): count and total */
		bool stats = part == PART_CALLS;
		/* a nested loop's epoll wait in the poll phase: phase + 128 */
		long long phase = e->n_ikeys ? e->ikeys[0] % WHY_NESTED_WAIT : 0;
		if (e->n_ikeys != want || phase < 1 || (size_t)phase > rep->n_probes ||
		    (stats ? e->type != BPFOUT_VALUE_STATS || e->stats_total < 0 : e->value <= 0))
			continue;
		report_probe *p = &rep->probes[phase - 1];
		if (!p->attributed)
			continue;
		report_split *s = split_of(p, (long)e->ikeys[1]);
		if (!s)
			continue;	/* no completed call on that thread (or no memory) */
		long nr = want == 3 ? (long)e->ikeys[2] : -1;
		if (stats ? split_add(s, PART_CALLS, nr, e->stats_count) < 0 ||
				    split_add(s, PART_TIME, nr, (uint64_t)e->stats_total) < 0
			  : split_add(s, part, nr, (uint64_t)e->value) < 0)
			return -1;
	}
	return 0;
}

/* P's split: its groups' together; each syscall list sorted. */
static int total_split(report_probe *p)
{
	for (size_t g = 0; g < p->n_groups; g++) {
		report_split *s = p->groups[g].split;
		if (!s)
			continue;
		if (s->n_syscalls > 1)
			qsort(s->syscalls, s->n_syscalls, sizeof *s->syscalls, syscall_order);
		p->split.cpu_ns += s->cpu_ns;
		p->split.wait_ns += s->wait_ns;
		p->split.blocked_ns += s->blocked_ns;
		p->split.other_ns += s->other_ns;
		for (size_t k = 0; k < s->n_syscalls; k++) {
			report_why_syscall *t = split_syscall(&p->split, s->syscalls[k].nr);
			if (!t)
				return -1;
			t->calls += s->syscalls[k].calls;
			t->time_ns += s->syscalls[k].time_ns;
			t->blocked_ns += s->syscalls[k].blocked_ns;
		}
	}
	if (p->split.n_syscalls)
		qsort(p->split.syscalls, p->split.n_syscalls, sizeof *p->split.syscalls,
		      syscall_order);
	return 0;
}

/* A record's fields, as record_fields reads them. */
typedef struct why_record {
	long long start, ns, ret;
	long tid, phase, nr;
	char kind;
	const char *arg;
} why_record;

/* Reads record REC ("_why START TID P NR NS RET KIND ARG") into *R:
 * R->arg is what follows KIND (a path, a number, or for KIND x a child's
 * command line: TID forked it, RET is its pid).  Returns 1, 0 when
 * REC is not a record of ours, -1 when it is a malformed one. */
static int record_fields(const char *rec, why_record *r)
{
	size_t nl = strlen(WHY_NAME);
	int used = 0;
	if (strncmp(rec, WHY_NAME, nl) != 0 || rec[nl] != ' ')
		return 0;
	if (sscanf(rec + nl + 1, "%lld %ld %ld %ld %lld %lld %c%n", &r->start, &r->tid, &r->phase,
		   &r->nr, &r->ns, &r->ret, &r->kind, &used) != 7 || used == 0 || r->ns < 0 ||
	    r->start < 0 || (r->kind != 's' && r->kind != 'n' && r->kind != 'x'))
		return -1;
	r->phase %= WHY_NESTED_WAIT;	/* a nested loop's wait in the poll phase */
	r->arg = rec + nl + 1 + used;
	if (*r->arg == ' ')
		r->arg++;	/* one space; a path's own leading spaces are kept */
	return 1;
}

/* Whether syscall NR is one T knows as KIND. */
static bool kind_is(const why_syscalls *t, long nr, char kind)
{
	return nr >= 0 && nr < WHY_MAX_NR && t->kind[nr] == kind;
}

/* Fills EV from R, a blocker of the window that began at BEGIN.
 * Returns 0, or -1 out of memory (EV then holds what to free). */
static int blocker_event(const report *rep, const why_syscalls *t, const why_record *r,
			 uint64_t begin, report_event *ev)
{
	/* a call that began in the window before (with -i) counts from its start */
	ev->t_ns = (uint64_t)r->start > begin ? (uint64_t)r->start - begin : 0;
	ev->tid = r->tid;
	ev->latency_ns = (uint64_t)r->ns;
	ev->ret = r->ret;
	if (!(ev->syscall = report_exit_syscall_name(r->nr)) ||
	    !(ev->phase = strdup(rep->probes[r->phase - 1].name)))
		return -1;
	if (r->ret < 0 && r->ret > -4096) {
		const char *en = systab_errno_name((long)-r->ret);
		if (en ? !(ev->error = strdup(en)) : asprintf(&ev->error, "E%lld", -r->ret) < 0) {
			ev->error = NULL;	/* asprintf leaves it undefined */
			return -1;
		}
	}
	if (r->kind == 'n' && kind_is(t, r->nr, 'f')) {
		ev->has_fd = true;
		ev->fd = strtol(r->arg, NULL, 10);
	} else if (r->kind == 's' && *r->arg) {
		if (!(ev->path = strdup(r->arg)))
			return -1;
		ev->path_truncated = strlen(r->arg) >= REPORT_PATH_MAX;
	}
	/* the thread's name as the phase's group has it, else /proc's */
	const report_probe *p = &rep->probes[r->phase - 1];
	for (size_t g = 0; g < p->n_groups && !ev->thread; g++)
		if (p->groups[g].tid == r->tid && p->groups[g].thread &&
		    !(ev->thread = strdup(p->groups[g].thread)))
			return -1;
	if (!ev->thread)
		ev->thread = report_thread_name(report_pids_of(rep), r->tid);
	return 0;
}

/* Frees what blocker EV holds. */
static void free_blocker(report_event *ev)
{
	free(ev->syscall);
	free(ev->phase);
	free(ev->error);
	free(ev->path);
	free(ev->thread);
	free(ev->command);
}

static int blocker_order(const void *a, const void *b)
{
	const report_event *x = a, *y = b;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/* An open of a path that succeeded, or a close: what names an fd. */
typedef struct fd_mark {
	long fd;
	unsigned long long t;
	const char *path;	/* an open's; NULL for a close */
} fd_mark;

static int mark_order(const void *a, const void *b)
{
	const fd_mark *x = a, *y = b;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* Whether R opened a path (then *M says which fd) or closed an fd. */
static bool fd_mark_of(const why_syscalls *t, const why_record *r, fd_mark *m)
{
	if (r->kind == 's' && r->ret >= 0 && r->nr >= 0 && r->nr < WHY_MAX_NR && t->opens[r->nr]) {
		*m = (fd_mark){ .fd = (long)r->ret, .t = (unsigned long long)r->start, .path = r->arg };
		return true;
	}
	if (r->kind == 'n' && r->nr == t->close_nr) {
		*m = (fd_mark){ .fd = strtol(r->arg, NULL, 10), .t = (unsigned long long)r->start };
		return true;
	}
	return false;
}

/* The path fd FD was opened with before START, as MARKS (N, in
 * mark_order) have it: the last open or close of FD that began before
 * START, when it is an open; else NULL (not seen, or closed since). */
static const char *opened_path(const fd_mark *marks, size_t n, long fd, unsigned long long start)
{
	size_t lo = 0, hi = n;	/* the first mark at or after (FD, START) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (marks[mid].fd < fd || (marks[mid].fd == fd && marks[mid].t < start))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && marks[lo - 1].fd == fd ? marks[lo - 1].path : NULL;
}

/* A child's command line, from its record (KIND x). */
typedef struct child_command {
	long parent_tid;
	unsigned long long t;	/* its execve */
	const char *text;
} child_command;

/* Whether syscall NR is one of an event loop's waits (epoll). */
static bool is_loop_wait(long nr)
{
	for (size_t k = 0; spec_loop_waits[k]; k++)
		if (systab_syscall_nr(spec_loop_waits[k]) == nr)
			return true;
	return false;
}

/* A nested loop starts waiting within this long of its child's execve
 * (libuv forks it, the child execs, the loop runs its first phases). */
#define CHILD_TO_WAIT_NS 100000000ull

/* The child that thread TID's nested loop waited in [START, END) for: the
 * last one TID forked before END and at most CHILD_TO_WAIT_NS before
 * START (one spawnSync at a time on a thread: it waits; a child whose
 * record was not kept is not mistaken for an older one).  Its index in
 * KIDS, or -1 when none was seen. */
static long child_of_wait(const child_command *kids, size_t n, long tid, unsigned long long start,
			  unsigned long long end)
{
	long best = -1;
	for (size_t i = 0; i < n; i++)
		if (kids[i].parent_tid == tid && kids[i].t <= end &&
		    kids[i].t + CHILD_TO_WAIT_NS >= start && (best < 0 || kids[i].t > kids[best].t))
			best = (long)i;
	return best;
}

/* One blocker per child a nested loop waited for: its first wait's record
 * becomes the span from the child's fork (KIDS[k].t, on the clock of
 * BEGIN; or from the start of a blocker of the thread in progress then:
 * the clone that forked it) to the end of its last wait, what the caller of spawnSync was
 * stuck for; the thread's other blockers inside that span (its other
 * waits, the fork itself, the read that waits for the child's exec) are
 * folded in.  CHILD_OF[i] is the child of REP's blocker i, or -1. */
static void merge_nested(report *rep, const long *child_of, const child_command *kids,
			 size_t n_kids, uint64_t begin, bool *drop)
{
	for (size_t k = 0; k < n_kids; k++) {
		size_t first = rep->n_blockers;
		uint64_t end = 0;
		for (size_t i = 0; i < rep->n_blockers; i++) {
			const report_event *ev = &rep->blockers[i];
			if (child_of[i] != (long)k || drop[i])
				continue;
			if (first == rep->n_blockers || ev->t_ns < rep->blockers[first].t_ns)
				first = i;
			if (ev->t_ns + ev->latency_ns > end)
				end = ev->t_ns + ev->latency_ns;
		}
		if (first == rep->n_blockers)
			continue;
		report_event *m = &rep->blockers[first];
		uint64_t start = kids[k].t > begin ? kids[k].t - begin : 0;
		if (start > m->t_ns)
			start = m->t_ns;
		/* the fork happens inside a clone: from that call's start */
		for (size_t i = 0; i < rep->n_blockers; i++) {
			const report_event *ev = &rep->blockers[i];
			if (ev->tid == m->tid && child_of[i] < 0 && ev->t_ns < start &&
			    ev->t_ns + ev->latency_ns >= start)
				start = ev->t_ns;
		}
		for (size_t i = 0; i < rep->n_blockers; i++) {
			const report_event *ev = &rep->blockers[i];
			if (i != first && ev->tid == m->tid && ev->t_ns >= start &&
			    ev->t_ns + ev->latency_ns <= end)
				drop[i] = true;
		}
		m->t_ns = start;
		m->latency_ns = end - start;
	}
	size_t kept = 0;
	for (size_t i = 0; i < rep->n_blockers; i++) {
		if (drop[i])
			free_blocker(&rep->blockers[i]);
		else
			rep->blockers[kept++] = rep->blockers[i];
	}
	rep->n_blockers = kept;
}

/* What the window's records say beside the blockers: which path each fd
 * was opened with, and the command lines of children. */
typedef struct blocker_context {
	const why_syscalls *t;
	const fd_mark *marks;
	size_t n_marks;
	const child_command *kids;
	size_t n_kids;
} blocker_context;

/* Adds blocker R (and the path its fd was opened with, or the child its
 * nested loop waited for: its index into *CHILD, else -1) to REP's.
 * Returns 0, or -1 out of memory. */
static int add_blocker(report *rep, const why_record *r, uint64_t begin,
		       const blocker_context *c, long *child)
{
	const why_syscalls *t = c->t;
	const fd_mark *marks = c->marks;
	size_t n_marks = c->n_marks;
	report_event ev = { 0 };
	report_event *nb = realloc(rep->blockers, (rep->n_blockers + 1) * sizeof *nb);
	if (!nb)
		return -1;
	rep->blockers = nb;
	if (blocker_event(rep, t, r, begin, &ev) < 0) {
		free_blocker(&ev);
		return -1;
	}
	const char *path = ev.has_fd ? opened_path(marks, n_marks, ev.fd,
						   (unsigned long long)r->start) : NULL;
	if (path && *path) {
		if (!(ev.path = strdup(path))) {
			free_blocker(&ev);
			return -1;
		}
		ev.path_truncated = strlen(path) >= REPORT_PATH_MAX;
	}
	/* The loop's own waits are never blockers (templates/why.bt.in): an
	 * epoll wait that is one is a nested loop's. */
	*child = -1;
	if (is_loop_wait(r->nr)) {
		ev.nested_loop = true;
		*child = child_of_wait(c->kids, c->n_kids, r->tid, (unsigned long long)r->start,
				       (unsigned long long)(r->start + r->ns));
		const char *cmd = *child >= 0 ? c->kids[*child].text : NULL;
		if (cmd && *cmd && !(ev.command = strdup(cmd))) {
			free_blocker(&ev);
			return -1;
		}
	}
	nb[rep->n_blockers++] = ev;
	return 0;
}

/* The window's records: blockers (at least the spec's threshold long;
 * the shorter ones are opens and closes, which name the fds of the
 * blockers after them). */
static int fill_blockers(report *rep, const bpfout_window *w, uint64_t begin_ns)
{
	const bpfout_map *m = report_window_map(w, WIRE_DROPPED, WHY_NAME);
	const bpfout_entry *e = m ? bpfout_map_entry(m, "") : NULL;
	rep->blockers_dropped = (e && e->value > 0 ? (uint64_t)e->value : 0) +
				bpfout_dropped_records(w, WHY_NAME);
	why_syscalls *t = malloc(sizeof *t);
	size_t n = w->n_events ? w->n_events : 1;
	fd_mark *marks = malloc(n * sizeof *marks);
	child_command *kids = malloc(n * sizeof *kids);
	long *child_of = malloc(n * sizeof *child_of);
	bool *drop = calloc(n, sizeof *drop);
	size_t n_marks = 0, n_kids = 0;
	int rc = 0;
	if (!t || !marks || !kids || !child_of || !drop) {
		free(t);
		free(marks);
		free(kids);
		free(child_of);
		free(drop);
		return -1;
	}
	why_syscall_table(t);
	for (size_t i = 0; i < w->n_events; i++) {
		why_record r;
		if (record_fields(w->events[i], &r) <= 0)
			continue;
		if (r.kind == 'x')	/* the mark stays when no join line came */
			kids[n_kids++] = (child_command){
				.parent_tid = r.tid, .t = (unsigned long long)r.start,
				.text = strcmp(r.arg, BPFOUT_JOIN_MARK) == 0 ? "" : r.arg
			};
		else if (fd_mark_of(t, &r, &marks[n_marks]))
			n_marks++;
	}
	if (n_marks > 1)
		qsort(marks, n_marks, sizeof *marks, mark_order);
	blocker_context ctx = { .t = t, .marks = marks, .n_marks = n_marks, .kids = kids,
				.n_kids = n_kids };
	for (size_t i = 0; i < w->n_events && rc == 0; i++) {
		why_record r;
		int kind = record_fields(w->events[i], &r);
		if (kind == 0 || (kind > 0 && ((uint64_t)r.ns < rep->blocker_ns || r.kind == 'x')))
			continue;	/* not ours; an open or a close; a child's command */
		if (kind < 0 || r.phase < 1 || (size_t)r.phase > rep->n_probes) {
			/* malformed (a bug of ours): counted as not recorded,
			 * never fatal to the report */
			rep->blockers_dropped++;
			continue;
		}
		/* ended before the window (read late from another CPU's buffer) */
		if ((uint64_t)r.start + (uint64_t)r.ns < begin_ns)
			continue;
		long child = -1;
		rc = add_blocker(rep, &r, begin_ns, &ctx, &child);
		if (rc == 0)
			child_of[rep->n_blockers - 1] = child;
	}
	if (rc == 0)
		merge_nested(rep, child_of, kids, n_kids, begin_ns, drop);
	free(t);
	free(marks);
	free(kids);
	free(child_of);
	free(drop);
	if (rep->n_blockers > 1)
		qsort(rep->blockers, rep->n_blockers, sizeof *rep->blockers, blocker_order);
	return rc;
}

/* The end of the frame at S: a newline, or the two characters "\n"
 * (bpftrace 0.20-0.23 escape the newlines of a stack in a map key
 * twice), or the end of the text. */
static const char *frame_end(const char *s)
{
	for (; *s; s++)
		if (*s == '\n' || (s[0] == '\\' && s[1] == 'n'))
			return s;
	return s;
}

/* The process thread TID belongs to among P's (the only one when there
 * is one), or 0. */
static long process_of_thread(report_pids p, long tid)
{
	if (p.n == 1)
		return p.v[0];
	for (size_t i = 0; i < p.n; i++) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%ld/task/%ld", p.v[i], tid);
		if (access(path, F_OK) == 0)
			return p.v[i];
	}
	return 0;
}

/* A frame bpftrace left as a bare address (S, LEN: "0x7ff36daee79d"),
 * named when it lies in process PID's vDSO: "[vdso] NAME" into OUT.
 * Returns OUT's length, or 0 when it is not such a frame. */
static size_t vdso_frame(vdso_names *vdso, long pid, const char *s, size_t len, char *out,
			 size_t out_len)
{
	char hex[24];
	if (len < 3 || len >= sizeof hex || s[0] != '0' || s[1] != 'x')
		return 0;
	memcpy(hex, s, len);
	hex[len] = '\0';
	if (strspn(hex + 2, "0123456789abcdefABCDEF") != len - 2)
		return 0;
	uint64_t addr = strtoull(hex, NULL, 16);
	return vdso_name(vdso, pid, addr, out, out_len) == 1 ? strlen(out) : 0;
}

/* Whether the frame S (LEN bytes) is a bare address ("0x7f36daee79d"):
 * bpftrace found no name for it. */
static bool is_address(const char *s, size_t len)
{
	return len > 2 && s[0] == '0' && s[1] == 'x' &&
	       strspn(s + 2, "0123456789abcdefABCDEF") >= len - 2;
}

/* The frames of a stack as bpftrace prints a ustack() key (one frame a
 * line, innermost first, "name+offset"; 0.24+ drop the spaces in names)
 * into FRAME[i] (LEN[i] bytes, the offset dropped: pointers into TEXT)
 * and OFFSET[i] (0 none), at most WHY_STACK_FRAMES + 8 of them.  Returns
 * their number. */
static size_t stack_frames(const char *text, const char **frame, size_t *len, uint64_t *offset)
{
	size_t n = 0;
	for (const char *s = text; *s && n < WHY_STACK_FRAMES + 8;) {
		while (*s == '\n' || *s == ' ' || *s == '\t' || (s[0] == '\\' && s[1] == 'n'))
			s += s[0] == '\\' ? 2 : 1;
		if (!*s)
			break;
		const char *e = frame_end(s);
		size_t l = (size_t)(e - s);
		const char *plus = memrchr(s, '+', l);
		size_t digits = plus ? (size_t)(s + l - plus - 1) : 0;
		uint64_t off = 0;
		if (plus && plus > s && digits && strspn(plus + 1, "0123456789") >= digits) {
			l = (size_t)(plus - s);
			off = strtoull(plus + 1, NULL, 10);
		}
		if (l) {
			frame[n] = s;
			offset[n] = off;
			len[n++] = l;
		}
		s = e;
	}
	return n;
}

/* The N frames FRAME (LEN: stack_frames) in folded form: outermost
 * first, joined by ';'; a bare address in process PID's vDSO named
 * (VDSO).  Owned; NULL out of memory.  JS[i] (NULL: none), when set, is
 * the i-th frame (from the innermost) when bpftrace left it a bare
 * address ("JS:NAME ..."). */
static char *folded_frames(const char *const *frame, const size_t *len, size_t n,
			   vdso_names *vdso, long pid, const char *const *js)
{
	char named[80];
	buf b = BUF_INIT;
	for (size_t i = n; i-- > 0;) {
		const char *s = frame[i];
		size_t l = len[i];
		if (js && i < WHY_V8_FRAMES && js[i] && is_address(s, l)) {
			s = js[i];
			l = strlen(js[i]);
		} else if ((l = vdso_frame(vdso, pid, s, len[i], named, sizeof named))) {
			s = named;
		} else {
			l = len[i];
		}
		if (i + 1 < n)
			buf_putc(&b, ';');
		for (size_t k = 0; k < l; k++)
			buf_putc(&b, s[k] == ';' ? ':' : s[k]);
	}
	if (!n)
		buf_puts(&b, "[no frames]");
	return buf_take(&b);
}

static int stack_order(const void *a, const void *b)
{
	const report_stack *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->frames, y->frames);
}

/* The SharedFunctionInfos after a stack key's tid (",S0,...,S15", the
 * sampler's V8 walk: why.c) into SFI[0..WHY_V8_FRAMES), 0 when absent;
 * *AT moves past them to the ',' before the frames. */
static void key_functions(const char **at, uint64_t *sfi)
{
	memset(sfi, 0, WHY_V8_FRAMES * sizeof *sfi);
	for (int k = 0; k < WHY_V8_FRAMES && (*at)[0] == ',' && (*at)[1] >= '0' &&
			(*at)[1] <= '9'; k++) {
		char *end;
		uint64_t v = strtoull(*at + 1, &end, 10);
		if (*end != ',')
			break;
		sfi[k] = v;
		*at = end;
	}
}

/* Names in JS[i] ("JS:NAME SCRIPT:LINE", in TEXT[i]) the frames whose
 * SharedFunctionInfo SFI[i] the namer V8 (may be NULL) can read in process
 * PID, NULL elsewhere; counts them, SAMPLES times, in REP's JavaScript
 * frames. */
static void name_functions(report *rep, why_v8 *v8, long pid, const uint64_t *sfi,
			   uint64_t samples, char text[][2 * 160 + 40], const char **js)
{
	for (int k = 0; k < WHY_V8_FRAMES; k++) {
		const char *name = v8 && sfi[k] ? why_v8_name(v8, pid, sfi[k]) : NULL;
		js[k] = NULL;
		if (!sfi[k])
			continue;
		rep->js_frames += samples;
		if (!name)
			continue;
		rep->js_frames_named += samples;
		snprintf(text[k], sizeof text[k], "JS:%s", name);
		js[k] = text[k];
	}
}

/* Adds to probe P's stacks SAMPLES of thread TID's stack FRAMES (owned:
 * taken).  Returns 0, or -1 out of memory. */
static int add_stack(report_probe *p, long tid, uint64_t samples, char *frames)
{
	p->stack_samples += samples;
	/* stacks that differ only in offsets are one once folded */
	for (size_t k = 0; k < p->n_stacks; k++)
		if (p->stacks[k].tid == tid && strcmp(p->stacks[k].frames, frames) == 0) {
			p->stacks[k].samples += samples;
			free(frames);
			return 0;
		}
	report_stack *ns = realloc(p->stacks, (p->n_stacks + 1) * sizeof *ns);
	if (!ns) {
		free(frames);
		return -1;
	}
	p->stacks = ns;
	ns[p->n_stacks++] = (report_stack){ .tid = tid, .samples = samples, .frames = frames };
	return 0;
}

/* One entry E of the stacks map ("P,TID,\n frames...", or
 * "P,TID,S0,...,S15,\n frames..." with the V8 walk) into REP's probes;
 * V8 (may be NULL) names the JavaScript frames, CHECK (may be NULL)
 * compares its names with the perf map's.  Returns 0 (also for an entry
 * not understood, skipped), or -1 out of memory. */
static int fill_stack(report *rep, const bpfout_entry *e, why_v8 *v8, vdso_names *vdso,
		      why_v8check *check)
{
	char text[WHY_V8_FRAMES][2 * 160 + 40];
	const char *frame[WHY_STACK_FRAMES + 8], *js[WHY_V8_FRAMES];
	size_t len[WHY_STACK_FRAMES + 8];
	uint64_t sfi[WHY_V8_FRAMES];
	char *end;
	long phase = strtol(e->key, &end, 10), tid;
	if (*end != ',' || phase < 1 || (size_t)phase > rep->n_probes || e->value <= 0)
		return 0;
	tid = strtol(end + 1, &end, 10);
	const char *at = end;
	key_functions(&at, sfi);
	if (*at != ',')
		return 0;
	long pid = process_of_thread(report_pids_of(rep), tid);
	name_functions(rep, v8, pid, sfi, (uint64_t)e->value, text, js);
	uint64_t offset[WHY_STACK_FRAMES + 8];
	size_t n = stack_frames(at + 1, frame, len, offset);
	bool walked = false;
	for (int k = 0; k < WHY_V8_FRAMES; k++)
		walked = walked || sfi[k];
	why_v8check_frames f = { .frame = frame, .len = len, .offset = offset, .n = n };
	why_v8check_stack(check, pid, &f, js, WHY_V8_FRAMES, walked, (uint64_t)e->value);
	char *frames = folded_frames(frame, len, n, vdso, pid, js);
	if (!frames || add_stack(&rep->probes[phase - 1], tid, (uint64_t)e->value, frames) < 0)
		return -1;
	return 0;
}

/* The stacks map into the probes' (fill_stack); with a perf map and V8
 * (may be NULL), the check of the perf map's names against the heap's
 * into REP's js_check. */
static int fill_stacks(report *rep, const bpfout_window *w, why_v8 *v8)
{
	const bpfout_map *m = report_window_map(w, "stk", WHY_NAME);
	if (!m || !m->n_entries)
		return 0;
	vdso_names *vdso = vdso_names_new();	/* NULL: no frame is named there */
	why_v8check *check = v8 && rep->js_names == REPORT_JS_NAMES_PERF_MAP ?
			     why_v8check_new() : NULL;
	int rc = 0;
	for (size_t i = 0; i < m->n_entries && rc == 0; i++)
		rc = fill_stack(rep, &m->entries[i], v8, vdso, check);
	vdso_names_free(vdso);
	if (check)
		why_v8check_result(check, &rep->js_check);
	why_v8check_free(check);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < rep->n_probes; i++)
		if (rep->probes[i].n_stacks > 1)
			qsort(rep->probes[i].stacks, rep->probes[i].n_stacks,
			      sizeof *rep->probes[i].stacks, stack_order);
	return 0;
}

/* 1 when process PID wrote a perf map (/tmp/perf-PID.map, PID as its own
 * namespace numbers it, seen through its root), 0 when not, -1 unknown. */
static int has_perf_map(long pid)
{
	char path[96];
	if (perfmap_path(pid, path, sizeof path) < 0)
		return -1;
	return access(path, R_OK) == 0;
}

/* 1 when every process of P wrote a perf map, 0 when one did not, -1
 * unknown (no process, or one that cannot be looked at). */
static int all_have_perf_maps(report_pids p)
{
	int all = p.n ? 1 : -1;
	for (size_t i = 0; i < p.n && all == 1; i++)
		all = has_perf_map(p.v[i]);
	return all;
}

/* The parts, the splits' totals and the stacks of window W into REP;
 * V8 (may be NULL) names JavaScript frames.  Returns 0, or -1 out of
 * memory. */
static int fill_window(report *rep, const bpfout_window *w, why_v8 *v8)
{
	static const struct { const char *prefix; enum part part; } parts[] = {
		{ "cpu", PART_CPU }, { "wait", PART_WAIT }, { "blk", PART_BLOCKED },
		{ "oth", PART_OTHER }, { "slp", PART_SLEEP }, { "sys", PART_CALLS },
	};
	for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
		if (read_part(rep, w, parts[k].prefix, parts[k].part) < 0)
			return -1;
	for (size_t i = 0; i < rep->n_probes; i++)
		if (rep->probes[i].attributed && total_split(&rep->probes[i]) < 0)
			return -1;
	return fill_stacks(rep, w, v8);
}

int why_fill(report *rep, const resolved *r, const bpfout_window *w, uint64_t begin_ns)
{
	if (!why_wanted(r))
		return 0;
	rep->attributed = true;
	rep->blocker_ns = r->sp->blocker_ns;
	rep->stack_ns = r->sp->stack_ns;
	rep->js_symbols = rep->stack_ns ? all_have_perf_maps(report_pids_of(rep)) : -1;
	why_v8 *v8 = NULL;
	char why[256] = "";
	if (rep->js_symbols == 1)
		rep->js_names = REPORT_JS_NAMES_PERF_MAP;
	/* with a perf map, the heap's names are checked against it */
	if (rep->stack_ns && r->tg && r->tg->exe)
		v8 = why_v8_new(r->tg->exe, why, sizeof why);
	if (rep->js_symbols == 0 && !v8) {
		char text[512];
		snprintf(text, sizeof text, "JavaScript frames in the stacks have no names: the "
			 "target wrote no perf map, and its V8 heap cannot be read (%s); start node "
			 "with --perf-basic-prof (or --perf-basic-prof-only-functions) to name them "
			 "(native frames are named either way)", why);
		if (report_add_warning(rep, text) < 0)
			return -1;
	}
	for (size_t i = 0; i < r->n_probes && i < rep->n_probes; i++)
		rep->probes[i].attributed = why_attributed(r, i);
	int rc = w ? fill_window(rep, w, v8) : 0;
	if (rc == 0 && w && rep->js_names != REPORT_JS_NAMES_PERF_MAP && rep->stack_ns)
		rep->js_names = rep->js_frames_named ? REPORT_JS_NAMES_V8_HEAP : REPORT_JS_NAMES_NONE;
	why_v8_free(v8);
	if (rc < 0)
		return -1;
	return w ? fill_blockers(rep, w, begin_ns) : 0;
}
