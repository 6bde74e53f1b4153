/* dctcp.c: Data Center TCP (Alizadeh et al., SIGCOMM 2010; RFC 8257), the
 * ECN-fraction TCP of seed 004's model (Table I, Thm. 2, Appendix A).
 *
 * The sender estimates alpha, the fraction of bytes that carried CE, once
 * per window of data (RFC 8257 Sec. 3.3): it counts bytes acknowledged and
 * bytes acknowledged with ECN-Echo until the bytes outstanding when the
 * window began are acknowledged, then
 *     alpha = (1 - g) alpha + g F,   F = marked / acked,   g = 1/16,
 * alpha starting at 1 (RFC 8257 Sec. 3.3; Linux and FreeBSD default). On an
 * ECN-Echo, at most once per window of data (RFC 3168 Sec. 6.1.2):
 *     cwnd = cwnd (1 - alpha/2),   ssthresh = cwnd.
 * Otherwise the window grows as TCP's (RFC 5681): by the bytes acknowledged
 * in slow start (cwnd < ssthresh), by mtu x acked / cwnd (1 MSS per RTT) in
 * congestion avoidance; it does not grow in the window after a cut.
 * Loss: three duplicate ACKs (the transport's detection, on_loss once per
 * recovery) or a trimmed packet's NACK halve the window, at most once per
 * window of data; a timeout sets ssthresh = max(cwnd/2, 2 MTU), cwnd = 1 MTU.
 *
 * "Window of data" is measured in bytes: the transport reports bytes newly
 * acknowledged and bytes in flight, so SND.UNA is the running sum of
 * acknowledged bytes and SND.NXT is SND.UNA + in flight. Windows count
 * whole packets on the wire (MSS here means one MTU).
 * Initial window: cc_params.init_cwnd_bytes (-cwnd) or, by default, one BDP
 * of the network's base RTT (a datacenter sender starts at line rate, like
 * NSCC); ssthresh starts unbounded (RFC 5681 Sec. 3.1), so slow start runs
 * until the first ECN-Echo or loss.
 */
#include "cc.h"

#include <math.h>

/* RFC 8257 Sec. 3.3 / SIGCOMM'10 Sec. 3.1: g = 1/16. */
#define DC_G (1.0 / 16)
/* RFC 8257 Sec. 3.3: alpha is initialised to 1. */
#define DC_ALPHA_INIT 1.0
/* RFC 5681 Sec. 3.1: ssthresh after a timeout is at least 2 segments. */
#define DC_MIN_SSTHRESH_PKTS 2

enum { DC_SS_INC, DC_AI_INC, DC_ECN_DEC, DC_LOSS_DEC, DC_RTO_DEC, DC_COUNT };

static const char *const dctcp_counter_names[DC_COUNT] = {
    "ss_inc", "ai_inc", "ecn_dec", "loss_dec", "rto_dec",
};

static const char *const dctcp_option_names[] = {"g", "alpha_init", NULL};

struct dctcp {
    struct cc_window win; /* must be first */
    double cwnd;
    double ssthresh;
    uint32_t mtu;
    double g;
    double alpha;
    uint64_t una;          /* bytes acknowledged so far (SND.UNA) */
    uint64_t window_end;   /* alpha observation window ends when una passes this */
    uint64_t bytes_acked, bytes_marked;
    uint64_t cut_end;      /* no further cut until una reaches this */
    bool cut_pending;      /* a cut happened and cut_end is not reached */
    double ctr[DC_COUNT];
};

static void clamp(struct dctcp *d)
{
    if (d->cwnd < d->mtu)
        d->cwnd = d->mtu;
    d->win.cwnd_bytes = (uint64_t)d->cwnd;
}

static void dctcp_init(void *state, const struct cc_params *p)
{
    struct dctcp *d = state;
    d->mtu = p->mtu_bytes;
    d->g = cc_opt(p, "g", DC_G);
    if (!(d->g > 0 && d->g <= 1))
        die_input("--cc-opt g=%g: dctcp needs 0 < g <= 1", d->g);
    d->alpha = cc_opt(p, "alpha_init", DC_ALPHA_INIT);
    if (!(d->alpha >= 0 && d->alpha <= 1))
        die_input("--cc-opt alpha_init=%g: dctcp needs 0 <= alpha_init <= 1", d->alpha);
    double bdp = (double)p->base_rtt_ps * p->linkspeed_mbps / 8e6;
    d->cwnd = p->init_cwnd_bytes ? (double)p->init_cwnd_bytes : bdp;
    d->ssthresh = INFINITY;
    clamp(d);
}

/* Returns true when a window reduction is allowed now, and starts the
 * reduction window (everything now outstanding must be acknowledged before
 * the next one). */
static bool start_cut(struct dctcp *d, uint64_t in_flight)
{
    if (d->cut_pending && d->una < d->cut_end)
        return false;
    d->cut_pending = true;
    d->cut_end = d->una + in_flight;
    return true;
}

static void dctcp_on_ack(void *state, const struct cc_ack *a)
{
    struct dctcp *d = state;
    uint64_t n = a->newly_acked_bytes;
    d->una += n;
    d->bytes_acked += n;
    if (a->ecn)
        d->bytes_marked += n;
    /* RFC 8257 Sec. 3.3: one alpha update per window of data */
    if (d->una > d->window_end) {
        double f = d->bytes_acked ? (double)d->bytes_marked / (double)d->bytes_acked : 0;
        d->alpha = (1 - d->g) * d->alpha + d->g * f;
        d->window_end = d->una + a->in_flight_bytes;
        d->bytes_acked = d->bytes_marked = 0;
    }
    double before = d->cwnd;
    if (a->ecn) {
        if (start_cut(d, a->in_flight_bytes)) {
            d->cwnd = d->cwnd * (1 - d->alpha / 2);
            clamp(d);
            d->ssthresh = d->cwnd;
            d->ctr[DC_ECN_DEC] += before - d->cwnd;
        }
        return;
    }
    if (d->cut_pending && d->una < d->cut_end)
        return; /* no growth in the window after a reduction */
    d->cut_pending = false;
    if (n == 0)
        return;
    if (d->cwnd < d->ssthresh) {
        double add = (double)n;
        if (d->cwnd + add > d->ssthresh)
            add = d->ssthresh - d->cwnd;
        d->cwnd += add;
        d->ctr[DC_SS_INC] += add;
    } else {
        double add = (double)d->mtu * (double)n / d->cwnd;
        d->cwnd += add;
        d->ctr[DC_AI_INC] += add;
    }
    clamp(d);
}

static void halve(struct dctcp *d, uint64_t in_flight)
{
    if (!start_cut(d, in_flight))
        return;
    double before = d->cwnd;
    d->cwnd /= 2;
    clamp(d);
    d->ssthresh = d->cwnd;
    d->ctr[DC_LOSS_DEC] += before - d->cwnd;
}

static void dctcp_on_loss(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct dctcp *d = state;
    (void)now;
    (void)pkt_bytes;
    halve(d, (uint64_t)d->cwnd);
}

static void dctcp_on_nack(void *state, const struct cc_nack *k)
{
    halve(state, k->in_flight_bytes);
}

static void dctcp_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct dctcp *d = state;
    (void)now;
    (void)pkt_bytes;
    double before = d->cwnd;
    double ss = d->cwnd / 2;
    if (ss < DC_MIN_SSTHRESH_PKTS * (double)d->mtu)
        ss = DC_MIN_SSTHRESH_PKTS * (double)d->mtu;
    d->ssthresh = ss;
    d->cwnd = d->mtu;
    d->cut_pending = false;
    clamp(d);
    d->ctr[DC_RTO_DEC] += before - d->cwnd;
}

static void dctcp_counters(const void *state, double *out)
{
    const struct dctcp *d = state;
    for (int i = 0; i < DC_COUNT; i++)
        out[i] = d->ctr[i];
}

const struct cc_ops cc_dctcp_ops = {
    .name = "dctcp",
    .description = "DCTCP: TCP with per-window ECN-fraction cuts, g = 1/16 (RFC 8257)",
    .state_size = sizeof(struct dctcp),
    .init = dctcp_init,
    .on_ack = dctcp_on_ack,
    .on_nack = dctcp_on_nack,
    .on_timeout = dctcp_on_timeout,
    .on_loss = dctcp_on_loss,
    .loss_mode = CC_LOSS_DUPACK,
    .timestamp_echo = true,
    .dupack_threshold = 3,
    .option_names = dctcp_option_names,
    .n_counters = DC_COUNT,
    .counter_names = dctcp_counter_names,
    .counters = dctcp_counters,
};
