/* test_goal.c: GOAL schedules (src/workload/goal.c, issue 25).
 *
 * The readers: a hand-written text schedule with every statement form;
 * LogGOPSim txt2bin's binary files of four Schedgen collectives (the
 * .bin files in tests/goal, made from the .goal files beside them) read to the
 * same operations as the text; every cut of a binary file and each kind of
 * bad input refused with one line naming the file and the line or record.
 * The engine: CPUs serialise calcs, irequires starts with its
 * prerequisite, receives take messages in the order posted, a schedule
 * that passes the checks but waits on itself is reported deadlocked with
 * its stuck ranks. The collectives on an idle fabric against closed forms
 * derived before the runs (docs/goal.md "Tests"): every rank on its own
 * leaf of a two-tier tree, so every message crosses the same four links
 * and D(b) (one message of b bytes, line rate at the NIC plus
 * store-and-forward and latency, report.c's ideal_delivery_ps) is one
 * number per size: ring allreduce 2(N-1) D(S/N), recursive halving and
 * doubling 2 sum_k D(S/2^k), the binomial broadcast whose node with k
 * children shares its NIC among them sum_k (k ser(S) + L), the linear
 * all-to-all one NIC's (N-1) messages. Each within 10% above its closed
 * form and never below the line-rate bound.
 */
#include "testutil.h"
#include "malloc_check.h"

#include "metrics/report.h"
#include "sim.h"
#include "transport/flow.h"
#include "workload/goal.h"

static struct sim S;

static void read_ok(struct goal_sched *g, const char *text)
{
    char err[1024];
    if (!goal_read_buffer(g, "t.goal", (const unsigned char *)text, strlen(text), err, sizeof err))
        fail_msg("refused: %s", err);
}

/* The text is refused with a message holding `want`. */
static void read_bad(const char *text, const char *want)
{
    struct goal_sched g;
    char err[1024] = "";
    if (goal_read_buffer(&g, "t.goal", (const unsigned char *)text, strlen(text), err, sizeof err)) {
        goal_sched_free(&g);
        fail_msg("accepted, expected '%s'", want);
    }
    if (!strstr(err, want))
        fail_msg("message '%s' lacks '%s'", err, want);
    assert_null(strchr(err, '\n'));
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (tests run from the repository root)", path);
    unsigned char *buf = malloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void test_text_every_form(void **state)
{
    (void)state;
    struct goal_sched g;
    read_ok(&g, "// a comment\n"
                "num_ranks 3\n"
                "/* a block\n comment */\n"
                "rank 0 {\n"
                "a: send 100b to 1 tag 7 cpu 1 nic 0\n"
                "b: recv 5 b from -1 tag -1\n"
                "c: calc 250 cpu 2\n"
                "c requires b\n"
                "a irequires d // forward reference\n"
                "d: calc 0\n"
                "send 1b to 2\n"
                "}\n"
                "rank 1 {\n"
                "x: recv 100b from 0 tag 7\n"
                "}\n"
                "rank 2 {\n"
                "recv 1b from 0\n"
                "y: send 5b to 0 tag 3\n"
                "}\n");
    assert_int_equal(g.n_ranks, 3);
    assert_int_equal(g.n_ops, 8);
    assert_int_equal(g.rank_first[1], 5);
    assert_int_equal(g.rank_first[2], 6);
    const struct goal_op *o = g.ops;
    assert_int_equal(o[0].type, GOAL_SEND);
    assert_int_equal(o[0].size, 100);
    assert_int_equal(o[0].peer, 1);
    assert_int_equal(o[0].tag, 7);
    assert_int_equal(o[0].cpu, 1);
    assert_int_equal(o[0].line, 6); /* the block comment's newline counted */
    assert_int_equal(o[1].type, GOAL_RECV);
    assert_int_equal(o[1].peer, GOAL_ANY);
    assert_int_equal(o[1].tag, GOAL_ANY);
    assert_int_equal(o[2].type, GOAL_CALC);
    assert_int_equal(o[2].size, 250);
    assert_int_equal(o[2].cpu, 2);
    /* c requires b: b's requires-dependants are {c}; a irequires d */
    assert_int_equal(o[1].n_done, 1);
    assert_int_equal(g.succ[o[1].done_first], 2);
    assert_int_equal(o[2].n_deps, 1);
    assert_int_equal(o[3].n_start, 1);
    assert_int_equal(g.succ[o[3].start_first], 0);
    assert_int_equal(o[0].n_deps, 1);
    assert_int_equal(o[4].tag, 0); /* no tag: 0, as txt2bin */
    assert_int_equal(g.n_cpus, 3);
    assert_int_equal(g.n_nics, 1);
    assert_true(g.has_wildcards);
    goal_sched_free(&g);
}

/* txt2bin's binary of each Schedgen schedule reads to the text's ops and
 * dependants (record numbers for lines aside). */
static void test_binary_equals_text(void **state)
{
    (void)state;
    const char *names[] = {"ring8", "recdoub8", "alltoall8", "bcast8"};
    for (unsigned k = 0; k < 4; k++) {
        char tp[128], bp[128], err[1024];
        snprintf(tp, sizeof tp, "tests/goal/%s.goal", names[k]);
        snprintf(bp, sizeof bp, "tests/goal/%s.bin", names[k]);
        struct goal_sched t, b;
        if (!goal_read_file(&t, tp, err, sizeof err) || !goal_read_file(&b, bp, err, sizeof err))
            fail_msg("%s", err);
        assert_false(t.binary);
        assert_true(b.binary);
        assert_int_equal(t.n_ranks, b.n_ranks);
        assert_int_equal(t.n_ops, b.n_ops);
        assert_int_equal(t.n_succ, b.n_succ);
        for (uint32_t i = 0; i < t.n_ops; i++) {
            const struct goal_op *x = &t.ops[i], *y = &b.ops[i];
            assert_int_equal(x->type, y->type);
            assert_int_equal(x->size, y->size);
            assert_int_equal(x->rank, y->rank);
            assert_int_equal(x->peer, y->peer);
            assert_int_equal(x->tag, y->tag);
            assert_int_equal(x->n_deps, y->n_deps);
            assert_int_equal(x->n_done, y->n_done);
            assert_int_equal(x->n_start, y->n_start);
            assert_int_equal(y->line, i - b.rank_first[y->rank]);
            for (uint32_t e = 0; e < x->n_done; e++)
                assert_int_equal(t.succ[x->done_first + e], b.succ[y->done_first + e]);
        }
        goal_sched_free(&t);
        goal_sched_free(&b);
    }
}

/* Every proper prefix of a binary schedule is refused with one line (the
 * reader checks each count against the length before it reads). */
static void test_binary_every_cut_refused(void **state)
{
    (void)state;
    size_t len;
    unsigned char *data = slurp("tests/goal/bcast8.bin", &len);
    assert_true(len > 100);
    for (size_t cut = 0; cut < len; cut++) {
        struct goal_sched g;
        char err[1024] = "";
        if (goal_read_buffer(&g, "cut.bin", data, cut, err, sizeof err))
            fail_msg("a cut at %zu of %zu bytes was accepted", cut, len);
        assert_non_null(strstr(err, "cut.bin"));
        assert_null(strchr(err, '\n'));
    }
    /* the rank whose records the cut removes is named as truncated */
    struct goal_sched g;
    char err[1024];
    assert_false(goal_read_buffer(&g, "cut.bin", data, len - 1, err, sizeof err));
    assert_non_null(strstr(err, "rank 7"));
    assert_non_null(strstr(err, "truncated"));
    free(data);
}

/* A binary record sending to a rank past num_ranks, a bad type, a count
 * that disagrees with the dependants: named by rank and record. */
static void test_binary_bad_records(void **state)
{
    (void)state;
    size_t len;
    unsigned char *data = slurp("tests/goal/bcast8.bin", &len);
    /* rank 0's records start after the header (8 + 6 + 16 x 8 = 142), its
     * two counts and its roots (3: every op of rank 0 is a root) */
    size_t rec0 = 142 + 8 + 4 * 3;
    unsigned char *d = malloc(len);
    struct goal_sched g;
    char err[1024];
    memcpy(d, data, len);
    d[rec0 + 39 + 5] = 9; /* record 1's peer: rank 9 of 8 */
    assert_false(goal_read_buffer(&g, "bad.bin", d, len, err, sizeof err));
    assert_non_null(strstr(err, "bad.bin: rank 0, record 1: send to rank 9, out of range"));
    memcpy(d, data, len);
    d[rec0 + 4] = 7;
    assert_false(goal_read_buffer(&g, "bad.bin", d, len, err, sizeof err));
    assert_non_null(strstr(err, "bad.bin: rank 0, record 0: operation type 7"));
    memcpy(d, data, len);
    /* rank 7 claims 1000 records: more than its extent holds */
    uint64_t start7 = 0;
    for (int i = 7; i >= 0; i--)
        start7 = start7 << 8 | data[8 + 6 + 16 * 7 + i];
    d[8 + start7] = 0xe8;
    d[8 + start7 + 1] = 0x03;
    assert_false(goal_read_buffer(&g, "bad.bin", d, len, err, sizeof err));
    assert_non_null(strstr(err, "bad.bin: rank 7: truncated: 1000 records and 1 roots need 39012 bytes, the rank has 51"));
    memcpy(d, data, len);
    d[rec0 + 4] = GOAL_CALC; /* a calc whose dependants run past the table (fuzz_goal found calcs unchecked) */
    d[rec0 + 23] = 0xe8;
    d[rec0 + 24] = 0x03;
    assert_false(goal_read_buffer(&g, "bad.bin", d, len, err, sizeof err));
    assert_non_null(strstr(err, "bad.bin: rank 0, record 0: its dependants run past the rank's 0 entries"));
    memcpy(d, data, len);
    d[rec0] = 1; /* record 0 says it waits for one op, none names it */
    assert_false(goal_read_buffer(&g, "bad.bin", d, len, err, sizeof err));
    assert_non_null(strstr(err, "bad.bin: rank 0, record 0: dependency count 1, but 0 records name it"));
    free(d);
    free(data);
}

/* Sends matched by any-tag receives are not unmatched: rank 1 sends two
 * tag-1 messages, rank 0 posts one tag-1 receive and one for any tag (-1),
 * which takes the other; with a third send the any-tag receive cannot
 * cover both extra sends and the schedule is refused (issue 26: the
 * any-tag receives subtracted instead of added went unnoticed). */
static void test_any_tag_receives_match_sends(void **state)
{
    (void)state;
    struct goal_sched g;
    read_ok(&g, "num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 1\nrecv 8b from 1 tag -1\n}\n"
                "rank 1 {\nsend 8b to 0 tag 1\nsend 8b to 0 tag 1\n}\n");
    goal_sched_free(&g);
    read_bad("num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 1\nrecv 8b from 1 tag -1\n}\n"
             "rank 1 {\nsend 8b to 0 tag 1\nsend 8b to 0 tag 1\nsend 8b to 0 tag 1\n}\n",
             "unmatched send");
    /* NICs: the largest index named, plus one, after a NIC 0 op (issue 26:
     * nic - 1 compared instead of nic + 1 kept the count at 1) */
    read_ok(&g, "num_ranks 2\nrank 0 {\nrecv 8b from 1\nrecv 8b from 1 nic 1\n}\n"
                "rank 1 {\nsend 8b to 0\nsend 8b to 0 nic 1\n}\n");
    assert_int_equal(g.n_nics, 2);
    goal_sched_free(&g);
}

static void test_text_bad_input(void **state)
{
    (void)state;
    read_bad("num_ranks 2\nrank 0 {\na: calc 1\nb: calc 1\nc: calc 1\na requires c\nb requires a\nc requires b\n}\n"
             "rank 1 {\n}\n",
             "dependency cycle in rank 0");
    read_bad("num_ranks 2\nrank 0 {\na: calc 1\nb: calc 1\nc: calc 1\na requires c\nb requires a\nc requires b\n}\n"
             "rank 1 {\n}\n",
             "line 3 waits for line 5 waits for line 4 waits for line 3");
    read_bad("num_ranks 1\nrank 0 {\na: calc 1\na irequires a\n}\n", "t.goal:4: dependency cycle");
    read_bad("num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 3\n}\nrank 1 {\nsend 8b to 0 tag 4\n}\n",
             "t.goal:3: unmatched receive: rank 0 posts 1 receives from rank 1 with tag 3");
    read_bad("num_ranks 2\nrank 0 {\nrecv 8b from 1\nrecv 8b from 1\n}\nrank 1 {\nsend 8b to 0\n}\n",
             "t.goal:4: unmatched receive: rank 0 posts 2 receives but is sent 1 messages");
    read_bad("num_ranks 2\nrank 0 {\n}\nrank 1 {\nsend 8b to 0\n}\n", "t.goal:5: unmatched send");
    read_bad("num_ranks 4\nrank 0 {\nsend 8b to 4\n}\n", "t.goal:3: rank 4 is out of range: num_ranks is 4");
    read_bad("num_ranks 4\nrank 5 {\n}\n", "t.goal:2: rank 5 is out of range");
    read_bad("num_ranks 2\nrank 0 {\n}\n", "rank 1 has no block (num_ranks is 2)");
    read_bad("num_ranks 2\nrank 0 {\na: calc 5\na: calc 6\n}\n", "t.goal:4: label 'a' is defined twice");
    read_bad("num_ranks 1\nrank 0 {\na: calc 5\na requires zz\n}\n", "t.goal:4: label 'zz' is not defined in rank 0");
    read_bad("num_ranks 1\nrank 0 {\nsend 5 to 0\n}\n", "t.goal:3: expected 'b' after the size, found 'to'");
    read_bad("num_ranks 1\nrank 0 {\ncalc 5 tag 3\n}\n", "t.goal:3: expected 'cpu' or the end of the line");
    read_bad("num_ranks 1\nrank 0 {\ncalc 5\n", "t.goal:2: rank 0's block is never closed");
    read_bad("num_ranks 1\nrank 0 {\n/* calc 5\n}\n", "t.goal:3: a comment opened here is never closed");
    read_bad("rank 0 {\n}\n", "t.goal:1: a rank block before the num_ranks line");
    read_bad("num_ranks 2100000000\nrank 0 {\n}\n", "t.goal:1: num_ranks 2100000000, but the file's 32 bytes cannot hold");
    read_bad("num_ranks 1\nrank 0 {\nsend 99999999999999999999b to 0\n}\n", "out of range");
    read_bad("num_ranks 1\nrank 0 {\nsend 5b to 0 cpu 256\n}\n", "a cpu 256 is out of range (at most 255)");
}

/* ---- runs -------------------------------------------------------------------------------------- */

static void run_goal(const char *path, const char *map, int tiers, const char *transport)
{
    struct config c;
    config_defaults(&c);
    c.goal_path = path;
    c.goal_map_path = map;
    c.goal_ops = true;
    if (tiers)
        c.tiers = (uint32_t)tiers;
    if (transport)
        c.transport_name = transport;
    c.end_ps = 100000 * PS_PER_US;
    c.progress = false;
    sim_setup(&S, &c);
    sim_run(&S);
}

/* CPUs: calcs on one CPU run one after another, on two at once; an op
 * that irequires a calc starts when the calc starts; sends and receives
 * take no CPU time but wait for a calc that holds their CPU. */
static void test_cpus_and_start_dependencies(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 2\n"
                              "rank 0 {\n"
                              "a: calc 1000\n"            /* cpu 0: 0 .. 1 us */
                              "b: calc 2000 cpu 1\n"      /* cpu 1: 0 .. 2 us */
                              "c: calc 500\n"             /* cpu 0, after a: 1 .. 1.5 us */
                              "d: calc 300 cpu 1\n"       /* cpu 1, after b: 2 .. 2.3 us */
                              "d irequires c\n"
                              "}\n"
                              "rank 1 {\n"
                              "e: calc 700\n"
                              "f: calc 100\n"
                              "f irequires e\n"           /* starts with e, queues behind it on cpu 0 */
                              "}\n",
                              ".goal");
    run_goal(p, NULL, 0, NULL);
    assert_int_equal(goal_completion_ps(&S), 2300 * PS_PER_NS);
    struct strbuf b;
    sb_init(&b);
    goal_ops_csv(&S, &b);
    assert_non_null(strstr(b.data, "0,3,calc,,,1000,0,0,,0.000000,1.000000\n"));
    assert_non_null(strstr(b.data, "0,5,calc,,,500,0,0,,1.000000,1.500000\n"));
    assert_non_null(strstr(b.data, "0,6,calc,,,300,1,0,,2.000000,2.300000\n"));
    assert_non_null(strstr(b.data, "1,11,calc,,,100,0,0,,0.700000,0.800000\n"));
    sb_free(&b);
    sim_free(&S);
}

/* Two messages of one source and tag: the receive posted first takes the
 * one that arrived first (MPI's order, LogGOPSim's FIFO buckets). Rank 1
 * posts both receives at once, the large one first; rank 0 sends the large
 * message first, but the small one arrives first: the first receive
 * completes with it. */
static void test_receives_in_posted_order(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 2\n"
                              "rank 0 {\n"
                              "a: send 400000b to 1 tag 5\n"
                              "b: send 1000b to 1 tag 5\n"
                              "b irequires a\n"
                              "}\n"
                              "rank 1 {\n"
                              "x: recv 400000b from 0 tag 5\n"
                              "y: recv 1000b from 0 tag 5\n"
                              "}\n",
                              ".goal");
    run_goal(p, NULL, 0, NULL);
    assert_true(goal_completion_ps(&S) != SIMTIME_NEVER);
    struct strbuf b;
    sb_init(&b);
    goal_ops_csv(&S, &b);
    /* x ends with the small message, y with the large one */
    double x_end = 0, y_end = 0, a_end = 0, b_end = 0;
    char *l = strtok(b.data, "\n");
    while ((l = strtok(NULL, "\n"))) {
        double st, en;
        unsigned r, line;
        char type[8];
        if (sscanf(l, "%u,%u,%7[a-z],", &r, &line, type) != 3)
            continue;
        const char *q = strrchr(l, ',');
        en = atof(q + 1);
        st = 0;
        (void)st;
        if (r == 1 && line == 8)
            x_end = en;
        if (r == 1 && line == 9)
            y_end = en;
        if (r == 0 && line == 3)
            a_end = en;
        if (r == 0 && line == 4)
            b_end = en;
    }
    assert_true(x_end > 0 && x_end < y_end);
    assert_true(b_end == x_end); /* the small message completed with the first receive */
    assert_true(a_end == y_end);
    sb_free(&b);
    sim_free(&S);
}

/* Each rank waits to receive before it sends: the counts match, so the
 * reader passes it, and the run finds it deadlocked at t = 0 with both
 * ranks stuck in their receives; nothing was sent. */
static void test_deadlock_reported(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 3\n"
                              "rank 0 {\nr: recv 8b from 1\ns: send 8b to 1\ns requires r\n}\n"
                              "rank 1 {\nr: recv 8b from 0\ns: send 8b to 0\ns requires r\n}\n"
                              "rank 2 {\ncalc 5000\n}\n",
                              ".goal");
    run_goal(p, NULL, 0, NULL);
    assert_int_equal(goal_completion_ps(&S), SIMTIME_NEVER);
    struct strbuf b;
    sb_init(&b);
    goal_json(&S, &b);
    assert_non_null(strstr(b.data, "\"status\": \"deadlocked\""));
    assert_non_null(strstr(b.data, "\"deadlock_us\": 5.000000")); /* when rank 2's calc ended: then nothing could move */
    assert_non_null(strstr(b.data, "\"stuck_ranks\": [0, 1]"));
    assert_non_null(strstr(b.data, "\"rank_finish_us\": [null, null, 5.000000]"));
    assert_int_equal(S.flows_started, 0);
    sb_free(&b);
    sim_free(&S);
}

/* The end (us) of the op on `line` of `rank` in goal_ops.csv; -1 when it
 * has none (it never completed). */
static double op_end_us(const char *csv, unsigned rank, unsigned line)
{
    char key[32];
    int n = snprintf(key, sizeof key, "\n%u,%u,", rank, line);
    const char *l = strstr(csv, key);
    if (!l)
        fail_msg("no row for rank %u line %u", rank, line);
    l += n;
    const char *eol = strchr(l, '\n');
    const char *last = l;
    for (const char *q = l; q < eol; q++)
        if (*q == ',')
            last = q + 1;
    return last == eol ? -1 : atof(last);
}

/* goal_stdout's lines on stdout and its warning on stderr, captured. */
static void capture_goal_stdout(struct strbuf *out, struct strbuf *err)
{
    struct strbuf *bufs[2] = {out, err};
    int fds[2] = {1, 2};
    FILE *files[2] = {stdout, stderr};
    int saved[2];
    char path[2][64];
    for (int k = 0; k < 2; k++) {
        fflush(files[k]);
        snprintf(path[k], sizeof path[k], "/tmp/spraysim-test-%ld-cap%d", (long)getpid(), k);
        saved[k] = dup(fds[k]);
        FILE *f = fopen(path[k], "w");
        assert_non_null(f);
        dup2(fileno(f), fds[k]);
        fclose(f);
    }
    goal_stdout(&S);
    for (int k = 0; k < 2; k++) {
        fflush(files[k]);
        dup2(saved[k], fds[k]);
        close(saved[k]);
        FILE *f = fopen(path[k], "r");
        char line[4096];
        sb_init(bufs[k]);
        while (fgets(line, sizeof line, f))
            sb_printf(bufs[k], "%s", line);
        fclose(f);
        unlink(path[k]);
    }
}

/* Messages that arrive before their receive is posted wait as unexpected
 * and are taken when it is: an exact receive (source 1, tag 3), one from
 * any source with tag 9 (rank 2's), one from rank 3 with any tag (its tag
 * 4) and one from any source with any tag (rank 4's tag 6), all posted at
 * 50 us when the calc they require ends, long after every message
 * arrived; the schedule completes at 50 us (issue 26: a receive looking
 * in the wrong table for its kind of wildcard would wait forever). */
static void test_unexpected_messages_taken(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 5\n"
                              "rank 0 {\n"
                              "w: calc 50000\n"
                              "a: recv 8b from 1 tag 3\n"
                              "b: recv 8b from -1 tag 9\n"
                              "c: recv 8b from 3 tag -1\n"
                              "d: recv 8b from -1 tag -1\n"
                              "a requires w\nb requires w\nc requires w\nd requires w\n"
                              "}\n"                                    /* 12 */
                              "rank 1 {\nsend 8b to 0 tag 3\n}\n"      /* 13-15 */
                              "rank 2 {\nsend 8b to 0 tag 9\n}\n"      /* 16-18 */
                              "rank 3 {\nsend 8b to 0 tag 4\n}\n"      /* 19-21 */
                              "rank 4 {\nsend 8b to 0 tag 6\n}\n",     /* 22-24 */
                              ".goal");
    run_goal(p, NULL, 0, NULL);
    assert_int_equal(goal_completion_ps(&S), 50 * PS_PER_US);
    struct strbuf b;
    sb_init(&b);
    goal_ops_csv(&S, &b);
    for (unsigned line = 4; line <= 7; line++)
        assert_true(op_end_us(b.data, 0, line) == 50.0);
    for (unsigned r = 1; r <= 4; r++) /* a send completes when a receive takes it */
        assert_true(op_end_us(b.data, r, 11 + 3 * r) == 50.0);
    sb_free(&b);
    struct strbuf out, err, want;
    capture_goal_stdout(&out, &err);
    sb_init(&want);
    sb_printf(&want,
              "goal: %s, 5 ranks, 9 ops (4 sends, 4 recvs, 1 calcs), 4 messages between hosts; complete: completion "
              "50.000 us\ngoal ranks (finish us): 0:50.000 1:50.000 2:50.000 3:50.000 4:50.000\n",
              p);
    assert_string_equal(out.data, want.data);
    assert_string_equal(err.data, "");
    sb_free(&out);
    sb_free(&err);
    sb_free(&want);
    sim_free(&S);
}

/* Each message is taken by one receive and each receive takes one
 * message: two wildcard receives posted at once, rank 1's message
 * arriving at once and rank 2's after a 20 us calc; and two tag -1
 * messages of rank 3 to rank 4, taken by two receives posted at 50 us.
 * The first of each pair completes with the first message, the second
 * with the second (issue 26: a matched op left on its wildcard list
 * would take the second message too and leave its partner undone). */
static void test_wildcard_lists_take_each_once(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 5\n"
                              "rank 0 {\n"
                              "r1: recv 8b from -1 tag -1\n"
                              "r2: recv 8b from -1 tag -1\n"
                              "}\n"
                              "rank 1 {\nsend 8b to 0 tag 1\n}\n"
                              "rank 2 {\nc: calc 20000\ns: send 8b to 0 tag 2\ns requires c\n}\n"
                              "rank 3 {\nsend 8b to 4 tag -1\nsend 8b to 4 tag -1\n}\n"
                              "rank 4 {\nw: calc 50000\n"
                              "x: recv 8b from 3 tag 0\ny: recv 8b from 3 tag 0\nx requires w\ny requires x\n}\n",
                              ".goal");
    run_goal(p, NULL, 0, NULL);
    struct strbuf b;
    sb_init(&b);
    goal_ops_csv(&S, &b);
    double r1 = op_end_us(b.data, 0, 3), r2 = op_end_us(b.data, 0, 4);
    assert_true(r1 > 0 && r1 < 20.0);
    assert_true(r2 > 20.0 && r2 < 50.0);
    assert_true(op_end_us(b.data, 4, 20) == 50.0);
    assert_true(op_end_us(b.data, 4, 21) == 50.0);
    assert_int_equal(goal_completion_ps(&S), 50 * PS_PER_US); /* rank 4's receives, the last ops */
    sb_free(&b);
    sim_free(&S);
}

/* Two NICs per rank, no map: rank r's NIC n is host 2r + n (ATLAHS's htsim
 * backend), so rank 0's send on NIC 1 to rank 2 goes from host 1 to host
 * 5 and rank 1's on NIC 0 from host 2 to host 4; the same flows whether
 * the transport adds them as sends start (uet) or they are made before
 * the run (roce). */
static void test_two_nics_place_flows(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 3\n"
                              "rank 0 {\nsend 1000b to 2 nic 1\n}\n"
                              "rank 1 {\nsend 2000b to 2\n}\n"
                              "rank 2 {\nrecv 1000b from 0 nic 1\nrecv 2000b from 1\n}\n",
                              ".goal");
    const char *transports[2] = {"uet", "roce"};
    for (int k = 0; k < 2; k++) {
        run_goal(p, NULL, 0, transports[k]);
        assert_true(goal_completion_ps(&S) != SIMTIME_NEVER);
        assert_int_equal(S.n_flows, 2);
        struct strbuf b;
        sb_init(&b);
        goal_ranks_csv(&S, &b); /* each rank's host: its NIC 0's */
        assert_non_null(strstr(b.data, "rank,host,ops,finish_us\n0,0,1,"));
        assert_non_null(strstr(b.data, "\n1,2,1,"));
        assert_non_null(strstr(b.data, "\n2,4,2,"));
        sb_free(&b);
        sb_init(&b);
        goal_json(&S, &b);
        assert_non_null(strstr(b.data, "\"ranks\": 3, \"ops\": 4, \"sends\": 2, \"recvs\": 2, \"calcs\": 0, "
                                       "\"messages\": 2, \"format\": \"text\", \"cpus\": 1, \"nics\": 2, "
                                       "\"status\": \"complete\""));
        sb_free(&b);
        for (uint32_t i = 0; i < 2; i++) {
            const struct flow *f = &S.flows[i];
            if (f->size_bytes == 1000) {
                assert_int_equal(f->src, 1);
                assert_int_equal(f->dst, 5);
            } else {
                assert_int_equal(f->size_bytes, 2000);
                assert_int_equal(f->src, 2);
                assert_int_equal(f->dst, 4);
            }
        }
        sim_free(&S);
    }
}

/* The run's report on stdout, exact (docs/goal.md "Outputs"): 25 ranks
 * (more than 16: the finish spread, not every rank), ranks 0-1 and 2-3
 * deadlocked in pairs (each receives before it sends), ranks 4..24 one
 * calc of 1 .. 21 us each: deadlocked when the last calc ends, at 21 us;
 * finish min 1, median 11 (the 11th of 21), max 21 us (rank 24); the
 * first three stuck ranks named with what holds each, then "...". */
static void test_stdout_report_deadlocked(void **state)
{
    (void)state;
    struct strbuf t;
    sb_init(&t);
    sb_printf(&t, "num_ranks 25\n"                                                   /* 1 */
                  "rank 0 {\nr: recv 8b from 1\ns: send 8b to 1 tag 4\ns requires r\n}\n" /* 2-6 */
                  "rank 1 {\nr: recv 8b from 0 tag 4\ns: send 8b to 0\ns requires r\n}\n" /* 7-11 */
                  "rank 2 {\nx: calc 1\ny: calc 1\nr: recv 8b from 3\ns: send 8b to 3\n" /* 12-16 */
                  "x requires y\nx requires r\ny requires r\ns requires r\n}\n"      /* 17-21 */
                  "rank 3 {\nr: recv 8b from 2\ns: send 8b to 2\ns requires r\n}\n"); /* 22-26 */
    for (int r = 4; r < 25; r++)
        sb_printf(&t, "rank %d {\ncalc %d\n}\n", r, (r - 3) * 1000);
    const char *p = temp_file(t.data, ".goal");
    sb_free(&t);
    run_goal(p, NULL, 0, NULL);
    struct strbuf out, err, want;
    capture_goal_stdout(&out, &err);
    sb_init(&want);
    sb_printf(&want,
              "goal: %s, 25 ranks, 31 ops (4 sends, 4 recvs, 23 calcs), 4 messages between hosts; deadlocked at "
              "21.000 us, 21 of 31 ops done\n"
              "goal ranks: finish min 1.000 us, median 11.000 us, max 21.000 us (rank 24); 4 unfinished\n"
              "goal stuck: rank 0 waits in recv from 1 tag 0 (line 3); rank 1 waits in recv from 0 tag 4 (line 8); "
              "rank 2's calc (line 13) waits for 2 dependencies; ...\n",
              p);
    assert_string_equal(out.data, want.data);
    assert_non_null(strstr(err.data, "the schedule deadlocked at 21.000 us: 4 of 25 ranks stuck (rank 0 waits in recv"));
    assert_non_null(strstr(err.data, "waits for 2 dependencies; ...)\n"));
    sb_free(&out);
    sb_free(&err);
    sb_free(&want);
    sim_free(&S);
}

/* A run cut by -end (50 us) before the schedule completes: unfinished, not
 * deadlocked (a calc still runs); at most 16 ranks, so each rank's finish
 * or '-'; what holds each rank: a send whose message arrived but no
 * receive takes (rank 1 waits for tag 2 first), that receive, a calc
 * still running. */
static void test_stdout_report_unfinished(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 4\n"
                              "rank 0 {\ns1: send 8b to 1 tag 1\ns2: send 8b to 1 tag 2\ns2 requires s1\n}\n" /* 2-6 */
                              "rank 1 {\nr1: recv 8b from 0 tag 2\nr2: recv 8b from 0 tag 1\nr2 requires r1\n}\n"
                              "rank 2 {\ncalc 100000000\n}\n" /* 12-14 */
                              "rank 3 {\ncalc 1000\n}\n",
                              ".goal");
    struct config c;
    config_defaults(&c);
    c.goal_path = p;
    c.end_ps = 50 * PS_PER_US;
    c.progress = false;
    sim_setup(&S, &c);
    sim_run(&S);
    assert_int_equal(goal_completion_ps(&S), SIMTIME_NEVER);
    struct strbuf out, err, want;
    capture_goal_stdout(&out, &err);
    sb_init(&want);
    sb_printf(&want,
              "goal: %s, 4 ranks, 6 ops (2 sends, 2 recvs, 2 calcs), 2 messages between hosts; unfinished at "
              "50.000 us, 1 of 6 ops done\n"
              "goal ranks (finish us): 0:- 1:- 2:- 3:1.000\n"
              "goal stuck: rank 0's send to 1 tag 1 (line 3) is not received; rank 1 waits in recv from 0 tag 2 "
              "(line 8); rank 2's calc (line 13) has not completed\n",
              p);
    assert_string_equal(out.data, want.data);
    assert_non_null(strstr(err.data, "the schedule did not complete by -end 50.000 us: 3 of 4 ranks unfinished "
                                     "(rank 0's send"));
    sb_free(&out);
    sb_free(&err);
    sb_free(&want);
    sb_init(&out);
    goal_json(&S, &out);
    assert_non_null(strstr(out.data, "\"status\": \"unfinished\", \"completion_us\": null, \"ops_done\": 1, "
                                     "\"stuck_ranks\": [0, 1, 2], \"rank_finish_us\": [null, null, null, 1.000000]"));
    sb_free(&out);
    sim_free(&S);
}

/* Which receive a message meets, and which message a receive takes,
 * when several could (MPI's order: the earliest posted receive, the
 * earliest arrived message). Ranks 0-2: rank 1's message (at once) meets
 * the second of rank 0's two wildcard receives, the one from rank 1;
 * rank 2's (after a 20 us calc) the first. Ranks 3-4: two tag -1 sends
 * meet rank 3's receives of tags 7 and 5 in the order posted. Ranks 5-7:
 * receives from any source posted at 50 and 60 us take rank 6's message
 * (arrived first) then rank 7's. Ranks 8-10: two tag -1 messages wait;
 * the receive from rank 10 passes over rank 9's. Rank 11: a calc of 0 ns
 * ends when it starts. (issue 26: no test had two candidates.) */
static void test_matching_picks_the_earliest(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 12\n"
                              "rank 0 {\nw1: recv 8b from 2 tag -1\nw2: recv 8b from 1 tag -1\n}\n"        /* 2-5 */
                              "rank 1 {\nsend 8b to 0 tag 4\n}\n"                                          /* 6-8 */
                              "rank 2 {\nc: calc 20000\ns: send 8b to 0 tag 4\ns requires c\n}\n"         /* 9-13 */
                              "rank 3 {\na: recv 8b from 4 tag 7\nb: recv 8b from 4 tag 5\n}\n"           /* 14-17 */
                              "rank 4 {\ns1: send 8b to 3 tag -1\nc: calc 20000\ns2: send 8b to 3 tag -1\n"
                              "s2 requires c\n}\n"                                                        /* 18-23 */
                              "rank 5 {\nw: calc 50000\nx: recv 8b from -1 tag -1\ny: calc 10000\n"
                              "z: recv 8b from -1 tag -1\nx requires w\ny requires x\nz requires y\n}\n"  /* 24-32 */
                              "rank 6 {\nsend 8b to 5 tag 1\n}\n"                                          /* 33-35 */
                              "rank 7 {\nc: calc 20000\ns: send 8b to 5 tag 2\ns requires c\n}\n"         /* 36-40 */
                              "rank 8 {\nw: calc 50000\nr: recv 8b from 10\nq: recv 8b from 9\nr requires w\n"
                              "q requires r\n}\n"                                                         /* 41-47 */
                              "rank 9 {\nsend 8b to 8 tag -1\n}\n"                                         /* 48-50 */
                              "rank 10 {\nc: calc 20000\ns: send 8b to 8 tag -1\ns requires c\n}\n"       /* 51-55 */
                              "rank 11 {\nz: calc 0\nc: calc 3000\nc requires z\n}\n",                    /* 56-60 */
                              ".goal");
    run_goal(p, NULL, 0, NULL);
    assert_int_equal(goal_completion_ps(&S), 60 * PS_PER_US);
    struct strbuf b;
    sb_init(&b);
    goal_ops_csv(&S, &b);
    double w1 = op_end_us(b.data, 0, 3), w2 = op_end_us(b.data, 0, 4);
    assert_true(w2 > 0 && w2 < 20.0);
    assert_true(w1 > 20.0 && w1 < 50.0);
    double a = op_end_us(b.data, 3, 15), bb = op_end_us(b.data, 3, 16);
    assert_true(a > 0 && a < 20.0);
    assert_true(bb > 20.0 && bb < 50.0);
    assert_true(op_end_us(b.data, 6, 34) == 50.0);
    assert_true(op_end_us(b.data, 7, 38) == 60.0);
    assert_true(op_end_us(b.data, 8, 43) == 50.0);
    assert_true(op_end_us(b.data, 8, 44) == 50.0);
    assert_true(op_end_us(b.data, 11, 57) == 0.0);
    assert_true(op_end_us(b.data, 11, 58) == 3.0);
    sb_free(&b);
    sim_free(&S);
}

/* Two ranks on one host (a map) exchange a message without the network;
 * a single rank with only a calc runs on the smallest fabric; a schedule
 * with no ops completes at once. */
static void test_local_and_empty_schedules(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 2\nrank 0 {\nsend 100b to 1\n}\nrank 1 {\nc: calc 5000\nr: recv 100b from 0\n"
                              "r requires c\n}\n",
                              ".goal");
    const char *map = temp_file("0 3\n1 3\n", ".map");
    run_goal(p, map, 0, NULL);
    assert_int_equal(goal_completion_ps(&S), 5 * PS_PER_US);
    assert_int_equal(S.n_flows, 0);
    sim_free(&S);
    /* one rank needs one host, but a fabric has two at least: -nodes 2 */
    p = temp_file("num_ranks 1\nrank 0 {\ncalc 2000\n}\n", ".goal");
    struct config c;
    config_defaults(&c);
    c.goal_path = p;
    c.nodes = 2;
    c.progress = false;
    sim_setup(&S, &c);
    sim_run(&S);
    assert_int_equal(S.n_hosts, 2);
    assert_int_equal(goal_completion_ps(&S), 2 * PS_PER_US);
    sim_free(&S);
    p = temp_file("num_ranks 3\nrank 0 {\n}\nrank 1 {\n}\nrank 2 {\n}\n", ".goal");
    run_goal(p, NULL, 0, NULL);
    assert_int_equal(goal_completion_ps(&S), 0);
    sim_free(&S);
}

/* A receive posted after the last one of a wildcard list was taken
 * joins the list and is found: rank 1's message takes w2 (the list's
 * tail) at once, w3 (any source, tag 6) is posted then and must meet rank
 * 3's message at 30 us; w1 (rank 2, any tag) meets rank 2's at 20 us.
 * (issue 26: a tail left pointing at a removed op, or a receive from any
 * source with one tag filed under source -1, was never found.) */
static void test_wildcard_list_after_removing_its_tail(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 4\n"
                              "rank 0 {\nw1: recv 8b from 2 tag -1\nw2: recv 8b from 1 tag -1\n"
                              "w3: recv 8b from -1 tag 6\nw3 requires w2\n}\n"                      /* 2-7 */
                              "rank 1 {\nsend 8b to 0 tag 4\n}\n"                                  /* 8-10 */
                              "rank 2 {\nc: calc 20000\ns: send 8b to 0 tag 4\ns requires c\n}\n"  /* 11-15 */
                              "rank 3 {\nc: calc 30000\ns: send 8b to 0 tag 6\ns requires c\n}\n", /* 16-20 */
                              ".goal");
    run_goal(p, NULL, 0, NULL);
    assert_true(goal_completion_ps(&S) != SIMTIME_NEVER);
    struct strbuf b;
    sb_init(&b);
    goal_ops_csv(&S, &b);
    double w1 = op_end_us(b.data, 0, 3), w2 = op_end_us(b.data, 0, 4), w3 = op_end_us(b.data, 0, 5);
    assert_true(w2 > 0 && w2 < 20.0);
    assert_true(w1 > 20.0 && w1 < 30.0);
    assert_true(w3 > 30.0 && w3 < 40.0);
    sb_free(&b);
    sim_free(&S);
}

/* More than 16 ranks, none finished: no finish spread at all (there is
 * no finish to take a median of), only the stuck ranks. 18 ranks in 9
 * pairs, each receiving before it sends: deadlocked at once. */
static void test_stdout_report_none_finished(void **state)
{
    (void)state;
    struct strbuf t;
    sb_init(&t);
    sb_printf(&t, "num_ranks 18\n");
    for (int r = 0; r < 18; r++) /* rank r: lines 2 + 5r .. 6 + 5r */
        sb_printf(&t, "rank %d {\nr: recv 8b from %d\ns: send 8b to %d\ns requires r\n}\n", r, r ^ 1, r ^ 1);
    const char *p = temp_file(t.data, ".goal");
    sb_free(&t);
    run_goal(p, NULL, 0, NULL);
    struct strbuf out, err, want;
    capture_goal_stdout(&out, &err);
    sb_init(&want);
    sb_printf(&want,
              "goal: %s, 18 ranks, 36 ops (18 sends, 18 recvs, 0 calcs), 18 messages between hosts; deadlocked at "
              "0.000 us, 0 of 36 ops done\n"
              "goal stuck: rank 0 waits in recv from 1 tag 0 (line 3); rank 1 waits in recv from 0 tag 0 (line 8); "
              "rank 2 waits in recv from 3 tag 0 (line 13); ...\n",
              p);
    assert_string_equal(out.data, want.data);
    assert_non_null(strstr(err.data, "the schedule deadlocked at 0.000 us: 18 of 18 ranks stuck"));
    sb_free(&out);
    sb_free(&err);
    sb_free(&want);
    sim_free(&S);
}

/* The matching tables' hash (goal.c goal_mix and bucket_get): the slot of
 * the (rank, source, tag, queue) bucket in a table of cap slots. */
static uint64_t goal_hash_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}
static uint32_t bucket_slot(uint32_t rank, uint32_t src, uint32_t tag, uint8_t uq, uint32_t cap)
{
    return (uint32_t)goal_hash_mix(((uint64_t)rank << 32 | src) ^ goal_hash_mix((uint64_t)tag << 1 | uq)) & (cap - 1);
}

/* A tag whose bucket lands in slot 0 of the 64-slot table. */
static uint32_t tag_in_slot_zero(uint32_t rank, uint32_t src, uint8_t uq)
{
    for (uint32_t t = 0; t < 1000000; t++)
        if (bucket_slot(rank, src, t, uq, 64) == 0)
            return t;
    fail_msg("no tag in slot 0");
    return 0;
}

/* The scans over every bucket (a wildcard receive looking for a waiting
 * message, a tag -1 message looking for a posted receive) look at slot 0
 * too (issue 26: a scan from slot 1 missed a bucket there): the tags are
 * chosen so that the one bucket of each run is in slot 0. */
static void test_bucket_scans_see_slot_zero(void **state)
{
    (void)state;
    char text[256];
    snprintf(text, sizeof text, "num_ranks 2\nrank 0 {\nw: calc 50000\nr: recv 8b from -1 tag -1\nr requires w\n}\n"
                                "rank 1 {\nsend 8b to 0 tag %u\n}\n",
             tag_in_slot_zero(0, 1, 1));
    run_goal(temp_file(text, ".goal"), NULL, 0, NULL);
    assert_int_equal(goal_completion_ps(&S), 50 * PS_PER_US);
    sim_free(&S);
    snprintf(text, sizeof text, "num_ranks 2\nrank 0 {\nrecv 8b from 1 tag %u\n}\n"
                                "rank 1 {\nc: calc 20000\ns: send 8b to 0 tag -1\ns requires c\n}\n",
             tag_in_slot_zero(0, 1, 0));
    run_goal(temp_file(text, ".goal"), NULL, 0, NULL);
    assert_true(goal_completion_ps(&S) != SIMTIME_NEVER);
    assert_true(goal_completion_ps(&S) > 20 * PS_PER_US);
    sim_free(&S);
}

/* More than 16 ranks finishing together: the slowest named is the first
 * of them, rank 0. */
static void test_stdout_report_tie(void **state)
{
    (void)state;
    struct strbuf t;
    sb_init(&t);
    sb_printf(&t, "num_ranks 17\n");
    for (int r = 0; r < 17; r++)
        sb_printf(&t, "rank %d {\ncalc 1000\n}\n", r);
    const char *p = temp_file(t.data, ".goal");
    sb_free(&t);
    run_goal(p, NULL, 0, NULL);
    struct strbuf out, err, want;
    capture_goal_stdout(&out, &err);
    sb_init(&want);
    sb_printf(&want,
              "goal: %s, 17 ranks, 17 ops (0 sends, 0 recvs, 17 calcs), 0 messages between hosts; complete: completion "
              "1.000 us\ngoal ranks: finish min 1.000 us, median 1.000 us, max 1.000 us (rank 0); 0 unfinished\n",
              p);
    assert_string_equal(out.data, want.data);
    assert_string_equal(err.data, "");
    sb_free(&out);
    sb_free(&err);
    sb_free(&want);
    sim_free(&S);
}

/* ---- closed forms ------------------------------------------------------------------------------ */

/* Rank i on host 4i: on the two-tier k=8 tree (four hosts a leaf) every
 * rank has its own leaf and every message crosses four links. */
static const char *spread_map(void)
{
    static char text[256];
    size_t n = 0;
    for (int r = 0; r < 8; r++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%d %d\n", r, 4 * r);
    return temp_file(text, ".map");
}

/* Serialisation of b payload bytes at the NIC (headers included). */
static double ser_us(const struct sim *s, uint64_t b)
{
    uint64_t mss = s->cfg.mtu_bytes - s->cfg.hdr_bytes;
    uint64_t wire = b + (b + mss - 1) / mss * s->cfg.hdr_bytes;
    return (double)wire * 8 / s->cfg.linkspeed_mbps;
}

/* D(b): the idle fabric's one-way time of b bytes between two ranks, from
 * report.c's first-principles ideal (line rate, store-and-forward,
 * latency) on a flow of that size between two hosts four links apart. */
static double D_us(const struct sim *s, uint64_t b)
{
    struct flow f = s->flows[0];
    uint64_t mss = s->cfg.mtu_bytes - s->cfg.hdr_bytes;
    f.size_bytes = b;
    f.n_pkts = (uint32_t)((b + mss - 1) / mss);
    f.last_payload_bytes = (uint32_t)(b - (uint64_t)(f.n_pkts - 1) * mss);
    f.src = 0;
    f.dst = 4;
    return (double)ideal_delivery_ps(s, &f) / PS_PER_US;
}

static double completion_us(void)
{
    simtime_ps t = goal_completion_ps(&S);
    if (t == SIMTIME_NEVER)
        fail_msg("the schedule did not complete");
    return (double)t / PS_PER_US;
}

/* measured within [lower, closed x 1.10] */
static void check_closed(const char *what, double got, double closed, double lower)
{
    print_message("%s: %.3f us, closed form %.3f us (%.3f), line-rate bound %.3f us\n", what, got, closed,
                  got / closed, lower);
    if (got < lower * (1 - 1e-9) || got > closed * 1.10)
        fail_msg("%s: %.3f us outside [%.3f, %.3f] (closed form %.3f us)", what, got, lower, closed * 1.10, closed);
}

static void test_ring_allreduce_closed_form(void **state)
{
    (void)state;
    run_goal("tests/goal/ring8.goal", spread_map(), 2, NULL);
    /* 8 ranks, chunk S/N = 262144 B: 2(N-1) = 14 steps of D(S/N) */
    uint64_t chunk = 262144;
    double closed = 14 * D_us(&S, chunk), lower = 14 * ser_us(&S, chunk);
    check_closed("ring allreduce 8 x 2 MiB", completion_us(), closed, lower);
    sim_free(&S);
}

/* Every transport runs a schedule: the ring completes, never faster than
 * line rate. (The closed form above assumes line rate from a message's
 * first byte, the sender-window transport's behaviour; receiver-driven
 * ones wait for credit on each message: their ratios are printed, and
 * docs/goal.md records them.) */
static void test_ring_on_every_transport(void **state)
{
    (void)state;
    const char *transports[] = {"uet", "eqds", "roce", "homa", "sird"};
    for (unsigned k = 0; k < 5; k++) {
        run_goal("tests/goal/ring8.goal", spread_map(), 2, transports[k]);
        uint64_t chunk = 262144;
        double closed = 14 * D_us(&S, chunk), lower = 14 * ser_us(&S, chunk), got = completion_us();
        print_message("ring allreduce 8 x 2 MiB, %s: %.3f us, %.3f x the closed form\n", transports[k], got,
                      got / closed);
        assert_true(got >= lower * (1 - 1e-9));
        assert_int_equal(S.flows_finished, S.n_msgs);
        sim_free(&S);
    }
}

static void test_recdoub_allreduce_closed_form(void **state)
{
    (void)state;
    run_goal("tests/goal/recdoub8.goal", spread_map(), 2, NULL);
    /* S = 1 MiB, 8 ranks: halving S/2, S/4, S/8, then doubling back */
    uint64_t S0 = 1048576;
    double closed = 2 * (D_us(&S, S0 / 2) + D_us(&S, S0 / 4) + D_us(&S, S0 / 8));
    double lower = 2 * (ser_us(&S, S0 / 2) + ser_us(&S, S0 / 4) + ser_us(&S, S0 / 8));
    check_closed("recursive-doubling allreduce 8 x 1 MiB", completion_us(), closed, lower);
    sim_free(&S);
}

static void test_bcast_closed_form(void **state)
{
    (void)state;
    run_goal("tests/goal/bcast8.goal", spread_map(), 2, NULL);
    /* binomial tree, 8 ranks, S = 256 KiB: the root sends to 3 children at
     * once, rank 1 to 2, rank 3 to 1: (3 + 2 + 1) ser(S) + 3 L, L = D(S) - ser(S) */
    uint64_t b = 262144;
    double L = D_us(&S, b) - ser_us(&S, b);
    double closed = 6 * ser_us(&S, b) + 3 * L, lower = 6 * ser_us(&S, b);
    check_closed("binomial broadcast 8 x 256 KiB", completion_us(), closed, lower);
    sim_free(&S);
}

static void test_alltoall_closed_form(void **state)
{
    (void)state;
    run_goal("tests/goal/alltoall8.goal", spread_map(), 2, NULL);
    /* every rank sends 7 messages of 64 KiB at once and receives 7: its NIC
     * sends 7 x 64 KiB back to back, the last one D(64 KiB) - ser after */
    uint64_t b = 65536;
    double closed = 7 * ser_us(&S, b) + (D_us(&S, b) - ser_us(&S, b)), lower = 7 * ser_us(&S, b);
    check_closed("linear all-to-all 8 x 7 x 64 KiB", completion_us(), closed, lower);
    sim_free(&S);
}

/* The same schedule and seed: the same finish of every rank. */
static void test_deterministic(void **state)
{
    (void)state;
    struct strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    run_goal("tests/goal/alltoall8.bin", NULL, 0, NULL);
    goal_ops_csv(&S, &a);
    sim_free(&S);
    run_goal("tests/goal/alltoall8.bin", NULL, 0, NULL);
    goal_ops_csv(&S, &b);
    struct strbuf j;
    sb_init(&j);
    goal_json(&S, &j);
    assert_non_null(strstr(j.data, "\"format\": \"binary\""));
    sb_free(&j);
    sim_free(&S);
    /* a binary schedule's ops are numbered by record */
    assert_int_equal(strncmp(a.data, "rank,record,type,peer,tag,size,cpu,nic,flow_id,start_us,end_us\n", 63), 0);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    sb_free(&a);
    sb_free(&b);
}

/* ---- mutmw (issue 26): goal_ops.csv's peer and tag columns ---------------------------------- */

/* goal_ops.csv names a send's destination and a receive's source as the
 * schedule gives them, MPI's "any" (GOAL_ANY) as -1, and leaves both empty
 * for a calc (docs/goal.md's columns: rank, line, type, peer, tag, size,
 * cpu, nic, ...). A mutant that wrote -1 for every named peer survived. */
static void test_ops_csv_peer_and_tag_columns(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 2\n"
                              "rank 0 {\n"
                              "a: send 1000b to 1 tag 5\n"
                              "b: send 2000b to 1 tag 6\n"
                              "c: calc 100\n"
                              "}\n"
                              "rank 1 {\n"
                              "x: recv 1000b from -1 tag 5\n"
                              "y: recv 2000b from 0 tag -1\n"
                              "}\n",
                              ".goal");
    run_goal(p, NULL, 0, NULL);
    assert_true(goal_completion_ps(&S) != SIMTIME_NEVER);
    struct strbuf b;
    sb_init(&b);
    goal_ops_csv(&S, &b);
    const char *want[] = {"\n0,3,send,1,5,1000,0,0,", "\n0,4,send,1,6,2000,0,0,", "\n0,5,calc,,,100,0,0,,",
                          "\n1,8,recv,-1,5,1000,0,0,", "\n1,9,recv,0,-1,2000,0,0,"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(b.data, want[i]))
            fail_msg("goal_ops.csv lacks a row starting '%s':\n%s", want[i] + 1, b.data);
    sb_free(&b);
    sim_free(&S);
}

/* A receive from a named source takes only that source's tag -1 message,
 * though another's arrived first: rank 1's tag -1 message reaches rank 0
 * at about 1 us, rank 2's (after a 5 us calc) at about 6 us; rank 0 posts
 * "from 2" at 30 us and "from 1" at 40 us. A send completes when its
 * receive takes it, so rank 2's send ends at 30 us and rank 1's at 40 us
 * (a mutant that let a named-source receive take the first tag -1 message
 * of any source swapped them, and survived). */
static void test_named_source_skips_other_wild_tag_messages(void **state)
{
    (void)state;
    const char *p = temp_file("num_ranks 3\n"
                              "rank 0 {\n"
                              "w: calc 30000\n"
                              "a: recv 8b from 2 tag 7\n"             /* line 4 */
                              "v: calc 10000\n"
                              "b: recv 8b from 1 tag 7\n"             /* line 6 */
                              "a requires w\nv requires a\nb requires v\n"
                              "}\n"
                              "rank 1 {\nsend 8b to 0 tag -1\n}\n"    /* the send on line 12 */
                              "rank 2 {\nc: calc 5000\ns: send 8b to 0 tag -1\ns requires c\n}\n", /* line 16 */
                              ".goal");
    run_goal(p, NULL, 0, NULL);
    assert_int_equal(goal_completion_ps(&S), 40 * PS_PER_US);
    struct strbuf b;
    sb_init(&b);
    goal_ops_csv(&S, &b);
    assert_true(op_end_us(b.data, 0, 4) == 30.0);
    assert_true(op_end_us(b.data, 0, 6) == 40.0);
    if (op_end_us(b.data, 2, 16) != 30.0 || op_end_us(b.data, 1, 12) != 40.0)
        fail_msg("rank 2's send ends at %g us (want 30), rank 1's at %g us (want 40):\n%s", op_end_us(b.data, 2, 16),
                 op_end_us(b.data, 1, 12), b.data);
    sb_free(&b);
    sim_free(&S);
}

/* ---- mut6wk (issue 26): the parallel run's state words and window ends ---- */

/* test_unexpected_messages_taken's schedule: rank 0's calc (50 us) then
 * four receives whose messages (ranks 1-4's sends) all wait as
 * unexpected; every op ends at 50 us. Ops in file order: rank 0's
 * w a b c d are 0-4, ranks 1-4's sends are 5-8. */
static const char *unexpected_sched(void)
{
    return temp_file("num_ranks 5\n"
                     "rank 0 {\n"
                     "w: calc 50000\n"
                     "a: recv 8b from 1 tag 3\n"
                     "b: recv 8b from -1 tag 9\n"
                     "c: recv 8b from 3 tag -1\n"
                     "d: recv 8b from -1 tag -1\n"
                     "a requires w\nb requires w\nc requires w\nd requires w\n"
                     "}\n"
                     "rank 1 {\nsend 8b to 0 tag 3\n}\n"
                     "rank 2 {\nsend 8b to 0 tag 9\n}\n"
                     "rank 3 {\nsend 8b to 0 tag 4\n}\n"
                     "rank 4 {\nsend 8b to 0 tag 6\n}\n",
                     ".goal");
}

/* goal_state_export's words (goal.h): per op state, dependencies left,
 * start and end; per rank ops left and finish; then ops done and the
 * receives that found their message waiting. A rank on a remote host
 * leaves its words zero; goal_state_import takes back every word. */
static void test_state_words_export_import(void **state)
{
    (void)state;
    run_goal(unexpected_sched(), NULL, 0, NULL);
    assert_int_equal(goal_completion_ps(&S), 50 * PS_PER_US);
    const size_t n_ops = 9, n_ranks = 5, words = 4 * n_ops + 2 * n_ranks + 2;
    assert_int_equal(goal_state_words(&S), words);
    const int64_t guard = 0x5a5a5a5a5a5aLL, t50 = (int64_t)(50 * PS_PER_US);
    int64_t *v = malloc((words + 1) * sizeof *v), *w = malloc((words + 1) * sizeof *w);
    uint8_t *remote = calloc(S.n_hosts, 1);
    v[words] = guard;
    goal_state_export(&S, remote, v);
    assert_true(v[words] == guard); /* nothing written past the last word */
    const int64_t *rk = v + 4 * n_ops;
    assert_true(rk[2 * n_ranks] == 9);     /* ops done */
    assert_true(rk[2 * n_ranks + 1] == 4); /* all four receives found their message waiting */
    for (size_t r = 0; r < n_ranks; r++) {
        assert_true(rk[2 * r] == 0);       /* nothing left */
        assert_true(rk[2 * r + 1] == t50); /* every rank finishes at 50 us */
    }
    int64_t done_state = v[0];
    for (size_t i = 0; i < n_ops; i++) {
        assert_true(v[4 * i] == done_state && done_state != 0);
        assert_true(v[4 * i + 1] == 0);     /* no dependency left */
        assert_true(v[4 * i + 3] == t50);   /* --goal-ops: each op's end */
    }
    assert_true(v[4 * 0 + 2] == 0);         /* the calc starts at 0 */
    for (size_t i = 1; i <= 4; i++)
        assert_true(v[4 * i + 2] == t50);   /* the receives wait for it */
    for (size_t i = 5; i < n_ops; i++)
        assert_true(v[4 * i + 2] == 0);     /* the sends start at once */
    /* rank 2 (op 6) on a remote host: its words stay zero, the rest as before */
    remote[2] = 1; /* the default map puts rank r on host r */
    memset(w, 0xa5, words * sizeof *w); /* export must clear every word it does not set */
    w[words] = guard;
    goal_state_export(&S, remote, w);
    assert_true(w[words] == guard);
    for (size_t k = 0; k < words; k++) {
        bool rank2 = (k >= 4 * 6 && k < 4 * 7) || k == 4 * n_ops + 4 || k == 4 * n_ops + 5;
        if (rank2 ? w[k] != 0 : w[k] != v[k])
            fail_msg("word %zu: %lld with rank 2 remote, %lld without", k, (long long)w[k], (long long)v[k]);
    }
    remote[2] = 0;
    /* every word read back: distinct values in, the same values out (a
     * time of INT64_MAX is "never", and stays so) */
    memcpy(w, v, words * sizeof *w);
    for (size_t i = 0; i < n_ops; i++) {
        w[4 * i + 1] = (int64_t)i + 1;
        w[4 * i + 2] = 1000 + (int64_t)i;
        w[4 * i + 3] = 2000 + (int64_t)i;
    }
    w[4 * 8 + 3] = INT64_MAX;
    for (size_t r = 0; r < n_ranks; r++) {
        w[4 * n_ops + 2 * r] = 10 + (int64_t)r;
        w[4 * n_ops + 2 * r + 1] = 3000 + (int64_t)r;
    }
    w[words - 2] = 7;
    w[words - 1] = 77;
    goal_state_import(&S, w);
    goal_state_export(&S, remote, v);
    for (size_t k = 0; k < words; k++)
        if (v[k] != w[k])
            fail_msg("word %zu: imported %lld, exported %lld", k, (long long)w[k], (long long)v[k]);
    free(remote);
    free(v);
    free(w);
    sim_free(&S);
}

/* The schedule set up, not run, partitioned: what goal_window_end decides
 * from the summed counts {ops done, pending, last pump, last completion}. */
static void setup_unexpected(uint8_t send_done)
{
    struct config c;
    config_defaults(&c);
    c.goal_path = unexpected_sched();
    c.goal_send_done = send_done;
    c.end_ps = 100000 * PS_PER_US;
    c.progress = false;
    sim_setup(&S, &c);
    goal_partition(&S);
}

static void expect_status(const char *want)
{
    struct strbuf b;
    sb_init(&b);
    goal_json(&S, &b);
    if (!strstr(b.data, want))
        fail_msg("goal_json '%s' lacks '%s'", b.data, want);
    sb_free(&b);
}

static void test_window_end_decides(void **state)
{
    (void)state;
    /* every op done: complete at the latest completion (v[3]) */
    setup_unexpected(0);
    const int64_t all_done[4] = {9, 0, 40, 30};
    goal_window_end(&S, all_done);
    assert_int_equal(goal_completion_ps(&S), 30);
    assert_false(S.arrivals_open);
    expect_status("\"status\": \"complete\"");
    sim_free(&S);
    /* one op short, something pending: undecided */
    setup_unexpected(0);
    const int64_t busy[4] = {8, 1, 40, 30};
    goal_window_end(&S, busy);
    assert_true(goal_completion_ps(&S) == SIMTIME_NEVER);
    expect_status("\"status\": \"unfinished\"");
    /* one op short, nothing pending: deadlocked at the last pump (v[2]) */
    const int64_t stuck[4] = {8, 0, 40, 30};
    goal_window_end(&S, stuck);
    assert_true(goal_completion_ps(&S) == SIMTIME_NEVER);
    assert_false(S.arrivals_open);
    expect_status("\"status\": \"deadlocked\"");
    expect_status("\"deadlock_us\": 0.000040");
    /* decided once: a later window's counts change nothing */
    goal_window_end(&S, all_done);
    assert_true(goal_completion_ps(&S) == SIMTIME_NEVER);
    sim_free(&S);
    /* --goal-send-done path: the 5 ranks whose start events have not run
     * count as pending, and each started rank takes one off v[1] */
    setup_unexpected(1);
    const int64_t four_started[4] = {8, -4, 40, 30};
    goal_window_end(&S, four_started);
    expect_status("\"status\": \"unfinished\"");
    const int64_t five_started[4] = {8, -5, 40, 30};
    goal_window_end(&S, five_started);
    expect_status("\"status\": \"deadlocked\"");
    sim_free(&S);
}

/* The counts goal_window_counts gives at the end of a plain run of the
 * schedule: 9 ops done, nothing pending (every calc ended, every message
 * arrived, no notes, no rank start events), the last pump and the last
 * completion at 50 us. */
static void test_window_counts_after_run(void **state)
{
    (void)state;
    run_goal(unexpected_sched(), NULL, 0, NULL);
    int64_t v[4];
    goal_window_counts(&S, v);
    assert_true(v[0] == 9);
    assert_true(v[1] == 0);
    assert_true(v[2] == (int64_t)(50 * PS_PER_US));
    assert_true(v[3] == (int64_t)(50 * PS_PER_US));
    sim_free(&S);
}

/* goal_window_counts part-way through a --goal-send-done path run, each
 * count made non-zero (the run stops 1 ps after 50 us, end_ps):
 * rank 0's 50 us calc ends and posts two receives; rank 1's 8-byte
 * message arrived long before, so it matches at once and its note starts
 * back (a note sent, none arrived: 1 ps is shorter than any path); rank
 * 2's 1 MB send starts at 49 us and is still on its way; rank 3's 100 us
 * calc still runs; ranks 4 and 5 exchanged 8 bytes at the start, note
 * and all. So ops done: rank 0's calc and first receive, rank 2's calc,
 * rank 4's send (its note came back) and rank 5's receive, 5; pending:
 * 1 calc + (3 messages started - 2 arrived) + (2 notes sent - 1 done) -
 * 6 rank start events run = -3; the last pump and the last completion at
 * 50 us. Without --goal-ops the state words carry no start or end. */
static void test_window_counts_mid_run(void **state)
{
    (void)state;
    struct config c;
    config_defaults(&c);
    c.goal_path = temp_file("num_ranks 6\n"
                            "rank 0 {\nw: calc 50000\na: recv 8b from 1\nb: recv 1000000b from 2\n"
                            "a requires w\nb requires w\n}\n"
                            "rank 1 {\nsend 8b to 0\n}\n"
                            "rank 2 {\nx: calc 49000\ny: send 1000000b to 0\ny requires x\n}\n"
                            "rank 3 {\ncalc 100000\n}\n"
                            "rank 4 {\nsend 8b to 5\n}\n"
                            "rank 5 {\nrecv 8b from 4\n}\n",
                            ".goal");
    c.goal_send_done = 1;
    c.end_ps = 50 * PS_PER_US + 1;
    c.progress = false;
    sim_setup(&S, &c);
    sim_run(&S);
    int64_t v[4];
    goal_window_counts(&S, v);
    assert_true(v[0] == 5);
    assert_true(v[1] == -3);
    assert_true(v[2] == (int64_t)(50 * PS_PER_US));
    assert_true(v[3] == (int64_t)(50 * PS_PER_US));
    size_t words = goal_state_words(&S);
    assert_int_equal(words, 4 * 9 + 2 * 6 + 2); /* 9 ops, 6 ranks */
    int64_t *x = malloc(words * sizeof *x);
    uint8_t *remote = calloc(S.n_hosts, 1);
    goal_state_export(&S, remote, x);
    for (size_t i = 0; i < 9; i++)
        assert_true(x[4 * i + 2] == 0 && x[4 * i + 3] == 0);
    assert_true(x[words - 2] == 5);
    assert_true(x[words - 1] == 1); /* rank 0's first receive found its message waiting */
    free(x);
    free(remote);
    sim_free(&S);
}

/* goal_delivered in a child process (stderr captured): its exit status. */
static int delivered_in_child(uint32_t conn, char *out, size_t len)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        goal_delivered(&S, conn);
        _exit(0);
    }
    close(fds[1]);
    return child_output(fds[0], pid, out, len);
}

/* A delivery names one of the run's connections: the last one (its
 * message arrived long ago, so a second word of it changes nothing) is
 * taken, the one past the last is an internal error (exit 1). */
static void test_delivery_of_unknown_connection(void **state)
{
    (void)state;
    run_goal(unexpected_sched(), NULL, 0, NULL);
    assert_int_equal(S.cm.n_conns, 4); /* ranks 1-4's messages to rank 0, each between two hosts */
    char out[512];
    assert_int_equal(delivered_in_child(3, out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(delivered_in_child(4, out, sizeof out), 1);
    assert_string_equal(out, "spraysim: internal error: GOAL: delivery of unknown connection 4\n");
    sim_free(&S);
}

int main(int argc, char **argv)
{
    (void)argc;
    malloc_check_reexec(argv); /* tests/malloc_check.h: heap overruns fail here too */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_every_form),
        cmocka_unit_test(test_binary_equals_text),
        cmocka_unit_test(test_binary_every_cut_refused),
        cmocka_unit_test(test_binary_bad_records),
        cmocka_unit_test(test_text_bad_input),
        cmocka_unit_test(test_any_tag_receives_match_sends),
        cmocka_unit_test(test_cpus_and_start_dependencies),
        cmocka_unit_test(test_receives_in_posted_order),
        cmocka_unit_test(test_deadlock_reported),
        cmocka_unit_test(test_unexpected_messages_taken),
        cmocka_unit_test(test_wildcard_lists_take_each_once),
        cmocka_unit_test(test_two_nics_place_flows),
        cmocka_unit_test(test_matching_picks_the_earliest),
        cmocka_unit_test(test_wildcard_list_after_removing_its_tail),
        cmocka_unit_test(test_bucket_scans_see_slot_zero),
        cmocka_unit_test(test_local_and_empty_schedules),
        cmocka_unit_test(test_stdout_report_deadlocked),
        cmocka_unit_test(test_stdout_report_unfinished),
        cmocka_unit_test(test_stdout_report_none_finished),
        cmocka_unit_test(test_stdout_report_tie),
        cmocka_unit_test(test_ring_allreduce_closed_form),
        cmocka_unit_test(test_ring_on_every_transport),
        cmocka_unit_test(test_recdoub_allreduce_closed_form),
        cmocka_unit_test(test_bcast_closed_form),
        cmocka_unit_test(test_alltoall_closed_form),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_ops_csv_peer_and_tag_columns),
        cmocka_unit_test(test_named_source_skips_other_wild_tag_messages),
        cmocka_unit_test(test_state_words_export_import),
        cmocka_unit_test(test_window_end_decides),
        cmocka_unit_test(test_window_counts_after_run),
        cmocka_unit_test(test_window_counts_mid_run),
        cmocka_unit_test(test_delivery_of_unknown_connection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
