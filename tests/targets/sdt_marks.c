/* sdt_marks — a program with two USDT probes for `bpfspec symbols` to
 * list: shop:tick (2 arguments) and shop:close (none).  It does not need
 * to run. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;

	for (long i = 0; i < n; i++)
		DTRACE_PROBE2(shop, tick, i, n);
	DTRACE_PROBE(shop, close);
	printf("%ld\n", n);
	return 0;
}
