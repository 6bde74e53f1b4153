/* sim_prefetch.h: the event loop's prefetches, inline in both loops that
 * use them (sim.c's run_events and the MPI window loop, src/mpi/pdes.c).
 * They must be inlined into the loop: gcc judges a function that only
 * prefetches free of side effects and deletes its calls (the MPI binary
 * called an out-of-line sim_prefetch_ahead until 2026-11-23, and the call
 * was gone: 0.44 instructions per cycle at 8192 hosts against the plain
 * binary's 1.3).
 */
#ifndef SPRAYSIM_SIM_PREFETCH_H
#define SPRAYSIM_SIM_PREFETCH_H

#include "sim.h"
#include "transport/flow.h"

/* Prefetching: at scale the loop waits on memory, not on arithmetic (an
 * 8192-node run's packets and ports do not fit the last-level cache), so
 * loads start early, in two stages, each with time to arrive (the outside
 * profile's "two-stage prefetch", issue 14). Events a few places behind
 * the next one in its delay's FIFO (known at no cost; not the exact k-th
 * earliest events, which cost more to find than they saved) are due soon.
 * The farther one (PREFETCH_DIRECT_AHEAD) gets the lines its event names
 * directly: its packet, its port's three lines. The nearer one
 * (PREFETCH_INDIRECT_AHEAD), whose direct lines were asked for when it
 * was the farther one, gets the lines found through them: the packet at
 * the head of the port's queue, whose `next` start_next reads when it
 * unlinks it, the tail packet an arrival is linked behind, and the flow of
 * a packet reaching its host (or, for a NIC's departure, the flow it will
 * pull from). A third stage, nearer still, fetches what those flows
 * point to (prefetch_state). Hints only: nothing depends on them.
 * always_inline: gcc 12 otherwise judges these helpers free of side
 * effects and deletes the calls (no prefetch was left in the binary).
 *
 * Only for fabrics whose ports alone outgrow a core's L2 cache (4 MB of
 * ports, about 3,500 hosts): measured with perf (cycles, medians of 3-5
 * runs), the first version's prefetches cost 16% on the 128-node
 * permutation, whose data stays in cache, 2.5% (noise) at 1024 nodes, and
 * saved 22% at 8192; with the distances below they cost 28% at 128 nodes
 * and 8-16% on the 1024-node cases (3 interleaved runs each). */
#define PREFETCH_MIN_PORT_BYTES (4u << 20)
/* How far ahead each stage reaches, in places behind the next event in its
 * delay's FIFO (the FIFOs interleave, so a place there is one event of the
 * loop or more): the direct lines 8 places ahead, the lines found
 * through them 3 places ahead, when the direct ones have had about 5
 * places to arrive, and the flow's transport, CC and balancer state 1
 * place ahead. Against the first version's 1 and 0 (the successor's
 * direct lines, the next event's indirect ones, no flow state), on the
 * 8192-node permutation (perf stat -e cycles:u, another job on the
 * machine; docs/performance.md "Performance"): 8 and 3, 27.2 -> 21.0 G cycles
 * (medians of 5 interleaved runs); the flow state 1 place ahead, 0.885x
 * cycles (median ratio of 6 pairs; 2 places, or 4 and 10 or 3 and 6 for
 * the first stages, within 1.5% of it). One event of the loop, about 400
 * cycles there, was too little time for a line to come from memory. */
#define PREFETCH_DIRECT_AHEAD 8u
#define PREFETCH_INDIRECT_AHEAD 3u
#define PREFETCH_STATE_AHEAD 1u
static inline __attribute__((always_inline)) void prefetch_port(const struct sim *s, uint32_t port_idx)
{
    const char *p = (const char *)&s->ports[port_idx];
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(p + 128);
}

static inline __attribute__((always_inline)) void prefetch_direct(const struct sim *s, const struct event *e)
{
    if (e->kind == EV_PKT_ARRIVE) {
        __builtin_prefetch(&s->pool.pkts[e->id]);
        if (e->aux < PORT_ROUTE_ON_ARRIVAL)
            prefetch_port(s, e->aux);
    } else if (e->kind == EV_PORT_TX_DONE) {
        prefetch_port(s, e->id);
        __builtin_prefetch(&s->pool.pkts[e->aux]);
    }
}

/* The flow's state that receiving a packet or sending the next one reads
 * (uet_receive, can_send): the transport's first two lines, the CC's and
 * the balancer's first. A null pointer is a harmless hint. */
static inline __attribute__((always_inline)) void prefetch_flow_state(const struct flow *f)
{
    const char *t = f->tp_state;
    if (t) {
        __builtin_prefetch(t);
        __builtin_prefetch(t + 64);
    }
    __builtin_prefetch(f->cc_state);
    __builtin_prefetch(f->lb_state);
}

/* The next host's NIC to finish a packet pulls the next one from the flow
 * at the head of its host's ready ring (transport_nic_pull). */
static inline __attribute__((always_inline)) uint32_t nic_next_flow(const struct sim *s, const struct port *p)
{
    return (p->flags & PORTF_HOST_NIC) ? s->hosts[p->owner_node].ready_head : UINT32_MAX;
}

/* The third stage: the flow state behind lines the second fetched (a
 * packet reaching its host: its flow; a NIC's departure: the flow it
 * will pull from). */
static inline __attribute__((always_inline)) void prefetch_state(const struct sim *s, const struct event *e)
{
    uint32_t fi = UINT32_MAX;
    if (e->kind == EV_PKT_ARRIVE && e->aux == PORT_NONE)
        fi = s->pool.pkts[e->id].flow;
    else if (e->kind == EV_PORT_TX_DONE)
        fi = nic_next_flow(s, &s->ports[e->id]);
    if (fi < s->n_flows)
        prefetch_flow_state(&s->flows[fi]);
}

static inline __attribute__((always_inline)) void prefetch_indirect(const struct sim *s, const struct event *e)
{
    if (e->kind == EV_PORT_TX_DONE) {
        const struct port *p = &s->ports[e->id];
        uint32_t head = p->ctl_head != PKT_NONE ? p->ctl_head : p->data_head;
        uint32_t fi;
        if (head != PKT_NONE)
            __builtin_prefetch(&s->pool.pkts[head]);
        else if ((fi = nic_next_flow(s, p)) < s->n_flows)
            __builtin_prefetch(&s->flows[fi]);
    } else if (e->kind == EV_PKT_ARRIVE) {
        if (e->aux < PORT_ROUTE_ON_ARRIVAL) {
            uint32_t tail = s->ports[e->aux].data_tail;
            if (tail != PKT_NONE)
                __builtin_prefetch(&s->pool.pkts[tail], 1);
        } else if (e->aux == PORT_NONE) {
            __builtin_prefetch(&s->flows[s->pool.pkts[e->id].flow]);
        }
    }
}

/* The plain loop's prefetches for spraysim-mpi's window loop (src/mpi/pdes.c),
 * which runs the same events a window at a time. */
static inline __attribute__((always_inline)) void prefetch_ahead(const struct sim *s)
{
    static const uint32_t places[3] = {PREFETCH_STATE_AHEAD, PREFETCH_INDIRECT_AHEAD, PREFETCH_DIRECT_AHEAD};
    const struct event *e[3];
    eq_peek_fifo_ahead(&s->eq, 3, places, e);
    if (e[0])
        prefetch_state(s, e[0]);
    if (e[1])
        prefetch_indirect(s, e[1]);
    if (e[2])
        prefetch_direct(s, e[2]);
}

#endif
