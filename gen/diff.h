/* diff — compares two JSON reports (schema 1) probe by probe.
 *
 * report_load_json reads a report written by `bpfspec run -o json` back
 * into the report model (every field the JSON carries; buckets included),
 * so that checks and renderers work on it as on a fresh report.
 *
 * Ownership: report_load_json returns an owned report (free with
 * report_free) or NULL after a diagnostic naming the file and, for JSON
 * errors, the line and column; for a missing or wrong-typed field, the
 * JSON path ("before.json: probes[2].p99_ns: expected an integer").
 *
 * diff_render only reads its reports.  Probes are matched by name,
 * syscalls by name within a probe.  The JSON form is documented in
 * docs/report.md ("Diff"). */
#ifndef BPFSPEC_DIFF_H
#define BPFSPEC_DIFF_H

#include <stdio.h>

#include "report.h"

/* Reads PATH ("-" = stdin).  A file holding several NDJSON reports (from
 * -i) is refused with a hint to pick one line. */
report *report_load_json(const char *path);

/* Parses the LEN bytes of TEXT (need not be NUL-terminated) as one JSON
 * report; NAME is the file name diagnostics use.  Same result and
 * diagnostics as report_load_json, which reads the file and calls it. */
report *report_parse_json(const char *text, size_t len, const char *name);

typedef enum { DIFF_TEXT, DIFF_JSON } diff_format;

/* Writes the comparison of BEFORE and AFTER: per probe (and per syscall
 * of syscalls probes) count, p50, p99, max before and after and the
 * change (absolute and relative); probes present on one side only are
 * listed as such.  Returns 0, or -1 when writing failed. */
int diff_render(FILE *out, const report *before, const report *after, diff_format fmt);

#endif
