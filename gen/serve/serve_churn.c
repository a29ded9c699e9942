/* serve_churn — processes joining and leaving a slot while its child
 * runs (serve_internal.h).  The child is `bpfspec run --pids-from-stdin`:
 * told "+PID" or "-PID" on its stdin, it changes its program's traced set
 * in place (templates/pids.bt.in), so a process that joins is traced from
 * the next interval on and the others are never untraced.
 *
 * A process that left stays among the slot's labelled processes until
 * two more reports have come: the interval it left in, and one that was
 * perhaps already on its way, keep its threads' labels (pid, pod), so its
 * series end with its last figures rather than fold into the target's. */
#include "serve/serve_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool has_pid(const pid_t *list, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == pid)
			return true;
	return false;
}

/* Whether PID of S is traced by its child (labelled, and not left). */
static bool traced(const serve_slot *s, pid_t pid)
{
	return has_pid(s->run_pids, s->n_run, pid) && !has_pid(s->left, s->n_left, pid);
}

bool serve_churn_settled(const serve_slot *s)
{
	if (s->n_run - s->n_left != s->n_pids)
		return false;
	for (size_t i = 0; i < s->n_pids; i++)
		if (!traced(s, s->pids[i]))
			return false;
	return true;
}

/* Writes "+PID" or "-PID" to S's child, whole.  Returns 0, or -1 (the
 * pipe is full or the child is gone). */
static int tell(const serve_slot *s, char sign, pid_t pid)
{
	char line[16];
	int len = snprintf(line, sizeof line, "%c%d\n", sign, (int)pid);
	ssize_t n;
	do
		n = write(s->in_fd, line, (size_t)len);
	while (n < 0 && errno == EINTR);
	return n == len ? 0 : -1;
}

/* Drops the labelled process at index I of S (caller holds the lock). */
static void forget(serve_slot *s, size_t i)
{
	s->run_pids[i] = s->run_pids[s->n_run - 1];
	s->pods[i] = s->pods[s->n_run - 1];
	s->n_run--;
}

/* PID joins S: traced again if it had left, else labelled anew (caller
 * holds the lock).  Returns 0, or -1 when there is no room. */
static int join(serve *sv, serve_slot *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_left; i++)
		if (s->left[i] == pid) {
			s->left[i] = s->left[--s->n_left];
			return 0;
		}
	if (s->n_run == SERVE_MAX_LABELLED)
		return -1;
	s->run_pids[s->n_run] = pid;
	serve_read_pod(sv, &s->pods[s->n_run], pid);
	s->n_run++;
	return 0;
}

int serve_churn_tell(serve *sv, serve_slot *s)
{
	if (s->in_fd < 0)
		return -1;
	int rc = 0;
	pthread_mutex_lock(&sv->lock);
	for (size_t i = 0; i < s->n_run && rc == 0; i++) {
		pid_t pid = s->run_pids[i];
		if (!traced(s, pid) || has_pid(s->pids, s->n_pids, pid))
			continue;
		rc = s->n_left < SERVE_MAX_PIDS ? tell(s, '-', pid) : -1;
		if (rc == 0)
			s->left[s->n_left++] = pid;
	}
	for (size_t k = 0; k < s->n_pids && rc == 0; k++) {
		pid_t pid = s->pids[k];
		if (traced(s, pid))
			continue;
		rc = join(sv, s, pid);
		if (rc == 0)
			rc = tell(s, '+', pid);
	}
	s->left_reports = 2;
	serve_k8s_note(sv);
	pthread_mutex_unlock(&sv->lock);
	if (sv->cfg.verbose && rc == 0)
		fprintf(stderr, "bpfspec serve: %s/%s: now on %zu process%s, without a restart\n",
			sv->cfg.spec_names[s->spec], sv->cfg.targets[s->target].name, s->n_pids,
			s->n_pids == 1 ? "" : "es");
	return rc;
}

void serve_churn_reported(serve_slot *s)
{
	if (!s->n_left || (s->left_reports && --s->left_reports))
		return;
	for (size_t k = 0; k < s->n_left; k++)
		for (size_t i = 0; i < s->n_run; i++)
			if (s->run_pids[i] == s->left[k]) {
				forget(s, i);
				break;
			}
	s->n_left = 0;
}
