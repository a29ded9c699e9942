/* usdt — USDT probes of an ELF file, through libbcc's USDT reader.
 *
 * bcc_usdt_foreach takes a callback without a user pointer, so the probes
 * are gathered into a collector named by a thread-local pointer for the
 * length of one call.
 *
 * libbcc brings LLVM with it: linking it would map some 50 MB into every
 * bpfspec run (measured: peak RSS 80 MiB instead of 19).  It is loaded
 * with dlopen the first time a USDT probe is listed or checked. */
#include "target/usdt.h"

#include <bcc/bcc_usdt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/lazylib.h"

/* libbcc's USDT functions, once loaded. */
static struct {
	void *(*new_frompath)(const char *path);
	void (*close)(void *usdt);
	void (*foreach)(void *usdt, bcc_usdt_cb callback);
	int (*get_argument)(void *usdt, const char *provider, const char *name,
			    int location, int argument, struct bcc_usdt_argument *out);
} bcc;

/* Loads libbcc.so.0.  Returns 0, or -1 with the reason in ERR. */
static int load_bcc(char *err, size_t errlen);

/* The probes gathered by one usdt_list call. */
typedef struct collector {
	usdt_probe *v;
	size_t n, cap;
	bool failed;		/* out of memory */
} collector;

static __thread collector *current_collector;

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Returns 0 when PATH opens and starts with the ELF magic; -1 with a
 * message in ERR otherwise. */
static int check_elf_file(const char *path, char *err, size_t errlen)
{
	unsigned char magic[4];
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		set_err(err, errlen, "%s: cannot open: %s; check the path", path,
			strerror(errno));
		return -1;
	}
	got = read(fd, magic, sizeof(magic));
	close(fd);
	if (got != (ssize_t)sizeof(magic) || memcmp(magic, "\177ELF", 4) != 0) {
		set_err(err, errlen, "%s: not an ELF file; give the executable or "
			"shared object that holds the probes", path);
		return -1;
	}
	return 0;
}

/* Returns 0 after adding room for one more probe to C, -1 when out of memory. */
static int collector_grow(collector *c)
{
	size_t cap;
	usdt_probe *v;

	if (c->n < c->cap)
		return 0;
	cap = c->cap ? c->cap * 2 : 16;
	v = realloc(c->v, cap * sizeof(*v));
	if (!v)
		return -1;
	c->v = v;
	c->cap = cap;
	return 0;
}

/* Called by bcc_usdt_foreach for every probe of the file. */
static void collect_probe(struct bcc_usdt *u)
{
	collector *c = current_collector;
	usdt_probe *p;

	if (c->failed)
		return;
	if (collector_grow(c) < 0) {
		c->failed = true;
		return;
	}
	p = &c->v[c->n];
	memset(p, 0, sizeof(*p));
	p->provider = strdup(u->provider ? u->provider : "");
	p->name = strdup(u->name ? u->name : "");
	p->n_locations = u->num_locations > 0 ? (size_t)u->num_locations : 0;
	p->n_args = u->num_arguments > 0 ? u->num_arguments : 0;
	c->n++;
	if (!p->provider || !p->name)
		c->failed = true;
}

/* Fills the argument sizes of P from its first location.  Returns 0, or -1
 * when out of memory. */
static int read_arguments(void *ctx, usdt_probe *p)
{
	if (p->n_args == 0)
		return 0;
	p->args = calloc((size_t)p->n_args, sizeof(*p->args));
	if (!p->args)
		return -1;
	for (int i = 0; i < p->n_args; i++) {
		struct bcc_usdt_argument a;

		memset(&a, 0, sizeof(a));
		if (bcc.get_argument(ctx, p->provider, p->name, 0, i, &a) != 0)
			continue;
		/* The note says "-4@…" for a signed 4-byte value. */
		p->args[i].size = a.size < 0 ? -a.size : a.size;
		p->args[i].is_signed = a.size < 0;
	}
	return 0;
}

static int compare_probes(const void *a, const void *b)
{
	const usdt_probe *x = a, *y = b;
	int c = strcmp(x->provider, y->provider);

	return c ? c : strcmp(x->name, y->name);
}

int usdt_list(const char *path, usdt_probe **out, size_t *n, char *err, size_t errlen)
{
	collector c = { 0 };
	void *ctx;

	*out = NULL;
	*n = 0;
	if (check_elf_file(path, err, errlen) < 0 || load_bcc(err, errlen) < 0)
		return USDT_ERROR;
	ctx = bcc.new_frompath(path);
	if (!ctx) {
		set_err(err, errlen, "%s has no USDT probes (no .note.stapsdt "
			"section); trace functions with uprobes instead, or use a "
			"build with probes", path);
		return USDT_NONE;
	}
	current_collector = &c;
	bcc.foreach(ctx, collect_probe);
	current_collector = NULL;
	for (size_t i = 0; i < c.n && !c.failed; i++)
		if (read_arguments(ctx, &c.v[i]) < 0)
			c.failed = true;
	bcc.close(ctx);
	if (c.failed) {
		usdt_list_free(c.v, c.n);
		set_err(err, errlen, "%s: out of memory reading its USDT probes", path);
		return USDT_ERROR;
	}
	if (c.n == 0) {
		free(c.v);
		set_err(err, errlen, "%s has no USDT probes (no .note.stapsdt "
			"section); trace functions with uprobes instead, or use a "
			"build with probes", path);
		return USDT_NONE;
	}
	qsort(c.v, c.n, sizeof(*c.v), compare_probes);
	*out = c.v;
	*n = c.n;
	return 0;
}

const usdt_probe *usdt_find(const usdt_probe *p, size_t n, const char *provider,
			    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(p[i].provider, provider) == 0 && strcmp(p[i].name, name) == 0)
			return &p[i];
	return NULL;
}

void usdt_list_free(usdt_probe *p, size_t n)
{
	if (!p)
		return;
	for (size_t i = 0; i < n; i++) {
		free(p[i].provider);
		free(p[i].name);
		free(p[i].args);
	}
	free(p);
}

static int load_bcc(char *err, size_t errlen)
{
	static bool loaded;
	static const char *const names[] = {
		"bcc_usdt_new_frompath", "bcc_usdt_close", "bcc_usdt_foreach",
		"bcc_usdt_get_argument",
	};
	void *slots[sizeof names / sizeof *names];

	if (loaded)
		return 0;
	char why[256];
	if (lazylib_open("libbcc.so.0", "libbpfcc", names, slots, sizeof names / sizeof *names,
			 why, sizeof why) < 0) {
		set_err(err, errlen, "libbcc reads USDT probes: %s", why);
		return -1;
	}
	/* POSIX: a function pointer travels through void * from dlsym. */
	*(void **)&bcc.new_frompath = slots[0];
	*(void **)&bcc.close = slots[1];
	*(void **)&bcc.foreach = slots[2];
	*(void **)&bcc.get_argument = slots[3];
	loaded = true;
	return 0;
}
