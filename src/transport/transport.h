/* transport.h: what the network calls into at the hosts. The UET packet
 * delivery sublayer (uet.c) implements these; receiver-driven transports
 * (credits, pulls) add packet types and plug in behind the same four calls.
 */
#ifndef SPRAYSIM_TRANSPORT_H
#define SPRAYSIM_TRANSPORT_H

#include "../core/core.h"

struct sim;

/* A packet reached its destination host. */
void transport_receive(struct sim *s, uint32_t pkt_idx);
/* A host's NIC is free: returns the next data packet to send, or PKT_NONE. */
uint32_t transport_nic_pull(struct sim *s, uint32_t host);
/* A packet was dropped in the fabric (for accounting). */
void transport_on_drop(struct sim *s, uint32_t pkt_idx);
/* Flow lifecycle events from the dispatcher. */
void transport_flow_start(struct sim *s, uint32_t flow);
void transport_rto_timer(struct sim *s, uint32_t flow);
void transport_pace_timer(struct sim *s, uint32_t flow);
void transport_probe_timer(struct sim *s, uint32_t flow);
/* Allocates flows from the connection matrix (before the run). */
void transport_setup(struct sim *s);
void transport_free(struct sim *s);

#endif
