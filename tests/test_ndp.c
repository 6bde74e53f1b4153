/* test_ndp.c: NDP (src/transport/ndp.c), end to end.
 *
 * Against the reference: htsim_ndp's tail FCT on the three cases
 * (incast.cm, perm_128, the 2-to-1 of 4 MB), each within 10% (issue 21's
 * goal). The reference numbers were measured with htsim_ndp built from
 * uet-htsim (datacenter/htsim_ndp -nodes N -tm FILE -strat perm -end 10000,
 * its defaults otherwise: 9000-byte payload, 15-packet queues and first
 * window); spraysim runs the same files with -mtu 9064 (the same packet on
 * the wire) and --lb oblivious (htsim's -strat perm). experiments/ndp.md
 * has the whole comparison.
 *
 * The mechanism: the first window is exactly -cwnd packets, sent before any
 * pull; after it, senders never send faster than their receiver's pacer
 * pulls (one pull per full-packet time at 0.99 of the link rate), so the
 * packets sent are the first windows plus the pulls used, and the pulls
 * used never outrun the pacer's clock; each NACK clocks out exactly one
 * retransmission; a 1023-to-1 incast that drops headers at the control
 * queue finishes through the RTO without a retransmission storm (5 million
 * retransmissions followed the first RTO before the fix in rto_timer);
 * htsim's incast_collateral_128 within 10% of htsim_ndp's tail, collateral
 * flow and retransmissions (12.9% more retransmissions before the fix in
 * on_nack). The contract: trimming on and ECN off on
 * NDP's class, -disable_trim and bad --ndp-opt values refused with exit 2, a UET run's flows
 * unchanged by an unrelated NDP message, an 18,522-host tree set up and
 * finished, one seed one result.
 */
#include "testutil.h"

#include "metrics/flowstream.h"
#include "metrics/report.h"
#include "sim.h"
#include "simtest.h"
#include "transport/flow.h"
#include "transport/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct sim S;

/* htsim_ndp's packet: 9000 bytes of payload plus its 64-byte header. */
#define NDP_MTU 9064
/* htsim main_ndp.cpp: NdpPullPacer at 0.99 of the 100 Gb/s link: one pull
 * per 9064-byte packet time / 0.99. */
#define PULL_GAP_US (NDP_MTU * 8 / 100e3 / 0.99)

static const struct transport_ops *ndp_ops(void)
{
    const struct transport_ops *t = transport_find("ndp");
    assert_non_null(t);
    return t;
}

/* --ndp-opt's value for the next setup_ndp (NULL: none). */
static const char *ndp_opt;

/* -path_burst's value for the next setup_ndp (NULL: none). */
static const char *path_burst;

/* --min-rto-us for the next setup_ndp (0: NDP's 50 ms). */
static double min_rto_us;

static void setup_ndp(const char *tm, double end_us, uint32_t cwnd_pkts)
{
    struct config c;
    config_defaults(&c);
    if (min_rto_us > 0)
        c.min_rto_flag_ps = (simtime_ps)(min_rto_us * PS_PER_US);
    if (ndp_opt)
        c.tp_flags[c.n_tp_flags++] = (struct tp_flag_given){"--ndp-opt", {ndp_opt, NULL}};
    if (path_burst)
        c.tp_flags[c.n_tp_flags++] = (struct tp_flag_given){"-path_burst", {path_burst, NULL}};
    c.tm_path = tm;
    c.transport_name = "ndp";
    c.lb_name = "oblivious";
    c.mtu_bytes = NDP_MTU;
    c.cwnd_pkts = cwnd_pkts;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.progress = false;
    sim_setup(&S, &c);
}

static void run_ndp(const char *tm, double end_us, uint32_t cwnd_pkts)
{
    setup_ndp(tm, end_us, cwnd_pkts);
    sim_run(&S);
}

static double last_finish_us(void)
{
    simtime_ps last = 0;
    for (uint32_t i = 0; i < S.n_flows; i++)
        if (S.flows[i].finish_ps > last)
            last = S.flows[i].finish_ps;
    return (double)last / PS_PER_US;
}

/* Counter k ("pulls_heard", "pulls_used") summed over the run's flows. */
static uint64_t counter_sum(const char *name)
{
    const struct transport_ops *t = ndp_ops();
    uint32_t k = UINT32_MAX;
    for (uint32_t i = 0; i < t->n_counters; i++)
        if (!strcmp(t->counter_names[i], name))
            k = i;
    assert_true(k != UINT32_MAX);
    uint64_t sum = 0, out[8];
    assert_true(t->n_counters <= 8);
    for (uint32_t i = 0; i < S.n_flows; i++) {
        t->counters(&S, i, out);
        sum += out[k];
    }
    return sum;
}

/* ---- against htsim_ndp ------------------------------------------------------------ */

static const char CM_2TO1[] = "Nodes 128\nConnections 2\n64->0 id 1 start 0 size 4194304\n"
                              "65->0 id 2 start 0 size 4194304\n"; /* datacenter/connection_matrices/
                                                                      incast_2to1_size4194304B.cm */

static void check_case(const char *tm, uint32_t n_flows, double htsim_tail_us)
{
    run_ndp(tm, 10000, 0);
    assert_int_equal(S.flows_finished, n_flows);
    double tail = last_finish_us();
    if (tail < 0.9 * htsim_tail_us || tail > 1.1 * htsim_tail_us)
        fail_msg("%s: tail FCT %.3f us, htsim_ndp %.3f us (outside 10%%)", tm, tail, htsim_tail_us);
    check_packet_conservation(&S);
    sim_free(&S);
}

/* The three cases. htsim_ndp: incast.cm 2465.63 us (the issue's
 * 2,465.6), perm_128 307.151 us (307.2), the 2-to-1 697.09 us (the issue
 * says 667.0, which this build does not give with any -q, -mtu, -cwnd or
 * -strat tried, and which is below the 677.3 us that 934 packets of 9064
 * bytes take on the receiver's 100 Gb/s link). */
static void test_incast_within_10_percent_of_htsim_ndp(void **st)
{
    (void)st;
    check_case(shared_path("htsim/matrices/incast.cm"), 15, 2465.63);
}

static void test_perm_128_within_10_percent_of_htsim_ndp(void **st)
{
    (void)st;
    check_case(shared_path("htsim/matrices/perm_128n_128c_2MB.cm"), 128, 307.151);
}

static void test_2to1_4mb_within_10_percent_of_htsim_ndp(void **st)
{
    (void)st;
    check_case(temp_file(CM_2TO1, ".cm"), 2, 697.09);
}

/* htsim_ndp -path_burst 16 (each path 16 packets in a row, -strat perm):
 * perm_128's tail grows from 307.151 to 400.52 us there; spraysim's
 * oblivious balancer owns the flag and must land within 10% of that (a
 * burst ignored gives the 307 us of burst 1). */
static void test_path_burst_within_10_percent_of_htsim_ndp(void **st)
{
    (void)st;
    path_burst = "16";
    check_case(shared_path("htsim/matrices/perm_128n_128c_2MB.cm"), 128, 400.52);
    path_burst = NULL;
}

/* ---- the mechanism -------------------------------------------------------------------- */

/* One 2 MB flow (223 packets of 9000 B) on an idle 16-host tree: before the
 * first answer can return (one base RTT, 16.4 us), exactly -cwnd packets
 * left (15 packets take 10.9 us at 100 Gb/s). */
static void test_first_window_is_cwnd_packets(void **st)
{
    (void)st;
    const char *cm = temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 2000000\n", ".cm");
    static const uint32_t cwnds[] = {0, 1, 5};
    static const uint64_t expect[] = {15, 1, 5}; /* 0: htsim main_ndp's default, 15 */
    for (size_t k = 0; k < 3; k++) {
        run_ndp(cm, 14, cwnds[k]);
        assert_int_equal(S.tot.data_pkts_sent, expect[k]);
        sim_free(&S);
    }
    /* a flow shorter than the window sends what it has */
    cm = temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 30000\n", ".cm");
    run_ndp(cm, 14, 0);
    assert_int_equal(S.tot.data_pkts_sent, 4);
    sim_free(&S);
}

/* incast.cm (15 x 2 MB into one host, trimming): every packet after the
 * first windows was clocked out by a pull; the pulls used never outrun one
 * per pull gap over the run, and the pacer kept the receiver's link busy
 * (at least 90% of that clock); each NACK brought exactly one
 * retransmission (no timeout). The same at half the pull rate
 * (--ndp-opt pull_rate=0.5: twice the gap). */
static void check_incast_follows_pulls(const char *opt, double gap_us)
{
    ndp_opt = opt;
    run_ndp(shared_path("htsim/matrices/incast.cm"), 10000, 0);
    ndp_opt = NULL;
    assert_int_equal(S.flows_finished, 15);
    uint64_t used = counter_sum("pulls_used");
    assert_int_equal(S.tot.data_pkts_sent, 15 * 15 + used);
    double clock = last_finish_us() / gap_us;
    if ((double)used > clock + 1 || (double)used < 0.9 * clock)
        fail_msg("%llu pulls used in %.1f us: the pacer's clock allows %.0f", (unsigned long long)used,
                 last_finish_us(), clock);
    assert_true(counter_sum("pulls_heard") <= S.tot.pulls_sent);
    assert_true(S.tot.nacks_sent > 0);
    assert_int_equal(S.tot.rtx_pkts_sent, S.tot.nacks_sent);
    assert_int_equal(S.tot.rtos, 0);
    for (uint32_t i = 0; i < S.n_flows; i++)
        assert_true(S.flows[i].rcv_complete);
    sim_free(&S);
}

static void test_incast_senders_follow_the_receivers_pulls(void **st)
{
    (void)st;
    check_incast_follows_pulls(NULL, PULL_GAP_US);
    check_incast_follows_pulls("pull_rate=0.5", PULL_GAP_US * 0.99 / 0.5);
}

/* Spurious timeouts: with a 30 us minimum RTO (the incast's queues hold
 * packets longer) the RTO fires on packets that were only late. Every
 * flow still finishes, every packet sent had a permission (first window,
 * a pull, or a timed-out packet of its own: at most the packets the RTO
 * queued), and NACKed packets still wait for pulls. */
static void test_spurious_timeouts_send_only_what_they_queued(void **st)
{
    (void)st;
    min_rto_us = 30;
    run_ndp(shared_path("htsim/matrices/incast.cm"), 100000, 0);
    min_rto_us = 0;
    assert_int_equal(S.flows_finished, 15);
    assert_true(S.tot.rtos > 0);
    uint64_t timed_out = 0;
    for (uint32_t i = 0; i < S.n_flows; i++)
        timed_out += S.flows[i].c.timeouts;
    uint64_t used = counter_sum("pulls_used");
    assert_true(S.tot.data_pkts_sent > 15 * 15 + used);
    if (S.tot.data_pkts_sent > 15 * 15 + used + timed_out)
        fail_msg("%llu sent: first windows 225, pulls %llu, timed-out packets %llu", (unsigned long long)S.tot.data_pkts_sent,
                 (unsigned long long)used, (unsigned long long)timed_out);
    check_packet_conservation(&S);
    sim_free(&S);
}

/* 1023 senders of 100 KB (12 packets each, all in the first window) into
 * host 0 of a 1024-host tree (htsim's incast_1024_100K.cm): 15,345 packets
 * at once overflow the control queue of the receiver's downlink and headers
 * are dropped (htsim_ndp, which never retransmits on a timeout, finishes
 * 37 of the 1023). Every flow finishes here by the RTO (50 ms), and the
 * senders never send faster than the pacers pull: the packets sent are at
 * most the first windows, one pull per pull gap over the run, and one
 * retransmission per timed-out packet (each dropped header). Before the
 * fix in rto_timer, 5 million retransmissions followed the first RTO and
 * 351 flows had finished by 100 ms. */
static void test_header_loss_recovered_without_a_storm(void **st)
{
    (void)st;
    size_t cap = 64 * 1024, len = 0;
    char *text = xmalloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "Nodes 1024\nConnections 1023\n");
    for (uint32_t i = 1; i < 1024; i++)
        len += (size_t)snprintf(text + len, cap - len, "%u->0 id %u start 0 size 100000\n", i, i);
    run_ndp(temp_file(text, ".cm"), 200000, 0);
    free(text);
    assert_int_equal(S.flows_finished, 1023);
    assert_true(S.tot.class_drops[0] > 0); /* headers were lost */
    assert_true(S.tot.rtos > 0);
    double bound = 1023.0 * 12 + last_finish_us() / PULL_GAP_US + 1 + (double)S.tot.class_drops[0];
    if ((double)S.tot.data_pkts_sent > bound)
        fail_msg("%llu data packets sent in %.0f us; first windows, pulls and timeouts allow %.0f",
                 (unsigned long long)S.tot.data_pkts_sent, last_finish_us(), bound);
    check_packet_conservation(&S);
    sim_free(&S);
}

/* htsim's incast_collateral_128.cm (uet-htsim datacenter/connection_matrices,
 * its line order kept): 126 senders of 2 MB into host 33 and one, 38, into
 * host 34 under the same ToR. htsim_ndp: the tail at 20,594.4 us, the
 * collateral flow at 203.96 us, 1,887 retransmissions; each within 10%
 * here. A NACK that took the receiver's pull number while the sender's
 * pulls only waited for its NIC (not htsim's banked pulls) sent packets
 * ahead of the pacer: 2,131 retransmissions (+12.9%). */
static const uint16_t COLLATERAL_SENDERS[] = {
    104, 35,  60,  97,  19,  75,  99,  26, 5,   50,  21,  52,  40,  54,  44,  100, 51,  7,   66,  65,  59,  20,
    67,  6,   11,  43,  119, 61,  30,  13, 64,  106, 62,  121, 85,  122, 14,  2,   49,  0,   24,  101, 81,  42,
    107, 4,   76,  111, 79,  12,  53,  113, 80, 98,  31,  37,  8,   72,  68,  74,  39,  102, 89,  48,  91,  90,
    70,  25,  105, 22,  108, 125, 57,  92, 87,  115, 95,  77,  45,  15,  41,  82,  93,  47,  55,  73,  71,  63,
    118, 46,  32,  17,  123, 58,  34,  10, 116, 36,  1,   78,  124, 110, 56,  3,   127, 96,  27,  69,  9,   16,
    120, 94,  83,  28,  112, 18,  86,  29, 84,  23,  114, 109, 103, 126, 117, 88,  38};

static void test_incast_collateral_128_within_10_percent_of_htsim_ndp(void **st)
{
    (void)st;
    size_t n = sizeof COLLATERAL_SENDERS / sizeof COLLATERAL_SENDERS[0], cap = 8192, len = 0;
    assert_int_equal(n, 127);
    char *text = xmalloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "Nodes 128\nConnections 127\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%u->%u start 0 size 2000000\n", COLLATERAL_SENDERS[i],
                                i + 1 < n ? 33u : 34u);
    run_ndp(temp_file(text, ".cm"), 100000, 0);
    free(text);
    assert_int_equal(S.flows_finished, 127);
    const struct {
        const char *what;
        double got, htsim;
    } c[] = {
        {"tail FCT (us)", last_finish_us(), 20594.4},
        {"collateral 38->34 FCT (us)", (double)S.flows[126].finish_ps / PS_PER_US, 203.96},
        {"retransmissions", (double)S.tot.rtx_pkts_sent, 1887},
    };
    assert_int_equal(S.flows[126].dst, 34);
    for (size_t k = 0; k < 3; k++)
        if (c[k].got < 0.9 * c[k].htsim || c[k].got > 1.1 * c[k].htsim)
            fail_msg("incast_collateral_128: %s %.2f, htsim_ndp %.2f (outside 10%%)", c[k].what, c[k].got,
                     c[k].htsim);
    sim_free(&S);
}

/* ---- the contract ----------------------------------------------------------------------- */

/* NDP's class trims (its loss signal, a need) and marks nothing (a
 * preference); the default queue is htsim main_ndp's 15 packets. */
static void test_fabric_needs_trimming_and_no_ecn(void **st)
{
    (void)st;
    setup_ndp(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 20000\n", ".cm"), 100, 0);
    const struct class_policy *cp = &S.class_policy[1];
    assert_int_equal(cp->trim, NEED_BASE);
    assert_true(cp->trim_strong);
    assert_int_equal(cp->ecn, NEED_OFF);
    assert_false(cp->ecn_strong);
    assert_int_equal(S.queue_bytes, 15 * NDP_MTU);
    sim_free(&S);
}

/* A setup that must stop with exit 2 (its one line goes to /dev/null). */
static void check_setup_exits_2(bool trimming, const char *opt)
{
    const char *cm = temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 20000\n", ".cm");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(9);
        struct config c;
        config_defaults(&c);
        c.tm_path = cm;
        c.transport_name = "ndp";
        c.trimming = trimming;
        c.progress = false;
        if (opt)
            c.tp_flags[c.n_tp_flags++] = (struct tp_flag_given){"--ndp-opt", {opt, NULL}};
        sim_setup(&S, &c);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 2);
}

/* Without trimming NDP has no loss signal: refused, exit 2, one line; so
 * are a pull rate outside (0, 1] and an unknown --ndp-opt name. */
static void test_disable_trim_and_bad_options_refused(void **st)
{
    (void)st;
    check_setup_exits_2(false, NULL);
    check_setup_exits_2(true, "pull_rate=1.5");
    check_setup_exits_2(true, "pull_rate=0");
    check_setup_exits_2(true, "rate=0.5");
}

/* Seven UET senders into host 0 trim; an NDP message between two hosts none
 * of them uses, in UET's class or a class of its own, leaves every UET flow
 * ending at the same picosecond with the same counters. */
#define UET_LINES                                                                                                 \
    "1->0 id 1 start 0 size 200000\n2->0 id 2 start 0 size 200000\n3->0 id 3 start 0 size 200000\n"                 \
    "4->0 id 4 start 0 size 200000\n5->0 id 5 start 0 size 200000\n6->0 id 6 start 0 size 200000\n"                 \
    "7->0 id 7 start 0 size 200000\n"
#define N_UET 7

static void run_mixed(const char *cm_text, uint32_t n_classes, simtime_ps *finish, uint64_t (*ctr)[32])
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(cm_text, ".cm");
    c.n_classes = n_classes;
    c.classes_given = true;
    c.end_ps = 2000 * PS_PER_US;
    c.progress = false;
    sim_setup(&S, &c);
    sim_run(&S);
    assert_true(transport_uet_ops.n_counters <= 32);
    for (uint32_t i = 0; i < N_UET; i++) {
        assert_ptr_equal(S.flows[i].tp, &transport_uet_ops);
        finish[i] = S.flows[i].finish_ps;
        transport_uet_ops.counters(&S, i, ctr[i]);
    }
}

static void test_unrelated_ndp_message_leaves_uet_alone(void **st)
{
    (void)st;
    static const char *const extra[] = {"14->15 id 8 start 0 size 200000 transport ndp\n",
                                        "14->15 id 8 start 0 size 200000 transport ndp priority 2\n"};
    for (int k = 0; k < 2; k++) {
        uint32_t classes = k ? 3 : 2;
        simtime_ps alone[N_UET], mixed[N_UET];
        uint64_t ca[N_UET][32], cmx[N_UET][32];
        memset(ca, 0, sizeof ca);
        memset(cmx, 0, sizeof cmx);
        run_mixed("Nodes 16\nConnections 7\n" UET_LINES, classes, alone, ca);
        assert_true(S.tot.class_trims[1] > 0);
        sim_free(&S);
        char cm[1024];
        snprintf(cm, sizeof cm, "Nodes 16\nConnections 8\n" UET_LINES "%s", extra[k]);
        run_mixed(cm, classes, mixed, cmx);
        assert_int_equal(S.flows_finished, N_UET + 1);
        assert_ptr_equal(S.flows[N_UET].tp, ndp_ops());
        for (uint32_t i = 0; i < N_UET; i++) {
            assert_int_equal(mixed[i], alone[i]);
            assert_memory_equal(cmx[i], ca[i], sizeof ca[i]);
        }
        sim_free(&S);
    }
}

/* issue 21 item 5: every transport sets up and finishes on an 18,522-host
 * (k = 42) fat tree, receivers past 2^14 included (tests/contract_test.sh's
 * case, which lists the transports it runs). */
static void test_k42_fat_tree(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 18522\nConnections 3\n0->18521 id 1 start 0 size 100000\n"
                          "18000->3 id 2 start 0 size 50000\n17000->18521 id 3 start 0 size 2000\n",
                          ".cm");
    c.transport_name = "ndp";
    c.progress = false;
    sim_setup(&S, &c);
    assert_int_equal(S.n_hosts, 18522);
    sim_run(&S);
    assert_int_equal(S.flows_finished, 3);
    sim_free(&S);
}

/* --stream (flow_release): a Poisson run (23,250 messages in 200 us on a
 * 32-host two-tier tree) gives the same counters and FCT figures whether
 * finished messages' slots are recycled or not, and with recycling it
 * keeps far fewer slots than it made messages. */
static void run_poisson_stream(bool stream, struct run_stats *r, struct sim_totals *tot)
{
    static char spec[512];
    snprintf(spec, sizeof spec, "poisson:cdf=%s,load=0.5,n=32,stop_us=100",
             shared_path("workloads/google_all_rpc.cdf"));
    struct config c;
    config_defaults(&c);
    c.workload_spec = spec;
    c.tiers = 2;
    c.mtu_bytes = 1500;
    c.transport_name = "ndp";
    c.end_ps = 200 * PS_PER_US;
    c.progress = false;
    sim_setup(&S, &c);
    if (stream)
        flowstream_setup(&S, NULL); /* as main.c does for --stream on; rows kept in memory */
    sim_run(&S);
    if (stream)
        assert_true(flowstream_close(&S));
    report_collect(&S, 0, r);
    *tot = S.tot;
}

static void test_stream_recycles_slots_with_the_same_result(void **st)
{
    (void)st;
    struct run_stats on, off;
    struct sim_totals ton, toff;
    run_poisson_stream(true, &on, &ton);
    assert_true(S.n_msgs > 20000);
    if (S.n_flows * 4 > S.n_msgs)
        fail_msg("--stream on kept %u slots for %u messages", S.n_flows, S.n_msgs);
    sim_free(&S);
    run_poisson_stream(false, &off, &toff);
    assert_int_equal(S.n_flows, S.n_msgs);
    sim_free(&S);
    assert_memory_equal(&ton, &toff, sizeof ton);
    assert_int_equal(on.finished, off.finished);
    assert_int_equal(on.fct_n, off.fct_n);
    assert_true(on.fct_median_us == off.fct_median_us && on.fct_p99_us == off.fct_p99_us &&
                on.fct_max_us == off.fct_max_us && on.fct_mean_us == off.fct_mean_us);
}

/* The payload the receiver holds (ops.rcv_payload_bytes, what Poisson
 * goodput and the time series count before a message completes): each
 * packet received once carries one MSS, -mtu less the header (9000 B
 * here), but the last, which carries the message's remainder. A message of
 * 10 MSS + 100 B is 11 packets, all in the first window (-cwnd 15), on an
 * idle tree: 12 us after the start (one-way latency about 8 us, a packet
 * every 0.73 us) some have arrived, not the last, and the receiver holds
 * exactly that many MSS; at the end it holds the message's 90,100 B
 * (issue 26: the MSS there as mtu + hdr survived: nothing read the count
 * before completion). */
static void test_payload_held_counts_one_mss_per_packet(void **st)
{
    (void)st;
    const uint64_t mss = NDP_MTU - 64, size = 10 * mss + 100;
    char cm[128];
    snprintf(cm, sizeof cm, "Nodes 16\nConnections 1\n0->13 start 0 size %llu\n", (unsigned long long)size);
    const char *tm = temp_file(cm, ".cm");
    run_ndp(tm, 12, 0);
    const struct flow *f = &S.flows[0];
    assert_int_equal(S.cfg.hdr_bytes, 64);
    assert_int_equal(f->n_pkts, 11);
    assert_int_equal(S.tot.data_pkts_sent, 11);
    assert_true(S.tot.data_pkts_delivered > 0); /* under way: some packets in, not the last */
    assert_false(f->rcv_complete);
    assert_int_equal(f->tp->rcv_payload_bytes(&S, 0), S.tot.data_pkts_delivered * mss);
    sim_free(&S);
    run_ndp(tm, 1000, 0);
    assert_true(S.flows[0].rcv_complete);
    assert_int_equal(S.tot.data_pkts_delivered, 11); /* each packet once */
    assert_int_equal(S.flows[0].tp->rcv_payload_bytes(&S, 0), size);
    sim_free(&S);
}

/* One seed, one result: the incast twice, every flow at the same picosecond. */
static void test_same_seed_same_result(void **st)
{
    (void)st;
    simtime_ps first[15];
    run_ndp(shared_path("htsim/matrices/incast.cm"), 10000, 0);
    for (uint32_t i = 0; i < 15; i++)
        first[i] = S.flows[i].finish_ps;
    uint64_t sent = S.tot.data_pkts_sent;
    sim_free(&S);
    run_ndp(shared_path("htsim/matrices/incast.cm"), 10000, 0);
    for (uint32_t i = 0; i < 15; i++)
        assert_int_equal(S.flows[i].finish_ps, first[i]);
    assert_int_equal(S.tot.data_pkts_sent, sent);
    sim_free(&S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incast_within_10_percent_of_htsim_ndp),
        cmocka_unit_test(test_perm_128_within_10_percent_of_htsim_ndp),
        cmocka_unit_test(test_2to1_4mb_within_10_percent_of_htsim_ndp),
        cmocka_unit_test(test_path_burst_within_10_percent_of_htsim_ndp),
        cmocka_unit_test(test_first_window_is_cwnd_packets),
        cmocka_unit_test(test_incast_senders_follow_the_receivers_pulls),
        cmocka_unit_test(test_header_loss_recovered_without_a_storm),
        cmocka_unit_test(test_spurious_timeouts_send_only_what_they_queued),
        cmocka_unit_test(test_incast_collateral_128_within_10_percent_of_htsim_ndp),
        cmocka_unit_test(test_fabric_needs_trimming_and_no_ecn),
        cmocka_unit_test(test_disable_trim_and_bad_options_refused),
        cmocka_unit_test(test_unrelated_ndp_message_leaves_uet_alone),
        cmocka_unit_test(test_k42_fat_tree),
        cmocka_unit_test(test_stream_recycles_slots_with_the_same_result),
        cmocka_unit_test(test_payload_held_counts_one_mss_per_packet),
        cmocka_unit_test(test_same_seed_same_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
