/* eqds.h: what the EQDS transport (eqds.c) exposes beyond its ops table:
 * its pull pacers and their configuration, for tests. */
#ifndef SPRAYSIM_EQDS_H
#define SPRAYSIM_EQDS_H

#include "pull_pacer.h"

struct sim;
struct flow;
struct uet_flow;

/* An EQDS flow's packet-delivery state (sequence space, records, bitmap). */
struct uet_flow *eqds_seq_of(const struct flow *f);

/* The run's pacer configuration, or NULL when EQDS is not set up. */
const struct pull_pacer_cfg *eqds_pacer_cfg(const struct sim *s);
/* Pacer i: of receiving host i, or of flow i with -sender_cc_only. */
struct pull_pacer *eqds_pacer(struct sim *s, uint32_t i);

#endif
