/* timely.c: TIMELY's rate update, Algorithm 1 of the TIMELY paper (see
 * timely.h for the rules and their sources): pure arithmetic on struct
 * timely_state, and at the bottom the rate-based CC module
 * (`cc_timely_ops`, cc.h) the RoCE transport runs with -timely: one RTT
 * sample per segment of ACKed packets. */
#include "timely.h"

#include "../cc/cc.h"

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

/* ---- the CC module ------------------------------------------------------------------ */

struct timely_cc {
    struct cc_rate r;
    struct timely_state tm;
    uint32_t seg_pkts;  /* packets per TIMELY_SEGMENT_BYTES of payload (at least 1) */
    uint32_t next_seg;  /* the packet count whose ACK completes the next segment */
};

static void timely_cc_init(void *st, const struct cc_params *p)
{
    struct timely_cc *c = st;
    /* -timely_thresholds LOW HIGH reach it as the options t_low_us, t_high_us */
    timely_init(&c->tm, p->linkspeed_mbps, cc_opt(p, "t_low_us", TIMELY_T_LOW_US),
                cc_opt(p, "t_high_us", TIMELY_T_HIGH_US), TIMELY_MIN_RTT_US);
    uint32_t n = (TIMELY_SEGMENT_BYTES + p->mss_bytes - 1) / p->mss_bytes;
    c->seg_pkts = n ? n : 1;
    c->next_seg = c->seg_pkts;
    c->r.rate_mbps = c->tm.rate_mbps;
}

/* A completion event: the first ACK of each segment that is not for a
 * retransmission gives one RTT sample (send time echoed). */
static void timely_cc_on_ack(void *st, const struct cc_rate_ack *a)
{
    struct timely_cc *c = st;
    if (a->ack_seq < c->next_seg || a->rtx_echo)
        return;
    timely_on_rtt(&c->tm, (double)(a->now - a->sent_ps) / PS_PER_US);
    c->next_seg = (a->ack_seq / c->seg_pkts + 1) * c->seg_pkts;
    c->r.rate_mbps = c->tm.rate_mbps;
    c->r.rtt_us = c->tm.prev_rtt_us;
}

static void timely_cc_new_message(void *st, simtime_ps now)
{
    (void)now;
    struct timely_cc *c = st;
    c->next_seg = c->seg_pkts; /* segments count the new message's packets */
}

static const char *const timely_options[] = {"t_low_us", "t_high_us", NULL};

const struct cc_ops cc_timely_ops = {
    .name = "timely",
    .description = "TIMELY (Mittal et al., SIGCOMM 2015): RoCE's rate control on RTT gradients",
    .state_size = sizeof(struct timely_cc),
    .init = timely_cc_init,
    .option_names = timely_options,
    .rate_based = true,
    .on_rate_ack = timely_cc_on_ack,
    .on_new_message = timely_cc_new_message,
};
