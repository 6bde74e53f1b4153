/* rcv_window.h: a receiver's reassembly bitmap sized to the reordering it
 * sees, not to the flow (issue 14: a 1 GB flow costs what a 2 MB one does).
 *
 * One bit per packet for the packets from the cumulative point `cum` (the
 * next expected packet) on, kept in a ring of 64-bit words: packet seq's bit
 * is bit seq % 64 of word (seq / 64) mod the ring's size. The ring covers
 * the words from cum's on; a packet beyond them doubles it (the words keep
 * their packets), and the words cum leaves behind are cleared for reuse.
 * Every packet below cum counts as received, as in a whole-flow bitmap
 * (cum only moves over received packets). UET and EQDS receivers use it;
 * the word count starts at what the flow needs, up to RCV_WINDOW_INIT_WORDS
 * (128 packets).
 */
#ifndef SPRAYSIM_RCV_WINDOW_H
#define SPRAYSIM_RCV_WINDOW_H

#include "../core/core.h"

#define RCV_WINDOW_INIT_WORDS 2u

struct rcv_window {
    uint64_t *words; /* NULL until rcv_window_init */
    uint32_t mask;   /* words in the ring - 1 (a power of two - 1) */
};

/* An empty window for a flow of n_pkts packets. */
void rcv_window_init(struct rcv_window *w, uint32_t n_pkts);
void rcv_window_free(struct rcv_window *w);
/* Doubles the ring until packet seq's word fits (seq >= cum). */
void rcv_window_grow(struct rcv_window *w, uint32_t cum, uint32_t seq);

/* Whether packet seq has arrived, with cum the cumulative point. */
static inline bool rcv_window_has(const struct rcv_window *w, uint32_t cum, uint32_t seq)
{
    if (seq < cum)
        return true;
    uint32_t word = seq >> 6;
    if (word - (cum >> 6) > w->mask)
        return false; /* beyond the ring: nothing there has arrived */
    return (w->words[word & w->mask] >> (seq & 63)) & 1;
}

/* Word `word` of the bitmap (packets 64 word .. 64 word + 63) as a
 * whole-flow bitmap would hold it, for a word at or above cum's: 0 beyond
 * the ring. */
static inline uint64_t rcv_window_word(const struct rcv_window *w, uint32_t cum, uint32_t word)
{
    if (word - (cum >> 6) > w->mask)
        return 0;
    return w->words[word & w->mask];
}

/* The arrival bits of packets base .. base + 63 (bit i: packet base + i),
 * base above cum: a selective ACK's bitmap in two word reads, not 64 bit
 * tests. Bits of packets past the flow's end are 0 (never set). */
static inline uint64_t rcv_window_bits64(const struct rcv_window *w, uint32_t cum, uint32_t base)
{
    invariant(base >= cum, "receive window: bitmap from %u below the cumulative point %u", base, cum);
    uint32_t word = base >> 6, shift = base & 63;
    uint64_t bits = rcv_window_word(w, cum, word) >> shift;
    if (shift)
        bits |= rcv_window_word(w, cum, word + 1) << (64 - shift);
    return bits;
}

/* Marks packet seq (at or above cum) as arrived. */
static inline void rcv_window_set(struct rcv_window *w, uint32_t cum, uint32_t seq)
{
    invariant(seq >= cum, "receive window: packet %u set below the cumulative point %u", seq, cum);
    if ((seq >> 6) - (cum >> 6) > w->mask)
        rcv_window_grow(w, cum, seq);
    w->words[(seq >> 6) & w->mask] |= 1ULL << (seq & 63);
}

/* The cumulative point moved from old_cum to new_cum: clears the words
 * wholly below new_cum, which the ring reuses for later packets. */
static inline void rcv_window_advance(struct rcv_window *w, uint32_t old_cum, uint32_t new_cum)
{
    for (uint32_t word = old_cum >> 6; word < (new_cum >> 6); word++)
        w->words[word & w->mask] = 0;
}

/* The new cumulative point of a flow of n_pkts packets whose cumulative
 * point was cum: past every packet that has arrived in a row from cum
 * (the words left behind cleared). The ring is tested against cum, where
 * it starts, not against the moving point: when every packet the ring
 * covers has arrived, the next word's slot is cum's own word, still full
 * of the packets just passed, and a walk that moved the ring's start with
 * it read those bits as later packets and ran on to the flow's end (a
 * flow reported complete with packets missing; test
 * test_receive_window_full_ring_walk). */
static inline uint32_t rcv_window_walk(struct rcv_window *w, uint32_t cum, uint32_t n_pkts)
{
    uint32_t next = cum;
    while (next < n_pkts && rcv_window_has(w, cum, next))
        next++;
    rcv_window_advance(w, cum, next);
    return next;
}

#endif
