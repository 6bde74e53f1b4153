/* testutil.h: helpers shared by the cmocka unit tests: where the shared
 * scenario data lives, and writing a temporary input file. */
#ifndef SPRAYSIM_TESTUTIL_H
#define SPRAYSIM_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

/* Path of a file under ../shared/data (or $SHARED/data). */
static inline const char *shared_path(const char *rel)
{
    static char buf[4][1024];
    static int slot;
    const char *root = getenv("SHARED");
    char *b = buf[slot++ & 3];
    snprintf(b, sizeof buf[0], "%s/data/%s", root && *root ? root : "../shared", rel);
    return b;
}

/* Writes text to a fresh temporary file and returns its path (static slot). */
static inline const char *temp_file(const char *text, const char *suffix)
{
    static char buf[4][256];
    static int slot;
    char *b = buf[slot++ & 3];
    snprintf(b, sizeof buf[0], "/tmp/spraysim-test-%ld-%d%s", (long)getpid(), slot, suffix);
    FILE *f = fopen(b, "w");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
    return b;
}

#endif
