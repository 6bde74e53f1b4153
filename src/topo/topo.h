/* topo.h: fat-tree and leaf-spine topologies: the description (read from a
 * reference-simulator .topo file or derived from the node count) and the
 * routing function over the built fabric.
 *
 * A tree has 2 or 3 tiers of switches: tier 0 are top-of-rack switches (ToR),
 * tier 1 aggregation (or spines in a 2-tier leaf-spine), tier 2 cores.
 * Per tier t: the speed and latency of the links from tier t down to tier
 * t-1 (tier 0: to the hosts), down and up radix, oversubscription and bundle
 * (parallel links between each connected pair). The derivation of switch
 * counts follows the reference simulator's fat-tree builder; docs/workloads.md
 * ("Topologies") states every rule in this project's words.
 */
#ifndef SPRAYSIM_TOPO_H
#define SPRAYSIM_TOPO_H

#include "../core/core.h"

#define TOPO_MAX_TIERS 3
/* Ports one switch may have facing down, and facing up (16-bit counts). */
#define TOPO_MAX_PORTS_PER_SIDE 65535u
/* Hosts in one run: 2^24, beyond UEC's stated million-host scale. */
#define TOPO_MAX_NODES (1u << 24)

struct tier_spec {
    uint32_t downlink_mbps;
    uint32_t radix_down;
    uint32_t radix_up;
    simtime_ps downlink_latency_ps;
    simtime_ps switch_latency_ps;
    uint32_t oversub;
    uint32_t bundle;
    uint32_t queue_down_bytes; /* 0 = the run's default queue size */
    uint32_t queue_up_bytes;
    unsigned queue_down_line;  /* .topo line of Queue_Down / Queue_Up, for messages */
    unsigned queue_up_line;
    /* which keys were given, for error messages and defaults */
    uint32_t set_mask;
};

struct topo_spec {
    uint32_t nodes;
    uint32_t tiers;
    uint32_t podsize;
    struct tier_spec tier[TOPO_MAX_TIERS];
};

/* Derived shape of the built tree. */
struct topo {
    struct topo_spec spec;
    uint32_t hosts_per_tor;
    uint32_t tors_per_pod;
    uint32_t pods;
    uint32_t n_tor, n_agg, n_core;
    uint32_t aggs_per_pod;     /* 2-tier: the number of spines */
    uint32_t tor_bundle;       /* parallel links ToR<->agg (tier 1 bundle) */
    uint32_t agg_bundle;       /* parallel links agg<->core (tier 2 bundle) */
    uint32_t cores_per_agg;    /* distinct cores each agg reaches */
    uint32_t first_switch;     /* node id of ToR 0 (= number of hosts) */
    /* -planes: the switch tiers above are built `planes` times, identical and
     * independent; plane p's switches follow plane p-1's (fabric.c). */
    uint32_t planes;
    uint32_t switches_per_plane; /* n_tor + n_agg + n_core */
    uint32_t diameter_hops;    /* links on the longest host-to-host path */
    simtime_ps diameter_latency_ps; /* propagation + switch latency one way */
};

/* The largest k of a default tree (ours: it ends the search for a 2-tier
 * size, which would otherwise run to k = 92682 for 2^32 hosts; a 3-tier
 * tree of 2^32 hosts needs only k = 2580). */
#define TOPO_DEFAULT_MAX_K 4096u

/* Fills a spec for the reference simulator's default k-ary fat tree (3 tiers:
 * nodes = k^3/4; 2 tiers: nodes = k^2/2; k at most TOPO_DEFAULT_MAX_K), all links at `mbps` with
 * `hop_latency_ps` each and `switch_latency_ps` per switch. Returns false
 * and writes a message to err if `nodes` fits no such tree. */
bool topo_default_spec(struct topo_spec *spec, uint32_t nodes, uint32_t tiers, uint32_t mbps,
                       simtime_ps hop_latency_ps, simtime_ps switch_latency_ps, char *err, size_t errlen);

/* Reads a .topo file. On error writes "file:line: message" to err and
 * returns false. */
bool topo_read_file(struct topo_spec *spec, const char *path, char *err, size_t errlen);
/* Same, from the `len` bytes at `text` (no terminating NUL needed); `name`
 * stands for the file in messages. */
bool topo_read_buffer(struct topo_spec *spec, const char *name, const char *text, size_t len, char *err,
                      size_t errlen);

/* Checks a spec and derives the tree's shape. Returns false with a message
 * in err when the numbers do not describe a buildable tree. */
bool topo_derive(struct topo *t, const struct topo_spec *spec, char *err, size_t errlen);

/* Number of links (one direction) a packet crosses from host a to host b. */
uint32_t topo_hops(const struct topo *t, uint32_t a, uint32_t b);

#endif
