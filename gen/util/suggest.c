/* suggest — see suggest.h. */
#include "util/suggest.h"

#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

size_t suggest_distance(const char *a, size_t la, const char *b, size_t lb)
{
	/* Three rows of the table: i-2, i-1 and i (a swap looks two back). */
	size_t rows[3][SUGGEST_MAX_LEN + 1];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SUGGEST_FAR;
	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = rows[i % 3], *up = rows[(i - 1) % 3], *up2 = rows[(i + 1) % 3];
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t v = min3(up[j - 1] + (a[i - 1] != b[j - 1]), up[j] + 1, cur[j - 1] + 1);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    up2[j - 2] + 1 < v)
				v = up2[j - 2] + 1;
			cur[j] = v;
		}
	}
	return rows[la % 3][lb];
}

size_t suggest_distance_str(const char *a, const char *b)
{
	return suggest_distance(a, strlen(a), b, strlen(b));
}
