/* vdso — names the frames of a process's vDSO.
 *
 * The kernel maps a small shared object of its own, the vDSO, into every
 * process ([vdso] in /proc/PID/maps): clock_gettime, gettimeofday and a
 * few others run there without entering the kernel.  It has no file a
 * symbolizer can read, so bpftrace's ustack prints its frames as bare
 * addresses (0x7ff36daee79d).  This module reads the image from the
 * process itself (/proc/PID/mem, within the mapping's bounds; the image is
 * untrusted and parsed with libelf), or, when that cannot be read, takes
 * bpfspec's own vDSO when the two mappings have the same size (one kernel
 * maps one image into all its processes of one ABI), and names an address
 * by the function symbol that covers it.
 *
 * A cache keeps what was read per process, for the life of one report.
 *
 * Ownership: vdso_names_new returns an owned cache (NULL out of memory);
 * vdso_names_free(NULL) is a no-op. */
#ifndef BPFSPEC_VDSO_H
#define BPFSPEC_VDSO_H

#include <stddef.h>
#include <stdint.h>

typedef struct vdso_names vdso_names;

vdso_names *vdso_names_new(void);
void vdso_names_free(vdso_names *v);

/* Writes "[vdso] NAME" into OUT (size LEN) when ADDR lies in process
 * PID's vDSO inside the function NAME (a global symbol preferred to a
 * weak alias at the same address: __vdso_clock_gettime, not
 * clock_gettime), or "[vdso]" when no symbol covers it (the vDSO exports
 * its entry points only: a helper such as the paravirtual clock's read
 * has no name there).  Returns 1 when named; 0 when ADDR is not in PID's
 * vDSO or PID's maps cannot be read (a process that has exited): OUT is
 * then untouched. */
int vdso_name(vdso_names *v, long pid, uint64_t addr, char *out, size_t len);

#endif
