/* mixed.c: the Mixed load balancer, the UE reference simulator's default
 * (htsim uec_mp, UecMpMixed; seed 002 Sec. 7: "a hybrid of Bitmap and REPS.
 * It combines penalty-based avoidance with path recycling").
 *
 * Every feedback goes to both halves:
 *  - a recycler (htsim uec_mp UecMpRepsLegacy): a FIFO of the entropies of
 *    clean ACKs (LB_GOOD, which includes last-hop trims), each reused once;
 *  - a Bitmap balancer (bitmap.c), whose penalties rise with ECN, NACK and
 *    timeouts.
 * The next entropy is the oldest recycled one if there is any
 * (UecMpRepsLegacy::nextEntropyRecycle), otherwise Bitmap's choice, which
 * also runs Bitmap's skip decay. Recycled entropies are used as they come,
 * penalized or not, as in htsim. (UecMpRepsLegacy's own first-window round
 * robin is not part of Mixed in htsim, so there is none here either.)
 *
 * htsim's FIFO is unbounded; ours keeps the newest MIXED_FIFO entries (256)
 * and drops the oldest when full, so the state is fixed-size and a stale
 * entropy from long ago is not reused. Every send consumes one entry and
 * every ACK adds at most one, so the FIFO only fills when many ACKs arrive
 * while the sender cannot send.
 */
#include "lb.h"

#define MIXED_FIFO 256

/* The FIFO holds entropies, which are below the flow's path count (every
 * entropy fed back is one this balancer chose): one byte each when there
 * are at most 256 paths (the default 256-entry FIFO then costs 256 bytes
 * per flow, not 512), else two. */
#define MIXED_NARROW_PATHS 256u

struct mixed_state {
    uint32_t head; /* oldest entry */
    uint32_t len;
    bool narrow;   /* entries are bytes (paths <= MIXED_NARROW_PATHS) */
    uint32_t fifo_off; /* the FIFO's offset from bitmap, in bytes */
    max_align_t bitmap[]; /* the Bitmap state (lb_bitmap_ops), then the FIFO */
};

static size_t bitmap_bytes(const struct lb_params *p)
{
    size_t b = lb_state_bytes(&lb_bitmap_ops, p);
    return (b + sizeof(uint16_t) - 1) / sizeof(uint16_t) * sizeof(uint16_t);
}

static bool narrow_for(const struct lb_params *p)
{
    return p->paths <= MIXED_NARROW_PATHS;
}

static size_t mixed_state_bytes(const struct lb_params *p)
{
    return sizeof(struct mixed_state) + bitmap_bytes(p) + MIXED_FIFO * (narrow_for(p) ? 1 : 2);
}

static void mixed_init(void *state, const struct lb_params *p)
{
    struct mixed_state *m = state;
    m->head = 0;
    m->len = 0;
    m->narrow = narrow_for(p);
    m->fifo_off = (uint32_t)bitmap_bytes(p);
    lb_bitmap_ops.init(m->bitmap, p);
}

static uint16_t fifo_get(const struct mixed_state *m, uint32_t i)
{
    const unsigned char *f = (const unsigned char *)m->bitmap + m->fifo_off;
    return m->narrow ? f[i] : ((const uint16_t *)(const void *)f)[i];
}

static void fifo_put(struct mixed_state *m, uint32_t i, uint16_t ev)
{
    unsigned char *f = (unsigned char *)m->bitmap + m->fifo_off;
    invariant(!m->narrow || ev < MIXED_NARROW_PATHS, "Mixed: entropy %u fed back with at most %u paths", ev,
              MIXED_NARROW_PATHS);
    if (m->narrow)
        f[i] = (unsigned char)ev;
    else
        ((uint16_t *)(void *)f)[i] = ev;
}

static uint16_t mixed_next(void *state, uint32_t seq, simtime_ps now)
{
    struct mixed_state *m = state;
    if (m->len > 0) {
        uint16_t ev = fifo_get(m, m->head);
        m->head = (m->head + 1) % MIXED_FIFO;
        m->len--;
        return ev;
    }
    return lb_bitmap_ops.next_entropy(m->bitmap, seq, now);
}

static void mixed_feedback(void *state, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    struct mixed_state *m = state;
    lb_bitmap_ops.feedback(m->bitmap, ev, sig, now);
    if (sig != LB_GOOD)
        return;
    if (m->len == MIXED_FIFO) { /* full: drop the oldest */
        m->head = (m->head + 1) % MIXED_FIFO;
        m->len--;
    }
    fifo_put(m, (m->head + m->len) % MIXED_FIFO, ev);
    m->len++;
}

uint8_t lb_mixed_penalty(const void *mixed_state, uint16_t ev)
{
    const struct mixed_state *m = mixed_state;
    return lb_bitmap_penalty(m->bitmap, ev);
}

const struct lb_ops lb_mixed_ops = {
    .name = "mixed",
    .description = "Mixed: reuse clean-ACK entropies, else Bitmap's choice (htsim uec_mp, its default)",
    .state_size = sizeof(struct mixed_state) + LB_BITMAP_HEADER_MAX + LB_MAX_PATHS + 2 * MIXED_FIFO,
    .state_bytes = mixed_state_bytes,
    .init = mixed_init,
    .next_entropy = mixed_next,
    .feedback = mixed_feedback,
};
