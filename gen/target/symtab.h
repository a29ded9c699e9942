/* symtab — finds functions in an ELF file's symbol tables (libelf).
 *
 * Both .symtab and .dynsym are searched, local symbols included; only
 * defined function symbols (STT_FUNC, STT_GNU_IFUNC, st_shndx != UNDEF,
 * value != 0) count.  One pass over the tables answers a whole batch of
 * names, so resolving every probe of a spec costs one read of the file.
 *
 * A query name with "::" (v8::internal::Heap::CollectGarbage) is a C++
 * name: it matches every mangled symbol (_Z...) whose demangled name,
 * without its parameter list, equals it (overloads, const methods and
 * clones such as .isra; .cold and .part fragments are not entries and
 * never match).  Mangled names are filtered by their <length><identifier>
 * pieces before any is demangled (__cxa_demangle from libstdc++).
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
	size_t n_names;		/* out: C++ queries: distinct mangled names
				 * that matched; others: symbol entries */
	bool in_debug_file;	/* out (debuginfo_resolve): found in the
				 * object's separate debug file */
} symtab_query;

typedef struct symtab_info {
	bool is_elf;
	bool has_symtab;	/* false: the file is stripped */
	bool has_dynsym;
	size_t n_symbols;	/* function symbols seen */
	char build_id[41];	/* hex, "" when the file has none */
	char debuglink[256];	/* .gnu_debuglink file name, "" when none */
	uint32_t debuglink_crc;	/* its CRC32 of the debug file */
} symtab_info;

/* One function symbol, as symtab_foreach shows it. */
typedef struct symtab_symbol {
	const char *name;	/* borrowed for the callback's duration */
	uint64_t addr;
	uint64_t size;
	bool local;		/* STB_LOCAL */
} symtab_symbol;

/* Called for each defined function symbol; returns 0 to go on, -1 to stop
 * (symtab_foreach then returns -1 with "stopped" in its error). */
typedef int (*symtab_visit_fn)(void *ctx, const symtab_symbol *sym);

/* Opens PATH and fills every query in Q[0..NQ) (matches may be empty).
 * INFO (may be NULL) receives facts about the file.
 * Returns 0 on success; -1 when the file cannot be opened or is not a
 * readable ELF file, with a message in ERRBUF (size ERRLEN). */
int symtab_resolve(const char *path, symtab_query *q, size_t nq,
		   symtab_info *info, char *errbuf, size_t errlen);

/* Calls VISIT for every defined function symbol of PATH (.symtab, then
 * .dynsym: a function in both is seen twice).  INFO as symtab_resolve.
 * Returns 0, or -1 with a message in ERRBUF. */
int symtab_foreach(const char *path, symtab_visit_fn visit, void *ctx,
		   symtab_info *info, char *errbuf, size_t errlen);

/* For tests: false reads every table through libelf (elf_getdata), true
 * (the default) maps native 64-bit tables and walks them a slice at a
 * time.  Both must see the same symbols. */
void symtab_set_own_mapping(bool on);

/* For tests: how many tables were walked through bpfspec's own mapping
 * so far. */
size_t symtab_own_mapping_walks(void);

/* Parses the contents of a .gnu_debuglink section (a NUL-terminated file
 * name, padding to 4 bytes, a 4-byte CRC32 in the file's byte order).
 * Returns 0 with NAME (size LEN) and *CRC set, or -1 when malformed
 * (no NUL, empty, a '/' in the name, too long, or no room for the CRC). */
int symtab_parse_debuglink(const void *data, size_t size, bool big_endian,
			   char *name, size_t len, uint32_t *crc);

/* True when demangled name DEMANGLED, without its parameter list, is
 * NAME ("a::b::f(int) const" and "a::b::f" match). */
bool symtab_demangled_is(const char *demangled, const char *name);

/* Demangles MANGLED into an owned string, or NULL when it is not a C++
 * name (or memory runs out). */
char *symtab_demangle(const char *mangled);

/* Frees the matches of Q[0..NQ) and resets them; safe on empty queries. */
void symtab_query_free(symtab_query *q, size_t nq);

#endif
