/* test_planes.c: multi-plane fabrics (-planes N, src/topo/fabric.c's
 * "Planes" paragraph). The topology: N identical fat trees, every host with
 * one NIC port in each, every switch wired only within its plane, and a
 * routing walk from a host's plane-p port reaching every other host inside
 * plane p. The NIC: a host's packets spread over its ports, so a flow runs
 * at about N x -linkspeed, and an incast drains through the receiver's N
 * downlinks in 1/N of the time, both against first principles. The run's
 * per-class queueing policy and -failed reach the right planes.
 */
#include "testutil.h"

#include "sim.h"
#include "simtest.h"
#include "topo/fabric.h"
#include "transport/flow.h"

#include <math.h>

static struct sim *setup(const char *tm, uint32_t planes, const char *transport, double end_us)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = tm;
    c.planes = planes;
    c.quiet = true;
    c.progress = false;
    if (transport)
        c.transport_name = transport;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    struct sim *s = calloc(1, sizeof *s);
    assert_non_null(s);
    sim_setup(s, &c);
    return s;
}

static void free_sim(struct sim *s)
{
    sim_free(s);
    free(s);
}

static const char *one_flow_cm(uint32_t nodes)
{
    static char text[128];
    snprintf(text, sizeof text, "Nodes %u\nConnections 1\n0->1 start 0 size 1000\n", nodes);
    return temp_file(text, ".cm");
}

/* The plane a node belongs to: hosts belong to none (UINT32_MAX). */
static uint32_t plane_of(const struct sim *s, uint32_t node)
{
    return node < s->n_hosts ? UINT32_MAX : s->switches[node - s->n_hosts].plane;
}

/* Follows fabric_route from host src's port on `plane` to dst: every switch
 * on the way must be in that plane; returns the links crossed. */
static uint32_t walk_in_plane(struct sim *s, uint32_t plane, uint32_t src, uint32_t dst, uint32_t flow, uint16_t ev)
{
    struct packet p;
    memset(&p, 0, sizeof p);
    p.flow = flow;
    p.src_host = src;
    p.dst_host = dst;
    p.entropy = ev;
    uint32_t port = host_nic_port(s, src, plane);
    uint32_t node = s->ports[port].peer_node, hops = 1;
    while (node >= s->n_hosts) {
        if (plane_of(s, node) != plane)
            fail_msg("%u->%u on plane %u reached switch node %u of plane %u", src, dst, plane, node,
                     plane_of(s, node));
        if (hops > 8)
            fail_msg("%u->%u on plane %u: no arrival after %u hops", src, dst, plane, hops);
        port = fabric_route(s, node - s->n_hosts, &p);
        if (s->ports[port].owner_node != node)
            fail_msg("switch node %u routed to port %u, owned by %u", node, port, s->ports[port].owner_node);
        node = s->ports[port].peer_node;
        hops++;
    }
    if (node != dst)
        fail_msg("%u->%u on plane %u arrived at host %u", src, dst, plane, node);
    return hops;
}

/* Every host has one NIC port per plane, to its own ToR of that plane;
 * every plane is a whole copy of plane 0 (same switches, same port
 * layout, links only within the plane); routes stay in their plane. */
static void check_planes(uint32_t nodes, uint32_t tiers, uint32_t planes, const char *transport)
{
    const char *cm = one_flow_cm(nodes);
    struct config c;
    config_defaults(&c);
    c.tm_path = cm;
    if (transport)
        c.transport_name = transport;
    c.tiers = tiers;
    c.planes = planes;
    c.quiet = true;
    c.progress = false;
    struct sim *s = calloc(1, sizeof *s);
    assert_non_null(s);
    sim_setup(s, &c);
    unlink(cm);
    const struct topo *t = &s->topo;
    uint32_t S = t->switches_per_plane, H = s->n_hosts;
    assert_int_equal(t->planes, planes);
    assert_int_equal(s->n_switches, S * planes);
    /* ports: a plane's worth (its host ports and its switches') per plane */
    uint32_t switch_ports = 0;
    for (uint32_t w = 0; w < S; w++)
        switch_ports += (uint32_t)s->switches[w].n_down + s->switches[w].n_up;
    assert_int_equal(s->n_ports, planes * (H + switch_ports));
    for (uint32_t h = 0; h < H; h++)
        for (uint32_t p = 0; p < planes; p++) {
            const struct port *q = &s->ports[host_nic_port(s, h, p)];
            assert_int_equal(q->owner_node, h);
            assert_true(q->flags & PORTF_HOST_NIC);
            assert_int_equal(q->rate_mbps, c.linkspeed_mbps); /* each port at the full -linkspeed */
            uint32_t tor = q->peer_node;
            assert_true(tor >= H);
            const struct switch_node *sw = &s->switches[tor - H];
            assert_int_equal(sw->plane, p);
            assert_int_equal(sw->tier, 0);
            assert_int_equal(sw->index_in_tier, h / t->hosts_per_tor);
        }
    for (uint32_t p = 1; p < planes; p++)
        for (uint32_t w = 0; w < S; w++) {
            const struct switch_node *a = &s->switches[w], *b = &s->switches[p * S + w];
            assert_int_equal(b->plane, p);
            assert_int_equal(b->tier, a->tier);
            assert_int_equal(b->index_in_tier, a->index_in_tier);
            assert_int_equal(b->n_down, a->n_down);
            assert_int_equal(b->n_up, a->n_up);
            for (uint32_t k = 0; k < (uint32_t)a->n_down + a->n_up; k++) {
                const struct port *pa = &s->ports[a->first_port + k], *pb = &s->ports[b->first_port + k];
                assert_int_equal(pb->owner_node, H + p * S + w);
                /* the same neighbour, in plane p (hosts are every plane's) */
                uint32_t want = pa->peer_node < H ? pa->peer_node : pa->peer_node + p * S;
                assert_int_equal(pb->peer_node, want);
                assert_int_equal(pb->rate_mbps, pa->rate_mbps);
                assert_int_equal(pb->latency_ps, pa->latency_ps);
                assert_int_equal(pb->data_limit_bytes, pa->data_limit_bytes);
                /* the run's queueing policy (trimming, ECN) on every plane */
                assert_int_equal(pb->flags, pa->flags);
                assert_int_equal(pb->ecn_kmin_bytes, pa->ecn_kmin_bytes);
                assert_int_equal(pb->ecn_kmax_bytes, pa->ecn_kmax_bytes);
            }
        }
    /* the run trims (the default): every switch port of every plane, as
     * the merged class policy says (it reads a switch port, never a NIC) */
    assert_true(net_class_trims(s, PKT_PRIO_DATA));
    for (uint32_t i = H * planes; i < s->n_ports; i++)
        if (!(s->ports[i].flags & PORTF_TRIM))
            fail_msg("switch port %u (node %u) does not trim", i, s->ports[i].owner_node);
    uint32_t flow = 0;
    for (uint32_t p = 0; p < planes; p++)
        for (uint32_t a = 0; a < H; a++)
            for (uint32_t b = 0; b < H; b++) {
                if (a == b)
                    continue;
                for (uint16_t e = 0; e < 4; e++)
                    assert_int_equal(walk_in_plane(s, p, a, b, flow, e), topo_hops(t, a, b));
                flow++;
            }
    free_sim(s);
}

static void test_topology_3tier_2_planes(void **st)
{
    (void)st;
    check_planes(16, 3, 2, NULL);
    check_planes(16, 3, 2, "eqds");
}

static void test_topology_2tier_4_planes(void **st)
{
    (void)st;
    check_planes(8, 2, 4, NULL);
}

static void test_topology_one_plane_is_the_single_tree(void **st)
{
    (void)st;
    check_planes(16, 3, 1, "eqds");
}

/* Payload bytes per second of a message spread at `ports` x `mbps`: each
 * -mtu packet carries mtu - hdr bytes. */
static double line_payload_gbps(const struct sim *s, uint32_t ports)
{
    return ports * s->cfg.linkspeed_mbps / 1000.0 * (s->cfg.mtu_bytes - s->cfg.hdr_bytes) / s->cfg.mtu_bytes;
}

static double goodput_gbps(const struct sim *s, uint32_t i)
{
    const struct flow *f = &s->flows[i];
    assert_int_equal(f->state, FLOW_DONE);
    return (double)f->size_bytes * 8 / ((double)(f->finish_ps - f->start_ps) / 1000.0);
}

/* Pairs of hosts under one ToR send to each other (h -> h xor 1): nothing
 * is shared but the NICs, so with EQDS and a window above N BDPs each flow
 * runs at N x the line rate but for its NICs' control packets, and its NIC
 * ports carry equal shares. */
static void check_pairs(uint32_t planes)
{
    char text[1024];
    int n = snprintf(text, sizeof text, "Nodes 16\nConnections 16\n");
    for (uint32_t h = 0; h < 16; h++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%u->%u start 0 size 8000000\n", h, h ^ 1);
    const char *cm = temp_file(text, ".cm");
    struct config c;
    config_defaults(&c);
    c.tm_path = cm;
    c.planes = planes;
    c.transport_name = "eqds";
    c.cwnd_pkts = 400; /* about 1.2 MB: above 4 BDPs of 16 KB, never the limit */
    c.quiet = true;
    c.progress = false;
    c.end_ps = 2000 * PS_PER_US;
    struct sim *s = calloc(1, sizeof *s);
    assert_non_null(s);
    sim_setup(s, &c);
    unlink(cm);
    sim_run(s);
    check_packet_conservation(s);
    double line = line_payload_gbps(s, planes);
    for (uint32_t i = 0; i < s->n_flows; i++) {
        double g = goodput_gbps(s, i);
        /* never above the N ports' line rate */
        if (g > line * 1.0001)
            fail_msg("%u planes: flow %u at %.2f Gb/s, line rate of %u ports %.2f Gb/s", planes, i, g, planes, line);
        /* and as fast as its N ports allow: its FCT is the ideal one (the
         * bytes at N x -linkspeed plus the path's latency, ideal_fct_ps)
         * but for what shares its NICs: the partner's PULLs (64 B per 4 KB
         * pulled, 1.5%) and ACKs; 5% allows for those */
        const struct flow *f = &s->flows[i];
        double fct = (double)(f->finish_ps - f->start_ps), ideal = (double)ideal_fct_ps(s, f);
        if (fct < ideal || fct > ideal * 1.05)
            fail_msg("%u planes: flow %u took %.2f us, ideal over %u ports %.2f us", planes, i, fct / PS_PER_US,
                     planes, ideal / PS_PER_US);
        /* its sender's ports took equal shares of its data */
        uint32_t src = s->flows[i].src;
        uint64_t total = 0;
        for (uint32_t p = 0; p < planes; p++)
            total += s->ports[host_nic_port(s, src, p)].st.tx_bytes;
        for (uint32_t p = 0; p < planes; p++) {
            double share = (double)s->ports[host_nic_port(s, src, p)].st.tx_bytes / (double)total;
            if (fabs(share - 1.0 / planes) > 0.02)
                fail_msg("%u planes: host %u's port %u sent %.3f of its bytes", planes, src, p, share);
        }
    }
    free_sim(s);
}

static void test_pairs_run_at_planes_times_linkspeed(void **st)
{
    (void)st;
    check_pairs(1);
    check_pairs(2);
    check_pairs(4);
}

/* 15 senders to host 15 (the reference's incast.cm shape, 2 MB each): the
 * receiver's N downlinks are the bottleneck, so the last message finishes
 * when 15 x 2 MB have crossed N links, within 3%; EQDS's pull pacer grants
 * at N x its one-port rate; each of the N downlinks carries 1/N. */
static void check_incast(uint32_t planes)
{
    char text[1024];
    int n = snprintf(text, sizeof text, "Nodes 16\nConnections 15\n");
    for (uint32_t h = 0; h < 15; h++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%u->15 start 0 size 2000000\n", h);
    const char *cm = temp_file(text, ".cm");
    struct sim *s = setup(cm, planes, "eqds", 10000);
    unlink(cm);
    sim_run(s);
    check_packet_conservation(s);
    simtime_ps last = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        assert_int_equal(s->flows[i].state, FLOW_DONE);
        if (s->flows[i].finish_ps > last)
            last = s->flows[i].finish_ps;
    }
    double ideal_us = 15.0 * 2000000 * 8 / line_payload_gbps(s, planes) / 1000.0;
    double got_us = (double)last / PS_PER_US;
    if (got_us < ideal_us || got_us > ideal_us * 1.03)
        fail_msg("%u planes: incast done at %.1f us, the receiver's %u links need %.1f us", planes, got_us, planes,
                 ideal_us);
    /* the ToR ports down to host 15, one per plane */
    uint64_t down[8] = {0}, total = 0;
    for (uint32_t i = 0; i < s->n_ports; i++)
        if (s->ports[i].peer_node == 15 && s->ports[i].owner_node >= s->n_hosts) {
            uint32_t p = s->switches[s->ports[i].owner_node - s->n_hosts].plane;
            down[p] += s->ports[i].st.tx_bytes;
            total += s->ports[i].st.tx_bytes;
        }
    for (uint32_t p = 0; p < planes; p++)
        if (fabs((double)down[p] / (double)total - 1.0 / planes) > 0.02)
            fail_msg("%u planes: plane %u's downlink to host 15 carried %.3f of the bytes", planes, p,
                     (double)down[p] / (double)total);
    free_sim(s);
}

static void test_incast_drains_through_n_downlinks(void **st)
{
    (void)st;
    check_incast(1);
    check_incast(2);
    check_incast(4);
}

/* -failed N (htsim's reduced links) and --random-failures hit plane 0
 * only: plane 1's copies keep their speed and stay up. On an 8-host
 * leaf-spine (4 ToRs, 2 spines), -failed 1 slows the 4 ToR links to spine
 * 0 and spine 0's 4 links down; --random-failures 1 takes every one of
 * plane 0's 8 ToR-spine links down (both directions: 16 ports). */
static struct sim *leaf_spine_8(uint32_t failed, double random_p)
{
    const char *cm = one_flow_cm(8);
    struct config c;
    config_defaults(&c);
    c.tm_path = cm;
    c.tiers = 2;
    c.planes = 2;
    c.failed_links = failed;
    c.random_failure_p = random_p;
    c.quiet = true;
    c.progress = false;
    c.end_ps = 1 * PS_PER_US; /* the random failures happen at t = 0 */
    struct sim *s = calloc(1, sizeof *s);
    assert_non_null(s);
    sim_setup(s, &c);
    unlink(cm);
    return s;
}

static void test_failures_on_plane_0_only(void **st)
{
    (void)st;
    struct sim *s = leaf_spine_8(1, 0);
    uint32_t reduced[2] = {0, 0};
    for (uint32_t i = s->n_hosts * 2; i < s->n_ports; i++) {
        const struct port *p = &s->ports[i];
        if (p->rate_mbps < p->nominal_mbps)
            reduced[s->switches[p->owner_node - s->n_hosts].plane]++;
    }
    assert_int_equal(reduced[0], 8);
    assert_int_equal(reduced[1], 0);
    free_sim(s);

    s = leaf_spine_8(0, 1.0);
    sim_run(s);
    uint32_t down[2] = {0, 0};
    for (uint32_t i = s->n_hosts * 2; i < s->n_ports; i++)
        if (s->ports[i].flags & PORTF_DOWN)
            down[s->switches[s->ports[i].owner_node - s->n_hosts].plane]++;
    assert_int_equal(s->random_failed_links, 8);
    assert_int_equal(down[0], 16);
    assert_int_equal(down[1], 0);
    free_sim(s);
}

/* A run with several planes is deterministic: the same seed gives the same
 * finish times (the NIC's random first port comes from the seed). */
static void test_planes_deterministic(void **st)
{
    (void)st;
    const char *cm = shared_path("htsim/matrices/perm_16n_16c_2MB.cm");
    struct sim *a = setup(cm, 2, NULL, 2000), *b = setup(cm, 2, NULL, 2000);
    sim_run(a);
    sim_run(b);
    for (uint32_t i = 0; i < a->n_flows; i++)
        assert_int_equal(a->flows[i].finish_ps, b->flows[i].finish_ps);
    free_sim(a);
    free_sim(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_topology_3tier_2_planes),
        cmocka_unit_test(test_topology_2tier_4_planes),
        cmocka_unit_test(test_topology_one_plane_is_the_single_tree),
        cmocka_unit_test(test_pairs_run_at_planes_times_linkspeed),
        cmocka_unit_test(test_incast_drains_through_n_downlinks),
        cmocka_unit_test(test_failures_on_plane_0_only),
        cmocka_unit_test(test_planes_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
