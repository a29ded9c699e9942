/* http_render — an http probe's outputs (http.h): text, JSON, -o prom
 * and serve's series.  Methods and routes are bytes a client sent: every
 * output escapes them as its format wants (safe.h, rjson_put_bytes,
 * promtext), and their number is bounded by the spec's 'labels'. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/http.h"
#include "model/report.h"
#include "render/render_internal.h"
#include "serve/promstore_plan.h"
#include "util/safe.h"

/* Columns of a method and of a route in the text table. */
#define METHOD_COLS 7
#define ROUTE_COLS 32

/* Requests of RR whose status is in class C (2 for 2xx, ...). */
static uint64_t class_count(const report_http_route *rr, unsigned c)
{
	uint64_t n = 0;
	for (size_t i = 0; i < rr->n_statuses; i++)
		if (rr->statuses[i].code / 100 == c)
			n += rr->statuses[i].st.count;
	return n;
}

void http_text_row(FILE *out, const report_probe *p, const report *rep)
{
	(void)rep;
	fprintf(out, "%10llu requests on %zu route%s (routes below)\n",
		(unsigned long long)p->st.count, p->n_http_routes, p->n_http_routes == 1 ? "" : "s");
}

/* "200x9 404x1" of RR, at most the first few codes. */
static void put_statuses(FILE *out, const report_http_route *rr)
{
	for (size_t i = 0; i < rr->n_statuses && i < 4; i++)
		fprintf(out, "%s%ux%llu", i ? " " : "", rr->statuses[i].code,
			(unsigned long long)rr->statuses[i].st.count);
	if (rr->n_statuses > 4)
		fputs(" ...", out);
}

static void route_table(FILE *out, const report_probe *p)
{
	fprintf(out, "  %-*s %-*s %8s %9s %9s %9s %9s %6s %6s %6s  %s\n", METHOD_COLS, "METHOD",
		ROUTE_COLS, "ROUTE", "COUNT", "P50~", "P90~", "P99~", "MAX", "2XX", "4XX", "5XX",
		"STATUS");
	for (size_t i = 0; i < p->n_http_routes; i++) {
		const report_http_route *rr = &p->http_routes[i];
		char p50[32], p90[32], p99[32], max[32];
		text_fmt_dur(p50, sizeof p50, rr->st.p50_ns, p->unit_ns, p->unit);
		text_fmt_dur(p90, sizeof p90, rr->st.p90_ns, p->unit_ns, p->unit);
		text_fmt_dur(p99, sizeof p99, rr->st.p99_ns, p->unit_ns, p->unit);
		text_fmt_dur(max, sizeof max, rr->st.max_ns, p->unit_ns, p->unit);
		fputs("  ", out);
		safe_fputs_cell(rr->method, NULL, METHOD_COLS, out);
		fputc(' ', out);
		safe_fputs_cell(rr->route, NULL, ROUTE_COLS, out);
		fprintf(out, " %8llu %9s %9s %9s %9s %6llu %6llu %6llu  ",
			(unsigned long long)rr->st.count, p50, p90, p99, max,
			(unsigned long long)class_count(rr, 2), (unsigned long long)class_count(rr, 4),
			(unsigned long long)class_count(rr, 5));
		put_statuses(out, rr);
		fputc('\n', out);
	}
}

static void slow_table(FILE *out, const report_probe *p)
{
	char thr[32];
	text_fmt_dur(thr, sizeof thr, p->threshold_ns, p->unit_ns, p->unit);
	fprintf(out, "%zu requests of at least %s\n", p->n_events, thr);
	if (!p->n_events)
		return;
	fprintf(out, "  %10s %-8s %-*s %6s %10s %6s  %s\n", "TIME(s)", "TID", TEXT_EVENT_THREAD_COLS,
		"THREAD", "FD", "LATENCY", "STATUS", "REQUEST");
	for (size_t i = 0; i < p->n_events; i++) {
		const report_event *ev = &p->events[i];
		char lat[32];
		text_fmt_dur(lat, sizeof lat, ev->latency_ns, p->unit_ns, p->unit);
		fprintf(out, "  %10.6f %-8ld ", (double)ev->t_ns / 1e9, ev->tid);
		safe_fputs_cell(ev->thread ? ev->thread : "?", NULL, TEXT_EVENT_THREAD_COLS, out);
		if (ev->has_fd)
			fprintf(out, " %6ld", ev->fd);
		else
			fprintf(out, " %6s", "tls");
		fprintf(out, " %10s %6lld  ", lat, ev->ret);
		safe_fputs(ev->method ? ev->method : "?", out);
		fputc(' ', out);
		safe_fputs(ev->path ? ev->path : "?", out);
		fputc('\n', out);
	}
}

/* Where HTTPS was read, or why it was not. */
static void tls_line(FILE *out, const report_probe *p)
{
	if (p->tls_object) {
		fprintf(out, "  %llu of them over TLS (plain text from SSL_read and SSL_write in ",
			(unsigned long long)p->http_tls);
		safe_fputs(p->tls_object, out);
		fputs(")\n", out);
	} else if (p->tls_missing) {
		fputs("  HTTPS requests not measured: no OpenSSL SSL_read, SSL_write and SSL_free "
		      "found (", out);
		safe_fputs(p->tls_missing, out);
		fputs(")\n", out);
	}
}

void http_text_details(FILE *out, const report_probe *p, const report *rep)
{
	(void)rep;
	text_section(out, p);
	fprintf(out, "requests by route, slowest p99 first (first bytes read -> status line "
		"written)\n");
	if (p->events_dropped)
		fprintf(out, "  %llu more requests not measured (over the probe's limit)\n",
			(unsigned long long)p->events_dropped);
	if (p->http_replaced)
		fprintf(out, "  %llu requests not measured: another came on their connection before "
			"their response (pipelined, or never answered)\n",
			(unsigned long long)p->http_replaced);
	if (p->http_cut)
		fprintf(out, "  %llu request lines longer than the %d bytes read (routes end in "
			"\"...\")\n", (unsigned long long)p->http_cut, HTTP_LINE_BYTES - 1);
	if (p->http2_seen)
		fprintf(out, "  %llu HTTP/2 connections seen: HTTP/2 and gRPC are not measured\n",
			(unsigned long long)p->http2_seen);
	tls_line(out, p);
	if (p->n_http_routes)
		route_table(out, p);
	slow_table(out, p);
}

static json_t *route_json(const report_http_route *rr)
{
	json_t *jr = json_object(), *codes = json_array(), *classes = json_object();
	rjson_put_bytes(jr, "method", rr->method);
	rjson_put_bytes(jr, "route", rr->route);
	json_object_set_new(jr, "other", json_boolean(rr->other));
	rjson_put_stats(jr, &rr->st);
	for (size_t i = 0; i < rr->n_statuses; i++) {
		json_t *jc = json_object();
		json_object_set_new(jc, "code", json_integer(rr->statuses[i].code));
		rjson_put_stats(jc, &rr->statuses[i].st);
		json_array_append_new(codes, jc);
	}
	for (unsigned c = 2; c <= 5; c++) {
		char k[8];
		snprintf(k, sizeof k, "%uxx", c);
		json_object_set_new(classes, k, rjson_u64(class_count(rr, c)));
	}
	json_object_set_new(jr, "statuses", codes);
	json_object_set_new(jr, "status_classes", classes);
	return jr;
}

void http_json(json_t *jp, const report_probe *p, const report *rep)
{
	json_t *routes = json_array(), *slow = json_array();
	(void)rep;
	rjson_put_stats(jp, &p->st);
	json_object_set_new(jp, "groups", json_array());
	json_object_set_new(jp, "threshold_ns", rjson_u64(p->threshold_ns));
	json_object_set_new(jp, "requests_dropped", rjson_u64(p->events_dropped));
	json_object_set_new(jp, "requests_replaced", rjson_u64(p->http_replaced));
	json_object_set_new(jp, "lines_cut", rjson_u64(p->http_cut));
	json_object_set_new(jp, "http2_connections", rjson_u64(p->http2_seen));
	json_object_set_new(jp, "tls_requests", rjson_u64(p->http_tls));
	rjson_put_bytes(jp, "tls_object", p->tls_object);
	rjson_put_bytes(jp, "tls_missing", p->tls_missing);
	for (size_t i = 0; i < p->n_http_routes; i++)
		json_array_append_new(routes, route_json(&p->http_routes[i]));
	json_object_set_new(jp, "routes", routes);
	for (size_t i = 0; i < p->n_events; i++) {
		const report_event *ev = &p->events[i];
		json_t *je = json_object();
		json_object_set_new(je, "t_ns", rjson_u64(ev->t_ns));
		json_object_set_new(je, "tid", json_integer(ev->tid));
		rjson_put_bytes(je, "thread", ev->thread);
		json_object_set_new(je, "fd", json_integer(ev->fd));
		json_object_set_new(je, "duration_ns", rjson_u64(ev->latency_ns));
		json_object_set_new(je, "status", json_integer(ev->ret));
		rjson_put_bytes(je, "method", ev->method);
		rjson_put_bytes(je, "route", ev->path);
		json_object_set_new(je, "cut", json_boolean(ev->path_truncated));
		json_array_append_new(slow, je);
	}
	json_object_set_new(jp, "slow_requests", slow);
}

void http_prom(FILE *out, const report *rep)
{
	const report_probe *p;
	prom_family dur = { "http_server_request_duration_seconds", "histogram",
			    "Time from a request's first bytes read to its status line written, as "
			    "the server sees it (OpenTelemetry http.server.request.duration), in the "
			    "window.", false };
	prom_family dropped = { "bpfspec_http_requests_dropped", "gauge",
				"Requests not measured in the window (over the probe's limit, or "
				"another request came on their connection first).", false };
	char v[32], code[8];

	for (size_t i = 0; (p = prom_next(rep, PROBE_HTTP, &i));)
		for (size_t k = 0; k < p->n_http_routes; k++) {
			const report_http_route *rr = &p->http_routes[k];
			for (size_t s = 0; s < rr->n_statuses; s++) {
				snprintf(code, sizeof code, "%u", rr->statuses[s].code);
				promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name },
							{ "http_request_method", rr->method },
							{ "http_route", rr->route },
							{ "http_response_status_code", code } };
				prom_histogram(out, &dur, ls, 5, &rr->statuses[s].st);
			}
		}
	for (size_t i = 0; (p = prom_next(rep, PROBE_HTTP, &i));) {
		promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name } };
		promtext_u64(v, sizeof v, p->events_dropped + p->http_replaced);
		prom_sample(out, &dropped, "", ls, 2, v);
	}
}

/* ---- serve --------------------------------------------------------- */

static const ps_family_def duration_family = {
	"http_server_request_duration_seconds",
	"Time from a request's first bytes read to its status line written, as the server sees "
	"it (OpenTelemetry http.server.request.duration).", PS_HISTOGRAM, true
};
static const ps_family_def dropped_family = {
	"bpfspec_http_requests_dropped_total",
	"Requests not measured (over the probe's limit, or another request came on their "
	"connection first).", PS_COUNTER, false
};
const ps_family_def *const http_families[] = { &duration_family, &dropped_family, NULL };

/* Series of http_server_request_duration_seconds per target and probe
 * over serve's life: past them, a new method, route and status is added
 * to method and route "other" (with its status), so that paths clients
 * choose cannot grow serve's memory without end. */
#define HTTP_SERVE_MAX_SERIES 1000

int http_serve(ps_add *a, const report_probe *p)
{
	const char *whole;
	char code[8];
	if (ps_plan_thread_labels(a, 0, NULL, &whole) < 0)
		return -1;
	if (!whole)
		return 0;
	for (size_t k = 0; k < p->n_http_routes; k++) {
		const report_http_route *rr = &p->http_routes[k];
		for (size_t s = 0; s < rr->n_statuses; s++) {
			snprintf(code, sizeof code, "%u", rr->statuses[s].code);
			const char *pairs[] = { "http_request_method", rr->method, "http_route",
						rr->route, "http_response_status_code", code };
			int room = ps_series_room(a, &duration_family, whole, pairs, 3,
						  HTTP_SERVE_MAX_SERIES);
			if (room < 0)
				return -1;
			if (room == 0)
				pairs[1] = pairs[3] = "other";
			if (ps_plan_pairs(a, &duration_family, whole, pairs, 3, 0,
					  &rr->statuses[s].st) < 0)
				return -1;
		}
	}
	return ps_plan(a, &dropped_family, whole, NULL, NULL, NULL, NULL,
		       p->events_dropped + p->http_replaced, NULL);
}
