/* uet_ack.c: the UET sender's handling of feedback: cumulative and
 * selective acknowledgements, RTT samples (Karn's rule), the loss detection
 * each algorithm asks for (NACK/RTO only, duplicate ACKs, SACK holes with
 * RACK's send-time rule), NACKs of trimmed packets, and completion.
 */
#include "uet_internal.h"

#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../sim.h"

/* Packet seq, whose record r is in its slot and neither acknowledged nor
 * unsent, is acknowledged now. */
static inline void ack_record(const struct sim *s, struct flow *f, uint32_t seq, struct tx_rec *r)
{
    if (r->state == TX_IN_FLIGHT) {
        invariant(uet_of(f)->in_flight_bytes >= pkt_wire_bytes(s, f, seq),
                  "flow %u: acknowledging packet %u (%u bytes) with %llu in flight", (unsigned)(f - s->flows), seq,
                  pkt_wire_bytes(s, f, seq), (unsigned long long)uet_of(f)->in_flight_bytes);
        uet_of(f)->in_flight_bytes -= pkt_wire_bytes(s, f, seq);
    }
    r->state = TX_ACKED;
    /* RACK (RFC 8985 6.2): an acknowledged retransmission may have been
     * the original arriving late, so only packets sent once move the
     * "latest delivered send time" that condemns older packets. */
    if (r->count == 1 && r->time_ps > uet_of(f)->rack_time_ps)
        uet_of(f)->rack_time_ps = r->time_ps;
    if (seq + 1 > uet_of(f)->highest_acked)
        uet_of(f)->highest_acked = seq + 1;
}

/* ack_record out of line, for the selective bits: nearly every bit (a
 * packet an earlier ACK or NACK already acknowledged) stops at the state
 * test before it. */
static __attribute__((noinline)) void mark_acked_slow(const struct sim *s, struct flow *f, uint32_t seq, struct tx_rec *r)
{
    ack_record(s, f, seq, r);
}

static inline void mark_acked(const struct sim *s, struct flow *f, uint32_t seq)
{
    uint8_t st = uet_txr(uet_of(f), seq)->state;
    if (st == TX_ACKED || st == TX_UNSENT)
        return;
    ack_record(s, f, seq, uet_txw(uet_of(f), seq));
}

/* A packet found lost without a NACK or timeout: resend it first. */
void uet_declare_lost(struct sim *s, struct flow *f, uint32_t seq, bool tell_cc)
{
    uint32_t size = pkt_wire_bytes(s, f, seq);
    invariant(uet_of(f)->in_flight_bytes >= size, "flow %u: packet %u (%u bytes) lost with %llu in flight",
              (unsigned)(f - s->flows), seq, size, (unsigned long long)uet_of(f)->in_flight_bytes);
    uet_of(f)->in_flight_bytes -= size;
    uet_rtx_push(f, seq);
    f->c.fast_losses++;
    if (tell_cc && s->cc->on_loss && uet_window_on(s, f))
        s->cc->on_loss(f->cc_state, s->now, size);
}

/* In flight and overtaken by a later transmission that was acknowledged:
 * a retransmission still on its way (after a NACK, say) is not lost again. */
static bool lost_by_later_ack(const struct flow *f, uint32_t seq)
{
    return uet_txr(uet_of(f), seq)->state == TX_IN_FLIGHT && uet_txr(uet_of(f), seq)->time_ps < uet_of(f)->rack_time_ps;
}

/* NewReno-style: dupack_threshold duplicate cumulative ACKs mark the first
 * hole lost and start a recovery that ends when everything sent before it is
 * acknowledged; a partial ACK in recovery marks the next hole lost. */
static void detect_loss_dupack(struct sim *s, struct flow *f)
{
    uint32_t cum = uet_of(f)->cum_acked;
    if (cum > uet_of(f)->prev_cum) {
        uet_of(f)->dupacks = 0;
        uet_of(f)->prev_cum = cum;
        if (uet_of(f)->in_recovery) {
            if (cum >= uet_of(f)->recover_seq)
                uet_of(f)->in_recovery = false;
            else if (lost_by_later_ack(f, cum))
                uet_declare_lost(s, f, cum, false);
        }
        return;
    }
    if (cum >= f->n_pkts || ++uet_of(f)->dupacks != s->dupack_threshold || uet_of(f)->in_recovery)
        return;
    uet_of(f)->in_recovery = true;
    uet_of(f)->recover_seq = uet_of(f)->next_new_seq;
    if (lost_by_later_ack(f, cum))
        uet_declare_lost(s, f, cum, true);
}

/* SACK-based: an unacknowledged packet is lost once dupack_threshold packets
 * above it were acknowledged and at least one of them was sent after it
 * (so a retransmission is not condemned by acknowledgements of older sends).
 * With spraying this turns reordering into loss, as Swift's SACK does. */
static void detect_loss_sack(struct sim *s, struct flow *f)
{
    uint32_t above = 0;
    for (uint32_t q = uet_of(f)->highest_acked; q-- > uet_of(f)->cum_acked;) {
        uint8_t st = uet_txr(uet_of(f), q)->state;
        if (st == TX_ACKED)
            above++;
        else if (st == TX_IN_FLIGHT && above >= s->dupack_threshold && uet_txr(uet_of(f), q)->time_ps < uet_of(f)->rack_time_ps)
            uet_declare_lost(s, f, q, true);
    }
}

/* RTT samples are trusted only when it is clear which transmission was
 * acknowledged (seed 002 Sec. 4e). */
static bool rtt_sample_valid(const struct sim *s, const struct flow *f, uint32_t seq, bool rtx_echo)
{
    /* The reference simulator's NSCC looks the send time up in its record of
     * unacknowledged packets, so a packet already covered by a later
     * cumulative or selective ACK gives no sample. Algorithms that echo
     * timestamps, as TCP does, measure every packet's own ACK. */
    if (uet_txr(uet_of(f), seq)->state != TX_IN_FLIGHT && !(s->cc->timestamp_echo && uet_txr(uet_of(f), seq)->state == TX_ACKED))
        return false;
    uint8_t n = uet_txr(uet_of(f), seq)->count;
    return (n == 1 && !rtx_echo) || (n == 2 && rtx_echo);
}

/* Cumulative and selective acknowledgements of an ACK, a state ACK or a
 * NACK (from_nack; inline, so each caller has its own copy). */
static inline __attribute__((always_inline)) void apply_ack_state(const struct sim *s, struct flow *f,
                                                                  const struct packet *a, bool from_nack)
{
    uet_of(f)->last_ack_ps = s->now;
    uint32_t cum = a->seq <= f->n_pkts ? a->seq : f->n_pkts;
    /* from cum_acked up to next_new_seq every packet's record is in its
     * slot (uet.h): read it there (the receiver's cum never passes
     * next_new_seq; the general test covers anything beyond) */
    {
        struct uet_flow *u = uet_of(f);
        uint32_t q = u->cum_acked, end = cum < u->next_new_seq ? cum : u->next_new_seq;
        for (; q < end; q++) {
            invariant(uet_tx_holds(u, q), "flow %u: packet %u below next new packet %u has no record",
                      (unsigned)(f - s->flows), q, u->next_new_seq);
            struct tx_rec *r = &u->tx[q & u->tx_mask];
            if (r->state != TX_ACKED && r->state != TX_UNSENT)
                ack_record(s, f, q, r);
        }
        for (; q < cum; q++)
            mark_acked(s, f, q);
    }
    if (cum > uet_of(f)->cum_acked)
        uet_of(f)->cum_acked = cum;
    /* The selective bits. Packets below cum_acked are acknowledged and those
     * from next_new_seq on unsent (both: nothing to do), and every packet
     * between has its record in its slot (uet.h), so a bit costs a range
     * test and a state read; none of the four values moves meanwhile
     * (mark_acked_slow changes the packet's record and the counters only).
     * A NACK (from_nack) starts its bits after the receiver's cumulative
     * point, so in an incast NACK after NACK starts where the one before
     * did and repeats its bits: those are skipped (sack_seen_*). The
     * packets were sent (the receiver has them) and so are now acknowledged,
     * and an acknowledged packet stays so (no state leads out of TX_ACKED):
     * the test would stop at once. (ACKs, whose bits start anywhere, would
     * pay for the test and rarely match: they leave the record alone.) */
    struct uet_flow *u = uet_of(f);
    struct tx_rec *tx = u->tx;
    uint32_t lo = u->cum_acked, span = u->next_new_seq - lo, tx_mask = u->tx_mask;
    uint32_t base = a->sack_base;
    uint64_t seen = from_nack && base == u->sack_seen_base ? u->sack_seen_bits : 0;
#ifdef SPRAYSIM_CHECKS
    for (uint64_t b = a->sack_bits; b; b &= b - 1) {
        uint32_t q = base + (uint32_t)__builtin_ctzll(b);
        invariant(q < u->next_new_seq, "flow %u: packet %u selectively acknowledged, %u sent", (unsigned)(f - s->flows), q,
                  u->next_new_seq);
        invariant(!((seen >> (q - base)) & 1) || uet_txr(u, q)->state == TX_ACKED,
                  "flow %u: packet %u selectively acknowledged before is not acknowledged", (unsigned)(f - s->flows), q);
    }
#endif
    if (from_nack) {
        u->sack_seen_base = base;
        u->sack_seen_bits = seen | a->sack_bits;
    }
    uint64_t bits = a->sack_bits & ~seen;
    while (bits) {
        uint32_t i = (uint32_t)__builtin_ctzll(bits);
        bits &= bits - 1;
        uint32_t q = base + i;
        if (q - lo >= span)
            continue;
        invariant(uet_tx_holds(u, q) && q < f->n_pkts, "flow %u: packet %u between %u and %u has no record",
                  (unsigned)(f - s->flows), q, lo, lo + span);
        struct tx_rec *r = &tx[q & tx_mask];
        if (r->state != TX_ACKED && r->state != TX_UNSENT)
            mark_acked_slow(s, f, q, r);
    }
    /* up to next_new_seq at most (unsent from there on; next_new_seq <= n_pkts) */
    while (u->cum_acked < u->next_new_seq && uet_tx_live(u, u->cum_acked)->state == TX_ACKED)
        u->cum_acked++;
}

/* A state ACK answers a probe or an RTS. A fast probe answer means the
 * path is clear, so whatever was sent before the probe and is still missing
 * is gone; a slow one proves nothing (seed 002 Sec. 6). */
void uet_sender_on_state_ack(struct sim *s, uint32_t fi, const struct packet *a)
{
    struct flow *f = &s->flows[fi];
    apply_ack_state(s, f, a, false);
    if (a->ref_seq != UINT32_MAX && uet_of(f)->probe_outstanding) {
        uet_of(f)->probe_outstanding = false;
        if (s->now - uet_of(f)->probe_sent_ps <= s->probe_period_ps)
            for (uint32_t q = uet_of(f)->cum_acked; q < uet_of(f)->next_new_seq; q++)
                if (uet_txr(uet_of(f), q)->state == TX_IN_FLIGHT && uet_txr(uet_of(f), q)->time_ps < uet_of(f)->probe_sent_ps)
                    uet_declare_lost(s, f, q, true);
    }
    if (uet_of(f)->credit)
        uet_credit_stop_speculating(f);
    if (uet_sender_progress(s, fi))
        return;
    uet_sender_wake(s, fi);
}

void uet_sender_on_ack(struct sim *s, uint32_t fi, const struct packet *a)
{
    struct flow *f = &s->flows[fi];
    f->c.acks++;
    uint64_t newly = 0;
    /* the receiver's count is modulo 2^32: a difference below 2^31 is news,
     * anything else an older ACK overtaken by a newer one */
    uint32_t delta = a->recvd_bytes - (uint32_t)uet_of(f)->recvd_bytes_seen;
    if (delta && delta < 0x80000000u) {
        newly = delta;
        uet_of(f)->recvd_bytes_seen += delta;
    }
    bool ecn = a->flags & PKTF_ECN_ECHO;
    if (ecn)
        f->c.ecn_acks++;
    uint32_t ref = a->ref_seq < f->n_pkts ? a->ref_seq : 0;
    bool valid = rtt_sample_valid(s, f, ref, a->flags & PKTF_RTX_ECHO);
    simtime_ps raw_rtt = valid ? s->now - uet_txr(uet_of(f), ref)->time_ps : 0;

    apply_ack_state(s, f, a, false);
    if (s->cfg.sleek)
        uet_sleek_step(s, fi, a->ooo_pkts);

    if (s->loss_mode == CC_LOSS_DUPACK)
        detect_loss_dupack(s, f);
    else if (s->loss_mode == CC_LOSS_SACK_HOLE)
        detect_loss_sack(s, f);

    f->lb->feedback(f->lb_state, a->entropy, ecn ? LB_ECN : LB_GOOD, s->now);
    struct cc_ack ev = {
        .now = s->now,
        .newly_acked_bytes = newly,
        .rtt_valid = valid,
        .raw_rtt_ps = raw_rtt,
        .ecn = ecn,
        .in_flight_bytes = uet_of(f)->in_flight_bytes,
    };
    if (!uet_of(f)->credit)
        s->cc->on_ack(f->cc_state, &ev);
    else
        uet_credit_on_ack(s, f, &ev);
    if (uet_sender_progress(s, fi))
        return;
    uet_sender_wake(s, fi);
}

void uet_sender_on_nack(struct sim *s, uint32_t fi, const struct packet *n)
{
    struct flow *f = &s->flows[fi];
    f->c.nacks++;
    apply_ack_state(s, f, n, true);
    if (uet_sender_progress(s, fi))
        return;
    uint32_t seq = n->ref_seq;
    if (seq >= f->n_pkts || uet_txr(uet_of(f), seq)->state != TX_IN_FLIGHT) {
        uet_sender_wake(s, fi);
        return;
    }
    uint32_t size = pkt_wire_bytes(s, f, seq);
    bool last_hop = n->flags & PKTF_TRIM_LASTHOP;
    invariant(uet_of(f)->in_flight_bytes >= size, "flow %u: packet %u (%u bytes) NACKed with %llu in flight", fi, seq, size,
              (unsigned long long)uet_of(f)->in_flight_bytes);
    uet_of(f)->in_flight_bytes -= size;
    uet_rtx_push(f, seq);
    struct cc_nack ev = {
        .now = s->now,
        .pkt_bytes = size,
        .raw_rtt_ps = s->now - uet_txr(uet_of(f), seq)->time_ps,
        .last_hop = last_hop,
        .in_flight_bytes = uet_of(f)->in_flight_bytes,
    };
    if (!uet_of(f)->credit)
        s->cc->on_nack(f->cc_state, &ev);
    else
        uet_credit_on_nack(s, f, &ev);
    /* A trim at the receiver's own downlink says nothing about the path. */
    enum lb_signal sig = last_hop ? ((n->flags & PKTF_ECN_ECHO) ? LB_ECN : LB_GOOD) : LB_NACK;
    f->lb->feedback(f->lb_state, n->entropy, sig, s->now);
    uet_sender_wake(s, fi);
}
