/* serve_http_web — the web config (exporter-toolkit's format, the subset
 * of serve_http.h): read with libyaml, errors at FILE:LINE:COL; and the
 * basic-auth check against its bcrypt hashes. */
#include <errno.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "serve/serve_http_internal.h"
#include "util/diag.h"
#include "util/lazylib.h"

#define WEB_FILE_MAX (1024 * 1024)	/* a web config, a certificate, a key */

/* exporter-toolkit keys that bpfspec knows of and does not implement:
 * refused with a message of their own rather than "unknown". */
static const char *const toolkit_top[] = { "http_server_config", "rate_limit", NULL };
static const char *const toolkit_tls[] = {
	"cert", "key", "client_auth_type", "client_ca_file", "client_ca", "cipher_suites",
	"curve_preferences", "min_version", "max_version", "prefer_server_cipher_suites",
	"client_allowed_sans", NULL,
};

typedef struct web_loader {
	diag_src src;
	yaml_document_t doc;
	serve_http_web *web;
	unsigned errors;
	char *cert_path, *key_path;	/* as written */
	yaml_node_t *cert_node, *key_node, *tls_node;
} web_loader;

static diag_loc node_loc(const yaml_node_t *n)
{
	unsigned span = 1;

	if (n->end_mark.line == n->start_mark.line && n->end_mark.column > n->start_mark.column)
		span = (unsigned)(n->end_mark.column - n->start_mark.column);
	return (diag_loc){ (unsigned)n->start_mark.line + 1, (unsigned)n->start_mark.column + 1,
			   span, NULL };
}

static void web_error(web_loader *ld, const yaml_node_t *n, const char *hint, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));

static void web_error(web_loader *ld, const yaml_node_t *n, const char *hint, const char *fmt,
		      ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ld->errors++;
	diag_at(DIAG_ERROR, &ld->src, n ? node_loc(n) : (diag_loc){ 0, 0, 0, NULL }, hint, "%s",
		msg);
}

/* Reads PATH whole (at most WEB_FILE_MAX bytes), NUL-terminated.  NULL
 * with errno set (EFBIG: too long). */
static char *read_file(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rbe");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(WEB_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	n = fread(buf, 1, WEB_FILE_MAX + 1, f);
	if (ferror(f) || n > WEB_FILE_MAX) {
		int e = ferror(f) ? errno : EFBIG;
		fclose(f);
		free(buf);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (lenp)
		*lenp = n;
	return buf;
}

static bool is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 || strcmp(v, "Null") == 0 ||
	       strcmp(v, "NULL") == 0;
}

static bool listed(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* Calls FN for each key: value of mapping N; checks that keys are
 * scalars and unique.  N may be a null scalar (an empty mapping). */
static void each_pair(web_loader *ld, yaml_node_t *n, const char *what,
		      void (*fn)(web_loader *, yaml_node_t *key, yaml_node_t *value))
{
	if (is_null(n))
		return;
	if (n->type != YAML_MAPPING_NODE) {
		web_error(ld, n, NULL, "%s must be a mapping of keys to values", what);
		return;
	}
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&ld->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&ld->doc, p->value);
		bool dup = false;

		if (!k || !v)
			continue;
		if (k->type != YAML_SCALAR_NODE) {
			web_error(ld, k, NULL, "a key of %s must be a plain string", what);
			continue;
		}
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p && !dup; q++) {
			yaml_node_t *k2 = yaml_document_get_node(&ld->doc, q->key);
			dup = k2 && k2->type == YAML_SCALAR_NODE &&
			      strcmp((char *)k2->data.scalar.value, (char *)k->data.scalar.value) == 0;
		}
		if (dup) {
			web_error(ld, k, "remove one of the two", "duplicate key '%.64s' in %s",
				  (char *)k->data.scalar.value, what);
			continue;
		}
		fn(ld, k, v);
	}
}

static const char *scalar(web_loader *ld, yaml_node_t *key, yaml_node_t *v)
{
	if (v->type != YAML_SCALAR_NODE || is_null(v)) {
		web_error(ld, v, NULL, "%.64s must be a string", (char *)key->data.scalar.value);
		return NULL;
	}
	return (const char *)v->data.scalar.value;
}

static void tls_pair(web_loader *ld, yaml_node_t *k, yaml_node_t *v)
{
	const char *key = (const char *)k->data.scalar.value, *s;
	bool cert = strcmp(key, "cert_file") == 0;

	if (cert || strcmp(key, "key_file") == 0) {
		if (!(s = scalar(ld, k, v)))
			return;
		char *copy = strdup(s);
		if (!copy) {
			web_error(ld, NULL, NULL, "out of memory");
			return;
		}
		if (cert) {
			ld->cert_path = copy;
			ld->cert_node = v;
		} else {
			ld->key_path = copy;
			ld->key_node = v;
		}
	} else if (listed(toolkit_tls, key)) {
		web_error(ld, k, "bpfspec's TLS takes cert_file and key_file only",
			  "tls_server_config: '%.64s' is an exporter-toolkit option bpfspec does "
			  "not implement",
			  key);
	} else {
		web_error(ld, k, "tls_server_config takes cert_file and key_file",
			  "unknown key '%.64s' in tls_server_config", key);
	}
}

static void user_pair(web_loader *ld, yaml_node_t *k, yaml_node_t *v)
{
	const char *name = (const char *)k->data.scalar.value, *hash;
	serve_http_web *w = ld->web;
	serve_http_user *u;
	struct crypt_data *cd;
	const char *out;

	if (!*name || strchr(name, ':')) {
		web_error(ld, k, "basic auth cannot carry an empty user name or one with ':'",
			  "user name '%.64s' cannot be used", name);
		return;
	}
	if (!(hash = scalar(ld, k, v)))
		return;
	if (strncmp(hash, "$2a$", 4) != 0 && strncmp(hash, "$2b$", 4) != 0 &&
	    strncmp(hash, "$2y$", 4) != 0) {
		web_error(ld, v, "make one with: htpasswd -nBC 10 USER | cut -d: -f2",
			  "the password of '%.64s' is not a bcrypt hash ($2a$, $2b$ or $2y$)", name);
		return;
	}
	char why[256];
	lazylib_crypt_fn *crypt_fn = lazylib_crypt_load(why, sizeof why);
	if (!crypt_fn) {
		web_error(ld, v, "basic auth checks passwords with libcrypt", "%s", why);
		return;
	}
	/* The hash must be one this libcrypt can check: verify a word. */
	cd = calloc(1, sizeof(*cd));
	out = cd ? crypt_fn("bpfspec", hash, cd) : NULL;
	if (!out || out[0] == '*' || strlen(out) != strlen(hash)) {
		free(cd);
		web_error(ld, v, "copy the whole hash, 60 characters from '$2'",
			  "the bcrypt hash of '%.64s' is malformed", name);
		return;
	}
	free(cd);
	u = realloc(w->users, (w->n_users + 1) * sizeof(*u));
	if (!u) {
		web_error(ld, NULL, NULL, "out of memory");
		return;
	}
	w->users = u;
	u[w->n_users].name = strdup(name);
	u[w->n_users].hash = strdup(hash);
	if (!u[w->n_users].name || !u[w->n_users].hash) {
		free(u[w->n_users].name);
		free(u[w->n_users].hash);
		web_error(ld, NULL, NULL, "out of memory");
		return;
	}
	w->n_users++;
}

static void top_pair(web_loader *ld, yaml_node_t *k, yaml_node_t *v)
{
	const char *key = (const char *)k->data.scalar.value;

	if (strcmp(key, "tls_server_config") == 0) {
		ld->tls_node = k;
		each_pair(ld, v, "tls_server_config", tls_pair);
	} else if (strcmp(key, "basic_auth_users") == 0) {
		each_pair(ld, v, "basic_auth_users", user_pair);
	} else if (listed(toolkit_top, key)) {
		web_error(ld, k, "bpfspec's web config takes tls_server_config and basic_auth_users",
			  "'%.64s' is an exporter-toolkit option bpfspec does not implement", key);
	} else {
		web_error(ld, k, "the web config takes tls_server_config and basic_auth_users",
			  "unknown key '%.64s' in the web config", key);
	}
}

/* Reads the PEM file named at node N (relative to the config's directory). */
static char *read_pem(web_loader *ld, const char *name, yaml_node_t *n, const char *what)
{
	char *dir_copy = NULL, *full = NULL, *pem;
	const char *path = name;
	int e;

	if (name[0] != '/') {
		dir_copy = strdup(ld->src.path);
		if (!dir_copy || asprintf(&full, "%s/%s", dirname(dir_copy), name) < 0) {
			free(dir_copy);
			web_error(ld, NULL, NULL, "out of memory");
			return NULL;
		}
		path = full;
	}
	pem = read_file(path, NULL);
	e = errno;
	if (!pem)
		web_error(ld, n, e == ENOENT ? "relative paths start at the web config's directory"
					     : NULL,
			  "cannot read %s '%.200s': %s", what, path,
			  e == EFBIG ? "larger than 1 MiB" : strerror(e));
	else if (!strstr(pem, "-----BEGIN ")) {
		web_error(ld, n, "give a PEM file (-----BEGIN ...)", "%s '%.200s' is not PEM", what,
			  path);
		free(pem);
		pem = NULL;
	}
	free(full);
	free(dir_copy);
	return pem;
}

static void load_tls(web_loader *ld)
{
	serve_http_web *w = ld->web;

	if (!ld->cert_path && !ld->key_path)
		return;
	if (!ld->cert_path || !ld->key_path) {
		web_error(ld, ld->tls_node, "give both cert_file and key_file",
			  "tls_server_config needs %s too", ld->cert_path ? "key_file" : "cert_file");
		return;
	}
	w->cert_pem = read_pem(ld, ld->cert_path, ld->cert_node, "cert_file");
	w->key_pem = read_pem(ld, ld->key_path, ld->key_node, "key_file");
}

serve_http_web *serve_http_web_load(const char *path)
{
	web_loader ld;
	yaml_parser_t parser;
	size_t len = 0;
	char *text;
	int e;

	memset(&ld, 0, sizeof(ld));
	ld.src.path = path;
	text = read_file(path, &len);
	e = errno;
	if (!text) {
		diag_at(DIAG_ERROR, &ld.src, (diag_loc){ 0, 0, 0, NULL },
			e == ENOENT ? "check the path of the web config file" : NULL,
			"cannot read the web config: %s",
			e == EFBIG ? "larger than 1 MiB" : strerror(e));
		return NULL;
	}
	ld.src.text = text;
	ld.src.len = len;
	ld.web = calloc(1, sizeof(*ld.web));
	if (!ld.web || !(ld.web->path = strdup(path)) || !yaml_parser_initialize(&parser)) {
		diag_error(NULL, "out of memory");
		serve_http_web_free(ld.web);
		free(text);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &ld.doc)) {
		yaml_node_t at = { .start_mark = parser.problem_mark, .end_mark = parser.problem_mark };
		web_error(&ld, &at, "the web config must be valid YAML", "invalid YAML: %s",
			  parser.problem ? parser.problem : "cannot parse");
		yaml_parser_delete(&parser);
		goto done;
	}
	yaml_parser_delete(&parser);
	{
		yaml_node_t *root = yaml_document_get_root_node(&ld.doc);
		if (root)
			each_pair(&ld, root, "the web config", top_pair);
	}
	if (!ld.errors)
		load_tls(&ld);	/* its errors point at nodes of the document */
	yaml_document_delete(&ld.doc);
done:
	free(ld.cert_path);
	free(ld.key_path);
	free(text);
	if (ld.errors) {
		serve_http_web_free(ld.web);
		return NULL;
	}
	return ld.web;
}

void serve_http_web_free(serve_http_web *web)
{
	if (!web)
		return;
	for (size_t i = 0; i < web->n_users; i++) {
		free(web->users[i].name);
		free(web->users[i].hash);
	}
	free(web->users);
	if (web->key_pem) {
		explicit_bzero(web->key_pem, strlen(web->key_pem));
		free(web->key_pem);
	}
	free(web->cert_pem);
	free(web->path);
	free(web);
}

bool serve_http_web_tls(const serve_http_web *web)
{
	return web && web->cert_pem;
}

size_t serve_http_web_users(const serve_http_web *web)
{
	return web ? web->n_users : 0;
}

/* ---- basic auth ---- */

bool sh_ct_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)(i < lb ? b[i] : 0);
	return d == 0;
}

bool sh_web_check(const serve_http_web *web, serve_http_auth_cache *cache, const char *user,
		  const char *pass)
{
	struct crypt_data *cd;
	const char *hash, *out;
	size_t found = SIZE_MAX;
	bool ok;

	if (!web || !web->n_users || !user || !pass)
		return false;
	for (size_t i = 0; i < web->n_users; i++)
		if (sh_ct_equal(user, web->users[i].name) && found == SIZE_MAX)
			found = i;
	/* An unknown user costs the bcrypt of the first user's hash (the
	 * same cost factor, in practice), so that the time of the answer
	 * does not tell which users exist. */
	hash = web->users[found == SIZE_MAX ? 0 : found].hash;
	/* A remembered password answers at once; any other password goes
	 * through bcrypt, so the memory makes no guess cheaper. */
	if (found != SIZE_MAX && cache && found < cache->n && cache->pass[found] &&
	    sh_ct_equal(pass, cache->pass[found]))
		return true;
	/* Loaded when the users were (user_pair): no error is left here. */
	char why[256];
	lazylib_crypt_fn *crypt_fn = lazylib_crypt_load(why, sizeof why);
	cd = crypt_fn ? calloc(1, sizeof(*cd)) : NULL;
	if (!cd)
		return false;
	out = crypt_fn(pass, hash, cd);
	ok = out && out[0] != '*' && sh_ct_equal(out, hash) && found != SIZE_MAX;
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	if (ok && cache && found < cache->n && !cache->pass[found])
		cache->pass[found] = strdup(pass);	/* NULL: checked again next time */
	return ok;
}

void sh_auth_cache_free(serve_http_auth_cache *cache)
{
	for (size_t i = 0; i < cache->n; i++) {
		if (cache->pass[i]) {
			explicit_bzero(cache->pass[i], strlen(cache->pass[i]));
			free(cache->pass[i]);
		}
	}
	free(cache->pass);
	cache->pass = NULL;
	cache->n = 0;
}
