/* cc.h: the interface between a transport and a sender congestion-control
 * algorithm, in the spirit of Linux's struct tcp_congestion_ops.
 *
 * A CC module sees only what a NIC sees: ACK and NACK events with the bytes
 * they newly acknowledge, an RTT sample when the sample is trustworthy, the
 * ECN echo, and timeouts. It answers with a congestion window. Each module
 * keeps its per-flow state in one struct whose first member is
 * `struct cc_window`, so the transport reads the window without a call.
 */
#ifndef SPRAYSIM_CC_H
#define SPRAYSIM_CC_H

#include "../core/core.h"

struct cc_window {
    uint64_t cwnd_bytes;
    /* The algorithm's maximum window, 0 if it has none (SLEEK caps its
     * reordering threshold with it). */
    uint64_t maxwnd_bytes;
    /* When non-zero, the transport spaces packet departures at least this far
     * apart (Swift paces when its window falls below one packet). */
    simtime_ps pacing_gap_ps;
};

/* How the transport detects loss for this algorithm, besides NACKs of
 * trimmed packets and the retransmission timeout, which every mode has. */
enum cc_loss_mode {
    CC_LOSS_NACK_RTO = 0,  /* nothing more (NSCC, SMaRTT; SLEEK when -sleek is given) */
    CC_LOSS_DUPACK = 1,    /* dupack_threshold duplicate cumulative ACKs => the first hole is lost (NewReno) */
    CC_LOSS_SACK_HOLE = 2, /* a packet is lost once dupack_threshold later packets are selectively acked (Swift) */
};

/* One "--cc-opt name=value" given on the command line. */
struct cc_option {
    const char *name;
    double value;
};

/* Per-flow configuration handed to init(). Sizes in bytes, times in ps. */
struct cc_params {
    uint32_t mtu_bytes;          /* full data packet on the wire */
    uint32_t mss_bytes;          /* payload per packet */
    simtime_ps base_rtt_ps;      /* the flow's starting base RTT estimate */
    simtime_ps network_rtt_ps;   /* the network's largest unloaded RTT */
    uint32_t linkspeed_mbps;     /* the host's NIC speed */
    uint64_t init_cwnd_bytes;    /* 0 = the algorithm's default */
    simtime_ps target_qdelay_ps; /* 0 = the algorithm's default */
    int qa_gate;                 /* < 0 = the algorithm's default */
    bool fair_decrease_off;      /* -disable_fd: no Fair Decrease (SMaRTT's fd = 0, whatever --cc-opt fd says) */
    bool trimming;               /* switches trim (NACK feedback is available) */
    double q3_pressure;          /* NSCC: per-base-RTT decrease in the ECN/low-delay quadrant */
    uint32_t path_hops;          /* links from sender to receiver (Swift's topology scaling) */
    const struct cc_option *opts;/* algorithm options (--cc-opt), validated against option_names */
    unsigned n_opts;
    simtime_ps start_ps;         /* when the flow starts (rate-based algorithms' timers) */
};

/* Value of option `name` from p->opts, or `def` when it was not given. */
double cc_opt(const struct cc_params *p, const char *name, double def);
/* An option that counts something: a whole number in [lo, hi], or `def`
 * when not given. A fraction or a value out of range is bad input (exit 2
 * naming the option), never a silent conversion. */
uint32_t cc_opt_uint(const struct cc_params *p, const char *name, uint32_t def, uint32_t lo, uint32_t hi);

struct cc_ack {
    simtime_ps now;
    uint64_t newly_acked_bytes;  /* growth of the receiver's byte count */
    bool rtt_valid;              /* raw_rtt_ps is a trustworthy sample */
    simtime_ps raw_rtt_ps;
    bool ecn;                    /* the acknowledged packet was CE-marked */
    uint64_t in_flight_bytes;    /* after this ACK was applied */
};

struct cc_nack {
    simtime_ps now;
    uint32_t pkt_bytes;          /* full size of the packet that was trimmed */
    simtime_ps raw_rtt_ps;       /* send-to-NACK time of that packet */
    bool last_hop;               /* trimmed at the receiver's ToR downlink */
    uint64_t in_flight_bytes;
};

/* ---- rate-based algorithms ------------------------------------------------------
 * The lossless RDMA transport's controls (DCQCN, TIMELY, HPCC) set a rate,
 * not a window, and DCQCN changes it on its own timers with no packet
 * arriving. Such an algorithm's state begins with struct cc_rate; the
 * transport paces every packet's serialisation at rate_mbps, keeps at most
 * window_bytes unacknowledged when that is non-zero, reports ACKs (with
 * their echoed send time and in-band telemetry), CNPs and bytes sent, and
 * calls on_timer at the time next_timer() names. */
struct cc_rate {
    double rate_mbps;      /* the pacing rate, at most the line rate */
    double window_bytes;   /* 0: no window; else the bytes that may be unacknowledged (HPCC's W) */
    double rtt_us;         /* the latest RTT sample it used, 0: none (TIMELY; time series) */
};

struct hpcc_int;           /* one hop's in-band telemetry record (transport/hpcc.h) */

struct cc_rate_ack {
    simtime_ps now;
    simtime_ps sent_ps;    /* the acknowledged data packet's send time, echoed */
    uint32_t ack_seq;      /* packets the receiver holds in order */
    uint32_t snd_nxt;      /* the sender's next packet to send */
    bool rtx_echo;         /* it acknowledges a retransmission (no RTT sample) */
    bool completes;        /* it acknowledges the message's last packet */
    const struct hpcc_int *hops; /* the data packet's telemetry, echoed (HPCC runs), else NULL */
    uint32_t n_hops;
};

static inline const struct cc_rate *cc_rate_of(const void *state)
{
    return (const struct cc_rate *)state;
}

struct cc_ops {
    const char *name;
    const char *description;
    size_t state_size;
    void (*init)(void *state, const struct cc_params *p);
    void (*on_ack)(void *state, const struct cc_ack *a);
    void (*on_nack)(void *state, const struct cc_nack *n);
    void (*on_timeout)(void *state, simtime_ps now, uint32_t pkt_bytes);
    /* A packet declared lost by duplicate ACKs, SACK holes or SLEEK (not a
     * NACK, not a timeout). May be NULL: no reaction. */
    void (*on_loss)(void *state, simtime_ps now, uint32_t pkt_bytes);
    enum cc_loss_mode loss_mode;
    /* RTT samples from every packet's own ACK, as with TCP timestamps; false
     * = only while the packet is still unacknowledged (the reference NSCC). */
    bool timestamp_echo;
    uint32_t dupack_threshold;   /* for CC_LOSS_DUPACK / CC_LOSS_SACK_HOLE */
    /* Names of the options this algorithm accepts (NULL-terminated), each
     * with its default and seed citation in the algorithm's file. */
    const char *const *option_names;
    /* Named per-flow counters (bytes added or removed by each mechanism). */
    unsigned n_counters;
    const char *const *counter_names;
    void (*counters)(const void *state, double *out);
    /* Rate-based algorithms (struct cc_rate first in the state; the window
     * callbacks above are NULL). A CNP arrived; bytes went on the wire;
     * the next time the algorithm wants on_timer (SIMTIME_NEVER: none). */
    bool rate_based;
    void (*on_rate_ack)(void *state, const struct cc_rate_ack *a);
    void (*on_cnp)(void *state, simtime_ps now);
    void (*on_sent)(void *state, simtime_ps now, uint32_t wire_bytes);
    simtime_ps (*next_timer)(const void *state);
    void (*on_timer)(void *state, simtime_ps now);
    /* A connection's next message takes this state over (--msg-cc
     * inherit): what must restart with the new message's packet numbers. */
    void (*on_new_message)(void *state, simtime_ps now);
};

static inline uint64_t cc_cwnd(const void *state)
{
    return ((const struct cc_window *)state)->cwnd_bytes;
}

/* Looks an algorithm up by name; NULL when unknown. */
const struct cc_ops *cc_find(const char *name);
/* Comma-separated list of names, for --help and error messages. */
const char *cc_names(void);
/* Every registered algorithm, in --help's order (the generated flag reference). */
const struct cc_ops *const *cc_registry(size_t *n);

extern const struct cc_ops cc_nscc_ops;
extern const struct cc_ops cc_mnscc_ops;
extern const struct cc_ops cc_smartt_ops;
extern const struct cc_ops cc_swift_ops;
extern const struct cc_ops cc_swift_ref_ops;
extern const struct cc_ops cc_lswift_ops;
extern const struct cc_ops cc_mswift_ops;
extern const struct cc_ops cc_dctcp_ops;
extern const struct cc_ops cc_uec_dctcp_ops;
extern const struct cc_ops cc_bbr_ops;
extern const struct cc_ops cc_mprdma_ops;
/* rate-based, for --transport roce (src/transport/dcqcn.c, timely.c, hpcc.c) */
extern const struct cc_ops cc_dcqcn_ops;
extern const struct cc_ops cc_timely_ops;
extern const struct cc_ops cc_hpcc_ops;
extern const struct cc_ops cc_newreno_ops;
extern const struct cc_ops cc_nscc_fixed_ops;   /* NIC-style integer variants (nscc_fixed.c, smartt_fixed.c) */
extern const struct cc_ops cc_smartt_fixed_ops;

#endif
