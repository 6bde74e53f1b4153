/* test_tp_edges.c: edge cases of the transports (src/transport/) that the
 * whole-run tests pass over, each written for a mutant that survived
 * tools/mutation.py (issue 26): the answer at a boundary (a flow added
 * when the table is exactly full, a tie, a range's end) is checked against
 * what the code's contract or the paper says, not against today's output.
 * Kept fast: the mutation tool runs this program for every transport
 * mutant. */
#include "testutil.h"

#include "sim.h"
#include "transport/eqds.h"
#include "transport/flow.h"

static struct sim S;

#define WKA "workloads/google_all_rpc.cdf"

static void eqds_poisson_setup(const char *spec, double end_us)
{
    struct config c;
    config_defaults(&c);
    c.workload_spec = spec;
    c.tiers = 2;
    c.transport_name = "eqds";
    c.seed = 21;
    c.receiver_cc = 0; /* -sender_cc_only: a pull pacer per flow */
    c.sender_cc = 1;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.progress = false;
    sim_setup(&S, &c);
}

/* EQDS with -sender_cc_only keeps a pull pacer per flow, and a flow added
 * during the run (a Poisson arrival) gets its pacer as it is added, also
 * when the table is exactly full: it starts empty (so the first arrival
 * meets a full table) and grows to 1024, then doubles (so the 1025th does
 * too). A run to 80 us gives the arrival times; runs that end between
 * arrivals 1 and 2, and 1025 and 1026, must leave every flow added with its
 * pacer (eqds_pacer answers NULL past the table). */
static void test_eqds_pacer_per_added_flow(void **st)
{
    (void)st;
    static char spec[512];
    snprintf(spec, sizeof spec, "poisson:cdf=%s,load=0.3,n=8,stop_us=80", shared_path(WKA));
    eqds_poisson_setup(spec, 80);
    sim_run(&S);
    assert_true(S.n_flows > 1026);
    const uint32_t full[] = {0, 1024};
    simtime_ps mid[2];
    for (int k = 0; k < 2; k++) {
        const struct flow *f = &S.flows[full[k]];
        assert_true(f[1].start_ps > f[0].start_ps);
        mid[k] = f[0].start_ps + (f[1].start_ps - f[0].start_ps) / 2;
    }
    sim_free(&S);
    for (int k = 0; k < 2; k++) {
        eqds_poisson_setup(spec, (double)mid[k] / PS_PER_US);
        sim_run(&S);
        assert_int_equal(S.n_flows, full[k] + 1);
        for (uint32_t i = 0; i < S.n_flows; i++)
            if (!eqds_pacer(&S, i))
                fail_msg("run to %.4f us: flow %u of %u has no pull pacer", (double)mid[k] / PS_PER_US, i, S.n_flows);
        sim_free(&S);
    }
}

/* EQDS's smoothed RTT (its sample() hook's rtt_ps) starts at the minimum
 * RTO and moves 1/8 of the way to each clean sample (the RFC 6298 gain
 * htsim's EQDS uses). One full packet from host 0 to the farthest host on
 * an idle fabric takes exactly the run's base RTT (one MTU data and one
 * header-sized ACK serialisation per hop, propagation both ways), so after
 * its ACK srtt = rto - rto / 8 + base_rtt / 8. */
static void test_eqds_srtt_first_sample(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.transport_name = "eqds";
    c.progress = false;
    char cm[128];
    snprintf(cm, sizeof cm, "Nodes 128\nConnections 1\n0->127 start 0 size %u\n", c.mtu_bytes - c.hdr_bytes);
    c.tm_path = temp_file(cm, ".cm");
    c.end_ps = 1000; /* 1 ns: the flow has started, nothing has come back */
    sim_setup(&S, &c);
    sim_run(&S);
    struct flow_sample fs = {0};
    S.flows[0].tp->sample(&S, 0, &fs);
    simtime_ps rto = fs.rtt_ps;
    assert_true(rto > S.base_rtt_ps);
    sim_free(&S);
    c.end_ps = 200 * PS_PER_US;
    sim_setup(&S, &c);
    sim_run(&S);
    assert_int_equal(S.flows_finished, 1);
    assert_int_equal(S.flows[0].n_pkts, 1);
    S.flows[0].tp->sample(&S, 0, &fs);
    print_message("rto %llu ps, base RTT %llu ps, srtt %llu ps\n", (unsigned long long)rto,
                  (unsigned long long)S.base_rtt_ps, (unsigned long long)fs.rtt_ps);
    assert_int_equal(fs.rtt_ps, rto - rto / 8 + S.base_rtt_ps / 8);
    sim_free(&S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eqds_pacer_per_added_flow),
        cmocka_unit_test(test_eqds_srtt_first_sample),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    temp_files_remove();
    return rc;
}
