/* eqds.h: what the EQDS transport (eqds.c) exposes beyond its ops table:
 * its pull pacers and their configuration, for tests. */
#ifndef SPRAYSIM_EQDS_H
#define SPRAYSIM_EQDS_H

#include "pull_pacer.h"

#include <stdbool.h>
#include <stdint.h>

struct sim;
struct flow;
struct uet_flow;

/* An EQDS flow's packet-delivery state (sequence space, records, bitmap). */
struct uet_flow *eqds_seq_of(const struct flow *f);

/* The run's pacer configuration, or NULL when EQDS is not set up. */
const struct pull_pacer_cfg *eqds_pacer_cfg(const struct sim *s);
/* Pacer i: of receiving host i, or of flow i with -sender_cc_only. */
struct pull_pacer *eqds_pacer(struct sim *s, uint32_t i);

/* When the retransmission timer has put a packet of size bytes back in a
 * sender's queue that had none: whether the sender asks its receiver for
 * credit (an RTS), given its window (when -sender_cc runs one), what is
 * in flight without the packet, and the credit PULLs gave it. */
bool eqds_rto_wants_rts(bool window, uint64_t cwnd_bytes, uint64_t in_flight_bytes, uint32_t size,
                        int64_t credit_pull_bytes);

#endif
