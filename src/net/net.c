/* net.c: output ports (queue + link) and the forwarding step at a switch.
 *
 * A port serialises one packet at a time: when it finishes, the packet is
 * handed to the far end of the link with one arrival event after the link's
 * latency, and the next packet starts. Control packets go first. Data that
 * would overflow the data class is trimmed to a header (or dropped), as the
 * reference simulator's composite queue does. ECN is decided when a data
 * packet leaves, on the data bytes it leaves behind: above kmax always,
 * between kmin and kmax with a linearly rising probability (RED). Host NICs
 * hold only control packets; they pull data from the transport when free,
 * so a sender decides what to send at the moment the wire is available.
 * With several planes a NIC has one port per plane and picks the port of
 * every packet itself (nic_send, nic_kick; struct host in net.h).
 *
 * Invariant (checked in builds with SPRAYSIM_CHECKS, after every change to a
 * port's queues and for every port at the end of a run): a port's byte
 * counters are the sizes of the packets it holds. data_bytes covers both
 * data classes' queues and the packet on the wire when it left a data
 * class; ctl_bytes the control queue and the packet on the wire when it
 * left that; under DRR, bytes[c] covers class c's queue and the packet on
 * the wire when it left class c. A packet a NIC pulled from the transport
 * is counted nowhere.
 */
#include "net.h"

#include "../sim.h"
#include "../topo/fabric.h"
#include "../transport/transport.h"
#include "pfc.h"

#include <stdlib.h>
#include <string.h>

static inline void account_occupancy(struct port *p, simtime_ps now)
{
    /* the interval through int64_t: the same double for any interval
     * below 2^63 ps (106 days), and a signed conversion is one instruction
     * where an unsigned one tests the top bit first */
    p->st.occupancy_byte_ps += (double)p->data_bytes * (double)(int64_t)(now - p->st.last_change_ps);
    p->st.last_change_ps = now;
}

static void start_next(struct sim *s, uint32_t port_idx);
static inline __attribute__((always_inline)) void start_service(struct sim *s, struct port *p, uint32_t port_idx, uint32_t idx);

/* Bytes held by a switch port changed by delta: the switch's total, its
 * peak and its time integral. Only with --switch-stats (the flag is on the
 * switch's ports): it costs about 4% of a run's instructions. */
static inline void switch_buffer_change(struct sim *s, const struct port *p, int64_t delta)
{
    if (!(p->flags & PORTF_BUF_STATS))
        return;
    struct switch_node *sw = &s->switches[p->owner_node - s->n_hosts];
    sw->buffered_byte_ps += (double)sw->buffered_bytes * (double)(s->now - sw->buffered_changed_ps);
    sw->buffered_changed_ps = s->now;
    sw->buffered_bytes = (uint64_t)((int64_t)sw->buffered_bytes + delta);
    if (sw->buffered_bytes > sw->peak_buffered_bytes)
        sw->peak_buffered_bytes = sw->buffered_bytes;
    if (sw->buffered_bytes > sw->win_peak_buffered_bytes)
        sw->win_peak_buffered_bytes = sw->buffered_bytes;
}

/* A data packet entered (sign +1) or left (-1) a switch port's data
 * classes: the switch's buffer totals and PFC's ingress counts, each only
 * when on, behind one test of the port's flags. */
__attribute__((noinline, cold)) static void data_buffer_change_slow(struct sim *s, const struct port *p,
                                                                    const struct packet *pkt, int sign)
{
    switch_buffer_change(s, p, sign * (int64_t)pkt->size_bytes);
    if (!(p->flags & PORTF_PFC) || !pfc_class_on(s, pkt->prio))
        return;
    if (sign > 0)
        pfc_on_enqueue(s, pkt->ingress_port, pkt->prio, pkt->size_bytes);
    else
        pfc_on_dequeue(s, pkt->ingress_port, pkt->prio, pkt->size_bytes);
}

static inline void data_buffer_change(struct sim *s, const struct port *p, const struct packet *pkt, int sign)
{
    if (__builtin_expect(p->flags & (PORTF_BUF_STATS | PORTF_PFC), 0))
        data_buffer_change_slow(s, p, pkt, sign);
}

#ifdef SPRAYSIM_CHECKS
/* Wire bytes of the packets on one queue, each of which must be allocated,
 * and the queue's tail must be its last packet. A queue longer than the
 * packets in use has a cycle: the walk stops there. */
static uint64_t queued_bytes(const struct sim *s, uint32_t port_idx, const char *queue, uint32_t head, uint32_t tail)
{
    uint64_t bytes = 0;
    uint32_t last = PKT_NONE, n = 0;
    for (uint32_t q = head; q != PKT_NONE; q = s->pool.pkts[q].next) {
        invariant(pkt_is_live(&s->pool, q), "port %u %s queue holds released packet %u", port_idx, queue, q);
        invariant(n < s->pool.in_use, "port %u %s queue is longer than the %u packets in use (a cycle)", port_idx,
                  queue, s->pool.in_use);
        if (!pkt_is_live(&s->pool, q) || n++ >= s->pool.in_use)
            break;
        bytes += s->pool.pkts[q].size_bytes;
        last = q;
    }
    invariant(last == tail, "port %u %s queue ends at packet %u but its tail is %u", port_idx, queue, last, tail);
    return bytes;
}

/* The port invariant stated at the top of this file. O(packets queued at
 * the port). */
static void check_port_counters(const struct sim *s, uint32_t port_idx)
{
    const struct port *p = &s->ports[port_idx];
    uint64_t ctl = queued_bytes(s, port_idx, "control", p->ctl_head, p->ctl_tail);
    uint64_t data0 = queued_bytes(s, port_idx, "data", p->data_head, p->data_tail);
    uint64_t data1 = p->drr ? queued_bytes(s, port_idx, "class-1", p->drr->head1, p->drr->tail1) : 0;
    if (p->in_service != PKT_NONE) {
        invariant(pkt_is_live(&s->pool, p->in_service), "port %u is sending released packet %u", port_idx,
                  p->in_service);
        const struct packet *pkt = &s->pool.pkts[p->in_service];
        if (p->in_service_queue == SERVED_FROM_CTL)
            ctl += pkt->size_bytes;
        else if (p->in_service_queue == SERVED_FROM_DATA && p->drr && pkt->tclass)
            data1 += pkt->size_bytes;
        else if (p->in_service_queue == SERVED_FROM_DATA)
            data0 += pkt->size_bytes;
    }
    invariant(p->ctl_bytes == ctl, "port %u ctl_bytes %u but its control packets hold %llu bytes", port_idx,
              p->ctl_bytes, (unsigned long long)ctl);
    invariant(p->data_bytes == data0 + data1, "port %u data_bytes %u but its data packets hold %llu bytes", port_idx,
              p->data_bytes, (unsigned long long)(data0 + data1));
    for (uint32_t k = 0; p->x && k + 2 < p->x->n; k++) {
        const struct port_class *c = &p->x->c[k];
        uint64_t held = queued_bytes(s, port_idx, "extra class", c->head, c->tail);
        if (p->in_service != PKT_NONE && p->in_service_queue == SERVED_FROM_XCLASS + k + 2)
            held += s->pool.pkts[p->in_service].size_bytes;
        invariant(c->bytes == held, "port %u class %u bytes %u but its packets hold %llu bytes", port_idx, k + 2,
                  c->bytes, (unsigned long long)held);
    }
    if (p->drr) {
        invariant(p->drr->bytes[0] == data0, "port %u DRR class 0 bytes %u but its packets hold %llu bytes", port_idx,
                  p->drr->bytes[0], (unsigned long long)data0);
        invariant(p->drr->bytes[1] == data1, "port %u DRR class 1 bytes %u but its packets hold %llu bytes", port_idx,
                  p->drr->bytes[1], (unsigned long long)data1);
    }
}
#else
static inline void check_port_counters(const struct sim *s, uint32_t port_idx)
{
    (void)s;
    (void)port_idx;
}
#endif

static inline void list_append(struct packet_pool *pool, uint32_t *head, uint32_t *tail, uint32_t idx)
{
    pool->pkts[idx].next = PKT_NONE;
    if (*tail == PKT_NONE)
        *head = idx;
    else
        pool->pkts[*tail].next = idx;
    *tail = idx;
}

static inline uint32_t list_pop(struct packet_pool *pool, uint32_t *head, uint32_t *tail)
{
    uint32_t idx = *head;
    *head = pool->pkts[idx].next;
    if (*head == PKT_NONE)
        *tail = PKT_NONE;
    return idx;
}

static void drop_packet(struct sim *s, struct port *p, uint32_t pkt_idx)
{
    p->st.drops++;
    s->tot.class_drops[pkt_at(&s->pool, pkt_idx)->prio % PORT_MAX_CLASSES]++;
    transport_on_drop(s, pkt_idx);
    pkt_release(&s->pool, pkt_idx);
}

void port_push_control(struct sim *s, uint32_t port_idx, uint32_t pkt_idx)
{
    struct port *o = &s->ports[port_idx];
    struct packet *pkt = pkt_at(&s->pool, pkt_idx);
    if (o->ctl_bytes + pkt->size_bytes > o->ctl_limit_bytes) {
        drop_packet(s, o, pkt_idx);
        return;
    }
    o->ctl_bytes += pkt->size_bytes;
    switch_buffer_change(s, o, pkt->size_bytes);
    list_append(&s->pool, &o->ctl_head, &o->ctl_tail, pkt_idx);
    if (o->in_service == PKT_NONE)
        start_next(s, port_idx);
    check_port_counters(s, port_idx);
}

static void failure_drop(struct sim *s, struct port *p, uint32_t pkt_idx)
{
    p->st.failure_drops++;
    s->tot.failure_drops++;
    drop_packet(s, p, pkt_idx);
}

/* Trim: keep the header so the receiver can NACK at once; it queues as
 * control. */
static void trim(struct sim *s, struct port *p, struct packet *pkt)
{
    s->tot.class_trims[pkt->prio % PORT_MAX_CLASSES]++;
    pkt->size_bytes = s->cfg.trim_bytes ? s->cfg.trim_bytes : s->cfg.hdr_bytes; /* -trimsize (htsim's) */
    pkt->prio = PKT_PRIO_CONTROL;
    pkt->flags |= PKTF_TRIMMED;
    if (p->flags & PORTF_LASTHOP)
        pkt->flags |= PKTF_TRIM_LASTHOP;
    p->st.trims++;
}

static inline void account_class_occupancy(struct port_class *c, simtime_ps now)
{
    c->occupancy_byte_ps += (double)c->bytes * (double)(now - c->last_change_ps);
    c->last_change_ps = now;
}

/* A data packet of switch class 2 or beyond: queued in its class (true),
 * dropped (true), or trimmed (false: the caller queues the header as
 * control). */
static bool xclass_enqueue(struct sim *s, uint32_t port_idx, uint32_t pkt_idx)
{
    struct port *p = &s->ports[port_idx];
    struct packet *pkt = pkt_at(&s->pool, pkt_idx);
    invariant(p->x && pkt->prio < p->x->n, "port %u has no switch class %u", port_idx, pkt->prio);
    struct port_class *c = &p->x->c[pkt->prio - 2];
    if (c->bytes + pkt->size_bytes <= c->limit_bytes) {
        account_class_occupancy(c, s->now);
        c->bytes += pkt->size_bytes;
        data_buffer_change(s, p, pkt, +1);
        if (c->bytes > c->peak_bytes)
            c->peak_bytes = c->bytes;
        list_append(&s->pool, &c->head, &c->tail, pkt_idx);
        if (p->in_service == PKT_NONE)
            start_next(s, port_idx);
        check_port_counters(s, port_idx);
        return true;
    }
    if (!c->trim) {
        drop_packet(s, p, pkt_idx);
        return true;
    }
    trim(s, p, pkt);
    return false;
}

/* The first packet of the highest non-empty class among 2 .. n-1 whose
 * bit in `paused` (PFC) is clear. */
static uint32_t xclass_pick(struct sim *s, struct port *p, uint32_t paused)
{
    for (uint32_t k = 0; k + 2 < p->x->n; k++) {
        struct port_class *c = &p->x->c[k];
        if (c->head != PKT_NONE && !(paused & (1u << (k + 2)))) {
            p->in_service_queue = (uint8_t)(SERVED_FROM_XCLASS + k + 2);
            return list_pop(&s->pool, &c->head, &c->tail);
        }
    }
    return PKT_NONE;
}

static inline __attribute__((always_inline)) void port_enqueue_inline(struct sim *s, uint32_t port_idx,
                                                                      uint32_t pkt_idx)
{
    struct port *p = &s->ports[port_idx];
    struct packet *pkt = pkt_at(&s->pool, pkt_idx);
    if (__builtin_expect(p->flags & PORTF_DOWN, 0)) {
        failure_drop(s, p, pkt_idx);
        return;
    }
    if (pkt_in_data_class(pkt) && !(p->flags & PORTF_HOST_NIC)) {
        if (__builtin_expect(pkt->prio > PKT_PRIO_DATA, 0)) {
            if (xclass_enqueue(s, port_idx, pkt_idx))
                return;
            /* trimmed: the header queues as control below */
        } else if (p->data_bytes + pkt->size_bytes <= p->data_limit_bytes) {
            account_occupancy(p, s->now);
            p->data_bytes += pkt->size_bytes;
            data_buffer_change(s, p, pkt, +1);
            if (p->data_bytes > p->st.peak_bytes)
                p->st.peak_bytes = p->data_bytes;
            if (p->in_service == PKT_NONE && p->ctl_head == PKT_NONE && p->data_head == PKT_NONE &&
                !(p->flags & (PORTF_DRR | PORTF_CLASS_DRR | PORTF_PAUSED))) {
                /* an idle port with empty queues: start_next would take
                 * this packet off the data queue at once (control first,
                 * none waiting; no DRR or pause to consult), so it goes on
                 * the wire without the queue's append and pop, leaving the
                 * same state: `next` as the pop leaves it, the queue empty */
                pkt->next = PKT_NONE;
                p->in_service_queue = SERVED_FROM_DATA;
                start_service(s, p, port_idx, pkt_idx);
            } else if ((p->flags & PORTF_DRR) && pkt->tclass) {
                list_append(&s->pool, &p->drr->head1, &p->drr->tail1, pkt_idx);
                p->drr->bytes[1] += pkt->size_bytes;
            } else {
                list_append(&s->pool, &p->data_head, &p->data_tail, pkt_idx);
                if (p->flags & PORTF_DRR)
                    p->drr->bytes[0] += pkt->size_bytes;
            }
            if (p->in_service == PKT_NONE)
                start_next(s, port_idx);
            check_port_counters(s, port_idx);
            return;
        } else if (!(p->flags & PORTF_TRIM)) {
            drop_packet(s, p, pkt_idx);
            return;
        } else {
            trim(s, p, pkt);
        }
    }
    if (p->ctl_bytes + pkt->size_bytes > p->ctl_limit_bytes) {
        /* the control class is full too: the packet's transport may take
         * it back (UET returns a trimmed header to its sender as a NACK) */
        if (!(p->flags & PORTF_HOST_NIC) && transport_on_control_full(s, port_idx, pkt_idx)) {
            p->st.bounces++;
            return;
        }
        drop_packet(s, p, pkt_idx);
        return;
    }
    p->ctl_bytes += pkt->size_bytes;
    switch_buffer_change(s, p, pkt->size_bytes);
    if (p->in_service == PKT_NONE && p->ctl_head == PKT_NONE) {
        /* start_next serves control first, pause or not: as above */
        pkt->next = PKT_NONE;
        p->in_service_queue = SERVED_FROM_CTL;
        start_service(s, p, port_idx, pkt_idx);
    } else {
        list_append(&s->pool, &p->ctl_head, &p->ctl_tail, pkt_idx);
        if (p->in_service == PKT_NONE)
            start_next(s, port_idx);
    }
    check_port_counters(s, port_idx);
}

void port_enqueue(struct sim *s, uint32_t port_idx, uint32_t pkt_idx)
{
    port_enqueue_inline(s, port_idx, pkt_idx);
}

/* Deficit round robin between the two data classes (seed 004 Sec. IV-A:
 * equal weights, a 4 KB quantum). A class earns one quantum each time its
 * turn comes and sends while its head packet fits its deficit; an empty
 * class forfeits what it had saved. */
static uint32_t drr_pick(struct sim *s, struct port *p)
{
    struct drr_state *d = p->drr;
    uint32_t *head[2] = {&p->data_head, &d->head1}, *tail[2] = {&p->data_tail, &d->tail1};
    if (*head[0] == PKT_NONE && *head[1] == PKT_NONE)
        return PKT_NONE;
    for (;;) {
        uint32_t c = d->cur;
        if (*head[c] == PKT_NONE) {
            d->deficit[c] = 0;
            d->cur ^= 1;
            d->fresh = true;
            continue;
        }
        if (d->fresh) {
            d->deficit[c] += s->cfg.drr_quantum_bytes;
            d->fresh = false;
        }
        uint32_t size = s->pool.pkts[*head[c]].size_bytes;
        if (size <= d->deficit[c]) {
            d->deficit[c] -= size;
            return list_pop(&s->pool, head[c], tail[c]);
        }
        d->cur ^= 1;
        d->fresh = true;
    }
}

/* --sched class-drr: deficit round robin between data classes 1 .. n-1
 * (equal weights, --drr-quantum), skipping the classes PFC has paused
 * (bit set in `paused`); a class that is empty or paused when its turn
 * comes forfeits its deficit, as drr_pick does. Sets in_service_queue. */
static uint32_t class_drr_pick(struct sim *s, struct port *p, uint32_t paused)
{
    struct port_xclasses *x = p->x;
    uint32_t *head[PORT_MAX_CLASSES], *tail[PORT_MAX_CLASSES];
    bool any = false;
    for (uint32_t c = 1; c < x->n; c++) {
        head[c] = c == PKT_PRIO_DATA ? &p->data_head : &x->c[c - 2].head;
        tail[c] = c == PKT_PRIO_DATA ? &p->data_tail : &x->c[c - 2].tail;
        any |= *head[c] != PKT_NONE && !(paused & (1u << c));
    }
    if (!any)
        return PKT_NONE;
    for (;;) {
        uint32_t c = x->cur;
        if (*head[c] == PKT_NONE || (paused & (1u << c))) {
            x->deficit[c] = 0;
            x->cur = c + 1 < x->n ? c + 1 : 1;
            x->fresh = true;
            continue;
        }
        if (x->fresh) {
            x->deficit[c] += s->cfg.drr_quantum_bytes;
            x->fresh = false;
        }
        uint32_t size = s->pool.pkts[*head[c]].size_bytes;
        if (size <= x->deficit[c]) {
            x->deficit[c] -= size;
            p->in_service_queue = (uint8_t)(c == PKT_PRIO_DATA ? SERVED_FROM_DATA : SERVED_FROM_XCLASS + c);
            return list_pop(&s->pool, head[c], tail[c]);
        }
        x->cur = c + 1 < x->n ? c + 1 : 1;
        x->fresh = true;
    }
}

/* The next packet of NIC port port_idx (idle, its own queues empty) of a
 * host with several planes: the NIC's control queue first, then, unless PFC
 * paused the port, the transport's next data packet. The port it starts
 * becomes the NIC's last used one (nic_kick goes on after it). The control
 * packet is counted in the port's ctl_bytes while on the wire, as one
 * queued at the port would be. Sets in_service_queue. */
__attribute__((noinline)) static uint32_t nic_planes_next(struct sim *s, struct port *p, uint32_t port_idx,
                                                          bool paused)
{
    struct host *h = &s->hosts[p->owner_node];
    uint32_t idx = PKT_NONE;
    if (h->ctl_head != PKT_NONE) {
        idx = list_pop(&s->pool, &h->ctl_head, &h->ctl_tail);
        p->ctl_bytes += s->pool.pkts[idx].size_bytes;
        p->in_service_queue = SERVED_FROM_CTL;
    } else if (!paused) {
        p->in_service_queue = SERVED_FROM_TRANSPORT;
        idx = transport_nic_pull(s, p->owner_node);
    }
    if (idx != PKT_NONE)
        h->rr_plane = (port_idx - h->nic_port) / s->n_hosts;
    return idx;
}

/* The next data packet of a port under DRR or paused by PFC (the rare
 * cases, kept out of start_next's common path): the classes PFC has not
 * paused, in start_next's order; PKT_NONE when there is none. Sets
 * in_service_queue. */
__attribute__((noinline)) static uint32_t pick_data_special(struct sim *s, struct port *p, uint32_t port_idx)
{
    uint32_t paused = (p->flags & PORTF_PAUSED) ? s->pfc->paused_mask[port_idx] : 0;
    uint32_t idx = PKT_NONE;
    if (s->topo.planes > 1 && (p->flags & PORTF_HOST_NIC))
        return nic_planes_next(s, p, port_idx, paused != 0);
    if (paused && (p->flags & PORTF_HOST_NIC))
        return PKT_NONE; /* a NIC cannot tell the class of its transport's next packet */
    if (p->flags & PORTF_CLASS_DRR)
        idx = class_drr_pick(s, p, paused);
    else if (!(paused & (1u << PKT_PRIO_DATA))) {
        if (p->flags & PORTF_DRR)
            idx = drr_pick(s, p);
        else if (p->data_head != PKT_NONE)
            idx = list_pop(&s->pool, &p->data_head, &p->data_tail);
        p->in_service_queue = SERVED_FROM_DATA;
    }
    if (idx == PKT_NONE && p->x)
        idx = xclass_pick(s, p, paused);
    if (idx == PKT_NONE && (p->flags & PORTF_HOST_NIC)) {
        p->in_service_queue = SERVED_FROM_TRANSPORT;
        idx = transport_nic_pull(s, p->owner_node);
    }
    return idx;
}

/* Picks the next packet (control first, then data, then for a NIC the
 * transport's next data packet) and schedules the end of its serialisation. */
static inline __attribute__((always_inline)) void start_next_inline(struct sim *s, uint32_t port_idx)
{
    struct port *p = &s->ports[port_idx];
    uint32_t idx;
    if (p->ctl_head != PKT_NONE) {
        idx = list_pop(&s->pool, &p->ctl_head, &p->ctl_tail);
        p->in_service_queue = SERVED_FROM_CTL;
    } else if (__builtin_expect(p->flags & (PORTF_DRR | PORTF_CLASS_DRR | PORTF_PAUSED), 0)) {
        if ((idx = pick_data_special(s, p, port_idx)) == PKT_NONE)
            return;
    } else if (p->data_head != PKT_NONE) {
        idx = list_pop(&s->pool, &p->data_head, &p->data_tail);
        p->in_service_queue = SERVED_FROM_DATA;
    } else if (p->x && (idx = xclass_pick(s, p, 0)) != PKT_NONE) {
        /* xclass_pick set in_service_queue */
    } else if (p->flags & PORTF_HOST_NIC) {
        if (__builtin_expect(s->topo.planes > 1, 0)) {
            idx = nic_planes_next(s, p, port_idx, false);
        } else {
            p->in_service_queue = SERVED_FROM_TRANSPORT;
            idx = transport_nic_pull(s, p->owner_node);
        }
        if (idx == PKT_NONE)
            return;
    } else {
        return;
    }
    start_service(s, p, port_idx, idx);
}

static void start_next(struct sim *s, uint32_t port_idx)
{
    start_next_inline(s, port_idx);
}

/* Puts packet idx on the wire of an idle port: schedules the end of its
 * serialisation. */
static inline __attribute__((always_inline)) void start_service(struct sim *s, struct port *p, uint32_t port_idx, uint32_t idx)
{
    p->in_service = idx;
    eq_push_aux(&s->eq, s->now + serialize_ps(s->pool.pkts[idx].size_bytes, p->rate_mbps), EV_PORT_TX_DONE,
                port_idx, idx);
}

void port_tx_done(struct sim *s, uint32_t port_idx)
{
    struct port *p = &s->ports[port_idx];
    uint32_t idx = p->in_service;
#ifdef SPRAYSIM_CHECKS
    invariant(idx != PKT_NONE && pkt_is_live(&s->pool, idx),
              "port %u finished sending packet %u, which it does not hold", port_idx, idx);
#endif
    struct packet *pkt = pkt_at(&s->pool, idx);
    p->in_service = PKT_NONE;
    if (p->in_service_queue == SERVED_FROM_CTL) {
        invariant(p->ctl_bytes >= pkt->size_bytes, "port %u ctl_bytes %u below the %u-byte packet leaving", port_idx,
                  p->ctl_bytes, pkt->size_bytes);
        p->ctl_bytes -= pkt->size_bytes;
        switch_buffer_change(s, p, -(int64_t)pkt->size_bytes);
    } else if (p->in_service_queue == SERVED_FROM_DATA) {
        account_occupancy(p, s->now);
        invariant(p->data_bytes >= pkt->size_bytes, "port %u data_bytes %u below the %u-byte packet leaving", port_idx,
                  p->data_bytes, pkt->size_bytes);
        p->data_bytes -= pkt->size_bytes;
        data_buffer_change(s, p, pkt, -1);
        /* with DRR, each class is marked on its own queue */
        uint32_t q = p->data_bytes;
        if (p->flags & PORTF_DRR) {
            uint32_t c = pkt->tclass ? 1 : 0;
            invariant(p->drr->bytes[c] >= pkt->size_bytes,
                      "port %u DRR class %u bytes %u below the %u-byte packet leaving", port_idx, c, p->drr->bytes[c],
                      pkt->size_bytes);
            p->drr->bytes[c] -= pkt->size_bytes;
            q = p->drr->bytes[c];
        }
        if (__builtin_expect(p->flags & PORTF_MARK_ALL, 0)) {
            pkt->flags |= PKTF_ECN_CE;
            p->st.ecn_marks++;
        } else if (p->flags & PORTF_ECN) {
            if (red_mark_u64(red_port_draw(s->ecn_salt, port_idx, p->st.tx_packets), q, p->ecn_kmin_bytes, p->ecn_kmax_bytes)) {
                pkt->flags |= PKTF_ECN_CE;
                p->st.ecn_marks++;
            }
        }
    } else if (p->in_service_queue >= SERVED_FROM_XCLASS) {
        struct port_class *c = &p->x->c[p->in_service_queue - SERVED_FROM_XCLASS - 2];
        account_class_occupancy(c, s->now);
        invariant(c->bytes >= pkt->size_bytes, "port %u class %u bytes %u below the %u-byte packet leaving", port_idx,
                  p->in_service_queue - SERVED_FROM_XCLASS, c->bytes, pkt->size_bytes);
        c->bytes -= pkt->size_bytes;
        data_buffer_change(s, p, pkt, -1);
        /* each class is marked on its own queue, with its own thresholds */
        if (c->ecn && red_mark_u64(red_port_draw(s->ecn_salt, port_idx, p->st.tx_packets), c->bytes, c->ecn_kmin_bytes, c->ecn_kmax_bytes)) {
            pkt->flags |= PKTF_ECN_CE;
            p->st.ecn_marks++;
        }
    }
    if (__builtin_expect(p->flags & PORTF_DOWN, 0)) {
        failure_drop(s, p, idx); /* cut while on the wire */
        start_next(s, port_idx);
        check_port_counters(s, port_idx);
        return;
    }
    /* a class's egress hook (net.h class_need.egress: in-band telemetry) */
    if (__builtin_expect(s->class_egress, 0) && s->class_policy[pkt->prio].egress)
        s->class_policy[pkt->prio].egress(s, port_idx, idx,
                                          p->data_bytes + (p->in_service_queue == SERVED_FROM_DATA ? pkt->size_bytes : 0));
    p->st.tx_packets++;
    p->st.tx_bytes += pkt->size_bytes;
    uint32_t peer = p->peer_node;
    pkt->node = peer;
    pkt->ingress_port = port_idx;
    /* Static ECMP depends only on the packet and the switch, so the output
     * port at the next switch is computed now, while the packet is in cache,
     * and carried in the arrival event (the dispatcher prefetches it).
     * Adaptive routing and failure-aware routing decide on arrival. */
    uint32_t next_port = peer < s->n_hosts ? PORT_NONE
                         : s->routing_dynamic ? PORT_ROUTE_ON_ARRIVAL
                                              : fabric_route(s, peer - s->n_hosts, pkt);
    if (__builtin_expect(s->node_remote != NULL, 0) && s->node_remote[peer])
        s->export_arrival(s, s->now + p->latency_ps, (*s->eq.seq_next)++, idx, next_port); /* parallel runs */
    else
        eq_push_aux(&s->eq, s->now + p->latency_ps, EV_PKT_ARRIVE, idx, next_port);
    /* a switch port with nothing queued, no DRR, pause or other classes:
     * start_next would find nothing, so it is not called */
    if (p->data_head != PKT_NONE || p->ctl_head != PKT_NONE || p->x ||
        (p->flags & (PORTF_HOST_NIC | PORTF_DRR | PORTF_CLASS_DRR | PORTF_PAUSED)))
        start_next_inline(s, port_idx);
    check_port_counters(s, port_idx);
}

/* ---- the queue representation ---------------------------------------------------------- */

void port_init(struct port *p, uint32_t owner, uint32_t peer, uint32_t mbps, simtime_ps latency_ps, uint32_t flags,
               uint32_t queue_bytes, bool up)
{
    memset(p, 0, sizeof(*p));
    p->ctl_head = p->ctl_tail = p->data_head = p->data_tail = PKT_NONE;
    p->in_service = PKT_NONE;
    p->owner_node = owner;
    p->peer_node = peer;
    p->rate_mbps = mbps;
    p->nominal_mbps = mbps;
    p->latency_ps = latency_ps;
    p->base_latency_ps = latency_ps;
    p->flags = (uint16_t)flags;
    p->up = up;
    p->data_limit_bytes = queue_bytes;
    p->ctl_limit_bytes = queue_bytes;
}

void port_enable_drr(struct port *p)
{
    p->flags |= PORTF_DRR;
    p->drr = xcalloc(1, sizeof(struct drr_state));
    p->drr->head1 = p->drr->tail1 = PKT_NONE;
    p->drr->fresh = true;
}

void port_enable_classes(struct port *p, uint32_t n_classes)
{
    p->x = xcalloc(1, sizeof *p->x);
    p->x->n = n_classes;
    for (uint32_t k = 0; k + 2 < n_classes; k++) {
        struct port_class *c = &p->x->c[k];
        c->head = c->tail = PKT_NONE;
        c->limit_bytes = p->data_limit_bytes;
        c->ecn_kmin_bytes = p->ecn_kmin_bytes;
        c->ecn_kmax_bytes = p->ecn_kmax_bytes;
        c->trim = p->flags & PORTF_TRIM;
        c->ecn = p->flags & PORTF_ECN;
    }
    p->x->cur = PKT_PRIO_DATA;
    p->x->fresh = true;
}

void port_free(struct port *p)
{
    free(p->drr);
    p->drr = NULL;
    free(p->x);
    p->x = NULL;
}

static void drop_queue(struct sim *s, struct port *p, uint32_t *head, uint32_t *tail)
{
    while (*head != PKT_NONE) {
        uint32_t idx = *head;
        *head = s->pool.pkts[idx].next;
        failure_drop(s, p, idx);
    }
    *tail = PKT_NONE;
}

void port_fail(struct sim *s, uint32_t port_idx)
{
    struct port *p = &s->ports[port_idx];
    p->flags |= PORTF_DOWN;
    if (p->data_head != PKT_NONE)
        account_occupancy(p, s->now);
    drop_queue(s, p, &p->ctl_head, &p->ctl_tail);
    if (p->flags & PORTF_PFC) {
        /* the data lost here leaves the switch: PFC's ingress counts fall */
        uint32_t heads[2 + PORT_MAX_CLASSES] = {p->data_head, p->drr ? p->drr->head1 : PKT_NONE};
        uint32_t n_heads = 2;
        for (uint32_t k = 0; p->x && k + 2 < p->x->n; k++)
            heads[n_heads++] = p->x->c[k].head;
        for (uint32_t k = 0; k < n_heads; k++)
            for (uint32_t q = heads[k]; q != PKT_NONE; q = s->pool.pkts[q].next)
                if (pfc_class_on(s, s->pool.pkts[q].prio))
                    pfc_on_dequeue(s, s->pool.pkts[q].ingress_port, s->pool.pkts[q].prio, s->pool.pkts[q].size_bytes);
    }
    drop_queue(s, p, &p->data_head, &p->data_tail);
    if (p->drr) {
        drop_queue(s, p, &p->drr->head1, &p->drr->tail1);
        p->drr->bytes[0] = p->drr->bytes[1] = 0;
        if (p->in_service != PKT_NONE && p->in_service_queue == SERVED_FROM_DATA)
            p->drr->bytes[s->pool.pkts[p->in_service].tclass ? 1 : 0] = s->pool.pkts[p->in_service].size_bytes;
    }
    for (uint32_t k = 0; p->x && k + 2 < p->x->n; k++) {
        struct port_class *c = &p->x->c[k];
        if (c->head != PKT_NONE)
            account_class_occupancy(c, s->now);
        uint32_t before = c->bytes;
        drop_queue(s, p, &c->head, &c->tail);
        c->bytes = p->in_service != PKT_NONE && p->in_service_queue == SERVED_FROM_XCLASS + k + 2
                       ? s->pool.pkts[p->in_service].size_bytes
                       : 0;
        switch_buffer_change(s, p, (int64_t)c->bytes - (int64_t)before);
    }
    /* the packet on the wire keeps its bytes counted until it completes */
    uint32_t on_wire_ctl = 0, on_wire_data = 0;
    if (p->in_service != PKT_NONE) {
        uint32_t sz = s->pool.pkts[p->in_service].size_bytes;
        if (p->in_service_queue == SERVED_FROM_CTL)
            on_wire_ctl = sz;
        else if (p->in_service_queue == SERVED_FROM_DATA)
            on_wire_data = sz;
    }
    switch_buffer_change(s, p, (int64_t)(on_wire_ctl + on_wire_data) - (int64_t)(p->ctl_bytes + p->data_bytes));
    p->ctl_bytes = on_wire_ctl;
    p->data_bytes = on_wire_data;
    check_port_counters(s, port_idx);
}

void port_visit_held(const struct sim *s, uint32_t port_idx,
                     bool (*fn)(const struct sim *s, uint32_t pkt_idx, bool on_wire, void *ctx), void *ctx)
{
    const struct port *p = &s->ports[port_idx];
    const uint32_t heads[3] = {p->ctl_head, p->data_head, p->drr ? p->drr->head1 : PKT_NONE};
    for (int k = 0; k < 3; k++)
        for (uint32_t q = heads[k]; q != PKT_NONE && fn(s, q, false, ctx); q = s->pool.pkts[q].next)
            ;
    for (uint32_t k = 0; p->x && k + 2 < p->x->n; k++)
        for (uint32_t q = p->x->c[k].head; q != PKT_NONE && fn(s, q, false, ctx); q = s->pool.pkts[q].next)
            ;
    /* several planes: the NIC's control queue, visited with its plane 0 port */
    if ((p->flags & PORTF_HOST_NIC) && s->topo.planes > 1 && port_idx == s->hosts[p->owner_node].nic_port)
        for (uint32_t q = s->hosts[p->owner_node].ctl_head; q != PKT_NONE && fn(s, q, false, ctx);
             q = s->pool.pkts[q].next)
            ;
    if (p->in_service != PKT_NONE)
        (void)fn(s, p->in_service, true, ctx);
}

void port_resume(struct sim *s, uint32_t port_idx)
{
    if (s->ports[port_idx].in_service == PKT_NONE)
        start_next(s, port_idx);
}

void nic_kick(struct sim *s, uint32_t host)
{
    uint32_t port_idx = s->hosts[host].nic_port;
    uint32_t planes = s->topo.planes;
    if (__builtin_expect(planes == 1, 1)) {
        if (s->ports[port_idx].in_service == PKT_NONE)
            start_next(s, port_idx);
        return;
    }
    /* htsim findFreePort: the free ports in round-robin order after the
     * one used last, each taking a packet, until there is none to send (a
     * port PFC paused may take control only: the walk goes past it) */
    uint32_t last = s->hosts[host].rr_plane;
    for (uint32_t k = 1; k <= planes; k++) {
        uint32_t q = port_idx + ((last + k) % planes) * s->n_hosts;
        struct port *p = &s->ports[q];
        if (p->in_service != PKT_NONE)
            continue;
        start_next(s, q);
        if (p->in_service == PKT_NONE && !(p->flags & PORTF_PAUSED))
            break;
    }
}

void nic_send(struct sim *s, uint32_t host, uint32_t pkt_idx)
{
    struct host *h = &s->hosts[host];
    if (__builtin_expect(s->topo.planes == 1, 1)) {
        port_enqueue(s, h->nic_port, pkt_idx);
        return;
    }
    list_append(&s->pool, &h->ctl_head, &h->ctl_tail, pkt_idx);
    nic_kick(s, host);
}

void node_receive(struct sim *s, uint32_t pkt_idx, uint32_t out_port)
{
#ifdef SPRAYSIM_CHECKS
    invariant(pkt_is_live(&s->pool, pkt_idx), "packet %u reaches a node but is not allocated", pkt_idx);
#endif
    if (out_port == PORT_NONE) {
        transport_receive(s, pkt_idx);
        return;
    }
    if (out_port == PORT_ROUTE_ON_ARRIVAL) {
        struct packet *pkt = pkt_at(&s->pool, pkt_idx);
        out_port = fabric_route(s, pkt->node - s->n_hosts, pkt);
    }
    port_enqueue_inline(s, out_port, pkt_idx); /* inline in the arrival: the hop's common path */
}

void net_close_stats(struct sim *s)
{
    pfc_close_stats(s);
    for (uint32_t i = 0; i < s->n_ports; i++) {
        struct port *p = &s->ports[i];
        account_occupancy(p, s->now);
        for (uint32_t k = 0; p->x && k + 2 < p->x->n; k++)
            account_class_occupancy(&p->x->c[k], s->now);
        check_port_counters(s, i);
    }
    for (uint32_t i = 0; i < s->n_switches; i++) {
        struct switch_node *sw = &s->switches[i];
        sw->buffered_byte_ps += (double)sw->buffered_bytes * (double)(s->now - sw->buffered_changed_ps);
        sw->buffered_changed_ps = s->now;
    }
}
