/* test_roce.c: lossless RoCEv2. DCQCN's rate schedule step by step against
 * its closed form; PFC's thresholds, the link latency a PAUSE takes, paused
 * switch ports and NICs starting no data, the deadlock detector on a
 * hand-built cycle of paused ports; the RoCE receiver's ACK, NACK and CNP
 * rules, the sender's pacing, go-back-N and selective repeat; end to end,
 * the reference's 2-to-1 and incast tails within 10% with nothing dropped,
 * and DCQCN keeping a 2-to-1 bottleneck at least 90% busy; a mixed fabric
 * (RoCE lossless in class 2, UET lossy in class 1, class DRR between them).
 */
#include "testutil.h"

#include "cc/cc.h"
#include "lb/lb.h"
#include "net/pfc.h"
#include "sim.h"
#include "transport/roce.h"
#include "simtest.h"
#include "transport/dcqcn.h"
#include "transport/flow.h"
#include "transport/transport.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static struct sim S;

struct run_opts {
    int8_t pfc;          /* -1 default */
    uint32_t dcqcn_k;
    uint32_t queue_pkts;
    bool selective;
    uint32_t classes;    /* --classes; 0 = default */
};

static void setup(const char *tm, double end_us, const struct run_opts *o)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = tm;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.progress = false;
    c.transport_name = "roce";
    c.paths = 1;
    c.lb_name = "single";
    c.pfc_flag = o->pfc;
    if (o->dcqcn_k) {
        char k[16];
        snprintf(k, sizeof k, "%u", o->dcqcn_k);
        config_add_flag(&c, "-dcqcn", k, NULL);
    }
    c.queue_pkts = o->queue_pkts;
    if (o->selective)
        config_add_flag(&c, "-out_of_order", NULL, NULL);
    if (o->classes)
        c.n_classes = o->classes;
    sim_setup(&S, &c);
}

static const struct run_opts DEFAULT = {.pfc = -1};

/* ---- DCQCN's schedule ----------------------------------------------------------------- */

#define LINE 100000.0

/* One CNP at line rate with alpha = 1: RT = line, RC = line/2, alpha stays
 * 1; timer stages 1 .. F-1 are fast recovery, whose closed form from RC0
 * towards RT is RT - (RT - RC0) / 2^k; stage F is additive increase, RT
 * capped at the line rate. */
static void test_dcqcn_rate_after_one_cnp(void **st)
{
    (void)st;
    struct dcqcn_state d;
    dcqcn_init(&d, LINE);
    assert_true(d.rc_mbps == LINE && d.rt_mbps == LINE && d.alpha == 1.0);
    dcqcn_on_cnp(&d);
    assert_true(fabs(d.rc_mbps - LINE / 2) < 1e-9);
    assert_true(d.rt_mbps == LINE);
    assert_true(fabs(d.alpha - ((1 - DCQCN_G) * 1.0 + DCQCN_G)) < 1e-12);
    for (uint32_t k = 1; k < DCQCN_F; k++) {
        dcqcn_increase_timer(&d);
        double expect = LINE - (LINE - LINE / 2) / pow(2, k);
        if (fabs(d.rc_mbps - expect) > 1e-6)
            fail_msg("fast recovery stage %u: RC %.6f, closed form %.6f", k, d.rc_mbps, expect);
        assert_true(d.rt_mbps == LINE);
    }
    /* stage F: additive increase, RT capped at the line rate */
    double rc = d.rc_mbps;
    dcqcn_increase_timer(&d);
    assert_true(d.rt_mbps == LINE);
    assert_true(fabs(d.rc_mbps - (LINE + rc) / 2) < 1e-6);
}

/* Two CNPs bring RT below the line so additive and hyper increase show:
 * after the second CNP RT = L/2, RC = L/4 (alpha is still 1). Stages 1..4
 * fast recovery towards L/2; timer stages 5.. add L/20 each while the byte
 * stage is 0; once both stages pass F, hyper increase adds
 * (min stage - F) x L/10. */
static void test_dcqcn_additive_and_hyper_increase(void **st)
{
    (void)st;
    struct dcqcn_state d;
    dcqcn_init(&d, LINE);
    dcqcn_on_cnp(&d);
    dcqcn_on_cnp(&d);
    assert_true(fabs(d.rt_mbps - LINE / 2) < 1e-9);
    assert_true(fabs(d.rc_mbps - LINE / 4) < 1e-9);
    double rt = LINE / 2, rc = LINE / 4;
    for (uint32_t k = 1; k <= 7; k++) {
        dcqcn_increase_timer(&d);
        if (k >= DCQCN_F)
            rt += LINE * DCQCN_AI_FRACTION;
        rc = (rt + rc) / 2;
        if (fabs(d.rt_mbps - rt) > 1e-6 || fabs(d.rc_mbps - rc) > 1e-6)
            fail_msg("timer stage %u: RT %.3f RC %.3f, expected %.3f %.3f", k, d.rt_mbps, d.rc_mbps, rt, rc);
    }
    /* byte stages 1..6: min(T=7, BC) passes F only at BC = 6 */
    for (uint32_t b = 1; b <= 6; b++) {
        dcqcn_on_bytes_sent(&d, DCQCN_BYTE_COUNTER / 2);
        dcqcn_on_bytes_sent(&d, DCQCN_BYTE_COUNTER / 2);
        if (b > DCQCN_F)
            rt += (double)(b - DCQCN_F) * LINE * DCQCN_HAI_FRACTION;
        else
            rt += LINE * DCQCN_AI_FRACTION; /* max(T, BC) = 7 >= F, min <= F: additive */
        if (rt > LINE)
            rt = LINE;
        rc = (rt + rc) / 2;
        if (fabs(d.rt_mbps - rt) > 1e-6 || fabs(d.rc_mbps - rc) > 1e-6)
            fail_msg("byte stage %u: RT %.3f RC %.3f, expected %.3f %.3f", b, d.rt_mbps, d.rc_mbps, rt, rc);
    }
    assert_int_equal(d.bc_stage, 6);
}

/* Hyper increase adds (min stage - F) x L/10, each stage past F adding
 * one more tenth: from RT = L/10 with the timer at stage 7 and the byte
 * counter at F, byte stage 6 adds L/10 and byte stage 7 2 L/10, far from
 * the line's cap (which hides the amount when RT is already near it). */
static void test_dcqcn_hyper_increase_below_the_cap(void **st)
{
    (void)st;
    struct dcqcn_state d;
    dcqcn_init(&d, LINE);
    d.t_stage = 7;
    d.bc_stage = DCQCN_F;
    d.rt_mbps = LINE / 10;
    d.rc_mbps = LINE / 10;
    dcqcn_on_bytes_sent(&d, DCQCN_BYTE_COUNTER);
    assert_int_equal(d.bc_stage, 6);
    assert_true(fabs(d.rt_mbps - 2 * LINE / 10) < 1e-6);
    assert_true(fabs(d.rc_mbps - 1.5 * LINE / 10) < 1e-6);
    dcqcn_on_bytes_sent(&d, DCQCN_BYTE_COUNTER);
    assert_true(fabs(d.rt_mbps - 4 * LINE / 10) < 1e-6);
    assert_true(fabs(d.rc_mbps - 2.75 * LINE / 10) < 1e-6);
}

/* A CNP restarts the byte counter with the stages: the bytes sent before
 * it count for nothing after it, so the first byte stage needs a whole
 * DCQCN_BYTE_COUNTER of new bytes (issue 26: the reset moved to 1 byte
 * went unnoticed). */
static void test_dcqcn_cnp_restarts_byte_counter(void **st)
{
    (void)st;
    struct dcqcn_state d;
    dcqcn_init(&d, LINE);
    dcqcn_on_bytes_sent(&d, DCQCN_BYTE_COUNTER - 1);
    assert_int_equal(d.bc_stage, 0);
    dcqcn_on_cnp(&d);
    assert_int_equal(d.bytes_since_stage, 0);
    dcqcn_on_bytes_sent(&d, DCQCN_BYTE_COUNTER - 1);
    assert_int_equal(d.bc_stage, 0);
    dcqcn_on_bytes_sent(&d, 1);
    assert_int_equal(d.bc_stage, 1);
}

/* alpha decays by (1 - g) per 55 us without a CNP: (1-g)^n after n. */
static void test_dcqcn_alpha_decay(void **st)
{
    (void)st;
    struct dcqcn_state d;
    dcqcn_init(&d, LINE);
    for (int n = 1; n <= 100; n++) {
        dcqcn_alpha_timer(&d);
        assert_true(fabs(d.alpha - pow(1 - DCQCN_G, n)) < 1e-12);
    }
    double a = d.alpha;
    dcqcn_on_cnp(&d);
    assert_true(fabs(d.alpha - ((1 - DCQCN_G) * a + DCQCN_G)) < 1e-12);
    assert_true(fabs(d.rc_mbps - LINE * (1 - a / 2)) < 1e-6);
    assert_int_equal(d.t_stage, 0);
}

/* ---- PFC -------------------------------------------------------------------------- */

static const char *two_to_one_cm(void)
{
    return temp_file("Nodes 16\nConnections 2\n1->0 id 1 start 0 size 4000000\n5->0 id 2 start 0 size 4000000\n",
                     ".cm");
}

static uint32_t data_packet(uint32_t ingress_port)
{
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = PKT_DATA;
    p->prio = PKT_PRIO_DATA;
    p->size_bytes = S.cfg.mtu_bytes;
    p->src_host = 1;
    p->dst_host = 0;
    p->ingress_port = ingress_port;
    return idx;
}

/* The next EV_PFC in the event queue (popping everything before it). */
static bool next_pfc_event(struct event *out)
{
    while (eq_count(&S.eq)) {
        eq_pop(&S.eq, out);
        if (out->kind == EV_PFC)
            return true;
    }
    return false;
}

/* Above 15 packets from one ingress link the switch sends PAUSE, which acts
 * one link latency later; below 12 it sends RESUME. */
static void test_pfc_thresholds_and_latency(void **st)
{
    (void)st;
    setup(two_to_one_cm(), 1000, &DEFAULT);
    assert_non_null(S.pfc);
    uint32_t from = S.hosts[1].nic_port;              /* host 1's link into its ToR */
    uint32_t out = S.switches[0].first_port;          /* that ToR's port down to host 0 */
    S.ports[out].flags |= PORTF_PAUSED;               /* hold the packets in the queue */
    for (int k = 0; k < 15; k++)
        port_enqueue(&S, out, data_packet(from));
    assert_int_equal(S.pfc->ingress_bytes[from * PFC_CLASSES + 1], 15 * S.cfg.mtu_bytes);
    assert_false(S.pfc->pause_sent[from * PFC_CLASSES + 1]); /* exactly at the threshold: not above */
    S.now = 7;
    port_enqueue(&S, out, data_packet(from));
    assert_true(S.pfc->pause_sent[from * PFC_CLASSES + 1]);
    assert_int_equal(S.pfc->st[S.pfc->reverse_port[from]].pauses_sent, 1);
    struct event ev;
    assert_true(next_pfc_event(&ev));
    assert_int_equal(ev.id, from);
    assert_int_equal(ev.aux, PFC_AUX(PFC_PAUSE, 1));
    assert_int_equal(ev.time_ps, 7 + S.ports[from].latency_ps);
    /* drain: RESUME once fewer than 12 packets' bytes are left */
    for (int k = 16; k > 12; k--)
        pfc_on_dequeue(&S, from, 1, S.cfg.mtu_bytes);
    assert_true(S.pfc->pause_sent[from * PFC_CLASSES + 1]); /* 12 packets: not below */
    pfc_on_dequeue(&S, from, 1, S.cfg.mtu_bytes);
    assert_false(S.pfc->pause_sent[from * PFC_CLASSES + 1]);
    assert_true(next_pfc_event(&ev));
    assert_int_equal(ev.aux, PFC_AUX(PFC_RESUME, 1));
    sim_free(&S);
}

/* A paused switch port sends control but starts no data until RESUME; the
 * time paused is counted. */
/* A RoCE queue pair keeps one path unless -paths or --lb say otherwise
 * (NICs hash the QP; htsim_roce and htsim_hpcc do the same). */
static void test_roce_keeps_one_path_by_default(void **st)
{
    (void)st;
    const char *tm = temp_file("Nodes 16\nConnections 2\n0->5 start 0 size 100000\n"
                               "1->6 start 0 size 100000 transport uet\n", ".cm");
    for (int given = 0; given <= 1; given++) {
        struct config c;
        config_defaults(&c);
        c.tm_path = tm;
        c.progress = false;
        c.transport_name = "roce";
        c.paths_given = given; /* as -paths 64 on the command line */
        sim_setup(&S, &c);
        assert_ptr_equal(S.flows[0].lb, given ? S.lb : &lb_single_ops);
        assert_ptr_equal(S.flows[1].lb, S.lb); /* the UET connection sprays as the run's balancer does */
        assert_ptr_not_equal(S.lb, &lb_single_ops);
        sim_free(&S);
    }
}

static void test_paused_port_starts_no_data(void **st)
{
    (void)st;
    setup(two_to_one_cm(), 1000, &DEFAULT);
    uint32_t out = S.switches[0].first_port;
    pfc_event(&S, out, PFC_AUX(PFC_PAUSE, 1));
    uint32_t d = data_packet(S.hosts[1].nic_port);
    port_enqueue(&S, out, d);
    assert_int_equal(S.ports[out].in_service, PKT_NONE);
    uint32_t c = data_packet(S.hosts[1].nic_port);
    pkt_at(&S.pool, c)->prio = PKT_PRIO_CONTROL;
    pkt_at(&S.pool, c)->size_bytes = 64;
    port_enqueue(&S, out, c);
    assert_int_equal(S.ports[out].in_service, c); /* control still goes */
    port_tx_done(&S, out);
    assert_int_equal(S.ports[out].in_service, PKT_NONE);
    S.now = 5 * PS_PER_US;
    pfc_event(&S, out, PFC_AUX(PFC_RESUME, 1));
    assert_int_equal(S.ports[out].in_service, d);
    assert_int_equal(S.pfc->st[out].pauses_received, 1);
    assert_int_equal(S.pfc->st[out].paused_ps, 5 * PS_PER_US);
    sim_free(&S);
}

/* With --classes 3 each data class is paused on its own: a port paused
 * for class 2 still sends class 1, and class 2 after its RESUME; class 2's
 * own ingress count sends a PAUSE for class 2 only. */
static void test_pfc_per_class(void **st)
{
    (void)st;
    struct run_opts o = DEFAULT;
    o.classes = 3;
    setup(two_to_one_cm(), 1000, &o);
    uint32_t from = S.hosts[1].nic_port, out = S.switches[0].first_port;
    pfc_event(&S, out, PFC_AUX(PFC_PAUSE, 2));
    uint32_t c2 = data_packet(from);
    pkt_at(&S.pool, c2)->prio = 2;
    port_enqueue(&S, out, c2);
    assert_int_equal(S.ports[out].in_service, PKT_NONE);
    uint32_t c1 = data_packet(from);
    port_enqueue(&S, out, c1);
    assert_int_equal(S.ports[out].in_service, c1);
    port_tx_done(&S, out);
    assert_int_equal(S.ports[out].in_service, PKT_NONE);
    S.now = 2 * PS_PER_US;
    pfc_event(&S, out, PFC_AUX(PFC_PAUSE, 1));
    S.now = 3 * PS_PER_US;
    pfc_event(&S, out, PFC_AUX(PFC_RESUME, 2));
    assert_int_equal(S.ports[out].in_service, c2);
    assert_true(S.ports[out].flags & PORTF_PAUSED); /* class 1 still is */
    assert_int_equal(S.pfc->st[out].pauses_received, 2);
    assert_int_equal(S.pfc->n_paused, 1);
    port_tx_done(&S, out);
    S.now = 4 * PS_PER_US;
    pfc_event(&S, out, PFC_AUX(PFC_RESUME, 1));
    assert_int_equal(S.pfc->n_paused, 0);
    assert_int_equal(S.pfc->st[out].paused_ps, 4 * PS_PER_US); /* some class paused from 0 to 4 us */
    /* class 2's ingress count: 16 packets from one link pause class 2 only */
    for (int k = 0; k < 16; k++) {
        uint32_t d = data_packet(from);
        pkt_at(&S.pool, d)->prio = 2;
        port_enqueue(&S, out, d);
    }
    assert_int_equal(S.pfc->ingress_bytes[from * PFC_CLASSES + 2], 16 * S.cfg.mtu_bytes);
    assert_int_equal(S.pfc->ingress_bytes[from * PFC_CLASSES + 1], 0);
    assert_true(S.pfc->pause_sent[from * PFC_CLASSES + 2]);
    assert_false(S.pfc->pause_sent[from * PFC_CLASSES + 1]);
    struct event ev;
    assert_true(next_pfc_event(&ev));
    assert_int_equal(ev.aux, PFC_AUX(PFC_PAUSE, 2));
    sim_free(&S);
}

/* Data a failed link's queue loses leaves the switch: its ingress count
 * falls and the upstream port is resumed. */
static void test_failed_port_releases_ingress_bytes(void **st)
{
    (void)st;
    setup(two_to_one_cm(), 1000, &DEFAULT);
    uint32_t from = S.hosts[1].nic_port, out = S.switches[0].first_port;
    pfc_event(&S, out, PFC_AUX(PFC_PAUSE, 1));
    for (int k = 0; k < 16; k++)
        port_enqueue(&S, out, data_packet(from));
    S.tot.data_pkts_sent += 16;
    assert_true(S.pfc->pause_sent[from * PFC_CLASSES + 1]);
    port_fail(&S, out);
    assert_int_equal(S.pfc->ingress_bytes[from * PFC_CLASSES + 1], 0);
    assert_false(S.pfc->pause_sent[from * PFC_CLASSES + 1]);
    sim_free(&S);
}

/* A paused host NIC pulls nothing from the transport. */
static void test_paused_nic_sends_no_data(void **st)
{
    (void)st;
    setup(two_to_one_cm(), 1000, &DEFAULT);
    uint32_t nic = S.hosts[1].nic_port;
    pfc_event(&S, nic, PFC_AUX(PFC_PAUSE, 1));
    transport_flow_start(&S, 0);
    assert_int_equal(S.ports[nic].in_service, PKT_NONE);
    pfc_event(&S, nic, PFC_AUX(PFC_RESUME, 1));
    assert_int_not_equal(S.ports[nic].in_service, PKT_NONE);
    assert_int_equal(pkt_at(&S.pool, S.ports[nic].in_service)->type, PKT_DATA);
    sim_free(&S);
}

/* Two switches pause each other's port of one link while both hold data: a
 * cycle. It is reported once nothing has changed for --pfc-deadlock-us,
 * not before, and not when only one side is paused. */
static void test_pfc_deadlock_detected(void **st)
{
    (void)st;
    /* 0: a cycle (each port holds data that came over the other's link),
     *    found from host 1's paused NIC, which waits on it but is not in it;
     * 1: one port not paused; 2: checked a picosecond early; 3: both paused
     *    and holding data, but data from elsewhere: no dependency, no
     *    deadlock (this used to be reported, and stopped the run) */
    for (int variant = 0; variant < 4; variant++) {
        setup(two_to_one_cm(), 1000, &DEFAULT);
        uint32_t a = S.switches[0].first_port + S.switches[0].n_down; /* ToR 0 up to an aggregation switch */
        uint32_t b = S.pfc->reverse_port[a];                          /* and back down */
        uint32_t nic = S.hosts[1].nic_port;
        assert_int_equal(S.ports[b].peer_node, S.ports[a].owner_node);
        assert_true(nic < a && nic < b); /* the search meets the NIC first */
        pfc_event(&S, a, PFC_AUX(PFC_PAUSE, 1));
        if (variant != 1)
            pfc_event(&S, b, PFC_AUX(PFC_PAUSE, 1));
        pfc_event(&S, nic, PFC_AUX(PFC_PAUSE, 1));
        port_enqueue(&S, a, data_packet(variant == 3 ? nic : b));
        port_enqueue(&S, a, data_packet(nic));
        port_enqueue(&S, b, data_packet(variant == 3 ? S.hosts[0].nic_port : a));
        S.now = S.cfg.pfc_deadlock_ps - (variant == 2 ? 1 : 0);
        pfc_event(&S, 0, PFC_CHECK);
        bool expect = variant == 0;
        if (S.pfc->deadlock != expect)
            fail_msg("variant %d: deadlock %d, expected %d", variant, S.pfc->deadlock, expect);
        assert_int_equal(S.stop, expect);
        if (expect)
            assert_int_equal(S.pfc->deadlock_cycle_ports, 2);
        sim_free(&S);
    }
}

/* The deadlock report names each port of the cycle once, by its owner and
 * peer ("tor0->agg0"; host NICs "host1->tor0"), as the stderr line and
 * summary.json show them (issue 26: a name rule that called ToRs "agg",
 * and a report loop printing one port past the cycle, both survived). */
static void test_pfc_deadlock_report_names_the_cycle(void **st)
{
    (void)st;
    setup(two_to_one_cm(), 1000, &DEFAULT);
    uint32_t a = S.switches[0].first_port + S.switches[0].n_down;
    uint32_t b = S.pfc->reverse_port[a];
    char name[64];
    pfc_port_name(&S, S.hosts[1].nic_port, name, sizeof name);
    assert_string_equal(name, "host1->tor0");
    pfc_port_name(&S, a, name, sizeof name);
    assert_string_equal(name, "tor0->agg0");
    pfc_port_name(&S, b, name, sizeof name);
    assert_string_equal(name, "agg0->tor0");
    pfc_event(&S, a, PFC_AUX(PFC_PAUSE, 1));
    pfc_event(&S, b, PFC_AUX(PFC_PAUSE, 1));
    port_enqueue(&S, a, data_packet(b));
    port_enqueue(&S, b, data_packet(a));
    S.now = S.cfg.pfc_deadlock_ps;
    /* the report goes to stderr: catch it in a temporary file */
    FILE *cap = tmpfile();
    assert_non_null(cap);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0 && dup2(fileno(cap), 2) >= 0);
    pfc_event(&S, 0, PFC_CHECK);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    assert_true(S.pfc->deadlock);
    char text[1024];
    rewind(cap);
    size_t got = fread(text, 1, sizeof text - 1, cap);
    fclose(cap);
    text[got] = 0;
    const char *line = strstr(text, "the last on the first):");
    assert_non_null(line);
    line += strlen("the last on the first):");
    if (strcmp(line, " tor0->agg0 agg0->tor0\n") != 0 && strcmp(line, " agg0->tor0 tor0->agg0\n") != 0)
        fail_msg("cycle line \"%s\"", line);
    sim_free(&S);
}

/* The same cycle with traffic running into it: the check the first PAUSE
 * armed re-arms itself until the pauses spreading back from the stuck
 * flow settle, then stops the run long before -end. */
static void test_pfc_deadlock_stops_a_running_sim(void **st)
{
    (void)st;
    setup(two_to_one_cm(), 20000, &DEFAULT);
    uint32_t a = S.switches[0].first_port + S.switches[0].n_down;
    uint32_t b = S.pfc->reverse_port[a];
    pfc_event(&S, a, PFC_AUX(PFC_PAUSE, 1));
    pfc_event(&S, b, PFC_AUX(PFC_PAUSE, 1));
    port_enqueue(&S, a, data_packet(b));
    port_enqueue(&S, b, data_packet(a));
    S.tot.data_pkts_sent += 2; /* placed by hand: the packet census counts them as sent */
    sim_run(&S);
    assert_true(S.pfc->deadlock);
    assert_true(S.now < 5000 * PS_PER_US);
    assert_int_equal(S.now, S.pfc->last_change_ps + S.cfg.pfc_deadlock_ps); /* found as soon as it holds */
    assert_true(S.flows_finished < S.n_flows);
    sim_free(&S);
}

/* ---- RoCE sender and receiver ------------------------------------------------------------ */

static void roce_one_flow(const struct run_opts *o)
{
    setup(temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 408600\n", ".cm"), 1000, o);
    S.now = 0;
    transport_flow_start(&S, 0);
}

static void deliver(uint8_t type, uint32_t seq, uint16_t flags)
{
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = type;
    p->flags = flags;
    p->flow = 0;
    p->flow_gen = S.flows[0].gen; /* as the flow's own packets carry them (transport_answer checks) */
    p->tclass = S.flows[0].tclass;
    p->seq = seq;
    p->size_bytes = type == PKT_DATA ? S.cfg.mtu_bytes : 64;
    p->src_host = type == PKT_DATA ? 0 : 13;
    p->dst_host = type == PKT_DATA ? 13 : 0;
    transport_receive(&S, idx);
}

/* The receiver's answers waiting at its NIC, oldest first: type and seq. */
static uint32_t answers(uint8_t *type, uint32_t *seq, uint32_t max)
{
    const struct port *nic = &S.ports[S.hosts[13].nic_port];
    uint32_t n = 0;
    if (nic->in_service != PKT_NONE && n < max) {
        type[n] = pkt_at(&S.pool, nic->in_service)->type;
        seq[n++] = pkt_at(&S.pool, nic->in_service)->seq;
    }
    for (uint32_t q = nic->ctl_head; q != PKT_NONE && n < max; q = S.pool.pkts[q].next) {
        type[n] = S.pool.pkts[q].type;
        seq[n++] = S.pool.pkts[q].seq;
    }
    return n;
}

/* In order: an ACK each with the cumulative count. A gap: one NACK naming
 * the missing packet, no more until it fills, and what came early is
 * dropped; with -out_of_order (htsim RoceSink, ooo_enabled) what came early
 * is kept without a NACK or an ACK, and the packet that fills the gap is
 * ACKed past it. */
static void test_receiver_ack_nack(void **st)
{
    (void)st;
    for (int sel = 0; sel < 2; sel++) {
        struct run_opts o = DEFAULT;
        o.selective = sel;
        roce_one_flow(&o);
        uint64_t acks0 = S.tot.acks_sent, nacks0 = S.tot.nacks_sent;
        deliver(PKT_DATA, 0, 0);
        deliver(PKT_DATA, 2, 0);
        deliver(PKT_DATA, 3, 0);
        deliver(PKT_DATA, 1, 0);
        uint8_t t[8];
        uint32_t q[8];
        uint32_t n = answers(t, q, 8);
        /* the summary's counters see them as sent (issue 26: counting the
         * NACK as the ACK, and no ACK at all, survived) */
        assert_int_equal(S.tot.acks_sent - acks0, 2);
        assert_int_equal(S.tot.nacks_sent - nacks0, sel ? 0 : 1);
        assert_int_equal(n, sel ? 2 : 3);
        assert_int_equal(t[0], PKT_ACK);
        assert_int_equal(q[0], 1);
        if (!sel) {
            assert_int_equal(t[1], PKT_NACK);
            assert_int_equal(q[1], 1);
        }
        assert_int_equal(t[n - 1], PKT_ACK);
        assert_int_equal(q[n - 1], sel ? 4 : 2);
        sim_free(&S);
    }
}

/* -out_of_order keeps a packet at most 64 beyond the first missing one
 * (htsim roce.h roceMaxReorder, `seqno - _cumulative_ack <= 64` in its
 * 1-based numbers) silently; one further out is dropped with a NACK. */
static void test_out_of_order_reach_is_64_packets(void **st)
{
    (void)st;
    struct run_opts o = DEFAULT;
    o.selective = true;
    roce_one_flow(&o);
    deliver(PKT_DATA, 0, 0);      /* ACK 1 */
    deliver(PKT_DATA, 1 + 63, 0); /* 63 beyond the hole at 1: kept */
    assert_int_equal(S.tot.nacks_sent, 0);
    deliver(PKT_DATA, 1 + 64, 0); /* 64 beyond: NACK 1, not kept */
    assert_int_equal(S.tot.nacks_sent, 1);
    uint8_t t[8];
    uint32_t q[8];
    uint32_t n = answers(t, q, 8);
    assert_int_equal(n, 2);
    assert_int_equal(t[1], PKT_NACK);
    assert_int_equal(q[1], 1);
    /* the hole 1..63 filled: the receiver holds 0..64, so the ACK names 65
     * (the dropped one), not 66 */
    for (uint32_t k = 1; k < 64; k++)
        deliver(PKT_DATA, k, 0);
    uint8_t t2[80];
    uint32_t q2[80];
    n = answers(t2, q2, 80);
    assert_int_equal(n, 2 + 63); /* one ACK per arrival 1..63 */
    assert_int_equal(t2[n - 1], PKT_ACK);
    assert_int_equal(q2[n - 1], 65);
    sim_free(&S);
}

/* htsim_roce's adaptive routing moves a flow per packet only when its
 * receiver takes packets out of order, and per flowlet otherwise
 * (main_roce.cpp); -ar_granularity given overrides it. */
static void test_adaptive_routing_granularity_follows_out_of_order(void **st)
{
    (void)st;
    for (int ooo = 0; ooo < 2; ooo++)
        for (int given = 0; given < 2; given++) {
            struct config c;
            config_defaults(&c);
            c.tm_path = temp_file("Nodes 16\nConnections 1\n0->13 start 0 size 408600\n", ".cm");
            c.progress = false;
            c.transport_name = "roce";
            c.routing = ROUTE_AR;
            if (ooo)
                config_add_flag(&c, "-out_of_order", NULL, NULL);
            c.ar_granularity_given = given; /* -ar_granularity packet */
            sim_setup(&S, &c);
            assert_int_equal(S.cfg.ar_flowlet, !ooo && !given);
            sim_free(&S);
        }
}

/* CE-marked data: a CNP, then none for 50 us, then another. */
static void test_receiver_cnp_at_most_every_50us(void **st)
{
    (void)st;
    roce_one_flow(&DEFAULT);
    const double at_us[] = {0, 10, 49.9, 50, 60, 100.1};
    for (uint32_t k = 0; k < 6; k++) {
        S.now = (simtime_ps)(at_us[k] * PS_PER_US);
        deliver(PKT_DATA, k, PKTF_ECN_CE);
    }
    uint8_t t[16];
    uint32_t q[16];
    uint32_t n = answers(t, q, 16), cnps = 0;
    for (uint32_t i = 0; i < n; i++)
        cnps += t[i] == ROCE_PKT_CNP;
    assert_int_equal(cnps, 3); /* at 0, 50 and 100.1 us */
    sim_free(&S);
}

/* What the NIC would get from flow 0 now (a refused pull takes the flow
 * out of the ready ring, as its pacing timer would put it back). */
static uint32_t pull_seq(void)
{
    if (!S.flows[0].in_ready_ring)
        transport_nic_ready(&S, 0);
    uint32_t idx = transport_nic_pull(&S, 0);
    if (idx == PKT_NONE)
        return UINT32_MAX;
    uint32_t seq = pkt_at(&S.pool, idx)->seq;
    pkt_release(&S.pool, idx);
    return seq;
}

/* At line rate a packet may start one serialisation time after the last;
 * a NACK sends the sender back to the packet it names (go-back-N), with
 * -out_of_order too (htsim RoceSrc::processNack). */
static void test_sender_pacing_and_go_back_n(void **st)
{
    (void)st;
    for (int sel = 0; sel < 2; sel++) {
        struct run_opts o = DEFAULT;
        o.selective = sel;
        roce_one_flow(&o); /* seq 0 went on the wire at t = 0 */
        simtime_ps gap = serialize_ps(S.cfg.mtu_bytes, S.cfg.linkspeed_mbps);
        S.now = 10 * PS_PER_US;
        assert_int_equal(pull_seq(), 1);
        assert_int_equal(pull_seq(), UINT32_MAX); /* paced */
        S.now += gap - 1;
        assert_int_equal(pull_seq(), UINT32_MAX);
        S.now += 1;
        assert_int_equal(pull_seq(), 2);
        S.now += gap;
        assert_int_equal(pull_seq(), 3);
        deliver(PKT_NACK, 1, 0);
        S.now += gap;
        assert_int_equal(pull_seq(), 1);
        S.now += gap;
        assert_int_equal(pull_seq(), 2);
        sim_free(&S);
    }
}

/* 1000 us after the last packet sent with no ACK advancing, the sender
 * goes back to its first unacknowledged packet; a moment earlier it does
 * not. (Timer kind 1 is roce.c's ROCE_TIMER_RTO.) */
static void test_timeout_goes_back_to_first_unacked(void **st)
{
    (void)st;
    roce_one_flow(&DEFAULT);
    simtime_ps gap = serialize_ps(S.cfg.mtu_bytes, S.cfg.linkspeed_mbps);
    S.now = 10 * PS_PER_US;
    assert_int_equal(pull_seq(), 1);
    S.now += gap;
    assert_int_equal(pull_seq(), 2);
    deliver(PKT_ACK, 1, 0); /* packet 0 acknowledged, at the time packet 2 left */
    simtime_ps last = S.now;
    S.now = last + 1000 * PS_PER_US - 1;
    transport_timer(&S, 0, 1);
    assert_int_equal(S.flows[0].c.timeouts, 0);
    assert_int_equal(pull_seq(), 3);
    S.now += 1000 * PS_PER_US; /* packet 3 restarted the timer */
    transport_timer(&S, 0, 1);
    assert_int_equal(S.flows[0].c.timeouts, 1);
    assert_int_equal(pull_seq(), 1);
    sim_free(&S);
}

/* With DCQCN a CNP halves the pacing rate at once (alpha starts at 1). */
static void test_cnp_halves_the_pacing_rate(void **st)
{
    (void)st;
    struct run_opts o = DEFAULT;
    o.dcqcn_k = 10;
    roce_one_flow(&o);
    simtime_ps gap = serialize_ps(S.cfg.mtu_bytes, S.cfg.linkspeed_mbps);
    S.now = 10 * PS_PER_US;
    deliver(ROCE_PKT_CNP, 0, 0);
    assert_int_equal(pull_seq(), 1); /* sent at t = 10 us at half the rate */
    S.now += gap + 10;
    assert_int_equal(pull_seq(), UINT32_MAX);
    S.now += gap;
    assert_int_equal(pull_seq(), 2);
    sim_free(&S);
}

/* ---- end to end ------------------------------------------------------------------------- */

static double tail_us(void)
{
    simtime_ps m = 0;
    for (uint32_t i = 0; i < S.n_flows; i++) {
        assert_int_equal(S.flows[i].state, FLOW_DONE);
        if (S.flows[i].finish_ps - S.flows[i].start_ps > m)
            m = S.flows[i].finish_ps - S.flows[i].start_ps;
    }
    return (double)m / PS_PER_US;
}

static uint64_t pauses(void)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < S.n_ports; i++)
        n += S.pfc->st[i].pauses_received;
    return n;
}

/* reference-simulator.md: htsim_roce 2to1 658.9 us, incast 2451.3 us; no
 * drops, PFC paused someone, every ingress count back to zero. */
static void test_reference_tails_lossless(void **st)
{
    (void)st;
    const char *cms[2] = {two_to_one_cm(), shared_path("htsim/matrices/incast.cm")};
    const double ref_us[2] = {658.9, 2451.3};
    for (int k = 0; k < 2; k++) {
        setup(cms[k], 5000, &DEFAULT);
        sim_run(&S);
        double t = tail_us();
        if (fabs(t - ref_us[k]) > 0.1 * ref_us[k])
            fail_msg("case %d: tail %.1f us, reference %.1f", k, t, ref_us[k]);
        assert_int_equal(S.tot.data_drops, 0);
        assert_int_equal(S.tot.rtx_pkts_sent, 0);
        assert_true(pauses() > 0);
        for (uint32_t i = 0; i < S.n_ports * PFC_CLASSES; i++)
            assert_int_equal(S.pfc->ingress_bytes[i], 0);
        check_packet_conservation(&S);
        sim_free(&S);
    }
    /* the same incast without PFC in 15-packet queues loses packets */
    struct run_opts o = DEFAULT;
    o.pfc = 0;
    o.queue_pkts = 15;
    setup(cms[1], 5000, &o);
    sim_run(&S);
    assert_null(S.pfc);
    assert_true(S.tot.data_drops > 0);
    sim_free(&S);
}

/* A receive-done trigger starts the next connection: 0->1 of 200 KB, then
 * (when host 1 holds every byte) 2->3, then (on 2->3's send done) 4->5. */
static void test_recv_done_trigger_fires(void **st)
{
    (void)st;
    setup(temp_file("Nodes 16\nConnections 3\nTriggers 2\n"
                    "0->1 id 1 start 0 size 200000 recv_done_trigger 1\n"
                    "2->3 id 2 trigger 1 size 200000 send_done_trigger 2\n"
                    "4->5 id 3 trigger 2 size 200000\n"
                    "trigger id 1 oneshot\ntrigger id 2 oneshot\n",
                    ".cm"),
          5000, &DEFAULT);
    sim_run(&S);
    assert_int_equal(S.flows_finished, 3);
    assert_true(S.flows[0].rcv_complete);
    /* the second starts when the first's last byte arrived, before its ACK */
    assert_true(S.flows[1].start_ps == S.flows[0].rcv_done_ps);
    assert_true(S.flows[2].start_ps > S.flows[1].rcv_done_ps);
    sim_free(&S);
}

/* DCQCN on a 2-to-1 of 400 MB each: over 12 .. 20 ms (after convergence:
 * the first few ms keep the start's unequal rates, since every cut and
 * fast recovery is multiplicative and only additive increase equalises)
 * the bottleneck is at least 90% busy, each flow within 10% of half,
 * nothing dropped. */
static void test_dcqcn_two_to_one_utilization(void **st)
{
    (void)st;
    const char *cm =
        temp_file("Nodes 16\nConnections 2\n1->0 id 1 start 0 size 400000000\n5->0 id 2 start 0 size 400000000\n",
                  ".cm");
    struct run_opts o = DEFAULT;
    o.dcqcn_k = 10;
    uint64_t bott[2], src1[2], src5[2];
    const double end_us[2] = {12000, 20000};
    for (int k = 0; k < 2; k++) {
        setup(cm, end_us[k], &o);
        sim_run(&S);
        assert_int_equal(S.tot.data_drops, 0);
        bott[k] = S.ports[S.switches[0].first_port].st.tx_bytes;
        src1[k] = S.ports[S.hosts[1].nic_port].st.tx_bytes;
        src5[k] = S.ports[S.hosts[5].nic_port].st.tx_bytes;
        sim_free(&S);
    }
    double cap = 8000.0 * S.cfg.linkspeed_mbps / 8.0; /* bytes in 8 ms */
    double util = (double)(bott[1] - bott[0]) / cap;
    double a = (double)(src1[1] - src1[0]) / cap, b = (double)(src5[1] - src5[0]) / cap;
    if (util < 0.9 || fabs(a - util / 2) > 0.1 * util / 2 || fabs(b - util / 2) > 0.1 * util / 2)
        fail_msg("utilization %.3f, shares %.3f and %.3f", util, a, b);
}

/* ---- a mixed fabric: RoCE lossless in class 2, UET lossy in class 1 ------------------ */

static void setup_mixed(const char *tm, double end_us, bool class_drr)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = tm;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.progress = false;
    c.n_classes = 3;
    c.class_opts[0] = (struct class_opt){.cls = 2, .name = "lossless", .value = 1};
    c.n_class_opts = 1;
    c.class_drr = class_drr;
    sim_setup(&S, &c);
}

/* A 2 MB RoCE flow (0->15, class 2 by default as the lossless class) and
 * UET flows into the same host: 1->15 3 MB and a 6-to-1 incast of 500 KB
 * (class 1), all starting at once. The lossless class never trims or
 * drops and only it sends PAUSEs; the UET class trims. With class DRR both
 * classes stay backlogged at host 15's downlink until the RoCE flow ends,
 * so each should get half of it: the RoCE flow's FCT and the bytes UET
 * delivered by then are within 15% of a half share. */
static void test_mixed_fabric_lossless_and_lossy(void **st)
{
    (void)st;
    const char *cm = temp_file("Nodes 16\nConnections 8\n0->15 start 0 size 2000000 transport roce lb single\n"
                               "1->15 start 0 size 3000000\n2->15 start 0 size 500000\n3->15 start 0 size 500000\n"
                               "4->15 start 0 size 500000\n5->15 start 0 size 500000\n6->15 start 0 size 500000\n"
                               "7->15 start 0 size 500000\n",
                               ".cm");
    setup_mixed(cm, 5000, true);
    assert_int_equal(S.flows[0].prio_class, 2);
    assert_int_equal(S.flows[1].prio_class, 1);
    sim_run(&S);
    assert_int_equal(S.flows_finished, 8);
    check_packet_conservation(&S);
    assert_int_equal(S.tot.class_trims[2], 0);
    assert_int_equal(S.tot.class_drops[2], 0);
    assert_true(S.tot.class_trims[1] > 0);
    assert_true(S.pfc->pauses_by_class[2] > 0);
    for (uint32_t k = 0; k < PFC_CLASSES; k++)
        if (k != 2 && S.pfc->pauses_by_class[k])
            fail_msg("class %u sent %llu PAUSEs; only the lossless class 2 may", k,
                     (unsigned long long)S.pfc->pauses_by_class[k]);
    print_message("mixed: class 2 trims %llu drops %llu PAUSEs %llu; class 1 trims %llu drops %llu\n",
                  (unsigned long long)S.tot.class_trims[2], (unsigned long long)S.tot.class_drops[2],
                  (unsigned long long)S.pfc->pauses_by_class[2], (unsigned long long)S.tot.class_trims[1],
                  (unsigned long long)S.tot.class_drops[1]);
    simtime_ps roce_end = S.flows[0].finish_ps;
    double half_fct = 2.0 * (double)ideal_fct_ps(&S, &S.flows[0]);
    double roce_share = half_fct / (double)roce_end; /* 1 = exactly half the link */
    sim_free(&S);
    setup_mixed(cm, (double)roce_end / PS_PER_US, true);
    sim_run(&S);
    double uet = 0;
    for (uint32_t i = 1; i < 8; i++)
        uet += (double)uet_of(&S.flows[i])->rcv_bytes;
    double uet_share = uet / 2000000.0; /* vs the RoCE flow's 2 MB in the same time */
    print_message("mixed: RoCE FCT %.1f us (half-share ideal %.1f us, share %.3f), UET delivered %.0f B (%.3f of RoCE)\n",
                  (double)roce_end / PS_PER_US, half_fct / PS_PER_US, roce_share, uet, uet_share);
    if (roce_share < 0.85 || roce_share > 1.15 || uet_share < 0.85 || uet_share > 1.15)
        fail_msg("DRR shares: RoCE %.3f of half the link, UET %.3f of RoCE's bytes", roce_share, uet_share);
    sim_free(&S);
}

/* -dcqcn K on a mixed fabric: the lossless class (2, the first extra
 * class) of every switch port marks ECN in steps above K packets; the
 * lossy class keeps its own thresholds (issue 26: the marking written one
 * class too low survived). */
static void test_mixed_fabric_dcqcn_marks_the_lossless_class(void **st)
{
    (void)st;
    const char *cm = temp_file("Nodes 16\nConnections 2\n0->15 start 0 size 20000\n"
                               "1->15 start 0 size 20000 transport uet\n",
                               ".cm");
    struct config c;
    config_defaults(&c);
    c.tm_path = cm;
    c.transport_name = "roce";
    c.end_ps = 100 * PS_PER_US;
    c.progress = false;
    c.n_classes = 3;
    c.class_opts[0] = (struct class_opt){.cls = 2, .name = "lossless", .value = 1};
    c.n_class_opts = 1;
    config_add_flag(&c, "-dcqcn", "7", NULL);
    sim_setup(&S, &c);
    for (uint32_t i = S.n_hosts; i < S.n_ports; i++) {
        const struct port *p = &S.ports[i];
        assert_non_null(p->x);
        assert_int_equal(p->x->n, 3);
        assert_true(p->x->c[0].ecn);
        assert_int_equal(p->x->c[0].ecn_kmin_bytes, 7 * S.cfg.mtu_bytes);
        assert_int_equal(p->x->c[0].ecn_kmax_bytes, 7 * S.cfg.mtu_bytes);
        assert_int_not_equal(p->ecn_kmin_bytes, 7 * S.cfg.mtu_bytes); /* class 1: the port's own */
    }
    sim_free(&S);
}

/* DCQCN behind the CC interface (cc_dcqcn_ops): the same schedule as the
 * pure functions, its timer starting with the flow and restarting on a CNP,
 * and the published rate following RC. */
static void test_dcqcn_cc_module(void **st)
{
    (void)st;
    const struct cc_ops *cc = cc_find("dcqcn");
    assert_non_null(cc);
    assert_true(cc->rate_based);
    struct cc_params cp = {.linkspeed_mbps = 100000, .mtu_bytes = 4150, .mss_bytes = 4086, .start_ps = 7 * PS_PER_US};
    void *stt = xcalloc(1, cc->state_size);
    cc->init(stt, &cp);
    struct dcqcn_state ref;
    dcqcn_init(&ref, 100000);
    simtime_ps period = (simtime_ps)(DCQCN_TIMER_US * PS_PER_US);
    assert_int_equal(cc->next_timer(stt), cp.start_ps + period);
    assert_true(cc_rate_of(stt)->rate_mbps == 100000 && cc_rate_of(stt)->window_bytes == 0);
    /* a CNP at 20 us: cut, and the timer restarts from there */
    cc->on_cnp(stt, 20 * PS_PER_US);
    dcqcn_on_cnp(&ref);
    assert_int_equal(cc->next_timer(stt), 20 * PS_PER_US + period);
    assert_true(cc_rate_of(stt)->rate_mbps == ref.rc_mbps);
    /* early (an event queued for the old deadline): nothing */
    cc->on_timer(stt, cp.start_ps + period);
    assert_true(cc_rate_of(stt)->rate_mbps == ref.rc_mbps);
    /* at the deadline: alpha decays, then one increase */
    cc->on_timer(stt, 20 * PS_PER_US + period);
    dcqcn_alpha_timer(&ref);
    dcqcn_increase_timer(&ref);
    assert_true(cc_rate_of(stt)->rate_mbps == ref.rc_mbps);
    assert_int_equal(cc->next_timer(stt), 20 * PS_PER_US + 2 * period);
    /* 10 MB sent: one byte-counter increase */
    cc->on_sent(stt, 80 * PS_PER_US, DCQCN_BYTE_COUNTER);
    dcqcn_on_bytes_sent(&ref, DCQCN_BYTE_COUNTER);
    assert_true(cc_rate_of(stt)->rate_mbps == ref.rc_mbps);
    /* a connection's next message: the timers restart with it */
    cc->on_new_message(stt, 500 * PS_PER_US);
    assert_int_equal(cc->next_timer(stt), 500 * PS_PER_US + period);
    free(stt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dcqcn_rate_after_one_cnp),
        cmocka_unit_test(test_dcqcn_additive_and_hyper_increase),
        cmocka_unit_test(test_dcqcn_hyper_increase_below_the_cap),
        cmocka_unit_test(test_dcqcn_alpha_decay),
        cmocka_unit_test(test_dcqcn_cnp_restarts_byte_counter),
        cmocka_unit_test(test_pfc_thresholds_and_latency),
        cmocka_unit_test(test_roce_keeps_one_path_by_default),
        cmocka_unit_test(test_dcqcn_cc_module),
        cmocka_unit_test(test_paused_port_starts_no_data),
        cmocka_unit_test(test_paused_nic_sends_no_data),
        cmocka_unit_test(test_failed_port_releases_ingress_bytes),
        cmocka_unit_test(test_pfc_per_class),
        cmocka_unit_test(test_pfc_deadlock_detected),
        cmocka_unit_test(test_pfc_deadlock_stops_a_running_sim),
        cmocka_unit_test(test_pfc_deadlock_report_names_the_cycle),
        cmocka_unit_test(test_mixed_fabric_dcqcn_marks_the_lossless_class),
        cmocka_unit_test(test_receiver_ack_nack),
        cmocka_unit_test(test_out_of_order_reach_is_64_packets),
        cmocka_unit_test(test_adaptive_routing_granularity_follows_out_of_order),
        cmocka_unit_test(test_receiver_cnp_at_most_every_50us),
        cmocka_unit_test(test_sender_pacing_and_go_back_n),
        cmocka_unit_test(test_timeout_goes_back_to_first_unacked),
        cmocka_unit_test(test_cnp_halves_the_pacing_rate),
        cmocka_unit_test(test_reference_tails_lossless),
        cmocka_unit_test(test_recv_done_trigger_fires),
        cmocka_unit_test(test_dcqcn_two_to_one_utilization),
        cmocka_unit_test(test_mixed_fabric_lossless_and_lossy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
