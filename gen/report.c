/* report — see report.h. */
#include "report.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <string.h>

#include "buf.h"
#include "gen.h"
#include "systab.h"
#include "target.h"
#include "wire.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

uint64_t report_percentile(const report_stats *st, double q)
{
	if (st->count == 0 || st->n_buckets == 0)
		return 0;
	double rank = q * (double)st->count;
	uint64_t cum = 0;
	for (size_t i = 0; i < st->n_buckets; i++) {
		const report_bucket *b = &st->buckets[i];
		if ((double)(cum + b->count) >= rank && b->count > 0) {
			double frac = (rank - (double)cum) / (double)b->count;
			if (frac < 0)
				frac = 0;
			double v = (double)b->lo_ns + frac * (double)(b->hi_ns - b->lo_ns);
			/* Stay inside the bucket (hi_ns is exclusive); a double
			 * of 2^64 or more does not convert to uint64_t. */
			uint64_t r = v >= 0x1p64 ? UINT64_MAX : (uint64_t)(v + 0.5);
			if (r >= b->hi_ns && b->hi_ns > b->lo_ns)
				r = b->hi_ns - 1;
			if (r < st->min_ns)
				r = st->min_ns;
			if (r > st->max_ns)
				r = st->max_ns;
			return r;
		}
		cum += b->count;
	}
	return st->max_ns;
}

/* Adds COUNT to bucket INDEX of ST, keeping buckets sorted. */
static int stats_add_bucket(report_stats *st, uint64_t index, uint64_t count)
{
	uint64_t lo, hi;
	gen_bucket_bounds(index, &lo, &hi);
	size_t i = 0;
	while (i < st->n_buckets && st->buckets[i].lo_ns < lo)
		i++;
	if (i < st->n_buckets && st->buckets[i].lo_ns == lo) {
		st->buckets[i].count += count;
		return 0;
	}
	report_bucket *nb = realloc(st->buckets, (st->n_buckets + 1) * sizeof *nb);
	if (!nb)
		return -1;
	st->buckets = nb;
	memmove(&nb[i + 1], &nb[i], (st->n_buckets - i) * sizeof *nb);
	nb[i] = (report_bucket){ lo, hi, count };
	st->n_buckets++;
	return 0;
}

static void stats_finish(report_stats *st)
{
	st->count = 0;
	for (size_t i = 0; i < st->n_buckets; i++)
		st->count += st->buckets[i].count;
	st->p50_ns = report_percentile(st, 0.50);
	st->p90_ns = report_percentile(st, 0.90);
	st->p99_ns = report_percentile(st, 0.99);
}

/* The entry for thread TID in *ARR (of *N), added when missing.  Returns
 * NULL when out of memory. */
static report_group *find_thread(report_group **arr, size_t *n, long tid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*arr)[i].tid == tid)
			return &(*arr)[i];
	report_group *ng = realloc(*arr, (*n + 1) * sizeof *ng);
	if (!ng)
		return NULL;
	*arr = ng;
	memset(&ng[*n], 0, sizeof *ng);
	ng[*n].tid = tid;
	ng[*n].st.min_ns = UINT64_MAX;
	return &ng[(*n)++];
}

static report_group *find_group(report_probe *p, long tid)
{
	return find_thread(&p->groups, &p->n_groups, tid);
}

static const bpfout_map *window_map(const bpfout_window *w, const char *kind, const char *name)
{
	char mapname[96];
	if (!w)
		return NULL;
	snprintf(mapname, sizeof mapname, "@%s_%s", kind, name);
	return bpfout_window_map(w, mapname);
}

static long main_pid;

static int group_order(const void *a, const void *b)
{
	const report_group *x = a, *y = b;
	if (x->tid == y->tid)
		return 0;
	if (x->tid == main_pid)
		return -1;
	if (y->tid == main_pid)
		return 1;
	return x->tid < y->tid ? -1 : 1;
}

/* The name of thread TID of process PID as /proc has it now (owned), or
 * NULL when there is no single process or the thread is gone. */
static char *thread_name(long pid, long tid)
{
	char comm[64];
	if (pid <= 0 || tid <= 0 || target_thread_name((pid_t)pid, (pid_t)tid, comm, sizeof comm) < 0)
		return NULL;
	return strdup(comm);
}

/* Sets P's display unit to U.  Returns 0, or -1 out of memory. */
static int set_unit(report_probe *p, time_unit u)
{
	char *name = strdup(unit_name(u));
	if (!name)
		return -1;
	free(p->unit);
	p->unit = name;
	p->unit_ns = unit_ns(u);
	return 0;
}

static int fill_latency(report_probe *p, const char *name, const bpfout_window *w, long pid)
{
	const bpfout_map *m;

	if ((m = window_map(w, WIRE_BUCKETS, name)))
		for (size_t i = 0; i < m->n_entries; i++) {
			const bpfout_entry *e = &m->entries[i];
			if (e->n_ikeys != 2 || e->type != BPFOUT_VALUE_INT || e->value <= 0 ||
			    e->ikeys[1] < 0)
				continue;
			report_group *g = find_group(p, (long)e->ikeys[0]);
			if (!g || stats_add_bucket(&g->st, (uint64_t)e->ikeys[1], (uint64_t)e->value) < 0 ||
			    stats_add_bucket(&p->st, (uint64_t)e->ikeys[1], (uint64_t)e->value) < 0)
				return -1;
		}
	static const char *const kinds[] = { WIRE_SUM, WIRE_MIN, WIRE_MAX };
	p->st.min_ns = UINT64_MAX;
	for (size_t k = 0; k < 3; k++) {
		if (!(m = window_map(w, kinds[k], name)))
			continue;
		for (size_t i = 0; i < m->n_entries; i++) {
			const bpfout_entry *e = &m->entries[i];
			if (e->n_ikeys != 1 || e->type != BPFOUT_VALUE_INT || e->value < 0)
				continue;
			report_group *g = find_group(p, (long)e->ikeys[0]);
			if (!g)
				return -1;
			uint64_t v = (uint64_t)e->value;
			if (k == 0) {
				g->st.sum_ns = v;
				p->st.sum_ns += v;
			} else if (k == 1) {
				g->st.min_ns = v;
				if (v < p->st.min_ns)
					p->st.min_ns = v;
			} else {
				g->st.max_ns = v;
				if (v > p->st.max_ns)
					p->st.max_ns = v;
			}
		}
	}
	for (size_t i = 0; i < p->n_groups; i++) {
		report_group *g = &p->groups[i];
		if (g->st.min_ns == UINT64_MAX)
			g->st.min_ns = 0;
		stats_finish(&g->st);
		g->thread = thread_name(pid, g->tid);
	}
	if (p->st.min_ns == UINT64_MAX)
		p->st.min_ns = 0;
	stats_finish(&p->st);
	main_pid = pid;
	if (p->n_groups > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(p->groups, p->n_groups, sizeof *p->groups, group_order);
	return 0;
}

/* ---- utilization probes ---------------------------------------------- */

/* The waits of each thread in epoll, as a latency probe's calls, and the
 * window [BEGIN, END) (bpftrace clock) split into idle and busy time.
 * @uin_NAME[tid] = start of a wait still in progress at END. */
static int fill_utilization(report_probe *p, const char *name, const bpfout_window *w,
			    const report_run *run, uint64_t begin, uint64_t end)
{
	const bpfout_map *in = window_map(w, WIRE_WAITING, name);
	uint64_t win = end > begin ? end - begin : 0;

	for (size_t i = 0; in && i < in->n_entries; i++)
		if (in->entries[i].n_ikeys == 1 && !find_group(p, (long)in->entries[i].ikeys[0]))
			return -1;
	for (size_t i = 0; i < run->n_waiting; i++)
		if (!find_group(p, run->waiting_tids[i]))
			return -1;
	if (fill_latency(p, name, w, run->pid) < 0)
		return -1;
	p->utilization = 0;
	for (size_t i = 0; i < p->n_groups; i++) {
		report_group *g = &p->groups[i];
		bool waiting = false;
		g->idle_ns = g->st.sum_ns;
		for (size_t k = 0; in && k < in->n_entries; k++) {
			const bpfout_entry *e = &in->entries[k];
			if (e->n_ikeys != 1 || e->ikeys[0] != g->tid || e->type != BPFOUT_VALUE_INT)
				continue;
			uint64_t from = (uint64_t)e->value > begin ? (uint64_t)e->value : begin;
			if (from < end)
				g->idle_ns += end - from;
			waiting = true;
		}
		/* Waiting when the window began and never woke: idle throughout. */
		if (!waiting && g->st.count == 0)
			g->idle_ns = win;
		if (g->idle_ns > win)
			g->idle_ns = win;
		g->busy_ns = win - g->idle_ns;
		g->utilization = win ? (double)g->busy_ns / (double)win : 0.0;
		if (g->utilization > p->utilization)
			p->utilization = g->utilization;
	}
	return 0;
}

/* ---- count probes ---------------------------------------------------- */

/* @c_NAME[key] = hits: groups carry only a count. */
static int fill_count(report_probe *p, const char *name, const bpfout_window *w, long pid)
{
	const bpfout_map *m = window_map(w, WIRE_HITS, name);

	for (size_t i = 0; m && i < m->n_entries; i++) {
		const bpfout_entry *e = &m->entries[i];
		if (e->n_ikeys != 1 || e->type != BPFOUT_VALUE_INT || e->value < 0)
			continue;
		report_group *g = find_group(p, (long)e->ikeys[0]);
		if (!g)
			return -1;
		g->st.count += (uint64_t)e->value;
		p->st.count += (uint64_t)e->value;
	}
	for (size_t i = 0; i < p->n_groups; i++) {
		report_group *g = &p->groups[i];
		g->st.min_ns = 0;
		g->thread = thread_name(pid, g->tid);
	}
	main_pid = pid;
	if (p->n_groups > 1)
		qsort(p->groups, p->n_groups, sizeof *p->groups, group_order);
	return 0;
}

/* ---- syscalls probes ------------------------------------------------ */

/* The name of syscall NR as raw_syscalls:sys_exit gives it (owned).  The
 * kernel reports rt_sigreturn's exit with number -1 (it restores the
 * registers of the code the signal interrupted, orig_ax included: the
 * enter tracepoint saw 15), so -1 reads as rt_sigreturn; a number the
 * table lacks is "syscall_N". */
static char *exit_syscall_name(long nr)
{
	const char *name = nr == -1 ? "rt_sigreturn" : systab_syscall_name(nr);
	char *out = NULL;
	if (name)
		return strdup(name);
	return asprintf(&out, "syscall_%ld", nr) < 0 ? NULL : out;
}

static report_syscall *find_syscall(report_probe *p, long nr)
{
	for (size_t i = 0; i < p->n_syscalls; i++)
		if (p->syscalls[i].nr == nr)
			return &p->syscalls[i];
	report_syscall *ns = realloc(p->syscalls, (p->n_syscalls + 1) * sizeof *ns);
	if (!ns)
		return NULL;
	p->syscalls = ns;
	report_syscall *sc = &ns[p->n_syscalls];
	memset(sc, 0, sizeof *sc);
	sc->nr = nr;
	sc->st.min_ns = UINT64_MAX;
	if (!(sc->name = exit_syscall_name(nr)))
		return NULL;
	p->n_syscalls++;
	return sc;
}


static int errno_order(const void *a, const void *b)
{
	const report_errno *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->number > y->number) - (x->number < y->number);
}

static int syscall_order(const void *a, const void *b)
{
	const report_syscall *x = a, *y = b;
	if (x->st.sum_ns != y->st.sum_ns)
		return x->st.sum_ns > y->st.sum_ns ? -1 : 1;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

/* Adds V (kind K: 0 count, 1 sum, 2 min, 3 max) to stats ST. */
static void stats_merge(report_stats *st, int k, uint64_t v)
{
	switch (k) {
	case 0: st->count += v; break;
	case 1: st->sum_ns += v; break;
	case 2: if (v < st->min_ns) st->min_ns = v; break;
	default: if (v > st->max_ns) st->max_ns = v; break;
	}
}

static int fill_syscalls(report_probe *p, const char *name, const bpfout_window *w, long pid)
{
	const bpfout_map *m;
	static const char *const kinds[] = { WIRE_CALLS, WIRE_SUM, WIRE_MIN, WIRE_MAX };

	p->st.min_ns = UINT64_MAX;
	if ((m = window_map(w, WIRE_BUCKETS, name)))
		for (size_t i = 0; i < m->n_entries; i++) {
			const bpfout_entry *e = &m->entries[i];
			if (e->n_ikeys != 2 || e->type != BPFOUT_VALUE_INT || e->value <= 0 ||
			    e->ikeys[1] < 0)
				continue;
			report_syscall *sc = find_syscall(p, (long)e->ikeys[0]);
			if (!sc || stats_add_bucket(&sc->st, (uint64_t)e->ikeys[1], (uint64_t)e->value) < 0 ||
			    stats_add_bucket(&p->st, (uint64_t)e->ikeys[1], (uint64_t)e->value) < 0)
				return -1;
		}
	for (int k = 0; k < 4; k++) {
		if (!(m = window_map(w, kinds[k], name)))
			continue;
		for (size_t i = 0; i < m->n_entries; i++) {
			const bpfout_entry *e = &m->entries[i];
			if (e->n_ikeys != 2 || e->type != BPFOUT_VALUE_INT || e->value < 0)
				continue;
			uint64_t v = (uint64_t)e->value;
			long tid = (long)e->ikeys[0];
			report_syscall *sc = find_syscall(p, (long)e->ikeys[1]);
			report_group *th = sc ? find_thread(&sc->threads, &sc->n_threads, tid) : NULL;
			report_group *g = find_group(p, tid);
			if (!th || !g)
				return -1;
			if (k == 0)
				th->st.count = v;
			else
				stats_merge(&th->st, k, v);
			stats_merge(&g->st, k, v);
			if (k >= 1) {
				stats_merge(&sc->st, k, v);
				stats_merge(&p->st, k, v);
			}
		}
	}
	if ((m = window_map(w, WIRE_ERRORS, name)))
		for (size_t i = 0; i < m->n_entries; i++) {
			const bpfout_entry *e = &m->entries[i];
			if (e->n_ikeys != 2 || e->type != BPFOUT_VALUE_INT || e->value <= 0)
				continue;
			report_syscall *sc = find_syscall(p, (long)e->ikeys[0]);
			if (!sc)
				return -1;
			report_errno *ne = realloc(sc->errors, (sc->n_errors + 1) * sizeof *ne);
			if (!ne)
				return -1;
			sc->errors = ne;
			report_errno *er = &ne[sc->n_errors];
			er->number = (long)e->ikeys[1];
			er->count = (uint64_t)e->value;
			const char *en = systab_errno_name(er->number);
			er->name = en ? strdup(en) : NULL;
			if (!er->name && asprintf(&er->name, "E%ld", er->number) < 0)
				er->name = NULL;
			if (!er->name)
				return -1;
			sc->n_errors++;
			sc->error_count += er->count;
		}
	main_pid = pid;
	for (size_t i = 0; i < p->n_syscalls; i++) {
		report_syscall *sc = &p->syscalls[i];
		if (sc->st.min_ns == UINT64_MAX)
			sc->st.min_ns = 0;
		stats_finish(&sc->st);
		for (size_t t = 0; t < sc->n_threads; t++) {
			report_group *th = &sc->threads[t];
			if (th->st.min_ns == UINT64_MAX)
				th->st.min_ns = 0;
			th->thread = thread_name(pid, th->tid);
		}
		if (sc->n_threads > 1)
			qsort(sc->threads, sc->n_threads, sizeof *sc->threads, group_order);
		if (sc->n_errors > 1)
			qsort(sc->errors, sc->n_errors, sizeof *sc->errors, errno_order);
	}
	for (size_t i = 0; i < p->n_groups; i++) {
		report_group *g = &p->groups[i];
		if (g->st.min_ns == UINT64_MAX)
			g->st.min_ns = 0;
		g->thread = thread_name(pid, g->tid);
	}
	if (p->st.min_ns == UINT64_MAX)
		p->st.min_ns = 0;
	uint64_t sum = p->st.sum_ns;
	stats_finish(&p->st);	/* count from buckets */
	p->st.sum_ns = sum;
	if (p->n_groups > 1)
		qsort(p->groups, p->n_groups, sizeof *p->groups, group_order);
	if (p->n_syscalls > 1)
		qsort(p->syscalls, p->n_syscalls, sizeof *p->syscalls, syscall_order);
	return 0;
}

/* ---- events probes --------------------------------------------------- */


/* Decodes bpftrace's %r text (printable bytes as-is, others as \xNN) into
 * OUT; returns the number of bytes. */
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

/* "1.2.3.4:80" or "[::1]:80" from raw sockaddr bytes; NULL for other
 * families (e.g. AF_UNIX: shown as "unix"). */
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
		buf b2 = BUF_INIT;
		buf_puts(&b2, abstract ? "unix:@" : "unix:");
		/* The path's bytes as they are (no NUL): renderers escape
		 * them (safe.h). */
		for (; i < end; i++)
			buf_putc(&b2, p[i] ? (char)p[i] : '?');
		return buf_take(&b2);
	}
	if (asprintf(&out, "family %u", family) < 0)
		return NULL;
	return out;
}

/* Parses "NAME TIME TID NR NS RET KIND ARG" for probe NAME into EV.
 * Returns 1 when the record is this probe's, 0 when not, -1 when
 * malformed or out of memory. */
static int parse_event(const char *rec, const char *name, uint64_t begin, report_event *ev)
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
	memset(ev, 0, sizeof *ev);
	ev->t_ns = ts > begin ? ts - begin : 0;
	ev->tid = tid;
	ev->latency_ns = lat;
	ev->ret = ret;
	if (!(ev->syscall = exit_syscall_name(nr)))
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

static void free_values(report_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].s);
	}
	free(v);
}

/* Parses "NAME TIME TID = V1 V2 ..." of events probe SP on a probe point
 * (numbers in the spec's order, then the string) into EV.  Returns 1 when
 * the record is this probe's, 0 when not, -1 when malformed or out of
 * memory. */
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
	memset(ev, 0, sizeof *ev);
	ev->t_ns = ts > begin ? ts - begin : 0;
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
				free_values(ev->args, ev->n_args);
				ev->args = NULL;
				ev->n_args = 0;
				return -1;
			}
		}
	return *p ? -1 : 1;
}

static int fill_events(report_probe *p, const spec_probe *sp, const bpfout_window *w, long pid,
		       uint64_t begin)
{
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
		int r = spec_is_point_events(sp) ? parse_point_event(w->events[i], sp, begin, &ev)
						 : parse_event(w->events[i], sp->name, begin, &ev);
		if (r <= 0)
			continue;
		p->events[p->n_events++] = ev;
	}
	p->events_dropped = w->events_dropped;
	if ((m = window_map(w, WIRE_DROPPED, sp->name)))
		for (size_t i = 0; i < m->n_entries; i++)
			if (m->entries[i].type == BPFOUT_VALUE_INT && m->entries[i].value > 0)
				p->events_dropped += (uint64_t)m->entries[i].value;
	m = window_map(w, WIRE_THREAD, sp->name);
	for (size_t i = 0; i < p->n_events; i++) {
		report_event *ev = &p->events[i];
		char key[32];
		snprintf(key, sizeof key, "%ld", ev->tid);
		const bpfout_entry *e = m ? bpfout_map_entry(m, key) : NULL;
		if (e && e->type == BPFOUT_VALUE_STRING && e->str)
			ev->thread = strdup(e->str);
		else
			ev->thread = thread_name(pid, ev->tid);
	}
	p->st.count = p->n_events + p->events_dropped;
	return 0;
}

void report_utc_stamp(char *out, size_t len, uint64_t unix_ns, bool rfc3339)
{
	time_t secs = (time_t)(unix_ns / 1000000000ull);
	struct tm tmv;
	char day[32];
	if (!gmtime_r(&secs, &tmv) ||
	    !strftime(day, sizeof day, rfc3339 ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tmv)) {
		snprintf(out, len, "?");
		return;
	}
	if (rfc3339)
		snprintf(out, len, "%s.%06luZ", day, (unsigned long)(unix_ns % 1000000000ull / 1000));
	else
		snprintf(out, len, "%s UTC", day);
}

report *report_build(const resolved *r, const bpfout_window *w, const report_run *run)
{
	report *rep = calloc(1, sizeof *rep);
	if (!rep)
		return NULL;
	rep->spec_name = dup_or_null(r->sp->name);
	rep->spec_path = dup_or_null(r->sp->path);
	if (r->sp->n_params) {
		size_t n = r->sp->n_params;
		rep->param_names = calloc(n, sizeof *rep->param_names);
		rep->param_values = calloc(n, sizeof *rep->param_values);
		rep->param_set = calloc(n, sizeof *rep->param_set);
		if (!rep->param_names || !rep->param_values || !rep->param_set) {
			report_free(rep);
			return NULL;
		}
		for (; rep->n_params < n; rep->n_params++) {
			const spec_param *sp = &r->sp->params[rep->n_params];
			rep->param_names[rep->n_params] = dup_or_null(sp->name);
			rep->param_values[rep->n_params] = dup_or_null(sp->value);
			rep->param_set[rep->n_params] = sp->overridden;
		}
	}
	rep->entry_only = r->sp->entry_only;
	rep->pid = run->pid;
	rep->binary = dup_or_null(r->tg->exe);
	rep->libuv_version = dup_or_null(r->libuv_version);
	rep->bpftrace_version = dup_or_null(run->bpftrace_version);
	rep->duration_ns = run->duration_ns;
	uint64_t begin = w ? w->begin_ns : 0;
	if (run->begin_ns && w && (!w->end_ns || run->begin_ns < w->end_ns))
		begin = run->begin_ns;
	if (w && begin && w->end_ns > begin) {
		uint64_t end = w->end_ns;
		if (run->stop_ns > begin && run->stop_ns < end)
			end = run->stop_ns;
		rep->duration_ns = end - begin;
	} else if (w && begin && !w->end_ns && run->stop_ns > begin) {
		rep->duration_ns = run->stop_ns - begin;	/* never flushed */
	}
	if (begin && run->realtime_offset_ns && (int64_t)begin + run->realtime_offset_ns > 0)
		rep->start_unix_ns = (uint64_t)((int64_t)begin + run->realtime_offset_ns);
	rep->partial = run->partial;
	rep->partial_reason = dup_or_null(run->partial_reason);
	rep->lost_events = run->lost_events;
	rep->attached_probes = run->attached_probes;
	rep->expected_probes = run->expected_probes;
	rep->probes = calloc(r->n_probes, sizeof *rep->probes);
	if (!rep->probes) {
		report_free(rep);
		return NULL;
	}
	rep->n_probes = r->n_probes;
	for (size_t i = 0; i < r->n_probes; i++) {
		const resolved_probe *rp = &r->probes[i];
		report_probe *p = &rep->probes[i];
		p->name = strdup(rp->sp->name);
		p->kind = rp->sp->kind;
		p->function = dup_or_null(rp->sp->function);
		p->probe = dup_or_null(rp->sp->probe);
		p->object = dup_or_null(rp->active ? rp->object : NULL);
		p->debug_file = dup_or_null(rp->active ? rp->debug_file : NULL);
		if (rp->active && rp->sp->function && strstr(rp->sp->function, "::"))
			p->matched_symbols = rp->n_names;
		/* unit: auto is decided once the figures are in (below). */
		p->unit = strdup(unit_name(rp->sp->unit == UNIT_AUTO ? UNIT_US : rp->sp->unit));
		p->unit_ns = unit_ns(rp->sp->unit == UNIT_AUTO ? UNIT_US : rp->sp->unit);
		p->attached = rp->active;
		p->reason = dup_or_null(rp->reason);
		p->derived = dup_or_null(rp->derived);
		if (!p->name || !p->unit) {
			report_free(rep);
			return NULL;
		}
		int rc = 0;
		/* Not attached: nothing to fill. */
		if (rp->active) {
			switch (rp->sp->kind) {
			case PROBE_LATENCY:
				rc = fill_latency(p, rp->sp->name, w, run->pid);
				break;
			case PROBE_SYSCALLS:
				rc = fill_syscalls(p, rp->sp->name, w, run->pid);
				break;
			case PROBE_EVENTS:
				rc = fill_events(p, rp->sp, w, run->pid, begin);
				break;
			case PROBE_COUNT:
				rc = fill_count(p, rp->sp->name, w, run->pid);
				break;
			case PROBE_UTILIZATION:
				rc = fill_utilization(p, rp->sp->name, w, run, begin,
						      begin + rep->duration_ns);
				break;
			}
		}
		if (rc < 0) {
			report_free(rep);
			return NULL;
		}
		if (rp->sp->unit == UNIT_AUTO && set_unit(p, unit_for(p->st.p99_ns)) < 0) {
			report_free(rep);
			return NULL;
		}
	}
	return rep;
}

int report_add_warning(report *rep, const char *text)
{
	char **nw = realloc(rep->warnings, (rep->n_warnings + 1) * sizeof *nw);
	if (!nw)
		return -1;
	rep->warnings = nw;
	if (!(nw[rep->n_warnings] = strdup(text)))
		return -1;
	rep->n_warnings++;
	return 0;
}

void report_free(report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->n_probes; i++) {
		report_probe *p = &rep->probes[i];
		free(p->name);
		free(p->function);
		free(p->probe);
		free(p->object);
		free(p->debug_file);
		free(p->unit);
		free(p->reason);
		free(p->derived);
		free(p->st.buckets);
		for (size_t g = 0; g < p->n_groups; g++) {
			free(p->groups[g].thread);
			free(p->groups[g].st.buckets);
		}
		free(p->groups);
		for (size_t k = 0; k < p->n_syscalls; k++) {
			report_syscall *sc = &p->syscalls[k];
			free(sc->name);
			free(sc->st.buckets);
			for (size_t e = 0; e < sc->n_errors; e++)
				free(sc->errors[e].name);
			free(sc->errors);
			for (size_t t = 0; t < sc->n_threads; t++)
				free(sc->threads[t].thread);
			free(sc->threads);
		}
		free(p->syscalls);
		for (size_t k = 0; k < p->n_events; k++) {
			report_event *ev = &p->events[k];
			free(ev->thread);
			free(ev->syscall);
			free(ev->error);
			free(ev->path);
			free(ev->address);
			free_values(ev->args, ev->n_args);
		}
		free(p->events);
	}
	free(rep->probes);
	for (size_t i = 0; i < rep->n_warnings; i++)
		free(rep->warnings[i]);
	free(rep->warnings);
	free(rep->spec_name);
	free(rep->spec_path);
	for (size_t i = 0; i < rep->n_params; i++) {
		free(rep->param_names[i]);
		free(rep->param_values[i]);
	}
	free(rep->param_names);
	free(rep->param_values);
	free(rep->param_set);
	free(rep->binary);
	free(rep->libuv_version);
	free(rep->bpftrace_version);
	free(rep->partial_reason);
	free(rep);
}
