/* lazylib — shared libraries that only some commands need, loaded on
 * first use so that every other command maps none of them.
 *
 * `bpfspec run` is what an SRE starts on a busy host, and its resident
 * size is a goal (docs/bench.md).  libmicrohttpd brings GnuTLS and ten
 * more libraries (about 3 MiB resident once mapped), libstdc++ about
 * 1 MiB: serve alone needs the first and libcrypt, a C++ symbol query
 * alone the demangler.  Each loader opens its library once (thread-safe)
 * and returns its function table, or NULL with ERR saying which library
 * and which Debian package to install. */
#ifndef BPFSPEC_LAZYLIB_H
#define BPFSPEC_LAZYLIB_H

#include <stddef.h>

#include <crypt.h>

/* libmicrohttpd's functions that serve_http calls: lazylib_mhd.h. */
typedef struct lazylib_mhd lazylib_mhd;
const lazylib_mhd *lazylib_mhd_load(char *err, size_t errlen);

/* libcrypt's crypt_r, for the web config's bcrypt hashes. */
typedef __typeof__(crypt_r) lazylib_crypt_fn;
lazylib_crypt_fn *lazylib_crypt_load(char *err, size_t errlen);

/* libstdc++'s __cxa_demangle (C linkage; <cxxabi.h> is a C++ header). */
typedef char *lazylib_demangle_fn(const char *mangled, char *buf, size_t *len, int *status);
lazylib_demangle_fn *lazylib_demangle_load(char *err, size_t errlen);

/* Opens SONAME once and resolves N NAMES into SLOTS (function pointers,
 * through void * as POSIX allows).  Returns 0, or -1 with ERR naming the
 * library and PACKAGE.  Not thread-safe by itself: the loaders above
 * call it under a lock. */
int lazylib_open(const char *soname, const char *package, const char *const *names,
		 void **slots, size_t n, char *err, size_t errlen);

#endif
