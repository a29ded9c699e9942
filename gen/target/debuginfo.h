/* debuginfo — the separate debug file of a stripped object.
 *
 * When an object lacks .symtab (or a symbol), its functions may live in a
 * debug file installed apart (Debian's PKG-dbgsym).  Candidates, in order:
 *   every --debug-dir DIR:  DIR/.build-id/xx/yyyy.debug, DIR/LINK,
 *                           DIR/OBJDIR/LINK
 *   then inside the process's root (/proc/PID/root, when the object was
 *   reached through it), then on the host:
 *     /usr/lib/debug/.build-id/xx/yyyy.debug, OBJDIR/LINK,
 *     OBJDIR/.debug/LINK, /usr/lib/debug/OBJDIR/LINK
 * where xx/yyyy is the object's build id and LINK its .gnu_debuglink name.
 * A candidate found by build id must carry the same build id; one found
 * by debuglink must have the CRC32 the link records (zlib's crc32).  A
 * candidate that exists but does not match is named, with why, in the
 * list of paths tried and in a warning.  Addresses in the debug file are
 * the object's own link-time addresses: probes go on the object.
 *
 * Ownership: debuginfo_find returns an owned path or NULL; the outcome of
 * debuginfo_resolve owns its strings until debuginfo_outcome_free. */
#ifndef BPFSPEC_DEBUGINFO_H
#define BPFSPEC_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/symtab.h"

/* Adds DIR (copied) to the directories searched first (--debug-dir).
 * Returns 0, or -1 when out of memory. */
int debuginfo_add_dir(const char *dir);

/* Forgets every --debug-dir (for tests). */
void debuginfo_clear_dirs(void);

/* CRC32 (zlib) of the whole file PATH into *CRC.  Returns 0, or -1 with
 * errno set when it cannot be read. */
int debuginfo_file_crc(const char *path, uint32_t *crc);

/* Looks for the debug file of OBJECT, whose build id and debuglink are in
 * INFO.  *TRIED receives an owned list of "PATH (why not)" for every
 * candidate rejected, comma-separated (NULL when none was, or out of
 * memory).  Returns an owned path of a matching file, or NULL (none
 * found, or out of memory). */
char *debuginfo_find(const char *object, const symtab_info *info, char **tried);

/* What debuginfo_resolve learnt. */
typedef struct debuginfo_outcome {
	symtab_info info;	/* the object's own */
	char *debug_file;	/* the debug file searched, NULL when none was */
	bool looked;		/* a debug file was looked for */
	char *tried;		/* candidates rejected, for messages, or NULL */
} debuginfo_outcome;

/* Resolves Q[0..NQ) in OBJECT (as symtab_resolve), then, for the queries
 * it lacks, in its debug file when one is found.  Returns 0, or -1 when
 * OBJECT itself cannot be read (message in ERRBUF).  Free OUT with
 * debuginfo_outcome_free, the queries with symtab_query_free. */
int debuginfo_resolve(const char *object, symtab_query *q, size_t nq,
		      debuginfo_outcome *out, char *errbuf, size_t errlen);

void debuginfo_outcome_free(debuginfo_outcome *out);

/* bpftrace finds an address's function through libbcc, which looks for
 * debug files only in the host's standard places: /usr/lib/debug/
 * .build-id/xx/yyyy.debug, and OBJDIR/LINK, OBJDIR/.debug/LINK,
 * /usr/lib/debug/OBJDIR/LINK with OBJDIR the object's path as given (a
 * /proc/PID/root/... path included).  An address it cannot place in a
 * function is refused unless --unsafe, which bpfspec never passes.
 * Returns true when DEBUG_FILE is one of those places for OBJECT. */
bool debuginfo_tracer_sees(const char *object, const symtab_info *info,
			   const char *debug_file);

/* Writes into HINT (size LEN) what to do when OBJECT's debug file is
 * missing: the build-id path to install, the package hint, --debug-dir. */
void debuginfo_install_hint(const char *object, const symtab_info *info,
			    char *hint, size_t len);

#endif
