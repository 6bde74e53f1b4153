/* roce.h: what RoCEv2 (--transport roce, roce.c) shows outside its own
 * file: its packet type and its options as its flags give them (tests
 * read them; the generic layer never does).
 */
#ifndef SPRAYSIM_ROCE_H
#define SPRAYSIM_ROCE_H

#include "../core/core.h"
#include "../net/packet.h"

/* RoCE's own packet type (transport.h: numbered from PKT_TP_FIRST) */
enum roce_pkt_type {
    ROCE_PKT_CNP = PKT_TP_FIRST, /* congestion notification: the receiver saw CE (at most one per flow per 50 us) */
};

/* The run's RoCE options, from its flags (roce.c roce_flags) or a
 * rate-based --cc (config.rate_cc_name). */
struct roce_opts {
    uint32_t dcqcn_k_pkts;    /* -dcqcn K: DCQCN, switches mark above K packets (0 = off) */
    bool timely;              /* -timely: TIMELY rate control (timely.h) */
    bool hpcc;                /* -hpcc: HPCC (hpcc.h), INT stamped at every egress of RoCE's classes */
    bool out_of_order;        /* -out_of_order: the receiver keeps 64 reordered packets; per-packet AR */
    double timely_t_low_us;   /* -timely_thresholds LOW HIGH (us): TIMELY's T_low and T_high */
    double timely_t_high_us;
};

struct sim;
/* Reads the run's RoCE flags (exits 2 naming a flag whose value is bad). */
void roce_read_opts(const struct sim *s, struct roce_opts *o);
struct hpcc_int_table;
/* The run's INT table (-hpcc), NULL without it or before RoCE's setup. */
struct hpcc_int_table *roce_hpcc_int(const struct sim *s);

#endif
