/* diff — compares two reports probe by probe.
 *
 * diff_render only reads its reports (report_load.h reads them from
 * JSON files).  Probes are matched by name, syscalls by name within a
 * probe.  The JSON form is documented in docs/report.md ("Diff"). */
#ifndef BPFSPEC_DIFF_H
#define BPFSPEC_DIFF_H

#include <stdio.h>

#include "model/report.h"

typedef enum { DIFF_TEXT, DIFF_JSON } diff_format;

/* Writes the comparison of BEFORE and AFTER: per probe (and per syscall
 * of syscalls probes) count, p50, p99, max before and after and the
 * change (absolute and relative); probes present on one side only are
 * listed as such.  Returns 0, or -1 when writing failed. */
int diff_render(FILE *out, const report *before, const report *after, diff_format fmt);

#endif
