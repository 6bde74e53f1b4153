/* test_net_edges2.c: more boundaries of src/net/ that no other test pins
 * (issue 26, helper mut6cnt; test_net_edges.c is shared with src/sim.c's
 * tests, so these live apart): the packet pool's peak starting at zero and
 * its reservation unmapped whole; PFC's pause time closed at the end of a
 * run for every paused port, the first included, and no port past the
 * last; PFC's reverse port of every port; the time integrals of what is
 * still queued at the end of a run. Expected values are worked out by hand from the code's
 * documented meaning (packet.h, pfc.h). Small fabric, events driven by
 * hand: the program runs in well under a second, first for the net module
 * in tools/mutation.py.
 */
#include "testutil.h"

#include <errno.h>
#include <sys/mman.h>

#include "net/pfc.h"
#include "sim.h"
#include "simtest.h"

static struct sim S;

/* The pool's peak_in_use is the most packets ever allocated at once
 * (packet.h): 0 in a fresh pool, then the running maximum, not lowered by
 * releases (issue 26: a fresh pool's peak of 1 went unnoticed). */
static void test_pool_peak_starts_at_zero(void **st)
{
    (void)st;
    struct packet_pool p;
    pool_init(&p, 64);
    assert_int_equal(p.in_use, 0);
    assert_int_equal(p.peak_in_use, 0);
    uint32_t a = pkt_alloc(&p);
    assert_int_equal(p.peak_in_use, 1);
    uint32_t b = pkt_alloc(&p);
    assert_int_equal(p.peak_in_use, 2);
    pkt_release(&p, a);
    pkt_release(&p, b);
    assert_int_equal(p.in_use, 0);
    assert_int_equal(p.peak_in_use, 2);
    a = pkt_alloc(&p);
    assert_int_equal(p.peak_in_use, 2);
    pkt_release(&p, a);
    pool_free(&p);
}

/* pool_free gives back the whole reservation (packet.c: 2^26 packets of
 * 64 bytes, 4 GiB of address space, mapped at pool_init): afterwards its
 * first page, a page past the first MiB and its last page are unmapped
 * (msync fails with ENOMEM), so runs that make many pools (sweeps, the
 * tests) do not run out of address space. */
static void test_pool_free_unmaps_the_whole_reservation(void **st)
{
    (void)st;
    struct packet_pool p;
    pool_init(&p, 64);
    assert_int_equal(p.reserved, 1u << 26);
    uintptr_t base = (uintptr_t)p.pkts;
    size_t bytes = (size_t)p.reserved * sizeof(struct packet);
    assert_int_equal(msync((void *)base, 4096, MS_ASYNC), 0);
    assert_int_equal(msync((void *)(base + bytes - 4096), 4096, MS_ASYNC), 0);
    pool_free(&p);
    const size_t offsets[] = {0, (1u << 20) + 4096, bytes - 4096};
    for (int i = 0; i < 3; i++) {
        errno = 0;
        if (msync((void *)(base + offsets[i]), 4096, MS_ASYNC) != -1 || errno != ENOMEM)
            fail_msg("the page at offset %zu of the freed reservation is still mapped", offsets[i]);
    }
}

/* pfc_close_stats at the end of a run adds the pause still under way on
 * each paused port (pfc.h: paused_ps is the total time the port was
 * paused): port 0 (host 0's NIC, which its ToR can pause) paused at 3 us
 * and never resumed counts 7 us at 10 us, as does the last port; a port
 * paused and resumed keeps only its closed pause. */
static void test_pfc_close_stats_counts_every_paused_port(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n1->0 id 1 start 0 size 4000\n", ".cm");
    c.end_ps = 1000 * PS_PER_US;
    c.progress = false;
    c.transport_name = "roce";
    c.paths = 1;
    c.lb_name = "single";
    sim_setup(&S, &c);
    unlink(c.tm_path);
    assert_non_null(S.pfc);
    uint32_t last = S.n_ports - 1, mid = S.n_ports / 2;
    S.now = 3 * PS_PER_US;
    pfc_event(&S, 0, PFC_AUX(PFC_PAUSE, 1));
    pfc_event(&S, last, PFC_AUX(PFC_PAUSE, 1));
    pfc_event(&S, mid, PFC_AUX(PFC_PAUSE, 1));
    S.now = 5 * PS_PER_US;
    pfc_event(&S, mid, PFC_AUX(PFC_RESUME, 1));
    S.now = 10 * PS_PER_US;
    pfc_close_stats(&S);
    assert_int_equal(S.pfc->st[0].paused_ps, 7 * PS_PER_US);
    assert_int_equal(S.pfc->st[last].paused_ps, 7 * PS_PER_US);
    assert_int_equal(S.pfc->st[mid].paused_ps, 2 * PS_PER_US);
    assert_int_equal(S.pfc->st[1].paused_ps, 0);
    sim_free(&S);
}

/* pfc_close_stats reads the flags of the sim's n_ports ports and no more:
 * here the arrays run one entry past them, a paused-looking port with a
 * pause begun at 0 ps, and that entry's pause time stays as it was. */
static void test_pfc_close_stats_stops_at_the_last_port(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n1->0 id 1 start 0 size 4000\n", ".cm");
    c.progress = false;
    c.transport_name = "roce";
    c.paths = 1;
    c.lb_name = "single";
    sim_setup(&S, &c);
    unlink(c.tm_path);
    uint32_t n = S.n_ports;
    struct port *ports = aligned_alloc(64, (size_t)(n + 1) * sizeof *ports);
    assert_non_null(ports);
    memcpy(ports, S.ports, (size_t)n * sizeof *ports);
    memset(&ports[n], 0, sizeof ports[n]);
    ports[n].flags = PORTF_PAUSED;
    free(S.ports);
    S.ports = ports;
    S.pfc->st = realloc(S.pfc->st, (size_t)(n + 1) * sizeof *S.pfc->st);
    S.pfc->paused_since = realloc(S.pfc->paused_since, (size_t)(n + 1) * sizeof *S.pfc->paused_since);
    assert_true(S.pfc->st && S.pfc->paused_since);
    S.pfc->st[n] = (struct pfc_port_stats){0};
    S.pfc->paused_since[n] = 0;
    S.now = 10 * PS_PER_US;
    pfc_close_stats(&S);
    assert_int_equal(S.pfc->st[n].paused_ps, 0);
    sim_free(&S);
}

/* sim_setup with PFC on (the RoCE transport), on `topo` (NULL: the
 * default 16-host tree) with `planes` planes; with `classes` (0: the
 * default 2) also --switch-stats. */
static void setup_pfc(const char *topo, uint32_t planes, uint32_t classes)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n1->0 id 1 start 0 size 4000\n", ".cm");
    if (topo)
        c.topo_path = temp_file(topo, ".topo");
    c.planes = planes;
    if (classes)
        c.n_classes = classes;
    c.switch_stats = classes != 0; /* the switches' buffer totals (--switch-stats) */
    c.end_ps = 1000 * PS_PER_US;
    c.progress = false;
    c.transport_name = "roce";
    c.paths = 1;
    c.lb_name = "single";
    sim_setup(&S, &c);
    assert_non_null(S.pfc);
}

/* PFC sends a PAUSE up the link a packet came in on, so every port needs
 * the other direction of its link (pfc.c find_reverse): the port from its
 * peer back to its owner, the k-th of a bundle's parallel links pairing
 * with the peer's k-th port back, a host's link with the NIC port of the
 * host's port in that plane. The pairing is therefore an involution with
 * owner and peer swapped, each port of a bundle paired with the port of
 * the same rank. Checked on every port of the default tree with two planes
 * and of a leaf-spine with 2-link bundles. */
static void check_reverse_ports(const char *what)
{
    for (uint32_t i = 0; i < S.n_ports; i++) {
        uint32_t r = S.pfc->reverse_port[i];
        if (r >= S.n_ports)
            fail_msg("%s: port %u (%u -> %u) has no reverse port", what, i, S.ports[i].owner_node, S.ports[i].peer_node);
        if (S.ports[r].owner_node != S.ports[i].peer_node || S.ports[r].peer_node != S.ports[i].owner_node)
            fail_msg("%s: port %u (%u -> %u) reversed by port %u (%u -> %u)", what, i, S.ports[i].owner_node,
                     S.ports[i].peer_node, r, S.ports[r].owner_node, S.ports[r].peer_node);
        if (S.pfc->reverse_port[r] != i)
            fail_msg("%s: port %u's reverse %u has reverse %u", what, i, r, S.pfc->reverse_port[r]);
        /* the same rank among the owner's ports to that peer on both sides */
        uint32_t rank_i = 0, rank_r = 0;
        for (uint32_t j = 0; j < i; j++)
            rank_i += S.ports[j].owner_node == S.ports[i].owner_node && S.ports[j].peer_node == S.ports[i].peer_node;
        for (uint32_t j = 0; j < r; j++)
            rank_r += S.ports[j].owner_node == S.ports[r].owner_node && S.ports[j].peer_node == S.ports[r].peer_node;
        if (rank_i != rank_r)
            fail_msg("%s: port %u is link %u of its bundle, its reverse %u link %u", what, i, rank_i, r, rank_r);
    }
}

static void test_pfc_reverse_port_of_every_port(void **st)
{
    (void)st;
    setup_pfc(NULL, 2, 0);
    assert_int_equal(S.topo.planes, 2);
    check_reverse_ports("default tree, 2 planes");
    sim_free(&S);
    setup_pfc("Nodes 16\nTiers 2\nPodsize 16\n"
              "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nDownlink_Latency_ns 1000\n"
              "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 8\nDownlink_Latency_ns 1000\nBundle 2\n",
              1, 0);
    assert_int_equal(S.switches[0].n_up, 4);
    check_reverse_ports("leaf-spine, 2-link bundles");
    sim_free(&S);
}

/* A data packet of class `prio` from host 1's NIC, as a ToR receives it. */
static uint32_t data_pkt(uint32_t ingress_port, uint32_t prio)
{
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = PKT_DATA;
    p->prio = (uint8_t)prio;
    p->size_bytes = S.cfg.mtu_bytes;
    p->src_host = 1;
    p->dst_host = 0;
    p->ingress_port = ingress_port;
    return idx;
}

/* net_close_stats ends each time integral at the end of the run with what
 * is still held (net.h: the integrals of queued bytes over time, for the
 * means): a ToR port holding class-1 and class-2 packets since 2 us adds
 * bytes x 5 us at 7 us to the port's, the class's and the switch's
 * integral (--switch-stats on), and moves their last change to 7 us. */
static void test_close_stats_counts_what_is_still_queued(void **st)
{
    (void)st;
    setup_pfc(NULL, 1, 3);
    uint32_t out = S.switches[0].first_port, in = S.hosts[1].nic_port;
    S.now = 2 * PS_PER_US;
    for (int i = 0; i < 3; i++)
        port_enqueue(&S, out, data_pkt(in, 1));
    for (int i = 0; i < 2; i++)
        port_enqueue(&S, out, data_pkt(in, 2));
    struct port *p = &S.ports[out];
    struct port_class *c = &p->x->c[0];
    struct switch_node *sw = &S.switches[0];
    assert_true(p->data_bytes > 0 && c->bytes > 0 && sw->buffered_bytes > 0);
    double port0 = p->st.occupancy_byte_ps, class0 = c->occupancy_byte_ps, sw0 = sw->buffered_byte_ps;
    simtime_ps port_t = p->st.last_change_ps, class_t = c->last_change_ps, sw_t = sw->buffered_changed_ps;
    assert_true(port_t <= S.now && class_t <= S.now && sw_t <= S.now);
    S.now = 7 * PS_PER_US;
    net_close_stats(&S);
    assert_true(p->st.occupancy_byte_ps == port0 + (double)p->data_bytes * (double)(S.now - port_t));
    assert_true(c->occupancy_byte_ps == class0 + (double)c->bytes * (double)(S.now - class_t));
    assert_true(sw->buffered_byte_ps == sw0 + (double)sw->buffered_bytes * (double)(S.now - sw_t));
    assert_int_equal(p->st.last_change_ps, S.now);
    assert_int_equal(c->last_change_ps, S.now);
    assert_int_equal(sw->buffered_changed_ps, S.now);
    sim_free(&S);
}

/* Runs the queued events of port `port` (its transmissions; arrivals are
 * released) until none is left; returns the packets that left. */
static int drain_port(uint32_t port)
{
    struct event ev;
    int n = 0;
    while (eq_pop(&S.eq, &ev)) {
        S.now = ev.time_ps;
        if (ev.kind == EV_PORT_TX_DONE && ev.id == port) {
            port_tx_done(&S, port);
        } else if (ev.kind == EV_PKT_ARRIVE) {
            pkt_release(&S.pool, ev.id);
            n++;
        }
    }
    return n;
}

/* Deficit round robin (--sched drr, and class-drr between data classes):
 * a class that is empty when its turn comes forfeits what it had saved
 * (net.c drr_pick, class_drr_pick; seed 004 Sec. IV-A's DRR). Six 4150-byte
 * packets of one class through ToR 0's first down port with the 4096-byte
 * default quantum: the class needs two turns per packet, so the other,
 * empty class gets turns and its deficit stays 0. */
static void test_drr_empty_class_keeps_no_deficit(void **st)
{
    (void)st;
    for (int classes = 0; classes <= 1; classes++) {
        struct config c;
        config_defaults(&c);
        c.tm_path = temp_file("Nodes 16\nConnections 1\n1->0 id 1 start 0 size 4000\n", ".cm");
        c.progress = false;
        if (classes) {
            c.class_drr = true;
            c.n_classes = 3;
        } else {
            c.drr = true;
        }
        sim_setup(&S, &c);
        unlink(c.tm_path);
        assert_int_equal(S.cfg.drr_quantum_bytes, 4096);
        uint32_t out = S.switches[0].first_port, in = S.hosts[1].nic_port;
        for (int i = 0; i < 6; i++)
            port_enqueue(&S, out, data_pkt(in, 1));
        assert_int_equal(drain_port(out), 6);
        if (classes)
            assert_int_equal(S.ports[out].x->deficit[2], 0);
        else
            assert_int_equal(S.ports[out].drr->deficit[1], 0);
        sim_free(&S);
    }
}

/* Where no transport decided a class's ECN, the class marks as the fabric's
 * switch ports were built (net/policy.c base_ecn_on reads the first switch
 * port's PORTF_ECN): with the flag cleared on every switch port the data
 * class reads as unmarked, with it set as RED. (The default UET run's own
 * decision is dropped by hand to reach the fallback.) */
static void test_class_ecn_without_a_decision_follows_the_ports(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n1->0 id 1 start 0 size 4000\n", ".cm");
    c.progress = false;
    sim_setup(&S, &c);
    unlink(c.tm_path);
    memset(&S.class_policy[PKT_PRIO_DATA], 0, sizeof S.class_policy[PKT_PRIO_DATA]);
    uint32_t step = 7;
    assert_int_equal(net_class_ecn(&S, PKT_PRIO_DATA, &step), NET_ECN_RED);
    assert_int_equal(step, 0);
    for (uint32_t i = S.n_hosts * S.topo.planes; i < S.n_ports; i++)
        S.ports[i].flags &= (uint16_t)~PORTF_ECN;
    assert_int_equal(net_class_ecn(&S, PKT_PRIO_DATA, &step), NET_ECN_OFF);
    sim_free(&S);
}

static int teardown(void **st)
{
    (void)st;
    temp_files_remove();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_peak_starts_at_zero),
        cmocka_unit_test(test_pool_free_unmaps_the_whole_reservation),
        cmocka_unit_test(test_pfc_close_stats_counts_every_paused_port),
        cmocka_unit_test(test_pfc_close_stats_stops_at_the_last_port),
        cmocka_unit_test(test_pfc_reverse_port_of_every_port),
        cmocka_unit_test(test_close_stats_counts_what_is_still_queued),
        cmocka_unit_test(test_drr_empty_class_keeps_no_deficit),
        cmocka_unit_test(test_class_ecn_without_a_decision_follows_the_ports),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
