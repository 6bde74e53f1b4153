/* dcqcn.c: DCQCN's rate schedule (see dcqcn.h for the rules and their
 * sources); pure arithmetic on struct dcqcn_state, no simulator state. */
#include "dcqcn.h"

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
