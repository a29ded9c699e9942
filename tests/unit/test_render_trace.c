/* test_render_trace — `-o trace` (render_trace): the file is JSON a trace
 * viewer reads, its slices are the report's calls at their exact times,
 * slices of a thread nest (or become async pairs when they cannot), and
 * no string of the traced process reaches it raw.  The integration test
 * (tests/integration/test_trace.sh) checks real runs. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/kind.h"
#include "render/render.h"
#include "render/report_load.h"

#define FIXTURES "tests/fixtures/reports/"
#define BEGIN_NS 5000000000000ull	/* the window's start, bpftrace's clock */

/* Gives probe P the slices START_NS[i] .. + DUR_NS[i] (since the window
 * began) on thread TID, named THREAD. */
static void add_slices(report_probe *p, long tid, const char *thread, const uint64_t *start_ns,
		       const uint64_t *dur_ns, size_t n)
{
	report_event *ev = realloc(p->events, (p->n_events + n) * sizeof *ev);
	ck_assert_ptr_nonnull(ev);
	p->events = ev;
	for (size_t i = 0; i < n; i++) {
		report_event *e = &p->events[p->n_events++];
		memset(e, 0, sizeof *e);
		e->t_ns = start_ns[i] + dur_ns[i];	/* recorded at the end */
		e->latency_ns = dur_ns[i];
		e->tid = tid;
		e->thread = strdup(thread);
	}
}

static json_t *render(report *rep)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(render_trace(f, (const report *const *)&rep, 1), 0);
	fclose(f);
	/* No raw control byte anywhere. */
	for (size_t i = 0; i < len; i++)
		ck_assert_msg((unsigned char)text[i] >= 0x20 || text[i] == '\n', "byte 0x%02x at %zu",
			      text[i], i);
	json_error_t err;
	json_t *doc = json_loadb(text, len, 0, &err);
	ck_assert_msg(doc != NULL, "not JSON: %s (line %d)\n%s", err.text, err.line, text);
	free(text);
	return doc;
}

/* The events of DOC with phase PH and name NAME (NULL: any). */
static size_t count_events(json_t *doc, const char *ph, const char *name)
{
	size_t n = 0, i;
	json_t *e;
	json_array_foreach(json_object_get(doc, "traceEvents"), i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), ph) == 0 &&
		    (!name || strcmp(json_string_value(json_object_get(e, "name")), name) == 0))
			n++;
	}
	return n;
}

static report *phases_report(void)
{
	report *rep = report_load_json(FIXTURES "phases-before.json");
	ck_assert_ptr_nonnull(rep);
	rep->begin_clock_ns = BEGIN_NS;
	ck_assert_int_eq(rep->probes[0].kind, PROBE_LATENCY);
	return rep;
}

START_TEST(test_slices_at_their_exact_times)
{
	report *rep = phases_report();
	const uint64_t start[] = { 1000001, 50000000 }, dur[] = { 40000999, 2000 };
	add_slices(&rep->probes[0], rep->pid, "node", start, dur, 2);
	json_t *doc = render(rep);
	ck_assert_uint_eq(count_events(doc, "X", NULL), 2);
	ck_assert_uint_eq(count_events(doc, "M", "process_name"), 1);
	ck_assert_uint_eq(count_events(doc, "M", "thread_name"), 1);
	size_t i;
	json_t *e, *first = NULL;
	json_array_foreach(json_object_get(doc, "traceEvents"), i, e)
		if (!first && strcmp(json_string_value(json_object_get(e, "ph")), "X") == 0)
			first = e;
	/* Microseconds with the nanoseconds as decimals: (5e12 + 1000001) ns. */
	ck_assert_double_eq_tol(json_number_value(json_object_get(first, "ts")), 5000001000.001, 1e-5);
	ck_assert_double_eq_tol(json_number_value(json_object_get(first, "dur")), 40000.999, 1e-6);
	ck_assert_int_eq(json_integer_value(json_object_get(first, "tid")), rep->pid);
	ck_assert_str_eq(json_string_value(json_object_get(first, "cat")), "phase");
	ck_assert_str_eq(json_string_value(json_object_get(first, "name")), rep->probes[0].name);
	json_t *other = json_object_get(doc, "otherData");
	ck_assert_str_eq(json_string_value(json_object_get(other, "unnested_slices")), "0");
	ck_assert_str_eq(json_string_value(json_object_get(other, "window_start_clock_ns")), "5000000000000");
	json_decref(doc);
	report_free(rep);
}
END_TEST

/* Two probes whose calls overlap without nesting: the second cannot be
 * drawn in the first, and is written as an async pair. */
START_TEST(test_a_slice_that_cannot_nest_is_an_async_pair)
{
	report *rep = phases_report();
	ck_assert_int_eq(rep->probes[1].kind, PROBE_LATENCY);
	const uint64_t a_start[] = { 1000000, 12000000 }, a_dur[] = { 10000000, 1000000 };
	const uint64_t b_start[] = { 2000000, 5000000 }, b_dur[] = { 1000000, 20000000 };
	add_slices(&rep->probes[0], 42, "worker", a_start, a_dur, 2);
	add_slices(&rep->probes[1], 42, "worker", b_start, b_dur, 2);
	json_t *doc = render(rep);
	ck_assert_uint_eq(count_events(doc, "X", NULL), 3);	/* all but [5, 25] ms */
	ck_assert_uint_eq(count_events(doc, "b", rep->probes[1].name), 1);
	ck_assert_uint_eq(count_events(doc, "e", rep->probes[1].name), 1);
	/* The thread's events in time order, the async end among them (after
	 * the slice at 12 ms, which starts before it). */
	double last = 0;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(doc, "traceEvents"), i, e) {
		if (json_integer_value(json_object_get(e, "tid")) != 42 ||
		    strcmp(json_string_value(json_object_get(e, "ph")), "M") == 0)
			continue;
		double ts = json_number_value(json_object_get(e, "ts"));
		ck_assert_msg(ts >= last, "event at %.3f after one at %.3f", ts, last);
		last = ts;
	}
	ck_assert_double_eq_tol(last, 5000025000.0, 1e-5);	/* the async end, last */
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "otherData"),
							   "unnested_slices")), "1");
	json_decref(doc);
	report_free(rep);
}
END_TEST

START_TEST(test_names_of_the_traced_process_in_text_form)
{
	report *rep = phases_report();
	const uint64_t start[] = { 0 }, dur[] = { 3000000 };
	add_slices(&rep->probes[0], 77, "\x1b[31mred\xe2\x80\xae\n", start, dur, 1);
	free(rep->binary);
	rep->binary = strdup("/opt/\x07" "bell");
	json_t *doc = render(rep);
	size_t i;
	json_t *e;
	int seen = 0;
	json_array_foreach(json_object_get(doc, "traceEvents"), i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *shown = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
		if (strcmp(name, "thread_name") == 0) {
			ck_assert_str_eq(shown, "\\x1b[31mred\\u202e\\x0a (tid 77)");
			seen++;
		} else if (strcmp(name, "process_name") == 0) {
			ck_assert_str_eq(shown, "\\x07bell (pid 24140)");
			seen++;
		}
	}
	ck_assert_int_eq(seen, 2);
	json_decref(doc);
	report_free(rep);
}
END_TEST

/* A span's slice (an async pair on the thread that started it) carries
 * its label, a string of the traced process, in its text form. */
START_TEST(test_span_label_in_text_form)
{
	report *rep = report_load_json(FIXTURES "threadpool.json");
	ck_assert_ptr_nonnull(rep);
	rep->begin_clock_ns = BEGIN_NS;
	report_probe *span = NULL;
	for (size_t k = 0; k < rep->n_probes && !span; k++)
		span = rep->probes[k].kind == PROBE_SPAN ? &rep->probes[k] : NULL;
	ck_assert_ptr_nonnull(span);
	const uint64_t start[] = { 0, 1000000 }, dur[] = { 5000000, 5000000 };
	add_slices(span, 77, "node", start, dur, 2);
	span->events[span->n_events - 2].label = strdup("dns\x1b[2J\xff\\");
	json_t *doc = render(rep);
	size_t i, labelled = 0, begins = 0;
	json_t *e;
	json_array_foreach(json_object_get(doc, "traceEvents"), i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), "b") != 0)
			continue;
		json_t *label = json_object_get(json_object_get(e, "args"), "label");
		begins++;
		if (label) {
			ck_assert_str_eq(json_string_value(label), "dns\\x1b[2J\\xff\\\\");
			labelled++;
		}
	}
	ck_assert_uint_eq(begins, 2);	/* the other without a label: no "label" */
	ck_assert_uint_eq(labelled, 1);
	json_decref(doc);
	report_free(rep);
}
END_TEST

/* Attribution's loop blockers (a feature's timeline, model/feature.h):
 * a slice each from when the call began, in category "blocker", named by
 * its syscall and nested in the phase slice that made it; the path the
 * traced process chose is in its text form. */
START_TEST(test_blockers_are_slices_inside_their_phase)
{
	report *rep = phases_report();
	const uint64_t start[] = { 10000000 }, dur[] = { 30000000 };
	add_slices(&rep->probes[0], rep->pid, "node", start, dur, 1);
	rep->attributed = true;
	rep->n_blockers = 2;
	rep->blockers = calloc(2, sizeof *rep->blockers);
	ck_assert_ptr_nonnull(rep->blockers);
	report_event *b = rep->blockers;
	b[0] = (report_event){ .t_ns = 15000000, .latency_ns = 20000000, .tid = rep->pid,
			       .syscall = strdup("read"), .phase = strdup(rep->probes[0].name),
			       .path = strdup("/tmp/\x1b[31mfifo"), .has_fd = true, .fd = 9 };
	b[1] = (report_event){ .t_ns = 90000000, .latency_ns = 4000000, .tid = rep->pid,
			       .syscall = strdup("wait4"), .phase = strdup("poll"),
			       .nested_loop = true, .command = strdup("sleep 0.03") };
	json_t *doc = render(rep);
	ck_assert_uint_eq(count_events(doc, "X", "read"), 1);
	ck_assert_uint_eq(count_events(doc, "X", "wait4"), 1);
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(doc, "traceEvents"), i, e) {
		if (strcmp(json_string_value(json_object_get(e, "name")), "read") != 0)
			continue;
		json_t *args = json_object_get(e, "args");
		ck_assert_str_eq(json_string_value(json_object_get(e, "cat")), "blocker");
		ck_assert_double_eq_tol(json_number_value(json_object_get(e, "ts")), 5000015000.0, 1e-6);
		ck_assert_double_eq_tol(json_number_value(json_object_get(e, "dur")), 20000.0, 1e-6);
		ck_assert_str_eq(json_string_value(json_object_get(args, "path")), "/tmp/\\x1b[31mfifo");
		ck_assert_int_eq(json_integer_value(json_object_get(args, "fd")), 9);
		ck_assert_str_eq(json_string_value(json_object_get(args, "phase")), rep->probes[0].name);
	}
	json_t *other = json_object_get(doc, "otherData");
	ck_assert_str_eq(json_string_value(json_object_get(other, "unnested_slices")), "0");
	ck_assert_str_eq(json_string_value(json_object_get(other, "blocker slices")), "2");
	json_decref(doc);
	report_free(rep);
}
END_TEST

START_TEST(test_write_error)
{
	report *rep = phases_report();
	FILE *f = fopen("/dev/full", "w");
	ck_assert_ptr_nonnull(f);
	setvbuf(f, NULL, _IONBF, 0);
	ck_assert_int_eq(render_trace(f, (const report *const *)&rep, 1), -1);
	fclose(f);
	report_free(rep);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("render_trace");
	TCase *tc = tcase_create("render_trace");
	tcase_add_test(tc, test_slices_at_their_exact_times);
	tcase_add_test(tc, test_a_slice_that_cannot_nest_is_an_async_pair);
	tcase_add_test(tc, test_names_of_the_traced_process_in_text_form);
	tcase_add_test(tc, test_span_label_in_text_form);
	tcase_add_test(tc, test_blockers_are_slices_inside_their_phase);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
