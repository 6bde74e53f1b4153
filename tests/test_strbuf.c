/* test_strbuf.c: the text buffer's fixed formats (src/core/util.c) write
 * exactly what printf's conversions write: sb_u64 is "%llu", sb_ps_as_us
 * "%llu.%06llu" of picoseconds as microseconds, sb_f0 "%.0f" (ties to even,
 * the sign of every negative value, -0.0 included, and printf's own text
 * for NaN, infinities and magnitudes past 2^63). flows.csv and queues.csv
 * are written with them, so a difference here is a changed output file.
 * Each is checked against snprintf on edge values and on a deterministic
 * sweep over magnitudes; the buffer stays NUL-terminated and grows.
 */
#include "testutil.h"
#include "malloc_check.h"

#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* what the buffer holds after one call, against snprintf's text */
static void expect_text(struct strbuf *b, const char *want)
{
    assert_int_equal(b->len, strlen(want));
    assert_string_equal(b->data, want); /* also: NUL-terminated */
}

static void check_u64(uint64_t v)
{
    struct strbuf b;
    sb_init(&b);
    char want[32];
    snprintf(want, sizeof want, "%llu", (unsigned long long)v);
    sb_u64(&b, v);
    expect_text(&b, want);
    sb_free(&b);
}

static void check_ps(uint64_t ps)
{
    struct strbuf b;
    sb_init(&b);
    char want[48];
    snprintf(want, sizeof want, "%llu.%06llu", (unsigned long long)(ps / 1000000), (unsigned long long)(ps % 1000000));
    sb_ps_as_us(&b, ps);
    expect_text(&b, want);
    sb_free(&b);
}

static void check_f0(double x)
{
    struct strbuf b;
    sb_init(&b);
    char want[400];
    snprintf(want, sizeof want, "%.0f", x);
    sb_f0(&b, x);
    expect_text(&b, want);
    sb_free(&b);
}

/* a fixed 64-bit LCG (Knuth's MMIX constants): the same sweep every run */
static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x;
}

static void test_u64_is_printf_llu(void **state)
{
    (void)state;
    const uint64_t edges[] = {0, 1, 9, 10, 11, 99, 100, 101, 4294967295ULL, 4294967296ULL,
                              999999999999999999ULL, 1000000000000000000ULL, 9999999999999999999ULL,
                              10000000000000000000ULL, UINT64_MAX - 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_u64(edges[i]);
    uint64_t x = 1;
    for (int i = 0; i < 20000; i++)
        check_u64(lcg(&x) >> (i % 64)); /* every magnitude, 1 to 20 digits */
}

static void test_ps_as_us_is_six_decimals(void **state)
{
    (void)state;
    const uint64_t edges[] = {0, 1, 9, 10, 999999, 1000000, 1000001, 1999999, 12345678901ULL, UINT64_MAX};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_ps(edges[i]);
    uint64_t x = 7;
    for (int i = 0; i < 20000; i++)
        check_ps(lcg(&x) >> (i % 64));
}

static void test_f0_is_printf_dot0f(void **state)
{
    (void)state;
    /* ties go to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2), every negative value
     * prints its sign (-0.3 -> "-0", -0.0 -> "-0") */
    const double edges[] = {0.0, -0.0, 0.3, -0.3, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, 1.0, -1.0,
                            123456.5, 4503599627370495.5, 4503599627370496.0, 9007199254740993.0, 8.9e18, -8.9e18,
                            9.0e18, 9.2e18, 1e19, -1e19, 1.7e308, -1.7e308, INFINITY, -INFINITY, NAN, 1e-300, -1e-300};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_f0(edges[i]);
    uint64_t x = 3;
    for (int i = 0; i < 20000; i++) {
        /* magnitudes 2^-4 .. 2^64, both signs, halves and fractions */
        double mant = (double)(lcg(&x) >> 11) / 9007199254740992.0; /* [0, 1) */
        double v = ldexp(mant, (int)(lcg(&x) % 69) - 4);
        if (i % 3 == 0)
            v = floor(v) + 0.5;
        check_f0(lcg(&x) & 1 ? -v : v);
    }
}

static void test_appends_grow_and_stay_terminated(void **state)
{
    (void)state;
    struct strbuf b;
    sb_init(&b);
    char want[64];
    size_t want_len = 0;
    /* past the first 4096 bytes, so each helper meets a full buffer */
    for (int i = 0; i < 3000; i++) {
        switch (i % 5) {
        case 0:
            sb_putc(&b, 'x');
            want_len += 1;
            break;
        case 1:
            sb_puts(&b, "ab,");
            want_len += 3;
            break;
        case 2:
            sb_u64(&b, 18446744073709551615ULL);
            want_len += 20;
            break;
        case 3:
            sb_ps_as_us(&b, 1234567);
            want_len += 8;
            break;
        default:
            sb_f0(&b, -2.5);
            want_len += 2;
        }
        assert_int_equal(b.len, want_len);
        assert_true(b.len < b.cap);
        assert_int_equal(b.data[b.len], '\0');
    }
    snprintf(want, sizeof want, "x%s%s%s%s", "ab,", "18446744073709551615", "1.234567", "-2");
    assert_memory_equal(b.data, want, strlen(want));
    sb_free(&b);
}

/* ---- mut6wk (issue 26): appends that exactly fill the room left ---- */

/* A buffer of the first capacity (4096) holding `fill` bytes of 'f'. */
static void filled(struct strbuf *b, size_t fill)
{
    sb_init(b);
    assert_int_equal(b->cap, 4096);
    char *f = malloc(fill + 1);
    memset(f, 'f', fill);
    f[fill] = '\0';
    sb_puts(b, f);
    free(f);
    assert_int_equal(b->len, fill);
}

/* The text and its terminating NUL fit the capacity after an append. */
static void holds(const struct strbuf *b, size_t fill, const char *tail)
{
    assert_int_equal(b->len, fill + strlen(tail));
    assert_true(b->len < b->cap);
    assert_int_equal(b->data[b->len], '\0');
    assert_memory_equal(b->data + fill, tail, strlen(tail));
    assert_int_equal(b->data[fill - 1], 'f');
}

/* Each append of n bytes meets a buffer with exactly n bytes of room
 * (cap - len == n): the NUL needs one more, so the buffer must grow. */
static void test_append_of_exactly_the_room_left_grows(void **state)
{
    (void)state;
    struct strbuf b;
    filled(&b, 4095); /* one byte of room */
    sb_putc(&b, 'x');
    holds(&b, 4095, "x");
    sb_free(&b);
    filled(&b, 4093);
    sb_puts(&b, "ab,");
    holds(&b, 4093, "ab,");
    sb_free(&b);
    filled(&b, 4076);
    sb_u64(&b, 18446744073709551615ULL); /* 20 digits */
    holds(&b, 4076, "18446744073709551615");
    sb_free(&b);
    filled(&b, 4088); /* "1" leaves 7 bytes for ".234567" */
    sb_ps_as_us(&b, 1234567);
    holds(&b, 4088, "1.234567");
    sb_free(&b);
    filled(&b, 4091); /* vsnprintf of 5 characters into 5 bytes truncates: grow and redo */
    sb_printf(&b, "%s", "abcde");
    holds(&b, 4091, "abcde");
    sb_free(&b);
    filled(&b, 4094);
    sb_f0(&b, -2.5); /* "-2": the sign, then the digits */
    holds(&b, 4094, "-2");
    sb_free(&b);
}

/* One append larger than the whole first capacity (4096) grows the buffer
 * in one step to hold it, by sb_puts and by sb_printf. */
static void test_append_longer_than_the_capacity(void **state)
{
    (void)state;
    const size_t n = 10000;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    big[n] = '\0';
    struct strbuf b;
    sb_init(&b);
    sb_puts(&b, big);
    assert_int_equal(b.len, n);
    assert_true(b.len < b.cap);
    assert_string_equal(b.data, big);
    sb_free(&b);
    sb_init(&b);
    sb_printf(&b, "%s", big);
    assert_int_equal(b.len, n);
    assert_true(b.len < b.cap);
    assert_string_equal(b.data, big);
    sb_free(&b);
    free(big);
}

/* An append writes its text and one NUL, nothing after: the byte past
 * the NUL keeps what it held (here 'Z'), even when the source array goes
 * on after its NUL. */
static void test_append_writes_nothing_past_its_nul(void **state)
{
    (void)state;
    static const char src[8] = {'d', 'e', '\0', 'Q', 'Q', 'Q', 'Q', 'Q'};
    struct strbuf b;
    sb_init(&b);
    sb_puts(&b, "abc");
    b.data[6] = 'Z';
    sb_puts(&b, src);
    assert_string_equal(b.data, "abcde");
    assert_int_equal(b.data[6], 'Z');
    b.data[7] = 'Z';
    sb_putc(&b, 'f');
    assert_string_equal(b.data, "abcdef");
    assert_int_equal(b.data[7], 'Z');
    b.data[9] = 'Z';
    sb_u64(&b, 42);
    assert_string_equal(b.data, "abcdef42");
    assert_int_equal(b.data[9], 'Z');
    sb_free(&b);
}

int main(int argc, char **argv)
{
    (void)argc;
    malloc_check_reexec(argv); /* tests/malloc_check.h: heap overruns fail here too */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64_is_printf_llu),
        cmocka_unit_test(test_ps_as_us_is_six_decimals),
        cmocka_unit_test(test_f0_is_printf_dot0f),
        cmocka_unit_test(test_appends_grow_and_stay_terminated),
        cmocka_unit_test(test_append_of_exactly_the_room_left_grows),
        cmocka_unit_test(test_append_longer_than_the_capacity),
        cmocka_unit_test(test_append_writes_nothing_past_its_nul),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
