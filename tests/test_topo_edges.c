/* test_topo_edges.c: the edges of src/topo/ that test_topo.c and
 * test_failures.c pass over: each bound of the failure grammar at both ends
 * (a bundle member, times and delays up to 1e9 us, a rate from 1 Mb/s to
 * the link's speed, events at one instant), the reference form's switch and
 * link numbers one past the last, the warning for an event at -end, and
 * --class-opt applied to the extra classes' ports only as given. Expected
 * values come from the grammar in failures.c's header and docs/models.md
 * "Failures", worked out by hand (issue 26: each test here failed with a
 * mutant that the older tests let through).
 */
#include "testutil.h"

#include <malloc.h>
#include <sys/wait.h>

#include "sim.h"
#include "topo/fabric.h"
#include "topo/failures.h"
#include "topo/topo.h"

static struct sim S;

/* Node ids of the default 16-node 3-tier tree (k = 4): hosts 0-15, ToRs
 * 16-23 (two hosts each), aggs 24-31 (two per pod), cores 32-35. */
enum { TOR0 = 16, AGG0 = 24, CORE0 = 32 };

static const char *ONE_FLOW_CM = "Nodes 16\nConnections 1\n0->15 start 0 size 100000\n";

/* sim_setup on the default tree with `cm` as the matrix. */
static void setup_cm(struct config *c, const char *cm)
{
    config_defaults(c);
    c->tm_path = temp_file(cm, ".cm");
    c->progress = false;
}

static void setup_default(void)
{
    struct config c;
    setup_cm(&c, ONE_FLOW_CM);
    sim_setup(&S, &c);
}

static void expect_error(const char *spec, const char *needle)
{
    char err[512] = "";
    uint32_t before = S.n_link_events;
    if (failures_parse_spec(&S, spec, err, sizeof err))
        fail_msg("'%s' was accepted", spec);
    if (!strstr(err, needle))
        fail_msg("'%s': message \"%s\" does not mention \"%s\"", spec, err, needle);
    assert_int_equal(S.n_link_events, before); /* a rejected spec leaves nothing */
}

/* Accepted, adding `events` events; returns the first. */
static uint32_t expect_ok(const char *spec, uint32_t events)
{
    char err[512] = "";
    uint32_t before = S.n_link_events;
    if (!failures_parse_spec(&S, spec, err, sizeof err))
        fail_msg("'%s' refused: %s", spec, err);
    assert_int_equal(S.n_link_events - before, events);
    return before;
}

/* sim_setup of cfg in a child: exit status and stderr (for die_input and
 * warnings). */
static int setup_in_child(const struct config *cfg, char *out, size_t outlen)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        struct sim *s = calloc(1, sizeof *s);
        sim_setup(s, cfg);
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < outlen && (r = read(fds[0], out + n, outlen - 1 - n)) > 0)
        n += (size_t)r;
    out[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* ---- the failure grammar's bounds ------------------------------------------------------- */

/* 'member K': any whole number below 2^32 - 1 names a member (and the link
 * may not have it); 2^32 - 1 itself is refused as a number, as is 2^32. */
static void test_member_bound(void **st)
{
    (void)st;
    setup_default();
    expect_ok("link tor0 agg0 member 0 down", 1);
    expect_error("link tor0 agg0 member 4294967294 down", "there is no link tor0-agg0 with that member");
    expect_error("link tor0 agg0 member 4294967295 down", "'member' needs a whole number");
    expect_error("link tor0 agg0 member 4294967296 down", "'member' needs a whole number");
    expect_error("link tor0 agg0 member", "'member' needs a whole number");
    sim_free(&S);
}

/* Times and delays: 0 to 1e9 us, both ends included; rates: at least
 * 1 Mb/s (0.001 Gb/s) and at most the link's own 100 Gb/s. Values are
 * stored in ps and Mb/s. */
static void test_time_delay_and_rate_ranges(void **st)
{
    (void)st;
    setup_default();
    uint32_t e = expect_ok("link tor0 agg0 delay 1e9 at 1e9", 1);
    assert_true(S.link_events[e].at_ps == (simtime_ps)1000000000 * PS_PER_US);
    assert_true(S.link_events[e].value == (uint64_t)1000000000 * PS_PER_US);
    e = expect_ok("link tor0 agg0 delay 0 at 0", 1);
    assert_true(S.link_events[e].at_ps == 0 && S.link_events[e].value == 0);
    expect_error("link tor0 agg0 delay 1000000000.5", "'delay' needs a number from 0 to 1e+09");
    expect_error("link tor0 agg0 down at 1000000000.5", "'at' needs a time from 0 to 1e+09");
    expect_error("link tor0 agg0 delay -0.5", "'delay' needs a number from 0");
    expect_error("link tor0 agg0 down at -0.5", "'at' needs a time from 0");
    e = expect_ok("link tor0 agg0 rate 0.001", 1);
    assert_int_equal(S.link_events[e].value, 1);
    assert_true(S.link_events[e].at_ps == 0); /* no 'at': from the start */
    e = expect_ok("link tor0 agg0 rate 100", 1);
    assert_int_equal(S.link_events[e].value, 100000);
    e = expect_ok("link tor0 agg0 rate 99.999", 1);
    assert_int_equal(S.link_events[e].value, 99999);
    expect_error("link tor0 agg0 rate 0.0009", "must be above 0 and at most the link's 100 Gb/s");
    expect_error("link tor0 agg0 rate 100.001", "must be above 0 and at most the link's 100 Gb/s");
    sim_free(&S);
}

/* Events in time order, two at one instant allowed; 'mark' stores 1 and
 * 'unmark' 0; a switch gets one event per link, each naming its two ports. */
static void test_event_order_and_values(void **st)
{
    (void)st;
    setup_default();
    uint32_t e = expect_ok("link tor0 agg1 down at 50 up at 50 mark at 50 unmark at 60", 4);
    assert_int_equal(S.link_events[e].kind, LC_DOWN);
    assert_int_equal(S.link_events[e + 1].kind, LC_UP);
    assert_int_equal(S.link_events[e + 2].kind, LC_MARK);
    assert_int_equal(S.link_events[e + 2].value, 1);
    assert_int_equal(S.link_events[e + 3].kind, LC_MARK);
    assert_int_equal(S.link_events[e + 3].value, 0);
    assert_true(S.link_events[e + 3].at_ps == 60 * PS_PER_US);
    expect_error("link tor0 agg1 up at 50.5 down at 50.25", "'down at 50.25' comes after 'up at 50.5'");
    /* agg0 has 2 down and 2 up links: 4 events, each a port and its way back */
    e = expect_ok("switch agg0 down", 4);
    for (uint32_t k = 0; k < 4; k++) {
        const struct link_event *l = &S.link_events[e + k];
        assert_int_equal(S.ports[l->port_a].owner_node, AGG0);
        assert_int_equal(S.ports[l->port_b].owner_node, S.ports[l->port_a].peer_node);
        assert_int_equal(S.ports[l->port_b].peer_node, AGG0);
    }
    sim_free(&S);
}

/* The reference form names a switch by its index in its tier and a link by
 * its up port (TOR, AGG) or down port (CORE): the last of each is taken,
 * one past it is refused with the counts (default tree: 8 ToRs and 8 aggs
 * with 2 uplinks each, 4 cores with 4 down links). */
static void expect_reference(const char *line, int want_status, const char *needle)
{
    char cm[256], out[2048];
    snprintf(cm, sizeof cm, "Nodes 16\nConnections 1\nFailures 1\n0->15 start 0 size 1000\nfailure %s\n", line);
    struct config c;
    setup_cm(&c, cm);
    c.end_ps = 5 * PS_PER_US;
    int status = setup_in_child(&c, out, sizeof out);
    if (status != want_status || !strstr(out, needle))
        fail_msg("'%s': status %d, stderr \"%s\"; expected %d and \"%s\"", line, status, out, want_status, needle);
}

static void test_reference_form_last_and_one_past(void **st)
{
    (void)st;
    expect_reference("switch_type TOR switch_id 7 link_id 1", 0, "");
    expect_reference("switch_type TOR switch_id 8 link_id 0", 2, "TOR switch 8 does not exist (8 of them)");
    expect_reference("switch_type TOR switch_id 7 link_id 2", 2, "TOR 7 has 2 uplinks; link_id 2 does not exist");
    expect_reference("switch_type AGG switch_id 7 link_id 1", 0, "");
    expect_reference("switch_type AGG switch_id 8 link_id 0", 2, "AGG switch 8 does not exist (8 of them)");
    expect_reference("switch_type AGG switch_id 0 link_id 2", 2, "AGG 0 has 2 uplinks; link_id 2 does not exist");
    expect_reference("switch_type CORE switch_id 3 link_id 3", 0, "");
    expect_reference("switch_type CORE switch_id 4 link_id 0", 2, "CORE switch 4 does not exist (4 of them)");
    expect_reference("switch_type CORE switch_id 3 link_id 4", 2, "core 3 has 4 links; link_id 4 does not exist");
}

/* An event at or after -end cannot change the run: one warning, naming it;
 * one just before -end gets none. */
static void test_event_at_end_warns(void **st)
{
    (void)st;
    static const char *specs[] = {"link tor0 agg0 down at 9.999999", "link tor0 agg0 down at 10"};
    for (int late = 0; late <= 1; late++) {
        struct config c;
        setup_cm(&c, ONE_FLOW_CM);
        c.end_ps = 10 * PS_PER_US;
        c.fail_specs[c.n_fail_specs++] = specs[late];
        char out[2048];
        assert_int_equal(setup_in_child(&c, out, sizeof out), 0);
        bool warned = strstr(out, "--fail: the event at 10 us is at or after -end 10 us") != NULL;
        if (warned != (late == 1))
            fail_msg("'%s': stderr \"%s\"", specs[late], out);
    }
}

/* ---- --class-opt on the fabric's ports ---------------------------------------------------- */

/* Only the first n_class_opts entries of the configuration are options:
 * whatever lies past them (here a stale "ecn=0" for class 2, as a caller
 * that dropped its last option would leave it) changes no port. */
static void test_class_opts_past_the_count_are_ignored(void **st)
{
    (void)st;
    struct config c;
    setup_cm(&c, ONE_FLOW_CM);
    c.n_classes = 3;
    c.class_opts[0] = (struct class_opt){.cls = 2, .name = "queue_bytes", .value = 123456};
    c.class_opts[1] = (struct class_opt){.cls = 2, .name = "ecn", .value = 0};
    c.n_class_opts = 1;
    sim_setup(&S, &c);
    uint32_t seen = 0;
    for (uint32_t i = S.n_hosts; i < S.n_ports; i++) {
        const struct port *p = &S.ports[i];
        if (p->owner_node < S.n_hosts || !p->x)
            continue;
        seen++;
        assert_int_equal(p->x->c[0].limit_bytes, 123456);
        assert_true(p->x->c[0].ecn);
    }
    assert_true(seen > 0);
    sim_free(&S);
}

/* ---- --random-failures with planes ------------------------------------------------------- */

/* --random-failures draws over plane 0's inter-switch links only (failures
 * apply to plane 0, as htsim's), and sizes the matrix's failure lines for
 * them plus one: on the default tree with -planes 2, 8 ToRs and 8 aggs of
 * 2 uplinks each, 32 links, 33 entries. Counting plane 1's first switch
 * too would ask for two entries more (and with one plane read past the
 * switch array). With P = 1 every one of the 32 fails, none of plane 1. */
static void test_random_failures_count_plane_0_only(void **st)
{
    (void)st;
    struct config c;
    setup_cm(&c, ONE_FLOW_CM);
    c.planes = 2;
    c.random_failure_p = 1;
    sim_setup(&S, &c);
    assert_int_equal(S.topo.planes, 2);
    assert_int_equal(S.inter_switch_links, 32);
    assert_int_equal(S.random_failed_links, 32);
    assert_int_equal(S.cm.n_failures, 32);
    size_t room = malloc_usable_size(S.cm.failures), asked = 33 * sizeof(struct cm_failure);
    if (room < asked || room >= asked + 2 * sizeof(struct cm_failure))
        fail_msg("failure lines: %zu bytes of room, for %zu asked", room, asked);
    /* each line became one link event between two plane 0 switches */
    assert_int_equal(S.n_link_events, 32);
    for (uint32_t i = 0; i < S.n_link_events; i++) {
        const struct port *a = &S.ports[S.link_events[i].port_a], *b = &S.ports[S.link_events[i].port_b];
        assert_int_equal(S.link_events[i].kind, LC_DOWN);
        assert_true(a->owner_node >= S.n_hosts && b->owner_node >= S.n_hosts);
        assert_int_equal(S.switches[a->owner_node - S.n_hosts].plane, 0);
        assert_int_equal(S.switches[b->owner_node - S.n_hosts].plane, 0);
    }
    sim_free(&S);
}

/* ---- the .topo reader's limits ------------------------------------------------------------ */

/* A two-tier file of 16 hosts (4 ToRs of 4, 2 spines), 12 lines, after an
 * optional first line and `pad_lines` comment lines; `latency` is tier 0's
 * Downlink_Latency_ns. */
#define LS16                                                                                        \
    "Nodes 16\nTiers 2\nPodsize 16\n"                                                              \
    "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 2\nDownlink_Latency_ns %s\n"          \
    "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n"
enum { LS16_LINES = 12 };

static bool read_ls16(struct topo_spec *spec, size_t pad_lines, const char *first_line, const char *latency,
                      char *err, size_t errlen)
{
    size_t cap = pad_lines * 2 + 4096;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t n = 0;
    if (first_line)
        n += (size_t)snprintf(text + n, cap - n, "%s\n", first_line);
    for (size_t i = 0; i < pad_lines; i++) {
        text[n++] = '#';
        text[n++] = '\n';
    }
    n += (size_t)snprintf(text + n, cap - n, LS16, latency);
    bool ok = topo_read_buffer(spec, "e.topo", text, n, err, errlen);
    free(text);
    return ok;
}

/* At most 100,000 lines of at most 1023 bytes: both limits are reached
 * exactly by a good file and passed by one byte or one line. A number is
 * any 32-bit value: Downlink_Latency_ns 4294967295 is taken (as ps),
 * 4294967296 is not a number for it. */
static void test_topo_reader_limits_exactly(void **st)
{
    (void)st;
    struct topo_spec spec;
    char err[512];
    assert_true(read_ls16(&spec, 100000 - LS16_LINES, NULL, "1000", err, sizeof err));
    assert_false(read_ls16(&spec, 100000 - LS16_LINES + 1, NULL, "1000", err, sizeof err));
    assert_non_null(strstr(err, "e.topo:100001: more than 100000 lines"));
    char line[1100];
    memset(line, 'x', sizeof line);
    line[0] = '#';
    line[1023] = '\0';
    assert_true(read_ls16(&spec, 0, line, "1000", err, sizeof err));
    line[1023] = 'x';
    line[1024] = '\0';
    assert_false(read_ls16(&spec, 0, line, "1000", err, sizeof err));
    assert_non_null(strstr(err, "e.topo:1: line longer than 1023 bytes"));
    /* a last line without its newline is a line: one byte of it too */
    static const char no_newline[] = "Nodes 16\nTiers 2\nPodsize 16\nx";
    assert_false(topo_read_buffer(&spec, "n.topo", no_newline, sizeof no_newline - 1, err, sizeof err));
    assert_non_null(strstr(err, "n.topo:4: 'x' needs a value"));
    assert_true(read_ls16(&spec, 0, NULL, "4294967295", err, sizeof err));
    assert_true(spec.tier[0].downlink_latency_ps == 4294967295ULL * PS_PER_NS);
    assert_false(read_ls16(&spec, 0, NULL, "4294967296", err, sizeof err));
    assert_non_null(strstr(err, "'4294967296' is not a non-negative integer for 'downlink_latency_ns'"));
}

/* Switch sides of 65,535 ports are the most (16-bit counts): a ToR with
 * 65,535 hosts is derived, 65,536 is refused (test_topo.c). */
/* Oversubscription at tier 1 of a 3-tier tree takes uplinks away from the
 * aggregation switches: 16 hosts in 4 pods, 8 ToRs and 8 aggs, and with
 * tier 1 Oversubscribed 2 each agg has 16 x 100 / (100 x 2) / 8 = 1 uplink,
 * to one of 2 cores. */
static void test_topo_tier1_oversubscription(void **st)
{
    (void)st;
    static const char text[] = "Nodes 16\nTiers 3\nPodsize 4\n"
                               "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 2\nRadix_Up 2\nDownlink_Latency_ns 1000\n"
                               "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 2\nRadix_Up 1\nOversubscribed 2\n"
                               "Downlink_Latency_ns 1000\n"
                               "Tier 2\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n";
    struct topo_spec spec;
    struct topo t;
    char err[512];
    assert_true(topo_read_buffer(&spec, "o.topo", text, sizeof text - 1, err, sizeof err));
    if (!topo_derive(&t, &spec, err, sizeof err))
        fail_msg("refused: %s", err);
    assert_int_equal(t.n_tor, 8);
    assert_int_equal(t.n_agg, 8);
    assert_int_equal(t.n_core, 2);
    assert_int_equal(t.cores_per_agg, 1);
}

static void test_topo_ports_per_side_at_the_limit(void **st)
{
    (void)st;
    static const char text[] = "Nodes 65535\nTiers 2\nPodsize 65535\n"
                               "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 65535\nRadix_Up 1\n"
                               "Oversubscribed 65535\nDownlink_Latency_ns 1000\n"
                               "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 1\nDownlink_Latency_ns 1000\n";
    struct topo_spec spec;
    struct topo t;
    char err[512];
    assert_true(topo_read_buffer(&spec, "w.topo", text, sizeof text - 1, err, sizeof err));
    if (!topo_derive(&t, &spec, err, sizeof err))
        fail_msg("refused: %s", err);
    assert_int_equal(t.n_tor, 1);
    assert_int_equal(t.hosts_per_tor, 65535);
    assert_int_equal(t.n_agg, 1);
    /* a core's down ports are pods x the tier 2 Bundle: 32,768 one-host
     * pods with Bundle 2 make one core of 65,536, refused */
    static const char core_side[] = "Nodes 32768\nTiers 3\nPodsize 1\n"
                                    "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 1\nRadix_Up 1\nDownlink_Latency_ns 1000\n"
                                    "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 1\nRadix_Up 2\nDownlink_Latency_ns 1000\n"
                                    "Tier 2\nDownlink_speed_Gbps 50\nRadix_Down 65536\nDownlink_Latency_ns 1000\nBundle 2\n";
    assert_true(topo_read_buffer(&spec, "c.topo", core_side, sizeof core_side - 1, err, sizeof err));
    assert_false(topo_derive(&t, &spec, err, sizeof err));
    assert_non_null(strstr(err, "a core's down ports would be 65536; at most 65535"));
}

/* ---- -failed at its bound ------------------------------------------------------------------ */

/* -failed N (htsim): in a 3-tier tree the core->agg direction of the first
 * N agg-core links; the default tree has 8 aggs of 2 core links each, so
 * N = 16 slows every core->agg port (and nothing else) to a quarter, and
 * N = 17 is refused, naming the 16. */
static void test_failed_links_up_to_every_link(void **st)
{
    (void)st;
    struct config c;
    setup_cm(&c, ONE_FLOW_CM);
    c.failed_links = 16;
    sim_setup(&S, &c);
    uint32_t slow = 0;
    for (uint32_t i = 0; i < S.n_ports; i++) {
        const struct port *p = &S.ports[i];
        bool core_down = p->owner_node >= CORE0 && p->owner_node < CORE0 + 4;
        assert_int_equal(p->rate_mbps, core_down ? 25000 : 100000);
        slow += core_down;
    }
    assert_int_equal(slow, 16);
    sim_free(&S);
    setup_cm(&c, ONE_FLOW_CM);
    c.failed_links = 17;
    char out[1024];
    assert_int_equal(setup_in_child(&c, out, sizeof out), 2);
    assert_non_null(strstr(out, "-failed 17: this topology has only 16 aggregation-core links that rule applies to"));
}

/* ---- adaptive routing at ToR 0 --------------------------------------------------------------- */

/* The default tree under --routing ar: ToR 0 (switch 0) has two up ports;
 * a packet to host 15 (another pod) goes up through one of them. The
 * tests set the two ports' queues by hand and ask fabric_route. */
static uint32_t UP0;

static void setup_ar(bool bands, bool flowlet)
{
    struct config c;
    setup_cm(&c, ONE_FLOW_CM);
    c.routing = ROUTE_AR;
    c.ar_bands = bands;
    c.ar_quantum_bytes = 1000;
    c.ar_flowlet = flowlet;
    c.ar_sticky_delta_ps = 10 * PS_PER_US;
    sim_setup(&S, &c);
    assert_int_equal(S.cfg.ar_quantum_bytes, 1000);
    const struct switch_node *tor0 = &S.switches[0];
    assert_int_equal(tor0->n_up, 2);
    UP0 = tor0->first_port + tor0->n_down;
    for (uint32_t k = 0; k < 2; k++) {
        S.ports[UP0 + k].data_limit_bytes = 100000;
        S.ports[UP0 + k].data_bytes = 0;
    }
}

/* The up port (0 or 1) ToR 0 picks for flow `flow`'s packet of `bytes`
 * at time `now`. */
static uint32_t up_pick(uint32_t flow, uint32_t bytes, simtime_ps now)
{
    struct packet p;
    memset(&p, 0, sizeof p);
    p.type = PKT_DATA;
    p.flow = flow;
    p.entropy = (uint16_t)(flow * 7);
    p.dst_host = 15;
    p.size_bytes = bytes;
    S.now = now;
    uint32_t port = fabric_route(&S, 0, &p);
    assert_true(port == UP0 || port == UP0 + 1);
    return port - UP0;
}

static void set_queues(uint32_t a_bytes, uint32_t b_bytes)
{
    S.ports[UP0].data_bytes = a_bytes;
    S.ports[UP0 + 1].data_bytes = b_bytes;
}

/* htsim's bands (below 5%, 10%, 20% of the limit, or above): a queue of
 * exactly 5%, 10% or 20% is in the band above, so a port one byte short of
 * it is strictly better; a queue without a limit is in band 0 whatever it
 * holds. Each pick resamples (1 us apart: more than 0.1 us). */
static void test_ar_bands_at_their_edges(void **st)
{
    (void)st;
    setup_ar(true, false);
    static const uint32_t edge[3][2] = {{5000, 0}, {10000, 9999}, {20000, 19999}};
    simtime_ps t = PS_PER_US;
    for (int e = 0; e < 3; e++)
        for (int k = 0; k < 16; k++, t += PS_PER_US) {
            set_queues(edge[e][0], edge[e][1]);
            if (up_pick((uint32_t)k, 4000, t) != 1)
                fail_msg("port 0 at %u bytes, port 1 at %u: port 0 taken", edge[e][0], edge[e][1]);
            set_queues(edge[e][1], edge[e][0]);
            assert_int_equal(up_pick((uint32_t)k, 4000, t += PS_PER_US), 0);
        }
    /* no limit: band 0 however full, better than port 1's band 1 */
    S.ports[UP0].data_limit_bytes = QUEUE_INFINITE_BYTES;
    set_queues(3000000000u, 5000);
    for (int k = 0; k < 8; k++)
        assert_int_equal(up_pick((uint32_t)k, 4000, t += PS_PER_US), 0);
    sim_free(&S);
}

/* A band is sampled again only when more than 0.1 us passed since its last
 * sample: exactly 0.1 us later the old bands still decide. */
static void test_ar_band_sample_period(void **st)
{
    (void)st;
    setup_ar(true, false);
    const simtime_ps t0 = 3 * PS_PER_US, period = PS_PER_US / 10;
    set_queues(50000, 0);
    assert_int_equal(up_pick(1, 4000, t0), 1);
    set_queues(0, 50000);
    for (uint32_t f = 0; f < 8; f++)
        assert_int_equal(up_pick(f, 4000, t0 + period), 1);
    assert_int_equal(up_pick(1, 4000, t0 + period + 1), 0);
    sim_free(&S);
}

/* Seed 004's measure: the queue in units of --ar-quantum (1000 bytes
 * here), read at once: 999 bytes is 0 units like an empty queue, 1000 is
 * one. */
static void test_ar_quantum_units(void **st)
{
    (void)st;
    setup_ar(false, false);
    simtime_ps t = PS_PER_US;
    for (uint32_t f = 0; f < 16; f++) {
        set_queues(1000, 999);
        assert_int_equal(up_pick(f, 4000, t += 1000), 1);
        set_queues(999, 1000);
        assert_int_equal(up_pick(f, 4000, t += 1000), 0);
    }
    /* 0 and 999 bytes tie: both ports get packets */
    set_queues(0, 999);
    uint32_t on1 = 0;
    for (uint32_t f = 0; f < 32; f++)
        on1 += up_pick(f, 4000, t += 1000);
    assert_true(on1 > 0 && on1 < 32);
    sim_free(&S);
}

/* -ar_granularity flow: a flow keeps its port while its packets come at
 * most -ar_sticky_delta (10 us) apart, even onto a longer queue, and a gap
 * of exactly 10 us is not more; after a longer gap it moves, with
 * probability 1/2, and only to a strictly shorter queue. Packets under 100
 * bytes are routed per packet and leave the flow's port alone; a 100-byte
 * one is a flowlet packet. 600 flows also grow the table past its first
 * 1024 slots (half full at 512), and every flow keeps its entry. */
static void test_ar_flowlets_sticky_edges(void **st)
{
    (void)st;
    setup_ar(false, true);
    enum { FLOWS = 600 };
    static uint8_t port[FLOWS];
    const simtime_ps t0 = PS_PER_US, gap = 10 * PS_PER_US;
    for (uint32_t f = 0; f < FLOWS; f++)
        port[f] = (uint8_t)up_pick(f, 4000, t0);
    /* port 0 much worse from now on: within the gap nobody moves */
    set_queues(50000, 0);
    for (uint32_t f = 0; f < FLOWS; f++)
        if (up_pick(f, 4000, t0 + gap) != port[f])
            fail_msg("flow %u left port %u after exactly the sticky gap", f, port[f]);
    /* a control-size packet (99 bytes) takes the better port, per packet,
     * and does not touch the flow's entry */
    for (uint32_t f = 0; f < 64; f++)
        assert_int_equal(up_pick(f, 99, t0 + gap + 1), 1);
    for (uint32_t f = 0; f < FLOWS; f++)
        assert_int_equal(up_pick(f, 100, t0 + 2 * gap), port[f]);
    /* equal queues after a long gap: no move (not strictly shorter) */
    set_queues(7000, 7000);
    for (uint32_t f = 0; f < FLOWS; f++)
        assert_int_equal(up_pick(f, 4000, t0 + 4 * gap), port[f]);
    /* port 0 worse again, a long gap: about half its flows move to port 1 */
    set_queues(50000, 0);
    uint32_t on0 = 0, moved = 0;
    for (uint32_t f = 0; f < FLOWS; f++) {
        uint32_t now_port = up_pick(f, 4000, t0 + 6 * gap);
        on0 += port[f] == 0;
        if (port[f] == 1)
            assert_int_equal(now_port, 1);
        moved += port[f] == 0 && now_port == 1;
    }
    assert_true(on0 > 100);
    /* a fair coin per flow: between a quarter and three quarters move */
    assert_true(moved > on0 / 4 && moved < 3 * on0 / 4);
    sim_free(&S);
}

/* ---- per-tier queues ------------------------------------------------------------------------ */

/* A 16-host leaf-spine (4 ToRs of 4 hosts, 4 spines) with per-tier queue
 * lines: `t0` after tier 0's lines, `t1` after tier 1's. */
static const char *ls16_with_queues(const char *t0, const char *t1)
{
    static char text[1024];
    snprintf(text, sizeof text,
             "Nodes 16\nTiers 2\nPodsize 16\n"
             "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nDownlink_Latency_ns 1000\n%s"
             "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n%s",
             t0, t1);
    return text;
}

static void config_topo(struct config *c, const char *topo)
{
    setup_cm(c, ONE_FLOW_CM);
    c->topo_path = temp_file(topo, ".topo");
}

/* Adaptive routing's choices at every aggregation switch of the default
 * 3-tier tree, from the fabric as built: a packet for a host whose ToR
 * hangs below this switch goes down the port to that ToR; any other goes
 * up (the pods are read off the links, not from the index arithmetic
 * that routing uses). */
static void check_aggregation_routes(void)
{
    assert_int_equal(S.topo.spec.tiers, 3);
    uint32_t checked_down = 0, checked_up = 0;
    for (uint32_t a = 0; a < S.n_switches; a++) {
        const struct switch_node *agg = &S.switches[a];
        if (agg->tier != 1)
            continue;
        for (uint32_t h = 0; h < S.n_hosts; h++) {
            uint32_t tor_node = UINT32_MAX; /* h's ToR: the tier-0 switch with a port down to h */
            for (uint32_t t = 0; t < S.n_switches && tor_node == UINT32_MAX; t++) {
                const struct switch_node *tor = &S.switches[t];
                for (uint32_t k = 0; tor->tier == 0 && k < tor->n_down; k++)
                    if (S.ports[tor->first_port + k].peer_node == h)
                        tor_node = S.n_hosts + t;
            }
            assert_int_not_equal(tor_node, UINT32_MAX);
            bool below = false;
            for (uint32_t k = 0; k < agg->n_down; k++)
                below |= S.ports[agg->first_port + k].peer_node == tor_node;
            struct packet p;
            memset(&p, 0, sizeof p);
            p.type = PKT_DATA;
            p.flow = 0;
            p.entropy = (uint16_t)(h * 7 + a);
            p.dst_host = h;
            p.size_bytes = 1000;
            S.now = (simtime_ps)(a * S.n_hosts + h + 1) * PS_PER_US;
            uint32_t port = fabric_route(&S, a, &p);
            if (below) {
                assert_true(port >= agg->first_port && port < agg->first_port + agg->n_down);
                assert_int_equal(S.ports[port].peer_node, tor_node);
                checked_down++;
            } else {
                assert_true(port >= agg->first_port + agg->n_down && port < agg->first_port + agg->n_down + agg->n_up);
                checked_up++;
            }
        }
    }
    print_message("%u down and %u up choices checked\n", checked_down, checked_up);
    assert_true(checked_down > 0 && checked_up > 0);
}

static void test_ar_at_each_aggregation_switch_goes_down_only_in_its_pod(void **st)
{
    (void)st;
    setup_ar(false, false);
    check_aggregation_routes();
    sim_free(&S);
    /* and with two links from each aggregation switch to each of its ToRs
     * (Bundle 2: the port toward a ToR is the first of its two) */
    struct config c;
    config_topo(&c, "Nodes 16\nTiers 3\nPodsize 8\n"
                    "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nDownlink_Latency_ns 1000\n"
                    "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nDownlink_Latency_ns 1000\nBundle 2\n"
                    "Tier 2\nDownlink_speed_Gbps 100\nRadix_Down 2\nDownlink_Latency_ns 1000\nBundle 1\n");
    c.routing = ROUTE_AR;
    sim_setup(&S, &c);
    assert_int_equal(S.topo.tor_bundle, 2);
    check_aggregation_routes();
    sim_free(&S);
}

/* A tier's queue must hold one packet (-mtu, with its headers):
 * exactly one is enough, one byte less is refused, for Queue_Down and for
 * the Queue_Up of a tier that has uplinks; the top tier's Queue_Up (a
 * 2-tier file may give one) queues nothing and is not checked. A file's
 * queues make the run's queues differ from the default only where one is
 * used and not the default's size. */
static void test_tier_queues_at_one_packet(void **st)
{
    (void)st;
    struct config c;
    config_topo(&c, ls16_with_queues("", ""));
    sim_setup(&S, &c);
    const uint32_t mtu = S.cfg.mtu_bytes, dflt = S.queue_bytes;
    assert_true(mtu > 1000 && dflt > mtu);
    assert_false(S.tier_queues_differ);
    sim_free(&S);

    char t0[128], t1[128];
    snprintf(t0, sizeof t0, "Queue_Down %u\nQueue_Up %u\n", mtu, mtu);
    snprintf(t1, sizeof t1, "Queue_Down %u\nQueue_Up 100\n", mtu);
    config_topo(&c, ls16_with_queues(t0, t1));
    sim_setup(&S, &c);
    assert_int_equal(S.tier_queue_down_bytes[0], mtu);
    assert_int_equal(S.tier_queue_up_bytes[0], mtu);
    assert_int_equal(S.tier_queue_down_bytes[1], mtu);
    assert_true(S.tier_queues_differ);
    sim_free(&S);

    /* the default's own size, and a top-tier Queue_Up: nothing differs */
    snprintf(t0, sizeof t0, "Queue_Down %u\nQueue_Up %u\n", dflt, dflt);
    snprintf(t1, sizeof t1, "Queue_Down %u\nQueue_Up 100\n", dflt);
    config_topo(&c, ls16_with_queues(t0, t1));
    sim_setup(&S, &c);
    assert_false(S.tier_queues_differ);
    sim_free(&S);
    /* a queue of twice the default's size: the port's limit and its ECN
     * thresholds (the run's, scaled to the port's limit) double */
    snprintf(t0, sizeof t0, "Queue_Down %u\n", 2 * dflt);
    config_topo(&c, ls16_with_queues(t0, ""));
    sim_setup(&S, &c);
    const struct switch_node *tor0 = &S.switches[0];
    const struct port *down = &S.ports[tor0->first_port], *up = &S.ports[tor0->first_port + tor0->n_down];
    assert_int_equal(down->data_limit_bytes, 2 * dflt);
    assert_int_equal(down->ecn_kmin_bytes, 2 * S.ecn_kmin_bytes_default);
    assert_int_equal(down->ecn_kmax_bytes, 2 * S.ecn_kmax_bytes_default);
    assert_int_equal(up->data_limit_bytes, dflt);
    assert_int_equal(up->ecn_kmin_bytes, S.ecn_kmin_bytes_default);
    assert_int_equal(up->ecn_kmax_bytes, S.ecn_kmax_bytes_default);
    assert_true(S.ecn_kmin_bytes_default > 0 && S.ecn_kmin_bytes_default < S.ecn_kmax_bytes_default);
    sim_free(&S);
    /* only tier 0's Queue_Up differs */
    snprintf(t0, sizeof t0, "Queue_Down %u\nQueue_Up %u\n", dflt, dflt + 1);
    config_topo(&c, ls16_with_queues(t0, ""));
    sim_setup(&S, &c);
    assert_true(S.tier_queues_differ);
    sim_free(&S);
    /* only tier 1's Queue_Down differs */
    snprintf(t1, sizeof t1, "Queue_Down %u\n", dflt - 1);
    config_topo(&c, ls16_with_queues("", t1));
    sim_setup(&S, &c);
    assert_true(S.tier_queues_differ);
    sim_free(&S);

    for (int k = 0; k < 3; k++) {
        char q[64], msg[160];
        snprintf(q, sizeof q, "%s %u\n", k == 1 ? "Queue_Up" : "Queue_Down", mtu - 1);
        snprintf(msg, sizeof msg, "%s %u bytes of tier %d is smaller than one packet (-mtu %u)",
                 k == 1 ? "Queue_Up" : "Queue_Down", mtu - 1, k == 2, mtu);
        config_topo(&c, ls16_with_queues(k < 2 ? q : "", k == 2 ? q : ""));
        char out[1024];
        int status = setup_in_child(&c, out, sizeof out);
        if (status != 2 || !strstr(out, msg))
            fail_msg("exit %d, stderr \"%s\"; expected 2 and \"%s\"", status, out, msg);
    }
}

/* ---- node names ------------------------------------------------------------------------------ */

/* Node names against a leaf-spine with a single spine (4 ToRs of 4 hosts,
 * one uplink each, oversubscribed 4:1): the last of each kind exists, the
 * next does not, and the count is said in the singular for one. */
static void test_node_names_last_and_one_past(void **st)
{
    (void)st;
    struct config c;
    config_topo(&c, "Nodes 16\nTiers 2\nPodsize 16\n"
                    "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 1\nOversubscribed 4\n"
                    "Downlink_Latency_ns 1000\n"
                    "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n");
    sim_setup(&S, &c);
    assert_int_equal(S.topo.n_agg, 1);
    expect_ok("link tor3 spine0 down", 1);
    expect_ok("link agg0 tor0 down", 1);
    expect_ok("link host15 tor3 down", 1);
    expect_ok("link host0 tor0 down", 1);
    expect_ok("switch spine0 down", 4);
    expect_error("link tor0 spine1 down", "'spine1' does not exist (this topology has 1 spine)");
    expect_error("link tor0 agg1 down", "'agg1' does not exist (this topology has 1 agg)");
    expect_error("link tor4 spine0 down", "'tor4' does not exist (this topology has 4 tors)");
    expect_error("link host16 tor0 down", "'host16' does not exist (this topology has 16 hosts)");
    expect_error("switch core0 down", "'core0' does not exist (this topology has 0 cores)");
    expect_error("link tor spine0 down", "'tor' is not a node name");
    expect_error("link tor0x spine0 down", "'tor0x' is not a node name");
    sim_free(&S);
}

/* ---- many parallel links ------------------------------------------------------------------- */

/* Four ToRs of 4 hosts at 1.6 Tb/s, each with a bundle of 64 links of
 * 100 Gb/s to one spine: 64 candidates up at a ToR and 64 down at the
 * spine, more than the 63 a route cache mask holds, so the usable ports are
 * counted and tested one by one. With member 5 of ToR 0's bundle known
 * down, ToR 0 spreads over the other 63 and never takes it; the spine,
 * going down to ToR 0, likewise. */
static void test_route_over_64_parallel_links_with_one_down(void **st)
{
    (void)st;
    struct config c;
    config_topo(&c, "Nodes 16\nTiers 2\nPodsize 16\n"
                    "Tier 0\nDownlink_speed_Gbps 1600\nRadix_Down 4\nRadix_Up 64\nDownlink_Latency_ns 1000\n"
                    "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 256\nDownlink_Latency_ns 1000\nBundle 64\n");
    c.routing = ROUTE_ECMP;
    sim_setup(&S, &c);
    assert_int_equal(S.topo.n_agg, 1);
    const struct switch_node *tor0 = &S.switches[0], *spine = &S.switches[4];
    assert_int_equal(tor0->n_up, 64);
    assert_int_equal(spine->n_down, 256);
    char err[256];
    uint32_t first = S.n_link_events;
    assert_true(failures_parse_spec(&S, "link tor0 spine0 member 5 down", err, sizeof err));
    failures_apply(&S, first);
    failures_learn(&S, first);
    const uint32_t up0 = tor0->first_port + tor0->n_down, dead_up = up0 + 5, dead_down = spine->first_port + 5;
    assert_true(S.ports[dead_up].flags & PORTF_KNOWN_DOWN);
    assert_true(S.ports[dead_down].flags & PORTF_KNOWN_DOWN);
    static uint32_t used_up[64], used_down[64];
    memset(used_up, 0, sizeof used_up);
    memset(used_down, 0, sizeof used_down);
    for (uint32_t k = 0; k < 4000; k++) {
        struct packet p;
        memset(&p, 0, sizeof p);
        p.type = PKT_DATA;
        p.flow = k % 97;
        p.entropy = (uint16_t)k;
        p.size_bytes = 4000;
        p.dst_host = 15;
        uint32_t port = fabric_route(&S, 0, &p);
        assert_true(port >= up0 && port < up0 + 64);
        used_up[port - up0]++;
        p.dst_host = 1;
        port = fabric_route(&S, 4, &p);
        assert_true(port >= spine->first_port && port < spine->first_port + 64);
        used_down[port - spine->first_port]++;
    }
    for (uint32_t m = 0; m < 64; m++) {
        if (m == 5) {
            assert_int_equal(used_up[m], 0);
            assert_int_equal(used_down[m], 0);
        } else if (!used_up[m] || !used_down[m]) {
            fail_msg("member %u unused (up %u, down %u times)", m, used_up[m], used_down[m]);
        }
    }
    sim_free(&S);
}

/* ---- planes ------------------------------------------------------------------------------------ */

/* htsim starts each NIC's round robin over its planes on a random port:
 * with -planes 2 the 16 hosts start on both planes (all on one would have
 * probability 2^-15 for a fair draw), never past the last; with one plane
 * every host starts on plane 0. */
static void test_nic_round_robin_starts(void **st)
{
    (void)st;
    for (uint32_t planes = 1; planes <= 2; planes++) {
        struct config c;
        setup_cm(&c, ONE_FLOW_CM);
        c.planes = planes;
        sim_setup(&S, &c);
        uint32_t on[2] = {0, 0};
        for (uint32_t h = 0; h < S.n_hosts; h++) {
            assert_true(S.hosts[h].rr_plane < planes);
            on[S.hosts[h].rr_plane]++;
        }
        if (planes == 1)
            assert_int_equal(on[0], 16);
        else
            assert_true(on[0] > 0 && on[1] > 0);
        sim_free(&S);
    }
}

/* ---- mut6cnt (issue 26, topo module) ------------------------------------------------------ */

/* A lossless class (--class-opt K:lossless) is held back by PFC instead of
 * a queue limit, and a lossless queue is never trimmed (fabric.c; docs
 * models "Traffic classes"): on every switch port, class K's queue
 * (x->c[K - 2]) has no limit and no trimming, and the other extra
 * classes keep theirs. Class 3 of 4, then class 2 of 3, the first extra
 * class (issue 26: the limit lifted on class K + 2's queue went unnoticed). */
static void test_lossless_class_queue_has_no_limit(void **st)
{
    (void)st;
    for (uint32_t cls = 2; cls <= 3; cls++) {
        struct config c;
        setup_cm(&c, ONE_FLOW_CM);
        c.n_classes = cls + 1;
        c.class_opts[c.n_class_opts++] = (struct class_opt){.cls = cls, .name = "lossless", .value = 1};
        sim_setup(&S, &c);
        assert_int_equal(S.cfg.lossless_mask, 1u << cls);
        uint32_t seen = 0;
        for (uint32_t i = S.n_hosts; i < S.n_ports; i++) {
            const struct port *p = &S.ports[i];
            if (p->owner_node < S.n_hosts || !p->x)
                continue;
            seen++;
            for (uint32_t k = 2; k <= cls; k++) {
                const struct port_class *pc = &p->x->c[k - 2];
                if (k == cls) {
                    assert_int_equal(pc->limit_bytes, QUEUE_INFINITE_BYTES);
                    assert_false(pc->trim);
                } else {
                    assert_true(pc->limit_bytes < QUEUE_INFINITE_BYTES);
                }
            }
        }
        assert_int_equal(seen, S.n_ports - S.n_hosts); /* every switch port has the extra classes */
        sim_free(&S);
    }
}

/* A matrix's "failure switch_type ... link_id L" line (the reference
 * simulator's form) takes the link down from the start of the run: one
 * LC_DOWN event at 0 ps on ToR 0's first uplink and the port back
 * (issue 26: the event at 1 ps went unnoticed). */
static void test_reference_failure_is_down_at_time_zero(void **st)
{
    (void)st;
    struct config c;
    setup_cm(&c, "Nodes 16\nConnections 1\nFailures 1\n0->15 start 0 size 1000\n"
                 "failure switch_type TOR switch_id 0 link_id 0\n");
    sim_setup(&S, &c);
    assert_int_equal(S.n_link_events, 1);
    const struct link_event *e = &S.link_events[0];
    uint32_t up = S.switches[0].first_port + S.switches[0].n_down;
    assert_int_equal(e->at_ps, 0);
    assert_int_equal(e->kind, LC_DOWN);
    assert_int_equal(e->port_a, up);
    assert_int_equal(S.ports[e->port_b].owner_node, S.ports[up].peer_node);
    assert_int_equal(S.ports[e->port_b].peer_node, S.ports[up].owner_node);
    sim_free(&S);
}

/* A --fail specification is split into words with no limit on their
 * number (failures.c parse_spec_events): the densest text, one-character
 * words with one space between, has (length + 1) / 2 of them, and 100000
 * such words are all read and the first refused with a message, nothing
 * added (issue 26: room for length / 3 + 2 words wrote past the array). */
static void test_spec_of_one_character_words(void **st)
{
    (void)st;
    setup_default();
    enum { WORDS = 100000 };
    char *spec = malloc(2 * WORDS);
    assert_non_null(spec);
    for (int i = 0; i < WORDS; i++) {
        spec[2 * i] = 'x';
        spec[2 * i + 1] = ' ';
    }
    spec[2 * WORDS - 1] = '\0';
    expect_error(spec, "'x'");
    free(spec);
    sim_free(&S);
}

/* The .topo reader's value checks at their ends (topo.c; docs models
 * "Topology files"): Downlink_speed_Gbps from 1 to 4000000, Radix_Down,
 * Queue_Down and Queue_Up at least 1, Radix_Up and Queue_Up nowhere in
 * tier 2 (the top has no uplinks) but allowed in tier 1, a header key
 * given twice. Each file is the 3-tier k = 4 tree with one value changed
 * or one line added; NULL: read without error. */
static void test_topo_reader_value_ends(void **st)
{
    (void)st;
    static const char fmt[] = "Nodes 16\nTiers 3\nPodsize 4\n%s"
                              "Tier 0\nDownlink_speed_Gbps %s\nRadix_Down 2\nRadix_Up 2\nDownlink_Latency_ns 1000\n%s"
                              "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 2\nRadix_Up 2\nDownlink_Latency_ns 1000\n%s"
                              "Tier 2\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n%s";
    static const struct {
        const char *header, *speed, *t0, *t1, *t2, *error;
    } cases[] = {
        {"", "100", "", "", "", NULL},
        {"", "1", "", "", "", NULL},
        {"", "4000000", "", "", "", NULL},
        {"", "0", "", "", "", "Downlink_speed_Gbps must be between 1 and 4000000"},
        {"", "4000001", "", "", "", "Downlink_speed_Gbps must be between 1 and 4000000"},
        {"", "100", "Radix_Down 0\n", "", "", "Radix_Down must be positive"},
        {"", "100", "Queue_Down 1\n", "", "", NULL},
        {"", "100", "Queue_Down 0\n", "", "", "Queue_Down must be positive (bytes)"},
        {"", "100", "", "Queue_Up 1\n", "", NULL},
        {"", "100", "", "Queue_Up 0\n", "", "Queue_Up must be positive (bytes)"},
        {"", "100", "", "", "Queue_Up 1\n", "tier 2 has no uplinks: Queue_Up is not allowed"},
        {"", "100", "", "", "Radix_Up 1\n", "tier 2 has no uplinks: Radix_Up is not allowed"},
        {"", "100", "", "", "Queue_Down 1\n", NULL},
        {"Podsize 4\n", "100", "", "", "", "duplicate 'Podsize'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024], err[512] = "";
        int len = snprintf(text, sizeof text, fmt, cases[i].header, cases[i].speed, cases[i].t0, cases[i].t1, cases[i].t2);
        assert_true(len > 0 && (size_t)len < sizeof text);
        struct topo_spec spec;
        bool ok = topo_read_buffer(&spec, "v.topo", text, (size_t)len, err, sizeof err);
        if (cases[i].error == NULL ? !ok : ok || !strstr(err, cases[i].error))
            fail_msg("case %zu: %s (\"%s\"), want %s", i, ok ? "read" : "refused", err,
                     cases[i].error ? cases[i].error : "read");
        if (ok && i == 1)
            assert_int_equal(spec.tier[0].downlink_mbps, 1000);
        if (ok && i == 2)
            assert_int_equal(spec.tier[0].downlink_mbps, 4000000000u);
        /* the derivation builds one plane (topo.c: the caller sets -planes
         * after it) */
        if (ok && i == 0) {
            struct topo t;
            memset(&t, 0xff, sizeof t);
            assert_true(topo_derive(&t, &spec, err, sizeof err));
            assert_int_equal(t.planes, 1);
            assert_int_equal(t.n_tor, 8);
        }
    }
}

/* 'at' must be followed by a time: as the last word it is refused (issue
 * 26: `i + 1 >= n` as `>` read the word past the last). The spec before
 * it has its time at the very end and the same lengths (so, with the C
 * library's allocator reusing freed blocks, the word past the last would
 * be that stale "5"): it is taken, the other refused. Likewise 'delay'
 * and 'member' with nothing after them, and a switch with no event. */
static void test_at_as_the_last_word(void **st)
{
    (void)st;
    setup_default();
    uint32_t first = expect_ok("switch tor0 down  at  5", 4); /* tor0's 2 hosts and 2 uplinks */
    assert_int_equal(S.link_events[first].at_ps, 5 * PS_PER_US);
    expect_error("switch tor0 down  at ", "'at' needs a time from 0 to");
    expect_error("link tor0 agg0 down at", "'at' needs a time from 0 to");
    /* the same for 'delay' and 'member' as the last word */
    expect_ok("link tor0 agg0 delay 5", 1);
    expect_error("link tor0 agg0 delay", "'delay' needs a number from 0 to");
    expect_error("link tor0 agg0 member 7", "there is no link tor0-agg0 with that member");
    expect_error("link tor0 agg0 member", "'member' needs a whole number, not ''");
    expect_error("switch tor0", "no event (down, up");
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
        cmocka_unit_test(test_member_bound),
        cmocka_unit_test(test_time_delay_and_rate_ranges),
        cmocka_unit_test(test_event_order_and_values),
        cmocka_unit_test(test_reference_form_last_and_one_past),
        cmocka_unit_test(test_event_at_end_warns),
        cmocka_unit_test(test_class_opts_past_the_count_are_ignored),
        cmocka_unit_test(test_random_failures_count_plane_0_only),
        cmocka_unit_test(test_topo_reader_limits_exactly),
        cmocka_unit_test(test_topo_ports_per_side_at_the_limit),
        cmocka_unit_test(test_topo_tier1_oversubscription),
        cmocka_unit_test(test_failed_links_up_to_every_link),
        cmocka_unit_test(test_ar_bands_at_their_edges),
        cmocka_unit_test(test_ar_band_sample_period),
        cmocka_unit_test(test_ar_quantum_units),
        cmocka_unit_test(test_ar_flowlets_sticky_edges),
        cmocka_unit_test(test_ar_at_each_aggregation_switch_goes_down_only_in_its_pod),
        cmocka_unit_test(test_tier_queues_at_one_packet),
        cmocka_unit_test(test_node_names_last_and_one_past),
        cmocka_unit_test(test_route_over_64_parallel_links_with_one_down),
        cmocka_unit_test(test_nic_round_robin_starts),
        cmocka_unit_test(test_lossless_class_queue_has_no_limit),
        cmocka_unit_test(test_reference_failure_is_down_at_time_zero),
        cmocka_unit_test(test_spec_of_one_character_words),
        cmocka_unit_test(test_topo_reader_value_ends),
        cmocka_unit_test(test_at_as_the_last_word),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
