/* uet_receive.c: the UET receiver: the reassembly bitmap, delayed ACKs
 * (at once on CE, AR, the first packet, duplicates and out-of-order packets
 * for TCP-like algorithms; else every 16 KB), ACKs with the cumulative and
 * 64-bit selective state, NACKs for trimmed packets, and state ACKs that
 * answer probes and RTS.
 */
#include "uet_internal.h"

#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../sim.h"

#include <string.h>

/* An answer to packet `data` (its echoes set). This and fill_sack are
 * inline in each of their few callers: one of them runs for every ACK and
 * NACK sent. */
static inline __attribute__((always_inline)) uint32_t new_ctl_packet(struct sim *s, const struct packet *data, uint8_t type)
{
    uint32_t idx = transport_answer(s, data, type);
    struct packet *a = pkt_at(&s->pool, idx);
    if (data->flags & PKTF_ECN_CE)
        a->flags |= PKTF_ECN_ECHO;
    if (data->flags & PKTF_RTX)
        a->flags |= PKTF_RTX_ECHO;
    return idx;
}

static inline __attribute__((always_inline)) void fill_sack(const struct flow *f, struct packet *a, uint32_t base)
{
    if (base < uet_of(f)->rcv_cum + 1)
        base = uet_of(f)->rcv_cum + 1;
    a->sack_base = base;
    a->sack_bits = base < uet_of(f)->rcv_end ? rcv_window_bits64(&uet_of(f)->rcv_win, uet_of(f)->rcv_cum, base) : 0;
    a->seq = uet_of(f)->rcv_cum;
    a->recvd_bytes = (uint32_t)uet_of(f)->rcv_bytes; /* modulo 2^32: the sender takes differences */
    a->ooo_pkts = uet_of(f)->rcv_pkts - uet_of(f)->rcv_cum;
}

/* Answer to a probe or an RTS: the receiver's whole state, at once. */
void uet_send_state_ack(struct sim *s, struct flow *f, const struct packet *req)
{
    uint32_t idx = new_ctl_packet(s, req, PKT_PROBE_ACK);
    struct packet *a = pkt_at(&s->pool, idx);
    a->flags &= PKTF_PINNED; /* no echoes: a state ACK answers no data packet */
    fill_sack(f, a, uet_of(f)->rcv_cum + 1);
    a->ref_seq = req->type == PKT_RTS ? UINT32_MAX : 0;
    s->tot.acks_sent++;
    nic_send(s, f->dst, idx);
}

/* Inline in each of its three callers, the receiver's data path. */
static inline __attribute__((always_inline)) void send_ack(struct sim *s, struct flow *f, const struct packet *data)
{
    uint32_t idx = new_ctl_packet(s, data, PKT_ACK);
    struct packet *a = pkt_at(&s->pool, idx);
    /* The bitmap starts at the triggering packet when it is urgent (ECN or
     * AR), else as late as lets it still cover that packet. */
    uint32_t base;
    if (data->flags & (PKTF_ECN_CE | PKTF_AR))
        base = data->seq;
    else
        base = data->seq >= 63 ? data->seq - 63 : 0;
    fill_sack(f, a, base);
    uet_of(f)->rcv_unacked_bytes = 0;
    s->tot.acks_sent++;
    nic_send(s, f->dst, idx);
}

/* Message f's receiver holds every byte of it. */
static void rcv_done(struct sim *s, struct flow *f)
{
    f->rcv_complete = true;
    f->rcv_done_ps = s->now;
    const struct cm_conn *c = &s->cm.conns[f->conn_index];
    if (c->recv_done_trigger != CM_NO_TRIGGER)
        sim_trigger_activate(s, c->recv_done_trigger);
}

static void rspan_add(struct uet_flow *u, uint32_t fi, uint32_t end_seq)
{
    uint32_t k = u->n_rspans;
    while (k && u->rspans[k - 1].end_seq > end_seq)
        k--;
    if (k && u->rspans[k - 1].end_seq == end_seq)
        return; /* known */
    if (u->n_rspans == u->cap_rspans) {
        u->cap_rspans = u->cap_rspans ? 2 * u->cap_rspans : 4;
        u->rspans = xrealloc(u->rspans, (size_t)u->cap_rspans * sizeof *u->rspans);
    }
    memmove(u->rspans + k + 1, u->rspans + k, (u->n_rspans - k) * sizeof *u->rspans);
    u->rspans[k] = (struct uet_span){.fi = fi, .end_seq = end_seq};
    u->n_rspans++;
    if (end_seq > u->rcv_end)
        u->rcv_end = end_seq;
}

/* What the receiver knows of flow f's sequence space from packet p: its
 * own message's packets at the first packet (the size the header carries),
 * and a pipelined message's span from each packet that names one
 * (uet_send.c). */
static void rcv_learn(struct sim *s, struct flow *f, const struct packet *p)
{
    struct uet_flow *u = uet_of(f);
    if (!u->rcv_end) {
        uint64_t size = f->size_bytes, mss = mss_bytes(s);
        u->rcv_end = (uint32_t)(size / mss + (size % mss != 0)); /* flow_init's count, before any pipelining */
    }
    if (__builtin_expect(p->ref_seq != 0, 0)) {
        if (!u->rspans) { /* its own message first, received already if complete */
            rspan_add(u, (uint32_t)(f - s->flows), u->rcv_end);
            u->spans_rcvd = f->rcv_complete ? 1 : 0;
        }
        rspan_add(u, p->recvd_bytes, p->ref_seq);
    }
}

void uet_receiver_on_data(struct sim *s, struct flow *f, struct packet *p)
{
    rcv_learn(s, f, p);
    if (uet_of(f)->credit)
        uet_credit_on_arrival(s, f, p);
    if (p->flags & PKTF_TRIMMED) {
        s->tot.trimmed_delivered++;
        if (p->seq < uet_of(f)->rcv_cum || rcv_has(f, p->seq)) {
            send_ack(s, f, p);
            return;
        }
        uint32_t idx = new_ctl_packet(s, p, PKT_NACK);
        struct packet *n = pkt_at(&s->pool, idx);
        /* ref_seq names the trimmed packet; the NACK also carries the
         * receiver's cumulative and selective ACK state, so packets that
         * arrived but were not acknowledged yet (delayed ACK) do not hold
         * the sender's window while everything after them is trimmed */
        fill_sack(f, n, uet_of(f)->rcv_cum + 1);
        if (p->flags & PKTF_TRIM_LASTHOP)
            n->flags |= PKTF_TRIM_LASTHOP;
        s->tot.nacks_sent++;
        nic_send(s, f->dst, idx);
        return;
    }
    s->tot.data_pkts_delivered++;
    if (p->seq < uet_of(f)->rcv_cum || rcv_has(f, p->seq)) {
        send_ack(s, f, p); /* duplicate: acknowledge at once */
        return;
    }
    bool first = uet_of(f)->rcv_bytes == 0;
    /* TCP-like loss detection needs a (duplicate) ACK for every packet that
     * arrives out of order, as a TCP receiver sends one. */
    bool tcp_like = s->loss_mode != CC_LOSS_NACK_RTO;
    bool out_of_order = tcp_like && (p->seq != uet_of(f)->rcv_cum || uet_of(f)->rcv_pkts > uet_of(f)->rcv_cum);
    rcv_window_set(&uet_of(f)->rcv_win, uet_of(f)->rcv_cum, p->seq);
    uet_of(f)->rcv_pkts++;
    uet_of(f)->rcv_bytes += p->size_bytes;
    uet_of(f)->rcv_unacked_bytes += p->size_bytes;
    uint32_t old_cum = uet_of(f)->rcv_cum;
    uet_of(f)->rcv_cum = rcv_window_walk(&uet_of(f)->rcv_win, old_cum, uet_of(f)->rcv_end);
    struct uet_flow *u = uet_of(f);
    if (__builtin_expect(u->rspans != NULL, 0)) {
        /* the messages it carries (uet_msg_pipeline), each received whole
         * when the in-order prefix passes its last packet */
        while (u->spans_rcvd < u->n_rspans && u->rcv_cum >= u->rspans[u->spans_rcvd].end_seq)
            rcv_done(s, &s->flows[u->rspans[u->spans_rcvd++].fi]);
    } else if (u->rcv_cum == u->rcv_end && !f->rcv_complete) {
        rcv_done(s, f);
    }
    /* An AR that arrives while holes remain is remembered: the ACK that
     * matters is the one sent when the holes fill (the reference's
     * _ack_request), else a reordered tail would wait for the RTO. */
    bool holes_filled = uet_of(f)->rcv_pkts == uet_of(f)->rcv_cum;
    if (p->flags & PKTF_AR)
        uet_of(f)->rcv_ack_request = true;
    bool ar_due = uet_of(f)->rcv_ack_request && holes_filled;
    if ((p->flags & (PKTF_ECN_CE | PKTF_AR)) || first || ar_due || out_of_order ||
        uet_of(f)->rcv_unacked_bytes >= s->cfg.ack_threshold_bytes) {
        if (holes_filled)
            uet_of(f)->rcv_ack_request = false;
        send_ack(s, f, p);
    }
}
