/* bpfout_numbers — the integers of bpftrace's JSON output (bpfout.c):
 * decimal text, bare and quoted big integers, and reals where an integer
 * was expected, clamped to the int64 range and noted on the line
 * (bpfout_internal.h). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "run/bpfout_internal.h"

/* Parses S as a whole decimal integer (optional sign, digits, nothing else).
 * Returns 0 with *NEG and *MAG set; -1 when S is not one or overflows
 * 64 bits of magnitude. */
int bpfout_parse_decimal(const char *s, size_t len, bool *neg, uint64_t *mag)
{
	size_t i = 0;
	uint64_t v = 0;

	*neg = false;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		*neg = s[i++] == '-';
	if (i == len)
		return -1;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*mag = v;
	return 0;
}

/* Clamps a sign and magnitude into int64; sets *CLAMPED when it had to. */
int64_t bpfout_clamp_i64(bool neg, uint64_t mag, bool *clamped)
{
	if (neg) {
		if (mag > (uint64_t)INT64_MAX + 1) {
			*clamped = true;
			return INT64_MIN;
		}
		return mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	}
	if (mag > INT64_MAX) {
		*clamped = true;
		return INT64_MAX;
	}
	return (int64_t)mag;
}

/* True when D is a finite whole number (without libm's floor). */
static bool is_integral(double d)
{
	if (!isfinite(d))
		return false;
	if (d >= 9007199254740992.0 || d <= -9007199254740992.0)
		return true;	/* every double this large is whole */
	return (double)(int64_t)d == d;
}

static int64_t clamp_real(double d, bool *clamped)
{
	if (d >= 9223372036854775807.0) {
		*clamped = true;
		return INT64_MAX;
	}
	if (d < -9223372036854775808.0) {
		*clamped = true;
		return INT64_MIN;
	}
	return (int64_t)d;
}

/* Reads J as a signed integer: a JSON integer, an integral real (lines
 * re-read with JSON_DECODE_INT_AS_REAL), or, when STRINGS is set, a decimal
 * string (bpftrace 0.24 quotes integers a double cannot hold).  Values
 * outside int64 are clamped and the line is noted.  Returns 0 on success;
 * -1 when J is none of these. */
int bpfout_json_i64(bpfout *p, const json_t *j, bool strings, int64_t *out)
{
	if (json_is_integer(j)) {
		*out = (int64_t)json_integer_value(j);
		return 0;
	}
	if (json_is_real(j)) {
		double d = json_real_value(j);
		if (!is_integral(d))
			return -1;
		*out = clamp_real(d, &p->line_clamped);
		return 0;
	}
	if (strings && json_is_string(j)) {
		bool neg;
		uint64_t mag;
		if (bpfout_parse_decimal(json_string_value(j), json_string_length(j), &neg, &mag) < 0)
			return -1;
		*out = bpfout_clamp_i64(neg, mag, &p->line_clamped);
		return 0;
	}
	return -1;
}

/* As json_i64 for counts: negative values are rejected, the full uint64
 * range is kept. */
int bpfout_json_u64(bpfout *p, const json_t *j, uint64_t *out)
{
	if (json_is_integer(j)) {
		json_int_t v = json_integer_value(j);
		if (v < 0)
			return -1;
		*out = (uint64_t)v;
		return 0;
	}
	if (json_is_real(j)) {
		double d = json_real_value(j);
		if (!is_integral(d) || d < 0)
			return -1;
		if (d >= 18446744073709551615.0) {
			p->line_clamped = true;
			*out = UINT64_MAX;
		} else {
			*out = (uint64_t)d;
		}
		return 0;
	}
	if (json_is_string(j)) {
		bool neg;
		uint64_t mag;
		if (bpfout_parse_decimal(json_string_value(j), json_string_length(j), &neg, &mag) < 0 ||
		    (neg && mag))
			return -1;
		*out = mag;
		return 0;
	}
	return -1;
}

/* True when J is a string such as bpftrace 0.24 writes for an integer that
 * a double cannot hold exactly ((T)(double)v != v); a genuine string value
 * such as a comm of "1234" stays a string.  Sets *OUT (clamped to int64). */
bool bpfout_is_quoted_big_int(bpfout *p, const json_t *j, int64_t *out)
{
	bool neg, clamped = false;
	uint64_t mag;

	if (!json_is_string(j) ||
	    bpfout_parse_decimal(json_string_value(j), json_string_length(j), &neg, &mag) < 0)
		return false;
	int64_t v = bpfout_clamp_i64(neg, mag, &clamped);
	if (!clamped) {
		double d = neg ? (double)v : (double)mag;
		if (neg ? (int64_t)d == v : d < 18446744073709551616.0 && (uint64_t)d == mag)
			return false;
	}
	*out = v;
	p->line_clamped |= clamped;
	return true;
}
