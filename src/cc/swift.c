/* swift.c: Google's Swift (Kumar et al., SIGCOMM 2020) and the two variants
 * of seed 004 built on it: LSwift, a reordering-resilient baseline, and
 * MSwift, LSwift deciding on the median delay of its recent ACKs.
 *
 * Swift is delay-based AIMD on a window that may fall below one packet.
 * Per ACK the delay (the RTT sample) is compared with a target that grows
 * with the path length and shrinks as the window grows (flow scaling):
 *   target = base_target + hops x h + clamp(alpha/sqrt(cwnd) + beta_fs, 0, fs_range)
 *   delay < target : cwnd += ai x acked / cwnd   (ai x acked below one packet)
 *   delay >= target: cwnd *= max(1 - beta (delay - target)/delay, 1 - max_mdf),
 *                    at most once per RTT
 * A lost packet (a SACK hole, a NACK of a trimmed packet) cuts by 1 - max_mdf
 * under the same once-per-RTT gate; a timeout does too, and after
 * RETX_RESET_THRESHOLD timeouts in a row without an ACK the window drops to
 * min_cwnd. Below one packet Swift paces: one packet per RTT / cwnd.
 * (Swift paper Sec. 3.1-3.5, Algorithm 1; seed 004 Sec. II-A, App. A.)
 *
 * LSwift (seed 004 Sec. III-B): Swift with LTCP-U's idea: reordering is not
 * loss (no SACK-hole detection: losses are NACKs and timeouts), and the
 * delay decrease fires only after 5 successive delayed ACKs.
 * MSwift (seed 004 Sec. III-B, III-C): LSwift whose every decision uses the
 * median delay of the last H ACKs, H = max(W/2, 1) (Eq. 8), or optionally
 * another percentile (Fig. 12's P10, P90).
 *
 * swift-ref: Swift as the reference simulator runs it (htsim swift.cpp at
 * commit 40ccb05, read and run side by side; reference-simulator.md): target
 * 20 us + flow scaling over 100 us from 0.1 to 100 packets, with the window
 * counted in whole packets in the flow-scaling term; 15 packets to start,
 * at most 1000; loss by 3 duplicate ACKs (cumulative ACKs, no SACK). Its
 * per-hop term (3.05 us per hop in the code) is zero in every run, because
 * the route copy it counts hops on has none (htsim route.cpp clone()): the
 * default hop_scale_us is 0 to match the numbers, 3.05 gives the intent.
 *
 * The delay is the raw RTT sample of the ACK (the last one when the ACK
 * carries no trusted sample): Swift's fabric delay is the RTT minus the
 * remote host's processing time, and simulated hosts have none.
 * The window is kept in packets (double) as the paper writes it; the
 * transport sees it in bytes, at least one packet, with a pacing gap when
 * the window is below one packet.
 */
#include "cc.h"
#include "median.h"

#include <math.h>

/* seed 001 Table 2 (Swift): base_target = 2 x RTT, fs_range = 5 x RTT,
 * fs_min = 0.1, fs_max = 100 packets, initial window 1 x BDP. "RTT" is the
 * network's base RTT: here cc_params.base_rtt_ps (the longest unloaded RTT,
 * so the target covers every path of the fabric). */
#define SW_BASE_TARGET_RTTS 2.0
#define SW_FS_RANGE_RTTS 5.0
#define SW_FS_MIN_PKTS 0.1
#define SW_FS_MAX_PKTS 100.0
#define SW_INIT_BDP 1.0
/* seed 001 Table 2 lists "h: 1.25 x BDP". A window, not a per-hop delay: read
 * as the window cap max_cwnd. The per-hop scaling h defaults to 0 because
 * base_target already derives from the longest path's RTT (--cc-opt
 * hop_scale_us sets it). */
#define SW_MAX_CWND_BDP 1.25
#define SW_HOP_SCALE_US 0.0
/* seed 004 Sec. III-C: "in Swift, cwnd grows by ai = 1 every RTT"; beta and
 * max_mdf as in the reference simulator's Swift (htsim swift.cpp: beta 0.8,
 * max_mdf 0.5; seed 004 App. A Thm. 3 writes the loss cut as 1 - max_mdf). */
#define SW_AI 1.0
#define SW_BETA 0.8
#define SW_MAX_MDF 0.5
/* Swift paper Sec. 3.4: the window may fall to a fraction of a packet; the
 * paper's smallest is 0.001 packets. */
#define SW_MIN_CWND_PKTS 0.001
/* Swift Algorithm 1 names RETX_RESET_THRESHOLD without a value; 5 is the
 * reference simulator's (htsim swift.cpp). */
#define SW_RETX_RESET 5
/* seed 004 Sec. III-B: LSwift decreases after five successive delayed packets. */
#define SW_LSWIFT_DELAYED 5
/* seed 004 Sec. III-A, Fig. 12: the median; P10 and P90 are variants. */
#define SW_PERCENTILE 50.0
/* swift-ref defaults, htsim swift.cpp (commit 40ccb05): base target 20 us,
 * flow-scaling range 100 us, initial window 15 packets (main_swift.cpp
 * -cwnd default), maximum window 1000 packets, minimum 10 bytes. */
#define SWREF_BASE_TARGET_US 20.0
#define SWREF_FS_RANGE_US 100.0
#define SWREF_INIT_PKTS 15.0
#define SWREF_MAX_PKTS 1000.0
#define SWREF_MIN_BYTES 10.0
#define SWREF_DUPTHRESH 3
/* Smoothed RTT for the once-per-RTT gate and the pacing gap: RFC 6298's gain
 * 1/8, as the reference simulator's Swift keeps it. */
#define SW_SRTT_GAIN 0.125
/* SACK-hole threshold (Swift's fast recovery): a packet is lost once three
 * later packets are selectively acknowledged, TCP's classic DupThresh (RFC
 * 6675) that Swift's SACK recovery inherits; seed 004 App. A models exactly
 * this ("three packets from short paths return first"). */
#define SW_DUPTHRESH 3

enum sw_variant { SW_SWIFT, SW_LSWIFT, SW_MSWIFT, SW_SWIFT_REF };

enum sw_counter { SC_AI_INC, SC_MD_DEC, SC_LOSS_DEC, SC_RTO_DEC, SC_COUNT };

static const char *const sw_counter_names[SC_COUNT] = {"ai_inc", "md_dec", "loss_dec", "rto_dec"};

struct swift {
    struct cc_window win; /* must be first */
    /* configuration */
    enum sw_variant variant;
    uint32_t mtu_bytes;
    double base_target_ps;
    double hop_target_ps;   /* hops x h */
    double fs_range_ps;
    double fs_alpha_ps;     /* flow scaling: alpha / sqrt(cwnd) + beta_fs */
    double fs_beta_ps;
    double ai, beta, max_mdf;
    double min_cwnd, max_cwnd; /* packets */
    uint32_t retx_reset;
    uint32_t delayed_needed;   /* successive delayed ACKs before a decrease (1 = Swift) */
    double percentile;
    uint32_t history_fixed;    /* 0 = Eq. 8 */
    bool fs_whole_pkts;        /* swift-ref: flow scaling on floor(cwnd) packets */
    /* state */
    double cwnd;               /* packets */
    double srtt_ps;
    double last_delay_ps;
    bool decreased;            /* a decrease happened (t_last_decrease is valid) */
    simtime_ps t_last_decrease;
    uint32_t retransmit_cnt;
    simtime_ps t_last_rto;     /* last timeout counted toward retx_reset */
    bool rto_seen;
    uint32_t delayed_run;      /* successive ACKs with delay >= target */
    double ctr[SC_COUNT];
};

/* MSwift adds the delay history (8 KB) that Swift and LSwift do not carry. */
struct mswift {
    struct swift sw; /* must be first */
    struct median_hist hist;
};

static struct median_hist *hist_of(struct swift *w)
{
    return &((struct mswift *)w)->hist;
}

static void publish(struct swift *w)
{
    double bytes = w->cwnd * w->mtu_bytes;
    uint64_t b = (uint64_t)llround(bytes);
    w->win.cwnd_bytes = b < w->mtu_bytes ? w->mtu_bytes : b;
    w->win.maxwnd_bytes = (uint64_t)llround(w->max_cwnd * w->mtu_bytes);
    w->win.pacing_gap_ps = w->cwnd < 1.0 ? (simtime_ps)llround(w->srtt_ps / w->cwnd) : 0;
}

static void set_cwnd(struct swift *w, double c)
{
    if (c < w->min_cwnd)
        c = w->min_cwnd;
    if (c > w->max_cwnd)
        c = w->max_cwnd;
    w->cwnd = c;
    publish(w);
}

/* Every Swift option is a time in microseconds, a window in packets or a
 * factor: 0 to `hi` covers every sensible setting and keeps the window, and
 * the integers derived from it, far inside their types. */
static double opt_nonneg(const struct cc_params *p, const char *name, double def, double hi)
{
    double v = cc_opt(p, name, NAN);
    if (isnan(v))
        return def; /* the default: derived from the network, not the user's to check */
    if (!(v >= 0 && v <= hi))
        die_input("--cc-opt %s=%g: must be from 0 to %g", name, v, hi);
    return v;
}

static void sw_init(struct swift *w, const struct cc_params *p, enum sw_variant v)
{
    w->variant = v;
    w->mtu_bytes = p->mtu_bytes;
    double rtt = (double)p->base_rtt_ps;
    double bdp_pkts = rtt * p->linkspeed_mbps / 8e6 / p->mtu_bytes;
    bool ref = v == SW_SWIFT_REF;
    w->fs_whole_pkts = ref;
    w->base_target_ps =
        opt_nonneg(p, "base_target_us", ref ? SWREF_BASE_TARGET_US : SW_BASE_TARGET_RTTS * rtt / PS_PER_US, 1e6) *
        PS_PER_US;
    w->hop_target_ps = p->path_hops * opt_nonneg(p, "hop_scale_us", SW_HOP_SCALE_US, 1e6) * PS_PER_US;
    w->fs_range_ps =
        opt_nonneg(p, "fs_range_us", ref ? SWREF_FS_RANGE_US : SW_FS_RANGE_RTTS * rtt / PS_PER_US, 1e6) * PS_PER_US;
    double fs_min = opt_nonneg(p, "fs_min_cwnd", SW_FS_MIN_PKTS, 1e6);
    double fs_max = opt_nonneg(p, "fs_max_cwnd", SW_FS_MAX_PKTS, 1e6);
    if (!(fs_min > 0 && fs_max > fs_min))
        die_input("--cc-opt fs_min_cwnd/fs_max_cwnd: need 0 < fs_min_cwnd < fs_max_cwnd");
    /* Swift Sec. 3.5: fs = fs_range at fs_min_cwnd and 0 at fs_max_cwnd. */
    w->fs_alpha_ps = w->fs_range_ps / (1.0 / sqrt(fs_min) - 1.0 / sqrt(fs_max));
    w->fs_beta_ps = -w->fs_alpha_ps / sqrt(fs_max);
    w->ai = opt_nonneg(p, "ai", SW_AI, 1e6);
    w->beta = opt_nonneg(p, "beta", SW_BETA, 1e6);
    w->max_mdf = opt_nonneg(p, "max_mdf", SW_MAX_MDF, 1);
    if (w->max_mdf >= 1)
        die_input("--cc-opt max_mdf=%g: must be below 1", w->max_mdf);
    w->min_cwnd = opt_nonneg(p, "min_cwnd", ref ? SWREF_MIN_BYTES / p->mtu_bytes : SW_MIN_CWND_PKTS, 1e6);
    w->max_cwnd = ref ? opt_nonneg(p, "max_cwnd", SWREF_MAX_PKTS, 1e6)
                      : opt_nonneg(p, "max_cwnd_bdp", SW_MAX_CWND_BDP, 1000) * bdp_pkts;
    if (!(w->min_cwnd > 0))
        die_input("--cc-opt min_cwnd: must be above 0 packets");
    if (w->max_cwnd < 1)
        w->max_cwnd = 1;
    if (w->max_cwnd < w->min_cwnd)
        w->max_cwnd = w->min_cwnd;
    w->retx_reset = cc_opt_uint(p, "retx_reset", SW_RETX_RESET, 1, 1000000);
    w->delayed_needed = 1;
    if (v == SW_LSWIFT || v == SW_MSWIFT) {
        w->delayed_needed = cc_opt_uint(p, "delayed_pkts", SW_LSWIFT_DELAYED, 1, 1000000);
    }
    if (v == SW_MSWIFT) {
        w->percentile = cc_opt(p, "percentile", SW_PERCENTILE);
        if (!(w->percentile > 0 && w->percentile <= 100))
            die_input("--cc-opt percentile=%g: must be in (0, 100]", w->percentile);
        w->history_fixed = cc_opt_uint(p, "history", 0, 0, MEDIAN_CAP); /* 0 = Eq. 8 */
        median_init(hist_of(w));
    }
    w->srtt_ps = rtt;
    w->last_delay_ps = 0;
    double init = p->init_cwnd_bytes ? (double)p->init_cwnd_bytes / p->mtu_bytes
                  : ref                ? SWREF_INIT_PKTS
                                       : SW_INIT_BDP * bdp_pkts;
    set_cwnd(w, init);
}

static void swift_init(void *state, const struct cc_params *p) { sw_init(state, p, SW_SWIFT); }
static void lswift_init(void *state, const struct cc_params *p) { sw_init(state, p, SW_LSWIFT); }
static void mswift_init(void *state, const struct cc_params *p) { sw_init(state, p, SW_MSWIFT); }
static void swift_ref_init(void *state, const struct cc_params *p) { sw_init(state, p, SW_SWIFT_REF); }

/* Swift Sec. 3.5: target delay for the current window. */
static double target_delay(const struct swift *w)
{
    double n = w->fs_whole_pkts ? floor(w->cwnd) : w->cwnd;
    if (w->fs_whole_pkts && n < 1)
        return w->base_target_ps + w->hop_target_ps + w->fs_range_ps; /* htsim: below a packet, the whole range */
    double fs = w->fs_alpha_ps / sqrt(n) + w->fs_beta_ps;
    if (fs < 0)
        fs = 0;
    if (fs > w->fs_range_ps)
        fs = w->fs_range_ps;
    return w->base_target_ps + w->hop_target_ps + fs;
}

static bool can_decrease(const struct swift *w, simtime_ps now)
{
    return !w->decreased || (double)(now - w->t_last_decrease) >= w->srtt_ps;
}

static void decrease_to(struct swift *w, simtime_ps now, double c, enum sw_counter ctr)
{
    double before = w->cwnd;
    set_cwnd(w, c);
    w->ctr[ctr] += (before - w->cwnd) * w->mtu_bytes;
    w->decreased = true;
    w->t_last_decrease = now;
}

/* Eq. 8: H = max(W/2, 1), W the window in whole packets. */
static uint32_t history_len(const struct swift *w)
{
    if (w->history_fixed)
        return w->history_fixed;
    uint32_t h = (uint32_t)(w->cwnd / 2.0);
    return h < 1 ? 1 : h;
}

static void sw_on_ack(void *state, const struct cc_ack *a)
{
    struct swift *w = state;
    w->retransmit_cnt = 0;
    if (a->rtt_valid) {
        double rtt = (double)a->raw_rtt_ps;
        w->srtt_ps += SW_SRTT_GAIN * (rtt - w->srtt_ps);
        w->last_delay_ps = rtt;
        if (w->variant == SW_MSWIFT)
            median_push(hist_of(w), rtt);
    } else if (w->last_delay_ps == 0) {
        return; /* no delay known yet: no decision */
    }
    double delay = w->last_delay_ps;
    if (w->variant == SW_MSWIFT)
        delay = median_percentile(hist_of(w), history_len(w), w->percentile);
    double target = target_delay(w);
    double acked_pkts = (double)a->newly_acked_bytes / w->mtu_bytes;
    if (delay < target) {
        w->delayed_run = 0;
        double before = w->cwnd;
        if (w->cwnd >= 1)
            set_cwnd(w, w->cwnd + w->ai * acked_pkts / w->cwnd);
        else
            set_cwnd(w, w->cwnd + w->ai * acked_pkts);
        w->ctr[SC_AI_INC] += (w->cwnd - before) * w->mtu_bytes;
        return;
    }
    /* delayed: LSwift and MSwift wait for delayed_needed in a row */
    if (++w->delayed_run < w->delayed_needed)
        return;
    if (!can_decrease(w, a->now))
        return;
    double f = 1.0 - w->beta * (delay - target) / delay;
    if (f < 1.0 - w->max_mdf)
        f = 1.0 - w->max_mdf;
    decrease_to(w, a->now, w->cwnd * f, SC_MD_DEC);
    w->delayed_run = 0;
}

/* A lost packet (SACK hole, trimmed-packet NACK): Swift's fast-recovery cut. */
static void sw_loss(struct swift *w, simtime_ps now)
{
    w->retransmit_cnt = 0;
    if (can_decrease(w, now))
        decrease_to(w, now, w->cwnd * (1.0 - w->max_mdf), SC_LOSS_DEC);
}

static void sw_on_loss(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    (void)pkt_bytes;
    sw_loss(state, now);
}

static void sw_on_nack(void *state, const struct cc_nack *n)
{
    sw_loss(state, n->now);
}

/* Swift Algorithm 1, "On Retransmit Timeout". */
static void sw_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct swift *w = state;
    (void)pkt_bytes;
    /* Swift counts consecutive timeout episodes; the transport expires the
     * packets of one burst one by one at the same moment, which is one
     * episode, so at most one count per smoothed RTT. */
    if (w->rto_seen && (double)(now - w->t_last_rto) < w->srtt_ps)
        return;
    w->rto_seen = true;
    w->t_last_rto = now;
    if (++w->retransmit_cnt >= w->retx_reset)
        decrease_to(w, now, w->min_cwnd, SC_RTO_DEC);
    else if (can_decrease(w, now))
        decrease_to(w, now, w->cwnd * (1.0 - w->max_mdf), SC_RTO_DEC);
}

static void sw_counters(const void *state, double *out)
{
    const struct swift *w = state;
    for (int i = 0; i < SC_COUNT; i++)
        out[i] = w->ctr[i];
}

#define SW_COMMON_OPTS "base_target_us", "hop_scale_us", "fs_range_us", "fs_min_cwnd", "fs_max_cwnd", "ai", \
                       "beta", "max_mdf", "min_cwnd", "max_cwnd_bdp", "retx_reset"

static const char *const swift_opts[] = {SW_COMMON_OPTS, NULL};
static const char *const swift_ref_opts[] = {"base_target_us", "hop_scale_us", "fs_range_us", "fs_min_cwnd", "fs_max_cwnd",
                                             "ai", "beta", "max_mdf", "min_cwnd", "max_cwnd", "retx_reset", NULL};
static const char *const lswift_opts[] = {SW_COMMON_OPTS, "delayed_pkts", NULL};
static const char *const mswift_opts[] = {SW_COMMON_OPTS, "delayed_pkts", "percentile", "history", NULL};

const struct cc_ops cc_swift_ops = {
    .name = "swift",
    .description = "Swift (Kumar et al., SIGCOMM 2020): delay-target AIMD, SACK-hole loss detection",
    .state_size = sizeof(struct swift),
    .init = swift_init,
    .on_ack = sw_on_ack,
    .on_nack = sw_on_nack,
    .on_timeout = sw_on_timeout,
    .on_loss = sw_on_loss,
    .loss_mode = CC_LOSS_SACK_HOLE,
    .timestamp_echo = true,
    .dupack_threshold = SW_DUPTHRESH,
    .option_names = swift_opts,
    .n_counters = SC_COUNT,
    .counter_names = sw_counter_names,
    .counters = sw_counters,
};

const struct cc_ops cc_lswift_ops = {
    .name = "lswift",
    .description = "LSwift (seed 004): Swift that ignores reordering and decreases after 5 delayed ACKs",
    .state_size = sizeof(struct swift),
    .init = lswift_init,
    .on_ack = sw_on_ack,
    .on_nack = sw_on_nack,
    .on_timeout = sw_on_timeout,
    .on_loss = sw_on_loss,
    .loss_mode = CC_LOSS_NACK_RTO,
    .timestamp_echo = true,
    .option_names = lswift_opts,
    .n_counters = SC_COUNT,
    .counter_names = sw_counter_names,
    .counters = sw_counters,
};

const struct cc_ops cc_mswift_ops = {
    .name = "mswift",
    .description = "MSwift (seed 004): LSwift on the median delay of the last max(W/2,1) ACKs",
    .state_size = sizeof(struct mswift),
    .init = mswift_init,
    .on_ack = sw_on_ack,
    .on_nack = sw_on_nack,
    .on_timeout = sw_on_timeout,
    .on_loss = sw_on_loss,
    .loss_mode = CC_LOSS_NACK_RTO,
    .timestamp_echo = true,
    .option_names = mswift_opts,
    .n_counters = SC_COUNT,
    .counter_names = sw_counter_names,
    .counters = sw_counters,
};

const struct cc_ops cc_swift_ref_ops = {
    .name = "swift-ref",
    .description = "Swift as the reference simulator runs it: 20 us target, 15-packet start, 3 duplicate ACKs",
    .state_size = sizeof(struct swift),
    .init = swift_ref_init,
    .on_ack = sw_on_ack,
    .on_nack = sw_on_nack,
    .on_timeout = sw_on_timeout,
    .on_loss = sw_on_loss,
    .loss_mode = CC_LOSS_DUPACK,
    .timestamp_echo = true,
    .dupack_threshold = SWREF_DUPTHRESH,
    .option_names = swift_ref_opts,
    .n_counters = SC_COUNT,
    .counter_names = sw_counter_names,
    .counters = sw_counters,
};
