/* smartt_fixed.c: SMaRTT (smartt.c, seed 003) as a NIC would run it:
 * fixed-width integer state and no floating point on the ACK, NACK or
 * timeout path (issue 12 item 5; seed 000 Sec. III-H claims 19 bytes per flow
 * and 59-94 instructions per ACK). Same algorithm and defaults as `--cc
 * smartt`, with its numeric options (maxwnd_bdp, md, fd, fi, k, qa_scaling,
 * wtd_alpha, wtd_threshold, trtt_mult) and its ablation switches
 * (quick_adapt, qa_ignore, fast_increase, fair_increase); the journal's
 * md_form=1 and the single-signal and react_every variants are not carried
 * (sim.c rejects those options for this module). The float version is the
 * reference; tests/test_cc_fixed.c checks the windows against it.
 *
 * Number formats. The window is uint32_t bytes in Q8 (1/256 byte; the
 * transport sees its floor, as smartt.c's win.cwnd_bytes is the floor of its
 * double), so windows up to 16 MB. Times are uint32_t nanoseconds (the
 * event's ps truncated), compared modulo 2^32; 0 = "never" as in smartt.c.
 * Byte counters are uint32_t. The Wait-to-Decrease EWMA is uint32_t Q24 (Q16
 * in a uint16_t would save 2 bytes, but its 2^-16 steps flip the avg >= 0.25
 * decision against the float often enough to move the window by a whole
 * decrease, about 1.4%, in tests/test_cc_fixed.c's random mixes). trtt is
 * taken in 1/16 ns, so the rtt > trtt test on whole-ns samples is the one
 * smartt.c makes on ps (trtt = 1.5 brtt falls on half ns). The base RTT is
 * the one per-flow path quantity kept; trtt, bdp, gamma, maxwnd and the
 * constants of Eqs. 1, 3 and 4 are a multiply of it by a per-host constant
 * (struct smartt_fixed_global, derived at init with doubles: trtt_mult Q16,
 * maxwnd bytes per ns Q16, fd / bytes-per-ns Q24, mtu fi gamma per ns Q24,
 * mtu mi gamma per ns Q24, md Q16, k mtu Q8, qa_scaling Q16, 1 - wtd_alpha
 * Q24, the FastIncrease bound 1.05 Q16, and 1/(2 mtu) Q32 to count packets in
 * a coalesced ACK).
 *
 * Where rounding differs from smartt.c: times lose their sub-ns part (trtt is
 * rounded to 1/16 ns, the QuickAdapt period end to ns); each window change is
 * truncated to 1/256 byte; the constants above carry a relative error below
 * 2^-16 (Q16) or 2^-20 (Q24 at the usual speeds); (1 - wtd_alpha)^n is
 * computed by repeated squaring in Q24 instead of pow(), and the EWMA update
 * is rounded to 2^-24; mi uses 1/(trtt_mult - 1) for brtt/(trtt - brtt)
 * (smartt.c rounds trtt to the ps first). Divisions that remain on the ACK
 * path: Eq. 1's window / bdp (by the base RTT), Eqs. 3-4's size / window (by
 * the window) and Eqs. 2 and 4's delay / rtt (by the sample); a NIC would use
 * a reciprocal table for each. No division on NACKs or timeouts.
 *
 * State. The NIC keeps `struct smartt_fixed_flow` per flow (packed) and one
 * `struct smartt_fixed_global` per host; the simulator's module state is
 * {struct cc_window, global, flow}, where the cc_window (24 bytes) is the
 * transport's 64-bit mirror of the window, not NIC state, and the global
 * part is copied into each flow only because the ops interface has no
 * per-host storage. Sizes: 33 bytes per flow, 57 per host
 * (smartt_fixed_sizes()).
 */
#include "cc.h"
#include "cc_fixed.h"

#include <math.h>

/* The constants of smartt.c (each cited there: seed 003 Secs. 3.2-3.6, seed 000 III-E). */
#define SF_REF_BDP_BYTES 150000.0
#define SF_TRTT_MULT 1.5
#define SF_MAXWND_BDP 1.25
#define SF_MD 2.0
#define SF_FD 0.8
#define SF_FI 0.25
#define SF_MD_NOTRIM_FACTOR 2.0
#define SF_FAST_K 2.0
#define SF_QA_SCALING 0.8
#define SF_WTD_THRESHOLD 0.25
#define SF_WTD_ALPHA (1.0 / 16)
#define SF_FAST_RTT_SLACK 0.05
/* QuickAdapt without trimming: rtt > 2 trtt, acked < cwnd / 2 (shifts below). */

enum { SF_TRIMMING = 1, SF_QA = 2, SF_QA_IGNORE = 4, SF_FI_ON = 8, SF_FAIR_INC = 16 };
enum { SF_TRIGGER_QA = 1, SF_DELAY_HIGH = 2, SF_INCREASING = 4 };

struct smartt_fixed_global {
    uint32_t mtu_bytes;
    uint32_t trtt_q16;       /* trtt / brtt */
    uint32_t maxwnd_q16;     /* maxwnd bytes per ns of base RTT */
    uint32_t fd_q24;         /* fd / (bytes per ns): Eq. 1 = cwnd size / brtt x this */
    uint32_t fi_q24;         /* mtu fi gamma per ns of base RTT (Eq. 3), bytes^2 */
    uint32_t fi_net_q16;     /* mtu fi gamma of the network RTT (fair_increase=0), bytes^2 */
    uint32_t mi_q24;         /* mtu mi gamma per ns of base RTT (Eq. 4), bytes^2 */
    uint32_t md_q16;
    uint32_t k_q8;           /* FastIncrease step: k mtu, bytes Q8 */
    uint32_t fast_q16;       /* rtt <= brtt x 1.05 */
    uint32_t inv_2mtu_q32;   /* packets in a coalesced ACK: (2 size + mtu) / (2 mtu) */
    uint32_t wtd_keep_q24;   /* 1 - wtd_alpha */
    uint32_t qa_scaling_q16;
    uint32_t wtd_threshold_q24;
    uint8_t flags;           /* SF_TRIMMING, SF_QA, SF_QA_IGNORE, SF_FI_ON, SF_FAIR_INC */
} __attribute__((packed));

struct smartt_fixed_flow {
    uint32_t cwnd_q8;
    uint32_t brtt_ns;
    uint32_t last_rtt_ns;
    uint32_t qa_end_ns;
    uint32_t acked_bytes;       /* in this QuickAdapt period */
    uint32_t ignore_left_bytes; /* bytes_to_ignore - bytes_ignored, floored at 0 */
    uint32_t fi_count_bytes;
    uint32_t avg_wtd_q24;
    uint8_t flags;              /* SF_TRIGGER_QA, SF_DELAY_HIGH, SF_INCREASING */
} __attribute__((packed));

struct smartt_fixed {
    struct cc_window win; /* must be first; the simulator's mirror, not NIC state */
    struct smartt_fixed_global g;
    struct smartt_fixed_flow f;
};

void smartt_fixed_sizes(size_t *flow, size_t *global)
{
    *flow = sizeof(struct smartt_fixed_flow);
    *global = sizeof(struct smartt_fixed_global);
}

static const char *const sf_option_names[] = {
    "maxwnd_bdp", "md", "fd", "fi", "k", "qa_scaling", "wtd_alpha", "wtd_threshold", "trtt_mult",
    "quick_adapt", "qa_ignore", "fast_increase", "fair_increase", NULL,
};

static double opt_in(const struct cc_params *p, const char *name, double def, double lo, double hi)
{
    double v = cc_opt(p, name, def);
    if (!(v >= lo && v <= hi))
        die_input("--cc-opt %s=%g: out of range [%g, %g] for smartt-fixed", name, v, lo, hi);
    return v;
}

static uint32_t q(double v, double scale)
{
    double x = v * scale;
    return x <= 0 ? 0 : x >= 4294967295.0 ? UINT32_MAX : (uint32_t)llround(x);
}

static uint32_t sat_add(uint32_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

static uint32_t sat_sub(uint32_t a, uint64_t b)
{
    return a > b ? a - (uint32_t)b : 0;
}

/* a x b, saturated: a multiply and an overflow flag (the operands stay far
 * below 2^64 with the default parameters; extreme --cc-opt values saturate). */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
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

/* trtt in 1/16 ns: an RTT sample (whole ns) is compared with it exactly as
 * smartt.c compares ps (trtt = 1.5 brtt falls on half ns). */
static uint64_t trtt_q4_of(const struct smartt_fixed *s)
{
    return ((uint64_t)s->f.brtt_ns * s->g.trtt_q16 + (1u << 11)) >> 12;
}

static uint32_t trtt_of(const struct smartt_fixed *s)
{
    return (uint32_t)((trtt_q4_of(s) + 8) >> 4);
}

static uint32_t maxwnd_q8_of(const struct smartt_fixed *s)
{
    uint64_t m = ((uint64_t)s->f.brtt_ns * s->g.maxwnd_q16) >> 8;
    uint64_t lo = (uint64_t)s->g.mtu_bytes << 8;
    if (m < lo)
        m = lo;
    return m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
}

static void clamp(struct smartt_fixed *s)
{
    uint32_t m = maxwnd_q8_of(s);
    uint32_t lo = s->g.mtu_bytes << 8;
    if (s->f.cwnd_q8 > m)
        s->f.cwnd_q8 = m;
    if (s->f.cwnd_q8 < lo)
        s->f.cwnd_q8 = lo;
}

/* The transport's copy, once per event (not NIC work). */
static void publish(struct smartt_fixed *s)
{
    s->win.cwnd_bytes = s->f.cwnd_q8 >> 8;
    s->win.maxwnd_bytes = maxwnd_q8_of(s) >> 8;
}

static void sf_init(void *state, const struct cc_params *p)
{
    struct smartt_fixed *s = state;
    struct smartt_fixed_global *g = &s->g;
    double mw_bdp = opt_in(p, "maxwnd_bdp", SF_MAXWND_BDP, 0.01, 1000);
    double md = opt_in(p, "md", SF_MD * (p->trimming ? 1 : SF_MD_NOTRIM_FACTOR), 0, 1000);
    double fd = p->fair_decrease_off ? 0 : opt_in(p, "fd", SF_FD, 0, 1000); /* -disable_fd */
    double fi = opt_in(p, "fi", SF_FI, 0, 1000);
    double k = opt_in(p, "k", SF_FAST_K, 0, 1000);
    double qa_scaling = opt_in(p, "qa_scaling", SF_QA_SCALING, 0.01, 10);
    double wtd_alpha = opt_in(p, "wtd_alpha", SF_WTD_ALPHA, 0, 1);
    double wtd_threshold = opt_in(p, "wtd_threshold", SF_WTD_THRESHOLD, 0, 1);
    double trtt_mult = opt_in(p, "trtt_mult", SF_TRTT_MULT, 1.01, 100);
    bool fi_on = cc_opt_uint(p, "fast_increase", 1, 0, 1) && k > 0;
    g->flags = (uint8_t)((p->trimming ? SF_TRIMMING : 0) | (cc_opt_uint(p, "quick_adapt", 1, 0, 1) ? SF_QA : 0) |
                         (cc_opt_uint(p, "qa_ignore", 1, 0, 1) ? SF_QA_IGNORE : 0) | (fi_on ? SF_FI_ON : 0) |
                         (cc_opt_uint(p, "fair_increase", 1, 0, 1) ? SF_FAIR_INC : 0));
    double bytes_per_ns = p->linkspeed_mbps / 8000.0;
    double gamma_per_ns = bytes_per_ns / SF_REF_BDP_BYTES; /* gamma = bdp / reference BDP */
    g->mtu_bytes = p->mtu_bytes;
    g->trtt_q16 = q(trtt_mult, 65536.0);
    g->maxwnd_q16 = q(mw_bdp * bytes_per_ns, 65536.0);
    g->fd_q24 = q(fd / bytes_per_ns, 16777216.0);
    g->fi_q24 = q(p->mtu_bytes * fi * gamma_per_ns, 16777216.0);
    g->fi_net_q16 = q(p->mtu_bytes * fi * gamma_per_ns * ((double)p->base_rtt_ps / 1000.0), 65536.0);
    g->mi_q24 = q(p->mtu_bytes * gamma_per_ns / (trtt_mult - 1), 16777216.0);
    g->md_q16 = q(md, 65536.0);
    g->k_q8 = q(k * p->mtu_bytes, 256.0);
    g->fast_q16 = q(1 + SF_FAST_RTT_SLACK, 65536.0);
    g->inv_2mtu_q32 = (uint32_t)(4294967296.0 / (2.0 * p->mtu_bytes)) + 1;
    g->wtd_keep_q24 = q(1 - wtd_alpha, 16777216.0);
    g->qa_scaling_q16 = q(qa_scaling, 65536.0);
    g->wtd_threshold_q24 = q(wtd_threshold, 16777216.0);

    struct smartt_fixed_flow *f = &s->f;
    *f = (struct smartt_fixed_flow){0};
    f->brtt_ns = ns_of(p->base_rtt_ps);
    f->last_rtt_ns = f->brtt_ns;
    uint64_t init = p->init_cwnd_bytes ? p->init_cwnd_bytes << 8 : maxwnd_q8_of(s);
    f->cwnd_q8 = init > UINT32_MAX ? UINT32_MAX : (uint32_t)init;
    clamp(s);
    publish(s);
}

static bool at_or_after(uint32_t now, uint32_t t) /* now >= t, modulo 2^32 */
{
    return (int32_t)(now - t) >= 0;
}

/* Alg. 2. */
static bool quick_adapt(struct smartt_fixed *s, uint32_t now, uint64_t in_flight)
{
    struct smartt_fixed_flow *f = &s->f;
    bool adapted = false;
    if (!(s->g.flags & SF_QA))
        return false;
    if (f->qa_end_ns == 0 || at_or_after(now, f->qa_end_ns)) {
        bool by_delay = !(s->g.flags & SF_TRIMMING) && (f->flags & SF_DELAY_HIGH) &&
                        ((uint64_t)f->acked_bytes << 9) < f->cwnd_q8; /* acked < cwnd / 2 */
        if (((f->flags & SF_TRIGGER_QA) || by_delay) && f->qa_end_ns != 0) {
            f->flags &= (uint8_t)~SF_TRIGGER_QA;
            adapted = true;
            uint32_t a = f->acked_bytes > s->g.mtu_bytes ? f->acked_bytes : s->g.mtu_bytes;
            uint64_t w = ((uint64_t)a * s->g.qa_scaling_q16) >> 8;
            f->cwnd_q8 = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
            clamp(s);
            f->ignore_left_bytes = (s->g.flags & SF_QA_IGNORE) ? sat_add(0, in_flight) : 0;
        }
        f->qa_end_ns = now + trtt_of(s);
        if (f->qa_end_ns == 0)
            f->qa_end_ns = 1;
        f->acked_bytes = 0;
        f->flags &= (uint8_t)~SF_DELAY_HIGH;
    }
    return adapted;
}

/* Alg. 3. */
static bool fast_increase(struct smartt_fixed *s, uint32_t size, uint32_t rtt, bool ecn)
{
    struct smartt_fixed_flow *f = &s->f;
    if (!(s->g.flags & SF_FI_ON))
        return false;
    if (!ecn && ((uint64_t)rtt << 16) <= (uint64_t)f->brtt_ns * s->g.fast_q16) {
        f->fi_count_bytes = sat_add(f->fi_count_bytes, size);
        if (((uint64_t)f->fi_count_bytes << 8) > f->cwnd_q8 || (f->flags & SF_INCREASING)) {
            f->cwnd_q8 = sat_add(f->cwnd_q8, s->g.k_q8);
            clamp(s);
            f->flags |= SF_INCREASING;
            return true;
        }
    } else {
        f->fi_count_bytes = 0;
        f->flags &= (uint8_t)~SF_INCREASING;
    }
    return (f->flags & SF_INCREASING) != 0;
}

uint64_t smartt_fixed_pow_q24(uint64_t keep_q24, uint32_t n)
{
    uint64_t keep = keep_q24, b = keep;
    for (n--; n; n >>= 1) { /* keep^n by squaring, each product rounded to nearest; n = 1 costs nothing */
        if (n & 1)
            keep = (keep * b + (1u << 23)) >> 24;
        b = (b * b + (1u << 23)) >> 24;
    }
    return keep;
}

/* Sec. 3.6.1: avg = keep^n avg + (1 - keep^n) ecn, n = packets acknowledged. */
static bool wait_to_decrease(struct smartt_fixed *s, uint32_t size, bool ecn)
{
    struct smartt_fixed_flow *f = &s->f;
    uint32_t n = size > s->g.mtu_bytes
                     ? (uint32_t)((((uint64_t)size * 2 + s->g.mtu_bytes) * s->g.inv_2mtu_q32) >> 32)
                     : 1;
    uint64_t keep = smartt_fixed_pow_q24(s->g.wtd_keep_q24, n);
    int64_t target = ecn ? 1 << 24 : 0;
    int64_t d = target - (int64_t)f->avg_wtd_q24;
    f->avg_wtd_q24 = (uint32_t)((int64_t)f->avg_wtd_q24 + ((d * (int64_t)((1 << 24) - keep) + (1 << 23)) >> 24));
    return f->avg_wtd_q24 >= s->g.wtd_threshold_q24;
}

/* Eq. 1: cwnd / bdp x fd x size, in Q8. */
static uint64_t fair_decrease_q8(const struct smartt_fixed *s, uint32_t size)
{
    uint64_t t = mul_sat(s->f.cwnd_q8, size) / s->f.brtt_ns;
    return mul_sat(t >> 8, s->g.fd_q24) >> 16;
}

/* Eq. 3: size / cwnd x mtu x fi x gamma, in Q8. */
static uint64_t fair_increase_q8(const struct smartt_fixed *s, uint32_t size)
{
    uint64_t g16 = (s->g.flags & SF_FAIR_INC) ? ((uint64_t)s->f.brtt_ns * s->g.fi_q24) >> 8 : s->g.fi_net_q16;
    return mul_sat(size, g16) / s->f.cwnd_q8;
}

static void on_ack(struct smartt_fixed *s, const struct cc_ack *a);

static void sf_on_ack(void *state, const struct cc_ack *a)
{
    on_ack(state, a);
    publish(state);
}

static void on_ack(struct smartt_fixed *s, const struct cc_ack *a)
{
    struct smartt_fixed_flow *f = &s->f;
    uint32_t size = a->newly_acked_bytes > (1u << 24) ? (1u << 24) : (uint32_t)a->newly_acked_bytes;
    uint32_t now = clock_ns(a->now);
    f->acked_bytes = sat_add(f->acked_bytes, size);
    f->ignore_left_bytes = sat_sub(f->ignore_left_bytes, size);
    if (a->rtt_valid && a->raw_rtt_ps > 0) {
        uint32_t raw = ns_of(a->raw_rtt_ps);
        if (raw < f->brtt_ns && raw > 0)
            f->brtt_ns = raw;
        f->last_rtt_ns = raw;
        if (!(s->g.flags & SF_TRIMMING) && ((uint64_t)raw << 4) > 2 * trtt_q4_of(s))
            f->flags |= SF_DELAY_HIGH;
    }
    if (f->ignore_left_bytes)
        return; /* Alg. 1 line 8 */
    if (size == 0)
        return;
    uint32_t rtt = f->last_rtt_ns;
    bool ecn = a->ecn;
    bool can_decrease = wait_to_decrease(s, size, ecn);
    bool adp = quick_adapt(s, now, a->in_flight_bytes);
    bool finc = fast_increase(s, size, rtt, ecn);
    if (adp || finc)
        return;
    uint64_t trtt_q4 = trtt_q4_of(s), rtt_q4 = (uint64_t)rtt << 4;
    bool high = rtt_q4 > trtt_q4;
    if (ecn && !high && can_decrease) {
        f->cwnd_q8 = sat_sub(f->cwnd_q8, fair_decrease_q8(s, size));
        clamp(s);
    } else if (ecn && high && can_decrease) {
        uint64_t frac_q16 = mul_sat(rtt_q4 - trtt_q4, s->g.md_q16) / rtt_q4; /* Eq. 2, the division */
        uint64_t md_q8 = frac_q16 >= 65536 ? (uint64_t)size << 8 : ((uint64_t)size * frac_q16) >> 8;
        f->cwnd_q8 = sat_sub(f->cwnd_q8, md_q8);
        clamp(s);
        f->cwnd_q8 = sat_sub(f->cwnd_q8, fair_decrease_q8(s, size));
        clamp(s);
    } else if (!ecn && high) {
        f->cwnd_q8 = sat_add(f->cwnd_q8, fair_increase_q8(s, size));
        clamp(s);
    } else if (!ecn) {
        uint64_t m16 = ((uint64_t)f->brtt_ns * s->g.mi_q24) >> 8;
        uint64_t x = mul_sat(size, m16) / f->cwnd_q8;           /* size / cwnd x mtu mi, Q8 */
        uint64_t mi_q8 = mul_sat(x, trtt_q4 - rtt_q4) / (rtt_q4 ? rtt_q4 : 1); /* x (trtt - rtt) / rtt */
        if (mi_q8 > (uint64_t)size << 8)
            mi_q8 = (uint64_t)size << 8;
        f->cwnd_q8 = sat_add(f->cwnd_q8, mi_q8 + fair_increase_q8(s, size));
        clamp(s);
    }
}

/* Alg. 1 lines 28-34; a trim or timeout during the ignore phase is ignored
 * (Sec. 3.3, as smartt.c's qa_ignore_loss=1, its default). */
static void loss_event(struct smartt_fixed *s, uint32_t now, uint32_t size, uint64_t in_flight)
{
    struct smartt_fixed_flow *f = &s->f;
    f->ignore_left_bytes = sat_sub(f->ignore_left_bytes, size);
    if (f->ignore_left_bytes)
        return;
    f->cwnd_q8 = sat_sub(f->cwnd_q8, (uint64_t)size << 8);
    clamp(s);
    f->flags |= SF_TRIGGER_QA;
    if (!f->ignore_left_bytes)
        quick_adapt(s, now, in_flight);
}

static void sf_on_nack(void *state, const struct cc_nack *k)
{
    struct smartt_fixed *s = state;
    uint32_t raw = ns_of(k->raw_rtt_ps);
    if (raw > 0 && raw < s->f.brtt_ns)
        s->f.brtt_ns = raw;
    loss_event(s, clock_ns(k->now), k->pkt_bytes, k->in_flight_bytes);
    publish(s);
}

static void sf_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct smartt_fixed *s = state;
    loss_event(s, clock_ns(now), pkt_bytes, s->f.cwnd_q8 >> 8);
    publish(s);
}

const struct cc_ops cc_smartt_fixed_ops = {
    .name = "smartt-fixed",
    .description = "SMaRTT with NIC-style fixed-width integer state, no floating point per ACK (issue 12)",
    .state_size = sizeof(struct smartt_fixed),
    .init = sf_init,
    .on_ack = sf_on_ack,
    .on_nack = sf_on_nack,
    .on_timeout = sf_on_timeout,
    .on_loss = NULL,
    .loss_mode = CC_LOSS_NACK_RTO,
    .option_names = sf_option_names,
};
