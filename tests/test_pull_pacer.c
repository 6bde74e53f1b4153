/* test_pull_pacer.c: the receiver's pull pacer (src/transport/pull_pacer.c)
 * driven tick by tick: EQDS's rate (a 4 KB pull every 0.99 x the time of a
 * 4198-byte frame) and UET's (the credit granted, at 0.99 of the line rate),
 * retransmissions pulled first, round robin among active senders, idle
 * senders capped at one window of speculative credit, the pacer stopping
 * when nobody needs it, and the two rate controls. The simulation around it
 * is set up but never run: each test calls the pacer itself and reads the
 * tick it scheduled from the event queue.
 */
#include "testutil.h"

#include "net/net.h"
#include "sim.h"
#include "transport/eqds.h"
#include "transport/flow.h"
#include "transport/pull_pacer.h"
#include "transport/uet.h"

#include <math.h>

static struct sim S;
static struct pull_client C[4];

/* Four senders (flows 0..3) into host 0; the flows never start. */
/* -planes for the next setup (0: one plane) */
static uint32_t setup_planes;

static void setup(const char *transport, bool receiver_cc)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 4\n1->0 start 0 size 1000000\n2->0 start 0 size 1000000\n"
                          "3->0 start 0 size 1000000\n4->0 start 0 size 1000000\n",
                          ".cm");
    c.transport_name = transport;
    if (receiver_cc)
        c.receiver_cc = 1;
    c.planes = setup_planes ? setup_planes : 1;
    sim_setup(&S, &c);
    memset(C, 0, sizeof C);
}

static void teardown(void)
{
    sim_free(&S);
}

/* The pacers under test see the receiver state of flow i in C[i]. */
static struct pull_client *test_client(struct sim *s, uint32_t fi)
{
    (void)s;
    return &C[fi];
}

/* The transport's pacer configuration, pointed at C. */
static const struct pull_pacer_cfg *our_cfg(const struct pull_pacer_cfg *cfg)
{
    static struct pull_pacer_cfg k;
    k = *cfg;
    k.client_of = test_client;
    return &k;
}

struct latest_tick {
    uint32_t kind;
    simtime_ps t;
    uint32_t n;
};

static void find_tick(const struct event *e, void *ctx)
{
    struct latest_tick *k = ctx;
    if (e->kind == EV_TRANSPORT_TIMER && e->aux == k->kind) {
        k->n++;
        if (e->time_ps > k->t)
            k->t = e->time_ps;
    }
}

/* Time of the latest tick the pacer scheduled (the ticks are never run). */
static simtime_ps last_tick(uint32_t kind)
{
    struct latest_tick k = {kind, 0, 0};
    eq_visit(&S.eq, find_tick, &k);
    assert_true(k.n > 0);
    return k.t;
}

static uint32_t ticks_scheduled(uint32_t kind)
{
    struct latest_tick k = {kind, 0, 0};
    eq_visit(&S.eq, find_tick, &k);
    return k.n;
}

/* One tick at the time the pacer asked for; returns the flow that got the
 * pull (UINT32_MAX when none did). */
static uint32_t tick(const struct pull_pacer_cfg *cfg, struct pull_pacer *pp)
{
    S.now = last_tick(cfg->timer_kind);
    int64_t before[4];
    for (int i = 0; i < 4; i++)
        before[i] = C[i].latest_q;
    uint64_t pulls = S.tot.pulls_sent;
    pull_pacer_tick(&S, cfg, pp);
    if (S.tot.pulls_sent == pulls)
        return UINT32_MAX;
    for (uint32_t i = 0; i < 4; i++)
        if (C[i].latest_q != before[i])
            return i;
    return UINT32_MAX;
}

/* EQDS: 4 KB per pull, one pull per 0.99 x the serialisation of a frame
 * carrying 4 KB (4096 B + 64 B header + 38 B of Ethernet framing), i.e. the
 * credit arrives at 0.99 of the line rate in such frames. */
static void test_eqds_pulls_4kb_at_099_of_line_rate(void **st)
{
    (void)st;
    setup("eqds", false);
    const struct pull_pacer_cfg *cfg = our_cfg(eqds_pacer_cfg(&S));
    struct pull_pacer *pp = eqds_pacer(&S, 0);
    assert_non_null(cfg);
    assert_int_equal(cfg->quantum_bytes * cfg->per_pull_q, 4096);
    simtime_ps frame = 4198ULL * 8 * PS_PER_US / 100000; /* 335840 ps at 100 Gb/s */
    assert_int_equal(cfg->tick_ps, (simtime_ps)(0.99 * (double)frame));
    S.now = 0;
    pull_target_heard(&S, cfg, pp, 0, 1000);
    assert_true(C[0].in_active);
    assert_int_equal(last_tick(cfg->timer_kind), 0); /* an idle pacer starts at once */
    for (int k = 1; k <= 10; k++) {
        assert_int_equal(tick(cfg, pp), 0);
        assert_int_equal(C[0].latest_q, 8 * k);
        assert_int_equal(last_tick(cfg->timer_kind), (simtime_ps)k * cfg->tick_ps);
    }
    assert_int_equal(S.tot.pulls_sent, 10);
    teardown();
}

/* Retransmission credit goes first, even to a sender that arrived after an
 * active one; two trims owe two MTUs (9 quanta each), paid in three pulls
 * of 8, after which the active sender is served again. */
static void test_retransmissions_are_pulled_first(void **st)
{
    (void)st;
    setup("eqds", false);
    const struct pull_pacer_cfg *cfg = our_cfg(eqds_pacer_cfg(&S));
    struct pull_pacer *pp = eqds_pacer(&S, 0);
    S.now = 0;
    pull_target_heard(&S, cfg, pp, 0, 1000);
    assert_int_equal(tick(cfg, pp), 0);
    pull_request_rtx(&S, cfg, pp, 1, 9);
    pull_request_rtx(&S, cfg, pp, 1, 9); /* owed more: queued once */
    assert_int_equal(pp->rtx.len, 1);
    assert_int_equal(C[1].rtx_backlog_q, 18);
    assert_int_equal(tick(cfg, pp), 1);
    assert_int_equal(tick(cfg, pp), 1);
    assert_int_equal(tick(cfg, pp), 1);
    assert_int_equal(C[1].rtx_backlog_q, 0);
    assert_int_equal(tick(cfg, pp), 0); /* paid: back to the active sender */
    assert_int_equal(C[1].latest_q, 24);
    /* owed exactly one quantum is owed too: a second request does not queue
     * the flow again (issue 26: 'backlog > 1' queued it twice) */
    assert_int_equal(pp->rtx.len, 0);
    pull_request_rtx(&S, cfg, pp, 2, 1);
    pull_request_rtx(&S, cfg, pp, 2, 1);
    assert_int_equal(pp->rtx.len, 1);
    assert_int_equal(C[2].rtx_backlog_q, 2);
    teardown();
}

/* A retransmitting sender whose target rose while it was owed (so it was
 * not queued as active, pull_target_heard) joins the active queue when its
 * debt is paid, if any demand is left (pull_pacer.h: "the pull target is
 * above what was granted so far"), however small: here exactly one
 * quantum. Owed one pull (8 quanta) and a target of 9: the retransmission
 * pull grants 8, the flow is then active with 1 quantum to go and gets the
 * next pull; only then is its demand met (issue 26: 'demand > 1' left a
 * one-quantum demand unserved and the pacer stopped). */
static void test_one_quantum_left_after_retransmissions_is_pulled(void **st)
{
    (void)st;
    setup("eqds", false);
    const struct pull_pacer_cfg *cfg = our_cfg(eqds_pacer_cfg(&S));
    struct pull_pacer *pp = eqds_pacer(&S, 0);
    assert_int_equal(cfg->per_pull_q, 8);
    S.now = 0;
    pull_request_rtx(&S, cfg, pp, 1, 8);
    pull_target_heard(&S, cfg, pp, 1, 9);
    assert_false(C[1].in_active); /* owed: served as retransmitting first */
    assert_int_equal(tick(cfg, pp), 1);
    assert_int_equal(C[1].rtx_backlog_q, 0);
    assert_int_equal(C[1].latest_q, 8);
    assert_true(C[1].in_active);
    assert_int_equal(pp->active.len, 1);
    assert_int_equal(tick(cfg, pp), 1); /* the last quantum's pull */
    assert_int_equal(C[1].latest_q, 16);
    assert_false(C[1].in_active); /* demand met: idle from now on */
    assert_true(C[1].in_idle);
    teardown();
}

/* Active senders take turns. */
static void test_active_senders_take_turns(void **st)
{
    (void)st;
    setup("eqds", false);
    const struct pull_pacer_cfg *cfg = our_cfg(eqds_pacer_cfg(&S));
    struct pull_pacer *pp = eqds_pacer(&S, 0);
    S.now = 0;
    for (uint32_t i = 0; i < 3; i++)
        pull_target_heard(&S, cfg, pp, i, 1000);
    for (int k = 0; k < 9; k++)
        assert_int_equal(tick(cfg, pp), (uint32_t)(k % 3));
    teardown();
}

/* A sender whose target is met keeps getting pulls as an idle sender until
 * it holds one window (-cwnd, 64 packets) of speculative credit beyond its
 * target; then the pacer has nobody to serve and stops, and the next
 * request starts it again at once. */
static void test_idle_sender_gets_at_most_one_window(void **st)
{
    (void)st;
    setup("eqds", false);
    const struct pull_pacer_cfg *cfg = our_cfg(eqds_pacer_cfg(&S));
    struct pull_pacer *pp = eqds_pacer(&S, 0);
    int64_t window_q = 64 * 4150 / 512; /* 518 quanta */
    assert_int_equal(cfg->idle_cap_q, window_q);
    S.now = 0;
    pull_target_heard(&S, cfg, pp, 0, 16);
    assert_int_equal(tick(cfg, pp), 0);
    assert_int_equal(tick(cfg, pp), 0); /* target met: now idle */
    assert_false(C[0].in_active);
    assert_true(C[0].in_idle);
    int idle_pulls = 0;
    while (tick(cfg, pp) == 0)
        idle_pulls++;
    /* pulls while the slow credit was below the window: 8, 16, ..., 520 */
    assert_int_equal(idle_pulls, (int)((window_q + 7) / 8));
    assert_int_equal(C[0].latest_q - C[0].target_q, 8 * idle_pulls);
    assert_true(C[0].latest_q - C[0].target_q - 8 < window_q);
    assert_false(pp->running);
    uint32_t n = ticks_scheduled(cfg->timer_kind);
    S.now += 5 * PS_PER_US;
    pull_target_heard(&S, cfg, pp, 1, 8);
    assert_true(pp->running);
    assert_int_equal(ticks_scheduled(cfg->timer_kind), n + 1);
    assert_int_equal(last_tick(cfg->timer_kind), S.now);
    teardown();
}

/* UET: an active pull grants at most up to the target (64 quanta = 16 KB
 * at most), the next pull waits as long as the granted credit takes at 0.99
 * of the line rate, and an idle pull grants 16 KB whatever the target. */
static void test_uet_grants_up_to_the_target_at_099_line_rate(void **st)
{
    (void)st;
    setup("uet", true);
    const struct pull_pacer_cfg *cfg = our_cfg(uet_credit_pacer_cfg(&S));
    struct pull_pacer *pp = uet_credit_pacer(&S, 0);
    assert_non_null(cfg);
    assert_int_equal(cfg->quantum_bytes, 256);
    assert_int_equal(cfg->per_pull_q, 64);
    /* 256 B at 99 Gb/s */
    assert_int_equal(cfg->quantum_ps, (simtime_ps)(256.0 * 8 * PS_PER_US / 100000 / 0.99));
    S.now = 0;
    pull_target_heard(&S, cfg, pp, 0, 100);
    assert_int_equal(tick(cfg, pp), 0);
    assert_int_equal(C[0].latest_q, 64);
    assert_int_equal(last_tick(cfg->timer_kind), 64 * cfg->quantum_ps);
    assert_int_equal(tick(cfg, pp), 0);
    assert_int_equal(C[0].latest_q, 100); /* 36 more, not 64 */
    assert_int_equal(last_tick(cfg->timer_kind), 100 * cfg->quantum_ps);
    assert_int_equal(tick(cfg, pp), 0); /* idle: 16 KB of speculative credit */
    assert_int_equal(C[0].latest_q, 164);
    /* 1.5 BDP of speculative credit at most */
    assert_int_equal(cfg->idle_cap_q, (int64_t)(1.5 * (double)S.bdp_bytes) / 256);
    teardown();
}

/* The oversubscribed-tree rate control (htsim oversubscribed_cc.cpp). */
static void test_rate_control_follows_trims_and_marks(void **st)
{
    (void)st;
    setup("uet", true);
    struct pull_pacer_cfg cfg = *our_cfg(uet_credit_pacer_cfg(&S));
    cfg.rate_control = true;
    cfg.min_rate = 0.225;
    struct pull_pacer *pp = uet_credit_pacer(&S, 0);
    pp->timer_flow = 0;
    struct pull_rate_ctl *k = &pp->ctl;
    /* 10 of 100 arrivals trimmed before the last hop: the rate loses 10% */
    k->received = 100;
    k->trimmed_other = 10;
    pull_rate_update(&S, &cfg, pp);
    assert_true(fabs(k->rate - 0.9) < 1e-12);
    assert_int_equal(pp->quantum_ps, (simtime_ps)((double)cfg.quantum_ps / 0.9));
    /* calm updates: +0.01, +0.02, +0.04 ... up to 1 */
    k->received += 100;
    pull_rate_update(&S, &cfg, pp);
    assert_true(fabs(k->rate - 0.91) < 1e-12);
    k->received += 100;
    pull_rate_update(&S, &cfg, pp);
    assert_true(fabs(k->rate - 0.93) < 1e-12);
    /* 80% of whole packets marked: g = 0.4 > 0.3, rate x (1 - 0.05) */
    k->received += 100;
    k->ecn += 80;
    pull_rate_update(&S, &cfg, pp);
    assert_true(fabs(k->g - 0.4) < 1e-12);
    assert_true(fabs(k->rate - 0.93 * 0.95) < 1e-12);
    /* last-hop trims say nothing about the core */
    double r = k->rate;
    k->received += 100;
    k->trimmed_last_hop += 100;
    pull_rate_update(&S, &cfg, pp);
    assert_true(k->g < 0.3);
    assert_true(k->rate > r);
    /* never below the floor */
    k->received += 100;
    k->trimmed_other += 100;
    pull_rate_update(&S, &cfg, pp);
    assert_true(fabs(k->rate - 0.225) < 1e-12);
    /* never above the line rate: calm updates double the step until the
     * rate is capped at 1, and the quantum is then the configured one */
    for (int i = 0; i < 20; i++) {
        k->received += 100;
        pull_rate_update(&S, &cfg, pp);
        assert_true(k->rate <= 1.0);
    }
    assert_true(k->rate == 1.0);
    assert_int_equal(pp->quantum_ps, cfg.quantum_ps);
    teardown();
}

/* EQDS -recv_oversub_cc: with every arrival of the last 10 us congested a
 * pull is skipped with probability 0.9; arrivals older than 10 us count no
 * longer. */
static void test_pulls_skipped_while_arrivals_are_congested(void **st)
{
    (void)st;
    setup("eqds", false);
    struct pull_pacer_cfg cfg = *our_cfg(eqds_pacer_cfg(&S));
    cfg.skip_on_congestion = true;
    struct pull_pacer *pp = eqds_pacer(&S, 0);
    S.now = 0;
    for (int i = 0; i < 50; i++)
        pull_note_arrival(&S, &cfg, pp, 0, true, false, false);
    pull_target_heard(&S, &cfg, pp, 0, 1000000);
    for (int i = 0; i < 1000; i++)
        pull_pacer_tick(&S, &cfg, pp); /* S.now stays: the arrivals stay recent */
    int64_t pulls = C[0].latest_q / 8;
    assert_true(pulls >= 60 && pulls <= 140); /* about 10% of 1000 */
    S.now = 11 * PS_PER_US;
    int64_t before = C[0].latest_q;
    pull_pacer_tick(&S, &cfg, pp);
    assert_int_equal(C[0].latest_q, before + 8);
    teardown();
}

/* -planes N: a NIC receives on N ports, so the receivers' pacers pull N
 * times as fast (htsim's UecPullPacer and EqdsPullPacer take linkspeed x
 * ports): UET's time per 256-byte quantum (at 0.99 of the rate) and EQDS's
 * time per pull, at 1, 2 and 4 planes of 100 Gb/s, are the one-plane
 * values divided by N (within the 1 ps of rounding to whole ps). */
static void test_pull_rate_with_planes(void **st)
{
    (void)st;
    static const uint32_t planes[] = {1, 2, 4};
    simtime_ps uet1 = 0, eqds1 = 0;
    for (size_t i = 0; i < 3; i++) {
        setup_planes = planes[i];
        setup("uet", true);
        assert_int_equal(S.cfg.planes, planes[i]);
        simtime_ps uet = uet_credit_pacer_cfg(&S)->quantum_ps;
        teardown();
        setup("eqds", true);
        simtime_ps eqds = eqds_pacer_cfg(&S)->tick_ps;
        teardown();
        if (i == 0) {
            assert_int_equal(uet, (simtime_ps)(256.0 * 8 * PS_PER_US / 100000 / 0.99));
            uet1 = uet;
            eqds1 = eqds;
        }
        if (llabs((long long)(uet * planes[i]) - (long long)uet1) > (long long)planes[i] ||
            llabs((long long)(eqds * planes[i]) - (long long)eqds1) > (long long)planes[i])
            fail_msg("%u planes: UET quantum %llu ps, EQDS pull %llu ps; one plane: %llu and %llu", planes[i],
                     (unsigned long long)uet, (unsigned long long)eqds, (unsigned long long)uet1,
                     (unsigned long long)eqds1);
    }
    setup_planes = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eqds_pulls_4kb_at_099_of_line_rate),
        cmocka_unit_test(test_retransmissions_are_pulled_first),
        cmocka_unit_test(test_one_quantum_left_after_retransmissions_is_pulled),
        cmocka_unit_test(test_active_senders_take_turns),
        cmocka_unit_test(test_idle_sender_gets_at_most_one_window),
        cmocka_unit_test(test_uet_grants_up_to_the_target_at_099_line_rate),
        cmocka_unit_test(test_pull_rate_with_planes),
        cmocka_unit_test(test_rate_control_follows_trims_and_marks),
        cmocka_unit_test(test_pulls_skipped_while_arrivals_are_congested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
