/* uet_send.c: the UET sender's sending side: the retransmission queue,
 * the window and pacing test, data packets with their AR flag, the pace
 * and RTO timers' arming, and header-only probes and RTS packets.
 */
#include "data_packet.h"
#include "uet_internal.h"

#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../sim.h"

#include <string.h>

/* Drops retransmission-queue entries that were acknowledged meanwhile
 * (every packet below cum_acked is; the queue holds sent packets only). */
static void rtx_skip_stale(struct flow *f)
{
    struct uet_flow *u = uet_of(f);
    while (u->rtx_len &&
           (u->rtx_ring[u->rtx_head] < u->cum_acked || uet_tx_live(u, u->rtx_ring[u->rtx_head])->state != TX_RTX_QUEUED)) {
        invariant(uet_txr(u, u->rtx_ring[u->rtx_head])->state != TX_RTX_QUEUED,
                  "packet %u dropped from the retransmission queue while queued", u->rtx_ring[u->rtx_head]);
        u->rtx_head = (u->rtx_head + 1) & u->rtx_mask;
        u->rtx_len--;
    }
}

void uet_rtx_push(struct flow *f, uint32_t seq)
{
    uet_txw(uet_of(f), seq)->state = TX_RTX_QUEUED;
    uet_rtx_ring_push(uet_of(f), seq);
}

/* Sequence number the flow would send next, or UINT32_MAX when it has none. */
static uint32_t next_seq_to_send(struct flow *f)
{
    rtx_skip_stale(f);
    if (uet_of(f)->rtx_len)
        return uet_of(f)->rtx_ring[uet_of(f)->rtx_head];
    if (uet_of(f)->next_new_seq < f->n_pkts)
        return uet_of(f)->next_new_seq;
    return UINT32_MAX;
}

/* Whether the flow may send now, and what (*seq_out). Inline in its two
 * callers (the NIC's pull, the wake after feedback): called for every packet
 * sent and more, and a call cost 0.4% of all instructions (callgrind). */
static inline __attribute__((always_inline)) bool can_send(const struct sim *s, struct flow *f, uint32_t *seq_out)
{
    if (!uet_live(f))
        return false;
    uint32_t seq = next_seq_to_send(f);
    if (seq == UINT32_MAX)
        return false;
    if (uet_of(f)->credit) { /* receiver credit: any credit left lets a packet out */
        if (uet_of(f)->credit->credit_bytes <= 0)
            return false;
        if (!uet_credit_run(s)->window) {
            *seq_out = seq;
            return true;
        }
    }
    const struct cc_window *w = f->cc_state;
    /* A window below one packet still lets one packet out when nothing is in
     * flight: pacing, not the window, then sets the rate. */
    if (w->cwnd_bytes < uet_of(f)->in_flight_bytes + pkt_wire_bytes(s, f, seq) &&
        !(w->pacing_gap_ps && uet_of(f)->in_flight_bytes == 0))
        return false;
    if (w->pacing_gap_ps && f->c.pkts_sent && s->now < uet_of(f)->last_send_ps + w->pacing_gap_ps)
        return false;
    *seq_out = seq;
    return true;
}

/* When pacing holds a flow back, wake it when the gap has elapsed. */
static void arm_pace(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    const struct cc_window *w = f->cc_state;
    if (uet_of(f)->pace_event_pending || !w->pacing_gap_ps || !f->c.pkts_sent)
        return;
    simtime_ps t = uet_of(f)->last_send_ps + w->pacing_gap_ps;
    if (t <= s->now)
        return;
    uet_of(f)->pace_event_pending = true;
    transport_timer_at(s, t, fi, UET_TIMER_PACE);
}

static void arm_rto(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (uet_of(f)->rto_event_pending)
        return;
    uet_of(f)->rto_event_pending = true;
    uet_of(f)->rto_event_ps = s->now + s->min_rto_ps;
    transport_timer_at(s, uet_of(f)->rto_event_ps, fi, UET_TIMER_RTO);
}

void uet_sender_wake(struct sim *s, uint32_t fi)
{
    uint32_t seq;
    struct flow *f = &s->flows[fi];
    if (can_send(s, f, &seq))
        transport_nic_ready(s, fi);
    else {
        arm_pace(s, fi);
    }
}

void uet_pace_timer(struct sim *s, uint32_t fi)
{
    uet_of(&s->flows[fi])->pace_event_pending = false;
    if (uet_live(&s->flows[fi]))
        uet_sender_wake(s, fi);
}

static uint32_t make_data_packet(struct sim *s, uint32_t fi, uint32_t seq)
{
    struct flow *f = &s->flows[fi];
    /* a new packet: seq is next_new_seq (next_seq_to_send), unsent */
    bool rtx = seq < uet_of(f)->next_new_seq;
    invariant(rtx == (uet_txr(uet_of(f), seq)->state == TX_RTX_QUEUED), "flow %u: packet %u to send is %s", fi, seq,
              rtx ? "not queued for retransmission" : "neither new nor queued");
    struct tx_rec *r; /* its record; the ring does not move until it is written below */
    if (rtx) {
        uet_of(f)->rtx_head = (uet_of(f)->rtx_head + 1) & uet_of(f)->rtx_mask;
        uet_of(f)->rtx_len--;
        r = uet_txw(uet_of(f), seq);
    } else {
        r = uet_tx_claim(uet_of(f), seq);
        uet_of(f)->next_new_seq++;
    }
    uint32_t size = pkt_wire_bytes(s, f, seq);
    uint32_t idx = transport_data_packet(s, fi, seq, size);
    struct packet *p = pkt_at(&s->pool, idx);
    if (__builtin_expect(uet_of(f)->spans != NULL, 0)) {
        /* a pipelined connection: the packet names its message and where
         * that message's span ends (a real header's message id and end of
         * message), so the receiver learns the spans from its packets
         * (ref_seq and recvd_bytes are unused on data packets) */
        const struct uet_span *sp = &uet_of(f)->spans[uet_span_of(uet_of(f), seq)];
        p->ref_seq = sp->end_seq;
        p->recvd_bytes = sp->fi;
    }
    if (rtx) {
        r->entropy = p->entropy;
        r->state = TX_IN_FLIGHT;
        if (r->count < UINT8_MAX)
            r->count++;
        r->time_ps = s->now;
    } else { /* the claimed record, written whole: first transmission */
        *r = (struct tx_rec){.time_ps = s->now, .state = TX_IN_FLIGHT, .count = 1, .entropy = p->entropy};
    }
    uet_of(f)->in_flight_bytes += size;
    uet_of(f)->last_send_ps = s->now;
    f->c.pkts_sent++;
    s->tot.data_pkts_sent++;
    if (uet_of(f)->credit)
        uet_credit_on_send(s, fi, p, size);
    if (rtx) {
        p->flags |= PKTF_RTX | PKTF_AR;
        f->c.retransmits++;
        s->tot.rtx_pkts_sent++;
    } else if (!uet_of(f)->credit) {
        /* AR: last packet of the backlog, or the window is full after this one. */
        bool last = uet_of(f)->next_new_seq >= f->n_pkts && uet_of(f)->rtx_len == 0;
        if (last || uet_of(f)->in_flight_bytes + size >= cc_cwnd(f->cc_state))
            p->flags |= PKTF_AR;
    } else {
        /* receiver credit (htsim sendNewPacket): the last new packet, the
         * credit spent, or (-sender_cc) the window full after this one */
        bool last = uet_of(f)->next_new_seq >= f->n_pkts;
        bool spent = uet_of(f)->credit->credit_bytes <= 0;
        bool full = uet_credit_run(s)->window && uet_of(f)->in_flight_bytes + size >= cc_cwnd(f->cc_state);
        if (last || spent || full)
            p->flags |= PKTF_AR;
    }
    arm_rto(s, fi);
    uet_arm_probe(s, fi);
    uet_check_in_flight(s, fi);
    return idx;
}

/* The NIC is free and this flow is next: its next packet, or none (the
 * generic layer then takes it out of the ready ring; pacing wakes it). */
uint32_t uet_nic_pull(struct sim *s, uint32_t fi)
{
    uint32_t seq;
    if (!can_send(s, &s->flows[fi], &seq)) {
        arm_pace(s, fi);
        return PKT_NONE;
    }
    return make_data_packet(s, fi, seq);
}

void uet_send_header_packet(struct sim *s, uint32_t fi, uint8_t type)
{
    struct flow *f = &s->flows[fi];
    uint32_t idx = transport_new_packet(s, fi, type, uet_of(f)->next_new_seq, s->cfg.hdr_bytes);
    struct packet *p = pkt_at(&s->pool, idx);
    /* a probe travels with the data it asks about; an RTS is control */
    if (type == PKT_PROBE)
        p->prio = f->prio_class;
    p->ts_ps = s->now;
    p->entropy = f->lb->next_entropy(f->lb_state, uet_of(f)->next_new_seq, s->now);
    if (uet_of(f)->credit) /* receiver credit: an RTS carries the pull target */
        p->pull_q = uet_of(f)->credit->target_q;
    nic_send(s, f->src, idx);
}
