/* resolve_tls — where a probe reads TLS plain text (resolve_internal.h):
 * OpenSSL's SSL_read, SSL_write and SSL_free, in the executable (official
 * Node.js builds link OpenSSL statically and export them) or else in a
 * libssl the process maps (Debian's node links libssl.so.3).  They are
 * exported functions: .symtab and .dynsym are searched, never a debug
 * file.  Their absence is no error: the probe goes on without TLS, and
 * a warning says what was searched and what it means. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program/resolve.h"
#include "program/resolve_internal.h"
#include "target/symtab.h"
#include "util/buf.h"
#include "util/diag.h"

const char *const resolve_tls_functions[RESOLVE_TLS_N] = { "SSL_read", "SSL_write", "SSL_free" };

/* Whether OBJECT (a path) is the executable of T or a libssl. */
static bool tls_candidate(const target *t, size_t o)
{
	const char *base = strrchr(t->objects[o], '/');
	base = base ? base + 1 : t->objects[o];
	return o == 0 || fnmatch("libssl.so*", base, 0) == 0;
}

/* Looks the functions up in OBJECT.  Returns true, with RP's TLS fields
 * set, when it has them all; else false, and appends to SEARCHED what it
 * lacks. */
static bool search_tls_object(resolved_probe *rp, const char *object, buf *searched)
{
	symtab_query q[RESOLVE_TLS_N];
	char err[256];
	bool all = true;

	for (size_t k = 0; k < RESOLVE_TLS_N; k++)
		q[k] = (symtab_query){ .name = resolve_tls_functions[k] };
	if (searched->len)
		buf_puts(searched, "; ");
	if (symtab_resolve(object, q, RESOLVE_TLS_N, NULL, err, sizeof err) < 0) {
		buf_printf(searched, "%s (%s)", object, err);
		return false;
	}
	for (size_t k = 0; k < RESOLVE_TLS_N; k++)
		all &= q[k].n_matches > 0;
	if (all) {
		rp->tls_object = object;
		for (size_t k = 0; k < RESOLVE_TLS_N; k++)
			rp->tls_addrs[k] = q[k].matches[0].addr;
	} else {
		buf_printf(searched, "%s has no", object);
		for (size_t k = 0, n = 0; k < RESOLVE_TLS_N; k++)
			if (!q[k].n_matches)
				buf_printf(searched, "%s %s", n++ ? "," : "", q[k].name);
	}
	symtab_query_free(q, RESOLVE_TLS_N);
	return all;
}

/* Sets RP's TLS fields from T's objects, or warns what is missing. */
static void resolve_tls_probe(resolved_probe *rp, const target *t)
{
	buf searched = BUF_INIT;

	for (size_t o = 0; o < t->n_objects; o++)
		if (tls_candidate(t, o) && search_tls_object(rp, t->objects[o], &searched))
			break;
	if (rp->tls_object) {
		diag_verbose("probe '%s': TLS plain text from SSL_read and SSL_write in %s",
			     rp->sp->name, rp->tls_object);
		buf_free(&searched);
		return;
	}
	if (t->pid <= 0)
		buf_puts(&searched, "; libraries are known only from a running process (-p PID)");
	rp->tls_missing = buf_take(&searched);
	diag_warn("probe '%s': HTTPS requests are not measured: no OpenSSL SSL_read, SSL_write "
		  "and SSL_free to read their plain text from (%s); plain-text HTTP still is",
		  rp->sp->name, rp->tls_missing ? rp->tls_missing : "?");
}

void resolve_tls(resolved *r)
{
	for (size_t i = 0; r->tg && i < r->n_probes; i++) {
		resolved_probe *rp = &r->probes[i];
		if (rp->active && spec_kind_needs_of(rp->sp->kind)->tls_functions)
			resolve_tls_probe(rp, r->tg);
	}
}
