/* symbols — `bpfspec symbols (-p PID | --binary PATH) [GLOB]`: what can be
 * traced in a process or a file.
 *
 * For each object (the executable, then, for -p, every mapped object) it
 * lists the defined functions (mangled and demangled names; .cold and
 * .part fragments, which are no function's entry, are left out) and the
 * USDT probes (provider:name, argument count).  A stripped object is read
 * through its separate debug file when one is found (debuginfo.h), else
 * through .dynsym, and the listing says which.  GLOB (fnmatch) keeps the
 * functions whose mangled name, demangled name, or demangled name without
 * parameters matches it, and the USDT probes whose provider:name does.
 * The libuv version of the target, when it carries libuv, heads the list.
 *
 * Output: text (one tab-separated line per function or probe, after
 * "# " lines about each object) or JSON (-o json; docs/spec.md).
 *
 * --binary lists that file only: its DT_NEEDED libraries are not looked
 * up (start the program and use -p PID to see every mapped object). */
#ifndef BPFSPEC_SYMBOLS_H
#define BPFSPEC_SYMBOLS_H

#include <stdbool.h>

/* Runs the command on ARGV[0..ARGC) ("symbols" first).  Returns the exit
 * status: 0 listed (even when nothing matched GLOB), 2 usage error,
 * 4 target problem (no such pid or file, not ELF), 6 output failed. */
int symbols_main(int argc, char **argv);

/* True when a function NAME (mangled or plain), whose demangled form is
 * DEMANGLED (NULL when not C++), matches GLOB.  Exposed for tests. */
bool symbols_name_matches(const char *glob, const char *name, const char *demangled);

#endif
