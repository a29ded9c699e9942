/* symtab_elf — opens an ELF file and walks its symbol tables for
 * symtab.c (symtab_internal.h): every defined function symbol of .symtab
 * and .dynsym goes to a sink, and the file's build id and .gnu_debuglink
 * are read on the way.
 *
 * The file is mapped (ELF_C_READ_MMAP), so only the pages of the symbol
 * and string tables that are looked at are read.  A native 64-bit table
 * is read through a mapping of its own instead, a slice of symbols at a
 * time, and the pages read are given back after each slice (they stay in
 * the page cache): node's tables are 17 MB, bpfspec's memory is not.
 * Names are not laid out in symbol order, so each slice faults some of
 * the string pages in again: on node this costs about 10 ms more than
 * keeping everything mapped (9 -> 17-21 ms for a whole `gen`), for a peak
 * of 9 MiB instead of 21 MiB. */
#include "target/symtab.h"
#include "target/symtab_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

void symtab_set_err(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

static bool is_function(unsigned char st_info, uint16_t shndx, uint64_t value)
{
	unsigned type = GELF_ST_TYPE(st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       shndx != SHN_UNDEF && value != 0;
}

/* A read-only mapping of [OFF, OFF+SIZE) of a file: BASE is the page
 * boundary it starts at, P the first byte asked for. */
typedef struct file_window {
	void *base;
	size_t len;
	const char *p;
} file_window;

static bool window_map(int fd, uint64_t off, uint64_t size, uint64_t file_size,
		       file_window *w)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t start = off / page * page;

	w->base = NULL;
	if (size == 0 || off > file_size || size > file_size - off ||
	    off - start + size > SIZE_MAX)
		return false;
	w->len = (size_t)(off - start + size);
	w->base = mmap(NULL, w->len, PROT_READ, MAP_PRIVATE, fd, (off_t)start);
	if (w->base == MAP_FAILED) {
		w->base = NULL;
		return false;
	}
	w->p = (const char *)w->base + (off - start);
	return true;
}

/* Gives back the pages of W that were read; they fault in again from
 * the page cache if read again. */
static void window_release(file_window *w)
{
	if (w->base)
		madvise(w->base, w->len, MADV_DONTNEED);
}

static void window_unmap(file_window *w)
{
	if (w->base)
		munmap(w->base, w->len);
	w->base = NULL;
}

static bool own_mapping = true;
static size_t own_mapping_walks;

void symtab_set_own_mapping(bool on)
{
	own_mapping = on;
}

size_t symtab_own_mapping_walks(void)
{
	return own_mapping_walks;
}

/* Symbols per slice between two window_release calls: 192 KiB of
 * entries, and the names they point at. */
#define SYMS_PER_SLICE 8192

/* The fast path of scan_symbols for a 64-bit table in the host's byte
 * order: the table and its strings are mapped here, not by libelf, and
 * walked a slice at a time.  Returns 1 when it walked the table, 0 when it
 * could not map it (the caller goes through libelf), -1 when out of
 * memory. */
static int scan_symbols_mapped(Elf *elf, int fd, uint64_t file_size, const GElf_Ehdr *eh,
			       const GElf_Shdr *sh, symtab_sink sink, void *ctx, size_t *nsyms)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const unsigned char host_data = ELFDATA2LSB;
#else
	const unsigned char host_data = ELFDATA2MSB;
#endif
	Elf_Scn *str_scn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr ssh;
	file_window syms, strs;
	int rc = 1;

	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != host_data ||
	    sh->sh_entsize != sizeof(Elf64_Sym) || !str_scn || !gelf_getshdr(str_scn, &ssh) ||
	    ssh.sh_type != SHT_STRTAB)
		return 0;
	if (!window_map(fd, sh->sh_offset, sh->sh_size, file_size, &syms))
		return 0;
	if (!window_map(fd, ssh.sh_offset, ssh.sh_size, file_size, &strs)) {
		window_unmap(&syms);
		return 0;
	}
	const Elf64_Sym *sym = (const Elf64_Sym *)(const void *)syms.p;
	const char *strtab = strs.p;
	size_t strsz = (size_t)ssh.sh_size;
	size_t n = (size_t)(sh->sh_size / sizeof(Elf64_Sym));

	/* Names are looked at with plain string functions: the table must
	 * end in NUL so that none can run past it.  (A mapping at an offset
	 * not aligned for Elf64_Sym goes through libelf, which copies.) */
	if (strtab[strsz - 1] != '\0' || ((uintptr_t)sym % _Alignof(Elf64_Sym)) != 0) {
		rc = strtab[strsz - 1] != '\0' ? 1 : 0;
		goto out;
	}
	*nsyms = n;
	own_mapping_walks++;
	for (size_t i = 0; i < n; i++) {
		if (i % SYMS_PER_SLICE == 0 && i > 0) {
			window_release(&syms);
			window_release(&strs);
		}
		if (!is_function(sym[i].st_info, sym[i].st_shndx, sym[i].st_value) ||
		    sym[i].st_name >= strsz)
			continue;
		if (sink(ctx, strtab + sym[i].st_name, sym[i].st_value, sym[i].st_size,
			 sym[i].st_info) < 0) {
			rc = -1;
			break;
		}
	}
out:
	window_unmap(&syms);
	window_unmap(&strs);
	return rc;
}

/* Walks one SHT_SYMTAB or SHT_DYNSYM section.  Returns 0 (a malformed
 * table is skipped, not fatal), or -1 when out of memory. */
static int scan_symbols(Elf *elf, int fd, uint64_t file_size, const GElf_Ehdr *eh,
			Elf_Scn *scn, const GElf_Shdr *sh, symtab_sink sink, void *ctx,
			size_t *nsyms)
{
	*nsyms = 0;
	if (own_mapping && sh->sh_type != SHT_NOBITS) {
		int mapped = scan_symbols_mapped(elf, fd, file_size, eh, sh, sink, ctx, nsyms);
		if (mapped != 0)
			return mapped < 0 ? -1 : 0;
	}
	Elf_Scn *str_scn = elf_getscn(elf, sh->sh_link);
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Data *strs = str_scn ? elf_getdata(str_scn, NULL) : NULL;
	const char *strtab;
	size_t strsz, n;

	*nsyms = 0;
	if (!data || !strs || !strs->d_buf || strs->d_size == 0 ||
	    sh->sh_entsize == 0)
		return 0;
	strtab = strs->d_buf;
	strsz = strs->d_size;
	/* Names are looked at with plain string functions: the table must
	 * end in NUL so that none can run past it. */
	if (strtab[strsz - 1] != '\0')
		return 0;
	n = data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	*nsyms = n;

	if (gelf_getclass(elf) == ELFCLASS64 && data->d_type == ELF_T_SYM) {
		/* Fast path: the translated data is an array of Elf64_Sym. */
		const Elf64_Sym *sym = data->d_buf;

		for (size_t i = 0; i < n; i++) {
			if (!is_function(sym[i].st_info, sym[i].st_shndx,
					 sym[i].st_value) ||
			    sym[i].st_name >= strsz)
				continue;
			if (sink(ctx, strtab + sym[i].st_name, sym[i].st_value,
				 sym[i].st_size, sym[i].st_info) < 0)
				return -1;
		}
		return 0;
	}

	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (!is_function(sym.st_info, sym.st_shndx, sym.st_value) ||
		    sym.st_name >= strsz)
			continue;
		if (sink(ctx, strtab + sym.st_name, sym.st_value, sym.st_size,
			 sym.st_info) < 0)
			return -1;
	}
	return 0;
}

/* Looks for NT_GNU_BUILD_ID in DATA (a run of notes) and writes it in hex
 * into OUT.  Returns true when found. */
static bool note_build_id(Elf_Data *data, char out[41])
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *base = data->d_buf;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(base + name_off, "GNU", 4) == 0 && nh.n_descsz > 0) {
			size_t len = nh.n_descsz;

			if (len > 20)
				len = 20;	/* keep what fits in 40 hex digits */
			for (size_t i = 0; i < len; i++)
				snprintf(out + 2 * i, 3, "%02x", base[desc_off + i]);
			out[2 * len] = '\0';
			return true;
		}
		off = next;
	}
	return false;
}

/* Fills OUT with the build id from SHT_NOTE sections, or from PT_NOTE
 * segments when the file has no section headers; "" when there is none. */
static void find_build_id(Elf *elf, char out[41])
{
	Elf_Scn *scn = NULL;
	size_t nphdr;

	out[0] = '\0';
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && note_build_id(data, out))
			return;
	}
	if (elf_getphdrnum(elf, &nphdr) != 0)
		return;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
					    ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 :
							      ELF_T_NHDR);
		if (data && note_build_id(data, out))
			return;
	}
}

static bool libelf_ready(void)
{
	static int state;	/* 0 unknown, 1 ok, -1 mismatch */

	if (state == 0)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

int symtab_parse_debuglink(const void *data, size_t size, bool big_endian,
			   char *name, size_t len, uint32_t *crc)
{
	const unsigned char *d = data;
	const unsigned char *nul = size ? memchr(d, '\0', size) : NULL;
	size_t nlen, crc_off;

	if (!nul || nul == d)
		return -1;
	nlen = (size_t)(nul - d);
	crc_off = (nlen + 1 + 3) & ~(size_t)3;
	if (nlen >= len || crc_off > size || size - crc_off < 4 ||
	    memchr(d, '/', nlen))
		return -1;
	memcpy(name, d, nlen + 1);
	d += crc_off;
	*crc = big_endian ? (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
				    (uint32_t)d[2] << 8 | d[3]
			  : (uint32_t)d[3] << 24 | (uint32_t)d[2] << 16 |
				    (uint32_t)d[1] << 8 | d[0];
	return 0;
}

/* Fills INFO's debuglink from a .gnu_debuglink section, if any. */
static void find_debuglink(Elf *elf, const GElf_Ehdr *eh, symtab_info *inf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	inf->debuglink[0] = '\0';
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debuglink") != 0)
			continue;
		data = elf_rawdata(scn, NULL);
		if (!data || !data->d_buf ||
		    symtab_parse_debuglink(data->d_buf, data->d_size,
					   eh->e_ident[EI_DATA] == ELFDATA2MSB,
					   inf->debuglink, sizeof(inf->debuglink),
					   &inf->debuglink_crc) < 0)
			inf->debuglink[0] = '\0';
		return;
	}
}

void symtab_file_close(symtab_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Opens PATH as an ELF file into F, marking INF->is_elf.  Returns 0, or
 * -1 with a message in ERRBUF (F is then closed). */
int symtab_file_open(const char *path, symtab_file *f, symtab_info *inf,
			 char *errbuf, size_t errlen)
{
	struct stat st;
	size_t shnum;

	f->fd = -1;
	f->elf = NULL;
	if (!libelf_ready()) {
		symtab_set_err(errbuf, errlen, "libelf is out of date: %s",
			elf_errmsg(-1));
		return -1;
	}
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) < 0) {
		symtab_set_err(errbuf, errlen, "cannot open: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		symtab_set_err(errbuf, errlen, "cannot open: %s",
			S_ISDIR(st.st_mode) ? strerror(EISDIR) :
					      "not a regular file");
		goto fail;
	}
	f->size = (uint64_t)st.st_size;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf) {
		symtab_set_err(errbuf, errlen, "%s", elf_errmsg(-1));
		goto fail;
	}
	if (elf_kind(f->elf) != ELF_K_ELF) {
		symtab_set_err(errbuf, errlen, "not an ELF file");
		goto fail;
	}
	inf->is_elf = true;
	(void)elf_errno();	/* forget errors left by earlier files */

	/* libelf quietly sees no sections when their headers lie past the
	 * end of a cut-off file: say so instead of "no such symbol". */
	if (!gelf_getehdr(f->elf, &f->eh) || elf_getshdrnum(f->elf, &shnum) != 0) {
		symtab_set_err(errbuf, errlen, "%s", elf_errmsg(-1));
		goto fail;
	}
	if (f->eh.e_shoff != 0 &&
	    (f->eh.e_shoff > (uint64_t)st.st_size ||
	     (uint64_t)f->eh.e_shentsize * (shnum ? shnum : f->eh.e_shnum) >
		     (uint64_t)st.st_size - f->eh.e_shoff)) {
		symtab_set_err(errbuf, errlen,
			"truncated ELF file: section headers past its end");
		goto fail;
	}
	return 0;
fail:
	symtab_file_close(f);
	return -1;
}

/* Feeds every function symbol of F's tables to SINK and fills the rest of
 * INF.  Returns 0, or -1 with a message in ERRBUF. */
int symtab_file_walk(symtab_file *f, symtab_sink sink, void *ctx,
			 symtab_info *inf, char *errbuf, size_t errlen)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		GElf_Shdr sh;
		size_t nsyms;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if (scan_symbols(f->elf, f->fd, f->size, &f->eh, scn, &sh, sink, ctx,
				 &nsyms) < 0) {
			symtab_set_err(errbuf, errlen, "out of memory");
			return -1;
		}
		if (nsyms > 1) {	/* entry 0 is always the null symbol */
			if (sh.sh_type == SHT_SYMTAB)
				inf->has_symtab = true;
			else
				inf->has_dynsym = true;
		}
	}
	if (elf_errno() != 0) {
		/* A section header could not be read: the file is damaged. */
		symtab_set_err(errbuf, errlen, "%s", elf_errmsg(-1));
		return -1;
	}
	find_build_id(f->elf, inf->build_id);
	find_debuglink(f->elf, &f->eh, inf);
	return 0;
}
