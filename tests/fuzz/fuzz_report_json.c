/* libFuzzer harness for the JSON report loader (diff.c): any bytes go to
 * report_parse_json; a report that loads is written again by the JSON
 * and text renderers and compared with itself and with an empty report
 * (text and JSON diffs), all into /dev/null.  Nothing may crash, leak or
 * trip UBSan.  Build and run: tests/fuzz/run.sh [SECONDS]. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/report.h"
#include "render/diff.h"
#include "render/render.h"
#include "render/report_load.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;

	if (!sink) {
		sink = fopen("/dev/null", "w");
		if (!sink)
			abort();
		diag_set_stream(sink);
	}
	report *rep = report_parse_json((const char *)data, size, "fuzz.json");
	if (!rep)
		return 0;
	render_json(sink, rep);
	render_text(sink, rep);
	/* Against itself (everything compared) and against an empty report
	 * (everything new, then gone). */
	report empty = { .attached_probes = -1 };
	diff_render(sink, rep, rep, DIFF_TEXT);
	diff_render(sink, rep, rep, DIFF_JSON);
	diff_render(sink, &empty, rep, DIFF_TEXT);
	diff_render(sink, rep, &empty, DIFF_JSON);
	report_free(rep);
	return 0;
}
