/* net.h: the fabric: ports (an output queue plus the link behind it),
 * switches and host NICs, stored as flat arrays indexed by integers.
 *
 * A port owns one direction of one link. Its queue has strict-priority
 * classes, set by each packet's transport: class 0 is control (ACK, NACK,
 * trimmed headers), class 1 data, and with --classes N data classes 2 .. N-1
 * follow in decreasing priority (struct port_xclasses, allocated only then).
 * The data class has a byte limit; a data packet that would overflow it is
 * trimmed to its header and queued as control (or dropped when trimming is
 * off or the control class is full). ECN is decided at dequeue with RED
 * between kmin and kmax. Only the packet at the head of a port is ever
 * scheduled: a port has at most one pending "transmission done" event.
 *
 * Nodes are numbered hosts first (0 .. n_hosts-1), then switches.
 */
#ifndef SPRAYSIM_NET_H
#define SPRAYSIM_NET_H

#include "packet.h"

enum port_flag {
    PORTF_TRIM = 1 << 0,      /* trim instead of drop on overflow */
    PORTF_ECN = 1 << 1,       /* RED/ECN marking at dequeue */
    PORTF_LASTHOP = 1 << 2,   /* faces a host: a trim here is a last-hop trim */
    PORTF_HOST_NIC = 1 << 3,  /* a host's NIC: data is pulled from the transport */
    PORTF_DOWN = 1 << 4,      /* the link is down: everything reaching it is dropped */
    PORTF_KNOWN_DOWN = 1 << 5,/* routing has learnt that the link is down */
    PORTF_DRR = 1 << 6,       /* data served by DRR between two traffic classes */
    PORTF_BUF_STATS = 1 << 7, /* a switch port whose switch totals its buffered bytes (--switch-stats) */
    PORTF_PAUSED = 1 << 8,    /* PFC: the far end paused one or more data classes (pfc.h) */
    PORTF_CLASS_DRR = 1 << 10,/* data classes 1 .. n-1 served by DRR, not strict priority (--sched class-drr) */
    PORTF_PFC = 1 << 9,       /* a switch port of a PFC run: its data counts towards its ingress links */
    PORTF_MARK_ALL = 1 << 11, /* ECN-marks every data packet it sends (--fail "link A B mark"): a
                               * congested path as seed 004 App. A models it, queue or not */
};

enum served_from {
    SERVED_FROM_CTL = 0,
    SERVED_FROM_DATA = 1,
    SERVED_FROM_TRANSPORT = 2, /* a NIC's data, pulled from the transport */
    SERVED_FROM_XCLASS = 16,   /* + c: switch class c >= 2 (struct port_xclasses) */
};

struct port_stats {
    uint64_t tx_packets;
    uint64_t tx_bytes;
    uint64_t ecn_marks;
    uint64_t trims;
    uint64_t drops;
    uint64_t bounces;         /* trimmed headers returned to their sender */
    uint64_t failure_drops;   /* packets lost because the link was down (part of drops) */
    double occupancy_byte_ps;  /* integral of queued data bytes over time, for the mean */
    simtime_ps last_change_ps;
    uint32_t peak_bytes;
};

/* The most switch classes a port can have: control and seven data classes. */
#define PORT_MAX_CLASSES 8

/* One data class beyond the first (switch classes 2 .. 7): its queue, its
 * own limit, ECN thresholds and trimming, and its occupancy statistics. */
struct port_class {
    uint32_t head, tail;
    uint32_t bytes;            /* queued, including the packet on the wire when it left this class */
    uint32_t limit_bytes;
    uint32_t ecn_kmin_bytes, ecn_kmax_bytes;
    uint32_t peak_bytes;
    bool trim;                 /* trim on overflow (else drop) */
    bool ecn;                  /* RED/ECN marking at dequeue */
    double occupancy_byte_ps;  /* integral of queued bytes over time, for the mean */
    simtime_ps last_change_ps;
};

struct port_xclasses {
    uint32_t n;                /* the port's classes in all: 3 .. PORT_MAX_CLASSES */
    struct port_class c[PORT_MAX_CLASSES - 2]; /* c[k] is switch class k + 2 */
    uint32_t deficit[PORT_MAX_CLASSES]; /* --sched class-drr: deficit of data class k (1 .. n-1) */
    uint32_t cur;                       /* --sched class-drr: the class whose turn it is */
    bool fresh;                         /* --sched class-drr: cur has not had this turn's quantum yet */
};

/* A port's second data class under DRR (class 0 uses the port's own data
 * queue); allocated only when --sched drr. */
struct drr_state {
    uint32_t head1, tail1;
    uint32_t bytes[2];
    uint32_t deficit[2];
    uint32_t cur;
    bool fresh; /* the current class has not received this turn's quantum yet */
};

/* Three cache lines (192 B). The first holds what deciding a packet's fate
 * reads: queue heads and tails, byte counts, limits, ECN thresholds, the link.
 * The counters follow: every departing data packet also writes the second
 * line (tx_packets, tx_bytes) and the third (the occupancy integral and its
 * timestamp, at offsets 120-135), so a packet's passage touches all three. */
struct port {
    uint32_t ctl_head, ctl_tail;
    uint32_t data_head, data_tail;
    uint32_t data_bytes;      /* queued data bytes, including the one in service */
    uint32_t ctl_bytes;
    uint32_t data_limit_bytes;
    uint32_t ctl_limit_bytes;
    uint32_t ecn_kmin_bytes;
    uint32_t ecn_kmax_bytes;
    uint32_t in_service;      /* packet being serialised, or PKT_NONE */
    uint32_t peer_node;
    uint32_t rate_mbps;
    uint16_t flags;           /* enum port_flag */
    uint8_t up;               /* 1 if this port points up the tree */
    uint8_t in_service_queue; /* enum served_from: which class the packet on the wire left */
    simtime_ps latency_ps;    /* propagation plus the receiving switch's latency */
    struct port_stats st;
    uint32_t owner_node;
    uint32_t nominal_mbps;    /* the rate the link was built with */
    simtime_ps base_latency_ps; /* latency as built; failures add extra delay to it */
    struct drr_state *drr;
    struct port_xclasses *x;  /* data classes 2 .. n-1, NULL with the default two classes */
} __attribute__((aligned(64)));

/* A host's NIC has one port per plane (-planes): plane p's port is
 * nic_port + p x n_hosts (host_nic_port). With one plane the NIC is that
 * port alone. With several, the NIC owns which port a packet leaves by
 * (nic_send, nic_kick): control packets wait in the NIC's own queue, and
 * each packet, control or pulled data, goes out on the next free port after
 * the last one used, round robin (htsim EqdsNIC/UecNIC::findFreePort). */
struct host {
    uint32_t nic_port;        /* plane 0's port */
    /* ring of sender flows that may have something to send (transport owns it) */
    uint32_t ready_head;
    uint32_t ready_count;
    /* several planes only: the NIC's control queue, and the port used last */
    uint32_t ctl_head, ctl_tail;
    uint32_t rr_plane;
};

struct switch_node {
    /* bytes buffered in all its ports and classes (packets on the wire
     * included, as the ports count them), seed 001's measure of ToR queuing */
    uint64_t buffered_bytes;
    uint64_t peak_buffered_bytes;
    uint64_t win_peak_buffered_bytes; /* peak since the Poisson window's start (seed 001's steady state) */
    double buffered_byte_ps;       /* integral over time, for the mean */
    simtime_ps buffered_changed_ps;
    uint32_t first_port;
    uint16_t n_down;          /* ports [first_port, first_port+n_down) face down */
    uint16_t n_up;            /* then n_up ports that face up */
    uint8_t tier;             /* 0 = top of rack */
    uint8_t plane;            /* -planes: which copy of the tree (0 .. planes-1) */
    uint32_t index_in_tier;
    uint64_t hash_salt;       /* per-switch ECMP salt so tiers hash independently */
};

struct sim;

/* ---- per-class queueing policy (policy.c) -------------------------------------
 *
 * The fabric owns its queueing policy; a transport only declares what it
 * needs of the switch classes its packets use (transport_ops.fabric_needs)
 * and never writes a port. For each data class 1 .. n_classes-1, net/
 * merges the needs of every transport in the run at start-up, refuses a
 * run whose transports need different things of one class (one line naming
 * both), and writes the result into the ports' own per-class fields (flags
 * and thresholds for class 1, struct port_class for 2 ..), so the per-packet
 * path reads exactly what it read before: no table lookup per packet. */

/* What one transport needs of one class's ECN marking, last-hop marking or
 * trimming. ANY: no need (the class keeps what the run configured). BASE:
 * exactly what the run configured (flags, -ecn, --class-opt). */
enum class_need_kind {
    NEED_ANY = 0,
    NEED_BASE = 1, /* as configured */
    NEED_OFF = 2,  /* no ECN marking / no trimming */
    NEED_STEP = 3, /* ECN only: step marking above ecn_step_bytes (RED with kmin = kmax) */
};

struct class_need {
    uint8_t ecn;             /* enum class_need_kind, on every switch port of the class */
    uint8_t ecn_lasthop;     /* ANY, BASE or OFF: marking on ports facing a host (OFF wins over ecn there) */
    uint8_t trim;            /* ANY, BASE or OFF (no trimming: a full queue drops) */
    bool ecn_weak;           /* ecn and ecn_lasthop are preferences: the transport never reads ECN marks,
                                so another transport's need of them wins without a conflict */
    bool trim_weak;          /* trim is a preference (e.g. a lossless class never overflows) */
    uint32_t ecn_step_bytes; /* NEED_STEP's threshold */
    /* Optional: called as each packet of the class finishes leaving any port
     * (host NICs too), with the bytes queued at that port's data classes
     * then (in-band telemetry: RoCE's -hpcc). One hook per class: two
     * different ones on one class conflict. */
    void (*egress)(struct sim *s, uint32_t port_idx, uint32_t pkt_idx, uint32_t qlen_bytes);
};

/* The policy a class ended with, as summary.json reports it. */
struct class_policy {
    uint8_t ecn;             /* NEED_BASE (the configured RED band), NEED_OFF or NEED_STEP */
    uint8_t ecn_lasthop;     /* NEED_BASE (as the class) or NEED_OFF */
    uint8_t trim;            /* NEED_BASE (as configured) or NEED_OFF */
    bool ecn_strong, lasthop_strong, trim_strong; /* decided by a need, not a preference */
    uint32_t ecn_step_bytes;
    const char *ecn_by, *lasthop_by, *trim_by; /* the transport whose need decided it; NULL: as configured */
    void (*egress)(struct sim *s, uint32_t port_idx, uint32_t pkt_idx, uint32_t qlen_bytes); /* class_need.egress */
    const char *egress_by;
};

/* Adds transport `who`'s needs of classes 1 .. n_classes-1 (need[k]; class 0,
 * control, never marks or trims): exits 2 with one line naming both
 * transports when a need conflicts with one already added. */
void net_class_needs_add(struct sim *s, const char *who, const struct class_need need[PORT_MAX_CLASSES]);
/* What data class cls does as the run uses it (the merged needs, else the
 * configuration): whether it trims, and how it marks ECN (NET_ECN_*; the
 * step threshold in *step_bytes). The summary and the congestion controls'
 * parameters read these, never a transport's rewrite of the configuration. */
enum { NET_ECN_OFF = 0, NET_ECN_RED = 1, NET_ECN_STEP = 2 };
bool net_class_trims(const struct sim *s, uint32_t cls);
uint32_t net_class_ecn(const struct sim *s, uint32_t cls, uint32_t *step_bytes);
/* Writes the merged policy into every switch port (once, before the run). */
void net_class_policy_apply(struct sim *s);
/* The per-class policy as a JSON array, for summary.json. */
void net_class_policy_json(const struct sim *s, struct strbuf *b);

/* ---- the queue representation, owned here: other modules use these ---------- */

/* A port from `owner` to `peer` at `mbps` with `latency_ps`, its queue
 * classes empty, each class limited to `queue_bytes`. */
void port_init(struct port *p, uint32_t owner, uint32_t peer, uint32_t mbps, simtime_ps latency_ps, uint32_t flags,
               uint32_t queue_bytes, bool up);
/* Serves the data class as two DRR traffic classes (--sched drr). */
void port_enable_drr(struct port *p);
/* Gives the port n_classes classes (3 .. PORT_MAX_CLASSES); the extra data
 * classes start with class 1's limit, ECN thresholds and trimming. */
void port_enable_classes(struct port *p, uint32_t n_classes);
void port_free(struct port *p);
/* The link behind the port went down: everything queued is lost (counted as
 * failure drops); the packet on the wire keeps its bytes until it completes,
 * when port_tx_done drops it. */
void port_fail(struct sim *s, uint32_t port_idx);
/* Calls fn for every packet the port holds: each class's queue, then the
 * packet on the wire (`on_wire` true). fn returning false stops the walk of
 * that queue (a checker that finds a corrupt list must not follow a cycle). */
void port_visit_held(const struct sim *s, uint32_t port_idx,
                     bool (*fn)(const struct sim *s, uint32_t pkt_idx, bool on_wire, void *ctx), void *ctx);

/* Stamps and enqueues a packet on a port; starts transmission if idle.
 * Applies trimming / drop-tail to data packets. */
void port_enqueue(struct sim *s, uint32_t port_idx, uint32_t pkt_idx);
/* Queues a control packet made inside the network (a bounced header) in a
 * port's control class, or drops it there when the class is full. */
void port_push_control(struct sim *s, uint32_t port_idx, uint32_t pkt_idx);
/* Handles the end of a packet's serialisation on a port. */
void port_tx_done(struct sim *s, uint32_t port_idx);
/* PFC lifted a pause: the port starts its next packet if it is idle. */
void port_resume(struct sim *s, uint32_t port_idx);
/* Starts the NIC if it is idle (called by the transport when data appears);
 * with several planes, every free port that finds something to send. */
void nic_kick(struct sim *s, uint32_t host);
/* A transport hands the NIC of `host` a packet it made (ACK, pull, NACK,
 * a retransmitted or unpaced data packet): with one plane it queues at the
 * NIC's port; with several the NIC sends it on its next free port. */
void nic_send(struct sim *s, uint32_t host, uint32_t pkt_idx);
#define PORT_NONE UINT32_MAX
/* routing must be decided when the packet arrives (adaptive routing, failures) */
#define PORT_ROUTE_ON_ARRIVAL (UINT32_MAX - 1)
/* A packet reaches pkt->node: a switch forwards it to out_port (routed when
 * it left the previous hop); a host (out_port PORT_NONE) hands it to the
 * transport. */
void node_receive(struct sim *s, uint32_t pkt_idx, uint32_t out_port);

/* Brings every port's occupancy integral up to `now` (before reading stats). */
void net_close_stats(struct sim *s);

/* RED at dequeue on the data bytes left behind: never at or below kmin,
 * always above kmax, in between with probability (q - kmin)/(kmax - kmin),
 * decided by the uniform 64-bit draw u (Lemire's multiply: a bias below
 * 2^-32 for bands under 4 GB). */
static inline bool red_mark_u64(uint64_t u, uint32_t q_bytes, uint32_t kmin_bytes, uint32_t kmax_bytes)
{
    if (q_bytes > kmax_bytes)
        return true;
    if (q_bytes <= kmin_bytes)
        return false;
    return (uint64_t)(((unsigned __int128)u * (kmax_bytes - kmin_bytes)) >> 64) < q_bytes - kmin_bytes;
}

/* The same with a draw from stream r, taken only inside the band. */
static inline bool red_mark(struct rng *r, uint32_t q_bytes, uint32_t kmin_bytes, uint32_t kmax_bytes)
{
    if (q_bytes > kmax_bytes || q_bytes <= kmin_bytes)
        return q_bytes > kmax_bytes;
    return red_mark_u64(rng_next(r), q_bytes, kmin_bytes, kmax_bytes);
}

/* A switch port's RED draw: SplitMix64 at (port, packets it has sent), so a
 * port's decisions depend on nothing another port did (docs/parallel.md "Parallel
 * runs (MPI)"); salt comes from --seed. */
static inline uint64_t red_port_draw(uint64_t salt, uint32_t port_idx, uint64_t tx_packets)
{
    return mix64(salt + (((uint64_t)port_idx << 40) | tx_packets) * 0x9e3779b97f4a7c15ULL);
}

/* Serialisation time of `bytes` on a link of `rate_mbps`. */
static inline simtime_ps serialize_ps(uint32_t bytes, uint32_t rate_mbps)
{
    return ((uint64_t)bytes * 8000000ULL + rate_mbps - 1) / rate_mbps;
}

#endif
