/* reps_alg4.c: REPS exactly as seed 003's Algorithm 4 writes it
 * (`--lb reps-alg4`), beside `reps` (lb/reps.c), which is the reference
 * simulator's generalisation (a circular buffer of recycled entropies, seed
 * 002 Sec. 7, and optionally htsim's freezing on timeouts, which the paper
 * does not describe).
 *
 * Algorithm 4 keeps one cached entropy:
 *  - on send: while the packet's sequence number is below one BDP and not
 *    every entropy has been tried, stamp next_entropy++ mod num_entropies
 *    (explore); otherwise stamp the cached entropy;
 *  - on an ACK: with ECN, cached = next_entropy++ mod num_entropies (move to
 *    an unexplored value); without, cached = the ACK's entropy (reuse the
 *    path that just delivered cleanly).
 * num_entropies is -paths (the paper's 256 is its default there); both
 * counters start at 0 (Alg. 4 lines 1-3).
 *
 * Where Alg. 4 is silent, our reading: a NACK (a packet trimmed in the
 * fabric) and a retransmission timeout are congestion on that entropy at
 * least as strong as an ECN mark, so they move the cached entropy on exactly
 * as ECN does (line 14). Reusing the entropy of a trimmed packet, the
 * literal "not ECN" branch, would keep a flow on the path that just dropped
 * its payload. No randomness: the state is two counters and one value.
 */
#include "lb.h"

struct reps_alg4_state {
    uint32_t num_entropies;  /* Alg. 4 line 1 (-paths) */
    uint32_t explore_pkts;   /* line 5: explore while seq < bdp */
    uint32_t next_entropy;   /* line 2, kept reduced mod num_entropies */
    uint32_t tried;          /* entropies handed out by lines 6 and 14, to
                              * know when "all entropies tried" (line 5) */
    uint16_t cached_entropy; /* line 3 */
};

static void reps_alg4_init(void *state, const struct lb_params *p)
{
    struct reps_alg4_state *r = state;
    r->num_entropies = p->paths ? p->paths : 1;
    r->explore_pkts = p->bdp_pkts;
    r->next_entropy = 0;
    r->tried = 0;
    r->cached_entropy = 0;
}

/* next_entropy++ % num_entropies (lines 6 and 14) */
static uint16_t take_next(struct reps_alg4_state *r)
{
    uint16_t ev = (uint16_t)r->next_entropy;
    r->next_entropy = (r->next_entropy + 1) % r->num_entropies;
    if (r->tried < r->num_entropies)
        r->tried++;
    return ev;
}

static uint16_t reps_alg4_next(void *state, uint32_t seq, simtime_ps now)
{
    struct reps_alg4_state *r = state;
    (void)now;
    if (seq < r->explore_pkts && r->tried < r->num_entropies)
        return take_next(r);
    return r->cached_entropy;
}

static void reps_alg4_feedback(void *state, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    struct reps_alg4_state *r = state;
    (void)now;
    if (sig == LB_GOOD)
        r->cached_entropy = ev;
    else
        r->cached_entropy = take_next(r);
}

const struct lb_ops lb_reps_alg4_ops = {
    .name = "reps-alg4",
    .description = "REPS exactly as seed 003 Alg. 4: one cached entropy, explore the first BDP, move on at ECN (NACK and timeout too: our reading)",
    .state_size = sizeof(struct reps_alg4_state),
    .init = reps_alg4_init,
    .next_entropy = reps_alg4_next,
    .feedback = reps_alg4_feedback,
};
