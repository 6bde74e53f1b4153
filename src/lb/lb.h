/* lb.h: the interface of sender-side load balancers: which entropy value
 * (EV) to stamp on the next packet, and what the sender learned about an EV
 * from the feedback that echoed it.
 *
 * Switches hash the EV (with the flow) to pick among equal-cost uplinks, so
 * an EV names a path without the sender knowing the topology. State is per
 * flow, in a struct the module sizes itself.
 */
#ifndef SPRAYSIM_LB_H
#define SPRAYSIM_LB_H

#include "../core/core.h"
#include "../transport/transport.h"

#include <stdlib.h>

enum lb_signal {
    LB_GOOD = 0,    /* ACK without ECN */
    LB_ECN = 1,     /* ACK with ECN echo */
    LB_NACK = 2,    /* packet trimmed inside the fabric */
    LB_TIMEOUT = 3, /* retransmission timeout of the packet sent with `entropy`,
                     * or LB_EV_UNKNOWN when the transport does not know it */
};

/* The entropy of an LB_TIMEOUT whose packet's EV the transport does not
 * know: no path is blamed. With -paths 65536 this is also a real EV; a
 * timeout on that one EV is then not blamed either. */
#define LB_EV_UNKNOWN 0xFFFFu

/* Largest -paths: EVs are 16 bits. */
#define LB_MAX_PATHS 65536u

/* Bitmap's fixed part of the state is at most this many bytes (checked in
 * bitmap.c); its state_size is this plus one byte per path of LB_MAX_PATHS. */
#define LB_BITMAP_HEADER_MAX 64u

struct lb_params {
    uint32_t paths;      /* number of entropy values, -paths */
    uint32_t bdp_pkts;   /* packets in one BDP: REPS explores this many EVs first */
    uint32_t buffer_size;/* REPS: recycled-entropy buffer entries */
    bool trimming;
    uint64_t seed;       /* the run's seed */
    uint32_t flow_index; /* so every flow gets its own random stream */
    bool reps_freeze;    /* REPS: freeze the recycled entropies on a timeout
                          * (htsim uec_mp UecMpReps); false = plain REPS */
    simtime_ps base_rtt_ps; /* the network's base RTT (PLB's round) */
    uint32_t path_burst; /* oblivious: packets per entropy in a row (-path_burst; 0 = 1) */
};

struct lb_ops {
    const char *name;
    const char *description;
    size_t state_size;   /* bytes of per-flow state for any lb_params */
    /* The flags it owns (as a transport's, transport.h struct transport_flag:
     * the CLI stores them, the generic layer warns when no flow's balancer
     * owns a given one) and, optional, read_opts: fills its own fields of
     * *p from them (exit 2 naming a bad flag; run for every registered
     * balancer at set-up, and at each flow's start). */
    const struct transport_flag *flags;
    unsigned n_flags;
    void (*read_opts)(const struct sim *s, struct lb_params *p);
    /* Optional (NULL = state_size): bytes of per-flow state for these
     * parameters, never more than state_size. Balancers whose state grows
     * with -paths (Bitmap, Mixed) size it here so a flow with 64 paths
     * does not carry room for 65536. The state must be zeroed. */
    size_t (*state_bytes)(const struct lb_params *p);
    void (*init)(void *state, const struct lb_params *p);
    /* seq: the packet's sequence number (REPS explores during the first BDP). */
    uint16_t (*next_entropy)(void *state, uint32_t seq, simtime_ps now);
    void (*feedback)(void *state, uint16_t entropy, enum lb_signal sig, simtime_ps now);
    /* Optional: frees what the state holds beyond its own bytes (Mixed's
     * FIFO); lb_state_free calls it. */
    void (*release)(void *state);
};

/* htsim's oblivious order (uec_mp): entropies (index XOR mask) over the next
 * power of two, a fresh random mask each cycle, values >= paths skipped, so
 * every cycle visits each entropy exactly once. Shared by oblivious spraying
 * and Bitmap. */
struct xor_cycle {
    struct rng rng;
    uint32_t paths;
    uint32_t mask;     /* next power of two minus one */
    uint32_t index;    /* position in the current cycle */
    uint32_t xor_mask;
};

static inline void xor_cycle_init(struct xor_cycle *c, const struct lb_params *p, uint32_t paths)
{
    rng_seed(&c->rng, p->seed, RNG_STREAM_LB, p->flow_index);
    c->paths = paths ? paths : 1;
    uint32_t m = 1;
    while (m < c->paths)
        m <<= 1;
    c->mask = m - 1;
    c->index = 0;
    c->xor_mask = (uint32_t)rng_below(&c->rng, m);
}

static inline uint32_t xor_cycle_next(struct xor_cycle *c)
{
    for (;;) {
        uint32_t ev = (c->index ^ c->xor_mask) & c->mask;
        if (++c->index > c->mask) {
            c->index = 0;
            c->xor_mask = (uint32_t)rng_below(&c->rng, (uint64_t)c->mask + 1);
        }
        if (ev < c->paths)
            return ev;
    }
}

const struct lb_ops *lb_find(const char *name);
const char *lb_names(void);
/* The registered balancers (*n of them). */
const struct lb_ops *const *lb_registry(size_t *n);

extern const struct lb_ops lb_single_ops;
extern const struct lb_ops lb_oblivious_ops;
extern const struct lb_ops lb_random_ops;
extern const struct lb_ops lb_plb_ops;
/* Times a PLB flow moved to another path (for tests and reports). */
uint32_t lb_plb_repaths(const void *plb_state);
extern const struct lb_ops lb_reps_ops;
extern const struct lb_ops lb_reps_alg4_ops; /* seed 003 Alg. 4 as written: reps_alg4.c */
extern const struct lb_ops lb_bitmap_ops;
extern const struct lb_ops lb_mixed_ops;

/* Frees a flow's balancer state made for `ops` (NULL: nothing). */
static inline void lb_state_free(const struct lb_ops *ops, void *state)
{
    if (state && ops->release)
        ops->release(state);
    free(state);
}

/* Bytes of state a flow needs with `ops` and `p` (state_bytes, else state_size). */
static inline size_t lb_state_bytes(const struct lb_ops *ops, const struct lb_params *p)
{
    return ops->state_bytes ? ops->state_bytes(p) : ops->state_size;
}

/* Inspection, for tests and diagnostics: the current penalty (0..15) of an
 * entropy in a Bitmap state, or in the Bitmap half of a Mixed state. */
uint8_t lb_bitmap_penalty(const void *bitmap_state, uint16_t ev);
uint8_t lb_mixed_penalty(const void *mixed_state, uint16_t ev);

#endif
