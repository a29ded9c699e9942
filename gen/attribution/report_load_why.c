/* report_load_why — reads attribution (why.h) back from a JSON report into
 * the report model (see report_load_why.h): the inverse of
 * render_why_json_probe, render_why_json_group and render_why_json
 * (render_why.c).
 *
 * Both objects are optional: a report without attributed probes has
 * neither, and loads with report.attributed and every
 * report_probe.attributed false and no group split.  Inside them every
 * field the writer puts is required with its type; values it derives
 * (a split's unaccounted_ns, a record's main_thread) are type-checked and
 * otherwise ignored; a syscall's number is this architecture's for its
 * name (-1 when it has none).  Thread names and paths that are not UTF-8
 * are read from their *_hex twins, as everywhere in the report. */
#include "attribution/report_load_why.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/systab.h"

/* One entry of a split's "syscalls" (OBJ at BASE) into SC. */
static int load_why_syscall(loader *l, const json_t *obj, const char *base,
			    report_why_syscall *sc)
{
	if (rl_get_str(l, obj, base, "syscall", &sc->name, false, false) < 0 ||
	    rl_get_u64(l, obj, base, "calls", &sc->calls) < 0 ||
	    rl_get_u64(l, obj, base, "time_ns", &sc->time_ns) < 0 ||
	    rl_get_u64(l, obj, base, "blocked_ns", &sc->blocked_ns) < 0)
		return -1;
	sc->nr = systab_syscall_nr(sc->name);
	return 0;
}

/* An "attribution" object (OBJ at BASE) into S, whose syscalls it
 * allocates (report_split_free frees what was filled, on error too). */
static int load_split(loader *l, const json_t *obj, const char *base, report_split *s)
{
	char spath[JPATH_LEN], path[JPATH_LEN];

	if (rl_get_u64(l, obj, base, "on_cpu_ns", &s->cpu_ns) < 0 ||
	    rl_get_u64(l, obj, base, "waiting_for_cpu_ns", &s->wait_ns) < 0 ||
	    rl_get_u64(l, obj, base, "blocked_ns", &s->blocked_ns) < 0 ||
	    rl_get_u64(l, obj, base, "other_off_cpu_ns", &s->other_ns) < 0 ||
	    !rl_get(l, obj, base, "unaccounted_ns", T_INT, false, false))
		return -1;
	json_t *arr = rl_get_arr(l, obj, base, "syscalls");
	if (!arr)
		return -1;
	rl_path_key(spath, base, "syscalls");
	size_t n = json_array_size(arr);
	if (rl_alloc_array(l, (void **)&s->syscalls, n, sizeof *s->syscalls) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *sc = rl_elem_obj(l, arr, spath, i, path);
		/* Counted before filling: report_split_free frees what was copied. */
		s->n_syscalls = i + 1;
		if (!sc || load_why_syscall(l, sc, path, &s->syscalls[i]) < 0)
			return -1;
	}
	return 0;
}

/* The optional "attribution" of group G (OBJ at BASE) into an owned
 * G->split; G->split stays NULL without one. */
static int load_group_split(loader *l, const json_t *obj, const char *base, report_group *g)
{
	char path[JPATH_LEN];
	json_t *a = rl_get(l, obj, base, "attribution", T_OBJ, false, true);

	if (!a)
		return l->failed ? -1 : 0;
	if (!(g->split = calloc(1, sizeof *g->split)))
		return rl_oom(l);
	rl_path_key(path, base, "attribution");
	return load_split(l, a, path, g->split);
}

/* Array ARR ("stacks" of the probe at BASE) into P's stacks. */
static int load_stacks(loader *l, const json_t *arr, const char *base, report_probe *p)
{
	char spath[JPATH_LEN], path[JPATH_LEN];
	size_t n = json_array_size(arr);
	rl_path_key(spath, base, "stacks");
	if (rl_alloc_array(l, (void **)&p->stacks, n, sizeof *p->stacks) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *e = rl_elem_obj(l, arr, spath, i, path);
		/* Counted before filling: report_free frees what was copied. */
		p->n_stacks = i + 1;
		if (!e || rl_get_long(l, e, path, "tid", &p->stacks[i].tid) < 0 ||
		    rl_get_bytes(l, e, path, "stack", &p->stacks[i].frames, false, false) < 0 ||
		    rl_get_u64(l, e, path, "samples", &p->stacks[i].samples) < 0)
			return -1;
		p->stack_samples += p->stacks[i].samples;
	}
	return 0;
}

int rl_load_attribution(loader *l, const json_t *obj, const char *base, report_probe *p)
{
	char gpath[JPATH_LEN], path[JPATH_LEN];
	if (p->kind != PROBE_LATENCY)
		return 0;
	json_t *a = rl_get(l, obj, base, "attribution", T_OBJ, false, true);

	if (l->failed)
		return -1;
	if (a) {
		p->attributed = true;
		rl_path_key(path, base, "attribution");
		if (load_split(l, a, path, &p->split) < 0)
			return -1;
	}
	json_t *stacks = rl_get(l, obj, base, "stacks", T_ARR, false, true);
	if (l->failed)
		return -1;
	if (stacks && load_stacks(l, stacks, base, p) < 0)
		return -1;
	/* P's groups were loaded from "groups": an array of n_groups objects. */
	json_t *groups = json_object_get(obj, "groups");
	rl_path_key(gpath, base, "groups");
	for (size_t g = 0; g < p->n_groups; g++) {
		rl_path_idx(path, gpath, g);
		if (load_group_split(l, json_array_get(groups, g), path, &p->groups[g]) < 0)
			return -1;
	}
	return 0;
}

/* One record of "blockers" (OBJ at BASE) into EV: a syscall at least
 * the threshold long made inside attributed phase EV->phase. */
static int load_blocker(loader *l, const json_t *obj, const char *base, report_event *ev)
{
	bool main_thread;
	json_t *v;

	if (rl_get_u64(l, obj, base, "t_ns", &ev->t_ns) < 0 ||
	    rl_get_str(l, obj, base, "phase", &ev->phase, false, false) < 0 ||
	    rl_get_long(l, obj, base, "tid", &ev->tid) < 0 ||
	    rl_get_bytes(l, obj, base, "thread", &ev->thread, true, false) < 0 ||
	    rl_get_bool(l, obj, base, "main_thread", &main_thread) < 0 ||
	    rl_get_syscall(l, obj, base, ev, "duration_ns") < 0)
		return -1;
	if ((v = rl_get(l, obj, base, "nested_loop", T_BOOL, false, true)))
		ev->nested_loop = json_is_true(v);
	if (l->failed || rl_get_bytes(l, obj, base, "command", &ev->command, true, true) < 0)
		return -1;
	return l->failed ? -1 : 0;
}

/* The text KEY of OBJ (at BASE) into OUT (REPORT_JS_CHECK_NAME bytes,
 * cut), "" when absent.  Returns 0, or -1 (L failed). */
static int rl_load_check_text(loader *l, const json_t *obj, const char *base, const char *key,
			      char *out)
{
	char *text = NULL;
	if (rl_get_str(l, obj, base, key, &text, false, true) < 0)
		return -1;
	snprintf(out, REPORT_JS_CHECK_NAME, "%s", text ? text : "");
	free(text);
	return 0;
}

/* js_check's perf_map_unplaced and perf_map_stale into C (0 when
 * absent: reports made before they were counted).  Returns 0, or -1
 * after a diagnostic. */
static int load_perf_map_counts(loader *l, const json_t *o, const char *base,
				report_js_check *c)
{
	json_t *v = rl_get(l, o, base, "perf_map_unplaced", T_UINT, false, true);
	c->perf_map_unplaced = v ? (uint64_t)json_integer_value(v) : 0;
	v = rl_get(l, o, base, "perf_map_stale", T_UINT, false, true);
	c->perf_map_stale = v ? (uint64_t)json_integer_value(v) : 0;
	return l->failed ? -1 : 0;
}

/* stack_sampling's optional js_check into REP.  Returns 0, or -1 (L
 * failed). */
static int rl_load_js_check(loader *l, const json_t *s, report *rep)
{
	static const char base[] = "stack_sampling.js_check";
	report_js_check *c = &rep->js_check;
	json_t *o = rl_get(l, s, "stack_sampling", "js_check", T_OBJ, false, true);
	if (!o)
		return l->failed ? -1 : 0;
	c->done = true;
	if (rl_get_u64(l, o, base, "samples", &c->samples) < 0 ||
	    rl_get_u64(l, o, base, "samples_no_walk", &c->samples_no_walk) < 0 ||
	    rl_get_u64(l, o, base, "frames", &c->frames) < 0 ||
	    rl_get_u64(l, o, base, "same", &c->same) < 0 ||
	    rl_get_u64(l, o, base, "different", &c->different) < 0 ||
	    rl_get_u64(l, o, base, "different_innermost", &c->different_innermost) < 0 ||
	    rl_get_u64(l, o, base, "unnamed", &c->unnamed) < 0 ||
	    rl_get_u64(l, o, base, "unnamed_no_walk", &c->unnamed_no_walk) < 0 ||
	    rl_get_u64(l, o, base, "v8_heap_only", &c->heap_only) < 0 ||
	    load_perf_map_counts(l, o, base, c) < 0 ||
	    rl_get_fraction(l, o, base, "share_difference", &c->share_difference) < 0 ||
	    rl_load_check_text(l, o, base, "share_function", c->share_function) < 0 ||
	    rl_load_check_text(l, o, base, "first_difference_perf_map", c->differ_perf_map) < 0 ||
	    rl_load_check_text(l, o, base, "first_difference_v8_heap", c->differ_v8_heap) < 0)
		return -1;
	return 0;
}

/* stack_sampling's optional js_names ("perf_map", "v8_heap", "none")
 * with its frame counts into REP.  Returns 0, or -1 (L failed). */
static int rl_load_js_names(loader *l, const json_t *s, report *rep)
{
	static const char *const sources[] = { "perf_map", "v8_heap", "none" };
	json_t *v = rl_get(l, s, "stack_sampling", "js_names", T_STR, false, true);
	if (!v)
		return l->failed ? -1 : 0;
	for (size_t k = 0; k < sizeof sources / sizeof *sources; k++)
		if (strcmp(json_string_value(v), sources[k]) == 0)
			rep->js_names = REPORT_JS_NAMES_PERF_MAP + (int)k;
	if (rep->js_names == REPORT_JS_NAMES_UNKNOWN)
		return 0;	/* a later source: said nothing of */
	if (rl_get_u64(l, s, "stack_sampling", "js_frames", &rep->js_frames) < 0 ||
	    rl_get_u64(l, s, "stack_sampling", "js_frames_named", &rep->js_frames_named) < 0)
		return -1;
	return 0;
}

int rl_load_blockers(loader *l, const json_t *root, report *rep)
{
	char rpath[JPATH_LEN], path[JPATH_LEN];
	json_t *b = rl_get(l, root, "", "blockers", T_OBJ, false, true);

	json_t *s = rl_get(l, root, "", "stack_sampling", T_OBJ, false, true), *v;
	if (l->failed)
		return -1;
	rep->js_symbols = -1;
	if (s) {
		if (rl_get_u64(l, s, "stack_sampling", "min_phase_ns", &rep->stack_ns) < 0 ||
		    !rl_get(l, s, "stack_sampling", "hz", T_INT, false, false))
			return -1;
		if ((v = rl_get(l, s, "stack_sampling", "js_symbols", T_BOOL, false, true)))
			rep->js_symbols = json_is_true(v);
		if (rl_load_js_names(l, s, rep) < 0 || rl_load_js_check(l, s, rep) < 0)
			return -1;
		if (l->failed)
			return -1;
	}
	if (!b)
		return l->failed ? -1 : 0;
	rep->attributed = true;
	if (rl_get_u64(l, b, "blockers", "threshold_ns", &rep->blocker_ns) < 0 ||
	    rl_get_u64(l, b, "blockers", "not_recorded", &rep->blockers_dropped) < 0)
		return -1;
	json_t *arr = rl_get_arr(l, b, "blockers", "records");
	if (!arr)
		return -1;
	rl_path_key(rpath, "blockers", "records");
	size_t n = json_array_size(arr);
	if (rl_alloc_array(l, (void **)&rep->blockers, n, sizeof *rep->blockers) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *e = rl_elem_obj(l, arr, rpath, i, path);
		/* Counted before filling: report_free frees what was copied. */
		rep->n_blockers = i + 1;
		if (!e || load_blocker(l, e, path, &rep->blockers[i]) < 0)
			return -1;
	}
	return 0;
}
