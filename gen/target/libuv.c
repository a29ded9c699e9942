/* libuv — see libuv.h. */
#include "target/libuv.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "target/elf_hash.h"
#include "target/symtab.h"

static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const unsigned char frame_setup[4] = { 0x55, 0x48, 0x89, 0xe5 };	/* push rbp; mov rbp,rsp */

/* Where the body of CODE starts: after an endbr64 and after a frame
 * pointer's setup (builds with -fno-omit-frame-pointer, node 26's).
 * *FRAMED tells whether the return is then `pop rbp; ret`. */
static size_t body_start(const unsigned char *code, size_t n, bool *framed)
{
	size_t i = n >= 4 && memcmp(code, endbr64, 4) == 0 ? 4 : 0;

	*framed = n >= i + 4 && memcmp(code + i, frame_setup, 4) == 0;
	return *framed ? i + 4 : i;
}

/* Whether CODE[AT..] returns: `ret`, or `pop rbp; ret` when FRAMED. */
static bool returns_at(const unsigned char *code, size_t n, size_t at, bool framed)
{
	if (framed)
		return n >= at + 2 && code[at] == 0x5d && code[at + 1] == 0xc3;
	return n >= at + 1 && code[at] == 0xc3;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int libuv_decode_string_fn(const unsigned char *code, size_t n, unsigned long long addr,
			   unsigned long long *str)
{
	bool framed;
	size_t i = body_start(code, n, &framed);

	/* lea rax,[rip+disp32]; ret */
	if (n >= i + 7 && code[i] == 0x48 && code[i + 1] == 0x8d && code[i + 2] == 0x05 &&
	    returns_at(code, n, i + 7, framed)) {
		int32_t disp = (int32_t)le32(code + i + 3);

		*str = addr + i + 7 + (unsigned long long)(long long)disp;
		return 0;
	}
	/* mov eax,imm32; ret */
	if (n >= i + 5 && code[i] == 0xb8 && returns_at(code, n, i + 5, framed)) {
		*str = le32(code + i + 1);
		return 0;
	}
	return -1;
}

int libuv_decode_version_fn(const unsigned char *code, size_t n, char *out, size_t len)
{
	bool framed;
	size_t i = body_start(code, n, &framed);

	if (n < i + 5 || code[i] != 0xb8 || !returns_at(code, n, i + 5, framed))
		return -1;
	uint32_t v = le32(code + i + 1);
	if (v >> 24)
		return -1;
	snprintf(out, len, "%u.%u.%u", v >> 16 & 0xff, v >> 8 & 0xff, v & 0xff);
	return 0;
}

/* Reads LEN bytes at virtual address ADDR of ELF into OUT, through the
 * PT_LOAD segment that holds them.  Returns the bytes read (may be short
 * at a segment's end), or -1. */
static ssize_t read_vaddr(Elf *elf, int fd, uint64_t addr, unsigned char *out, size_t len)
{
	size_t nphdr;

	if (elf_getphdrnum(elf, &nphdr) != 0)
		return -1;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz)
			continue;
		uint64_t avail = ph.p_filesz - (addr - ph.p_vaddr);
		if (len > avail)
			len = (size_t)avail;
		return pread(fd, out, len, (off_t)(ph.p_offset + (addr - ph.p_vaddr)));
	}
	return -1;
}

/* A version string: digits and dots, an optional "-suffix". */
static bool version_like(const char *s)
{
	size_t digits = strspn(s, "0123456789.");

	return digits >= 5 && s[0] >= '0' && s[0] <= '9' && strchr(s, '.') &&
	       (s[digits] == '\0' || s[digits] == '-');
}

/* Reads the version through the code at the two functions' addresses
 * (0: not found) in ELF, open on FD. */
static int read_from_code(Elf *elf, int fd, uint64_t str_fn, uint64_t ver_fn, char *out,
			  size_t len)
{
	unsigned char code[16];
	char text[40];
	unsigned long long str;
	ssize_t n;

	if (str_fn && (n = read_vaddr(elf, fd, str_fn, code, sizeof code)) > 0 &&
	    libuv_decode_string_fn(code, (size_t)n, str_fn, &str) == 0 &&
	    (n = read_vaddr(elf, fd, str, (unsigned char *)text, sizeof text - 1)) > 0) {
		text[n] = '\0';
		if (version_like(text)) {
			snprintf(out, len, "%s", text);
			return 0;
		}
	}
	if (ver_fn && (n = read_vaddr(elf, fd, ver_fn, code, sizeof code)) > 0 &&
	    libuv_decode_version_fn(code, (size_t)n, out, len) == 0)
		return 0;
	return -1;
}

int libuv_version(const char *path, char *out, size_t len)
{
	static const char *const names[2] = { "uv_version_string", "uv_version" };
	symtab_query q[2] = { { .name = names[0] }, { .name = names[1] } };
	uint64_t addrs[2] = { 0, 0 };
	char err[200];
	int rc = -1, fd;
	Elf *elf = NULL;

	if (len)
		out[0] = '\0';
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	/* Both are exported (node exports libuv for its addons; libuv.so,
	 * even stripped, has them in .dynsym): the loader's hash table finds
	 * them without a walk of every symbol.  Else, or without the table,
	 * the walk (a static link may keep them local, in .symtab). */
	if ((elf_hash_lookup(elf, names, 2, addrs) < 0 || (!addrs[0] && !addrs[1])) &&
	    symtab_resolve(path, q, 2, NULL, err, sizeof err) == 0) {
		addrs[0] = q[0].n_matches ? q[0].matches[0].addr : 0;
		addrs[1] = q[1].n_matches ? q[1].matches[0].addr : 0;
	}
	if (addrs[0] || addrs[1])
		rc = read_from_code(elf, fd, addrs[0], addrs[1], out, len);
out:
	symtab_query_free(q, 2);
	if (elf)
		elf_end(elf);
	close(fd);
	if (rc < 0 && len)
		out[0] = '\0';
	return rc;
}

int libuv_target_version(const target *t, char *out, size_t len, const char **object)
{
	for (size_t i = 0; i < t->n_objects; i++) {
		if (libuv_version(t->objects[i], out, len) == 0) {
			if (object)
				*object = t->objects[i];
			return 0;
		}
	}
	return -1;
}

bool libuv_is_phase_function(const char *name)
{
	static const char *const phases[] = {
		"uv__run_timers", "uv__run_pending", "uv__run_idle", "uv__run_prepare",
		"uv__io_poll", "uv__run_check", "uv__run_closing_handles", NULL,
	};
	for (size_t k = 0; name && phases[k]; k++)
		if (strcmp(name, phases[k]) == 0)
			return true;
	return false;
}
