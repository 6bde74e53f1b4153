/* core.h: the simulator's foundation shared by every module.
 *
 * Simulated time is an unsigned 64-bit count of picoseconds (2^64 ps is about
 * 213 days, far beyond any experiment). The event queue (a FIFO per
 * frequent delay merged by a small sorted array, with a heap for the rest; events.c
 * says why) is ordered by (time, sequence): the queue numbers events as
 * they are scheduled, from a counter its owner may set (the simulator keeps
 * one per node, sim.h sim_set_origin), so every run is reproducible. Random numbers
 * come from independent xoshiro256** streams, each derived from the single
 * user seed and a stream identifier, so adding a consumer of randomness in one
 * module never perturbs another module's stream. Errors in user input are
 * reported through one function that prints one line and exits with status 2.
 */
#ifndef SPRAYSIM_CORE_H
#define SPRAYSIM_CORE_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

typedef uint64_t simtime_ps;

#define PS_PER_NS 1000ULL
#define PS_PER_US 1000000ULL
#define PS_PER_MS 1000000000ULL
#define PS_PER_S 1000000000000ULL
#define SIMTIME_NEVER UINT64_MAX

/* ---- events ------------------------------------------------------------ */

/* What an event means is decided by the dispatcher (src/sim.c); the queue
 * only orders (time, seq) pairs and carries a kind and an object index. */
struct event {
    simtime_ps time_ps;
    union {
        /* seq << 8 | kind (kind in the low bits: x86-64 and every ABI gcc
         * targets here lay out bit-fields from the least significant bit;
         * tests/test_core.c checks it): sequences are unique, so (time,
         * order) orders events as (time, seq) does, in one 128-bit compare */
        uint64_t order;
        struct {
            uint64_t kind : 8;
            uint64_t seq : 56; /* from next_seq when scheduled: breaks ties deterministically */
        };
    };
    uint32_t id;        /* the object the event is about */
    uint32_t aux;       /* a hint the dispatcher may use (e.g. a precomputed port) */
};

/* (time << 64 | order): an event's place in the queue's order, compared
 * in one go (gcc: cmp and sbb, no branch per field). */
__extension__ typedef unsigned __int128 eq_key;
static inline eq_key ev_key(const struct event *e)
{
    return (eq_key)e->time_ps << 64 | e->order;
}
/* Later than any event's key (a sequence of 2^56 - 1 with kind 255 aside). */
#define EQ_KEY_NONE (~(eq_key)0)

struct event_vec {
    struct event *ev;
    uint32_t len;
    uint32_t cap;
};

/* One FIFO per distinct delay (see events.c): a ring of events whose times
 * only grow, because each was pushed `delay_ps` after a clock that only
 * moves forward. */
#define EQ_FIFOS 16
/* One more FIFO, not a delay's: events handed in by eq_push_import (a
 * parallel run's arrivals from other processes, in time order from each). */
#define EQ_IMPORT_FIFO EQ_FIFOS
#define EQ_ALL_FIFOS (EQ_FIFOS + 1)
#define EQ_RECENT_MISSES 4
#define EQ_SLOT_BITS 6
struct ev_fifo {
    struct event *ev;   /* ring buffer, mask + 1 entries (a power of two) */
    uint32_t head;      /* index of the oldest event */
    uint32_t len;
    uint32_t cap;       /* 0 until the first push */
    uint32_t mask;      /* cap - 1 */
    uint32_t pushes;    /* recent use (decays on every miss): which FIFO a new delay may take */
};

/* The (time, seq) of a non-empty FIFO's oldest event: its ev_key with
 * the kind's 8 bits replaced by the FIFO's index, so comparing keys
 * compares (time, seq). */
struct eq_head {
    eq_key key;
};

/* What a FIFO holds: the events pushed with one delay while events of one
 * class were handled (eq_set_kind_class), as delay_ps << 8 | class; only
 * delays below EQ_FIFO_DELAY_LIMIT_PS (10 hours) get FIFOs, so no key is
 * EQ_NO_KEY, the mark of a FIFO that holds none. */
#define EQ_FIFO_DELAY_LIMIT_PS (1ULL << 55)
#define EQ_NO_KEY UINT64_MAX
static inline uint64_t eq_fifo_key(simtime_ps delay_ps, uint32_t cls)
{
    return delay_ps << 8 | cls;
}

/* The entry of fifo_slot a FIFO key looks in first (Fibonacci hashing). */
static inline uint32_t eq_fifo_slot(uint64_t fkey)
{
    return (uint32_t)((fkey * 0x9e3779b97f4a7c15ULL) >> (64 - EQ_SLOT_BITS));
}

/* The event queue: see events.c for why and how. */
struct event_queue {
    uint64_t fifo_key[EQ_FIFOS]; /* what each FIFO holds (eq_fifo_key), EQ_NO_KEY: nothing yet */
    uint8_t fifo_slot[1u << EQ_SLOT_BITS]; /* by key hash: the FIFO a push tries first */
    uint8_t kind_class[256];    /* by kind: the class of the pushes made while such an event is handled
                                 * (eq_set_kind_class; kinds above 63 repeat 0-63's); a table, not a
                                 * bit mask: two instructions a pop instead of five */
    uint8_t pop_class;          /* the class of the latest event popped's kind (kinds above 63 wrap) */
    uint32_t nfifos;            /* FIFOs in use (assigned a delay) */
    uint32_t max_fifos;         /* at most EQ_FIFOS; eq_set_fifos lowers it (tests) */
    uint32_t top_bytes;         /* the non-empty FIFOs' heads, latest first, are heads[1 .. n]:
                                 * n * sizeof(struct eq_head), the earliest's offset in heads */
    uint32_t miss_slot;         /* next entry of recent_miss to overwrite */
    uint64_t recent_miss[EQ_RECENT_MISSES]; /* FIFO keys that found no FIFO lately */
    struct eq_head heads[EQ_ALL_FIFOS + 1]; /* heads[0]: EQ_KEY_NONE, the walk's end */
    struct ev_fifo fifo[EQ_ALL_FIFOS];      /* the delays' FIFOs, then the imports' */
    struct event_vec other;     /* 4-ary heap: events of no FIFO's delay */
    eq_key other_top;           /* ev_key of other's top, EQ_KEY_NONE when empty */
    simtime_ps now_ps;          /* time of the latest event popped (0 before any) */
    uint64_t next_seq;          /* the next push's sequence, unless seq_next points elsewhere */
    uint64_t *seq_next;         /* the counter pushes number from: &next_seq after eq_init; the
                                 * simulator points it at its current node's (sim.h sim_set_origin) */
    uint64_t pushed_total;      /* events ever scheduled, for events/second */
#ifdef SPRAYSIM_CHECKS
    /* The queue itself accepts any time; an owner whose clock only moves
     * forward (the simulator) sets `monotonic`, and then nothing may be
     * scheduled before the latest event popped. */
    bool monotonic;
    simtime_ps last_pop_ps;
#endif
};

void eq_init(struct event_queue *q, size_t initial_capacity);
/* At most n (<= EQ_FIFOS) delay FIFOs; only while the queue is empty.
 * Performance only: the order of events never depends on it (tests run
 * the queue with 0, 1, 2 ... FIFOs to show it). */
void eq_set_fifos(struct event_queue *q, uint32_t n);
/* Pushes made while an event of `kind` (at most 63) is handled go to
 * FIFOs of class `cls` (0, the default, or 1), apart from the other
 * class's pushes of the same delay: for an owner whose pushes at one instant come in sequence order
 * for some kinds and not for others (events.c, "Classes"). Performance
 * only, like eq_set_fifos. */
void eq_set_kind_class(struct event_queue *q, uint32_t kind, uint32_t cls);
void eq_free(struct event_queue *q);
/* Schedules an event (defined below, after the invariant macros: the
 * common case inline, the rest in events.c's eq_push_slow). */
static inline void eq_push_aux(struct event_queue *q, simtime_ps time_ps, uint32_t kind, uint32_t id, uint32_t aux);
static inline void eq_push(struct event_queue *q, simtime_ps time_ps, uint32_t kind, uint32_t id)
{
    eq_push_aux(q, time_ps, kind, id, 0);
}
/* All pending events: the FIFOs' lengths and the other heap's, summed
 * when asked (rarely) rather than counted on every push and pop. */
size_t eq_count(const struct event_queue *q);
/* Schedules an event with the sequence `seq` given (not the counter's):
 * an event made by another process of a parallel run, keyed as it was
 * there. Such events go to a FIFO of their own while they come in (time,
 * seq) order (from one sender they do: its departures' order plus one
 * link latency), else to the heap; the order of pops is the same either
 * way. */
void eq_push_import(struct event_queue *q, simtime_ps time_ps, uint64_t seq, uint32_t kind, uint32_t id, uint32_t aux);
/* Removes the earliest event into *out; returns false when empty. */
bool eq_pop(struct event_queue *q, struct event *out);
/* The same if the earliest event's time is at most until_ps; false (and
 * nothing removed) when it is later or the queue is empty. */
bool eq_pop_until(struct event_queue *q, simtime_ps until_ps, struct event *out);
/* Time of the earliest pending event, SIMTIME_NEVER when empty. */
simtime_ps eq_peek_time(const struct event_queue *q);
/* The earliest pending event (not removed), or NULL when empty. */
const struct event *eq_peek(const struct event_queue *q);
/* Events due soon (for prefetching): out[i] is the event places[i]
 * places behind the earliest in its delay's FIFO (not the k-th earliest
 * event overall; 0 is the earliest itself), NULL when that FIFO is
 * shorter or the earliest event is not in a FIFO. */
void eq_peek_fifo_ahead(const struct event_queue *q, uint32_t n, const uint32_t *places, const struct event **out);
/* Calls fn for every pending event, in no particular order. */
void eq_visit(const struct event_queue *q, void (*fn)(const struct event *e, void *ctx), void *ctx);

/* ---- random numbers ---------------------------------------------------- */

struct rng {
    uint64_t s[4];
};

/* Streams are named so that a module's draws depend only on (seed, stream). */
enum rng_stream {
    RNG_STREAM_ECN = 1,    /* RED marking decisions at switch ports */
    RNG_STREAM_LB = 2,     /* per-flow load-balancer randomness (xor masks) */
    RNG_STREAM_HASH = 3,   /* per-switch ECMP hash salts */
    RNG_STREAM_WORKLOAD = 4,
    RNG_STREAM_ROUTING = 5, /* adaptive routing's tie breaks */
    RNG_STREAM_RECEIVER_CC = 6, /* receiver-credit rate control: update intervals, skipped pulls */
    RNG_STREAM_TEST = 99,
};

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream, uint64_t substream);
uint64_t rng_next(struct rng *r);
/* Uniform integer in [0, n) without modulo bias. n must be > 0. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Uniform double in [0, 1). */
double rng_uniform(struct rng *r);

/* A stateless 64-bit mixer (splitmix64 finaliser), used for ECMP hashing. */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* ---- version ------------------------------------------------------------- */

/* The release ("0.4.0") and the git commit the binary was built from
 * ("1a2b3c4d5e6f", "-dirty" appended for uncommitted changes, "unknown"
 * outside a checkout): printed by --version, recorded in summary.json. */
extern const char spraysim_version[];
extern const char spraysim_commit[];

/* ---- errors and memory --------------------------------------------------- */

/* Bad user input: prints "spraysim: <message>" on one line, exits 2. Bytes
 * that could break the line or drive a terminal (control characters, DEL)
 * are shown as '?', whatever file or flag they came from. */
_Noreturn void die_input(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Input that is legal but surely not what was meant (a connection that
 * starts after -end): "spraysim: warning: <message>" on one line, and the
 * run goes on. */
void warn_input(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Internal failure (out of memory, I/O): prints and exits 1. */
_Noreturn void die_internal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- invariants ---------------------------------------------------------- */

/* invariant(cond, fmt, ...): a property the code relies on. With
 * SPRAYSIM_CHECKS defined (make asan, make debug) a false condition prints
 * "spraysim: invariant failed at file:line: <message>" and aborts, so a
 * sanitizer or a debugger shows the stack; without it (the shipped build)
 * the macro expands to nothing and its arguments are never evaluated, so
 * checks may walk whole queues and cost nothing where they are off. Code
 * that exists only to feed a check belongs in #ifdef SPRAYSIM_CHECKS. */
#ifdef SPRAYSIM_CHECKS
/* Where a failed invariant goes: the default prints the line above and
 * aborts. Tests point it elsewhere to see a check fire, and put it back. */
typedef void (*invariant_hook_fn)(const char *file, int line, const char *message);
extern invariant_hook_fn invariant_hook;
void invariant_hook_default(const char *file, int line, const char *message);
void invariant_failed(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define invariant(cond, ...) ((cond) ? (void)0 : invariant_failed(__FILE__, __LINE__, __VA_ARGS__))
#else
#define invariant(cond, ...) ((void)0)
#endif

/* The event queue's push (events.c says how the queue works). The common
 * case, inline at its few callers: a delay whose FIFO the hash table's
 * slot names, a FIFO neither empty nor full, and an event that sorts after
 * the FIFO's last. Everything else (an empty or full ring, an insertion,
 * a delay without a FIFO, the other heap) is eq_push_slow's, given the
 * event's order (sequence and kind) already numbered. Inline, the push
 * saves its call and the five registers the out-of-line version saved and
 * restored (docs/performance.md "Performance", third round). */
void eq_push_slow(struct event_queue *q, simtime_ps time_ps, uint64_t order, uint32_t id, uint32_t aux);
static inline void eq_push_aux(struct event_queue *q, simtime_ps time_ps, uint32_t kind, uint32_t id, uint32_t aux)
{
    invariant(!q->monotonic || time_ps >= q->last_pop_ps,
              "event kind %u id %u scheduled at %llu ps, before the current %llu ps", kind, id,
              (unsigned long long)time_ps, (unsigned long long)q->last_pop_ps);
    const uint64_t order = ((*q->seq_next)++ & ((1ULL << 56) - 1)) << 8 | (kind & 0xff);
    q->pushed_total++;
    /* wraps around when time_ps is before now_ps, to a delay too large for
     * a FIFO unless now_ps is near 2^64 (then the check against the
     * FIFO's last event catches it) */
    const simtime_ps delay_ps = time_ps - q->now_ps;
    const uint64_t fkey = eq_fifo_key(delay_ps, q->pop_class);
    const uint32_t i = q->fifo_slot[eq_fifo_slot(fkey)];
    if (__builtin_expect(delay_ps < EQ_FIFO_DELAY_LIMIT_PS && q->fifo_key[i] == fkey, 1)) {
        struct ev_fifo *f = &q->fifo[i];
        const uint32_t len = f->len, pos = f->head + len;
        struct event *ring = f->ev;
        /* the FIFO's last event is never later (pushed at an earlier or
         * equal clock with this delay): only a tie in time can put the
         * new one before it. len - 1 < cap - 1: neither empty nor full. */
        if (__builtin_expect(len - 1 < f->cap - 1 &&
                                 ev_key(&ring[(pos - 1) & f->mask]) < ((eq_key)time_ps << 64 | order),
                             1)) {
            /* written in place, not built and copied: see events.c */
            struct event *slot = &ring[pos & f->mask];
            slot->time_ps = time_ps;
            slot->order = order;
            slot->id = id;
            slot->aux = aux;
            f->len = len + 1;
            f->pushes++;
            return;
        }
    }
    eq_push_slow(q, time_ps, order, id, aux);
}

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);

/* Writes a whole buffer to path atomically: a temporary file in the same
 * directory, fsync'd, then renamed over path. Returns false on failure. */
bool write_file_atomic(const char *path, const char *data, size_t len);

/* A growable text buffer for building outputs before the atomic write. */
struct strbuf {
    char *data;
    size_t len;
    size_t cap;
};
void sb_init(struct strbuf *b);
void sb_free(struct strbuf *b);
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* printf's output without printf (util.c): a character, a string, "%llu",
 * picoseconds as "%llu.%06llu" microseconds, "%.0f" */
void sb_putc(struct strbuf *b, char c);
void sb_puts(struct strbuf *b, const char *str);
void sb_u64(struct strbuf *b, uint64_t v);
void sb_ps_as_us(struct strbuf *b, uint64_t ps);
void sb_f0(struct strbuf *b, double x);

#endif
