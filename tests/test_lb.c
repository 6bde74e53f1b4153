/* test_lb.c: unit tests for the sender load balancers (src/lb/), driven
 * only through their ops tables as the transport drives them. REPS follows
 * seed 003 Alg. 4 with the recycled-entropy buffer of the reference
 * simulator: it explores 0, 1, 2, ... during the first BDP whatever the
 * feedback, reuses each clean-ACK entropy exactly once (oldest first, the
 * buffer keeping only the newest entries), never recycles ECN, NACK or
 * timeout entropies, and otherwise keeps exploring with wrap-around.
 * Oblivious spraying visits every entropy once per cycle in a per-flow
 * pseudo-random order and ignores feedback; single always sends entropy 0.
 */
#include "testutil.h"

#include "lb/lb.h"

/* ---- helpers ------------------------------------------------------------------- */

static void *lb_new(const struct lb_ops *ops, uint32_t paths, uint32_t bdp_pkts, uint32_t buffer_size, uint64_t seed,
                    uint32_t flow_index)
{
    void *st = calloc(1, ops->state_size);
    assert_non_null(st);
    struct lb_params p = {
        .paths = paths,
        .bdp_pkts = bdp_pkts,
        .buffer_size = buffer_size,
        .trimming = true,
        .seed = seed,
        .flow_index = flow_index,
    };
    ops->init(st, &p);
    return st;
}

static void *reps_new(uint32_t paths, uint32_t bdp_pkts, uint32_t buffer_size)
{
    return lb_new(&lb_reps_ops, paths, bdp_pkts, buffer_size, 13, 0);
}

static uint16_t reps_next(void *st, uint32_t seq)
{
    return lb_reps_ops.next_entropy(st, seq, (simtime_ps)seq * 1000);
}

static void reps_fb(void *st, uint16_t ev, enum lb_signal sig)
{
    lb_reps_ops.feedback(st, ev, sig, 0);
}

/* Sends packets seq = *seq, *seq + 1, ... and checks their entropies. */
static void expect_sends(void *st, uint32_t *seq, const uint16_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t got = reps_next(st, *seq);
        if (got != want[i])
            fail_msg("seq %u: entropy %u, expected %u", *seq, got, want[i]);
        (*seq)++;
    }
}

#define EXPECT_SENDS(st, seq, ...)                                            \
    do {                                                                      \
        const uint16_t want_[] = { __VA_ARGS__ };                             \
        expect_sends(st, seq, want_, sizeof want_ / sizeof want_[0]);         \
    } while (0)

/* ---- REPS ----------------------------------------------------------------------------- */

static void test_reps_explores_in_order_during_first_bdp(void **state)
{
    (void)state;
    /* Alg. 4 line 5-6: while seq < bdp, entropy = next_entropy++ % paths,
     * whatever feedback arrives meanwhile. */
    void *st = reps_new(8, 20, 0);
    for (uint32_t seq = 0; seq < 20; seq++) {
        uint16_t ev = reps_next(st, seq);
        assert_int_equal(ev, seq % 8);
        /* feedback of every kind, including clean ACKs, must not divert it */
        reps_fb(st, 5, LB_GOOD);
        reps_fb(st, ev, LB_GOOD);
        reps_fb(st, 3, LB_ECN);
        reps_fb(st, 2, LB_NACK);
    }
    free(st);
}

static void test_reps_keeps_exploring_when_buffer_empty(void **state)
{
    (void)state;
    /* After the first BDP with nothing recycled, the sender explores the
     * next value (Alg. 4's reaction to ECN), continuing the same counter. */
    void *st = reps_new(8, 3, 0);
    uint32_t seq = 0;
    EXPECT_SENDS(st, &seq, 0, 1, 2);          /* exploration */
    EXPECT_SENDS(st, &seq, 3, 4, 5, 6, 7, 0, 1); /* empty buffer: next values, wrapping */
    free(st);
}

static void test_reps_clean_ack_entropy_is_reused(void **state)
{
    (void)state;
    void *st = reps_new(16, 4, 0);
    uint32_t seq = 0;
    EXPECT_SENDS(st, &seq, 0, 1, 2, 3, 4);
    reps_fb(st, 2, LB_GOOD);
    EXPECT_SENDS(st, &seq, 2);
    /* Reusing a recycled value does not advance the exploration counter:
     * with the buffer empty again, exploration resumes at 5. */
    EXPECT_SENDS(st, &seq, 5, 6);
    reps_fb(st, 13, LB_GOOD);
    EXPECT_SENDS(st, &seq, 13, 7);
    free(st);
}

static void test_reps_each_recycled_entry_used_once(void **state)
{
    (void)state;
    void *st = reps_new(16, 2, 0);
    uint32_t seq = 0;
    EXPECT_SENDS(st, &seq, 0, 1);
    reps_fb(st, 9, LB_GOOD);
    reps_fb(st, 4, LB_GOOD);
    /* oldest first, each once, then exploration resumes where it stopped */
    EXPECT_SENDS(st, &seq, 9, 4, 2, 3);
    /* the same entropy acknowledged twice is reused twice */
    reps_fb(st, 11, LB_GOOD);
    reps_fb(st, 11, LB_GOOD);
    EXPECT_SENDS(st, &seq, 11, 11, 4);
    free(st);
}

static void test_reps_bad_signals_are_not_recycled(void **state)
{
    (void)state;
    void *st = reps_new(16, 2, 0);
    uint32_t seq = 0;
    EXPECT_SENDS(st, &seq, 0, 1);
    reps_fb(st, 9, LB_ECN);
    EXPECT_SENDS(st, &seq, 2);
    reps_fb(st, 10, LB_NACK);
    EXPECT_SENDS(st, &seq, 3);
    reps_fb(st, 11, LB_TIMEOUT);
    EXPECT_SENDS(st, &seq, 4);
    /* Mixed: only the clean one comes back. */
    reps_fb(st, 12, LB_ECN);
    reps_fb(st, 7, LB_GOOD);
    reps_fb(st, 13, LB_NACK);
    reps_fb(st, 14, LB_TIMEOUT);
    EXPECT_SENDS(st, &seq, 7, 5, 6);
    /* A bad signal for an entropy already in the buffer does not remove it
     * (the buffer holds clean ACKs; later marks are a fresh decision). */
    reps_fb(st, 3, LB_GOOD);
    reps_fb(st, 3, LB_ECN);
    EXPECT_SENDS(st, &seq, 3, 7);
    free(st);
}

static void test_reps_clean_acks_during_exploration_recycled_after(void **state)
{
    (void)state;
    /* ACKs that return during the first BDP fill the buffer; once
     * exploration ends those entropies are reused first. */
    void *st = reps_new(16, 4, 0);
    uint32_t seq = 0;
    EXPECT_SENDS(st, &seq, 0, 1);
    reps_fb(st, 0, LB_GOOD);
    reps_fb(st, 1, LB_ECN);
    EXPECT_SENDS(st, &seq, 2, 3); /* still exploring */
    reps_fb(st, 2, LB_GOOD);
    EXPECT_SENDS(st, &seq, 0, 2, 4);
    free(st);
}

static void test_reps_default_buffer_holds_eight(void **state)
{
    (void)state;
    /* buffer_size 0 selects the reference default of 8 entries: of 10 clean
     * ACKs only the newest 8 are kept, and they are used oldest first. */
    void *st = reps_new(64, 1, 0);
    uint32_t seq = 0;
    EXPECT_SENDS(st, &seq, 0);
    for (uint16_t e = 20; e < 30; e++)
        reps_fb(st, e, LB_GOOD);
    EXPECT_SENDS(st, &seq, 22, 23, 24, 25, 26, 27, 28, 29, 1, 2);
    free(st);
}

static void test_reps_small_buffer_keeps_newest(void **state)
{
    (void)state;
    /* buffer_size 2 and three clean ACKs: the oldest (e1) is overwritten,
     * e2 then e3 are used, then exploration resumes. */
    void *st = reps_new(16, 1, 2);
    uint32_t seq = 0;
    EXPECT_SENDS(st, &seq, 0);
    reps_fb(st, 5, LB_GOOD);
    reps_fb(st, 8, LB_GOOD);
    reps_fb(st, 12, LB_GOOD);
    EXPECT_SENDS(st, &seq, 8, 12, 1, 2);
    /* buffer_size 1: always just the latest clean ACK */
    void *one = reps_new(16, 0, 1);
    seq = 0;
    reps_fb(one, 6, LB_GOOD);
    reps_fb(one, 9, LB_GOOD);
    EXPECT_SENDS(one, &seq, 9, 0, 1);
    free(st);
    free(one);
}

static void test_reps_oversized_buffer_is_capped(void **state)
{
    (void)state;
    /* More entries than the state can hold must be capped, not overflow the
     * state (the sanitizer build checks the memory); the newest 256 stay. */
    void *st = reps_new(1000, 0, 100000);
    for (uint32_t e = 0; e < 300; e++)
        reps_fb(st, (uint16_t)e, LB_GOOD);
    for (uint32_t i = 0; i < 256; i++)
        assert_int_equal(reps_next(st, i), 44 + i);
    /* then exploration starts at 0 */
    assert_int_equal(reps_next(st, 256), 0);
    free(st);
}

static void test_reps_next_entropy_wraps_at_paths(void **state)
{
    (void)state;
    void *st = reps_new(5, 12, 0);
    uint32_t seq = 0;
    EXPECT_SENDS(st, &seq, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0);
    free(st);
    /* paths 1 (and 0, treated as 1): always entropy 0 */
    st = reps_new(1, 3, 0);
    seq = 0;
    EXPECT_SENDS(st, &seq, 0, 0, 0, 0, 0);
    free(st);
    st = reps_new(0, 3, 0);
    seq = 0;
    EXPECT_SENDS(st, &seq, 0, 0, 0, 0, 0);
    free(st);
    /* a large path count stays below it */
    st = reps_new(65535, 70000, 0);
    for (uint32_t s = 0; s < 70000; s++)
        assert_int_equal(reps_next(st, s), s % 65535);
    free(st);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static void test_reps_matches_reference_model(void **state)
{
    (void)state;
    /* A long random mix of sends and feedback against a plain model: a FIFO
     * of clean-ACK entropies that drops its oldest entry when full, and an
     * exploration counter. Exercises the ring's wrap-around at several
     * capacities, including ones that do not divide the index range. */
    const uint32_t caps[] = { 1, 2, 3, 5, 8, 13 };
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
        const uint32_t cap = caps[ci], paths = 37, bdp = 10;
        void *st = reps_new(paths, bdp, cap);
        uint16_t fifo[16];
        uint32_t fhead = 0, flen = 0, next = 0, seq = 0;
        uint64_t rs = 1000 + ci;
        for (int op = 0; op < 20000; op++) {
            uint64_t r = lcg(&rs);
            if (r % 2) {
                uint16_t want;
                if (seq < bdp || flen == 0) {
                    want = (uint16_t)next;
                    next = (next + 1) % paths;
                } else {
                    want = fifo[fhead];
                    fhead = (fhead + 1) % 16;
                    flen--;
                }
                uint16_t got = reps_next(st, seq);
                if (got != want)
                    fail_msg("cap %u op %d seq %u: got %u, model says %u", cap, op, seq, got, want);
                seq++;
            } else {
                uint16_t ev = (uint16_t)(lcg(&rs) % paths);
                enum lb_signal sig = (enum lb_signal)(lcg(&rs) % 5 == 0 ? 1 + lcg(&rs) % 3 : LB_GOOD);
                reps_fb(st, ev, sig);
                if (sig == LB_GOOD) {
                    if (flen == cap) {
                        fhead = (fhead + 1) % 16;
                        flen--;
                    }
                    fifo[(fhead + flen) % 16] = ev;
                    flen++;
                }
            }
        }
        free(st);
    }
}

/* ---- i.i.d. random spraying (seed 004's OPS) ----------------------------------------------- */

/* Every path equally likely (chi-square over 16 paths, 160,000 packets,
 * below the 0.1% critical value for 15 degrees of freedom, 37.7), and
 * independent: unlike the cycle, 16 consecutive packets almost never cover
 * all 16 paths (probability 16!/16^16 = 1e-6 per window). */
static void test_random_spraying_is_uniform_and_independent(void **state)
{
    (void)state;
    enum { PATHS = 16, N = 160000 };
    void *st = lb_new(&lb_random_ops, PATHS, 40, 8, 13, 5);
    uint32_t count[PATHS] = {0};
    uint32_t full_windows = 0, seen = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint16_t ev = lb_random_ops.next_entropy(st, i, 0);
        assert_true(ev < PATHS);
        count[ev]++;
        seen |= 1u << ev;
        if (i % PATHS == PATHS - 1) {
            full_windows += seen == (1u << PATHS) - 1;
            seen = 0;
        }
    }
    double chi2 = 0, expect = (double)N / PATHS;
    for (int p = 0; p < PATHS; p++)
        chi2 += (count[p] - expect) * (count[p] - expect) / expect;
    assert_true(chi2 < 37.7);
    assert_true(full_windows < 3);
    free(st);
    /* the same flow and seed give the same sequence, another flow another */
    void *a = lb_new(&lb_random_ops, 64, 40, 8, 13, 5), *b = lb_new(&lb_random_ops, 64, 40, 8, 13, 5);
    void *c = lb_new(&lb_random_ops, 64, 40, 8, 13, 6);
    int same_ab = 0, same_ac = 0;
    for (uint32_t i = 0; i < 64; i++) {
        uint16_t x = lb_random_ops.next_entropy(a, i, 0), y = lb_random_ops.next_entropy(b, i, 0),
                 z = lb_random_ops.next_entropy(c, i, 0);
        same_ab += x == y;
        same_ac += x == z;
    }
    assert_int_equal(same_ab, 64);
    assert_true(same_ac < 16);
    free(a);
    free(b);
    free(c);
}

/* ---- PLB ------------------------------------------------------------------------------------- */

/* One round (10 us when no base RTT is given) of `acks` ACKs, `marked` of
 * them with ECN, starting at time t_us. */
static void plb_round(void *st, double t_us, int acks, int marked)
{
    for (int i = 0; i < acks; i++)
        lb_plb_ops.feedback(st, 0, i < marked ? LB_ECN : LB_GOOD, (simtime_ps)((t_us + 0.001 * i) * PS_PER_US));
}

/* Linux's defaults: a flow keeps its path until 12 consecutive rounds had
 * at least half their ACKs marked; a calm round starts the count again; a
 * timeout moves it at once and then holds it still for 60 s. */
static void test_plb_repaths_after_twelve_congested_rounds(void **state)
{
    (void)state;
    void *st = lb_new(&lb_plb_ops, 64, 40, 8, 13, 2);
    uint16_t ev = lb_plb_ops.next_entropy(st, 0, 0);
    for (int r = 0; r < 30; r++)
        plb_round(st, 10.0 * r, 10, 4); /* 40% marked: not congested */
    assert_int_equal(lb_plb_ops.next_entropy(st, 1, 0), ev);
    assert_int_equal(lb_plb_repaths(st), 0);
    /* 11 congested rounds, a calm one, 11 more: still no move */
    double t = 300;
    for (int r = 0; r < 11; r++, t += 10)
        plb_round(st, t, 10, 5);
    plb_round(st, t, 10, 0);
    t += 10;
    for (int r = 0; r < 11; r++, t += 10)
        plb_round(st, t, 10, 5);
    assert_int_equal(lb_plb_repaths(st), 0);
    /* the 12th consecutive congested round ends: a new path, never the same */
    plb_round(st, t, 10, 5);
    t += 10;
    plb_round(st, t, 1, 0); /* its first ACK closes the 12th round */
    t += 10;
    assert_int_equal(lb_plb_repaths(st), 1);
    uint16_t ev2 = lb_plb_ops.next_entropy(st, 2, 0);
    assert_true(ev2 != ev && ev2 < 64);
    /* a timeout moves at once, then congestion moves nothing for 60 s */
    lb_plb_ops.feedback(st, ev2, LB_TIMEOUT, (simtime_ps)(t * PS_PER_US));
    assert_int_equal(lb_plb_repaths(st), 2);
    uint16_t ev3 = lb_plb_ops.next_entropy(st, 3, 0);
    assert_true(ev3 != ev2);
    for (int r = 0; r < 40; r++, t += 10)
        plb_round(st, t, 10, 10);
    assert_int_equal(lb_plb_repaths(st), 2);
    free(st);
}

/* ---- oblivious ------------------------------------------------------------------------- */

static uint16_t obl_next(void *st, uint32_t seq)
{
    return lb_oblivious_ops.next_entropy(st, seq, 0);
}

/* `cycles` consecutive groups of `paths` calls each visit every entropy
 * exactly once; returns the sequence (caller frees). */
static uint16_t *check_cycles(void *st, uint32_t paths, uint32_t cycles)
{
    uint16_t *seqv = malloc((size_t)paths * cycles * sizeof *seqv);
    uint8_t *seen = malloc(paths);
    for (uint32_t c = 0; c < cycles; c++) {
        memset(seen, 0, paths);
        for (uint32_t i = 0; i < paths; i++) {
            uint16_t ev = obl_next(st, c * paths + i);
            if (ev >= paths)
                fail_msg("cycle %u: entropy %u out of range (paths %u)", c, ev, paths);
            if (seen[ev])
                fail_msg("cycle %u: entropy %u used twice (paths %u)", c, ev, paths);
            seen[ev] = 1;
            seqv[(size_t)c * paths + i] = ev;
        }
    }
    free(seen);
    return seqv;
}

static void test_oblivious_cycles_visit_each_entropy_once(void **state)
{
    (void)state;
    const uint32_t paths_list[] = { 64, 48, 1, 2, 3, 5, 100, 128, 256 };
    for (size_t i = 0; i < sizeof paths_list / sizeof paths_list[0]; i++) {
        void *st = lb_new(&lb_oblivious_ops, paths_list[i], 40, 8, 13, 7);
        free(check_cycles(st, paths_list[i], 50));
        free(st);
    }
}

/* -path_burst N (htsim_ndp's set_path_burst): each entropy N packets in a
 * row, and every N x paths packets still visit each entropy N times. */
static void test_oblivious_path_burst_repeats_each_entropy(void **state)
{
    (void)state;
    const uint32_t paths = 48, burst = 3;
    void *st = calloc(1, lb_oblivious_ops.state_size);
    assert_non_null(st);
    struct lb_params p = {.paths = paths, .seed = 13, .flow_index = 7, .path_burst = burst};
    lb_oblivious_ops.init(st, &p);
    for (uint32_t c = 0; c < 20; c++) {
        uint32_t count[48] = {0};
        for (uint32_t i = 0; i < paths; i++) {
            uint16_t ev = obl_next(st, 0);
            assert_true(ev < paths);
            for (uint32_t k = 1; k < burst; k++)
                if (obl_next(st, 0) != ev)
                    fail_msg("cycle %u: entropy %u not repeated %u times in a row", c, ev, burst);
            count[ev] += burst;
        }
        for (uint32_t e = 0; e < paths; e++)
            if (count[e] != burst)
                fail_msg("cycle %u: entropy %u got %u packets, expected %u", c, e, count[e], burst);
    }
    free(st);
}

static void test_oblivious_order_is_shuffled_per_cycle(void **state)
{
    (void)state;
    /* Not plain round robin: over 16 cycles of 64 some cycle is not in
     * ascending order, and the cycles do not all repeat one order. */
    void *st = lb_new(&lb_oblivious_ops, 64, 40, 8, 13, 0);
    uint16_t *v = check_cycles(st, 64, 16);
    unsigned identity = 0, same_as_first = 0;
    for (uint32_t c = 0; c < 16; c++) {
        bool asc = true;
        for (uint32_t i = 0; i < 64; i++)
            asc &= v[c * 64 + i] == i;
        identity += asc;
        same_as_first += memcmp(v + c * 64, v, 64 * sizeof *v) == 0;
    }
    assert_true(identity < 16);
    assert_true(same_as_first < 16);
    free(v);
    free(st);
}

static void test_oblivious_flows_get_different_orders(void **state)
{
    (void)state;
    /* Each flow draws from its own stream (flow_index): the first four
     * cycles of 16 flows are pairwise different, for 64 and 48 paths. */
    const uint32_t paths_list[] = { 64, 48 };
    for (size_t pi = 0; pi < 2; pi++) {
        uint32_t paths = paths_list[pi];
        uint16_t *v[16];
        for (uint32_t f = 0; f < 16; f++) {
            void *st = lb_new(&lb_oblivious_ops, paths, 40, 8, 13, f);
            v[f] = check_cycles(st, paths, 4);
            free(st);
        }
        for (int a = 0; a < 16; a++)
            for (int b = a + 1; b < 16; b++)
                if (!memcmp(v[a], v[b], 4 * paths * sizeof(uint16_t)))
                    fail_msg("flows %d and %d spray in the same order (paths %u)", a, b, paths);
        for (int f = 0; f < 16; f++)
            free(v[f]);
    }
}

static void test_oblivious_ignores_feedback_seq_and_time(void **state)
{
    (void)state;
    void *a = lb_new(&lb_oblivious_ops, 48, 40, 8, 13, 3);
    void *b = lb_new(&lb_oblivious_ops, 48, 40, 8, 13, 3);
    for (uint32_t i = 0; i < 2000; i++) {
        uint16_t ea = lb_oblivious_ops.next_entropy(a, i, 0);
        /* b sees other sequence numbers and times, and all kinds of feedback */
        uint16_t eb = lb_oblivious_ops.next_entropy(b, 7 * i + 3, (simtime_ps)i * 12345);
        assert_int_equal(ea, eb);
        lb_oblivious_ops.feedback(b, eb, (enum lb_signal)(i % 4), 0);
        lb_oblivious_ops.feedback(b, (uint16_t)(i % 48), LB_GOOD, 0);
    }
    free(a);
    free(b);
}

static void test_oblivious_same_seed_reproduces(void **state)
{
    (void)state;
    void *a = lb_new(&lb_oblivious_ops, 64, 40, 8, 99, 5);
    void *b = lb_new(&lb_oblivious_ops, 64, 40, 8, 99, 5);
    void *c = lb_new(&lb_oblivious_ops, 64, 40, 8, 100, 5);
    unsigned differ = 0;
    for (uint32_t i = 0; i < 64 * 8; i++) {
        uint16_t ea = obl_next(a, i), ec = obl_next(c, i);
        assert_int_equal(ea, obl_next(b, i));
        differ += ea != ec;
    }
    /* another run seed gives other orders */
    assert_true(differ > 0);
    free(a);
    free(b);
    free(c);
}

/* ---- single and the registry ----------------------------------------------------------- */

static void test_single_always_zero(void **state)
{
    (void)state;
    void *st = lb_new(&lb_single_ops, 64, 40, 8, 13, 9);
    for (uint32_t i = 0; i < 1000; i++) {
        assert_int_equal(lb_single_ops.next_entropy(st, i, (simtime_ps)i), 0);
        lb_single_ops.feedback(st, 0, (enum lb_signal)(i % 4), 0);
    }
    free(st);
}

/* Bitmap given no paths (-paths is never 0, but lb_params may be) uses one:
 * its state holds one penalty and every packet takes entropy 0, also after
 * that entropy is penalized (issue 26: clamp_paths' test for 0, moved to 1,
 * went unnoticed). */
static void test_bitmap_zero_paths_means_one(void **state)
{
    (void)state;
    struct lb_params zero = {.paths = 0}, one = {.paths = 1};
    assert_int_equal(lb_bitmap_ops.state_bytes(&zero), lb_bitmap_ops.state_bytes(&one));
    void *st = lb_new(&lb_bitmap_ops, 0, 16, 8, 3, 0);
    for (uint32_t seq = 0; seq < 8; seq++) {
        assert_int_equal(lb_bitmap_ops.next_entropy(st, seq, seq * 1000), 0);
        lb_bitmap_ops.feedback(st, 0, LB_ECN, seq * 1000);
    }
    free(st);
}

static void test_lb_find(void **state)
{
    (void)state;
    assert_ptr_equal(lb_find("reps"), &lb_reps_ops);
    assert_ptr_equal(lb_find("oblivious"), &lb_oblivious_ops);
    assert_ptr_equal(lb_find("single"), &lb_single_ops);
    assert_ptr_equal(lb_find("ecmp"), &lb_single_ops);
    assert_null(lb_find("nope"));
    assert_null(lb_find(""));
    assert_null(lb_find("rep"));
    assert_null(lb_find("repsx"));
    const char *names = lb_names();
    assert_non_null(strstr(names, "reps"));
    assert_non_null(strstr(names, "oblivious"));
    assert_non_null(strstr(names, "single"));
    assert_non_null(strstr(names, "ecmp"));
}

static void test_ops_tables_complete(void **state)
{
    (void)state;
    const struct lb_ops *all[] = { &lb_single_ops, &lb_oblivious_ops, &lb_reps_ops };
    for (size_t i = 0; i < 3; i++) {
        assert_non_null(all[i]->name);
        assert_non_null(all[i]->description);
        assert_true(all[i]->state_size > 0);
        assert_non_null(all[i]->init);
        assert_non_null(all[i]->next_entropy);
        assert_non_null(all[i]->feedback);
        /* the table's own name finds it */
        assert_ptr_equal(lb_find(all[i]->name), all[i]);
    }
}

static void test_bitmap_time_decay_matches_per_entropy_rule(void **state)
{
    (void)state;
    /* Bitmap's time decay (every 100 us each nonzero penalty loses one
     * unit per elapsed period, at least to zero), done eight entropies at
     * a time, against a per-entropy model: 133 paths (a tail of 5 past the
     * last eight), random ECN (+1), NACK (+4) and timeout (15) feedback,
     * gaps of 0-5 periods. Feedback LB_GOOD adds nothing and only decays. */
    const uint32_t paths = 133;
    const simtime_ps period = 100 * PS_PER_US;
    void *st = lb_new(&lb_bitmap_ops, paths, 16, 8, 3, 0);
    uint8_t want[133] = {0};
    uint64_t x = 99;
    simtime_ps now = 0, clock = 0;
    for (int round = 0; round < 3000; round++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t r = (uint32_t)(x >> 33);
        now += (simtime_ps)(r % 6) * period + (r >> 8) % period;
        /* the model: decay first, as the balancer does on every call */
        uint32_t nonzero = 0;
        for (uint32_t i = 0; i < paths; i++)
            nonzero += want[i] != 0;
        if (nonzero == 0) {
            clock = now;
        } else if (now > clock && (now - clock) / period) {
            simtime_ps ticks = (now - clock) / period;
            clock += ticks * period;
            for (uint32_t i = 0; i < paths; i++)
                want[i] = want[i] > ticks ? (uint8_t)(want[i] - ticks) : 0;
        }
        uint16_t ev = (uint16_t)((r >> 4) % paths);
        enum lb_signal sig = (r >> 12) % 4 == 0 ? LB_ECN : (r >> 12) % 4 == 1 ? LB_NACK
                           : (r >> 12) % 4 == 2 ? LB_TIMEOUT : LB_GOOD;
        uint32_t add = sig == LB_ECN ? 1 : sig == LB_NACK ? 4 : sig == LB_TIMEOUT ? 15 : 0;
        lb_bitmap_ops.feedback(st, ev, sig, now);
        if (add)
            want[ev] = (uint8_t)(want[ev] + add > 15 ? 15 : want[ev] + add);
        for (uint32_t i = 0; i < paths; i++)
            if (lb_bitmap_penalty(st, (uint16_t)i) != want[i])
                fail_msg("round %d entropy %u: penalty %u, want %u", round, i, lb_bitmap_penalty(st, (uint16_t)i),
                         want[i]);
    }
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reps_explores_in_order_during_first_bdp),
        cmocka_unit_test(test_reps_keeps_exploring_when_buffer_empty),
        cmocka_unit_test(test_reps_clean_ack_entropy_is_reused),
        cmocka_unit_test(test_reps_each_recycled_entry_used_once),
        cmocka_unit_test(test_reps_bad_signals_are_not_recycled),
        cmocka_unit_test(test_reps_clean_acks_during_exploration_recycled_after),
        cmocka_unit_test(test_reps_default_buffer_holds_eight),
        cmocka_unit_test(test_reps_small_buffer_keeps_newest),
        cmocka_unit_test(test_reps_oversized_buffer_is_capped),
        cmocka_unit_test(test_reps_next_entropy_wraps_at_paths),
        cmocka_unit_test(test_reps_matches_reference_model),
        cmocka_unit_test(test_random_spraying_is_uniform_and_independent),
        cmocka_unit_test(test_plb_repaths_after_twelve_congested_rounds),
        cmocka_unit_test(test_oblivious_cycles_visit_each_entropy_once),
        cmocka_unit_test(test_oblivious_path_burst_repeats_each_entropy),
        cmocka_unit_test(test_oblivious_order_is_shuffled_per_cycle),
        cmocka_unit_test(test_oblivious_flows_get_different_orders),
        cmocka_unit_test(test_oblivious_ignores_feedback_seq_and_time),
        cmocka_unit_test(test_oblivious_same_seed_reproduces),
        cmocka_unit_test(test_single_always_zero),
        cmocka_unit_test(test_bitmap_time_decay_matches_per_entropy_rule),
        cmocka_unit_test(test_bitmap_zero_paths_means_one),
        cmocka_unit_test(test_lb_find),
        cmocka_unit_test(test_ops_tables_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
