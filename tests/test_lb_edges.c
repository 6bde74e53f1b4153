/* test_lb_edges.c: the edges of the sender load balancers (src/lb/) that
 * the behavioural tests in test_lb.c and test_lb_adaptive.c pass over:
 * degenerate parameters (no paths), the storage of Mixed's FIFO when it
 * grows with its oldest entry away from slot 0, the state sizes the ops
 * tables declare, and PLB's boundaries (exactly at a round's end, exactly
 * at the end of its suspension, two paths). Every expected value follows
 * from the module's documented rule, worked out by hand (issue 26: each
 * test here failed with a mutant that the older tests let through).
 */
#include "testutil.h"
#include "malloc_check.h"

#include <sys/wait.h>

#include "lb/lb.h"
#include "sim.h"
#include "simtest.h"

#define US(x) ((simtime_ps)((x) * (double)PS_PER_US))

/* ---- helpers ------------------------------------------------------------------- */

static struct lb_params params(uint32_t paths, uint64_t seed, uint32_t flow_index)
{
    return (struct lb_params){.paths = paths, .trimming = true, .seed = seed, .flow_index = flow_index};
}

/* Exactly the bytes the balancer asks for (lb_state_bytes), zeroed as
 * lb.h's contract hands them to init. */
static void *make(const struct lb_ops *ops, const struct lb_params *p)
{
    void *st = calloc(1, lb_state_bytes(ops, p));
    assert_non_null(st);
    ops->init(st, p);
    return st;
}

static uint16_t nxt(const struct lb_ops *ops, void *st, simtime_ps now)
{
    return ops->next_entropy(st, 0, now);
}

static void fb(const struct lb_ops *ops, void *st, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    ops->feedback(st, ev, sig, now);
}

/* ---- no paths --------------------------------------------------------------------- */

/* lb_params.paths 0 means one path, for every balancer (as test_lb.c checks
 * for Bitmap alone): every packet on entropy 0, whatever the feedback, for
 * flows that explore (REPS, Alg. 4), draw at random (random, PLB) or cycle.
 * 200 sends: a uniform choice between two entropies would show entropy 1
 * with probability 1 - 2^-200. */
static void test_zero_paths_means_one(void **state)
{
    (void)state;
    size_t n;
    const struct lb_ops *const *all = lb_registry(&n);
    for (size_t i = 0; i < n; i++)
        for (uint32_t paths = 0; paths <= 1; paths++) {
            struct lb_params p = params(paths, 7, 3);
            p.bdp_pkts = 1000; /* REPS and Alg. 4 explore throughout */
            void *st = make(all[i], &p);
            for (uint32_t k = 0; k < 200; k++) {
                uint16_t ev = all[i]->next_entropy(st, k, (simtime_ps)k * 1000);
                if (ev != 0)
                    fail_msg("%s with %u paths: send %u on entropy %u", all[i]->name, paths, k, ev);
                all[i]->feedback(st, 0, k % 3 ? LB_GOOD : LB_ECN, (simtime_ps)k * 1000 + 500);
            }
            lb_state_free(all[i], st);
        }
}

/* ---- Mixed's FIFO storage ---------------------------------------------------------- */

/* The FIFO's storage doubles when full (8 entries first), copying the
 * entries oldest first. When sends have moved its oldest entry away from
 * slot 0 the copy must follow the ring, for byte entries (at most 256
 * paths) and two-byte ones alike: the entropies then come back in the order
 * their clean ACKs arrived, each once. */
static void mixed_grow_with_moved_head(uint32_t paths)
{
    struct lb_params p = params(paths, 13, 0);
    void *m = make(&lb_mixed_ops, &p);
    /* entropies well inside the path count and different in both bytes
     * (a two-byte entry read one byte off gives another number) */
    const uint16_t base = paths > 256 ? 0x1a2 : 0x21;
    for (uint16_t k = 0; k < 4; k++)
        fb(&lb_mixed_ops, m, (uint16_t)(base + k), LB_GOOD, 0);
    /* two sends: the oldest entry is now the storage's third slot */
    assert_int_equal(nxt(&lb_mixed_ops, m, 0), base);
    assert_int_equal(nxt(&lb_mixed_ops, m, 0), base + 1);
    /* 2 left + 6 = 8, full; the 7th grows the storage to 16, the rest to 32 */
    for (uint16_t k = 4; k < 4 + 6 + 1 + 12; k++)
        fb(&lb_mixed_ops, m, (uint16_t)(base + k), LB_GOOD, 0);
    for (uint16_t k = 2; k < 4 + 6 + 1 + 12; k++)
        assert_int_equal(nxt(&lb_mixed_ops, m, 0), base + k);
    lb_state_free(&lb_mixed_ops, m);
}

static void test_mixed_wide_fifo_grows_in_order(void **state)
{
    (void)state;
    mixed_grow_with_moved_head(1000);
}

static void test_mixed_narrow_fifo_grows_in_order(void **state)
{
    (void)state;
    mixed_grow_with_moved_head(256);
}

/* ---- state sizes ------------------------------------------------------------------ */

/* lb.h: state_size is the per-flow state "for any lb_params", and a
 * state_bytes answer is "never more than state_size"; Bitmap's state_size
 * is its header bound (LB_BITMAP_HEADER_MAX) plus one byte per path of
 * LB_MAX_PATHS, and Mixed's is its own header plus that. So for every
 * registered balancer and path count the per-flow size fits state_size, and
 * state_size exceeds the largest per-flow size by less than one header
 * bound: a size that no state needs (a wrapped subtraction, 4 GB) is as
 * wrong as one too small. */
static void test_state_size_bounds_every_state(void **state)
{
    (void)state;
    static const uint32_t paths[] = {0, 1, 2, 255, 256, 257, 4096, LB_MAX_PATHS - 1, LB_MAX_PATHS};
    size_t n;
    const struct lb_ops *const *all = lb_registry(&n);
    assert_int_equal(n, 8);
    for (size_t i = 0; i < n; i++) {
        size_t largest = 0;
        for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
            struct lb_params p = params(paths[k], 1, 0);
            size_t need = lb_state_bytes(all[i], &p);
            if (need > all[i]->state_size)
                fail_msg("%s with %u paths: %zu bytes, beyond its state_size %zu", all[i]->name, paths[k], need,
                         all[i]->state_size);
            largest = need > largest ? need : largest;
        }
        if (all[i]->state_size - largest >= LB_BITMAP_HEADER_MAX)
            fail_msg("%s: state_size %zu, but no state needs more than %zu bytes", all[i]->name,
                     all[i]->state_size, largest);
    }
    /* the two that grow with the paths: one byte per path */
    for (int w = 0; w < 2; w++) {
        const struct lb_ops *ops = w ? &lb_mixed_ops : &lb_bitmap_ops;
        struct lb_params a = params(100, 1, 0), b = params(1100, 1, 0), big = params(LB_MAX_PATHS + 5, 1, 0),
                         max = params(LB_MAX_PATHS, 1, 0);
        assert_int_equal(lb_state_bytes(ops, &b) - lb_state_bytes(ops, &a), 1000);
        /* more paths than entropies exist: clamped to LB_MAX_PATHS */
        assert_int_equal(lb_state_bytes(ops, &big), lb_state_bytes(ops, &max));
    }
}

/* ---- PLB ---------------------------------------------------------------------------- */

/* With two paths a move goes to the other one, every time (fresh_ev: any
 * path but the one in use), whatever the random draws. */
static void test_plb_two_paths_alternate(void **state)
{
    (void)state;
    for (uint32_t flow = 0; flow < 8; flow++) {
        struct lb_params p = params(2, 5, flow);
        void *st = make(&lb_plb_ops, &p);
        uint16_t ev = nxt(&lb_plb_ops, st, 0);
        assert_true(ev < 2);
        for (int k = 1; k <= 6; k++) {
            /* a timeout moves at once (and suspends congestion moves only) */
            fb(&lb_plb_ops, st, ev, LB_TIMEOUT, US(k));
            assert_int_equal(lb_plb_repaths(st), k);
            assert_int_equal(nxt(&lb_plb_ops, st, 0), 1 - ev);
            ev = (uint16_t)(1 - ev);
        }
        free(st);
    }
    /* one path (or none): nowhere to move, entropy 0 throughout */
    for (uint32_t paths = 0; paths <= 1; paths++) {
        struct lb_params p = params(paths, 5, 1);
        void *st = make(&lb_plb_ops, &p);
        assert_int_equal(nxt(&lb_plb_ops, st, 0), 0);
        fb(&lb_plb_ops, st, 0, LB_TIMEOUT, US(1));
        assert_int_equal(nxt(&lb_plb_ops, st, 0), 0);
        assert_int_equal(lb_plb_repaths(st), 1);
        free(st);
    }
}

/* Rounds of exactly one base RTT: the first ACK at t starts a round that
 * ends at t + RTT, and an ACK exactly at the end closes it (and starts the
 * next). Here every round has two ACKs, both marked, the second exactly at
 * the round's end: the 12th congested round closes at 12 RTTs, and the
 * move happens there, not one round later; the count then starts over. */
static void plb_marked_rounds(void *st, simtime_ps t0, simtime_ps rtt, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        fb(&lb_plb_ops, st, 0, LB_ECN, t0 + (simtime_ps)r * rtt);
        fb(&lb_plb_ops, st, 0, LB_ECN, t0 + (simtime_ps)r * rtt + rtt / 2);
    }
}

static void test_plb_round_ends_exactly_at_base_rtt(void **state)
{
    (void)state;
    struct lb_params p = params(64, 9, 4);
    p.base_rtt_ps = US(7);
    void *st = make(&lb_plb_ops, &p);
    /* 12 congested rounds [0, 7), [7, 14), ... each of two marked ACKs */
    plb_marked_rounds(st, 0, US(7), 12);
    assert_int_equal(lb_plb_repaths(st), 0);
    /* the 12th round closes exactly at 12 x 7 us */
    fb(&lb_plb_ops, st, 0, LB_GOOD, US(84) - 1);
    assert_int_equal(lb_plb_repaths(st), 0);
    fb(&lb_plb_ops, st, 0, LB_GOOD, US(84));
    assert_int_equal(lb_plb_repaths(st), 1);
    /* a move starts the count over: 11 congested rounds after it (closing
     * at 91 ... 161 us) move nothing, the 12th (closing at 168) moves */
    plb_marked_rounds(st, US(84), US(7), 12);
    assert_int_equal(lb_plb_repaths(st), 1);
    fb(&lb_plb_ops, st, 0, LB_GOOD, US(168));
    assert_int_equal(lb_plb_repaths(st), 2);
    free(st);

    /* no base RTT given: rounds of 10 us */
    p.base_rtt_ps = 0;
    st = make(&lb_plb_ops, &p);
    plb_marked_rounds(st, US(3), US(10), 12);
    fb(&lb_plb_ops, st, 0, LB_GOOD, US(123) - 1);
    assert_int_equal(lb_plb_repaths(st), 0);
    fb(&lb_plb_ops, st, 0, LB_GOOD, US(123));
    assert_int_equal(lb_plb_repaths(st), 1);
    free(st);
}

/* Half the ACKs marked is congested (Linux's 128/256), one fewer is not:
 * 12 rounds of 2 ACKs with 1 marked move the flow, 12 rounds of 3 with 1
 * marked do not. */
static void test_plb_half_marked_is_congested(void **state)
{
    (void)state;
    for (int acks = 2; acks <= 3; acks++) {
        struct lb_params p = params(64, 9, 4);
        p.base_rtt_ps = US(10);
        void *st = make(&lb_plb_ops, &p);
        for (int r = 0; r < 13; r++)
            for (int a = 0; a < acks; a++)
                fb(&lb_plb_ops, st, 0, a == 0 ? LB_NACK : LB_GOOD, US(10) * (simtime_ps)r + (simtime_ps)a);
        assert_int_equal(lb_plb_repaths(st), acks == 2 ? 1 : 0);
        free(st);
    }
}

/* A timeout at t suspends congestion moves until exactly t + 60 s: a 12th
 * congested round closing before then moves nothing, one closing at that
 * instant moves the flow. */
static void test_plb_suspension_ends_exactly_after_60_s(void **state)
{
    (void)state;
    const simtime_ps rtt = US(10), t_out = US(5), until = t_out + 60 * PS_PER_S;
    for (int late = 0; late <= 1; late++) {
        struct lb_params p = params(64, 9, 4);
        p.base_rtt_ps = rtt;
        void *st = make(&lb_plb_ops, &p);
        fb(&lb_plb_ops, st, 0, LB_TIMEOUT, t_out);
        assert_int_equal(lb_plb_repaths(st), 1);
        /* 12 marked rounds whose last closes at `until` (late) or 1 ps before */
        simtime_ps t0 = until - 12 * rtt - (late ? 0 : 1);
        plb_marked_rounds(st, t0, rtt, 12);
        fb(&lb_plb_ops, st, 0, LB_GOOD, t0 + 12 * rtt);
        assert_int_equal(lb_plb_repaths(st), late ? 2 : 1);
        free(st);
    }
}

/* ---- the state stays inside its bytes ----------------------------------------------------- */

/* lb.h: a flow's state is lb_state_bytes long. Every balancer, at path
 * counts on and off multiples of 8 (Bitmap decays eight penalties at a
 * time, the rest one by one), driven through sends, every signal, an
 * entropy one past the last and LB_EV_UNKNOWN, and time enough for every decay,
 * leaves the 32 bytes after its state as they were. (Entropies past the
 * last go to Bitmap alone, which ignores them.) */
static void test_state_stays_inside_its_bytes(void **state)
{
    (void)state;
    static const uint32_t paths[] = {1, 5, 8, 13, 16, 64, 256, 257};
    enum { TAIL = 32 };
    size_t n;
    const struct lb_ops *const *all = lb_registry(&n);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
            struct lb_params p = params(paths[k], 3, (uint32_t)k);
            p.bdp_pkts = 4;
            p.reps_freeze = true;
            size_t bytes = lb_state_bytes(all[i], &p);
            unsigned char *st = calloc(1, bytes + TAIL);
            assert_non_null(st);
            memset(st + bytes, 0xa5, TAIL);
            all[i]->init(st, &p);
            simtime_ps t = 0;
            for (uint32_t r = 0; r < 3 * paths[k] + 40; r++, t += 7 * PS_PER_US) {
                uint16_t ev = all[i]->next_entropy(st, r, t);
                assert_true(ev < paths[k]);
                all[i]->feedback(st, ev, (enum lb_signal)(r % 4), t);
                all[i]->feedback(st, (uint16_t)(paths[k] - 1), (enum lb_signal)((r + 1) % 4), t);
                /* an entropy it never chose: only Bitmap is promised to ignore
                 * one (the recyclers would hand it back) */
                if (all[i] == &lb_bitmap_ops)
                    all[i]->feedback(st, (uint16_t)paths[k], (enum lb_signal)((r + 2) % 4), t);
                all[i]->feedback(st, LB_EV_UNKNOWN, LB_TIMEOUT, t);
            }
            /* the penalty of an entropy past the last is 0, not a byte of
             * whatever follows the state (Bitmap, and Mixed's Bitmap half) */
            if (all[i] == &lb_bitmap_ops)
                assert_int_equal(lb_bitmap_penalty(st, (uint16_t)paths[k]), 0);
            if (all[i] == &lb_mixed_ops)
                assert_int_equal(lb_mixed_penalty(st, (uint16_t)paths[k]), 0);
            /* a long quiet spell: every penalty decays by time */
            (void)all[i]->next_entropy(st, 0, t + 10 * PS_PER_MS);
            for (size_t b = 0; b < TAIL; b++)
                if (st[bytes + b] != 0xa5)
                    fail_msg("%s with %u paths wrote byte %zu past its %zu-byte state", all[i]->name, paths[k], b,
                             bytes);
            lb_state_free(all[i], st);
        }
}

/* ---- Bitmap's decay, one penalty at a time ---------------------------------------------- */

/* Time decay with path counts that leave penalties to the one-at-a-time
 * loop (5 paths: all of them; 13: the last 5) or to none of it (16): a penalty equal to the
 * periods elapsed reaches 0 and stops counting as penalized, so the clock
 * restarts with the next penalty set on the clean state (bitmap.c: "a lone
 * penalty p lasts p periods"). */
static void test_bitmap_scalar_decay_and_clock_restart(void **state)
{
    (void)state;
    static const uint32_t path_counts[] = {5, 13, 16};
    for (size_t k = 0; k < sizeof path_counts / sizeof path_counts[0]; k++) {
        const uint32_t paths = path_counts[k];
        struct lb_params p = params(paths, 13, 0);
        void *b = make(&lb_bitmap_ops, &p);
        /* the first and the last entropy: both ends of each loop */
        const uint16_t e1 = (uint16_t)(paths - 1), e2 = 0;
        fb(&lb_bitmap_ops, b, e1, LB_ECN, US(0));
        fb(&lb_bitmap_ops, b, e2, LB_NACK, US(0));
        fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(100) - 1);
        assert_int_equal(lb_bitmap_penalty(b, e1), 1);
        assert_int_equal(lb_bitmap_penalty(b, e2), 4);
        /* one period: e1 (1) clears, e2 (4) keeps 3 */
        fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(100));
        assert_int_equal(lb_bitmap_penalty(b, e1), 0);
        assert_int_equal(lb_bitmap_penalty(b, e2), 3);
        /* three more at once: e2 exactly clears */
        fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(400));
        assert_int_equal(lb_bitmap_penalty(b, e2), 0);
        /* clean: a penalty set at 450 us lasts until 550 us, not 500 */
        fb(&lb_bitmap_ops, b, e1, LB_ECN, US(450));
        fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(550) - 1);
        assert_int_equal(lb_bitmap_penalty(b, e1), 1);
        fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(550));
        assert_int_equal(lb_bitmap_penalty(b, e1), 0);
        /* fifteen periods or more take any penalty to 0 */
        fb(&lb_bitmap_ops, b, e2, LB_TIMEOUT, US(1000));
        fb(&lb_bitmap_ops, b, e1, LB_TIMEOUT, US(1000));
        fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(2400));
        assert_int_equal(lb_bitmap_penalty(b, e2), 1);
        fb(&lb_bitmap_ops, b, 0, LB_GOOD, US(2500));
        assert_int_equal(lb_bitmap_penalty(b, e2), 0);
        assert_int_equal(lb_bitmap_penalty(b, e1), 0);
        free(b);
    }
}

/* Every entropy penalized: the send decays its first candidate, skips
 * `paths` + 1 candidates of the XOR cycle in all, and takes the last of
 * them: the candidate oblivious spraying (the same cycle, same seed and
 * flow) gives at its send number paths + 1. */
static void test_bitmap_all_penalized_takes_candidate_after_paths_skips(void **state)
{
    (void)state;
    for (uint32_t paths = 3; paths <= 16; paths += 13) {
        struct lb_params p = params(paths, 21, 4);
        void *b = make(&lb_bitmap_ops, &p), *o = make(&lb_oblivious_ops, &p);
        for (uint16_t e = 0; e < paths; e++)
            fb(&lb_bitmap_ops, b, e, LB_TIMEOUT, 0);
        uint16_t first = nxt(&lb_oblivious_ops, o, 0), want = first;
        for (uint32_t k = 0; k < paths; k++)
            want = nxt(&lb_oblivious_ops, o, 0);
        assert_int_equal(nxt(&lb_bitmap_ops, b, 0), want);
        assert_int_equal(lb_bitmap_penalty(b, first), 14);
        free(b);
        free(o);
    }
}

/* ---- REPS: freezing's edges -------------------------------------------------------------- */

/* The freeze lasts 10 ms from the timeout: feedback exactly then still
 * finds it frozen (sends go round robin over the stored entropies, here
 * only 7); one picosecond later it thaws, clears the store and sends 16
 * random entropies. */
static void test_reps_freeze_ends_after_exactly_10_ms(void **state)
{
    (void)state;
    struct lb_params p = params(64, 13, 2);
    p.reps_freeze = true;
    void *r = make(&lb_reps_ops, &p);
    const simtime_ps t0 = US(50), end = t0 + 10 * PS_PER_MS;
    fb(&lb_reps_ops, r, 7, LB_GOOD, US(1));
    fb(&lb_reps_ops, r, 7, LB_TIMEOUT, t0);
    fb(&lb_reps_ops, r, 7, LB_GOOD, end);
    for (int k = 0; k < 5; k++)
        assert_int_equal(lb_reps_ops.next_entropy(r, 1000, end), 7);
    fb(&lb_reps_ops, r, 7, LB_GOOD, end + 1);
    int sevens = 0;
    for (int k = 0; k < 16; k++)
        sevens += lb_reps_ops.next_entropy(r, 1000, end + 1) == 7;
    assert_true(sevens < 16);
    /* then the one stored entry (pushed after the thaw) is recycled */
    assert_int_equal(lb_reps_ops.next_entropy(r, 1000, end + 1), 7);
    free(r);
}

/* A full store of 3 (5 clean ACKs: a, b, c, d, e keep c, d, e in slots
 * [d, e, c]): frozen sends go round the three slots in slot order, never a
 * fourth. */
static void test_reps_frozen_round_robin_over_a_full_store(void **state)
{
    (void)state;
    struct lb_params p = params(64, 13, 2);
    p.reps_freeze = true;
    p.buffer_size = 3;
    void *r = make(&lb_reps_ops, &p);
    for (uint16_t e = 10; e < 15; e++)
        fb(&lb_reps_ops, r, e, LB_GOOD, US(1));
    fb(&lb_reps_ops, r, 0, LB_TIMEOUT, US(2));
    static const uint16_t want[] = {13, 14, 12, 13, 14, 12, 13};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        assert_int_equal(lb_reps_ops.next_entropy(r, 1000, US(3)), want[k]);
    free(r);
}

/* ---- the balancers' own flags ----------------------------------------------------------- */

static struct sim FLAGS_SIM;

/* read_opts of `ops` with these flags (name, value pairs; value NULL for
 * a flag without one). */
static struct lb_params read_with(const struct lb_ops *ops, const char *const *flags, int n)
{
    memset(&FLAGS_SIM, 0, sizeof FLAGS_SIM);
    config_defaults(&FLAGS_SIM.cfg);
    for (int i = 0; i < n; i += 2)
        config_add_flag(&FLAGS_SIM.cfg, flags[i], flags[i + 1], NULL);
    struct lb_params p = params(64, 1, 0);
    ops->read_opts(&FLAGS_SIM, &p);
    return p;
}

/* read_opts in a child: its exit status and stderr. */
static int read_in_child(const struct lb_ops *ops, const char *flag, const char *value, char *out, size_t len)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        const char *f[2] = {flag, value};
        (void)read_with(ops, f, 2);
        _exit(0);
    }
    close(fds[1]);
    return child_output(fds[0], pid, out, len);
}

static void expect_refused(const struct lb_ops *ops, const char *flag, const char *value, const char *msg)
{
    char out[1024];
    int st = read_in_child(ops, flag, value, out, sizeof out);
    if (st != 2 || !strstr(out, msg))
        fail_msg("%s %s: exit %d, stderr \"%s\"; expected 2 and \"%s\"", flag, value, st, out, msg);
}

/* --reps-buffer 1..256 (default 8); freezing on unless the last of
 * --reps-freeze / --no-reps-freeze says no; -path_burst 1..65535
 * (default 1). Both ends of each range are taken, one past each refused. */
static void test_reps_and_oblivious_flags_at_both_ends(void **state)
{
    (void)state;
    struct lb_params p = read_with(&lb_reps_ops, NULL, 0);
    assert_int_equal(p.buffer_size, 8);
    assert_true(p.reps_freeze);
    const char *one[] = {"--reps-buffer", "1"}, *max[] = {"--reps-buffer", "256"};
    assert_int_equal(read_with(&lb_reps_ops, one, 2).buffer_size, 1);
    assert_int_equal(read_with(&lb_reps_ops, max, 2).buffer_size, 256);
    expect_refused(&lb_reps_ops, "--reps-buffer", "0", "--reps-buffer: '0' is out of range (1 to 256)");
    expect_refused(&lb_reps_ops, "--reps-buffer", "257", "--reps-buffer: '257' is out of range (1 to 256)");
    const char *off[] = {"--no-reps-freeze", NULL}, *on[] = {"--reps-freeze", NULL};
    const char *off_on[] = {"--no-reps-freeze", NULL, "--reps-freeze", NULL};
    const char *on_off[] = {"--reps-freeze", NULL, "--no-reps-freeze", NULL};
    assert_false(read_with(&lb_reps_ops, off, 2).reps_freeze);
    assert_true(read_with(&lb_reps_ops, on, 2).reps_freeze);
    assert_true(read_with(&lb_reps_ops, off_on, 4).reps_freeze);
    assert_false(read_with(&lb_reps_ops, on_off, 4).reps_freeze);

    assert_int_equal(read_with(&lb_oblivious_ops, NULL, 0).path_burst, 1);
    const char *b1[] = {"-path_burst", "1"}, *bmax[] = {"-path_burst", "65535"};
    assert_int_equal(read_with(&lb_oblivious_ops, b1, 2).path_burst, 1);
    assert_int_equal(read_with(&lb_oblivious_ops, bmax, 2).path_burst, 65535);
    expect_refused(&lb_oblivious_ops, "-path_burst", "0", "-path_burst: '0' is out of range (1 to 65535)");
    expect_refused(&lb_oblivious_ops, "-path_burst", "65536", "-path_burst: '65536' is out of range (1 to 65535)");
    /* the flags each owns, one argument each but the freeze switches */
    assert_int_equal(lb_reps_ops.n_flags, 3);
    assert_int_equal(lb_reps_ops.flags[0].n_args, 1);
    assert_int_equal(lb_reps_ops.flags[1].n_args, 0);
    assert_int_equal(lb_reps_ops.flags[2].n_args, 0);
    assert_int_equal(lb_oblivious_ops.n_flags, 1);
    assert_int_equal(lb_oblivious_ops.flags[0].n_args, 1);
}

/* ---- the registry --------------------------------------------------------------------- */

/* --lb's list (the help text and error messages): every balancer in
 * registry order, the alias on single alone. */
static void test_lb_names_exact(void **state)
{
    (void)state;
    assert_string_equal(lb_names(), "single (alias ecmp), oblivious, random, plb, reps, reps-alg4, bitmap, mixed");
    size_t n;
    const struct lb_ops *const *all = lb_registry(&n);
    for (size_t i = 0; i < n; i++)
        assert_ptr_equal(lb_find(all[i]->name), all[i]);
    assert_null(lb_find("mixedx"));
}

int main(int argc, char **argv)
{
    (void)argc;
    malloc_check_reexec(argv); /* tests/malloc_check.h: heap overruns fail here too */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_paths_means_one),
        cmocka_unit_test(test_mixed_wide_fifo_grows_in_order),
        cmocka_unit_test(test_mixed_narrow_fifo_grows_in_order),
        cmocka_unit_test(test_state_size_bounds_every_state),
        cmocka_unit_test(test_plb_two_paths_alternate),
        cmocka_unit_test(test_plb_round_ends_exactly_at_base_rtt),
        cmocka_unit_test(test_plb_half_marked_is_congested),
        cmocka_unit_test(test_plb_suspension_ends_exactly_after_60_s),
        cmocka_unit_test(test_state_stays_inside_its_bytes),
        cmocka_unit_test(test_bitmap_scalar_decay_and_clock_restart),
        cmocka_unit_test(test_bitmap_all_penalized_takes_candidate_after_paths_skips),
        cmocka_unit_test(test_reps_freeze_ends_after_exactly_10_ms),
        cmocka_unit_test(test_reps_frozen_round_robin_over_a_full_store),
        cmocka_unit_test(test_reps_and_oblivious_flags_at_both_ends),
        cmocka_unit_test(test_lb_names_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
