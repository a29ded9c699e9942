/* render_why — attribution in each output (render_why.h): the "why"
 * table and the loop blockers in text, the splits and blockers in JSON,
 * and their Prometheus families. */
#include "attribution/render_why.h"

#include <stdlib.h>
#include <string.h>

#include "attribution/why.h"
#include "render/render_internal.h"
#include "util/safe.h"

/* Blockers the text view lists (the slowest); JSON has every one. */
#define TEXT_BLOCKERS 20
/* Syscalls the text view names per phase and thread. */
#define TEXT_TOP_SYSCALLS 3

/* ---- text ---------------------------------------------------------- */

static void stacks_text(FILE *out, const report_probe *p);

/* "  412.3ms 41%" for NS of TOTAL into OUT. */
static void part_cell(char *out, size_t len, uint64_t ns, uint64_t total)
{
	char d[32];
	text_fmt_auto(d, sizeof d, ns);
	if (total)
		snprintf(out, len, "%s %3.0f%%", d, 100.0 * (double)ns / (double)total);
	else
		snprintf(out, len, "%s", d);
}

/* Time the parts leave out (the window's edges; negative: counted twice). */
static long long unaccounted(const report_split *s, uint64_t total)
{
	return (long long)total - (long long)(s->cpu_ns + s->wait_ns + s->blocked_ns + s->other_ns);
}

static void why_row(FILE *out, const report_probe *p, const report_group *gr,
		    report_pids pids)
{
	const report_split *s = gr->split;
	uint64_t total = gr->st.sum_ns;
	char tot[32], cpu[40], wait[40], blk[40], oth[40];

	text_fmt_auto(tot, sizeof tot, total);
	part_cell(cpu, sizeof cpu, s->cpu_ns, total);
	part_cell(wait, sizeof wait, s->wait_ns, total);
	part_cell(blk, sizeof blk, s->blocked_ns, total);
	part_cell(oth, sizeof oth, s->other_ns, total);
	safe_fputs(p->name, out);
	fprintf(out, "%*s ", text_pad_to(14, p->name), "");
	text_thread_cell(out, gr, pids);
	fprintf(out, " %9s %14s %14s %14s %14s ", tot, cpu, wait, blk, oth);
	size_t shown = 0;
	for (size_t k = 0; k < s->n_syscalls && shown < TEXT_TOP_SYSCALLS; k++) {
		const report_why_syscall *sc = &s->syscalls[k];
		char d[32];
		if (!sc->blocked_ns)
			break;
		text_fmt_auto(d, sizeof d, sc->blocked_ns);
		fprintf(out, "%s", shown++ ? ", " : "");
		safe_fputs(sc->name, out);
		fprintf(out, " %s (%llu)", d, (unsigned long long)sc->calls);
	}
	if (!shown)
		fputs("-", out);
	fputc('\n', out);
}

static int blocker_by_duration(const void *a, const void *b)
{
	const report_event *x = *(const report_event *const *)a, *y = *(const report_event *const *)b;
	if (x->latency_ns != y->latency_ns)
		return x->latency_ns < y->latency_ns ? 1 : -1;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

static void blocker_row(FILE *out, const report_event *ev)
{
	char lat[32], res[48];
	text_fmt_auto(lat, sizeof lat, ev->latency_ns);
	if (ev->error) {
		char *error = safe_text(ev->error);
		snprintf(res, sizeof res, "%lld %s", ev->ret, error ? error : "?");
		free(error);
	} else {
		snprintf(res, sizeof res, "%lld", ev->ret);
	}
	fprintf(out, "%10.6f %9s ", (double)ev->t_ns / 1e9, lat);
	safe_fputs_cell(ev->phase, NULL, 10, out);
	fprintf(out, " %-8ld ", ev->tid);
	safe_fputs_cell(ev->thread, NULL, TEXT_EVENT_THREAD_COLS, out);
	fputc(' ', out);
	safe_fputs_cell(ev->syscall, NULL, 12, out);
	fprintf(out, " %-14s ", res);
	if (ev->path)
		safe_fputs(ev->path, out);
	if (ev->has_fd)
		fprintf(out, "%sfd %ld%s", ev->path ? " (" : "", ev->fd, ev->path ? ")" : "");
	if (ev->nested_loop) {
		/* node's spawnSync/execSync: the loop was stuck on the child */
		fputs("nested loop waiting for ", out);
		if (ev->command)
			safe_fputs(ev->command, out);
		else
			fputs("a child not seen starting", out);
	}
	fputc('\n', out);
}

/* The end of the stacks' heading: what named the JavaScript frames. */
static void js_names_text(FILE *out, const report *rep)
{
	const report_js_check *c = &rep->js_check;
	if (rep->js_names == REPORT_JS_NAMES_PERF_MAP && c->done && c->frames)
		fprintf(out, " (JavaScript frames named by the perf map; V8's heap named %llu of its "
			"%llu the same, %llu otherwise, %llu not, %llu not compared; function shares "
			"within %.1f points)\n",
			(unsigned long long)c->same, (unsigned long long)c->frames,
			(unsigned long long)c->different, (unsigned long long)c->unnamed,
			(unsigned long long)c->perf_map_unplaced, 100 * c->share_difference);
	else if (rep->js_names == REPORT_JS_NAMES_PERF_MAP)
		fputs(" (JavaScript frames named by the perf map)\n", out);
	else if (rep->js_names == REPORT_JS_NAMES_V8_HEAP)
		fprintf(out, " (JavaScript frames named from V8's heap: %llu of %llu; functions "
			"the optimizing compiler inlined show as their caller)\n",
			(unsigned long long)rep->js_frames_named,
			(unsigned long long)rep->js_frames);
	else if (rep->js_symbols == 0)
		fputs(" (JavaScript frames unnamed: no perf map, see the warning)\n", out);
	else
		fputc('\n', out);
}

void render_why_text(FILE *out, const report *rep)
{
	if (!rep->attributed)
		return;
	fputs("\nWHY: where each attributed phase's time went (ON-CPU running, WAIT-CPU "
	      "runnable but not running,\nBLOCKED asleep in a syscall, OTHER asleep outside "
	      "one, e.g. page faults)\n", out);
	fprintf(out, "%-14s %-*s %9s %14s %14s %14s %14s %s\n", "PHASE", TEXT_THREAD_COLS, "THREAD",
		"TOTAL", "ON-CPU", "WAIT-CPU", "BLOCKED", "OTHER", "BLOCKED IN (calls)");
	bool any = false;
	long long worst = 0;
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		for (size_t g = 0; p->attributed && g < p->n_groups; g++) {
			const report_group *gr = &p->groups[g];
			if (!gr->split || !gr->st.sum_ns)
				continue;
			why_row(out, p, gr, report_pids_of(rep));
			long long u = unaccounted(gr->split, gr->st.sum_ns);
			if (llabs(u) > llabs(worst))
				worst = u;
			any = true;
		}
	}
	if (!any)
		fputs("(no attributed phase completed a call in the window)\n", out);
	else if (worst) {
		char d[32];
		text_fmt_auto(d, sizeof d, (uint64_t)llabs(worst));
		fprintf(out, "(parts %s the total by up to %s: scheduler events the kernel program "
			"missed, or a report from before parts were counted with their call)\n",
			worst > 0 ? "fall short of" : "exceed", d);
	}

	if (rep->stack_ns) {
		char at[32];
		text_fmt_auto(at, sizeof at, rep->stack_ns);
		fprintf(out, "\nJAVASCRIPT THAT RAN: user stacks sampled at %d Hz while a loop thread ran "
			"inside a phase lasting %s or more", WHY_STACK_HZ, at);
		js_names_text(out, rep);
		bool sampled = false;
		for (size_t i = 0; i < rep->n_probes; i++)
			if (rep->probes[i].attributed && rep->probes[i].stack_samples) {
				stacks_text(out, &rep->probes[i]);
				sampled = true;
			}
		if (!sampled)
			fputs("(no phase lasted that long while its thread ran)\n", out);
	}
	char thr[32];
	text_fmt_auto(thr, sizeof thr, rep->blocker_ns);
	fprintf(out, "\nLOOP BLOCKERS: syscalls of %s or more inside attributed phases, "
		"the loop's own epoll waits aside: %zu", thr, rep->n_blockers);
	if (rep->blockers_dropped)
		fprintf(out, " (and %llu not recorded: over the limit)",
			(unsigned long long)rep->blockers_dropped);
	fputs(rep->n_blockers > TEXT_BLOCKERS ? ", the slowest shown\n" : "\n", out);
	if (!rep->n_blockers)
		return;
	const report_event **order = malloc(rep->n_blockers * sizeof *order);
	if (!order) {
		fputs("(out of memory: not listed)\n", out);
		return;
	}
	for (size_t i = 0; i < rep->n_blockers; i++)
		order[i] = &rep->blockers[i];
	qsort(order, rep->n_blockers, sizeof *order, blocker_by_duration);
	fprintf(out, "%10s %9s %-10s %-8s %-*s %-12s %-14s %s\n", "START(s)", "DURATION", "PHASE",
		"TID", TEXT_EVENT_THREAD_COLS, "THREAD", "SYSCALL", "RESULT", "PATH / FD / WAITED FOR");
	for (size_t i = 0; i < rep->n_blockers && i < TEXT_BLOCKERS; i++)
		blocker_row(out, order[i]);
	free(order);
}

/* The innermost frame of folded FRAMES that is JavaScript ("JS:..."),
 * its length in *LEN; NULL when none is. */
static const char *innermost_js(const char *frames, size_t *len)
{
	const char *best = NULL;
	for (const char *s = frames; s && *s;) {
		const char *e = strchr(s, ';');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		if (l > 3 && strncmp(s, "JS:", 3) == 0) {
			best = s;
			*len = l;
		}
		s = e ? e + 1 : NULL;
	}
	return best;
}

typedef struct js_count {
	const char *name;
	size_t len;
	uint64_t samples;
} js_count;

static int js_order(const void *a, const void *b)
{
	const js_count *x = a, *y = b;
	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* P's stacks: the JavaScript functions that ran (by the innermost JS frame
 * of each sample) and the hottest stacks' innermost frames. */
static void stacks_text(FILE *out, const report_probe *p)
{
	js_count *js = calloc(p->n_stacks, sizeof *js);
	size_t n_js = 0;
	uint64_t in_js = 0;
	for (size_t i = 0; js && i < p->n_stacks; i++) {
		size_t len = 0;
		const char *f = innermost_js(p->stacks[i].frames, &len);
		if (!f)
			continue;
		in_js += p->stacks[i].samples;
		size_t k = 0;
		while (k < n_js && !(js[k].len == len && memcmp(js[k].name, f, len) == 0))
			k++;
		if (k == n_js)
			js[n_js++] = (js_count){ f, len, 0 };
		js[k].samples += p->stacks[i].samples;
	}
	safe_fputs(p->name, out);
	fprintf(out, ": %llu samples, %.0f%% with JavaScript on the stack\n",
		(unsigned long long)p->stack_samples,
		p->stack_samples ? 100.0 * (double)in_js / (double)p->stack_samples : 0.0);
	if (js && n_js) {
		qsort(js, n_js, sizeof *js, js_order);
		for (size_t k = 0; k < n_js && k < 5; k++) {
			char *name = strndup(js[k].name + 3, js[k].len - 3);
			fprintf(out, "  %5.1f%%  ", 100.0 * (double)js[k].samples / (double)p->stack_samples);
			safe_fputs(name ? name : "?", out);
			fputc('\n', out);
			free(name);
		}
	}
	free(js);
	fputs("  hottest stacks, innermost frame first:\n", out);
	for (size_t i = 0; i < p->n_stacks && i < 3; i++) {
		const char *f = p->stacks[i].frames;
		fprintf(out, "  %5.1f%%  ", 100.0 * (double)p->stacks[i].samples / (double)p->stack_samples);
		/* the last frames, innermost first */
		const char *ends[6];
		size_t n = 0;
		for (const char *e = f + strlen(f); n < 6;) {
			const char *s = e;
			while (s > f && s[-1] != ';')
				s--;
			ends[n++] = s;
			if (s == f)
				break;
			e = s - 1;
		}
		for (size_t k = 0; k < n && k < 5; k++) {
			const char *s = ends[k], *e = strchr(s, ';');
			char *frame = strndup(s, e ? (size_t)(e - s) : strlen(s));
			fputs(k ? " <- " : "", out);
			safe_fputs(frame ? frame : "?", out);
			free(frame);
		}
		fputs(n > 5 ? " <- ...\n" : "\n", out);
	}
}

/* ---- JSON ---------------------------------------------------------- */

json_t *render_why_json_split(const report_split *s, uint64_t total_ns)
{
	json_t *o = json_object(), *sys = json_array();
	json_object_set_new(o, "on_cpu_ns", rjson_u64(s->cpu_ns));
	json_object_set_new(o, "waiting_for_cpu_ns", rjson_u64(s->wait_ns));
	json_object_set_new(o, "blocked_ns", rjson_u64(s->blocked_ns));
	json_object_set_new(o, "other_off_cpu_ns", rjson_u64(s->other_ns));
	json_object_set_new(o, "unaccounted_ns", json_integer(unaccounted(s, total_ns)));
	for (size_t k = 0; k < s->n_syscalls; k++) {
		const report_why_syscall *sc = &s->syscalls[k];
		json_t *js = json_object();
		json_object_set_new(js, "syscall", rjson_text(sc->name));
		json_object_set_new(js, "calls", rjson_u64(sc->calls));
		json_object_set_new(js, "time_ns", rjson_u64(sc->time_ns));
		json_object_set_new(js, "blocked_ns", rjson_u64(sc->blocked_ns));
		json_array_append_new(sys, js);
	}
	json_object_set_new(o, "syscalls", sys);
	return o;
}

json_t *render_why_json_stacks(const report_probe *p)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < p->n_stacks; i++) {
		json_t *js = json_object();
		json_object_set_new(js, "tid", json_integer(p->stacks[i].tid));
		rjson_put_bytes(js, "stack", p->stacks[i].frames);
		json_object_set_new(js, "samples", rjson_u64(p->stacks[i].samples));
		json_array_append_new(arr, js);
	}
	return arr;
}

void render_why_json_probe(json_t *jp, const report_probe *p, const report *rep)
{
	if (p->attributed)
		json_object_set_new(jp, "attribution", render_why_json_split(&p->split, p->st.sum_ns));
	if (p->attributed && rep->stack_ns)
		json_object_set_new(jp, "stacks", render_why_json_stacks(p));
}

void render_why_json_group(json_t *jg, const report_probe *p, const report_group *g)
{
	(void)p;
	if (g->split)
		json_object_set_new(jg, "attribution", render_why_json_split(g->split, g->st.sum_ns));
}

/* stack_sampling.js_check: the perf map's names checked against the
 * heap's (attribution/why_v8check.h). */
static json_t *js_check_json(const report_js_check *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "samples", rjson_u64(c->samples));
	json_object_set_new(o, "samples_no_walk", rjson_u64(c->samples_no_walk));
	json_object_set_new(o, "frames", rjson_u64(c->frames));
	json_object_set_new(o, "same", rjson_u64(c->same));
	json_object_set_new(o, "different", rjson_u64(c->different));
	json_object_set_new(o, "different_innermost", rjson_u64(c->different_innermost));
	json_object_set_new(o, "unnamed", rjson_u64(c->unnamed));
	json_object_set_new(o, "unnamed_no_walk", rjson_u64(c->unnamed_no_walk));
	json_object_set_new(o, "perf_map_unplaced", rjson_u64(c->perf_map_unplaced));
	json_object_set_new(o, "perf_map_stale", rjson_u64(c->perf_map_stale));
	json_object_set_new(o, "v8_heap_only", rjson_u64(c->heap_only));
	json_object_set_new(o, "share_difference", json_real(c->share_difference));
	json_object_set_new(o, "share_function", rjson_text(c->share_function));
	if (c->differ_perf_map[0]) {
		json_object_set_new(o, "first_difference_perf_map", rjson_text(c->differ_perf_map));
		json_object_set_new(o, "first_difference_v8_heap", rjson_text(c->differ_v8_heap));
	}
	return o;
}

void render_why_json(json_t *root, const report *rep)
{
	if (!rep->attributed)
		return;
	if (rep->stack_ns) {
		json_t *s = json_object();
		json_object_set_new(s, "min_phase_ns", rjson_u64(rep->stack_ns));
		json_object_set_new(s, "hz", json_integer(WHY_STACK_HZ));
		if (rep->js_symbols >= 0)
			json_object_set_new(s, "js_symbols", json_boolean(rep->js_symbols));
		static const char *const sources[] = {
			[REPORT_JS_NAMES_PERF_MAP] = "perf_map",
			[REPORT_JS_NAMES_V8_HEAP] = "v8_heap",
			[REPORT_JS_NAMES_NONE] = "none",
		};
		if (rep->js_names > REPORT_JS_NAMES_UNKNOWN && rep->js_names <= REPORT_JS_NAMES_NONE) {
			json_object_set_new(s, "js_names", json_string(sources[rep->js_names]));
			json_object_set_new(s, "js_frames", rjson_u64(rep->js_frames));
			json_object_set_new(s, "js_frames_named", rjson_u64(rep->js_frames_named));
		}
		if (rep->js_check.done)
			json_object_set_new(s, "js_check", js_check_json(&rep->js_check));
		json_object_set_new(root, "stack_sampling", s);
	}
	json_t *b = json_object(), *list = json_array();
	json_object_set_new(b, "threshold_ns", rjson_u64(rep->blocker_ns));
	json_object_set_new(b, "not_recorded", rjson_u64(rep->blockers_dropped));
	for (size_t i = 0; i < rep->n_blockers; i++) {
		const report_event *ev = &rep->blockers[i];
		json_t *je = json_object();
		json_object_set_new(je, "t_ns", rjson_u64(ev->t_ns));
		json_object_set_new(je, "phase", rjson_text(ev->phase));
		json_object_set_new(je, "tid", json_integer(ev->tid));
		rjson_put_bytes(je, "thread", ev->thread);
		json_object_set_new(je, "main_thread",
				    json_boolean(report_pids_has(report_pids_of(rep), ev->tid)));
		rjson_put_syscall(je, ev);
		if (ev->nested_loop) {
			json_object_set_new(je, "nested_loop", json_true());
			rjson_put_bytes(je, "command", ev->command);
		}
		json_array_append_new(list, je);
	}
	json_object_set_new(b, "records", list);
	json_object_set_new(root, "blockers", b);
}

/* ---- Prometheus ---------------------------------------------------- */

void render_why_prom(FILE *out, const report *rep)
{
	prom_family cause = { "bpfspec_phase_cause_seconds", "gauge",
			      "Time the thread spent in the attributed phase in the window, by cause: "
			      "on_cpu, waiting_for_cpu, blocked_syscall, off_cpu_other.", false };
	prom_family sys = { "bpfspec_phase_syscall_blocked_seconds", "gauge",
			    "Time the phase's threads slept inside each syscall in the window.", false };
	prom_family blockers = { "bpfspec_loop_blockers", "gauge",
				 "Syscalls at least the blockers threshold long inside attributed "
				 "phases in the window, recorded and not.", false };
	char v[32], tid[24];

	if (!rep->attributed)
		return;
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		for (size_t g = 0; p->attached && p->attributed && g < p->n_groups; g++) {
			const report_group *gr = &p->groups[g];
			if (!gr->split)
				continue;
			static const char *const names[] = { "on_cpu", "waiting_for_cpu",
							     "blocked_syscall", "off_cpu_other" };
			const uint64_t parts[] = { gr->split->cpu_ns, gr->split->wait_ns,
						   gr->split->blocked_ns, gr->split->other_ns };
			promtext_label ls[6];
			prom_thread_labels(ls, tid, rep, p, gr);
			for (size_t k = 0; k < 4; k++) {
				ls[5] = (promtext_label){ "cause", names[k] };
				promtext_seconds(v, sizeof v, parts[k]);
				prom_sample(out, &cause, "", ls, 6, v);
			}
		}
	}
	for (size_t i = 0; i < rep->n_probes; i++) {
		const report_probe *p = &rep->probes[i];
		for (size_t k = 0; p->attached && p->attributed && k < p->split.n_syscalls; k++) {
			promtext_label ls[] = { { "spec", rep->spec_name }, { "probe", p->name },
						{ "syscall", p->split.syscalls[k].name } };
			promtext_seconds(v, sizeof v, p->split.syscalls[k].blocked_ns);
			prom_sample(out, &sys, "", ls, 3, v);
		}
	}
	promtext_label ls[] = { { "spec", rep->spec_name } };
	promtext_u64(v, sizeof v, rep->n_blockers + rep->blockers_dropped);
	prom_sample(out, &blockers, "", ls, 1, v);
}

const report_event *render_why_timeline(const report *rep, size_t *n, const char **cat)
{
	*n = rep->attributed ? rep->n_blockers : 0;
	*cat = "blocker";
	return *n ? rep->blockers : NULL;
}
