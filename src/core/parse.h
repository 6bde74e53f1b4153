/* parse.h: the one strict number parser every input uses (command-line
 * flags, .cm and .topo files, failure specifications), and the one way a
 * user's text is quoted inside an error message.
 *
 * The C library's strtoul/strtod accept leading blanks, signs on unsigned
 * values (silently wrapping "-1"), hex ("0x10"), "inf" and "nan"; a data file
 * or a flag should accept none of these, and the same text should mean the
 * same number wherever it is written.
 */
#ifndef SPRAYSIM_PARSE_H
#define SPRAYSIM_PARSE_H

#include <stdint.h>

enum num_status {
    NUM_OK = 0,
    NUM_BAD = 1,   /* not a number of the expected form */
    NUM_RANGE = 2, /* the right form, but it does not fit the type */
};

/* Decimal digits only, at least one. */
enum num_status parse_u64(const char *s, uint64_t *out);
/* An optional '-' then decimal digits. */
enum num_status parse_i64(const char *s, int64_t *out);
/* A plain decimal: optional '-', digits with an optional fraction (or a
 * fraction alone, ".5"), an optional exponent ("1e-3", "2.5E+4"). No blanks,
 * no hex, no inf or nan. A value too large for a double is NUM_RANGE. */
enum num_status parse_real(const char *s, double *out);

/* `text` as it may appear inside a one-line message: at most 40 characters,
 * with control and non-ASCII bytes shown as '?', "..." when cut. `buf` must
 * hold 48 bytes. */
#define SHOWN_BUF 48
const char *shown(const char *text, char *buf);

#endif
