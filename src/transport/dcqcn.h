/* dcqcn.h: DCQCN's sender rate state (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015, Sec. 3.1 and Fig. 5), driven
 * by CNPs, two 55 us timers and a byte counter rather than by ACKs: pure
 * functions (unit-tested on their own in tests/test_roce.c), and the
 * rate-based CC module cc_dcqcn_ops (cc.h) the RoCE transport runs them
 * through.
 *
 * Schedule (as /work/shared/specs/reference-simulator.md lists it):
 *   CNP:            RT = RC; RC = RC (1 - alpha/2); alpha = (1-g) alpha + g;
 *                   timer and byte stages reset to 0.
 *   alpha timer:    alpha = (1-g) alpha every 55 us without a CNP.
 *   increase event: the 55 us timer (stage T++) or 10 MB sent (stage BC++);
 *                   max(T, BC) < F: fast recovery RC = (RT + RC)/2;
 *                   min(T, BC) > F: hyper increase RT += i x link/10 with
 *                   i = min(T, BC) - F, then RC = (RT + RC)/2;
 *                   otherwise additive increase RT += link/20, RC = (RT + RC)/2.
 *   RT and RC never exceed the line rate.
 */
#ifndef SPRAYSIM_DCQCN_H
#define SPRAYSIM_DCQCN_H

#include <stdint.h>

#define DCQCN_G (1.0 / 256.0)          /* alpha gain g (paper Sec. 3.1) */
#define DCQCN_TIMER_US 55.0            /* alpha and rate-increase timers (paper Table 1) */
#define DCQCN_BYTE_COUNTER (10u * 1000u * 1000u) /* bytes per byte-counter stage (10 MB, paper Table 1) */
#define DCQCN_F 5u                     /* fast-recovery stages (paper Table 1) */
#define DCQCN_AI_FRACTION (1.0 / 20.0) /* additive increase: link/20 (reference-simulator.md) */
#define DCQCN_HAI_FRACTION (1.0 / 10.0) /* hyper increase: link/10 per stage past F (reference-simulator.md) */
#define DCQCN_CNP_INTERVAL_US 50.0     /* receiver: at most one CNP per flow per 50 us (paper Sec. 3.1) */

struct dcqcn_state {
    double line_mbps;
    double rc_mbps;      /* current rate: the sender paces at it */
    double rt_mbps;      /* target rate */
    double alpha;
    uint32_t t_stage;    /* timer increase events since the last CNP */
    uint32_t bc_stage;   /* byte-counter increase events since the last CNP */
    uint64_t bytes_since_stage; /* bytes sent towards the next byte-counter stage */
    uint64_t cnps;       /* CNPs acted on */
};

/* Starts at line rate with alpha = 1 (paper Sec. 3.1). */
void dcqcn_init(struct dcqcn_state *d, double line_mbps);
/* A CNP arrived: cut the rate, raise alpha, reset the stages. */
void dcqcn_on_cnp(struct dcqcn_state *d);
/* 55 us passed without a CNP. */
void dcqcn_alpha_timer(struct dcqcn_state *d);
/* The rate-increase timer fired (stage T++ then one increase). */
void dcqcn_increase_timer(struct dcqcn_state *d);
/* `bytes` more were sent: one increase per 10 MB completed (stage BC++). */
void dcqcn_on_bytes_sent(struct dcqcn_state *d, uint32_t bytes);

#endif
