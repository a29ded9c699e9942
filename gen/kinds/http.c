/* http — HTTP/1.x server requests from the syscalls (http.h): the row,
 * its spec rules, its program (templates/http.bt.in) and its report:
 * per route (method and folded path) the requests' count, latency and
 * status codes; each request at least 'threshold' long as an event. */
#include "model/kind.h"

#include <stdlib.h>
#include <string.h>

#include "kinds/http.h"
#include "model/wire.h"
#include "program/generator_internal.h"
#include "program/resolve.h"
#include "run/report_internal.h"
#include "spec/spec_internal.h"
#include "util/hist.h"

/* ---- spec ---- */

static void http_check(loader *ld, spec_probe *p, const node *map, const node *const *seen,
		       const char *label, const char *where)
{
	(void)ld;
	(void)map;
	(void)label;
	(void)where;
	if (!seen[P_THRESHOLD])
		p->threshold_ns = HTTP_DEFAULT_SLOW_NS;
	if (!seen[P_LABELS])
		p->labels = HTTP_DEFAULT_ROUTES;
}

static const spec_kind_rules http_spec_rules = {
	.kind = PROBE_HTTP,
	.needs = { .syscall_tracepoints = true, .tls_functions = true },
	.keys = KEYS_EVERY | KEY(P_THRESHOLD) | KEY(P_LIMIT) | KEY(P_LABELS) | KEY(P_UNIT),
	/* slow requests, records per window, routes: not a syscall's or a
	 * span's */
	.not_offered = KEY(P_THRESHOLD) | KEY(P_LIMIT) | KEY(P_LABELS),
	.purpose = "measures the HTTP/1.x requests a server answers, per route",
	.offer = "'kind: http' (HTTP/1.x requests per route)",
	.default_limit = SPEC_MAX_EVENT_LIMIT,
	.check = http_check,
};

/* ---- program ---- */

/* The first four bytes of each method a request line may begin with, as
 * the program reads them: a little-endian 32-bit integer. */
static const char *const method_heads[] = { "GET ", "POST", "PUT ", "DELE", "HEAD", "PATC",
					    "OPTI", "CONN", "TRAC", NULL };

static unsigned long long le_bytes(const char *s, size_t n)
{
	unsigned long long v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | (unsigned char)s[i];
	return v;
}

/* The texts a request's two ends share, in V: the probe's name, filters
 * and constants, and its ends (http_request.bt.in, http_respond.bt.in:
 * in uprobes on OpenSSL with TLS, else in the syscalls' tracepoints)
 * as "request" and "respond", owned by *OWNED
 * (three strings, freed by the caller whatever is returned).  Returns 0,
 * or -1 after a diagnostic. */
static int set_vars(gen_vars *v, const gen_parts *pt, const spec_probe *sp, bool tls,
		    char *owned[3], char consts[5][48])
{
	buf methods = BUF_INIT, request = BUF_INIT, respond = BUF_INIT;

	for (size_t m = 0; method_heads[m]; m++)
		buf_printf(&methods, "%s$w == 0x%llx", m ? " || " : "",
			   le_bytes(method_heads[m], 4));
	snprintf(consts[0], 48, "$w == 0x%llx", le_bytes("PRI ", 4));
	snprintf(consts[1], 48, "0x%llx", le_bytes("HTTP/1.", 7));
	snprintf(consts[2], 48, "%d", HTTP_LINE_BYTES);
	if (tls)
		snprintf(consts[3], 48, "%skptr(%u)", pt->u64_field, sp->limit);
	else
		snprintf(consts[3], 48, "%u", sp->limit);
	snprintf(consts[4], 48, "%skptr(1)", pt->u64_field);
	owned[0] = buf_take(&methods);
	gen_vars_set(v, "name", sp->name);
	gen_vars_set(v, "filter", pt->pid_filter);
	gen_vars_set(v, "pid_test", pt->pid_test);
	gen_vars_set(v, "methods", owned[0]);
	gen_vars_set(v, "h2", consts[0]);
	gen_vars_set(v, "http", consts[1]);
	gen_vars_set(v, "line", consts[2]);
	gen_vars_set(v, "limit", consts[3]);
	gen_vars_set(v, "delete", pt->delete_call);
	gen_vars_set(v, "u64", pt->u64_field);
	gen_vars_set(v, "q", tls ? "Q" : "q");
	gen_vars_set(v, "s", tls ? "S" : "s");
	gen_vars_set(v, "kptr", tls ? "" : "kptr");
	gen_vars_set(v, "now", tls ? "kptr((int64)nsecs)" : "(int64)nsecs");
	gen_vars_set(v, "one", tls ? consts[4] : "1");
	int rc = gen_render(&request, "http_request.bt.in", v);
	if (rc == 0)
		rc = gen_render(&respond, "http_respond.bt.in", v);
	owned[1] = gen_chop(buf_take(&request));
	owned[2] = gen_chop(buf_take(&respond));
	gen_vars_set(v, "request", owned[1]);
	gen_vars_set(v, "respond", owned[2]);
	return rc;
}

/* The uprobe (or uretprobe) on RP's TLS function K, in *B. */
static void tls_point(buf *b, const resolved_probe *rp, const char *type, size_t k)
{
	gen_put_address_points(b, type, rp->tls_object, &rp->tls_addrs[k], 1);
}

/* The TLS part of probe RP (http_tls.bt.in), when its target has
 * OpenSSL's functions.  Returns 0, or -1 after a diagnostic. */
static int emit_tls(gen_parts *pt, const resolved_probe *rp)
{
	static const char *const in_flight[] = { "hrsbuf", "hrssl", NULL };
	char *owned[3] = { NULL, NULL, NULL }, consts[5][48];
	buf at[4] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT };
	char *points[4];
	gen_vars v = { .n = 0 };

	if (!rp->tls_object)
		return 0;
	if (!gen_plain_object(rp->sp->name, rp->tls_object))
		return -1;
	tls_point(&at[0], rp, "uprobe", RESOLVE_TLS_READ);
	tls_point(&at[1], rp, "uretprobe", RESOLVE_TLS_READ);
	tls_point(&at[2], rp, "uprobe", RESOLVE_TLS_WRITE);
	tls_point(&at[3], rp, "uprobe", RESOLVE_TLS_FREE);
	for (size_t k = 0; k < 4; k++)
		points[k] = buf_take(&at[k]);
	int rc = set_vars(&v, pt, rp->sp, true, owned, consts);
	gen_vars_set(&v, "read", points[0]);
	gen_vars_set(&v, "read_ret", points[1]);
	gen_vars_set(&v, "write", points[2]);
	gen_vars_set(&v, "free", points[3]);
	buf_putc(&pt->out, '\n');
	if (rc == 0)
		rc = gen_render(&pt->out, "http_tls.bt.in", &v);
	for (size_t k = 0; k < 4; k++)
		free(points[k]);
	for (size_t k = 0; k < 3; k++)
		free(owned[k]);
	pt->attach += 4;
	gen_add_maps(pt, rp->sp->name, NULL, NULL, in_flight);
	return rc;
}

static int http_emit(gen_parts *pt, const resolved *r, size_t i)
{
	static const char *const clear_only[] = { "evn", NULL };
	static const char *const in_flight[] = { "hrbuf", "hrfd", HTTP_OPEN_START, NULL };
	const spec_probe *sp = r->probes[i].sp;
	char *owned[3] = { NULL, NULL, NULL }, consts[5][48];
	gen_vars v = { .n = 0 };

	int rc = set_vars(&v, pt, sp, false, owned, consts);
	buf_putc(&pt->out, '\n');
	if (rc == 0)
		rc = gen_render(&pt->out, "http.bt.in", &v);
	for (size_t k = 0; k < 3; k++)
		free(owned[k]);
	pt->attach += 5;
	gen_add_maps(pt, sp->name, wire_of(PROBE_HTTP)->cleared, clear_only, in_flight);
	return rc == 0 ? emit_tls(pt, &r->probes[i]) : rc;
}

static void http_describe(buf *b, const resolved_probe *rp)
{
	const spec_probe *sp = rp->sp;
	buf_printf(b, "HTTP/1.x requests from read/write/writev (at most %u routes, slow from "
		   "%llu ns, %u records)", sp->labels, (unsigned long long)sp->threshold_ns,
		   sp->limit);
	if (rp->tls_object) {
		buf_puts(b, "; HTTPS from SSL_read, SSL_write and SSL_free in ");
		gen_put_comment(b, rp->tls_object);
	} else {
		buf_puts(b, "; HTTPS not measured (no OpenSSL found)");
	}
}

/* ---- report ---- */

/* A request's records (templates/http.bt.in): "NAME q START PID FD
 * LINE" as it is read, "NAME s START TID PID FD NS STATUS" at its status
 * line; on a TLS connection (http_tls.bt.in) "Q" and "S", FD its SSL
 * pointer. */
typedef struct http_record {
	unsigned long long start, ns, fd;
	long tid, pid;
	unsigned status;
	bool tls;
	const char *line;	/* q: the first bytes; s: NULL until paired */
} http_record;

/* Parses REC of probe NAME into R; *IS_START tells which record it is.
 * Returns 1 when it is this probe's, 0 when not, -1 when malformed. */
static int parse_record(const char *rec, const char *name, http_record *r, bool *is_start)
{
	size_t nl = strlen(name);
	int used = 0;
	memset(r, 0, sizeof *r);
	if (strncmp(rec, name, nl) != 0 || rec[nl] != ' ')
		return 0;
	rec += nl + 1;
	r->tls = rec[0] == 'Q' || rec[0] == 'S';
	if ((*is_start = (rec[0] == 'q' || rec[0] == 'Q') && rec[1] == ' ')) {
		if (sscanf(rec + 2, "%llu %ld %llu %n", &r->start, &r->pid, &r->fd, &used) != 3 ||
		    used == 0)
			return -1;
		r->line = rec + 2 + used;
		return 1;
	}
	if ((rec[0] != 's' && rec[0] != 'S') || rec[1] != ' ' ||
	    sscanf(rec + 2, "%llu %ld %ld %llu %llu %u%n", &r->start, &r->tid, &r->pid, &r->fd,
		   &r->ns, &r->status, &used) != 6 || rec[2 + used] || r->status < 100 ||
	    r->status > 599)
		return -1;
	return 1;
}

static int by_key(const void *a, const void *b)
{
	const http_record *x = a, *y = b;
	if (x->tls != y->tls)
		return x->tls ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The first bytes of the request S ends, from the starts STARTS[0..N)
 * sorted by_key, or NULL. */
static const char *line_of(const http_record *s, const http_record *starts, size_t n)
{
	const http_record *q = n ? bsearch(s, starts, n, sizeof *starts, by_key) : NULL;
	return q ? q->line : NULL;
}

/* The row of METHOD and ROUTE in P, added when missing: past LIMIT
 * routes, the "other" row.  NULL out of memory. */
static report_http_route *route_row(report_probe *p, const char *method, const char *route,
				    unsigned limit, size_t *cap)
{
	bool other = p->n_http_routes >= limit;
	for (size_t i = 0; i < p->n_http_routes; i++) {
		report_http_route *rr = &p->http_routes[i];
		if (other ? rr->other : !rr->other && !strcmp(rr->method, method) &&
					    !strcmp(rr->route, route))
			return rr;
	}
	if (p->n_http_routes == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		report_http_route *n = realloc(p->http_routes, nc * sizeof *n);
		if (!n)
			return NULL;
		p->http_routes = n;
		*cap = nc;
	}
	report_http_route *rr = &p->http_routes[p->n_http_routes];
	memset(rr, 0, sizeof *rr);
	rr->other = other;
	rr->st.min_ns = UINT64_MAX;
	rr->method = strdup(other ? "other" : method);
	rr->route = strdup(other ? "other" : route);
	p->n_http_routes++;
	return rr->method && rr->route ? rr : NULL;
}

/* Adds NS to ST's count, sum, min, max and buckets. */
static int add_duration(report_stats *st, uint64_t ns)
{
	st->sum_ns += ns;
	st->min_ns = ns < st->min_ns ? ns : st->min_ns;
	st->max_ns = ns > st->max_ns ? ns : st->max_ns;
	return report_add_bucket(st, hist_bucket_index(ns), 1);
}

/* Adds a request of status CODE that took NS to RR's statuses. */
static int add_status(report_http_route *rr, unsigned code, uint64_t ns)
{
	size_t i = 0;
	while (i < rr->n_statuses && rr->statuses[i].code < code)
		i++;
	if (i == rr->n_statuses || rr->statuses[i].code != code) {
		report_http_status *n = realloc(rr->statuses, (rr->n_statuses + 1) * sizeof *n);
		if (!n)
			return -1;
		rr->statuses = n;
		memmove(n + i + 1, n + i, (rr->n_statuses - i) * sizeof *n);
		n[i] = (report_http_status){ .code = code, .st = { .min_ns = UINT64_MAX } };
		rr->n_statuses++;
	}
	return add_duration(&rr->statuses[i].st, ns);
}

/* A slow request as an event of P. */
static int add_slow(report_probe *p, const http_record *r, const report_http_route *rr,
		    const http_request_line *hl, const kind_fill_ctx *ctx)
{
	report_event *ev = &p->events[p->n_events];
	memset(ev, 0, sizeof *ev);
	ev->t_ns = r->start - ctx->begin_ns;
	ev->tid = r->tid;
	ev->latency_ns = r->ns;
	ev->ret = r->status;
	/* a TLS connection's key is its SSL pointer, not an fd */
	ev->has_fd = !r->tls;
	ev->fd = r->tls ? -1 : (long)r->fd;
	ev->path = strdup(rr->other ? hl->route : rr->route);
	ev->method = strdup(hl->method);
	ev->path_truncated = hl->cut;
	ev->thread = report_thread_name(ctx->pids, r->tid);
	p->n_events++;
	return ev->path && ev->method ? 0 : -1;
}

static int add_record(report_probe *p, const spec_probe *sp, const http_record *r,
		      const kind_fill_ctx *ctx, size_t *cap)
{
	http_request_line hl;
	if (r->line) {
		http_parse_line(r->line, strlen(r->line), HTTP_LINE_BYTES - 1, &hl);
	} else {
		/* its start was not recorded (over the limit, or read in an
		 * earlier interval) */
		memset(&hl, 0, sizeof hl);
		memcpy(hl.method, "?", 2);
		memcpy(hl.route, "(unknown)", 10);
	}
	p->http_cut += hl.cut;
	p->http_tls += r->tls;
	report_http_route *rr = route_row(p, hl.method, hl.route, sp->labels, cap);
	if (!rr || add_duration(&rr->st, r->ns) < 0 || add_duration(&p->st, r->ns) < 0 ||
	    add_status(rr, r->status, r->ns) < 0)
		return -1;
	return r->ns >= sp->threshold_ns ? add_slow(p, r, rr, &hl, ctx) : 0;
}

static int by_p99(const void *a, const void *b)
{
	const report_http_route *x = a, *y = b;
	if (x->other != y->other)
		return x->other ? 1 : -1;
	if (x->st.p99_ns != y->st.p99_ns)
		return x->st.p99_ns < y->st.p99_ns ? 1 : -1;
	return x->st.count < y->st.count ? 1 : x->st.count > y->st.count ? -1 : 0;
}

/* The window's records of SP, starts in *STARTS (sorted by_key) and
 * ends in *ENDS, in W's order.  Returns 0, or -1 out of memory. */
static int split_records(const bpfout_window *w, const spec_probe *sp, http_record **starts,
			 size_t *n_starts, http_record **ends, size_t *n_ends)
{
	*n_starts = *n_ends = 0;
	*starts = *ends = NULL;
	if (!w || !w->n_events)
		return 0;
	if (!(*starts = calloc(w->n_events, sizeof **starts)) ||
	    !(*ends = calloc(w->n_events, sizeof **ends)))
		return -1;
	for (size_t i = 0; i < w->n_events; i++) {
		http_record r;
		bool is_start;
		if (parse_record(w->events[i], sp->name, &r, &is_start) <= 0)
			continue;
		if (is_start)
			(*starts)[(*n_starts)++] = r;
		else
			(*ends)[(*n_ends)++] = r;
	}
	if (*n_starts)
		qsort(*starts, *n_starts, sizeof **starts, by_key);
	return 0;
}

/* Sets the statistics of P's routes and sorts them, slowest p99 first. */
static void finish_routes(report_probe *p)
{
	for (size_t i = 0; i < p->n_http_routes; i++) {
		report_http_route *rr = &p->http_routes[i];
		report_finish_stats(&rr->st);
		for (size_t s = 0; s < rr->n_statuses; s++)
			report_finish_stats(&rr->statuses[s].st);
	}
	report_finish_stats(&p->st);
	if (!p->st.count)
		p->st.min_ns = 0;
	if (p->n_http_routes)
		qsort(p->http_routes, p->n_http_routes, sizeof *p->http_routes, by_p99);
}

static int http_fill(report_probe *p, const resolved_probe *rp, const bpfout_window *w,
		     const kind_fill_ctx *ctx)
{
	const spec_probe *sp = rp->sp;
	http_record *starts, *ends;
	size_t n_starts, n_ends, cap = 0;
	int rc = 0;

	p->threshold_ns = sp->threshold_ns;
	p->st.min_ns = UINT64_MAX;
	if (split_records(w, sp, &starts, &n_starts, &ends, &n_ends) < 0 ||
	    (n_ends && !(p->events = calloc(n_ends, sizeof *p->events))))
		rc = -1;
	for (size_t i = 0; rc == 0 && i < n_ends; i++) {
		if (ends[i].start < ctx->begin_ns)
			continue;
		ends[i].line = line_of(&ends[i], starts, n_starts);
		rc = add_record(p, sp, &ends[i], ctx, &cap);
	}
	free(starts);
	free(ends);
	finish_routes(p);
	p->events_dropped = bpfout_dropped_records(w, sp->name) + report_window_scalar(w, WIRE_DROPPED, sp->name);
	p->http_replaced = report_window_scalar(w, HTTP_REPLACED, sp->name);
	p->http2_seen = report_window_scalar(w, HTTP2_SEEN, sp->name);
	if (rp->tls_object && !(p->tls_object = strdup(rp->tls_object)))
		rc = -1;
	if (rp->tls_missing && !(p->tls_missing = strdup(rp->tls_missing)))
		rc = -1;
	return rc;
}

/* ---- the row ---- */

static const char *const http_cleared[] = { WIRE_DROPPED, HTTP_REPLACED, HTTP2_SEEN, NULL };
static const wire_kind http_wire = { .cleared = http_cleared, .kept = wire_no_maps };

const kind_ops kind_http_ops = {
	.kind = PROBE_HTTP,
	.shape = { .http = true, .timeline = true, .article = "an", .counts = "requests" },
	.wire = &http_wire,
	.spec = &http_spec_rules,
	.emit = http_emit,
	.describe = http_describe,
	.fill = http_fill,
	.text_row = http_text_row,
	.text_details = http_text_details,
	.json_fields = http_json,
	.prom = http_prom,
	.prom_thread_totals = false,
	.serve = http_serve,
	.serve_families = http_families,
};
