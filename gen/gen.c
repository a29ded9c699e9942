/* gen — see gen.h. */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "tmpl.h"
#include "version.h"

uint64_t gen_bucket_index(uint64_t ns)
{
	if (ns < 16)
		return ns;
	unsigned e = 63 - (unsigned)__builtin_clzll(ns);
	return (uint64_t)(e - 3) * 16 + ((ns >> (e - 4)) & 15);
}

void gen_bucket_bounds(uint64_t index, uint64_t *lo, uint64_t *hi)
{
	if (index < 16) {
		*lo = index;
		*hi = index + 1;
		return;
	}
	unsigned e = (unsigned)(index / 16) + 3;
	uint64_t m = index % 16;
	if (e > 63) {
		*lo = *hi = UINT64_MAX;
		return;
	}
	*lo = (16 + m) << (e - 4);
	*hi = (e == 63 && m == 15) ? UINT64_MAX : (17 + m) << (e - 4);
}

/* A path bpftrace 0.17 can take in an attach point without quoting. */
static int path_is_plain(const char *p)
{
	if (*p != '/')
		return 0;
	for (; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '/' || c == '.' || c == '_' ||
		      c == '-' || c == '+'))
			return 0;
	}
	return 1;
}

/* Appends S with anything outside printable ASCII replaced by '?'. */
static void put_comment_text(buf *b, const char *s)
{
	for (; s && *s; s++)
		buf_putc(b, (*s >= 0x20 && *s < 0x7f) ? *s : '?');
}

typedef struct vars {
	const char *names[16];
	const char *values[16];
	size_t n;
} vars;

static const char *vars_lookup(const char *name, void *ctx)
{
	const vars *v = ctx;
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->names[i], name) == 0)
			return v->values[i];
	return NULL;
}

static void vars_set(vars *v, const char *name, const char *value)
{
	v->names[v->n] = name;
	v->values[v->n] = value ? value : "";
	v->n++;
}

/* Renders template NAME with V and appends it to OUT. Returns 0 or -1. */
static int render_into(buf *out, const char *name, vars *v)
{
	char err[256];
	const char *text = tmpl_get(name);

	if (!text) {
		diag_error("the build is incomplete; rebuild bpfspec",
			   "template '%s' is missing", name);
		return -1;
	}
	char *r = tmpl_render(name, text, vars_lookup, v, err, sizeof err);
	if (!r) {
		diag_error("this is a bug in bpfspec; please report it", "%s", err);
		return -1;
	}
	buf_puts(out, r);
	free(r);
	return 0;
}

static const char *const latency_maps[] = { "b", "sum", "min", "max" };

program *gen_program(const resolved *r, const gen_options *o)
{
	const spec *s = r->sp;
	const target *t = r->tg;
	buf out = BUF_INIT, syms = BUF_INIT, prints = BUF_INIT, clears = BUF_INIT,
	    helpers = BUF_INIT, tgt = BUF_INIT;
	program *prog = calloc(1, sizeof *prog);
	int failed = 0;
	char pid_filter[64] = "", pid_test[64] = "";

	if (!prog) {
		diag_error(NULL, "out of memory");
		return NULL;
	}
	if (o->pid > 0) {
		snprintf(pid_filter, sizeof pid_filter, "/pid == %d/", (int)o->pid);
		snprintf(pid_test, sizeof pid_test, "pid == %d && ", (int)o->pid);
		buf_printf(&tgt, "pid %d, ", (int)o->pid);
	} else {
		buf_puts(&tgt, "any process running ");
	}
	put_comment_text(&tgt, t->exe);

	for (size_t i = 0; i < r->n_probes; i++) {
		const resolved_probe *rp = &r->probes[i];
		buf_puts(&syms, "//   ");
		buf_printf(&syms, "%-12s ", rp->sp->name);
		if (!rp->active) {
			buf_puts(&syms, "skipped: ");
			put_comment_text(&syms, rp->reason);
		} else {
			put_comment_text(&syms, rp->sp->function);
			buf_puts(&syms, " in ");
			put_comment_text(&syms, rp->object);
			for (size_t k = 0; k < rp->n_addrs; k++)
				buf_printf(&syms, " 0x%llx", (unsigned long long)rp->addrs[k]);
		}
		if (i + 1 < r->n_probes)
			buf_putc(&syms, '\n');
	}

	char *spec_path = NULL, *target_text = NULL, *sym_text = NULL;
	{
		buf sp = BUF_INIT;
		put_comment_text(&sp, s->path);
		spec_path = buf_take(&sp);
	}
	target_text = buf_take(&tgt);
	sym_text = buf_take(&syms);
	vars hv = { .n = 0 };
	vars_set(&hv, "version", BPFSPEC_VERSION);
	vars_set(&hv, "spec_name", s->name);
	vars_set(&hv, "spec_path", spec_path);
	vars_set(&hv, "target", target_text);
	vars_set(&hv, "symbols", sym_text);
	failed |= render_into(&out, "header.bt.in", &hv);
	free(spec_path);
	free(target_text);
	free(sym_text);
	buf_putc(&out, '\n');
	vars none = { .n = 0 };
	failed |= render_into(&out, "begin.bt.in", &none);
	prog->expected_attach = 1;

	for (size_t i = 0; i < r->n_probes && !failed; i++) {
		const resolved_probe *rp = &r->probes[i];
		if (!rp->active)
			continue;
		if (!path_is_plain(rp->object)) {
			diag_error("bpftrace cannot name this file in a probe; copy or link it to a "
				   "plain path (letters, digits, / . _ - +)",
				   "probe '%s': object path '%s' has characters bpftrace cannot take",
				   rp->sp->name, rp->object);
			failed = 1;
			break;
		}
		buf entry = BUF_INIT, ret = BUF_INIT;
		for (size_t k = 0; k < rp->n_addrs; k++) {
			buf_printf(&entry, "%suprobe:%s:0x%llx", k ? ",\n" : "", rp->object,
				   (unsigned long long)rp->addrs[k]);
			buf_printf(&ret, "%suretprobe:%s:0x%llx", k ? ",\n" : "", rp->object,
				   (unsigned long long)rp->addrs[k]);
		}
		char *e = buf_take(&entry), *rt = buf_take(&ret);
		vars v = { .n = 0 };
		vars_set(&v, "name", rp->sp->name);
		vars_set(&v, "function", rp->sp->function);
		vars_set(&v, "entry", e);
		vars_set(&v, "return", rt);
		vars_set(&v, "entry_filter", pid_filter);
		vars_set(&v, "pid_test", pid_test);
		vars_set(&v, "key", rp->sp->per_thread ? "tid" : "0");
		buf_putc(&out, '\n');
		failed |= render_into(&out, "latency.bt.in", &v);
		free(e);
		free(rt);
		prog->expected_attach += 2 * (unsigned)rp->n_addrs;
		for (size_t m = 0; m < sizeof latency_maps / sizeof *latency_maps; m++) {
			buf_printf(&prints, "\tprint(@%s_%s);\n", latency_maps[m], rp->sp->name);
			buf_printf(&clears, "\tclear(@%s_%s);\n", latency_maps[m], rp->sp->name);
		}
		buf_printf(&helpers, "\tclear(@start_%s);\n", rp->sp->name);
	}

	char *print_text = buf_take(&prints), *clear_text = buf_take(&clears),
	     *helper_text = buf_take(&helpers);
	/* The templates put each list on its own lines: drop the last '\n'. */
	for (char *x = print_text; x; x = NULL)
		if (*x) x[strlen(x) - 1] = '\0';
	for (char *x = clear_text; x; x = NULL)
		if (*x) x[strlen(x) - 1] = '\0';
	for (char *x = helper_text; x; x = NULL)
		if (*x) x[strlen(x) - 1] = '\0';
	if (!failed && o->window_ns > 0) {
		char period[64];
		uint64_t ms = (o->window_ns + 999999) / 1000000;
		snprintf(period, sizeof period, "ms:%llu", (unsigned long long)ms);
		vars v = { .n = 0 };
		vars_set(&v, "period", period);
		vars_set(&v, "print_maps", print_text);
		vars_set(&v, "clear_maps", clear_text);
		buf_putc(&out, '\n');
		failed |= render_into(&out, "window.bt.in", &v);
		prog->expected_attach++;
	}
	if (!failed) {
		vars v = { .n = 0 };
		vars_set(&v, "print_maps", print_text);
		vars_set(&v, "clear_maps", clear_text);
		vars_set(&v, "clear_helpers", helper_text);
		buf_putc(&out, '\n');
		failed |= render_into(&out, "end.bt.in", &v);
		prog->expected_attach++;
	}
	free(print_text);
	free(clear_text);
	free(helper_text);
	prog->len = out.len;
	prog->text = buf_take(&out);
	if (failed || !prog->text) {
		if (!failed)
			diag_error(NULL, "out of memory");
		program_free(prog);
		return NULL;
	}
	return prog;
}

void program_free(program *p)
{
	if (!p)
		return;
	free(p->text);
	free(p);
}
