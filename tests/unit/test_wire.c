/* Unit tests for wire.c: the program of every kind prints exactly the
 * maps wire_of() names for it, clears the ones it clears every window
 * and keeps the kept ones; and the round trip: every map a kind's
 * program prints is read back into the report (program -> output lines
 * -> report). */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/report.h"
#include "run/report_build.h"
#include "model/wire.h"
#include "program/generator.h"
#include "program/resolve.h"
#include "render/render.h"
#include "render/report_load.h"
#include "run/bpfout.h"
#include "spec/spec.h"
#include "target/target.h"
#include "util/diag.h"

/* One spec per kind, with a probe named "p". */
static const struct {
	probe_kind kind;
	const char *yaml;
} specs[] = {
	{ PROBE_LATENCY, "name: w\nprobes:\n  - name: p\n    kind: latency\n    function: f\n" },
	{ PROBE_SYSCALLS,
	  "name: w\nprobes:\n  - name: p\n    kind: syscalls\n    syscalls: [openat, read]\n" },
	{ PROBE_EVENTS, "name: w\nprobes:\n  - name: p\n    kind: events\n    syscalls: [openat]\n"
			"    threshold: 1ms\n" },
	{ PROBE_COUNT,
	  "name: w\nprobes:\n  - name: p\n    kind: count\n    probe: tracepoint:sched:sched_switch\n" },
	{ PROBE_UTILIZATION, "name: w\nprobes:\n  - name: p\n    kind: utilization\n" },
	{ PROBE_SPAN, "name: w\nprobes:\n  - name: p\n    kind: span\n    workers: run\n    points:\n"
		      "      - {probe: \"uprobe:main:a\", key: arg0}\n"
		      "      - {stage: run, probe: \"uprobe:main:b\", key: arg0, label: str(arg1)}\n" },
	{ PROBE_HTTP, "name: w\nprobes:\n  - name: p\n    kind: http\n" },
};

/* The program for spec I, with a trigger (so every window is flushed by
 * bpfspec's own probe) and pid 42.  Owned. */
static program *generate(size_t i)
{
	capture_start();
	spec *s = spec_parse("t/wire.yaml", specs[i].yaml, strlen(specs[i].yaml));
	char *out = capture_end();
	ck_assert_msg(s != NULL, "spec %zu does not parse:\n%s", i, out);
	free(out);
	ck_assert_int_eq(s->probes[0].kind, specs[i].kind);

	static char exe[] = "/usr/bin/x";
	char *objects[] = { exe };
	target t = { .pid = 42, .exe = exe, .objects = objects, .n_objects = 1 };
	uint64_t addrs[] = { 0x1000 };
	resolved_probe rp = { .sp = &s->probes[0], .active = true };
	if (specs[i].kind == PROBE_LATENCY) {
		rp.object = exe;
		rp.addrs = addrs;
		rp.n_addrs = 1;
	}
	resolved r = { .sp = s, .tg = &t, .probes = &rp, .n_probes = 1, .n_active = 1 };
	gen_options o = { .pid = 42, .window_ns = 1000000000ull, .trigger_path = "/usr/bin/b",
			  .trigger_addr = 0x99, .trigger_pid = 7 };
	capture_start();
	program *p = gen_program(&r, &o);
	out = capture_end();
	ck_assert_msg(p != NULL, "gen_program failed for kind %s:\n%s", kind_name(specs[i].kind),
		      out);
	free(out);
	spec_free(s);
	return p;
}

/* Number of NULL-terminated LIST's entries. */
static unsigned list_len(const char *const *list)
{
	unsigned n = 0;
	while (list[n])
		n++;
	return n;
}

START_TEST(test_program_prints_its_wire)
{
	program *p = generate((size_t)_i);
	const wire_kind *w = wire_of(specs[_i].kind);
	const char *name = kind_name(specs[_i].kind);
	char stmt[64];

	/* Each map of the table: printed at the window's flush and at END;
	 * a shared one without the probe's name, and BEGIN names the probes. */
	const char *suffix = w->shared ? "" : "_p";
	for (const char *const *m = w->cleared; *m; m++) {
		snprintf(stmt, sizeof stmt, "\tprint(@%s%s);\n", *m, suffix);
		ck_assert_msg(count_of(p->text, stmt) == 2, "%s: '%s' printed %u times, not 2",
			      name, *m, count_of(p->text, stmt));
		snprintf(stmt, sizeof stmt, "\tclear(@%s%s);\n", *m, suffix);
		ck_assert_msg(count_of(p->text, stmt) >= 1, "%s: '%s' is never cleared", name, *m);
	}
	ck_assert_uint_eq(count_of(p->text, "\tprintf(\"bpfspec:probes p\\n\");\n"), w->shared);
	for (const char *const *m = w->kept; *m; m++) {
		snprintf(stmt, sizeof stmt, "\tprint(@%s_p);\n", *m);
		ck_assert_msg(count_of(p->text, stmt) == 2, "%s: kept '%s' printed %u times", name,
			      *m, count_of(p->text, stmt));
	}
	/* And nothing else: every print() is one of them. */
	unsigned prints = count_of(p->text, "\tprint(@");
	ck_assert_msg(prints == 2 * (list_len(w->cleared) + list_len(w->kept)),
		      "%s: %u print() statements for %u maps in the wire table:\n%s", name, prints,
		      list_len(w->cleared) + list_len(w->kept), p->text);
	program_free(p);
}
END_TEST

START_TEST(test_every_kind_has_a_table)
{
	for (int k = 0; k < N_PROBE_KINDS; k++) {
		const wire_kind *w = wire_of((probe_kind)k);
		ck_assert_ptr_nonnull(w->cleared);
		ck_assert_ptr_nonnull(w->kept);
		ck_assert_uint_ge(list_len(w->cleared) + list_len(w->kept), 1);
	}
	ck_assert_uint_eq(list_len(wire_of((probe_kind)N_PROBE_KINDS)->cleared), 0);
	ck_assert_uint_eq(sizeof specs / sizeof specs[0], N_PROBE_KINDS);
}
END_TEST

/* ---- round trip ---------------------------------------------------- */

/* What bpftrace prints for each map of a kind's program (probe "p", pid
 * and main thread 42, syscall 257, bucket 300 = [3670016, 3801088) ns),
 * and the records: the output of one window, begun at 1 s, flushed at 2 s. */
static const struct {
	probe_kind kind;
	const char *map;	/* without '@' */
	const char *line;	/* the map's print, or a record's printf */
} samples[] = {
	{ PROBE_LATENCY, NULL, "bpfspec:probes p" },
	{ PROBE_LATENCY, "b", "{\"@b\": {\"1,42,300\": 3}}" },
	{ PROBE_LATENCY, "sum", "{\"@sum\": {\"1,42\": 11100000}}" },
	{ PROBE_LATENCY, "min", "{\"@min\": {\"1,42\": 3680000}}" },
	{ PROBE_LATENCY, "max", "{\"@max\": {\"1,42\": 3790000}}" },
	{ PROBE_UTILIZATION, "b_p", "{\"@b_p\": {\"42,300\": 3}}" },
	{ PROBE_UTILIZATION, "sum_p", "{\"@sum_p\": {\"42\": 11100000}}" },
	{ PROBE_UTILIZATION, "min_p", "{\"@min_p\": {\"42\": 3680000}}" },
	{ PROBE_UTILIZATION, "max_p", "{\"@max_p\": {\"42\": 3790000}}" },
	{ PROBE_UTILIZATION, "uin_p", "{\"@uin_p\": {\"43\": 1500000000}}" },
	/* stalls: bucket 290 = [2359296, 2490368) ns */
	{ PROBE_UTILIZATION, "sb_p", "{\"@sb_p\": {\"42,290\": 2}}" },
	{ PROBE_UTILIZATION, "ssum_p", "{\"@ssum_p\": {\"42\": 4850000}}" },
	{ PROBE_UTILIZATION, "smin_p", "{\"@smin_p\": {\"42\": 2400000}}" },
	{ PROBE_UTILIZATION, "smax_p", "{\"@smax_p\": {\"42\": 2450000}}" },
	{ PROBE_SYSCALLS, "b_p", "{\"@b_p\": {\"257,300\": 3}}" },
	{ PROBE_SYSCALLS, "st_p", "{\"type\": \"stats\", \"data\": {\"@st_p\": {\"42,257\": "
				  "{\"count\": 3, \"average\": 3700000, \"total\": 11100000}}}}" },
	{ PROBE_SYSCALLS, "min_p", "{\"@min_p\": {\"42,257\": 3680000}}" },
	{ PROBE_SYSCALLS, "max_p", "{\"@max_p\": {\"42,257\": 3790000}}" },
	{ PROBE_SYSCALLS, "err_p", "{\"@err_p\": {\"257,2\": 1}}" },
	{ PROBE_EVENTS, NULL, "bpfspec:ev p 1500000000 42 257 2000000 -2 s /tmp/x" },
	{ PROBE_EVENTS, "evcomm_p", "{\"@evcomm_p\": {\"42\": \"worker\"}}" },
	{ PROBE_EVENTS, "evdrop_p", "{\"@evdrop_p\": 5}" },
	{ PROBE_COUNT, "c_p", "{\"@c_p\": {\"42\": 7}}" },
	{ PROBE_SPAN, "spb_p", "{\"@spb_p\": {\"0,1,300,77\": 3, \"1,1,300,77\": 3}}" },
	{ PROBE_SPAN, "spsum_p", "{\"@spsum_p\": {\"0,1,77\": 11100000}}" },
	{ PROBE_SPAN, "spmin_p", "{\"@spmin_p\": {\"0,1,77\": 3680000}}" },
	{ PROBE_SPAN, "spmax_p", "{\"@spmax_p\": {\"0,1,77\": 3790000}}" },
	{ PROBE_SPAN, "splt_p", "{\"@splt_p\": {\"77\": \"dns,a \\\"b\\\"\"}}" },
	{ PROBE_SPAN, "spev_p", "{\"@spev_p\": 2}" },
	{ PROBE_SPAN, "spopen_p", "{\"@spopen_p\": 9}" },
	{ PROBE_SPAN, "spgone_p", "{\"@spgone_p\": 5}" },
	{ PROBE_SPAN, "spw_p", "{\"@spw_p\": {\"43\": 5000000}}" },
	{ PROBE_HTTP, NULL, "bpfspec:ev p q 1500000000 42 7 GET /users/12?x HTTP/1.1" },
	{ PROBE_HTTP, NULL, "bpfspec:ev p s 1500000000 42 42 7 2000000 404" },
	{ PROBE_HTTP, "evdrop_p", "{\"@evdrop_p\": 5}" },
	{ PROBE_HTTP, "hrre_p", "{\"@hrre_p\": 2}" },
	{ PROBE_HTTP, "hr2_p", "{\"@hr2_p\": 1}" },
};

/* Feeds one bpftrace line: a map's print (its data, or the whole line
 * when it is not of type "map") or a printf's text. */
static void feed_line(bpfout *out, const char *map, const char *text)
{
	char line[512];
	if (map && strncmp(text, "{\"type\"", 7) == 0)
		snprintf(line, sizeof line, "%s", text);
	else if (map)
		snprintf(line, sizeof line, "{\"type\": \"map\", \"data\": %s}", text);
	else
		snprintf(line, sizeof line, "{\"type\": \"printf\", \"data\": \"%s\\n\"}", text);
	bpfout_line k = bpfout_feed(out, line, strlen(line));
	ck_assert_msg(k == BPFOUT_LINE_DATA || k == BPFOUT_LINE_EVENT || k == BPFOUT_LINE_BEGIN ||
			      k == BPFOUT_LINE_FLUSH || k == BPFOUT_LINE_WINDOW ||
			      k == BPFOUT_LINE_PROBES,
		      "line not understood: %s", line);
}

/* The JSON report of spec I's probe after one window holding every
 * sample of its kind but SKIP (an index of samples[], or -1).  Owned. */
static char *report_without(size_t i, long skip)
{
	spec *s = spec_parse("t/wire.yaml", specs[i].yaml, strlen(specs[i].yaml));
	ck_assert_ptr_nonnull(s);
	static char exe[] = "/usr/bin/x";
	char *objects[] = { exe };
	target t = { .pid = 42, .exe = exe, .objects = objects, .n_objects = 1 };
	resolved_probe rp = { .sp = &s->probes[0], .active = true };
	resolved r = { .sp = s, .tg = &t, .probes = &rp, .n_probes = 1, .n_active = 1 };
	bpfout *out = bpfout_new();

	feed_line(out, NULL, "bpfspec:begin 1000000000");
	for (size_t k = 0; k < sizeof samples / sizeof *samples; k++)
		if (samples[k].kind == specs[i].kind && !samples[k].map && (long)k != skip)
			feed_line(out, NULL, samples[k].line);
	feed_line(out, NULL, "bpfspec:flush 2000000000");
	for (size_t k = 0; k < sizeof samples / sizeof *samples; k++)
		if (samples[k].kind == specs[i].kind && samples[k].map && (long)k != skip)
			feed_line(out, samples[k].map, samples[k].line);
	feed_line(out, NULL, "bpfspec:end");
	ck_assert_uint_eq(bpfout_window_count(out), 1);
	/* pid 0: thread names come from the output alone, never from this
	 * machine's /proc. */
	report_run run = { .pid = 0, .attached_probes = -1 };
	report *rep = report_build(&r, bpfout_window_at(out, 0), &run);
	ck_assert_ptr_nonnull(rep);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(render_json(f, rep), 0);
	fclose(f);
	report_free(rep);
	bpfout_free(out);
	spec_free(s);
	return text;
}

/* Every map kind I's program prints has a sample here, and leaving any
 * sample out (a map, or the records) changes the report: nothing the
 * program prints goes unread. */
START_TEST(test_every_printed_map_is_read)
{
	program *p = generate((size_t)_i);
	const char *name = kind_name(specs[_i].kind);

	for (const char *at = strstr(p->text, "\tprint(@"); at; at = strstr(at + 1, "\tprint(@")) {
		char map[64];
		ck_assert_int_eq(sscanf(at, "\tprint(@%63[a-z0-9_])", map), 1);
		bool sampled = false;
		for (size_t k = 0; k < sizeof samples / sizeof *samples; k++)
			sampled |= samples[k].kind == specs[_i].kind && samples[k].map &&
				   strcmp(samples[k].map, map) == 0;
		ck_assert_msg(sampled, "%s prints @%s, which this test has no sample of", name, map);
	}
	program_free(p);
	char *all = report_without((size_t)_i, -1);
	unsigned n = 0;
	for (size_t k = 0; k < sizeof samples / sizeof *samples; k++) {
		if (samples[k].kind != specs[_i].kind)
			continue;
		char *without = report_without((size_t)_i, (long)k);
		ck_assert_msg(strcmp(all, without) != 0, "%s: the report is the same without %s",
			      name, samples[k].map ? samples[k].map : samples[k].line);
		free(without);
		n++;
	}
	ck_assert_uint_ge(n, 1);
	free(all);
}
END_TEST

/* The JSON report of each kind loads back (report_load reads what the
 * kind's json_fields wrote, as kind.h's shape says) and renders the same:
 * nothing a kind writes is lost or misread on the way to a diff or a
 * check. */
START_TEST(test_json_report_loads_back)
{
	char *json = report_without((size_t)_i, -1);
	report *back = report_parse_json(json, strlen(json), "wire.json");
	ck_assert_msg(back != NULL, "%s: its JSON report does not load", kind_name(specs[_i].kind));
	char *again = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&again, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(render_json(f, back), 0);
	fclose(f);
	size_t at = 0;
	while (again[at] && again[at] == json[at])
		at++;
	ck_assert_msg(again[at] == json[at], "%s: the report loaded back differs at byte %zu:\n"
		      "--- written\n%.160s\n--- loaded and written again\n%.160s",
		      kind_name(specs[_i].kind), at, json + (at > 60 ? at - 60 : 0),
		      again + (at > 60 ? at - 60 : 0));
	report_free(back);
	free(again);
	free(json);
}
END_TEST

/* A string label's text reaches the span's rows from @splt: cut to its
 * first SPAN_LABEL_BYTES (31) bytes (0.17 keeps 32), two numbers of one
 * text (two CPUs met a new string at once) one row, and a number the
 * map lacks counted as other, never shown as a number. */
START_TEST(test_span_string_labels)
{
	static const char *const lines[] = {
		"{\"type\": \"printf\", \"data\": \"bpfspec:begin 1000000000\\n\"}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:flush 2000000000\\n\"}",
		"{\"type\": \"map\", \"data\": {\"@spb_p\": {\"1,1,300,11\": 2, \"1,1,300,12\": 3, "
		"\"1,1,300,13\": 4, \"1,1,300,99\": 1, \"1,2,300,0\": 5}}}",
		"{\"type\": \"map\", \"data\": {\"@splt_p\": {\"11\": \"dns\", \"12\": \"dns\", "
		"\"13\": \"a-work-type-name-longer-than-31-\"}}}",
		"{\"type\": \"printf\", \"data\": \"bpfspec:end\\n\"}",
	};
	spec *s = spec_parse("t/wire.yaml", specs[5].yaml, strlen(specs[5].yaml));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->probes[0].kind, PROBE_SPAN);
	static char exe[] = "/usr/bin/x";
	char *objects[] = { exe };
	target t = { .pid = 42, .exe = exe, .objects = objects, .n_objects = 1 };
	resolved_probe rp = { .sp = &s->probes[0], .active = true };
	resolved r = { .sp = s, .tg = &t, .probes = &rp, .n_probes = 1, .n_active = 1 };
	bpfout *out = bpfout_new();
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		(void)bpfout_feed(out, lines[i], strlen(lines[i]));
	ck_assert_uint_eq(bpfout_window_count(out), 1);
	report_run run = { .pid = 0, .attached_probes = -1 };
	report *rep = report_build(&r, bpfout_window_at(out, 0), &run);
	ck_assert_ptr_nonnull(rep);
	const report_probe *p = &rep->probes[0];
	uint64_t dns = 0, cut = 0, other = 0;
	unsigned dns_rows = 0;
	for (size_t i = 0; i < p->n_span_rows; i++) {
		const report_span_row *row = &p->span_rows[i];
		ck_assert_ptr_nonnull(row->label);
		if (row->other) {
			other += row->st.count;
		} else if (!strcmp(row->label, "dns")) {
			dns += row->st.count;
			dns_rows++;
		} else if (!strcmp(row->label, "a-work-type-name-longer-than-31")) {
			cut += row->st.count;
		} else {
			ck_abort_msg("a row labelled '%s'", row->label);
		}
	}
	ck_assert_uint_eq(dns, 5);
	ck_assert_uint_eq(dns_rows, 1);
	ck_assert_uint_eq(cut, 4);
	ck_assert_uint_eq(other, 6);	/* number 99 (unknown) and the other spans */
	report_free(rep);
	bpfout_free(out);
	spec_free(s);
}
END_TEST

START_TEST(test_every_kind_has_a_shape)
{
	for (int k = 0; k < N_PROBE_KINDS; k++) {
		const kind_shape *sh = kind_shape_of((probe_kind)k);
		ck_assert_ptr_nonnull(sh->article);
		ck_assert_ptr_nonnull(sh->counts);
		/* Per-syscall statistics are statistics of durations. */
		ck_assert(!sh->per_syscall || sh->durations);
	}
}
END_TEST

/* A kind is its row (model/kind.h): every kind of the enum has one, of
 * its own kind, with every operation the stages call unconditionally,
 * and its name reads back as the kind. */
START_TEST(test_every_kind_has_a_row)
{
	for (int k = 0; k < N_PROBE_KINDS; k++) {
		const kind_ops *ops = kind_ops_of((probe_kind)k);
		probe_kind back;
		ck_assert_ptr_nonnull(ops);
		ck_assert_int_eq(ops->kind, k);
		ck_assert_ptr_nonnull(ops->wire);
		ck_assert_ptr_nonnull(ops->spec);
		ck_assert(ops->emit && ops->describe && ops->fill && ops->text_row &&
			  ops->text_details && ops->json_fields && ops->prom);
		ck_assert_int_eq(kind_from_name(kind_name((probe_kind)k), &back), 0);
		ck_assert_int_eq(back, k);
		ck_assert_ptr_eq(kind_shape_of((probe_kind)k), &ops->shape);
	}
	ck_assert_ptr_null(kind_ops_of((probe_kind)N_PROBE_KINDS));
	ck_assert_str_eq(kind_name((probe_kind)N_PROBE_KINDS), "?");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("wire");
	tcase_add_loop_test(tc, test_program_prints_its_wire, 0, sizeof specs / sizeof specs[0]);
	tcase_add_test(tc, test_every_kind_has_a_table);
	tcase_add_loop_test(tc, test_every_printed_map_is_read, 0, sizeof specs / sizeof specs[0]);
	tcase_add_loop_test(tc, test_json_report_loads_back, 0, sizeof specs / sizeof specs[0]);
	tcase_add_test(tc, test_span_string_labels);
	tcase_add_test(tc, test_every_kind_has_a_shape);
	tcase_add_test(tc, test_every_kind_has_a_row);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
