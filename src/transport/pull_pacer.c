/* pull_pacer.c: the receiver's pull pacer shared by EQDS and UET's receiver
 * credit (see pull_pacer.h for the rules and their sources), and its two
 * optional rate controls.
 */
#include "pull_pacer.h"

#include "../lb/lb.h"

#include "../sim.h"
#include "flow.h"
#include "transport.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* htsim eqds.cpp, NOMINAL_RTT: -recv_oversub_cc looks at the last 10 us. */
#define RECENT_WINDOW_PS (10 * PS_PER_US)
/* htsim eqds.cpp, skipPull: up to 10% of arrivals congested costs no pull. */
#define SKIP_FREE_FRACTION 0.1
/* htsim oversubscribed_cc.cpp: target marked fraction 0.3, additive step
 * 0.01 (doubling per calm update), multiplicative factor 0.5, EWMA gain 0.5;
 * updates every 0.75..1.25 x 1.5 base RTTs. */
#define RATE_TARGET_CONGESTION 0.3
#define RATE_AI 0.01
#define RATE_MD 0.5
#define RATE_ALPHA 0.5
#define RATE_INTERVAL_RTTS 1.5


/* ---- queues ------------------------------------------------------------------- */

static void fifo_push(struct pull_fifo *q, uint32_t fi)
{
    if (q->len == q->cap) {
        uint32_t ncap = q->cap ? 2 * q->cap : 16;
        uint32_t *nv = xmalloc((size_t)ncap * sizeof(uint32_t));
        for (uint32_t i = 0; i < q->len; i++)
            nv[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = nv;
        q->cap = ncap;
        q->head = 0;
    }
    q->v[(q->head + q->len) % q->cap] = fi;
    q->len++;
}

static uint32_t fifo_pop(struct pull_fifo *q)
{
    uint32_t fi = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    return fi;
}

void pull_pacer_init(struct pull_pacer *pp, const struct pull_pacer_cfg *cfg, uint32_t index)
{
    memset(pp, 0, sizeof(*pp));
    pp->timer_flow = UINT32_MAX;
    pp->quantum_ps = cfg->quantum_ps;
    pp->ctl.rate = 1.0;
    /* one stream per pacer: a pacer's draws do not depend on the others' */
    rng_seed(&pp->ctl.rng, cfg->seed, RNG_STREAM_RECEIVER_CC, 2 * (uint64_t)index);
    rng_seed(&pp->recent.rng, cfg->seed, RNG_STREAM_RECEIVER_CC, 2 * (uint64_t)index + 1);
}

void pull_pacer_free(struct pull_pacer *pp)
{
    free(pp->rtx.v);
    free(pp->active.v);
    free(pp->idle.v);
    free(pp->recent.v);
    memset(pp, 0, sizeof(*pp));
}

/* ---- requests ------------------------------------------------------------------ */

static void wake(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp, uint32_t fi)
{
    if (pp->timer_flow == UINT32_MAX)
        pp->timer_flow = fi;
    if (pp->running)
        return;
    pp->running = true;
    transport_timer_at(s, s->now, pp->timer_flow, cfg->timer_kind);
}

void pull_request_active(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp, uint32_t fi)
{
    struct pull_client *c = cfg->client_of(s, fi);
    invariant(!c->in_active, "flow %u asks for pulls while already an active sender", fi);
    c->in_active = true;
    fifo_push(&pp->active, fi);
    wake(s, cfg, pp, fi);
}

void pull_request_rtx(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp, uint32_t fi,
                      int64_t quanta)
{
    struct pull_client *c = cfg->client_of(s, fi);
    bool was_owed = c->rtx_backlog_q > 0;
    c->rtx_backlog_q += quanta;
    if (was_owed)
        return; /* already queued as retransmitting */
    fifo_push(&pp->rtx, fi);
    wake(s, cfg, pp, fi);
}

void pull_target_heard(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp, uint32_t fi,
                       int64_t target_q)
{
    struct pull_client *c = cfg->client_of(s, fi);
    if (target_q <= c->target_q)
        return;
    c->target_q = target_q;
    /* a retransmitting sender joins the active queue when its debt is paid */
    if (c->rtx_backlog_q == 0 && !c->in_active)
        pull_request_active(s, cfg, pp, fi);
}

/* ---- ticks --------------------------------------------------------------------- */

static int64_t demand_q(const struct pull_client *c)
{
    return c->target_q > c->latest_q ? c->target_q - c->latest_q : 0;
}

static int64_t slow_credit_q(const struct pull_client *c)
{
    return c->latest_q > c->target_q ? c->latest_q - c->target_q : 0;
}

/* Moves the flow's pull number on; returns the quanta granted. */
static int64_t grant(const struct pull_pacer_cfg *cfg, struct pull_client *c, bool idle)
{
    if (c->rtx_backlog_q > 0)
        c->rtx_backlog_q = c->rtx_backlog_q > cfg->per_pull_q ? c->rtx_backlog_q - cfg->per_pull_q : 0;
    if (!cfg->grant_to_target || idle) {
        c->latest_q += cfg->per_pull_q;
        return cfg->per_pull_q;
    }
    /* UET: only as much as the sender asked for, never backwards */
    int64_t prev = c->latest_q;
    int64_t next = prev + cfg->per_pull_q;
    if (next > c->target_q)
        next = c->target_q > prev ? c->target_q : prev;
    c->latest_q = next;
    return next - prev;
}

static void send_pull(struct sim *s, const struct pull_pacer_cfg *cfg, uint32_t fi, struct pull_client *c)
{
    const struct flow *f = &s->flows[fi];
    /* control: a grant never waits behind data */
    uint32_t idx = transport_make_reply(s, fi, PKT_PULL, 0, s->cfg.hdr_bytes);
    struct packet *p = pkt_at(&s->pool, idx);
    p->ts_ps = s->now;
    p->entropy = (uint16_t)c->next_ev;
    c->next_ev = cfg->paths > 1 ? (c->next_ev + 1) % cfg->paths : 0;
    p->pull_q = c->latest_q;
    s->tot.pulls_sent++;
    nic_send(s, f->dst, idx);
}

/* -recv_oversub_cc: forget arrivals older than the window, then draw. */
static bool skip_pull(struct sim *s, struct pull_recent *r)
{
    while (r->len && r->v[r->head].t + RECENT_WINDOW_PS < s->now) {
        r->congested -= r->v[r->head].congested;
        r->head = (r->head + 1) % r->cap;
        r->len--;
    }
    if (!r->len || !r->congested)
        return false;
    double fraction = (double)r->congested / r->len;
    if (fraction < SKIP_FREE_FRACTION)
        return false;
    return rng_uniform(&r->rng) < fraction - SKIP_FREE_FRACTION;
}

void pull_pacer_tick(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp)
{
    if (!pp->rtx.len && !pp->active.len && !pp->idle.len) {
        pp->running = false;
        return;
    }
    if (cfg->skip_on_congestion && skip_pull(s, &pp->recent)) {
        transport_timer_at(s, s->now + cfg->tick_ps, pp->timer_flow, cfg->timer_kind);
        return;
    }
    uint32_t fi;
    struct pull_client *c;
    int64_t granted;
    if (pp->rtx.len) {
        fi = fifo_pop(&pp->rtx);
        c = cfg->client_of(s, fi);
        granted = grant(cfg, c, false);
        if (c->rtx_backlog_q > 0) {
            fifo_push(&pp->rtx, fi);
        } else if (demand_q(c) > 0 && !c->in_active) {
            c->in_active = true;
            fifo_push(&pp->active, fi);
        }
    } else if (pp->active.len) {
        fi = fifo_pop(&pp->active);
        c = cfg->client_of(s, fi);
        granted = grant(cfg, c, false);
        if (demand_q(c) > 0) {
            fifo_push(&pp->active, fi);
        } else { /* demand met: speculative credit from now on */
            c->in_active = false;
            c->in_idle = true;
            fifo_push(&pp->idle, fi);
        }
    } else {
        fi = fifo_pop(&pp->idle);
        c = cfg->client_of(s, fi);
        c->in_active = false;
        c->in_idle = true;
        granted = grant(cfg, c, true);
        /* at most about one window of credit ahead of the target */
        if (demand_q(c) == 0 && slow_credit_q(c) < cfg->idle_cap_q)
            fifo_push(&pp->idle, fi);
        else
            c->in_idle = false;
    }
    send_pull(s, cfg, fi, c);
    simtime_ps wait;
    if (cfg->tick_ps) {
        wait = cfg->tick_ps;
    } else {
        int64_t q = granted > cfg->min_wait_q ? granted : cfg->min_wait_q;
        wait = pp->quantum_ps * (simtime_ps)q;
    }
    transport_timer_at(s, s->now + wait, pp->timer_flow, cfg->timer_kind);
}

/* ---- rate controls ------------------------------------------------------------- */

static simtime_ps rate_interval(struct pull_pacer *pp, const struct pull_pacer_cfg *cfg)
{
    return (simtime_ps)((0.75 + rng_uniform(&pp->ctl.rng) / 2) * RATE_INTERVAL_RTTS * (double)cfg->base_rtt_ps);
}

void pull_note_arrival(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp, uint32_t fi,
                       bool ecn, bool trimmed, bool last_hop)
{
    if (cfg->rate_control) {
        struct pull_rate_ctl *k = &pp->ctl;
        if (!k->started) {
            k->started = true;
            if (pp->timer_flow == UINT32_MAX)
                pp->timer_flow = fi;
            transport_timer_at(s, s->now + rate_interval(pp, cfg), pp->timer_flow, cfg->rate_timer_kind);
        }
        k->received++;
        if (trimmed && last_hop)
            k->trimmed_last_hop++;
        else if (trimmed)
            k->trimmed_other++;
        else if (ecn)
            k->ecn++;
    }
    if (cfg->skip_on_congestion) {
        struct pull_recent *r = &pp->recent;
        if (r->len == r->cap) {
            uint32_t ncap = r->cap ? 2 * r->cap : 64;
            struct pull_arrival *nv = xmalloc((size_t)ncap * sizeof(*nv));
            for (uint32_t i = 0; i < r->len; i++)
                nv[i] = r->v[(r->head + i) % r->cap];
            free(r->v);
            r->v = nv;
            r->cap = ncap;
            r->head = 0;
        }
        bool congested = ecn || trimmed;
        r->v[(r->head + r->len) % r->cap] = (struct pull_arrival){s->now, congested};
        r->len++;
        r->congested += congested;
    }
}

void pull_rate_update(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp)
{
    struct pull_rate_ctl *k = &pp->ctl;
    uint64_t total = k->received - k->old_received;
    uint64_t ecn = k->ecn - k->old_ecn;
    uint64_t trim_last = k->trimmed_last_hop - k->old_trimmed_last_hop;
    uint64_t trim_other = k->trimmed_other - k->old_trimmed_other;
    k->old_received = k->received;
    k->old_ecn = k->ecn;
    k->old_trimmed_last_hop = k->trimmed_last_hop;
    k->old_trimmed_other = k->trimmed_other;
    uint64_t whole = total - trim_last - trim_other;
    double fraction = whole ? (double)ecn / (double)whole : 0.0;
    bool decrease = false;
    if (trim_other > 0) {
        k->rate -= (double)trim_other / (double)total;
        decrease = true;
    }
    k->g = k->g * (1 - RATE_ALPHA) + RATE_ALPHA * fraction;
    if (k->g > RATE_TARGET_CONGESTION) {
        k->rate *= 1 - (k->g - RATE_TARGET_CONGESTION) * RATE_MD;
        decrease = true;
    }
    if (!decrease) {
        /* the doubling stops mattering long before 2^60: the rate is capped at 1 */
        k->rate += ecn == 0 ? ldexp(RATE_AI, (int)(k->increase_count < 60 ? k->increase_count : 60)) : RATE_AI;
        k->increase_count++;
    } else {
        k->increase_count = 0;
    }
    if (k->rate < cfg->min_rate)
        k->rate = cfg->min_rate;
    if (k->rate > 1)
        k->rate = 1;
    pp->quantum_ps = (simtime_ps)((double)cfg->quantum_ps / k->rate);
    transport_timer_at(s, s->now + rate_interval(pp, cfg), pp->timer_flow, cfg->rate_timer_kind);
}
