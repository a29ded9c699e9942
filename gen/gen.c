/* gen — see gen.h. */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "systab.h"
#include "tmpl.h"
#include "version.h"
#include "wire.h"

uint64_t gen_bucket_index(uint64_t ns)
{
	if (ns < 16)
		return ns;
	unsigned e = 63 - (unsigned)__builtin_clzll(ns);
	return (uint64_t)(e - 3) * 16 + ((ns >> (e - 4)) & 15);
}

void gen_bucket_bounds(uint64_t index, uint64_t *lo, uint64_t *hi)
{
	if (index < 16) {
		*lo = index;
		*hi = index + 1;
		return;
	}
	unsigned e = (unsigned)(index / 16) + 3;
	uint64_t m = index % 16;
	if (e > 63) {
		*lo = *hi = UINT64_MAX;
		return;
	}
	*lo = (16 + m) << (e - 4);
	*hi = (e == 63 && m == 15) ? UINT64_MAX : (17 + m) << (e - 4);
}

/* A path bpftrace 0.17 can take in an attach point without quoting. */
static int path_is_plain(const char *p)
{
	if (*p != '/')
		return 0;
	for (; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '/' || c == '.' || c == '_' ||
		      c == '-' || c == '+'))
			return 0;
	}
	return 1;
}

/* Appends plain path P (path_is_plain) as an attach point takes it:
 * bpftrace 0.17's lexer stops a bare path at '+' (libstdc++.so.6), so a
 * path with one is quoted. */
static void put_attach_path(buf *b, const char *p)
{
	buf_printf(b, strchr(p, '+') ? "\"%s\"" : "%s", p);
}

/* Appends TYPE:PATH:0xADDR for each of the N addresses, one per line,
 * comma-separated: every uprobe by address is written here. */
static void put_address_points(buf *b, const char *type, const char *path,
			       const uint64_t *addrs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		buf_printf(b, "%s%s:", k ? ",\n" : "", type);
		put_attach_path(b, path);
		buf_printf(b, ":0x%llx", (unsigned long long)addrs[k]);
	}
}

/* Appends S with anything outside printable ASCII replaced by '?'. */
static void put_comment_text(buf *b, const char *s)
{
	for (; s && *s; s++)
		buf_putc(b, (*s >= 0x20 && *s < 0x7f) ? *s : '?');
}

typedef struct vars {
	const char *names[16];
	const char *values[16];
	size_t n;
} vars;

static const char *vars_lookup(const char *name, void *ctx)
{
	const vars *v = ctx;
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->names[i], name) == 0)
			return v->values[i];
	return NULL;
}

static void vars_set(vars *v, const char *name, const char *value)
{
	v->names[v->n] = name;
	v->values[v->n] = value ? value : "";
	v->n++;
}

/* Renders template NAME with V and appends it to OUT. Returns 0 or -1. */
static int render_into(buf *out, const char *name, vars *v)
{
	char err[256];
	const char *text = tmpl_get(name);

	if (!text) {
		diag_error("the build is incomplete; rebuild bpfspec",
			   "template '%s' is missing", name);
		return -1;
	}
	char *r = tmpl_render(name, text, vars_lookup, v, err, sizeof err);
	if (!r) {
		diag_error("this is a bug in bpfspec; please report it", "%s", err);
		return -1;
	}
	buf_puts(out, r);
	free(r);
	return 0;
}

/* Whether the bpftrace O names is MAJOR.MINOR or later (0.0, unknown,
 * is taken as the oldest supported, 0.17). */
static bool bpftrace_at_least(const gen_options *o, int major, int minor)
{
	return o->bpftrace_major > major ||
	       (o->bpftrace_major == major && o->bpftrace_minor >= minor);
}

/* The parts of the program gen_program assembles. */
typedef struct parts {
	buf out;		/* the program so far */
	buf prints;		/* print(@map) statements for every result map */
	buf clears;		/* clear(@map) statements for result maps */
	buf helpers;		/* clear(@map) of helper maps no probe deletes from */
	buf starts;		/* statements that start a window */
	buf finals;		/* clear(@map) of maps only END clears */
	char *bucket;		/* rendered bucket.bt.in, without its last '\n' */
	char pid_filter[64];	/* "/pid == N/" or "" */
	char pid_test[64];	/* "pid == N && " or "" */
	const char *delete_call;	/* "delete" or "$deleted = delete": ${delete}(@m[k]); */
	pid_t pid;
	unsigned attach;	/* attach points added */
} parts;

/* Registers probe NAME's maps: PRINT are printed and cleared with every
 * window, CLEAR_ONLY cleared only, IN_FLIGHT (per-thread entries of calls
 * in progress, which the probes delete as calls end) cleared by END
 * alone. */
static void add_maps(parts *pt, const char *name, const char *const *print,
		     const char *const *clear_only, const char *const *in_flight)
{
	for (; print && *print; print++) {
		buf_printf(&pt->prints, "\tprint(@%s_%s);\n", *print, name);
		buf_printf(&pt->clears, "\tclear(@%s_%s);\n", *print, name);
	}
	for (; clear_only && *clear_only; clear_only++)
		buf_printf(&pt->clears, "\tclear(@%s_%s);\n", *clear_only, name);
	/* The probes delete from these as calls end: a clear() while they
	 * run can meet a key they just deleted, which bpftrace 0.17 does not
	 * survive ("Could not clear map"), so only END clears them; stale
	 * entries from before the window are told apart by @wstart. */
	for (; in_flight && *in_flight; in_flight++)
		buf_printf(&pt->finals, "\tclear(@%s_%s);\n", *in_flight, name);
}

static char *chop(char *s)
{
	if (s && *s)
		s[strlen(s) - 1] = '\0';
	return s;
}

/* The statements that time derived phases (resolve.h) at probe number
 * SELF's entry (ENTRY true: the gaps it ends) or return (the gaps it
 * starts), for every derived probe of R. */
static char *derived_hooks(const parts *pt, const resolved *r, size_t self, bool entry)
{
	buf b = BUF_INIT;

	for (size_t i = 0; i < r->n_probes; i++) {
		const resolved_probe *d = &r->probes[i];
		const char *n = d->sp->name, *key = d->sp->per_thread ? "tid" : "0";
		for (size_t k = 0; d->active && d->derived && k < d->n_gaps; k++) {
			if (!entry && d->gap_after[k] == self) {
				buf_printf(&b, "\t@gap%zu_%s[tid] = (int64)nsecs;\n", k, n);
			} else if (entry && d->gap_before[k] == self) {
				buf_printf(&b, "\t$g = @gap%zu_%s[tid];\n"
					   "\tif ($g != 0 && $g >= @wstart) {\n"
					   "\t\t// derived: %s's gap %zu ends here\n"
					   "\t\t$ns = (int64)nsecs - $g;\n"
					   "\t\t%s(@gap%zu_%s[tid]);\n%s\n"
					   "\t\t@b_%s[%s, $b] = count();\n"
					   "\t\t@sum_%s[%s] = sum($ns);\n"
					   "\t\t@min_%s[%s] = min($ns);\n"
					   "\t\t@max_%s[%s] = max($ns);\n\t}\n",
					   k, n, n, k, pt->delete_call, k, n, pt->bucket, n, key, n, key, n, key,
					   n, key);
			}
		}
	}
	return chop(buf_take(&b));
}

/* A derived phase has no probe of its own: its maps, filled by the hooks
 * of the phases around it, and its gap timestamps. */
static void emit_derived(parts *pt, const resolved_probe *rp)
{

	add_maps(pt, rp->sp->name, wire_of(rp->sp->kind)->cleared, NULL, NULL);
	for (size_t k = 0; k < rp->n_gaps; k++)
		buf_printf(&pt->finals, "\tclear(@gap%zu_%s);\n", k, rp->sp->name);
}

static int emit_latency(parts *pt, const resolved_probe *rp, const char *on_entry,
			const char *on_return)
{
	static const char *const in_flight[] = { "start", NULL };

	if (!path_is_plain(rp->object)) {
		diag_error("bpftrace cannot name this file in a probe; copy or link it to a "
			   "plain path (letters, digits, / . _ - +)",
			   "probe '%s': object path '%s' has characters bpftrace cannot take",
			   rp->sp->name, rp->object);
		return -1;
	}
	buf entry = BUF_INIT, ret = BUF_INIT;
	put_address_points(&entry, "uprobe", rp->object, rp->addrs, rp->n_addrs);
	put_address_points(&ret, "uretprobe", rp->object, rp->addrs, rp->n_addrs);
	char *e = buf_take(&entry), *rt = buf_take(&ret);
	vars v = { .n = 0 };
	vars_set(&v, "name", rp->sp->name);
	vars_set(&v, "function", rp->sp->function);
	vars_set(&v, "entry", e);
	vars_set(&v, "return", rt);
	vars_set(&v, "entry_filter", pt->pid_filter);
	vars_set(&v, "pid_test", pt->pid_test);
	vars_set(&v, "key", rp->sp->per_thread ? "tid" : "0");
	vars_set(&v, "bucket", pt->bucket);
	vars_set(&v, "on_entry", on_entry ? on_entry : "");
	vars_set(&v, "on_return", on_return ? on_return : "");
	buf_putc(&pt->out, '\n');
	vars_set(&v, "delete", pt->delete_call);
	int rc = render_into(&pt->out, "latency.bt.in", &v);
	free(e);
	free(rt);
	pt->attach += 2 * (unsigned)rp->n_addrs;
	add_maps(pt, rp->sp->name, wire_of(rp->sp->kind)->cleared, NULL, in_flight);
	return rc;
}


/* Entry-only timing (spec timing: entry-only): RP is latency probe number
 * INDEX (1-based) of the spec's active latency probes R->probes; its entry
 * closes whichever of them its thread entered last (templates/phase.bt.in). */
static int emit_phase(parts *pt, const resolved *r, const resolved_probe *rp, unsigned index)
{

	if (!path_is_plain(rp->object)) {
		diag_error("bpftrace cannot name this file in a probe; copy or link it to a "
			   "plain path (letters, digits, / . _ - +)",
			   "probe '%s': object path '%s' has characters bpftrace cannot take",
			   rp->sp->name, rp->object);
		return -1;
	}
	buf entry = BUF_INIT, rec = BUF_INIT;
	put_address_points(&entry, "uprobe", rp->object, rp->addrs, rp->n_addrs);
	unsigned i = 0;
	for (size_t k = 0; k < r->n_probes; k++) {
		const resolved_probe *o = &r->probes[k];
		if (!o->active || o->sp->kind != PROBE_LATENCY)
			continue;
		const char *n = o->sp->name, *key = o->sp->per_thread ? "tid" : "0";
		i++;
		buf_printf(&rec, "\t\tif ($prev == %u) {\n"
			   "\t\t\t@b_%s[%s, $b] = count();\n\t\t\t@sum_%s[%s] = sum($ns);\n"
			   "\t\t\t@min_%s[%s] = min($ns);\n\t\t\t@max_%s[%s] = max($ns);\n\t\t}\n",
			   i, n, key, n, key, n, key, n, key);
	}
	char *e = buf_take(&entry), *rc_text = chop(buf_take(&rec)), idx[16];
	snprintf(idx, sizeof idx, "%u", index);
	vars v = { .n = 0 };
	vars_set(&v, "name", rp->sp->name);
	vars_set(&v, "function", rp->sp->function);
	vars_set(&v, "entry", e);
	vars_set(&v, "entry_filter", pt->pid_filter);
	vars_set(&v, "index", idx);
	vars_set(&v, "bucket", pt->bucket);
	vars_set(&v, "record", rc_text);
	buf_putc(&pt->out, '\n');
	int rc = render_into(&pt->out, "phase.bt.in", &v);
	free(e);
	free(rc_text);
	pt->attach += (unsigned)rp->n_addrs;
	add_maps(pt, rp->sp->name, wire_of(rp->sp->kind)->cleared, NULL, NULL);
	if (index == 1)
		buf_puts(&pt->helpers, "\tclear(@phase_cur);\n\tclear(@phase_t);\n");
	return rc;
}

/* Utilization: busy vs idle per thread, from the wait syscalls' enter
 * and exit tracepoints (templates/utilization.bt.in). */
static int emit_utilization(parts *pt, const resolved_probe *rp)
{
	buf enter = BUF_INIT, exit_ = BUF_INIT;

	for (size_t k = 0; spec_loop_waits[k]; k++) {
		buf_printf(&enter, "%stracepoint:syscalls:sys_enter_%s", k ? ",\n" : "", spec_loop_waits[k]);
		buf_printf(&exit_, "%stracepoint:syscalls:sys_exit_%s", k ? ",\n" : "", spec_loop_waits[k]);
		pt->attach += 2;
	}
	char *e = buf_take(&enter), *x = buf_take(&exit_);
	vars v = { .n = 0 };
	vars_set(&v, "name", rp->sp->name);
	vars_set(&v, "enter", e);
	vars_set(&v, "exit", x);
	vars_set(&v, "pid_filter", pt->pid_filter);
	vars_set(&v, "pid_test", pt->pid_test);
	vars_set(&v, "bucket", pt->bucket);
	buf_putc(&pt->out, '\n');
	vars_set(&v, "delete", pt->delete_call);
	int rc = render_into(&pt->out, "utilization.bt.in", &v);
	free(e);
	free(x);
	/* Waits in progress stay across windows: printed, never cleared by a
	 * flush; the window start moves with every flush. */
	add_maps(pt, rp->sp->name, wire_of(rp->sp->kind)->cleared, NULL, NULL);
	for (const char *const *k = wire_of(rp->sp->kind)->kept; *k; k++)
		buf_printf(&pt->prints, "\tprint(@%s_%s);\n", *k, rp->sp->name);
	/* clear() runs later, in bpftrace's userspace, after the statements
	 * that follow it in the kernel: the window start is only ever
	 * overwritten, or a clear would undo the new value. */
	buf_printf(&pt->finals, "\tclear(@" WIRE_WAITING "_%s);\n", rp->sp->name);
	buf_printf(&pt->finals, "\tclear(@ustart_%s);\n", rp->sp->name);
	return rc;
}

/* "/pid == N && (args->id == A || ...)/" for the probe's syscalls; "" when
 * there is nothing to test.  Also the human list for comments. */
static void syscall_filter(const parts *pt, const spec_probe *sp, buf *pred, buf *what)
{
	bool ids = !sp->all_syscalls && sp->n_syscalls > 0;
	if (!ids && pt->pid <= 0)
		return;
	buf_putc(pred, '/');
	if (pt->pid > 0)
		buf_printf(pred, "pid == %d%s", (int)pt->pid, ids ? " && " : "");
	if (ids) {
		buf_putc(pred, '(');
		for (size_t i = 0; i < sp->n_syscalls; i++)
			buf_printf(pred, "%sargs->id == %d", i ? " || " : "", sp->syscalls[i]);
		buf_putc(pred, ')');
	}
	buf_putc(pred, '/');
	if (!ids) {
		buf_puts(what, "every syscall");
		return;
	}
	for (size_t i = 0; i < sp->n_syscalls; i++) {
		const char *n = systab_syscall_name(sp->syscalls[i]);
		buf_printf(what, "%s%s", i ? ", " : "", n ? n : "?");
	}
}

static int emit_syscalls(parts *pt, const resolved_probe *rp)
{
	static const char *const in_flight[] = { "start", NULL };
	buf pred = BUF_INIT, what = BUF_INIT;

	syscall_filter(pt, rp->sp, &pred, &what);
	char *p = buf_take(&pred), *w = buf_take(&what);
	vars v = { .n = 0 };
	vars_set(&v, "name", rp->sp->name);
	vars_set(&v, "what", w);
	vars_set(&v, "enter_pred", p);
	vars_set(&v, "pid_test", pt->pid_test);
	vars_set(&v, "key", rp->sp->per_thread ? "tid" : "0");
	vars_set(&v, "bucket", pt->bucket);
	buf_putc(&pt->out, '\n');
	vars_set(&v, "delete", pt->delete_call);
	int rc = render_into(&pt->out, "syscalls.bt.in", &v);
	free(p);
	free(w);
	pt->attach += 2;
	add_maps(pt, rp->sp->name, wire_of(rp->sp->kind)->cleared, NULL, in_flight);
	return rc;
}

/* The argument worth showing for a syscall in an event record. */
typedef struct useful_arg {
	const char *syscall;
	int index;		/* into args->args[] */
	char kind;		/* 's' path string, 'r' sockaddr bytes, 'n' number */
} useful_arg;

static const useful_arg useful_args[] = {
	{ "open", 0, 's' }, { "openat", 1, 's' }, { "openat2", 1, 's' }, { "creat", 0, 's' },
	{ "stat", 0, 's' }, { "lstat", 0, 's' }, { "newfstatat", 1, 's' }, { "statx", 1, 's' },
	{ "access", 0, 's' }, { "faccessat", 1, 's' }, { "faccessat2", 1, 's' },
	{ "unlink", 0, 's' }, { "unlinkat", 1, 's' }, { "mkdir", 0, 's' }, { "mkdirat", 1, 's' },
	{ "rename", 0, 's' }, { "renameat", 1, 's' }, { "renameat2", 1, 's' },
	{ "readlink", 0, 's' }, { "readlinkat", 1, 's' }, { "execve", 0, 's' },
	{ "chdir", 0, 's' }, { "truncate", 0, 's' },
	{ "connect", 1, 'r' }, { "bind", 1, 'r' },
	{ "mmap", 1, 'n' }, { "munmap", 1, 'n' }, { "madvise", 1, 'n' }, { "mprotect", 1, 'n' },
	{ "mremap", 2, 'n' }, { "brk", 0, 'n' }, { "mlock", 1, 'n' },
	{ "read", 2, 'n' }, { "write", 2, 'n' }, { "pread64", 2, 'n' }, { "pwrite64", 2, 'n' },
	{ "readv", 2, 'n' }, { "writev", 2, 'n' }, { "recvfrom", 2, 'n' }, { "sendto", 2, 'n' },
	{ "close", 0, 'n' }, { "fsync", 0, 'n' }, { "fdatasync", 0, 'n' },
};

static const useful_arg *useful_arg_of(int nr)
{
	const char *name = systab_syscall_name(nr);
	for (size_t i = 0; name && i < sizeof useful_args / sizeof *useful_args; i++)
		if (strcmp(useful_args[i].syscall, name) == 0)
			return &useful_args[i];
	return NULL;
}


static void put_event_printf(buf *b, const char *name, char kind, const char *indent)
{
	buf_printf(b, "%sprintf(\"bpfspec:ev %s %%llu %%d %%ld %%llu %%ld ", indent, name);
	switch (kind) {
	case 's':
		buf_puts(b, "s %s\\n\", nsecs, tid, args->id, $ns, args->ret, str(uptr($a)));\n");
		break;
	case 'r':
		buf_printf(b, "r %%r\\n\", nsecs, tid, args->id, $ns, args->ret, "
			   "buf(uptr((uint8 *)$a), %d));\n", GEN_SOCKADDR_BYTES);
		break;
	case 'n':
		buf_puts(b, "n %llu\\n\", nsecs, tid, args->id, $ns, args->ret, $a);\n");
		break;
	default:
		buf_puts(b, "- -\\n\", nsecs, tid, args->id, $ns, args->ret);\n");
	}
}

static int emit_events(parts *pt, const resolved_probe *rp)
{
	static const char *const clear_only[] = { "evn", NULL };
	static const char *const in_flight[] = { "evstart", "evarg", NULL };
	const spec_probe *sp = rp->sp;
	buf pred = BUF_INIT, what = BUF_INIT, store = BUF_INIT, print_ev = BUF_INIT;
	char kinds[SPEC_MAX_SYSCALLS];
	bool mixed = false;

	syscall_filter(pt, sp, &pred, &what);
	buf_printf(&store, "\t@evarg_%s[tid] = 0;\n", sp->name);
	for (size_t i = 0; i < sp->n_syscalls && i < SPEC_MAX_SYSCALLS; i++) {
		const useful_arg *ua = useful_arg_of(sp->syscalls[i]);
		kinds[i] = ua ? ua->kind : '-';
		if (i && kinds[i] != kinds[0])
			mixed = true;
		if (ua)
			buf_printf(&store, "\tif (args->id == %d) { @evarg_%s[tid] = args->args[%d]; }\n",
				   sp->syscalls[i], sp->name, ua->index);
	}
	store.len--;	/* the template puts the list on its own lines */
	store.data[store.len] = '\0';
	if (!mixed) {
		put_event_printf(&print_ev, sp->name, sp->n_syscalls ? kinds[0] : '-', "\t\t\t");
	} else {
		for (size_t i = 0; i < sp->n_syscalls && i < SPEC_MAX_SYSCALLS; i++) {
			buf_printf(&print_ev, "\t\t\t%sif (args->id == %d) {\n", i ? "} else " : "",
				   sp->syscalls[i]);
			put_event_printf(&print_ev, sp->name, kinds[i], "\t\t\t\t");
		}
		buf_puts(&print_ev, "\t\t\t}\n");
	}
	print_ev.len--;
	print_ev.data[print_ev.len] = '\0';
	char threshold[32], limit[32];
	snprintf(threshold, sizeof threshold, "%llu", (unsigned long long)sp->threshold_ns);
	snprintf(limit, sizeof limit, "%u", sp->limit);
	char *p = buf_take(&pred), *w = buf_take(&what), *st = buf_take(&store),
	     *pe = buf_take(&print_ev);
	vars v = { .n = 0 };
	vars_set(&v, "name", sp->name);
	vars_set(&v, "what", w);
	vars_set(&v, "enter_pred", p);
	vars_set(&v, "pid_test", pt->pid_test);
	vars_set(&v, "store_arg", st);
	vars_set(&v, "threshold", threshold);
	vars_set(&v, "limit", limit);
	vars_set(&v, "print_event", pe);
	buf_putc(&pt->out, '\n');
	vars_set(&v, "delete", pt->delete_call);
	int rc = render_into(&pt->out, "events.bt.in", &v);
	free(p);
	free(w);
	free(st);
	free(pe);
	pt->attach += 2;
	add_maps(pt, sp->name, wire_of(sp->kind)->cleared, clear_only, in_flight);
	return rc;
}

/* The attach points of a probe on a probe point (count, events): the
 * spec's point as written (it passed the grammar of its form), or, on
 * OBJECT main, the target's executable: uprobes by address (as latency
 * probes), usdt by path.  Returns the number of attach points, 0 after a
 * diagnostic. */
static unsigned point_attach(const resolved_probe *rp, buf *at)
{
	const spec_probe *sp = rp->sp;

	if (rp->object && !path_is_plain(rp->object)) {
		diag_error("bpftrace cannot name this file in a probe; copy or link it to a "
			   "plain path (letters, digits, / . _ - +)",
			   "probe '%s': object path '%s' has characters bpftrace cannot take",
			   sp->name, rp->object);
		return 0;
	}
	if (rp->object && rp->n_addrs) {
		const char *type = sp->point == POINT_URETPROBE ? "uretprobe" : "uprobe";
		put_address_points(at, type, rp->object, rp->addrs, rp->n_addrs);
		return (unsigned)rp->n_addrs;
	}
	if (sp->point != POINT_UPROBE && sp->point != POINT_URETPROBE && sp->point != POINT_USDT) {
		buf_puts(at, sp->probe);
		return 1;
	}
	/* TYPE:OBJECT:REST, OBJECT main standing for the executable. */
	const char *obj = strchr(sp->probe, ':') + 1, *rest = strchr(obj, ':');
	char path[1100];
	snprintf(path, sizeof path, "%.*s", (int)(rest - obj), obj);
	buf_printf(at, "%.*s", (int)(obj - sp->probe), sp->probe);
	put_attach_path(at, rp->object ? rp->object : path);
	buf_puts(at, rest);
	return 1;
}

/* A count probe.  Interval points tick on one CPU, whatever runs there:
 * they are counted in all, with no pid filter. */
static int emit_count(parts *pt, const resolved_probe *rp)
{
	const spec_probe *sp = rp->sp;
	buf at = BUF_INIT, what = BUF_INIT;
	bool interval = sp->point == POINT_INTERVAL;
	unsigned n = point_attach(rp, &at);

	if (n == 0) {
		buf_free(&at);
		return -1;
	}
	put_comment_text(&what, sp->probe);
	char *a = buf_take(&at), *w = buf_take(&what);
	vars v = { .n = 0 };
	vars_set(&v, "name", sp->name);
	vars_set(&v, "what", w);
	vars_set(&v, "attach", a);
	vars_set(&v, "filter", interval ? "" : pt->pid_filter);
	vars_set(&v, "key", sp->per_thread && !interval ? "tid" : "0");
	buf_putc(&pt->out, '\n');
	int rc = render_into(&pt->out, "count.bt.in", &v);
	free(a);
	free(w);
	pt->attach += n;
	add_maps(pt, sp->name, wire_of(sp->kind)->cleared, NULL, NULL);
	return rc;
}

/* The bpftrace expression of argument A of a probe on point POINT. */
static void put_arg_value(buf *b, const spec_arg *a, point_type point)
{
	const char *user = point == POINT_KPROBE || point == POINT_KRETPROBE ||
			   point == POINT_TRACEPOINT ? "" : "uptr(";

	if (a->type == ARG_STRING)
		buf_printf(b, "str(%s", user);
	else if (a->type == ARG_INT)
		buf_puts(b, "(int64)");
	if (a->src == VALUE_ARG)
		buf_printf(b, "arg%d", a->index);
	else if (a->src == VALUE_RETVAL)
		buf_puts(b, "retval");
	else
		buf_printf(b, "args->%s", a->field);
	if (a->type == ARG_STRING)
		buf_puts(b, *user ? "))" : ")");
}

/* An events probe on a probe point: numbers first, the string last. */
static int emit_point_events(parts *pt, const resolved_probe *rp)
{
	static const char *const clear_only[] = { "evn", NULL };
	const spec_probe *sp = rp->sp;
	buf at = BUF_INIT, what = BUF_INIT, formats = BUF_INIT, values = BUF_INIT;
	unsigned n = point_attach(rp, &at);

	if (n == 0) {
		buf_free(&at);
		return -1;
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < sp->n_args; i++) {
			const spec_arg *a = &sp->args[i];
			if ((a->type == ARG_STRING) != (pass == 1))
				continue;
			buf_puts(&formats, a->type == ARG_STRING ? " %s"
					   : a->type == ARG_INT ? " %ld" : " %lu");
			buf_puts(&values, ", ");
			put_arg_value(&values, a, sp->point);
		}
	put_comment_text(&what, sp->probe);
	char limit[32];
	snprintf(limit, sizeof limit, "%u", sp->limit);
	char *a = buf_take(&at), *w = buf_take(&what), *f = buf_take(&formats),
	     *vl = buf_take(&values);
	vars v = { .n = 0 };
	vars_set(&v, "name", sp->name);
	vars_set(&v, "what", w);
	vars_set(&v, "attach", a);
	vars_set(&v, "filter", pt->pid_filter);
	vars_set(&v, "limit", limit);
	vars_set(&v, "formats", f);
	vars_set(&v, "values", vl);
	buf_putc(&pt->out, '\n');
	int rc = render_into(&pt->out, "point_events.bt.in", &v);
	free(a);
	free(w);
	free(f);
	free(vl);
	pt->attach += n;
	add_maps(pt, sp->name, wire_of(sp->kind)->cleared, clear_only, NULL);
	return rc;
}

/* Renders bucket.bt.in once; its text is inserted into every probe. */
static char *render_bucket(void)
{
	vars none = { .n = 0 };
	buf b = BUF_INIT;
	if (render_into(&b, "bucket.bt.in", &none) < 0) {
		buf_free(&b);
		return NULL;
	}
	while (b.len && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	return buf_take(&b);
}

/* The header's "//   name  what" line for one probe. */
static void describe_probe(buf *b, const resolved_probe *rp)
{
	const spec_probe *sp = rp->sp;
	buf_printf(b, "//   %-12s ", sp->name);
	if (!rp->active) {
		buf_puts(b, "skipped: ");
		put_comment_text(b, rp->reason);
		return;
	}
	if (spec_is_point_events(sp)) {
		buf_puts(b, "events of ");
		put_comment_text(b, sp->probe);
		if (rp->object) {
			buf_puts(b, " in ");
			put_comment_text(b, rp->object);
		}
		for (size_t k = 0; k < rp->n_addrs; k++)
			buf_printf(b, " 0x%llx", (unsigned long long)rp->addrs[k]);
		buf_printf(b, " (%u records)", sp->limit);
		return;
	}
	if (sp->kind == PROBE_COUNT) {
		buf_puts(b, "count of ");
		put_comment_text(b, sp->probe);
		if (rp->object) {
			buf_puts(b, " in ");
			put_comment_text(b, rp->object);
		}
		for (size_t k = 0; k < rp->n_addrs; k++)
			buf_printf(b, " 0x%llx", (unsigned long long)rp->addrs[k]);
		return;
	}
	if (sp->kind == PROBE_UTILIZATION) {
		buf_puts(b, "utilization: time in epoll_wait, epoll_pwait, epoll_pwait2 per thread");
		return;
	}
	if (sp->kind == PROBE_LATENCY && rp->derived) {
		put_comment_text(b, sp->function);
		buf_puts(b, " (not in the target) ");
		put_comment_text(b, rp->derived);
		return;
	}
	if (sp->kind == PROBE_LATENCY) {
		put_comment_text(b, sp->function);
		buf_puts(b, " in ");
		put_comment_text(b, rp->object);
		for (size_t k = 0; k < rp->n_addrs; k++)
			buf_printf(b, " 0x%llx", (unsigned long long)rp->addrs[k]);
		return;
	}
	buf_printf(b, "%s of ", spec_kind_name(sp->kind));
	if (sp->all_syscalls)
		buf_puts(b, "every syscall");
	for (size_t k = 0; k < sp->n_syscalls; k++) {
		const char *n = systab_syscall_name(sp->syscalls[k]);
		buf_printf(b, "%s%s", k ? ", " : "", n ? n : "?");
	}
	if (sp->kind == PROBE_EVENTS)
		buf_printf(b, " (at least %llu ns, %u records)",
			   (unsigned long long)sp->threshold_ns, sp->limit);
}

/* Drops the last character of an owned string (a trailing '\n'). */

program *gen_program(const resolved *r, const gen_options *o)
{
	const spec *s = r->sp;
	const target *t = r->tg;
	parts pt = { .out = BUF_INIT, .prints = BUF_INIT, .clears = BUF_INIT,
		     .helpers = BUF_INIT, .starts = BUF_INIT, .finals = BUF_INIT, .pid = o->pid,
		     .delete_call = bpftrace_at_least(o, 0, 24) ? "$deleted = delete" : "delete" };
	buf syms = BUF_INIT, tgt = BUF_INIT, sp = BUF_INIT;
	program *prog = calloc(1, sizeof *prog);
	int failed = 0;

	if (!prog) {
		diag_error(NULL, "out of memory");
		return NULL;
	}
	if (!(pt.bucket = render_bucket())) {
		free(prog);
		return NULL;
	}
	if (o->pid > 0) {
		snprintf(pt.pid_filter, sizeof pt.pid_filter, "/pid == %d/", (int)o->pid);
		snprintf(pt.pid_test, sizeof pt.pid_test, "pid == %d && ", (int)o->pid);
		buf_printf(&tgt, "pid %d, ", (int)o->pid);
	} else {
		buf_puts(&tgt, "any process running ");
	}
	put_comment_text(&tgt, t->exe);
	for (size_t i = 0; i < r->n_probes; i++) {
		describe_probe(&syms, &r->probes[i]);
		if (i + 1 < r->n_probes)
			buf_putc(&syms, '\n');
	}
	put_comment_text(&sp, s->path);

	char *spec_path = buf_take(&sp), *target_text = buf_take(&tgt), *sym_text = buf_take(&syms);
	vars hv = { .n = 0 };
	vars_set(&hv, "version", BPFSPEC_VERSION);
	vars_set(&hv, "spec_name", s->name);
	vars_set(&hv, "spec_path", spec_path);
	vars_set(&hv, "target", target_text);
	vars_set(&hv, "symbols", sym_text);
	failed |= render_into(&pt.out, "header.bt.in", &hv);
	free(spec_path);
	free(target_text);
	free(sym_text);
	buf_putc(&pt.out, '\n');
	/* What starts each window: utilization probes move their start. */
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].active && r->probes[i].sp->kind == PROBE_UTILIZATION)
			buf_printf(&pt.starts, "\t@ustart_%s = (int64)nsecs;\n", r->probes[i].sp->name);
	char *start_text = chop(buf_take(&pt.starts));
	vars bv = { .n = 0 };
	/* @wstart: when the window began (the window-start probe moves it;
	 * BEGIN only defines it).  Entries of maps END alone clears that are
	 * older were left over from attaching: they are skipped. */
	/* A derived phase's gap map is read (at the next phase's entry)
	 * above the probe that fills it: bpftrace 0.23 would type the
	 * variable read from it before the map has a type and then refuse
	 * the int64 it gets.  An entry for tid 0 (no user thread) types the
	 * map first; it is never a gap ($g != 0) and END clears it. */
	/* So is @phase_t of entry-only phases (templates/phase.bt.in): read
	 * in the first phase's probe, filled at its end. */
	buf gap_types = BUF_INIT;
	bool entry_phases = false;
	for (size_t i = 0; i < r->n_probes; i++) {
		const resolved_probe *rp = &r->probes[i];
		for (size_t k = 0; rp->active && rp->derived && k < rp->n_gaps; k++)
			buf_printf(&gap_types, "\t@gap%zu_%s[0] = (int64)0;\n", k, rp->sp->name);
		if (rp->active && !rp->derived && s->entry_only && rp->sp->kind == PROBE_LATENCY)
			entry_phases = true;
	}
	if (entry_phases)
		buf_puts(&gap_types, "\t@phase_t[0] = (int64)0;\n");
	char *gap_text = buf_take(&gap_types);
	char *begin_stmts = NULL;
	if (asprintf(&begin_stmts, "%s%s%s\t@wstart = (int64)nsecs;", start_text ? start_text : "",
		     start_text && *start_text ? "\n" : "", gap_text ? gap_text : "") < 0)
		begin_stmts = NULL;
	free(gap_text);
	buf_puts(&pt.finals, "\tclear(@wstart);\n");
	vars_set(&bv, "start_stmts", begin_stmts ? begin_stmts : "");
	failed |= render_into(&pt.out, "begin.bt.in", &bv);
	pt.attach = 1;

	unsigned phases = 0;
	for (size_t i = 0; i < r->n_probes && !failed; i++) {
		const resolved_probe *rp = &r->probes[i];
		if (!rp->active)
			continue;
		switch (rp->sp->kind) {
		case PROBE_LATENCY:
			if (rp->derived) {
				emit_derived(&pt, rp);
			} else if (s->entry_only) {
				failed |= emit_phase(&pt, r, rp, ++phases);
			} else {
				char *in = derived_hooks(&pt, r, i, true);
				char *out = derived_hooks(&pt, r, i, false);
				failed |= emit_latency(&pt, rp, in, out);
				free(in);
				free(out);
			}
			break;
		case PROBE_SYSCALLS:
			failed |= emit_syscalls(&pt, rp);
			break;
		case PROBE_EVENTS:
			failed |= spec_is_point_events(rp->sp) ? emit_point_events(&pt, rp)
							       : emit_events(&pt, rp);
			break;
		case PROBE_COUNT:
			failed |= emit_count(&pt, rp);
			break;
		case PROBE_UTILIZATION:
			failed |= emit_utilization(&pt, rp);
			break;
		}
	}

	char *print_text = chop(buf_take(&pt.prints)), *clear_text = chop(buf_take(&pt.clears)),
	     *helper_text = chop(buf_take(&pt.helpers));
	if (!failed && o->trigger_path && !path_is_plain(o->trigger_path)) {
		diag_error("install bpfspec under a plain path (letters, digits, / . _ - +)",
			   "bpfspec's own path '%s' has characters bpftrace cannot take", o->trigger_path);
		failed = 1;
	}
	if (!failed && (o->trigger_path || o->window_ns > 0)) {
		char probe[4200], filter[64] = "";
		if (o->trigger_path) {
			buf tp = BUF_INIT;
			put_address_points(&tp, "uprobe", o->trigger_path, &o->trigger_addr, 1);
			snprintf(probe, sizeof probe, "%s", tp.data ? tp.data : "");
			buf_free(&tp);
			snprintf(filter, sizeof filter, "/pid == %d && arg0 != 2/", (int)o->trigger_pid);
		} else {
			snprintf(probe, sizeof probe, "interval:ms:%llu",
				 (unsigned long long)((o->window_ns + 999999) / 1000000));
		}
		vars v = { .n = 0 };
		vars_set(&v, "window_probe", probe);
		vars_set(&v, "window_filter", filter);
		vars_set(&v, "exit_stmt", o->trigger_path ? "\tif (arg0 != 0) { exit(); }"
							  : "\texit();");
		vars_set(&v, "print_maps", print_text);
		vars_set(&v, "clear_maps", o->cumulative ? "" : clear_text);
		vars_set(&v, "start_stmts", o->cumulative || !start_text ? "" : start_text);
		buf_putc(&pt.out, '\n');
		failed |= render_into(&pt.out, "window.bt.in", &v);
		pt.attach++;
		if (o->trigger_path) {
			char pid[16];
			snprintf(pid, sizeof pid, "%d", (int)o->trigger_pid);
			vars sv = { .n = 0 };
			vars_set(&sv, "window_probe", probe);
			vars_set(&sv, "pid", pid);
			vars_set(&sv, "clear_maps", clear_text);
			vars_set(&sv, "clear_helpers", helper_text);
			vars_set(&sv, "start_stmts", begin_stmts ? begin_stmts : "");
			buf_putc(&pt.out, '\n');
			failed |= render_into(&pt.out, "window_start.bt.in", &sv);
			pt.attach++;
		}
	}
	if (!failed) {
		vars v = { .n = 0 };
		vars_set(&v, "print_maps", print_text);
		vars_set(&v, "clear_maps", clear_text);
		buf_puts(&pt.helpers, helper_text ? helper_text : "");
		if (helper_text && *helper_text)
			buf_putc(&pt.helpers, '\n');
		buf_puts(&pt.helpers, pt.finals.data ? pt.finals.data : "");
		char *end_clears = chop(buf_take(&pt.helpers));
		vars_set(&v, "clear_helpers", end_clears ? end_clears : "");
		buf_putc(&pt.out, '\n');
		failed |= render_into(&pt.out, "end.bt.in", &v);
		free(end_clears);
		pt.attach++;
	}
	free(print_text);
	free(clear_text);
	free(helper_text);
	free(start_text);
	free(begin_stmts);
	buf_free(&pt.finals);
	free(pt.bucket);
	prog->expected_attach = pt.attach;
	prog->len = pt.out.len;
	prog->text = buf_take(&pt.out);
	if (failed || !prog->text) {
		if (!failed)
			diag_error(NULL, "out of memory");
		program_free(prog);
		return NULL;
	}
	return prog;
}

void program_free(program *p)
{
	if (!p)
		return;
	free(p->text);
	free(p);
}
