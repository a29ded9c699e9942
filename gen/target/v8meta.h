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
	int sfi_length, sfi_param_count, sfi_token_offset;	/* adjacent 2-byte fields */
	int script_name, script_line_ends, script_source;
	int string_length, seq_one_chars, seq_two_chars;
	int cons_first, cons_second, thin_actual, sliced_parent, sliced_offset;
	int fixed_array_length, fixed_array_data;
	/* instance types and string tags */
	int type_jsfunction, type_sfi, type_script, type_scope_info, type_fixed_array;
	int first_nonstring, string_rep_mask, string_enc_mask, one_byte_tag;
	int seq_tag, cons_tag, thin_tag, sliced_tag;
} v8meta;

/* The sampler's record of a frame's function (attribution/why.c): the
 * SharedFunctionInfo's tagged address in the low V8META_ADDRESS_BITS
 * bits and, above them, its mark (v8meta_sfi_mark) as read at the
 * sample.  A collection that compacts the heap moves functions: the
 * heap reader names an address only when the function there still has
 * the mark, so a function moved in, another one's, is not taken for the
 * one sampled.  The mark is 15 bits of a hash (bpftrace prints a key
 * with the top bit set as a negative number): a moved-in function with
 * the same length, parameter count and token offset, or one whose hash
 * falls alike (1 in 32768), is not told apart. */
#define V8META_ADDRESS_BITS 48
#define V8META_ADDRESS_MASK ((1ull << V8META_ADDRESS_BITS) - 1)
#define V8META_MARK_BITS 15
/* An odd 63-bit multiplier (bpftrace 0.17 reads no larger literal). */
#define V8META_MARK_MULTIPLIER 0x5851F42D4C957F2Dull

/* The mark of a SharedFunctionInfo whose 8 bytes at sfi_length are WORD:
 * its length, formal parameter count and function token offset (the low
 * 48 bits, fixed for the function's life), hashed to V8META_MARK_BITS
 * bits.  The sampler computes the same in bpftrace. */
static inline uint64_t v8meta_sfi_mark(uint64_t word)
{
	return ((word & V8META_ADDRESS_MASK) * V8META_MARK_MULTIPLIER) >> (64 - V8META_MARK_BITS);
}

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
