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
    UET_TIMER_PULL = 3,  /* receiver credit: the pull pacer of the flow's receiver ticks */
    UET_TIMER_PULL_RATE = 4, /* receiver credit: its pull-rate control updates */
};

/* One SLEEK step for flow fi given the receiver's out-of-order count
 * (exposed for the unit test of seed 002's worked example). */
void uet_sleek_step(struct sim *s, uint32_t fi, uint64_t ooo_pkts);

/* Receiver credit (uet_credit.c), for tests: the pacers' configuration and
 * the pacer of receiving host h; NULL when receiver credit is off. */
struct pull_pacer_cfg;
struct pull_pacer;
const struct pull_pacer_cfg *uet_credit_pacer_cfg(const struct sim *s);
struct pull_pacer *uet_credit_pacer(struct sim *s, uint32_t h);

#endif
