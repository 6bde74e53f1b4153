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

#include <stdlib.h>
#include <string.h>

#define MIXED_FIFO 256

/* The FIFO holds entropies, which are below the flow's path count (every
 * entropy fed back is one this balancer chose): one byte each when there
 * are at most 256 paths, else two. Its storage starts at MIXED_FIFO_INIT
 * entries and doubles when full, up to MIXED_FIFO: it held at most 25
 * entries in the 1024-host permutation (docs/performance.md "Memory per host"), so a
 * flow's FIFO costs 32 bytes rather than 256 or 512. What it holds and
 * drops is the same at any size. */
#define MIXED_NARROW_PATHS 256u
#define MIXED_FIFO_INIT 8u

struct mixed_state {
    uint32_t head; /* oldest entry */
    uint32_t len;
    uint32_t cap;  /* entries of storage (a power of two up to MIXED_FIFO) */
    bool narrow;   /* entries are bytes (paths <= MIXED_NARROW_PATHS) */
    unsigned char *fifo; /* cap entries of 1 or 2 bytes; freed by mixed_release */
    max_align_t bitmap[]; /* the Bitmap state (lb_bitmap_ops) */
};

static bool narrow_for(const struct lb_params *p)
{
    return p->paths <= MIXED_NARROW_PATHS;
}

static size_t mixed_state_bytes(const struct lb_params *p)
{
    return sizeof(struct mixed_state) + lb_state_bytes(&lb_bitmap_ops, p);
}

static void mixed_init(void *state, const struct lb_params *p)
{
    struct mixed_state *m = state;
    m->head = 0;
    m->len = 0;
    m->cap = MIXED_FIFO_INIT;
    m->narrow = narrow_for(p);
    m->fifo = xcalloc(m->cap, m->narrow ? 1 : 2);
    lb_bitmap_ops.init(m->bitmap, p);
}

static void mixed_release(void *state)
{
    struct mixed_state *m = state;
    free(m->fifo);
    m->fifo = NULL;
}

static uint16_t fifo_get(const struct mixed_state *m, uint32_t i)
{
    if (m->narrow)
        return m->fifo[i];
    uint16_t ev;
    memcpy(&ev, m->fifo + 2 * (size_t)i, sizeof ev);
    return ev;
}

static void fifo_put(struct mixed_state *m, uint32_t i, uint16_t ev)
{
    invariant(!m->narrow || ev < MIXED_NARROW_PATHS, "Mixed: entropy %u fed back with at most %u paths", ev,
              MIXED_NARROW_PATHS);
    if (m->narrow)
        m->fifo[i] = (unsigned char)ev;
    else
        memcpy(m->fifo + 2 * (size_t)i, &ev, sizeof ev);
}

/* Full storage below MIXED_FIFO entries: doubles it, oldest entry first. */
static void fifo_grow(struct mixed_state *m)
{
    uint32_t cap = 2 * m->cap;
    size_t w = m->narrow ? 1 : 2;
    unsigned char *f = xmalloc(cap * w);
    for (uint32_t k = 0; k < m->len; k++)
        memcpy(f + k * w, m->fifo + ((m->head + k) & (m->cap - 1)) * w, w);
    free(m->fifo);
    m->fifo = f;
    m->cap = cap;
    m->head = 0;
}

static uint16_t mixed_next(void *state, uint32_t seq, simtime_ps now)
{
    struct mixed_state *m = state;
    if (m->len > 0) {
        uint16_t ev = fifo_get(m, m->head);
        m->head = (m->head + 1) & (m->cap - 1);
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
        m->head = (m->head + 1) & (m->cap - 1);
        m->len--;
    } else if (m->len == m->cap) {
        fifo_grow(m);
    }
    fifo_put(m, (m->head + m->len) & (m->cap - 1), ev);
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
    .state_size = sizeof(struct mixed_state) + LB_BITMAP_HEADER_MAX + LB_MAX_PATHS,
    .release = mixed_release,
    .state_bytes = mixed_state_bytes,
    .init = mixed_init,
    .next_entropy = mixed_next,
    .feedback = mixed_feedback,
};
