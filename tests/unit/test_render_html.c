/* test_render_html — the HTML report (render_html): its policy, that its
 * figures hold exactly the report's buckets, and that no string of the
 * traced process can add markup.  The browser test
 * (tests/integration/test_html_report.sh) opens such pages in chromium. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "embedded.h"
#include "helpers.h"
#include "model/kind.h"
#include "render/render.h"
#include "render/report_load.h"

#define FIXTURES "tests/fixtures/reports/"

static char *render_page(report **reps, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(render_html(f, (const report *const *)reps, n), 0);
	fclose(f);
	return text;
}

/* Buckets the page draws for REP: every thread of every probe with
 * duration statistics, and the first five syscalls of a syscalls probe. */
static size_t drawn_buckets(const report *rep)
{
	size_t n = 0;
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		const kind_shape *sh = kind_shape_of(p->kind);
		for (size_t k = 0; sh->per_syscall && k < p->n_syscalls && k < 5; k++)
			n += p->syscalls[k].st.n_buckets;
		for (size_t r = 0; sh->spans && r < p->n_span_rows; r++)
			n += p->span_rows[r].st.n_buckets;
		if (!sh->durations || sh->per_syscall || sh->spans)
			continue;
		for (size_t g = 0; g < p->n_groups; g++)
			n += p->groups[g].st.n_buckets;
	}
	return n;
}

/* The numbers of the packed attribute value at VALUE (up to its closing
 * quote): unsigned varints in base64 (render_html_charts.c), decoded
 * here on their own.  Returns how many, in *OUT (free it). */
static size_t unpack(const char *value, uint64_t **out)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strcspn(value, "\""), n = 0, cap = 16, shift = 0;
	uint64_t v = 0;
	*out = malloc(cap * sizeof **out);
	ck_assert_ptr_nonnull(*out);
	ck_assert_uint_eq(len % 4, 0);
	for (size_t i = 0; i < len; i += 4) {
		unsigned quad = 0;
		int bytes = 3;
		for (int k = 0; k < 4; k++) {
			const char *d = strchr(digits, value[i + k]);
			if (value[i + k] == '=') {
				ck_assert_uint_eq(i + 4, len);	/* padding only at the end */
				bytes--;
				d = digits;
			}
			ck_assert_msg(d && *d, "not base64: %.20s", value + i);
			quad = quad << 6 | (unsigned)(d - digits);
		}
		for (int k = 0; k < bytes; k++) {
			unsigned char b = (unsigned char)(quad >> (16 - 8 * k));
			v |= (uint64_t)(b & 127) << shift;
			shift += 7;
			if (b & 128)
				continue;
			if (n == cap)
				ck_assert_ptr_nonnull(*out = realloc(*out, (cap *= 2) * sizeof **out));
			(*out)[n++] = v;
			v = 0, shift = 0;
		}
	}
	ck_assert_uint_eq(shift, 0);	/* no number cut short */
	return n;
}

/* The value of attribute NAME in the tag that starts at TAG. */
static const char *attr_in(const char *tag, const char *name)
{
	char want[64];
	snprintf(want, sizeof want, " %s=\"", name);
	const char *a = strstr(tag, want), *end = strchr(tag, '>');
	ck_assert_msg(a && end && a < end, "no %s in %.60s", name, tag);
	return a + strlen(want);
}

/* Every heatmap cell of PAGE (its figures' data-cells), and in *LARGEST
 * the largest count of one. */
static size_t heat_cells(const char *page, uint64_t *largest)
{
	size_t total = 0;
	*largest = 0;
	for (const char *f = page; (f = strstr(f, "<figure class=\"heatmap\"")); f++) {
		uint64_t *v;
		size_t nv = unpack(attr_in(f, "data-cells"), &v), k = 0;
		unsigned long intervals = strtoul(attr_in(f, "data-intervals"), NULL, 10);
		unsigned long rows = strtoul(attr_in(f, "data-rows"), NULL, 10);
		for (unsigned long i = 0; i < intervals; i++) {
			ck_assert_uint_lt(k, nv);
			uint64_t m = v[k++], row = 0;
			for (uint64_t c = 0; c < m; c++, k += 2) {
				ck_assert_uint_lt(k + 1, nv);
				row += v[k];
				ck_assert_uint_lt(row, rows);
				ck_assert_uint_gt(v[k + 1], 0);
				*largest = v[k + 1] > *largest ? v[k + 1] : *largest;
				row++;
			}
			total += m;
		}
		ck_assert_uint_eq(k, nv);
		free(v);
	}
	return total;
}

START_TEST(test_policy_names_the_inline_style_and_script)
{
	report *rep = report_load_json(FIXTURES "phases-before.json");
	ck_assert_ptr_nonnull(rep);
	char *page = render_page(&rep, 1);
	const embedded_file *css = embedded_find("templates/report.css");
	const embedded_file *js = embedded_find("templates/report.js");
	ck_assert_ptr_nonnull(css);
	ck_assert_ptr_nonnull(js);
	/* base64 of 32 bytes */
	ck_assert_uint_eq(strlen(css->sha256), 44);
	ck_assert_uint_eq(strlen(js->sha256), 44);
	char want[256];
	snprintf(want, sizeof want, "content=\"default-src 'none'; style-src 'sha256-%s'; "
		 "script-src 'sha256-%s';", css->sha256, js->sha256);
	ck_assert_msg(strstr(page, want), "no policy %s", want);
	/* The style and script are inline, byte for byte the hashed files. */
	char *style = strstr(page, "<style>"), *script = strstr(page, "<script>");
	ck_assert_ptr_nonnull(style);
	ck_assert_ptr_nonnull(script);
	ck_assert_mem_eq(style + 7, css->data, css->len);
	ck_assert(strncmp(style + 7 + css->len, "</style>", 8) == 0);
	ck_assert_mem_eq(script + 8, js->data, js->len);
	ck_assert(strncmp(script + 8 + js->len, "</script>", 9) == 0);
	ck_assert_uint_eq(count_of(page, "<script"), 1);
	ck_assert_uint_eq(count_of(page, "<style"), 1);
	/* Nothing that could fetch. */
	ck_assert_ptr_null(strstr(page, "http://"));
	ck_assert_ptr_null(strstr(page, "https://"));
	ck_assert_ptr_null(strstr(page, " src="));
	ck_assert_ptr_null(strstr(page, " href="));
	ck_assert_ptr_null(strstr(page, " style="));
	free(page);
	report_free(rep);
}
END_TEST

START_TEST(test_single_report_draws_each_bucket_as_a_bar)
{
	report *rep = report_load_json(FIXTURES "phases-before.json");
	ck_assert_ptr_nonnull(rep);
	char *page = render_page(&rep, 1);
	ck_assert_uint_gt(drawn_buckets(rep), 10);
	ck_assert_uint_eq(count_of(page, "<rect class=\"bar\""), drawn_buckets(rep));
	ck_assert_uint_eq(count_of(page, "<figure class=\"heatmap\""), 0);
	/* A probe that did not attach says why, in its row and its section. */
	ck_assert_uint_eq(count_of(page, "not attached: "), 4);
	free(page);
	report_free(rep);
	/* A syscalls probe: a figure per syscall, slowest first. */
	rep = report_load_json(FIXTURES "file-io.json");
	ck_assert_ptr_nonnull(rep);
	page = render_page(&rep, 1);
	ck_assert_uint_gt(drawn_buckets(rep), 100);
	ck_assert_uint_eq(count_of(page, "<rect class=\"bar\""), drawn_buckets(rep));
	ck_assert(strstr(page, "data-syscall=\"read\""));
	/* Its errors by syscall and errno. */
	ck_assert(strstr(page, "<tr><td>openat</td><td class=\"text\">ENOENT</td><td data-sort=\"5\">5</td></tr>"));
	free(page);
	report_free(rep);
	/* A span probe: a figure per stage and label, whole spans too. */
	rep = report_load_json(FIXTURES "threadpool.json");
	ck_assert_ptr_nonnull(rep);
	page = render_page(&rep, 1);
	ck_assert_uint_gt(drawn_buckets(rep), 20);
	ck_assert_uint_eq(count_of(page, "<rect class=\"bar\""), drawn_buckets(rep));
	ck_assert_uint_eq(count_of(page, "data-row=\""), rep->probes[0].n_span_rows);
	ck_assert(strstr(page, "data-row=\"queued uv__fs_work\""));
	ck_assert(strstr(page, "data-row=\"total uv__queue_work\""));
	free(page);
	report_free(rep);
}
END_TEST

START_TEST(test_stream_draws_each_bucket_of_each_interval_as_a_cell)
{
	report *reps[3] = { report_load_json(FIXTURES "phases-before.json"),
			    report_load_json(FIXTURES "phases-after.json"),
			    report_load_json(FIXTURES "utilization.json") };
	for (int i = 0; i < 3; i++)
		ck_assert_ptr_nonnull(reps[i]);
	/* A count past 32 bits and one of 1 (one byte packed) survive. */
	uint64_t big = (1ull << 40) + 5;
	ck_assert_uint_gt(reps[1]->probes[0].n_groups, 0);
	ck_assert_uint_gt(reps[1]->probes[0].groups[0].st.n_buckets, 1);
	reps[1]->probes[0].groups[0].st.buckets[0].count = big;
	reps[1]->probes[0].groups[0].st.buckets[1].count = 1;
	char *page = render_page(reps, 3);
	size_t want = drawn_buckets(reps[0]) + drawn_buckets(reps[1]) + drawn_buckets(reps[2]);
	uint64_t largest;
	ck_assert_uint_eq(heat_cells(page, &largest), want);
	ck_assert_uint_eq(largest, big);
	ck_assert_uint_eq(count_of(page, "<rect class=\"bar\""), 0);
	ck_assert(strstr(page, "data-intervals=\"3\""));
	/* The utilization probe's busy share: per interval, 0 where the
	 * thread is not (the first two), else thousandths plus one. */
	const char *strip = strstr(page, "<figure class=\"util\"");
	ck_assert_ptr_nonnull(strip);
	uint64_t *busy;
	ck_assert_uint_eq(unpack(attr_in(strip, "data-busy"), &busy), 3);
	ck_assert_uint_eq(busy[0], 0);
	ck_assert_uint_eq(busy[1], 0);
	ck_assert_uint_eq(busy[2], (uint64_t)(reps[2]->probes[0].groups[0].utilization * 1000 + 0.5) + 1);
	free(busy);
	free(page);
	for (int i = 0; i < 3; i++)
		report_free(reps[i]);
}
END_TEST

/* A --cumulative stream: each report holds the ones before, so the page
 * is the last one alone; the flag survives a JSON round trip. */
START_TEST(test_cumulative_stream_is_its_last_report)
{
	report *reps[2] = { report_load_json(FIXTURES "phases-before.json"),
			    report_load_json(FIXTURES "phases-before.json") };
	ck_assert_ptr_nonnull(reps[0]);
	ck_assert_ptr_nonnull(reps[1]);
	reps[0]->cumulative = reps[1]->cumulative = true;
	char *page = render_page(reps, 2);
	ck_assert_uint_eq(count_of(page, "<figure class=\"heatmap\""), 0);
	ck_assert_uint_eq(count_of(page, "<rect class=\"bar\""), drawn_buckets(reps[1]));
	ck_assert(strstr(page, "A cumulative stream"));
	free(page);
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);
	ck_assert_int_eq(render_json(f, reps[1]), 0);
	fclose(f);
	ck_assert(strstr(json, "\"cumulative\": true"));
	report *back = report_parse_json(json, len, "cumulative.json");
	ck_assert_ptr_nonnull(back);
	ck_assert(back->cumulative);
	report_free(back);
	free(json);
	report_free(reps[0]);
	report_free(reps[1]);
}
END_TEST

START_TEST(test_strings_of_the_traced_process_add_no_markup)
{
	report *reps[2] = { report_load_json(FIXTURES "hostile-count.json"),
			    report_load_json(FIXTURES "hostile-usdt.json") };
	ck_assert_ptr_nonnull(reps[0]);
	ck_assert_ptr_nonnull(reps[1]);
	/* Names no thread could have, but a report file could. */
	ck_assert_uint_ge(reps[0]->probes[0].n_groups, 2);
	free(reps[0]->probes[0].groups[1].thread);
	reps[0]->probes[0].groups[1].thread = strdup("</h3><script>alert(1)</script>");
	free(reps[0]->binary);
	reps[0]->binary = strdup("/tmp/\"><img src=x onerror=alert(1)>");
	for (int i = 0; i < 2; i++) {
		char *page = render_page(&reps[i], 1);
		ck_assert_uint_eq(count_of(page, "<script"), 1);
		ck_assert_ptr_null(strstr(page, "<img"));
		/* No control byte reaches the page: escapes show them. */
		for (const char *c = page; *c; c++)
			ck_assert_msg((unsigned char)*c >= 0x20 || *c == '\n' || *c == '\t',
				      "control byte 0x%02x at offset %td", *c, c - page);
		if (i == 0) {
			ck_assert(strstr(page, "&lt;/h3&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
			ck_assert(strstr(page, "/tmp/&quot;&gt;&lt;img src=x"));
			ck_assert(strstr(page, "\\x1b[31mRED"));
		}
		free(page);
	}
	report_free(reps[0]);
	report_free(reps[1]);
}
END_TEST

/* Attribution's section (a feature's html, model/feature.h): each
 * attributed phase and thread over the stream, its parts added up over
 * the intervals, a bar of four rects, and the loop blockers, the slowest
 * first, with what the traced process chose escaped. */
START_TEST(test_attribution_adds_its_section)
{
	report *reps[2];
	for (int i = 0; i < 2; i++) {
		reps[i] = report_load_json(FIXTURES "phases-before.json");
		ck_assert_ptr_nonnull(reps[i]);
		report *rep = reps[i];
		report_probe *p = &rep->probes[0];
		ck_assert_uint_ge(p->n_groups, 1);
		p->attributed = rep->attributed = true;
		p->groups[0].st.sum_ns = 100000000;
		p->groups[0].split = calloc(1, sizeof *p->groups[0].split);
		ck_assert_ptr_nonnull(p->groups[0].split);
		*p->groups[0].split = (report_split){ .cpu_ns = 50000000, .wait_ns = 10000000,
						      .blocked_ns = 40000000 };
		p->groups[0].split->syscalls = calloc(1, sizeof *p->groups[0].split->syscalls);
		ck_assert_ptr_nonnull(p->groups[0].split->syscalls);
		p->groups[0].split->syscalls[0] = (report_why_syscall){ .name = strdup("read"),
									 .calls = 2, .blocked_ns = 40000000 };
		p->groups[0].split->n_syscalls = 1;
		rep->begin_clock_ns = 1000000000ull * (uint64_t)(i + 1);
		rep->n_blockers = 1;
		rep->blockers = calloc(1, sizeof *rep->blockers);
		ck_assert_ptr_nonnull(rep->blockers);
		rep->blockers[0] = (report_event){
			.t_ns = 5000000, .latency_ns = 20000000u + 10000000u * (uint64_t)i,
			.tid = p->groups[0].tid, .syscall = strdup("read"), .phase = strdup(p->name),
			.path = strdup(i ? "/tmp/<b>fifo" : "/tmp/plain") };
	}
	char *page = render_page(reps, 2);
	ck_assert_uint_eq(count_of(page, "<section class=\"why\">"), 1);
	/* The two intervals' parts, added: 200 ms in all, 100 ms on-CPU. */
	ck_assert_ptr_nonnull(strstr(page, "<td data-sort=\"200000000\">200.0ms</td>"));
	ck_assert_ptr_nonnull(strstr(page, "<td data-sort=\"100000000\">100.0ms <small>50%</small>"));
	ck_assert_ptr_nonnull(strstr(page, "read 80.00ms (4)"));
	ck_assert_uint_eq(count_of(page, "<rect class=\""), 4);
	/* The slowest blocker first: the second interval's, 1 s later. */
	const char *slow = strstr(page, "/tmp/&lt;b&gt;fifo"), *fast = strstr(page, "/tmp/plain");
	ck_assert_ptr_nonnull(slow);
	ck_assert_ptr_nonnull(fast);
	ck_assert(slow < fast);
	ck_assert_ptr_nonnull(strstr(page, "<td data-sort=\"1005000000\">1.005000</td>"));
	ck_assert_ptr_null(strstr(page, "<b>"));
	free(page);
	report_free(reps[0]);
	report_free(reps[1]);
}
END_TEST

START_TEST(test_a_stream_reads_back_line_by_line)
{
	char path[] = "/tmp/bpfspec-html-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	report *rep = report_load_json(FIXTURES "phases-before.json");
	ck_assert_ptr_nonnull(rep);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(render_json_line(f, rep), 0);
	fclose(f);
	size_t n = 0;
	report **reps = report_load_stream(path, &n);
	ck_assert_ptr_nonnull(reps);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(reps[3]->n_probes, rep->n_probes);
	report_stream_free(reps, n);
	/* A bad line is named by its line number. */
	f = fopen(path, "a");
	fputs("{\"schema\": 1}\n", f);
	fclose(f);
	capture_start();
	reps = report_load_stream(path, &n);
	char *err = capture_end();
	ck_assert_ptr_null(reps);
	ck_assert_msg(strstr(err, ", line 5: "), "%s", err);
	free(err);
	/* One pretty-printed report is one report. */
	reps = report_load_stream(FIXTURES "phases-after.json", &n);
	ck_assert_ptr_nonnull(reps);
	ck_assert_uint_eq(n, 1);
	report_stream_free(reps, n);
	unlink(path);
	report_free(rep);
}
END_TEST

START_TEST(test_write_error)
{
	report *rep = report_load_json(FIXTURES "phases-before.json");
	ck_assert_ptr_nonnull(rep);
	FILE *f = fopen("/dev/full", "w");
	ck_assert_ptr_nonnull(f);
	setvbuf(f, NULL, _IONBF, 0);
	ck_assert_int_eq(render_html(f, (const report *const *)&rep, 1), -1);
	fclose(f);
	report_free(rep);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("render_html");
	TCase *tc = tcase_create("render_html");
	tcase_add_test(tc, test_policy_names_the_inline_style_and_script);
	tcase_add_test(tc, test_single_report_draws_each_bucket_as_a_bar);
	tcase_add_test(tc, test_stream_draws_each_bucket_of_each_interval_as_a_cell);
	tcase_add_test(tc, test_cumulative_stream_is_its_last_report);
	tcase_add_test(tc, test_strings_of_the_traced_process_add_no_markup);
	tcase_add_test(tc, test_attribution_adds_its_section);
	tcase_add_test(tc, test_a_stream_reads_back_line_by_line);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
