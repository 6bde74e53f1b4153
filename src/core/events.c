/* events.c: the event queue: a calendar (timing wheel) in front of a heap.
 *
 * Nearly every event a packet simulator schedules lands a few hundred
 * nanoseconds to a few microseconds ahead (a serialisation, a link). A single
 * heap over all pending events spent two thirds of the run time in pop (perf,
 * 1024-node permutation); so time is cut into buckets of 2^shift ps. Events
 * for the current bucket live in a sorted run, with a small binary heap
 * ("active") for events scheduled into the current bucket meanwhile; events up to
 * one wheel turn ahead are appended, unsorted, to their bucket and sorted
 * when the wheel reaches it (appends arrive in sequence order, so a bucket
 * whose events share one time, as in synchronised workloads, is already in
 * order and costs nothing; a heap there cost a third of the run); events further out (timeouts) wait in an
 * overflow 4-ary heap and move in when their bucket comes up. Within a
 * bucket, order is (time, insertion sequence), so simultaneous events keep
 * the order they were scheduled in and runs are deterministic. An event
 * scheduled earlier than the current bucket (never done by the simulator,
 * allowed for generality) goes straight to the active heap, still in order.
 *
 * Invariant (checked with SPRAYSIM_CHECKS when the owner declares its
 * clock monotonic, as the simulator does): time never goes backwards.
 * Nothing is scheduled before the latest event popped, and events come out
 * in non-decreasing time.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

static inline bool ev_before(const struct event *a, const struct event *b)
{
    return a->time_ps < b->time_ps || (a->time_ps == b->time_ps && a->seq < b->seq);
}

/* ---- binary heap used for the active bucket ---------------------------------- */

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

static void bheap_push(struct event_vec *h, const struct event *e)
{
    vec_reserve(h, h->len + 1);
    uint32_t i = h->len++;
    while (i > 0) {
        uint32_t parent = (i - 1) >> 1;
        if (!ev_before(e, &h->ev[parent]))
            break;
        h->ev[i] = h->ev[parent];
        i = parent;
    }
    h->ev[i] = *e;
}

static void bheap_sift_down(struct event_vec *h, uint32_t i)
{
    struct event *a = h->ev;
    uint32_t n = h->len;
    struct event x = a[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_before(&a[c + 1], &a[c]))
            c++;
        if (!ev_before(&a[c], &x))
            break;
        a[i] = a[c];
        i = c;
    }
    a[i] = x;
}

static void bheap_pop(struct event_vec *h, struct event *out)
{
    *out = h->ev[0];
    h->ev[0] = h->ev[--h->len];
    if (h->len > 1)
        bheap_sift_down(h, 0);
}

/* ---- 4-ary heap for far-future events ------------------------------------------ */

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

/* ---- the calendar ------------------------------------------------------------------ */

/* Buckets are lists of fixed-size chunks from one shared pool, so memory
 * follows the number of pending events rather than the largest burst any
 * bucket ever saw (synchronised workloads put thousands of events in one
 * bucket and none in the next). */
static uint32_t chunk_alloc(struct event_queue *q)
{
    if (q->free_chunk == CHUNK_NONE) {
        uint32_t old = q->nchunks, cap = old ? old * 2 : 64;
        q->chunks = xrealloc(q->chunks, (size_t)cap * sizeof(struct ev_chunk));
        for (uint32_t i = old; i < cap; i++)
            q->chunks[i].next = i + 1 < cap ? i + 1 : CHUNK_NONE;
        q->free_chunk = old;
        q->nchunks = cap;
    }
    uint32_t c = q->free_chunk;
    q->free_chunk = q->chunks[c].next;
    q->chunks[c].n = 0;
    q->chunks[c].next = CHUNK_NONE;
    return c;
}

static void bucket_append(struct event_queue *q, struct bucket *b, const struct event *e)
{
    if (b->tail == CHUNK_NONE || q->chunks[b->tail].n == EV_CHUNK_EVENTS) {
        uint32_t c = chunk_alloc(q);
        if (b->tail == CHUNK_NONE)
            b->head = c;
        else
            q->chunks[b->tail].next = c;
        b->tail = c;
    }
    struct ev_chunk *ch = &q->chunks[b->tail];
    ch->ev[ch->n++] = *e;
}

void eq_init(struct event_queue *q, size_t initial_capacity)
{
    (void)initial_capacity;
    memset(q, 0, sizeof(*q));
    q->free_chunk = CHUNK_NONE;
    eq_set_resolution(q, 16, 12);
}

void eq_set_resolution(struct event_queue *q, unsigned bucket_shift, unsigned nbuckets_log2)
{
    if (q->count)
        die_internal("event queue resolution changed while events are pending");
    free(q->buckets);
    if (bucket_shift > 40)
        bucket_shift = 40;
    if (nbuckets_log2 < 4)
        nbuckets_log2 = 4;
    if (nbuckets_log2 > 20)
        nbuckets_log2 = 20;
    q->shift = bucket_shift;
    q->nbuckets = 1u << nbuckets_log2;
    q->buckets = xmalloc(q->nbuckets * sizeof(struct bucket));
    for (uint32_t i = 0; i < q->nbuckets; i++)
        q->buckets[i].head = q->buckets[i].tail = CHUNK_NONE;
    q->cur_start = 0;
    q->cur_index = 0;
    q->in_wheel = 0;
}

void eq_free(struct event_queue *q)
{
    free(q->buckets);
    free(q->chunks);
    free(q->active.ev);
    free(q->run.ev);
    free(q->overflow.ev);
    free(q->sort_tmp.ev);
    memset(q, 0, sizeof(*q));
}

static inline simtime_ps bucket_width(const struct event_queue *q)
{
    return (simtime_ps)1 << q->shift;
}

void eq_push_aux(struct event_queue *q, simtime_ps time_ps, uint32_t kind, uint32_t id, uint32_t aux)
{
    invariant(!q->monotonic || time_ps >= q->last_pop_ps,
              "event kind %u id %u scheduled at %llu ps, before the current %llu ps", kind, id,
              (unsigned long long)time_ps, (unsigned long long)q->last_pop_ps);
    struct event e = {.time_ps = time_ps, .seq = q->next_seq++, .kind = kind, .id = id, .aux = aux};
    q->pushed_total++;
    q->count++;
    simtime_ps w = bucket_width(q);
    /* offsets from cur_start, so the last bucket of time cannot wrap */
    if (time_ps < q->cur_start || time_ps - q->cur_start < w) {
        bheap_push(&q->active, &e);
        return;
    }
    if (time_ps - q->cur_start < (simtime_ps)q->nbuckets * w) {
        bucket_append(q, &q->buckets[(time_ps >> q->shift) & (q->nbuckets - 1)], &e);
        q->in_wheel++;
        return;
    }
    qheap_push(&q->overflow, &e);
}

/* Orders a freshly loaded bucket by (time, seq): a run already in order (the
 * common synchronised case) costs one pass; short ones an insertion sort;
 * longer ones a bottom-up merge sort into `tmp` with the comparison inlined
 * (qsort's callback was a third of the sorting's instructions once ties
 * follow (origin, sequence) keys, README "Parallel runs (MPI)"). */
static void sort_run(struct event *ev, uint32_t n, struct event_vec *tmp)
{
    uint32_t i = 1;
    while (i < n && !ev_before(&ev[i], &ev[i - 1]))
        i++;
    if (i >= n)
        return; /* already in order: the common synchronised case */
    if (n <= 48) {
        for (; i < n; i++) {
            struct event x = ev[i];
            uint32_t j = i;
            while (j > 0 && ev_before(&x, &ev[j - 1])) {
                ev[j] = ev[j - 1];
                j--;
            }
            ev[j] = x;
        }
        return;
    }
    /* runs of 16 by insertion, then merges between ev and tmp */
    const uint32_t R = 16;
    for (uint32_t a = 0; a < n; a += R) {
        uint32_t b = a + R < n ? a + R : n;
        for (uint32_t k = a + 1; k < b; k++) {
            struct event x = ev[k];
            uint32_t j = k;
            while (j > a && ev_before(&x, &ev[j - 1])) {
                ev[j] = ev[j - 1];
                j--;
            }
            ev[j] = x;
        }
    }
    vec_reserve(tmp, n);
    struct event *src = ev, *dst = tmp->ev;
    for (uint32_t w = R; w < n; w *= 2) {
        for (uint32_t a = 0; a < n; a += 2 * w) {
            uint32_t m = a + w < n ? a + w : n, b = a + 2 * w < n ? a + 2 * w : n;
            uint32_t x = a, y = m, k = a;
            while (x < m && y < b)
                dst[k++] = ev_before(&src[y], &src[x]) ? src[y++] : src[x++];
            while (x < m)
                dst[k++] = src[x++];
            while (y < b)
                dst[k++] = src[y++];
        }
        struct event *t = src;
        src = dst;
        dst = t;
    }
    if (src != ev)
        memcpy(ev, src, n * sizeof *ev);
}

static inline bool current_empty(const struct event_queue *q)
{
    return q->run_pos == q->run.len && q->active.len == 0;
}

/* Moves the wheel forward until the current bucket holds the earliest events. */
static void advance(struct event_queue *q)
{
    simtime_ps w = bucket_width(q);
    while (current_empty(q)) {
        if (q->in_wheel == 0) {
            if (q->overflow.len == 0)
                return;
            /* nothing within a turn: jump straight to the next far event */
            simtime_ps t = q->overflow.ev[0].time_ps;
            simtime_ps start = t & ~(w - 1);
            if (start <= q->cur_start)
                start = q->cur_start + w;
            q->cur_start = start;
        } else {
            q->cur_start += w;
        }
        q->cur_index = (uint32_t)((q->cur_start >> q->shift) & (q->nbuckets - 1));
        struct bucket *b = &q->buckets[q->cur_index];
        q->run.len = 0;
        q->run_pos = 0;
        if (b->head != CHUNK_NONE) {
            uint32_t c = b->head;
            while (c != CHUNK_NONE) {
                struct ev_chunk *ch = &q->chunks[c];
                vec_reserve(&q->run, q->run.len + ch->n);
                memcpy(q->run.ev + q->run.len, ch->ev, ch->n * sizeof(struct event));
                q->run.len += ch->n;
                uint32_t next = ch->next;
                ch->next = q->free_chunk;
                q->free_chunk = c;
                c = next;
            }
            b->head = b->tail = CHUNK_NONE;
            q->in_wheel -= q->run.len;
            sort_run(q->run.ev, q->run.len, &q->sort_tmp);
        }
        while (q->overflow.len && q->overflow.ev[0].time_ps - q->cur_start < w) {
            struct event e;
            qheap_pop(&q->overflow, &e);
            bheap_push(&q->active, &e);
        }
    }
}

/* The heap's top is q->active.ev itself, never &q->active.ev[0]: the array
 * may not be allocated yet, and an offset from NULL is undefined behaviour
 * (clang's UBSan reports it) even when the result is only compared. */
const struct event *eq_peek(struct event_queue *q)
{
    if (current_empty(q)) {
        advance(q);
        if (current_empty(q))
            return NULL;
    }
    if (q->run_pos == q->run.len)
        return q->active.ev;
    if (q->active.len == 0 || ev_before(&q->run.ev[q->run_pos], q->active.ev))
        return &q->run.ev[q->run_pos];
    return q->active.ev;
}

simtime_ps eq_peek_time(struct event_queue *q)
{
    const struct event *e = eq_peek(q);
    return e ? e->time_ps : SIMTIME_NEVER;
}

bool eq_pop(struct event_queue *q, struct event *out)
{
    const struct event *e = eq_peek(q);
    if (!e)
        return false;
    if (e == q->active.ev && q->active.len)
        bheap_pop(&q->active, out);
    else
        *out = q->run.ev[q->run_pos++];
    q->count--;
#ifdef SPRAYSIM_CHECKS
    invariant(!q->monotonic || out->time_ps >= q->last_pop_ps,
              "event kind %u id %u popped at %llu ps, after one at %llu ps", (unsigned)out->kind, out->id,
              (unsigned long long)out->time_ps, (unsigned long long)q->last_pop_ps);
    q->last_pop_ps = out->time_ps;
#endif
    return true;
}

/* The next event without removing it, or NULL; only when the current bucket
 * is non-empty (never advances the wheel), for prefetching. */
const struct event *eq_next_in_bucket(const struct event_queue *q)
{
    if (q->run_pos < q->run.len) {
        if (q->active.len && ev_before(q->active.ev, &q->run.ev[q->run_pos]))
            return q->active.ev;
        return &q->run.ev[q->run_pos];
    }
    return q->active.len ? q->active.ev : NULL;
}

void eq_visit(const struct event_queue *q, void (*fn)(const struct event *e, void *ctx), void *ctx)
{
    for (uint32_t i = 0; i < q->active.len; i++)
        fn(&q->active.ev[i], ctx);
    for (uint32_t i = q->run_pos; i < q->run.len; i++)
        fn(&q->run.ev[i], ctx);
    for (uint32_t i = 0; i < q->overflow.len; i++)
        fn(&q->overflow.ev[i], ctx);
    for (uint32_t b = 0; b < q->nbuckets; b++)
        for (uint32_t c = q->buckets[b].head; c != CHUNK_NONE; c = q->chunks[c].next)
            for (uint32_t i = 0; i < q->chunks[c].n; i++)
                fn(&q->chunks[c].ev[i], ctx);
}
