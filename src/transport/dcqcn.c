/* dcqcn.c: DCQCN's rate schedule (see dcqcn.h for the rules and their
 * sources): pure arithmetic on struct dcqcn_state, and at the bottom the
 * rate-based CC module (`cc_dcqcn_ops`, cc.h) the RoCE transport runs with
 * -dcqcn K: CNPs, bytes sent and the two 55 us timers drive it. */
#include "dcqcn.h"

#include "../cc/cc.h"

void dcqcn_init(struct dcqcn_state *d, double line_mbps)
{
    *d = (struct dcqcn_state){.line_mbps = line_mbps, .rc_mbps = line_mbps, .rt_mbps = line_mbps, .alpha = 1.0};
}

void dcqcn_on_cnp(struct dcqcn_state *d)
{
    d->rt_mbps = d->rc_mbps;
    d->rc_mbps = d->rc_mbps * (1.0 - d->alpha / 2.0);
    d->alpha = (1.0 - DCQCN_G) * d->alpha + DCQCN_G;
    d->t_stage = 0;
    d->bc_stage = 0;
    d->bytes_since_stage = 0;
    d->cnps++;
}

void dcqcn_alpha_timer(struct dcqcn_state *d)
{
    d->alpha = (1.0 - DCQCN_G) * d->alpha;
}

/* One increase event after a stage counter moved. */
static void increase(struct dcqcn_state *d)
{
    uint32_t hi = d->t_stage > d->bc_stage ? d->t_stage : d->bc_stage;
    uint32_t lo = d->t_stage < d->bc_stage ? d->t_stage : d->bc_stage;
    if (hi < DCQCN_F) {
        /* fast recovery: halve the distance to the target */
    } else if (lo > DCQCN_F) {
        d->rt_mbps += (double)(lo - DCQCN_F) * DCQCN_HAI_FRACTION * d->line_mbps;
    } else {
        d->rt_mbps += DCQCN_AI_FRACTION * d->line_mbps;
    }
    if (d->rt_mbps > d->line_mbps)
        d->rt_mbps = d->line_mbps;
    d->rc_mbps = (d->rt_mbps + d->rc_mbps) / 2.0;
    if (d->rc_mbps > d->line_mbps)
        d->rc_mbps = d->line_mbps;
}

void dcqcn_increase_timer(struct dcqcn_state *d)
{
    d->t_stage++;
    increase(d);
}

void dcqcn_on_bytes_sent(struct dcqcn_state *d, uint32_t bytes)
{
    d->bytes_since_stage += bytes;
    while (d->bytes_since_stage >= DCQCN_BYTE_COUNTER) {
        d->bytes_since_stage -= DCQCN_BYTE_COUNTER;
        d->bc_stage++;
        increase(d);
    }
}

/* ---- the CC module ------------------------------------------------------------------ */

struct dcqcn_cc {
    struct cc_rate r;
    struct dcqcn_state dc;
    /* the alpha and rate-increase timers' next expiry: both start with the
     * flow and restart together on each CNP, so they always coincide */
    simtime_ps timer_ps;
};

#define DCQCN_PERIOD_PS ((simtime_ps)(DCQCN_TIMER_US * PS_PER_US))

static void publish(struct dcqcn_cc *c)
{
    c->r.rate_mbps = c->dc.rc_mbps;
}

static void dcqcn_cc_init(void *st, const struct cc_params *p)
{
    struct dcqcn_cc *c = st;
    dcqcn_init(&c->dc, p->linkspeed_mbps);
    c->timer_ps = p->start_ps + DCQCN_PERIOD_PS;
    publish(c);
}

static void dcqcn_cc_on_cnp(void *st, simtime_ps now)
{
    struct dcqcn_cc *c = st;
    dcqcn_on_cnp(&c->dc);
    c->timer_ps = now + DCQCN_PERIOD_PS;
    publish(c);
}

static void dcqcn_cc_on_sent(void *st, simtime_ps now, uint32_t bytes)
{
    (void)now;
    struct dcqcn_cc *c = st;
    dcqcn_on_bytes_sent(&c->dc, bytes);
    publish(c);
}

static simtime_ps dcqcn_cc_next_timer(const void *st)
{
    return ((const struct dcqcn_cc *)st)->timer_ps;
}

/* 55 us without a CNP: alpha decays, then one timer increase event. */
static void dcqcn_cc_on_timer(void *st, simtime_ps now)
{
    struct dcqcn_cc *c = st;
    if (now < c->timer_ps)
        return;
    dcqcn_alpha_timer(&c->dc);
    dcqcn_increase_timer(&c->dc);
    c->timer_ps = now + DCQCN_PERIOD_PS;
    publish(c);
}

static void dcqcn_cc_new_message(void *st, simtime_ps now)
{
    ((struct dcqcn_cc *)st)->timer_ps = now + DCQCN_PERIOD_PS; /* the timers restart with the message */
}

const struct cc_ops cc_dcqcn_ops = {
    .name = "dcqcn",
    .description = "DCQCN (Zhu et al., SIGCOMM 2015): RoCE's rate control on CNPs, timers and a byte counter",
    .state_size = sizeof(struct dcqcn_cc),
    .init = dcqcn_cc_init,
    .rate_based = true,
    .on_cnp = dcqcn_cc_on_cnp,
    .on_sent = dcqcn_cc_on_sent,
    .next_timer = dcqcn_cc_next_timer,
    .on_timer = dcqcn_cc_on_timer,
    .on_new_message = dcqcn_cc_new_message,
};
