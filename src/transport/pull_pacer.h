/* pull_pacer.h: the receiver's pull pacer, shared by the two receiver-credit
 * transports: EQDS (eqds.c) and UET's receiver-credit congestion control
 * (uet_credit.c). A sender tells its receiver how much credit it wants by
 * stamping a pull target on its data packets (and RTS); the receiving NIC's
 * pacer grants credit in PULL packets, one at a time and at a little under
 * the line rate, so the senders to one receiver together never send faster
 * than its link drains.
 *
 * Credit is counted in quanta (EQDS: 512 B, UET: 256 B). A pull target and
 * a pull number are cumulative counters of quanta that start at zero; a
 * sender may send what the pull numbers it heard add up to. The pacer keeps
 * three queues of the flows it serves, each first come first served, and on
 * every tick serves the head of the first that is not empty:
 *   retransmitting  credit owed for trimmed packets and RTS (EQDS only);
 *   active          the pull target is above what was granted so far;
 *   idle            the target was reached: such a flow keeps getting pulls
 *                   ("slow credit") until one window's worth beyond its
 *                   target, so a sender whose demand reappears can send at once.
 * A flow may sit in the idle queue more than once, as in the reference
 * simulator's lists. The pacer stops when the three are empty and starts
 * again at once on the next request.
 *
 * Two grant rules, both from the reference simulator (htsim eqds.cpp and
 * uec.cpp, EqdsPullPacer and UecPullPacer):
 *   EQDS  every pull grants a fixed 4 KB, one pull per fixed tick;
 *   UET   an active pull grants at most up to the target (16 KB at most),
 *         an idle one 16 KB, and the next pull waits as long as the granted
 *         credit takes at 0.99 of the line rate (at least 1 KB's worth).
 *
 * The pacer reaches a flow's receiver state through its configuration's
 * client_of(), so each transport keeps that state where it likes. Its ticks are transport
 * timers (transport_timer_at) of one flow received at that NIC, whose
 * transport forwards them to pull_pacer_tick().
 */
#ifndef SPRAYSIM_PULL_PACER_H
#define SPRAYSIM_PULL_PACER_H

#include "../core/core.h"

struct sim;

/* What the receiver keeps per flow for its pacer (client_of() finds it). */
struct pull_client {
    int64_t latest_q;      /* cumulative pull number granted so far */
    int64_t target_q;      /* the highest pull target heard from the sender */
    int64_t rtx_backlog_q; /* credit owed for retransmissions, pulled first (EQDS) */
    uint32_t next_ev;      /* entropy of the next PULL: cycles over -paths */
    bool in_active;        /* queued as an active sender */
    bool in_idle;          /* queued (or last served) as an idle sender */
};

/* A first-in first-out queue of flow indices (duplicates allowed). */
struct pull_fifo {
    uint32_t *v;
    uint32_t head, len, cap;
};

/* htsim oversubscribed_cc.cpp: a receiver on an oversubscribed tree scales
 * its pull rate down while the data it receives is ECN-marked or trimmed
 * before the last hop (the ToR downlink carries no ECN then, so marks and
 * such trims come from the oversubscribed core). Every 0.75-1.25 x 1.5 base
 * RTTs (drawn at random): g = (1 - 0.5) g + 0.5 x (fraction of whole
 * packets marked); rate -= the fraction of arrivals trimmed before the last
 * hop; rate x= 1 - 0.5 (g - 0.3) when g > 0.3; without a decrease the rate
 * grows by 0.01 x 2^k (k: updates since the last decrease), by 0.01 when
 * some packet was marked; the rate stays within [max(0.01, 0.9 /
 * oversubscription), 1]. */
struct pull_rate_ctl {
    bool started;
    double rate;
    double g;
    uint32_t increase_count;
    uint64_t received, ecn, trimmed_last_hop, trimmed_other;
    uint64_t old_received, old_ecn, old_trimmed_last_hop, old_trimmed_other;
    struct rng rng;
};

/* htsim eqds.cpp, EqdsPullPacer::skipPull (-recv_oversub_cc): the pacer
 * remembers the arrivals of the last 10 us and skips a pull with
 * probability (f - 0.1) when a fraction f > 0.1 of them was ECN-marked or
 * trimmed. */
struct pull_arrival {
    simtime_ps t;
    bool congested;
};
struct pull_recent {
    struct pull_arrival *v;
    uint32_t head, len, cap;
    uint32_t congested;
    struct rng rng;
};

struct pull_pacer {
    struct pull_fifo rtx, active, idle;
    bool running;              /* a tick is pending */
    uint32_t timer_flow;       /* the flow whose transport timer carries the ticks; UINT32_MAX before any */
    simtime_ps quantum_ps;     /* time per granted quantum now (proportional rule) */
    struct pull_rate_ctl ctl;  /* UET on oversubscribed trees */
    struct pull_recent recent; /* EQDS -recv_oversub_cc */
};

struct pull_pacer_cfg {
    uint32_t quantum_bytes;    /* EQDS 512, UET 256 */
    int64_t per_pull_q;        /* quanta per pull: EQDS 8 (4 KB), UET 64 (16 KB) */
    bool grant_to_target;      /* UET: an active pull never grants beyond the target */
    simtime_ps tick_ps;        /* fixed time between pulls (EQDS); 0 = proportional to the grant */
    simtime_ps quantum_ps;     /* proportional: time per quantum at the nominal pull rate (UET) */
    int64_t min_wait_q;        /* proportional: a pull that grants nothing waits this many quanta */
    int64_t idle_cap_q;        /* idle flows get pulls until this much beyond their target */
    uint32_t paths;            /* PULL entropies cycle over this many values */
    uint32_t timer_kind;       /* the transport's timer kind for ticks */
    uint32_t rate_timer_kind;  /* ... and for rate-control updates */
    bool rate_control;         /* the oversubscribed-tree rate control (struct pull_rate_ctl) */
    double min_rate;           /* its floor */
    simtime_ps base_rtt_ps;    /* its update interval is drawn around 1.5 x this */
    bool skip_on_congestion;   /* EQDS -recv_oversub_cc */
    uint64_t seed;             /* the run's seed, for the two controls' draws */
    /* the receiver state of flow fi (the transport keeps it where it likes) */
    struct pull_client *(*client_of)(struct sim *s, uint32_t fi);
};

void pull_pacer_init(struct pull_pacer *pp, const struct pull_pacer_cfg *cfg, uint32_t index);
void pull_pacer_free(struct pull_pacer *pp);

/* The receiver heard pull target `target_q` from flow fi (a data packet,
 * trimmed header or RTS): a higher target makes the flow an active sender,
 * unless it is being served as a retransmitting one. */
void pull_target_heard(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp, uint32_t fi,
                       int64_t target_q);
/* Queues flow fi as an active sender (it must not be one already). */
void pull_request_active(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp, uint32_t fi);
/* Credit for a retransmission: adds `quanta` to what flow fi is owed and
 * queues it as a retransmitting sender if it was not one (EQDS). */
void pull_request_rtx(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp, uint32_t fi,
                      int64_t quanta);
/* One tick: sends at most one PULL and schedules the next tick. */
void pull_pacer_tick(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp);

/* What the receiving NIC saw, for the two rate controls: a packet of a
 * flow it serves arrived (whole, trimmed at the last hop or before it, or
 * marked CE). Starts the rate control's updates on the first arrival. */
void pull_note_arrival(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp, uint32_t fi,
                       bool ecn, bool trimmed, bool last_hop);
/* The rate control's periodic update (its timer fired). */
void pull_rate_update(struct sim *s, const struct pull_pacer_cfg *cfg, struct pull_pacer *pp);

/* Sender side: credit bytes that pull number `pull_q` adds to a sender that
 * had heard up to *heard_q (0 when it is not newer), and *heard_q moves on. */
static inline int64_t pull_credit_heard(int64_t *heard_q, int64_t pull_q, uint32_t quantum_bytes)
{
    if (pull_q <= *heard_q)
        return 0;
    int64_t bytes = (pull_q - *heard_q) * (int64_t)quantum_bytes;
    *heard_q = pull_q;
    return bytes;
}

/* Bytes to quanta, rounding up (also for negative values). */
static inline int64_t pull_quanta_ceil(int64_t bytes, uint32_t quantum_bytes)
{
    int64_t q = bytes / (int64_t)quantum_bytes;
    if (q * (int64_t)quantum_bytes < bytes)
        q++;
    return q;
}

#endif
