/* report_load_http — an http probe's fields of a JSON report back into
 * the model (report_load_internal.h; docs/report.md, "HTTP probes"). */
#include <stdlib.h>
#include <string.h>

#include "render/report_load_internal.h"

/* Status OBJ (at BASE) into S. */
static int load_status(loader *l, const json_t *obj, const char *base, report_http_status *s)
{
	uint64_t code;
	char path[JPATH_LEN];
	if (rl_get_u64(l, obj, base, "code", &code) < 0)
		return -1;
	if (code < 100 || code > 599) {
		rl_path_key(path, base, "code");
		return rl_fail(l, path, "a status code is from 100 to 599, not %llu",
			       (unsigned long long)code);
	}
	s->code = (unsigned)code;
	return rl_load_stats(l, obj, base, &s->st, true);
}

/* Route OBJ (at BASE) into R. */
static int load_route(loader *l, const json_t *obj, const char *base, report_http_route *r)
{
	char path[JPATH_LEN], rbase[JPATH_LEN];
	if (rl_get_bytes(l, obj, base, "method", &r->method, false, false) < 0 ||
	    rl_get_bytes(l, obj, base, "route", &r->route, false, false) < 0 ||
	    rl_get_bool(l, obj, base, "other", &r->other) < 0 ||
	    rl_load_stats(l, obj, base, &r->st, true) < 0)
		return -1;
	json_t *arr = rl_get_arr(l, obj, base, "statuses");
	if (!arr)
		return -1;
	rl_path_key(rbase, base, "statuses");
	if (rl_alloc_array(l, (void **)&r->statuses, json_array_size(arr), sizeof *r->statuses) < 0)
		return -1;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *so = rl_elem_obj(l, arr, rbase, i, path);
		if (!so || load_status(l, so, path, &r->statuses[i]) < 0)
			return -1;
		r->n_statuses = i + 1;
	}
	return 0;
}

/* Slow request OBJ (at BASE) into EV. */
static int load_slow(loader *l, const json_t *obj, const char *base, report_event *ev)
{
	uint64_t status;
	long fd;
	if (rl_get_u64(l, obj, base, "t_ns", &ev->t_ns) < 0 ||
	    rl_get_long(l, obj, base, "tid", &ev->tid) < 0 ||
	    rl_get_bytes(l, obj, base, "thread", &ev->thread, true, false) < 0 ||
	    rl_get_long(l, obj, base, "fd", &fd) < 0 ||
	    rl_get_u64(l, obj, base, "duration_ns", &ev->latency_ns) < 0 ||
	    rl_get_u64(l, obj, base, "status", &status) < 0 ||
	    rl_get_bytes(l, obj, base, "method", &ev->method, false, false) < 0 ||
	    rl_get_bytes(l, obj, base, "route", &ev->path, false, false) < 0 ||
	    rl_get_bool(l, obj, base, "cut", &ev->path_truncated) < 0)
		return -1;
	/* -1: a TLS connection, known by its SSL pointer */
	ev->has_fd = fd >= 0;
	ev->fd = fd;
	ev->ret = (long long)(status > 999 ? 999 : status);
	return 0;
}

int rl_load_http(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	char path[JPATH_LEN], abase[JPATH_LEN];
	json_t *arr;

	/* every request together: the shape's count, and the rest */
	if (rl_load_stats(l, obj, base, &p->st, true) < 0 ||
	    rl_get_u64(l, obj, base, "threshold_ns", &p->threshold_ns) < 0 ||
	    rl_get_u64(l, obj, base, "requests_dropped", &p->events_dropped) < 0 ||
	    rl_get_u64(l, obj, base, "requests_replaced", &p->http_replaced) < 0 ||
	    rl_get_u64(l, obj, base, "lines_cut", &p->http_cut) < 0 ||
	    rl_get_u64(l, obj, base, "http2_connections", &p->http2_seen) < 0 ||
	    (json_object_get(obj, "tls_requests") &&
	     rl_get_u64(l, obj, base, "tls_requests", &p->http_tls) < 0) ||
	    rl_get_bytes(l, obj, base, "tls_object", &p->tls_object, true, true) < 0 ||
	    rl_get_bytes(l, obj, base, "tls_missing", &p->tls_missing, true, true) < 0 ||
	    !(arr = rl_get_arr(l, obj, base, "routes")))
		return -1;
	rl_path_key(abase, base, "routes");
	if (rl_alloc_array(l, (void **)&p->http_routes, json_array_size(arr),
			   sizeof *p->http_routes) < 0)
		return -1;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *ro = rl_elem_obj(l, arr, abase, i, path);
		p->n_http_routes = i + 1;
		if (!ro || load_route(l, ro, path, &p->http_routes[i]) < 0)
			return -1;
	}
	if (!(arr = rl_get_arr(l, obj, base, "slow_requests")))
		return -1;
	rl_path_key(abase, base, "slow_requests");
	if (rl_alloc_array(l, (void **)&p->events, json_array_size(arr), sizeof *p->events) < 0)
		return -1;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *eo = rl_elem_obj(l, arr, abase, i, path);
		p->n_events = i + 1;
		if (!eo || load_slow(l, eo, path, &p->events[i]) < 0)
			return -1;
	}
	return 0;
}
