/* http — an http probe's parts shared by its files (gen/kinds/http.c:
 * the row, spec rules, program and report; http_route.c: route folding;
 * http_render.c: the outputs).
 *
 * An http probe measures the HTTP/1.x requests a server answers, from
 * the syscalls alone (templates/http.bt.in): from the read() whose bytes
 * begin with a method to the write() or writev() of the status line on
 * the same connection, the time to the first response byte as the
 * server sees it.  The program prints one record per request with its
 * first bytes; bpfspec folds the request target into a route here, in
 * user space, so the kernel copies bytes and never parses them. */
#ifndef BPFSPEC_KINDS_HTTP_H
#define BPFSPEC_KINDS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define HTTP_LINE_BYTES 128		/* str() of a request's first bytes */
#define HTTP_DEFAULT_ROUTES 50		/* 'labels' when the spec gives none */
#define HTTP_DEFAULT_SLOW_NS 500000000ull	/* 'threshold' when none */
#define HTTP_ROUTE_MAX 96		/* a folded route's bytes, "..." included */
#define HTTP_METHOD_MAX 16		/* a method's bytes */

/* Open requests (kept across windows), and the counters of a window. */
#define HTTP_OPEN_START "hrt"
#define HTTP_REPLACED "hrre"
#define HTTP2_SEEN "hr2"

/* What the first bytes of a request say: its method and route. */
typedef struct http_request_line {
	char method[HTTP_METHOD_MAX + 1];	/* "" when not a method */
	char route[HTTP_ROUTE_MAX + 1];	/* folded; "" when no target */
	bool cut;		/* the target did not end in the bytes read */
} http_request_line;

/* Reads LINE (LEN bytes, the request's first bytes as read: untrusted,
 * any bytes but NUL, perhaps cut) into *OUT: the method (bytes up to the
 * first space, at most HTTP_METHOD_MAX, letters only, else ""), and the
 * target folded into a route: an absolute-form target ("http://h/p")
 * keeps its path; the query and fragment go; each path segment of
 * digits, a UUID (8-4-4-4-12 hex digits) or 16 or more hex digits
 * becomes ":id"; "*" stays "*", any other target not beginning with
 * '/' becomes "(not a path)".  A target longer than HTTP_ROUTE_MAX, or
 * cut (LEN >= CUT_AT with no end of line in it), ends in "...".  The
 * route keeps the bytes as sent otherwise (renderers escape them,
 * util/safe.h).  Never reads past LEN, never writes past OUT. */
void http_parse_line(const char *line, size_t len, size_t cut_at, http_request_line *out);

/* Whether SEG (LEN bytes) is an identifier-like path segment: digits, a
 * UUID, or 16 or more hex digits. */
bool http_segment_is_id(const char *seg, size_t len);

struct gen_parts;
struct resolved;
struct report_probe;
struct report;
struct json_t;
struct ps_add;

/* The row's outputs (model/kind.h), in http_render.c. */
void http_text_row(FILE *out, const struct report_probe *p, const struct report *rep);
void http_text_details(FILE *out, const struct report_probe *p, const struct report *rep);
void http_json(struct json_t *jp, const struct report_probe *p, const struct report *rep);
void http_prom(FILE *out, const struct report *rep);
int http_serve(struct ps_add *a, const struct report_probe *p);
extern const struct ps_family_def *const http_families[];

#endif
