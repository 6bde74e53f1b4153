/* test_lb_adaptive.c: unit tests for the feedback-driven balancers of the
 * UE reference simulator (htsim uec_mp): Bitmap, Mixed, and REPS's freezing
 * mode, driven through their ops tables as the transport drives them, plus
 * an end-to-end check that Bitmap and Mixed meet the reference's 16-node
 * permutation bound.
 *
 * Bitmap is oblivious spraying that skips penalized entropies: penalties
 * rise by 1 (ECN), 4 (NACK) and 15 (timeout), capped at 15; the first
 * entropy skipped in a send loses one unit, and every 100 us every penalty
 * loses one unit. Mixed reuses clean-ACK entropies first and otherwise asks
 * its Bitmap half. REPS with freezing on stops trusting fresh exploration on
 * a timeout: for 10 ms it sends round robin over the entropies it holds,
 * then clears them and sends 16 random entropies. A last-hop trim reaches
 * the balancer as LB_GOOD or LB_ECN, never as LB_NACK.
 */
#include "testutil.h"

#include "lb/lb.h"
#include "sim.h"
#include "transport/flow.h"

/* ---- helpers ------------------------------------------------------------------- */

static struct lb_params params(uint32_t paths, uint64_t seed, uint32_t flow_index)
{
    struct lb_params p = {
        .paths = paths,
        .bdp_pkts = 0,
        .buffer_size = 0,
        .trimming = true,
        .seed = seed,
        .flow_index = flow_index,
    };
    return p;
}

/* Allocates exactly the bytes the balancer asks for, so the sanitizer build
 * catches a state that outgrows its own size. */
static void *lb_make(const struct lb_ops *ops, const struct lb_params *p)
{
    size_t n = lb_state_bytes(ops, p);
    assert_true(n <= ops->state_size);
    void *st = calloc(1, n);
    assert_non_null(st);
    ops->init(st, p);
    return st;
}

static void *bitmap_new(uint32_t paths, uint64_t seed, uint32_t flow_index)
{
    struct lb_params p = params(paths, seed, flow_index);
    return lb_make(&lb_bitmap_ops, &p);
}

static void *mixed_new(uint32_t paths, uint64_t seed, uint32_t flow_index)
{
    struct lb_params p = params(paths, seed, flow_index);
    return lb_make(&lb_mixed_ops, &p);
}

static void *oblivious_new(uint32_t paths, uint64_t seed, uint32_t flow_index)
{
    struct lb_params p = params(paths, seed, flow_index);
    return lb_make(&lb_oblivious_ops, &p);
}

static void *reps_new(uint32_t paths, uint32_t bdp_pkts, bool freeze, bool trimming)
{
    struct lb_params p = params(paths, 13, 0);
    p.bdp_pkts = bdp_pkts;
    p.reps_freeze = freeze;
    p.trimming = trimming;
    return lb_make(&lb_reps_ops, &p);
}

#define US(x) ((simtime_ps)((x) * (double)PS_PER_US))
#define MS(x) ((simtime_ps)((x) * (double)PS_PER_MS))

static uint16_t nxt(const struct lb_ops *ops, void *st, simtime_ps now)
{
    return ops->next_entropy(st, 1000000, now);
}

static void fb(const struct lb_ops *ops, void *st, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    ops->feedback(st, ev, sig, now);
}

static unsigned total_penalty(const void *bm, uint32_t paths)
{
    unsigned t = 0;
    for (uint32_t e = 0; e < paths; e++)
        t += lb_bitmap_penalty(bm, (uint16_t)e);
    return t;
}

/* A plain model of Bitmap built on the oblivious balancer as its candidate
 * generator (htsim uec_mp: Bitmap walks oblivious's XOR cycle). */
struct bitmap_model {
    void *obl;
    uint32_t paths;
    uint8_t pen[256];
};

static void model_init(struct bitmap_model *m, uint32_t paths, uint64_t seed, uint32_t flow_index)
{
    m->obl = oblivious_new(paths, seed, flow_index);
    m->paths = paths;
    memset(m->pen, 0, sizeof m->pen);
}

static uint16_t model_next(struct bitmap_model *m)
{
    uint16_t c = nxt(&lb_oblivious_ops, m->obl, 0);
    bool first = true;
    uint32_t skipped = 0;
    while (m->pen[c] > 0) {
        if (first)
            m->pen[c]--;
        first = false;
        if (++skipped > m->paths)
            break;
        c = nxt(&lb_oblivious_ops, m->obl, 0);
    }
    return c;
}

static void model_feedback(struct bitmap_model *m, uint16_t ev, enum lb_signal sig)
{
    static const uint8_t add[4] = { 0, 1, 4, 15 };
    unsigned p = m->pen[ev] + add[sig];
    m->pen[ev] = (uint8_t)(p > 15 ? 15 : p);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* ---- Bitmap -------------------------------------------------------------------------- */

static void test_bitmap_penalties_rise_and_cap(void **state)
{
    (void)state;
    void *b = bitmap_new(16, 13, 0);
    assert_int_equal(total_penalty(b, 16), 0);
    fb(&lb_bitmap_ops, b, 3, LB_ECN, 0);
    assert_int_equal(lb_bitmap_penalty(b, 3), 1);
    fb(&lb_bitmap_ops, b, 3, LB_ECN, 0);
    assert_int_equal(lb_bitmap_penalty(b, 3), 2);
    fb(&lb_bitmap_ops, b, 5, LB_NACK, 0);
    assert_int_equal(lb_bitmap_penalty(b, 5), 4);
    fb(&lb_bitmap_ops, b, 5, LB_NACK, 0);
    fb(&lb_bitmap_ops, b, 5, LB_NACK, 0);
    assert_int_equal(lb_bitmap_penalty(b, 5), 12);
    fb(&lb_bitmap_ops, b, 5, LB_NACK, 0);
    assert_int_equal(lb_bitmap_penalty(b, 5), 15); /* 16 capped */
    fb(&lb_bitmap_ops, b, 5, LB_ECN, 0);
    assert_int_equal(lb_bitmap_penalty(b, 5), 15);
    /* a timeout on a known entropy: straight to the maximum */
    fb(&lb_bitmap_ops, b, 7, LB_TIMEOUT, 0);
    assert_int_equal(lb_bitmap_penalty(b, 7), 15);
    fb(&lb_bitmap_ops, b, 3, LB_TIMEOUT, 0);
    assert_int_equal(lb_bitmap_penalty(b, 3), 15);
    /* clean ACKs add nothing and remove nothing */
    fb(&lb_bitmap_ops, b, 7, LB_GOOD, 0);
    fb(&lb_bitmap_ops, b, 9, LB_GOOD, 0);
    assert_int_equal(lb_bitmap_penalty(b, 7), 15);
    assert_int_equal(lb_bitmap_penalty(b, 9), 0);
    /* a timeout whose entropy the transport does not know blames nobody;
     * entropies out of range are ignored */
    unsigned before = total_penalty(b, 16);
    fb(&lb_bitmap_ops, b, LB_EV_UNKNOWN, LB_TIMEOUT, 0);
    fb(&lb_bitmap_ops, b, 16, LB_NACK, 0);
    fb(&lb_bitmap_ops, b, 1000, LB_TIMEOUT, 0);
    assert_int_equal(total_penalty(b, 16), before);
    assert_int_equal(before, 45);
    free(b);
}

static void test_bitmap_without_penalties_is_oblivious(void **state)
{
    (void)state;
    /* htsim uec_mp: the same XOR cycle as oblivious spraying; with the same
     * seed and flow the sequences are identical, clean ACKs included. */
    const uint32_t paths_list[] = { 64, 48, 128, 1, 5 };
    for (size_t i = 0; i < sizeof paths_list / sizeof paths_list[0]; i++) {
        uint32_t paths = paths_list[i];
        void *b = bitmap_new(paths, 21, 4);
        void *o = oblivious_new(paths, 21, 4);
        for (uint32_t k = 0; k < paths * 20; k++) {
            uint16_t eb = nxt(&lb_bitmap_ops, b, US(k));
            assert_int_equal(eb, nxt(&lb_oblivious_ops, o, 0));
            fb(&lb_bitmap_ops, b, eb, LB_GOOD, US(k));
        }
        free(b);
        free(o);
    }
}

static void test_bitmap_skips_penalized_entropies(void **state)
{
    (void)state;
    /* seed 002 Sec. 7's example: ECN on one entropy, a NACK on another; the
     * next cycle skips both; the ECN one is back in the cycle after, the
     * NACKed one (4) stays out for four encounters. */
    const uint32_t paths = 8;
    void *b = bitmap_new(paths, 13, 2);
    void *o = oblivious_new(paths, 13, 2);
    /* cycle 1: all eight, as oblivious */
    for (uint32_t k = 0; k < paths; k++)
        assert_int_equal(nxt(&lb_bitmap_ops, b, 0), nxt(&lb_oblivious_ops, o, 0));
    fb(&lb_bitmap_ops, b, 3, LB_ECN, 0);
    fb(&lb_bitmap_ops, b, 7, LB_NACK, 0);
    /* the output is the oblivious candidate stream without the skipped ones */
    unsigned skipped3 = 0, skipped7 = 0, sent3 = 0, sent7 = 0;
    uint16_t cand[8 * 8];
    for (uint32_t k = 0; k < 8 * paths; k++)
        cand[k] = nxt(&lb_oblivious_ops, o, 0);
    uint32_t ci = 0;
    for (uint32_t k = 0; k < 5 * paths; k++) {
        uint16_t got = nxt(&lb_bitmap_ops, b, 0);
        while (cand[ci] != got) {
            /* a candidate the balancer skipped: only penalized ones */
            if (cand[ci] == 3)
                skipped3++;
            else if (cand[ci] == 7)
                skipped7++;
            else
                fail_msg("send %u: unpenalized entropy %u skipped", k, cand[ci]);
            ci++;
        }
        ci++;
        sent3 += got == 3;
        sent7 += got == 7;
    }
    assert_int_equal(skipped3, 1); /* penalty 1: skipped once, then used */
    assert_int_equal(skipped7, 4); /* penalty 4: skipped four times */
    assert_true(sent3 >= 3);
    assert_true(sent7 >= 1);
    assert_int_equal(total_penalty(b, paths), 0);
    free(b);
    free(o);
}

static void test_bitmap_skip_decay_one_unit_per_encounter(void **state)
{
    (void)state;
    /* A NACK (4) then a timeout (15) on entropy 9 of 16: every cycle meets
     * it once and takes one unit off, so the penalty falls 15, 14, ... and
     * the entropy is avoided until it reaches 0. */
    const uint32_t paths = 16;
    void *b = bitmap_new(paths, 13, 5);
    fb(&lb_bitmap_ops, b, 9, LB_NACK, 0);
    fb(&lb_bitmap_ops, b, 9, LB_TIMEOUT, 0);
    assert_int_equal(lb_bitmap_penalty(b, 9), 15);
    uint8_t last = 15;
    uint32_t sends = 0;
    while (lb_bitmap_penalty(b, 9) > 0) {
        uint16_t e = nxt(&lb_bitmap_ops, b, 0);
        assert_int_not_equal(e, 9);
        uint8_t now = lb_bitmap_penalty(b, 9);
        assert_true(now == last || now == last - 1);
        last = now;
        sends++;
        assert_true(sends < 16 * 16);
    }
    /* 15 encounters took 15 cycles of 15 other entropies (give or take the
     * position of 9 in the first and last cycle) */
    assert_true(sends >= 14 * 15 && sends <= 16 * 15);
    /* it comes back within the next cycle */
    bool seen = false;
    for (uint32_t k = 0; k < paths; k++)
        seen |= nxt(&lb_bitmap_ops, b, 0) == 9;
    assert_true(seen);
    free(b);
}

static void test_bitmap_all_penalized_gives_up(void **state)
{
    (void)state;
    /* Every entropy at the maximum: each send still returns an entropy in
     * range (after more than `paths` skips it takes the candidate anyway),
     * and exactly one unit of penalty decays per send. */
    const uint32_t paths = 32;
    void *b = bitmap_new(paths, 13, 1);
    for (uint16_t e = 0; e < paths; e++)
        fb(&lb_bitmap_ops, b, e, LB_TIMEOUT, 0);
    unsigned total = total_penalty(b, paths);
    assert_int_equal(total, 15 * paths);
    for (uint32_t k = 0; k < 100; k++) {
        uint16_t e = nxt(&lb_bitmap_ops, b, 0);
        assert_true(e < paths);
        assert_int_equal(total_penalty(b, paths), total - 1);
        total--;
    }
    free(b);
}

static void test_bitmap_matches_reference_model(void **state)
{
    (void)state;
    /* Random sends and feedback against the model above, for power-of-two
     * and other path counts. */
    const uint32_t paths_list[] = { 8, 16, 64, 12, 37, 2 };
    for (size_t pi = 0; pi < sizeof paths_list / sizeof paths_list[0]; pi++) {
        uint32_t paths = paths_list[pi];
        void *b = bitmap_new(paths, 77, (uint32_t)pi);
        struct bitmap_model m;
        model_init(&m, paths, 77, (uint32_t)pi);
        uint64_t rs = 500 + pi;
        for (int op = 0; op < 20000; op++) {
            if (lcg(&rs) % 3) {
                uint16_t want = model_next(&m);
                uint16_t got = nxt(&lb_bitmap_ops, b, 0);
                if (got != want)
                    fail_msg("paths %u op %d: got %u, model says %u", paths, op, got, want);
            } else {
                uint16_t ev = (uint16_t)(lcg(&rs) % paths);
                uint64_t r = lcg(&rs) % 20;
                enum lb_signal sig = r < 12 ? LB_GOOD : r < 17 ? LB_ECN : r < 19 ? LB_NACK : LB_TIMEOUT;
                fb(&lb_bitmap_ops, b, ev, sig, 0);
                model_feedback(&m, ev, sig);
            }
            for (uint16_t e = 0; e < paths; e++)
                if (lb_bitmap_penalty(b, e) != m.pen[e])
                    fail_msg("paths %u op %d: entropy %u penalty %u, model %u", paths, op, e,
                             lb_bitmap_penalty(b, e), m.pen[e]);
        }
        free(m.obl);
        free(b);
    }
}

static void test_bitmap_time_decay(void **state)
{
    (void)state;
    /* No sends at all: a penalty still falls by one every 100 us, counted
     * from when it was set on a clean state. */
    const uint32_t paths = 64;
    void *b = bitmap_new(paths, 13, 0);
    fb(&lb_bitmap_ops, b, 20, LB_TIMEOUT, US(1000));
    fb(&lb_bitmap_ops, b, 21, LB_NACK, US(1000));
    fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(1099.999));
    assert_int_equal(lb_bitmap_penalty(b, 20), 15);
    assert_int_equal(lb_bitmap_penalty(b, 21), 4);
    fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(1100));
    assert_int_equal(lb_bitmap_penalty(b, 20), 14);
    assert_int_equal(lb_bitmap_penalty(b, 21), 3);
    /* several periods at once */
    fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(1550));
    assert_int_equal(lb_bitmap_penalty(b, 20), 10);
    assert_int_equal(lb_bitmap_penalty(b, 21), 0);
    /* a send is also a clock tick (and may skip entropy 20 once more) */
    (void)nxt(&lb_bitmap_ops, b, US(1600));
    assert_true(lb_bitmap_penalty(b, 20) == 9 || lb_bitmap_penalty(b, 20) == 8);
    (void)nxt(&lb_bitmap_ops, b, US(3000));
    assert_int_equal(total_penalty(b, paths), 0);
    /* clean again: the clock restarts with the next penalty */
    fb(&lb_bitmap_ops, b, 33, LB_ECN, US(5000.5));
    fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(5100.4));
    assert_int_equal(lb_bitmap_penalty(b, 33), 1);
    fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(5100.5));
    assert_int_equal(lb_bitmap_penalty(b, 33), 0);
    /* time decay and skip decay add up: a 15 set at t decays one unit per
     * 100 us and one per encounter; after 10 periods with one cycle of
     * sends in each, it is at most 15 - 10 - some skips */
    fb(&lb_bitmap_ops, b, 40, LB_TIMEOUT, MS(10));
    for (int period = 1; period <= 5; period++)
        for (uint32_t k = 0; k < paths; k++)
            (void)nxt(&lb_bitmap_ops, b, MS(10) + US(100) * (simtime_ps)period);
    /* 5 periods and 5 or 6 encounters */
    assert_true(lb_bitmap_penalty(b, 40) <= 15 - 5 - 4);
    free(b);
}

static void test_bitmap_last_hop_trim_leaves_penalties(void **state)
{
    (void)state;
    /* The transport reports a trim at the receiver's own downlink as LB_GOOD
     * (or LB_ECN when echoed marked): no NACK penalty, and the spraying
     * order is exactly oblivious's. */
    const uint32_t paths = 32;
    void *b = bitmap_new(paths, 13, 3);
    void *o = oblivious_new(paths, 13, 3);
    for (uint32_t k = 0; k < 10 * paths; k++) {
        uint16_t e = nxt(&lb_bitmap_ops, b, US(k));
        assert_int_equal(e, nxt(&lb_oblivious_ops, o, 0));
        fb(&lb_bitmap_ops, b, e, LB_GOOD, US(k)); /* last-hop trim */
    }
    assert_int_equal(total_penalty(b, paths), 0);
    /* a marked last-hop trim costs what an ECN ACK costs, not a NACK */
    fb(&lb_bitmap_ops, b, 4, LB_ECN, US(400));
    assert_int_equal(lb_bitmap_penalty(b, 4), 1);
    free(b);
    free(o);
}

static void test_bitmap_deterministic_per_seed_and_flow(void **state)
{
    (void)state;
    void *a = bitmap_new(64, 99, 5), *b = bitmap_new(64, 99, 5);
    void *c = bitmap_new(64, 99, 6), *d = bitmap_new(64, 100, 5);
    unsigned diff_c = 0, diff_d = 0;
    for (uint32_t k = 0; k < 64 * 10; k++) {
        uint16_t ea = nxt(&lb_bitmap_ops, a, US(k)), eb = nxt(&lb_bitmap_ops, b, US(k));
        uint16_t ec = nxt(&lb_bitmap_ops, c, US(k)), ed = nxt(&lb_bitmap_ops, d, US(k));
        assert_int_equal(ea, eb);
        diff_c += ea != ec;
        diff_d += ea != ed;
        enum lb_signal sig = (enum lb_signal)(k % 7 == 0 ? LB_NACK : k % 3 == 0 ? LB_ECN : LB_GOOD);
        fb(&lb_bitmap_ops, a, ea, sig, US(k));
        fb(&lb_bitmap_ops, b, eb, sig, US(k));
        fb(&lb_bitmap_ops, c, ec, sig, US(k));
        fb(&lb_bitmap_ops, d, ed, sig, US(k));
    }
    assert_true(diff_c > 0);
    assert_true(diff_d > 0);
    free(a);
    free(b);
    free(c);
    free(d);
}

static void test_bitmap_state_sized_by_paths(void **state)
{
    (void)state;
    struct lb_params p = params(64, 13, 0);
    size_t small = lb_state_bytes(&lb_bitmap_ops, &p);
    assert_true(small < 256);
    p.paths = LB_MAX_PATHS;
    assert_true(lb_state_bytes(&lb_bitmap_ops, &p) <= lb_bitmap_ops.state_size);
    /* the top entropy of the largest path count is in range (the sanitizer
     * build checks the allocation, which is exactly state_bytes) */
    void *b = lb_make(&lb_bitmap_ops, &p);
    fb(&lb_bitmap_ops, b, 65534, LB_NACK, 0);
    assert_int_equal(lb_bitmap_penalty(b, 65534), 4);
    for (uint32_t k = 0; k < 1000; k++)
        (void)nxt(&lb_bitmap_ops, b, 0);
    free(b);
    /* paths 0 is treated as 1 */
    p.paths = 0;
    b = lb_make(&lb_bitmap_ops, &p);
    fb(&lb_bitmap_ops, b, 0, LB_NACK, 0);
    for (uint32_t k = 0; k < 10; k++)
        assert_int_equal(nxt(&lb_bitmap_ops, b, 0), 0);
    free(b);
}

/* ---- REPS freezing -------------------------------------------------------------------- */

static void test_reps_freeze_off_ignores_timeouts(void **state)
{
    (void)state;
    /* reps_freeze false (the transport's zeroed default): a timeout changes
     * nothing, exactly as plain REPS. */
    void *a = reps_new(16, 2, false, true), *b = reps_new(16, 2, false, true);
    for (uint32_t seq = 0; seq < 200; seq++) {
        uint16_t ea = lb_reps_ops.next_entropy(a, seq, US(seq));
        assert_int_equal(ea, lb_reps_ops.next_entropy(b, seq, US(seq)));
        if (seq % 3 == 0) {
            fb(&lb_reps_ops, a, ea, LB_GOOD, US(seq));
            fb(&lb_reps_ops, b, ea, LB_GOOD, US(seq));
        }
        if (seq % 50 == 10)
            fb(&lb_reps_ops, a, 0, LB_TIMEOUT, US(seq));
    }
    free(a);
    free(b);
}

static void test_reps_timeout_freezes_round_robin(void **state)
{
    (void)state;
    void *r = reps_new(64, 2, true, true);
    uint32_t seq = 0;
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, 0), 0);
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, 0), 1);
    fb(&lb_reps_ops, r, 10, LB_GOOD, US(1));
    fb(&lb_reps_ops, r, 11, LB_GOOD, US(1));
    fb(&lb_reps_ops, r, 12, LB_GOOD, US(1));
    /* freeze at 5 us (the timeout's entropy is irrelevant) */
    fb(&lb_reps_ops, r, LB_EV_UNKNOWN, LB_TIMEOUT, US(5));
    /* round robin over the stored entries, which are not used up */
    const uint16_t rr[] = { 10, 11, 12, 10, 11, 12, 10 };
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(lb_reps_ops.next_entropy(r, seq++, US(6)), rr[i]);
    /* ECN and NACK change nothing; a clean ACK joins the rotation */
    fb(&lb_reps_ops, r, 11, LB_ECN, US(7));
    fb(&lb_reps_ops, r, 12, LB_NACK, US(7));
    fb(&lb_reps_ops, r, 13, LB_GOOD, US(7));
    const uint16_t rr2[] = { 11, 12, 13, 10, 11, 12, 13, 10 };
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(lb_reps_ops.next_entropy(r, seq++, US(8)), rr2[i]);
    /* another timeout while frozen does not extend the freeze; feedback up
     * to and at its end (5 us + 10 ms) keeps it */
    fb(&lb_reps_ops, r, 0, LB_TIMEOUT, MS(5));
    fb(&lb_reps_ops, r, 14, LB_ECN, US(5) + MS(10));
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(10)), 11);
    /* sends alone never thaw (htsim checks on feedback) */
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(20)), 12);
    /* the first feedback after the end thaws: the buffer is cleared and 16
     * random entropies follow */
    fb(&lb_reps_ops, r, 15, LB_ECN, US(5) + MS(10) + 1);
    unsigned distinct = 0;
    uint8_t seen[64] = { 0 };
    for (int i = 0; i < 16; i++) {
        uint16_t e = lb_reps_ops.next_entropy(r, seq++, MS(21));
        assert_true(e < 64);
        distinct += !seen[e];
        seen[e] = 1;
    }
    assert_true(distinct >= 8);
    /* the buffer was emptied: exploration resumes where it stopped (2, 3) */
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(21)), 2);
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(21)), 3);
    /* and plain recycling is back: each clean ACK used once */
    fb(&lb_reps_ops, r, 40, LB_GOOD, MS(22));
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(22)), 40);
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(22)), 4);
    free(r);
}

static void test_reps_no_refreeze_while_exploring(void **state)
{
    (void)state;
    /* htsim uec_mp: a timeout freezes only when not already in the 16 sends
     * of post-thaw exploration. */
    void *r = reps_new(32, 0, true, true);
    fb(&lb_reps_ops, r, 7, LB_GOOD, 0);
    fb(&lb_reps_ops, r, 0, LB_TIMEOUT, US(1));
    fb(&lb_reps_ops, r, 0, LB_TIMEOUT, US(1) + MS(10) + 1); /* thaws */
    uint32_t seq = 0;
    for (int i = 0; i < 10; i++)
        (void)lb_reps_ops.next_entropy(r, seq++, MS(11));
    /* timeout during exploration: ignored; clean ACKs are recycled later */
    fb(&lb_reps_ops, r, 0, LB_TIMEOUT, MS(11));
    fb(&lb_reps_ops, r, 21, LB_GOOD, MS(11));
    fb(&lb_reps_ops, r, 22, LB_GOOD, MS(11));
    for (int i = 0; i < 6; i++)
        (void)lb_reps_ops.next_entropy(r, seq++, MS(11));
    /* not frozen: the two entries are used once each, then exploration */
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(11)), 21);
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(11)), 22);
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(11)), 0);
    /* after exploration a timeout freezes again */
    fb(&lb_reps_ops, r, 23, LB_GOOD, MS(12));
    fb(&lb_reps_ops, r, 0, LB_TIMEOUT, MS(12));
    for (int i = 0; i < 5; i++) /* stored: 21, 22, 23 */
        assert_int_equal(lb_reps_ops.next_entropy(r, seq++, MS(12)), (uint16_t)(21 + i % 3));
    free(r);
}

static void test_reps_frozen_with_empty_buffer_sends_random(void **state)
{
    (void)state;
    /* Frozen with nothing stored (and without trimming: we freeze anyway,
     * where htsim would stop): random entropies, all in range. */
    void *r = reps_new(64, 1000, true, false);
    fb(&lb_reps_ops, r, 0, LB_TIMEOUT, 0);
    uint8_t seen[64] = { 0 };
    unsigned distinct = 0;
    for (uint32_t seq = 0; seq < 64; seq++) {
        uint16_t e = lb_reps_ops.next_entropy(r, seq, US(1));
        assert_true(e < 64);
        distinct += !seen[e];
        seen[e] = 1;
    }
    /* not the sequential first-BDP exploration, and spread out */
    assert_true(distinct >= 20 && distinct < 64);
    /* once something is acknowledged, only that is used */
    fb(&lb_reps_ops, r, 9, LB_GOOD, US(2));
    for (uint32_t seq = 64; seq < 70; seq++)
        assert_int_equal(lb_reps_ops.next_entropy(r, seq, US(3)), 9);
    free(r);
}

static void test_reps_freezing_deterministic(void **state)
{
    (void)state;
    void *a = reps_new(64, 4, true, true), *b = reps_new(64, 4, true, true);
    for (uint32_t seq = 0; seq < 3000; seq++) {
        simtime_ps t = US(seq * 10);
        uint16_t ea = lb_reps_ops.next_entropy(a, seq, t);
        assert_int_equal(ea, lb_reps_ops.next_entropy(b, seq, t));
        enum lb_signal sig = seq % 97 == 0 ? LB_TIMEOUT : seq % 5 == 0 ? LB_ECN : LB_GOOD;
        fb(&lb_reps_ops, a, ea, sig, t);
        fb(&lb_reps_ops, b, ea, sig, t);
    }
    free(a);
    free(b);
}

static void test_last_hop_good_adds_to_reps_buffer(void **state)
{
    (void)state;
    /* A last-hop trim arrives as LB_GOOD: REPS recycles its entropy like a
     * clean ACK's (frozen or not), LB_ECN does not. */
    void *r = reps_new(16, 1, true, true);
    uint32_t seq = 0;
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, 0), 0);
    fb(&lb_reps_ops, r, 6, LB_GOOD, 0);
    fb(&lb_reps_ops, r, 7, LB_ECN, 0);
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, 0), 6);
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, 0), 1);
    fb(&lb_reps_ops, r, 0, LB_TIMEOUT, 0);
    fb(&lb_reps_ops, r, 8, LB_GOOD, 0);
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, 0), 6);
    assert_int_equal(lb_reps_ops.next_entropy(r, seq++, 0), 8);
    free(r);
}

/* ---- Mixed ---------------------------------------------------------------------------- */

static void test_mixed_without_recycling_is_bitmap(void **state)
{
    (void)state;
    /* With no clean ACKs, Mixed is its Bitmap half: same order, same
     * penalties and skips. */
    const uint32_t paths = 32;
    void *m = mixed_new(paths, 13, 2), *b = bitmap_new(paths, 13, 2);
    for (uint32_t k = 0; k < 40 * paths; k++) {
        uint16_t e = nxt(&lb_mixed_ops, m, US(k));
        assert_int_equal(e, nxt(&lb_bitmap_ops, b, US(k)));
        if (k % 5 == 0) {
            enum lb_signal sig = k % 3 ? LB_ECN : LB_NACK;
            fb(&lb_mixed_ops, m, e, sig, US(k));
            fb(&lb_bitmap_ops, b, e, sig, US(k));
        }
        for (uint16_t q = 0; q < paths; q++)
            assert_int_equal(lb_mixed_penalty(m, q), lb_bitmap_penalty(b, q));
    }
    assert_true(total_penalty(b, paths) > 0);
    lb_state_free(&lb_mixed_ops, m);
    free(b);
}

static void test_mixed_prefers_recycled_entropies(void **state)
{
    (void)state;
    const uint32_t paths = 64;
    void *m = mixed_new(paths, 13, 0), *b = bitmap_new(paths, 13, 0);
    /* first sends: Bitmap's */
    for (int i = 0; i < 3; i++)
        assert_int_equal(nxt(&lb_mixed_ops, m, 0), nxt(&lb_bitmap_ops, b, 0));
    fb(&lb_mixed_ops, m, 50, LB_GOOD, 0);
    fb(&lb_mixed_ops, m, 51, LB_ECN, 0);  /* not recycled, penalized */
    fb(&lb_mixed_ops, m, 52, LB_NACK, 0); /* not recycled, penalized */
    fb(&lb_mixed_ops, m, 53, LB_GOOD, 0);
    fb(&lb_mixed_ops, m, 50, LB_GOOD, 0);
    fb(&lb_bitmap_ops, b, 51, LB_ECN, 0);
    fb(&lb_bitmap_ops, b, 52, LB_NACK, 0);
    /* oldest first, each once, duplicates kept */
    assert_int_equal(nxt(&lb_mixed_ops, m, 0), 50);
    assert_int_equal(nxt(&lb_mixed_ops, m, 0), 53);
    assert_int_equal(nxt(&lb_mixed_ops, m, 0), 50);
    /* then Bitmap again, its cycle untouched by the recycled sends */
    for (int i = 0; i < 200; i++)
        assert_int_equal(nxt(&lb_mixed_ops, m, 0), nxt(&lb_bitmap_ops, b, 0));
    /* a recycled entropy is used even if penalized since (htsim) */
    fb(&lb_mixed_ops, m, 30, LB_GOOD, 0);
    fb(&lb_mixed_ops, m, 30, LB_NACK, 0);
    assert_int_equal(lb_mixed_penalty(m, 30), 4);
    assert_int_equal(nxt(&lb_mixed_ops, m, 0), 30);
    lb_state_free(&lb_mixed_ops, m);
    free(b);
}

static void test_mixed_fifo_keeps_newest_256(void **state)
{
    (void)state;
    const uint32_t paths = 1024;
    void *m = mixed_new(paths, 13, 0), *b = bitmap_new(paths, 13, 0);
    for (uint16_t e = 0; e < 300; e++)
        fb(&lb_mixed_ops, m, e, LB_GOOD, 0);
    for (uint16_t i = 0; i < 256; i++)
        assert_int_equal(nxt(&lb_mixed_ops, m, 0), 44 + i);
    assert_int_equal(nxt(&lb_mixed_ops, m, 0), nxt(&lb_bitmap_ops, b, 0));
    lb_state_free(&lb_mixed_ops, m);
    free(b);
}

/* The same with byte entries (at most 256 paths), the storage growing from
 * its first 8 entries to 256 on the way. */
static void test_mixed_narrow_fifo_keeps_newest_256(void **state)
{
    (void)state;
    const uint32_t paths = 256;
    void *m = mixed_new(paths, 13, 0), *b = bitmap_new(paths, 13, 0);
    for (uint32_t e = 0; e < 300; e++)
        fb(&lb_mixed_ops, m, (uint16_t)(e % paths), LB_GOOD, 0);
    for (uint32_t i = 0; i < 256; i++)
        assert_int_equal(nxt(&lb_mixed_ops, m, 0), (44 + i) % paths);
    assert_int_equal(nxt(&lb_mixed_ops, m, 0), nxt(&lb_bitmap_ops, b, 0));
    /* refilled after draining: the grown storage wraps */
    for (uint32_t e = 0; e < 40; e++)
        fb(&lb_mixed_ops, m, (uint16_t)(255 - e), LB_GOOD, 0);
    for (uint32_t i = 0; i < 40; i++)
        assert_int_equal(nxt(&lb_mixed_ops, m, 0), 255 - i);
    lb_state_free(&lb_mixed_ops, m);
    free(b);
}

static void test_mixed_matches_model(void **state)
{
    (void)state;
    /* Random traffic against a FIFO in front of a Bitmap fed the same
     * feedback. */
    const uint32_t paths = 48;
    void *m = mixed_new(paths, 5, 9), *b = bitmap_new(paths, 5, 9);
    uint16_t fifo[64];
    uint32_t head = 0, len = 0;
    uint64_t rs = 4242;
    for (int op = 0; op < 30000; op++) {
        simtime_ps t = US(op / 4);
        if (lcg(&rs) % 2) {
            uint16_t want;
            if (len) {
                want = fifo[head];
                head = (head + 1) % 64;
                len--;
            } else {
                want = nxt(&lb_bitmap_ops, b, t);
            }
            uint16_t got = nxt(&lb_mixed_ops, m, t);
            if (got != want)
                fail_msg("op %d: got %u, model says %u", op, got, want);
        } else {
            uint16_t ev = (uint16_t)(lcg(&rs) % paths);
            uint64_t r = lcg(&rs) % 10;
            enum lb_signal sig = r < 6 ? LB_GOOD : r < 8 ? LB_ECN : r < 9 ? LB_NACK : LB_TIMEOUT;
            fb(&lb_mixed_ops, m, ev, sig, t);
            fb(&lb_bitmap_ops, b, ev, sig, t);
            if (sig == LB_GOOD) {
                assert_true(len < 64);
                fifo[(head + len) % 64] = ev;
                len++;
            }
        }
    }
    lb_state_free(&lb_mixed_ops, m);
    free(b);
}

static void test_mixed_deterministic(void **state)
{
    (void)state;
    void *a = mixed_new(64, 8, 3), *b = mixed_new(64, 8, 3), *c = mixed_new(64, 8, 4);
    unsigned differ = 0;
    for (uint32_t k = 0; k < 2000; k++) {
        uint16_t ea = nxt(&lb_mixed_ops, a, US(k)), ec = nxt(&lb_mixed_ops, c, US(k));
        assert_int_equal(ea, nxt(&lb_mixed_ops, b, US(k)));
        differ += ea != ec;
        enum lb_signal sig = k % 4 == 0 ? LB_GOOD : k % 11 == 0 ? LB_NACK : LB_ECN;
        fb(&lb_mixed_ops, a, ea, sig, US(k));
        fb(&lb_mixed_ops, b, ea, sig, US(k));
        fb(&lb_mixed_ops, c, ec, sig, US(k));
    }
    assert_true(differ > 0);
    lb_state_free(&lb_mixed_ops, a);
    lb_state_free(&lb_mixed_ops, b);
    lb_state_free(&lb_mixed_ops, c);
}

/* ---- registry ------------------------------------------------------------------------- */

static void test_registry_has_adaptive_balancers(void **state)
{
    (void)state;
    assert_ptr_equal(lb_find("bitmap"), &lb_bitmap_ops);
    assert_ptr_equal(lb_find("mixed"), &lb_mixed_ops);
    assert_null(lb_find("bitma"));
    assert_non_null(strstr(lb_names(), "bitmap"));
    assert_non_null(strstr(lb_names(), "mixed"));
    const struct lb_ops *all[] = { &lb_bitmap_ops, &lb_mixed_ops, &lb_reps_ops };
    for (size_t i = 0; i < 3; i++) {
        assert_non_null(all[i]->description);
        assert_non_null(all[i]->init);
        assert_non_null(all[i]->next_entropy);
        assert_non_null(all[i]->feedback);
        struct lb_params p = params(128, 13, 0);
        assert_true(lb_state_bytes(all[i], &p) > 0);
        assert_true(lb_state_bytes(all[i], &p) <= all[i]->state_size);
    }
}

/* ---- end to end ----------------------------------------------------------------------- */

static void test_perm_16_nodes_meets_reference_bound(void **state)
{
    (void)state;
    /* shared/data/htsim/README.md: the reference's bound for the 16-node
     * permutation with 128 paths is a 210 us tail FCT. */
    const char *lbs[] = { "bitmap", "mixed" };
    for (size_t k = 0; k < 2; k++) {
        static struct sim S;
        struct config c;
        config_defaults(&c);
        c.tm_path = shared_path("htsim/matrices/perm_16n_16c_2MB.cm");
        c.paths = 128;
        c.lb_name = lbs[k];
        c.end_ps = 1000 * PS_PER_US;
        c.seed = 13;
        sim_setup(&S, &c);
        sim_run(&S);
        assert_int_equal(S.flows_finished, S.n_flows);
        double max_us = 0;
        for (uint32_t i = 0; i < S.n_flows; i++) {
            double fct = (double)(S.flows[i].finish_ps - S.flows[i].start_ps) / PS_PER_US;
            if (fct > max_us)
                max_us = fct;
        }
        if (max_us >= 210)
            fail_msg("--lb %s: tail FCT %.1f us above the 210 us bound", lbs[k], max_us);
        print_message("  --lb %s: tail FCT %.1f us\n", lbs[k], max_us);
        sim_free(&S);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitmap_penalties_rise_and_cap),
        cmocka_unit_test(test_bitmap_without_penalties_is_oblivious),
        cmocka_unit_test(test_bitmap_skips_penalized_entropies),
        cmocka_unit_test(test_bitmap_skip_decay_one_unit_per_encounter),
        cmocka_unit_test(test_bitmap_all_penalized_gives_up),
        cmocka_unit_test(test_bitmap_matches_reference_model),
        cmocka_unit_test(test_bitmap_time_decay),
        cmocka_unit_test(test_bitmap_last_hop_trim_leaves_penalties),
        cmocka_unit_test(test_bitmap_deterministic_per_seed_and_flow),
        cmocka_unit_test(test_bitmap_state_sized_by_paths),
        cmocka_unit_test(test_reps_freeze_off_ignores_timeouts),
        cmocka_unit_test(test_reps_timeout_freezes_round_robin),
        cmocka_unit_test(test_reps_no_refreeze_while_exploring),
        cmocka_unit_test(test_reps_frozen_with_empty_buffer_sends_random),
        cmocka_unit_test(test_reps_freezing_deterministic),
        cmocka_unit_test(test_last_hop_good_adds_to_reps_buffer),
        cmocka_unit_test(test_mixed_without_recycling_is_bitmap),
        cmocka_unit_test(test_mixed_prefers_recycled_entropies),
        cmocka_unit_test(test_mixed_fifo_keeps_newest_256),
        cmocka_unit_test(test_mixed_narrow_fifo_keeps_newest_256),
        cmocka_unit_test(test_mixed_matches_model),
        cmocka_unit_test(test_mixed_deterministic),
        cmocka_unit_test(test_registry_has_adaptive_balancers),
        cmocka_unit_test(test_perm_16_nodes_meets_reference_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
