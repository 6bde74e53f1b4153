/* test_core.c: unit tests for the simulator's foundation (src/core/): the
 * event queue (a FIFO per frequent delay merged by a heap, a heap for the
 * rest) pops in (time, insertion) order whatever number of FIFOs it may
 * use, including under long random interleavings of pushes and pops checked
 * against independent references, with FIFOs growing, delays taking over
 * emptied FIFOs, every FIFO busy, and events in the past, and with
 * sequences numbered per origin (out of order at one instant: inserted in
 * a FIFO or sent to the other heap); the random streams are reproducible, independent
 * per (seed, stream, substream), match the published xoshiro256** output and
 * draw uniformly; atomic file writes leave exactly the content and no
 * temporary file; text buffers grow correctly; an input message is one
 * line, cut with "..." past its buffer.
 */
#include "testutil.h"

#include "core/core.h"
#include "core/parse.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* ---- event queue ------------------------------------------------------------ */

static void test_eq_pops_in_time_order(void **state)
{
    (void)state;
    struct event_queue q;
    eq_init(&q, 16);
    const simtime_ps times[] = { 50, 10, 40, 30, 20, 0, 60 };
    for (uint32_t i = 0; i < 7; i++)
        eq_push(&q, times[i] * PS_PER_US, 7, i); /* us apart, each its own delay */
    const simtime_ps want[] = { 0, 10, 20, 30, 40, 50, 60 };
    const uint32_t want_id[] = { 5, 1, 4, 3, 2, 0, 6 };
    struct event e;
    for (int i = 0; i < 7; i++) {
        assert_true(eq_pop(&q, &e));
        assert_int_equal(e.time_ps, want[i] * PS_PER_US);
        assert_int_equal(e.id, want_id[i]);
        assert_int_equal(e.kind, 7);
    }
    assert_int_equal(eq_count(&q), 0);
    eq_free(&q);
}

static void test_eq_equal_times_pop_in_insertion_order(void **state)
{
    (void)state;
    /* Simultaneous events must run in the order they were scheduled, or runs
     * would not be reproducible. Three times interleaved, each its own
     * delay's FIFO, and the same again with no FIFOs (the other heap). */
    const simtime_ps t3[3] = { 500, 3 * PS_PER_US, 10 * PS_PER_MS };
    for (uint32_t fifos = 0; fifos <= EQ_FIFOS; fifos += EQ_FIFOS) {
        struct event_queue q;
        eq_init(&q, 16);
        eq_set_fifos(&q, fifos);
        for (uint32_t i = 0; i < 300; i++)
            eq_push(&q, t3[i % 3], i % 3, i);
        struct event e;
        for (uint32_t g = 0; g < 3; g++)
            for (uint32_t k = 0; k < 100; k++) {
                assert_true(eq_pop(&q, &e));
                assert_int_equal(e.time_ps, t3[g]);
                assert_int_equal(e.kind, g);
                assert_int_equal(e.id, 3 * k + g);
            }
        assert_false(eq_pop(&q, &e));
        eq_free(&q);
    }
}

/* Imported events (eq_push_import: a parallel run's arrivals, keyed by
 * their sender) pop in (time, seq) order among the queue's own events,
 * whether they come in order (their FIFO) or not (the heap): a run of
 * in-order imports, some out of order (an earlier time, a tie with a
 * smaller sequence) and the queue's own pushes of two delays, all
 * interleaved; pops must come out sorted by (time, seq), each once. */
static void test_eq_imports_pop_in_key_order(void **state)
{
    (void)state;
    struct event_queue q;
    eq_init(&q, 16);
    uint32_t n = 0;
    for (uint32_t i = 0; i < 200; i++) {
        eq_push(&q, 1000 + 10 * (simtime_ps)i, 1, n++);              /* own, one delay */
        eq_push(&q, 5000 + 7 * (simtime_ps)i, 2, n++);               /* own, another */
        eq_push_import(&q, 2000 + 10 * (simtime_ps)i, 1000000 + i, 3, n++, 0); /* in order */
        if (i % 17 == 5)
            eq_push_import(&q, 1500 + 10 * (simtime_ps)i, 2000000 + i, 3, n++, 0); /* earlier */
        if (i % 13 == 4)
            eq_push_import(&q, 2000 + 10 * (simtime_ps)i, 500 + i, 3, n++, 0); /* a tie, smaller seq */
    }
    assert_int_equal(eq_count(&q), n);
    uint8_t *seen = calloc(n, 1);
    struct event e, prev = {0};
    for (uint32_t k = 0; k < n; k++) {
        assert_true(eq_pop(&q, &e));
        assert_true(e.id < n && !seen[e.id]);
        seen[e.id] = 1;
        if (k)
            assert_true(ev_key(&prev) < ev_key(&e));
        prev = e;
    }
    assert_false(eq_pop(&q, &e));
    free(seen);
    eq_free(&q);
}

static void test_eq_empty_pop_returns_false(void **state)
{
    (void)state;
    struct event_queue q;
    eq_init(&q, 0);
    struct event e = {.time_ps = 123, .seq = 456, .kind = 7, .id = 8, .aux = 9};
    assert_false(eq_pop(&q, &e));
    /* a failed pop must not touch *out */
    assert_int_equal(e.time_ps, 123);
    assert_int_equal(e.id, 8);
    eq_push(&q, 5 * PS_PER_MS, 1, 1);
    assert_true(eq_pop(&q, &e));
    assert_false(eq_pop(&q, &e));
    assert_false(eq_pop(&q, &e));
    assert_int_equal(eq_count(&q), 0);
    /* the queue still works after running dry far in the future */
    eq_push(&q, 6 * PS_PER_MS, 2, 2);
    eq_push(&q, 5 * PS_PER_MS + 1, 2, 3);
    assert_true(eq_pop(&q, &e));
    assert_int_equal(e.id, 3);
    assert_true(eq_pop(&q, &e));
    assert_int_equal(e.id, 2);
    eq_free(&q);
}

static void test_eq_peek_time(void **state)
{
    (void)state;
    struct event_queue q;
    eq_init(&q, 4);
    assert_int_equal(eq_peek_time(&q), SIMTIME_NEVER);
    eq_push(&q, 300 * PS_PER_US, 0, 0);
    assert_int_equal(eq_peek_time(&q), 300 * PS_PER_US);
    eq_push(&q, 100, 0, 1);
    assert_int_equal(eq_peek_time(&q), 100);
    eq_push(&q, 200 * PS_PER_MS, 0, 2);
    assert_int_equal(eq_peek_time(&q), 100);
    struct event e;
    assert_true(eq_pop(&q, &e));
    /* an event pushed after a peek at an earlier time must still come out
     * first */
    assert_int_equal(eq_peek_time(&q), 300 * PS_PER_US);
    eq_push(&q, 150 * PS_PER_US, 0, 3);
    assert_int_equal(eq_peek_time(&q), 150 * PS_PER_US);
    assert_true(eq_pop(&q, &e));
    assert_int_equal(e.id, 3);
    assert_true(eq_pop(&q, &e));
    assert_int_equal(e.id, 0);
    assert_int_equal(eq_peek_time(&q), 200 * PS_PER_MS);
    assert_true(eq_pop(&q, &e));
    assert_int_equal(eq_peek_time(&q), SIMTIME_NEVER);
    eq_free(&q);
}

static void test_eq_many_events_of_few_delays(void **state)
{
    (void)state;
    /* Thousands of events with three delays grow their FIFOs' rings many
     * times over (64 entries at first); all must come back, in order, and
     * the same load again reuses the rings. */
    struct event_queue q;
    eq_init(&q, 1);
    const uint32_t n = 5000;
    for (uint32_t i = 0; i < n; i++)
        eq_push(&q, (simtime_ps)(i % 3 + 1) * PS_PER_US, 0, i);
    assert_int_equal(eq_count(&q), n);
    assert_int_equal(q.nfifos, 3);
    assert_true(q.fifo[0].mask + 1 >= n / 3);
    assert_int_equal(q.pushed_total, n);
    struct event e;
    simtime_ps last = 0;
    uint64_t last_seq = 0;
    uint32_t got = 0;
    while (eq_pop(&q, &e)) {
        assert_true(e.time_ps > last || (e.time_ps == last && e.seq > last_seq));
        last = e.time_ps;
        last_seq = e.seq;
        got++;
    }
    assert_int_equal(got, n);
    /* pushed_total counts every push ever, not the current content */
    assert_int_equal(q.pushed_total, n);
    uint32_t cap = q.fifo[0].mask + 1;
    for (uint32_t i = 0; i < n; i++)
        eq_push(&q, last + (simtime_ps)(i % 3 + 1) * PS_PER_US, 0, i);
    assert_int_equal(q.fifo[0].mask + 1, cap);
    for (uint32_t i = 0; i < n; i++)
        assert_true(eq_pop(&q, &e));
    eq_free(&q);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

struct ref_ev {
    simtime_ps t;
    uint64_t seq;
    uint32_t id;
};

static int cmp_ref(const void *a, const void *b)
{
    const struct ref_ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return 0;
}

/* FIFO counts to run the stress tests with: none (everything in the other
 * heap), one or two (FIFOs constantly taken over by new delays, most
 * events in the other heap), a few, and all. */
static const uint32_t fifo_counts[] = { 0, 1, 2, 5, EQ_FIFOS };
#define N_RES (sizeof fifo_counts / sizeof fifo_counts[0])

/* Delay for the next push: half from four fixed values (link latency,
 * serialisations), some short random ones, some far (timeouts), some zero
 * (ties). */
static simtime_ps sim_like_delay(uint64_t *s)
{
    static const simtime_ps fixed[] = { 1000000, 80000, 5120, 40000 };
    uint64_t r = lcg(s) % 100;
    if (r < 10)
        return 0;
    if (r < 60)
        return fixed[lcg(s) % 4];
    if (r < 80)
        return lcg(s) % 4096;
    if (r < 95)
        return lcg(s) % (2 * PS_PER_US);
    return lcg(s) % (500 * PS_PER_US);
}

static void test_eq_stress_matches_sorted_reference(void **state)
{
    (void)state;
    /* As in a simulation, every push is at or after the time of the last
     * popped event; then the popped sequence must be exactly all pushed
     * events sorted by (time, seq). */
    const uint32_t n = 100000;
    struct ref_ev *pushed = calloc(n, sizeof *pushed);
    struct ref_ev *popped = calloc(n, sizeof *popped);
    assert_non_null(pushed);
    assert_non_null(popped);
    for (size_t r = 0; r < N_RES; r++) {
        struct event_queue q;
        eq_init(&q, 16);
        eq_set_fifos(&q, fifo_counts[r]);
        uint64_t s = 42 + r;
        uint32_t np = 0, no = 0;
        simtime_ps now = 0;
        while (no < n) {
            bool do_push = np < n && (eq_count(&q) == 0 || lcg(&s) % 100 < 55);
            if (do_push) {
                simtime_ps t = now + sim_like_delay(&s);
                pushed[np] = (struct ref_ev){ t, q.next_seq, np };
                eq_push(&q, t, 3, np);
                np++;
            } else {
                if (lcg(&s) % 4 == 0)
                    assert_true(eq_peek_time(&q) >= now);
                struct event e;
                assert_true(eq_pop(&q, &e));
                assert_true(e.time_ps >= now);
                now = e.time_ps;
                popped[no++] = (struct ref_ev){ e.time_ps, e.seq, e.id };
                assert_int_equal(e.kind, 3);
            }
        }
        assert_int_equal(eq_count(&q), 0);
        qsort(pushed, n, sizeof *pushed, cmp_ref);
        for (uint32_t i = 0; i < n; i++) {
            if (pushed[i].t != popped[i].t || pushed[i].seq != popped[i].seq || pushed[i].id != popped[i].id)
                fail_msg("%u FIFOs, pop %u: got (t=%llu seq=%llu id=%u), want (t=%llu seq=%llu id=%u)",
                         fifo_counts[r], i, (unsigned long long)popped[i].t,
                         (unsigned long long)popped[i].seq, popped[i].id, (unsigned long long)pushed[i].t,
                         (unsigned long long)pushed[i].seq, pushed[i].id);
        }
        eq_free(&q);
    }
    free(pushed);
    free(popped);
}

static void test_eq_stress_arbitrary_times_against_linear_scan(void **state)
{
    (void)state;
    /* Pushes anywhere in time, including before already popped events (the
     * queue allows it "for generality"): each pop must return the minimum
     * (time, seq) among the pending events, which a linear scan of a plain
     * array computes independently of the queue. */
    const uint32_t ops = 20000;
    struct ref_ev *pend = calloc(ops, sizeof *pend);
    assert_non_null(pend);
    for (size_t r = 0; r < N_RES; r++) {
        uint32_t npend = 0;
        struct event_queue q;
        eq_init(&q, 16);
        eq_set_fifos(&q, fifo_counts[r]);
        uint64_t s = 7 + r;
        simtime_ps span = (simtime_ps)1 << 22;
        for (uint32_t op = 0; op < ops; op++) {
            if (npend == 0 || lcg(&s) % 3 != 0) {
                /* some at a few fixed offsets from the latest pop (FIFOs),
                 * some in the past, the rest anywhere */
                uint64_t k = lcg(&s) % 8;
                simtime_ps t = k == 0 ? lcg(&s) % 64
                             : k < 4 ? q.now_ps + k * 1000
                                     : (lcg(&s) << 20 ^ lcg(&s)) % span;
                pend[npend++] = (struct ref_ev){ t, q.next_seq, op };
                eq_push(&q, t, 0, op);
            } else {
                uint32_t best = 0;
                for (uint32_t i = 1; i < npend; i++)
                    if (cmp_ref(&pend[i], &pend[best]) < 0)
                        best = i;
                struct event e;
                assert_true(eq_pop(&q, &e));
                if (e.seq != pend[best].seq)
                    fail_msg("%u FIFOs, op %u: popped t=%llu seq=%llu, earliest is t=%llu seq=%llu",
                             fifo_counts[r], op, (unsigned long long)e.time_ps,
                             (unsigned long long)e.seq, (unsigned long long)pend[best].t,
                             (unsigned long long)pend[best].seq);
                assert_int_equal(e.time_ps, pend[best].t);
                assert_int_equal(e.id, pend[best].id);
                pend[best] = pend[--npend];
            }
            assert_int_equal(eq_count(&q), npend);
        }
        eq_free(&q);
    }
    free(pend);
}

static void count_visit(const struct event *e, void *ctx)
{
    uint8_t *seen = ctx;
    seen[e->id]++;
}

static void test_eq_visit_sees_every_pending_event_once(void **state)
{
    (void)state;
    /* eq_visit walks the FIFOs and the other heap: after any mix of pushes and pops, every pending event exactly
     * once and no popped one. */
    enum { N = 3000 };
    uint8_t *seen = calloc(N, 1);
    bool *pending = calloc(N, sizeof *pending);
    struct event_queue q;
    eq_init(&q, 16);
    uint64_t s = 99;
    for (uint32_t i = 0; i < N; i++) {
        simtime_ps t = lcg(&s) % 3 == 0 ? lcg(&s) % 256 : q.now_ps + (lcg(&s) % 4) * 100;
        eq_push(&q, t, 0, i);
        pending[i] = true;
        if (i % 500 == 499) {
            for (int k = 0; k < 200; k++) {
                struct event e;
                assert_true(eq_pop(&q, &e));
                pending[e.id] = false;
            }
            memset(seen, 0, N);
            eq_visit(&q, count_visit, seen);
            for (uint32_t j = 0; j < N; j++)
                if (seen[j] != (pending[j] ? 1 : 0))
                    fail_msg("after %u pushes: event %u visited %u times, pending %d", i + 1, j, seen[j], pending[j]);
        }
    }
    eq_free(&q);
    free(seen);
    free(pending);
}

static void test_eq_set_fifos_keeps_order(void **state)
{
    (void)state;
    /* The number of FIFOs is "performance only": the same pushes and pops
     * give the same events in the same order with any number. */
    enum { N = 20000 };
    uint32_t *first = calloc(N, sizeof *first), *other = calloc(N, sizeof *other);
    for (size_t r = 0; r < N_RES; r++) {
        struct event_queue q;
        eq_init(&q, 16);
        eq_set_fifos(&q, fifo_counts[r]);
        uint64_t s = 5;
        uint32_t *out = r == 0 ? first : other, no = 0, np = 0;
        simtime_ps now = 0;
        while (no < N) {
            if (np < N && (eq_count(&q) == 0 || lcg(&s) % 2)) {
                eq_push(&q, now + sim_like_delay(&s), 0, np++);
            } else {
                struct event e;
                assert_true(eq_pop(&q, &e));
                now = e.time_ps;
                out[no++] = e.id;
            }
        }
        if (r > 0)
            assert_memory_equal(first, other, N * sizeof *first);
        eq_free(&q);
    }
    free(first);
    free(other);
}

/* Sequences numbered per origin, as the simulator numbers them (sim.h
 * sim_set_origin): before each push the owner sets next_seq from the
 * counter of the node whose event runs, so at one instant pushes of one
 * delay arrive with sequences out of order. */
#define TEST_ORIGIN_SHIFT 34
static void test_eq_per_origin_sequences_match_sorted_reference(void **state)
{
    (void)state;
    /* 400 events at time 0, then each pop pushes 0-3 events with delays of
     * a few fixed values (bursts at one instant in a FIFO, many of them
     * longer than the insertion's bound) from a random origin's counter;
     * the pops must be every pushed event sorted by (time, seq), whatever
     * the number of FIFOs. (Delays are at least 1 ps: an event pushed for
     * the current instant may sort before one already popped.) */
    enum { N = 60000, ORIGINS = 64 };
    static const simtime_ps fixed[] = { 1000000, 80000, 5120 };
    struct ref_ev *pushed = calloc(N, sizeof *pushed), *popped = calloc(N, sizeof *popped);
    assert_non_null(pushed);
    assert_non_null(popped);
    for (size_t r = 0; r < 2 * N_RES; r++) {
        /* the second round gives kind 2's pushes FIFOs of their own */
        struct event_queue q;
        eq_init(&q, 16);
        eq_set_fifos(&q, fifo_counts[r % N_RES]);
        if (r >= N_RES)
            eq_set_kind_class(&q, 2, 1);
        uint64_t cnt[ORIGINS], s = 11 + r;
        for (uint32_t o = 0; o < ORIGINS; o++)
            cnt[o] = (uint64_t)o << TEST_ORIGIN_SHIFT;
        uint32_t np = 0, no = 0;
        simtime_ps now = 0;
        while (np < 400) {
            uint32_t o = (uint32_t)(lcg(&s) % ORIGINS);
            q.next_seq = cnt[o];
            pushed[np] = (struct ref_ev){ 0, q.next_seq, np };
            eq_push(&q, 0, 1, np);
            np++;
            cnt[o] = q.next_seq;
        }
        while (no < np) {
            struct event e;
            assert_true(eq_pop(&q, &e));
            assert_true(e.time_ps >= now);
            now = e.time_ps;
            popped[no++] = (struct ref_ev){ e.time_ps, e.seq, e.id };
            uint32_t o = (uint32_t)(lcg(&s) % ORIGINS), k = (uint32_t)(lcg(&s) % 4);
            q.next_seq = cnt[o];
            for (uint32_t j = 0; j < k && np < N; j++) {
                simtime_ps t = now + (lcg(&s) % 8 ? fixed[lcg(&s) % 3] : 1 + lcg(&s) % 4096);
                pushed[np] = (struct ref_ev){ t, q.next_seq, np };
                eq_push(&q, t, 1 + (uint32_t)(lcg(&s) % 2), np);
                np++;
            }
            cnt[o] = q.next_seq;
        }
        assert_int_equal(eq_count(&q), 0);
        if (r >= N_RES && fifo_counts[r % N_RES] == EQ_FIFOS) {
            /* some delay has a FIFO in each class */
            bool both = false;
            for (uint32_t i = 0; i < q.nfifos; i++)
                for (uint32_t j = 0; j < q.nfifos; j++)
                    both |= q.fifo_key[i] >> 8 == q.fifo_key[j] >> 8 && (q.fifo_key[i] & 0xff) == 0 &&
                            (q.fifo_key[j] & 0xff) == 1;
            assert_true(both);
        }
        qsort(pushed, np, sizeof *pushed, cmp_ref);
        for (uint32_t i = 0; i < np; i++)
            if (pushed[i].t != popped[i].t || pushed[i].seq != popped[i].seq || pushed[i].id != popped[i].id)
                fail_msg("%u FIFOs, pop %u: got (t=%llu seq=%llx id=%u), want (t=%llu seq=%llx id=%u)",
                         fifo_counts[r % N_RES], i, (unsigned long long)popped[i].t, (unsigned long long)popped[i].seq,
                         popped[i].id, (unsigned long long)pushed[i].t, (unsigned long long)pushed[i].seq,
                         pushed[i].id);
        eq_free(&q);
    }
    free(pushed);
    free(popped);
}

/* Pushes one event with sequence seq at time t. */
static void push_seq(struct event_queue *q, simtime_ps t, uint64_t seq)
{
    q->next_seq = seq;
    eq_push(q, t, 0, (uint32_t)seq);
}

static void test_eq_fifo_insertion_and_its_limits(void **state)
{
    (void)state;
    /* One delay, one instant, sequences against push order: an event that
     * sorts before the FIFO's first goes to the other heap (the heads array
     * holds the first's key), one that would move more than 32 events too,
     * one a few places back is inserted in the FIFO; all pop by sequence. */
    const simtime_ps d = 1000;
    struct event_queue q;
    eq_init(&q, 16);
    push_seq(&q, d, 10);   /* first of its delay: the other heap */
    push_seq(&q, d, 1000); /* the delay repeats: a FIFO, its first event */
    assert_int_equal(q.nfifos, 1);
    push_seq(&q, d, 500);  /* before the FIFO's first: the other heap */
    for (uint64_t k = 0; k < 40; k++)
        push_seq(&q, d, 2000 + 2 * k); /* appended */
    push_seq(&q, d, 1500); /* 40 moves back: the other heap */
    push_seq(&q, d, 2071); /* 4 moves back: inserted */
    push_seq(&q, d, 2001); /* 40 moves back: the other heap */
    push_seq(&q, d, 2017); /* 32 moves back, the most allowed: inserted */
    assert_int_equal(q.other.len, 4);
    assert_int_equal(q.fifo[0].len, 43);
    uint64_t want[48], n = 0;
    want[n++] = 10;
    want[n++] = 500;
    want[n++] = 1000;
    want[n++] = 1500;
    for (uint64_t k = 0; k < 40; k++) {
        want[n++] = 2000 + 2 * k;
        if (2000 + 2 * k == 2000)
            want[n++] = 2001;
        if (2000 + 2 * k == 2016)
            want[n++] = 2017;
        if (2000 + 2 * k == 2070)
            want[n++] = 2071;
    }
    assert_int_equal(n, 47);
    struct event e;
    for (uint64_t i = 0; i < n; i++) {
        assert_true(eq_pop(&q, &e));
        assert_int_equal(e.time_ps, d);
        assert_int_equal(e.seq, want[i]);
    }
    assert_false(eq_pop(&q, &e));
    eq_free(&q);
}

static void test_eq_event_key_layout(void **state)
{
    (void)state;
    /* ev_key compares (time, seq) in one 128-bit number: that needs the
     * kind in the order word's low 8 bits and the sequence above it (the
     * bit-field layout gcc gives on x86-64). */
    struct event a = {.time_ps = 5, .seq = 0x123456789abcULL, .kind = 0xfe, .id = 1, .aux = 2};
    assert_true(a.order == (0x123456789abcULL << 8 | 0xfe));
    struct event b = {.time_ps = 5, .seq = 0x123456789abdULL, .kind = 0, .id = 1, .aux = 2};
    assert_true(ev_key(&a) < ev_key(&b));
    struct event c = {.time_ps = 4, .seq = (1ULL << 56) - 1, .kind = 0xff};
    assert_true(ev_key(&c) < ev_key(&a));
    assert_true(ev_key(&c) >> 64 == 4);
}

static void test_eq_one_fifo_per_delay_when_slots_collide(void **state)
{
    (void)state;
    /* Two delays whose hashes share an entry of the delay table: each push
     * of one finds the entry pointing at the other's FIFO, and must still
     * find its own delay's FIFO (a scan) rather than take a second one for
     * the same delay; pops stay in (time, seq) order. */
    simtime_ps d1 = 1000, d2 = d1 + 1;
    while (eq_fifo_slot(eq_fifo_key(d2, 0)) != eq_fifo_slot(eq_fifo_key(d1, 0)))
        d2++;
    struct event_queue q;
    eq_init(&q, 16);
    uint64_t s = 5;
    for (uint32_t i = 0; i < 16; i++)
        eq_push(&q, 0, 0, i);
    simtime_ps last_t = 0;
    uint64_t last_seq = 0;
    for (uint32_t n = 0; n < 20000; n++) {
        struct event e;
        assert_true(eq_pop(&q, &e));
        assert_true(n == 0 || e.time_ps > last_t || (e.time_ps == last_t && e.seq > last_seq));
        last_t = e.time_ps;
        last_seq = e.seq;
        eq_push(&q, e.time_ps + (lcg(&s) % 2 ? d1 : d2), 0, e.id);
    }
    /* FIFOs for delay 0 (the first pushes), d1 and d2, once each */
    assert_int_equal(q.nfifos, 3);
    for (uint32_t i = 0; i < q.nfifos; i++)
        for (uint32_t j = i + 1; j < q.nfifos; j++)
            assert_true(q.fifo_key[i] != q.fifo_key[j]);
    eq_free(&q);
}

static void test_eq_push_before_now_near_the_end_of_time(void **state)
{
    (void)state;
    /* A push before the clock has a delay that wraps around 2^64; with the
     * clock within a FIFO's delay of 2^64, the wrapped delay is that
     * FIFO's, whose last event is later: the event must not be appended
     * behind it. */
    const simtime_ps d = 1ULL << 21, x = UINT64_MAX - 100, y = UINT64_MAX - 1000;
    struct event_queue q;
    eq_init(&q, 16);
    struct event e;
    eq_push(&q, x - d, 0, 0);
    assert_true(eq_pop(&q, &e));   /* the clock: x - d */
    eq_push(&q, x, 0, 1);          /* delay d: a miss */
    eq_push(&q, x, 0, 2);          /* delay d again: a FIFO */
    eq_push(&q, x, 0, 5);
    assert_int_equal(q.fifo[0].len, 2);
    eq_push(&q, y, 0, 3);
    assert_true(eq_pop(&q, &e));   /* the clock: y */
    assert_int_equal(e.id, 3);
    const simtime_ps z = y + d;    /* wraps: 2^21 - 1001, long before y */
    assert_true(z < y && z - y == d);
    eq_push(&q, z, 0, 4);
    const uint32_t want[] = { 4, 1, 2, 5 };
    for (int i = 0; i < 4; i++) {
        assert_true(eq_pop(&q, &e));
        assert_int_equal(e.id, want[i]);
    }
    assert_false(eq_pop(&q, &e));
    eq_free(&q);
}

static void test_eq_extreme_times(void **state)
{
    (void)state;
    /* Large 64-bit times order correctly, however far apart. */
    struct event_queue q;
    eq_init(&q, 16);
    eq_push(&q, UINT64_MAX - (1ULL << 20), 0, 0);
    eq_push(&q, (simtime_ps)1 << 63, 0, 1);
    eq_push(&q, 0, 0, 2);
    eq_push(&q, ((simtime_ps)1 << 32) + 1, 0, 3);
    eq_push(&q, (simtime_ps)1 << 32, 0, 4);
    eq_push(&q, ((simtime_ps)1 << 63) - 1, 0, 5);
    const uint32_t want[] = { 2, 4, 3, 5, 1, 0 };
    struct event e;
    for (int i = 0; i < 6; i++) {
        assert_true(eq_pop(&q, &e));
        assert_int_equal(e.id, want[i]);
    }
    assert_false(eq_pop(&q, &e));
    eq_free(&q);
}

static void test_eq_last_bucket_of_time_range(void **state)
{
    (void)state;
    /* Times in the last bucket of the 64-bit range once made the calendar
     * queue's bucket end wrap to 0 and eq_pop loop forever; delays that large
     * must not trouble the FIFOs either. Runs in a child with an alarm so a
     * regression cannot hang the suite. */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(2);
        struct event_queue q;
        eq_init(&q, 16);
        eq_push(&q, UINT64_MAX - 1, 0, 0);
        eq_push(&q, 10, 0, 1);
        struct event e;
        if (!eq_pop(&q, &e) || e.id != 1)
            _exit(3);
        if (!eq_pop(&q, &e) || e.id != 0 || e.time_ps != UINT64_MAX - 1)
            _exit(4);
        _exit(eq_pop(&q, &e) ? 5 : 0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        fail_msg("eq_pop with an event at UINT64_MAX - 1 did not return (signal %d)", WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- random numbers ------------------------------------------------------------ */

static void test_rng_xoshiro_reference_output(void **state)
{
    (void)state;
    /* xoshiro256** from the state {1,2,3,4}: values from the reference
     * algorithm (Blackman & Vigna), computed independently in Python. */
    struct rng r = { { 1, 2, 3, 4 } };
    const uint64_t want[] = { 11520ULL, 0ULL, 1509978240ULL, 1215971899390074240ULL, 1216172134540287360ULL,
                              607988272756665600ULL };
    for (int i = 0; i < 6; i++)
        assert_int_equal(rng_next(&r), want[i]);
}

static void test_rng_same_seed_same_sequence(void **state)
{
    (void)state;
    struct rng a, b;
    rng_seed(&a, 13, RNG_STREAM_TEST, 5);
    rng_seed(&b, 13, RNG_STREAM_TEST, 5);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(rng_next(&a), rng_next(&b));
    /* re-seeding restarts the sequence */
    struct rng c;
    rng_seed(&c, 13, RNG_STREAM_TEST, 5);
    rng_seed(&a, 13, RNG_STREAM_TEST, 5);
    for (int i = 0; i < 10; i++)
        assert_int_equal(rng_next(&a), rng_next(&c));
}

/* Number of equal values at equal positions in the first 64 outputs. */
static int same_positions(uint64_t seed1, uint64_t st1, uint64_t sub1, uint64_t seed2, uint64_t st2, uint64_t sub2)
{
    struct rng a, b;
    rng_seed(&a, seed1, st1, sub1);
    rng_seed(&b, seed2, st2, sub2);
    int same = 0;
    for (int i = 0; i < 64; i++)
        same += rng_next(&a) == rng_next(&b);
    return same;
}

static void test_rng_streams_and_substreams_differ(void **state)
{
    (void)state;
    /* Each module's stream must be independent of the others; two 64-bit
     * outputs that coincide by chance are (practically) impossible. */
    assert_int_equal(same_positions(13, RNG_STREAM_ECN, 0, 13, RNG_STREAM_LB, 0), 0);
    assert_int_equal(same_positions(13, RNG_STREAM_LB, 0, 13, RNG_STREAM_LB, 1), 0);
    assert_int_equal(same_positions(13, RNG_STREAM_LB, 1, 13, RNG_STREAM_LB, 2), 0);
    assert_int_equal(same_positions(13, RNG_STREAM_HASH, 0, 14, RNG_STREAM_HASH, 0), 0);
    /* stream and substream are not interchangeable */
    assert_int_equal(same_positions(13, 2, 3, 13, 3, 2), 0);
    /* seed 0, stream 0, substream 0 still gives a working (non-zero) generator */
    struct rng z;
    rng_seed(&z, 0, 0, 0);
    uint64_t orv = 0;
    for (int i = 0; i < 8; i++)
        orv |= rng_next(&z);
    assert_true(orv != 0);
    /* many substreams (one per flow): all first outputs distinct */
    enum { NSUB = 4096 };
    uint64_t *first = malloc(NSUB * sizeof *first);
    assert_non_null(first);
    for (uint64_t i = 0; i < NSUB; i++) {
        struct rng r;
        rng_seed(&r, 13, RNG_STREAM_LB, i);
        first[i] = rng_next(&r);
    }
    for (int i = 0; i < NSUB; i++)
        for (int j = i + 1; j < NSUB; j++)
            if (first[i] == first[j])
                fail_msg("substreams %d and %d start with the same value", i, j);
    free(first);
}

static void test_rng_below_range_and_uniformity(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 13, RNG_STREAM_TEST, 0);
    enum { N = 10, DRAWS = 100000 };
    unsigned count[N] = { 0 };
    for (int i = 0; i < DRAWS; i++) {
        uint64_t x = rng_below(&r, N);
        assert_true(x < N);
        count[x]++;
    }
    /* Chi-square with 9 degrees of freedom: 27.9 at p = 0.001; 40 is a very
     * generous bound that a biased generator (e.g. always even) blows far past. */
    double expected = (double)DRAWS / N, chi2 = 0;
    for (int i = 0; i < N; i++)
        chi2 += (count[i] - expected) * (count[i] - expected) / expected;
    if (chi2 > 40.0)
        fail_msg("chi-square %.1f over 10 bins exceeds 40", chi2);
    /* n = 1 is always 0 */
    for (int i = 0; i < 100; i++)
        assert_int_equal(rng_below(&r, 1), 0);
}

static void test_rng_below_large_and_awkward_n(void **state)
{
    (void)state;
    /* n just above 2^63 makes about half of all raw draws rejections; results
     * must still stay below n and cover the upper half of the range. */
    struct rng r;
    rng_seed(&r, 99, RNG_STREAM_TEST, 1);
    const uint64_t big = (1ULL << 63) + 12345;
    int high = 0;
    for (int i = 0; i < 2000; i++) {
        uint64_t x = rng_below(&r, big);
        assert_true(x < big);
        high += x >= big / 2;
    }
    assert_true(high > 800 && high < 1200);
    /* n = 3: uniform over three values, all hit */
    unsigned c3[3] = { 0, 0, 0 };
    for (int i = 0; i < 30000; i++)
        c3[rng_below(&r, 3)]++;
    for (int i = 0; i < 3; i++)
        assert_true(c3[i] > 9000 && c3[i] < 11000);
    /* n = UINT64_MAX */
    for (int i = 0; i < 100; i++)
        assert_true(rng_below(&r, UINT64_MAX) < UINT64_MAX);
}

static void test_rng_uniform_in_unit_interval(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 2024, RNG_STREAM_TEST, 0);
    double sum = 0, lo = 1, hi = 0;
    unsigned below_tenth = 0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        double u = rng_uniform(&r);
        assert_true(u >= 0.0);
        assert_true(u < 1.0);
        sum += u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
        below_tenth += u < 0.1;
    }
    /* mean 0.5 with sd 0.29/sqrt(n) ~ 0.0009: 0.01 is > 10 sd */
    assert_true(fabs(sum / n - 0.5) < 0.01);
    assert_true(lo < 0.001);
    assert_true(hi > 0.999);
    assert_true(below_tenth > 9000 && below_tenth < 11000);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_mix64_is_a_mixer(void **state)
{
    (void)state;
    /* mix64 is used for ECMP hashing: consecutive inputs must not map to
     * consecutive outputs, and it is a bijection, so no two of many inputs
     * collide. Known value: the splitmix64 finaliser of 1, computed
     * independently in Python. */
    assert_int_equal(mix64(0), 0);
    assert_int_equal(mix64(1), 6238072747940578789ULL);
    unsigned low_bit = 0;
    for (uint64_t i = 0; i < 10000; i++)
        low_bit += (unsigned)(mix64(i) & 1);
    assert_true(low_bit > 4700 && low_bit < 5300);
    enum { M = 100000 };
    uint64_t *v = malloc(M * sizeof *v);
    for (uint64_t i = 0; i < M; i++)
        v[i] = mix64(i);
    qsort(v, M, sizeof *v, cmp_u64);
    for (int i = 1; i < M; i++)
        assert_true(v[i] != v[i - 1]);
    free(v);
}

/* ---- files and text buffers ------------------------------------------------------- */

static char *make_temp_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/spraysim-core-XXXXXX");
    if (!mkdtemp(dir))
        fail_msg("mkdtemp failed");
    return dir;
}

static int count_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void test_write_file_atomic_content_and_no_temp(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    char path[128];
    snprintf(path, sizeof path, "%s/out.json", dir);
    const char *text = "{\"a\": 1}\n";
    assert_true(write_file_atomic(path, text, strlen(text)));
    size_t len;
    char *got = slurp(path, &len);
    assert_non_null(got);
    assert_int_equal(len, strlen(text));
    assert_string_equal(got, text);
    free(got);
    /* only the target remains: the temporary was renamed, not copied */
    assert_int_equal(count_dir_entries(dir), 1);

    /* Overwriting with shorter content leaves exactly the new content. */
    assert_true(write_file_atomic(path, "xy", 2));
    got = slurp(path, &len);
    assert_int_equal(len, 2);
    assert_memory_equal(got, "xy", 2);
    free(got);
    assert_int_equal(count_dir_entries(dir), 1);

    /* Empty content and binary content with NULs. */
    assert_true(write_file_atomic(path, "", 0));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);
    const char bin[5] = { 'a', 0, 'b', 0, 'c' };
    assert_true(write_file_atomic(path, bin, sizeof bin));
    got = slurp(path, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(got, bin, 5);
    free(got);
    assert_int_equal(count_dir_entries(dir), 1);
    unlink(path);
    rmdir(dir);
}

static void test_write_file_atomic_large(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    char path[128];
    snprintf(path, sizeof path, "%s/big.txt", dir);
    size_t n = 600000;
    char *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + i % 26);
    assert_true(write_file_atomic(path, data, n));
    size_t len;
    char *got = slurp(path, &len);
    assert_int_equal(len, n);
    assert_memory_equal(got, data, n);
    free(got);
    free(data);
    assert_int_equal(count_dir_entries(dir), 1);
    unlink(path);
    rmdir(dir);
}

static void test_write_file_atomic_failure(void **state)
{
    (void)state;
    /* A missing directory fails cleanly (false), creating nothing. */
    char *dir = make_temp_dir();
    char path[160];
    snprintf(path, sizeof path, "%s/no/such/dir/out.txt", dir);
    assert_false(write_file_atomic(path, "x", 1));
    assert_int_equal(count_dir_entries(dir), 0);
    /* Renaming over a directory fails, and the temporary is removed. */
    snprintf(path, sizeof path, "%s/sub", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    char sub_file[192];
    snprintf(sub_file, sizeof sub_file, "%s/f", path);
    FILE *f = fopen(sub_file, "w");
    assert_non_null(f);
    fclose(f);
    assert_false(write_file_atomic(path, "x", 1));
    assert_int_equal(count_dir_entries(dir), 1); /* just "sub" */
    unlink(sub_file);
    rmdir(path);
    rmdir(dir);
}

static void test_sb_printf_grows_for_long_strings(void **state)
{
    (void)state;
    struct strbuf b;
    sb_init(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    /* One write far longer than the initial capacity. */
    size_t n = 50000;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('A' + i % 23);
    big[n] = '\0';
    sb_printf(&b, "<%s>", big);
    assert_int_equal(b.len, n + 2);
    assert_int_equal(strlen(b.data), n + 2);
    assert_int_equal(b.data[0], '<');
    assert_memory_equal(b.data + 1, big, n);
    assert_int_equal(b.data[n + 1], '>');
    assert_true(b.cap > b.len);
    /* Appending continues after the existing text. */
    sb_printf(&b, "%d-%s", 42, "end");
    assert_int_equal(b.len, n + 2 + 6);
    assert_string_equal(b.data + n + 2, "42-end");
    free(big);
    sb_free(&b);
    assert_null(b.data);
    /* freed, the buffer is empty: nothing held, nothing counted, and text
     * written into it again is that text alone */
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
    sb_printf(&b, "again %d", 2);
    assert_int_equal(b.len, 7);
    assert_string_equal(b.data, "again 2");
    sb_free(&b);
}

static void test_sb_printf_many_appends_and_boundaries(void **state)
{
    (void)state;
    struct strbuf b;
    sb_init(&b);
    /* Fill to exactly one byte below the capacity, then one more byte:
     * the NUL must always fit. */
    size_t room = b.cap - 1;
    char *fill = malloc(room + 1);
    memset(fill, 'z', room);
    fill[room] = '\0';
    sb_printf(&b, "%s", fill);
    assert_int_equal(b.len, room);
    assert_int_equal(b.data[room], '\0');
    sb_printf(&b, "!");
    assert_int_equal(b.len, room + 1);
    assert_int_equal(b.data[room], '!');
    assert_int_equal(b.data[room + 1], '\0');
    free(fill);
    sb_free(&b);

    /* Many small appends equal one big reference built separately. */
    sb_init(&b);
    size_t ref_cap = 1 << 20, ref_len = 0;
    char *ref = malloc(ref_cap);
    for (int i = 0; i < 50000; i++) {
        sb_printf(&b, "%d,%s;", i, (i % 7) ? "x" : "");
        ref_len += (size_t)snprintf(ref + ref_len, ref_cap - ref_len, "%d,%s;", i, (i % 7) ? "x" : "");
    }
    assert_int_equal(b.len, ref_len);
    assert_int_equal(strlen(b.data), ref_len);
    assert_memory_equal(b.data, ref, ref_len);
    free(ref);
    /* An empty format changes nothing. */
    size_t before = b.len;
    sb_printf(&b, "%s", "");
    assert_int_equal(b.len, before);
    sb_free(&b);
}

/* ---- input messages ------------------------------------------------------------ */

/* The line warn_input writes for a message of `len` bytes ('x' but a tab
 * at the start), read back from stderr redirected to a file. */
static char *warned_line(size_t len)
{
    char *text = malloc(len + 1);
    assert_non_null(text);
    memset(text, 'x', len);
    text[0] = '\t';
    text[len] = '\0';
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 2) >= 0);
    warn_input("%s", text);
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    free(text);
    rewind(tmp);
    static char line[4096];
    assert_non_null(fgets(line, sizeof line, tmp));
    fclose(tmp);
    return line;
}

/* A message is one line, control bytes shown as '?', and one longer than
 * the 2048-byte buffer (2047 characters and the NUL) is cut with "..." at
 * its end: at 2047 characters exactly it is whole, at 2048 it is cut
 * (issue 26: the cut's >= flipped to > went unnoticed, leaving the exact
 * boundary cut silently). */
static void test_warn_input_cuts_overlong_messages(void **state)
{
    (void)state;
    const char *prefix = "spraysim: warning: ";
    size_t pl = strlen(prefix);
    char *l = warned_line(2047);
    assert_int_equal(strncmp(l, prefix, pl), 0);
    assert_int_equal(l[pl], '?');
    assert_int_equal(strlen(l), pl + 2047 + 1); /* whole, and the newline */
    assert_int_equal(strcmp(l + pl + 2044, "xxx\n"), 0);
    l = warned_line(2048);
    assert_int_equal(strlen(l), pl + 2047 + 1);
    assert_int_equal(strcmp(l + pl + 2044, "...\n"), 0);
    l = warned_line(5000);
    assert_int_equal(strlen(l), pl + 2047 + 1);
    assert_int_equal(strcmp(l + pl + 2044, "...\n"), 0);
}

/* parse_i64 at both ends of int64_t: INT64_MIN and INT64_MAX taken, one
 * beyond each refused as out of range (issue 26: INT64_MIN's special case
 * moved to 2^63 + 1 went unnoticed: it then negates 2^63 as an int64_t, a
 * signed overflow that gcc happens to give the same value for; make asan's
 * UBSan reports it through this test). */
static void test_parse_i64_at_both_ends(void **state)
{
    (void)state;
    int64_t v = 7;
    assert_int_equal(parse_i64("-9223372036854775808", &v), NUM_OK);
    assert_true(v == INT64_MIN);
    assert_int_equal(parse_i64("9223372036854775807", &v), NUM_OK);
    assert_true(v == INT64_MAX);
    assert_int_equal(parse_i64("-9223372036854775807", &v), NUM_OK);
    assert_true(v == -INT64_MAX);
    assert_int_equal(parse_i64("-9223372036854775809", &v), NUM_RANGE);
    assert_int_equal(parse_i64("9223372036854775808", &v), NUM_RANGE);
    assert_int_equal(parse_i64("-1", &v), NUM_OK);
    assert_true(v == -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eq_pops_in_time_order),
        cmocka_unit_test(test_eq_equal_times_pop_in_insertion_order),
        cmocka_unit_test(test_eq_imports_pop_in_key_order),
        cmocka_unit_test(test_eq_empty_pop_returns_false),
        cmocka_unit_test(test_eq_peek_time),
        cmocka_unit_test(test_eq_many_events_of_few_delays),
        cmocka_unit_test(test_eq_stress_matches_sorted_reference),
        cmocka_unit_test(test_eq_stress_arbitrary_times_against_linear_scan),
        cmocka_unit_test(test_eq_visit_sees_every_pending_event_once),
        cmocka_unit_test(test_eq_set_fifos_keeps_order),
        cmocka_unit_test(test_eq_per_origin_sequences_match_sorted_reference),
        cmocka_unit_test(test_eq_fifo_insertion_and_its_limits),
        cmocka_unit_test(test_eq_event_key_layout),
        cmocka_unit_test(test_eq_one_fifo_per_delay_when_slots_collide),
        cmocka_unit_test(test_eq_push_before_now_near_the_end_of_time),
        cmocka_unit_test(test_eq_extreme_times),
        cmocka_unit_test(test_eq_last_bucket_of_time_range),
        cmocka_unit_test(test_rng_xoshiro_reference_output),
        cmocka_unit_test(test_rng_same_seed_same_sequence),
        cmocka_unit_test(test_rng_streams_and_substreams_differ),
        cmocka_unit_test(test_rng_below_range_and_uniformity),
        cmocka_unit_test(test_rng_below_large_and_awkward_n),
        cmocka_unit_test(test_rng_uniform_in_unit_interval),
        cmocka_unit_test(test_mix64_is_a_mixer),
        cmocka_unit_test(test_write_file_atomic_content_and_no_temp),
        cmocka_unit_test(test_write_file_atomic_large),
        cmocka_unit_test(test_write_file_atomic_failure),
        cmocka_unit_test(test_sb_printf_grows_for_long_strings),
        cmocka_unit_test(test_sb_printf_many_appends_and_boundaries),
        cmocka_unit_test(test_warn_input_cuts_overlong_messages),
        cmocka_unit_test(test_parse_i64_at_both_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
