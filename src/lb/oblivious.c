/* oblivious.c: oblivious packet spraying as the reference simulator does it
 * (seed 002 Sec. 7): the sender walks through all entropy values in cycles,
 * each cycle in a fresh pseudo-random order (index XOR a random mask), so
 * every path gets exactly one packet per cycle. Feedback is ignored.
 * For a path count that is not a power of two the XOR runs over the next
 * power of two and values outside the range are skipped.
 */
#include "lb.h"

struct oblivious_state {
    struct rng rng;
    uint32_t paths;
    uint32_t mask;   /* next power of two minus one */
    uint32_t index;  /* position in the current cycle */
    uint32_t xor_mask;
};

static void oblivious_init(void *state, const struct lb_params *p)
{
    struct oblivious_state *o = state;
    rng_seed(&o->rng, p->seed, RNG_STREAM_LB, p->flow_index);
    o->paths = p->paths ? p->paths : 1;
    uint32_t m = 1;
    while (m < o->paths)
        m <<= 1;
    o->mask = m - 1;
    o->index = 0;
    o->xor_mask = (uint32_t)rng_below(&o->rng, m);
}

static uint16_t oblivious_next(void *state, uint32_t seq, simtime_ps now)
{
    struct oblivious_state *o = state;
    (void)seq;
    (void)now;
    for (;;) {
        uint32_t ev = (o->index ^ o->xor_mask) & o->mask;
        if (++o->index > o->mask) {
            o->index = 0;
            o->xor_mask = (uint32_t)rng_below(&o->rng, (uint64_t)o->mask + 1);
        }
        if (ev < o->paths)
            return (uint16_t)ev;
    }
}

static void oblivious_feedback(void *state, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    (void)state;
    (void)ev;
    (void)sig;
    (void)now;
}

const struct lb_ops lb_oblivious_ops = {
    .name = "oblivious",
    .description = "oblivious packet spraying: XOR-permuted round robin over all paths",
    .state_size = sizeof(struct oblivious_state),
    .init = oblivious_init,
    .next_entropy = oblivious_next,
    .feedback = oblivious_feedback,
};
