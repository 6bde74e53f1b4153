/* test_metrics_edges2.c: edges of src/metrics and src/sim.c that mutation
 * testing (issue 26, tools/mutation.py) found untested, each checked
 * against the rule the code states: the trigger index's prefix sums
 * (trigger_first, trig_host_first: sim.h) stay inside their nt + 1
 * entries; sim_htsim_printf hands a parallel run's line over whole at 255,
 * 256 and 300 bytes (sim.c: a 256-byte buffer, then one of n + 1 bytes);
 * --out's parent is created under the name given when the last component
 * is one letter (outdir.c); a file copied into a mount point (another file
 * system: outdir.c copy_file) arrives whole at 1 and 65537 bytes, and a
 * commit that fails keeps the run's files in "<staging>.kept", named in
 * the error; switches.csv's ports column is the switch's port count, up
 * and down; setup's defaults (RFC 5681's 3 duplicate ACKs, a queue of the
 * BDP rounded up to whole packets, --trigger-delay's per-hop latency);
 * a parallel window skips other processes' nodes; and three whole runs
 * with every output (time series sampled and by change, classes,
 * --switch-stats, --stream, Poisson arrivals) give a row per message,
 * switch and time-series record. Heap overruns of a byte or more do not change a result here,
 * so main() runs the program again under glibc's malloc checking
 * (libc_malloc_debug.so.0 with MALLOC_CHECK_=3: a free() of a block
 * written past its end aborts), where that library is installed and the
 * build has no sanitizer of its own (tests/malloc_check.h). Fast (a few small runs, no fabric
 * bigger than 16 hosts): it goes first in its modules' MODULE_TESTS.
 */
#include "malloc_check.h"
#include "testutil.h"

#include "cli/options.h"
#include "metrics/flowstream.h"
#include "metrics/outdir.h"
#include "net/pfc.h"
#include "metrics/timeseries.h"
#include "metrics/vcollect.h"
#include "metrics/report.h"
#include "sim.h"
#include "topo/topo.h"
#include "transport/flow.h"

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>

static struct sim S;

static void setup_run(const char *tm, bool trigger_delay, bool switch_stats)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(tm, ".cm");
    c.progress = false;
    c.end_ps = 2000 * PS_PER_US;
    c.trigger_delay = trigger_delay ? 1 : 0;
    c.switch_stats = switch_stats;
    sim_setup(&S, &c);
    sim_run(&S);
}

/* ---- sim.c: the trigger index ----------------------------------------- */

/* Three triggers, their ids out of order in the file (t = 0, 1, 2 are
 * ids 3, 1, 2: the index sorts ids and searches them, sim.c
 * trigger_index_of): t = 0 (id 3) has one waiting connection, from host 3;
 * t = 1 (id 1) two, from hosts 1 and 2; t = 2 (id 2) none (it is never
 * named: it fires nothing and starts nothing). So waiters[first[t] ..
 * first[t+1]) gives first = {0, 1, 3, 3}, waiters {3, 1, 2} (connection
 * indices), and the distinct source hosts the same. sim_free() frees
 * both arrays, where malloc checking sees a write past their nt + 1
 * entries. An undeclared id activates nothing. */
static const char TRIGGERS[] = "Nodes 16\nConnections 4\nTriggers 3\n"
                               "0->5 id 1 start 0 size 1000 send_done_trigger 1\n"
                               "1->6 id 2 trigger 1 size 1000\n"
                               "2->7 id 3 trigger 1 size 1000 send_done_trigger 3\n"
                               "3->8 id 4 trigger 3 size 1000\n"
                               "trigger id 3 oneshot\ntrigger id 1 oneshot\ntrigger id 2 oneshot\n";

static void test_trigger_index_prefix_sums(void **st)
{
    (void)st;
    for (int delay = 0; delay < 2; delay++) {
        setup_run(TRIGGERS, delay, false);
        const uint32_t want[4] = {0, 1, 3, 3}, order[3] = {3, 1, 2};
        for (int t = 0; t < 4; t++)
            assert_int_equal(S.trigger_first[t], want[t]);
        for (int w = 0; w < 3; w++)
            assert_int_equal(S.trigger_waiters[w], order[w]);
        if (delay) {
            for (int t = 0; t < 4; t++)
                assert_int_equal(S.trig_host_first[t], want[t]);
            for (int k = 0; k < 3; k++)
                assert_int_equal(S.trig_host[k], order[k]); /* connection i's source is host i */
        }
        /* trigger 1 fired when connection 0 sent, trigger 3 when connection 2 did */
        assert_int_equal(S.flows_finished, 4);
        /* an id the file does not declare, above every declared one (the
         * search ends past the last entry) or below, activates nothing */
        uint32_t counts[3];
        memcpy(counts, S.trigger_counts, sizeof counts);
        sim_trigger_activate(&S, 4);
        sim_trigger_activate(&S, 1000000);
        sim_trigger_activate(&S, 0);
        assert_memory_equal(counts, S.trigger_counts, sizeof counts);
        assert_int_equal(S.flows_finished, 4);
        sim_free(&S);
    }
}

/* ---- sim.c: config_defaults ------------------------------------------ */

/* Each default as sim.c cites it (the reference simulator's, a seed
 * paper's, or ours where it says so), checked value by value. */
static void test_config_defaults_as_cited(void **st)
{
    (void)st;
    struct config c;
    memset(&c, 0x5a, sizeof c);
    config_defaults(&c);
    assert_int_equal(c.seed, 13);                      /* the reference simulator's default seed */
    assert_int_equal(c.end_ps, 1000 * PS_PER_US);      /* -end 1000 us */
    assert_int_equal(c.tiers, 3);
    assert_int_equal(c.planes, 1);
    assert_int_equal(c.linkspeed_mbps, 100000);        /* 100 Gb/s */
    assert_int_equal(c.mtu_bytes, 4150);
    assert_int_equal(c.hdr_bytes, 64);
    assert_int_equal(c.paths, 64);
    assert_true(c.trimming);
    assert_int_equal(c.qa_gate, -1);
    assert_int_equal(c.hop_latency_ps, 1000000);       /* 1 us */
    assert_int_equal(c.switch_latency_ps, 0);
    assert_int_equal(c.ack_threshold_bytes, 16384);    /* seed 002 Sec. 8: 16 KB delayed ACKs */
    assert_int_equal(c.routing, ROUTE_ECMP);
    assert_int_equal(c.reroute, REROUTE_NONE);
    assert_int_equal(c.drr_quantum_bytes, 4096);       /* seed 004 Sec. IV-A: a 4 KB quantum */
    assert_int_equal(c.ar_quantum_bytes, 4150);        /* one MTU */
    assert_int_equal(c.ar_sticky_delta_ps, 10000000);  /* htsim main_uec: 10 us */
    assert_int_equal(c.detect_ps, 100000000000ULL);    /* seed 003 Sec. 4.1.1: 100 ms */
    assert_string_equal(c.transport_name, TRANSPORT_DEFAULT);
    assert_int_equal(c.n_classes, 2);
    assert_int_equal(c.loss_detect, -1);
    assert_int_equal(c.sender_cc, -1);
    assert_int_equal(c.receiver_cc, -1);
    assert_string_equal(c.cc_name, "nscc");
    assert_string_equal(c.lb_name, "mixed");
    assert_int_equal(c.stream, -1);
    assert_int_equal(c.msg_cc, -1);
    assert_int_equal(c.pfc_flag, -1);
    assert_int_equal(c.pfc_low_pkts, 12);              /* htsim main_roce.cpp: low_pfc = 12 */
    assert_int_equal(c.pfc_high_pkts, 15);             /* high_pfc = 15 */
    assert_int_equal(c.pfc_deadlock_ps, 500000000);    /* 500 us */
    /* and everything else zero (memset first) */
    assert_int_equal(c.queue_pkts, 0);
    assert_int_equal(c.trigger_delay, 0);
    assert_false(c.switch_stats);
}

/* ---- sim.c: setup's derived values ------------------------------------ */

static void setup_only(const char *cc, simtime_ps hop_latency_ps, bool trigger_delay)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(trigger_delay ? TRIGGERS : "Nodes 16\nConnections 1\n0->5 start 0 size 1000\n", ".cm");
    c.progress = false;
    if (cc)
        c.cc_name = cc;
    if (hop_latency_ps)
        c.hop_latency_ps = hop_latency_ps;
    c.trigger_delay = trigger_delay ? 1 : 0;
    sim_setup(&S, &c);
}

/* The tie order: origin o's counter starts at o << ORIGIN_SHIFT (sim.h:
 * 34), for o = 0 (setup's events) to the last node; what setup scheduled
 * at an origin counts up from there, far below the next origin's start.
 * The window of a parallel run is the smallest link latency (here every
 * link's 1 us, -hop_latency), or 1 ps when links have none. */
static void test_tie_order_and_lookahead(void **st)
{
    (void)st;
    setup_only(NULL, 0, false);
    uint32_t nodes = S.n_hosts + S.n_switches;
    for (uint32_t o = 0; o <= nodes; o++) {
        assert_int_equal(S.origin_seq[o] >> 34, o);
        assert_true((S.origin_seq[o] & ((1ULL << 34) - 1)) < 1000);
    }
    assert_int_equal(S.lookahead_ps, 1000000);
    sim_free(&S);
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n0->5 start 0 size 1000\n", ".cm");
    c.progress = false;
    c.hop_latency_ps = 0;
    sim_setup(&S, &c);
    assert_int_equal(S.lookahead_ps, 1);
    sim_free(&S);
}

/* A GOAL schedule without -nodes or -topo runs on the smallest default fat
 * tree with hosts enough: k^3/4 hosts with 3 tiers, k^2/2 with 2, k even
 * (sim.c). So 16 ranks fit k = 4 exactly (16), 17 need k = 6 (54); with
 * 2 tiers 8 ranks fit k = 4 (8) and 9 need k = 6 (18). */
static void test_goal_default_fat_tree_size(void **st)
{
    (void)st;
    const struct {
        uint32_t tiers, ranks, hosts;
    } cases[] = {{3, 16, 16}, {3, 17, 54}, {3, 3, 16}, {2, 8, 8}, {2, 9, 18}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[4096];
        uint32_t n = cases[k].ranks;
        int at = snprintf(text, sizeof text, "num_ranks %u\nrank 0 {\nsend 1000b to %u tag 1\n}\n", n, n - 1);
        for (uint32_t r = 1; r + 1 < n; r++)
            at += snprintf(text + at, sizeof text - (size_t)at, "rank %u {\n}\n", r);
        snprintf(text + at, sizeof text - (size_t)at, "rank %u {\nrecv 1000b from 0 tag 1\n}\n", n - 1);
        struct config c;
        config_defaults(&c);
        c.goal_path = temp_file(text, ".goal");
        c.tiers = cases[k].tiers;
        c.progress = false;
        sim_setup(&S, &c);
        if (S.cm.nodes != cases[k].hosts || S.n_hosts != cases[k].hosts)
            fail_msg("%u ranks, %u tiers: %u hosts, want %u", n, cases[k].tiers, S.n_hosts, cases[k].hosts);
        sim_free(&S);
    }
}

/* A transport no table knows, given through the C API (the command line
 * refuses it first, options.c), is refused by sim_setup naming
 * --transport (transport.c), exit status 2, whatever the queue defaults
 * would have been. */
static void setup_unknown_transport(void)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n0->5 start 0 size 1000\n", ".cm");
    c.progress = false;
    c.transport_name = "nosuch";
    sim_setup(&S, &c);
}

static void test_unknown_transport_is_named(void **st)
{
    (void)st;
    char out[1024];
    assert_int_equal(child_stderr(setup_unknown_transport, out, sizeof out), 2);
    if (!strstr(out, "--transport: unknown transport 'nosuch'") || strchr(out, '\n') != out + strlen(out) - 1)
        fail_msg("want one line naming --transport, got: %s", out);
}

/* Exactly one workload: two or three of -tm, --workload and --goal given
 * through the C API (the command line refuses them first, options.c) are
 * refused by sim_setup in one line naming two of them, exit status 2. */
static unsigned workload_mask; /* bit 0: -tm, 1: --workload, 2: --goal */

static void setup_with_workloads(void)
{
    struct config c;
    config_defaults(&c);
    c.progress = false;
    if (workload_mask & 1)
        c.tm_path = temp_file("Nodes 16\nConnections 1\n0->5 start 0 size 1000\n", ".cm");
    if (workload_mask & 2)
        c.workload_spec = "perm:n=16,size=1000";
    if (workload_mask & 4)
        c.goal_path = "never-read.goal";
    sim_setup(&S, &c);
}

static void test_two_workloads_refused(void **st)
{
    (void)st;
    static const struct {
        unsigned mask;
        const char *want;
    } cases[] = {
        {3, "-tm and --workload both give the workload: give one of them\n"},
        {5, "-tm and --goal both give the workload: give one of them\n"},
        {6, "--workload and --goal both give the workload: give one of them\n"},
        {7, "-tm and --goal both give the workload: give one of them\n"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        workload_mask = cases[i].mask;
        char out[1024];
        int rc = child_stderr(setup_with_workloads, out, sizeof out);
        const char *p = strstr(out, cases[i].want);
        if (rc != 2 || !p || p[strlen(cases[i].want)] != '\0' || strchr(out, '\n') != out + strlen(out) - 1)
            fail_msg("workloads %u: exit %d, stderr '%s'; want exit 2 and one line ending '%s'", cases[i].mask, rc, out,
                     cases[i].want);
    }
}

/* The event order names a node in 56 - ORIGIN_SHIFT bits, origin 0 being
 * setup: a fabric of ORIGIN_MAX - 1 nodes (4,194,302) is taken and one
 * more is refused in one line naming both numbers (sim_check_node_count,
 * called by sim_setup once the fabric is built: a real fabric that size
 * takes 25 s and 4.8 GB to build, so the check is tested alone). */
static uint32_t node_count;

static void check_node_count(void)
{
    sim_check_node_count(node_count);
}

static void test_node_count_limit(void **st)
{
    (void)st;
    assert_int_equal(ORIGIN_MAX, 4194303);
    char out[1024];
    node_count = ORIGIN_MAX - 1;
    assert_int_equal(child_stderr(check_node_count, out, sizeof out), 0);
    assert_string_equal(out, "");
    node_count = ORIGIN_MAX;
    assert_int_equal(child_stderr(check_node_count, out, sizeof out), 2);
    if (!strstr(out, "the fabric has 4194303 nodes; the event order supports at most 4194302\n"))
        fail_msg("want the node limit's line, got: %s", out);
}

/* The progress line's elapsed time is wall-clock seconds since the run
 * began (sim.c wall_seconds: whole seconds plus nanoseconds x 1e-9): a
 * 128-host permutation of 4 MB (millions of events, a progress check
 * every 2^18) reporting as often as it may (a line at every check: the
 * period, 1 ns through the C API, has always passed) prints lines whose
 * elapsed times are at least 0, below a minute and never decrease, and
 * whose event rates are positive. */
static void run_with_progress(void)
{
    struct config c;
    config_defaults(&c);
    c.workload_spec = "perm:n=128,size=4000000";
    c.progress = true;
    c.progress_every_s = 1e-9;
    sim_setup(&S, &c);
    sim_run(&S);
    fflush(stderr);
}

static void test_progress_line_wall_seconds(void **st)
{
    (void)st;
    char out[8192];
    assert_int_equal(child_stderr(run_with_progress, out, sizeof out), 0);
    unsigned lines = 0;
    double prev = 0;
    for (const char *p = out; (p = strstr(p, "spraysim: progress [")) != NULL; p++) {
        double elapsed_s = -1, rate = -1;
        const char *r = strstr(p, " flows finished, ");
        assert_non_null(r);
        assert_int_equal(sscanf(p, "spraysim: progress [%lf s]", &elapsed_s), 1);
        assert_int_equal(sscanf(r, " flows finished, %lfM events/s", &rate), 1);
        if (!(elapsed_s >= prev && elapsed_s < 60 && rate > 0))
            fail_msg("progress line %u: %.1f s after %.1f s, %.2fM events/s: %.*s", lines + 1, elapsed_s, prev, rate,
                     (int)strcspn(p, "\n"), p);
        prev = elapsed_s;
        lines++;
    }
    if (lines < 2)
        fail_msg("want at least two progress lines, got %u: %s", lines, out);
}

/* An algorithm that names no duplicate-ACK threshold (.dupack_threshold
 * 0: BBR, MP-RDMA, SMaRTT) gets 3, RFC 5681's (sim.c). */
static void test_dupack_threshold_defaults_to_three(void **st)
{
    (void)st;
    setup_only("bbr", 0, false);
    assert_int_equal(S.cc->dupack_threshold, 0);
    assert_int_equal(S.dupack_threshold, 3);
    sim_free(&S);
}

/* The default queue (trimming on: one BDP, sim.h -q) is the BDP in whole
 * packets, rounded up. With -hop_latency 1021114 ps the BDP is 178451
 * bytes = 43 x 4150 + 1: one byte over 43 MTUs, so 44 packets of 4150,
 * 182600 bytes (a division that rounds up only from 2 bytes over, or not
 * at all, gives 43). */
static void test_default_queue_rounds_the_bdp_up(void **st)
{
    (void)st;
    setup_only(NULL, 1021114, false);
    assert_true(S.cfg.trimming);
    assert_int_equal(S.cfg.mtu_bytes, 4150);
    assert_int_equal(S.bdp_bytes % 4150, 1); /* the case this test is for */
    assert_int_equal(S.queue_bytes, 44u * 4150u);
    /* the rest of that arithmetic, from the same inputs (3 tiers: a
     * diameter of 6 hops; 100 Gb/s: 80 ps a byte): base RTT = 2 x 6 x
     * 1021114 + 6 x (4150 + 64) x 80 = 14276088 ps, x 100000 / 8e6 =
     * 178451 bytes; ECN marks from ceil(0.2 x 44) = 9 to ceil(0.8 x 44) =
     * 36 packets; seed 002 Sec. 6's min RTO, 15 us + the queue's drain
     * (182600 x 80 ps) x 6 hops = 102648000 ps, and probe period, base RTT
     * + 0.75 x base RTT (trimming) = 14276088 + 10707066 */
    assert_int_equal(S.topo.diameter_hops, 6);
    assert_int_equal(S.base_rtt_ps, 14276088);
    assert_int_equal(S.bdp_bytes, 178451);
    assert_int_equal(S.ecn_kmin_bytes_default, 9u * 4150u);
    assert_int_equal(S.ecn_kmax_bytes_default, 36u * 4150u);
    assert_int_equal(S.min_rto_ps, 102648000);
    assert_int_equal(S.probe_period_ps, 14276088 + 10707066);
    sim_free(&S);
}

/* --trigger-delay path: the latency from host a to host b is, per hop of
 * the shortest path, a 64-byte header's serialisation at 100 Gb/s (5120
 * ps) plus the link's 1 us (the defaults: -hdr 64, -linkspeed 100000,
 * -hop_latency 1 us, -switch_latency 0): 1005120 ps a hop. Host 0 to a
 * host under its own switch is 2 hops; the farthest host is the fabric's
 * diameter; a host to itself, 0. */
static void test_trigger_latency_per_hop(void **st)
{
    (void)st;
    setup_only(NULL, 0, true);
    assert_int_equal(S.cfg.hdr_bytes, 64);
    assert_int_equal(S.cfg.linkspeed_mbps, 100000);
    assert_int_equal(S.cfg.hop_latency_ps, 1000000);
    assert_int_equal(S.cfg.switch_latency_ps, 0);
    const simtime_ps hop_ps = 1005120;
    assert_int_equal(sim_trigger_latency_ps(&S, 0, 0), 0);
    /* host 1 shares host 0's switch (their ports' peer) */
    uint32_t p0 = 0, p1 = 0;
    for (uint32_t p = 0; p < S.n_ports; p++) {
        if (S.ports[p].owner_node == 0)
            p0 = p;
        if (S.ports[p].owner_node == 1)
            p1 = p;
    }
    assert_int_equal(S.ports[p0].peer_node, S.ports[p1].peer_node);
    assert_int_equal(sim_trigger_latency_ps(&S, 0, 1), 2 * hop_ps);
    simtime_ps far = 0;
    for (uint32_t b = 1; b < S.n_hosts; b++) {
        simtime_ps d = sim_trigger_latency_ps(&S, 0, b);
        assert_int_equal(d % hop_ps, 0);
        assert_true(d >= 2 * hop_ps);
        far = d > far ? d : far;
    }
    assert_int_equal(far, (simtime_ps)S.topo.diameter_hops * hop_ps);
    assert_true(S.topo.diameter_hops > 2);
    /* from another host (the cache of latencies is per source) and back */
    assert_int_equal(sim_trigger_latency_ps(&S, 1, 0), 2 * hop_ps);
    assert_int_equal(sim_trigger_latency_ps(&S, 0, 1), 2 * hop_ps);
    sim_free(&S);
}

/* --trigger-delay path: host B hears each activation after the one-way
 * latency from the activating host (sim_trigger_latency_ps, tested
 * above); a barrier of count 2 starts B's connection at the second heard,
 * a oneshot at the first, and a multishot's k-th activation heard starts
 * the k-th waiting connection (sim.c trigger_heard). A sender's
 * send_done_trigger activates at its finish_ps (test_messages). */
static void test_trigger_delay_by_type(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 9\nTriggers 3\n"
                          "0->5 id 1 start 0 size 1000 send_done_trigger 1\n"
                          "1->6 id 2 start 0 size 40000 send_done_trigger 1\n"
                          "2->7 id 3 trigger 1 size 1000\n"
                          "4->9 id 4 start 0 size 1000 send_done_trigger 2\n"
                          "8->12 id 5 trigger 2 size 1000\n"
                          "10->13 id 6 start 0 size 1000 send_done_trigger 3\n"
                          "11->14 id 7 start 0 size 40000 send_done_trigger 3\n"
                          "12->15 id 8 trigger 3 size 1000\n"
                          "12->3 id 9 trigger 3 size 1000\n"
                          "trigger id 1 barrier count 2\ntrigger id 2 oneshot\ntrigger id 3 multishot\n",
                          ".cm");
    c.progress = false;
    c.trigger_delay = 1;
    sim_setup(&S, &c);
    sim_run(&S);
    assert_int_equal(S.flows_finished, 9);
    const struct flow *f = S.flows;
    /* barrier: the later of the two activations as host 2 hears them */
    simtime_ps a = f[0].finish_ps + sim_trigger_latency_ps(&S, 0, 2);
    simtime_ps b = f[1].finish_ps + sim_trigger_latency_ps(&S, 1, 2);
    assert_true(a != b);
    assert_int_equal(f[2].start_ps, a > b ? a : b);
    /* oneshot: host 8 hears host 4's one activation */
    assert_int_equal(f[4].start_ps, f[3].finish_ps + sim_trigger_latency_ps(&S, 4, 8));
    /* multishot: host 12 hears host 10's then host 11's activation; the
     * first starts connection 7, the second connection 8 */
    simtime_ps m1 = f[5].finish_ps + sim_trigger_latency_ps(&S, 10, 12);
    simtime_ps m2 = f[6].finish_ps + sim_trigger_latency_ps(&S, 11, 12);
    assert_true(m1 < m2);
    assert_int_equal(f[7].start_ps, m1);
    assert_int_equal(f[8].start_ps, m2);
    sim_free(&S);
}

/* The first and the last host activate triggers like any other
 * (trigger_notify takes the origins 1 to n_hosts, host 0 to host 15 here):
 * under --trigger-delay path, host 15's and host 0's send-done activations
 * start their waiters after the one-way latency to them. */
static void test_first_and_last_host_activate_triggers(void **st)
{
    (void)st;
    setup_run("Nodes 16\nConnections 4\nTriggers 2\n"
              "15->3 id 1 start 0 size 1000 send_done_trigger 1\n"
              "1->2 id 2 trigger 1 size 1000\n"
              "0->9 id 3 start 0 size 1000 send_done_trigger 2\n"
              "14->15 id 4 trigger 2 size 1000\n"
              "trigger id 1 oneshot\ntrigger id 2 oneshot\n",
              true, false);
    assert_int_equal(S.n_hosts, 16);
    assert_int_equal(S.flows_finished, 4);
    const struct flow *f = S.flows;
    assert_int_equal(f[1].start_ps, f[0].finish_ps + sim_trigger_latency_ps(&S, 15, 1));
    assert_int_equal(f[3].start_ps, f[2].finish_ps + sim_trigger_latency_ps(&S, 0, 14));
    sim_free(&S);
}

/* A multishot trigger heard more often than it has waiters starts no one
 * else: here trigger 2 (one waiter, 12->15) is activated twice, and the
 * waiter listed right after its block (12->3, trigger 3's, on the same
 * host) must wait for its own trigger, a 400 KB flow's end. A check
 * against the block's end that lets the second activation through would
 * start 12->3 at trigger 2's second activation. */
static void test_multishot_past_its_waiters_starts_no_one_else(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 7\nTriggers 3\n"
                          "0->5 id 1 start 0 size 1000 send_done_trigger 1\n"
                          "7->2 id 2 trigger 1 size 1000\n"
                          "1->6 id 3 start 0 size 1000 send_done_trigger 2\n"
                          "2->8 id 4 start 0 size 2000 send_done_trigger 2\n"
                          "12->15 id 5 trigger 2 size 1000\n"
                          "4->9 id 6 start 0 size 400000 send_done_trigger 3\n"
                          "12->3 id 7 trigger 3 size 1000\n"
                          "trigger id 1 oneshot\ntrigger id 2 multishot\ntrigger id 3 oneshot\n",
                          ".cm");
    c.progress = false;
    c.trigger_delay = 1;
    sim_setup(&S, &c);
    /* waiters in trigger-id order: A (flow 1), B (flow 4), C (flow 6) */
    assert_int_equal(S.trigger_first[1], 1);
    assert_int_equal(S.trigger_first[2], 2);
    assert_int_equal(S.trigger_waiters[2], 6);
    sim_run(&S);
    assert_int_equal(S.flows_finished, 7);
    const struct flow *f = S.flows;
    simtime_ps m1 = f[2].finish_ps + sim_trigger_latency_ps(&S, 1, 12);
    simtime_ps m2 = f[3].finish_ps + sim_trigger_latency_ps(&S, 2, 12);
    assert_true(m1 < m2);
    assert_int_equal(f[4].start_ps, m1);
    simtime_ps late = f[5].finish_ps + sim_trigger_latency_ps(&S, 4, 12);
    assert_true(late > m2);
    assert_int_equal(f[6].start_ps, late);
    sim_free(&S);
}

/* sim_setup reads only the first n_class_opts of --class-opt's entries:
 * a config reused, or filled by a caller, may hold anything past them
 * (here an entry naming class 7, which this run's 2 classes lack, and a
 * queue smaller than a packet: either would be refused if it were read). */
static void test_class_opts_past_the_count_are_not_read(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n0->5 start 0 size 1000\n", ".cm");
    c.progress = false;
    c.n_class_opts = 0;
    c.class_opts[0].cls = 7;
    snprintf(c.class_opts[0].name, sizeof c.class_opts[0].name, "%s", "queue_bytes");
    c.class_opts[0].value = 1;
    sim_setup(&S, &c); /* a refusal exits 2 and fails the test */
    assert_int_equal(S.cfg.n_class_opts, 0);
    sim_free(&S);
}

/* ---- sim.c: a parallel run's window --------------------------------- */

/* sim_run_window skips the events of nodes another process owns
 * (node_remote[node], sim.h): with host 9 remote, the flow 9->3 never
 * starts here while 0->5 runs to its end, and the events run are
 * counted. */
static void test_window_skips_remote_nodes(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 2\n0->5 start 0 size 1000\n9->3 start 0 size 1000\n", ".cm");
    c.progress = false;
    c.end_ps = 2000 * PS_PER_US;
    sim_setup(&S, &c);
    uint32_t nodes = S.n_hosts + S.n_switches;
    uint8_t *remote = calloc(nodes, 1);
    assert_non_null(remote);
    remote[9] = 1;
    S.node_remote = remote;
    simtime_ps last_ps = 0;
    uint64_t n = sim_run_window(&S, c.end_ps, true, &last_ps);
    assert_true(n > 0);
    assert_int_equal(S.flows_finished, 1);
    assert_true(S.flows[0].finish_ps != SIMTIME_NEVER && S.flows[0].finish_ps <= last_ps);
    assert_true(S.flows[1].finish_ps == SIMTIME_NEVER);
    S.node_remote = NULL;
    free(remote);
    sim_free(&S);
}

/* ---- sim.c: an event's origin -------------------------------------- */

/* sim_event_origin (sim.h): the node whose state an event changes, + 1 (0
 * for the fabric's own events). A flow's start is its sender's; a host
 * timer and a --trigger-delay note, host id's; a GOAL event, its aux when
 * given (--goal-send-done path) else where it was scheduled (the seq's
 * origin bits, from ORIGIN_SHIFT 34); a PFC PAUSE or RESUME (aux = kind + 4
 * x class) the port's owner, the deadlock check where it was scheduled; a
 * transport timer scheduled at setup (origin 0) its flow's sender, others
 * where scheduled; a port's departure its owner's, a packet's arrival the
 * node it reaches. */
static void test_event_origins(void **st)
{
    (void)st;
    setup_only(NULL, 0, false); /* one connection, 0->5 */
    struct event e;
    memset(&e, 0, sizeof e);
    const uint64_t at7 = 7ULL << 34; /* scheduled at origin 7 (node 6) */
    e.kind = EV_FLOW_START;
    e.id = 0;
    assert_int_equal(sim_event_origin(&S, &e), 1 + 0);
    e.kind = EV_HOST_TIMER;
    e.id = 9;
    assert_int_equal(sim_event_origin(&S, &e), 10);
    e.kind = EV_TRIGGER;
    e.id = 3;
    assert_int_equal(sim_event_origin(&S, &e), 4);
    e.kind = EV_GOAL;
    e.seq = at7 + 5;
    e.aux = 12;
    assert_int_equal(sim_event_origin(&S, &e), 12);
    e.aux = 0;
    assert_int_equal(sim_event_origin(&S, &e), 7);
    /* port 10's owner, for a PAUSE and a RESUME of class 1 and 2; the
     * check at its scheduling origin */
    uint32_t owner = S.ports[10].owner_node;
    assert_true(owner != 6);
    e.kind = EV_PFC;
    e.id = 10;
    e.aux = PFC_AUX(PFC_PAUSE, 1);
    assert_int_equal(sim_event_origin(&S, &e), 1 + owner);
    e.aux = PFC_AUX(PFC_RESUME, 2);
    assert_int_equal(sim_event_origin(&S, &e), 1 + owner);
    e.aux = PFC_AUX(PFC_CHECK, 0);
    assert_int_equal(sim_event_origin(&S, &e), 7);
    e.aux = PFC_AUX(PFC_CHECK, 3);
    assert_int_equal(sim_event_origin(&S, &e), 7);
    e.kind = EV_TRANSPORT_TIMER;
    e.id = 0;
    e.aux = 0;
    e.seq = 5; /* origin 0: set at setup */
    assert_int_equal(sim_event_origin(&S, &e), 1 + 0);
    e.seq = at7 + 1;
    assert_int_equal(sim_event_origin(&S, &e), 7);
    /* sim_event_origin_other (sim.h, public) answers every kind, the two
     * sim_event_origin answers inline too: a port's departure is its
     * owner's, a packet's arrival the node it reaches */
    e.kind = EV_PORT_TX_DONE;
    e.id = 10;
    e.aux = 0;
    assert_int_equal(sim_event_origin_other(&S, &e), 1 + owner);
    assert_int_equal(sim_event_origin(&S, &e), 1 + owner);
    assert_true(S.pool.capacity > 0);
    uint32_t was = S.pool.pkts[0].node;
    S.pool.pkts[0].node = 6;
    e.kind = EV_PKT_ARRIVE;
    e.id = 0;
    assert_int_equal(sim_event_origin_other(&S, &e), 7);
    assert_int_equal(sim_event_origin(&S, &e), 7);
    S.pool.pkts[0].node = was;
    sim_free(&S);
}

/* ---- sim.c: sim_htsim_printf -------------------------------------------- */

static char g_line[1024];

static void keep_line(struct sim *s, const char *line)
{
    (void)s;
    snprintf(g_line, sizeof g_line, "%s", line);
}

/* Lines of 255 bytes fit the 256-byte buffer with its NUL; 256 and 300
 * take the allocated one of n + 1 bytes. Each must arrive whole. */
static void test_htsim_line_whole_at_the_buffer_edge(void **st)
{
    (void)st;
    struct sim s;
    memset(&s, 0, sizeof s);
    s.htsim_line = keep_line;
    const size_t lens[] = {255, 256, 300};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        char want[400];
        for (size_t i = 0; i < lens[k]; i++)
            want[i] = (char)('a' + i % 26);
        want[lens[k]] = '\0';
        g_line[0] = '\0';
        sim_htsim_printf(&s, "%s", want);
        if (strcmp(g_line, want) != 0)
            fail_msg("a %zu-byte line arrived as %zu bytes", lens[k], strlen(g_line));
    }
}

/* ---- metrics/outdir ----------------------------------------------------- */

static char g_tmp[256];
static char g_mounted[300]; /* a tmpfs of ours, unmounted by the teardown if a check failed first */

static void make_tmp(void)
{
    snprintf(g_tmp, sizeof g_tmp, "/tmp/spraysim-me2-%ld-XXXXXX", (long)getpid());
    assert_non_null(mkdtemp(g_tmp));
}

static void remove_tree(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
}

/* Reads a whole file (NUL-terminated; the caller frees), NULL if absent. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    assert_non_null(b);
    size_t r;
    while ((r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            b = realloc(b, cap + 1);
            assert_non_null(b);
        }
    }
    fclose(f);
    b[n] = '\0';
    if (len)
        *len = n;
    return b;
}

static const char *const ONE_NAME[] = {"one.bin", NULL};

/* --out DIR/new/z with DIR/new absent: the parent made is DIR/new (the
 * text before the last slash, outdir.c), and the set lands in DIR/new/z.
 * A one-letter last component is where a parent cut short would show. */
static void test_missing_parent_of_a_one_letter_name(void **st)
{
    (void)st;
    make_tmp();
    char dir[400], err[512] = "";
    snprintf(dir, sizeof dir, "%s/new/z", g_tmp);
    struct outdir *o = outdir_prepare(dir, ONE_NAME, err, sizeof err);
    if (!o)
        fail_msg("outdir_prepare(%s): %s", dir, err);
    assert_true(outdir_write(o, "one.bin", "x", 1, err, sizeof err));
    assert_true(outdir_commit(o, err, sizeof err));
    char path[500];
    snprintf(path, sizeof path, "%s/one.bin", dir);
    size_t n = 0;
    char *got = read_file(path, &n);
    if (!got)
        fail_msg("%s is missing", path);
    assert_int_equal(n, 1);
    free(got);
    DIR *d = opendir(g_tmp); /* only "new" was made beside it */
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            if (strcmp(e->d_name, "new"))
                fail_msg("%s holds '%s' besides 'new'", g_tmp, e->d_name);
    closedir(d);
    /* the same with a relative name, whose first directory is new too (no
     * existing directory is met on the way: each mkdir succeeds) */
    char cwd[400];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(g_tmp), 0);
    o = outdir_prepare("rel/z", ONE_NAME, err, sizeof err);
    bool made = o && outdir_write(o, "one.bin", "x", 1, err, sizeof err) && outdir_commit(o, err, sizeof err);
    bool there = access("rel/z/one.bin", F_OK) == 0;
    assert_int_equal(chdir(cwd), 0);
    if (!made || !there)
        fail_msg("--out rel/z from %s: %s", g_tmp, err);
    remove_tree(g_tmp);
}

/* A dead run's staging directory beside the target, .NAME.spraysim-HOST-
 * PID-XXXXXX, is removed by the next run's prepare (outdir.h). The PID is
 * read while it stays below INT_MAX: 2147483639 (its first nine digits,
 * 214748363, are below INT_MAX / 10) is a PID no process has (Linux's
 * pid_max is at most 2^22), so the directory is stale and goes. */
static void test_stale_staging_with_a_ten_digit_pid(void **st)
{
    (void)st;
    make_tmp();
    char host[64 + 1]; /* outdir.c STAGING_HOST_BYTES: a longer name is cut (or "host" when it fails) */
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "host");
    host[sizeof host - 1] = '\0';
    for (char *c = host; *c; c++) /* outdir.c host_tag: [A-Za-z0-9.] kept, else '_' */
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.'))
            *c = '_';
    char stale[700], file[800], dir[300], err[512] = "";
    snprintf(stale, sizeof stale, "%s/.set.spraysim-%s-2147483639-abcdef", g_tmp, host);
    assert_int_equal(mkdir(stale, 0755), 0);
    snprintf(file, sizeof file, "%s/one.bin", stale);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(dir, sizeof dir, "%s/set", g_tmp);
    struct outdir *o = outdir_prepare(dir, ONE_NAME, err, sizeof err);
    if (!o)
        fail_msg("outdir_prepare(%s): %s", dir, err);
    outdir_abort(o);
    if (access(stale, F_OK) == 0)
        fail_msg("%s stayed", stale);
    remove_tree(g_tmp);
}

/* Mounts a tmpfs (options as mount(2) takes them) on mnt, or false where
 * this process may not mount (not root, a container without it). */
static bool mount_tmpfs(const char *mnt, const char *opts)
{
    if (mount("spraysim-test", mnt, "tmpfs", 0, opts) != 0)
        return false;
    snprintf(g_mounted, sizeof g_mounted, "%s", mnt);
    return true;
}

/* Teardown of the tests that make a directory (make_tmp): the tmpfs
 * mounted there and the directory go even when a check failed half-way. */
static int unmount_and_remove(void **st)
{
    (void)st;
    if (g_mounted[0])
        (void)umount2(g_mounted, MNT_DETACH);
    g_mounted[0] = '\0';
    if (g_tmp[0])
        remove_tree(g_tmp);
    g_tmp[0] = '\0';
    return 0;
}

/* An empty directory DIR/m, prepared as --out (staging beside it), then a
 * tmpfs mounted on it during the "run": the commit finds a mount point it
 * cannot exchange and writes the set into it file by file (outdir.c).
 * NULL (skip) where this process may not mount. */
static struct outdir *prepare_then_mount(char *mnt, size_t len, const char *opts, char *err, size_t errlen)
{
    snprintf(mnt, len, "%s/m", g_tmp);
    assert_int_equal(mkdir(mnt, 0755), 0);
    struct outdir *o = outdir_prepare(mnt, ONE_NAME, err, errlen);
    if (!o)
        fail_msg("outdir_prepare(%s): %s", mnt, err);
    if (!mount_tmpfs(mnt, opts)) {
        outdir_abort(o);
        return NULL;
    }
    return o;
}

/* Into a directory that became a mount point during the run the set is
 * written in place, each file moved from the staging directory beside it:
 * across file systems, a copy (outdir.c copy_file). A 1-byte file is one write of 1 byte; one of
 * 65537 bytes is a full 65536-byte block and then 1 byte. Both arrive
 * whole. */
static void test_copy_into_a_mount_point(void **st)
{
    (void)st;
    const size_t sizes[] = {1, 65537};
    for (size_t k = 0; k < 2; k++) {
        make_tmp();
        char mnt[300], err[512] = "";
        struct outdir *o = prepare_then_mount(mnt, sizeof mnt, "size=1m", err, sizeof err);
        if (!o) {
            remove_tree(g_tmp);
            skip();
        }
        char *data = malloc(sizes[k]);
        assert_non_null(data);
        for (size_t i = 0; i < sizes[k]; i++)
            data[i] = (char)('A' + i % 23);
        assert_true(outdir_write(o, "one.bin", data, sizes[k], err, sizeof err));
        if (!outdir_commit(o, err, sizeof err))
            fail_msg("a %zu-byte file into a mount point: %s", sizes[k], err);
        char path[400];
        snprintf(path, sizeof path, "%s/one.bin", mnt);
        size_t n = 0;
        char *got = read_file(path, &n);
        assert_non_null(got);
        assert_int_equal(n, sizes[k]);
        assert_memory_equal(got, data, sizes[k]);
        free(got);
        free(data);
        unmount_and_remove(NULL);
    }
}

/* The copy opens its source with whatever descriptor is free, and with
 * standard input closed (a batch system or a daemon may start the run so)
 * that is descriptor 0: a valid one, not a failure (open() fails with -1).
 * The commit across file systems still arrives whole. */
static void test_copy_with_standard_input_closed(void **st)
{
    (void)st;
    make_tmp();
    char mnt[300], err[512] = "";
    struct outdir *o = prepare_then_mount(mnt, sizeof mnt, "size=1m", err, sizeof err);
    if (!o) {
        remove_tree(g_tmp);
        skip();
    }
    assert_true(outdir_write(o, "one.bin", "0123456789", 10, err, sizeof err));
    int saved_stdin = dup(0);
    assert_true(saved_stdin > 0);
    assert_int_equal(close(0), 0);
    bool committed = outdir_commit(o, err, sizeof err);
    assert_int_equal(dup2(saved_stdin, 0), 0);
    close(saved_stdin);
    if (!committed)
        fail_msg("the commit with standard input closed: %s", err);
    char path[400];
    snprintf(path, sizeof path, "%s/one.bin", mnt);
    size_t n = 0;
    char *got = read_file(path, &n);
    assert_non_null(got);
    assert_int_equal(n, 10);
    assert_memory_equal(got, "0123456789", 10);
    free(got);
    unmount_and_remove(NULL);
}

/* In place, the set replaces the target's files one by one: a file of
 * the set this run did not write goes (an older run's), summary.json
 * comes (outdir.h: written last), and a file spraysim did not write put
 * in during the run stays (outdir.h). */
static void test_in_place_replaces_the_old_set(void **st)
{
    (void)st;
    static const char *const names[] = {"one.bin", "summary.json", NULL};
    make_tmp();
    char mnt[300], err[512] = "";
    snprintf(mnt, sizeof mnt, "%s/m", g_tmp);
    assert_int_equal(mkdir(mnt, 0755), 0);
    struct outdir *o = outdir_prepare(mnt, names, err, sizeof err);
    if (!o)
        fail_msg("outdir_prepare(%s): %s", mnt, err);
    if (!mount_tmpfs(mnt, "size=1m")) {
        outdir_abort(o);
        remove_tree(g_tmp);
        skip();
    }
    char path[400], keep[400];
    snprintf(path, sizeof path, "%s/one.bin", mnt);
    FILE *f = fopen(path, "w"); /* an older run's file, in the mount */
    assert_non_null(f);
    fputs("old\n", f);
    fclose(f);
    snprintf(keep, sizeof keep, "%s/notes.txt", mnt);
    f = fopen(keep, "w");
    assert_non_null(f);
    fputs("keep\n", f);
    fclose(f);
    assert_true(outdir_write(o, "summary.json", "{}\n", 3, err, sizeof err));
    if (!outdir_commit(o, err, sizeof err))
        fail_msg("commit in place: %s", err);
    assert_int_equal(access(path, F_OK), -1); /* the old set's file is gone */
    snprintf(path, sizeof path, "%s/summary.json", mnt);
    char *got = read_file(path, NULL);
    assert_non_null(got);
    assert_string_equal(got, "{}\n");
    free(got);
    got = read_file(keep, NULL);
    assert_non_null(got);
    assert_string_equal(got, "keep\n");
    free(got);
    unmount_and_remove(NULL);
}

/* A commit that fails (the mount point too small for the file: the copy
 * into it fails) leaves the
 * run's files in the staging directory renamed "<staging>.kept", and the
 * error names that directory (outdir.h). */
static void test_failed_commit_keeps_staging(void **st)
{
    (void)st;
    make_tmp();
    char mnt[300], err[1024] = "";
    struct outdir *o = prepare_then_mount(mnt, sizeof mnt, "size=16k", err, sizeof err);
    if (!o) {
        remove_tree(g_tmp);
        skip();
    }
    size_t big = 1 << 20;
    char *data = calloc(big, 1);
    assert_non_null(data);
    if (!outdir_write(o, "one.bin", data, big, err, sizeof err))
        fail_msg("write: %s", err);
    assert_false(outdir_commit(o, err, sizeof err));
    const char *at = strstr(err, "; this run's outputs are kept in ");
    if (!at)
        fail_msg("the error does not say where the outputs are: %s", err);
    const char *kept = at + strlen("; this run's outputs are kept in ");
    size_t kl = strlen(kept);
    /* beside the target, a staging name, ".kept" at the end */
    assert_true(kl > strlen(g_tmp) + 6);
    assert_memory_equal(kept, g_tmp, strlen(g_tmp));
    assert_string_equal(kept + kl - 5, ".kept");
    char path[1100];
    snprintf(path, sizeof path, "%s/one.bin", kept);
    size_t n = 0;
    char *got = read_file(path, &n);
    if (!got)
        fail_msg("%s is missing", path);
    assert_int_equal(n, big);
    free(got);
    free(data);
    unmount_and_remove(NULL);
}

/* A bind mount (the same file system: only /proc/self/mountinfo tells it
 * is a mount point) whose name holds a space, which mountinfo writes as
 * \040 (the kernel escapes space, tab, newline and backslash as three
 * octal digits): decoded, it is recognised as a mount point and written
 * into in place, keeping the file it already holds; not decoded, it would
 * be refused as a directory holding a file spraysim did not write. */
static void test_bind_mount_named_with_a_space(void **st)
{
    (void)st;
    make_tmp();
    char src[300], mnt[300], err[512] = "";
    snprintf(src, sizeof src, "%s/src", g_tmp);
    snprintf(mnt, sizeof mnt, "%s/b ind", g_tmp);
    assert_int_equal(mkdir(src, 0755), 0);
    assert_int_equal(mkdir(mnt, 0755), 0);
    char notes[400];
    snprintf(notes, sizeof notes, "%s/notes.txt", src);
    FILE *f = fopen(notes, "w");
    assert_non_null(f);
    fputs("keep\n", f);
    fclose(f);
    if (mount(src, mnt, NULL, MS_BIND, NULL) != 0) {
        remove_tree(g_tmp);
        skip();
    }
    snprintf(g_mounted, sizeof g_mounted, "%s", mnt);
    struct outdir *o = outdir_prepare(mnt, ONE_NAME, err, sizeof err);
    if (!o)
        fail_msg("a bind mount named with a space: %s", err);
    assert_true(outdir_write(o, "one.bin", "x", 1, err, sizeof err));
    assert_true(outdir_commit(o, err, sizeof err));
    char path[400];
    snprintf(path, sizeof path, "%s/one.bin", src);
    size_t n = 0;
    char *got = read_file(path, &n);
    assert_non_null(got);
    assert_int_equal(n, 1);
    free(got);
    got = read_file(notes, NULL);
    assert_non_null(got);
    assert_string_equal(got, "keep\n");
    free(got);
    unmount_and_remove(NULL);
}

/* ---- metrics/vcollect: the sketch's last bucket --------------------------- */

/* The sketch's buckets are [1e-9 x 1.002^b, 1e-9 x 1.002^(b+1)) for b up
 * to 23999, the last also holding every larger value (vcollect.c
 * VC_BUCKETS, VC_MIN, VC_GAMMA); a percentile answers its bucket's
 * midpoint (capped at the largest value). Of {1, 1e12, 1e12} the median
 * is a 1e12, beyond the last bucket's start (about 6.7e11): it must come
 * back inside that bucket, not the one before. */
static void test_sketch_clamps_to_the_last_bucket(void **st)
{
    (void)st;
    struct vcollect c;
    vc_init(&c, true);
    vc_add(&c, 1.0);
    vc_add(&c, 1e12);
    vc_add(&c, 1e12);
    double lo = 1e-9 * pow(1.002, 23999), hi = lo * 1.002;
    double p = vc_percentile(&c, 50);
    if (!(p >= lo && p < hi))
        fail_msg("median %.6g: not in the last bucket [%.6g, %.6g)", p, lo, hi);
    assert_true(vc_percentile(&c, 100) == 1e12); /* the largest, exactly */
    vc_free(&c);
}

/* ---- metrics/report: the ideal FCT ------------------------------------------ */

/* ideal_delivery_ps and ideal_fct_ps (report.h: line rate at the host,
 * store-and-forward at each hop, the ACK's return), by hand at the
 * defaults (100 Gb/s everywhere: 80 ps a byte; 1 us links) with
 * -switch_latency 0.3 us, on the 16-host fat tree (2 hosts a switch, 4 a
 * pod): 0->1 is 2 hops, 0->2 4, 0->4 6. A 1000-byte message is one packet
 * of 1064 bytes on the wire (64 of header): 85120 ps at the NIC and again
 * at each later hop; the one-way latency is 2 x 1 us + 0.3 us at 2 hops,
 * 4 x 1 us + 3 x 0.3 us at 4, 6 x 1 us + 5 x 0.3 us at 6. The ACK (64
 * bytes: 5120 ps a hop) comes back the same way. A 10000-byte message is
 * 3 packets (MSS 4086), the last of 1828 + 64 bytes: at 2 hops the full
 * packet before it arrives last, at 815360 - 151360 + 332000 ps. */
static void test_ideal_fct_by_hand(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 4\n0->1 start 0 size 1000\n0->2 start 0 size 1000\n"
                          "0->4 start 0 size 1000\n0->1 start 0 size 10000\n",
                          ".cm");
    c.progress = false;
    c.switch_latency_ps = 300000;
    sim_setup(&S, &c);
    assert_int_equal(topo_hops(&S.topo, 0, 1), 2);
    assert_int_equal(topo_hops(&S.topo, 0, 2), 4);
    assert_int_equal(topo_hops(&S.topo, 0, 4), 6);
    const simtime_ps ser = 85120, ack = 5120;
    const simtime_ps lat2 = 2300000, lat4 = 4900000, lat6 = 7500000;
    assert_int_equal(ideal_delivery_ps(&S, &S.flows[0]), ser + ser + lat2);
    assert_int_equal(ideal_fct_ps(&S, &S.flows[0]), ser + ser + lat2 + ack + ack + lat2);
    assert_int_equal(ideal_delivery_ps(&S, &S.flows[1]), ser + 3 * ser + lat4);
    assert_int_equal(ideal_fct_ps(&S, &S.flows[1]), ser + 3 * ser + lat4 + ack + 3 * ack + lat4);
    assert_int_equal(ideal_delivery_ps(&S, &S.flows[2]), ser + 5 * ser + lat6);
    assert_int_equal(ideal_fct_ps(&S, &S.flows[2]), ser + 5 * ser + lat6 + ack + 5 * ack + lat6);
    assert_int_equal(ideal_delivery_ps(&S, &S.flows[3]), 815360 - 151360 + 332000 + lat2);
    sim_free(&S);
}

/* ---- metrics/report: the summary on stdout ----------------------------- */

/* report_stdout's text for a run of the matrix tm cut at 5 us (--stream
 * on or off). */
static char *stdout_of_tm(const char *tm, bool stream)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(tm, ".cm");
    c.progress = false;
    c.end_ps = 5 * PS_PER_US;
    c.stream = stream ? 1 : 0;
    sim_setup(&S, &c);
    if (stream)
        flowstream_setup(&S, NULL);
    sim_run(&S);
    if (stream)
        assert_true(flowstream_close(&S));
    struct run_stats r;
    report_collect(&S, 0, &r);
    fflush(stdout);
    char path[] = "/tmp/spraysim-me2-stdout-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    int saved = dup(1);
    assert_true(saved >= 0);
    assert_true(dup2(fd, 1) == 1);
    report_stdout(&S, &r);
    fflush(stdout);
    assert_true(dup2(saved, 1) == 1);
    close(saved);
    close(fd);
    char *text = read_file(path, NULL);
    unlink(path);
    assert_non_null(text);
    sim_free(&S);
    return text;
}

/* The flows line names the first ten unfinished messages by id in message
 * order, then " ..." when there are more (report.c). */
static void test_stdout_names_ten_unfinished(void **st)
{
    (void)st;
    const struct {
        uint32_t conns;
        const char *want;
    } cases[] = {
        {9, "flows: 0 of 9 finished (9 unfinished at 5.0 us: 1 2 3 4 5 6 7 8 9)\n"},
        {10, "flows: 0 of 10 finished (10 unfinished at 5.0 us: 1 2 3 4 5 6 7 8 9 10)\n"},
        {11, "flows: 0 of 11 finished (11 unfinished at 5.0 us: 1 2 3 4 5 6 7 8 9 10 ...)\n"},
        {13, "flows: 0 of 13 finished (13 unfinished at 5.0 us: 1 2 3 4 5 6 7 8 9 10 ...)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        /* `conns` messages of 1 MB from host i to host 15 - i, at t = 0 */
        char tm[2048];
        int at = snprintf(tm, sizeof tm, "Nodes 16\nConnections %u\n", cases[k].conns);
        for (uint32_t i = 0; i < cases[k].conns; i++)
            at += snprintf(tm + at, sizeof tm - (size_t)at, "%u->%u start 0 size 1000000\n", i, 15 - i);
        char *text = stdout_of_tm(tm, false);
        if (!strstr(text, cases[k].want))
            fail_msg("%u unfinished: want the line\n%sin\n%s", cases[k].conns, cases[k].want, text);
        free(text);
    }
    /* --stream: message 1 finishes by 3 us and message 13, starting then,
     * takes its slot, the first: the slots hold 13, 2, 3, ..., 12, and the
     * line still names 2 to 11, the first ten in message order */
    char tm[2048];
    int at = snprintf(tm, sizeof tm, "Nodes 16\nConnections 13\n0->1 start 0 size 1000\n");
    for (uint32_t i = 2; i <= 12; i++)
        at += snprintf(tm + at, sizeof tm - (size_t)at, "%u->%u start 0 size 1000000\n", i, 15 - i);
    snprintf(tm + at, sizeof tm - (size_t)at, "14->0 start 3 size 1000000\n");
    char *text = stdout_of_tm(tm, true);
    const char *want = "flows: 1 of 13 finished (12 unfinished at 5.0 us: 2 3 4 5 6 7 8 9 10 11 ...)\n";
    if (!strstr(text, want))
        fail_msg("--stream: want the line\n%sin\n%s", want, text);
    free(text);
}

/* ---- metrics/report: switches.csv ------------------------------------------ */

/* The ports column of switches.csv is the switch's ports, down and up:
 * the ports of the fabric whose owner is that node, counted here from the
 * port array rather than from the switch's own n_down and n_up. */
static void test_switches_csv_counts_every_port(void **st)
{
    (void)st;
    setup_run("Nodes 16\nConnections 1\n0->5 start 0 size 1000\n", false, true);
    struct run_stats r;
    report_collect(&S, 0, &r);
    make_tmp();
    char dir[300];
    snprintf(dir, sizeof dir, "%s/out", g_tmp);
    report_write_files(&S, &r, dir);
    char path[400];
    snprintf(path, sizeof path, "%s/switches.csv", dir);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    char *line = strtok(text, "\n");
    assert_non_null(line);
    assert_int_equal(strncmp(line, "node,kind,index,ports,", 22), 0);
    uint32_t rows = 0, with_up = 0;
    while ((line = strtok(NULL, "\n"))) {
        unsigned node = 0, index = 0, ports = 0;
        char kind[32];
        if (sscanf(line, "%u,%31[^,],%u,%u,", &node, kind, &index, &ports) != 4)
            fail_msg("switches.csv row: %s", line);
        uint32_t owned = 0;
        for (uint32_t p = 0; p < S.n_ports; p++)
            owned += S.ports[p].owner_node == node;
        if (ports != owned)
            fail_msg("switch %u: ports %u, but it owns %u ports", node, ports, owned);
        const struct switch_node *sw = &S.switches[node - S.n_hosts];
        with_up += sw->n_up > 0;
        /* the whole row: node, tier, index in it, ports, peak and mean
         * buffered bytes (the integral over the run's time, one decimal) */
        char want[256];
        const char *tiers[] = {"tor", "agg", "core"};
        snprintf(want, sizeof want, "%u,%s,%u,%u,%llu,%.1f", S.n_hosts + rows, tiers[sw->tier], sw->index_in_tier,
                 owned, (unsigned long long)sw->peak_buffered_bytes, sw->buffered_byte_ps / (double)S.now);
        if (strcmp(line, want))
            fail_msg("switches.csv: %s, want %s", line, want);
        rows++;
    }
    assert_int_equal(rows, S.n_switches);
    assert_true(with_up > 0); /* the check covers switches with up ports */
    free(text);
    remove_tree(g_tmp);
    sim_free(&S);
}

/* ---- whole runs with every output, under malloc checking ----------------- */

/* Counts the lines of a file (0 if absent). */
static uint32_t lines_of(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *t = read_file(path, NULL);
    if (!t)
        return 0;
    uint32_t n = 0;
    for (const char *c = t; *c; c++)
        n += *c == '\n';
    free(t);
    return n;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* report_collect against the flows themselves (report.h run_stats): a
 * finished message's FCT is finish - posted, a started unfinished one's
 * now - posted (a lower bound), one never started has none; the median
 * and p99 are nearest ranks of the sorted FCTs, the mean their sum over
 * their count; drops, trims and marks are the ports' sums. */
static void check_collect(const struct sim *s, const struct run_stats *r)
{
    double v[64];
    uint32_t n = 0, done = 0, unfinished = 0, not_started = 0;
    double sum = 0, max = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct flow *f = &s->flows[i];
        simtime_ps fct;
        if (f->state == FLOW_DONE) {
            fct = f->finish_ps - f->posted_ps;
            done++;
        } else if (f->posted) {
            fct = s->now - f->posted_ps;
            unfinished++;
        } else {
            not_started++;
            continue;
        }
        assert_true(n < 64);
        v[n++] = (double)fct / 1e6;
        sum += (double)fct;
        max = v[n - 1] > max ? v[n - 1] : max;
    }
    qsort(v, n, sizeof v[0], cmp_dbl);
    assert_int_equal(r->finished, done);
    assert_int_equal(r->fct_unfinished, unfinished);
    assert_int_equal(r->not_started, not_started);
    assert_int_equal(r->fct_n, n);
    assert_true(n > 0);
    assert_true(r->fct_median_us == v[(n + 1) / 2 - 1]);            /* rank ceil(0.5 n) */
    assert_true(r->fct_p99_us == v[(uint32_t)ceil(0.99 * n) - 1]);
    assert_true(r->fct_max_us == max);
    assert_true(fabs(r->fct_mean_us - sum / n / 1e6) < 1e-9 * r->fct_mean_us);
    uint64_t drops = 0, trims = 0, marks = 0;
    for (uint32_t i = 0; i < s->n_ports; i++) {
        drops += s->ports[i].st.drops;
        trims += s->ports[i].st.trims;
        marks += s->ports[i].st.ecn_marks;
    }
    assert_int_equal(r->drops, drops);
    assert_int_equal(r->trims, trims);
    assert_int_equal(r->ecn_marks, marks);
    assert_int_equal(r->data_drops, s->tot.data_drops);
}

/* Every line of a CSV file has as many fields as its header, and the
 * header starts with `head` (docs/outputs.md's columns). */
static void check_csv(const char *dir, const char *name, const char *head, const char *tail)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *t = read_file(path, NULL);
    if (!t)
        fail_msg("%s is missing", path);
    if (strncmp(t, head, strlen(head)))
        fail_msg("%s's header is not %s...", name, head);
    char *nl = strchr(t, '\n');
    assert_non_null(nl);
    if (tail && (size_t)(nl - t) >= strlen(tail) && strncmp(nl - strlen(tail), tail, strlen(tail)))
        fail_msg("%s's header does not end with %s", name, tail);
    unsigned want = 0, got = 0;
    for (const char *c = t; c < nl; c++)
        want += *c == ',';
    for (const char *c = nl + 1; *c; c++) {
        if (*c == ',')
            got++;
        else if (*c == '\n') {
            if (got != want)
                fail_msg("%s: a row with %u commas under a header with %u", name, got, want);
            got = 0;
        }
    }
    free(t);
}

/* queues.csv, field by field against the ports (docs/outputs.md): port,
 * node, its kind, peer, its kind, direction, rate in Gb/s, limit (0 for
 * a host's NIC), packets and bytes sent, peak and mean occupancy (the
 * integral over the run's time, one decimal), marks, trims, bounces,
 * drops, failure drops, and per data class from 2 its peak and mean. */
static void check_queues_csv(const struct sim *s, const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/queues.csv", dir);
    char *t = read_file(path, NULL);
    assert_non_null(t);
    char *save = NULL, *line = strtok_r(t, "\n", &save);
    assert_non_null(line);
    double dur = (double)s->now;
    uint32_t rows = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        const struct port *p = &s->ports[rows];
        char want[512], kind[2][8];
        for (int e = 0; e < 2; e++) {
            uint32_t node = e ? p->peer_node : p->owner_node;
            /* a two-tier fabric's top is a spine (docs/outputs.md) */
            const char *tiers[] = {"tor", s->topo.spec.tiers == 2 ? "spine" : "agg", "core"};
            snprintf(kind[e], sizeof kind[e], "%s",
                     node < s->n_hosts ? "host" : tiers[s->switches[node - s->n_hosts].tier]);
        }
        int at = snprintf(want, sizeof want, "%u,%u,%s,%u,%s,%s,%g,%u,%llu,%llu,%u,%.1f,%llu,%llu,%llu,%llu,%llu", rows,
                          p->owner_node, kind[0], p->peer_node, kind[1], p->up ? "up" : "down", p->rate_mbps / 1000.0,
                          (p->flags & PORTF_HOST_NIC) ? 0 : p->data_limit_bytes,
                          (unsigned long long)p->st.tx_packets, (unsigned long long)p->st.tx_bytes, p->st.peak_bytes,
                          p->st.occupancy_byte_ps / dur, (unsigned long long)p->st.ecn_marks,
                          (unsigned long long)p->st.trims, (unsigned long long)p->st.bounces,
                          (unsigned long long)p->st.drops, (unsigned long long)p->st.failure_drops);
        for (uint32_t k = 2; k < s->cfg.n_classes; k++)
            at += snprintf(want + at, sizeof want - (size_t)at, ",%u,%.1f", p->x ? p->x->c[k - 2].peak_bytes : 0,
                           p->x ? p->x->c[k - 2].occupancy_byte_ps / dur : 0.0);
        if (strcmp(line, want))
            fail_msg("queues.csv row %u:\n%s\nwant\n%s", rows, line, want);
        rows++;
    }
    assert_int_equal(rows, s->n_ports);
    free(t);
}

/* A run as cli/main.c makes one (without MPI): --out prepared first, the
 * time series attached to it, --stream's flows.csv, then the set
 * committed. Each buffer the outputs are built in is freed, so a write past
 * one (a size computed one short) aborts under malloc checking; the line
 * counts are checked against the run. */
static void whole_run(const char *const *args, int nargs, bool streamed, char **flows_csv)
{
    char *argv[40];
    int argc = 0;
    argv[argc++] = (char *)"spraysim";
    for (int i = 0; i < nargs; i++)
        argv[argc++] = (char *)args[i];
    make_tmp();
    char dir[300];
    snprintf(dir, sizeof dir, "%s/out", g_tmp);
    argv[argc++] = (char *)"--out";
    argv[argc++] = dir;
    argv[argc++] = (char *)"--quiet";
    struct config c;
    char err[512];
    if (options_parse(&c, argc, argv, err, sizeof err) != OPTIONS_RUN)
        fail_msg("options: %s", err);
    c.progress = false;
    struct report_out *out = report_out_prepare(c.out_dir);
    sim_setup(&S, &c);
    if (c.stream == 1 || (c.stream < 0 && (S.poisson || S.goal)))
        flowstream_setup(&S, report_out_path(out, "flows.csv"));
    assert_true((S.fstream != NULL) == streamed);
    report_out_attach_ts(out, &S);
    sim_run(&S);
    if (S.fstream)
        assert_true(flowstream_close(&S));
    assert_true(ts_finish(&S, err, sizeof err));
    struct run_stats r;
    report_collect(&S, 0, &r);
    if (!streamed)
        check_collect(&S, &r);
    report_out_commit(out, &S, &r);
    /* flows.csv: a header and a row per message; switches.csv: one per switch */
    assert_int_equal(lines_of(dir, "flows.csv"), S.n_msgs + 1);
    if (c.switch_stats)
        assert_int_equal(lines_of(dir, "switches.csv"), S.n_switches + 1);
    if (S.ts) {
        struct ts_totals tt;
        ts_totals(S.ts, &tt);
        const char *names[3] = {"ts_flows.csv", "ts_ports.csv", "ts_hosts.csv"};
        const uint64_t rows[3] = {tt.rows_flows, tt.rows_ports, tt.rows_hosts};
        /* the ports' columns: one per data class from 2 (queues.csv's too) */
        char cls[64] = "";
        for (uint32_t k = 2, at = 0; k < c.n_classes; k++)
            at += (uint32_t)snprintf(cls + at, sizeof cls - at, ",data_bytes_c%u", k);
        check_csv(dir, "ts_ports.csv", "time_us,port,data_bytes,ctl_bytes,tx_bytes,ecn_marks,trims,drops", cls);
        check_csv(dir, "ts_flows.csv", "time_us,flow_id,", "cwnd_bytes,rate_gbps,rtt_us,delivered_bytes,in_flight_bytes");
        check_csv(dir, "ts_hosts.csv", "time_us,host,delivered_bytes,goodput_gbps", NULL);
        check_csv(dir, "flows.csv", "", NULL);
        check_csv(dir, "queues.csv", "", NULL);
        check_queues_csv(&S, dir);
        for (unsigned k = 0; k < 3; k++) {
            assert_true(ts_file_selected(S.ts, k));
            assert_true(rows[k] > 0);
            assert_int_equal(lines_of(dir, names[k]), rows[k] + 1); /* and the header */
        }
    }
    if (flows_csv) {
        char path[600];
        snprintf(path, sizeof path, "%s/flows.csv", dir);
        *flows_csv = read_file(path, NULL);
        assert_non_null(*flows_csv);
    }
    sim_free(&S);
    options_free(&c);
    remove_tree(g_tmp);
}

static void test_whole_runs_under_malloc_checking(void **st)
{
    (void)st;
    const char *cm = temp_file("Nodes 16\nConnections 4\n0->5 start 0 size 300000\n9->5 start 0 size 300000\n"
                               "2->5 start 3 size 200000 priority 2\n7->12 start 1 size 50000\n",
                               ".cm");
    /* sampled every 2 us: every flow, port and host; three classes; --switch-stats */
    const char *a[] = {"-tm", cm, "--classes", "3", "--switch-stats", "--ts-flows", "all", "--ts-ports", "all",
                       "--ts-hosts", "all", "--ts-interval", "2", "-end", "200"};
    whole_run(a, (int)(sizeof a / sizeof a[0]), false, NULL);
    /* cut at 20 us: messages unfinished (counted to the end) and one never started */
    const char *cut_cm = temp_file("Nodes 16\nConnections 4\n0->5 start 0 size 300000\n9->5 start 0 size 300000\n"
                                   "7->12 start 1 size 5000\n2->6 start 30 size 1000\n",
                                   ".cm");
    const char *cut[] = {"-tm", cut_cm, "--ts-flows", "all", "--ts-ports", "all", "--ts-hosts", "all", "-end", "20"};
    whole_run(cut, (int)(sizeof cut / sizeof cut[0]), false, NULL);
    /* every change in a window, four classes, flows.csv streamed */
    const char *b[] = {"-tm", cm, "--classes", "4", "--stream", "on", "--ts-flows", "1-3", "--ts-ports", "0-20", "--ts-hosts", "5",
                       "--ts-interval", "change", "--ts-window", "2:30", "-end", "40"};
    char *streamed_csv, *plain_csv;
    whole_run(b, (int)(sizeof b / sizeof b[0]), true, &streamed_csv);
    /* --stream changes memory, not the output (docs: same output either way) */
    b[5] = "off";
    whole_run(b, (int)(sizeof b / sizeof b[0]), false, &plain_csv);
    assert_string_equal(streamed_csv, plain_csv);
    free(streamed_csv);
    free(plain_csv);
    /* open loop: Poisson arrivals, streamed by default, slots recycled */
    char wl[600];
    snprintf(wl, sizeof wl, "poisson:cdf=%s,load=0.3,n=8", shared_path("workloads/websearch.cdf"));
    const char *p[] = {"--workload", wl, "-tiers", "2", "--ts-flows", "all", "--ts-ports", "all", "--ts-hosts", "all",
                       "--ts-interval", "5", "-end", "60"};
    whole_run(p, (int)(sizeof p / sizeof p[0]), true, NULL);
}

/* Runs the program again under glibc's malloc checking (see the top). */
int main(int argc, char **argv)
{
    (void)argc;
    malloc_check_reexec(argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_htsim_line_whole_at_the_buffer_edge),
        cmocka_unit_test(test_config_defaults_as_cited),
        cmocka_unit_test(test_two_workloads_refused),
        cmocka_unit_test(test_node_count_limit),
        cmocka_unit_test(test_progress_line_wall_seconds),
        cmocka_unit_test(test_trigger_index_prefix_sums),
        cmocka_unit_test(test_tie_order_and_lookahead),
        cmocka_unit_test(test_goal_default_fat_tree_size),
        cmocka_unit_test(test_unknown_transport_is_named),
        cmocka_unit_test(test_dupack_threshold_defaults_to_three),
        cmocka_unit_test(test_default_queue_rounds_the_bdp_up),
        cmocka_unit_test(test_trigger_latency_per_hop),
        cmocka_unit_test(test_trigger_delay_by_type),
        cmocka_unit_test(test_first_and_last_host_activate_triggers),
        cmocka_unit_test(test_multishot_past_its_waiters_starts_no_one_else),
        cmocka_unit_test(test_class_opts_past_the_count_are_not_read),
        cmocka_unit_test(test_window_skips_remote_nodes),
        cmocka_unit_test(test_event_origins),
        cmocka_unit_test_teardown(test_missing_parent_of_a_one_letter_name, unmount_and_remove),
        cmocka_unit_test_teardown(test_stale_staging_with_a_ten_digit_pid, unmount_and_remove),
        cmocka_unit_test_teardown(test_copy_into_a_mount_point, unmount_and_remove),
        cmocka_unit_test_teardown(test_copy_with_standard_input_closed, unmount_and_remove),
        cmocka_unit_test_teardown(test_in_place_replaces_the_old_set, unmount_and_remove),
        cmocka_unit_test_teardown(test_failed_commit_keeps_staging, unmount_and_remove),
        cmocka_unit_test_teardown(test_bind_mount_named_with_a_space, unmount_and_remove),
        cmocka_unit_test(test_sketch_clamps_to_the_last_bucket),
        cmocka_unit_test(test_ideal_fct_by_hand),
        cmocka_unit_test(test_stdout_names_ten_unfinished),
        cmocka_unit_test_teardown(test_switches_csv_counts_every_port, unmount_and_remove),
        cmocka_unit_test_teardown(test_whole_runs_under_malloc_checking, unmount_and_remove),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
