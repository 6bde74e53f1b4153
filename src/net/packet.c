/* packet.c: the packet pool. Grows geometrically while a run warms up and
 * then recycles through its free list, so the steady state never mallocs.
 * Builds with checks also keep a byte per packet saying whether it is
 * allocated, so a double release or a use after release is caught where it
 * happens.
 */
#include "packet.h"

#include <stdlib.h>
#include <string.h>

/* Packets are 64 bytes: keep each in one cache line. */
static struct packet *alloc_aligned(uint32_t n)
{
    struct packet *p = aligned_alloc(64, (size_t)n * sizeof(struct packet));
    if (!p)
        die_internal("out of memory for %u packets", n);
    return p;
}

static void link_free_range(struct packet_pool *p, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        p->pkts[i].next = (i + 1 < to) ? i + 1 : p->free_head;
    p->free_head = from;
}

void pool_init(struct packet_pool *p, uint32_t initial_capacity)
{
    if (initial_capacity < 64)
        initial_capacity = 64;
    p->pkts = alloc_aligned(initial_capacity);
    memset(p->pkts, 0, (size_t)initial_capacity * sizeof(*p->pkts));
    p->capacity = initial_capacity;
    p->free_head = PKT_NONE;
    p->in_use = 0;
    p->peak_in_use = 0;
    link_free_range(p, 0, initial_capacity);
#ifdef SPRAYSIM_CHECKS
    p->live = xcalloc(initial_capacity, 1);
#endif
}

void pool_free(struct packet_pool *p)
{
#ifdef SPRAYSIM_CHECKS
    free(p->live);
    p->live = NULL;
#endif
    free(p->pkts);
    p->pkts = NULL;
    p->capacity = 0;
}

uint32_t pool_grow_and_alloc(struct packet_pool *p)
{
    uint32_t old = p->capacity;
    if (old >= UINT32_MAX / 2)
        die_internal("packet pool exhausted (%u packets)", old);
    uint32_t cap = old * 2;
    struct packet *np = alloc_aligned(cap);
    memcpy(np, p->pkts, (size_t)old * sizeof(*p->pkts));
    free(p->pkts);
    p->pkts = np;
    p->capacity = cap;
    link_free_range(p, old, cap);
#ifdef SPRAYSIM_CHECKS
    invariant(p->in_use == old, "pool grown with %u of %u packets in use: the free list lost some", p->in_use, old);
    p->live = xrealloc(p->live, cap);
    memset(p->live + old, 0, cap - old);
#endif
    return pkt_alloc(p);
}
