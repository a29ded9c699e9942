/* elf_hash — see elf_hash.h.
 *
 * .gnu.hash: four 32-bit words (nbuckets, symoffset, bloom_size,
 * bloom_shift), bloom_size bloom words (the class's size), nbuckets
 * buckets, then one chain word per symbol from symoffset on.  A bucket
 * holds the first symbol index whose hash falls in it; the chain word of
 * a symbol is its hash with the low bit set on the last of its bucket.
 * The bloom filter only speeds up misses and is not read here. */
#include "target/elf_hash.h"

#include <string.h>

static uint32_t le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What the lookup reads: the table's words and the symbols it indexes. */
typedef struct gnu_table {
	const unsigned char *words;
	uint32_t nbuckets, symoffset;
	size_t buckets_off, chain_off, nchain;
	Elf_Data *syms;		/* .dynsym, translated (gelf_getsym) */
	size_t nsyms, strndx;
} gnu_table;

/* Fills T from ELF's .gnu.hash and the .dynsym it links to.  Returns 0,
 * or -1 when there is none, or it does not fit in its section. */
static int gnu_table_of(Elf *elf, gnu_table *t)
{
	GElf_Ehdr eh;
	GElf_Shdr sh, symsh;
	Elf_Scn *scn = NULL, *symscn;
	Elf_Data *raw;

	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return -1;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_HASH)
			break;
	if (!scn || !(raw = elf_rawdata(scn, NULL)) || !raw->d_buf || raw->d_size < 16 ||
	    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
	    symsh.sh_type != SHT_DYNSYM || symsh.sh_entsize == 0 ||
	    !(t->syms = elf_getdata(symscn, NULL)))
		return -1;
	t->words = raw->d_buf;
	t->nbuckets = le32_at(t->words);
	t->symoffset = le32_at(t->words + 4);
	uint64_t bloom_words = le32_at(t->words + 8);
	uint64_t word = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	uint64_t buckets_off = 16 + bloom_words * word;
	uint64_t chain_off = buckets_off + (uint64_t)t->nbuckets * 4;
	if (t->nbuckets == 0 || chain_off > raw->d_size)
		return -1;
	t->buckets_off = (size_t)buckets_off;
	t->chain_off = (size_t)chain_off;
	t->nchain = (raw->d_size - t->chain_off) / 4;
	t->nsyms = (size_t)(symsh.sh_size / symsh.sh_entsize);
	t->strndx = symsh.sh_link;
	return 0;
}

/* The value of the defined function symbol NAME in T, or 0. */
static uint64_t gnu_find(Elf *elf, const gnu_table *t, const char *name)
{
	uint32_t hash = (uint32_t)elf_gnu_hash(name);	/* libelf's */
	uint64_t idx = le32_at(t->words + t->buckets_off + (size_t)(hash % t->nbuckets) * 4);

	if (idx == 0 || idx < t->symoffset)
		return 0;	/* an empty bucket */
	for (; idx - t->symoffset < t->nchain && idx < t->nsyms && idx <= INT32_MAX; idx++) {
		uint32_t chain = le32_at(t->words + t->chain_off + (size_t)(idx - t->symoffset) * 4);
		GElf_Sym sym;
		const char *sname;
		if ((chain | 1) == (hash | 1) && gelf_getsym(t->syms, (int)idx, &sym) &&
		    (sname = elf_strptr(elf, t->strndx, sym.st_name)) && strcmp(sname, name) == 0 &&
		    (GELF_ST_TYPE(sym.st_info) == STT_FUNC ||
		     GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) &&
		    sym.st_shndx != SHN_UNDEF && sym.st_value != 0)
			return sym.st_value;
		if (chain & 1)
			break;	/* the bucket's last symbol */
	}
	return 0;
}

int elf_hash_lookup(Elf *elf, const char *const *names, size_t n, uint64_t *addrs)
{
	gnu_table t;

	for (size_t i = 0; i < n; i++)
		addrs[i] = 0;
	if (gnu_table_of(elf, &t) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		addrs[i] = gnu_find(elf, &t, names[i]);
	return 0;
}
