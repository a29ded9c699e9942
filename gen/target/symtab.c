/* symtab — finds functions in an ELF file's symbol tables (libelf).
 *
 * One pass over .symtab and .dynsym answers a whole batch of names: the
 * query names go into a small open-addressing hash table first, and a
 * 64 Kbit filter on the first two bytes of every query name rejects most
 * symbols (C++ names all start with "_Z") before any hashing is done.
 * Opening the file and walking its tables is symtab_elf.c's.
 *
 * C++ queries ("a::b::f") are few; each keeps its <length><identifier>
 * pieces, and a mangled name is demangled only when it holds them all, in
 * order (std, which mangles as "St", is left out of the pieces). */
#include "target/symtab.h"
#include "target/symtab_internal.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/lazylib.h"

/* A C++ query: which one, and the pieces a mangled name must contain. */
typedef struct cxx_query {
	size_t qi;		/* index into the query array */
	char *pieces;		/* "2v8", "8internal", ... each NUL-terminated */
	size_t n_pieces;
	uint64_t *seen;		/* hashes of the mangled names matched */
	size_t n_seen;
} cxx_query;

/* Growable list of matches of one query. */
typedef struct match_vec {
	symtab_match *v;
	size_t n, cap;
} match_vec;

/* The batch being answered: query names hashed, matches collected. */
typedef struct resolver {
	symtab_query *q;
	size_t nq;
	size_t *slots;		/* query index + 1; 0 = empty */
	size_t mask;		/* number of slots - 1 */
	size_t *dup_next;	/* next query with the same name + 1; 0 = none */
	match_vec *found;	/* one per query */
	unsigned char prefix[65536 / 8];	/* first two bytes of a name */
	size_t n_symbols;
	cxx_query *cxx;		/* the C++ queries */
	size_t n_cxx;
	lazylib_demangle_fn *demangle;	/* loaded when there are C++ queries */
	char *dm_buf;		/* demangler's buffer, reused */
	size_t dm_len;
} resolver;

/* FNV-1a over a NUL-terminated name. */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* Index of the first two bytes of NAME in the prefix filter ("a" → 'a',0). */
static unsigned prefix_key(const char *name)
{
	unsigned char c0 = (unsigned char)name[0];
	unsigned char c1 = c0 ? (unsigned char)name[1] : 0;

	return (unsigned)c0 << 8 | c1;
}

/* Registers query I, a C++ name, with its mangled pieces ("v8::Heap::f"
 * → "2v8", "4Heap", "1f").  Returns 0, or -1 when out of memory. */
static int cxx_add(resolver *r, size_t i)
{
	const char *name = r->q[i].name;
	size_t len = strlen(name);
	/* Each piece grows by at most its length prefix (<= 4 digits here). */
	char *pieces = malloc(2 * len + 16);
	cxx_query *c;
	size_t used = 0, n = 0;

	if (!pieces)
		return -1;
	for (const char *p = name; *p;) {
		const char *end = strstr(p, "::");
		size_t plen = end ? (size_t)(end - p) : strlen(p);

		if (plen && !(plen == 3 && strncmp(p, "std", 3) == 0)) {
			used += (size_t)sprintf(pieces + used, "%zu%.*s", plen,
						(int)plen, p) + 1;
			n++;
		}
		p += plen;
		if (end)
			p += 2;
	}
	c = realloc(r->cxx, (r->n_cxx + 1) * sizeof(*c));
	if (!c) {
		free(pieces);
		return -1;
	}
	r->cxx = c;
	r->cxx[r->n_cxx++] = (cxx_query){ .qi = i, .pieces = pieces, .n_pieces = n };
	return 0;
}

/* Returns 0, or -1 when out of memory. */
static int resolver_init(resolver *r, symtab_query *q, size_t nq)
{
	size_t nslots = 8;

	memset(r, 0, sizeof(*r));
	r->q = q;
	r->nq = nq;
	while (nslots < 2 * nq)
		nslots *= 2;
	r->mask = nslots - 1;
	r->slots = calloc(nslots, sizeof(*r->slots));
	r->dup_next = calloc(nq ? nq : 1, sizeof(*r->dup_next));
	r->found = calloc(nq ? nq : 1, sizeof(*r->found));
	if (!r->slots || !r->dup_next || !r->found)
		return -1;

	for (size_t i = 0; i < nq; i++) {
		const char *name = q[i].name;
		size_t s;

		if (!name || !*name)
			continue;	/* an empty name matches nothing */
		if (strstr(name, "::")) {
			if (cxx_add(r, i) < 0)
				return -1;
			continue;
		}
		s = name_hash(name) & r->mask;
		while (r->slots[s] && strcmp(q[r->slots[s] - 1].name, name) != 0)
			s = (s + 1) & r->mask;
		if (r->slots[s]) {
			/* Same name asked twice: chain it to the first. */
			size_t j = r->slots[s] - 1;

			while (r->dup_next[j])
				j = r->dup_next[j] - 1;
			r->dup_next[j] = i + 1;
		} else {
			r->slots[s] = i + 1;
		}
		unsigned k = prefix_key(name);
		r->prefix[k >> 3] |= (unsigned char)(1u << (k & 7));
	}
	return 0;
}

static void resolver_fini(resolver *r)
{
	if (r->found)
		for (size_t i = 0; i < r->nq; i++)
			free(r->found[i].v);
	free(r->found);
	free(r->slots);
	free(r->dup_next);
	for (size_t i = 0; i < r->n_cxx; i++) {
		free(r->cxx[i].pieces);
		free(r->cxx[i].seen);
	}
	free(r->cxx);
	free(r->dm_buf);
}

/* Returns the index + 1 of the first query named NAME, or 0. */
static size_t resolver_find(const resolver *r, const char *name)
{
	unsigned k = prefix_key(name);
	size_t s;

	if (!(r->prefix[k >> 3] & (1u << (k & 7))))
		return 0;
	s = name_hash(name) & r->mask;
	while (r->slots[s]) {
		if (strcmp(r->q[r->slots[s] - 1].name, name) == 0)
			return r->slots[s];
		s = (s + 1) & r->mask;
	}
	return 0;
}

/* Returns 0, or -1 when out of memory. */
static int match_push(match_vec *m, uint64_t addr, uint64_t size)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 4;
		symtab_match *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -1;
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n].addr = addr;
	m->v[m->n].size = size;
	m->n++;
	return 0;
}

bool symtab_demangled_is(const char *demangled, const char *name)
{
	size_t n = strlen(name);

	return strncmp(demangled, name, n) == 0 &&
	       (demangled[n] == '\0' || demangled[n] == '(');
}

char *symtab_demangle(const char *mangled)
{
	int status = -1;
	char *out;

	/* Called once per symbol by `bpfspec symbols`: loaded once. */
	static lazylib_demangle_fn *demangle;
	char why[256];

	if (strncmp(mangled, "_Z", 2) != 0 ||
	    (!demangle && !(demangle = lazylib_demangle_load(why, sizeof why))))
		return NULL;	/* without libstdc++, names stay mangled */
	out = demangle(mangled, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* True when NAME holds every piece of C, in order. */
static bool cxx_may_match(const cxx_query *c, const char *name)
{
	const char *piece = c->pieces;
	const char *at = name;

	for (size_t k = 0; k < c->n_pieces; k++) {
		size_t plen = strlen(piece);

		at = strstr(at, piece);
		if (!at)
			return false;
		at += plen;
		piece += plen + 1;
	}
	return true;
}

/* Counts NAME in Q's n_names unless C has seen it (a function is in both
 * .symtab and .dynsym).  Returns 0, or -1 when out of memory. */
static int cxx_count_name(cxx_query *c, symtab_query *q, const char *name)
{
	uint64_t h = name_hash(name);
	uint64_t *seen;

	for (size_t i = 0; i < c->n_seen; i++)
		if (c->seen[i] == h)
			return 0;
	seen = realloc(c->seen, (c->n_seen + 1) * sizeof(*seen));
	if (!seen)
		return -1;
	c->seen = seen;
	c->seen[c->n_seen++] = h;
	q->n_names++;
	return 0;
}

/* Demangles NAME into the resolver's buffer.  Returns it, or NULL. */
static const char *resolver_demangle(resolver *r, const char *name)
{
	int status = -1;
	char *out = r->demangle(name, r->dm_buf, &r->dm_len, &status);

	if (out)
		r->dm_buf = out;
	return status == 0 ? out : NULL;
}

/* Matches the mangled NAME against the C++ queries.  Returns 0, or -1
 * when out of memory. */
static int resolver_add_cxx(resolver *r, const char *name, uint64_t addr,
			    uint64_t size)
{
	const char *demangled = NULL;
	bool tried = false;

	/* Cold and partial fragments of a function are not its entry. */
	if (strstr(name, ".cold") || strstr(name, ".part"))
		return 0;
	for (size_t k = 0; k < r->n_cxx; k++) {
		symtab_query *q = &r->q[r->cxx[k].qi];

		if (!cxx_may_match(&r->cxx[k], name))
			continue;
		if (!tried) {
			demangled = resolver_demangle(r, name);
			tried = true;
		}
		if (!demangled || !symtab_demangled_is(demangled, q->name))
			continue;
		if (cxx_count_name(&r->cxx[k], q, name) < 0 ||
		    match_push(&r->found[r->cxx[k].qi], addr, size) < 0)
			return -1;
	}
	return 0;
}

/* Records a defined function symbol NAME at ADDR for every query of that
 * name.  Returns 0, or -1 when out of memory. */
static int resolver_add(void *ctx, const char *name, uint64_t addr,
			uint64_t size, unsigned char st_info)
{
	resolver *r = ctx;

	(void)st_info;
	r->n_symbols++;
	if (r->n_cxx && name[0] == '_' && name[1] == 'Z' &&
	    resolver_add_cxx(r, name, addr, size) < 0)
		return -1;
	for (size_t i = resolver_find(r, name); i; i = r->dup_next[i - 1]) {
		r->q[i - 1].n_names++;
		if (match_push(&r->found[i - 1], addr, size) < 0)
			return -1;
	}
	return 0;
}

static int cmp_match(const void *a, const void *b)
{
	const symtab_match *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Same address: the entry with a size first, so it is the one kept. */
	return (x->size < y->size) - (x->size > y->size);
}

/* Sorts M ascending and drops repeated addresses (the same function seen
 * in .symtab and .dynsym, or under two aliases of one name). */
static void match_finish(match_vec *m)
{
	size_t out = 0;

	if (m->n == 0)
		return;
	qsort(m->v, m->n, sizeof(*m->v), cmp_match);
	for (size_t i = 0; i < m->n; i++)
		if (out == 0 || m->v[out - 1].addr != m->v[i].addr)
			m->v[out++] = m->v[i];
	m->n = out;
}

int symtab_resolve(const char *path, symtab_query *q, size_t nq,
		   symtab_info *info, char *errbuf, size_t errlen)
{
	resolver r;
	symtab_info inf;
	symtab_file f = { .fd = -1 };
	int rc = -1;

	memset(&inf, 0, sizeof(inf));
	if (info)
		*info = inf;
	for (size_t i = 0; i < nq; i++) {
		q[i].matches = NULL;
		q[i].n_matches = 0;
		q[i].n_names = 0;
	}
	if (resolver_init(&r, q, nq) < 0) {
		symtab_set_err(errbuf, errlen, "out of memory");
		goto out;
	}
	if (r.n_cxx && !(r.demangle = lazylib_demangle_load(errbuf, errlen)))
		goto out;	/* a C++ name cannot be matched without it */
	if (symtab_file_open(path, &f, &inf, errbuf, errlen) < 0 ||
	    symtab_file_walk(&f, resolver_add, &r, &inf, errbuf, errlen) < 0)
		goto out;
	inf.n_symbols = r.n_symbols;

	for (size_t i = 0; i < nq; i++) {
		match_finish(&r.found[i]);
		if (r.found[i].n == 0)
			continue;
		q[i].matches = r.found[i].v;
		q[i].n_matches = r.found[i].n;
		r.found[i].v = NULL;
	}
	rc = 0;
out:
	if (info)
		*info = inf;	/* what was learnt, even on failure */
	resolver_fini(&r);
	symtab_file_close(&f);
	return rc;
}

/* Passes symbols on to a symtab_foreach caller. */
typedef struct visitor {
	symtab_visit_fn visit;
	void *ctx;
	size_t n;
} visitor;

static int visitor_sink(void *ctx, const char *name, uint64_t addr,
			uint64_t size, unsigned char st_info)
{
	visitor *v = ctx;
	symtab_symbol sym = { .name = name, .addr = addr, .size = size,
			      .local = GELF_ST_BIND(st_info) == STB_LOCAL };

	v->n++;
	return v->visit(v->ctx, &sym);
}

int symtab_foreach(const char *path, symtab_visit_fn visit, void *ctx,
		   symtab_info *info, char *errbuf, size_t errlen)
{
	visitor v = { .visit = visit, .ctx = ctx };
	symtab_info inf;
	symtab_file f = { .fd = -1 };
	int rc = -1;

	memset(&inf, 0, sizeof(inf));
	if (symtab_file_open(path, &f, &inf, errbuf, errlen) == 0) {
		rc = symtab_file_walk(&f, visitor_sink, &v, &inf, errbuf, errlen);
		if (rc < 0 && errbuf && strcmp(errbuf, "out of memory") == 0)
			symtab_set_err(errbuf, errlen, "stopped");
	}
	inf.n_symbols = v.n;
	if (info)
		*info = inf;
	symtab_file_close(&f);
	return rc;
}

void symtab_query_free(symtab_query *q, size_t nq)
{
	for (size_t i = 0; q && i < nq; i++) {
		free(q[i].matches);
		q[i].matches = NULL;
		q[i].n_matches = 0;
	}
}
