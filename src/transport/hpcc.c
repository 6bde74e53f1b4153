/* hpcc.c: HPCC's window arithmetic (pure, unit-tested on its own) and the
 * INT side table; see hpcc.h for the rules and their sources. */
#include "hpcc.h"

#include "../sim.h"
#include "../cc/cc.h"

#include <stdlib.h>
#include <string.h>

void hpcc_init(struct hpcc_state *h, double line_mbps, simtime_ps T_ps, uint32_t mtu_bytes)
{
    memset(h, 0, sizeof(*h));
    h->line_mbps = line_mbps;
    h->T_ps = T_ps;
    h->w_bytes = h->wc_bytes = line_mbps * 1e6 / 8.0 * ((double)T_ps / 1e12);
    h->w_ai_bytes = mtu_bytes;
    h->U = HPCC_ETA;
}

double hpcc_measure_inflight(struct hpcc_state *h, const struct hpcc_int *ack, uint32_t n)
{
    if (n > HPCC_MAX_HOPS)
        n = HPCC_MAX_HOPS;
    if (n == h->n_hops && n > 0) {
        double u = 0;
        simtime_ps tau = h->T_ps;
        bool any = false;
        for (uint32_t i = 0; i < n; i++) {
            const struct hpcc_int *a = &ack[i], *l = &h->L[i];
            /* Two samples give a rate only if one port stamped both: with
             * more than one path per flow (spraying, -paths N) consecutive
             * ACKs can cross different ports at one hop position, and the
             * difference of two ports' byte counters is meaningless (as an
             * unsigned it wrapped to ~1e19 B, U became ~1e14 and pinned W
             * at W_AI: a 4-to-1 incast ran 8x longer). */
            if (a->port != l->port || a->ts_ps <= l->ts_ps || a->rate_mbps == 0)
                continue; /* another port, or no time between the two samples: no rate */
            invariant(a->tx_bytes >= l->tx_bytes, "HPCC: port %u sent %llu B at a later sample than %llu B",
                      a->port, (unsigned long long)a->tx_bytes, (unsigned long long)l->tx_bytes);
            double B = a->rate_mbps * 1e6 / 8.0; /* bytes per second */
            double dt = (double)(a->ts_ps - l->ts_ps) / 1e12;
            double tx_rate = (double)(a->tx_bytes - l->tx_bytes) / dt;
            uint32_t q = a->qlen_bytes < l->qlen_bytes ? a->qlen_bytes : l->qlen_bytes;
            double up = (double)q / (B * ((double)h->T_ps / 1e12)) + tx_rate / B;
            if (!any || up > u) {
                u = up;
                tau = a->ts_ps - l->ts_ps;
                any = true;
            }
        }
        if (any) {
            if (tau > h->T_ps)
                tau = h->T_ps;
            double f = (double)tau / (double)h->T_ps;
            h->U = (1.0 - f) * h->U + f * u;
        }
    }
    h->n_hops = n;
    if (n)
        memcpy(h->L, ack, n * sizeof(*ack));
    return h->U;
}

double hpcc_compute_wind(struct hpcc_state *h, double U, bool update_wc)
{
    double W;
    if ((U >= HPCC_ETA || h->inc_stage >= HPCC_MAX_STAGE) && U > 0) {
        W = h->wc_bytes / (U / HPCC_ETA) + h->w_ai_bytes;
        if (update_wc) {
            h->inc_stage = 0;
            h->wc_bytes = W;
        }
    } else {
        W = h->wc_bytes + h->w_ai_bytes;
        if (update_wc) {
            h->inc_stage++;
            h->wc_bytes = W;
        }
    }
    if (update_wc)
        h->wc_updates++;
    h->w_bytes = W;
    return W;
}

double hpcc_on_ack(struct hpcc_state *h, uint32_t ack_seq, uint32_t snd_nxt, const struct hpcc_int *ack,
                   uint32_t n)
{
    double U = hpcc_measure_inflight(h, ack, n);
    if (ack_seq > h->last_update_seq) {
        hpcc_compute_wind(h, U, true);
        h->last_update_seq = snd_nxt;
    } else {
        hpcc_compute_wind(h, U, false);
    }
    return h->w_bytes;
}

double hpcc_rate_mbps(const struct hpcc_state *h)
{
    double r = h->w_bytes * 8.0 / ((double)h->T_ps / 1e12) / 1e6;
    return r < h->line_mbps ? r : h->line_mbps;
}

/* ---- INT side table ------------------------------------------------------------------------ */

static void grow(struct hpcc_int_table *t, uint32_t need)
{
    uint32_t cap = t->capacity ? t->capacity : 1024;
    while (cap < need)
        cap *= 2;
    t->hops = xrealloc(t->hops, cap);
    t->rec = xrealloc(t->rec, (size_t)cap * t->max_hops * sizeof(*t->rec));
    memset(t->hops + t->capacity, 0, cap - t->capacity);
    t->capacity = cap;
}

struct hpcc_int_table *hpcc_int_new(uint32_t pool_capacity)
{
    struct hpcc_int_table *t = xcalloc(1, sizeof(*t));
    t->max_hops = HPCC_MAX_HOPS;
    grow(t, pool_capacity);
    return t;
}

void hpcc_int_delete(struct hpcc_int_table *t)
{
    if (!t)
        return;
    free(t->hops);
    free(t->rec);
    free(t);
}

void hpcc_int_clear(struct hpcc_int_table *t, uint32_t idx)
{
    if (idx >= t->capacity)
        grow(t, idx + 1);
    t->hops[idx] = 0;
}

void hpcc_int_stamp(struct sim *s, struct hpcc_int_table *t, uint32_t port_idx, uint32_t idx, uint32_t qlen_bytes)
{
    const struct packet *pkt = pkt_at(&s->pool, idx);
    if (pkt->type != PKT_DATA || idx >= t->capacity)
        return; /* only data carries INT; a data packet has a row from hpcc_int_clear */
    uint32_t h = t->hops[idx];
    if (h >= t->max_hops)
        die_internal("HPCC: packet %u crossed more than %u egress ports", idx, t->max_hops);
    const struct port *p = &s->ports[port_idx];
    t->rec[(size_t)idx * t->max_hops + h] = (struct hpcc_int){
        .tx_bytes = p->st.tx_bytes, .ts_ps = s->now, .qlen_bytes = qlen_bytes, .rate_mbps = p->rate_mbps, .port = port_idx};
    t->hops[idx] = (uint8_t)(h + 1);
}

const struct hpcc_int *hpcc_int_of(const struct hpcc_int_table *t, uint32_t idx, uint32_t *n)
{
    if (!t || idx >= t->capacity || !t->hops[idx]) {
        *n = 0;
        return NULL;
    }
    *n = t->hops[idx];
    return &t->rec[(size_t)idx * t->max_hops];
}

void hpcc_int_put(struct hpcc_int_table *t, uint32_t idx, const struct hpcc_int *rec, uint32_t n)
{
    if (idx >= t->capacity)
        grow(t, idx + 1);
    if (n > t->max_hops)
        n = t->max_hops;
    memmove(&t->rec[(size_t)idx * t->max_hops], rec, n * sizeof(*rec));
    t->hops[idx] = (uint8_t)n;
}

/* ---- RoCE hooks ---------------------------------------------------------------------------- */

void hpcc_int_save(struct hpcc_int_table *t, uint32_t idx)
{
    uint32_t n;
    const struct hpcc_int *r = hpcc_int_of(t, idx, &n);
    t->saved_n = n;
    if (n)
        memcpy(t->saved, r, n * sizeof(*r));
}

void hpcc_int_echo(struct hpcc_int_table *t, uint32_t idx)
{
    hpcc_int_put(t, idx, t->saved, t->saved_n);
}


/* ---- the CC module ------------------------------------------------------------------ */

struct hpcc_cc {
    struct cc_rate r;
    struct hpcc_state h;
};

static void hpcc_publish(struct hpcc_cc *c)
{
    c->r.window_bytes = c->h.w_bytes;
    c->r.rate_mbps = hpcc_rate_mbps(&c->h);
}

/* W = Wc = B*T, W_AI one MTU (hpcc_init). */
static void hpcc_cc_init(void *st, const struct cc_params *p)
{
    struct hpcc_cc *c = st;
    hpcc_init(&c->h, p->linkspeed_mbps, (simtime_ps)(HPCC_T_US * PS_PER_US), p->mtu_bytes);
    hpcc_publish(c);
}

/* NewAck on the ACK's INT records. The ACK that completes the message
 * changes nothing: the message is over (and a connection's next message,
 * inheriting this state, starts from the window it had before it). */
static void hpcc_cc_on_ack(void *st, const struct cc_rate_ack *a)
{
    struct hpcc_cc *c = st;
    if (a->completes)
        return;
    hpcc_on_ack(&c->h, a->ack_seq, a->snd_nxt, a->hops, a->n_hops);
    hpcc_publish(c);
}

/* The once-per-RTT marker is in the old message's packet numbers. */
static void hpcc_cc_new_message(void *st, simtime_ps now)
{
    (void)now;
    ((struct hpcc_cc *)st)->h.last_update_seq = 0;
}

const struct cc_ops cc_hpcc_ops = {
    .name = "hpcc",
    .description = "HPCC (Li et al., SIGCOMM 2019): RoCE's window and rate from in-band telemetry",
    .state_size = sizeof(struct hpcc_cc),
    .init = hpcc_cc_init,
    .rate_based = true,
    .on_rate_ack = hpcc_cc_on_ack,
    .on_new_message = hpcc_cc_new_message,
};
