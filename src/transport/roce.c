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
 * again. With -out_of_order the receiver keeps a packet that arrives at
 * most 64 beyond the first one it is missing (htsim roce.h roceMaxReorder)
 * without a NACK, so a reordering that short costs nothing; the sender
 * still goes back N on a NACK (htsim RoceSrc::processNack does whatever
 * -out_of_order says). The flag also sets the fabric's adaptive routing
 * per packet; without it a RoCE run's adaptive routing moves flowlets
 * (main_roce.cpp: ooo_enabled ? PER_PACKET : PER_FLOWLET), roce_configure.
 * Timeout: min RTO 1000 us (htsim roce.cpp DEFAULT_RTO_MIN) without an ACK
 * that advances: go back to the first unacknowledged packet.
 *
 * Receiver. ACKs every in-order packet with its cumulative count; the first
 * out-of-order packet after in-order progress (with -out_of_order: the
 * first beyond the 64 it keeps) gets one NACK (no more until the gap
 * fills, as htsim's _nack_sent). A CE-marked data packet makes it
 * send a CNP, at most one per flow per 50 us (DCQCN paper Sec. 3.1).
 *
 * Network (main_roce.cpp): lossless queues with PFC on every switch port
 * (src/net/pfc.c, thresholds 12 and 15 packets), no trimming, no ECN unless
 * -dcqcn K sets step marking above K packets.
 *
 * Rate control: one rate-based CC module (cc.h) per run, roce_run.rate_cc:
 * DCQCN (-dcqcn K, dcqcn.c), TIMELY (-timely, timely.c) or HPCC (-hpcc,
 * hpcc.c), or none (line rate). The sender paces at its cc_rate, keeps its
 * window when it has one (HPCC's W), and tells it of every ACK (with the
 * echoed send time and, under HPCC, the data packet's telemetry), CNP and
 * packet sent; its timer (DCQCN's two 55 us timers) runs only while the
 * flow does, one pending event that moves on when a CNP restarts it. TIMELY
 * needs the data packet's send time echoed in each ACK: no ECN, no CNPs.
 */
#include "../lb/lb.h"
#include "../sim.h"
#include "data_packet.h"
#include "dcqcn.h"
#include "timely.h"
#include "flow.h"
#include "hpcc.h"
#include "rcv_bitmap.h"
#include "roce.h"
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROCE_MIN_RTO_PS (1000 * PS_PER_US) /* htsim roce.cpp: DEFAULT_RTO_MIN 1000 us */
#define ROCE_DEFAULT_QUEUE_PKTS 15          /* htsim main_roce.cpp DEFAULT_QUEUE_SIZE */
#define ROCE_MAX_REORDER_PKTS 64            /* htsim roce.h roceMaxReorder: -out_of_order's reach */

enum roce_timer {
    ROCE_TIMER_PACE = 0, /* the pacing gap has passed: the flow may send again */
    ROCE_TIMER_RTO = 1,
    ROCE_TIMER_RATE_CC = 2, /* the rate control's timer (DCQCN's alpha and increase timers) */
};

struct roce_flow {
    /* sender */
    uint32_t next_seq;        /* next packet to send (go-back-N moves it back) */
    uint32_t highest_sent;    /* one past the highest packet ever sent */
    uint32_t acked;           /* packets the receiver holds in order */
    simtime_ps next_send_ps;  /* pacing: the earliest start of the next packet */
    simtime_ps rto_deadline_ps;
    simtime_ps rc_timer_ps;   /* the rate control's next timer (cc_ops.next_timer) */
    bool pace_pending, rto_pending, rc_pending;
    void *rc_state;           /* the rate control's state (struct cc_rate first), NULL without one */
    uint64_t go_back_n;       /* rewinds after a NACK or a timeout */
    uint64_t cnps_received;
    /* receiver */
    uint32_t rcv_next;        /* first packet not yet received in order */
    bool nack_sent;
    bool cnp_sent_once;
    simtime_ps last_cnp_ps;
    uint64_t cnps_sent;
    struct rcv_bitmap rcv;    /* -out_of_order: packets held (rcv.cum is rcv_next); bits NULL without it */
};

/* The run's RoCE options and rate control (transport_run_state). */
struct roce_run {
    struct roce_opts o;
    const struct cc_ops *rate_cc;      /* DCQCN, TIMELY or HPCC (cc.h rate_based), NULL: line rate */
    struct hpcc_int_table *hpcc_int;   /* -hpcc: INT records per packet (hpcc.h), NULL otherwise */
};

static inline struct roce_run *rr(const struct sim *s)
{
    return transport_run_state(s, &transport_roce_ops);
}

static inline struct roce_flow *rf(const struct sim *s, uint32_t fi)
{
    return s->flows[fi].tp_state;
}

/* RoCE's flags, as typed or as --cc names them (options.c keeps a
 * rate-based --cc aside in cfg.rate_cc_name for the run's transport) */
void roce_read_opts(const struct sim *s, struct roce_opts *o)
{
    const char *rc = s->cfg.rate_cc_name;
    o->dcqcn_k_pkts = (uint32_t)transport_flag_uint(s, "-dcqcn", 0, 1, 1000000, 0);
    o->timely = transport_flag_given(s, "-timely") || (rc && !strcmp(rc, cc_timely_ops.name));
    o->hpcc = transport_flag_given(s, "-hpcc") || (rc && !strcmp(rc, cc_hpcc_ops.name));
    o->out_of_order = transport_flag_given(s, "-out_of_order");
    o->timely_t_low_us = transport_flag_real(s, "-timely_thresholds", 0, 1e-3, 1e6, TIMELY_T_LOW_US);
    o->timely_t_high_us = transport_flag_real(s, "-timely_thresholds", 1, 1e-3, 1e6, TIMELY_T_HIGH_US);
}

/* Every RoCE flag's checks, for any run (sim_setup, so --check too), in
 * the order options.c and sim.c made them. */
static void roce_check_flags(const struct sim *s)
{
    const struct config *c = &s->cfg;
    bool is_run = !strcmp(c->transport_name, "roce");
    const char *rc = c->rate_cc_name;
    if (rc && !is_run)
        die_input("--cc %s: a rate control of RoCE's: give --transport roce", rc);
    struct roce_opts o;
    roce_read_opts(s, &o);
    if (rc && !strcmp(rc, cc_dcqcn_ops.name) && !o.dcqcn_k_pkts)
        die_input("--cc dcqcn: give -dcqcn K, the switches' marking threshold in packets");
    if (o.timely_t_low_us > o.timely_t_high_us)
        die_input("-timely_thresholds: T_low %g us exceeds T_high %g us", o.timely_t_low_us, o.timely_t_high_us);
    if (transport_flag_given(s, "-timely_thresholds") && !o.timely)
        die_input("-timely_thresholds: TIMELY's thresholds; add -timely (RoCE's rate control)");
    if (!is_run && (o.dcqcn_k_pkts || o.out_of_order || o.timely || o.hpcc))
        die_input("%s: a RoCE option; add --transport roce",
                  o.dcqcn_k_pkts ? "-dcqcn" : o.timely ? "-timely" : o.hpcc ? "-hpcc" : "-out_of_order");
    if (o.dcqcn_k_pkts && o.timely)
        die_input("-dcqcn and -timely: RoCE runs one rate control at a time; give one of them");
    if (o.hpcc && o.dcqcn_k_pkts)
        die_input("-hpcc and -dcqcn: choose one rate control for RoCE, not both");
    if (o.hpcc && o.timely)
        die_input("-hpcc and -timely: RoCE runs one rate control at a time; give one of them");
}

/* ops.ar_flowlet_default: htsim_roce moves a flow to another up port per
 * packet only when its receiver takes packets out of order, and otherwise
 * per flowlet, a gap of -ar_sticky_delta (main_roce.cpp: `ooo_enabled ?
 * PER_PACKET : PER_FLOWLET`): in-order RoCE would go back N on every
 * reordering. */
static bool roce_ar_flowlet_default(const struct sim *s)
{
    struct roce_opts o;
    roce_read_opts(s, &o);
    return !o.out_of_order;
}

static void roce_setup(struct sim *s)
{
    const struct config *c = &s->cfg;
    struct roce_run *run = xcalloc(1, sizeof *run);
    transport_set_run_state(s, &transport_roce_ops, run);
    roce_read_opts(s, &run->o);
    /* the rate control, by its flag (mutually exclusive, roce_check_flags) */
    run->rate_cc = run->o.dcqcn_k_pkts ? &cc_dcqcn_ops : run->o.timely ? &cc_timely_ops : run->o.hpcc ? &cc_hpcc_ops : NULL;
    if (run->o.hpcc)
        run->hpcc_int = hpcc_int_new(s->pool.capacity);
    if (run->o.dcqcn_k_pkts && !c->pfc)
        die_input("-dcqcn: DCQCN runs over lossless (PFC) switches; do not turn PFC off");
    /* htsim main_roce.cpp: no ECN unless -dcqcn K, then step marking above
     * K packets on every egress (LosslessOutputQueue::_K); RoCE switches
     * never trim (without PFC a full queue drops) */
}

struct hpcc_int_table *roce_hpcc_int(const struct sim *s)
{
    const struct roce_run *run = rr(s);
    return run ? run->hpcc_int : NULL;
}

/* The egress hook of RoCE's classes under -hpcc (struct class_need.egress). */
static void roce_egress_stamp(struct sim *s, uint32_t port_idx, uint32_t pkt_idx, uint32_t qlen_bytes)
{
    hpcc_int_stamp(s, rr(s)->hpcc_int, port_idx, pkt_idx, qlen_bytes);
}

/* htsim main_roce.cpp: no ECN unless -dcqcn K, then step marking above K
 * packets on every egress (LosslessOutputQueue::_K); RoCE switches never
 * trim (without PFC a full queue drops; with PFC nothing overflows, so no
 * trimming is then only a preference). Only DCQCN reads marks.
 *
 * A mixed fabric (--class-opt K:lossless=1): RoCE's classes are the
 * lossless ones, which never trim (fabric.c); DCQCN's step marking goes on
 * every lossless class, and the lossy classes keep their trimming and ECN
 * for the other transports. */
static void roce_fabric_needs(const struct sim *s, uint32_t classes, struct class_need need[PORT_MAX_CLASSES])
{
    const struct config *c = &s->cfg;
    const struct roce_run *run = rr(s);
    struct class_need dcqcn = {.ecn = NEED_STEP, .ecn_step_bytes = run->o.dcqcn_k_pkts * c->mtu_bytes};
    if (c->lossless_mask) {
        for (uint32_t k = PKT_PRIO_DATA; k < PORT_MAX_CLASSES && run->o.dcqcn_k_pkts; k++)
            if (c->lossless_mask & (1u << k))
                need[k] = dcqcn;
    } else {
        for (uint32_t k = PKT_PRIO_DATA; k < PORT_MAX_CLASSES; k++) {
            if (!(classes & (1u << k)))
                continue;
            need[k] = (struct class_need){.trim = NEED_OFF, .trim_weak = c->pfc};
            if (run->o.dcqcn_k_pkts)
                need[k].ecn = NEED_STEP, need[k].ecn_step_bytes = dcqcn.ecn_step_bytes;
            else if (!c->ecn_high_pkts)
                need[k].ecn = NEED_OFF, need[k].ecn_weak = true;
        }
    }
    /* -hpcc: in-band telemetry stamped as each packet of RoCE's classes
     * leaves a port (hpcc.h); net/ calls the hook, knowing no protocol */
    for (uint32_t k = PKT_PRIO_DATA; k < PORT_MAX_CLASSES && run->hpcc_int; k++)
        if (classes & (1u << k))
            need[k].egress = roce_egress_stamp;
}

static void roce_free(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_flows; i++) {
        struct flow *f = &s->flows[i];
        if (f->tp != &transport_roce_ops || !f->tp_state)
            continue;
        rcv_bitmap_free(&rf(s, i)->rcv);
        free(rf(s, i)->rc_state);
        transport_cc_lb_free(f);
        free(f->tp_state);
        f->tp_state = NULL;
    }
    struct roce_run *run = rr(s);
    if (!run)
        return;
    hpcc_int_delete(run->hpcc_int);
    free(run);
    transport_set_run_state(s, &transport_roce_ops, NULL);
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

/* The rate control's timer (DCQCN's two 55 us timers, which start with
 * the flow and restart together on a CNP), while the flow runs; an event
 * already queued for an earlier time finds the deadline moved and
 * re-arms. */
static void arm_rate_cc(struct sim *s, uint32_t fi)
{
    struct roce_flow *r = rf(s, fi);
    if (!r->rc_state || !rr(s)->rate_cc->next_timer)
        return;
    r->rc_timer_ps = rr(s)->rate_cc->next_timer(r->rc_state);
    if (r->rc_timer_ps != SIMTIME_NEVER)
        arm(s, fi, &r->rc_pending, r->rc_timer_ps, ROCE_TIMER_RATE_CC);
}

static double pacing_rate_mbps(const struct sim *s, const struct roce_flow *r)
{
    return r->rc_state ? cc_rate_of(r->rc_state)->rate_mbps : (double)s->cfg.linkspeed_mbps;
}

static bool has_something_to_send(const struct flow *f, const struct roce_flow *r)
{
    return f->state == FLOW_ACTIVE && r->next_seq < f->n_pkts;
}

/* --msg-cc inherit: a message takes its connection's rate control over
 * from the message before it (the queue pair's DCQCN, TIMELY or HPCC
 * state, as an RDMA NIC keeps it per QP); what counts the old message's
 * packets or times restarts (cc_ops.on_new_message). */
static void inherit_rate(struct sim *s, uint32_t fi, struct roce_flow *r)
{
    const struct flow *f = &s->flows[fi];
    uint32_t prev = s->cm.conns[f->conn_index].msg_prev;
    if (!r->rc_state || prev == CM_NO_MSG || !transport_msg_inherits(s, f) || !s->flows[prev].tp_state)
        return;
    const struct roce_flow *p = s->flows[prev].tp_state;
    memcpy(r->rc_state, p->rc_state, rr(s)->rate_cc->state_size);
    if (rr(s)->rate_cc->on_new_message)
        rr(s)->rate_cc->on_new_message(r->rc_state, s->now);
}

static void roce_flow_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (!transport_flow_activate(s, f))
        return;
    if (s->cfg.htsim_output)
        sim_htsim_printf(s, "Flow Roce_%u_%u flowId %u roceSrc %u starting at %g\n", f->src, f->dst, f->id, fi,
               (double)s->now / PS_PER_US);
    struct roce_flow *r = xcalloc(1, sizeof(*r));
    if (rr(s)->rate_cc) {
        struct cc_params cp;
        transport_cc_params(s, &cp, topo_hops(&s->topo, f->src, f->dst), f->prio_class);
        /* -timely_thresholds reach TIMELY as its options */
        struct cc_option opts[2] = {{"t_low_us", rr(s)->o.timely_t_low_us}, {"t_high_us", rr(s)->o.timely_t_high_us}};
        cp.opts = opts;
        cp.n_opts = 2;
        cp.start_ps = s->now;
        r->rc_state = xcalloc(1, rr(s)->rate_cc->state_size);
        rr(s)->rate_cc->init(r->rc_state, &cp);
    }
    if (rr(s)->o.out_of_order)
        rcv_bitmap_init(&r->rcv, f->n_pkts);
    f->tp_state = r;
    inherit_rate(s, fi, r);
    transport_lb_start(s, fi);
    arm_rate_cc(s, fi);
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
    /* a rate control with a window (HPCC's W) bounds the bytes in flight */
    double window = r->rc_state ? cc_rate_of(r->rc_state)->window_bytes : 0;
    if (window > 0 && (double)(in_flight_pkts + 1) * s->cfg.mtu_bytes > window)
        return PKT_NONE; /* window full: an ACK reopens it */
    uint32_t seq = r->next_seq++;
    bool rtx = seq < r->highest_sent;
    if (r->next_seq > r->highest_sent)
        r->highest_sent = r->next_seq;
    uint32_t size = flow_pkt_wire_bytes(f, seq, s->cfg.mtu_bytes, s->cfg.hdr_bytes);
    uint32_t idx = transport_data_packet(s, fi, seq, size);
    struct packet *p = pkt_at(&s->pool, idx);
    if (rr(s)->hpcc_int)
        hpcc_int_clear(rr(s)->hpcc_int, idx);
    f->c.pkts_sent++;
    s->tot.data_pkts_sent++;
    if (rtx) {
        p->flags |= PKTF_RTX;
        f->c.retransmits++;
        s->tot.rtx_pkts_sent++;
    }
    double rate = pacing_rate_mbps(s, r);
    r->next_send_ps = s->now + (simtime_ps)((double)size * 8e6 / rate);
    if (r->rc_state && rr(s)->rate_cc->on_sent)
        rr(s)->rate_cc->on_sent(r->rc_state, s->now, size);
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
        sim_htsim_printf(s, "Flow Roce_%u_%u flowId %u roceSrc %u finished at %g total bytes %u\n", f->src, f->dst, f->id, fi,
               (double)s->now / PS_PER_US, f->n_pkts);
    transport_nic_unready(s, fi);
    transport_msg_sent(s, fi);
    transport_flow_finished(s, fi);
}

/* Go back N: send everything again from the first packet not acknowledged. */
static void go_back(struct sim *s, uint32_t fi, uint32_t from)
{
    struct roce_flow *r = rf(s, fi);
    r->next_seq = from;
    r->go_back_n++;
    transport_nic_ready(s, fi);
}

/* pkt_idx: the ACK, released but not reused yet (its INT records are read). */
static void on_ack(struct sim *s, uint32_t fi, const struct packet *a, uint32_t pkt_idx)
{
    struct flow *f = &s->flows[fi];
    struct roce_flow *r = rf(s, fi);
    f->c.acks++;
    if (r->rc_state && rr(s)->rate_cc->on_rate_ack) {
        struct hpcc_int hops[HPCC_MAX_HOPS];
        uint32_t n_hops = 0;
        if (rr(s)->hpcc_int) { /* the data packet's telemetry, echoed in the ACK (hpcc.h) */
            const struct hpcc_int *rec = hpcc_int_of(rr(s)->hpcc_int, pkt_idx, &n_hops);
            if (n_hops)
                memcpy(hops, rec, n_hops * sizeof(*rec));
        }
        struct cc_rate_ack ra = {
            .now = s->now,
            .sent_ps = a->ts_ps,
            .ack_seq = a->seq,
            .snd_nxt = r->next_seq,
            .rtx_echo = (a->flags & PKTF_RTX_ECHO) != 0,
            .completes = a->seq >= f->n_pkts,
            .hops = n_hops ? hops : NULL,
            .n_hops = n_hops,
        };
        rr(s)->rate_cc->on_rate_ack(r->rc_state, &ra);
    }
    if (a->seq > r->acked) {
        r->acked = a->seq;
        restart_rto(s, fi);
    }
    if (r->acked >= f->n_pkts)
        flow_finish(s, fi);
    else if (r->rc_state && cc_rate_of(r->rc_state)->window_bytes > 0)
        transport_nic_ready(s, fi); /* the window may have opened */
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
    go_back(s, fi, n->seq); /* with -out_of_order too: htsim RoceSrc::processNack */
}

static void on_cnp(struct sim *s, uint32_t fi)
{
    struct roce_flow *r = rf(s, fi);
    r->cnps_received++;
    if (!r->rc_state || !rr(s)->rate_cc->on_cnp)
        return;
    rr(s)->rate_cc->on_cnp(r->rc_state, s->now);
    arm_rate_cc(s, fi);
}

static void send_ctl(struct sim *s, const struct flow *f, const struct packet *from, uint8_t type, uint32_t seq)
{
    uint32_t idx = transport_answer(s, from, type);
    struct packet *a = pkt_at(&s->pool, idx);
    a->seq = seq;
    if (rr(s)->o.timely) {
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
    if (type == PKT_ACK && rr(s)->hpcc_int)
        hpcc_int_echo(rr(s)->hpcc_int, idx); /* the data packet's INT records (hpcc.h) */
    nic_send(s, f->dst, idx);
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
            send_ctl(s, f, p, ROCE_PKT_CNP, r->rcv_next);
        }
    }
    if (p->seq > r->rcv_next) {
        /* -out_of_order keeps a packet up to 64 beyond the hole, silently;
         * htsim drops one further out (its reorder buffer holds 64) */
        if (r->rcv.bits && p->seq - r->rcv_next < ROCE_MAX_REORDER_PKTS) {
            rcv_bitmap_set(&r->rcv, p->seq);
            return;
        }
        if (!r->nack_sent) {
            r->nack_sent = true;
            send_ctl(s, f, p, PKT_NACK, r->rcv_next);
        }
        return;
    }
    if (p->seq < r->rcv_next)
        return; /* a duplicate (htsim: "a bad retransmit"): nothing to say */
    if (r->rcv.bits) { /* -out_of_order: on past what was held */
        rcv_bitmap_set(&r->rcv, p->seq);
        r->rcv_next = r->rcv.cum;
    } else {
        r->rcv_next++;
    }
    r->nack_sent = false;
    if (r->rcv_next >= f->n_pkts && !f->rcv_complete) {
        f->rcv_complete = true;
        f->rcv_done_ps = s->now;
        /* the .cm's recv_done_trigger fires here, as UET's and EQDS's
         * receivers fire it (a matrix chained on receives never ran on) */
        const struct cm_conn *c = &s->cm.conns[f->conn_index];
        if (c->recv_done_trigger != CM_NO_TRIGGER)
            sim_trigger_activate(s, c->recv_done_trigger);
    }
    send_ctl(s, f, p, PKT_ACK, r->rcv_next);
}

static void roce_receive(struct sim *s, uint32_t pkt_idx)
{
    /* a copy: answering allocates packets, which may move the pool */
    struct packet copy = *pkt_at(&s->pool, pkt_idx);
    if (rr(s)->hpcc_int && copy.type == PKT_DATA)
        hpcc_int_save(rr(s)->hpcc_int, pkt_idx);
    pkt_release(&s->pool, pkt_idx);
    uint32_t fi = copy.flow;
    bool sender_side = s->flows[fi].state == FLOW_ACTIVE;
    /* The sender's start makes the flow's state, the receiver's half too;
     * in a parallel run the receiver's process never runs that start
     * (docs/parallel.md "Parallel runs (MPI)"), so it makes its own when the first
     * packet reaches it and uses only the receiver's fields: a flow's
     * state is touched only by its own host's events. */
    if (__builtin_expect(!s->flows[fi].tp_state, 0) && copy.dst_host == s->flows[fi].dst) {
        struct roce_flow *r = xcalloc(1, sizeof(*r));
        if (rr(s)->o.out_of_order)
            rcv_bitmap_init(&r->rcv, s->flows[fi].n_pkts);
        s->flows[fi].tp_state = r;
    }
    switch (copy.type) {
    case PKT_DATA:
        on_data(s, fi, &copy);
        break;
    case PKT_ACK:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_ack(s, fi, &copy, pkt_idx);
        break;
    case PKT_NACK:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_nack(s, fi, &copy);
        break;
    case ROCE_PKT_CNP:
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
    case ROCE_TIMER_RATE_CC:
        r->rc_pending = false;
        if (!active || !r->rc_state)
            break;
        if (s->now >= r->rc_timer_ps)
            rr(s)->rate_cc->on_timer(r->rc_state, s->now);
        arm_rate_cc(s, fi);
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
    out->rate_mbps = pacing_rate_mbps(s, r);
    const struct cc_rate *rc = r->rc_state ? cc_rate_of(r->rc_state) : NULL;
    if (rc && rc->window_bytes > 0) {
        out->has_cwnd = true;
        out->cwnd_bytes = (uint64_t)rc->window_bytes;
    }
    if (rc && rc->rtt_us > 0) {
        out->has_rtt = true;
        out->rtt_ps = (simtime_ps)(rc->rtt_us * PS_PER_US + 0.5);
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

static const struct transport_flag roce_flags[] = {
    {"-dcqcn", 1, false, "K", "DCQCN rate control; switches mark CE above K packets (step)"},
    {"-timely", 0, false, NULL, "TIMELY rate control from RTT samples (not with -dcqcn)"},
    {"-timely_thresholds", 2, false, "LOW HIGH (us)", "TIMELY: T_low and T_high in us (default 4 200)"},
    {"-hpcc", 0, false, NULL, "HPCC window/rate control on in-band telemetry (not with -dcqcn)"},
    {"-out_of_order", 0, false, NULL,
     "the receiver keeps up to 64 packets beyond a hole without a NACK; adaptive routing per packet (else flowlets)"},
};

static const char *const roce_pkt_type_names[] = {"ROCE_CNP"}; /* from ROCE_PKT_CNP */

/* summary.json's "roce" section (the run's transport only) */
static void roce_summary_json(const struct sim *s, struct strbuf *b)
{
    struct roce_opts o;
    roce_read_opts(s, &o);
    sb_printf(b, "  \"roce\": {\"dcqcn_k_pkts\": %u, \"out_of_order\": %s", o.dcqcn_k_pkts,
              o.out_of_order ? "true" : "false");
    if (o.timely) /* only then: runs without TIMELY keep their summary unchanged */
        sb_printf(b, ", \"timely\": {\"t_low_us\": %g, \"t_high_us\": %g}", o.timely_t_low_us, o.timely_t_high_us);
    if (o.hpcc) /* likewise */
        sb_printf(b, ", \"hpcc\": true");
    sb_printf(b, "},\n");
}

const struct transport_ops transport_roce_ops = {
    .parallel_exact = true, /* tests/mpi_test.sh: byte-identical at 1, 2 and 3 processes */
    .name = "roce",
    .reads = 0, /* its flags are its own (roce_flags) */
    .cc_hint = "RoCE: its rate control is -dcqcn K, -timely or -hpcc (--cc dcqcn, timely or hpcc)",
    .description = "RoCEv2 (htsim_roce): rate-paced sender, go-back-N on NACK (the receiver keeps 64 "
                   "reordered packets with -out_of_order), CNPs, DCQCN with -dcqcn K, over PFC",
    .setup = roce_setup,
    .ar_flowlet_default = roce_ar_flowlet_default,
    .flow_start = roce_flow_start,
    .msg_inherit_default = false, /* our choice: each message (RDMA WRITE) starts at line rate, as htsim_roce's flows do */
    .nic_pull = roce_nic_pull,
    .receive = roce_receive,
    .timer = roce_timer,
    .fabric_needs = roce_fabric_needs,
    .on_control_full = NULL,
    .free = roce_free,
    .n_counters = 3,
    .counter_names = roce_counter_names,
    .counters = roce_counters,
    .default_queue_pkts = ROCE_DEFAULT_QUEUE_PKTS,
    .min_rto_base_ps = ROCE_MIN_RTO_PS,
    .ecn_only_when_given = true,
    .sample = roce_sample,
    .one_path_default = true,
    .lossless = true,
    .flags = roce_flags,
    .n_flags = sizeof roce_flags / sizeof roce_flags[0],
    .check_flags = roce_check_flags,
    .pkt_type_names = roce_pkt_type_names,
    .n_pkt_types = sizeof roce_pkt_type_names / sizeof roce_pkt_type_names[0],
    .summary_json = roce_summary_json,
};
