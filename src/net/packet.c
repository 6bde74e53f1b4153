/* packet.c: the packet pool. Grows while a run warms up and then recycles
 * through its free stack, so the steady state never allocates.
 *
 * Memory: the pool reserves address space for POOL_RESERVE_PKTS packets up
 * front (an anonymous mapping with no swap reserved: pages cost memory only
 * once touched) and grows in place, adding a step of 1/64 of what it holds
 * (at least 64 packets) whenever no packet is free. So its resident
 * memory is the run's peak of packets in use plus at most 1.6%, never a copy:
 * before, it was an array that doubled by copying, which held up to twice
 * the peak and, while growing, the old array as well (48 MB for 24 MB of
 * packets at 8192 hosts). The packets handed out are the same, in the same
 * order, whatever the step: a grown range is made free in ascending order
 * only when no packet is free. Where the reservation fails (a strict
 * overcommit policy) or fills up, the pool falls back to the doubling heap
 * array.
 *
 * Builds with checks also keep a byte per packet saying whether it is
 * allocated, so a double release or a use after release is caught where it
 * happens.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "packet.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* 2^26 packets: 4 GiB of address space, 0.4% of x86-64's user half. */
#define POOL_RESERVE_PKTS (1u << 26)

/* Packets are 64 bytes: keep each in one cache line. */
static struct packet *alloc_aligned(uint32_t n)
{
    struct packet *p = aligned_alloc(64, (size_t)n * sizeof(struct packet));
    if (!p)
        die_internal("out of memory for %u packets", n);
    return p;
}

/* Address space for n packets, untouched (so it reads as zeros), or NULL. */
static struct packet *reserve(uint32_t n)
{
    void *m = mmap(NULL, (size_t)n * sizeof(struct packet), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

/* Packets from .. to - 1 become free, above those already free, so they
 * are handed out in ascending order (as the list this stack replaced
 * did). The stack grows with the pool: it can hold every packet. */
static void link_free_range(struct packet_pool *p, uint32_t from, uint32_t to)
{
    p->free_stack = xrealloc(p->free_stack, (size_t)to * sizeof(uint32_t));
    for (uint32_t i = to; i-- > from;)
        p->free_stack[p->free_len++] = i;
}

#ifdef SPRAYSIM_CHECKS
/* The live bytes cover [0, capacity), grown geometrically. */
static void live_fit(struct packet_pool *p, uint32_t old, uint32_t cap)
{
    if (cap > p->live_cap) {
        uint32_t n = p->live_cap ? p->live_cap : 64;
        while (n < cap)
            n = n > UINT32_MAX / 2 ? UINT32_MAX : 2 * n;
        p->live = xrealloc(p->live, n);
        p->live_cap = n;
    }
    memset(p->live + old, 0, cap - old);
}
#endif

void pool_init(struct packet_pool *p, uint32_t initial_capacity)
{
    if (initial_capacity < 64)
        initial_capacity = 64;
    p->pkts = initial_capacity <= POOL_RESERVE_PKTS ? reserve(POOL_RESERVE_PKTS) : NULL;
    p->reserved = p->pkts ? POOL_RESERVE_PKTS : 0;
    if (!p->pkts) {
        p->pkts = alloc_aligned(initial_capacity);
        memset(p->pkts, 0, (size_t)initial_capacity * sizeof(*p->pkts));
    }
    p->capacity = initial_capacity;
    p->free_stack = NULL;
    p->free_len = 0;
    p->in_use = 0;
    p->peak_in_use = 0;
    link_free_range(p, 0, initial_capacity);
#ifdef SPRAYSIM_CHECKS
    p->live = NULL;
    p->live_cap = 0;
    live_fit(p, 0, initial_capacity);
#endif
}

void pool_free(struct packet_pool *p)
{
#ifdef SPRAYSIM_CHECKS
    free(p->live);
    p->live = NULL;
    p->live_cap = 0;
#endif
    if (p->reserved)
        munmap(p->pkts, (size_t)p->reserved * sizeof(struct packet));
    else
        free(p->pkts);
    p->pkts = NULL;
    p->capacity = 0;
    p->reserved = 0;
    free(p->free_stack);
    p->free_stack = NULL;
    p->free_len = 0;
}

uint32_t pool_grow_and_alloc(struct packet_pool *p)
{
    uint32_t old = p->capacity;
    if (old >= UINT32_MAX / 2)
        die_internal("packet pool exhausted (%u packets)", old);
    uint32_t step = old / 64 > 64 ? old / 64 : 64;
    if (p->reserved && p->reserved - old >= step) {
        p->capacity = old + step; /* in place: the reserved pages are touched as packets are used */
    } else {
        uint32_t cap = old * 2;
        struct packet *np = alloc_aligned(cap);
        memcpy(np, p->pkts, (size_t)old * sizeof(*p->pkts));
        if (p->reserved)
            munmap(p->pkts, (size_t)p->reserved * sizeof(struct packet));
        else
            free(p->pkts);
        p->reserved = 0;
        p->pkts = np;
        p->capacity = cap;
    }
    link_free_range(p, old, p->capacity);
#ifdef SPRAYSIM_CHECKS
    invariant(p->in_use == old, "pool grown with %u of %u packets in use: the free stack lost some", p->in_use, old);
    live_fit(p, old, p->capacity);
#endif
    return pkt_alloc(p);
}
