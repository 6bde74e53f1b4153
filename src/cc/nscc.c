/* nscc.c: Network Signal-based Congestion Control, Ultra Ethernet's sender
 * algorithm, as the UEC reference simulator implements it (seed 002).
 *
 * Per ACK, the raw queueing delay against target_Qdelay and the ECN echo
 * pick one of four quadrants (seed 002 Sec. 2):
 *   no ECN, delay < target  -> proportional increase (or fast increase)
 *   no ECN, delay >= target -> fair increase
 *   ECN,    delay >= target -> multiplicative decrease on the filtered RTT
 *   ECN,    delay < target  -> no window change: the load balancer steers
 * Increases accumulate in inc_bytes and are applied in batches ("fulfill",
 * about 8 packets acknowledged or one network RTT) as cwnd += inc_bytes/cwnd,
 * plus a small liveness term eta once per network RTT (Sec. 3c). Quick Adapt
 * (Sec. 5) resets the window to what was delivered in the last
 * base_rtt + target_Qdelay when the flow is nearly stalled under loss or
 * extreme delay, then ignores the ECN of packets already in flight.
 * Every constant is scaled from the 100 Gb/s, 12 us reference network.
 *
 * MNSCC (seed 004 Sec. III-B: "we can directly apply the median framework to
 * the delay signals in NSCC") is this same code with `median` set: each ACK
 * carrying a trusted RTT sample pushes it into a history, and the per-ACK
 * delay NSCC would take from that one sample is replaced by the percentile
 * (`percentile`, default 50 = the median; Fig. 12's P10/P90 variants) of the
 * last H samples, H = max(min(W/2, 4), 1) (Eq. 9, W = cwnd in whole packets)
 * or the fixed `history`. That delay drives every per-ACK delay decision:
 *   - the quadrant (delay >= target_Qdelay),
 *   - fast increase's "delay < 1 us" test,
 *   - proportional increase's headroom alpha x acked x (target - delay),
 *   - Quick Adapt's extreme-delay trigger (delay > 4 x target).
 * Left as in NSCC, because they are not per-ACK delay signals:
 *   - the EWMA filter (and so the multiplicative decrease's magnitude, which
 *     is computed on it) keeps receiving the raw samples: it already averages
 *     over paths, and seed 004 describes no change to it;
 *   - the ECN echo stays the latest ACK's (seed 004 names only the delays);
 *   - an ACK without a trusted sample decides on the filtered delay, as NSCC;
 *   - NACKs push nothing (the history holds "the delays obtained using the
 *     last H ACKs", Sec. III-C) and keep NSCC's reaction.
 * The history holds RTTs; the decision delay is percentile(RTT) - base RTT
 * (at least 0), i.e. the same percentile of the delays against the current
 * base RTT, which may have dropped since a sample was taken.
 */
#include "nscc.h"

#include <math.h>

/* seed 002 Sec. 4b: constants are defined at 100 Gb/s and 12 us, BDP 150 KB. */
#define NSCC_REF_RTT_PS (12 * PS_PER_US)
#define NSCC_REF_BDP_BYTES 150000.0
/* seed 002 Sec. 3b: gamma, and the kept-fraction floor of the reference code. */
#define NSCC_GAMMA 0.8
#define NSCC_MD_MIN_KEEP 0.5
/* seed 002 Sec. 1 (Clock 3) and 4d: EWMA weight; emergency weight pinned. */
#define NSCC_DELAY_ALPHA 0.0125
#define NSCC_EMERGENCY_R 0.0125
/* seed 002 Sec. 4d: discounted sample = base_rtt x 0.25; emergency > 5 base RTTs. */
#define NSCC_DISCOUNT_FRAC 0.25
#define NSCC_EMERGENCY_MULT 5
/* seed 002 Sec. 4b: target_Qdelay = 0.75 base RTT with trimming, 1.0 without. */
#define NSCC_TARGET_TRIM 0.75
#define NSCC_TARGET_NOTRIM 1.0
/* seed 002 Sec. 5: QA gate 3 (achieved < maxwnd/8), trigger at 4 x target. */
#define NSCC_QA_GATE_DEFAULT 3
#define NSCC_QA_DELAY_MULT 4
/* seed 000 Sec. III-J, seed 002 Sec. 6: maxwnd 1.5 BDP. */
#define NSCC_MAXWND_BDP 1.5
/* Reference simulator (uec.cpp initNsccParams, see docs/models.md "NSCC"): increase
 * constants in MSS units scaled by a = BDP / reference BDP. Seed 002 Sec. 3a
 * names them (proportional 4 MSS, fair, eta, fast ~1.25x per RTT). */
#define NSCC_ALPHA_MSS 4.0
#define NSCC_FI_MSS 5.0
#define NSCC_ETA_MSS 0.15
#define NSCC_FAST_SCALE 0.25
/* seed 002 Sec. 1 (Clock 2): fulfill after ~32 KB = 8 packets acknowledged. */
#define NSCC_FULFILL_PKTS 8
/* seed 002 Sec. 3a: fast increase when the delay is "close to zero"; the
 * reference uses an absolute 1 us. */
#define NSCC_FAST_DELAY_PS (1 * PS_PER_US)
/* seed 004 Sec. III-A: the median; Fig. 12 evaluates P10 and P90 variants
 * (of MSwift; `percentile` offers the same for MNSCC). */
#define MNSCC_PERCENTILE 50.0
/* seed 004 Eq. 9: H = max(min(W/2, K_MAX/2), 1) with K = min(W, 8). */
#define MNSCC_H_MAX 4u

static const char *const nscc_counter_names[NC_COUNT] = {
    "fair_inc", "prop_inc", "fast_inc", "eta_inc", "multi_dec", "quick_dec", "nack_dec",
};

static uint64_t bdp_of(simtime_ps rtt_ps, uint32_t mbps)
{
    /* bytes = rtt[s] * rate[bit/s] / 8 = rtt_ps * mbps / 8e6 */
    return (uint64_t)((double)rtt_ps * mbps / 8e6);
}

static void clamp_cwnd(struct nscc *n)
{
    n->win.maxwnd_bytes = n->maxwnd_bytes;
    if (n->win.cwnd_bytes > n->maxwnd_bytes)
        n->win.cwnd_bytes = n->maxwnd_bytes;
    if (n->win.cwnd_bytes < n->min_cwnd_bytes)
        n->win.cwnd_bytes = n->min_cwnd_bytes;
}

static void nscc_init(void *state, const struct cc_params *p)
{
    struct nscc *n = state;
    n->mtu_bytes = p->mtu_bytes;
    n->linkspeed_mbps = p->linkspeed_mbps;
    n->network_rtt_ps = p->network_rtt_ps;
    if (p->target_qdelay_ps)
        n->target_qdelay_ps = p->target_qdelay_ps;
    else
        n->target_qdelay_ps = (simtime_ps)llround((double)p->network_rtt_ps * (p->trimming ? NSCC_TARGET_TRIM : NSCC_TARGET_NOTRIM));
    n->qa_threshold_ps = NSCC_QA_DELAY_MULT * n->target_qdelay_ps;
    n->qa_gate = p->qa_gate < 0 ? NSCC_QA_GATE_DEFAULT : p->qa_gate;
    n->qa_on = cc_opt_uint(p, "quick_adapt", 1, 0, 1);
    n->qa_ignore_on = cc_opt_uint(p, "qa_ignore", 1, 0, 1);
    n->fi_on = cc_opt_uint(p, "fast_increase", 1, 0, 1);
    double a = (double)bdp_of(p->network_rtt_ps, p->linkspeed_mbps) / NSCC_REF_BDP_BYTES;
    double b = (double)n->target_qdelay_ps / (double)NSCC_REF_RTT_PS;
    /* alpha = 4 MSS a b / target_Qdelay = 4 MSS a / reference_rtt (seed 002 Sec. 4b) */
    n->alpha_per_ps = NSCC_ALPHA_MSS * p->mss_bytes * a * b / (double)n->target_qdelay_ps;
    n->fi_bytes = NSCC_FI_MSS * p->mss_bytes * a;
    n->eta_bytes = NSCC_ETA_MSS * p->mss_bytes * a;
    n->fast_scale = NSCC_FAST_SCALE * a;
    n->q3_pressure = p->q3_pressure;
    n->min_cwnd_bytes = p->mtu_bytes;
    n->fulfill_bytes = (uint64_t)NSCC_FULFILL_PKTS * p->mtu_bytes;
    n->base_rtt_ps = p->base_rtt_ps;
    n->maxwnd_bytes = (uint64_t)(NSCC_MAXWND_BDP * (double)bdp_of(p->base_rtt_ps, p->linkspeed_mbps));
    if (n->maxwnd_bytes < n->min_cwnd_bytes)
        n->maxwnd_bytes = n->min_cwnd_bytes;
    n->win.cwnd_bytes = p->init_cwnd_bytes ? p->init_cwnd_bytes : n->maxwnd_bytes;
    n->win.maxwnd_bytes = n->maxwnd_bytes;
    if (n->win.cwnd_bytes < n->min_cwnd_bytes)
        n->win.cwnd_bytes = n->min_cwnd_bytes;
    n->median = false;
    n->percentile = MNSCC_PERCENTILE;
    n->history_fixed = 0;
    n->decision_delay_ps = 0;
}

static struct median_hist *hist_of(struct nscc *n)
{
    return &((struct mnscc *)n)->hist;
}

static void mnscc_init(void *state, const struct cc_params *p)
{
    struct nscc *n = state;
    nscc_init(state, p);
    n->median = true;
    n->percentile = cc_opt(p, "percentile", MNSCC_PERCENTILE);
    if (!(n->percentile > 0 && n->percentile <= 100))
        die_input("--cc-opt percentile=%g: must be in (0, 100]", n->percentile);
    n->history_fixed = cc_opt_uint(p, "history", 0, 0, MEDIAN_CAP); /* 0 = Eq. 9 */
    median_init(hist_of(n));
}

uint32_t mnscc_history_len(const struct nscc *n)
{
    if (n->history_fixed)
        return n->history_fixed;
    uint64_t w = n->win.cwnd_bytes / n->mtu_bytes;
    uint64_t h = w / 2;
    if (h > MNSCC_H_MAX)
        h = MNSCC_H_MAX;
    return h < 1 ? 1 : (uint32_t)h;
}

/* MNSCC: push this ACK's RTT, return the percentile of the last H delays. */
static double median_delay(struct nscc *n, simtime_ps raw_rtt_ps)
{
    struct median_hist *m = hist_of(n);
    median_push(m, (double)raw_rtt_ps);
    double rtt = median_percentile(m, mnscc_history_len(n), n->percentile);
    double base = (double)n->base_rtt_ps;
    return rtt > base ? rtt - base : 0.0;
}

/* Base RTT only moves down; BDP and maxwnd follow it (seed 002 Sec. 4a). */
static void update_base_rtt(struct nscc *n, simtime_ps raw_rtt_ps)
{
    if (raw_rtt_ps >= n->base_rtt_ps || raw_rtt_ps == 0)
        return;
    n->base_rtt_ps = raw_rtt_ps;
    n->maxwnd_bytes = (uint64_t)(NSCC_MAXWND_BDP * (double)bdp_of(raw_rtt_ps, n->linkspeed_mbps));
    if (n->maxwnd_bytes < n->min_cwnd_bytes)
        n->maxwnd_bytes = n->min_cwnd_bytes;
}

/* Three-case EWMA with trust bias (seed 002 Sec. 4d): high delay without ECN
 * is distrusted and replaced by base_rtt/4. */
static void update_avg_delay(struct nscc *n, double delay_ps, bool ecn)
{
    if (!ecn && delay_ps > (double)n->target_qdelay_ps)
        n->avg_delay_ps = NSCC_DELAY_ALPHA * NSCC_DISCOUNT_FRAC * (double)n->base_rtt_ps +
                          (1 - NSCC_DELAY_ALPHA) * n->avg_delay_ps;
    else if (delay_ps > (double)NSCC_EMERGENCY_MULT * (double)n->base_rtt_ps)
        n->avg_delay_ps = NSCC_EMERGENCY_R * delay_ps + (1 - NSCC_EMERGENCY_R) * n->avg_delay_ps;
    else
        n->avg_delay_ps = NSCC_DELAY_ALPHA * delay_ps + (1 - NSCC_DELAY_ALPHA) * n->avg_delay_ps;
}

/* Quick Adapt (seed 002 Sec. 5, seed 000 Alg. 2). Returns true when this
 * event must not move the window further. */
static bool quick_adapt(struct nscc *n, simtime_ps now, bool is_loss, bool ecn, double delay_ps)
{
    if (!n->qa_on)
        return false; /* --cc-opt quick_adapt=0 */
    if (n->bytes_ignored < n->bytes_to_ignore && ecn)
        return true; /* stale feedback from before the last QA */
    if (now > n->qa_end_ps) {
        bool fire = n->qa_end_ps != 0 &&
                    (n->trigger_qa || is_loss || delay_ps > (double)n->qa_threshold_ps) &&
                    n->achieved_bytes < (n->maxwnd_bytes >> n->qa_gate);
        if (fire) {
            uint64_t before = n->win.cwnd_bytes;
            n->win.cwnd_bytes = n->achieved_bytes > n->min_cwnd_bytes ? n->achieved_bytes : n->min_cwnd_bytes;
            n->ctr[NC_QUICK_DEC] += (double)before - (double)n->win.cwnd_bytes;
            /* --cc-opt qa_ignore=0: no ignore phase (seed 000 Fig. 9) */
            n->bytes_to_ignore = n->qa_ignore_on ? n->in_flight_bytes : 0;
            n->bytes_ignored = 0;
            n->trigger_qa = false;
        }
        n->achieved_bytes = 0;
        n->qa_end_ps = now + n->base_rtt_ps + n->target_qdelay_ps;
        if (fire) {
            n->inc_bytes = 0;
            n->inc_fair_pending = n->inc_prop_pending = 0;
            n->received_bytes = 0;
            return true;
        }
    }
    return false;
}

static bool fast_increase(struct nscc *n, uint64_t newly, double delay_ps)
{
    if (!n->fi_on)
        return false; /* --cc-opt fast_increase=0 */
    if (delay_ps < (double)NSCC_FAST_DELAY_PS) {
        n->fi_count_bytes += newly;
        if (n->fi_count_bytes > n->win.cwnd_bytes || n->increasing) {
            double add = (double)newly * n->fast_scale;
            n->win.cwnd_bytes += (uint64_t)add;
            n->ctr[NC_FAST_INC] += (double)(uint64_t)add;
            n->increasing = true;
            return true;
        }
    } else {
        n->fi_count_bytes = 0;
    }
    n->increasing = false;
    return false;
}

double nscc_md_kept_fraction(double avg_rtt, double target_rtt, double gamma)
{
    double keep = 1.0 - gamma * (avg_rtt - target_rtt) / avg_rtt;
    return keep < NSCC_MD_MIN_KEEP ? NSCC_MD_MIN_KEEP : keep;
}

/* Multiplicative decrease on the filtered RTT, at most once per base RTT
 * (seed 002 Sec. 3b): kept = max(1 - gamma (avg_rtt - target_rtt)/avg_rtt, 0.5). */
static void multiplicative_decrease(struct nscc *n, simtime_ps now)
{
    n->increasing = false;
    n->fi_count_bytes = 0;
    if (n->avg_delay_ps <= (double)n->target_qdelay_ps)
        return;
    if (now - n->last_dec_ps <= n->base_rtt_ps && n->last_dec_ps != 0)
        return;
    double avg_rtt = (double)n->base_rtt_ps + n->avg_delay_ps;
    double target_rtt = (double)(n->base_rtt_ps + n->target_qdelay_ps);
    double keep = nscc_md_kept_fraction(avg_rtt, target_rtt, NSCC_GAMMA);
    uint64_t before = n->win.cwnd_bytes;
    n->win.cwnd_bytes = (uint64_t)((double)before * keep);
    if (n->win.cwnd_bytes < n->min_cwnd_bytes)
        n->win.cwnd_bytes = n->min_cwnd_bytes;
    n->ctr[NC_MULTI_DEC] += (double)before - (double)n->win.cwnd_bytes;
    n->last_dec_ps = now;
}

static void fulfill(struct nscc *n, simtime_ps now)
{
    double cwnd = (double)n->win.cwnd_bytes;
    uint64_t add = (uint64_t)(n->inc_bytes / cwnd);
    n->win.cwnd_bytes += add;
    n->ctr[NC_FAIR_INC] += n->inc_fair_pending / cwnd;
    n->ctr[NC_PROP_INC] += n->inc_prop_pending / cwnd;
    if (now - n->last_adjust_ps >= n->network_rtt_ps) {
        n->win.cwnd_bytes += (uint64_t)n->eta_bytes;
        n->ctr[NC_ETA_INC] += (double)(uint64_t)n->eta_bytes;
        n->last_adjust_ps = now;
    }
    n->inc_bytes = 0;
    n->inc_fair_pending = n->inc_prop_pending = 0;
    n->received_bytes = 0;
}

static void nscc_on_ack(void *state, const struct cc_ack *a)
{
    struct nscc *n = state;
    simtime_ps now = a->now;
    n->in_flight_bytes = a->in_flight_bytes;
    double delay;
    if (a->rtt_valid) {
        update_base_rtt(n, a->raw_rtt_ps);
        if (a->raw_rtt_ps >= n->base_rtt_ps) {
            delay = (double)(a->raw_rtt_ps - n->base_rtt_ps);
            update_avg_delay(n, delay, a->ecn); /* raw samples, also for MNSCC */
            if (n->median)
                delay = median_delay(n, a->raw_rtt_ps);
        } else {
            delay = n->avg_delay_ps;
        }
    } else {
        delay = n->avg_delay_ps;
    }
    n->decision_delay_ps = delay;
    uint64_t newly = a->newly_acked_bytes;
    n->achieved_bytes += newly;
    n->received_bytes += newly;
    n->bytes_ignored += newly;

    if (quick_adapt(n, now, false, a->ecn, delay))
        return;
    bool high = delay >= (double)n->target_qdelay_ps;
    if (!a->ecn && !high) {
        if (!fast_increase(n, newly, delay)) {
            double inc = n->alpha_per_ps * (double)newly * ((double)n->target_qdelay_ps - delay);
            n->inc_bytes += inc;
            n->inc_prop_pending += inc;
        }
    } else if (!a->ecn) {
        double inc = n->fi_bytes * (double)newly;
        n->inc_bytes += inc;
        n->inc_fair_pending += inc;
    } else if (high) {
        multiplicative_decrease(n, now);
    } else if (n->q3_pressure > 0 && (n->last_q3_dec_ps == 0 || now - n->last_q3_dec_ps > n->base_rtt_ps)) {
        /* Optional wait-to-decrease pressure in the steer-only quadrant
         * (seed 002 Sec. 2, "_q3_pressure"; 0 = UE's pure steer-only). */
        uint64_t before = n->win.cwnd_bytes;
        n->win.cwnd_bytes = (uint64_t)((double)before * (1.0 - n->q3_pressure));
        n->ctr[NC_MULTI_DEC] += (double)(before - n->win.cwnd_bytes);
        n->last_q3_dec_ps = now;
    }
    clamp_cwnd(n);
    if (n->received_bytes > n->fulfill_bytes || now - n->last_adjust_ps > n->network_rtt_ps) {
        fulfill(n, now);
        clamp_cwnd(n);
    }
}

static void nscc_on_nack(void *state, const struct cc_nack *k)
{
    struct nscc *n = state;
    n->in_flight_bytes = k->in_flight_bytes;
    update_base_rtt(n, k->raw_rtt_ps);
    n->bytes_ignored += k->pkt_bytes;
    n->ctr[NC_NACK_DEC] += k->pkt_bytes;
    /* A trim says the queue was full: feed the filter a delay of one network
     * RTT, the reference's estimate of the trimming threshold. */
    update_avg_delay(n, (double)n->network_rtt_ps, true);
    n->trigger_qa = true;
    if (quick_adapt(n, k->now, true, true, 0))
        return;
    n->win.cwnd_bytes = n->win.cwnd_bytes > k->pkt_bytes ? n->win.cwnd_bytes - k->pkt_bytes : 0;
    clamp_cwnd(n);
}

static void nscc_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct nscc *n = state;
    (void)now;
    n->win.cwnd_bytes = n->win.cwnd_bytes > pkt_bytes ? n->win.cwnd_bytes - pkt_bytes : 0;
    clamp_cwnd(n);
}

static void nscc_counters(const void *state, double *out)
{
    const struct nscc *n = state;
    for (int i = 0; i < NC_COUNT; i++)
        out[i] = n->ctr[i];
}

/* Ablation switches (seed 000 Figs. 8-10; seeds-figures.md Sec. 3.2). */
static const char *const nscc_option_names[] = {"quick_adapt", "qa_ignore", "fast_increase", NULL};

const struct cc_ops cc_nscc_ops = {
    .name = "nscc",
    .description = "Ultra Ethernet NSCC as in the UEC reference simulator (seed 002)",
    .state_size = sizeof(struct nscc),
    .init = nscc_init,
    .option_names = nscc_option_names,
    .on_ack = nscc_on_ack,
    .on_nack = nscc_on_nack,
    .on_timeout = nscc_on_timeout,
    .n_counters = NC_COUNT,
    .counter_names = nscc_counter_names,
    .counters = nscc_counters,
};

static const char *const mnscc_option_names[] = {"percentile", "history", "quick_adapt", "qa_ignore",
                                                 "fast_increase", NULL};

const struct cc_ops cc_mnscc_ops = {
    .name = "mnscc",
    .description = "MNSCC (seed 004): NSCC deciding on the median delay of the last max(min(W/2,4),1) ACKs",
    .state_size = sizeof(struct mnscc),
    .init = mnscc_init,
    .on_ack = nscc_on_ack,
    .on_nack = nscc_on_nack,
    .on_timeout = nscc_on_timeout,
    .option_names = mnscc_option_names,
    .n_counters = NC_COUNT,
    .counter_names = nscc_counter_names,
    .counters = nscc_counters,
};
