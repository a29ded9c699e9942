/* libFuzzer harness for v8names.c, the reader of a node heap the traced
 * process controls: the input bytes are the heap (mapped at a fixed
 * address, every read outside them fails) and its first 8 bytes are the
 * sampler's record looked up (a SharedFunctionInfo's address and its mark:
 * v8meta.h), with node 20's layout.  Checks: no crash,
 * no read outside the input (AddressSanitizer), and a name, when there is
 * one, is printable ASCII without ';' and within its bounds.
 * Build and run: tests/fuzz/run.sh [SECONDS] v8names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "target/v8meta.h"
#include "target/v8names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE 0x100000ull

typedef struct heap {
	const uint8_t *data;
	size_t size;
} heap;

static int heap_read(void *ctx, uint64_t addr, void *out, size_t len)
{
	const heap *h = ctx;
	if (addr < BASE || addr - BASE > h->size || h->size - (addr - BASE) < len)
		return -1;
	memcpy(out, h->data + (addr - BASE), len);
	return 0;
}

static void node20(v8meta *m)
{
	static const struct { const char *n; int32_t v; } k[] = {
		{ "v8dbg_off_fp_function", -16 }, { "v8dbg_off_fp_context", -8 },
		{ "v8dbg_HeapObjectTag", 1 }, { "v8dbg_HeapObjectTagMask", 3 },
		{ "v8dbg_SmiTagMask", 1 }, { "v8dbg_class_HeapObject__map__Map", 0 },
		{ "v8dbg_class_Map__instance_type__uint16_t", 12 },
		{ "v8dbg_class_JSFunction__shared__SharedFunctionInfo", 24 },
		{ "v8dbg_class_SharedFunctionInfo__name_or_scope_info__Object", 16 },
		{ "v8dbg_class_SharedFunctionInfo__script_or_debug_info__HeapObject", 32 },
		{ "v8dbg_class_SharedFunctionInfo__length__uint16_t", 40 },
		{ "v8dbg_class_SharedFunctionInfo__internal_formal_parameter_count__uint16_t", 42 },
		{ "v8dbg_class_SharedFunctionInfo__raw_function_token_offset__int16_t", 44 },
		{ "v8dbg_class_Script__name__Object", 16 }, { "v8dbg_class_Script__source__Object", 8 },
		{ "v8dbg_class_Script__line_ends__Object", 56 },
		{ "v8dbg_class_String__length__int32_t", 12 },
		{ "v8dbg_class_SeqOneByteString__chars__char", 16 },
		{ "v8dbg_class_SeqTwoByteString__chars__char", 16 },
		{ "v8dbg_class_ConsString__first__String", 16 },
		{ "v8dbg_class_ConsString__second__String", 24 },
		{ "v8dbg_class_ThinString__actual__String", 16 },
		{ "v8dbg_class_FixedArrayBase__length__SMI", 8 },
		{ "v8dbg_class_FixedArray__data__uintptr_t", 16 },
		{ "v8dbg_type_JSFunction__JS_FUNCTION_TYPE", 2066 },
		{ "v8dbg_type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", 262 },
		{ "v8dbg_type_Script__SCRIPT_TYPE", 167 },
		{ "v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE", 261 },
		{ "v8dbg_type_FixedArray__FIXED_ARRAY_TYPE", 175 },
		{ "v8dbg_FirstNonstringType", 128 }, { "v8dbg_StringRepresentationMask", 7 },
		{ "v8dbg_StringEncodingMask", 8 }, { "v8dbg_OneByteStringTag", 8 },
		{ "v8dbg_SeqStringTag", 0 }, { "v8dbg_ConsStringTag", 1 },
		{ "v8dbg_ThinStringTag", 5 },
	};
	v8meta_init(m);
	for (size_t i = 0; i < sizeof k / sizeof *k; i++)
		v8meta_take(m, k[i].n, k[i].v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static v8meta meta;
	static int ready;
	char out[2 * V8NAMES_TEXT_MAX + 32];
	if (!ready) {
		node20(&meta);
		char why[128];
		if (v8meta_check(&meta, why, sizeof why) < 0)
			abort();
		ready = 1;
	}
	if (size < 8)
		return 0;
	uint64_t sfi;
	memcpy(&sfi, data, 8);
	heap h = { data, size };
	v8names_reader r = { heap_read, &h };
	if (v8names_function(&meta, &r, sfi, out, sizeof out) == 0) {
		if (strlen(out) >= sizeof out)
			abort();
		for (const char *c = out; *c; c++)
			if (*c < 0x20 || *c > 0x7e || *c == ';')
				abort();
	} else if (out[0]) {
		abort();
	}
	return 0;
}
