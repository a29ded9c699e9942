/* spec_params — 'parameters': declared defaults, --set overrides, ${NAME} values (spec_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"

/* ---- parameters: declared defaults, --set overrides, ${NAME} values ----
 *
 * Runs on the tree before it is checked against the format: every value
 * that is exactly "${NAME}" is replaced by a copy of the parameter's value
 * node (the default as written, or a node made from the --set text), so
 * the normal checks validate it and point at where it was written. */

typedef struct param_def {
	const node *key;	/* the name, in the spec */
	const node *value;	/* the default as written */
	const node *set;	/* the --set value (owned by the caller), or NULL */
	char *description;
	bool used;
} param_def;

static const char *const param_keys[] = { "default", "description", NULL };
static const char params_doc[] = "see docs/spec.md#parameters";

static bool param_name_ok(const char *s, size_t len)
{
	return sl_probe_name_ok(s, len);
}

/* A default is a plain value or a list of plain values. */
static bool check_param_value(loader *ld, const node *k, const node *v)
{
	char buf[SHOW_BUF];

	if (v->type == NODE_BAD)
		return false;
	if (sl_is_null(v)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k),
		       "give the default after the ':', as in 'threshold: 1ms', or "
		       "'syscalls: [openat, read]'",
		       "parameter '%s' has no default", sl_show(buf, k->value, k->len));
		return false;
	}
	if (v->type == NODE_MAP) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "a default is one value or a list of values",
		       "the default of parameter '%s' must not be a mapping",
		       sl_show(buf, k->value, k->len));
		return false;
	}
	if (v->type == NODE_SEQ) {
		if (v->n_kids == 0) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), "list at least one value",
			       "the default of parameter '%s' is an empty list",
			       sl_show(buf, k->value, k->len));
			return false;
		}
		for (size_t i = 0; i < v->n_kids; i++) {
			if (v->kids[i]->type != NODE_SCALAR || sl_is_null(v->kids[i])) {
				sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v->kids[i]),
				       "a list default holds plain values, as in [openat, read]",
				       "item %zu of the default of parameter '%s' is not a value",
				       i + 1, sl_show(buf, k->value, k->len));
				return false;
			}
		}
	}
	return true;
}

/* Reads one entry NAME: DEFAULT or NAME: {default: D, description: T}. */
static bool read_param(loader *ld, const node *k, const node *v, param_def *def)
{
	char buf[SHOW_BUF];

	if (k->type != NODE_SCALAR || !param_name_ok(k->value, k->len)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k),
		       "a parameter name is a lowercase letter, then up to 31 lowercase "
		       "letters, digits or '_'",
		       "invalid parameter name '%s'",
		       k->type == NODE_SCALAR ? sl_show(buf, k->value, k->len) : "(not a word)");
		return false;
	}
	def->key = k;
	if (v->type != NODE_MAP) {
		def->value = v;
		return check_param_value(ld, k, v);
	}
	const node *seen[2] = { 0 };
	for (size_t i = 0; i + 1 < v->n_kids; i += 2) {
		const node *pk = v->kids[i], *pv = v->kids[i + 1];
		int key = sl_check_key(ld, pk, param_keys, seen, "in a parameter");
		if (key == 0)
			def->value = pv;
		else if (key == 1)
			sl_check_prose(ld, pk, pv, "'description' of a parameter", "description: slowest "
				   "call to record", DESCRIPTION_MAX, &def->description);
	}
	if (!seen[0]) {
		sl_report(ld, DIAG_ERROR, sl_map_loc(ld, v), "add 'default: VALUE'",
		       "parameter '%s' has no 'default'", sl_show(buf, k->value, k->len));
		return false;
	}
	return check_param_value(ld, k, def->value);
}

/* Reads the 'parameters' mapping V into DEFS (room for SPEC_MAX_PARAMS).
 * Returns the number read, or -1 after reporting errors. */
static int read_params(loader *ld, const node *v, param_def *defs)
{
	int n = 0;
	bool ok = true;
	char buf[SHOW_BUF];

	if (v->type == NODE_BAD)
		return -1;
	if (sl_is_null(v))
		return 0;
	if (v->type != NODE_MAP) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "write one 'NAME: DEFAULT' per line under 'parameters:'",
		       "'parameters' must be a mapping of names to defaults, not %s", sl_type_name(v));
		return -1;
	}
	for (size_t i = 0; i + 1 < v->n_kids; i += 2) {
		const node *k = v->kids[i];
		if (n == SPEC_MAX_PARAMS) {
			sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k), NULL,
			       "too many parameters (at most %d)", SPEC_MAX_PARAMS);
			return -1;
		}
		if (!read_param(ld, k, v->kids[i + 1], &defs[n])) {
			free(defs[n].description);
			defs[n].description = NULL;
			ok = false;
			continue;
		}
		for (int j = 0; j < n; j++) {
			if (defs[j].key->len == k->len && memcmp(defs[j].key->value, k->value, k->len) == 0) {
				sl_report(ld, DIAG_ERROR, sl_node_loc(ld, k), "remove one of them",
				       "parameter '%s' is declared twice", sl_show(buf, k->value, k->len));
				ok = false;
			}
		}
		n++;
	}
	return ok ? n : -1;
}

/* The libyaml-style mark of byte OFF of TEXT (line 0, column in characters). */
static yaml_mark_t text_mark(const char *text, size_t off)
{
	yaml_mark_t m = { 0, 0, 0 };

	for (size_t i = 0; i < off; m.column++)
		i += diag_char_len(text + i, off - i);
	m.index = off;
	return m;
}

static node *set_scalar(const diag_src *src, size_t start, size_t end)
{
	node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->type = NODE_SCALAR;
	n->src = src;
	n->start = text_mark(src->text, start);
	n->end = text_mark(src->text, end);
	n->plain = true;
	n->len = end - start;
	n->value = strndup(src->text + start, n->len);
	if (!n->value) {
		free(n);
		return NULL;
	}
	return n;
}

/* The value node of --set text SRC whose value starts at byte START: a
 * list (split on commas, optional [ ]) when the default is a list, else
 * one plain value.  NULL after reporting. */
static node *set_value(loader *ld, const diag_src *src, size_t start, const param_def *def)
{
	const char *t = src->text;
	size_t end = src->len;
	node *seq;

	/* One value, unless the default is a list or the value is one. */
	if (def->value->type != NODE_SEQ && !memchr(t + start, ',', end - start) &&
	    !(end > start && t[start] == '[')) {
		node *v = set_scalar(src, start, end);
		if (!v)
			sl_no_memory(ld);
		return v;
	}
	if (end > start && t[start] == '[' && t[end - 1] == ']') {
		start++;
		end--;
	}
	seq = calloc(1, sizeof(*seq));
	if (!seq) {
		sl_no_memory(ld);
		return NULL;
	}
	seq->type = NODE_SEQ;
	seq->src = src;
	seq->start = text_mark(t, start);
	seq->end = text_mark(t, end);
	builder b = { .ld = ld, .depth = 1 };
	b.open[0] = seq;
	for (size_t i = start; i <= end;) {
		size_t j = i, a, z;
		while (j < end && t[j] != ',')
			j++;
		for (a = i; a < j && t[a] == ' '; a++)
			;
		for (z = j; z > a && t[z - 1] == ' '; z--)
			;
		if (a == z) {
			sl_report(ld, DIAG_ERROR, diag_loc_of(src, a, a + 1),
			       "separate the values with single commas, as in 'NAME=openat,read'",
			       "empty value in the list given to --set");
			sl_node_free(seq);
			return NULL;
		}
		if (!sl_attach(&b, set_scalar(src, a, z))) {
			sl_node_free(seq);
			return NULL;
		}
		i = j + 1;
	}
	return seq;
}

/* Applies one --set text (SRC) to DEFS[0..N). */
static bool apply_set(loader *ld, const diag_src *src, param_def *defs, int n,
		      node **owned)
{
	const char *t = src->text, *eq = memchr(t, '=', src->len);
	size_t name_len = eq ? (size_t)(eq - t) : src->len;
	const char *names[SPEC_MAX_PARAMS + 1];
	char hint[512], buf[SHOW_BUF];
	int i;

	if (!eq || !param_name_ok(t, name_len)) {
		sl_report(ld, DIAG_ERROR, diag_loc_of(src, 0, name_len),
		       "write --set NAME=VALUE, NAME a parameter the spec declares",
		       eq ? "invalid parameter name '%s'" : "'%s' has no '=VALUE'",
		       sl_show(buf, t, name_len));
		return false;
	}
	for (i = 0; i < n; i++)
		if (defs[i].key->len == name_len && memcmp(defs[i].key->value, t, name_len) == 0)
			break;
	if (i == n) {
		char name[40];
		for (int j = 0; j < n; j++)
			names[j] = defs[j].key->value;
		names[n] = NULL;
		snprintf(name, sizeof(name), "%.*s", (int)name_len, t);
		if (n)
			sl_choices_hint(hint, sizeof(hint), name, "parameters", names);
		else
			snprintf(hint, sizeof(hint), "this spec declares no parameters; %s",
				 params_doc);
		sl_report(ld, DIAG_ERROR, diag_loc_of(src, 0, name_len), hint,
		       "the spec has no parameter '%s'", name);
		return false;
	}
	*owned = set_value(ld, src, name_len + 1, &defs[i]);
	if (!*owned)
		return false;
	defs[i].set = *owned;	/* a later --set of the same name wins */
	return true;
}

static node *node_copy(const node *n)
{
	node *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	*c = *n;
	c->kids = NULL;
	c->n_kids = c->cap = 0;
	c->value = NULL;
	if (n->value && !(c->value = malloc(n->len + 1)))
		goto fail;
	if (n->value)
		memcpy(c->value, n->value, n->len + 1);
	if (n->n_kids) {
		c->kids = calloc(n->n_kids, sizeof(*c->kids));
		if (!c->kids)
			goto fail;
		c->cap = n->n_kids;
		for (; c->n_kids < n->n_kids; c->n_kids++)
			if (!(c->kids[c->n_kids] = node_copy(n->kids[c->n_kids])))
				goto fail;
	}
	return c;
fail:
	sl_node_free(c);
	return NULL;
}

/* Replaces every "${NAME}" value under *SLOT by the parameter's value. */
static void substitute(loader *ld, node **slot, param_def *defs, int n)
{
	node *v = *slot;
	char buf[SHOW_BUF], hint[512];
	const char *names[SPEC_MAX_PARAMS + 1];

	if (v->type == NODE_SEQ || v->type == NODE_MAP) {
		for (size_t i = v->type == NODE_MAP; i < v->n_kids; i += 1 + (v->type == NODE_MAP))
			substitute(ld, &v->kids[i], defs, n);
		return;
	}
	if (v->type != NODE_SCALAR || !memmem(v->value, v->len, "${", 2))
		return;
	if (v->len < 4 || memcmp(v->value, "${", 2) != 0 || v->value[v->len - 1] != '}' ||
	    memchr(v->value + 2, '}', v->len - 3)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "a parameter is a whole value: write 'threshold: ${NAME}', not text "
		       "around it",
		       "'${' in '%s' is not a whole parameter value", sl_show(buf, v->value, v->len));
		return;
	}
	const char *name = v->value + 2;
	size_t len = v->len - 3;
	for (int i = 0; i < n; i++) {
		if (defs[i].key->len != len || memcmp(defs[i].key->value, name, len) != 0)
			continue;
		node *c = node_copy(defs[i].set ? defs[i].set : defs[i].value);
		if (!c) {
			sl_no_memory(ld);
			return;
		}
		defs[i].used = true;
		sl_node_free(v);
		*slot = c;
		return;
	}
	for (int j = 0; j < n; j++)
		names[j] = defs[j].key->value;
	names[n] = NULL;
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 40 ? len : 40), name);
	if (n)
		sl_choices_hint(hint, sizeof(hint), buf, "parameters", names);
	else
		snprintf(hint, sizeof(hint), "declare it under 'parameters:'; %s", params_doc);
	sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v), hint, "unknown parameter '%s'",
	       sl_show(buf, name, len));
}

/* The value text recorded in the spec: a list's items joined with ",". */
static char *param_text(const node *v)
{
	size_t len = 0, o = 0;
	char *t;

	if (v->type == NODE_SCALAR)
		return strndup(v->value, v->len);
	for (size_t i = 0; i < v->n_kids; i++)
		len += v->kids[i]->len + 1;
	t = malloc(len + 1);
	if (!t)
		return NULL;
	for (size_t i = 0; i < v->n_kids; i++) {
		if (i)
			t[o++] = ',';
		memcpy(t + o, v->kids[i]->value, v->kids[i]->len);
		o += v->kids[i]->len;
	}
	t[o] = '\0';
	return t;
}

static bool record_params(loader *ld, spec *s, param_def *defs, int n)
{
	s->params = calloc((size_t)n + 1, sizeof(*s->params));
	if (!s->params)
		return sl_no_memory(ld);
	for (int i = 0; i < n; i++) {
		spec_param *p = &s->params[s->n_params++];
		p->name = strndup(defs[i].key->value, defs[i].key->len);
		p->value = param_text(defs[i].set ? defs[i].set : defs[i].value);
		p->description = defs[i].description;
		defs[i].description = NULL;
		p->overridden = defs[i].set != NULL;
		if (!p->name || !p->value)
			return sl_no_memory(ld);
	}
	return true;
}

/* Reads 'parameters' from ROOT (a mapping), applies SETS, and replaces
 * every placeholder in the other values.  Returns false after reporting
 * errors (the tree must then not be checked: placeholders may remain). */
bool sl_apply_parameters(loader *ld, spec *s, node *root, char *const *sets,
			     size_t n_sets)
{
	param_def defs[SPEC_MAX_PARAMS] = { 0 };
	node **owned = NULL;
	const node *pv = NULL;
	unsigned errors = ld->errors + ld->dropped;
	int n = 0;
	char buf[SHOW_BUF];

	for (size_t i = 0; i + 1 < root->n_kids; i += 2)
		if (!pv && sl_node_is(root->kids[i], "parameters"))
			pv = root->kids[i + 1];
	if (pv)
		n = read_params(ld, pv, defs);
	if (n >= 0 && n_sets) {
		s->set_srcs = calloc(n_sets, sizeof(*s->set_srcs));
		owned = calloc(n_sets, sizeof(*owned));
		if (!s->set_srcs || !owned) {
			sl_no_memory(ld);
			n_sets = 0;
		}
		for (size_t i = 0; i < n_sets; i++) {
			diag_src *src = &s->set_srcs[s->n_set_srcs];
			if (!(src->text = strdup(sets[i]))) {
				sl_no_memory(ld);
				break;
			}
			src->path = "--set";
			src->len = strlen(src->text);
			s->n_set_srcs++;
			apply_set(ld, src, defs, n, &owned[i]);
		}
	}
	if (n > 0 && ld->errors + ld->dropped == errors) {
		for (size_t i = 0; i + 1 < root->n_kids; i += 2)
			if (root->kids[i + 1] != pv)
				substitute(ld, &root->kids[i + 1], defs, n);
		for (int i = 0; i < n && ld->errors + ld->dropped == errors; i++)
			if (!defs[i].used)
				sl_report(ld, DIAG_WARNING, sl_node_loc(ld, defs[i].key),
				       "use it as a whole value, as in 'threshold: ${NAME}', or "
				       "remove it",
				       "parameter '%s' is not used", sl_show(buf, defs[i].key->value,
									  defs[i].key->len));
		if (ld->errors + ld->dropped == errors)
			record_params(ld, s, defs, n);
	} else if (n == 0 && ld->errors + ld->dropped == errors) {
		/* No parameters: a placeholder is an unknown name, reported. */
		for (size_t i = 0; i + 1 < root->n_kids; i += 2)
			substitute(ld, &root->kids[i + 1], defs, 0);
	}
	for (int i = 0; i < n; i++)
		free(defs[i].description);
	for (size_t i = 0; i < n_sets && owned; i++)
		sl_node_free(owned[i]);
	free(owned);
	return ld->errors + ld->dropped == errors;
}

static void default_name(loader *ld, spec *s)
{
	const char *base = strrchr(s->path, '/');
	size_t len;
	char buf[SHOW_BUF];

	base = base ? base + 1 : s->path;
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".yaml") == 0)
		len -= 5;
	else if (len > 4 && strcmp(base + len - 4, ".yml") == 0)
		len -= 4;
	if (!sl_spec_name_ok(base, len)) {
		sl_report(ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL },
		       "add a 'name:' line (lowercase letters, digits, '_', '.' and '-'), or "
		       "rename the file",
		       "the file name does not make a valid spec name ('%s')", sl_show(buf, base, len));
		return;
	}
	s->name = strndup(base, len);
	if (!s->name)
		sl_no_memory(ld);
}

/* Checks V, the value of key K ('name'), into S's name (S owns it).
 * WHAT names the key as sl_want_scalar does. */
static void check_spec_name(loader *ld, spec *s, const node *k, const node *v, const char *what)
{
	char buf[SHOW_BUF];

	if (!sl_want_scalar(ld, k, v, what, sl_top_examples[TOP_NAME], false))
		return;
	if (!sl_spec_name_ok(v->value, v->len)) {
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "a spec name is 1-64 characters: a lowercase letter or digit, "
		       "then lowercase letters, digits, '_', '.' or '-'",
		       "invalid spec name '%s'", sl_show(buf, v->value, v->len));
		return;
	}
	s->name = sl_dup_value(v);
	if (!s->name)
		sl_no_memory(ld);
}

/* Checks V, the value of key K ('timing'): entry-return (the default) or
 * entry-only, set in S.  WHAT names the key as sl_want_scalar does. */
static void check_timing(loader *ld, spec *s, const node *k, const node *v, const char *what)
{
	char buf[SHOW_BUF];

	if (!sl_want_scalar(ld, k, v, what, sl_top_examples[TOP_TIMING], false))
		return;
	if (sl_node_is(v, "entry-only"))
		s->entry_only = true;
	else if (!sl_node_is(v, "entry-return"))
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, v),
		       "entry-return (the default) times each call from entry to "
		       "return; entry-only times loop phases from one phase's entry "
		       "to the next's, without return probes",
		       "invalid timing '%s'", sl_show(buf, v->value, v->len));
}

/* Checks V, the value of top-level key K (index KEY), into S; not
 * 'probes' nor 'checks', which sl_check_top reads in their order. */
static void check_top_value(loader *ld, spec *s, int key, const node *k, const node *v)
{
	char what[32];

	snprintf(what, sizeof(what), "'%s'", sl_top_keys[key]);
	switch (key) {
	case TOP_NAME:
		check_spec_name(ld, s, k, v, what);
		break;
	case TOP_DESCRIPTION:
		sl_check_prose(ld, k, v, what, sl_top_examples[key], DESCRIPTION_MAX,
			   &s->description);
		break;
	case TOP_OBJECTS:
		sl_check_objects(ld, s, k, v);
		break;
	case TOP_DURATION:
		sl_check_duration_value(ld, k, v, &sl_duration_top, "'duration'", "",
				     sl_top_examples[key], &s->duration_ns);
		break;
	case TOP_PARAMETERS:
		break;		/* read and applied before (apply_parameters) */
	case TOP_BLOCKERS:
		sl_check_duration_value(ld, k, v, &sl_duration_blockers, "'blockers'", "",
				     sl_top_examples[key], &s->blocker_ns);
		break;
	case TOP_STACKS:
		sl_check_duration_value(ld, k, v, &sl_duration_stacks, "'stacks'", "",
				     sl_top_examples[key], &s->stack_ns);
		break;
	case TOP_TIMING:
		check_timing(ld, s, k, v, what);
		break;
	}
}

/* 'stacks' and 'blockers' (SEEN[key] is the key's node, or NULL) apply
 * inside attributed phases: reports them when S has probes and none is
 * attributed. */
static void check_attributed_keys(loader *ld, const spec *s, const node *const *seen)
{
	bool attributed = false;

	for (size_t i = 0; i < s->n_probes; i++)
		attributed |= s->probes[i].attribute;
	if (seen[TOP_STACKS] && !attributed && s->n_probes)
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, seen[TOP_STACKS]),
		       "stacks are sampled inside attributed phases: add 'attribute: true' to a "
		       "latency probe, or remove 'stacks'",
		       "'stacks' applies to no probe");
	if (seen[TOP_BLOCKERS] && !attributed && s->n_probes)
		sl_report(ld, DIAG_ERROR, sl_node_loc(ld, seen[TOP_BLOCKERS]),
		       "blockers are the slow syscalls made inside attributed phases: add "
		       "'attribute: true' to a latency probe, or remove 'blockers'",
		       "'blockers' applies to no probe");
}

/* The objects when the spec lists none: the executable ("main"). */
static void default_objects(loader *ld, spec *s)
{
	s->objects = calloc(1, sizeof(*s->objects));
	if (s->objects && (s->objects[0] = strdup("main")))
		s->n_objects = 1;
	else
		sl_no_memory(ld);
}

/* Checks ROOT, the spec's top mapping, into S: each key, then 'checks'
 * (once the probes are known), the keys that need an attributed probe,
 * and the defaults of the name and objects. */
void sl_check_top(loader *ld, spec *s, const node *root)
{
	const node *seen[N_TOP] = { 0 }, *probes = NULL, *checks = NULL;

	for (size_t i = 0; i + 1 < root->n_kids; i += 2) {
		const node *k = root->kids[i], *v = root->kids[i + 1];
		int key = sl_check_key(ld, k, sl_top_keys, seen, "at the top level");
		if (key < 0)
			continue;
		if (key == TOP_PROBES) {
			probes = v;
			sl_check_probes(ld, s, k, v);
		} else if (key == TOP_CHECKS) {
			checks = v;	/* once the probes are known */
		} else {
			check_top_value(ld, s, key, k, v);
		}
	}
	if (checks)
		sl_check_checks(ld, s, seen[TOP_CHECKS], checks, probes);
	check_attributed_keys(ld, s, seen);
	if (!seen[TOP_PROBES])
		sl_report(ld, DIAG_ERROR, sl_map_loc(ld, root),
		       "add a 'probes:' list; see docs/spec.md for an example",
		       "the spec has no 'probes'");
	if (!seen[TOP_NAME])
		default_name(ld, s);
	if (!seen[TOP_OBJECTS])
		default_objects(ld, s);
}
