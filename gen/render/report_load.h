/* report_load — reads a report written by `bpfspec run -o json` back
 * into the report model (every field the JSON carries; buckets included),
 * so that checks, diffs and renderers work on it as on a fresh report.
 * It reads this bpfspec's schema and the older ones down to
 * BPFSPEC_REPORT_SCHEMA_OLDEST (util/version.h), and refuses any other
 * number with a diagnostic naming it.
 *
 * Ownership: both return an owned report (free with report_free) or NULL
 * after a diagnostic naming the file and, for JSON errors, the line and
 * column; for a missing or wrong-typed field, the JSON path
 * ("before.json: probes[2].p99_ns: expected an integer"). */
#ifndef BPFSPEC_REPORT_LOAD_H
#define BPFSPEC_REPORT_LOAD_H

#include <stddef.h>

#include "model/report.h"

/* Reads PATH ("-" = stdin).  A file holding several NDJSON reports (from
 * -i) is refused with a hint to pick one line. */
report *report_load_json(const char *path);

/* Parses the LEN bytes of TEXT (need not be NUL-terminated) as one JSON
 * report; NAME is the file name diagnostics use.  Same result and
 * diagnostics as report_load_json, which reads the file and calls it. */
report *report_parse_json(const char *text, size_t len, const char *name);

/* Reads PATH ("-" = stdin) holding one report or an NDJSON stream of
 * them (-i writes one report per line), into an owned array of *N >= 1
 * reports in file order (free with report_stream_free).  NULL after a
 * diagnostic naming the file and, in a stream, the report's line. */
report **report_load_stream(const char *path, size_t *n);

void report_stream_free(report **reps, size_t n);

#endif
