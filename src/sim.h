/* sim.h: the simulation as one object: configuration, clock and event queue,
 * packet pool, fabric, flows and the modules plugged into them.
 *
 * Every module receives a `struct sim *` and touches only its own part plus
 * the narrow calls declared in the module headers. The event kinds below are
 * the complete vocabulary of the dispatcher in sim.c.
 */
#ifndef SPRAYSIM_SIM_H
#define SPRAYSIM_SIM_H

#include "core/core.h"
#include "net/net.h"             /* the packet pool, ports, switch classes and their policy */
#include "topo/topo.h"           /* struct topo */
#include "workload/cm.h"         /* struct conn_matrix */
#include "cc/cc.h"               /* struct cc_option (--cc-opt) */
#include "metrics/timeseries.h"  /* struct ts_config (--ts-*) */
#include "transport/transport.h" /* TRANSPORT_MAX: one per-run state slot per transport */

struct link_event; /* topo/failures.h */

enum event_kind {
    EV_PORT_TX_DONE = 1, /* id = port: head packet finished serialising */
    EV_PKT_ARRIVE = 2,   /* id = packet: reaches pkt->node */
    EV_FLOW_START = 3,   /* id = flow */
    EV_TRANSPORT_TIMER = 4, /* id = flow, aux = the transport's own timer kind, the slot's generation above bit 16 */
    EV_LINK_CHANGE = 7,  /* id = link event: a link goes down/up or changes rate or delay */
    EV_ROUTE_LEARN = 8,  /* id = link event: routing learns of a down/up change */
    EV_ARRIVAL = 9,      /* id = host: its next open-loop message starts (src/workload/poisson.h) */
    EV_PFC = 10,         /* id = port, aux = enum pfc_event_kind: a PAUSE or RESUME acts, or the deadlock check */
    EV_FLOW_RETIRE = 11, /* id = flow, aux = its slot's generation: a finished message's slot is recycled (--stream) */
    EV_TS_SAMPLE = 12,   /* a time-series sample (metrics/timeseries.h); only with --ts-* */
    EV_HOST_TIMER = 13,  /* id = host, aux = a transport's host timer (transport_host_timer_at) */
    EV_GOAL = 14,        /* id = a GOAL calc that ends, or the schedule's start (src/workload/goal.h); aux =
                            0, or (--goal-send-done path) 1 + the host whose rank's state it changes */
    EV_TRIGGER = 15,     /* id = host, aux = (trigger, host) pair: --trigger-delay path's activation reaches the host */
};

enum routing_mode {
    ROUTE_ECMP = 0,   /* hash (flow, entropy, switch salt) over equal-cost up ports */
    ROUTE_AR = 1,     /* per packet: the up port with the shortest quantised queue */
    ROUTE_EV_MOD = 2, /* up port = entropy mod ports: exact paths for controlled experiments */
};

/* -ar_method: what adaptive routing compares up ports by (htsim
 * FatTreeSwitch::compare_*; its link-utilisation methods are not modelled) */
enum ar_method {
    AR_BY_QUEUE = 0,      /* htsim "queue", its default: the shorter quantised queue */
    AR_BY_PAUSE = 1,      /* "pause": a port not paused by PFC over a paused one */
    AR_BY_PAUSE_QUEUE = 2,/* "pq": not paused first, then the shorter queue */
};

/* --reroute: what a switch does once routing knows it has no up-down route on */
enum reroute_mode {
    REROUTE_NONE = 0,   /* hash over its ports anyway (the packet is likely lost) */
    REROUTE_BOUNCE = 1, /* a valley: down to another lower switch that still reaches the destination */
};

/* One occurrence of a flag a transport owns (transport.h's struct
 * transport_flag): the CLI stores it, the owner parses it. name points at
 * the owner's table entry, args into argv. */
struct tp_flag_given {
    const char *name;
    const char *args[2];
};
#define CONFIG_MAX_TP_FLAGS 128

/* Everything a run is configured with; filled by the CLI, defaults in
 * config_defaults(). Sizes in bytes, times in picoseconds, rates in Mb/s. */
struct config {
    const char *tm_path;
    const char *workload_spec;   /* --workload KIND:NAME=VALUE,... (src/workload/gen.h); excludes -tm */
    const char *goal_path;       /* --goal FILE (-goal): a GOAL schedule (src/workload/goal.h); excludes -tm, --workload */
    const char *goal_map_path;   /* --goal-map FILE: rank to host (default: rank x NICs + NIC) */
    bool goal_ops;               /* --goal-ops: goal_ops.csv, each operation's start and end */
    const char *write_cm_path;   /* --write-cm FILE: the simulated matrix, failures included */
    double random_failure_p;     /* --random-failures P: each inter-switch link down from t=0 */
    const char *topo_path;
    const char *out_dir;
    uint64_t seed;
    simtime_ps end_ps;
    uint32_t nodes;              /* -nodes; 0 = from the matrix */
    uint32_t tiers;              /* default tree when no -topo */
    uint32_t planes;             /* -planes: identical fat trees, one NIC port per host in each (1 .. 8) */
    uint32_t linkspeed_mbps;     /* host NIC speed (and all links without -topo) */
    uint32_t mtu_bytes;          /* full data packet on the wire */
    uint32_t hdr_bytes;          /* header: ACK, NACK and (without -trimsize) trimmed sizes */
    uint32_t trim_bytes;         /* -trimsize: a trimmed data packet's size (0: hdr_bytes) */
    uint32_t queue_pkts;         /* -q; 0 = auto (one BDP, five without trimming) */
    bool queue_infinite;         /* -q inf: switch queues never overflow (seed 001's setup) */
    uint32_t ecn_low_pkts;       /* -ecn; 0 = auto (20% / 80% of one BDP) */
    uint32_t ecn_high_pkts;
    uint32_t cwnd_pkts;          /* -cwnd; 0 = CC default */
    uint32_t paths;              /* -paths: entropy values per flow */
    bool paths_given, lb_given;  /* -paths, --lb (or -use_reps 1) named: a one-path transport then follows them
                                    (transport_ops.one_path_default) */
    bool trimming;
    bool sleek;                  /* -sleek: SLEEK loss recovery and probes */
    simtime_ps target_qdelay_ps; /* 0 = NSCC default */
    int qa_gate;                 /* -1 = NSCC default */
    bool disable_fd;             /* -disable_fd: SMaRTT's Fair Decrease off (fd = 0) */
    simtime_ps hop_latency_ps;
    simtime_ps switch_latency_ps;
    double q3_pressure;
    uint32_t ack_threshold_bytes; /* delayed-ACK byte threshold */
    const char *transport_name;  /* --transport: every connection's, unless its .cm line says */
    /* Who sets the pace (htsim's -sender_cc, -receiver_cc, -receiver_cc_only, -sender_cc_only, in the
     * order given): -1 = the transport's default (each transport's setup says), else 0 or 1. */
    int8_t sender_cc;
    int8_t receiver_cc;
    bool cc_given;               /* --cc or -sender_cc_algo named the algorithm */
    bool quantile_sketch;        /* --quantiles sketch: summary percentiles from fixed-size log histograms
                                    (metrics/vcollect.h), not every value */
    int8_t stream;               /* --stream: flows.csv rows written as messages finish and slots recycled (1), or
                                    all at the end (0); -1 = on for open-loop workloads */
    int8_t msg_cc;               /* --msg-cc: a connection's next message inherits its CC and balancer state
                                    (1) or starts fresh (0); -1 = the transport's default */
    uint8_t trigger_delay;       /* --trigger-delay: 0 none (htsim: a trigger starts its connections the instant
                                    it fires), 1 path (each target's source hears it after the minimum one-way
                                    latency of a control packet from the activating host: sim.c) */
    uint8_t goal_send_done;      /* --goal-send-done: 0 match (a GOAL send op completes when its receiver matches
                                    the message), 1 path (after the minimum one-way latency of a control packet
                                    from the receiver's host back to the sender's: goal.c) */
    /* The last flag given of each group a single transport or balancer reads
     * (NULL: none), for transport_setup's warning when no connection reads it */
    const char *cc_mode_flag;    /* -sender_cc, -receiver_cc, -sender_cc_only, -receiver_cc_only */
    bool ack_threshold_given;    /* -sack_threshold */
    const char *cc_name;
    const char *lb_name;
    uint32_t routing;            /* enum routing_mode */
    uint32_t reroute;            /* enum reroute_mode */
    bool drr;                    /* --sched drr: two data classes served by DRR */
    bool class_drr;              /* --sched class-drr: data classes 1 .. n_classes-1 served by DRR, not strict priority */
    uint32_t drr_quantum_bytes;
    uint32_t ar_quantum_bytes;   /* adaptive routing compares queues in these units */
    bool ar_flowlet;             /* -ar_granularity flow: a flow keeps its up port until a gap (fabric.c) */
    bool ar_bands;               /* compare htsim's four queue bands, not ar_quantum_bytes (-strat ecmp_ar) */
    uint8_t ar_method;           /* enum ar_method (-ar_method) */
    simtime_ps ar_sticky_delta_ps; /* -ar_sticky_delta: the gap after which a flowlet may move */
    uint32_t failed_links;       /* -failed N: links at 25% speed (htsim) */
    simtime_ps detect_ps;        /* failure detection delay before routing reacts */
    simtime_ps min_rto_flag_ps;  /* --min-rto-us: the minimum RTO (0 = derived from the queue) */
    bool aggressive_rto;         /* --aggressive-rto: the minimum RTO of a one-BDP queue whatever -q says */
    const char *fail_specs[64];  /* --fail SPEC */
    unsigned n_fail_specs;
    struct cc_option cc_opts[16]; /* --cc-opt name=value */
    unsigned n_cc_opts;
    bool progress;                /* progress on stderr (--progress, --no-progress) */
    double progress_every_s;      /* --progress-every S: seconds between progress reports (0: 1 s on a
                                     terminal, where one line is redrawn; 5 s otherwise, a line each) */
    bool quiet;
    bool check_only; /* --check: parse and validate flags and input files, run nothing */
    bool htsim_output;            /* print htsim's per-flow start/finish lines */
    bool htsim_logtime;           /* -logtime set the time series' interval */
    bool ar_sticky_given;         /* -ar_sticky_delta given (warned when no flowlet routing reads it) */
    bool ar_granularity_given;    /* -ar_granularity given: the run's transport keeps its default off it */
    bool strat_ecmp_ar;           /* -strat ecmp_ar given (the reference's adaptive routing) */
    bool switch_stats;            /* --switch-stats: each switch's total buffered bytes, switches.csv */
    uint32_t n_classes;           /* --classes: switch classes per port (control + data classes), 2..8 */
    bool classes_given;           /* --classes was on the command line */
    int loss_detect;              /* --loss-detect: enum cc_loss_mode, or -1 for the algorithm's own */
    struct class_opt {            /* --class-opt K:NAME=VALUE for data classes 2 .. n_classes-1 */
        uint32_t cls;
        char name[16];
        double value;
    } class_opts[32];
    unsigned n_class_opts;
    /* lossless classes (docs/models.md "Lossless RoCEv2: PFC and DCQCN") */
    bool pfc;                     /* PFC on the data class of every switch port (on by default when the run's
                                     transport is lossless: transport_ops.lossless) */
    uint8_t lossless_mask;        /* bit K: data class K is lossless (--class-opt K:lossless=1); 0: none marked (sim_setup) */
    int8_t pfc_flag;              /* --pfc on|off: -1 = the transport's default */
    uint32_t pfc_low_pkts;        /* -pfc_thresholds LOW HIGH: RESUME below LOW, PAUSE above HIGH */
    uint32_t pfc_high_pkts;
    simtime_ps pfc_deadlock_ps;   /* a cycle of paused ports unchanged this long is reported as a deadlock */
    const char *rate_cc_name;     /* --cc NAME of a rate-based control (cc.h rate_based): the run's transport's
                                     rate control, read by the transport that has one; NULL: none named */
    struct ts_config ts;          /* --ts-*: time series (metrics/timeseries.h); nothing selected = off */
    struct tp_flag_given tp_flags[CONFIG_MAX_TP_FLAGS]; /* flags transports own, in command-line order */
    unsigned n_tp_flags;
};

void config_defaults(struct config *c);

/* -q inf: a byte limit no queue reaches (a u32 count plus one packet cannot
 * wrap below it). */
#define QUEUE_INFINITE_BYTES (UINT32_MAX - 65536u)

struct flow;
struct cc_ops;
struct lb_ops;

struct sim_totals {
    uint64_t data_pkts_sent;
    uint64_t rtx_pkts_sent;
    uint64_t acks_sent;
    uint64_t nacks_sent;
    uint64_t data_pkts_delivered; /* full data packets that reached their receiver */
    uint64_t trimmed_delivered;   /* trimmed headers that reached their receiver */
    uint64_t ctl_delivered;       /* acks and nacks consumed by a sender */
    uint64_t rtos;
    uint64_t probes_sent;
    uint64_t rts_sent;
    uint64_t data_drops;          /* data packets (whole or trimmed) dropped */
    uint64_t class_trims[PORT_MAX_CLASSES]; /* data packets trimmed, by the switch class they were in */
    uint64_t class_drops[PORT_MAX_CLASSES]; /* packets dropped, by switch class (0: control and trimmed headers) */
    uint64_t failure_drops;       /* packets dropped by links that were down */
    uint64_t valleys;             /* --reroute bounce: packets a switch sent down into a valley */
    uint64_t valley_limit_hits;   /* packets refused another valley (fabric.c REROUTE_MAX_VALLEYS) */
    uint64_t data_bounced;        /* trimmed headers a switch returned to the sender */
    uint64_t ctl_drops;
    uint64_t pulls_sent;          /* receiver-credit grants (PKT_PULL) */
};

struct sim {
    struct config cfg;
    simtime_ps now;
    struct event_queue eq;
    struct packet_pool pool;
    uint64_t ecn_salt;           /* RED's draws: a hash of (this, port, packets sent), sim_red_mark */
    /* Tie order (docs/parallel.md "Parallel runs (MPI)"): an event's sequence is
     * (origin << ORIGIN_SHIFT) | that origin's count of events scheduled,
     * origin 0 for setup and 1 + node for the node whose event runs. */
    uint64_t *origin_seq;        /* [1 + nodes]: each origin's next sequence (eq.seq_next points at the current one) */
    uint32_t cur_origin;         /* kept with SPRAYSIM_CHECKS only, for sim_set_origin's check */
    simtime_ps lookahead_ps;     /* window length: smallest latency of a link touching the top tier */

    /* fabric */
    struct topo topo;
    uint32_t n_hosts, n_switches, n_ports;
    bool routing_dynamic;        /* route on arrival: adaptive routing or known failures */
    bool failures_known;         /* some link is known down: filter routes */
    uint64_t *route_cache;       /* [switch * n_tor + dst_tor]: usable output ports, bit 63 = valid */
    struct rng *ar_rng;          /* [switch]: adaptive routing's tie breaks, a stream per switch */
    struct ar_flowlets *ar_flowlets; /* -ar_granularity flow: each switch's (flow -> up port, last packet) */
    struct ar_band *ar_bands;    /* [port]: htsim's queue band as last sampled (cfg.ar_bands; fabric.c) */
    struct link_event *link_events;
    uint32_t n_link_events, cap_link_events;
    uint32_t inter_switch_links;  /* links between two switches (bundle members each count) */
    uint32_t random_failed_links; /* of which --random-failures took down */
    struct port *ports;
    struct host *hosts;
    struct switch_node *switches;

    /* derived network constants */
    simtime_ps base_rtt_ps;      /* network's largest unloaded RTT */
    uint64_t bdp_bytes;          /* base_rtt x host link rate */
    uint32_t queue_bytes;        /* the default switch queue (QUEUE_INFINITE_BYTES with -q inf) */
    uint32_t tier_queue_down_bytes[TOPO_MAX_TIERS]; /* per tier, after .topo Queue_Down/Up and -q */
    uint32_t tier_queue_up_bytes[TOPO_MAX_TIERS];
    bool tier_queues_differ;     /* some tier's queue is not the default */
    /* each data class's queueing policy, merged from the transports' needs
     * (net/policy.c; class 0, control, never marks or trims) */
    struct class_policy class_policy[PORT_MAX_CLASSES];
    bool class_egress;           /* some class has an egress hook (class_policy[k].egress) */
    uint32_t ecn_kmin_bytes_default;
    uint32_t ecn_kmax_bytes_default;
    simtime_ps min_rto_ps;
    simtime_ps probe_period_ps;  /* base RTT + target queueing delay */

    /* workload */
    struct conn_matrix cm;
    uint32_t n_flows;
    struct flow *flows;
    uint32_t cap_flows;          /* flows and cm.conns have room for this many (they grow during open-loop runs) */
    uint32_t n_flows_matrix;     /* flows made at setup; later ones came during the run */
    uint32_t n_msgs;             /* messages created so far (n_flows unless --stream recycles slots) */
    uint32_t n_msgs_added_here;  /* of those made during the run, the ones whose source is this process's
                                    (all of them in a plain run): a parallel run's stop test counts them */
    bool cm_has_msgs;            /* some connection carries several messages or a msg key: flows.csv's msg column */
    struct flow_stream *fstream; /* --stream (metrics/flowstream.h), NULL when off */
    struct conn_pools *pools;    /* persistent connections of open-loop messages (transport.c), NULL when unused */
    uint8_t count_pkts;          /* 1: flows count their packets in the network (f->pkts_out), as --stream's
                                    recycling needs; every transport that makes packets adds it (docs/contributing.md
                                    "Adding a transport") */
    struct poisson_run *poisson; /* open-loop arrivals (NULL when unused) */
    struct goal_run *goal;       /* a GOAL schedule being run (src/workload/goal.h), NULL when unused */
    bool arrivals_open;          /* more flows will come: all finished does not end the run */
    uint32_t flows_finished;
    uint32_t flows_started;
    uint32_t *trigger_counts;    /* activations so far, per trigger */
    /* triggers as the run uses them: ids sorted with their index (binary
     * search), and each trigger's waiting connections in file order
     * (waiters[first[t] .. first[t+1]), of which next[t] is the first not
     * started yet), so an activation costs O(log triggers + its waiters) */
    uint64_t *trigger_by_id;     /* (id << 32) | index, sorted */
    uint32_t *trigger_first;
    uint32_t *trigger_waiters;
    uint32_t *trigger_next;
    /* --trigger-delay path (sim.c): each trigger's distinct source hosts of
     * waiting connections, trig_host[trig_host_first[t] .. trig_host_first[t+1]),
     * with the pair's trigger and the activations the host has heard; and
     * the one-way latencies from the last activating host (trig_lat_from,
     * UINT32_MAX: none yet) over the fabric's ports by owner */
    uint32_t *trig_host_first, *trig_host, *trig_pair_ti, *trig_heard;
    uint32_t trig_lat_from;
    simtime_ps *trig_lat_ps;
    uint32_t *trig_adj_first, *trig_adj;

    const struct cc_ops *cc;
    uint32_t loss_mode;          /* enum cc_loss_mode: the algorithm's, or --loss-detect's */
    uint32_t dupack_threshold;   /* for CC_LOSS_DUPACK / CC_LOSS_SACK_HOLE */
    const struct lb_ops *lb;
    void *tp_run[TRANSPORT_MAX]; /* each transport's per-run state, by registry position (transport_run_state) */
    /* per-run state of the receiver-credit transports (NULL when unused) */
    struct pfc_run *pfc;         /* PFC state (net/pfc.h), NULL when PFC is off */
    bool no_sender_window;       /* the run's transport uses no sender CC (the summary says "cc none") */
    struct ts_run *ts;           /* time series (metrics/timeseries.h), NULL when off */

    struct sim_totals tot;
    uint64_t events_processed;
    bool stop;

    /* parallel runs (src/mpi/pdes.c): NULL in plain runs. node_remote[n] is
     * 1 when node n belongs to another process; a packet leaving for such a
     * node goes to export_arrival instead of the local queue. */
    const uint8_t *node_remote;
    void (*export_arrival)(struct sim *s, simtime_ps at_ps, uint64_t seq, uint32_t pkt_idx, uint32_t aux);
    /* an event without a packet for another process's node (a PFC frame) */
    void (*export_event)(struct sim *s, simtime_ps at_ps, uint64_t seq, uint32_t kind, uint32_t id, uint32_t aux);
    void *pdes;
    /* [flow * the run transport's n_counters]: its per-flow counters summed
     * over the processes (pdes_collect, rank 0; owned by pdes.c), which
     * report.c prints instead of asking the transport; NULL otherwise */
    const uint64_t *flow_tp_counters;
    /* parallel runs: the event being handled (sim_run_window's) and where
     * --htsim-output lines go instead of stdout (pdes.c gathers them to
     * rank 0 in the plain run's order) */
    const struct event *cur_event;
    simtime_ps cur_time_ps;  /* with htsim_line: the instant of the events run, and */
    uint64_t cur_order_max;  /* the largest key (event order) run at it on this process so far */
    uint64_t last_event_order; /* sim_run_window: the key of the last event it ran (time-series samples aside) */
    void (*htsim_line)(struct sim *s, const char *line);
};

/* Bits of an event's sequence below its origin (core.h's seq has 56). */
#define ORIGIN_SHIFT 34
#define ORIGIN_MAX ((1u << (56 - ORIGIN_SHIFT)) - 1)

/* Makes `origin` (0: setup, 1 + node) the scheduler of what follows: the
 * queue numbers pushes from that origin's counter in place (a pointer, not
 * a save and restore: origins change at almost every event). */
static inline void sim_set_origin(struct sim *s, uint32_t origin)
{
    invariant((*s->eq.seq_next >> ORIGIN_SHIFT) == s->cur_origin, "origin %u scheduled 2^%u events", s->cur_origin,
              ORIGIN_SHIFT);
#ifdef SPRAYSIM_CHECKS
    s->cur_origin = origin; /* read by the check above only: a store an event saved without checks */
#endif
    s->eq.seq_next = &s->origin_seq[origin];
}

/* The node (1 + index; 0 = none) whose state an event changes: the origin
 * of what it schedules, and its owner in a parallel run's partition (docs/parallel.md
 * "Parallel runs (MPI)"). Packets' events inline, the rest in sim.c. */
uint32_t sim_event_origin_other(const struct sim *s, const struct event *ev);
static inline uint32_t sim_event_origin(const struct sim *s, const struct event *ev)
{
    if (ev->kind == EV_PKT_ARRIVE)
        return 1 + s->pool.pkts[ev->id].node;
    if (ev->kind == EV_PORT_TX_DONE)
        return 1 + s->ports[ev->id].owner_node;
    return sim_event_origin_other(s, ev);
}
/* Runs one event (the dispatcher) whose origin is `origin`
 * (sim_event_origin): sets it, the clock, and counts the event. */
void sim_dispatch(struct sim *s, const struct event *ev, uint32_t origin);
/* A line of --htsim-output (the reference's per-flow lines): printed on
 * stdout, or in a parallel run handed to s->htsim_line. */
__attribute__((format(printf, 2, 3))) void sim_htsim_printf(struct sim *s, const char *fmt, ...);
/* Events of the whole fabric that every process of a parallel run handles
 * (origin 0, scheduled at setup or by each other): link changes
 * (--fail, -failed, --random-failures) and routing's learning of them,
 * time-series samples, and open-loop arrivals (every process draws every
 * host's arrivals and makes every message's flow slot, so slots and
 * message numbers agree everywhere; only the source's process starts the
 * message: poisson.c start_here). */
static inline bool sim_event_everywhere(const struct event *ev)
{
    return ev->kind == EV_LINK_CHANGE || ev->kind == EV_ROUTE_LEARN || ev->kind == EV_TS_SAMPLE ||
           ev->kind == EV_ARRIVAL;
}
/* One conservative window of a parallel run (src/mpi/pdes.c): handles, in
 * order, the events up to limit_ps whose origin is this process's
 * (node_remote; origin 0, setup's, belongs to rank 0: origin0_here),
 * dropping the others (setup schedules every flow's start everywhere);
 * *last_event_ps is the time of the last one handled; returns how many.
 * Here, not in pdes.c, so the loop is compiled as sim_run's is, with the
 * pop and the handlers inlined into it (the MPI binary's own loop called
 * them: about 28% more cycles per event at 8192 hosts). */
uint64_t sim_run_window(struct sim *s, simtime_ps limit_ps, bool origin0_here, simtime_ps *last_event_ps);
/* Whether the fabric is large enough for the loop's prefetches (sim.c;
 * the prefetches themselves are in sim_prefetch.h). */
bool sim_wants_prefetch(const struct sim *s);
/* After the loop: the clock's final reading and the statistics closed. */
void sim_finish(struct sim *s);

/* Refuses (one line, exit 2) a fabric of more nodes, hosts and switches,
 * than an event's origin can name (ORIGIN_MAX - 1, origin 0 being setup). */
void sim_check_node_count(uint32_t nodes);
/* Builds everything from the configuration (exits 2 on bad input). */
void sim_setup(struct sim *s, const struct config *cfg);
/* Runs to the end time or until every flow has finished. */
void sim_run(struct sim *s);
void sim_free(struct sim *s);

/* A connection's done-trigger fired: starts whatever waits on it. */
void sim_trigger_activate(struct sim *s, uint32_t trigger_id);
/* --trigger-delay path: the minimum one-way latency of a control packet from
 * host a to host b (sim.c's comment says what it counts); 0 when a is b. */
simtime_ps sim_trigger_latency_ps(struct sim *s, uint32_t a, uint32_t b);

/* Host h's NIC port on plane `plane` (net.h struct host). */
static inline uint32_t host_nic_port(const struct sim *s, uint32_t h, uint32_t plane)
{
    return s->hosts[h].nic_port + plane * s->n_hosts;
}

/* Schedules an event relative to nothing: absolute simulated time. */
static inline void sim_at(struct sim *s, simtime_ps t, uint32_t kind, uint32_t id)
{
    eq_push(&s->eq, t, kind, id);
}

#endif
