/* generator_maps_rule — the check of generator_maps_rule.h. */
#include "program/generator_maps_rule.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

#define MAX_NAMES 256
#define NAME_MAX_LEN 64

typedef struct name_set {
	char names[MAX_NAMES][NAME_MAX_LEN];
	size_t n;
	bool overflow;
} name_set;

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool set_has(const name_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return true;
	return false;
}

/* Adds every map named right after CALL ("delete(@", "print(@",
 * "clear(@") in LINE (LEN bytes) to S. */
static void collect(name_set *s, const char *line, size_t len, const char *call)
{
	size_t cl = strlen(call);
	for (const char *p = line; (p = memmem(p, len - (size_t)(p - line), call, cl)); p += cl) {
		char name[NAME_MAX_LEN];
		size_t n = 0;
		for (const char *q = p + cl; q < line + len && name_char(*q) && n + 1 < sizeof name; q++)
			name[n++] = *q;
		name[n] = '\0';
		if (!n || set_has(s, name))
			continue;
		if (s->n == MAX_NAMES) {
			s->overflow = true;
			return;
		}
		strcpy(s->names[s->n++], name);
	}
}

/* BEGIN runs before the probes are attached and END once they are
 * detached: what they print and clear is safe. */
int gen_check_maps_rule(const char *text)
{
	name_set *deleted = calloc(1, sizeof *deleted), *listed = calloc(1, sizeof *listed);
	char header[128] = "";
	bool in_block = false;
	int rc = 0;

	if (!deleted || !listed) {
		free(deleted);
		free(listed);
		diag_error(NULL, "out of memory");
		return -1;
	}
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len == 1 && line[0] == '{') {
			in_block = true;
		} else if (len == 1 && line[0] == '}') {
			in_block = false;
			header[0] = '\0';
		} else if (!in_block && len && line[0] != '/' && line[0] != ' ' && line[0] != '\t') {
			/* The block's probe (its first line: several attach points
			 * follow on lines ending in ','). */
			if (!header[0])
				snprintf(header, sizeof header, "%.*s", (int)len, line);
		} else if (in_block && strcmp(header, "END") != 0 && strcmp(header, "BEGIN") != 0) {
			if (strcmp(header, "tracepoint:sched:sched_process_exit") != 0)
				collect(deleted, line, len, "delete(@");
			collect(listed, line, len, "print(@");
			collect(listed, line, len, "clear(@");
		}
		line = nl ? nl + 1 : NULL;
	}
	for (size_t i = 0; i < deleted->n && rc == 0; i++)
		if (set_has(listed, deleted->names[i])) {
			diag_error("this is a bug in bpfspec: please report it with the spec",
				   "the program deletes from @%s in a probe and prints or clears it "
				   "while the probes run (bpftrace 0.17 aborts on that)",
				   deleted->names[i]);
			rc = -1;
		}
	if (rc == 0 && (deleted->overflow || listed->overflow)) {
		diag_error("this is a bug in bpfspec: please report it with the spec",
			   "the program has more than %d maps: their deletes went unchecked", MAX_NAMES);
		rc = -1;
	}
	free(deleted);
	free(listed);
	return rc;
}
