/* test_hpcc.c: HPCC over RoCE (src/transport/hpcc.h). The window update
 * step by step against the paper's equations (Li et al., SIGCOMM 2019,
 * Algorithm 1): U from two INT samples of one hop, the largest hop's u'
 * with its tau, W when U > eta, additive stages up to maxStage and then the
 * multiplicative step that resets them, Wc moving once per RTT; INT stamped
 * at a hand-built switch port and echoed into the ACK; a hop stamped by
 * another port than last time gives no rate; end to end, the reference's
 * htsim_hpcc tails within 10% on its three cases and a 4-to-1 incast, and
 * sprayed runs that finish (that incast under 2x the reference).
 */
#include "testutil.h"

#include "cc/cc.h"
#include "sim.h"
#include "simtest.h"
#include "transport/flow.h"
#include "transport/hpcc.h"
#include "transport/roce.h"
#include "transport/transport.h"

#include <math.h>

static struct sim S;

#define LINE 100000.0                /* Mb/s */
#define T_PS (12 * PS_PER_US)        /* HPCC_T_US */
#define MTU 9000u
#define B_BYTES_PER_S (LINE * 1e6 / 8.0)

static struct hpcc_int rec(uint64_t tx, double ts_us, uint32_t q)
{
    return (struct hpcc_int){
        .tx_bytes = tx, .ts_ps = (simtime_ps)(ts_us * PS_PER_US), .qlen_bytes = q, .rate_mbps = (uint32_t)LINE};
}

/* W_init = B*T = 150 000 B at 100 Gb/s and 12 us; U starts at eta. */
static void test_init(void **st)
{
    (void)st;
    struct hpcc_state h;
    hpcc_init(&h, LINE, T_PS, MTU);
    assert_float_equal(h.w_bytes, 150000.0, 1e-6);
    assert_float_equal(h.wc_bytes, 150000.0, 1e-6);
    assert_float_equal(h.w_ai_bytes, MTU, 0);
    assert_float_equal(h.U, HPCC_ETA, 0);
    assert_float_equal(hpcc_rate_mbps(&h), LINE, 1e-6); /* W/T = B */
}

/* One hop, two samples 6 us apart. The first ACK only stores L. Second:
 * txRate = 75 000 B / 6 us = B, min(qlen) = 30 000 B, so
 * u = 30000/(B*T) + 1 = 0.2 + 1 = 1.2; tau = 6 us = T/2, so
 * U = 0.5*0.95 + 0.5*1.2 = 1.075 > eta: W = Wc/(U/eta) + W_AI. The ACK
 * is past lastUpdateSeq: Wc = W, lastUpdateSeq = snd_nxt. A later ACK below
 * snd_nxt moves W but not Wc. */
static void test_u_from_two_samples_and_w_above_eta(void **st)
{
    (void)st;
    struct hpcc_state h;
    hpcc_init(&h, LINE, T_PS, MTU);
    struct hpcc_int a = rec(1000000, 10, 30000);
    double W = hpcc_on_ack(&h, 1, 17, &a, 1);
    assert_float_equal(h.U, 0.95, 0);              /* first sample: U unchanged */
    assert_int_equal(h.n_hops, 1);
    /* U = eta, incStage 0 < maxStage: the first branch anyway (U >= eta): W = Wc/1 + W_AI */
    assert_float_equal(W, 150000.0 + MTU, 1e-6);
    assert_float_equal(h.wc_bytes, W, 0);
    assert_int_equal(h.last_update_seq, 17);

    struct hpcc_int b = rec(1000000 + 75000, 16, 45000);
    double u = 30000.0 / (B_BYTES_PER_S * 12e-6) + (75000.0 / 6e-6) / B_BYTES_PER_S;
    assert_float_equal(u, 1.2, 1e-12);
    double U = 0.5 * 0.95 + 0.5 * u;
    double wc = h.wc_bytes;
    W = hpcc_on_ack(&h, 18, 40, &b, 1);
    assert_float_equal(h.U, U, 1e-12);
    assert_float_equal(W, wc / (U / HPCC_ETA) + MTU, 1e-6);
    assert_float_equal(h.wc_bytes, W, 0);
    assert_int_equal(h.inc_stage, 0);
    assert_int_equal(h.last_update_seq, 40);
    assert_true(W < wc); /* above eta the window shrinks */

    /* within the same RTT: W from the same Wc, Wc kept */
    struct hpcc_int c = rec(1000000 + 75000 + 75000, 22, 45000);
    wc = h.wc_bytes;
    double U0 = h.U;
    u = 45000.0 / (B_BYTES_PER_S * 12e-6) + 1.0; /* 1.3 */
    U = 0.5 * U0 + 0.5 * u;
    W = hpcc_on_ack(&h, 25, 60, &c, 1);
    assert_float_equal(h.U, U, 1e-12);
    assert_float_equal(W, wc / (U / HPCC_ETA) + MTU, 1e-6);
    assert_float_equal(h.wc_bytes, wc, 0);
    assert_int_equal(h.last_update_seq, 40);
    assert_float_equal(hpcc_rate_mbps(&h), W * 8.0 / 12e-6 / 1e6, 1e-6);
}

/* Two hops: the larger u' wins and brings its own tau; tau is capped at T,
 * and with tau = T the new U is that u' alone. */
static void test_largest_hop_and_tau_cap(void **st)
{
    (void)st;
    struct hpcc_state h;
    hpcc_init(&h, LINE, T_PS, MTU);
    struct hpcc_int a[2] = {rec(0, 0, 0), rec(0, 1, 0)};
    hpcc_measure_inflight(&h, a, 2);
    /* hop 0: 20 us later at half rate, no queue: u' = 0.5 (tau 20 us -> T);
     * hop 1: 3 us later at full rate: u' = 1.0, tau 3 us */
    struct hpcc_int b[2] = {rec(125000, 20, 0), rec(37500, 4, 0)};
    double U = hpcc_measure_inflight(&h, b, 2);
    assert_float_equal(U, 0.75 * 0.95 + 0.25 * 1.0, 1e-12);
    /* now hop 0 is the larger (full rate plus a queue) and 30 us later */
    struct hpcc_int c[2] = {rec(125000 + 375000, 50, 15000), rec(37500 + 1000, 14, 0)};
    U = hpcc_measure_inflight(&h, c, 2);
    assert_float_equal(U, 0.0 / 150000.0 + 1.0, 1e-12); /* min(qlen) = min(15000, 0) = 0; tau = T */
    /* a path with another hop count only resets L */
    struct hpcc_int d = rec(0, 60, 0);
    assert_float_equal(hpcc_measure_inflight(&h, &d, 1), U, 0);
    assert_int_equal(h.n_hops, 1);
}

/* A sprayed flow's consecutive ACKs cross different ports at one hop
 * position: two ports' byte counters do not subtract (port 7's counter
 * below port 3's wrapped to ~1e19 B and U to ~1e14 before this rule, which
 * held W at W_AI), so that hop gives no sample while the hops stamped by one
 * port still do; the new records become L either way. */
static void test_samples_of_another_port_give_no_rate(void **st)
{
    (void)st;
    struct hpcc_state h;
    hpcc_init(&h, LINE, T_PS, MTU);
    struct hpcc_int a[2] = {rec(0, 0, 0), rec(900000, 1, 0)};
    a[0].port = 1;
    a[1].port = 3;
    hpcc_measure_inflight(&h, a, 2);
    /* hop 0 (port 1 again): half rate for 6 us, u' = 0.5, tau = T/2;
     * hop 1 (port 7 now, its counter far below port 3's): no sample */
    struct hpcc_int b[2] = {rec(37500, 6, 0), rec(1000, 7, 60000)};
    b[0].port = 1;
    b[1].port = 7;
    double U = hpcc_measure_inflight(&h, b, 2);
    assert_float_equal(U, 0.5 * 0.95 + 0.5 * 0.5, 1e-12);
    assert_int_equal(h.L[1].port, 7);
    /* no hop stamped by the same port twice: U stays */
    struct hpcc_int c[2] = {rec(0, 12, 0), rec(500, 13, 0)};
    c[0].port = 2;
    c[1].port = 3;
    assert_float_equal(hpcc_measure_inflight(&h, c, 2), U, 0);
}

/* Below eta: W = Wc + W_AI, incStage++ on each Wc update, maxStage of them;
 * then the multiplicative step W = Wc/(U/eta) + W_AI, incStage back to 0.
 * Updates without updateWc change neither Wc nor incStage. */
static void test_additive_stages_then_reset(void **st)
{
    (void)st;
    struct hpcc_state h;
    hpcc_init(&h, LINE, T_PS, MTU);
    double wc = h.wc_bytes, U = 0.5;
    for (uint32_t k = 1; k <= HPCC_MAX_STAGE; k++) {
        double W = hpcc_compute_wind(&h, U, false);
        assert_float_equal(W, wc + MTU, 1e-9);
        assert_int_equal(h.inc_stage, k - 1);
        W = hpcc_compute_wind(&h, U, true);
        assert_float_equal(W, wc + MTU, 1e-9);
        assert_int_equal(h.inc_stage, k);
        wc += MTU;
        assert_float_equal(h.wc_bytes, wc, 1e-9);
    }
    assert_int_equal(h.inc_stage, HPCC_MAX_STAGE);
    double W = hpcc_compute_wind(&h, U, true);
    assert_float_equal(W, wc / (U / HPCC_ETA) + MTU, 1e-9);
    assert_int_equal(h.inc_stage, 0);
    assert_float_equal(h.wc_bytes, W, 0);
    /* and additive again */
    assert_float_equal(hpcc_compute_wind(&h, U, true), W + MTU, 1e-9);
    assert_int_equal(h.inc_stage, 1);
}

/* ---- INT on a hand-built port --------------------------------------------------------------- */

static void setup_run(const char *tm, double end_us, bool hpcc)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = tm;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.progress = false;
    c.transport_name = "roce";
    c.paths = 1;
    c.lb_name = "single";
    c.pfc_flag = -1;
    if (hpcc)
        config_add_flag(&c, "-hpcc", NULL, NULL);
    sim_setup(&S, &c);
}

static const char *two_to_one_cm(void)
{
    return temp_file("Nodes 16\nConnections 2\n1->0 id 1 start 0 size 4000000\n5->0 id 2 start 0 size 4000000\n",
                     ".cm");
}

static uint32_t data_packet(uint32_t ingress_port)
{
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = PKT_DATA;
    p->prio = PKT_PRIO_DATA;
    p->size_bytes = S.cfg.mtu_bytes;
    p->src_host = 1;
    p->dst_host = 0;
    p->ingress_port = ingress_port;
    hpcc_int_clear(roce_hpcc_int(&S), idx);
    return idx;
}

/* Three data packets queued at the ToR port down to host 0: each leaves
 * with one record of the bytes queued then (itself included), the port's
 * transmitted bytes before it, the time and the link rate; the receiver's
 * copy goes into the ACK's row. Without -hpcc there is no table. */
static void test_int_stamped_at_egress(void **st)
{
    (void)st;
    setup_run(two_to_one_cm(), 1000, false);
    assert_null(roce_hpcc_int(&S));
    sim_free(&S);

    setup_run(two_to_one_cm(), 1000, true);
    assert_non_null(roce_hpcc_int(&S));
    uint32_t from = S.hosts[1].nic_port, out = S.switches[0].first_port;
    uint32_t mtu = S.cfg.mtu_bytes;
    S.ports[out].st.tx_bytes = 5000; /* earlier traffic */
    uint32_t d[3];
    for (int k = 0; k < 3; k++) {
        d[k] = data_packet(from);
        port_enqueue(&S, out, d[k]);
    }
    for (int k = 0; k < 3; k++) {
        S.now = (simtime_ps)(k + 1) * PS_PER_US;
        assert_int_equal(S.ports[out].in_service, d[k]);
        port_tx_done(&S, out);
        uint32_t n;
        const struct hpcc_int *r = hpcc_int_of(roce_hpcc_int(&S), d[k], &n);
        assert_int_equal(n, 1);
        assert_int_equal(r[0].qlen_bytes, (3 - k) * mtu);
        assert_int_equal(r[0].tx_bytes, 5000 + (uint64_t)k * mtu);
        assert_int_equal(r[0].ts_ps, (simtime_ps)(k + 1) * PS_PER_US);
        assert_int_equal(r[0].rate_mbps, S.ports[out].rate_mbps);
        assert_int_equal(r[0].port, out);
    }
    /* a second hop appends */
    S.now = 9 * PS_PER_US;
    hpcc_int_stamp(&S, roce_hpcc_int(&S), from, d[0], 0);
    uint32_t n;
    const struct hpcc_int *r = hpcc_int_of(roce_hpcc_int(&S), d[0], &n);
    assert_int_equal(n, 2);
    assert_int_equal(r[1].ts_ps, 9 * PS_PER_US);
    assert_int_equal(r[1].tx_bytes, S.ports[from].st.tx_bytes);
    assert_int_equal(r[1].port, from);
    /* the receiver keeps them; the ACK, even in the same pool slot, carries them */
    hpcc_int_save(roce_hpcc_int(&S), d[0]);
    pkt_release(&S.pool, d[0]);
    uint32_t a = pkt_alloc(&S.pool);
    pkt_at(&S.pool, a)->type = PKT_ACK;
    hpcc_int_echo(roce_hpcc_int(&S), a);
    const struct hpcc_int *e = hpcc_int_of(roce_hpcc_int(&S), a, &n);
    assert_int_equal(n, 2);
    assert_int_equal(e[0].qlen_bytes, 3 * mtu);
    assert_int_equal(e[1].ts_ps, 9 * PS_PER_US);
    /* control packets get no records at egress */
    hpcc_int_stamp(&S, roce_hpcc_int(&S), out, a, 0);
    hpcc_int_of(roce_hpcc_int(&S), a, &n);
    assert_int_equal(n, 2);
    pkt_release(&S.pool, a);
    sim_free(&S);
}

/* ---- end to end against htsim_hpcc --------------------------------------------------------- */

static double tail_us(void)
{
    simtime_ps m = 0;
    for (uint32_t i = 0; i < S.n_flows; i++) {
        assert_int_equal(S.flows[i].state, FLOW_DONE);
        if (S.flows[i].finish_ps - S.flows[i].start_ps > m)
            m = S.flows[i].finish_ps - S.flows[i].start_ps;
    }
    return (double)m / PS_PER_US;
}

/* htsim_hpcc -strat ecmp_host -paths 1 -nodes N -end 10000, measured on
 * this machine (docs/models.md "Lossless RoCEv2"): 2to1 698.2 us, incast 2495.7 us;
 * perm_128 varies from run to run (htsim seeds its path choice from the
 * clock): 728.0, 730.0, 751.8, 1005.8 here, 847.8 in
 * reference-simulator.md; the test takes the median of those five, 751.8.
 * No drops, no retransmissions. */
static void test_reference_tails(void **st)
{
    (void)st;
    const char *cms[3] = {two_to_one_cm(), shared_path("htsim/matrices/incast.cm"),
                          shared_path("htsim/matrices/perm_128n_128c_2MB.cm")};
    const double ref_us[3] = {698.2, 2495.7, 751.8};
    for (int k = 0; k < 3; k++) {
        setup_run(cms[k], 10000, true);
        sim_run(&S);
        double t = tail_us();
        if (fabs(t - ref_us[k]) > 0.1 * ref_us[k])
            fail_msg("case %d: tail %.1f us, reference %.1f", k, t, ref_us[k]);
        assert_int_equal(S.tot.data_drops, 0);
        assert_int_equal(S.tot.rtx_pkts_sent, 0);
        check_packet_conservation(&S);
        sim_free(&S);
    }
}

/* The 4-to-1 incast 0,1,2,3 -> 5, 2 MB each (all four senders in another
 * pod, two per ToR). htsim_hpcc -strat ecmp_host -paths 1 -nodes 16 -end
 * 10000, eleven runs on this machine (its path choice moves with the
 * clock): 694.7, 696.5, 698.9, 700.1, 704.3, 708.7, 712.2 and 721.9 four
 * times; the median 708.7. With one path per flow spraysim is within 10%.
 * Sprayed (the default 64 paths, lb mixed: htsim_hpcc never sprays) the
 * tail was 5555.7 us while HPCC compared two ports' counters (see
 * test_samples_of_another_port_give_no_rate); now go-back-N on reordering
 * is what remains (1280.4 us), so it must stay under 2x the reference. */
static void test_four_to_one_incast(void **st)
{
    (void)st;
    const char *cm = temp_file("Nodes 16\nConnections 4\n0->5 start 0 size 2000000\n1->5 start 0 size 2000000\n"
                               "2->5 start 0 size 2000000\n3->5 start 0 size 2000000\n",
                               ".cm");
    const double ref_us = 708.7;
    setup_run(cm, 10000, true);
    sim_run(&S);
    double t = tail_us();
    if (fabs(t - ref_us) > 0.1 * ref_us)
        fail_msg("4-to-1, one path: tail %.1f us, reference %.1f", t, ref_us);
    assert_int_equal(S.tot.data_drops, 0);
    assert_int_equal(S.tot.rtx_pkts_sent, 0);
    check_packet_conservation(&S);
    sim_free(&S);

    struct config c;
    config_defaults(&c);
    c.tm_path = cm;
    c.end_ps = (simtime_ps)(10000 * PS_PER_US);
    c.progress = false;
    c.transport_name = "roce";
    c.pfc_flag = -1;
    config_add_flag(&c, "-hpcc", NULL, NULL);
    assert_true(c.paths > 1); /* sprayed */
    sim_setup(&S, &c);
    sim_run(&S);
    t = tail_us();
    if (t > 2 * ref_us)
        fail_msg("4-to-1, sprayed over %u paths: tail %.1f us, more than twice the reference's %.1f", c.paths, t,
                 ref_us);
    assert_int_equal(S.tot.data_drops, 0);
    check_packet_conservation(&S);
    sim_free(&S);
}

/* Sprayed 2-to-1s into host 5 (senders under one ToR; in two pods): after
 * a go-back-N the resent originals can be acknowledged past next_seq; the
 * window's packets in flight (next_seq - acked, unsigned) wrapped, the
 * window never reopened and one flow (both, in two pods) stalled for good.
 * Every flow must finish, with nothing dropped. */
static void test_sprayed_flows_finish(void **st)
{
    (void)st;
    const char *cms[2] = {
        temp_file("Nodes 16\nConnections 2\n0->5 start 0 size 4000000\n1->5 start 0 size 4000000\n", ".cm"),
        temp_file("Nodes 16\nConnections 2\n0->5 start 0 size 4000000\n8->5 start 0 size 4000000\n", ".cm")};
    for (int k = 0; k < 2; k++) {
        struct config c;
        config_defaults(&c);
        c.tm_path = cms[k];
        c.end_ps = (simtime_ps)(10000 * PS_PER_US);
        c.progress = false;
        c.transport_name = "roce";
        c.pfc_flag = -1;
        config_add_flag(&c, "-hpcc", NULL, NULL);
        c.paths_given = true; /* sprayed on purpose (-paths 64): RoCE's default is one path */
        sim_setup(&S, &c);
        sim_run(&S);
        assert_int_equal(S.flows_finished, S.n_flows);
        assert_true(S.tot.rtx_pkts_sent > 0); /* it did go back */
        assert_int_equal(S.tot.data_drops, 0);
        check_packet_conservation(&S);
        sim_free(&S);
    }
}

/* HPCC behind the CC interface (cc_hpcc_ops): W and R published, NewAck
 * on the ACK's records, the completing ACK ignored, and the once-per-RTT
 * marker restarting with a new message. */
static void test_hpcc_cc_module(void **st)
{
    (void)st;
    const struct cc_ops *cc = cc_find("hpcc");
    assert_non_null(cc);
    struct cc_params cp = {.linkspeed_mbps = 100000, .mtu_bytes = 4150, .mss_bytes = 4086};
    void *stt = xcalloc(1, cc->state_size);
    cc->init(stt, &cp);
    struct hpcc_state ref;
    hpcc_init(&ref, 100000, (simtime_ps)(HPCC_T_US * PS_PER_US), 4150);
    assert_true(cc_rate_of(stt)->window_bytes == ref.w_bytes && cc_rate_of(stt)->rate_mbps == hpcc_rate_mbps(&ref));
    struct hpcc_int h1 = {.tx_bytes = 0, .ts_ps = 0, .qlen_bytes = 60000, .rate_mbps = 100000, .port = 3};
    struct hpcc_int h2 = {.tx_bytes = 125000, .ts_ps = 10 * PS_PER_US, .qlen_bytes = 60000, .rate_mbps = 100000, .port = 3};
    struct cc_rate_ack a = {.ack_seq = 1, .snd_nxt = 10, .hops = &h1, .n_hops = 1};
    cc->on_rate_ack(stt, &a);
    hpcc_on_ack(&ref, 1, 10, &h1, 1);
    a.ack_seq = 2;
    a.hops = &h2;
    cc->on_rate_ack(stt, &a);
    hpcc_on_ack(&ref, 2, 10, &h2, 1);
    assert_true(ref.w_bytes < 150000); /* the queue made it cut */
    assert_true(cc_rate_of(stt)->window_bytes == ref.w_bytes && cc_rate_of(stt)->rate_mbps == hpcc_rate_mbps(&ref));
    double w = cc_rate_of(stt)->window_bytes;
    struct hpcc_int h3 = {.tx_bytes = 250000, .ts_ps = 20 * PS_PER_US, .qlen_bytes = 120000, .rate_mbps = 100000, .port = 3};
    a.ack_seq = 11;
    a.hops = &h3; /* would cut W further, were it not the last */
    a.completes = true;
    cc->on_rate_ack(stt, &a);
    assert_true(cc_rate_of(stt)->window_bytes == w);
    cc->on_new_message(stt, 0);
    assert_int_equal(((const struct hpcc_state *)((const char *)stt + sizeof(struct cc_rate)))->last_update_seq, 0);
    free(stt);
}

/* The per-packet INT table grows to cover any packet index it is given:
 * records put at the first index past its capacity, and one past that,
 * come back whole, and the capacity then covers them (issue 26: growing to
 * idx - 1 instead of idx + 1 left both just outside the table). */
static void test_int_table_grows_to_cover_index(void **st)
{
    (void)st;
    struct hpcc_int_table *t = hpcc_int_new(16);
    uint32_t cap0 = t->capacity;
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t idx = t->capacity + k;
        struct hpcc_int r[2] = {rec(1000 + idx, 1, idx), rec(2000 + idx, 2, idx)};
        hpcc_int_put(t, idx, r, 2);
        if (t->capacity <= idx)
            fail_msg("put at %u: capacity %u (started at %u)", idx, t->capacity, cap0);
        uint32_t n = 0;
        const struct hpcc_int *got = hpcc_int_of(t, idx, &n);
        assert_int_equal(n, 2);
        assert_int_equal(got[0].tx_bytes, 1000 + idx);
        assert_int_equal(got[1].tx_bytes, 2000 + idx);
    }
    /* the rows the growth added and nobody wrote hold no records */
    uint32_t n = 7;
    assert_null(hpcc_int_of(t, t->capacity - 1, &n));
    assert_int_equal(n, 0);
    hpcc_int_delete(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_int_table_grows_to_cover_index),
        cmocka_unit_test(test_u_from_two_samples_and_w_above_eta),
        cmocka_unit_test(test_largest_hop_and_tau_cap),
        cmocka_unit_test(test_samples_of_another_port_give_no_rate),
        cmocka_unit_test(test_additive_stages_then_reset),
        cmocka_unit_test(test_int_stamped_at_egress),
        cmocka_unit_test(test_reference_tails),
        cmocka_unit_test(test_four_to_one_incast),
        cmocka_unit_test(test_sprayed_flows_finish),
        cmocka_unit_test(test_hpcc_cc_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
