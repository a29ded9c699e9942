/* v8names — JavaScript function names from a node heap; see v8names.h. */
#include "target/v8names.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Cons strings nest; a name is never deeper than this here. */
#define STRING_DEPTH 6
/* A string longer than this is not a name (V8's own limit is 2^29). */
#define STRING_LENGTH_MAX (1 << 20)

static int read_u64(const v8names_reader *r, uint64_t addr, uint64_t *v)
{
	return r->read(r->ctx, addr, v, sizeof *v);
}

/* Whether V is a tagged pointer to a heap object under M's tagging. */
static bool is_heap_object(const v8meta *m, uint64_t v)
{
	return v > 4096 && (v & (uint64_t)m->heap_tag_mask) == (uint64_t)m->heap_tag;
}

/* Whether V is a small integer; its value into *OUT (64-bit V8 keeps it
 * in the upper half). */
static bool smi_value(const v8meta *m, uint64_t v, int64_t *out)
{
	if (v & (uint64_t)m->smi_tag_mask)
		return false;
	*out = (int64_t)v >> 32;
	return true;
}

/* The field at byte OFF of the object OBJ (tagged). */
static int read_field(const v8meta *m, const v8names_reader *r, uint64_t obj, int off,
		      uint64_t *v)
{
	return read_u64(r, obj - (uint64_t)m->heap_tag + (uint64_t)(int64_t)off, v);
}

/* The instance type of object OBJ (tagged), its map checked to be a heap
 * object.  Returns 0, or -1. */
static int object_type(const v8meta *m, const v8names_reader *r, uint64_t obj, int *type)
{
	uint64_t map;
	uint16_t t;
	if (!is_heap_object(m, obj) || read_field(m, r, obj, m->map_off, &map) < 0 ||
	    !is_heap_object(m, map) ||
	    r->read(r->ctx, map - (uint64_t)m->heap_tag + (uint64_t)m->map_instance_type, &t,
		    sizeof t) < 0)
		return -1;
	*type = t;
	return 0;
}

/* A text being built: at most CAP bytes, cut marked. */
typedef struct text {
	char *s;
	size_t len, cap;
	bool cut;
} text;

/* Appends code unit C: printable ASCII as it is ('?' for anything else;
 * ';' as ':', the folded form's separator). */
static void text_put(text *t, unsigned c)
{
	if (t->len >= t->cap) {
		t->cut = true;
		return;
	}
	t->s[t->len++] = c == ';' ? ':' : (c >= 0x20 && c < 0x7f) ? (char)c : '?';
}

/* Appends COUNT characters from START of a sequential string's bytes
 * at ADDR (TWO: two bytes each). */
static int put_seq(const v8names_reader *r, uint64_t addr, bool two, int64_t start,
		   int64_t count, text *t)
{
	unsigned char chunk[128];
	size_t unit = two ? 2 : 1;
	for (int64_t i = 0; i < count && t->len < t->cap;) {
		size_t n = (size_t)(count - i) * unit;
		if (n > sizeof chunk)
			n = sizeof chunk;
		if (r->read(r->ctx, addr + (uint64_t)(start + i) * unit, chunk, n) < 0)
			return -1;
		for (size_t k = 0; k < n; k += unit)
			text_put(t, two ? (unsigned)(chunk[k] | chunk[k + 1] << 8) : chunk[k]);
		i += (int64_t)(n / unit);
	}
	if (t->len >= t->cap && count > 0)
		t->cut = true;
	return 0;
}

static int put_string(const v8meta *m, const v8names_reader *r, uint64_t s, int depth,
		      text *t);

/* Appends a cons string's two halves, or a thin string's target. */
static int put_indirect(const v8meta *m, const v8names_reader *r, uint64_t s, int rep,
			int depth, text *t)
{
	uint64_t a, b;
	if (rep == m->thin_tag)
		return read_field(m, r, s, m->thin_actual, &a) < 0 ? -1
			: put_string(m, r, a, depth + 1, t);
	if (read_field(m, r, s, m->cons_first, &a) < 0 ||
	    read_field(m, r, s, m->cons_second, &b) < 0 || put_string(m, r, a, depth + 1, t) < 0)
		return -1;
	return t->len >= t->cap ? 0 : put_string(m, r, b, depth + 1, t);
}

/* Appends string S (tagged): sequential, cons or thin (external and
 * sliced strings are not read: -1). */
static int put_string(const v8meta *m, const v8names_reader *r, uint64_t s, int depth,
		      text *t)
{
	int type;
	int32_t length;
	if (depth > STRING_DEPTH || object_type(m, r, s, &type) < 0 ||
	    type >= m->first_nonstring ||
	    r->read(r->ctx, s - (uint64_t)m->heap_tag + (uint64_t)m->string_length, &length,
		    sizeof length) < 0 ||
	    length < 0 || length > STRING_LENGTH_MAX)
		return -1;
	int rep = type & m->string_rep_mask;
	bool one = (type & m->string_enc_mask) == m->one_byte_tag;
	if (rep == m->seq_tag) {
		int off = one ? m->seq_one_chars : m->seq_two_chars;
		return put_seq(r, s - (uint64_t)m->heap_tag + (uint64_t)off, !one, 0, length, t);
	}
	if (rep == m->cons_tag || rep == m->thin_tag)
		return put_indirect(m, r, s, rep, depth, t);
	return -1;
}

/* String S (tagged) into BUF (size LEN > 4), "..." ending a cut one.
 * Returns its length, or -1 when S is not a string this can read. */
static int string_text(const v8meta *m, const v8names_reader *r, uint64_t s, char *buf,
		       size_t len)
{
	text t = { .s = buf, .len = 0, .cap = len - 4 };
	if (put_string(m, r, s, 0, &t) < 0) {
		buf[0] = '\0';
		return -1;
	}
	if (t.cut) {
		memcpy(t.s + t.len, "...", 3);
		t.len += 3;
	}
	buf[t.len] = '\0';
	return (int)t.len;
}

/* Slot I of ScopeInfo SI (its tagged fields follow the map). */
static int scope_slot(const v8meta *m, const v8names_reader *r, uint64_t si, int i,
		      uint64_t *v)
{
	return read_field(m, r, si, m->map_off + 8 * (1 + i), v);
}

/* Whether slot AT of ScopeInfo SI is a string followed by a small
 * integer (a function's name and its slot); the name then into NAME. */
static bool name_at(const v8meta *m, const v8names_reader *r, uint64_t si, int at, char *name,
		    size_t len)
{
	uint64_t v, next;
	int64_t index;
	int type;
	return scope_slot(m, r, si, at, &v) == 0 && scope_slot(m, r, si, at + 1, &next) == 0 &&
	       is_heap_object(m, v) && object_type(m, r, v, &type) == 0 &&
	       type < m->first_nonstring && smi_value(m, next, &index) &&
	       string_text(m, r, v, name, len) >= 0;
}

/* Whether slots AT and AT+1 of ScopeInfo SI are a source position (two
 * small integers, 0 <= start <= end); the start then into *START. */
static bool position_at(const v8meta *m, const v8names_reader *r, uint64_t si, int at,
			int64_t *start)
{
	uint64_t a, b;
	int64_t s, e;
	if (scope_slot(m, r, si, at, &a) < 0 || scope_slot(m, r, si, at + 1, &b) < 0 ||
	    !smi_value(m, a, &s) || !smi_value(m, b, &e) || s < 0 || s > e)
		return false;
	*start = s;
	return true;
}

/* V8 keeps a compiled function's name and source position in its
 * ScopeInfo, after three counts (flags, parameters, context locals), laid
 * out one of two ways (the context locals' names and infos take LOCALS
 * slots: one name slot, a hash table, past 75 locals; a saved class
 * variable, a small integer, may come before the name):
 *   node 18 to 22: locals, the name with its slot, the inferred name, the
 *                  position (start, end);
 *   node 24 on:    the position, locals, the name with its slot.
 * The name is taken only as a string right before a small integer, the
 * position only as two small integers start <= end.  NAME gets the name
 * and *START the start (-1 when unknown).  Returns 0, or -1 when SI is
 * laid out neither way. */
static int scope_info_name(const v8meta *m, const v8names_reader *r, uint64_t si, char *name,
			   size_t len, int64_t *start)
{
	uint64_t v;
	int64_t locals;
	*start = -1;
	if (scope_slot(m, r, si, 2, &v) < 0 || !smi_value(m, v, &locals) || locals < 0 ||
	    locals > 100000)
		return -1;
	int slots = (locals > 75 ? 1 : (int)locals) + (int)locals;
	for (int at = 3 + slots; at < 5 + slots; at++)
		if (name_at(m, r, si, at, name, len)) {
			if (!position_at(m, r, si, at + 3, start))
				*start = -1;
			return 0;
		}
	if (!position_at(m, r, si, 3, start))
		return -1;
	for (int at = 5 + slots; at < 7 + slots; at++)
		if (name_at(m, r, si, at, name, len))
			return 0;
	*start = -1;
	return -1;
}

/* The function's name (NAME) and start position (*START, -1 unknown)
 * from SFI's name_or_scope_info: a string (the name), a ScopeInfo, or a
 * small integer (no name).  Returns 0, or -1. */
static int function_name(const v8meta *m, const v8names_reader *r, uint64_t sfi, char *name,
			 size_t len, int64_t *start)
{
	uint64_t v;
	int64_t none;
	int type;
	*start = -1;
	name[0] = '\0';
	if (read_field(m, r, sfi, m->sfi_name_or_scope_info, &v) < 0)
		return -1;
	if (smi_value(m, v, &none))
		return 0;
	if (object_type(m, r, v, &type) < 0)
		return -1;
	if (type < m->first_nonstring)
		return string_text(m, r, v, name, len) < 0 ? -1 : 0;
	if (m->type_scope_info && type == m->type_scope_info)
		return scope_info_name(m, r, v, name, len, start);
	return -1;
}

/* A source longer than this is not scanned for its lines. */
#define SOURCE_SCAN_MAX (8 << 20)

/* The line (from 1) of position POS in SCRIPT's source, a sequential
 * string, by counting the newlines before it.  Returns -1 when the source
 * is of another kind or cannot be read. */
static int64_t source_line(const v8meta *m, const v8names_reader *r, uint64_t script,
			   int64_t pos)
{
	uint64_t src;
	int32_t length;
	int type;
	unsigned char chunk[4096];
	if (!m->script_source || read_field(m, r, script, m->script_source, &src) < 0 ||
	    object_type(m, r, src, &type) < 0 || type >= m->first_nonstring ||
	    (type & m->string_rep_mask) != m->seq_tag ||
	    r->read(r->ctx, src - (uint64_t)m->heap_tag + (uint64_t)m->string_length, &length,
		    sizeof length) < 0 ||
	    pos > length || pos > SOURCE_SCAN_MAX)
		return -1;
	bool one = (type & m->string_enc_mask) == m->one_byte_tag;
	size_t unit = one ? 1 : 2;
	uint64_t chars = src - (uint64_t)m->heap_tag +
			 (uint64_t)(one ? m->seq_one_chars : m->seq_two_chars);
	int64_t line = 1;
	for (int64_t i = 0; i < pos;) {
		size_t n = (size_t)(pos - i) * unit;
		if (n > sizeof chunk)
			n = sizeof chunk;
		if (r->read(r->ctx, chars + (uint64_t)i * unit, chunk, n) < 0)
			return -1;
		for (size_t k = 0; k < n; k += unit)
			line += chunk[k] == '\n' && (one || chunk[k + 1] == 0);
		i += (int64_t)(n / unit);
	}
	return line;
}

/* The line (from 1) of position POS in SCRIPT, from its line ends when
 * V8 computed them (a FixedArray of small integers, searched), else by
 * counting the newlines before POS in its source (a sequential string).
 * Returns the line, or -1 when neither can be read. */
static int64_t script_line(const v8meta *m, const v8names_reader *r, uint64_t script,
			   int64_t pos)
{
	uint64_t ends, v;
	int64_t n, end;
	int type;
	if (m->script_line_ends && m->type_fixed_array && m->fixed_array_data &&
	    read_field(m, r, script, m->script_line_ends, &ends) == 0 &&
	    object_type(m, r, ends, &type) == 0 && type == m->type_fixed_array &&
	    read_field(m, r, ends, m->fixed_array_length, &v) == 0 && smi_value(m, v, &n) &&
	    n > 0 && n <= 50000000) {
		int64_t lo = 0, hi = n;	/* the first end >= pos */
		while (lo < hi) {
			int64_t mid = lo + (hi - lo) / 2;
			if (read_field(m, r, ends, m->fixed_array_data + (int)(8 * mid), &v) < 0 ||
			    !smi_value(m, v, &end))
				return -1;
			if (end < pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < n ? lo + 1 : -1;
	}
	return source_line(m, r, script, pos);
}

/* SFI's Script (tagged) into *SCRIPT.  Returns 0, or -1 when SFI holds
 * none (a builtin, or debug info in its place). */
static int function_script(const v8meta *m, const v8names_reader *r, uint64_t sfi,
			   uint64_t *script)
{
	int type;
	if (!m->sfi_script || read_field(m, r, sfi, m->sfi_script, script) < 0 ||
	    object_type(m, r, *script, &type) < 0 || type != m->type_script)
		return -1;
	return 0;
}

/* Whether the SharedFunctionInfo SFI (tagged, its type checked) has the
 * mark MARK (v8meta_sfi_mark): still the function the sampler saw. */
static bool has_mark(const v8meta *m, const v8names_reader *r, uint64_t sfi, uint64_t mark)
{
	uint64_t word;
	return read_field(m, r, sfi, m->sfi_length, &word) == 0 && v8meta_sfi_mark(word) == mark;
}

int v8names_function(const v8meta *m, const v8names_reader *r, uint64_t sampled, char *out,
		     size_t len)
{
	char name[V8NAMES_TEXT_MAX + 1], file[V8NAMES_TEXT_MAX + 1];
	uint64_t script, sname, sfi = sampled & V8META_ADDRESS_MASK;
	int64_t start, line = -1;
	int type;
	if (len)
		out[0] = '\0';
	if (len < 8 || object_type(m, r, sfi, &type) < 0 || type != m->type_sfi ||
	    !has_mark(m, r, sfi, sampled >> V8META_ADDRESS_BITS) ||
	    function_name(m, r, sfi, name, sizeof name, &start) < 0)
		return -1;
	file[0] = '\0';
	if (function_script(m, r, sfi, &script) == 0) {
		if (read_field(m, r, script, m->script_name, &sname) < 0 ||
		    string_text(m, r, sname, file, sizeof file) < 0)
			file[0] = '\0';
		if (file[0] && start >= 0)
			line = script_line(m, r, script, start);
	}
	const char *shown = name[0] ? name : "(anonymous)";
	if (line > 0)
		snprintf(out, len, "%s %s:%lld", shown, file, (long long)line);
	else if (file[0])
		snprintf(out, len, "%s %s", shown, file);
	else
		snprintf(out, len, "%s", shown);
	return 0;
}

/* ---- the reader of a live process ---------------------------------- */

typedef struct proc_reader {
	v8names_reader r;
	int fd;
} proc_reader;

static int proc_read(void *ctx, uint64_t addr, void *out, size_t len)
{
	const proc_reader *p = ctx;
	if (addr > (uint64_t)INT64_MAX - len)
		return -1;
	ssize_t n = pread(p->fd, out, len, (off_t)addr);
	return n == (ssize_t)len ? 0 : -1;
}

v8names_reader *v8names_proc_open(long pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/mem", pid);
	proc_reader *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0) {
		free(p);
		return NULL;
	}
	p->r.read = proc_read;
	p->r.ctx = p;
	return &p->r;
}

void v8names_proc_close(v8names_reader *r)
{
	if (!r)
		return;
	proc_reader *p = r->ctx;
	close(p->fd);
	free(p);
}
