/* oblivious.c: oblivious packet spraying as the reference simulator does it
 * (seed 002 Sec. 7): the sender walks through all entropy values in cycles,
 * each cycle in a fresh pseudo-random order (index XOR a random mask), so
 * every path gets exactly one packet per cycle. Feedback is ignored.
 * For a path count that is not a power of two the XOR runs over the next
 * power of two and values outside the range are skipped.
 *
 * -path_burst N (htsim_ndp's, NdpSrc::set_path_burst; default 1): each
 * entropy is used for N packets in a row before the walk moves on, so a
 * cycle is N x paths packets and every path still gets the same share.
 * htsim_ndp applies it to its "-strat perm", which is this balancer; the
 * other balancers do not own the flag (a run using none of its owners is
 * told it has no effect).
 */
#include "lb.h"

/* htsim_ndp main_ndp.cpp keeps path_burst in an int and hands it to a
 * uint16_t (set_path_burst): 65535 is the most it can hold. */
#define OBLIVIOUS_MAX_BURST 65535

struct oblivious_state {
    struct xor_cycle cycle;
    uint32_t burst;      /* packets per entropy before moving on (-path_burst) */
    uint32_t burst_left; /* packets the current entropy still gets */
    uint16_t ev;         /* the current entropy */
};

static const struct transport_flag oblivious_flags[] = {
    {"-path_burst", 1, false, "N",
     "htsim_ndp's packets per path in a row before moving on, 1..65535 (default 1)"},
};

static void oblivious_read_opts(const struct sim *s, struct lb_params *p)
{
    p->path_burst = (uint32_t)transport_flag_uint(s, "-path_burst", 0, 1, OBLIVIOUS_MAX_BURST, 1);
}

static void oblivious_init(void *state, const struct lb_params *p)
{
    struct oblivious_state *o = state;
    xor_cycle_init(&o->cycle, p, p->paths);
    o->burst = p->path_burst ? p->path_burst : 1; /* 0: not set, the default */
    o->burst_left = 0;
}

static uint16_t oblivious_next(void *state, uint32_t seq, simtime_ps now)
{
    struct oblivious_state *o = state;
    (void)seq;
    (void)now;
    if (o->burst_left == 0) {
        o->ev = (uint16_t)xor_cycle_next(&o->cycle);
        o->burst_left = o->burst;
    }
    o->burst_left--;
    return o->ev;
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
    .flags = oblivious_flags,
    .n_flags = sizeof oblivious_flags / sizeof oblivious_flags[0],
    .read_opts = oblivious_read_opts,
    .init = oblivious_init,
    .next_entropy = oblivious_next,
    .feedback = oblivious_feedback,
};
