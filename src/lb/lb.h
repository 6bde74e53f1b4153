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

enum lb_signal {
    LB_GOOD = 0,    /* ACK without ECN */
    LB_ECN = 1,     /* ACK with ECN echo */
    LB_NACK = 2,    /* packet trimmed inside the fabric */
    LB_TIMEOUT = 3, /* retransmission timeout (EV unknown) */
};

struct lb_params {
    uint32_t paths;      /* number of entropy values, -paths */
    uint32_t bdp_pkts;   /* packets in one BDP: REPS explores this many EVs first */
    uint32_t buffer_size;/* REPS: recycled-entropy buffer entries */
    bool trimming;
    uint64_t seed;       /* the run's seed */
    uint32_t flow_index; /* so every flow gets its own random stream */
};

struct lb_ops {
    const char *name;
    const char *description;
    size_t state_size;
    void (*init)(void *state, const struct lb_params *p);
    /* seq: the packet's sequence number (REPS explores during the first BDP). */
    uint16_t (*next_entropy)(void *state, uint32_t seq, simtime_ps now);
    void (*feedback)(void *state, uint16_t entropy, enum lb_signal sig, simtime_ps now);
};

const struct lb_ops *lb_find(const char *name);
const char *lb_names(void);

extern const struct lb_ops lb_single_ops;
extern const struct lb_ops lb_oblivious_ops;
extern const struct lb_ops lb_reps_ops;

#endif
