/* symtab — finds functions in an ELF file's symbol tables (libelf).
 *
 * One pass over .symtab and .dynsym answers a whole batch of names: the
 * query names go into a small open-addressing hash table first, and a
 * 64 Kbit filter on the first two bytes of every query name rejects most
 * symbols (C++ names all start with "_Z") before any hashing is done.
 * The file is mapped (ELF_C_READ_MMAP), so only the pages of the symbol
 * and string tables that are looked at are read.  A native 64-bit table
 * is read through a mapping of its own instead, a slice of symbols at a
 * time, and the pages read are given back after each slice (they stay in
 * the page cache): node's tables are 17 MB, bpfspec's memory is not.
 * Names are not laid out in symbol order, so each slice faults some of
 * the string pages in again: on node this costs about 10 ms more than
 * keeping everything mapped (9 -> 17-21 ms for a whole `gen`), for a peak
 * of 9 MiB instead of 21 MiB.
 *
 * C++ queries ("a::b::f") are few; each keeps its <length><identifier>
 * pieces, and a mangled name is demangled only when it holds them all, in
 * order (std, which mangles as "St", is left out of the pieces). */
#include "target/symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/lazylib.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* A C++ query: which one, and the pieces a mangled name must contain. */
typedef struct cxx_query {
	size_t qi;		/* index into the query array */
	char *pieces;		/* "2v8", "8internal", ... each NUL-terminated */
	size_t n_pieces;
	uint64_t *seen;		/* hashes of the mangled names matched */
	size_t n_seen;
} cxx_query;

/* Receives each defined function symbol of a table. */
typedef int (*sym_sink)(void *ctx, const char *name, uint64_t addr,
			uint64_t size, unsigned char st_info);

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

static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

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

static bool is_function(unsigned char st_info, uint16_t shndx, uint64_t value)
{
	unsigned type = GELF_ST_TYPE(st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       shndx != SHN_UNDEF && value != 0;
}

/* A read-only mapping of [OFF, OFF+SIZE) of a file: BASE is the page
 * boundary it starts at, P the first byte asked for. */
typedef struct file_window {
	void *base;
	size_t len;
	const char *p;
} file_window;

static bool window_map(int fd, uint64_t off, uint64_t size, uint64_t file_size,
		       file_window *w)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t start = off / page * page;

	w->base = NULL;
	if (size == 0 || off > file_size || size > file_size - off ||
	    off - start + size > SIZE_MAX)
		return false;
	w->len = (size_t)(off - start + size);
	w->base = mmap(NULL, w->len, PROT_READ, MAP_PRIVATE, fd, (off_t)start);
	if (w->base == MAP_FAILED) {
		w->base = NULL;
		return false;
	}
	w->p = (const char *)w->base + (off - start);
	return true;
}

/* Gives back the pages of W that were read; they fault in again from
 * the page cache if read again. */
static void window_release(file_window *w)
{
	if (w->base)
		madvise(w->base, w->len, MADV_DONTNEED);
}

static void window_unmap(file_window *w)
{
	if (w->base)
		munmap(w->base, w->len);
	w->base = NULL;
}

static bool own_mapping = true;
static size_t own_mapping_walks;

void symtab_set_own_mapping(bool on)
{
	own_mapping = on;
}

size_t symtab_own_mapping_walks(void)
{
	return own_mapping_walks;
}

/* Symbols per slice between two window_release calls: 192 KiB of
 * entries, and the names they point at. */
#define SYMS_PER_SLICE 8192

/* The fast path of scan_symbols for a 64-bit table in the host's byte
 * order: the table and its strings are mapped here, not by libelf, and
 * walked a slice at a time.  Returns 1 when it walked the table, 0 when it
 * could not map it (the caller goes through libelf), -1 when out of
 * memory. */
static int scan_symbols_mapped(Elf *elf, int fd, uint64_t file_size, const GElf_Ehdr *eh,
			       const GElf_Shdr *sh, sym_sink sink, void *ctx, size_t *nsyms)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const unsigned char host_data = ELFDATA2LSB;
#else
	const unsigned char host_data = ELFDATA2MSB;
#endif
	Elf_Scn *str_scn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr ssh;
	file_window syms, strs;
	int rc = 1;

	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != host_data ||
	    sh->sh_entsize != sizeof(Elf64_Sym) || !str_scn || !gelf_getshdr(str_scn, &ssh) ||
	    ssh.sh_type != SHT_STRTAB)
		return 0;
	if (!window_map(fd, sh->sh_offset, sh->sh_size, file_size, &syms))
		return 0;
	if (!window_map(fd, ssh.sh_offset, ssh.sh_size, file_size, &strs)) {
		window_unmap(&syms);
		return 0;
	}
	const Elf64_Sym *sym = (const Elf64_Sym *)(const void *)syms.p;
	const char *strtab = strs.p;
	size_t strsz = (size_t)ssh.sh_size;
	size_t n = (size_t)(sh->sh_size / sizeof(Elf64_Sym));

	/* Names are looked at with plain string functions: the table must
	 * end in NUL so that none can run past it.  (A mapping at an offset
	 * not aligned for Elf64_Sym goes through libelf, which copies.) */
	if (strtab[strsz - 1] != '\0' || ((uintptr_t)sym % _Alignof(Elf64_Sym)) != 0) {
		rc = strtab[strsz - 1] != '\0' ? 1 : 0;
		goto out;
	}
	*nsyms = n;
	own_mapping_walks++;
	for (size_t i = 0; i < n; i++) {
		if (i % SYMS_PER_SLICE == 0 && i > 0) {
			window_release(&syms);
			window_release(&strs);
		}
		if (!is_function(sym[i].st_info, sym[i].st_shndx, sym[i].st_value) ||
		    sym[i].st_name >= strsz)
			continue;
		if (sink(ctx, strtab + sym[i].st_name, sym[i].st_value, sym[i].st_size,
			 sym[i].st_info) < 0) {
			rc = -1;
			break;
		}
	}
out:
	window_unmap(&syms);
	window_unmap(&strs);
	return rc;
}

/* Walks one SHT_SYMTAB or SHT_DYNSYM section.  Returns 0 (a malformed
 * table is skipped, not fatal), or -1 when out of memory. */
static int scan_symbols(Elf *elf, int fd, uint64_t file_size, const GElf_Ehdr *eh,
			Elf_Scn *scn, const GElf_Shdr *sh, sym_sink sink, void *ctx,
			size_t *nsyms)
{
	*nsyms = 0;
	if (own_mapping && sh->sh_type != SHT_NOBITS) {
		int mapped = scan_symbols_mapped(elf, fd, file_size, eh, sh, sink, ctx, nsyms);
		if (mapped != 0)
			return mapped < 0 ? -1 : 0;
	}
	Elf_Scn *str_scn = elf_getscn(elf, sh->sh_link);
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Data *strs = str_scn ? elf_getdata(str_scn, NULL) : NULL;
	const char *strtab;
	size_t strsz, n;

	*nsyms = 0;
	if (!data || !strs || !strs->d_buf || strs->d_size == 0 ||
	    sh->sh_entsize == 0)
		return 0;
	strtab = strs->d_buf;
	strsz = strs->d_size;
	/* Names are looked at with plain string functions: the table must
	 * end in NUL so that none can run past it. */
	if (strtab[strsz - 1] != '\0')
		return 0;
	n = data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	*nsyms = n;

	if (gelf_getclass(elf) == ELFCLASS64 && data->d_type == ELF_T_SYM) {
		/* Fast path: the translated data is an array of Elf64_Sym. */
		const Elf64_Sym *sym = data->d_buf;

		for (size_t i = 0; i < n; i++) {
			if (!is_function(sym[i].st_info, sym[i].st_shndx,
					 sym[i].st_value) ||
			    sym[i].st_name >= strsz)
				continue;
			if (sink(ctx, strtab + sym[i].st_name, sym[i].st_value,
				 sym[i].st_size, sym[i].st_info) < 0)
				return -1;
		}
		return 0;
	}

	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (!is_function(sym.st_info, sym.st_shndx, sym.st_value) ||
		    sym.st_name >= strsz)
			continue;
		if (sink(ctx, strtab + sym.st_name, sym.st_value, sym.st_size,
			 sym.st_info) < 0)
			return -1;
	}
	return 0;
}

/* Looks for NT_GNU_BUILD_ID in DATA (a run of notes) and writes it in hex
 * into OUT.  Returns true when found. */
static bool note_build_id(Elf_Data *data, char out[41])
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *base = data->d_buf;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(base + name_off, "GNU", 4) == 0 && nh.n_descsz > 0) {
			size_t len = nh.n_descsz;

			if (len > 20)
				len = 20;	/* keep what fits in 40 hex digits */
			for (size_t i = 0; i < len; i++)
				snprintf(out + 2 * i, 3, "%02x", base[desc_off + i]);
			out[2 * len] = '\0';
			return true;
		}
		off = next;
	}
	return false;
}

/* Fills OUT with the build id from SHT_NOTE sections, or from PT_NOTE
 * segments when the file has no section headers; "" when there is none. */
static void find_build_id(Elf *elf, char out[41])
{
	Elf_Scn *scn = NULL;
	size_t nphdr;

	out[0] = '\0';
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && note_build_id(data, out))
			return;
	}
	if (elf_getphdrnum(elf, &nphdr) != 0)
		return;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
					    ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 :
							      ELF_T_NHDR);
		if (data && note_build_id(data, out))
			return;
	}
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

static bool libelf_ready(void)
{
	static int state;	/* 0 unknown, 1 ok, -1 mismatch */

	if (state == 0)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

int symtab_parse_debuglink(const void *data, size_t size, bool big_endian,
			   char *name, size_t len, uint32_t *crc)
{
	const unsigned char *d = data;
	const unsigned char *nul = size ? memchr(d, '\0', size) : NULL;
	size_t nlen, crc_off;

	if (!nul || nul == d)
		return -1;
	nlen = (size_t)(nul - d);
	crc_off = (nlen + 1 + 3) & ~(size_t)3;
	if (nlen >= len || crc_off > size || size - crc_off < 4 ||
	    memchr(d, '/', nlen))
		return -1;
	memcpy(name, d, nlen + 1);
	d += crc_off;
	*crc = big_endian ? (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
				    (uint32_t)d[2] << 8 | d[3]
			  : (uint32_t)d[3] << 24 | (uint32_t)d[2] << 16 |
				    (uint32_t)d[1] << 8 | d[0];
	return 0;
}

/* Fills INFO's debuglink from a .gnu_debuglink section, if any. */
static void find_debuglink(Elf *elf, const GElf_Ehdr *eh, symtab_info *inf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	inf->debuglink[0] = '\0';
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debuglink") != 0)
			continue;
		data = elf_rawdata(scn, NULL);
		if (!data || !data->d_buf ||
		    symtab_parse_debuglink(data->d_buf, data->d_size,
					   eh->e_ident[EI_DATA] == ELFDATA2MSB,
					   inf->debuglink, sizeof(inf->debuglink),
					   &inf->debuglink_crc) < 0)
			inf->debuglink[0] = '\0';
		return;
	}
}

/* An open ELF file. */
typedef struct elf_file {
	int fd;
	uint64_t size;		/* of the file */
	Elf *elf;
	GElf_Ehdr eh;
} elf_file;

static void elf_file_close(elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Opens PATH as an ELF file into F, marking INF->is_elf.  Returns 0, or
 * -1 with a message in ERRBUF (F is then closed). */
static int elf_file_open(const char *path, elf_file *f, symtab_info *inf,
			 char *errbuf, size_t errlen)
{
	struct stat st;
	size_t shnum;

	f->fd = -1;
	f->elf = NULL;
	if (!libelf_ready()) {
		set_err(errbuf, errlen, "libelf is out of date: %s",
			elf_errmsg(-1));
		return -1;
	}
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) < 0) {
		set_err(errbuf, errlen, "cannot open: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(errbuf, errlen, "cannot open: %s",
			S_ISDIR(st.st_mode) ? strerror(EISDIR) :
					      "not a regular file");
		goto fail;
	}
	f->size = (uint64_t)st.st_size;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf) {
		set_err(errbuf, errlen, "%s", elf_errmsg(-1));
		goto fail;
	}
	if (elf_kind(f->elf) != ELF_K_ELF) {
		set_err(errbuf, errlen, "not an ELF file");
		goto fail;
	}
	inf->is_elf = true;
	(void)elf_errno();	/* forget errors left by earlier files */

	/* libelf quietly sees no sections when their headers lie past the
	 * end of a cut-off file: say so instead of "no such symbol". */
	if (!gelf_getehdr(f->elf, &f->eh) || elf_getshdrnum(f->elf, &shnum) != 0) {
		set_err(errbuf, errlen, "%s", elf_errmsg(-1));
		goto fail;
	}
	if (f->eh.e_shoff != 0 &&
	    (f->eh.e_shoff > (uint64_t)st.st_size ||
	     (uint64_t)f->eh.e_shentsize * (shnum ? shnum : f->eh.e_shnum) >
		     (uint64_t)st.st_size - f->eh.e_shoff)) {
		set_err(errbuf, errlen,
			"truncated ELF file: section headers past its end");
		goto fail;
	}
	return 0;
fail:
	elf_file_close(f);
	return -1;
}

/* Feeds every function symbol of F's tables to SINK and fills the rest of
 * INF.  Returns 0, or -1 with a message in ERRBUF. */
static int elf_file_walk(elf_file *f, sym_sink sink, void *ctx,
			 symtab_info *inf, char *errbuf, size_t errlen)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		GElf_Shdr sh;
		size_t nsyms;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if (scan_symbols(f->elf, f->fd, f->size, &f->eh, scn, &sh, sink, ctx,
				 &nsyms) < 0) {
			set_err(errbuf, errlen, "out of memory");
			return -1;
		}
		if (nsyms > 1) {	/* entry 0 is always the null symbol */
			if (sh.sh_type == SHT_SYMTAB)
				inf->has_symtab = true;
			else
				inf->has_dynsym = true;
		}
	}
	if (elf_errno() != 0) {
		/* A section header could not be read: the file is damaged. */
		set_err(errbuf, errlen, "%s", elf_errmsg(-1));
		return -1;
	}
	find_build_id(f->elf, inf->build_id);
	find_debuglink(f->elf, &f->eh, inf);
	return 0;
}

int symtab_resolve(const char *path, symtab_query *q, size_t nq,
		   symtab_info *info, char *errbuf, size_t errlen)
{
	resolver r;
	symtab_info inf;
	elf_file f = { .fd = -1 };
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
		set_err(errbuf, errlen, "out of memory");
		goto out;
	}
	if (r.n_cxx && !(r.demangle = lazylib_demangle_load(errbuf, errlen)))
		goto out;	/* a C++ name cannot be matched without it */
	if (elf_file_open(path, &f, &inf, errbuf, errlen) < 0 ||
	    elf_file_walk(&f, resolver_add, &r, &inf, errbuf, errlen) < 0)
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
	elf_file_close(&f);
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
	elf_file f = { .fd = -1 };
	int rc = -1;

	memset(&inf, 0, sizeof(inf));
	if (elf_file_open(path, &f, &inf, errbuf, errlen) == 0) {
		rc = elf_file_walk(&f, visitor_sink, &v, &inf, errbuf, errlen);
		if (rc < 0 && errbuf && strcmp(errbuf, "out of memory") == 0)
			set_err(errbuf, errlen, "stopped");
	}
	inf.n_symbols = v.n;
	if (info)
		*info = inf;
	elf_file_close(&f);
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
