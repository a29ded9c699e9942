/* promstore_fixture.h — what test_promstore.c builds stores from: a
 * realistic interval of every probe kind (a Node.js process, pid 100:
 * main thread, a worker_thread's loop 105, two libuv pool threads, a
 * probe not attached), a labeler, running promtool on a text, and the
 * checks of a text that promtool does not make.
 * Header-only (static), so the test stays one file that make builds. */
#ifndef BPFSPEC_PROMSTORE_FIXTURE_H
#define BPFSPEC_PROMSTORE_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/report.h"
#include "serve/promstore.h"
#include "util/safe.h"

#define S(x) ((char *)(x))

/* [3670016, 3801088) and [3801088, 3932160): both under 2^22 ns. */
static report_bucket fx_timer_main_b[] = { { 3670016, 3801088, 3 }, { 3801088, 3932160, 2 } };
/* [8, 9) under 2^10 ns; [1024, 1088) under 2^11 ns; [2^36, +) past the last bound. */
static report_bucket fx_timer_worker_b[] = { { 8, 9, 1 }, { 1024, 1088, 4 },
					     { 68719476736ull, 73014444032ull, 1 } };
static report_group fx_timers[] = {
	{ .tid = 100, .thread = S("node"),
	  .st = { .count = 5, .sum_ns = 18800000, .buckets = fx_timer_main_b, .n_buckets = 2 } },
	{ .tid = 105, .thread = S("node"),
	  .st = { .count = 6, .sum_ns = 68719481000ull, .buckets = fx_timer_worker_b,
		  .n_buckets = 3 } },
};

static report_bucket fx_poll_b[] = { { 1048576, 1114112, 4 } };
static report_why_syscall fx_poll_sys[] = {
	{ S("epoll_wait"), 232, 5, 3000000, 2900000 },
	{ S("read"), 0, 2, 1000, 0 },
};
/* Its parts add up to the group's sum_ns, as a report's do. */
static report_split fx_poll_split = { .cpu_ns = 1000000, .wait_ns = 200000, .blocked_ns = 2900000,
				      .other_ns = 100000, .syscalls = fx_poll_sys, .n_syscalls = 2 };
static report_group fx_poll[] = {
	{ .tid = 100, .thread = S("node"),
	  .st = { .count = 4, .sum_ns = 4200000, .buckets = fx_poll_b, .n_buckets = 1 },
	  .split = &fx_poll_split },
};

static report_bucket fx_openat_b[] = { { 8192, 8704, 3 }, { 3932160, 4194304, 2 } };
static report_errno fx_openat_err[] = { { S("ENOENT"), 2, 2 }, { S("EACCES"), 13, 1 } };
static report_group fx_openat_thr[] = {
	{ .tid = 100, .thread = S("node"), .st = { .count = 1, .sum_ns = 9000 } },
	{ .tid = 101, .thread = S("libuv-worker"), .st = { .count = 2, .sum_ns = 4000000 } },
	{ .tid = 102, .thread = S("libuv-worker"), .st = { .count = 2, .sum_ns = 4100000 } },
};
static report_syscall fx_sys[] = {
	{ .name = S("openat"), .nr = 257,
	  .st = { .count = 5, .sum_ns = 8109000, .buckets = fx_openat_b, .n_buckets = 2 },
	  .errors = fx_openat_err, .n_errors = 2, .error_count = 3, .threads = fx_openat_thr,
	  .n_threads = 3 },
};

static report_group fx_hits[] = {
	{ .tid = 100, .thread = S("node"), .st = { .count = 7 } },
	{ .tid = 101, .thread = S("libuv-worker"), .st = { .count = 3 } },
	{ .tid = 102, .thread = S("libuv-worker"), .st = { .count = 4 } },
};

static report_group fx_loop[] = {
	{ .tid = 100, .thread = S("node"), .idle_ns = 500000000, .busy_ns = 1500000000 },
	{ .tid = 105, .thread = S("node"), .idle_ns = 1800000000, .busy_ns = 200000000 },
};

static report_probe fx_probes[] = {
	{ .name = S("timers"), .kind = PROBE_LATENCY, .function = S("uv__run_timers"),
	  .attached = true, .groups = fx_timers, .n_groups = 2 },
	{ .name = S("poll"), .kind = PROBE_LATENCY, .function = S("uv__io_poll"), .attached = true,
	  .attributed = true, .groups = fx_poll, .n_groups = 1 },
	{ .name = S("gone"), .kind = PROBE_LATENCY, .function = S("uv__run_pending"),
	  .attached = false, .reason = S("inlined") },
	{ .name = S("files"), .kind = PROBE_SYSCALLS, .attached = true, .syscalls = fx_sys,
	  .n_syscalls = 1 },
	{ .name = S("gc"), .kind = PROBE_COUNT, .probe = S("usdt:node:gc__start"), .attached = true,
	  .groups = fx_hits, .n_groups = 3 },
	{ .name = S("loop"), .kind = PROBE_UTILIZATION, .attached = true, .groups = fx_loop,
	  .n_groups = 2 },
	{ .name = S("slow"), .kind = PROBE_EVENTS, .attached = true, .st = { .count = 4 },
	  .events_dropped = 1 },
};

static const report fx_rich = {
	.spec_name = S("loop-why"), .pid = 100, .binary = S("/usr/bin/node"),
	.duration_ns = 2000000000, .lost_events = 1, .probes = fx_probes,
	.n_probes = sizeof fx_probes / sizeof *fx_probes, .attributed = true, .blockers_dropped = 2,
};

/* ---- a labeler ----------------------------------------------------------- */

typedef struct fx_labeler {
	const char *target, *k8s_namespace, *pod, *container;
	long pid;
	long skip_tid;	/* this tid: left out (1) */
	int fail;	/* return -1 */
	int bad_role;	/* give an out-of-range role */
	int calls;
} fx_labeler;

static inline int fx_labels(void *ctx, const report *rep, long tid, const char *thread,
		     promstore_labelset *out)
{
	fx_labeler *c = ctx;
	c->calls++;
	if (c->fail)
		return -1;
	if (tid == c->skip_tid)
		return 1;
	out->target = c->target;
	out->k8s_namespace = c->k8s_namespace;
	out->pod = c->pod;
	out->container = c->container;
	out->pid = c->pid;
	out->role = c->bad_role ? (promstore_role)9 : promstore_node_role(rep, tid, thread);
	return 0;
}

/* ---- output ------------------------------------------------------------ */

/* PS rendered (owned). */
static inline char *fx_render(const promstore *ps)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(promstore_render(ps, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

/* Runs `promtool check metrics` with TEXT on a pipe to its stdin; its
 * stdout and stderr go to *OUTPUT (owned).  Returns its exit status, or
 * 127 when it could not be run. */
static inline int fx_promtool(const char *text, char **output)
{
	int in[2];
	FILE *log = tmpfile();
	ck_assert_ptr_nonnull(log);
	ck_assert_int_eq(pipe(in), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(fileno(log), 1);
		dup2(fileno(log), 2);
		close(in[0]);
		close(in[1]);
		char *const argv[] = { S("promtool"), S("check"), S("metrics"), NULL };
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	signal(SIGPIPE, SIG_IGN);	/* promtool may stop reading early */
	size_t len = strlen(text);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(in[1], text + off, len - off);
		if (n <= 0)
			break;	/* promtool stopped reading: its status says why */
		off += (size_t)n;
	}
	close(in[1]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	long size = ftell(log);
	ck_assert_int_ge(size, 0);
	*output = calloc(1, (size_t)size + 1);
	rewind(log);
	ck_assert_uint_eq(fread(*output, 1, (size_t)size, log), (size_t)size);
	fclose(log);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* ---- checks --------------------------------------------------------------- */

static inline int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

#define ck_assert_line(text, line) \
	ck_assert_msg(has_line((text), (line)), "expected line\n%s\nin:\n%.1500s", (line), (text))

/* Checks what promtool does not, on every series of TEXT: no series
 * twice, buckets rising with le and cumulative, +Inf == _count; and that
 * every line is a comment or a sample of the family of the TYPE line
 * before it, families and series in sorted order. */
static inline void assert_well_formed(const char *text)
{
	char family[128] = "", last_key[4096] = "", type[16] = "";
	char prev_family[128] = "";
	unsigned long long last_count = 0, inf = 0;

	ck_assert(safe_utf8_valid(text, strlen(text)));
	for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
		size_t len = strcspn(line, "\n");
		ck_assert_msg(line[len] == '\n', "unterminated line");
		for (size_t i = 0; i < len; i++)
			ck_assert_msg((unsigned char)line[i] >= 0x20, "control byte in %.*s", (int)len, line);
		if (strncmp(line, "# TYPE ", 7) == 0) {
			ck_assert_int_eq(sscanf(line + 7, "%127s %15s", family, type), 2);
			ck_assert_msg(strcmp(prev_family, family) < 0, "%s after %s", family, prev_family);
			snprintf(prev_family, sizeof prev_family, "%s", family);
			last_key[0] = '\0';
			continue;
		}
		if (line[0] == '#')
			continue;
		size_t fl = strlen(family);
		ck_assert_msg(fl && strncmp(line, family, fl) == 0, "%.*s outside %s", (int)len, line, family);
		/* NAME[SUFFIX][{KEY}] VALUE: the value holds no space, a key may. */
		const char *suffix = line + fl, *sp = line + len;
		while (sp > line && *sp != ' ')
			sp--;
		const char *brace = memchr(line, '{', (size_t)(sp - line));
		unsigned long long v = strtoull(sp + 1, NULL, 10);
		char key[4096] = "";
		if (brace) {
			ck_assert_msg(sp[-1] == '}', "%.*s", (int)len, line);
			snprintf(key, sizeof key, "%.*s", (int)(sp - brace - 2), brace + 1);
		}
		if (strncmp(suffix, "_bucket{", 8) == 0) {
			char *le = strstr(key, ",le=\"");
			ck_assert_ptr_nonnull(le);
			bool first = strcmp(le, ",le=\"0.000001024\"") == 0;
			*le = '\0';
			if (!first) {
				ck_assert_str_eq(key, last_key);
				ck_assert_uint_ge(v, last_count);
			} else {
				ck_assert_msg(strcmp(last_key, key) < 0, "%s after %s", key, last_key);
			}
			if (strcmp(le + 1, "le=\"+Inf\"") == 0)
				inf = v;
			last_count = v;
			snprintf(last_key, sizeof last_key, "%s", key);
		} else if (strncmp(suffix, "_count{", 7) == 0 && strcmp(type, "histogram") == 0) {
			ck_assert_str_eq(key, last_key);
			ck_assert_uint_eq(v, inf);
		} else if (strncmp(suffix, "_sum{", 5) == 0 && strcmp(type, "histogram") == 0) {
			ck_assert_str_eq(key, last_key);
		} else {
			ck_assert_msg(*suffix == '{' || *suffix == ' ', "%.*s", (int)len, line);
			ck_assert_msg(!*last_key || strcmp(last_key, key) < 0, "%s after %s", key, last_key);
			snprintf(last_key, sizeof last_key, "%s", key);
		}
	}
}

#endif
