/* nscc_fixed.c: NSCC (nscc.c, seed 002) as a NIC would run it: fixed-width
 * integer state and no floating point on the ACK, NACK or timeout path
 * (issue 12 item 5; seeds-figures.md Sec. 4). Same algorithm, same defaults
 * and the same ablation switches as `--cc nscc`; the float version is the
 * reference, and tests/test_cc_fixed.c checks the windows against it.
 *
 * Number formats. Times are uint32_t nanoseconds (the event's ps truncated
 * to ns), compared modulo 2^32 as a NIC's free-running clock would be
 * (a difference is exact while the two instants are less than 4.29 s apart;
 * 0 means "never", as in nscc.c). Windows and byte counters are uint32_t
 * bytes. The filtered delay is uint32_t ns in Q8 (1/256 ns). The increase
 * accumulator inc_bytes (bytes^2: bytes acked x bytes of increase) is kept
 * in units of 256 bytes^2. Constants derived once at init from doubles live
 * in `struct nscc_fixed_global` (same for every flow of a host: the network
 * RTT, link speed, MTU and options): the EWMA weight 0.0125 in Q24,
 * gamma 0.8 as Q16, the proportional constant alpha per ns in Q16, the fair
 * increase per byte in Q8, the fast-increase scale in Q16, maxwnd per ns of
 * base RTT in Q16.
 *
 * Where rounding differs from nscc.c: times lose their sub-ns part; the EWMA
 * weight is 209715/2^24 = 0.01249999 (float 0.0125; Q16's 819/65536 =
 * 0.012497 kept the filter about 0.3 ns low, enough to put a multiplicative
 * decrease on the other side of its threshold and the windows 7.6% apart
 * for thousands of ACKs) and the update is rounded to 1/256 ns; the proportional increase uses headroom in whole ns and the
 * accumulator drops below 256 bytes^2 per ACK (< 0.1 byte of window per
 * fulfill); the kept fraction of a multiplicative decrease is truncated to
 * 1/65536. Divisions that remain: fulfill divides the accumulator by the
 * window (once per 8 packets or per network RTT), a multiplicative decrease
 * divides by the filtered RTT (at most once per base RTT); the per-ACK path
 * has none (ps -> ns is a constant division the compiler turns into a
 * multiply; a NIC timestamps in ns).
 *
 * Not carried: MNSCC's history (use `--cc mnscc`) and the per-mechanism
 * counters (n_counters = 0).
 *
 * State. The NIC keeps `struct nscc_fixed_flow` per flow (packed; sizeof in
 * docs/performance.md and `nscc_fixed_sizes()`), and one `struct nscc_fixed_global` per
 * host. The simulator's module state is {struct cc_window, global, flow}:
 * the cc_window (24 bytes, 64-bit, read by the transport) mirrors the flow's
 * window and maxwnd after every event and is not NIC state; the global part
 * is copied into every flow only because the ops interface has no per-host
 * storage. Sizes: 49 bytes per flow, 48 per host (nscc_fixed_sizes()).
 */
#include "cc.h"
#include "cc_fixed.h"

#include <math.h>

/* seed 002 Sec. 4b: constants scaled from 100 Gb/s, 12 us, BDP 150 KB (as nscc.c). */
#define NF_REF_RTT_NS 12000.0
#define NF_REF_BDP_BYTES 150000.0
/* seed 002 Sec. 3b: gamma 0.8, kept fraction at least 0.5 (as nscc.c). */
#define NF_GAMMA 0.8
#define NF_MD_MIN_KEEP_Q16 32768u
/* seed 002 Sec. 1, 4d: EWMA weight 0.0125 (emergency weight equal). */
#define NF_DELAY_ALPHA 0.0125
#define NF_TARGET_TRIM 0.75
#define NF_TARGET_NOTRIM 1.0
#define NF_QA_GATE_DEFAULT 3
#define NF_QA_DELAY_MULT 4u
#define NF_EMERGENCY_MULT 5u
#define NF_MAXWND_BDP 1.5
/* uec.cpp initNsccParams (see nscc.c): alpha 4 MSS, fair 5 MSS, eta 0.15 MSS, fast 0.25, times a. */
#define NF_ALPHA_MSS 4.0
#define NF_FI_MSS 5.0
#define NF_ETA_MSS 0.15
#define NF_FAST_SCALE 0.25
#define NF_FULFILL_PKTS 8u
#define NF_FAST_DELAY_NS 1000u

struct nscc_fixed_global {
    uint32_t mtu_bytes;          /* also the minimum window */
    uint32_t target_ns;          /* target_Qdelay */
    uint32_t qa_threshold_ns;    /* 4 x target */
    uint32_t network_rtt_ns;
    uint32_t fulfill_bytes;
    uint32_t alpha_q16;          /* proportional: bytes^2 per byte acked per ns of headroom, Q16 */
    uint32_t fi_q8;              /* fair: bytes^2 per byte acked, Q8 */
    uint32_t eta_bytes;
    uint32_t fast_q16;           /* fast increase: bytes per byte acked, Q16 */
    uint32_t maxwnd_q16;         /* maxwnd bytes per ns of base RTT, Q16 */
    uint32_t alpha_ewma_q24;     /* 209715 = 0.0125 (Q16's 819 biased the filter: see below) */
    uint16_t gamma_q16;          /* 52429 = 0.8 */
    uint16_t q3_keep_q16;        /* 1 - q3_pressure (used when NF_Q3) */
    uint8_t qa_gate;
    uint8_t flags;               /* NF_QA, NF_QA_IGNORE, NF_FI, NF_Q3 */
} __attribute__((packed));

enum { NF_QA = 1, NF_QA_IGNORE = 2, NF_FI = 4, NF_Q3 = 8 };
enum { NF_INCREASING = 1, NF_TRIGGER_QA = 2 };

struct nscc_fixed_flow {
    uint32_t cwnd_bytes;
    uint32_t base_rtt_ns;
    uint32_t avg_delay_q8;       /* ns x 256 */
    uint32_t inc_256;            /* pending increase, units of 256 bytes^2 */
    uint32_t received_bytes;     /* since the last fulfill */
    uint32_t achieved_bytes;     /* in this Quick Adapt period */
    uint32_t fi_count_bytes;
    uint32_t ignore_left_bytes;  /* bytes_to_ignore - bytes_ignored, floored at 0 */
    uint32_t last_adjust_ns, last_dec_ns, last_q3_dec_ns, qa_end_ns;
    uint8_t flags;               /* NF_INCREASING, NF_TRIGGER_QA */
} __attribute__((packed));

struct nscc_fixed {
    struct cc_window win; /* must be first; the simulator's mirror, not NIC state */
    struct nscc_fixed_global g;
    struct nscc_fixed_flow f;
};

void nscc_fixed_sizes(size_t *flow, size_t *global)
{
    *flow = sizeof(struct nscc_fixed_flow);
    *global = sizeof(struct nscc_fixed_global);
}

static uint32_t u32_of(double v)
{
    return v <= 0 ? 0 : v >= 4294967295.0 ? UINT32_MAX : (uint32_t)llround(v);
}

static uint32_t sat_sub(uint32_t a, uint64_t b)
{
    return a > b ? a - (uint32_t)b : 0;
}

static uint32_t sat_add(uint32_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

/* A duration (RTT) in ns, saturated. */
static uint32_t ns_of(simtime_ps t)
{
    uint64_t ns = t / 1000;
    return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

/* An instant: the NIC's free-running ns clock, modulo 2^32. */
static uint32_t clock_ns(simtime_ps t)
{
    return (uint32_t)(t / 1000);
}

static uint32_t maxwnd_of(const struct nscc_fixed *n)
{
    uint64_t m = ((uint64_t)n->f.base_rtt_ns * n->g.maxwnd_q16) >> 16;
    if (m < n->g.mtu_bytes)
        m = n->g.mtu_bytes;
    return m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
}

static void publish(struct nscc_fixed *n, uint32_t maxwnd)
{
    n->win.cwnd_bytes = n->f.cwnd_bytes;
    n->win.maxwnd_bytes = maxwnd;
}

static uint32_t clamp(struct nscc_fixed *n)
{
    uint32_t m = maxwnd_of(n);
    if (n->f.cwnd_bytes > m)
        n->f.cwnd_bytes = m;
    if (n->f.cwnd_bytes < n->g.mtu_bytes)
        n->f.cwnd_bytes = n->g.mtu_bytes;
    return m;
}

static void nf_init(void *state, const struct cc_params *p)
{
    struct nscc_fixed *n = state;
    struct nscc_fixed_global *g = &n->g;
    g->mtu_bytes = p->mtu_bytes;
    double net_rtt_ns = (double)p->network_rtt_ps / 1000.0;
    double target_ps = p->target_qdelay_ps ? (double)p->target_qdelay_ps
                                           : (double)llround((double)p->network_rtt_ps *
                                                             (p->trimming ? NF_TARGET_TRIM : NF_TARGET_NOTRIM));
    g->target_ns = (uint32_t)(target_ps / 1000.0);
    g->qa_threshold_ns = NF_QA_DELAY_MULT * g->target_ns;
    g->network_rtt_ns = (uint32_t)net_rtt_ns;
    g->fulfill_bytes = NF_FULFILL_PKTS * p->mtu_bytes;
    int gate = p->qa_gate < 0 ? NF_QA_GATE_DEFAULT : p->qa_gate;
    g->qa_gate = (uint8_t)gate;
    g->flags = (uint8_t)((cc_opt_uint(p, "quick_adapt", 1, 0, 1) ? NF_QA : 0) |
                         (cc_opt_uint(p, "qa_ignore", 1, 0, 1) ? NF_QA_IGNORE : 0) |
                         (cc_opt_uint(p, "fast_increase", 1, 0, 1) ? NF_FI : 0) | (p->q3_pressure > 0 ? NF_Q3 : 0));
    /* a = BDP / reference BDP, BDP as nscc.c's bdp_of (whole bytes) */
    double bdp = floor((double)p->network_rtt_ps * p->linkspeed_mbps / 8e6);
    double a = bdp / NF_REF_BDP_BYTES;
    /* alpha per ps = 4 MSS a / reference RTT; per ns x 1000 */
    g->alpha_q16 = u32_of(NF_ALPHA_MSS * p->mss_bytes * a / NF_REF_RTT_NS * 65536.0);
    g->fi_q8 = u32_of(NF_FI_MSS * p->mss_bytes * a * 256.0);
    g->eta_bytes = (uint32_t)(NF_ETA_MSS * p->mss_bytes * a);
    g->fast_q16 = u32_of(NF_FAST_SCALE * a * 65536.0);
    g->maxwnd_q16 = u32_of(NF_MAXWND_BDP * p->linkspeed_mbps / 8000.0 * 65536.0);
    g->alpha_ewma_q24 = (uint32_t)lround(NF_DELAY_ALPHA * 16777216.0);
    g->gamma_q16 = (uint16_t)lround(NF_GAMMA * 65536.0);
    g->q3_keep_q16 = (uint16_t)fmin(65535.0, (double)lround((1.0 - fmin(p->q3_pressure, 0.5)) * 65536.0));

    struct nscc_fixed_flow *f = &n->f;
    *f = (struct nscc_fixed_flow){0};
    f->base_rtt_ns = ns_of(p->base_rtt_ps);
    uint32_t m = maxwnd_of(n);
    uint64_t init = p->init_cwnd_bytes ? p->init_cwnd_bytes : m;
    f->cwnd_bytes = init > UINT32_MAX ? UINT32_MAX : (uint32_t)init;
    if (f->cwnd_bytes < g->mtu_bytes)
        f->cwnd_bytes = g->mtu_bytes;
    publish(n, m);
}

static void update_base_rtt(struct nscc_fixed *n, uint32_t raw_ns)
{
    if (raw_ns < n->f.base_rtt_ns && raw_ns != 0)
        n->f.base_rtt_ns = raw_ns;
}

/* avg += w (x - avg), x and avg in ns Q8, w = 209715/2^24, rounded */
static void ewma(struct nscc_fixed *n, uint32_t x_q8)
{
    int64_t d = (int64_t)x_q8 - (int64_t)n->f.avg_delay_q8;
    int64_t step = (d * n->g.alpha_ewma_q24 + (1 << 23)) >> 24;
    n->f.avg_delay_q8 = (uint32_t)((int64_t)n->f.avg_delay_q8 + step);
}

/* seed 002 Sec. 4d: the three-case EWMA with trust bias (as nscc.c). */
static void update_avg_delay(struct nscc_fixed *n, uint32_t delay_ns, bool ecn)
{
    if (!ecn && delay_ns > n->g.target_ns)
        ewma(n, n->f.base_rtt_ns << 6); /* base_rtt / 4 in Q8 */
    else
        ewma(n, delay_ns > (UINT32_MAX >> 8) ? UINT32_MAX : delay_ns << 8); /* emergency weight = normal weight */
}

static bool after(uint32_t now, uint32_t t) /* now > t, modulo 2^32 */
{
    return (int32_t)(now - t) > 0;
}

static bool quick_adapt(struct nscc_fixed *n, uint32_t now, bool is_loss, bool ecn, uint32_t delay_ns,
                        uint64_t in_flight)
{
    struct nscc_fixed_flow *f = &n->f;
    if (!(n->g.flags & NF_QA))
        return false;
    if (f->ignore_left_bytes && ecn)
        return true;
    if (f->qa_end_ns == 0 || after(now, f->qa_end_ns)) {
        bool fire = f->qa_end_ns != 0 && ((f->flags & NF_TRIGGER_QA) || is_loss || delay_ns > n->g.qa_threshold_ns) &&
                    f->achieved_bytes < (maxwnd_of(n) >> n->g.qa_gate);
        if (fire) {
            f->cwnd_bytes = f->achieved_bytes > n->g.mtu_bytes ? f->achieved_bytes : n->g.mtu_bytes;
            f->ignore_left_bytes = (n->g.flags & NF_QA_IGNORE) ? sat_add(0, in_flight) : 0;
            f->flags &= (uint8_t)~NF_TRIGGER_QA;
        }
        f->achieved_bytes = 0;
        f->qa_end_ns = now + f->base_rtt_ns + n->g.target_ns;
        if (f->qa_end_ns == 0)
            f->qa_end_ns = 1;
        if (fire) {
            f->inc_256 = 0;
            f->received_bytes = 0;
            return true;
        }
    }
    return false;
}

static bool fast_increase(struct nscc_fixed *n, uint32_t newly, uint32_t delay_ns)
{
    struct nscc_fixed_flow *f = &n->f;
    if (!(n->g.flags & NF_FI))
        return false;
    if (delay_ns < NF_FAST_DELAY_NS) {
        f->fi_count_bytes = sat_add(f->fi_count_bytes, newly);
        if (f->fi_count_bytes > f->cwnd_bytes || (f->flags & NF_INCREASING)) {
            f->cwnd_bytes = sat_add(f->cwnd_bytes, ((uint64_t)newly * n->g.fast_q16) >> 16);
            f->flags |= NF_INCREASING;
            return true;
        }
    } else {
        f->fi_count_bytes = 0;
    }
    f->flags &= (uint8_t)~NF_INCREASING;
    return false;
}

/* seed 002 Sec. 3b: kept = max(1 - 0.8 (avg_rtt - target_rtt) / avg_rtt, 0.5), once per base RTT. */
static void multiplicative_decrease(struct nscc_fixed *n, uint32_t now)
{
    struct nscc_fixed_flow *f = &n->f;
    f->flags &= (uint8_t)~NF_INCREASING;
    f->fi_count_bytes = 0;
    if (f->avg_delay_q8 <= (uint64_t)n->g.target_ns << 8)
        return;
    if (f->last_dec_ns != 0 && now - f->last_dec_ns <= f->base_rtt_ns)
        return;
    uint64_t avg_rtt_q8 = ((uint64_t)f->base_rtt_ns << 8) + f->avg_delay_q8;
    uint64_t excess_q8 = f->avg_delay_q8 - ((uint64_t)n->g.target_ns << 8); /* avg_rtt - target_rtt */
    uint64_t cut_q16 = (excess_q8 * n->g.gamma_q16) / avg_rtt_q8; /* the division */
    uint64_t keep_q16 = cut_q16 >= 65536 - NF_MD_MIN_KEEP_Q16 ? NF_MD_MIN_KEEP_Q16 : 65536 - cut_q16;
    f->cwnd_bytes = (uint32_t)(((uint64_t)f->cwnd_bytes * keep_q16) >> 16);
    if (f->cwnd_bytes < n->g.mtu_bytes)
        f->cwnd_bytes = n->g.mtu_bytes;
    f->last_dec_ns = now ? now : 1;
}

static void fulfill(struct nscc_fixed *n, uint32_t now)
{
    struct nscc_fixed_flow *f = &n->f;
    f->cwnd_bytes = sat_add(f->cwnd_bytes, ((uint64_t)f->inc_256 << 8) / f->cwnd_bytes); /* the division */
    if (now - f->last_adjust_ns >= n->g.network_rtt_ns) {
        f->cwnd_bytes = sat_add(f->cwnd_bytes, n->g.eta_bytes);
        f->last_adjust_ns = now;
    }
    f->inc_256 = 0;
    f->received_bytes = 0;
}

static void nf_on_ack(void *state, const struct cc_ack *a)
{
    struct nscc_fixed *n = state;
    struct nscc_fixed_flow *f = &n->f;
    uint32_t now = clock_ns(a->now);
    uint32_t delay;
    uint32_t raw = ns_of(a->raw_rtt_ps);
    if (a->rtt_valid)
        update_base_rtt(n, raw);
    if (a->rtt_valid && raw >= f->base_rtt_ns) {
        delay = raw - f->base_rtt_ns;
        update_avg_delay(n, delay, a->ecn);
    } else {
        delay = f->avg_delay_q8 >> 8;
    }
    uint32_t newly = a->newly_acked_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)a->newly_acked_bytes;
    f->achieved_bytes = sat_add(f->achieved_bytes, newly);
    f->received_bytes = sat_add(f->received_bytes, newly);
    f->ignore_left_bytes = sat_sub(f->ignore_left_bytes, newly);

    if (quick_adapt(n, now, false, a->ecn, delay, a->in_flight_bytes)) {
        publish(n, maxwnd_of(n));
        return;
    }
    bool high = delay >= n->g.target_ns;
    if (!a->ecn && !high) {
        if (!fast_increase(n, newly, delay)) {
            uint64_t inc = ((uint64_t)newly * (n->g.target_ns - delay) * n->g.alpha_q16) >> 24;
            f->inc_256 = sat_add(f->inc_256, inc);
        }
    } else if (!a->ecn) {
        f->inc_256 = sat_add(f->inc_256, ((uint64_t)newly * n->g.fi_q8) >> 16);
    } else if (high) {
        multiplicative_decrease(n, now);
    } else if ((n->g.flags & NF_Q3) && (f->last_q3_dec_ns == 0 || now - f->last_q3_dec_ns > f->base_rtt_ns)) {
        f->cwnd_bytes = (uint32_t)(((uint64_t)f->cwnd_bytes * n->g.q3_keep_q16) >> 16);
        f->last_q3_dec_ns = now ? now : 1;
    }
    uint32_t m = clamp(n);
    if (f->received_bytes > n->g.fulfill_bytes || now - f->last_adjust_ns > n->g.network_rtt_ns) {
        fulfill(n, now);
        m = clamp(n);
    }
    publish(n, m);
}

static void nf_on_nack(void *state, const struct cc_nack *k)
{
    struct nscc_fixed *n = state;
    struct nscc_fixed_flow *f = &n->f;
    uint32_t now = clock_ns(k->now);
    update_base_rtt(n, ns_of(k->raw_rtt_ps));
    f->ignore_left_bytes = sat_sub(f->ignore_left_bytes, k->pkt_bytes);
    /* a trim: the filter is fed one network RTT of delay (as nscc.c) */
    update_avg_delay(n, n->g.network_rtt_ns, true);
    f->flags |= NF_TRIGGER_QA;
    if (quick_adapt(n, now, true, true, 0, k->in_flight_bytes)) {
        publish(n, maxwnd_of(n));
        return;
    }
    f->cwnd_bytes = sat_sub(f->cwnd_bytes, k->pkt_bytes);
    publish(n, clamp(n));
}

static void nf_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct nscc_fixed *n = state;
    (void)now;
    n->f.cwnd_bytes = sat_sub(n->f.cwnd_bytes, pkt_bytes);
    publish(n, clamp(n));
}

static const char *const nf_option_names[] = {"quick_adapt", "qa_ignore", "fast_increase", NULL};

const struct cc_ops cc_nscc_fixed_ops = {
    .name = "nscc-fixed",
    .description = "NSCC with NIC-style fixed-width integer state, no floating point per ACK (issue 12)",
    .state_size = sizeof(struct nscc_fixed),
    .init = nf_init,
    .option_names = nf_option_names,
    .on_ack = nf_on_ack,
    .on_nack = nf_on_nack,
    .on_timeout = nf_on_timeout,
};
