/* simtest.h: checks shared by the tests that run whole simulations. Include
 * after testutil.h and sim.h. */
#ifndef SPRAYSIM_SIMTEST_H
#define SPRAYSIM_SIMTEST_H

#include "metrics/report.h"
#include "transport/flow.h"
#include "transport/uet.h"

/* Every data packet sent is delivered whole, delivered trimmed, bounced
 * back as a NACK, dropped, or still in the network; and every packet in the
 * pool is somewhere in the network (queues, on the wire, on a link). */
static inline void check_packet_conservation(const struct sim *s)
{
    struct run_stats r;
    report_collect(s, 0, &r);
    assert_int_equal(s->tot.data_pkts_sent, s->tot.data_pkts_delivered + s->tot.trimmed_delivered +
                                                 s->tot.data_drops + s->tot.data_bounced + r.data_in_network);
    assert_int_equal(s->pool.in_use, r.pkts_in_network);
}

/* Runs tm with congestion control cc until end_us (defaults otherwise). */
static inline void run_cc(struct sim *s, const char *cc, const char *tm, double end_us)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = tm;
    c.cc_name = cc;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.progress = false;
    sim_setup(s, &c);
    sim_run(s);
}

/* Adds a flag a transport owns to c, as the command line would (name a
 * string literal; the values are copied into static storage that lasts
 * the test program, 64 values at most). */
static inline void config_add_flag(struct config *c, const char *name, const char *a0, const char *a1)
{
    static char vals[64][32];
    static unsigned n_vals;
    const char *args[2] = {a0, a1};
    struct tp_flag_given rec = {name, {NULL, NULL}};
    for (int k = 0; k < 2; k++)
        if (args[k]) {
            char *v = vals[n_vals++ % 64];
            snprintf(v, sizeof vals[0], "%s", args[k]);
            rec.args[k] = v;
        }
    c->tp_flags[c->n_tp_flags++] = rec;
}

/* Jain's fairness index of two shares. */
static inline double jain2(double a, double b)
{
    return (a + b) * (a + b) / (2 * (a * a + b * b));
}

/* Two 2 MB flows on disjoint paths of the 16-node tree: each must finish
 * within 1/0.9 of its ideal FCT (at least 90% of the bottleneck). */
static inline void check_fills_bottleneck(struct sim *s, const char *cc)
{
    const char *cm = temp_file("Nodes 16\nConnections 2\n0->1 start 0 size 2000000\n2->13 start 0 size 2000000\n", ".cm");
    run_cc(s, cc, cm, 2000);
    assert_int_equal(s->flows_finished, 2);
    for (uint32_t i = 0; i < 2; i++) {
        const struct flow *f = &s->flows[i];
        double fct = (double)(f->finish_ps - f->start_ps);
        double ideal = (double)ideal_fct_ps(s, f);
        if (fct > ideal / 0.9)
            fail_msg("%s flow %u: FCT %.3f us, ideal %.3f us", cc, i, fct / PS_PER_US, ideal / PS_PER_US);
    }
    sim_free(s);
}

/* Two 2 MB flows into one receiver: the shared link stays busy (both done
 * within 1/0.9 of 4 MB at line rate) and the bytes each delivered by the
 * time the first finished give Jain's index >= 0.9. */
static inline void check_two_flows_share(struct sim *s, const char *cc)
{
    const char *cm = temp_file("Nodes 16\nConnections 2\n0->15 start 0 size 2000000\n1->15 start 0 size 2000000\n", ".cm");
    run_cc(s, cc, cm, 5000);
    assert_int_equal(s->flows_finished, 2);
    simtime_ps first = s->flows[0].finish_ps < s->flows[1].finish_ps ? s->flows[0].finish_ps : s->flows[1].finish_ps;
    simtime_ps last = s->flows[0].finish_ps > s->flows[1].finish_ps ? s->flows[0].finish_ps : s->flows[1].finish_ps;
    double ideal2 = 2.0 * (double)ideal_fct_ps(s, &s->flows[0]);
    if ((double)last > ideal2 / 0.9)
        fail_msg("%s: last FCT %.3f us, 4 MB at line rate %.3f us", cc, (double)last / PS_PER_US, ideal2 / PS_PER_US);
    sim_free(s);
    run_cc(s, cc, cm, (double)first / PS_PER_US - 0.001);
    double a = (double)uet_of(&s->flows[0])->rcv_bytes, b = (double)uet_of(&s->flows[1])->rcv_bytes;
    double j = jain2(a, b);
    if (j < 0.9)
        fail_msg("%s: delivered %.0f and %.0f bytes, Jain %.3f", cc, a, b, j);
    sim_free(s);
}

#endif
