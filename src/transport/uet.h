/* uet.h: what the UET transport (uet.c) exposes beyond its ops table: its
 * timer kinds and the SLEEK step, for tests. */
#ifndef SPRAYSIM_UET_H
#define SPRAYSIM_UET_H

#include "../core/core.h"

struct sim;

enum uet_timer {
    UET_TIMER_RTO = 0,   /* retransmission timer (lazily re-armed) */
    UET_TIMER_PACE = 1,  /* the pacing gap has elapsed */
    UET_TIMER_PROBE = 2, /* check whether the flow needs a probe (SLEEK) */
};

/* One SLEEK step for flow fi given the receiver's out-of-order count
 * (exposed for the unit test of seed 002's worked example). */
void uet_sleek_step(struct sim *s, uint32_t fi, uint64_t ooo_pkts);

#endif
