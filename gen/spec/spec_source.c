/* spec_source — see spec_source.h. */
#include "spec/spec_source.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "embedded.h"
#include "util/diag.h"

/* Loads SPEC: a path, or the name of a bundled spec, with the
 * parameter overrides SETS[0..N_SETS). */
bool spec_source_is_bundled(const char *arg)
{
	return !strchr(arg, '/') && access(arg, F_OK) != 0;
}

spec *spec_source_load(const char *arg, char *const *sets, size_t n_sets)
{
	if (spec_source_is_bundled(arg)) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "specs/%s%s", arg,
			 strstr(arg, ".yaml") ? "" : ".yaml");
		const embedded_file *f = embedded_find(path);
		if (f)
			return spec_parse_set(path, f->data, f->len, sets, n_sets);
		if (access(arg, F_OK) != 0 && errno == ENOENT) {
			/* Neither a file nor a bundled spec: name the bundled ones. */
			char names[1024] = "";
			for (size_t i = 0; i < embedded_count; i++) {
				const char *p = embedded_files[i].path, *dot = strrchr(p, '.');
				size_t used = strlen(names);
				if (strncmp(p, "specs/", 6) != 0 || !dot || used + 64 > sizeof names)
					continue;
				snprintf(names + used, sizeof names - used, "%s%.*s", used ? ", " : "",
					 (int)(dot - p - 6), p + 6);
			}
			char hint[1200];
			snprintf(hint, sizeof hint,
				 "give a spec file's path, or one of the bundled specs: %s "
				 "(`bpfspec list` describes them)", names);
			diag_error(hint, "'%s' is neither a spec file nor a bundled spec", arg);
			return NULL;
		}
	}
	return spec_load_set(arg, sets, n_sets);
}
