/* lazylib — libraries loaded on first use (lazylib.h). */
#include "util/lazylib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "util/lazylib_mhd.h"

int lazylib_open(const char *soname, const char *package, const char *const *names,
		 void **slots, size_t n, char *err, size_t errlen)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "cannot load %s (%s); install it: apt-get install %s",
			 soname, dlerror(), package);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		slots[i] = dlsym(h, names[i]);
		if (!slots[i]) {
			snprintf(err, errlen, "%s has no %s: reinstall it (apt-get install "
				 "--reinstall %s)", soname, names[i], package);
			dlclose(h);
			memset(slots, 0, n * sizeof *slots);
			return -1;
		}
	}
	return 0;	/* kept open for the life of the process */
}

/* One library's state: loaded once, its error kept for later callers. */
typedef struct lazy_state {
	pthread_mutex_t lock;
	int tried;		/* 0: not yet; 1: loaded; -1: failed */
	char err[256];
} lazy_state;

/* Loads through LOAD(CTX) under S's lock the first time; then answers as
 * the first time did. */
static int lazy_once(lazy_state *s, int (*load)(void *, char *, size_t), void *ctx, char *err,
		     size_t errlen)
{
	pthread_mutex_lock(&s->lock);
	if (!s->tried)
		s->tried = load(ctx, s->err, sizeof s->err) == 0 ? 1 : -1;
	int ok = s->tried == 1;
	pthread_mutex_unlock(&s->lock);
	if (!ok)
		snprintf(err, errlen, "%s", s->err);
	return ok ? 0 : -1;
}

/* ---- libmicrohttpd ---- */

static lazylib_mhd mhd;
static lazy_state mhd_state = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int load_mhd(void *ctx, char *err, size_t errlen)
{
	static const char *const names[] = {
		"MHD_start_daemon", "MHD_stop_daemon", "MHD_is_feature_supported",
		"MHD_create_response_from_buffer", "MHD_add_response_header",
		"MHD_queue_response", "MHD_destroy_response", "MHD_lookup_connection_value",
		"MHD_basic_auth_get_username_password", "MHD_queue_basic_auth_fail_response",
		"MHD_free",
	};
	void *slots[sizeof names / sizeof *names];
	_Static_assert(sizeof slots == sizeof mhd, "a name per function of lazylib_mhd");
	(void)ctx;
	if (lazylib_open("libmicrohttpd.so.12", "libmicrohttpd12", names, slots,
			 sizeof names / sizeof *names, err, errlen) < 0)
		return -1;
	memcpy(&mhd, slots, sizeof mhd);	/* in the order of the struct */
	return 0;
}

const lazylib_mhd *lazylib_mhd_load(char *err, size_t errlen)
{
	return lazy_once(&mhd_state, load_mhd, NULL, err, errlen) == 0 ? &mhd : NULL;
}

/* ---- libraries of one function: libcrypt, libstdc++ ---- */

typedef struct lazy_fn {
	const char *soname, *package, *name;
	void *fn;
	lazy_state state;
} lazy_fn;

static int load_fn(void *ctx, char *err, size_t errlen)
{
	lazy_fn *l = ctx;
	return lazylib_open(l->soname, l->package, &l->name, &l->fn, 1, err, errlen);
}

static lazy_fn crypt_lib = { "libcrypt.so.1", "libcrypt1", "crypt_r", NULL,
			     { .lock = PTHREAD_MUTEX_INITIALIZER } };
static lazy_fn demangle_lib = { "libstdc++.so.6", "libstdc++6", "__cxa_demangle", NULL,
				{ .lock = PTHREAD_MUTEX_INITIALIZER } };

lazylib_crypt_fn *lazylib_crypt_load(char *err, size_t errlen)
{
	lazylib_crypt_fn *fn = NULL;
	if (lazy_once(&crypt_lib.state, load_fn, &crypt_lib, err, errlen) == 0)
		*(void **)&fn = crypt_lib.fn;	/* POSIX: through void * from dlsym */
	return fn;
}

lazylib_demangle_fn *lazylib_demangle_load(char *err, size_t errlen)
{
	lazylib_demangle_fn *fn = NULL;
	if (lazy_once(&demangle_lib.state, load_fn, &demangle_lib, err, errlen) == 0)
		*(void **)&fn = demangle_lib.fn;
	return fn;
}
