/* test_timeseries.c: the time series (src/metrics/timeseries.c) on cases
 * with known answers: one flow alone delivers at line rate; in a 2-to-1
 * incast the bottleneck port's recorded occupancy reaches exactly the peak
 * queues.csv reports (every change) and never more (interval); the window
 * recorded last is the CC's; host goodput integrates to the delivered
 * bytes; the same run gives the same bytes; flags are checked; and a run
 * with time series simulates exactly what a run without them does. */
#include "testutil.h"

#include "cc/cc.h"
#include "cli/options.h"
#include "metrics/flowstream.h"
#include "metrics/report.h"
#include "metrics/timeseries.h"
#include "sim.h"
#include "transport/flow.h"
#include "transport/uet.h"

#include <math.h>

static const char *one_cm = "Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n";
static const char *incast_cm = "Nodes 16\nConnections 2\n0->2 start 0 size 2000000\n1->2 start 0 size 2000000\n";

struct captured {
    char *buf[3];
    size_t len[3];
};

/* Parses argv as the command line would (with --out, which ts needs, but
 * nothing is written there), runs with the three time-series streams in
 * memory. */
static void run_ts(struct sim *s, struct config *c, struct captured *cap, int argc, char **argv)
{
    char err[512];
    assert_int_equal(options_parse(c, argc, argv, err, sizeof err), OPTIONS_RUN);
    c->progress = false;
    sim_setup(s, c);
    FILE *f[3];
    for (int i = 0; i < 3; i++) {
        cap->buf[i] = NULL;
        cap->len[i] = 0;
        f[i] = open_memstream(&cap->buf[i], &cap->len[i]);
        assert_non_null(f[i]);
    }
    if (s->ts)
        ts_attach(s->ts, f[0], f[1], f[2]);
    sim_run(s);
    assert_true(ts_finish(s, err, sizeof err));
    for (int i = 0; i < 3; i++)
        fclose(f[i]);
}

static void free_cap(struct captured *cap)
{
    for (int i = 0; i < 3; i++)
        free(cap->buf[i]);
}

/* Splits one CSV line into at most 16 fields (empty fields are ""). */
static int fields(char *line, char **out)
{
    int n = 0;
    out[n++] = line;
    for (char *p = line; *p && n < 16; p++)
        if (*p == ',') {
            *p = '\0';
            out[n++] = p + 1;
        }
    return n;
}

/* Next line of a buffer (modified in place), NULL at the end. */
static char *next_line(char **cursor)
{
    char *l = *cursor;
    if (!l || !*l)
        return NULL;
    char *nl = strchr(l, '\n');
    if (nl) {
        *nl = '\0';
        *cursor = nl + 1;
    } else {
        *cursor = l + strlen(l);
    }
    return l;
}

static void test_flags(void **state)
{
    (void)state;
    struct ts_config c;
    char err[256];
    memset(&c, 0, sizeof c);
    assert_true(ts_parse_flag(&c, "--ts-flows", "all", err, sizeof err));
    assert_true(c.flows.all);
    assert_true(ts_parse_flag(&c, "--ts-ports", "0,3,8-15", err, sizeof err));
    assert_int_equal(c.ports.n, 3);
    assert_int_equal(c.ports.range[2][0], 8);
    assert_int_equal(c.ports.range[2][1], 15);
    static const char *const bad_lists[] = {"", "3-1", "a", "1,,2", "1,", "-3", "1-2-3", "99999999999"};
    for (size_t i = 0; i < sizeof bad_lists / sizeof bad_lists[0]; i++) {
        err[0] = '\0';
        assert_false(ts_parse_flag(&c, "--ts-hosts", bad_lists[i], err, sizeof err));
        assert_non_null(strstr(err, "--ts-hosts"));
        assert_null(strchr(err, '\n'));
    }
    assert_true(ts_parse_flag(&c, "--ts-interval", "change", err, sizeof err));
    assert_true(c.change);
    assert_true(ts_parse_flag(&c, "--ts-interval", "2.5", err, sizeof err));
    assert_false(c.change);
    assert_int_equal(c.interval_ps, 2500000);
    assert_false(ts_parse_flag(&c, "--ts-interval", "0", err, sizeof err));
    assert_false(ts_parse_flag(&c, "--ts-interval", "often", err, sizeof err));
    assert_true(ts_parse_flag(&c, "--ts-window", "10:20.5", err, sizeof err));
    assert_int_equal(c.win_start_ps, 10 * PS_PER_US);
    assert_int_equal(c.win_end_ps, 20500000);
    assert_false(ts_parse_flag(&c, "--ts-window", "20:10", err, sizeof err));
    assert_false(ts_parse_flag(&c, "--ts-window", "10", err, sizeof err));
    assert_false(ts_parse_flag(&c, "--ts-max-mb", "0", err, sizeof err));
    assert_true(ts_parse_flag(&c, "--ts-max-mb", "2000", err, sizeof err));
    ts_config_free(&c);
}

/* The --ts-* values at both ends of what they take (issue 26: a range end
 * moved by one, or < for <=, went unnoticed where only values inside were
 * tried): numbers in a list up to 4294967295 (a flow id, port or host is
 * 32 bits), a range A-A of one, at most 4096 items; an interval from
 * 0.001 us to 1e9 us; a window's START and END from 0 to 1e9 us with START
 * before END, START at most 63 characters; --ts-max-mb above 0, up to 1e9.
 * Every refusal is one line naming the flag. */
static void test_flag_ranges_at_both_ends(void **state)
{
    (void)state;
    struct ts_config c;
    char err[256];
    memset(&c, 0, sizeof c);
    static const struct {
        const char *flag, *value;
        bool ok;
    } cases[] = {
        {"--ts-hosts", "4294967295", true},
        {"--ts-hosts", "4294967296", false},
        {"--ts-hosts", "0-4294967295", true},
        {"--ts-hosts", "0-4294967296", false},
        {"--ts-hosts", "7-7", true},
        {"--ts-hosts", "8-7", false},
        {"--ts-interval", "0.001", true},
        {"--ts-interval", "0.00099", false},
        {"--ts-interval", "1e9", true},
        {"--ts-interval", "1.0000001e9", false},
        {"--ts-window", "0:1e9", true},
        {"--ts-window", "-0.0000001:1", false},
        {"--ts-window", "0:1.0000001e9", false},
        {"--ts-window", "1e9:1.0000001e9", false},
        {"--ts-window", "5:5", false},
        {"--ts-window", "4.999999:5", true},
        {"--ts-window", ":5", false},
        {"--ts-window", "5:", false},
        {"--ts-max-mb", "0", false},
        {"--ts-max-mb", "1e-9", true},
        {"--ts-max-mb", "1e9", true},
        {"--ts-max-mb", "1.0000001e9", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = '\0';
        bool ok = ts_parse_flag(&c, cases[i].flag, cases[i].value, err, sizeof err);
        if (ok != cases[i].ok)
            fail_msg("%s %s: %s, want %s (%s)", cases[i].flag, cases[i].value, ok ? "taken" : "refused",
                     cases[i].ok ? "taken" : "refused", err);
        if (!ok && (!strstr(err, cases[i].flag) || strchr(err, '\n')))
            fail_msg("%s %s: '%s' is not one line naming the flag", cases[i].flag, cases[i].value, err);
    }
    /* what the ends parse to */
    assert_true(ts_parse_flag(&c, "--ts-hosts", "0-4294967295,9", err, sizeof err));
    assert_int_equal(c.hosts.n, 2);
    assert_true(c.hosts.range[0][0] == 0 && c.hosts.range[0][1] == UINT32_MAX);
    assert_true(c.hosts.range[1][0] == 9 && c.hosts.range[1][1] == 9);
    assert_true(ts_parse_flag(&c, "--ts-interval", "0.001", err, sizeof err));
    assert_int_equal(c.interval_ps, 1000);
    assert_true(ts_parse_flag(&c, "--ts-window", "0:1e9", err, sizeof err));
    assert_true(c.window_given && c.win_start_ps == 0 && c.win_end_ps == (simtime_ps)1e9 * PS_PER_US);
    assert_true(ts_parse_flag(&c, "--ts-max-mb", "1e9", err, sizeof err));
    assert_true(c.max_given && c.max_mb == 1e9);
    /* START of 63 characters (a number all the same), and of 64 */
    char w[160];
    snprintf(w, sizeof w, "0.%060d1:2", 0);
    assert_int_equal(strchr(w, ':') - w, 63);
    assert_true(ts_parse_flag(&c, "--ts-window", w, err, sizeof err));
    snprintf(w, sizeof w, "0.%061d1:2", 0);
    assert_false(ts_parse_flag(&c, "--ts-window", w, err, sizeof err));
    assert_non_null(strstr(err, "--ts-window"));
    /* 4096 items, and one more */
    char *list = xmalloc(4097 * 2 + 1);
    size_t len = 0;
    for (int k = 0; k < 4096; k++)
        len += (size_t)sprintf(list + len, "%s%d", k ? "," : "", k % 10);
    assert_true(ts_parse_flag(&c, "--ts-ports", list, err, sizeof err));
    assert_int_equal(c.ports.n, 4096);
    sprintf(list + len, ",1");
    assert_false(ts_parse_flag(&c, "--ts-ports", list, err, sizeof err));
    assert_non_null(strstr(err, "more than 4096 items"));
    free(list);
    ts_config_free(&c);
}

/* The size estimate (docs/outputs.md "Size"), from its rule: interval
 * mode, (samples in the window + 1) x (selected flows, ports, hosts) rows
 * of 64, 56 and 40 bytes; change mode, every selected object changing
 * twice per MTU time of its link (here all links run at 100 Gb/s: 4150 B
 * take 332,000 ps) over the window, plus one. One flow (id 1), ports 0-9
 * and hosts 0-2 make 64 + 10 x 56 + 3 x 40 = 744 bytes a row set.
 *  - every 2 us to -end 50: floor(50 / 2) + 1 = 26 samples + 1: 27 x 744 = 20088;
 *  - in a window 10:31 us: floor(21 / 2) + 1 = 11 + 1: 12 x 744 = 8928;
 *  - every change to -end 50: 2 x 50e6 / 332000 + 1 = 302.2048... x 744
 *    = 224840.4 (bytes, rounded down). */
static void test_estimate_by_its_rule(void **state)
{
    (void)state;
    const char *cm = temp_file(incast_cm, ".cm");
    static const struct {
        const char *interval, *window;
        unsigned long long want;
    } cases[] = {
        {"2", NULL, 20088},
        {"2", "10:31", 8928},
        {"change", NULL, 224840},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "1",
                        "--ts-ports", "0-9", "--ts-hosts", "0-2", "-end", "50", "--ts-interval",
                        (char *)cases[k].interval, "--ts-window", (char *)cases[k].window};
        static struct sim s;
        struct config c;
        char err[256];
        assert_int_equal(options_parse(&c, cases[k].window ? 17 : 15, argv, err, sizeof err), OPTIONS_RUN);
        c.progress = false;
        sim_setup(&s, &c);
        assert_non_null(s.ts);
        struct ts_totals tt;
        ts_totals(s.ts, &tt);
        if (tt.estimate_bytes != cases[k].want)
            fail_msg("--ts-interval %s%s%s: estimate %llu bytes, want %llu", cases[k].interval,
                     cases[k].window ? " --ts-window " : "", cases[k].window ? cases[k].window : "",
                     (unsigned long long)tt.estimate_bytes, cases[k].want);
        sim_free(&s);
        options_free(&c);
    }
}

/* One 2 MB flow alone: between its first and last delivered byte,
 * delivered bytes grow at the host's line rate times payload/wire
 * (4086/4150), within one packet at either end of any span; the last row
 * is at the finish with every byte delivered and nothing in flight. */
static void test_one_flow_line_rate(void **state)
{
    (void)state;
    static struct sim s;
    struct config c;
    struct captured cap;
    const char *cm = temp_file(one_cm, ".cm");
    char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "all",
                    "--ts-interval", "1"};
    run_ts(&s, &c, &cap, 9, argv);
    assert_int_equal(s.flows_finished, 1);
    double payload_per_ps = 100e9 / 8 / 1e12 * 4086.0 / 4150.0;
    char *cur = cap.buf[0], *l = next_line(&cur), *f[16];
    assert_string_equal(l, "time_us,flow_id,cwnd_bytes,rate_gbps,rtt_us,delivered_bytes,in_flight_bytes");
    double t_first = -1, d_first = 0, t_prev = -1, last_t = 0;
    uint64_t last_d = 0, last_inflight = 1;
    int rows = 0, spans = 0;
    while ((l = next_line(&cur))) {
        assert_int_equal(fields(l, f), 7);
        double t = atof(f[0]);
        uint64_t d = strtoull(f[5], NULL, 10);
        assert_true(t > t_prev);
        t_prev = t;
        rows++;
        if (d > 0 && d < 2000000) {
            if (t_first < 0) {
                t_first = t;
                d_first = (double)d;
            } else {
                double want = (t - t_first) * 1e6 * payload_per_ps;
                if (fabs((double)d - d_first - want) > 4086.0 + 1)
                    fail_msg("at %.6f us: %.0f bytes since %.6f us, line rate gives %.0f", t, (double)d - d_first,
                             t_first, want);
                spans++;
            }
        }
        last_t = t;
        last_d = d;
        last_inflight = *f[6] ? strtoull(f[6], NULL, 10) : 1;
    }
    assert_true(spans > 100); /* 2 MB at 100 Gb/s is about 163 us of 1 us samples */
    assert_int_equal(last_d, 2000000);
    assert_int_equal(last_inflight, 0);
    assert_true(fabs(last_t - (double)s.flows[0].finish_ps / PS_PER_US) < 1e-6);
    assert_int_equal(rows, (int)(s.flows[0].finish_ps / PS_PER_US) + 2); /* 0, 1, ..., and the finish */
    free_cap(&cap);
    sim_free(&s);
    options_free(&c);
}

/* Largest data_bytes recorded for port p. */
static uint64_t max_port_column(const char *buf, uint32_t p, int col, int *rows);

static uint64_t max_port_bytes(const char *buf, uint32_t p, int *rows)
{
    return max_port_column(buf, p, 2, rows);
}

/* The largest value of column col of port p's rows in ts_ports.csv. */
static uint64_t max_port_column(const char *buf, uint32_t p, int col, int *rows)
{
    char *copy = strdup(buf); /* next_line cuts the lines it reads */
    char *cur = copy, *l = next_line(&cur), *f[16];
    uint64_t m = 0;
    *rows = 0;
    while ((l = next_line(&cur))) {
        fields(l, f);
        if ((uint32_t)atoi(f[1]) != p)
            continue;
        (*rows)++;
        uint64_t b = strtoull(f[col], NULL, 10);
        m = b > m ? b : m;
    }
    free(copy);
    return m;
}

/* The ToR port down to host 2 is the incast's bottleneck. */
static uint32_t bottleneck_port(const struct sim *s)
{
    for (uint32_t i = s->n_hosts; i < s->n_ports; i++)
        if (s->ports[i].peer_node == 2 && !s->ports[i].up)
            return i;
    fail_msg("no port faces host 2");
    return 0;
}

static void test_incast_peak(void **state)
{
    (void)state;
    static struct sim s;
    struct config c;
    struct captured cap;
    const char *cm = temp_file(incast_cm, ".cm");
    /* every change: the recorded maximum is the peak queues.csv reports */
    char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-ports", "all",
                    "--ts-interval", "change"};
    run_ts(&s, &c, &cap, 9, argv);
    uint32_t p = bottleneck_port(&s);
    int rows;
    uint64_t peak = s.ports[p].st.peak_bytes;
    assert_true(peak > 10 * 4150); /* a real queue built up */
    assert_int_equal(max_port_bytes(cap.buf[1], p, &rows), peak);
    assert_true(rows > 1000);
    free_cap(&cap);
    sim_free(&s);
    options_free(&c);
    /* sampled once per base RTT: never above the peak, rows as promised */
    char *argv2[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-ports", "10,20"};
    run_ts(&s, &c, &cap, 7, argv2);
    assert_int_equal(bottleneck_port(&s), 20); /* docs/outputs.md's example names this port */
    uint64_t m = max_port_bytes(cap.buf[1], 20, &rows);
    assert_true(m <= s.ports[20].st.peak_bytes);
    assert_true(m > 0);
    uint64_t samples = s.now / s.base_rtt_ps + 1 + (s.now % s.base_rtt_ps != 0);
    assert_int_equal(rows, (int)samples);
    /* the samples start at 0 (no --ts-window): the first row is at 0 us */
    {
        const char *row1 = strchr(cap.buf[1], '\n');
        assert_non_null(row1);
        if (strncmp(row1 + 1, "0.000000,", 9))
            fail_msg("first ts_ports row: %.40s", row1 + 1);
    }
    /* an idle port (host 10's NIC) has a row at every sample too */
    assert_int_equal(max_port_bytes(cap.buf[1], 10, &rows), 0);
    assert_int_equal(rows, (int)samples);
    free_cap(&cap);
    sim_free(&s);
    options_free(&c);
}

/* With --classes 3, a port's rows end with class 2's queued bytes: an
 * incast of two class-2 flows ("priority 2") into host 2, recorded at
 * every change, peaks in that column at the class's own peak (and in the
 * data column at the port's: class 2's bytes are data bytes too). */
static void test_class_column_peak(void **state)
{
    (void)state;
    static struct sim s;
    struct config c;
    struct captured cap;
    const char *cm = temp_file("Nodes 16\nConnections 2\n0->2 start 0 size 2000000 priority 2\n"
                               "1->2 start 0 size 2000000 priority 2\n",
                               ".cm");
    char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--classes", "3", "--ts-ports",
                    "all", "--ts-interval", "change"};
    run_ts(&s, &c, &cap, 11, argv);
    uint32_t p = bottleneck_port(&s);
    assert_non_null(s.ports[p].x);
    uint64_t peak_c2 = s.ports[p].x->c[0].peak_bytes;
    assert_true(peak_c2 > 10 * 4150); /* class 2 queued for real */
    int rows;
    assert_int_equal(max_port_column(cap.buf[1], p, 8, &rows), peak_c2);
    assert_true(rows > 1000);
    free_cap(&cap);
    sim_free(&s);
    options_free(&c);
}

/* A run cut before the flow finishes: the last row's window is the CC's
 * window at the end, and its RTT is what the sender's state says. */
static void test_window_is_ccs(void **state)
{
    (void)state;
    static const char *const ccs[] = {"nscc", "swift", "dctcp", "smartt-fixed"};
    for (size_t k = 0; k < sizeof ccs / sizeof ccs[0]; k++) {
        static struct sim s;
        struct config c;
        struct captured cap;
        const char *cm = temp_file(incast_cm, ".cm");
        char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "all", "--cc",
                        (char *)ccs[k], "-end", "60.5"};
        run_ts(&s, &c, &cap, 11, argv);
        assert_int_equal(s.flows_finished, 0);
        char *cur = cap.buf[0], *l = next_line(&cur), *f[16];
        char last[3][256] = {"", "", ""}; /* by flow id: the matrix's flows are 1 and 2 */
        while ((l = next_line(&cur))) {
            char copy[256];
            snprintf(copy, sizeof copy, "%s", l);
            fields(l, f);
            int id = atoi(f[1]);
            assert_true(id >= 1 && id <= 2);
            snprintf(last[id], sizeof last[0], "%s", copy);
        }
        for (uint32_t i = 0; i < 2; i++) {
            const struct flow *fl = &s.flows[i];
            assert_true(fl->id >= 1 && fl->id <= 2);
            fields(last[fl->id], f);
            assert_string_equal(f[0], "60.500000");
            if (strtoull(f[2], NULL, 10) != cc_cwnd(fl->cc_state))
                fail_msg("%s flow %u: recorded window %s, the CC holds %llu", ccs[k], i, f[2],
                         (unsigned long long)cc_cwnd(fl->cc_state));
            const struct uet_flow *q = uet_of(fl);
            simtime_ps rtt = q->last_ack_ps - q->rack_time_ps;
            char want[64];
            snprintf(want, sizeof want, "%llu.%06llu", (unsigned long long)(rtt / PS_PER_US),
                     (unsigned long long)(rtt % PS_PER_US));
            assert_string_equal(f[4], want);
            assert_true(rtt >= s.base_rtt_ps / 2 && rtt < 10 * s.base_rtt_ps);
            assert_int_equal(strtoull(f[6], NULL, 10), q->in_flight_bytes);
        }
        free_cap(&cap);
        sim_free(&s);
        options_free(&c);
    }
}

/* Every change: a flow's row is written only when something but the time
 * changed, so no two of its rows in a row agree past the time column, and
 * a change of the bytes in flight alone is a change (issue 26: the in-flight
 * comparison flipped went unnoticed, writing unchanged rows and dropping
 * in-flight-only ones). */
static void test_change_rows_differ(void **state)
{
    (void)state;
    static struct sim s;
    struct config c;
    struct captured cap;
    const char *cm = temp_file(incast_cm, ".cm");
    char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "all",
                    "--ts-interval", "change", "-end", "60.5"};
    run_ts(&s, &c, &cap, 11, argv);
    char *cur = cap.buf[0], *l = next_line(&cur);
    char last[3][256] = {"", "", ""}; /* by flow id, without the time column */
    int rows = 0;
    while ((l = next_line(&cur))) {
        const char *rest = strchr(l, ',');
        assert_non_null(rest);
        int id = atoi(rest + 1);
        assert_true(id >= 1 && id <= 2);
        if (!strcmp(last[id], rest))
            fail_msg("flow %d: two rows in a row agree but for the time: %s", id, l);
        snprintf(last[id], sizeof last[0], "%s", rest);
        rows++;
    }
    assert_true(rows > 100);
    free_cap(&cap);
    sim_free(&s);
    options_free(&c);
}

/* Host goodput integrates to the delivered bytes, and the delivered bytes
 * at the end are what the flows delivered. */
static void test_host_goodput(void **state)
{
    (void)state;
    static struct sim s;
    struct config c;
    struct captured cap;
    const char *cm = temp_file(incast_cm, ".cm");
    char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-hosts", "2,5"};
    run_ts(&s, &c, &cap, 7, argv);
    assert_int_equal(s.flows_finished, 2);
    char *cur = cap.buf[2], *l = next_line(&cur), *f[16];
    assert_string_equal(l, "time_us,host,delivered_bytes,goodput_gbps");
    double integral = 0, prev_t = 0, max_gbps = 0;
    uint64_t last = 0, five = 1;
    while ((l = next_line(&cur))) {
        fields(l, f);
        double t = atof(f[0]);
        if (atoi(f[1]) == 5) {
            five = strtoull(f[2], NULL, 10);
            continue;
        }
        if (*f[3]) {
            double g = atof(f[3]);
            integral += g * 1e9 / 8 * (t - prev_t) * 1e-6;
            max_gbps = g > max_gbps ? g : max_gbps;
        } else {
            assert_true(t == 0); /* only the first row has no goodput */
        }
        prev_t = t;
        last = strtoull(f[2], NULL, 10);
    }
    assert_int_equal(last, 4000000);
    assert_int_equal(five, 0); /* host 5 receives nothing */
    assert_true(fabs(integral - 4000000) < 10); /* rounding of six decimals only */
    assert_true(max_gbps <= 100.0 * 4086 / 4150 * 1.2); /* one sample may catch a packet early */
    free_cap(&cap);
    sim_free(&s);
    options_free(&c);
}

/* The same run twice: byte-identical series; and the simulation is the
 * same with and without them (events, flows.csv). */
static void test_deterministic_and_harmless(void **state)
{
    (void)state;
    static struct sim s;
    struct config c;
    struct captured a, b;
    char *argv[] = {"spraysim", "--workload", "perm:n=16,size=500000", "--out", "/nonexistent/unused",
                    "--ts-flows", "all", "--ts-ports", "all", "--ts-hosts", "all", "--ts-interval", "0.7",
                    "--seed", "5"};
    run_ts(&s, &c, &a, 15, argv);
    uint64_t events = s.events_processed;
    struct strbuf fl1;
    sb_init(&fl1);
    report_flows_csv(&s, &fl1);
    sim_free(&s);
    options_free(&c);
    run_ts(&s, &c, &b, 15, argv);
    for (int i = 0; i < 3; i++) {
        assert_true(a.len[i] > 1000);
        assert_int_equal(a.len[i], b.len[i]);
        assert_memory_equal(a.buf[i], b.buf[i], a.len[i]);
    }
    sim_free(&s);
    options_free(&c);
    free_cap(&a);
    free_cap(&b);
    /* without time series */
    char *plain[] = {"spraysim", "--workload", "perm:n=16,size=500000", "--seed", "5"};
    run_ts(&s, &c, &a, 5, plain);
    assert_null(s.ts);
    assert_int_equal(s.events_processed, events);
    struct strbuf fl2;
    sb_init(&fl2);
    report_flows_csv(&s, &fl2);
    assert_int_equal(fl1.len, fl2.len);
    assert_memory_equal(fl1.data, fl2.data, fl1.len);
    for (int i = 0; i < 3; i++)
        assert_int_equal(a.len[i], 0);
    sb_free(&fl1);
    sb_free(&fl2);
    free_cap(&a);
    sim_free(&s);
    options_free(&c);
}

/* RoCE is rate-based: its rows carry the pacing rate (the line rate
 * without rate control) and no window. */
static void test_roce_rate(void **state)
{
    (void)state;
    static struct sim s;
    struct config c;
    struct captured cap;
    const char *cm = temp_file(one_cm, ".cm");
    char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "1",
                    "--transport", "roce", "--ts-window", "20:40"};
    run_ts(&s, &c, &cap, 11, argv);
    char *cur = cap.buf[0], *l = next_line(&cur), *f[16];
    int rows = 0;
    uint64_t prev = 0;
    while ((l = next_line(&cur))) {
        fields(l, f);
        double t = atof(f[0]);
        assert_true(t >= 20 && t <= 40);
        assert_string_equal(f[2], "");
        assert_string_equal(f[3], "100.000000");
        uint64_t d = strtoull(f[5], NULL, 10);
        assert_true(d > prev);
        prev = d;
        rows++;
    }
    assert_int_equal(rows, (int)((40 - 20) * PS_PER_US / s.base_rtt_ps) + 1);
    free_cap(&cap);
    sim_free(&s);
    options_free(&c);
}

/* eq_visit's callback: counts the events of the simulated system (samples
 * aside), as a parallel run asks whether any is left (pdes.c). */
static void count_real(const struct event *e, void *arg)
{
    *(uint64_t *)arg += e->kind != EV_TS_SAMPLE;
}

/* A parallel run by hand, the way src/mpi/pdes.c drives one: each
 * process's ts_split keeps its own rows (its ports, hosts and the flows it
 * sends; part[node] is a node's process) in memory with the keys that
 * place them; the events run in one window to -end (samples keep coming,
 * as a process cannot see whether others have events left);
 * ts_split_settle keeps the samples the plain run takes; every process's
 * ts_split_pack goes to rank 0, whose ts_split_write puts the rows in the
 * plain run's order, and rank 0 adds the others' own looks to its sample
 * count. Here each process runs a full copy of the network (every event:
 * a process's objects change only at its own nodes' events, so the rows
 * are what its share of a real parallel run gives). The files and the row
 * and sample counts must be the plain run's, byte for byte
 * (docs/parallel.md: time series at 1-3 processes are identical). Issue
 * 26: this code runs only under mpirun, which no module's mutants ran.
 * Runs cut at -end keep every sample, as does one whose flows all finish
 * (timers are left pending then: every transport leaves some), so
 * settle's dropping of samples after the last event is not reached here. */
#define SPLIT_MAX 2
static void split_matches_plain(char **argv, int argc, uint32_t nproc)
{
    static struct sim plain, par[SPLIT_MAX];
    struct config c1, c2[SPLIT_MAX];
    struct captured a, b;
    run_ts(&plain, &c1, &a, argc, argv);
    char err[512];
    FILE *f[3];
    for (int i = 0; i < 3; i++) {
        b.buf[i] = NULL;
        b.len[i] = 0;
        f[i] = open_memstream(&b.buf[i], &b.len[i]);
        assert_non_null(f[i]);
    }
    uint32_t nodes = plain.n_hosts + plain.n_switches;
    /* the first half of the hosts and the even switches on process 0 */
    uint32_t *part = xcalloc(nodes, sizeof *part);
    for (uint32_t n = 0; n < nodes && nproc > 1; n++)
        part[n] = n < plain.n_hosts ? n >= plain.n_hosts / 2 : (n - plain.n_hosts) % 2;
    uint8_t *remote = xcalloc(nodes, 1); /* every copy runs every event */
    char *blob[SPLIT_MAX][3];
    size_t bytes[SPLIT_MAX][3];
    uint64_t others_own = 0;
    for (uint32_t r = 0; r < nproc; r++) {
        struct sim *p = &par[r];
        assert_int_equal(options_parse(&c2[r], argc, argv, err, sizeof err), OPTIONS_RUN);
        c2[r].progress = false;
        sim_setup(p, &c2[r]);
        assert_non_null(p->ts);
        if (r == 0)
            ts_attach(p->ts, f[0], f[1], f[2]); /* rank 0 writes the files */
        p->node_remote = remote;
        assert_true(ts_split(p, r, part, err, sizeof err));
        /* windows of one lookahead from the next event, as the plain run
         * and pdes.c run them, until every flow is done (s->stop) or -end */
        simtime_ps last_ps = 0;
        uint64_t n = 0;
        for (;;) {
            simtime_ps t = eq_peek_time(&p->eq);
            if (p->stop || t > p->cfg.end_ps)
                break;
            simtime_ps limit = t + (p->lookahead_ps - 1);
            n += sim_run_window(p, limit < p->cfg.end_ps ? limit : p->cfg.end_ps, true, &last_ps);
        }
        bool all_done = p->stop;
        uint64_t pending = 0;
        eq_visit(&p->eq, count_real, &pending);
        simtime_ps sample_ps = ts_split_settle(p, last_ps, p->last_event_order, n > 0, pending != 0);
        struct ts_totals tt;
        ts_totals(p->ts, &tt);
        if (!tt.change && !all_done) /* cut by -end: the last multiple of the interval by -end */
            assert_int_equal(sample_ps, p->cfg.end_ps - p->cfg.end_ps % tt.interval_ps);
        /* pdes.c's clock: the later of the last event and the last sample
         * kept, or -end when the run was cut there */
        p->now = sample_ps > last_ps ? sample_ps : last_ps;
        if (!all_done && !(p->now < p->cfg.end_ps && p->flows_finished < p->n_msgs && !pending))
            p->now = p->cfg.end_ps;
        assert_int_equal(p->now, plain.now);
        assert_true(ts_finish(p, err, sizeof err));
        for (unsigned which = 0; which < 3; which++) {
            bytes[r][which] = ts_split_pack(p, which, &blob[r][which]);
            if (!ts_file_selected(p->ts, which))
                assert_true(bytes[r][which] == 0 && !blob[r][which]);
        }
        /* the looks a process counts alone, which rank 0 adds up: none
         * when every look is a sample every process takes */
        if (!tt.change)
            assert_int_equal(ts_split_own_samples(p), 0);
        else /* mut6ms (issue 26): in change mode the shared looks are those
              * at events of origin 0 (sim_event_everywhere), here only the
              * window's opening EV_TS_SAMPLE: its own look and the look after
              * its event; every other look is at a node's event, the process's own */
            assert_int_equal(ts_split_own_samples(p), tt.samples - 2);
        if (r)
            others_own += ts_split_own_samples(p);
    }
    /* rank 0: every process's records, in rank order, as MPI_Gatherv gives them */
    for (unsigned which = 0; which < 3; which++) {
        size_t total = 0;
        for (uint32_t r = 0; r < nproc; r++)
            total += bytes[r][which];
        char *all = xcalloc(total ? total : 1, 1);
        size_t at = 0;
        for (uint32_t r = 0; r < nproc; r++) {
            if (bytes[r][which])
                memcpy(all + at, blob[r][which], bytes[r][which]);
            at += bytes[r][which];
            free(blob[r][which]);
        }
        if (ts_file_selected(par[0].ts, which))
            ts_split_write(&par[0], which, all, total);
        free(all);
    }
    ts_split_set_samples(&par[0], others_own);
    for (int i = 0; i < 3; i++)
        fclose(f[i]);
    for (int i = 0; i < 3; i++)
        if (a.len[i] != b.len[i] || memcmp(a.buf[i], b.buf[i], a.len[i]))
            fail_msg("%u processes, file %d: the split run's %zu bytes differ from the plain run's %zu", nproc, i,
                     b.len[i], a.len[i]);
    struct ts_totals ta, tb;
    ts_totals(plain.ts, &ta);
    ts_totals(par[0].ts, &tb);
    /* (in change mode every event is a look: a copy that runs every event
     * counts the others' too, so the count is compared with one process) */
    if (ta.rows_flows != tb.rows_flows || ta.rows_ports != tb.rows_ports || ta.rows_hosts != tb.rows_hosts ||
        (ta.samples != tb.samples && (!ta.change || nproc == 1)))
        fail_msg("%u processes: rows %llu/%llu/%llu, %llu samples; the plain run's %llu/%llu/%llu, %llu", nproc,
                 (unsigned long long)tb.rows_flows, (unsigned long long)tb.rows_ports,
                 (unsigned long long)tb.rows_hosts, (unsigned long long)tb.samples, (unsigned long long)ta.rows_flows,
                 (unsigned long long)ta.rows_ports, (unsigned long long)ta.rows_hosts, (unsigned long long)ta.samples);
    assert_true(ta.rows_flows > 0 && ta.rows_ports > 0 && ta.rows_hosts > 0);
    free(part);
    free(remote);
    free_cap(&a);
    free_cap(&b);
    sim_free(&plain);
    for (uint32_t r = 0; r < nproc; r++) {
        sim_free(&par[r]);
        options_free(&c2[r]);
    }
    options_free(&c1);
}

static void test_split_runs_are_the_plain_run(void **state)
{
    (void)state;
    const char *cm = temp_file(incast_cm, ".cm");
    /* sampled every 2 us; hosts 2 (process 0) and 9 (process 1) */
    char *interval[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "1",
                        "--ts-ports", "all", "--ts-hosts", "2,9", "--ts-interval", "2", "-end", "50"};
    /* every change, in a window */
    char *change[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "all",
                      "--ts-ports", "10-30", "--ts-hosts", "2,9", "--ts-interval", "change", "--ts-window", "5:40",
                      "-end", "45"};
    /* every flow done at about 334 us, sampled every 3 us */
    char *done[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "all",
                    "--ts-ports", "0-40", "--ts-hosts", "0-3,9", "--ts-interval", "3"};
    for (uint32_t nproc = 1; nproc <= SPLIT_MAX; nproc++) {
        split_matches_plain(interval, 15, nproc);
        split_matches_plain(change, 17, nproc);
        split_matches_plain(done, 13, nproc);
    }

}

/* mut6ms (issue 26): ts_split_settle's cut, which split_matches_plain
 * never reaches (a transport always leaves a timer pending). Told that
 * nothing is pending and that the last event ran at 9 us, settle keeps
 * the samples the plain run would take: those before the event, 0 .. 8
 * us, and the first after it, 10 us (docs/parallel.md: a sample never
 * keeps a run going); every row after that sample goes, from the files and
 * from the counts. So the files are the plain run's rows up to 10 us (the
 * same run to -end 50 us, every 2 us), and the samples six. At 49 us,
 * the last sample (50 us) is the cut: every row stays. */
static bool row_at_most(const char *line, double us)
{
    return strtod(line, NULL) <= us;
}

static void settle_and_compare(double last_us, double cut_us, uint64_t kept_samples)
{
    const char *cm = temp_file(incast_cm, ".cm");
    char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "all",
                    "--ts-ports", "0-40", "--ts-hosts", "0-3", "--ts-interval", "2", "-end", "50"};
    int argc = 15;
    static struct sim plain, p;
    struct config c1, c2;
    struct captured a, b;
    run_ts(&plain, &c1, &a, argc, argv);
    char err[512];
    FILE *f[3];
    for (int i = 0; i < 3; i++) {
        b.buf[i] = NULL;
        b.len[i] = 0;
        f[i] = open_memstream(&b.buf[i], &b.len[i]);
        assert_non_null(f[i]);
    }
    assert_int_equal(options_parse(&c2, argc, argv, err, sizeof err), OPTIONS_RUN);
    c2.progress = false;
    sim_setup(&p, &c2);
    ts_attach(p.ts, f[0], f[1], f[2]);
    uint32_t nodes = p.n_hosts + p.n_switches;
    uint32_t *part = xcalloc(nodes, sizeof *part); /* one process: rank 0 has every node */
    uint8_t *remote = xcalloc(nodes, 1);
    p.node_remote = remote;
    assert_true(ts_split(&p, 0, part, err, sizeof err));
    simtime_ps last_ps = 0;
    for (;;) {
        simtime_ps t = eq_peek_time(&p.eq);
        if (p.stop || t > p.cfg.end_ps)
            break;
        simtime_ps limit = t + (p.lookahead_ps - 1);
        sim_run_window(&p, limit < p.cfg.end_ps ? limit : p.cfg.end_ps, true, &last_ps);
    }
    struct ts_totals before;
    ts_totals(p.ts, &before);
    assert_int_equal(before.samples, 26); /* 0, 2, .., 50 us */
    simtime_ps cut = ts_split_settle(&p, (simtime_ps)(last_us * PS_PER_US), 0, true, false);
    assert_int_equal(cut, (simtime_ps)(cut_us * PS_PER_US));
    p.now = cut;
    assert_true(ts_finish(&p, err, sizeof err));
    for (unsigned which = 0; which < 3; which++) {
        char *blob;
        size_t bytes = ts_split_pack(&p, which, &blob);
        ts_split_write(&p, which, blob, bytes);
        free(blob);
    }
    for (int i = 0; i < 3; i++)
        fclose(f[i]);
    struct ts_totals after;
    ts_totals(p.ts, &after);
    assert_int_equal(after.samples, kept_samples);
    uint64_t rows[3] = {after.rows_flows, after.rows_ports, after.rows_hosts};
    for (int i = 0; i < 3; i++) {
        /* the plain run's header and rows up to 10 us */
        char *want = xcalloc(a.len[i] + 1, 1);
        size_t wl = 0;
        uint64_t n = 0;
        for (char *line = a.buf[i]; line < a.buf[i] + a.len[i];) {
            char *nl = strchr(line, '\n');
            assert_non_null(nl);
            if (line == a.buf[i] || row_at_most(line, cut_us)) {
                memcpy(want + wl, line, (size_t)(nl - line) + 1);
                wl += (size_t)(nl - line) + 1;
                n += line != a.buf[i];
            }
            line = nl + 1;
        }
        assert_true(n > 0);
        assert_int_equal(rows[i], n);
        if (b.len[i] != wl || memcmp(b.buf[i], want, wl))
            fail_msg("file %d: the settled split run's %zu bytes are not the plain run's %zu up to %g us", i, b.len[i],
                     wl, cut_us);
        free(want);
    }
    free(part);
    free(remote);
    p.node_remote = NULL;
    free_cap(&a);
    free_cap(&b);
    sim_free(&plain);
    sim_free(&p);
    options_free(&c1);
    options_free(&c2);
}

/* A time-series file that cannot be written fails the run's finish with
 * the file's name, for each of the three (here one stream at a time is
 * /dev/full, which takes no byte; the other two are in memory). */
static void test_each_file_s_write_error_is_named(void **state)
{
    (void)state;
    static const char *const names[3] = {"ts_flows.csv", "ts_ports.csv", "ts_hosts.csv"};
    const char *cm = temp_file(one_cm, ".cm");
    for (int bad = 0; bad < 3; bad++) {
        FILE *full = fopen("/dev/full", "w");
        if (!full) {
            skip();
            return;
        }
        static struct sim s;
        struct config c;
        char err[512] = "";
        char *argv[] = {"spraysim", "-tm", (char *)cm, "--out", "/nonexistent/unused", "--ts-flows", "all",
                        "--ts-ports", "all", "--ts-hosts", "all", "--ts-interval", "1"};
        assert_int_equal(options_parse(&c, 13, argv, err, sizeof err), OPTIONS_RUN);
        c.progress = false;
        sim_setup(&s, &c);
        char *buf[3] = {NULL, NULL, NULL};
        size_t len[3];
        FILE *f[3];
        for (int i = 0; i < 3; i++) {
            f[i] = i == bad ? full : open_memstream(&buf[i], &len[i]);
            assert_non_null(f[i]);
        }
        ts_attach(s.ts, f[0], f[1], f[2]);
        sim_run(&s);
        assert_false(ts_finish(&s, err, sizeof err));
        char want[64];
        snprintf(want, sizeof want, "%s: could not write", names[bad]);
        assert_string_equal(err, want);
        for (int i = 0; i < 3; i++) {
            fclose(f[i]);
            free(buf[i]);
        }
        sim_free(&s);
        options_free(&c);
    }
}

static void test_split_settle_cuts_after_the_last_event(void **state)
{
    (void)state;
    settle_and_compare(9, 10, 6);
    /* the last event just before the last sample: all 26 kept, no row dropped */
    settle_and_compare(49, 50, 26);
}

/* With --stream (the default for open-loop workloads), a finished
 * message's flow slot is recycled and the time series hears of it first
 * (ts_flow_retire), so that a watched flow keeps its last row. A run that
 * watches no flow at all (ports only) retires every message through the
 * same call with an empty watch list, which it must pass over (issue 26: a
 * scan one entry past the list went unnoticed, as every streamed run in the
 * tests also watched flows). */
static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (const char *p = text ? text : ""; (p = strchr(p, '\n')); p++)
        n++;
    return n;
}

static void test_stream_retires_with_no_flow_watched(void **state)
{
    (void)state;
    static struct sim s;
    struct config c;
    char err[512];
    const char *flows_csv = temp_file("", ".csv");
    char wl[600];
    snprintf(wl, sizeof wl, "poisson:cdf=%s,load=0.3,n=8", shared_path("workloads/websearch.cdf"));
    char *argv[] = {"spraysim", "--workload", wl, "-tiers", "2", "-end", "60", "--out", "/nonexistent/unused",
                    "--stream", "on", "--ts-ports", "0-3"};
    assert_int_equal(options_parse(&c, 13, argv, err, sizeof err), OPTIONS_RUN);
    c.progress = false;
    sim_setup(&s, &c);
    assert_non_null(s.ts);
    flowstream_setup(&s, flows_csv);
    assert_non_null(s.fstream);
    char *buf[3] = {NULL, NULL, NULL};
    size_t len[3];
    FILE *f[3];
    for (int i = 0; i < 3; i++) {
        f[i] = open_memstream(&buf[i], &len[i]);
        assert_non_null(f[i]);
    }
    ts_attach(s.ts, f[0], f[1], f[2]);
    sim_run(&s);
    uint64_t retired = s.fstream->retired;
    print_message("%llu messages retired from their slots\n", (unsigned long long)retired);
    assert_true(retired > 0);
    assert_true(flowstream_close(&s));
    assert_true(ts_finish(&s, err, sizeof err));
    for (int i = 0; i < 3; i++)
        fclose(f[i]);
    assert_true(count_lines(buf[0]) <= 1); /* no flow selected: a header at most */
    assert_non_null(strstr(buf[1], "time_us,port,"));
    assert_true(count_lines(buf[1]) > 4); /* a header, then four ports a sample */
    for (int i = 0; i < 3; i++)
        free(buf[i]);
    sim_free(&s);
    options_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_flag_ranges_at_both_ends),
        cmocka_unit_test(test_split_runs_are_the_plain_run),
        cmocka_unit_test(test_split_settle_cuts_after_the_last_event),
        cmocka_unit_test(test_stream_retires_with_no_flow_watched),
        cmocka_unit_test(test_each_file_s_write_error_is_named),
        cmocka_unit_test(test_estimate_by_its_rule),
        cmocka_unit_test(test_one_flow_line_rate),
        cmocka_unit_test(test_incast_peak),
        cmocka_unit_test(test_class_column_peak),
        cmocka_unit_test(test_window_is_ccs),
        cmocka_unit_test(test_change_rows_differ),
        cmocka_unit_test(test_host_goodput),
        cmocka_unit_test(test_deterministic_and_harmless),
        cmocka_unit_test(test_roce_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
