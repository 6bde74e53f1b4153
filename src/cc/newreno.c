/* newreno.c: TCP NewReno's window (RFC 5681 congestion control, RFC 6582
 * recovery), the reference point of seed 004 Thm. 1: with spraying, a
 * packet on a slow path produces three duplicate ACKs and so the same
 * halving as a loss (throughput MSS/T_s x 1.22/sqrt(q), the Mathis model).
 *
 * Slow start: while cwnd < ssthresh, cwnd grows by the bytes each ACK newly
 * acknowledges (byte counting, RFC 3465), doubling per RTT. Congestion
 * avoidance: cwnd += mtu x acked / cwnd, one MSS per RTT (RFC 5681 Sec. 3.1).
 * Fast retransmit: the transport declares the first hole lost after three
 * duplicate ACKs and calls on_loss once per recovery (it also retransmits on
 * partial ACKs, RFC 6582 Sec. 3.2 step 5); on_loss sets
 * ssthresh = max(cwnd/2, 2 MSS) and cwnd = ssthresh (the deflated window
 * RFC 6582 reaches at the end of recovery; the transport keeps no inflation).
 * The window does not grow until everything outstanding at the cut is
 * acknowledged (the recovery). A trimmed packet's NACK is a loss signal too,
 * with the same once-per-window cut. Timeout (RFC 5681 Sec. 3.1, RFC 6298):
 * ssthresh = max(cwnd/2, 2 MSS), cwnd = 1 MSS.
 *
 * Sizes are wire bytes, so "MSS" is one MTU here. Initial window:
 * cc_params.init_cwnd_bytes (-cwnd PKTS; -cwnd 10 gives RFC 6928's IW10) or
 * by default one BDP of the network's base RTT, a datacenter line-rate start
 * as NSCC's; ssthresh starts unbounded (RFC 5681 Sec. 3.1).
 */
#include "cc.h"

#include <math.h>

/* RFC 5681 Sec. 3.1 eq. (4): ssthresh >= 2 SMSS. */
#define NR_MIN_SSTHRESH_PKTS 2

enum { NR_SS_INC, NR_CA_INC, NR_LOSS_DEC, NR_NACK_DEC, NR_RTO_DEC, NR_COUNT };

static const char *const newreno_counter_names[NR_COUNT] = {
    "ss_inc", "ca_inc", "loss_dec", "nack_dec", "rto_dec",
};

struct newreno {
    struct cc_window win; /* must be first */
    double cwnd;
    double ssthresh;
    uint32_t mtu;
    uint64_t una;      /* bytes acknowledged so far */
    uint64_t recover;  /* end of the current recovery, in acknowledged bytes */
    bool in_recovery;
    double ctr[NR_COUNT];
};

static void clamp(struct newreno *r)
{
    if (r->cwnd < r->mtu)
        r->cwnd = r->mtu;
    r->win.cwnd_bytes = (uint64_t)r->cwnd;
}

static void newreno_init(void *state, const struct cc_params *p)
{
    struct newreno *r = state;
    r->mtu = p->mtu_bytes;
    double bdp = (double)p->base_rtt_ps * p->linkspeed_mbps / 8e6;
    r->cwnd = p->init_cwnd_bytes ? (double)p->init_cwnd_bytes : bdp;
    r->ssthresh = INFINITY;
    clamp(r);
}

static void newreno_on_ack(void *state, const struct cc_ack *a)
{
    struct newreno *r = state;
    uint64_t n = a->newly_acked_bytes;
    r->una += n;
    if (r->in_recovery) {
        if (r->una < r->recover)
            return;
        r->in_recovery = false;
    }
    if (n == 0)
        return;
    if (r->cwnd < r->ssthresh) {
        double add = (double)n;
        if (r->cwnd + add > r->ssthresh)
            add = r->ssthresh - r->cwnd;
        r->cwnd += add;
        r->ctr[NR_SS_INC] += add;
    } else {
        double add = (double)r->mtu * (double)n / r->cwnd;
        r->cwnd += add;
        r->ctr[NR_CA_INC] += add;
    }
    clamp(r);
}

static double half_window(const struct newreno *r)
{
    double ss = r->cwnd / 2;
    double lo = NR_MIN_SSTHRESH_PKTS * (double)r->mtu;
    return ss < lo ? lo : ss;
}

static void cut(struct newreno *r, uint64_t in_flight, int ctr)
{
    if (r->in_recovery && r->una < r->recover)
        return; /* one reduction per window of data */
    r->in_recovery = true;
    r->recover = r->una + in_flight;
    double before = r->cwnd;
    r->ssthresh = half_window(r);
    r->cwnd = r->ssthresh;
    clamp(r);
    r->ctr[ctr] += before - r->cwnd;
}

static void newreno_on_loss(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct newreno *r = state;
    (void)now;
    (void)pkt_bytes;
    cut(r, (uint64_t)r->cwnd, NR_LOSS_DEC);
}

static void newreno_on_nack(void *state, const struct cc_nack *k)
{
    cut(state, k->in_flight_bytes, NR_NACK_DEC);
}

static void newreno_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct newreno *r = state;
    (void)now;
    (void)pkt_bytes;
    double before = r->cwnd;
    r->ssthresh = half_window(r);
    r->cwnd = r->mtu;
    r->in_recovery = false;
    clamp(r);
    r->ctr[NR_RTO_DEC] += before - r->cwnd;
}

static void newreno_counters(const void *state, double *out)
{
    const struct newreno *r = state;
    for (int i = 0; i < NR_COUNT; i++)
        out[i] = r->ctr[i];
}

const struct cc_ops cc_newreno_ops = {
    .name = "newreno",
    .description = "TCP NewReno: slow start, AIMD, fast retransmit on 3 duplicate ACKs (RFC 5681, 6582)",
    .state_size = sizeof(struct newreno),
    .init = newreno_init,
    .on_ack = newreno_on_ack,
    .on_nack = newreno_on_nack,
    .on_timeout = newreno_on_timeout,
    .on_loss = newreno_on_loss,
    .loss_mode = CC_LOSS_DUPACK,
    .timestamp_echo = true,
    .dupack_threshold = 3,
    .option_names = NULL,
    .n_counters = NR_COUNT,
    .counter_names = newreno_counter_names,
    .counters = newreno_counters,
};
