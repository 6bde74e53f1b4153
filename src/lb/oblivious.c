/* oblivious.c: oblivious packet spraying as the reference simulator does it
 * (seed 002 Sec. 7): the sender walks through all entropy values in cycles,
 * each cycle in a fresh pseudo-random order (index XOR a random mask), so
 * every path gets exactly one packet per cycle. Feedback is ignored.
 * For a path count that is not a power of two the XOR runs over the next
 * power of two and values outside the range are skipped.
 */
#include "lb.h"

struct oblivious_state {
    struct xor_cycle cycle;
};

static void oblivious_init(void *state, const struct lb_params *p)
{
    struct oblivious_state *o = state;
    xor_cycle_init(&o->cycle, p, p->paths);
}

static uint16_t oblivious_next(void *state, uint32_t seq, simtime_ps now)
{
    struct oblivious_state *o = state;
    (void)seq;
    (void)now;
    return (uint16_t)xor_cycle_next(&o->cycle);
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
