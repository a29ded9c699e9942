/* Unit tests for http_route: a request's first bytes into its method and
 * folded route (gen/kinds/http.h), on ordinary requests and on bytes a
 * hostile client chose: 8 KB lines, bytes that are not UTF-8, terminal
 * escapes, quotes, no end of line, no target.  The route never passes
 * HTTP_ROUTE_MAX bytes, and the parser never reads past what it is given
 * (valgrind: each input is a heap copy of exactly its length).  Run
 * under valgrind (CK_FORK=no). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/http.h"

/* LINE (LEN bytes) parsed from a heap copy of exactly its length. */
static http_request_line parse_n(const char *line, size_t len, size_t cut_at)
{
	http_request_line out;
	char *copy = malloc(len ? len : 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, line, len);
	http_parse_line(copy, len, cut_at, &out);
	free(copy);
	ck_assert_uint_le(strlen(out.route), HTTP_ROUTE_MAX);
	ck_assert_uint_le(strlen(out.method), HTTP_METHOD_MAX);
	return out;
}

static http_request_line parse(const char *line)
{
	return parse_n(line, strlen(line), HTTP_LINE_BYTES - 1);
}

START_TEST(test_plain_routes)
{
	static const struct { const char *line, *method, *route; } cases[] = {
		{ "GET / HTTP/1.1\r\nHost: x\r\n", "GET", "/" },
		{ "GET /wait HTTP/1.1\r\n", "GET", "/wait" },
		{ "POST /users/42 HTTP/1.1\r\n", "POST", "/users/:id" },
		{ "GET /users/42/orders/7?x=1&y=2 HTTP/1.1\r\n", "GET", "/users/:id/orders/:id" },
		{ "DELETE /items/123e4567-e89b-12d3-a456-426614174000 HTTP/1.1\r\n", "DELETE",
		  "/items/:id" },
		{ "GET /blobs/0123456789abcdef0123 HTTP/1.1\r\n", "GET", "/blobs/:id" },
		{ "GET /blobs/cafe HTTP/1.1\r\n", "GET", "/blobs/cafe" },	/* short hex stays */
		{ "GET /v2/api HTTP/1.1\r\n", "GET", "/v2/api" },
		{ "GET /a//b/ HTTP/1.1\r\n", "GET", "/a//b/" },
		{ "GET /search#frag HTTP/1.1\r\n", "GET", "/search" },
		{ "GET http://example.test/users/9?q HTTP/1.1\r\n", "GET", "/users/:id" },
		{ "GET http://example.test HTTP/1.1\r\n", "GET", "/" },
		{ "OPTIONS * HTTP/1.1\r\n", "OPTIONS", "*" },
		{ "CONNECT host:443 HTTP/1.1\r\n", "CONNECT", "(not a path)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		http_request_line hl = parse(cases[i].line);
		ck_assert_str_eq(hl.method, cases[i].method);
		ck_assert_str_eq(hl.route, cases[i].route);
		ck_assert(!hl.cut);
	}
}
END_TEST

START_TEST(test_not_a_method)
{
	static const char *const lines[] = { "", "GET", "GET/x HTTP/1.1", "get / HTTP/1.1",
					     "GET-NOT-HTTP \x01\x02", "\x16\x03\x01\x02\x00",
					     "ABCDEFGHIJKLMNOPQRSTUVWXYZ / HTTP/1.1" };
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
		http_request_line hl = parse(lines[i]);
		ck_assert_str_eq(hl.method, "");
		ck_assert_str_eq(hl.route, "");
	}
}
END_TEST

/* A line as long as the copy with no end in it was cut: its route says
 * so, and stays within HTTP_ROUTE_MAX. */
START_TEST(test_cut_lines)
{
	char line[8300];
	memcpy(line, "GET /h/", 7);
	for (size_t i = 7; i < sizeof line; i++)
		line[i] = (char)('g' + i % 7);	/* not hex: kept as a segment */
	http_request_line hl = parse_n(line, HTTP_LINE_BYTES - 1, HTTP_LINE_BYTES - 1);
	ck_assert(hl.cut);
	ck_assert_uint_eq(strlen(hl.route), HTTP_ROUTE_MAX);
	ck_assert_str_eq(hl.route + HTTP_ROUTE_MAX - 3, "...");
	/* the whole 8 KB line, as if bpftrace had copied all of it */
	hl = parse_n(line, sizeof line, HTTP_LINE_BYTES - 1);
	ck_assert(hl.cut);
	ck_assert_uint_eq(strlen(hl.route), HTTP_ROUTE_MAX);
	/* cut in the query: the path is whole */
	hl = parse_n("GET /a?qqqqqqqq", 15, 15);
	ck_assert(hl.cut);
	ck_assert_str_eq(hl.route, "/a");
	/* shorter than the copy: it ended, whatever it holds */
	hl = parse_n("GET /abc", 8, HTTP_LINE_BYTES - 1);
	ck_assert(!hl.cut);
	ck_assert_str_eq(hl.route, "/abc");
}
END_TEST

/* Hostile bytes stay as they are in the route (renderers escape them),
 * bounded, never past the target's end. */
START_TEST(test_hostile_bytes)
{
	http_request_line hl = parse("GET /h/\xff\xfe\xc3\x28 HTTP/1.1\r\n");
	ck_assert_str_eq(hl.route, "/h/\xff\xfe\xc3\x28");
	hl = parse("GET /h/\x1b[31mred\x1b]0;t\x07\"q\" HTTP/1.1\r\n");
	ck_assert_str_eq(hl.route, "/h/\x1b[31mred\x1b]0;t\x07\"q\"");
	hl = parse("GET /a\rb HTTP/1.1");
	ck_assert_str_eq(hl.route, "/a");
	hl = parse("GET  HTTP/1.1");
	ck_assert_str_eq(hl.route, "(not a path)");
	hl = parse("GET http:/");
	ck_assert_str_eq(hl.route, "(not a path)");
	hl = parse("GET http://");
	ck_assert_str_eq(hl.route, "/");
}
END_TEST

START_TEST(test_segments)
{
	ck_assert(http_segment_is_id("0", 1));
	ck_assert(http_segment_is_id("123456", 6));
	ck_assert(!http_segment_is_id("", 0));
	ck_assert(!http_segment_is_id("12a", 3));
	ck_assert(!http_segment_is_id("deadbeef", 8));
	ck_assert(http_segment_is_id("deadbeefdeadbeef", 16));
	ck_assert(http_segment_is_id("123E4567-E89B-12D3-A456-426614174000", 36));
	ck_assert(!http_segment_is_id("123e4567-e89b-12d3-a456-42661417400z", 36));
	ck_assert(!http_segment_is_id("123e4567+e89b-12d3-a456-426614174000", 36));
}
END_TEST

static Suite *http_route_suite(void)
{
	Suite *s = suite_create("http_route");
	TCase *tc = tcase_create("http_route");
	tcase_add_test(tc, test_plain_routes);
	tcase_add_test(tc, test_not_a_method);
	tcase_add_test(tc, test_cut_lines);
	tcase_add_test(tc, test_hostile_bytes);
	tcase_add_test(tc, test_segments);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(http_route_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
