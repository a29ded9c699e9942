/* spec_source — a SPEC argument (a file's path, or the name of a spec
 * bundled in the binary) loaded into a spec.
 *
 * Ownership: returns an owned spec (spec_free) or NULL after a
 * diagnostic (diag) that names the file, or lists the bundled specs when
 * ARG is neither. */
#ifndef BPFSPEC_SPEC_SOURCE_H
#define BPFSPEC_SPEC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "spec/spec.h"

/* Loads ARG with the parameter overrides SETS[0..N_SETS) (spec.h's
 * spec_load_set).  A name without '/' that is not a file is looked up
 * among the bundled specs ("libuv-phases", "libuv-phases.yaml"). */
spec *spec_source_load(const char *arg, char *const *sets, size_t n_sets);

/* Whether spec_source_load takes ARG for a bundled spec's name (a name
 * without '/' that is no file), which never changes while bpfspec runs. */
bool spec_source_is_bundled(const char *arg);

#endif
