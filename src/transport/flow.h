/* flow.h: one connection of the workload: its sender state (sequence space,
 * retransmission queue, CC and LB state), its receiver state (reassembly
 * bitmap, delayed-ACK accounting) and the counters reported per flow.
 */
#ifndef SPRAYSIM_FLOW_H
#define SPRAYSIM_FLOW_H

#include "../core/core.h"

enum flow_state {
    FLOW_WAITING = 0, /* not started: waiting for its start time or trigger */
    FLOW_ACTIVE = 1,
    FLOW_DONE = 2,    /* sender holds the acknowledgement of the last byte */
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
};

struct flow_counters {
    uint64_t pkts_sent;      /* data packets put on the wire, retransmissions included */
    uint64_t retransmits;
    uint64_t nacks;
    uint64_t acks;
    uint64_t ecn_acks;
    uint64_t timeouts;
    uint64_t fast_losses;    /* losses found by dup-ACKs, SACK holes, SLEEK or probes */
    uint64_t probes;
    uint64_t rts;
};

struct flow {
    const struct transport_ops *tp; /* the transport this flow speaks */
    void *tp_state;                 /* the transport's own per-flow state (NULL for UET, whose fields
                                       are still below; a new transport keeps its state here) */
    /* identity, from the connection matrix */
    uint32_t src, dst;
    uint32_t id;
    uint32_t conn_index;
    uint64_t size_bytes;
    uint32_t n_pkts;
    uint32_t last_payload_bytes;
    uint8_t state;           /* enum flow_state */
    bool rcv_complete;
    bool start_scheduled;    /* a start event is queued (time or trigger) */
    simtime_ps start_ps;
    simtime_ps finish_ps;    /* sender-side completion (the reference's FCT end) */
    simtime_ps rcv_done_ps;  /* receiver has every byte */

    /* sender */
    uint32_t next_new_seq;   /* next never-sent sequence number */
    uint32_t cum_acked;      /* every seq below is acknowledged */
    uint64_t in_flight_bytes;
    uint64_t recvd_bytes_seen;
    struct tx_rec *tx;       /* per packet: state, transmissions, last send time */
    uint32_t *rtx_ring;      /* sequence numbers waiting for retransmission */
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
    void *cc_state;
    const struct lb_ops *lb;  /* the run's balancer, or the connection's own ("lb" key) */
    void *lb_state;
    uint8_t tclass;           /* traffic class of its data packets */
    /* NIC ready ring (doubly linked through flow indices; transport.c) */
    bool in_ready_ring;
    uint32_t ready_next, ready_prev;

    /* receiver */
    uint64_t *rcv_bits;
    uint32_t rcv_cum;        /* next expected sequence number */
    uint64_t rcv_bytes;      /* data bytes (wire size) received, duplicates excluded */
    uint32_t rcv_unacked_bytes;
    uint32_t rcv_pkts;       /* distinct packets received */
    bool rcv_ack_request;    /* an AR arrived while holes remained */

    struct flow_counters c;
    double *cc_counters;     /* final CC counters, kept after the state is freed */
};


static inline uint32_t flow_pkt_payload(const struct flow *f, uint32_t seq, uint32_t mss)
{
    return seq + 1 == f->n_pkts ? f->last_payload_bytes : mss;
}

#endif
