/* rcv_bitmap.h: the one receive bitmap of a transport that keeps a whole
 * message's receive state (issue 21): one bit per packet of the message,
 * the cumulative point (every packet below it received) and the count of
 * distinct packets received, so duplicates are recognised and the first
 * gap found without each transport writing its own word arithmetic.
 *
 * A transport whose receive state is a window sized to the reordering
 * rather than to the message keeps rcv_window.h instead (UET, EQDS).
 */
#ifndef SPRAYSIM_RCV_BITMAP_H
#define SPRAYSIM_RCV_BITMAP_H

#include "../core/core.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct rcv_bitmap {
    uint64_t *bits;   /* bit q of word q/64: packet q received; NULL before init and after free */
    uint32_t n_pkts;  /* the message's packets */
    uint32_t cum;     /* every packet below it received */
    uint32_t count;   /* distinct packets received */
};

/* Room for a message of n_pkts packets, none received. */
static inline void rcv_bitmap_init(struct rcv_bitmap *b, uint32_t n_pkts)
{
    b->bits = xcalloc(((size_t)n_pkts + 63) / 64 ? ((size_t)n_pkts + 63) / 64 : 1, sizeof(uint64_t));
    b->n_pkts = n_pkts;
    b->cum = 0;
    b->count = 0;
}

static inline void rcv_bitmap_free(struct rcv_bitmap *b)
{
    free(b->bits);
    b->bits = NULL;
}

static inline bool rcv_bitmap_test(const struct rcv_bitmap *b, uint32_t q)
{
    invariant(q < b->n_pkts, "receive bitmap: packet %u of a %u-packet message", q, b->n_pkts);
    return (b->bits[q >> 6] >> (q & 63)) & 1;
}

/* The first packet at or after `from` not received yet; n_pkts when none. */
static inline uint32_t rcv_bitmap_next_missing(const struct rcv_bitmap *b, uint32_t from)
{
    if (from >= b->n_pkts)
        return b->n_pkts;
    uint32_t w = from >> 6;
    uint64_t missing = ~b->bits[w] & (~0ULL << (from & 63));
    uint32_t words = (b->n_pkts + 63) / 64;
    while (!missing && ++w < words)
        missing = ~b->bits[w];
    if (!missing)
        return b->n_pkts;
    uint32_t q = (w << 6) + (uint32_t)__builtin_ctzll(missing);
    return q < b->n_pkts ? q : b->n_pkts;
}

/* Packet q arrived: true when it is new (then counted, and the cumulative
 * point moved past it and whatever follows it already), false for a
 * duplicate, which changes nothing. */
static inline bool rcv_bitmap_set(struct rcv_bitmap *b, uint32_t q)
{
    if (rcv_bitmap_test(b, q))
        return false;
    b->bits[q >> 6] |= 1ULL << (q & 63);
    b->count++;
    if (q == b->cum)
        b->cum = rcv_bitmap_next_missing(b, q + 1);
    return true;
}

/* Every packet of the message received. */
static inline bool rcv_bitmap_complete(const struct rcv_bitmap *b)
{
    return b->count == b->n_pkts;
}

#endif
