/* report_build — a report (model/report.h) from one window of bpftrace's
 * parsed output, through the map naming contract of model/wire.h: the
 * report's header from the spec and the run, each probe filled by its
 * kind (model/kind.h), then every feature's fill (model/feature.h).
 *
 * Ownership: returns an owned report or NULL (out of memory, reported). */
#ifndef BPFSPEC_REPORT_BUILD_H
#define BPFSPEC_REPORT_BUILD_H

#include "model/report.h"
#include "program/resolve.h"
#include "run/bpfout.h"

/* Builds the report of window W (may be NULL: no data) for R. */
report *report_build(const resolved *r, const bpfout_window *w, const report_run *run);

#endif
