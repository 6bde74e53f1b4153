/* bbr.c: BBR version 1 (Cardwell et al., "BBR: Congestion-Based Congestion
 * Control", CACM 60(2), 2017; Linux net/ipv4/tcp_bbr.c), the baseline seed
 * 003 measures SMaRTT against ("needs up to seven round trip times to
 * adjust its sending rate"; seeds-figures.md Sec. 1.4). Its constants are
 * BBRv1's, not the seeds'.
 *
 * BBR models the path by two filtered quantities: the bottleneck bandwidth
 * (the maximum delivery rate seen over the last 10 rounds) and the
 * round-trip propagation time (the minimum RTT seen over the last 10 s). It
 * sends at pacing_gain x bandwidth and keeps at most cwnd_gain x BDP in
 * flight, with the gains set by a state machine:
 *   STARTUP    pacing and cwnd gain 2/ln 2 = 2.885, until the bandwidth has
 *              not grown by 25% for 3 rounds ("full pipe");
 *   DRAIN      pacing gain ln 2 / 2 = 0.347 until in flight <= 1 BDP;
 *   PROBE_BW   cwnd gain 2, pacing gain cycling 1.25, 0.75, 1 (x 6), one
 *              phase per minimum RTT, starting at a random phase but 0.75;
 *   PROBE_RTT  after 10 s without a new minimum RTT: 4 packets in flight for
 *              200 ms and one round (never reached in millisecond runs).
 * A round ends when the data sent at its start is acknowledged (counted in
 * bytes delivered). Delivery-rate samples here are per round: the bytes
 * delivered in the round over its duration, an approximation of BBR's
 * per-packet samples that needs no per-packet state (a NIC-friendly
 * choice; it reacts once per round instead of per ACK). Loss is not a
 * congestion signal (BBRv1): NACKs and timeouts leave the model alone; the
 * transport resends. Pacing reaches the transport through pacing_gap_ps.
 */
#include "cc.h"

#include <math.h>

/* Linux tcp_bbr.c: BBR_UNIT-scaled gains and the filters' lengths. */
#define BBR_HIGH_GAIN 2.885             /* 2/ln 2 */
#define BBR_DRAIN_GAIN (1.0 / 2.885)    /* ln 2 / 2 */
#define BBR_CWND_GAIN 2.0
#define BBR_BW_WINDOW_ROUNDS 10
#define BBR_FULL_BW_THRESH 1.25
#define BBR_FULL_BW_ROUNDS 3
#define BBR_CYCLE_LEN 8
#define BBR_MIN_RTT_WINDOW_PS (10 * PS_PER_S)
#define BBR_PROBE_RTT_PS (200 * PS_PER_MS)
#define BBR_PROBE_RTT_CWND_PKTS 4
#define BBR_CWND_QUANTA_PKTS 3 /* tcp_bbr.c: 3 x send quantum added to the target */

static const double bbr_pacing_gains[BBR_CYCLE_LEN] = {1.25, 0.75, 1, 1, 1, 1, 1, 1};

enum bbr_mode { BBR_STARTUP, BBR_DRAIN, BBR_PROBE_BW, BBR_PROBE_RTT };
enum { BB_ROUNDS, BB_STARTUP_EXIT_ROUND, BB_COUNT };
static const char *const bbr_counter_names[BB_COUNT] = {"rounds", "startup_exit_round"};

struct bbr {
    struct cc_window win; /* must be first */
    uint32_t mtu;
    double line_rate_Bps; /* bytes per second: the first estimate */
    uint32_t mode;
    double pacing_gain, cwnd_gain;
    /* bottleneck bandwidth: max over the last BBR_BW_WINDOW_ROUNDS round samples */
    double bw_samples[BBR_BW_WINDOW_ROUNDS];
    double btl_bw_Bps;
    /* round-trip propagation time */
    simtime_ps min_rtt_ps;
    simtime_ps min_rtt_stamp_ps;
    /* rounds, counted in bytes delivered */
    uint64_t delivered;
    uint64_t round_end_delivered;
    simtime_ps round_start_ps;
    uint64_t round_start_delivered;
    uint64_t rounds;
    /* startup's full-pipe test */
    double full_bw_Bps;
    uint32_t full_bw_count;
    /* PROBE_BW's gain cycle */
    uint32_t cycle_idx;
    simtime_ps cycle_stamp_ps;
    /* PROBE_RTT */
    simtime_ps probe_rtt_done_ps;
    uint32_t seed_phase;
    double ctr[BB_COUNT];
};

static double bdp_bytes(const struct bbr *b)
{
    return b->btl_bw_Bps * (double)b->min_rtt_ps / (double)PS_PER_S;
}

static void publish(struct bbr *b)
{
    double cwnd;
    if (b->mode == BBR_PROBE_RTT)
        cwnd = BBR_PROBE_RTT_CWND_PKTS * (double)b->mtu;
    else
        cwnd = b->cwnd_gain * bdp_bytes(b) + BBR_CWND_QUANTA_PKTS * (double)b->mtu;
    if (cwnd < BBR_PROBE_RTT_CWND_PKTS * (double)b->mtu)
        cwnd = BBR_PROBE_RTT_CWND_PKTS * (double)b->mtu;
    b->win.cwnd_bytes = (uint64_t)cwnd;
    double rate = b->pacing_gain * b->btl_bw_Bps;
    b->win.pacing_gap_ps = rate > 0 ? (simtime_ps)llround((double)b->mtu / rate * (double)PS_PER_S) : 0;
}

static void set_mode(struct bbr *b, uint32_t mode, simtime_ps now)
{
    b->mode = mode;
    switch (mode) {
    case BBR_STARTUP:
        b->pacing_gain = b->cwnd_gain = BBR_HIGH_GAIN;
        break;
    case BBR_DRAIN:
        b->pacing_gain = BBR_DRAIN_GAIN;
        b->cwnd_gain = BBR_HIGH_GAIN;
        break;
    case BBR_PROBE_BW:
        b->cwnd_gain = BBR_CWND_GAIN;
        /* a phase chosen per flow, never the draining 0.75: tcp_bbr.c draws
         * CYCLE_LEN - 1 - rand(7) (1..7) and advances it once (2..7, 0) */
        b->cycle_idx = (BBR_CYCLE_LEN - b->seed_phase % (BBR_CYCLE_LEN - 1)) % BBR_CYCLE_LEN;
        b->pacing_gain = bbr_pacing_gains[b->cycle_idx];
        b->cycle_stamp_ps = now;
        break;
    case BBR_PROBE_RTT:
        b->pacing_gain = 1;
        b->cwnd_gain = 1;
        b->probe_rtt_done_ps = now + BBR_PROBE_RTT_PS;
        break;
    }
}

static void bbr_init(void *state, const struct cc_params *p)
{
    struct bbr *b = state;
    b->mtu = p->mtu_bytes;
    b->line_rate_Bps = (double)p->linkspeed_mbps * 1e6 / 8;
    b->btl_bw_Bps = b->line_rate_Bps; /* until the first round: the NIC's rate */
    b->min_rtt_ps = p->base_rtt_ps;
    b->seed_phase = (uint32_t)(p->path_hops * 2654435761u >> 8);
    set_mode(b, BBR_STARTUP, 0);
    publish(b);
    if (p->init_cwnd_bytes)
        b->win.cwnd_bytes = p->init_cwnd_bytes;
}

/* A round ended: its delivery rate joins the bandwidth filter. */
static void end_round(struct bbr *b, simtime_ps now, uint64_t in_flight)
{
    simtime_ps dt = now - b->round_start_ps;
    double sample = dt ? (double)(b->delivered - b->round_start_delivered) * (double)PS_PER_S / (double)dt : 0;
    b->bw_samples[b->rounds % BBR_BW_WINDOW_ROUNDS] = sample;
    b->rounds++;
    b->ctr[BB_ROUNDS] = (double)b->rounds;
    double best = 0;
    for (int i = 0; i < BBR_BW_WINDOW_ROUNDS; i++)
        if (b->bw_samples[i] > best)
            best = b->bw_samples[i];
    if (best > 0)
        b->btl_bw_Bps = best;
    b->round_start_ps = now;
    b->round_start_delivered = b->delivered;
    b->round_end_delivered = b->delivered + (in_flight ? in_flight : b->mtu);
    if (b->mode == BBR_STARTUP) {
        /* full pipe: three rounds without 25% growth */
        if (b->btl_bw_Bps >= b->full_bw_Bps * BBR_FULL_BW_THRESH) {
            b->full_bw_Bps = b->btl_bw_Bps;
            b->full_bw_count = 0;
        } else if (++b->full_bw_count >= BBR_FULL_BW_ROUNDS) {
            set_mode(b, BBR_DRAIN, now);
            b->ctr[BB_STARTUP_EXIT_ROUND] = (double)b->rounds;
        }
    }
}

static void bbr_on_ack(void *state, const struct cc_ack *a)
{
    struct bbr *b = state;
    b->delivered += a->newly_acked_bytes;
    if (a->rtt_valid && a->raw_rtt_ps > 0 &&
        (a->raw_rtt_ps <= b->min_rtt_ps || a->now > b->min_rtt_stamp_ps + BBR_MIN_RTT_WINDOW_PS)) {
        b->min_rtt_ps = a->raw_rtt_ps;
        b->min_rtt_stamp_ps = a->now;
    }
    if (b->round_end_delivered == 0) { /* the first ACK opens the first round */
        b->round_start_ps = a->now;
        b->round_start_delivered = b->delivered;
        b->round_end_delivered = b->delivered + (a->in_flight_bytes ? a->in_flight_bytes : b->mtu);
    } else if (b->delivered >= b->round_end_delivered) {
        end_round(b, a->now, a->in_flight_bytes);
    }
    if (b->mode == BBR_DRAIN && (double)a->in_flight_bytes <= bdp_bytes(b))
        set_mode(b, BBR_PROBE_BW, a->now);
    if (b->mode == BBR_PROBE_BW && a->now - b->cycle_stamp_ps > b->min_rtt_ps) {
        /* the 0.75 phase may end early once in flight is down to 1 BDP */
        b->cycle_idx = (b->cycle_idx + 1) % BBR_CYCLE_LEN;
        b->pacing_gain = bbr_pacing_gains[b->cycle_idx];
        b->cycle_stamp_ps = a->now;
    }
    if (b->mode != BBR_PROBE_RTT && a->now > b->min_rtt_stamp_ps + BBR_MIN_RTT_WINDOW_PS)
        set_mode(b, BBR_PROBE_RTT, a->now);
    if (b->mode == BBR_PROBE_RTT && a->now >= b->probe_rtt_done_ps) {
        b->min_rtt_stamp_ps = a->now;
        set_mode(b, BBR_PROBE_BW, a->now);
    }
    publish(b);
}

static void bbr_on_nack(void *state, const struct cc_nack *k)
{
    (void)state;
    (void)k; /* BBRv1: loss is not a congestion signal; the transport resends */
}

static void bbr_on_timeout(void *state, simtime_ps now, uint32_t pkt_bytes)
{
    (void)state;
    (void)now;
    (void)pkt_bytes;
}

static void bbr_counters(const void *state, double *out)
{
    const struct bbr *b = state;
    for (int i = 0; i < BB_COUNT; i++)
        out[i] = b->ctr[i];
}

const struct cc_ops cc_bbr_ops = {
    .name = "bbr",
    .description = "BBR v1 (CACM 2017): paced at gain x max delivery rate, cwnd 2 BDP, STARTUP/DRAIN/PROBE_BW",
    .state_size = sizeof(struct bbr),
    .init = bbr_init,
    .on_ack = bbr_on_ack,
    .on_nack = bbr_on_nack,
    .on_timeout = bbr_on_timeout,
    .on_loss = NULL,
    .loss_mode = CC_LOSS_NACK_RTO,
    .dupack_threshold = 0,
    .option_names = NULL,
    .n_counters = BB_COUNT,
    .counter_names = bbr_counter_names,
    .counters = bbr_counters,
};
