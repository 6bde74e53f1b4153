/* timely.c: TIMELY's rate update, Algorithm 1 of the TIMELY paper (see
 * timely.h for the rules and their sources); pure arithmetic on struct
 * timely_state, no simulator state. */
#include "timely.h"

void timely_init(struct timely_state *t, double line_mbps, double t_low_us, double t_high_us, double min_rtt_us)
{
    *t = (struct timely_state){
        .line_mbps = line_mbps,
        .rate_mbps = line_mbps,
        .delta_mbps = TIMELY_DELTA_FRACTION * line_mbps,
        .t_low_us = t_low_us,
        .t_high_us = t_high_us,
        .min_rtt_us = min_rtt_us,
    };
}

void timely_on_rtt(struct timely_state *t, double rtt_us)
{
    if (rtt_us <= 0.0)
        return;
    /* the first sample has no predecessor: its difference is 0 */
    double new_rtt_diff = t->prev_rtt_us > 0.0 ? rtt_us - t->prev_rtt_us : 0.0;
    t->prev_rtt_us = rtt_us;
    t->rtt_diff_us = (1.0 - TIMELY_ALPHA) * t->rtt_diff_us + TIMELY_ALPHA * new_rtt_diff;
    t->gradient = t->rtt_diff_us / t->min_rtt_us;
    t->neg_events = t->gradient < 0.0 ? t->neg_events + 1 : 0;
    t->samples++;

    double rate = t->rate_mbps;
    if (rtt_us < t->t_low_us) {
        rate += t->delta_mbps;
    } else if (rtt_us > t->t_high_us) {
        rate *= 1.0 - TIMELY_BETA * (1.0 - t->t_high_us / rtt_us);
    } else if (t->gradient <= 0.0) {
        uint32_t n = 1;
        if (t->neg_events >= TIMELY_HAI_EVENTS) {
            n = TIMELY_HAI_N;
            t->hai_events++;
        }
        rate += (double)n * t->delta_mbps;
    } else {
        rate *= 1.0 - TIMELY_BETA * t->gradient;
    }
    double floor = TIMELY_MIN_RATE_FRACTION * t->line_mbps;
    if (rate < floor)
        rate = floor;
    if (rate > t->line_mbps)
        rate = t->line_mbps;
    t->rate_mbps = rate;
}
