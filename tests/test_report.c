/* test_report.c: the report's own arithmetic (src/metrics/report.c) where
 * no whole-run comparison reaches it. The ideal FCT a slowdown divides by
 * is a lower bound that grows with the message: one byte more never makes
 * it smaller, which a two-packet message whose short last packet overtakes
 * the full one before it (on a multi-hop path) would, if the full packet's
 * later arrival were not taken. Issue 26: a mutant of that case survived.
 * A message cut off by -end counts with its FCT so far; one not started,
 * not at all; no FCT at all gives a mean of 0.
 */
#include "testutil.h"

#include "sim.h"
#include "transport/flow.h"
#include "metrics/report.h"

#include <math.h>

/* For same-rack (2 hops), same-pod (4) and cross-pod (6) pairs of the
 * 16-host tree, and message sizes around one and two packets: the ideal
 * FCT never falls when the size grows by one byte. */
static void test_ideal_fct_grows_with_size(void **state)
{
    (void)state;
    struct config c;
    config_defaults(&c);
    uint32_t mss = c.mtu_bytes - c.hdr_bytes;
    const uint32_t dsts[] = {1, 2, 13};
    const uint64_t sizes[] = {1, mss - 1, mss, mss + 1, mss + 2, 2 * (uint64_t)mss, 2 * (uint64_t)mss + 1};
    const size_t n_sizes = sizeof sizes / sizeof sizes[0];
    char cm[2048];
    int len = snprintf(cm, sizeof cm, "Nodes 16\nConnections %zu\n", 3 * n_sizes);
    for (size_t d = 0; d < 3; d++)
        for (size_t k = 0; k < n_sizes; k++)
            len += snprintf(cm + len, sizeof cm - (size_t)len, "0->%u start 0 size %llu\n", dsts[d],
                            (unsigned long long)sizes[k]);
    assert_true(len > 0 && (size_t)len < sizeof cm);
    c.tm_path = temp_file(cm, ".cm");
    c.progress = false;
    struct sim s;
    sim_setup(&s, &c);
    assert_int_equal(s.n_flows, 3 * n_sizes);
    for (size_t d = 0; d < 3; d++)
        for (size_t k = 1; k < n_sizes; k++) {
            const struct flow *a = &s.flows[d * n_sizes + k - 1], *b = &s.flows[d * n_sizes + k];
            assert_int_equal(b->size_bytes, a->size_bytes + (sizes[k] - sizes[k - 1]));
            if (ideal_fct_ps(&s, b) < ideal_fct_ps(&s, a))
                fail_msg("0->%u: %llu B ideal %llu ps, below %llu B's %llu ps", dsts[d],
                         (unsigned long long)b->size_bytes, (unsigned long long)ideal_fct_ps(&s, b),
                         (unsigned long long)a->size_bytes, (unsigned long long)ideal_fct_ps(&s, a));
        }
    sim_free(&s);
}

/* A run cut short: one message still under way at -end and one that had
 * not started. The censored message counts with its FCT so far (the run's
 * end less its start), the unstarted one not at all; and a run where no
 * message has an FCT reports a mean of 0 (issue 26: the censored FCT's
 * "end - start" as "end + start", and a mean of 1 us for no message at
 * all, went unnoticed). */
static void test_censored_and_empty_fct(void **state)
{
    (void)state;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 2\n0->13 start 2 size 100000000\n1->2 start 500 size 1000\n", ".cm");
    c.progress = false;
    c.end_ps = 10 * PS_PER_US;
    struct sim s;
    sim_setup(&s, &c);
    sim_run(&s);
    struct run_stats r;
    memset(&r, 0, sizeof r);
    report_collect(&s, 0, &r);
    assert_int_equal(r.finished, 0);
    assert_int_equal(r.fct_n, 1);
    assert_int_equal(r.fct_unfinished, 1);
    assert_int_equal(r.not_started, 1);
    assert_true(s.now <= c.end_ps && s.now > 2 * PS_PER_US);
    double want_us = (double)(s.now - 2 * PS_PER_US) / PS_PER_US;
    if (fabs(r.fct_max_us - want_us) > 1e-9 || fabs(r.fct_mean_us - want_us) > 1e-9)
        fail_msg("censored FCT: max %.6f mean %.6f us, want %.6f", r.fct_max_us, r.fct_mean_us, want_us);
    sim_free(&s);
    /* nothing started before the end: no FCT, a mean of 0 */
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n0->13 start 500 size 1000\n", ".cm");
    c.progress = false;
    c.end_ps = 10 * PS_PER_US;
    sim_setup(&s, &c);
    sim_run(&s);
    memset(&r, 0, sizeof r);
    report_collect(&s, 0, &r);
    assert_int_equal(r.fct_n, 0);
    assert_int_equal(r.not_started, 1);
    assert_true(r.fct_mean_us == 0 && r.fct_max_us == 0 && r.fct_median_us == 0);
    sim_free(&s);
}

/* Nearest rank: the ceil(p / 100 x n)-th smallest, at least the first
 * (issue 26: p x 100 x n in place of p / 100 x n, always the largest, went
 * unnoticed). */
static void test_percentile_nearest_rank(void **state)
{
    (void)state;
    const double v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assert_true(report_percentile(v, 10, 0) == 1);
    assert_true(report_percentile(v, 10, 10) == 1);
    assert_true(report_percentile(v, 10, 11) == 2);
    assert_true(report_percentile(v, 10, 50) == 5);
    assert_true(report_percentile(v, 10, 50.1) == 6);
    assert_true(report_percentile(v, 10, 99) == 10);
    assert_true(report_percentile(v, 10, 100) == 10);
    assert_true(report_percentile(v, 1, 50) == 1);
    assert_true(report_percentile(v, 0, 50) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ideal_fct_grows_with_size),
        cmocka_unit_test(test_censored_and_empty_fct),
        cmocka_unit_test(test_percentile_nearest_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
