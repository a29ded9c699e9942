/* spec_tree — the loader's diagnostics, and pass 1: YAML events to a tree (spec_internal.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"

/* ---- the loader's diagnostics ---- */

static void vreport(loader *ld, diag_level level, diag_loc loc, const char *hint,
		    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void vreport(loader *ld, diag_level level, diag_loc loc, const char *hint,
		    const char *fmt, va_list ap)
{
	char msg[1024];

	if (level == DIAG_ERROR) {
		ld->muted = ld->errors >= SPEC_MAX_ERRORS;
		if (ld->muted) {
			ld->dropped++;
			return;
		}
		ld->errors++;
	} else if (ld->muted) {
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	diag_at(level, ld->src, loc, hint, "%s", msg);
}

void sl_report(loader *ld, diag_level level, diag_loc loc, const char *hint,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(ld, level, loc, hint, fmt, ap);
	va_end(ap);
}

/* The byte offset of a libyaml mark: LINE counts libyaml's line breaks
 * (LF, CR, CRLF, NEL, LS, PS) and COLUMN counts characters. */
size_t sl_mark_offset(const diag_src *src, yaml_mark_t m)
{
	const char *t = src->text;
	size_t n = src->len, i = 0, line = 0, col;

	while (line < m.line && i < n) {
		size_t k = diag_char_len(t + i, n - i);
		if (t[i] == '\r' && i + 1 < n && t[i + 1] == '\n')
			k = 2;
		if (t[i] == '\n' || t[i] == '\r' ||
		    (k == 2 && (unsigned char)t[i] == 0xc2 && (unsigned char)t[i + 1] == 0x85) ||
		    (k == 3 && memcmp(t + i, "\xe2\x80\xa8", 3) == 0) ||
		    (k == 3 && memcmp(t + i, "\xe2\x80\xa9", 3) == 0))
			line++;
		i += k;
	}
	for (col = 0; col < m.column && i < n; col++)
		i += diag_char_len(t + i, n - i);
	return i;
}

diag_loc sl_marks_loc(const loader *ld, yaml_mark_t start, yaml_mark_t end)
{
	/* Past the error limit nothing more is shown: finding the column
	 * (a scan from the start of the text) would only cost time. */
	if (ld->errors >= SPEC_MAX_ERRORS)
		return (diag_loc){ 0, 0, 0, NULL };
	return diag_loc_of(ld->src, sl_mark_offset(ld->src, start), sl_mark_offset(ld->src, end));
}

/* Writes S (LEN bytes) into BUF for quoting in a message: printable ASCII
 * kept, any other character shown as '?', cut with "..." to fit. */
const char *sl_show(char *buf, const char *s, size_t len)
{
	size_t o = 0, i = 0;

	while (i < len && o < SHOW_BUF - 4) {
		size_t k = diag_char_len(s + i, len - i);
		buf[o++] = k == 1 && s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
		i += k;
	}
	if (i < len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/* ---- pass 1: YAML events to a tree ---- */

void sl_node_free(node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_kids; i++)
		sl_node_free(n->kids[i]);
	free(n->kids);
	free(n->value);
	free(n);
}

static void out_of_memory(builder *b)
{
	if (!b->broken)
		sl_report(b->ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL }, NULL,
		       "out of memory while reading the spec");
	b->broken = b->stop = true;
}

/* Adds N to the open collection (or makes it the root); takes N. */
bool sl_attach(builder *b, node *n)
{
	node *parent;

	if (!n) {
		out_of_memory(b);
		return false;
	}
	if (b->depth == 0) {
		if (b->root)
			sl_node_free(b->root);
		b->root = n;
		return true;
	}
	parent = b->open[b->depth - 1];
	if (parent->n_kids == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		node **kids = realloc(parent->kids, cap * sizeof(*kids));
		if (!kids) {
			sl_node_free(n);
			out_of_memory(b);
			return false;
		}
		parent->kids = kids;
		parent->cap = cap;
	}
	parent->kids[parent->n_kids++] = n;
	return true;
}

static node *node_new(node_type type, const yaml_event_t *ev)
{
	node *n = calloc(1, sizeof(*n));

	if (n) {
		n->type = type;
		n->start = ev->start_mark;
		n->end = ev->end_mark;
	}
	return n;
}

static const char *const no_refs_hint =
	"remove the anchor and write values out in full; specs reject anchors and "
	"aliases so that a small file cannot expand into a huge one";

/* Reports an anchor and a tag found on a node; both are written before
 * the node, from START on, in either order. */
static void reject_properties(builder *b, yaml_mark_t start, const char *anchor,
			      const char *tag)
{
	const diag_src *src = b->ld->src;
	const char *t = src->text;
	size_t off = sl_mark_offset(src, start), end;
	char buf[SHOW_BUF];

	for (int w = 0; w < 2 && (anchor || tag) && off < src->len; w++) {
		end = off + 1;
		if (t[off] == '&' && anchor) {
			while (end < src->len && (is_lower(t[end]) || is_upper(t[end]) ||
						  is_digit(t[end]) || t[end] == '-' || t[end] == '_'))
				end++;
			sl_report(b->ld, DIAG_ERROR, diag_loc_of(src, off, end), no_refs_hint,
			       "anchors are not allowed in specs ('&%s')",
			       sl_show(buf, anchor, strlen(anchor)));
			anchor = NULL;
		} else if (t[off] == '!' && tag) {
			while (end < src->len && !strchr(" \t\r\n,[]{}", t[end]))
				end++;
			sl_report(b->ld, DIAG_ERROR, diag_loc_of(src, off, end),
			       "remove the tag; quote the value if it must be read as text",
			       "tags are not allowed in specs ('%s')", sl_show(buf, t + off, end - off));
			tag = NULL;
		} else {
			break;
		}
		off = end;
		while (off < src->len && strchr(" \t\r\n", t[off]))
			off++;
	}
	/* Not found where expected (should not happen): point at the node. */
	if (anchor)
		sl_report(b->ld, DIAG_ERROR, sl_marks_loc(b->ld, start, start), no_refs_hint,
		       "anchors are not allowed in specs ('&%s')", sl_show(buf, anchor, strlen(anchor)));
	if (tag)
		sl_report(b->ld, DIAG_ERROR, sl_marks_loc(b->ld, start, start),
		       "remove the tag; quote the value if it must be read as text",
		       "tags are not allowed in specs ('%s')", sl_show(buf, tag, strlen(tag)));
}

static void open_collection(builder *b, const yaml_event_t *ev, node_type type,
			    const char *anchor, const char *tag)
{
	node *n;

	if (anchor || tag)
		reject_properties(b, ev->start_mark, anchor, tag);
	if (b->depth + b->skip >= YAML_MAX_DEPTH) {
		sl_report(b->ld, DIAG_ERROR, sl_marks_loc(b->ld, ev->start_mark, ev->start_mark),
		       "a spec is a mapping, holding a list of probes, each a mapping of "
		       "plain values; remove the extra brackets or indentation",
		       "the spec is nested too deeply (more than %d levels)", YAML_MAX_DEPTH);
		b->broken = b->stop = true;
		return;
	}
	if (b->skip) {
		b->skip++;
		return;
	}
	n = node_new(type, ev);
	if (!sl_attach(b, n))
		return;
	if (b->depth == SPEC_DEPTH) {
		b->skip = 1;
		b->skipped = n;
	} else {
		b->open[b->depth++] = n;
	}
}

static void close_collection(builder *b, const yaml_event_t *ev)
{
	if (b->skip) {
		if (--b->skip == 0)
			b->skipped->end = ev->end_mark;
		return;
	}
	if (b->depth > 0)
		b->open[--b->depth]->end = ev->end_mark;
}

static void on_event(builder *b, const yaml_event_t *ev)
{
	node *n;
	char buf[SHOW_BUF];

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++) {
			sl_report(b->ld, DIAG_ERROR, sl_marks_loc(b->ld, ev->start_mark, ev->end_mark),
			       "keep one spec per file; remove this '---' line and what follows, "
			       "or move it into a file of its own",
			       "a spec file holds one YAML document; this is a second one");
			b->stop = true;
			return;
		}
		if (ev->data.document_start.version_directive ||
		    ev->data.document_start.tag_directives.start !=
		    ev->data.document_start.tag_directives.end)
			sl_report(b->ld, DIAG_ERROR, sl_marks_loc(b->ld, ev->start_mark, ev->start_mark),
			       "remove the lines starting with '%'",
			       "YAML directives are not allowed in specs");
		break;
	case YAML_ALIAS_EVENT:
		sl_report(b->ld, DIAG_ERROR, sl_marks_loc(b->ld, ev->start_mark, ev->end_mark),
		       "write the value out in full, or quote it if it is text starting with "
		       "'*'; specs reject aliases so that a small file cannot expand into a "
		       "huge one",
		       "aliases are not allowed in specs ('*%s')",
		       sl_show(buf, (const char *)ev->data.alias.anchor,
			    strlen((const char *)ev->data.alias.anchor)));
		if (!b->skip)
			sl_attach(b, node_new(NODE_BAD, ev));
		break;
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.anchor || ev->data.scalar.tag)
			reject_properties(b, ev->start_mark, (const char *)ev->data.scalar.anchor,
					  (const char *)ev->data.scalar.tag);
		if (b->skip)
			break;
		n = node_new(NODE_SCALAR, ev);
		if (n) {
			n->len = ev->data.scalar.length;
			n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			n->value = malloc(n->len + 1);
			if (!n->value) {
				free(n);
				n = NULL;
			} else {
				memcpy(n->value, ev->data.scalar.value, n->len);
				n->value[n->len] = '\0';
			}
		}
		sl_attach(b, n);
		break;
	case YAML_SEQUENCE_START_EVENT:
		open_collection(b, ev, NODE_SEQ, (const char *)ev->data.sequence_start.anchor,
				(const char *)ev->data.sequence_start.tag);
		break;
	case YAML_MAPPING_START_EVENT:
		open_collection(b, ev, NODE_MAP, (const char *)ev->data.mapping_start.anchor,
				(const char *)ev->data.mapping_start.tag);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		close_collection(b, ev);
		break;
	case YAML_NO_EVENT:
	case YAML_STREAM_START_EVENT:
	case YAML_STREAM_END_EVENT:
	case YAML_DOCUMENT_END_EVENT:
	default:
		break;
	}
}

/* A hint for libyaml's common complaints. */
static const char *syntax_hint(const loader *ld, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "";
	size_t off = sl_mark_offset(ld->src, p->problem_mark);
	char c = off < ld->src->len ? ld->src->text[off] : '\0';

	if (strstr(problem, "tab"))
		return "YAML does not allow tabs for indentation; indent with spaces";
	if (strstr(problem, "cannot start any token")) {
		if (c == '\t')
			return "YAML does not allow tabs for indentation; indent with spaces";
		return "quote the value: characters such as @ ` % | > cannot start a plain value";
	}
	if (strstr(problem, "mapping values are not allowed"))
		return "quote a value that contains ': ', or check the indentation of the key";
	if (strstr(problem, "could not find expected ':'"))
		return "a key lacks its ':', or a value spanning lines needs quotes";
	if (p->context && (strstr(p->context, "alias") || strstr(p->context, "anchor")))
		return "quote a value that starts with '*' or '&', e.g. object: \"*.so\"";
	if (strstr(problem, "expected ',' or"))
		return "inside [...] or {...}, quote values that hold brackets, braces or "
		       "commas, and close every bracket";
	if (strstr(problem, "did not find expected"))
		return "check the indentation: the keys of one mapping, and the items of one "
		       "list, must line up";
	if (strstr(problem, "end of stream"))
		return "a quote or bracket is not closed";
	return "see docs/spec.md for the format; quote values with special characters";
}

static void report_yaml_error(loader *ld, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "unknown problem";
	size_t off;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		sl_report(ld, DIAG_ERROR, (diag_loc){ 0, 0, 0, NULL }, NULL,
		       "out of memory while reading the spec");
		return;
	case YAML_READER_ERROR:
		off = p->problem_offset;
		if (strstr(problem, "control character")) {
			sl_report(ld, DIAG_ERROR, diag_loc_of(ld->src, off, off + 1),
			       "remove it: specs are plain text (tabs and line breaks are fine)",
			       "control character U+%04X is not allowed in a spec",
			       (unsigned)p->problem_value);
		} else if (strstr(problem, "UTF-8") || strstr(problem, "Unicode")) {
			/* libyaml points at the byte after a bad sequence's start
			 * at times: find the first byte that is not UTF-8. */
			const char *t = ld->src->text;
			for (size_t i = 0; i < ld->src->len; i += diag_char_len(t + i, ld->src->len - i)) {
				if ((unsigned char)t[i] >= 0x80 &&
				    diag_char_len(t + i, ld->src->len - i) == 1) {
					off = i;
					break;
				}
			}
			sl_report(ld, DIAG_ERROR, diag_loc_of(ld->src, off, off + 1),
			       "specs must be UTF-8 text; convert the file (e.g. iconv -t UTF-8) "
			       "or remove the byte",
			       "invalid UTF-8 in the spec (byte 0x%02X)",
			       off < ld->src->len ? (unsigned char)ld->src->text[off] : 0);
		} else {
			sl_report(ld, DIAG_ERROR, diag_loc_of(ld->src, off, off + 1), NULL,
			       "cannot read the spec: %s", problem);
		}
		return;
	case YAML_NO_ERROR:
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
	case YAML_COMPOSER_ERROR:
	case YAML_WRITER_ERROR:
	case YAML_EMITTER_ERROR:
	default:
		sl_report(ld, DIAG_ERROR, sl_marks_loc(ld, p->problem_mark, p->problem_mark),
		       syntax_hint(ld, p), "invalid YAML: %s", problem);
		if (p->context && p->context_mark.line != p->problem_mark.line)
			sl_report(ld, DIAG_NOTE, sl_marks_loc(ld, p->context_mark, p->context_mark), NULL,
			       "%s that starts here", p->context);
		return;
	}
}

/* Reads TEXT into a tree.  Returns the root (NULL when the text holds no
 * document) and sets *BROKEN when the tree must not be validated. */
node *sl_build_tree(loader *ld, bool *broken)
{
	builder b = { .ld = ld };
	yaml_parser_t p;
	yaml_event_t ev;

	if (!yaml_parser_initialize(&p)) {
		out_of_memory(&b);
		*broken = true;
		return NULL;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)ld->src->text, ld->src->len);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	while (!b.stop) {
		bool end;
		if (!yaml_parser_parse(&p, &ev)) {
			report_yaml_error(ld, &p);
			b.broken = true;
			break;
		}
		on_event(&b, &ev);
		end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (end)
			break;
	}
	yaml_parser_delete(&p);
	*broken = b.broken;
	return b.root;
}
