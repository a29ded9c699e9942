/* why — attribution of latency phases; see why.h. */
#include "why.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "gen_internal.h"
#include "libuv.h"
#include "report_internal.h"
#include "spec.h"
#include "systab.h"
#include "wire.h"

bool why_wanted(const resolved *r)
{
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].active && r->probes[i].sp->kind == PROBE_LATENCY &&
		    r->probes[i].sp->attribute)
			return true;
	return false;
}

/* ---- gen: the phases' hooks ---------------------------------------- */

static bool attributed(const resolved *r, size_t i)
{
	return r->probes[i].active && r->probes[i].sp->kind == PROBE_LATENCY &&
	       r->probes[i].sp->attribute;
}

/* Appends to COND (" || "-joined) the test "the thread is in phase N". */
static void put_in_phase(buf *cond, size_t n)
{
	buf_printf(cond, "%s$wp == kptr(%zu)", cond->len ? " || " : "", n);
}

/* The statements that end the thread's attributed phase when COND holds
 * of its number $wp ("": whichever it is), each line after IN (tabs).
 * Every value of the attribution's maps is in the kernel's address space
 * (kptr), as the tracepoints that read and write them most see it:
 * bpftrace 0.27 warns at a comparison across address spaces, and a
 * uprobe's own values are the user's. */
static void put_close(buf *b, const char *cond, const char *in)
{
	buf_printf(b, "%s// the time since the thread's last switch-in goes to the phase it\n"
		      "%s// was in, which ends here\n%s$wp = @ph__why[$wk];\n", in, in, in);
	buf_printf(b, "%sif (%s) {\n", in, *cond ? cond : "$wp != kptr(0)");
	buf_printf(b, "%s\tif (@pht__why[$wk] >= kptr(@wstart)) {\n"
		      "%s\t\t@cpu__why[$wp, $wk] = sum(kptr($now) - @run__why[$wk]);\n"
		      "%s\t}\n%s\t@ph__why[$wk] = kptr(0);\n%s}\n", in, in, in, in, in);
}

/* The statements that begin phase number PHASE on the thread. */
static void put_open(buf *b, size_t phase, const char *in)
{
	buf_printf(b, "%s@ph__why[$wk] = kptr(%zu);\n%s@pht__why[$wk] = kptr($now);\n"
		      "%s@run__why[$wk] = kptr($now);\n", in, phase, in, in);
}

/* Whether probe I times a libuv loop phase, whose first argument is the
 * loop. */
static bool loop_phase(const resolved *r, size_t i)
{
	return libuv_is_phase_function(r->probes[i].sp->function);
}

/* Entry of probe I: for a libuv phase, one of the thread's own loop (@loop__why: the
 * first loop seen on the thread; node's spawnSync and execSync run a
 * loop of their own on it, whose phases are counted in @nest__why and
 * left out, so that its wait stays in the phase that called it).  Then
 * the thread's phase ends: any, at the entry of an attributed probe or
 * of any phase when entry-only; else only the derived attributed phases
 * whose gap ends here (a probe that is not attributed does not end an
 * attributed one it runs inside). */
static char *entry_hook(const resolved *r, size_t i)
{
	buf b = BUF_INIT, cond = BUF_INIT;
	bool close = attributed(r, i) || r->sp->entry_only;
	for (size_t d = 0; !close && d < r->n_probes; d++)
		for (size_t k = 0; r->probes[d].derived && attributed(r, d) && k < r->probes[d].n_gaps; k++)
			if (r->probes[d].gap_before[k] == i)
				put_in_phase(&cond, d + 1);
	buf_puts(&b, "\t// attribution (gen/why.h)\n\t$wk = (int64)tid;\n");
	if (!loop_phase(r, i))
		buf_puts(&b, "\tif (1) {\n");
	else if (r->sp->entry_only)
		buf_puts(&b, "\tif (@loop__why[$wk] == kptr(0)) { @loop__why[$wk] = kptr((int64)arg0); }\n"
			     "\tif (kptr((int64)arg0) == @loop__why[$wk]) {\n");
	else
		buf_puts(&b, "\tif (@loop__why[$wk] == kptr(0)) { @loop__why[$wk] = kptr((int64)arg0); }\n"
			     "\tif (kptr((int64)arg0) != @loop__why[$wk] || @nest__why[$wk] > kptr(0)) {\n"
			     "\t\t@nest__why[$wk] = @nest__why[$wk] + kptr(1);\n\t} else {\n");
	if (close || cond.len)
		put_close(&b, cond.len ? cond.data : "", "\t\t");
	if (attributed(r, i))
		put_open(&b, i + 1, "\t\t");
	buf_puts(&b, "\t}");
	buf_free(&cond);
	return buf_take(&b);
}

/* Return of probe I (entry-return): for a libuv phase, a nested loop's
 * return only counts down; else probe I's phase ends, and a derived attributed phase whose
 * gap starts here begins. */
static char *return_hook(const resolved *r, size_t i)
{
	buf b = BUF_INIT, cond = BUF_INIT;
	buf_puts(&b, "\t// attribution (gen/why.h)\n\t$wk = (int64)tid;\n");
	if (loop_phase(r, i))
		buf_puts(&b, "\tif (@nest__why[$wk] > kptr(0)) {\n\t\t@nest__why[$wk] = @nest__why[$wk] - kptr(1);\n"
			     "\t} else {\n");
	else
		buf_puts(&b, "\tif (1) {\n");
	if (attributed(r, i)) {
		put_in_phase(&cond, i + 1);
		put_close(&b, cond.data, "\t\t");
	}
	for (size_t d = 0; d < r->n_probes; d++) {
		const resolved_probe *dp = &r->probes[d];
		for (size_t k = 0; dp->derived && attributed(r, d) && k < dp->n_gaps; k++)
			if (dp->gap_after[k] == i)
				put_open(&b, d + 1, "\t\t");
	}
	buf_puts(&b, "\t}");
	buf_free(&cond);
	return buf_take(&b);
}

char *why_hooks(const gen_parts *pt, const resolved *r, size_t i, bool entry)
{
	(void)pt;
	if (!why_wanted(r))
		return NULL;
	return entry ? entry_hook(r, i) : return_hook(r, i);
}

/* ---- gen: the tracepoints ------------------------------------------ */

/* What a blocker record shows of a syscall's arguments: a path ('s', at
 * args[index]), an fd ('f', args[0], with the path it was opened with
 * when seen), or nothing. */
typedef struct blocker_arg {
	const char *syscall;
	int index;
	char kind;
} blocker_arg;

static const blocker_arg blocker_args[] = {
	{ "open", 0, 's' }, { "creat", 0, 's' }, { "stat", 0, 's' }, { "lstat", 0, 's' },
	{ "access", 0, 's' }, { "unlink", 0, 's' }, { "mkdir", 0, 's' }, { "rmdir", 0, 's' },
	{ "rename", 0, 's' }, { "readlink", 0, 's' }, { "execve", 0, 's' }, { "truncate", 0, 's' },
	{ "chmod", 0, 's' }, { "statfs", 0, 's' },
	{ "openat", 1, 's' }, { "openat2", 1, 's' }, { "newfstatat", 1, 's' }, { "statx", 1, 's' },
	{ "faccessat", 1, 's' }, { "faccessat2", 1, 's' }, { "unlinkat", 1, 's' },
	{ "mkdirat", 1, 's' }, { "readlinkat", 1, 's' }, { "renameat", 1, 's' },
	{ "renameat2", 1, 's' }, { "execveat", 1, 's' }, { "utimensat", 1, 's' },
	{ "read", 0, 'f' }, { "write", 0, 'f' }, { "pread64", 0, 'f' }, { "pwrite64", 0, 'f' },
	{ "readv", 0, 'f' }, { "writev", 0, 'f' }, { "preadv", 0, 'f' }, { "pwritev", 0, 'f' },
	{ "preadv2", 0, 'f' }, { "pwritev2", 0, 'f' }, { "fsync", 0, 'f' },
	{ "fdatasync", 0, 'f' }, { "fstat", 0, 'f' }, { "ftruncate", 0, 'f' },
	{ "fallocate", 0, 'f' }, { "flock", 0, 'f' }, { "fcntl", 0, 'f' }, { "ioctl", 0, 'f' },
	{ "getdents64", 0, 'f' }, { "lseek", 0, 'f' }, { "sendfile", 0, 'f' },
	{ "recvfrom", 0, 'f' }, { "sendto", 0, 'f' }, { "recvmsg", 0, 'f' }, { "sendmsg", 0, 'f' },
	{ "connect", 0, 'f' }, { "accept", 0, 'f' }, { "accept4", 0, 'f' },
	{ "copy_file_range", 0, 'f' }, { "splice", 0, 'f' }, { "sync_file_range", 0, 'f' },
};
#define N_BLOCKER_ARGS (sizeof blocker_args / sizeof *blocker_args)

/* Syscalls that open a path: the fd they return is named by it. */
static const char *const opens[] = { "open", "openat", "openat2", "creat", NULL };

/* "args->id == A || ..." (or with "$nr") of the syscalls of KIND, or of
 * INDEX (index >= 0); "" when none exists here. */
static void put_ids(buf *b, const char *var, char kind, int index)
{
	bool first = true;
	for (size_t i = 0; i < N_BLOCKER_ARGS; i++) {
		int nr = systab_syscall_nr(blocker_args[i].syscall);
		if (nr < 0 || blocker_args[i].kind != kind ||
		    (index >= 0 && blocker_args[i].index != index))
			continue;
		buf_printf(b, "%s%s == %d", first ? "" : " || ", var, nr);
		first = false;
	}
}

/* The statements that print a blocker record whose argument is of KIND
 * when the window has room for it (else count it), indented by INDENT. */
static void put_blocker_printf(buf *b, char kind, const char *indent)
{
	buf_printf(b, "%sif (@evn__why < %d) {\n%s\t@evn__why = @evn__why + 1;\n", indent,
		   GEN_SLICE_LIMIT, indent);
	buf_printf(b, "%s\tprintf(\"bpfspec:ev %s %%lld %%d %%d %%lld %%lld %%ld ", indent, WHY_NAME);
	switch (kind) {
	case 's':
		buf_puts(b, "s %s\\n\", $t0, tid, $p, $nr, $ns, args->ret, "
			    "str(uptr(@arg__why[$k])));\n");
		break;
	case 'f':
		buf_puts(b, "f %lld\\n\", $t0, tid, $p, $nr, $ns, args->ret, @arg__why[$k]);\n");
		break;
	default:
		buf_puts(b, "- -\\n\", $t0, tid, $p, $nr, $ns, args->ret);\n");
	}
	buf_printf(b, "%s} else {\n%s\t@evdrop__why = count();\n%s}\n", indent, indent, indent);
}

/* With stacks: a profile probe that counts the user stacks of threads
 * running inside an attributed phase that has lasted the spec's
 * 'stacks' (@stk__why[P, tid, stack]).  It fires on every CPU; the
 * program returns at once for any other thread. */
static char *profile_probe(const gen_parts *pt, const resolved *r)
{
	char *out = NULL;
	if (!r->sp->stack_ns)
		return NULL;
	if (asprintf(&out, "profile:hz:%d\n{\n\t$k = (int64)tid;\n\t$p = @ph__why[$k];\n"
			   "\tif (%s$p != 0) {\n\t\t$t = @pht__why[$k];\n"
			   "\t\tif ($t >= kptr(@wstart) && (int64)nsecs - $t >= %llu) {\n"
			   "\t\t\t@stk__why[$p, $k, ustack(%d)] = count();\n\t\t}\n\t}\n}\n",
		     WHY_STACK_HZ, pt->pid_test, (unsigned long long)r->sp->stack_ns,
		     WHY_STACK_FRAMES) < 0)
		return NULL;
	return out;
}

/* The number of the attributed probe timing libuv's poll phase (whose
 * epoll waits are the idle loop's), 0 when none is. */
static size_t poll_phase(const resolved *r)
{
	for (size_t i = 0; i < r->n_probes; i++)
		if (attributed(r, i) && r->probes[i].sp->function &&
		    strcmp(r->probes[i].sp->function, "uv__io_poll") == 0)
			return i + 1;
	return 0;
}

int why_emit(gen_parts *pt, const resolved *r)
{
	static const char *const printed[] = { "cpu", "wait", "slp", "sys", WIRE_DROPPED, NULL };
	static const char *const counter[] = { "evn", "evo", NULL };
	static const char *const in_flight[] = { "ph", "pht", "run", "off", "rq", "sc", "st", "arg",
						 "loop", "nest", NULL };
	buf store = BUF_INIT, waits = BUF_INIT, plain = BUF_INIT, path = BUF_INIT,
	    open_test = BUF_INIT, paths = BUF_INIT, fds = BUF_INIT, ones = BUF_INIT;
	char threshold[32], limit[32], close_nr[16];

	buf_puts(&store, "\t\t$a = (int64)args->args[0];\n");
	put_ids(&ones, "args->id", 's', 1);
	if (ones.len)
		buf_printf(&store, "\t\tif (%s) { $a = (int64)args->args[1]; }\n", ones.data);
	size_t poll = poll_phase(r);
	for (size_t k = 0; poll && spec_loop_waits[k]; k++) {
		int nr = systab_syscall_nr(spec_loop_waits[k]);
		if (nr >= 0)
			buf_printf(&waits, "%s$nr == %d", waits.len ? " || " : "", nr);
	}
	for (size_t k = 0; opens[k]; k++) {
		int nr = systab_syscall_nr(opens[k]);
		if (nr >= 0)
			buf_printf(&open_test, "%s$nr == %d", open_test.len ? " || " : "", nr);
	}
	put_ids(&paths, "$nr", 's', -1);
	put_ids(&fds, "$nr", 'f', -1);
	/* the fd's or no argument's records, here; the path's, in the next
	 * probe */
	buf_printf(&plain, "\t\t\t\tif (%s) {\n", fds.len ? fds.data : "0");
	put_blocker_printf(&plain, 'f', "\t\t\t\t\t");
	buf_puts(&plain, "\t\t\t\t} else {\n");
	put_blocker_printf(&plain, '-', "\t\t\t\t\t");
	buf_puts(&plain, "\t\t\t\t}");
	put_blocker_printf(&path, 's', "\t\t\t");
	char *not_waits = NULL, *no_path = NULL;
	if (asprintf(&not_waits, waits.len ? " && !($p == %zu && (%s))" : "", poll, waits.data) < 0)
		not_waits = NULL;
	if (asprintf(&no_path, " && !(%s)", paths.len ? paths.data : "0") < 0)
		no_path = NULL;
	snprintf(threshold, sizeof threshold, "%llu", (unsigned long long)r->sp->blocker_ns);
	snprintf(limit, sizeof limit, "%d", GEN_SLICE_LIMIT);
	snprintf(close_nr, sizeof close_nr, "%d", systab_syscall_nr("close"));
	char *st = gen_chop(buf_take(&store)), *pl = buf_take(&plain),
	     *pa = gen_chop(buf_take(&path)), *ot = buf_take(&open_test),
	     *pt_ = buf_take(&paths), *profile = profile_probe(pt, r);
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "pid_test", pt->pid_test);
	gen_vars_set(&v, "pid_filter", pt->pid_filter);
	gen_vars_set(&v, "store_arg", st);
	gen_vars_set(&v, "not_waits", not_waits);
	gen_vars_set(&v, "no_path", no_path);
	gen_vars_set(&v, "path_test", pt_ && *pt_ ? pt_ : "0");
	gen_vars_set(&v, "threshold", threshold);
	gen_vars_set(&v, "limit", limit);
	gen_vars_set(&v, "close_nr", close_nr);
	gen_vars_set(&v, "print_plain", pl);
	gen_vars_set(&v, "print_path", pa);
	gen_vars_set(&v, "open_test", ot && *ot ? ot : "0");
	gen_vars_set(&v, "profile", profile);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "why.bt.in", &v);
	/* sched_switch, sched_wakeup, sched_process_exit, sys_enter, two
	 * sys_exit, and the profile probe */
	pt->attach += 6 + (profile != NULL);
	free(st);
	free(pl);
	free(pa);
	free(ot);
	free(pt_);
	free(not_waits);
	free(no_path);
	buf_free(&waits);
	buf_free(&fds);
	buf_free(&ones);
	gen_add_maps(pt, WHY_NAME, printed, counter, in_flight);
	if (profile) {
		/* printed last: bpftrace names every frame as it prints them */
		static const char *const stacks[] = { "stk", NULL };
		gen_add_maps(pt, WHY_NAME, stacks, NULL, NULL);
		free(profile);
	}
	return rc;
}

/* ---- report --------------------------------------------------------- */

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

enum part { PART_CPU, PART_WAIT, PART_SLEEP, PART_CALLS, PART_TIME };

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
	case PART_SLEEP:
		if (nr < 0) {
			s->other_ns += v;
			return 0;
		}
		s->blocked_ns += v;
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
		size_t want = part == PART_CPU || part == PART_WAIT ? 2 : 3;
		/* the syscalls' map holds stats(): count and total */
		bool stats = part == PART_CALLS;
		if (e->n_ikeys != want || e->ikeys[0] < 1 || (size_t)e->ikeys[0] > rep->n_probes ||
		    (stats ? e->type != BPFOUT_VALUE_STATS || e->stats_total < 0 : e->value <= 0))
			continue;
		report_probe *p = &rep->probes[e->ikeys[0] - 1];
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

/* Parses blocker record REC ("_why START TID P NR NS RET KIND ARG") into
 * EV.  Returns 1 when it is one inside the window that began at BEGIN, 0
 * when not, -1 when malformed or out of memory. */
static int parse_blocker_fields(const report *rep, const char *rec, uint64_t begin,
				report_event *ev)
{
	size_t nl = strlen(WHY_NAME);
	if (strncmp(rec, WHY_NAME, nl) != 0 || rec[nl] != ' ')
		return 0;
	long long start, ns, ret;
	long tid, phase, nr;
	char kind;
	int used = 0;
	if (sscanf(rec + nl + 1, "%lld %ld %ld %ld %lld %lld %c%n", &start, &tid, &phase, &nr, &ns,
		   &ret, &kind, &used) != 7 || used == 0 || phase < 1 || (size_t)phase > rep->n_probes ||
	    ns < 0 || start < 0)
		return -1;
	/* ended before the window (read late from another CPU's buffer) */
	if ((uint64_t)start + (uint64_t)ns < begin)
		return 0;
	const char *arg = rec + nl + 1 + used;
	if (*arg == ' ')
		arg++;	/* one space; a path's own leading spaces are kept */
	/* a call that began in the window before (with -i) counts from its start */
	ev->t_ns = (uint64_t)start > begin ? (uint64_t)start - begin : 0;
	ev->tid = tid;
	ev->latency_ns = (uint64_t)ns;
	ev->ret = ret;
	if (!(ev->syscall = report_exit_syscall_name(nr)) ||
	    !(ev->phase = strdup(rep->probes[phase - 1].name)))
		return -1;
	if (ret < 0 && ret > -4096) {
		const char *en = systab_errno_name((long)-ret);
		if (en ? !(ev->error = strdup(en)) : asprintf(&ev->error, "E%lld", -ret) < 0)
			return -1;
	}
	if (kind == 'f') {
		ev->has_fd = true;
		ev->fd = strtol(arg, NULL, 10);
	} else if (kind == 's' && *arg) {
		if (!(ev->path = strdup(arg)))
			return -1;
		ev->path_truncated = strlen(arg) >= REPORT_PATH_MAX;
	}
	/* the thread's name as the phase's group has it, else /proc's */
	const report_probe *p = &rep->probes[phase - 1];
	for (size_t g = 0; g < p->n_groups && !ev->thread; g++)
		if (p->groups[g].tid == tid && p->groups[g].thread &&
		    !(ev->thread = strdup(p->groups[g].thread)))
			return -1;
	if (!ev->thread)
		ev->thread = report_thread_name(rep->pid, tid);
	return 1;
}

/* Frees what blocker EV holds. */
static void free_blocker(report_event *ev)
{
	free(ev->syscall);
	free(ev->phase);
	free(ev->error);
	free(ev->path);
	free(ev->thread);
}

static int parse_blocker(const report *rep, const char *rec, uint64_t begin, report_event *ev)
{
	memset(ev, 0, sizeof *ev);
	int rc = parse_blocker_fields(rep, rec, begin, ev);
	if (rc < 0)
		free_blocker(ev);
	return rc;
}

static int blocker_order(const void *a, const void *b)
{
	const report_event *x = a, *y = b;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/* The path of the last open of fd FD at or before START (bpftrace's
 * clock) among W's open records ("_whyo START TID FD PATH"), or NULL. */
static bool is_open(long nr)
{
	for (size_t k = 0; opens[k]; k++)
		if (systab_syscall_nr(opens[k]) == nr)
			return true;
	return false;
}

/* What record REC says of an fd: 1 it was opened (*PATH: with what), 0
 * closed, -1 neither; *T when, *FD which.  Opens: "_whyo T TID FD PATH"
 * and a blocker of an open syscall that succeeded; closes: "_whyc T TID
 * FD". */
static int fd_event(const char *rec, unsigned long long *t, long *fd, const char **path)
{
	static const char open_word[] = WHY_NAME "o ", close_word[] = WHY_NAME "c ",
			  blocker_word[] = WHY_NAME " ";
	long tid, phase, nr;
	long long ns;
	char kind;
	int used = 0;
	if (strncmp(rec, open_word, sizeof open_word - 1) == 0 &&
	    sscanf(rec + sizeof open_word - 1, "%llu %ld %ld%n", t, &tid, fd, &used) == 3 && used) {
		*path = rec + sizeof open_word - 1 + used;
		*path += **path == ' ';
		return 1;
	}
	if (strncmp(rec, close_word, sizeof close_word - 1) == 0 &&
	    sscanf(rec + sizeof close_word - 1, "%llu %ld %ld", t, &tid, fd) == 3)
		return 0;
	if (strncmp(rec, blocker_word, sizeof blocker_word - 1) == 0 &&
	    sscanf(rec + sizeof blocker_word - 1, "%llu %ld %ld %ld %lld %ld %c%n", t, &tid, &phase,
		   &nr, &ns, fd, &kind, &used) == 7 && used && kind == 's' && *fd >= 0 &&
	    is_open(nr)) {
		*path = rec + sizeof blocker_word - 1 + used;
		*path += **path == ' ';
		return 1;
	}
	return -1;
}

/* The path fd FD was opened with, as W's records have it: the last open
 * or close of FD at or before START (bpftrace's clock), when it is an
 * open; else NULL (not seen, or closed since). */
static const char *opened_path(const bpfout_window *w, long fd, uint64_t start)
{
	const char *best = NULL;
	unsigned long long best_t = 0;
	bool seen = false;
	for (size_t i = 0; i < w->n_events; i++) {
		unsigned long long t;
		long f;
		const char *path = NULL;
		int kind = fd_event(w->events[i], &t, &f, &path);
		if (kind < 0 || f != fd || t > start || (seen && t < best_t))
			continue;
		seen = true;
		best_t = t;
		best = kind == 1 ? path : NULL;
	}
	return best;
}

static int fill_blockers(report *rep, const bpfout_window *w, uint64_t begin_ns)
{
	const bpfout_map *m = report_window_map(w, WIRE_DROPPED, WHY_NAME);
	const bpfout_entry *e = m ? bpfout_map_entry(m, "") : NULL;
	rep->blockers_dropped = (e && e->value > 0 ? (uint64_t)e->value : 0) +
				bpfout_dropped_records(w, WHY_NAME);
	for (size_t i = 0; i < w->n_events; i++) {
		report_event ev;
		int rc = parse_blocker(rep, w->events[i], begin_ns, &ev);
		if (rc == 0)
			continue;
		if (rc < 0) {
			/* malformed (a bug of ours) or out of memory: counted as
			 * not recorded, never fatal to the report */
			rep->blockers_dropped++;
			continue;
		}
		report_event *nb = realloc(rep->blockers, (rep->n_blockers + 1) * sizeof *nb);
		if (!nb) {
			free_blocker(&ev);
			return -1;
		}
		rep->blockers = nb;
		nb[rep->n_blockers++] = ev;
		const char *path = ev.has_fd ? opened_path(w, ev.fd, begin_ns + ev.t_ns) : NULL;
		report_event *b = &nb[rep->n_blockers - 1];
		if (path && *path) {
			if (!(b->path = strdup(path)))
				return -1;
			b->path_truncated = strlen(path) >= REPORT_PATH_MAX;
		}
	}
	if (rep->n_blockers)
		qsort(rep->blockers, rep->n_blockers, sizeof *rep->blockers, blocker_order);
	return 0;
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

/* The frames of a stack as bpftrace prints a ustack() key (one frame a
 * line, innermost first, "name+offset"; 0.24+ drop the spaces in names)
 * in folded form: outermost first, joined by ';', offsets dropped.
 * Owned; NULL out of memory. */
static char *folded_frames(const char *text)
{
	const char *lines[WHY_STACK_FRAMES + 8];
	size_t lens[WHY_STACK_FRAMES + 8], n = 0;
	for (const char *s = text; *s && n < sizeof lines / sizeof *lines;) {
		while (*s == '\n' || *s == ' ' || *s == '\t' || (s[0] == '\\' && s[1] == 'n'))
			s += s[0] == '\\' ? 2 : 1;
		if (!*s)
			break;
		const char *e = frame_end(s);
		size_t len = (size_t)(e - s);
		const char *plus = memrchr(s, '+', len);
		size_t digits = plus ? (size_t)(s + len - plus - 1) : 0;
		if (plus && plus > s && digits && strspn(plus + 1, "0123456789") >= digits)
			len = (size_t)(plus - s);
		if (len) {
			lines[n] = s;
			lens[n++] = len;
		}
		s = e;
	}
	buf b = BUF_INIT;
	for (size_t i = n; i-- > 0;) {
		if (i + 1 < n)
			buf_putc(&b, ';');
		for (size_t k = 0; k < lens[i]; k++)
			buf_putc(&b, lines[i][k] == ';' ? ':' : lines[i][k]);
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

/* The stacks map (keys "P,TID,\n frames...") into the probes'. */
static int fill_stacks(report *rep, const bpfout_window *w)
{
	const bpfout_map *m = report_window_map(w, "stk", WHY_NAME);
	for (size_t i = 0; m && i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		char *end;
		long phase = strtol(e->key, &end, 10), tid;
		if (*end != ',' || phase < 1 || (size_t)phase > rep->n_probes || e->value <= 0)
			continue;
		tid = strtol(end + 1, &end, 10);
		if (*end != ',')
			continue;
		report_probe *p = &rep->probes[phase - 1];
		char *frames = folded_frames(end + 1);
		if (!frames)
			return -1;
		p->stack_samples += (uint64_t)e->value;
		/* stacks that differ only in offsets are one once folded */
		size_t k = 0;
		while (k < p->n_stacks && !(p->stacks[k].tid == tid && strcmp(p->stacks[k].frames, frames) == 0))
			k++;
		if (k < p->n_stacks) {
			p->stacks[k].samples += (uint64_t)e->value;
			free(frames);
			continue;
		}
		report_stack *ns = realloc(p->stacks, (p->n_stacks + 1) * sizeof *ns);
		if (!ns) {
			free(frames);
			return -1;
		}
		p->stacks = ns;
		ns[p->n_stacks++] = (report_stack){ .tid = tid, .samples = (uint64_t)e->value,
						    .frames = frames };
	}
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
	char path[96], line[256];
	long nspid = pid;
	if (pid <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "NSpid:", 6) == 0) {
			char *last = strrchr(line, '\t');
			nspid = strtol(last ? last + 1 : line + 6, NULL, 10);
		}
	fclose(f);
	snprintf(path, sizeof path, "/proc/%ld/root/tmp/perf-%ld.map", pid, nspid);
	return access(path, R_OK) == 0;
}

int why_fill(report *rep, const resolved *r, const bpfout_window *w, uint64_t begin_ns)
{
	static const struct { const char *prefix; enum part part; } parts[] = {
		{ "cpu", PART_CPU }, { "wait", PART_WAIT }, { "slp", PART_SLEEP },
		{ "sys", PART_CALLS },
	};
	if (!why_wanted(r))
		return 0;
	rep->attributed = true;
	rep->blocker_ns = r->sp->blocker_ns;
	rep->stack_ns = r->sp->stack_ns;
	rep->js_symbols = rep->stack_ns ? has_perf_map(rep->pid) : -1;
	if (rep->js_symbols == 0 &&
	    report_add_warning(rep, "JavaScript frames in the stacks have no names: the target "
				    "wrote no perf map; start node with --perf-basic-prof (or "
				    "--perf-basic-prof-only-functions) to name them (native frames "
				    "are named either way)") < 0)
		return -1;
	for (size_t i = 0; i < r->n_probes && i < rep->n_probes; i++)
		rep->probes[i].attributed = attributed(r, i);
	if (!w)
		return 0;
	for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
		if (read_part(rep, w, parts[k].prefix, parts[k].part) < 0)
			return -1;
	for (size_t i = 0; i < rep->n_probes; i++)
		if (rep->probes[i].attributed && total_split(&rep->probes[i]) < 0)
			return -1;
	if (fill_stacks(rep, w) < 0)
		return -1;
	return fill_blockers(rep, w, begin_ns);
}
