/* test_cm.c: unit tests for the .cm connection-matrix reader: the shared
 * example matrices parse with the right counts and fields, every optional
 * feature (triggers, failures, fractional starts, comments, CRLF) works, and
 * every malformed input is rejected with one line naming file and line.
 */
#include "testutil.h"

#include "workload/cm.h"

#include <malloc.h>

#define MATRICES "htsim/matrices/"

/* Parses text that must be valid; fails the test with the message if not. */
static void parse_ok(struct conn_matrix *cm, const char *text)
{
    char err[512];
    if (!cm_read_buffer(cm, "x.cm", text, err, sizeof err))
        fail_msg("unexpected error: %s", err);
}

static void read_ok(struct conn_matrix *cm, const char *path)
{
    char err[512];
    if (!cm_read_file(cm, path, err, sizeof err))
        fail_msg("unexpected error: %s", err);
}

/* The message must be one line starting with `where` (e.g. "x.cm:3:") and
 * contain `phrase`; the matrix must be left empty. */
static void check_err(const char *err, const char *where, const char *phrase)
{
    if (strncmp(err, where, strlen(where)) != 0)
        fail_msg("error '%s' does not start with '%s'", err, where);
    if (!strstr(err, phrase))
        fail_msg("error '%s' does not contain '%s'", err, phrase);
    if (strchr(err, '\n'))
        fail_msg("error '%s' has a newline", err);
}

static void expect_err(const char *text, const char *where, const char *phrase)
{
    struct conn_matrix cm;
    char err[512];
    if (cm_read_buffer(&cm, "x.cm", text, err, sizeof err)) {
        cm_free(&cm);
        fail_msg("accepted input that should fail with '%s ... %s':\n%s", where, phrase, text);
    }
    check_err(err, where, phrase);
    assert_null(cm.conns);
    assert_null(cm.triggers);
    assert_null(cm.failures);
    assert_int_equal(cm.n_conns, 0);
}

/* ---- the shared example matrices ------------------------------------------ */

static void test_one_cm(void **state)
{
    (void)state;
    struct conn_matrix cm;
    read_ok(&cm, shared_path(MATRICES "one.cm"));
    assert_int_equal(cm.nodes, 16);
    assert_int_equal(cm.n_conns, 1);
    assert_int_equal(cm.n_triggers, 0);
    assert_int_equal(cm.n_failures, 0);
    const struct cm_conn *c = &cm.conns[0];
    assert_int_equal(c->src, 0);
    assert_int_equal(c->dst, 13);
    assert_int_equal(c->size_bytes, 2000000);
    assert_int_equal(c->start_ps, 0);
    assert_int_equal(c->id, 1);
    assert_false(c->has_id);
    assert_int_equal(c->start_trigger, CM_NO_TRIGGER);
    assert_int_equal(c->send_done_trigger, CM_NO_TRIGGER);
    assert_int_equal(c->recv_done_trigger, CM_NO_TRIGGER);
    assert_int_equal(c->line, 3);
    assert_int_equal(c->msg, 0);
    cm_free(&cm);
}

static void test_bidir_cm(void **state)
{
    (void)state;
    struct conn_matrix cm;
    read_ok(&cm, shared_path(MATRICES "bidir.cm"));
    assert_int_equal(cm.n_conns, 2);
    assert_int_equal(cm.conns[0].src, 0);
    assert_int_equal(cm.conns[0].dst, 13);
    assert_int_equal(cm.conns[1].src, 13);
    assert_int_equal(cm.conns[1].dst, 0);
    assert_int_equal(cm.conns[1].id, 2);
    assert_int_equal(cm.conns[1].size_bytes, 2000000);
    cm_free(&cm);
}

static void test_incast_cm(void **state)
{
    (void)state;
    struct conn_matrix cm;
    /* This file has no newline after its last line. */
    read_ok(&cm, shared_path(MATRICES "incast.cm"));
    assert_int_equal(cm.nodes, 16);
    assert_int_equal(cm.n_conns, 15);
    for (uint32_t i = 0; i < cm.n_conns; i++) {
        assert_int_equal(cm.conns[i].src, i);
        assert_int_equal(cm.conns[i].dst, 15);
        assert_int_equal(cm.conns[i].id, i + 1);
        assert_int_equal(cm.conns[i].size_bytes, 2000000);
    }
    assert_int_equal(cm.conns[14].line, 17);
    cm_free(&cm);
}

static void test_perm16_cm(void **state)
{
    (void)state;
    struct conn_matrix cm;
    read_ok(&cm, shared_path(MATRICES "perm_16n_16c_2MB.cm"));
    assert_int_equal(cm.n_conns, 16);
    assert_int_equal(cm.conns[0].src, 13);
    assert_int_equal(cm.conns[0].dst, 6);
    /* A permutation: every node sends once and receives once. */
    unsigned sends[16] = { 0 }, recvs[16] = { 0 };
    for (uint32_t i = 0; i < cm.n_conns; i++) {
        sends[cm.conns[i].src]++;
        recvs[cm.conns[i].dst]++;
    }
    for (int i = 0; i < 16; i++) {
        assert_int_equal(sends[i], 1);
        assert_int_equal(recvs[i], 1);
    }
    cm_free(&cm);
}

static void test_perm1024_cm(void **state)
{
    (void)state;
    struct conn_matrix cm;
    read_ok(&cm, shared_path(MATRICES "perm_1024n_1024c_0u_2000000b.cm"));
    assert_int_equal(cm.nodes, 1024);
    assert_int_equal(cm.n_conns, 1024);
    assert_int_equal(cm.conns[0].src, 334);
    assert_int_equal(cm.conns[0].dst, 395);
    assert_true(cm.conns[0].has_id);
    for (uint32_t i = 0; i < cm.n_conns; i++) {
        assert_int_equal(cm.conns[i].id, i + 1);
        assert_int_equal(cm.conns[i].size_bytes, 2000000);
        assert_int_equal(cm.conns[i].start_ps, 0);
    }
    assert_int_equal(cm.conns[1023].src, 530);
    assert_int_equal(cm.conns[1023].dst, 825);
    cm_free(&cm);
}

/* ---- valid features ---------------------------------------------------------------- */

static void test_triggers_all_types(void **state)
{
    (void)state;
    struct conn_matrix cm;
    parse_ok(&cm, "Nodes 8\n"
                  "Connections 4\n"
                  "Triggers 3\n"
                  "0->1 id 1 start 0 size 1000 send_done_trigger 1\n"
                  "1->2 id 2 trigger 1 size 2000 recv_done_trigger 3\n"
                  "2->3 id 3 trigger 2 size 3000\n"
                  "3->4 id 4 trigger 3 size 4000 send_done_trigger 2 recv_done_trigger 2\n"
                  "trigger id 1 oneshot\n"
                  "trigger multishot id 2\n"
                  "trigger id 3 barrier count 1\n");
    assert_int_equal(cm.n_conns, 4);
    assert_int_equal(cm.n_triggers, 3);
    assert_int_equal(cm.conns[0].start_ps, 0);
    assert_int_equal(cm.conns[0].send_done_trigger, 1);
    assert_int_equal(cm.conns[0].start_trigger, CM_NO_TRIGGER);
    assert_int_equal(cm.conns[1].start_ps, SIMTIME_NEVER);
    assert_int_equal(cm.conns[1].start_trigger, 1);
    assert_int_equal(cm.conns[1].recv_done_trigger, 3);
    assert_int_equal(cm.conns[1].send_done_trigger, CM_NO_TRIGGER);
    assert_int_equal(cm.conns[3].send_done_trigger, 2);
    assert_int_equal(cm.conns[3].recv_done_trigger, 2);
    assert_int_equal(cm.triggers[0].type, TRIGGER_ONESHOT);
    assert_int_equal(cm.triggers[1].type, TRIGGER_MULTISHOT);
    assert_int_equal(cm.triggers[1].id, 2);
    assert_int_equal(cm.triggers[2].type, TRIGGER_BARRIER);
    assert_int_equal(cm.triggers[2].count, 1);
    assert_int_equal(cm.triggers[2].line, 10);
    assert_int_equal(cm_trigger_index(&cm, 3), 2);
    assert_int_equal(cm_trigger_index(&cm, 1), 0);
    assert_int_equal(cm_trigger_index(&cm, 9), UINT32_MAX);
    cm_free(&cm);
}

static void test_fractional_start(void **state)
{
    (void)state;
    struct conn_matrix cm;
    parse_ok(&cm, "Nodes 4\nConnections 5\n"
                  "0->1 start 1.5 size 1\n"
                  "0->2 start 0.000001 size 1\n"
                  "0->3 start 2e3 size 1\n"
                  "1->0 start .25 size 1\n"
                  "2->0 start 1000000000 size 1\n");
    assert_int_equal(cm.conns[0].start_ps, 1500000);
    assert_int_equal(cm.conns[1].start_ps, 1);
    assert_int_equal(cm.conns[2].start_ps, 2000000000ULL);
    assert_int_equal(cm.conns[3].start_ps, 250000);
    assert_int_equal(cm.conns[4].start_ps, 1000000000000000ULL);
    cm_free(&cm);
}

static void test_layout_leniency(void **state)
{
    (void)state;
    struct conn_matrix cm;
    /* CRLF, tabs, blank lines, comments in the header and the body, header
     * order free, keys in any order. */
    parse_ok(&cm, "# a comment first\r\n"
                  "\r\n"
                  "Connections\t2\r\n"
                  "   # indented comment\r\n"
                  "  Nodes   16  \r\n"
                  "\t0->13\tsize 5\tstart 0\r\n"
                  "#comment between connections\n"
                  "\n"
                  "13->0 size 7 start 3 id 2 prio -4 msg 9\r\n"
                  "\r\n");
    assert_int_equal(cm.nodes, 16);
    assert_int_equal(cm.n_conns, 2);
    assert_int_equal(cm.conns[0].size_bytes, 5);
    assert_int_equal(cm.conns[0].line, 6);
    assert_int_equal(cm.conns[1].start_ps, 3000000);
    assert_int_equal(cm.conns[1].prio, -4);
    assert_int_equal(cm.conns[1].msg, 9);
    assert_int_equal(cm.conns[1].line, 9);
    cm_free(&cm);
}

static void test_bare_msg_keyword(void **state)
{
    /* The reference's validate_uec_connreuse.txt matrices write "msg" with
     * no number after it ("0->1 id 1 msg start 0 size 4086"); the reference
     * reads that as a message without a number. A bare msg at the end of a
     * line too; a numbered msg still takes its number. */
    (void)state;
    struct conn_matrix cm;
    parse_ok(&cm, "Nodes 2\nConnections 3\n"
                  "0->1 id 1 msg start 0 size 4086\n"
                  "0->1 id 1 start 0 size 100 msg\n"
                  "0->1 id 1 msg 7 start 0 size 5\n");
    assert_int_equal(cm.n_conns, 3);
    assert_int_equal(cm.conns[0].msg, 0);
    assert_int_equal(cm.conns[0].start_ps, 0);
    assert_int_equal(cm.conns[0].size_bytes, 4086);
    assert_int_equal(cm.conns[1].msg, 0);
    assert_int_equal(cm.conns[1].size_bytes, 100);
    assert_int_equal(cm.conns[2].msg, 7);
    assert_int_equal(cm.conns[2].msg_index, 3);
    cm_free(&cm);
}

static void test_failures_parsed(void **state)
{
    (void)state;
    struct conn_matrix cm;
    parse_ok(&cm, "Nodes 16\nFailures 3\n"
                  "failure switch_type TOR switch_id 3 link_id 1\n"
                  "failure link_id 7 switch_type agg switch_id 2\n"
                  "failure switch_type Core switch_id 0 link_id 0\n");
    assert_int_equal(cm.n_conns, 0);
    assert_int_equal(cm.n_failures, 3);
    assert_int_equal(cm.failures[0].switch_type, FAILURE_TOR);
    assert_int_equal(cm.failures[0].switch_id, 3);
    assert_int_equal(cm.failures[0].link_id, 1);
    assert_int_equal(cm.failures[1].switch_type, FAILURE_AGG);
    assert_int_equal(cm.failures[1].link_id, 7);
    assert_int_equal(cm.failures[2].switch_type, FAILURE_CORE);
    assert_int_equal(cm.failures[2].line, 5);
    cm_free(&cm);
}

static void test_mixed_auto_and_explicit_ids(void **state)
{
    (void)state;
    struct conn_matrix cm;
    parse_ok(&cm, "Nodes 4\nConnections 3\n"
                  "0->1 start 0 size 1 id 10\n"
                  "0->2 start 0 size 1\n"
                  "0->3 start 0 size 1 id 20\n");
    assert_int_equal(cm.conns[0].id, 10);
    assert_int_equal(cm.conns[1].id, 2);
    assert_false(cm.conns[1].has_id);
    assert_int_equal(cm.conns[2].id, 20);
    cm_free(&cm);
}

static void test_long_line_and_free(void **state)
{
    (void)state;
    /* One connection line of about a megabyte (mostly blanks). */
    size_t pad = 1 << 20;
    const char *head = "Nodes 2\nConnections 1\n0->1";
    const char *tail = "start 0 size 9\n";
    char *text = malloc(strlen(head) + pad + strlen(tail) + 1);
    assert_non_null(text);
    strcpy(text, head);
    memset(text + strlen(head), ' ', pad);
    strcpy(text + strlen(head) + pad, tail);
    struct conn_matrix cm;
    parse_ok(&cm, text);
    assert_int_equal(cm.conns[0].size_bytes, 9);
    cm_free(&cm);
    assert_null(cm.conns);
    assert_int_equal(cm.n_conns, 0);
    cm_free(&cm); /* freeing an emptied matrix is harmless */

    /* A megabyte-long unknown key: the message stays short and one line. */
    memset(text, 'k', strlen(head) + pad + strlen(tail));
    const char *prefix = "Nodes 2\nConnections 1\n0->1 start 0 size 1 ";
    memcpy(text, prefix, strlen(prefix));
    char err[512];
    assert_false(cm_read_buffer(&cm, "x.cm", text, err, sizeof err));
    check_err(err, "x.cm:3:", "unknown connection key 'kkkk");
    assert_true(strlen(err) < 200);
    free(text);
}

/* ---- whole-file errors ----------------------------------------------------------- */

static void test_err_cannot_open(void **state)
{
    (void)state;
    struct conn_matrix cm;
    char err[512];
    assert_false(cm_read_file(&cm, "/nonexistent/dir/m.cm", err, sizeof err));
    check_err(err, "/nonexistent/dir/m.cm: ", "cannot open");
}

static void test_err_empty_and_missing_nodes(void **state)
{
    (void)state;
    expect_err("", "x.cm: ", "missing 'Nodes N'");
    expect_err("\n\n# only comments\n", "x.cm: ", "missing 'Nodes N'");
    expect_err("Connections 1\n0->1 start 0 size 5\n", "x.cm: ", "missing 'Nodes N'");
    /* From a real (empty) file too. */
    struct conn_matrix cm;
    char err[512];
    const char *path = temp_file("", ".cm");
    assert_false(cm_read_file(&cm, path, err, sizeof err));
    check_err(err, path, "missing 'Nodes N'");
    unlink(path);
}

/* A file read in several pieces (the buffer starts at 64 KiB and doubles):
 * 12,000 connections, about 400 KB, all read, the last one whole. Issue
 * 26: asking fread for cap - 1 + len bytes instead of cap - 1 - len, past
 * the buffer's end once it has grown, went unnoticed as every test file
 * was small; the overflow lands in free heap here, so this test catches it
 * under make asan (its fread check), not in the plain build. */
static void test_large_file_read_whole(void **state)
{
    (void)state;
    enum { N = 12000 };
    struct strbuf b;
    sb_init(&b);
    sb_printf(&b, "Nodes 1024\nConnections %d\n", N);
    for (int i = 0; i < N; i++)
        sb_printf(&b, "%d->%d id %d start %d size %d\n", i % 1024, (i + 1) % 1024, i + 1, i, 1000 + i);
    assert_true(b.len > 300000);
    const char *path = temp_file(b.data, ".cm");
    sb_free(&b);
    struct conn_matrix cm;
    read_ok(&cm, path);
    assert_int_equal(cm.n_conns, N);
    assert_int_equal(cm.conns[N - 1].src, (N - 1) % 1024);
    assert_int_equal(cm.conns[N - 1].dst, N % 1024);
    assert_int_equal(cm.conns[N - 1].size_bytes, 1000 + N - 1);
    assert_int_equal(cm.conns[N - 1].id, N);
    cm_free(&cm);
    unlink(path);
}

static void test_err_binary_garbage(void **state)
{
    (void)state;
    /* A file with NUL bytes and random binary content must fail cleanly. */
    static const char bytes[] = "Nodes 4\n\x01\xff\xfe\x00\x80garbage\n";
    const char *path = temp_file("", ".cm");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(bytes, 1, sizeof bytes - 1, f);
    fclose(f);
    struct conn_matrix cm;
    char err[512];
    assert_false(cm_read_file(&cm, path, err, sizeof err));
    check_err(err, path, ":2: contains a NUL byte");
    unlink(path);

    /* Binary text without NULs: a clean error, non-printables masked. */
    expect_err("\x7f\x01\xc3\xa9\x1b[31m\n", "x.cm:1:", "unknown header word '??");

    /* Pseudo-random bytes: any outcome but a crash, and one-line errors. */
    uint64_t s = 12345;
    char buf[300];
    for (int round = 0; round < 2000; round++) {
        size_t n = 0;
        const char *seed = "Nodes 4\nConnections 2\nTriggers 1\n0->1 id 1 start 1.5 size 9 trigger 1\n"
                           "trigger id 1 barrier count 2\n";
        strcpy(buf, seed);
        n = strlen(seed);
        for (int k = 0; k < 1 + round % 5; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t pos = (size_t)(s >> 33) % n;
            char c = (char)((s >> 20) & 0xff);
            buf[pos] = c ? c : ' ';
        }
        struct conn_matrix m;
        char e[256];
        if (cm_read_buffer(&m, "x.cm", buf, e, sizeof e))
            cm_free(&m);
        else
            check_err(e, "x.cm", ":");
    }
}

/* ---- header errors ---------------------------------------------------------------- */

static void test_err_nodes_zero_or_bad(void **state)
{
    (void)state;
    expect_err("Nodes 0\n", "x.cm:1:", "out of range");
    expect_err("Nodes abc\n", "x.cm:1:", "not a non-negative integer");
    expect_err("Nodes\n", "x.cm:1:", "has no value");
    expect_err("Nodes 4 5\n", "x.cm:1:", "unexpected '5'");
    expect_err("Nodes 99999999999999999999999\n", "x.cm:1:", "out of range");
}

static void test_err_duplicate_header(void **state)
{
    (void)state;
    expect_err("Nodes 4\nConnections 0\nNodes 4\n", "x.cm:3:", "duplicate header 'Nodes' (first on line 1)");
}

static void test_err_unknown_header(void **state)
{
    (void)state;
    expect_err("Nodes 4\nLinks 3\n", "x.cm:2:", "unknown header word 'Links'");
    expect_err("Nodes 4\nConnections 1\n0->1 start 0 size 1\nbogus 1\n", "x.cm:4:", "'bogus'");
}

static void test_err_header_after_body(void **state)
{
    (void)state;
    expect_err("Nodes 4\n0->1 start 0 size 1\nConnections 1\n", "x.cm:3:",
               "'Connections' after the first body line (line 2)");
    expect_err("Connections 1\n0->1 start 0 size 1\nNodes 4\n", "x.cm:3:", "'Nodes' after the first body line");
}

static void test_err_connection_count(void **state)
{
    (void)state;
    expect_err("Nodes 4\nConnections 3\n0->1 start 0 size 1\n1->0 start 0 size 1\n", "x.cm:2:",
               "Connections says 3 but 2 connection lines follow");
    expect_err("Nodes 4\nConnections 0\n0->1 start 0 size 1\n", "x.cm:2:",
               "Connections says 0 but 1 connection line follows");
    expect_err("Nodes 4\n\n0->1 start 0 size 1\n", "x.cm:3:", "no Connections header");
}

static void test_err_trigger_and_failure_counts(void **state)
{
    (void)state;
    expect_err("Nodes 4\nTriggers 2\ntrigger id 1 oneshot\n", "x.cm:2:", "Triggers says 2 but 1 trigger line");
    expect_err("Nodes 4\ntrigger id 1 oneshot\n", "x.cm:2:", "no Triggers header");
    expect_err("Nodes 4\nFailures 1\n", "x.cm:2:", "Failures says 1 but 0 failure lines");
    expect_err("Nodes 4\n#\nfailure switch_type TOR switch_id 0 link_id 0\n", "x.cm:3:", "no Failures header");
}

/* ---- connection-line errors --------------------------------------------------------- */

static void test_err_endpoints(void **state)
{
    (void)state;
    const char *h = "Nodes 4\nConnections 1\n";
    char t[256];
#define ENDPOINT_CASE(line, phrase)                      \
    do {                                                  \
        snprintf(t, sizeof t, "%s%s\n", h, line);         \
        expect_err(t, "x.cm:3:", phrase);                 \
    } while (0)
    ENDPOINT_CASE("4->1 start 0 size 1", "source 4 is out of range");
    ENDPOINT_CASE("0->4 start 0 size 1", "destination 4 is out of range");
    ENDPOINT_CASE("2->2 start 0 size 1", "both node 2");
    ENDPOINT_CASE("0-1 start 0 size 1", "expected SRC->DST");
    ENDPOINT_CASE("0 -> 1 start 0 size 1", "expected SRC->DST");
    ENDPOINT_CASE("->1 start 0 size 1", "source '' is not a node number");
    ENDPOINT_CASE("-1->1 start 0 size 1", "source '-1'");
    ENDPOINT_CASE("0->1->2 start 0 size 1", "destination '1->2'");
    ENDPOINT_CASE("0x1->2 start 0 size 1", "source '0x1'");
#undef ENDPOINT_CASE
}

static void test_err_start_or_trigger(void **state)
{
    (void)state;
    expect_err("Nodes 4\nConnections 1\n0->1 size 1\n", "x.cm:3:", "no start time or trigger");
    expect_err("Nodes 4\nConnections 1\nTriggers 1\n0->1 size 1 start 0 trigger 1\ntrigger id 1 oneshot\n",
               "x.cm:4:", "both start and trigger");
}

static void test_err_size(void **state)
{
    (void)state;
    expect_err("Nodes 4\nConnections 1\n0->1 start 0\n", "x.cm:3:", "no size");
    expect_err("Nodes 4\nConnections 1\n0->1 start 0 size 0\n", "x.cm:3:", "size value '0' is out of range");
    /* a node one past the last names the range that is valid */
    expect_err("Nodes 4\nConnections 1\n0->4 start 0 size 1\n", "x.cm:3:", "destination 4 is out of range (Nodes is 4, so 0 to 3)");
    expect_err("Nodes 4\nConnections 1\n0->1 start 0 size 99999999999999999999999\n", "x.cm:3:",
               "out of range");
}

static void test_err_keys(void **state)
{
    (void)state;
    expect_err("Nodes 4\nConnections 1\n0->1 start 0 size 1 colour red\n", "x.cm:3:",
               "unknown connection key 'colour'");
    expect_err("Nodes 4\nConnections 1\n0->1 start 0 size\n", "x.cm:3:", "key 'size' has no value");
    expect_err("Nodes 4\nConnections 1\n0->1 start 0 size 1 size 2\n", "x.cm:3:", "key 'size' given twice");
    /* A missing value shifts the pairs: "start" becomes start's value. */
    expect_err("Nodes 4\nConnections 1\n0->1 size start 0\n", "x.cm:3:", "size value 'start'");
}

static void test_err_non_numeric(void **state)
{
    (void)state;
    const char *cases[][2] = {
        { "0->1 start 0 size 12abc", "size value '12abc' is not" },
        { "0->1 start 0 size +12", "size value '+12' is not" },
        { "0->1 start 0 size -12", "size value '-12' is not" },
        { "0->1 start 0 size 1 id 1x", "id value '1x'" },
        { "0->1 start 0 size 1 prio 3q", "prio value '3q' is not an integer" },
        { "0->1 start 0 size 1 prio 99999999999999999999", "prio value '99999999999999999999' is out of range" },
        { "0->1 start 0 size 1 msg 0", "msg value '0' is out of range" },
        { "0->1 start 0 size 1 msg 4294967296", "msg value '4294967296' is out of range" },
        { "0->1 start 1.5x size 1", "start time '1.5x' is not a number" },
        { "0->1 start 1.2.3 size 1", "start time '1.2.3' is not a number" },
        { "0->1 start 0x10 size 1", "start time '0x10' is not a number" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char t[256];
        snprintf(t, sizeof t, "Nodes 4\nConnections 1\n%s\n", cases[i][0]);
        expect_err(t, "x.cm:3:", cases[i][1]);
    }
}

static void test_err_bad_start_values(void **state)
{
    (void)state;
    expect_err("Nodes 4\nConnections 1\n0->1 start -1 size 1\n", "x.cm:3:", "start time '-1' is negative");
    expect_err("Nodes 4\nConnections 1\n0->1 start nan size 1\n", "x.cm:3:", "not a number");
    expect_err("Nodes 4\nConnections 1\n0->1 start inf size 1\n", "x.cm:3:", "not a number");
    expect_err("Nodes 4\nConnections 1\n0->1 start 1e10 size 1\n", "x.cm:3:", "out of range");
    expect_err("Nodes 4\nConnections 1\n0->1 start 1e999 size 1\n", "x.cm:3:", "out of range");
    expect_err("Nodes 4\nConnections 1\n0->1 start 1000000000.5 size 1\n", "x.cm:3:", "out of range");
}

static void test_err_ids(void **state)
{
    (void)state;
    expect_err("Nodes 4\nConnections 1\n0->1 start 0 size 1 id 0\n", "x.cm:3:", "id value '0' is out of range");
    expect_err("Nodes 4\nConnections 3\n0->1 start 0 size 1 id 5\n0->2 start 0 size 1 id 6\n"
               "0->3 start 0 size 1 id 5\n",
               "x.cm:5:", "connection id 5 is also on line 3 with different hosts");
    /* Line 4 has no id, so its automatic id is 2, which line 5 claims. */
    expect_err("Nodes 4\nConnections 3\n0->1 start 0 size 1 id 7\n0->2 start 0 size 1\n"
               "0->3 start 0 size 1 id 2\n",
               "x.cm:4:", "automatic id 2");
    /* the lines of one connection agree on each of its properties */
    static const char *const keys[4][3] = {{"transport", "transport uet", "transport ndp"},
                                           {"lb", "lb reps", "lb ecmp"},
                                           {"class", "class 0", "class 1"},
                                           {"priority", "priority 7", "priority 2"}};
    for (int k = 0; k < 4; k++) {
        char t[256], want[64];
        snprintf(t, sizeof t, "Nodes 4\nConnections 2\n0->1 start 0 size 1 id 5 msg 1 %s\n0->1 start 0 size 1 id 5 msg 2 %s\n",
                 keys[k][1], keys[k][2]);
        snprintf(want, sizeof want, "connection id 5 is also on line 3 with different %s", keys[k][0]);
        expect_err(t, "x.cm:4:", want);
    }
    /* Of two clashes the earlier line is reported. */
    expect_err("Nodes 4\nConnections 4\n0->1 start 0 size 1 id 9\n0->2 start 0 size 1 id 8\n"
               "0->3 start 0 size 1 id 8\n1->0 start 0 size 1 id 9\n",
               "x.cm:5:", "connection id 8 is also on line 4 with different hosts");
}

/* ---- trigger and failure errors ----------------------------------------------------- */

static void test_err_trigger_lines(void **state)
{
    (void)state;
    const char *cases[][2] = {
        { "trigger oneshot", "trigger has no id" },
        { "trigger id 1", "trigger has no type" },
        { "trigger id 1 oneshot multishot", "more than one trigger type" },
        { "trigger id 1 barrier", "barrier trigger needs 'count N'" },
        { "trigger id 1 oneshot count 2", "'count' only applies to barrier" },
        { "trigger id 1 multishot count 2", "'count' only applies to barrier" },
        { "trigger id 1 barrier count 0", "count value '0' is out of range" },
        { "trigger id 0 oneshot", "trigger id value '0' is out of range" },
        { "trigger id 4294967295 oneshot", "out of range" },
        { "trigger id 1 id 2 oneshot", "'id' given twice" },
        { "trigger id 1 oneshot fast", "unknown trigger key 'fast'" },
        { "trigger oneshot id", "'id' has no value" },
        { "trigger id one oneshot", "trigger id value 'one' is not" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char t[256];
        snprintf(t, sizeof t, "Nodes 4\nTriggers 1\n\n%s\n", cases[i][0]);
        expect_err(t, "x.cm:4:", cases[i][1]);
    }
}

static void test_err_duplicate_trigger_id(void **state)
{
    (void)state;
    expect_err("Nodes 4\nTriggers 3\ntrigger id 1 oneshot\ntrigger id 2 oneshot\ntrigger id 1 multishot\n",
               "x.cm:5:", "duplicate trigger id 1 (first on line 3)");
}

static void test_err_undeclared_trigger(void **state)
{
    (void)state;
    expect_err("Nodes 4\nConnections 2\nTriggers 1\n0->1 start 0 size 1 send_done_trigger 1\n"
               "1->0 trigger 2 size 1\ntrigger id 1 oneshot\n",
               "x.cm:5:", "trigger 2 is not declared");
    expect_err("Nodes 4\nConnections 1\n0->1 start 0 size 1 send_done_trigger 3\n", "x.cm:3:",
               "send_done_trigger 3 is not declared");
    expect_err("Nodes 4\nConnections 1\nTriggers 1\ntrigger id 1 oneshot\n0->1 start 0 size 1 recv_done_trigger 4\n",
               "x.cm:5:", "recv_done_trigger 4 is not declared");
    expect_err("Nodes 4\nConnections 1\n0->1 trigger 0 size 1\n", "x.cm:3:", "trigger value '0' is out of range");
}

/* Connections that could never start are rejected at load time, on the
 * line of the first such connection. */
static void test_err_unreachable_triggers(void **state)
{
    (void)state;
    /* a trigger nothing fires */
    expect_err("Nodes 4\nConnections 2\nTriggers 2\n0->1 start 0 size 1 send_done_trigger 1\n"
               "1->0 trigger 2 size 1\ntrigger id 1 oneshot\ntrigger id 2 oneshot\n",
               "x.cm:5:", "trigger 2 can never fire");
    /* a cycle: each waits for the other's completion */
    expect_err("Nodes 4\nConnections 3\nTriggers 2\n0->1 start 0 size 1\n"
               "1->2 trigger 1 size 1 send_done_trigger 2\n2->3 trigger 2 size 1 recv_done_trigger 1\n"
               "trigger id 1 oneshot\ntrigger id 2 oneshot\n",
               "x.cm:5:", "trigger 1 can never fire");
    /* a connection that fires its own trigger */
    expect_err("Nodes 4\nConnections 1\nTriggers 1\n0->1 trigger 1 size 1 send_done_trigger 1\ntrigger id 1 oneshot\n",
               "x.cm:4:", "trigger 1 can never fire");
    /* a barrier count above the activations that can reach it: two
     * connections, each firing once on send and once on receive, give 4 */
    expect_err("Nodes 4\nConnections 3\nTriggers 1\n0->1 start 0 size 1 send_done_trigger 1 recv_done_trigger 1\n"
               "1->2 start 0 size 1 send_done_trigger 1 recv_done_trigger 1\n2->3 trigger 1 size 1\n"
               "trigger id 1 barrier count 5\n",
               "x.cm:6:", "needs count 5 activations but at most 4");
    /* multishot: three waiters, two activations: the third never starts */
    expect_err("Nodes 4\nConnections 4\nTriggers 1\n0->1 start 0 size 1 send_done_trigger 1 recv_done_trigger 1\n"
               "1->2 trigger 1 size 1\n2->3 trigger 1 size 1\n3->0 trigger 1 size 1\ntrigger id 1 multishot\n",
               "x.cm:7:", "3 connections wait on it but at most 2 activations");
    /* the multishot trigger second in the file: its own 3 waiters counted,
     * not the first trigger's 1 too (issue 26: first_waiter[t + 1] +
     * first_waiter[t] gave 5) */
    expect_err("Nodes 4\nConnections 5\nTriggers 2\n0->1 start 0 size 1 send_done_trigger 2 recv_done_trigger 2\n"
               "1->2 trigger 1 size 1\n1->2 trigger 2 size 1\n2->3 trigger 2 size 1\n3->0 trigger 2 size 1\n"
               "trigger id 1 oneshot\ntrigger id 2 multishot\n",
               "x.cm:5:", "trigger 1 can never fire");
    expect_err("Nodes 4\nConnections 6\nTriggers 2\n0->1 start 0 size 1 send_done_trigger 2 recv_done_trigger 2\n"
               "1->2 start 0 size 1 send_done_trigger 1\n2->3 trigger 1 size 1\n1->2 trigger 2 size 1\n"
               "2->3 trigger 2 size 1\n3->0 trigger 2 size 1\ntrigger id 1 oneshot\ntrigger id 2 multishot\n",
               "x.cm:9:", "multishot trigger 2 (line 11) starts one waiting connection per activation; 3 connections wait "
               "on it but at most 2 activations can reach it");
    /* a multishot trigger releases its waiters in file order, the first
     * connection of the file included: one activation starts line 4's
     * connection, and line 6's is the one that never starts (issue 26:
     * the waiter list filled from the second connection on put line 6's
     * first) */
    expect_err("Nodes 4\nConnections 3\nTriggers 1\n0->1 trigger 1 size 1\n"
               "1->2 start 0 size 1 send_done_trigger 1\n2->3 trigger 1 size 1\ntrigger id 1 multishot\n",
               "x.cm:6:", "2 connections wait on it but at most 1 activations");
    /* the same shapes made reachable parse: count 4, chains through waiters */
    struct conn_matrix cm;
    parse_ok(&cm, "Nodes 4\nConnections 3\nTriggers 1\n0->1 start 0 size 1 send_done_trigger 1 recv_done_trigger 1\n"
                  "1->2 start 0 size 1 send_done_trigger 1 recv_done_trigger 1\n2->3 trigger 1 size 1\n"
                  "trigger id 1 barrier count 4\n");
    cm_free(&cm);
    parse_ok(&cm, "Nodes 4\nConnections 4\nTriggers 1\n0->1 start 0 size 1 send_done_trigger 1\n"
                  "1->2 trigger 1 size 1 send_done_trigger 1\n2->3 trigger 1 size 1 recv_done_trigger 1\n"
                  "3->0 trigger 1 size 1\ntrigger id 1 multishot\n");
    cm_free(&cm);
}

/* A '#' token starts a comment that runs to the end of the line, in the
 * body as in the header (as .topo files allow). */
static void test_trailing_comments(void **state)
{
    (void)state;
    struct conn_matrix cm;
    parse_ok(&cm, "Nodes 4 # four hosts\nConnections 1 #one\n0->1 start 0 size 7 # the only flow: size 9\n");
    assert_int_equal(cm.n_conns, 1);
    assert_int_equal(cm.conns[0].size_bytes, 7);
    cm_free(&cm);
    expect_err("Nodes 4\nConnections 1\n0->1 start 0 size #7\n", "x.cm:3:", "key 'size' has no value");
}

static void test_err_failure_lines(void **state)
{
    (void)state;
    const char *cases[][2] = {
        { "failure switch_type SPINE switch_id 0 link_id 0", "switch_type 'SPINE' is not TOR, AGG or CORE" },
        { "failure switch_type TOR switch_id 0", "failure has no link_id" },
        { "failure switch_id 0 link_id 0", "failure has no switch_type" },
        { "failure switch_type TOR link_id 1", "failure has no switch_id" },
        { "failure switch_type TOR switch_id 0 link_id", "'link_id' has no value" },
        { "failure switch_type TOR switch_id x link_id 0", "switch_id value 'x'" },
        { "failure switch_type TOR switch_type AGG switch_id 0 link_id 0", "'switch_type' given twice" },
        { "failure switch_type TOR switch_id 0 link_id 0 port 3", "unknown failure key 'port'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char t[256];
        snprintf(t, sizeof t, "Nodes 4\nFailures 1\n%s\n", cases[i][0]);
        expect_err(t, "x.cm:3:", cases[i][1]);
    }
}

/* A connection's lb and transport names take up to 15 characters (their
 * 16-byte fields) and refuse 16 (issue 26: the length tests, flipped to >,
 * let a 16-character name overrun its field). */
static void test_name_fields_at_their_limit(void **state)
{
    (void)state;
    struct conn_matrix cm;
    parse_ok(&cm, "Nodes 2\nConnections 1\n0->1 start 0 size 100 lb abcdefghijklmno transport pqrstuvwxyzabcd\n");
    assert_string_equal(cm.conns[0].lb, "abcdefghijklmno");
    assert_string_equal(cm.conns[0].transport, "pqrstuvwxyzabcd");
    cm_free(&cm);
    expect_err("Nodes 2\nConnections 1\n0->1 start 0 size 100 lb abcdefghijklmnop\n", "x.cm:3:",
               "lb name 'abcdefghijklmnop' is too long");
    expect_err("Nodes 2\nConnections 1\n0->1 start 0 size 100 transport abcdefghijklmnop\n", "x.cm:3:",
               "transport name 'abcdefghijklmnop' is too long");
}

static void test_err_small_buffer(void **state)
{
    (void)state;
    /* A short err buffer truncates without overflowing; none is fine too. */
    struct conn_matrix cm;
    char err[8];
    assert_false(cm_read_buffer(&cm, "x.cm", "Nodes 0\n", err, sizeof err));
    assert_string_equal(err, "x.cm:1:");
    assert_false(cm_read_buffer(&cm, "x.cm", "Nodes 0\n", NULL, 0));
    /* a buffer with room for the prefix and part of the message: the rest
     * is cut, nothing written past errlen */
    char big[64];
    memset(big, 'Z', sizeof big);
    assert_false(cm_read_buffer(&cm, "x.cm", "Nodes 0\n", big, 16));
    assert_string_equal(big, "x.cm:1: Nodes v"); /* "Nodes value '0'..." cut at 15 bytes */
    for (size_t i = 16; i < sizeof big; i++)
        assert_int_equal(big[i], 'Z');
}

/* Edges of the reader found by mutation testing (issue 26): a 'Nodes'
 * header that is the file's last five bytes is found as late, not
 * missing; the extended failure form with one word ("failure link") is
 * kept for the failure model, not read as a key; triggers declared with
 * no connection at all parse (nothing waits on them). */
static void test_reader_edges(void **state)
{
    (void)state;
    expect_err("Connections 1\n0->1 start 0 size 5\nNodes", "x.cm:3:",
               "header 'Nodes' after the first body line (line 2)");
    expect_err("Connections 1\n0->1 start 0 size 5\nNodes 4\n", "x.cm:3:",
               "header 'Nodes' after the first body line (line 2)");
    /* a word that only begins with 'Nodes' is no Nodes header: the
     * header is missing, not late */
    expect_err("Connections 1\n0->1 start 0 size 5\nNodesX 4\n", "x.cm:", "missing 'Nodes N' header");
    /* found past blank and indented lines */
    expect_err("Connections 1\n0->1 start 0 size 5\n\n  # c\n \t Nodes 4\n", "x.cm:5:",
               "header 'Nodes' after the first body line (line 2)");
    /* no text at all */
    struct conn_matrix cm0;
    char err0[256];
    assert_false(cm_read_buffer(&cm0, "x.cm", NULL, err0, sizeof err0));
    assert_string_equal(err0, "x.cm: no text");
    struct conn_matrix cm;
    parse_ok(&cm, "Nodes 4\nFailures 3\nfailure link\nfailure switch 3\nfailure link 2 up  3\n");
    assert_int_equal(cm.n_failures, 3);
    assert_string_equal(cm.failures[0].spec, "link");
    assert_string_equal(cm.failures[1].spec, "switch 3");
    assert_string_equal(cm.failures[2].spec, "link 2 up 3");
    assert_int_equal(cm.failures[2].line, 5);
    cm_free(&cm);
    parse_ok(&cm, "Nodes 4\nTriggers 2\ntrigger id 1 oneshot\ntrigger id 2 barrier count 3\n");
    assert_int_equal(cm.n_conns, 0);
    assert_int_equal(cm.n_triggers, 2);
    cm_free(&cm);
}

/* Heap bytes in use (glibc's mallinfo2). Exact only with glibc's
 * per-thread cache and fast bins off, which keep freed blocks counted as
 * in use: main runs the program again with GLIBC_TUNABLES saying so.
 * Under a sanitizer or valgrind mallinfo2 reads 0 and the check below is
 * empty. */
static size_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/* cm_free releases everything the reader allocated: connections,
 * triggers, failures and each extended failure's words (issue 26: a free
 * loop that skipped failure 0's words went unnoticed). The first round
 * warms up what the C library allocates once. */
static void test_free_releases_everything(void **state)
{
    (void)state;
    size_t before = 0;
    for (int k = 0; k < 2; k++) {
        if (k == 1)
            before = heap_in_use();
        struct conn_matrix cm;
        parse_ok(&cm, "Nodes 4\nConnections 2\nTriggers 1\nFailures 3\n0->1 start 0 size 1 send_done_trigger 1\n"
                      "1->2 trigger 1 size 1\ntrigger id 1 oneshot\nfailure link 1 up\nfailure switch 2\n"
                      "failure switch_type TOR switch_id 0 link_id 0\n");
        assert_non_null(cm.failures[0].spec);
        cm_free(&cm);
    }
    assert_int_equal(heap_in_use(), before);
}

int main(int argc, char **argv)
{
    /* once more, with glibc's malloc caches off (test_free_releases_everything) */
    (void)argc;
    if (!getenv("SPRAYSIM_TEST_MALLOC_TUNED")) {
        setenv("SPRAYSIM_TEST_MALLOC_TUNED", "1", 1);
        setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0:glibc.malloc.mxfast=0", 1);
        execv("/proc/self/exe", argv); /* on failure: run as we are */
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_cm),
        cmocka_unit_test(test_bare_msg_keyword),
        cmocka_unit_test(test_bidir_cm),
        cmocka_unit_test(test_incast_cm),
        cmocka_unit_test(test_perm16_cm),
        cmocka_unit_test(test_perm1024_cm),
        cmocka_unit_test(test_triggers_all_types),
        cmocka_unit_test(test_fractional_start),
        cmocka_unit_test(test_layout_leniency),
        cmocka_unit_test(test_failures_parsed),
        cmocka_unit_test(test_mixed_auto_and_explicit_ids),
        cmocka_unit_test(test_long_line_and_free),
        cmocka_unit_test(test_err_cannot_open),
        cmocka_unit_test(test_err_empty_and_missing_nodes),
        cmocka_unit_test(test_err_binary_garbage),
        cmocka_unit_test(test_large_file_read_whole),
        cmocka_unit_test(test_err_nodes_zero_or_bad),
        cmocka_unit_test(test_err_duplicate_header),
        cmocka_unit_test(test_err_unknown_header),
        cmocka_unit_test(test_err_header_after_body),
        cmocka_unit_test(test_err_connection_count),
        cmocka_unit_test(test_err_trigger_and_failure_counts),
        cmocka_unit_test(test_err_endpoints),
        cmocka_unit_test(test_err_start_or_trigger),
        cmocka_unit_test(test_err_size),
        cmocka_unit_test(test_err_keys),
        cmocka_unit_test(test_err_non_numeric),
        cmocka_unit_test(test_err_bad_start_values),
        cmocka_unit_test(test_err_ids),
        cmocka_unit_test(test_err_trigger_lines),
        cmocka_unit_test(test_err_duplicate_trigger_id),
        cmocka_unit_test(test_err_undeclared_trigger),
        cmocka_unit_test(test_err_unreachable_triggers),
        cmocka_unit_test(test_trailing_comments),
        cmocka_unit_test(test_err_failure_lines),
        cmocka_unit_test(test_name_fields_at_their_limit),
        cmocka_unit_test(test_err_small_buffer),
        cmocka_unit_test(test_reader_edges),
        cmocka_unit_test(test_free_releases_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
