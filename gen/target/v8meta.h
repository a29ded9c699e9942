/* v8meta — the layout constants of a node binary's V8 heap and stack
 * frames, read from the `v8dbg_*` postmortem metadata symbols the binary
 * carries (each a 4-byte integer in .data, or 0 in .bss).
 *
 * A class field is matched by "v8dbg_class_CLASS__FIELD__" whatever its
 * type suffix (SharedFunctionInfo's script field changed type across
 * majors).  Only what loop-why's frame walk (attribution/why.c) and the
 * heap reader (v8names.c) use is kept; v8meta_check says whether the set
 * is complete and usable (64-bit tagged pointers, no pointer
 * compression, offsets in range).
 *
 * Ownership: a v8meta is a plain value; nothing is allocated. */
#ifndef BPFSPEC_V8META_H
#define BPFSPEC_V8META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct v8meta {
	size_t n_symbols;	/* v8dbg_* symbols seen; 0: not a V8 binary */
	uint64_t seen;		/* bit per field below that had its symbol */
	/* frames: offsets from the frame pointer */
	int fp_function, fp_context;
	/* tagging */
	int heap_tag, heap_tag_mask, smi_tag_mask, tagged_size;
	/* object layouts: byte offsets from an object's start */
	int map_off, map_instance_type;
	int jsfunction_shared;
	int sfi_name_or_scope_info, sfi_script;
	int script_name, script_line_ends, script_source;
	int string_length, seq_one_chars, seq_two_chars;
	int cons_first, cons_second, thin_actual, sliced_parent, sliced_offset;
	int fixed_array_length, fixed_array_data;
	/* instance types and string tags */
	int type_jsfunction, type_sfi, type_script, type_scope_info, type_fixed_array;
	int first_nonstring, string_rep_mask, string_enc_mask, one_byte_tag;
	int seq_tag, cons_tag, thin_tag, sliced_tag;
} v8meta;

/* Clears M (no symbol seen). */
void v8meta_init(v8meta *m);

/* Takes symbol NAME ("v8dbg_...") with VALUE into M when it is one of the
 * constants kept.  Returns true when it was. */
bool v8meta_take(v8meta *m, const char *name, int32_t value);

/* Whether M is complete and usable.  Returns 0, or -1 with the reason in
 * WHY (size LEN): no metadata, a missing constant (named), pointer
 * compression, or a value out of range. */
int v8meta_check(const v8meta *m, char *why, size_t len);

/* Reads the v8dbg_* symbols of the ELF file PATH (.dynsym and .symtab)
 * into M (v8meta_check tells whether they are usable).  Returns 0, or -1
 * when the file cannot be read as ELF, with a message in ERR (size LEN). */
int v8meta_read(const char *path, v8meta *m, char *err, size_t len);

#endif
