/* smartt.c: SMaRTT, the per-ACK ECN + delay window control of seed 003
 * (conference version, Sec. 3), from which Ultra Ethernet's NSCC descends
 * but which differs from it: SMaRTT reacts on every ACK, with no batching,
 * no eta term and no filtered delay, and it decreases gently on ECN at low
 * delay (Fair Decrease) where NSCC only steers.
 *
 * Per ACK the ECN echo and the packet's RTT against the target trtt = 1.5
 * base RTT (Sec. 3.5) pick one of four cases (Alg. 1 lines 19-27):
 *   ECN,    rtt <= trtt -> Fair Decrease        cwnd -= cwnd/bdp * fd * size      (Eq. 1)
 *   ECN,    rtt >  trtt -> Multiplicative Dec.  cwnd -= min(size, (rtt-trtt)/rtt * md * size)
 *                                                 plus a Fair Decrease            (Eq. 2)
 *   no ECN, rtt >  trtt -> Fair Increase        cwnd += size/cwnd * mtu * fi      (Eq. 3)
 *   no ECN, rtt <= trtt -> Multiplicative Inc.  cwnd += min(size, (trtt-rtt)/rtt * size/cwnd * mtu * mi)
 *                                                 plus a Fair Increase            (Eq. 4)
 * with md = 2, fi = 0.25, fd = 0.8, mi = brtt/(trtt-brtt) = 2 (Sec. 3.2,
 * 3.5); fi and mi are multiplied by gamma = bdp / (100 Gb/s x 12 us), fd and
 * md are not (Sec. 3.5 "Scaling"). "size" is the bytes the ACK newly
 * acknowledges (a coalesced ACK counts as the packets it covers).
 * Wait-to-Decrease (Sec. 3.6.1) keeps an EWMA of ECN-marked packets and
 * allows the two decreases only when it is >= 0.25. FastIncrease (Alg. 3)
 * adds k = 2 MTU per ACK once a cwnd's worth of bytes came back with RTT ~
 * base RTT and no ECN. A trimmed packet (NACK) or a timeout takes its size
 * off the window and arms QuickAdapt (Alg. 1 lines 28-34, Alg. 2): at the
 * end of the current trtt measurement period the window becomes
 * qa_scaling x max(bytes acknowledged in the period, mtu), qa_scaling = 0.8,
 * and the ACKs of the packets then in flight are ignored (bytes-to-ignore).
 * A trim or timeout of one of those packets is ignored too: it neither takes
 * its size off nor arms QuickAdapt again. Sec. 3.3's text says so ("ignores
 * the congestion information carried by all the unacked packets ... from
 * when QuickAdapt is triggered"; so does the authors' htsim code, whose
 * NACK handler skips both while its ignore count runs); Alg. 1 lines 29-30
 * apply both to every trim. Read literally, each of the hundreds of trims
 * that follow an incast's QuickAdapt takes an MTU off the window it has
 * just set, down to 1 MTU (experiments/smartt_incast.md).
 * Without trimming (seed 000 Sec. III-E "QuickAdapt without trimming")
 * QuickAdapt is also armed by an RTT above 2 x trtt (a queue beyond what a
 * 1-BDP trimming queue allows) and fires only if the period's acknowledged
 * bytes are below half the window; md doubles (seed 003 Sec. 3.3). The
 * window stays within [1 MTU, maxwnd], maxwnd = 1.25 BDP (Sec. 3.5).
 *
 * The base RTT (and with it bdp, trtt, maxwnd and gamma) starts at the
 * network's largest unloaded RTT and follows the smallest RTT sampled, so
 * constants scale with the path (seed 000 Sec. III-J "Scaling", III a).
 *
 * The journal version (seed 000 Sec. III) differs; its choices are options:
 *   --cc-opt maxwnd_bdp=1.5   maximum window 1.5 BDP (seed 000 III-J)
 *   --cc-opt md_form=1        cwnd *= max(0.5, 1 - 0.8 (avg_rtt - trtt)/avg_rtt)
 *                             at most once per base RTT on an EWMA of the RTT
 *                             (seed 000 Eq. 1), no Fair Decrease added
 *   --cc-opt fd=0             ECN at low delay: no window change, the load
 *                             balancer steers (seed 000 III-I1)
 *   --cc-opt qa_scaling=1     (seed 000 III-E)
 *   --cc-opt wtd_threshold=0  no Wait-to-Decrease (seed 000 does not have it)
 * Ablations (seed 000 Figs. 8-10): --cc-opt quick_adapt=0 (a trim or a
 * timeout only takes its size off), qa_ignore=0 (QuickAdapt without its
 * bytes-to-ignore phase), fast_increase=0 (or k=0). qa_ignore_loss=0:
 * Alg. 1 lines 29-30 literally, a trim or timeout during the ignore phase
 * takes its size off and arms QuickAdapt.
 * fair_increase=0 (seed 000 Sec. IV-C, Fig. 6): additive increase, the
 * constant of Eq. 3 scaled by the network's BDP for every flow instead of
 * by the flow's own path BDP, so short paths gain as fast as long ones.
 * ecn_only=1 / delay_only=1 (seed 003 Sec. 3.1, Figs. 2 and 3a): the
 * "simple CC" the paper compares SMaRTT with: one signal picks decrease or
 * increase, a decrease takes at most half an MTU per packet (ECN: half of
 * the acknowledged bytes; delay: Eq. 2's amount capped at half of them),
 * otherwise Eq. 3's increase; no QuickAdapt, FastIncrease or WTD.
 * react_every=N (seed 003 Sec. 3.1, Fig. 3b; seed 000 Sec. III-G): the
 * window reacts on every Nth packet acknowledged, with the signals of that
 * ACK and the bytes of all N (sample and scale); trims and timeouts still
 * act at once.
 * Choices the seeds leave open (each a named constant below): the WTD EWMA
 * weight, "rtt ~ brtt" for FastIncrease, the no-trimming QuickAdapt
 * thresholds, and the RTT EWMA weight of md_form=1. QuickAdapt counts only
 * bytes delivered (ACKed), not trimmed headers, as Sec. 3.3 says "bytes
 * received".
 */
#include "cc.h"

#include <math.h>

/* seed 003 Sec. 3.5 "Scaling": reference network 100 Gb/s, 12 us RTT. */
#define SM_REF_BDP_BYTES 150000.0
/* seed 003 Sec. 3.5: trtt = 1.5 base RTT; maxwnd 1.25 BDP (seed 000 III-J: 1.5). */
#define SM_TRTT_MULT 1.5
#define SM_MAXWND_BDP 1.25
/* seed 003 Sec. 3.2.2 / 3.5: md = 2, fd = 0.8, fi = 0.25 (100 Gb/s, 4 KiB MTU). */
#define SM_MD 2.0
#define SM_FD 0.8
#define SM_FI 0.25
/* seed 003 Sec. 3.3: md doubles when timeouts replace trimming. */
#define SM_MD_NOTRIM_FACTOR 2.0
/* seed 003 Sec. 3.4 / Alg. 3: k = 2 MTU per ACK. */
#define SM_FAST_K 2.0
/* seed 003 Sec. 3.5 "QuickAdapt Scaling": 0.8 (seed 000 III-E: 1). */
#define SM_QA_SCALING 0.8
/* seed 003 Sec. 3.6.1: no decrease while avg_wtd < 0.25. The EWMA weight
 * is not given; we use 1/16 per packet (DCTCP's g, RFC 8257). */
#define SM_WTD_THRESHOLD 0.25
#define SM_WTD_ALPHA (1.0 / 16)
/* Alg. 3 "rtt ~ brtt": not quantified; we take within 5% of the base RTT
 * (0.7 us at 14 us, about two 4 KB packets of queueing at 100 Gb/s). */
#define SM_FAST_RTT_SLACK 0.05
/* seed 000 III-E a): without trimming, "RTT high and acked bytes low
 * compared to cwnd"; we take RTT > 2 trtt and acked < cwnd / 2. */
#define SM_QA_NOTRIM_RTT_MULT 2.0
#define SM_QA_NOTRIM_ACKED_FRAC 0.5
/* seed 000 Eq. 1: kept = max(0.5, 1 - 0.8 (avg_rtt - trtt)/avg_rtt); the
 * EWMA weight of avg_rtt is not given, we use seed 002's 0.0125. */
#define SM_MD1_GAMMA 0.8
#define SM_MD1_MIN_KEEP 0.5
#define SM_MD1_EWMA 0.0125

enum {
    SC_FAIR_INC,
    SC_PROP_INC,
    SC_FAST_INC,
    SC_FAIR_DEC,
    SC_MULTI_DEC,
    SC_QUICK_DEC,
    SC_NACK_DEC,
    SC_RTO_DEC,
    SC_COUNT
};

/* Packets per ACK for which (1 - wtd_alpha)^n is tabulated. */
#define SM_WTD_POW_TABLE 64

static const char *const smartt_counter_names[SC_COUNT] = {
    "fair_inc", "prop_inc", "fast_inc", "fair_dec", "multi_dec", "quick_dec", "nack_dec", "rto_dec",
};

static const char *const smartt_option_names[] = {
    "maxwnd_bdp", "md_form", "md", "fd", "fi", "k", "qa_scaling", "wtd_alpha", "wtd_threshold", "trtt_mult",
    "quick_adapt", "qa_ignore", "qa_ignore_loss", "fast_increase", "fair_increase", "ecn_only", "delay_only", "react_every", NULL,
};

struct smartt {
    struct cc_window win; /* must be first */
    double cwnd;          /* exact window; win.cwnd_bytes is its floor */
    /* configuration */
    uint32_t mtu;
    uint32_t linkspeed_mbps;
    bool trimming;
    int md_form;
    /* ablation switches (seed 000 Figs. 8-10, seeds-figures.md Sec. 3) */
    bool qa_on, qa_ignore_on, fi_on;
    bool qa_ignore_loss_on;     /* 0: Alg. 1 lines 29-30 literally */
    bool fair_inc_on;           /* 0: additive increase (network gamma) */
    enum { SIG_BOTH, SIG_ECN, SIG_DELAY } signals;
    uint32_t react_every_pkts;  /* 1 = every ACK */
    uint64_t pend_bytes;        /* acknowledged since the last reaction */
    uint32_t pend_pkts;
    double net_gamma;           /* gamma of the network's base RTT */
    double maxwnd_bdp, trtt_mult, md, fd, fi, k, qa_scaling, wtd_alpha, wtd_threshold;
    /* path state, following the smallest RTT seen */
    simtime_ps brtt, trtt;
    double bdp, maxwnd, gamma, mi;
    simtime_ps last_rtt;
    /* QuickAdapt (Alg. 2) */
    simtime_ps qa_end;
    uint64_t acked;
    bool trigger_qa;
    bool delay_high; /* no-trimming trigger seen in this period */
    uint64_t bytes_to_ignore, bytes_ignored;
    /* FastIncrease (Alg. 3) */
    uint64_t fi_count;
    bool increasing;
    /* Wait-to-Decrease (Sec. 3.6.1) */
    double avg_wtd;
    double wtd_keep[SM_WTD_POW_TABLE]; /* (1 - wtd_alpha)^n for n < SM_WTD_POW_TABLE */
    /* md_form = 1 */
    double avg_rtt;
    simtime_ps last_md;
    double ctr[SC_COUNT];
};

static double opt_in(const struct cc_params *p, const char *name, double def, double lo, double hi)
{
    double v = cc_opt(p, name, def);
    if (!(v >= lo && v <= hi))
        die_input("--cc-opt %s=%g: out of range [%g, %g] for smartt", name, v, lo, hi);
    return v;
}

static void set_base_rtt(struct smartt *s, simtime_ps brtt)
{
    s->brtt = brtt;
    s->trtt = (simtime_ps)llround((double)brtt * s->trtt_mult);
    s->bdp = (double)brtt * s->linkspeed_mbps / 8e6;
    s->maxwnd = s->maxwnd_bdp * s->bdp;
    if (s->maxwnd < s->mtu)
        s->maxwnd = s->mtu;
    s->gamma = s->bdp / SM_REF_BDP_BYTES;
    /* mi = brtt / (trtt - brtt) (Sec. 3.2.4), scaled by gamma (Sec. 3.5) */
    s->mi = (double)brtt / (double)(s->trtt - brtt) * s->gamma;
}

static void clamp(struct smartt *s)
{
    if (s->cwnd > s->maxwnd)
        s->cwnd = s->maxwnd;
    if (s->cwnd < s->mtu)
        s->cwnd = s->mtu;
    s->win.cwnd_bytes = (uint64_t)s->cwnd;
}

/* What an increase added, for its counter: never negative, though the
 * clamp can shrink the window when a smaller base RTT has lowered maxwnd. */
static double gained(const struct smartt *s, double before)
{
    return s->cwnd > before ? s->cwnd - before : 0;
}

static void smartt_init(void *state, const struct cc_params *p)
{
    struct smartt *s = state;
    s->mtu = p->mtu_bytes;
    s->linkspeed_mbps = p->linkspeed_mbps;
    s->trimming = p->trimming;
    s->maxwnd_bdp = opt_in(p, "maxwnd_bdp", SM_MAXWND_BDP, 0.01, 1000);
    s->md_form = (int)cc_opt_uint(p, "md_form", 0, 0, 1);
    s->qa_on = cc_opt_uint(p, "quick_adapt", 1, 0, 1);
    s->qa_ignore_on = cc_opt_uint(p, "qa_ignore", 1, 0, 1);
    s->qa_ignore_loss_on = cc_opt_uint(p, "qa_ignore_loss", 1, 0, 1);
    s->fi_on = cc_opt_uint(p, "fast_increase", 1, 0, 1);
    s->fair_inc_on = cc_opt_uint(p, "fair_increase", 1, 0, 1);
    bool ecn_only = cc_opt_uint(p, "ecn_only", 0, 0, 1);
    bool delay_only = cc_opt_uint(p, "delay_only", 0, 0, 1);
    if (ecn_only && delay_only)
        die_input("--cc-opt ecn_only=1 and delay_only=1: choose one signal (neither: both, SMaRTT)");
    s->signals = ecn_only ? SIG_ECN : delay_only ? SIG_DELAY : SIG_BOTH;
    if (s->signals != SIG_BOTH)
        s->qa_on = false; /* the simple CC: a trim takes only its own size off */
    s->react_every_pkts = cc_opt_uint(p, "react_every", 1, 1, 1000000);
    s->md = opt_in(p, "md", SM_MD * (p->trimming ? 1 : SM_MD_NOTRIM_FACTOR), 0, 1000);
    s->fd = opt_in(p, "fd", SM_FD, 0, 1000);
    if (p->fair_decrease_off)
        s->fd = 0; /* -disable_fd (SMaRTT's htsim: disableFairDecrease) */
    s->fi = opt_in(p, "fi", SM_FI, 0, 1000);
    s->k = opt_in(p, "k", SM_FAST_K, 0, 1000);
    s->qa_scaling = opt_in(p, "qa_scaling", SM_QA_SCALING, 0.01, 10);
    s->wtd_alpha = opt_in(p, "wtd_alpha", SM_WTD_ALPHA, 0, 1);
    s->wtd_threshold = opt_in(p, "wtd_threshold", SM_WTD_THRESHOLD, 0, 1);
    for (unsigned i = 0; i < SM_WTD_POW_TABLE; i++)
        s->wtd_keep[i] = pow(1 - s->wtd_alpha, (double)i);
    s->trtt_mult = opt_in(p, "trtt_mult", SM_TRTT_MULT, 1.01, 100);
    set_base_rtt(s, p->base_rtt_ps);
    s->net_gamma = s->gamma;
    s->last_rtt = s->brtt;
    s->avg_rtt = (double)s->brtt;
    s->cwnd = p->init_cwnd_bytes ? (double)p->init_cwnd_bytes : s->maxwnd;
    clamp(s);
}

/* Alg. 2. */
static bool quick_adapt(struct smartt *s, simtime_ps now, uint64_t in_flight)
{
    bool adapted = false;
    if (!s->qa_on)
        return false; /* --cc-opt quick_adapt=0: a trim only takes its size off */
    if (now >= s->qa_end) {
        bool by_delay = !s->trimming && s->delay_high &&
                        (double)s->acked < SM_QA_NOTRIM_ACKED_FRAC * s->cwnd;
        if ((s->trigger_qa || by_delay) && s->qa_end != 0) {
            s->trigger_qa = false;
            adapted = true;
            double before = s->cwnd;
            double a = (double)(s->acked > s->mtu ? s->acked : s->mtu);
            s->cwnd = a * s->qa_scaling;
            clamp(s);
            s->ctr[SC_QUICK_DEC] += before - s->cwnd;
            /* --cc-opt qa_ignore=0: no ignore phase (seed 000 Fig. 9) */
            s->bytes_to_ignore = s->qa_ignore_on ? in_flight : 0;
            s->bytes_ignored = 0;
        }
        s->qa_end = now + s->trtt;
        s->acked = 0;
        s->delay_high = false;
    }
    return adapted;
}

/* Alg. 3. With k = 0 (--cc-opt k=0) FastIncrease is off: the ACK goes on
 * to the proportional and fair increases, rather than "increasing" by 0. */
static bool fast_increase(struct smartt *s, uint64_t size, simtime_ps rtt, bool ecn)
{
    if (s->k <= 0 || !s->fi_on)
        return false;
    if (!ecn && (double)rtt <= (double)s->brtt * (1 + SM_FAST_RTT_SLACK)) {
        s->fi_count += size;
        if ((double)s->fi_count > s->cwnd || s->increasing) {
            double before = s->cwnd;
            s->cwnd += s->k * s->mtu;
            clamp(s);
            s->ctr[SC_FAST_INC] += gained(s, before);
            s->increasing = true;
            return true;
        }
    } else {
        s->fi_count = 0;
        s->increasing = false;
    }
    return s->increasing;
}

/* Sec. 3.6.1: avg_wtd = a ecn + (1 - a) avg_wtd for each packet acknowledged.
 * (1 - a)^n comes from a table filled at init with the same pow() calls for
 * the usual n (an ACK covers a few packets), so the per-ACK cost is a lookup
 * and the values are bit for bit those of pow(). */
static bool wait_to_decrease(struct smartt *s, uint64_t size, bool ecn)
{
    double n = size > s->mtu ? floor((double)size / s->mtu + 0.5) : 1;
    double keep = n < SM_WTD_POW_TABLE ? s->wtd_keep[(unsigned)n] : pow(1 - s->wtd_alpha, n);
    s->avg_wtd = keep * s->avg_wtd + (1 - keep) * (ecn ? 1.0 : 0.0);
    return s->avg_wtd >= s->wtd_threshold;
}

static double fair_decrease_amount(const struct smartt *s, double size)
{
    return s->cwnd / s->bdp * s->fd * size; /* Eq. 1 */
}

static double fair_increase_amount(const struct smartt *s, double size)
{
    /* Eq. 3; fair_increase=0: one constant for every path (seed 000 Fig. 6) */
    return size / s->cwnd * s->mtu * s->fi * (s->fair_inc_on ? s->gamma : s->net_gamma);
}

/* seed 003 Sec. 3.1's single-signal CC (ecn_only, delay_only). */
static void single_signal(struct smartt *s, double sz, simtime_ps rtt, bool ecn)
{
    double before = s->cwnd;
    bool congested = s->signals == SIG_ECN ? ecn : rtt > s->trtt;
    if (congested) {
        double dec = sz / 2; /* "half an MTU per packet at most" */
        if (s->signals == SIG_DELAY) {
            double r = (double)rtt;
            double md = (r - (double)s->trtt) / r * s->md * sz; /* Eq. 2's amount */
            if (md < dec)
                dec = md;
        }
        s->cwnd -= dec;
        clamp(s);
        s->ctr[SC_MULTI_DEC] += before - s->cwnd;
    } else {
        s->cwnd += fair_increase_amount(s, sz);
        clamp(s);
        s->ctr[SC_FAIR_INC] += gained(s, before);
    }
}

static void smartt_on_ack(void *state, const struct cc_ack *a)
{
    struct smartt *s = state;
    uint64_t size = a->newly_acked_bytes;
    s->acked += size;
    s->bytes_ignored += size;
    if (a->rtt_valid && a->raw_rtt_ps > 0) {
        if (a->raw_rtt_ps < s->brtt)
            set_base_rtt(s, a->raw_rtt_ps);
        s->last_rtt = a->raw_rtt_ps;
        s->avg_rtt = SM_MD1_EWMA * (double)a->raw_rtt_ps + (1 - SM_MD1_EWMA) * s->avg_rtt;
        if (!s->trimming && (double)a->raw_rtt_ps > SM_QA_NOTRIM_RTT_MULT * (double)s->trtt)
            s->delay_high = true;
    }
    if (s->bytes_ignored < s->bytes_to_ignore)
        return; /* Alg. 1 line 8: feedback from before the last QuickAdapt */
    if (size == 0)
        return; /* a duplicate ACK carries no new feedback */
    if (s->react_every_pkts > 1) {
        /* sample every Nth packet, scale by the bytes of all N */
        s->pend_bytes += size;
        s->pend_pkts += size > s->mtu ? (uint32_t)((size + s->mtu / 2) / s->mtu) : 1;
        if (s->pend_pkts < s->react_every_pkts)
            return;
        size = s->pend_bytes;
        s->pend_bytes = 0;
        s->pend_pkts = 0;
    }
    /* An ACK without an RTT sample (uet_ack.c's rtt_sample_valid gives none
     * for a packet sent three times or more, nor for a second send's ACK
     * without the retransmission echo) is judged on the last sample. The
     * paper measures every ACK; after a trimmed incast that last sample is
     * stale and high, so Eq. 4 and FastIncrease stay off (about 3 us of the
     * tail in experiments/smartt_incast.md). */
    simtime_ps rtt = s->last_rtt;
    bool ecn = a->ecn;
    if (s->signals != SIG_BOTH) {
        single_signal(s, (double)size, rtt, ecn);
        return;
    }
    bool can_decrease = wait_to_decrease(s, size, ecn);
    bool adp = quick_adapt(s, a->now, a->in_flight_bytes);
    bool finc = fast_increase(s, size, rtt, ecn);
    if (adp || finc)
        return;
    double sz = (double)size;
    double before = s->cwnd;
    bool high = rtt > s->trtt;
    if (ecn && !high && can_decrease) {
        s->cwnd -= fair_decrease_amount(s, sz);
        clamp(s);
        s->ctr[SC_FAIR_DEC] += before - s->cwnd;
    } else if (ecn && high && can_decrease) {
        if (s->md_form == 0) {
            double r = (double)rtt;
            double md = (r - (double)s->trtt) / r * s->md * sz; /* Eq. 2 */
            if (md > sz)
                md = sz;
            s->cwnd -= md;
            clamp(s);
            s->ctr[SC_MULTI_DEC] += before - s->cwnd;
            double mid = s->cwnd;
            s->cwnd -= fair_decrease_amount(s, sz);
            clamp(s);
            s->ctr[SC_FAIR_DEC] += mid - s->cwnd;
        } else if (s->last_md == 0 || a->now - s->last_md > s->brtt) {
            /* seed 000 Eq. 1, once per base RTT */
            double keep = 1 - (s->avg_rtt - (double)s->trtt) / s->avg_rtt * SM_MD1_GAMMA;
            if (keep < SM_MD1_MIN_KEEP)
                keep = SM_MD1_MIN_KEEP;
            if (keep < 1) {
                s->cwnd *= keep;
                clamp(s);
                s->ctr[SC_MULTI_DEC] += before - s->cwnd;
                s->last_md = a->now;
            }
        }
    } else if (!ecn && high) {
        s->cwnd += fair_increase_amount(s, sz);
        clamp(s);
        s->ctr[SC_FAIR_INC] += gained(s, before);
    } else if (!ecn) {
        double r = (double)rtt;
        double mi = ((double)s->trtt - r) / r * sz / s->cwnd * s->mtu * s->mi; /* Eq. 4 */
        if (mi > sz)
            mi = sz;
        double fi = fair_increase_amount(s, sz);
        s->cwnd += mi + fi;
        clamp(s);
        double added = gained(s, before);
        double pi_part = added < mi ? added : mi;
        s->ctr[SC_PROP_INC] += pi_part;
        s->ctr[SC_FAIR_INC] += added - pi_part;
    }
}

/* Alg. 1 lines 28-34: a trimmed packet or a timeout. While the packets in
 * flight at the last QuickAdapt are being ignored (the test of line 8),
 * their trims and timeouts are as well (Sec. 3.3; the header comment). */
static void loss_event(struct smartt *s, simtime_ps now, uint32_t size, uint64_t in_flight, int ctr)
{
    s->bytes_ignored += size;
    if (s->qa_ignore_loss_on && s->bytes_ignored < s->bytes_to_ignore)
        return;
    double before = s->cwnd;
    s->cwnd -= size;
    clamp(s);
    s->ctr[ctr] += before - s->cwnd;
    s->trigger_qa = true;
    if (s->bytes_ignored >= s->bytes_to_ignore)
        quick_adapt(s, now, in_flight);
}

static void smartt_on_nack(void *state, const struct cc_nack *k)
{
    struct smartt *s = state;
    if (k->raw_rtt_ps > 0 && k->raw_rtt_ps < s->brtt)
        set_base_rtt(s, k->raw_rtt_ps);
    loss_event(s, k->now, k->pkt_bytes, k->in_flight_bytes, SC_NACK_DEC);
}

static void smartt_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct smartt *s = state;
    /* The transport does not report in-flight bytes with a timeout; the
     * window bounds them. */
    loss_event(s, now, pkt_bytes, (uint64_t)s->cwnd, SC_RTO_DEC);
}

static void smartt_counters(const void *state, double *out)
{
    const struct smartt *s = state;
    for (int i = 0; i < SC_COUNT; i++)
        out[i] = s->ctr[i];
}

const struct cc_ops cc_smartt_ops = {
    .name = "smartt",
    .description = "SMaRTT per-ACK ECN+delay window control (seed 003; journal variants via --cc-opt, seed 000)",
    .state_size = sizeof(struct smartt),
    .init = smartt_init,
    .on_ack = smartt_on_ack,
    .on_nack = smartt_on_nack,
    .on_timeout = smartt_on_timeout,
    .on_loss = NULL,
    .loss_mode = CC_LOSS_NACK_RTO,
    .dupack_threshold = 0,
    .option_names = smartt_option_names,
    .n_counters = SC_COUNT,
    .counter_names = smartt_counter_names,
    .counters = smartt_counters,
};
