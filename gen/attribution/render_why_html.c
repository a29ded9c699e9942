/* render_why_html — attribution on the HTML page (render_why.h): where
 * each attributed phase's time went on each thread over the stream, as a
 * table with a bar of its four parts, and the slowest loop blockers.
 * Every string the traced process controls is escaped (util/safe.h). */
#include "attribution/render_why.h"

#include <stdlib.h>
#include <string.h>

#include "render/render_html.h"
#include "util/safe.h"

#define WHY_HTML_ROWS 256	/* phase and thread pairs shown */
#define WHY_HTML_SYSCALLS 3	/* the syscalls a row names */
#define WHY_HTML_BLOCKERS 20	/* blockers listed, the slowest over the stream */
#define WHY_BAR_WIDTH 200	/* the bar's pixels for the whole of a phase's time */

/* A phase on a thread, over the stream. */
typedef struct why_row {
	const report_probe *p;	/* its last interval's */
	const report_group *g;	/* its last interval's (name of the thread) */
	uint64_t total, part[4];	/* on-CPU, waiting for a CPU, blocked, other */
	report_why_syscall *sys;	/* name borrowed; by name over the stream */
	size_t n_sys;
} why_row;

static const char *const part_class[4] = { "cpu", "wait", "blocked", "other" };

static why_row *row_of(why_row *rows, size_t *n, const report_probe *p, const report_group *g)
{
	for (size_t i = 0; i < *n; i++)
		if (rows[i].g->tid == g->tid && strcmp(rows[i].p->name, p->name) == 0) {
			rows[i].p = p;
			rows[i].g = g;
			return &rows[i];
		}
	if (*n == WHY_HTML_ROWS)
		return NULL;
	rows[*n] = (why_row){ .p = p, .g = g };
	return &rows[(*n)++];
}

/* Adds split S to ROW.  Returns 0, or -1 out of memory. */
static int row_add(why_row *row, uint64_t total, const report_split *s)
{
	row->total += total;
	row->part[0] += s->cpu_ns;
	row->part[1] += s->wait_ns;
	row->part[2] += s->blocked_ns;
	row->part[3] += s->other_ns;
	for (size_t k = 0; k < s->n_syscalls; k++) {
		const report_why_syscall *sc = &s->syscalls[k];
		size_t j = 0;
		while (j < row->n_sys && strcmp(row->sys[j].name, sc->name) != 0)
			j++;
		if (j == row->n_sys) {
			report_why_syscall *more = realloc(row->sys, (j + 1) * sizeof *more);
			if (!more)
				return -1;
			row->sys = more;
			row->sys[row->n_sys++] = (report_why_syscall){ .name = sc->name };
		}
		row->sys[j].calls += sc->calls;
		row->sys[j].blocked_ns += sc->blocked_ns;
	}
	return 0;
}

static int by_blocked(const void *a, const void *b)
{
	const report_why_syscall *x = a, *y = b;
	return x->blocked_ns == y->blocked_ns ? 0 : x->blocked_ns < y->blocked_ns ? 1 : -1;
}

/* The four parts of ROW as a bar: each part's width its share. */
static void put_bar(FILE *out, const why_row *row)
{
	uint64_t sum = row->part[0] + row->part[1] + row->part[2] + row->part[3];
	uint64_t scale = sum > row->total ? sum : row->total;
	double x = 0;
	fprintf(out, "<td><svg class=\"split\" width=\"%d\" height=\"12\" role=\"img\">", WHY_BAR_WIDTH);
	for (int k = 0; k < 4 && scale; k++) {
		double w = (double)WHY_BAR_WIDTH * (double)row->part[k] / (double)scale;
		fprintf(out, "<rect class=\"%s\" x=\"%.1f\" width=\"%.1f\" height=\"12\"/>", part_class[k],
			x, w);
		x += w;
	}
	fputs("</svg></td>", out);
}

/* A part's cell: its time and its share of the phase's. */
static void put_part(FILE *out, uint64_t ns, uint64_t total)
{
	fprintf(out, "<td data-sort=\"%llu\">", (unsigned long long)ns);
	html_put_dur(out, ns);
	if (total)
		fprintf(out, " <small>%.0f%%</small>", 100.0 * (double)ns / (double)total);
	fputs("</td>", out);
}

static void put_row(FILE *out, why_row *row, report_pids pids)
{
	fputs("<tr><td class=\"text\">", out);
	safe_fputs_html(row->p->name, out);
	fputs("</td><td class=\"text\">", out);
	html_put_thread(out, row->g->thread, row->g->tid, pids);
	fputs("</td>", out);
	html_td_dur(out, row->total, true);
	for (int k = 0; k < 4; k++)
		put_part(out, row->part[k], row->total);
	put_bar(out, row);
	fputs("<td class=\"text\">", out);
	if (row->n_sys)
		qsort(row->sys, row->n_sys, sizeof *row->sys, by_blocked);
	size_t shown = 0;
	for (size_t k = 0; k < row->n_sys && shown < WHY_HTML_SYSCALLS; k++) {
		if (!row->sys[k].blocked_ns)
			break;
		fputs(shown++ ? ", " : "", out);
		safe_fputs_html(row->sys[k].name, out);
		fputs(" ", out);
		html_put_dur(out, row->sys[k].blocked_ns);
		fprintf(out, " (%llu)", (unsigned long long)row->sys[k].calls);
	}
	fputs(shown ? "</td></tr>\n" : "-</td></tr>\n", out);
}

/* The table of where each attributed phase's time went.  Returns 0, or -1
 * out of memory. */
static int put_splits(FILE *out, const report *const *reps, size_t n)
{
	why_row *rows = calloc(WHY_HTML_ROWS, sizeof *rows);
	size_t n_rows = 0;
	int rc = rows ? 0 : -1;
	for (size_t r = 0; r < n && rc == 0; r++)
		for (size_t i = 0; i < reps[r]->n_probes; i++) {
			const report_probe *p = &reps[r]->probes[i];
			for (size_t g = 0; p->attributed && g < p->n_groups && rc == 0; g++) {
				const report_group *gr = &p->groups[g];
				why_row *row = gr->split ? row_of(rows, &n_rows, p, gr) : NULL;
				if (row && row_add(row, gr->st.sum_ns, gr->split) < 0)
					rc = -1;
			}
		}
	if (rc == 0) {
		fputs("<h2>Where the phases' time went</h2>\n<p class=\"note\">Each attributed phase "
		      "on each thread, over the whole run: on-CPU (running), waiting for a CPU "
		      "(runnable, not running), blocked (asleep in a syscall), other (asleep outside "
		      "one, e.g. page faults); the parts add up to the phase's time.</p>\n", out);
		if (!n_rows)
			fputs("<p class=\"note\">No attributed phase completed a call.</p>\n", out);
		else
			fputs("<table class=\"sortable why\"><thead><tr><th>phase</th><th>thread</th>"
			      "<th>total</th><th>on-CPU</th><th>waiting for a CPU</th><th>blocked</th>"
			      "<th>other</th><th>split</th><th>blocked in (calls)</th></tr></thead>"
			      "<tbody>\n", out);
		for (size_t i = 0; i < n_rows; i++)
			put_row(out, &rows[i], report_pids_of(reps[n - 1]));
		if (n_rows)
			fputs("</tbody></table>\n<p class=\"legend\"><span class=\"swatch cpu\"></span>"
			      "<span class=\"label\">on-CPU</span><span class=\"swatch wait\"></span>"
			      "<span class=\"label\">waiting for a CPU</span><span class=\"swatch "
			      "blocked\"></span><span class=\"label\">blocked</span><span class=\"swatch "
			      "other\"></span><span class=\"label\">other</span></p>\n", out);
	}
	for (size_t i = 0; rows && i < n_rows; i++)
		free(rows[i].sys);
	free(rows);
	return rc;
}

/* A blocker of the stream: its record and when it began since the
 * stream's first window began. */
typedef struct stream_blocker {
	const report_event *ev;
	uint64_t at_ns;
} stream_blocker;

static int by_duration(const void *a, const void *b)
{
	const stream_blocker *x = a, *y = b;
	if (x->ev->latency_ns != y->ev->latency_ns)
		return x->ev->latency_ns < y->ev->latency_ns ? 1 : -1;
	return x->at_ns < y->at_ns ? -1 : x->at_ns > y->at_ns;
}

static void put_blocker(FILE *out, const stream_blocker *b, report_pids pids)
{
	const report_event *ev = b->ev;
	fprintf(out, "<tr><td data-sort=\"%llu\">%.6f</td>", (unsigned long long)b->at_ns,
		(double)b->at_ns / 1e9);
	html_td_dur(out, ev->latency_ns, true);
	fputs("<td class=\"text\">", out);
	safe_fputs_html(ev->phase ? ev->phase : "?", out);
	fputs("</td><td class=\"text\">", out);
	html_put_thread(out, ev->thread, ev->tid, pids);
	fputs("</td><td class=\"text\">", out);
	safe_fputs_html(ev->syscall ? ev->syscall : "?", out);
	fprintf(out, "</td><td>%lld", ev->ret);
	if (ev->error) {
		fputs(" ", out);
		safe_fputs_html(ev->error, out);
	}
	fputs("</td><td class=\"text\">", out);
	if (ev->path)
		safe_fputs_html(ev->path, out);
	if (ev->has_fd)
		fprintf(out, "%sfd %ld%s", ev->path ? " (" : "", ev->fd, ev->path ? ")" : "");
	if (ev->nested_loop) {
		fputs("nested loop waiting for ", out);
		safe_fputs_html(ev->command ? ev->command : "a child not seen starting", out);
	}
	fputs("</td></tr>\n", out);
}

/* The slowest loop blockers of the stream.  Returns 0, or -1 out of
 * memory. */
static int put_blockers(FILE *out, const report *const *reps, size_t n)
{
	size_t total = 0, k = 0;
	uint64_t dropped = 0, threshold = 0;
	for (size_t r = 0; r < n; r++) {
		total += reps[r]->n_blockers;
		dropped += reps[r]->blockers_dropped;
		threshold = reps[r]->blocker_ns;
	}
	stream_blocker *all = total ? calloc(total, sizeof *all) : NULL;
	if (total && !all)
		return -1;
	for (size_t r = 0; r < n; r++)
		for (size_t i = 0; i < reps[r]->n_blockers; i++) {
			uint64_t since = reps[r]->begin_clock_ns - reps[0]->begin_clock_ns;
			all[k++] = (stream_blocker){ &reps[r]->blockers[i], since + reps[r]->blockers[i].t_ns };
		}
	if (total)
		qsort(all, total, sizeof *all, by_duration);
	fputs("<h2>Loop blockers</h2>\n<p class=\"note\">Syscalls of ", out);
	html_put_dur(out, threshold);
	fprintf(out, " or more inside attributed phases, the loop's own epoll waits aside: %zu", total);
	if (dropped)
		fprintf(out, " (and %llu not recorded: over the limit)", (unsigned long long)dropped);
	fprintf(out, "%s.</p>\n", total > WHY_HTML_BLOCKERS ? ", the slowest shown" : "");
	if (total)
		fputs("<table class=\"sortable\"><thead><tr><th>start (s)</th><th>duration</th>"
		      "<th>phase</th><th>thread</th><th>syscall</th><th>result</th>"
		      "<th>path / fd / waited for</th></tr></thead><tbody>\n", out);
	for (size_t i = 0; i < total && i < WHY_HTML_BLOCKERS; i++)
		put_blocker(out, &all[i], report_pids_of(reps[n - 1]));
	if (total)
		fputs("</tbody></table>\n", out);
	free(all);
	return 0;
}

int render_why_html(FILE *out, const report *const *reps, size_t n)
{
	bool attributed = false;
	for (size_t r = 0; r < n; r++)
		attributed |= reps[r]->attributed;
	if (!attributed)
		return 0;
	fputs("<section class=\"why\">\n", out);
	if (put_splits(out, reps, n) < 0 || put_blockers(out, reps, n) < 0)
		return -1;
	fputs("</section>\n", out);
	return 0;
}
