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

#endif
