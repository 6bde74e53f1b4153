/* poisson.h: open-loop Poisson traffic drawn from a message-size
 * distribution (seed 001's evaluation, specs/sird.md Sec. 2.2-2.3): every
 * host is a client that starts one-way messages at exponentially
 * distributed intervals, each to a uniformly random other host, with a
 * size drawn from a CDF file. Unlike the other generators (gen.h) nothing
 * is built before the run: each host has one pending arrival event
 * (EV_ARRIVAL), and the flow is created when it fires.
 *
 * The specification (the --workload flag):
 *   poisson:cdf=FILE,load=L,n=N[,sampling=linear|step][,warmup_us=W]
 *           [,stop_us=S][,bdp=BYTES][,seed=S]
 *           [,incast=SHARE[,incast_senders=K][,incast_bytes=B]]
 * docs/workloads.md "Poisson workloads" defines each. The generator proper (struct
 * poisson_gen) needs no network, so tests can check its statistics alone.
 */
#ifndef SPRAYSIM_POISSON_H
#define SPRAYSIM_POISSON_H

#include "../core/core.h"
#include "../metrics/vcollect.h"
#include "../topo/topo.h"

/* A piecewise-linear CDF: size_bytes[i] has cumulative probability prob[i];
 * both non-decreasing, prob[n-1] = 1. */
struct size_cdf {
    uint32_t n;
    double *size_bytes;
    double *prob;
};

/* Reads a .cdf file ("size_bytes probability" a line, '#' comments). On
 * error false, with "path:line: message" in err. */
bool cdf_read_file(struct size_cdf *c, const char *path, char *err, size_t errlen);
bool cdf_parse_text(struct size_cdf *c, const char *name, const char *text, char *err, size_t errlen);
void cdf_free(struct size_cdf *c);
/* The size at uniform draw u in [0, 1): linear interpolation within the
 * segment u falls in, or (step) the segment's upper size; whole bytes, at
 * least 1. Below the first point's probability: the first size. */
uint64_t cdf_sample(const struct size_cdf *c, double u, bool step);
/* The exact mean of cdf_sample before rounding to bytes. */
double cdf_mean_bytes(const struct size_cdf *c, bool step);
/* The mean number of packets of mss_bytes payload each that a message of
 * cdf_sample's size takes, exact before rounding to bytes: with a header
 * per packet, the wire carries mean bytes + this x the header. */
double cdf_mean_packets(const struct size_cdf *c, bool step, uint32_t mss_bytes);

struct poisson_spec {
    char cdf_path[512];
    double load;           /* payload rate / host link rate, headers excluded */
    bool step;             /* sampling=step: a segment's upper size */
    uint32_t nodes;
    simtime_ps warmup_ps;  /* messages created before this are not measured */
    simtime_ps stop_ps;    /* no arrivals at or after this; SIMTIME_NEVER = until -end */
    uint64_t bdp_bytes;    /* size groups' BDP; 0 = the run's */
    bool has_seed;
    uint64_t seed;
    /* seed 001's incast overlay (specs/sird.md Sec. 2.4): every period,
     * incast_senders random hosts each send incast_bytes to one random other
     * host, the overlay carrying incast_share of the load (0 = none) */
    double incast_share;
    uint32_t incast_senders;
    uint64_t incast_bytes;
    /* conns=K: seed 001's pools of K persistent connections per host pair
     * for DCTCP and Swift (sird.md Sec. 2.6, A18); 0 = a new connection per
     * message */
    uint32_t pool_conns;
};

/* Seed 001 Sec. 5.1 (specs/sird.md Sec. 2.4): "30 random senders ... send
 * a 500 KB message each to one random receiver", incast "7% of the total
 * load" (the share is not a default: incast=0.07 asks for it). */
#define POISSON_INCAST_SENDERS 30
#define POISSON_INCAST_BYTES 500000

/* conns=K keeps a table of hosts^2 entries (4 bytes each). */
#define POISSON_POOL_MAX_HOSTS 8192

/* Limits: a load above 1 cannot be carried; 1e-6 keeps the mean gap finite
 * and far below 2^63 ps. */
#define POISSON_MIN_LOAD 1e-6
#define POISSON_MAX_LOAD 1.0

/* True when a --workload specification is of kind poisson. */
bool poisson_is_spec(const char *text);
/* Parses and checks a specification (the CDF file is read by
 * poisson_gen_init). On error one line starting "--workload poisson:". */
bool poisson_parse(struct poisson_spec *p, const char *text, char *err, size_t errlen);
/* The parameters poisson takes ("cdf, load, n, ..."), for the generated
 * flag reference. */
const char *poisson_param_names(void);

struct config;
/* The message-size distribution of the run's open-loop workload, for a
 * transport that sizes something by it (Homa's priority cutoffs): true,
 * with *cdf filled (free it with cdf_free) and *step its sampling mode,
 * when --workload is poisson; false for any other workload. A bad
 * specification or CDF file exits 2 with its one line. */
bool workload_size_cdf(const struct config *c, struct size_cdf *cdf, bool *step);

/* The generator: per host an rng stream and the time of its next arrival. */
struct poisson_gen {
    struct size_cdf cdf;
    bool step;
    uint32_t hosts;
    double mean_bytes;       /* of the CDF, under the sampling mode */
    double mean_gap_ps;      /* 8 x mean / (load x rate) */
    struct rng *rng;         /* [hosts] */
    /* what was generated */
    uint64_t messages;
    double bytes;
};

/* Substream base of RNG_STREAM_WORKLOAD: host h draws from base + h, apart
 * from gen.c's matrix (0) and random-failure substreams. */
#define POISSON_SUBSTREAM_BASE (1ull << 32)
/* ... and the incast overlay from this one (beyond any host's). */
#define POISSON_SUBSTREAM_INCAST (1ull << 33)

/* Reads the CDF, checks it; host_rate_mbps is each host's link rate. */
bool poisson_gen_init(struct poisson_gen *g, const struct poisson_spec *p, uint32_t hosts, uint32_t host_rate_mbps,
                      uint64_t run_seed, char *err, size_t errlen);
void poisson_gen_free(struct poisson_gen *g);
/* One message of host `src`: the gap before it (ps), its destination (never
 * src) and size. Draws in a fixed order: gap, destination, size. */
struct poisson_msg {
    simtime_ps gap_ps;
    uint32_t dst;
    uint64_t size_bytes;
};
void poisson_next(struct poisson_gen *g, uint32_t src, struct poisson_msg *m);

/* ---- in a run ------------------------------------------------------------------ */

struct sim;
/* Seed 001's size groups (specs/sird.md Sec. 2.2): A < MSS <= B < BDP <= C
 * < 8 BDP <= D. */
enum { POISSON_GROUPS = 4 };

struct poisson_run {
    struct poisson_spec spec;
    struct poisson_gen gen;
    uint32_t first_flow;     /* messages from this ordinal on (flow.ordinal) are Poisson messages */
    uint32_t pending;        /* hosts with an arrival event queued */
    uint64_t bdp_bytes;      /* for the size groups */
    struct poisson_host_next *next; /* [hosts]: the message each queued arrival starts */
    /* payload each host had received at the window's start and end
     * (snapshot events), for goodput */
    double *rcv_at_start, *rcv_at_end;
    bool end_taken;
    bool start_taken;         /* the window's start was noted (at setup when there is no warm-up) */
    /* --switch-stats: each switch's buffer integral (byte x ps) at the
     * window's start and end and its peak within the window, so the ToR
     * queuing excludes the warm-up and the drain (seed 001 Sec. 5.3) */
    double *sw_int_start, *sw_int_end;
    uint64_t *sw_peak_win;
    /* the incast overlay */
    simtime_ps incast_period_ps;
    struct rng incast_rng;
    uint32_t *incast_pick;    /* [hosts - 1]: scratch for choosing senders */
    uint8_t *is_incast;       /* [ordinal - first_flow]: an overlay message */
    uint32_t cap_is_incast;
    /* --stream: what the statistics need of messages already retired */
    struct poisson_acc {
        uint32_t measured, delivered_all, incast_measured, incast_delivered;
        uint32_t group_messages[POISSON_GROUPS], group_delivered[POISSON_GROUPS];
        double bytes, all_bytes;
        struct vcollect sd_all, sd_group[POISSON_GROUPS]; /* slowdowns of delivered measured messages */
    } acc;
    double *rcv_retired;      /* per host: payload received by retired messages */
};

/* What a run's messages achieved (poisson_collect). Measured messages are
 * those created in the window [warmup, min(stop, -end)). */
struct poisson_group_stats {
    uint32_t messages;        /* measured messages in the group */
    uint32_t delivered;       /* of which the receiver has every byte */
    uint32_t unfinished;      /* the others: messages - delivered */
    /* over all `messages`: an undelivered one counts as (run's end -
     * creation) / ideal, a lower bound of its slowdown, so both are lower
     * bounds when unfinished > 0 (docs/outputs.md "Unfinished messages") */
    double slowdown_median, slowdown_p99;
};

struct poisson_stats {
    simtime_ps window_start_ps, window_end_ps;
    uint32_t messages;        /* created in the whole run */
    uint32_t measured;        /* created in the window */
    uint32_t delivered;       /* measured, receiver has every byte */
    uint32_t incast_measured, incast_delivered; /* overlay messages (not in the above) */
    double load_requested, load_achieved;   /* payload / (hosts x rate x window), overlay included */
    double mean_bytes_cdf, mean_bytes_generated; /* of the background (CDF) messages */
    double msgs_per_s_per_host;             /* measured messages / hosts / window */
    uint64_t mss_bytes, bdp_bytes;          /* group bounds */
    struct poisson_group_stats all, group[POISSON_GROUPS];
    /* payload each host received during the window (any message's, duplicates
     * excluded) / the window: mean, min and max over hosts */
    double goodput_gbps_mean, goodput_gbps_min, goodput_gbps_max;
    /* --switch-stats only (else has_switch_window false): per tier, over the
     * window, the largest peak of a switch's total buffer and the mean over
     * the tier's switches of their time averages, in bytes */
    bool has_switch_window;
    uint64_t win_peak_bytes[TOPO_MAX_TIERS];
    double win_mean_bytes[TOPO_MAX_TIERS];
};

/* Slowdown: (receiver has every byte - creation) / ideal_delivery_ps; for a
 * message the receiver does not have whole at the run's end, (end -
 * creation) / ideal_delivery_ps, a lower bound (censored). */
void poisson_collect(const struct sim *s, struct poisson_stats *ps);
/* flows.csv's poisson_group of message f: "A" .. "D" for a measured
 * message (its size group), "incast" for a measured overlay message, ""
 * for one outside the window or not open-loop. */
struct flow;
const char *poisson_group_label(const struct sim *s, const struct flow *f);
/* The group of a message of size_bytes. */
uint32_t poisson_group_of(uint64_t size_bytes, uint64_t mss_bytes, uint64_t bdp_bytes);

/* Setup (after the transports'): first arrival of every host. */
void poisson_setup(struct sim *s, const struct poisson_spec *p);
/* EV_ARRIVAL for host h (< hosts): the message starts now; the next is
 * scheduled. id hosts and hosts + 1: the window's start and end, when the
 * payload each host has received is noted. */
void poisson_arrival(struct sim *s, uint32_t id);
void poisson_free(struct sim *s);
/* --stream: message fi finished at both ends and leaves its slot; its part
 * of the statistics is kept. */
void poisson_account_finished(struct sim *s, uint32_t fi);

#endif
