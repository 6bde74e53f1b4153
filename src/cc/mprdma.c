/* mprdma.c: MP-RDMA's per-packet ECN window control (Lu et al., "Multi-Path
 * Transport for RDMA in Datacenters", NSDI 2018, Sec. 3.2 and Alg. 1), the
 * per-ACK ECN baseline that SMaRTT starts from (seed 000 Sec. III-B: "a
 * per-packet approach that uses ECN similar to MPRDMA"; seed 003 Sec. 3.1
 * compares against the same half-an-MTU-per-packet ECN decrease).
 *
 * For every packet acknowledged, in MSS units:
 *     no ECN-Echo:  cwnd += 1/cwnd     (one MSS per window: additive increase)
 *     ECN-Echo:     cwnd -= 1/2
 * In bytes, for an ACK that newly acknowledges `acked` bytes:
 *     cwnd += mtu x acked / cwnd,   or   cwnd -= acked / 2.
 * The window is kept within [1 MTU, maxwnd_bdp x BDP] (maxwnd_bdp = 1.5 as
 * NSCC's and the SMaRTT journal's, seed 000 III-J; MP-RDMA itself names no
 * maximum). MP-RDMA tolerates reordering (its out-of-order aware path
 * selection bounds it), so loss is learnt only from NACKs of trimmed
 * packets and timeouts (CC_LOSS_NACK_RTO). A NACK counts as an ECN-marked
 * packet (-1/2 MSS): trimming is the congestion mark of last resort. A
 * timeout halves the window (our choice; the per-packet rule has no
 * timeout reaction).
 * Initial window: cc_params.init_cwnd_bytes or one BDP of the network's
 * base RTT (RDMA starts at line rate).
 */
#include "cc.h"

/* seed 000 Sec. III-J: 1.5 BDP, as NSCC (seed 002). */
#define MP_MAXWND_BDP 1.5

enum { MP_INC, MP_ECN_DEC, MP_NACK_DEC, MP_RTO_DEC, MP_COUNT };

static const char *const mprdma_counter_names[MP_COUNT] = {"inc", "ecn_dec", "nack_dec", "rto_dec"};

static const char *const mprdma_option_names[] = {"maxwnd_bdp", NULL};

struct mprdma {
    struct cc_window win; /* must be first */
    double cwnd;
    double maxwnd;
    uint32_t mtu;
    double ctr[MP_COUNT];
};

static void clamp(struct mprdma *m)
{
    if (m->cwnd > m->maxwnd)
        m->cwnd = m->maxwnd;
    if (m->cwnd < m->mtu)
        m->cwnd = m->mtu;
    m->win.cwnd_bytes = (uint64_t)m->cwnd;
}

static void mprdma_init(void *state, const struct cc_params *p)
{
    struct mprdma *m = state;
    m->mtu = p->mtu_bytes;
    double mb = cc_opt(p, "maxwnd_bdp", MP_MAXWND_BDP);
    if (!(mb >= 0.01 && mb <= 1000))
        die_input("--cc-opt maxwnd_bdp=%g: mprdma needs 0.01..1000", mb);
    double bdp = (double)p->base_rtt_ps * p->linkspeed_mbps / 8e6;
    m->maxwnd = mb * bdp;
    if (m->maxwnd < m->mtu)
        m->maxwnd = m->mtu;
    m->cwnd = p->init_cwnd_bytes ? (double)p->init_cwnd_bytes : bdp;
    clamp(m);
}

static void mprdma_on_ack(void *state, const struct cc_ack *a)
{
    struct mprdma *m = state;
    double n = (double)a->newly_acked_bytes;
    if (n == 0)
        return;
    double before = m->cwnd;
    if (a->ecn) {
        m->cwnd -= n / 2;
        clamp(m);
        m->ctr[MP_ECN_DEC] += before - m->cwnd;
    } else {
        m->cwnd += (double)m->mtu * n / m->cwnd;
        clamp(m);
        m->ctr[MP_INC] += m->cwnd - before;
    }
}

static void mprdma_on_nack(void *state, const struct cc_nack *k)
{
    struct mprdma *m = state;
    double before = m->cwnd;
    m->cwnd -= (double)k->pkt_bytes / 2;
    clamp(m);
    m->ctr[MP_NACK_DEC] += before - m->cwnd;
}

static void mprdma_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    struct mprdma *m = state;
    (void)now;
    (void)pkt_bytes;
    double before = m->cwnd;
    m->cwnd /= 2;
    clamp(m);
    m->ctr[MP_RTO_DEC] += before - m->cwnd;
}

static void mprdma_counters(const void *state, double *out)
{
    const struct mprdma *m = state;
    for (int i = 0; i < MP_COUNT; i++)
        out[i] = m->ctr[i];
}

const struct cc_ops cc_mprdma_ops = {
    .name = "mprdma",
    .description = "MP-RDMA per-packet ECN window: +1/cwnd per clean ACK, -1/2 per marked (NSDI 2018)",
    .state_size = sizeof(struct mprdma),
    .init = mprdma_init,
    .on_ack = mprdma_on_ack,
    .on_nack = mprdma_on_nack,
    .on_timeout = mprdma_on_timeout,
    .on_loss = NULL,
    .loss_mode = CC_LOSS_NACK_RTO,
    .dupack_threshold = 0,
    .option_names = mprdma_option_names,
    .n_counters = MP_COUNT,
    .counter_names = mprdma_counter_names,
    .counters = mprdma_counters,
};
