/* render_folded — `-o folded` (render.h). */
#include "render/render.h"

#include <stdlib.h>

#include "util/safe.h"

int render_folded(FILE *out, const report *rep)
{
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		for (size_t k = 0; k < p->n_stacks; k++) {
			const char *thread = NULL;
			for (size_t g = 0; g < p->n_groups && !thread; g++)
				if (p->groups[g].tid == p->stacks[k].tid)
					thread = p->groups[g].thread;
			/* phase;thread (tid N);frames N: the text the traced
			 * program chose is escaped, and never holds ';' */
			safe_fputs(p->name, out);
			fputc(';', out);
			char *t = safe_text(thread ? thread : "?");
			for (char *c = t; c && *c; c++)
				if (*c == ';' || *c == ' ')
					*c = '_';
			fprintf(out, "%s_(tid_%ld);", t ? t : "?", p->stacks[k].tid);
			free(t);
			safe_fputs(p->stacks[k].frames, out);
			fprintf(out, " %llu\n", (unsigned long long)p->stacks[k].samples);
		}
	}
	fflush(out);
	return ferror(out) ? -1 : 0;
}
