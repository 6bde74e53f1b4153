/* test_report.c: the report's own arithmetic (src/metrics/report.c) where
 * no whole-run comparison reaches it. The ideal FCT a slowdown divides by
 * is a lower bound that grows with the message: one byte more never makes
 * it smaller, which a two-packet message whose short last packet overtakes
 * the full one before it (on a multi-hop path) would, if the full packet's
 * later arrival were not taken. Issue 26: a mutant of that case survived.
 */
#include "testutil.h"

#include "sim.h"
#include "transport/flow.h"
#include "metrics/report.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ideal_fct_grows_with_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
