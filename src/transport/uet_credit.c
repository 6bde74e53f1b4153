/* uet_credit.c: UET's receiver-credit congestion control, as the reference
 * simulator's htsim_uec runs it with -receiver_cc_only (the receiver paces
 * credit and the sender has no window of its own) or with -sender_cc too
 * (the sender sends within both its window and its credit). Behaviour read
 * from htsim uec.cpp (UecSrc, UecSink, UecPullPacer) and main_uec.cpp:
 *
 * Sender. A flow starts with 1.5 BDP of speculative credit and may send
 * while its credit is positive; a packet costs its wire size (so credit can
 * go negative by less than a packet). The first ACK, NACK or PULL ends
 * speculation, and whatever initial credit is left is dropped; from then on
 * credit comes only from PULLs, capped at 1.5 BDP. Every packet carries a
 * pull target: what the sender still has to send (new bytes and queued
 * retransmissions; with -sender_cc at most cwnd + 1 MTU; at most 1.5 BDP)
 * minus the credit it holds, at least one MTU while speculating with data
 * left, split evenly when several flows wait for the NIC, added to the pull
 * number heard so far. The AR flag goes on the last packet, on a packet
 * that spends the credit, and (-sender_cc) on one that fills the window. A
 * timeout sends an RTS carrying the pull target when retransmissions were
 * already queued, when the window is full or when no credit is left.
 *
 * Receiver. A higher pull target, a trimmed packet or an RTS makes the flow
 * an active sender at its NIC's pull pacer (pull_pacer.c): 16 KB per pull,
 * never beyond the target, at 0.99 of the line rate; idle senders get up to
 * 1.5 BDP of speculative credit. On a tree with oversubscription and no
 * sender window, the pacer's rate follows pull_pacer.h's rate control
 * (htsim enables it there by itself). As in htsim, ToR downlinks do not
 * mark ECN while receiver credit is on.
 *
 * None of this runs when receiver credit is off: then every flow's credit
 * is NULL and the UET code paths test only that.
 */
#include "uet_internal.h"

#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../sim.h"

#include <stdlib.h>
#include <string.h>

/* htsim uecpacket.h: credit in 256-byte quanta. */
#define UET_QUANTUM_BYTES 256
/* htsim uec.cpp: "send 4 packets of credit per pull, as per default in UEC
 * spec", 4 x its 4096-byte MSS = 16 KB. */
#define UET_PULL_BYTES (4 * 4096)
/* htsim main_uec.cpp: pacers at 0.99 of the line rate. */
#define UET_PULL_RATE 0.99
/* htsim uec.cpp, UecPullPacer: a pull that grants nothing still waits 1 KB's time. */
#define UET_MIN_WAIT_BYTES 1024
/* htsim uec.cpp, initRccc: the initial credit and its cap are 1.5 BDP. */
#define UET_MAXWND_BDP 1.5

static struct pull_pacer *pacer_of(struct sim *s, const struct flow *f)
{
    return &uet_credit_run(s)->pacers[f->dst];
}

static uint32_t oversubscription(const struct topo_spec *sp)
{
    uint32_t r = sp->tier[0].oversub ? sp->tier[0].oversub : 1;
    if (sp->tiers > 2 && sp->tier[1].oversub)
        r *= sp->tier[1].oversub;
    return r;
}
/* The pull pacer's view of a UET flow: the receiver part of its credit state. */
static struct pull_client *uet_credit_client_of(struct sim *s, uint32_t fi)
{
    return &uet_of(&s->flows[fi])->credit->rcv;
}

struct pull_client *uet_credit_client(const struct flow *f)
{
    return &uet_of(f)->credit->rcv;
}


void uet_credit_setup(struct sim *s, bool window)
{
    struct uet_credit_run *r = xcalloc(1, sizeof(*r));
    transport_set_run_state(s, &transport_uet_ops, r);
    r->window = window;
    if (!window && !strcmp(s->cfg.transport_name, "uet"))
        s->no_sender_window = true;
    if (!window && s->cfg.cc_given)
        warn_input("--cc %s has no effect with -receiver_cc_only: add -sender_cc after it for the window", s->cc->name);
    r->maxwnd_bytes = (int64_t)(UET_MAXWND_BDP * (double)s->bdp_bytes);
    uint32_t ratio = oversubscription(&s->topo.spec);
    /* htsim main_uec.cpp: on an oversubscribed tree without a sender window
     * the receivers control their pull rate, unless told otherwise */
    static const char *const oversub_flags[] = {"-force_disable_oversubscribed_cc", "-oversubscribed_cc"};
    int oversub_cc = transport_flag_last(s, oversub_flags, 2); /* -1: none given; else the index, 0 off, 1 on */
    bool rate_control = oversub_cc < 0 ? ratio > 1 && !window : oversub_cc == 1;
    double min_rate = 0.9 / ratio;
    r->cfg = (struct pull_pacer_cfg){
        .quantum_bytes = UET_QUANTUM_BYTES,
        .per_pull_q = UET_PULL_BYTES / UET_QUANTUM_BYTES,
        .grant_to_target = true,
        /* -planes N: N receiving ports (htsim UecPullPacer: linkspeed x ports) */
        .quantum_ps = (simtime_ps)(8.0 * UET_QUANTUM_BYTES * 1e6 / ((double)s->cfg.linkspeed_mbps * s->cfg.planes) /
                                   UET_PULL_RATE),
        .min_wait_q = UET_MIN_WAIT_BYTES / UET_QUANTUM_BYTES,
        .idle_cap_q = r->maxwnd_bytes / UET_QUANTUM_BYTES,
        .paths = s->cfg.paths,
        .timer_kind = UET_TIMER_PULL,
        .rate_timer_kind = UET_TIMER_PULL_RATE,
        .rate_control = rate_control,
        .min_rate = min_rate < 0.01 ? 0.01 : min_rate,
        .base_rtt_ps = s->base_rtt_ps,
        .seed = s->cfg.seed,
        .client_of = uet_credit_client_of,
    };
    r->pacers = xcalloc(s->n_hosts, sizeof(struct pull_pacer));
    for (uint32_t h = 0; h < s->n_hosts; h++)
        pull_pacer_init(&r->pacers[h], &r->cfg, h);
    /* no ECN on ports facing a host: uet_fabric_needs declares it */
}

void uet_credit_free(struct sim *s)
{
    struct uet_credit_run *r = uet_credit_run(s);
    if (!r)
        return;
    for (uint32_t h = 0; h < s->n_hosts; h++)
        pull_pacer_free(&r->pacers[h]);
    free(r->pacers);
    free(r);
    transport_set_run_state(s, &transport_uet_ops, NULL);
}

void uet_credit_flow_start(struct sim *s, uint32_t fi)
{
    struct uet_credit *c = xcalloc(1, sizeof(*c));
    c->credit_bytes = uet_credit_run(s)->maxwnd_bytes;
    c->speculating = true;
    uet_of(&s->flows[fi])->credit = c;
}

/* The pull target (htsim UecSrc::computePullTarget), in quanta. */
static int64_t pull_target(struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    const struct uet_credit *c = uet_of(f)->credit;
    const struct uet_credit_run *r = uet_credit_run(s);
    int64_t mtu = s->cfg.mtu_bytes;
    int64_t unsent = (int64_t)uet_unsent_wire_bytes(s, fi);
    int64_t want = unsent + uet_credit_rtx_bytes(s, f);
    if (r->window && want > (int64_t)cc_cwnd(f->cc_state) + mtu)
        want = (int64_t)cc_cwnd(f->cc_state) + mtu;
    if (want > r->maxwnd_bytes)
        want = r->maxwnd_bytes;
    want -= c->credit_bytes;
    /* always ask for at least an MTU while data is left: short flows */
    if (c->speculating && want < mtu && unsent > 0)
        want = mtu;
    uint32_t waiting = s->hosts[f->src].ready_count;
    if (waiting > 1)
        want /= (int64_t)waiting; /* flows sharing the NIC share the demand */
    return pull_quanta_ceil(want + c->pull_q * UET_QUANTUM_BYTES, UET_QUANTUM_BYTES);
}

void uet_credit_on_send(struct sim *s, uint32_t fi, struct packet *p, uint32_t size)
{
    struct uet_credit *c = uet_of(&s->flows[fi])->credit;
    c->credit_bytes -= size;
    c->target_q = pull_target(s, fi);
    p->pull_q = c->target_q;
}

/* The retransmission queue may hold entries acknowledged since: only those
 * still waiting count. Computed when needed, so the UET paths that queue
 * and acknowledge packets carry no credit bookkeeping. */
int64_t uet_credit_rtx_bytes(const struct sim *s, const struct flow *f)
{
    int64_t bytes = 0;
    for (uint32_t i = 0; i < uet_of(f)->rtx_len; i++) {
        uint32_t seq = uet_of(f)->rtx_ring[(uet_of(f)->rtx_head + i) & uet_of(f)->rtx_mask];
        if (uet_txr(uet_of(f), seq)->state == TX_RTX_QUEUED)
            bytes += pkt_wire_bytes(s, f, seq);
    }
    return bytes;
}

void uet_credit_stop_speculating(struct flow *f)
{
    struct uet_credit *c = uet_of(f)->credit;
    if (!c->speculating)
        return;
    c->speculating = false;
    if (c->credit_bytes > 0)
        c->credit_bytes = 0;
}

void uet_credit_on_ack(struct sim *s, struct flow *f, const struct cc_ack *ev)
{
    if (uet_credit_run(s)->window)
        s->cc->on_ack(f->cc_state, ev);
    uet_credit_stop_speculating(f);
}

void uet_credit_on_nack(struct sim *s, struct flow *f, const struct cc_nack *ev)
{
    /* htsim: NSCC leaves its window alone for a last-hop trim when the
     * receiver paces credit; spraysim's CC modules are told of every NACK
     * (docs/models.md: a known difference) */
    if (uet_credit_run(s)->window)
        s->cc->on_nack(f->cc_state, ev);
    uet_credit_stop_speculating(f);
}

void uet_credit_on_pull(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    struct uet_credit *c = uet_of(f)->credit;
    uet_credit_stop_speculating(f);
    c->credit_bytes += pull_credit_heard(&c->pull_q, p->pull_q, UET_QUANTUM_BYTES);
    if (c->credit_bytes > uet_credit_run(s)->maxwnd_bytes)
        c->credit_bytes = uet_credit_run(s)->maxwnd_bytes;
    uet_sender_wake(s, fi);
}

void uet_credit_on_arrival(struct sim *s, struct flow *f, const struct packet *p)
{
    struct uet_credit_run *r = uet_credit_run(s);
    struct pull_pacer *pp = pacer_of(s, f);
    struct uet_credit *c = uet_of(f)->credit;
    uint32_t fi = p->flow;
    bool trimmed = p->flags & PKTF_TRIMMED;
    pull_note_arrival(s, &r->cfg, pp, fi, p->type == PKT_DATA && (p->flags & PKTF_ECN_CE), trimmed,
                      p->flags & PKTF_TRIM_LASTHOP);
    if (trimmed && (p->seq < uet_of(f)->rcv_cum || rcv_has(f, p->seq)))
        return; /* a header of a packet the receiver has: only an ACK */
    pull_target_heard(s, &r->cfg, pp, fi, p->pull_q);
    /* a trim or an RTS means the sender needs credit to retransmit */
    if ((trimmed || p->type == PKT_RTS) && !c->rcv.in_active)
        pull_request_active(s, &r->cfg, pp, fi);
}

bool uet_credit_rto_wants_rts(struct sim *s, uint32_t fi, bool had_queue, uint32_t size)
{
    struct flow *f = &s->flows[fi];
    struct uet_credit *c = uet_of(f)->credit;
    if (had_queue) {
        uet_credit_stop_speculating(f);
        return true;
    }
    if (uet_credit_run(s)->window && cc_cwnd(f->cc_state) < size + uet_of(f)->in_flight_bytes)
        return true;
    return c->credit_bytes <= 0;
}

void uet_credit_timer(struct sim *s, uint32_t fi, uint32_t kind)
{
    struct uet_credit_run *r = uet_credit_run(s);
    struct pull_pacer *pp = pacer_of(s, &s->flows[fi]);
    if (kind == UET_TIMER_PULL)
        pull_pacer_tick(s, &r->cfg, pp);
    else
        pull_rate_update(s, &r->cfg, pp);
}

const struct pull_pacer_cfg *uet_credit_pacer_cfg(const struct sim *s)
{
    return uet_credit_run(s) ? &uet_credit_run(s)->cfg : NULL;
}

struct pull_pacer *uet_credit_pacer(struct sim *s, uint32_t h)
{
    return uet_credit_run(s) && h < s->n_hosts ? &uet_credit_run(s)->pacers[h] : NULL;
}
