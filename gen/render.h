/* render — writes a report for people (text) or programs (JSON).
 *
 * JSON is the contract runbooks rely on (schema version 1, see
 * docs/report.md): fields are only ever added, never renamed; all
 * durations are integer nanoseconds.
 *
 * Both functions return 0, or -1 when writing to OUT failed (the caller
 * reports it: a full disk or a closed pipe must not pass silently). */
#ifndef BPFSPEC_RENDER_H
#define BPFSPEC_RENDER_H

#include <stdio.h>

#include "report.h"

int render_text(FILE *out, const report *rep);
int render_json(FILE *out, const report *rep);

#endif
