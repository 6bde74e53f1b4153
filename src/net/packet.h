/* packet.h: the one packet structure every layer passes along, and the pool
 * it lives in.
 *
 * Packets are referred to by 32-bit indices into one pool array, never by
 * pointers held across events, so queues are intrusive singly linked lists
 * through `next` and the pool can grow without invalidating them. The
 * pool keeps its free packets on a stack; once a run reaches steady state no packet is
 * allocated (packet.c: it grows in place, in small steps, inside reserved
 * address space, so its memory is what the run's peak of packets needs). Fields are integers sized as a NIC would hold them.
 */
#ifndef SPRAYSIM_PACKET_H
#define SPRAYSIM_PACKET_H

#include "../core/core.h"

#define PKT_NONE UINT32_MAX

enum pkt_type {
    PKT_DATA = 0,
    PKT_ACK = 1,
    PKT_NACK = 2,
    PKT_PROBE = 3,     /* header-only, travels in the data class: "did you get everything?" */
    PKT_PROBE_ACK = 4, /* the receiver's state (cum + SACK), answering a probe or an RTS */
    PKT_RTS = 5,       /* request to send: header-only control packet that asks for a state ACK */
    PKT_PULL = 6,      /* receiver credit: header-only grant whose pull_q says how much the sender may send */
    /* A transport numbers its own packet types from here, in its own header,
     * and names them in its ops (transport.h pkt_type_names); only its own
     * code reads them, so two transports' numbers may coincide. */
    PKT_TP_FIRST = 16,
};

enum pkt_flag {
    PKTF_ECN_CE = 1 << 0,       /* data: a switch marked Congestion Experienced */
    PKTF_TRIMMED = 1 << 1,      /* data: payload cut by a switch, header only */
    PKTF_TRIM_LASTHOP = 1 << 2, /* trimmed at the port that faces the receiver */
    PKTF_AR = 1 << 3,           /* data: ACK Request, receiver must ACK at once */
    PKTF_RTX = 1 << 4,          /* data: this is a retransmission */
    PKTF_ECN_ECHO = 1 << 5,     /* ack: the acknowledged packet carried CE */
    PKTF_RTX_ECHO = 1 << 6,     /* ack/nack: the acknowledged packet was a retransmission */
    PKTF_BOUNCED = 1 << 7,      /* nack: a switch returned the trimmed header (control queue full) */
    PKTF_PINNED = 1 << 8,       /* its flow keeps one path: adaptive routing leaves it on its hash */
    PKTF_TP_0 = 1 << 9,         /* two bits for the packet's own transport, named in its header */
    PKTF_TP_1 = 1 << 10,        /* (SIRD: SIRD_PKTF_SCHED, SIRD_PKTF_CSN); only it reads them */
    /* bits 11-12: valleys taken under --reroute bounce (fabric.c), at most 3 */
    PKTF_VALLEYS = 3 << 11,
};
#define PKTF_VALLEYS_SHIFT 11

/* The switch class a packet queues in, set by its transport; classes are
 * served in strict priority, lower first. Control never waits behind data
 * and is never trimmed; a data packet that does not fit is trimmed to its
 * header and becomes control. */
enum pkt_prio {
    PKT_PRIO_CONTROL = 0,
    PKT_PRIO_DATA = 1,
};

/* One cache line. The fields after ref_seq mean different things for data
 * and for acknowledgements, so each pair shares its bytes. */
struct packet {
    uint32_t next;        /* intrusive queue / free-list link */
    uint32_t flow;        /* connection index */
    uint32_t seq;         /* data: packet sequence number; ack/nack: cumulative ack */
    uint32_t size_bytes;  /* bytes on the wire now (shrinks when trimmed) */
    uint32_t src_host;    /* host that emitted this packet */
    uint32_t dst_host;    /* host it is addressed to */
    uint32_t node;        /* node it is travelling to (set when it leaves a port) */
    uint32_t ref_seq;     /* ack: sequence number of the packet that triggered it; nack: the trimmed packet */
    union {
        simtime_ps ts_ps;   /* data, probe: time sent (the sender also keeps its own record) */
        uint64_t sack_bits; /* ack: bit i set = seq (sack_base + i) received */
    };
    union {
        /* receiver-credit transports (pull_pacer.h), in credit quanta: data
         * and RTS: the sender's pull target; pull: the cumulative pull number */
        int64_t pull_q;
        struct {
            uint32_t sack_base; /* ack: sequence number of bit 0 of sack_bits */
            uint32_t ooo_pkts;  /* ack: packets the receiver holds beyond the cumulative ACK */
        };
    };
    /* ack/nack: the receiver's running count of data bytes received, modulo
     * 2^32 (as a NIC would count): the sender takes differences */
    uint32_t recvd_bytes;
    uint32_t ingress_port; /* the port it last left: the far end of the link it arrived on (PFC) */
    uint16_t entropy;     /* entropy value: picks the ECMP path; echoed in acks */
    uint8_t type;         /* enum pkt_type (each transport adds its own) */
    uint8_t prio : 4;     /* enum pkt_prio: the switch class, set by the transport */
    uint8_t tclass : 4;   /* data traffic class under DRR: 0 or 1 */
    uint16_t flags;       /* enum pkt_flag */
    uint16_t flow_gen;    /* its flow slot's generation when it was made (stale after the slot is recycled) */
};
_Static_assert(sizeof(struct packet) == 64, "a packet is one cache line");

struct packet_pool {
    struct packet *pkts;
    uint32_t capacity;    /* packets made so far: free or in use */
    /* The free packets' indices, a stack (the next one allocated on top):
     * an array, not a list through the packets' `next`, so an allocation
     * never waits for a free packet's cold line to learn the one after it
     * (a parallel run's window end allocates thousands in a row: 97% of
     * its receive loop's cycles stalled there). */
    uint32_t *free_stack;
    uint32_t free_len;
    uint32_t in_use;
    uint32_t peak_in_use;
    uint32_t reserved;    /* packets of address space reserved at pkts (0: a heap array that doubles) */
#ifdef SPRAYSIM_CHECKS
    uint8_t *live; /* per packet: 1 from alloc to release (double releases, use after release) */
    uint32_t live_cap;
#endif
};

void pool_init(struct packet_pool *p, uint32_t initial_capacity);
void pool_free(struct packet_pool *p);

/* Data-class packets can be trimmed; control and anything already trimmed
 * queue as control. */
static inline bool pkt_in_data_class(const struct packet *p)
{
    return p->prio != PKT_PRIO_CONTROL;
}

static inline struct packet *pkt_at(const struct packet_pool *p, uint32_t idx)
{
    return &p->pkts[idx];
}

uint32_t pool_grow_and_alloc(struct packet_pool *p);

#ifdef SPRAYSIM_CHECKS
static inline bool pkt_is_live(const struct packet_pool *p, uint32_t idx)
{
    return idx < p->capacity && p->live[idx];
}
#endif

/* The packet the next pkt_alloc returns without growing, or PKT_NONE. */
static inline uint32_t pool_next_free(const struct packet_pool *p)
{
    return p->free_len ? p->free_stack[p->free_len - 1] : PKT_NONE;
}

static inline uint32_t pkt_alloc(struct packet_pool *p)
{
    if (p->free_len == 0)
        return pool_grow_and_alloc(p);
    uint32_t idx = p->free_stack[--p->free_len];
    if (++p->in_use > p->peak_in_use)
        p->peak_in_use = p->in_use;
#ifdef SPRAYSIM_CHECKS
    invariant(idx < p->capacity && !p->live[idx], "packet %u on the free list is allocated (capacity %u)", idx,
              p->capacity);
    invariant(p->in_use <= p->capacity, "pool in_use %u above capacity %u", p->in_use, p->capacity);
    p->live[idx] = 1;
#endif
    return idx;
}

static inline void pkt_release(struct packet_pool *p, uint32_t idx)
{
#ifdef SPRAYSIM_CHECKS
    invariant(idx < p->capacity, "released packet %u is outside the pool (capacity %u)", idx, p->capacity);
    invariant(pkt_is_live(p, idx), "packet %u released twice (or never allocated)", idx);
    invariant(p->in_use > 0, "packet %u released with the pool's in_use at 0", idx);
    if (!pkt_is_live(p, idx))
        return; /* reported; freeing it again would corrupt the free stack */
    p->live[idx] = 0;
#endif
    p->free_stack[p->free_len++] = idx; /* never full: it holds every packet the pool has */
    p->in_use--;
}

#endif
