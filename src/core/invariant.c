/* invariant.c: what happens when a checked invariant (core.h) fails. Only
 * builds with SPRAYSIM_CHECKS have checks; in the others this file holds
 * nothing. The message is formatted here, once, and handed to a hook so
 * the tests of the checks themselves can record a failure instead of
 * aborting.
 */
#include "core.h"

#ifdef SPRAYSIM_CHECKS

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void invariant_hook_default(const char *file, int line, const char *message)
{
    fflush(stdout);
    fprintf(stderr, "spraysim: invariant failed at %s:%d: %s\n", file, line, message);
    abort();
}

invariant_hook_fn invariant_hook = invariant_hook_default;

void invariant_failed(const char *file, int line, const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    invariant_hook(file, line, message);
}

#else

/* ISO C wants at least one declaration in a translation unit. */
typedef int invariant_checks_are_off;

#endif
