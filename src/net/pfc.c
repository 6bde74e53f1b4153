/* pfc.c: Priority Flow Control on the data class (see pfc.h for the model
 * and its source). The PAUSE and RESUME frames are modelled as events that
 * act one link latency after the switch decides (the frame's own 64-byte
 * serialisation, 5 ns at 100 Gb/s, is left out).
 *
 * Invariant (checked with SPRAYSIM_CHECKS at the end of a run): each
 * ingress count is the size of the data packets from that link still held
 * by the downstream switch.
 */
#include "pfc.h"

#include "../sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ports owned by a node: [*first, *first + *n). */
static void node_ports(const struct sim *s, uint32_t node, uint32_t *first, uint32_t *n)
{
    if (node < s->n_hosts) {
        /* plane 0's port: find_reverse and find_cycle never ask for a
         * host's other ports (a host is never a pause's upstream switch) */
        *first = s->hosts[node].nic_port;
        *n = 1;
        return;
    }
    const struct switch_node *sw = &s->switches[node - s->n_hosts];
    *first = sw->first_port;
    *n = (uint32_t)sw->n_down + sw->n_up;
}

/* The other direction of port i's link: among the ports from peer back to
 * owner, the one with the same rank as i among the ports from owner to
 * peer (parallel links of a bundle pair up in order). */
static uint32_t find_reverse(const struct sim *s, uint32_t i)
{
    const struct port *p = &s->ports[i];
    uint32_t first, n, rank = 0;
    /* a host has one link to each plane's ToR (-planes): its port there */
    if (p->peer_node < s->n_hosts) {
        for (uint32_t pl = 0; pl < s->topo.planes; pl++)
            if (s->ports[host_nic_port(s, p->peer_node, pl)].peer_node == p->owner_node)
                return host_nic_port(s, p->peer_node, pl);
        return PORT_NONE;
    }
    /* a host's port is its only link to that ToR: rank 0 */
    if (p->owner_node >= s->n_hosts) {
        node_ports(s, p->owner_node, &first, &n);
        for (uint32_t j = first; j < i; j++)
            rank += s->ports[j].peer_node == p->peer_node;
    }
    node_ports(s, p->peer_node, &first, &n);
    for (uint32_t j = first; j < first + n; j++)
        if (s->ports[j].peer_node == p->owner_node && rank-- == 0)
            return j;
    return PORT_NONE;
}

void pfc_setup(struct sim *s)
{
    if (!s->cfg.pfc)
        return;
    struct pfc_run *r = xcalloc(1, sizeof(*r));
    r->low_bytes = s->cfg.pfc_low_pkts * s->cfg.mtu_bytes;
    r->high_bytes = s->cfg.pfc_high_pkts * s->cfg.mtu_bytes;
    r->deadlock_ps = s->cfg.pfc_deadlock_ps;
    r->class_mask = s->cfg.lossless_mask ? s->cfg.lossless_mask : 0xFEu; /* every data class 1 .. 7 */
    uint32_t n = s->n_ports ? s->n_ports : 1;
    r->ingress_bytes = xcalloc((size_t)n * PFC_CLASSES, sizeof(uint32_t));
    r->pause_sent = xcalloc((size_t)n * PFC_CLASSES, 1);
    r->paused_mask = xcalloc(n, 1);
    r->reverse_port = xcalloc(n, sizeof(uint32_t));
    r->paused_since = xcalloc(n, sizeof(simtime_ps));
    r->st = xcalloc(n, sizeof(struct pfc_port_stats));
    for (uint32_t i = 0; i < s->n_ports; i++) {
        r->reverse_port[i] = find_reverse(s, i);
        if (!(s->ports[i].flags & PORTF_HOST_NIC))
            s->ports[i].flags |= PORTF_PFC;
    }
    s->pfc = r;
}

void pfc_free(struct sim *s)
{
    struct pfc_run *r = s->pfc;
    if (!r)
        return;
    free(r->ingress_bytes);
    free(r->pause_sent);
    free(r->paused_mask);
    free(r->reverse_port);
    free(r->paused_since);
    free(r->st);
    free(r->deadlock_cycle);
    free(r);
    s->pfc = NULL;
}

/* The downstream switch sends PAUSE (or RESUME) of class cls to upstream
 * port `up`. */
static void send_frame(struct sim *s, uint32_t up, uint32_t cls, enum pfc_event_kind kind)
{
    struct pfc_run *r = s->pfc;
    r->pause_sent[up * PFC_CLASSES + cls] = kind == PFC_PAUSE;
    if (kind == PFC_PAUSE)
        r->pauses_by_class[cls]++;
    if (kind == PFC_PAUSE && r->reverse_port[up] != PORT_NONE)
        r->st[r->reverse_port[up]].pauses_sent++;
    simtime_ps at = s->now + s->ports[up].latency_ps;
    if (__builtin_expect(s->node_remote != NULL, 0) && s->node_remote[s->ports[up].owner_node])
        s->export_event(s, at, (*s->eq.seq_next)++, EV_PFC, up, PFC_AUX(kind, cls)); /* parallel runs */
    else
        eq_push_aux(&s->eq, at, EV_PFC, up, PFC_AUX(kind, cls));
}

void pfc_on_enqueue(struct sim *s, uint32_t ingress_port, uint32_t cls, uint32_t bytes)
{
    struct pfc_run *r = s->pfc;
    uint32_t k = ingress_port * PFC_CLASSES + cls;
    r->ingress_bytes[k] += bytes;
    if (r->ingress_bytes[k] > r->high_bytes && !r->pause_sent[k])
        send_frame(s, ingress_port, cls, PFC_PAUSE);
}

void pfc_on_dequeue(struct sim *s, uint32_t ingress_port, uint32_t cls, uint32_t bytes)
{
    struct pfc_run *r = s->pfc;
    uint32_t k = ingress_port * PFC_CLASSES + cls;
    invariant(r->ingress_bytes[k] >= bytes, "PFC: ingress link of port %u class %u counts %u bytes, %u leave",
              ingress_port, cls, r->ingress_bytes[k], bytes);
    r->ingress_bytes[k] -= bytes;
    if (r->ingress_bytes[k] < r->low_bytes && r->pause_sent[k])
        send_frame(s, ingress_port, cls, PFC_RESUME);
}

/* The next check: when the pauses will have been still for the deadlock
 * time if nothing changes before. */
static void arm_check(struct sim *s)
{
    struct pfc_run *r = s->pfc;
    if (r->check_pending || !r->n_paused || !r->deadlock_ps)
        return;
    r->check_pending = true;
    simtime_ps at = r->last_change_ps + r->deadlock_ps;
    eq_push_aux(&s->eq, at > s->now ? at : s->now + r->deadlock_ps, EV_PFC, 0, PFC_CHECK);
}

static bool port_holds_data(const struct port *p)
{
    if (p->data_bytes > 0 || (p->flags & PORTF_HOST_NIC))
        return true;
    for (uint32_t k = 0; p->x && k + 2 < p->x->n; k++)
        if (p->x->c[k].bytes)
            return true;
    return false;
}

struct held_from {
    uint32_t ingress; /* the upstream port whose data we look for */
    bool found;
};

static bool holds_from(const struct sim *s, uint32_t pkt_idx, bool on_wire, void *ctx)
{
    (void)on_wire;
    struct held_from *h = ctx;
    const struct packet *pkt = &s->pool.pkts[pkt_idx];
    if (pkt->type == PKT_DATA && pkt->ingress_port == h->ingress)
        h->found = true;
    return !h->found;
}

/* Wait-for graph: paused port P (at node A, toward switch B) waits on the
 * ports of B that are paused themselves and hold data that came over P's
 * link, since that data is what keeps B's count for P above the threshold.
 * (Any paused port of B holding any data is not enough: with a slow link a
 * pause can stay put for the deadlock time with no cycle of real
 * dependencies, which reported false deadlocks.) Depth-first search;
 * colour: 0 new, 1 on the stack, 2 done; depth[] is the position on the
 * stack, stack[] the ports on it. Returns the length of a cycle found below
 * p (0 if none); its ports are then stack[*start .. *start + length). */
struct dfs {
    uint8_t *colour;
    uint32_t *depth, *stack;
    uint32_t start;
};

static uint32_t find_cycle(const struct sim *s, uint32_t p, struct dfs *g, uint32_t d)
{
    g->colour[p] = 1;
    g->depth[p] = d;
    g->stack[d] = p;
    uint32_t peer = s->ports[p].peer_node, first, n;
    uint32_t found = 0;
    if (peer >= s->n_hosts) {
        node_ports(s, peer, &first, &n);
        for (uint32_t q = first; q < first + n && !found; q++) {
            if (!(s->ports[q].flags & PORTF_PAUSED) || g->colour[q] == 2)
                continue;
            struct held_from h = {p, false};
            port_visit_held(s, q, holds_from, &h);
            if (!h.found)
                continue;
            if (g->colour[q] == 1) {
                found = d + 1 - g->depth[q]; /* the ports from q to p on the stack */
                g->start = g->depth[q];
            } else {
                found = find_cycle(s, q, g, d + 1);
            }
        }
    }
    g->colour[p] = 2;
    return found;
}

void pfc_port_name(const struct sim *s, uint32_t port, char *buf, size_t len)
{
    char a[24], b[24];
    uint32_t ends[2] = {s->ports[port].owner_node, s->ports[port].peer_node};
    char *out[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        uint32_t node = ends[k];
        if (node < s->n_hosts) {
            snprintf(out[k], sizeof a, "host%u", node);
            continue;
        }
        const struct switch_node *sw = &s->switches[node - s->n_hosts];
        const char *kind = sw->tier == 0 ? "tor" : sw->tier == 2 ? "core" : s->topo.spec.tiers == 2 ? "spine" : "agg";
        snprintf(out[k], sizeof a, "%s%u", kind, sw->index_in_tier);
    }
    snprintf(buf, len, "%s->%s", a, b);
}

static void deadlock_check(struct sim *s)
{
    struct pfc_run *r = s->pfc;
    r->check_pending = false;
    if (!r->n_paused || r->deadlock)
        return;
    if (s->now - r->last_change_ps >= r->deadlock_ps) {
        struct dfs g = {xcalloc(s->n_ports, 1), xcalloc(s->n_ports, sizeof(uint32_t)),
                        xcalloc(s->n_ports, sizeof(uint32_t)), 0};
        uint32_t cycle = 0;
        for (uint32_t i = 0; i < s->n_ports && !cycle; i++)
            if ((s->ports[i].flags & PORTF_PAUSED) && g.colour[i] == 0 && port_holds_data(&s->ports[i]))
                cycle = find_cycle(s, i, &g, 0);
        if (cycle) {
            r->deadlock = true;
            r->deadlock_at_ps = r->last_change_ps;
            r->deadlock_cycle_ports = cycle;
            r->deadlock_cycle = xmalloc(cycle * sizeof(uint32_t));
            memcpy(r->deadlock_cycle, g.stack + g.start, cycle * sizeof(uint32_t));
            fprintf(stderr,
                    "spraysim: PFC deadlock: a cycle of %u paused ports, nothing paused or resumed since %.3f us; "
                    "stopping at %.3f us\n",
                    cycle, (double)r->last_change_ps / PS_PER_US, (double)s->now / PS_PER_US);
            fprintf(stderr, "spraysim: PFC deadlock cycle (each port waits on the next, the last on the first):");
            for (uint32_t k = 0; k < cycle; k++) {
                char name[64];
                pfc_port_name(s, r->deadlock_cycle[k], name, sizeof name);
                fprintf(stderr, " %s", name);
            }
            fprintf(stderr, "\n");
            s->stop = true;
        }
        free(g.stack);
        free(g.depth);
        free(g.colour);
        if (cycle)
            return;
    }
    arm_check(s);
}

void pfc_event(struct sim *s, uint32_t id, uint32_t aux)
{
    struct pfc_run *r = s->pfc;
    uint32_t kind = aux % 4, bit = 1u << (aux / 4);
    if (kind == PFC_CHECK) {
        deadlock_check(s);
        return;
    }
    struct port *p = &s->ports[id];
    r->last_change_ps = s->now;
    if (kind == PFC_PAUSE) {
        if (r->paused_mask[id] & bit)
            return;
        r->st[id].pauses_received++;
        if (!r->paused_mask[id]) {
            p->flags |= PORTF_PAUSED;
            r->paused_since[id] = s->now;
            r->n_paused++;
            arm_check(s);
        }
        r->paused_mask[id] |= (uint8_t)bit;
        return;
    }
    if (!(r->paused_mask[id] & bit))
        return;
    r->paused_mask[id] &= (uint8_t)~bit;
    if (!r->paused_mask[id]) {
        p->flags &= (uint16_t)~PORTF_PAUSED;
        r->st[id].paused_ps += s->now - r->paused_since[id];
        r->n_paused--;
    }
    port_resume(s, id);
}

#ifdef SPRAYSIM_CHECKS
/* Each ingress count is the size of the data packets that came over that
 * link and are still in the downstream switch: queued in a port's data
 * class (either DRR class) or on its wire having left it. */
static void check_ingress_counts(const struct sim *s)
{
    uint64_t *held = xcalloc((size_t)(s->n_ports ? s->n_ports : 1) * PFC_CLASSES, sizeof(uint64_t));
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const struct port *p = &s->ports[i];
        if (p->flags & PORTF_HOST_NIC)
            continue;
        uint32_t heads[2 + PORT_MAX_CLASSES] = {p->data_head, p->drr ? p->drr->head1 : PKT_NONE};
        uint32_t n_heads = 2;
        for (uint32_t k = 0; p->x && k + 2 < p->x->n; k++)
            heads[n_heads++] = p->x->c[k].head;
        for (uint32_t k = 0; k < n_heads; k++)
            for (uint32_t q = heads[k]; q != PKT_NONE; q = s->pool.pkts[q].next) {
                const struct packet *pkt = &s->pool.pkts[q];
                if (pfc_class_on(s, pkt->prio))
                    held[pkt->ingress_port * PFC_CLASSES + pkt->prio] += pkt->size_bytes;
            }
        if (p->in_service != PKT_NONE && p->in_service_queue != SERVED_FROM_CTL &&
            p->in_service_queue != SERVED_FROM_TRANSPORT) {
            const struct packet *pkt = &s->pool.pkts[p->in_service];
            if (pfc_class_on(s, pkt->prio))
                held[pkt->ingress_port * PFC_CLASSES + pkt->prio] += pkt->size_bytes;
        }
    }
    for (uint32_t i = 0; i < s->n_ports * PFC_CLASSES; i++)
        invariant(held[i] == s->pfc->ingress_bytes[i],
                  "PFC: the link from port %u counts %u bytes of class %u in its switch, which holds %llu", i / PFC_CLASSES,
                  s->pfc->ingress_bytes[i], i % PFC_CLASSES, (unsigned long long)held[i]);
    free(held);
}
#endif

void pfc_close_stats(struct sim *s)
{
    struct pfc_run *r = s->pfc;
    if (!r)
        return;
#ifdef SPRAYSIM_CHECKS
    check_ingress_counts(s);
#endif
    for (uint32_t i = 0; i < s->n_ports; i++)
        if (s->ports[i].flags & PORTF_PAUSED) {
            r->st[i].paused_ps += s->now - r->paused_since[i];
            r->paused_since[i] = s->now;
        }
}
