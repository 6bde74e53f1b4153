/* uet_recovery.c: UET loss recovery beyond NACKs: SLEEK (seed 002 Sec. 6),
 * probes after a quiet base RTT + target delay, the retransmission timeout
 * with go-back-N for TCP-like algorithms, and request-to-send.
 */
#include "uet_internal.h"

#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../sim.h"

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
    if (!uet_of(f)->sleek_recovery) {
        /* seed 002 Sec. 6: loss_retx_factor 1.5, capped at maxwnd */
        uint64_t thresh_bytes = w->cwnd_bytes + w->cwnd_bytes / 2;
        if (w->maxwnd_bytes && thresh_bytes > w->maxwnd_bytes)
            thresh_bytes = w->maxwnd_bytes;
        if (ooo_pkts <= thresh_bytes / mtu || uet_of(f)->next_new_seq == 0)
            return;
        uet_of(f)->sleek_recovery = true;
        uet_of(f)->sleek_recovery_seq = uet_of(f)->next_new_seq - 1;
        uet_of(f)->sleek_start_ps = s->now;
    }
    if (uet_of(f)->cum_acked > uet_of(f)->sleek_recovery_seq) {
        uet_of(f)->sleek_recovery = false;
        return;
    }
    uint64_t end = (uint64_t)uet_of(f)->cum_acked + (cwnd_pkts ? cwnd_pkts : 1);
    if (end > uet_of(f)->sleek_recovery_seq)
        end = uet_of(f)->sleek_recovery_seq;
    for (uint32_t q = uet_of(f)->cum_acked; q < end; q++)
        if (uet_txr(uet_of(f), q)->state == TX_IN_FLIGHT && uet_txr(uet_of(f), q)->time_ps < uet_of(f)->sleek_start_ps)
            uet_declare_lost(s, f, q, true);
}

void uet_arm_probe(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (!s->cfg.sleek || uet_of(f)->probe_event_pending)
        return;
    uet_of(f)->probe_event_pending = true;
    transport_timer_at(s, s->now + s->probe_period_ps, fi, UET_TIMER_PROBE);
}

/* Probes (seed 002 Sec. 6): after base_rtt + target_Qdelay with data in
 * flight and no ACK, ask the receiver for its state. */
void uet_probe_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    uet_of(f)->probe_event_pending = false;
    if (!uet_live(f) || uet_of(f)->in_flight_bytes == 0)
        return;
    simtime_ps quiet_since = uet_of(f)->last_ack_ps > uet_of(f)->probe_sent_ps ? uet_of(f)->last_ack_ps : uet_of(f)->probe_sent_ps;
    if (quiet_since < f->start_ps)
        quiet_since = f->start_ps;
    if (s->now >= quiet_since + s->probe_period_ps && !uet_of(f)->probe_outstanding) {
        uet_of(f)->probe_outstanding = true;
        uet_of(f)->probe_sent_ps = s->now;
        f->c.probes++;
        s->tot.probes_sent++;
        uet_send_header_packet(s, fi, PKT_PROBE);
    } else if (uet_of(f)->probe_outstanding && s->now >= uet_of(f)->probe_sent_ps + s->min_rto_ps) {
        uet_of(f)->probe_outstanding = false; /* the probe or its answer was lost */
    }
    uet_arm_probe(s, fi);
}

void uet_rto_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    uet_of(f)->rto_event_pending = false;
    if (!uet_live(f))
        return;
    /* The oldest transmission still unacknowledged. */
    uint32_t oldest = UINT32_MAX;
    simtime_ps oldest_t = SIMTIME_NEVER;
    const struct uet_flow *u = uet_of(f);
    for (uint32_t q = u->cum_acked; q < u->next_new_seq; q++) {
        const struct tx_rec *r = uet_tx_live(u, q);
        if (r->state == TX_IN_FLIGHT && r->time_ps < oldest_t) {
            oldest_t = r->time_ps;
            oldest = q;
        }
    }
    if (oldest == UINT32_MAX)
        return; /* nothing outstanding: re-armed by the next transmission */
    if (oldest_t + s->min_rto_ps > s->now) {
        uet_of(f)->rto_event_pending = true;
        uet_of(f)->rto_event_ps = oldest_t + s->min_rto_ps;
        transport_timer_at(s, uet_of(f)->rto_event_ps, fi, UET_TIMER_RTO);
        return;
    }
    uint32_t size = pkt_wire_bytes(s, f, oldest);
    f->c.timeouts++;
    s->tot.rtos++;
    invariant(uet_of(f)->in_flight_bytes >= size, "flow %u: packet %u (%u bytes) timed out with %llu in flight", fi, oldest,
              size, (unsigned long long)uet_of(f)->in_flight_bytes);
    uet_of(f)->in_flight_bytes -= size;
    /* receiver credit: were retransmissions already waiting? */
    bool had_queue = uet_of(f)->credit && uet_credit_rtx_bytes(s, f) > 0;
    uet_rtx_push(f, oldest);
    f->lb->feedback(f->lb_state, uet_txr(uet_of(f), oldest)->entropy, LB_TIMEOUT, s->now);
    if (uet_window_on(s, f))
        s->cc->on_timeout(f->cc_state, s->now, size);
    if (s->loss_mode == CC_LOSS_DUPACK) {
        /* TCP after a timeout (RFC 5681): everything outstanding is resent
         * from the first hole (go-back-N), and any recovery is over. */
        uet_of(f)->in_recovery = false;
        uet_of(f)->dupacks = 0;
        for (uint32_t q = uet_of(f)->cum_acked; q < uet_of(f)->next_new_seq; q++)
            if (uet_txr(uet_of(f), q)->state == TX_IN_FLIGHT) {
                invariant(uet_of(f)->in_flight_bytes >= pkt_wire_bytes(s, f, q),
                          "flow %u: packet %u (%u bytes) resent after a timeout with %llu in flight", fi, q,
                          pkt_wire_bytes(s, f, q), (unsigned long long)uet_of(f)->in_flight_bytes);
                uet_of(f)->in_flight_bytes -= pkt_wire_bytes(s, f, q);
                uet_rtx_push(f, q);
            }
    }
    /* Request to send (seed 002 Sec. 6): when the window cannot even carry
     * the retransmission, ask the receiver for its state so acknowledgements
     * that were lost stop holding the window; at most one per base RTT.
     * With receiver credit the RTS also asks for credit (uet_credit.c). */
    bool want_rts = uet_of(f)->credit ? uet_credit_rto_wants_rts(s, fi, had_queue, size)
                                : cc_cwnd(f->cc_state) < size + uet_of(f)->in_flight_bytes;
    if (want_rts && (uet_of(f)->last_rts_ps == 0 || s->now - uet_of(f)->last_rts_ps >= s->base_rtt_ps)) {
        uet_of(f)->last_rts_ps = s->now;
        f->c.rts++;
        s->tot.rts_sent++;
        uet_send_header_packet(s, fi, PKT_RTS);
    }
    /* The timer restarts from the next-oldest transmission, which may be
     * overdue already: look again now (one packet per expiry, as htsim). */
    uet_of(f)->rto_event_pending = true;
    uet_of(f)->rto_event_ps = s->now;
    transport_timer_at(s, s->now, fi, UET_TIMER_RTO);
    uet_sender_wake(s, fi);
    uet_check_in_flight(s, fi);
}
