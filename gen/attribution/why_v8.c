/* why_v8 — JavaScript frame names for loop-why's stacks; see why_v8.h. */
#include "attribution/why_v8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/v8meta.h"
#include "target/v8names.h"

/* Functions named per window at most: past it, frames stay unnamed. */
#define WHY_V8_CACHE_MAX 4096

typedef struct named {
	long pid;
	uint64_t sfi;
	char *name;		/* NULL: could not be named */
} named;

struct why_v8 {
	v8meta meta;
	long pid;		/* the process READER reads, 0 none */
	v8names_reader *reader;
	named *cache;
	size_t n, cap;
};

bool why_v8_walk_off(void)
{
	const char *walk = getenv("BPFSPEC_V8_WALK");
	return walk && strcmp(walk, "0") == 0;
}

why_v8 *why_v8_new(const char *exe, char *why, size_t len)
{
	if (why_v8_walk_off()) {
		snprintf(why, len, "BPFSPEC_V8_WALK=0 turned the walk of its frames off");
		return NULL;
	}
	why_v8 *v = calloc(1, sizeof *v);
	if (!v) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (v8meta_read(exe, &v->meta, why, len) < 0 || v8meta_check(&v->meta, why, len) < 0) {
		free(v);
		return NULL;
	}
	return v;
}

/* The reader of process PID (the last one opened is kept). */
static v8names_reader *reader_of(why_v8 *v, long pid)
{
	if (v->pid != pid) {
		v8names_proc_close(v->reader);
		v->reader = pid > 0 ? v8names_proc_open(pid) : NULL;
		v->pid = pid;
	}
	return v->reader;
}

const char *why_v8_name(why_v8 *v, long pid, uint64_t sfi)
{
	char text[2 * V8NAMES_TEXT_MAX + 32];
	for (size_t i = 0; i < v->n; i++)
		if (v->cache[i].pid == pid && v->cache[i].sfi == sfi)
			return v->cache[i].name;
	if (v->n >= WHY_V8_CACHE_MAX)
		return NULL;
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		named *c = realloc(v->cache, cap * sizeof *c);
		if (!c)
			return NULL;
		v->cache = c;
		v->cap = cap;
	}
	v8names_reader *r = reader_of(v, pid);
	char *name = NULL;
	if (r && v8names_function(&v->meta, r, sfi, text, sizeof text) == 0)
		name = strdup(text);
	v->cache[v->n++] = (named){ .pid = pid, .sfi = sfi, .name = name };
	return name;
}

void why_v8_free(why_v8 *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		free(v->cache[i].name);
	free(v->cache);
	v8names_proc_close(v->reader);
	free(v);
}
