/* serve_http_internal — what serve_http.c, serve_http_listen.c and
 * serve_http_web.c share.  Not for other modules. */
#ifndef BPFSPEC_SERVE_HTTP_INTERNAL_H
#define BPFSPEC_SERVE_HTTP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "serve/serve_http.h"

typedef struct serve_http_user {
	char *name;
	char *hash;		/* bcrypt */
} serve_http_user;

struct serve_http_web {
	char *path;		/* as given */
	char *cert_pem;		/* NULL: no TLS */
	char *key_pem;
	serve_http_user *users;
	size_t n_users;
};

/* Remembered passwords, one slot per user of a web config (owned by the
 * server; only its thread touches them). */
typedef struct serve_http_auth_cache {
	char **pass;		/* n_users slots, NULL: nothing remembered */
	size_t n;
} serve_http_auth_cache;

/* True when USER:PASS (either may be NULL: false) is one of WEB's users.
 * Costs one bcrypt unless CACHE remembers the pair; a verified pair is
 * remembered (when memory allows). */
bool sh_web_check(const serve_http_web *web, serve_http_auth_cache *cache, const char *user,
		  const char *pass);

/* Frees the remembered passwords (wiped first). */
void sh_auth_cache_free(serve_http_auth_cache *cache);

/* Constant-time comparison of two NUL-terminated strings: the time
 * depends on the length of A only (the secret side is B). */
bool sh_ct_equal(const char *a, const char *b);

/* Opens a listening TCP socket on ADDR (close-on-exec, non-blocking).
 * Returns the descriptor, or -1 with a sentence in ERR. */
int sh_listen_socket(const serve_http_addr *addr, char *err, size_t errlen);

/* Formats the address of socket FD ("127.0.0.1:41234") into OUT; returns
 * the port, or -1. */
int sh_socket_address(int fd, char *out, size_t outlen);

#endif
