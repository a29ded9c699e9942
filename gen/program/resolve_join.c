/* resolve_join — one program for the processes of several executables
 * (resolve.h's resolve_join): the first resolution gives the program its
 * shape, the others add the places their files hold the same functions. */
#include "program/resolve.h"
#include "program/resolve_internal.h"

#include <stdlib.h>

#include "util/diag.h"

/* Why INTO and OTHER cannot share one program, or NULL when they can. */
static const char *refusal(const resolved *into, const resolved *other)
{
	const spec *s = into->sp;
	if (s->stack_ns)
		return "it samples stacks, whose frames are named with one executable's V8 layout";
	for (size_t i = 0; i < s->n_probes; i++)
		if (s->probes[i].kind == PROBE_SPAN)
			return "its span probes' points name one executable";
	for (size_t i = 0; i < s->n_probes; i++)
		if (into->probes[i].tls_object || other->probes[i].tls_object)
			return "its https probes read OpenSSL at one executable's addresses";
	if (libuv_new_order(into->libuv_version) != libuv_new_order(other->libuv_version))
		return "their libuv versions are on either side of 1.45, where the derived "
		       "phases differ";
	return NULL;
}

/* Appends B to A's same probes.  Returns 0, or -1 (out of memory). */
static int add_same(resolved_probe *a, const resolved_probe *b)
{
	const resolved_probe **grown = realloc(a->same, (a->n_same + 1) * sizeof *grown);
	if (!grown)
		return -1;
	grown[a->n_same++] = b;
	a->same = grown;
	return 0;
}

/* Appends OTHER to INTO's joined resolutions.  Returns 0, or -1. */
static int add_also(resolved *into, const resolved *other)
{
	const resolved **grown = realloc(into->also, (into->n_also + 1) * sizeof *grown);
	if (!grown)
		return -1;
	grown[into->n_also++] = other;
	into->also = grown;
	return 0;
}

/* Probe I of OTHER joins probe I of INTO, or is said to be left out. */
static int join_probe(resolved *into, const resolved *other, size_t i)
{
	resolved_probe *a = &into->probes[i];
	const resolved_probe *b = &other->probes[i];
	const char *name = a->sp->name;
	if (!a->active) {
		if (b->active)
			diag_warn("probe '%s' is not traced in the processes of %s either: the "
				  "program's shape is that of %s, which lacks it", name,
				  other->tg->exe, into->tg->exe);
		return 0;
	}
	bool a_has_points = a->object && !a->derived, b_has_points = b->object && !b->derived;
	if (a_has_points && b->active && b_has_points)
		return add_same(a, b);
	if (a_has_points)
		diag_warn("probe '%s' is not traced in the processes of %s: %s", name,
			  other->tg->exe, b->active ? "its time is derived there"
						    : b->reason ? b->reason : "not found");
	return 0;
}

int resolve_join(resolved *into, const resolved *other)
{
	const char *why = refusal(into, other);
	if (why) {
		diag_error("trace the processes of each executable in a run of their own",
			   "spec '%s' cannot trace %s and %s in one program: %s", into->sp->name,
			   into->tg->exe, other->tg->exe, why);
		return -1;
	}
	int rc = add_also(into, other);
	for (size_t i = 0; i < into->n_probes && rc == 0; i++)
		rc = join_probe(into, other, i);
	if (rc < 0)
		diag_error(NULL, "out of memory");
	return rc;
}
