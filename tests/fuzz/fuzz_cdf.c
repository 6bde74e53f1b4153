/* fuzz_cdf.c: fuzz harness for the message-size CDF reader (.cdf files of
 * --workload poisson:cdf=FILE, src/workload/poisson.c). Each input is read
 * as the text of a .cdf file through cdf_parse_text, which shares its line
 * parser with cdf_read_file. Besides what the sanitizers catch, it checks
 * what poisson.h promises of an accepted CDF (points in range, sizes and
 * probabilities non-decreasing, the last probability exactly 1, a last
 * size of at least one byte) and what the sampler then gives: sizes from 1
 * to the largest size rounded, non-decreasing in the uniform draw, and a
 * finite mean inside the sizes' range. A rejection is one line naming the
 * file, without control bytes, and leaves nothing allocated.
 */
#include "harness.h"

#include "workload/poisson.h"

#include <math.h>
#include <string.h>

/* poisson.c's limits (CDF_MAX_POINTS, CDF_MAX_SIZE_BYTES) */
#define MAX_POINTS 1000000u
#define MAX_SIZE_BYTES 1099511627776.0

static void check_sampler(const struct size_cdf *c, bool step)
{
    const double largest = floor(c->size_bytes[c->n - 1] + 0.5);
    uint64_t prev = 0;
    /* draws across [0, 1), and just below and at each point's probability,
     * in increasing order */
    for (int i = 0; i <= 64; i++) {
        double u = i < 64 ? i / 64.0 : nextafter(1.0, 0.0);
        uint64_t s = cdf_sample(c, u, step);
        fuzz_check(s >= 1 && (double)s <= (largest < 1 ? 1 : largest));
        fuzz_check(s >= prev);
        prev = s;
    }
    for (uint32_t i = 0; i < c->n && i < 256; i++) {
        double p = c->prob[i];
        if (p >= 1)
            break;
        uint64_t a = cdf_sample(c, p > 0 ? nextafter(p, 0.0) : 0.0, step), b = cdf_sample(c, p, step);
        fuzz_check(a >= 1 && a <= b);
    }
    double mean = cdf_mean_bytes(c, step);
    fuzz_check(isfinite(mean) && mean >= 0 && mean <= c->size_bytes[c->n - 1]);
}

static void check_accepted(const struct size_cdf *c)
{
    fuzz_check(c->n >= 1 && c->n <= MAX_POINTS);
    for (uint32_t i = 0; i < c->n; i++) {
        fuzz_check(c->size_bytes[i] >= 0 && c->size_bytes[i] <= MAX_SIZE_BYTES);
        fuzz_check(c->prob[i] >= 0 && c->prob[i] <= 1);
        if (i) {
            fuzz_check(c->size_bytes[i] >= c->size_bytes[i - 1]);
            fuzz_check(c->prob[i] >= c->prob[i - 1]);
        }
    }
    fuzz_check(c->prob[c->n - 1] == 1.0);
    fuzz_check(c->size_bytes[c->n - 1] >= 1);
    check_sampler(c, false);
    check_sampler(c, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* cdf_parse_text takes a C string: an embedded NUL simply ends it */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct size_cdf c;
    char err[256];
    err[0] = '\0';
    if (cdf_parse_text(&c, "fuzz.cdf", text, err, sizeof err)) {
        check_accepted(&c);
    } else {
        /* "fuzz.cdf:LINE: message" or "fuzz.cdf: message", one printable line */
        fuzz_check(strncmp(err, "fuzz.cdf:", 9) == 0);
        for (const char *e = err; *e; e++)
            fuzz_check((unsigned char)*e >= 0x20 && *e != 0x7f);
        fuzz_check(c.n == 0 && c.size_bytes == NULL && c.prob == NULL);
    }
    cdf_free(&c);
    free(text);
    return 0;
}
