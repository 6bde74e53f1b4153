/* test_mw_edges.c: edges of src/metrics, src/workload and src/cli that
 * mutation testing (issue 26, tools/mutation.py) found untested, each
 * checked against the rule the code states rather than today's output:
 * the sketch collector's merge keeps its first bucket (values just above
 * 1e-9, vcollect.h); the .cm reader takes a line of exactly 1 MiB and
 * refuses one byte more (cm.c: "line longer than 1048576 bytes"), and
 * writes its message into an error buffer of one byte (the empty string,
 * cut like any other); --class-opt's cross checks hold at both ends of
 * their comparisons (equal thresholds, a high threshold equal to the queue)
 * and for the last class (PORT_MAX_CLASSES - 1) as for class 2; "did you
 * mean" allows 1 edit up to 4 letters, 2 from 5. Fast: no
 * simulation runs, so it goes first in its modules' MODULE_TESTS.
 */
#include "testutil.h"

#include "cli/options.h"
#include "metrics/vcollect.h"
#include "net/net.h"
#include "sim.h"
#include "workload/cm.h"
#include "workload/poisson.h"

#include <math.h>

/* ---- metrics/vcollect: the sketch's merge -------------------------------- */

/* Bucket 0 of the sketch holds [1e-9, 1.002e-9) (vcollect.c VC_MIN,
 * VC_GAMMA); its midpoint is 1e-9 * (1 + 1.002) / 2 = 1.001e-9. A value
 * there merged from another collector must still be the median of
 * {1.0005e-9, 1}: nearest rank ceil(0.5 * 2) = 1, the smaller value, which
 * the sketch reports as its bucket's midpoint. */
static void test_sketch_merge_keeps_the_first_bucket(void **st)
{
    (void)st;
    struct vcollect to, from;
    vc_init(&to, true);
    vc_init(&from, true);
    vc_add(&from, 1.0005e-9);
    vc_add(&from, 1.0);
    vc_add(&to, 2.0); /* to has a bucket array of its own already */
    vc_merge(&to, &from);
    assert_int_equal(to.n, 3);
    /* rank ceil(0.2 * 3) = 1: the bucket-0 value */
    double p = vc_percentile(&to, 20);
    if (fabs(p - 1.001e-9) > 1e-15)
        fail_msg("p20 after the merge: %.6g, want bucket 0's midpoint 1.001e-9", p);
    assert_true(vc_percentile(&to, 100) == 2.0);

    /* the same into an empty collector (its bucket array made by the merge) */
    struct vcollect empty;
    vc_init(&empty, true);
    vc_merge(&empty, &from);
    p = vc_percentile(&empty, 50);
    if (fabs(p - 1.001e-9) > 1e-15)
        fail_msg("p50 after a merge into an empty sketch: %.6g, want 1.001e-9", p);
    vc_free(&to);
    vc_free(&from);
    vc_free(&empty);
}

/* ---- workload/cm: the reader's limits ------------------------------------- */

#define CM_LINE_LIMIT (1u << 20) /* cm.c CM_MAX_LINE_BYTES: "line longer than 1048576 bytes" */

/* A matrix whose third line (its one connection) is exactly `bytes` long,
 * not counting its newline: the connection, then blanks. */
static char *matrix_with_line(size_t bytes)
{
    const char *head = "Nodes 2\nConnections 1\n";
    const char *conn = "0->1 start 0 size 9";
    size_t hl = strlen(head), cl = strlen(conn);
    char *t = malloc(hl + bytes + 2);
    assert_non_null(t);
    memcpy(t, head, hl);
    memcpy(t + hl, conn, cl);
    memset(t + hl + cl, ' ', bytes - cl);
    t[hl + bytes] = '\n';
    t[hl + bytes + 1] = '\0';
    return t;
}

static void test_cm_line_limit_at_both_ends(void **st)
{
    (void)st;
    struct conn_matrix cm;
    char err[512];
    /* exactly the limit: read */
    char *t = matrix_with_line(CM_LINE_LIMIT);
    const char *path = temp_file(t, ".cm");
    free(t);
    if (!cm_read_file(&cm, path, err, sizeof err))
        fail_msg("a line of exactly %u bytes refused: %s", CM_LINE_LIMIT, err);
    assert_int_equal(cm.n_conns, 1);
    assert_int_equal(cm.conns[0].size_bytes, 9);
    cm_free(&cm);
    /* one byte more: refused on that line */
    t = matrix_with_line(CM_LINE_LIMIT + 1);
    path = temp_file(t, ".cm");
    free(t);
    assert_false(cm_read_file(&cm, path, err, sizeof err));
    char want[600];
    snprintf(want, sizeof want, "%s:3: line longer than 1048576 bytes", path);
    if (strncmp(err, want, strlen(want)))
        fail_msg("a line of %u bytes: '%s', want '%s...'", CM_LINE_LIMIT + 1, err, want);
    assert_null(cm.conns);
}

/* An error buffer of one byte holds the message cut to nothing: "" (as
 * snprintf cuts), not whatever the buffer held before. */
static void test_cm_error_buffer_of_one_byte(void **st)
{
    (void)st;
    struct conn_matrix cm;
    char err[4] = "ZZZ";
    assert_false(cm_read_buffer(&cm, "x.cm", "Nodes 0\n", err, 1));
    assert_int_equal(err[0], '\0');
    assert_int_equal(err[1], 'Z'); /* nothing past errlen */
    memcpy(err, "ZZZ", 4);
    assert_false(cm_read_file(&cm, "/nonexistent/x.cm", err, 1));
    assert_int_equal(err[0], '\0');
}

/* ---- cli/options: --class-opt's cross checks ------------------------------ */

/* Parses the flags after "spraysim -tm x.cm --classes 8" (the matrix is
 * named, not read); returns the result, *err the message. */
static enum options_result parse_classes(const char *const *flags, int n, char *err, size_t errlen)
{
    const char *argv[32] = {"spraysim", "-tm", "x.cm", "--classes", "8"};
    int argc = 5;
    for (int i = 0; i < n && argc < 32; i++)
        argv[argc++] = flags[i];
    struct config cfg;
    err[0] = '\0';
    enum options_result r = options_parse(&cfg, argc, (char **)argv, err, errlen);
    options_free(&cfg);
    return r;
}

static void expect_ok(const char *const *flags, int n)
{
    char err[512];
    if (parse_classes(flags, n, err, sizeof err) != OPTIONS_RUN)
        fail_msg("refused (%s ...): %s", flags[0], err);
}

static void expect_refused(const char *const *flags, int n, const char *want)
{
    char err[512];
    if (parse_classes(flags, n, err, sizeof err) != OPTIONS_ERROR)
        fail_msg("accepted %s ..., want '%s'", flags[0], want);
    if (!strstr(err, want))
        fail_msg("'%s' lacks '%s'", err, want);
}

static void test_class_opt_checks_at_their_edges(void **st)
{
    (void)st;
    /* kmin > kmax is refused, kmin == kmax is not */
    const char *eq[] = {"--class-opt", "3:ecn_kmin_bytes=40000", "--class-opt", "3:ecn_kmax_bytes=40000"};
    expect_ok(eq, 4);
    const char *gt[] = {"--class-opt", "3:ecn_kmin_bytes=40001", "--class-opt", "3:ecn_kmax_bytes=40000"};
    expect_refused(gt, 4, "--class-opt 3:ecn_kmin_bytes=40001 exceeds 3:ecn_kmax_bytes=40000");
    /* kmax above the class's queue is refused, equal to it is not */
    const char *atq[] = {"--class-opt", "3:queue_bytes=50000", "--class-opt", "3:ecn_kmax_bytes=50000"};
    expect_ok(atq, 4);
    const char *overq[] = {"--class-opt", "3:queue_bytes=50000", "--class-opt", "3:ecn_kmax_bytes=50001"};
    expect_refused(overq, 4, "--class-opt 3:ecn_kmax_bytes=50001 exceeds 3:queue_bytes=50000");
    /* a lossless class has no queue limit to compare with, and ecn=1 is
     * no contradiction with thresholds */
    const char *ll[] = {"--class-opt", "3:lossless=1", "--class-opt", "3:ecn_kmax_bytes=50001"};
    expect_ok(ll, 4);
    const char *ecn1[] = {"--class-opt", "3:ecn=1", "--class-opt", "3:ecn_kmin_bytes=4000"};
    expect_ok(ecn1, 4);
    /* the last class is checked as class 2 is */
    char last[64], last2[64];
    snprintf(last, sizeof last, "%u:lossless=1", PORT_MAX_CLASSES - 1);
    snprintf(last2, sizeof last2, "%u:trim=1", PORT_MAX_CLASSES - 1);
    const char *lt[] = {"--class-opt", last, "--class-opt", last2};
    char want[128];
    snprintf(want, sizeof want, "--class-opt %u:trim=1 and %u:lossless=1", PORT_MAX_CLASSES - 1,
             PORT_MAX_CLASSES - 1);
    expect_refused(lt, 4, want);
    snprintf(last, sizeof last, "%u:ecn=0", PORT_MAX_CLASSES - 1);
    snprintf(last2, sizeof last2, "%u:ecn_kmax_bytes=9000", PORT_MAX_CLASSES - 1);
    const char *le[] = {"--class-opt", last, "--class-opt", last2};
    snprintf(want, sizeof want, "--class-opt %u:ecn_kmax_bytes: class %u marks no ECN", PORT_MAX_CLASSES - 1,
             PORT_MAX_CLASSES - 1);
    expect_refused(le, 4, want);
}

/* "did you mean": a suggestion is at most 1 edit away for a mistyped name
 * of up to 4 letters, 2 beyond (options.c suggest_flag). At 5 letters, 2
 * edits still suggest; at 4 letters 2 edits do not, 1 does. Of two names
 * as near, the one --help lists first wins. */
static void test_suggestion_distance_at_both_ends(void **st)
{
    (void)st;
    struct {
        const char *flag, *want; /* want NULL: no suggestion */
    } cases[] = {
        {"--tixrx", "; did you mean -tiers?"}, /* 5 letters, 2 edits from tiers */
        {"--sxxd", NULL},                        /* 4 letters, 2 edits from seed */
        {"--sxed", "; did you mean --seed?"},   /* 4 letters, 1 edit */
        /* one edit from -tm (the reference simulator's group, first in
         * --help) and from -o (the output group): the first in --help's
         * order, group by group, is named */
        {"-to", "; did you mean -tm?"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[] = {"spraysim", "-tm", "x.cm", cases[i].flag, "1"};
        struct config cfg;
        char err[512] = "";
        assert_int_equal(options_parse(&cfg, 5, (char **)argv, err, sizeof err), OPTIONS_ERROR);
        options_free(&cfg);
        if (!strstr(err, cases[i].flag))
            fail_msg("'%s' does not name %s", err, cases[i].flag);
        if (cases[i].want ? !strstr(err, cases[i].want) : strstr(err, "did you mean") != NULL)
            fail_msg("%s: '%s', want %s", cases[i].flag, err, cases[i].want ? cases[i].want : "no suggestion");
    }
}

/* ---- workload/poisson: the size CDF's ranges at both ends ---------------- */

/* A size CDF line is "SIZE PROB": sizes 0 to 2^40 bytes (poisson.c
 * CDF_MAX_SIZE_BYTES), probabilities 0 to 1, neither below the line
 * before; equal neighbours (a step, a size with no mass) are fine. */
static void test_cdf_ranges_at_both_ends(void **st)
{
    (void)st;
    static const char *const good[] = {
        "0 0\n1099511627776 1\n",      /* the largest size */
        "10 0.5\n10 0.7\n20 1\n",      /* the same size twice */
        "10 0.5\n20 0.5\n30 1\n",      /* the same probability twice */
        "10 0\n20 1\n",                /* probability 0 */
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct size_cdf c;
        char err[256] = "";
        if (!cdf_parse_text(&c, "t", good[i], err, sizeof err))
            fail_msg("refused '%s': %s", good[i], err);
        cdf_free(&c);
    }
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"0 0\n1099511627777 1\n", "t:2: size '1099511627777' is not a number of bytes from 0 to 1099511627776"},
        {"10 0.5\n20 1.0000001\n", "t:2: probability '1.0000001' is not a number from 0 to 1"},
        {"10 -0.0001\n20 1\n", "t:1: probability '-0.0001' is not a number from 0 to 1"},
        {"10 0.5\n9.999 1\n", "t:2: size 9.999 is below the previous line's 10"},
        {"10 0.5\n20 0.4999\n30 1\n", "t:2: probability 0.4999 is below the previous line's 0.5"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct size_cdf c;
        char err[256] = "";
        if (cdf_parse_text(&c, "t", bad[i].text, err, sizeof err))
            fail_msg("accepted '%s'", bad[i].text);
        if (!strstr(err, bad[i].want))
            fail_msg("'%s': '%s' lacks '%s'", bad[i].text, err, bad[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sketch_merge_keeps_the_first_bucket),
        cmocka_unit_test(test_cm_error_buffer_of_one_byte),
        cmocka_unit_test(test_class_opt_checks_at_their_edges),
        cmocka_unit_test(test_suggestion_distance_at_both_ends),
        cmocka_unit_test(test_cdf_ranges_at_both_ends),
        cmocka_unit_test(test_cm_line_limit_at_both_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
