/* output — see output.h. */
#include "util/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/diag.h"

struct output {
	FILE *f;
	char *path;		/* NULL: stdout */
	char *tmp;		/* temporary file beside path */
};

output *output_open(const char *path)
{
	output *o = calloc(1, sizeof *o);
	if (!o) {
		diag_error(NULL, "out of memory");
		return NULL;
	}
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return o;
	}
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.XXXXXX", path) < 0) {
		o->tmp = NULL;
		output_abort(o);
		diag_error(NULL, "out of memory");
		return NULL;
	}
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		diag_error("check that the directory exists and is writable",
			   "cannot create a file beside '%s': %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		output_abort(o);
		return NULL;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		output_abort(o);
		return NULL;
	}
	return o;
}

FILE *output_stream(output *o)
{
	return o->f;
}

int output_commit(output *o)
{
	int rc = 0;
	if (!o->path) {
		if (fflush(stdout) != 0 || ferror(stdout)) {
			diag_error("check the pipe or file standard output goes to",
				   "cannot write the report to standard output: %s", strerror(errno));
			rc = -1;
		}
		free(o);
		return rc;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0 ||
	    fchmod(fileno(o->f), 0666 & ~mask) != 0) {
		diag_error("check free space on that file system (df)",
			   "cannot write '%s': %s; the file was left unchanged", o->path,
			   strerror(errno ? errno : EIO));
		output_abort(o);
		return -1;
	}
	if (fclose(o->f) != 0) {
		o->f = NULL;
		diag_error("check free space on that file system (df)",
			   "cannot write '%s': %s; the file was left unchanged", o->path, strerror(errno));
		output_abort(o);
		return -1;
	}
	o->f = NULL;
	if (rename(o->tmp, o->path) != 0) {
		diag_error(NULL, "cannot replace '%s': %s", o->path, strerror(errno));
		output_abort(o);
		return -1;
	}
	free(o->tmp);
	free(o->path);
	free(o);
	return 0;
}

void output_abort(output *o)
{
	if (!o)
		return;
	if (o->path) {
		if (o->f)
			fclose(o->f);
		if (o->tmp)
			unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	free(o);
}
