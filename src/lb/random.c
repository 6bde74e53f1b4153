/* random.c: i.i.d. random packet spraying, seed 004's OPS ("oblivious
 * packet spraying" as that paper models it, Sec. II and IV-A): every packet
 * picks its entropy uniformly at random among all paths, independently of
 * every other packet, so a path may get several packets in a row and another
 * none for a while (unlike `oblivious`, htsim's cycle that visits every path
 * once per round). Feedback is ignored.
 */
#include "lb.h"

struct random_state {
    struct rng rng;
    uint32_t paths;
};

static void random_init(void *state, const struct lb_params *p)
{
    struct random_state *r = state;
    rng_seed(&r->rng, p->seed, RNG_STREAM_LB, p->flow_index);
    r->paths = p->paths ? p->paths : 1;
}

static uint16_t random_next(void *state, uint32_t seq, simtime_ps now)
{
    struct random_state *r = state;
    (void)seq;
    (void)now;
    return (uint16_t)rng_below(&r->rng, r->paths);
}

static void random_feedback(void *state, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    (void)state;
    (void)ev;
    (void)sig;
    (void)now;
}

const struct lb_ops lb_random_ops = {
    .name = "random",
    .description = "i.i.d. random packet spraying (seed 004's OPS): each packet's path uniform and independent",
    .state_size = sizeof(struct random_state),
    .init = random_init,
    .next_entropy = random_next,
    .feedback = random_feedback,
};
