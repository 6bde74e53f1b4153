/* uet.c: the Ultra Ethernet packet delivery sublayer as the reference
 * simulator models it (seed 002 Sec. 6 and 8): one message per connection,
 * per-packet sequence numbers and entropy values, a receiver reassembly
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
#include "uet.h"

#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../sim.h"
#include "../topo/fabric.h"
#include "flow.h"
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint32_t mss_bytes(const struct sim *s)
{
    return s->cfg.mtu_bytes - s->cfg.hdr_bytes;
}

static inline uint32_t pkt_wire_bytes(const struct sim *s, const struct flow *f, uint32_t seq)
{
    return flow_pkt_payload(f, seq, mss_bytes(s)) + s->cfg.hdr_bytes;
}

#ifdef SPRAYSIM_CHECKS
/* The invariant stated at the top of this file; O(packets outstanding). */
static void check_in_flight(const struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    if (f->state != FLOW_ACTIVE)
        return; /* a finished flow's records are gone */
    uint64_t bytes = 0;
    for (uint32_t q = f->cum_acked; q < f->next_new_seq; q++)
        if (f->tx[q].state == TX_IN_FLIGHT)
            bytes += pkt_wire_bytes(s, f, q);
    invariant(f->in_flight_bytes == bytes, "flow %u in_flight_bytes %llu but its packets in flight hold %llu bytes", fi,
              (unsigned long long)f->in_flight_bytes, (unsigned long long)bytes);
}
#else
static inline void check_in_flight(const struct sim *s, uint32_t fi)
{
    (void)s;
    (void)fi;
}
#endif

/* ---- setup ---------------------------------------------------------------------- */

/* What the CC module of a flow crossing `path_hops` links is told at init. */
static void cc_params_for(const struct sim *s, struct cc_params *cp, uint32_t path_hops)
{
    *cp = (struct cc_params){
        .mtu_bytes = s->cfg.mtu_bytes,
        .mss_bytes = mss_bytes(s),
        .base_rtt_ps = s->base_rtt_ps,
        .network_rtt_ps = s->base_rtt_ps,
        .linkspeed_mbps = s->cfg.linkspeed_mbps,
        .init_cwnd_bytes = (uint64_t)s->cfg.cwnd_pkts * s->cfg.mtu_bytes,
        .target_qdelay_ps = s->cfg.target_qdelay_ps,
        .qa_gate = s->cfg.qa_gate,
        .trimming = s->cfg.trimming,
        .q3_pressure = s->cfg.q3_pressure,
        .path_hops = path_hops,
        .opts = s->cfg.cc_opts,
        .n_opts = s->cfg.n_cc_opts,
    };
}

static void uet_setup(struct sim *s)
{
    /* Every --cc-opt is checked now, before t=0, not when the first flow
     * starts: one state is initialised the way a flow's would be, and the
     * algorithm's own checks (ranges, whole numbers, options that constrain
     * each other) exit 2 naming the option. */
    struct cc_params cp;
    cc_params_for(s, &cp, s->topo.diameter_hops);
    void *probe_state = xcalloc(1, s->cc->state_size);
    s->cc->init(probe_state, &cp);
    free(probe_state);
}

static void free_sender_state(struct flow *f)
{
    free(f->tx);
    free(f->rtx_ring);
    free(f->cc_state);
    free(f->lb_state);
    f->tx = NULL;
    f->rtx_ring = NULL;
    f->cc_state = f->lb_state = NULL;
}

static void uet_free(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_flows; i++) {
        if (s->flows[i].tp != &transport_uet_ops)
            continue;
        free_sender_state(&s->flows[i]);
        free(s->flows[i].rcv_bits);
        free(s->flows[i].cc_counters);
    }
}

/* ---- sending ------------------------------------------------------------------------ */

/* Drops retransmission-queue entries that were acknowledged meanwhile. */
static void rtx_skip_stale(struct flow *f)
{
    while (f->rtx_len && f->tx[f->rtx_ring[f->rtx_head]].state != TX_RTX_QUEUED) {
        f->rtx_head = (f->rtx_head + 1) % f->n_pkts;
        f->rtx_len--;
    }
}

static void rtx_push(struct flow *f, uint32_t seq)
{
    f->tx[seq].state = TX_RTX_QUEUED;
    f->rtx_ring[(f->rtx_head + f->rtx_len) % f->n_pkts] = seq;
    f->rtx_len++;
}

/* Sequence number the flow would send next, or UINT32_MAX when it has none. */
static uint32_t next_seq_to_send(struct flow *f)
{
    rtx_skip_stale(f);
    if (f->rtx_len)
        return f->rtx_ring[f->rtx_head];
    if (f->next_new_seq < f->n_pkts)
        return f->next_new_seq;
    return UINT32_MAX;
}

static bool can_send(const struct sim *s, struct flow *f, uint32_t *seq_out)
{
    if (f->state != FLOW_ACTIVE)
        return false;
    uint32_t seq = next_seq_to_send(f);
    if (seq == UINT32_MAX)
        return false;
    const struct cc_window *w = f->cc_state;
    /* A window below one packet still lets one packet out when nothing is in
     * flight: pacing, not the window, then sets the rate. */
    if (w->cwnd_bytes < f->in_flight_bytes + pkt_wire_bytes(s, f, seq) &&
        !(w->pacing_gap_ps && f->in_flight_bytes == 0))
        return false;
    if (w->pacing_gap_ps && f->c.pkts_sent && s->now < f->last_send_ps + w->pacing_gap_ps)
        return false;
    *seq_out = seq;
    return true;
}

/* When pacing holds a flow back, wake it when the gap has elapsed. */
static void arm_pace(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    const struct cc_window *w = f->cc_state;
    if (f->pace_event_pending || !w->pacing_gap_ps || !f->c.pkts_sent)
        return;
    simtime_ps t = f->last_send_ps + w->pacing_gap_ps;
    if (t <= s->now)
        return;
    f->pace_event_pending = true;
    transport_timer_at(s, t, fi, UET_TIMER_PACE);
}

static void arm_rto(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (f->rto_event_pending)
        return;
    f->rto_event_pending = true;
    f->rto_event_ps = s->now + s->min_rto_ps;
    transport_timer_at(s, f->rto_event_ps, fi, UET_TIMER_RTO);
}

static void sender_wake(struct sim *s, uint32_t fi)
{
    uint32_t seq;
    struct flow *f = &s->flows[fi];
    if (can_send(s, f, &seq))
        transport_nic_ready(s, fi);
    else {
        arm_pace(s, fi);
    }
}

static void uet_pace_timer(struct sim *s, uint32_t fi)
{
    s->flows[fi].pace_event_pending = false;
    if (s->flows[fi].state == FLOW_ACTIVE)
        sender_wake(s, fi);
}

static void arm_probe(struct sim *s, uint32_t fi);

static uint32_t make_data_packet(struct sim *s, uint32_t fi, uint32_t seq)
{
    struct flow *f = &s->flows[fi];
    bool rtx = f->tx[seq].state == TX_RTX_QUEUED;
    if (rtx) {
        f->rtx_head = (f->rtx_head + 1) % f->n_pkts;
        f->rtx_len--;
    } else {
        f->next_new_seq++;
    }
    uint32_t size = pkt_wire_bytes(s, f, seq);
    uint32_t idx = pkt_alloc(&s->pool);
    struct packet *p = pkt_at(&s->pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = PKT_DATA;
    p->tclass = f->tclass;
    p->flow = fi;
    p->seq = seq;
    p->size_bytes = size;
    p->src_host = f->src;
    p->dst_host = f->dst;
    p->ts_ps = s->now;
    p->entropy = f->lb->next_entropy(f->lb_state, seq, s->now);
    f->tx[seq].entropy = p->entropy;
    f->tx[seq].state = TX_IN_FLIGHT;
    if (f->tx[seq].count < UINT8_MAX)
        f->tx[seq].count++;
    f->tx[seq].time_ps = s->now;
    f->in_flight_bytes += size;
    f->last_send_ps = s->now;
    f->c.pkts_sent++;
    s->tot.data_pkts_sent++;
    if (rtx) {
        p->flags |= PKTF_RTX | PKTF_AR;
        f->c.retransmits++;
        s->tot.rtx_pkts_sent++;
    } else {
        /* AR: last packet of the backlog, or the window is full after this one. */
        bool last = f->next_new_seq >= f->n_pkts && f->rtx_len == 0;
        if (last || f->in_flight_bytes + size >= cc_cwnd(f->cc_state))
            p->flags |= PKTF_AR;
    }
    arm_rto(s, fi);
    arm_probe(s, fi);
    check_in_flight(s, fi);
    return idx;
}

/* The NIC is free and this flow is next: its next packet, or none (the
 * generic layer then takes it out of the ready ring; pacing wakes it). */
static uint32_t uet_nic_pull(struct sim *s, uint32_t fi)
{
    uint32_t seq;
    if (!can_send(s, &s->flows[fi], &seq)) {
        arm_pace(s, fi);
        return PKT_NONE;
    }
    return make_data_packet(s, fi, seq);
}

/* ---- flow start ----------------------------------------------------------------- */

static void uet_flow_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (f->state != FLOW_WAITING)
        return;
    f->state = FLOW_ACTIVE;
    f->start_ps = s->now;
    s->flows_started++;
    if (s->cfg.htsim_output)
        printf("Flow Uec_%u_%u flowId %u uecSrc %u starting at %g\n", f->src, f->dst, f->id, fi,
               (double)s->now / PS_PER_US);
    uint32_t n = f->n_pkts;
    f->tx = xcalloc(n, sizeof(struct tx_rec));
    f->rtx_ring = xcalloc(n, sizeof(uint32_t));
    f->rcv_bits = xcalloc((n + 63) / 64, sizeof(uint64_t));

    struct cc_params cp;
    cc_params_for(s, &cp, topo_hops(&s->topo, f->src, f->dst));
    f->cc_state = xcalloc(1, s->cc->state_size);
    s->cc->init(f->cc_state, &cp);
    struct lb_params lp = {
        .paths = s->cfg.paths,
        .bdp_pkts = (uint32_t)((s->bdp_bytes + s->cfg.mtu_bytes - 1) / s->cfg.mtu_bytes),
        .buffer_size = s->cfg.reps_buffer,
        .reps_freeze = s->cfg.reps_freeze,
        .trimming = s->cfg.trimming,
        .seed = s->cfg.seed,
        .flow_index = fi,
    };
    f->lb_state = xcalloc(1, lb_state_bytes(f->lb, &lp));
    f->lb->init(f->lb_state, &lp);
    sender_wake(s, fi);
}

/* ---- receiver --------------------------------------------------------------------- */

static inline bool rcv_has(const struct flow *f, uint32_t seq)
{
    return (f->rcv_bits[seq >> 6] >> (seq & 63)) & 1;
}

static uint32_t new_ctl_packet(struct sim *s, const struct packet *data, uint8_t type)
{
    uint32_t idx = pkt_alloc(&s->pool);
    struct packet *a = pkt_at(&s->pool, idx);
    memset(a, 0, sizeof(*a));
    a->type = type;
    a->flow = data->flow;
    a->size_bytes = s->cfg.hdr_bytes;
    a->src_host = data->dst_host;
    a->dst_host = data->src_host;
    a->entropy = data->entropy;
    a->ref_seq = data->seq;
    if (data->flags & PKTF_ECN_CE)
        a->flags |= PKTF_ECN_ECHO;
    if (data->flags & PKTF_RTX)
        a->flags |= PKTF_RTX_ECHO;
    return idx;
}

static void fill_sack(const struct flow *f, struct packet *a, uint32_t base)
{
    if (base < f->rcv_cum + 1)
        base = f->rcv_cum + 1;
    a->sack_base = base;
    uint64_t bits = 0;
    for (uint32_t i = 0; i < 64 && base + i < f->n_pkts; i++)
        if (rcv_has(f, base + i))
            bits |= 1ULL << i;
    a->sack_bits = bits;
    a->seq = f->rcv_cum;
    a->recvd_bytes = f->rcv_bytes;
    a->ooo_pkts = f->rcv_pkts - f->rcv_cum;
}

/* Answer to a probe or an RTS: the receiver's whole state, at once. */
static void send_state_ack(struct sim *s, struct flow *f, const struct packet *req)
{
    uint32_t idx = new_ctl_packet(s, req, PKT_PROBE_ACK);
    struct packet *a = pkt_at(&s->pool, idx);
    a->flags = 0;
    fill_sack(f, a, f->rcv_cum + 1);
    a->ref_seq = req->type == PKT_RTS ? UINT32_MAX : 0;
    s->tot.acks_sent++;
    port_enqueue(s, s->hosts[f->dst].nic_port, idx);
}

static void send_ack(struct sim *s, struct flow *f, const struct packet *data)
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
    f->rcv_unacked_bytes = 0;
    s->tot.acks_sent++;
    port_enqueue(s, s->hosts[f->dst].nic_port, idx);
}

static void receiver_on_data(struct sim *s, struct flow *f, struct packet *p)
{
    if (p->flags & PKTF_TRIMMED) {
        s->tot.trimmed_delivered++;
        if (p->seq < f->rcv_cum || rcv_has(f, p->seq)) {
            send_ack(s, f, p);
            return;
        }
        uint32_t idx = new_ctl_packet(s, p, PKT_NACK);
        struct packet *n = pkt_at(&s->pool, idx);
        /* ref_seq names the trimmed packet; the NACK also carries the
         * receiver's cumulative and selective ACK state, so packets that
         * arrived but were not acknowledged yet (delayed ACK) do not hold
         * the sender's window while everything after them is trimmed */
        fill_sack(f, n, f->rcv_cum + 1);
        if (p->flags & PKTF_TRIM_LASTHOP)
            n->flags |= PKTF_TRIM_LASTHOP;
        s->tot.nacks_sent++;
        port_enqueue(s, s->hosts[f->dst].nic_port, idx);
        return;
    }
    s->tot.data_pkts_delivered++;
    if (p->seq < f->rcv_cum || rcv_has(f, p->seq)) {
        send_ack(s, f, p); /* duplicate: acknowledge at once */
        return;
    }
    bool first = f->rcv_bytes == 0;
    /* TCP-like loss detection needs a (duplicate) ACK for every packet that
     * arrives out of order, as a TCP receiver sends one. */
    bool tcp_like = s->cc->loss_mode != CC_LOSS_NACK_RTO;
    bool out_of_order = tcp_like && (p->seq != f->rcv_cum || f->rcv_pkts > f->rcv_cum);
    f->rcv_bits[p->seq >> 6] |= 1ULL << (p->seq & 63);
    f->rcv_pkts++;
    f->rcv_bytes += p->size_bytes;
    f->rcv_unacked_bytes += p->size_bytes;
    while (f->rcv_cum < f->n_pkts && rcv_has(f, f->rcv_cum))
        f->rcv_cum++;
    if (f->rcv_cum == f->n_pkts && !f->rcv_complete) {
        f->rcv_complete = true;
        f->rcv_done_ps = s->now;
        const struct cm_conn *c = &s->cm.conns[f->conn_index];
        if (c->recv_done_trigger != CM_NO_TRIGGER)
            sim_trigger_activate(s, c->recv_done_trigger);
    }
    /* An AR that arrives while holes remain is remembered: the ACK that
     * matters is the one sent when the holes fill (the reference's
     * _ack_request), else a reordered tail would wait for the RTO. */
    bool holes_filled = f->rcv_pkts == f->rcv_cum;
    if (p->flags & PKTF_AR)
        f->rcv_ack_request = true;
    bool ar_due = f->rcv_ack_request && holes_filled;
    if ((p->flags & (PKTF_ECN_CE | PKTF_AR)) || first || ar_due || out_of_order ||
        f->rcv_unacked_bytes >= s->cfg.ack_threshold_bytes) {
        if (holes_filled)
            f->rcv_ack_request = false;
        send_ack(s, f, p);
    }
}

/* ---- sender feedback ------------------------------------------------------------------- */

static void mark_acked(const struct sim *s, struct flow *f, uint32_t seq)
{
    uint8_t st = f->tx[seq].state;
    if (st == TX_ACKED || st == TX_UNSENT)
        return;
    if (st == TX_IN_FLIGHT) {
        invariant(f->in_flight_bytes >= pkt_wire_bytes(s, f, seq),
                  "flow %u: acknowledging packet %u (%u bytes) with %llu in flight", (unsigned)(f - s->flows), seq,
                  pkt_wire_bytes(s, f, seq), (unsigned long long)f->in_flight_bytes);
        f->in_flight_bytes -= pkt_wire_bytes(s, f, seq);
    }
    f->tx[seq].state = TX_ACKED;
    /* RACK (RFC 8985 6.2): an acknowledged retransmission may have been
     * the original arriving late, so only packets sent once move the
     * "latest delivered send time" that condemns older packets. */
    if (f->tx[seq].count == 1 && f->tx[seq].time_ps > f->rack_time_ps)
        f->rack_time_ps = f->tx[seq].time_ps;
    if (seq + 1 > f->highest_acked)
        f->highest_acked = seq + 1;
}

/* A packet found lost without a NACK or timeout: resend it first. */
static void declare_lost(struct sim *s, struct flow *f, uint32_t seq, bool tell_cc)
{
    uint32_t size = pkt_wire_bytes(s, f, seq);
    invariant(f->in_flight_bytes >= size, "flow %u: packet %u (%u bytes) lost with %llu in flight",
              (unsigned)(f - s->flows), seq, size, (unsigned long long)f->in_flight_bytes);
    f->in_flight_bytes -= size;
    rtx_push(f, seq);
    f->c.fast_losses++;
    if (tell_cc && s->cc->on_loss)
        s->cc->on_loss(f->cc_state, s->now, size);
}

/* In flight and overtaken by a later transmission that was acknowledged:
 * a retransmission still on its way (after a NACK, say) is not lost again. */
static bool lost_by_later_ack(const struct flow *f, uint32_t seq)
{
    return f->tx[seq].state == TX_IN_FLIGHT && f->tx[seq].time_ps < f->rack_time_ps;
}

/* NewReno-style: dupack_threshold duplicate cumulative ACKs mark the first
 * hole lost and start a recovery that ends when everything sent before it is
 * acknowledged; a partial ACK in recovery marks the next hole lost. */
static void detect_loss_dupack(struct sim *s, struct flow *f)
{
    uint32_t cum = f->cum_acked;
    if (cum > f->prev_cum) {
        f->dupacks = 0;
        f->prev_cum = cum;
        if (f->in_recovery) {
            if (cum >= f->recover_seq)
                f->in_recovery = false;
            else if (lost_by_later_ack(f, cum))
                declare_lost(s, f, cum, false);
        }
        return;
    }
    if (cum >= f->n_pkts || ++f->dupacks != s->cc->dupack_threshold || f->in_recovery)
        return;
    f->in_recovery = true;
    f->recover_seq = f->next_new_seq;
    if (lost_by_later_ack(f, cum))
        declare_lost(s, f, cum, true);
}

/* SACK-based: an unacknowledged packet is lost once dupack_threshold packets
 * above it were acknowledged and at least one of them was sent after it
 * (so a retransmission is not condemned by acknowledgements of older sends).
 * With spraying this turns reordering into loss, as Swift's SACK does. */
static void detect_loss_sack(struct sim *s, struct flow *f)
{
    uint32_t above = 0;
    for (uint32_t q = f->highest_acked; q-- > f->cum_acked;) {
        uint8_t st = f->tx[q].state;
        if (st == TX_ACKED)
            above++;
        else if (st == TX_IN_FLIGHT && above >= s->cc->dupack_threshold && f->tx[q].time_ps < f->rack_time_ps)
            declare_lost(s, f, q, true);
    }
}

static void flow_finish(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    f->state = FLOW_DONE;
    f->finish_ps = s->now;
    s->flows_finished++;
    if (s->cfg.htsim_output)
        /* htsim's line (uec.cpp checkFinished), so scripts that parse it
         * (the time is whitespace field 8, absolute, in microseconds) work */
        printf("Flow Uec_%u_%u flowId %u uecSrc %u finished at %g total packets %u RTS %llu total bytes %llu "
               "in_flight now %llu\n",
               f->src, f->dst, f->id, fi, (double)s->now / PS_PER_US, f->n_pkts, (unsigned long long)f->c.rts,
               (unsigned long long)f->n_pkts * (s->cfg.mtu_bytes - s->cfg.hdr_bytes),
               (unsigned long long)f->in_flight_bytes);
    transport_nic_unready(s, fi);
    if (s->cc->n_counters) {
        f->cc_counters = xcalloc(s->cc->n_counters, sizeof(double));
        s->cc->counters(f->cc_state, f->cc_counters);
    }
    free_sender_state(f);
    const struct cm_conn *c = &s->cm.conns[f->conn_index];
    if (c->send_done_trigger != CM_NO_TRIGGER)
        sim_trigger_activate(s, c->send_done_trigger);
    if (s->flows_finished == s->n_flows)
        s->stop = true;
}

/* RTT samples are trusted only when it is clear which transmission was
 * acknowledged (seed 002 Sec. 4e). */
static bool rtt_sample_valid(const struct sim *s, const struct flow *f, uint32_t seq, bool rtx_echo)
{
    /* The reference simulator's NSCC looks the send time up in its record of
     * unacknowledged packets, so a packet already covered by a later
     * cumulative or selective ACK gives no sample. Algorithms that echo
     * timestamps, as TCP does, measure every packet's own ACK. */
    if (f->tx[seq].state != TX_IN_FLIGHT && !(s->cc->timestamp_echo && f->tx[seq].state == TX_ACKED))
        return false;
    uint8_t n = f->tx[seq].count;
    return (n == 1 && !rtx_echo) || (n == 2 && rtx_echo);
}

/* Cumulative and selective acknowledgements of an ACK or a state ACK. */
static void apply_ack_state(const struct sim *s, struct flow *f, const struct packet *a)
{
    f->last_ack_ps = s->now;
    uint32_t cum = a->seq <= f->n_pkts ? a->seq : f->n_pkts;
    for (uint32_t q = f->cum_acked; q < cum; q++)
        mark_acked(s, f, q);
    if (cum > f->cum_acked)
        f->cum_acked = cum;
    uint64_t bits = a->sack_bits;
    while (bits) {
        uint32_t i = (uint32_t)__builtin_ctzll(bits);
        bits &= bits - 1;
        uint32_t q = a->sack_base + i;
        if (q < f->n_pkts)
            mark_acked(s, f, q);
    }
    while (f->cum_acked < f->n_pkts && f->tx[f->cum_acked].state == TX_ACKED)
        f->cum_acked++;
}

/* SLEEK (seed 002 Sec. 6): when more packets are out of order than
 * min(1.5 cwnd, maxwnd) allows, snapshot the highest sequence sent and
 * retransmit the holes below it, scanning at most one window of packets
 * from the cumulative ACK per call; recovery ends when the cumulative ACK
 * passes the snapshot. Packets already resent in this recovery are skipped. */
void uet_sleek_step(struct sim *s, uint32_t fi, uint64_t ooo_pkts)
{
    struct flow *f = &s->flows[fi];
    const struct cc_window *w = f->cc_state;
    uint32_t mtu = s->cfg.mtu_bytes;
    uint64_t cwnd_pkts = (w->cwnd_bytes + mtu - 1) / mtu;
    if (!f->sleek_recovery) {
        /* seed 002 Sec. 6: loss_retx_factor 1.5, capped at maxwnd */
        uint64_t thresh_bytes = w->cwnd_bytes + w->cwnd_bytes / 2;
        if (w->maxwnd_bytes && thresh_bytes > w->maxwnd_bytes)
            thresh_bytes = w->maxwnd_bytes;
        if (ooo_pkts <= thresh_bytes / mtu || f->next_new_seq == 0)
            return;
        f->sleek_recovery = true;
        f->sleek_recovery_seq = f->next_new_seq - 1;
        f->sleek_start_ps = s->now;
    }
    if (f->cum_acked > f->sleek_recovery_seq) {
        f->sleek_recovery = false;
        return;
    }
    uint64_t end = (uint64_t)f->cum_acked + (cwnd_pkts ? cwnd_pkts : 1);
    if (end > f->sleek_recovery_seq)
        end = f->sleek_recovery_seq;
    for (uint32_t q = f->cum_acked; q < end; q++)
        if (f->tx[q].state == TX_IN_FLIGHT && f->tx[q].time_ps < f->sleek_start_ps)
            declare_lost(s, f, q, true);
}

static void send_header_packet(struct sim *s, uint32_t fi, uint8_t type)
{
    struct flow *f = &s->flows[fi];
    uint32_t idx = pkt_alloc(&s->pool);
    struct packet *p = pkt_at(&s->pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = type;
    p->tclass = f->tclass;
    p->flow = fi;
    p->seq = f->next_new_seq;
    p->size_bytes = s->cfg.hdr_bytes;
    p->src_host = f->src;
    p->dst_host = f->dst;
    p->ts_ps = s->now;
    p->entropy = f->lb->next_entropy(f->lb_state, f->next_new_seq, s->now);
    port_enqueue(s, s->hosts[f->src].nic_port, idx);
}

static void arm_probe(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (!s->cfg.sleek || f->probe_event_pending)
        return;
    f->probe_event_pending = true;
    transport_timer_at(s, s->now + s->probe_period_ps, fi, UET_TIMER_PROBE);
}

/* Probes (seed 002 Sec. 6): after base_rtt + target_Qdelay with data in
 * flight and no ACK, ask the receiver for its state. */
static void uet_probe_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    f->probe_event_pending = false;
    if (f->state != FLOW_ACTIVE || f->in_flight_bytes == 0)
        return;
    simtime_ps quiet_since = f->last_ack_ps > f->probe_sent_ps ? f->last_ack_ps : f->probe_sent_ps;
    if (quiet_since < f->start_ps)
        quiet_since = f->start_ps;
    if (s->now >= quiet_since + s->probe_period_ps && !f->probe_outstanding) {
        f->probe_outstanding = true;
        f->probe_sent_ps = s->now;
        f->c.probes++;
        s->tot.probes_sent++;
        send_header_packet(s, fi, PKT_PROBE);
    } else if (f->probe_outstanding && s->now >= f->probe_sent_ps + s->min_rto_ps) {
        f->probe_outstanding = false; /* the probe or its answer was lost */
    }
    arm_probe(s, fi);
}

/* A state ACK answers a probe or an RTS. A fast probe answer means the
 * path is clear, so whatever was sent before the probe and is still missing
 * is gone; a slow one proves nothing (seed 002 Sec. 6). */
static void sender_on_state_ack(struct sim *s, uint32_t fi, const struct packet *a)
{
    struct flow *f = &s->flows[fi];
    apply_ack_state(s, f, a);
    if (a->ref_seq != UINT32_MAX && f->probe_outstanding) {
        f->probe_outstanding = false;
        if (s->now - f->probe_sent_ps <= s->probe_period_ps)
            for (uint32_t q = f->cum_acked; q < f->next_new_seq; q++)
                if (f->tx[q].state == TX_IN_FLIGHT && f->tx[q].time_ps < f->probe_sent_ps)
                    declare_lost(s, f, q, true);
    }
    if (f->cum_acked >= f->n_pkts) {
        flow_finish(s, fi);
        return;
    }
    sender_wake(s, fi);
}

static void sender_on_ack(struct sim *s, uint32_t fi, const struct packet *a)
{
    struct flow *f = &s->flows[fi];
    f->c.acks++;
    uint64_t newly = 0;
    if (a->recvd_bytes > f->recvd_bytes_seen) {
        newly = a->recvd_bytes - f->recvd_bytes_seen;
        f->recvd_bytes_seen = a->recvd_bytes;
    }
    bool ecn = a->flags & PKTF_ECN_ECHO;
    if (ecn)
        f->c.ecn_acks++;
    uint32_t ref = a->ref_seq < f->n_pkts ? a->ref_seq : 0;
    bool valid = rtt_sample_valid(s, f, ref, a->flags & PKTF_RTX_ECHO);
    simtime_ps raw_rtt = valid ? s->now - f->tx[ref].time_ps : 0;

    apply_ack_state(s, f, a);
    if (s->cfg.sleek)
        uet_sleek_step(s, fi, a->ooo_pkts);

    if (s->cc->loss_mode == CC_LOSS_DUPACK)
        detect_loss_dupack(s, f);
    else if (s->cc->loss_mode == CC_LOSS_SACK_HOLE)
        detect_loss_sack(s, f);

    f->lb->feedback(f->lb_state, a->entropy, ecn ? LB_ECN : LB_GOOD, s->now);
    struct cc_ack ev = {
        .now = s->now,
        .newly_acked_bytes = newly,
        .rtt_valid = valid,
        .raw_rtt_ps = raw_rtt,
        .ecn = ecn,
        .in_flight_bytes = f->in_flight_bytes,
    };
    s->cc->on_ack(f->cc_state, &ev);
    if (f->cum_acked >= f->n_pkts) {
        flow_finish(s, fi);
        return;
    }
    sender_wake(s, fi);
}

static void sender_on_nack(struct sim *s, uint32_t fi, const struct packet *n)
{
    struct flow *f = &s->flows[fi];
    f->c.nacks++;
    apply_ack_state(s, f, n);
    if (f->cum_acked >= f->n_pkts) {
        flow_finish(s, fi);
        return;
    }
    uint32_t seq = n->ref_seq;
    if (seq >= f->n_pkts || f->tx[seq].state != TX_IN_FLIGHT) {
        sender_wake(s, fi);
        return;
    }
    uint32_t size = pkt_wire_bytes(s, f, seq);
    bool last_hop = n->flags & PKTF_TRIM_LASTHOP;
    invariant(f->in_flight_bytes >= size, "flow %u: packet %u (%u bytes) NACKed with %llu in flight", fi, seq, size,
              (unsigned long long)f->in_flight_bytes);
    f->in_flight_bytes -= size;
    rtx_push(f, seq);
    struct cc_nack ev = {
        .now = s->now,
        .pkt_bytes = size,
        .raw_rtt_ps = s->now - f->tx[seq].time_ps,
        .last_hop = last_hop,
        .in_flight_bytes = f->in_flight_bytes,
    };
    s->cc->on_nack(f->cc_state, &ev);
    /* A trim at the receiver's own downlink says nothing about the path. */
    enum lb_signal sig = last_hop ? ((n->flags & PKTF_ECN_ECHO) ? LB_ECN : LB_GOOD) : LB_NACK;
    f->lb->feedback(f->lb_state, n->entropy, sig, s->now);
    sender_wake(s, fi);
}

static void uet_receive(struct sim *s, uint32_t pkt_idx)
{
    /* Handlers work on a copy: answering a packet allocates one, which may
     * grow (move) the pool under a pointer into it. */
    struct packet copy = *pkt_at(&s->pool, pkt_idx);
    struct packet *p = &copy;
    uint32_t fi = p->flow;
    struct flow *f = &s->flows[fi];
    switch (p->type) {
    case PKT_DATA:
        receiver_on_data(s, f, p);
        break;
    case PKT_ACK:
        s->tot.ctl_delivered++;
        if (f->state == FLOW_ACTIVE)
            sender_on_ack(s, fi, p);
        break;
    case PKT_NACK:
        s->tot.ctl_delivered++;
        if (f->state == FLOW_ACTIVE)
            sender_on_nack(s, fi, p);
        break;
    case PKT_PROBE:
    case PKT_RTS:
        send_state_ack(s, f, p);
        break;
    case PKT_PROBE_ACK:
        s->tot.ctl_delivered++;
        if (f->state == FLOW_ACTIVE)
            sender_on_state_ack(s, fi, p);
        break;
    default:
        die_internal("unknown packet type %u", p->type);
    }
    if (p->type == PKT_ACK || p->type == PKT_NACK || p->type == PKT_PROBE_ACK)
        check_in_flight(s, fi);
    pkt_release(&s->pool, pkt_idx);
}

static void uet_on_drop(struct sim *s, uint32_t pkt_idx)
{
    /* Loss is discovered by the sender (NACK, timeout), never by an oracle:
     * the drop is only counted here. */
    if (pkt_at(&s->pool, pkt_idx)->type == PKT_DATA)
        s->tot.data_drops++;
    else
        s->tot.ctl_drops++;
}

/* ---- retransmission timeout ---------------------------------------------------------------- */

static void uet_rto_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    f->rto_event_pending = false;
    if (f->state != FLOW_ACTIVE)
        return;
    /* The oldest transmission still unacknowledged. */
    uint32_t oldest = UINT32_MAX;
    simtime_ps oldest_t = SIMTIME_NEVER;
    for (uint32_t q = f->cum_acked; q < f->next_new_seq; q++) {
        if (f->tx[q].state == TX_IN_FLIGHT && f->tx[q].time_ps < oldest_t) {
            oldest_t = f->tx[q].time_ps;
            oldest = q;
        }
    }
    if (oldest == UINT32_MAX)
        return; /* nothing outstanding: re-armed by the next transmission */
    if (oldest_t + s->min_rto_ps > s->now) {
        f->rto_event_pending = true;
        f->rto_event_ps = oldest_t + s->min_rto_ps;
        transport_timer_at(s, f->rto_event_ps, fi, UET_TIMER_RTO);
        return;
    }
    uint32_t size = pkt_wire_bytes(s, f, oldest);
    f->c.timeouts++;
    s->tot.rtos++;
    invariant(f->in_flight_bytes >= size, "flow %u: packet %u (%u bytes) timed out with %llu in flight", fi, oldest,
              size, (unsigned long long)f->in_flight_bytes);
    f->in_flight_bytes -= size;
    rtx_push(f, oldest);
    f->lb->feedback(f->lb_state, f->tx[oldest].entropy, LB_TIMEOUT, s->now);
    s->cc->on_timeout(f->cc_state, s->now, size);
    if (s->cc->loss_mode == CC_LOSS_DUPACK) {
        /* TCP after a timeout (RFC 5681): everything outstanding is resent
         * from the first hole (go-back-N), and any recovery is over. */
        f->in_recovery = false;
        f->dupacks = 0;
        for (uint32_t q = f->cum_acked; q < f->next_new_seq; q++)
            if (f->tx[q].state == TX_IN_FLIGHT) {
                invariant(f->in_flight_bytes >= pkt_wire_bytes(s, f, q),
                          "flow %u: packet %u (%u bytes) resent after a timeout with %llu in flight", fi, q,
                          pkt_wire_bytes(s, f, q), (unsigned long long)f->in_flight_bytes);
                f->in_flight_bytes -= pkt_wire_bytes(s, f, q);
                rtx_push(f, q);
            }
    }
    /* Request to send (seed 002 Sec. 6): when the window cannot even carry
     * the retransmission, ask the receiver for its state so acknowledgements
     * that were lost stop holding the window; at most one per base RTT. */
    if (cc_cwnd(f->cc_state) < size + f->in_flight_bytes &&
        (f->last_rts_ps == 0 || s->now - f->last_rts_ps >= s->base_rtt_ps)) {
        f->last_rts_ps = s->now;
        f->c.rts++;
        s->tot.rts_sent++;
        send_header_packet(s, fi, PKT_RTS);
    }
    /* The timer restarts from the next-oldest transmission, which may be
     * overdue already: look again now (one packet per expiry, as htsim). */
    f->rto_event_pending = true;
    f->rto_event_ps = s->now;
    transport_timer_at(s, s->now, fi, UET_TIMER_RTO);
    sender_wake(s, fi);
    check_in_flight(s, fi);
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
    default:
        die_internal("unknown UET timer %u", kind);
    }
}

/* ---- a switch's control class is full ------------------------------------------------------- */

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
    pkt->flags = (uint8_t)((pkt->flags & PKTF_RTX ? PKTF_RTX_ECHO : 0) | PKTF_BOUNCED);
    pkt->src_host = pkt->dst_host;
    pkt->dst_host = sender;
    /* a NACK names the lost packet in ref_seq; a switch knows nothing of
     * the receiver's state, so the acknowledgement fields stay empty */
    pkt->ref_seq = pkt->seq;
    pkt->seq = 0;
    pkt->sack_base = 0;
    pkt->sack_bits = 0;
    pkt->recvd_bytes = 0;
    uint32_t sw = s->ports[port_idx].owner_node - s->n_hosts;
    port_push_control(s, fabric_route(s, sw, pkt), pkt_idx);
    return true;
}

const struct transport_ops transport_uet_ops = {
    .name = "uet",
    .description = "Ultra Ethernet packet delivery (seed 002): sender-based CC, SACK, NACKs of trimmed packets, SLEEK",
    .setup = uet_setup,
    .flow_start = uet_flow_start,
    .nic_pull = uet_nic_pull,
    .receive = uet_receive,
    .timer = uet_timer,
    .on_drop = uet_on_drop,
    .on_control_full = uet_on_control_full,
    .free = uet_free,
};
