/* resolve — see resolve.h. */
#include "resolve.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "symtab.h"

/* The objects of T that a probe searches, in order, without repeats.
 * Returns the number stored in OUT (capacity MAX). */
static size_t candidate_objects(const spec *s, const spec_probe *p,
				const target *t, const char **out, size_t max)
{
	size_t n = 0;
	const char *single[1];
	char *const *globs = s->objects;
	size_t n_globs = s->n_objects;

	if (p->object) {
		single[0] = p->object;
		globs = (char *const *)single;
		n_globs = 1;
	}
	for (size_t g = 0; g < n_globs; g++) {
		for (size_t o = 0; o < t->n_objects && n < max; o++) {
			const char *path = t->objects[o];
			const char *base = strrchr(path, '/');
			base = base ? base + 1 : path;
			int match = strcmp(globs[g], "main") == 0 ? o == 0
					: fnmatch(globs[g], base, 0) == 0;
			if (!match)
				continue;
			size_t k;
			for (k = 0; k < n && out[k] != path; k++)
				;
			if (k == n)
				out[n++] = path;
		}
	}
	return n;
}

/* Describes why SYM was not found in PATH, for messages. */
static void describe_absence(buf *b, const char *path, const symtab_info *info)
{
	if (!info->is_elf)
		buf_printf(b, "%s (not an ELF file)", path);
	else if (!info->has_symtab)
		buf_printf(b, "%s (stripped: no .symtab, %s)", path,
			   info->has_dynsym ? "only .dynsym searched" : "no .dynsym either");
	else
		buf_printf(b, "%s (.symtab and .dynsym searched)", path);
}

/* What one object said about one probe's function. */
typedef struct lookup {
	const char *objs[64];	/* candidate objects, in search order */
	size_t n_objs;
	int found_in;		/* index into objs, -1 while not found */
	uint64_t *addrs;
	size_t n_addrs;
	buf searched;		/* description of the objects that lacked it */
} lookup;

/* Looks up, in one pass over OBJ's tables, the function of every pending
 * probe whose candidate number ROUND is OBJ. */
static void search_object(const char *obj, size_t round, resolved *r, lookup *lk)
{
	symtab_query q[256];
	size_t idx[256];
	size_t nq = 0;
	symtab_info info;
	char err[256];

	for (size_t i = 0; i < r->n_probes && nq < 256; i++) {
		if (lk[i].found_in >= 0 || round >= lk[i].n_objs || lk[i].objs[round] != obj)
			continue;
		q[nq] = (symtab_query){ .name = r->probes[i].sp->function };
		idx[nq++] = i;
	}
	if (nq == 0)
		return;
	memset(&info, 0, sizeof info);
	if (symtab_resolve(obj, q, nq, &info, err, sizeof err) < 0) {
		for (size_t j = 0; j < nq; j++)
			buf_printf(&lk[idx[j]].searched, "%s%s (%s)",
				   lk[idx[j]].searched.len ? ", " : "", obj, err);
		return;
	}
	for (size_t j = 0; j < nq; j++) {
		lookup *l = &lk[idx[j]];
		if (q[j].n_matches == 0) {
			if (l->searched.len)
				buf_puts(&l->searched, ", ");
			describe_absence(&l->searched, obj, &info);
			continue;
		}
		l->addrs = calloc(q[j].n_matches, sizeof *l->addrs);
		if (!l->addrs)
			continue;
		for (size_t k = 0; k < q[j].n_matches; k++)
			l->addrs[k] = q[j].matches[k].addr;
		l->n_addrs = q[j].n_matches;
		l->found_in = (int)round;
	}
	symtab_query_free(q, nq);
}

/* Turns a finished lookup into the probe's result, reporting absence.
 * Returns -1 when a required probe cannot attach. */
static int settle_probe(const spec *s, const target *t, resolved_probe *rp, lookup *l)
{
	const spec_probe *p = rp->sp;

	if (l->found_in >= 0) {
		rp->active = true;
		rp->object = l->objs[l->found_in];
		rp->addrs = l->addrs;
		rp->n_addrs = l->n_addrs;
		l->addrs = NULL;
		return 0;
	}
	char *where = buf_take(&l->searched);
	char *what = NULL;
	if (l->n_objs == 0) {
		buf b = BUF_INIT;
		size_t n = p->object ? 1 : s->n_objects;
		for (size_t g = 0; g < n; g++)
			buf_printf(&b, "%s'%s'", g ? ", " : "", p->object ? p->object : s->objects[g]);
		char *globs = buf_take(&b);
		int n_chars = t->pid > 0
			? asprintf(&what, "no object matching %s is mapped into pid %d (%s)",
				   globs ? globs : "?", (int)t->pid, t->exe)
			: asprintf(&what, "no object matching %s: only %s itself is known before it "
				   "runs (libraries are found in /proc/PID/maps: start the program and "
				   "use -p PID)", globs ? globs : "?", t->exe);
		if (n_chars < 0)
			what = NULL;
		free(globs);
	} else if (asprintf(&what, "not in %s", where ? where : "?") < 0) {
		what = NULL;
	}
	free(where);
	if (p->optional) {
		if (asprintf(&rp->reason, "%s: %s%s%s%s", p->function, what ? what : "not found",
			     p->missing_reason ? " (" : "",
			     p->missing_reason ? p->missing_reason : "",
			     p->missing_reason ? ")" : "") < 0)
			rp->reason = NULL;
		diag_warn("probe '%s' skipped: %s", p->name, rp->reason ? rp->reason : "not found");
		free(what);
		return 0;
	}
	diag_error(l->n_objs ? "check the name with `nm -C FILE | grep NAME`, or mark the probe "
			       "'optional: true' if some builds lack it"
			     : t->pid > 0 ? "check the spec's 'objects' against /proc/PID/maps of the target"
					  : "run the program first, then trace it with -p PID",
		   "probe '%s': function '%s' %s", p->name, p->function, what ? what : "not found");
	free(what);
	return -1;
}

resolved *resolve_spec(const spec *s, const target *t)
{
	resolved *r = calloc(1, sizeof *r);
	int failed = 0;

	if (!r || !(r->probes = calloc(s->n_probes, sizeof *r->probes))) {
		free(r);
		diag_error(NULL, "out of memory");
		return NULL;
	}
	r->sp = s;
	r->tg = t;
	r->n_probes = s->n_probes;
	lookup *lk = calloc(s->n_probes, sizeof *lk);
	if (!lk) {
		resolved_free(r);
		diag_error(NULL, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < s->n_probes; i++) {
		r->probes[i].sp = &s->probes[i];
		lk[i].found_in = -1;
		if (s->probes[i].kind == PROBE_LATENCY)
			lk[i].n_objs = candidate_objects(s, &s->probes[i], t, lk[i].objs, 64);
	}
	/* Objects in the order the spec searches them; each is read once. */
	/* Round K searches every probe's K-th candidate object: a probe
	 * always takes the first object in its own order that defines the
	 * function.  Within a round each object is read once. */
	for (size_t round = 0; round < 64; round++) {
		const char *done[64];
		size_t n_done = 0;
		for (size_t i = 0; i < s->n_probes; i++) {
			if (lk[i].found_in >= 0 || round >= lk[i].n_objs)
				continue;
			const char *obj = lk[i].objs[round];
			size_t j;
			for (j = 0; j < n_done && done[j] != obj; j++)
				;
			if (j < n_done)
				continue;
			if (n_done < 64)
				done[n_done++] = obj;
			search_object(obj, round, r, lk);
		}
	}
	for (size_t i = 0; i < s->n_probes; i++) {
		if (s->probes[i].kind != PROBE_LATENCY) {
			/* Tracepoints: nothing to look up in the target. */
			r->probes[i].active = true;
			r->n_active++;
		} else if (settle_probe(s, t, &r->probes[i], &lk[i]) < 0)
			failed = 1;
		else if (r->probes[i].active)
			r->n_active++;
		free(lk[i].addrs);
		buf_free(&lk[i].searched);
	}
	free(lk);
	if (failed) {
		resolved_free(r);
		return NULL;
	}
	if (r->n_active == 0) {
		diag_error("check the target: none of the spec's functions exist in it",
			   "no probe of spec '%s' can attach to %s", s->name, t->exe);
		resolved_free(r);
		return NULL;
	}
	return r;
}

int resolve_check_tracepoints(const resolved *r)
{
	bool needed = false;
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].active && r->probes[i].sp->kind != PROBE_LATENCY)
			needed = true;
	if (!needed)
		return 0;
	if (access("/sys/kernel/tracing/events/raw_syscalls/sys_enter", F_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter", F_OK) == 0)
		return 0;
	diag_error("mount it (as root): mount -t tracefs nodev /sys/kernel/tracing",
		   "syscall tracepoints are unavailable: tracefs is not mounted "
		   "(no /sys/kernel/tracing/events/raw_syscalls)");
	return -1;
}

void resolved_free(resolved *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_probes; i++) {
		free(r->probes[i].reason);
		free(r->probes[i].addrs);
	}
	free(r->probes);
	free(r);
}
