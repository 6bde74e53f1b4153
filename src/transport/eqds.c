/* eqds.c: EQDS, the receiver-driven transport that UET's receiver credit
 * descends from, as the reference simulator's htsim_eqds runs it. Behaviour
 * read from htsim eqds.cpp (EqdsSrc, EqdsSink, EqdsPullPacer) and
 * main_eqds.cpp; this file is written from that description, in spraysim's
 * own structures.
 *
 * Sender. A flow starts with one window of speculative credit (-cwnd
 * packets, default 64) and sends it unsolicited at line rate. Each data
 * packet carries a pull target: the pull number heard so far plus what the
 * sender still has to send (new bytes; at most one window, with -sender_cc
 * at most cwnd + 1 MTU) minus the credit it holds. The first ACK, NACK or
 * PULL ends speculation; from then on a packet goes out on pulled credit
 * (PULLs add 4 KB each, capped at one window), and a sender that holds no
 * pulled credit but some speculative credit left gives up one packet's
 * worth of it instead of sending; when the pull target would not advance by
 * a quantum it gives up one MTU of it too, so the target keeps moving. A
 * packet may go out while any credit is left (and, with -sender_cc, while
 * the window is not below the bytes in flight). Retransmissions (after a NACK or
 * a timeout) go before new data. AR is set on the last new packet, when the
 * pulled credit is overspent, and on every retransmission.
 *
 * Receiver. Data is ACKed with the cumulative ACK and a 64-bit SACK bitmap
 * every 16 KB (4000 B with -sender_cc), at once on CE, AR, the first packet
 * and duplicates. A trimmed header gets an immediate NACK and makes the
 * receiver owe the sender one MTU of credit for the retransmission (pulled
 * before anything else). The receiving NIC's pull pacer (pull_pacer.c)
 * sends one 4 KB PULL per tick at 0.99 of the line rate: retransmitting
 * senders first, then active ones, then idle ones (up to one window of
 * speculative credit beyond their target).
 *
 * Timeout (min RTO 150 us + six queue drain times): the oldest packet in
 * flight is queued for retransmission; when retransmissions were already
 * waiting, the window is full or no pulled credit is left, the sender sends
 * an RTS (at most one per smoothed RTT), which carries the pull target and
 * makes the receiver owe one MTU of credit and ACK its state.
 *
 * Network (htsim main_eqds.cpp): 35-packet queues, trimming to 64-byte
 * headers, no ECN unless -ecn is given and never on ToR downlinks; a header
 * that finds the control queue full is dropped (htsim_eqds bounces none).
 *
 * Departures, each small: an RTS takes no sequence number (htsim gives it
 * one and ACKs it like data); a timed-out packet leaves the bytes in flight
 * (htsim keeps counting it until its retransmission is ACKed); the load
 * balancer is the run's --lb, told of trims at the last hop as clean
 * deliveries (htsim's own sprayer penalises every NACK's path).
 *
 * Invariant (checked with SPRAYSIM_CHECKS): a flow's in_flight_bytes is the
 * wire size of its packets whose record says TX_IN_FLIGHT.
 */
#include "eqds.h"
#include "data_packet.h"

#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../sim.h"
#include "flow.h"
#include "transport.h"
#include "uet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* htsim eqdspacket.h: credit in 512-byte quanta. */
#define EQDS_QUANTUM_BYTES 512
/* htsim eqds.cpp: _credit_per_pull = 8 quanta = 4 KB. */
#define EQDS_PULL_Q 8
/* htsim main_eqds.cpp: pacers at 0.99 of the line rate; eqds.cpp's pacer
 * tick is the time of one frame of a 4 KB-payload packet (4096 B + 64 B
 * header) plus 38 B of Ethernet framing (IPG, preamble, SFD, header, FCS). */
#define EQDS_PULL_RATE_FACTOR 0.99
#define EQDS_PULL_PAYLOAD_BYTES 4096
#define ETH_FRAMING_BYTES 38
/* htsim main_eqds.cpp: DEFAULT_CWND 64 packets, DEFAULT_QUEUE_SIZE 35
 * packets, min RTO 150 us + six queue drain times. */
#define EQDS_DEFAULT_CWND_PKTS 64
#define EQDS_DEFAULT_QUEUE_PKTS 35
#define EQDS_RTO_BASE_PS (150 * PS_PER_US)
/* htsim main_eqds.cpp: with a sender CC the receiver ACKs every 4000 bytes. */
#define EQDS_SENDER_CC_ACK_BYTES 4000

enum eqds_timer {
    EQDS_TIMER_RTO = 0,
    EQDS_TIMER_PULL = 1, /* the pull pacer of the flow's receiver (or of the flow) ticks */
};

/* Per flow, in tp_state. */
struct eqds_flow {
    struct pull_client rcv;  /* receiver side; first, where pull_pacer.c finds it */
    /* sender */
    int64_t credit_pull_bytes; /* from PULLs; may go below zero by less than a packet */
    int64_t credit_spec_bytes; /* speculative: the initial window, spent or given up */
    int64_t pull_q;          /* the highest pull number heard */
    int64_t target_q;        /* the pull target last stamped */
    bool speculating;        /* nothing heard from the receiver yet */
    bool rts_outstanding;    /* an RTS was sent and nothing has been heard since */
    simtime_ps srtt_ps;      /* smoothed RTT: at most one RTS per srtt */
    simtime_ps last_rts_ps;
    /* receiver */
    uint32_t unacked_bytes;  /* wire bytes arrived since the last ACK */
    bool ack_request;        /* an AR arrived while holes remained */
    /* packet delivery as UET keeps it: sequence space, per-packet records,
     * retransmission queue, reassembly bitmap (struct uet_flow, uet.h) */
    struct uet_flow seq;
};

struct eqds_run {
    struct pull_pacer_cfg cfg;
    struct pull_pacer *pacers; /* one per receiving host, or per flow with -sender_cc_only */
    uint32_t n_pacers;
    bool per_flow_pacer;
    bool window;               /* -sender_cc: the CC's window caps the sender too */
    bool reads_ecn;            /* a sender window or -recv_oversub_cc acts on ECN marks */
    int64_t maxwnd_bytes;      /* -cwnd x MTU */
    uint32_t ack_threshold_bytes;
    int64_t rtx_credit_q;      /* owed per trim or RTS: one MTU in quanta, rounded up */
    simtime_ps rto_ps;
};

/* The run's EQDS state (transport_run_state), NULL before setup. */
static inline struct eqds_run *er(const struct sim *s)
{
    return transport_run_state(s, &transport_eqds_ops);
}

static inline struct eqds_flow *ef(const struct sim *s, uint32_t fi)
{
    return s->flows[fi].tp_state;
}

/* A flow's packet-delivery state. */
static inline struct uet_flow *sq(const struct flow *f)
{
    return &((struct eqds_flow *)f->tp_state)->seq;
}

struct uet_flow *eqds_seq_of(const struct flow *f)
{
    return sq(f);
}

/* The pull pacer's view of an EQDS flow: its state begins with the receiver's
 * struct pull_client. */
static struct pull_client *eqds_client_of(struct sim *s, uint32_t fi)
{
    return s->flows[fi].tp_state;
}

static inline bool rcv_has(const struct flow *f, uint32_t seq)
{
    return rcv_window_has(&sq(f)->rcv_win, sq(f)->rcv_cum, seq);
}

static struct pull_pacer *pacer_of(struct sim *s, uint32_t fi)
{
    struct eqds_run *r = er(s);
    return &r->pacers[r->per_flow_pacer ? fi : s->flows[fi].dst];
}

#ifdef SPRAYSIM_CHECKS
static void check_in_flight(const struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    if (f->state != FLOW_ACTIVE)
        return;
    uint64_t bytes = 0;
    for (uint32_t q = sq(f)->cum_acked; q < sq(f)->next_new_seq; q++)
        if (uet_txr(sq(f), q)->state == TX_IN_FLIGHT)
            bytes += flow_pkt_wire_bytes(f, q, s->cfg.mtu_bytes, s->cfg.hdr_bytes);
    invariant(sq(f)->in_flight_bytes == bytes, "EQDS flow %u in_flight_bytes %llu but its packets in flight hold %llu",
              fi, (unsigned long long)sq(f)->in_flight_bytes, (unsigned long long)bytes);
}
#else
static inline void check_in_flight(const struct sim *s, uint32_t fi)
{
    (void)s;
    (void)fi;
}
#endif

/* ---- setup -------------------------------------------------------------------- */

static void eqds_setup(struct sim *s)
{
    const struct config *c = &s->cfg;
    bool credit = c->receiver_cc != 0; /* -sender_cc_only turns receiver-driven pulling off */
    bool window = c->sender_cc == 1;
    if (!credit && !window)
        die_input("--transport eqds: receiver credit and the sender window are both off");
    struct eqds_run *r = xcalloc(1, sizeof(*r));
    transport_set_run_state(s, &transport_eqds_ops, r);
    r->window = window;
    r->per_flow_pacer = !credit;
    r->maxwnd_bytes = (int64_t)(c->cwnd_pkts ? c->cwnd_pkts : EQDS_DEFAULT_CWND_PKTS) * c->mtu_bytes;
    r->ack_threshold_bytes = c->ack_threshold_bytes;
    if (window && r->ack_threshold_bytes > EQDS_SENDER_CC_ACK_BYTES)
        r->ack_threshold_bytes = EQDS_SENDER_CC_ACK_BYTES;
    r->rtx_credit_q = pull_quanta_ceil(c->mtu_bytes, EQDS_QUANTUM_BYTES);
    r->rto_ps = EQDS_RTO_BASE_PS + (simtime_ps)((double)s->queue_bytes * 6 * 8e6 / c->linkspeed_mbps);
    if (window) {
        /* check --cc-opt now, as UET does, by initialising one state */
        struct cc_params cp;
        transport_cc_params(s, &cp, s->topo.diameter_hops, PKT_PRIO_DATA);
        void *probe = xcalloc(1, s->cc->state_size);
        s->cc->init(probe, &cp);
        free(probe);
    } else if (c->cc_given) {
        warn_input("--cc %s has no effect on EQDS without a sender window: add -sender_cc", s->cc->name);
    }
    if (!window && !strcmp(c->transport_name, "eqds"))
        s->no_sender_window = true;
    r->cfg = (struct pull_pacer_cfg){
        .quantum_bytes = EQDS_QUANTUM_BYTES,
        .per_pull_q = EQDS_PULL_Q,
        /* -planes N: the NIC receives on N ports (htsim EqdsPullPacer divides
         * by linkspeed x ports) */
        .tick_ps = (simtime_ps)(EQDS_PULL_RATE_FACTOR * 8.0 *
                                (EQDS_PULL_PAYLOAD_BYTES + c->hdr_bytes + ETH_FRAMING_BYTES) * 1e6 /
                                ((double)c->linkspeed_mbps * c->planes)),
        .idle_cap_q = r->maxwnd_bytes / EQDS_QUANTUM_BYTES,
        .paths = c->paths,
        .timer_kind = EQDS_TIMER_PULL,
        .skip_on_congestion = transport_flag_given(s, "-recv_oversub_cc"),
        .seed = c->seed,
        .client_of = eqds_client_of,
    };
    r->n_pacers = r->per_flow_pacer ? s->n_flows : s->n_hosts;
    r->pacers = xcalloc(r->n_pacers ? r->n_pacers : 1, sizeof(struct pull_pacer));
    for (uint32_t i = 0; i < r->n_pacers; i++)
        pull_pacer_init(&r->pacers[i], &r->cfg, i);
    r->reads_ecn = window || transport_flag_given(s, "-recv_oversub_cc");
}

/* htsim main_eqds.cpp: ECN only when -ecn is given, never on ToR downlinks
 * (ops.ecn_only_when_given tells sim.c the same). A preference unless a
 * sender window or -recv_oversub_cc reads the marks; trimming as configured
 * (a trimmed header is EQDS's loss signal). */
static void eqds_fabric_needs(const struct sim *s, uint32_t classes, struct class_need need[PORT_MAX_CLASSES])
{
    for (uint32_t k = PKT_PRIO_DATA; k < PORT_MAX_CLASSES; k++)
        if (classes & (1u << k))
            need[k] = (struct class_need){
                .ecn = s->cfg.ecn_high_pkts ? NEED_BASE : NEED_OFF,
                .ecn_lasthop = NEED_OFF,
                .ecn_weak = !er(s)->reads_ecn,
                .trim = NEED_BASE,
            };
}

/* A flow that arrived during the run: its state comes at its start, as
 * every EQDS flow's does; with a pacer per flow, it needs one more. */
static void eqds_flow_add(struct sim *s, uint32_t fi)
{
    struct eqds_run *r = er(s);
    if (!r->per_flow_pacer || fi < r->n_pacers)
        return;
    uint32_t n = r->n_pacers < 1024 ? 1024 : r->n_pacers > UINT32_MAX / 2 ? UINT32_MAX : 2 * r->n_pacers;
    r->pacers = xrealloc(r->pacers, (size_t)n * sizeof(struct pull_pacer));
    for (uint32_t i = r->n_pacers; i < n; i++)
        pull_pacer_init(&r->pacers[i], &r->cfg, i);
    r->n_pacers = n;
}

static void eqds_free(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_flows; i++) {
        struct flow *f = &s->flows[i];
        if (f->tp != &transport_eqds_ops)
            continue;
        free(f->cc_counters);
        if (!f->tp_state)
            continue; /* never started: nothing else was allocated */
        uet_free_sender_state(f, sq(f));
        rcv_window_free(&sq(f)->rcv_win);
        free(f->tp_state);
        f->tp_state = NULL;
    }
    struct eqds_run *r = er(s);
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_pacers; i++)
        pull_pacer_free(&r->pacers[i]);
    free(r->pacers);
    free(r);
    transport_set_run_state(s, &transport_eqds_ops, NULL);
}

/* ---- sender: credit and the pull target ----------------------------------------- */

static inline int64_t credit(const struct eqds_flow *e)
{
    return e->credit_pull_bytes + e->credit_spec_bytes;
}

/* Pulled credit first; speculative credit while speculating. Otherwise the
 * packet's worth of speculative credit is given up and nothing is sent, so
 * the pull target can advance (htsim spendCredit). */
static bool spend_credit(struct eqds_flow *e, int64_t size)
{
    if (e->credit_pull_bytes > 0) {
        e->credit_pull_bytes -= size;
        return true;
    }
    if (e->speculating && e->credit_spec_bytes > 0) {
        e->credit_spec_bytes -= size;
        return true;
    }
    e->credit_spec_bytes -= size;
    return false;
}

/* The pull target, in quanta (htsim computePullTarget). */
static int64_t pull_target(struct sim *s, uint32_t fi)
{
    const struct eqds_run *r = er(s);
    const struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    int64_t mtu = s->cfg.mtu_bytes;
    int64_t want = (int64_t)transport_unsent_wire_bytes(s, fi, sq(&s->flows[fi])->next_new_seq);
    if (r->window && want > (int64_t)cc_cwnd(f->cc_state) + mtu)
        want = (int64_t)cc_cwnd(f->cc_state) + mtu;
    if (want > r->maxwnd_bytes)
        want = r->maxwnd_bytes;
    int64_t target = want - credit(e) + e->pull_q * EQDS_QUANTUM_BYTES;
    /* keep the target moving once speculation is over */
    if (!e->speculating && target - e->target_q * EQDS_QUANTUM_BYTES < EQDS_QUANTUM_BYTES &&
        e->credit_spec_bytes > 0) {
        e->credit_spec_bytes -= mtu;
        target += mtu;
    }
    return pull_quanta_ceil(target, EQDS_QUANTUM_BYTES);
}

static void stop_speculating(struct eqds_flow *e)
{
    e->speculating = false;
}

/* Next sequence number to send: retransmissions first; UINT32_MAX = none. */
static uint32_t next_seq(struct flow *f)
{
    while (sq(f)->rtx_len && uet_txr(sq(f), sq(f)->rtx_ring[sq(f)->rtx_head])->state != TX_RTX_QUEUED) {
        sq(f)->rtx_head = (sq(f)->rtx_head + 1) & sq(f)->rtx_mask;
        sq(f)->rtx_len--;
    }
    if (sq(f)->rtx_len)
        return sq(f)->rtx_ring[sq(f)->rtx_head];
    return sq(f)->next_new_seq < f->n_pkts ? sq(f)->next_new_seq : UINT32_MAX;
}

static void rtx_push(struct flow *f, uint32_t seq)
{
    uet_txw(sq(f), seq)->state = TX_RTX_QUEUED;
    uet_rtx_ring_push(sq(f), seq);
}

static void arm_rto(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (sq(f)->rto_event_pending)
        return;
    sq(f)->rto_event_pending = true;
    sq(f)->rto_event_ps = s->now + er(s)->rto_ps;
    transport_timer_at(s, sq(f)->rto_event_ps, fi, EQDS_TIMER_RTO);
}

/* htsim sendIfPermitted: any credit, the window not below the bytes in flight,
 * something to send: then the flow waits for its turn on the NIC. */
static void sender_wake(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    if (f->state != FLOW_ACTIVE || credit(e) <= 0)
        return;
    if (er(s)->window && cc_cwnd(f->cc_state) <= sq(f)->in_flight_bytes)
        return;
    if (next_seq(f) == UINT32_MAX)
        return;
    transport_nic_ready(s, fi);
}

static uint32_t make_data_packet(struct sim *s, uint32_t fi, uint32_t seq)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    bool rtx = uet_txr(sq(f), seq)->state == TX_RTX_QUEUED;
    if (rtx) {
        sq(f)->rtx_head = (sq(f)->rtx_head + 1) & sq(f)->rtx_mask;
        sq(f)->rtx_len--;
    } else {
        uet_tx_claim(sq(f), seq);
        sq(f)->next_new_seq++;
    }
    uint32_t size = flow_pkt_wire_bytes(f, seq, s->cfg.mtu_bytes, s->cfg.hdr_bytes);
    sq(f)->in_flight_bytes += size;
    e->target_q = pull_target(s, fi);
    uint32_t idx = transport_data_packet(s, fi, seq, size);
    struct packet *p = pkt_at(&s->pool, idx);
    p->pull_q = e->target_q;
    uet_txw(sq(f), seq)->entropy = p->entropy;
    uet_txw(sq(f), seq)->state = TX_IN_FLIGHT;
    if (uet_txr(sq(f), seq)->count < UINT8_MAX)
        uet_txw(sq(f), seq)->count++;
    uet_txw(sq(f), seq)->time_ps = s->now;
    sq(f)->last_send_ps = s->now;
    f->c.pkts_sent++;
    s->tot.data_pkts_sent++;
    if (rtx) {
        p->flags |= PKTF_RTX | PKTF_AR;
        f->c.retransmits++;
        s->tot.rtx_pkts_sent++;
    } else if (sq(f)->next_new_seq >= f->n_pkts || e->credit_pull_bytes < 0) {
        p->flags |= PKTF_AR; /* the last new packet, or the pulled credit overspent */
    }
    arm_rto(s, fi);
    check_in_flight(s, fi);
    return idx;
}

/* htsim timeToSend: the NIC is free and this flow is next. */
static uint32_t eqds_nic_pull(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    if (f->state != FLOW_ACTIVE)
        return PKT_NONE;
    uint32_t seq = next_seq(f);
    if (seq == UINT32_MAX)
        return PKT_NONE;
    if (er(s)->window && cc_cwnd(f->cc_state) < sq(f)->in_flight_bytes)
        return PKT_NONE;
    if (credit(e) <= 0 || !spend_credit(e, flow_pkt_wire_bytes(f, seq, s->cfg.mtu_bytes, s->cfg.hdr_bytes)))
        return PKT_NONE;
    return make_data_packet(s, fi, seq);
}

static void send_rts(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    if (e->last_rts_ps && s->now - e->last_rts_ps < e->srtt_ps)
        return; /* at most one per RTT: an incast of RTS helps nobody */
    e->last_rts_ps = s->now;
    e->rts_outstanding = true;
    f->c.rts++;
    s->tot.rts_sent++;
    uint32_t idx = transport_new_packet(s, fi, PKT_RTS, sq(f)->next_new_seq, s->cfg.hdr_bytes);
    struct packet *p = pkt_at(&s->pool, idx);
    p->ts_ps = s->now;
    p->pull_q = e->target_q;
    p->entropy = f->lb->next_entropy(f->lb_state, sq(f)->next_new_seq, s->now);
    nic_send(s, f->src, idx);
    arm_rto(s, fi);
}

/* Liveness guard (our addition; htsim stalls here): speculation is over,
 * nothing is in flight, no pulled credit is left, yet data waits. The last
 * pull target the receiver heard was computed while the leftover
 * speculative credit still counted against it, so the receiver believes it
 * owes nothing, and with nothing in flight no ACK, timeout or packet will
 * ever carry a new target: a lone flow of about 131-200 KB never finished
 * (htsim_eqds the same). The sender gives up its unusable speculative
 * credit and asks with an RTS carrying the corrected target. */
static void request_if_stalled(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    if (e->speculating || sq(f)->in_flight_bytes || e->credit_pull_bytes > 0 || e->rts_outstanding)
        return;
    if (next_seq(f) == UINT32_MAX)
        return;
    if (e->last_rts_ps && s->now - e->last_rts_ps < e->srtt_ps)
        return; /* an RTS was just answered: the receiver pulls for it */
    if (e->credit_spec_bytes > 0)
        e->credit_spec_bytes = 0;
    int64_t target_q = pull_target(s, fi);
    if (target_q <= e->target_q)
        return; /* the receiver already knows this much: its pulls are coming */
    e->target_q = target_q;
    e->last_rts_ps = 0; /* not one of the RTO's RTSs: no once-per-RTT limit */
    send_rts(s, fi);
}

/* ---- sender: lifecycle and feedback --------------------------------------------------- */

static void eqds_flow_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (!transport_flow_activate(s, f))
        return;
    struct eqds_run *r = er(s);
    if (s->cfg.htsim_output)
        sim_htsim_printf(s, "Flow Eqds_%u_%u flowId %u eqdsSrc %u starting at %g\n", f->src, f->dst, f->id, fi,
               (double)s->now / PS_PER_US);
    struct eqds_flow *e = xcalloc(1, sizeof(*e));
    e->credit_spec_bytes = r->maxwnd_bytes;
    e->speculating = true;
    e->srtt_ps = r->rto_ps; /* htsim: the RTT estimate starts at the min RTO */
    f->tp_state = e;
    uint32_t n = f->n_pkts;
    uet_tx_alloc(sq(f), n, false); /* EQDS samples RTTs of packets in flight only */
    rcv_window_init(&sq(f)->rcv_win, n);
    if (r->window)
        transport_cc_start(s, fi);
    transport_lb_start(s, fi);
    sender_wake(s, fi);
}

static void flow_finish(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    f->state = FLOW_DONE;
    f->finish_ps = s->now;
    s->flows_finished++;
    if (s->cfg.htsim_output)
        /* htsim eqds.cpp checkFinished's line (time in field 8, as for UET) */
        sim_htsim_printf(s, "Flow Eqds_%u_%u flowId %u eqdsSrc %u finished at %g total packets %u RTS %llu total bytes %llu\n",
               f->src, f->dst, f->id, fi, (double)s->now / PS_PER_US, f->n_pkts, (unsigned long long)f->c.rts,
               (unsigned long long)f->n_pkts * (s->cfg.mtu_bytes - s->cfg.hdr_bytes));
    transport_nic_unready(s, fi);
    transport_cc_save_counters(s, f);
    transport_msg_sent(s, fi);
    uet_free_sender_state(f, sq(f));
    transport_flow_finished(s, fi);
}

/* One acknowledged packet: returns the bytes it takes out of flight. */
static uint32_t ack_one(const struct sim *s, struct flow *f, uint32_t seq)
{
    uint8_t st = uet_txr(sq(f), seq)->state;
    if (st == TX_ACKED || st == TX_UNSENT)
        return 0;
    uet_txw(sq(f), seq)->state = TX_ACKED;
    if (st != TX_IN_FLIGHT)
        return 0; /* was waiting for retransmission: no longer */
    uint32_t size = flow_pkt_wire_bytes(f, seq, s->cfg.mtu_bytes, s->cfg.hdr_bytes);
    invariant(sq(f)->in_flight_bytes >= size, "EQDS flow %u: acknowledging packet %u (%u bytes) with %llu in flight",
              (unsigned)(f - s->flows), seq, size, (unsigned long long)sq(f)->in_flight_bytes);
    sq(f)->in_flight_bytes -= size;
    return size;
}

static void on_ack(struct sim *s, uint32_t fi, const struct packet *a)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    f->c.acks++;
    bool ecn = a->flags & PKTF_ECN_ECHO;
    if (ecn)
        f->c.ecn_acks++;
    /* an RTT sample from the packet that triggered the ACK, when it is
     * clear which transmission arrived (Karn) */
    uint32_t ref = a->ref_seq;
    bool rtx_echo = a->flags & PKTF_RTX_ECHO;
    bool valid = ref < f->n_pkts && uet_txr(sq(f), ref)->state == TX_IN_FLIGHT &&
                 ((uet_txr(sq(f), ref)->count == 1 && !rtx_echo) || (uet_txr(sq(f), ref)->count == 2 && rtx_echo));
    simtime_ps rtt = valid ? s->now - uet_txr(sq(f), ref)->time_ps : 0;
    if (valid)
        e->srtt_ps = e->srtt_ps - e->srtt_ps / 8 + rtt / 8;
    uint64_t newly = 0;
    uint32_t cum = a->seq < f->n_pkts ? a->seq : f->n_pkts;
    for (uint32_t q = sq(f)->cum_acked; q < cum; q++)
        newly += ack_one(s, f, q);
    if (cum > sq(f)->cum_acked)
        sq(f)->cum_acked = cum;
    for (uint64_t bits = a->sack_bits; bits; bits &= bits - 1) {
        uint32_t q = a->sack_base + (uint32_t)__builtin_ctzll(bits);
        if (q < f->n_pkts)
            newly += ack_one(s, f, q);
    }
    while (sq(f)->cum_acked < f->n_pkts && uet_txr(sq(f), sq(f)->cum_acked)->state == TX_ACKED)
        sq(f)->cum_acked++;
    if (a->ref_seq < f->n_pkts)
        f->lb->feedback(f->lb_state, a->entropy, ecn ? LB_ECN : LB_GOOD, s->now);
    if (er(s)->window) {
        struct cc_ack ev = {
            .now = s->now,
            .newly_acked_bytes = newly,
            .rtt_valid = valid,
            .raw_rtt_ps = rtt,
            .ecn = ecn,
            .in_flight_bytes = sq(f)->in_flight_bytes,
        };
        s->cc->on_ack(f->cc_state, &ev);
    }
    e->rts_outstanding = false;
    check_in_flight(s, fi);
    if (sq(f)->cum_acked >= f->n_pkts) {
        flow_finish(s, fi);
        return;
    }
    stop_speculating(e);
    request_if_stalled(s, fi);
    sender_wake(s, fi);
}

static void on_nack(struct sim *s, uint32_t fi, const struct packet *n)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    f->c.nacks++;
    uint32_t seq = n->ref_seq;
    if (seq >= f->n_pkts || uet_txr(sq(f), seq)->state != TX_IN_FLIGHT)
        return; /* acknowledged meanwhile, or already queued again */
    uint32_t size = flow_pkt_wire_bytes(f, seq, s->cfg.mtu_bytes, s->cfg.hdr_bytes);
    bool last_hop = n->flags & PKTF_TRIM_LASTHOP;
    invariant(sq(f)->in_flight_bytes >= size, "EQDS flow %u: packet %u (%u bytes) NACKed with %llu in flight", fi, seq,
              size, (unsigned long long)sq(f)->in_flight_bytes);
    sq(f)->in_flight_bytes -= size;
    if (er(s)->window) {
        struct cc_nack ev = {
            .now = s->now,
            .pkt_bytes = size,
            .raw_rtt_ps = s->now - uet_txr(sq(f), seq)->time_ps,
            .last_hop = last_hop,
            .in_flight_bytes = sq(f)->in_flight_bytes,
        };
        s->cc->on_nack(f->cc_state, &ev);
    }
    stop_speculating(e);
    rtx_push(f, seq);
    /* a trim at the receiver's own downlink says nothing about the path */
    f->lb->feedback(f->lb_state, n->entropy, last_hop ? LB_GOOD : LB_NACK, s->now);
    check_in_flight(s, fi);
    sender_wake(s, fi);
}

static void on_pull(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct eqds_flow *e = ef(s, fi);
    e->credit_pull_bytes += pull_credit_heard(&e->pull_q, p->pull_q, EQDS_QUANTUM_BYTES);
    if (e->credit_pull_bytes > er(s)->maxwnd_bytes)
        e->credit_pull_bytes = er(s)->maxwnd_bytes;
    e->rts_outstanding = false;
    stop_speculating(e);
    sender_wake(s, fi);
}

bool eqds_rto_wants_rts(bool window, uint64_t cwnd_bytes, uint64_t in_flight_bytes, uint32_t size,
                        int64_t credit_pull_bytes)
{
    /* no window or no pulled credit for the retransmission: the receiver
     * may not know the sender waits ("may send while positive": 1 byte of
     * credit is enough; a packet that exactly fills the window fits) */
    return (window && cwnd_bytes < size + in_flight_bytes) || credit_pull_bytes <= 0;
}

static void rto_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    struct eqds_run *r = er(s);
    /* Only the timer last set counts. An expiry that looks again at once
     * (below) replaces the one send_rts has just set an RTO ahead; that
     * earlier event still fires, and if it were served it would set yet
     * another, so a flow that never hears back (its receiver unreachable)
     * gained one live timer per RTO and its events grew with the square of
     * simulated time. */
    if (!sq(f)->rto_event_pending || s->now != sq(f)->rto_event_ps)
        return;
    sq(f)->rto_event_pending = false;
    if (f->state != FLOW_ACTIVE)
        return;
    uint32_t oldest = UINT32_MAX;
    simtime_ps oldest_t = SIMTIME_NEVER;
    for (uint32_t q = sq(f)->cum_acked; q < sq(f)->next_new_seq; q++)
        if (uet_txr(sq(f), q)->state == TX_IN_FLIGHT && uet_txr(sq(f), q)->time_ps < oldest_t) {
            oldest_t = uet_txr(sq(f), q)->time_ps;
            oldest = q;
        }
    /* an unanswered RTS is waited for like a packet (htsim gives it a
     * sequence number and a timer) */
    simtime_ps due = oldest_t;
    if (e->rts_outstanding && e->last_rts_ps < due)
        due = e->last_rts_ps;
    if (due == SIMTIME_NEVER)
        return; /* nothing outstanding: re-armed by the next transmission */
    if (due + r->rto_ps > s->now) {
        sq(f)->rto_event_pending = true;
        sq(f)->rto_event_ps = due + r->rto_ps;
        transport_timer_at(s, sq(f)->rto_event_ps, fi, EQDS_TIMER_RTO);
        return;
    }
    f->c.timeouts++;
    s->tot.rtos++;
    if (e->rts_outstanding && (oldest == UINT32_MAX || e->last_rts_ps < oldest_t)) {
        /* the RTS was lost (or its answer): ask again, whatever the RTT */
        e->rts_outstanding = false;
        e->last_rts_ps = 0;
        send_rts(s, fi);
    } else {
        (void)next_seq(f); /* drops queue entries acknowledged meanwhile */
        bool had_queue = sq(f)->rtx_len > 0;
        uint32_t size = flow_pkt_wire_bytes(f, oldest, s->cfg.mtu_bytes, s->cfg.hdr_bytes);
        invariant(sq(f)->in_flight_bytes >= size, "EQDS flow %u: packet %u (%u bytes) timed out with %llu in flight", fi,
                  oldest, size, (unsigned long long)sq(f)->in_flight_bytes);
        sq(f)->in_flight_bytes -= size;
        rtx_push(f, oldest);
        f->lb->feedback(f->lb_state, uet_txr(sq(f), oldest)->entropy, LB_TIMEOUT, s->now);
        if (had_queue) {
            stop_speculating(e);
            send_rts(s, fi);
        } else if (eqds_rto_wants_rts(r->window, r->window ? cc_cwnd(f->cc_state) : 0, sq(f)->in_flight_bytes,
                                      size, e->credit_pull_bytes)) {
            /* (a flow without a window has no CC state to read) */
            send_rts(s, fi);
        }
    }
    /* look again now: the next-oldest may be overdue too (one per expiry) */
    sq(f)->rto_event_pending = true;
    sq(f)->rto_event_ps = s->now;
    transport_timer_at(s, s->now, fi, EQDS_TIMER_RTO);
    check_in_flight(s, fi);
    sender_wake(s, fi);
}

/* ---- receiver ------------------------------------------------------------------- */

static uint32_t new_ctl_packet(struct sim *s, const struct packet *from, uint8_t type)
{
    uint32_t idx = transport_answer(s, from, type);
    if (from->flags & PKTF_RTX)
        pkt_at(&s->pool, idx)->flags |= PKTF_RTX_ECHO;
    return idx;
}

/* ACK with the cumulative ACK and the 64 packets from `base` (at least the
 * first hole + 1). */
static void send_ack(struct sim *s, struct flow *f, const struct packet *from, uint32_t base, bool ecn)
{
    uint32_t idx = new_ctl_packet(s, from, PKT_ACK);
    struct packet *a = pkt_at(&s->pool, idx);
    if (ecn)
        a->flags |= PKTF_ECN_ECHO;
    if (from->type == PKT_RTS)
        a->ref_seq = UINT32_MAX; /* no data packet to take an RTT sample from */
    if (base < sq(f)->rcv_cum + 1)
        base = sq(f)->rcv_cum + 1;
    a->seq = sq(f)->rcv_cum;
    a->sack_base = base;
    a->sack_bits = base < f->n_pkts ? rcv_window_bits64(&sq(f)->rcv_win, sq(f)->rcv_cum, base) : 0;
    a->recvd_bytes = sq(f)->rcv_bytes;
    ef(s, from->flow)->unacked_bytes = 0;
    s->tot.acks_sent++;
    nic_send(s, f->dst, idx);
}

/* htsim sackBitmapBase: as late as still covers the packet. */
static uint32_t sack_base_for(const struct flow *f, uint32_t seq)
{
    uint32_t base = seq >= 63 ? seq - 63 : 0;
    return base > sq(f)->rcv_cum + 1 ? base : sq(f)->rcv_cum + 1;
}

static void on_data(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    struct eqds_run *r = er(s);
    struct pull_pacer *pp = pacer_of(s, fi);
    bool ecn = p->flags & PKTF_ECN_CE;
    s->tot.data_pkts_delivered++;
    e->unacked_bytes += p->size_bytes;
    pull_target_heard(s, &r->cfg, pp, fi, p->pull_q);
    pull_note_arrival(s, &r->cfg, pp, fi, ecn, false, false);
    if (p->seq < sq(f)->rcv_cum || rcv_has(f, p->seq)) {
        send_ack(s, f, p, ecn ? p->seq : sack_base_for(f, p->seq), ecn); /* duplicate: at once */
        return;
    }
    bool force = sq(f)->rcv_bytes == 0; /* the first packet */
    rcv_window_set(&sq(f)->rcv_win, sq(f)->rcv_cum, p->seq);
    sq(f)->rcv_pkts++;
    sq(f)->rcv_bytes += p->size_bytes;
    if (p->flags & PKTF_AR) {
        force = true;
        e->ack_request = true;
    }
    bool in_order = p->seq == sq(f)->rcv_cum;
    uint32_t old_cum = sq(f)->rcv_cum;
    sq(f)->rcv_cum = rcv_window_walk(&sq(f)->rcv_win, old_cum, f->n_pkts);
    /* an AR that arrived while holes remained is answered when they fill */
    if (in_order && sq(f)->rcv_pkts == sq(f)->rcv_cum && e->ack_request) {
        force = true;
        e->ack_request = false;
    }
    if (sq(f)->rcv_cum == f->n_pkts && !f->rcv_complete) {
        f->rcv_complete = true;
        f->rcv_done_ps = s->now;
        const struct cm_conn *c = &s->cm.conns[f->conn_index];
        if (c->recv_done_trigger != CM_NO_TRIGGER)
            sim_trigger_activate(s, c->recv_done_trigger);
    }
    if (ecn || force || e->unacked_bytes >= r->ack_threshold_bytes)
        send_ack(s, f, p, (ecn || (p->flags & PKTF_AR)) ? p->seq : sack_base_for(f, p->seq), ecn);
}

static void on_trimmed(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    struct eqds_run *r = er(s);
    struct pull_pacer *pp = pacer_of(s, fi);
    s->tot.trimmed_delivered++;
    pull_note_arrival(s, &r->cfg, pp, fi, false, true, p->flags & PKTF_TRIM_LASTHOP);
    if (p->seq < sq(f)->rcv_cum || rcv_has(f, p->seq)) {
        send_ack(s, f, p, p->seq, false);
        return;
    }
    pull_target_heard(s, &r->cfg, pp, fi, p->pull_q);
    uint32_t idx = new_ctl_packet(s, p, PKT_NACK);
    if (p->flags & PKTF_TRIM_LASTHOP)
        pkt_at(&s->pool, idx)->flags |= PKTF_TRIM_LASTHOP;
    s->tot.nacks_sent++;
    nic_send(s, f->dst, idx);
    /* the retransmission will need credit: pull it first */
    pull_request_rtx(s, &r->cfg, pp, fi, r->rtx_credit_q);
}

static void on_rts(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    struct eqds_flow *e = ef(s, fi);
    struct eqds_run *r = er(s);
    struct pull_pacer *pp = pacer_of(s, fi);
    pull_target_heard(s, &r->cfg, pp, fi, p->pull_q);
    /* the sender may have lost a whole window: it must be pulled again,
     * first for the retransmission, then as usual */
    if (e->rcv.rtx_backlog_q == 0 && !e->rcv.in_active)
        pull_request_active(s, &r->cfg, pp, fi);
    pull_request_rtx(s, &r->cfg, pp, fi, r->rtx_credit_q);
    send_ack(s, f, p, sq(f)->rcv_cum + 1, false);
}

const struct pull_pacer_cfg *eqds_pacer_cfg(const struct sim *s)
{
    return er(s) ? &er(s)->cfg : NULL;
}

struct pull_pacer *eqds_pacer(struct sim *s, uint32_t i)
{
    return er(s) && i < er(s)->n_pacers ? &er(s)->pacers[i] : NULL;
}

/* ---- dispatch --------------------------------------------------------------------- */

static void eqds_receive(struct sim *s, uint32_t pkt_idx)
{
    /* a copy: answering allocates packets, which may move the pool */
    struct packet copy = *pkt_at(&s->pool, pkt_idx);
    const struct packet *p = &copy;
    uint32_t fi = p->flow;
    bool sender_side = s->flows[fi].state == FLOW_ACTIVE;
    /* The sender's start makes the flow's state, the receiver's half too;
     * in a parallel run the receiver's process never runs that start
     * (docs/parallel.md "Parallel runs (MPI)"), so it makes its own when the first
     * packet reaches it and uses only the receiver's fields: a flow's
     * state is touched only by its own host's events. */
    if (__builtin_expect(!s->flows[fi].tp_state, 0) && p->dst_host == s->flows[fi].dst) {
        struct eqds_flow *e = xcalloc(1, sizeof(*e));
        s->flows[fi].tp_state = e;
        rcv_window_init(&e->seq.rcv_win, s->flows[fi].n_pkts);
    }
    switch (p->type) {
    case PKT_DATA:
        if (p->flags & PKTF_TRIMMED)
            on_trimmed(s, fi, p);
        else
            on_data(s, fi, p);
        break;
    case PKT_RTS:
        on_rts(s, fi, p);
        break;
    case PKT_ACK:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_ack(s, fi, p);
        break;
    case PKT_NACK:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_nack(s, fi, p);
        break;
    case PKT_PULL:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_pull(s, fi, p);
        break;
    default:
        die_internal("EQDS: unexpected packet type %u", p->type);
    }
    pkt_release(&s->pool, pkt_idx);
}

static void eqds_timer(struct sim *s, uint32_t fi, uint32_t kind)
{
    switch ((enum eqds_timer)kind) {
    case EQDS_TIMER_RTO:
        rto_timer(s, fi);
        break;
    case EQDS_TIMER_PULL:
        pull_pacer_tick(s, &er(s)->cfg, pacer_of(s, fi));
        break;
    default:
        die_internal("unknown EQDS timer %u", kind);
    }
}

/* Time series: the --cc window when it applies (-sender_cc), EQDS's own
 * smoothed RTT (srtt, the 1/8 moving average it paces its RTSs by; it
 * starts at the minimum RTO), in-flight and delivered bytes as UET counts
 * them. */
static void eqds_sample(const struct sim *s, uint32_t fi, struct flow_sample *out)
{
    const struct flow *f = &s->flows[fi];
    const struct eqds_flow *e = f->tp_state;
    if (!e)
        return;
    uet_sample_seq(s, f, &e->seq, er(s)->window, out);
    out->has_rtt = f->state != FLOW_WAITING;
    out->rtt_ps = e->srtt_ps;
}

/* Payload the receiver holds (Poisson goodput), as UET counts it. */
static uint64_t eqds_rcv_payload_bytes(const struct sim *s, uint32_t fi)
{
    const struct uet_flow *u = eqds_seq_of(&s->flows[fi]);
    return u && u->rcv_win.words ? u->rcv_bytes - (uint64_t)u->rcv_pkts * s->cfg.hdr_bytes : 0;
}

static const struct transport_flag eqds_flags[] = {
    {"-recv_oversub_cc", 0, false, NULL, "skip pulls while over 10% of arrivals are marked or trimmed"},
};

const struct transport_ops transport_eqds_ops = {
    .parallel_exact = true, /* tests/mpi_test.sh: byte-identical at 1, 2 and 3 processes */
    .name = "eqds",
    .reads = TP_READS_CC | TP_READS_CC_MODE | TP_READS_CWND | TP_READS_ACK_THRESHOLD,
    .description = "EQDS (htsim_eqds): receiver-driven pull pacing at 0.99 line rate, speculative first window, "
                   "trimming, optional sender window (-sender_cc)",
    .setup = eqds_setup,
    .flow_add = eqds_flow_add,
    .flow_start = eqds_flow_start,
    .msg_inherit_default = true, /* as UET: the connection's sender window and balancer state */
    .nic_pull = eqds_nic_pull,
    .receive = eqds_receive,
    .timer = eqds_timer,
    .fabric_needs = eqds_fabric_needs,
    .on_control_full = NULL, /* htsim_eqds returns no header to its sender: it is dropped */
    .free = eqds_free,
    .default_queue_pkts = EQDS_DEFAULT_QUEUE_PKTS,
    .min_rto_base_ps = EQDS_RTO_BASE_PS,
    .ecn_only_when_given = true,
    .sample = eqds_sample,
    .flags = eqds_flags,
    .n_flags = sizeof eqds_flags / sizeof eqds_flags[0],
    .rcv_payload_bytes = eqds_rcv_payload_bytes,
};
