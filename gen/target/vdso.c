/* vdso — names the frames of a process's vDSO (see vdso.h). */
#include "target/vdso.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* An image larger than this is not a vDSO (today's are 8 KiB). */
#define VDSO_MAX_BYTES (1u << 20)
#define VDSO_MAX_PROCS 32
#define VDSO_MAX_SYMS 48
#define VDSO_NAME_MAX 64

typedef struct vdso_sym {
	uint64_t start, end;	/* offsets into the mapping */
	bool global;		/* STB_GLOBAL, preferred to a weak alias */
	char name[VDSO_NAME_MAX];
} vdso_sym;

typedef struct vdso_proc {
	long pid;
	uint64_t start, end;	/* the mapping; end 0: none known */
	size_t n_syms;
	vdso_sym syms[VDSO_MAX_SYMS];
} vdso_proc;

struct vdso_names {
	size_t n;
	vdso_proc procs[VDSO_MAX_PROCS];
};

vdso_names *vdso_names_new(void)
{
	return calloc(1, sizeof(vdso_names));
}

void vdso_names_free(vdso_names *v)
{
	free(v);
}

/* The [vdso] line of /proc/PID/maps (PID 0: bpfspec's own) into *START
 * and *END.  Returns 0, or -1 when there is none or the file cannot be
 * read. */
static int find_mapping(long pid, uint64_t *start, uint64_t *end)
{
	char path[64], line[512];
	if (pid)
		snprintf(path, sizeof path, "/proc/%ld/maps", pid);
	else
		snprintf(path, sizeof path, "/proc/self/maps");
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int rc = -1;
	while (fgets(line, sizeof line, f)) {
		uint64_t s, e;
		int name_at = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*x %*x:%*x %*u %n", &s, &e,
			   &name_at) != 2 || name_at == 0)
			continue;
		if (strncmp(line + name_at, "[vdso]", 6) == 0 && e > s) {
			*start = s;
			*end = e;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* The image of process P's mapping, LEN bytes, into BUF: from its memory,
 * else bpfspec's own vDSO when its mapping has the same size.  Returns 0
 * or -1. */
static int read_image(const vdso_proc *p, unsigned char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/mem", p->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = pread(fd, buf, len, (off_t)p->start);
		close(fd);
		if (n == (ssize_t)len)
			return 0;
	}
	uint64_t s, e;
	unsigned long own = getauxval(AT_SYSINFO_EHDR);
	if (!own || find_mapping(0, &s, &e) < 0 || own != s || e - s != len)
		return -1;
	memcpy(buf, (const void *)own, len);
	return 0;
}

/* Whether NAME is a symbol name worth showing: an identifier, as every
 * vDSO's are (the image is the target's memory: untrusted). */
static bool plain_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= VDSO_NAME_MAX)
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.") == n;
}

/* The address the image is linked at: the PT_LOAD mapped from offset 0.
 * Returns 0, or -1. */
static int image_base(Elf *elf, uint64_t *base)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_offset == 0) {
			*base = ph.p_vaddr;
			return 0;
		}
	}
	return -1;
}

/* Adds the function symbols of section SCN (a symbol table) to P. */
static void add_symbols(vdso_proc *p, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t base)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || sh->sh_entsize == 0)
		return;
	size_t count = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < count && p->n_syms < VDSO_MAX_SYMS; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_size == 0 || sym.st_value < base)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		uint64_t start = sym.st_value - base;
		if (!name || !plain_name(name) || start >= p->end - p->start)
			continue;
		vdso_sym *s = &p->syms[p->n_syms++];
		s->start = start;
		s->end = start + sym.st_size;
		s->global = GELF_ST_BIND(sym.st_info) == STB_GLOBAL;
		snprintf(s->name, sizeof s->name, "%s", name);
	}
}

/* Reads P's image and fills its symbols.  Returns 0 or -1. */
static int load_symbols(vdso_proc *p)
{
	size_t len = (size_t)(p->end - p->start);
	if (len > VDSO_MAX_BYTES || elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	unsigned char *buf = malloc(len);
	if (!buf)
		return -1;
	int rc = -1;
	Elf *elf = NULL;
	uint64_t base;
	if (read_image(p, buf, len) < 0 || !(elf = elf_memory((char *)buf, len)) ||
	    elf_kind(elf) != ELF_K_ELF || image_base(elf, &base) < 0)
		goto out;
	for (int want = SHT_DYNSYM; p->n_syms == 0 && want; want = want == SHT_DYNSYM ? SHT_SYMTAB : 0)
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == (GElf_Word)want)
				add_symbols(p, elf, scn, &sh, base);
		}
	rc = 0;
out:
	if (elf)
		elf_end(elf);
	free(buf);
	return rc;
}

/* PID's entry, read on first use; NULL when the cache is full. */
static vdso_proc *proc_of(vdso_names *v, long pid)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->procs[i].pid == pid)
			return &v->procs[i];
	if (v->n == VDSO_MAX_PROCS)
		return NULL;
	vdso_proc *p = &v->procs[v->n++];
	memset(p, 0, sizeof *p);
	p->pid = pid;
	if (find_mapping(pid, &p->start, &p->end) < 0 || load_symbols(p) < 0)
		p->start = p->end = 0;
	return p;
}

int vdso_name(vdso_names *v, long pid, uint64_t addr, char *out, size_t len)
{
	if (!v || pid <= 0)
		return 0;
	vdso_proc *p = proc_of(v, pid);
	if (!p || addr < p->start || addr >= p->end)
		return 0;
	uint64_t off = addr - p->start;
	const vdso_sym *best = NULL;
	for (size_t i = 0; i < p->n_syms; i++) {
		const vdso_sym *s = &p->syms[i];
		if (off >= s->start && off < s->end && (!best || (s->global && !best->global)))
			best = s;
	}
	if (best)
		snprintf(out, len, "[vdso] %s", best->name);
	else
		snprintf(out, len, "[vdso]");	/* a helper it does not export */
	return 1;
}
