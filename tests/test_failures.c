/* test_failures.c: the failure and asymmetry model (src/topo/failures.c)
 * and the routing that reacts to it (src/topo/fabric.c).
 *
 * Specification errors name the problem; a down link drops what reaches it
 * (queue, packet on the wire, later arrivals) and carries traffic again once
 * up; a rate change changes serialisation and a delay change adds latency;
 * routing keeps hashing onto a dead link until the detection delay has
 * passed, then avoids it (links and whole switches); every flow still
 * finishes, with and without trimming; adaptive routing picks the shortest
 * quantised queue among the usable uplinks and ev-mod picks entropy mod
 * uplinks; -failed N slows the right number of ports; packet conservation
 * holds with failures; --reroute bounce takes a valley, hop by hop, only
 * where up-down routing has no way left, and at most twice per packet.
 */
#include "testutil.h"

#include <math.h>

#include "metrics/report.h"
#include "sim.h"
#include "topo/failures.h"
#include "simtest.h"
#include "topo/fabric.h"
#include "transport/flow.h"

static struct sim S;

/* ---- helpers --------------------------------------------------------------------------------- */

struct opts {
    const char *cm;       /* matrix text */
    const char *topo;     /* topology text or NULL (default tree) */
    const char *lb;       /* NULL = default */
    uint32_t paths;       /* 0 = default */
    double end_us;        /* 0 = 1000 */
    bool no_trim;
    double detect_us;     /* < 0: default */
    uint32_t routing;
    uint32_t reroute;     /* enum reroute_mode */
    uint32_t failed_links;
    const char *fail[4];
};

static void setup(const struct opts *o)
{
    struct config c;
    config_defaults(&c);
    const char *cm = temp_file(o->cm, ".cm");
    char cm_path[256];
    snprintf(cm_path, sizeof cm_path, "%s", cm);
    char topo_path[256] = "";
    if (o->topo)
        snprintf(topo_path, sizeof topo_path, "%s", temp_file(o->topo, ".topo"));
    c.tm_path = cm_path;
    c.topo_path = o->topo ? topo_path : NULL;
    if (o->lb)
        c.lb_name = o->lb;
    if (o->paths)
        c.paths = o->paths;
    c.end_ps = (simtime_ps)((o->end_us > 0 ? o->end_us : 1000) * PS_PER_US);
    c.trimming = !o->no_trim;
    if (o->detect_us >= 0)
        c.detect_ps = (simtime_ps)(o->detect_us * PS_PER_US);
    c.routing = o->routing;
    c.reroute = o->reroute;
    c.failed_links = o->failed_links;
    c.progress = false;
    for (unsigned i = 0; i < 4 && o->fail[i]; i++)
        c.fail_specs[c.n_fail_specs++] = o->fail[i];
    sim_setup(&S, &c);
    unlink(cm_path);
    if (o->topo)
        unlink(topo_path);
}

static void run(const struct opts *o)
{
    setup(o);
    sim_run(&S);
}

static void check_conservation(void)
{
    check_packet_conservation(&S);
}

/* Port failure counters agree with the run total and are part of the drops. */
static void check_failure_counters(void)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < S.n_ports; i++) {
        assert_true(S.ports[i].st.failure_drops <= S.ports[i].st.drops);
        sum += S.ports[i].st.failure_drops;
    }
    assert_int_equal(sum, S.tot.failure_drops);
    assert_true(S.tot.failure_drops <= S.tot.data_drops + S.tot.ctl_drops);
}

static void check_all_finished(void)
{
    for (uint32_t i = 0; i < S.n_flows; i++)
        if (S.flows[i].state != FLOW_DONE)
            fail_msg("flow %u (%u->%u) unfinished at %.1f us", i, S.cm.conns[i].src, S.cm.conns[i].dst,
                     (double)S.now / PS_PER_US);
    assert_int_equal(S.flows_finished, S.n_flows);
}

/* Node ids of the default 16-node 3-tier tree (k = 4): hosts 0-15, ToRs
 * 16-23 (two hosts each), aggs 24-31 (two per pod), cores 32-35. */
enum { TOR0 = 16, AGG0 = 24, CORE0 = 32 };

/* The port from node a to node b (first member), or fail. */
static uint32_t port_between(uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i < S.n_ports; i++)
        if (S.ports[i].owner_node == a && S.ports[i].peer_node == b)
            return i;
    fail_msg("no port %u -> %u", a, b);
    return 0;
}

/* Pod 0 (hosts 0-3) exchanges 1 MB with pod 3 (hosts 12-15), both ways. */
static const char *CROSS_POD_CM = "Nodes 16\nConnections 8\n"
                                  "0->12 start 0 size 1000000\n1->13 start 0 size 1000000\n"
                                  "2->14 start 0 size 1000000\n3->15 start 0 size 1000000\n"
                                  "12->0 start 0 size 1000000\n13->1 start 0 size 1000000\n"
                                  "14->2 start 0 size 1000000\n15->3 start 0 size 1000000\n";

static uint32_t new_pkt(uint8_t type, uint32_t seq, uint32_t size, uint32_t dst)
{
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = type;
    p->prio = (type == PKT_DATA || type == PKT_PROBE) ? PKT_PRIO_DATA : PKT_PRIO_CONTROL; /* as UET sets it */
    p->seq = seq;
    p->size_bytes = size;
    p->dst_host = dst;
    return idx;
}

/* Drives port events by hand (as test_net.c does): returns the number of
 * packets that reached the far end, their arrival times in t. */
static int drain(simtime_ps *t, int max)
{
    struct event ev;
    int n = 0;
    while (eq_pop(&S.eq, &ev)) {
        S.now = ev.time_ps;
        if (ev.kind == EV_PORT_TX_DONE) {
            port_tx_done(&S, ev.id);
        } else if (ev.kind == EV_PKT_ARRIVE) {
            if (n < max)
                t[n] = ev.time_ps;
            n++;
            pkt_release(&S.pool, ev.id);
        }
    }
    return n;
}

/* Parses spec into S and applies its events at once, in order. */
static void apply_now(const char *spec)
{
    char err[256];
    uint32_t first = S.n_link_events;
    if (!failures_parse_spec(&S, spec, err, sizeof err))
        fail_msg("'%s': %s", spec, err);
    for (uint32_t i = first; i < S.n_link_events; i++)
        failures_apply(&S, i);
}

static void clear_events(void)
{
    struct event ev;
    while (eq_pop(&S.eq, &ev))
        ;
}

/* ---- specification errors -------------------------------------------------------------------- */

static void expect_error(const char *spec, const char *needle)
{
    char err[512] = "";
    if (failures_parse_spec(&S, spec, err, sizeof err))
        fail_msg("'%s' was accepted", spec);
    if (!strstr(err, needle))
        fail_msg("'%s': message \"%s\" does not mention \"%s\"", spec, err, needle);
}

/* --random-failures 1 takes down every inter-switch link, each once, named
 * as the reference's matrix lines name them: a ToR or an aggregation
 * switch by its index within its tier (issue 26: aggregation switches
 * numbered from the ToRs' count on survived). */
static void test_random_failures_name_every_uplink_once(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n0->15 start 0 size 1000\n", ".cm");
    c.random_failure_p = 1;
    c.progress = false;
    sim_setup(&S, &c);
    const struct topo *t = &S.topo;
    assert_int_equal(t->spec.tiers, 3);
    uint32_t up_ports = 0;
    for (uint32_t w = 0; w < S.n_switches; w++)
        up_ports += S.switches[w].n_up;
    assert_int_equal(S.random_failed_links, up_ports);
    assert_int_equal(S.cm.n_failures, up_ports);
    bool *seen = xcalloc(up_ports, 1);
    for (uint32_t i = 0; i < S.cm.n_failures; i++) {
        const struct cm_failure *f = &S.cm.failures[i];
        uint32_t w = f->switch_type == FAILURE_TOR ? f->switch_id : t->n_tor + f->switch_id;
        assert_true(f->switch_type == FAILURE_TOR || f->switch_type == FAILURE_AGG);
        assert_true(f->switch_id < (f->switch_type == FAILURE_TOR ? t->n_tor : t->n_agg));
        assert_true(f->link_id < S.switches[w].n_up);
        uint32_t slot = 0; /* the link's place among all up ports, switch by switch */
        for (uint32_t v = 0; v < w; v++)
            slot += S.switches[v].n_up;
        slot += f->link_id;
        assert_false(seen[slot]);
        seen[slot] = true;
    }
    free(seen);
    sim_free(&S);
}

/* Routing learns of a failure 100 ms after it by default (docs/running.md's
 * --detect-us row, seed 003 Sec. 4.1.1: "hundreds of milliseconds"; issue
 * 26: the default moved by one went unnoticed, every test setting its own). */
static void test_detection_delay_default(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    assert_int_equal(c.detect_ps, 100000 * PS_PER_US);
}

/* Regression: specifications were cut at 32 words and 511 characters, so a
 * flapping schedule silently lost events ("down at 500" became "down at 50"
 * when cut mid-word). Every event of a long schedule is kept. */
static void test_long_schedule_keeps_every_event(void **st)
{
    (void)st;
    struct opts o = {.cm = CROSS_POD_CM, .end_us = 100000, .detect_us = -1};
    setup(&o);
    char spec[8192];
    int len = snprintf(spec, sizeof spec, "link tor0 agg0");
    for (int k = 0; k < 200; k++)
        len += snprintf(spec + len, sizeof spec - (size_t)len, " %s at %d", k % 2 ? "up" : "down", 500 + 10 * k);
    assert_true(len > 2000);
    char err[512];
    uint32_t n0 = S.n_link_events;
    if (!failures_parse_spec(&S, spec, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(S.n_link_events - n0, 200);
    assert_int_equal(S.link_events[S.n_link_events - 1].at_ps, (500 + 10 * 199) * PS_PER_US);
    assert_int_equal(S.link_events[S.n_link_events - 1].kind, LC_UP);
    sim_free(&S);
}

/* Regression: "switch X down" failed only the first 256 links of a switch.
 * A spine with 300 ToRs below it loses all 300. */
static void test_switch_down_takes_every_port(void **st)
{
    (void)st;
    char cm[128];
    snprintf(cm, sizeof cm, "Nodes 300\nConnections 1\n0->299 start 0 size 4000\n");
    struct opts o = {.cm = cm,
                     .topo = "Nodes 300\nTiers 2\nPodsize 300\n"
                             "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 1\nRadix_Up 1\nDownlink_Latency_ns 1000\n"
                             "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 300\nDownlink_Latency_ns 1000\n",
                     .end_us = 1000,
                     .detect_us = -1};
    setup(&o);
    assert_int_equal(S.topo.n_agg, 1);
    char err[512];
    uint32_t n0 = S.n_link_events;
    if (!failures_parse_spec(&S, "switch spine0 down at 10", err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(S.n_link_events - n0, 300);
    for (uint32_t i = n0; i < S.n_link_events; i++)
        failures_apply(&S, i);
    uint32_t down = 0;
    for (uint32_t p = 0; p < S.n_ports; p++)
        down += (S.ports[p].flags & PORTF_DOWN) != 0;
    assert_int_equal(down, 600); /* both directions of every link */
    sim_free(&S);
}

static void test_spec_errors_name_the_problem(void **st)
{
    (void)st;
    struct opts o = {.cm = CROSS_POD_CM, .end_us = 1000, .detect_us = -1};
    setup(&o);
    expect_error("link router0 agg0 down", "'router0' is not a node name");
    expect_error("link tor0 agg", "a link needs two nodes and an event");
    expect_error("link tor0 agg0x down", "'agg0x' is not a node name");
    expect_error("link tor8 agg0 down", "'tor8' does not exist (this topology has 8 tors)");
    expect_error("link tor0 core0 down", "there is no link tor0-core0");
    expect_error("link host0 host1 down", "there is no link host0-host1");
    expect_error("link tor0 agg0 member 1 down", "with that member");
    expect_error("link tor0 agg0 member x down", "'member' needs a whole number");
    expect_error("switch host3 down", "'host3' is a host, not a switch");
    expect_error("switch core4 down", "'core4' does not exist");
    expect_error("link tor0 agg0 explode", "unknown event 'explode'");
    expect_error("link tor0 agg0 rate", "'rate' needs a number from 0");
    /* the unit each one takes is named (a rate in Gb/s, a delay in us) */
    expect_error("link tor0 agg0 rate fast", "'rate' needs a number from 0 to 1e+09 (Gb/s)");
    expect_error("link tor0 agg0 rate -5", "'rate' needs a number from 0");
    expect_error("link tor0 agg0 rate 0", "must be above 0 and at most the link's 100 Gb/s");
    expect_error("link tor0 agg0 rate 200", "must be above 0 and at most the link's 100 Gb/s");
    expect_error("link tor0 agg0 delay", "'delay' needs a number from 0");
    expect_error("link tor0 agg0 down at", "'at' needs a time from 0");
    expect_error("link tor0 agg0 down at soon", "'at' needs a time from 0");
    expect_error("link tor0 agg0 down at 50 up at 10", "'up at 10' comes after 'down at 50'");
    expect_error("link tor0 agg0 delay 1e20", "'delay' needs a number from 0 to 1e+09 (microseconds)");
    expect_error("link tor0 agg0 down at 1e300", "'at' needs a time from 0 to 1e+09");
    expect_error("link tor0 agg0 down at 0x10", "'at' needs a time from 0");
    expect_error("link tor0 agg0 down at inf", "'at' needs a time from 0");
    expect_error("switch core1 rate 50", "a switch has no rate");
    expect_error("switch core1", "no event");
    expect_error("cable tor0 agg0 down", "expected 'link' or 'switch'");
    expect_error("down", "expected 'link NODE NODE EVENT...'");
    /* and the good ones add one event per direction pair */
    char err[256];
    uint32_t n0 = S.n_link_events;
    assert_true(failures_parse_spec(&S, "link tor0 agg1 down at 500 up at 800", err, sizeof err));
    assert_int_equal(S.n_link_events - n0, 2);
    assert_int_equal(S.link_events[n0].kind, LC_DOWN);
    assert_int_equal(S.link_events[n0].at_ps, 500 * PS_PER_US);
    assert_int_equal(S.link_events[n0 + 1].kind, LC_UP);
    assert_int_equal(S.link_events[n0 + 1].at_ps, 800 * PS_PER_US);
    assert_int_equal(S.ports[S.link_events[n0].port_a].owner_node, TOR0);
    assert_int_equal(S.ports[S.link_events[n0].port_a].peer_node, AGG0 + 1);
    assert_int_equal(S.ports[S.link_events[n0].port_b].owner_node, AGG0 + 1);
    assert_true(failures_parse_spec(&S, "link tor0 agg0 down at 999.5", err, sizeof err));
    n0 = S.n_link_events;
    /* core3 has one link to each of the 4 pods */
    assert_true(failures_parse_spec(&S, "switch core3 down at 100", err, sizeof err));
    assert_int_equal(S.n_link_events - n0, 4);
    n0 = S.n_link_events;
    assert_true(failures_parse_spec(&S, "link spine1 tor1 rate 25 delay 2.5 at 10", err, sizeof err));
    assert_int_equal(S.n_link_events - n0, 2);
    assert_int_equal(S.link_events[n0].value, 25000);                 /* Mb/s */
    assert_int_equal(S.link_events[n0 + 1].value, 2500 * PS_PER_NS);  /* ps */
    assert_int_equal(S.link_events[n0 + 1].at_ps, 10 * PS_PER_US);
    sim_free(&S);
}

static void test_matrix_failure_lines(void **st)
{
    (void)st;
    /* spraysim's grammar and the reference simulator's form in one matrix */
    struct opts o = {.cm = "Nodes 16\nConnections 1\nFailures 2\n0->1 start 0 size 1000000\n"
                           "failure link tor1 agg0 down at 5\n"
                           "failure switch_type AGG switch_id 2 link_id 1\n",
                     .end_us = 10,
                     .detect_us = 1};
    run(&o);
    uint32_t a = port_between(TOR0 + 1, AGG0), b = port_between(AGG0, TOR0 + 1);
    assert_true(S.ports[a].flags & PORTF_DOWN);
    assert_true(S.ports[b].flags & PORTF_DOWN);
    assert_true(S.ports[a].flags & PORTF_KNOWN_DOWN); /* learnt at 6 us */
    /* agg 2 (pod 1, position 0) up port 1 goes to core 2 */
    const struct switch_node *agg2 = &S.switches[8 + 2];
    uint32_t up1 = agg2->first_port + agg2->n_down + 1;
    assert_int_equal(S.ports[up1].peer_node, CORE0 + 2);
    assert_true(S.ports[up1].flags & PORTF_DOWN);
    assert_true(S.ports[port_between(CORE0 + 2, AGG0 + 2)].flags & PORTF_DOWN);
    /* nothing else is down */
    uint32_t down = 0;
    for (uint32_t i = 0; i < S.n_ports; i++)
        down += (S.ports[i].flags & PORTF_DOWN) != 0;
    assert_int_equal(down, 4);
    sim_free(&S);
}

/* The reference form on a bundle (each ToR has two parallel links to its
 * pod's one agg; each agg two to each of two cores): "switch_type TOR
 * switch_id 0 link_id 1" takes ToR 0's second uplink down and, back the
 * other way, the agg's second port to ToR 0, not its first. */
static void test_reference_failure_on_a_bundle_member(void **st)
{
    (void)st;
    struct opts o = {.cm = "Nodes 16\nConnections 1\nFailures 1\n0->15 start 0 size 1000\n"
                           "failure switch_type TOR switch_id 0 link_id 1\n",
                     .topo = "Nodes 16\nTiers 3\nPodsize 4\n"
                             "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 2\nRadix_Up 2\nDownlink_Latency_ns 1000\n"
                             "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nDownlink_Latency_ns 1000\n"
                             "Bundle 2\n"
                             "Tier 2\nDownlink_speed_Gbps 100\nRadix_Down 8\nDownlink_Latency_ns 1000\nBundle 2\n",
                     .end_us = 1,
                     .detect_us = -1};
    run(&o);
    const struct switch_node *tor0 = &S.switches[0];
    uint32_t up = tor0->first_port + tor0->n_down, agg0 = S.n_hosts + S.topo.n_tor;
    assert_int_equal(S.ports[up].peer_node, agg0);
    assert_int_equal(S.ports[up + 1].peer_node, agg0);
    uint32_t back[2], nb = 0;
    const struct switch_node *agg = &S.switches[agg0 - S.n_hosts];
    for (uint32_t p = agg->first_port; p < agg->first_port + agg->n_down + agg->n_up; p++)
        if (S.ports[p].peer_node == S.n_hosts && nb < 2)
            back[nb++] = p;
    assert_int_equal(nb, 2);
    assert_false(S.ports[up].flags & PORTF_DOWN);
    assert_true(S.ports[up + 1].flags & PORTF_DOWN);
    assert_false(S.ports[back[0]].flags & PORTF_DOWN);
    assert_true(S.ports[back[1]].flags & PORTF_DOWN);
    uint32_t down = 0;
    for (uint32_t i = 0; i < S.n_ports; i++)
        down += (S.ports[i].flags & PORTF_DOWN) != 0;
    assert_int_equal(down, 2);
    sim_free(&S);
}

/* ---- one link: down, up, rate, delay --------------------------------------------------------- */

static void test_down_link_drops_queue_wire_and_arrivals(void **st)
{
    (void)st;
    struct opts o = {.cm = CROSS_POD_CM, .detect_us = -1};
    setup(&o);
    clear_events();
    uint32_t port = S.switches[0].first_port; /* ToR 0 -> host 0 */
    uint32_t nic = S.hosts[0].nic_port;
    struct port *p = &S.ports[port];
    for (uint32_t i = 0; i < 5; i++)
        port_enqueue(&S, port, new_pkt(PKT_DATA, i, 4150, 0));
    port_enqueue(&S, port, new_pkt(PKT_ACK, 99, 64, 0));
    assert_int_equal(p->data_bytes, 5 * 4150);
    apply_now("link tor0 host0 down");
    assert_true(p->flags & PORTF_DOWN);
    assert_true(S.ports[nic].flags & PORTF_DOWN); /* both directions */
    assert_false(p->flags & PORTF_KNOWN_DOWN);    /* routing does not know yet */
    /* the 4 queued data packets and the ACK are gone; the one on the wire
     * keeps its bytes until its serialisation ends, then is lost too */
    assert_int_equal(p->st.failure_drops, 5);
    assert_int_equal(p->data_bytes, 4150);
    assert_int_equal(p->ctl_bytes, 0);
    port_enqueue(&S, port, new_pkt(PKT_DATA, 7, 4150, 0)); /* arrives later */
    simtime_ps t[8];
    int n = drain(t, 8);
    assert_int_equal(n, 0);
    assert_int_equal(p->st.failure_drops, 7);
    assert_int_equal(p->st.drops, 7);
    assert_int_equal(p->st.tx_packets, 0);
    assert_int_equal(S.tot.failure_drops, 7);
    assert_int_equal(S.tot.data_drops, 6);
    assert_int_equal(S.tot.ctl_drops, 1);
    assert_int_equal(p->data_bytes, 0);
    assert_int_equal(S.pool.in_use, 0);
    /* up again: traffic flows, nothing more is dropped */
    apply_now("link tor0 host0 up");
    assert_false(p->flags & PORTF_DOWN);
    assert_false(S.ports[nic].flags & PORTF_DOWN);
    port_enqueue(&S, port, new_pkt(PKT_DATA, 8, 4150, 0));
    port_enqueue(&S, port, new_pkt(PKT_DATA, 9, 4150, 0));
    simtime_ps t0 = S.now;
    n = drain(t, 8);
    assert_int_equal(n, 2);
    assert_int_equal(t[0] - t0, 332000 + 1000000);
    assert_int_equal(p->st.failure_drops, 7);
    assert_int_equal(p->st.tx_packets, 2);
    /* the route-learning events were scheduled one detection delay later */
    sim_free(&S);
}

static void test_rate_and_delay_changes(void **st)
{
    (void)st;
    struct opts o = {.cm = CROSS_POD_CM, .detect_us = -1};
    setup(&o);
    clear_events();
    uint32_t port = S.switches[0].first_port; /* ToR 0 -> host 0, 100 Gb/s, 1 us */
    simtime_ps t[4];
    port_enqueue(&S, port, new_pkt(PKT_DATA, 0, 4150, 0));
    port_enqueue(&S, port, new_pkt(PKT_DATA, 1, 4150, 0));
    assert_int_equal(drain(t, 4), 2);
    assert_int_equal(t[0], 332000 + 1000000);
    assert_int_equal(t[1] - t[0], 332000);
    /* 25 Gb/s: four times the serialisation; both specifications are
     * parsed first, as the run does (a rate is checked against the link's
     * rate when parsed) */
    char err[256];
    uint32_t ev = S.n_link_events;
    assert_true(failures_parse_spec(&S, "link tor0 host0 rate 25", err, sizeof err));
    assert_true(failures_parse_spec(&S, "link host0 tor0 rate 100 delay 5", err, sizeof err));
    assert_int_equal(S.n_link_events, ev + 3);
    failures_apply(&S, ev);
    assert_int_equal(S.ports[port].rate_mbps, 25000);
    assert_int_equal(S.ports[S.hosts[0].nic_port].rate_mbps, 25000);
    simtime_ps t0 = S.now;
    port_enqueue(&S, port, new_pkt(PKT_DATA, 2, 4150, 0));
    port_enqueue(&S, port, new_pkt(PKT_DATA, 3, 4150, 0));
    assert_int_equal(drain(t, 4), 2);
    assert_int_equal(t[0] - t0, 1328000 + 1000000);
    assert_int_equal(t[1] - t[0], 1328000);
    /* back to full rate, plus 5 us of propagation */
    failures_apply(&S, ev + 1);
    failures_apply(&S, ev + 2);
    t0 = S.now;
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4, 4150, 0));
    assert_int_equal(drain(t, 4), 1);
    assert_int_equal(t[0] - t0, 332000 + 6000000);
    /* the other direction got the delay too */
    assert_int_equal(S.ports[S.hosts[0].nic_port].latency_ps, 6000000);
    sim_free(&S);
}

/* ---- routing learns after the detection delay ------------------------------------------------ */

static uint64_t failure_drops_at(const struct opts *o, double end_us)
{
    struct opts a = *o;
    a.end_us = end_us;
    run(&a);
    uint64_t d = S.tot.failure_drops;
    sim_free(&S);
    return d;
}

static void test_routing_learns_after_detection_delay(void **st)
{
    (void)st;
    /* Oblivious spraying keeps sending onto every path, so only routing can
     * stop the loss. Down at 20 us, learnt at 50 us. A packet that was
     * already committed to a path through the link when routing learnt (at
     * a core or agg with no other way down to ToR 0) is still lost, so the
     * count settles within a few hops' time: check at 60 us. */
    struct opts o = {.cm = CROSS_POD_CM, .lb = "oblivious", .paths = 64, .end_us = 5000, .detect_us = 30,
                     .fail = {"link tor0 agg0 down at 20"}};
    uint64_t before_learn = failure_drops_at(&o, 49.9);
    uint64_t after_learn = failure_drops_at(&o, 60);
    assert_true(before_learn > 20); /* half of hosts 0-1's uplink traffic was hashed onto it */
    assert_true(after_learn - before_learn <= 10);
    run(&o);
    check_all_finished();
    check_failure_counters();
    check_conservation();
    assert_int_equal(S.tot.failure_drops, after_learn); /* no new drops once learnt */
    uint32_t up = port_between(TOR0, AGG0), down = port_between(AGG0, TOR0);
    assert_true(S.ports[up].flags & PORTF_KNOWN_DOWN);
    assert_true(S.ports[down].flags & PORTF_KNOWN_DOWN);
    assert_true(S.ports[up].st.failure_drops + S.ports[down].st.failure_drops == S.tot.failure_drops);
    assert_true(S.routing_dynamic);
    uint64_t slow_detect = S.tot.failure_drops;
    sim_free(&S);
    /* detection within 1 us: only what was queued and a few more are lost */
    o.detect_us = 1;
    run(&o);
    check_all_finished();
    assert_true(S.tot.failure_drops > 0);
    assert_true(S.tot.failure_drops * 3 < slow_detect);
    assert_true(S.tot.failure_drops <= 2 * S.queue_bytes / 4150 + 10);
    sim_free(&S);
}

static void test_link_back_up_carries_traffic_again(void **st)
{
    (void)st;
    /* down 20-60 us, routing learns each change 10 us later */
    struct opts o = {.cm = CROSS_POD_CM, .lb = "oblivious", .paths = 64, .end_us = 5000, .detect_us = 10,
                     .fail = {"link tor0 agg0 down at 20 up at 60"}};
    struct opts a = o;
    a.end_us = 69.9;
    run(&a);
    uint32_t up = port_between(TOR0, AGG0);
    assert_true(S.ports[up].flags & PORTF_KNOWN_DOWN);
    assert_false(S.ports[up].flags & PORTF_DOWN);
    uint64_t tx_before = S.ports[up].st.tx_packets;
    uint64_t drops = S.tot.failure_drops;
    assert_true(drops > 0);
    sim_free(&S);
    run(&o);
    check_all_finished();
    assert_false(S.ports[up].flags & (PORTF_DOWN | PORTF_KNOWN_DOWN));
    assert_true(S.ports[up].st.tx_packets > tx_before + 50); /* used again after 70 us */
    assert_int_equal(S.tot.failure_drops, drops);
    check_conservation();
    sim_free(&S);
}

static void test_switch_failure_reroutes_after_detection(void **st)
{
    (void)st;
    /* core 0 (reaches agg position 0 of every pod) dies at 20 us */
    struct opts o = {.cm = CROSS_POD_CM, .lb = "oblivious", .paths = 64, .end_us = 5000, .detect_us = 30,
                     .fail = {"switch core0 down at 20"}};
    uint64_t at_learn = failure_drops_at(&o, 60);
    assert_true(at_learn > 0);
    run(&o);
    check_all_finished();
    check_failure_counters();
    check_conservation();
    assert_int_equal(S.tot.failure_drops, at_learn);
    const struct switch_node *c0 = &S.switches[CORE0 - 16];
    for (uint32_t i = c0->first_port; i < c0->first_port + c0->n_down; i++) {
        assert_true(S.ports[i].flags & PORTF_KNOWN_DOWN);
        uint32_t back = port_between(S.ports[i].peer_node, CORE0);
        assert_true(S.ports[back].flags & PORTF_KNOWN_DOWN);
    }
    /* every ToR-to-ToR walk across pods now avoids core 0 */
    struct packet pk;
    memset(&pk, 0, sizeof pk);
    for (uint32_t dst = 4; dst < 16; dst++)
        for (uint16_t e = 0; e < 64; e++) {
            pk.dst_host = dst;
            pk.entropy = e;
            pk.flow = dst;
            uint32_t node = TOR0;
            for (int hop = 0; hop < 6 && node >= S.n_hosts; hop++) {
                uint32_t port = fabric_route(&S, node - S.n_hosts, &pk);
                assert_false(S.ports[port].flags & PORTF_DOWN);
                node = S.ports[port].peer_node;
                assert_int_not_equal(node, CORE0);
            }
            assert_int_equal(node, dst);
        }
    sim_free(&S);
}

static void test_failure_without_trimming_finishes_every_flow(void **st)
{
    (void)st;
    /* REPS and Mixed: routing never learns (detection 100 ms, the default,
     * beyond the run), so only the transport and the load balancer get the
     * flows through. Oblivious spraying keeps losing half of the ToR's
     * uplink traffic (and of the ACKs) until routing learns: with a
     * detection delay of 200 us it finishes too. */
    const char *lbs[] = {"reps", "mixed", "oblivious"};
    for (size_t k = 0; k < 3; k++) {
        struct opts o = {.cm = CROSS_POD_CM, .lb = lbs[k], .paths = 64, .end_us = 20000, .no_trim = true,
                         .detect_us = k < 2 ? -1 : 200, .fail = {"link tor0 agg0 down at 20"}};
        run(&o);
        if (S.flows_finished != S.n_flows)
            fail_msg("--lb %s: %u of %u flows finished", lbs[k], S.flows_finished, S.n_flows);
        assert_true(S.tot.failure_drops > 0);
        assert_int_equal(S.tot.trimmed_delivered, 0);
        assert_int_equal(S.tot.nacks_sent, 0);
        assert_true(S.tot.rtos > 0); /* every loss was found by a timeout */
        bool known = S.ports[port_between(TOR0, AGG0)].flags & PORTF_KNOWN_DOWN;
        assert_true(known == (k == 2));
        check_failure_counters();
        check_conservation();
        sim_free(&S);
    }
}

static void test_reps_loses_less_than_oblivious(void **st)
{
    (void)st;
    /* seed 003 Sec. 4.1.1: REPS stops using paths through a failure from
     * its own feedback (recycling only entropies that return clean ACKs,
     * then freezing on the first timeout) long before routing learns
     * (100 ms here); oblivious spraying keeps losing half of what the ToR
     * sends up until its flows crawl to the end. Same work, both finish. */
    uint64_t drops[2];
    const char *lbs[] = {"oblivious", "reps"};
    for (int k = 0; k < 2; k++) {
        struct opts o = {.cm = CROSS_POD_CM, .lb = lbs[k], .paths = 64, .end_us = 200000, .detect_us = -1,
                         .fail = {"link tor0 agg0 down at 20"}};
        run(&o);
        check_all_finished();
        drops[k] = S.tot.failure_drops;
        sim_free(&S);
    }
    if (drops[1] * 4 >= drops[0])
        fail_msg("REPS lost %llu packets to the failure, oblivious %llu", (unsigned long long)drops[1],
                 (unsigned long long)drops[0]);
}

/* ---- adaptive routing and ev-mod --------------------------------------------------------------- */

/* 2-tier, 4 ToRs of 4 hosts, each ToR with one uplink to each of 4 spines. */
static const char *LEAF_SPINE_4 = "Nodes 16\nTiers 2\nPodsize 16\n"
                                  "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\n"
                                  "Downlink_Latency_ns 1000\nSwitch_Latency_ns 0\nOversubscribed 1\n"
                                  "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n"
                                  "Switch_Latency_ns 0\nBundle 1\n";

static void test_adaptive_routing_shortest_quantised_queue(void **st)
{
    (void)st;
    struct opts o = {.cm = "Nodes 16\nConnections 1\n0->15 start 0 size 1000\n", .topo = LEAF_SPINE_4,
                     .detect_us = -1, .routing = ROUTE_AR};
    setup(&o);
    assert_true(S.routing_dynamic);
    const struct switch_node *tor = &S.switches[0];
    assert_int_equal(tor->n_up, 4);
    uint32_t up = tor->first_port + tor->n_down;
    /* in packets of 4150 B: 5, 2, 2 (with 100 B more), 7 */
    uint32_t q[4] = {5 * 4150, 2 * 4150 + 100, 2 * 4150, 7 * 4150};
    for (int i = 0; i < 4; i++)
        S.ports[up + i].data_bytes = q[i];
    struct packet pk;
    memset(&pk, 0, sizeof pk);
    pk.dst_host = 15;
    unsigned hits[4] = {0};
    for (uint32_t i = 0; i < 400; i++) {
        pk.flow = i;
        pk.entropy = (uint16_t)i;
        uint32_t port = fabric_route(&S, 0, &pk);
        assert_true(port >= up && port < up + 4);
        hits[port - up]++;
    }
    /* only the two equal shortest queues, both used (random tie-break) */
    assert_int_equal(hits[0] + hits[3], 0);
    assert_true(hits[1] > 120 && hits[2] > 120);
    /* in bytes, uplink 2 is strictly shortest */
    S.cfg.ar_quantum_bytes = 1;
    for (uint32_t i = 0; i < 50; i++) {
        pk.entropy = (uint16_t)i;
        assert_int_equal(fabric_route(&S, 0, &pk), up + 2);
    }
    /* the same ToR still goes down to its own hosts by destination */
    pk.dst_host = 3;
    assert_int_equal(S.ports[fabric_route(&S, 0, &pk)].peer_node, 3);
    /* a known-down uplink is never chosen, however short its queue */
    S.cfg.ar_quantum_bytes = 4150;
    S.ports[up + 1].data_bytes = 0;
    apply_now("link tor0 spine1 down");
    failures_learn(&S, S.n_link_events - 1);
    pk.dst_host = 15;
    memset(hits, 0, sizeof hits);
    for (uint32_t i = 0; i < 200; i++) {
        pk.entropy = (uint16_t)i;
        hits[fabric_route(&S, 0, &pk) - up]++;
    }
    assert_int_equal(hits[1], 0);
    assert_int_equal(hits[2], 200);
    for (int i = 0; i < 4; i++)
        S.ports[up + i].data_bytes = 0;
    clear_events();
    sim_free(&S);
}

/* -strat ecmp_ar (cfg.ar_bands): htsim's BaseQueue::quantized_queuesize,
 * four bands of the port's limit (below 5%, 10%, 20%, the rest), each
 * port's band sampled at most every 0.1 us. Queues in different bands: the
 * lowest band wins, whatever the bytes; queues in one band tie and share
 * the packets at random, where the byte measure would pick one; and a band
 * read within 0.1 us of its sample is the stale one. */
static void test_adaptive_routing_htsim_bands(void **st)
{
    (void)st;
    struct opts o = {.cm = "Nodes 16\nConnections 1\n0->15 start 0 size 1000\n", .topo = LEAF_SPINE_4,
                     .detect_us = -1, .routing = ROUTE_AR};
    setup(&o);
    S.cfg.ar_bands = true;
    const struct switch_node *tor = &S.switches[0];
    uint32_t up = tor->first_port + tor->n_down;
    uint32_t lim = S.ports[up].data_limit_bytes;
    assert_true(lim >= 20 * 4150 && lim < QUEUE_INFINITE_BYTES);
    /* 4.9%, 5% (band 1), 9.9% (band 1), 20% (band 3): port 0 alone */
    const double frac[4] = {0.049, 0.05, 0.099, 0.2};
    for (int i = 0; i < 4; i++)
        S.ports[up + i].data_bytes = (uint32_t)ceil(lim * frac[i]); /* ceil: 5% itself is band 1 */
    S.now = 1 * PS_PER_US;
    struct packet pk;
    memset(&pk, 0, sizeof pk);
    pk.dst_host = 15;
    pk.size_bytes = 4150;
    for (uint32_t i = 0; i < 50; i++) {
        pk.entropy = (uint16_t)i;
        assert_int_equal(fabric_route(&S, 0, &pk), up);
    }
    /* within 0.1 us of that sample port 0 still reads band 0 */
    S.ports[up].data_bytes = (uint32_t)(lim * 0.5);
    S.now += PS_PER_US / 10;
    assert_int_equal(fabric_route(&S, 0, &pk), up);
    /* 1 ps later every port is sampled again: 0 and 3 in band 3, 1 and 2
     * in band 1 (5% and 9.9%): those two tie, though port 1 has half
     * port 2's bytes */
    S.now += 1;
    unsigned hits[4] = {0};
    for (uint32_t i = 0; i < 400; i++) {
        pk.entropy = (uint16_t)i;
        hits[fabric_route(&S, 0, &pk) - up]++;
    }
    assert_int_equal(hits[0] + hits[3], 0);
    assert_true(hits[1] > 120 && hits[2] > 120);
    /* the byte measure (--routing ar) picks port 1 alone */
    S.cfg.ar_bands = false;
    for (uint32_t i = 0; i < 50; i++) {
        pk.entropy = (uint16_t)i;
        assert_int_equal(fabric_route(&S, 0, &pk), up + 1);
    }
    /* 19.9% is band 2, 20% and more band 3: port 3 alone */
    S.cfg.ar_bands = true;
    const double frac2[4] = {0.5, 0.2, 0.3, 0.199};
    for (int i = 0; i < 4; i++)
        S.ports[up + i].data_bytes = (uint32_t)ceil(lim * frac2[i]);
    S.now += PS_PER_US;
    for (uint32_t i = 0; i < 50; i++) {
        pk.entropy = (uint16_t)i;
        assert_int_equal(fabric_route(&S, 0, &pk), up + 3);
    }
    for (int i = 0; i < 4; i++)
        S.ports[up + i].data_bytes = 0;
    clear_events();
    sim_free(&S);
}

static void test_ev_mod_routing(void **st)
{
    (void)st;
    struct opts o = {.cm = "Nodes 16\nConnections 1\n0->15 start 0 size 1000\n", .topo = LEAF_SPINE_4,
                     .detect_us = -1, .routing = ROUTE_EV_MOD};
    setup(&o);
    const struct switch_node *tor = &S.switches[0];
    uint32_t up = tor->first_port + tor->n_down;
    struct packet pk;
    memset(&pk, 0, sizeof pk);
    pk.dst_host = 15;
    for (uint32_t e = 0; e < 64; e++) {
        pk.entropy = (uint16_t)e;
        pk.flow = e * 7; /* the flow does not matter */
        assert_int_equal(fabric_route(&S, 0, &pk), up + e % 4);
    }
    /* the spine goes down to ToR 3 by destination */
    pk.entropy = 5;
    uint32_t at_spine = fabric_route(&S, 4, &pk);
    assert_int_equal(S.ports[at_spine].peer_node, 16 + 3);
    /* with uplink 1 known down: entropy mod 3 over uplinks 0, 2, 3 */
    apply_now("link tor0 spine1 down");
    failures_learn(&S, S.n_link_events - 1);
    const uint32_t usable[3] = {0, 2, 3};
    for (uint32_t e = 0; e < 64; e++) {
        pk.entropy = (uint16_t)e;
        assert_int_equal(fabric_route(&S, 0, &pk), up + usable[e % 3]);
    }
    clear_events();
    sim_free(&S);
}

/* "mark" (seed 004 App. A's congested path, issue 23): every data packet
 * the link sends is ECN-marked, both directions, whatever its queue;
 * control packets are not; "unmark" gives the port back to RED. */
static void test_mark_event_marks_every_data_packet(void **st)
{
    (void)st;
    struct opts o = {.cm = CROSS_POD_CM, .detect_us = -1};
    setup(&o);
    clear_events();
    expect_error("switch core1 mark", "marks a link's packets: use 'link'");
    uint32_t port = S.switches[0].first_port; /* ToR 0 -> host 0 */
    simtime_ps t[4];
    char err[256];
    uint32_t ev = S.n_link_events;
    assert_true(failures_parse_spec(&S, "link tor0 host0 mark", err, sizeof err));
    assert_true(failures_parse_spec(&S, "link tor0 host0 unmark at 10", err, sizeof err));
    assert_int_equal(S.n_link_events, ev + 2);
    assert_int_equal(S.link_events[ev].kind, LC_MARK);
    assert_int_equal(S.link_events[ev + 1].value, 0);
    /* two data packets on an empty queue: RED alone would mark neither */
    port_enqueue(&S, port, new_pkt(PKT_DATA, 0, 4150, 0));
    port_enqueue(&S, port, new_pkt(PKT_DATA, 1, 4150, 0));
    assert_int_equal(drain(t, 4), 2);
    assert_int_equal(S.ports[port].st.ecn_marks, 0);
    failures_apply(&S, ev);
    assert_true(S.ports[S.hosts[0].nic_port].flags & PORTF_MARK_ALL); /* the other direction too */
    port_enqueue(&S, port, new_pkt(PKT_DATA, 2, 4150, 0));
    port_enqueue(&S, port, new_pkt(PKT_ACK, 3, 64, 0));
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4, 4150, 0));
    assert_int_equal(drain(t, 4), 3);
    assert_int_equal(S.ports[port].st.ecn_marks, 2);
    failures_apply(&S, ev + 1);
    assert_false(S.ports[S.hosts[0].nic_port].flags & PORTF_MARK_ALL);
    port_enqueue(&S, port, new_pkt(PKT_DATA, 5, 4150, 0));
    assert_int_equal(drain(t, 4), 1);
    assert_int_equal(S.ports[port].st.ecn_marks, 2);
    sim_free(&S);
}

static void test_slow_link_slows_its_flow(void **st)
{
    (void)st;
    /* one 1 MB flow inside a rack: host 1's link at 25 Gb/s from 0 (and
     * back to 100 Gb/s later, which the flow is too slow to see) */
    const char *cm = "Nodes 16\nConnections 1\n0->1 start 0 size 1000000\n";
    struct opts o = {.cm = cm, .end_us = 5000, .detect_us = -1};
    run(&o);
    check_all_finished();
    double fast = (double)(S.flows[0].finish_ps - S.flows[0].start_ps) / PS_PER_US;
    sim_free(&S);
    o.fail[0] = "link tor0 host1 rate 25";
    run(&o);
    check_all_finished();
    double slow = (double)(S.flows[0].finish_ps - S.flows[0].start_ps) / PS_PER_US;
    assert_int_equal(S.tot.failure_drops, 0);
    sim_free(&S);
    /* 1 MB at 25 Gb/s is 4 x the 100 Gb/s time; NSCC keeps the
     * bottleneck busy within 15% */
    double ideal = 1000000.0 * 8 / 25e3 * (4150.0 / 4086.0);
    assert_true(fast < ideal / 3.5);
    assert_true(slow > ideal * 0.99);
    assert_true(slow < ideal * 1.15);
    /* 20 us of extra delay on the path, both ways: the flow lasts at least
     * one extra round trip of 40 us */
    o.fail[0] = "link tor0 host1 delay 20";
    run(&o);
    check_all_finished();
    double longer = (double)(S.flows[0].finish_ps - S.flows[0].start_ps) / PS_PER_US;
    assert_true(longer > fast + 40);
    sim_free(&S);
}

static void test_routing_modes_run_end_to_end_with_failures(void **st)
{
    (void)st;
    /* adaptive routing and ev-mod on a leaf-spine with a spine link down
     * mid-run: every flow finishes, every packet is accounted for */
    char cm[2048];
    int off = snprintf(cm, sizeof cm, "Nodes 16\nConnections 16\n");
    for (int i = 0; i < 16; i++)
        off += snprintf(cm + off, sizeof cm - (size_t)off, "%d->%d start 0 size 500000\n", i, (i + 4) % 16);
    const uint32_t modes[] = {ROUTE_ECMP, ROUTE_AR, ROUTE_EV_MOD};
    for (size_t k = 0; k < 3; k++) {
        struct opts o = {.cm = cm, .topo = LEAF_SPINE_4, .paths = 64, .end_us = 5000, .detect_us = 20,
                         .routing = modes[k], .fail = {"link tor1 spine2 down at 15", "switch spine3 down at 25"}};
        run(&o);
        check_all_finished();
        assert_true(S.tot.failure_drops > 0);
        check_failure_counters();
        check_conservation();
        sim_free(&S);
    }
}

/* ---- -failed N ------------------------------------------------------------------------------- */

static void test_failed_links_run_at_quarter_speed(void **st)
{
    (void)st;
    /* 3-tier 16-node tree: the core->agg direction of the first N agg-core links */
    for (uint32_t n = 1; n <= 3; n++) {
        struct opts o = {.cm = CROSS_POD_CM, .detect_us = -1, .failed_links = n};
        setup(&o);
        uint32_t slow = 0;
        for (uint32_t i = 0; i < S.n_ports; i++) {
            const struct port *p = &S.ports[i];
            if (p->rate_mbps == 100000)
                continue;
            assert_int_equal(p->rate_mbps, 25000);
            assert_int_equal(p->data_limit_bytes, S.queue_bytes / 4);
            assert_true(p->owner_node >= CORE0);
            assert_true(p->peer_node >= AGG0 && p->peer_node < CORE0);
            slow++;
        }
        assert_int_equal(slow, n);
        sim_free(&S);
    }
    /* 2-tier: every ToR's links to the first N spines, both directions */
    struct opts o = {.cm = "Nodes 16\nConnections 1\n0->15 start 0 size 1000\n", .topo = LEAF_SPINE_4,
                     .detect_us = -1, .failed_links = 1};
    setup(&o);
    uint32_t slow = 0, spine0 = 16 + 4;
    for (uint32_t i = 0; i < S.n_ports; i++) {
        const struct port *p = &S.ports[i];
        if (p->rate_mbps == 100000)
            continue;
        assert_int_equal(p->rate_mbps, 25000);
        assert_true(p->owner_node == spine0 || p->peer_node == spine0);
        slow++;
    }
    assert_int_equal(slow, 2 * 4);
    sim_free(&S);
    /* a slow link still carries every flow to completion */
    struct opts r = {.cm = CROSS_POD_CM, .end_us = 5000, .detect_us = -1, .failed_links = 2};
    run(&r);
    check_all_finished();
    assert_int_equal(S.tot.failure_drops, 0);
    sim_free(&S);
}

/* ---- conservation ------------------------------------------------------------------------------ */

/* ---- --reroute bounce ---------------------------------------------------------------------------- */

/* 4 ToRs of 2 hosts, 2 spines (the deadlock experiment's fabric): hosts
 * 0-7, ToRs 8-11, spines 12-13. */
static const char *LEAF_SPINE_4X2 = "Nodes 8\nTiers 2\nPodsize 8\n"
                                    "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 2\nRadix_Up 2\n"
                                    "Downlink_Latency_ns 1000\nSwitch_Latency_ns 0\n"
                                    "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n"
                                    "Switch_Latency_ns 0\n";
enum { LS_TOR0 = 8, LS_SPINE0 = 12 };

/* Follows a packet from host src to host dst through fabric_route, as the
 * network would, recording the nodes it visits (hosts included); returns
 * their number. ingress_port is set as port_tx_done sets it. */
static int walk(struct packet *pk, uint32_t src, uint32_t *nodes, int max)
{
    uint32_t port = S.hosts[src].nic_port;
    int n = 0;
    nodes[n++] = src;
    while (n < max) {
        uint32_t node = S.ports[port].peer_node;
        nodes[n++] = node;
        if (node < S.n_hosts)
            break;
        pk->ingress_port = port;
        port = fabric_route(&S, node - S.n_hosts, pk);
    }
    return n;
}

/* Host 0 (ToR 0) to host 2 (ToR 1) with links tor0-spine1 and tor1-spine0
 * down: no up-down path exists (ToR 0 reaches only spine 0, which has lost
 * ToR 1). With --reroute bounce the packet climbs to spine 0, is sent down
 * into ToR 2 or 3 (a valley: never back to ToR 0, never over the dead
 * link), climbs to spine 1 and descends to ToR 1: one valley, counted.
 * Without the option spine 0 hashes onto its dead link. */
static void test_reroute_bounce_takes_a_valley(void **st)
{
    (void)st;
    struct opts o = {.cm = "Nodes 8\nConnections 1\n0->2 start 0 size 1000\n", .topo = LEAF_SPINE_4X2,
                     .detect_us = -1, .reroute = REROUTE_BOUNCE};
    setup(&o);
    apply_now("link tor0 spine1 down");
    apply_now("link tor1 spine0 down");
    failures_learn(&S, S.n_link_events - 2);
    failures_learn(&S, S.n_link_events - 1);
    struct packet pk;
    unsigned via[4] = {0};
    for (uint32_t f = 0; f < 64; f++) {
        memset(&pk, 0, sizeof pk);
        pk.dst_host = 2;
        pk.flow = f;
        uint32_t nodes[16];
        int n = walk(&pk, 0, nodes, 16);
        assert_int_equal(n, 7);
        assert_int_equal(nodes[1], LS_TOR0);
        assert_int_equal(nodes[2], LS_SPINE0);
        assert_true(nodes[3] == LS_TOR0 + 2 || nodes[3] == LS_TOR0 + 3); /* the valley */
        via[nodes[3] - LS_TOR0]++;
        assert_int_equal(nodes[4], LS_SPINE0 + 1);
        assert_int_equal(nodes[5], LS_TOR0 + 1);
        assert_int_equal(nodes[6], 2);
        assert_int_equal((pk.flags & PKTF_VALLEYS) >> PKTF_VALLEYS_SHIFT, 1);
    }
    assert_true(via[2] > 10 && via[3] > 10); /* the valley's ToR is hashed */
    assert_int_equal(S.tot.valleys, 64);
    assert_int_equal(S.tot.valley_limit_hits, 0);
    /* a destination up-down routing still reaches takes no valley: 0 -> 4 */
    memset(&pk, 0, sizeof pk);
    pk.dst_host = 4;
    uint32_t nodes[16];
    assert_int_equal(walk(&pk, 0, nodes, 16), 5);
    assert_int_equal(nodes[2], LS_SPINE0);
    assert_int_equal(nodes[3], LS_TOR0 + 2);
    assert_int_equal(pk.flags & PKTF_VALLEYS, 0);
    assert_int_equal(S.tot.valleys, 64);
    /* a packet that has taken its two valleys is refused a third (counted)
     * and hashed onto the dead link as without the option */
    memset(&pk, 0, sizeof pk);
    pk.dst_host = 2;
    pk.flags = 2 << PKTF_VALLEYS_SHIFT;
    pk.ingress_port = port_between(LS_TOR0, LS_SPINE0);
    assert_int_equal(fabric_route(&S, LS_SPINE0 - S.n_hosts, &pk), port_between(LS_SPINE0, LS_TOR0 + 1));
    assert_int_equal(S.tot.valley_limit_hits, 1);
    assert_int_equal(pk.flags, 2 << PKTF_VALLEYS_SHIFT);
    assert_int_equal(S.tot.valleys, 64);
    clear_events();
    sim_free(&S);

    /* without --reroute: up-down routing, spine 0 uses its dead down link */
    o.reroute = REROUTE_NONE;
    setup(&o);
    apply_now("link tor0 spine1 down");
    apply_now("link tor1 spine0 down");
    failures_learn(&S, S.n_link_events - 2);
    failures_learn(&S, S.n_link_events - 1);
    for (uint32_t f = 0; f < 16; f++) {
        memset(&pk, 0, sizeof pk);
        pk.dst_host = 2;
        pk.flow = f;
        pk.ingress_port = port_between(LS_TOR0, LS_SPINE0);
        assert_int_equal(fabric_route(&S, LS_SPINE0 - S.n_hosts, &pk), port_between(LS_SPINE0, LS_TOR0 + 1));
        assert_int_equal(pk.flags, 0);
    }
    assert_int_equal(S.tot.valleys, 0);
    clear_events();
    sim_free(&S);
}

/* Where no valley leads to the destination either, --reroute bounce routes
 * as plain up-down routing does. Links tor0-spine0, tor1-spine0,
 * tor2-spine1 and tor3-spine1 down and known: ToR 2 reaches ToR 1 only over
 * spine 1, and spine 0 cannot even with a valley (its valleys, ToRs 0, 2
 * and 3, cannot climb to spine 1), so ToR 2 must not prefer spine 0 (issue
 * 26: spine 0's valley search running one port past its own, into spine
 * 1's link to ToR 0, survived). */
static void test_reroute_bounce_without_a_valley_routes_as_up_down(void **st)
{
    (void)st;
    uint32_t chosen[2][64];
    for (int bounce = 0; bounce < 2; bounce++) {
        struct opts o = {.cm = "Nodes 8\nConnections 1\n4->2 start 0 size 1000\n", .topo = LEAF_SPINE_4X2,
                         .detect_us = -1, .reroute = bounce ? REROUTE_BOUNCE : REROUTE_NONE};
        setup(&o);
        const char *down[4] = {"link tor0 spine0 down", "link tor1 spine0 down", "link tor2 spine1 down",
                               "link tor3 spine1 down"};
        for (int k = 0; k < 4; k++)
            apply_now(down[k]);
        for (int k = 4; k > 0; k--)
            failures_learn(&S, S.n_link_events - (uint32_t)k);
        for (uint32_t f = 0; f < 64; f++) {
            struct packet pk;
            memset(&pk, 0, sizeof pk);
            pk.dst_host = 2;
            pk.flow = f;
            pk.ingress_port = S.hosts[4].nic_port;
            chosen[bounce][f] = fabric_route(&S, LS_TOR0 + 2 - S.n_hosts, &pk);
            assert_int_equal(pk.flags, 0);
        }
        assert_int_equal(S.tot.valleys, 0);
        clear_events();
        sim_free(&S);
    }
    bool both = false;
    for (uint32_t f = 0; f < 64; f++) {
        assert_int_equal(chosen[1][f], chosen[0][f]);
        both |= chosen[0][f] != chosen[0][0];
    }
    assert_true(both); /* up-down routing hashes over both uplinks */
}

/* 3-tier k = 4 tree, link agg0-tor1 down and known: a packet for host 2
 * (ToR 1) that reaches agg0 from core 0 has no down port left and no up-down
 * alternative (it came down from the core). With --reroute bounce agg0 sends
 * it down to ToR 0, the pod's other ToR, which climbs to agg1 and descends
 * to ToR 1. A packet that arrived from ToR 0 itself is not sent back there:
 * no valley, agg0 falls back to its dead link. */
static void test_reroute_bounce_in_a_pod(void **st)
{
    (void)st;
    struct opts o = {.cm = "Nodes 16\nConnections 1\n12->2 start 0 size 1000\n", .detect_us = -1,
                     .reroute = REROUTE_BOUNCE};
    setup(&o);
    apply_now("link agg0 tor1 down");
    failures_learn(&S, S.n_link_events - 1);
    struct packet pk;
    memset(&pk, 0, sizeof pk);
    pk.dst_host = 2;
    pk.ingress_port = port_between(CORE0, AGG0);
    uint32_t hop = fabric_route(&S, AGG0 - S.n_hosts, &pk);
    assert_int_equal(hop, port_between(AGG0, TOR0));
    pk.ingress_port = hop;
    hop = fabric_route(&S, TOR0 - S.n_hosts, &pk);
    assert_int_equal(hop, port_between(TOR0, AGG0 + 1));
    pk.ingress_port = hop;
    hop = fabric_route(&S, AGG0 + 1 - S.n_hosts, &pk);
    assert_int_equal(hop, port_between(AGG0 + 1, TOR0 + 1));
    assert_int_equal((pk.flags & PKTF_VALLEYS) >> PKTF_VALLEYS_SHIFT, 1);
    assert_int_equal(S.tot.valleys, 1);
    /* from ToR 0 (in flight when routing learnt): never back down to it */
    memset(&pk, 0, sizeof pk);
    pk.dst_host = 2;
    pk.ingress_port = port_between(TOR0, AGG0);
    assert_int_equal(fabric_route(&S, AGG0 - S.n_hosts, &pk), port_between(AGG0, TOR0 + 1));
    assert_int_equal(S.tot.valleys, 1);
    clear_events();
    sim_free(&S);
}

static void test_conservation_with_failures(void **st)
{
    (void)st;
    const char *specs[][2] = {
        {"link tor0 agg0 down at 20 up at 40", "switch core1 down at 30"},
        {"link tor7 agg7 down at 10", "link tor0 agg1 rate 20 delay 3 at 15"},
    };
    double ends[] = {41, 45, 60, 3000}; /* after every event time (else the spec is refused) */
    for (int trim = 0; trim < 2; trim++)
        for (size_t k = 0; k < 2; k++)
            for (size_t e = 0; e < 4; e++) {
                struct opts o = {.cm = CROSS_POD_CM, .paths = 64, .end_us = ends[e], .no_trim = !trim,
                                 .detect_us = 8, .fail = {specs[k][0], specs[k][1]}};
                run(&o);
                check_conservation();
                check_failure_counters();
                if (e == 3)
                    check_all_finished();
                sim_free(&S);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_errors_name_the_problem),
        cmocka_unit_test(test_matrix_failure_lines),
        cmocka_unit_test(test_reference_failure_on_a_bundle_member),
        cmocka_unit_test(test_down_link_drops_queue_wire_and_arrivals),
        cmocka_unit_test(test_rate_and_delay_changes),
        cmocka_unit_test(test_mark_event_marks_every_data_packet),
        cmocka_unit_test(test_routing_learns_after_detection_delay),
        cmocka_unit_test(test_link_back_up_carries_traffic_again),
        cmocka_unit_test(test_switch_failure_reroutes_after_detection),
        cmocka_unit_test(test_failure_without_trimming_finishes_every_flow),
        cmocka_unit_test(test_reps_loses_less_than_oblivious),
        cmocka_unit_test(test_adaptive_routing_shortest_quantised_queue),
        cmocka_unit_test(test_adaptive_routing_htsim_bands),
        cmocka_unit_test(test_ev_mod_routing),
        cmocka_unit_test(test_slow_link_slows_its_flow),
        cmocka_unit_test(test_routing_modes_run_end_to_end_with_failures),
        cmocka_unit_test(test_failed_links_run_at_quarter_speed),
        cmocka_unit_test(test_conservation_with_failures),
        cmocka_unit_test(test_detection_delay_default),
        cmocka_unit_test(test_random_failures_name_every_uplink_once),
        cmocka_unit_test(test_long_schedule_keeps_every_event),
        cmocka_unit_test(test_switch_down_takes_every_port),
        cmocka_unit_test(test_reroute_bounce_takes_a_valley),
        cmocka_unit_test(test_reroute_bounce_without_a_valley_routes_as_up_down),
        cmocka_unit_test(test_reroute_bounce_in_a_pod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
