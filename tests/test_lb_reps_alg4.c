/* test_lb_reps_alg4.c: `--lb reps-alg4`, REPS exactly as seed 003's
 * Algorithm 4 writes it (src/lb/reps_alg4.c), driven through its ops table
 * as the transport drives it: exploration of 0, 1, 2, ... for the first BDP
 * until every entropy was tried, then the one cached entropy, replaced by the
 * clean ACK's entropy or, on ECN (and, our reading, NACK and timeout), by
 * the next unexplored value. Each expected sequence is worked out by hand
 * from the algorithm's lines, not read off the module.
 */
#include "testutil.h"

#include "lb/lb.h"

static struct lb_params params(uint32_t paths, uint32_t bdp_pkts)
{
    return (struct lb_params){ .paths = paths, .bdp_pkts = bdp_pkts, .trimming = true, .seed = 1 };
}

static void *alg4_new(uint32_t paths, uint32_t bdp_pkts)
{
    void *st = calloc(1, lb_reps_alg4_ops.state_size);
    assert_non_null(st);
    struct lb_params p = params(paths, bdp_pkts);
    lb_reps_alg4_ops.init(st, &p);
    return st;
}

static uint16_t send_seq(void *st, uint32_t seq)
{
    return lb_reps_alg4_ops.next_entropy(st, seq, 0);
}

static void fb(void *st, uint16_t ev, enum lb_signal sig)
{
    lb_reps_alg4_ops.feedback(st, ev, sig, 0);
}

static void test_registered_by_name(void **state)
{
    (void)state;
    assert_ptr_equal(lb_find("reps-alg4"), &lb_reps_alg4_ops);
    assert_non_null(strstr(lb_names(), "reps-alg4"));
}

static void test_explores_first_bdp_then_cached(void **state)
{
    (void)state;
    /* 8 paths, BDP 4 packets: seq 0-3 explore 0,1,2,3 (line 6); seq 4 is
     * past the BDP, so the cached entropy, still 0 (line 3). */
    void *st = alg4_new(8, 4);
    for (uint32_t seq = 0; seq < 4; seq++)
        assert_int_equal(send_seq(st, seq), seq);
    assert_int_equal(send_seq(st, 4), 0);
    assert_int_equal(send_seq(st, 5), 0);
    /* a clean ACK of entropy 2 becomes the cached one (line 16) */
    fb(st, 2, LB_GOOD);
    assert_int_equal(send_seq(st, 6), 2);
    assert_int_equal(send_seq(st, 7), 2);
    /* ECN: cached = next_entropy++ (line 14), next_entropy is 4 */
    fb(st, 2, LB_ECN);
    assert_int_equal(send_seq(st, 8), 4);
    fb(st, 4, LB_ECN);
    assert_int_equal(send_seq(st, 9), 5);
    free(st);
}

static void test_stops_exploring_when_all_tried(void **state)
{
    (void)state;
    /* 4 paths but a BDP of 10 packets: after 0,1,2,3 every entropy has been
     * tried, so seq 4 already uses the cache (line 5's second condition). */
    void *st = alg4_new(4, 10);
    for (uint32_t seq = 0; seq < 4; seq++)
        assert_int_equal(send_seq(st, seq), seq);
    fb(st, 3, LB_GOOD);
    assert_int_equal(send_seq(st, 4), 3);
    assert_int_equal(send_seq(st, 5), 3);
    /* the mod wraps next_entropy: 4 % 4 = 0 */
    fb(st, 3, LB_ECN);
    assert_int_equal(send_seq(st, 6), 0);
    free(st);
}

static void test_ecn_during_exploration_consumes_a_value(void **state)
{
    (void)state;
    /* ECN while still exploring takes next_entropy too (line 14 shares the
     * counter with line 6): 0, 1, then ECN takes 2, so seq 2 explores 3. */
    void *st = alg4_new(16, 8);
    assert_int_equal(send_seq(st, 0), 0);
    assert_int_equal(send_seq(st, 1), 1);
    fb(st, 0, LB_ECN);
    assert_int_equal(send_seq(st, 2), 3);
    free(st);
}

static void test_nack_and_timeout_move_on_like_ecn(void **state)
{
    (void)state;
    void *st = alg4_new(8, 2);
    assert_int_equal(send_seq(st, 0), 0);
    assert_int_equal(send_seq(st, 1), 1);
    fb(st, 1, LB_GOOD);
    assert_int_equal(send_seq(st, 2), 1);
    fb(st, 1, LB_NACK);     /* the trimmed path is not reused: next is 2 */
    assert_int_equal(send_seq(st, 3), 2);
    fb(st, LB_EV_UNKNOWN, LB_TIMEOUT);
    assert_int_equal(send_seq(st, 4), 3);
    free(st);
}

static void test_one_path(void **state)
{
    (void)state;
    void *st = alg4_new(1, 4);
    for (uint32_t seq = 0; seq < 6; seq++)
        assert_int_equal(send_seq(st, seq), 0);
    fb(st, 0, LB_ECN);
    assert_int_equal(send_seq(st, 6), 0);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registered_by_name),
        cmocka_unit_test(test_explores_first_bdp_then_cached),
        cmocka_unit_test(test_stops_exploring_when_all_tried),
        cmocka_unit_test(test_ecn_during_exploration_consumes_a_value),
        cmocka_unit_test(test_nack_and_timeout_move_on_like_ecn),
        cmocka_unit_test(test_one_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
