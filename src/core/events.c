/* events.c: the event queue: a FIFO per frequent delay, merged by a sorted
 * array of their first events.
 *
 * A packet simulator schedules almost every event a fixed delay after the
 * event it is handling: a link's latency, the serialisation of a full data
 * packet or of an ACK on a link of one speed (an outside profile of the
 * 1024-node permutation found 99.87% of delays to be one of three values).
 * The clock only moves forward, so the events pushed with one delay arrive
 * already in (time, insertion sequence) order: a FIFO per distinct delay
 * holds them sorted for free, and an array of the FIFOs' oldest events (a
 * handful), kept sorted, gives the earliest. A push finds its delay's FIFO
 * through a small table indexed by a hash of the delay (a scan of the
 * FIFOs when the table's entry is another delay's). Nothing is ever sorted
 * or copied between buckets: the calendar this replaces (buckets sorted by
 * qsort when reached) spent about half of each event's instructions on that.
 *
 * Up to EQ_FIFOS delays (with classes, below: delay and class pairs) get a
 * FIFO. A delay that has no FIFO but missed
 * recently (a repeat: timeouts, whose delays rarely repeat, never get one)
 * takes a free FIFO, or an empty one that was used least recently
 * (`pushes`, which decays by 1/16 on each such take, so FIFOs of rare
 * delays are given up first); every other event goes to a 4-ary heap of
 * "other" events, as does an event scheduled before the latest popped one
 * (never done by the simulator, allowed for generality).
 * A pop takes the earlier of the earliest FIFO head and the other heap's top
 * (its key kept beside the heap, so one compare decides).
 * Keys compare as one 128-bit number, time << 64 | seq << 8 | kind (core.h
 * ev_key; sequences are unique, so this is the (time, seq) order).
 *
 * Order: every event carries a sequence number, all three structures
 * order by (time, seq), so simultaneous events run in sequence order
 * whatever structure holds them, and the order never depends on which
 * delays have FIFOs (tests/test_core.c runs the same pushes with 0 to
 * EQ_FIFOS FIFOs and compares). The owner may set the next sequence before
 * a push (the simulator numbers events per node, so that a parallel run
 * orders ties as a single process does: sim.h sim_set_origin, docs/parallel.md
 * "Parallel runs (MPI)"). A push with delay d at clock `now_ps` (the latest
 * popped time, never decreasing) lands at or after the time of every
 * earlier push with delay d, but at an equal time its sequence may be
 * smaller: the events that run at one instant schedule in the order of
 * their own keys, and the key of what each schedules is numbered by
 * another counter (measured: 4.5% of pushes on the 128-node permutation,
 * 12% at 1024 nodes, by about 4 places on average). Such an event
 * is inserted where it belongs among the FIFO's last events, moving at most
 * EQ_INSERT_MAX_MOVES of them; one that would move more, or become the
 * FIFO's oldest (the key the heads array holds), goes to the other heap. So
 * every FIFO stays sorted by (time, seq) whatever the sequences pushed.

 * Classes: the owner may give the pushes made while events of some kinds
 * are handled FIFOs of their own (eq_set_kind_class), apart from other
 * pushes of the same delay. The simulator does so for packet arrivals: the
 * arrivals of one instant run in the order of their senders' keys but
 * number what they schedule (a departure, when the port was idle) from the
 * receiving node's counter, so their pushes come out of sequence order,
 * while the departures of one instant run at their own node in key order
 * and schedule in order. Kept apart, the departures' FIFOs need no
 * insertions, and the arrivals' need fewer: on the 1024-node permutation
 * 943,415 of 7.86 M pushes sorted before their FIFO's last event, 87,176
 * with classes (6.7% fewer instructions, 1.5% fewer on the 128-node one;
 * 0.6% more on the 1023-to-1 incast, whose arrivals' FIFOs take more
 * insertions than the mixed ones did; callgrind). The order of pops never
 * depends on the classes, only where events wait.

 * The push's common case is inline at its callers (core.h eq_push_aux;
 * 4.8% fewer instructions on the permutations than a call, which saved
 * five registers), the rest here (eq_push_slow). Measured and not kept
 * (callgrind, docs/performance.md "Performance", third round): the empty FIFO's first
 * push inline too (+0.8-3.6%: callers spill around its call), the slow push
 * handed the FIFO the inline one found (+3-5%: the larger inline push
 * changed gcc's inlining elsewhere), the pop inline in core.h (+0.5%),
 * counting a FIFO's use on the slow path only (-0.05%: not worth a change
 * of which FIFO a new delay takes).

 * Imports: a parallel run hands in other processes' arrivals with their
 * senders' keys (eq_push_import). Their delays from this clock vary, so no
 * delay's FIFO fits them, but from one sender they come in time order: a
 * FIFO of their own (EQ_IMPORT_FIFO, after the delays') takes each that
 * sorts after its last, the heap the rest (ties, a second sender's).

 * Invariants (checked with SPRAYSIM_CHECKS): each FIFO is in (time, seq)
 * order where an event is inserted; when the owner declares its clock monotonic, as the simulator
 * does, nothing is scheduled before the latest event popped, and events
 * come out in non-decreasing time.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

static inline bool ev_before(const struct event *a, const struct event *b)
{
    return ev_key(a) < ev_key(b);
}

static void vec_reserve(struct event_vec *v, uint32_t need)
{
    if (need <= v->cap)
        return;
    uint32_t cap = v->cap ? v->cap : 16;
    while (cap < need)
        cap *= 2;
    v->ev = xrealloc(v->ev, (size_t)cap * sizeof(struct event));
    v->cap = cap;
}

/* ---- 4-ary heap for events of no FIFO's delay -------------------------------- */

static void qheap_push(struct event_vec *h, const struct event *e)
{
    vec_reserve(h, h->len + 1);
    uint32_t i = h->len++;
    while (i > 0) {
        uint32_t parent = (i - 1) >> 2;
        if (!ev_before(e, &h->ev[parent]))
            break;
        h->ev[i] = h->ev[parent];
        i = parent;
    }
    h->ev[i] = *e;
}

static void qheap_pop(struct event_vec *h, struct event *out)
{
    struct event *a = h->ev;
    *out = a[0];
    struct event last = a[--h->len];
    uint32_t n = h->len, i = 0;
    for (;;) {
        uint32_t c = 4 * i + 1;
        if (c >= n)
            break;
        uint32_t best = c, end = c + 4 < n ? c + 4 : n;
        for (uint32_t j = c + 1; j < end; j++)
            if (ev_before(&a[j], &a[best]))
                best = j;
        if (!ev_before(&a[best], &last))
            break;
        a[i] = a[best];
        i = best;
    }
    if (n > 0)
        a[i] = last;
}

/* ---- the FIFO heads, sorted -------------------------------------------------------- */

static inline bool head_before(const struct eq_head *a, const struct eq_head *b)
{
    return a->key < b->key;
}

static inline struct eq_head head_of(const struct ev_fifo *f, uint32_t idx)
{
    const struct event *e = &f->ev[f->head];
    return (struct eq_head){.key = (eq_key)e->time_ps << 64 | (e->order & ~(uint64_t)0xff) | idx};
}

/* The heads are kept sorted, latest first, so the earliest is the last
 * (heads_top). A FIFO's new head moves in from the end past
 * the heads that are earlier: the frequent delays' heads are the earliest
 * and take one to three compares, while the heads of rare delays' FIFOs
 * (timeouts: in the 1023-to-1 incast, 12 of its 16 FIFOs) lie at the front
 * and are passed only when they come due. A binary heap sifted through
 * them on every pop: 5.9% more instructions on that incast, 2.5% on the
 * 1024-node permutation (callgrind). */
static inline __attribute__((always_inline)) void heads_place(struct eq_head *p, struct eq_head h)
{
    /* heads[0], later than any event, ends the walk. A pointer, not an
     * index: gcc recomputed the index's address twice per step (15
     * instructions a step against 7). */
    while (head_before(p - 1, &h)) {
        *p = p[-1];
        p--;
    }
    *p = h;
}

/* The earliest head; heads[0], the sentinel, when every FIFO is empty.
 * Found by a byte offset, not a count: with the simulator's queue at a
 * fixed address the offset is the whole address computation (a count took
 * three more instructions, twice per pop). */
static inline struct eq_head *heads_top(struct event_queue *q)
{
    return (struct eq_head *)((char *)q->heads + q->top_bytes);
}

static inline eq_key heads_top_key(const struct event_queue *q)
{
    return ((const struct eq_head *)((const char *)q->heads + q->top_bytes))->key;
}

static void heads_push(struct event_queue *q, struct eq_head h)
{
    q->top_bytes += (uint32_t)sizeof(struct eq_head);
    heads_place(heads_top(q), h);
}

/* Puts h in place of the earliest head (a FIFO's next event after its
 * first was popped). Inlined into the pop: a call per event cost 2.6% of
 * the instructions (callgrind). */
static inline __attribute__((always_inline)) void heads_replace_top(struct event_queue *q, struct eq_head h)
{
    heads_place(heads_top(q), h);
}

static void heads_pop_top(struct event_queue *q)
{
    q->top_bytes -= (uint32_t)sizeof(struct eq_head);
}

/* The other heap, with its top's key kept beside it (EQ_KEY_NONE when
 * empty) so a pop compares two keys without testing for emptiness. */
static void other_push(struct event_queue *q, const struct event *e)
{
    qheap_push(&q->other, e);
    q->other_top = ev_key(q->other.ev);
}

static void other_pop(struct event_queue *q, struct event *out)
{
    qheap_pop(&q->other, out);
    q->other_top = q->other.len ? ev_key(q->other.ev) : EQ_KEY_NONE;
}

/* ---- the FIFOs ------------------------------------------------------------------------ */

/* Doubles a full ring in place (realloc: large rings move by remapping,
 * so the old and new copies never coexist, which held about 270 bytes per
 * host at the 1024-node permutation's peak); the part that wrapped to the
 * front moves to just past the old end, so every event keeps its index
 * (head + k) under the new mask. */
static void fifo_grow(struct ev_fifo *f)
{
    uint32_t old = f->cap, cap = old ? 2 * old : 64;
    if (cap == 0)
        die_internal("event queue: more than 2^31 events of one delay");
    f->ev = xrealloc(f->ev, (size_t)cap * sizeof(struct event));
    if (old && f->head + f->len > old)
        memcpy(f->ev + old, f->ev, (size_t)(f->head + f->len - old) * sizeof(struct event));
    f->cap = cap;
    f->mask = cap - 1;
}

static void fifo_append(struct ev_fifo *f, const struct event *e)
{
    if (f->len == f->cap)
        fifo_grow(f);
    f->ev[(f->head + f->len) & f->mask] = *e;
    f->len++;
}

/* An event of the FIFO's delay that sorts before its last event (same
 * time, smaller sequence: see "Order" above) is moved in among its last
 * events. At most 32 moves placed 99% of such events on the 128-node
 * permutation and 92% at 1024 nodes (1% of all pushes go to the other heap
 * there); a longer move (a burst of events at one instant scheduled
 * against their keys' order) would cost more than the other heap. */
#define EQ_INSERT_MAX_MOVES 32

/* Inserts e into f, whose last event is after it, where (time, seq) order
 * puts it; false, with f unchanged, when that would move more than
 * EQ_INSERT_MAX_MOVES events or put e first (the heads array holds the first
 * event's key). */
static bool fifo_insert(struct ev_fifo *f, const struct event *e)
{
    /* Only events of e's time can follow it (no event of a FIFO is later
     * than its last, which ties with e), so the scan compares sequences
     * while the times are equal. */
    const simtime_ps t = e->time_ps;
    const uint64_t seq = e->seq;
    const uint32_t h = f->head, m = f->mask, n = f->len;
    /* e may not land at `stop`: first place, or one move too many */
    const uint32_t stop = n > EQ_INSERT_MAX_MOVES + 1 ? n - EQ_INSERT_MAX_MOVES - 1 : 0;
    uint32_t k = n - 1; /* e goes before position k */
    for (;;) {
        if (k == stop)
            return false; /* it would move more than the bound, or come first */
        const struct event *prev = &f->ev[(h + k - 1) & m];
        if (prev->time_ps != t || prev->seq < seq)
            break;
        k--;
    }
    if (n == f->cap)
        fifo_grow(f);
    struct event *ev = f->ev;
    const uint32_t hh = f->head, mm = f->mask; /* growing moved the ring */
    for (uint32_t j = n; j > k; j--)
        ev[(hh + j) & mm] = ev[(hh + j - 1) & mm];
    ev[(hh + k) & mm] = *e;
    f->len = n + 1;
    invariant(!ev_before(e, &ev[(hh + k - 1) & mm]) && ev_before(e, &ev[(hh + k + 1) & mm]),
              "event kind %u id %u at %llu ps inserted out of (time, seq) order", (unsigned)e->kind, e->id,
              (unsigned long long)e->time_ps);
    return true;
}

/* A delay no FIFO holds. Only a delay that missed before, among the last
 * EQ_RECENT_MISSES misses, gets a FIFO: timeouts, whose delays rarely
 * repeat, would otherwise hold FIFOs for a long time and lengthen the
 * heads array for nothing. The FIFO is one never used, else the empty one with the
 * least recent use; -1 keeps the event in the other heap. */
static int fifo_take(struct event_queue *q, uint64_t fkey)
{
    bool repeat = false;
    for (uint32_t k = 0; k < EQ_RECENT_MISSES; k++)
        repeat |= q->recent_miss[k] == fkey;
    if (!repeat) {
        q->recent_miss[q->miss_slot++ % EQ_RECENT_MISSES] = fkey;
        return -1;
    }
    int best = -1;
    if (q->nfifos < q->max_fifos) {
        best = (int)q->nfifos++;
    } else {
        for (uint32_t i = 0; i < q->nfifos; i++) {
            struct ev_fifo *f = &q->fifo[i];
            f->pushes -= f->pushes >> 4;
            if (f->len == 0 && (best < 0 || f->pushes < q->fifo[best].pushes))
                best = (int)i;
        }
        if (best < 0)
            return -1;
    }
    q->fifo_key[best] = fkey;
    q->fifo[best].pushes = 0;
    return best;
}

/* ---- the queue ---------------------------------------------------------------------- */

void eq_init(struct event_queue *q, size_t initial_capacity)
{
    (void)initial_capacity;
    memset(q, 0, sizeof(*q));
    q->heads[0].key = EQ_KEY_NONE;
    q->other_top = EQ_KEY_NONE;
    q->seq_next = &q->next_seq;
    eq_set_fifos(q, EQ_FIFOS);
}

void eq_set_fifos(struct event_queue *q, uint32_t n)
{
    if (eq_count(q))
        die_internal("event queue FIFOs changed while events are pending");
    q->max_fifos = n < EQ_FIFOS ? n : EQ_FIFOS;
    for (uint32_t k = 0; k < EQ_RECENT_MISSES; k++)
        q->recent_miss[k] = EQ_NO_KEY;
    q->nfifos = 0; /* the rings stay allocated for reuse; eq_free frees them */
    for (uint32_t i = 0; i < EQ_FIFOS; i++)
        q->fifo_key[i] = EQ_NO_KEY;
    memset(q->fifo_slot, 0, sizeof q->fifo_slot);
}

void eq_set_kind_class(struct event_queue *q, uint32_t kind, uint32_t cls)
{
    if (kind > 63 || cls > 1)
        die_internal("event queue: kind %u (at most 63) or class %u (0 or 1) out of range", kind, cls);
    for (uint32_t k = kind; k < 256; k += 64)
        q->kind_class[k] = (uint8_t)cls;
}

void eq_free(struct event_queue *q)
{
    for (uint32_t i = 0; i < EQ_ALL_FIFOS; i++)
        free(q->fifo[i].ev);
    free(q->other.ev);
    memset(q, 0, sizeof(*q));
}

void eq_push_import(struct event_queue *q, simtime_ps time_ps, uint64_t seq, uint32_t kind, uint32_t id, uint32_t aux)
{
    invariant(!q->monotonic || time_ps >= q->last_pop_ps,
              "imported event kind %u id %u at %llu ps, before the current %llu ps", kind, id,
              (unsigned long long)time_ps, (unsigned long long)q->last_pop_ps);
    const struct event e = {.time_ps = time_ps, .order = (seq & ((1ULL << 56) - 1)) << 8 | (kind & 0xff), .id = id,
                            .aux = aux};
    q->pushed_total++;
    struct ev_fifo *f = &q->fifo[EQ_IMPORT_FIFO];
    if (f->len && !ev_before(&f->ev[(f->head + f->len - 1) & f->mask], &e)) {
        other_push(q, &e); /* out of order (another sender's, or a tie): the heap keeps it in place */
        return;
    }
    fifo_append(f, &e);
    if (f->len == 1)
        heads_push(q, head_of(f, EQ_IMPORT_FIFO));
}

/* The rarer part of a push, out of line so the common one (a delay with a
 * FIFO whose ring has room, and an event that sorts after the FIFO's last)
 * stays short: growing a ring, an insertion, giving a delay a FIFO, or the
 * other heap. i is the FIFO of the event's delay, or -1. */
static __attribute__((noinline)) void push_slow(struct event_queue *q, const struct event *e, int i)
{
    if (i < 0 && e->time_ps >= q->now_ps && e->time_ps - q->now_ps < EQ_FIFO_DELAY_LIMIT_PS) {
        /* the slot may point elsewhere (two keys share it): look for the
         * key's FIFO, and point the slot at it */
        uint64_t fkey = eq_fifo_key(e->time_ps - q->now_ps, q->pop_class);
        for (uint32_t k = 0; k < q->nfifos && i < 0; k++)
            if (q->fifo_key[k] == fkey)
                i = (int)k;
        if (i < 0)
            i = fifo_take(q, fkey);
        if (i >= 0)
            q->fifo_slot[eq_fifo_slot(fkey)] = (uint8_t)i;
    }
    if (i < 0) {
        other_push(q, e);
        return;
    }
    struct ev_fifo *f = &q->fifo[i];
    const struct event *last = f->len ? &f->ev[(f->head + f->len - 1) & f->mask] : NULL;
    if (last && e->time_ps < last->time_ps) {
        /* a push before now_ps whose delay wrapped around to a small one,
         * possible only when now_ps is within 2^55 ps of 2^64; any other
         * push before a FIFO's last event means a clock that went back */
        invariant(e->time_ps < q->now_ps, "event kind %u id %u at %llu ps appended to a FIFO whose last event is later",
                  (unsigned)e->kind, e->id, (unsigned long long)e->time_ps);
        other_push(q, e);
        return;
    }
    if (last && ev_before(e, last)) {
        if (fifo_insert(f, e))
            f->pushes++;
        else
            other_push(q, e);
        return; /* the FIFO's first event is unchanged */
    }
    f->pushes++;
    fifo_append(f, e);
    if (f->len == 1)
        heads_push(q, head_of(f, (uint32_t)i));
}

/* The rest of eq_push_slow, out of line so that its common case (below)
 * saves no registers: a full ring, an event that sorts before its FIFO's
 * last, a delay whose slot names another FIFO or none. */
static __attribute__((noinline)) void push_rare(struct event_queue *q, simtime_ps time_ps, uint64_t order, uint32_t id,
                                                uint32_t aux)
{
    simtime_ps delay_ps = time_ps - q->now_ps; /* wraps: see eq_push_aux */
    uint64_t fkey = eq_fifo_key(delay_ps, q->pop_class);
    uint32_t i = q->fifo_slot[eq_fifo_slot(fkey)];
    struct event e = {.time_ps = time_ps, .order = order, .id = id, .aux = aux};
    push_slow(q, &e, delay_ps < EQ_FIFO_DELAY_LIMIT_PS && q->fifo_key[i] == fkey ? (int)i : -1);
}

/* Everything core.h's inline eq_push_aux leaves. The common case here is
 * an empty FIFO's first event, which becomes a head (on the 1023-to-1
 * incast, 1.0 M of its 1.24 M slow pushes); the rest is push_rare's. */
__attribute__((noinline)) void eq_push_slow(struct event_queue *q, simtime_ps time_ps, uint64_t order, uint32_t id,
                                              uint32_t aux)
{
    simtime_ps delay_ps = time_ps - q->now_ps; /* wraps: see eq_push_aux */
    uint64_t fkey = eq_fifo_key(delay_ps, q->pop_class);
    uint32_t i = q->fifo_slot[eq_fifo_slot(fkey)];
    if (delay_ps < EQ_FIFO_DELAY_LIMIT_PS && q->fifo_key[i] == fkey) {
        struct ev_fifo *f = &q->fifo[i];
        if (f->len == 0 && f->cap) {
            /* Written in place (built on the stack and copied, perf put 92%
             * of the push's cycles at 8192 nodes on reading it back); the
             * head's key from the values, not read back from the ring. */
            struct event *slot = &f->ev[f->head];
            slot->time_ps = time_ps;
            slot->order = order;
            slot->id = id;
            slot->aux = aux;
            f->len = 1;
            f->pushes++;
            heads_push(q, (struct eq_head){.key = (eq_key)time_ps << 64 | (order & ~(uint64_t)0xff) | i});
            return;
        }
    }
    push_rare(q, time_ps, order, id, aux);
}

/* The heap's top is q->other.ev itself, never &q->other.ev[0]: the array
 * may not be allocated yet, and an offset from NULL is undefined behaviour
 * (clang's UBSan reports it) even when the result is only compared. A
 * FIFO's head is earliest when its key is below the other heap's top key
 * (both are EQ_KEY_NONE, no key is below, when empty). */
size_t eq_count(const struct event_queue *q)
{
    size_t n = q->other.len;
    for (uint32_t i = 0; i < EQ_ALL_FIFOS; i++)
        n += q->fifo[i].len;
    return n;
}

const struct event *eq_peek(const struct event_queue *q)
{
    if (heads_top_key(q) < q->other_top) {
        const struct ev_fifo *f = &q->fifo[(uint32_t)heads_top_key(q) & 0xff];
        return &f->ev[f->head];
    }
    return q->other.len ? q->other.ev : NULL;
}

void eq_peek_fifo_ahead(const struct event_queue *q, uint32_t n, const uint32_t *places, const struct event **out)
{
    const struct ev_fifo *f = NULL;
    if (heads_top_key(q) < q->other_top)
        f = &q->fifo[(uint32_t)heads_top_key(q) & 0xff];
    for (uint32_t i = 0; i < n; i++)
        out[i] = f && f->len > places[i] ? &f->ev[(f->head + places[i]) & f->mask] : NULL;
}

simtime_ps eq_peek_time(const struct event_queue *q)
{
    if (heads_top_key(q) < q->other_top)
        return (simtime_ps)(heads_top_key(q) >> 64);
    return q->other.len ? q->other.ev->time_ps : SIMTIME_NEVER;
}

bool eq_pop_until(struct event_queue *q, simtime_ps until_ps, struct event *out)
{
    eq_key top = heads_top_key(q);
    if (top < q->other_top) {
        if ((simtime_ps)(top >> 64) > until_ps)
            return false;
        uint32_t i = (uint32_t)top & 0xff;
        struct ev_fifo *f = &q->fifo[i];
        *out = f->ev[f->head];
        f->head = (f->head + 1) & f->mask;
        if (--f->len)
            heads_replace_top(q, head_of(f, i));
        else
            heads_pop_top(q);
    } else if (q->other.len && q->other.ev->time_ps <= until_ps) {
        other_pop(q, out);
    } else {
        return false;
    }
    q->pop_class = q->kind_class[out->kind];
    if (out->time_ps > q->now_ps)
        q->now_ps = out->time_ps;
#ifdef SPRAYSIM_CHECKS
    invariant(!q->monotonic || out->time_ps >= q->last_pop_ps,
              "event kind %u id %u popped at %llu ps, after one at %llu ps", (unsigned)out->kind, out->id,
              (unsigned long long)out->time_ps, (unsigned long long)q->last_pop_ps);
    q->last_pop_ps = out->time_ps;
#endif
    return true;
}

bool eq_pop(struct event_queue *q, struct event *out)
{
    return eq_pop_until(q, SIMTIME_NEVER, out);
}

void eq_visit(const struct event_queue *q, void (*fn)(const struct event *e, void *ctx), void *ctx)
{
    for (uint32_t i = 0; i < EQ_ALL_FIFOS; i++) {
        const struct ev_fifo *f = &q->fifo[i];
        for (uint32_t k = 0; k < f->len; k++)
            fn(&f->ev[(f->head + k) & f->mask], ctx);
    }
    for (uint32_t i = 0; i < q->other.len; i++)
        fn(&q->other.ev[i], ctx);
}
