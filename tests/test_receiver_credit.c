/* test_receiver_credit.c: EQDS and UET's receiver credit end to end. A
 * single EQDS flow finishes within 2% of first principles; an incast shares
 * the receiver fairly and keeps its link busy; packets are conserved mid-run;
 * one seed gives one output. The speculative start sends exactly one window
 * (EQDS: -cwnd packets; UET: 1.5 BDP of credit) when nothing comes back, and
 * a sender window caps it (-sender_cc); an RTS gets a sender whose credit
 * was lost going again. UET's receiver credit lands on the reference's
 * 2-to-1 result, turns ECN off on ToR downlinks, and slows its pulls on an
 * oversubscribed tree.
 */
#include "testutil.h"

#include "lb/lb.h"
#include "metrics/report.h"
#include "sim.h"
#include "simtest.h"
#include "transport/eqds.h"
#include "transport/flow.h"
#include "transport/pull_pacer.h"
#include "transport/transport.h"
#include "transport/uet.h"

#include <math.h>

/* A flow's packet-delivery state, whichever transport it speaks. */
static struct uet_flow *seq_of(const struct flow *f)
{
    return f->tp == &transport_uet_ops ? uet_of(f) : eqds_seq_of(f);
}

static struct sim S;

struct run_opts {
    const char *transport; /* NULL = uet */
    int8_t sender_cc, receiver_cc;
    uint32_t paths;
    uint32_t cwnd_pkts;
    const char *cc;
    uint64_t seed;
    const char *topo;
};

static void setup(const char *tm, double end_us, const struct run_opts *o)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = tm;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.progress = false;
    if (o->transport)
        c.transport_name = o->transport;
    c.sender_cc = o->sender_cc;
    c.receiver_cc = o->receiver_cc;
    if (o->paths)
        c.paths = o->paths;
    if (c.paths == 1)
        c.lb_name = "single";
    c.cwnd_pkts = o->cwnd_pkts;
    if (o->cc) {
        c.cc_name = o->cc;
        c.cc_given = true;
    }
    if (o->seed)
        c.seed = o->seed;
    c.topo_path = o->topo;
    sim_setup(&S, &c);
}

static void run(const char *tm, double end_us, const struct run_opts *o)
{
    setup(tm, end_us, o);
    sim_run(&S);
}

static const struct run_opts EQDS = {.transport = "eqds", .sender_cc = -1, .receiver_cc = -1};
static const struct run_opts RCC = {.sender_cc = 0, .receiver_cc = 1};

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

/* One 2 MB flow on an idle path: no faster than the line rate allows, and
 * within 2% of it (pulls bring 4 KB per 0.99 x a 4198-byte frame, so the
 * pulled part of the flow runs about 1.5% below line rate). */
static void test_eqds_single_flow_near_first_principles(void **st)
{
    (void)st;
    run(shared_path("htsim/matrices/one.cm"), 1000, &EQDS);
    assert_int_equal(S.flows_finished, 1);
    double fct = (double)(S.flows[0].finish_ps - S.flows[0].start_ps);
    double ideal = (double)ideal_fct_ps(&S, &S.flows[0]);
    if (!(fct > ideal && fct < ideal * 1.02))
        fail_msg("FCT %.3f us, ideal %.3f us", fct / PS_PER_US, ideal / PS_PER_US);
    assert_int_equal(S.tot.rtx_pkts_sent, 0);
    assert_true(S.tot.pulls_sent > 0);
    sim_free(&S);
}

/* 15 x 2 MB into one host: the receiver's link stays busy (the last flow
 * ends within 3% of 30 MB at line rate), and the pacer shares it: the bytes
 * delivered when the first flow finishes have Jain's index >= 0.99. */
static void test_eqds_incast_fair_shares(void **st)
{
    (void)st;
    const char *tm = shared_path("htsim/matrices/incast.cm");
    run(tm, 5000, &EQDS);
    assert_int_equal(S.flows_finished, 15);
    double serial = 0;
    simtime_ps first = SIMTIME_NEVER;
    for (uint32_t i = 0; i < 15; i++) {
        serial += (double)(S.flows[i].size_bytes + (uint64_t)S.flows[i].n_pkts * 64) * 8 / 100e9 * 1e6;
        if (S.flows[i].finish_ps < first)
            first = S.flows[i].finish_ps;
    }
    double tail = tail_us();
    if (tail > serial * 1.03)
        fail_msg("tail %.1f us, 30 MB at line rate %.1f us", tail, serial);
    assert_true(S.tot.rtx_pkts_sent > 0); /* the speculative windows collided */
    check_packet_conservation(&S);
    sim_free(&S);
    run(tm, (double)first / PS_PER_US - 0.001, &EQDS);
    double sum = 0, sq = 0;
    for (uint32_t i = 0; i < 15; i++) {
        double b = (double)seq_of(&S.flows[i])->rcv_bytes;
        sum += b;
        sq += b * b;
    }
    double jain = sum * sum / (15 * sq);
    if (jain < 0.99)
        fail_msg("Jain's index %.4f", jain);
    sim_free(&S);
}

/* Mid-run, with trims and pulls in flight, every packet is accounted for. */
static void test_packets_conserved_mid_run(void **st)
{
    (void)st;
    const struct run_opts *modes[] = {&EQDS, &RCC};
    for (int m = 0; m < 2; m++) {
        run(shared_path("htsim/matrices/incast.cm"), 300, modes[m]);
        assert_true(S.tot.trimmed_delivered > 0);
        assert_true(S.tot.pulls_sent > 0);
        check_packet_conservation(&S);
        sim_free(&S);
        struct run_opts o = *modes[m];
        o.paths = 128;
        run(shared_path("htsim/matrices/perm_16n_16c_2MB.cm"), 100, &o);
        check_packet_conservation(&S);
        sim_free(&S);
    }
}

static char *flows_csv(const struct run_opts *o, uint64_t seed)
{
    struct run_opts r = *o;
    r.seed = seed;
    r.paths = 128;
    run(shared_path("htsim/matrices/perm_16n_16c_2MB.cm"), 1000, &r);
    struct strbuf b;
    sb_init(&b);
    report_flows_csv(&S, &b);
    sim_free(&S);
    return b.data;
}

static void test_same_seed_same_output(void **st)
{
    (void)st;
    const struct run_opts *modes[] = {&EQDS, &RCC};
    for (int m = 0; m < 2; m++) {
        char *a = flows_csv(modes[m], 7);
        char *b = flows_csv(modes[m], 7);
        char *c = flows_csv(modes[m], 8);
        assert_string_equal(a, b);
        assert_true(strcmp(a, c) != 0);
        free(a);
        free(b);
        free(c);
    }
}

/* The receiver's NIC is down from the start, so no ACK or PULL ever comes
 * back: the sender sends its speculative credit and stops. */
static uint64_t sent_unanswered(const struct run_opts *o)
{
    setup(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n", ".cm"), 50, o);
    S.ports[S.hosts[13].nic_port].flags |= PORTF_DOWN;
    sim_run(&S);
    uint64_t n = S.tot.data_pkts_sent;
    sim_free(&S);
    return n;
}

static void test_speculative_start_is_one_window(void **st)
{
    (void)st;
    /* EQDS: -cwnd packets (64 by default) */
    assert_int_equal(sent_unanswered(&EQDS), 64);
    struct run_opts o = EQDS;
    o.cwnd_pkts = 10;
    assert_int_equal(sent_unanswered(&o), 10);
    /* UET receiver credit: 1.5 BDP = 262926 B of credit; a packet may go
     * while any is left, so 64 packets of 4150 B */
    assert_int_equal(sent_unanswered(&RCC), 64);
    /* with the window too (-sender_cc): NSCC's 1.5 BDP window holds 63 */
    o = RCC;
    o.sender_cc = 1;
    assert_int_equal(sent_unanswered(&o), 63);
    /* and a small window caps both */
    o.cwnd_pkts = 4;
    assert_int_equal(sent_unanswered(&o), 4);
}

/* EQDS -sender_cc: the CC's window caps the sender below its credit. MPRDMA
 * with maxwnd_bdp = 0.1 allows 0.1 BDP = 17528 B: packets go while the
 * window is above the bytes in flight, so 5. */
static void test_eqds_sender_window_caps_credit(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n", ".cm");
    c.end_ps = 50 * PS_PER_US;
    c.transport_name = "eqds";
    c.sender_cc = 1;
    c.cc_name = "mprdma";
    c.cc_opts[0] = (struct cc_option){"maxwnd_bdp", 0.1};
    c.n_cc_opts = 1;
    sim_setup(&S, &c);
    S.ports[S.hosts[13].nic_port].flags |= PORTF_DOWN;
    sim_run(&S);
    assert_int_equal(S.tot.data_pkts_sent, 5);
    assert_non_null(eqds_pacer(&S, 15)); /* one pacer per receiving host */
    sim_free(&S);
    /* -sender_cc_only: a pacer per connection (htsim's receiver-driven mode off) */
    c.receiver_cc = 0;
    sim_setup(&S, &c);
    assert_non_null(eqds_pacer(&S, 0));
    assert_null(eqds_pacer(&S, 1));
    sim_free(&S);
    c.receiver_cc = -1;
    /* and the whole flow still finishes, ACKed every 4000 bytes */
    c.end_ps = 2000 * PS_PER_US;
    c.n_cc_opts = 0;
    sim_setup(&S, &c);
    sim_run(&S);
    assert_int_equal(S.flows_finished, 1);
    assert_true(S.tot.acks_sent >= S.flows[0].n_pkts - 1); /* 4000 B < one packet: every packet */
    sim_free(&S);
}

/* ACKs and PULLs die at the receiver's NIC for 40 us: the one-packet
 * speculative window arrives but the sender hears nothing and has no credit
 * left. Its timeout sends an RTS, which makes the receiver owe it credit
 * and answer; the flow then finishes. */
static void test_eqds_rts_restarts_a_sender_without_credit(void **st)
{
    (void)st;
    struct run_opts o = EQDS;
    o.cwnd_pkts = 1;
    setup(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 400000\n", ".cm"), 40, &o);
    struct port *nic = &S.ports[S.hosts[13].nic_port];
    nic->flags |= PORTF_DOWN;
    sim_run(&S);
    assert_int_equal(seq_of(&S.flows[0])->rcv_pkts, 1);
    assert_int_equal(seq_of(&S.flows[0])->cum_acked, 0);
    nic->flags &= (uint16_t)~PORTF_DOWN;
    S.cfg.end_ps = 3000 * PS_PER_US;
    sim_run(&S);
    assert_int_equal(S.flows_finished, 1);
    assert_true(S.tot.rts_sent >= 1);
    assert_true(S.tot.rtos >= 1);
    sim_free(&S);
}

/* A trimmed header makes the receiver owe its sender one MTU of credit:
 * ceil(4150 / 512) = 9 quanta, pulled 8 at a time. The run is stopped just
 * after the first trims reach the receiver: each owes 9 or, once pulled
 * once, 1. */
static void test_eqds_trim_owes_one_mtu_of_credit(void **st)
{
    (void)st;
    setup(shared_path("htsim/matrices/incast.cm"), 1, &EQDS);
    while (S.tot.trimmed_delivered == 0 && S.cfg.end_ps < 100 * PS_PER_US) {
        S.cfg.end_ps += PS_PER_US / 10;
        sim_run(&S);
    }
    assert_true(S.tot.trimmed_delivered > 0);
    int64_t owed = 0;
    for (uint32_t i = 0; i < S.n_flows; i++)
        owed += ((const struct pull_client *)S.flows[i].tp_state)->rtx_backlog_q;
    assert_true(owed > 0);
    assert_int_equal(owed % 8, (int64_t)(S.tot.trimmed_delivered % 8));
    sim_free(&S);
}

/* Hands flow 0's sender a PULL with pull number pull_q, as if it had come
 * from the receiver, at the present time. */
static void deliver_pull(int64_t pull_q)
{
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = PKT_PULL;
    p->flow = 0;
    p->size_bytes = 64;
    p->src_host = S.flows[0].dst;
    p->dst_host = S.flows[0].src;
    p->pull_q = pull_q;
    transport_receive(&S, idx);
}

/* Nothing comes back from the receiver (its NIC is down) but a PULL, handed
 * to the sender 1 us in: speculation ends there, and the credit the PULL
 * brings is capped at one window, so exactly one window more is sent.
 * EQDS: the PULL is worth 512 KB, the window is 64 x 4150 B; the unspent
 * speculative credit is given up packet by packet without sending. UET: 1 MB,
 * capped at 1.5 BDP = 262926 B, i.e. 64 packets; its unspent speculative
 * credit goes at once, before the PULL's credit is added. */
static void test_pull_ends_speculation_and_credit_is_capped(void **st)
{
    (void)st;
    const struct run_opts *modes[] = {&EQDS, &RCC};
    const int64_t pull_q[] = {1000, 4000}; /* 512-byte and 256-byte quanta */
    for (int m = 0; m < 2; m++) {
        setup(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n", ".cm"), 1, modes[m]);
        S.ports[S.hosts[13].nic_port].flags |= PORTF_DOWN;
        sim_run(&S);
        uint64_t before = S.tot.data_pkts_sent;
        assert_true(before >= 3 && before <= 4);
        deliver_pull(pull_q[m]);
        S.cfg.end_ps = 60 * PS_PER_US;
        sim_run(&S);
        assert_int_equal(S.tot.data_pkts_sent, before + 64);
        sim_free(&S);
    }
}

/* A packet's transmission count saturates at 255 (uet.h: tx_rec.count)
 * rather than wrap to 0, where a later ACK would take the packet for a first
 * transmission and an RTT sample (issue 26: the saturation test flipped to
 * <= went unnoticed). Nothing comes back from the receiver (its NIC is down)
 * but the PULLs handed to the sender after each timeout, so the one packet
 * of a one-packet window is sent again after every timeout; its count is set
 * to 254 after the first send and must stop at 255 after two more. */
static void test_eqds_transmission_count_saturates(void **st)
{
    (void)st;
    struct run_opts o = EQDS;
    o.cwnd_pkts = 1;
    setup(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 400000\n", ".cm"), 1, &o);
    S.ports[S.hosts[13].nic_port].flags |= PORTF_DOWN;
    struct flow *f = &S.flows[0];
    sim_run(&S);
    assert_int_equal(f->c.pkts_sent, 1);
    assert_int_equal(uet_txr(seq_of(f), 0)->count, 1);
    uet_txw(seq_of(f), 0)->count = 254;
    uint64_t rtos = S.tot.rtos;
    int64_t pull_q = 0;
    while (f->c.retransmits < 2 && S.cfg.end_ps < 100000 * PS_PER_US) {
        S.cfg.end_ps += 10 * PS_PER_US;
        sim_run(&S);
        if (S.tot.rtos > rtos) {
            rtos = S.tot.rtos;
            deliver_pull(pull_q += 16);
        }
    }
    assert_int_equal(f->c.retransmits, 2);
    assert_int_equal(f->c.pkts_sent, 3);
    assert_int_equal(uet_txr(seq_of(f), 0)->count, 255);
    sim_free(&S);
}

/* The same for UET's sender (uet_send.c; its window, no receiver credit):
 * with the receiver's NIC down, the one packet is resent at each timeout;
 * set to 254 after the first send, its count stops at 255. */
static void test_uet_transmission_count_saturates(void **st)
{
    (void)st;
    struct run_opts o = {.sender_cc = -1, .receiver_cc = -1};
    setup(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 4000\n", ".cm"), 1, &o);
    S.ports[S.hosts[13].nic_port].flags |= PORTF_DOWN;
    struct flow *f = &S.flows[0];
    sim_run(&S);
    assert_int_equal(f->c.pkts_sent, 1);
    assert_int_equal(uet_txr(seq_of(f), 0)->count, 1);
    uet_txw(seq_of(f), 0)->count = 254;
    while (f->c.retransmits < 2 && S.cfg.end_ps < 1000000 * PS_PER_US) {
        S.cfg.end_ps += 100 * PS_PER_US;
        sim_run(&S);
    }
    assert_int_equal(f->c.retransmits, 2);
    assert_int_equal(uet_txr(seq_of(f), 0)->count, 255);
    sim_free(&S);
}

/* UET: flows waiting for the same NIC split their demand (htsim divides the
 * pull target by the NIC's waiting sources): with two flows from host 0
 * taking turns and nothing coming back, flow 0's k-th packet asks for
 * ceil(k x 4150 / 2 / 256) quanta. */
static void test_uet_flows_sharing_a_nic_split_their_demand(void **st)
{
    (void)st;
    setup(temp_file("Nodes 16\nConnections 2\n0->5 start 0 size 2000000\n0->9 start 0 size 2000000\n", ".cm"), 30,
          &RCC);
    S.ports[S.hosts[5].nic_port].flags |= PORTF_DOWN;
    S.ports[S.hosts[9].nic_port].flags |= PORTF_DOWN;
    sim_run(&S);
    const struct flow *f = &S.flows[0];
    uint32_t k = seq_of(f)->rcv_pkts;
    assert_true(k >= 10);
    const struct pull_client *c = uet_credit_client(f);
    assert_int_equal(c->target_q, ((int64_t)k * 4150 / 2 + 255) / 256);
    sim_free(&S);
}

/* UET: a trimmed header makes its sender an active sender at the receiver
 * even when the target it carries is old: the retransmission needs credit. */
static void test_uet_trim_asks_for_credit(void **st)
{
    (void)st;
    setup(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n", ".cm"), 1, &RCC);
    sim_run(&S); /* the flow has started; nothing has arrived yet */
    const struct pull_client *c = uet_credit_client(&S.flows[0]);
    assert_false(c->in_active);
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = PKT_DATA;
    p->flags = PKTF_TRIMMED;
    p->flow = 0;
    p->seq = 0;
    p->size_bytes = 64;
    p->src_host = 0;
    p->dst_host = 13;
    p->pull_q = 0; /* nothing above what was granted */
    transport_receive(&S, idx);
    assert_true(c->in_active);
    assert_true(uet_credit_pacer(&S, 13)->running);
    sim_free(&S);
}

/* UET: a timeout with no credit left and no retransmission queued sends an
 * RTS at once: 64 packets spend the 1.5 BDP of credit, nothing comes back,
 * and the first timeout (packet 0, sent at 0) asks for credit. */
static void test_uet_timeout_without_credit_sends_rts(void **st)
{
    (void)st;
    setup(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n", ".cm"), 1, &RCC);
    S.ports[S.hosts[13].nic_port].flags |= PORTF_DOWN;
    S.cfg.end_ps = S.min_rto_ps + PS_PER_US / 10; /* before the second packet's timeout */
    sim_run(&S);
    assert_int_equal(S.tot.data_pkts_sent, 64);
    assert_int_equal(S.tot.rtos, 1);
    assert_int_equal(S.tot.rts_sent, 1);
    assert_int_equal(seq_of(&S.flows[0])->last_rts_ps, S.min_rto_ps);
    sim_free(&S);
}

/* ---- the EQDS receiver's ACKs, driven by hand ------------------------------------- */

/* Flow 0 (0 -> 13, 100 packets) has started; the event loop never runs, so
 * the ACKs the receiver sends stay on host 13's NIC, where acks_at() reads
 * them in order. */
static void receiver_setup(void)
{
    setup(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 408600\n", ".cm"), 1000, &EQDS);
    S.now = 0;
    transport_flow_start(&S, 0);
}

static void deliver_data(uint32_t seq, uint8_t flags)
{
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = PKT_DATA;
    p->flags = flags;
    p->flow = 0;
    p->seq = seq;
    p->size_bytes = flags & PKTF_TRIMMED ? 64 : 4150;
    p->src_host = 0;
    p->dst_host = 13;
    transport_receive(&S, idx);
}

/* The ACKs (and NACKs) waiting at the receiver's NIC, oldest first. */
static uint32_t acks_at(const struct packet **out, uint32_t max)
{
    const struct port *nic = &S.ports[S.hosts[13].nic_port];
    uint32_t n = 0;
    if (nic->in_service != PKT_NONE && n < max)
        out[n++] = pkt_at(&S.pool, nic->in_service);
    for (uint32_t q = nic->ctl_head; q != PKT_NONE && n < max; q = S.pool.pkts[q].next)
        if (S.pool.pkts[q].type == PKT_ACK || S.pool.pkts[q].type == PKT_NACK)
            out[n++] = pkt_at(&S.pool, q);
    return n;
}

/* A trimmed header of a packet the receiver has is answered with an ACK,
 * not a NACK (nothing is to be resent). */
static void test_eqds_trimmed_duplicate_is_acked(void **st)
{
    (void)st;
    receiver_setup();
    deliver_data(0, 0); /* the first packet: ACKed at once */
    deliver_data(0, PKTF_TRIMMED);
    assert_int_equal(S.tot.acks_sent, 2);
    assert_int_equal(S.tot.nacks_sent, 0);
    deliver_data(1, PKTF_TRIMMED);
    assert_int_equal(S.tot.nacks_sent, 1);
    sim_free(&S);
}

/* An AR that arrives while a hole remains is answered again when the hole
 * fills, although the byte threshold is not reached. */
static void test_eqds_ack_request_answered_when_holes_fill(void **st)
{
    (void)st;
    receiver_setup();
    deliver_data(1, PKTF_AR); /* hole at 0: ACKed at once (AR, and the first) */
    assert_int_equal(S.tot.acks_sent, 1);
    deliver_data(2, 0); /* 8300 B since: no ACK */
    assert_int_equal(S.tot.acks_sent, 1);
    deliver_data(0, 0); /* the hole fills */
    assert_int_equal(S.tot.acks_sent, 2);
    const struct packet *a[4];
    assert_int_equal(acks_at(a, 4), 2);
    assert_int_equal(a[1]->seq, 3); /* cumulative: everything */
    sim_free(&S);
}

/* The SACK bitmap starts as late as still covers the packet that caused
 * the ACK (htsim sackBitmapBase): max(seq - 63, first hole + 1). */
static void test_eqds_sack_bitmap_base(void **st)
{
    (void)st;
    receiver_setup();
    deliver_data(0, 0);
    for (uint32_t q = 2; q < 100; q++)
        deliver_data(q, 0); /* hole at 1 */
    const struct packet *a[64];
    uint32_t n = acks_at(a, 64);
    assert_true(n > 20);
    uint32_t late = 0;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t r = a[i]->ref_seq;
        uint32_t base = r >= 65 ? r - 63 : 2;
        assert_int_equal(a[i]->seq, 1);
        assert_int_equal(a[i]->sack_base, base);
        assert_true((a[i]->sack_bits >> (r - base)) & 1); /* covers its packet */
        late += r >= 65;
    }
    assert_true(late > 5);
    sim_free(&S);
}

/* EQDS (htsim main_eqds): no ECN unless -ecn is given, and then never on
 * ToR downlinks. */
static void test_eqds_ecn_only_with_the_flag(void **st)
{
    (void)st;
    for (int given = 0; given < 2; given++) {
        struct config c;
        config_defaults(&c);
        c.tm_path = shared_path("htsim/matrices/one.cm");
        c.transport_name = "eqds";
        if (given) {
            c.ecn_low_pkts = 10;
            c.ecn_high_pkts = 25;
        }
        sim_setup(&S, &c);
        uint32_t ecn = 0, lasthop_ecn = 0;
        for (uint32_t i = S.n_hosts; i < S.n_ports; i++) {
            ecn += (S.ports[i].flags & PORTF_ECN) != 0;
            lasthop_ecn += (S.ports[i].flags & (PORTF_ECN | PORTF_LASTHOP)) == (PORTF_ECN | PORTF_LASTHOP);
        }
        assert_int_equal(lasthop_ecn, 0);
        assert_int_equal(ecn, given ? S.n_ports - S.n_hosts - 16 : 0);
        assert_int_equal(S.queue_bytes, 35 * 4150);           /* htsim main_eqds: 35 packets */
        assert_int_equal(S.min_rto_ps, 150 * PS_PER_US + 69720000); /* + 6 x 145250 B at 100 Gb/s */
        sim_free(&S);
    }
}

/* Trims at the receiver's own downlink say nothing about the path: an EQDS
 * incast whose only trims are last-hop leaves every Bitmap penalty at zero. */
static void test_eqds_last_hop_trims_do_not_penalize_paths(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 32\nConnections 7\n1->0 start 0 size 2000000\n2->0 start 0 size 2000000\n"
                          "3->0 start 0 size 2000000\n4->0 start 0 size 2000000\n5->0 start 0 size 2000000\n"
                          "6->0 start 0 size 2000000\n7->0 start 0 size 2000000\n",
                          ".cm");
    c.topo_path = shared_path("htsim/topologies/leaf_spine_tiny.topo");
    c.transport_name = "eqds";
    c.lb_name = "bitmap";
    c.end_ps = 150 * PS_PER_US;
    sim_setup(&S, &c);
    sim_run(&S);
    uint64_t trims = 0, last_hop_trims = 0;
    for (uint32_t i = 0; i < S.n_ports; i++) {
        trims += S.ports[i].st.trims;
        if (S.ports[i].flags & PORTF_LASTHOP)
            last_hop_trims += S.ports[i].st.trims;
    }
    assert_true(trims > 50);
    assert_int_equal(trims, last_hop_trims);
    for (uint32_t fi = 0; fi < S.n_flows; fi++)
        for (uint16_t ev = 0; ev < 64; ev++)
            assert_int_equal(lb_bitmap_penalty(S.flows[fi].lb_state, ev), 0);
    sim_free(&S);
}

/* -recv_oversub_cc: trimmed arrivals count as congestion, so the pacer of
 * an incast's receiver skips pulls. */
static void test_eqds_recv_oversub_cc_skips_pulls(void **st)
{
    (void)st;
    uint64_t pulls[2];
    for (int skip = 0; skip < 2; skip++) {
        struct config c;
        config_defaults(&c);
        c.tm_path = shared_path("htsim/matrices/incast.cm");
        c.end_ps = 500 * PS_PER_US;
        c.transport_name = "eqds";
        if (skip)
            config_add_flag(&c, "-recv_oversub_cc", NULL, NULL);
        sim_setup(&S, &c);
        assert_true(eqds_pacer_cfg(&S)->skip_on_congestion == skip);
        sim_run(&S);
        pulls[skip] = S.tot.pulls_sent;
        sim_free(&S);
    }
    assert_true(pulls[1] < pulls[0]);
}

/* Short flows, as the reference runs them (exact to its printed digits):
 * a 20-packet flow to the host beside it sends 14 packets speculatively
 * before the first ACK ends speculation; the rest then waits, credit-less,
 * for the timeout and an RTS (htsim_eqds: 234.064 us). Two 50-packet flows
 * into one host: 245.033 and 285.630 us. */
static void test_eqds_short_flows_match_reference(void **st)
{
    (void)st;
    struct run_opts o = EQDS;
    o.paths = 1;
    run(temp_file("Nodes 16\nConnections 1\n0->1 id 1 start 0 size 81720\n", ".cm"), 1000, &o);
    assert_true(llabs((long long)S.flows[0].finish_ps - 234064000) < 1000); /* printed to 1 ns */
    assert_int_equal(S.tot.rts_sent, 1);
    sim_free(&S);
    run(temp_file("Nodes 16\nConnections 2\n1->0 id 1 start 0 size 204300\n2->0 id 2 start 0 size 204300\n", ".cm"),
        1000, &o);
    assert_true(llabs((long long)S.flows[0].finish_ps - 245033000) < 1000);
    assert_true(llabs((long long)S.flows[1].finish_ps - 285630000) < 1000);
    sim_free(&S);
}

/* Regression (found by the Poisson tests): a lone flow that is entirely
 * sent before speculation ends and whose speculative credit outlasts it
 * (about 131 to 200 KB here) stalled for ever: the receiver had last heard
 * a pull target that still counted the leftover speculative credit, and
 * with nothing in flight no timer ran. htsim_eqds stalls the same way on
 * these files; the sender now gives the credit up and sends an RTS with the
 * true target. Both modes (one pacer per receiver, one per connection); the
 * finish times are this build's: about 2 RTTs of RTS and pulls late. */
static void test_eqds_lone_flow_after_speculation_finishes(void **st)
{
    (void)st;
    static const uint64_t sizes[] = {138235, 150000, 200000};
    static const double finish_us[] = {37.312, 38.268, 42.333};
    for (int per_conn = 0; per_conn < 2; per_conn++)
        for (unsigned i = 0; i < 3; i++) {
            struct run_opts o = EQDS;
            if (per_conn) {
                o.sender_cc = 1;
                o.receiver_cc = 0;
            }
            char cm[128];
            snprintf(cm, sizeof cm, "Nodes 16\nConnections 1\n4->7 id 1 start 0 size %llu\n",
                     (unsigned long long)sizes[i]);
            run(temp_file(cm, ".cm"), 1000, &o);
            if (S.flows[0].state != FLOW_DONE)
                fail_msg("%llu B (pacer per %s): not finished", (unsigned long long)sizes[i],
                         per_conn ? "connection" : "receiver");
            assert_int_equal(S.tot.rts_sent, 1);
            if (!per_conn && fabs((double)S.flows[0].finish_ps / PS_PER_US - finish_us[i]) > 0.01)
                fail_msg("%llu B: finished at %.3f us, expected %.3f", (unsigned long long)sizes[i],
                         (double)S.flows[0].finish_ps / PS_PER_US, finish_us[i]);
            sim_free(&S);
        }
}

/* The reference's 2-to-1 case (two 4 MB flows into host 0, one path each):
 * htsim_uec -receiver_cc_only finishes the second at 658.4 us, the first at
 * 650.7 us, with 499 ACKs (AR on every packet that spends the credit). */
static void test_uet_receiver_credit_two_to_one_matches_reference(void **st)
{
    (void)st;
    struct run_opts o = RCC;
    o.paths = 1;
    run(temp_file("Nodes 16\nConnections 2\n1->0 id 1 start 0 size 4000000\n5->0 id 2 start 0 size 4000000\n", ".cm"),
        5000, &o);
    double tail = tail_us();
    if (fabs(tail - 658.388) > 0.01 * 658.388)
        fail_msg("tail %.3f us, htsim 658.388 us", tail);
    double a = (double)(S.flows[0].finish_ps) / PS_PER_US, b = (double)(S.flows[1].finish_ps) / PS_PER_US;
    assert_true(fabs(a - b) < 0.02 * tail); /* both shared the link */
    assert_int_equal(S.tot.rtx_pkts_sent, 0);
    assert_int_equal(S.tot.acks_sent, 499);
    sim_free(&S);
}

/* htsim main_uec: with receiver credit, ToR downlinks do not mark ECN. */
static void test_uet_receiver_credit_turns_ecn_off_on_tor_downlinks(void **st)
{
    (void)st;
    const struct run_opts plain = {.sender_cc = -1, .receiver_cc = -1};
    for (int credit = 0; credit < 2; credit++) {
        setup(shared_path("htsim/matrices/one.cm"), 10, credit ? &RCC : &plain);
        uint32_t lasthop = 0, lasthop_ecn = 0, other_ecn = 0;
        for (uint32_t i = S.n_hosts; i < S.n_ports; i++) {
            bool ecn = S.ports[i].flags & PORTF_ECN;
            if (S.ports[i].flags & PORTF_LASTHOP) {
                lasthop++;
                lasthop_ecn += ecn;
            } else {
                other_ecn += ecn;
            }
        }
        assert_int_equal(lasthop, 16);
        assert_int_equal(lasthop_ecn, credit ? 0 : 16);
        assert_int_equal(other_ecn, S.n_ports - S.n_hosts - 16);
        sim_free(&S);
    }
}

/* On a 4:1 oversubscribed leaf-spine without a sender window, receivers
 * scale their pull rate down (htsim switches this on by itself); with the
 * window it stays off. */
static void test_uet_receiver_credit_slows_pulls_on_oversubscribed_tree(void **st)
{
    (void)st;
    const char *tm = temp_file("Nodes 32\nConnections 16\n0->16 start 0 size 2000000\n1->17 start 0 size 2000000\n"
                               "2->18 start 0 size 2000000\n3->19 start 0 size 2000000\n4->20 start 0 size 2000000\n"
                               "5->21 start 0 size 2000000\n6->22 start 0 size 2000000\n7->23 start 0 size 2000000\n"
                               "8->24 start 0 size 2000000\n9->25 start 0 size 2000000\n10->26 start 0 size 2000000\n"
                               "11->27 start 0 size 2000000\n12->28 start 0 size 2000000\n13->29 start 0 size 2000000\n"
                               "14->30 start 0 size 2000000\n15->31 start 0 size 2000000\n",
                               ".cm");
    struct run_opts o = RCC;
    o.paths = 64;
    o.topo = shared_path("htsim/topologies/leaf_spine_tiny.topo");
    run(tm, 200, &o);
    const struct pull_pacer_cfg *cfg = uet_credit_pacer_cfg(&S);
    assert_true(cfg->rate_control);
    assert_true(fabs(cfg->min_rate - 0.9 / 4) < 1e-12);
    double lowest = 1;
    for (uint32_t h = 16; h < 32; h++)
        if (uet_credit_pacer(&S, h)->ctl.rate < lowest)
            lowest = uet_credit_pacer(&S, h)->ctl.rate;
    assert_true(lowest < 0.9);
    sim_free(&S);
    o.sender_cc = 1;
    setup(tm, 10, &o);
    assert_false(uet_credit_pacer_cfg(&S)->rate_control);
    sim_free(&S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eqds_single_flow_near_first_principles),
        cmocka_unit_test(test_eqds_incast_fair_shares),
        cmocka_unit_test(test_packets_conserved_mid_run),
        cmocka_unit_test(test_same_seed_same_output),
        cmocka_unit_test(test_speculative_start_is_one_window),
        cmocka_unit_test(test_eqds_sender_window_caps_credit),
        cmocka_unit_test(test_eqds_rts_restarts_a_sender_without_credit),
        cmocka_unit_test(test_eqds_trim_owes_one_mtu_of_credit),
        cmocka_unit_test(test_eqds_transmission_count_saturates),
        cmocka_unit_test(test_uet_transmission_count_saturates),
        cmocka_unit_test(test_eqds_recv_oversub_cc_skips_pulls),
        cmocka_unit_test(test_eqds_trimmed_duplicate_is_acked),
        cmocka_unit_test(test_eqds_ack_request_answered_when_holes_fill),
        cmocka_unit_test(test_eqds_sack_bitmap_base),
        cmocka_unit_test(test_eqds_ecn_only_with_the_flag),
        cmocka_unit_test(test_eqds_last_hop_trims_do_not_penalize_paths),
        cmocka_unit_test(test_pull_ends_speculation_and_credit_is_capped),
        cmocka_unit_test(test_uet_flows_sharing_a_nic_split_their_demand),
        cmocka_unit_test(test_uet_trim_asks_for_credit),
        cmocka_unit_test(test_uet_timeout_without_credit_sends_rts),
        cmocka_unit_test(test_eqds_short_flows_match_reference),
        cmocka_unit_test(test_eqds_lone_flow_after_speculation_finishes),
        cmocka_unit_test(test_uet_receiver_credit_two_to_one_matches_reference),
        cmocka_unit_test(test_uet_receiver_credit_turns_ecn_off_on_tor_downlinks),
        cmocka_unit_test(test_uet_receiver_credit_slows_pulls_on_oversubscribed_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
