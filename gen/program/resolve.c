/* resolve — see resolve.h. */
#include "program/resolve.h"
#include "program/resolve_internal.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/debuginfo.h"
#include "target/libuv.h"
#include "target/symtab.h"
#include "target/usdt.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/suggest.h"

/* The probe's function is looked up in the target: latency probes, and
 * count or events probes on uprobe:main:SYMBOL or uretprobe:main:SYMBOL. */
static bool needs_lookup(const spec_probe *p)
{
	return spec_kind_needs_of(p->kind)->function ||
	       (has_point(p) && p->object && p->function &&
		(p->point == POINT_UPROBE || p->point == POINT_URETPROBE));
}

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
static void describe_absence(buf *b, const char *path, const debuginfo_outcome *o)
{
	const symtab_info *info = &o->info;

	if (!info->is_elf)
		buf_printf(b, "%s (not an ELF file)", path);
	else if (!info->has_symtab)
		buf_printf(b, "%s (stripped: no .symtab, %s", path,
			   info->has_dynsym ? "only .dynsym searched" : "no .dynsym either");
	else
		buf_printf(b, "%s (.symtab and .dynsym searched", path);
	if (!info->is_elf)
		return;
	if (o->debug_file)
		buf_printf(b, "; nor in its debug file %s", o->debug_file);
	else if (!info->has_symtab && !o->looked)
		buf_puts(b, "; no build id or .gnu_debuglink to find a debug file by");
	else if (!info->has_symtab)
		buf_printf(b, "; no debug file found, tried: %s", o->tried ? o->tried : "(nothing)");
	buf_putc(b, ')');
}

/* Where bpftrace would find OBJECT's debug file: the build-id path, or
 * beside the object by its debuglink name.  Owned, or NULL. */
static char *tracer_place(const char *object, const symtab_info *info)
{
	char *p = NULL;
	const char *slash = strrchr(object, '/');
	int n = strlen(info->build_id) > 2
		? asprintf(&p, "/usr/lib/debug/.build-id/%.2s/%s.debug", info->build_id,
			   info->build_id + 2)
		: asprintf(&p, "%.*s/.debug/%s", slash ? (int)(slash - object) : 0, object,
			   info->debuglink);
	return n < 0 ? NULL : p;
}

/* What one object said about one probe's function. */
typedef struct lookup {
	const char *objs[64];	/* candidate objects, in search order */
	size_t n_objs;
	int found_in;		/* index into objs, -1 while not found */
	uint64_t *addrs;
	size_t n_addrs;
	size_t n_names;
	char *debug_file;	/* where the addresses came from, or NULL */
	char *tracer_path;	/* where bpftrace would look for it, when not there */
	buf searched;		/* description of the objects that lacked it */
	char hint[512];		/* what to install, when a debug file was missing */
} lookup;

/* Looks up, in one pass over OBJ's tables, the function of every pending
 * probe whose candidate number ROUND is OBJ. */
static void search_object(const char *obj, size_t round, resolved *r, lookup *lk)
{
	symtab_query q[256];
	size_t idx[256];
	size_t nq = 0;
	debuginfo_outcome out;
	char err[256];

	bool phases = false;
	for (size_t i = 0; i < r->n_probes && nq < 255; i++) {
		if (lk[i].found_in >= 0 || round >= lk[i].n_objs || lk[i].objs[round] != obj)
			continue;
		q[nq] = (symtab_query){ .name = r->probes[i].sp->function };
		idx[nq++] = i;
		phases |= libuv_is_phase_function(r->probes[i].sp->function);
	}
	if (nq == 0)
		return;
	/* Entry-only phases also want uv_loop_close beside them: asked in
	 * the same pass, so it costs no read of its own. */
	size_t close_q = SIZE_MAX;
	if (phases && r->sp->entry_only && !r->loop_close_object) {
		q[nq] = (symtab_query){ .name = LIBUV_LOOP_CLOSE };
		close_q = nq++;
	}
	if (debuginfo_resolve(obj, q, nq, &out, err, sizeof err) < 0) {
		for (size_t j = 0; j < nq; j++)
			buf_printf(&lk[idx[j]].searched, "%s%s (%s)",
				   lk[idx[j]].searched.len ? ", " : "", obj, err);
		debuginfo_outcome_free(&out);
		return;
	}
	if (close_q != SIZE_MAX && q[close_q].n_matches > 0) {
		r->loop_close_object = obj;
		r->loop_close_addr = q[close_q].matches[0].addr;
	}
	for (size_t j = 0; j < nq; j++) {
		if (j == close_q)
			continue;
		lookup *l = &lk[idx[j]];
		if (q[j].n_matches == 0) {
			if (l->searched.len)
				buf_puts(&l->searched, ", ");
			describe_absence(&l->searched, obj, &out);
			if (!out.info.has_symtab && !out.debug_file && out.info.is_elf &&
			    !l->hint[0])
				debuginfo_install_hint(obj, &out.info, l->hint, sizeof l->hint);
			continue;
		}
		if (q[j].in_debug_file && out.debug_file) {
			l->debug_file = strdup(out.debug_file);
			if (!debuginfo_tracer_sees(obj, &out.info, out.debug_file))
				l->tracer_path = tracer_place(obj, &out.info);
		}
		l->n_names = q[j].n_names;
		if (strstr(q[j].name, "::"))
			diag_verbose("%s: %zu symbol%s at %zu address%s in %s", q[j].name,
				     q[j].n_names, q[j].n_names == 1 ? "" : "s", q[j].n_matches,
				     q[j].n_matches == 1 ? "" : "es", obj);
		l->addrs = calloc(q[j].n_matches, sizeof *l->addrs);
		if (!l->addrs)
			continue;
		for (size_t k = 0; k < q[j].n_matches; k++)
			l->addrs[k] = q[j].matches[k].addr;
		l->n_addrs = q[j].n_matches;
		l->found_in = (int)round;
	}
	symtab_query_free(q, nq);
	debuginfo_outcome_free(&out);
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
		rp->n_names = l->n_names;
		rp->debug_file = l->debug_file;
		rp->tracer_path = l->tracer_path;
		l->addrs = NULL;
		l->debug_file = NULL;
		l->tracer_path = NULL;
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
		/* A derived phase says what it does instead, once all is known. */
		if (p->derived == DERIVED_NONE || s->entry_only)
			diag_warn("probe '%s' skipped: %s", p->name,
				  rp->reason ? rp->reason : "not found");
		free(what);
		return 0;
	}
	diag_error(l->hint[0] ? l->hint : l->n_objs ? "check the name with `nm -C FILE | grep NAME`, or mark the probe "
			       "'optional: true' if some builds lack it"
			     : t->pid > 0 ? "check the spec's 'objects' against /proc/PID/maps of the target"
					  : "run the program first, then trace it with -p PID",
		   "probe '%s': function '%s' %s", p->name, p->function, what ? what : "not found");
	free(what);
	return -1;
}


#define USDT_SHOWN 8

/* Appends to B the USDT_SHOWN probes of P[0..N) whose provider:name is
 * closest to WANT, closest first (every probe when there are few). */
static void list_usdt_probes(buf *b, const usdt_probe *p, size_t n, const char *want)
{
	size_t order[USDT_SHOWN], dist[USDT_SHOWN], shown = 0;

	/* The USDT_SHOWN closest, in order of distance (all when few). */
	for (size_t i = 0; i < n; i++) {
		char full[140];
		snprintf(full, sizeof full, "%s:%s", p[i].provider, p[i].name);
		size_t d = suggest_distance_str(want, full), k = shown;
		if (shown == USDT_SHOWN && d >= dist[shown - 1])
			continue;
		if (shown < USDT_SHOWN)
			shown++;
		for (k = shown - 1; k > 0 && dist[k - 1] > d; k--) {
			order[k] = order[k - 1];
			dist[k] = dist[k - 1];
		}
		order[k] = i;
		dist[k] = d;
	}
	for (size_t k = 0; k < shown; k++) {
		const usdt_probe *u = &p[order[k]];
		buf_printf(b, "%s%s:%s (%d argument%s)", k ? ", " : "", u->provider, u->name,
			   u->n_args, u->n_args == 1 ? "" : "s");
	}
	if (n > shown)
		buf_printf(b, " and %zu more", n - shown);
}

/* Checks that the USDT probe of RP exists in its object and has every
 * argument the spec reads.  Returns 0, or -1 after a diagnostic. */
static int check_usdt(resolved_probe *rp)
{
	const spec_probe *sp = rp->sp;
	char provider[80], name[80], err[512], path[1100];
	const char *obj = sp->probe + strlen("usdt:"), *prov = strchr(obj, ':'),
		   *nm = strchr(prov + 1, ':');
	usdt_probe *list = NULL;
	size_t n = 0;
	int rc = 0;

	snprintf(path, sizeof path, "%.*s", (int)(prov - obj), obj);
	snprintf(provider, sizeof provider, "%.*s", (int)(nm - prov - 1), prov + 1);
	snprintf(name, sizeof name, "%s", nm + 1);
	const char *file = rp->object ? rp->object : path;
	int got = usdt_list(file, &list, &n, err, sizeof err);
	if (got == USDT_NONE) {
		/* node's http probes: the bundled http-server spec measures the
		 * same requests from the syscalls, on every build */
		bool node_http = !strcmp(provider, "node") && !strncmp(name, "http__", 6);
		diag_error(node_http ? "official Node.js builds have had no USDT probes since "
				       "version 19: run the bundled http-server spec instead "
				       "(requests per route and status code, from the syscalls)"
				     : "this build of the program has no USDT probes: trace its "
				       "functions with uprobes instead (`bpfspec symbols --binary "
				       "FILE` lists them), or use a build with probes",
			   "probe '%s': %s has no USDT probes, so it has no %s:%s", sp->name, file,
			   provider, name);
		return -1;
	}
	if (got != 0) {
		diag_error("check the object path in the probe point", "probe '%s': %s", sp->name,
			   err);
		return -1;
	}
	const usdt_probe *u = usdt_find(list, n, provider, name);
	if (!u) {
		buf b = BUF_INIT;
		char want[160];
		snprintf(want, sizeof want, "%s:%s", provider, name);
		list_usdt_probes(&b, list, n, want);
		char *have = buf_take(&b);
		diag_error("use one of the probes it has (`bpfspec symbols --binary FILE` "
			   "lists them with their arguments)",
			   "probe '%s': %s has no USDT probe %s; it has %s", sp->name, file, want,
			   have ? have : "?");
		free(have);
		rc = -1;
	}
	for (size_t a = 0; u && a < sp->n_args; a++) {
		if (sp->args[a].src != VALUE_ARG || sp->args[a].index < u->n_args)
			continue;
		diag_error("USDT arguments are numbered from arg0; read one the probe has",
			   "probe '%s': argument '%s' reads arg%d, but USDT probe %s:%s in %s has "
			   "%d argument%s", sp->name, sp->args[a].name, sp->args[a].index, provider,
			   name, file, u->n_args, u->n_args == 1 ? "" : "s");
		rc = -1;
	}
	usdt_list_free(list, n);
	return rc;
}

static bool derive_phase(resolved *r, resolved_probe *rp);

/* True, after one error, when the spec needs libuv's own functions (two
 * or more required ones named uv_*), none was found and the target holds
 * no libuv at all: "pid N runs /usr/bin/bash" says it better than the
 * same missing-symbol error once per phase. */
static bool no_libuv_at_all(const spec *s, const target *t, const lookup *lk)
{
	size_t uv_required = 0;
	char uv[64];

	for (size_t i = 0; i < s->n_probes; i++) {
		const spec_probe *p = &s->probes[i];
		if (!needs_lookup(p))
			continue;
		if (lk[i].found_in >= 0)
			return false;
		if (!p->optional && p->function && strncmp(p->function, "uv_", 3) == 0)
			uv_required++;
	}
	if (uv_required < 2 || libuv_target_version(t, uv, sizeof uv, NULL) == 0)
		return false;
	if (t->pid > 0)
		diag_error("trace a Node.js process (or another program built on libuv); "
			   "`bpfspec symbols -p PID 'uv_*'` shows what a process has",
			   "pid %d runs %s, which has no libuv: spec '%s' times libuv's functions",
			   (int)t->pid, t->exe, s->name);
	else
		diag_error("give a Node.js binary (or another program built on libuv)",
			   "%s has no libuv: spec '%s' times libuv's functions", t->exe, s->name);
	return true;
}

/* A result for S on T, every probe inactive, and a lookup per probe with
 * its candidate objects (in *LK, owned by the caller: free it with
 * free_lookups).  Returns the result, or NULL after "out of memory". */
static resolved *resolved_new(const spec *s, const target *t, lookup **lk)
{
	resolved *r = calloc(1, sizeof *r);

	if (!r || !(r->probes = calloc(s->n_probes, sizeof *r->probes))) {
		free(r);
		diag_error(NULL, "out of memory");
		return NULL;
	}
	r->sp = s;
	r->tg = t;
	r->n_probes = s->n_probes;
	*lk = calloc(s->n_probes, sizeof **lk);
	if (!*lk) {
		resolved_free(r);
		diag_error(NULL, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < s->n_probes; i++) {
		r->probes[i].sp = &s->probes[i];
		(*lk)[i].found_in = -1;
		if (needs_lookup(&s->probes[i]))
			(*lk)[i].n_objs = candidate_objects(s, &s->probes[i], t, (*lk)[i].objs, 64);
	}
	return r;
}

/* Looks up the function of every probe of R that needs one (LK: their
 * lookups).  Round K searches every probe's K-th candidate object: a
 * probe always takes the first object in its own order that defines the
 * function.  Within a round each object is read once. */
static void search_objects(const spec *s, resolved *r, lookup *lk)
{
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
}

/* Settles each probe of R from its lookup in LK: active (counted in
 * r->n_active) or skipped.  Returns 0, or -1 after an error: the target
 * has no libuv at all, or a required probe cannot attach (the probes
 * after it are left as they were). */
static int settle_probes(const spec *s, const target *t, resolved *r, lookup *lk)
{
	int failed = 0;

	if (no_libuv_at_all(s, t, lk))
		failed = 1;
	for (size_t i = 0; !failed && i < s->n_probes; i++) {
		if (!needs_lookup(&s->probes[i])) {
			/* Tracepoints and the like: nothing to look up in the
			 * target; usdt:main names the target's executable. */
			r->probes[i].active = true;
			if (has_point(&s->probes[i]) && s->probes[i].object)
				r->probes[i].object = t->exe;
			r->n_active++;
		} else if (settle_probe(s, t, &r->probes[i], &lk[i]) < 0)
			failed = 1;
		else if (r->probes[i].active)
			r->n_active++;
	}
	return failed ? -1 : 0;
}

/* Frees LK[0..N) and what each still holds. */
static void free_lookups(lookup *lk, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(lk[i].addrs);
		free(lk[i].debug_file);
		free(lk[i].tracer_path);
		buf_free(&lk[i].searched);
	}
	free(lk);
}

/* Checks every active USDT probe of R (check_usdt).  Returns 0, or -1
 * after a diagnostic for each probe that fails. */
static int check_usdt_probes(resolved *r)
{
	const spec *s = r->sp;
	int failed = 0;

	for (size_t i = 0; i < s->n_probes; i++)
		if (r->probes[i].active && has_point(&s->probes[i]) &&
		    s->probes[i].point == POINT_USDT && check_usdt(&r->probes[i]) < 0)
			failed = 1;
	return failed ? -1 : 0;
}

/* Sets r->libuv_version when the spec times functions.  libuv's version
 * costs a pass over each object's symbol table until one has it (all of
 * them for a process without libuv): only specs that time functions read
 * it (derived phases need it).  Out of memory only warns. */
static void read_libuv_version(resolved *r)
{
	const spec *s = r->sp;
	bool times_functions = false;
	char uv[64];

	for (size_t i = 0; i < s->n_probes; i++)
		times_functions |= spec_kind_needs_of(s->probes[i].kind)->function;
	if (times_functions && libuv_target_version(r->tg, uv, sizeof uv, NULL) == 0 &&
	    !(r->libuv_version = strdup(uv)))
		diag_warn("out of memory: the report will not name libuv's version");
}

resolved *resolve_spec(const spec *s, const target *t)
{
	lookup *lk = NULL;
	resolved *r = resolved_new(s, t, &lk);
	int failed = 0;

	if (!r)
		return NULL;
	search_objects(s, r, lk);
	if (settle_probes(s, t, r, lk) < 0)
		failed = 1;
	free_lookups(lk, s->n_probes);
	if (check_usdt_probes(r) < 0 || resolve_check_points(r) < 0)
		failed = 1;
	if (failed) {
		resolved_free(r);
		return NULL;
	}
	read_libuv_version(r);
	resolve_tls(r);
	for (size_t i = 0; i < s->n_probes; i++)
		if (derive_phase(r, &r->probes[i]))
			r->n_active++;
	if (r->n_active == 0) {
		diag_error("check the target: none of the spec's functions exist in it",
			   "no probe of spec '%s' can attach to %s", s->name, t->exe);
		resolved_free(r);
		return NULL;
	}
	return r;
}

/* ---- derived libuv phases ---------------------------------------------- */

/* The active entry-return latency probe timing FUNCTION, or -1. */
static long phase_probe(const resolved *r, const char *function)
{
	for (size_t i = 0; i < r->n_probes; i++) {
		const resolved_probe *rp = &r->probes[i];
		if (rp->active && !rp->derived && spec_kind_needs_of(rp->sp->kind)->function &&
		    rp->sp->function && strcmp(rp->sp->function, function) == 0)
			return (long)i;
	}
	return -1;
}

bool libuv_new_order(const char *version)
{
	unsigned major, minor;
	if (!version || sscanf(version, "%u.%u", &major, &minor) != 2)
		return true;
	return major > 1 || (major == 1 && minor >= 45);
}

/* Makes RP, a missing optional function with a 'derived' phase, time
 * that phase as the gaps around it.  Returns true when RP became active. */
static bool derive_phase(resolved *r, resolved_probe *rp)
{
	const spec_probe *p = rp->sp;
	static const char *const names[] = { "uv__run_timers", "uv__run_idle", "uv__io_poll",
					     "uv__run_check" };
	const char *after[2], *before[2];
	size_t n = 0;
	bool new_order = libuv_new_order(r->libuv_version);
	char *text = NULL;

	if (rp->active || !spec_kind_needs_of(p->kind)->function || p->derived == DERIVED_NONE)
		return false;
	if (r->sp->entry_only) {
		/* Its time is already in the phase before it. */
		return false;
	}
	if (p->derived == DERIVED_LIBUV_PENDING) {
		after[n] = names[0], before[n++] = names[1];
		if (new_order)
			after[n] = names[2], before[n++] = names[3];
	} else {
		after[n] = names[3], before[n++] = names[0];
	}
	for (size_t k = 0; k < n; k++) {
		long a = phase_probe(r, after[k]), b = phase_probe(r, before[k]);
		if (a < 0 || b < 0) {
			diag_warn("probe '%s' skipped: %s; its time cannot be derived either: the "
				  "spec does not time both %s and %s", p->name,
				  rp->reason ? rp->reason : "not found", after[k], before[k]);
			return false;
		}
		rp->gap_after[k] = (size_t)a;
		rp->gap_before[k] = (size_t)b;
	}
	if (asprintf(&text, "derived: the time from the return of %s to the entry of %s%s%s%s%s "
		     "on each loop thread, where libuv %s runs %s",
		     after[0], before[0], n > 1 ? ", and from the return of " : "",
		     n > 1 ? after[1] : "", n > 1 ? " to the entry of " : "", n > 1 ? before[1] : "",
		     r->libuv_version ? r->libuv_version : "(version unknown: 1.45 or later assumed)",
		     p->derived == DERIVED_LIBUV_PENDING ? "pending callbacks" : "closing handles") < 0)
		return false;
	rp->n_gaps = n;
	rp->derived = text;
	rp->active = true;
	diag_verbose("probe '%s': %s is not in the target; %s", p->name, p->function, text);
	free(rp->reason);
	rp->reason = NULL;
	return true;
}

void resolved_free(resolved *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_probes; i++) {
		free(r->probes[i].reason);
		free(r->probes[i].addrs);
		free(r->probes[i].debug_file);
		free(r->probes[i].tracer_path);
		free(r->probes[i].derived);
		free(r->probes[i].same);
		free(r->probes[i].tls_missing);
	}
	free(r->also);
	free(r->probes);
	free(r->libuv_version);
	free(r);
}
