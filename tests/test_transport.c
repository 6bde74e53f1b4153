/* test_transport.c: the UET transport. Loss recovery: SLEEK on seed 002's
 * worked example (which packets are resent, when recovery ends, the pacing
 * of the scan), probes and requests-to-send breaking stalls, last-hop trims
 * leaving the load balancer's path state alone, the cost of running without
 * trimming. The receiver's ACK rules: the delayed-ACK byte threshold and
 * where the 64-bit SACK bitmap starts. The sender's reading of ACKs: which
 * RTT samples are trusted (Karn), when a SACK hole is a loss, the ECN count.
 * Pacing: a paced flow's packets leave one gap apart, and a window below one
 * packet still lets one out. Most of these drive the transport by hand with
 * a recording congestion control (rec_cc below) instead of a real one.
 */
#include "testutil.h"

#include "lb/lb.h"
#include "sim.h"
#include "topo/failures.h"
#include "transport/flow.h"
#include "transport/transport.h"
#include "transport/uet.h"
#include "transport/uet_internal.h"

#include <math.h>

static struct sim S;

static void setup(const char *cm_text, const char *lb, bool trimming, bool sleek)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(cm_text, ".cm");
    c.trimming = trimming;
    c.sleek = sleek;
    c.lb_name = lb;
    sim_setup(&S, &c);
}

static uint32_t rtx_entry(const struct flow *f, uint32_t i)
{
    return uet_of(f)->rtx_ring[(uet_of(f)->rtx_head + i) & uet_of(f)->rtx_mask];
}

/* Packet q of flow f recorded as sent, by hand (q is its next new packet;
 * the records are a ring, uet.h): its record, to fill in. */
static struct tx_rec *sent_by_hand(struct flow *f, uint32_t q)
{
    struct uet_flow *u = uet_of(f);
    struct tx_rec *t = &u->tx[q & u->tx_mask];
    if (!uet_tx_holds(u, q)) { /* (the flow's start may have sent the first packets for real) */
        u->next_new_seq = q;
        t = uet_tx_claim(u, q);
        u->next_new_seq = q + 1;
    }
    return t;
}

/* Puts flow 0 in the state of seed 002 Sec. 6's example: ten packets sent
 * (example numbers 1..10 are our 0..9), 1 2 4 5 7 8 acknowledged. */
static struct flow *worked_example_state(uint64_t cwnd_pkts)
{
    setup("Nodes 16\nConnections 1\n0->13 start 0 size 40860\n", "mixed", true, true);
    S.now = 0;
    transport_flow_start(&S, 0);
    struct flow *f = &S.flows[0];
    assert_int_equal(f->n_pkts, 10);
    /* take over the sender: nothing is really on the wire in this test */
    uet_of(f)->rtx_len = 0;
    uet_of(f)->in_flight_bytes = 0;
    for (uint32_t q = 0; q < 10; q++) {
        struct tx_rec *t = sent_by_hand(f, q);
        t->state = TX_IN_FLIGHT;
        t->count = 1;
        t->time_ps = 0;
        uet_of(f)->in_flight_bytes += 4150;
    }
    uint32_t acked[] = {0, 1, 3, 4, 6, 7};
    for (size_t i = 0; i < 6; i++) {
        uet_txw(uet_of(f), acked[i])->state = TX_ACKED;
        uet_of(f)->in_flight_bytes -= 4150;
    }
    uet_of(f)->cum_acked = 2;
    ((struct cc_window *)f->cc_state)->cwnd_bytes = cwnd_pkts * 4150;
    S.now = 10 * PS_PER_US;
    return f;
}

static void test_sleek_worked_example(void **st)
{
    (void)st;
    struct flow *f = worked_example_state(16);
    uet_sleek_step(&S, 0, 0); /* no reordering beyond the threshold: nothing happens */
    assert_false(uet_of(f)->sleek_recovery);
    assert_int_equal(uet_of(f)->rtx_len, 0);
    uet_sleek_step(&S, 0, 100); /* far beyond min(1.5 cwnd, maxwnd) */
    assert_true(uet_of(f)->sleek_recovery);
    assert_int_equal(uet_of(f)->sleek_recovery_seq, 9); /* snapshot: highest sent, example's 10 */
    /* example: 3, 6 and 9 queued; 10 (the snapshot itself) is not */
    assert_int_equal(uet_of(f)->rtx_len, 3);
    assert_int_equal(rtx_entry(f, 0), 2);
    assert_int_equal(rtx_entry(f, 1), 5);
    assert_int_equal(rtx_entry(f, 2), 8);
    assert_int_equal(uet_txr(uet_of(f), 9)->state, TX_IN_FLIGHT);
    /* a second call does not queue the same packets again */
    uet_sleek_step(&S, 0, 100);
    assert_int_equal(uet_of(f)->rtx_len, 3);
    /* retransmissions and the tail acknowledged: the cumulative ACK passes
     * the snapshot and recovery ends */
    for (uint32_t q = 2; q < 10; q++)
        uet_txw(uet_of(f), q)->state = TX_ACKED;
    uet_of(f)->cum_acked = 10;
    uet_sleek_step(&S, 0, 0);
    assert_false(uet_of(f)->sleek_recovery);
    sim_free(&S);
}

static void test_sleek_scan_is_paced_by_the_window(void **st)
{
    (void)st;
    struct flow *f = worked_example_state(2); /* one window = 2 packets */
    uet_sleek_step(&S, 0, 100);
    assert_true(uet_of(f)->sleek_recovery);
    assert_int_equal(uet_of(f)->rtx_len, 1); /* scans [2, 4): only example 3 */
    assert_int_equal(rtx_entry(f, 0), 2);
    /* 3 arrives: the cumulative ACK moves to 5 and the scan moves with it */
    uet_txw(uet_of(f), 2)->state = TX_ACKED;
    uet_of(f)->cum_acked = 5;
    uet_sleek_step(&S, 0, 100);
    assert_int_equal(uet_txr(uet_of(f), 5)->state, TX_RTX_QUEUED);
    assert_int_equal(uet_txr(uet_of(f), 8)->state, TX_IN_FLIGHT); /* not yet: beyond one window */
    sim_free(&S);
}

static double max_fct_us(void)
{
    double m = 0;
    for (uint32_t i = 0; i < S.n_flows; i++) {
        assert_int_equal(S.flows[i].state, FLOW_DONE);
        double v = (double)(S.flows[i].finish_ps - S.flows[i].start_ps) / PS_PER_US;
        if (v > m)
            m = v;
    }
    return m;
}

/* The tail of a flow is lost on its last hop while nothing follows it: no
 * reordering signal exists, so without SLEEK only the RTO (100 us) finds
 * the loss; a probe after base RTT + target finds it much sooner. */
static void test_probe_breaks_tail_loss_stall(void **st)
{
    (void)st;
    double fct[2];
    uint64_t rtos[2], probes[2];
    for (int sleek = 0; sleek < 2; sleek++) {
        setup("Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n", "mixed", false, sleek);
        char err[256];
        assert_true(failures_parse_spec(&S, "link tor6 host13 down at 168 up at 171", err, sizeof err));
        for (uint32_t i = 0; i < S.n_link_events; i++)
            sim_at(&S, S.link_events[i].at_ps, EV_LINK_CHANGE, i);
        sim_run(&S);
        assert_int_equal(S.flows_finished, 1);
        assert_true(S.tot.failure_drops > 0);
        fct[sleek] = max_fct_us();
        rtos[sleek] = S.tot.rtos;
        probes[sleek] = S.tot.probes_sent;
        sim_free(&S);
    }
    assert_true(rtos[0] > 0);       /* without SLEEK the timer had to fire */
    assert_int_equal(rtos[1], 0);    /* with it, the probe found the loss */
    assert_true(probes[1] > 0);
    assert_true(fct[1] + 50 < fct[0]);
}

/* Acknowledgements are lost while the window is full: the sender holds a
 * window of packets the receiver already has. When the RTO fires, the
 * window cannot carry even the retransmission, so the sender asks for the
 * receiver's state (RTS); the answer acknowledges everything. */
static void test_rts_recovers_lost_acknowledgements(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 400000\n", ".cm");
    c.cwnd_pkts = 4;
    sim_setup(&S, &c);
    struct port *nic = &S.ports[S.hosts[13].nic_port];
    nic->flags |= PORTF_DOWN; /* the receiver's ACKs die at its NIC */
    S.cfg.end_ps = 40 * PS_PER_US;
    sim_run(&S);
    assert_int_equal(uet_of(&S.flows[0])->rcv_pkts, 4);
    assert_int_equal(uet_of(&S.flows[0])->cum_acked, 0);
    nic->flags &= (uint16_t)~PORTF_DOWN;
    S.cfg.end_ps = 2000 * PS_PER_US;
    sim_run(&S);
    assert_int_equal(S.flows_finished, 1);
    assert_true(S.tot.rts_sent >= 1);
    assert_true(S.tot.rtos >= 1);
    sim_free(&S);
}

/* Trims on the receiver's own downlink say nothing about the path: with
 * ECN disabled (marking thresholds at the queue size), an incast whose only
 * trims are last-hop leaves every Bitmap penalty at zero. */
static void test_last_hop_trims_do_not_penalize_paths(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    /* seven senders in the receiver's rack: only its downlink congests */
    c.tm_path = temp_file("Nodes 32\nConnections 7\n1->0 start 0 size 2000000\n2->0 start 0 size 2000000\n"
                          "3->0 start 0 size 2000000\n4->0 start 0 size 2000000\n5->0 start 0 size 2000000\n"
                          "6->0 start 0 size 2000000\n7->0 start 0 size 2000000\n", ".cm");
    c.topo_path = shared_path("htsim/topologies/leaf_spine_tiny.topo");
    c.lb_name = "bitmap";
    c.ecn_low_pkts = c.ecn_high_pkts = 29; /* the 2-tier BDP: never marks */
    c.end_ps = 150 * PS_PER_US;
    sim_setup(&S, &c);
    sim_run(&S);
    uint64_t trims = 0, last_hop_trims = 0;
    for (uint32_t i = S.n_hosts; i < S.n_ports; i++) {
        trims += S.ports[i].st.trims;
        if (S.ports[i].flags & PORTF_LASTHOP)
            last_hop_trims += S.ports[i].st.trims;
    }
    assert_true(trims > 100);
    assert_int_equal(trims, last_hop_trims);
    uint32_t checked = 0;
    for (uint32_t fi = 0; fi < S.n_flows; fi++) {
        if (!S.flows[fi].lb_state)
            continue;
        for (uint16_t ev = 0; ev < 64; ev++)
            assert_int_equal(lb_bitmap_penalty(S.flows[fi].lb_state, ev), 0);
        checked++;
    }
    assert_true(checked > 0);
    sim_free(&S);
}

/* Seed 003 Sec. 4.2 / the issue: without trimming, an incast finishes
 * within two base RTTs of the trimmed run plus at most one RTO. */
static void test_no_trim_incast_cost_is_bounded(void **st)
{
    (void)st;
    char text[2048];
    int off = snprintf(text, sizeof text, "Nodes 128\nConnections 16\n");
    for (int i = 0; i < 16; i++)
        off += snprintf(text + off, sizeof text - (size_t)off, "%d->0 start 0 size 512000\n", 4 + 8 * i);
    double tail[3];
    simtime_ps rto_notrim = 0, base_rtt = 0;
    for (int v = 0; v < 3; v++) {
        struct config c;
        config_defaults(&c);
        c.tm_path = temp_file(text, ".cm");
        c.trimming = v == 0;
        c.sleek = v == 2;
        c.end_ps = 20000 * PS_PER_US;
        sim_setup(&S, &c);
        sim_run(&S);
        tail[v] = max_fct_us();
        if (v == 1)
            rto_notrim = S.min_rto_ps;
        base_rtt = S.base_rtt_ps;
        sim_free(&S);
    }
    double brtt = (double)base_rtt / PS_PER_US;
    assert_true(tail[1] <= tail[0] + 2 * brtt + (double)rto_notrim / PS_PER_US);
    assert_true(tail[2] <= tail[0] + 4 * brtt); /* with SLEEK, no timeout is needed */
}

/* A received packet whose answer needs a new packet while the pool is
 * exhausted: the pool grows (moves) in the middle of the receive handling.
 * Under make asan a pointer kept into the old pool would be reported. */
static void test_answer_allocates_while_pool_is_full(void **st)
{
    (void)st;
    setup("Nodes 16\nConnections 1\n0->13 start 0 size 100000\n", "mixed", true, false);
    S.now = 0;
    transport_flow_start(&S, 0);
    /* take every free packet so the next allocation must grow the pool */
    uint32_t held = PKT_NONE, n_held = 0;
    while (pool_next_free(&S.pool) != PKT_NONE) {
        uint32_t idx = pkt_alloc(&S.pool);
        S.pool.pkts[idx].next = held;
        held = idx;
        n_held++;
    }
    uint32_t cap = S.pool.capacity;
    /* hand one of them to the receiver as the flow's first data packet */
    uint32_t d = held;
    held = S.pool.pkts[d].next;
    struct packet *p = pkt_at(&S.pool, d);
    memset(p, 0, sizeof(*p));
    p->type = PKT_DATA;
    p->prio = PKT_PRIO_DATA;
    p->flow = 0;
    p->seq = 0;
    p->size_bytes = 4150;
    p->src_host = 0;
    p->dst_host = 13;
    p->node = 13;
    transport_receive(&S, d); /* answers with an ACK: allocates */
    assert_true(S.pool.capacity > cap);
    assert_int_equal(S.tot.acks_sent, 1);
    assert_int_equal(uet_of(&S.flows[0])->rcv_pkts, 1);
    while (held != PKT_NONE) {
        uint32_t next = S.pool.pkts[held].next;
        pkt_release(&S.pool, held);
        held = next;
    }
    (void)n_held;
    sim_free(&S);
}

/* ---- driving the transport by hand ------------------------------------------------- */

/* A congestion control that keeps the window and pacing gap the test gives
 * it and records what the transport reported. */
struct rec_cc {
    struct cc_window win;
    uint32_t acks, rtt_samples, ecn_acks, losses;
    bool last_rtt_valid;
    simtime_ps last_rtt_ps;
};

static uint64_t g_rec_cwnd_bytes;
static simtime_ps g_rec_pacing_ps;

static void rec_init(void *st, const struct cc_params *p)
{
    (void)p;
    struct rec_cc *r = st;
    r->win.cwnd_bytes = g_rec_cwnd_bytes;
    r->win.pacing_gap_ps = g_rec_pacing_ps;
}

static void rec_on_ack(void *st, const struct cc_ack *a)
{
    struct rec_cc *r = st;
    r->acks++;
    r->rtt_samples += a->rtt_valid;
    r->ecn_acks += a->ecn;
    r->last_rtt_valid = a->rtt_valid;
    r->last_rtt_ps = a->raw_rtt_ps;
}

static void rec_on_nack(void *st, const struct cc_nack *n)
{
    (void)st;
    (void)n;
}

static void rec_on_timeout(void *st, simtime_ps now, uint32_t pkt_bytes)
{
    (void)st;
    (void)now;
    (void)pkt_bytes;
}

static void rec_on_loss(void *st, simtime_ps now, uint32_t pkt_bytes)
{
    (void)now;
    (void)pkt_bytes;
    ((struct rec_cc *)st)->losses++;
}

/* Swift's loss detection (SACK holes, three packets) without Swift's window. */
static const struct cc_ops rec_cc_ops = {
    .name = "rec",
    .state_size = sizeof(struct rec_cc),
    .init = rec_init,
    .on_ack = rec_on_ack,
    .on_nack = rec_on_nack,
    .on_timeout = rec_on_timeout,
    .on_loss = rec_on_loss,
    .loss_mode = CC_LOSS_SACK_HOLE,
    .dupack_threshold = 3,
};

/* Sets a run of cm_text up with rec_cc in place of the configured control. */
static void setup_rec(const char *cm_text, uint64_t cwnd_bytes, simtime_ps pacing_ps, double end_us)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(cm_text, ".cm");
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    sim_setup(&S, &c);
    S.cc = &rec_cc_ops;
    S.loss_mode = rec_cc_ops.loss_mode; /* resolved at setup from the run's algorithm */
    S.dupack_threshold = rec_cc_ops.dupack_threshold;
    g_rec_cwnd_bytes = cwnd_bytes;
    g_rec_pacing_ps = pacing_ps;
}

static const char *const CM_0_TO_13_200 = "Nodes 16\nConnections 1\n0->13 start 0 size 817400\n"; /* 200 packets */

/* Flow 0 (0->13, 200 packets) started with rec_cc; then the test takes over
 * the sender: packets 0..9 are in flight, packet q sent at q us, once. */
static struct flow *sender_with_ten_in_flight(void)
{
    setup_rec(CM_0_TO_13_200, 1000000, 0, 1000);
    S.now = 0;
    transport_flow_start(&S, 0);
    struct flow *f = &S.flows[0];
    uet_of(f)->rtx_len = 0;
    uet_of(f)->in_flight_bytes = 10 * 4150;
    for (uint32_t q = 0; q < 10; q++) {
        struct tx_rec *t = sent_by_hand(f, q);
        t->state = TX_IN_FLIGHT;
        t->count = 1;
        t->time_ps = q * PS_PER_US;
    }
    S.now = 20 * PS_PER_US;
    return f;
}

/* An ACK from the receiver of flow 0: cumulative up to (not including) cum,
 * the given SACK bitmap, naming packet ref_seq. */
static void deliver_ack(uint32_t cum, uint32_t sack_base, uint64_t sack_bits, uint32_t ref_seq, uint8_t flags)
{
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *a = pkt_at(&S.pool, idx);
    memset(a, 0, sizeof(*a));
    a->type = PKT_ACK;
    a->flow = 0;
    a->size_bytes = 64;
    a->src_host = S.flows[0].dst;
    a->dst_host = S.flows[0].src;
    a->node = S.flows[0].src;
    a->seq = cum;
    a->sack_base = sack_base;
    a->sack_bits = sack_bits;
    a->ref_seq = ref_seq;
    a->flags = flags;
    transport_receive(&S, idx);
}

/* Data packet seq of flow 0 reaching its receiver. */
static void deliver_data(uint32_t seq, uint8_t flags)
{
    const struct flow *f = &S.flows[0];
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = PKT_DATA;
    p->prio = PKT_PRIO_DATA;
    p->flow = 0;
    p->seq = seq;
    p->size_bytes = 4150;
    p->src_host = f->src;
    p->dst_host = f->dst;
    p->node = f->dst;
    p->flags = flags;
    transport_receive(&S, idx);
}

/* Takes every control packet waiting at host's NIC (the one on the wire
 * first) out of the port, copies them to out in order and frees them. */
static int take_nic_ctl(uint32_t host, struct packet *out, int max)
{
    struct port *p = &S.ports[S.hosts[host].nic_port];
    int n = 0;
    if (p->in_service != PKT_NONE) {
        assert_int_equal(p->in_service_queue, SERVED_FROM_CTL);
        out[n++] = *pkt_at(&S.pool, p->in_service);
        pkt_release(&S.pool, p->in_service);
        p->in_service = PKT_NONE;
    }
    while (p->ctl_head != PKT_NONE) {
        uint32_t idx = p->ctl_head;
        p->ctl_head = pkt_at(&S.pool, idx)->next;
        assert_true(n < max);
        out[n++] = *pkt_at(&S.pool, idx);
        pkt_release(&S.pool, idx);
    }
    p->ctl_tail = PKT_NONE;
    p->ctl_bytes = 0;
    return n;
}

/* Flow 0's receiver, with nothing received yet (host 13). */
static void receiver_only(uint32_t ack_threshold_bytes)
{
    setup(CM_0_TO_13_200, "mixed", true, false);
    S.cfg.ack_threshold_bytes = ack_threshold_bytes;
    S.now = 0;
    transport_flow_start(&S, 0);
}

/* seed 002 Sec. 8: in-order data is acknowledged once the unacknowledged
 * bytes reach the threshold, not one packet later. */
static void test_delayed_ack_at_the_byte_threshold(void **st)
{
    (void)st;
    receiver_only(4 * 4150); /* exactly four packets */
    struct packet acks[8];
    deliver_data(0, 0);
    assert_int_equal(take_nic_ctl(13, acks, 8), 1); /* the first packet: at once */
    for (uint32_t q = 1; q <= 3; q++) {
        deliver_data(q, 0);
        assert_int_equal(take_nic_ctl(13, acks, 8), 0); /* 4150, 8300, 12450 bytes: wait */
    }
    deliver_data(4, 0);
    assert_int_equal(take_nic_ctl(13, acks, 8), 1); /* 16600 bytes: the threshold */
    assert_int_equal(acks[0].type, PKT_ACK);
    assert_int_equal(acks[0].seq, 5);
    assert_int_equal(acks[0].recvd_bytes, 5 * 4150);
    assert_int_equal(acks[0].ref_seq, 4);
    /* the count starts again from that ACK */
    for (uint32_t q = 5; q <= 7; q++) {
        deliver_data(q, 0);
        assert_int_equal(take_nic_ctl(13, acks, 8), 0);
    }
    deliver_data(8, 0);
    assert_int_equal(take_nic_ctl(13, acks, 8), 1);
    assert_int_equal(acks[0].seq, 9);
    sim_free(&S);
}

/* The sender's probe, at the ends of its two times: a state ACK answering
 * it within probe_period (exactly at it, too) proves the path clear, so the
 * packets sent before the probe and still unacknowledged are lost; one a
 * picosecond later proves nothing. And a probe unanswered for min_rto
 * (exactly, too) counts as lost, so the next probe may go (issue 26: both
 * comparisons moved off their ends survived). */
static void probe_answer_at(simtime_ps after_ps, uint32_t want_lost)
{
    struct flow *f = sender_with_ten_in_flight();
    simtime_ps sent = S.now; /* after packets 0..9 */
    uet_of(f)->probe_outstanding = true;
    uet_of(f)->probe_sent_ps = sent;
    S.now = sent + after_ps;
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *a = pkt_at(&S.pool, idx);
    memset(a, 0, sizeof(*a));
    a->type = PKT_PROBE_ACK;
    a->flow = 0;
    a->size_bytes = 64;
    a->src_host = f->dst;
    a->dst_host = f->src;
    a->node = f->src;
    a->seq = 0; /* the receiver has nothing */
    a->ref_seq = 0;
    transport_receive(&S, idx);
    assert_false(uet_of(f)->probe_outstanding);
    if (uet_of(f)->rtx_len != want_lost)
        fail_msg("answer %llu ps after the probe: %u packets lost, expected %u", (unsigned long long)after_ps,
                 uet_of(f)->rtx_len, want_lost);
    sim_free(&S);
}

static void probe_timer_at(simtime_ps after_ps, bool still_outstanding)
{
    struct flow *f = sender_with_ten_in_flight();
    simtime_ps sent = S.now;
    uet_of(f)->probe_outstanding = true;
    uet_of(f)->probe_sent_ps = sent;
    uet_of(f)->last_ack_ps = sent;
    S.now = sent + after_ps;
    uet_probe_timer(&S, 0);
    if (uet_of(f)->probe_outstanding != still_outstanding)
        fail_msg("probe timer %llu ps after the probe: outstanding %d", (unsigned long long)after_ps,
                 uet_of(f)->probe_outstanding);
    sim_free(&S);
}

static void test_probe_times_at_their_ends(void **st)
{
    (void)st;
    setup_rec(CM_0_TO_13_200, 1000000, 0, 1000); /* for the run's periods */
    simtime_ps period = S.probe_period_ps, rto = S.min_rto_ps;
    sim_free(&S);
    assert_true(period > 0 && rto > 0);
    probe_answer_at(period, 10);
    probe_answer_at(period + 1, 0);
    probe_timer_at(rto - 1, true);
    probe_timer_at(rto, false);
}

/* A trimmed header bounced by a switch whose control class is full comes
 * back to its sender as a NACK that names the packet and acknowledges
 * nothing: the sender retransmits that packet and still waits for packet
 * 0 (issue 26: a bounced NACK with SACK bit 0 set, acknowledging packet 0
 * unseen, survived). */
static void test_bounced_header_acknowledges_nothing(void **st)
{
    (void)st;
    struct flow *f = sender_with_ten_in_flight();
    uint32_t port = UINT32_MAX;
    for (uint32_t i = S.n_hosts; i < S.n_ports && port == UINT32_MAX; i++)
        if (S.ports[i].peer_node == f->dst)
            port = i; /* the ToR's downlink to the receiver */
    assert_int_not_equal(port, UINT32_MAX);
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *d = pkt_at(&S.pool, idx);
    memset(d, 0, sizeof(*d));
    d->type = PKT_DATA;
    d->prio = PKT_PRIO_DATA;
    d->flow = 0;
    d->seq = 5;
    d->size_bytes = 64;
    d->src_host = f->src;
    d->dst_host = f->dst;
    d->flags = PKTF_TRIMMED;
    assert_true(transport_on_control_full(&S, port, idx));
    /* the NACK is on its way back: take it from the port it was queued at */
    struct packet nack;
    bool found = false;
    for (uint32_t i = S.n_hosts; i < S.n_ports && !found; i++) {
        struct port *p = &S.ports[i];
        uint32_t q = p->in_service != PKT_NONE ? p->in_service : p->ctl_head;
        if (q != PKT_NONE && pkt_at(&S.pool, q)->type == PKT_NACK) {
            nack = *pkt_at(&S.pool, q);
            found = true;
        }
    }
    assert_true(found);
    assert_int_equal(nack.ref_seq, 5);
    uint32_t n = pkt_alloc(&S.pool);
    *pkt_at(&S.pool, n) = nack;
    pkt_at(&S.pool, n)->node = f->src;
    transport_receive(&S, n);
    assert_int_equal(uet_of(f)->cum_acked, 0);
    assert_int_equal(uet_txr(uet_of(f), 0)->state, TX_IN_FLIGHT);
    assert_int_equal(uet_of(f)->rtx_len, 1);
    assert_int_equal(rtx_entry(f, 0), 5);
    sim_free(&S);
}

/* EQDS's SACK bitmap starts as late as still covers the packet acknowledged
 * (htsim's sackBitmapBase), never at or below the cumulative point: packet
 * 65 arriving first is acknowledged from 2, its own bit the last (issue 26:
 * a base moved back by one, leaving the packet out of its own bitmap,
 * survived). */
static void test_eqds_sack_bitmap_base(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(CM_0_TO_13_200, ".cm");
    c.transport_name = "eqds";
    sim_setup(&S, &c);
    S.now = 0;
    transport_flow_start(&S, 0);
    struct packet acks[8];
    take_nic_ctl(13, acks, 8); /* whatever the receiver sent at the start */
    deliver_data(65, 0); /* the first packet received: acknowledged at once */
    int n = take_nic_ctl(13, acks, 8);
    assert_true(n >= 1);
    const struct packet *a = &acks[n - 1];
    assert_int_equal(a->type, PKT_ACK);
    assert_int_equal(a->sack_base, 2);
    assert_int_equal(a->sack_bits, 1ULL << 63);
    sim_free(&S);
}

/* The SACK bitmap of an ordinary ACK ends at the packet that triggered it
 * (its bit 63), so it covers the 63 packets before; an urgent packet (AR,
 * CE) starts it; it never starts at or below the cumulative ACK. */
static void test_sack_bitmap_base(void **st)
{
    (void)st;
    receiver_only(4150); /* an ACK for every packet */
    struct packet acks[64];
    /* packet 0 is missing: the cumulative ACK stays at 0 */
    for (uint32_t q = 1; q <= 40; q++)
        deliver_data(q, 0);
    int n = take_nic_ctl(13, acks, 64);
    assert_int_equal(n, 40);
    /* the ACK of packet 40: 40 - 63 < 0, so from just above the cumulative ACK */
    const struct packet *a = &acks[n - 1];
    assert_int_equal(a->ref_seq, 40);
    assert_int_equal(a->seq, 0);
    assert_int_equal(a->sack_base, 1);
    assert_int_equal(a->sack_bits, (1ULL << 40) - 1); /* 1..40 */
    for (uint32_t q = 41; q <= 100; q++) {
        deliver_data(q, 0);
        n = take_nic_ctl(13, acks, 8);
        assert_int_equal(n, 1);
        if (q >= 64) {
            assert_int_equal(acks[0].sack_base, q - 63);
            assert_int_equal(acks[0].sack_bits, UINT64_MAX); /* q-63 .. q, all here */
        }
    }
    /* with a hole inside the window: 101 missing, 102..110 here */
    for (uint32_t q = 102; q <= 110; q++)
        deliver_data(q, 0);
    n = take_nic_ctl(13, acks, 64);
    assert_int_equal(n, 9);
    a = &acks[n - 1];
    assert_int_equal(a->sack_base, 47);
    assert_int_equal(a->sack_bits, ~(1ULL << (101 - 47)));
    /* an AR packet starts the bitmap, and so does a CE-marked one */
    deliver_data(120, PKTF_AR);
    n = take_nic_ctl(13, acks, 8);
    assert_int_equal(n, 1);
    assert_int_equal(acks[0].sack_base, 120);
    assert_int_equal(acks[0].sack_bits, 1);
    deliver_data(119, PKTF_ECN_CE);
    n = take_nic_ctl(13, acks, 8);
    assert_int_equal(n, 1);
    assert_int_equal(acks[0].sack_base, 119);
    assert_int_equal(acks[0].sack_bits, 3); /* 119 and 120 */
    assert_true(acks[0].flags & PKTF_ECN_ECHO);
    sim_free(&S);
}

/* Karn's rule (seed 002 Sec. 4e): an RTT sample only when it is clear which
 * transmission was acknowledged: a packet sent once and an ACK of the
 * original, or sent twice and an ACK of the retransmission. */
static void test_rtt_sample_only_when_the_transmission_is_known(void **st)
{
    (void)st;
    struct flow *f = sender_with_ten_in_flight();
    struct rec_cc *r = f->cc_state;
    struct {
        uint32_t seq;
        uint8_t count;
        bool rtx_echo;
        bool valid;
    } cases[] = {
        {5, 1, false, true},
        {6, 2, true, true},
        {7, 2, false, false}, /* the original's ACK or the copy's: unknown */
        {8, 3, true, false},  /* which of the two retransmissions? */
        {9, 1, true, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uet_txw(uet_of(f), cases[k].seq)->count = cases[k].count;
        uint32_t before = r->rtt_samples;
        deliver_ack(0, 0, 0, cases[k].seq, cases[k].rtx_echo ? PKTF_RTX_ECHO : 0);
        assert_int_equal(r->acks, k + 1);
        if (r->last_rtt_valid != cases[k].valid)
            fail_msg("seq %u sent %u times, rtx echo %d: sample %s", cases[k].seq, cases[k].count,
                     cases[k].rtx_echo, r->last_rtt_valid ? "taken" : "refused");
        assert_int_equal(r->rtt_samples, before + cases[k].valid);
        if (cases[k].valid)
            assert_int_equal(r->last_rtt_ps, S.now - cases[k].seq * PS_PER_US);
    }
    sim_free(&S);
}

/* Swift's SACK loss detection: a packet is lost once three packets above it
 * (sent after it) are acknowledged; two are not enough. */
static void test_sack_hole_is_lost_at_three_acked_above(void **st)
{
    (void)st;
    struct flow *f = sender_with_ten_in_flight();
    struct rec_cc *r = f->cc_state;
    deliver_ack(0, 1, 0x3, 2, 0); /* 1 and 2 */
    assert_int_equal(f->c.fast_losses, 0);
    assert_int_equal(r->losses, 0);
    assert_int_equal(uet_txr(uet_of(f), 0)->state, TX_IN_FLIGHT);
    deliver_ack(0, 1, 0x7, 3, 0); /* 1, 2 and 3 */
    assert_int_equal(f->c.fast_losses, 1);
    assert_int_equal(r->losses, 1);
    assert_int_equal(uet_txr(uet_of(f), 0)->state, TX_RTX_QUEUED);
    /* 5 and 6 above the hole at 4: two, not yet */
    deliver_ack(0, 5, 0x3, 6, 0);
    assert_int_equal(f->c.fast_losses, 1);
    assert_int_equal(uet_txr(uet_of(f), 4)->state, TX_IN_FLIGHT);
    deliver_ack(0, 7, 0x1, 7, 0);
    assert_int_equal(f->c.fast_losses, 2);
    assert_int_equal(uet_txr(uet_of(f), 4)->state, TX_RTX_QUEUED);
    sim_free(&S);
}

/* Every ACK that echoes a CE mark is counted once (flows.csv ecn_acks) and
 * reported to the congestion control; others are not. */
static void test_ecn_echoes_are_counted(void **st)
{
    (void)st;
    struct flow *f = sender_with_ten_in_flight();
    struct rec_cc *r = f->cc_state;
    uint8_t flags[] = {PKTF_ECN_ECHO, 0, PKTF_ECN_ECHO, PKTF_ECN_ECHO | PKTF_RTX_ECHO, 0};
    uint64_t echoes = 0;
    for (uint32_t k = 0; k < 5; k++) {
        deliver_ack(0, 0, 0, k, flags[k]);
        echoes += (flags[k] & PKTF_ECN_ECHO) != 0;
        assert_int_equal(f->c.acks, k + 1);
        assert_int_equal(f->c.ecn_acks, echoes);
        assert_int_equal(r->ecn_acks, echoes);
    }
    assert_int_equal(echoes, 3);
    sim_free(&S);
}

/* Sends flow 0 made until the end of the run, in order (tx times survive
 * only while the flow is unfinished). */
static uint32_t send_times(simtime_ps *t, uint32_t max)
{
    const struct flow *f = &S.flows[0];
    assert_int_equal(f->state, FLOW_ACTIVE);
    assert_int_equal(f->c.retransmits, 0);
    uint32_t n = uet_of(f)->next_new_seq < max ? uet_of(f)->next_new_seq : max;
    for (uint32_t q = 0; q < n; q++)
        t[q] = uet_txr(uet_of(f), q)->time_ps;
    return uet_of(f)->next_new_seq;
}

/* A paced flow with an open window: packets leave exactly one gap apart
 * (the NIC alone would send one every 332 ns), also when ACKs arrive in
 * the middle of a gap (from 14 us on, 2 us after a send) and wake the
 * sender early. */
static void test_paced_packets_leave_one_gap_apart(void **st)
{
    (void)st;
    const simtime_ps gap = 3 * PS_PER_US;
    setup_rec(CM_0_TO_13_200, 1000000, gap, 46);
    sim_run(&S);
    assert_true(S.flows[0].c.acks >= 3);
    simtime_ps t[64];
    uint32_t n = send_times(t, 64);
    assert_int_equal(n, 16); /* at 0, 3, ..., 45 us */
    for (uint32_t q = 0; q < n; q++)
        assert_int_equal(t[q], q * gap);
    sim_free(&S);
    /* the same flow unpaced: the wire is the limit (the latest two sends:
     * the first ones' records have made room for later packets, uet.h) */
    setup_rec(CM_0_TO_13_200, 1000000, 0, 46);
    sim_run(&S);
    const struct uet_flow *u = uet_of(&S.flows[0]);
    n = u->next_new_seq;
    assert_true(n > 130);
    assert_int_equal(uet_txr(u, n - 1)->time_ps - uet_txr(u, n - 2)->time_ps, serialize_ps(4150, 100000));
    sim_free(&S);
}

/* A window below one packet with pacing on: one packet is let out whenever
 * nothing is in flight, so the flow moves at one packet per round trip
 * instead of stalling, and never has two packets out. */
static void test_window_below_one_packet_sends_one_at_a_time(void **st)
{
    (void)st;
    setup_rec(CM_0_TO_13_200, 1000, PS_PER_US, 1000);
    sim_run(&S);
    simtime_ps t[128];
    uint32_t n = send_times(t, 128);
    simtime_ps rtt = S.base_rtt_ps; /* 0->13 crosses the core: the longest path */
    /* the next packet leaves when the previous one's ACK is back */
    for (uint32_t q = 0; q + 1 < n; q++)
        assert_true(t[q + 1] - t[q] >= rtt);
    assert_true(n >= 1000 * PS_PER_US / (rtt + rtt / 10));
    assert_true(uet_of(&S.flows[0])->in_flight_bytes <= 4150);
    sim_free(&S);
}

/* The sender's per-packet records are sized to what is in flight (uet.h):
 * a 100 MB flow ends with the same ring as a 2 MB one under the same
 * window, a window of 300 packets grows the ring past it, and every packet
 * in flight keeps its record (the checks build asserts it on each access). */
static uint32_t ring_after(const char *cm, uint64_t cwnd_bytes, double end_us, uint32_t *sent, uint32_t *rcv_words)
{
    setup_rec(cm, cwnd_bytes, 0, end_us);
    uint32_t peak = 0;
    *rcv_words = 0;
    /* run in slices, noting the ring while the flow lives (it is freed at the end) */
    for (double t = 20; t <= end_us && S.flows[0].state != FLOW_DONE; t += 20) {
        S.cfg.end_ps = (simtime_ps)(t * PS_PER_US);
        S.stop = false;
        sim_run(&S);
        if (S.flows[0].tp_state && uet_of(&S.flows[0])->tx && uet_of(&S.flows[0])->tx_mask + 1 > peak)
            peak = uet_of(&S.flows[0])->tx_mask + 1;
        if (S.flows[0].tp_state && uet_of(&S.flows[0])->rcv_win.mask + 1 > *rcv_words)
            *rcv_words = uet_of(&S.flows[0])->rcv_win.mask + 1;
    }
    assert_int_equal(S.flows[0].state, FLOW_DONE);
    *sent = (uint32_t)S.flows[0].c.pkts_sent;
    sim_free(&S);
    return peak;
}

static void test_send_records_sized_to_the_window(void **st)
{
    (void)st;
    uint32_t sent_small, sent_big, sent_wide, rcv_small, rcv_big;
    uint32_t small = ring_after("Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n", 40 * 4150, 2000, &sent_small,
                                &rcv_small);
    uint32_t big = ring_after("Nodes 16\nConnections 1\n0->13 start 0 size 100000000\n", 40 * 4150, 20000, &sent_big,
                              &rcv_big);
    assert_true(sent_big > 24000 && sent_small < 500);
    assert_int_equal(big, small);      /* 50 times the packets, the same records */
    assert_true(big <= 128);           /* a 40-packet window: at most 128 slots */
    /* and the receiver's bitmap: the same 2 words (128 packets), not 385 */
    assert_int_equal(rcv_big, rcv_small);
    assert_int_equal(rcv_big, RCV_WINDOW_INIT_WORDS);
    (void)sent_wide;
    /* 300 packets sent and none acknowledged: the ring doubles as it fills
     * past half, and keeps every record */
    struct uet_flow q = {0};
    uet_tx_alloc(&q, 1000, true);
    assert_int_equal(q.tx_mask + 1, 128);
    for (uint32_t seq = 0; seq < 300; seq++) {
        struct tx_rec *r = uet_tx_claim(&q, seq);
        r->state = TX_IN_FLIGHT;
        r->count = 1;
        r->time_ps = seq;
        q.next_new_seq = seq + 1;
    }
    assert_int_equal(q.tx_mask + 1, 1024); /* the span of 300 needs more than 2 x 256 slots */
    for (uint32_t seq = 0; seq < 300; seq++)
        assert_true(uet_txr(&q, seq)->state == TX_IN_FLIGHT && uet_txr(&q, seq)->time_ps == seq);
    assert_true(uet_txr(&q, 300)->state == TX_UNSENT);
    /* acknowledged and its slot taken by a later packet: read as acknowledged */
    for (uint32_t seq = 0; seq < 300; seq++)
        uet_txw(&q, seq)->state = TX_ACKED;
    q.cum_acked = 300;
    for (uint32_t seq = 300; seq < 300 + 1024; seq++) {
        uet_tx_claim(&q, seq)->state = TX_IN_FLIGHT;
        q.next_new_seq = seq + 1;
        uet_txw(&q, seq)->state = TX_ACKED;
        q.cum_acked = seq + 1;
    }
    assert_int_equal(q.tx_mask + 1, 1024); /* no growth: nothing stayed in flight */
    assert_true(uet_txr(&q, 5)->state == TX_ACKED && uet_txr(&q, 5)->count == 0);
    free(q.tx);
    free(q.rtx_ring);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The receive window (rcv_window.h) answers as a whole-flow bitmap does,
 * for arrivals reordered by up to 1000 packets, and its ring holds
 * only the reordering span (a few words for 20,000 packets). */
static void test_receive_window_matches_a_whole_flow_bitmap(void **st)
{
    (void)st;
    const uint32_t n = 20000;
    for (uint32_t spread = 1; spread <= 1000; spread *= 10) {
        uint8_t *ref = calloc(n, 1);
        uint32_t *order = malloc(n * sizeof(uint32_t));
        for (uint32_t i = 0; i < n; i++)
            order[i] = i;
        struct rng r;
        rng_seed(&r, 42, RNG_STREAM_HASH, spread);
        /* packet q arrives at q plus a delay below the spread (ties in packet order) */
        uint64_t *key = malloc(n * sizeof(uint64_t));
        for (uint32_t i = 0; i < n; i++)
            key[i] = ((uint64_t)(i + rng_below(&r, spread)) << 32) | i;
        qsort(key, n, sizeof(uint64_t), cmp_u64);
        for (uint32_t i = 0; i < n; i++)
            order[i] = (uint32_t)key[i];
        free(key);
        struct rcv_window w;
        rcv_window_init(&w, n);
        assert_int_equal(w.mask + 1, RCV_WINDOW_INIT_WORDS);
        uint32_t cum = 0, max_words = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t q = order[i];
            if (q + 1 == n || i % 97 == 0) /* now and then, every answer */
                for (uint32_t k = 0; k < n; k++)
                    assert_int_equal(rcv_window_has(&w, cum, k), ref[k]);
            assert_false(rcv_window_has(&w, cum, q));
            rcv_window_set(&w, cum, q);
            ref[q] = 1;
            cum = rcv_window_walk(&w, cum, n);
            uint32_t ref_cum = 0;
            while (ref_cum < n && ref[ref_cum])
                ref_cum++;
            assert_int_equal(cum, ref_cum);
            if (w.mask + 1 > max_words)
                max_words = w.mask + 1;
        }
        assert_int_equal(cum, n);
        assert_true(max_words * 64 <= 2 * (spread + 128)); /* the reordering span, not the flow's 313 words */
        rcv_window_free(&w);
        free(order);
        free(ref);
    }
}

/* Regression: a walk when every packet of a full ring has arrived. With
 * the initial two words (128 packets), packets 1 .. 127 arrive and then 0:
 * the cumulative point is 128. The old walk tested each packet against the
 * moving point, read packet 128's slot (word 0, still holding packets
 * 0 .. 63) as arrived, and ran on to the flow's end. Then the ring keeps
 * working: 128 .. 255 in reverse order end at 256. */
static void test_receive_window_full_ring_walk(void **st)
{
    (void)st;
    const uint32_t n = 1000;
    struct rcv_window w;
    rcv_window_init(&w, n);
    assert_int_equal(w.mask + 1, 2);
    uint32_t cum = 0;
    for (uint32_t q = 1; q < 128; q++) {
        rcv_window_set(&w, cum, q);
        cum = rcv_window_walk(&w, cum, n);
        assert_int_equal(cum, 0);
    }
    rcv_window_set(&w, cum, 0);
    cum = rcv_window_walk(&w, cum, n);
    assert_int_equal(cum, 128);
    assert_false(rcv_window_has(&w, cum, 128));
    assert_int_equal(w.mask + 1, 2); /* no growth was needed */
    for (uint32_t q = 255; q >= 128; q--) {
        rcv_window_set(&w, cum, q);
        cum = rcv_window_walk(&w, cum, n);
        assert_int_equal(cum, q == 128 ? 256 : 128);
    }
    rcv_window_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_receive_window_full_ring_walk),
        cmocka_unit_test(test_sleek_worked_example),
        cmocka_unit_test(test_sleek_scan_is_paced_by_the_window),
        cmocka_unit_test(test_probe_breaks_tail_loss_stall),
        cmocka_unit_test(test_rts_recovers_lost_acknowledgements),
        cmocka_unit_test(test_last_hop_trims_do_not_penalize_paths),
        cmocka_unit_test(test_no_trim_incast_cost_is_bounded),
        cmocka_unit_test(test_answer_allocates_while_pool_is_full),
        cmocka_unit_test(test_delayed_ack_at_the_byte_threshold),
        cmocka_unit_test(test_sack_bitmap_base),
        cmocka_unit_test(test_eqds_sack_bitmap_base),
        cmocka_unit_test(test_probe_times_at_their_ends),
        cmocka_unit_test(test_bounced_header_acknowledges_nothing),
        cmocka_unit_test(test_rtt_sample_only_when_the_transmission_is_known),
        cmocka_unit_test(test_sack_hole_is_lost_at_three_acked_above),
        cmocka_unit_test(test_ecn_echoes_are_counted),
        cmocka_unit_test(test_paced_packets_leave_one_gap_apart),
        cmocka_unit_test(test_window_below_one_packet_sends_one_at_a_time),
        cmocka_unit_test(test_send_records_sized_to_the_window),
        cmocka_unit_test(test_receive_window_matches_a_whole_flow_bitmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
