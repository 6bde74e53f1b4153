/* test_cc_edges.c: edge cases of the congestion control algorithms
 * (src/cc/) that the scripted and whole-run tests pass over, each written
 * for a mutant that survived tools/mutation.py (issue 26): state a reaction
 * must leave behind, and a range's end, checked against the paper's formula
 * or the float reference the NIC-style variant must track. No network:
 * the algorithms' hooks are called directly, so the program takes
 * milliseconds (the mutation tool runs it first for every cc mutant).
 */
#include "testutil.h"

#include "cc/cc.h"
#include "cc/nscc.h"

#include <math.h>
#include <string.h>

#define US PS_PER_US
#define MTU 4150u
#define RTT (12 * US) /* the seeds' reference network: 100 Gb/s, 12 us */

static struct cc_params ref_params(void)
{
    return (struct cc_params){
        .mtu_bytes = MTU,
        .mss_bytes = MTU - 64,
        .base_rtt_ps = RTT,
        .network_rtt_ps = RTT,
        .linkspeed_mbps = 100000,
        .qa_gate = -1,
        .trimming = true,
        .path_hops = 6,
    };
}

static void *make(const char *name)
{
    const struct cc_ops *ops = cc_find(name);
    assert_non_null(ops);
    void *st = calloc(1, ops->state_size);
    struct cc_params p = ref_params();
    ops->init(st, &p);
    return st;
}

static void ack(const char *name, void *st, simtime_ps now, uint64_t bytes, simtime_ps rtt, bool ecn)
{
    struct cc_ack a = {.now = now, .newly_acked_bytes = bytes, .rtt_valid = true, .raw_rtt_ps = rtt, .ecn = ecn,
                       .in_flight_bytes = 100000};
    cc_find(name)->on_ack(st, &a);
}

/* NSCC's QuickAdapt (seed 002 Sec. 5) sets the window to what was delivered
 * and starts over: the increases batched for the next fulfill belong to the
 * window it replaced, so all of them are dropped, the per-quadrant shares
 * the counters report included (issue 26: the shares reset to 1 instead of
 * 0 went unnoticed). Then the next fulfill's counters hold only what came
 * after. */
static void test_nscc_quick_adapt_drops_pending_increases(void **st)
{
    (void)st;
    struct nscc *n = make("nscc");
    n->win.cwnd_bytes = 100000;
    simtime_ps target = n->target_qdelay_ps, period = RTT + target;
    ack("nscc", n, 1 * US, MTU, RTT + 2 * US, false);          /* proportional; arms QA */
    ack("nscc", n, 2 * US, MTU, RTT + target + 1 * US, false); /* above target, no ECN: fair */
    assert_true(n->inc_prop_pending > 0);
    assert_true(n->inc_fair_pending > 0);
    struct cc_nack k = {.now = 3 * US, .pkt_bytes = MTU, .raw_rtt_ps = RTT + 5 * US, .in_flight_bytes = 100000};
    cc_nscc_ops.on_nack(n, &k);
    ack("nscc", n, 2 * US + period, MTU, RTT + 2 * US, false); /* fires: loss, little delivered */
    assert_true(n->ctr[NC_QUICK_DEC] > 0);
    assert_true(n->inc_bytes == 0);
    assert_true(n->inc_fair_pending == 0);
    assert_true(n->inc_prop_pending == 0);
    assert_int_equal(n->received_bytes, 0);
    assert_true(n->ctr[NC_FAIR_INC] == 0);
    assert_true(n->ctr[NC_PROP_INC] == 0);
    /* one fair increase after it: its ACK comes more than a network RTT
     * after the last adjustment (none yet), so a fulfill applies it at once */
    uint64_t w = n->win.cwnd_bytes;
    ack("nscc", n, 3 * US + period, MTU, RTT + target + 1 * US, false);
    assert_true(n->inc_fair_pending == 0); /* applied */
    print_message("window %llu, fair counter %.9f, expected %.9f\n", (unsigned long long)w, n->ctr[NC_FAIR_INC],
                  n->fi_bytes * MTU / (double)w);
    assert_true(fabs(n->ctr[NC_FAIR_INC] - n->fi_bytes * MTU / (double)w) < 1e-12);
    assert_true(n->ctr[NC_PROP_INC] == 0);
    free(n);
}

/* NSCC's QuickAdapt fires on delay when the period's deciding sample is
 * *above* qa_threshold (NSCC_QA_DELAY_MULT x the target delay) and little
 * was delivered: a delay of exactly the threshold is not above it. The
 * first ACK (no queueing) arms the period; the second, past its end (base
 * RTT + target later), carries the delay under test. */
static double nscc_quick_dec_after(simtime_ps delay_ps)
{
    struct nscc *n = make("nscc");
    simtime_ps t0 = 1 * US;
    ack("nscc", n, t0, MTU, RTT, false);
    assert_true(n->qa_end_ps > t0);
    ack("nscc", n, n->qa_end_ps + 1, MTU, RTT + delay_ps, false);
    double quick = n->ctr[NC_QUICK_DEC];
    free(n);
    return quick;
}

static void test_nscc_quick_adapt_delay_is_strictly_above(void **st)
{
    (void)st;
    struct nscc *n = make("nscc");
    simtime_ps threshold = n->qa_threshold_ps;
    free(n);
    assert_true(threshold > 0);
    assert_true(nscc_quick_dec_after(threshold) == 0);
    assert_true(nscc_quick_dec_after(threshold + 1) > 0);
}

/* Swift's window cap (packets) is at least one packet: swift-ref's
 * --cc-opt max_cwnd=1.5 keeps 1.5 packets (6225 bytes of 4150), 0.5 is
 * raised to 1 (min_cwnd set lower, so it is the one-packet floor that
 * acts, not min_cwnd). */
static uint64_t swift_ref_maxwnd(double max_cwnd)
{
    const struct cc_ops *ops = cc_find("swift-ref");
    assert_non_null(ops);
    struct cc_option o[2] = {{"max_cwnd", max_cwnd}, {"min_cwnd", 0.25}};
    struct cc_params p = ref_params();
    p.opts = o;
    p.n_opts = 2;
    void *st = calloc(1, ops->state_size);
    ops->init(st, &p);
    uint64_t m = ((const struct cc_window *)st)->maxwnd_bytes;
    free(st);
    return m;
}

static void test_swift_window_cap_at_least_one_packet(void **st)
{
    (void)st;
    assert_int_equal(swift_ref_maxwnd(1.5), 6225);
    assert_int_equal(swift_ref_maxwnd(1), MTU);
    assert_int_equal(swift_ref_maxwnd(0.5), MTU);
}

/* nscc-fixed keeps delays in ns Q8 in 32 bits, so a delay sample above
 * 2^24 ns (16.8 ms) saturates; one below it (10 ms here) is taken as it is,
 * as the float reference does (issue 26: saturating from 2^23 ns on went
 * unnoticed). A 10 ms ECN-marked sample moves both filters to 125 us (the
 * 0.0125 weight); 100 clean ACKs decay that to about 36 us; an ECN-marked
 * ACK above target then cuts the window by seed 002 Sec. 3b's
 * 1 - 0.8 (avg_rtt - target_rtt) / avg_rtt, about 0.56, above the 0.5 floor,
 * so a filter that saw 16.8 ms instead (210 us, decayed to 60 us) would
 * cut to the floor: 10% apart. The two windows agree within 1% throughout. */
static void test_nscc_fixed_delay_below_saturation(void **st)
{
    (void)st;
    void *a = make("nscc"), *b = make("nscc-fixed");
    simtime_ps t = 1 * US;
    ack("nscc", a, t, MTU, RTT + 10000 * US, true);
    ack("nscc-fixed", b, t, MTU, RTT + 10000 * US, true);
    for (int i = 0; i < 100; i++) {
        t += US;
        ack("nscc", a, t, MTU, RTT, false);
        ack("nscc-fixed", b, t, MTU, RTT, false);
    }
    double filtered = 0.0125 * 10000 * US * pow(1 - 0.0125, 100);
    assert_true(fabs(((struct nscc *)a)->avg_delay_ps - filtered) < 1e-3 * filtered);
    t += 2 * RTT;
    uint64_t before = cc_cwnd(a);
    print_message("filtered %.1f ps (expected %.1f), window %llu\n", ((struct nscc *)a)->avg_delay_ps, filtered,
                  (unsigned long long)before);
    ack("nscc", a, t, MTU, RTT + 10 * US, true);
    ack("nscc-fixed", b, t, MTU, RTT + 10 * US, true);
    /* the cut as the formula gives it for the filtered delay (the sample is
     * filtered before the decision); increases the same ACK applies after
     * the cut (a fulfill) only add to it */
    double avg = ((struct nscc *)a)->avg_delay_ps;
    assert_true(fabs(avg - (0.9875 * filtered + 0.0125 * 10 * US)) < 1e-3 * avg);
    double target_rtt = (double)(RTT + ((struct nscc *)a)->target_qdelay_ps);
    double keep = 1 - 0.8 * ((double)RTT + avg - target_rtt) / ((double)RTT + avg);
    print_message("keep %.4f, window %llu -> %llu (fixed %llu)\n", keep, (unsigned long long)before,
                  (unsigned long long)cc_cwnd(a), (unsigned long long)cc_cwnd(b));
    assert_true(keep > 0.5); /* above the floor: the filtered delay decides */
    assert_true(cc_cwnd(a) >= (uint64_t)(keep * (double)before));
    assert_true(cc_cwnd(a) < before);
    double wa = (double)cc_cwnd(a), wb = (double)cc_cwnd(b);
    if (fabs(wa - wb) > 0.01 * wa)
        fail_msg("nscc %.0f vs nscc-fixed %.0f after the cut", wa, wb);
    free(a);
    free(b);
}

/* NSCC's delay filter (seed 002 Sec. 4d), each of its three cases from a
 * filtered value that is not zero, so the weight on the old value counts
 * too (issue 26: the emergency case's (1 - r) turned into (1 + r) survived,
 * since the scripted tests started from 0): avg' = w x + (1 - w) avg with
 * w = 0.0125, x the sample, or base_rtt / 4 for a high delay without ECN
 * (distrusted), and the emergency weight r = 0.0125 for an ECN-marked
 * delay above 5 base RTTs. */
static void test_nscc_delay_filter_moves_from_nonzero(void **st)
{
    (void)st;
    const double w = 0.0125, avg0 = 20.0 * US;
    const struct {
        simtime_ps delay;
        bool ecn;
        double x; /* what the filter moves towards */
    } cases[] = {
        {3 * US, false, 3.0 * US},      /* below target: trusted */
        {30 * US, false, 0.25 * RTT},   /* above target, no ECN: distrusted */
        {30 * US, true, 30.0 * US},     /* marked, below 5 base RTTs */
        {70 * US, true, 70.0 * US},     /* marked, above 5 base RTTs: emergency weight */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nscc *n = make("nscc");
        n->avg_delay_ps = avg0;
        ack("nscc", n, 5 * US, MTU, RTT + cases[i].delay, cases[i].ecn);
        double want = w * cases[i].x + (1 - w) * avg0;
        if (fabs(n->avg_delay_ps - want) > 1e-6)
            fail_msg("case %zu: filtered %.3f ps, want %.3f", i, n->avg_delay_ps, want);
        free(n);
    }
}

/* Each algorithm's counters say where its window went (the last columns of
 * flows.csv): for the algorithms whose counters record the window's actual
 * change (dctcp, newreno, mprdma, uec-dctcp, swift and its variants,
 * smartt), the increases minus the decreases are exactly the window's
 * movement from its start, after every event of a mixed script of clean
 * and marked ACKs at low and high delay, NACKs, losses and timeouts; only
 * the two whole-byte roundings of the published window (the start's and
 * the current one) lie between them, so they agree within 2 bytes (issue
 * 26: a counter's 'before - cwnd' turned into 'before + cwnd' survived).
 * A decrease counter may go below zero: newreno's cut from under 2 MTU
 * raises the window to RFC 5681's 2-MTU ssthresh floor. */
static bool counter_is_increase(const char *name)
{
    size_t l = strlen(name);
    return l >= 3 && !strcmp(name + l - 3, "inc");
}

static void check_counters(const struct cc_ops *ops, const void *st, double w0, const char *what, int step)
{
    double c[16], net = 0;
    assert_true(ops->n_counters <= 16);
    ops->counters(st, c);
    for (unsigned i = 0; i < ops->n_counters; i++)
        net += counter_is_increase(ops->counter_names[i]) ? c[i] : -c[i];
    double moved = (double)cc_cwnd(st) - w0;
    if (fabs(net - moved) > 2.0)
        fail_msg("%s step %d (%s): window moved %.1f bytes, counters say %.1f", ops->name, step, what, moved, net);
}

static void test_counters_account_for_the_window(void **st)
{
    (void)st;
    static const char *const names[] = {"dctcp", "newreno", "mprdma", "uec-dctcp", "swift", "lswift", "mswift", "smartt"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const struct cc_ops *ops = cc_find(names[k]);
        assert_non_null(ops);
        void *state = make(names[k]);
        double w0 = (double)cc_cwnd(state);
        uint64_t in_flight = 100000;
        uint32_t x = 12345;
        bool used[16] = {false};
        for (int i = 0; i < 400; i++) {
            x = x * 1103515245u + 12345u; /* a fixed script: the ANSI C LCG */
            unsigned r = (x >> 16) % 100;
            simtime_ps now = (simtime_ps)(i + 1) * 3 * US;
            const char *what;
            if (r < 55) {
                bool ecn = r < 20;
                /* the delay in runs of 8 events (LSwift waits for delays in a row) */
                simtime_ps delay = (i / 8) % 3 == 0 ? 40 * US : ((i / 8) % 3 == 1 ? 2 * US : 0);
                struct cc_ack a = {.now = now, .newly_acked_bytes = MTU * (1 + r % 3), .rtt_valid = r != 54,
                                   .raw_rtt_ps = RTT + delay, .ecn = ecn, .in_flight_bytes = in_flight};
                ops->on_ack(state, &a);
                what = ecn ? "marked ack" : "ack";
            } else if (r < 75) {
                struct cc_nack nk = {.now = now, .pkt_bytes = MTU, .raw_rtt_ps = RTT + 5 * US,
                                     .in_flight_bytes = in_flight};
                ops->on_nack(state, &nk);
                what = "nack";
            } else if (r < 90 && ops->on_loss) {
                ops->on_loss(state, now, MTU);
                what = "loss";
            } else if (r < 95) {
                ops->on_timeout(state, now, MTU);
                what = "timeout";
            } else {
                in_flight = in_flight > 20000 ? in_flight / 2 : 200000;
                continue;
            }
            check_counters(ops, state, w0, what, i);
            double c[16];
            ops->counters(state, c);
            for (unsigned j = 0; j < ops->n_counters; j++)
                used[j] |= c[j] > 0;
        }
        for (unsigned j = 0; j < ops->n_counters; j++)
            if (!used[j])
                print_message("%s: counter %s never moved in the script\n", ops->name, ops->counter_names[j]);
        free(state);
    }
}

/* smartt-fixed's fast-increase test, rtt <= brtt x 1.05, is made in Q16:
 * rtt << 16 <= brtt x round(1.05 x 65536) = brtt x 68813. With a base RTT
 * of 65,536 ns an RTT of exactly 68,813 ns meets it with equality, so it is
 * fast (Alg. 3: once a window's bytes came at such RTTs, + k = 2 MTU per
 * ACK), and 68,814 ns is not (issue 26: '<=' turned into '<' survived).
 * The same 30 clean ACKs at each: the fast one's window ends at least one
 * fast step (2 MTU) above the other's. */
static void test_smartt_fixed_fast_increase_at_the_q16_threshold(void **st)
{
    (void)st;
    const struct cc_ops *ops = cc_find("smartt-fixed");
    assert_non_null(ops);
    uint64_t w[2];
    const simtime_ps rtt_ns[2] = {68813, 68814};
    for (int k = 0; k < 2; k++) {
        void *state = calloc(1, ops->state_size);
        struct cc_params p = ref_params();
        p.base_rtt_ps = 65536 * 1000ull;
        p.network_rtt_ps = p.base_rtt_ps;
        p.init_cwnd_bytes = 10 * MTU;
        ops->init(state, &p);
        for (int i = 0; i < 30; i++) {
            struct cc_ack a = {.now = (simtime_ps)(i + 1) * US, .newly_acked_bytes = MTU, .rtt_valid = true,
                               .raw_rtt_ps = rtt_ns[k] * 1000, .in_flight_bytes = 10 * MTU};
            ops->on_ack(state, &a);
        }
        w[k] = cc_cwnd(state);
        free(state);
    }
    print_message("windows after 30 ACKs: %llu (68813 ns), %llu (68814 ns)\n", (unsigned long long)w[0],
                  (unsigned long long)w[1]);
    assert_true(w[0] >= w[1] + 2 * MTU);
}

/* SMaRTT's wait-to-decrease (Sec. 3.6.1): a decrease is allowed once the
 * EWMA of ECN marks reaches the threshold, equality included. With
 * wtd_alpha = 0.25 and wtd_threshold = 0.25 (both exact in binary, in the
 * float and the Q24 variant alike) one marked ACK from 0 lands exactly on
 * the threshold: a marked ACK at a low RTT then takes the fair decrease in
 * both, and the windows agree within 1% (issue 26: smartt-fixed's '>='
 * turned into '>' survived). */
static void test_smartt_wait_to_decrease_at_the_threshold(void **st)
{
    (void)st;
    static const struct cc_option opts[] = {{"wtd_alpha", 0.25}, {"wtd_threshold", 0.25}};
    const char *names[2] = {"smartt", "smartt-fixed"};
    uint64_t before[2], after[2];
    for (int k = 0; k < 2; k++) {
        const struct cc_ops *ops = cc_find(names[k]);
        assert_non_null(ops);
        void *state = calloc(1, ops->state_size);
        struct cc_params p = ref_params();
        p.opts = opts;
        p.n_opts = 2;
        p.init_cwnd_bytes = 50 * MTU;
        ops->init(state, &p);
        before[k] = cc_cwnd(state);
        struct cc_ack a = {.now = 1 * US, .newly_acked_bytes = MTU, .rtt_valid = true, .raw_rtt_ps = RTT,
                           .ecn = true, .in_flight_bytes = 50 * MTU};
        ops->on_ack(state, &a);
        after[k] = cc_cwnd(state);
        free(state);
    }
    print_message("smartt %llu -> %llu, smartt-fixed %llu -> %llu\n", (unsigned long long)before[0],
                  (unsigned long long)after[0], (unsigned long long)before[1], (unsigned long long)after[1]);
    assert_true(after[0] < before[0]);
    assert_true(after[1] < before[1]);
    double d = fabs((double)after[0] - (double)after[1]);
    assert_true(d <= 0.01 * (double)after[0]);
}

/* SMaRTT with react_every=N (seed 003 Sec. 3.1) reacts once N packets are
 * acknowledged, an ACK of several packets counting its size in MTUs
 * rounded to the nearest: with N = 2 an ACK of 1.6 MTU counts 2 and moves
 * the window at once, one of 1.4 MTU counts 1 and waits (issue 26: the
 * rounding's mtu / 2 turned into mtu / 3 survived). */
static void test_smartt_react_every_rounds_acked_packets(void **st)
{
    (void)st;
    static const struct cc_option opts[] = {{"react_every", 2}};
    const uint64_t sizes[2] = {MTU * 16 / 10, MTU * 14 / 10};
    for (int k = 0; k < 2; k++) {
        const struct cc_ops *ops = cc_find("smartt");
        void *state = calloc(1, ops->state_size);
        struct cc_params p = ref_params();
        p.opts = opts;
        p.n_opts = 1;
        p.init_cwnd_bytes = 20 * MTU;
        ops->init(state, &p);
        uint64_t before = cc_cwnd(state);
        struct cc_ack a = {.now = 1 * US, .newly_acked_bytes = sizes[k], .rtt_valid = true, .raw_rtt_ps = RTT,
                           .in_flight_bytes = 20 * MTU};
        ops->on_ack(state, &a);
        if (k == 0)
            assert_true(cc_cwnd(state) > before);
        else
            assert_int_equal(cc_cwnd(state), before);
        free(state);
    }
}

/* --- mut6cnt (issue 26, cc module): registry, counters' bounds, BBR's
 * full-pipe test and Swift's timeout episodes at their boundaries. --- */

/* cc_names() is the list --help and the "unknown --cc" message print: every
 * registered algorithm once, in registry order, ", " between (issue 26: the
 * first name dropped went unnoticed). Built here from cc_registry(). */
static void test_cc_names_lists_every_algorithm_in_order(void **st)
{
    (void)st;
    size_t n = 0;
    const struct cc_ops *const *all = cc_registry(&n);
    assert_true(n > 1);
    char want[512] = "";
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(want, ", ");
        strcat(want, all[i]->name);
        assert_ptr_equal(cc_find(all[i]->name), all[i]);
    }
    assert_string_equal(cc_names(), want);
    assert_string_equal(cc_names(), want); /* the second call returns the same list, not a doubled one */
    assert_null(cc_find("no-such-cc"));
}

/* Each algorithm's counters() fills exactly n_counters values: flows.csv
 * has one column per counter name, and the caller's array has no room past
 * them (issue 26: BBR's loop run one past BB_COUNT wrote the next double). */
static void test_counters_write_exactly_n_counters(void **st)
{
    (void)st;
    size_t n = 0;
    const struct cc_ops *const *all = cc_registry(&n);
    for (size_t i = 0; i < n; i++) {
        const struct cc_ops *ops = all[i];
        if (!ops->counters)
            continue;
        assert_true(ops->n_counters < 16);
        void *state = calloc(1, ops->state_size);
        struct cc_params p = ref_params();
        ops->init(state, &p);
        double c[17];
        for (int j = 0; j < 17; j++)
            c[j] = -12345.0;
        ops->counters(state, c);
        for (unsigned j = ops->n_counters; j < 17; j++)
            if (c[j] != -12345.0)
                fail_msg("%s: counters() wrote value %u, past its %u counters", ops->name, j, ops->n_counters);
        for (unsigned j = 0; j < ops->n_counters; j++)
            if (c[j] == -12345.0)
                fail_msg("%s: counters() left counter %u (%s) unwritten", ops->name, j, ops->counter_names[j]);
        free(state);
    }
}

/* BBR leaves STARTUP after three rounds in which the bandwidth estimate did
 * not grow by 25% (CACM 2017; tcp_bbr.c bbr_check_full_bw_reached:
 * "bw >= full_bw * 125%" counts as growth). Each ACK below ends a round of
 * 1 us carrying the bytes given, so the round's rate is bytes x 10^6 B/s,
 * exact in doubles: 4000 then 5000 bytes is growth of exactly 25% (it
 * counts: the full-pipe count restarts), then rounds 3, 4 and 5 without
 * growth: STARTUP ends at round 5, not 4. */
static void test_bbr_full_pipe_growth_of_exactly_25_percent_counts(void **st)
{
    (void)st;
    const struct cc_ops *ops = cc_find("bbr");
    assert_non_null(ops);
    assert_int_equal(ops->n_counters, 2); /* rounds, startup_exit_round */
    void *b = make("bbr");
    const uint64_t in_flight = 1000;
    simtime_ps t = 100 * US;
    struct cc_ack a = {.now = t, .newly_acked_bytes = 1000, .rtt_valid = true, .raw_rtt_ps = RTT, .in_flight_bytes = in_flight};
    ops->on_ack(b, &a); /* opens round 1 */
    static const uint64_t round_bytes[] = {4000, 5000, 5000, 5000, 5000};
    double c[2];
    for (int r = 0; r < 5; r++) {
        t += US;
        a.now = t;
        a.newly_acked_bytes = round_bytes[r];
        ops->on_ack(b, &a);
        ops->counters(b, c);
        assert_true(c[0] == r + 1);
        if (r < 4 && c[1] != 0)
            fail_msg("BBR left STARTUP after round %d; the 25%% growth in round 2 restarts the count", r + 1);
    }
    assert_true(c[1] == 5);
    free(b);
}

/* BBR's round-trip propagation time takes only samples above 0 ps (bbr.c's
 * own rule; a simulated RTT is never 0, so 0 means no sample): an ACK flagged with
 * a valid RTT of 0 ps leaves min_rtt, and so the window (cwnd_gain x BDP +
 * 3 packets, 2.885 x 150 kB + 3 x 4150 here), exactly as an ACK without a
 * sample does; taken as 0 it would drop the window to BBR's floor of 4
 * packets. */
static void test_bbr_ignores_a_zero_rtt_sample(void **st)
{
    (void)st;
    const struct cc_ops *ops = cc_find("bbr");
    void *zero = make("bbr"), *none = make("bbr");
    struct cc_ack a = {.now = 100 * US, .newly_acked_bytes = MTU, .rtt_valid = true, .raw_rtt_ps = 0,
                       .in_flight_bytes = 100000};
    ops->on_ack(zero, &a);
    a.rtt_valid = false;
    ops->on_ack(none, &a);
    uint64_t w = ((const struct cc_window *)zero)->cwnd_bytes;
    assert_int_equal(w, ((const struct cc_window *)none)->cwnd_bytes);
    assert_true(w > 400000);
    free(zero);
    free(none);
}

/* nscc-fixed's delay filter rounds each EWMA step to nearest (avg += w (x
 * - avg), w = 0.0125 in Q24): fed a delay exactly at the target, the
 * average settles at or below target x 256, never above, as the exact
 * average would; so ECN-marked ACKs at that delay never count as a
 * multiplicative decrease (seed 002 Sec. 3b: only an average above the
 * target cuts), and do not hold off the next one by the once-per-base-RTT
 * rule. 3000 such ACKs 1 ns apart (inside the first QuickAdapt period,
 * base RTT + target = 13 us), then one at 10 x the target: the window is
 * cut at once. (A step rounded up settles 1/256 ns above the target, takes
 * a zero-size cut there, and the real one is then held off.) */
static void test_nscc_fixed_delay_at_the_target_holds_off_nothing(void **st)
{
    (void)st;
    const struct cc_ops *ops = cc_find("nscc-fixed");
    void *n = calloc(1, ops->state_size);
    struct cc_params p = ref_params();
    p.target_qdelay_ps = 1 * US;
    ops->init(n, &p);
    const struct cc_window *w = n;
    simtime_ps t = 1 * US;
    for (int i = 0; i < 3000; i++) {
        struct cc_ack a = {.now = t += 1000, .newly_acked_bytes = 64, .rtt_valid = true, .raw_rtt_ps = RTT + 1 * US,
                           .ecn = true, .in_flight_bytes = 100000};
        ops->on_ack(n, &a);
    }
    uint64_t before = w->cwnd_bytes;
    struct cc_ack high = {.now = t += 1000, .newly_acked_bytes = 64, .rtt_valid = true, .raw_rtt_ps = RTT + 10 * US,
                          .ecn = true, .in_flight_bytes = 100000};
    ops->on_ack(n, &high);
    print_message("window %llu before the high-delay ACK, %llu after\n", (unsigned long long)before,
                  (unsigned long long)w->cwnd_bytes);
    assert_true(w->cwnd_bytes < before);
    free(n);
}

/* nscc-fixed keeps its switches as bits of one flags byte: --cc-opt
 * quick_adapt=0 turns QuickAdapt off whatever else is on, --q3-pressure
 * included (issue 26: a Q3 bit that overlapped QuickAdapt's turned it
 * back on). A loss and, one QuickAdapt period later, an ACK with almost
 * nothing delivered would set the window to what was delivered; with it
 * off the window only loses the lost packet. */
static bool nscc_fixed_keeps_half_after_a_quiet_loss(double q3_pressure)
{
    const struct cc_ops *ops = cc_find("nscc-fixed");
    void *n = calloc(1, ops->state_size);
    struct cc_option off[1] = {{"quick_adapt", 0}};
    struct cc_params p = ref_params();
    p.opts = off;
    p.n_opts = 1;
    p.q3_pressure = q3_pressure;
    ops->init(n, &p);
    uint64_t start = ((const struct cc_window *)n)->cwnd_bytes;
    struct cc_ack a = {.now = 1 * US, .newly_acked_bytes = MTU, .rtt_valid = true, .raw_rtt_ps = RTT,
                       .in_flight_bytes = 100000};
    ops->on_ack(n, &a);
    struct cc_nack k = {.now = 2 * US, .pkt_bytes = MTU, .raw_rtt_ps = RTT, .in_flight_bytes = 100000};
    ops->on_nack(n, &k);
    a.now = 100 * US; /* past base RTT + target from the first ACK */
    ops->on_ack(n, &a);
    uint64_t w = ((const struct cc_window *)n)->cwnd_bytes;
    free(n);
    assert_true(start > 100000);
    return w * 2 > start;
}

static void test_nscc_fixed_quick_adapt_off_stays_off_with_q3(void **st)
{
    (void)st;
    assert_true(nscc_fixed_keeps_half_after_a_quiet_loss(0));
    assert_true(nscc_fixed_keeps_half_after_a_quiet_loss(0.2));
}

/* nscc-fixed decreases only when the filtered delay is above the target
 * (seed 002 Sec. 3b: avg_rtt - target_rtt > 0), not at it: a decrease there
 * cuts nothing yet would start the once-per-base-RTT hold-off. With a
 * target of 1 us (1000 ns, 256000 in Q8) one ECN-marked ACK at 80 us of
 * delay takes the average from 0 to exactly 256000 (80000 x 256 x 209715
 * / 2^24 = 255999.7, rounded); the next, 1 ns later, lifts it above the
 * target and must cut. */
static void test_nscc_fixed_average_exactly_at_the_target_is_no_decrease(void **st)
{
    (void)st;
    const struct cc_ops *ops = cc_find("nscc-fixed");
    void *n = calloc(1, ops->state_size);
    struct cc_params p = ref_params();
    p.target_qdelay_ps = 1 * US;
    ops->init(n, &p);
    const struct cc_window *w = n;
    struct cc_ack a = {.now = 1 * US, .newly_acked_bytes = 64, .rtt_valid = true, .raw_rtt_ps = RTT + 80 * US,
                       .ecn = true, .in_flight_bytes = 100000};
    ops->on_ack(n, &a);
    uint64_t before = w->cwnd_bytes;
    a.now += 1000;
    ops->on_ack(n, &a);
    print_message("window %llu, then %llu\n", (unsigned long long)before, (unsigned long long)w->cwnd_bytes);
    assert_true(w->cwnd_bytes < before);
    free(n);
}

/* Swift counts consecutive timeouts once per smoothed RTT (swift.c
 * sw_on_timeout): a second timeout exactly one srtt (12 us, the base RTT
 * before any ACK) after the first is a new episode and cuts again by
 * max_mdf (0.5); one a picosecond earlier is the same episode. */
static void test_swift_timeout_one_srtt_later_is_a_new_episode(void **st)
{
    (void)st;
    const struct cc_ops *ops = cc_find("swift");
    void *w = make("swift");
    simtime_ps t0 = 1000 * US;
    uint64_t c0 = cc_cwnd(w);
    ops->on_timeout(w, t0, MTU);
    uint64_t c1 = cc_cwnd(w);
    assert_true(c1 < c0);
    ops->on_timeout(w, t0 + RTT - 1, MTU);
    assert_int_equal(cc_cwnd(w), c1);
    ops->on_timeout(w, t0 + RTT, MTU);
    uint64_t c2 = cc_cwnd(w);
    assert_true(llabs((long long)c2 - (long long)c1 / 2) <= 1);
    free(w);
}

/* BBR's bandwidth estimate is the maximum of the last 10 rounds' delivery
 * rates (BBR_BW_WINDOW_ROUNDS, tcp_bbr.c's bbr_bw_rtts): a round of 8000
 * bytes in 1 us (8e9 B/s) followed by rounds of 4000 bytes (4e9 B/s) is
 * remembered through round 10 and forgotten in round 11. STARTUP ends in
 * round 4 (three rounds without growth), DRAIN at once (1000 bytes in
 * flight, below a BDP), so PROBE_BW's cwnd = 2 x bw x 12 us + 3 MTU:
 * 204450 bytes with 8e9 B/s, 108450 with 4e9 B/s, all exact in doubles. */
static void test_bbr_bandwidth_filter_forgets_after_ten_rounds(void **st)
{
    (void)st;
    const struct cc_ops *ops = cc_find("bbr");
    void *b = make("bbr");
    simtime_ps t = 100 * US;
    struct cc_ack a = {.now = t, .newly_acked_bytes = 1000, .rtt_valid = true, .raw_rtt_ps = RTT, .in_flight_bytes = 1000};
    ops->on_ack(b, &a); /* opens round 1 */
    double c[2];
    for (int r = 1; r <= 11; r++) {
        t += US;
        a.now = t;
        a.newly_acked_bytes = r == 1 ? 8000 : 4000;
        ops->on_ack(b, &a);
        if (r >= 4) {
            uint64_t want = r <= 10 ? 204450 : 108450;
            if (cc_cwnd(b) != want)
                fail_msg("round %d: cwnd %llu, expected %llu", r, (unsigned long long)cc_cwnd(b), (unsigned long long)want);
        }
    }
    ops->counters(b, c);
    assert_true(c[0] == 11 && c[1] == 4);
    free(b);
}

/* The exit status of initialising algorithm `name` with --cc-opt
 * opt=value, in a child (die_input exits 2 with one line on stderr). */
static int init_status(const char *name, const char *opt, double value)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(99);
        const struct cc_ops *ops = cc_find(name);
        struct cc_option o = {opt, value};
        struct cc_params p = ref_params();
        p.opts = &o;
        p.n_opts = 1;
        void *state = calloc(1, ops->state_size);
        ops->init(state, &p);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The --cc-opt ranges that tests/option_bounds.sh leaves out, at both ends
 * (dctcp.c, mprdma.c): dctcp's g in (0, 1] (RFC 8257's EWMA gain: 0 would
 * freeze alpha), alpha_init in [0, 1], mprdma's maxwnd_bdp in [0.01, 1000]
 * (issue 26: g = 0 accepted went unnoticed). */
static void test_option_ranges_at_both_ends(void **st)
{
    (void)st;
    static const struct {
        const char *cc, *opt;
        double value;
        int status;
    } cases[] = {
        {"dctcp", "g", 0, 2},           {"dctcp", "g", 1e-9, 0},          {"dctcp", "g", 1, 0},
        {"dctcp", "g", 1.0000001, 2},   {"dctcp", "g", -1e-9, 2},         {"dctcp", "alpha_init", 0, 0},
        {"dctcp", "alpha_init", 1, 0},  {"dctcp", "alpha_init", -1e-9, 2}, {"dctcp", "alpha_init", 1.0000001, 2},
        {"mprdma", "maxwnd_bdp", 0.01, 0}, {"mprdma", "maxwnd_bdp", 1000, 0}, {"mprdma", "maxwnd_bdp", 0.0099999, 2},
        {"mprdma", "maxwnd_bdp", 1000.0001, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = init_status(cases[i].cc, cases[i].opt, cases[i].value);
        if (got != cases[i].status)
            fail_msg("--cc %s --cc-opt %s=%g: exit %d, want %d", cases[i].cc, cases[i].opt, cases[i].value, got,
                     cases[i].status);
    }
}

/* BBR's PROBE_BW starts each flow at its own phase of the gain cycle
 * {1.25, 0.75, 1 x 6}, never the draining 0.75 (tcp_bbr.c draws
 * CYCLE_LEN - 1 - rand(7) and advances once: 2..7 or 0); the draw here is
 * a hash of path_hops, Knuth's multiplicative one (x 2654435761, the
 * golden ratio's 2^32 / phi, keeping the high bits: >> 8), so phase =
 * (8 - hash % 7) % 8. With a 4e9 B/s estimate held steady, every ACK more
 * than a min RTT (12 us) after the last phase change moves one phase on,
 * and the pacing gap, MTU / (gain x bw) = 1037500 ps / gain, shows the
 * gain: checked over a whole cycle for path_hops 1 to 16. */
static void test_bbr_probe_bw_starting_phase(void **st)
{
    (void)st;
    static const double gains[8] = {1.25, 0.75, 1, 1, 1, 1, 1, 1};
    const struct cc_ops *ops = cc_find("bbr");
    for (uint32_t h = 1; h <= 16; h++) {
        struct cc_params p = ref_params();
        p.path_hops = h;
        void *b = calloc(1, ops->state_size);
        ops->init(b, &p);
        uint32_t hash = (uint32_t)(h * 2654435761u) >> 8;
        uint32_t phase = (8 - hash % 7) % 8;
        assert_true(phase != 1);
        simtime_ps t = 100 * US;
        struct cc_ack a = {.now = t, .newly_acked_bytes = 1000, .rtt_valid = true, .raw_rtt_ps = RTT, .in_flight_bytes = 1000};
        ops->on_ack(b, &a);
        for (int r = 1; r <= 4; r++) { /* 4e9 B/s rounds: STARTUP ends in round 4, DRAIN at once */
            t += US;
            a.now = t;
            a.newly_acked_bytes = 4000;
            ops->on_ack(b, &a);
        }
        double c[2];
        ops->counters(b, c);
        assert_true(c[1] == 4);
        for (int k = 0; k <= 8; k++) {
            if (k) { /* 13 us later, 52000 bytes: 4e9 B/s again */
                t += 13 * US;
                a.now = t;
                a.newly_acked_bytes = 52000;
                ops->on_ack(b, &a);
            }
            double gain = gains[(phase + (uint32_t)k) % 8];
            simtime_ps want = (simtime_ps)llround(1037500.0 / gain);
            if (((const struct cc_window *)b)->pacing_gap_ps != want)
                fail_msg("path_hops %u, phase %u, step %d: pacing gap %llu ps, want %llu (gain %.2f)", h, phase, k,
                         (unsigned long long)((const struct cc_window *)b)->pacing_gap_ps, (unsigned long long)want, gain);
        }
        free(b);
    }
}

/* smartt-fixed keeps QuickAdapt's window end on the NIC's free-running ns
 * clock, modulo 2^32, with 0 meaning "not armed" (smartt_fixed.c
 * quick_adapt): an end that lands on 0 is moved to 1 ns. With trtt_mult
 * 1.5 over the 12 us base RTT the window is trtt = 18000 ns (Q4:
 * (12000 x 98304 + 2048) >> 12 = 288000, + 8 >> 4); an ACK at clock
 * 2^32 - 18000 arms it to end at 0, so 1. A trim at clock 0 (the window
 * not over) leaves QuickAdapt to wait; the next, at clock 1, ends the
 * window and QuickAdapt sets the window to what was acknowledged since
 * (nothing: one MTU) x qa_scaling 1 = 4150 bytes. */
static void test_smartt_fixed_quick_adapt_end_across_the_clock_wrap(void **st)
{
    (void)st;
    const struct cc_ops *ops = cc_find("smartt-fixed");
    struct cc_option o[2] = {{"trtt_mult", 1.5}, {"qa_scaling", 1}};
    struct cc_params p = ref_params();
    p.opts = o;
    p.n_opts = 2;
    void *sf = calloc(1, ops->state_size);
    ops->init(sf, &p);
    const simtime_ps wrap_ps = (simtime_ps)1000 << 32; /* clock_ns wraps at 2^32 ns */
    struct cc_ack a = {.now = wrap_ps - 18000 * PS_PER_NS, .newly_acked_bytes = 1000, .in_flight_bytes = 100000};
    ops->on_ack(sf, &a);
    uint64_t c0 = cc_cwnd(sf);
    assert_true(c0 > 4 * MTU);
    struct cc_nack k = {.now = wrap_ps, .pkt_bytes = MTU, .in_flight_bytes = 100000};
    ops->on_nack(sf, &k);
    uint64_t c1 = cc_cwnd(sf);
    assert_true(c1 > MTU && c1 < c0); /* cut by the trimmed packet, no QuickAdapt yet */
    k.now = wrap_ps + PS_PER_NS;
    ops->on_nack(sf, &k);
    assert_int_equal(cc_cwnd(sf), MTU);
    free(sf);
}

/* nscc-fixed counts RTTs in whole ns: a sample below 1 ns reads 0, which
 * is no sample, never a base RTT of 0 (that would make every later
 * delay the full RTT). With it, the flow must move exactly as a flow whose
 * first ACK carried no valid RTT at all, ACK for ACK. */
static void test_nscc_fixed_zero_ns_sample_is_no_base_rtt(void **st)
{
    (void)st;
    const struct cc_ops *ops = cc_find("nscc-fixed");
    void *x = make("nscc-fixed"), *y = make("nscc-fixed");
    struct cc_ack a = {.now = 1 * US, .newly_acked_bytes = MTU, .rtt_valid = true, .raw_rtt_ps = 500,
                       .in_flight_bytes = 100000};
    ops->on_ack(x, &a);
    a.rtt_valid = false;
    ops->on_ack(y, &a);
    assert_int_equal(cc_cwnd(x), cc_cwnd(y));
    for (int i = 0; i < 20; i++) {
        struct cc_ack b = {.now = (simtime_ps)(2 + i) * US, .newly_acked_bytes = MTU, .rtt_valid = true,
                           .raw_rtt_ps = RTT, .in_flight_bytes = 100000};
        ops->on_ack(x, &b);
        ops->on_ack(y, &b);
        assert_int_equal(cc_cwnd(x), cc_cwnd(y));
    }
    free(x);
    free(y);
}

/* SMaRTT without trimming (seed 003 Sec. 3.4) quick-adapts on delay when
 * an RTT *above* 2 x trtt was seen in the period (and little was acked):
 * an RTT of exactly 2 x trtt is not above it. trtt = 1.5 x the 12 us
 * base RTT = 18 us; the period starts at the first ACK and ends one trtt
 * later; the second ACK, inside it, carries the RTT under test; the third,
 * past the period's end, decides. */
static double smartt_quick_dec_after(simtime_ps rtt_ps)
{
    const struct cc_ops *ops = cc_find("smartt");
    void *state = calloc(1, ops->state_size);
    assert_non_null(state);
    struct cc_params p = ref_params();
    p.trimming = false;
    ops->init(state, &p);
    simtime_ps trtt = 18 * US, t0 = 1 * US;
    simtime_ps at[3] = {t0, t0 + 1000, t0 + trtt + 1 * US}, rtt[3] = {RTT, rtt_ps, RTT};
    for (int i = 0; i < 3; i++) {
        struct cc_ack a = {.now = at[i], .newly_acked_bytes = MTU, .rtt_valid = true, .raw_rtt_ps = rtt[i],
                           .in_flight_bytes = 100000};
        ops->on_ack(state, &a);
    }
    double out[32] = {0};
    assert_true(ops->n_counters <= 32);
    ops->counters(state, out);
    double quick = -1;
    for (unsigned k = 0; k < ops->n_counters; k++)
        if (!strcmp(ops->counter_names[k], "quick_dec"))
            quick = out[k];
    free(state);
    assert_true(quick >= 0);
    return quick;
}

static void test_smartt_no_trim_delay_trigger_is_strictly_above(void **st)
{
    (void)st;
    assert_true(smartt_quick_dec_after(36 * US) == 0);
    assert_true(smartt_quick_dec_after(36 * US + 1) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nscc_quick_adapt_drops_pending_increases),
        cmocka_unit_test(test_nscc_quick_adapt_delay_is_strictly_above),
        cmocka_unit_test(test_swift_window_cap_at_least_one_packet),
        cmocka_unit_test(test_nscc_fixed_delay_below_saturation),
        cmocka_unit_test(test_nscc_delay_filter_moves_from_nonzero),
        cmocka_unit_test(test_counters_account_for_the_window),
        cmocka_unit_test(test_smartt_fixed_fast_increase_at_the_q16_threshold),
        cmocka_unit_test(test_smartt_wait_to_decrease_at_the_threshold),
        cmocka_unit_test(test_smartt_react_every_rounds_acked_packets),
        cmocka_unit_test(test_cc_names_lists_every_algorithm_in_order),
        cmocka_unit_test(test_counters_write_exactly_n_counters),
        cmocka_unit_test(test_bbr_full_pipe_growth_of_exactly_25_percent_counts),
        cmocka_unit_test(test_bbr_ignores_a_zero_rtt_sample),
        cmocka_unit_test(test_nscc_fixed_delay_at_the_target_holds_off_nothing),
        cmocka_unit_test(test_nscc_fixed_quick_adapt_off_stays_off_with_q3),
        cmocka_unit_test(test_nscc_fixed_average_exactly_at_the_target_is_no_decrease),
        cmocka_unit_test(test_swift_timeout_one_srtt_later_is_a_new_episode),
        cmocka_unit_test(test_bbr_bandwidth_filter_forgets_after_ten_rounds),
        cmocka_unit_test(test_option_ranges_at_both_ends),
        cmocka_unit_test(test_bbr_probe_bw_starting_phase),
        cmocka_unit_test(test_smartt_fixed_quick_adapt_end_across_the_clock_wrap),
        cmocka_unit_test(test_nscc_fixed_zero_ns_sample_is_no_base_rtt),
        cmocka_unit_test(test_smartt_no_trim_delay_trigger_is_strictly_above),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
