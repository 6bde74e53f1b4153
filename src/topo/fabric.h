/* fabric.h: building the ports of a derived tree, and per-switch routing. */
#ifndef SPRAYSIM_FABRIC_H
#define SPRAYSIM_FABRIC_H

#include "../net/packet.h"

struct sim;

/* Allocates hosts, switches and ports for s->topo with s->queue_bytes and
 * the ECN defaults already computed. */
void fabric_build(struct sim *s);
/* Output port (global index) for packet p at switch sw_idx (0-based switch
 * index, not node id). Under --reroute bounce it counts a valley in p. */
uint32_t fabric_route(struct sim *s, uint32_t sw_idx, struct packet *p);
/* Frees adaptive routing's flowlet table (-ar_granularity flow), if any. */
void fabric_flowlets_free(struct sim *s);

#endif
