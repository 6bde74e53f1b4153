/* test_homa.c: Homa (src/transport/homa.c). Unit tests of its pieces: the
 * RTTbytes unscheduled prefix, priority levels from cutoffs and from rank,
 * HomaSim's graduated cutoffs (specs/sird.md Sec. 4's WKa numbers), the
 * options; the receiver's grant scheduler: SRPT order, overcommitment k,
 * one message per sender, grants never beyond a message's size, a fully
 * granted message making room. End to end: one message on an idle network
 * in its ideal time, an incast that keeps the downlink busy and delivers
 * every byte, a short message overtaking scheduled data (priorities), a
 * short Poisson run that finishes, loss recovered by RESEND,
 * one seed one output.
 */
#include "testutil.h"

#include "metrics/report.h"
#include "sim.h"
#include "simtest.h"
#include "transport/flow.h"
#include "transport/homa.h"
#include "transport/transport.h"
#include "workload/poisson.h"

#include <math.h>

#define MSS 1436 /* -mtu 1500 less the 64-byte header */

static struct homa_params defaults(void)
{
    struct homa_params p;
    homa_params_default(&p, MSS);
    return p;
}

static bool parse(struct homa_params *p, const char *a, const char *b)
{
    const char *opts[2] = {a, b};
    char err[256];
    homa_params_default(p, MSS);
    return homa_params_parse(p, opts, b ? 2 : (a ? 1 : 0), err, sizeof err);
}

/* The defaults (homa.h: "cutoffs=A:B:... on the command line; else
 * derived"): no cutoffs given and none set, so setup derives them from the
 * workload; whatever the struct held before is not read (issue 26: the
 * defaults' zeroing changed to another byte went unnoticed). */
static void test_defaults_give_no_cutoffs(void **state)
{
    (void)state;
    struct homa_params p;
    memset(&p, 0xa5, sizeof p);
    homa_params_default(&p, MSS);
    assert_false(p.cutoffs_given);
    for (size_t i = 0; i < sizeof p.cutoff_bytes / sizeof p.cutoff_bytes[0]; i++)
        assert_int_equal(p.cutoff_bytes[i], 0);
    assert_int_equal(p.mss_bytes, MSS);
    assert_int_equal(p.unsched_levels + p.k, p.levels);
}

/* ---- unscheduled prefix and priorities --------------------------------------- */

/* sird.md Sec. 4: the first min(size, RTTbytes) bytes go unscheduled; whole
 * packets, so a message of at most RTTbytes (100 KB) needs no grant. */
static void test_unscheduled_prefix_is_rtt_bytes(void **state)
{
    (void)state;
    struct homa_params p = defaults();
    assert_int_equal(p.rtt_bytes, 100000);
    assert_int_equal(homa_unsched_pkts(&p, 1, 1), 1);
    assert_int_equal(homa_unsched_pkts(&p, 50000, 35), 35);
    assert_int_equal(homa_unsched_pkts(&p, 100000, 70), 70);  /* 100,000 B: 70 packets, all unscheduled */
    assert_int_equal(homa_unsched_pkts(&p, 200000, 140), 70); /* the rest waits for grants */
    assert_int_equal(homa_unsched_pkts(&p, 10000000, 6964), 70);
    p.unsched_bytes = 3 * MSS;
    assert_int_equal(homa_unsched_pkts(&p, 200000, 140), 3);
}

/* sird.md Sec. 4: the shortest granted message gets the highest scheduled
 * level; with fewer than the scheduled levels active, the lowest ones. */
static void test_scheduled_level_from_rank(void **state)
{
    (void)state;
    struct homa_params p = defaults(); /* 8 levels, k = 7: level 0 unscheduled, 1..7 scheduled */
    assert_int_equal(p.unsched_levels, 1);
    assert_int_equal(homa_sched_level(&p, 0, 7), 1);
    assert_int_equal(homa_sched_level(&p, 6, 7), 7);
    assert_int_equal(homa_sched_level(&p, 0, 1), 7);
    assert_int_equal(homa_sched_level(&p, 0, 2), 6);
    assert_int_equal(homa_sched_level(&p, 1, 2), 7);
    assert_true(parse(&p, "k=4", NULL)); /* WKa: 4 unscheduled, 4 scheduled levels */
    assert_int_equal(p.unsched_levels, 4);
    assert_int_equal(homa_sched_level(&p, 0, 4), 4);
    assert_int_equal(homa_sched_level(&p, 3, 4), 7);
    assert_int_equal(homa_sched_level(&p, 0, 1), 7);
    assert_true(parse(&p, "k=10", NULL)); /* more granted than scheduled levels: the top ranks share */
    assert_int_equal(p.unsched_levels, 1);
    assert_int_equal(homa_sched_level(&p, 0, 10), 1);
    assert_int_equal(homa_sched_level(&p, 3, 10), 1);
    assert_int_equal(homa_sched_level(&p, 9, 10), 7);
}

static void test_unscheduled_level_from_cutoffs(void **state)
{
    (void)state;
    struct homa_params p;
    assert_true(parse(&p, "k=4", "cutoffs=1000:10000:50000"));
    assert_true(p.cutoffs_given);
    assert_int_equal(homa_unsched_level(&p, 1), 0);
    assert_int_equal(homa_unsched_level(&p, 1000), 0);
    assert_int_equal(homa_unsched_level(&p, 1001), 1);
    assert_int_equal(homa_unsched_level(&p, 10000), 1);
    assert_int_equal(homa_unsched_level(&p, 10001), 2);
    assert_int_equal(homa_unsched_level(&p, 50001), 3);
    assert_int_equal(homa_unsched_level(&p, 1ull << 40), 3);
    p = defaults(); /* one unscheduled level: everything at level 0 */
    assert_int_equal(homa_unsched_level(&p, 1ull << 40), 0);
}

/* specs/sird.md Sec. 4: STATIC_CBF_GRADUATED on WKa (4 unscheduled levels,
 * linear interpolation, 100 KB cap) gives about 5.3 KB, 23.7 KB, 102 KB. */
static void test_cutoffs_wka_as_the_spec_computes(void **state)
{
    (void)state;
    struct size_cdf cdf;
    char err[512];
    if (!cdf_read_file(&cdf, shared_path("workloads/google_all_rpc.cdf"), err, sizeof err))
        skip();
    struct homa_params p;
    assert_true(parse(&p, "k=4", NULL));
    homa_cutoffs_from_cdf(&p, &cdf, false);
    cdf_free(&cdf);
    const double want[3] = {5300, 23700, 102000};
    for (int i = 0; i < 3; i++)
        if (fabs((double)p.cutoff_bytes[i] - want[i]) > 0.05 * want[i])
            fail_msg("cutoff %d: %llu B, spec about %.0f B", i, (unsigned long long)p.cutoff_bytes[i], want[i]);
}

/* A step CDF whose unscheduled bytes stay exactly at a level's share
 * between two sizes (3/4 of the messages of 1000 B, 1/4 of 3000 B: 750 B
 * and 750 B of the 1500 B per message): the cutoff is the smallest size
 * that reaches the share, 1000 B, not the end of the plateau (issue 26:
 * the bisection's < taken as <= moved it to 3000 B, unnoticed). */
static void test_cutoffs_from_step_cdf_at_a_plateau(void **state)
{
    (void)state;
    double size[2] = {1000, 3000}, prob[2] = {0.75, 1.0};
    struct size_cdf cdf = {.n = 2, .size_bytes = size, .prob = prob};
    struct homa_params p;
    assert_true(parse(&p, "unsched_levels=2", NULL));
    homa_cutoffs_from_cdf(&p, &cdf, true);
    assert_int_equal(p.cutoff_bytes[0], 1000);
    /* one size only, four levels: every share is reached at 1000 B, and the
     * cutoffs still increase strictly from the second on (issue 26: the
     * fix-up skipped at the second cutoff, 1000 twice, survived) */
    double one[1] = {1000}, all[1] = {1.0};
    struct size_cdf point = {.n = 1, .size_bytes = one, .prob = all};
    assert_true(parse(&p, "unsched_levels=4", NULL));
    homa_cutoffs_from_cdf(&p, &point, true);
    assert_int_equal(p.cutoff_bytes[0], 1000);
    assert_int_equal(p.cutoff_bytes[1], 1001);
    assert_int_equal(p.cutoff_bytes[2], 1002);
}

/* From a matrix's sizes: equal shares of min(size, RTTbytes). */
static void test_cutoffs_from_sizes_split_unscheduled_bytes(void **state)
{
    (void)state;
    struct homa_params p;
    assert_true(parse(&p, "unsched_levels=2", NULL));
    const uint64_t sizes[4] = {4000, 1000, 3000, 2000}; /* 10,000 B: half is reached at 3000 */
    homa_cutoffs_from_sizes(&p, sizes, 4);
    assert_int_equal(p.cutoff_bytes[0], 3000);
    /* sizes above RTTbytes count RTTbytes each */
    const uint64_t big[3] = {100000, 1000000, 50000000};
    homa_cutoffs_from_sizes(&p, big, 3);
    assert_int_equal(p.cutoff_bytes[0], 1000000);
    /* one size only: the cutoffs still increase strictly, each one byte
     * above the one before (issue 26: comparing with the cutoff two levels
     * down instead of the one before survived) */
    assert_true(parse(&p, "unsched_levels=4", NULL));
    const uint64_t same[3] = {1000, 1000, 1000};
    homa_cutoffs_from_sizes(&p, same, 3);
    assert_int_equal(p.cutoff_bytes[0], 1000);
    assert_int_equal(p.cutoff_bytes[1], 1001);
    assert_int_equal(p.cutoff_bytes[2], 1002);
    /* no sizes at all: every cutoff sits just above RTTbytes, each one
     * byte above the one before (issue 26: reading the cutoff two levels
     * up instead survived) */
    assert_true(parse(&p, "unsched_levels=4", NULL));
    homa_cutoffs_from_sizes(&p, same, 0);
    assert_int_equal(p.cutoff_bytes[0], p.unsched_bytes + 1);
    assert_int_equal(p.cutoff_bytes[1], p.unsched_bytes + 2);
    assert_int_equal(p.cutoff_bytes[2], p.unsched_bytes + 3);
}

/* Every --homa-opt range at both ends: the end itself taken (and its
 * value kept), one step beyond refused (issue 26: rtt_bytes' upper end
 * moved from 2^40 to 2^41 went unnoticed; option parsers get their
 * boundaries tested). levels 2..8, k 1..64, unsched_levels 1..7,
 * rtt_bytes and unsched_bytes 1..2^40, timeout_us 0..1e9. */
static void test_options_at_both_ends(void **state)
{
    (void)state;
    struct homa_params p;
    assert_true(parse(&p, "levels=2", NULL));
    assert_int_equal(p.levels, 2);
    assert_true(parse(&p, "levels=8", NULL));
    assert_int_equal(p.levels, 8);
    assert_false(parse(&p, "levels=1", NULL));
    assert_false(parse(&p, "levels=9", NULL));
    assert_true(parse(&p, "k=1", NULL));
    assert_int_equal(p.k, 1);
    assert_true(parse(&p, "k=64", NULL));
    assert_int_equal(p.k, 64);
    assert_false(parse(&p, "k=0", NULL));
    assert_false(parse(&p, "k=65", NULL));
    assert_true(parse(&p, "unsched_levels=1", NULL));
    assert_int_equal(p.unsched_levels, 1);
    assert_true(parse(&p, "unsched_levels=7", NULL));
    assert_int_equal(p.unsched_levels, 7);
    assert_false(parse(&p, "unsched_levels=0", NULL));
    assert_false(parse(&p, "unsched_levels=8", NULL));
    {
        /* refused for its own range (1 to 7: one level is left scheduled
         * whatever levels is), not only for the levels it leaves */
        const char *o[1] = {"unsched_levels=8"};
        char err[256];
        homa_params_default(&p, MSS);
        assert_false(homa_params_parse(&p, o, 1, err, sizeof err));
        if (!strstr(err, "unsched_levels=8: out of range (1 to 7)"))
            fail_msg("unsched_levels=8: '%s'", err);
    }
    assert_true(parse(&p, "rtt_bytes=1", NULL));
    assert_int_equal(p.rtt_bytes, 1);
    assert_true(parse(&p, "rtt_bytes=1099511627776", NULL));
    assert_int_equal(p.rtt_bytes, 1ull << 40);
    assert_false(parse(&p, "rtt_bytes=0", NULL));
    assert_false(parse(&p, "rtt_bytes=1099511627777", NULL));
    assert_true(parse(&p, "unsched_bytes=1", NULL));
    assert_int_equal(p.unsched_bytes, 1);
    assert_true(parse(&p, "unsched_bytes=1099511627776", NULL));
    assert_int_equal(p.unsched_bytes, 1ull << 40);
    assert_false(parse(&p, "unsched_bytes=0", NULL));
    assert_false(parse(&p, "unsched_bytes=1099511627777", NULL));
    assert_true(parse(&p, "timeout_us=0", NULL));
    assert_true(parse(&p, "timeout_us=1e9", NULL));
    assert_true(p.timeout_us == 1e9);
    assert_false(parse(&p, "timeout_us=-0.000001", NULL));
    assert_false(parse(&p, "timeout_us=1000000000.001", NULL));
}

static void test_options_checked(void **state)
{
    (void)state;
    struct homa_params p;
    assert_true(parse(&p, "rtt_bytes=50000", NULL));
    assert_int_equal(p.unsched_bytes, 50000); /* follows RTTbytes unless given */
    assert_true(parse(&p, "rtt_bytes=50000", "unsched_bytes=20000"));
    assert_int_equal(p.unsched_bytes, 20000);
    assert_true(parse(&p, "levels=4", NULL));
    assert_int_equal(p.unsched_levels, 1); /* 4 - min(7, 3) */
    /* unsched_levels = levels - min(k, levels - 1) on both sides of the min */
    assert_true(parse(&p, "k=6", NULL));
    assert_int_equal(p.unsched_levels, 2); /* 8 - min(6, 7) */
    assert_true(parse(&p, "k=7", NULL));
    assert_int_equal(p.unsched_levels, 1); /* 8 - min(7, 7) */
    assert_true(parse(&p, "k=8", NULL));
    assert_int_equal(p.unsched_levels, 1); /* 8 - min(8, 7) */
    assert_true(parse(&p, "timeout_us=0", NULL));
    assert_false(parse(&p, "nosuch=1", NULL));
    assert_false(parse(&p, "k", NULL));
    assert_false(parse(&p, "k=0", NULL));
    assert_false(parse(&p, "k=2.5", NULL));
    assert_false(parse(&p, "levels=9", NULL));
    assert_false(parse(&p, "levels=1", NULL));
    assert_false(parse(&p, "levels=4", "unsched_levels=4"));
    assert_false(parse(&p, "k=4", "cutoffs=1000:2000")); /* 4 unscheduled levels need 3 */
    assert_false(parse(&p, "k=4", "cutoffs=1000:900:2000"));
    assert_false(parse(&p, "k=4", "cutoffs=1000:2000:3000:"));
    assert_false(parse(&p, "k=4", "cutoffs=a:b:c"));
    assert_false(parse(&p, "timeout_us=-1", NULL));
    assert_true(parse(&p, "k=4", "cutoffs=auto"));
    assert_false(p.cutoffs_given);
}

/* ---- the grant scheduler ----------------------------------------------------- */

static struct homa_rx_msg msg(uint32_t id, uint32_t sender, uint64_t size, const struct homa_params *p)
{
    uint32_t n = (uint32_t)(size / MSS + (size % MSS != 0));
    struct homa_rx_msg m = {.size_bytes = size, .n_pkts = n, .sender = sender, .id = id, .order = id,
                            .sched_pos = HOMA_NOT_SCHEDULED};
    m.granted_pkts = homa_unsched_pkts(p, size, n);
    m.rcvd_pkts = m.granted_pkts; /* its unscheduled prefix arrived */
    return m;
}

/* SRPT: of six messages (distinct senders) the k = 3 with the fewest bytes
 * left to grant are granted, up to received + RTTbytes, the shortest at the
 * highest scheduled level. */
/* Equal bytes left: the earlier message (its ordinal, `order`) goes first,
 * whatever flow slot it sits in (--stream recycles slots). */
static void test_srpt_ties_follow_message_order_not_slot(void **state)
{
    (void)state;
    struct homa_params p;
    assert_true(parse(&p, "k=1", NULL));
    struct homa_rx_msg a = msg(7, 10, 400000, &p), b = msg(2, 11, 400000, &p);
    a.order = 1; /* created first, in slot 7 */
    b.order = 9; /* created later, in a recycled lower slot 2 */
    struct homa_rx_sched r = {0};
    homa_sched_add(&r, &b, MSS);
    homa_sched_add(&r, &a, MSS);
    struct homa_grant g[8];
    bool again;
    uint32_t n = homa_sched_decide(&r, &p, g, &again);
    assert_int_equal(n, 1);
    assert_int_equal(g[0].m->id, 7);
    homa_sched_free(&r);
}

static void test_grants_go_to_the_k_shortest(void **state)
{
    (void)state;
    struct homa_params p;
    assert_true(parse(&p, "k=3", NULL)); /* 5 unscheduled levels, 3 scheduled: 5, 6, 7 */
    const uint64_t sizes[6] = {5000000, 400000, 3000000, 250000, 1000000, 600000};
    struct homa_rx_msg m[6];
    struct homa_rx_sched r = {0};
    for (uint32_t i = 0; i < 6; i++) {
        m[i] = msg(i, 10 + i, sizes[i], &p);
        homa_sched_add(&r, &m[i], MSS);
    }
    assert_int_equal(r.n, 6);
    struct homa_grant g[64];
    bool again;
    uint32_t n = homa_sched_decide(&r, &p, g, &again);
    assert_int_equal(n, 3);
    assert_false(again);
    /* 250 KB, 400 KB, 600 KB in that order */
    assert_int_equal(g[0].m->id, 3);
    assert_int_equal(g[1].m->id, 1);
    assert_int_equal(g[2].m->id, 5);
    assert_int_equal(g[0].level, 5);
    assert_int_equal(g[1].level, 6);
    assert_int_equal(g[2].level, 7);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(g[i].granted_pkts, 70 + 70); /* received 70 + RTTbytes (70 packets) */
    assert_int_equal(m[0].granted_pkts, 70);
    assert_int_equal(m[2].granted_pkts, 70);
    assert_int_equal(m[4].granted_pkts, 70);
    /* nothing arrived: a second decision grants nothing more */
    assert_int_equal(homa_sched_decide(&r, &p, g, &again), 0);
    /* one packet more of the 600 KB message: one more packet granted to it */
    m[5].rcvd_pkts++;
    n = homa_sched_decide(&r, &p, g, &again);
    assert_int_equal(n, 1);
    assert_int_equal(g[0].m->id, 5);
    assert_int_equal(g[0].granted_pkts, 141);
    homa_sched_free(&r);
}

/* The receiver's schedule grows past its first 16 entries (doubling: 16,
 * 32, 64) and keeps every message: 40 from 40 senders, each shorter than
 * the one before, so the k = 3 shortest are the last three added. */
static void test_schedule_grows_past_its_first_capacity(void **state)
{
    (void)state;
    struct homa_params p;
    assert_true(parse(&p, "k=3", NULL));
    static struct homa_rx_msg m[40];
    struct homa_rx_sched r = {0};
    for (uint32_t i = 0; i < 40; i++) {
        m[i] = msg(i, 100 + i, 2000000 - 10000 * (uint64_t)i, &p);
        homa_sched_add(&r, &m[i], MSS);
        assert_int_equal(r.n, i + 1);
        assert_true(r.cap >= r.n);
    }
    assert_int_equal(r.cap, 64);
    struct homa_grant g[64];
    bool again;
    assert_int_equal(homa_sched_decide(&r, &p, g, &again), 3);
    assert_int_equal(g[0].m->id, 39);
    assert_int_equal(g[1].m->id, 38);
    assert_int_equal(g[2].m->id, 37);
    homa_sched_free(&r);
}

/* HomaSim ranks senders: two short messages from one sender take one slot. */
static void test_one_granted_message_per_sender(void **state)
{
    (void)state;
    struct homa_params p;
    assert_true(parse(&p, "k=2", NULL));
    struct homa_rx_msg a = msg(0, 1, 200000, &p), b = msg(1, 1, 300000, &p), c = msg(2, 2, 900000, &p);
    struct homa_rx_sched r = {0};
    homa_sched_add(&r, &c, MSS);
    homa_sched_add(&r, &b, MSS);
    homa_sched_add(&r, &a, MSS);
    assert_ptr_equal(r.msgs[0], &a);
    assert_ptr_equal(r.msgs[1], &b);
    struct homa_grant g[64];
    bool again;
    uint32_t n = homa_sched_decide(&r, &p, g, &again);
    assert_int_equal(n, 2);
    assert_int_equal(g[0].m->id, 0);
    assert_int_equal(g[1].m->id, 2); /* not b: its sender already has a granted message */
    assert_int_equal(b.granted_pkts, 70);
    homa_sched_free(&r);
}

/* A message granted to its size leaves the scheduler; the next one moves
 * up at once; grants never pass a message's size. */
static void test_fully_granted_message_makes_room(void **state)
{
    (void)state;
    struct homa_params p;
    assert_true(parse(&p, "k=1", NULL));
    struct homa_rx_msg a = msg(0, 1, 150000, &p), b = msg(1, 2, 2000000, &p);
    struct homa_rx_sched r = {0};
    homa_sched_add(&r, &a, MSS);
    homa_sched_add(&r, &b, MSS);
    struct homa_grant g[64];
    bool again;
    uint32_t n = homa_sched_decide(&r, &p, g, &again);
    assert_int_equal(n, 1);
    assert_int_equal(g[0].m->id, 0);
    assert_int_equal(a.granted_pkts, a.n_pkts); /* 105 packets, not 140 */
    assert_true(again);
    assert_int_equal(r.n, 1);
    assert_int_equal(a.sched_pos, HOMA_NOT_SCHEDULED);
    n = homa_sched_decide(&r, &p, g, &again);
    assert_int_equal(n, 1);
    assert_int_equal(g[0].m->id, 1);
    /* drive b to its end one packet at a time: the grant stays within its size
     * and one RTTbytes ahead of what arrived */
    while (r.n) {
        b.rcvd_pkts++;
        homa_sched_decide(&r, &p, g, &again);
        assert_true(b.granted_pkts <= b.n_pkts);
        assert_true(b.granted_pkts <= b.rcvd_pkts + 70);
    }
    assert_int_equal(b.granted_pkts, b.n_pkts);
    homa_sched_free(&r);
}

/* A message whose unscheduled prefix is the whole message never enters. */
static void test_unscheduled_message_needs_no_grant(void **state)
{
    (void)state;
    struct homa_params p = defaults();
    struct homa_rx_msg a = msg(0, 1, 100000, &p);
    struct homa_rx_sched r = {0};
    homa_sched_add(&r, &a, MSS);
    assert_int_equal(r.n, 0);
    homa_sched_free(&r);
}

/* ---- end to end ----------------------------------------------------------------- */

static struct sim S;

static void run(const char *tm, const char *workload, double end_us, const char *const *opts, unsigned n_opts,
                uint32_t queue_pkts, bool trimming)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = tm;
    c.workload_spec = workload;
    c.transport_name = "homa";
    c.mtu_bytes = 1500;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.progress = false;
    c.queue_infinite = queue_pkts == 0;
    c.queue_pkts = queue_pkts;
    c.trimming = trimming;
    for (unsigned i = 0; i < n_opts; i++)
        c.tp_flags[c.n_tp_flags++] = (struct tp_flag_given){"--homa-opt", {opts[i], NULL}};
    sim_setup(&S, &c);
    sim_run(&S);
}

/* The default 16-node tree's base RTT is 12.75 us (BDP 159 KB): RTTbytes
 * of 170 KB covers it, as 100 KB covers seed 001's 7.5 us network. */
static const char *const RTT170[] = {"rtt_bytes=170000"};

/* A message that has not started by the end has no Homa state: its
 * flows.csv counters read 0 grants and 0 resends (issue 26: 1 grant for
 * it survived). */
static void test_unstarted_message_counts_nothing(void **state)
{
    (void)state;
    const char *tm = temp_file("Nodes 16\nConnections 2\n1->0 id 1 start 0 size 3000\n2->0 id 2 start 500 size 3000\n",
                               ".cm");
    run(tm, NULL, 100, RTT170, 1, 0, false);
    assert_int_equal(S.flows[1].state, FLOW_WAITING);
    uint64_t out[2] = {7, 7};
    S.flows[1].tp->counters(&S, 1, out);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);
    sim_free(&S);
}

/* One message on an idle network finishes in its idle-network time (the
 * Poisson slowdown's ideal) within 2%: unscheduled (50 KB) and scheduled
 * (2 MB, 1.7 MB of it granted) alike. */
static void test_one_message_in_the_idle_network_time(void **state)
{
    (void)state;
    const char *sizes[2] = {"50000", "2000000"};
    for (int i = 0; i < 2; i++) {
        char cm[128];
        snprintf(cm, sizeof cm, "Nodes 16\nConnections 1\n0->13 start 0 size %s\n", sizes[i]);
        run(temp_file(cm, ".cm"), NULL, 1000, RTT170, 1, 0, true);
        assert_int_equal(S.flows_finished, 1);
        assert_int_equal(S.cfg.n_classes, 8); /* one switch class per priority level */
        const struct flow *f = &S.flows[0];
        double t = (double)(f->rcv_done_ps - f->start_ps), ideal = (double)ideal_delivery_ps(&S, f);
        if (t > 1.02 * ideal || t < ideal)
            fail_msg("%s B: %.3f us, idle-network time %.3f us", sizes[i], t / PS_PER_US, ideal / PS_PER_US);
        assert_int_equal(S.tot.rtx_pkts_sent, 0);
        check_packet_conservation(&S);
        sim_free(&S);
    }
}

/* 15 senders, 500 KB each, into one host: every byte arrives, nothing is
 * sent twice, and the downlink stays busy (the last byte within 3% of all
 * the wire bytes at line rate plus one base RTT). */
static void test_incast_delivers_everything_and_fills_the_downlink(void **state)
{
    (void)state;
    char cm[2048];
    int n = snprintf(cm, sizeof cm, "Nodes 16\nConnections 15\n");
    for (int i = 0; i < 15; i++)
        n += snprintf(cm + n, sizeof cm - (size_t)n, "%d->15 start 0 size 500000\n", i);
    run(temp_file(cm, ".cm"), NULL, 3000, RTT170, 1, 0, true);
    assert_int_equal(S.flows_finished, 15);
    simtime_ps last = 0;
    for (uint32_t i = 0; i < 15; i++) {
        assert_true(S.flows[i].rcv_complete);
        assert_int_equal(homa_rcv_payload_bytes(&S, i), 500000);
        if (S.flows[i].rcv_done_ps > last)
            last = S.flows[i].rcv_done_ps;
    }
    assert_int_equal(S.tot.rtx_pkts_sent, 0);
    uint64_t pkts = 500000 / MSS + 1, wire = 15 * (500000 + pkts * 64);
    double busy = (double)wire * 8 / 100e9 * 1e12;
    if ((double)last > 1.03 * busy + (double)S.base_rtt_ps)
        fail_msg("last byte at %.3f us; the downlink needs %.3f us", (double)last / PS_PER_US, busy / PS_PER_US);
    check_packet_conservation(&S);
    sim_free(&S);
}

/* Priorities at work: a 20 KB message to a host that seven 2 MB messages
 * keep busy (about six RTTbytes queued at its downlink) arrives in its
 * unscheduled priority ahead of the scheduled data: within 1.3 x its
 * idle-network time, where the queue alone would add about 80 us. */
static void test_short_message_overtakes_scheduled_data(void **state)
{
    (void)state;
    char cm[2048];
    int n = snprintf(cm, sizeof cm, "Nodes 16\nConnections 8\n");
    for (int i = 0; i < 7; i++)
        n += snprintf(cm + n, sizeof cm - (size_t)n, "%d->15 start 0 size 2000000\n", i);
    snprintf(cm + n, sizeof cm - (size_t)n, "8->15 start 100 size 20000\n");
    run(temp_file(cm, ".cm"), NULL, 3000, RTT170, 1, 0, true);
    assert_int_equal(S.flows_finished, 8);
    const struct flow *f = &S.flows[7];
    double t = (double)(f->rcv_done_ps - f->start_ps), ideal = (double)ideal_delivery_ps(&S, f);
    if (t > 1.3 * ideal)
        fail_msg("20 KB behind the incast: %.3f us, idle-network time %.3f us", t / PS_PER_US, ideal / PS_PER_US);
    sim_free(&S);
}

/* One sender with 40 unscheduled messages to one receiver, all ready at 0,
 * given in a shuffled order: its SRPT queue (a heap, grown past its first
 * 16 slots) sends them shortest first, so they are delivered in the order
 * of their sizes (issue 26: the heap's parent and child arithmetic and its
 * growth, mutated, went unnoticed with fewer messages per sender). */
static void test_sender_srpt_over_many_messages(void **state)
{
    (void)state;
    enum { N = 40 };
    char cm[4096];
    int n = snprintf(cm, sizeof cm, "Nodes 16\nConnections %d\n", N);
    for (int i = 0; i < N; i++)
        n += snprintf(cm + n, sizeof cm - (size_t)n, "0->15 start 0 size %d\n", ((i * 17) % N + 1) * MSS);
    run(temp_file(cm, ".cm"), NULL, 3000, RTT170, 1, 0, true);
    assert_int_equal(S.flows_finished, N);
    for (uint32_t a = 0; a < S.n_flows; a++)
        for (uint32_t b = 0; b < S.n_flows; b++)
            if (S.flows[a].size_bytes < S.flows[b].size_bytes && S.flows[a].rcv_done_ps >= S.flows[b].rcv_done_ps)
                fail_msg("%llu B delivered at %.3f us, not before %llu B at %.3f us",
                         (unsigned long long)S.flows[a].size_bytes, (double)S.flows[a].rcv_done_ps / PS_PER_US,
                         (unsigned long long)S.flows[b].size_bytes, (double)S.flows[b].rcv_done_ps / PS_PER_US);
    sim_free(&S);
}

/* A short open-loop run (WKb at 50% on 16 hosts) finishes: every message
 * delivered, the load achieved, packets conserved. */
static void test_short_poisson_run_finishes(void **state)
{
    (void)state;
    char w[1024];
    const char *cdf = shared_path("workloads/facebook_hadoop.cdf");
    if (access(cdf, R_OK))
        skip();
    snprintf(w, sizeof w, "poisson:cdf=%s,load=0.5,n=16,stop_us=300", cdf);
    run(NULL, w, 5000, RTT170, 1, 0, true);
    assert_true(S.n_flows > 50);
    assert_int_equal(S.flows_finished, S.n_flows);
    struct poisson_stats ps;
    poisson_collect(&S, &ps);
    assert_int_equal(ps.delivered, ps.measured);
    assert_true(ps.goodput_gbps_mean > 0);
    check_packet_conservation(&S);
    simtime_ps first_end = S.now;
    uint32_t flows = S.n_flows;
    sim_free(&S);
    /* one seed, one run */
    run(NULL, w, 5000, RTT170, 1, 0, true);
    assert_int_equal(S.n_flows, flows);
    assert_int_equal(S.now, first_end);
    sim_free(&S);
}

/* With 8-packet queues and no trimming the incast loses packets; receivers'
 * RESENDs (a 50 us timeout here) recover every byte. */
static void test_resend_recovers_losses(void **state)
{
    (void)state;
    char cm[2048];
    int n = snprintf(cm, sizeof cm, "Nodes 16\nConnections 8\n");
    for (int i = 0; i < 8; i++)
        n += snprintf(cm + n, sizeof cm - (size_t)n, "%d->15 start 0 size 300000\n", i);
    const char *const opts[2] = {"rtt_bytes=170000", "timeout_us=50"};
    run(temp_file(cm, ".cm"), NULL, 20000, opts, 2, 8, false);
    assert_true(S.tot.data_drops > 0);
    assert_true(S.tot.rtx_pkts_sent > 0);
    assert_int_equal(S.flows_finished, 8);
    for (uint32_t i = 0; i < 8; i++)
        assert_int_equal(homa_rcv_payload_bytes(&S, i), 300000);
    check_packet_conservation(&S);
    sim_free(&S);
}

/* An error message is cut to the buffer it is given and nothing past it
 * is written: a 24-byte buffer inside a larger one keeps the bytes after
 * it (issue 26: vsnprintf told the room was errlen + n, not errlen - n,
 * wrote past the end unnoticed with the usual 256-byte buffers). */
static void test_option_error_fits_its_buffer(void **state)
{
    (void)state;
    char buf[128];
    memset(buf, 'X', sizeof buf);
    struct homa_params p;
    homa_params_default(&p, MSS);
    const char *o[1] = {"levels=99"};
    assert_false(homa_params_parse(&p, o, 1, buf, 24));
    assert_int_equal(strlen(buf), 23);
    assert_int_equal(strncmp(buf, "--homa-opt levels=99: o", 23), 0);
    for (size_t i = 24; i < sizeof buf; i++)
        if (buf[i] != 'X')
            fail_msg("byte %zu past the 24-byte buffer written", i);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_option_error_fits_its_buffer),
        cmocka_unit_test(test_defaults_give_no_cutoffs),
        cmocka_unit_test(test_unscheduled_prefix_is_rtt_bytes),
        cmocka_unit_test(test_scheduled_level_from_rank),
        cmocka_unit_test(test_unscheduled_level_from_cutoffs),
        cmocka_unit_test(test_cutoffs_wka_as_the_spec_computes),
        cmocka_unit_test(test_cutoffs_from_step_cdf_at_a_plateau),
        cmocka_unit_test(test_cutoffs_from_sizes_split_unscheduled_bytes),
        cmocka_unit_test(test_options_checked),
        cmocka_unit_test(test_options_at_both_ends),
        cmocka_unit_test(test_grants_go_to_the_k_shortest),
        cmocka_unit_test(test_schedule_grows_past_its_first_capacity),
        cmocka_unit_test(test_srpt_ties_follow_message_order_not_slot),
        cmocka_unit_test(test_one_granted_message_per_sender),
        cmocka_unit_test(test_fully_granted_message_makes_room),
        cmocka_unit_test(test_unscheduled_message_needs_no_grant),
        cmocka_unit_test(test_unstarted_message_counts_nothing),
        cmocka_unit_test(test_one_message_in_the_idle_network_time),
        cmocka_unit_test(test_incast_delivers_everything_and_fills_the_downlink),
        cmocka_unit_test(test_short_message_overtakes_scheduled_data),
        cmocka_unit_test(test_sender_srpt_over_many_messages),
        cmocka_unit_test(test_short_poisson_run_finishes),
        cmocka_unit_test(test_resend_recovers_losses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
