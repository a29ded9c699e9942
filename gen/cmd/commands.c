/* commands — see commands.h: diff, report, check and list, and what
 * they share with trace.c (commands_internal.h): the runbook conditions
 * and the writing of reports; the options diff and report take (cli.h). */
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

/* ---- checks ------------------------------------------------------------ */

void condition_set_free(condition_set *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		condition_free(cs->items[i]);
	cs->n = 0;
}

/* Parses the command line's --fail-if conditions (before any tracing).
 * Returns 0, or EXIT_USAGE after a message pointing into the condition. */
int parse_cli_checks(const settings *cfg, condition_set *cs, bool allow_relative)
{
	char err[256];
	for (size_t i = 0; i < cfg->n_fail_if; i++) {
		condition *c = condition_parse(cfg->fail_if[i], err, sizeof err);
		if (!c)
			return usage_error("--fail-if '%s': %s", cfg->fail_if[i], err);
		if (condition_is_relative(c) && !allow_relative) {
			condition_free(c);
			return usage_error("--fail-if '%s': a relative change (+N%%) needs two "
					   "reports: use it with `bpfspec diff`", cfg->fail_if[i]);
		}
		cs->items[cs->n++] = c;
	}
	return EXIT_OK;
}

/* Adds the spec's own checks (already validated by the loader). */
int add_spec_checks(const spec *s, condition_set *cs)
{
	char err[256];
	for (size_t i = 0; i < s->n_checks && cs->n < 2 * MAX_CHECKS; i++) {
		condition *c = condition_parse(s->checks[i], err, sizeof err);
		if (!c) {
			diag_error(NULL, "%s: check '%s': %s", s->path, s->checks[i], err);
			return -1;
		}
		cs->items[cs->n++] = c;
	}
	return 0;
}

/* Evaluates every check; prints each failing one.  BEFORE non-NULL:
 * diff mode.  Returns the number that failed, or -1 when one could not be
 * evaluated (also printed: a check that names nothing is a mistake). */
int run_checks(const condition_set *cs, const report *before, const report *after,
	       const char *label)
{
	int failed = 0, broken = 0;
	for (size_t i = 0; i < cs->n; i++) {
		char why[512];
		int r = before ? condition_eval_diff(cs->items[i], before, after, why, sizeof why)
			       : condition_eval(cs->items[i], after, why, sizeof why);
		if (r == 1) {
			fprintf(stderr, "bpfspec: check failed%s: ", label);
			safe_fputs(why, stderr);
			fputc('\n', stderr);
			failed++;
		} else if (r < 0) {
			diag_error(NULL, "check '%s' cannot be evaluated: %s", condition_text(cs->items[i]),
				   why);
			broken++;
		} else {
			diag_verbose("check passed%s: %s", label, why);
		}
	}
	return broken ? -1 : failed;
}

/* ---- writing reports --------------------------------------------------- */

int write_reports(const settings *cfg, const report *const *reps, size_t n, bool stream,
		  size_t index, bool final)
{
	output *o = output_open(cfg->output_path);
	if (!o)
		return -1;
	FILE *f = output_stream(o);
	int rc = 0;
	if (cfg->format->whole)
		rc = cfg->format->whole(f, reps, n);
	for (size_t i = 0; !cfg->format->whole && i < n && rc == 0; i++) {
		if (stream && cfg->format->interval_headers && !cfg->output_path) {
			/* Live: when it is printed; read back: when it began. */
			time_t when = cfg->mode == MODE_REPORT && reps[i]->start_unix_ns
					      ? (time_t)(reps[i]->start_unix_ns / 1000000000ull)
					      : time(NULL);
			struct tm tmv;
			char stamp[32];
			strftime(stamp, sizeof stamp, "%H:%M:%S", localtime_r(&when, &tmv));
			fprintf(f, "%s--- %s interval %zu%s ---\n", index + i ? "\n" : "", stamp,
				index + i + 1, final && i + 1 == n ? " (last)" : "");
		}
		rc = cfg->format->one(f, reps[i], stream);
	}
	if (rc == 0)
		return output_commit(o);
	int e = errno;
	if (cfg->output_path)
		diag_error("check free space on that file system (df); the file was left unchanged",
			   "cannot write '%s': %s", cfg->output_path, e ? strerror(e) : "out of memory");
	else
		diag_error("check the disk or the pipe standard output goes to",
			   "cannot write the report: %s", e ? strerror(e) : "out of memory");
	output_abort(o);
	return -1;
}


int cmd_diff(settings *cfg)
{
	condition_set checks = { .n = 0 };
	int rc = parse_cli_checks(cfg, &checks, true);
	report *before = NULL, *after = NULL;
	if (rc != EXIT_OK)
		goto done;
	rc = EXIT_SPEC;
	if (!(before = report_load_json(cfg->args[0])) || !(after = report_load_json(cfg->args[1])))
		goto done;
	rc = EXIT_OK;
	output *o = output_open(cfg->output_path);
	if (!o || diff_render(output_stream(o), before, after,
			      strcmp(cfg->format->name, "json") == 0 ? DIFF_JSON : DIFF_TEXT) < 0) {
		if (o)
			output_abort(o);
		diag_error(NULL, "cannot write the comparison: %s", strerror(errno));
		rc = EXIT_OUTPUT;
		goto done;
	}
	if (output_commit(o) < 0) {
		rc = EXIT_OUTPUT;
		goto done;
	}
	int r = run_checks(&checks, before, after, "");
	rc = r < 0 ? EXIT_USAGE : r > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
done:
	condition_set_free(&checks);
	report_free(before);
	report_free(after);
	return rc;
}

/* `bpfspec report FILE`: a saved report or -i stream, rendered again. */
int cmd_report(settings *cfg)
{
	size_t n;
	report **reps = report_load_stream(cfg->args[0], &n);
	if (!reps)
		return EXIT_SPEC;
	int rc = EXIT_OK;
	if (n > 1 && cfg->format->one_report) {
		diag_error("pick one report: `tail -n 1 FILE | bpfspec report - -o prom` (the "
			   "last interval)",
			   "%s holds %zu reports: Prometheus output holds one scrape",
			   cfg->args[0], n);
		report_stream_free(reps, n);
		return EXIT_USAGE;
	}
	if (cfg->format->needs_stacks && n && !reps[0]->stack_ns) {
		diag_error("-o folded writes the stacks of a run whose spec has 'stacks' (the "
			   "bundled loop-why has it); run one with -o json --output FILE",
			   "%s has no sampled stacks: its spec '%s' did not sample any",
			   cfg->args[0], reps[0]->spec_name ? reps[0]->spec_name : "?");
		report_stream_free(reps, n);
		return EXIT_USAGE;
	}
	/* A stream read back is written as it was: json a line per report,
	 * text a section per interval, html one page. */
	if (write_reports(cfg, (const report *const *)reps, n, n > 1, 0, true) < 0)
		rc = EXIT_OUTPUT;
	report_stream_free(reps, n);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	char *sets[MAX_SETS];
	size_t n_sets = 0;
	int rc = EXIT_OK, n_specs = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(cli_help(MODE_CHECK), stdout);
			return EXIT_OK;
		}
		const char *v = strncmp(argv[i], "--set=", 6) == 0 ? argv[i] + 6 : NULL;
		if (!v && strcmp(argv[i], "--set") == 0) {
			if (i + 1 == argc)
				return usage_error("%s", "--set needs NAME=VALUE");
			v = argv[++i];
		}
		if (!v)
			continue;
		if (n_sets == MAX_SETS)
			return usage_error("at most %d --set options", MAX_SETS);
		sets[n_sets++] = (char *)v;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--set") == 0) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--set=", 6) == 0)
			continue;
		n_specs++;
		spec *s = spec_source_load(argv[i], sets, n_sets);
		if (!s) {
			rc = EXIT_SPEC;
			continue;
		}
		safe_fputs(argv[i], stdout);
		printf(": ok (%zu probe%s", s->n_probes, s->n_probes == 1 ? "" : "s");
		for (size_t k = 0; k < s->n_params; k++) {
			fputs(k ? ", " : "; ", stdout);
			safe_fputs(s->params[k].name, stdout);
			fputc('=', stdout);
			safe_fputs(s->params[k].value, stdout);
		}
		printf(")\n");
		spec_free(s);
	}
	if (n_specs == 0)
		return usage_error("%s: check needs at least one SPEC", "missing argument");
	return rc;
}

int cmd_list(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		fputs(cli_help(MODE_LIST), stdout);
		return EXIT_OK;
	}
	if (argc > 1)
		return usage_error("unexpected argument '%s'", argv[1]);
	for (size_t i = 0; i < embedded_count; i++) {
		const char *p = embedded_files[i].path;
		if (strncmp(p, "specs/", 6) != 0)
			continue;
		spec *s = spec_parse(p, embedded_files[i].data, embedded_files[i].len);
		if (!s)
			continue;
		printf("%-20s %s\n", s->name, s->description ? s->description : "");
		for (size_t k = 0; k < s->n_params; k++)
			printf("%-20s   --set %s=%s%s%s\n", "", s->params[k].name, s->params[k].value,
			       s->params[k].description ? "  " : "",
			       s->params[k].description ? s->params[k].description : "");
		spec_free(s);
	}
	return EXIT_OK;
}

/* ---- the options of diff and report ------------------------------------ */

/* diff BEFORE.json AFTER.json: -o text|json, --fail-if (relative ones
 * too), --output.  It takes the tracing options as well, and ignores
 * them, as it always has. */
static const cli_opt diff_takes[] = {
	OPT_PID, OPT_COMMAND, OPT_DURATION, OPT_INTERVAL, OPT_COUNT, OPT_CUMULATIVE,
	OPT_OUTPUT_FORMAT, OPT_OUTPUT, OPT_FAIL_IF, OPT_EMIT_SPEC, OPT_EMIT_PROGRAM,
	OPT_BINARY, OPT_SET, OPT_DEBUG_DIR, OPT_BPFTRACE_VERSION, OPT_TRACE_THRESHOLD,
	OPT_VERBOSE, OPT_HELP, OPT_END,
};

/* report FILE: -o and --output; the options of a printed program are
 * taken and ignored, as they always have been. */
static const cli_opt report_takes[] = {
	OPT_OUTPUT_FORMAT, OPT_OUTPUT,
	OPT_EMIT_SPEC, OPT_EMIT_PROGRAM, OPT_BPFTRACE_VERSION,
	OPT_DEBUG_DIR, OPT_VERBOSE, OPT_HELP, OPT_END,
};

/* What report says of any other option, and of -- CMD. */
static const char report_refusal[] = "report takes FILE, -o and --output only: it renders a "
				     "saved report, it traces nothing";

static int diff_arguments(settings *cfg)
{
	if (cfg->n_args != 2)
		return usage_error("%s: diff takes BEFORE.json AFTER.json", "arguments");
	return EXIT_OK;
}

static int diff_check(settings *cfg)
{
	if (!cfg->format->diff)
		return usage_error("%s", "diff writes text or json (-o text|json)");
	return EXIT_OK;
}

static int report_arguments(settings *cfg)
{
	if (cfg->n_args != 1)
		return usage_error("%s: report takes one FILE (a JSON report or an NDJSON "
				   "stream; - for standard input)", "arguments");
	return EXIT_OK;
}

static int report_check(settings *cfg)
{
	if (cfg->cmd)
		return usage_error("%s", report_refusal);
	if (cfg->format->not_from_saved)
		return usage_error("%s", cfg->format->not_from_saved);
	return EXIT_OK;
}

const cli_command cmd_diff_cli = {
	.mode = MODE_DIFF, .options = diff_takes, .arguments = diff_arguments, .check = diff_check,
};
const cli_command cmd_report_cli = {
	.mode = MODE_REPORT, .options = report_takes, .refusal = report_refusal,
	.arguments = report_arguments, .check = report_check,
};
