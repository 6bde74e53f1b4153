/* bitmap.c: the Bitmap load balancer of the UE reference simulator
 * (htsim uec_mp, UecMpBitmap; seed 002 Sec. 7): oblivious spraying's
 * XOR-permuted round robin over all entropies, plus a small penalty per
 * entropy that feedback raises and that makes the sender skip the entropy.
 *
 * Penalties (htsim uec_mp UecMpBitmap::processEv), capped at 15:
 *   clean ACK +0, ECN echo +1, NACK (mid-fabric trim) +4, timeout +15.
 * A last-hop trim reaches the balancer as LB_GOOD or LB_ECN (the transport's
 * last-hop detection, seed 002 Sec. 7), so it never costs the path a NACK
 * penalty.
 *
 * Choosing an entropy (htsim uec_mp UecMpBitmap::nextEntropy): take the next
 * candidate of the XOR cycle; while it has a penalty, skip it and take the
 * next one. The first candidate skipped in a call loses one unit of penalty:
 * this is htsim's decay, "penalties decay as paths are skipped". After more
 * than `paths` skipped candidates (every entropy penalized) the current
 * candidate is used anyway.
 *
 * Time decay (our addition; seed 002 Sec. 7: "Penalties decrease over time,
 * so paths that were briefly congested can be used again"). Skip decay alone
 * runs at the flow's sending rate: a flow that sends one packet now and then
 * meets a penalized entropy once per cycle of `paths` sends, and keeps a
 * timeout's penalty of 15 for 15 cycles, possibly milliseconds. So every
 * BITMAP_DECAY_PS of simulated time each nonzero penalty also loses one unit.
 * The clock starts when the first penalty of an otherwise clean state is
 * set, so a lone penalty p lasts p periods without skips; later penalties
 * share that clock (their first unit may go sooner). At line rate with up to
 * ~128 paths skip decay is the faster of the two and the time decay changes
 * little against htsim.
 *
 * Timeouts: htsim (uec.cpp, rtxTimerExpired) penalizes the EV of the
 * timed-out packet. The transport passes that EV with LB_TIMEOUT when it
 * knows it; LB_EV_UNKNOWN penalizes no entropy (there is no path to blame).
 *
 * Path counts that are not powers of two (htsim requires one): the XOR runs
 * over the next power of two and values outside the range are skipped, as
 * in oblivious.c; for powers of two the order is htsim's.
 *
 * State: the penalties are one byte per entropy after the header, so the
 * size depends on -paths (lb_ops.state_bytes).
 */
#include "lb.h"

#include <string.h>

#define BITMAP_MAX_PENALTY 15
_Static_assert(BITMAP_MAX_PENALTY < 128, "time_decay works on bytes of at most 0x7f");
#define BITMAP_PENALTY_ECN 1
#define BITMAP_PENALTY_NACK 4
#define BITMAP_PENALTY_TIMEOUT BITMAP_MAX_PENALTY
/* One unit of penalty decays per this much simulated time (about one
 * minimum RTO of the default fabric): a timeout's 15 clear in 1.5 ms even
 * for a flow that sends nothing. */
#define BITMAP_DECAY_PS (100 * PS_PER_US)

struct bitmap_state {
    struct xor_cycle cycle;
    uint32_t paths;
    uint32_t penalized; /* entropies with a nonzero penalty */
    simtime_ps decay_clock; /* time decay applied up to here */
    uint8_t penalty[];  /* per entropy, `paths` entries */
};

_Static_assert(sizeof(struct bitmap_state) <= LB_BITMAP_HEADER_MAX, "raise LB_BITMAP_HEADER_MAX");

static uint32_t clamp_paths(uint32_t paths)
{
    if (paths == 0)
        return 1;
    return paths > LB_MAX_PATHS ? LB_MAX_PATHS : paths;
}

static size_t bitmap_state_bytes(const struct lb_params *p)
{
    return sizeof(struct bitmap_state) + clamp_paths(p->paths);
}

static void bitmap_init(void *state, const struct lb_params *p)
{
    struct bitmap_state *b = state;
    b->paths = clamp_paths(p->paths);
    xor_cycle_init(&b->cycle, p, b->paths);
    b->penalized = 0;
    b->decay_clock = 0;
    for (uint32_t i = 0; i < b->paths; i++)
        b->penalty[i] = 0;
}

static uint32_t cycle_next(struct bitmap_state *b)
{
    return xor_cycle_next(&b->cycle);
}

/* time_decay's work once at least one period has passed (out of line: most
 * calls stop before it, and without a division). */
static __attribute__((noinline)) void time_decay_ticks(struct bitmap_state *b, simtime_ps now)
{
    simtime_ps ticks = (now - b->decay_clock) / BITMAP_DECAY_PS;
    b->decay_clock += ticks * BITMAP_DECAY_PS;
    uint8_t dec = ticks >= BITMAP_MAX_PENALTY ? BITMAP_MAX_PENALTY : (uint8_t)ticks;
    /* eight penalties at a time (each at most BITMAP_MAX_PENALTY < 128, so
     * no byte borrows from the next): (pen | 0x80) - dec keeps its top bit
     * when pen >= dec, and then its low 7 bits are pen - dec; otherwise the
     * penalty becomes 0. The scalar loop took 2.8% of the 1023-to-1
     * incast's instructions (callgrind). */
    const uint64_t ones = 0x0101010101010101ULL, top = 0x80 * ones, low = 0x7f * ones;
    uint32_t i = 0;
    for (; i + 8 <= b->paths && b->penalized; i += 8) {
        uint64_t v;
        memcpy(&v, &b->penalty[i], 8);
        if (!v)
            continue;
        uint64_t y = (v | top) - dec * ones;
        uint64_t keep = ((y & top) >> 7) * 0xff; /* 0xff where pen >= dec */
        uint64_t r = y & low & keep;
        /* a byte b <= 0x7f is nonzero when b + 0x7f reaches the top bit */
        uint32_t were = (uint32_t)__builtin_popcountll(((v + low) | v) & top);
        uint32_t are = (uint32_t)__builtin_popcountll(((r + low) | r) & top);
        b->penalized -= were - are;
        memcpy(&b->penalty[i], &r, 8);
    }
    for (; i < b->paths && b->penalized; i++) {
        uint8_t pen = b->penalty[i];
        if (!pen)
            continue;
        if (pen > dec) {
            b->penalty[i] = (uint8_t)(pen - dec);
        } else {
            b->penalty[i] = 0;
            b->penalized--;
        }
    }
}

static inline void time_decay(struct bitmap_state *b, simtime_ps now)
{
    if (b->penalized == 0) {
        b->decay_clock = now; /* nothing to decay: restart the clock */
        return;
    }
    /* not a whole period since the clock (or the clock ahead of now) */
    if (now < b->decay_clock + BITMAP_DECAY_PS)
        return;
    time_decay_ticks(b, now);
}

static uint16_t bitmap_next(void *state, uint32_t seq, simtime_ps now)
{
    struct bitmap_state *b = state;
    (void)seq;
    time_decay(b, now);
    uint32_t ev = cycle_next(b);
    bool first = true;
    uint32_t skipped = 0;
    while (b->penalty[ev] > 0) {
        if (first) {
            /* htsim uec_mp: only the first skipped candidate decays */
            if (--b->penalty[ev] == 0)
                b->penalized--;
            first = false;
        }
        if (++skipped > b->paths)
            break; /* every entropy penalized: use this one */
        ev = cycle_next(b);
    }
    return (uint16_t)ev;
}

static void bitmap_feedback(void *state, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    struct bitmap_state *b = state;
    time_decay(b, now);
    uint8_t add;
    switch (sig) {
    case LB_ECN:
        add = BITMAP_PENALTY_ECN;
        break;
    case LB_NACK:
        add = BITMAP_PENALTY_NACK;
        break;
    case LB_TIMEOUT:
        if (ev == LB_EV_UNKNOWN)
            return; /* no entropy to blame */
        add = BITMAP_PENALTY_TIMEOUT;
        break;
    default:
        return; /* LB_GOOD: +0 */
    }
    if (ev >= b->paths)
        return;
    uint8_t pen = b->penalty[ev];
    if (pen == 0)
        b->penalized++;
    pen = (uint8_t)(pen + add);
    b->penalty[ev] = pen > BITMAP_MAX_PENALTY ? BITMAP_MAX_PENALTY : pen;
}

uint8_t lb_bitmap_penalty(const void *bitmap_state, uint16_t ev)
{
    const struct bitmap_state *b = bitmap_state;
    return ev < b->paths ? b->penalty[ev] : 0;
}

const struct lb_ops lb_bitmap_ops = {
    .name = "bitmap",
    .description = "Bitmap: oblivious XOR spraying that skips entropies penalized by ECN, NACK and timeouts (htsim uec_mp)",
    .state_size = LB_BITMAP_HEADER_MAX + LB_MAX_PATHS,
    .state_bytes = bitmap_state_bytes,
    .init = bitmap_init,
    .next_entropy = bitmap_next,
    .feedback = bitmap_feedback,
};
