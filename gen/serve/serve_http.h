/* serve_http — the HTTP side of `bpfspec serve`: /metrics and a small
 * status page, on libmicrohttpd, with optional TLS and basic auth.
 *
 * This module knows nothing about specs: the content comes from the
 * caller's callbacks, written into a memory buffer and sent whole.
 *
 * Listen address (serve_http_parse_listen):
 *   "127.0.0.1:PORT"  an IPv4 address (0.0.0.0: every IPv4 interface);
 *   "[::1]:PORT"      an IPv6 address in brackets ([::]: every interface,
 *                     IPv4 too: the socket is made dual-stack);
 *   "localhost:PORT"  127.0.0.1.
 *   No host (":9100", "9100") is an error, not "every interface" as in Go
 *   exporters: a user who wants the metrics reachable from elsewhere says
 *   0.0.0.0 or [::].  Other host names are not resolved.  PORT is 0..65535;
 *   0 takes any free port (serve_http_port tells which).
 *
 * HTTP behaviour:
 *   GET /metrics   200, "text/plain; version=0.0.4; charset=utf-8", the
 *                  metrics callback's text, whatever Accept says: text
 *                  0.0.4 is the one format served, and the fallback a
 *                  Prometheus client library answers with when nothing
 *                  in Accept matches (docs/serve.md).  gzip when the
 *                  client's Accept-Encoding allows it.
 *   GET /          200 text/html: the index callback's fragment in a
 *                  minimal page with a link to metrics.
 *   HEAD           as GET, without the body.
 *   other paths    404 with a short text body (/favicon.ico too);
 *   other methods  405 with "Allow: GET, HEAD";
 *   a request body 400 (nothing here takes one);
 *   no or wrong credentials, when the web config has users: 401 with
 *                  WWW-Authenticate: Basic realm="bpfspec", on every path.
 *   Every response made here has "Cache-Control: no-store" and
 *   "X-Content-Type-Options: nosniff" (libmicrohttpd answers a request it
 *   cannot parse itself, with a 400 or by closing the connection).  A
 *   callback failing gives a 500.
 *   One internal thread serves every connection (the callbacks run in it,
 *   one request at a time); an idle connection is closed after
 *   cfg->timeout_s, and at most cfg->max_connections are open at once,
 *   half of them from one client address.
 *
 * Web config (serve_http_web_load): the Prometheus exporter-toolkit
 * format, the subset bpfspec implements:
 *     tls_server_config:
 *       cert_file: server.crt   # PEM; relative paths are relative to
 *       key_file: server.key    # the web config file's directory
 *     basic_auth_users:
 *       alice: $2y$10$...       # a bcrypt hash ($2a$, $2b$ or $2y$)
 * An unknown key, or an exporter-toolkit key bpfspec does not implement,
 * is an error at its FILE:LINE:COL; so are duplicate keys and values of
 * the wrong kind.  An empty file is a valid config: plain HTTP, no auth.
 * Passwords are checked with crypt_r(3) (libxcrypt); a password that
 * verified once is remembered (in memory only) so that a scrape costs no
 * bcrypt; comparisons run in constant time, and an unknown user costs a
 * bcrypt like a known one.
 *
 * Errors: serve_http_web_load prints through diag (with the source line
 * and a caret) and returns NULL.  serve_http_start and
 * serve_http_parse_listen write one sentence into ERR (naming the address
 * and what to do) and return NULL or -1; nothing here prints after that,
 * from any thread.
 * Layering: below serve; of ours it uses diag.h only (the index callback
 * uses safe.h).
 * Ownership: serve_http_start and serve_http_web_load return owned
 * objects (NULL on error); serve_http_stop(NULL) and
 * serve_http_web_free(NULL) are no-ops.  cfg->listen is read during the
 * call only; cfg->web and cfg->ctx are borrowed and must outlive the
 * server.  serve_http_start and
 * serve_http_stop are called from one thread; the callbacks are called
 * from the server's thread, so they take whatever lock guards their data. */
#ifndef BPFSPEC_SERVE_HTTP_H
#define BPFSPEC_SERVE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>

/* The default listen address: loopback only; the port, docs/serve.md. */
#define SERVE_HTTP_DEFAULT_PORT 9477
#define SERVE_HTTP_DEFAULT_LISTEN "127.0.0.1:9477"
#define SERVE_HTTP_TIMEOUT_S 10		/* idle connection closed after */
#define SERVE_HTTP_MAX_CONNECTIONS 32
#define SERVE_HTTP_REALM "bpfspec"
#define SERVE_HTTP_ADDR_MAX 64		/* "[v6]:port" with its NUL */

typedef struct serve_http serve_http;
typedef struct serve_http_web serve_http_web;

/* Writes content to OUT.  Returns 0, or -1 (the client gets a 500). */
typedef int (*serve_http_write_fn)(void *ctx, FILE *out);

typedef struct serve_http_config {
	const char *listen;		/* NULL: SERVE_HTTP_DEFAULT_LISTEN */
	const serve_http_web *web;	/* NULL: plain HTTP, no auth */
	serve_http_write_fn metrics;	/* the exposition (required) */
	serve_http_write_fn index;	/* an HTML fragment for /; NULL: none.
					 * Every string from a traced process
					 * goes through safe_fputs_html. */
	void *ctx;			/* passed to both */
	unsigned timeout_s;		/* 0: SERVE_HTTP_TIMEOUT_S */
	unsigned max_connections;	/* 0: SERVE_HTTP_MAX_CONNECTIONS */
} serve_http_config;

/* A parsed listen address. */
typedef struct serve_http_addr {
	struct sockaddr_storage sa;
	socklen_t len;
	char text[SERVE_HTTP_ADDR_MAX];	/* normalised: "127.0.0.1:9477" */
} serve_http_addr;

/* Parses TEXT (above) into *OUT.  Returns 0, or -1 with a sentence in ERR. */
int serve_http_parse_listen(const char *text, serve_http_addr *out, char *err, size_t errlen);

/* Binds, listens and starts serving.  Returns the server, or NULL with a
 * sentence in ERR: the address in use, not available, not permitted, a
 * bad certificate or key, TLS asked for and not built into libmicrohttpd,
 * out of memory. */
serve_http *serve_http_start(const serve_http_config *cfg, char *err, size_t errlen);

/* The port and address the server listens on (port 0 resolved). */
unsigned serve_http_port(const serve_http *sh);
const char *serve_http_address(const serve_http *sh);

/* Stops serving: open connections are closed, the socket too; no
 * callback runs once it returns. */
void serve_http_stop(serve_http *sh);

/* Reads the web config at PATH and the certificate and key it names.
 * Returns it, or NULL after printing every error found (diag). */
serve_http_web *serve_http_web_load(const char *path);
void serve_http_web_free(serve_http_web *web);

bool serve_http_web_tls(const serve_http_web *web);
size_t serve_http_web_users(const serve_http_web *web);

#endif
