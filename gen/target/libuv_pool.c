/* libuv_pool — see libuv_pool.h. */
#include "target/libuv_pool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/discover.h"

#define POOL_THREAD_NAME "libuv-worker"
#define POOL_DEFAULT 4
#define POOL_MAX 1024
#define ENVIRON_MAX (1u << 20)	/* bytes of /proc/PID/environ read */
#define ENV_NAME "UV_THREADPOOL_SIZE="

int libuv_pool_size_of_env(const char *value)
{
	long n = 0;
	const char *s = value;
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	bool negative = *s == '-';
	s += *s == '-' || *s == '+';
	/* atoi's leading digits (the rest ignored), counted only as far as
	 * the limit. */
	while (*s >= '0' && *s <= '9' && n <= POOL_MAX)
		n = n * 10 + (*s++ - '0');
	if (n == 0)
		return 1;
	/* libuv keeps the count unsigned: a negative one is above the limit. */
	return negative || n > POOL_MAX ? POOL_MAX : (int)n;
}

/* The number of threads of the process at DIR_FD (its /proc directory)
 * named "libuv-worker". */
static int count_pool_threads(int dir_fd)
{
	int task_fd = openat(dir_fd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	DIR *d = task_fd < 0 ? NULL : fdopendir(task_fd);
	struct dirent *e;

	if (!d) {
		if (task_fd >= 0)
			close(task_fd);
		return 0;
	}
	while ((e = readdir(d)) != NULL) {
		char name[NAME_MAX + 8];
		size_t len;
		bool cut;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(name, sizeof name, "%s/comm", e->d_name);
		char *comm = discover_read_bounded(dirfd(d), name, 64, &len, &cut);
		if (comm && !cut && !strcmp(comm, POOL_THREAD_NAME "\n"))
			n++;
		free(comm);
	}
	closedir(d);
	return n;
}

/* The size UV_THREADPOOL_SIZE gives in the environment of the process at
 * DIR_FD, or 0 when it is not set (or cannot be read). */
static int environment_size(int dir_fd)
{
	size_t len, at = 0;
	bool cut;
	char *env = discover_read_bounded(dir_fd, "environ", ENVIRON_MAX, &len, &cut);
	int size = 0;

	while (env && at < len) {
		const char *var = env + at;
		size_t n = strnlen(var, len - at);
		/* Of several settings, getenv (libuv's reader) finds the first. */
		if (n > strlen(ENV_NAME) && !strncmp(var, ENV_NAME, strlen(ENV_NAME)) && at + n < len) {
			size = libuv_pool_size_of_env(var + strlen(ENV_NAME));
			break;
		}
		at += n + 1;
	}
	free(env);
	return size;
}

int libuv_pool_size(const char *proc_root, pid_t pid, libuv_pool_source *source)
{
	char path[PATH_MAX];
	int dir_fd, n;

	snprintf(path, sizeof path, "%s/%ld", proc_root, (long)pid);
	dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -1;
	/* A process that has exited (a zombie) has no executable and no
	 * environment left: its size would read as the default. */
	char exe[16];
	if (readlinkat(dir_fd, "exe", exe, sizeof exe) < 0) {
		int e = errno;
		close(dir_fd);
		errno = e;
		return -1;
	}
	if ((n = count_pool_threads(dir_fd)) > 0) {
		*source = LIBUV_POOL_THREADS;
	} else if ((n = environment_size(dir_fd)) > 0) {
		*source = LIBUV_POOL_ENVIRONMENT;
	} else {
		n = POOL_DEFAULT;
		*source = LIBUV_POOL_DEFAULT;
	}
	close(dir_fd);
	return n;
}

const char *libuv_pool_source_name(libuv_pool_source source)
{
	switch (source) {
	case LIBUV_POOL_THREADS:
		return "thread names";
	case LIBUV_POOL_ENVIRONMENT:
		return "UV_THREADPOOL_SIZE";
	case LIBUV_POOL_DEFAULT:
		break;
	}
	return "libuv's default";
}
