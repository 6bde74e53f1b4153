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
 * Buffer size 8 is the reference simulator's default (docs/models.md, "REPS").
 *
 * Freezing (lb_params.reps_freeze; htsim uec_mp UecMpReps; seed 003 Sec.
 * 4.1.1: REPS "effectively route[s] around path blackholes"). A failed link
 * shows up as a retransmission timeout; recycling keeps working for the
 * entropies that still return ACKs, but once the buffer runs dry the sender
 * would explore entropies that may cross the failure. So:
 *  - On a timeout, when neither frozen nor in post-freeze exploration, the
 *    sender freezes for REPS_FREEZE_PS (htsim's exit_freeze_after, 10 ms).
 *  - While frozen, clean ACKs still add to the buffer, ECN and NACK do
 *    nothing (as always), and each send takes the stored entries in round
 *    robin regardless of freshness (htsim remove_frozen), i.e. only the
 *    entropies known to work; with an empty buffer, a random entropy.
 *  - The first feedback after the freeze ends (htsim checks on feedback,
 *    not on sends) thaws: the buffer is cleared and the next
 *    REPS_THAW_EXPLORE (16) sends use random entropies, to rediscover paths.
 * Freezing takes precedence over the first-BDP exploration (Alg. 4).
 * htsim stops with an error when a REPS sender would freeze without packet
 * trimming; we freeze all the same: without trimming every loss, a failure
 * included, surfaces only as a timeout, so that is when freezing matters
 * most. (Congestion drops then freeze the flow too; it keeps sending on its
 * known-good entropies.) All randomness comes from the flow's
 * RNG_STREAM_LB stream, drawn only when freezing is on.
 */
#include "lb.h"

#define REPS_MAX_BUFFER 256
#define REPS_FREEZE_PS (10 * PS_PER_MS)  /* htsim uec_mp exit_freeze_after */
#define REPS_THAW_EXPLORE 16            /* htsim uec_mp explore_counter */

struct reps_state {
    uint32_t paths;
    uint32_t explore_pkts;   /* Alg. 4 line 5: explore while seq < bdp */
    uint32_t next_entropy;   /* Alg. 4 line 2 */
    uint32_t capacity;
    uint32_t head;           /* slot the next push writes */
    uint32_t fresh;          /* number of unused entries, the newest ones */
    uint32_t count;          /* entries stored, used or not (slots 0..count-1 until full) */
    /* freezing */
    bool freeze;             /* lb_params.reps_freeze */
    bool frozen;
    uint32_t frozen_next;    /* round-robin position over the stored entries */
    uint32_t explore_left;   /* random sends left after a thaw */
    simtime_ps freeze_end;
    struct rng rng;
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
    r->count = 0;
    r->freeze = p->reps_freeze;
    r->frozen = false;
    r->frozen_next = 0;
    r->explore_left = 0;
    r->freeze_end = 0;
    rng_seed(&r->rng, p->seed, RNG_STREAM_LB, p->flow_index);
}

static uint16_t random_entropy(struct reps_state *r)
{
    return (uint16_t)rng_below(&r->rng, r->paths);
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
    if (r->explore_left > 0) { /* after a thaw */
        r->explore_left--;
        return random_entropy(r);
    }
    if (r->frozen) {
        if (r->count == 0)
            return random_entropy(r);
        uint16_t ev = r->buf[r->frozen_next % r->count];
        r->frozen_next = (r->frozen_next + 1) % r->count;
        return ev;
    }
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
    if (r->freeze) {
        /* htsim uec_mp UecMpReps::processEv, in its order */
        if (sig == LB_TIMEOUT && !r->frozen && r->explore_left == 0) {
            r->frozen = true;
            r->frozen_next = 0;
            r->freeze_end = now + REPS_FREEZE_PS;
        }
        if (r->frozen && now > r->freeze_end) {
            r->frozen = false;
            r->head = r->fresh = r->count = 0;
            r->explore_left = REPS_THAW_EXPLORE;
        }
    }
    if (sig != LB_GOOD)
        return;
    r->buf[r->head] = ev;
    r->head = (r->head + 1) % r->capacity;
    if (r->fresh < r->capacity)
        r->fresh++;
    if (r->count < r->capacity)
        r->count++;
}

static const struct transport_flag reps_flags[] = {
    {"--reps-buffer", 1, false, "N", "recycled-entropy buffer entries, 1..256 (default 8)"},
    {"--reps-freeze", 0, false, NULL, "freeze the cache for 10 ms after a timeout (the default)"},
    {"--no-reps-freeze", 0, false, NULL, "plain REPS: no freezing"},
};

/* --reps-buffer and --reps-freeze / --no-reps-freeze (the later one wins) */
static void reps_read_opts(const struct sim *s, struct lb_params *p)
{
    static const char *const freeze[] = {"--no-reps-freeze", "--reps-freeze"};
    p->buffer_size = (uint32_t)transport_flag_uint(s, "--reps-buffer", 0, 1, 256, 8);
    p->reps_freeze = transport_flag_last(s, freeze, 2) != 0; /* htsim buffer_reps: repsUseFreezing = true */
}

const struct lb_ops lb_reps_ops = {
    .name = "reps",
    .description = "REPS: recycle entropies of clean ACKs, explore on ECN, optionally freeze on timeouts (seed 003 Alg. 4, seed 002 Sec. 7, htsim uec_mp)",
    .state_size = sizeof(struct reps_state),
    .flags = reps_flags,
    .n_flags = sizeof reps_flags / sizeof reps_flags[0],
    .read_opts = reps_read_opts,
    .init = reps_init,
    .next_entropy = reps_next,
    .feedback = reps_feedback,
};
