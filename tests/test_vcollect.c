/* test_vcollect.c: the summary's percentile collectors (metrics/vcollect.h):
 * exact mode is report_percentile's nearest rank; the sketch stays within
 * 0.1% of it on skewed data, keeps count and maximum exact, does not depend
 * on the order of the values, and merges as if the values were added one by
 * one. */
#include "testutil.h"

#include "core/core.h"
#include "metrics/report.h"
#include "metrics/vcollect.h"

#include <math.h>

/* values like slowdowns and FCTs: a heavy tail over six decades */
static double value(struct rng *r)
{
    double u = rng_uniform(r);
    return 1.0 + pow(10, 6 * u * u * u) * rng_uniform(r);
}

static void test_exact_is_nearest_rank(void **st)
{
    (void)st;
    struct vcollect c;
    vc_init(&c, false);
    double v[] = {5, 1, 4, 2, 3};
    for (int i = 0; i < 5; i++)
        vc_add(&c, v[i]);
    assert_true(vc_percentile(&c, 50) == 3);
    assert_true(vc_percentile(&c, 99) == 5);
    assert_true(vc_percentile(&c, 20) == 1);
    assert_true(vc_percentile(&c, 21) == 2);
    assert_true(c.max == 5 && c.n == 5);
    vc_free(&c);
}

static void test_sketch_within_a_tenth_of_a_percent(void **st)
{
    (void)st;
    struct rng r;
    rng_seed(&r, 7, 1, 0);
    struct vcollect e, k, k2, half1, half2;
    vc_init(&e, false);
    vc_init(&k, true);
    vc_init(&k2, true);
    vc_init(&half1, true);
    vc_init(&half2, true);
    enum { N = 200000 };
    double *v = xmalloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        v[i] = value(&r);
        vc_add(&e, v[i]);
        vc_add(&k, v[i]);
        vc_add(i % 2 ? &half1 : &half2, v[i]);
    }
    for (int i = N - 1; i >= 0; i--) /* reversed order */
        vc_add(&k2, v[i]);
    vc_merge(&half1, &half2);
    double ps[] = {1, 25, 50, 90, 99, 99.9, 100};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        double x = vc_percentile(&e, ps[i]), y = vc_percentile(&k, ps[i]);
        if (fabs(y - x) > 1e-3 * x)
            fail_msg("p%g: exact %.9g, sketch %.9g", ps[i], x, y);
        assert_true(vc_percentile(&k2, ps[i]) == y);
        assert_true(vc_percentile(&half1, ps[i]) == y);
    }
    assert_true(k.max == e.max && k.n == (uint64_t)N && half1.n == (uint64_t)N);
    free(v);
    vc_free(&e);
    vc_free(&k);
    vc_free(&k2);
    vc_free(&half1);
    vc_free(&half2);
}

static void test_zero_and_empty(void **st)
{
    (void)st;
    struct vcollect c;
    vc_init(&c, true);
    assert_true(vc_percentile(&c, 50) == 0);
    vc_add(&c, 0);
    vc_add(&c, 0);
    vc_add(&c, 10);
    assert_true(vc_percentile(&c, 50) == 0);
    assert_true(vc_percentile(&c, 100) == 10);
    vc_free(&c);
}

/* Values beyond the sketch's range (its last bucket starts near 6.7e11)
 * count in its last bucket: the median of two such values is that
 * bucket's, whatever they are, below both; the largest stays exact. */
static void test_sketch_above_its_range(void **st)
{
    (void)st;
    struct vcollect a, b;
    vc_init(&a, true);
    vc_init(&b, true);
    vc_add(&a, 1e13);
    vc_add(&a, 2e13);
    vc_add(&b, 1e13);
    vc_add(&b, 3e13);
    double ma = vc_percentile(&a, 50), mb = vc_percentile(&b, 50);
    assert_true(ma == mb);
    assert_true(ma > 1e11 && ma < 1e13);
    assert_true(vc_percentile(&a, 100) == 2e13);
    assert_true(vc_percentile(&b, 100) == 3e13);
    vc_free(&a);
    vc_free(&b);
}

/* vc_free leaves an empty collector, as vc_init makes one: no values, a
 * percentile of 0, and a second vc_free that frees nothing twice (report.c
 * and poisson.c free theirs once; the emptiness is what makes a stray
 * second call or a read after it harmless). */
static void test_free_leaves_it_empty(void **st)
{
    (void)st;
    for (int sketch = 0; sketch < 2; sketch++) {
        struct vcollect c;
        vc_init(&c, sketch);
        vc_add(&c, 3);
        vc_add(&c, 7);
        vc_free(&c);
        assert_true(c.n == 0 && c.v == NULL && c.bucket == NULL && c.max == 0 && c.zeros == 0);
        assert_true(vc_percentile(&c, 50) == 0);
        vc_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_is_nearest_rank),
        cmocka_unit_test(test_sketch_within_a_tenth_of_a_percent),
        cmocka_unit_test(test_zero_and_empty),
        cmocka_unit_test(test_sketch_above_its_range),
        cmocka_unit_test(test_free_leaves_it_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
