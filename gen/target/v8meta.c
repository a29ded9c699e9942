/* v8meta — V8's postmortem metadata of a node binary; see v8meta.h. */
#include "target/v8meta.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* One kept constant: its symbol without "v8dbg_" (a class field ends in
 * "__": any type suffix), where it goes, and whether the heap reader
 * can do without it (the frame walk needs every required one). */
typedef struct meta_field {
	const char *symbol;
	size_t offset;
	bool optional;
} meta_field;

#define F(sym, field, opt) { sym, offsetof(v8meta, field), opt }
static const meta_field fields[] = {
	F("off_fp_function", fp_function, false),
	F("off_fp_context", fp_context, false),
	F("HeapObjectTag", heap_tag, false),
	F("HeapObjectTagMask", heap_tag_mask, false),
	F("SmiTagMask", smi_tag_mask, false),
	F("TaggedSize", tagged_size, true),
	F("class_HeapObject__map__", map_off, false),
	F("class_Map__instance_type__", map_instance_type, false),
	F("class_JSFunction__shared__", jsfunction_shared, false),
	F("class_SharedFunctionInfo__name_or_scope_info__", sfi_name_or_scope_info, false),
	F("class_SharedFunctionInfo__script_or_debug_info__", sfi_script, true),
	F("class_SharedFunctionInfo__script__", sfi_script, true),
	F("class_SharedFunctionInfo__length__", sfi_length, false),
	F("class_SharedFunctionInfo__internal_formal_parameter_count__", sfi_param_count, false),
	F("class_SharedFunctionInfo__raw_function_token_offset__", sfi_token_offset, false),
	F("class_Script__name__", script_name, false),
	F("class_Script__line_ends__", script_line_ends, true),
	F("class_Script__source__", script_source, true),
	F("class_String__length__", string_length, false),
	F("class_SeqOneByteString__chars__", seq_one_chars, false),
	F("class_SeqTwoByteString__chars__", seq_two_chars, false),
	F("class_ConsString__first__", cons_first, false),
	F("class_ConsString__second__", cons_second, false),
	F("class_ThinString__actual__", thin_actual, false),
	F("class_SlicedString__parent__", sliced_parent, true),
	F("class_SlicedString__offset__", sliced_offset, true),
	F("class_FixedArrayBase__length__", fixed_array_length, true),
	F("class_FixedArray__data__", fixed_array_data, true),
	F("type_JSFunction__JS_FUNCTION_TYPE", type_jsfunction, false),
	F("type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", type_sfi, false),
	F("type_Script__SCRIPT_TYPE", type_script, false),
	F("type_ScopeInfo__SCOPE_INFO_TYPE", type_scope_info, true),
	F("type_FixedArray__FIXED_ARRAY_TYPE", type_fixed_array, true),
	F("FirstNonstringType", first_nonstring, false),
	F("StringRepresentationMask", string_rep_mask, false),
	F("StringEncodingMask", string_enc_mask, false),
	F("OneByteStringTag", one_byte_tag, false),
	F("SeqStringTag", seq_tag, false),
	F("ConsStringTag", cons_tag, false),
	F("ThinStringTag", thin_tag, false),
	F("SlicedStringTag", sliced_tag, true),
};
#undef F
#define N_FIELDS (sizeof fields / sizeof *fields)
_Static_assert(N_FIELDS <= 64, "v8meta.seen has a bit per field");

void v8meta_init(v8meta *m)
{
	memset(m, 0, sizeof *m);
	m->tagged_size = 8;	/* V8's only size without pointer compression */
}

/* Whether NAME (without "v8dbg_") is field F's symbol. */
static bool field_matches(const meta_field *f, const char *name)
{
	size_t n = strlen(f->symbol);
	if (n > 2 && f->symbol[n - 2] == '_' && f->symbol[n - 1] == '_')
		return strncmp(name, f->symbol, n) == 0 && !strstr(name + n, "__");
	return strcmp(name, f->symbol) == 0;
}

bool v8meta_take(v8meta *m, const char *name, int32_t value)
{
	if (strncmp(name, "v8dbg_", 6) != 0)
		return false;
	m->n_symbols++;
	for (size_t i = 0; i < N_FIELDS; i++)
		if (field_matches(&fields[i], name + 6)) {
			*(int *)((char *)m + fields[i].offset) = value;
			m->seen |= 1ull << i;
			return true;
		}
	return false;
}

/* Whether field I, or another field stored in the same place, was seen. */
static bool field_seen(const v8meta *m, size_t i)
{
	for (size_t k = 0; k < N_FIELDS; k++)
		if (fields[k].offset == fields[i].offset && (m->seen >> k & 1))
			return true;
	return false;
}

int v8meta_check(const v8meta *m, char *why, size_t len)
{
	if (!m->n_symbols) {
		snprintf(why, len, "the binary carries no V8 postmortem metadata (v8dbg_* symbols)");
		return -1;
	}
	for (size_t i = 0; i < N_FIELDS; i++)
		if (!fields[i].optional && !field_seen(m, i)) {
			snprintf(why, len, "the V8 metadata lacks v8dbg_%s", fields[i].symbol);
			return -1;
		}
	if (m->tagged_size != 8) {
		snprintf(why, len, "V8 was built with pointer compression (tagged size %d)",
			 m->tagged_size);
		return -1;
	}
	if (m->heap_tag_mask <= 0 || m->heap_tag_mask > 7 || (m->heap_tag & ~m->heap_tag_mask) ||
	    m->smi_tag_mask <= 0 || m->smi_tag_mask > 7) {
		snprintf(why, len, "the V8 metadata has tags this reader does not know");
		return -1;
	}
	if (m->sfi_param_count != m->sfi_length + 2 || m->sfi_token_offset != m->sfi_length + 4) {
		snprintf(why, len, "SharedFunctionInfo's length, parameter count and token offset "
			 "are not adjacent (%d, %d, %d): the sampler cannot mark functions",
			 m->sfi_length, m->sfi_param_count, m->sfi_token_offset);
		return -1;
	}
	const int *first = &m->fp_function, *last = &m->sliced_tag;
	for (const int *v = first; v <= last; v++)
		if (*v < -4096 || *v > 65535) {
			snprintf(why, len, "a V8 metadata constant is out of range (%d)", *v);
			return -1;
		}
	return 0;
}

/* The 4-byte value of symbol SYM of ELF (0 in a section without bytes,
 * such as .bss).  Returns 0, or -1 when it cannot be read. */
static int symbol_value(Elf *elf, const GElf_Sym *sym, int32_t *value)
{
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || sym->st_size < 4)
		return -1;
	if (sh.sh_type == SHT_NOBITS) {
		*value = 0;
		return 0;
	}
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || sym->st_value < sh.sh_addr ||
	    sym->st_value - sh.sh_addr > d->d_size || d->d_size - (sym->st_value - sh.sh_addr) < 4)
		return -1;
	memcpy(value, (const char *)d->d_buf + (sym->st_value - sh.sh_addr), 4);
	return 0;
}

/* Takes the v8dbg_* objects of symbol table SCN (header SH) into M. */
static void read_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, v8meta *m)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || sh->sh_entsize == 0)
		return;
	size_t n = d->d_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		int32_t value;
		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && strncmp(name, "v8dbg_", 6) == 0 && symbol_value(elf, &sym, &value) == 0)
			v8meta_take(m, name, value);
	}
}

/* Reads the tables of type TYPE of ELF into M. */
static void read_tables(Elf *elf, Elf64_Word type, v8meta *m)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			read_table(elf, scn, &sh, m);
	}
}

int v8meta_read(const char *path, v8meta *m, char *err, size_t len)
{
	v8meta_init(m);
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, len, "libelf: %s", elf_errmsg(-1));
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "%s: cannot open", path);
		return -1;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64) {
		snprintf(err, len, "%s: not a 64-bit ELF file", path);
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	/* every node build has them in .dynsym; .symtab (17 MB) only when not */
	read_tables(elf, SHT_DYNSYM, m);
	if (!m->n_symbols)
		read_tables(elf, SHT_SYMTAB, m);
	elf_end(elf);
	close(fd);
	return 0;
}
