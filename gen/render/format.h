/* format — the output formats of a report (-o NAME), one row each: how a
 * report or a whole run is written and what the format asks of the
 * command line and the spec.  The commands (cmd/) read the row; adding a
 * format is its renderer (render.h) and a row in format.c. */
#ifndef BPFSPEC_FORMAT_H
#define BPFSPEC_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/report.h"

typedef struct output_format {
	const char *name;	/* as -o takes it */
	/* Writes one report; LINE when it is one of a stream of them (JSON:
	 * a line each).  NULL for a whole-run format. */
	int (*one)(FILE *out, const report *rep, bool line);
	/* Writes a whole run, REPS[0..N) its intervals in turn, kept until
	 * the run ends; NULL for a format written a report at a time. */
	int (*whole)(FILE *out, const report *const *reps, size_t n);
	const char *what;	/* what a file of it is, in messages */
	bool interval_headers;	/* a stream of it on a terminal gets a header
				 * line per interval */
	bool one_report;	/* a file holds one report (a scrape): with -i it
				 * is rewritten each interval, so needs --output */
	bool diff;		/* `bpfspec diff` writes it */
	bool slices;		/* the run records slices (--trace-threshold) */
	/* Why it does not take --cumulative; NULL when it does. */
	const char *no_cumulative;
	/* Why `bpfspec report` cannot write it from a saved report; NULL when
	 * it can. */
	const char *not_from_saved;
	/* What it needs of the spec: probes with a timeline (kind.h's
	 * shape), sampled stacks (attribution's 'stacks'). */
	bool needs_timeline, needs_stacks;
} output_format;

/* The format named NAME, or NULL. */
const output_format *output_format_named(const char *name);

/* Format I in the order -o's help lists them (from 0), or NULL past the
 * last. */
const output_format *output_format_at(size_t i);

/* The default: text. */
extern const output_format *const output_format_text;

#endif
