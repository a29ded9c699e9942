/* report_load — reads JSON reports back into the report model (see
 * report_load.h).
 *
 * The loader is the inverse of render_json: every field render_json
 * writes is required with its documented type (docs/report.md), values
 * render_json derives (mean_ns, main_thread) are type-checked and
 * otherwise ignored, and the first problem found is reported with the
 * file name and the JSON path of the field.  What a feature writes (such
 * as attribution's "attribution" and "blockers") its own load hooks read
 * (model/feature.h).  Each probe's fields are report_load_probe.c's. */
#include "render/report_load.h"
#include "model/feature.h"
#include "render/report_load_internal.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/safe.h"
#include "util/version.h"

/* ---- loading ----------------------------------------------------------- */

static const char load_hint[] =
	"compare reports written by `bpfspec run SPEC -o json > FILE` "
	"(docs/report.md lists every field)";

int rl_fail(loader *l, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (l->failed)
		return -1;
	l->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (path && *path)
		diag_error(load_hint, "%s: %s: %s", l->file, path, msg);
	else
		diag_error(load_hint, "%s: %s", l->file, msg);
	return -1;
}

int rl_oom(loader *l)
{
	if (!l->failed)
		diag_error(NULL, "%s: out of memory", l->file);
	l->failed = true;
	return -1;
}

void rl_path_key(char *out, const char *base, const char *key)
{
	snprintf(out, JPATH_LEN, *base ? "%s.%s" : "%s%s", base, key);
}

void rl_path_idx(char *out, const char *base, size_t i)
{
	snprintf(out, JPATH_LEN, "%s[%zu]", base, i);
}

const char *rl_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	case JSON_NULL: return "null";
	}
	return "?";
}

static const char *const want_names[] = {
	[T_INT] = "an integer", [T_UINT] = "a non-negative integer", [T_NUM] = "a number",
	[T_STR] = "a string",
	[T_BOOL] = "true or false", [T_ARR] = "an array", [T_OBJ] = "an object",
};

static bool type_ok(const json_t *v, want_type t)
{
	switch (t) {
	case T_INT: return json_is_integer(v);
	case T_UINT: return json_is_integer(v);
	case T_NUM: return json_is_number(v);
	case T_STR: return json_is_string(v);
	case T_BOOL: return json_is_boolean(v);
	case T_ARR: return json_is_array(v);
	case T_OBJ: return json_is_object(v);
	}
	return false;
}

/* The value of KEY in OBJ (at BASE), checked against T.  Returns NULL
 * when it is absent and OPTIONAL (no diagnostic), or after a diagnostic
 * when it is absent, of another type, or negative for T_UINT.  With
 * NULLABLE a JSON null is accepted and returned as is. */
json_t *rl_get(loader *l, const json_t *obj, const char *base, const char *key,
	       want_type t, bool nullable, bool optional)
{
	char path[JPATH_LEN];
	json_t *v = json_object_get(obj, key);

	if (!v) {
		if (!optional) {
			rl_path_key(path, base, key);
			rl_fail(l, path, "missing (expected %s%s)", want_names[t],
				nullable ? " or null" : "");
		}
		return NULL;
	}
	if (nullable && json_is_null(v))
		return v;
	if (!type_ok(v, t)) {
		rl_path_key(path, base, key);
		rl_fail(l, path, "expected %s%s, found %s", want_names[t],
			nullable ? " or null" : "", rl_type_name(v));
		return NULL;
	}
	if (t == T_UINT && json_integer_value(v) < 0) {
		rl_path_key(path, base, key);
		rl_fail(l, path, "expected a non-negative integer, found %lld",
			(long long)json_integer_value(v));
		return NULL;
	}
	return v;
}

int rl_get_u64(loader *l, const json_t *obj, const char *base, const char *key,
	       uint64_t *out)
{
	json_t *v = rl_get(l, obj, base, key, T_UINT, false, false);
	if (!v)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

int rl_get_long(loader *l, const json_t *obj, const char *base, const char *key, long *out)
{
	json_t *v = rl_get(l, obj, base, key, T_INT, false, false);
	if (!v)
		return -1;
	*out = (long)json_integer_value(v);
	return 0;
}

int rl_get_bool(loader *l, const json_t *obj, const char *base, const char *key, bool *out)
{
	json_t *v = rl_get(l, obj, base, key, T_BOOL, false, false);
	if (!v)
		return -1;
	*out = json_is_true(v);
	return 0;
}

/* Copies string KEY into *OUT (NULL for a JSON null when NULLABLE, or
 * when absent and OPTIONAL). */
int rl_get_str(loader *l, const json_t *obj, const char *base, const char *key, char **out,
	       bool nullable, bool optional)
{
	json_t *v = rl_get(l, obj, base, key, T_STR, nullable, optional);
	*out = NULL;
	if (!v)
		return l->failed ? -1 : 0;
	if (json_is_null(v))
		return 0;
	if (!(*out = strdup(json_string_value(v))))
		return rl_oom(l);
	return 0;
}

/* Replaces *OUT with the bytes that hex string H (at PATH) spells. */
int rl_put_hex_bytes(loader *l, const json_t *h, const char *path, char **out)
{
	const char *hex = json_string_value(h);
	size_t n = strlen(hex) / 2;
	char *bytes = strlen(hex) % 2 ? NULL : malloc(n + 1);

	if (!bytes && strlen(hex) % 2 == 0)
		return rl_oom(l);
	for (size_t i = 0; bytes && i < n; i++) {
		int hi = safe_hex_value(hex[2 * i]), lo = safe_hex_value(hex[2 * i + 1]);
		if (hi < 0 || lo < 0 || (hi | lo) == 0) {	/* not a digit, or a NUL */
			free(bytes);
			bytes = NULL;
		} else {
			bytes[i] = (char)(hi << 4 | lo);
		}
	}
	if (!bytes)
		return rl_fail(l, path, "expected pairs of hex digits, none of them 00");
	bytes[n] = '\0';
	free(*out);
	*out = bytes;
	return 0;
}

/* Bytes the traced process controls (a thread name, a path): the text of
 * KEY, or the exact bytes of KEY_hex, which the writer adds when they are
 * not UTF-8 (render_json's rjson_put_bytes) and KEY holds a lossy text. */
int rl_get_bytes(loader *l, const json_t *obj, const char *base, const char *key, char **out,
		 bool nullable, bool optional)
{
	char hex_key[64], path[JPATH_LEN];

	if (rl_get_str(l, obj, base, key, out, nullable, optional) < 0)
		return -1;
	snprintf(hex_key, sizeof hex_key, "%s_hex", key);
	json_t *h = rl_get(l, obj, base, hex_key, T_STR, false, true);
	if (!h)
		return l->failed ? -1 : 0;
	rl_path_key(path, base, hex_key);
	return rl_put_hex_bytes(l, h, path, out);
}

/* Copies number KEY, a fraction from 0 to 1, into *OUT. */
int rl_get_fraction(loader *l, const json_t *obj, const char *base, const char *key,
		    double *out)
{
	char path[JPATH_LEN];
	json_t *v = rl_get(l, obj, base, key, T_NUM, false, false);

	if (!v)
		return -1;
	*out = json_number_value(v);
	if (!(*out >= 0 && *out <= 1)) {
		rl_path_key(path, base, key);
		return rl_fail(l, path, "expected a number from 0 to 1, found %g", *out);
	}
	return 0;
}

json_t *rl_get_arr(loader *l, const json_t *obj, const char *base, const char *key)
{
	return rl_get(l, obj, base, key, T_ARR, false, false);
}

/* Array element I of ARR (at BASE) as an object, its path in PATH. */
json_t *rl_elem_obj(loader *l, const json_t *arr, const char *base, size_t i, char *path)
{
	json_t *v = json_array_get(arr, i);
	rl_path_idx(path, base, i);
	if (!json_is_object(v)) {
		rl_fail(l, path, "expected an object, found %s", rl_type_name(v));
		return NULL;
	}
	return v;
}

/* Allocates N zeroed elements of SIZE (a valid pointer even for N = 0
 * is not needed: NULL is returned and the caller stores 0 elements). */
int rl_alloc_array(loader *l, void **out, size_t n, size_t size)
{
	*out = NULL;
	if (n == 0)
		return 0;
	if (!(*out = calloc(n, size)))
		return rl_oom(l);
	return 0;
}

/* target.pids (reports from before it was written have pid alone): every
 * traced process, positive, the first being target.pid, into REP.
 * Returns 0, or -1 after a diagnostic. */
static int load_pids(loader *l, const json_t *t, report *rep)
{
	char path[JPATH_LEN];
	json_t *arr = rl_get(l, t, "target", "pids", T_ARR, false, true);
	size_t n = arr ? json_array_size(arr) : 0;

	if (l->failed)
		return -1;
	if (n == 0)
		return 0;
	if (!(rep->pids = calloc(n, sizeof *rep->pids)))
		return rl_oom(l);
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(arr, i);
		rl_path_idx(path, "target.pids", i);
		if (!json_is_integer(v) || json_integer_value(v) <= 0)
			return rl_fail(l, path, "expected a pid (a positive integer)");
		rep->pids[i] = (long)json_integer_value(v);
	}
	rep->n_pids = n;
	if (rep->pids[0] != rep->pid)
		return rl_fail(l, "target.pids[0]", "%ld is not target.pid (%ld)", rep->pids[0],
			       rep->pid);
	return 0;
}

/* The optional "parameters" object (name -> value text). */
static int load_params(loader *l, const json_t *root, report *rep)
{
	json_t *ps = rl_get(l, root, "", "parameters", T_OBJ, false, true), *v;
	const char *name;
	char path[JPATH_LEN];
	size_t n;

	if (!ps)
		return l->failed ? -1 : 0;
	n = json_object_size(ps);
	if (rl_alloc_array(l, (void **)&rep->param_names, n, sizeof *rep->param_names) < 0 ||
	    rl_alloc_array(l, (void **)&rep->param_values, n, sizeof *rep->param_values) < 0 ||
	    rl_alloc_array(l, (void **)&rep->param_set, n, sizeof *rep->param_set) < 0)
		return -1;
	json_object_foreach(ps, name, v) {
		if (!json_is_string(v)) {
			rl_path_key(path, "parameters", name);
			return rl_fail(l, path, "expected a string, found %s", rl_type_name(v));
		}
		rep->param_names[rep->n_params] = strdup(name);
		rep->param_values[rep->n_params] = strdup(json_string_value(v));
		rep->n_params++;
		if (!rep->param_names[rep->n_params - 1] || !rep->param_values[rep->n_params - 1])
			return rl_oom(l);
	}
	return 0;
}

/* ROOT's schema into L->schema: this bpfspec's, or an older one it still
 * reads.  Returns 0, or -1 after a diagnostic. */
static int load_schema(loader *l, const json_t *root)
{
	json_t *v = rl_get(l, root, "", "schema", T_INT, false, false);

	if (!v)
		return -1;
	json_int_t n = json_integer_value(v);
	if (n < BPFSPEC_REPORT_SCHEMA_OLDEST || n > BPFSPEC_REPORT_SCHEMA) {
		l->failed = true;
		diag_error("compare it with the bpfspec version that wrote it",
			   "%s: report schema %lld is not supported by this bpfspec (schema %d)",
			   l->file, (long long)n, BPFSPEC_REPORT_SCHEMA);
		return -1;
	}
	l->schema = (int)n;
	return 0;
}

/* "target" (pid, binary, libuv_version, pids) and the bpftrace_version
 * beside it, into REP (owned copies).  Returns 0, or -1 after a
 * diagnostic. */
static int load_target(loader *l, const json_t *root, report *rep)
{
	json_t *t = rl_get(l, root, "", "target", T_OBJ, false, false);

	if (!t || rl_get_long(l, t, "target", "pid", &rep->pid) < 0 ||
	    rl_get_bytes(l, t, "target", "binary", &rep->binary, true, false) < 0 ||
	    rl_get_str(l, t, "target", "libuv_version", &rep->libuv_version, false, true) < 0 ||
	    rl_get_str(l, root, "", "bpftrace_version", &rep->bpftrace_version, false, true) < 0 ||
	    load_pids(l, t, rep) < 0)
		return -1;
	return 0;
}

/* The window and the run's counts: duration_ns, partial (and its reason),
 * cumulative, window_start_unix_ns, lost_events, attached_probes and
 * expected_probes into REP; percentile_method checked, not kept.
 * Returns 0, or -1 after a diagnostic. */
static int load_window(loader *l, const json_t *root, report *rep)
{
	if (rl_get_u64(l, root, "", "duration_ns", &rep->duration_ns) < 0 ||
	    rl_get_bool(l, root, "", "partial", &rep->partial) < 0)
		return -1;
	json_t *cumulative = rl_get(l, root, "", "cumulative", T_BOOL, false, true);
	if (l->failed)
		return -1;
	rep->cumulative = cumulative && json_is_true(cumulative);
	/* Reports from before the window was dated have no start. */
	json_t *start = rl_get(l, root, "", "window_start_unix_ns", T_UINT, false, true);
	if (l->failed)
		return -1;
	if (start)
		rep->start_unix_ns = (uint64_t)json_integer_value(start);
	if (rep->partial &&
	    rl_get_str(l, root, "", "partial_reason", &rep->partial_reason, true, true) < 0)
		return -1;
	if (rl_get_u64(l, root, "", "lost_events", &rep->lost_events) < 0 ||
	    rl_get_long(l, root, "", "attached_probes", &rep->attached_probes) < 0 ||
	    rl_get_long(l, root, "", "expected_probes", &rep->expected_probes) < 0 ||
	    !rl_get(l, root, "", "percentile_method", T_STR, false, false))
		return -1;
	return 0;
}

/* The "probes" array into REP->probes (REP->n_probes counts the probes
 * begun, for report_free).  Returns 0, or -1 after a diagnostic. */
static int load_probes(loader *l, const json_t *root, report *rep)
{
	char path[JPATH_LEN];
	json_t *probes = rl_get_arr(l, root, "", "probes");

	if (!probes)
		return -1;
	size_t n = json_array_size(probes);
	if (rl_alloc_array(l, (void **)&rep->probes, n, sizeof *rep->probes) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *p = rl_elem_obj(l, probes, "probes", i, path);
		rep->n_probes = i + 1;
		if (!p || rl_load_probe(l, p, path, &rep->probes[i]) < 0)
			return -1;
	}
	return 0;
}

/* The "warnings" array of strings into REP->warnings (owned copies).
 * Returns 0, or -1 after a diagnostic. */
static int load_warnings(loader *l, const json_t *root, report *rep)
{
	char path[JPATH_LEN];
	json_t *warnings = rl_get_arr(l, root, "", "warnings");

	if (!warnings)
		return -1;
	size_t n = json_array_size(warnings);
	if (rl_alloc_array(l, (void **)&rep->warnings, n, sizeof *rep->warnings) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(warnings, i);
		if (!json_is_string(v)) {
			rl_path_idx(path, "warnings", i);
			return rl_fail(l, path, "expected a string, found %s", rl_type_name(v));
		}
		if (!(rep->warnings[i] = strdup(json_string_value(v))))
			return rl_oom(l);
		rep->n_warnings = i + 1;
	}
	return 0;
}

/* Report ROOT into REP, in the order render_json writes the fields (the
 * first problem is the one reported).  Returns 0, or -1 after a
 * diagnostic (what was filled stays in REP, for report_free). */
static int load_report(loader *l, const json_t *root, report *rep)
{
	if (!json_is_object(root))
		return rl_fail(l, NULL, "expected a JSON object (a report), found %s",
			       rl_type_name(root));
	/* The schema first: a newer report may differ in any other field. */
	if (load_schema(l, root) < 0)
		return -1;
	if (!rl_get(l, root, "", "bpfspec_version", T_STR, false, false) ||
	    rl_get_str(l, root, "", "spec", &rep->spec_name, true, false) < 0 ||
	    rl_get_str(l, root, "", "spec_path", &rep->spec_path, true, false) < 0)
		return -1;
	if (load_params(l, root, rep) < 0)
		return -1;
	json_t *timing = rl_get(l, root, "", "timing", T_STR, false, true);
	if (l->failed)
		return -1;
	rep->entry_only = timing && strcmp(json_string_value(timing), "entry-only") == 0;
	if (load_target(l, root, rep) < 0 || load_window(l, root, rep) < 0 ||
	    load_probes(l, root, rep) < 0)
		return -1;
	for (const feature_ops *const *f = features; *f; f++)
		if ((*f)->load && (*f)->load(l, root, rep) < 0)
			return -1;
	return load_warnings(l, root, rep);
}

static bool all_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

/* When TEXT holds several JSON values one after the other (NDJSON from
 * interval mode), returns how many and sets *LAST_LINE to the line the
 * last one starts on; otherwise returns 0. */
static size_t count_values(const char *text, size_t len, unsigned *last_line)
{
	size_t off = 0, n = 0;
	unsigned line = 1;

	while (off < len && !all_space(text + off, len - off)) {
		json_error_t err;
		/* Lines up to where the value starts. */
		while (off < len && isspace((unsigned char)text[off]))
			if (text[off++] == '\n')
				line++;
		json_t *v = json_loadb(text + off, len - off, JSON_DISABLE_EOF_CHECK, &err);
		if (!v)
			return 0;
		json_decref(v);
		if (err.position <= 0 || (size_t)err.position > len - off)
			return 0;
		*last_line = line;
		for (size_t i = 0; i < (size_t)err.position; i++)
			if (text[off + i] == '\n')
				line++;
		off += (size_t)err.position;
		n++;
	}
	return n > 1 ? n : 0;
}

/* The report ROOT (borrowed) holds, or NULL after a diagnostic naming
 * NAME and the JSON path. */
static report *report_from_root(json_t *root, const char *name)
{
	loader l = { .file = name };
	report *rep = calloc(1, sizeof *rep);
	if (!rep) {
		diag_error(NULL, "%s: out of memory", name);
		return NULL;
	}
	rep->attached_probes = -1;
	if (load_report(&l, root, rep) < 0) {
		report_free(rep);
		return NULL;
	}
	return rep;
}

report *report_parse_json(const char *text, size_t len, const char *name)
{
	json_error_t err;

	if (all_space(text, len)) {
		diag_error("write one with `bpfspec run SPEC -o json > FILE`",
			   "%s: empty file: expected a JSON report", name);
		return NULL;
	}
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		unsigned last_line = 0;
		size_t n = count_values(text, len, &last_line);
		if (n) {
			char hint[256];
			snprintf(hint, sizeof hint,
				 "pick one line: `sed -n %up %s > one.json` (the last report)",
				 last_line, strcmp(name, "<stdin>") == 0 ? "FILE" : name);
			diag_error(hint,
				   "%s: holds %zu JSON values, not one report (interval mode, -i, "
				   "writes one report per line)",
				   name, n);
			return NULL;
		}
		diag_src src = { .path = name, .text = text, .len = len };
		diag_loc loc = { 0, 0, 1, NULL };
		if (err.line > 0 && err.position >= 0 && (size_t)err.position <= len) {
			/* jansson points at the end of the offending token: underline
			 * a bare word or number from its start. */
			size_t end = (size_t)err.position, start = end;
			while (start > 0 && text[start - 1] &&
			       (isalnum((unsigned char)text[start - 1]) ||
				strchr("_.+-", text[start - 1])))
				start--;
			if (start == end && start > 0 && text[start - 1] != '\n')
				start--;
			loc = diag_loc_of(&src, start, end);
		}
		diag_at(DIAG_ERROR, &src, loc, load_hint, "not a JSON report: %s", err.text);
		return NULL;
	}
	report *rep = report_from_root(root, name);
	json_decref(root);
	return rep;
}

/* Reads all of PATH ("-" = stdin) into *TEXT (owned) and *LEN; *NAME is
 * what diagnostics call it.  Returns 0, or -1 after a diagnostic. */
static int read_all(const char *path, char **text, size_t *len, const char **name)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	size_t cap = 0;

	*name = is_stdin ? "<stdin>" : path;
	*text = NULL;
	*len = 0;
	if (!f) {
		diag_error("check the path", "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (*len + 65536 > cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nt = realloc(*text, ncap);
			if (!nt) {
				diag_error(NULL, "%s: out of memory", *name);
				goto fail;
			}
			*text = nt;
			cap = ncap;
		}
		size_t got = fread(*text + *len, 1, cap - *len, f);
		*len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		diag_error(NULL, "cannot read %s: %s", *name, strerror(errno));
		goto fail;
	}
	if (!is_stdin)
		fclose(f);
	return 0;
fail:
	if (!is_stdin)
		fclose(f);
	free(*text);
	*text = NULL;
	return -1;
}

report *report_load_json(const char *path)
{
	char *text;
	size_t len;
	const char *name;

	if (read_all(path, &text, &len, &name) < 0)
		return NULL;
	report *rep = report_parse_json(text, len, name);
	free(text);
	return rep;
}

void report_stream_free(report **reps, size_t n)
{
	for (size_t i = 0; reps && i < n; i++)
		report_free(reps[i]);
	free(reps);
}

report **report_load_stream(const char *path, size_t *n)
{
	char *text;
	size_t len, off = 0, cap = 0;
	const char *name;
	report **reps = NULL;
	unsigned line = 1;

	*n = 0;
	if (read_all(path, &text, &len, &name) < 0)
		return NULL;
	while (off < len && !all_space(text + off, len - off)) {
		while (off < len && isspace((unsigned char)text[off]))
			if (text[off++] == '\n')
				line++;
		json_error_t err;
		json_t *v = json_loadb(text + off, len - off,
				       JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &err);
		size_t used = v && err.position > 0 ? (size_t)err.position : 0;
		char where[PATH_MAX + 32];
		if (*n == 0 && used && all_space(text + off + used, len - off - used))
			snprintf(where, sizeof where, "%s", name);
		else
			snprintf(where, sizeof where, "%s, line %u", name, line);
		if (used == 0 || used > len - off) {
			/* Not a value.  The first: the whole file's parse says where
			 * and why (one report, pretty-printed over many lines); a
			 * later one: its own line's (a stream cut short). */
			json_decref(v);
			const char *nl = memchr(text + off, '\n', len - off);
			if (*n == 0)
				report_free(report_parse_json(text, len, name));
			else
				report_free(report_parse_json(text + off,
							      nl ? (size_t)(nl - (text + off)) : len - off,
							      where));
			goto fail;
		}
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			report **nr = realloc(reps, ncap * sizeof *nr);
			if (!nr) {
				json_decref(v);
				diag_error(NULL, "%s: out of memory", name);
				goto fail;
			}
			reps = nr;
			cap = ncap;
		}
		reps[*n] = report_from_root(v, where);
		json_decref(v);
		if (!reps[*n])
			goto fail;
		(*n)++;
		for (size_t i = 0; i < used; i++)
			if (text[off + i] == '\n')
				line++;
		off += used;
	}
	if (*n == 0) {
		report_free(report_parse_json(text, len, name));	/* says why */
		goto fail;
	}
	free(text);
	return reps;
fail:
	free(text);
	report_stream_free(reps, *n);
	*n = 0;
	return NULL;
}
