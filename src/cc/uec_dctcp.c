/* uec_dctcp.c: DCTCP as the UEC reference simulator runs it
 * (`htsim_uec -sender_cc_algo dctcp`, uec.cpp updateCwndOnAck_DCTCP and
 * updateCwndOnNack_DCTCP, commit 40ccb05; ../shared/specs/reference-
 * simulator.md), on UET's packet delivery. It is not RFC 8257 (`--cc
 * dctcp`): there is no alpha and no once-per-window gate, and no slow start.
 *
 *   start        cwnd = maxwnd = 1.5 BDP of the network's base RTT (as NSCC)
 *   clean ACK    cwnd += newly_acked x MTU / cwnd        (one MTU per window)
 *   marked ACK   cwnd -= newly_acked / 3, at least one MTU
 *   NACK         cwnd -= the trimmed packet's size, at least one MTU
 *   timeout      no change (the transport resends the packet)
 *
 * The window is not capped above, as in the reference (its DCTCP never calls
 * the NSCC bounds). Arithmetic is in whole bytes with integer division, as
 * the reference's mem_b. Loss is learnt only from NACKs and timeouts, so
 * spraying's reordering is never taken for loss.
 */
#include "cc.h"

/* seed 002 / htsim initNscc: maxwnd = 1.5 BDP, the initial window. */
#define UD_MAXWND_BDP 1.5

enum { UD_INC, UD_ECN_DEC, UD_NACK_DEC, UD_COUNT };

static const char *const uec_dctcp_counter_names[UD_COUNT] = {"inc", "ecn_dec", "nack_dec"};

struct uec_dctcp {
    struct cc_window win; /* must be first */
    int64_t cwnd;
    int64_t mtu;
    int64_t ctr[UD_COUNT];
};

static void publish(struct uec_dctcp *d)
{
    if (d->cwnd < d->mtu)
        d->cwnd = d->mtu;
    d->win.cwnd_bytes = (uint64_t)d->cwnd;
}

static void uec_dctcp_init(void *state, const struct cc_params *p)
{
    struct uec_dctcp *d = state;
    d->mtu = p->mtu_bytes;
    double bdp = (double)p->base_rtt_ps * p->linkspeed_mbps / 8e6;
    d->cwnd = p->init_cwnd_bytes ? (int64_t)p->init_cwnd_bytes : (int64_t)(UD_MAXWND_BDP * bdp);
    publish(d);
}

static void uec_dctcp_on_ack(void *state, const struct cc_ack *a)
{
    struct uec_dctcp *d = state;
    int64_t n = (int64_t)a->newly_acked_bytes;
    int64_t before = d->cwnd;
    if (a->ecn) {
        d->cwnd -= n / 3;
        publish(d);
        d->ctr[UD_ECN_DEC] += before - d->cwnd;
    } else {
        d->cwnd += n * d->mtu / d->cwnd;
        publish(d);
        d->ctr[UD_INC] += d->cwnd - before;
    }
}

static void uec_dctcp_on_nack(void *state, const struct cc_nack *k)
{
    struct uec_dctcp *d = state;
    int64_t before = d->cwnd;
    d->cwnd -= k->pkt_bytes;
    publish(d);
    d->ctr[UD_NACK_DEC] += before - d->cwnd;
}

static void uec_dctcp_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    (void)state;
    (void)now;
    (void)pkt_bytes;
}

static void uec_dctcp_counters(const void *state, double *out)
{
    const struct uec_dctcp *d = state;
    for (int i = 0; i < UD_COUNT; i++)
        out[i] = (double)d->ctr[i];
}

const struct cc_ops cc_uec_dctcp_ops = {
    .name = "uec-dctcp",
    .description = "DCTCP as the UEC reference simulator runs it: +MTU/cwnd per clean byte, -1/3 per marked byte",
    .state_size = sizeof(struct uec_dctcp),
    .init = uec_dctcp_init,
    .on_ack = uec_dctcp_on_ack,
    .on_nack = uec_dctcp_on_nack,
    .on_timeout = uec_dctcp_on_timeout,
    .on_loss = NULL,
    .loss_mode = CC_LOSS_NACK_RTO,
    .dupack_threshold = 0,
    .option_names = NULL,
    .n_counters = UD_COUNT,
    .counter_names = uec_dctcp_counter_names,
    .counters = uec_dctcp_counters,
};
