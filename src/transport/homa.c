/* homa.c: Homa (--transport homa), the receiver-driven transport with
 * network priorities that seed 001 compares SIRD against, as specs/sird.md
 * Sec. 4 describes the paper's baseline (PlatformLab/HomaSimulation's
 * configuration scaled to 100 G). Written from that description; no code
 * is taken from any Homa implementation.
 *
 * Sender. A message starts by sending its first RTTbytes (whole packets;
 * the whole message when smaller) unscheduled, at the unscheduled priority
 * of its size; every data packet carries the message length, so the first
 * one to arrive announces the message. The rest waits for grants. A host's
 * NIC, when free, sends the next packet of the message with the fewest
 * bytes left to send among those that may send (SRBF): a per-host min-heap;
 * packets a RESEND asked for go first within their message.
 *
 * Receiver. Per receiving host, the messages that still need grants, in
 * SRPT order (bytes left to grant, then arrival order). On every data
 * arrival (and when a message completes) it takes the k messages with the
 * fewest bytes left to grant, at most one per sender (HomaSim ranks
 * senders by their best message), and grants each up to received +
 * RTTbytes, never beyond its size: one GRANT packet carrying the new
 * cumulative grant and the scheduled priority of the message's rank (the
 * shortest the highest scheduled level; with fewer than the scheduled
 * levels active, the lowest ones). A fully granted message leaves the
 * scheduler and the next one moves up at once.
 *
 * Priorities. Level L is switch class L (strict priority, 0 first): level
 * 0 is spraysim's control class, shared by GRANT/RESEND and the highest
 * unscheduled level, as HomaSim sends grants at the highest priority.
 * Levels 0 .. U-1 are unscheduled (U = levels - min(k, levels - 1) by
 * default), U .. levels-1 scheduled. Unscheduled cutoffs are HomaSim's
 * STATIC_CBF_GRADUATED: equal shares of the unscheduled bytes per level
 * under the run's size distribution (the Poisson CDF, else the matrix's
 * sizes), or given (cutoffs=A:B:...).
 *
 * Loss (not exercised with -q inf). The receiver times a message that has
 * granted packets outstanding: after timeout_us (5 ms) without one of
 * its packets arriving, it sends a RESEND for the first missing range below
 * the grant (at most RTTbytes), again every timeout while it lasts. A
 * sender that has heard nothing from the receiver for a timeout after its
 * last packet, while the message is unfinished, sends the first packet
 * again so that the receiver learns of it. A sender that sent every
 * packet and has not heard that the message is done for a timeout after
 * its last packet asks with a NEED_DONE (header only; Linux Homa's
 * NEED_ACK), again every timeout while it lasts.
 *
 * Completion. The receiver holding every byte sends a DONE (header only,
 * at the highest priority, carrying the instant it completed) and sends it
 * again for any data packet or NEED_DONE of the message that arrives
 * later; the sender
 * learns from it that the message is done (as Linux Homa's ACK lets a
 * sender free an RPC's state). flows.csv's finish is the receiver's
 * completion, carried in the DONE; the sender's state (its NIC's queue,
 * its next message on the connection, a send_done trigger) changes when the
 * DONE arrives: no host sees another's state at the same instant, which
 * also makes Homa exact in parallel runs (pdes.c); the sender was once
 * told at the receiver's instant, by the simulator. Trimmed headers are
 * ignored (Homa has no trimming): timeouts recover them.
 *
 * Invariants (SPRAYSIM_CHECKS): a grant never passes the message's size; a
 * decision grants at most k messages, from distinct senders; the sender
 * never sends beyond what the receiver granted; a message's received
 * packets are its bitmap's bits and it completes with every byte.
 */
#include "homa.h"

#include "../core/parse.h"
#include "../lb/lb.h"
#include "../sim.h"
#include "../workload/poisson.h"
#include "data_packet.h"
#include "flow.h"
#include "rcv_bitmap.h"
#include "transport.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sird.md Sec. 4 [HomaSim]: rttBytes 10,000 B at 10 G = 100 KB at 100 G
 * (seed 001 Table 2's BDP). */
#define HOMA_RTT_BYTES 100000
/* sird.md Sec. 4 [HomaSim]: numSendersToKeepGranted 7 for W4 (WKb) and W5
 * (WKc); 4 for W3 (WKa): give k=4 for WKa. */
#define HOMA_K 7
/* Linux Homa (PlatformLab/HomaModule homa_utils.c, whose comment calls its
 * values "wild guesses"): resend_ticks 5 and resend_interval 5 timer ticks;
 * a tick taken as 1 ms [ours: the tick length was not verified], so a
 * RESEND after 5 ms of silence and every 5 ms while it lasts. Far above any
 * queueing delay of these runs, so a packet waiting behind higher
 * priorities is not sent twice. */
#define HOMA_TIMEOUT_US 5000.0
/* the largest k: the decision keeps one slot per granted message */
#define HOMA_MAX_K 64

enum homa_timer {
    HOMA_TIMER_RX = 0, /* receiver: granted packets overdue */
    HOMA_TIMER_TX = 1, /* sender: the receiver may not know the message */
};

/* Per flow (= one message), in tp_state: both ends' state, each reading
 * only what its end would know. */
struct homa_flow {
    struct homa_rx_msg rx;     /* receiver's view */
    struct rcv_bitmap rcv;     /* packets received (freed when complete) */
    uint64_t rcv_payload_bytes;
    simtime_ps rx_last_ps;     /* last data arrival */
    bool rx_known;             /* a packet has arrived */
    bool rx_timer_armed;
    bool tx_timer_armed;
    bool tx_heard;             /* a GRANT or RESEND arrived */
    uint8_t unsched_level, sched_level;
    uint32_t unsched_pkts;
    uint32_t next_seq;         /* next packet never sent */
    uint32_t tx_granted;       /* sender's view: packets [0, tx_granted) may go */
    uint32_t rs_lo, rs_hi;     /* packets to send again (RESEND), [lo, hi) */
    uint32_t heap_pos;         /* in the sender host's heap, or HOMA_NOT_SCHEDULED */
    simtime_ps tx_last_ps;     /* last data packet sent */
    uint64_t grants, resends;  /* GRANTs and RESENDs for this message */
};

struct homa_tx_heap {
    uint32_t *a; /* flow indices, min-heap by bytes left to send */
    uint32_t n, cap;
};

struct homa_run {
    struct homa_params p;
    struct homa_rx_sched *rx;  /* per host */
    struct homa_tx_heap *tx;   /* per host */
    simtime_ps timeout_ps;     /* 0: no timers */
    struct rng *rx_rng;        /* per host: entropy of the packets it makes as a receiver */
    uint64_t grants_sent, resends_sent;
};

/* The run's Homa state (transport_run_state), NULL before setup. */
static inline struct homa_run *hr(const struct sim *s)
{
    return transport_run_state(s, &transport_homa_ops);
}

/* ---- options and priorities ---------------------------------------------------------- */

void homa_params_default(struct homa_params *p, uint32_t mss_bytes)
{
    memset(p, 0, sizeof *p);
    p->levels = HOMA_MAX_LEVELS;
    p->k = HOMA_K;
    p->unsched_levels = HOMA_MAX_LEVELS - HOMA_K;
    p->rtt_bytes = HOMA_RTT_BYTES;
    p->unsched_bytes = HOMA_RTT_BYTES;
    p->timeout_us = HOMA_TIMEOUT_US;
    p->mss_bytes = mss_bytes;
}

__attribute__((format(printf, 3, 4))) static bool opt_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(err, errlen, "--homa-opt ");
    if (n >= 0 && (size_t)n < errlen)
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static bool opt_uint(const char *name, const char *v, uint64_t lo, uint64_t hi, uint64_t *out, char *err,
                     size_t errlen)
{
    char b[SHOWN_BUF];
    enum num_status st = parse_u64(v, out);
    if (st == NUM_BAD)
        return opt_fail(err, errlen, "%s=%s: not a whole number", name, shown(v, b));
    if (st == NUM_RANGE || *out < lo || *out > hi)
        return opt_fail(err, errlen, "%s=%s: out of range (%llu to %llu)", name, shown(v, b), (unsigned long long)lo,
                        (unsigned long long)hi);
    return true;
}

bool homa_params_parse(struct homa_params *p, const char *const *opts, unsigned n_opts, char *err, size_t errlen)
{
    char b[SHOWN_BUF];
    bool unsched_levels_given = false, unsched_bytes_given = false;
    const char *cutoffs = NULL;
    for (unsigned i = 0; i < n_opts; i++) {
        const char *o = opts[i], *eq = strchr(o, '=');
        if (!eq || eq == o)
            return opt_fail(err, errlen, "'%s': not NAME=VALUE", shown(o, b));
        char name[32];
        size_t nl = (size_t)(eq - o);
        if (nl >= sizeof name)
            return opt_fail(err, errlen, "'%s': no such option (levels, k, unsched_levels, rtt_bytes, "
                            "unsched_bytes, cutoffs, timeout_us)", shown(o, b));
        memcpy(name, o, nl);
        name[nl] = '\0';
        const char *v = eq + 1;
        uint64_t u;
        if (!strcmp(name, "levels")) {
            if (!opt_uint(name, v, 2, HOMA_MAX_LEVELS, &u, err, errlen))
                return false;
            p->levels = (uint32_t)u;
        } else if (!strcmp(name, "k")) {
            if (!opt_uint(name, v, 1, HOMA_MAX_K, &u, err, errlen))
                return false;
            p->k = (uint32_t)u;
        } else if (!strcmp(name, "unsched_levels")) {
            if (!opt_uint(name, v, 1, HOMA_MAX_LEVELS - 1, &u, err, errlen))
                return false;
            p->unsched_levels = (uint32_t)u;
            unsched_levels_given = true;
        } else if (!strcmp(name, "rtt_bytes")) {
            if (!opt_uint(name, v, 1, 1ull << 40, &u, err, errlen))
                return false;
            p->rtt_bytes = u;
        } else if (!strcmp(name, "unsched_bytes")) {
            if (!opt_uint(name, v, 1, 1ull << 40, &u, err, errlen))
                return false;
            p->unsched_bytes = u;
            unsched_bytes_given = true;
        } else if (!strcmp(name, "cutoffs")) {
            cutoffs = v;
        } else if (!strcmp(name, "timeout_us")) {
            double d;
            enum num_status st = parse_real(v, &d);
            if (st == NUM_BAD)
                return opt_fail(err, errlen, "timeout_us=%s: not a number", shown(v, b));
            if (st == NUM_RANGE || d < 0 || d > 1e9)
                return opt_fail(err, errlen, "timeout_us=%s: out of range (0 to 1e9; 0 = no timeouts)",
                                shown(v, b));
            p->timeout_us = d;
        } else {
            return opt_fail(err, errlen, "'%s': no such option (levels, k, unsched_levels, rtt_bytes, "
                            "unsched_bytes, cutoffs, timeout_us)", shown(name, b));
        }
    }
    if (!unsched_bytes_given)
        p->unsched_bytes = p->rtt_bytes;
    if (!unsched_levels_given)
        p->unsched_levels = p->levels - (p->k < p->levels - 1 ? p->k : p->levels - 1);
    if (p->unsched_levels >= p->levels)
        return opt_fail(err, errlen, "unsched_levels=%u: must leave a scheduled level below levels=%u",
                        p->unsched_levels, p->levels);
    p->cutoffs_given = false;
    if (cutoffs && strcmp(cutoffs, "auto")) {
        uint32_t want = p->unsched_levels - 1, n = 0;
        const char *c = cutoffs;
        while (*c) {
            const char *end = strchr(c, ':');
            size_t len = end ? (size_t)(end - c) : strlen(c);
            char num[32];
            if (len == 0 || len >= sizeof num)
                return opt_fail(err, errlen, "cutoffs=%s: not sizes in bytes separated by ':', or auto",
                                shown(cutoffs, b));
            memcpy(num, c, len);
            num[len] = '\0';
            uint64_t x;
            if (parse_u64(num, &x) != NUM_OK || x == 0)
                return opt_fail(err, errlen, "cutoffs=%s: '%s' is not a size in bytes (1 or more)",
                                shown(cutoffs, b), num);
            if (n == want)
                return opt_fail(err, errlen, "cutoffs=%s: %u unscheduled levels need %u cutoffs", shown(cutoffs, b),
                                p->unsched_levels, want);
            if (n && x <= p->cutoff_bytes[n - 1])
                return opt_fail(err, errlen, "cutoffs=%s: sizes must increase", shown(cutoffs, b));
            p->cutoff_bytes[n++] = x;
            c = end ? end + 1 : c + len;
            if (end && !*c)
                return opt_fail(err, errlen, "cutoffs=%s: ends with ':'", shown(cutoffs, b));
        }
        if (n != want)
            return opt_fail(err, errlen, "cutoffs=%s: %u unscheduled levels need %u cutoffs", shown(cutoffs, b),
                            p->unsched_levels, want);
        p->cutoffs_given = true;
    }
    return true;
}

uint32_t homa_unsched_pkts(const struct homa_params *p, uint64_t size_bytes, uint32_t n_pkts)
{
    uint64_t bytes = size_bytes < p->unsched_bytes ? size_bytes : p->unsched_bytes;
    uint64_t pkts = bytes / p->mss_bytes + (bytes % p->mss_bytes != 0);
    if (pkts < 1)
        pkts = 1; /* the first packet announces the message */
    return pkts < n_pkts ? (uint32_t)pkts : n_pkts;
}

uint32_t homa_unsched_level(const struct homa_params *p, uint64_t size_bytes)
{
    uint32_t level = 0;
    while (level + 1 < p->unsched_levels && size_bytes > p->cutoff_bytes[level])
        level++;
    return level;
}

uint32_t homa_sched_level(const struct homa_params *p, uint32_t rank, uint32_t n_active)
{
    uint32_t sched = p->levels - p->unsched_levels;
    /* slot from the top of the scheduled levels; ranks beyond the levels
     * share the highest one */
    int64_t slot = (int64_t)sched - (int64_t)n_active + (int64_t)rank;
    if (slot < 0)
        slot = 0;
    if (slot > (int64_t)sched - 1)
        slot = sched - 1;
    return p->unsched_levels + (uint32_t)slot;
}

/* Expected unscheduled bytes, min(size, R), of messages of size <= x under
 * the CDF's distribution: point masses (the first point; every point with
 * step sampling) and uniform segments (linear sampling). */
static double cdf_unsched_below(const struct size_cdf *c, bool step, double r, double x)
{
    double sum = 0;
    if (c->size_bytes[0] <= x)
        sum += c->prob[0] * fmin(c->size_bytes[0], r);
    for (uint32_t i = 1; i < c->n; i++) {
        double w = c->prob[i] - c->prob[i - 1], a = c->size_bytes[i - 1], b = c->size_bytes[i];
        if (w <= 0)
            continue;
        if (step || b <= a) {
            if (b <= x)
                sum += w * fmin(b, r);
            continue;
        }
        double hi = fmin(x, b);
        if (hi <= a)
            continue;
        double m = fmin(hi, r), part = 0;
        if (m > a)
            part += (m * m - a * a) / 2;
        double lo_r = fmax(a, r);
        if (hi > lo_r)
            part += r * (hi - lo_r);
        sum += w * part / (b - a);
    }
    return sum;
}

void homa_cutoffs_from_cdf(struct homa_params *p, const struct size_cdf *c, bool step)
{
    double r = (double)p->unsched_bytes, top = c->size_bytes[c->n - 1];
    double total = cdf_unsched_below(c, step, r, top);
    for (uint32_t j = 1; j < p->unsched_levels; j++) {
        double goal = total * j / p->unsched_levels, lo = 0, hi = top;
        for (int it = 0; it < 200; it++) {
            double mid = 0.5 * (lo + hi);
            if (cdf_unsched_below(c, step, r, mid) < goal)
                lo = mid;
            else
                hi = mid;
        }
        uint64_t cut = (uint64_t)llround(hi);
        if (cut < 1)
            cut = 1;
        /* cutoffs increase strictly, so every level covers some sizes */
        if (j > 1 && cut <= p->cutoff_bytes[j - 2])
            cut = p->cutoff_bytes[j - 2] + 1;
        p->cutoff_bytes[j - 1] = cut;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void homa_cutoffs_from_sizes(struct homa_params *p, const uint64_t *sizes, uint32_t n)
{
    uint64_t *s = xmalloc((n ? n : 1) * sizeof *s);
    memcpy(s, sizes, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u64);
    double total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += (double)(s[i] < p->unsched_bytes ? s[i] : p->unsched_bytes);
    double cum = 0;
    uint32_t j = 1;
    for (uint32_t i = 0; i < n && j < p->unsched_levels; i++) {
        cum += (double)(s[i] < p->unsched_bytes ? s[i] : p->unsched_bytes);
        while (j < p->unsched_levels && cum >= total * j / p->unsched_levels) {
            uint64_t cut = s[i];
            if (j > 1 && cut <= p->cutoff_bytes[j - 2])
                cut = p->cutoff_bytes[j - 2] + 1;
            p->cutoff_bytes[j - 1] = cut;
            j++;
        }
    }
    for (; j < p->unsched_levels; j++) /* no sizes: every cutoff at the top */
        p->cutoff_bytes[j - 1] = (j > 1 ? p->cutoff_bytes[j - 2] : p->unsched_bytes) + 1;
    free(s);
}

/* ---- the receiver's grant scheduler ---------------------------------------------------- */

static inline uint64_t left_to_grant(const struct homa_rx_msg *m, uint32_t mss)
{
    uint64_t g = (uint64_t)m->granted_pkts * mss;
    return g >= m->size_bytes ? 0 : m->size_bytes - g;
}

/* SRPT order: fewer bytes left to grant first, then the earlier message. */
static inline bool sched_before(const struct homa_rx_msg *a, const struct homa_rx_msg *b, uint32_t mss)
{
    uint64_t ka = left_to_grant(a, mss), kb = left_to_grant(b, mss);
    return ka < kb || (ka == kb && a->order < b->order);
}

static void sched_place(struct homa_rx_sched *r, uint32_t pos, struct homa_rx_msg *m)
{
    r->msgs[pos] = m;
    m->sched_pos = pos;
}

/* m's key decreased: move it towards the front. */
static void sched_bubble_up(struct homa_rx_sched *r, struct homa_rx_msg *m, uint32_t mss)
{
    uint32_t pos = m->sched_pos;
    while (pos > 0 && sched_before(m, r->msgs[pos - 1], mss)) {
        sched_place(r, pos, r->msgs[pos - 1]);
        pos--;
    }
    sched_place(r, pos, m);
}

void homa_sched_add(struct homa_rx_sched *r, struct homa_rx_msg *m, uint32_t mss)
{
    if (m->granted_pkts >= m->n_pkts)
        return;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->msgs = xrealloc(r->msgs, r->cap * sizeof *r->msgs);
    }
    sched_place(r, r->n++, m);
    sched_bubble_up(r, m, mss);
}

void homa_sched_remove(struct homa_rx_sched *r, struct homa_rx_msg *m)
{
    uint32_t pos = m->sched_pos;
    if (pos == HOMA_NOT_SCHEDULED)
        return;
    invariant(pos < r->n && r->msgs[pos] == m, "Homa scheduler: message %u not at its position %u", m->id, pos);
    for (uint32_t i = pos; i + 1 < r->n; i++)
        sched_place(r, i, r->msgs[i + 1]);
    r->n--;
    m->sched_pos = HOMA_NOT_SCHEDULED;
}

uint32_t homa_sched_decide(struct homa_rx_sched *r, const struct homa_params *p, struct homa_grant *out, bool *again)
{
    struct homa_rx_msg *chosen[HOMA_MAX_K];
    uint32_t n = 0, n_out = 0;
    uint32_t rtt_pkts = (uint32_t)(p->rtt_bytes / p->mss_bytes + (p->rtt_bytes % p->mss_bytes != 0));
    *again = false;
    for (uint32_t i = 0; i < r->n && n < p->k; i++) {
        struct homa_rx_msg *m = r->msgs[i];
        bool dup = false;
        for (uint32_t j = 0; j < n; j++)
            dup |= chosen[j]->sender == m->sender;
        if (!dup)
            chosen[n++] = m;
    }
    invariant(n <= p->k, "Homa: %u messages granted at once, k = %u", n, p->k);
    for (uint32_t j = 0; j < n; j++) {
        struct homa_rx_msg *m = chosen[j];
        for (uint32_t i = 0; i < j; i++)
            invariant(chosen[i]->sender != m->sender, "Homa: two granted messages from sender %u", m->sender);
        uint64_t target = (uint64_t)m->rcvd_pkts + rtt_pkts;
        if (target > m->n_pkts)
            target = m->n_pkts;
        if (target <= m->granted_pkts)
            continue;
        m->granted_pkts = (uint32_t)target;
        invariant(m->granted_pkts <= m->n_pkts, "Homa: message %u granted %u of %u packets", m->id, m->granted_pkts,
                  m->n_pkts);
        out[n_out++] = (struct homa_grant){.m = m, .granted_pkts = m->granted_pkts,
                                           .level = homa_sched_level(p, j, n)};
        if (m->granted_pkts == m->n_pkts) {
            homa_sched_remove(r, m);
            *again = true; /* the next message moves up */
        } else {
            sched_bubble_up(r, m, p->mss_bytes);
        }
    }
    return n_out;
}

void homa_sched_free(struct homa_rx_sched *r)
{
    free(r->msgs);
    memset(r, 0, sizeof *r);
}

/* ---- per-flow state ----------------------------------------------------------------------- */

static inline struct homa_flow *hf(const struct sim *s, uint32_t fi)
{
    return s->flows[fi].tp_state;
}

static inline uint64_t left_to_send(const struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    uint64_t sent = (uint64_t)hf(s, fi)->next_seq * hr(s)->p.mss_bytes;
    return sent >= f->size_bytes ? 0 : f->size_bytes - sent;
}

static inline bool tx_sendable(const struct sim *s, uint32_t fi)
{
    const struct homa_flow *h = hf(s, fi);
    return h->rs_lo < h->rs_hi || h->next_seq < h->tx_granted;
}

/* ---- the sender's SRBF heap ------------------------------------------------------------- */

static inline bool tx_before(const struct sim *s, uint32_t a, uint32_t b)
{
    uint64_t ka = left_to_send(s, a), kb = left_to_send(s, b);
    /* ties by the message's ordinal, not its slot (--stream recycles slots) */
    return ka < kb || (ka == kb && s->flows[a].ordinal < s->flows[b].ordinal);
}

static void heap_set(struct sim *s, struct homa_tx_heap *h, uint32_t pos, uint32_t fi)
{
    h->a[pos] = fi;
    hf(s, fi)->heap_pos = pos;
}

static void heap_up(struct sim *s, struct homa_tx_heap *h, uint32_t pos)
{
    uint32_t fi = h->a[pos];
    while (pos > 0 && tx_before(s, fi, h->a[(pos - 1) / 2])) {
        heap_set(s, h, pos, h->a[(pos - 1) / 2]);
        pos = (pos - 1) / 2;
    }
    heap_set(s, h, pos, fi);
}

static void heap_down(struct sim *s, struct homa_tx_heap *h, uint32_t pos)
{
    uint32_t fi = h->a[pos];
    for (;;) {
        uint32_t c = 2 * pos + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && tx_before(s, h->a[c + 1], h->a[c]))
            c++;
        if (!tx_before(s, h->a[c], fi))
            break;
        heap_set(s, h, pos, h->a[c]);
        pos = c;
    }
    heap_set(s, h, pos, fi);
}

static void heap_push(struct sim *s, struct homa_tx_heap *h, uint32_t fi)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 16;
        h->a = xrealloc(h->a, h->cap * sizeof *h->a);
    }
    heap_set(s, h, h->n++, fi);
    heap_up(s, h, h->n - 1);
}

static void heap_remove(struct sim *s, struct homa_tx_heap *h, uint32_t fi)
{
    uint32_t pos = hf(s, fi)->heap_pos;
    if (pos == HOMA_NOT_SCHEDULED)
        return;
    hf(s, fi)->heap_pos = HOMA_NOT_SCHEDULED;
    uint32_t last = h->a[--h->n];
    if (pos == h->n)
        return;
    heap_set(s, h, pos, last);
    heap_down(s, h, pos);
    heap_up(s, h, hf(s, last)->heap_pos);
}

/* ---- setup --------------------------------------------------------------------------------- */

/* Options and classes, before the fabric is built (ops.configure), so the
 * switches get one class per priority level. */
static void homa_init_run(struct sim *s)
{
    if (hr(s))
        return;
    struct config *c = &s->cfg;
    struct homa_run *r = xcalloc(1, sizeof *r);
    transport_set_run_state(s, &transport_homa_ops, r);
    homa_params_default(&r->p, c->mtu_bytes - c->hdr_bytes);
    char err[256];
    unsigned n_opts = transport_flag_count(s, "--homa-opt");
    const char **opts = xcalloc(n_opts ? n_opts : 1, sizeof *opts);
    for (unsigned i = 0; i < n_opts; i++)
        opts[i] = transport_flag_arg_at(s, "--homa-opt", i, 0);
    bool ok = homa_params_parse(&r->p, opts, n_opts, err, sizeof err);
    free(opts);
    if (!ok)
        die_input("%s", err);
    r->timeout_ps = (simtime_ps)llround(r->p.timeout_us * (double)PS_PER_US);
}

static void homa_configure(struct sim *s)
{
    homa_init_run(s);
    struct config *c = &s->cfg;
    uint32_t levels = hr(s)->p.levels;
    if (c->n_classes < levels) {
        if (c->classes_given)
            die_input("--classes %u: Homa uses %u priority levels, one switch class each; give --classes %u or "
                      "--homa-opt levels=%u", c->n_classes, levels, levels, c->n_classes);
        c->n_classes = levels;
    }
}

static void homa_setup(struct sim *s)
{
    homa_init_run(s);
    struct homa_run *r = hr(s);
    const struct config *c = &s->cfg;
    if (c->n_classes < r->p.levels)
        die_input("--transport homa (a .cm line): Homa uses %u priority levels; give --classes %u", r->p.levels,
                  r->p.levels);
    if (c->class_drr)
        die_input("--sched class-drr: Homa's priority levels need strict priority between classes");
    if (!r->p.cutoffs_given && r->p.unsched_levels > 1) {
        struct size_cdf cdf;
        bool step;
        if (workload_size_cdf(c, &cdf, &step)) {
            homa_cutoffs_from_cdf(&r->p, &cdf, step);
            cdf_free(&cdf);
        } else {
            uint64_t *sizes = xmalloc((s->cm.n_conns ? s->cm.n_conns : 1) * sizeof *sizes);
            for (uint32_t i = 0; i < s->cm.n_conns; i++)
                sizes[i] = s->cm.conns[i].size_bytes;
            homa_cutoffs_from_sizes(&r->p, sizes, s->cm.n_conns);
            free(sizes);
        }
    }
    r->rx = xcalloc(s->n_hosts, sizeof *r->rx);
    r->tx = xcalloc(s->n_hosts, sizeof *r->tx);
    /* one stream per receiving host, far from the flows' own substreams
     * (flow index) and SIRD's receivers' (2^40 + host): a host's draws
     * depend on its own events only, so a parallel run's processes draw
     * what a single process would */
    r->rx_rng = xcalloc(s->n_hosts ? s->n_hosts : 1, sizeof *r->rx_rng);
    for (uint32_t h = 0; h < s->n_hosts; h++)
        rng_seed(&r->rx_rng[h], c->seed, RNG_STREAM_LB, (1ull << 41) + h);
    if (!strcmp(c->transport_name, "homa"))
        s->no_sender_window = true;
    if (c->cc_given)
        warn_input("--cc %s has no effect on Homa: receivers grant, senders keep no window", s->cc->name);
}

/* Homa uses no ECN (sird.md Sec. 4): switches mark only when -ecn is given.
 * Its packets use every class (one per level), whatever its flows' class;
 * it never reads a mark, so this is a preference: a transport that reads
 * marks in a shared class keeps them. */
static void homa_fabric_needs(const struct sim *s, uint32_t classes, struct class_need need[PORT_MAX_CLASSES])
{
    (void)classes;
    if (s->cfg.ecn_high_pkts)
        return;
    for (uint32_t k = PKT_PRIO_DATA; k < s->cfg.n_classes && k < PORT_MAX_CLASSES; k++)
        need[k] = (struct class_need){.ecn = NEED_OFF, .ecn_weak = true};
}

static void homa_flow_add(struct sim *s, uint32_t fi)
{
    (void)s;
    (void)fi; /* state comes at the start, as for the matrix's flows */
}

/* --stream: message fi (made during the run) finished and its last packet
 * left the network; it is out of its receiver's scheduler and its sender's
 * heap since it completed, and its timers do nothing for a finished one. */
static void homa_flow_release(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    invariant(f->rcv_complete && hf(s, fi)->heap_pos == HOMA_NOT_SCHEDULED &&
                  hf(s, fi)->rx.sched_pos == HOMA_NOT_SCHEDULED,
              "Homa flow %u released while scheduled", fi);
    rcv_bitmap_free(&hf(s, fi)->rcv);
    transport_cc_lb_free(f);
    free(f->tp_state);
    f->tp_state = NULL;
}

static bool homa_can_release(const struct sim *s)
{
    (void)s;
    return true;
}

static void homa_free(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_flows; i++) {
        struct flow *f = &s->flows[i];
        if (f->tp != &transport_homa_ops || !f->tp_state)
            continue;
        rcv_bitmap_free(&hf(s, i)->rcv);
        transport_cc_lb_free(f);
        free(f->tp_state);
        f->tp_state = NULL;
    }
    struct homa_run *r = hr(s);
    if (!r)
        return;
    for (uint32_t h = 0; r->rx && h < s->n_hosts; h++) {
        homa_sched_free(&r->rx[h]);
        free(r->tx[h].a);
    }
    free(r->rx);
    free(r->tx);
    free(r->rx_rng);
    free(r);
    transport_set_run_state(s, &transport_homa_ops, NULL);
}

/* ---- sender --------------------------------------------------------------------------------- */

/* Whether the sender waits on the receiver with nothing of its own to do:
 * it has heard nothing yet (the receiver may not know the message), or it
 * sent every packet and the DONE has not come. */
static bool tx_waits(const struct sim *s, uint32_t fi)
{
    const struct homa_flow *h = hf(s, fi);
    return !h->tx_heard || (h->next_seq >= s->flows[fi].n_pkts && !(h->rs_lo < h->rs_hi));
}

static void arm_tx_timer(struct sim *s, uint32_t fi)
{
    struct homa_flow *h = hf(s, fi);
    if (!hr(s)->timeout_ps || h->tx_timer_armed || !tx_waits(s, fi))
        return;
    h->tx_timer_armed = true;
    transport_timer_at(s, s->now + hr(s)->timeout_ps, fi, HOMA_TIMER_TX);
}

/* The message may send: into its host's heap and the NIC's ring. */
static void tx_wake(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (f->state != FLOW_ACTIVE || !tx_sendable(s, fi))
        return;
    if (hf(s, fi)->heap_pos == HOMA_NOT_SCHEDULED)
        heap_push(s, &hr(s)->tx[f->src], fi);
    transport_nic_ready(s, fi);
}

static void homa_flow_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (!transport_flow_activate(s, f))
        return;
    struct homa_run *r = hr(s);
    struct homa_flow *h = xcalloc(1, sizeof *h);
    f->tp_state = h;
    h->unsched_pkts = homa_unsched_pkts(&r->p, f->size_bytes, f->n_pkts);
    h->unsched_level = (uint8_t)homa_unsched_level(&r->p, f->size_bytes);
    h->sched_level = (uint8_t)(r->p.levels - 1);
    h->tx_granted = h->unsched_pkts;
    h->heap_pos = HOMA_NOT_SCHEDULED;
    h->rx.sched_pos = HOMA_NOT_SCHEDULED;
    transport_lb_start(s, fi);
    tx_wake(s, fi);
}

/* The NIC of the flow's host is free: the next packet of the host's message
 * with the fewest bytes left to send (SRBF), whichever flow the ring asked. */
static uint32_t homa_nic_pull(struct sim *s, uint32_t fi)
{
    struct homa_tx_heap *heap = &hr(s)->tx[s->flows[fi].src];
    while (heap->n) {
        uint32_t top = heap->a[0];
        if (tx_sendable(s, top))
            break;
        heap_remove(s, heap, top);
    }
    if (!heap->n)
        return PKT_NONE;
    uint32_t top = heap->a[0];
    struct flow *f = &s->flows[top];
    struct homa_flow *h = hf(s, top);
    bool rtx = h->rs_lo < h->rs_hi;
    uint32_t seq = rtx ? h->rs_lo++ : h->next_seq++;
    invariant(seq < h->rx.granted_pkts || seq < h->unsched_pkts || !h->rx_known,
              "Homa flow %u: sending packet %u beyond the receiver's grant of %u", top, seq, h->rx.granted_pkts);
    invariant(h->next_seq <= h->tx_granted && h->tx_granted <= f->n_pkts,
              "Homa flow %u: next packet %u, granted %u of %u", top, h->next_seq, h->tx_granted, f->n_pkts);
    uint32_t size = flow_pkt_payload(f, seq, hr(s)->p.mss_bytes) + s->cfg.hdr_bytes;
    uint32_t idx = transport_data_packet(s, top, seq, size);
    struct packet *p = pkt_at(&s->pool, idx);
    p->prio = seq < h->unsched_pkts ? h->unsched_level : h->sched_level;
    f->c.pkts_sent++;
    s->tot.data_pkts_sent++;
    if (rtx) {
        p->flags |= PKTF_RTX;
        f->c.retransmits++;
        s->tot.rtx_pkts_sent++;
    }
    h->tx_last_ps = s->now;
    arm_tx_timer(s, top);
    /* only the top sent: its key fell, so the heap stays ordered */
    if (!tx_sendable(s, top))
        heap_remove(s, heap, top);
    return idx;
}

static void on_grant(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    struct homa_flow *h = hf(s, fi);
    h->tx_heard = true;
    if (p->seq > h->tx_granted) {
        h->tx_granted = p->seq < f->n_pkts ? p->seq : f->n_pkts;
        h->sched_level = (uint8_t)p->ref_seq;
    }
    tx_wake(s, fi);
}

static void on_resend(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    struct homa_flow *h = hf(s, fi);
    h->tx_heard = true;
    uint32_t lo = p->seq, hi = p->ref_seq < f->n_pkts ? p->ref_seq : f->n_pkts;
    if (hi > h->tx_granted) /* a RESEND also grants what it names */
        h->tx_granted = hi;
    uint32_t sent_hi = hi < h->next_seq ? hi : h->next_seq; /* the rest goes as new data */
    if (lo < sent_hi) {
        if (h->rs_lo < h->rs_hi) {
            h->rs_lo = lo < h->rs_lo ? lo : h->rs_lo;
            h->rs_hi = sent_hi > h->rs_hi ? sent_hi : h->rs_hi;
        } else {
            h->rs_lo = lo;
            h->rs_hi = sent_hi;
        }
    }
    tx_wake(s, fi);
}

static void tx_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct homa_flow *h = hf(s, fi);
    h->tx_timer_armed = false;
    if (f->state != FLOW_ACTIVE || !tx_waits(s, fi))
        return;
    if (s->now < h->tx_last_ps + hr(s)->timeout_ps) {
        h->tx_timer_armed = true;
        transport_timer_at(s, h->tx_last_ps + hr(s)->timeout_ps, fi, HOMA_TIMER_TX);
        return;
    }
    h->tx_last_ps = s->now;
    if (h->tx_heard) {
        /* every packet sent and no DONE: ask (a receiver that is not done
         * yet ignores it: its own timer asks for what it misses) */
        uint32_t idx = transport_make_packet(s, fi, HOMA_PKT_NEED_DONE, 0, s->cfg.hdr_bytes);
        struct packet *p = pkt_at(&s->pool, idx);
        p->entropy = f->lb->next_entropy(f->lb_state, f->n_pkts - 1, s->now);
        nic_send(s, f->src, idx);
        arm_tx_timer(s, fi);
        return;
    }
    /* nothing heard: the receiver may not know the message */
    f->c.timeouts++;
    s->tot.rtos++;
    if (!(h->rs_lo < h->rs_hi)) {
        h->rs_lo = 0;
        h->rs_hi = 1;
    }
    tx_wake(s, fi);
    arm_tx_timer(s, fi);
}

/* ---- receiver ----------------------------------------------------------------------------- */

/* A control packet (GRANT, RESEND) from the receiver of flow fi to its
 * sender, at the highest priority. */
static void send_ctl(struct sim *s, uint32_t fi, uint8_t type, uint32_t seq, uint32_t ref)
{
    uint32_t idx = transport_make_reply(s, fi, type, seq, s->cfg.hdr_bytes);
    struct packet *p = pkt_at(&s->pool, idx);
    p->ref_seq = ref;
    p->ts_ps = s->now;
    p->entropy = (uint16_t)rng_below(&hr(s)->rx_rng[s->flows[fi].dst], s->cfg.paths);
    nic_send(s, s->flows[fi].dst, idx);
}

static void arm_rx_timer(struct sim *s, uint32_t fi)
{
    struct homa_flow *h = hf(s, fi);
    if (!hr(s)->timeout_ps || h->rx_timer_armed)
        return;
    h->rx_timer_armed = true;
    transport_timer_at(s, s->now + hr(s)->timeout_ps, fi, HOMA_TIMER_RX);
}

/* Grant decisions at a receiving host until no message moves up. */
static void grant(struct sim *s, uint32_t host)
{
    struct homa_run *r = hr(s);
    struct homa_grant g[HOMA_MAX_K];
    bool again = true;
    while (again) {
        uint32_t n = homa_sched_decide(&r->rx[host], &r->p, g, &again);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t fi = g[i].m->id;
            hf(s, fi)->grants++;
            r->grants_sent++;
            send_ctl(s, fi, HOMA_PKT_GRANT, g[i].granted_pkts, g[i].level);
            arm_rx_timer(s, fi);
        }
    }
}

static void rx_complete(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct homa_flow *h = hf(s, fi);
#ifdef SPRAYSIM_CHECKS
    uint32_t bits = 0;
    for (uint32_t w = 0; w < (f->n_pkts + 63) / 64; w++)
        bits += (uint32_t)__builtin_popcountll(h->rcv.bits[w]);
    invariant(bits == h->rx.rcvd_pkts && bits == f->n_pkts, "Homa flow %u: %u packets counted, %u in the bitmap, %u "
              "in the message", fi, h->rx.rcvd_pkts, bits, f->n_pkts);
#endif
    invariant(h->rcv_payload_bytes == f->size_bytes, "Homa flow %u: received %llu payload bytes of %llu", fi,
              (unsigned long long)h->rcv_payload_bytes, (unsigned long long)f->size_bytes);
    homa_sched_remove(&hr(s)->rx[f->dst], &h->rx);
    rcv_bitmap_free(&h->rcv);
    f->rcv_complete = true;
    f->rcv_done_ps = s->now;
    /* the sender learns it from the DONE (see the head of the file) */
    send_ctl(s, fi, HOMA_PKT_DONE, 0, 0);
    const struct cm_conn *c = &s->cm.conns[f->conn_index];
    if (c->recv_done_trigger != CM_NO_TRIGGER)
        sim_trigger_activate(s, c->recv_done_trigger);
}

/* The sender hears that its message is done: a one-way message finishes
 * when its receiver holds every byte, the instant the DONE carries. */
static void on_done(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    f->state = FLOW_DONE;
    f->finish_ps = p->ts_ps;
    s->flows_finished++;
    heap_remove(s, &hr(s)->tx[f->src], fi);
    transport_nic_unready(s, fi);
    transport_msg_sent(s, fi);
    transport_cc_lb_free(f); /* the sender sends no more */
    transport_flow_finished(s, fi);
}

static void on_data(struct sim *s, uint32_t fi, const struct packet *p)
{
    struct flow *f = &s->flows[fi];
    struct homa_flow *h = hf(s, fi);
    if (p->flags & PKTF_TRIMMED) {
        s->tot.trimmed_delivered++; /* Homa has no trimming: a timeout recovers it */
        return;
    }
    s->tot.data_pkts_delivered++;
    if (f->rcv_complete) {
        /* a duplicate after completion: the sender has not heard the DONE */
        send_ctl(s, fi, HOMA_PKT_DONE, 0, 0);
        return;
    }
    if (!h->rx_known) {
        /* every data packet carries the message length (the receiver reads
         * the flow's size as that field) */
        h->rx_known = true;
        rcv_bitmap_init(&h->rcv, f->n_pkts);
        h->rx = (struct homa_rx_msg){.size_bytes = f->size_bytes, .n_pkts = f->n_pkts, .sender = f->src, .id = fi, .order = f->ordinal,
                                     .granted_pkts = homa_unsched_pkts(&hr(s)->p, f->size_bytes, f->n_pkts),
                                     .sched_pos = HOMA_NOT_SCHEDULED};
        homa_sched_add(&hr(s)->rx[f->dst], &h->rx, hr(s)->p.mss_bytes);
    }
    h->rx_last_ps = s->now;
    if (!rcv_bitmap_set(&h->rcv, p->seq))
        return; /* duplicate */
    h->rx.rcvd_pkts++;
    h->rcv_payload_bytes += flow_pkt_payload(f, p->seq, hr(s)->p.mss_bytes);
    invariant(h->rx.rcvd_pkts <= f->n_pkts && h->rcv_payload_bytes <= f->size_bytes,
              "Homa flow %u: %u packets, %llu bytes received of %u, %llu", fi, h->rx.rcvd_pkts,
              (unsigned long long)h->rcv_payload_bytes, f->n_pkts, (unsigned long long)f->size_bytes);
    if (h->rx.rcvd_pkts == f->n_pkts)
        rx_complete(s, fi);
    else
        arm_rx_timer(s, fi);
    grant(s, f->dst);
}

static void rx_timer(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    struct homa_flow *h = hf(s, fi);
    h->rx_timer_armed = false;
    if (f->rcv_complete || h->rx.granted_pkts <= h->rx.rcvd_pkts)
        return; /* nothing owed: waiting for a grant is not a loss */
    simtime_ps due = h->rx_last_ps + hr(s)->timeout_ps;
    if (s->now < due) {
        h->rx_timer_armed = true;
        transport_timer_at(s, due, fi, HOMA_TIMER_RX);
        return;
    }
    uint32_t lo = rcv_bitmap_next_missing(&h->rcv, h->rcv.cum);
    if (lo > h->rx.granted_pkts)
        lo = h->rx.granted_pkts;
    if (lo < h->rx.granted_pkts) {
        uint32_t rtt_pkts = (uint32_t)((hr(s)->p.rtt_bytes + hr(s)->p.mss_bytes - 1) / hr(s)->p.mss_bytes);
        uint32_t hi = lo + 1;
        while (hi < h->rx.granted_pkts && hi - lo < rtt_pkts && !rcv_bitmap_test(&h->rcv, hi))
            hi++;
        f->c.timeouts++;
        s->tot.rtos++;
        h->resends++;
        hr(s)->resends_sent++;
        send_ctl(s, fi, HOMA_PKT_RESEND, lo, hi);
    }
    h->rx_last_ps = s->now; /* the next RESEND a timeout later */
    arm_rx_timer(s, fi);
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static void homa_receive(struct sim *s, uint32_t pkt_idx)
{
    struct packet copy = *pkt_at(&s->pool, pkt_idx);
    pkt_release(&s->pool, pkt_idx);
    uint32_t fi = copy.flow;
    /* The sender's start makes the message's state; in a parallel run the
     * receiver's process never runs that start (docs/parallel.md), so
     * it makes its own when the first packet reaches it and
     * uses only the receiver's fields. */
    if (__builtin_expect(!s->flows[fi].tp_state, 0) && copy.dst_host == s->flows[fi].dst) {
        struct homa_flow *h = xcalloc(1, sizeof *h);
        h->heap_pos = HOMA_NOT_SCHEDULED;
        h->rx.sched_pos = HOMA_NOT_SCHEDULED;
        s->flows[fi].tp_state = h;
    }
    switch (copy.type) {
    case PKT_DATA:
        on_data(s, fi, &copy);
        break;
    case HOMA_PKT_NEED_DONE:
        s->tot.ctl_delivered++;
        if (s->flows[fi].rcv_complete)
            send_ctl(s, fi, HOMA_PKT_DONE, 0, 0);
        break;
    case HOMA_PKT_DONE:
        s->tot.ctl_delivered++;
        if (s->flows[fi].state == FLOW_ACTIVE)
            on_done(s, fi, &copy);
        break;
    case HOMA_PKT_GRANT:
        s->tot.ctl_delivered++;
        if (s->flows[fi].state == FLOW_ACTIVE)
            on_grant(s, fi, &copy);
        break;
    case HOMA_PKT_RESEND:
        s->tot.ctl_delivered++;
        if (s->flows[fi].state == FLOW_ACTIVE)
            on_resend(s, fi, &copy);
        break;
    default:
        die_internal("Homa: unexpected packet type %u", copy.type);
    }
}

static void homa_timer(struct sim *s, uint32_t fi, uint32_t kind)
{
    if (kind == HOMA_TIMER_RX)
        rx_timer(s, fi);
    else if (kind == HOMA_TIMER_TX)
        tx_timer(s, fi);
    else
        die_internal("unknown Homa timer %u", kind);
}

uint64_t homa_rcv_payload_bytes(const struct sim *s, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    if (f->rcv_complete)
        return f->size_bytes;
    return f->tp_state ? hf(s, fi)->rcv_payload_bytes : 0;
}

static const char *const homa_counter_names[] = {"grants", "resends"};

static const char *const homa_pkt_type_names[] = {"HOMA_GRANT", "HOMA_RESEND", "HOMA_DONE", "HOMA_NEED_DONE"}; /* from HOMA_PKT_GRANT */

static const struct transport_flag homa_flags[] = {
    {"--homa-opt", 1, true, "NAME=VALUE",
     "levels, k, unsched_levels, rtt_bytes, unsched_bytes, cutoffs, timeout_us; repeatable"},
};

/* --homa-opt is read by the run's transport only (its levels shape the
 * switch classes before the fabric is built) */
static void homa_check_flags(const struct sim *s)
{
    if (transport_flag_given(s, "--homa-opt") && strcmp(s->cfg.transport_name, "homa"))
        die_input("--homa-opt: a Homa option; add --transport homa");
}

static void homa_counters(const struct sim *s, uint32_t fi, uint64_t *out)
{
    const struct homa_flow *h = s->flows[fi].tp_state;
    out[0] = h ? h->grants : 0;
    out[1] = h ? h->resends : 0;
}

const struct transport_ops transport_homa_ops = {
    /* tests/mpi_test.sh: byte-identical at 1, 2 and 3 processes (the sender
     * learns completion from the DONE; per-host entropy streams) */
    .parallel_exact = true,
    .name = "homa",
    .reads = TP_READS_CC,
    .description = "Homa (seed 001's baseline, specs/sird.md Sec. 4): RTTbytes unscheduled, SRPT grants to k "
                   "messages, 8 priority levels, per-packet spraying",
    .configure = homa_configure,
    .setup = homa_setup,
    .flow_add = homa_flow_add,
    .flow_start = homa_flow_start,
    .msg_inherit_default = false, /* no congestion state: each message is scheduled on its own (sird.md Sec. 4) */
    .nic_pull = homa_nic_pull,
    .receive = homa_receive,
    .timer = homa_timer,
    .fabric_needs = homa_fabric_needs,
    .free = homa_free,
    .flow_release = homa_flow_release,
    .can_release = homa_can_release,
    .n_counters = 2,
    .counter_names = homa_counter_names,
    .counters = homa_counters,
    .rcv_payload_bytes = homa_rcv_payload_bytes,
    .ecn_only_when_given = true,
    .one_way = true, /* done at delivery, no ACK: flows.csv's ideal is the delivery's */
    .flags = homa_flags,
    .n_flags = sizeof homa_flags / sizeof homa_flags[0],
    .check_flags = homa_check_flags,
    .pkt_type_names = homa_pkt_type_names,
    .n_pkt_types = sizeof homa_pkt_type_names / sizeof homa_pkt_type_names[0],
};
