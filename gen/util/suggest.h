/* suggest — how far apart two words are, for "did you mean" hints.
 *
 * One measure for every hint bpfspec gives (spec keys and values, syscall
 * names, check names, USDT probes): the optimal string alignment distance,
 * i.e. the fewest insertions, deletions, substitutions and swaps of two
 * adjacent characters that turn one word into the other ("opnat" is 1
 * from "openat", "oepnat" 1 as well).  Bytes are compared as they are.
 * Bottom module: standard headers only; nothing is allocated. */
#ifndef BPFSPEC_SUGGEST_H
#define BPFSPEC_SUGGEST_H

#include <stddef.h>

/* Words longer than this are never suggested (their distance is
 * SUGGEST_FAR). */
#define SUGGEST_MAX_LEN 256
#define SUGGEST_FAR ((size_t)-1)

/* The distance between A[0..LA) and B[0..LB), or SUGGEST_FAR when either
 * is longer than SUGGEST_MAX_LEN. */
size_t suggest_distance(const char *a, size_t la, const char *b, size_t lb);

/* The same for two NUL-terminated words. */
size_t suggest_distance_str(const char *a, const char *b);

#endif
