/* test_swift.c: Swift, LSwift and MSwift against scripted ACK sequences, with
 * every expected window recomputed here from the formulas (Swift paper Alg. 1
 * and Sec. 3.5; seed 004 Sec. III, Eq. 8; constants of seed 001 Table 2),
 * the median helper's order statistics, and end-to-end runs: each algorithm
 * alone fills a bottleneck, and two flows of one algorithm share it fairly.
 *
 * Reference network: 100 Gb/s, 12 us base RTT, 4150-byte packets, so
 * BDP = 150000 B = 36.14 packets, base_target = 24 us, fs_range = 60 us.
 */
#include "testutil.h"
#include <string.h>

#include "cc/cc.h"
#include "cc/median.h"
#include "metrics/report.h"
#include "sim.h"
#include "simtest.h"
#include "transport/flow.h"
#include "transport/uet.h"

#include <math.h>

#define US PS_PER_US
#define MTU 4150u
#define RTT (12 * US)
#define T0 (1000 * US) /* scripted ACKs start here */

/* Formulas, in packets and microseconds, with the defaults of swift.c. */
static const double base_target_us = 24.0; /* 2 x RTT, seed 001 */
static const double fs_range_us = 60.0;    /* 5 x RTT, seed 001 */
static const double beta = 0.8, max_mdf = 0.5, ai = 1.0;

static double fs_us(double cwnd)
{
    double alpha = fs_range_us / (1 / sqrt(0.1) - 1 / sqrt(100.0));
    double f = alpha / sqrt(cwnd) - alpha / sqrt(100.0);
    return f < 0 ? 0 : f > fs_range_us ? fs_range_us : f;
}

static double target_us(double cwnd, double hop_us) { return base_target_us + hop_us + fs_us(cwnd); }

static double md(double cwnd, double delay_us, double tgt_us)
{
    double f = 1 - beta * (delay_us - tgt_us) / delay_us;
    return cwnd * (f < 1 - max_mdf ? 1 - max_mdf : f);
}

static double inc(double cwnd, double acked_pkts) { return cwnd >= 1 ? cwnd + ai * acked_pkts / cwnd : cwnd + ai * acked_pkts; }

/* A flow's CC state, generously sized (MSwift is the largest). */
struct flowcc {
    const struct cc_ops *ops;
    void *st;
};

static struct cc_option g_opts[8];
static unsigned g_nopts;

static void opt(const char *name, double v)
{
    g_opts[g_nopts].name = name;
    g_opts[g_nopts].value = v;
    g_nopts++;
}

static struct flowcc make(const struct cc_ops *ops, double cwnd_pkts, uint32_t hops)
{
    struct flowcc f = {ops, calloc(1, ops->state_size)};
    struct cc_params p = {
        .mtu_bytes = MTU,
        .mss_bytes = MTU - 64,
        .base_rtt_ps = RTT,
        .network_rtt_ps = RTT,
        .linkspeed_mbps = 100000,
        .init_cwnd_bytes = (uint64_t)llround(cwnd_pkts * MTU),
        .qa_gate = -1,
        .trimming = true,
        .path_hops = hops,
        .opts = g_opts,
        .n_opts = g_nopts,
    };
    ops->init(f.st, &p);
    g_nopts = 0;
    return f;
}

static struct cc_window win(struct flowcc f) { return *(const struct cc_window *)f.st; }

static void ack(struct flowcc f, simtime_ps now, double pkts, double rtt_us)
{
    struct cc_ack a = {.now = now,
                       .newly_acked_bytes = (uint64_t)llround(pkts * MTU),
                       .rtt_valid = rtt_us > 0,
                       .raw_rtt_ps = (simtime_ps)llround(rtt_us * US),
                       .in_flight_bytes = 0};
    f.ops->on_ack(f.st, &a);
}

/* The window the transport sees for `cwnd` packets (at least one packet). */
static void expect_cwnd(struct flowcc f, double cwnd)
{
    uint64_t b = (uint64_t)llround(cwnd * MTU);
    if (b < MTU)
        b = MTU;
    uint64_t got = win(f).cwnd_bytes;
    if (got + 1 < b || got > b + 1)
        fail_msg("cwnd %llu bytes, expected %llu (%.6f packets)", (unsigned long long)got, (unsigned long long)b, cwnd);
}

static void done(struct flowcc f) { free(f.st); }

/* ---- Swift ---------------------------------------------------------------------------- */

static void test_defaults_from_seed(void **st)
{
    (void)st;
    /* initial window 1 BDP (seed 001 Table 2), cap 1.25 BDP */
    struct flowcc f = make(&cc_swift_ops, 0, 0);
    expect_cwnd(f, 150000.0 / MTU);
    assert_int_equal(win(f).pacing_gap_ps, 0);
    assert_int_equal(win(f).maxwnd_bytes, 187500);
    done(f);
    assert_int_equal(cc_swift_ops.loss_mode, CC_LOSS_SACK_HOLE);
    assert_int_equal(cc_swift_ops.dupack_threshold, 3);
    assert_int_equal(cc_lswift_ops.loss_mode, CC_LOSS_NACK_RTO);
    assert_int_equal(cc_mswift_ops.loss_mode, CC_LOSS_NACK_RTO);
    assert_ptr_equal(cc_find("swift"), &cc_swift_ops);
    assert_ptr_equal(cc_find("lswift"), &cc_lswift_ops);
    assert_ptr_equal(cc_find("mswift"), &cc_mswift_ops);
    assert_non_null(strstr(cc_names(), "mswift"));
}

static void test_additive_increase_per_rtt(void **st)
{
    (void)st;
    /* one window of single-packet ACKs below target adds about ai packets */
    struct flowcc f = make(&cc_swift_ops, 10, 0);
    double c = 10;
    for (int i = 0; i < 10; i++) {
        ack(f, T0 + (simtime_ps)i * US, 1, 12.0);
        c = inc(c, 1);
        expect_cwnd(f, c);
    }
    assert_true(c > 10.95 && c < 11.0);
    /* a coalesced ACK of four packets adds ai x 4 / cwnd */
    ack(f, T0 + 20 * US, 4, 12.0);
    c = inc(c, 4);
    expect_cwnd(f, c);
    done(f);
    /* below one packet: ai x acked */
    f = make(&cc_swift_ops, 0.5, 0);
    ack(f, T0, 1, 12.0);
    expect_cwnd(f, 1.5);
    assert_int_equal(win(f).pacing_gap_ps, 0);
    done(f);
}

/* Swift increases while the delay is below the target (swift.c's header:
 * "delay < target : cwnd += ..."); a delay exactly at the target takes the decrease
 * side, whose cut there is 1 - beta x 0 / delay = nothing. With flow
 * scaling off (fs_range_us=0) and no hops the target is base_target_us
 * exactly (20 us): an ACK at 20 us leaves 10 packets, one at 20 us - 1 ps
 * adds ai / cwnd = 0.1 packet. */
static void test_delay_at_the_target_does_not_increase(void **st)
{
    (void)st;
    for (int below = 0; below < 2; below++) {
        opt("fs_range_us", 0);
        opt("base_target_us", 20);
        struct flowcc f = make(&cc_swift_ops, 10, 0);
        struct cc_ack a = {.now = T0, .newly_acked_bytes = MTU, .rtt_valid = true,
                           .raw_rtt_ps = 20 * US - (simtime_ps)below};
        f.ops->on_ack(f.st, &a);
        expect_cwnd(f, below ? inc(10, 1) : 10);
        done(f);
    }
}

/* An ACK without an RTT sample before any delay is known decides nothing:
 * the window stays; once a delay is known, such an ACK reuses it (issue 26:
 * "no delay yet" tested as last_delay == 1 went unnoticed, growing the
 * window on a delay of 0). */
static void test_no_decision_before_a_delay(void **st)
{
    (void)st;
    struct flowcc f = make(&cc_swift_ops, 10, 0);
    ack(f, T0, 1, 0);
    ack(f, T0 + US, 4, 0);
    expect_cwnd(f, 10);
    ack(f, T0 + 2 * US, 1, 12.0); /* below target: grows */
    double c = inc(10, 1);
    expect_cwnd(f, c);
    ack(f, T0 + 3 * US, 1, 0); /* the last delay, still below target */
    expect_cwnd(f, inc(c, 1));
    done(f);
}

static void test_md_bounded_and_once_per_rtt(void **st)
{
    (void)st;
    struct flowcc f = make(&cc_swift_ops, 10, 0);
    /* a large delay: the cut is bounded by max_mdf */
    double c = md(10, 100.0, target_us(10, 0));
    assert_true(fabs(c - 5.0) < 1e-12);
    ack(f, T0, 1, 100.0);
    expect_cwnd(f, c);
    /* srtt = 12 + (100 - 12)/8 = 23 us: nothing more within it */
    ack(f, T0 + 10 * US, 1, 100.0); /* srtt now 32.625 us */
    expect_cwnd(f, c);
    /* 40 us after the cut (> srtt 32.6), a moderate delay cuts by beta's formula */
    double tgt = target_us(c, 0);
    ack(f, T0 + 40 * US, 1, 40.0);
    double c2 = md(c, 40.0, tgt);
    assert_true(c2 > c * (1 - max_mdf) && c2 < c);
    expect_cwnd(f, c2);
    done(f);
}

static void test_target_scales_with_hops_and_window(void **st)
{
    (void)st;
    /* cwnd 10: target = 24 + fs(10) = 28.24 us */
    double t10 = target_us(10, 0);
    assert_true(fabs(t10 - 28.2366) < 1e-3);
    struct flowcc f = make(&cc_swift_ops, 10, 6);
    ack(f, T0, 1, t10 + 0.2); /* no hop scaling by default: above target */
    expect_cwnd(f, md(10, t10 + 0.2, t10));
    done(f);
    /* hop_scale_us = 2 on a 6-hop path raises the target by 12 us */
    opt("hop_scale_us", 2);
    f = make(&cc_swift_ops, 10, 6);
    double t = target_us(10, 12);
    ack(f, T0, 1, t - 0.1);
    expect_cwnd(f, inc(10, 1));
    done(f);
    opt("hop_scale_us", 2);
    f = make(&cc_swift_ops, 10, 6);
    ack(f, T0, 1, t + 0.1);
    expect_cwnd(f, md(10, t + 0.1, t));
    done(f);
    /* flow scaling: at fs_max_cwnd (100) the target is base_target alone;
     * below fs_min_cwnd (0.1) it is base_target + fs_range */
    assert_true(fabs(target_us(100, 0) - 24.0) < 1e-9);
    opt("max_cwnd_bdp", 4);
    f = make(&cc_swift_ops, 100, 0);
    ack(f, T0, 1, 25.0); /* 25 us > 24 us: decrease */
    expect_cwnd(f, md(100, 25.0, 24.0));
    done(f);
    f = make(&cc_swift_ops, 10, 0);
    ack(f, T0, 1, 25.0); /* the same delay is below target at cwnd 10 */
    expect_cwnd(f, inc(10, 1));
    done(f);
    /* cwnd 0.05 (208 B): 83 us < 84 us, so ai x acked is added; the
     * transport sees the new window through the pacing gap srtt / cwnd */
    f = make(&cc_swift_ops, 0.05, 0);
    ack(f, T0, 0.5, 83.0);
    double c = inc(208.0 / MTU, 0.5);
    double srtt_us = 12.0 + (83.0 - 12.0) / 8;
    assert_true(llabs((long long)win(f).pacing_gap_ps - llround(srtt_us * US / c)) <= 2);
    done(f);
}

static void test_pacing_below_one_packet(void **st)
{
    (void)st;
    struct flowcc f = make(&cc_swift_ops, 1.5, 0);
    ack(f, T0, 1, 12.0); /* srtt stays 12 us */
    double c = inc(1.5, 1);
    assert_int_equal(win(f).pacing_gap_ps, 0);
    ack(f, T0 + US, 1, 100.0); /* srtt = 12 + 88/8 = 23 us */
    c = md(c, 100.0, target_us(c, 0));
    /* 2.17 -> 1.08: still one packet or more */
    assert_true(c >= 1);
    assert_int_equal(win(f).pacing_gap_ps, 0);
    f.ops->on_loss(f.st, T0 + 30 * US, MTU); /* 30 us >= srtt: cut by max_mdf */
    c *= 1 - max_mdf;
    assert_true(c < 1);
    expect_cwnd(f, c); /* the transport still sees one packet */
    assert_int_equal(win(f).cwnd_bytes, MTU);
    assert_int_equal(win(f).pacing_gap_ps, (simtime_ps)llround(23.0 * US / c));
    done(f);
}

static void test_loss_cuts_once_per_rtt(void **st)
{
    (void)st;
    const struct cc_ops *all[3] = {&cc_swift_ops, &cc_lswift_ops, &cc_mswift_ops};
    for (int k = 0; k < 3; k++) {
        struct flowcc f = make(all[k], 20, 0);
        f.ops->on_loss(f.st, T0, MTU);
        expect_cwnd(f, 10);
        f.ops->on_loss(f.st, T0 + 5 * US, MTU); /* within srtt (12 us) */
        expect_cwnd(f, 10);
        struct cc_nack n = {.now = T0 + 13 * US, .pkt_bytes = MTU, .raw_rtt_ps = RTT};
        f.ops->on_nack(f.st, &n); /* a trimmed packet: the same cut */
        expect_cwnd(f, 5);
        double ctr[4];
        f.ops->counters(f.st, ctr);
        assert_true(fabs(ctr[2] - 15.0 * MTU) < 1e-6); /* loss_dec */
        done(f);
    }
}

static void test_timeouts_reset_to_min_cwnd(void **st)
{
    (void)st;
    struct flowcc f = make(&cc_swift_ops, 16, 0);
    f.ops->on_timeout(f.st, T0, MTU);
    expect_cwnd(f, 8);
    f.ops->on_timeout(f.st, T0 + US, MTU); /* within an RTT: one episode, no cut */
    expect_cwnd(f, 8);
    f.ops->on_timeout(f.st, T0 + 20 * US, MTU);
    expect_cwnd(f, 4);
    f.ops->on_timeout(f.st, T0 + 40 * US, MTU);
    expect_cwnd(f, 2);
    f.ops->on_timeout(f.st, T0 + 41 * US, MTU); /* same episode (within an RTT): not counted */
    expect_cwnd(f, 2);
    f.ops->on_timeout(f.st, T0 + 60 * US, MTU);
    expect_cwnd(f, 1);
    /* exactly one packet is the ACK clock's, not paced: Swift paces only a
     * window below one packet (swift.c's header) */
    assert_int_equal(win(f).pacing_gap_ps, 0);
    f.ops->on_timeout(f.st, T0 + 80 * US, MTU); /* fifth episode in a row: min_cwnd */
    expect_cwnd(f, 0.001);
    assert_int_equal(win(f).pacing_gap_ps, (simtime_ps)llround(12.0 * US / 0.001));
    done(f);
    /* an ACK between timeouts restarts the count */
    f = make(&cc_swift_ops, 16, 0);
    double c = 16;
    for (int i = 0; i < 4; i++) {
        f.ops->on_timeout(f.st, T0 + (simtime_ps)i * 100 * US, MTU);
        c *= 0.5;
    }
    ack(f, T0 + 401 * US, 1, 12.0);
    c = inc(c, 1);
    f.ops->on_timeout(f.st, T0 + 500 * US, MTU);
    c *= 0.5;
    expect_cwnd(f, c);
    done(f);
}

/* ---- LSwift ----------------------------------------------------------------------------- */

static void test_lswift_five_successive_delays(void **st)
{
    (void)st;
    struct flowcc f = make(&cc_lswift_ops, 10, 0);
    double hi = 60.0;
    for (int i = 0; i < 4; i++)
        ack(f, T0 + (simtime_ps)i * US, 1, hi);
    expect_cwnd(f, 10); /* four delayed ACKs: no change */
    ack(f, T0 + 4 * US, 1, 12.0);
    double c = inc(10, 1); /* a good one: increase, and the run restarts */
    expect_cwnd(f, c);
    for (int i = 0; i < 4; i++)
        ack(f, T0 + (simtime_ps)(5 + i) * US, 1, hi);
    expect_cwnd(f, c);
    ack(f, T0 + 9 * US, 1, hi); /* the fifth in a row */
    c = md(c, hi, target_us(c, 0));
    expect_cwnd(f, c);
    done(f);
    /* Swift itself decreases at the first delayed ACK */
    f = make(&cc_swift_ops, 10, 0);
    ack(f, T0, 1, hi);
    expect_cwnd(f, md(10, hi, target_us(10, 0)));
    done(f);
}

/* ---- MSwift ------------------------------------------------------------------------------ */

/* The incremental window (median.c) answers exactly what sorting the newest
 * min(h, count) samples answers, for h that moves by small steps and by
 * jumps, repeated values, and more pushes than the ring holds. */
static int cmp_double_asc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void test_median_window_matches_sorting(void **st)
{
    (void)st;
    static struct median_hist m;
    static double all[5000], buf[MEDIAN_CAP];
    median_init(&m);
    struct rng r;
    rng_seed(&r, 7, RNG_STREAM_TEST, 0);
    uint32_t h = 1;
    const double pcts[] = {50, 10, 90, 100, 1};
    for (uint32_t i = 0; i < 5000; i++) {
        all[i] = (double)rng_below(&r, 40); /* many ties */
        median_push(&m, all[i]);
        uint64_t step = rng_below(&r, 10);
        if (step == 0)
            h = 1 + (uint32_t)rng_below(&r, MEDIAN_CAP + 200); /* a jump, sometimes beyond the ring */
        else if (step < 5 && h > 1)
            h--;
        else
            h++;
        double p = pcts[i % 5];
        uint32_t n = h < i + 1 ? h : i + 1;
        if (n > MEDIAN_CAP)
            n = MEDIAN_CAP;
        memcpy(buf, &all[i + 1 - n], n * sizeof(double));
        qsort(buf, n, sizeof(double), cmp_double_asc);
        double rk = ceil(p / 100.0 * n);
        uint32_t rank = rk < 1 ? 1 : rk > n ? n : (uint32_t)rk;
        double want = buf[rank - 1];
        double got = median_percentile(&m, h, p);
        if (got != want)
            fail_msg("push %u, h %u, p %g: %g, want %g", i, h, p, got, want);
    }
}

static void test_mswift_median_of_half_window(void **st)
{
    (void)st;
    double lo = 12.0, hi = 60.0;
    /* W = 8 -> H = 4 (Eq. 8). delayed_pkts = 1 isolates the median decision. */
    opt("delayed_pkts", 1);
    struct flowcc f = make(&cc_mswift_ops, 8, 0);
    double c = 8;
    double seq[4] = {lo, lo, hi, hi};
    for (int i = 0; i < 4; i++) {
        ack(f, T0 + (simtime_ps)i * US, 1, seq[i]);
        c = inc(c, 1); /* medians: lo, lo, lo, lo (lower median of [lo lo hi hi]) */
        expect_cwnd(f, c);
    }
    assert_true(c > 8 && c < 10); /* H still 4 */
    ack(f, T0 + 4 * US, 1, hi); /* [lo hi hi hi]: median hi */
    c = md(c, hi, target_us(c, 0));
    expect_cwnd(f, c);
    done(f);
    /* Swift on the same sequence cuts at the first high sample */
    f = make(&cc_swift_ops, 8, 0);
    ack(f, T0, 1, lo);
    ack(f, T0 + US, 1, lo);
    ack(f, T0 + 2 * US, 1, hi);
    assert_true(win(f).cwnd_bytes < 8 * MTU);
    done(f);
}

static void test_mswift_history_follows_window(void **st)
{
    (void)st;
    double lo = 12.0, hi = 60.0;
    /* W = 20 -> H = 10: after 6 low and 4 high delays the median is low */
    opt("delayed_pkts", 1);
    struct flowcc f = make(&cc_mswift_ops, 20, 0);
    double c = 20;
    for (int i = 0; i < 10; i++) {
        ack(f, T0 + (simtime_ps)i * US, 1, i < 6 ? lo : hi);
        c = inc(c, 1);
    }
    expect_cwnd(f, c);
    done(f);
    /* a fixed history of 4 sees [lo hi hi hi] at the 9th ACK and cuts there,
     * where H = 10 still sees a low median (6 low of 9) */
    opt("delayed_pkts", 1);
    opt("history", 4);
    f = make(&cc_mswift_ops, 20, 0);
    c = 20;
    for (int i = 0; i < 9; i++) {
        ack(f, T0 + (simtime_ps)i * US, 1, i < 6 ? lo : hi);
        c = i < 8 ? inc(c, 1) : md(c, hi, target_us(c, 0));
    }
    expect_cwnd(f, c);
    done(f);
    /* with the default five-delay rule MSwift needs five high medians */
    f = make(&cc_mswift_ops, 8, 0);
    c = 8;
    for (int i = 0; i < 9; i++) {
        ack(f, T0 + (simtime_ps)i * US, 1, i < 2 ? lo : hi);
        /* medians (H = 4): lo lo lo lo hi hi hi hi hi -> cut at the ninth */
        if (i < 4)
            c = inc(c, 1);
        else if (i == 8)
            c = md(c, hi, target_us(c, 0));
    }
    expect_cwnd(f, c);
    done(f);
}

static void test_mswift_percentiles(void **st)
{
    (void)st;
    double lo = 12.0, hi = 60.0;
    /* P90 of [lo lo lo hi] (H = 4) is hi: cut at the fourth ACK */
    opt("delayed_pkts", 1);
    opt("percentile", 90);
    struct flowcc f = make(&cc_mswift_ops, 8, 0);
    double c = 8;
    for (int i = 0; i < 4; i++) {
        ack(f, T0 + (simtime_ps)i * US, 1, i < 3 ? lo : hi);
        c = i < 3 ? inc(c, 1) : md(c, hi, target_us(c, 0));
    }
    expect_cwnd(f, c);
    done(f);
    /* P10 of [lo hi hi hi] is lo: no cut, where the median would cut */
    opt("delayed_pkts", 1);
    opt("percentile", 10);
    f = make(&cc_mswift_ops, 8, 0);
    c = 8;
    for (int i = 0; i < 4; i++) {
        ack(f, T0 + (simtime_ps)i * US, 1, i < 1 ? lo : hi);
        c = inc(c, 1);
    }
    expect_cwnd(f, c);
    done(f);
    opt("delayed_pkts", 1);
    f = make(&cc_mswift_ops, 8, 0);
    for (int i = 0; i < 4; i++)
        ack(f, T0 + (simtime_ps)i * US, 1, i < 1 ? lo : hi);
    assert_true(win(f).cwnd_bytes < 8 * MTU);
    done(f);
}

/* ---- median helper ------------------------------------------------------------------------ */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void test_median_edge_cases(void **st)
{
    (void)st;
    static struct median_hist m;
    median_init(&m);
    assert_int_equal(median_count(&m), 0);
    assert_true(median_percentile(&m, 4, 50) == 0.0); /* empty */
    median_push(&m, 7);
    assert_true(median_percentile(&m, 100, 50) == 7); /* H above samples seen */
    median_push(&m, 3);
    median_push(&m, 9);
    assert_true(median_percentile(&m, 1, 50) == 9);   /* H = 1: the newest */
    assert_true(median_percentile(&m, 3, 50) == 7);
    assert_true(median_percentile(&m, 2, 50) == 3);   /* lower median of {3, 9} */
    assert_true(median_percentile(&m, 3, 10) == 3);
    assert_true(median_percentile(&m, 3, 90) == 9);
    assert_true(median_percentile(&m, 3, 100) == 9);
    assert_true(median_percentile(&m, 3, 0) == 3);
    assert_true(median_percentile(&m, 50, 50) == 7);  /* all three */
    /* wraparound: only the newest MEDIAN_CAP samples remain */
    median_init(&m);
    for (uint32_t i = 0; i < MEDIAN_CAP + 10; i++)
        median_push(&m, i < 10 ? 1e9 : (double)i);
    assert_int_equal(median_count(&m), MEDIAN_CAP);
    assert_true(median_percentile(&m, 5000, 100) == MEDIAN_CAP + 9); /* the 1e9s are gone */
    assert_true(median_percentile(&m, 5000, 0) == 10);
}

static void test_median_matches_sorting(void **st)
{
    (void)st;
    static struct median_hist m;
    static double ref[MEDIAN_CAP];
    uint64_t x = 88172645463325252ULL;
    for (int trial = 0; trial < 300; trial++) {
        median_init(&m);
        uint32_t n = 1 + (uint32_t)(trial * 7 % 1500);
        for (uint32_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            median_push(&m, (double)(x % (trial % 3 ? 1000 : 4))); /* many ties too */
        }
        uint32_t h = 1 + (uint32_t)(x % 1100);
        uint32_t k = h < median_count(&m) ? h : median_count(&m);
        /* the newest k samples, from the ring */
        for (uint32_t i = 0; i < k; i++)
            ref[i] = m.s[(m.head + MEDIAN_CAP - k + i) % MEDIAN_CAP];
        qsort(ref, k, sizeof ref[0], cmp_d);
        double ps[] = {10, 50, 90, 100, 33.3};
        for (int j = 0; j < 5; j++) {
            uint32_t rank = (uint32_t)ceil(ps[j] / 100 * k);
            if (rank < 1)
                rank = 1;
            assert_true(median_percentile(&m, h, ps[j]) == ref[rank - 1]);
        }
    }
}

/* ---- swift-ref: Swift as the reference simulator runs it ------------------------------------- */

/* htsim swift.cpp: 20 us + flow scaling (100 us range) on the window in
 * whole packets; 15 packets to start, at most 1000, at least 10 bytes;
 * 3 duplicate ACKs; no per-hop term (its route copy has no hops). */
static void test_swift_ref_rules(void **st)
{
    (void)st;
    assert_ptr_equal(cc_find("swift-ref"), &cc_swift_ref_ops);
    assert_int_equal(cc_swift_ref_ops.loss_mode, CC_LOSS_DUPACK);
    assert_int_equal(cc_swift_ref_ops.dupack_threshold, 3);
    struct cc_params p = {.mtu_bytes = MTU, .mss_bytes = MTU - 64, .base_rtt_ps = RTT, .network_rtt_ps = RTT,
                          .linkspeed_mbps = 100000, .qa_gate = -1, .path_hops = 6};
    struct flowcc f = {&cc_swift_ref_ops, calloc(1, cc_swift_ref_ops.state_size)};
    cc_swift_ref_ops.init(f.st, &p);
    expect_cwnd(f, 15); /* not 1 BDP */
    assert_int_equal(win(f).maxwnd_bytes, 1000 * MTU);
    /* target at 15.7 packets: flow scaling on 15 whole packets, 100 us range */
    double alpha = 100.0 / (1 / sqrt(0.1) - 1 / sqrt(100.0));
    double t15 = 20.0 + alpha / sqrt(15.0) - alpha / 10;
    ack(f, T0, 10.5, 5.0); /* 15 -> 15.7 packets, far below target */
    double c = 15 + 10.5 / 15;
    expect_cwnd(f, c);
    ack(f, T0 + 1 * US, 1, t15 - 0.05); /* just below: increase, no hop term on 6 hops */
    expect_cwnd(f, c + 1 / c);
    c += 1 / c;
    ack(f, T0 + 2 * US, 1, t15 + 0.05); /* just above: decrease */
    expect_cwnd(f, c * (1 - 0.8 * 0.05 / (t15 + 0.05)));
    done(f);
}

/* ---- end to end ---------------------------------------------------------------------------- */

static struct sim S;

/* The reference's 2-to-1 with its Swift flags (-q 43, 4000-byte packets,
 * no trimming, an ACK per packet, one path): htsim_swift (main_swift.cpp
 * fixed to build its tree) finishes the second flow at 751.5 us
 * (reference-simulator.md); within 10%. */
static void test_swift_ref_two_to_one_matches_reference(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 2\n1->0 id 1 start 0 size 4000000\n"
                          "5->0 id 2 start 0 size 4000000\n", ".cm");
    c.cc_name = "swift-ref";
    c.cc_given = true;
    c.paths = 1;
    c.lb_name = "single";
    c.queue_pkts = 43;
    c.mtu_bytes = 4000;
    c.trimming = false;
    c.ack_threshold_bytes = 1;
    c.end_ps = 5000 * US;
    c.progress = false;
    sim_setup(&S, &c);
    sim_run(&S);
    assert_int_equal(S.flows_finished, 2);
    double tail = 0;
    for (int i = 0; i < 2; i++)
        tail = fmax(tail, (double)(S.flows[i].finish_ps - S.flows[i].start_ps) / US);
    if (!(tail > 0.9 * 751.5 && tail < 1.1 * 751.5))
        fail_msg("tail %.1f us, the reference 751.5 us", tail);
    sim_free(&S);
}



static void test_one_flow_fills_the_bottleneck(void **st)
{
    (void)st;
    const char *ccs[] = {"swift", "lswift", "mswift"};
    for (size_t k = 0; k < sizeof ccs / sizeof ccs[0]; k++)
        check_fills_bottleneck(&S, ccs[k]);
}

static void test_two_flows_share_fairly(void **st)
{
    (void)st;
    const char *ccs[] = {"swift", "lswift", "mswift"};
    for (size_t k = 0; k < sizeof ccs / sizeof ccs[0]; k++)
        check_two_flows_share(&S, ccs[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_from_seed),
        cmocka_unit_test(test_median_window_matches_sorting),
        cmocka_unit_test(test_additive_increase_per_rtt),
        cmocka_unit_test(test_delay_at_the_target_does_not_increase),
        cmocka_unit_test(test_no_decision_before_a_delay),
        cmocka_unit_test(test_md_bounded_and_once_per_rtt),
        cmocka_unit_test(test_target_scales_with_hops_and_window),
        cmocka_unit_test(test_pacing_below_one_packet),
        cmocka_unit_test(test_loss_cuts_once_per_rtt),
        cmocka_unit_test(test_timeouts_reset_to_min_cwnd),
        cmocka_unit_test(test_lswift_five_successive_delays),
        cmocka_unit_test(test_mswift_median_of_half_window),
        cmocka_unit_test(test_mswift_history_follows_window),
        cmocka_unit_test(test_mswift_percentiles),
        cmocka_unit_test(test_median_edge_cases),
        cmocka_unit_test(test_median_matches_sorting),
        cmocka_unit_test(test_one_flow_fills_the_bottleneck),
        cmocka_unit_test(test_two_flows_share_fairly),
        cmocka_unit_test(test_swift_ref_rules),
        cmocka_unit_test(test_swift_ref_two_to_one_matches_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
