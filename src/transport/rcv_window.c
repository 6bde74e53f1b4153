/* rcv_window.c: the receive window's allocation and growth (rcv_window.h
 * has the per-packet operations). */
#include "rcv_window.h"

#include <stdlib.h>

void rcv_window_init(struct rcv_window *w, uint32_t n_pkts)
{
    uint32_t need = (n_pkts + 63) / 64, words = 1;
    while (words < need && words < RCV_WINDOW_INIT_WORDS)
        words *= 2;
    w->words = xcalloc(words, sizeof(uint64_t));
    w->mask = words - 1;
}

void rcv_window_free(struct rcv_window *w)
{
    free(w->words);
    w->words = NULL;
    w->mask = 0;
}

void rcv_window_grow(struct rcv_window *w, uint32_t cum, uint32_t seq)
{
    uint32_t old = w->mask + 1, words = old, first = cum >> 6;
    while ((seq >> 6) - first > words - 1) /* ends by 2^26 words: seq is 32 bits */
        words *= 2;
    uint64_t *nw = xcalloc(words, sizeof(uint64_t));
    for (uint32_t k = 0; k < old; k++) /* the ring's words, from cum's on */
        nw[(first + k) & (words - 1)] = w->words[(first + k) & (old - 1)];
    free(w->words);
    w->words = nw;
    w->mask = words - 1;
}
