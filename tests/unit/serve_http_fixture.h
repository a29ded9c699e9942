/* serve_http_fixture.h — what the serve_http tests share: a tiny HTTP/1.1
 * client over a plain socket, a parsed response, a server with canned
 * content, running a program by argv (curl, openssl) and writing files
 * in a temporary directory.  Header-only (static), so each test stays one
 * file that make builds alone. */
#ifndef BPFSPEC_SERVE_HTTP_FIXTURE_H
#define BPFSPEC_SERVE_HTTP_FIXTURE_H

#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve/serve_http.h"

#define FX_METRICS "# HELP bpfspec_up The spec's bpftrace runs.\n# TYPE bpfspec_up gauge\n" \
		   "bpfspec_up{spec=\"libuv-phases\"} 1\n"

typedef struct fx_response {
	char *raw;		/* owned: all bytes received */
	size_t len;
	int status;		/* 0: no status line */
	const char *body;	/* into raw */
	size_t body_len;
} fx_response;

static inline void fx_response_free(fx_response *r)
{
	free(r->raw);
	memset(r, 0, sizeof(*r));
}

/* The value of header NAME (case-insensitive) in R, copied into BUF, or
 * NULL when absent. */
static inline const char *fx_header(const fx_response *r, const char *name, char *buf,
				    size_t buflen)
{
	size_t n = strlen(name);

	for (const char *p = strstr(r->raw, "\r\n"); p && p + 2 < r->body; p = strstr(p, "\r\n")) {
		p += 2;
		if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
			const char *v = p + n + 1, *e = strstr(v, "\r\n");
			v += strspn(v, " ");
			snprintf(buf, buflen, "%.*s", (int)(e - v), v);
			return buf;
		}
	}
	return NULL;
}

/* Connects to 127.0.0.1:PORT (or [::1] when V6). */
static inline int fx_connect(unsigned port, bool v6)
{
	struct timeval tv = { 5, 0 };
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc;

	ck_assert_int_ge(fd, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (v6) {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port),
					  .sin6_addr = IN6ADDR_LOOPBACK_INIT };
		rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	} else {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	}
	ck_assert_msg(rc == 0, "connect to port %u: %m", port);
	return fd;
}

/* Sends REQ (raw bytes) to PORT and reads until the server closes (or
 * 5 s pass); status 0 when no HTTP answer came. */
static inline fx_response fx_send(unsigned port, bool v6, const char *req)
{
	fx_response r = { 0 };
	size_t cap = 4096;
	int fd = fx_connect(port, v6);
	ssize_t n;

	/* A server that refuses the connection may have closed it already:
	 * no SIGPIPE, and what is read then (nothing) says so. */
	(void)send(fd, req, strlen(req), MSG_NOSIGNAL);
	r.raw = malloc(cap + 1);
	ck_assert_ptr_nonnull(r.raw);
	while ((n = read(fd, r.raw + r.len, cap - r.len)) > 0) {
		r.len += (size_t)n;
		if (r.len == cap) {
			cap *= 2;
			r.raw = realloc(r.raw, cap + 1);
			ck_assert_ptr_nonnull(r.raw);
		}
	}
	close(fd);
	r.raw[r.len] = '\0';
	sscanf(r.raw, "HTTP/1.1 %d", &r.status);
	const char *end = strstr(r.raw, "\r\n\r\n");
	r.body = end ? end + 4 : r.raw + r.len;
	r.body_len = (size_t)(r.raw + r.len - r.body);
	return r;
}

/* METHOD PATH with EXTRA header lines ("Name: value\r\n"...; may be NULL). */
static inline fx_response fx_request(unsigned port, const char *method, const char *path,
				     const char *extra)
{
	char req[2048];

	snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: localhost\r\n%sConnection: close\r\n\r\n",
		 method, path, extra ? extra : "");
	return fx_send(port, false, req);
}

/* ---- canned content ---- */

typedef struct fx_content {
	int fail;		/* the callbacks return -1 */
	unsigned metrics_calls;
	const char *fragment;	/* the index's; written as it is */
} fx_content;

static inline int fx_metrics(void *ctx, FILE *out)
{
	fx_content *c = ctx;

	c->metrics_calls++;
	fputs(FX_METRICS, out);
	return c->fail ? -1 : 0;
}

static inline int fx_index(void *ctx, FILE *out)
{
	fx_content *c = ctx;

	fputs(c->fragment ? c->fragment : "<p>no specs</p>\n", out);
	return c->fail ? -1 : 0;
}

/* Starts a server on 127.0.0.1:0 with C's content and WEB (may be NULL). */
static inline serve_http *fx_start(fx_content *c, const serve_http_web *web)
{
	char err[512] = "";
	serve_http_config cfg = { .listen = "127.0.0.1:0", .web = web, .metrics = fx_metrics,
				  .index = fx_index, .ctx = c };
	serve_http *sh = serve_http_start(&cfg, err, sizeof(err));

	ck_assert_msg(sh != NULL, "serve_http_start: %s", err);
	ck_assert_uint_gt(serve_http_port(sh), 0);
	return sh;
}

/* ---- programs and files ---- */

/* Runs ARGV (no shell); its stdout into *OUT (owned) when OUT is not NULL,
 * its stderr to /dev/null.  Returns its exit status, or -1. */
static inline int fx_run(char *const argv[], char **out)
{
	int pfd[2], status;
	pid_t pid;
	size_t len = 0;
	FILE *mem = NULL;
	char buf[4096];
	ssize_t n;

	ck_assert_int_eq(pipe2(pfd, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(pfd[1], 1);
		if (devnull >= 0)
			dup2(devnull, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	if (out) {
		*out = NULL;
		mem = open_memstream(out, &len);
		ck_assert_ptr_nonnull(mem);
	}
	while ((n = read(pfd[0], buf, sizeof(buf))) > 0)
		if (mem)
			fwrite(buf, 1, (size_t)n, mem);
	close(pfd[0]);
	if (mem)
		fclose(mem);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A fresh temporary directory (owned path). */
static inline char *fx_tmpdir(void)
{
	char *d = strdup("/tmp/bpfspec-serve-http.XXXXXX");

	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

/* Writes TEXT to DIR/NAME; returns the path (owned). */
static inline char *fx_write(const char *dir, const char *name, const char *text)
{
	char *path;
	FILE *f;

	ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

/* Removes DIR and the files in it (the tests make no subdirectories). */
static inline void fx_rmdir(char *dir)
{
	char *const argv[] = { (char *)"rm", (char *)"-rf", dir, NULL };

	ck_assert_int_eq(fx_run(argv, NULL), 0);
	free(dir);
}

#endif
