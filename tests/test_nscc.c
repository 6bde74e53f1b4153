/* test_nscc.c: NSCC's reaction to scripted ACK and NACK sequences, checked
 * against the formulas of seed 002 (and the reference constants the README
 * lists). The network is the reference one (100 Gb/s, 12 us, BDP 150 KB),
 * so every scaling factor is 1 and the expected values are easy to derive.
 */
#include "testutil.h"

#include "cc/nscc.h"

#include <math.h>

#define US PS_PER_US
#define MTU 4150u
#define MSS 4086u
#define RTT (12 * US)
#define BDP 150000u
#define MAXWND 225000u
#define TARGET (9 * US) /* 0.75 x 12 us with trimming */

static struct nscc *make(bool trimming)
{
    struct nscc *n = calloc(1, sizeof(*n));
    struct cc_params p = {
        .mtu_bytes = MTU,
        .mss_bytes = MSS,
        .base_rtt_ps = RTT,
        .network_rtt_ps = RTT,
        .linkspeed_mbps = 100000,
        .qa_gate = -1,
        .trimming = trimming,
    };
    cc_nscc_ops.init(n, &p);
    return n;
}

static void ack(struct nscc *n, simtime_ps now, uint64_t bytes, simtime_ps delay, bool ecn)
{
    struct cc_ack a = {.now = now, .newly_acked_bytes = bytes, .rtt_valid = true,
                       .raw_rtt_ps = RTT + delay, .ecn = ecn, .in_flight_bytes = 100000};
    cc_nscc_ops.on_ack(n, &a);
}

static void test_init_reference_defaults(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    assert_int_equal(n->maxwnd_bytes, MAXWND);          /* 1.5 BDP */
    assert_int_equal(n->win.cwnd_bytes, MAXWND);        /* starts at maxwnd */
    assert_int_equal(n->target_qdelay_ps, TARGET);      /* 0.75 base RTT with trimming */
    assert_int_equal(n->qa_gate, 3);
    assert_int_equal(n->qa_threshold_ps, 4 * TARGET);
    assert_int_equal(n->min_cwnd_bytes, MTU);
    /* alpha = 4 MSS a / reference RTT (target cancels): bytes per byte per ps */
    assert_true(fabs(n->alpha_per_ps - 4.0 * MSS / (double)RTT) < 1e-15);
    assert_true(fabs(n->fi_bytes - 5.0 * MSS) < 1e-9);
    assert_true(fabs(n->eta_bytes - 0.15 * MSS) < 1e-9);
    free(n);
    n = make(false);
    assert_int_equal(n->target_qdelay_ps, RTT);         /* 1.0 base RTT without trimming */
    free(n);
}

static void test_scaling_with_bdp(void **st)
{
    (void)st;
    /* 400 Gb/s at 12 us: a = 4, so fair increase and eta scale by four. */
    struct nscc *n = calloc(1, sizeof(*n));
    struct cc_params p = {.mtu_bytes = MTU, .mss_bytes = MSS, .base_rtt_ps = RTT, .network_rtt_ps = RTT,
                          .linkspeed_mbps = 400000, .qa_gate = -1, .trimming = true};
    cc_nscc_ops.init(n, &p);
    assert_true(fabs(n->fi_bytes - 4 * 5.0 * MSS) < 1e-6);
    assert_true(fabs(n->fast_scale - 1.0) < 1e-12);
    assert_int_equal(n->maxwnd_bytes, 4 * MAXWND);
    free(n);
}

/* seed 002 Sec. 3b table: kept fraction at 1.5x and 2x the target RTT. */
static void test_kept_fraction_table(void **st)
{
    (void)st;
    double t = 21.0;
    assert_true(fabs(nscc_md_kept_fraction(1.5 * t, t, 0.5) - (1 - 0.5 / 3)) < 1e-12); /* 83% */
    assert_true(fabs(nscc_md_kept_fraction(1.5 * t, t, 0.8) - (1 - 0.8 / 3)) < 1e-12); /* 73% */
    assert_true(fabs(nscc_md_kept_fraction(1.5 * t, t, 1.0) - (1 - 1.0 / 3)) < 1e-12); /* 67% */
    assert_true(fabs(nscc_md_kept_fraction(2 * t, t, 0.5) - 0.75) < 1e-12);
    assert_true(fabs(nscc_md_kept_fraction(2 * t, t, 0.8) - 0.60) < 1e-12);
    assert_true(fabs(nscc_md_kept_fraction(2 * t, t, 1.0) - 0.50) < 1e-12);            /* hits the floor */
    assert_true(fabs(nscc_md_kept_fraction(100 * t, t, 0.8) - 0.50) < 1e-12);          /* never below half */
}

static void test_proportional_increase_batched(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 100000;
    /* delay 3 us < target, no ECN: quadrant proportional increase */
    ack(n, 5 * US, MTU, 3 * US, false);
    double expect = n->alpha_per_ps * MTU * (double)(TARGET - 3 * US);
    assert_true(fabs(n->inc_bytes - expect) < 1e-6);
    assert_int_equal(n->win.cwnd_bytes, 100000); /* batched: not applied yet */
    /* eight more packets pass the 8-MTU fulfill threshold */
    for (int i = 0; i < 8; i++)
        ack(n, 5 * US, MTU, 3 * US, false);
    double inc = 9 * expect;
    uint64_t cw = 100000 + (uint64_t)(inc / 100000.0);
    assert_int_equal(n->win.cwnd_bytes, cw);
    assert_true(n->inc_bytes == 0);
    assert_true(fabs(n->ctr[NC_PROP_INC] - inc / 100000.0) < 1e-6);
    free(n);
}

static void test_fair_increase_and_discounted_filter(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 100000;
    ack(n, 5 * US, MTU, 10 * US, false); /* delay above target, no ECN */
    assert_true(fabs(n->inc_bytes - 5.0 * MSS * MTU) < 1e-6);
    /* the filter distrusts high delay without ECN: sees base_rtt/4 */
    assert_true(fabs(n->avg_delay_ps - 0.0125 * 0.25 * RTT) < 1e-6);
    free(n);
}

static void test_multiplicative_decrease_once_per_base_rtt(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 200000;
    n->avg_delay_ps = 18.0 * US;
    n->last_adjust_ps = 45 * US; /* keep the time-based fulfill (eta) out of the way */
    simtime_ps d = 20 * US;
    ack(n, 50 * US, MTU, d, true); /* ECN and delay above target */
    double avg = 0.0125 * (double)d + 0.9875 * 18.0 * US;
    double keep = 1 - 0.8 * (avg - (double)TARGET) / (RTT + avg);
    assert_true(fabs(keep - nscc_md_kept_fraction(RTT + avg, RTT + TARGET, 0.8)) < 1e-12);
    assert_int_equal(n->win.cwnd_bytes, (uint64_t)(200000 * keep));
    uint64_t after_first = n->win.cwnd_bytes;
    ack(n, 55 * US, MTU, d, true); /* within one base RTT: no second cut */
    assert_int_equal(n->win.cwnd_bytes, after_first);
    ack(n, 63 * US, MTU, d, true); /* more than a base RTT later: cut again */
    assert_true(n->win.cwnd_bytes < after_first);
    assert_true(n->ctr[NC_MULTI_DEC] > 200000 - after_first);
    free(n);
}

static void test_no_decrease_when_filtered_delay_low(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 200000;
    n->last_adjust_ps = 45 * US;
    /* raw delay high and ECN, but the slow filter is near zero: fast trigger,
     * slow actuator means no cut */
    ack(n, 50 * US, MTU, 20 * US, true);
    assert_int_equal(n->win.cwnd_bytes, 200000);
    free(n);
}

static void test_steer_only_quadrant(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 200000;
    ack(n, 5 * US, MTU, 2 * US, true); /* ECN, low delay */
    assert_int_equal(n->win.cwnd_bytes, 200000);
    assert_true(n->inc_bytes == 0);
    free(n);
    /* with Q3 pressure 5%: one 5% cut per base RTT */
    n = make(true);
    n->q3_pressure = 0.05;
    n->win.cwnd_bytes = 200000;
    ack(n, 5 * US, MTU, 2 * US, true);
    assert_int_equal(n->win.cwnd_bytes, 190000);
    ack(n, 6 * US, MTU, 2 * US, true);
    assert_int_equal(n->win.cwnd_bytes, 190000);
    free(n);
}

static void test_fast_increase_after_a_clean_window(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 20000;
    /* delay < 1 us: counts bytes until more than one cwnd is clean */
    for (int i = 0; i < 4; i++)
        ack(n, 5 * US, MTU, 500000, false);
    assert_false(n->increasing);
    uint64_t before = n->win.cwnd_bytes;
    ack(n, 5 * US, MTU, 500000, false); /* 5 x 4150 > 20000 */
    assert_true(n->increasing);
    assert_int_equal(n->win.cwnd_bytes, before + (uint64_t)(MTU * 0.25));
    assert_true(n->ctr[NC_FAST_INC] > 0);
    ack(n, 5 * US, MTU, 3 * US, false); /* delay back above 1 us: stops */
    assert_false(n->increasing);
    free(n);
}

static void test_eta_once_per_network_rtt(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 100000;
    ack(n, 13 * US, MTU, 20 * US, true); /* time trigger: first fulfill adds eta */
    assert_true(fabs(n->ctr[NC_ETA_INC] - (double)(uint64_t)(0.15 * MSS)) < 1e-9);
    ack(n, 14 * US, 10 * MTU, 2 * US, true); /* byte trigger, < 1 RTT later: no eta */
    assert_true(fabs(n->ctr[NC_ETA_INC] - (double)(uint64_t)(0.15 * MSS)) < 1e-9);
    free(n);
}

static void nack(struct nscc *n, simtime_ps now)
{
    struct cc_nack k = {.now = now, .pkt_bytes = MTU, .raw_rtt_ps = RTT + 5 * US, .in_flight_bytes = 150000};
    cc_nscc_ops.on_nack(n, &k);
}

static void test_nack_decrease_and_counter(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 100000;
    ack(n, 1 * US, MTU, 2 * US, false); /* arms the QA window */
    nack(n, 2 * US);
    assert_int_equal(n->win.cwnd_bytes, 100000 - MTU);
    assert_true(n->trigger_qa);
    assert_true(fabs(n->ctr[NC_NACK_DEC] - MTU) < 1e-9);
    /* the filter takes one network RTT as the delay of a trim */
    assert_true(n->avg_delay_ps > 0.0125 * RTT - 1);
    free(n);
}

/* QA fires at the end of a window only when something bad happened AND the
 * flow delivered less than maxwnd >> qa_gate (seed 002 Sec. 5). */
static void test_quick_adapt_dual_guard(void **st)
{
    (void)st;
    simtime_ps period = RTT + TARGET;
    /* loss + tiny delivery: fires, window = what was delivered */
    struct nscc *n = make(true);
    ack(n, 1 * US, MTU, 2 * US, false); /* arms: qa_end = 1us + period */
    nack(n, 3 * US);
    ack(n, 2 * US + period, 2 * MTU, 2 * US, false);
    /* the arming ACK's bytes belong to the previous window: 2 packets delivered */
    assert_int_equal(n->win.cwnd_bytes, 2 * MTU);
    assert_int_equal(n->bytes_to_ignore, 100000);
    assert_true(n->ctr[NC_QUICK_DEC] > 0);
    free(n);
    /* loss but healthy delivery (>= maxwnd/8): no QA */
    n = make(true);
    ack(n, 1 * US, MTU, 2 * US, false);
    nack(n, 3 * US);
    ack(n, 4 * US, 30000, 2 * US, false);
    uint64_t before = n->win.cwnd_bytes;
    ack(n, 2 * US + period, MTU, 2 * US, false);
    assert_true(n->win.cwnd_bytes >= before);
    assert_true(n->ctr[NC_QUICK_DEC] == 0);
    free(n);
    /* no loss, but delay above 4 x target with tiny delivery: fires */
    n = make(true);
    ack(n, 1 * US, MTU, 2 * US, false);
    ack(n, 2 * US + period, MTU, 4 * TARGET + US, false);
    assert_int_equal(n->win.cwnd_bytes, MTU);
    assert_true(n->ctr[NC_QUICK_DEC] > 0);
    free(n);
    /* tiny delivery but nothing bad: no QA */
    n = make(true);
    ack(n, 1 * US, MTU, 2 * US, false);
    ack(n, 2 * US + period, MTU, 2 * US, false);
    assert_true(n->ctr[NC_QUICK_DEC] == 0);
    free(n);
}

static void test_quick_adapt_ignores_stale_ecn(void **st)
{
    (void)st;
    simtime_ps period = RTT + TARGET;
    struct nscc *n = make(true);
    ack(n, 1 * US, MTU, 2 * US, false);
    nack(n, 3 * US);
    ack(n, 2 * US + period, MTU, 2 * US, false); /* QA fires; ignore 100000 B of ECN feedback */
    uint64_t w = n->win.cwnd_bytes;
    n->avg_delay_ps = 30.0 * US;
    for (int i = 0; i < 20; i++) /* 20 x 4150 = 83000 < 100000: all ignored */
        ack(n, 3 * US + period + i * US, MTU, 40 * US, true);
    assert_int_equal(n->win.cwnd_bytes, w);
    for (int i = 0; i < 10; i++) /* past the ignore budget: decreases resume */
        ack(n, 40 * US + period + i * 20 * US, MTU, 40 * US, true);
    assert_true(n->win.cwnd_bytes < w || n->ctr[NC_MULTI_DEC] > 0);
    free(n);
}

static void test_base_rtt_min_tracking(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    struct cc_ack a = {.now = 5 * US, .newly_acked_bytes = MTU, .rtt_valid = true, .raw_rtt_ps = 8 * US};
    cc_nscc_ops.on_ack(n, &a);
    assert_int_equal(n->base_rtt_ps, 8 * US);
    assert_int_equal(n->maxwnd_bytes, (uint64_t)(1.5 * 100000)); /* BDP at 8 us */
    a.raw_rtt_ps = 20 * US;
    cc_nscc_ops.on_ack(n, &a);
    assert_int_equal(n->base_rtt_ps, 8 * US); /* never moves up */
    free(n);
}

static void test_invalid_sample_uses_filtered_delay(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 200000;
    n->avg_delay_ps = 12.0 * US; /* above target */
    struct cc_ack a = {.now = 50 * US, .newly_acked_bytes = MTU, .rtt_valid = false, .ecn = true};
    cc_nscc_ops.on_ack(n, &a);
    /* delay = avg (12 us) >= target with ECN: multiplicative decrease */
    assert_true(n->win.cwnd_bytes < 200000);
    free(n);
}

static void test_window_bounds(void **st)
{
    (void)st;
    struct nscc *n = make(true);
    n->win.cwnd_bytes = 5000;
    for (int i = 0; i < 5; i++)
        nack(n, (simtime_ps)(i + 1) * US);
    assert_int_equal(n->win.cwnd_bytes, MTU); /* never below one MTU */
    n->win.cwnd_bytes = MAXWND;
    for (int i = 0; i < 200; i++)
        ack(n, 5 * US, MTU, 500000, false);
    assert_int_equal(n->win.cwnd_bytes, MAXWND); /* never above maxwnd */
    free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_reference_defaults),
        cmocka_unit_test(test_scaling_with_bdp),
        cmocka_unit_test(test_kept_fraction_table),
        cmocka_unit_test(test_proportional_increase_batched),
        cmocka_unit_test(test_fair_increase_and_discounted_filter),
        cmocka_unit_test(test_multiplicative_decrease_once_per_base_rtt),
        cmocka_unit_test(test_no_decrease_when_filtered_delay_low),
        cmocka_unit_test(test_steer_only_quadrant),
        cmocka_unit_test(test_fast_increase_after_a_clean_window),
        cmocka_unit_test(test_eta_once_per_network_rtt),
        cmocka_unit_test(test_nack_decrease_and_counter),
        cmocka_unit_test(test_quick_adapt_dual_guard),
        cmocka_unit_test(test_quick_adapt_ignores_stale_ecn),
        cmocka_unit_test(test_base_rtt_min_tracking),
        cmocka_unit_test(test_invalid_sample_uses_filtered_delay),
        cmocka_unit_test(test_window_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
