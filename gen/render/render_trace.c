/* render_trace — `-o trace`: the run as Chrome Trace Event JSON, the
 * format Perfetto UI and chrome://tracing open (render.h).
 *
 * One track per thread of the traced process, named as in the report:
 *   - a complete event ("X", cat "phase") per slice of a latency probe:
 *     each call at least the run's threshold long (report_probe.events
 *     of a latency probe, recorded with -o trace);
 *   - a complete event (cat "syscall") per record of an events probe on
 *     syscalls: each such call nests in the phase that made it;
 *   - an instant event ("i", cat "event") per record of an events probe
 *     on a probe point;
 *   - an async event pair ("b"/"e", cat "span") per span of a span probe
 *     at least the run's threshold long, from its start to its end, on
 *     the thread that started it (spans cross threads and overlap), with
 *     its label in args (text form; "other" past the spec's labels), and
 *     per slow request of an http probe (its 'threshold'), on the thread
 *     that wrote its status line, with its method, route and status;
 *   - a counter ("C") per utilization probe and thread: its busy share
 *     in each interval;
 *   - a complete event per record a feature puts on the timeline
 *     (model/feature.h), in the feature's category: attribution's loop
 *     blockers ("blocker", named by the syscall, with the phase that made
 *     it; they nest in that phase's slice when it was recorded).
 * Timestamps are microseconds of CLOCK_MONOTONIC (bpftrace's nsecs), the
 * clock of node's own --trace-events, so the two files line up.  Events
 * of one thread are written in time order, the longer first at the same
 * start, which is how the format nests them; a slice that would overlap
 * the end of the one around it (two probes timing calls that do not nest)
 * becomes an async event pair ("b"/"e") of its own, and is counted in
 * otherData.  Strings of the traced process are in their text form. */
#include "render/render.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/feature.h"
#include "model/kind.h"
#include "util/safe.h"
#include "util/version.h"

typedef struct slice {
	uint64_t start_ns, dur_ns;	/* CLOCK_MONOTONIC */
	long tid;
	const report_probe *p;	/* NULL for a feature's record */
	const report_event *ev;
	char cat;		/* 'p' phase, 's' syscall, 'i' instant, 'a' span (async),
				 * 'f' a feature's */
	const char *feature_cat;	/* 'f': the feature's category */
	bool unnested;		/* written as an async pair */
} slice;

typedef struct trace_out {
	FILE *out;
	bool first;		/* no event written yet */
} trace_out;

/* Writes S as a JSON string, in its text form (safe.h) when TRACED. */
static void put_string(FILE *out, const char *s, bool traced)
{
	char *text = traced ? safe_text(s ? s : "") : NULL;
	json_t *j = json_string(text ? text : s ? s : "");
	if (!j || json_dumpf(j, out, JSON_ENCODE_ANY | JSON_COMPACT) < 0)
		fputs("\"\"", out);
	json_decref(j);
	free(text);
}

/* NS nanoseconds as microseconds, exactly: "123.456". */
static void put_us(FILE *out, uint64_t ns)
{
	fprintf(out, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

/* The opening of an event: {"ph":"PH","pid":P,"tid":T,"name":NAME */
static void event_open(trace_out *t, const char *ph, long pid, long tid, const char *name,
		       bool traced)
{
	fprintf(t->out, "%s\n{\"ph\":\"%s\",\"pid\":%ld,\"tid\":%ld,\"name\":", t->first ? "" : ",", ph,
		pid, tid);
	put_string(t->out, name, traced);
	t->first = false;
}

/* A thread's name as the report's text view gives it: "node (tid 12,
 * main)". */
static char *thread_label(const char *thread, long tid, long pid)
{
	char *text = safe_text(thread ? thread : "?"), *out = NULL;
	if (!text || asprintf(&out, "%s (tid %ld%s)", text, tid, tid == pid ? ", main" : "") < 0)
		out = NULL;
	free(text);
	return out;
}

static int by_thread_then_time(const void *a, const void *b)
{
	const slice *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;	/* the outer one first */
	return x->cat == y->cat ? 0 : x->cat == 'p' ? -1 : 1;
}

typedef struct slice_list {
	slice *v;
	size_t n, cap;
	bool failed;	/* out of memory */
} slice_list;

static void add_slice(slice_list *all, slice s)
{
	if (all->failed)
		return;
	if (all->n == all->cap) {
		size_t cap = all->cap ? all->cap * 2 : 256;
		slice *v = realloc(all->v, cap * sizeof *v);
		if (!v) {
			all->failed = true;
			return;
		}
		all->v = v;
		all->cap = cap;
	}
	all->v[all->n++] = s;
}

/* The slices of REP's probes: an event's t_ns is when it ended (a point:
 * when it was hit). */
static void collect_probes(slice_list *all, const report *rep)
{
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		const kind_shape *sh = kind_shape_of(p->kind);
		for (size_t k = 0; sh->timeline && k < p->n_events; k++) {
			const report_event *ev = &p->events[k];
			/* an http probe's slow request: t_ns is its start */
			uint64_t end = rep->begin_clock_ns + ev->t_ns + (sh->http ? ev->latency_ns : 0);
			char cat = sh->spans || sh->http ? 'a' : !sh->events ? 'p' : ev->syscall ? 's' : 'i';
			uint64_t dur = cat == 'i' ? 0 : ev->latency_ns;
			add_slice(all, (slice){ .start_ns = end >= dur ? end - dur : 0, .dur_ns = dur,
						.tid = ev->tid, .p = p, .ev = ev, .cat = cat,
						.unnested = cat == 'a' });
		}
	}
}

/* The slices the features put on REP's timeline: t_ns is when each
 * began. */
static void collect_features(slice_list *all, const report *rep)
{
	for (const feature_ops *const *f = features; *f; f++) {
		size_t n = 0;
		const char *cat = NULL;
		const report_event *ev = (*f)->timeline ? (*f)->timeline(rep, &n, &cat) : NULL;
		for (size_t k = 0; ev && k < n; k++)
			add_slice(all, (slice){ .start_ns = rep->begin_clock_ns + ev[k].t_ns,
						.dur_ns = ev[k].latency_ns, .tid = ev[k].tid,
						.ev = &ev[k], .cat = 'f', .feature_cat = cat });
	}
}

/* Every slice of the stream, in *OUT; returns how many, -1 when out of
 * memory. */
static long collect(const report *const *reps, size_t n, slice **out)
{
	slice_list all = { NULL, 0, 0, false };
	for (size_t r = 0; r < n; r++) {
		if (!reps[r]->begin_clock_ns)
			continue;
		collect_probes(&all, reps[r]);
		collect_features(&all, reps[r]);
	}
	if (all.failed) {
		free(all.v);
		*out = NULL;
		return -1;
	}
	if (all.n)
		qsort(all.v, all.n, sizeof *all.v, by_thread_then_time);
	*out = all.v;
	return (long)all.n;
}

/* Marks the slices of S[0..N) (sorted) that do not nest in the one
 * around them on their thread; returns how many. */
static size_t mark_unnested(slice *s, size_t n)
{
	uint64_t ends[64];
	size_t depth = 0, marked = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && s[i].tid != s[i - 1].tid)
			depth = 0;
		uint64_t end = s[i].start_ns + s[i].dur_ns;
		while (depth && ends[depth - 1] <= s[i].start_ns)
			depth--;
		if (s[i].cat == 'i' || s[i].cat == 'a')
			continue;	/* an instant nests anywhere; a span is async */
		if (depth && end > ends[depth - 1]) {
			s[i].unnested = true;
			marked++;
			continue;
		}
		if (depth < sizeof ends / sizeof *ends)
			ends[depth++] = end;
		else
			ends[depth - 1] = end;	/* deeper than anyone reads: keep the innermost */
	}
	return marked;
}

/* V as a JSON integer, or as a string past what JSON readers hold exactly
 * (2^53). */
static json_t *json_u64(uint64_t v)
{
	char text[24];
	if (v <= (1ull << 53))
		return json_integer((json_int_t)v);
	snprintf(text, sizeof text, "%llu", (unsigned long long)v);
	return json_string(text);
}

/* A feature's record: the phase it was made in, the call, and what the
 * report knows of its argument (the traced process's text in its text
 * form). */
static void put_feature_args(json_t *a, const report_event *ev)
{
	char *text;
	if (ev->phase)
		json_object_set_new(a, "phase", json_string(ev->phase));
	if (ev->syscall)
		json_object_set_new(a, "ret", json_integer(ev->ret));
	if (ev->error)
		json_object_set_new(a, "error", json_string(ev->error));
	if (ev->has_fd)
		json_object_set_new(a, "fd", json_integer(ev->fd));
	if (ev->path && (text = safe_text(ev->path))) {
		json_object_set_new(a, "path", json_string(text));
		free(text);
	}
	if (ev->nested_loop)
		json_object_set_new(a, "nested_loop", json_true());
	if (ev->command && (text = safe_text(ev->command))) {
		json_object_set_new(a, "command", json_string(text));
		free(text);
	}
}

/* An http probe's slow request: its method, route (the client's bytes,
 * in their text form), status and connection. */
static void put_request_args(json_t *a, const report_event *ev)
{
	char *text;
	if (!ev->method)
		return;
	if ((text = safe_text(ev->method))) {
		json_object_set_new(a, "method", json_string(text));
		free(text);
	}
	if (ev->path && (text = safe_text(ev->path))) {
		json_object_set_new(a, "route", json_string(text));
		free(text);
	}
	json_object_set_new(a, "status", json_integer(ev->ret));
	json_object_set_new(a, "fd", json_integer(ev->fd));
}

/* The args of slice S: what the report says of its call. */
static void put_args(FILE *out, const slice *s)
{
	const report_event *ev = s->ev;
	json_t *a = json_object();
	if (s->cat == 'f') {
		put_feature_args(a, ev);
	} else if (s->cat == 'p' || s->cat == 'a') {
		json_object_set_new(a, "probe", json_string(s->p->name));
		if (s->p->function)
			json_object_set_new(a, "function", json_string(s->p->function));
		put_request_args(a, ev);
		char *label = ev->label ? safe_text(ev->label) : NULL;
		if (label)	/* a span's: the traced process's text */
			json_object_set_new(a, "label", json_string(label));
		free(label);
	} else {
		json_object_set_new(a, "probe", json_string(s->p->name));
		if (ev->syscall)
			json_object_set_new(a, "ret", json_integer(ev->ret));
		if (ev->error)
			json_object_set_new(a, "error", json_string(ev->error));
		char *text;
		if (ev->path && (text = safe_text(ev->path))) {
			json_object_set_new(a, "path", json_string(text));
			free(text);
		}
		/* A unix socket's path is the process's text. */
		if (ev->address && (text = safe_text(ev->address))) {
			json_object_set_new(a, "address", json_string(text));
			free(text);
		}
		if (ev->has_length)
			json_object_set_new(a, "length", json_u64(ev->length));
		/* A point's arguments, by the spec's names, apart from ours. */
		json_t *values = ev->n_args ? json_object() : NULL;
		for (size_t k = 0; k < ev->n_args; k++) {
			const report_value *v = &ev->args[k];
			if (v->type == REPORT_VALUE_STRING && (text = safe_text(v->s ? v->s : ""))) {
				json_object_set_new(values, v->name, json_string(text));
				free(text);
			} else if (v->type == REPORT_VALUE_INT) {
				json_object_set_new(values, v->name, json_integer(v->i));
			} else if (v->type == REPORT_VALUE_UINT) {
				json_object_set_new(values, v->name, json_u64(v->u));
			}
		}
		if (values)
			json_object_set_new(a, "values", values);
	}
	fputs(",\"args\":", out);
	if (json_dumpf(a, out, JSON_COMPACT) < 0)
		fputs("{}", out);
	json_decref(a);
}

static const char *slice_name(const slice *s)
{
	if (s->cat == 'f')
		return s->ev->syscall ? s->ev->syscall : s->feature_cat;
	return s->cat == 'p' || !s->ev->syscall ? s->p->name : s->ev->syscall;
}

static const char *slice_cat(const slice *s)
{
	return s->cat == 'f' ? s->feature_cat : s->cat == 'p' ? "phase" : s->cat == 's' ? "syscall"
					     : s->cat == 'a' ? "span" : "event";
}

/* The begin ("b") or end ("e") of unnested slice S, async id ID. */
static void put_async(trace_out *t, long pid, const slice *s, size_t id, bool end)
{
	event_open(t, end ? "e" : "b", pid, s->tid, slice_name(s), false);
	fprintf(t->out, ",\"cat\":\"%s\",\"id\":\"0x%zx\",\"ts\":", slice_cat(s), id);
	put_us(t->out, s->start_ns + (end ? s->dur_ns : 0));
	if (!end)
		put_args(t->out, s);
	fputc('}', t->out);
}

static void put_slice(trace_out *t, long pid, const slice *s, size_t id)
{
	const char *name = slice_name(s), *cat = slice_cat(s);
	if (s->unnested) {
		put_async(t, pid, s, id, false);
		return;
	}
	event_open(t, s->cat == 'i' ? "i" : "X", pid, s->tid, name, false);
	fprintf(t->out, ",\"cat\":\"%s\",\"ts\":", cat);
	put_us(t->out, s->start_ns);
	if (s->cat == 'i') {
		fputs(",\"s\":\"t\"", t->out);
	} else {
		fputs(",\"dur\":", t->out);
		put_us(t->out, s->dur_ns);
	}
	put_args(t->out, s);
	fputc('}', t->out);
}

/* The busy share of each utilization probe's threads, per report, as a
 * counter that holds from the report's start; and once more at the end. */
static void put_counters(trace_out *t, const report *const *reps, size_t n, long pid)
{
	for (size_t r = 0; r < n; r++) {
		const report *rep = reps[r];
		for (size_t i = 0; rep->begin_clock_ns && i < rep->n_probes; i++) {
			const report_probe *p = &rep->probes[i];
			if (!kind_shape_of(p->kind)->busy)
				continue;
			for (size_t g = 0; g < p->n_groups; g++) {
				const report_group *gr = &p->groups[g];
				char *label = thread_label(gr->thread, gr->tid, pid), *name = NULL;
				if (!label || asprintf(&name, "%s busy: %s", p->name, label) < 0)
					name = NULL;
				for (int end = 0; name && end < (r + 1 == n ? 2 : 1); end++) {
					event_open(t, "C", pid, gr->tid, name, false);
					fputs(",\"ts\":", t->out);
					put_us(t->out, rep->begin_clock_ns + (end ? rep->duration_ns : 0));
					fprintf(t->out, ",\"args\":{\"busy %%\":%.1f}}", gr->utilization * 100);
				}
				free(name);
				free(label);
			}
		}
	}
}

/* process_name, and per thread of the slices its name and order (the
 * main thread first). */
static void put_names(trace_out *t, const report *const *reps, size_t n, const slice *s,
		      size_t ns, long pid)
{
	const report *last = reps[n - 1];
	const char *exe = last->binary ? strrchr(last->binary, '/') : NULL;
	char *pname = NULL;
	exe = exe ? exe + 1 : last->binary ? last->binary : "process";
	if (asprintf(&pname, "%s (pid %ld)", exe, pid) >= 0) {
		event_open(t, "M", pid, pid, "process_name", false);
		fputs(",\"args\":{\"name\":", t->out);
		put_string(t->out, pname, true);
		fputs("}}", t->out);
		free(pname);
	}
	/* The threads of the slices (counters belong to the process). */
	for (size_t i = 0; i < ns; i++) {
		if (i > 0 && s[i].tid == s[i - 1].tid)
			continue;
		char *label = thread_label(s[i].ev->thread, s[i].tid, pid);
		event_open(t, "M", pid, s[i].tid, "thread_name", false);
		fputs(",\"args\":{\"name\":", t->out);
		put_string(t->out, label ? label : "?", false);
		fputs("}}", t->out);
		event_open(t, "M", pid, s[i].tid, "thread_sort_index", false);
		fprintf(t->out, ",\"args\":{\"sort_index\":%d}}", s[i].tid == pid ? 0 : 1);
		free(label);
	}
}

/* otherData's "warnings" (what the reports warn of: partial, lost
 * events, probes missing, each once, joined by "; ") and "partial". */
static void put_warnings(json_t *o, const report *const *reps, size_t n)
{
	const report *last = reps[n - 1];
	json_t *warnings = json_array();
	for (size_t r = 0; r < n; r++)
		for (size_t w = 0; w < reps[r]->n_warnings; w++) {
			char *text = safe_text(reps[r]->warnings[w]);
			bool seen = !text;
			size_t k;
			json_t *x;
			json_array_foreach(warnings, k, x)
				seen |= strcmp(json_string_value(x), text) == 0;
			if (!seen)
				json_array_append_new(warnings, json_string(text));
			free(text);
		}
	if (last->partial && last->partial_reason) {
		char *text = safe_text(last->partial_reason);
		if (text)
			json_object_set_new(o, "partial", json_string(text));
		free(text);
	}
	char *joined = NULL;
	size_t k;
	json_t *x;
	json_array_foreach(warnings, k, x) {
		char *more = NULL;
		if (asprintf(&more, "%s%s%s", joined ? joined : "", joined ? "; " : "",
			     json_string_value(x)) < 0)
			break;
		free(joined);
		joined = more;
	}
	if (joined)
		json_object_set_new(o, "warnings", json_string(joined));
	free(joined);
	json_decref(warnings);
}

/* otherData's "probe NAME" per timeline probe of the last report: its
 * calls, slices, drops and calls under the threshold over the stream. */
static void put_probe_counts(json_t *o, const report *const *reps, size_t n)
{
	const report *last = reps[n - 1];
	char v[160], key[160];
	for (size_t i = 0; i < last->n_probes; i++) {
		const report_probe *lp = &last->probes[i];
		if (!kind_shape_of(lp->kind)->timeline)
			continue;
		unsigned long long calls = 0, slices = 0, dropped = 0, threshold = lp->threshold_ns;
		for (size_t r = 0; r < n; r++)
			for (size_t k = 0; k < reps[r]->n_probes; k++) {
				const report_probe *p = &reps[r]->probes[k];
				if (!p->name || !lp->name || strcmp(p->name, lp->name) != 0)
					continue;
				calls += p->st.count;
				slices += p->n_events;
				dropped += p->events_dropped;
			}
		snprintf(key, sizeof key, "probe %s", lp->name);
		if (!lp->attached)
			snprintf(v, sizeof v, "not attached");
		else if (!kind_shape_of(lp->kind)->events)
			snprintf(v, sizeof v, "%llu calls: %llu slices of %llu ns or more, %llu dropped "
				 "(over the limit a window), %llu shorter", calls, slices, threshold, dropped,
				 calls >= slices + dropped ? calls - slices - dropped : 0);
		else
			snprintf(v, sizeof v, "%llu records, %llu dropped (over the limit a window)", slices,
				 dropped);
		json_object_set_new(o, key, json_string(v));
	}
}

/* otherData's "CATEGORY slices" per feature with records on the timeline. */
static void put_feature_counts(json_t *o, const report *const *reps, size_t n)
{
	for (const feature_ops *const *f = features; *f; f++) {
		size_t total = 0, k = 0;
		const char *cat = NULL;
		for (size_t r = 0; (*f)->timeline && r < n; r++) {
			(*f)->timeline(reps[r], &k, &cat);
			total += k;
		}
		if (cat && total) {
			char key[160], v[32];
			snprintf(key, sizeof key, "%s slices", cat);
			snprintf(v, sizeof v, "%zu", total);
			json_object_set_new(o, key, json_string(v));
		}
	}
}

/* otherData: what the file is, and per probe what it holds. */
static void put_other_data(FILE *out, const report *const *reps, size_t n, size_t unnested)
{
	const report *first = reps[0];
	json_t *o = json_object();
	char v[160];
	json_object_set_new(o, "generator", json_string("bpfspec " BPFSPEC_VERSION));
	json_object_set_new(o, "spec", json_string(first->spec_name ? first->spec_name : ""));
	snprintf(v, sizeof v, "%ld", first->pid);
	json_object_set_new(o, "pid", json_string(v));
	json_object_set_new(o, "clock", json_string("CLOCK_MONOTONIC, microseconds (as node "
						    "--trace-events)"));
	snprintf(v, sizeof v, "%llu", (unsigned long long)first->start_unix_ns);
	json_object_set_new(o, "window_start_unix_ns", json_string(v));
	snprintf(v, sizeof v, "%llu", (unsigned long long)first->begin_clock_ns);
	json_object_set_new(o, "window_start_clock_ns", json_string(v));
	snprintf(v, sizeof v, "%zu", n);
	json_object_set_new(o, "intervals", json_string(v));
	snprintf(v, sizeof v, "%zu", unnested);
	json_object_set_new(o, "unnested_slices", json_string(v));
	put_warnings(o, reps, n);
	put_probe_counts(o, reps, n);
	put_feature_counts(o, reps, n);
	fputs(",\n\"otherData\":", out);
	if (json_dumpf(o, out, JSON_COMPACT) < 0)
		fputs("{}", out);
	json_decref(o);
}

int render_trace(FILE *out, const report *const *reps, size_t n)
{
	if (n == 0)
		return -1;
	slice *s;
	long ns = collect(reps, n, &s);
	if (ns < 0)
		return -1;
	size_t unnested = mark_unnested(s, (size_t)ns), async = 0;
	for (long i = 0; i < ns; i++)
		async += s[i].unnested;	/* those, and spans */
	long pid = reps[0]->pid;
	trace_out t = { .out = out, .first = true };

	fputs("{\"displayTimeUnit\":\"ms\",\n\"traceEvents\":[", out);
	put_names(&t, reps, n, s, (size_t)ns, pid);
	/* The ends of unnested slices, written in time order among the rest
	 * of their thread's events. */
	size_t *ends = async ? malloc(async * sizeof *ends) : NULL, n_ends = 0;
	if (async && !ends) {
		free(s);
		return -1;
	}
	for (size_t i = 0; i <= (size_t)ns; i++) {
		bool last = i == (size_t)ns;
		while (n_ends) {
			size_t k = 0;	/* the earliest end */
			for (size_t j = 1; j < n_ends; j++)
				if (s[ends[j]].start_ns + s[ends[j]].dur_ns < s[ends[k]].start_ns + s[ends[k]].dur_ns)
					k = j;
			const slice *e = &s[ends[k]];
			if (!last && e->tid == s[i].tid && e->start_ns + e->dur_ns > s[i].start_ns)
				break;
			put_async(&t, pid, e, ends[k] + 1, true);
			ends[k] = ends[--n_ends];
		}
		if (last)
			break;
		put_slice(&t, pid, &s[i], i + 1);
		if (s[i].unnested)
			ends[n_ends++] = i;
	}
	free(ends);
	put_counters(&t, reps, n, pid);
	fputs("\n]", out);
	put_other_data(out, reps, n, unnested);
	fputs("}\n", out);
	free(s);
	return ferror(out) ? -1 : 0;
}
