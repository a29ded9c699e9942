/* symtab — finds functions in an ELF file's symbol tables (libelf).
 *
 * One pass over .symtab and .dynsym answers a whole batch of names: the
 * query names go into a small open-addressing hash table first, and a
 * 64 Kbit filter on the first two bytes of every query name rejects most
 * symbols (C++ names all start with "_Z") before any hashing is done.
 * The file is mapped (ELF_C_READ_MMAP), so only the pages of the symbol
 * and string tables that are looked at are read. */
#include "symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

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

/* Records a defined function symbol NAME at ADDR for every query of that
 * name.  Returns 0, or -1 when out of memory. */
static int resolver_add(resolver *r, const char *name, uint64_t addr,
			uint64_t size)
{
	r->n_symbols++;
	for (size_t i = resolver_find(r, name); i; i = r->dup_next[i - 1])
		if (match_push(&r->found[i - 1], addr, size) < 0)
			return -1;
	return 0;
}

static bool is_function(unsigned char st_info, uint16_t shndx, uint64_t value)
{
	unsigned type = GELF_ST_TYPE(st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       shndx != SHN_UNDEF && value != 0;
}

/* Walks one SHT_SYMTAB or SHT_DYNSYM section.  Returns 0 (a malformed
 * table is skipped, not fatal), or -1 when out of memory. */
static int scan_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			resolver *r, size_t *nsyms)
{
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
			if (resolver_add(r, strtab + sym[i].st_name,
					 sym[i].st_value, sym[i].st_size) < 0)
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
		if (resolver_add(r, strtab + sym.st_name, sym.st_value,
				 sym.st_size) < 0)
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

int symtab_resolve(const char *path, symtab_query *q, size_t nq,
		   symtab_info *info, char *errbuf, size_t errlen)
{
	resolver r;
	symtab_info inf;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	struct stat st;
	int fd = -1, rc = -1;

	memset(&inf, 0, sizeof(inf));
	if (info)
		*info = inf;
	for (size_t i = 0; i < nq; i++) {
		q[i].matches = NULL;
		q[i].n_matches = 0;
	}
	if (resolver_init(&r, q, nq) < 0) {
		set_err(errbuf, errlen, "out of memory");
		goto out;
	}
	if (!libelf_ready()) {
		set_err(errbuf, errlen, "libelf is out of date: %s",
			elf_errmsg(-1));
		goto out;
	}

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set_err(errbuf, errlen, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		set_err(errbuf, errlen, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(errbuf, errlen, "cannot open: %s",
			S_ISDIR(st.st_mode) ? strerror(EISDIR) :
					      "not a regular file");
		goto out;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		set_err(errbuf, errlen, "%s", elf_errmsg(-1));
		goto out;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		set_err(errbuf, errlen, "not an ELF file");
		goto out;
	}
	inf.is_elf = true;
	(void)elf_errno();	/* forget errors left by earlier files */

	/* libelf quietly sees no sections when their headers lie past the
	 * end of a cut-off file: say so instead of "no such symbol". */
	GElf_Ehdr eh;
	size_t shnum;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) != 0) {
		set_err(errbuf, errlen, "%s", elf_errmsg(-1));
		goto out;
	}
	if (eh.e_shoff != 0 &&
	    (eh.e_shoff > (uint64_t)st.st_size ||
	     (uint64_t)eh.e_shentsize * (shnum ? shnum : eh.e_shnum) >
		     (uint64_t)st.st_size - eh.e_shoff)) {
		set_err(errbuf, errlen,
			"truncated ELF file: section headers past its end");
		goto out;
	}

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		size_t nsyms;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if (scan_symbols(elf, scn, &sh, &r, &nsyms) < 0) {
			set_err(errbuf, errlen, "out of memory");
			goto out;
		}
		if (nsyms > 1) {	/* entry 0 is always the null symbol */
			if (sh.sh_type == SHT_SYMTAB)
				inf.has_symtab = true;
			else
				inf.has_dynsym = true;
		}
	}
	if (elf_errno() != 0) {
		/* A section header could not be read: the file is damaged. */
		set_err(errbuf, errlen, "%s", elf_errmsg(-1));
		goto out;
	}
	find_build_id(elf, inf.build_id);
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
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
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
