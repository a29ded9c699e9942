/* why — attribution of latency phases; see why.h. */
#include "attribution/why.h"
#include "attribution/why_v8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/wire.h"
#include "program/generator.h"
#include "program/generator_internal.h"
#include "spec/spec.h"
#include "target/v8meta.h"
#include "util/systab.h"

bool why_wanted(const resolved *r)
{
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].active && r->probes[i].sp->kind == PROBE_LATENCY &&
		    r->probes[i].sp->attribute)
			return true;
	return false;
}

/* ---- gen: the phases' hooks ---------------------------------------- */

bool why_attributed(const resolved *r, size_t i)
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
static void put_close(buf *b, const gen_parts *pt, const char *cond, const char *in)
{
	buf_printf(b, "%s// the phase the thread was in ends here: the time since its last\n"
		      "%s// change of state goes to that state (running, unless an event was\n"
		      "%s// missed), and a call of the window adds its parts to the window's\n"
		      "%s$wp = @ph__why[$wk];\n", in, in, in, in);
	buf_printf(b, "%sif (%s) {\n", in, *cond ? cond : "$wp != kptr(0)");
	buf_printf(b, "%s\t$we = kptr($now) - @ts__why[$wk];\n"
		      "%s\tif (@st__why[$wk] == 0) {\n"
		      "%s\t\t@pcpu__why[$wk] = @pcpu__why[$wk] + $we;\n"
		      "%s\t} else {\n"
		      "%s\t\tif (@st__why[$wk] == 1) {\n"
		      "%s\t\t\t@pwait__why[$wk] = @pwait__why[$wk] + $we;\n"
		      "%s\t\t} else {\n"
		      "%s\t\t\t@poth__why[$wk] = @poth__why[$wk] + $we;\n"
		      "%s\t\t}\n%s\t}\n", in, in, in, in, in, in, in, in, in, in);
	buf_printf(b, "%s\tif (@pht__why[$wk] >= kptr(@wstart)) {\n"
		      "%s\t\t@cpu__why[$wp, $wk] = sum(@pcpu__why[$wk]);\n"
		      "%s\t\t@wait__why[$wp, $wk] = sum(@pwait__why[$wk]);\n"
		      "%s\t\t@blk__why[$wp, $wk] = sum(@pblk__why[$wk]);\n"
		      "%s\t\t@oth__why[$wp, $wk] = sum(@poth__why[$wk]);\n"
		      "%s\t}\n%s\t@ph__why[$wk] = kptr(0);\n", in, in, in, in, in, in, in);
	/* deleted, not set to kptr(0): that would make them unsigned, and
	 * bpftrace warns at their sums with the tracepoints' signed times */
	static const char *const pending[] = { "pcpu", "pwait", "pblk", "poth" };
	for (size_t k = 0; k < sizeof pending / sizeof *pending; k++)
		buf_printf(b, "%s\t%s(@%s__why[$wk]);\n", in, pt->delete_call, pending[k]);
	buf_printf(b, "%s}\n", in);
}

/* The statements that begin phase number PHASE of R on the thread
 * (running; with entry-only timing, in its own loop: no nested loop runs
 * yet). */
static void put_open(buf *b, const resolved *r, size_t phase, const char *in)
{
	buf_printf(b, "%s@ph__why[$wk] = kptr(%zu);\n%s@pht__why[$wk] = kptr($now);\n"
		      "%s@ts__why[$wk] = kptr($now);\n%s@st__why[$wk] = kptr(0);\n", in, phase, in,
		   in, in);
	if (r->sp->entry_only)
		buf_printf(b, "%s@lnest__why[$wk] = kptr(0);\n", in);
}

const char *why_nested_entry(const resolved *r)
{
	return why_wanted(r) ? "@lnest__why[(int64)tid] = kptr(1); " : "";
}

/* Entry of probe I.  (A libuv phase's templates return before this for
 * a call of a nested loop: node's spawnSync and execSync run a loop of
 * their own on the thread, whose wait thus stays in the phase that
 * called it.)  The thread's phase ends: any, at the entry of an
 * attributed probe or of any phase when entry-only; else only the
 * derived attributed phases whose gap ends here (a probe that is not
 * attributed does not end an attributed one it runs inside). */
static char *entry_hook(const gen_parts *pt, const resolved *r, size_t i)
{
	buf b = BUF_INIT, cond = BUF_INIT;
	bool close = why_attributed(r, i) || r->sp->entry_only;
	for (size_t d = 0; !close && d < r->n_probes; d++)
		for (size_t k = 0; r->probes[d].derived && why_attributed(r, d) &&
				   k < r->probes[d].n_gaps; k++)
			if (r->probes[d].gap_before[k] == i)
				put_in_phase(&cond, d + 1);
	buf_puts(&b, "\t// attribution (gen/attribution/why.h)\n\t$wk = (int64)tid;\n");
	if (close || cond.len)
		put_close(&b, pt, cond.len ? cond.data : "", "\t");
	if (why_attributed(r, i))
		put_open(&b, r, i + 1, "\t");
	buf_free(&cond);
	return gen_chop(buf_take(&b));
}

/* Return of probe I (entry-return): probe I's phase ends, and a derived
 * attributed phase whose gap starts here begins. */
static char *return_hook(const gen_parts *pt, const resolved *r, size_t i)
{
	buf b = BUF_INIT, cond = BUF_INIT;
	buf_puts(&b, "\t// attribution (gen/attribution/why.h)\n\t$wk = (int64)tid;\n");
	if (why_attributed(r, i)) {
		put_in_phase(&cond, i + 1);
		put_close(&b, pt, cond.data, "\t");
	}
	for (size_t d = 0; d < r->n_probes; d++) {
		const resolved_probe *dp = &r->probes[d];
		for (size_t k = 0; dp->derived && why_attributed(r, d) && k < dp->n_gaps; k++)
			if (dp->gap_after[k] == i)
				put_open(&b, r, d + 1, "\t");
	}
	buf_free(&cond);
	return gen_chop(buf_take(&b));
}

char *why_hooks(const gen_parts *pt, const resolved *r, size_t i, bool entry)
{
	if (!why_wanted(r))
		return NULL;
	return entry ? entry_hook(pt, r, i) : return_hook(pt, r, i);
}

/* ---- gen: the tracepoints ------------------------------------------ */

/* What a record shows of a syscall's arguments: a path ('s', at
 * args[index]; an 's' record), an fd ('f', args[0], with the path it was
 * opened with when seen; an 'n' record), or nothing (an 'n' record whose
 * number means nothing). */
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
	{ "close", 0, 'f' },
};
#define N_BLOCKER_ARGS (sizeof blocker_args / sizeof *blocker_args)

/* Syscalls that open a path: the fd they return is named by it. */
static const char *const opens[] = { "open", "openat", "openat2", "creat", NULL };

void why_syscall_table(why_syscalls *t)
{
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < N_BLOCKER_ARGS; i++) {
		int nr = systab_syscall_nr(blocker_args[i].syscall);
		if (nr >= 0 && nr < WHY_MAX_NR)
			t->kind[nr] = blocker_args[i].kind;
	}
	for (size_t k = 0; opens[k]; k++) {
		int nr = systab_syscall_nr(opens[k]);
		if (nr >= 0 && nr < WHY_MAX_NR)
			t->opens[nr] = true;
	}
	t->close_nr = systab_syscall_nr("close");
}

/* "VAR == A || ..." of the syscalls of KIND, or of KIND at INDEX (index
 * >= 0); "" when none exists here. */
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

/* "(int64)$fp - 8" for OFF -8, "$fp + (uint64)16" for 16: bpftrace 0.27
 * warns at an unsigned address met by a signed constant, and at a
 * difference of unsigned values (which it makes signed). */
static void put_offset(buf *b, const char *var, int off)
{
	if (off < 0)
		buf_printf(b, "(int64)%s - %d", var, -off);
	else
		buf_printf(b, "%s + (uint64)%d", var, off);
}

/* Appends the statements that put the mark of $sSLOT's function
 * (v8meta_sfi_mark: a hash of its length, parameter count and token
 * offset) above its address, the record the heap reader checks
 * (target/v8meta.h); an address above V8META_ADDRESS_BITS is no
 * function's, and leaves the frame unwalked. */
static void put_frame_mark(buf *b, const v8meta *m, int slot)
{
	const char *in = "\t\t\t\t\t\t";
	char var[16];
	snprintf(var, sizeof var, "$s%d", slot);
	buf_printf(b, "%sif ((%s >> %d) == (uint64)0) {\n%s\t$w = *(uint64 *)uptr(", in, var,
		   V8META_ADDRESS_BITS, in);
	put_offset(b, var, m->sfi_length - m->heap_tag);
	buf_printf(b, ") & (uint64)0x%llx;\n", (unsigned long long)V8META_ADDRESS_MASK);
	buf_printf(b, "%s\t%s = %s | ((($w * (uint64)0x%llx) >> %d) << %d);\n", in, var, var,
		   (unsigned long long)V8META_MARK_MULTIPLIER, 64 - V8META_MARK_BITS,
		   V8META_ADDRESS_BITS);
	buf_printf(b, "%s} else {\n%s\t%s = (uint64)0;\n%s}\n", in, in, var, in);
}

/* Appends the walk of one frame of the frame-pointer chain: when $fp is
 * a frame whose context slot holds a heap object (not a marker: a small
 * integer) and whose function slot a JSFunction (its map's instance
 * type), $sSLOT gets the function's SharedFunctionInfo; $fp moves to the
 * caller's frame.  Sequential blocks, never nested ternaries (bpftrace
 * 0.23's compiler crashes on those). */
static void put_frame_walk(buf *b, const v8meta *m, int slot)
{
	const char *in = "\t\t\t";
	buf_printf(b, "%sif ($fp != (uint64)0) {\n%s\t$c = *(uint64 *)uptr(", in, in);
	put_offset(b, "$fp", m->fp_context);
	buf_printf(b, ");\n%s\t$f = *(uint64 *)uptr(", in);
	put_offset(b, "$fp", m->fp_function);
	buf_printf(b, ");\n%s\tif (($c & (uint64)%d) != (uint64)0 && ($f & (uint64)%d) == (uint64)%d) {\n",
		   in, m->smi_tag_mask, m->heap_tag_mask, m->heap_tag);
	buf_printf(b, "%s\t\t$m = *(uint64 *)uptr(", in);
	put_offset(b, "$f", m->map_off - m->heap_tag);
	buf_printf(b, ");\n%s\t\tif ((uint64)*(uint16 *)uptr(", in);
	put_offset(b, "$m", m->map_instance_type - m->heap_tag);
	buf_printf(b, ") == (uint64)%d) {\n%s\t\t\t$s%d = *(uint64 *)uptr(", m->type_jsfunction,
		   in, slot);
	put_offset(b, "$f", m->jsfunction_shared - m->heap_tag);
	buf_puts(b, ");\n");
	put_frame_mark(b, m, slot);
	buf_printf(b, "%s\t\t}\n%s\t}\n%s\t$fp = *(uint64 *)uptr($fp);\n%s}\n", in, in, in, in);
}

/* The statements that fill $s0..$s(WHY_V8_FRAMES-1) from the sampled
 * thread's frame pointer (0 for a sample taken in the kernel, whose
 * registers are the kernel's). */
static void put_walk(buf *b, const v8meta *m)
{
	buf_puts(b, "\t\t\t// JavaScript frames: the SharedFunctionInfo of each frame of\n"
		    "\t\t\t// the frame-pointer chain (gen/target/v8meta.h), paired with\n"
		    "\t\t\t// ustack's entries by position on that chain\n"
		    "\t\t\t$fp = (uint64)0;\n"
		    "\t\t\tif (reg(\"ip\") < (uint64)0x800000000000) {\n"
		    "\t\t\t\t$fp = reg(\"bp\");\n\t\t\t}\n");
	for (int k = 0; k < WHY_V8_FRAMES; k++)
		buf_printf(b, "\t\t\t$s%d = (uint64)0;\n", k);
	for (int k = 0; k < WHY_V8_FRAMES; k++)
		put_frame_walk(b, m, k);
}

/* With stacks: a profile probe that counts the user stacks of threads
 * running inside an attributed phase that has lasted the spec's
 * 'stacks' (@stk__why[P, tid, stack], or with V8 metadata M
 * @stk__why[P, tid, S0..S15, stack], the SharedFunctionInfos of the
 * chain's frames).  It fires on every CPU; the program returns at once
 * for any other thread. */
static char *profile_probe(const gen_parts *pt, const resolved *r, const v8meta *m)
{
	buf b = BUF_INIT;
	if (!r->sp->stack_ns)
		return NULL;
	buf_printf(&b, "profile:hz:%d\n{\n\t$k = (int64)tid;\n\t$p = @ph__why[$k];\n"
		       "\tif (%s$p != 0) {\n\t\t$t = @pht__why[$k];\n"
		       "\t\tif ($t >= kptr(@wstart) && (int64)nsecs - $t >= %llu) {\n",
		   WHY_STACK_HZ, pt->pid_test, (unsigned long long)r->sp->stack_ns);
	if (m) {
		put_walk(&b, m);
		buf_puts(&b, "\t\t\t@stk__why[$p, $k");
		for (int k = 0; k < WHY_V8_FRAMES; k++)
			buf_printf(&b, ", $s%d", k);
		buf_printf(&b, ", ustack(%d)] = count();\n", WHY_STACK_FRAMES);
	} else {
		buf_printf(&b, "\t\t\t@stk__why[$p, $k, ustack(%d)] = count();\n",
			   WHY_STACK_FRAMES);
	}
	buf_puts(&b, "\t\t}\n\t}\n}\n");
	return buf_take(&b);
}

/* The V8 layout of R's executable into M when it carries usable
 * metadata and the walk is not off (why_v8.h).  Returns M, or NULL (the
 * stacks are sampled without the walk; why_report.c says why). */
static const v8meta *target_v8meta(const resolved *r, v8meta *m)
{
	char err[256];
	if (!r->sp->stack_ns || !r->tg || !r->tg->exe || why_v8_walk_off() ||
	    v8meta_read(r->tg->exe, m, err, sizeof err) < 0 || v8meta_check(m, err, sizeof err) < 0)
		return NULL;
	return m;
}

/* The number of the attributed probe timing libuv's poll phase (whose
 * epoll waits are the idle loop's), 0 when none is. */
static size_t poll_phase(const resolved *r)
{
	for (size_t i = 0; i < r->n_probes; i++)
		if (why_attributed(r, i) && r->probes[i].sp->function &&
		    strcmp(r->probes[i].sp->function, "uv__io_poll") == 0)
			return i + 1;
	return 0;
}

/* The maps read in a phase's probe before they are set need a type in
 * BEGIN (bpftrace 0.23 would type the variable read from one before the
 * map has one): @ph__why (tid 0, the idle task, is never in a phase), the
 * call's pending parts, the time of the thread's last change of state and
 * its syscall word @sc__why, which sched_switch reads above the syscall
 * probes that set it (0.23 would take it for unsigned, and refuse the
 * signed syscall number computed from it) (signed, in the kernel's
 * address space: the phases' uprobes and the scheduler's tracepoints add
 * to them). */
void why_begin(gen_parts *pt, const resolved *r)
{
	if (why_wanted(r))
		buf_puts(&pt->types, "\t@ph__why[(int64)0] = kptr((int64)0);\n"
				     "\t@pcpu__why[(int64)0] = kptr((int64)0);\n"
				     "\t@pwait__why[(int64)0] = kptr((int64)0);\n"
				     "\t@pblk__why[(int64)0] = kptr((int64)0);\n"
				     "\t@poth__why[(int64)0] = kptr((int64)0);\n"
				     "\t@ts__why[(int64)0] = kptr((int64)0);\n"
				     "\t@sc__why[(int64)0] = kptr((int64)0);\n");
}

/* The statements that store in $a the argument a syscall's record shows
 * (args[0], or args[1] for the syscalls of a path at index 1), without
 * the last newline.  Owned, or NULL when out of memory. */
static char *store_arg(void)
{
	buf store = BUF_INIT, ones = BUF_INIT;

	buf_puts(&store, "\t\t$a = (int64)args->args[0];\n");
	put_ids(&ones, "$nr", 's', 1);
	if (ones.len)
		buf_printf(&store, "\t\tif (%s) { $a = (int64)args->args[1]; }\n", ones.data);
	buf_free(&ones);
	return gen_chop(buf_take(&store));
}

/* Appends to B "$nr == N" (" || "-joined) for each of the NULL-ended
 * SYSCALLS that exists here. */
static void put_nr_tests(buf *b, const char *const *syscalls)
{
	for (size_t k = 0; syscalls[k]; k++) {
		int nr = systab_syscall_nr(syscalls[k]);
		if (nr >= 0)
			buf_printf(b, "%s$nr == %d", b->len ? " || " : "", nr);
	}
}

/* The template's tests of the loop's epoll waits in its poll phase
 * (why.bt.in): *NOT_WAITS (" && !(...)": the loop's own waits are not
 * blockers) and *NESTED_WAIT (the statement that marks a wait inside a
 * nested loop), both "" when no attributed probe times the poll phase.
 * Each owned, or NULL when out of memory. */
static void poll_wait_tests(const resolved *r, char **not_waits, char **nested_wait)
{
	buf waits = BUF_INIT;
	size_t poll = poll_phase(r);

	if (poll)
		put_nr_tests(&waits, spec_loop_waits);
	/* Inside a nested loop: with entry-only timing, since a nested loop's
	 * phase began (why_nested_entry); with pairs, while one is in flight
	 * (latency.c's @pair_nest) around an outer call that began once every
	 * probe was attached (@pair_since: older counts are stale). */
	const char *nested = r->sp->entry_only
			     ? "@lnest__why[$k] != 0"
			     : "@pair_nest[tid] > 0 && kptr(@pair_start[tid]) >= kptr(@pair_since)";
	if (asprintf(not_waits, waits.len ? " && !($p == %zu && (%s))" : "", poll,
		     waits.data) < 0)
		*not_waits = NULL;
	if (asprintf(nested_wait, waits.len ? "\t\tif ($p == %zu && (%s) && %s) {\n"
					      "\t\t\t$nest = %d;\n\t\t}" : "",
		     poll, waits.data, nested, WHY_NESTED_WAIT) < 0)
		*nested_wait = NULL;
	buf_free(&waits);
}

/* Adds the attribution's maps to PT: printed, counted and in flight, and
 * with STACKS the stacks, printed last. */
static void add_maps(gen_parts *pt, bool stacks)
{
	static const char *const printed[] = { "cpu", "wait", "blk", "oth", "slp", "sys",
					       WIRE_DROPPED, NULL };
	static const char *const counter[] = { "evn", "evo", NULL };
	static const char *const in_flight[] = { "ph", "pht", "ts", "st", "sc", "arg",
						 "lnest", "kid", "kidt", "pcpu", "pwait", "pblk", "poth",
						 NULL };

	gen_add_maps(pt, WHY_NAME, printed, counter, in_flight);
	if (stacks) {
		/* printed last: bpftrace names every frame as it prints them */
		static const char *const stack_maps[] = { "stk", NULL };
		gen_add_late_maps(pt, WHY_NAME, stack_maps);
	}
}

int why_emit(gen_parts *pt, const resolved *r)
{
	if (!why_wanted(r))
		return 0;
	buf open_test = BUF_INIT, paths = BUF_INIT;
	char threshold[32], limit[32], close_nr[16], execve_nr[16];
	char *not_waits, *learn;
	v8meta meta;

	poll_wait_tests(r, &not_waits, &learn);
	put_nr_tests(&open_test, opens);
	put_ids(&paths, "$nr", 's', -1);
	snprintf(execve_nr, sizeof execve_nr, "%d", systab_syscall_nr("execve"));
	snprintf(threshold, sizeof threshold, "%llu", (unsigned long long)r->sp->blocker_ns);
	snprintf(limit, sizeof limit, "%d", GEN_SLICE_LIMIT);
	snprintf(close_nr, sizeof close_nr, "%d", systab_syscall_nr("close"));
	char *st = store_arg(), *ot = buf_take(&open_test), *pa = buf_take(&paths),
	     *profile = profile_probe(pt, r, target_v8meta(r, &meta));
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "pid_test", pt->pid_test);
	gen_vars_set(&v, "pid_filter", pt->pid_filter);
	gen_vars_set(&v, "store_arg", st);
	gen_vars_set(&v, "not_waits", not_waits);
	gen_vars_set(&v, "nested_wait", learn);
	gen_vars_set(&v, "execve_nr", execve_nr);
	gen_vars_set(&v, "delete", pt->delete_call);
	gen_vars_set(&v, "path_test", pa && *pa ? pa : "0");
	gen_vars_set(&v, "threshold", threshold);
	gen_vars_set(&v, "limit", limit);
	gen_vars_set(&v, "close_nr", close_nr);
	gen_vars_set(&v, "open_test", ot && *ot ? ot : "0");
	gen_vars_set(&v, "name", WHY_NAME);
	gen_vars_set(&v, "profile", profile);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "why.bt.in", &v);
	/* sched_switch, sched_wakeup, sched_process_exit (the target's
	 * threads, and its children's), sys_enter, sys_exit,
	 * sched_process_fork, sys_enter_execve, and the profile probe */
	pt->attach += 8 + (profile != NULL);
	free(st);
	free(ot);
	free(pa);
	free(not_waits);
	free(learn);
	add_maps(pt, profile != NULL);
	free(profile);
	return rc;
}
