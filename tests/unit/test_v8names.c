/* Unit tests for v8meta.c (V8's layout from v8dbg_* symbols) and
 * v8names.c (a function's name from a heap), against a heap of fabricated
 * bytes laid out as node 20's V8 lays it out, and against hostile ones:
 * a wrong type, a loop of cons strings, a huge length, an address outside
 * the heap and random bytes give no name, never a crash or a guess. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "target/v8meta.h"
#include "target/v8names.h"

/* node 20.20.2's values of the constants v8meta keeps */
static const struct { const char *name; int32_t value; } node20[] = {
	{ "v8dbg_off_fp_function", -16 }, { "v8dbg_off_fp_context", -8 },
	{ "v8dbg_HeapObjectTag", 1 }, { "v8dbg_HeapObjectTagMask", 3 },
	{ "v8dbg_SmiTagMask", 1 }, { "v8dbg_TaggedSize", 8 },
	{ "v8dbg_class_HeapObject__map__Map", 0 },
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
	{ "v8dbg_type_Script__SCRIPT_TYPE", 167 }, { "v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE", 261 },
	{ "v8dbg_type_FixedArray__FIXED_ARRAY_TYPE", 175 },
	{ "v8dbg_FirstNonstringType", 128 }, { "v8dbg_StringRepresentationMask", 7 },
	{ "v8dbg_StringEncodingMask", 8 }, { "v8dbg_OneByteStringTag", 8 },
	{ "v8dbg_SeqStringTag", 0 }, { "v8dbg_ConsStringTag", 1 }, { "v8dbg_ThinStringTag", 5 },
};

static void node20_meta(v8meta *m)
{
	v8meta_init(m);
	for (size_t i = 0; i < sizeof node20 / sizeof *node20; i++)
		ck_assert(v8meta_take(m, node20[i].name, node20[i].value));
}

/* ---- a fabricated heap ------------------------------------------------ */

#define HEAP_BASE 0x100000ull
#define HEAP_SIZE 0x10000
static unsigned char heap[HEAP_SIZE];
static uint64_t heap_top;	/* next free byte, from HEAP_BASE */

static int heap_read(void *ctx, uint64_t addr, void *out, size_t len)
{
	(void)ctx;
	if (addr < HEAP_BASE || addr - HEAP_BASE > HEAP_SIZE || HEAP_SIZE - (addr - HEAP_BASE) < len)
		return -1;
	memcpy(out, heap + (addr - HEAP_BASE), len);
	return 0;
}

static const v8names_reader reader = { heap_read, NULL };

static void put(uint64_t addr, const void *v, size_t len)
{
	ck_assert(addr >= HEAP_BASE && addr - HEAP_BASE + len <= HEAP_SIZE);
	memcpy(heap + (addr - HEAP_BASE), v, len);
}

static void put64(uint64_t addr, uint64_t v) { put(addr, &v, 8); }
static uint64_t smi(int64_t v) { return (uint64_t)v << 32; }

/* A new object of SIZE bytes whose map has instance type TYPE; tagged. */
static uint64_t new_object(uint16_t type, size_t size)
{
	uint64_t map = HEAP_BASE + heap_top;
	heap_top += 16;
	put(map + 12, &type, 2);
	put64(map, map + 1);
	uint64_t obj = HEAP_BASE + heap_top;
	heap_top += (size + 7) / 8 * 8;
	put64(obj, map + 1);
	return obj + 1;
}

static uint64_t new_string(const char *s)
{
	int32_t n = (int32_t)strlen(s);
	uint64_t o = new_object(40, 16 + (size_t)n);	/* ONE_BYTE_STRING_TYPE */
	put(o - 1 + 12, &n, 4);
	put(o - 1 + 16, s, (size_t)n);
	return o;
}

static uint64_t new_cons(uint64_t first, uint64_t second, int32_t length)
{
	uint64_t o = new_object(41, 32);	/* CONS_ONE_BYTE_STRING_TYPE */
	put(o - 1 + 12, &length, 4);
	put64(o - 1 + 16, first);
	put64(o - 1 + 24, second);
	return o;
}

/* A ScopeInfo of a function NAME (tagged) starting at START, with no
 * context locals. */
static uint64_t new_scope_info(uint64_t name, int64_t start)
{
	uint64_t o = new_object(261, 8 * 10);
	uint64_t slots[] = { smi(4288994), smi(1), smi(0), name, smi(-1), new_object(131, 8),
			     smi(start), smi(start + 40) };
	for (size_t i = 0; i < sizeof slots / sizeof *slots; i++)
		put64(o - 1 + 8 + 8 * i, slots[i]);
	return o;
}

/* The same as node 24 on lays it out: the position before the name. */
static uint64_t new_scope_info24(uint64_t name, int64_t start)
{
	uint64_t o = new_object(261, 8 * 10);
	uint64_t slots[] = { smi(0), smi(1), smi(0), smi(start), smi(start + 40), name, smi(-1),
			     new_object(131, 8) };
	for (size_t i = 0; i < sizeof slots / sizeof *slots; i++)
		put64(o - 1 + 8 + 8 * i, slots[i]);
	return o;
}

static uint64_t new_script(const char *name, const char *source)
{
	uint64_t o = new_object(167, 64);
	put64(o - 1 + 16, new_string(name));
	put64(o - 1 + 8, source ? new_string(source) : smi(0));
	put64(o - 1 + 56, new_object(131, 8));	/* line ends: undefined */
	return o;
}

static uint64_t new_sfi(uint64_t name_or_scope_info, uint64_t script)
{
	uint64_t o = new_object(262, 48);
	put64(o - 1 + 16, name_or_scope_info);
	put64(o - 1 + 32, script);
	return o;
}

static void heap_reset(void)
{
	memset(heap, 0, sizeof heap);
	heap_top = 0;
}

static const char source[] = "'use strict';\n// a comment\nfunction busy(n) {\n  return n;\n}\n";

/* ---- v8meta --------------------------------------------------------- */

START_TEST(test_meta_complete_and_checked)
{
	v8meta m;
	char why[256];
	node20_meta(&m);
	ck_assert_int_eq(v8meta_check(&m, why, sizeof why), 0);
	ck_assert_int_eq(m.jsfunction_shared, 24);
	ck_assert_int_eq(m.sfi_script, 32);
	/* node 24 names the field without "_or_debug_info" */
	ck_assert(v8meta_take(&m, "v8dbg_class_SharedFunctionInfo__script__Object", 40));
	ck_assert_int_eq(m.sfi_script, 40);
	/* not kept: other classes, other prefixes, a field of the same stem */
	ck_assert(!v8meta_take(&m, "v8dbg_class_SharedFunctionInfo__script_x__Object", 8));
	ck_assert(!v8meta_take(&m, "v8dbg_frametype_EntryFrame", 1));
	ck_assert(!v8meta_take(&m, "other_HeapObjectTag", 5));
	ck_assert_int_eq(m.heap_tag, 1);
}
END_TEST

START_TEST(test_meta_refuses_what_it_cannot_use)
{
	v8meta m;
	char why[256];
	v8meta_init(&m);
	ck_assert_int_eq(v8meta_check(&m, why, sizeof why), -1);
	ck_assert_contains(why, "no V8 postmortem metadata");
	node20_meta(&m);
	v8meta_take(&m, "v8dbg_TaggedSize", 4);
	ck_assert_int_eq(v8meta_check(&m, why, sizeof why), -1);
	ck_assert_contains(why, "pointer compression");
	/* one required constant missing */
	v8meta_init(&m);
	for (size_t i = 0; i < sizeof node20 / sizeof *node20; i++)
		if (!strstr(node20[i].name, "JSFunction__shared"))
			v8meta_take(&m, node20[i].name, node20[i].value);
	ck_assert_int_eq(v8meta_check(&m, why, sizeof why), -1);
	ck_assert_contains(why, "v8dbg_class_JSFunction__shared__");
	/* hostile values */
	node20_meta(&m);
	v8meta_take(&m, "v8dbg_class_Script__name__Object", 1 << 30);
	ck_assert_int_eq(v8meta_check(&m, why, sizeof why), -1);
	node20_meta(&m);
	v8meta_take(&m, "v8dbg_HeapObjectTagMask", -1);
	ck_assert_int_eq(v8meta_check(&m, why, sizeof why), -1);
	/* the mark's fields apart: the sampler's one read would not cover them */
	node20_meta(&m);
	v8meta_take(&m, "v8dbg_class_SharedFunctionInfo__raw_function_token_offset__int16_t", 46);
	ck_assert_int_eq(v8meta_check(&m, why, sizeof why), -1);
	ck_assert_contains(why, "not adjacent");
}
END_TEST

START_TEST(test_meta_read_files)
{
	v8meta m;
	char err[256], why[256];
	/* an ELF file without V8: read, but not usable */
	ck_assert_int_eq(v8meta_read("/bin/sh", &m, err, sizeof err), 0);
	ck_assert_int_eq(m.n_symbols, 0);
	ck_assert_int_eq(v8meta_check(&m, why, sizeof why), -1);
	ck_assert_int_eq(v8meta_read("/etc/passwd", &m, err, sizeof err), -1);
	ck_assert_contains(err, "not a 64-bit ELF");
	ck_assert_int_eq(v8meta_read("/nonexistent/node", &m, err, sizeof err), -1);
	/* the host's node, when there is one (BPFSPEC_TEST_NODE_BINARY, or
	 * /usr/bin/node, which the golden programs are generated for) */
	const char *node = getenv("BPFSPEC_TEST_NODE_BINARY");
	if (!node && access("/usr/bin/node", R_OK) == 0)
		node = "/usr/bin/node";
	if (node && *node) {
		ck_assert_int_eq(v8meta_read(node, &m, err, sizeof err), 0);
		ck_assert_msg(v8meta_check(&m, why, sizeof why) == 0, "%s: %s", node, why);
		ck_assert_int_eq(m.fp_function, -16);
	}
}
END_TEST

/* ---- v8names -------------------------------------------------------- */

static void name_of(uint64_t sfi, int rc, const char *want)
{
	v8meta m;
	char out[400];
	node20_meta(&m);
	ck_assert_int_eq(v8names_function(&m, &reader, sfi, out, sizeof out), rc);
	ck_assert_str_eq(out, want);
}

START_TEST(test_names_from_scope_info_with_line)
{
	heap_reset();
	uint64_t script = new_script("/app/x.js", source);
	/* "(n) {" of busy, line 3 */
	uint64_t sfi = new_sfi(new_scope_info(new_string("busy"), 40), script);
	name_of(sfi, 0, "busy /app/x.js:3");
	/* with line ends computed: a FixedArray of the lines' end positions */
	uint64_t ends = new_object(175, 16 + 8 * 5);
	int64_t e[] = { 13, 26, 44, 55, 57 };
	put64(ends - 1 + 8, smi(5));
	for (int i = 0; i < 5; i++)
		put64(ends - 1 + 16 + 8 * (uint64_t)i, smi(e[i]));
	put64(script - 1 + 56, ends);
	name_of(sfi, 0, "busy /app/x.js:3");
	name_of(new_sfi(new_scope_info(new_string("tail"), 50), script), 0, "tail /app/x.js:4");
	/* node 24's layout */
	name_of(new_sfi(new_scope_info24(new_string("busy"), 40), script), 0, "busy /app/x.js:3");
	/* past the last line end: no line */
	name_of(new_sfi(new_scope_info(new_string("far"), 90), script), 0, "far /app/x.js");
}
END_TEST

START_TEST(test_names_plain_anonymous_cons)
{
	heap_reset();
	uint64_t script = new_script("node:internal/timers", NULL);
	name_of(new_sfi(new_string("listOnTimeout"), script), 0, "listOnTimeout node:internal/timers");
	name_of(new_sfi(smi(0), script), 0, "(anonymous) node:internal/timers");
	name_of(new_sfi(new_scope_info(new_string(""), 3), script), 0,
		"(anonymous) node:internal/timers");
	uint64_t cons = new_cons(new_string("get "), new_string("value"), 9);
	name_of(new_sfi(cons, smi(0)), 0, "get value");
	/* a hostile name: controls and the folded form's ';' do not pass */
	name_of(new_sfi(new_string("a;b\n\x1b[31mc\x7f\xff"), smi(0)), 0, "a:b??[31mc??");
	/* a long name is cut, and says so */
	char longname[600];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	v8meta m;
	char out[400];
	node20_meta(&m);
	ck_assert_int_eq(v8names_function(&m, &reader, new_sfi(new_string(longname), smi(0)), out,
					  sizeof out), 0);
	ck_assert_uint_eq(strlen(out), V8NAMES_TEXT_MAX);
	ck_assert_str_eq(out + V8NAMES_TEXT_MAX - 3, "...");
}
END_TEST

START_TEST(test_hostile_objects_give_no_name)
{
	heap_reset();
	uint64_t script = new_script("/app/x.js", source);
	uint64_t good = new_sfi(new_string("busy"), script);
	name_of(good - 1, -1, "");			/* not tagged */
	name_of(good + 0x100000, -1, "");		/* outside the heap */
	name_of(new_object(2066, 48), -1, "");		/* a JSFunction, not its SFI */
	name_of(new_sfi(new_object(999, 16), script), -1, "");	/* name of no known type */
	/* a cons string that contains itself */
	uint64_t loop = new_cons(0, 0, 8);
	put64(loop - 1 + 16, loop);
	put64(loop - 1 + 24, loop);
	name_of(new_sfi(loop, script), -1, "");
	/* a string claiming a huge length */
	uint64_t big = new_string("abc");
	int32_t n = 0x7fffffff;
	put(big - 1 + 12, &n, 4);
	name_of(new_sfi(big, script), -1, "");
	/* a length running past the heap's end: only what a name keeps is
	 * read, and it says it was cut */
	n = 1 << 19;
	put(big - 1 + 12, &n, 4);
	v8meta m;
	char out[400];
	node20_meta(&m);
	ck_assert_int_eq(v8names_function(&m, &reader, new_sfi(big, smi(0)), out, sizeof out), 0);
	ck_assert_uint_eq(strlen(out), V8NAMES_TEXT_MAX);
	ck_assert_str_eq(out + V8NAMES_TEXT_MAX - 3, "...");

	/* a scope info counting absurdly many locals */
	uint64_t si = new_scope_info(new_string("busy"), 40);
	put64(si - 1 + 8 + 16, smi(1 << 30));
	name_of(new_sfi(si, script), -1, "");
	/* a script slot holding something else: named, without a script */
	name_of(new_sfi(new_string("busy"), new_string("not a script")), 0, "busy");
}
END_TEST

/* SFI as the sampler records it: its mark above its address. */
static uint64_t sampled(uint64_t sfi)
{
	uint64_t word;
	ck_assert_int_eq(heap_read(NULL, sfi - 1 + 40, &word, 8), 0);
	return sfi | v8meta_sfi_mark(word) << V8META_ADDRESS_BITS;
}

/* Sets SFI's length, parameter count and token offset. */
static void put_shape(uint64_t sfi, uint16_t length, uint16_t params, int16_t token)
{
	put(sfi - 1 + 40, &length, 2);
	put(sfi - 1 + 42, &params, 2);
	put(sfi - 1 + 44, &token, 2);
}

START_TEST(test_moved_function_not_taken_for_another)
{
	heap_reset();
	uint64_t script = new_script("/app/x.js", source);
	uint64_t churn = new_sfi(new_string("churn"), script);
	put_shape(churn, 1, 1, 14);
	uint64_t seen = sampled(churn);
	ck_assert_uint_ne(seen >> V8META_ADDRESS_BITS, 0);
	name_of(seen, 0, "churn /app/x.js");
	/* the bytes after the three fields are not part of the mark (V8
	 * ages functions there on some majors) */
	uint16_t age = 7;
	put(churn - 1 + 46, &age, 2);
	name_of(seen, 0, "churn /app/x.js");
	/* a compaction moved churn away and tick in at its address */
	put64(churn - 1 + 16, new_string("tick"));
	put_shape(churn, 0, 0, 13);
	name_of(seen, -1, "");
	name_of(sampled(churn), 0, "tick /app/x.js");
	/* a mark leaves the record's top bit clear: bpftrace would print
	 * the key negative */
	for (uint64_t w = 1; w; w <<= 1)
		ck_assert_uint_lt(v8meta_sfi_mark(w * 0x9d) << V8META_ADDRESS_BITS, 1ull << 63);
	/* a mark without the function under it */
	name_of((seen & V8META_ADDRESS_MASK) + 0x100000, -1, "");
}
END_TEST

START_TEST(test_random_heaps_never_crash)
{
	v8meta m;
	char out[400];
	node20_meta(&m);
	srand(35);
	for (int round = 0; round < 40; round++) {
		for (size_t i = 0; i < HEAP_SIZE; i++)
			heap[i] = (unsigned char)(rand() % 4 == 0 ? rand() : (i % 8 == 0 ? 0x01 : 0));
		/* pointers into the heap here and there, tagged */
		for (int k = 0; k < 2000; k++) {
			uint64_t at = HEAP_BASE + (uint64_t)(rand() % (HEAP_SIZE / 8)) * 8;
			put64(at, HEAP_BASE + (uint64_t)(rand() % HEAP_SIZE) / 8 * 8 + 1);
		}
		for (int k = 0; k < 200; k++) {
			uint64_t sfi = HEAP_BASE + (uint64_t)(rand() % HEAP_SIZE) / 8 * 8 + 1;
			if (v8names_function(&m, &reader, sfi, out, sizeof out) == 0)
				for (const char *c = out; *c; c++)
					ck_assert(*c >= 0x20 && *c < 0x7f && *c != ';');
			else
				ck_assert_str_eq(out, "");
		}
	}
}
END_TEST

static Suite *v8names_suite(void)
{
	Suite *s = suite_create("v8names");
	TCase *tc = tcase_create("v8names");
	tcase_add_test(tc, test_meta_complete_and_checked);
	tcase_add_test(tc, test_meta_refuses_what_it_cannot_use);
	tcase_add_test(tc, test_meta_read_files);
	tcase_add_test(tc, test_names_from_scope_info_with_line);
	tcase_add_test(tc, test_names_plain_anonymous_cons);
	tcase_add_test(tc, test_hostile_objects_give_no_name);
	tcase_add_test(tc, test_moved_function_not_taken_for_another);
	tcase_add_test(tc, test_random_heaps_never_crash);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(v8names_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
