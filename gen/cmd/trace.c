/* trace — `bpfspec run`, `gen` and the one-liners (cmd_trace,
 * commands.h): the pipeline spec → target → resolve → gen →
 * runner/bpfout → report → render, a stage a function; the options each
 * of them takes are trace_cli.c's.  No stage logic lives here. */
#include "cmd/commands.h"
#include "cmd/commands_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "embedded.h"
#include "model/condition.h"
#include "model/report.h"
#include "run/report_build.h"
#include "program/generator.h"
#include "program/resolve.h"
#include "render/diff.h"
#include "render/render.h"
#include "render/report_load.h"
#include "run/bpfout.h"
#include "run/btversion.h"
#include "run/runner.h"
#include "spec/oneliner.h"
#include "spec/spec.h"
#include "spec/spec_source.h"
#include "target/symtab.h"
#include "target/target.h"
#include "util/diag.h"
#include "util/output.h"
#include "util/safe.h"
#include "util/systab.h"
#include "util/version.h"

uint64_t cmd_start_ns;

/* ---- a run ------------------------------------------------------------- */

typedef struct run_ctx {
	const settings *cfg;
	const resolved *res;
	const program *prog;
	const condition_set *checks;
	bpfout *out;
	bool printed;
	bool partial;		/* the last report printed was partial */
	bool write_failed;
	int checks_failed;	/* checks that held, over every report */
	bool checks_broken;
	const target *t;	/* the traced processes: t->pids */
	long pids[TARGET_MAX_PIDS];	/* the same, for the reports */
	size_t n_pids;
	uint64_t window_ns;
	uint64_t prev_end_ns;	/* end of the previous interval (bpftrace clock) */
	uint64_t stacks_unread;	/* runner_result's stacks_unread as the last
				 * report was built */
	const char *bpftrace_version;
	runner_result *rr;
	long waiting[256];	/* threads in epoll as the window began (utilization) */
	size_t n_waiting;
	report **kept;		/* -o html with -i: every interval's report, for one
				 * page at the end (owned) */
	size_t n_kept, cap_kept;
} run_ctx;

/* Whether the run so far makes the report partial, and why (in WHY). */
static bool run_is_partial(const run_ctx *ctx, bool final, char *why, size_t len)
{
	const runner_result *rr = ctx->rr;
	if (!final)
		return false;
	if (rr->forced) {
		snprintf(why, len, "interrupted twice: bpftrace was killed");
		return true;
	}
	if (rr->stop == RUNNER_STOP_TARGET && !ctx->cfg->cmd && ctx->window_ns > 0) {
		snprintf(why, len, "target pid %d exited %.2f s into a %.2f s window",
			 (int)(rr->exited_pid ? rr->exited_pid : ctx->t->pid),
			 (double)(rr->stop_mono_ns - rr->begin_mono_ns - rr->held_ns) / 1e9,
			 (double)ctx->window_ns / 1e9);
		return true;
	}
	if (rr->stop == RUNNER_STOP_NONE || rr->stop == RUNNER_STOP_TRACER) {
		if (rr->term_signal)
			snprintf(why, len, "bpftrace was killed by signal %d (%s)", rr->term_signal,
				 strsignal(rr->term_signal));
		else
			snprintf(why, len, "bpftrace stopped on its own (exit status %d)", rr->exit_code);
		return true;
	}
	return false;
}

/* Keeps REP (taking it) for the HTML page written at the end.  Returns 0,
 * or -1 when out of memory (REP is then still the caller's). */
static int keep_report(run_ctx *ctx, report *rep)
{
	if (ctx->n_kept == ctx->cap_kept) {
		size_t cap = ctx->cap_kept ? ctx->cap_kept * 2 : 64;
		report **k = realloc(ctx->kept, cap * sizeof *k);
		if (!k)
			return -1;
		ctx->kept = k;
		ctx->cap_kept = cap;
	}
	ctx->kept[ctx->n_kept++] = rep;
	return 0;
}


/* As the window begins: for utilization probes, which threads are
 * blocked in epoll (a thread that never wakes leaves no trace). */
static void on_begin(void *arg)
{
	run_ctx *ctx = arg;
	int nrs[8];
	size_t n = 0;
	bool wanted = false;

	for (size_t i = 0; i < ctx->res->n_probes; i++)
		wanted |= ctx->res->probes[i].active &&
			  kind_shape_of(ctx->res->probes[i].sp->kind)->busy;
	if (!wanted)
		return;
	for (size_t k = 0; spec_loop_waits[k] && n < sizeof nrs / sizeof *nrs; k++)
		if ((nrs[n] = systab_syscall_nr(spec_loop_waits[k])) >= 0)
			n++;
	ctx->n_waiting = 0;
	for (size_t i = 0; i < ctx->n_pids; i++)
		ctx->n_waiting += target_threads_in_syscalls((pid_t)ctx->pids[i], nrs, n,
							     ctx->waiting + ctx->n_waiting,
							     sizeof ctx->waiting / sizeof *ctx->waiting -
								     ctx->n_waiting);
	diag_verbose("%zu threads waiting in epoll as the window begins", ctx->n_waiting);
}

/* Where the report of window W (number INDEX) begins, on bpftrace's
 * clock: the run's start, or for a later interval (not cumulative) where
 * it resumed (held intervals), else at the flush before it. */
static uint64_t report_begin_ns(const run_ctx *ctx, const bpfout_window *w, size_t index)
{
	uint64_t begin = ctx->rr->begin_trace_ns ? ctx->rr->begin_trace_ns : ctx->rr->begin_mono_ns;

	if (index > 0 && !ctx->cfg->cumulative && w && w->begin_ns)
		begin = w->begin_ns;
	else if (index > 0 && !ctx->cfg->cumulative && ctx->prev_end_ns)
		begin = ctx->prev_end_ns;
	return begin;
}

/* Adds to REP the warnings of the run so far (INFO: what REP was built
 * with): probes that did not attach (also said on stderr before the
 * first report), stack samples lost since the last report, and
 * bpftrace's notes but lost events. */
static void add_run_warnings(run_ctx *ctx, report *rep, const report_run *info)
{
	if (info->attached_probes >= 0 && info->attached_probes < info->expected_probes) {
		char msg[160];
		snprintf(msg, sizeof msg, "only %ld of %ld probes attached: some figures are missing",
			 info->attached_probes, info->expected_probes);
		report_add_warning(rep, msg);
		if (!ctx->printed)
			diag_warn("%s", msg);
	}
	if (ctx->rr->stacks_unread > ctx->stacks_unread) {
		char msg[200];
		snprintf(msg, sizeof msg, "%llu stack samples could not be read (bpftrace: \"failed to "
			 "look up stack id\"): the stacks shown leave them out",
			 (unsigned long long)(ctx->rr->stacks_unread - ctx->stacks_unread));
		ctx->stacks_unread = ctx->rr->stacks_unread;
		report_add_warning(rep, msg);
	}
	/* Lost events are one total (lost_events, one warning in the text
	 * view), not one warning per record bpftrace printed. */
	for (size_t i = 0; i < bpfout_note_count(ctx->out); i++)
		if (!strstr(bpfout_note_at(ctx->out, i), ": bpftrace lost "))
			report_add_warning(rep, bpfout_note_at(ctx->out, i));
}

/* Writes REP, report number INDEX, in the run's outputs; with a whole
 * output (-o html) and intervals, keeps it (*KEPT: ctx->kept owns it)
 * and writes every kept report at the FINAL one.  Returns 0, or -1 after
 * a message (ctx->write_failed set). */
static int write_report(run_ctx *ctx, report *rep, size_t index, bool final, bool *kept)
{
	int rc = 0;
	const report *const *page = (const report *const *)&rep;
	size_t n_page = 1;

	*kept = ctx->cfg->format->whole && ctx->cfg->interval_ns;
	if (*kept) {
		/* One file at the end: a heatmap column, or the slices, of each
		 * interval. */
		if (keep_report(ctx, rep) < 0) {
			diag_error(NULL, "out of memory keeping interval %zu for the %s", index + 1,
				   ctx->cfg->format->what);
			*kept = false;
			rc = -1;
		} else {
			page = (const report *const *)ctx->kept;
			n_page = ctx->n_kept;
		}
	}
	if (rc == 0 && (!*kept || final))
		rc = write_reports(ctx->cfg, page, n_page, ctx->cfg->interval_ns != 0, index, final);
	if (rc < 0)
		ctx->write_failed = true;
	return rc;
}

/* Runs the spec's checks on REP, report number INDEX, and counts them
 * into ctx->checks_failed (or marks ctx->checks_broken). */
static void check_report(run_ctx *ctx, const report *rep, size_t index)
{
	char label[48] = "";

	if (!ctx->checks->n)
		return;
	if (ctx->cfg->interval_ns)
		snprintf(label, sizeof label, " (interval %zu)", index + 1);
	int r = run_checks(ctx->checks, NULL, rep, label);
	if (r < 0)
		ctx->checks_broken = true;
	else
		ctx->checks_failed += r;
}

/* Builds the report of window W (number INDEX; FINAL: the run's last),
 * writes it and runs the checks on it.  Returns 0, or -1 when it could
 * not be built or written (said). */
static int emit_report(run_ctx *ctx, const bpfout_window *w, size_t index, bool final)
{
	char why[256] = "";
	bool partial = run_is_partial(ctx, final, why, sizeof why);
	uint64_t begin = report_begin_ns(ctx, w, index);
	report_run info = {
		.pid = ctx->n_pids ? ctx->pids[0] : 0,
		.pids = ctx->pids,
		.n_pids = ctx->n_pids,
		.bpftrace_version = ctx->bpftrace_version,
		.cumulative = ctx->cfg->cumulative,
		.slice_min_ns = ctx->cfg->format->slices ? ctx->cfg->trace_threshold_ns : 0,
		.partial = partial,
		.partial_reason = partial ? why : NULL,
		.attached_probes = bpfout_attached(ctx->out),
		.expected_probes = ctx->prog->expected_attach,
		.lost_events = bpfout_lost_events(ctx->out),
		.begin_ns = begin,
		/* Dated with the clocks' offset as the window began: a long
		 * window with the wall clock slewed or stepped keeps its start. */
		.realtime_offset_ns = ctx->rr->begin_realtime_offset_ns ? ctx->rr->begin_realtime_offset_ns
									: runner_clock_offset_ns(),
		.stop_ns = final ? ctx->rr->stop_mono_ns : 0,
		.waiting_tids = ctx->waiting,
		.n_waiting = ctx->n_waiting,
	};
	if (w && w->end_ns)
		ctx->prev_end_ns = w->end_ns;
	report *rep = report_build(ctx->res, w, &info);
	if (!rep) {
		diag_error(NULL, "out of memory building the report");
		return -1;
	}
	add_run_warnings(ctx, rep, &info);
	bool kept;
	int rc = write_report(ctx, rep, index, final, &kept);
	check_report(ctx, rep, index);
	if (!kept)
		report_free(rep);
	ctx->printed = true;
	ctx->partial = partial;
	return rc;
}

static void on_window(void *arg, const bpfout_window *w, size_t index, bool final)
{
	emit_report(arg, w, index, final);
}

/* The traced set changed (--pids-from-stdin): the reports list it. */
static void on_pids(void *arg, pid_t pid, bool traced)
{
	run_ctx *ctx = arg;
	size_t i;
	for (i = 0; i < ctx->n_pids && ctx->pids[i] != pid; i++)
		;
	if (traced && i == ctx->n_pids && ctx->n_pids < TARGET_MAX_PIDS)
		ctx->pids[ctx->n_pids++] = pid;
	else if (!traced && i < ctx->n_pids)
		ctx->pids[i] = ctx->pids[--ctx->n_pids];
}

/* Where bpfspec's own function SYMBOL lives (the window trigger, the
 * change of the traced set), for the program's uprobe.  Returns 0 and
 * fills PATH (size LEN) and *ADDR, or -1 (without the trigger, the
 * program ends its window through bpftrace's SIGINT path). */
static int find_own_symbol(const char *symbol, char *path, size_t len, uint64_t *addr)
{
	char err[256];
	ssize_t n = readlink("/proc/self/exe", path, len - 1);
	if (n <= 0)
		return -1;
	path[n] = '\0';
	symtab_query q = { .name = symbol };
	if (symtab_resolve(path, &q, 1, NULL, err, sizeof err) < 0 || q.n_matches != 1) {
		symtab_query_free(&q, 1);
		return -1;
	}
	*addr = q.matches[0].addr;
	symtab_query_free(&q, 1);
	return 0;
}

/* The spec a command runs: a file or bundled spec, or a one-liner's. */
static spec *spec_for(const settings *cfg)
{
	char *yaml = NULL;
	const char *name = NULL;
	uint64_t d = cfg->duration_set ? cfg->duration_ns : 0;
	if (cfg->mode == MODE_LATENCY) {
		yaml = oneliner_latency(cfg->args, cfg->n_args, d);
		name = "<latency one-liner>";
	} else if (cfg->mode == MODE_SYSCALLS) {
		yaml = oneliner_syscalls(cfg->n_args ? cfg->args[0] : NULL, d);
		name = "<syscalls one-liner>";
	} else if (cfg->mode == MODE_COUNT) {
		yaml = oneliner_count(cfg->args, cfg->n_args, d);
		name = "<count one-liner>";
	} else {
		return spec_source_load(cfg->spec_arg, cfg->sets, cfg->n_sets);
	}
	if (!yaml) {
		diag_error(NULL, "out of memory");
		return NULL;
	}
	spec *s = spec_parse(name, yaml, strlen(yaml));
	if (s && cfg->emit_spec) {
		fputs(yaml, stdout);
		fflush(stdout);
	}
	free(yaml);
	return s;
}

/* One trace command (run, gen, the one-liners) as it goes through the
 * stages; trace_free releases what the stages made. */
typedef struct trace {
	settings *cfg;
	bool gen_only;		/* gen, --emit-program: print the program, run nothing */
	condition_set checks;
	spec *s;
	uint64_t window_ns;
	char *cmd_path;		/* the command's executable, with -c / -- */
	target *t;
	resolved *res;
	/* -p of several executables: the first one's processes are T, the
	 * others' MORE_T, each resolved (MORE_RES) and joined to RES; PIDS
	 * are every traced process, as -p gave them. */
	target *more_t[TARGET_MAX_PIDS];
	resolved *more_res[TARGET_MAX_PIDS];
	size_t n_more;
	pid_t pids[TARGET_MAX_PIDS];
	size_t n_pids;
	bool has_trigger;	/* bpfspec's own window-end function is probed */
	char self[PATH_MAX];
	uint64_t trigger_addr;
	uint64_t pids_addr;	/* --pids-from-stdin: runner_pids_change's */
	held_command held;
	const char *bpftrace;
	char bt_version[32];
	int bt_major, bt_minor;
	program *prog;
	bpfout *out;
} trace;

/* Stages: each returns EXIT_OK to go on, or the exit status.  Everything
 * that can be checked is checked before tracing starts. */

/* Whether -o trace has something to draw for S: a latency probe (its
 * calls) or an events probe (its records). */
static bool has_timeline(const spec *s)
{
	for (size_t i = 0; i < s->n_probes; i++)
		if (kind_shape_of(s->probes[i].kind)->timeline)
			return true;
	return false;
}

static int stage_spec(trace *tr)
{
	int rc = parse_cli_checks(tr->cfg, &tr->checks, false);
	if (rc != EXIT_OK)
		return rc;
	if (!(tr->s = spec_for(tr->cfg)))
		return EXIT_SPEC;
	if (tr->cfg->emit_spec)
		return ferror(stdout) ? EXIT_OUTPUT : EXIT_DONE;
	if (add_spec_checks(tr->s, &tr->checks) < 0)
		return EXIT_SPEC;
	if (tr->cfg->format->needs_timeline && !has_timeline(tr->s)) {
		diag_error("-o trace draws the calls of latency probes and the records of events "
			   "probes; add one (a syscalls probe's slow calls: an events probe on the "
			   "same syscalls with a threshold), or use -o html for histograms over time",
			   "spec '%s' has no latency or events probe: its trace would hold no slice",
			   tr->s->name ? tr->s->name : "?");
		return EXIT_USAGE;
	}
	if (tr->cfg->format->needs_stacks && !tr->s->stack_ns) {
		diag_error("-o folded writes the stacks a spec samples inside slow attributed phases; "
			   "use a spec with 'stacks' (the bundled loop-why has it)",
			   "spec '%s' samples no stacks", tr->s->name ? tr->s->name : "?");
		return EXIT_USAGE;
	}
	tr->window_ns = tr->cfg->duration_set ? tr->cfg->duration_ns : tr->s->duration_ns;
	if (tr->cfg->interval_ns && !tr->cfg->duration_set)
		tr->window_ns = 0;	/* -i without -d: until -n, Ctrl-C or target exit */
	return EXIT_OK;
}

/* The targets of -p: one per executable, in the order -p first names
 * them.  Returns EXIT_OK or EXIT_TARGET (said). */
static int targets_of_pids(trace *tr)
{
	const settings *cfg = tr->cfg;
	size_t group[TARGET_MAX_PIDS];
	size_t n_exes = target_group_by_exe(cfg->pids, cfg->n_pids, group);
	if (n_exes == 0)
		return EXIT_TARGET;
	for (size_t g = 0; g < n_exes; g++) {
		pid_t mine[TARGET_MAX_PIDS];
		size_t n = 0;
		for (size_t i = 0; i < cfg->n_pids; i++)
			if (group[i] == g)
				mine[n++] = cfg->pids[i];
		target *t = target_from_pids(mine, n);
		if (!t)
			return EXIT_TARGET;
		if (g == 0)
			tr->t = t;
		else
			tr->more_t[tr->n_more++] = t;
	}
	if (n_exes > 1)
		diag_verbose("%zu processes of %zu executables, traced by one program",
			     cfg->n_pids, n_exes);
	return EXIT_OK;
}

static int stage_target(trace *tr)
{
	const settings *cfg = tr->cfg;
	if (cfg->n_pids > 0) {
		int rc = targets_of_pids(tr);
		if (rc == EXIT_OK) {	/* 1 to TARGET_MAX_PIDS of them */
			memcpy(tr->pids, cfg->pids, cfg->n_pids * sizeof *tr->pids);
			tr->n_pids = cfg->n_pids;
		}
		return rc;
	} else if (cfg->binary)
		tr->t = target_from_path(cfg->binary);
	else if (cfg->cmd && (tr->cmd_path = target_find_executable(cfg->cmd[0])))
		tr->t = target_from_path(tr->cmd_path);
	else if (!cfg->cmd) {
		diag_error("give -p PID or --binary PATH", "no target to resolve symbols in");
		return EXIT_USAGE;
	}
	if (!tr->t)
		return EXIT_TARGET;
	tr->pids[0] = tr->t->pid;
	tr->n_pids = tr->t->n_pids;
	return EXIT_OK;
}

/* Takes the processes of T out of TR's pids, saying so: the spec cannot
 * trace their executable (resolve_spec said why). */
static void leave_out(trace *tr, const target *t)
{
	size_t kept = 0;
	for (size_t i = 0; i < tr->n_pids; i++) {
		bool gone = false;
		for (size_t k = 0; k < t->n_pids; k++)
			gone |= tr->pids[i] == t->pids[k];
		if (!gone)
			tr->pids[kept++] = tr->pids[i];
	}
	tr->n_pids = kept;
	diag_warn("the %zu process%s of %s (pid %d%s) %s left out: the spec cannot trace "
		  "that executable (said above); the others are traced", t->n_pids,
		  t->n_pids == 1 ? "" : "es", t->exe, (int)t->pid, t->n_pids > 1 ? ", ..." : "",
		  t->n_pids == 1 ? "is" : "are");
}

/* The spec in each executable's processes.  With several, one the spec
 * cannot trace is left out (the others are not untraced for it: serve
 * gives a target's every process), and the others join the first that it
 * can trace (resolve_join), which becomes T. */
static int stage_resolve(trace *tr)
{
	for (size_t k = 0; k <= tr->n_more; k++) {
		target *t = k ? tr->more_t[k - 1] : tr->t;
		resolved *r = resolve_spec(tr->s, t);
		if (!r && tr->n_more == 0)
			return EXIT_TARGET;
		if (!r) {
			leave_out(tr, t);
		} else if (!tr->res) {
			tr->res = r;
			if (k) {	/* the first traceable one leads */
				tr->more_t[k - 1] = tr->t;
				tr->t = t;
			}
		} else {
			tr->more_res[k - 1] = r;
		}
	}
	if (!tr->res)
		return EXIT_TARGET;
	for (size_t k = 0; k < tr->n_more; k++)
		if (tr->more_res[k] && resolve_join(tr->res, tr->more_res[k]) < 0)
			return EXIT_TARGET;
	if (!tr->gen_only && resolve_check_tracepoints(tr->res) < 0)
		return EXIT_TARGET;
	return EXIT_OK;
}

/* The window ends through bpfspec's own function when its symbol is
 * readable; the command (-c, --) is started and held for the probes. */
static int stage_prepare(trace *tr)
{
	const settings *cfg = tr->cfg;
	if (tr->gen_only)
		return EXIT_OK;
	tr->has_trigger = find_own_symbol(RUNNER_TRIGGER_SYMBOL, tr->self, sizeof tr->self,
					  &tr->trigger_addr) == 0;
	if (!tr->has_trigger)
		diag_verbose("bpfspec's own symbol table is unavailable: windows end through "
			     "SIGINT, after bpftrace detaches");
	if (cfg->interval_ns && !tr->has_trigger) {
		diag_error("reinstall bpfspec unstripped (make install keeps its symbols)",
			   "-i needs bpfspec's own symbol %s, which this binary lacks",
			   RUNNER_TRIGGER_SYMBOL);
		return EXIT_TARGET;
	}
	if (cfg->pids_from_stdin &&
	    (!tr->has_trigger || find_own_symbol(RUNNER_PIDS_SYMBOL, tr->self, sizeof tr->self,
						 &tr->pids_addr) < 0)) {
		diag_error("reinstall bpfspec unstripped (make install keeps its symbols)",
			   "--pids-from-stdin needs bpfspec's own symbol %s, which this binary "
			   "lacks", RUNNER_PIDS_SYMBOL);
		return EXIT_TARGET;
	}
	if (cfg->cmd) {
		if (runner_hold_command(tr->cmd_path, cfg->cmd, &tr->held) < 0)
			return EXIT_TARGET;
		target_set_pid(tr->t, tr->held.pid);
		tr->pids[0] = tr->held.pid;
		tr->n_pids = 1;
	}
	return EXIT_OK;
}

/* The program, in the dialect of the bpftrace that will run it (gen:
 * the one run would start, or --bpftrace-version; none found: 0.17's). */
static int stage_program(trace *tr)
{
	const settings *cfg = tr->cfg;
	bool remembered;
	tr->bpftrace = getenv("BPFSPEC_BPFTRACE");
	if (!tr->bpftrace || !*tr->bpftrace)
		tr->bpftrace = "bpftrace";
	if (cfg->bpftrace_major || cfg->bpftrace_minor) {
		tr->bt_major = cfg->bpftrace_major;
		tr->bt_minor = cfg->bpftrace_minor;
	} else if (btversion_get(tr->bpftrace, tr->bt_version, sizeof tr->bt_version,
				 &tr->bt_major, &tr->bt_minor, &remembered) == 0) {
		diag_verbose("bpftrace %s%s", tr->bt_version,
			     remembered ? " (remembered from an earlier run)" : "");
		/* Older ones lack what the programs use (and bpfspec has never
		 * run on them): say so before their parse errors would. */
		if (tr->bt_major == 0 && tr->bt_minor < 17 && !tr->gen_only) {
			diag_error("install bpftrace 0.17 or later (0.17, 0.23 and 0.27 are tested), "
				   "or point BPFSPEC_BPFTRACE at one; scripts/matrix/bpftrace-root.sh "
				   "makes one from Debian's packages without touching the host's",
				   "%s is bpftrace %s, older than 0.17, the oldest bpfspec runs on",
				   tr->bpftrace, tr->bt_version);
			return EXIT_TRACER;
		}
	}
	if (!tr->gen_only && tr->n_pids > 1 && tr->s->stack_ns &&
	    !runner_stacks_per_process(tr->bt_major, tr->bt_minor)) {
		diag_error("trace one process per run (or run bpftrace 0.20 or later: "
			   "BPFSPEC_BPFTRACE)",
			   "spec '%s' samples stacks, and bpftrace %s names the frames of every "
			   "process of one executable with the symbols of the first: %zu processes "
			   "cannot be traced in one run",
			   tr->s->name ? tr->s->name : "?", tr->bt_version[0] ? tr->bt_version : "?",
			   tr->n_pids);
		return EXIT_TRACER;
	}
	gen_options go = {
		.pids = tr->pids,
		.n_pids = tr->n_pids,
		.window_ns = cfg->interval_ns && tr->gen_only ? cfg->interval_ns : tr->window_ns,
		.trigger_path = tr->has_trigger ? tr->self : NULL,
		.trigger_addr = tr->trigger_addr,
		.trigger_pid = getpid(),
		.pids_addr = tr->pids_addr,
		.cumulative = cfg->cumulative,
		.bpftrace_major = tr->bt_major,
		.bpftrace_minor = tr->bt_minor,
		.slice_min_ns = cfg->format->slices ? cfg->trace_threshold_ns : 0,
	};
	if (!(tr->prog = gen_program(tr->res, &go)))
		return EXIT_SPEC;
	if (!tr->gen_only)
		return EXIT_OK;
	if (fputs(tr->prog->text, stdout) < 0 || fflush(stdout) != 0) {
		diag_error(NULL, "cannot write the program: %s", strerror(errno));
		return EXIT_OUTPUT;
	}
	return EXIT_DONE;
}

/* Why bpftrace ended before a report could start: the exit status.
 * PID is the traced process. */
static int no_window(const runner_result *rr, pid_t pid)
{
	if (rr->interrupted) {
		diag_error(NULL, "interrupted before the probes were attached: no report");
		return EXIT_FORCED;
	}
	/* bpfspec stopped bpftrace itself (it exits 0 then): not a failure
	 * of bpftrace's, and the reason is the target's. */
	if (rr->target_exited) {
		diag_error("trace a process that runs longer than the attach (see -v for its "
			   "time), or start it with -- CMD: it is then held until every probe "
			   "is attached",
			   "pid %d exited before bpftrace had attached its probes: no report",
			   (int)pid);
		return EXIT_TARGET;
	}
	char how[64];
	if (rr->term_signal)
		snprintf(how, sizeof how, "killed by %s", strsignal(rr->term_signal));
	else
		snprintf(how, sizeof how, "exit status %d", rr->exit_code);
	diag_error(rr->error_lines ? "the lines above are bpftrace's own; `bpfspec gen` "
				     "with the same arguments shows the program"
				   : "run again with -v for details",
		   "bpftrace failed %s (%s)",
		   rr->attach_ns ? "after attaching its probes, before the window began"
				 : "before attaching its probes", how);
	return EXIT_TRACER;
}

/* Runs bpftrace with CTX (set up by stage_run) and reports each window. */
static int run_windows(trace *tr, run_ctx *ctx, runner_result *rr)
{
	const settings *cfg = tr->cfg;

	runner_opts ro = {
		.bpftrace = tr->bpftrace,
		.prog = tr->prog,
		.has_trigger = tr->has_trigger,
		.version_major = tr->bt_major,
		.version_minor = tr->bt_minor,
		.shared_probes = tr->prog->shared_probes,
		.pids = tr->pids,
		.n_pids = tr->n_pids,
		.pids_from_stdin = cfg->pids_from_stdin,
		.on_pids = on_pids,
		.held = cfg->cmd ? &tr->held : NULL,
		.window_ns = tr->window_ns,
		.interval_ns = cfg->interval_ns,
		.interval_count = cfg->interval_count,
		.out = tr->out,
		.on_window = on_window,
		.on_begin = on_begin,
		.ctx = ctx,
		.t0_ns = cmd_start_ns,
		/* Not with intervals: their reports go to the terminal as well. */
		.progress = isatty(STDERR_FILENO) && !cfg->verbose && !cfg->interval_ns &&
			    (tr->window_ns == 0 || tr->window_ns >= 2000000000ull),
	};
	diag_verbose("running bpftrace on pid %d (of %zu), window %.3f s", (int)tr->t->pid,
		     tr->n_pids, (double)tr->window_ns / 1e9);
	if (runner_run(&ro, rr) < 0)
		return EXIT_TRACER;
	if (cfg->cmd && !tr->held.reaped)
		runner_abandon(&tr->held);	/* the window ended before the command did */
	if (cfg->cmd && tr->held.reaped && WIFEXITED(tr->held.status) &&
	    WEXITSTATUS(tr->held.status) == 127)
		diag_warn("the command exited with status 127: it may not have run at all");

	if (!rr->begun)
		return no_window(rr, rr->exited_pid ? rr->exited_pid : tr->t->pid);
	if (!rr->window_done) {
		/* The final window never completed (bpftrace died): say so, and
		 * report what was printed since the last complete window. */
		if (rr->term_signal && !rr->forced)
			diag_error("the report below is partial; run again, and check the kernel "
				   "log (dmesg) if it happens again",
				   "bpftrace was killed by signal %d (%s) before the window ended",
				   rr->term_signal, strsignal(rr->term_signal));
		else if (!rr->forced)
			diag_error("the report below is partial; the lines above are bpftrace's own",
				   "bpftrace exited (status %d) before the window ended", rr->exit_code);
		const bpfout_window *w = bpfout_trailing(tr->out);
		if (!ctx->printed && bpfout_window_count(tr->out))
			w = bpfout_window_at(tr->out, 0);
		emit_report(ctx, w, rr->windows, true);
	}
	if (ctx->write_failed)
		return EXIT_OUTPUT;
	if (rr->forced)
		return EXIT_FORCED;
	if (ctx->partial)
		return rr->stop == RUNNER_STOP_TARGET ? EXIT_PARTIAL : EXIT_TRACER;
	if (ctx->checks_broken)
		return EXIT_USAGE;
	return ctx->checks_failed ? EXIT_CHECK_FAILED : EXIT_OK;
}

/* Runs bpftrace; reports are printed as windows end (on_window). */
static int stage_run(trace *tr)
{
	const settings *cfg = tr->cfg;
	if (!(tr->out = bpfout_new())) {
		diag_error(NULL, "out of memory");
		return EXIT_TRACER;
	}
	runner_result rr;
	memset(&rr, 0, sizeof rr);
	run_ctx ctx = { .cfg = cfg, .res = tr->res, .prog = tr->prog, .checks = &tr->checks,
			.out = tr->out, .t = tr->t, .window_ns = tr->window_ns, .rr = &rr,
			.bpftrace_version = tr->bt_version[0] ? tr->bt_version : NULL };
	for (size_t i = 0; i < tr->n_pids; i++)
		ctx.pids[ctx.n_pids++] = tr->pids[i];
	int rc = run_windows(tr, &ctx, &rr);
	report_stream_free(ctx.kept, ctx.n_kept);
	return rc;
}

static void trace_free(trace *tr)
{
	if (tr->held.pid > 0 && !tr->held.reaped)
		runner_abandon(&tr->held);
	condition_set_free(&tr->checks);
	bpfout_free(tr->out);
	program_free(tr->prog);
	resolved_free(tr->res);
	target_free(tr->t);
	for (size_t k = 0; k < tr->n_more; k++) {
		resolved_free(tr->more_res[k]);
		target_free(tr->more_t[k]);
	}
	spec_free(tr->s);
	free(tr->cmd_path);
}

/* run, gen and the one-liners: spec, target, symbols, program, bpftrace,
 * reports; each stage only when the ones before it went through. */
int cmd_trace(settings *cfg)
{
	trace tr = { .cfg = cfg, .gen_only = cfg->mode == MODE_GEN || cfg->emit_program,
		     .held = { .release_fd = -1 } };
	int rc = stage_spec(&tr);
	rc = rc ?: stage_target(&tr);
	rc = rc ?: stage_resolve(&tr);
	rc = rc ?: stage_prepare(&tr);
	rc = rc ?: stage_program(&tr);
	rc = rc ?: stage_run(&tr);
	trace_free(&tr);
	return rc == EXIT_DONE ? EXIT_OK : rc;
}
