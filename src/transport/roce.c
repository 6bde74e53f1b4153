/* roce.c: RoCEv2 (--transport roce), the lossless RDMA transport that the
 * reference simulator's htsim_roce runs over PFC. Behaviour read from htsim
 * roce.cpp (RoceSrc, RoceSink) and main_roce.cpp; written from that
 * description in spraysim's own structures.
 *
 * Sender. Paces its packets at a rate, the line rate to start (with -dcqcn
 * the rate is DCQCN's current rate, dcqcn.h): a packet may start once the
 * previous one's serialisation at that rate has passed. Packet sequence
 * numbers (htsim counts packets too, its "total bytes" is a packet count).
 * An ACK carries the receiver's cumulative count; a NACK the first packet
 * it is missing, from which the sender goes back N and sends everything
 * again. With -out_of_order (selective repeat) the receiver keeps what
 * arrives early and the sender retransmits only the packet the NACK names.
 * Timeout: min RTO 1000 us (htsim roce.cpp DEFAULT_RTO_MIN) without an ACK
 * that advances: go back to the first unacknowledged packet.
 *
 * Receiver. ACKs every in-order packet with its cumulative count; the first
 * out-of-order packet after in-order progress gets one NACK (no more until
 * the gap fills, as htsim's _nack_sent). A CE-marked data packet makes it
 * send a CNP, at most one per flow per 50 us (DCQCN paper Sec. 3.1).
 *
 * Network (main_roce.cpp): lossless queues with PFC on every switch port
 * (src/net/pfc.c, thresholds 12 and 15 packets), no trimming, no ECN unless
 * -dcqcn K sets step marking above K packets.
 *
 * DCQCN's state is here rather than in src/cc (see dcqcn.h for why); its
 * two 55 us timers run only while the flow does, each one pending event
 * that moves on when a CNP restarts it.
 *
 * TIMELY (-timely, timely.h) is the other rate control, exclusive with
 * DCQCN: no ECN, no CNPs; the sender paces at TIMELY's rate, which moves
 * once per completion event: the first ACK whose cumulative count passes
 * the end of the next 16 KB segment, with the RTT of the data packet that
 * ACK answers (its send time is echoed in the ACK). ACKs answering a
 * retransmitted packet give no sample (Karn).
 */
#include "../lb/lb.h"
#include "../sim.h"
#include "data_packet.h"
#include "dcqcn.h"
#include "timely.h"
#include "flow.h"
#include "hpcc.h"
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROCE_MIN_RTO_PS (1000 * PS_PER_US) /* htsim roce.cpp: DEFAULT_RTO_MIN 1000 us */
#define ROCE_DEFAULT_QUEUE_PKTS 15          /* htsim main_roce.cpp DEFAULT_QUEUE_SIZE */

enum roce_timer {
    ROCE_TIMER_PACE = 0, /* the pacing gap has passed: the flow may send again */
    ROCE_TIMER_RTO = 1,
    ROCE_TIMER_DCQCN_ALPHA = 2,
    ROCE_TIMER_DCQCN_INCREASE = 3,
};

struct roce_flow {
    /* sender */
    uint32_t next_seq;        /* next packet to send (go-back-N moves it back) */
    uint32_t highest_sent;    /* one past the highest packet ever sent */
    uint32_t acked;           /* packets the receiver holds in order */
    uint32_t rtx_seq;         /* selective repeat: the one packet to send again, or UINT32_MAX */
    simtime_ps next_send_ps;  /* pacing: the earliest start of the next packet */
    simtime_ps rto_deadline_ps;
    simtime_ps alpha_deadline_ps, increase_deadline_ps;
    bool pace_pending, rto_pending, alpha_pending, increase_pending;
    struct dcqcn_state dc;
    struct timely_state tm;
    uint32_t timely_next_seg; /* TIMELY: the packet count whose ACK completes the next segment */
    struct hpcc_state *hp;    /* -hpcc: HPCC's window and rate (hpcc.h), else NULL */
    uint64_t go_back_n;       /* rewinds after a NACK or a timeout */
    uint64_t cnps_received;
    /* receiver */
    uint32_t rcv_next;        /* first packet not yet received in order */
    bool nack_sent;
    bool cnp_sent_once;
    simtime_ps last_cnp_ps;
    uint64_t cnps_sent;
    uint64_t *rcv_bits;       /* selective repeat: packets held beyond rcv_next */
};

static inline struct roce_flow *rf(const struct sim *s, uint32_t fi)
{
    return s->flows[fi].tp_state;
}

static inline uint32_t wire_bytes(const struct sim *s, const struct flow *f, uint32_t seq)
{
    return flow_pkt_payload(f, seq, s->cfg.mtu_bytes - s->cfg.hdr_bytes) + s->cfg.hdr_bytes;
}

static void roce_setup(struct sim *s)
{
    const struct config *c = &s->cfg;
    if (c->dcqcn_k_pkts && !c->pfc)
        die_input("-dcqcn: DCQCN runs over lossless (PFC) switches; do not turn PFC off");
    /* htsim main_roce.cpp: no ECN unless -dcqcn K, then step marking above
     * K packets on every egress (LosslessOutputQueue::_K); RoCE switches
     * never trim (without PFC a full queue drops) */
    if (c->lossless_mask) {
        /* a mixed fabric: RoCE's classes are the lossless ones, which never
         * trim; the lossy classes keep their trimming and ECN for the other
         * transports. DCQCN's step marking goes on the lossless classes. */
        for (uint32_t i = s->n_hosts; i < s->n_ports && c->dcqcn_k_pkts; i++)
            for (uint32_t k = 2; k < s->ports[i].x->n; k++)
                if (c->lossless_mask & (1u << k)) {
                    struct port_class *pc = &s->ports[i].x->c[k - 2];
                    pc->ecn = true;
                    pc->ecn_kmin_bytes = pc->ecn_kmax_bytes = c->dcqcn_k_pkts * c->mtu_bytes;
                }
        return;
    }
    for (uint32_t i = s->n_hosts; i < s->n_ports; i++) {
        struct port *p = &s->ports[i];
        p->flags &= (uint16_t)~PORTF_TRIM;
        for (uint32_t k = 0; p->x && k + 2 < p->x->n; k++)
            p->x->c[k].trim = false;
        if (c->dcqcn_k_pkts) {
            p->flags |= PORTF_ECN;
            p->ecn_kmin_bytes = p->ecn_kmax_bytes = c->dcqcn_k_pkts * c->mtu_bytes;
        } else if (!c->ecn_high_pkts) {
            p->flags &= (uint16_t)~PORTF_ECN;
        }
    }
}

static void roce_free(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_flows; i++) {
        struct flow *f = &s->flows[i];
        if (f->tp != &transport_roce_ops || !f->tp_state)
            continue;
        free(rf(s, i)->rcv_bits);
        free(rf(s, i)->hp);
        free(f->lb_state);
        f->lb_state = NULL;
        free(f->tp_state);
        f->tp_state = NULL;
    }
}

static void arm(struct sim *s, uint32_t fi, bool *pending, simtime_ps at, enum roce_timer kind)
{
    if (*pending)
        return;
    *pending = true;
    transport_timer_at(s, at, fi, kind);
}

/* The RTO restarts with every packet sent and every ACK that advances. */
static void restart_rto(struct sim *s, uint32_t fi)
{
    struct roce_flow *r = rf(s, fi);
    r->rto_deadline_ps = s->now + ROCE_MIN_RTO_PS;
    arm(s, fi, &r->rto_pending, r->rto_deadline_ps, ROCE_TIMER_RTO);
}

/* DCQCN's timers restart on a CNP (dcqcn.h); both run while the flow does. */
static void restart_dcqcn_timers(struct sim *s, uint32_t fi)
{
    struct roce_flow *r = rf(s, fi);
    simtime_ps period = (simtime_ps)(DCQCN_TIMER_US * PS_PER_US);
    r->alpha_deadline_ps = s->now + period;
    r->increase_deadline_ps = s->now + period;
    arm(s, fi, &r->alpha_pending, r->alpha_deadline_ps, ROCE_TIMER_DCQCN_ALPHA);
    arm(s, fi, &r->increase_pending, r->increase_deadline_ps, ROCE_TIMER_DCQCN_INCREASE);
}

/* Packets per TIMELY segment (TIMELY_SEGMENT_BYTES of payload, at least 1). */
static uint32_t timely_seg_pkts(const struct sim *s)
{
    uint32_t payload = s->cfg.mtu_bytes - s->cfg.hdr_bytes;
    uint32_t n = (TIMELY_SEGMENT_BYTES + payload - 1) / payload;
    return n ? n : 1;
}

static bool has_something_to_send(const struct flow *f, const struct roce_flow *r)
{
    return f->state == FLOW_ACTIVE && (r->rtx_seq != UINT32_MAX || r->next_seq < f->n_pkts);
}

/* --msg-cc inherit: a message takes its connection's rate control over
 * from the message before it (the queue pair's DCQCN, TIMELY or HPCC
 * state, as an RDMA NIC keeps it per QP). HPCC's once-per-RTT marker is in
 * the old message's packet numbers, so it restarts at this one's first. */
static void inherit_rate(struct sim *s, uint32_t fi, struct roce_flow *r)
{
    const struct flow *f = &s->flows[fi];
    uint32_t prev = s->cm.conns[f->conn_index].msg_prev;
    if (prev == CM_NO_MSG || !transport_msg_inherits(s, f) || !s->flows[prev].tp_state)
        return;
    const struct roce_flow *p = s->flows[prev].tp_state;
    r->dc = p->dc;
    r->tm = p->tm;
    if (r->hp && p->hp) {
        *r->hp = *p->hp;
        r->hp->last_update_seq = 0;
    }
}

static void roce_flow_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (f->state != FLOW_WAITING)
        return;
    f->state = FLOW_ACTIVE;
    f->start_ps = s->now;
    s->flows_started++;
    if (s->cfg.htsim_output)
        printf("Flow Roce_%u_%u flowId %u roceSrc %u starting at %g\n", f->src, f->dst, f->id, fi,
               (double)s->now / PS_PER_US);
    struct roce_flow *r = xcalloc(1, sizeof(*r));
    r->rtx_seq = UINT32_MAX;
    dcqcn_init(&r->dc, s->cfg.linkspeed_mbps);
    if (s->cfg.timely) {
        timely_init(&r->tm, s->cfg.linkspeed_mbps, s->cfg.timely_t_low_us, s->cfg.timely_t_high_us,
                    TIMELY_MIN_RTT_US);
        r->timely_next_seg = timely_seg_pkts(s);
    }
    if (s->cfg.hpcc)
        r->hp = hpcc_flow_new(s);
    if (s->cfg.roce_selective)
        r->rcv_bits = xcalloc((f->n_pkts + 63) / 64, sizeof(uint64_t));
    f->tp_state = r;
    inherit_rate(s, fi, r);
    transport_lb_start(s, fi);
    if (s->cfg.dcqcn_k_pkts)
        restart_dcqcn_timers(s, fi);
    transport_nic_ready(s, fi);
}

static uint32_t roce_nic_pull(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct roce_flow *r = rf(s, fi);
    if (!has_something_to_send(f, r))
        return PKT_NONE;
    if (s->now < r->next_send_ps) {
        arm(s, fi, &r->pace_pending, r->next_send_ps, ROCE_TIMER_PACE);
        return PKT_NONE;
    }
    /* HPCC's bytes in flight: after a go-back-N the originals it resends
     * may still arrive (reordered on a sprayed flow's other paths) and be
     * acknowledged past next_seq; then nothing of this pass is in flight
     * (the unsigned next_seq - acked wrapped, shut the window for good and
     * stalled the flow: a sprayed 2-to-1 never finished) */
    uint32_t in_flight_pkts = r->next_seq > r->acked ? r->next_seq - r->acked : 0;
    if (r->hp && r->rtx_seq == UINT32_MAX && !hpcc_window_open(s, r->hp, in_flight_pkts))
        return PKT_NONE; /* window full: an ACK reopens it */
    uint32_t seq;
    bool rtx;
    if (r->rtx_seq != UINT32_MAX) {
        seq = r->rtx_seq;
        r->rtx_seq = UINT32_MAX;
        rtx = true;
    } else {
        seq = r->next_seq++;
        rtx = seq < r->highest_sent;
        if (r->next_seq > r->highest_sent)
            r->highest_sent = r->next_seq;
    }
    uint32_t size = wire_bytes(s, f, seq);
    uint32_t idx = transport_data_packet(s, fi, seq, size);
    struct packet *p = pkt_at(&s->pool, idx);
    if (r->hp)
        hpcc_int_clear(s, idx);
    f->c.pkts_sent++;
    s->tot.data_pkts_sent++;
    if (rtx) {
        p->flags |= PKTF_RTX;
        f->c.retransmits++;
        s->tot.rtx_pkts_sent++;
    }
    double rate = s->cfg.dcqcn_k_pkts ? r->dc.rc_mbps
                  : s->cfg.timely   ? r->tm.rate_mbps
                  : r->hp           ? hpcc_rate_mbps(r->hp)
                                    : (double)s->cfg.linkspeed_mbps;
    r->next_send_ps = s->now + (simtime_ps)((double)size * 8e6 / rate);
    if (s->cfg.dcqcn_k_pkts)
        dcqcn_on_bytes_sent(&r->dc, size);
    restart_rto(s, fi);
    return idx;
}

static void flow_finish(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    f->state = FLOW_DONE;
    f->finish_ps = s->now;
    s->flows_finished++;
    if (s->cfg.htsim_output)
        /* htsim roce.cpp processAck's line; its "total bytes" is the ACK number, in packets */
        printf("Flow Roce_%u_%u flowId %u roceSrc %u finished at %g total bytes %u\n", f->src, f->dst, f->id, fi,
               (double)s->now / PS_PER_US, f->n_pkts);
    transport_nic_unready(s, fi);
    transport_msg_sent(s, fi);
    const struct cm_conn *c = &s->cm.conns[f->conn_index];
    if (c->send_done_trigger != CM_NO_TRIGGER)
        sim_trigger_activate(s, c->send_done_trigger);
    if (s->flows_finished == s->n_msgs)
        s->stop = true;
}

/* Go back N: send everything again from the first packet not acknowledged. */
static void go_back(struct sim *s, uint32_t fi, uint32_t from)
{
    struct roce_flow *r = rf(s, fi);
    r->next_seq = from;
    r->go_back_n++;
    transport_nic_ready(s, fi);
}

static void on_ack(struct sim *s, uint32_t fi, const struct packet *a)
{
    struct flow *f = &s->flows[fi];
    struct roce_flow *r = rf(s, fi);
    f->c.acks++;
    if (s->cfg.timely && a->seq >= r->timely_next_seg && !(a->flags & PKTF_RTX_ECHO)) {
        /* a completion event: one RTT sample per segment (timely.h) */
        timely_on_rtt(&r->tm, (double)(s->now - a->ts_ps) / PS_PER_US);
        uint32_t seg = timely_seg_pkts(s);
        r->timely_next_seg = (a->seq / seg + 1) * seg;
    }
    if (a->seq > r->acked) {
        r->acked = a->seq;
        restart_rto(s, fi);
    }
    if (r->acked >= f->n_pkts)
        flow_finish(s, fi);
}

static void on_nack(struct sim *s, uint32_t fi, const struct packet *n)
{
    struct flow *f = &s->flows[fi];
    struct roce_flow *r = rf(s, fi);
    f->c.nacks++;
    if (n->seq > r->acked)
        r->acked = n->seq;
    if (r->acked >= f->n_pkts) {
        flow_finish(s, fi);
        return;
    }
    if (s->cfg.roce_selective) {
        r->rtx_seq = n->seq;
        transport_nic_ready(s, fi);
    } else {
        go_back(s, fi, n->seq);
    }
}

static void on_cnp(struct sim *s, uint32_t fi)
{
    struct roce_flow *r = rf(s, fi);
    r->cnps_received++;
    if (!s->cfg.dcqcn_k_pkts)
        return;
    dcqcn_on_cnp(&r->dc);
    restart_dcqcn_timers(s, fi);
}

static void send_ctl(struct sim *s, const struct flow *f, const struct packet *from, uint8_t type, uint32_t seq)
{
    uint32_t idx = transport_answer(s, from, type);
    struct packet *a = pkt_at(&s->pool, idx);
    a->seq = seq;
    if (s->cfg.timely) {
        /* TIMELY: echo the data packet's send time (RoCE ACKs carry no SACK
         * bits, which share these bytes) and whether it was a resend */
        a->ts_ps = from->ts_ps;
        if (from->flags & PKTF_RTX)
            a->flags |= PKTF_RTX_ECHO;
    }
    if (type == PKT_ACK)
        s->tot.acks_sent++;
    else if (type == PKT_NACK)
        s->tot.nacks_sent++;
    if (type == PKT_ACK && s->hpcc_int)
        hpcc_int_echo(s, idx); /* the data packet's INT records (hpcc.h) */
    port_enqueue(s, s->hosts[f->dst].nic_port, idx);
}

static inline bool rcv_has(const struct roce_flow *r, uint32_t seq)
{
    return (r->rcv_bits[seq / 64] >> (seq % 64)) & 1;
}

static void on_data(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    struct roce_flow *r = rf(s, fi);
    if (p->flags & PKTF_TRIMMED) {
        /* only another transport's switch setting trims: the payload is lost */
        s->tot.trimmed_delivered++;
        return;
    }
    s->tot.data_pkts_delivered++;
    if (p->flags & PKTF_ECN_CE) {
        simtime_ps gap = (simtime_ps)(DCQCN_CNP_INTERVAL_US * PS_PER_US);
        if (!r->cnp_sent_once || s->now - r->last_cnp_ps >= gap) {
            r->cnp_sent_once = true;
            r->last_cnp_ps = s->now;
            r->cnps_sent++;
            send_ctl(s, f, p, PKT_CNP, r->rcv_next);
        }
    }
    if (p->seq > r->rcv_next) {
        if (r->rcv_bits)
            r->rcv_bits[p->seq / 64] |= 1ULL << (p->seq % 64);
        if (!r->nack_sent) {
            r->nack_sent = true;
            send_ctl(s, f, p, PKT_NACK, r->rcv_next);
        }
        return;
    }
    if (p->seq < r->rcv_next)
        return; /* a duplicate (htsim: "a bad retransmit"): nothing to say */
    r->rcv_next++;
    while (r->rcv_bits && r->rcv_next < f->n_pkts && rcv_has(r, r->rcv_next))
        r->rcv_next++;
    r->nack_sent = false;
    if (r->rcv_next >= f->n_pkts && !f->rcv_complete) {
        f->rcv_complete = true;
        f->rcv_done_ps = s->now;
    }
    send_ctl(s, f, p, PKT_ACK, r->rcv_next);
}

static void roce_receive(struct sim *s, uint32_t pkt_idx)
{
    /* a copy: answering allocates packets, which may move the pool */
    struct packet copy = *pkt_at(&s->pool, pkt_idx);
    if (s->hpcc_int && copy.type == PKT_DATA)
        hpcc_int_save(s, pkt_idx);
    pkt_release(&s->pool, pkt_idx);
    uint32_t fi = copy.flow;
    bool sender_side = s->flows[fi].state == FLOW_ACTIVE;
    switch (copy.type) {
    case PKT_DATA:
        on_data(s, fi, &copy);
        break;
    case PKT_ACK:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_ack(s, fi, &copy);
        if (sender_side && rf(s, fi)->hp && s->flows[fi].state == FLOW_ACTIVE) {
            /* HPCC's NewAck on the ACK's INT records (its row outlives the release) */
            hpcc_ack(s, rf(s, fi)->hp, pkt_idx, copy.seq, rf(s, fi)->next_seq);
            transport_nic_ready(s, fi); /* the window may have opened */
        }
        break;
    case PKT_NACK:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_nack(s, fi, &copy);
        break;
    case PKT_CNP:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_cnp(s, fi);
        break;
    default:
        die_internal("RoCE: unexpected packet type %u", copy.type);
    }
}

static void roce_timer(struct sim *s, uint32_t fi, uint32_t kind)
{
    struct flow *f = &s->flows[fi];
    struct roce_flow *r = rf(s, fi);
    bool active = f->state == FLOW_ACTIVE;
    simtime_ps period = (simtime_ps)(DCQCN_TIMER_US * PS_PER_US);
    switch ((enum roce_timer)kind) {
    case ROCE_TIMER_PACE:
        r->pace_pending = false;
        if (has_something_to_send(f, r))
            transport_nic_ready(s, fi);
        break;
    case ROCE_TIMER_RTO:
        r->rto_pending = false;
        if (!active || r->acked >= r->highest_sent)
            break;
        if (s->now < r->rto_deadline_ps) {
            arm(s, fi, &r->rto_pending, r->rto_deadline_ps, ROCE_TIMER_RTO); /* restarted since */
            break;
        }
        f->c.timeouts++;
        s->tot.rtos++;
        go_back(s, fi, r->acked);
        restart_rto(s, fi);
        break;
    case ROCE_TIMER_DCQCN_ALPHA:
        r->alpha_pending = false;
        if (!active)
            break;
        if (s->now >= r->alpha_deadline_ps) {
            dcqcn_alpha_timer(&r->dc);
            r->alpha_deadline_ps = s->now + period;
        }
        arm(s, fi, &r->alpha_pending, r->alpha_deadline_ps, ROCE_TIMER_DCQCN_ALPHA);
        break;
    case ROCE_TIMER_DCQCN_INCREASE:
        r->increase_pending = false;
        if (!active)
            break;
        if (s->now >= r->increase_deadline_ps) {
            dcqcn_increase_timer(&r->dc);
            r->increase_deadline_ps = s->now + period;
        }
        arm(s, fi, &r->increase_pending, r->increase_deadline_ps, ROCE_TIMER_DCQCN_INCREASE);
        break;
    default:
        die_internal("unknown RoCE timer %u", kind);
    }
}

static const char *const roce_counter_names[] = {"go_back_n", "cnps_sent", "cnps_received"};

static void roce_counters(const struct sim *s, uint32_t fi, uint64_t *out)
{
    const struct roce_flow *r = rf(s, fi);
    out[0] = r ? r->go_back_n : 0;
    out[1] = r ? r->cnps_sent : 0;
    out[2] = r ? r->cnps_received : 0;
}

/* Time series: the pacing rate (DCQCN's current rate, TIMELY's, HPCC's
 * W/T, or the line rate without rate control), HPCC's window W, TIMELY's
 * latest RTT sample; in flight: the wire bytes of the packets sent and not
 * yet acknowledged in order; delivered: the payload of the packets the
 * receiver holds in order. */
static void roce_sample(const struct sim *s, uint32_t fi, struct flow_sample *out)
{
    const struct flow *f = &s->flows[fi];
    const struct roce_flow *r = f->tp_state;
    if (!r)
        return;
    out->has_rate = true;
    out->rate_mbps = s->cfg.dcqcn_k_pkts ? r->dc.rc_mbps
                     : s->cfg.timely   ? r->tm.rate_mbps
                     : r->hp           ? hpcc_rate_mbps(r->hp)
                                       : (double)s->cfg.linkspeed_mbps;
    if (r->hp) {
        out->has_cwnd = true;
        out->cwnd_bytes = (uint64_t)r->hp->w_bytes;
    }
    if (s->cfg.timely && r->tm.prev_rtt_us > 0) {
        out->has_rtt = true;
        out->rtt_ps = (simtime_ps)(r->tm.prev_rtt_us * PS_PER_US + 0.5);
    }
    uint32_t mss = s->cfg.mtu_bytes - s->cfg.hdr_bytes;
    uint32_t sent = r->highest_sent, acked = r->acked < sent ? r->acked : sent;
    out->has_in_flight = f->state != FLOW_WAITING;
    out->in_flight_bytes = (uint64_t)(sent - acked) * s->cfg.mtu_bytes;
    if (sent == f->n_pkts && sent > acked)
        out->in_flight_bytes -= mss - f->last_payload_bytes;
    uint32_t got = r->rcv_next < f->n_pkts ? r->rcv_next : f->n_pkts;
    out->delivered_bytes = (uint64_t)got * mss;
    if (got == f->n_pkts && got)
        out->delivered_bytes -= mss - f->last_payload_bytes;
}

const struct transport_ops transport_roce_ops = {
    .name = "roce",
    .description = "RoCEv2 (htsim_roce): rate-paced sender, go-back-N on NACK (selective repeat with "
                   "-out_of_order), CNPs, DCQCN with -dcqcn K, over PFC",
    .setup = roce_setup,
    .flow_start = roce_flow_start,
    .msg_inherit_default = false, /* our choice: each message (RDMA WRITE) starts at line rate, as htsim_roce's flows do */
    .nic_pull = roce_nic_pull,
    .receive = roce_receive,
    .timer = roce_timer,
    .on_control_full = NULL,
    .free = roce_free,
    .n_counters = 3,
    .counter_names = roce_counter_names,
    .counters = roce_counters,
    .default_queue_pkts = ROCE_DEFAULT_QUEUE_PKTS,
    .min_rto_base_ps = ROCE_MIN_RTO_PS,
    .ecn_only_when_given = true,
    .sample = roce_sample,
};
