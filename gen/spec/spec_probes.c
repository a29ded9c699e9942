/* spec_probes — pass 2: the tree against the format: top keys and probes (spec_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"
#include "util/suggest.h"

/* ---- pass 2: the tree against the format ---- */

const char *const sl_top_keys[] = {
	"name", "description", "objects", "duration", "probes", "checks", "parameters",
	"timing", "blockers", "stacks", NULL,
};
const char *const sl_top_examples[] = {
	"name: libuv-phases", "description: Time in each libuv loop phase",
	"objects: [main, \"libuv.so*\"]", "duration: 10s", "probes: [...]",
	"checks: [\"timers.p99 > 100ms\"]", "parameters: {threshold: 1ms}",
	"timing: entry-only", "blockers: 1ms", "stacks: 10ms",
};

const char *const sl_probe_keys[] = {
	"name", "kind", "function", "object", "optional", "missing_reason", "syscalls",
	"probe", "threshold", "limit", "unit", "per_thread", "description", "args", "derived",
	"attribute", "points", "labels", "open", "wait", "workers", "pool", NULL,
};
const char *const sl_probe_examples[] = {
	"name: timers", "kind: latency", "function: uv__run_timers", "object: \"libuv.so*\"",
	"optional: true", "missing_reason: inlined by the compiler", "syscalls: [openat, read]",
	"probe: \"tracepoint:sched:sched_switch\"", "threshold: 1ms", "limit: 1000", "unit: ms", "per_thread: false",
	"description: Time spent running timers",
	"args: [{name: line, value: retval, type: string}]",
	"derived: libuv-pending", "attribute: true",
	"points: [{probe: \"uprobe:main:submit\", key: arg0}, {stage: run, probe: \"uprobe:main:done\", key: arg0}]",
	"labels: 16", "open: 1024", "wait: queued", "workers: run", "pool: libuv",
};

/* What each probe key is for, for "does not apply" hints: a use ("to
 * time a function", then the kinds that take the key are offered) or,
 * for a key no separate probe would want, a role. */
const char *const sl_probe_key_uses[] = {
	[P_FUNCTION] = "to time a function",
	[P_SYSCALLS] = "to measure syscalls",
	[P_PROBE] = "to count or record the hits of a probe point",
	[P_THRESHOLD] = "to record each call at least that long",
	[P_LIMIT] = "to record single slow calls",
	[P_ARGS] = "to record the arguments of each hit of a probe point",
	[P_POINTS] = "to time work from one probe point to another, across threads",
	[P_LABELS] = "to bound the labels of a span",
	[P_OPEN] = "to bound the spans open at once",
	[P_WAIT] = "to name the stage of a span that waits for a worker thread",
	[P_WORKERS] = "to name the stage of a span that worker threads run",
	[P_POOL] = "to say which thread pool runs a span's workers stage",
	[N_PROBE] = NULL,
};
const char *const sl_probe_key_roles[] = {
	[P_OBJECT] = "'object' says where a latency probe's 'function' is",
	[P_OPTIONAL] = "'optional' marks a latency probe whose 'function' may be missing",
	[P_MISSING_REASON] = "'missing_reason' says why an optional latency probe's 'function' "
			     "may be missing",
	[P_DERIVED] = "'derived' times the phase of a latency probe whose 'function' is missing",
	[P_UNIT] = "'unit' is how durations are shown, and it has none",
	[P_PER_THREAD] = "'per_thread' splits figures by thread, and it always does",
	[P_ATTRIBUTE] = "'attribute' splits a latency probe's time into on-CPU, blocked and "
			"waiting for a CPU",
	[N_PROBE] = NULL,
};

const spec_kind_rules *sl_kind_rules(probe_kind kind)
{
	const kind_ops *ops = kind_ops_of(kind);
	return ops ? ops->spec : NULL;
}

const spec_kind_needs *spec_kind_needs_of(probe_kind kind)
{
	const spec_kind_rules *rules = sl_kind_rules(kind);
	return rules ? &rules->needs : NULL;
}

/* The forms a count probe's 'probe' may take, for hints. */

diag_loc sl_node_loc(const loader *ld, const node *n)
{
	if (!n->src)
		return sl_marks_loc(ld, n->start, n->end);
	if (ld->errors >= SPEC_MAX_ERRORS)
		return (diag_loc){ 0, 0, 0, NULL };
	return diag_loc_of(n->src, sl_mark_offset(n->src, n->start), sl_mark_offset(n->src, n->end));
}

/* Where a mapping starts, for "has no 'x'": its first key. */
diag_loc sl_map_loc(const loader *ld, const node *map)
{
	return sl_node_loc(ld, map->n_kids ? map->kids[0] : map);
}

/* N is a scalar holding exactly WORD. */
bool sl_node_is(const node *n, const char *word)
{
	return n->type == NODE_SCALAR && n->len == strlen(word) &&
	       memcmp(n->value, word, n->len) == 0;
}

bool sl_is_null(const node *n)
{
	return n->type == NODE_SCALAR && n->plain &&
	       (n->len == 0 || sl_node_is(n, "~") || sl_node_is(n, "null") || sl_node_is(n, "Null") ||
		sl_node_is(n, "NULL"));
}

const char *sl_type_name(const node *n)
{
	switch (n->type) {
	case NODE_SEQ:
		return "a list";
	case NODE_MAP:
		return "a mapping";
	case NODE_SCALAR:
	case NODE_BAD:
		break;
	}
	return sl_is_null(n) ? "nothing" : "a single value";
}

/* Writes "did you mean 'X'? valid WHAT are: A, B, C" into HINT. */
const char *sl_choices_hint(char *hint, size_t size, const char *word,
				const char *what, const char *const *words)
{
	size_t best = 3, o = 0;
	const char *guess = NULL;

	for (size_t i = 0; words[i]; i++) {
		size_t d = suggest_distance_str(word, words[i]);
		if (d < best) {
			best = d;
			guess = words[i];
		}
	}
	if (guess)
		o += (size_t)snprintf(hint, size, "did you mean '%s'? ", guess);
	o += (size_t)snprintf(hint + o, size - o, "valid %s are: ", what);
	for (size_t i = 0; words[i] && o < size; i++)
		o += (size_t)snprintf(hint + o, size - o, "%s%s", i ? ", " : "", words[i]);
	return hint;
}

/* Checks one key of a mapping: a plain word, known, not seen before.
 * Returns its index in KEYS, or -1 after reporting it.  WHERE is
 * "at the top level" or "in probe 'x'". */
int sl_check_key(loader *ld, const node *k, const char *const *keys, const node **seen,
		     const char *where)
{
	char buf[SHOW_BUF], hint[256];
	int i;

	if (k->type == NODE_BAD)
		return -1;
	if (k->type != NODE_SCALAR) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k), "keys are plain words such as 'name'",
		       "a key %s must be a word, not %s", where, sl_type_name(k));
		return -1;
	}
	if (sl_is_null(k)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k), "write 'key: value'",
		       "a key %s is missing before the ':'", where);
		return -1;
	}
	for (i = 0; keys[i]; i++)
		if (strlen(keys[i]) == k->len && memcmp(keys[i], k->value, k->len) == 0)
			break;
	if (!keys[i]) {
		if (sl_quiet(ld))
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k), NULL, "unknown key");
		else
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k),
				  sl_choices_hint(hint, sizeof(hint), k->value, "keys", keys),
				  "unknown key '%s' %s", sl_show(buf, k->value, k->len), where);
		return -1;
	}
	if (seen[i]) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k),
		       "a key may appear once in a mapping; remove one of them",
		       "duplicate key '%s' %s", keys[i], where);
		sl_report(ld, DIAG_NOTE, sl_node_loc(ld, seen[i]), NULL,
		       "'%s' was first given here", keys[i]);
		return -1;
	}
	seen[i] = k;
	return i;
}

/* Checks that value V of key K is a non-empty plain value.  WHAT names the
 * key ("'function' in probe 'x'"), EXAMPLE shows it used.  Returns false
 * after reporting (or when V is an alias, already reported). */
bool sl_want_scalar(loader *ld, const node *k, const node *v, const char *what,
			const char *example, bool required)
{
	char hint[256];

	if (v->type == NODE_BAD)
		return false;
	if (sl_is_null(v)) {
		snprintf(hint, sizeof(hint), "give it a value, as in '%s'%s", example,
			 required ? "" : ", or remove the line");
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k), hint, "%s has no value", what);
		return false;
	}
	if (v->type != NODE_SCALAR) {
		snprintf(hint, sizeof(hint), "write a single value on the key's line, as in '%s'",
			 example);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "%s must be a single value, not %s",
		       what, sl_type_name(v));
		return false;
	}
	return true;
}

char *sl_dup_value(const node *v)
{
	char *s = malloc(v->len + 1);

	if (s)
		memcpy(s, v->value, v->len + 1);
	return s;
}

/* Reports a missing allocation; returns false. */
bool sl_no_memory(loader *ld)
{
	sl_report(ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL }, NULL, "out of memory");
	return false;
}

/* Free text: at most MAX bytes, one line, no control or invisible
 * characters.  Trailing line breaks (from block scalars) are dropped. */
bool sl_check_prose(loader *ld, const node *k, const node *v, const char *what,
		       const char *example, size_t max, char **out)
{
	size_t len, i;

	if (!sl_want_scalar(ld, k, v, what, example, false))
		return false;
	for (len = v->len; len && v->value[len - 1] == '\n'; len--)
		;
	if (len > max) {
		char hint[128];
		snprintf(hint, sizeof(hint), "shorten it to at most %zu bytes", max);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "%s is too long (%zu bytes)", what,
		       len);
		return false;
	}
	for (i = 0; i < len;) {
		size_t n = diag_char_len(v->value + i, len - i);
		const unsigned char *u = (const unsigned char *)v->value + i;
		uint32_t cp = u[0];

		if (n == 2)
			cp = (uint32_t)(u[0] & 0x1f) << 6 | (u[1] & 0x3f);
		else if (n == 3)
			cp = (uint32_t)(u[0] & 0x0f) << 12 | (uint32_t)(u[1] & 0x3f) << 6 | (u[2] & 0x3f);
		else if (n == 4)
			cp = 0x10000;	/* beyond anything rejected below */
		else if (u[0] >= 0x80)
			cp = 0x7f;	/* not UTF-8 */
		if (cp == '\n') {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
			       "join the lines, or write it as a folded block ('>-') so that YAML "
			       "joins them",
			       "%s must be one line of text", what);
			return false;
		}
		/* C0 and C1 controls, DEL, invisible and direction marks, line
		 * separators, BOM; a byte that is not UTF-8 (it cannot pass
		 * libyaml) counts as a control too. */
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x200b && cp <= 0x200f) ||
		    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
		    cp == 0xfeff) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
			       cp == '\t' ? "replace the tab with spaces"
					  : "remove it: this text is plain, printable characters",
			       "%s contains a control or invisible character (U+%04X)", what,
			       (unsigned)cp);
			return false;
		}
		i += n;
	}
	*out = malloc(len + 1);
	if (!*out)
		return sl_no_memory(ld);
	memcpy(*out, v->value, len);
	(*out)[len] = '\0';
	return true;
}

bool sl_check_bool(loader *ld, const node *k, const node *v, const char *what,
		       const char *example, bool *out)
{
	char buf[SHOW_BUF];

	if (!sl_want_scalar(ld, k, v, what, example, false))
		return false;
	if (sl_node_is(v, "true") || sl_node_is(v, "false")) {
		if (!v->plain) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
			       "remove the quotes: booleans are written true or false",
			       "%s must be true or false, not the quoted string \"%s\"", what,
			       sl_show(buf, v->value, v->len));
			return false;
		}
		*out = v->value[0] == 't';
		return true;
	}
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
	       "write true or false (lowercase, no quotes); yes, no, on, off and 1 are not "
	       "accepted",
	       "%s must be true or false, not '%s'", what, sl_show(buf, v->value, v->len));
	return false;
}

bool sl_check_object(loader *ld, const node *v, const char *what, char **out)
{
	char buf[SHOW_BUF];
	const char *hint =
		"an object is 'main' (the executable) or a file-name glob made of letters, "
		"digits and _ . + - * ? [ ], such as 'libuv.so*'";

	if (sl_object_ok(v->value, v->len)) {
		*out = sl_dup_value(v);
		return *out ? true : sl_no_memory(ld);
	}
	if (memchr(v->value, '/', v->len))
		hint = "objects match file names without their directory; write e.g. 'libuv.so*'";
	else if (v->len > OBJECT_MAX)
		hint = "object names are at most 128 characters";
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "invalid object '%s'%s",
	       sl_show(buf, v->value, v->len), what);
	return false;
}

const duration_field sl_duration_top = {
	"duration", "500ms, 10s or 1.5m", "trace until stopped", "means until stopped",
};
const duration_field sl_duration_threshold = {
	"threshold", "100us, 1ms or 1.5s", "record every call", "records every call",
};
const duration_field sl_duration_blockers = {
	"blockers", "500us, 1ms or 10ms", "record every syscall", "records every syscall",
};
const duration_field sl_duration_stacks = {
	"stacks", "5ms, 10ms or 50ms", "sample no stack", "samples no stack",
};

/* Checks the duration value V of key K (F says which field; WHAT names it
 * as want_scalar does; WHERE is "" or " in probe 'x'").  Returns true and
 * sets *NS, or false after reporting. */
bool sl_check_duration_value(loader *ld, const node *k, const node *v,
				 const duration_field *f, const char *what, const char *where,
				 const char *example, uint64_t *ns)
{
	char buf[SHOW_BUF], hint[256];
	int rc;

	if (!sl_want_scalar(ld, k, v, what, example, false))
		return false;
	rc = memchr(v->value, '\0', v->len) ? -1 : sl_parse_duration(v->value, ns);
	if (rc == 0)
		return true;
	if (rc == -2) {
		snprintf(hint, sizeof(hint), "the longest %s is 24h; use 0 to %s", f->name, f->zero);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "%s '%s'%s is longer than a day",
		       f->name, sl_show(buf, v->value, v->len), where);
	} else if (v->value[0] == '-') {
		snprintf(hint, sizeof(hint), "a %s cannot be negative; use 0 to %s", f->name,
			 f->zero);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "invalid %s '%s'%s", f->name,
		       sl_show(buf, v->value, v->len), where);
	} else {
		snprintf(hint, sizeof(hint),
			 "write a number and a unit with no space, e.g. %s (units: ns, us, ms, s, "
			 "m, h); 0 %s", f->examples, f->zero_is);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "invalid %s '%s'%s", f->name,
		       sl_show(buf, v->value, v->len), where);
	}
	return false;
}

void sl_check_objects(loader *ld, spec *s, const node *k, const node *v)
{
	char what[32];

	if (v->type == NODE_BAD)
		return;
	if (v->type == NODE_SEQ && v->n_kids == 0) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "list at least one object, or remove the line to search only the "
		       "executable",
		       "'objects' is empty");
		return;
	}
	if (v->type != NODE_SEQ) {
		if (sl_is_null(v))
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k),
			       "list where to look for functions, as in 'objects: [main, "
			       "\"libuv.so*\"]', or remove the line",
			       "'objects' has no value");
		else
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
			       "write a list, even of one object: 'objects: [main, \"libuv.so*\"]'",
			       "'objects' must be a list, not %s", sl_type_name(v));
		return;
	}
	if (v->n_kids > SPEC_MAX_OBJECTS) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v->kids[SPEC_MAX_OBJECTS]),
		       "a spec searches at most 32 objects; use globs such as 'libfoo*.so*'",
		       "too many objects (%zu)", v->n_kids);
		return;
	}
	s->objects = calloc(v->n_kids, sizeof(*s->objects));
	if (!s->objects) {
		sl_no_memory(ld);
		return;
	}
	for (size_t i = 0; i < v->n_kids; i++) {
		const node *o = v->kids[i];
		char *obj = NULL;
		size_t j;

		snprintf(what, sizeof(what), "object %zu", i + 1);
		if (!sl_want_scalar(ld, k, o, what, "objects: [main, \"libuv.so*\"]", true) ||
		    !sl_check_object(ld, o, " in 'objects'", &obj))
			continue;
		for (j = 0; j < s->n_objects; j++)
			if (strcmp(s->objects[j], obj) == 0)
				break;
		if (j < s->n_objects) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, o), "remove one of them",
			       "object '%s' is listed twice", obj);
			free(obj);
			continue;
		}
		s->objects[s->n_objects++] = obj;
	}
}

/* The probe's name for messages: "probe 'timers'" when its mapping has a
 * valid name, else "probe N". */
void sl_probe_label(const node *map, size_t index, char *buf, size_t size)
{
	for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
		const node *k = map->kids[i], *v = map->kids[i + 1];
		if (sl_node_is(k, "name") &&
		    v->type == NODE_SCALAR && sl_probe_name_ok(v->value, v->len)) {
			snprintf(buf, size, "probe '%s'", v->value);
			return;
		}
	}
	snprintf(buf, size, "probe %zu", index + 1);
}

void sl_check_probe_name(loader *ld, spec *s, spec_probe *p, const node *v)
{
	char buf[SHOW_BUF];

	if (!sl_probe_name_ok(v->value, v->len)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "a probe name is 1-32 characters: a lowercase letter, then lowercase "
		       "letters, digits or '_' (it names bpftrace maps)",
		       "invalid probe name '%s'", sl_show(buf, v->value, v->len));
		return;
	}
	for (size_t i = 0; i < s->n_probes; i++) {
		if (s->probes[i].name && strcmp(s->probes[i].name, v->value) == 0) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), "probe names must be unique; rename one",
			       "duplicate probe name '%s'", v->value);
			sl_report(ld, DIAG_NOTE, s->probes[i].name_loc, NULL,
			       "probe '%s' was first defined here", v->value);
			return;
		}
	}
	p->name = sl_dup_value(v);
	if (!p->name)
		sl_no_memory(ld);
	p->name_loc = sl_node_loc(ld, v);
}

/* The kind a probe's mapping names, when it names a valid one (the first
 * 'kind' key counts, as for any duplicate key); else -1. */
int sl_probe_kind_in(const node *map)
{
	for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
		if (!sl_node_is(map->kids[i], "kind"))
			continue;
		for (int j = 0; kind_names[j]; j++)
			if (sl_node_is(map->kids[i + 1], kind_names[j]))
				return j;
		return -1;
	}
	return -1;
}

/* Writes into OUT (SIZE bytes) the kinds, other than EXCEPT (-1: none),
 * that take every key in KEYS and are offered for them: "'kind: a' or 'kind: b'", each with what
 * it does when DESCRIBED ("'kind: count' (hits of a probe point)"). */
static const char *offer_kinds(char *out, size_t size, unsigned keys, int except, bool described)
{
	probe_kind kinds[N_PROBE_KINDS];
	size_t n = 0, len = 0;

	for (int k = 0; k < N_PROBE_KINDS; k++)
		if (k != except && (sl_kind_rules((probe_kind)k)->keys & keys) == keys &&
		    !(sl_kind_rules((probe_kind)k)->not_offered & keys))
			kinds[n++] = (probe_kind)k;
	out[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		const char *sep = i == 0 ? "" : i + 1 < n ? ", " : " or ";
		int w = described ? snprintf(out + len, size - len, "%s%s", sep,
					     sl_kind_rules(kinds[i])->offer)
				  : snprintf(out + len, size - len, "%s'kind: %s'", sep,
					     kind_name(kinds[i]));
		len += w > 0 ? (size_t)w : 0;
	}
	return out;
}

/* Reports key K (index KEY) of a probe of kind KIND, which it does not
 * apply to. */
void sl_report_misplaced_key(loader *ld, const node *k, int key, probe_kind kind,
			     const char *where)
{
	const char *name = sl_probe_keys[key], *kname = kind_name(kind);
	const char *article = kind_shape_of(kind)->article;
	char hint[512], offers[384];

	if (sl_kind_rules(kind)->instead && sl_kind_rules(kind)->instead[key])
		snprintf(hint, sizeof(hint), "remove it: %s", sl_kind_rules(kind)->instead[key]);
	else if (sl_probe_key_uses[key])
		snprintf(hint, sizeof(hint), "remove it: %s %s probe %s; %s, add a separate probe with %s",
			 article, kname, sl_kind_rules(kind)->purpose, sl_probe_key_uses[key],
			 offer_kinds(offers, sizeof offers, KEY(key), (int)kind, false));
	else
		snprintf(hint, sizeof(hint), "remove it: %s %s probe %s; %s", article, kname,
			 sl_kind_rules(kind)->purpose,
			 sl_probe_key_roles[key] ? sl_probe_key_roles[key] : "it does not apply");
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k), hint, "'%s' %s does not apply to %s %s probe",
		  name, where, article, kname);
}

/* The hint for a probe with no 'kind', from the keys it has (SEEN). */
const char *sl_missing_kind_hint(char *out, size_t size, const node *const *seen)
{
	unsigned keys = 0;
	char offers[384];

	for (int key = 0; key < N_PROBE; key++)
		if (seen[key] && !(KEYS_EVERY & KEY(key)))
			keys |= KEY(key);
	offer_kinds(offers, sizeof offers, keys, -1, true);
	if (!offers[0])
		offer_kinds(offers, sizeof offers, 0, -1, true);
	snprintf(out, size, "add %s", offers);
	return out;
}

/* Checks V, the 'limit' of an events probe: a whole number of records,
 * 1..SPEC_MAX_EVENT_LIMIT, digits only.  Returns true and sets *OUT. */
bool sl_check_limit(loader *ld, const node *v, const char *where, unsigned *out)
{
	char buf[SHOW_BUF], hint[256];
	unsigned long long n = 0;
	size_t i;

	for (i = 0; i < v->len && is_digit(v->value[i]); i++)
		if (n <= SPEC_MAX_EVENT_LIMIT)
			n = n * 10 + (unsigned)(v->value[i] - '0');
	if (i < v->len || v->len == 0) {
		snprintf(hint, sizeof(hint),
			 "%swrite a whole number of records from 1 to %d, digits only, as in "
			 "'limit: 1000'",
			 v->value[0] == '-' ? "a limit cannot be negative; " : "",
			 SPEC_MAX_EVENT_LIMIT);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "invalid limit '%s' %s",
		       sl_show(buf, v->value, v->len), where);
		return false;
	}
	if (n == 0) {
		snprintf(hint, sizeof(hint),
			 "keep at least 1 record, or remove the line for the default (%d); "
			 "'threshold' chooses which calls are recorded",
			 SPEC_DEFAULT_EVENT_LIMIT);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "'limit' %s must be at least 1, not 0",
		       where);
		return false;
	}
	if (v->value[0] == '0') {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "write the number without leading zeros (YAML tools may read them as "
		       "octal)",
		       "invalid limit '%s' %s", sl_show(buf, v->value, v->len), where);
		return false;
	}
	if (n > SPEC_MAX_EVENT_LIMIT) {
		snprintf(hint, sizeof(hint),
			 "keep at most %d records; raise 'threshold' so that fewer calls are "
			 "recorded (the rest are still counted)",
			 SPEC_MAX_EVENT_LIMIT);
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "'limit' %s must be at most %d, not %s",
		       where, SPEC_MAX_EVENT_LIMIT, sl_show(buf, v->value, v->len));
		return false;
	}
	*out = (unsigned)n;
	return true;
}

/* Checks V, the 'probe' of a count probe P: one of the forms of
 * spec_parse_point.  On OBJECT main, sets P's object (and function). */
void sl_check_point(loader *ld, spec_probe *p, const node *v, const char *where)
{
	char buf[SHOW_BUF], why[512];
	point_type type;

	if (memchr(v->value, '\0', v->len)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), POINT_FORMS,
		       "invalid probe point '%s' %s: it contains a NUL character",
		       sl_show(buf, v->value, v->len), where);
		return;
	}
	if (spec_parse_point(v->value, &type, why, sizeof(why)) < 0) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), POINT_FORMS, "invalid probe point '%s' %s: %s",
		       sl_show(buf, v->value, v->len), where, why);
		return;
	}
	p->probe = sl_dup_value(v);
	if (!p->probe) {
		sl_no_memory(ld);
		return;
	}
	p->point = type;
	p->probe_loc = sl_node_loc(ld, v);
	if (type == POINT_UPROBE || type == POINT_URETPROBE || type == POINT_USDT) {
		const char *obj = strchr(p->probe, ':') + 1, *end = strchr(obj, ':');
		if (type != POINT_USDT && !(p->function = strdup(end + 1)))
			sl_no_memory(ld);
		if (end - obj == 4 && memcmp(obj, "main", 4) == 0 && !(p->object = strdup("main")))
			sl_no_memory(ld);
	}
}
