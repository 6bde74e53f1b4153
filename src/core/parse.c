/* parse.c: strict number parsing and message-safe quoting (see parse.h). */
#include "parse.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum num_status parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return NUM_BAD;
    uint64_t v = 0;
    bool overflow = false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return NUM_BAD;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = true; /* keep scanning: "99999999999999999999x" is BAD, not RANGE */
        else
            v = v * 10 + d;
    }
    if (overflow)
        return NUM_RANGE;
    *out = v;
    return NUM_OK;
}

enum num_status parse_i64(const char *s, int64_t *out)
{
    if (!s)
        return NUM_BAD;
    bool neg = (*s == '-');
    uint64_t mag = 0;
    enum num_status st = parse_u64(neg ? s + 1 : s, &mag);
    if (st != NUM_OK)
        return st;
    if (neg) {
        if (mag > (uint64_t)INT64_MAX + 1)
            return NUM_RANGE;
        *out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
    } else {
        if (mag > (uint64_t)INT64_MAX)
            return NUM_RANGE;
        *out = (int64_t)mag;
    }
    return NUM_OK;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

enum num_status parse_real(const char *s, double *out)
{
    if (!s)
        return NUM_BAD;
    const char *c = s;
    if (*c == '-')
        c++;
    unsigned int_digits = 0, frac_digits = 0;
    while (is_digit(*c))
        c++, int_digits++;
    if (*c == '.') {
        c++;
        while (is_digit(*c))
            c++, frac_digits++;
    }
    if (int_digits + frac_digits == 0)
        return NUM_BAD;
    if (*c == 'e' || *c == 'E') {
        c++;
        if (*c == '+' || *c == '-')
            c++;
        if (!is_digit(*c))
            return NUM_BAD;
        while (is_digit(*c))
            c++;
    }
    if (*c)
        return NUM_BAD;
    /* the grammar above is a subset of strtod's, so strtod reads all of it */
    double v = strtod(s, NULL);
    if (!isfinite(v))
        return NUM_RANGE;
    *out = v;
    return NUM_OK;
}

const char *shown(const char *text, char *buf)
{
    size_t i;
    if (!text)
        text = "";
    for (i = 0; text[i] && i < 40; i++) {
        unsigned char c = (unsigned char)text[i];
        buf[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (text[i])
        memcpy(buf + i, "...", 4);
    else
        buf[i] = '\0';
    return buf;
}
