/* transport.h: how transports plug into the simulator, in the spirit of
 * Linux's struct tcp_congestion_ops: one ops table per transport, chosen per
 * run (--transport NAME) or per connection (the .cm key "transport NAME").
 * The core never knows which protocol a flow speaks: it hands a packet that
 * reached its host to the flow's transport, asks the flow's transport for
 * the next data packet when the host's NIC is free, and delivers the timers
 * a transport set (generic events, so a new protocol never edits the event
 * list in sim.h).
 *
 * The generic part lives in transport.c: the flows built from the matrix,
 * and each host's NIC ready ring, which shares the wire among the host's
 * flows (of any transport) in round robin.
 *
 * The contract (issue 21; docs/contributing-transport.md says more).
 * A transport owns:
 *   - its flags (ops.flags: the CLI stores them as generic records, its own
 *     code reads them with transport_flag_* and checks them in check_flags()
 *     or setup(), exit 2 naming the flag);
 *   - its per-flow state (f->tp_state) and per-host or per-run state (its
 *     slot, transport_run_state), allocated in setup()/flow_add(), freed in
 *     free();
 *   - its packet types (from PKT_TP_FIRST, in its own header) and the switch
 *     class (prio) of each packet it makes, all made by the one constructor
 *     (transport_make_packet); its receive bitmap (rcv_bitmap.h);
 *   - its timers: per flow (transport_timer_at), per host
 *     (transport_host_timer_at); a per-run timer is a host timer of the host
 *     that acts;
 *   - its flows.csv counters (counters, counter_names) and its stdout and
 *     summary lines (run_label, summary_json).
 * It may not:
 *   - write a port, a switch or a link (net/ and topo/ own them): it
 *     declares what it needs of the switch classes its packets use
 *     (fabric_needs) and net/policy.c applies every transport's needs,
 *     refusing two that conflict on one class (tests/contract_test.sh greps
 *     src/transport and src/cc for port writes);
 *   - choose a NIC port: a packet it makes outside nic_pull (an ACK, a
 *     pull, a retransmission it pushes) goes to nic_send(s, host, pkt),
 *     and the NIC picks the port (-planes N gives it N, net.h struct host);
 *   - read or write another transport's state, or change another's flows.
 * transport_registry_check() runs at every start-up (and in
 * tests/test_contract.c): like Linux's tcp_register_congestion_control,
 * which refuses a module without ssthresh or cong_avoid, it refuses a
 * table without the hooks the generic layer calls, naming the hook.
 */
#ifndef SPRAYSIM_TRANSPORT_H
#define SPRAYSIM_TRANSPORT_H

#include "../core/core.h"
#include "../net/net.h"

#include <stdio.h>

struct sim;
struct packet;
struct flow;
struct strbuf;

/* Registered transports at most: struct sim keeps one per-run state slot
 * per registry position (transport_run_state), and host timers carry the
 * position in their top bits. */
#define TRANSPORT_MAX 16

/* A flag a transport owns (issue 21): the CLI knows no protocol's flags; a
 * flag no shared option knows is looked up in every registered transport's
 * table, stored in struct config as a generic record (struct tp_flag_given,
 * in command-line order) and parsed by the owner's own code through the
 * lookups below. Two transports may share a flag name only if n_args agree
 * (transport_registry_check). */
struct transport_flag {
    const char *name; /* as typed: "-dcqcn", "--homa-opt", "--ndp-opt" */
    unsigned n_args;  /* 0, 1 or 2 */
    bool repeats;     /* may be given many times, each kept in order (an options block: --homa-opt K=V);
                         false: a later occurrence replaces an earlier one (lookups read the last) */
    const char *args; /* for --help: "K", "LOW HIGH", "NAME=VALUE" (NULL for n_args 0) */
    const char *help; /* one line for --help */
};

/* What a transport knows of one flow at an instant, for time series
 * (src/metrics/timeseries.h). A field it does not know keeps its has_ flag
 * false. Reading it never changes the flow. */
struct flow_sample {
    bool has_cwnd, has_rate, has_rtt, has_in_flight;
    uint64_t cwnd_bytes;      /* the sender's window */
    double rate_mbps;         /* the sender's pacing rate (rate-based control) */
    simtime_ps rtt_ps;        /* the latest RTT the sender knows (see each transport's sample()) */
    uint64_t in_flight_bytes; /* wire bytes sent and not yet acknowledged */
    uint64_t delivered_bytes; /* payload bytes the receiver holds, duplicates excluded */
};

/* The shared options (read from struct config by the transport's own code)
 * a transport reads, for transport_ops.reads: the generic layer warns about
 * one that no connection's transport reads, without naming protocols. */
enum {
    TP_READS_CC = 1u << 0,             /* --cc: a sender window, or the transport's own warning on it */
    TP_READS_CC_MODE = 1u << 1,        /* -sender_cc, -receiver_cc, -sender_cc_only, -receiver_cc_only */
    TP_READS_SLEEK = 1u << 4,          /* -sleek */
    TP_READS_LOSS_DETECT = 1u << 5,    /* --loss-detect */
    TP_READS_CWND = 1u << 6,           /* -cwnd */
    TP_READS_ACK_THRESHOLD = 1u << 7,  /* -sack_threshold */
};

struct transport_ops {
    const char *name;
    const char *description;
    /* TP_READS_* bits: the shared options this transport reads */
    unsigned reads;
    /* Optional: why --cc has no effect on a transport without TP_READS_CC,
     * after "has no effect on " (NULL: its name and "senders keep no window") */
    const char *cc_hint;
    /* Before t=0, once per run if any flow uses this transport: check the
     * run's options (exit 2 naming the flag), allocate per-run state. */
    void (*setup)(struct sim *s);
    /* Optional, only for the run's transport (--transport): called before
     * the fabric is built, so it may check its options and adjust the
     * network configuration in s->cfg (Homa: one switch class per level). */
    void (*configure)(struct sim *s);
    /* Optional, only for the run's transport: true when adaptive routing
     * should move its flows per flowlet rather than per packet unless
     * -ar_granularity says (RoCE's in-order receiver); NULL: per packet. */
    bool (*ar_flowlet_default)(const struct sim *s);
    /* Optional (without it, --workload poisson refuses the transport):
     * flow fi was created during the run (an open-loop arrival), after
     * setup: give it the per-flow state setup() gives the matrix's flows. */
    void (*flow_add)(struct sim *s, uint32_t fi);
    /* The flow's start time or trigger came. */
    void (*flow_start)(struct sim *s, uint32_t fi);
    /* Optional: message fi was posted while the message before it on its
     * connection has not finished; true when the transport sends it at
     * once, pipelined behind that one (UET: htsim -conn_reuse), false when
     * it waits for that one's last ACK (transport_msg_sent). */
    bool (*msg_pipeline)(struct sim *s, uint32_t fi);
    /* The host NIC is free and flow fi is next in its ready ring: the flow's
     * next packet, or PKT_NONE (the flow then leaves the ring until it calls
     * transport_nic_ready again). */
    uint32_t (*nic_pull)(struct sim *s, uint32_t fi);
    /* A packet of one of this transport's flows reached its destination
     * host. The transport releases it. */
    void (*receive)(struct sim *s, uint32_t pkt_idx);
    /* A timer set with transport_timer_at() expired; `kind` is the
     * transport's own number. */
    void (*timer)(struct sim *s, uint32_t fi, uint32_t kind);
    /* Optional: a timer set with transport_host_timer_at() expired at host
     * `host` (state kept per host, not per flow: SIRD's credit pacer). */
    void (*host_timer)(struct sim *s, uint32_t host, uint32_t kind);
    /* What this transport needs of the switch classes it uses (required):
     * after setup(), `classes` has bit K set for each data class K its flows
     * use (and the class the run's open-loop messages would get); it fills
     * need[K] (zeroed: no need) for those, or for more when its packets go
     * elsewhere too (Homa's levels). net/policy.c merges every transport's
     * needs and applies them; a transport never writes a port. */
    void (*fabric_needs)(const struct sim *s, uint32_t classes, struct class_need need[PORT_MAX_CLASSES]);
    /* A switch dropped one of this transport's packets (optional: the
     * generic layer counts every drop; loss is for the transport to
     * discover, never an oracle). */
    void (*on_drop)(struct sim *s, uint32_t pkt_idx);
    /* A switch port could not queue this packet even as a trimmed header:
     * the transport decides what happens to it (UET bounces it back to the
     * sender as a NACK). Returns false when it did not take the packet, which
     * the port then drops. */
    bool (*on_control_full)(struct sim *s, uint32_t port_idx, uint32_t pkt_idx);
    /* --stream: releases everything flow fi holds (sender and receiver
     * state) once it finished at both ends, so its slot can carry another
     * message; stale packets and timers never reach the transport after
     * this. Optional: without it (or when can_release says no for this
     * run's options) slots are not recycled. */
    void (*flow_release)(struct sim *s, uint32_t fi);
    bool (*can_release)(const struct sim *s);
    /* Releases per-run and per-flow state. */
    void (*free)(struct sim *s);
    /* Named per-flow counters, written to flows.csv after the common columns
     * (NULL/0: none). counters() fills out[0 .. n_counters-1]. */
    unsigned n_counters;
    const char *const *counter_names;
    void (*counters)(const struct sim *s, uint32_t fi, uint64_t *out);
    /* Optional: payload bytes flow fi's receiver holds, duplicates excluded
     * (Poisson goodput), while its state exists; NULL: 0 until it completes. */
    uint64_t (*rcv_payload_bytes)(const struct sim *s, uint32_t fi);
    /* Network defaults this transport brings when it is the run's transport
     * (0 = the simulator's own): the switch queue in packets when -q is not
     * given, and the fixed part of the minimum RTO (which adds the time to
     * drain six full queues). */
    uint32_t default_queue_pkts;
    simtime_ps min_rto_base_ps;
    /* Switches mark ECN only when -ecn is given (the default thresholds are
     * then unused and never checked against -q). */
    bool ecn_only_when_given;
    /* A connection's next message inherits the sender's congestion state
     * (f->cc_state and f->lb_state, handed over by transport_msg_sent) unless
     * --msg-cc fresh; false: each message starts fresh unless --msg-cc inherit. */
    bool msg_inherit_default;
    /* A connection keeps one path (its 5-tuple's ECMP hash, RoCE's queue
     * pair) unless -paths, --lb or its .cm line's lb asks for spraying. */
    bool one_path_default;
    /* Lossless (RoCE): PFC is on by default when it is the run's transport,
     * and on a mixed fabric (--class-opt K:lossless=1) its connections left
     * in class 1 go to the lowest lossless class. */
    bool lossless;
    /* One-way messages (SIRD): a flow finishes when its receiver has every
     * byte, so flows.csv's ideal is the delivery's (no ACK's return). */
    bool one_way;
    /* Parallel runs (src/mpi/pdes.c): true when the transport is exact
     * across processes: each host's events touch only that host's state
     * (a receiver makes its own half of a flow's state when the first
     * packet comes), checked byte for byte in tests/mpi_test.sh. False
     * (the default for a new transport) refuses it in runs of two or more
     * processes, with parallel_note saying why (NULL: not checked yet). */
    bool parallel_exact;
    const char *parallel_note;
    /* Time series (optional, NULL: the flow's rows have delivered bytes
     * only, counted as 0): fills *out for flow fi. */
    void (*sample)(const struct sim *s, uint32_t fi, struct flow_sample *out);
    /* The flags this transport owns (NULL/0: none), parsed by its own code. */
    const struct transport_flag *flags;
    unsigned n_flags;
    /* Optional: called for every registered transport at the start of the
     * setup, whether or not a connection uses it (so --check runs it too):
     * refuses, with one line naming the flag (exit 2), its own flags that
     * this run cannot honour, e.g. given while --transport names another. */
    void (*check_flags)(const struct sim *s);
    /* The transport's own packet types, numbered from PKT_TP_FIRST in its
     * own header (net/packet.h keeps only the shared ones): their names,
     * pkt_type_names[t - PKT_TP_FIRST], for traces and the registry check.
     * A packet's type is read only by its flow's transport. */
    const char *const *pkt_type_names;
    unsigned n_pkt_types;
    /* Optional, for the run's transport (--transport) only: its own
     * section of summary.json, whole lines ("  \"name\": {...},\n"). */
    void (*summary_json)(const struct sim *s, struct strbuf *b);
    /* Optional: words stdout's first line adds after the run's transport
     * name ("receiver credit": UET's, whichever transport the run names),
     * NULL for none; the first transport with words gives them. */
    const char *(*run_label)(const struct sim *s);
};

/* The transport of a run without --transport (config_defaults). */
#define TRANSPORT_DEFAULT "uet"

/* Every registered transport's ops table (registry.def lists them) */
#define TRANSPORT(name) extern const struct transport_ops transport_##name##_ops;
#include "registry.def"
#undef TRANSPORT

/* Looks a transport up by name; NULL when unknown. */
const struct transport_ops *transport_find(const char *name);
/* The registered transports (*n of them), for the self-check's tests. */
const struct transport_ops *const *transport_registry(size_t *n);
/* Comma-separated names, for --help and error messages (from the registry). */
const char *transport_names(void);

/* ---- per-run state and owned flags ------------------------------------------------ */

/* Per-run state of a transport: one slot per registered transport
 * (struct sim's tp_run, indexed by registry position; nothing in struct
 * sim names a protocol). NULL until the transport sets it (its setup or
 * configure), and again after its free(). */
void *transport_run_state(const struct sim *s, const struct transport_ops *ops);
void transport_set_run_state(struct sim *s, const struct transport_ops *ops, void *state);
/* The registry position of ops (die_internal if it is not registered). */
unsigned transport_index(const struct transport_ops *ops);

/* The owner of a flag name, or NULL: the first registered transport whose
 * table has it (options.c, for parsing and --help). */
const struct transport_flag *transport_flag_find(const char *name);
/* --help: each transport's flags, under its name. */
void transport_flags_usage(FILE *out);

/* Lookups for the owning transport's check_flags(), configure() and
 * setup(), in s->cfg's records: */
bool transport_flag_given(const struct sim *s, const char *name);
/* The last occurrence's k-th argument (0-based), NULL if not given. */
const char *transport_flag_arg(const struct sim *s, const char *name, unsigned k);
/* Occurrences on the command line (a repeated flag's count). */
unsigned transport_flag_count(const struct sim *s, const char *name);
/* The k-th argument of the occurrence-th occurrence (both 0-based), NULL if
 * there is no such occurrence. */
const char *transport_flag_arg_at(const struct sim *s, const char *name, unsigned occurrence, unsigned k);
/* Which of names[0 .. n-1] (flags with no value, say) came last on the
 * command line: its index, or -1 when none was given. */
int transport_flag_last(const struct sim *s, const char *const *names, unsigned n);
/* Typed parsing of the last occurrence's k-th argument, dflt when the flag
 * is not given; a value that is not a number, or outside [min, max], exits 2
 * with one line naming the flag (and which argument, for a two-argument flag). */
uint64_t transport_flag_uint(const struct sim *s, const char *name, unsigned k, uint64_t min, uint64_t max,
                             uint64_t dflt);
double transport_flag_real(const struct sim *s, const char *name, unsigned k, double min, double max, double dflt);

/* An options block: "--X-opt NAME=VALUE", repeated. Each entry names one
 * option, its range and where its value goes (untouched when not given; a
 * later occurrence of a NAME replaces an earlier one). */
struct transport_opt {
    const char *name;
    double min, max;
    double *out;
    bool whole;       /* the value must be a whole number */
    bool *given;      /* optional: set true when the option is given */
};
/* Walks every occurrence of flag `name` against table[0 .. n-1]; an
 * occurrence that is not NAME=VALUE, a NAME not in the table or a value
 * that is not a number in range exits 2 with one line naming the flag and
 * the NAME (and the table's names, for an unknown one). */
void transport_flag_opts(const struct sim *s, const char *name, const struct transport_opt *table, unsigned n);

/* ---- packets made by transports ---------------------------------------------------- */

/* One packet constructor (issue 21): a packet of flow fi from its sender to
 * its receiver, every other field zero but these: type, seq, size_bytes,
 * flow and flow_gen, src_host = f->src and dst_host = f->dst, entropy 0,
 * prio the flow's data class for PKT_DATA (else control), tclass, and
 * PKTF_PINNED when the flow's balancer keeps one path; and it counts the
 * packet in the flow (f->pkts_out, --stream) here, once, for every
 * transport. Returns its index in s->pool. (Its body is data_packet.h's
 * transport_new_packet, inline for the per-packet paths.) */
uint32_t transport_make_packet(struct sim *s, uint32_t fi, uint8_t type, uint32_t seq, uint32_t size_bytes);
/* The same from the receiver back to the sender (src and dst swapped). */
uint32_t transport_make_reply(struct sim *s, uint32_t fi, uint8_t type, uint32_t seq, uint32_t size_bytes);

/* ---- the generic layer, called by the core ---------------------------------- */

/* Every registered transport's check_flags (sim_setup, before the fabric;
 * so --check refuses what a run would). */
void transport_check_flags(const struct sim *s);
/* Builds the flows from the connection matrix and sets up every transport
 * in use (before the run). */
void transport_setup(struct sim *s);
void transport_free(struct sim *s);
/* A new connection during the run (the run's transport and balancer):
 * returns its flow index. s->flows and s->cm.conns may move, so the caller
 * holds no pointer into them across this call. */
uint32_t transport_add_flow(struct sim *s, uint32_t src, uint32_t dst, uint64_t size_bytes);
void transport_flow_start(struct sim *s, uint32_t fi);
/* A packet reached its destination host. */
void transport_receive(struct sim *s, uint32_t pkt_idx);
/* A switch dropped a packet. */
void transport_on_drop(struct sim *s, uint32_t pkt_idx);
/* A header-sized answer (ACK, NACK, PULL, CNP, ...) to packet `from`, from
 * its receiver back to its sender: same flow, traffic class, entropy and
 * path rule, ref_seq = from->seq; every other field zero. Returns its index
 * (the pool may have moved: re-read `from` through a copy). */
uint32_t transport_answer(struct sim *s, const struct packet *from, uint8_t type);
/* A switch's control class is full: the packet's transport may take it. */
bool transport_on_control_full(struct sim *s, uint32_t port_idx, uint32_t pkt_idx);
/* A host's NIC is free: the next packet of its ready flows, in round robin,
 * or PKT_NONE. */
uint32_t transport_nic_pull(struct sim *s, uint32_t host);
/* A transport timer event fired. */
void transport_timer(struct sim *s, uint32_t fi, uint32_t kind);

/* ---- services for transports ---------------------------------------------------- */

/* The sender of flow fi holds the acknowledgement of its last byte: every
 * transport calls this from its finish path after saving the CC counters
 * and before freeing f->cc_state and f->lb_state. When the connection has a
 * next message, it takes the congestion state over (when it inherits) and
 * starts if it was already posted. */
void transport_msg_sent(struct sim *s, uint32_t fi);
/* A new open-loop message on one of pool_k persistent connections from src
 * to dst (pool_k 0: a connection of its own, as transport_add_flow). The
 * connection is an idle one if any (the lowest), else the one with the
 * fewest bytes queued (specs/sird.md Sec. 2.6, our reading of seed 001's
 * unspecified assignment); the message waits behind that connection's
 * earlier ones and takes over its congestion state when it inherits. */
uint32_t transport_add_flow_pooled(struct sim *s, uint32_t src, uint32_t dst, uint64_t size_bytes, uint32_t pool_k);
/* The start of every transport's flow_start: a waiting flow becomes
 * active now and the run counts it; false (and nothing changes) when it is
 * not waiting, e.g. a second start of a flow already started. */
bool transport_flow_activate(struct sim *s, struct flow *f);
/* The end of every transport's finish path: fires the flow's send-done
 * trigger and stops the run when every message is done and no more will
 * arrive. */
void transport_flow_finished(struct sim *s, uint32_t fi);
/* Whether this run's messages inherit their connection's state (--msg-cc). */
bool transport_msg_inherits(const struct sim *s, const struct flow *f);

/* Flow fi may have something to send: put it in its host's ready ring (at
 * the end of the round robin) and start the NIC if it is idle. */
void transport_nic_ready(struct sim *s, uint32_t fi);
/* Flow fi has nothing more to send for now: take it out of the ring. */
void transport_nic_unready(struct sim *s, uint32_t fi);
/* Calls the flow's transport's timer(s, fi, kind) at time t. */
void transport_timer_at(struct sim *s, simtime_ps t, uint32_t fi, uint32_t kind);
/* Calls tp->host_timer(s, host, kind) at time t: a timer of per-host
 * state, whatever flows come and go (kind < 2^24). */
void transport_host_timer_at(struct sim *s, simtime_ps t, const struct transport_ops *tp, uint32_t host,
                             uint32_t kind);
/* A host timer event fired (aux: the transport's registry index above bit 24). */
void transport_host_timer(struct sim *s, uint32_t host, uint32_t aux);

/* The registry self-check (transport.c; run at every start-up and by the
 * tests): every table has its required hooks and a unique name. Returns
 * NULL, or one line saying what is missing, written to err. */
const char *transport_registry_check(const struct transport_ops *const *ops, size_t n, char *err, size_t err_len);

struct cc_params;
/* What a sender's congestion control is told at init, for a flow crossing
 * `path_hops` links. */
void transport_cc_params(const struct sim *s, struct cc_params *cp, uint32_t path_hops, uint32_t cls);
/* The one attach and free path of a flow's congestion control and load
 * balancer (issue 21):
 * transport_cc_start allocates and initialises flow fi's sender window
 * state (f->cc_state, the run's --cc) unless it inherited one from its
 * connection's previous message; transport_lb_start does the same for its
 * balancer's state (f->lb_state). */
void transport_cc_start(struct sim *s, uint32_t fi);
void transport_lb_start(struct sim *s, uint32_t fi);
/* At the sender's finish, before transport_msg_sent: keeps the window
 * algorithm's counters for flows.csv (f->cc_counters), if it has any. */
void transport_cc_save_counters(const struct sim *s, struct flow *f);
/* Frees whatever f->cc_state and f->lb_state still hold (after
 * transport_msg_sent, which hands them to a next message that inherits). */
void transport_cc_lb_free(struct flow *f);
/* Wire bytes of flow fi's packets from next_new_seq on, never sent yet (headers included). */
uint64_t transport_unsent_wire_bytes(const struct sim *s, uint32_t fi, uint32_t next_new_seq);

#endif
