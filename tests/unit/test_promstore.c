/* Unit tests for promstore (the cumulative totals of bpfspec serve,
 * docs/serve-metrics.md): intervals add up (buckets, _sum, _count,
 * counters); a series no later interval mentions keeps its totals;
 * threads of one role fold; histogram invariants on every series
 * (cumulative, +Inf == _count, exact _sum, no duplicate series); exact
 * decimal seconds past 2^64 ns; hostile label values (quotes,
 * backslashes, newlines, 0xff, escape sequences) against safe.h's rule;
 * a stable sorted order whatever the order of adds; the caller's own
 * families; every allocation failing in turn leaves the store as it was;
 * and promtool check metrics accepting a realistic store without a word.
 * Run under valgrind (CK_FORK=no) for leaks. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "render/render.h"
#include "render/report_load.h"
#include "serve/promstore.h"
#include "serve/promstore_internal.h"
#include "util/buf.h"
#include "util/hist.h"
#include "util/safe.h"

#include "promstore_fixture.h"

/* A report of one latency probe "timers", main thread only. */
#define ONE_LATENCY(rep, probes, groups, bs, count_, sum_)                                 \
	report_group groups[] = { { .tid = 7, .thread = S("node"),                          \
				    .st = { .count = count_, .sum_ns = sum_, .buckets = bs,  \
					    .n_buckets = sizeof bs / sizeof *bs } } };      \
	report_probe probes[] = { { .name = S("timers"), .kind = PROBE_LATENCY,             \
				    .function = S("uv__run_timers"), .attached = true,       \
				    .groups = groups, .n_groups = 1 } };                      \
	report rep = { .spec_name = S("s"), .pid = 7, .binary = S("/usr/bin/node"),       \
		       .duration_ns = 1000000000, .probes = probes, .n_probes = 1 }

/* The 201 finite buckets, 2^k + j 2^(k-3) ns for k = 10..34, j = 0..7,
 * and 2^35 ns, written here from that rule: a bucket counts C1 below
 * 1152 ns, C2 below 3932160 ns, C3 from there. */
static void put_buckets(buf *b, const char *labels, const char *c1, const char *c2,
			const char *c3)
{
	for (unsigned k = 10; k <= 35; k++)
		for (unsigned j = 0; j < (k < 35 ? 8u : 1u); j++) {
			unsigned long long ns = (1ull << k) + j * (1ull << (k - 3));
			char sec[32];
			int n = snprintf(sec, sizeof sec, "%llu.%09llu", ns / 1000000000ull,
					 ns % 1000000000ull);
			while (n > 0 && sec[n - 1] == '0')
				sec[--n] = '\0';
			buf_printf(b, "bpfspec_latency_seconds_bucket{%s,le=\"%s\"} %s\n", labels, sec,
				   ns < 1152 ? c1 : ns < 3932160 ? c2 : c3);
		}
}

#define L "spec=\"s\",probe=\"timers\",target=\"node\",thread_role=\"main\""
static char *two_expected(void)
{
	buf b = BUF_INIT;
	buf_puts(&b, "# HELP bpfspec_latency_seconds Duration of the calls of a latency probe's "
		     "function (libuv phase specs: of the phase), by target and thread role.\n"
		     "# TYPE bpfspec_latency_seconds histogram\n");
	put_buckets(&b, L, "0", "4", "9");
	buf_puts(&b, "bpfspec_latency_seconds_bucket{" L ",le=\"+Inf\"} 9\n"
		     "bpfspec_latency_seconds_sum{" L "} 0.0188043\n"
		     "bpfspec_latency_seconds_count{" L "} 9\n"
		     "# HELP bpfspec_lost_events_total Events bpftrace reported lost (the other "
		     "figures are then too low).\n"
		     "# TYPE bpfspec_lost_events_total counter\n"
		     "bpfspec_lost_events_total{spec=\"s\",target=\"node\"} 0\n"
		     "# HELP bpfspec_window_seconds_total Time measured: the intervals' windows "
		     "added up.\n"
		     "# TYPE bpfspec_window_seconds_total counter\n"
		     "bpfspec_window_seconds_total{spec=\"s\",target=\"node\"} 2\n");
	return buf_take(&b);
}

/* Two intervals: buckets, _sum and _count add up; the default labeler
 * names the target after the binary and the pid's thread main. */
START_TEST(test_two_intervals_add)
{
	report_bucket a_b[] = { { 3670016, 3801088, 3 }, { 3801088, 3932160, 2 } };
	report_bucket b_b[] = { { 1024, 1088, 4 } };
	promstore *ps = promstore_new();
	{
		ONE_LATENCY(rep, probes, groups, a_b, 5, 18800000);
		ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	}
	{
		ONE_LATENCY(rep, probes, groups, b_b, 4, 4300);
		ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	}
	char *text = fx_render(ps), *want = two_expected();
	assert_same_text(text, want);
	ck_assert_uint_eq(promstore_series(ps), 3);
	free(want);
	free(text);
	promstore_free(ps);
}
END_TEST

/* An http probe: one series of OpenTelemetry's histogram per method,
 * route and status code, the route's bytes (a client's) escaped, counts
 * adding up over two intervals; requests not measured as a counter. */
START_TEST(test_http_routes)
{
	static report_bucket b[] = { { 1000000, 1062500, 2 }, { 2000000, 2125000, 1 } };
	static report_http_status codes[] = {
		{ .code = 200, .st = { .count = 3, .sum_ns = 4100000, .buckets = b, .n_buckets = 2 } },
	};
	static report_http_route routes[] = {
		{ .method = S("GET"), .route = S("/users/:id\"q\"\n"), .statuses = codes, .n_statuses = 1,
		  .st = { .count = 3 } },
	};
	static report_probe probes[] = {
		{ .name = S("requests"), .kind = PROBE_HTTP, .attached = true, .st = { .count = 3 },
		  .http_routes = routes, .n_http_routes = 1, .events_dropped = 2, .http_replaced = 1 },
	};
	report rep = { .spec_name = S("http-server"), .pid = 100, .binary = S("/usr/bin/node"),
		       .duration_ns = 1000000000, .probes = probes, .n_probes = 1 };
	promstore *ps = promstore_new();
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	char *text = fx_render(ps);
	assert_well_formed(text);
	ck_assert_line(text, "http_server_request_duration_seconds_count{spec=\"http-server\","
			     "probe=\"requests\",target=\"node\",http_request_method=\"GET\","
			     "http_route=\"/users/:id\\\"q\\\"\\\\x0a\",http_response_status_code="
			     "\"200\"} 6");
	ck_assert_line(text, "http_server_request_duration_seconds_sum{spec=\"http-server\","
			     "probe=\"requests\",target=\"node\",http_request_method=\"GET\","
			     "http_route=\"/users/:id\\\"q\\\"\\\\x0a\",http_response_status_code="
			     "\"200\"} 0.0082");
	ck_assert_line(text, "bpfspec_http_requests_dropped_total{spec=\"http-server\","
			     "probe=\"requests\",target=\"node\"} 6");
	free(text);
	promstore_free(ps);
}
END_TEST

/* Routes a client chose cannot grow the store without end: past 1000
 * series of the histogram per target, a new route's requests go to
 * method and route "other" (with their status); a route that has its
 * series keeps adding to it. */
START_TEST(test_http_routes_bounded)
{
	enum { N = 1001 };
	static report_http_status code = { .code = 200, .st = { .count = 1 } };
	report_http_route *routes = calloc(N, sizeof *routes);
	char (*paths)[16] = calloc(N, sizeof *paths);
	ck_assert_ptr_nonnull(routes);
	ck_assert_ptr_nonnull(paths);
	for (size_t i = 0; i < N; i++) {
		snprintf(paths[i], sizeof paths[i], "/p%zu", i);
		routes[i] = (report_http_route){ .method = S("GET"), .route = paths[i],
						 .statuses = &code, .n_statuses = 1, .st = { .count = 1 } };
	}
	report_probe probe = { .name = S("requests"), .kind = PROBE_HTTP, .attached = true,
			       .http_routes = routes, .n_http_routes = N - 1 };
	report rep = { .spec_name = S("http-server"), .pid = 100, .binary = S("/usr/bin/node"),
		       .duration_ns = 1000000000, .probes = &probe, .n_probes = 1 };
	promstore *ps = promstore_new();
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	size_t full = promstore_series(ps);
	/* The next interval: route 0 again and one new route. */
	probe.http_routes = &routes[N - 2];
	probe.n_http_routes = 2;
	routes[N - 2].route = paths[0];
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	ck_assert_uint_eq(promstore_series(ps), full + 1);
	char *text = fx_render(ps);
	ck_assert_line(text, "http_server_request_duration_seconds_count{spec=\"http-server\","
			     "probe=\"requests\",target=\"node\",http_request_method=\"GET\","
			     "http_route=\"/p0\",http_response_status_code=\"200\"} 2");
	ck_assert_line(text, "http_server_request_duration_seconds_count{spec=\"http-server\","
			     "probe=\"requests\",target=\"node\",http_request_method=\"other\","
			     "http_route=\"other\",http_response_status_code=\"200\"} 1");
	ck_assert_ptr_null(strstr(text, "/p1000\""));
	free(text);
	promstore_free(ps);
	free(routes);
	free(paths);
}
END_TEST

static fx_labeler k8s = { .target = "api", .k8s_namespace = "shop", .pod = "api-7d9f",
			  .container = "node", .skip_tid = -1 };

START_TEST(test_rich_twice)
{
	promstore *ps = promstore_new();
	fx_labeler c = k8s;
	promstore_labeler lab = { fx_labels, &c };

	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), 0);
	ck_assert_int_eq(c.calls, 5);	/* tids 0, 100, 105, 101, 102: once each */
	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), 0);
	char *text = fx_render(ps);
	assert_well_formed(text);
#define T "target=\"api\",k8s_namespace_name=\"shop\",k8s_pod_name=\"api-7d9f\",k8s_container_name=\"node\""
	/* Pool threads 101 and 102 fold: (4000000 + 4100000) x 2 ns. */
	ck_assert_line(text, "bpfspec_syscall_seconds_total{spec=\"loop-why\",probe=\"files\"," T
			     ",thread_role=\"pool\",syscall=\"openat\"} 0.0162");
	ck_assert_line(text, "bpfspec_syscall_calls_total{spec=\"loop-why\",probe=\"files\"," T
			     ",thread_role=\"pool\",syscall=\"openat\"} 8");
	ck_assert_line(text, "bpfspec_probe_hits_total{spec=\"loop-why\",probe=\"gc\"," T
			     ",thread_role=\"pool\"} 14");
	ck_assert_line(text, "bpfspec_probe_hits_total{spec=\"loop-why\",probe=\"gc\"," T
			     ",thread_role=\"main\"} 14");
	/* The worker's loop: a bucket past 2^35 ns counts in +Inf only. */
	ck_assert_line(text, "bpfspec_latency_seconds_bucket{spec=\"loop-why\",probe=\"timers\"," T
			     ",thread_role=\"worker\",le=\"34.359738368\"} 10");
	ck_assert_line(text, "bpfspec_latency_seconds_bucket{spec=\"loop-why\",probe=\"timers\"," T
			     ",thread_role=\"worker\",le=\"+Inf\"} 12");
	ck_assert_line(text, "bpfspec_latency_seconds_sum{spec=\"loop-why\",probe=\"timers\"," T
			     ",thread_role=\"worker\"} 137.438962");
	ck_assert_line(text, "bpfspec_syscall_latency_seconds_count{spec=\"loop-why\",probe=\"files\","
			     T ",syscall=\"openat\"} 10");
	ck_assert_line(text, "bpfspec_syscall_errors_total{spec=\"loop-why\",probe=\"files\"," T
			     ",syscall=\"openat\",errno=\"EACCES\"} 2");
	ck_assert_line(text, "bpfspec_phase_cause_seconds_total{spec=\"loop-why\",probe=\"poll\"," T
			     ",thread_role=\"main\",cause=\"blocked_syscall\"} 0.0058");
	/* The four causes add up to the phase's time: 2 x 4200000 ns. */
	ck_assert_line(text, "bpfspec_latency_seconds_sum{spec=\"loop-why\",probe=\"poll\"," T
			     ",thread_role=\"main\"} 0.0084");
	ck_assert_line(text, "bpfspec_phase_cause_seconds_total{spec=\"loop-why\",probe=\"poll\"," T
			     ",thread_role=\"main\",cause=\"on_cpu\"} 0.002");
	ck_assert_line(text, "bpfspec_phase_cause_seconds_total{spec=\"loop-why\",probe=\"poll\"," T
			     ",thread_role=\"main\",cause=\"waiting_for_cpu\"} 0.0004");
	ck_assert_line(text, "bpfspec_phase_cause_seconds_total{spec=\"loop-why\",probe=\"poll\"," T
			     ",thread_role=\"main\",cause=\"off_cpu_other\"} 0.0002");
	ck_assert_line(text, "bpfspec_phase_syscall_blocked_seconds_total{spec=\"loop-why\","
			     "probe=\"poll\"," T ",thread_role=\"main\",syscall=\"epoll_wait\"} 0.0058");
	ck_assert_lacks(text, "syscall=\"read\"");	/* never slept in it */
	ck_assert_line(text, "nodejs_eventloop_time_seconds_total{spec=\"loop-why\",probe=\"loop\"," T
			     ",thread_role=\"main\",nodejs_eventloop_state=\"active\"} 3");
	ck_assert_line(text, "nodejs_eventloop_time_seconds_total{spec=\"loop-why\",probe=\"loop\"," T
			     ",thread_role=\"worker\",nodejs_eventloop_state=\"idle\"} 3.6");
	ck_assert_line(text, "bpfspec_events_total{spec=\"loop-why\",probe=\"slow\"," T "} 8");
	ck_assert_line(text, "bpfspec_loop_blockers_total{spec=\"loop-why\"," T "} 4");
	ck_assert_line(text, "bpfspec_window_seconds_total{spec=\"loop-why\"," T "} 4");
	ck_assert_line(text, "bpfspec_lost_events_total{spec=\"loop-why\"," T "} 2");
	ck_assert_lacks(text, "probe=\"gone\"");
	free(text);
	promstore_free(ps);
}
END_TEST

/* A worker that exits: the next interval has no group for it, and its
 * series stay with their totals. */
START_TEST(test_series_stays)
{
	promstore *ps = promstore_new();
	report later = fx_rich;
	report_probe probes[sizeof fx_probes / sizeof *fx_probes];

	memcpy(probes, fx_probes, sizeof probes);
	probes[0].n_groups = 1;	/* timers: main only */
	probes[5].n_groups = 1;	/* loop: main only */
	later.probes = probes;
	ck_assert_int_eq(promstore_add(ps, &fx_rich, NULL), 0);
	size_t n = promstore_series(ps);
	ck_assert_int_eq(promstore_add(ps, &later, NULL), 0);
	ck_assert_uint_eq(promstore_series(ps), n);
	char *text = fx_render(ps);
	ck_assert_line(text, "bpfspec_latency_seconds_count{spec=\"loop-why\",probe=\"timers\","
			     "target=\"node\",thread_role=\"worker\"} 6");
	ck_assert_line(text, "bpfspec_latency_seconds_count{spec=\"loop-why\",probe=\"timers\","
			     "target=\"node\",thread_role=\"main\"} 10");
	ck_assert_line(text, "nodejs_eventloop_time_seconds_total{spec=\"loop-why\",probe=\"loop\","
			     "target=\"node\",thread_role=\"worker\",nodejs_eventloop_state=\"active\"} 0.2");
	assert_well_formed(text);
	free(text);
	promstore_free(ps);
}
END_TEST

/* Every log-linear bucket up to past 2^40 ns: the count at le = 2^k ns is
 * the number of buckets below 2^k (none straddles one); a bucket that
 * does straddle (a report from a file) counts at the next bound. */
START_TEST(test_histogram_folding)
{
	static report_bucket bs[2000];
	size_t nb = 0;
	for (uint64_t i = 0;; i++) {
		uint64_t lo, hi;
		hist_bucket_bounds(i, &lo, &hi);
		if (lo > ((uint64_t)1 << 40))
			break;
		bs[nb++] = (report_bucket){ lo, hi, 1 };
	}
	report_group g[] = { { .tid = 7, .st = { .count = nb, .sum_ns = 1, .buckets = bs,
						 .n_buckets = nb } },
			     { .tid = 8, .st = { .count = 1, .sum_ns = 999999999,
						 .buckets = (report_bucket[]){ { 1000, 1100, 1 } },
						 .n_buckets = 1 } } };
	report_probe p[] = { { .name = S("all"), .kind = PROBE_LATENCY, .function = S("f"),
			       .attached = true, .groups = g, .n_groups = 2 } };
	report rep = { .spec_name = S("s"), .pid = 7, .binary = S("b"), .probes = p, .n_probes = 1 };
	promstore *ps = promstore_new();
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	char *text = fx_render(ps);
	assert_well_formed(text);
	char line[256];
	for (int k = PROMSTORE_LE_FIRST; k <= PROMSTORE_LE_LAST; k++) {
		size_t below = 0;
		for (size_t b = 0; b < nb; b++)
			below += bs[b].lo_ns < ((uint64_t)1 << k);
		char le[32];
		uint64_t ns = (uint64_t)1 << k;
		snprintf(le, sizeof le, "%llu.%09llu", (unsigned long long)(ns / 1000000000),
			 (unsigned long long)(ns % 1000000000));
		while (le[strlen(le) - 1] == '0')
			le[strlen(le) - 1] = '\0';
		snprintf(line, sizeof line, "bpfspec_latency_seconds_bucket{spec=\"s\",probe=\"all\","
			 "target=\"b\",thread_role=\"main\",le=\"%s\"} %zu", le, below);
		ck_assert_line(text, line);
	}
	ck_assert_line(text, "bpfspec_latency_seconds_bucket{spec=\"s\",probe=\"all\",target=\"b\","
			     "thread_role=\"other\",le=\"0.000001024\"} 0");
	ck_assert_line(text, "bpfspec_latency_seconds_bucket{spec=\"s\",probe=\"all\",target=\"b\","
			     "thread_role=\"other\",le=\"0.000002048\"} 1");
	/* Twice: 2 x (2^64 - 1) ns, exact; a count that would wrap stays. */
	report_group big[] = { { .tid = 7, .st = { .count = UINT64_MAX, .sum_ns = UINT64_MAX } } };
	p[0].groups = big;
	p[0].n_groups = 1;
	p[0].name = S("big");
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	free(text);
	text = fx_render(ps);
	ck_assert_line(text, "bpfspec_latency_seconds_sum{spec=\"s\",probe=\"big\",target=\"b\","
			     "thread_role=\"main\"} 36893488147.41910323");
	ck_assert_line(text, "bpfspec_latency_seconds_count{spec=\"s\",probe=\"big\",target=\"b\","
			     "thread_role=\"main\"} 18446744073709551615");
	assert_well_formed(text);
	free(text);
	promstore_free(ps);
}
END_TEST

/* Every le of -o prom (one per power of two) is one of the store's,
 * byte for byte; the store has eight per power of two. */
START_TEST(test_layout_holds_render_prom)
{
	report_bucket bs[] = { { 1024, 1088, 1 } };
	ONE_LATENCY(rep, probes, groups, bs, 1, 1000);
	char *a = NULL, *b, *p;
	size_t len;
	FILE *f = open_memstream(&a, &len);
	ck_assert_int_eq(render_prom(f, &rep), 0);
	fclose(f);
	promstore *ps = promstore_new();
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	b = fx_render(ps);
	int n = 0;
	for (p = a; (p = strstr(p, ",le=\"")); p++, n++) {
		char le[64];
		size_t w = strcspn(p, "}") + 1;
		ck_assert_uint_lt(w, sizeof le);
		memcpy(le, p, w);
		le[w] = '\0';
		ck_assert_msg(strstr(b, le), "%s is not among the store's bounds", le);
	}
	ck_assert_int_eq(n, 27);
	for (n = 0, p = b; (p = strstr(p, ",le=\"")); p++)
		n++;
	ck_assert_int_eq(n, PROMSTORE_LE_N + 1);
	ck_assert_uint_eq(promstore_le_ns(0), 1024);
	ck_assert_uint_eq(promstore_le_ns(1), 1152);
	ck_assert_uint_eq(promstore_le_ns(8), 2048);
	ck_assert_uint_eq(promstore_le_ns(PROMSTORE_LE_N - 1), 1ull << 35);
	free(a);
	free(b);
	promstore_free(ps);
}
END_TEST

/* Label values from the target: text form (safe.h), then '\\' and '"'
 * escaped, exactly as -o prom writes them. */
START_TEST(test_hostile_labels)
{
	const char *tgt = "we\"ird\\\n\xff", *pod = "\xc3\xa9\x1b[31m\xe2\x80\xae";
	fx_labeler c = { .target = tgt, .pod = pod, .skip_tid = -1 };
	promstore_labeler lab = { fx_labels, &c };
	report rep = fx_rich;
	rep.spec_name = S("s\"\\\xff");
	promstore *ps = promstore_new();
	ck_assert_int_eq(promstore_add(ps, &rep, &lab), 0);
	char *text = fx_render(ps);
	ck_assert_line(text, "bpfspec_window_seconds_total{spec=\"s\\\"\\\\\\\\\\\\xff\","
			     "target=\"we\\\"ird\\\\\\\\\\\\x0a\\\\xff\","
			     "k8s_pod_name=\"\xc3\xa9\\\\x1b[31m\\\\u202e\"} 2");
	/* The same as safe_fputs_prom_label, for bytes 1..255 in turn. */
	for (int ch = 1; ch < 256; ch++) {
		char s[4] = { 'a', (char)ch, 'z', 0 }, *want = NULL, *got;
		size_t len;
		FILE *f = open_memstream(&want, &len);
		fputs("x=\"", f);
		safe_fputs_prom_label(s, f);
		fputc('"', f);
		fclose(f);
		promstore_label l = { "x", s };
		promstore *g = promstore_new();
		ck_assert_int_eq(promstore_gauge_set(g, "g", "h", &l, 1, 1), 0);
		got = fx_render(g);
		ck_assert_ptr_nonnull(strstr(got, want));
		assert_well_formed(got);
		free(got);
		free(want);
		promstore_free(g);
	}
	assert_well_formed(text);
	free(text);
	promstore_free(ps);
}
END_TEST

/* The output depends on the totals only: adds in another order, probes
 * in another order, give the same bytes. */
START_TEST(test_stable_order)
{
	report other = fx_rich, rev = fx_rich;
	report_probe probes[sizeof fx_probes / sizeof *fx_probes];
	size_t n = sizeof probes / sizeof *probes;
	for (size_t i = 0; i < n; i++)
		probes[i] = fx_probes[n - 1 - i];
	rev.probes = probes;
	other.spec_name = S("libuv-phases");
	promstore *a = promstore_new(), *b = promstore_new();
	ck_assert_int_eq(promstore_add(a, &fx_rich, NULL), 0);
	ck_assert_int_eq(promstore_add(a, &other, NULL), 0);
	ck_assert_int_eq(promstore_add(b, &other, NULL), 0);
	ck_assert_int_eq(promstore_add(b, &rev, NULL), 0);
	char *ta = fx_render(a), *tb = fx_render(b);
	assert_same_text(ta, tb);
	assert_well_formed(ta);
	free(ta);
	free(tb);
	promstore_free(a);
	promstore_free(b);
}
END_TEST

/* Every allocation of an add failing in turn: -1 ENOMEM and the store
 * exactly as before; then the add succeeds and matches a store that
 * never failed. */
START_TEST(test_out_of_memory)
{
	promstore *ps = promstore_new(), *ref = promstore_new();
	fx_labeler c = k8s;
	promstore_labeler lab = { fx_labels, &c };
	report other = fx_rich;
	other.spec_name = S("other");

	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), 0);
	ck_assert_int_eq(promstore_add(ref, &fx_rich, &lab), 0);
	ck_assert_int_eq(promstore_add(ref, &other, &lab), 0);
	ck_assert_int_eq(promstore_add(ref, &fx_rich, &lab), 0);
	char *before = fx_render(ps);
	long failures = 0;
	for (long n = 1;; n++) {
		promstore_fail_alloc(ps, n);
		errno = 0;
		int rc = promstore_add(ps, &other, &lab);
		promstore_fail_alloc(ps, 0);
		if (rc == 0)
			break;
		failures++;
		ck_assert_int_eq(errno, ENOMEM);
		char *now = fx_render(ps);
		assert_same_text(now, before);
		free(now);
	}
	ck_assert_int_gt(failures, 20);
	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), 0);
	char *got = fx_render(ps), *want = fx_render(ref);
	assert_same_text(got, want);
	free(got);
	free(want);
	free(before);
	promstore_free(ps);
	promstore_free(ref);
}
END_TEST

/* What the labeler and the report can refuse. */
START_TEST(test_refusals)
{
	promstore *ps = promstore_new();
	fx_labeler c = k8s;
	promstore_labeler lab = { fx_labels, &c };
	report cum = fx_rich;

	cum.cumulative = true;
	errno = 0;
	ck_assert_int_eq(promstore_add(ps, &cum, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	c.fail = 1;
	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), -1);
	ck_assert_int_eq(errno, ECANCELED);
	c.fail = 0;
	c.bad_role = 1;
	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_uint_eq(promstore_series(ps), 0);
	c.bad_role = 0;
	c.skip_tid = 101;	/* one pool thread left out */
	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), 0);
	c.skip_tid = 0;	/* the target as a whole left out */
	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), 0);
	char *text = fx_render(ps);
	ck_assert_line(text, "bpfspec_syscall_calls_total{spec=\"loop-why\",probe=\"files\"," T
			     ",thread_role=\"pool\",syscall=\"openat\"} 6");
	ck_assert_line(text, "bpfspec_window_seconds_total{spec=\"loop-why\"," T "} 2");
	free(text);
	promstore_free(ps);
}
END_TEST

/* nodejs_eventloop_utilization_ratio: each interval's busy share, the
 * threads of one role pooled (busy over busy + idle, not a mean of
 * ratios); an interval replaces the last one's value; a role whose
 * threads measured no time keeps its value. */
START_TEST(test_utilization_ratio)
{
	report_group loop1[] = {
		{ .tid = 100, .thread = S("node"), .idle_ns = 500000000, .busy_ns = 1500000000 },
		{ .tid = 105, .thread = S("node"), .idle_ns = 1800000000, .busy_ns = 200000000 },
		{ .tid = 200, .thread = S("WorkerThread"), .idle_ns = 1000000000, .busy_ns = 1000000000 },
	};
	report_group loop2[] = {
		{ .tid = 100, .thread = S("node"), .idle_ns = 1500000000, .busy_ns = 500000000 },
		{ .tid = 105, .thread = S("node") },
	};
	report_probe probe = { .name = S("loop"), .kind = PROBE_UTILIZATION, .attached = true,
			       .groups = loop1, .n_groups = 3 };
	report rep = { .spec_name = S("u"), .pid = 100, .binary = S("/usr/bin/node"),
		       .duration_ns = 2000000000, .probes = &probe, .n_probes = 1 };
	promstore *ps = promstore_new();

	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	char *text = fx_render(ps);
	assert_well_formed(text);
	ck_assert_contains(text, "# TYPE nodejs_eventloop_utilization_ratio gauge\n");
	ck_assert_line(text, "nodejs_eventloop_utilization_ratio{spec=\"u\",probe=\"loop\","
			     "target=\"node\",thread_role=\"main\"} 0.75");
	ck_assert_line(text, "nodejs_eventloop_utilization_ratio{spec=\"u\",probe=\"loop\","
			     "target=\"node\",thread_role=\"worker\"} 0.3");
	free(text);
	probe.groups = loop2;
	probe.n_groups = 2;
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	text = fx_render(ps);
	ck_assert_line(text, "nodejs_eventloop_utilization_ratio{spec=\"u\",probe=\"loop\","
			     "target=\"node\",thread_role=\"main\"} 0.25");
	ck_assert_line(text, "nodejs_eventloop_utilization_ratio{spec=\"u\",probe=\"loop\","
			     "target=\"node\",thread_role=\"worker\"} 0.3");
	free(text);
	promstore_free(ps);
}
END_TEST

/* bpfspec_eventloop_stall_seconds: each role's stall histogram, added
 * up over intervals; none for a report read back from before stalls
 * were measured (has_stalls false: unknown, not none). */
START_TEST(test_stall_histogram)
{
	report_bucket main_b[] = { { 39845888, 40894464, 3 } };	/* 40 ms */
	report_bucket worker_b[] = { { 14680064, 15204352, 2 } };	/* 15 ms */
	report_group loop[] = {
		{ .tid = 100, .thread = S("node"), .idle_ns = 1, .busy_ns = 1,
		  .stalls = { .count = 3, .sum_ns = 120000000, .buckets = main_b, .n_buckets = 1 } },
		{ .tid = 200, .thread = S("WorkerThread"), .idle_ns = 1, .busy_ns = 1,
		  .stalls = { .count = 2, .sum_ns = 30000000, .buckets = worker_b, .n_buckets = 1 } },
	};
	report_probe probe = { .name = S("loop"), .kind = PROBE_UTILIZATION, .attached = true,
			       .groups = loop, .n_groups = 2, .has_stalls = true };
	report rep = { .spec_name = S("u"), .pid = 100, .binary = S("/usr/bin/node"),
		       .duration_ns = 2000000000, .probes = &probe, .n_probes = 1 };
	promstore *ps = promstore_new();

	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	probe.has_stalls = false;	/* adds nothing to the stalls */
	ck_assert_int_eq(promstore_add(ps, &rep, NULL), 0);
	char *text = fx_render(ps);
	assert_well_formed(text);
#define U "spec=\"u\",probe=\"loop\",target=\"node\""
	ck_assert_contains(text, "# TYPE bpfspec_eventloop_stall_seconds histogram\n");
	/* [39845888, 40894464) counts at the first bound at or above its end. */
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_bucket{" U ",thread_role=\"main\","
			     "le=\"0.037748736\"} 0");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_bucket{" U ",thread_role=\"main\","
			     "le=\"0.04194304\"} 6");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_count{" U ",thread_role=\"main\"} 6");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_sum{" U ",thread_role=\"main\"} 0.24");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_bucket{" U ",thread_role=\"worker\","
			     "le=\"0.01572864\"} 4");
	ck_assert_line(text, "bpfspec_eventloop_stall_seconds_count{" U ",thread_role=\"worker\"} 4");
#undef U
	free(text);
	promstore_free(ps);
}
END_TEST

START_TEST(test_roles)
{
	ck_assert_int_eq(promstore_node_role(&fx_rich, 100, "node"), PROMSTORE_ROLE_MAIN);
	ck_assert_int_eq(promstore_node_role(&fx_rich, 105, "node"), PROMSTORE_ROLE_WORKER);
	ck_assert_int_eq(promstore_node_role(&fx_rich, 101, "libuv-worker"), PROMSTORE_ROLE_POOL);
	ck_assert_int_eq(promstore_node_role(&fx_rich, 200, "WorkerThread"), PROMSTORE_ROLE_WORKER);
	ck_assert_int_eq(promstore_node_role(&fx_rich, 101, "node"), PROMSTORE_ROLE_OTHER);
	ck_assert_int_eq(promstore_node_role(&fx_rich, 300, NULL), PROMSTORE_ROLE_OTHER);
	/* Several traced processes (-p 100 -p 105): each one's main thread. */
	long pids[] = { 100, 105 };
	report two = fx_rich;
	two.pids = pids;
	two.n_pids = 2;
	ck_assert_int_eq(promstore_node_role(&two, 105, "node"), PROMSTORE_ROLE_MAIN);
	ck_assert_int_eq(promstore_node_role(&two, 100, "node"), PROMSTORE_ROLE_MAIN);
	ck_assert_int_eq(promstore_node_role(&two, 101, "libuv-worker"), PROMSTORE_ROLE_POOL);
	ck_assert_str_eq(promstore_role_name(PROMSTORE_ROLE_POOL), "pool");
	ck_assert_ptr_null(promstore_role_name((promstore_role)4));
}
END_TEST

/* serve's own families through the same renderer. */
START_TEST(test_caller_families)
{
	promstore *ps = promstore_new();
	promstore_label ab[] = { { "spec", "a" }, { "pod", "" } }, ba[] = { { "spec", "a" } };
	promstore_label two[] = { { "z", "1" }, { "a", "2" } }, dup[] = { { "a", "1" }, { "a", "2" } };
	promstore_label bad[] = { { "__x", "1" } }, dash[] = { { "a-b", "1" } };
	static promstore_label many[17];

	ck_assert_int_eq(promstore_gauge_set(ps, "bpfspec_up", "1: bpftrace runs.", ab, 2, 0), 0);
	ck_assert_int_eq(promstore_gauge_set(ps, "bpfspec_up", NULL, ba, 1, 1), 0);
	ck_assert_int_eq(promstore_gauge_set(ps, "bpfspec_targets", "a\\b\nc", NULL, 0, 3), 0);
	ck_assert_int_eq(promstore_gauge_set(ps, "g", "x", two, 2, 0.1), 0);
	ck_assert_int_eq(promstore_gauge_set(ps, "g", "x", ba, 1, NAN), 0);
	ck_assert_int_eq(promstore_gauge_set(ps, "g", "x", NULL, 0, -INFINITY), 0);
	ck_assert_int_eq(promstore_gauge_set(ps, "g", "x", dash, 0, 1e-9), 0);	/* n 0: no labels */
	ck_assert_int_eq(promstore_counter_add(ps, "bpfspec_restarts_total", "r", ba, 1, 2), 0);
	ck_assert_int_eq(promstore_counter_add(ps, "bpfspec_restarts_total", "r", ba, 1, 3), 0);
	const char *bad_names[] = { "bad-name", "9x", "", "bpfspec_latency_seconds",
				    "bpfspec_latency_seconds_bucket", "bpfspec_syscall_errors_total",
				    "bpfspec_restarts_total", "bpfspec_window_seconds_total",
				    "bpfspec_loop_blockers_total", "nodejs_eventloop_time_seconds_total" };
	for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
		errno = 0;
		ck_assert_int_eq(promstore_gauge_set(ps, bad_names[i], "h", NULL, 0, 1), -1);
		ck_assert_int_eq(errno, EINVAL);
	}
	ck_assert_int_eq(promstore_gauge_set(ps, "h", "h", dup, 2, 1), -1);
	ck_assert_int_eq(promstore_gauge_set(ps, "h", "h", bad, 1, 1), -1);
	ck_assert_int_eq(promstore_gauge_set(ps, "h", "h", dash, 1, 1), -1);
	for (size_t i = 0; i < 17; i++)
		many[i] = (promstore_label){ "a", "1" };
	ck_assert_int_eq(promstore_gauge_set(ps, "h", "h", many, 17, 1), -1);
	ck_assert_int_eq(promstore_gauge_delete(ps, "bpfspec_restarts_total", ba, 1), -1);
	ck_assert_int_eq(promstore_gauge_delete(ps, "nothing", ba, 1), 0);
	ck_assert_uint_eq(promstore_series(ps), 6);
	char *text = fx_render(ps);
	ck_assert_str_eq(text, "# HELP bpfspec_restarts_total r\n"
			       "# TYPE bpfspec_restarts_total counter\n"
			       "bpfspec_restarts_total{spec=\"a\"} 5\n"
			       "# HELP bpfspec_targets a\\\\b\\nc\n"
			       "# TYPE bpfspec_targets gauge\n"
			       "bpfspec_targets 3\n"
			       "# HELP bpfspec_up 1: bpftrace runs.\n"
			       "# TYPE bpfspec_up gauge\n"
			       "bpfspec_up{spec=\"a\"} 1\n"
			       "# HELP g x\n"
			       "# TYPE g gauge\n"
			       "g 1e-09\n"
			       "g{a=\"2\",z=\"1\"} 0.1\n"
			       "g{spec=\"a\"} NaN\n");
	free(text);
	ck_assert_int_eq(promstore_gauge_delete(ps, "bpfspec_targets", NULL, 0), 0);
	ck_assert_int_eq(promstore_gauge_set(ps, "g", "x", NULL, 0, INFINITY), 0);
	text = fx_render(ps);
	ck_assert_lacks(text, "bpfspec_targets");
	ck_assert_line(text, "g +Inf");
	free(text);
	for (long n = 1;; n++) {	/* out of memory: nothing changes */
		ck_assert_int_lt(n, 50);
		promstore_fail_alloc(ps, n);
		int rc = promstore_gauge_set(ps, "new_family", "h", two, 2, 1);
		promstore_fail_alloc(ps, 0);
		ck_assert_uint_eq(promstore_series(ps), rc == 0 ? 6 : 5);
		if (rc == 0)
			break;
		ck_assert_int_eq(errno, ENOMEM);
		ck_assert_ptr_null(ps_family_find(ps, "new_family"));
	}
	promstore_free(ps);
}
END_TEST

START_TEST(test_write_error)
{
	promstore *ps = promstore_new();
	FILE *f = fopen("/dev/full", "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(promstore_add(ps, &fx_rich, NULL), 0);
	ck_assert_int_eq(promstore_render(ps, f), -1);
	fclose(f);
	promstore_free(NULL);
	promstore_free(ps);
}
END_TEST

/* The truth: Prometheus' own promtool parses and lints a realistic store
 * (every kind, k8s labels, a hostile target, serve's own families) and
 * says nothing at all. */
START_TEST(test_promtool_accepts)
{
	promstore *ps = promstore_new();
	fx_labeler c = k8s, h = { .target = "x\"\\\n\xff\xc0", .pid = 4242, .skip_tid = -1 };
	promstore_labeler lab = { fx_labels, &c }, hostile = { fx_labels, &h };
	promstore_label sp[] = { { "spec", "loop-why" } }, ver[] = { { "version", "0.1" } };
	char *output = NULL;

	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), 0);
	ck_assert_int_eq(promstore_add(ps, &fx_rich, &hostile), 0);
	ck_assert_int_eq(promstore_add(ps, &fx_rich, &lab), 0);
	ck_assert_int_eq(promstore_gauge_set(ps, "bpfspec_up", "1 when bpftrace runs.", sp, 1, 1), 0);
	ck_assert_int_eq(promstore_gauge_set(ps, "bpfspec_build_info", "Always 1.", ver, 1, 1), 0);
	char *text = fx_render(ps);
	assert_well_formed(text);
	int rc = fx_promtool(text, &output);
	ck_assert_msg(rc != 127, "promtool is missing (package prometheus): run scripts/setup.sh");
	ck_assert_msg(rc == 0 && !*output, "promtool check metrics: exit %d:\n%s", rc, output);
	free(output);
	free(text);
	promstore_free(ps);
}
END_TEST

/* A span probe's string labels (tests/fixtures/reports/span-labels.json:
 * work types the traced process named, with an escape sequence, quotes,
 * a backslash, a newline and invalid UTF-8) are label values in their
 * text form, escaped for the exposition format: no raw byte of them
 * reaches the page, and promtool takes it. */
START_TEST(test_span_string_labels)
{
	const char *top = getenv("TOP");
	char path[4096], *output = NULL;
	snprintf(path, sizeof path, "%s/tests/fixtures/reports/span-labels.json", top ? top : ".");
	capture_start();
	report *rep = report_load_json(path);
	free(capture_end());
	ck_assert_msg(rep != NULL, "%s does not load (run from the repo top or set TOP)", path);
	fx_labeler c = k8s;
	promstore_labeler lab = { fx_labels, &c };
	promstore *ps = promstore_new();
	ck_assert_int_eq(promstore_add(ps, rep, &lab), 0);
	char *text = fx_render(ps);
	ck_assert_contains(text, "stage=\"handed\",label=\"crypto\\\\x1b[31m\\\\\\\\red\\\\x0a\"} 5\n");
	ck_assert_contains(text, "stage=\"handed\",label=\"dns,lookup \\\"q\\\"\"} 5\n");
	ck_assert_contains(text, "stage=\"handed\",label=\"\\\\xff\\\\xfezlib\"} 5\n");
	ck_assert_contains(text, "stage=\"total\",label=\"other\"} 21\n");
	ck_assert(!strchr(text, '\x1b') && !strchr(text, '\xff'));
	assert_well_formed(text);
	int rc = fx_promtool(text, &output);
	ck_assert_msg(rc != 127, "promtool is missing (package prometheus): run scripts/setup.sh");
	ck_assert_msg(rc == 0 && !*output, "promtool check metrics: exit %d:\n%s", rc, output);
	free(output);
	free(text);
	promstore_free(ps);
	report_free(rep);
}
END_TEST

/* A span probe's rows (tests/fixtures/reports/threadpool.json) as
 * histograms by stage and label, added over two intervals; evictions a
 * counter, open spans a gauge; promtool takes the page. */
START_TEST(test_span_rows)
{
	const char *top = getenv("TOP");
	char path[4096], *output = NULL;
	snprintf(path, sizeof path, "%s/tests/fixtures/reports/threadpool.json", top ? top : ".");
	capture_start();
	report *rep = report_load_json(path);
	free(capture_end());
	ck_assert_msg(rep != NULL, "%s does not load (run from the repo top or set TOP)", path);
	fx_labeler c = k8s;
	promstore_labeler lab = { fx_labels, &c };
	promstore *ps = promstore_new();
	ck_assert_int_eq(promstore_add(ps, rep, &lab), 0);
	ck_assert_int_eq(promstore_add(ps, rep, &lab), 0);
	char *text = fx_render(ps);
	ck_assert_contains(text, "bpfspec_span_seconds_count{spec=\"threadpool\",probe=\"work\",");
	ck_assert_contains(text, "stage=\"total\",label=\"uv__queue_work\"} 64\n");
	ck_assert_contains(text, "stage=\"queued\",label=\"uv__fs_work\"} 52\n");
	ck_assert_contains(text, "# TYPE bpfspec_span_evictions_total counter\n");
	ck_assert_contains(text, "# TYPE bpfspec_spans_open gauge\n");
	assert_well_formed(text);
	int rc = fx_promtool(text, &output);
	ck_assert_msg(rc != 127, "promtool is missing (package prometheus): run scripts/setup.sh");
	ck_assert_msg(rc == 0 && !*output, "promtool check metrics: exit %d:\n%s", rc, output);
	free(output);
	free(text);
	promstore_free(ps);
	report_free(rep);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("promstore");
	TCase *totals = tcase_create("totals"), *text = tcase_create("text"),
	      *errors = tcase_create("errors");

	tcase_add_test(totals, test_two_intervals_add);
	tcase_add_test(totals, test_rich_twice);
	tcase_add_test(totals, test_http_routes);
	tcase_add_test(totals, test_http_routes_bounded);
	tcase_add_test(totals, test_series_stays);
	tcase_add_test(totals, test_histogram_folding);
	tcase_add_test(totals, test_layout_holds_render_prom);
	tcase_add_test(totals, test_stable_order);
	tcase_add_test(totals, test_roles);
	tcase_add_test(totals, test_utilization_ratio);
	tcase_add_test(totals, test_stall_histogram);
	tcase_add_test(text, test_span_rows);	/* starts promtool too */
	tcase_add_test(text, test_span_string_labels);
	tcase_add_test(text, test_hostile_labels);
	tcase_add_test(text, test_caller_families);
	tcase_add_test(text, test_promtool_accepts);	/* starts promtool (Go): slow on a busy machine */
	tcase_add_test(errors, test_out_of_memory);
	tcase_add_test(errors, test_refusals);
	tcase_add_test(errors, test_write_error);
	TCase *all[] = { totals, text, errors };
	for (size_t i = 0; i < 3; i++) {
		tcase_set_timeout(all[i], 60);
		suite_add_tcase(s, all[i]);
	}
	return run_suite(s);
}
