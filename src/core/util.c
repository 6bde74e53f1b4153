/* util.c: random-number streams, error exits, checked allocation, text
 * buffers and atomic file writes: the small services every module uses.
 */
#define _POSIX_C_SOURCE 200809L
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- xoshiro256** seeded through splitmix64 ----------------------------- */

static uint64_t splitmix_next(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ULL;
    return mix64(*state);
}

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream, uint64_t substream)
{
    uint64_t st = seed ^ mix64(stream * 0x9e3779b97f4a7c15ULL + 1) ^ mix64(substream + 0x632be59bd9b4e019ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix_next(&st);
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = 1;
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
    uint64_t threshold = (0 - n) % n; /* 2^64 mod n */
    for (;;) {
        uint64_t x = rng_next(r);
        if (x >= threshold)
            return x % n;
    }
}

double rng_uniform(struct rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- errors and memory --------------------------------------------------- */

/* Prints "spraysim: <kind><message>" as one line: control bytes and DEL
 * from a file or a flag become '?', so neither a newline nor an escape
 * sequence reaches the terminal; an overlong message is cut with "...". */
__attribute__((format(printf, 2, 0)))
static void print_input_message(const char *kind, const char *fmt, va_list ap)
{
    char msg[2048];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    if (n < 0)
        snprintf(msg, sizeof msg, "bad input (message could not be formatted)");
    else if ((size_t)n >= sizeof msg)
        memcpy(msg + sizeof msg - 4, "...", 4);
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    fflush(stdout);
    fprintf(stderr, "spraysim: %s%s\n", kind, msg);
}

void die_input(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_input_message("", fmt, ap);
    va_end(ap);
    exit(2);
}

void warn_input(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_input_message("warning: ", fmt, ap);
    va_end(ap);
}

void die_internal(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("spraysim: internal error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        die_internal("out of memory allocating %zu bytes", size);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        die_internal("out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        die_internal("out of memory reallocating %zu bytes", size);
    return p;
}

/* ---- text buffers ----------------------------------------------------------- */

void sb_init(struct strbuf *b)
{
    b->cap = 4096;
    b->len = 0;
    b->data = xmalloc(b->cap);
    b->data[0] = '\0';
}

void sb_free(struct strbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        /* a freed buffer (data NULL, cap 0) is measured first: NULL + 0 is
         * undefined behaviour (clang's UBSan says so), vsnprintf(NULL, 0) is not */
        int n = vsnprintf(b->data ? b->data + b->len : NULL, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            die_internal("formatting output failed");
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->data = xrealloc(b->data, b->cap);
    }
}

/* The fixed formats below write what printf's conversions would, byte for
 * byte, without printf: a big run's flows.csv and queues.csv are a million
 * conversions, and vsnprintf costs 100-800 instructions each (callgrind on
 * the 8192-host permutation: 577 M instructions writing 3.6 MB, 3% of the
 * run and all of it on rank 0 in parallel runs). */

/* Room for n more bytes and the terminating NUL. */
static void sb_reserve(struct strbuf *b, size_t n)
{
    if (b->cap - b->len <= n) {
        b->cap = (b->cap + n + 1) * 2;
        b->data = xrealloc(b->data, b->cap);
    }
}

void sb_putc(struct strbuf *b, char c)
{
    sb_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void sb_puts(struct strbuf *b, const char *str)
{
    size_t n = strlen(str);
    sb_reserve(b, n);
    memcpy(b->data + b->len, str, n + 1);
    b->len += n;
}

/* "%llu" */
void sb_u64(struct strbuf *b, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sb_reserve(b, n);
    memcpy(b->data + b->len, digits + sizeof digits - n, n);
    b->len += n;
    b->data[b->len] = '\0';
}

/* "%llu.%06llu" of whole / 10^6 and its remainder: picoseconds as exact
 * decimal microseconds */
void sb_ps_as_us(struct strbuf *b, uint64_t ps)
{
    sb_u64(b, ps / 1000000);
    uint64_t frac = ps % 1000000;
    sb_reserve(b, 7);
    char *d = b->data + b->len;
    d[0] = '.';
    for (int k = 6; k >= 1; k--) {
        d[k] = (char)('0' + frac % 10);
        frac /= 10;
    }
    b->len += 7;
    b->data[b->len] = '\0';
}

/* "%.0f": printf rounds the exact binary value to nearest, ties to even,
 * in the current rounding mode, which is what nearbyint does; the sign is
 * printed for every negative value, -0.0 and -0.3 ("-0") included. NaN,
 * infinities and magnitudes beyond 2^63 go to printf. */
void sb_f0(struct strbuf *b, double x)
{
    if (!(fabs(x) < 9.0e18)) {
        sb_printf(b, "%.0f", x);
        return;
    }
    double r = nearbyint(x);
    if (signbit(x)) {
        sb_putc(b, '-');
        r = -r;
    }
    sb_u64(b, (uint64_t)r);
}

/* ---- atomic writes ------------------------------------------------------------ */

bool write_file_atomic(const char *path, const char *data, size_t len)
{
    size_t plen = strlen(path);
    char *tmp = xmalloc(plen + 32);
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        free(tmp);
        return false;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            unlink(tmp);
            free(tmp);
            return false;
        }
        off += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        free(tmp);
        return false;
    }
    free(tmp);
    return true;
}
