/* symtab_internal — what symtab.c (a batch of queries, matched against
 * each symbol) and symtab_elf.c (opening an ELF file and walking its
 * symbol tables) share.  Not for other modules. */
#ifndef BPFSPEC_SYMTAB_INTERNAL_H
#define BPFSPEC_SYMTAB_INTERNAL_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "target/symtab.h"

/* Receives each defined function symbol of a table (NAME borrowed for
 * the call).  Returns 0 to go on, -1 to stop the walk. */
typedef int (*symtab_sink)(void *ctx, const char *name, uint64_t addr,
			   uint64_t size, unsigned char st_info);

/* An open ELF file. */
typedef struct symtab_file {
	int fd;
	uint64_t size;		/* of the file */
	Elf *elf;
	GElf_Ehdr eh;
} symtab_file;

/* Opens PATH as an ELF file into F, marking INF->is_elf.  Returns 0, or
 * -1 with a message in ERRBUF (F is then closed). */
int symtab_file_open(const char *path, symtab_file *f, symtab_info *inf,
		     char *errbuf, size_t errlen);

/* Feeds every function symbol of F's tables to SINK and fills the rest of
 * INF.  Returns 0, or -1 with a message in ERRBUF ("out of memory" when
 * SINK stopped the walk). */
int symtab_file_walk(symtab_file *f, symtab_sink sink, void *ctx,
		     symtab_info *inf, char *errbuf, size_t errlen);

/* Closes F; safe on a file that is not open (fd -1, no Elf). */
void symtab_file_close(symtab_file *f);

/* Formats a message into ERRBUF (size ERRLEN; either may be NULL/0). */
void symtab_set_err(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
