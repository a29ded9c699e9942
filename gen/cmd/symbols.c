/* symbols — see symbols.h. */
#include "cmd/symbols.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/debuginfo.h"
#include "target/libuv.h"
#include "target/symtab.h"
#include "target/target.h"
#include "target/usdt.h"
#include "util/diag.h"
#include "util/safe.h"
#include "util/usage.h"

typedef struct sym_func {
	char *name;		/* as in the symbol table */
	char *demangled;	/* NULL when not C++ */
	uint64_t addr;
	size_t object;		/* index into the listing's objects */
} sym_func;

/* What one object holds, and where its functions were read. */
typedef struct sym_object {
	const char *path;	/* borrowed from the target */
	symtab_info info;
	char *debug_file;	/* functions read from here, or NULL */
	char *debug_tried;	/* candidates rejected when none was found */
	size_t n_functions;
	usdt_probe *usdt;
	size_t n_usdt;
} sym_object;

typedef struct listing {
	const char *glob;	/* NULL: everything */
	sym_object *objects;
	size_t n_objects;
	sym_func *funcs;
	size_t n_funcs, cap_funcs;
	size_t current;		/* object being read */
	bool failed;		/* out of memory */
} listing;

typedef struct sym_options {
	pid_t pid;
	const char *binary;
	const char *glob;
	bool json;
} sym_options;

static const char usage_text[] =
	"usage: bpfspec symbols (-p PID | --binary PATH) [-o text|json] [--debug-dir DIR]... [GLOB]\n"
	"\n"
	"Lists the functions (mangled and demangled names) and USDT probes that can\n"
	"be traced, with the object each lives in, and the target's libuv version.\n"
	"GLOB filters names (fnmatch): 'uv__run_*', 'v8::internal::Heap::*'.\n"
	"\n"
	"Examples:\n"
	"  bpfspec symbols -p $(pgrep -n node) 'uv__*'\n"
	"  bpfspec symbols --binary ./app --debug-dir ./debug -o json\n";

__attribute__((format(printf, 1, 2)))
static int usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_verror("see `bpfspec symbols --help`", fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

bool symbols_name_matches(const char *glob, const char *name, const char *demangled)
{
	if (!glob || fnmatch(glob, name, 0) == 0)
		return true;
	if (!demangled)
		return false;
	if (fnmatch(glob, demangled, 0) == 0)
		return true;
	/* Without the parameter list: "ns::f(int) const" → "ns::f". */
	const char *paren = strchr(demangled, '(');
	if (!paren || (size_t)(paren - demangled) >= 1024)
		return false;
	char base[1024];
	snprintf(base, sizeof base, "%.*s", (int)(paren - demangled), demangled);
	return fnmatch(glob, base, 0) == 0;
}

/* Collects one symbol of the current object (symtab_visit_fn). */
static int collect(void *ctx, const symtab_symbol *sym)
{
	listing *l = ctx;
	char *demangled;

	if (strstr(sym->name, ".cold") || strstr(sym->name, ".part."))
		return 0;
	demangled = symtab_demangle(sym->name);
	if (!symbols_name_matches(l->glob, sym->name, demangled)) {
		free(demangled);
		return 0;
	}
	if (l->n_funcs == l->cap_funcs) {
		size_t cap = l->cap_funcs ? 2 * l->cap_funcs : 1024;
		sym_func *v = realloc(l->funcs, cap * sizeof *v);

		if (!v) {
			free(demangled);
			l->failed = true;
			return -1;
		}
		l->funcs = v;
		l->cap_funcs = cap;
	}
	char *name = strdup(sym->name);
	if (!name) {
		free(demangled);
		l->failed = true;
		return -1;
	}
	l->funcs[l->n_funcs++] = (sym_func){ .name = name, .demangled = demangled,
					      .addr = sym->addr, .object = l->current };
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const sym_func *x = a, *y = b;
	int c;

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Sorts the functions of objects [FIRST..) by name and drops the copies
 * that .symtab and .dynsym both hold.  Returns how many are left there. */
static size_t sort_unique(listing *l, size_t first)
{
	size_t out = first;

	if (l->n_funcs == first)
		return 0;
	qsort(l->funcs + first, l->n_funcs - first, sizeof *l->funcs, cmp_func);
	for (size_t i = first; i < l->n_funcs; i++) {
		sym_func *f = &l->funcs[i];

		if (out > first && strcmp(l->funcs[out - 1].name, f->name) == 0 &&
		    l->funcs[out - 1].addr == f->addr) {
			free(f->name);
			free(f->demangled);
			continue;
		}
		l->funcs[out++] = *f;
	}
	size_t n = out - first;
	l->n_funcs = out;
	return n;
}

/* Reads the functions and USDT probes of object I.  Returns 0, or -1 when
 * the object cannot be read or memory ran out (message printed). */
static int read_object(listing *l, size_t i)
{
	sym_object *o = &l->objects[i];
	char err[256];
	size_t first = l->n_funcs;

	l->current = i;
	if (symtab_foreach(o->path, collect, l, &o->info, err, sizeof err) < 0) {
		if (l->failed)
			diag_error(NULL, "out of memory");
		else
			diag_error("give an ELF executable or shared object",
				   "cannot read %s: %s", o->path, err);
		return -1;
	}
	if (!o->info.has_symtab) {
		o->debug_file = debuginfo_find(o->path, &o->info, &o->debug_tried);
		if (!o->debug_file && o->debug_tried)
			diag_verbose("%s: no debug file; tried %s", o->path, o->debug_tried);
		if (o->debug_file) {
			/* The debug file's .symtab has all that .dynsym has. */
			for (size_t k = first; k < l->n_funcs; k++) {
				free(l->funcs[k].name);
				free(l->funcs[k].demangled);
			}
			l->n_funcs = first;
			if (symtab_foreach(o->debug_file, collect, l, NULL, err, sizeof err) < 0 &&
			    l->failed) {
				diag_error(NULL, "out of memory");
				return -1;
			}
		}
	}
	o->n_functions = sort_unique(l, first);

	int rc = usdt_list(o->path, &o->usdt, &o->n_usdt, err, sizeof err);
	if (rc == USDT_ERROR)
		diag_warn("%s", err);
	if (l->glob && o->n_usdt) {
		size_t out = 0;
		for (size_t k = 0; k < o->n_usdt; k++) {
			char full[512];
			snprintf(full, sizeof full, "%s:%s", o->usdt[k].provider, o->usdt[k].name);
			if (fnmatch(l->glob, full, 0) == 0 || fnmatch(l->glob, o->usdt[k].name, 0) == 0) {
				usdt_probe keep = o->usdt[k];
				o->usdt[k] = o->usdt[out];
				o->usdt[out++] = keep;
			}
		}
		/* The ones left out go to the end; usdt_list_free takes all. */
		for (size_t k = out; k < o->n_usdt; k++) {
			free(o->usdt[k].provider);
			free(o->usdt[k].name);
			free(o->usdt[k].args);
			o->usdt[k] = (usdt_probe){ .provider = NULL };
		}
		o->n_usdt = out;
	}
	return 0;
}

/* Where an object's functions came from, in words. */
static const char *source_of(const sym_object *o)
{
	if (o->debug_file)
		return "debug file";
	if (o->info.has_symtab)
		return ".symtab";
	return o->info.has_dynsym ? ".dynsym" : "none";
}

/* One line per object, function and probe; fields separated by tabs.
 * Paths and names come from the target: safe.h's text form (a tab in one
 * shows as \x09, so the columns hold). */
static void print_text(FILE *out, const listing *l, const target *t, const char *uv,
		       const char *uv_object)
{
	if (t->pid > 0) {
		fprintf(out, "# pid %d (", (int)t->pid);
		safe_fputs(t->exe, out);
		fprintf(out, "): %zu object%s\n", l->n_objects, l->n_objects == 1 ? "" : "s");
	}
	if (uv) {
		fputs("# libuv ", out);
		safe_fputs(uv, out);
		fputs(" (in ", out);
		safe_fputs(uv_object, out);
		fputs(")\n", out);
	}
	for (size_t i = 0; i < l->n_objects; i++) {
		const sym_object *o = &l->objects[i];

		fputs("# ", out);
		safe_fputs(o->path, out);
		fprintf(out, ": %zu function%s%s from %s", o->n_functions,
			o->n_functions == 1 ? "" : "s", l->glob ? " matching" : "", source_of(o));
		if (o->debug_file) {
			fputc(' ', out);
			safe_fputs(o->debug_file, out);
		} else if (!o->info.has_symtab) {
			fprintf(out, " (stripped, no debug file found%s)",
				o->debug_tried ? ": -v lists the paths tried" : "");
		}
		if (o->n_usdt)
			fprintf(out, ", %zu USDT probe%s", o->n_usdt, o->n_usdt == 1 ? "" : "s");
		fputc('\n', out);
	}
	for (size_t k = 0; k < l->n_funcs; k++) {
		const sym_func *f = &l->funcs[k];

		fputs("function\t", out);
		safe_fputs(l->objects[f->object].path, out);
		fputc('\t', out);
		if (f->demangled) {
			safe_fputs(f->demangled, out);
			fputc('\t', out);
		}
		safe_fputs(f->name, out);
		fputc('\n', out);
	}
	for (size_t i = 0; i < l->n_objects; i++)
		for (size_t k = 0; k < l->objects[i].n_usdt; k++) {
			const usdt_probe *p = &l->objects[i].usdt[k];
			fputs("usdt\t", out);
			safe_fputs(l->objects[i].path, out);
			fputc('\t', out);
			safe_fputs(p->provider, out);
			fputc(':', out);
			safe_fputs(p->name, out);
			fprintf(out, "\t%d arg%s\n", p->n_args, p->n_args == 1 ? "" : "s");
		}
}

/* S (a path or symbol from the target) as a JSON string: invalid UTF-8
 * bytes as U+FFFD, never dropped; null for NULL. */
static json_t *jstr_or_null(const char *s)
{
	char *valid = s ? safe_utf8_lossy(s) : NULL;
	json_t *j = valid ? json_string(valid) : NULL;
	free(valid);
	return j ? j : json_null();
}

static int print_json(FILE *out, const listing *l, const target *t, const char *uv,
		      const char *uv_object)
{
	json_t *root = json_object(), *objs = json_array(), *funcs = json_array(),
	       *probes = json_array(), *tg = json_object();
	char addr[32];

	json_object_set_new(tg, "pid", json_integer(t->pid));
	json_object_set_new(tg, "binary", jstr_or_null(t->exe));
	json_object_set_new(root, "target", tg);
	json_object_set_new(root, "libuv_version", jstr_or_null(uv));
	json_object_set_new(root, "libuv_object", jstr_or_null(uv_object));
	for (size_t i = 0; i < l->n_objects; i++) {
		const sym_object *o = &l->objects[i];
		json_t *jo = json_object();

		json_object_set_new(jo, "path", jstr_or_null(o->path));
		json_object_set_new(jo, "build_id", o->info.build_id[0] ?
					json_string(o->info.build_id) : json_null());
		json_object_set_new(jo, "symbols_from", json_string(source_of(o)));
		json_object_set_new(jo, "debug_file", jstr_or_null(o->debug_file));
		json_object_set_new(jo, "functions", json_integer((json_int_t)o->n_functions));
		json_object_set_new(jo, "usdt_probes", json_integer((json_int_t)o->n_usdt));
		json_array_append_new(objs, jo);
		for (size_t k = 0; k < o->n_usdt; k++) {
			json_t *jp = json_object();
			json_object_set_new(jp, "provider", jstr_or_null(o->usdt[k].provider));
			json_object_set_new(jp, "name", jstr_or_null(o->usdt[k].name));
			json_object_set_new(jp, "args", json_integer(o->usdt[k].n_args));
			json_object_set_new(jp, "locations",
					    json_integer((json_int_t)o->usdt[k].n_locations));
			json_object_set_new(jp, "object", jstr_or_null(o->path));
			json_array_append_new(probes, jp);
		}
	}
	for (size_t k = 0; k < l->n_funcs; k++) {
		const sym_func *f = &l->funcs[k];
		json_t *jf = json_object();

		snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)f->addr);
		json_object_set_new(jf, "name", jstr_or_null(f->demangled ? f->demangled : f->name));
		json_object_set_new(jf, "mangled", f->demangled ? jstr_or_null(f->name) : json_null());
		json_object_set_new(jf, "object", jstr_or_null(l->objects[f->object].path));
		json_object_set_new(jf, "address", json_string(addr));
		json_array_append_new(funcs, jf);
	}
	json_object_set_new(root, "objects", objs);
	json_object_set_new(root, "functions", funcs);
	json_object_set_new(root, "usdt", probes);
	int rc = json_dumpf(root, out, JSON_COMPACT | JSON_ENSURE_ASCII) < 0 ? -1 : 0;
	fputc('\n', out);
	json_decref(root);
	return rc;
}

static void listing_free(listing *l)
{
	for (size_t k = 0; k < l->n_funcs; k++) {
		free(l->funcs[k].name);
		free(l->funcs[k].demangled);
	}
	free(l->funcs);
	for (size_t i = 0; l->objects && i < l->n_objects; i++) {
		free(l->objects[i].debug_file);
		free(l->objects[i].debug_tried);
		usdt_list_free(l->objects[i].usdt, l->objects[i].n_usdt);
	}
	free(l->objects);
}

/* Parses the options.  Returns 0, or an exit status. */
static int parse(int argc, char **argv, sym_options *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "binary", required_argument, NULL, 'b' },
		{ "output-format", required_argument, NULL, 'o' },
		{ "debug-dir", required_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:o:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v <= 0 || v > 0x3fffffff)
				return usage("invalid pid '%s': expected a positive number", optarg);
			o->pid = (pid_t)v;
			break;
		}
		case 'b':
			o->binary = optarg;
			break;
		case 'o':
			if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0)
				return usage("unknown output format '%s': use text or json", optarg);
			o->json = strcmp(optarg, "json") == 0;
			break;
		case 'D':
			if (debuginfo_add_dir(optarg) < 0)
				return usage("too many --debug-dir (at most 32): '%s'", optarg);
			break;
		case 'v':
			diag_set_verbose(1);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		o->glob = argv[optind++];
	if (optind < argc)
		return usage("unexpected argument '%s': give one GLOB", argv[optind]);
	if ((o->pid > 0) == (o->binary != NULL))
		return usage("%s", "give one of -p PID or --binary PATH");
	return 0;
}

int symbols_main(int argc, char **argv)
{
	sym_options opt = { .pid = 0 };
	listing l = { .glob = NULL };
	target *t = NULL;
	char uv[64];
	const char *uv_object = NULL;
	int rc = parse(argc, argv, &opt);

	if (rc != 0)
		return rc < 0 ? EXIT_OK : rc;
	l.glob = opt.glob;
	t = opt.pid > 0 ? target_from_pid(opt.pid) : target_from_path(opt.binary);
	if (!t)
		return EXIT_TARGET;
	rc = EXIT_TARGET;
	l.objects = calloc(t->n_objects, sizeof *l.objects);
	if (!l.objects) {
		diag_error(NULL, "out of memory");
		goto done;
	}
	l.n_objects = t->n_objects;
	for (size_t i = 0; i < t->n_objects; i++) {
		l.objects[i].path = t->objects[i];
		if (read_object(&l, i) < 0)
			goto done;
	}
	bool has_uv = libuv_target_version(t, uv, sizeof uv, &uv_object) == 0;
	if (opt.json) {
		if (print_json(stdout, &l, t, has_uv ? uv : NULL, uv_object) < 0)
			goto output_failed;
	} else {
		print_text(stdout, &l, t, has_uv ? uv : NULL, uv_object);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		goto output_failed;
	rc = EXIT_OK;
	goto done;
output_failed:
	diag_error("check the disk or the pipe stdout goes to", "cannot write the listing: %s",
		   strerror(errno));
	rc = EXIT_OUTPUT;
done:
	listing_free(&l);
	target_free(t);
	return rc;
}
