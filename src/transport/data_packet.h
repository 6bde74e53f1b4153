/* data_packet.h: the one packet constructor (transport.h's
 * transport_make_packet, whose body this is) and the data packet every
 * transport sends, built on it. Inline because they are on the per-packet
 * path of every sender; transport.c's out-of-line entry calls the same body. */
#ifndef SPRAYSIM_DATA_PACKET_H
#define SPRAYSIM_DATA_PACKET_H

#include "../lb/lb.h"
#include "../sim.h"
#include "flow.h"

#include <string.h>

/* The one constructor (transport.h transport_make_packet): a packet of
 * flow fi from its sender to its receiver, every field zero but type, seq,
 * size_bytes, flow and flow_gen, the hosts, prio (the flow's data class for
 * PKT_DATA, else control), tclass, and PKTF_PINNED when the flow's balancer
 * keeps one path (adaptive routing then leaves it on its hash); entropy 0.
 * It counts the packet in the flow (f->pkts_out, --stream's recycling)
 * here, once, for every transport. */
static inline uint32_t transport_new_packet(struct sim *s, uint32_t fi, uint8_t type, uint32_t seq, uint32_t size_bytes)
{
    struct flow *f = &s->flows[fi];
    uint32_t idx = pkt_alloc(&s->pool);
    struct packet *p = pkt_at(&s->pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = type;
    p->prio = type == PKT_DATA ? f->prio_class : PKT_PRIO_CONTROL;
    p->tclass = f->tclass;
    p->flags = f->lb == &lb_single_ops ? PKTF_PINNED : 0;
    p->flow = fi;
    p->flow_gen = f->gen;
    f->pkts_out += s->count_pkts; /* counted only when --stream recycles slots (flowstream.h) */
    p->seq = seq;
    p->size_bytes = size_bytes;
    p->src_host = f->src;
    p->dst_host = f->dst;
    return idx;
}

/* A data packet of flow fi with sequence number seq and `size` bytes on the
 * wire, in the connection's switch class (trimmable) and traffic class,
 * stamped now, pinned to one path when the flow's balancer is `single`, its
 * entropy drawn from the balancer; every other field zero. Returns its index;
 * the transport adds its own fields and flags. */
static inline uint32_t transport_data_packet(struct sim *s, uint32_t fi, uint32_t seq, uint32_t size)
{
    struct flow *f = &s->flows[fi];
    uint32_t idx = transport_new_packet(s, fi, PKT_DATA, seq, size);
    struct packet *p = pkt_at(&s->pool, idx);
    p->ts_ps = s->now;
    p->entropy = f->lb->next_entropy(f->lb_state, seq, s->now);
    return idx;
}

#endif
