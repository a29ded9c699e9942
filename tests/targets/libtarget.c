/* libtarget — a shared library with a function that only its .symtab
 * names: tick_inner() is hidden (not in .dynsym), so once the library is
 * stripped it can be found only through a separate debug file.
 * tests/integration/test_targets.sh builds it plain, stripped with a
 * debug file (build-id and debuglink layouts), and stripped without one. */
#include "target_api.h"

static volatile unsigned long ticks;

__attribute__((noinline, visibility("hidden"))) unsigned long tick_inner(unsigned long step)
{
	ticks += step;
	return ticks;
}

unsigned long target_tick(unsigned long step)
{
	return tick_inner(step);
}
