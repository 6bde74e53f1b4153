/* test_goal_read.c: the GOAL text reader's edges (src/workload/goal.c),
 * apart from test_goal.c's runs so that a wrong reader fails in a fraction
 * of a second (tools/mutation.py runs this program for every mutant of
 * src/workload/, issue 26).
 *
 * The lexer stops at the buffer's length, not at a NUL: goal_read_buffer
 * takes (data, len), and a byte just past len that would extend a token
 * or close a comment must not be read. The label table (open addressing,
 * 1,024 slots, doubling at half full) finds every label of a rank with
 * thousands of them, colliding and growing. A rank block's number is
 * checked at both ends of its range.
 */
#include "testutil.h"
#include "malloc_check.h"

#include <fcntl.h>
#include <sys/mman.h>

#include "workload/goal.h"

/* The first len bytes of text, which must read. */
static void read_len_ok(struct goal_sched *g, const char *text, size_t len)
{
    char err[1024];
    if (!goal_read_buffer(g, "t.goal", (const unsigned char *)text, len, err, sizeof err))
        fail_msg("refused: %s", err);
}

/* The first len bytes of text are refused with exactly the message want. */
static void read_len_bad(const char *text, size_t len, const char *want)
{
    struct goal_sched g;
    char err[1024] = "";
    if (goal_read_buffer(&g, "t.goal", (const unsigned char *)text, len, err, sizeof err)) {
        goal_sched_free(&g);
        fail_msg("accepted, expected '%s'", want);
    }
    if (strcmp(err, want))
        fail_msg("message '%s', expected '%s'", err, want);
}

#define ONE_RANK "num_ranks 1\nrank 0 {\n}\n"

/* Each text below is read without its last byte: what the reader sees
 * ends one byte earlier, and the last byte (which would change the
 * outcome if it were read) is not. */
static void test_lexer_stops_at_the_length(void **state)
{
    (void)state;
    const char *t;
    /* an identifier and a number end at the length */
    t = ONE_RANK "ab";
    read_len_bad(t, strlen(t) - 1, "t.goal:4: expected 'num_ranks' or 'rank', found 'a'");
    t = ONE_RANK "72";
    read_len_bad(t, strlen(t) - 1, "t.goal:4: expected 'num_ranks' or 'rank', found '7'");
    /* a '/' at the end opens no comment, whatever follows it */
    t = ONE_RANK "//";
    read_len_bad(t, strlen(t) - 1, "t.goal:4: expected 'num_ranks' or 'rank', found '/'");
    t = ONE_RANK "/*";
    read_len_bad(t, strlen(t) - 1, "t.goal:4: expected 'num_ranks' or 'rank', found '/'");
    /* a block comment whose closing '/' is past the length is open */
    t = ONE_RANK "/* x */";
    read_len_bad(t, strlen(t) - 1, "t.goal:4: a comment opened here is never closed");
    t = ONE_RANK "/**/";
    read_len_bad(t, strlen(t) - 1, "t.goal:4: a comment opened here is never closed");
    /* a '-' at the end is no "-1" */
    t = "num_ranks 1\nrank 0 {\nrecv 5b from -1";
    read_len_bad(t, strlen(t) - 1, "t.goal:3: expected a rank, found '-'");
    /* the same texts whole read (or fail later), so the cut is what counts */
    struct goal_sched g;
    t = ONE_RANK "/* x */";
    read_len_ok(&g, t, strlen(t));
    goal_sched_free(&g);
    t = ONE_RANK "//";
    read_len_ok(&g, t, strlen(t));
    goal_sched_free(&g);
    t = ONE_RANK "/**/";
    read_len_ok(&g, t, strlen(t));
    goal_sched_free(&g);
    /* a comment that closes at the very end, and one line comment at the end */
    t = ONE_RANK "/* a */// b";
    read_len_ok(&g, t, strlen(t));
    assert_int_equal(g.n_ranks, 1);
    goal_sched_free(&g);
}

/* A rank block's number: 0 .. num_ranks - 1. */
static void test_rank_block_number_range(void **state)
{
    (void)state;
    const char *t = "num_ranks 2\nrank 0 {\n}\nrank 1 {\n}\nrank 2 {\n}\n";
    read_len_bad(t, strlen(t), "t.goal:6: rank 2 is out of range: num_ranks is 2");
    t = "num_ranks 1\nrank 0 {\n}\nrank 1 {\n}\n";
    read_len_bad(t, strlen(t), "t.goal:4: rank 1 is out of range: num_ranks is 1");
    struct goal_sched g;
    t = "num_ranks 2\nrank 0 {\n}\nrank 1 {\ncalc 3\n}\n";
    read_len_ok(&g, t, strlen(t));
    assert_int_equal(g.n_ops, 1);
    assert_int_equal(g.ops[0].rank, 1);
    assert_int_equal(g.rank_first[0], 0);
    assert_int_equal(g.rank_first[1], 0);
    assert_int_equal(g.rank_first[2], 1);
    goal_sched_free(&g);
}

/* N labelled calcs per rank in two ranks, each requiring the one before
 * (rank 0) or irequiring it (rank 1), the dependencies written after all
 * the labels in reverse order: 3,000 labels make the 1,024-slot table
 * grow twice and collide many times, and every label must be found. */
static void test_many_labels_all_found(void **state)
{
    (void)state;
    enum { N = 3000 };
    struct strbuf b;
    sb_init(&b);
    sb_printf(&b, "num_ranks 2\n");
    for (int r = 0; r < 2; r++) {
        sb_printf(&b, "rank %d {\n", r);
        for (int i = 0; i < N; i++)
            sb_printf(&b, "op%d: calc %d\n", i, i + 1);
        for (int i = N - 1; i > 0; i--)
            sb_printf(&b, "op%d %s op%d\n", i, r ? "irequires" : "requires", i - 1);
        sb_printf(&b, "}\n");
    }
    struct goal_sched g;
    read_len_ok(&g, b.data, b.len);
    sb_free(&b);
    assert_int_equal(g.n_ops, 2 * N);
    assert_int_equal(g.n_succ, 2 * (N - 1));
    for (uint32_t r = 0; r < 2; r++) {
        for (uint32_t i = 0; i < N; i++) {
            const struct goal_op *o = &g.ops[r * N + i];
            assert_int_equal(o->size, i + 1);
            assert_int_equal(o->n_deps, i ? 1 : 0);
            assert_int_equal(r ? o->n_done : o->n_start, 0);
            uint32_t n = r ? o->n_start : o->n_done;
            assert_int_equal(n, i + 1 < N ? 1 : 0);
            if (n)
                assert_int_equal(g.succ[r ? o->start_first : o->done_first], r * N + i + 1);
        }
    }
    goal_sched_free(&g);
    /* the table is cleared between ranks: rank 1 may reuse rank 0's labels,
     * and rank 0's labels are not rank 1's */
    const char *t = "num_ranks 2\nrank 0 {\na: calc 1\n}\nrank 1 {\na: calc 2\nb: calc 3\nb requires a\n}\n";
    read_len_ok(&g, t, strlen(t));
    assert_int_equal(g.ops[1].n_done, 1);
    assert_int_equal(g.succ[g.ops[1].done_first], 2);
    assert_int_equal(g.ops[0].n_done, 0);
    goal_sched_free(&g);
    t = "num_ranks 2\nrank 0 {\na: calc 1\n}\nrank 1 {\nb: calc 3\nb requires a\n}\n";
    read_len_bad(t, strlen(t), "t.goal:7: label 'a' is not defined in rank 1");
}

/* An empty schedule still has one CPU and one NIC per rank; a NUL byte
 * makes a file binary (and refused as neither kind), any other control
 * byte is a bad token of a text schedule. */
static void test_empty_schedule_and_nul_bytes(void **state)
{
    (void)state;
    struct goal_sched g;
    const char *t = "num_ranks 3\nrank 0 {\n}\nrank 1 {\n}\nrank 2 {\n}\n";
    read_len_ok(&g, t, strlen(t));
    assert_int_equal(g.n_ops, 0);
    assert_int_equal(g.n_cpus, 1);
    assert_int_equal(g.n_nics, 1);
    assert_false(g.has_wildcards);
    goal_sched_free(&g);
    static const char nul[] = "num_ranks 1\nrank 0 {\n}\n\0";
    /* the magic shown is the first 8 bytes, "num_rank", little-endian */
    read_len_bad(nul, sizeof nul - 1,
                 "t.goal: neither a GOAL text schedule (it has NUL bytes) nor a binary one (magic 7741231953351636334, "
                 "not 4223)");
    /* fewer than 8 bytes have no magic (0); 8 bytes of the binary magic
     * are a binary schedule cut in its header */
    read_len_bad("ab\0", 3, "t.goal: neither a GOAL text schedule (it has NUL bytes) nor a binary one (magic 0, not 4223)");
    static const char magic8[8] = {0x7f, 0x10, 0, 0, 0, 0, 0, 0}; /* 4223, little-endian */
    read_len_bad(magic8, 8, "t.goal: truncated: 8 bytes, the header alone needs 14");
    /* shown() writes a control byte as '?' */
    read_len_bad(ONE_RANK "\001", strlen(ONE_RANK) + 1, "t.goal:4: expected 'num_ranks' or 'rank', found '?'");
}

/* ---- binary schedules, built field by field (goal.c's header comment) ---- */

struct brec {
    uint32_t n_deps;
    uint8_t type;
    uint32_t peer;
    uint64_t size;
    uint32_t tag;
    uint8_t cpu, nic;
    uint32_t nd, fd, ns, fs;
};
struct brank {
    uint32_t n;
    const struct brec *rec;
    uint32_t n_roots;
    const uint32_t *roots;
    uint32_t n_apx;
    const uint32_t *apx;
};

static unsigned char *put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return p + bytes;
}

/* txt2bin's layout of the ranks into out (room enough); returns its length. */
static size_t bin_build(unsigned char *out, uint32_t n_ranks, const struct brank *rk)
{
    unsigned char *p = put(out, 4223, 8);
    p = put(p, n_ranks, 4);
    p = put(p, 0, 1);
    p = put(p, 0, 1);
    uint64_t at = 6 + 16ull * n_ranks; /* offsets count from byte 8 */
    for (uint32_t r = 0; r < n_ranks; r++) {
        uint64_t size = 8 + 4ull * rk[r].n_roots + 39ull * rk[r].n + 4ull * rk[r].n_apx;
        p = put(p, at, 8);
        p = put(p, at + size, 8);
        at += size;
    }
    for (uint32_t r = 0; r < n_ranks; r++) {
        p = put(p, rk[r].n, 4);
        p = put(p, rk[r].n_roots, 4);
        for (uint32_t k = 0; k < rk[r].n_roots; k++)
            p = put(p, rk[r].roots[k], 4);
        for (uint32_t k = 0; k < rk[r].n; k++) {
            const struct brec *c = &rk[r].rec[k];
            p = put(p, c->n_deps, 4);
            p = put(p, c->type, 1);
            p = put(p, c->peer, 4);
            p = put(p, c->size, 8);
            p = put(p, c->tag, 4);
            p = put(p, c->cpu, 1);
            p = put(p, c->nic, 1);
            p = put(p, c->nd, 4);
            p = put(p, c->fd, 4);
            p = put(p, c->ns, 4);
            p = put(p, c->fs, 4);
        }
        for (uint32_t k = 0; k < rk[r].n_apx; k++)
            p = put(p, rk[r].apx[k], 4);
    }
    assert_int_equal((size_t)(p - out), 8 + at);
    return (size_t)(p - out);
}

static void bin_bad(const unsigned char *d, size_t len, const char *want)
{
    struct goal_sched g;
    char err[1024] = "";
    if (goal_read_buffer(&g, "b.bin", d, len, err, sizeof err)) {
        goal_sched_free(&g);
        fail_msg("accepted, expected '%s'", want);
    }
    if (strcmp(err, want))
        fail_msg("message '%s', expected '%s'", err, want);
}

static void bin_ok(struct goal_sched *g, const unsigned char *d, size_t len)
{
    char err[1024];
    if (!goal_read_buffer(g, "b.bin", d, len, err, sizeof err))
        fail_msg("refused: %s", err);
}

/* Rank 0: a send to rank 1 (tag 5, cpu 1, nic 2), a calc that requires
 * it and a second calc that irequires it; rank 1: the matching receive
 * from any rank with any tag. Every field lands where the layout says. */
static void test_binary_fields(void **state)
{
    (void)state;
    unsigned char d[4096];
    const struct brec r0[3] = {
        {.type = GOAL_SEND, .peer = 1, .size = 0x0102030405ull, .tag = 5, .cpu = 1, .nic = 2, .nd = 1, .fd = 0, .ns = 1,
         .fs = 1},
        {.n_deps = 1, .type = GOAL_CALC, .peer = 77, .size = 9, .tag = 8},
        {.n_deps = 1, .type = GOAL_CALC, .size = 10, .cpu = 3},
    };
    const struct brec r1[1] = {{.type = GOAL_RECV, .peer = GOAL_ANY, .size = 0x0102030405ull, .tag = GOAL_ANY}};
    const uint32_t roots0[1] = {0}, apx0[2] = {1, 2}, roots1[1] = {0};
    const struct brank rk[2] = {{3, r0, 1, roots0, 2, apx0}, {1, r1, 1, roots1, 0, NULL}};
    size_t len = bin_build(d, 2, rk);
    struct goal_sched g;
    bin_ok(&g, d, len);
    assert_true(g.binary);
    assert_int_equal(g.n_ranks, 2);
    assert_int_equal(g.n_ops, 4);
    assert_int_equal(g.rank_first[0], 0);
    assert_int_equal(g.rank_first[1], 3);
    assert_int_equal(g.rank_first[2], 4);
    assert_int_equal(g.n_succ, 2);
    const struct goal_op *o = g.ops;
    assert_int_equal(o[0].type, GOAL_SEND);
    assert_int_equal(o[0].peer, 1);
    assert_int_equal(o[0].size, 0x0102030405ull);
    assert_int_equal(o[0].tag, 5);
    assert_int_equal(o[0].cpu, 1);
    assert_int_equal(o[0].nic, 2);
    assert_int_equal(o[0].n_done, 1);
    assert_int_equal(o[0].n_start, 1);
    assert_int_equal(g.succ[o[0].done_first], 1);
    assert_int_equal(g.succ[o[0].start_first], 2);
    assert_int_equal(o[1].n_deps, 1);
    assert_int_equal(o[1].peer, 0); /* a calc has no peer or tag */
    assert_int_equal(o[1].tag, 0);
    assert_int_equal(o[1].size, 9);
    assert_int_equal(o[2].line, 2);
    assert_int_equal(o[3].rank, 1);
    assert_int_equal(o[3].line, 0);
    assert_int_equal(o[3].peer, GOAL_ANY);
    assert_int_equal(o[3].tag, GOAL_ANY);
    assert_int_equal(g.n_cpus, 4);
    assert_int_equal(g.n_nics, 3);
    assert_int_equal(g.n_sends, 1);
    assert_int_equal(g.n_recvs, 1);
    assert_int_equal(g.n_calcs, 2);
    assert_true(g.has_wildcards);
    goal_sched_free(&g);
}

/* Every check of the binary reader at both sides of its bound. */
static void test_binary_bounds(void **state)
{
    (void)state;
    unsigned char d[4096], e[4096];
    struct goal_sched g;
    /* one rank, one calc; the dependants table of `apx` entries */
    struct brec c = {.type = GOAL_CALC, .size = 1};
    uint32_t roots[1] = {0}, apx[2] = {0, 0};
    struct brank rk = {1, &c, 1, roots, 0, NULL};
    size_t len = bin_build(d, 1, &rk);
    bin_ok(&g, d, len);
    goal_sched_free(&g);
    /* the header: 14 bytes */
    bin_bad(d, 13, "b.bin: truncated: 13 bytes, the header alone needs 14");
    bin_bad(d, 14, "b.bin: truncated: 14 bytes, the jump table of 1 ranks needs 30");
    bin_bad(d, 29, "b.bin: truncated: 29 bytes, the jump table of 1 ranks needs 30");
    bin_bad(d, 30, "b.bin: rank 0: truncated: its records end at byte 81 but the file has 30 bytes");
    memcpy(e, d, len);
    put(e + 8, 0, 4);
    bin_bad(e, len, "b.bin: the header says 0 ranks");
    memcpy(e, d, len);
    put(e, 2342, 8);
    bin_bad(e, len, "b.bin: a binary schedule that a LogGOPSim --save-mem run invalidated (magic 2342)");
    /* the jump table: the rank's bytes must lie after it and inside the file */
    memcpy(e, d, len);
    put(e + 14, 21, 8); /* start 21: one byte into the table */
    bin_bad(e, len, "b.bin: rank 0: the jump table gives bytes 29 .. 81, outside the file's 81");
    memcpy(e, d, len);
    put(e + 14, 74, 8); /* start after end */
    put(e + 22, 73, 8);
    bin_bad(e, len, "b.bin: rank 0: the jump table gives bytes 82 .. 81, outside the file's 81");
    memcpy(e, d, len);
    put(e + 22, 30, 8); /* 8 bytes from start 22: counts only */
    put(e + 30, 0, 4);  /* no records */
    put(e + 34, 0, 4);  /* no roots */
    bin_ok(&g, e, 38);
    assert_int_equal(g.n_ops, 0);
    goal_sched_free(&g);
    put(e + 22, 29, 8);
    bin_bad(e, 37, "b.bin: rank 0: truncated: 7 bytes, its counts alone need 8");
    /* records and roots against the rank's extent */
    memcpy(e, d, len);
    put(e + 22, 72, 8);
    bin_bad(e, len - 1, "b.bin: rank 0: truncated: 1 records and 1 roots need 51 bytes, the rank has 50");
    memcpy(e, d, len);
    put(e + 22, 74, 8);
    e[len] = 0;
    bin_bad(e, len + 1, "b.bin: rank 0: its dependants table is 1 bytes, not whole 4-byte entries");
    put(e + 22, 76, 8);
    bin_bad(e, len + 3, "b.bin: rank 0: its dependants table is 3 bytes, not whole 4-byte entries");
    /* roots and dependants name records 0 .. n - 1 */
    memcpy(e, d, len);
    put(e + 30 + 8, 1, 4);
    bin_bad(e, len, "b.bin: rank 0: root 0 names record 1 of 1");
    /* the second root of two names record 5 */
    uint32_t roots2[2] = {0, 5};
    struct brank rk3 = {1, &c, 2, roots2, 0, NULL};
    size_t len3 = bin_build(e, 1, &rk3);
    bin_bad(e, len3, "b.bin: rank 0: root 1 names record 5 of 1");
    /* a dependants entry: record n is past the end; fd + nd at the table's end */
    struct brec c2[2] = {{.type = GOAL_CALC, .size = 1, .nd = 1, .fd = 0}, {.n_deps = 1, .type = GOAL_CALC, .size = 2}};
    apx[0] = 1;
    struct brank rk2 = {2, c2, 1, roots, 1, apx};
    len = bin_build(d, 1, &rk2);
    bin_ok(&g, d, len);
    assert_int_equal(g.succ[g.ops[0].done_first], 1);
    goal_sched_free(&g);
    apx[0] = 2;
    len = bin_build(d, 1, &rk2);
    bin_bad(d, len, "b.bin: rank 0: dependants entry 0 names record 2 of 2");
    apx[0] = 1;
    c2[0].fd = 1; /* fd + nd = 2 > 1 entry (fd - nd would be 0) */
    len = bin_build(d, 1, &rk2);
    bin_bad(d, len, "b.bin: rank 0, record 0: its dependants run past the rank's 1 entries");
    c2[0] = (struct brec){.type = GOAL_CALC, .size = 1, .ns = 1, .fs = 0};
    len = bin_build(d, 1, &rk2);
    bin_ok(&g, d, len);
    assert_int_equal(g.ops[0].n_start, 1);
    assert_int_equal(g.succ[g.ops[0].start_first], 1);
    goal_sched_free(&g);
    c2[0].fs = 1;
    len = bin_build(d, 1, &rk2);
    bin_bad(d, len, "b.bin: rank 0, record 0: its dependants run past the rank's 1 entries");
    /* the dependency count against the entries naming the record */
    c2[0] = (struct brec){.type = GOAL_CALC, .size = 1, .nd = 1, .fd = 0};
    c2[1].n_deps = 2;
    len = bin_build(d, 1, &rk2);
    bin_bad(d, len, "b.bin: rank 0, record 1: dependency count 2, but 1 records name it");
    c2[1].n_deps = 0;
    len = bin_build(d, 1, &rk2);
    bin_bad(d, len, "b.bin: rank 0, record 1: dependency count 0, but 1 records name it");
    /* types 1 .. 3 */
    c2[1].n_deps = 1;
    c2[1].type = 0;
    len = bin_build(d, 1, &rk2);
    bin_bad(d, len, "b.bin: rank 0, record 1: operation type 0 (1 send, 2 recv, 3 calc)");
    c2[1].type = 4;
    len = bin_build(d, 1, &rk2);
    bin_bad(d, len, "b.bin: rank 0, record 1: operation type 4 (1 send, 2 recv, 3 calc)");
}

/* Peers: 0 .. ranks - 1, and any rank (-1) for a receive only. */
static void test_binary_peers(void **state)
{
    (void)state;
    unsigned char d[4096];
    struct goal_sched g;
    struct brec s = {.type = GOAL_SEND, .peer = 1, .size = 8}, r = {.type = GOAL_RECV, .peer = 0, .size = 8};
    uint32_t roots[1] = {0};
    struct brank rk[2] = {{1, &s, 1, roots, 0, NULL}, {1, &r, 1, roots, 0, NULL}};
    size_t len = bin_build(d, 2, rk);
    bin_ok(&g, d, len);
    assert_int_equal(g.ops[0].peer, 1);
    assert_false(g.has_wildcards);
    goal_sched_free(&g);
    r.peer = GOAL_ANY;
    len = bin_build(d, 2, rk);
    bin_ok(&g, d, len);
    assert_int_equal(g.ops[1].peer, GOAL_ANY);
    assert_true(g.has_wildcards);
    goal_sched_free(&g);
    r.peer = 2;
    len = bin_build(d, 2, rk);
    bin_bad(d, len, "b.bin: rank 1, record 0: recv from rank 2, out of range: the schedule has 2 ranks");
    r.peer = 0;
    s.peer = 2;
    len = bin_build(d, 2, rk);
    bin_bad(d, len, "b.bin: rank 0, record 0: send to rank 2, out of range: the schedule has 2 ranks");
    s.peer = GOAL_ANY;
    len = bin_build(d, 2, rk);
    bin_bad(d, len, "b.bin: rank 0, record 0: send to rank 4294967295, out of range: the schedule has 2 ranks");
}

/* --goal-map: "RANK HOST [HOST ...]", one host per NIC, hosts 0 .. 2^24 - 1
 * (the largest fabric's), every rank once, lines up to 4,095 bytes. */
static void map_bad(const struct goal_sched *g, const char *text, const char *want_after_path)
{
    uint32_t hosts[8];
    char err[1024] = "", want[1024];
    const char *path = temp_file(text, ".map");
    if (goal_read_map(g, path, hosts, err, sizeof err))
        fail_msg("map '%s' accepted, expected '%s'", text, want_after_path);
    snprintf(want, sizeof want, "%s%s", path, want_after_path);
    if (strcmp(err, want))
        fail_msg("message '%s', expected '%s'", err, want);
}

static void test_map_bounds(void **state)
{
    (void)state;
    struct goal_sched g;
    const char *t = "num_ranks 2\nrank 0 {\nsend 8b to 1 nic 1\n}\nrank 1 {\nrecv 8b from 0 nic 1\n}\n";
    read_len_ok(&g, t, strlen(t));
    assert_int_equal(g.n_nics, 2);
    uint32_t hosts[8] = {0};
    char err[1024];
    const char *path = temp_file("# rank 0 at the largest host\n1 4 5 # two NICs\n\t0 16777215\t3\r\n", ".map");
    if (!goal_read_map(&g, path, hosts, err, sizeof err))
        fail_msg("refused: %s", err);
    assert_int_equal(hosts[0], 16777215);
    assert_int_equal(hosts[1], 3);
    assert_int_equal(hosts[2], 4);
    assert_int_equal(hosts[3], 5);
    map_bad(&g, "0 16777216 3\n1 4 5\n", ":1: '16777216' is not a host number (0 to 16777215)");
    map_bad(&g, "0 x 3\n1 4 5\n", ":1: 'x' is not a host number (0 to 16777215)");
    map_bad(&g, "0 1 3\n2 4 5\n", ":2: '2' is not a rank of the schedule (0 to 1)");
    map_bad(&g, "0 1\n1 4 5\n", ":1: rank 0 needs 2 hosts, one per NIC of the schedule");
    map_bad(&g, "0 1 2\n1 4 5 6\n", ":2: '6' after rank 1's 2 hosts (the schedule uses 2 NICs)");
    map_bad(&g, "0 1 2\n\n0 4 5\n", ":3: rank 0 is mapped twice (first on line 1)");
    map_bad(&g, "1 1 2\n", ": rank 0 has no line (every rank of the schedule needs a host)");
    map_bad(&g, "0 1 2\n", ": rank 1 has no line (every rank of the schedule needs a host)");
    /* a line of 4,095 bytes is read, one of 4,096 is not */
    char line[4200];
    memset(line, ' ', sizeof line);
    memcpy(line, "0 1 2", 5);
    memcpy(line + 4095, "\n1 4 5\n", 8);
    path = temp_file(line, ".map");
    if (!goal_read_map(&g, path, hosts, err, sizeof err))
        fail_msg("a 4,095-byte line refused: %s", err);
    assert_int_equal(hosts[1], 2);
    memset(line, ' ', sizeof line);
    memcpy(line, "0 1 2", 5);
    memcpy(line + 4096, "\n1 4 5\n", 8);
    map_bad(&g, line, ":1: line longer than 4095 bytes");
    goal_sched_free(&g);
    /* one NIC: one host a line, the words singular */
    t = "num_ranks 2\nrank 0 {\n}\nrank 1 {\n}\n";
    read_len_ok(&g, t, strlen(t));
    map_bad(&g, "0\n", ":1: rank 0 needs 1 host, one per NIC of the schedule");
    map_bad(&g, "0 1 2\n", ":1: '2' after rank 0's 1 host (the schedule uses 1 NIC)");
    goal_sched_free(&g);
}

/* Every refusal of the text reader, its message exact (issue 26). */
static void bad(const char *text, const char *want)
{
    read_len_bad(text, strlen(text), want);
}

#define R1 "num_ranks 1\nrank 0 {\n"
#define R2 "num_ranks 2\nrank 0 {\n"

static void test_text_refusals_exact(void **state)
{
    (void)state;
    bad("num_ranks", "t.goal:1: expected the number of ranks, found the end of the file");
    bad("num_ranks\n", "t.goal:1: expected the number of ranks, found the end of the line");
    bad("num_ranks 0\n", "t.goal:1: num_ranks 0: a schedule needs at least one rank");
    bad("num_ranks 4294967295\n", "t.goal:1: the number of ranks 4294967295 is out of range (at most 4294967294)");
    bad("num_ranks 4294967294\n", "t.goal:1: num_ranks 4294967294, but the file's 21 bytes cannot hold that many rank "
                                  "blocks");
    /* num_ranks up to the file's length in bytes (31 here) passes that first check */
    bad("num_ranks 31\n// 45678901234567\n", "t.goal:3: rank 0 has no block (num_ranks is 31): is the file cut short?");
    bad("num_ranks 32\n// 45678901234567\n", "t.goal:1: num_ranks 32, but the file's 31 bytes cannot hold that many "
                                              "rank blocks");
    bad("num_ranks 1\nnum_ranks 1\n", "t.goal:2: a second num_ranks line (the first is line 1)");
    bad("num_ranks 1\nrank x {\n}\n", "t.goal:2: expected a rank number, found 'x'");
    bad("num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n", "t.goal:4: rank 0 has a second block");
    bad("num_ranks 2\nrank 1 {\n}\n",
        "t.goal:2: rank 1's block comes where rank 0's is expected (blocks go in rank order, as txt2bin writes them)");
    bad("num_ranks 1\nrank 0 calc\n", "t.goal:2: expected '{', found 'calc'");
    bad("num_ranks 1\nsend\n", "t.goal:2: expected 'num_ranks' or 'rank', found 'send'");
    bad(R1 "5\n}\n", "t.goal:3: expected an operation, a label, a dependency or '}', found '5'");
    bad(R2 "send 5b 1\n}\n", "t.goal:3: expected 'to', found '1'");
    bad(R2 "recv 5b to 1\n}\n", "t.goal:3: expected 'from', found 'to'");
    bad(R2 "send 5b to -1\n}\n", "t.goal:3: expected a rank, found '-1'");
    bad(R2 "send 5b to 1 tag x\n}\n", "t.goal:3: expected a tag, found 'x'");
    bad(R2 "send 5b to 1 tag 4294967295\n}\n", "t.goal:3: a tag 4294967295 is out of range (at most 4294967294)");
    bad(R2 "send 5b to 1 tag 1 tag 2\n}\n", "t.goal:3: expected 'tag', 'cpu', 'nic' or the end of the line, found 'tag'");
    bad(R2 "send 5b to 1 nic 256\n}\n", "t.goal:3: a nic 256 is out of range (at most 255)");
    bad(R2 "send 5b to 1 nic x\n}\n", "t.goal:3: expected a nic, found 'x'");
    bad(R2 "send 5b to 1 cpu 1 cpu 2\n}\n", "t.goal:3: expected 'tag', 'cpu', 'nic' or the end of the line, found 'cpu'");
    bad(R1 "calc 5 nic 0\n}\n", "t.goal:3: expected 'cpu' or the end of the line, found 'nic'");
    bad(R1 "calc x\n}\n", "t.goal:3: expected the calc's length (ns), found 'x'");
    bad(R1 "send x\n}\n", "t.goal:3: expected a size in bytes, found 'x'");
    bad(R1 "a: foo\n}\n", "t.goal:3: expected 'send', 'recv' or 'calc' after the label, found 'foo'");
    bad(R1 "a: send x\n}\n", "t.goal:3: expected a size in bytes, found 'x'");
    bad(R1 "a: calc 1\na requires 5\n}\n", "t.goal:4: expected a label, found '5'");
    bad(R1 "a: calc 1\nb: calc 1\na requires b c\n}\n", "t.goal:5: expected the end of the line, found 'c'");
    bad(R1 "a b\n}\n", "t.goal:3: expected ':', 'requires' or 'irequires' after a label, found 'b'");
    bad(R1 "a\n}\n", "t.goal:3: expected ':', 'requires' or 'irequires' after a label, found the end of the line");
    /* a label's name is cut at 40 bytes in messages */
    bad(R1 "a: calc 1\na requires bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n}\n",
        "t.goal:4: label 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' is not defined in rank 0");
    bad(R1 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: calc 1\n"
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: calc 2\n}\n",
        "t.goal:4: label 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' is defined twice in rank 0 (first on line 3)");
    /* tokens shown up to 40 bytes */
    bad("num_ranks 1\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
        "t.goal:2: expected 'num_ranks' or 'rank', found 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'");
    bad(R1 "send 123456789012345678901234567890123b to 0\n}\n",
        "t.goal:3: a size in bytes 123456789012345678901234567890 is out of range (at most 18446744073709551615)");
    /* the largest size and the largest rank count's tag are taken */
    struct goal_sched g;
    const char *t = R1 "send 18446744073709551615b to 0 tag 4294967294 cpu 255 nic 255\nrecv 1b from 0 tag 4294967294 "
                       "cpu 255 nic 255\n}\n";
    read_len_ok(&g, t, strlen(t));
    assert_true(g.ops[0].size == UINT64_MAX);
    assert_int_equal(g.ops[0].tag, 4294967294u);
    assert_int_equal(g.n_cpus, 256);
    assert_int_equal(g.n_nics, 256);
    goal_sched_free(&g);
    bad(R1 "send 18446744073709551616b to 0\n}\n",
        "t.goal:3: a size in bytes 18446744073709551616 is out of range (at most 18446744073709551615)");
}

/* The matching checks, one refusal each, at the op they name. */
static void test_matching_refusals_exact(void **state)
{
    (void)state;
    /* per destination the counts agree (2 and 2), per source they do not */
    bad("num_ranks 3\nrank 0 {\nrecv 8b from 1\nrecv 8b from 1\n}\nrank 1 {\n}\nrank 2 {\nsend 8b to 0\nsend 8b to 0\n}\n",
        "t.goal:4: unmatched receive: rank 0 posts 2 receives from rank 1, which sends it 0 messages");
    /* per source 2 and 2, per tag 2 sends of tag 1 for 1 receive of tag 1 */
    bad("num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 2\nrecv 8b from 1 tag 1\n}\nrank 1 {\nsend 8b to 0 tag 1\n"
        "send 8b to 0 tag 1\n}\n",
        "t.goal:8: unmatched send: rank 1 sends rank 0 2 messages with tag 1, which posts at most 1 receives that "
        "could take them");
    /* a receive from any rank or with any tag may take them */
    struct goal_sched g;
    const char *t = "num_ranks 2\nrank 0 {\nrecv 8b from -1 tag 2\nrecv 8b from 1 tag 1\n}\nrank 1 {\nsend 8b to 0 tag 1\n"
                    "send 8b to 0 tag 1\n}\n";
    read_len_ok(&g, t, strlen(t));
    goal_sched_free(&g);
    t = "num_ranks 2\nrank 0 {\nrecv 8b from 1 tag -1\nrecv 8b from 1 tag 1\n}\nrank 1 {\nsend 8b to 0 tag 1\n"
        "send 8b to 0 tag 1\n}\n";
    read_len_ok(&g, t, strlen(t));
    goal_sched_free(&g);
    /* a send with tag -1 may meet a receive of any tag */
    t = "num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 5\nrecv 8b from 1 tag 1\n}\nrank 1 {\nsend 8b to 0 tag -1\n"
        "send 8b to 0 tag 1\n}\n";
    read_len_ok(&g, t, strlen(t));
    assert_int_equal(g.ops[2].tag, GOAL_ANY);
    assert_true(g.has_wildcards);
    goal_sched_free(&g);
    /* tag 5: 3 receives, 1 send of tag 5 and 1 of tag -1 */
    bad("num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 5\nrecv 8b from 1 tag 5\nrecv 8b from 1 tag 5\n}\nrank 1 {\n"
        "send 8b to 0 tag -1\nsend 8b to 0 tag 5\nsend 8b to 0 tag 7\n}\n",
        "t.goal:5: unmatched receive: rank 0 posts 3 receives from rank 1 with tag 5, which sends it 2 such messages");
}

/* A cycle longer than the eight steps a message shows ends in "...", not
 * in a false "waits for" back to its first op (issue 26: the loop that
 * writes the chain runs round the whole cycle, so "..." never appeared
 * and a 10-op cycle read "line 12 waits for line 5"). The walk starts at
 * c0 (op 0, line 3, is not on the cycle) and goes 11 steps back along
 * "waits for": to c1, line 5. */
static void test_long_cycle_message(void **state)
{
    (void)state;
    struct strbuf b;
    sb_init(&b);
    sb_printf(&b, "num_ranks 1\nrank 0 {\nfree: calc 1\n"); /* line 3 */
    for (int i = 0; i < 10; i++)
        sb_printf(&b, "c%d: calc 1\n", i); /* lines 4 .. 13 */
    for (int i = 0; i < 10; i++)
        sb_printf(&b, "c%d requires c%d\n", i, (i + 1) % 10);
    sb_printf(&b, "}\n");
    read_len_bad(b.data, b.len,
                 "t.goal:5: dependency cycle in rank 0, no op on it can ever start: line 5 waits for line 6 waits "
                 "for line 7 waits for line 8 waits for line 9 waits for line 10 waits for line 11 waits for line 12 ...");
    sb_free(&b);
    /* nine ops: eight shown, then "..." */
    sb_init(&b);
    sb_printf(&b, "num_ranks 1\nrank 0 {\n");
    for (int i = 0; i < 9; i++)
        sb_printf(&b, "c%d: calc 1\n", i); /* lines 3 .. 11 */
    for (int i = 0; i < 9; i++)
        sb_printf(&b, "c%d requires c%d\n", i, (i + 1) % 9);
    sb_printf(&b, "}\n");
    read_len_bad(b.data, b.len,
                 "t.goal:3: dependency cycle in rank 0, no op on it can ever start: line 3 waits for line 4 waits "
                 "for line 5 waits for line 6 waits for line 7 waits for line 8 waits for line 9 waits for line 10 ...");
    sb_free(&b);
    /* eight ops: all shown, and the step back to the first */
    sb_init(&b);
    sb_printf(&b, "num_ranks 1\nrank 0 {\n");
    for (int i = 0; i < 8; i++)
        sb_printf(&b, "c%d: calc 1\n", i); /* lines 3 .. 10 */
    for (int i = 0; i < 8; i++)
        sb_printf(&b, "c%d requires c%d\n", i, (i + 1) % 8);
    sb_printf(&b, "}\n");
    read_len_bad(b.data, b.len,
                 "t.goal:3: dependency cycle in rank 0, no op on it can ever start: line 3 waits for line 4 waits "
                 "for line 5 waits for line 6 waits for line 7 waits for line 8 waits for line 9 waits for line 10 "
                 "waits for line 3");
    sb_free(&b);
}

/* The binary reader's ops are named by rank and record in the checks'
 * messages too. */
static void test_binary_check_messages(void **state)
{
    (void)state;
    unsigned char d[1024];
    struct brec s = {.type = GOAL_SEND, .peer = 1, .size = 8};
    uint32_t roots[1] = {0};
    struct brank rk[2] = {{1, &s, 1, roots, 0, NULL}, {0, NULL, 0, NULL, 0, NULL}};
    size_t len = bin_build(d, 2, rk);
    bin_bad(d, len, "b.bin: rank 0, record 0: unmatched send: rank 1 is sent 1 messages but posts 0 receives");
    /* two calcs that require each other */
    struct brec c[2] = {{.n_deps = 1, .type = GOAL_CALC, .nd = 1, .fd = 0}, {.n_deps = 1, .type = GOAL_CALC, .nd = 1, .fd = 1}};
    uint32_t apx[2] = {1, 0};
    struct brank rc = {2, c, 0, NULL, 2, apx};
    len = bin_build(d, 1, &rc);
    bin_bad(d, len, "b.bin: rank 0, record 0: dependency cycle in rank 0, no op on it can ever start: record 0 waits "
                    "for record 1 waits for record 0");
}

/* goal_read_file: a file larger than the first 64 KiB read, a directory,
 * a missing file; goal_read_map's last line may lack its newline, and a
 * missing map is named. */
static void test_files(void **state)
{
    (void)state;
    struct strbuf b;
    sb_init(&b);
    sb_printf(&b, "num_ranks 1\nrank 0 {\n");
    for (int i = 0; i < 10000; i++)
        sb_printf(&b, "calc %d // a comment to make the file long\n", i);
    sb_printf(&b, "calc 99999\n}\n");
    assert_true(b.len > 300000);
    const char *path = temp_file(b.data, ".goal");
    sb_free(&b);
    struct goal_sched g;
    char err[1024];
    if (!goal_read_file(&g, path, err, sizeof err))
        fail_msg("refused: %s", err);
    assert_int_equal(g.n_ops, 10001);
    assert_int_equal(g.ops[10000].size, 99999);
    assert_int_equal(g.ops[10000].line, 10003);
    goal_sched_free(&g); /* a schedule read is the caller's to free before g is reused (make asan: a leak) */
    assert_false(goal_read_file(&g, "/", err, sizeof err));
    assert_string_equal(err, "/: cannot read: Is a directory");
    assert_false(goal_read_file(&g, "/nonexistent/x.goal", err, sizeof err));
    assert_string_equal(err, "/nonexistent/x.goal: cannot open: No such file or directory");
    const char *t = "num_ranks 2\nrank 0 {\n}\nrank 1 {\n}\n";
    read_len_ok(&g, t, strlen(t));
    uint32_t hosts[2];
    path = temp_file("0 7\n1 9", ".map");
    if (!goal_read_map(&g, path, hosts, err, sizeof err))
        fail_msg("refused: %s", err);
    assert_int_equal(hosts[0], 7);
    assert_int_equal(hosts[1], 9);
    assert_false(goal_read_map(&g, "/nonexistent/x.map", hosts, err, sizeof err));
    assert_string_equal(err, "/nonexistent/x.map: cannot open: No such file or directory");
    goal_sched_free(&g);
}

/* FNV-1a, 64-bit (the label table's hash, goal.c hash_bytes). */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* A label in the first slot of the 1,024-slot table survives the table's
 * growth (issue 26: a rehash loop starting at slot 1 lost it): the label
 * is defined first, so it takes its home slot 0, then 600 more make the
 * table grow, then it is looked up. */
static void test_label_in_slot_zero(void **state)
{
    (void)state;
    char zero[32] = "";
    for (unsigned k = 0; k < 1000000 && !zero[0]; k++) {
        char name[32];
        snprintf(name, sizeof name, "z%u", k);
        if ((fnv1a(name) & 1023) == 0)
            memcpy(zero, name, strlen(name) + 1);
    }
    assert_true(zero[0] != 0);
    struct strbuf b;
    sb_init(&b);
    sb_printf(&b, "num_ranks 1\nrank 0 {\n%s: calc 7\n", zero);
    for (int i = 0; i < 600; i++)
        sb_printf(&b, "o%d: calc 1\n", i);
    sb_printf(&b, "%s requires o599\no0 requires %s\n}\n", zero, zero);
    struct goal_sched g;
    read_len_ok(&g, b.data, b.len);
    sb_free(&b);
    assert_int_equal(g.ops[0].size, 7);
    assert_int_equal(g.ops[0].n_deps, 1);
    assert_int_equal(g.ops[0].n_done, 1);
    assert_int_equal(g.succ[g.ops[0].done_first], 1);
    assert_int_equal(g.ops[600].n_done, 1);
    assert_int_equal(g.succ[g.ops[600].done_first], 0);
    goal_sched_free(&g);
}

/* ---- mut6wk (issue 26): the binary reader's totals at their limits ---- */

/* The first pass adds up every rank's records and dependants entries and
 * refuses a file whose totals pass GOAL_MAX_OPS (UINT32_MAX / 4 =
 * 1,073,741,823) records or UINT32_MAX - 1 entries, naming the first rank
 * past the limit. Nothing stops two ranks' extents from overlapping, so a
 * few megabytes of zeros, named by thousands of jump-table entries, add
 * up to the limit without a gigabyte file; every extent below starts with
 * its counts (n records, 0 roots), and the first pass reads no more. The
 * totals reach the limit exactly at one rank (accepted there) and pass it
 * by one at the next (refused, and that rank named). */
static unsigned char *bin_limits_file(uint32_t n_ranks, size_t region_bytes, size_t *len)
{
    size_t table_end = 6 + 16 * (size_t)n_ranks; /* from byte 8, where the offsets count */
    *len = 8 + table_end + region_bytes;
    unsigned char *d = calloc(*len, 1);
    assert_non_null(d);
    put(d, 4223, 8);
    put(d + 8, n_ranks, 4);
    return d;
}

/* Rank r's extent: bytes start .. end after byte 8. */
static void bin_extent(unsigned char *d, uint32_t r, uint64_t start, uint64_t end)
{
    put(d + 8 + 6 + 16 * (size_t)r, start, 8);
    put(d + 8 + 6 + 16 * (size_t)r + 8, end, 8);
}

static void test_binary_dependants_total_limit(void **state)
{
    (void)state;
    /* 16,383 ranks of 2^18 entries (1 MiB each, the same MiB) make
     * 2^32 - 2^18; one of 2^18 - 2 entries brings the total to
     * UINT32_MAX - 1, the most allowed; one more entry is refused */
    const uint32_t n_ranks = 16385;
    const uint64_t entries = 1u << 18;
    size_t len;
    unsigned char *d = bin_limits_file(n_ranks, 8 + 4 * entries, &len);
    uint64_t s = 6 + 16ull * n_ranks; /* the region, zeros: 0 records, 0 roots, dependants 0 */
    for (uint32_t r = 0; r < n_ranks - 2; r++)
        bin_extent(d, r, s, s + 8 + 4 * entries);
    bin_extent(d, n_ranks - 2, s, s + 8 + 4 * (entries - 2));
    bin_extent(d, n_ranks - 1, s, s + 8 + 4);
    bin_bad(d, len, "b.bin: rank 16384: more than 1073741823 operations or dependencies");
    free(d);
}

static void test_binary_records_total_limit(void **state)
{
    (void)state;
    /* 16,383 ranks of 2^16 records (39 bytes each, the same records) make
     * 2^30 - 2^16; one of 2^16 - 1 records brings the total to
     * GOAL_MAX_OPS = 2^30 - 1; one more record is refused */
    const uint32_t n_ranks = 16385;
    const uint64_t recs = 1u << 16;
    size_t len;
    unsigned char *d = bin_limits_file(n_ranks, 8 + 39 * recs, &len);
    uint64_t s = 6 + 16ull * n_ranks;
    /* the three extents' counts: at s, and inside the first's records
     * (which the first pass does not read) */
    put(d + 8 + s, recs, 4);
    put(d + 8 + s + 8, recs - 1, 4);
    put(d + 8 + s + 16, 1, 4);
    for (uint32_t r = 0; r < n_ranks - 2; r++)
        bin_extent(d, r, s, s + 8 + 39 * recs);
    bin_extent(d, n_ranks - 2, s + 8, s + 8 + 8 + 39 * (recs - 1));
    bin_extent(d, n_ranks - 1, s + 16, s + 16 + 8 + 39);
    bin_bad(d, len, "b.bin: rank 16384: more than 1073741823 operations or dependencies");
    free(d);
}

/* ---- mut6wk (issue 26): no byte past the length is read, page-guarded ---- */

/* text placed so that its last byte is the last readable byte of a page:
 * the next page is PROT_NONE, so a lexer that looks one byte past the
 * length (a '-', a '/', a word, a number or blanks at the very end)
 * crashes the test instead of reading whatever lies there. Returns
 * whether the reader took it; the message in err. */
static bool read_guarded_len(const void *text, size_t len, char *err, size_t errlen)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    assert_true(len <= pg);
    int fd = open("/dev/zero", O_RDONLY);
    assert_true(fd >= 0);
    unsigned char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    close(fd);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + pg, pg, PROT_NONE), 0);
    memcpy(m + pg - len, text, len);
    struct goal_sched g;
    err[0] = '\0';
    bool ok = goal_read_buffer(&g, "t.goal", m + pg - len, len, err, errlen);
    if (ok)
        goal_sched_free(&g);
    munmap(m, 2 * pg);
    return ok;
}

static bool read_guarded(const char *text, char *err, size_t errlen)
{
    return read_guarded_len(text, strlen(text), err, errlen);
}

static void guarded_bad(const char *text, const char *want)
{
    char err[1024];
    if (read_guarded(text, err, sizeof err))
        fail_msg("accepted, expected '%s'", want);
    if (strcmp(err, want))
        fail_msg("message '%s', expected '%s'", err, want);
}

static void guarded_ok(const char *text)
{
    char err[1024];
    if (!read_guarded(text, err, sizeof err))
        fail_msg("refused: %s", err);
}

static void test_lexer_reads_nothing_past_the_end(void **state)
{
    (void)state;
    guarded_bad(ONE_RANK "-", "t.goal:4: expected 'num_ranks' or 'rank', found '-'");
    guarded_bad(ONE_RANK "/", "t.goal:4: expected 'num_ranks' or 'rank', found '/'");
    guarded_bad(ONE_RANK "ab", "t.goal:4: expected 'num_ranks' or 'rank', found 'ab'");
    guarded_bad(ONE_RANK "72", "t.goal:4: expected 'num_ranks' or 'rank', found '72'");
    guarded_bad(ONE_RANK "/* x *", "t.goal:4: a comment opened here is never closed");
    guarded_bad(ONE_RANK "/*", "t.goal:4: a comment opened here is never closed");
    guarded_ok(ONE_RANK "// x");
    guarded_ok(ONE_RANK "/* x */");
    guarded_ok(ONE_RANK " \t\r");
    guarded_ok("num_ranks 1\nrank 0 {\n}");
    guarded_ok("num_ranks 1\nrank 0 {\ncalc 5\n}");
    guarded_ok("num_ranks 1\nrank 0 {\ncalc 5 cpu 1\n}\n");
    guarded_ok("num_ranks 2\nrank 0 {\nsend 5b to 1\n}\nrank 1 {\nrecv 5b from -1 tag -1\n}");
}

/* Every cut of a binary schedule (test_binary_fields' two ranks) against
 * the guard page: each is refused, without reading past its length, and
 * the whole file is read. */
static void test_binary_cuts_read_nothing_past_the_end(void **state)
{
    (void)state;
    unsigned char d[4096];
    const struct brec r0[3] = {
        {.type = GOAL_SEND, .peer = 1, .size = 5, .tag = 5, .cpu = 1, .nic = 2, .nd = 1, .fd = 0, .ns = 1, .fs = 1},
        {.n_deps = 1, .type = GOAL_CALC, .size = 9},
        {.n_deps = 1, .type = GOAL_CALC, .size = 10, .cpu = 3},
    };
    const struct brec r1[1] = {{.type = GOAL_RECV, .peer = GOAL_ANY, .size = 5, .tag = GOAL_ANY}};
    const uint32_t roots0[1] = {0}, apx0[2] = {1, 2}, roots1[1] = {0};
    const struct brank rk[2] = {{3, r0, 1, roots0, 2, apx0}, {1, r1, 1, roots1, 0, NULL}};
    size_t len = bin_build(d, 2, rk);
    char err[1024];
    for (size_t cut = 0; cut < len; cut++)
        if (read_guarded_len(d, cut, err, sizeof err))
            fail_msg("the first %zu of %zu bytes were accepted", cut, len);
    if (!read_guarded_len(d, len, err, sizeof err))
        fail_msg("refused: %s", err);
}

/* A text operation's numbers at both ends of their ranges: a peer rank
 * up to 4,294,967,294 is a number (then checked against num_ranks), one
 * more is out of range; a tag up to 4,294,967,294 is taken (UINT32_MAX
 * is the wildcard -1); cpu and nic up to 255. */
static void test_text_number_ranges_both_ends(void **state)
{
    (void)state;
    bad(R2 "send 5b to 4294967294\n}\n", "t.goal:3: rank 4294967294 is out of range: num_ranks is 2");
    bad(R2 "send 5b to 4294967295\n}\n", "t.goal:3: a rank 4294967295 is out of range (at most 4294967294)");
    bad(R2 "recv 5b from 4294967294\n}\n", "t.goal:3: rank 4294967294 is out of range: num_ranks is 2");
    bad(R2 "recv 5b from 4294967295\n}\n", "t.goal:3: a rank 4294967295 is out of range (at most 4294967294)");
    struct goal_sched g;
    const char *t = R2 "send 5b to 1 tag 4294967294 cpu 255 nic 255\n}\nrank 1 {\nrecv 5b from 0 tag 4294967294\n}\n";
    read_len_ok(&g, t, strlen(t));
    assert_int_equal(g.ops[0].tag, 4294967294u);
    assert_int_equal(g.ops[0].cpu, 255);
    assert_int_equal(g.ops[0].nic, 255);
    assert_int_equal(g.n_cpus, 256);
    assert_int_equal(g.n_nics, 256);
    assert_int_equal(g.ops[1].tag, 4294967294u);
    goal_sched_free(&g);
    bad(R2 "send 5b to 1 cpu 256\n}\n", "t.goal:3: a cpu 256 is out of range (at most 255)");
}

/* A rank's extent of no bytes (start == end) lies inside the file: it is
 * refused for its missing counts, not as outside the file; one of 7 bytes
 * the same, one that ends one byte past the file as truncated. */
static void test_binary_empty_extent(void **state)
{
    (void)state;
    unsigned char d[4096];
    struct brec c = {.type = GOAL_CALC, .size = 1};
    uint32_t roots[1] = {0};
    struct brank rk = {1, &c, 1, roots, 0, NULL};
    size_t len = bin_build(d, 1, &rk); /* 81 bytes: the rank's extent is bytes 22 .. 73 after byte 8 */
    put(d + 22, 22, 8);
    bin_bad(d, len, "b.bin: rank 0: truncated: 0 bytes, its counts alone need 8");
    put(d + 22, 29, 8);
    bin_bad(d, len, "b.bin: rank 0: truncated: 7 bytes, its counts alone need 8");
    put(d + 22, 74, 8);
    bin_bad(d, len, "b.bin: rank 0: truncated: its records end at byte 82 but the file has 81 bytes");
}

int main(int argc, char **argv)
{
    (void)argc;
    malloc_check_reexec(argv); /* tests/malloc_check.h: heap overruns fail here too */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lexer_stops_at_the_length),
        cmocka_unit_test(test_rank_block_number_range),
        cmocka_unit_test(test_many_labels_all_found),
        cmocka_unit_test(test_label_in_slot_zero),
        cmocka_unit_test(test_empty_schedule_and_nul_bytes),
        cmocka_unit_test(test_binary_fields),
        cmocka_unit_test(test_binary_bounds),
        cmocka_unit_test(test_binary_peers),
        cmocka_unit_test(test_map_bounds),
        cmocka_unit_test(test_text_refusals_exact),
        cmocka_unit_test(test_matching_refusals_exact),
        cmocka_unit_test(test_long_cycle_message),
        cmocka_unit_test(test_binary_check_messages),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_binary_dependants_total_limit),
        cmocka_unit_test(test_binary_records_total_limit),
        cmocka_unit_test(test_lexer_reads_nothing_past_the_end),
        cmocka_unit_test(test_binary_cuts_read_nothing_past_the_end),
        cmocka_unit_test(test_text_number_ranges_both_ends),
        cmocka_unit_test(test_binary_empty_extent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
