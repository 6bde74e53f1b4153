/* nscc.h: NSCC's per-flow state, exposed so that unit tests can check each
 * mechanism against the seeds' numbers. Only nscc.c and tests include it;
 * the transport sees NSCC and MNSCC through cc_nscc_ops and cc_mnscc_ops
 * alone.
 */
#ifndef SPRAYSIM_NSCC_H
#define SPRAYSIM_NSCC_H

#include "cc.h"
#include "median.h"

enum nscc_counter {
    NC_FAIR_INC,
    NC_PROP_INC,
    NC_FAST_INC,
    NC_ETA_INC,
    NC_MULTI_DEC,
    NC_QUICK_DEC,
    NC_NACK_DEC,
    NC_COUNT
};

struct nscc {
    struct cc_window win;     /* must be first */
    /* configuration */
    uint32_t mtu_bytes;
    uint32_t linkspeed_mbps;
    simtime_ps network_rtt_ps;
    simtime_ps target_qdelay_ps;
    simtime_ps qa_threshold_ps;
    int qa_gate;
    /* ablation switches (--cc-opt quick_adapt, qa_ignore, fast_increase) */
    bool qa_on, qa_ignore_on, fi_on;
    double alpha_per_ps;      /* proportional increase per byte per ps of headroom */
    double fi_bytes;          /* fair increase constant */
    double eta_bytes;
    double fast_scale;
    double q3_pressure;
    uint64_t min_cwnd_bytes;
    uint64_t fulfill_bytes;
    /* MNSCC (seed 004 Sec. III-B): per-ACK decisions on the percentile of
     * the last H delays; false for plain NSCC (the history then is absent). */
    bool median;
    double percentile;        /* 50 = the median */
    uint32_t history_fixed;   /* H when non-zero; 0 = Eq. 9 */
    double decision_delay_ps; /* delay the last ACK decided on (diagnostic) */
    /* path state */
    simtime_ps base_rtt_ps;
    double avg_delay_ps;
    uint64_t maxwnd_bytes;
    /* increase batching */
    double inc_bytes;
    double inc_fair_pending, inc_prop_pending;
    uint64_t received_bytes;
    simtime_ps last_adjust_ps;
    /* decrease pacing */
    simtime_ps last_dec_ps;
    simtime_ps last_q3_dec_ps;
    /* fast increase */
    uint64_t fi_count_bytes;
    bool increasing;
    /* quick adapt */
    simtime_ps qa_end_ps;
    uint64_t achieved_bytes;
    bool trigger_qa;
    uint64_t bytes_to_ignore;
    uint64_t bytes_ignored;
    uint64_t in_flight_bytes; /* last known, for the ignore phase */
    double ctr[NC_COUNT];
};

/* MNSCC's state: NSCC plus the RTT history (8 KB) plain NSCC does not carry. */
struct mnscc {
    struct nscc n; /* must be first */
    struct median_hist hist;
};

/* MNSCC's history size for the current window (seed 004 Eq. 9):
 * H = max(min(W/2, 4), 1), W = cwnd in whole packets (cwnd / MTU, floored),
 * W/2 floored; or history_fixed when set. */
uint32_t mnscc_history_len(const struct nscc *n);

/* Fraction of the window kept by a multiplicative decrease (seed 002 Sec.
 * 3b): max(1 - gamma (avg_rtt - target_rtt) / avg_rtt, 0.5). */
double nscc_md_kept_fraction(double avg_rtt, double target_rtt, double gamma);

#endif
