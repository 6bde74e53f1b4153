/* flow.h: one connection of the workload, as every transport sees it: its
 * identity and packetisation, its progress (start, finish, receiver done),
 * its CC and LB state, its place in its host's NIC ready ring and its
 * counters. What a transport keeps beyond this lives in tp_state (UET:
 * struct uet_flow in uet.h).
 */
#ifndef SPRAYSIM_FLOW_H
#define SPRAYSIM_FLOW_H

#include "../core/core.h"

enum flow_state {
    FLOW_WAITING = 0, /* not started: waiting for its start time or trigger */
    FLOW_ACTIVE = 1,
    FLOW_DONE = 2,    /* sender holds the acknowledgement of the last byte */
    FLOW_FREE = 3,    /* a recycled slot waiting for the next message (--stream, metrics/flowstream.h) */
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
    void *tp_state;                 /* the transport's own per-flow state (UET: struct uet_flow) */
    /* identity, from the connection matrix */
    uint32_t src, dst;
    uint32_t id;
    uint32_t conn_index;
    uint32_t ordinal;        /* the message's place in creation order: its flows.csv row (the slot index unless --stream recycles slots) */
    uint16_t gen;            /* the slot's generation: timers of an earlier message in this slot are stale */
    uint32_t pkts_out;       /* its packets in the network (made, not yet received or dropped): a slot is
                                recycled only at 0, so no packet ever outlives its message's slot */
    bool streamed;           /* its row and statistics are kept (--stream): reports skip the slot */
    uint64_t size_bytes;
    uint32_t n_pkts;
    uint32_t last_payload_bytes;
    uint8_t state;           /* enum flow_state */
    bool rcv_complete;
    bool start_scheduled;    /* a start event is queued (time or trigger) */
    bool posted;             /* its start time or trigger came (it may still wait for the message before it) */
    bool prev_done;          /* the message before it on its connection finished (transport_msg_sent) */
    uint32_t pool_conn;      /* 1 + its pooled connection (transport_add_flow_pooled), 0: none */
    simtime_ps posted_ps;    /* when it was posted: the start of its FCT (docs/workloads.md "Messages over connections") */
    simtime_ps start_ps;     /* when the transport started sending it (after the connection's earlier messages) */
    simtime_ps finish_ps;    /* sender-side completion (the reference's FCT end) */
    simtime_ps rcv_done_ps;  /* receiver has every byte */

    void *cc_state;
    const struct lb_ops *lb;  /* the run's balancer, or the connection's own ("lb" key) */
    void *lb_state;
    uint8_t tclass;           /* traffic class of its data packets (DRR) */
    uint8_t prio_class;       /* switch class of its data packets: 1 = data, 2.. with --classes */
    /* NIC ready ring (doubly linked through flow indices; transport.c) */
    bool in_ready_ring;
    uint32_t ready_next, ready_prev;

    struct flow_counters c;
    double *cc_counters;     /* final CC counters, kept after the state is freed */
};


static inline uint32_t flow_pkt_payload(const struct flow *f, uint32_t seq, uint32_t mss)
{
    return seq + 1 == f->n_pkts ? f->last_payload_bytes : mss;
}

/* Packet seq's size on the wire: its payload plus the header. */
static inline uint32_t flow_pkt_wire_bytes(const struct flow *f, uint32_t seq, uint32_t mtu_bytes, uint32_t hdr_bytes)
{
    return flow_pkt_payload(f, seq, mtu_bytes - hdr_bytes) + hdr_bytes;
}

#endif
