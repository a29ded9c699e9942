/* usdt — lists the USDT (statically defined tracing) probes of an ELF file.
 *
 * The probes are the notes of the file's .note.stapsdt section, read
 * through libbcc (bcc_usdt_new_frompath, bcc_usdt_foreach).  Each probe is
 * reported once, with its number of locations (one per place the compiler
 * left the probe, inlined copies included) and the arguments of its first
 * location: their size in bytes and whether they are signed, as the note's
 * argument string says ("-4@%eax": 4 bytes, signed).
 *
 * Ownership: usdt_list fills *OUT with an owned array that
 * usdt_list_free releases (with every string in it); usdt_list_free(NULL, 0)
 * is a no-op.  Nothing else is allocated for the caller. */
#ifndef BPFSPEC_USDT_H
#define BPFSPEC_USDT_H

#include <stdbool.h>
#include <stddef.h>

/* usdt_list's results besides 0 (success, at least one probe). */
#define USDT_ERROR (-1)		/* the file cannot be read or is not ELF */
#define USDT_NONE (-2)		/* a readable ELF file without USDT probes */

typedef struct usdt_arg {
	int size;		/* bytes: 1, 2, 4 or 8; 0 when unknown */
	bool is_signed;		/* meaningful only when size > 0 */
} usdt_arg;

typedef struct usdt_probe {
	char *provider;		/* e.g. "node" */
	char *name;		/* e.g. "http__server__request" */
	size_t n_locations;	/* >= 1 */
	int n_args;		/* 0..12 */
	usdt_arg *args;		/* n_args entries (NULL when n_args is 0) */
} usdt_probe;

/* Lists the USDT probes of the ELF file PATH, sorted by provider then
 * name, into *OUT (*N entries).
 * Returns 0 on success (*N >= 1); USDT_NONE when the file has no USDT
 * probes; USDT_ERROR when it cannot be opened or is not an ELF file, or
 * memory ran out.  On every failure *OUT is NULL, *N is 0 and ERR (size
 * ERRLEN) holds a message naming PATH and saying what to do. */
int usdt_list(const char *path, usdt_probe **out, size_t *n, char *err, size_t errlen);

/* Returns the probe PROVIDER:NAME of P[0..N) (borrowed), or NULL. */
const usdt_probe *usdt_find(const usdt_probe *p, size_t n, const char *provider,
			    const char *name);

/* Frees P[0..N) and every string in it; usdt_list_free(NULL, 0) is a no-op. */
void usdt_list_free(usdt_probe *p, size_t n);

#endif
