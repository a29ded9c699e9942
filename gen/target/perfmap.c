/* perfmap — a process's perf map, read; see perfmap.h. */
#include "target/perfmap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Lines kept at most: as many as PERFMAP_BYTES_MAX can hold (a line is 6
 * bytes at least), so that none of the newest is dropped. */
#define PERFMAP_LINES_MAX (PERFMAP_BYTES_MAX / 6 + 1)
/* A line's size at most: larger ones are no code object's, and skipped. */
#define PERFMAP_SIZE_MAX (16u << 20)
/* Lines looked at, at most: those of one name (perfmap_live_name), and
 * those before an address that may hold it (newest_holding); past them a
 * frame is not placed. */
#define PERFMAP_NAMED_MAX 16
#define PERFMAP_BEFORE_MAX 512

typedef struct perfmap_line {
	uint64_t start, size;
	size_t seq;		/* its place in the file: later lines are newer code */
	char *name;
} perfmap_line;

struct perfmap {
	perfmap_line *line;	/* by start address */
	size_t n, cap;
	size_t *by_name;	/* indexes into line, by name (spaces not compared) */
	uint64_t largest;	/* the largest size: how far back a covering line starts */
};

int perfmap_path(long pid, char *out, size_t len)
{
	char path[64], text[256];
	long nspid = pid;
	if (pid <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(text, sizeof text, f))
		if (strncmp(text, "NSpid:", 6) == 0) {
			char *last = strrchr(text, '\t');
			nspid = strtol(last ? last + 1 : text + 6, NULL, 10);
		}
	fclose(f);
	snprintf(out, len, "/proc/%ld/root/tmp/perf-%ld.map", pid, nspid);
	return 0;
}

/* Compares A (ALEN bytes) and B (BLEN bytes) with their spaces left out:
 * <0, 0 or >0 as strcmp. */
static int compare_unspaced(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0, k = 0;
	for (;;) {
		while (i < alen && a[i] == ' ')
			i++;
		while (k < blen && b[k] == ' ')
			k++;
		if (i == alen || k == blen)
			return (i < alen) - (k < blen);
		if (a[i] != b[k])
			return (unsigned char)a[i] < (unsigned char)b[k] ? -1 : 1;
		i++;
		k++;
	}
}

/* Adds the line TEXT ("START SIZE NAME", hex numbers) to PM when it
 * parses.  Returns 0, or -1 out of memory. */
static int add_line(perfmap *pm, const char *text)
{
	char *end, *size_end;
	uint64_t start = strtoull(text, &end, 16);
	if (end == text || *end != ' ')
		return 0;
	uint64_t size = strtoull(end + 1, &size_end, 16);
	if (size_end == end + 1 || *size_end != ' ' || size == 0 || size > PERFMAP_SIZE_MAX ||
	    start + size < start)
		return 0;
	const char *name = size_end + 1;
	size_t len = strcspn(name, "\r\n");
	if (len == 0)
		return 0;
	if (pm->n == pm->cap) {
		size_t cap = pm->cap ? 2 * pm->cap : 256;
		perfmap_line *l = realloc(pm->line, cap * sizeof *l);
		if (!l)
			return -1;
		pm->line = l;
		pm->cap = cap;
	}
	char *copy = strndup(name, len < PERFMAP_NAME_MAX ? len : PERFMAP_NAME_MAX);
	if (!copy)
		return -1;
	pm->line[pm->n] = (perfmap_line){ .start = start, .size = size, .seq = pm->n, .name = copy };
	pm->n++;
	if (size > pm->largest)
		pm->largest = size;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const perfmap_line *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Orders indexes A and B into the lines CTX by their names. */
static int by_name(const void *a, const void *b, void *ctx)
{
	const perfmap_line *line = ctx;
	const char *x = line[*(const size_t *)a].name, *y = line[*(const size_t *)b].name;
	return compare_unspaced(x, strlen(x), y, strlen(y));
}

/* Sorts PM's lines by address and makes its index by name.  Returns 0, or
 * -1 out of memory. */
static int index_lines(perfmap *pm)
{
	qsort(pm->line, pm->n, sizeof *pm->line, by_start);
	pm->by_name = malloc(pm->n * sizeof *pm->by_name);
	if (!pm->by_name)
		return -1;
	for (size_t i = 0; i < pm->n; i++)
		pm->by_name[i] = i;
	qsort_r(pm->by_name, pm->n, sizeof *pm->by_name, by_name, pm->line);
	return 0;
}

/* Reads one line of F into TEXT (size LEN, NUL-terminated, the newline
 * dropped, cut when longer), counting every byte taken from F in *BYTES.
 * Returns false at the end of F with nothing read. */
static bool read_line(FILE *f, char *text, size_t len, size_t *bytes)
{
	size_t n = 0;
	int c = EOF;
	while ((c = getc(f)) != EOF) {
		(*bytes)++;
		if (c == '\n')
			break;
		if (n + 1 < len)
			text[n++] = c ? (char)c : ' ';
		if (*bytes >= PERFMAP_BYTES_MAX)
			break;
	}
	text[n] = '\0';
	return n > 0 || c != EOF;
}

/* F (open at its start) from its last PERFMAP_BYTES_MAX bytes of SIZE
 * on: the newest lines, the first cut one skipped.  Returns 0, or -1. */
static int seek_tail(FILE *f, off_t size)
{
	char skip[64];
	size_t bytes = 0;
	if (size <= (off_t)PERFMAP_BYTES_MAX)
		return 0;
	if (fseeko(f, size - (off_t)PERFMAP_BYTES_MAX - 1, SEEK_SET) < 0)
		return -1;
	if (getc(f) != '\n')
		read_line(f, skip, sizeof skip, &bytes);	/* the rest of the cut line */
	return 0;
}

/* The regular file at PATH, open to read (never a FIFO or a device, and
 * not through a last symbolic link: the traced process writes its /tmp),
 * its size in *SIZE; NULL when it is none. */
static FILE *open_regular(const char *path, off_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	FILE *f = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return NULL;
	}
	*size = st.st_size;
	return f;
}

perfmap *perfmap_parse(FILE *f, off_t size)
{
	char text[PERFMAP_NAME_MAX + 64];
	size_t bytes = 0;
	perfmap *pm = calloc(1, sizeof *pm);
	int rc = pm ? seek_tail(f, size) : -1;
	while (rc == 0 && pm->n < PERFMAP_LINES_MAX && bytes < PERFMAP_BYTES_MAX &&
	       read_line(f, text, sizeof text, &bytes))
		rc = add_line(pm, text);
	if (rc == 0 && pm->n)
		rc = index_lines(pm);
	if (rc < 0 || !pm->n) {
		perfmap_free(pm);
		return NULL;
	}
	return pm;
}

perfmap *perfmap_read(const char *path)
{
	off_t size;
	FILE *f = open_regular(path, &size);
	if (!f)
		return NULL;
	perfmap *pm = perfmap_parse(f, size);
	fclose(f);
	return pm;
}

perfmap *perfmap_open(long pid)
{
	char path[96];
	return perfmap_path(pid, path, sizeof path) < 0 ? NULL : perfmap_read(path);
}

/* The first position of PM's name index whose line's name is not below
 * NAME (LEN bytes). */
static size_t first_named(const perfmap *pm, const char *name, size_t len)
{
	size_t lo = 0, hi = pm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = pm->line[pm->by_name[mid]].name;
		if (compare_unspaced(m, strlen(m), name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The newest line of PM holding ADDR (its index), or PM's count when
 * none does, or when more than PERFMAP_BEFORE_MAX lines might. */
static size_t newest_holding(const perfmap *pm, uint64_t addr)
{
	size_t lo = 0, hi = pm->n, newest = pm->n, seen = 0;
	while (lo < hi) {	/* the first line starting past ADDR */
		size_t mid = lo + (hi - lo) / 2;
		if (pm->line[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && addr - pm->line[i].start < pm->largest;) {
		if (++seen > PERFMAP_BEFORE_MAX)
			return pm->n;
		if (addr - pm->line[i].start < pm->line[i].size &&
		    (newest == pm->n || pm->line[i].seq > pm->line[newest].seq))
			newest = i;
	}
	return newest;
}

const char *perfmap_live_name(const perfmap *pm, const char *name, size_t len, uint64_t offset,
			      perfmap_same_fn same)
{
	const char *live = NULL;
	size_t named = 0;
	for (size_t k = first_named(pm, name, len); k < pm->n; k++) {
		const perfmap_line *l = &pm->line[pm->by_name[k]];
		if (compare_unspaced(l->name, strlen(l->name), name, len) != 0)
			break;
		if (offset >= l->size)
			continue;
		size_t at = newest_holding(pm, l->start + offset);
		if (++named > PERFMAP_NAMED_MAX || at == pm->n)
			return NULL;
		const char *n = pm->line[at].name;
		if (live && !same(live, strlen(live), n, strlen(n)))
			return NULL;
		live = n;
	}
	return live;
}

size_t perfmap_lines(const perfmap *pm)
{
	return pm ? pm->n : 0;
}

void perfmap_free(perfmap *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->n; i++)
		free(pm->line[i].name);
	free(pm->line);
	free(pm->by_name);
	free(pm);
}
