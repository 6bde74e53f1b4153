/* test_transport.c: loss recovery in the UET transport: SLEEK on seed 002's
 * worked example (which packets are resent, when recovery ends, the pacing
 * of the scan), probes and requests-to-send breaking stalls, last-hop trims
 * leaving the load balancer's path state alone, and the cost of running
 * without trimming.
 */
#include "testutil.h"

#include "lb/lb.h"
#include "sim.h"
#include "transport/flow.h"
#include "transport/transport.h"

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
    return f->rtx_ring[(f->rtx_head + i) % f->n_pkts];
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
    f->next_new_seq = 10;
    f->rtx_len = 0;
    f->in_flight_bytes = 0;
    for (uint32_t q = 0; q < 10; q++) {
        f->tx[q].state = TX_IN_FLIGHT;
        f->tx[q].count = 1;
        f->tx[q].time_ps = 0;
        f->in_flight_bytes += 4150;
    }
    uint32_t acked[] = {0, 1, 3, 4, 6, 7};
    for (size_t i = 0; i < 6; i++) {
        f->tx[acked[i]].state = TX_ACKED;
        f->in_flight_bytes -= 4150;
    }
    f->cum_acked = 2;
    ((struct cc_window *)f->cc_state)->cwnd_bytes = cwnd_pkts * 4150;
    S.now = 10 * PS_PER_US;
    return f;
}

static void test_sleek_worked_example(void **st)
{
    (void)st;
    struct flow *f = worked_example_state(16);
    uet_sleek_step(&S, 0, 0); /* no reordering beyond the threshold: nothing happens */
    assert_false(f->sleek_recovery);
    assert_int_equal(f->rtx_len, 0);
    uet_sleek_step(&S, 0, 100); /* far beyond min(1.5 cwnd, maxwnd) */
    assert_true(f->sleek_recovery);
    assert_int_equal(f->sleek_recovery_seq, 9); /* snapshot: highest sent, example's 10 */
    /* example: 3, 6 and 9 queued; 10 (the snapshot itself) is not */
    assert_int_equal(f->rtx_len, 3);
    assert_int_equal(rtx_entry(f, 0), 2);
    assert_int_equal(rtx_entry(f, 1), 5);
    assert_int_equal(rtx_entry(f, 2), 8);
    assert_int_equal(f->tx[9].state, TX_IN_FLIGHT);
    /* a second call does not queue the same packets again */
    uet_sleek_step(&S, 0, 100);
    assert_int_equal(f->rtx_len, 3);
    /* retransmissions and the tail acknowledged: the cumulative ACK passes
     * the snapshot and recovery ends */
    for (uint32_t q = 2; q < 10; q++)
        f->tx[q].state = TX_ACKED;
    f->cum_acked = 10;
    uet_sleek_step(&S, 0, 0);
    assert_false(f->sleek_recovery);
    sim_free(&S);
}

static void test_sleek_scan_is_paced_by_the_window(void **st)
{
    (void)st;
    struct flow *f = worked_example_state(2); /* one window = 2 packets */
    uet_sleek_step(&S, 0, 100);
    assert_true(f->sleek_recovery);
    assert_int_equal(f->rtx_len, 1); /* scans [2, 4): only example 3 */
    assert_int_equal(rtx_entry(f, 0), 2);
    /* 3 arrives: the cumulative ACK moves to 5 and the scan moves with it */
    f->tx[2].state = TX_ACKED;
    f->cum_acked = 5;
    uet_sleek_step(&S, 0, 100);
    assert_int_equal(f->tx[5].state, TX_RTX_QUEUED);
    assert_int_equal(f->tx[8].state, TX_IN_FLIGHT); /* not yet: beyond one window */
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
    assert_int_equal(S.flows[0].rcv_pkts, 4);
    assert_int_equal(S.flows[0].cum_acked, 0);
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
    while (S.pool.free_head != PKT_NONE) {
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
    p->flow = 0;
    p->seq = 0;
    p->size_bytes = 4150;
    p->src_host = 0;
    p->dst_host = 13;
    p->node = 13;
    transport_receive(&S, d); /* answers with an ACK: allocates */
    assert_true(S.pool.capacity > cap);
    assert_int_equal(S.tot.acks_sent, 1);
    assert_int_equal(S.flows[0].rcv_pkts, 1);
    while (held != PKT_NONE) {
        uint32_t next = S.pool.pkts[held].next;
        pkt_release(&S.pool, held);
        held = next;
    }
    (void)n_held;
    sim_free(&S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleek_worked_example),
        cmocka_unit_test(test_sleek_scan_is_paced_by_the_window),
        cmocka_unit_test(test_probe_breaks_tail_loss_stall),
        cmocka_unit_test(test_rts_recovers_lost_acknowledgements),
        cmocka_unit_test(test_last_hop_trims_do_not_penalize_paths),
        cmocka_unit_test(test_no_trim_incast_cost_is_bounded),
        cmocka_unit_test(test_answer_allocates_while_pool_is_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
