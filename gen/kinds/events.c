/* events — one record per event, printed as it happens:
 *   - syscall events (templates/events.bt.in): each call of the listed
 *     syscalls at least `threshold` long, with its latency, result and
 *     the argument worth showing (a path, a socket address or a length);
 *   - point events (templates/point_events.bt.in): each hit of a probe
 *     point, with the spec's arguments.
 * At most `limit` records a window; the rest are counted (@evdrop_NAME).
 * The thread's name goes to a map (@evcomm_NAME[tid]), not the record, so
 * only a record's last field holds text the traced program chose. */
#include "model/kind.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "model/wire.h"
#include "program/generator_internal.h"
#include "render/render_internal.h"
#include "run/report_internal.h"
#include "serve/promstore_plan.h"
#include "spec/spec_internal.h"
#include "util/safe.h"
#include "util/systab.h"

/* ---- gen: syscall events ------------------------------------------- */

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

/* The printf of a record whose argument is of KIND ('s', 'r', 'n', '-'):
 * "bpfspec:ev NAME TIME TID NR NS RET KIND ARG". */
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

static int emit_syscall_events(gen_parts *pt, const resolved_probe *rp)
{
	static const char *const clear_only[] = { "evn", NULL };
	static const char *const in_flight[] = { "evstart", "evarg", NULL };
	const spec_probe *sp = rp->sp;
	buf pred = BUF_INIT, exit_test = BUF_INIT, what = BUF_INIT, store = BUF_INIT,
	    print_ev = BUF_INIT;
	char kinds[SPEC_MAX_SYSCALLS];
	bool mixed = false;

	gen_syscall_filter(pt, sp, &pred, &exit_test, &what);
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
	if (!mixed) {
		put_event_printf(&print_ev, sp->name, sp->n_syscalls ? kinds[0] : '-', "\t\t\t");
	} else {
		/* rt_sigreturn exits as -1 (report.c says why). */
		int sigreturn = systab_syscall_nr("rt_sigreturn");
		for (size_t i = 0; i < sp->n_syscalls && i < SPEC_MAX_SYSCALLS; i++) {
			buf_printf(&print_ev, "\t\t\t%sif (args->id == %d%s) {\n", i ? "} else " : "",
				   sp->syscalls[i],
				   sp->syscalls[i] == sigreturn ? " || args->id == -1" : "");
			put_event_printf(&print_ev, sp->name, kinds[i], "\t\t\t\t");
		}
		buf_puts(&print_ev, "\t\t\t}\n");
	}
	char threshold[32], limit[32];
	snprintf(threshold, sizeof threshold, "%llu", (unsigned long long)sp->threshold_ns);
	snprintf(limit, sizeof limit, "%u", sp->limit);
	/* The template puts each list on its own lines. */
	char *p = buf_take(&pred), *x = buf_take(&exit_test), *w = buf_take(&what),
	     *st = gen_chop(buf_take(&store)), *pe = gen_chop(buf_take(&print_ev));
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "name", sp->name);
	gen_vars_set(&v, "what", w);
	gen_vars_set(&v, "enter_pred", p);
	gen_vars_set(&v, "pid_test", pt->pid_test);
	gen_vars_set(&v, "exit_test", x);
	gen_vars_set(&v, "store_arg", st);
	gen_vars_set(&v, "threshold", threshold);
	gen_vars_set(&v, "limit", limit);
	gen_vars_set(&v, "print_event", pe);
	gen_vars_set(&v, "delete", pt->delete_call);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "events.bt.in", &v);
	free(p);
	free(x);
	free(w);
	free(st);
	free(pe);
	pt->attach += 2;
	gen_add_maps(pt, sp->name, wire_of(PROBE_EVENTS)->cleared, clear_only, in_flight);
	return rc;
}

/* ---- gen: point events --------------------------------------------- */

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

/* "bpfspec:ev NAME TIME TID = V1 V2 ...": numbers first, the string
 * (at most one) last, where it may hold spaces. */
static int emit_point_events(gen_parts *pt, const resolved_probe *rp)
{
	static const char *const clear_only[] = { "evn", NULL };
	const spec_probe *sp = rp->sp;
	buf at = BUF_INIT, what = BUF_INIT, formats = BUF_INIT, values = BUF_INIT;
	unsigned n = gen_point_attach(rp, &at);

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
	gen_put_comment(&what, sp->probe);
	char limit[32];
	snprintf(limit, sizeof limit, "%u", sp->limit);
	char *a = buf_take(&at), *w = buf_take(&what), *f = buf_take(&formats),
	     *vl = buf_take(&values);
	gen_vars v = { .n = 0 };
	gen_vars_set(&v, "name", sp->name);
	gen_vars_set(&v, "what", w);
	gen_vars_set(&v, "attach", a);
	gen_vars_set(&v, "filter", pt->pid_filter);
	gen_vars_set(&v, "wstart", gen_window_start_read(sp->point));
	gen_vars_set(&v, "limit", limit);
	gen_vars_set(&v, "formats", f);
	gen_vars_set(&v, "values", vl);
	buf_putc(&pt->out, '\n');
	int rc = gen_render(&pt->out, "point_events.bt.in", &v);
	free(a);
	free(w);
	free(f);
	free(vl);
	pt->attach += n;
	gen_add_maps(pt, sp->name, wire_of(PROBE_EVENTS)->cleared, clear_only, NULL);
	return rc;
}

static int events_emit(gen_parts *pt, const resolved *r, size_t i)
{
	const resolved_probe *rp = &r->probes[i];
	return spec_is_point_events(rp->sp) ? emit_point_events(pt, rp)
					    : emit_syscall_events(pt, rp);
}

static void events_describe(buf *b, const resolved_probe *rp)
{
	const spec_probe *sp = rp->sp;

	buf_puts(b, "events of ");
	if (spec_is_point_events(sp)) {
		gen_put_comment(b, sp->probe);
		if (rp->object)
			gen_put_where(b, rp);
		buf_printf(b, " (%u records)", sp->limit);
		return;
	}
	gen_put_syscalls(b, sp);
	buf_printf(b, " (at least %llu ns, %u records)", (unsigned long long)sp->threshold_ns,
		   sp->limit);
}

/* ---- report: records ----------------------------------------------- */

/* Decodes bpftrace's %r text (printable bytes as they are, others as
 * \xNN) into OUT; returns the number of bytes. */
static size_t decode_raw(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	while (*s && n < max) {
		unsigned v;
		if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &v) == 1) {
			out[n++] = (uint8_t)v;
			s += 4;
		} else {
			out[n++] = (uint8_t)*s++;
		}
	}
	return n;
}

/* "1.2.3.4:80", "[::1]:80", "unix:/path" or "unix:@abstract" from raw
 * sockaddr bytes; "family N" for any other family. */
static char *format_sockaddr(const char *raw)
{
	uint8_t b[GEN_SOCKADDR_BYTES];
	size_t n = decode_raw(raw, b, sizeof b);
	char host[INET6_ADDRSTRLEN], *out = NULL;
	if (n < 2)
		return NULL;
	unsigned family = b[0] | (unsigned)b[1] << 8;
	if (family == AF_INET && n >= 8) {
		unsigned port = (unsigned)b[2] << 8 | b[3];
		if (!inet_ntop(AF_INET, b + 4, host, sizeof host) ||
		    asprintf(&out, "%s:%u", host, port) < 0)
			return NULL;
		return out;
	}
	if (family == AF_INET6 && n >= 24) {
		unsigned port = (unsigned)b[2] << 8 | b[3];
		unsigned scope = n >= 28 ? (unsigned)b[24] | (unsigned)b[25] << 8 |
						   (unsigned)b[26] << 16 | (unsigned)b[27] << 24 : 0;
		char sc[16] = "";
		if (scope)
			snprintf(sc, sizeof sc, "%%%u", scope);
		if (!inet_ntop(AF_INET6, b + 8, host, sizeof host) ||
		    asprintf(&out, "[%s%s]:%u", host, sc, port) < 0)
			return NULL;
		return out;
	}
	if (family == AF_UNIX) {
		/* sun_path: a file path, or "@name" for the abstract namespace. */
		const uint8_t *p = b + 2;
		size_t len = n - 2;
		if (len == 0)
			return strdup("unix:(unnamed)");
		bool abstract = p[0] == '\0';
		size_t i = abstract ? 1 : 0, end = i;
		while (end < len && (abstract || p[end] != '\0'))
			end++;
		buf text = BUF_INIT;
		buf_puts(&text, abstract ? "unix:@" : "unix:");
		/* The path's bytes as they are (no NUL): renderers escape
		 * them (safe.h). */
		for (; i < end; i++)
			buf_putc(&text, p[i] ? (char)p[i] : '?');
		return buf_take(&text);
	}
	if (asprintf(&out, "family %u", family) < 0)
		return NULL;
	return out;
}

/* Parses "NAME TIME TID NR NS RET KIND ARG" for probe NAME into EV.
 * Returns 1 when the record is this probe's and inside the window that
 * began at BEGIN (bpftrace's clock), 0 when not, -1 when malformed or out
 * of memory. */
static int parse_syscall_event(const char *rec, const char *name, uint64_t begin,
			       report_event *ev)
{
	size_t nl = strlen(name);
	if (strncmp(rec, name, nl) != 0 || rec[nl] != ' ')
		return 0;
	unsigned long long ts, lat;
	long tid, nr;
	long long ret;
	char kind;
	int used = 0;
	if (sscanf(rec + nl + 1, "%llu %ld %ld %llu %lld %c %n", &ts, &tid, &nr, &lat, &ret, &kind,
		   &used) != 6 || used == 0)
		return -1;
	const char *arg = rec + nl + 1 + used;
	/* Before the window began: read late from another CPU's buffer (the
	 * maps, cleared as the window began, do not hold it either). */
	if (ts < begin)
		return 0;
	memset(ev, 0, sizeof *ev);
	ev->t_ns = ts - begin;
	ev->tid = tid;
	ev->latency_ns = lat;
	ev->ret = ret;
	if (!(ev->syscall = report_exit_syscall_name(nr)))
		return -1;
	/* rt_sigreturn's "return value" is the interrupted code's rax. */
	if (nr != -1 && ret < 0 && ret > -4096) {
		const char *en = systab_errno_name((long)-ret);
		ev->error = en ? strdup(en) : NULL;
		if (!ev->error && asprintf(&ev->error, "E%lld", -ret) < 0)
			ev->error = NULL;
	}
	if (kind == 's') {
		ev->path = strdup(arg);
		ev->path_truncated = strlen(arg) >= REPORT_PATH_MAX;
	} else if (kind == 'r') {
		ev->address = format_sockaddr(arg);
	} else if (kind == 'n') {
		ev->has_length = true;
		ev->length = strtoull(arg, NULL, 10);
	}
	return 1;
}

/* Parses one value of a point event record at *S (" VALUE"), for
 * argument A, into V.  Strings take the rest of the record.  Returns 0, or
 * -1 when malformed or out of memory. */
static int parse_value(const char **s, const spec_arg *a, report_value *v)
{
	const char *p = *s;
	char *end;

	if (*p++ != ' ')
		return -1;
	v->name = strdup(a->name);
	if (!v->name)
		return -1;
	if (a->type == ARG_STRING) {
		v->type = REPORT_VALUE_STRING;
		v->s = strdup(p);
		v->truncated = strlen(p) >= REPORT_PATH_MAX;
		*s = p + strlen(p);
		return v->s ? 0 : -1;
	}
	errno = 0;
	if (a->type == ARG_INT) {
		v->type = REPORT_VALUE_INT;
		v->i = strtoll(p, &end, 10);
	} else {
		v->type = REPORT_VALUE_UINT;
		v->u = *p == '-' ? 0 : strtoull(p, &end, 10);
		if (*p == '-')
			return -1;
	}
	if (end == p || errno || (*end && *end != ' '))
		return -1;
	*s = end;
	return 0;
}

/* Parses "NAME TIME TID = V1 V2 ..." of events probe SP on a probe point
 * into EV.  Returns 1 when the record is this probe's, 0 when not, -1
 * when malformed or out of memory. */
static int parse_point_event(const char *rec, const spec_probe *sp, uint64_t begin,
			     report_event *ev)
{
	size_t nl = strlen(sp->name);
	unsigned long long ts;
	long tid;
	int used = 0;

	if (strncmp(rec, sp->name, nl) != 0 || rec[nl] != ' ')
		return 0;
	if (sscanf(rec + nl + 1, "%llu %ld =%n", &ts, &tid, &used) != 2 || used == 0)
		return -1;
	if (ts < begin)
		return 0;	/* before the window: as for syscall records */
	memset(ev, 0, sizeof *ev);
	ev->t_ns = ts - begin;
	ev->tid = tid;
	if (sp->n_args && !(ev->args = calloc(sp->n_args, sizeof *ev->args)))
		return -1;
	ev->n_args = sp->n_args;
	const char *p = rec + nl + 1 + used;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < sp->n_args; i++) {
			if ((sp->args[i].type == ARG_STRING) != (pass == 1))
				continue;
			if (parse_value(&p, &sp->args[i], &ev->args[i]) < 0) {
				report_free_values(ev->args, ev->n_args);
				ev->args = NULL;
				ev->n_args = 0;
				return -1;
			}
		}
	return *p ? -1 : 1;
}

static int events_fill(report_probe *p, const resolved_probe *rp, const bpfout_window *w,
		       const kind_fill_ctx *ctx)
{
	const spec_probe *sp = rp->sp;
	const bpfout_map *m;

	p->threshold_ns = sp->threshold_ns;
	if (!w)
		return 0;
	/* Room for every record at once: up to 100000 per window, and growing
	 * one by one would copy the array each time. */
	if (w->n_events && !(p->events = calloc(w->n_events, sizeof *p->events)))
		return -1;
	for (size_t i = 0; i < w->n_events; i++) {
		report_event ev;
		int r = spec_is_point_events(sp)
				? parse_point_event(w->events[i], sp, ctx->begin_ns, &ev)
				: parse_syscall_event(w->events[i], sp->name, ctx->begin_ns, &ev);
		if (r <= 0)
			continue;
		p->events[p->n_events++] = ev;
	}
	p->events_dropped = bpfout_dropped_records(w, sp->name);
	if ((m = report_window_map(w, WIRE_DROPPED, sp->name)))
		for (size_t i = 0; i < m->n_entries; i++)
			if (m->entries[i].type == BPFOUT_VALUE_INT && m->entries[i].value > 0)
				p->events_dropped += (uint64_t)m->entries[i].value;
	m = report_window_map(w, WIRE_THREAD, sp->name);
	for (size_t i = 0; i < p->n_events; i++) {
		report_event *ev = &p->events[i];
		char key[32];
		snprintf(key, sizeof key, "%ld", ev->tid);
		const bpfout_entry *e = m ? bpfout_map_entry(m, key) : NULL;
		if (e && e->type == BPFOUT_VALUE_STRING && e->str)
			ev->thread = strdup(e->str);
		else
			ev->thread = report_thread_name(ctx->pids, ev->tid);
	}
	p->st.count = p->n_events + p->events_dropped;
	return 0;
}

/* ---- render -------------------------------------------------------- */

static void events_text_row(FILE *out, const report_probe *p, const report *rep)
{
	char thr[32];

	(void)rep;
	if (p->probe) {
		fprintf(out, "%10llu hits of ", (unsigned long long)p->st.count);
		safe_fputs(p->probe, out);
		fputs(" (records below)\n", out);
		return;
	}
	text_fmt_dur(thr, sizeof thr, p->threshold_ns, p->unit_ns, p->unit);
	fprintf(out, "%10llu calls of at least %s (records below)\n",
		(unsigned long long)p->st.count, thr);
}

/* ", N more not recorded (over the limit)" and the end of the title. */
static void put_dropped(FILE *out, const report_probe *p)
{
	if (p->events_dropped)
		fprintf(out, ", %llu more not recorded (over the limit)",
			(unsigned long long)p->events_dropped);
	fputc('\n', out);
}

/* Records of an events probe on a probe point: NAME=VALUE per argument. */
static void point_event_table(FILE *out, const report_probe *p)
{
	text_section(out, p);
	fprintf(out, "%zu hits of ", p->n_events);
	safe_fputs(p->probe, out);
	fputs(" recorded", out);
	put_dropped(out, p);
	if (!p->n_events)
		return;
	fprintf(out, "  %10s %-8s %-*s %s\n", "TIME(s)", "TID", TEXT_EVENT_THREAD_COLS, "THREAD",
		"ARGUMENTS");
	for (size_t i = 0; i < p->n_events; i++) {
		const report_event *ev = &p->events[i];
		fprintf(out, "  %10.6f %-8ld ", (double)ev->t_ns / 1e9, ev->tid);
		safe_fputs_cell(ev->thread, NULL, TEXT_EVENT_THREAD_COLS, out);
		for (size_t a = 0; a < ev->n_args; a++) {
			const report_value *v = &ev->args[a];
			fputc(' ', out);
			safe_fputs(v->name, out);
			fputc('=', out);
			if (v->type == REPORT_VALUE_STRING)
				safe_fputs_quoted(v->s, out);
			else if (v->type == REPORT_VALUE_INT)
				fprintf(out, "%lld", v->i);
			else
				fprintf(out, "%llu", v->u);
			if (v->truncated)
				fputs("(truncated)", out);
		}
		fputc('\n', out);
	}
}

/* One syscall record: when, who, which, how long, result, argument. */
static void syscall_event_row(FILE *out, const report_probe *p, const report_event *ev)
{
	char lat[32], res[48];

	text_fmt_dur(lat, sizeof lat, ev->latency_ns, p->unit_ns, p->unit);
	if (ev->error) {
		char *error = safe_text(ev->error);
		snprintf(res, sizeof res, "%lld %s", ev->ret, error ? error : "?");
		free(error);
	} else {
		snprintf(res, sizeof res, "%lld", ev->ret);
	}
	fprintf(out, "  %10.6f %-8ld ", (double)ev->t_ns / 1e9, ev->tid);
	safe_fputs_cell(ev->thread, NULL, TEXT_EVENT_THREAD_COLS, out);
	fputc(' ', out);
	safe_fputs(ev->syscall, out);
	fprintf(out, "%*s", text_pad_to(14, ev->syscall), "");
	fprintf(out, " %10s %-14s ", lat, res);
	if (ev->path)
		safe_fputs(ev->path, out);
	else if (ev->address)
		safe_fputs(ev->address, out);
	else if (ev->has_length)
		fprintf(out, "%llu", (unsigned long long)ev->length);
	fputc('\n', out);
}

static void events_text_details(FILE *out, const report_probe *p, const report *rep)
{
	char thr[32];

	(void)rep;
	if (p->probe) {
		point_event_table(out, p);
		return;
	}
	text_fmt_dur(thr, sizeof thr, p->threshold_ns, p->unit_ns, p->unit);
	text_section(out, p);
	fprintf(out, "%zu calls of at least %s recorded", p->n_events, thr);
	put_dropped(out, p);
	if (!p->n_events)
		return;
	fprintf(out, "  %10s %-8s %-*s %-14s %10s %-14s %s\n", "TIME(s)", "TID",
		TEXT_EVENT_THREAD_COLS, "THREAD", "SYSCALL", "LATENCY", "RESULT", "ARGUMENT");
	for (size_t i = 0; i < p->n_events; i++)
		syscall_event_row(out, p, &p->events[i]);
}

/* The values of a point event, by name, in the spec's order; strings
 * that are not UTF-8 also in args_hex; truncated names a cut string. */
static void put_point_values(json_t *je, const report_event *ev)
{
	json_t *args = json_object(), *args_hex = json_object();

	for (size_t a = 0; a < ev->n_args; a++) {
		const report_value *v = &ev->args[a];
		json_t *jv;
		char big[24];
		if (v->type == REPORT_VALUE_STRING) {
			jv = rjson_text(v->s);
			if (v->s && !safe_utf8_valid(v->s, strlen(v->s)))
				json_object_set_new(args_hex, v->name, rjson_hex(v->s));
		} else if (v->type == REPORT_VALUE_INT) {
			jv = json_integer(v->i);
		} else if (v->u > (unsigned long long)INT64_MAX) {
			/* Beyond what a JSON integer holds here: decimal text. */
			snprintf(big, sizeof big, "%llu", v->u);
			jv = json_string(big);
		} else {
			jv = json_integer((json_int_t)v->u);
		}
		json_object_set_new(args, v->name, jv);
	}
	json_object_set_new(je, "args", args);
	if (json_object_size(args_hex))
		json_object_set_new(je, "args_hex", args_hex);
	else
		json_decref(args_hex);
	for (size_t a = 0; a < ev->n_args; a++)
		if (ev->args[a].truncated)
			json_object_set_new(je, "truncated", rjson_text(ev->args[a].name));
}

static void events_json(json_t *jp, const report_probe *p, const report *rep)
{
	json_t *arr = json_array();

	(void)rep;
	json_object_set_new(jp, "count", rjson_u64(p->st.count));
	json_object_set_new(jp, "groups", json_array());
	if (!p->probe)
		json_object_set_new(jp, "threshold_ns", rjson_u64(p->threshold_ns));
	json_object_set_new(jp, "events_dropped", rjson_u64(p->events_dropped));
	for (size_t i = 0; i < p->n_events; i++) {
		const report_event *ev = &p->events[i];
		json_t *je = json_object();
		json_object_set_new(je, "t_ns", rjson_u64(ev->t_ns));
		json_object_set_new(je, "tid", json_integer(ev->tid));
		rjson_put_bytes(je, "thread", ev->thread);
		if (ev->syscall)
			rjson_put_syscall(je, ev);
		else
			put_point_values(je, ev);
		json_array_append_new(arr, je);
	}
	json_object_set_new(jp, "events", arr);
}

static void events_prom(FILE *out, const report *rep)
{
	const report_probe *p;
	prom_family events = { "bpfspec_events", "gauge",
			       "Calls at least as slow as the probe's threshold in the window, recorded or not.",
			       false };
	prom_family dropped = { "bpfspec_events_dropped", "gauge",
				"Slow calls not recorded in the window (over the probe's limit).", false };
	char v[32];

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; (p = prom_next(rep, PROBE_EVENTS, &i));) {
			promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name } };
			promtext_u64(v, sizeof v, pass == 0 ? p->st.count : p->events_dropped);
			prom_sample(out, pass == 0 ? &events : &dropped, "", ls, 2, v);
		}
}

/* ---- spec ---- */

static void events_check(loader *ld, spec_probe *p, const node *map, const node *const *seen,
			 const char *label, const char *where)
{
	if (seen[P_SYSCALLS] && seen[P_PROBE])
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, seen[P_PROBE]),
			  "an events probe records either slow syscalls ('syscalls') or hits of a "
			  "probe point ('probe'); use two probes",
			  "%s has both 'syscalls' and 'probe'", label);
	if (seen[P_PROBE] && seen[P_THRESHOLD])
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, seen[P_THRESHOLD]),
			  "remove it: every hit of a probe point is recorded (up to 'limit'); "
			  "'threshold' selects slow syscalls",
			  "'threshold' %s does not apply to events on a probe point", where);
	if (seen[P_ARGS] && !seen[P_PROBE])
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, seen[P_ARGS]),
			  "add the probe point whose arguments to record, e.g. "
			  "'probe: \"uretprobe:/bin/bash:readline\"'; syscall events choose their "
			  "own fields",
			  "'args' %s needs a 'probe'", where);
	if (p->probe && !seen[P_SYSCALLS])
		sl_check_point_events(ld, p, where);
	if (!seen[P_SYSCALLS] && !seen[P_PROBE])
		sl_report(ld, DIAG_ERROR, sl_map_loc(ld, map),
			  "add the syscalls to record, e.g. 'syscalls: [openat, connect]', or a "
			  "probe point whose hits to record, e.g. "
			  "'probe: \"uretprobe:/bin/bash:readline\"'",
			  "%s has no 'syscalls' or 'probe'", label);
}

/* Events on syscalls read the raw_syscalls tracepoints (events on a
 * probe point need them too: resolve checks tracefs for both). */
static const spec_kind_rules events_spec_rules = {
	.kind = PROBE_EVENTS,
	.needs = { .syscall_tracepoints = true },
	.keys = KEYS_EVERY | KEY(P_SYSCALLS) | KEY(P_PROBE) | KEY(P_THRESHOLD) | KEY(P_LIMIT) |
		KEY(P_UNIT) | KEY(P_PER_THREAD) | KEY(P_ARGS),
	.purpose = "records slow calls of its 'syscalls', or each hit of its 'probe'",
	.offer = "'kind: events' (a record per slow call, or per hit of a probe point)",
	.default_limit = SPEC_DEFAULT_EVENT_LIMIT,
	.max_syscalls = EVENTS_MAX_SYSCALLS,
	.syscalls_verb = "record",
	.syscalls_example = "syscalls: [openat, connect]",
	.check = events_check,
};

static const char *const events_maps[] = { WIRE_THREAD, WIRE_DROPPED, NULL };
/* ---- serve --------------------------------------------------------- */

static const ps_family_def events_family = {
	"bpfspec_events_total",
	"Records of an events probe: calls at least its threshold long, or hits of its probe "
	"point, recorded or not.", PS_COUNTER, false
};
static const ps_family_def *const events_families[] = { &events_family, NULL };

/* The records of the target as a whole. */
static int events_serve(ps_add *a, const report_probe *p)
{
	const char *whole;
	if (ps_plan_thread_labels(a, 0, NULL, &whole) < 0)
		return -1;
	return whole ? ps_plan(a, &events_family, whole, NULL, NULL, NULL, NULL, p->st.count, NULL)
		     : 0;
}

static const wire_kind events_wire = { .cleared = events_maps, .kept = wire_no_maps };

const kind_ops kind_events_ops = {
	.kind = PROBE_EVENTS,
	.shape = { .events = true, .timeline = true, .article = "an", .counts = "events" },
	.wire = &events_wire,
	.spec = &events_spec_rules,
	.emit = events_emit,
	.describe = events_describe,
	.fill = events_fill,
	.text_row = events_text_row,
	.text_details = events_text_details,
	.json_fields = events_json,
	.prom = events_prom,
	.prom_thread_totals = false,
	.serve = events_serve,
	.serve_families = events_families,
};
