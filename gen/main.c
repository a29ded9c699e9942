/* main — bpfspec's command line (temporary skeleton: `check` only). */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "spec.h"

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "check") == 0) {
		int rc = 0;
		for (int i = 2; i < argc; i++) {
			spec *s = spec_load(argv[i]);
			if (!s) {
				rc = 3;
				continue;
			}
			printf("%s: ok\n", argv[i]);
			spec_free(s);
		}
		return rc;
	}
	fprintf(stderr, "usage: bpfspec check SPEC...\n");
	return 2;
}
