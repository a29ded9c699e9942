/* tmpl — expands bpfspec's bpftrace templates.
 *
 * A template is text with placeholders "${name}" (name: [a-z_][a-z0-9_]*).
 * Each placeholder is replaced by the value the lookup callback returns;
 * an unknown name, an unterminated "${" or a malformed name is an error
 * (templates are part of the program, so this is a bpfspec bug, reported
 * with the template's name and line).  Lines whose first two characters
 * are "##" are template comments and are dropped, and so is a line that
 * holds nothing but a placeholder whose value is empty.
 *
 * Ownership: tmpl_render returns an owned NUL-terminated string or NULL;
 * values returned by the callback are borrowed for the duration of the
 * call. */
#ifndef BPFSPEC_TMPL_H
#define BPFSPEC_TMPL_H

#include <stddef.h>

/* Returns the value of NAME, or NULL when NAME is unknown. */
typedef const char *(*tmpl_lookup_fn)(const char *name, void *ctx);

/* Expands TEXT (named NAME in errors).  Returns an owned string, or NULL
 * with a message in ERRBUF (size ERRLEN). */
char *tmpl_render(const char *name, const char *text, tmpl_lookup_fn lookup,
		  void *ctx, char *errbuf, size_t errlen);

/* Returns the embedded template "templates/NAME" or NULL. Borrowed. */
const char *tmpl_get(const char *name);

#endif
