/* fabric.c: wires a derived tree into ports and answers "which output port"
 * for a packet at a switch.
 *
 * Port layout per switch: down ports first, then up ports. ToR up port u goes
 * to aggregation switch u / bundle of its pod (every ToR reaches every agg of
 * its pod, or every spine in a leaf-spine). Aggregation switch at position p
 * of its pod has up port u to core p + aggs_per_pod * (u / bundle); a core's
 * down port d goes to pod d / bundle. Upward hops, and the choice among the
 * parallel links of a bundle, hash (flow, entropy value, per-switch salt), as
 * ECMP does; the downward switch is fixed by the destination.
 *
 * Once routing knows of failures a switch only uses candidates that are up
 * and from which the destination is still reachable going up then down
 * (up-down routing, which cannot deadlock under PFC). With --reroute bounce,
 * a switch left with no such candidate sends the packet down to another
 * lower switch that still reaches the destination, from which it climbs
 * again: a valley, as a switch with local fast reroute does (F10; Hu et al.,
 * HotNets 2016; Guo et al., SIGCOMM 2016 Sec. 4). Valleys restore paths
 * up-down routing has lost, and can close a cycle of PFC buffer
 * dependencies (experiments/pfc_pathologies.md, section 3).
 *
 * Adaptive routing (--routing ar, -strat ecmp_ar) picks the up port with
 * the shortest quantised queue for every packet (htsim's default
 * -ar_granularity packet). With -ar_granularity flow (htsim FatTreeSwitch
 * PER_FLOWLET) a switch remembers, per flow, the up port it chose and when
 * the flow's last packet passed: the flow keeps that port, and only a
 * packet arriving more than -ar_sticky_delta (default 10 us) after the
 * previous one may move it, with probability 1/2, to the best port if that
 * port's queue is shorter. As in htsim, packets under 100 bytes (control)
 * never enter the table; here they keep per-packet adaptive routing.
 * -ar_method pause or pq compares ports by PFC's pause first (a port whose
 * far end paused it is worse), pq then by queue; htsim's utilisation-based
 * methods (bandwidth, qb, pb, pqb) are refused.
 *
 * A queue is compared in one of two measures. The reference's (-strat
 * ecmp_ar, or --ar-quantum bands): htsim BaseQueue::quantized_queuesize,
 * four bands of the queue's limit (below 5%, 10%, 20%, the rest), each
 * port's band sampled at most every 0.1 us (BaseQueue::_update_period) and
 * read stale in between, so a burst of packets spreads at random over the
 * ports that looked alike. Seed 004's (--routing ar, Sec. IV-A: the
 * shortest queue): the queue in units of --ar-quantum, one MTU by default,
 * read at once.
 *
 * Planes (-planes N, htsim main_eqds.cpp's meaning): the switch tiers are
 * built N times, identical and independent (plane p's switches follow
 * plane p-1's, each with its own ECMP salts); every host has N NIC ports,
 * port p at the tier 0 speed to its ToR in plane p (host_nic_port). A
 * packet stays in the plane of the port it left by: switches only wire to
 * their own plane, so every routing rule here holds per plane unchanged.
 * What the rest of the run does with planes:
 *   - which port: the NIC's rule, not the transport's (net.c nic_send,
 *     nic_kick): each packet, control or data, leaves on the next free
 *     port after the one used last (round robin from a random port per
 *     host, as htsim's EqdsNIC/UecNIC findFreePort), so a host sends up
 *     to N x -linkspeed and a flow's packets spread over the planes;
 *   - base RTT, BDP and the congestion controls' parameters: from one
 *     plane and one port's speed (the planes are identical; htsim sizes
 *     windows from -linkspeed alone);
 *   - receiver pacing: EQDS's and UET's pull pacers grant N x faster
 *     (htsim EqdsPullPacer/UecPullPacer divide by linkspeed x ports);
 *     NDP's pull pacer and SIRD's receiver budget use the N-port rate too;
 *   - failures (.cm failure lines, --fail, -failed, --random-failures)
 *     name and hit plane 0's switches only (htsim: "we only support
 *     failures in plane 0");
 *   - queues.csv and switches.csv gain a `plane` column.
 * Parallel runs (bin/spraysim-mpi) refuse -planes above 1.
 */
#include "fabric.h"

#include "../sim.h"
#include "../transport/flow.h"

#include <stdlib.h>
#include <string.h>

static uint32_t add_port(struct sim *s, uint32_t owner, uint32_t peer, uint32_t mbps, simtime_ps latency_ps,
                         uint32_t flags, uint32_t queue_bytes, bool up)
{
    uint32_t idx = s->n_ports++;
    port_init(&s->ports[idx], owner, peer, mbps, latency_ps, flags, queue_bytes, up);
    return idx;
}

static uint32_t count_ports(const struct topo *t)
{
    const struct topo_spec *sp = &t->spec;
    uint64_t per_plane = t->spec.nodes;                      /* host NIC ports */
    per_plane += (uint64_t)t->n_tor * (sp->tier[0].radix_down + sp->tier[0].radix_up);
    per_plane += (uint64_t)t->n_agg * (sp->tier[1].radix_down + (sp->tiers == 3 ? sp->tier[1].radix_up : 0));
    if (sp->tiers == 3)
        per_plane += (uint64_t)t->n_core * sp->tier[2].radix_down;
    uint64_t n = per_plane * t->planes;
    if (n > UINT32_MAX / 2)
        die_input("topology too large (%llu ports)", (unsigned long long)n);
    return (uint32_t)n;
}

void fabric_build(struct sim *s)
{
    const struct topo *t = &s->topo;
    const struct topo_spec *sp = &t->spec;
    const struct config *c = &s->cfg;
    uint32_t H = sp->nodes, P = t->planes, S = t->switches_per_plane;
    s->n_hosts = H;
    s->n_switches = S * P;
    uint32_t nports = count_ports(t);
    s->ports = aligned_alloc(64, (size_t)nports * sizeof(struct port));
    if (!s->ports)
        die_internal("out of memory for %u ports", nports);
    memset(s->ports, 0, (size_t)nports * sizeof(struct port));
    s->hosts = xcalloc(H, sizeof(struct host));
    s->switches = xcalloc(s->n_switches, sizeof(struct switch_node));
    s->n_ports = 0;

    uint32_t ecn = PORTF_ECN;
    uint32_t trim = c->trimming ? PORTF_TRIM : 0;
    struct rng salt_rng;
    rng_seed(&salt_rng, c->seed, RNG_STREAM_HASH, 0);

    /* Queue size per port: a tier's Queue_Down / Queue_Up when the file gives
     * one (and -q does not override it), else the run's default. */
    uint32_t *qd = s->tier_queue_down_bytes, *qu = s->tier_queue_up_bytes;
    for (uint32_t i = 0; i < TOPO_MAX_TIERS; i++) {
        bool q_given = c->queue_pkts || c->queue_infinite; /* -q overrides the .topo's queues */
        qd[i] = (!q_given && sp->tier[i].queue_down_bytes) ? sp->tier[i].queue_down_bytes : s->queue_bytes;
        qu[i] = (!q_given && sp->tier[i].queue_up_bytes) ? sp->tier[i].queue_up_bytes : s->queue_bytes;
        /* a queue that cannot hold one packet delivers nothing, ever */
        if (i < sp->tiers && qd[i] < c->mtu_bytes)
            die_input("%s:%u: Queue_Down %u bytes of tier %u is smaller than one packet (-mtu %u); nothing could "
                      "be delivered", c->topo_path, sp->tier[i].queue_down_line, qd[i], i, c->mtu_bytes);
        if (i + 1 < sp->tiers && qu[i] < c->mtu_bytes)
            die_input("%s:%u: Queue_Up %u bytes of tier %u is smaller than one packet (-mtu %u); nothing could "
                      "be delivered", c->topo_path, sp->tier[i].queue_up_line, qu[i], i, c->mtu_bytes);
        if (i < sp->tiers && (qd[i] != s->queue_bytes || (i + 1 < sp->tiers && qu[i] != s->queue_bytes)))
            s->tier_queues_differ = true;
    }

    /* Host NIC ports, plane by plane: serialise at the tier 0 link speed
     * toward the host's ToR in that plane. Host h's port on plane p is
     * port p x H + h (host_nic_port). */
    for (uint32_t pl = 0; pl < P; pl++)
        for (uint32_t h = 0; h < H; h++) {
            uint32_t tor = H + pl * S + h / t->hosts_per_tor;
            uint32_t port = add_port(s, h, tor, sp->tier[0].downlink_mbps,
                                     sp->tier[0].downlink_latency_ps + sp->tier[0].switch_latency_ps, PORTF_HOST_NIC,
                                     UINT32_MAX, true);
            if (pl == 0) {
                s->hosts[h].nic_port = port;
                s->hosts[h].ready_head = UINT32_MAX;
                s->hosts[h].ctl_head = s->hosts[h].ctl_tail = UINT32_MAX;
                /* htsim starts each NIC's round robin on a random port */
                s->hosts[h].rr_plane = P > 1 ? (uint32_t)(mix64(c->seed ^ ((uint64_t)h << 32 | 0x504cU)) % P) : 0;
            }
        }
    for (uint32_t pl = 0; pl < P; pl++) {
        uint32_t tor0 = H + pl * S, agg0 = tor0 + t->n_tor, core0 = agg0 + t->n_agg;
        struct switch_node *plane_sw = &s->switches[pl * S];
        /* ToRs */
        for (uint32_t i = 0; i < t->n_tor; i++) {
            struct switch_node *sw = &plane_sw[i];
            sw->tier = 0;
            sw->plane = (uint8_t)pl;
            sw->index_in_tier = i;
            sw->hash_salt = rng_next(&salt_rng);
            sw->first_port = s->n_ports;
            sw->n_down = (uint16_t)t->hosts_per_tor;
            sw->n_up = (uint16_t)sp->tier[0].radix_up;
            for (uint32_t d = 0; d < t->hosts_per_tor; d++)
                add_port(s, tor0 + i, i * t->hosts_per_tor + d, sp->tier[0].downlink_mbps, sp->tier[0].downlink_latency_ps,
                         ecn | trim | PORTF_LASTHOP, qd[0], false);
            uint32_t pod = sp->tiers == 3 ? i / t->tors_per_pod : 0;
            for (uint32_t u = 0; u < sp->tier[0].radix_up; u++) {
                uint32_t agg = pod * t->aggs_per_pod + u / t->tor_bundle;
                add_port(s, tor0 + i, agg0 + agg, sp->tier[1].downlink_mbps,
                         sp->tier[1].downlink_latency_ps + sp->tier[1].switch_latency_ps, ecn | trim, qu[0], true);
            }
        }
        /* Aggregation switches (spines in a leaf-spine) */
        for (uint32_t i = 0; i < t->n_agg; i++) {
            struct switch_node *sw = &plane_sw[t->n_tor + i];
            sw->tier = 1;
            sw->plane = (uint8_t)pl;
            sw->index_in_tier = i;
            sw->hash_salt = rng_next(&salt_rng);
            sw->first_port = s->n_ports;
            uint32_t pod = i / t->aggs_per_pod, pos = i % t->aggs_per_pod;
            uint32_t ntors = sp->tiers == 3 ? t->tors_per_pod : t->n_tor;
            uint32_t first_tor = sp->tiers == 3 ? pod * t->tors_per_pod : 0;
            sw->n_down = (uint16_t)(ntors * t->tor_bundle);
            sw->n_up = (uint16_t)(sp->tiers == 3 ? sp->tier[1].radix_up : 0);
            for (uint32_t d = 0; d < sw->n_down; d++)
                add_port(s, agg0 + i, tor0 + first_tor + d / t->tor_bundle, sp->tier[1].downlink_mbps,
                         sp->tier[1].downlink_latency_ps + sp->tier[0].switch_latency_ps, ecn | trim, qd[1], false);
            for (uint32_t u = 0; u < sw->n_up; u++) {
                uint32_t core = pos + t->aggs_per_pod * (u / t->agg_bundle);
                add_port(s, agg0 + i, core0 + core, sp->tier[2].downlink_mbps,
                         sp->tier[2].downlink_latency_ps + sp->tier[2].switch_latency_ps, ecn | trim, qu[1], true);
            }
        }
        /* Cores */
        for (uint32_t i = 0; i < t->n_core; i++) {
            struct switch_node *sw = &plane_sw[t->n_tor + t->n_agg + i];
            sw->tier = 2;
            sw->plane = (uint8_t)pl;
            sw->index_in_tier = i;
            sw->hash_salt = rng_next(&salt_rng);
            sw->first_port = s->n_ports;
            sw->n_down = (uint16_t)(t->pods * t->agg_bundle);
            sw->n_up = 0;
            uint32_t pos = i % t->aggs_per_pod;
            for (uint32_t d = 0; d < sw->n_down; d++) {
                uint32_t agg = (d / t->agg_bundle) * t->aggs_per_pod + pos;
                add_port(s, core0 + i, agg0 + agg, sp->tier[2].downlink_mbps,
                         sp->tier[2].downlink_latency_ps + sp->tier[1].switch_latency_ps, ecn | trim, qd[2], false);
            }
        }
    }
    /* ECN thresholds on every switch port, scaled to each port's own limit
     * when the file gives per-tier queues. */
    for (uint32_t i = H * P; i < s->n_ports; i++) {
        struct port *p = &s->ports[i];
        if (c->drr)
            port_enable_drr(p);
        if (c->switch_stats)
            p->flags |= PORTF_BUF_STATS;
        /* before the extra classes copy them: a class that --class-opt
         * leaves alone has class 1's thresholds (0 and 0, marking every
         * queued packet, when this came after) */
        uint64_t lim = p->data_limit_bytes;
        p->ecn_kmin_bytes = (uint32_t)((uint64_t)s->ecn_kmin_bytes_default * lim / s->queue_bytes);
        p->ecn_kmax_bytes = (uint32_t)((uint64_t)s->ecn_kmax_bytes_default * lim / s->queue_bytes);
        if (c->n_classes > 2) {
            port_enable_classes(p, c->n_classes);
            for (unsigned k = 0; k < c->n_class_opts; k++) {
                const struct class_opt *o = &c->class_opts[k];
                struct port_class *pc = &p->x->c[o->cls - 2];
                if (!strcmp(o->name, "queue_bytes"))
                    pc->limit_bytes = (uint32_t)o->value;
                else if (!strcmp(o->name, "ecn_kmin_bytes"))
                    pc->ecn_kmin_bytes = (uint32_t)o->value;
                else if (!strcmp(o->name, "ecn_kmax_bytes"))
                    pc->ecn_kmax_bytes = (uint32_t)o->value;
                else if (!strcmp(o->name, "trim"))
                    pc->trim = o->value != 0;
                else if (!strcmp(o->name, "ecn"))
                    pc->ecn = o->value != 0;
            }
            /* a lossless class (mixed fabric): PFC holds it back instead of a limit */
            for (uint32_t k = 2; k < c->n_classes; k++)
                if (c->lossless_mask & (1u << k)) {
                    p->x->c[k - 2].limit_bytes = QUEUE_INFINITE_BYTES;
                    p->x->c[k - 2].trim = false;
                }
            if (c->class_drr)
                p->flags |= PORTF_CLASS_DRR;
        }
    }
}

/* ECMP hashes the message (its ordinal), not its slot: a recycled slot
 * (--stream) must not move a message to other paths. */
static inline uint32_t flow_hash_key(const struct sim *s, const struct packet *p)
{
    return s->fstream ? s->flows[p->flow].ordinal : p->flow;
}

static uint32_t static_route(const struct sim *s, uint32_t sw_idx, const struct packet *p)
{
    const struct topo *t = &s->topo;
    const struct switch_node *sw = &s->switches[sw_idx];
    uint32_t dst = p->dst_host;
    /* the hash only where a choice is made: a ToR's port down to its own
     * host needs none (gcc computed it on every call) */
#define ROUTE_HASH() mix64(((uint64_t)flow_hash_key(s, p) << 20) ^ ((uint64_t)p->entropy << 1) ^ sw->hash_salt)
    switch (sw->tier) {
    case 0:
        if (dst / t->hosts_per_tor == sw->index_in_tier)
            return sw->first_port + dst % t->hosts_per_tor;
        return sw->first_port + sw->n_down + (uint32_t)(ROUTE_HASH() % sw->n_up);
    case 1: {
        uint32_t dst_tor = dst / t->hosts_per_tor;
        if (t->spec.tiers == 2)
            return sw->first_port + dst_tor * t->tor_bundle + (uint32_t)(ROUTE_HASH() % t->tor_bundle);
        uint32_t pod = sw->index_in_tier / t->aggs_per_pod;
        if (dst_tor / t->tors_per_pod == pod)
            return sw->first_port + (dst_tor % t->tors_per_pod) * t->tor_bundle +
                   (uint32_t)(ROUTE_HASH() % t->tor_bundle);
        return sw->first_port + sw->n_down + (uint32_t)(ROUTE_HASH() % sw->n_up);
    }
    default: {
        uint32_t pod = dst / t->spec.podsize;
        return sw->first_port + pod * t->agg_bundle + (uint32_t)(ROUTE_HASH() % t->agg_bundle);
    }
    }
#undef ROUTE_HASH
}

/* The equal-cost output ports toward dst_tor at a switch: [first, first+n). */
static void candidates(const struct sim *s, uint32_t sw_idx, uint32_t dst_tor, uint32_t *first, uint32_t *n)
{
    const struct topo *t = &s->topo;
    const struct switch_node *sw = &s->switches[sw_idx];
    uint32_t up_first = sw->first_port + sw->n_down;
    switch (sw->tier) {
    case 0:
        *first = up_first;
        *n = sw->n_up;
        return;
    case 1:
        if (t->spec.tiers == 2) {
            *first = sw->first_port + dst_tor * t->tor_bundle;
            *n = t->tor_bundle;
        } else if (dst_tor / t->tors_per_pod == sw->index_in_tier / t->aggs_per_pod) {
            *first = sw->first_port + (dst_tor % t->tors_per_pod) * t->tor_bundle;
            *n = t->tor_bundle;
        } else {
            *first = up_first;
            *n = sw->n_up;
        }
        return;
    default:
        *first = sw->first_port + (dst_tor / t->tors_per_pod) * t->agg_bundle;
        *n = t->agg_bundle;
        return;
    }
}

/* Can a packet at `node` still reach ToR dst_tor going only up then down,
 * given the failures routing knows of? */
static bool reaches(const struct sim *s, uint32_t node, uint32_t dst_tor)
{
    const struct switch_node *sw = &s->switches[node - s->n_hosts];
    if (sw->tier == 0)
        return sw->index_in_tier == dst_tor;
    uint32_t first, n;
    candidates(s, node - s->n_hosts, dst_tor, &first, &n);
    for (uint32_t i = first; i < first + n; i++)
        if (!(s->ports[i].flags & PORTF_KNOWN_DOWN) && reaches(s, s->ports[i].peer_node, dst_tor))
            return true;
    return false;
}

static bool port_usable(const struct sim *s, uint32_t port, uint32_t dst_tor)
{
    const struct port *p = &s->ports[port];
    return !(p->flags & PORTF_KNOWN_DOWN) && reaches(s, p->peer_node, dst_tor);
}

/* Bit i set: candidate port first+i is usable (known up, and the
 * destination stays reachable beyond it). Cached per (switch, ToR) while the
 * known failures do not change; only for fewer than 63 candidates. */
static uint64_t usable_mask(struct sim *s, uint32_t sw_idx, uint32_t dst_tor, uint32_t first, uint32_t n)
{
    uint64_t *slot = &s->route_cache[(size_t)sw_idx * s->topo.n_tor + dst_tor];
    if (*slot >> 63)
        return *slot & ~(1ULL << 63);
    uint64_t mask = 0;
    for (uint32_t i = 0; i < n; i++)
        if (port_usable(s, first + i, dst_tor))
            mask |= 1ULL << i;
    *slot = mask | (1ULL << 63);
    return mask;
}

/* The set of usable candidates: a bit mask when it fits, else "all of
 * [first, first+n) that port_usable accepts" evaluated on the fly. */
struct usable_set {
    uint32_t first, n, count;
    bool all;        /* every candidate usable (no known failure) */
    bool use_mask;
    uint64_t mask;
    uint32_t dst_tor;
};

static bool set_has(const struct sim *s, const struct usable_set *u, uint32_t i)
{
    if (u->all)
        return true;
    if (u->use_mask)
        return (u->mask >> i) & 1;
    return port_usable(s, u->first + i, u->dst_tor);
}

/* ---- --reroute bounce ---------------------------------------------------------------------- */

/* Valleys one packet may take. With routing's view current, one valley
 * lands on a switch that reaches the destination up-down, so a second one
 * only happens when that view changed while the packet was on its way;
 * the limit (ours; a 2-bit count in the packet's flags, as a TTL would be)
 * stops a packet from bouncing for ever between failures. */
#define REROUTE_MAX_VALLEYS 2

/* Does a packet routed afresh at `node` reach dst_tor up-down? As
 * reaches(), except that a ToR other than the destination's may climb. */
static bool reaches_afresh(const struct sim *s, uint32_t node, uint32_t dst_tor)
{
    const struct switch_node *sw = &s->switches[node - s->n_hosts];
    if (sw->tier != 0 || sw->index_in_tier == dst_tor)
        return reaches(s, node, dst_tor);
    for (uint32_t i = sw->first_port + sw->n_down; i < sw->first_port + sw->n_down + sw->n_up; i++)
        if (port_usable(s, i, dst_tor))
            return true;
    return false;
}

/* Down port `port` of a switch can start a valley toward dst_tor: it leads
 * to a switch (not a host), is not known down, and that switch, routing
 * the packet afresh, reaches dst_tor up-down. */
static bool valley_port(const struct sim *s, uint32_t port, uint32_t dst_tor)
{
    const struct port *q = &s->ports[port];
    return q->peer_node >= s->n_hosts && !(q->flags & PORTF_KNOWN_DOWN) && reaches_afresh(s, q->peer_node, dst_tor);
}

/* Can a packet at `node` reach ToR dst_tor going up then down with at most
 * one valley on the way? */
static bool reaches_valley(const struct sim *s, uint32_t node, uint32_t dst_tor)
{
    uint32_t sw_idx = node - s->n_hosts;
    const struct switch_node *sw = &s->switches[sw_idx];
    if (sw->tier == 0)
        return sw->index_in_tier == dst_tor;
    uint32_t first, n;
    candidates(s, sw_idx, dst_tor, &first, &n);
    for (uint32_t i = first; i < first + n; i++)
        if (!(s->ports[i].flags & PORTF_KNOWN_DOWN) && reaches_valley(s, s->ports[i].peer_node, dst_tor))
            return true;
    for (uint32_t i = sw->first_port; i < sw->first_port + sw->n_down; i++)
        if (valley_port(s, i, dst_tor))
            return true;
    return false;
}

/* Picks the (hash % count)-th port of [first, first+n) that ok() accepts;
 * PORT_NONE when none does. */
static uint32_t pick_port(const struct sim *s, uint32_t first, uint32_t n, uint32_t dst_tor, uint32_t skip_peer,
                          uint64_t hash, bool (*ok)(const struct sim *, uint32_t, uint32_t))
{
    uint32_t count = 0;
    for (uint32_t i = first; i < first + n; i++)
        count += s->ports[i].peer_node != skip_peer && ok(s, i, dst_tor);
    if (!count)
        return PORT_NONE;
    uint64_t k = hash % count;
    for (uint32_t i = first; i < first + n; i++)
        if (s->ports[i].peer_node != skip_peer && ok(s, i, dst_tor) && k-- == 0)
            return i;
    return PORT_NONE; /* not reached */
}

static bool valley_reachable_port(const struct sim *s, uint32_t port, uint32_t dst_tor)
{
    const struct port *q = &s->ports[port];
    return !(q->flags & PORTF_KNOWN_DOWN) && reaches_valley(s, q->peer_node, dst_tor);
}

/* The switch has no up-down candidate that works. First, a candidate whose
 * far end can still get there with one valley (a ToR cut from every
 * spine that reaches the destination climbs to one that can bounce);
 * else the valley itself: a down port to a switch that reaches the
 * destination up-down, never back where the packet came from. PORT_NONE
 * when neither exists or the packet has used up its valleys. */
static uint32_t bounce_route(struct sim *s, uint32_t sw_idx, struct packet *p, uint32_t dst_tor, uint32_t first,
                             uint32_t n, uint64_t hash)
{
    const struct switch_node *sw = &s->switches[sw_idx];
    uint32_t port = pick_port(s, first, n, dst_tor, PORT_NONE, hash, valley_reachable_port);
    if (port != PORT_NONE)
        return port;
#ifdef SPRAYSIM_CHECKS
    invariant(p->ingress_port < s->n_ports, "packet at switch %u came over port %u of %u", sw_idx, p->ingress_port,
              s->n_ports);
#endif
    uint32_t from = p->ingress_port < s->n_ports ? s->ports[p->ingress_port].owner_node : PORT_NONE;
    port = pick_port(s, sw->first_port, sw->n_down, dst_tor, from, hash, valley_port);
    if (port == PORT_NONE)
        return PORT_NONE;
    uint32_t valleys = (p->flags & PKTF_VALLEYS) >> PKTF_VALLEYS_SHIFT;
    if (valleys >= REROUTE_MAX_VALLEYS) {
        s->tot.valley_limit_hits++;
        return PORT_NONE;
    }
    p->flags = (uint16_t)((p->flags & ~PKTF_VALLEYS) | ((valleys + 1) << PKTF_VALLEYS_SHIFT));
    s->tot.valleys++;
    return port;
}

/* What adaptive routing compares a port by, the smaller the better
 * (-ar_method): its data queue in units of --ar-quantum, whether PFC
 * paused it, or both, the pause first (htsim compare_pq). */
/* htsim queue.cpp: BaseQueue::_update_period, 0.1 us */
#define AR_BAND_PERIOD_PS (PS_PER_US / 10)

struct ar_band {
    simtime_ps sampled_ps; /* htsim's _last_update_qs, 0 at first */
    uint8_t band;          /* htsim's _last_qs: 0 .. 3 */
};

/* htsim BaseQueue::quantized_queuesize: the band of the port's data queue
 * against its limit (below 5%, 10%, 20% of it, or above), sampled again
 * only when more than 0.1 us passed since the last sample. A queue without
 * a limit (-q inf) stays in band 0, as htsim's does against its huge
 * maxsize. */
static uint64_t ar_band(struct sim *s, uint32_t port)
{
    if (!s->ar_bands)
        s->ar_bands = xcalloc(s->n_ports, sizeof *s->ar_bands);
    struct ar_band *b = &s->ar_bands[port];
    if (s->now - b->sampled_ps > AR_BAND_PERIOD_PS) {
        const struct port *q = &s->ports[port];
        double limit = q->data_limit_bytes >= QUEUE_INFINITE_BYTES ? 0 : (double)q->data_limit_bytes;
        double bytes = q->data_bytes;
        b->sampled_ps = s->now;
        b->band = limit == 0 || bytes < limit * 0.05 ? 0 : bytes < limit * 0.1 ? 1 : bytes < limit * 0.2 ? 2 : 3;
    }
    return b->band;
}

static uint64_t ar_queue(struct sim *s, uint32_t port)
{
    const struct port *q = &s->ports[port];
    uint64_t queue = s->cfg.ar_bands ? ar_band(s, port) : q->data_bytes / s->cfg.ar_quantum_bytes;
    uint64_t paused = (q->flags & PORTF_PAUSED) != 0;
    switch (s->cfg.ar_method) {
    case AR_BY_PAUSE:
        return paused;
    case AR_BY_PAUSE_QUEUE:
        return paused << 32 | queue;
    default:
        return queue;
    }
}

/* seed 004 Sec. IV-A: the usable up port with the shortest queue, in units
 * of ar_quantum_bytes; ties broken at random (htsim adaptive_route) */
static uint32_t ar_best_port(struct sim *s, uint32_t sw_idx, const struct usable_set *u)
{
    uint64_t best_q = UINT64_MAX;
    uint32_t ties = 0, choice = u->first;
    for (uint32_t i = 0; i < u->n; i++) {
        if (!set_has(s, u, i))
            continue;
        uint64_t q = ar_queue(s, u->first + i);
        if (q < best_q) {
            best_q = q;
            ties = 1;
            choice = u->first + i;
        } else if (q == best_q && rng_below(&s->ar_rng[sw_idx], ++ties) == 0) {
            choice = u->first + i;
        }
    }
    return choice;
}

/* ---- -ar_granularity flow: each switch's flowlets --------------------------------- */

/* htsim FatTreeSwitch::getNextHop: packets under 100 bytes are not
 * adaptively routed, "don't want to pollute the tables". */
#define AR_FLOWLET_MIN_BYTES 100

struct ar_flowlet {
    uint64_t key;        /* (switch + 1) << 32 | flow key; 0 = empty slot */
    uint32_t port;       /* the up port the flow uses at this switch */
    simtime_ps last_ps;  /* when its last packet passed */
};

/* Open addressing with linear probing, at most half full. Entries are
 * never removed: one per (switch, flow) that crossed it, as htsim's
 * _flowlet_maps keeps them. */
struct ar_flowlets {
    struct ar_flowlet *slot;
    uint64_t mask; /* slots - 1, a power of two */
    uint64_t used;
};

void fabric_flowlets_free(struct sim *s)
{
    if (s->ar_flowlets)
        free(s->ar_flowlets->slot);
    free(s->ar_flowlets);
    s->ar_flowlets = NULL;
    free(s->ar_bands);
    s->ar_bands = NULL;
}

static uint64_t flowlet_home(const struct ar_flowlets *t, uint64_t key)
{
    return mix64(key) & t->mask;
}

/* The entry for `key`, made (port PORT_NONE) when absent. */
static struct ar_flowlet *flowlet_get(struct sim *s, uint64_t key)
{
    struct ar_flowlets *t = s->ar_flowlets;
    if (!t) {
        t = s->ar_flowlets = xcalloc(1, sizeof *t);
        t->mask = 1023;
        t->slot = xcalloc(t->mask + 1, sizeof *t->slot);
    }
    if (2 * (t->used + 1) > t->mask + 1) { /* grow: rehash into twice the slots */
        struct ar_flowlet *old = t->slot;
        uint64_t n_old = t->mask + 1;
        t->mask = 2 * n_old - 1;
        t->slot = xcalloc(t->mask + 1, sizeof *t->slot);
        for (uint64_t i = 0; i < n_old; i++)
            if (old[i].key) {
                uint64_t j = flowlet_home(t, old[i].key);
                while (t->slot[j].key)
                    j = (j + 1) & t->mask;
                t->slot[j] = old[i];
            }
        free(old);
    }
    uint64_t j = flowlet_home(t, key);
    while (t->slot[j].key && t->slot[j].key != key)
        j = (j + 1) & t->mask;
    if (!t->slot[j].key) {
        t->slot[j] = (struct ar_flowlet){.key = key, .port = PORT_NONE, .last_ps = 0};
        t->used++;
    }
    return &t->slot[j];
}

/* Adaptive routing, failure-aware routing and exact entropy paths: decided
 * when the packet arrives. */
static uint32_t dynamic_route(struct sim *s, uint32_t sw_idx, struct packet *p)
{
    const struct topo *t = &s->topo;
    const struct switch_node *sw = &s->switches[sw_idx];
    uint32_t dst = p->dst_host, dst_tor = dst / t->hosts_per_tor;
    if (sw->tier == 0 && dst_tor == sw->index_in_tier)
        return sw->first_port + dst % t->hosts_per_tor;
    struct usable_set u = {.dst_tor = dst_tor, .all = !s->failures_known};
    candidates(s, sw_idx, dst_tor, &u.first, &u.n);
    if (u.all) {
        u.count = u.n;
    } else if (u.n < 63) {
        u.use_mask = true;
        u.mask = usable_mask(s, sw_idx, dst_tor, u.first, u.n);
        u.count = (uint32_t)__builtin_popcountll(u.mask);
    } else {
        for (uint32_t i = 0; i < u.n; i++)
            u.count += port_usable(s, u.first + i, dst_tor);
    }
    if (u.count == 0 && s->cfg.reroute == REROUTE_BOUNCE) {
        uint64_t h = mix64(((uint64_t)flow_hash_key(s, p) << 20) ^ ((uint64_t)p->entropy << 1) ^ sw->hash_salt);
        uint32_t port = bounce_route(s, sw_idx, p, dst_tor, u.first, u.n, h);
        if (port != PORT_NONE)
            return port;
    }
    if (u.count == 0) {
        /* nothing known to work: hash over all (the packet will likely be lost) */
        u.all = true;
        u.count = u.n;
    }
    bool upward = u.first == sw->first_port + sw->n_down;
    /* Flows pinned to one path (ECMP elephants, "lb ecmp") keep their hash
     * under adaptive routing, as in seed 004 Sec. IV-A; their transport
     * marks their packets, so routing never looks at a flow's balancer. */
    bool pinned = p->flags & PKTF_PINNED;
    /* ... unless the run has one path for every flow (-paths 1, htsim's
     * -strat ecmp_ar: one entropy, switches route adaptively): no sprayed
     * flow to keep ECMP ones apart from, and htsim routes them all */
    pinned &= s->cfg.paths != 1;
    if (s->cfg.routing == ROUTE_AR && upward && u.count > 1 && !pinned) {
        if (!s->cfg.ar_flowlet || p->size_bytes < AR_FLOWLET_MIN_BYTES)
            return ar_best_port(s, sw_idx, &u);
        uint64_t key = ((uint64_t)sw_idx + 1) << 32 | flow_hash_key(s, p);
        struct ar_flowlet *f = flowlet_get(s, key);
        uint32_t cur = f->port;
        if (cur < u.first || cur >= u.first + u.n || !set_has(s, &u, cur - u.first)) {
            f->port = ar_best_port(s, sw_idx, &u); /* a new flow here, or its port no longer usable */
        } else if (s->now - f->last_ps > s->cfg.ar_sticky_delta_ps && rng_below(&s->ar_rng[sw_idx], 2) == 0) {
            /* a gap: the flowlet may move, to a port with a shorter queue */
            uint32_t alt = ar_best_port(s, sw_idx, &u);
            if (ar_queue(s, alt) < ar_queue(s, cur))
                f->port = alt;
        }
        f->last_ps = s->now;
        return f->port;
    }
    uint64_t pick;
    if (s->cfg.routing == ROUTE_EV_MOD)
        pick = p->entropy % u.count;
    else
        pick = mix64(((uint64_t)flow_hash_key(s, p) << 20) ^ ((uint64_t)p->entropy << 1) ^ sw->hash_salt) % u.count;
    if (u.all)
        return u.first + (uint32_t)pick;
    for (uint32_t i = 0; i < u.n; i++)
        if (set_has(s, &u, i) && pick-- == 0)
            return u.first + i;
    return u.first; /* not reached: pick < count */
}

uint32_t fabric_route(struct sim *s, uint32_t sw_idx, struct packet *p)
{
    if (!s->routing_dynamic)
        return static_route(s, sw_idx, p);
    return dynamic_route(s, sw_idx, p);
}
