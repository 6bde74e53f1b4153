/* test_report.c: the report's own arithmetic (src/metrics/report.c) where
 * no whole-run comparison reaches it. The ideal FCT a slowdown divides by
 * is a lower bound that grows with the message: one byte more never makes
 * it smaller, which a two-packet message whose short last packet overtakes
 * the full one before it (on a multi-hop path) would, if the full packet's
 * later arrival were not taken. Issue 26: a mutant of that case survived.
 * A message cut off by -end counts with its FCT so far; one not started,
 * not at all; no FCT at all gives a mean of 0.
 */
#include "testutil.h"

#include "sim.h"
#include "transport/flow.h"
#include "metrics/flowstream.h"
#include "metrics/report.h"

#include <fcntl.h>
#include <math.h>

/* For same-rack (2 hops), same-pod (4) and cross-pod (6) pairs of the
 * 16-host tree, and message sizes around one and two packets: the ideal
 * FCT never falls when the size grows by one byte. */
static void test_ideal_fct_grows_with_size(void **state)
{
    (void)state;
    struct config c;
    config_defaults(&c);
    uint32_t mss = c.mtu_bytes - c.hdr_bytes;
    const uint32_t dsts[] = {1, 2, 13};
    const uint64_t sizes[] = {1, mss - 1, mss, mss + 1, mss + 2, 2 * (uint64_t)mss, 2 * (uint64_t)mss + 1};
    const size_t n_sizes = sizeof sizes / sizeof sizes[0];
    char cm[2048];
    int len = snprintf(cm, sizeof cm, "Nodes 16\nConnections %zu\n", 3 * n_sizes);
    for (size_t d = 0; d < 3; d++)
        for (size_t k = 0; k < n_sizes; k++)
            len += snprintf(cm + len, sizeof cm - (size_t)len, "0->%u start 0 size %llu\n", dsts[d],
                            (unsigned long long)sizes[k]);
    assert_true(len > 0 && (size_t)len < sizeof cm);
    c.tm_path = temp_file(cm, ".cm");
    c.progress = false;
    struct sim s;
    sim_setup(&s, &c);
    assert_int_equal(s.n_flows, 3 * n_sizes);
    for (size_t d = 0; d < 3; d++)
        for (size_t k = 1; k < n_sizes; k++) {
            const struct flow *a = &s.flows[d * n_sizes + k - 1], *b = &s.flows[d * n_sizes + k];
            assert_int_equal(b->size_bytes, a->size_bytes + (sizes[k] - sizes[k - 1]));
            if (ideal_fct_ps(&s, b) < ideal_fct_ps(&s, a))
                fail_msg("0->%u: %llu B ideal %llu ps, below %llu B's %llu ps", dsts[d],
                         (unsigned long long)b->size_bytes, (unsigned long long)ideal_fct_ps(&s, b),
                         (unsigned long long)a->size_bytes, (unsigned long long)ideal_fct_ps(&s, a));
        }
    sim_free(&s);
}

/* A run cut short: one message still under way at -end and one that had
 * not started. The censored message counts with its FCT so far (the run's
 * end less its start), the unstarted one not at all; and a run where no
 * message has an FCT reports a mean of 0 (issue 26: the censored FCT's
 * "end - start" as "end + start", and a mean of 1 us for no message at
 * all, went unnoticed). */
static void test_censored_and_empty_fct(void **state)
{
    (void)state;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 2\n0->13 start 2 size 100000000\n1->2 start 500 size 1000\n", ".cm");
    c.progress = false;
    c.end_ps = 10 * PS_PER_US;
    struct sim s;
    sim_setup(&s, &c);
    sim_run(&s);
    struct run_stats r;
    memset(&r, 0, sizeof r);
    report_collect(&s, 0, &r);
    assert_int_equal(r.finished, 0);
    assert_int_equal(r.fct_n, 1);
    assert_int_equal(r.fct_unfinished, 1);
    assert_int_equal(r.not_started, 1);
    assert_true(s.now <= c.end_ps && s.now > 2 * PS_PER_US);
    double want_us = (double)(s.now - 2 * PS_PER_US) / PS_PER_US;
    if (fabs(r.fct_max_us - want_us) > 1e-9 || fabs(r.fct_mean_us - want_us) > 1e-9)
        fail_msg("censored FCT: max %.6f mean %.6f us, want %.6f", r.fct_max_us, r.fct_mean_us, want_us);
    sim_free(&s);
    /* nothing started before the end: no FCT, a mean of 0 */
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n0->13 start 500 size 1000\n", ".cm");
    c.progress = false;
    c.end_ps = 10 * PS_PER_US;
    sim_setup(&s, &c);
    sim_run(&s);
    memset(&r, 0, sizeof r);
    report_collect(&s, 0, &r);
    assert_int_equal(r.fct_n, 0);
    assert_int_equal(r.not_started, 1);
    assert_true(r.fct_mean_us == 0 && r.fct_max_us == 0 && r.fct_median_us == 0);
    sim_free(&s);
}

/* Nearest rank: the ceil(p / 100 x n)-th smallest, at least the first
 * (issue 26: p x 100 x n in place of p / 100 x n, always the largest, went
 * unnoticed). */
static void test_percentile_nearest_rank(void **state)
{
    (void)state;
    const double v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assert_true(report_percentile(v, 10, 0) == 1);
    assert_true(report_percentile(v, 10, 10) == 1);
    assert_true(report_percentile(v, 10, 11) == 2);
    assert_true(report_percentile(v, 10, 50) == 5);
    assert_true(report_percentile(v, 10, 50.1) == 6);
    assert_true(report_percentile(v, 10, 99) == 10);
    assert_true(report_percentile(v, 10, 100) == 10);
    assert_true(report_percentile(v, 1, 50) == 1);
    assert_true(report_percentile(v, 0, 50) == 0);
}

static char *summary_of_run(struct sim *s, double wall_s, char **warning);

/* The whole text of file descriptor fd, malloc'd; then closes it. */
static char *slurp(int fd)
{
    off_t len = lseek(fd, 0, SEEK_END);
    assert_true(len >= 0);
    char *text = xcalloc((size_t)len + 1, 1);
    assert_true(pread(fd, text, (size_t)len, 0) == (ssize_t)len);
    close(fd);
    return text;
}

/* report_stdout's text for a run of the matrix `cm` until `end_us` (0: the
 * default -end), malloc'd, with the wall time and peak memory the "run:"
 * line reports set to wall_s and 2048 kB (a run's own are not repeatable).
 * What it wrote to stderr (the censored figures' warning) in *warning. */
static char *summary_of(const char *cm, double end_us, double wall_s, char **warning)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = cm;
    c.progress = false;
    if (end_us > 0)
        c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    static struct sim s;
    sim_setup(&s, &c);
    sim_run(&s);
    return summary_of_run(&s, wall_s, warning);
}

/* report_stdout's text for the finished run s (freed here), as summary_of. */
static char *summary_of_run(struct sim *s, double wall_s, char **warning)
{
    struct run_stats r;
    report_collect(s, wall_s, &r);
    r.peak_rss_kb = 2048;
    char path[2][64];
    int fd[2], saved[2];
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < 2; k++) {
        snprintf(path[k], sizeof path[k], "/tmp/spraysim-test-%ld-fd%d", (long)getpid(), k + 1);
        saved[k] = dup(k + 1);
        fd[k] = open(path[k], O_RDWR | O_CREAT | O_TRUNC, 0600);
        assert_true(saved[k] >= 0 && fd[k] >= 0);
        assert_true(dup2(fd[k], k + 1) == k + 1);
    }
    report_stdout(s, &r);
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < 2; k++) {
        assert_true(dup2(saved[k], k + 1) == k + 1);
        close(saved[k]);
        unlink(path[k]);
    }
    char *text = slurp(fd[0]);
    *warning = slurp(fd[1]);
    sim_free(s);
    return text;
}

/* The summary docs/running.md shows for one.cm ("The summary on stdout"):
 * the hosts, tree and choices, the network's derived defaults (its table:
 * base RTT, BDP, queue, ECN band, min RTO), the flows, the FCT figures and
 * the packet counts; then the run's line, whose wall time and memory are
 * the run's own (set here: 7370 events in 1 ms are 7.37 M events/s; 2048 kB
 * are 2.0 MB; no wall time at all gives 0.00 M events/s, not a division by
 * zero). */
static void test_stdout_summary_as_documented(void **state)
{
    (void)state;
    char *warning;
    char *text = summary_of(shared_path("htsim/matrices/one.cm"), 0, 0.001, &warning);
    assert_string_equal(warning, ""); /* nothing censored */
    free(warning);
    assert_string_equal(text,
                        "spraysim: 16 hosts, 20 switches, 3-tier tree; cc nscc, lb mixed, 64 paths, trimming on, seed 13\n"
                        "network: base RTT 14.023 us, BDP 175284 B, queue 178450 B, ECN 37350-145250 B, min RTO 100.7 us\n"
                        "flows: 1 of 1 finished\n"
                        "FCT: median 176.200 us, p99 176.200 us, max 176.200 us, mean 176.200 us (1 message, 0 unfinished)\n"
                        "packets: 490 data sent, 0 retransmitted, 124 ACKs, 0 NACKs, 0 trims, 0 bounced, 0 drops, 0 ECN "
                        "marks, 0 timeouts\n"
                        "run: simulated 176.200 us in 0.001 s wall, 7370 events, 7.37 M events/s, peak memory 2.0 MB\n");
    free(text);
    text = summary_of(shared_path("htsim/matrices/one.cm"), 0, 0, &warning);
    free(warning);
    if (!strstr(text, "\nrun: simulated 176.200 us in 0.000 s wall, 7370 events, 0.00 M events/s, peak memory 2.0 MB\n"))
        fail_msg("no wall time: %s", text);
    free(text);
}

/* "N unfinished at T us: ID ...": the run's end with one decimal, then the
 * ids of the first ten unfinished messages in message order (the finished
 * ones skipped), and " ..." only when more than ten are unfinished
 * (docs/running.md); stderr's warning says the figures are lower bounds,
 * at the run's end, for how many of the messages. Messages of 1 MB cannot finish in 30 us at 100 Gb/s;
 * 1 KB ones within a rack finish in a few. The ids are the matrix's line
 * numbers (from 1). */
static void test_stdout_lists_the_first_ten_unfinished(void **state)
{
    (void)state;
    static const struct {
        unsigned lines, small_every; /* messages; every small_every-th (from the first) is small */
        const char *flows;
    } cases[] = {
        {13, 4, "flows: 4 of 13 finished (9 unfinished at 30.0 us: 2 3 4 6 7 8 10 11 12)\n"},
        {14, 4, "flows: 4 of 14 finished (10 unfinished at 30.0 us: 2 3 4 6 7 8 10 11 12 14)\n"},
        {15, 4, "flows: 4 of 15 finished (11 unfinished at 30.0 us: 2 3 4 6 7 8 10 11 12 14 ...)\n"},
        {12, 100, "flows: 1 of 12 finished (11 unfinished at 30.0 us: 2 3 4 5 6 7 8 9 10 11 ...)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char cm[2048];
        int len = snprintf(cm, sizeof cm, "Nodes 16\nConnections %u\n", cases[k].lines);
        for (unsigned i = 0; i < cases[k].lines; i++) {
            /* small ones to the host beside the sender (same rack), big ones across the tree */
            bool small = i % cases[k].small_every == 0;
            len += snprintf(cm + len, sizeof cm - (size_t)len, "%u->%u start 0 size %u\n", i,
                            small ? i ^ 1 : (i + 8) % 16, small ? 1000 : 1000000);
        }
        assert_true(len > 0 && (size_t)len < sizeof cm);
        char *warning;
        char *text = summary_of(temp_file(cm, ".cm"), 30, 0, &warning);
        if (!strstr(text, cases[k].flows))
            fail_msg("case %zu: want '%s' in\n%s", k, cases[k].flows, text);
        /* and on stderr, the figures' population and the run's end */
        unsigned unfinished = (unsigned)strtoul(strchr(cases[k].flows, '(') + 1, NULL, 10);
        char want[256];
        snprintf(want, sizeof want,
                 "spraysim: warning: unfinished messages counted at the run's end (30.000 us), so these figures "
                 "are lower bounds: FCT %u of %u messages\n",
                 unfinished, cases[k].lines);
        assert_string_equal(warning, want);
        free(warning);
        free(text);
    }
}

/* Orders flow slots by their message's ordinal (qsort has no context). */
static const struct sim *sort_sim;
static int cmp_ordinal(const void *a, const void *b)
{
    uint32_t x = sort_sim->flows[*(const uint32_t *)a].ordinal, y = sort_sim->flows[*(const uint32_t *)b].ordinal;
    return x < y ? -1 : x > y;
}

/* With --stream, finished messages' slots are recycled, so the flow table
 * is not in message order: the list still names the first ten unfinished
 * messages in message order (docs/running.md), whatever slots they hold.
 * An open-loop run of small messages cut at 40 us leaves more than ten
 * unfinished, some in recycled slots before older ones (checked). */
static void test_stdout_unfinished_in_message_order_when_slots_recycle(void **state)
{
    (void)state;
    struct config c;
    config_defaults(&c);
    char spec[512];
    snprintf(spec, sizeof spec, "poisson:cdf=%s,load=0.9,n=16", shared_path("workloads/google_all_rpc.cdf"));
    c.workload_spec = spec;
    c.progress = false;
    c.end_ps = 40 * PS_PER_US;
    static struct sim s;
    sim_setup(&s, &c);
    flowstream_setup(&s, NULL); /* --stream on, no flows.csv */
    sim_run(&s);
    uint32_t *open = xcalloc(s.n_flows, sizeof *open), n = 0;
    bool out_of_order = false;
    for (uint32_t i = 0; i < s.n_flows; i++)
        if (s.flows[i].state != FLOW_DONE && s.flows[i].state != FLOW_FREE) {
            out_of_order |= n && s.flows[open[n - 1]].ordinal > s.flows[i].ordinal;
            open[n++] = i;
        }
    if (n <= 10 || !out_of_order || s.fstream->recycled == 0)
        fail_msg("the run does not test the order: %u unfinished, out of order %d, %llu slots recycled", n,
                 out_of_order, (unsigned long long)s.fstream->recycled);
    sort_sim = &s;
    qsort(open, n, sizeof *open, cmp_ordinal);
    char want[512];
    int len = snprintf(want, sizeof want, "(%u unfinished at 40.0 us:", n);
    for (uint32_t k = 0; k < 10; k++)
        len += snprintf(want + len, sizeof want - (size_t)len, " %u", s.flows[open[k]].id);
    snprintf(want + len, sizeof want - (size_t)len, " ...)\n");
    free(open);
    char *warning;
    char *text = summary_of_run(&s, 0, &warning);
    if (!strstr(text, want))
        fail_msg("want '%s' in\n%s", want, text);
    free(text);
    free(warning);
}

/* --stream writes flows.csv's rows as messages finish, holding each until
 * every earlier message's row is out; the file is the one written at the
 * end without it, byte for byte (docs/outputs.md "Streamed output and
 * bounded memory"). Here a 50 MB message comes first and 1500 small ones
 * after it all finish while it runs: 1500 rows wait for the first one, so
 * the buffer that holds them grows past its first 1024 places (checked:
 * its capacity at the end). Issue 26: the growth was never exercised. */
static void test_stream_holds_rows_in_message_order(void **state)
{
    (void)state;
    enum { SMALL = 1500 };
    size_t cap = 64 + (SMALL + 1) * 48;
    char *cm = xmalloc(cap);
    int len = snprintf(cm, cap, "Nodes 16\nConnections %d\n0->13 start 0 size 50000000\n", SMALL + 1);
    for (int k = 0; k < SMALL; k++) /* pairs within a rack, away from hosts 0 and 13 */
        len += snprintf(cm + len, cap - (size_t)len, "%d->%d start %d.%d size 1000\n", 2 + k % 10,
                        2 + (k % 10 ^ 1), k / 10, k % 10);
    assert_true(len > 0 && (size_t)len < cap);
    const char *path = temp_file(cm, ".cm");
    free(cm);
    char csv[64];
    snprintf(csv, sizeof csv, "/tmp/spraysim-test-%ld-flows.csv", (long)getpid());
    struct config c;
    static struct sim s;
    struct strbuf plain;
    sb_init(&plain);
    for (int streamed = 0; streamed < 2; streamed++) {
        config_defaults(&c);
        c.tm_path = path;
        c.progress = false;
        c.end_ps = 400 * PS_PER_US;
        sim_setup(&s, &c);
        if (streamed)
            flowstream_setup(&s, csv);
        sim_run(&s);
        assert_int_equal(s.flows_finished, SMALL); /* every small one, not the big one */
        if (!streamed) {
            report_flows_csv(&s, &plain);
        } else {
            uint32_t held_cap = s.fstream->cap;
            assert_true(s.fstream->rows_pending == SMALL);
            assert_true(flowstream_close(&s));
            if (held_cap <= 1024)
                fail_msg("the rows were held in %u places: the test does not reach the buffer's growth", held_cap);
        }
        sim_free(&s);
    }
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char *got = xcalloc(plain.len + 2, 1);
    size_t n = fread(got, 1, plain.len + 1, f);
    fclose(f);
    unlink(csv);
    if (n != plain.len || memcmp(got, plain.data, plain.len))
        fail_msg("the streamed flows.csv (%zu bytes) is not the one written at the end (%zu bytes)", n, plain.len);
    free(got);
    sb_free(&plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ideal_fct_grows_with_size),
        cmocka_unit_test(test_censored_and_empty_fct),
        cmocka_unit_test(test_percentile_nearest_rank),
        cmocka_unit_test(test_stdout_summary_as_documented),
        cmocka_unit_test(test_stdout_lists_the_first_ten_unfinished),
        cmocka_unit_test(test_stdout_unfinished_in_message_order_when_slots_recycle),
        cmocka_unit_test(test_stream_holds_rows_in_message_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
