/* discover — scanning /proc for the targets' processes, and diffing two
 * scans (see discover.h for the rules; discover_target.c parses targets,
 * discover_proc.c reads a process's fields). */
#include "target/discover.h"
#include "target/discover_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* True when a component of cgroup PATH is UNIT, or UNIT.service for a
 * UNIT without a dot. */
static bool unit_in_path(const char *path, const char *unit)
{
	size_t lu = strlen(unit);
	bool bare = !strchr(unit, '.');

	for (const char *c = path; *c;) {
		const char *slash = strchr(c, '/');
		size_t len = slash ? (size_t)(slash - c) : strlen(c);

		if (len >= lu && memcmp(c, unit, lu) == 0 &&
		    (len == lu || (bare && len == lu + 8 && memcmp(c + lu, ".service", 8) == 0)))
			return true;
		c += len + (slash != NULL);
	}
	return false;
}

/* The field of a process KIND reads. */
static unsigned kind_field(discover_kind kind)
{
	switch (kind) {
	case DISCOVER_COMM:
		return DISCOVER_F_COMM;
	case DISCOVER_EXE:
		return DISCOVER_F_EXE;
	case DISCOVER_CMDLINE:
		return DISCOVER_F_CMDLINE;
	case DISCOVER_CGROUP:
	case DISCOVER_UNIT:
	case DISCOVER_K8S_NAMESPACE:
	case DISCOVER_K8S_POD:
	case DISCOVER_K8S_CONTAINER:
		return DISCOVER_F_CGROUP;
	case DISCOVER_PID:
		return 0;
	}
	return 0;
}

static bool is_k8s(discover_kind kind)
{
	return kind == DISCOVER_K8S_NAMESPACE || kind == DISCOVER_K8S_POD ||
	       kind == DISCOVER_K8S_CONTAINER;
}

/* The name a k8s-* target of KIND matches against ("" when unknown). */
static const char *k8s_field(const k8s_names *names, discover_kind kind)
{
	if (!names)
		return "";
	if (kind == DISCOVER_K8S_NAMESPACE)
		return names->namespace_name;
	return kind == DISCOVER_K8S_POD ? names->pod_name : names->container_name;
}

/* The errno of the field T reads (0 when it was read). */
static int field_err(const discover_target *t, const discover_proc *p)
{
	switch (kind_field(t->kind)) {
	case DISCOVER_F_COMM:
		return p->comm_err;
	case DISCOVER_F_EXE:
		return p->exe_err;
	case DISCOVER_F_CMDLINE:
		return p->cmdline_err;
	case DISCOVER_F_CGROUP:
		return p->cgroup_err;
	}
	return 0;
}

/* True when P matches T; NAMES are P's Kubernetes names (or NULL). */
static bool target_matches(const discover_target *t, const discover_proc *p,
			   const k8s_names *names)
{
	const char *name;

	switch (t->kind) {
	case DISCOVER_COMM:
		return p->comm && fnmatch(t->value, p->comm, 0) == 0;
	case DISCOVER_EXE:
		return p->exe && fnmatch(t->value, p->exe, 0) == 0;
	case DISCOVER_CMDLINE:
		return p->cmdline && regexec(&t->re, p->cmdline, 0, NULL, 0) == 0;
	case DISCOVER_CGROUP:
		return p->cgroup && fnmatch(t->value, p->cgroup, 0) == 0;
	case DISCOVER_UNIT:
		return p->cgroup && unit_in_path(p->cgroup, t->value);
	case DISCOVER_PID:
		return p->pid == t->pid;
	case DISCOVER_K8S_NAMESPACE:
	case DISCOVER_K8S_POD:
	case DISCOVER_K8S_CONTAINER:
		name = k8s_field(names, t->kind);
		return *name && fnmatch(t->value, name, 0) == 0;
	}
	return false;
}

/* One scan's state. */
typedef struct scan {
	const discover_target *targets;
	size_t n;
	unsigned fields;	/* what the targets other than pid= read */
	bool k8s;		/* a k8s-* target is among them */
	k8s_cache *names;	/* NULL: k8s-* targets match nothing */
	pid_t self;
	discover_set *out;
	size_t *cap;		/* capacity of out->per[i].pids */
} scan;

static int push(scan *s, size_t i, pid_t pid)
{
	discover_match *m = &s->out->per[i];

	if (m->n == s->cap[i]) {
		size_t cap = s->cap[i] ? 2 * s->cap[i] : 16;
		pid_t *p = realloc(m->pids, cap * sizeof(*p));
		if (!p)
			return -1;
		m->pids = p;
		s->cap[i] = cap;
	}
	m->pids[m->n++] = pid;
	return 0;
}

/* Every target but pid= counts the process as unreadable. */
static void count_unreadable(scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->targets[i].kind != DISCOVER_PID)
			s->out->per[i].unreadable++;
}

/* P's Kubernetes names, when the scan has k8s-* targets and P runs in a
 * pod's container; NULL otherwise, with *FAILED when they could not be
 * read.  Borrowed from the cache until its next call. */
static const k8s_names *names_of(const scan *s, const discover_proc *p, bool *failed)
{
	discover_pod pod;
	k8s_status st;
	const k8s_names *names;

	*failed = false;
	if (!s->k8s || !s->names || !discover_pod_labels(p->cgroup, &pod))
		return NULL;
	names = k8s_cache_get(s->names, pod.runtime, pod.container_id, &st);
	*failed = k8s_status_failed(st);
	return names;
}

/* Matches the targets other than pid= against the fields of P. */
static int match_fields(scan *s, const discover_proc *p)
{
	bool names_failed;
	const k8s_names *names = names_of(s, p, &names_failed);

	for (size_t i = 0; i < s->n; i++) {
		const discover_target *t = &s->targets[i];
		int err = field_err(t, p);

		if (t->kind == DISCOVER_PID || discover_err_gone(err))
			continue;
		if (err || (is_k8s(t->kind) && names_failed))
			s->out->per[i].unreadable++;
		else if (target_matches(t, p, names) && push(s, i, p->pid) < 0)
			return -1;
	}
	return 0;
}

/* Reads process PID through its directory and matches it. */
static int scan_fields(scan *s, int root_fd, pid_t pid)
{
	discover_proc p = { .pid = pid };
	int dir_fd = discover_proc_open(root_fd, pid), rc;

	if (dir_fd < 0) {
		if (!discover_err_gone(errno))
			count_unreadable(s);
		return 0;
	}
	rc = discover_proc_read_fd(dir_fd, DISCOVER_F_CMDLINE, &p);
	if (rc == 0 && p.cmdline_err && !discover_err_gone(p.cmdline_err))
		count_unreadable(s);	/* a kernel thread cannot be told apart */
	else if (rc == 0 && !p.cmdline_err && p.cmdline_raw > 0)
		rc = discover_proc_read_fd(dir_fd, s->fields, &p) ?: match_fields(s, &p);
	close(dir_fd);
	discover_proc_free(&p);
	return rc;
}

static int scan_pid(scan *s, int root_fd, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->targets[i].kind == DISCOVER_PID && s->targets[i].pid == pid &&
		    push(s, i, pid) < 0)
			return -1;
	if (pid == s->self || !s->fields)
		return 0;
	return scan_fields(s, root_fd, pid);
}

/* The pid a /proc entry names, or 0 when it names none. */
static pid_t entry_pid(const char *name)
{
	long v = 0;

	if (!*name || *name == '0')
		return 0;
	for (const char *p = name; *p; p++) {
		if (!isdigit((unsigned char)*p) || v > DISCOVER_PID_MAX)
			return 0;
		v = v * 10 + (*p - '0');
	}
	return v <= DISCOVER_PID_MAX ? (pid_t)v : 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Sorts M's pids and drops repeats. */
static void sort_unique(discover_match *m)
{
	size_t k = 0;

	if (m->n)
		qsort(m->pids, m->n, sizeof(*m->pids), cmp_pid);
	for (size_t i = 0; i < m->n; i++)
		if (k == 0 || m->pids[k - 1] != m->pids[i])
			m->pids[k++] = m->pids[i];
	m->n = k;
}

static int scan_dir(scan *s, DIR *d)
{
	struct dirent *e;

	for (;;) {
		pid_t pid;

		errno = 0;
		e = readdir(d);
		if (!e)
			return errno ? -1 : 0;
		pid = entry_pid(e->d_name);
		if (pid && scan_pid(s, dirfd(d), pid) < 0) {
			errno = ENOMEM;
			return -1;
		}
	}
}

int discover_scan(const char *proc_root, k8s_cache *names, const discover_target *targets,
		  size_t n, discover_set *out)
{
	scan s = { .targets = targets, .n = n, .names = names, .self = getpid(), .out = out };
	DIR *d;
	int rc, e;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		s.fields |= kind_field(targets[i].kind);
		s.k8s |= is_k8s(targets[i].kind);
	}
	if (s.fields)
		s.fields |= DISCOVER_F_CMDLINE;
	d = opendir(proc_root);
	if (!d)
		return -1;
	out->per = calloc(n ? n : 1, sizeof(*out->per));
	s.cap = calloc(n ? n : 1, sizeof(*s.cap));
	out->n = n;
	rc = out->per && s.cap ? scan_dir(&s, d) : (errno = ENOMEM, -1);
	e = errno;
	closedir(d);
	free(s.cap);
	for (size_t i = 0; rc == 0 && i < n; i++)
		sort_unique(&out->per[i]);
	if (rc < 0) {
		discover_set_free(out);
		errno = e;
	}
	return rc;
}

void discover_set_free(discover_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->per && i < s->n; i++)
		free(s->per[i].pids);
	free(s->per);
	memset(s, 0, sizeof(*s));
}

bool discover_match_has(const discover_match *m, pid_t pid)
{
	return m->n && bsearch(&pid, m->pids, m->n, sizeof(pid), cmp_pid);
}

/* The pids of A not in B (both ascending) into an owned array. */
static int only_in(const discover_match *a, const discover_match *b, pid_t **out, size_t *n)
{
	size_t j = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < a->n; i++) {
		while (j < b->n && b->pids[j] < a->pids[i])
			j++;
		if (j < b->n && b->pids[j] == a->pids[i])
			continue;
		if (!*out && !(*out = malloc((a->n - i) * sizeof(**out))))
			return -1;
		(*out)[(*n)++] = a->pids[i];
	}
	return 0;
}

int discover_set_diff(const discover_set *old, const discover_set *cur, discover_diff *out)
{
	static const discover_match none;

	memset(out, 0, sizeof(*out));
	if (old && old->n != cur->n) {
		errno = EINVAL;
		return -1;
	}
	out->per = calloc(cur->n ? cur->n : 1, sizeof(*out->per));
	if (!out->per)
		return -1;
	out->n = cur->n;
	for (size_t i = 0; i < cur->n; i++) {
		const discover_match *was = old ? &old->per[i] : &none;
		discover_change *c = &out->per[i];

		if (only_in(&cur->per[i], was, &c->added, &c->n_added) < 0 ||
		    only_in(was, &cur->per[i], &c->removed, &c->n_removed) < 0) {
			discover_diff_free(out);
			errno = ENOMEM;
			return -1;
		}
		out->changed |= c->n_added || c->n_removed;
	}
	return 0;
}

void discover_diff_free(discover_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->per && i < d->n; i++) {
		free(d->per[i].added);
		free(d->per[i].removed);
	}
	free(d->per);
	memset(d, 0, sizeof(*d));
}
