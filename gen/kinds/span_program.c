/* span_program — a span probe's probes (span.h): one per point, each
 * reading the point's key, finding the span's slot and, at a stage's
 * end, adding the stage's time (and at the last, the whole span's) to
 * the span's histograms. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kinds/span.h"
#include "program/generator_internal.h"
#include "program/resolve.h"

/* The value SRC/INDEX/FIELD reads at a probe, as an int64 expression.
 * A tracepoint's field is kptr(): bpftrace 0.23 and later take a
 * syscall tracepoint's fields for user memory, and warn ("Addrspace
 * mismatch") where such a key meets the span's maps. */
static void put_value(buf *b, value_source src, int index, const char *field)
{
	if (src == VALUE_RETVAL)
		buf_puts(b, "(int64)retval");
	else if (src == VALUE_FIELD)
		buf_printf(b, "(int64)kptr(args->%s)", field);
	else
		buf_printf(b, "(int64)arg%d", index);
}

/* Whether point PT reads its key's argument at the call's entry (a
 * return probe keyed by an argument). */
static bool key_at_entry(const spec_span_point *pt)
{
	return pt->key_src == VALUE_ARG &&
	       (pt->point == POINT_URETPROBE || pt->point == POINT_KRETPROBE);
}

/* The first point of SP before return point J on the entry of the
 * function J returns from (a uprobe for a uretprobe, a kprobe for a
 * kretprobe, same object and function): that point's probe saves J's
 * key too, and J has no entry probe of its own (one trap fewer a call:
 * threadpool's work functions are such pairs).  SIZE_MAX: none. */
static size_t entry_sharer(const spec_probe *sp, size_t j)
{
	const spec_span_point *rt = &sp->points[j];
	int entry = rt->point == POINT_URETPROBE ? POINT_UPROBE : POINT_KPROBE;
	const char *where = strchr(rt->probe, ':');
	for (size_t i = 0; i < j; i++) {
		const spec_span_point *p = &sp->points[i];
		if ((int)p->point == entry && !strcmp(strchr(p->probe, ':'), where))
			return i;
	}
	return SIZE_MAX;
}

/* In the body of point I of SP: the keys of the later return points
 * whose entry it shares (entry_sharer), saved first, before anything can
 * return. */
static void put_shared_entry_keys(buf *b, const spec_probe *sp, size_t i)
{
	for (size_t j = i + 1; j < sp->n_points; j++)
		if (key_at_entry(&sp->points[j]) && entry_sharer(sp, j) == i)
			buf_printf(b, "	@spa%zu_%s[tid] = (int64)arg%d;\n", j, sp->name,
				   sp->points[j].key_index);
}

/* PT's attach point, TYPE (NULL: its own) replacing its type: OBJECT main
 * of a uprobe, uretprobe or usdt point is EXE.  Returns false after a
 * diagnostic when bpftrace cannot take the path. */
static bool put_attach(buf *b, const char *probe_name, const spec_span_point *pt,
		       const char *type, const char *exe)
{
	const char *obj = strchr(pt->probe, ':') + 1;
	bool user = pt->point == POINT_UPROBE || pt->point == POINT_URETPROBE ||
		    pt->point == POINT_USDT;
	buf_puts(b, type ? type : "");
	if (!type)
		buf_printf(b, "%.*s", (int)(obj - pt->probe - 1), pt->probe);
	buf_putc(b, ':');
	if (!user) {
		buf_puts(b, obj);
		return true;
	}
	const char *rest = strchr(obj, ':');
	if (rest - obj == 4 && memcmp(obj, "main", 4) == 0 && exe) {
		if (!gen_plain_object(probe_name, exe))
			return false;
		buf_puts(b, exe);
	} else {
		buf_printf(b, "%.*s", (int)(rest - obj), obj);
	}
	buf_puts(b, rest);
	return true;
}

/* The statements that set $k, the key of point PT (number I of probe
 * NAME), and $s, its slot among LIMIT. */
static void put_key(buf *b, const char *name, size_t i, const spec_span_point *pt,
		    const gen_parts *pt_parts, unsigned limit)
{
	if (key_at_entry(pt)) {
		buf_printf(b, "\t$k = @spa%zu_%s[tid];\n\t%s(@spa%zu_%s[tid]);\n", i, name,
			   pt_parts->delete_call, i, name);
	} else {
		buf_puts(b, "\t$k = ");
		put_value(b, pt->key_src, pt->key_index, pt->key_field);
		buf_puts(b, ";\n");
	}
	if (pt->key_offset)
		buf_printf(b, "\t$k = $k %c %ld;\n", pt->key_offset < 0 ? '-' : '+',
			   pt->key_offset < 0 ? -pt->key_offset : pt->key_offset);
	/* Fibonacci hashing: aligned pointers (their low bits all 0) spread
	 * over every slot. */
	buf_printf(b, "\tif ($k == 0) { return; }\n"
		   "\t$h = (uint64)$k * 2654435761;\n"
		   "\t$s = ($h >> 16) %% %u;\n", limit);
}

/* The string label PT reads, at most SPAN_LABEL_BYTES + 1 bytes (0.17
 * keeps one more byte than later versions: bpfspec cuts them to
 * SPAN_LABEL_BYTES), user memory at a uprobe, uretprobe or usdt point. */
static void put_label_string(buf *b, const spec_span_point *pt)
{
	bool user = pt->point == POINT_UPROBE || pt->point == POINT_URETPROBE ||
		    pt->point == POINT_USDT;
	buf_printf(b, "str(%s", user ? "uptr(" : "");
	if (pt->label_src == VALUE_RETVAL)
		buf_puts(b, "retval");
	else if (pt->label_src == VALUE_FIELD)
		buf_printf(b, "args->%s", pt->label_field);
	else
		buf_printf(b, "arg%d", pt->label_index);
	buf_printf(b, "%s, %d)", user ? ")" : "", SPAN_LABEL_BYTES + 1);
}

/* With a string label read at PT: the statements that set $l to the
 * label's number and $lk, as put_label's.  A string gets its number the
 * first time it is seen (while fewer than LABELS are known): the time
 * and the CPU, unique even when two CPUs see new strings at once, kept
 * in @spln (string -> number, for the next spans) and @SPAN_LABEL_TEXT
 * (number -> string, printed every window); later strings are other.
 * The string is read anew at each use: bpftrace 0.17 loses a string
 * variable that keyed a map. */
static void put_string_label(buf *b, const char *name, const spec_span_point *pt,
			     unsigned labels)
{
	buf_printf(b, "\t$l = @spln_%s[", name);
	put_label_string(b, pt);
	buf_printf(b, "];\n\t$lk = (int64)%d;\n"
		   "\tif ($l == 0) {\n"
		   "\t\tif (@splc_%s < %u) {\n"
		   "\t\t\t@splc_%s = @splc_%s + 1;\n"
		   "\t\t\t$l = (int64)(nsecs * 256 + cpu);\n\t\t\t@spln_%s[",
		   SPAN_LABEL, name, labels, name, name, name);
	put_label_string(b, pt);
	buf_printf(b, "] = $l;\n\t\t\t@" SPAN_LABEL_TEXT "_%s[$l] = ", name);
	put_label_string(b, pt);
	buf_printf(b, ";\n\t\t} else { $lk = (int64)%d; }\n\t}\n"
		   "\t@spl_%s[$s] = $l;\n\t@splk_%s[$s] = $lk;\n", SPAN_OTHER, name, name);
}

/* With a label read at PT: the statements that set @spl and @splk of
 * slot $s, the first 'labels' distinct labels kept, the rest other. */
static void put_label(buf *b, const char *name, const spec_span_point *pt, unsigned labels)
{
	if (pt->label == SPAN_LABEL_NONE)
		return;
	if (pt->label == SPAN_LABEL_STRING) {
		put_string_label(b, name, pt, labels);
		return;
	}
	if (pt->label == SPAN_LABEL_FUNC)
		buf_puts(b, "\t$l = (int64)reg(\"ip\");\n");
	else {
		buf_puts(b, "\t$l = ");
		put_value(b, pt->label_src, pt->label_index, pt->label_field);
		buf_puts(b, ";\n");
	}
	buf_printf(b, "\t$lk = (int64)%d;\n"
		   "\tif (@spln_%s[$l] == 0) {\n"
		   "\t\tif (@splc_%s < %u) { @spln_%s[$l] = 1; @splc_%s = @splc_%s + 1; }\n"
		   "\t\telse { $lk = (int64)%d; $l = (int64)0; }\n\t}\n"
		   "\t@spl_%s[$s] = $l;\n\t@splk_%s[$s] = $lk;\n",
		   SPAN_LABEL, name, name, labels, name, name, name, SPAN_OTHER, name, name);
}

/* The statements that add $ns to stage STAGE's histograms of probe NAME,
 * for the label in $l/$lk, when $t (the stage's start) is in the window. */
static void put_record(buf *b, const gen_parts *pt, const char *name, size_t stage,
		       const char *from, bool func_label, const char *wstart, bool slice)
{
	const char *label = func_label ? "usym($l)" : "$l";
	buf_printf(b, "\tif (%s >= %s) {\n\t\t$ns = $now - %s;\n%s\n", from, wstart, from,
		   pt->bucket_nested);
	buf_printf(b, "\t\t@" SPAN_BUCKETS "_%s[%zu, $lk, $b, %s] = count();\n", name, stage, label);
	buf_printf(b, "\t\t@" SPAN_SUM "_%s[%zu, $lk, %s] = sum($ns);\n", name, stage, label);
	buf_printf(b, "\t\t@" SPAN_MIN "_%s[%zu, $lk, %s] = min($ns);\n", name, stage, label);
	buf_printf(b, "\t\t@" SPAN_MAX "_%s[%zu, $lk, %s] = max($ns);\n", name, stage, label);
	if (slice && pt->slice_min_ns) {
		/* -o trace: the whole span, on the thread that started it,
		 * with its label (LK, then the label as the maps key it). */
		buf_printf(b, "\t\t$st = @spst_%s[$s];\n", name);
		gen_put_slice_with(b, pt, name, from, "$st", func_label ? " %lld %s" : " %lld %lld",
				   func_label ? "$lk, usym($l)" : "$lk, $l", 2);
	}
	buf_puts(b, "\t}\n");
}

/* The body of a point that starts a span of probe NAME. */
static void put_start(buf *b, const char *name, const spec_span_point *pt, unsigned labels,
		      bool workers, bool slices)
{
	buf_printf(b, "\t$old = @spk_%s[$s];\n"
		   "\tif ($old != 0 && $old != $k) { @" SPAN_EVICTED "_%s = count(); "
		   "@" SPAN_GONE "_%s = count(); }\n"
		   "\tif ($old != $k) { @" SPAN_OPENED "_%s = count(); }\n"
		   "\t$now = (int64)nsecs;\n\t@spk_%s[$s] = $k;\n\t@spt0_%s[$s] = $now;\n"
		   "\t@spt_%s[$s] = $now;\n\t@spi_%s[$s] = (int64)0;\n",
		   name, name, name, name, name, name, name, name);
	if (pt->label)
		put_label(b, name, pt, labels);
	else
		buf_printf(b, "\t@spl_%s[$s] = (int64)0;\n\t@splk_%s[$s] = (int64)0;\n", name,
			   name);
	if (workers)
		buf_printf(b, "\t@sptid_%s[$s] = tid;\n", name);
	if (slices)
		buf_printf(b, "\t@spst_%s[$s] = tid;\n", name);
}

/* The body of a point that ends stage STAGE (1-based) of N_STAGES. */
static void put_stage_end(buf *b, const gen_parts *parts, const spec_probe *sp,
			  const spec_span_point *pt, size_t stage, size_t n_stages, bool func_label)
{
	const char *n = sp->name, *wstart = gen_window_start_read(pt->point);
	buf_printf(b, "\tif (@spk_%s[$s] != $k || @spi_%s[$s] != %zu) { return; }\n"
		   "\t$now = (int64)nsecs;\n\t$t = @spt_%s[$s];\n", n, n, stage - 1, n);
	if (pt->label)
		put_label(b, n, pt, sp->labels);	/* sets $l and $lk */
	else
		buf_printf(b, "\t$l = @spl_%s[$s];\n\t$lk = @splk_%s[$s];\n", n, n);
	put_record(b, parts, n, stage - 1, "$t", func_label, wstart, false);
	size_t workers = span_workers_stage(sp);
	if (workers == stage)
		buf_printf(b, "\tif ($t >= %s && @sptid_%s[$s] == tid) {\n"
			   "\t\t@" SPAN_WORKER "_%s[tid] = sum($now - $t);\n\t}\n", wstart, n, n);
	if (stage < n_stages) {
		buf_printf(b, "\t@spt_%s[$s] = $now;\n\t@spi_%s[$s] = (int64)%zu;\n", n, n, stage);
		if (workers)
			buf_printf(b, "\t@sptid_%s[$s] = tid;\n", n);
		return;
	}
	buf_printf(b, "\t$t0 = @spt0_%s[$s];\n", n);
	put_record(b, parts, n, n_stages, "$t0", func_label, wstart, true);
	/* The slot is free again: its key 0 (no span's) is enough, every
	 * other slot map is read only after the key matched and written
	 * anew by the next start (one store where deleting each slot map
	 * cost a helper call apiece on the loop thread). */
	buf_printf(b, "\t@spk_%s[$s] = (int64)0;\n\t@" SPAN_GONE "_%s = count();\n", n, n);
}

/* Whether P reads a label with 'label: func'. */
static bool func_labelled(const spec_probe *p)
{
	for (size_t i = 0; i < p->n_points; i++)
		if (p->points[i].label == SPAN_LABEL_FUNC)
			return true;
	return false;
}

/* Point I of probe RP: its entry probe when it reads its key there, then
 * its own.  Returns its attach points, 0 after a diagnostic. */
static unsigned emit_point(gen_parts *parts, const resolved *r, const spec_probe *sp, size_t i)
{
	const spec_span_point *pt = &sp->points[i];
	const char *exe = r->tg ? r->tg->exe : NULL;
	size_t stage = span_stage_of(sp, i);
	unsigned n = 1;
	buf *b = &parts->out;

	buf_printf(b, "\n// ---- %s: point %zu, ", sp->name, i + 1);
	gen_put_comment(b, pt->probe);
	buf_putc(b, '\n');
	if (key_at_entry(pt) && entry_sharer(sp, i) == SIZE_MAX) {
		if (!put_attach(b, sp->name, pt, pt->point == POINT_KRETPROBE ? "kprobe" : "uprobe",
				exe))
			return 0;
		buf_printf(b, "\n%s\n{\n\t@spa%zu_%s[tid] = (int64)arg%d;\n}\n\n", parts->pid_filter,
			   i, sp->name, pt->key_index);
		n++;
	}
	if (!put_attach(b, sp->name, pt, NULL, exe))
		return 0;
	buf_printf(b, "\n%s\n{\n", parts->pid_filter);
	put_shared_entry_keys(b, sp, i);
	put_key(b, sp->name, i, pt, parts, sp->limit);
	if (stage == 0)
		put_start(b, sp->name, pt, sp->labels, span_workers_stage(sp) != 0,
			  parts->slice_min_ns != 0);
	else
		put_stage_end(b, parts, sp, pt, stage, span_stages(sp), func_labelled(sp));
	buf_puts(b, "}\n");
	return n;
}

int span_emit(gen_parts *pt, const resolved *r, size_t i)
{
	const spec_probe *sp = r->probes[i].sp;
	static const char *const printed[] = { SPAN_BUCKETS, SPAN_SUM, SPAN_MIN, SPAN_MAX,
					       SPAN_EVICTED, NULL };
	static const char *const slots[] = { "spk", "spt0", "spt", "spi", "spl", "splk",
					     SPAN_OPENED, SPAN_GONE, NULL };
	static const char *const label_set[] = { "spln", "splc", NULL };

	for (size_t k = 0; k < sp->n_points; k++) {
		unsigned n = emit_point(pt, r, sp, k);
		if (n == 0)
			return -1;
		pt->attach += n;
		if (key_at_entry(&sp->points[k]))
			buf_printf(&pt->finals, "\tclear(@spa%zu_%s);\n", k, sp->name);
	}
	gen_add_maps(pt, sp->name, printed, NULL, slots);
	if (span_labelled(sp))
		gen_add_maps(pt, sp->name, NULL, NULL, label_set);
	if (span_string_labelled(sp)) {
		static const char *const texts[] = { SPAN_LABEL_TEXT, NULL };
		gen_add_maps(pt, sp->name, NULL, NULL, texts);
		buf_printf(&pt->prints, "\tprint(@" SPAN_LABEL_TEXT "_%s);\n", sp->name);
	}
	if (pt->slice_min_ns) {
		static const char *const starters[] = { "spst", NULL };
		gen_add_slice_maps(pt, sp->name);
		gen_add_maps(pt, sp->name, NULL, NULL, starters);
	}
	if (span_workers_stage(sp)) {
		static const char *const worker[] = { SPAN_WORKER, NULL }, *const tids[] = { "sptid", NULL };
		gen_add_maps(pt, sp->name, worker, NULL, tids);
	}
	buf_printf(&pt->prints, "\tprint(@" SPAN_OPENED "_%s);\n\tprint(@" SPAN_GONE "_%s);\n",
		   sp->name, sp->name);
	return 0;
}
