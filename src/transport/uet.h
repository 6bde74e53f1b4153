/* uet.h: the UET transport's per-flow state (struct uet_flow, which the
 * flow's tp_state points to) and what it exposes beyond its ops table: its
 * timer kinds and the SLEEK step, for tests. */
#ifndef SPRAYSIM_UET_H
#define SPRAYSIM_UET_H

#include "../core/core.h"
#include "flow.h"

struct sim;
struct uet_credit;
struct pull_client;

enum uet_timer {
    UET_TIMER_RTO = 0,   /* retransmission timer (lazily re-armed) */
    UET_TIMER_PACE = 1,  /* the pacing gap has elapsed */
    UET_TIMER_PROBE = 2, /* check whether the flow needs a probe (SLEEK) */
    UET_TIMER_PULL = 3,  /* receiver credit: the pull pacer of the flow's receiver ticks */
    UET_TIMER_PULL_RATE = 4, /* receiver credit: its pull-rate control updates */
};

enum tx_state {
    TX_UNSENT = 0,
    TX_IN_FLIGHT = 1,
    TX_ACKED = 2,
    TX_RTX_QUEUED = 3, /* known lost (NACK or timeout), waiting to be resent */
};

/* What the sender remembers of each packet, in one record so a send or an
 * ACK touches one cache line per packet rather than three arrays. */
struct tx_rec {
    simtime_ps time_ps;      /* latest transmission */
    uint8_t state;           /* enum tx_state */
    uint8_t count;           /* transmissions, saturating at 255 */
    uint16_t entropy;        /* of the latest transmission (blamed on a timeout) */
    uint32_t seq;            /* the packet this slot holds (the ring below reuses slots) */
};

/* A UET flow's own state: the sender's sequence space and loss recovery,
 * and the receiver's reassembly and delayed-ACK accounting. */
struct uet_flow {
    /* sender */
    uint32_t next_new_seq;   /* next never-sent sequence number */
    uint32_t cum_acked;      /* every seq below is acknowledged */
    uint64_t in_flight_bytes;
    uint64_t recvd_bytes_seen;
    /* per packet sent: state, transmissions, last send time; a ring of
     * tx_mask + 1 slots sized to the packets in flight, not to the flow
     * (uet_tx below), so a 1 GB flow costs what a 2 MB one does */
    struct tx_rec *tx;
    uint32_t tx_mask;
    uint32_t *rtx_ring;      /* sequence numbers waiting for retransmission (rtx_mask + 1 slots) */
    uint32_t rtx_mask;
    uint32_t rtx_head, rtx_len;
    bool rto_event_pending;
    simtime_ps rto_event_ps;
    bool pace_event_pending;
    simtime_ps last_send_ps;
    /* duplicate-ACK and SACK-hole loss detection */
    uint32_t dupacks;
    uint32_t prev_cum;
    bool in_recovery;
    uint32_t recover_seq;     /* NewReno: recovery ends when everything below is acked */
    uint32_t highest_acked;   /* highest sequence number acknowledged (cum or SACK) + 1 */
    simtime_ps rack_time_ps;  /* latest transmission time among acknowledged packets */
    /* SLEEK (seed 002 Sec. 6) */
    bool sleek_recovery;
    uint32_t sleek_recovery_seq; /* highest sequence sent when recovery began */
    simtime_ps sleek_start_ps;
    /* probes and request-to-send */
    simtime_ps last_ack_ps;
    bool probe_outstanding;
    simtime_ps probe_sent_ps;
    bool probe_event_pending;
    simtime_ps last_rts_ps;

    /* receiver */
    uint64_t *rcv_bits;
    uint32_t rcv_cum;        /* next expected sequence number */
    uint64_t rcv_bytes;      /* data bytes (wire size) received, duplicates excluded */
    uint32_t rcv_unacked_bytes;
    uint32_t rcv_pkts;       /* distinct packets received */
    bool rcv_ack_request;    /* an AR arrived while holes remained */

    struct uet_credit *credit; /* receiver credit's state (uet_credit.c); NULL when it is off */
};

static inline struct uet_flow *uet_of(const struct flow *f)
{
    return (struct uet_flow *)f->tp_state;
}

/* ---- the sender's per-packet records ------------------------------------------------
 * Packet seq's record is in slot seq & tx_mask, tagged with seq. A slot is
 * claimed when its packet is first sent (uet_tx_claim) and keeps the
 * record until the packet tx_mask + 1 later takes it; the ring doubles
 * whenever the packets from the oldest unacknowledged one to a new one
 * would fill more than half of it, so every packet in flight has its
 * record, and an acknowledged one keeps it for at least half a ring of
 * sends (late ACKs still find their send time). A packet whose slot moved
 * on reads as acknowledged with no send record; one never sent, as unsent. */
#define UET_TX_MIN_SLOTS 2u
#define UET_TX_EMPTY UINT32_MAX /* the tag of a slot no packet has claimed (no flow has 2^32 - 1 packets) */
#define UET_TX_INIT_MAX_SLOTS 128u /* a flow's first ring: its packets, up to this many (grows as needed) */

extern const struct tx_rec uet_tx_gone, uet_tx_unsent;

/* The receiver's SACK bitmap for an ACK: bit i set when packet base + i
 * of a flow of n_pkts packets is set in rcv_bits (ceil(n_pkts / 64)
 * words), for i < 64 and base + i < n_pkts. Two words shifted together
 * rather than 64 bit tests (those were 4.6% of the 1024-node
 * permutation's instructions, callgrind). */
static inline uint64_t uet_sack_bits(const uint64_t *rcv_bits, uint32_t n_pkts, uint32_t base)
{
    if (base >= n_pkts)
        return 0;
    const uint32_t k = base >> 6, sh = base & 63;
    uint64_t bits = rcv_bits[k] >> sh;
    if (sh && (uint64_t)(k + 1) * 64 < n_pkts) /* the next word exists */
        bits |= rcv_bits[k + 1] << (64 - sh);
    if (n_pkts - base < 64)
        bits &= (1ULL << (n_pkts - base)) - 1;
    return bits;
}

/* Packet seq's record, read only. */
static inline const struct tx_rec *uet_txr(const struct uet_flow *q, uint32_t seq)
{
    const struct tx_rec *r = &q->tx[seq & q->tx_mask];
    if (r->seq == seq) /* an empty slot's tag is UET_TX_EMPTY */
        return r;
    return seq < q->next_new_seq ? &uet_tx_gone : &uet_tx_unsent;
}

/* Packet seq's record, to change: it must hold it (sent, in the ring). */
static inline struct tx_rec *uet_txw(const struct uet_flow *q, uint32_t seq)
{
    struct tx_rec *r = &q->tx[seq & q->tx_mask];
    invariant(r->seq == seq, "packet %u's record is not in its slot (slot holds %u)", seq, r->seq);
    return r;
}

/* The record of packet seq, sent for the first time now (seq ==
 * next_new_seq): its slot, emptied, the ring grown first if needed. */
struct tx_rec *uet_tx_claim(struct uet_flow *q, uint32_t seq);
/* Appends seq to the retransmission ring (grown when full). */
void uet_rtx_ring_push(struct uet_flow *q, uint32_t seq);
/* A new flow's rings, for n_pkts packets. */
void uet_tx_alloc(struct uet_flow *q, uint32_t n_pkts);

/* Frees a finished sender's per-packet records, CC and balancer state (the
 * receiver's bitmap stays); q is its sequence state (UET's own, or the one
 * EQDS keeps inside its flow state). */
void uet_free_sender_state(struct flow *f, struct uet_flow *q);

/* A time-series sample of a flow whose sequence state is q (UET's own or
 * EQDS's); `window`: the CC's window applies to it. */
struct flow_sample;
void uet_sample_seq(const struct sim *s, const struct flow *f, const struct uet_flow *q, bool window,
                    struct flow_sample *out);

/* A UET flow's receiver-side credit state (for tests); receiver credit on. */
struct pull_client *uet_credit_client(const struct flow *f);

/* One SLEEK step for flow fi given the receiver's out-of-order count
 * (exposed for the unit test of seed 002's worked example). */
void uet_sleek_step(struct sim *s, uint32_t fi, uint64_t ooo_pkts);

/* Receiver credit (uet_credit.c), for tests: the pacers' configuration and
 * the pacer of receiving host h; NULL when receiver credit is off. */
struct pull_pacer_cfg;
struct pull_pacer;
const struct pull_pacer_cfg *uet_credit_pacer_cfg(const struct sim *s);
struct pull_pacer *uet_credit_pacer(struct sim *s, uint32_t h);

#endif
