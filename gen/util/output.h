/* output — where reports go: stdout, or a file replaced atomically.
 *
 * With a path, output_open creates a temporary file beside it (mkstemp:
 * unpredictable name, mode 0600 while being written), and output_commit
 * flushes, fsyncs, gives it the usual mode (0666 less the umask) and
 * renames it over PATH: a reader such as node_exporter's textfile
 * collector sees the old file or the new one, never half of one.  On any
 * write error, or output_abort, the temporary file is removed and PATH is
 * left as it was.
 *
 * Ownership: output_open returns an owned handle or NULL (diagnosed);
 * output_commit and output_abort free it; output_abort(NULL) is a no-op. */
#ifndef BPFSPEC_OUTPUT_H
#define BPFSPEC_OUTPUT_H

#include <stdio.h>

typedef struct output output;

/* PATH NULL or "-": standard output. */
output *output_open(const char *path);

/* The stream to write into. Borrowed. */
FILE *output_stream(output *o);

/* Makes what was written visible.  Returns 0, or -1 after a diagnostic
 * (disk full, pipe closed...). */
int output_commit(output *o);

void output_abort(output *o);

#endif
