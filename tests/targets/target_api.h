/* The one function libtarget.so exports (tick_inner() is internal). */
#ifndef TARGET_API_H
#define TARGET_API_H

/* Adds STEP to a counter and returns it. */
unsigned long target_tick(unsigned long step);

#endif
