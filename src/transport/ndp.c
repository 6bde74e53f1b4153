/* ndp.c: NDP, the receiver-pulled transport of Handley et al.,
 * "Re-architecting datacenter networks and stacks for low latency and high
 * performance", SIGCOMM 2017, as the reference simulator's htsim_ndp runs
 * it (behaviour read from htsim ndp.cpp, fairpullqueue.cpp and
 * datacenter/main_ndp.cpp; written here from that description, in
 * spraysim's own structures). It is the worked example of the transport
 * contract (docs/contributing-transport.md, "NDP, file by file"): this file
 * and one registry entry are all of it.
 *
 * Sender. A flow starts by sending a full first window (-cwnd packets,
 * htsim's default 15) at line rate, unsolicited (paper Sec. 3.2). After
 * that every packet it sends is clocked out by a pull: each PULL (or ACK or
 * NACK that carries one) holds the receiver's cumulative pull number for
 * this flow, and the sender may send as many packets as that number is
 * ahead of the pulls it has used. Retransmissions go first, lowest sequence
 * number first (htsim keeps them in a map by sequence number). A NACK
 * queues its packet for retransmission; the next pull clocks it out.
 *
 * Receiver. Every arrival, whole packet or trimmed header, gets an ACK or
 * NACK at once and adds one to the flow's pull number (paper Sec. 3.3: "one
 * PULL per packet received"). The receiving host's pull pacer (one per
 * host, shared by all flows to it) lets at most one pull out per time of
 * one full packet at 0.99 of the link rate (htsim main_ndp.cpp builds each
 * NdpPullPacer at 0.99; --ndp-opt pull_rate=F sets it): when its queue is empty and the last pull left at
 * least that long ago, the ACK or NACK itself carries the pull; otherwise
 * it goes out without one and a PULL waits in the pacer, which serves the
 * flows with waiting pulls in round robin, one pull each (htsim's
 * FairPullQueue). A flow whose receiver holds every byte has its waiting
 * pulls dropped (htsim release_pulls).
 *
 * Network. Data packets travel in the flow's data class and are trimmed to
 * their 64-byte header when the data queue is full (paper Sec. 3.1); ACKs,
 * NACKs, PULLs and trimmed headers travel in the control class, served
 * first. NDP declares trimming as a need and ECN off as a preference
 * (fabric_needs) and refuses -disable_trim. Its default switch queue is
 * htsim main_ndp's DEFAULT_QUEUE_SIZE, 15 packets (the paper's switches
 * hold 8; -q sets it, as htsim_ndp's experiments do).
 *
 * Paths. Each data packet's entropy comes from the run's balancer (--lb);
 * htsim_ndp's "-strat perm" (a random permutation of the paths, walked once
 * and permuted again) is spraysim's `oblivious` balancer. ACKs and NACKs
 * echo the entropy of the packet they answer; PULLs cycle over -paths.
 *
 * Timeouts. htsim_ndp computes an RTO (smoothed RTT + 4 deviations, at
 * least the 50 ms main_ndp sets with NdpSrc::setMinRTO(50000)) but is built
 * without RESEND_ON_TIMEOUT, so it never retransmits on a timeout: with
 * trimming no data packet is lost. Here a packet lost all the same (a
 * control queue overflow drops a header or its NACK) is retransmitted when
 * that RTO expires, so no flow can hang; in the reference's cases it never
 * fires. The RTO has no random jitter (htsim draws 0.75-1.25 x the minimum),
 * and it drops the pulls the sender banked while it waited (rto_timer).
 *
 * Departures, each small: the last packet carries its real payload (htsim
 * sends every packet full size); the pacer's round robin takes flows in the
 * order they queued pulls (htsim's in flow-id order); the receiver's
 * oversubscribed-tree control (-oversubscribed_cc) and return-to-sender are
 * not modelled (htsim_ndp runs without either by default).
 */
#include "flow.h"
#include "rcv_bitmap.h"
#include "transport.h"

#include "../lb/lb.h"
#include "../sim.h"
#include "../workload/cm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct transport_ops transport_ndp_ops;

/* htsim main_ndp.cpp: cwnd 15 packets, DEFAULT_QUEUE_SIZE 15 packets. */
#define NDP_DEFAULT_IW_PKTS 15
#define NDP_DEFAULT_QUEUE_PKTS 15
/* htsim main_ndp.cpp: NdpSrc::setMinRTO(50000) (microseconds). */
#define NDP_MIN_RTO_PS (50000 * PS_PER_US)
/* htsim main_ndp.cpp: new NdpPullPacer(eventlist, linkspeed, 0.99). */
#define NDP_PULL_RATE_FACTOR 0.99

enum ndp_timer {
    NDP_TIMER_RTO = 0,
};
enum ndp_host_timer {
    NDP_HTIMER_PULL = 0, /* the receiving host's pull pacer may send its next PULL */
};

/* Per packet, at the sender. */
enum ndp_tx {
    NDP_TX_UNSENT = 0,
    NDP_TX_IN_FLIGHT = 1,
    NDP_TX_RTX_QUEUED = 2, /* NACKed: waits for a pull */
    NDP_TX_RTO_QUEUED = 3, /* timed out: goes without a pull */
    NDP_TX_ACKED = 4,
};

/* Per flow, in f->tp_state: the sender's and the receiver's halves. */
struct ndp_flow {
    /* sender */
    uint8_t *tx;             /* [n_pkts] enum ndp_tx */
    simtime_ps *sent_ps;     /* [n_pkts] last transmission (the RTO's clock) */
    uint64_t *rtx_bits;      /* [n_pkts / 64 + 1] queued retransmissions */
    uint32_t rtx_count;
    uint32_t rtx_low_word;   /* no queued retransmission in a word below this */
    uint32_t next_new;       /* the first packet never sent */
    uint32_t cum_acked;      /* every packet below it is acknowledged */
    uint32_t iw_left;        /* first-window packets still to send (they need no pull) */
    uint32_t rto_queued;     /* queued retransmissions in NDP_TX_RTO_QUEUED */
    int64_t max_pull;        /* the highest pull number heard (htsim _max_pull) */
    int64_t used_pulls;      /* pulls that clocked out a packet (htsim _last_pull) */
    simtime_ps srtt_ps, mdev_ps, rto_ps;
    bool rto_pending;
    simtime_ps rto_at_ps;
    /* receiver */
    struct rcv_bitmap rcv;   /* the packets that arrived (rcv.cum: every one below it) */
    int64_t pull_no;         /* arrivals so far: the flow's cumulative pull number (htsim _pull_no) */
    uint32_t pulls_waiting;  /* its PULLs queued in the receiving host's pacer */
    uint32_t rr_next, rr_prev; /* the pacer's round robin of flows with waiting pulls */
    bool in_rr;
    uint16_t pull_ev;        /* entropy of the next PULL */
    uint64_t pulls_heard;    /* counters for flows.csv */
    uint64_t pulls_used;
};

/* Per receiving host. */
struct ndp_pacer {
    simtime_ps last_pull_ps; /* when the last pull left (htsim _last_pull, 0 at start) */
    uint32_t waiting;        /* PULLs queued, all flows */
    uint32_t rr_head, rr_tail; /* round robin of flows with waiting pulls (UINT32_MAX: none) */
    bool tick_pending;
};

struct ndp_run {
    struct ndp_pacer *pacers; /* [n_hosts] */
    uint32_t n_hosts;
    uint32_t iw_pkts;
    simtime_ps pull_gap_ps;   /* one full packet's time at the pull rate (0.99 of the link's) */
};

#define RR_NONE UINT32_MAX

/* The per-run state: NDP's slot of struct sim's tp_run (the contract's
 * transport_run_state), set in setup() and cleared in free(). */
static inline struct ndp_run *run_of(const struct sim *s)
{
    return transport_run_state(s, &transport_ndp_ops);
}

static inline struct ndp_flow *nf(const struct sim *s, uint32_t fi)
{
    return s->flows[fi].tp_state;
}

/* ---- setup -------------------------------------------------------------------- */

static void ndp_setup(struct sim *s)
{
    const struct config *c = &s->cfg;
    if (!c->trimming)
        die_input("--transport ndp: NDP needs switches that trim (-disable_trim turns trimming off)");
    double pull_rate = NDP_PULL_RATE_FACTOR;
    const struct transport_opt opts[] = {
        {.name = "pull_rate", .min = 0.01, .max = 1, .out = &pull_rate},
    };
    transport_flag_opts(s, "--ndp-opt", opts, sizeof opts / sizeof opts[0]);
    struct ndp_run *r = xcalloc(1, sizeof(*r));
    transport_set_run_state(s, &transport_ndp_ops, r);
    r->n_hosts = s->n_hosts;
    r->pacers = xcalloc(s->n_hosts ? s->n_hosts : 1, sizeof(struct ndp_pacer));
    for (uint32_t h = 0; h < s->n_hosts; h++)
        r->pacers[h].rr_head = r->pacers[h].rr_tail = RR_NONE;
    r->iw_pkts = c->cwnd_pkts ? c->cwnd_pkts : NDP_DEFAULT_IW_PKTS;
    /* htsim NdpPullPacer: (data packet + 64-byte header) x 8 / link rate /
     * 0.99; spraysim's -mtu is that whole wire size. -planes N: the NIC
     * receives on N ports, so pulls go N times as fast (as EQDS's pacer) */
    r->pull_gap_ps = (simtime_ps)((double)c->mtu_bytes * 8e6 / ((double)c->linkspeed_mbps * c->planes) / pull_rate);
    if (!strcmp(c->transport_name, "ndp"))
        s->no_sender_window = true;
}

/* Trimming is NDP's loss signal: a need. It reads no ECN mark: off, as a
 * preference (htsim's CompositeQueue marks nothing by default). */
static void ndp_fabric_needs(const struct sim *s, uint32_t classes, struct class_need need[PORT_MAX_CLASSES])
{
    (void)s;
    for (uint32_t k = PKT_PRIO_DATA; k < PORT_MAX_CLASSES; k++)
        if (classes & (1u << k))
            need[k] = (struct class_need){
                .ecn = NEED_OFF,
                .ecn_lasthop = NEED_OFF,
                .ecn_weak = true,
                .trim = NEED_BASE,
            };
}

/* A flow made during the run: its state comes at its start, as every NDP
 * flow's does, and the pacers are per host. */
static void ndp_flow_add(struct sim *s, uint32_t fi)
{
    (void)s;
    (void)fi;
}

static void free_sender(struct ndp_flow *n)
{
    free(n->tx);
    free(n->sent_ps);
    free(n->rtx_bits);
    n->tx = NULL;
    n->sent_ps = NULL;
    n->rtx_bits = NULL;
}

/* --stream: flow fi finished at both ends and its last packet left the
 * network: everything it holds goes. Its pulls left the pacer when its
 * receiver completed (release_pulls), so no pacer refers to it; its RTO
 * timer, if still set, is dropped unseen by the generic layer. */
static void ndp_flow_release(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = f->tp_state;
    invariant(!n || !n->in_rr, "NDP flow %u released with pulls waiting", fi);
    if (n) {
        free_sender(n);
        rcv_bitmap_free(&n->rcv);
        free(n);
    }
    f->tp_state = NULL;
    transport_cc_lb_free(f);
    free(f->cc_counters);
    f->cc_counters = NULL;
}

static bool ndp_can_release(const struct sim *s)
{
    (void)s;
    return true;
}

static void ndp_free(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_flows; i++) {
        struct flow *f = &s->flows[i];
        if (f->tp != &transport_ndp_ops || !f->tp_state)
            continue;
        struct ndp_flow *n = f->tp_state;
        free_sender(n);
        rcv_bitmap_free(&n->rcv);
        transport_cc_lb_free(f);
        free(n);
        f->tp_state = NULL;
    }
    struct ndp_run *r = run_of(s);
    if (!r)
        return;
    free(r->pacers);
    free(r);
    transport_set_run_state(s, &transport_ndp_ops, NULL);
}

/* ---- sender --------------------------------------------------------------------- */

static void rtx_set(struct ndp_flow *n, uint32_t seq)
{
    n->rtx_bits[seq >> 6] |= 1ULL << (seq & 63);
    n->rtx_count++;
    if ((seq >> 6) < n->rtx_low_word)
        n->rtx_low_word = seq >> 6;
}

static void rtx_clear(struct ndp_flow *n, uint32_t seq)
{
    n->rtx_bits[seq >> 6] &= ~(1ULL << (seq & 63));
    n->rtx_count--;
    if (n->tx[seq] == NDP_TX_RTO_QUEUED)
        n->rto_queued--;
}

/* The lowest queued retransmission (rtx_count > 0). */
static uint32_t rtx_lowest(struct ndp_flow *n)
{
    while (!n->rtx_bits[n->rtx_low_word])
        n->rtx_low_word++;
    return n->rtx_low_word * 64 + (uint32_t)__builtin_ctzll(n->rtx_bits[n->rtx_low_word]);
}

/* The next packet to send, retransmissions first; UINT32_MAX: none. */
static uint32_t next_seq(const struct flow *f, struct ndp_flow *n)
{
    if (n->rtx_count)
        return rtx_lowest(n);
    return n->next_new < f->n_pkts ? n->next_new : UINT32_MAX;
}

/* Whether the sender may send a packet now: the first window, a
 * retransmission the RTO queued, or a pull not used yet. */
static bool may_send(const struct ndp_flow *n)
{
    return n->iw_left || n->rto_queued || n->used_pulls < n->max_pull;
}

static void sender_wake(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    if (f->state != FLOW_ACTIVE || !may_send(n) || next_seq(f, n) == UINT32_MAX)
        return;
    transport_nic_ready(s, fi);
}

static void arm_rto(struct sim *s, uint32_t fi, simtime_ps at)
{
    struct ndp_flow *n = nf(s, fi);
    n->rto_pending = true;
    n->rto_at_ps = at;
    transport_timer_at(s, at, fi, NDP_TIMER_RTO);
}

/* A flow's state with its receiver's half ready (the sender's start adds
 * the sender's arrays). */
static struct ndp_flow *new_state(uint32_t n_pkts)
{
    struct ndp_flow *n = xcalloc(1, sizeof(*n));
    n->rr_next = n->rr_prev = RR_NONE;
    rcv_bitmap_init(&n->rcv, n_pkts);
    return n;
}

static void ndp_flow_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (!transport_flow_activate(s, f))
        return;
    const struct ndp_run *r = run_of(s);
    if (s->cfg.htsim_output)
        printf("startflow ndp_%u_%u CWND %llu rts 0 at %g\n", f->src, f->dst,
               (unsigned long long)r->iw_pkts * (s->cfg.mtu_bytes - s->cfg.hdr_bytes), (double)s->now / PS_PER_US);
    uint32_t np = f->n_pkts;
    struct ndp_flow *n = new_state(np);
    f->tp_state = n;
    n->tx = xcalloc(np ? np : 1, 1);
    n->sent_ps = xcalloc(np ? np : 1, sizeof(simtime_ps));
    n->rtx_bits = xcalloc(np / 64 + 1, sizeof(uint64_t));
    n->iw_left = r->iw_pkts < np ? r->iw_pkts : np;
    n->rto_ps = s->min_rto_ps;
    transport_lb_start(s, fi);
    sender_wake(s, fi);
}

static uint32_t make_data_packet(struct sim *s, uint32_t fi, uint32_t seq)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    bool rtx = n->tx[seq] == NDP_TX_RTX_QUEUED || n->tx[seq] == NDP_TX_RTO_QUEUED;
    if (rtx)
        rtx_clear(n, seq);
    else
        n->next_new++;
    n->tx[seq] = NDP_TX_IN_FLIGHT;
    n->sent_ps[seq] = s->now;
    uint32_t size = flow_pkt_wire_bytes(f, seq, s->cfg.mtu_bytes, s->cfg.hdr_bytes);
    uint32_t idx = transport_make_packet(s, fi, PKT_DATA, seq, size);
    struct packet *p = pkt_at(&s->pool, idx);
    p->ts_ps = s->now;
    p->entropy = f->lb->next_entropy(f->lb_state, seq, s->now);
    if (f->lb == &lb_single_ops)
        p->flags |= PKTF_PINNED; /* adaptive routing leaves it on its hash */
    f->c.pkts_sent++;
    s->tot.data_pkts_sent++;
    if (rtx) {
        p->flags |= PKTF_RTX;
        f->c.retransmits++;
        s->tot.rtx_pkts_sent++;
    }
    if (!n->rto_pending)
        arm_rto(s, fi, s->now + n->rto_ps);
    return idx;
}

/* The NIC is free and this flow is next (htsim send_packet, one packet). */
static uint32_t ndp_nic_pull(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    if (f->state != FLOW_ACTIVE)
        return PKT_NONE;
    uint32_t seq = next_seq(f, n);
    if (seq == UINT32_MAX)
        return PKT_NONE;
    if (n->rto_queued && n->tx[seq] != NDP_TX_RTO_QUEUED) {
        /* a timed-out packet goes first, without a pull: the lowest */
        for (uint32_t q = seq; q < n->next_new; q++)
            if (n->tx[q] == NDP_TX_RTO_QUEUED) {
                seq = q;
                break;
            }
    }
    if (n->tx[seq] == NDP_TX_RTO_QUEUED) {
        /* the RTO's own permission */
    } else if (n->iw_left) {
        n->iw_left--;
    } else if (n->used_pulls < n->max_pull) {
        n->used_pulls++;
        n->pulls_used++;
    } else {
        return PKT_NONE;
    }
    return make_data_packet(s, fi, seq);
}

static void flow_finish(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    f->state = FLOW_DONE;
    f->finish_ps = s->now;
    s->flows_finished++;
    if (s->cfg.htsim_output)
        /* htsim ndp.cpp processAck's line: the time is whitespace field 6 */
        printf("Flow ndp_%u_%u flow_id %u finished at %g total bytes %llu\n", f->src, f->dst, f->id,
               (double)s->now / PS_PER_US, (unsigned long long)f->size_bytes);
    transport_nic_unready(s, fi);
    transport_msg_sent(s, fi);
    free_sender(n);
    transport_cc_lb_free(f); /* what transport_msg_sent did not hand on */
    transport_flow_finished(s, fi);
}

/* htsim pull_packets: pull numbers are cumulative, so a lost or late PULL
 * is covered by the next one. */
static void pull_heard(struct sim *s, uint32_t fi, int64_t pull_no)
{
    struct ndp_flow *n = nf(s, fi);
    if (pull_no > n->max_pull)
        n->max_pull = pull_no;
    sender_wake(s, fi);
}

/* htsim's TCP-style estimator (ndp.cpp processAck), floored at the
 * minimum RTO (s->min_rto_ps: NDP's 50 ms plus sim.c's six queue drain
 * times, or -min_rto). */
static void rtt_sample(const struct sim *s, struct ndp_flow *n, simtime_ps m)
{
    if (m == 0)
        return;
    if (n->srtt_ps) {
        simtime_ps dev = m > n->srtt_ps ? m - n->srtt_ps : n->srtt_ps - m;
        n->mdev_ps = 3 * n->mdev_ps / 4 + dev / 4;
        n->srtt_ps = 7 * n->srtt_ps / 8 + m / 8;
    } else {
        n->srtt_ps = m;
        n->mdev_ps = m / 2;
    }
    n->rto_ps = n->srtt_ps + 4 * n->mdev_ps;
    if (n->rto_ps < s->min_rto_ps)
        n->rto_ps = s->min_rto_ps;
}

static void ack_one(struct ndp_flow *n, uint32_t seq)
{
    if (n->tx[seq] == NDP_TX_RTX_QUEUED || n->tx[seq] == NDP_TX_RTO_QUEUED)
        rtx_clear(n, seq);
    n->tx[seq] = NDP_TX_ACKED;
}

/* An ACK: a->ref_seq arrived, a->seq is the cumulative ACK, a->pull_q the
 * pull number (negative: this ACK carries no pull). */
static void on_ack(struct sim *s, uint32_t fi, const struct packet *a)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    f->c.acks++;
    rtt_sample(s, n, s->now - a->ts_ps);
    if (a->ref_seq < f->n_pkts && n->tx[a->ref_seq] != NDP_TX_UNSENT)
        ack_one(n, a->ref_seq);
    uint32_t cum = a->seq < f->n_pkts ? a->seq : f->n_pkts;
    for (; n->cum_acked < cum; n->cum_acked++)
        ack_one(n, n->cum_acked);
    while (n->cum_acked < f->n_pkts && n->tx[n->cum_acked] == NDP_TX_ACKED)
        n->cum_acked++;
    f->lb->feedback(f->lb_state, a->entropy, LB_GOOD, s->now);
    if (n->cum_acked >= f->n_pkts) {
        flow_finish(s, fi);
        return;
    }
    if (a->pull_q > 0)
        pull_heard(s, fi, a->pull_q);
}

/* A NACK: packet a->ref_seq arrived trimmed; it waits for a pull. As htsim
 * processNack, a NACK's pull number is taken when the NACK carries the pull
 * or when the sender holds pulls it had nothing to send for (the number
 * then also counts pulls still waiting in the receiver's pacer: the sender
 * gets ahead of them, and those PULLs, when they come, add nothing). htsim
 * sends on a pull at once, so its banked pulls (_last_pull < _max_pull)
 * always mean "nothing to send"; here a pull also waits for the NIC, and
 * such a pull does not count as banked: taking the NACK's number then
 * would bypass the pacer (a 1023-to-1 incast spun 9.7 million
 * retransmissions in 100 ms that way). */
static void on_nack(struct sim *s, uint32_t fi, const struct packet *a)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    f->c.nacks++;
    uint32_t seq = a->ref_seq;
    bool last_hop = a->flags & PKTF_TRIM_LASTHOP;
    f->lb->feedback(f->lb_state, a->entropy, last_hop ? LB_GOOD : LB_NACK, s->now);
    bool banked = n->used_pulls < n->max_pull && next_seq(f, n) == UINT32_MAX;
    if (seq < f->n_pkts && n->tx[seq] == NDP_TX_IN_FLIGHT) {
        n->tx[seq] = NDP_TX_RTX_QUEUED;
        rtx_set(n, seq);
    }
    int64_t pull_no = a->pull_q > 0 ? a->pull_q : -a->pull_q;
    if (a->pull_q > 0 || banked)
        pull_heard(s, fi, pull_no);
    else
        sender_wake(s, fi);
}

/* The RTO (see the head of the file): every packet in flight longer than
 * the RTO is queued again and may go without a pull. */
static void rto_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    if (!n->rto_pending || s->now != n->rto_at_ps)
        return; /* a timer set before the last re-arm */
    n->rto_pending = false;
    if (f->state != FLOW_ACTIVE)
        return;
    simtime_ps oldest = SIMTIME_NEVER;
    bool fired = false;
    for (uint32_t q = n->cum_acked; q < n->next_new; q++) {
        if (n->tx[q] != NDP_TX_IN_FLIGHT)
            continue;
        if (n->sent_ps[q] + n->rto_ps <= s->now) {
            n->tx[q] = NDP_TX_RTO_QUEUED;
            rtx_set(n, q);
            n->rto_queued++;
            f->c.timeouts++;
            fired = true;
        } else if (n->sent_ps[q] < oldest) {
            oldest = n->sent_ps[q];
        }
    }
    if (fired) {
        s->tot.rtos++;
        /* Pulls banked while the sender waited for this timeout answered
         * arrivals long gone. Kept, they would let every NACK clock its
         * packet out again at once (on_nack), past the pacer: after a
         * 1023-to-1 incast lost 6,373 headers, the retransmissions spun
         * at the senders' line rate (5 million in 50 ms). */
        n->used_pulls = n->max_pull;
    }
    if (oldest != SIMTIME_NEVER)
        arm_rto(s, fi, oldest + n->rto_ps);
    sender_wake(s, fi);
}

/* ---- receiver and its pull pacer ------------------------------------------------- */

static void rr_push(struct sim *s, struct ndp_pacer *pc, uint32_t fi)
{
    struct ndp_flow *n = nf(s, fi);
    n->in_rr = true;
    n->rr_next = RR_NONE;
    n->rr_prev = pc->rr_tail;
    if (pc->rr_tail == RR_NONE)
        pc->rr_head = fi;
    else
        nf(s, pc->rr_tail)->rr_next = fi;
    pc->rr_tail = fi;
}

static void rr_remove(struct sim *s, struct ndp_pacer *pc, uint32_t fi)
{
    struct ndp_flow *n = nf(s, fi);
    if (n->rr_prev == RR_NONE)
        pc->rr_head = n->rr_next;
    else
        nf(s, n->rr_prev)->rr_next = n->rr_next;
    if (n->rr_next == RR_NONE)
        pc->rr_tail = n->rr_prev;
    else
        nf(s, n->rr_next)->rr_prev = n->rr_prev;
    n->rr_next = n->rr_prev = RR_NONE;
    n->in_rr = false;
}

static void pacer_schedule(struct sim *s, uint32_t host, struct ndp_pacer *pc)
{
    if (pc->tick_pending)
        return;
    pc->tick_pending = true;
    simtime_ps at = pc->last_pull_ps + run_of(s)->pull_gap_ps;
    transport_host_timer_at(s, at > s->now ? at : s->now, &transport_ndp_ops, host, NDP_HTIMER_PULL);
}

/* The answer to an arrival (htsim NdpPullPacer::sendPacket): the flow's
 * pull number goes up by one; the answer carries the pull when the pacer
 * has nothing waiting and its last pull left a packet time ago, else a PULL
 * waits in the pacer. */
static void answer(struct sim *s, uint32_t fi, const struct packet *from, uint8_t type)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    struct ndp_pacer *pc = &run_of(s)->pacers[f->dst];
    n->pull_no++;
    uint32_t idx = transport_answer(s, from, type);
    struct packet *a = pkt_at(&s->pool, idx);
    a->seq = n->rcv.cum;
    a->ts_ps = from->ts_ps; /* echoed: the sender's RTT sample */
    if (from->flags & PKTF_TRIM_LASTHOP)
        a->flags |= PKTF_TRIM_LASTHOP;
    if (pc->waiting == 0 && s->now - pc->last_pull_ps >= run_of(s)->pull_gap_ps) {
        a->pull_q = n->pull_no;
        pc->last_pull_ps = s->now;
    } else {
        a->pull_q = -n->pull_no;
        n->pulls_waiting++;
        pc->waiting++;
        if (!n->in_rr)
            rr_push(s, pc, fi);
        pacer_schedule(s, f->dst, pc);
    }
    if (type == PKT_ACK)
        s->tot.acks_sent++;
    else
        s->tot.nacks_sent++;
    nic_send(s, f->dst, idx);
}

/* The receiver holds every byte: its waiting pulls would clock out nothing
 * (htsim release_pulls). */
static void release_pulls(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    struct ndp_pacer *pc = &run_of(s)->pacers[f->dst];
    if (!n->in_rr)
        return;
    pc->waiting -= n->pulls_waiting;
    n->pulls_waiting = 0;
    rr_remove(s, pc, fi);
}

/* The pacer's tick: one PULL for the flow at the head of the round robin,
 * carrying the oldest pull number it has waiting (a flow's waiting pulls
 * are the numbers pull_no - pulls_waiting + 1 .. pull_no). */
static void pacer_tick(struct sim *s, uint32_t host)
{
    struct ndp_run *r = run_of(s);
    struct ndp_pacer *pc = &r->pacers[host];
    pc->tick_pending = false;
    if (pc->waiting == 0)
        return;
    uint32_t fi = pc->rr_head;
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    rr_remove(s, pc, fi);
    n->pulls_waiting--;
    pc->waiting--;
    if (n->pulls_waiting)
        rr_push(s, pc, fi);
    /* a PULL answers no one packet: a reply of the flow, receiver to sender */
    uint32_t idx = transport_make_reply(s, fi, PKT_PULL, n->rcv.cum, s->cfg.hdr_bytes);
    struct packet *p = pkt_at(&s->pool, idx);
    p->entropy = n->pull_ev;
    n->pull_ev = (uint16_t)((n->pull_ev + 1u) % (s->cfg.paths ? s->cfg.paths : 1));
    if (f->lb == &lb_single_ops)
        p->flags |= PKTF_PINNED;
    p->ref_seq = UINT32_MAX;
    p->pull_q = n->pull_no - n->pulls_waiting;
    s->tot.pulls_sent++;
    nic_send(s, host, idx);
    pc->last_pull_ps = s->now;
    if (pc->waiting)
        pacer_schedule(s, host, pc);
}

static void on_data(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    struct ndp_flow *n = nf(s, fi);
    s->tot.data_pkts_delivered++;
    if (p->seq < f->n_pkts)
        (void)rcv_bitmap_set(&n->rcv, p->seq);
    /* a duplicate (a retransmission that crossed its ACK) is ACKed and
     * pulls like any arrival, as in htsim */
    answer(s, fi, p, PKT_ACK);
    if (rcv_bitmap_complete(&n->rcv) && !f->rcv_complete) {
        f->rcv_complete = true;
        f->rcv_done_ps = s->now;
        release_pulls(s, fi);
        const struct cm_conn *c = &s->cm.conns[f->conn_index];
        if (c->recv_done_trigger != CM_NO_TRIGGER)
            sim_trigger_activate(s, c->recv_done_trigger);
    }
}

static void on_trimmed(struct sim *s, uint32_t fi, const struct packet *p)
{
    s->tot.trimmed_delivered++;
    answer(s, fi, p, PKT_NACK);
}

/* ---- dispatch ----------------------------------------------------------------------- */

static void ndp_receive(struct sim *s, uint32_t pkt_idx)
{
    /* a copy: answering allocates packets, which may move the pool */
    struct packet copy = *pkt_at(&s->pool, pkt_idx);
    const struct packet *p = &copy;
    uint32_t fi = p->flow;
    bool sender_side = s->flows[fi].state == FLOW_ACTIVE;
    /* The sender's start makes the flow's state, the receiver's half too;
     * in a parallel run the receiver's process never runs that start
     * (docs/parallel.md), so it makes its own, as the start
     * would have, when the first packet reaches it and uses only the
     * receiver's fields: a flow's state is touched only by its own host's
     * events. */
    if (__builtin_expect(!s->flows[fi].tp_state, 0) && p->dst_host == s->flows[fi].dst)
        s->flows[fi].tp_state = new_state(s->flows[fi].n_pkts);
    switch (p->type) {
    case PKT_DATA:
        if (p->flags & PKTF_TRIMMED)
            on_trimmed(s, fi, p);
        else
            on_data(s, fi, p);
        break;
    case PKT_ACK:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_ack(s, fi, p);
        break;
    case PKT_NACK:
        s->tot.ctl_delivered++;
        if (sender_side)
            on_nack(s, fi, p);
        break;
    case PKT_PULL:
        s->tot.ctl_delivered++;
        if (sender_side) {
            nf(s, fi)->pulls_heard++;
            pull_heard(s, fi, p->pull_q);
        }
        break;
    default:
        die_internal("NDP: unexpected packet type %u", p->type);
    }
    pkt_release(&s->pool, pkt_idx);
}

static void ndp_timer(struct sim *s, uint32_t fi, uint32_t kind)
{
    switch ((enum ndp_timer)kind) {
    case NDP_TIMER_RTO:
        rto_timer(s, fi);
        break;
    default:
        die_internal("unknown NDP timer %u", kind);
    }
}

static void ndp_host_timer(struct sim *s, uint32_t host, uint32_t kind)
{
    switch ((enum ndp_host_timer)kind) {
    case NDP_HTIMER_PULL:
        pacer_tick(s, host);
        break;
    default:
        die_internal("unknown NDP host timer %u", kind);
    }
}

static const char *const ndp_counter_names[] = {"pulls_heard", "pulls_used"};

static void ndp_counters(const struct sim *s, uint32_t fi, uint64_t *out)
{
    const struct ndp_flow *n = s->flows[fi].tp_state;
    out[0] = n ? n->pulls_heard : 0;
    out[1] = n ? n->pulls_used : 0;
}

/* Payload bytes the receiver holds, for Poisson goodput: every packet
 * counted once is full but perhaps the last. */
static uint64_t ndp_rcv_payload_bytes(const struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    const struct ndp_flow *n = f->tp_state;
    if (!n || !n->rcv.count)
        return 0;
    uint64_t mss = s->cfg.mtu_bytes - s->cfg.hdr_bytes;
    bool last = rcv_bitmap_test(&n->rcv, f->n_pkts - 1);
    return (uint64_t)(n->rcv.count - last) * mss + (last ? f->last_payload_bytes : 0);
}

static const struct transport_flag ndp_flags[] = {
    {"--ndp-opt", 1, true, "NAME=VALUE",
     "pull_rate (the receiver's pull pacer, a fraction of its link rate, default 0.99); repeatable"},
};

const struct transport_ops transport_ndp_ops = {
    .parallel_exact = true, /* tests/mpi_test.sh: byte-identical at 1, 2 and 3 processes */
    .name = "ndp",
    .description = "NDP (htsim_ndp, Handley et al. SIGCOMM 2017): full first window (-cwnd, default 15), "
                   "trimming, one PULL per arrival paced at 0.99 line rate by each receiver",
    .reads = TP_READS_CWND,
    .cc_hint = "NDP: the receiver's pulls clock the sender, there is no sender window",
    .setup = ndp_setup,
    .flow_add = ndp_flow_add,
    .flow_start = ndp_flow_start,
    .nic_pull = ndp_nic_pull,
    .receive = ndp_receive,
    .timer = ndp_timer,
    .host_timer = ndp_host_timer,
    .fabric_needs = ndp_fabric_needs,
    .free = ndp_free,
    .flow_release = ndp_flow_release,
    .can_release = ndp_can_release,
    .n_counters = 2,
    .counter_names = ndp_counter_names,
    .counters = ndp_counters,
    .rcv_payload_bytes = ndp_rcv_payload_bytes,
    .default_queue_pkts = NDP_DEFAULT_QUEUE_PKTS,
    .min_rto_base_ps = NDP_MIN_RTO_PS,
    .ecn_only_when_given = true,
    .flags = ndp_flags,
    .n_flags = sizeof ndp_flags / sizeof ndp_flags[0],
};
