/* uet.h: the UET transport's per-flow state (struct uet_flow, which the
 * flow's tp_state points to) and what it exposes beyond its ops table: its
 * timer kinds and the SLEEK step, for tests. */
#ifndef SPRAYSIM_UET_H
#define SPRAYSIM_UET_H

#include "../core/core.h"
#include "flow.h"
#include "rcv_window.h"

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
    TX_EMPTY = 4,      /* a ring slot that holds no record (uet_txr below) */
};

/* What the sender remembers of each packet, in one record so a send or an
 * ACK touches one cache line per packet rather than three arrays. 12 bytes
 * (packed: the time is 4-aligned): which packet a ring slot holds follows
 * from the slot and next_new_seq (uet_txr), so the record carries no tag. */
struct tx_rec {
    simtime_ps time_ps;      /* latest transmission */
    uint8_t state;           /* enum tx_state */
    uint8_t count;           /* transmissions, saturating at 255 */
    uint16_t entropy;        /* of the latest transmission (blamed on a timeout) */
} __attribute__((packed, aligned(4)));
_Static_assert(sizeof(struct tx_rec) == 12, "a send record is 12 bytes");

/* One message a flow carries in its sequence space (uet_msg_pipeline):
 * its flow slot, the sequence number after its last packet, and that
 * packet's payload (each message is cut into packets on its own, as
 * htsim's UecMsg::getNextSegment cuts it). */
struct uet_span {
    uint32_t fi;
    uint32_t end_seq;
    uint32_t last_payload_bytes;
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
    bool tx_keep_acked;      /* acknowledged packets' records are read (timestamp echo): keep half a ring of them */
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
    /* selective bits of NACKs already applied (uet_ack.c apply_ack_state):
     * bit i is packet sack_seen_base + i, sent and acknowledged */
    uint32_t sack_seen_base;
    uint64_t sack_seen_bits;
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
    struct rcv_window rcv_win; /* reassembly bitmap from rcv_cum on (rcv_window.h) */
    uint32_t rcv_cum;        /* next expected sequence number */
    uint64_t rcv_bytes;      /* data bytes (wire size) received, duplicates excluded */
    uint32_t rcv_unacked_bytes;
    uint32_t rcv_pkts;       /* distinct packets received */
    bool rcv_ack_request;    /* an AR arrived while holes remained */

    struct uet_credit *credit; /* receiver credit's state (uet_credit.c); NULL when it is off */

    /* Messages of its connection pipelined behind its own in one sequence
     * space (uet_msg_pipeline, htsim -conn_reuse): spans[0] is its own
     * message, the others follow in order. NULL while it carries only its
     * own. */
    struct uet_span *spans;
    uint32_t n_spans, cap_spans;
    uint32_t spans_acked;    /* spans below are acknowledged through (their messages finished) */
    uint32_t spans_rcvd;     /* spans below are received in full (rspans: the receiver's) */
    /* The receiver's view of the same: the spans it learned from the data
     * packets (each carries its message and where that message's span
     * ends: uet_send.c), sorted by end, and the end of the sequence space
     * it knows of (0 until its first packet). The receiver never reads the
     * sender's spans or the carrier's grown n_pkts: in a parallel run they
     * are another process's. */
    struct uet_span *rspans;
    uint32_t n_rspans, cap_rspans;
    uint32_t rcv_end;
    bool carrying;           /* its own message finished; it still sends the later ones */
    uint32_t carrier;        /* a message pipelined on another flow: 1 + that flow, else 0 */
};

static inline struct uet_flow *uet_of(const struct flow *f)
{
    return (struct uet_flow *)f->tp_state;
}

/* ---- the sender's per-packet records ------------------------------------------------
 * Packet seq's record is in slot seq & tx_mask. A slot is claimed when its
 * packet is first sent (uet_tx_claim, in sequence order: next_new_seq only
 * grows) and keeps the record until the packet tx_mask + 1 later takes it,
 * so a slot holds the newest packet below next_new_seq that maps to it,
 * if any (TX_EMPTY: none, after the ring grew); the ring doubles
 * whenever the packets from the oldest unacknowledged one to a new one
 * would not fit in it, so every packet not yet acknowledged has its
 * record. A packet whose slot moved on reads as acknowledged with no send
 * record; one never sent, as unsent. Only algorithms that echo timestamps
 * (cc_ops.timestamp_echo: an RTT sample from any packet's own ACK, even one
 * already covered by another ACK) read an acknowledged packet's send time
 * and count; for them (tx_keep_acked) the ring doubles already when the
 * span would fill more than half of it, so an acknowledged packet keeps its
 * record for at least half a ring of sends and a late ACK still finds it.
 * Every other reader asks an acknowledged packet's state only, which the
 * moved-on slot answers alike, so the smaller ring changes no output. */
#define UET_TX_MIN_SLOTS 2u
#define UET_TX_INIT_MAX_SLOTS 128u /* a flow's first ring: its packets, up to this many (grows as needed) */
#define UET_RTX_INIT_SLOTS 4u /* the retransmission ring's first size: losses are rare, it doubles when full */

extern const struct tx_rec uet_tx_gone, uet_tx_unsent;

/* Whether packet seq's slot holds its record: claimed (below
 * next_new_seq), not yet taken by a later packet (within one ring of
 * next_new_seq) and not emptied by a growth. */
static inline bool uet_tx_holds(const struct uet_flow *q, uint32_t seq)
{
    return seq < q->next_new_seq && q->next_new_seq - seq <= q->tx_mask + 1 &&
           q->tx[seq & q->tx_mask].state != TX_EMPTY;
}

/* Packet seq's record, read only. */
static inline const struct tx_rec *uet_txr(const struct uet_flow *q, uint32_t seq)
{
    if (uet_tx_holds(q, seq))
        return &q->tx[seq & q->tx_mask];
    return seq < q->next_new_seq ? &uet_tx_gone : &uet_tx_unsent;
}

/* The record of packet seq from cum_acked up to next_new_seq, where every
 * packet has its record in its slot (uet_tx_claim grows the ring so the
 * span fits; cum_acked only grows), without uet_txr's tests. */
static inline struct tx_rec *uet_tx_live(const struct uet_flow *q, uint32_t seq)
{
    invariant(seq >= q->cum_acked && uet_tx_holds(q, seq),
              "packet %u is not between the cumulative point %u and the next new packet %u", seq, q->cum_acked,
              q->next_new_seq);
    return &q->tx[seq & q->tx_mask];
}

/* Packet seq's record, to change: it must hold it (sent, in the ring). */
static inline struct tx_rec *uet_txw(const struct uet_flow *q, uint32_t seq)
{
    invariant(uet_tx_holds(q, seq), "packet %u's record is not in its slot (next new packet %u, %u slots)", seq,
              q->next_new_seq, q->tx_mask + 1);
    return &q->tx[seq & q->tx_mask];
}

/* Grows the ring until packet seq (>= cum_acked) fits (uet_tx_claim). */
void uet_tx_make_room(struct uet_flow *q, uint32_t seq);

/* The record of packet seq, sent for the first time now (seq ==
 * next_new_seq): its slot, emptied, the ring grown first if needed.
 * Inline: once per packet sent, and the ring rarely grows. */
static inline struct tx_rec *uet_tx_claim(struct uet_flow *q, uint32_t seq)
{
    invariant(seq == q->next_new_seq, "claiming packet %u's record with %u the next new one", seq, q->next_new_seq);
    uint32_t room = q->tx_keep_acked ? (q->tx_mask + 1) / 2 : q->tx_mask + 1;
    if (seq - q->cum_acked + 1 > room)
        uet_tx_make_room(q, seq);
    struct tx_rec *r = &q->tx[seq & q->tx_mask];
    invariant(r->state == TX_UNSENT || r->state == TX_ACKED || r->state == TX_EMPTY,
              "packet %u's slot still holds packet %u, not acknowledged", seq, seq - (q->tx_mask + 1));
    *r = (struct tx_rec){.state = TX_UNSENT};
    return r;
}
/* Appends seq to the retransmission ring (grown when full). */
void uet_rtx_ring_push(struct uet_flow *q, uint32_t seq);
/* A new flow's rings, for n_pkts packets; keep_acked: see tx_keep_acked. */
void uet_tx_alloc(struct uet_flow *q, uint32_t n_pkts, bool keep_acked);

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
