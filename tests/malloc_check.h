/* malloc_check.h: a test program runs again under glibc's malloc checking,
 * so a write one element past an allocation fails the test in the plain
 * build, not only under make asan.
 *
 * Why: a loop that runs one step too far (i <= n over an array of n) often
 * writes into the padding glibc rounds every allocation up to, and nothing
 * notices; the test passes. glibc's debugging malloc (libc_malloc_debug,
 * preloaded, with MALLOC_CHECK_=3) puts a check byte right after each
 * block's requested size and aborts at free() when it was overwritten.
 * Called first thing in main(): the program executes itself once more with
 * the library preloaded (an environment variable marks the second run),
 * then takes both variables out of its environment so that any program it
 * starts runs plainly. Nothing happens under AddressSanitizer (which checks
 * this itself and must be the first library loaded), without the library,
 * when LD_PRELOAD is already set, or when the execution fails. */
#ifndef SPRAYSIM_TEST_MALLOC_CHECK_H
#define SPRAYSIM_TEST_MALLOC_CHECK_H

#include <stdlib.h>
#include <unistd.h>

#define MALLOC_CHECK_LIB "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"

static inline void malloc_check_reexec(char **argv)
{
#if defined(__SANITIZE_ADDRESS__)
    return;
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    return;
#endif
#endif
    if (getenv("SPRAYSIM_TEST_MALLOC_CHECKED")) {
        unsetenv("LD_PRELOAD");
        unsetenv("MALLOC_CHECK_");
        return;
    }
    const char *pre = getenv("LD_PRELOAD");
    if ((pre && *pre) || access(MALLOC_CHECK_LIB, R_OK) != 0)
        return;
    setenv("SPRAYSIM_TEST_MALLOC_CHECKED", "1", 1);
    setenv("MALLOC_CHECK_", "3", 1);
    setenv("LD_PRELOAD", MALLOC_CHECK_LIB, 1);
    execv("/proc/self/exe", argv); /* on failure: run as we are */
    unsetenv("LD_PRELOAD");
    unsetenv("MALLOC_CHECK_");
}

#endif
