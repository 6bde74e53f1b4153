/* data_packet.h: the data packet every transport sends, built in one place.
 * Inline because it is on the per-packet path of every sender. */
#ifndef SPRAYSIM_DATA_PACKET_H
#define SPRAYSIM_DATA_PACKET_H

#include "../lb/lb.h"
#include "../sim.h"
#include "flow.h"

#include <string.h>

/* A data packet of flow fi with sequence number seq and `size` bytes on the
 * wire, in the connection's switch class (trimmable) and traffic class,
 * stamped now, pinned to one path when the flow's balancer is `single`, its
 * entropy drawn from the balancer; every other field zero. Returns its index;
 * the transport adds its own fields and flags. */
static inline uint32_t transport_data_packet(struct sim *s, uint32_t fi, uint32_t seq, uint32_t size)
{
    struct flow *f = &s->flows[fi];
    uint32_t idx = pkt_alloc(&s->pool);
    struct packet *p = pkt_at(&s->pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = PKT_DATA;
    p->prio = f->prio_class;
    p->tclass = f->tclass;
    p->flags = f->lb == &lb_single_ops ? PKTF_PINNED : 0;
    p->flow = fi;
    p->flow_gen = f->gen;
    f->pkts_out += s->count_pkts; /* counted only when --stream recycles slots (flowstream.h) */
    p->seq = seq;
    p->size_bytes = size;
    p->src_host = f->src;
    p->dst_host = f->dst;
    p->ts_ps = s->now;
    p->entropy = f->lb->next_entropy(f->lb_state, seq, s->now);
    return idx;
}

#endif
