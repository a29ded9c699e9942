/* symtab — finds functions in an ELF file's symbol tables (libelf).
 *
 * Both .symtab and .dynsym are searched, local symbols included; only
 * defined function symbols (STT_FUNC, STT_GNU_IFUNC, st_shndx != UNDEF,
 * value != 0) count.  One pass over the tables answers a whole batch of
 * names, so resolving every probe of a spec costs one read of the file.
 *
 * Ownership: symtab_query results are owned by the query array and freed
 * by symtab_query_free; nothing else is allocated for the caller. */
#ifndef BPFSPEC_SYMTAB_H
#define BPFSPEC_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct symtab_match {
	uint64_t addr;		/* st_value: virtual address in the file */
	uint64_t size;		/* st_size (0 when unknown) */
} symtab_match;

typedef struct symtab_query {
	const char *name;	/* in: exact symbol name (borrowed) */
	symtab_match *matches;	/* out: distinct addresses, ascending */
	size_t n_matches;	/* out: 0 when absent */
} symtab_query;

typedef struct symtab_info {
	bool is_elf;
	bool has_symtab;	/* false: the file is stripped */
	bool has_dynsym;
	size_t n_symbols;	/* function symbols seen */
	char build_id[41];	/* hex, "" when the file has none */
} symtab_info;

/* Opens PATH and fills every query in Q[0..NQ) (matches may be empty).
 * INFO (may be NULL) receives facts about the file.
 * Returns 0 on success; -1 when the file cannot be opened or is not a
 * readable ELF file, with a message in ERRBUF (size ERRLEN). */
int symtab_resolve(const char *path, symtab_query *q, size_t nq,
		   symtab_info *info, char *errbuf, size_t errlen);

/* Frees the matches of Q[0..NQ) and resets them; safe on empty queries. */
void symtab_query_free(symtab_query *q, size_t nq);

#endif
