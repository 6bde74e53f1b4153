/* uet.c: the Ultra Ethernet packet delivery sublayer as the reference
 * simulator models it (seed 002 Sec. 6 and 8): a connection's messages in
 * one sequence space (uet_msg_pipeline), per-packet sequence numbers and entropy values, a receiver reassembly
 * bitmap, cumulative plus 64-bit selective ACKs, delayed ACKs, NACKs for
 * trimmed packets, retransmission, and a retransmission timeout.
 *
 * Sender: a flow may send when cwnd >= bytes in flight + the next packet.
 * Retransmissions go before new data and carry the AR (ACK request) flag;
 * a new packet carries AR when it is the last of the backlog or when the
 * window will be full after it (seed 002 Sec. 8). The RTO is one timer per
 * flow, min_rto after the oldest unacknowledged transmission; on expiry that
 * one packet is resent and the window shrinks by its size.
 *
 * Receiver: ACKs at once for a CE-marked packet, an AR packet, the first
 * packet of the flow and duplicates; otherwise when 16 KB (wire bytes) have
 * accumulated. A trimmed header gets an immediate NACK. Every ACK names the
 * packet that triggered it (RTT sample, entropy and ECN echo for the load
 * balancer) and carries the receiver's running byte count, from which the
 * sender learns how much a coalesced ACK acknowledged.
 *
 * Invariant (checked with SPRAYSIM_CHECKS after every change to a sender):
 * a flow's in_flight_bytes is the wire size of its packets whose record
 * says TX_IN_FLIGHT; those all lie in [cum_acked, next_new_seq).
 */
#include "uet_internal.h"

#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../sim.h"
#include "../topo/fabric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SPRAYSIM_CHECKS
void uet_check_in_flight(const struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    if (!uet_live(f))
        return; /* a finished flow's records are gone */
    uint64_t bytes = 0;
    for (uint32_t q = uet_of(f)->cum_acked; q < uet_of(f)->next_new_seq; q++)
        if (uet_txr(uet_of(f), q)->state == TX_IN_FLIGHT)
            bytes += pkt_wire_bytes(s, f, q);
    invariant(uet_of(f)->in_flight_bytes == bytes, "flow %u in_flight_bytes %llu but its packets in flight hold %llu bytes", fi,
              (unsigned long long)uet_of(f)->in_flight_bytes, (unsigned long long)bytes);
}
#endif

static void uet_setup(struct sim *s)
{
    /* Every UET flow's own state, in one array in flow order; the first UET
     * flow's tp_state is its start (uet_free relies on it). */
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        n += s->flows[i].tp == &transport_uet_ops;
    struct uet_flow *all = n ? xcalloc(n, sizeof *all) : NULL;
    for (uint32_t i = 0, k = 0; i < s->n_flows; i++)
        if (s->flows[i].tp == &transport_uet_ops)
            s->flows[i].tp_state = &all[k++];
    /* Every --cc-opt is checked now, before t=0, not when the first flow
     * starts: one state is initialised the way a flow's would be, and the
     * algorithm's own checks (ranges, whole numbers, options that constrain
     * each other) exit 2 naming the option. */
    struct cc_params cp;
    transport_cc_params(s, &cp, s->topo.diameter_hops, PKT_PRIO_DATA);
    void *probe_state = xcalloc(1, s->cc->state_size);
    s->cc->init(probe_state, &cp);
    free(probe_state);
    /* htsim_uec: a sender window by default; -receiver_cc_only swaps it for
     * receiver credit, -receiver_cc (or -sender_cc after it) uses both */
    bool window = s->cfg.sender_cc != 0;
    bool credit = s->cfg.receiver_cc == 1;
    if (!window && !credit)
        die_input("-receiver_cc_only: UET needs receiver credit or a sender window; -sender_cc_only leaves no "
                  "credit, give -sender_cc instead");
    if (credit)
        uet_credit_setup(s, window);
}

/* A flow that arrived during the run: its own allocation (uet_free frees
 * those one by one). */
static void uet_flow_add(struct sim *s, uint32_t fi)
{
    s->flows[fi].tp_state = xcalloc(1, sizeof(struct uet_flow));
}

const struct tx_rec uet_tx_gone = {.state = TX_ACKED};
const struct tx_rec uet_tx_unsent = {.state = TX_UNSENT};

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t c = UET_TX_MIN_SLOTS;
    while (c < n)
        c *= 2;
    return c;
}

void uet_tx_alloc(struct uet_flow *q, uint32_t n_pkts, bool keep_acked)
{
    q->tx_keep_acked = keep_acked;
    uint32_t cap = pow2_at_least(n_pkts < UET_TX_INIT_MAX_SLOTS ? n_pkts : UET_TX_INIT_MAX_SLOTS);
    q->tx = xcalloc(cap, sizeof(struct tx_rec));
    for (uint32_t i = 0; i < cap; i++)
        q->tx[i].state = TX_EMPTY;
    q->tx_mask = cap - 1;
    q->rtx_ring = xcalloc(UET_RTX_INIT_SLOTS, sizeof(uint32_t));
    q->rtx_mask = UET_RTX_INIT_SLOTS - 1;
}

/* Doubles the ring: each record to its packet's slot in the larger one;
 * the other slot of each pair is left empty (the packet that maps to it is
 * older than the ring reached, so acknowledged: a record still needed is
 * never lost, since the span from the oldest unacknowledged packet fits in
 * the old ring). */
static void tx_grow(struct uet_flow *q)
{
    uint32_t old = q->tx_mask + 1, cap = 2 * old;
    struct tx_rec *tx = xcalloc(cap, sizeof(struct tx_rec));
    for (uint32_t i = 0; i < cap; i++)
        tx[i].state = TX_EMPTY;
    for (uint32_t i = 0; i < old; i++) {
        const struct tx_rec *r = &q->tx[i];
        if (r->state == TX_EMPTY)
            continue;
        /* slot i holds the newest packet below next_new_seq that maps to it */
        invariant(q->next_new_seq > i, "slot %u holds a record with %u packets sent", i, q->next_new_seq);
        uint32_t seq = q->next_new_seq - 1 - ((q->next_new_seq - 1 - i) & (old - 1));
        tx[seq & (cap - 1)] = *r;
    }
    free(q->tx);
    q->tx = tx;
    q->tx_mask = cap - 1;
}

void uet_tx_make_room(struct uet_flow *q, uint32_t seq)
{
    uint32_t room = q->tx_keep_acked ? (q->tx_mask + 1) / 2 : q->tx_mask + 1;
    while (seq - q->cum_acked + 1 > room) {
        tx_grow(q);
        room *= 2;
    }
}

void uet_rtx_ring_push(struct uet_flow *q, uint32_t seq)
{
    if (q->rtx_len == q->rtx_mask + 1) { /* full: double, unrolled so the head is first */
        uint32_t old = q->rtx_mask + 1;
        uint32_t *ring = xmalloc(2 * (size_t)old * sizeof(uint32_t));
        for (uint32_t i = 0; i < old; i++)
            ring[i] = q->rtx_ring[(q->rtx_head + i) & q->rtx_mask];
        free(q->rtx_ring);
        q->rtx_ring = ring;
        q->rtx_mask = 2 * old - 1;
        q->rtx_head = 0;
    }
    q->rtx_ring[(q->rtx_head + q->rtx_len) & q->rtx_mask] = seq;
    q->rtx_len++;
}

void uet_free_sender_state(struct flow *f, struct uet_flow *q)
{
    free(q->tx);
    free(q->rtx_ring);
    transport_cc_lb_free(f);
    q->tx = NULL;
    q->rtx_ring = NULL;
}

/* --stream: flow fi (made during the run) finished at both ends. */
static void uet_flow_release(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    invariant(fi >= s->n_flows_matrix && !f->in_ready_ring, "flow %u released while it may still send", fi);
    uet_free_sender_state(f, uet_of(f));
    rcv_window_free(&uet_of(f)->rcv_win);
    free(uet_of(f)->credit);
    free(uet_of(f)->spans);
    free(uet_of(f)->rspans);
    free(f->cc_counters);
    free(f->tp_state);
    f->cc_counters = NULL;
    f->tp_state = NULL;
}

/* Receiver credit keeps flows in its pull queues: their slots stay. */
static bool uet_can_release(const struct sim *s)
{
    return !uet_credit_run(s);
}

static void uet_free(struct sim *s)
{
    struct uet_flow *all = NULL;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        if (s->flows[i].tp != &transport_uet_ops)
            continue;
        if (!all && i < s->n_flows_matrix)
            all = uet_of(&s->flows[i]);
        uet_free_sender_state(&s->flows[i], uet_of(&s->flows[i]));
        rcv_window_free(&uet_of(&s->flows[i])->rcv_win);
        free(uet_of(&s->flows[i])->spans);
        free(uet_of(&s->flows[i])->rspans);
        free(s->flows[i].cc_counters);
        free(uet_of(&s->flows[i])->credit);
        if (i >= s->n_flows_matrix)
            free(s->flows[i].tp_state); /* added during the run (uet_flow_add) */
        s->flows[i].tp_state = NULL;
    }
    free(all);
    uet_credit_free(s);
}

static void uet_flow_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (!transport_flow_activate(s, f))
        return;
    if (s->cfg.htsim_output)
        sim_htsim_printf(s, "Flow Uec_%u_%u flowId %u uecSrc %u starting at %g\n", f->src, f->dst, f->id, fi,
               (double)s->now / PS_PER_US);
    uint32_t n = f->n_pkts;
    uet_tx_alloc(uet_of(f), n, s->cc->timestamp_echo);
    rcv_window_init(&uet_of(f)->rcv_win, n);

    transport_cc_start(s, fi);
    transport_lb_start(s, fi);
    if (uet_credit_run(s))
        uet_credit_flow_start(s, fi);
    uet_sender_wake(s, fi);
}

/* Message mi's last packet is acknowledged: it finished (its n_pkts
 * packets, for htsim's line). Its sender's state is another matter
 * (uet_flow_finish). */
static void msg_finish(struct sim *s, uint32_t mi, uint32_t n_pkts, uint64_t in_flight_bytes)
{
    struct flow *f = &s->flows[mi];
    f->state = FLOW_DONE;
    f->finish_ps = s->now;
    s->flows_finished++;
    if (s->cfg.htsim_output)
        /* htsim's line (uec.cpp checkFinished), so scripts that parse it
         * (the time is whitespace field 8, absolute, in microseconds) work */
        sim_htsim_printf(s, "Flow Uec_%u_%u flowId %u uecSrc %u finished at %g total packets %u RTS %llu total bytes %llu "
               "in_flight now %llu\n",
               f->src, f->dst, f->id, mi, (double)s->now / PS_PER_US, n_pkts, (unsigned long long)f->c.rts,
               (unsigned long long)n_pkts * (s->cfg.mtu_bytes - s->cfg.hdr_bytes), (unsigned long long)in_flight_bytes);
}

static uint32_t span_pkts(const struct uet_flow *u, uint32_t k)
{
    return u->spans[k].end_seq - (k ? u->spans[k - 1].end_seq : 0);
}

/* Everything flow fi sends is acknowledged: its last message finishes and
 * the sender's state goes, to the connection's next message (not posted
 * yet) when it inherits (transport_msg_sent). */
void uet_flow_finish(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct uet_flow *u = uet_of(f);
    uint32_t last = u->spans ? u->spans[u->n_spans - 1].fi : fi;
    msg_finish(s, last, u->spans ? span_pkts(u, u->n_spans - 1) : f->n_pkts, u->in_flight_bytes);
    u->spans_acked = u->n_spans;
    u->carrying = false;
    transport_nic_unready(s, fi);
    transport_cc_save_counters(s, f);
    struct flow *l = &s->flows[last];
    if (last != fi) { /* the connection's state goes on from its last message */
        l->cc_state = f->cc_state;
        l->lb_state = f->lb_state;
        f->cc_state = f->lb_state = NULL;
    }
    transport_msg_sent(s, last);
    uet_free_sender_state(l, u);
    transport_flow_finished(s, last);
}

/* After an acknowledgement: finishes each message the flow carries whose
 * last packet the cumulative ACK passed (all but the last: that one ends
 * the flow). True when the flow finished (the caller stops there). */
bool uet_sender_progress(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct uet_flow *u = uet_of(f);
    if (__builtin_expect(u->spans != NULL, 0))
        while (u->spans_acked + 1 < u->n_spans && u->cum_acked >= u->spans[u->spans_acked].end_seq) {
            uint32_t k = u->spans_acked++;
            uint32_t mi = u->spans[k].fi;
            if (mi == fi)
                u->carrying = true; /* its own message: the sender goes on for the later ones */
            msg_finish(s, mi, span_pkts(u, k), u->in_flight_bytes);
            transport_flow_finished(s, mi);
        }
    if (u->cum_acked >= f->n_pkts) {
        uet_flow_finish(s, fi);
        return true;
    }
    return false;
}

uint32_t uet_span_payload(const struct uet_flow *u, uint32_t seq, uint32_t mss)
{
    uint32_t k = uet_span_of(u, seq);
    return seq + 1 == u->spans[k].end_seq ? u->spans[k].last_payload_bytes : mss;
}

uint32_t uet_span_of(const struct uet_flow *u, uint32_t seq)
{
    /* the first span ending after seq */
    uint32_t lo = 0, hi = u->n_spans;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (u->spans[mid].end_seq <= seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    invariant(lo < u->n_spans, "packet %u is beyond the flow's last message", seq);
    return lo;
}

/* Wire bytes of the packets flow fi has not sent yet (receiver credit's
 * pull target). */
uint64_t uet_unsent_wire_bytes(const struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    const struct uet_flow *u = uet_of(f);
    if (!u->spans)
        return transport_unsent_wire_bytes(s, fi, u->next_new_seq);
    if (u->next_new_seq >= f->n_pkts)
        return 0;
    uint64_t bytes = (uint64_t)(f->n_pkts - u->next_new_seq) * s->cfg.mtu_bytes;
    for (uint32_t k = 0; k < u->n_spans; k++)
        if (u->spans[k].end_seq > u->next_new_seq)
            bytes -= mss_bytes(s) - u->spans[k].last_payload_bytes;
    return bytes;
}

static void span_push(struct uet_flow *u, uint32_t fi, uint32_t end_seq, uint32_t last_payload_bytes)
{
    if (u->n_spans == u->cap_spans) {
        u->cap_spans = u->cap_spans ? 2 * u->cap_spans : 4;
        u->spans = xrealloc(u->spans, (size_t)u->cap_spans * sizeof *u->spans);
    }
    u->spans[u->n_spans++] = (struct uet_span){fi, end_seq, last_payload_bytes};
}

/* Message fi was posted while the message before it on its connection is
 * still on its way: as htsim_uec -conn_reuse runs a connection (one UecSrc
 * with a UecPdcSes: UecPdcSes::updateScheduledMsgs makes a message eligible
 * at its start time, UecSrc::addToBacklog appends its bytes to the backlog
 * the connection is sending, UecMsg::getNextSegment cuts it into packets of
 * its own), its packets follow the earlier messages' in the same sequence
 * space, under the same window, credit and balancer, from the flow that
 * carries them, at once. It finishes when the cumulative ACK passes its
 * last packet. Not pipelined (false: it waits for the earlier one to be
 * acknowledged, transport_msg_sent): with --msg-cc fresh (each message its
 * own state), on pooled connections (--workload poisson conns), with
 * --stream,
 * or when the message before it has not
 * started yet (messages keep file order) or has finished with its sender. */
static bool uet_msg_pipeline(struct sim *s, uint32_t fi)
{
    struct flow *m = &s->flows[fi];
    uint32_t prev = s->cm.conns[m->conn_index].msg_prev;
    if (prev == CM_NO_MSG || s->fstream || m->pool_conn || !m->n_pkts ||
        !transport_msg_inherits(s, m))
        return false;
    const struct flow *pf = &s->flows[prev];
    if (pf->tp != &transport_uet_ops)
        return false;
    uint32_t ci = uet_of(pf)->carrier ? uet_of(pf)->carrier - 1 : prev;
    struct flow *c = &s->flows[ci];
    struct uet_flow *u = uet_of(c);
    if (!uet_live(c) || c->pool_conn || (uint64_t)c->n_pkts + m->n_pkts >= UINT32_MAX)
        return false;
    if (!u->spans) {
        span_push(u, ci, c->n_pkts, c->last_payload_bytes);
        u->spans_acked = 0;
    }
    c->n_pkts += m->n_pkts;
    span_push(u, fi, c->n_pkts, m->last_payload_bytes);
    uet_of(m)->carrier = ci + 1;
    transport_flow_activate(s, m);
    uet_sender_wake(s, ci);
    return true;
}

static void uet_receive(struct sim *s, uint32_t pkt_idx)
{
    /* Handlers work on a copy: answering a packet allocates one, which may
     * grow (move) the pool under a pointer into it. */
    struct packet copy = *pkt_at(&s->pool, pkt_idx);
    struct packet *p = &copy;
    uint32_t fi = p->flow;
    struct flow *f = &s->flows[fi];
    /* The sender's start makes the receiver's bitmap and credit state too;
     * in a parallel run the receiver's process never runs that start
     * (README "Parallel runs (MPI)"), so it makes them when the first
     * packet reaches it: without the credit state the receiver took
     * receiver credit for off and never pulled (60 of perm_128's 128 flows
     * finished on 2 processes). Only the receiver's half (credit->rcv) is
     * used there: a flow's state is touched only by its own host's events. */
    if (__builtin_expect(!uet_of(f)->rcv_win.words, 0) && p->dst_host == f->dst) {
        rcv_window_init(&uet_of(f)->rcv_win, f->n_pkts);
        if (uet_credit_run(s) && !uet_of(f)->credit)
            uet_of(f)->credit = xcalloc(1, sizeof(struct uet_credit));
    }
    switch (p->type) {
    case PKT_DATA:
        uet_receiver_on_data(s, f, p);
        break;
    case PKT_ACK:
        s->tot.ctl_delivered++;
        if (uet_live(f))
            uet_sender_on_ack(s, fi, p);
        break;
    case PKT_NACK:
        s->tot.ctl_delivered++;
        if (uet_live(f))
            uet_sender_on_nack(s, fi, p);
        break;
    case PKT_RTS:
        if (uet_of(f)->credit)
            uet_credit_on_arrival(s, f, p);
        uet_send_state_ack(s, f, p);
        break;
    case PKT_PROBE:
        uet_send_state_ack(s, f, p);
        break;
    case PKT_PULL:
        s->tot.ctl_delivered++;
        if (uet_live(f))
            uet_credit_on_pull(s, fi, p);
        break;
    case PKT_PROBE_ACK:
        s->tot.ctl_delivered++;
        if (uet_live(f))
            uet_sender_on_state_ack(s, fi, p);
        break;
    default:
        die_internal("unknown packet type %u", p->type);
    }
    if (p->type == PKT_ACK || p->type == PKT_NACK || p->type == PKT_PROBE_ACK)
        uet_check_in_flight(s, fi);
    pkt_release(&s->pool, pkt_idx);
}

static void uet_timer(struct sim *s, uint32_t fi, uint32_t kind)
{
    switch ((enum uet_timer)kind) {
    case UET_TIMER_RTO:
        uet_rto_timer(s, fi);
        break;
    case UET_TIMER_PACE:
        uet_pace_timer(s, fi);
        break;
    case UET_TIMER_PROBE:
        uet_probe_timer(s, fi);
        break;
    case UET_TIMER_PULL:
    case UET_TIMER_PULL_RATE:
        uet_credit_timer(s, fi, kind);
        break;
    default:
        die_internal("unknown UET timer %u", kind);
    }
}

/* Like the reference simulator's composite queue (and NDP): the trimmed
 * header goes back to its sender as a NACK, so the loss is still reported at
 * once instead of waiting for a timeout. */
static bool uet_on_control_full(struct sim *s, uint32_t port_idx, uint32_t pkt_idx)
{
    struct packet *pkt = pkt_at(&s->pool, pkt_idx);
    if (pkt->type != PKT_DATA || !(pkt->flags & PKTF_TRIMMED))
        return false;
    s->tot.data_bounced++;
    uint32_t sender = pkt->src_host;
    pkt->type = PKT_NACK;
    pkt->flags = (uint16_t)((pkt->flags & PKTF_PINNED) | (pkt->flags & PKTF_RTX ? PKTF_RTX_ECHO : 0) | PKTF_BOUNCED);
    pkt->src_host = pkt->dst_host;
    pkt->dst_host = sender;
    /* a NACK names the lost packet in ref_seq; a switch knows nothing of
     * the receiver's state, so the acknowledgement fields stay empty */
    pkt->ref_seq = pkt->seq;
    pkt->seq = 0;
    pkt->sack_base = 0;
    pkt->sack_bits = 0;
    pkt->ooo_pkts = 0;
    pkt->recvd_bytes = 0;
    uint32_t sw = s->ports[port_idx].owner_node - s->n_hosts;
    port_push_control(s, fabric_route(s, sw, pkt), pkt_idx);
    return true;
}

static const char *const uet_counter_names[] = {"packets", "retransmits", "nacks", "acks", "ecn_acks", "timeouts"};

static void uet_counters(const struct sim *s, uint32_t fi, uint64_t *out)
{
    const struct flow_counters *c = &s->flows[fi].c;
    const uint64_t v[] = {c->pkts_sent, c->retransmits, c->nacks, c->acks, c->ecn_acks, c->timeouts};
    memcpy(out, v, sizeof v);
}

/* Time series: the window the CC holds (none once the flow has finished and
 * freed it, or under receiver credit alone), the pacing rate when the CC
 * paces (Swift below one packet), and RACK's RTT (RFC 8985 Sec. 6.2) from
 * what the sender already keeps: its latest ACK's arrival minus the latest
 * send time among the packets acknowledged so far (sent once). For an ACK
 * of in-order data this is that ACK's own RTT sample; no per-ACK work is
 * added for it. Delivered: the distinct wire bytes the receiver holds less
 * their headers. */
void uet_sample_seq(const struct sim *s, const struct flow *f, const struct uet_flow *q, bool window,
                    struct flow_sample *out)
{
    if (f->cc_state && window) {
        const struct cc_window *w = f->cc_state;
        out->has_cwnd = true;
        out->cwnd_bytes = w->cwnd_bytes;
        if (w->pacing_gap_ps) {
            out->has_rate = true;
            out->rate_mbps = (double)s->cfg.mtu_bytes * 8e6 / (double)w->pacing_gap_ps;
        }
    }
    if (q->last_ack_ps) {
        out->has_rtt = true;
        out->rtt_ps = q->last_ack_ps - q->rack_time_ps;
    }
    if (f->state != FLOW_WAITING) {
        out->has_in_flight = true;
        out->in_flight_bytes = q->in_flight_bytes;
    }
    out->delivered_bytes = q->rcv_bytes - (uint64_t)q->rcv_pkts * s->cfg.hdr_bytes;
}

/* UET reads ECN marks (NSCC) and NACKs trimmed headers: it needs its
 * classes as the run configured them (-ecn, trimming or -disable_trim,
 * --class-opt), except that receiver credit keeps ports facing a host from
 * marking (htsim main_uec.cpp: set_ecn_parameters(..., !receiver_driven, ...)). */
static void uet_fabric_needs(const struct sim *s, uint32_t classes, struct class_need need[PORT_MAX_CLASSES])
{
    for (uint32_t k = PKT_PRIO_DATA; k < PORT_MAX_CLASSES; k++)
        if (classes & (1u << k))
            need[k] = (struct class_need){
                .ecn = NEED_BASE,
                .ecn_lasthop = uet_credit_run(s) ? NEED_OFF : NEED_BASE,
                .trim = NEED_BASE,
            };
}

static void uet_sample(const struct sim *s, uint32_t fi, struct flow_sample *out)
{
    const struct flow *f = &s->flows[fi];
    uet_sample_seq(s, f, uet_of(f), uet_window_on(s, f), out);
}

static const struct transport_flag uet_flags[] = {
    {"-oversubscribed_cc", 0, false, NULL, "receiver credit's pull-rate control on (default: on for oversubscribed"},
    {"-force_disable_oversubscribed_cc", 0, false, NULL, "trees without a sender window) / off; the later one wins"},
};

/* Payload the receiver holds (Poisson goodput): wire bytes less a header
 * per distinct packet (the reassembly bitmap counts them). */
static uint64_t uet_rcv_payload_bytes(const struct sim *s, uint32_t fi)
{
    const struct uet_flow *u = uet_of(&s->flows[fi]);
    return u && u->rcv_win.words ? u->rcv_bytes - (uint64_t)u->rcv_pkts * s->cfg.hdr_bytes : 0;
}

/* stdout's first line: "transport uet receiver credit" when it is on */
static const char *uet_run_label(const struct sim *s)
{
    return uet_credit_run(s) ? "receiver credit" : NULL;
}

const struct transport_ops transport_uet_ops = {
    .parallel_exact = true, /* tests/mpi_test.sh: byte-identical at 1, 2 and 3 processes */
    .name = "uet",
    .reads = TP_READS_CC | TP_READS_CC_MODE | TP_READS_SLEEK | TP_READS_LOSS_DETECT | TP_READS_CWND | TP_READS_ACK_THRESHOLD,
    .description = "Ultra Ethernet packet delivery (seed 002): sender-based CC, SACK, NACKs of trimmed packets, SLEEK",
    .setup = uet_setup,
    .flow_add = uet_flow_add,
    .flow_start = uet_flow_start,
    .msg_pipeline = uet_msg_pipeline,
    .flow_release = uet_flow_release,
    .can_release = uet_can_release,
    .msg_inherit_default = true, /* htsim -conn_reuse: one UecSrc (NSCC and balancer state) per connection */
    .nic_pull = uet_nic_pull,
    .receive = uet_receive,
    .timer = uet_timer,
    .fabric_needs = uet_fabric_needs,
    .on_control_full = uet_on_control_full,
    .free = uet_free,
    .n_counters = sizeof uet_counter_names / sizeof uet_counter_names[0],
    .counter_names = uet_counter_names,
    .counters = uet_counters,
    .sample = uet_sample,
    .flags = uet_flags,
    .n_flags = sizeof uet_flags / sizeof uet_flags[0],
    .run_label = uet_run_label,
    .rcv_payload_bytes = uet_rcv_payload_bytes,
};
