/* Unit tests for serve_http.c and serve_http_listen.c: listen addresses,
 * what each request gets, bind errors.  Requests go over real sockets to
 * a server on 127.0.0.1 (any free port).  The web config, basic auth and
 * TLS: test_serve_http_web.c. */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "helpers.h"
#include "serve/serve_http.h"
#include "serve_http_fixture.h"

START_TEST(test_parse_listen)
{
	static const struct {
		const char *in, *text;
	} good[] = {
		{ "127.0.0.1:9477", "127.0.0.1:9477" }, { "localhost:1", "127.0.0.1:1" },
		{ "0.0.0.0:9", "0.0.0.0:9" },		{ "[::1]:80", "[::1]:80" },
		{ "[::]:65535", "[::]:65535" },		{ "10.1.2.3:0", "10.1.2.3:0" },
		{ NULL, SERVE_HTTP_DEFAULT_LISTEN },
	};
	static const struct {
		const char *in, *says;
	} bad[] = {
		{ ":9477", "has no host" },		{ "9477", "has no host" },
		{ "", "has no host" },			{ "127.0.0.1", "has no port" },
		{ "127.0.0.1:", "has no valid port" },	{ "127.0.0.1:65536", "has no valid port" },
		{ "127.0.0.1:9x", "has no valid port" }, { "127.0.0.1:-1", "has no valid port" },
		{ "host.example:80", "not a numeric" },	{ "::1:80", "not a numeric" },
		{ "[::1]", "has no port" },	{ "[::1:80", "not a numeric" },
		{ "[127.0.0.1]:80", "not a numeric" },	{ "1.2.3.4.5:80", "not a numeric" },
	};
	serve_http_addr a;
	char err[512];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(serve_http_parse_listen(good[i].in, &a, err, sizeof(err)) == 0,
			      "%s: %s", good[i].in, err);
		ck_assert_str_eq(a.text, good[i].text);
		ck_assert_uint_gt(a.len, 0);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(serve_http_parse_listen(bad[i].in, &a, err, sizeof(err)) == -1, "%s",
			      bad[i].in);
		ck_assert_contains(err, bad[i].says);
		/* Every sentence says what to write instead. */
		ck_assert_contains(err, "127.0.0.1");
	}
	/* An empty host names both ways to listen everywhere. */
	serve_http_parse_listen(":9477", &a, err, sizeof(err));
	ck_assert_contains(err, "0.0.0.0:PORT or [::]:PORT");
}
END_TEST

START_TEST(test_metrics)
{
	fx_content c = { 0 };
	serve_http *sh = fx_start(&c, NULL);
	char h[256];
	/* Accept lists: none, Prometheus 3's, only OpenMetrics, only
	 * protobuf: every answer is text 0.0.4. */
	static const char *const accepts[] = {
		NULL,
		"Accept: application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,"
		"text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,"
		"text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n",
		"Accept: application/openmetrics-text; version=1.0.0\r\n",
		"Accept: application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		"encoding=delimited\r\n",
	};

	for (size_t i = 0; i < sizeof(accepts) / sizeof(accepts[0]); i++) {
		fx_response r = fx_request(serve_http_port(sh), "GET", "/metrics", accepts[i]);
		ck_assert_int_eq(r.status, 200);
		ck_assert_str_eq(fx_header(&r, "Content-Type", h, sizeof(h)),
				 "text/plain; version=0.0.4; charset=utf-8");
		ck_assert_str_eq(fx_header(&r, "Cache-Control", h, sizeof(h)), "no-store");
		ck_assert_str_eq(fx_header(&r, "Vary", h, sizeof(h)), "Accept-Encoding");
		ck_assert_ptr_null(fx_header(&r, "Content-Encoding", h, sizeof(h)));
		ck_assert_str_eq(r.body, FX_METRICS);
		fx_response_free(&r);
	}
	ck_assert_uint_eq(c.metrics_calls, 4);
	serve_http_stop(sh);
}
END_TEST

/* HEAD: the headers of GET, its Content-Length, no body. */
START_TEST(test_head)
{
	fx_content c = { 0 };
	serve_http *sh = fx_start(&c, NULL);
	char h[256], len[32];
	fx_response r = fx_request(serve_http_port(sh), "HEAD", "/metrics", NULL);

	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(fx_header(&r, "Content-Type", h, sizeof(h)),
			 "text/plain; version=0.0.4; charset=utf-8");
	snprintf(len, sizeof(len), "%zu", strlen(FX_METRICS));
	ck_assert_str_eq(fx_header(&r, "Content-Length", h, sizeof(h)), len);
	ck_assert_uint_eq(r.body_len, 0);
	fx_response_free(&r);
	r = fx_request(serve_http_port(sh), "HEAD", "/", NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.body_len, 0);
	fx_response_free(&r);
	serve_http_stop(sh);
}
END_TEST

START_TEST(test_index)
{
	fx_content c = { .fragment = "<table><tr><td>api</td></tr></table>\n" };
	serve_http *sh = fx_start(&c, NULL);
	char h[256];
	fx_response r = fx_request(serve_http_port(sh), "GET", "/", NULL);

	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(fx_header(&r, "Content-Type", h, sizeof(h)), "text/html; charset=utf-8");
	ck_assert_contains(r.body, "<!DOCTYPE html>");
	ck_assert_contains(r.body, "<a href=\"metrics\">");
	ck_assert_contains(r.body, c.fragment);
	ck_assert_contains(r.body, "</html>\n");
	fx_response_free(&r);
	serve_http_stop(sh);

	/* No index callback: the page with its link only. */
	serve_http_config cfg = { .listen = "127.0.0.1:0", .metrics = fx_metrics, .ctx = &c };
	char err[256];
	sh = serve_http_start(&cfg, err, sizeof(err));
	ck_assert_ptr_nonnull(sh);
	r = fx_request(serve_http_port(sh), "GET", "/", NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert_contains(r.body, "<a href=\"metrics\">");
	fx_response_free(&r);
	serve_http_stop(sh);
}
END_TEST

/* Each bad request gets its 4xx, and the next good one its 200. */
START_TEST(test_bad_requests)
{
	static const struct {
		const char *req;
		int status;
		const char *allow;
	} cases[] = {
		{ "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, NULL },
		{ "GET /favicon.ico HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, NULL },
		{ "GET /metrics/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, NULL },
		{ "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
		  "Connection: close\r\n\r\nab",
		  405, "GET, HEAD" },
		{ "DELETE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405, "GET, HEAD" },
		{ "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405, "GET, HEAD" },
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
		  "Connection: close\r\n\r\nhello",
		  400, NULL },
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
		  "Connection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		  400, NULL },
	};
	fx_content c = { 0 };
	serve_http *sh = fx_start(&c, NULL);
	char h[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fx_response r = fx_send(serve_http_port(sh), false, cases[i].req);
		ck_assert_msg(r.status == cases[i].status, "case %zu: status %d, expected %d", i,
			      r.status, cases[i].status);
		if (cases[i].allow)
			ck_assert_str_eq(fx_header(&r, "Allow", h, sizeof(h)), cases[i].allow);
		if (r.status >= 400 && r.status < 500) {
			ck_assert_str_eq(fx_header(&r, "Cache-Control", h, sizeof(h)), "no-store");
			ck_assert_str_eq(fx_header(&r, "Content-Type", h, sizeof(h)),
					 "text/plain; charset=utf-8");
		}
		fx_response_free(&r);
		r = fx_request(serve_http_port(sh), "GET", "/metrics", NULL);
		ck_assert_int_eq(r.status, 200);
		fx_response_free(&r);
	}
	fx_response r = fx_request(serve_http_port(sh), "GET", "/nope", NULL);
	ck_assert_str_eq(r.body, "404 not found: this server has /metrics and /\n");
	fx_response_free(&r);
	/* Not HTTP at all (a TLS hello): libmicrohttpd keeps that connection
	 * until its idle timeout, and serves others meanwhile. */
	int junk = fx_connect(serve_http_port(sh), false);
	ck_assert_int_eq(write(junk, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15),
			 15);
	r = fx_request(serve_http_port(sh), "GET", "/metrics", NULL);
	ck_assert_int_eq(r.status, 200);
	fx_response_free(&r);
	close(junk);
	/* No callback ran for a request that was refused. */
	ck_assert_uint_eq(c.metrics_calls, sizeof(cases) / sizeof(cases[0]) + 1);
	serve_http_stop(sh);
}
END_TEST

START_TEST(test_callback_fails)
{
	fx_content c = { .fail = 1 };
	serve_http *sh = fx_start(&c, NULL);
	fx_response r = fx_request(serve_http_port(sh), "GET", "/metrics", NULL);

	ck_assert_int_eq(r.status, 500);
	ck_assert_lacks(r.body, "bpfspec_up");
	fx_response_free(&r);
	r = fx_request(serve_http_port(sh), "GET", "/", NULL);
	ck_assert_int_eq(r.status, 500);
	fx_response_free(&r);
	c.fail = 0;
	r = fx_request(serve_http_port(sh), "GET", "/metrics", NULL);
	ck_assert_int_eq(r.status, 200);
	fx_response_free(&r);
	serve_http_stop(sh);
}
END_TEST

START_TEST(test_gzip)
{
	fx_content c = { 0 };
	serve_http *sh = fx_start(&c, NULL);
	char h[256], out[1024];
	fx_response r = fx_request(serve_http_port(sh), "GET", "/metrics",
				   "Accept-Encoding: deflate, gzip;q=0.5\r\n");
	z_stream z = { 0 };

	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(fx_header(&r, "Content-Encoding", h, sizeof(h)), "gzip");
	ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)r.body;
	z.avail_in = (uInt)r.body_len;
	z.next_out = (Bytef *)out;
	z.avail_out = sizeof(out) - 1;
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	out[z.total_out] = '\0';
	inflateEnd(&z);
	ck_assert_str_eq(out, FX_METRICS);
	fx_response_free(&r);

	static const char *const plain[] = { "Accept-Encoding: gzip;q=0\r\n",
					     "Accept-Encoding: gzip; q=0.000, br\r\n",
					     "Accept-Encoding: identity\r\n",
					     "Accept-Encoding: xgzip\r\n" };
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		r = fx_request(serve_http_port(sh), "GET", "/metrics", plain[i]);
		ck_assert_msg(!fx_header(&r, "Content-Encoding", h, sizeof(h)), "%s", plain[i]);
		ck_assert_str_eq(r.body, FX_METRICS);
		fx_response_free(&r);
	}
	serve_http_stop(sh);
}
END_TEST

static unsigned open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A second server on the same port says which address is taken; after a
 * stop the port is free again and no descriptor is left open. */
START_TEST(test_port_in_use)
{
	fx_content c = { 0 };
	unsigned fds = open_fds();
	serve_http *sh = fx_start(&c, NULL);
	char listen[64], err[512] = "", addr[160];
	serve_http_config cfg = { .listen = listen, .metrics = fx_metrics, .ctx = &c };

	snprintf(listen, sizeof(listen), "127.0.0.1:%u", serve_http_port(sh));
	ck_assert_str_eq(serve_http_address(sh), listen);
	ck_assert_ptr_null(serve_http_start(&cfg, err, sizeof(err)));
	snprintf(addr, sizeof(addr), "cannot listen on %s: the address is already in use", listen);
	ck_assert_contains(err, addr);
	ck_assert_contains(err, "--listen");
	/* The first one still serves. */
	fx_response r = fx_request(serve_http_port(sh), "GET", "/metrics", NULL);
	ck_assert_int_eq(r.status, 200);
	fx_response_free(&r);
	serve_http_stop(sh);
	ck_assert_uint_eq(open_fds(), fds);
	sh = serve_http_start(&cfg, err, sizeof(err));
	ck_assert_msg(sh != NULL, "%s", err);
	serve_http_stop(sh);
	serve_http_stop(NULL);
}
END_TEST

START_TEST(test_bind_errors)
{
	fx_content c = { 0 };
	char err[512] = "";
	serve_http_config cfg = { .listen = "192.0.2.1:9477", .metrics = fx_metrics, .ctx = &c };

	/* TEST-NET-1: no interface has it. */
	ck_assert_ptr_null(serve_http_start(&cfg, err, sizeof(err)));
	ck_assert_contains(err, "cannot listen on 192.0.2.1:9477: no interface");
	cfg.listen = "nowhere:1";
	ck_assert_ptr_null(serve_http_start(&cfg, err, sizeof(err)));
	ck_assert_contains(err, "'nowhere:1'");
	cfg.listen = "127.0.0.1:0";
	cfg.metrics = NULL;
	ck_assert_ptr_null(serve_http_start(&cfg, err, sizeof(err)));
	ck_assert_contains(err, "no metrics callback");
}
END_TEST

START_TEST(test_ipv6)
{
	fx_content c = { 0 };
	char err[512] = "", h[256];
	serve_http_config cfg = { .listen = "[::1]:0", .metrics = fx_metrics, .ctx = &c };
	serve_http *sh = serve_http_start(&cfg, err, sizeof(err));

	ck_assert_msg(sh != NULL, "%s", err);
	ck_assert_int_eq(strncmp(serve_http_address(sh), "[::1]:", 6), 0);
	fx_response r = fx_send(serve_http_port(sh), true,
				"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(fx_header(&r, "Content-Type", h, sizeof(h)),
			 "text/plain; version=0.0.4; charset=utf-8");
	fx_response_free(&r);
	serve_http_stop(sh);
}
END_TEST

/* A client that connects and sends nothing holds nothing: the next one is
 * served at once. */
START_TEST(test_slow_client)
{
	fx_content c = { 0 };
	serve_http *sh = fx_start(&c, NULL);
	int idle = fx_connect(serve_http_port(sh), false);
	int partial = fx_connect(serve_http_port(sh), false);

	ck_assert_int_eq(write(partial, "GET /metr", 9), 9);
	fx_response r = fx_request(serve_http_port(sh), "GET", "/metrics", NULL);
	ck_assert_int_eq(r.status, 200);
	fx_response_free(&r);
	close(idle);
	close(partial);
	serve_http_stop(sh);
}
END_TEST

/* An idle connection is closed after timeout_s. */
START_TEST(test_idle_timeout)
{
	fx_content c = { 0 };
	char err[256], buf[16];
	serve_http_config cfg = { .listen = "127.0.0.1:0", .metrics = fx_metrics, .ctx = &c,
				  .timeout_s = 1 };
	serve_http *sh = serve_http_start(&cfg, err, sizeof(err));
	struct timespec t0, t1;

	ck_assert_msg(sh != NULL, "%s", err);
	int fd = fx_connect(serve_http_port(sh), false);	/* reads time out after 5 s */
	ck_assert_int_eq(write(fd, "GET /", 5), 5);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 0);	/* closed, not timed out */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 4);
	close(fd);
	serve_http_stop(sh);
}
END_TEST

/* max_connections caps open connections, half of them per client
 * address: with 2, one idle connection from 127.0.0.1 is all it may hold;
 * once it closes, requests are served again. */
START_TEST(test_connection_limit)
{
	fx_content c = { 0 };
	char err[256];
	serve_http_config cfg = { .listen = "127.0.0.1:0", .metrics = fx_metrics, .ctx = &c,
				  .max_connections = 2 };
	serve_http *sh = serve_http_start(&cfg, err, sizeof(err));

	ck_assert_msg(sh != NULL, "%s", err);
	int idle = fx_connect(serve_http_port(sh), false);
	fx_response r = fx_request(serve_http_port(sh), "GET", "/metrics", NULL);
	ck_assert_int_eq(r.status, 0);
	fx_response_free(&r);
	close(idle);
	usleep(100 * 1000);
	r = fx_request(serve_http_port(sh), "GET", "/metrics", NULL);
	ck_assert_int_eq(r.status, 200);
	fx_response_free(&r);
	serve_http_stop(sh);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("serve_http");
	TCase *tc = tcase_create("http");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_parse_listen);
	tcase_add_test(tc, test_metrics);
	tcase_add_test(tc, test_head);
	tcase_add_test(tc, test_index);
	tcase_add_test(tc, test_bad_requests);
	tcase_add_test(tc, test_callback_fails);
	tcase_add_test(tc, test_gzip);
	tcase_add_test(tc, test_port_in_use);
	tcase_add_test(tc, test_bind_errors);
	tcase_add_test(tc, test_ipv6);
	tcase_add_test(tc, test_slow_client);
	tcase_add_test(tc, test_idle_timeout);
	tcase_add_test(tc, test_connection_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
