/* serve_http — the daemon and its one request handler (serve_http.h). */
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "serve/serve_http_internal.h"
#include "util/lazylib.h"
#include "util/lazylib_mhd.h"

#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define TEXT_TYPE "text/plain; charset=utf-8"
#define HTML_TYPE "text/html; charset=utf-8"

/* libmicrohttpd, loaded by the first serve_http_start (lazylib.h): set
 * before any daemon thread runs, never changed after. */
static const lazylib_mhd *mhd;

struct serve_http {
	struct MHD_Daemon *daemon;
	serve_http_config cfg;
	serve_http_auth_cache auth;
	unsigned port;
	char address[SERVE_HTTP_ADDR_MAX];
	/* MHD's last log line while starting (its thread may log too). */
	pthread_mutex_t log_lock;
	char log[256];
};

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	serve_http *sh = cls;
	char line[sizeof(sh->log)];
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '.'))
		line[--n] = '\0';
	pthread_mutex_lock(&sh->log_lock);
	memcpy(sh->log, line, n + 1);
	pthread_mutex_unlock(&sh->log_lock);
}

/* ---- responses ---- */

static enum MHD_Result queue(struct MHD_Connection *conn, unsigned status, const char *type,
			     char *body, size_t len, bool must_free)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = mhd->create_response_from_buffer(len, body,
					     must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	mhd->add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	mhd->add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd->add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = mhd->queue_response(conn, status, r);
	mhd->destroy_response(r);
	return ret;
}

static enum MHD_Result queue_text(struct MHD_Connection *conn, unsigned status,
				  const char *text)
{
	return queue(conn, status, TEXT_TYPE, (char *)text, strlen(text), false);
}

/* True when Accept-Encoding lists gzip (or "*") without q=0. */
static bool accepts_gzip(struct MHD_Connection *conn)
{
	const char *h = mhd->lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_ACCEPT_ENCODING);

	while (h && *h) {
		size_t n;
		const char *end;

		h += strspn(h, " \t,");
		n = strcspn(h, " \t;,");
		end = h + strcspn(h, ",");
		if ((n == 4 && strncasecmp(h, "gzip", 4) == 0) || (n == 1 && *h == '*')) {
			const char *q = strstr(h, "q=");
			if (!q || q > end)
				return true;
			/* q=0, q=0.0, q=0.000: refused. */
			q += 2;
			if (*q != '0')
				return true;
			for (q++; q < end && (*q == '.' || *q == '0'); q++)
				;
			return q < end && *q >= '1' && *q <= '9';
		}
		h = end;
	}
	return false;
}

/* BODY (LEN bytes, owned) compressed with gzip into *OUT (owned).
 * Returns its length, or 0 when compressing failed (BODY kept). */
static size_t gzip_body(const char *body, size_t len, char **out)
{
	z_stream z;
	size_t cap;
	char *buf;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return 0;
	cap = deflateBound(&z, len) + 32;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&z);
		return 0;
	}
	z.next_in = (Bytef *)body;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)buf;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(buf);
		return 0;
	}
	cap = z.total_out;
	deflateEnd(&z);
	*out = buf;
	return cap;
}

static enum MHD_Result serve_metrics(serve_http *sh, struct MHD_Connection *conn)
{
	char *body = NULL, *gz = NULL;
	size_t len = 0, gzlen;
	struct MHD_Response *r;
	enum MHD_Result ret;
	FILE *f = open_memstream(&body, &len);
	int rc;

	if (!f)
		return queue_text(conn, 500, "out of memory\n");
	rc = sh->cfg.metrics(sh->cfg.ctx, f);
	if (fclose(f) != 0 || rc != 0) {
		free(body);
		return queue_text(conn, 500, "bpfspec: writing the metrics failed\n");
	}
	if (accepts_gzip(conn) && len < 0x7fffffff && (gzlen = gzip_body(body, len, &gz)) > 0) {
		free(body);
		body = gz;
		len = gzlen;
	} else {
		gz = NULL;
	}
	r = mhd->create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, METRICS_TYPE);
	mhd->add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	mhd->add_response_header(r, "X-Content-Type-Options", "nosniff");
	mhd->add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	if (gz)
		mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	ret = mhd->queue_response(conn, MHD_HTTP_OK, r);
	mhd->destroy_response(r);
	return ret;
}

static enum MHD_Result serve_index(serve_http *sh, struct MHD_Connection *conn)
{
	char *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	int rc = 0;

	if (!f)
		return queue_text(conn, 500, "out of memory\n");
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>bpfspec serve</title>\n</head>\n<body>\n<h1>bpfspec serve</h1>\n"
	      "<p><a href=\"metrics\">Metrics</a></p>\n",
	      f);
	if (sh->cfg.index)
		rc = sh->cfg.index(sh->cfg.ctx, f);
	fputs("</body>\n</html>\n", f);
	if (fclose(f) != 0 || rc != 0) {
		free(body);
		return queue_text(conn, 500, "bpfspec: writing the page failed\n");
	}
	return queue(conn, MHD_HTTP_OK, HTML_TYPE, body, len, true);
}

/* True when the request carries a body (or says it will). */
static bool has_body(struct MHD_Connection *conn, size_t upload_size)
{
	const char *cl = mhd->lookup_connection_value(conn, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_CONTENT_LENGTH);

	if (upload_size > 0)
		return true;
	if (mhd->lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return true;
	return cl && strspn(cl, "0 \t") != strlen(cl);
}

static bool authorized(serve_http *sh, struct MHD_Connection *conn)
{
	char *user, *pass = NULL;
	bool ok;

	if (!sh->cfg.web || sh->cfg.web->n_users == 0)
		return true;
	user = mhd->basic_auth_get_username_password(conn, &pass);
	ok = sh_web_check(sh->cfg.web, &sh->auth, user, pass);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		mhd->free(pass);
	}
	if (user)
		mhd->free(user);
	return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	serve_http *sh = cls;
	static const char unauthorized[] = "401 unauthorized: give the user and password "
					   "of the web config (basic auth)\n";
	(void)version;
	(void)upload_data;

	if (*req_cls) {
		/* Only reached when a body slipped past the first call:
		 * refuse it (nothing here reads one). */
		*upload_data_size = 0;
		return MHD_YES;
	}
	*req_cls = sh;
	if (!authorized(sh, conn)) {
		struct MHD_Response *r = mhd->create_response_from_buffer(
			sizeof(unauthorized) - 1, (void *)unauthorized, MHD_RESPMEM_PERSISTENT);
		enum MHD_Result ret;

		if (!r)
			return MHD_NO;
		mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, TEXT_TYPE);
		mhd->add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
		mhd->add_response_header(r, "X-Content-Type-Options", "nosniff");
		ret = mhd->queue_basic_auth_fail_response(conn, SERVE_HTTP_REALM, r);
		mhd->destroy_response(r);
		return ret;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return queue_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "405 method not allowed: only GET and HEAD are served\n");
	if (has_body(conn, *upload_data_size))
		return queue_text(conn, MHD_HTTP_BAD_REQUEST,
				  "400 bad request: a GET or HEAD takes no body\n");
	if (strcmp(url, "/metrics") == 0)
		return serve_metrics(sh, conn);
	if (strcmp(url, "/") == 0)
		return serve_index(sh, conn);
	return queue_text(conn, MHD_HTTP_NOT_FOUND,
			  "404 not found: this server has /metrics and /\n");
}

/* ---- start and stop ---- */

/* Checks that CFG can be served here: a metrics callback, libmicrohttpd
 * (loaded on the first call), with TLS when the web config asks for it.
 * Returns 0, or -1 with a sentence in ERR. */
static int can_start(const serve_http_config *cfg, char *err, size_t errlen)
{
	const serve_http_web *web = cfg->web;

	if (!cfg->metrics) {
		snprintf(err, errlen, "serve_http_start: no metrics callback");
		return -1;
	}
	if (!mhd && !(mhd = lazylib_mhd_load(err, errlen)))
		return -1;
	if (web && web->cert_pem && mhd->is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, errlen,
			 "%s asks for TLS, but this libmicrohttpd was built without it; remove "
			 "tls_server_config or install a libmicrohttpd with GnuTLS (Debian's has it)",
			 web->path);
		return -1;
	}
	return 0;
}

/* Frees SH, which holds no daemon (any more). */
static void sh_free(serve_http *sh)
{
	sh_auth_cache_free(&sh->auth);
	pthread_mutex_destroy(&sh->log_lock);
	free(sh);
}

/* A server for CFG, its defaults filled in, not yet listening.  Returns
 * it (owned: sh_free), or NULL with "out of memory" in ERR. */
static serve_http *sh_new(const serve_http_config *cfg, char *err, size_t errlen)
{
	const serve_http_web *web = cfg->web;
	serve_http *sh = calloc(1, sizeof(*sh));

	if (!sh) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sh->cfg = *cfg;
	sh->cfg.listen = NULL;	/* not kept: addr holds it */
	if (!sh->cfg.timeout_s)
		sh->cfg.timeout_s = SERVE_HTTP_TIMEOUT_S;
	if (!sh->cfg.max_connections)
		sh->cfg.max_connections = SERVE_HTTP_MAX_CONNECTIONS;
	pthread_mutex_init(&sh->log_lock, NULL);
	if (web && web->n_users) {
		sh->auth.pass = calloc(web->n_users, sizeof(char *));
		if (!sh->auth.pass) {
			snprintf(err, errlen, "out of memory");
			sh_free(sh);
			return NULL;
		}
		sh->auth.n = web->n_users;
	}
	return sh;
}

/* Starts SH's daemon on the listening socket FD (of ADDR), with TLS when
 * the web config has a certificate.  Returns it, or NULL (MHD's reason,
 * if it gave one, is in sh->log). */
static struct MHD_Daemon *start_daemon(serve_http *sh, const serve_http_addr *addr, int fd)
{
	const serve_http_web *web = sh->cfg.web;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;

	if (web && web->cert_pem)
		flags |= MHD_USE_TLS;
	if (addr->sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	struct MHD_OptionItem opts[] = {
		{ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, sh },
		{ MHD_OPTION_LISTEN_SOCKET, fd, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, sh->cfg.timeout_s, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, sh->cfg.max_connections, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		  sh->cfg.max_connections > 1 ? sh->cfg.max_connections / 2 : 1, NULL },
		/* Last: left out (END) without TLS. */
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, web ? web->key_pem : NULL },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, web ? web->cert_pem : NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	if (!(web && web->cert_pem))
		opts[5].option = MHD_OPTION_END;
	return mhd->start_daemon(flags, 0, NULL, NULL, handle, sh, MHD_OPTION_ARRAY, opts,
				 MHD_OPTION_END);
}

/* Says in ERR why SH's daemon did not start on ADDR. */
static void say_not_started(serve_http *sh, const serve_http_addr *addr, char *err,
			    size_t errlen)
{
	const serve_http_web *web = sh->cfg.web;

	pthread_mutex_lock(&sh->log_lock);
	if (web && web->cert_pem)
		snprintf(err, errlen,
			 "cannot serve TLS on %s with the certificate and key of %s (%s); "
			 "check that key_file is the private key of cert_file, both PEM",
			 addr->text, web->path, sh->log[0] ? sh->log : "no reason given");
	else
		snprintf(err, errlen, "cannot serve HTTP on %s: %s", addr->text,
			 sh->log[0] ? sh->log : "libmicrohttpd did not start");
	pthread_mutex_unlock(&sh->log_lock);
}

serve_http *serve_http_start(const serve_http_config *cfg, char *err, size_t errlen)
{
	serve_http_addr addr;
	serve_http *sh;
	int fd;

	if (can_start(cfg, err, errlen) < 0 ||
	    serve_http_parse_listen(cfg->listen, &addr, err, errlen) < 0 ||
	    !(sh = sh_new(cfg, err, errlen)))
		return NULL;
	fd = sh_listen_socket(&addr, err, errlen);
	if (fd < 0) {
		sh_free(sh);
		return NULL;
	}
	sh->port = (unsigned)sh_socket_address(fd, sh->address, sizeof(sh->address));
	sh->daemon = start_daemon(sh, &addr, fd);
	if (!sh->daemon) {
		close(fd);
		say_not_started(sh, &addr, err, errlen);
		sh_free(sh);
		return NULL;
	}
	return sh;
}

unsigned serve_http_port(const serve_http *sh)
{
	return sh->port;
}

const char *serve_http_address(const serve_http *sh)
{
	return sh->address;
}

void serve_http_stop(serve_http *sh)
{
	if (!sh)
		return;
	/* MHD closes the listening socket it was given. */
	mhd->stop_daemon(sh->daemon);
	sh_free(sh);
}
