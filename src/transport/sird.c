/* sird.c: SIRD, the receiver-driven transport of seed 001 (Prasopoulos,
 * Bugnion, Kogias), as /work/shared/specs/sird.md Sec. 1 specifies it. One
 * message is one spraysim flow; state that the paper keeps per host pair
 * (buckets, credit) lives per host here, not per flow.
 *
 * Sender (Alg. 2). A message of at most UnschT bytes sends its first
 * min(BDP, size) bytes unscheduled at once; anything beyond is scheduled and
 * announced with one CREDITREQ (header-only, control class). A CREDIT names
 * a message and covers its next packet; the sender keeps, per receiver r,
 * its unused credit c[r], and C = sum of c[r]. When the NIC is free:
 * resends and unscheduled packets first (the message with the fewest bytes
 * left), then scheduled packets: alternately (by bytes, tx_fair_share) the
 * SRPT pick (the credited message with the fewest bytes left) and a round
 * robin over receivers holding credit. Every data packet carries
 * csn = (C >= SThr), computed before its own credit is spent.
 *
 * Receiver (Alg. 1). Per receiving host: b, credit issued and not yet
 * returned, capped by the global bucket B; per sender i: sb[i] outstanding,
 * rem[i] requested and not yet credited, and two DCTCP-style AIMD buckets
 * (sender loop on the csn bit, network loop on ECN CE; effective limit their
 * minimum). Credits go out one packet at a time, paced at the downlink's
 * data rate, to the eligible sender (b + c <= B and sb[i] + c <= bucket)
 * whose best message has the fewest bytes left to credit (SRPT; rr:
 * round robin). Only scheduled data returns credit; every data packet
 * updates both AIMD loops.
 *
 * Network. Control and unscheduled data in the control (high) class,
 * scheduled data in the data class (prio option); ECN step marking at NThr
 * on every switch port; no trimming (loss by timeout, as Homa). Spraying is
 * the run's balancer's entropy on every data packet and CREDITREQ; credits
 * and resends take a uniformly random entropy.
 *
 * Loss (Homa-style, sird.md Sec. 1.9): a receiver that hears nothing of an
 * incomplete message for rx_timeout (its own credits count as activity)
 * asks for the missing unscheduled packets with RESENDs, and takes back the
 * credit of scheduled packets it credited that did not arrive, crediting
 * them again (flagged, so the sender resends a packet it sent, or uses the
 * credit for one whose first CREDIT was lost, or answers BUSY when it
 * simply has not sent it yet). After max_timeouts in a row it gives the
 * message up. A sender that hears no CREDIT for a CREDITREQ within the same
 * time sends the CREDITREQ again.
 *
 * Completion: a message is done when its receiver holds every byte (one-way
 * messages have no ACK): flows.csv's finish and receiver-done times are the
 * same. The sender learns it from a DONE (header only, control class,
 * carrying the completion instant) and only then lets go of the message
 * (its list, the credit it still holds, its next message on the
 * connection, a send_done trigger); a sender that sent every packet and has
 * heard no DONE for rx_timeout asks with a NEED_DONE, and the receiver
 * answers it, or any later data packet, with another DONE. So no host sees
 * another's state at the same instant, which makes SIRD exact in parallel
 * runs (pdes.c); the sender was once told at the receiver's instant.
 */
#include "sird.h"
#include "data_packet.h"

#include "../lb/lb.h"
#include "../sim.h"
#include "flow.h"
#include "rcv_bitmap.h"
#include "transport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_POS UINT32_MAX

enum sird_timer {
    SIRD_TIMER_PACE = 0, /* a receiver's credit pacer: a host timer (transport_host_timer_at) */
    SIRD_TIMER_RX = 1,   /* a message's receiver timeout */
    SIRD_TIMER_TX = 2,   /* a message's CREDITREQ timeout */
    SIRD_TIMER_DONE = 3, /* a message's sender, every packet sent: no DONE yet */
};

/* Per message (tp_state): both ends, since one flow is one message. */
struct sird_msg {
    /* sender */
    uint32_t unsched_pkts;     /* packets [0, unsched_pkts) go unscheduled */
    uint32_t next_seq;         /* next packet never sent */
    uint64_t credit_bytes;     /* credit received for this message and not spent */
    uint64_t sent_bytes;       /* payload of new packets sent */
    uint64_t sched_bytes;      /* bytes of packets [unsched_pkts, n_pkts) */
    uint64_t credit_rcvd_bytes; /* credit heard over the message's life (CREDITs and re-issues) */
    uint32_t *resend;          /* packets asked for again (rare) */
    uint32_t n_resend, cap_resend;
    uint32_t tx_pos;           /* index in its sender's list, NO_POS when it has nothing to send */
    bool heard;                /* a CREDIT or RESEND came back */
    bool done_timer_armed;
    simtime_ps tx_last_ps;     /* the last data packet sent */
    /* receiver */
    bool rx_started;           /* the receiver knows the message (first data or CREDITREQ) */
    bool req_known;            /* its CREDITREQ arrived */
    bool abandoned;
    uint8_t timeouts;          /* consecutive receiver timeouts */
    uint32_t next_credit_seq;  /* next scheduled packet to credit for the first time */
    uint64_t rem_credit_bytes; /* scheduled bytes still to credit (re-credits included) */
    uint64_t *credit_out_bits; /* per packet: its credit is outstanding */
    uint32_t *recredit;        /* packets whose credit a timeout took back: credited again first */
    uint32_t n_recredit, cap_recredit;
    uint64_t req_order;        /* arrival order of its CREDITREQ (SRPT ties) */
    uint32_t rx_pos;           /* index in its receiver's pending list, NO_POS when nothing is left to credit */
    struct rcv_bitmap rcv;     /* packets received (rcv_bitmap.h) */
    uint64_t rcv_payload_bytes;
    simtime_ps last_rx_ps;
};

/* Receiver dst's state about one sender (per host pair, kept for the run:
 * sird.md A25). */
struct sird_peer {
    uint64_t sb_bytes;           /* credit outstanding at this sender */
    uint64_t rem_bytes;          /* requested, not yet credited, over its messages */
    struct sird_aimd snd, net;   /* csn loop, ECN loop */
    uint64_t credited_bytes;     /* issued over the run (conservation check) */
    uint64_t sched_rcvd_bytes;   /* returned by scheduled data over the run */
    simtime_ps last_active_ps;   /* last data from it or credit to it (bkt_idle_reset) */
};

struct sird_rx_host {
    uint64_t b_bytes;
    struct sird_peer *peer;      /* n_hosts, allocated at first use */
    uint32_t *pending;           /* messages with credit still to issue */
    uint32_t n_pending, cap_pending;
    simtime_ps next_credit_ps;
    bool pace_armed;
    uint32_t rr_last;
    uint64_t credits_sent, credit_bytes_total;
    struct rng rng;              /* entropy of its credits and resends */
};

struct sird_tx_host {
    uint64_t *c_bytes;           /* unused credit per receiver, allocated at first use */
    uint64_t c_total_bytes;      /* C */
    uint32_t *msgs;              /* messages with something to send */
    uint32_t n_msgs, cap_msgs;
    uint64_t srpt_bytes, rr_bytes; /* scheduled bytes sent by each pick since the last idle */
    uint32_t rr_last;
};

struct sird_run {
    struct sird_params p;
    struct sird_rx_host *rx;
    struct sird_tx_host *tx;
    uint32_t n_hosts;
    uint32_t line_mbps;
    simtime_ps rx_timeout_ps;
    simtime_ps idle_reset_ps;  /* 0: buckets kept for the run (sird.md A25) */
    uint64_t req_counter;
    uint64_t csn_pkts, ce_pkts, unsched_pkts;
};

/* The run's SIRD state (transport_run_state), NULL before setup. */
static inline struct sird_run *sr(const struct sim *s)
{
    return transport_run_state(s, &transport_sird_ops);
}

static inline struct sird_msg *msg_of(const struct sim *s, uint32_t fi)
{
    return s->flows[fi].tp_state;
}

static inline uint32_t payload_of(const struct sim *s, const struct flow *f, uint32_t seq)
{
    return flow_pkt_payload(f, seq, sr(s)->p.mss_bytes);
}

/* ---- parameters -------------------------------------------------------------------- */

void sird_params_default(struct sird_params *p, uint32_t mss_bytes, uint32_t hdr_bytes)
{
    const uint64_t bdp = 100000; /* sird.md Sec. 1.3: P Table 2, "BDP = 100KB" */
    *p = (struct sird_params){
        .bdp_bytes = bdp,
        .b_bytes = bdp * 3 / 2,       /* P Table 2, Sec. 4.2, 5.5: B = 1.5 BDP */
        .bkt_max_bytes = bdp,         /* P Sec. 4.2: per-sender bucket max 1 BDP */
        .bkt_min_bytes = mss_bytes,   /* sird.md Sec. 1.3 [ours]: always creditable */
        .unscht_bytes = bdp,          /* P Table 2, Sec. 3, 5.5: UnschT = 1 BDP */
        .sthr_bytes = bdp / 2,        /* P Table 2, Sec. 4.3: SThr = 0.5 BDP */
        .nthr_bytes = bdp * 5 / 4,    /* P Table 2, Sec. 4.3: NThr = 1.25 BDP */
        .g = 0.08,                    /* sird.md A1 [ours]: the DCTCP baseline's g in P Table 2 */
        .ai_bytes = mss_bytes,        /* sird.md A1 [ours]: +1 MSS per window */
        .alpha0 = 0.0,                /* P Sec. 4.3 "execute the DCTCP algorithm", whose
                                       * ns-2 form (the baseline of P Sec. 5.1) starts
                                       * alpha at 0; sird.md A1's RFC 8257 1.0 is
                                       * alpha0=1 (docs/models.md "SIRD", issue 23) */
        .pacing = true,               /* P Sec. 4.5 */
        .pace_factor = 1.0,           /* P Sec. 4.5 "downlink's capacity"; sird.md A7 */
        .rx_policy = SIRD_RX_SRPT,    /* P Sec. 5.1 */
        .tx_fair_share = 0.5,         /* P Sec. 4.5, 5.4 ("50% in this case") */
        .prio = SIRD_PRIO_CTL_UNSCHED, /* P Sec. 4.6, 5.1 ("SIRD 2") */
        .trimming = false,            /* sird.md Sec. 1.9: not in the paper */
        .rx_timeout_rtts = 10,        /* sird.md Sec. 1.9 [ours] */
        .max_timeouts = 5,            /* sird.md Sec. 1.9 [ours], Homa-like */
        .bkt_idle_reset_rtts = 0,     /* sird.md A25: never reset (0 = off) */
        .mss_bytes = mss_bytes,
        .hdr_bytes = hdr_bytes,
    };
}

static bool parse_real(const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !isfinite(d))
        return false;
    *out = d;
    return true;
}

/* Byte sizes are given in BDPs (sird.md's unit) and rounded to bytes. */
static bool bdp_multiple(const char *v, double lo, double hi, uint64_t bdp, uint64_t *out)
{
    double d;
    if (!parse_real(v, &d) || d < lo || d > hi)
        return false;
    *out = (uint64_t)llround(d * (double)bdp);
    return true;
}

bool sird_params_apply(struct sird_params *p, const char *opt, uint64_t run_bdp_bytes, char *err, size_t errlen)
{
    const char *eq = strchr(opt, '=');
    if (!eq || eq == opt || !eq[1]) {
        snprintf(err, errlen, "--sird-opt: '%s' is not NAME=VALUE", opt);
        return false;
    }
    size_t n = (size_t)(eq - opt);
    const char *v = eq + 1;
    char name[32];
    if (n >= sizeof name) {
        snprintf(err, errlen, "--sird-opt %s: unknown option", opt);
        return false;
    }
    memcpy(name, opt, n);
    name[n] = 0;
    double d = 0;
    bool ok = true;
    const char *range = "";
    if (!strcmp(name, "bdp")) {
        range = "a byte count from 1000 to 1e9, or auto (the run's path BDP)";
        if (!strcmp(v, "auto"))
            p->bdp_bytes = run_bdp_bytes;
        else if ((ok = parse_real(v, &d) && d >= 1000 && d <= 1e9))
            p->bdp_bytes = (uint64_t)llround(d);
    } else if (!strcmp(name, "B")) {
        range = "a multiple of BDP from 0.01 to 100";
        ok = bdp_multiple(v, 0.01, 100, p->bdp_bytes, &p->b_bytes);
    } else if (!strcmp(name, "bkt_max")) {
        range = "a multiple of BDP from 0.01 to 100";
        ok = bdp_multiple(v, 0.01, 100, p->bdp_bytes, &p->bkt_max_bytes);
    } else if (!strcmp(name, "bkt_min")) {
        range = "a number of MSS from 1 to 1000";
        if ((ok = parse_real(v, &d) && d >= 1 && d <= 1000))
            p->bkt_min_bytes = (uint64_t)llround(d * p->mss_bytes);
    } else if (!strcmp(name, "unscht")) {
        range = "a multiple of BDP from 0 to 1000";
        ok = bdp_multiple(v, 0, 1000, p->bdp_bytes, &p->unscht_bytes);
    } else if (!strcmp(name, "sthr")) {
        range = "a multiple of BDP from 0 to 100, or inf";
        if (!strcmp(v, "inf"))
            p->sthr_bytes = UINT64_MAX;
        else
            ok = bdp_multiple(v, 0, 100, p->bdp_bytes, &p->sthr_bytes);
    } else if (!strcmp(name, "nthr")) {
        range = "a multiple of BDP from 0.01 to 1000";
        ok = bdp_multiple(v, 0.01, 1000, p->bdp_bytes, &p->nthr_bytes) && p->nthr_bytes < UINT32_MAX / 2;
    } else if (!strcmp(name, "g")) {
        range = "a number above 0 up to 1";
        if ((ok = parse_real(v, &d) && d > 0 && d <= 1))
            p->g = d;
    } else if (!strcmp(name, "ai")) {
        range = "a number of MSS from 0.01 to 100";
        if ((ok = parse_real(v, &d) && d >= 0.01 && d <= 100))
            p->ai_bytes = (uint64_t)llround(d * p->mss_bytes);
    } else if (!strcmp(name, "alpha0")) {
        range = "a number from 0 to 1";
        if ((ok = parse_real(v, &d) && d >= 0 && d <= 1))
            p->alpha0 = d;
    } else if (!strcmp(name, "pacing")) {
        range = "0 or 1";
        if ((ok = !strcmp(v, "0") || !strcmp(v, "1")))
            p->pacing = v[0] == '1';
    } else if (!strcmp(name, "pace_factor")) {
        range = "a number from 0.1 to 10";
        if ((ok = parse_real(v, &d) && d >= 0.1 && d <= 10))
            p->pace_factor = d;
    } else if (!strcmp(name, "rx_policy")) {
        range = "srpt or rr";
        if ((ok = !strcmp(v, "srpt") || !strcmp(v, "rr")))
            p->rx_policy = !strcmp(v, "rr") ? SIRD_RX_RR : SIRD_RX_SRPT;
    } else if (!strcmp(name, "tx_fair_share")) {
        range = "a number from 0 to 1";
        if ((ok = parse_real(v, &d) && d >= 0 && d <= 1))
            p->tx_fair_share = d;
    } else if (!strcmp(name, "prio")) {
        range = "none, ctl or ctl+unsched";
        if (!strcmp(v, "none"))
            p->prio = SIRD_PRIO_NONE;
        else if (!strcmp(v, "ctl"))
            p->prio = SIRD_PRIO_CTL;
        else if (!strcmp(v, "ctl+unsched"))
            p->prio = SIRD_PRIO_CTL_UNSCHED;
        else
            ok = false;
    } else if (!strcmp(name, "trim")) {
        range = "0 or 1";
        if ((ok = !strcmp(v, "0") || !strcmp(v, "1")))
            p->trimming = v[0] == '1';
    } else if (!strcmp(name, "rx_timeout")) {
        range = "a number of base RTTs from 1 to 1e6";
        if ((ok = parse_real(v, &d) && d >= 1 && d <= 1e6))
            p->rx_timeout_rtts = d;
    } else if (!strcmp(name, "bkt_idle_reset")) {
        range = "a number of base RTTs from 0 (never) to 1e6";
        if ((ok = parse_real(v, &d) && d >= 0 && d <= 1e6))
            p->bkt_idle_reset_rtts = d;
    } else if (!strcmp(name, "max_timeouts")) {
        range = "a whole number from 1 to 255";
        if ((ok = parse_real(v, &d) && d >= 1 && d <= 255 && d == floor(d)))
            p->max_timeouts = (uint32_t)d;
    } else {
        snprintf(err, errlen,
                 "--sird-opt %s: unknown option (known: bdp, B, bkt_max, bkt_min, unscht, sthr, nthr, g, ai, alpha0, "
                 "pacing, pace_factor, rx_policy, tx_fair_share, prio, trim, rx_timeout, max_timeouts, "
                 "bkt_idle_reset)",
                 opt);
        return false;
    }
    if (!ok) {
        snprintf(err, errlen, "--sird-opt %s: '%s' is not %s", name, v, range);
        return false;
    }
    return true;
}

/* ---- the paper's rules ------------------------------------------------------------ */

uint64_t sird_unsched_bytes(uint64_t size_bytes, uint64_t unscht_bytes, uint64_t bdp_bytes)
{
    /* P Sec. 3; sird.md A6: "<= UnschT" gets the prefix */
    if (size_bytes > unscht_bytes)
        return 0;
    return size_bytes < bdp_bytes ? size_bytes : bdp_bytes;
}

uint32_t sird_unsched_pkts(uint64_t size_bytes, const struct sird_params *p)
{
    uint64_t u = sird_unsched_bytes(size_bytes, p->unscht_bytes, p->bdp_bytes);
    /* packets are cut at MSS boundaries: the prefix is rounded up to the
     * packet that holds its last byte (less than one MSS more) */
    return (uint32_t)(u / p->mss_bytes + (u % p->mss_bytes != 0));
}

bool sird_eligible(uint64_t b, uint64_t b_max, uint64_t sb, uint64_t bkt, uint64_t credit)
{
    /* Alg. 1 ln 9 (global bucket) and ln 10 (per-sender bucket) */
    return b + credit <= b_max && sb + credit <= bkt;
}

bool sird_csn(uint64_t c_bytes, uint64_t sthr_bytes)
{
    return c_bytes >= sthr_bytes; /* Alg. 2 ln 8 uses >= */
}

void sird_aimd_init(struct sird_aimd *a, const struct sird_params *p)
{
    *a = (struct sird_aimd){.alpha = p->alpha0, .bkt_bytes = p->bkt_max_bytes}; /* sird.md A1: starts at max */
}

/* sird.md Sec. 1.5 step 3: DCTCP's AIMD, one window = the bucket's bytes. */
void sird_aimd_update(struct sird_aimd *a, uint32_t payload_bytes, bool marked, const struct sird_params *p)
{
    a->win_bytes += payload_bytes;
    if (marked)
        a->win_marked_bytes += payload_bytes;
    uint64_t win = a->bkt_bytes > p->mss_bytes ? a->bkt_bytes : p->mss_bytes;
    if (a->win_bytes < win)
        return;
    double frac = (double)a->win_marked_bytes / (double)a->win_bytes;
    a->alpha = (1 - p->g) * a->alpha + p->g * frac;
    if (a->win_marked_bytes) {
        uint64_t nb = (uint64_t)((double)a->bkt_bytes * (1 - a->alpha / 2));
        a->bkt_bytes = nb > p->bkt_min_bytes ? nb : p->bkt_min_bytes;
    } else {
        uint64_t nb = a->bkt_bytes + p->ai_bytes;
        a->bkt_bytes = nb < p->bkt_max_bytes ? nb : p->bkt_max_bytes;
    }
    a->win_bytes = a->win_marked_bytes = 0;
    invariant(a->bkt_bytes >= p->bkt_min_bytes && a->bkt_bytes <= p->bkt_max_bytes,
              "SIRD bucket %llu outside [%llu, %llu]", (unsigned long long)a->bkt_bytes,
              (unsigned long long)p->bkt_min_bytes, (unsigned long long)p->bkt_max_bytes);
}

/* ---- setup --------------------------------------------------------------------------- */

static void sird_setup(struct sim *s)
{
    const struct config *c = &s->cfg;
    struct sird_run *r = xcalloc(1, sizeof *r);
    transport_set_run_state(s, &transport_sird_ops, r);
    sird_params_default(&r->p, c->mtu_bytes - c->hdr_bytes, c->hdr_bytes);
    /* bdp first: B, SThr, ... given in BDPs scale with it, whatever the order */
    char err[512];
    unsigned n_opts = transport_flag_count(s, "--sird-opt");
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < n_opts; i++) {
            const char *o = transport_flag_arg_at(s, "--sird-opt", i, 0);
            bool is_bdp = !strncmp(o, "bdp=", 4);
            if ((pass == 0) != is_bdp)
                continue;
            if (!sird_params_apply(&r->p, o, s->bdp_bytes, err, sizeof err))
                die_input("%s", err);
        }
    struct sird_params *p = &r->p;
    if (p->bkt_min_bytes > p->bkt_max_bytes)
        die_input("--sird-opt bkt_min: %llu bytes exceeds bkt_max (%llu bytes)", (unsigned long long)p->bkt_min_bytes,
                  (unsigned long long)p->bkt_max_bytes);
    if (p->b_bytes < p->mss_bytes)
        die_input("--sird-opt B: %llu bytes is less than one MSS (%u): no credit could ever be sent",
                  (unsigned long long)p->b_bytes, p->mss_bytes);
    r->n_hosts = s->n_hosts;
    r->line_mbps = c->linkspeed_mbps * c->planes; /* -planes N: N receiving NIC ports */
    r->rx_timeout_ps = (simtime_ps)(p->rx_timeout_rtts * (double)s->base_rtt_ps);
    r->idle_reset_ps = (simtime_ps)(p->bkt_idle_reset_rtts * (double)s->base_rtt_ps);
    r->rx = xcalloc(s->n_hosts ? s->n_hosts : 1, sizeof *r->rx);
    r->tx = xcalloc(s->n_hosts ? s->n_hosts : 1, sizeof *r->tx);
    for (uint32_t h = 0; h < s->n_hosts; h++) {
        /* a substream no flow's balancer uses (they use their flow index) */
        rng_seed(&r->rx[h].rng, c->seed, RNG_STREAM_LB, (1ULL << 40) + h);
        r->rx[h].rr_last = h;
        r->tx[h].rr_last = h;
    }
    if (!strcmp(c->transport_name, "sird"))
        s->no_sender_window = true; /* the summary's switches are its classes' policy (net_class_ecn) */
}

static void sird_flow_add(struct sim *s, uint32_t fi)
{
    (void)s;
    (void)fi; /* state comes at the start */
}

static void free_msg_arrays(struct sird_msg *m)
{
    free(m->resend);
    m->resend = NULL;
    m->n_resend = m->cap_resend = 0;
    rcv_bitmap_free(&m->rcv);
    free(m->credit_out_bits);
    m->credit_out_bits = NULL;
    free(m->recredit);
    m->recredit = NULL;
    m->n_recredit = m->cap_recredit = 0;
}

static void sird_free(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_flows; i++) {
        struct flow *f = &s->flows[i];
        if (f->tp != &transport_sird_ops || !f->tp_state)
            continue;
        free_msg_arrays(f->tp_state);
        free(f->tp_state);
        f->tp_state = NULL;
        transport_cc_lb_free(f);
    }
    struct sird_run *r = sr(s);
    if (!r)
        return;
    for (uint32_t h = 0; h < r->n_hosts; h++) {
        free(r->rx[h].peer);
        free(r->rx[h].pending);
        free(r->tx[h].c_bytes);
        free(r->tx[h].msgs);
    }
    free(r->rx);
    free(r->tx);
    free(r);
    transport_set_run_state(s, &transport_sird_ops, NULL);
}

/* ---- lists of flow indices --------------------------------------------------------- */

static void list_add(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t fi, uint32_t *pos)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *a = xrealloc(*a, (size_t)*cap * sizeof **a);
    }
    *pos = *n;
    (*a)[(*n)++] = fi;
}

/* Takes a message out of its sender's list (the last entry moves into its slot). */
static void tx_list_remove(struct sim *s, struct sird_tx_host *th, struct sird_msg *m)
{
    uint32_t i = m->tx_pos;
    uint32_t last = th->msgs[--th->n_msgs];
    th->msgs[i] = last;
    msg_of(s, last)->tx_pos = i;
    m->tx_pos = NO_POS;
}

static void rx_list_remove(struct sim *s, struct sird_rx_host *rh, struct sird_msg *m)
{
    uint32_t i = m->rx_pos;
    uint32_t last = rh->pending[--rh->n_pending];
    rh->pending[i] = last;
    msg_of(s, last)->rx_pos = i;
    m->rx_pos = NO_POS;
}

static struct sird_peer *peer_of(struct sim *s, uint32_t dst, uint32_t src)
{
    struct sird_run *r = sr(s);
    struct sird_rx_host *rh = &r->rx[dst];
    if (!rh->peer) {
        rh->peer = xcalloc(r->n_hosts, sizeof *rh->peer);
        for (uint32_t i = 0; i < r->n_hosts; i++) {
            sird_aimd_init(&rh->peer[i].snd, &r->p);
            sird_aimd_init(&rh->peer[i].net, &r->p);
        }
    }
    return &rh->peer[src];
}

static uint64_t *tx_credit_of(struct sim *s, uint32_t src, uint32_t dst)
{
    struct sird_run *r = sr(s);
    struct sird_tx_host *th = &r->tx[src];
    if (!th->c_bytes)
        th->c_bytes = xcalloc(r->n_hosts, sizeof *th->c_bytes);
    return &th->c_bytes[dst];
}

static inline uint64_t peer_limit(const struct sird_peer *pe)
{
    /* P Sec. 4.3, Alg. 1 ln 10: the most conservative of the two loops */
    return pe->snd.bkt_bytes < pe->net.bkt_bytes ? pe->snd.bkt_bytes : pe->net.bkt_bytes;
}

#ifdef SPRAYSIM_CHECKS
/* sird.md Sec. 1.5: 0 <= b <= B, sum of sb = b, buckets within bounds,
 * scheduled bytes received never exceed credit issued. */
static void check_rx(struct sim *s, uint32_t h)
{
    struct sird_run *r = sr(s);
    struct sird_rx_host *rh = &r->rx[h];
    invariant(rh->b_bytes <= r->p.b_bytes, "SIRD receiver %u: b %llu above B %llu", h,
              (unsigned long long)rh->b_bytes, (unsigned long long)r->p.b_bytes);
    if (!rh->peer)
        return;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < r->n_hosts; i++) {
        const struct sird_peer *pe = &rh->peer[i];
        sum += pe->sb_bytes;
        invariant(pe->snd.bkt_bytes >= r->p.bkt_min_bytes && pe->snd.bkt_bytes <= r->p.bkt_max_bytes &&
                      pe->net.bkt_bytes >= r->p.bkt_min_bytes && pe->net.bkt_bytes <= r->p.bkt_max_bytes,
                  "SIRD receiver %u: a bucket of sender %u is outside its bounds", h, i);
        invariant(pe->sched_rcvd_bytes + pe->sb_bytes == pe->credited_bytes,
                  "SIRD receiver %u, sender %u: %llu credited but %llu returned + %llu outstanding", h, i,
                  (unsigned long long)pe->credited_bytes, (unsigned long long)pe->sched_rcvd_bytes,
                  (unsigned long long)pe->sb_bytes);
    }
    invariant(sum == rh->b_bytes, "SIRD receiver %u: sum of per-sender credit %llu != b %llu", h,
              (unsigned long long)sum, (unsigned long long)rh->b_bytes);
}

static void check_tx(struct sim *s, uint32_t h)
{
    struct sird_run *r = sr(s);
    struct sird_tx_host *th = &r->tx[h];
    if (!th->c_bytes)
        return;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < r->n_hosts; i++)
        sum += th->c_bytes[i];
    invariant(sum == th->c_total_bytes, "SIRD sender %u: C %llu but its per-receiver credit sums to %llu", h,
              (unsigned long long)th->c_total_bytes, (unsigned long long)sum);
}
#else
static inline void check_rx(struct sim *s, uint32_t h)
{
    (void)s;
    (void)h;
}
static inline void check_tx(struct sim *s, uint32_t h)
{
    (void)s;
    (void)h;
}
#endif

/* ---- packets ------------------------------------------------------------------------- */

/* Control goes first unless prio=none, when it shares the message's data
 * class. */
static uint8_t ctl_prio(const struct sim *s, const struct flow *f)
{
    return sr(s)->p.prio == SIRD_PRIO_NONE ? f->prio_class : PKT_PRIO_CONTROL;
}

/* A header-only packet of message fi from `from` to `to`. */
static uint32_t ctl_packet(struct sim *s, uint32_t fi, uint8_t type, uint32_t from, uint32_t to, uint16_t entropy)
{
    const struct flow *f = &s->flows[fi];
    uint32_t idx = transport_new_packet(s, fi, type, 0, s->cfg.hdr_bytes);
    struct packet *p = pkt_at(&s->pool, idx);
    p->prio = ctl_prio(s, f);
    p->src_host = from;
    p->dst_host = to;
    p->ts_ps = s->now;
    p->entropy = entropy;
    return idx;
}

static uint16_t rx_entropy(struct sim *s, uint32_t host)
{
    uint32_t paths = s->cfg.paths ? s->cfg.paths : 1;
    return (uint16_t)rng_below(&sr(s)->rx[host].rng, paths);
}

static void send_credit_req(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = msg_of(s, fi);
    uint16_t ent = f->lb->next_entropy(f->lb_state, m->unsched_pkts, s->now);
    uint32_t idx = ctl_packet(s, fi, SIRD_PKT_CREDIT_REQ, f->src, f->dst, ent);
    pkt_at(&s->pool, idx)->pull_q = (int64_t)m->sched_bytes;
    nic_send(s, f->src, idx);
    transport_timer_at(s, s->now + sr(s)->rx_timeout_ps, fi, SIRD_TIMER_TX);
}

/* ---- sender ------------------------------------------------------------------------------ */

static bool has_unsched(const struct sird_msg *m)
{
    return m->n_resend || m->next_seq < m->unsched_pkts;
}

static void tx_track(struct sim *s, uint32_t fi)
{
    struct sird_msg *m = msg_of(s, fi);
    struct sird_tx_host *th = &sr(s)->tx[s->flows[fi].src];
    if (m->tx_pos == NO_POS)
        list_add(&th->msgs, &th->n_msgs, &th->cap_msgs, fi, &m->tx_pos);
    transport_nic_ready(s, fi);
}

/* A message's state, both ends' rule for its unscheduled prefix (the
 * receiver reads the size from the header) applied. */
static struct sird_msg *new_msg(struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    struct sird_msg *m = xcalloc(1, sizeof *m);
    m->tx_pos = m->rx_pos = NO_POS;
    m->unsched_pkts = sird_unsched_pkts(f->size_bytes, &sr(s)->p);
    if (m->unsched_pkts > f->n_pkts)
        m->unsched_pkts = f->n_pkts;
    return m;
}

static void sird_flow_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (!transport_flow_activate(s, f))
        return;
    struct sird_run *r = sr(s);
    struct sird_msg *m = new_msg(s, fi);
    f->tp_state = m;
    uint64_t unsched_payload = m->unsched_pkts == f->n_pkts
                                   ? f->size_bytes
                                   : (uint64_t)m->unsched_pkts * r->p.mss_bytes;
    m->sched_bytes = f->size_bytes - unsched_payload;
    transport_lb_start(s, fi);
    if (m->sched_bytes)
        send_credit_req(s, fi); /* P Sec. 4.1 (2): at once, on the control class */
    if (m->unsched_pkts)
        tx_track(s, fi); /* P Sec. 3: unscheduled bytes at line rate, at once */
}

/* Among the sender's listed messages, the one with the fewest bytes left
 * (ties: the older, i.e. the lower flow index) that has a resend or an
 * unscheduled packet to send (unsched), or else whose credit covers its
 * next packet, only to only_dst unless UINT32_MAX. */
static uint32_t pick_fewest_left(struct sim *s, const struct sird_tx_host *th, bool unsched, uint32_t only_dst)
{
    uint32_t best = UINT32_MAX;
    uint64_t best_left = UINT64_MAX;
    for (uint32_t k = 0; k < th->n_msgs; k++) {
        uint32_t fi = th->msgs[k];
        const struct flow *f = &s->flows[fi];
        const struct sird_msg *m = f->tp_state;
        if (unsched) {
            if (!has_unsched(m))
                continue;
        } else {
            if (m->next_seq >= f->n_pkts || m->credit_bytes < payload_of(s, f, m->next_seq))
                continue;
            if (only_dst != UINT32_MAX && f->dst != only_dst)
                continue;
        }
        uint64_t left = f->size_bytes - m->sent_bytes;
        if (left < best_left || (left == best_left && fi < best)) {
            best_left = left;
            best = fi;
        }
    }
    return best;
}

/* Round robin over receivers holding credit: the next after rr_last. */
static uint32_t pick_rr_receiver(struct sim *s, const struct sird_tx_host *th)
{
    uint32_t n = sr(s)->n_hosts, best = UINT32_MAX, best_d = UINT32_MAX;
    for (uint32_t k = 0; k < th->n_msgs; k++) {
        const struct flow *f = &s->flows[th->msgs[k]];
        const struct sird_msg *m = f->tp_state;
        if (m->next_seq >= f->n_pkts || m->credit_bytes < payload_of(s, f, m->next_seq))
            continue;
        uint32_t d = (f->dst + n - th->rr_last - 1) % n;
        if (d < best_d) {
            best_d = d;
            best = f->dst;
        }
    }
    return best;
}

/* Payload of packets [a, b). */
static uint64_t bytes_of_range(const struct sim *s, const struct flow *f, uint32_t a, uint32_t b)
{
    if (b > f->n_pkts)
        b = f->n_pkts;
    if (b <= a)
        return 0;
    uint64_t bytes = (uint64_t)(b - a) * sr(s)->p.mss_bytes;
    if (b == f->n_pkts)
        bytes -= sr(s)->p.mss_bytes - f->last_payload_bytes;
    return bytes;
}

static void remember_resend(struct sird_msg *m, uint32_t seq)
{
    for (uint32_t i = 0; i < m->n_resend; i++)
        if (m->resend[i] == seq)
            return;
    if (m->n_resend == m->cap_resend) {
        m->cap_resend = m->cap_resend ? 2 * m->cap_resend : 8;
        m->resend = xrealloc(m->resend, m->cap_resend * sizeof *m->resend);
    }
    m->resend[m->n_resend++] = seq;
}

static uint32_t data_packet(struct sim *s, uint32_t fi, uint32_t seq, bool rtx)
{
    struct sird_run *r = sr(s);
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    struct sird_tx_host *th = &r->tx[f->src];
    uint32_t payload = payload_of(s, f, seq);
    bool sched = seq >= m->unsched_pkts;
    /* Alg. 2 ln 8 before ln 9: csn from C before this packet's credit is spent */
    bool csn = sird_csn(th->c_total_bytes, r->p.sthr_bytes);
    uint32_t idx = transport_data_packet(s, fi, seq, payload + r->p.hdr_bytes);
    struct packet *p = pkt_at(&s->pool, idx);
    p->prio = (!sched && r->p.prio == SIRD_PRIO_CTL_UNSCHED) ? PKT_PRIO_CONTROL : f->prio_class;
    if (sched)
        p->flags |= SIRD_PKTF_SCHED;
    if (csn) {
        p->flags |= SIRD_PKTF_CSN;
        r->csn_pkts++;
    }
    if (!sched)
        r->unsched_pkts++;
    f->c.pkts_sent++;
    s->tot.data_pkts_sent++;
    if (rtx) {
        p->flags |= PKTF_RTX;
        f->c.retransmits++;
        s->tot.rtx_pkts_sent++;
    } else {
        m->next_seq++;
        m->sent_bytes += payload;
        if (sched) {
            uint64_t *c = tx_credit_of(s, f->src, f->dst);
            invariant(m->credit_bytes >= payload && *c >= payload && th->c_total_bytes >= payload,
                      "SIRD flow %u: scheduled packet %u without its credit", fi, seq);
            m->credit_bytes -= payload;
            *c -= payload;
            th->c_total_bytes -= payload;
        }
    }
    m->tx_last_ps = s->now;
    if (m->next_seq >= f->n_pkts && !m->done_timer_armed) {
        m->done_timer_armed = true;
        transport_timer_at(s, s->now + r->rx_timeout_ps, fi, SIRD_TIMER_DONE);
    }
    /* out of the sender's list while it cannot send; a CREDIT or RESEND puts it back */
    if (m->tx_pos != NO_POS && !has_unsched(m) &&
        (m->next_seq >= f->n_pkts || m->credit_bytes < payload_of(s, f, m->next_seq)))
        tx_list_remove(s, th, m);
    check_tx(s, f->src);
    return idx;
}

/* Alg. 2 poll: the host's next data packet, whichever of its messages it
 * belongs to (the NIC asks through any flow of the host). */
static uint32_t sird_nic_pull(struct sim *s, uint32_t fi_any)
{
    struct sird_run *r = sr(s);
    uint32_t h = s->flows[fi_any].src;
    struct sird_tx_host *th = &r->tx[h];
    /* resends and unscheduled packets first (sird.md Sec. 1.4 3b, A24) */
    uint32_t fi = pick_fewest_left(s, th, true, UINT32_MAX);
    if (fi != UINT32_MAX) {
        struct sird_msg *m = msg_of(s, fi);
        if (m->n_resend) {
            uint32_t seq = m->resend[0];
            memmove(m->resend, m->resend + 1, (m->n_resend - 1) * sizeof *m->resend);
            m->n_resend--;
            return data_packet(s, fi, seq, true);
        }
        return data_packet(s, fi, m->next_seq, false);
    }
    /* scheduled: SRPT or the fair round robin, by bytes (sird.md A8) */
    double share = r->p.tx_fair_share;
    bool rr = share >= 1 || (share > 0 && (double)th->rr_bytes * (1 - share) <= (double)th->srpt_bytes * share);
    if (rr) {
        uint32_t dst = pick_rr_receiver(s, th);
        if (dst != UINT32_MAX) {
            fi = pick_fewest_left(s, th, false, dst);
            th->rr_last = dst;
        }
    } else {
        fi = pick_fewest_left(s, th, false, UINT32_MAX);
    }
    if (fi == UINT32_MAX) {
        th->rr_bytes = th->srpt_bytes = 0; /* idle: no debt carried into the next busy period */
        return PKT_NONE;
    }
    struct sird_msg *m = msg_of(s, fi);
    uint32_t payload = payload_of(s, &s->flows[fi], m->next_seq);
    if (rr)
        th->rr_bytes += payload;
    else
        th->srpt_bytes += payload;
    return data_packet(s, fi, m->next_seq, false);
}

/* Alg. 2 onCreditPacket. */
static void on_credit(struct sim *s, const struct packet *p)
{
    uint32_t fi = p->flow;
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    s->tot.ctl_delivered++;
    m->heard = true;
    if (f->state != FLOW_ACTIVE)
        return; /* complete already: nothing left to send */
    if (p->flags & PKTF_RTX) {
        /* a re-credit after a receiver timeout */
        if (p->seq < m->next_seq) {
            remember_resend(m, p->seq); /* sent and lost: this credit pays for the copy */
            tx_track(s, fi);
            return;
        }
        if (m->credit_rcvd_bytes >= bytes_of_range(s, f, m->unsched_pkts, p->seq + 1)) {
            /* not sent yet, and its credit is here: the uplink is busy
             * (Homa's BUSY), the receiver waits on */
            uint32_t idx = ctl_packet(s, fi, SIRD_PKT_BUSY, f->src, f->dst,
                                      f->lb->next_entropy(f->lb_state, m->next_seq, s->now));
            nic_send(s, f->src, idx);
            return;
        }
        /* its first CREDIT was lost: this one stands in for it */
    }
    uint64_t *c = tx_credit_of(s, f->src, f->dst);
    m->credit_bytes += p->recvd_bytes;
    m->credit_rcvd_bytes += p->recvd_bytes;
    *c += p->recvd_bytes;
    sr(s)->tx[f->src].c_total_bytes += p->recvd_bytes;
    tx_track(s, fi);
}

static void on_resend(struct sim *s, const struct packet *p)
{
    uint32_t fi = p->flow;
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    s->tot.ctl_delivered++;
    m->heard = true;
    if (f->state != FLOW_ACTIVE)
        return;
    bool unsent = false;
    for (uint32_t q = p->seq; q < p->seq + p->recvd_bytes && q < f->n_pkts; q++) {
        if (q < m->next_seq)
            remember_resend(m, q);
        else
            unsent = true;
    }
    if (unsent) {
        /* Homa's BUSY: not lost, not sent yet (other messages' unscheduled
         * packets went first): the receiver waits on */
        uint32_t idx = ctl_packet(s, fi, SIRD_PKT_BUSY, f->src, f->dst,
                                  f->lb->next_entropy(f->lb_state, m->next_seq, s->now));
        nic_send(s, f->src, idx);
    }
    tx_track(s, fi);
}

/* ---- receiver ---------------------------------------------------------------------------- */

static void rx_arm_timer(struct sim *s, uint32_t fi)
{
    transport_timer_at(s, msg_of(s, fi)->last_rx_ps + sr(s)->rx_timeout_ps, fi, SIRD_TIMER_RX);
}

static void rx_start(struct sim *s, uint32_t fi)
{
    struct sird_msg *m = msg_of(s, fi);
    if (m->rx_started)
        return;
    m->rx_started = true;
    rcv_bitmap_init(&m->rcv, s->flows[fi].n_pkts);
    m->credit_out_bits = xcalloc((s->flows[fi].n_pkts + 63) / 64, sizeof(uint64_t));
    m->last_rx_ps = s->now;
    rx_arm_timer(s, fi);
}

static inline bool bit_get(const uint64_t *bits, uint32_t q)
{
    return bits[q >> 6] >> (q & 63) & 1;
}

static inline void bit_put(uint64_t *bits, uint32_t q, bool v)
{
    if (v)
        bits[q >> 6] |= 1ULL << (q & 63);
    else
        bits[q >> 6] &= ~(1ULL << (q & 63));
}

/* The packet a message's next credit is for: re-credits first. */
static inline uint32_t next_to_credit(const struct sird_msg *m)
{
    return m->n_recredit ? m->recredit[0] : m->next_credit_seq;
}

/* Alg. 1 ln 11: the eligible pending message to credit next, or UINT32_MAX. */
static uint32_t rx_pick(struct sim *s, uint32_t h)
{
    struct sird_run *r = sr(s);
    struct sird_rx_host *rh = &r->rx[h];
    uint32_t n = r->n_hosts;
    uint32_t best = UINT32_MAX, best_d = UINT32_MAX;
    uint64_t best_rem = UINT64_MAX, best_order = UINT64_MAX;
    for (uint32_t k = 0; k < rh->n_pending; k++) {
        uint32_t fi = rh->pending[k];
        const struct flow *f = &s->flows[fi];
        const struct sird_msg *m = f->tp_state;
        const struct sird_peer *pe = &rh->peer[f->src];
        uint32_t credit = payload_of(s, f, next_to_credit(m));
        if (!sird_eligible(rh->b_bytes, r->p.b_bytes, pe->sb_bytes, peer_limit(pe), credit))
            continue;
        uint32_t d = r->p.rx_policy == SIRD_RX_RR ? (f->src + n - rh->rr_last - 1) % n : 0;
        /* SRPT: fewest bytes left to credit; rr: the next sender, then its best */
        if (d < best_d || (d == best_d && (m->rem_credit_bytes < best_rem ||
                                           (m->rem_credit_bytes == best_rem && m->req_order < best_order)))) {
            best = fi;
            best_d = d;
            best_rem = m->rem_credit_bytes;
            best_order = m->req_order;
        }
    }
    return best;
}

static void arm_pacer(struct sim *s, uint32_t h)
{
    struct sird_rx_host *rh = &sr(s)->rx[h];
    if (rh->pace_armed)
        return;
    rh->pace_armed = true;
    transport_host_timer_at(s, rh->next_credit_ps, &transport_sird_ops, h, SIRD_TIMER_PACE);
}

/* Alg. 1 sendCredit, paced at the downlink's data rate (P Sec. 4.5). */
static void rx_try_credit(struct sim *s, uint32_t h)
{
    struct sird_run *r = sr(s);
    struct sird_rx_host *rh = &r->rx[h];
    while (rh->n_pending) {
        if (r->p.pacing && s->now < rh->next_credit_ps) {
            arm_pacer(s, h);
            return;
        }
        uint32_t fi = rx_pick(s, h);
        if (fi == UINT32_MAX)
            return; /* looked at again on the next DATA or CREDITREQ */
        struct flow *f = &s->flows[fi];
        struct sird_msg *m = f->tp_state;
        struct sird_peer *pe = &rh->peer[f->src];
        bool again = m->n_recredit > 0;
        uint32_t seq = next_to_credit(m);
        uint32_t credit = payload_of(s, f, seq);
        invariant(pe->sb_bytes + credit <= peer_limit(pe), "SIRD receiver %u: credit beyond sender %u's bucket", h,
                  f->src);
        uint32_t idx = ctl_packet(s, fi, SIRD_PKT_CREDIT, h, f->src, rx_entropy(s, h));
        struct packet *p = pkt_at(&s->pool, idx);
        p->seq = seq;
        p->recvd_bytes = credit;
        if (again)
            p->flags |= PKTF_RTX; /* for a packet the sender may have sent already */
        nic_send(s, h, idx);
        s->tot.pulls_sent++;
        rh->credits_sent++;
        rh->credit_bytes_total += credit;
        if (again)
            memmove(m->recredit, m->recredit + 1, --m->n_recredit * sizeof *m->recredit);
        else
            m->next_credit_seq++;
        bit_put(m->credit_out_bits, seq, true);
        m->rem_credit_bytes -= credit;
        m->last_rx_ps = s->now; /* the timeout counts silence since the receiver last asked for data */
        pe->rem_bytes -= credit;
        pe->sb_bytes += credit;
        pe->credited_bytes += credit;
        pe->last_active_ps = s->now;
        rh->b_bytes += credit; /* Alg. 1 ln 14 */
        rh->rr_last = f->src;
        if (!m->rem_credit_bytes)
            rx_list_remove(s, rh, m);
        check_rx(s, h);
        if (r->p.pacing) {
            simtime_ps t0 = rh->next_credit_ps > s->now ? rh->next_credit_ps : s->now; /* no saving while idle */
            rh->next_credit_ps = t0 + (simtime_ps)llround((double)(credit + r->p.hdr_bytes) * 8e6 /
                                                          ((double)r->line_mbps * r->p.pace_factor));
        }
    }
}

/* bkt_idle_reset (our option, off by default): a sender that has been
 * silent with no credit outstanding for that long starts again from full
 * buckets, as a fresh pair would. */
static void peer_idle_reset(struct sim *s, struct sird_peer *pe)
{
    struct sird_run *r = sr(s);
    if (r->idle_reset_ps && !pe->sb_bytes && s->now - pe->last_active_ps >= r->idle_reset_ps) {
        sird_aimd_init(&pe->snd, &r->p);
        sird_aimd_init(&pe->net, &r->p);
    }
    pe->last_active_ps = s->now;
}

static void on_credit_req(struct sim *s, const struct packet *p)
{
    uint32_t fi = p->flow;
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    struct sird_run *r = sr(s);
    s->tot.ctl_delivered++;
    if (m->req_known || m->abandoned || f->rcv_complete)
        return; /* a repeat after a timeout */
    rx_start(s, fi);
    m->req_known = true;
    m->req_order = r->req_counter++;
    m->next_credit_seq = m->unsched_pkts;
    m->rem_credit_bytes = (uint64_t)p->pull_q;
    struct sird_rx_host *rh = &r->rx[f->dst];
    struct sird_peer *pe = peer_of(s, f->dst, f->src);
    peer_idle_reset(s, pe);
    pe->rem_bytes += m->rem_credit_bytes;
    list_add(&rh->pending, &rh->n_pending, &rh->cap_pending, fi, &m->rx_pos);
    rx_try_credit(s, f->dst);
}

/* The receiver tells the sender that message fi is complete. */
static void send_done(struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    uint32_t idx = ctl_packet(s, fi, SIRD_PKT_DONE, f->dst, f->src, rx_entropy(s, f->dst));
    nic_send(s, f->dst, idx);
}

/* The receiver holds every byte: its half of the message ends here. */
static void msg_complete(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    f->rcv_complete = true;
    f->rcv_done_ps = s->now;
    if (m->rx_pos != NO_POS)
        rx_list_remove(s, &sr(s)->rx[f->dst], m);
    rcv_bitmap_free(&m->rcv);
    free(m->credit_out_bits);
    m->credit_out_bits = NULL;
    free(m->recredit);
    m->recredit = NULL;
    m->n_recredit = m->cap_recredit = 0;
    send_done(s, fi);
    const struct cm_conn *c = &s->cm.conns[f->conn_index];
    if (c->recv_done_trigger != CM_NO_TRIGGER)
        sim_trigger_activate(s, c->recv_done_trigger);
}

/* The sender hears the DONE: the message finished at the instant it carries. */
static void on_done(struct sim *s, const struct packet *p)
{
    uint32_t fi = p->flow;
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    struct sird_tx_host *th = &sr(s)->tx[f->src];
    s->tot.ctl_delivered++;
    if (f->state != FLOW_ACTIVE)
        return; /* a repeat */
    f->state = FLOW_DONE;
    f->finish_ps = p->ts_ps;
    s->flows_finished++;
    if (m->tx_pos != NO_POS)
        tx_list_remove(s, th, m);
    if (m->credit_bytes) {
        /* credit re-issued by a RESEND whose original arrived after all */
        uint64_t *c = tx_credit_of(s, f->src, f->dst);
        *c -= m->credit_bytes;
        th->c_total_bytes -= m->credit_bytes;
        m->credit_bytes = 0;
    }
    free(m->resend);
    m->resend = NULL;
    m->n_resend = m->cap_resend = 0;
    transport_msg_sent(s, fi);
    transport_cc_lb_free(f);
    transport_flow_finished(s, fi); /* send_done trigger, the stop test */
}

/* The sender sent every packet and heard no DONE for a receiver timeout. */
static void done_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    m->done_timer_armed = false;
    if (f->state != FLOW_ACTIVE)
        return;
    simtime_ps due = m->tx_last_ps + sr(s)->rx_timeout_ps;
    if (s->now >= due) {
        uint32_t idx = ctl_packet(s, fi, SIRD_PKT_NEED_DONE, f->src, f->dst,
                                  f->lb->next_entropy(f->lb_state, f->n_pkts - 1, s->now));
        nic_send(s, f->src, idx);
        m->tx_last_ps = s->now;
        due = s->now + sr(s)->rx_timeout_ps;
    }
    m->done_timer_armed = true;
    transport_timer_at(s, due, fi, SIRD_TIMER_DONE);
}

/* Alg. 1 onDataPacket. */
static void on_data(struct sim *s, const struct packet *p)
{
    struct sird_run *r = sr(s);
    uint32_t fi = p->flow;
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    if (p->flags & PKTF_TRIMMED) {
        s->tot.trimmed_delivered++; /* only with trim=1: lost, the timeout recovers it */
        return;
    }
    s->tot.data_pkts_delivered++;
    bool ce = p->flags & PKTF_ECN_CE;
    if (ce)
        r->ce_pkts++;
    if (f->rcv_complete)
        send_done(s, fi); /* the sender has not heard the DONE */
    if (f->rcv_complete || m->abandoned)
        return;
    rx_start(s, fi);
    m->last_rx_ps = s->now;
    m->timeouts = 0;
    uint32_t payload = p->size_bytes - r->p.hdr_bytes;
    struct sird_peer *pe = peer_of(s, f->dst, f->src);
    peer_idle_reset(s, pe);
    /* Alg. 1 ln 6-7, on every data packet (sird.md A5, A23) */
    sird_aimd_update(&pe->snd, payload, p->flags & SIRD_PKTF_CSN, &r->p);
    sird_aimd_update(&pe->net, payload, ce, &r->p);
    if (rcv_bitmap_set(&m->rcv, p->seq)) {
        m->rcv_payload_bytes += payload;
        if ((p->flags & SIRD_PKTF_SCHED) && bit_get(m->credit_out_bits, p->seq)) {
            /* Alg. 1 ln 3-5: only scheduled data returns credit, once */
            invariant(pe->sb_bytes >= payload && r->rx[f->dst].b_bytes >= payload,
                      "SIRD receiver %u: scheduled data from %u beyond its credit", f->dst, f->src);
            bit_put(m->credit_out_bits, p->seq, false);
            pe->sb_bytes -= payload;
            pe->sched_rcvd_bytes += payload;
            r->rx[f->dst].b_bytes -= payload;
        } else if (p->flags & SIRD_PKTF_SCHED) {
            /* late, after a timeout took its credit back: no re-credit needed */
            for (uint32_t k = 0; k < m->n_recredit; k++)
                if (m->recredit[k] == p->seq) {
                    memmove(m->recredit + k, m->recredit + k + 1, (m->n_recredit - k - 1) * sizeof *m->recredit);
                    m->n_recredit--;
                    m->rem_credit_bytes -= payload;
                    pe->rem_bytes -= payload;
                    if (!m->rem_credit_bytes && m->rx_pos != NO_POS)
                        rx_list_remove(s, &r->rx[f->dst], m);
                    break;
                }
        }
        if (m->rcv_payload_bytes == f->size_bytes)
            msg_complete(s, fi);
    }
    check_rx(s, f->dst);
    rx_try_credit(s, f->dst);
}

/* A receiver timeout: RESENDs for the runs of unscheduled packets that
 * have not arrived; the credit of scheduled packets credited and not
 * arrived is taken back and they are credited again (sird.md Sec. 1.9), so
 * their copies are paced and bucketed like any credit. Returns how many
 * packets are missing. */
static uint32_t ask_missing(struct sim *s, uint32_t fi)
{
    struct sird_run *r = sr(s);
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    uint32_t missing = 0;
    for (uint32_t q = rcv_bitmap_next_missing(&m->rcv, 0); q < m->unsched_pkts;
         q = rcv_bitmap_next_missing(&m->rcv, q)) {
        uint32_t start = q;
        while (q < m->unsched_pkts && !rcv_bitmap_test(&m->rcv, q))
            q++;
        uint32_t idx = ctl_packet(s, fi, SIRD_PKT_RESEND, f->dst, f->src, rx_entropy(s, f->dst));
        pkt_at(&s->pool, idx)->seq = start;
        pkt_at(&s->pool, idx)->recvd_bytes = q - start;
        nic_send(s, f->dst, idx);
        missing += q - start;
    }
    struct sird_rx_host *rh = &r->rx[f->dst];
    struct sird_peer *pe = peer_of(s, f->dst, f->src);
    for (uint32_t q = m->unsched_pkts; q < m->next_credit_seq; q++) {
        if (!bit_get(m->credit_out_bits, q))
            continue;
        uint32_t pl = payload_of(s, f, q);
        bit_put(m->credit_out_bits, q, false);
        pe->sb_bytes -= pl;
        pe->credited_bytes -= pl;
        rh->b_bytes -= pl;
        if (m->n_recredit == m->cap_recredit) {
            m->cap_recredit = m->cap_recredit ? 2 * m->cap_recredit : 8;
            m->recredit = xrealloc(m->recredit, m->cap_recredit * sizeof *m->recredit);
        }
        m->recredit[m->n_recredit++] = q;
        m->rem_credit_bytes += pl;
        pe->rem_bytes += pl;
        missing++;
    }
    if (m->n_recredit && m->rx_pos == NO_POS)
        list_add(&rh->pending, &rh->n_pending, &rh->cap_pending, fi, &m->rx_pos);
    return missing;
}

/* The sender is alive and busy: the timeouts start again. */
static void on_busy(struct sim *s, const struct packet *p)
{
    struct sird_msg *m = msg_of(s, p->flow);
    s->tot.ctl_delivered++;
    if (!m->rx_started)
        return;
    m->timeouts = 0;
    m->last_rx_ps = s->now;
}

/* Homa-style receiver timeout (sird.md Sec. 1.9). */
static void rx_timer(struct sim *s, uint32_t fi)
{
    struct sird_run *r = sr(s);
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    if (f->rcv_complete || m->abandoned)
        return;
    if (s->now < m->last_rx_ps + r->rx_timeout_ps) {
        rx_arm_timer(s, fi);
        return;
    }
    m->last_rx_ps = s->now;
    if (!ask_missing(s, fi)) {
        rx_arm_timer(s, fi); /* nothing expected: the receiver itself holds back credit */
        return;
    }
    f->c.timeouts++;
    s->tot.rtos++;
    if (++m->timeouts < r->p.max_timeouts) {
        rx_arm_timer(s, fi);
        rx_try_credit(s, f->dst); /* the re-credits */
        return;
    }
    /* give up: take back the credit of the scheduled packets that never came */
    m->abandoned = true;
    struct sird_rx_host *rh = &r->rx[f->dst];
    struct sird_peer *pe = peer_of(s, f->dst, f->src);
    for (uint32_t q = m->unsched_pkts; q < m->next_credit_seq; q++)
        if (bit_get(m->credit_out_bits, q)) {
            uint32_t pl = payload_of(s, f, q);
            bit_put(m->credit_out_bits, q, false);
            pe->sb_bytes -= pl;
            pe->credited_bytes -= pl;
            rh->b_bytes -= pl;
        }
    if (m->rx_pos != NO_POS) {
        pe->rem_bytes -= m->rem_credit_bytes;
        rx_list_remove(s, rh, m);
    }
    warn_input("SIRD: message %u (%u->%u) abandoned after %u receiver timeouts", f->id, f->src, f->dst,
               r->p.max_timeouts);
    check_rx(s, f->dst);
    rx_try_credit(s, f->dst);
}

/* The CREDITREQ went unanswered: ask again. */
static void tx_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct sird_msg *m = f->tp_state;
    if (f->state != FLOW_ACTIVE || m->heard)
        return;
    f->c.rts++; /* a repeated request, not a loss: no timeout counted */
    s->tot.rts_sent++;
    send_credit_req(s, fi);
}

/* ---- dispatch ------------------------------------------------------------------------------- */

static void sird_receive(struct sim *s, uint32_t pkt_idx)
{
    struct packet copy = *pkt_at(&s->pool, pkt_idx); /* answering may move the pool */
    pkt_release(&s->pool, pkt_idx);
    /* The sender's start makes the message's state; in a parallel run the
     * receiver's process never runs that start (docs/parallel.md), so
     * it makes its own when the first packet reaches it and
     * uses only the receiver's fields. */
    if (__builtin_expect(!s->flows[copy.flow].tp_state, 0) && copy.dst_host == s->flows[copy.flow].dst)
        s->flows[copy.flow].tp_state = new_msg(s, copy.flow);
    switch (copy.type) {
    case PKT_DATA:
        on_data(s, &copy);
        break;
    case SIRD_PKT_CREDIT_REQ:
        on_credit_req(s, &copy);
        break;
    case SIRD_PKT_CREDIT:
        on_credit(s, &copy);
        break;
    case SIRD_PKT_RESEND:
        on_resend(s, &copy);
        break;
    case SIRD_PKT_BUSY:
        on_busy(s, &copy);
        break;
    case SIRD_PKT_DONE:
        on_done(s, &copy);
        break;
    case SIRD_PKT_NEED_DONE:
        s->tot.ctl_delivered++;
        if (s->flows[copy.flow].rcv_complete)
            send_done(s, copy.flow);
        break;
    default:
        die_internal("SIRD: unexpected packet type %u", copy.type);
    }
}

/* The credit pacer of receiver h: per host, so any number of hosts (it was
 * once a flow timer with the host packed into 14 bits of its kind). */
static void sird_host_timer(struct sim *s, uint32_t h, uint32_t kind)
{
    if (kind != SIRD_TIMER_PACE)
        die_internal("host %u: unknown SIRD host timer %u", h, kind);
    sr(s)->rx[h].pace_armed = false;
    rx_try_credit(s, h);
}

/* P Table 2, Sec. 4.3: ECN step marking at NThr on the classes its data
 * uses (RED with kmin = kmax); no trimming unless asked (sird.md Sec. 1.9).
 * Its senders read the marks, so these are needs, not preferences. */
static void sird_fabric_needs(const struct sim *s, uint32_t classes, struct class_need need[PORT_MAX_CLASSES])
{
    const struct sird_params *p = &sr(s)->p;
    for (uint32_t k = PKT_PRIO_DATA; k < PORT_MAX_CLASSES; k++)
        if (classes & (1u << k))
            need[k] = (struct class_need){
                .ecn = NEED_STEP,
                .ecn_step_bytes = (uint32_t)p->nthr_bytes,
                .trim = p->trimming ? NEED_ANY : NEED_OFF,
            };
}

static void sird_timer(struct sim *s, uint32_t fi, uint32_t kind)
{
    switch (kind) {
    case SIRD_TIMER_RX:
        rx_timer(s, fi);
        break;
    case SIRD_TIMER_TX:
        tx_timer(s, fi);
        break;
    case SIRD_TIMER_DONE:
        done_timer(s, fi);
        break;
    default:
        die_internal("unknown SIRD timer %u", kind);
    }
}

/* ---- views for tests and metrics ------------------------------------------------------------ */

struct sird_rx_view sird_rx_state(const struct sim *s, uint32_t h)
{
    struct sird_rx_view v = {0};
    if (!sr(s) || h >= sr(s)->n_hosts)
        return v;
    const struct sird_rx_host *rh = &sr(s)->rx[h];
    v.b_bytes = rh->b_bytes;
    v.credits_sent = rh->credits_sent;
    v.credit_bytes_total = rh->credit_bytes_total;
    for (uint32_t i = 0; rh->peer && i < sr(s)->n_hosts; i++)
        v.sum_sb_bytes += rh->peer[i].sb_bytes;
    return v;
}

bool sird_peer_state(const struct sim *s, uint32_t dst, uint32_t src, uint64_t *sb, uint64_t *sender_bkt,
                     uint64_t *net_bkt)
{
    if (!sr(s) || dst >= sr(s)->n_hosts || src >= sr(s)->n_hosts || !sr(s)->rx[dst].peer)
        return false;
    const struct sird_peer *pe = &sr(s)->rx[dst].peer[src];
    *sb = pe->sb_bytes;
    *sender_bkt = pe->snd.bkt_bytes;
    *net_bkt = pe->net.bkt_bytes;
    return true;
}

uint64_t sird_tx_credit(const struct sim *s, uint32_t h)
{
    return sr(s) && h < sr(s)->n_hosts ? sr(s)->tx[h].c_total_bytes : 0;
}

const struct sird_params *sird_params_of(const struct sim *s)
{
    return sr(s) ? &sr(s)->p : NULL;
}

static uint64_t sird_rcv_payload_bytes(const struct sim *s, uint32_t fi);

uint64_t sird_received_payload(const struct flow *f)
{
    const struct sird_msg *m = f->tp_state;
    if (!m)
        return 0;
    return f->rcv_complete ? f->size_bytes : m->rcv_payload_bytes;
}

void sird_counts(const struct sim *s, uint64_t *csn_pkts, uint64_t *ce_pkts, uint64_t *unsched_pkts)
{
    *csn_pkts = sr(s) ? sr(s)->csn_pkts : 0;
    *ce_pkts = sr(s) ? sr(s)->ce_pkts : 0;
    *unsched_pkts = sr(s) ? sr(s)->unsched_pkts : 0;
}

static uint64_t sird_rcv_payload_bytes(const struct sim *s, uint32_t fi)
{
    return sird_received_payload(&s->flows[fi]);
}

static const struct transport_flag sird_flags[] = {
    {"--sird-opt", 1, true, "NAME=VALUE", "a SIRD parameter; repeatable (docs/models.md \"Transport: SIRD\")"},
};

/* --sird-opt is read by the run's transport only (as options.c refused it before) */
static void sird_check_flags(const struct sim *s)
{
    if (transport_flag_given(s, "--sird-opt") && strcmp(s->cfg.transport_name, "sird"))
        die_input("--sird-opt needs --transport sird (this run's transport is %s)", s->cfg.transport_name);
}

/* from SIRD_PKT_CREDIT (sird.h) */
static const char *const sird_pkt_type_names[] = {"SIRD_CREDIT", "SIRD_CREDIT_REQ", "SIRD_RESEND", "SIRD_BUSY",
                                                        "SIRD_DONE", "SIRD_NEED_DONE"};

const struct transport_ops transport_sird_ops = {
    /* tests/mpi_test.sh: byte-identical at 1, 2 and 3 processes (the sender
     * learns completion from the DONE; the receiver makes its half of a
     * message's state on the first packet) */
    .parallel_exact = true,
    .name = "sird",
    .reads = 0,
    .cc_hint = "SIRD: receivers allocate credit, senders keep no window",
    .description = "SIRD (seed 001): receiver credit with a global bucket B, per-sender AIMD buckets (csn and ECN), "
                   "unscheduled prefixes, paced credits, SRPT",
    .setup = sird_setup,
    .flow_add = sird_flow_add,
    .flow_start = sird_flow_start,
    .msg_inherit_default = false, /* no sender congestion state: each message is scheduled on its own (sird.md Sec. 1) */
    .rcv_payload_bytes = sird_rcv_payload_bytes,
    .nic_pull = sird_nic_pull,
    .receive = sird_receive,
    .timer = sird_timer,
    .host_timer = sird_host_timer,
    .fabric_needs = sird_fabric_needs,
    .on_drop = NULL,
    .on_control_full = NULL,
    .free = sird_free,
    .ecn_only_when_given = true, /* its own NThr on its classes (sird_fabric_needs) */
    .one_way = true,
    .flags = sird_flags,
    .n_flags = sizeof sird_flags / sizeof sird_flags[0],
    .check_flags = sird_check_flags,
    .pkt_type_names = sird_pkt_type_names,
    .n_pkt_types = sizeof sird_pkt_type_names / sizeof sird_pkt_type_names[0],
};
