/* reps.c: Recycled Entropy Packet Spraying (REPS).
 *
 * Seed 003 Alg. 4: during the first BDP of packets the sender explores,
 * stamping entropy values in turn (next_entropy++ mod num_entropies). Then an
 * entropy echoed by an ACK without ECN is cached and reused, while an ECN
 * echo makes the sender move on to the next unexplored value.
 * Seed 002 Sec. 7 (and the UE reference simulator) generalises the single
 * cached value to a small circular buffer of recycled entropies: every clean
 * ACK pushes its entropy; each send consumes the oldest fresh entry, so a
 * good path is reused once per clean ACK it returned; marked, NACKed or
 * timed-out entropies are simply not recycled. With an empty buffer the
 * sender explores the next value, exactly Alg. 4's reaction to ECN.
 * Buffer size 8 is the reference simulator's default (README, "REPS").
 */
#include "lb.h"

#define REPS_MAX_BUFFER 256

struct reps_state {
    uint32_t paths;
    uint32_t explore_pkts;   /* Alg. 4 line 5: explore while seq < bdp */
    uint32_t next_entropy;   /* Alg. 4 line 2 */
    uint32_t capacity;
    uint32_t head;           /* slot the next push writes */
    uint32_t fresh;          /* number of unused entries, the newest ones */
    uint16_t buf[REPS_MAX_BUFFER];
};

static void reps_init(void *state, const struct lb_params *p)
{
    struct reps_state *r = state;
    r->paths = p->paths ? p->paths : 1;
    r->explore_pkts = p->bdp_pkts;
    r->next_entropy = 0;
    r->capacity = p->buffer_size ? p->buffer_size : 8;
    if (r->capacity > REPS_MAX_BUFFER)
        r->capacity = REPS_MAX_BUFFER;
    r->head = 0;
    r->fresh = 0;
}

static uint16_t explore(struct reps_state *r)
{
    uint16_t ev = (uint16_t)(r->next_entropy % r->paths);
    r->next_entropy = (r->next_entropy + 1) % r->paths;
    return ev;
}

static uint16_t reps_next(void *state, uint32_t seq, simtime_ps now)
{
    struct reps_state *r = state;
    (void)now;
    if (seq < r->explore_pkts || r->fresh == 0)
        return explore(r);
    /* oldest fresh entry: `fresh` slots behind head */
    uint32_t slot = (r->head + r->capacity - r->fresh) % r->capacity;
    r->fresh--;
    return r->buf[slot];
}

static void reps_feedback(void *state, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    struct reps_state *r = state;
    (void)now;
    if (sig != LB_GOOD)
        return;
    r->buf[r->head] = ev;
    r->head = (r->head + 1) % r->capacity;
    if (r->fresh < r->capacity)
        r->fresh++;
}

const struct lb_ops lb_reps_ops = {
    .name = "reps",
    .description = "REPS: recycle entropies of clean ACKs, explore on ECN (seed 003 Alg. 4, seed 002 Sec. 7)",
    .state_size = sizeof(struct reps_state),
    .init = reps_init,
    .next_entropy = reps_next,
    .feedback = reps_feedback,
};
