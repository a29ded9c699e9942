/* discover_target — parsing one `--target NAME=KIND=VALUE` (see
 * discover.h): the name's grammar, the selector's word (with a "did you
 * mean"), the value checked and compiled.  Every error is one sentence
 * that quotes the argument, cut at SHOW_MAX bytes so the reason always
 * fits, and says what to do. */
#include "target/discover.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/suggest.h"

#define SHOW_MAX 64		/* bytes of user text quoted in a message */

/* In discover_kind's order. */
static const char *const kind_words[] = {
	"comm", "exe", "cmdline", "cgroup", "unit", "pid",
	"k8s-namespace", "k8s-pod", "k8s-container", NULL,
};
static const char kind_list[] =
	"comm, exe, cmdline, cgroup, unit, pid, k8s-namespace, k8s-pod, k8s-container";

const char *discover_kind_name(discover_kind kind)
{
	switch (kind) {
	case DISCOVER_COMM:
		return "comm";
	case DISCOVER_EXE:
		return "exe";
	case DISCOVER_CMDLINE:
		return "cmdline";
	case DISCOVER_CGROUP:
		return "cgroup";
	case DISCOVER_UNIT:
		return "unit";
	case DISCOVER_PID:
		return "pid";
	case DISCOVER_K8S_NAMESPACE:
	case DISCOVER_K8S_POD:
	case DISCOVER_K8S_CONTAINER:
		return kind_words[kind];
	}
	return "?";
}

/* What a value of KIND looks like, for messages. */
static const char *kind_example(discover_kind kind)
{
	switch (kind) {
	case DISCOVER_COMM:
		return "a glob, e.g. comm=node";
	case DISCOVER_EXE:
		return "a glob, e.g. exe=/usr/bin/node";
	case DISCOVER_CMDLINE:
		return "a regex, e.g. cmdline='node .*server\\.js'";
	case DISCOVER_CGROUP:
		return "a glob, e.g. cgroup='/system.slice/*'";
	case DISCOVER_UNIT:
		return "a systemd unit, e.g. unit=nginx";
	case DISCOVER_PID:
		return "a process id, e.g. pid=1234";
	case DISCOVER_K8S_NAMESPACE:
		return "a glob, e.g. k8s-namespace=shop";
	case DISCOVER_K8S_POD:
		return "a glob, e.g. k8s-pod='api-*'";
	case DISCOVER_K8S_CONTAINER:
		return "a glob, e.g. k8s-container=node";
	}
	return "?";
}

/* The first LEN bytes of S (at most SHOW_MAX, cut at a character and
 * marked "...") into BUF (size > SHOW_MAX + 3). */
static const char *show(char *buf, const char *s, size_t len)
{
	size_t n = len;

	if (n > SHOW_MAX) {
		n = SHOW_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;	/* not inside a UTF-8 sequence */
	}
	memcpy(buf, s, n);
	strcpy(buf + n, n < len ? "..." : "");
	return buf;
}

/* Writes "--target 'ARG': " and the message into ERR.  Returns -1. */
__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, const char *arg, const char *fmt, ...)
{
	char shown[SHOW_MAX + 4];
	va_list ap;
	int o;

	if (!errlen)
		return -1;
	o = snprintf(err, errlen, "--target '%s': ", show(shown, arg, strlen(arg)));
	if (o >= 0 && (size_t)o < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + o, errlen - (size_t)o, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int check_name(const char *arg, size_t len, char *err, size_t errlen)
{
	char shown[SHOW_MAX + 4];

	if (len == 0)
		return fail(err, errlen, arg,
			    "the target name before the first '=' is empty; name the target, "
			    "e.g. api=comm=node");
	if (len > DISCOVER_NAME_MAX)
		return fail(err, errlen, arg,
			    "the target name is %zu bytes long; use at most %d", len,
			    DISCOVER_NAME_MAX);
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)arg[i]) && !strchr("_.-", arg[i]))
			return fail(err, errlen, arg,
				    "target name '%s' may hold only letters, digits, '_', '.' "
				    "and '-' (it becomes a label value)",
				    show(shown, arg, len));
	return 0;
}

/* The kind named by WORD[0..LEN), or -1. */
static int kind_lookup(const char *word, size_t len)
{
	for (int k = 0; kind_words[k]; k++)
		if (strlen(kind_words[k]) == len && memcmp(word, kind_words[k], len) == 0)
			return k;
	return -1;
}

/* The selector nearest to WORD (case aside), or NULL when none is close. */
static const char *kind_guess(const char *word, size_t len)
{
	char low[SUGGEST_MAX_LEN];
	size_t best = 3;
	const char *guess = NULL;

	if (len > sizeof(low))
		return NULL;
	for (size_t i = 0; i < len; i++)
		low[i] = (char)tolower((unsigned char)word[i]);
	for (size_t k = 0; kind_words[k]; k++) {
		size_t d = suggest_distance(low, len, kind_words[k], strlen(kind_words[k]));
		if (d < best) {
			best = d;
			guess = kind_words[k];
		}
	}
	return guess;
}

static int unknown_kind(const char *arg, const char *word, size_t len, char *err,
			size_t errlen)
{
	char shown[SHOW_MAX + 4];
	const char *guess = kind_guess(word, len);

	if (guess)
		return fail(err, errlen, arg,
			    "unknown selector '%s' (did you mean '%s'?); selectors: %s",
			    show(shown, word, len), guess, kind_list);
	return fail(err, errlen, arg, "unknown selector '%s'; selectors: %s",
		    show(shown, word, len), kind_list);
}

/* pid=N: a whole number in 1..DISCOVER_PID_MAX, digits only. */
static int parse_pid(const char *arg, discover_target *t, char *err, size_t errlen)
{
	char shown[SHOW_MAX + 4];
	long v = 0;

	for (const char *p = t->value; *p; p++) {
		if (!isdigit((unsigned char)*p) || v > DISCOVER_PID_MAX) {
			v = -1;
			break;
		}
		v = v * 10 + (*p - '0');
	}
	if (v < 1 || v > DISCOVER_PID_MAX)
		return fail(err, errlen, arg,
			    "pid '%s' is not a process id; give a whole number from 1 to %d, "
			    "e.g. pid=1234",
			    show(shown, t->value, strlen(t->value)), DISCOVER_PID_MAX);
	t->pid = (pid_t)v;
	return 0;
}

static int parse_regex(const char *arg, discover_target *t, char *err, size_t errlen)
{
	char why[160];
	int rc = regcomp(&t->re, t->value, REG_EXTENDED | REG_NOSUB);

	if (rc != 0) {
		regerror(rc, &t->re, why, sizeof(why));
		return fail(err, errlen, arg,
			    "the cmdline regex does not compile: %s; give a POSIX extended "
			    "regex (regex(7)), e.g. cmdline='node .*server\\.js'",
			    why);
	}
	t->has_re = true;
	return 0;
}

static int parse_unit(const char *arg, discover_target *t, char *err, size_t errlen)
{
	char shown[SHOW_MAX + 4];

	if (strchr(t->value, '/'))
		return fail(err, errlen, arg,
			    "unit '%s' holds a '/'; give a unit name, e.g. unit=nginx or "
			    "unit=nginx.service (a cgroup path goes in cgroup=)",
			    show(shown, t->value, strlen(t->value)));
	return 0;
}

/* Checks and compiles T's value. */
static int parse_value(const char *arg, discover_target *t, char *err, size_t errlen)
{
	switch (t->kind) {
	case DISCOVER_PID:
		return parse_pid(arg, t, err, errlen);
	case DISCOVER_CMDLINE:
		return parse_regex(arg, t, err, errlen);
	case DISCOVER_UNIT:
		return parse_unit(arg, t, err, errlen);
	case DISCOVER_COMM:
	case DISCOVER_EXE:
	case DISCOVER_CGROUP:
	case DISCOVER_K8S_NAMESPACE:
	case DISCOVER_K8S_POD:
	case DISCOVER_K8S_CONTAINER:
		return 0;	/* fnmatch takes any pattern */
	}
	return 0;
}

int discover_target_parse(const char *arg, discover_target *out, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '='), *word, *eq2;
	int k;

	memset(out, 0, sizeof(*out));
	if (!eq)
		return fail(err, errlen, arg, "expected NAME=KIND=VALUE, e.g. api=comm=node; "
			    "selectors: %s", kind_list);
	if (check_name(arg, (size_t)(eq - arg), err, errlen) < 0)
		return -1;
	word = eq + 1;
	eq2 = strchr(word, '=');
	k = kind_lookup(word, eq2 ? (size_t)(eq2 - word) : strlen(word));
	if (!eq2 && k >= 0)
		return fail(err, errlen, arg, "selector '%s' needs a value after '=': %s",
			    kind_words[k], kind_example((discover_kind)k));
	if (!eq2)
		return fail(err, errlen, arg, "expected NAME=KIND=VALUE, e.g. api=comm=node; "
			    "selectors: %s", kind_list);
	if (k < 0)
		return unknown_kind(arg, word, (size_t)(eq2 - word), err, errlen);
	if (!eq2[1])
		return fail(err, errlen, arg, "selector '%s' needs a value after '=': %s",
			    kind_words[k], kind_example((discover_kind)k));
	memcpy(out->name, arg, (size_t)(eq - arg));
	out->kind = (discover_kind)k;
	out->value = strdup(eq2 + 1);
	if (!out->value) {
		discover_target_free(out);
		return fail(err, errlen, arg, "out of memory");
	}
	if (parse_value(arg, out, err, errlen) < 0) {
		discover_target_free(out);
		return -1;
	}
	return 0;
}

void discover_target_free(discover_target *t)
{
	if (!t)
		return;
	if (t->has_re)
		regfree(&t->re);
	free(t->value);
	memset(t, 0, sizeof(*t));
}
