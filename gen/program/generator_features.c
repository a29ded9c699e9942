/* generator_features — the features' parts of a phase's probes (generator_internal.h,
 * model/feature.h). */
#include "program/generator_internal.h"

#include <stdlib.h>

#include "model/feature.h"
#include "util/buf.h"

char *gen_feature_hooks(const gen_parts *pt, const resolved *r, size_t i, bool entry)
{
	buf out = BUF_INIT;
	for (const feature_ops *const *f = features; *f; f++) {
		char *s = (*f)->probe_hooks ? (*f)->probe_hooks(pt, r, i, entry) : NULL;
		if (s && *s)
			buf_printf(&out, "%s%s", out.len ? "\n" : "", s);
		free(s);
	}
	return buf_take(&out);
}

char *gen_feature_nested_loop_entry(const resolved *r)
{
	buf out = BUF_INIT;
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->nested_loop_entry)
			buf_puts(&out, (*f)->nested_loop_entry(r));
	return buf_take(&out);
}
