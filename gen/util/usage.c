/* usage — see usage.h. */
#include "util/usage.h"

#include <stdarg.h>

#include "util/diag.h"

int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror("see `bpfspec --help`", fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}
