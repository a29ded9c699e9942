/* elf_hash — finds exported symbols by name through an ELF file's
 * .gnu.hash table, as the dynamic loader does: a bucket and a short chain
 * are read, where symtab.c walks every symbol of the file.  For the few
 * names that are known to be exported (libuv's uv_version_string and
 * uv_version, which node exports for its addons), it spares the walk of
 * a table of 100,000 symbols.
 *
 * Every offset read from the file is checked against the section's size:
 * a damaged table gives "no table", never a read out of bounds. */
#ifndef BPFSPEC_ELF_HASH_H
#define BPFSPEC_ELF_HASH_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* Looks up the N NAMES among ELF's dynamic symbols through its .gnu.hash
 * table.  ADDRS[i] is then the value of the defined function symbol
 * NAMES[i] (STT_FUNC or STT_GNU_IFUNC, st_shndx != SHN_UNDEF, value != 0,
 * as symtab.h counts them), or 0 when there is none.  Returns 0, or -1
 * when ELF has no .gnu.hash table it can read (ADDRS all 0): then only a
 * walk of the symbols can tell. */
int elf_hash_lookup(Elf *elf, const char *const *names, size_t n, uint64_t *addrs);

#endif
