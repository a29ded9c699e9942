/* render_html_routes — an http probe's part of the HTML page: its routes
 * over the stream in a sortable table (requests, percentiles of the
 * intervals' requests taken together, status classes), slowest p99
 * first, then a latency figure per route (a heatmap over the intervals,
 * or the one report's histogram) for the HTML_TOP_ROUTES slowest.
 * Methods and routes are bytes the traced process was sent: they go
 * through safe_fputs_html. */
#include <stdlib.h>

#include "render/render_html.h"
#include "util/safe.h"

#define HTML_MAX_ROUTES 500	/* rows of the table, over all intervals */
#define HTML_TOP_ROUTES 20	/* routes drawn, slowest p99 first */

/* One route over the stream: its key as first seen, its figures merged. */
typedef struct route_total {
	const report_http_route *key;
	report_stats st;		/* buckets owned */
	uint64_t classes[4];		/* 2xx, 3xx, 4xx, 5xx */
} route_total;

static bool same_route(const report_http_route *a, const report_http_route *b)
{
	return a->other == b->other && html_same_text(a->method, b->method) &&
	       html_same_text(a->route, b->route);
}

static int slower_first(const void *a, const void *b)
{
	const route_total *x = a, *y = b;
	return x->st.p99_ns < y->st.p99_ns ? 1 : x->st.p99_ns > y->st.p99_ns ? -1 : 0;
}

static void totals_free(route_total *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].st.buckets);
	free(t);
}

/* Adds route R's requests to the totals *T (*N of them, HTML_MAX_ROUTES
 * at most: a route past them is counted in *LEFT_OUT).  Returns 0, or -1
 * when out of memory. */
static int add_route(route_total *t, size_t *n, const report_http_route *r, size_t *left_out)
{
	size_t k = 0;
	while (k < *n && !same_route(t[k].key, r))
		k++;
	if (k == *n) {
		if (*n == HTML_MAX_ROUTES) {
			(*left_out)++;
			return 0;
		}
		t[(*n)++] = (route_total){ .key = r };
	}
	if (html_merge_stats(&t[k].st, &r->st) < 0)
		return -1;
	for (size_t s = 0; s < r->n_statuses; s++)
		if (r->statuses[s].code >= 200 && r->statuses[s].code < 600)
			t[k].classes[r->statuses[s].code / 100 - 2] += r->statuses[s].st.count;
	return 0;
}

/* The routes of probe NAME over REPS[0..N), slowest p99 first, into *OUT
 * (free with totals_free).  Returns how many, or -1 when out of memory. */
static long route_totals(const report *const *reps, size_t n, const char *name,
			 route_total **out, size_t *left_out)
{
	route_total *t = calloc(HTML_MAX_ROUTES, sizeof *t);
	size_t nt = 0;
	if (!t)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const report_probe *p = html_probe_named(reps[i], name);
		for (size_t k = 0; p && k < p->n_http_routes; k++)
			if (add_route(t, &nt, &p->http_routes[k], left_out) < 0) {
				totals_free(t, nt);
				return -1;
			}
	}
	qsort(t, nt, sizeof *t, slower_first);
	*out = t;
	return (long)nt;
}

/* "METHOD ROUTE" of T, escaped. */
static void put_route_name(FILE *out, const report_http_route *key)
{
	safe_fputs_html(key->method, out);
	fputc(' ', out);
	safe_fputs_html(key->route, out);
}

static void put_route_table(FILE *out, const route_total *t, size_t n, size_t left_out)
{
	fputs("<table class=\"sortable\">\n<thead><tr><th>route</th><th>requests</th><th>p50~</th>"
	      "<th>p99~</th><th>max</th><th>2xx</th><th>3xx</th><th>4xx</th><th>5xx</th></tr></thead>\n"
	      "<tbody>\n", out);
	for (size_t i = 0; i < n; i++) {
		fputs("<tr><td class=\"text\">", out);
		put_route_name(out, t[i].key);
		fputs("</td>", out);
		html_td_count(out, t[i].st.count);
		html_td_dur(out, t[i].st.p50_ns, t[i].st.count > 0);
		html_td_dur(out, t[i].st.p99_ns, t[i].st.count > 0);
		html_td_dur(out, t[i].st.max_ns, t[i].st.count > 0);
		for (int c = 0; c < 4; c++)
			html_td_count(out, t[i].classes[c]);
		fputs("</tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
	if (left_out)
		fprintf(out, "<p class=\"note\">%zu routes past the first %d are left out of this page; "
			"-o json has them all.</p>\n", left_out, HTML_MAX_ROUTES);
}

int html_put_routes(FILE *out, const report *const *reps, size_t n, const char *name,
		    uint64_t interval_ns, uint64_t window_ns)
{
	route_total *t;
	size_t left_out = 0;
	long nt = route_totals(reps, n, name, &t, &left_out);
	if (nt < 0)
		return -1;
	if (nt == 0) {
		fputs("<p class=\"note\">no requests in the window</p>\n", out);
		free(t);
		return 0;
	}
	put_route_table(out, t, (size_t)nt, left_out);
	for (long k = 0; k < nt && k < HTML_TOP_ROUTES; k++) {
		html_series s = { .probe = name, .http = true, .method = t[k].key->method,
				  .route = t[k].key->route, .other = t[k].key->other };
		fputs("<h3>", out);
		put_route_name(out, t[k].key);
		fputs("</h3>\n", out);
		if (n > 1)
			html_heatmap(out, reps, n, &s, interval_ns);
		else
			html_histogram(out, reps[0], &s, window_ns);
	}
	if (nt > HTML_TOP_ROUTES)
		fprintf(out, "<p class=\"note\">Figures of the %d slowest routes by p99; the table has "
			"them all.</p>\n", HTML_TOP_ROUTES);
	totals_free(t, (size_t)nt);
	return 0;
}
