/* sim.c: builds a run from its configuration and drives the event loop.
 *
 * Setup derives the network constants the reference simulator derives (see
 * docs/running.md "Defaults derived from the network"): the largest unloaded RTT across the tree, the BDP, the
 * queue size (one BDP of packets with trimming, five without), the RED
 * thresholds (20% and 80% of one BDP) and the minimum RTO (15 us plus the
 * time to drain six full queues, seed 002 Sec. 6). The loop pops events in
 * (time, sequence) order and hands each to the module that owns it.
 *
 * Invariants (checked with SPRAYSIM_CHECKS): the clock never goes
 * backwards; and packets are conserved. Between two events every packet
 * the pool has handed out is in exactly one place: a port's queue, on a
 * port's wire, or on a link (a pending arrival event); the transport holds
 * none across events, so their number is the pool's in_use. And every data
 * packet ever sent has been delivered whole, delivered trimmed, bounced
 * back as a NACK, dropped, or is still in the network. The census walks
 * every port and pending event, so it runs every CENSUS_EVENTS events and
 * at the end of the run.
 */
#include "sim.h"
#include "sim_prefetch.h"
#include "metrics/flowstream.h"

#include "cc/cc.h"
#include "lb/lb.h"
#include "net/pfc.h"
#include "topo/fabric.h"
#include "topo/failures.h"
#include "transport/flow.h"
#include "transport/transport.h"
#include "workload/gen.h"
#include "workload/goal.h"
#include "workload/poisson.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void config_defaults(struct config *c)
{
    memset(c, 0, sizeof(*c));
    c->seed = 13;                        /* reference simulator's default seed */
    c->end_ps = 1000 * PS_PER_US;        /* -end default: 1000 us */
    c->tiers = 3;
    c->planes = 1;
    c->linkspeed_mbps = 100000;          /* 100 Gb/s */
    c->mtu_bytes = 4150;                 /* data packet on the wire */
    c->hdr_bytes = 64;                   /* ACK, NACK and trimmed header */
    c->paths = 64;
    c->trimming = true;
    c->qa_gate = -1;
    c->hop_latency_ps = 1 * PS_PER_US;
    c->switch_latency_ps = 0;
    c->ack_threshold_bytes = 16384;      /* seed 002 Sec. 8: 16 KB delayed ACKs */
    c->routing = ROUTE_ECMP;
    c->reroute = REROUTE_NONE;
    c->drr_quantum_bytes = 4096;         /* seed 004 Sec. IV-A: DRR with a 4 KB quantum */
    c->ar_quantum_bytes = 4150;          /* one MTU: queue lengths compared in packets */
    c->ar_sticky_delta_ps = 10 * PS_PER_US; /* htsim main_uec: ar_sticky_delta = 10 (us) */
    c->detect_ps = 100 * PS_PER_MS;      /* seed 003 Sec. 4.1.1: hundreds of milliseconds */
    c->transport_name = TRANSPORT_DEFAULT;
    c->n_classes = 2;                    /* control and data, as the reference's composite queue */
    c->loss_detect = -1;
    c->sender_cc = -1;                   /* the transport's default (UET on, EQDS off) */
    c->receiver_cc = -1;                 /* the transport's default (UET off, EQDS on) */
    c->cc_name = "nscc";
    c->lb_name = "mixed";                /* htsim main_uec's default balancer */
    c->stream = -1;                      /* on for open-loop workloads */
    c->msg_cc = -1;                      /* the transport's default (transport_ops.msg_inherit_default) */
    c->pfc_flag = -1;                    /* PFC on with --transport roce, else off */
    c->pfc_low_pkts = 12;                /* htsim main_roce.cpp: low_pfc = 12 */
    c->pfc_high_pkts = 15;               /* htsim main_roce.cpp: high_pfc = 15 */
    c->pfc_deadlock_ps = 500 * PS_PER_US; /* ours: 500 us without a PAUSE or RESUME anywhere */
}

static uint32_t ceil_div_u64(uint64_t a, uint64_t b)
{
    return (uint32_t)((a + b - 1) / b);
}

static void index_triggers(struct sim *s);
static void index_trigger_hosts(struct sim *s);

/* The tie order's per-origin counters and the window length (docs/parallel.md
 * "Parallel runs (MPI)"). Nothing is scheduled before this but at origin 0. */
void sim_check_node_count(uint32_t nodes)
{
    if (nodes >= ORIGIN_MAX)
        die_input("the fabric has %u nodes; the event order supports at most %u", nodes, ORIGIN_MAX - 1);
}

static void setup_order_and_windows(struct sim *s)
{
    uint32_t nodes = s->n_hosts + s->n_switches;
    sim_check_node_count(nodes);
    s->origin_seq = xmalloc(((size_t)nodes + 1) * sizeof(uint64_t));
    for (uint32_t o = 0; o <= nodes; o++)
        s->origin_seq[o] = (uint64_t)o << ORIGIN_SHIFT;
    invariant(s->eq.next_seq == 0 && s->eq.seq_next == &s->eq.next_seq,
              "%llu events scheduled before the tie order was set up", (unsigned long long)s->eq.next_seq);
    s->cur_origin = 0;
    s->eq.seq_next = &s->origin_seq[0];
    /* arrivals push out of sequence order, departures in order: apart
     * (src/core/events.c, "Classes") */
    eq_set_kind_class(&s->eq, EV_PKT_ARRIVE, 1);
    /* the smallest latency of a link to or from the top tier (only those
     * cross processes), else of any link */
    uint32_t top = s->topo.spec.tiers ? s->topo.spec.tiers - 1 : 0;
    simtime_ps l_top = SIMTIME_NEVER, l_any = SIMTIME_NEVER;
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const struct port *p = &s->ports[i];
        bool touches = (p->owner_node >= s->n_hosts && s->switches[p->owner_node - s->n_hosts].tier == top) ||
                       (p->peer_node >= s->n_hosts && s->switches[p->peer_node - s->n_hosts].tier == top);
        if (touches && p->latency_ps < l_top)
            l_top = p->latency_ps;
        if (p->latency_ps < l_any)
            l_any = p->latency_ps;
    }
    s->lookahead_ps = l_top != SIMTIME_NEVER ? l_top : l_any;
    if (s->lookahead_ps == 0 || s->lookahead_ps == SIMTIME_NEVER)
        s->lookahead_ps = 1; /* zero-latency links: windows of one picosecond */
}

void sim_setup(struct sim *s, const struct config *cfg)
{
    char err[1024];
    memset(s, 0, sizeof(*s));
    s->cfg = *cfg;
    struct config *c = &s->cfg;
    /* lossless: PFC on the data classes and switch queues without a limit
     * (htsim_roce's LosslessInputQueue never drops) */
    c->lossless_mask = 0;
    for (unsigned k = 0; k < c->n_class_opts; k++)
        if (!strcmp(c->class_opts[k].name, "lossless")) {
            if (c->class_opts[k].value != 0)
                c->lossless_mask |= (uint8_t)(1u << c->class_opts[k].cls);
            else
                c->lossless_mask &= (uint8_t)~(1u << c->class_opts[k].cls);
        }
    if (c->lossless_mask) {
        /* a mixed fabric: PFC only on the lossless classes, which have no
         * limit; the other classes keep their limits, trimming and drops */
        if (c->pfc_flag == 0)
            die_input("--pfc off with --class-opt K:lossless=1: a lossless class needs PFC");
        c->pfc = true;
    } else {
        const struct transport_ops *run_tp = transport_find(c->transport_name);
        c->pfc = c->pfc_flag == 1 || (c->pfc_flag == -1 && run_tp && run_tp->lossless);
        if (c->pfc)
            c->queue_infinite = true;
    }
    if (c->class_drr && c->n_classes < 3)
        die_input("--sched class-drr: DRR between data classes needs --classes 3 or more");
    transport_check_flags(s);
    if (c->pfc_low_pkts > c->pfc_high_pkts)
        die_input("-pfc_thresholds: low threshold %u exceeds high threshold %u (packets)", c->pfc_low_pkts,
                  c->pfc_high_pkts);
    if ((uint64_t)c->pfc_high_pkts * c->mtu_bytes > UINT32_MAX / 2)
        die_input("-pfc_thresholds: a high threshold of %u packets of %u bytes (-mtu) is too large (at most %u bytes)",
                  c->pfc_high_pkts, c->mtu_bytes, UINT32_MAX / 2);

    s->cc = cc_find(c->cc_name);
    if (!s->cc)
        die_input("--cc: unknown algorithm '%s' (known: %s)", c->cc_name, cc_names());
    /* loss detection: the algorithm's own, or --loss-detect's for any of
     * them (3 duplicates or 3 later acknowledged packets, RFC 5681 / RFC
     * 6675, when the algorithm names no threshold) */
    s->loss_mode = c->loss_detect >= 0 ? (uint32_t)c->loss_detect : s->cc->loss_mode;
    s->dupack_threshold = s->cc->dupack_threshold ? s->cc->dupack_threshold : 3;
    s->lb = lb_find(c->lb_name);
    if (!s->lb)
        die_input("--lb: unknown load balancer '%s' (known: %s)", c->lb_name, lb_names());

    for (unsigned i = 0; i < c->n_cc_opts; i++) {
        bool known = false;
        for (const char *const *n = s->cc->option_names; n && *n; n++)
            known |= !strcmp(*n, c->cc_opts[i].name);
        if (!known)
            die_input("--cc-opt: '%s' is not an option of %s (see docs/models.md)", c->cc_opts[i].name, s->cc->name);
    }
    /* the workload: read (-tm), generated (--workload) or a GOAL schedule
     * (--goal), exactly one */
    if ((c->tm_path != NULL) + (c->workload_spec != NULL) + (c->goal_path != NULL) > 1)
        die_input("%s and %s both give the workload: give one of them", c->tm_path ? "-tm" : "--workload",
                  c->goal_path ? "--goal" : "--workload");
    if (!c->tm_path && !c->workload_spec && !c->goal_path)
        die_input("no connection matrix: give -tm FILE or --workload SPEC (or --goal FILE, a GOAL schedule)");
    const char *cm_name = c->tm_path ? c->tm_path : c->goal_path ? c->goal_path : "--workload";
    /* open-loop arrivals: no matrix before the run, only its hosts */
    struct poisson_spec poisson;
    bool open_loop = poisson_is_spec(c->workload_spec);
    if (open_loop) {
        if (!poisson_parse(&poisson, c->workload_spec, err, sizeof err))
            die_input("%s", err);
        if (c->write_cm_path)
            die_input("--write-cm: a poisson workload is generated during the run, so there is no matrix to write");
        s->cm.nodes = poisson.nodes;
        s->cm.conns = xcalloc(1, sizeof *s->cm.conns);
    } else if (c->goal_path) {
        if (c->write_cm_path)
            die_input("--write-cm: a GOAL schedule's messages start when their dependencies are met, which a .cm "
                      "file cannot say");
        goal_build_matrix(s); /* Nodes: the hosts the schedule needs; -nodes or -topo may give more */
        if (c->nodes && c->nodes < s->cm.nodes)
            die_input("-nodes %u: %s needs %u hosts", c->nodes, c->goal_path, s->cm.nodes);
        if (c->nodes)
            s->cm.nodes = c->nodes;
        else if (!c->topo_path)
            for (uint64_t k = 2;; k += 2) { /* the smallest default fat tree (even k) with hosts enough */
                uint64_t n = c->tiers == 3 ? k * k * k / 4 : k * k / 2;
                if (n >= s->cm.nodes) {
                    s->cm.nodes = (uint32_t)n;
                    break;
                }
            }
    } else if (c->workload_spec ? !gen_workload(&s->cm, c->workload_spec, c->seed, err, sizeof err)
                                : !cm_read_file(&s->cm, c->tm_path, err, sizeof err)) {
        die_input("%s", err);
    }
    if (c->nodes && c->nodes != s->cm.nodes)
        die_input("-nodes %u disagrees with %s, which %s %u", c->nodes, cm_name,
                  c->tm_path ? "says Nodes" : "makes n =", s->cm.nodes);

    struct topo_spec spec;
    if (c->topo_path) {
        if (!topo_read_file(&spec, c->topo_path, err, sizeof err))
            die_input("%s", err);
        if (s->goal && spec.nodes < s->cm.nodes)
            die_input("%s says Nodes %u but %s needs %u hosts", c->topo_path, spec.nodes, c->goal_path, s->cm.nodes);
        if (s->goal)
            s->cm.nodes = spec.nodes;
        if (spec.nodes != s->cm.nodes)
            die_input("%s says Nodes %u but %s %s %u", c->topo_path, spec.nodes, cm_name,
                      c->tm_path ? "says Nodes" : "makes n =", s->cm.nodes);
    } else if (!topo_default_spec(&spec, s->cm.nodes, c->tiers, c->linkspeed_mbps, c->hop_latency_ps,
                                  c->switch_latency_ps, err, sizeof err)) {
        die_input("%s: %s", cm_name, err);
    }
    if (!topo_derive(&s->topo, &spec, err, sizeof err))
        die_input("%s: %s", c->topo_path ? c->topo_path : "default topology", err);
    s->topo.planes = c->planes;

    /* Largest unloaded RTT: propagation both ways along the diameter, one
     * data and one ACK serialisation per hop at the host's speed. */
    const struct topo *t = &s->topo;
    s->base_rtt_ps = 2 * t->diameter_latency_ps +
                     (simtime_ps)t->diameter_hops * (serialize_ps(c->mtu_bytes, c->linkspeed_mbps) +
                                                     serialize_ps(c->hdr_bytes, c->linkspeed_mbps));
    s->bdp_bytes = (uint64_t)((double)s->base_rtt_ps * c->linkspeed_mbps / 8e6);
    /* Queues are byte counts in 32 bits; a default queue of one BDP (five
     * without trimming) beyond half of that comes from latencies or a link
     * speed out of any real range: name them, not a -q the user never gave. */
    const char *rtt_inputs = c->topo_path ? "the latencies in the .topo file and -linkspeed"
                                          : "-hop_latency, -switch_latency and -linkspeed";
    if (!c->queue_pkts && s->bdp_bytes * (c->trimming ? 1 : 5) > UINT32_MAX / 2)
        die_input("%s give a base RTT of %.3f us and a BDP of %llu bytes, too large for a default queue of %s BDP "
                  "(at most %u bytes); check them, or give -q",
                  rtt_inputs, (double)s->base_rtt_ps / PS_PER_US, (unsigned long long)s->bdp_bytes,
                  c->trimming ? "1" : "5", UINT32_MAX / 2);
    uint32_t bdp_pkts = ceil_div_u64(s->bdp_bytes, c->mtu_bytes);
    /* the run's transport may bring its own defaults (EQDS: 35-packet queues) */
    const struct transport_ops *run_tp = transport_find(c->transport_name);
    if (run_tp && run_tp->configure)
        run_tp->configure(s);
    if (run_tp && run_tp->ar_flowlet_default && !c->ar_granularity_given)
        c->ar_flowlet = run_tp->ar_flowlet_default(s);
    if (c->ar_sticky_given && !c->ar_flowlet && c->routing == ROUTE_AR)
        warn_input("-ar_sticky_delta: the flowlet gap of -ar_granularity flow has no effect with per-packet "
                   "adaptive routing (htsim's default -ar_granularity packet)");
    uint32_t tp_qpkts = run_tp ? run_tp->default_queue_pkts : 0;
    uint32_t qpkts = c->queue_pkts ? c->queue_pkts : tp_qpkts ? tp_qpkts : bdp_pkts * (c->trimming ? 1 : 5);
    if ((uint64_t)qpkts * c->mtu_bytes > UINT32_MAX / 2)
        die_input("-q %u: a queue of %llu bytes (-q x -mtu) is too large (at most %u)", qpkts,
                  (unsigned long long)qpkts * c->mtu_bytes, UINT32_MAX / 2);
    s->queue_bytes = qpkts * c->mtu_bytes;
    /* the RTO below is sized for the finite default queue even with -q inf:
     * an unbounded queue has no drain time to wait for */
    uint32_t rto_queue_bytes = s->queue_bytes;
    /* seed 003's "aggressive timeouts" without trimming (specs/seeds-figures.md
     * Sec. 2.4, item 8; Sec. 3 ablations): the RTO of a one-BDP queue even
     * when the queue is larger */
    if (c->aggressive_rto)
        rto_queue_bytes = bdp_pkts * c->mtu_bytes;
    if (c->queue_infinite)
        s->queue_bytes = QUEUE_INFINITE_BYTES;
    uint32_t lo = c->ecn_low_pkts ? c->ecn_low_pkts : (uint32_t)ceil(0.2 * bdp_pkts);
    uint32_t hi = c->ecn_high_pkts ? c->ecn_high_pkts : (uint32_t)ceil(0.8 * bdp_pkts);
    if (lo > hi)
        die_input("-ecn: low threshold %u exceeds high threshold %u (packets)", lo, hi);
    if (hi > qpkts && run_tp && run_tp->ecn_only_when_given && !c->ecn_high_pkts) {
        /* the default thresholds go unused: this transport's switches mark
         * only when -ecn is given (EQDS) */
        hi = qpkts;
        lo = lo < hi ? lo : hi;
    }
    if (hi > qpkts && !c->queue_infinite) {
        if (c->ecn_high_pkts)
            die_input("-ecn: high threshold %u exceeds the queue size of %u packets", hi, qpkts);
        /* the thresholds are the defaults: the queue the user set is what is small */
        die_input("-q %u: the queue is smaller than the default ECN high threshold of %u packets (80%% of the "
                  "%u-packet BDP); give -ecn LOW HIGH too", qpkts, hi, bdp_pkts);
    }
    /* --class-opt names classes that --classes provides, with sane values */
    for (unsigned k = 0; k < c->n_class_opts; k++) {
        const struct class_opt *o = &c->class_opts[k];
        if (o->cls >= c->n_classes)
            die_input("--class-opt %u:%s: class %u needs --classes %u or more (this run has %u)", o->cls, o->name,
                      o->cls, o->cls + 1, c->n_classes);
        if (!strcmp(o->name, "queue_bytes") && o->value < c->mtu_bytes)
            die_input("--class-opt %u:queue_bytes=%.0f: smaller than one packet (-mtu %u); nothing could be "
                      "delivered", o->cls, o->value, c->mtu_bytes);
        /* one ECN threshold given, the other class 1's (both given: options.c) */
        bool kmin = !strcmp(o->name, "ecn_kmin_bytes"), kmax = !strcmp(o->name, "ecn_kmax_bytes");
        bool pair_given = false;
        for (unsigned j = 0; j < c->n_class_opts; j++)
            pair_given |= c->class_opts[j].cls == o->cls &&
                          !strcmp(c->class_opts[j].name, kmin ? "ecn_kmax_bytes" : "ecn_kmin_bytes");
        if (kmin && !pair_given && o->value > (double)hi * c->mtu_bytes)
            die_input("--class-opt %u:ecn_kmin_bytes=%.0f exceeds class 1's ECN high threshold of %llu bytes, which "
                      "class %u keeps: give %u:ecn_kmax_bytes too", o->cls, o->value,
                      (unsigned long long)hi * c->mtu_bytes, o->cls, o->cls);
        if (kmax && !pair_given && o->value < (double)lo * c->mtu_bytes)
            die_input("--class-opt %u:ecn_kmax_bytes=%.0f is below class 1's ECN low threshold of %llu bytes, which "
                      "class %u keeps: give %u:ecn_kmin_bytes too", o->cls, o->value,
                      (unsigned long long)lo * c->mtu_bytes, o->cls, o->cls);
    }
    s->ecn_kmin_bytes_default = lo * c->mtu_bytes;
    s->ecn_kmax_bytes_default = hi * c->mtu_bytes;
    /* seed 002 Sec. 6: min_rto = 15 us + queue drain time x diameter hops
     * (the run's transport may replace the 15 us: EQDS's is 150 us). */
    s->min_rto_ps = (run_tp && run_tp->min_rto_base_ps ? run_tp->min_rto_base_ps : 15 * PS_PER_US) +
                    (simtime_ps)((double)rto_queue_bytes * 6 * 8e6 / c->linkspeed_mbps);
    if (c->min_rto_flag_ps)
        s->min_rto_ps = c->min_rto_flag_ps;

    /* seed 002 Sec. 6: probes every base_rtt + target_Qdelay of silence */
    s->probe_period_ps = s->base_rtt_ps + (c->target_qdelay_ps ? c->target_qdelay_ps
                                                                : (simtime_ps)((double)s->base_rtt_ps * (c->trimming ? 0.75 : 1.0)));
    {
        struct rng salt;
        rng_seed(&salt, c->seed, RNG_STREAM_ECN, 0);
        s->ecn_salt = rng_next(&salt);
    }
    eq_init(&s->eq, 1 << 16);
#ifdef SPRAYSIM_CHECKS
    s->eq.monotonic = true; /* the clock only moves forward: the queue checks it */
#endif
    pool_init(&s->pool, 1 << 14);
    fabric_build(s);
    pfc_setup(s);
    s->ar_rng = xmalloc((s->n_switches ? s->n_switches : 1) * sizeof *s->ar_rng);
    for (uint32_t i = 0; i < s->n_switches; i++)
        rng_seed(&s->ar_rng[i], c->seed, RNG_STREAM_ROUTING, i);
    setup_order_and_windows(s);
    failures_setup(s);
    transport_setup(s);
    s->trigger_counts = xcalloc(s->cm.n_triggers ? s->cm.n_triggers : 1, sizeof(uint32_t));
    index_triggers(s);
    if (c->trigger_delay || (s->goal && c->goal_send_done))
        index_trigger_hosts(s); /* and the shortest paths --goal-send-done path's notes take too */
    uint32_t late = 0, first_late = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        if (s->cm.conns[i].start_ps != SIMTIME_NEVER) {
            s->flows[i].start_scheduled = true;
            sim_at(s, s->cm.conns[i].start_ps, EV_FLOW_START, i);
            if (s->cm.conns[i].start_ps >= c->end_ps && late++ == 0)
                first_late = i;
        }
    /* open-loop arrivals: each host's first, after the transports exist */
    if (open_loop)
        poisson_setup(s, &poisson);
    if (s->goal)
        goal_start(s); /* the schedule's first ops at t = 0 */
    ts_setup(s); /* time series: nothing unless --ts-* selects something */
    /* legal (a matrix written for a longer run) but surely worth a word:
     * such connections are reported unfinished, as failures after -end are
     * reported not to happen */
    if (late)
        warn_input("%s:%u: %u connection%s start%s at or after -end %g us (the first on this line) and cannot "
                   "finish", cm_name, s->cm.conns[first_late].line, late, late == 1 ? "" : "s",
                   late == 1 ? "s" : "", (double)c->end_ps / PS_PER_US);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t trigger_index_of(const struct sim *s, uint32_t trigger_id)
{
    size_t lo = 0, hi = s->cm.n_triggers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((s->trigger_by_id[mid] >> 32) < trigger_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->cm.n_triggers && (s->trigger_by_id[lo] >> 32) == trigger_id)
        return (uint32_t)s->trigger_by_id[lo];
    return UINT32_MAX;
}

/* Builds the trigger tables described in sim.h (counting sort of the
 * waiting connections by trigger). */
static void index_triggers(struct sim *s)
{
    uint32_t nt = s->cm.n_triggers;
    s->trigger_by_id = xmalloc((nt ? nt : 1) * sizeof(uint64_t));
    for (uint32_t t = 0; t < nt; t++)
        s->trigger_by_id[t] = ((uint64_t)s->cm.triggers[t].id << 32) | t;
    qsort(s->trigger_by_id, nt, sizeof(uint64_t), cmp_u64);
    s->trigger_first = xcalloc((size_t)nt + 1, sizeof(uint32_t));
    s->trigger_next = xcalloc(nt ? nt : 1, sizeof(uint32_t));
    uint32_t *ti_of = xmalloc((s->n_flows ? s->n_flows : 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < s->n_flows; i++) {
        uint32_t id = s->cm.conns[i].start_trigger;
        ti_of[i] = id == CM_NO_TRIGGER ? UINT32_MAX : trigger_index_of(s, id);
        if (ti_of[i] != UINT32_MAX)
            s->trigger_first[ti_of[i] + 1]++;
    }
    for (uint32_t t = 0; t < nt; t++)
        s->trigger_first[t + 1] += s->trigger_first[t];
    s->trigger_waiters = xmalloc(((size_t)s->trigger_first[nt] + 1) * sizeof(uint32_t));
    for (uint32_t t = 0; t < nt; t++)
        s->trigger_next[t] = s->trigger_first[t];
    for (uint32_t i = 0; i < s->n_flows; i++)
        if (ti_of[i] != UINT32_MAX)
            s->trigger_waiters[s->trigger_next[ti_of[i]]++] = i;
    for (uint32_t t = 0; t < nt; t++)
        s->trigger_next[t] = s->trigger_first[t];
    free(ti_of);
}

/* --trigger-delay path: the latency a real NIC's trigger would add.
 *
 * htsim starts a trigger's connections the instant it fires (trigger.cpp:
 * activate() calls each target's activate()), wherever they are: no
 * message crosses the network, so the trigger has no lookahead and a
 * parallel run cannot split its hosts. A NIC that finishes a send or a
 * receive learns nothing instantly about another host; what it can do at
 * best is send a control packet. So under this option an activation at
 * host A reaches each host B that has a connection waiting on the trigger
 * after the minimum one-way latency from A to B: over the shortest path of
 * the fabric as built, per hop the serialisation of a control packet
 * (-hdr, the size of an ACK or a NACK here: 64 bytes by default) at the
 * sending port's rate plus the link's latency (propagation and the
 * receiving switch's latency, as a packet's arrival is scheduled), with
 * no queueing; 0 when A is B. Failures and slowed links (--fail) do not
 * change it: it is the floor a control message could reach, not a
 * simulated packet. B counts what it has heard: a oneshot trigger starts
 * B's waiting connections at the first, a barrier of count K at the K-th,
 * and a multishot trigger's k-th activation heard by B starts the k-th
 * waiting connection in file order if it is B's (the zero-delay
 * multishot starts the k-th too, at every host at once). */
static void index_trigger_hosts(struct sim *s)
{
    uint32_t nt = s->cm.n_triggers, nw = s->trigger_first[nt];
    s->trig_host_first = xcalloc((size_t)nt + 1, sizeof(uint32_t));
    s->trig_host = xmalloc((nw ? nw : 1) * sizeof(uint32_t));
    s->trig_pair_ti = xmalloc((nw ? nw : 1) * sizeof(uint32_t));
    uint32_t n = 0;
    for (uint32_t t = 0; t < nt; t++) {
        s->trig_host_first[t] = n;
        for (uint32_t w = s->trigger_first[t]; w < s->trigger_first[t + 1]; w++) {
            uint32_t b = s->flows[s->trigger_waiters[w]].src;
            bool seen = false;
            for (uint32_t k = s->trig_host_first[t]; k < n && !seen; k++)
                seen = s->trig_host[k] == b;
            if (!seen) {
                s->trig_pair_ti[n] = t;
                s->trig_host[n++] = b;
            }
        }
    }
    s->trig_host_first[nt] = n;
    s->trig_heard = xcalloc(n ? n : 1, sizeof(uint32_t));
    /* the ports by owner, for the shortest paths */
    uint32_t nodes = s->n_hosts + s->n_switches;
    s->trig_adj_first = xcalloc((size_t)nodes + 1, sizeof(uint32_t));
    s->trig_adj = xmalloc((s->n_ports ? s->n_ports : 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < s->n_ports; i++)
        s->trig_adj_first[s->ports[i].owner_node + 1]++;
    for (uint32_t node = 0; node < nodes; node++) /* counts to first indices */
        s->trig_adj_first[node + 1] += s->trig_adj_first[node];
    uint32_t *fill = xmalloc(((size_t)nodes + 1) * sizeof(uint32_t));
    memcpy(fill, s->trig_adj_first, ((size_t)nodes + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < s->n_ports; i++)
        s->trig_adj[fill[s->ports[i].owner_node]++] = i;
    free(fill);
    s->trig_lat_ps = xmalloc(((size_t)nodes ? nodes : 1) * sizeof(simtime_ps));
    s->trig_lat_from = UINT32_MAX;
}

struct lat_item {
    simtime_ps d;
    uint32_t node;
};

/* Dijkstra from host a over the ports (hosts forward nothing: only a's
 * own ports leave a host), into trig_lat_ps; a binary heap with stale
 * entries skipped. */
static void trigger_latencies_from(struct sim *s, uint32_t a)
{
    uint32_t nodes = s->n_hosts + s->n_switches;
    simtime_ps *d = s->trig_lat_ps;
    for (uint32_t v = 0; v < nodes; v++)
        d[v] = SIMTIME_NEVER;
    size_t cap = (size_t)s->n_ports + 1, n = 0;
    struct lat_item *h = xmalloc(cap * sizeof *h);
    d[a] = 0;
    h[n++] = (struct lat_item){0, a};
    while (n) {
        struct lat_item top = h[0];
        h[0] = h[--n];
        for (size_t i = 0;;) { /* sift down */
            size_t l = 2 * i + 1, r = l + 1, m = i;
            if (l < n && h[l].d < h[m].d)
                m = l;
            if (r < n && h[r].d < h[m].d)
                m = r;
            if (m == i)
                break;
            struct lat_item x = h[i];
            h[i] = h[m];
            h[m] = x;
            i = m;
        }
        if (top.d != d[top.node] || (top.node < s->n_hosts && top.node != a))
            continue;
        for (uint32_t k = s->trig_adj_first[top.node]; k < s->trig_adj_first[top.node + 1]; k++) {
            const struct port *p = &s->ports[s->trig_adj[k]];
            simtime_ps nd = top.d + serialize_ps(s->cfg.hdr_bytes, p->nominal_mbps) + p->base_latency_ps;
            if (nd >= d[p->peer_node])
                continue;
            d[p->peer_node] = nd;
            if (n == cap) {
                cap *= 2;
                h = xrealloc(h, cap * sizeof *h);
            }
            size_t i = n++;
            h[i] = (struct lat_item){nd, p->peer_node};
            while (i && h[(i - 1) / 2].d > h[i].d) { /* sift up */
                struct lat_item x = h[i];
                h[i] = h[(i - 1) / 2];
                h[(i - 1) / 2] = x;
                i = (i - 1) / 2;
            }
            invariant(i == 0 || h[(i - 1) / 2].d <= h[i].d, "trigger latencies: heap entry %zu above its parent", i);
        }
    }
    free(h);
    s->trig_lat_from = a;
}

simtime_ps sim_trigger_latency_ps(struct sim *s, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    if (s->trig_lat_from != a)
        trigger_latencies_from(s, a);
    if (s->trig_lat_ps[b] == SIMTIME_NEVER)
        die_input("%s path: host %u cannot reach host %u in the fabric",
                  s->goal ? "--goal-send-done" : "--trigger-delay", a, b);
    return s->trig_lat_ps[b];
}

/* An activation of trigger ti by the host whose event runs: a note to each
 * host with a connection waiting on it, after the latency (a note for
 * another process's host leaves like a packet; its latency crosses a link
 * between processes, so it is at least the window: pdes.c checks). */
static void trigger_notify(struct sim *s, uint32_t ti)
{
    uint32_t origin = (uint32_t)(s->eq.seq_next - s->origin_seq);
    if (origin == 0 || origin > s->n_hosts)
        die_internal("trigger %u activated by an event of node %u, not a host's", s->cm.triggers[ti].id, origin);
    uint32_t a = origin - 1;
    for (uint32_t k = s->trig_host_first[ti]; k < s->trig_host_first[ti + 1]; k++) {
        uint32_t b = s->trig_host[k];
        simtime_ps at = s->now + sim_trigger_latency_ps(s, a, b);
        if (s->node_remote && s->node_remote[b])
            s->export_event(s, at, (*s->eq.seq_next)++, EV_TRIGGER, b, k);
        else
            eq_push_aux(&s->eq, at, EV_TRIGGER, b, k);
    }
}

/* EV_TRIGGER: host b hears an activation of pair k's trigger. */
static void trigger_heard(struct sim *s, uint32_t b, uint32_t k)
{
    uint32_t ti = s->trig_pair_ti[k];
    const struct cm_trigger *tr = &s->cm.triggers[ti];
    uint32_t n = ++s->trig_heard[k];
    uint32_t first = s->trigger_first[ti], end = s->trigger_first[ti + 1];
    if (tr->type == TRIGGER_MULTISHOT) {
        uint32_t w = first + n - 1;
        if (n <= end - first) {
            uint32_t i = s->trigger_waiters[w];
            if (s->flows[i].src == b && !s->flows[i].start_scheduled) {
                s->flows[i].start_scheduled = true;
                sim_at(s, s->now, EV_FLOW_START, i);
            }
        }
        return;
    }
    bool fire = (tr->type == TRIGGER_ONESHOT && n == 1) || (tr->type == TRIGGER_BARRIER && n == tr->count);
    if (!fire)
        return;
    for (uint32_t w = first; w < end; w++) {
        uint32_t i = s->trigger_waiters[w];
        if (s->flows[i].src != b || s->flows[i].start_scheduled)
            continue;
        s->flows[i].start_scheduled = true;
        sim_at(s, s->now, EV_FLOW_START, i);
    }
}

void sim_trigger_activate(struct sim *s, uint32_t trigger_id)
{
    if (trigger_id >= GOAL_TRIGGER_BASE && s->goal) {
        goal_delivered(s, trigger_id - GOAL_TRIGGER_BASE); /* a schedule's message reached its receiver */
        return;
    }
    uint32_t ti = trigger_index_of(s, trigger_id);
    if (ti == UINT32_MAX)
        return;
    if (s->cfg.trigger_delay) {
        trigger_notify(s, ti);
        return;
    }
    const struct cm_trigger *tr = &s->cm.triggers[ti];
    uint32_t n = ++s->trigger_counts[ti];
    bool fire_all = (tr->type == TRIGGER_ONESHOT && n == 1) || (tr->type == TRIGGER_BARRIER && n == tr->count);
    if (!fire_all && tr->type != TRIGGER_MULTISHOT)
        return;
    /* the waiters not started yet, in file order; multishot starts one */
    uint32_t end = s->trigger_first[ti + 1];
    while (s->trigger_next[ti] < end) {
        uint32_t i = s->trigger_waiters[s->trigger_next[ti]++];
        if (s->flows[i].start_scheduled)
            continue;
        s->flows[i].start_scheduled = true;
        sim_at(s, s->now, EV_FLOW_START, i);
        if (!fire_all)
            break; /* multishot: one waiting connection per activation, in file order */
    }
}

#ifdef SPRAYSIM_CHECKS
#define CENSUS_EVENTS (1u << 14)

struct census {
    const struct sim *s;
    uint8_t *seen;      /* per pool slot: already found somewhere */
    uint64_t pkts;      /* packets found in the network */
    uint64_t data_pkts; /* of which data packets */
    uint32_t port;      /* the port being walked */
};

/* Counts packet idx, found at (where, where_id); false when it cannot be
 * counted (not a pool slot, or already found elsewhere). */
static bool census_add(struct census *c, uint32_t idx, const char *where, uint64_t where_id)
{
    const struct packet_pool *pool = &c->s->pool;
    invariant(pkt_is_live(pool, idx), "%s %llu holds packet %u, which is not allocated", where,
              (unsigned long long)where_id, idx);
    if (idx >= pool->capacity)
        return false;
    invariant(!c->seen[idx], "packet %u is in two places (found again in %s %llu)", idx, where,
              (unsigned long long)where_id);
    if (c->seen[idx])
        return false;
    c->seen[idx] = 1;
    c->pkts++;
    c->data_pkts += pool->pkts[idx].type == PKT_DATA;
    return true;
}

/* A packet a port holds; stops the walk of a queue at a packet it cannot
 * count: a corrupt list may be a cycle. */
static bool census_add_held(const struct sim *s, uint32_t pkt_idx, bool on_wire, void *ctx)
{
    (void)s;
    struct census *c = ctx;
    return census_add(c, pkt_idx, on_wire ? "the wire of port" : "the queue of port", c->port);
}

static void census_add_arrival(const struct event *e, void *ctx)
{
    if (e->kind == EV_PKT_ARRIVE)
        census_add(ctx, e->id, "the arrival event at ps", e->time_ps);
}

/* The packet-conservation invariant stated at the top of this file. */
static void check_packet_conservation(const struct sim *s)
{
    struct census c = {.s = s, .seen = xcalloc(s->pool.capacity ? s->pool.capacity : 1, 1)};
    for (uint32_t i = 0; i < s->n_ports; i++) {
        c.port = i;
        port_visit_held(s, i, census_add_held, &c);
    }
    eq_visit(&s->eq, census_add_arrival, &c);
    free(c.seen);
    invariant(c.pkts == s->pool.in_use, "the pool has %u packets in use but %llu are in the network", s->pool.in_use,
              (unsigned long long)c.pkts);
    const struct sim_totals *t = &s->tot;
    uint64_t accounted = t->data_pkts_delivered + t->trimmed_delivered + t->data_bounced + t->data_drops + c.data_pkts;
    invariant(t->data_pkts_sent == accounted,
              "%llu data packets sent but %llu delivered + %llu trimmed + %llu bounced + %llu dropped + %llu in the "
              "network = %llu",
              (unsigned long long)t->data_pkts_sent, (unsigned long long)t->data_pkts_delivered,
              (unsigned long long)t->trimmed_delivered, (unsigned long long)t->data_bounced,
              (unsigned long long)t->data_drops, (unsigned long long)c.data_pkts, (unsigned long long)accounted);
}
#endif

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

uint32_t sim_event_origin_other(const struct sim *s, const struct event *ev)
{
    switch (ev->kind) {
    case EV_PORT_TX_DONE:
        return 1 + s->ports[ev->id].owner_node;
    case EV_PKT_ARRIVE:
        return 1 + s->pool.pkts[ev->id].node;
    case EV_FLOW_START:
        return 1 + s->flows[ev->id].src;
    case EV_HOST_TIMER:
    case EV_TRIGGER: /* --trigger-delay path: the host that hears the activation */
        return 1 + ev->id; /* the host's own state: hosts are nodes 0 .. n_hosts-1 */
    case EV_GOAL:
        /* --goal-send-done path: 1 + the host of the rank whose state it
         * changes (goal.c); 0 under match, where it runs where it was
         * scheduled (below) */
        if (ev->aux)
            return ev->aux;
        return (uint32_t)(ev->seq >> ORIGIN_SHIFT);
    case EV_PFC:
        /* a PAUSE or RESUME changes the port it reaches: its node's (the
         * frame came from the switch at the link's other end); the
         * deadlock check runs where it was scheduled */
        if (ev->aux % 4 != PFC_CHECK)
            return 1 + s->ports[ev->id].owner_node;
        return (uint32_t)(ev->seq >> ORIGIN_SHIFT);
    default: {
        /* timers and the rest run where they were scheduled; a timer set at
         * setup belongs to its flow's sender */
        uint32_t o = (uint32_t)(ev->seq >> ORIGIN_SHIFT);
        if (o == 0 && ev->kind == EV_TRANSPORT_TIMER)
            return 1 + s->flows[ev->id].src;
        return o;
    }
    }
}

/* Events no fabric's packets make (a GOAL schedule's), out of line: a case
 * more in dispatch's switch made gcc stop inlining the loop's hot path
 * (perm_128: 302.9 M instructions against 274.4 M, callgrind). */
__attribute__((noinline)) static void dispatch_rare(struct sim *s, const struct event *ev)
{
    if (ev->kind == EV_GOAL)
        goal_event(s, ev->id);
    else if (ev->kind == EV_TRIGGER)
        trigger_heard(s, ev->id, ev->aux);
    else
        die_internal("unknown event kind %u", ev->kind);
}

static inline void dispatch(struct sim *s, const struct event *ev, uint32_t origin)
{
    invariant(ev->time_ps >= s->now, "event kind %u id %u at %llu ps runs after the clock reached %llu ps",
              (unsigned)ev->kind, ev->id, (unsigned long long)ev->time_ps, (unsigned long long)s->now);
    invariant(origin == sim_event_origin(s, ev), "event kind %u id %u dispatched at origin %u", (unsigned)ev->kind,
              ev->id, origin);
    sim_set_origin(s, origin);
    s->now = ev->time_ps;
    s->events_processed++;
    switch (ev->kind) {
    case EV_PORT_TX_DONE:
        port_tx_done(s, ev->id);
        break;
    case EV_PKT_ARRIVE:
        node_receive(s, ev->id, ev->aux);
        break;
    case EV_FLOW_START:
        transport_flow_start(s, ev->id);
        break;
    case EV_FLOW_RETIRE:
        /* bookkeeping, not simulation: not counted, so the summary's
         * event count is the same with and without --stream */
        flowstream_retire(s, ev->id, ev->aux);
        s->events_processed--;
        break;
    case EV_TRANSPORT_TIMER:
        transport_timer(s, ev->id, ev->aux);
        break;
    case EV_HOST_TIMER:
        transport_host_timer(s, ev->id, ev->aux);
        break;
    case EV_LINK_CHANGE:
        failures_apply(s, ev->id);
        break;
    case EV_ROUTE_LEARN:
        failures_learn(s, ev->id);
        break;
    case EV_ARRIVAL:
        poisson_arrival(s, ev->id);
        break;
    case EV_PFC:
        pfc_event(s, ev->id, ev->aux);
        break;
    case EV_TS_SAMPLE:
        ts_sample_event(s);
        break;
    default:
        dispatch_rare(s, ev);
    }
#ifdef SPRAYSIM_CHECKS
    if (s->events_processed % CENSUS_EVENTS == 0 && !s->node_remote)
        check_packet_conservation(s);
#endif
}

void sim_dispatch(struct sim *s, const struct event *ev, uint32_t origin)
{
    dispatch(s, ev, origin);
}

bool sim_wants_prefetch(const struct sim *s)
{
    return (uint64_t)s->n_ports * sizeof(struct port) > PREFETCH_MIN_PORT_BYTES;
}


/* The event loop, in windows of lookahead_ps as a parallel run must
 * (docs/parallel.md "Parallel runs (MPI)"): a window starts at the earliest pending
 * event, and a run whose flows have all finished (s->stop) ends where its
 * window ends, so every process of a parallel run stops after the same
 * events. `ts_each_event` (time series in change mode) is tested
 * once per event, a branch that is always predicted: one copy of the loop
 * lets gcc inline the event queue's pop into it (two copies, one per
 * value, cost 7.5% more instructions on perm_128: 377.0 M against 350.7 M,
 * callgrind, because the pop was no longer inlined). */
static inline __attribute__((always_inline)) bool run_events(struct sim *s, bool progress, bool ts_each_event)
{
    struct event ev;
    bool prefetch = (uint64_t)s->n_ports * sizeof(struct port) > PREFETCH_MIN_PORT_BYTES;
    double wall_start = wall_seconds(), last_print = wall_start;
    bool printed = false;
    bool tty = progress && isatty(STDERR_FILENO);
    double progress_every_s = s->cfg.progress_every_s > 0 ? s->cfg.progress_every_s : tty ? 1.0 : 5.0;
    uint64_t checked_events = 0;
    for (;;) {
        if (s->stop)
            break;
        simtime_ps t = eq_peek_time(&s->eq);
        if (t > s->cfg.end_ps)
            break; /* also when nothing is pending (SIMTIME_NEVER) */
        simtime_ps last_ps = t + (s->lookahead_ps - 1);
        if (last_ps > s->cfg.end_ps)
            last_ps = s->cfg.end_ps;
        while (eq_pop_until(&s->eq, last_ps, &ev)) {
            if (prefetch)
                prefetch_ahead(s);
            dispatch(s, &ev, sim_event_origin(s, &ev));
            if (__builtin_expect(ts_each_event, 0))
                ts_after_event(s);
        }
        /* progress: the clock is read between windows (a window is about
         * one link latency of simulated time) once 2^18 events have run
         * since the last reading, never per event: perm_128 runs 274.4 M
         * instructions (callgrind), 278.0 M with the per-event test */
        if (progress && s->events_processed - checked_events >= (1u << 18)) {
            checked_events = s->events_processed;
            double w = wall_seconds();
            if (w - last_print >= progress_every_s) {
                last_print = w;
                printed = tty;
                /* the time left at this run's pace of simulated time: an
                 * upper bound, as the run also ends when every flow is done */
                double eta = s->now ? (w - wall_start) * (double)(s->cfg.end_ps - s->now) / (double)s->now : 0;
                /* a terminal redraws one line; a batch log (Slurm, a
                 * sweep's point log) gets whole lines it can keep */
                fprintf(stderr, "%s[%.1f s] simulated %.1f of %.1f us, %u/%u flows finished, %.2fM events/s, "
                        "ETA <= %.0f s%s",
                        tty ? "\r" : "spraysim: progress ", w - wall_start, (double)s->now / PS_PER_US,
                        (double)s->cfg.end_ps / PS_PER_US, s->flows_finished, s->n_msgs,
                        s->events_processed / (w - wall_start) / 1e6, eta, tty ? "   " : "\n");
            }
        }
    }
    return printed;
}

void sim_htsim_printf(struct sim *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!s->htsim_line) {
        vprintf(fmt, ap);
    } else {
        char line[256], *big = NULL; /* the reference's lines are under 200 bytes */
        va_list again;
        va_copy(again, ap);
        int n = vsnprintf(line, sizeof line, fmt, ap);
        if (n >= (int)sizeof line) {
            big = xmalloc((size_t)n + 1);
            vsnprintf(big, (size_t)n + 1, fmt, again);
        }
        va_end(again);
        s->htsim_line(s, big ? big : line);
        free(big);
    }
    va_end(ap);
}

uint64_t sim_run_window(struct sim *s, simtime_ps limit_ps, bool origin0_here, simtime_ps *last_event_ps)
{
    struct event ev;
    bool prefetch = sim_wants_prefetch(s);
    bool ts_each_event = s->ts && s->cfg.ts.change;
    uint64_t n = 0;
    s->cur_event = &ev; /* what dispatch runs: pops write it in place */
    /* the place of an event at its instant: for --htsim-output lines and
     * time-series rows, which pdes.c puts in the plain run's order */
    bool track_order = s->htsim_line != NULL || s->ts != NULL;
    while (eq_pop_until(&s->eq, limit_ps, &ev)) {
        if (prefetch)
            prefetch_ahead(s);
        uint32_t o = sim_event_origin(s, &ev);
        bool elsewhere = o == 0 && !origin0_here;
        if (elsewhere && !sim_event_everywhere(&ev))
            continue;
        if (o != 0 && s->node_remote[o - 1])
            continue; /* another process's (a flow start every process scheduled at setup) */
        if (__builtin_expect(track_order, 0)) {
            /* the largest key run here at this instant so far (pdes.c's
             * order of --htsim-output lines and time-series rows) */
            if (ev.time_ps != s->cur_time_ps || ev.order > s->cur_order_max)
                s->cur_order_max = ev.order;
            s->cur_time_ps = ev.time_ps;
        }
        dispatch(s, &ev, o);
        if (__builtin_expect(ts_each_event, 0))
            ts_after_event(s);
        if (elsewhere) {
            /* a link's change and routing's learning of it act on every
             * process's copy of the fabric at the same instant (the events
             * of origin 0 come first at their time everywhere), and so does
             * a time-series sample (each process samples what it owns);
             * rank 0 counts them (a sample counts nowhere) */
            if (ev.kind != EV_TS_SAMPLE)
                s->events_processed--;
            continue;
        }
        if (ev.kind != EV_TS_SAMPLE) {
            /* the last event of the simulated system (samples are not) */
            *last_event_ps = ev.time_ps;
            s->last_event_order = ev.order;
            n++;
        }
    }
    s->cur_event = NULL;
    return n;
}

void sim_run(struct sim *s)
{
    bool printed = run_events(s, s->cfg.progress, s->ts && s->cfg.ts.change);
    if (printed)
        fputc('\n', stderr);
    sim_finish(s);
}

void sim_finish(struct sim *s)
{
    if (!s->stop && s->now < s->cfg.end_ps && s->flows_finished < s->n_msgs && !eq_count(&s->eq)) {
        /* nothing left to happen: time stands where the last event was */
    } else if (!s->stop) {
        s->now = s->cfg.end_ps;
    }
    net_close_stats(s);
#ifdef SPRAYSIM_CHECKS
    if (!s->node_remote)
        check_packet_conservation(s);
#endif
}

void sim_free(struct sim *s)
{
    flowstream_free(s);
    ts_free(s);
    poisson_free(s);
    goal_free(s);
    transport_free(s);
    failures_free(s);
    pfc_free(s);
    for (uint32_t i = 0; i < s->n_ports; i++)
        port_free(&s->ports[i]);
    free(s->ports);
    free(s->hosts);
    free(s->switches);
    free(s->trigger_counts);
    free(s->trigger_by_id);
    free(s->trigger_first);
    free(s->trigger_waiters);
    free(s->trigger_next);
    free(s->trig_host_first);
    free(s->trig_host);
    free(s->trig_pair_ti);
    free(s->trig_heard);
    free(s->trig_lat_ps);
    free(s->trig_adj_first);
    free(s->trig_adj);
    free(s->origin_seq);
    free(s->ar_rng);
    fabric_flowlets_free(s);
    cm_free(&s->cm);
    eq_free(&s->eq);
    pool_free(&s->pool);
}
