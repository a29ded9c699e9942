/* http_route — a request's first bytes into its method and route
 * (http.h).  The bytes are the traced server's client's: anything but
 * NUL, perhaps cut.  Every index is checked against the length read and
 * the room written. */
#include <string.h>

#include "kinds/http.h"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_uuid(const char *s, size_t len)
{
	if (len != 36)
		return false;
	for (size_t i = 0; i < len; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !is_hex(s[i]))
			return false;
	}
	return true;
}

bool http_segment_is_id(const char *seg, size_t len)
{
	size_t digits = 0, hex = 0;

	if (len == 0)
		return false;
	if (is_uuid(seg, len))
		return true;
	for (size_t i = 0; i < len; i++) {
		digits += seg[i] >= '0' && seg[i] <= '9';
		hex += is_hex(seg[i]);
	}
	return digits == len || (hex == len && len >= 16);
}

/* Appends N bytes of S to OUT (of *USED bytes, room HTTP_ROUTE_MAX);
 * returns false when they did not all fit. */
static bool put(char *out, size_t *used, const char *s, size_t n)
{
	size_t room = HTTP_ROUTE_MAX - *used;
	size_t k = n < room ? n : room;
	memcpy(out + *used, s, k);
	*used += k;
	out[*used] = '\0';
	return k == n;
}

/* Ends OUT (of *USED bytes) in "...", in the last room there is. */
static void mark_cut(char *out, size_t *used)
{
	if (*used > HTTP_ROUTE_MAX - 3)
		*used = HTTP_ROUTE_MAX - 3;
	memcpy(out + *used, "...", 4);
	*used += 3;
}

/* The path of TARGET (LEN bytes) folded into OUT; returns false when it
 * did not fit. */
static bool fold_path(const char *target, size_t len, char *out, size_t *used)
{
	size_t i = 0;
	while (i < len) {
		size_t start = ++i;	/* past the '/' */
		while (i < len && target[i] != '/')
			i++;
		if (!put(out, used, "/", 1))
			return false;
		bool id = http_segment_is_id(target + start, i - start);
		if (!(id ? put(out, used, ":id", 3) : put(out, used, target + start, i - start)))
			return false;
	}
	return true;
}

/* The method at the start of LINE (LEN bytes) into OUT; returns the
 * length it took, 0 when it is not one. */
static size_t read_method(const char *line, size_t len, char *out)
{
	size_t n = 0;
	while (n < len && n < HTTP_METHOD_MAX && line[n] >= 'A' && line[n] <= 'Z')
		n++;
	if (n == 0 || n >= len || line[n] != ' ') {
		out[0] = '\0';
		return 0;
	}
	memcpy(out, line, n);
	out[n] = '\0';
	return n;
}

void http_parse_line(const char *line, size_t len, size_t cut_at, http_request_line *out)
{
	size_t used = 0;

	memset(out, 0, sizeof *out);
	size_t m = read_method(line, len, out->method);
	if (m == 0)
		return;
	const char *t = line + m + 1;
	size_t tl = 0, rest = len - m - 1;
	while (tl < rest && t[tl] != ' ' && t[tl] != '\r' && t[tl] != '\n')
		tl++;
	bool ended = memchr(line, '\n', len) || memchr(line, '\r', len);
	out->cut = tl == rest && !ended && len >= cut_at;
	/* absolute form: the path after the authority */
	const char *scheme = tl >= 7 ? memchr(t, ':', tl < 8 ? tl : 8) : NULL;
	if (scheme && scheme + 2 < t + tl && scheme[1] == '/' && scheme[2] == '/') {
		const char *path = memchr(scheme + 3, '/', (size_t)(t + tl - scheme - 3));
		size_t skip = path ? (size_t)(path - t) : tl;
		t += skip;
		tl -= skip;
		if (!path) {
			put(out->route, &used, "/", 1);
			return;
		}
	}
	size_t path_len = 0;
	while (path_len < tl && t[path_len] != '?' && t[path_len] != '#')
		path_len++;
	bool query = path_len < tl;
	if (tl == 1 && t[0] == '*') {
		put(out->route, &used, "*", 1);
	} else if (tl == 0 || t[0] != '/') {
		put(out->route, &used, "(not a path)", 12);
		return;
	} else if (!fold_path(t, path_len, out->route, &used) || (out->cut && !query)) {
		mark_cut(out->route, &used);
	}
}
