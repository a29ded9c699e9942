/* kind — the table of kinds (kind.h). */
#include "model/kind.h"

#include <string.h>

#define KIND_ROW(value, name) [value] = &kind_##name##_ops,
static const kind_ops *const rows[N_PROBE_KINDS] = { PROBE_KINDS(KIND_ROW) };
#undef KIND_ROW

#define KIND_NAME(value, name) #name,
const char *const kind_names[N_PROBE_KINDS + 1] = { PROBE_KINDS(KIND_NAME) NULL };
#undef KIND_NAME

const kind_ops *kind_ops_of(probe_kind kind)
{
	return (unsigned)kind < N_PROBE_KINDS ? rows[kind] : NULL;
}

const char *kind_name(probe_kind kind)
{
	return (unsigned)kind < N_PROBE_KINDS ? kind_names[kind] : "?";
}

int kind_from_name(const char *name, probe_kind *kind)
{
	for (int k = 0; name && k < N_PROBE_KINDS; k++)
		if (strcmp(name, kind_names[k]) == 0) {
			*kind = (probe_kind)k;
			return 0;
		}
	return -1;
}

const kind_shape *kind_shape_of(probe_kind kind)
{
	static const kind_shape unknown = { .article = "a", .counts = "hits" };

	return (unsigned)kind < N_PROBE_KINDS ? &rows[kind]->shape : &unknown;
}
