/* Unit tests for serve_http_web.c: the web config's errors at
 * FILE:LINE:COL, basic auth against bcrypt hashes made here with
 * crypt_gensalt and crypt_r, and TLS with a self-signed certificate made
 * by openssl, requested through curl --cacert. */
#include <check.h>
#include <crypt.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "serve/serve_http.h"
#include "serve/serve_http_internal.h"
#include "serve_http_fixture.h"

#define S(x) ((char *)(x))

/* A bcrypt hash of PASS, cost 5 (fast), with PREFIX ("$2b$" or "$2y$"). */
static char *bcrypt_hash(const char *pass, const char *prefix)
{
	char *salt = crypt_gensalt_ra("$2b$", 5, NULL, 0);
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	char *hash;

	ck_assert_ptr_nonnull(salt);
	ck_assert_ptr_nonnull(cd);
	ck_assert_msg(strncmp(salt, "$2b$05$", 7) == 0, "libcrypt has no bcrypt: %s", salt);
	hash = strdup(crypt_r(pass, salt, cd));
	ck_assert_uint_eq(strlen(hash), 60);
	memcpy(hash, prefix, 4);
	free(cd);
	free(salt);
	return hash;
}

/* Loads TEXT as DIR/web.yml; returns the config or NULL, and what diag
 * printed in *DIAG (owned). */
static serve_http_web *load_text(const char *dir, const char *text, char **diag)
{
	char *path = fx_write(dir, "web.yml", text);
	serve_http_web *web;

	capture_start();
	web = serve_http_web_load(path);
	*diag = capture_end();
	free(path);
	return web;
}

START_TEST(test_web_errors)
{
	static const struct {
		const char *text, *says, *also;
	} cases[] = {
		{ "foo: 1\n", "web.yml:1:1: error: unknown key 'foo' in the web config",
		  "hint: the web config takes tls_server_config and basic_auth_users" },
		{ "tls_server_config:\n  cert_file: a\n  ciphers: x\n",
		  "web.yml:3:3: error: unknown key 'ciphers' in tls_server_config", "^~~~~~~" },
		{ "tls_server_config:\n  min_version: TLS13\n",
		  "web.yml:2:3: error: tls_server_config: 'min_version' is an exporter-toolkit "
		  "option bpfspec does not implement",
		  NULL },
		{ "http_server_config:\n  http2: false\n",
		  "web.yml:1:1: error: 'http_server_config' is an exporter-toolkit option", NULL },
		{ "basic_auth_users:\n  alice: [x\n", "web.yml:3:1: error: invalid YAML: ", NULL },
		{ "basic_auth_users:\n\talice: x\n", "web.yml:2:1: error: invalid YAML: ", NULL },
		{ "basic_auth_users: {}\nbasic_auth_users: {}\n",
		  "web.yml:2:1: error: duplicate key 'basic_auth_users'", NULL },
		{ "basic_auth_users:\n  alice: plaintext\n",
		  "web.yml:2:10: error: the password of 'alice' is not a bcrypt hash",
		  "htpasswd -nBC 10" },
		{ "basic_auth_users:\n  alice: $2y$10$short\n",
		  "web.yml:2:10: error: the bcrypt hash of 'alice' is malformed", NULL },
		{ "basic_auth_users:\n  'a:b': $2y$10$x\n",
		  "web.yml:2:3: error: user name 'a:b' cannot be used", NULL },
		{ "basic_auth_users:\n  alice:\n", "web.yml:2:9: error: alice must be a string",
		  NULL },
		{ "basic_auth_users: x\n",
		  "web.yml:1:19: error: basic_auth_users must be a mapping", NULL },
		{ "- a\n- b\n", "web.yml:1:1: error: the web config must be a mapping", NULL },
		{ "tls_server_config:\n  cert_file: [a]\n",
		  "web.yml:2:14: error: cert_file must be a string", NULL },
		{ "tls_server_config:\n  cert_file: c.pem\n",
		  "web.yml:1:1: error: tls_server_config needs key_file too", NULL },
		{ "tls_server_config:\n  cert_file: no.crt\n  key_file: /nonexistent/no.key\n",
		  "web.yml:2:14: error: cannot read cert_file '",
		  "web.yml:3:13: error: cannot read key_file '/nonexistent/no.key': No such file" },
		{ "tls_server_config:\n  cert_file: web.yml\n  key_file: web.yml\n",
		  "web.yml:2:14: error: cert_file '", "is not PEM" },
		/* Every error of one file in one pass. */
		{ "a: 1\nb: 2\nbasic_auth_users:\n  bob: nohash\n", "web.yml:1:1: error: unknown key 'a'",
		  "web.yml:4:8: error: the password of 'bob'" },
	};
	char *dir = fx_tmpdir();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *diag;
		serve_http_web *web = load_text(dir, cases[i].text, &diag);
		ck_assert_msg(web == NULL, "case %zu loaded", i);
		ck_assert_contains(diag, cases[i].says);
		if (cases[i].also)
			ck_assert_contains(diag, cases[i].also);
		free(diag);
	}
	/* The source line and a caret under the key. */
	char *diag;
	ck_assert_ptr_null(load_text(dir, "basic_auth_users: {}\nfoo: 1\n", &diag));
	ck_assert_contains(diag, "    2 | foo: 1\n");
	ck_assert_contains(diag, "      | ^~~\n");
	free(diag);
	/* Two errors: both printed, both counted. */
	ck_assert_ptr_null(load_text(dir, "a: 1\nb: 2\n", &diag));
	ck_assert_uint_eq(count_of(diag, "error:"), 2);
	free(diag);
	fx_rmdir(dir);
}
END_TEST

START_TEST(test_web_missing_file)
{
	char *diag;

	capture_start();
	ck_assert_ptr_null(serve_http_web_load("/nonexistent/web.yml"));
	diag = capture_end();
	ck_assert_contains(diag, "bpfspec: /nonexistent/web.yml: error: cannot read the web "
				 "config: No such file or directory");
	ck_assert_contains(diag, "hint: check the path of the web config file");
	free(diag);
}
END_TEST

/* An empty config (or one with empty sections) is plain HTTP, no auth. */
START_TEST(test_web_empty)
{
	static const char *const texts[] = { "", "# nothing yet\n", "basic_auth_users:\n",
					     "tls_server_config: {}\nbasic_auth_users: ~\n" };
	char *dir = fx_tmpdir();

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *diag;
		serve_http_web *web = load_text(dir, texts[i], &diag);
		ck_assert_msg(web != NULL, "%s: %s", texts[i], diag);
		ck_assert(!serve_http_web_tls(web));
		ck_assert_uint_eq(serve_http_web_users(web), 0);
		ck_assert_str_eq(diag, "");
		serve_http_web_free(web);
		free(diag);
	}
	serve_http_web_free(NULL);
	fx_rmdir(dir);
}
END_TEST

START_TEST(test_ct_equal)
{
	ck_assert(sh_ct_equal("", ""));
	ck_assert(sh_ct_equal("secret", "secret"));
	ck_assert(!sh_ct_equal("secret", "secreT"));
	ck_assert(!sh_ct_equal("secret", "secret2"));
	ck_assert(!sh_ct_equal("secret2", "secret"));
	ck_assert(!sh_ct_equal("", "x"));
}
END_TEST

/* Writes a web config with users alice ($2b$) and bob ($2y$). */
static serve_http_web *auth_config(const char *dir, const char *tls)
{
	char *a = bcrypt_hash("s3cret", "$2b$"), *b = bcrypt_hash("pa:ss w0rd", "$2y$");
	char *text, *diag;
	serve_http_web *web;

	ck_assert_int_ge(asprintf(&text, "%sbasic_auth_users:\n  alice: %s\n  bob: '%s'\n",
				  tls ? tls : "", a, b),
			 0);
	web = load_text(dir, text, &diag);
	ck_assert_msg(web != NULL, "%s", diag);
	ck_assert_uint_eq(serve_http_web_users(web), 2);
	free(diag);
	free(text);
	free(a);
	free(b);
	return web;
}

START_TEST(test_basic_auth)
{
	static const struct {
		const char *auth;	/* the Authorization header's value */
		int status;
	} cases[] = {
		{ NULL, 401 },
		{ "Basic YWxpY2U6czNjcmV0", 200 },	/* alice:s3cret */
		{ "Basic YWxpY2U6czNjcmV0", 200 },	/* again: remembered */
		{ "Basic YWxpY2U6czNjcmV4", 401 },	/* alice:s3crex */
		{ "Basic YWxpY2U6", 401 },		/* alice: */
		{ "Basic Ym9iOnMzY3JldA==", 401 },	/* bob:s3cret */
		{ "Basic Ym9iOnBhOnNzIHcwcmQ=", 200 },	/* bob:pa:ss w0rd ($2y$) */
		{ "Basic ZXZlOnMzY3JldA==", 401 },	/* eve:s3cret */
		{ "Basic !!!", 401 },
		{ "Bearer YWxpY2U6czNjcmV0", 401 },
	};
	char *dir = fx_tmpdir();
	serve_http_web *web = auth_config(dir, NULL);
	fx_content c = { 0 };
	serve_http *sh = fx_start(&c, web);
	char extra[256], h[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].auth)
			snprintf(extra, sizeof(extra), "Authorization: %s\r\n", cases[i].auth);
		fx_response r = fx_request(serve_http_port(sh), "GET", "/metrics",
					   cases[i].auth ? extra : NULL);
		ck_assert_msg(r.status == cases[i].status, "case %zu: %d", i, r.status);
		if (r.status == 401) {
			ck_assert_str_eq(fx_header(&r, "WWW-Authenticate", h, sizeof(h)),
					 "Basic realm=\"bpfspec\"");
			ck_assert_str_eq(fx_header(&r, "Cache-Control", h, sizeof(h)), "no-store");
			ck_assert_str_eq(fx_header(&r, "X-Content-Type-Options", h, sizeof(h)),
					 "nosniff");
			ck_assert_lacks(r.body, "bpfspec_up");
		} else {
			ck_assert_str_eq(r.body, FX_METRICS);
		}
		fx_response_free(&r);
	}
	/* Every path and method asks for credentials first. */
	fx_response r = fx_request(serve_http_port(sh), "POST", "/nope", NULL);
	ck_assert_int_eq(r.status, 401);
	fx_response_free(&r);
	ck_assert_uint_eq(c.metrics_calls, 3);
	serve_http_stop(sh);
	serve_http_web_free(web);
	fx_rmdir(dir);
}
END_TEST

/* The remembered password answers only for itself. */
START_TEST(test_auth_cache)
{
	char *dir = fx_tmpdir();
	serve_http_web *web = auth_config(dir, NULL);
	char *slots[2] = { NULL, NULL };
	serve_http_auth_cache cache = { slots, 2 };

	ck_assert(!sh_web_check(web, &cache, "alice", "wrong"));
	ck_assert_ptr_null(slots[0]);
	ck_assert(sh_web_check(web, &cache, "alice", "s3cret"));
	ck_assert_str_eq(slots[0], "s3cret");
	ck_assert(sh_web_check(web, &cache, "alice", "s3cret"));
	ck_assert(!sh_web_check(web, &cache, "alice", "s3cre"));
	ck_assert(!sh_web_check(web, &cache, "bob", "s3cret"));
	ck_assert(!sh_web_check(web, &cache, NULL, "s3cret"));
	ck_assert(!sh_web_check(web, &cache, "alice", NULL));
	ck_assert(!sh_web_check(NULL, &cache, "alice", "s3cret"));
	ck_assert(sh_web_check(web, NULL, "bob", "pa:ss w0rd"));
	free(slots[0]);
	serve_http_web_free(web);
	fx_rmdir(dir);
}
END_TEST

/* A self-signed certificate and key in DIR (cert.pem, key.pem, or the
 * names given). */
static void make_cert(const char *dir, const char *cert, const char *key)
{
	char *c, *k;

	ck_assert_int_ge(asprintf(&c, "%s/%s", dir, cert), 0);
	ck_assert_int_ge(asprintf(&k, "%s/%s", dir, key), 0);
	char *const argv[] = { S("openssl"), S("req"), S("-x509"), S("-newkey"), S("ec"),
			       S("-pkeyopt"), S("ec_paramgen_curve:prime256v1"), S("-nodes"),
			       S("-keyout"), k, S("-out"), c, S("-days"), S("2"), S("-subj"),
			       S("/CN=localhost"), S("-addext"),
			       S("subjectAltName=IP:127.0.0.1,DNS:localhost"), NULL };
	ck_assert_msg(fx_run(argv, NULL) == 0, "openssl req failed (is openssl installed?)");
	free(c);
	free(k);
}

START_TEST(test_tls)
{
	char *dir = fx_tmpdir(), *ca, *out = NULL, url[128];
	fx_content c = { 0 };
	serve_http_web *web;
	serve_http *sh;

	make_cert(dir, "cert.pem", "key.pem");
	/* Relative paths: from the web config's directory. */
	web = auth_config(dir, "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n");
	ck_assert(serve_http_web_tls(web));
	sh = fx_start(&c, web);
	ck_assert_int_ge(asprintf(&ca, "%s/cert.pem", dir), 0);
	snprintf(url, sizeof(url), "https://127.0.0.1:%u/metrics", serve_http_port(sh));
	{
		char *const argv[] = { S("curl"), S("-sS"), S("--max-time"), S("10"), S("--cacert"),
				       ca, S("-D"), S("-"), S("-u"), S("alice:s3cret"), url, NULL };
		ck_assert_int_eq(fx_run(argv, &out), 0);
		ck_assert_contains(out, "HTTP/1.1 200");
		ck_assert_contains(out, "Content-Type: text/plain; version=0.0.4; charset=utf-8");
		ck_assert_contains(out, "\r\n\r\n" FX_METRICS);
		free(out);
	}
	{
		char *const argv[] = { S("curl"), S("-sS"), S("--max-time"), S("10"), S("--cacert"),
				       ca, S("-o"), S("/dev/null"), S("-w"), S("%{http_code}"),
				       url, NULL };
		ck_assert_int_eq(fx_run(argv, &out), 0);
		ck_assert_str_eq(out, "401");
		free(out);
	}
	{
		/* Without the CA, curl refuses the certificate. */
		char *const argv[] = { S("curl"), S("-sS"), S("--max-time"), S("10"), url, NULL };
		ck_assert_int_ne(fx_run(argv, NULL), 0);
	}
	/* Plain HTTP to the TLS port gets no HTTP answer; TLS goes on. */
	fx_response r = fx_request(serve_http_port(sh), "GET", "/metrics", NULL);
	ck_assert_int_eq(r.status, 0);
	fx_response_free(&r);
	{
		char *const argv[] = { S("curl"), S("-sS"), S("--max-time"), S("10"), S("--cacert"),
				       ca, S("-u"), S("bob:pa:ss w0rd"), url, NULL };
		ck_assert_int_eq(fx_run(argv, &out), 0);
		ck_assert_str_eq(out, FX_METRICS);
		free(out);
	}
	serve_http_stop(sh);
	serve_http_web_free(web);
	free(ca);
	fx_rmdir(dir);
}
END_TEST

/* A key that is not the certificate's: start fails, naming the address
 * and the web config. */
START_TEST(test_tls_wrong_key)
{
	char *dir = fx_tmpdir(), *diag, err[512] = "";
	fx_content c = { 0 };
	serve_http_web *web;

	make_cert(dir, "cert.pem", "key.pem");
	make_cert(dir, "other.pem", "otherkey.pem");
	web = load_text(dir, "tls_server_config:\n  cert_file: cert.pem\n  key_file: otherkey.pem\n",
			&diag);
	ck_assert_msg(web != NULL, "%s", diag);
	free(diag);
	serve_http_config cfg = { .listen = "127.0.0.1:0", .web = web, .metrics = fx_metrics,
				  .ctx = &c };
	ck_assert_ptr_null(serve_http_start(&cfg, err, sizeof(err)));
	ck_assert_contains(err, "cannot serve TLS on 127.0.0.1:0 with the certificate and key of ");
	ck_assert_contains(err, "web.yml");
	ck_assert_contains(err, "check that key_file is the private key of cert_file");
	serve_http_web_free(web);
	fx_rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("serve_http_web");
	TCase *tc = tcase_create("web");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_web_errors);
	tcase_add_test(tc, test_web_missing_file);
	tcase_add_test(tc, test_web_empty);
	tcase_add_test(tc, test_ct_equal);
	tcase_add_test(tc, test_basic_auth);
	tcase_add_test(tc, test_auth_cache);
	tcase_add_test(tc, test_tls);
	tcase_add_test(tc, test_tls_wrong_key);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
