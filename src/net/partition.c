/* partition.c: which process of a parallel run owns each node (docs/parallel.md
 * "Parallel runs (MPI)").
 *
 * Without its top tier (a fat tree's cores, a leaf-spine's spines) a tree
 * falls apart into pods: a fat tree's pod is its ToRs, aggregation switches
 * and hosts, a leaf-spine's a ToR and its hosts. Pods are numbered by their
 * lowest node (hosts come first, so in host order) and go to processes in
 * contiguous blocks, pod k of K to process k * P / K; top-tier switches
 * likewise, switch j of J to j * P / J. Only links into and out of the top
 * tier then join two processes, and the window length (sim.c,
 * lookahead_ps) is the smallest latency among exactly those links. With
 * -planes N a pod spans the planes (its hosts join a ToR in each), so a
 * host's NIC ports, its control queue and its round robin over them stay
 * on its process; only the planes' top tiers are shared out. Plain
 * C, no MPI: the plain build compiles it and the tests check it.
 */
#include "partition.h"

#include "../sim.h"

#include <stdlib.h>

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static bool is_top(const struct sim *s, uint32_t node)
{
    uint32_t top = s->topo.spec.tiers ? s->topo.spec.tiers - 1 : 0;
    return node >= s->n_hosts && s->switches[node - s->n_hosts].tier == top;
}

uint32_t *partition_by_pods(const struct sim *s, uint32_t nparts, uint32_t *n_pods)
{
    uint32_t nodes = s->n_hosts + s->n_switches;
    uint32_t *parent = xmalloc((nodes ? nodes : 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < nodes; i++)
        parent[i] = i;
    /* pods: what the links below the top tier join (union by lower root, so
     * each root is its pod's lowest node) */
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const struct port *p = &s->ports[i];
        if (is_top(s, p->owner_node) || is_top(s, p->peer_node))
            continue;
        uint32_t a = uf_find(parent, p->owner_node), b = uf_find(parent, p->peer_node);
        if (a < b)
            parent[b] = a;
        else if (b < a)
            parent[a] = b;
    }
    uint32_t *pod_of_root = xmalloc((nodes ? nodes : 1) * sizeof(uint32_t));
    uint32_t pods = 0, tops = 0;
    for (uint32_t i = 0; i < nodes; i++) {
        if (is_top(s, i))
            tops++;
        else if (uf_find(parent, i) == i)
            pod_of_root[i] = pods++;
    }
    uint32_t *part = xmalloc((nodes ? nodes : 1) * sizeof(uint32_t));
    uint32_t j = 0;
    for (uint32_t i = 0; i < nodes; i++) {
        if (is_top(s, i))
            part[i] = (uint32_t)((uint64_t)j++ * nparts / tops);
        else
            part[i] = (uint32_t)((uint64_t)pod_of_root[uf_find(parent, i)] * nparts / pods);
        invariant(part[i] < nparts, "node %u in partition %u of %u", i, part[i], nparts);
    }
    free(pod_of_root);
    free(parent);
    if (n_pods)
        *n_pods = pods;
    return part;
}
