/* timely.h: TIMELY's sender rate state (Mittal et al., "TIMELY: RTT-based
 * Congestion Control for the Datacenter", SIGCOMM 2015, Algorithm 1 in
 * Sec. 4.3), driven by RTT samples, one per completion event. Like DCQCN
 * (dcqcn.h) it is a rate, not a window: pure functions (unit-tested on their
 * own in tests/test_timely.c) and the rate-based CC module cc_timely_ops
 * (cc.h) the RoCE transport runs them through.
 *
 * Completion events (timely.c's module). The paper takes one RTT sample per completed
 * segment of 16-64 KB (Sec. 3, 4.2): the NIC's completion timestamp minus
 * the segment's send time. spraysim's RoCE sender paces single packets at the
 * rate rather than bursting segments at line rate, and the receiver ACKs
 * each packet; a completion event is the first ACK whose cumulative count
 * passes the end of the next 16 KB segment (TIMELY_SEGMENT_BYTES), and its
 * RTT sample is that ACK's arrival minus the send time of the data packet it
 * answers (echoed in the ACK). So the sample is a per-packet RTT (no
 * serialisation of a whole segment to subtract), taken once per segment;
 * ACKs of retransmitted packets give no sample (Karn).
 *
 * Per RTT sample (Algorithm 1):
 *   new_rtt_diff = rtt - prev_rtt; prev_rtt = rtt;
 *   rtt_diff = (1 - alpha) rtt_diff + alpha new_rtt_diff;
 *   g = rtt_diff / minRTT                        (normalized gradient; minRTT a constant)
 *   rtt < T_low:   rate += delta
 *   rtt > T_high:  rate *= 1 - beta (1 - T_high / rtt)
 *   else g <= 0:   rate += N delta, N = 5 once the gradient has been
 *                  negative for 5 consecutive completion events (HAI), else 1
 *   else:          rate *= 1 - beta g
 *   then min_rate <= rate <= line rate.
 */
#ifndef SPRAYSIM_TIMELY_H
#define SPRAYSIM_TIMELY_H

#include <stdint.h>

#define TIMELY_ALPHA 0.1             /* EWMA weight of the RTT difference. The paper's setting is 0.875
                                      * (Sec. 5 parameters; also the HPCC authors' ns-3 default); with our
                                      * per-packet samples it follows the noise and the 2-to-1 runs at
                                      * 76-79% of the link: 0.1 is our choice (docs/models.md, measured) */
#define TIMELY_BETA 0.8              /* multiplicative decrement factor (paper Sec. 5 parameters) */
#define TIMELY_DELTA_FRACTION 0.001  /* additive step delta: 10 Mb/s on the paper's 10 Gb/s NICs (Sec. 5),
                                      * kept as line/1000 so it scales with the link (our choice) */
#define TIMELY_HAI_N 5u              /* HAI: N = 5 x delta (paper Algorithm 1) */
#define TIMELY_HAI_EVENTS 5u         /* ... after 5 consecutive negative-gradient completions (Algorithm 1) */
#define TIMELY_SEGMENT_BYTES 16384u  /* one RTT sample per 16 KB: the low end of the paper's 16-64 KB
                                      * segments (Sec. 4.2); the low end, since our samples are per packet */
#define TIMELY_T_LOW_US 4.0          /* paper: 50 us, 2.5 x its 20 us minRTT (Sec. 4.3, 5). Here PFC
                                      * holds queues to a few us, so a sender one switch from its receiver
                                      * (base RTT 4.7 us) never reached 50 (or 20) us and never slowed:
                                      * our choice is below every base RTT of the default fabric, so the
                                      * gradient decides (-timely_thresholds to change) */
#define TIMELY_T_HIGH_US 200.0       /* paper: 500 us = 25 x minRTT (Sec. 4.3, 5); our choice 20 x ours */
#define TIMELY_MIN_RTT_US 10.0       /* minRTT, the gradient's normaliser: one constant for every flow, as
                                      * the paper's 20 us (Sec. 4.3, 5); 10 us, between the default
                                      * fabric's 4.7 and 15.7 us base RTTs, is our choice. A per-flow
                                      * minimum instead starved the far flow (measured: 0.36 of fair) */
#define TIMELY_MIN_RATE_FRACTION 0.001 /* floor of the rate, line/1000 (our choice: the paper sets none) */

struct timely_state {
    double line_mbps;
    double rate_mbps;     /* the sender paces at it */
    double delta_mbps;    /* additive step */
    double t_low_us, t_high_us;
    double min_rtt_us;    /* normalises the gradient */
    double prev_rtt_us;   /* previous sample (0 = none yet) */
    double rtt_diff_us;   /* EWMA of successive RTT differences */
    double gradient;      /* last normalized gradient */
    uint32_t neg_events;  /* consecutive completions with a negative gradient */
    uint64_t samples;     /* RTT samples acted on */
    uint64_t hai_events;  /* increases in HAI mode */
};

/* Starts at line rate (our choice, as DCQCN does), no RTT history.
 * t_low_us and t_high_us: the thresholds (TIMELY_T_LOW_US, TIMELY_T_HIGH_US
 * unless the user set others); min_rtt_us: the gradient's normaliser
 * (TIMELY_MIN_RTT_US). */
void timely_init(struct timely_state *t, double line_mbps, double t_low_us, double t_high_us, double min_rtt_us);
/* One completion event with RTT sample `rtt_us`: Algorithm 1. */
void timely_on_rtt(struct timely_state *t, double rtt_us);

#endif
