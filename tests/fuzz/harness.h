/* harness.h: what every fuzz harness under tests/fuzz/ shares. Each
 * fuzz_NAME.c defines LLVMFuzzerTestOneInput, the entry point libFuzzer
 * calls once per input (make fuzz links it with clang's libFuzzer) and the
 * replay main calls once per saved input (make test builds it with gcc). A
 * harness returns 0; a bug shows as a crash, a sanitizer report, a leak or
 * a failed check (fuzz_check), never as a return value.
 */
#ifndef SPRAYSIM_FUZZ_HARNESS_H
#define SPRAYSIM_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property every input must keep: report it and abort, so libFuzzer saves
 * the input as a crash and the replay fails. Unlike assert, never compiled
 * out. */
#define fuzz_check(cond)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond);                    \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

#endif
