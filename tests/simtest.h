/* simtest.h: checks shared by the tests that run whole simulations. Include
 * after testutil.h and sim.h. */
#ifndef SPRAYSIM_SIMTEST_H
#define SPRAYSIM_SIMTEST_H

#include "metrics/report.h"

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

/* Jain's fairness index of two shares. */
static inline double jain2(double a, double b)
{
    return (a + b) * (a + b) / (2 * (a * a + b * b));
}

#endif
