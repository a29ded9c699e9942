/* serve_child — the children of `bpfspec serve` (serve_internal.h): one
 * `bpfspec run SPEC -p PID... -d 0 -i INTERVAL -o json --pids-from-stdin`
 * per slot, started without a shell, its stdout read as one JSON report
 * per line and its stderr passed on, each line prefixed with the slot's
 * spec and target; its stdin is serve's, to tell it which processes join
 * and leave (serve_churn.c).
 *
 * Restarts: a child ended by serve (one it could not tell of a change, a reload)
 * starts again at once; one that ended by itself after a traced process
 * exited (status 0, or 7 for a partial last interval, or 4 when it exited
 * before the probes attached) starts again after a new scan; any other
 * end is a failure, and the next start waits 1 s, doubling with each
 * failure in a row up to SERVE_BACKOFF_MAX_S. */
#include "serve/serve_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "render/report_load.h"
#include "util/child.h"
#include "util/diag.h"
#include "util/safe.h"
#include "util/usage.h"

#define ARGV_MAX (17 + 2 * SERVE_MAX_PIDS + 2 * SERVE_MAX_SETS)

/* "bpfspec serve: SPEC/TARGET: " then TEXT made safe, on stderr. */
static void say(const serve *sv, const serve_slot *s, const char *text)
{
	fprintf(stderr, "bpfspec serve: %s/%s: ", sv->cfg.spec_names[s->spec],
		sv->cfg.targets[s->target].name);
	safe_fputs(text, stderr);
	fputc('\n', stderr);
}

/* The words of slot S's child, into ARGV (room for ARGV_MAX), the pids'
 * text into PIDS and the interval's into INTERVAL:
 * `bpfspec run SPEC [--set ...] -p PID... -d 0 -i INTERVAL -o json
 * --pids-from-stdin`. */
static void child_argv(const serve *sv, const serve_slot *s, char **argv,
		       char pids[SERVE_MAX_PIDS][16], char interval[32])
{
	size_t n = 0;
	argv[n++] = (char *)"bpfspec";
	argv[n++] = (char *)"run";
	int spec_fd = sv->cfg.spec_fds[s->spec];
	argv[n++] = spec_fd >= 0 ? (char *)"/dev/fd/3" : (char *)sv->cfg.specs[s->spec];
	for (size_t i = 0; i < sv->cfg.n_sets; i++) {
		argv[n++] = (char *)"--set";
		argv[n++] = sv->cfg.sets[i];
	}
	for (size_t i = 0; i < s->n_pids; i++) {
		snprintf(pids[i], 16, "%d", (int)s->pids[i]);
		argv[n++] = (char *)"-p";
		argv[n++] = pids[i];
	}
	snprintf(interval, 32, "%llums", (unsigned long long)(sv->cfg.interval_ns / 1000000ull));
	const char *tail[] = { "-d", "0", "-i", interval, "-o", "json", "--pids-from-stdin" };
	for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
		argv[n++] = (char *)tail[i];
	argv[n] = NULL;
}

int serve_child_start(serve *sv, serve_slot *s)
{
	char *argv[ARGV_MAX], pids[SERVE_MAX_PIDS][16], interval[32];
	int spec_fd = sv->cfg.spec_fds[s->spec];
	child_argv(sv, s, argv, pids, interval);

	int in[2], out[2], err[2];
	if (pipe2(in, O_CLOEXEC) < 0)
		goto fail;
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		goto fail;
	}
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		goto fail;
	}
	/* This binary, even once its file was replaced (an upgrade); it
	 * gets SIGTERM when serve ends. */
	child_setup cs = { .path = "/proc/self/exe", .argv = argv, .in_fd = in[0], .out_fd = out[1],
			   .err_fd = err[1], .fd3 = spec_fd, .hold_fd = -1, .hold_writer = -1,
			   .death_signal = SIGTERM, .errno_fd = -1, .say_failure = true };
	pid_t child = child_start(&cs);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (child < 0) {
		close(in[1]);
		close(out[0]);
		close(err[0]);
		goto fail;
	}
	/* A full pipe is a child that does not read: it is restarted
	 * (serve_churn_tell), never waited for. */
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	pthread_mutex_lock(&sv->lock);
	s->in_fd = in[1];
	s->out_fd = out[0];
	s->err_fd = err[0];
	s->child = child;
	s->stopping = false;
	s->last_start_ns = serve_now_ns();
	memcpy(s->run_pids, s->pids, s->n_pids * sizeof *s->pids);
	serve_family_started(s);
	s->n_run = s->n_pids;
	s->n_left = 0;
	serve_read_pods(sv, s);
	s->starts++;
	if (s->starts > 1) {
		promstore_label l[] = { { "spec", sv->cfg.spec_names[s->spec] },
					{ "target", sv->cfg.targets[s->target].name } };
		promstore_counter_add(sv->store, "bpfspec_restarts_total",
				      "Times serve started a spec's bpftrace again on a target.", l,
				      2, 1);
	}
	pthread_mutex_unlock(&sv->lock);
	if (sv->cfg.verbose) {
		char what[128];
		snprintf(what, sizeof what, "started (pid %d) on %zu process%s", (int)child,
			 s->n_pids, s->n_pids == 1 ? "" : "es");
		say(sv, s, what);
	}
	return 0;
fail:;
	char why[160];
	snprintf(why, sizeof why, "cannot start bpfspec run: %s", strerror(errno));
	say(sv, s, why);
	pthread_mutex_lock(&sv->lock);
	s->failures++;
	s->not_before_ns = serve_now_ns() + 1000000000ull;
	pthread_mutex_unlock(&sv->lock);
	return -1;
}

void serve_child_stop(serve *sv, serve_slot *s)
{
	if (!s->child)
		return;
	uint64_t now = serve_now_ns();
	pthread_mutex_lock(&sv->lock);
	if (!s->stopping) {
		/* Asked to stop, the child is no longer up: its last report
		 * may still come, with figures, but the next data is a new
		 * child's. */
		s->stopping = true;
		s->up = false;
		s->stop_sent_ns = now;
		kill(s->child, SIGTERM);
		serve_update_gauges(sv);
	} else if (now - s->stop_sent_ns > SERVE_STOP_GRACE_NS) {
		kill(s->child, SIGKILL);
	}
	pthread_mutex_unlock(&sv->lock);
}

/* One report line from the child: added to the store. */
static void take_report(serve *sv, serve_slot *s, const char *line, size_t len)
{
	char name[160];
	snprintf(name, sizeof name, "bpfspec run %s", sv->cfg.spec_names[s->spec]);
	report *rep = report_parse_json(line, len, name);
	if (!rep) {
		say(sv, s, "a report could not be read (the line above says why): its figures "
			   "are left out");
		return;
	}
	promstore_labeler lab = serve_labeler(sv, s);
	pthread_mutex_lock(&sv->lock);
	int rc = promstore_add(sv->store, rep, &lab);
	int saved = errno;
	s->up = !s->stopping;	/* a stopping child's last report: not up */
	serve_churn_reported(s);
	s->failures = 0;
	s->attached = rep->attached_probes > 0 ? (unsigned)rep->attached_probes : 0;
	s->expected = rep->expected_probes > 0 ? (unsigned)rep->expected_probes : 0;
	serve_update_gauges(sv);
	pthread_mutex_unlock(&sv->lock);
	if (rc < 0) {
		char why[160];
		snprintf(why, sizeof why, "an interval's figures could not be added: %s",
			 strerror(saved));
		say(sv, s, why);
	}
	report_free(rep);
}

/* One stderr line of the child: passed on, the last error kept. */
static void take_error(serve *sv, serve_slot *s, const char *line)
{
	say(sv, s, line);
	if (strstr(line, "error")) {
		pthread_mutex_lock(&sv->lock);
		snprintf(s->last_error, sizeof s->last_error, "%s", line);
		pthread_mutex_unlock(&sv->lock);
	}
}

/* What serve_child_read hands a line to. */
typedef struct child_reader {
	serve *sv;
	serve_slot *s;
} child_reader;

static void on_report_line(void *ctx, const char *line, size_t len)
{
	child_reader *r = ctx;
	if (len)
		take_report(r->sv, r->s, line, len);
}

static void on_error_line(void *ctx, const char *line, size_t len)
{
	child_reader *r = ctx;
	(void)len;
	take_error(r->sv, r->s, line);
}

bool serve_child_read(serve *sv, serve_slot *s, int fd)
{
	bool is_out = fd == s->out_fd;
	child_reader r = { sv, s };
	int got;
	while ((got = line_buffer_read(is_out ? &s->out_line : &s->err_line, fd,
				       is_out ? on_report_line : on_error_line, &r, "bpfspec run")) > 0)
		;
	return got == 0;
}

/* Whether every process S's child traced still runs. */
static bool all_alive(const serve_slot *s)
{
	for (size_t i = 0; i < s->n_run; i++)
		if (kill(s->run_pids[i], 0) < 0 && errno == ESRCH)
			return false;
	return true;
}

void serve_child_ended(serve *sv, serve_slot *s, int status)
{
	if (s->in_fd >= 0) {
		close(s->in_fd);
		s->in_fd = -1;
	}
	if (s->out_fd >= 0) {
		serve_child_read(sv, s, s->out_fd);
		close(s->out_fd);
		s->out_fd = -1;
	}
	if (s->err_fd >= 0) {
		serve_child_read(sv, s, s->err_fd);
		close(s->err_fd);
		s->err_fd = -1;
	}
	child_reader r = { sv, s };
	line_buffer_flush(&s->out_line, on_report_line, &r);
	line_buffer_flush(&s->err_line, on_error_line, &r);	/* without its newline */
	line_buffer_free(&s->out_line);
	line_buffer_free(&s->err_line);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	uint64_t now = serve_now_ns(), wait_s = 0;
	pthread_mutex_lock(&sv->lock);
	bool asked = s->stopping;
	/* 0, 7 and 4 say a traced process exited, but 4 also says the
	 * target could not be traced at all: a failure, unless one of the
	 * processes is gone indeed. */
	bool target_exit = (code == EXIT_OK || code == EXIT_PARTIAL || code == EXIT_TARGET) &&
			   !all_alive(s);
	s->child = 0;
	s->up = false;
	s->stopping = false;
	if (!asked && !s->gone && target_exit) {
		/* A traced process exited: scan again, then start anew. */
		sv->rescan = true;
		s->not_before_ns = now + 1000000000ull;
	} else if (!asked && !s->gone) {
		unsigned shift = s->failures < 6 ? s->failures : 6;
		wait_s = 1ull << shift;
		if (wait_s > SERVE_BACKOFF_MAX_S)
			wait_s = SERVE_BACKOFF_MAX_S;
		s->failures++;
		s->not_before_ns = now + wait_s * 1000000000ull;
	}
	serve_update_gauges(sv);
	pthread_mutex_unlock(&sv->lock);
	if (!wait_s)
		return;
	char why[160];
	if (WIFSIGNALED(status))
		snprintf(why, sizeof why, "bpfspec run was killed by signal %d (%s); next start "
			 "in %llu s", WTERMSIG(status), strsignal(WTERMSIG(status)),
			 (unsigned long long)wait_s);
	else
		snprintf(why, sizeof why, "bpfspec run exited with status %d; next start in %llu s",
			 code, (unsigned long long)wait_s);
	say(sv, s, why);
}
