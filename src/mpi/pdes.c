/* pdes.c: parallel runs over MPI (bin/spraysim-mpi, `make mpi`): every
 * process builds the whole simulation, owns the nodes partition.c gives it
 * and runs only their events, in conservative windows (docs/parallel.md "Parallel
 * runs (MPI)").
 *
 * A window starts at the earliest pending event of any process (from the
 * numbers every process sends every other at the previous window's end,
 * which also tell whether every process's flows have finished) and lasts
 * sim.c's lookahead_ps, the smallest latency of a link between processes,
 * so nothing another process does in the window can reach this one before
 * it ends. A packet leaving for another process's
 * node (net.c calls export_arrival) is copied with its arrival time and
 * ordering key into an outbox and freed here; at the window's end the
 * outboxes are swapped (MPI_Alltoall of counts and next event times,
 * MPI_Alltoallv of records when any process sends any) and the packets
 * queued on arrival with the keys they were given, so the
 * receiver runs them in the order a single process would. Events every
 * process scheduled at setup (flow starts) run only where their node is.
 *
 * At the end the clock, counters, flow records (sender side from the
 * sender's process, the receiver's completion time from the receiver's) and
 * port statistics come together in rank 0, whose ordinary report code then
 * writes the outputs; time-series rows (each process's ports, hosts and
 * flows: timeseries.h ts_split) are merged there in the plain run's order.
 * SPRAYSIM_MPI_STATS=1 prints each process's window statistics on stderr
 * (the measurements in docs/parallel.md).
 *
 * Built with mpicc only; nothing else in the project needs MPI.
 */
#include "pdes.h"

#include "../metrics/report.h"
#include "../metrics/timeseries.h"
#include "../net/partition.h"
#include "../net/pfc.h"
#include "../sim.h"
#include "../transport/flow.h"
#include "../transport/hpcc.h"
#include "../transport/roce.h"
#include "../transport/transport.h"
#include "../workload/goal.h"
#include "../workload/poisson.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One packet crossing to another process (kind EV_PKT_ARRIVE), or an
 * event without one (kind EV_PFC: a PAUSE or RESUME for port id). */
struct xpkt {
    simtime_ps at_ps;
    uint64_t seq;
    uint32_t aux;
    uint32_t kind;
    uint32_t id;
    uint32_t pad;
    struct packet pkt;
};

/* HPCC's in-band telemetry of one crossing packet (hpcc.h keeps it in a
 * side table by packet slot, which the copy in struct xpkt does not take
 * along): exchanged beside the packets, one per record, with -hpcc only. */
struct xint {
    uint32_t n;
    uint32_t pad;
    struct hpcc_int rec[HPCC_MAX_HOPS];
};

struct outbox {
    struct xpkt *v;
    struct xint *vi; /* [cap] with -hpcc: v[i]'s telemetry */
    uint32_t len, cap;
};

struct pdes {
    int rank, np;
    uint32_t *part;          /* [node]: its process */
    uint8_t *remote;         /* [node]: 1 when another process owns it */
    struct outbox *out;      /* [np] */
    int *scount, *rcount, *sdispl, *rdispl;
    struct xpkt *sbuf, *rbuf;
    size_t sbuf_cap, rbuf_cap;
    struct hpcc_int_table *int_tab; /* -hpcc: the telemetry side table (NULL otherwise) */
    struct xint *sibuf, *ribuf;
    int *sicount, *ricount, *sidispl, *ridispl;
    uint32_t n_own_flows;
    uint32_t pods;
    /* --htsim-output lines this process printed: records (struct hline,
     * then the text and its NUL), gathered and sorted at the end */
    char *hl;
    size_t hl_len, hl_cap;
    uint64_t *flow_tp_counters; /* rank 0: the run transport's per-flow counters, summed (pdes_collect) */
    /* statistics (SPRAYSIM_MPI_STATS) */
    uint64_t windows, busy_windows, max_window_events, sent_pkts, recv_pkts;
    double sync_s, exchange_s, compute_s, alltoallv_s, compute_cpu_s;
};

static struct pdes P;

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of this process: what the events cost on a machine others load */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void pdes_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &P.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P.np);
}

bool pdes_is_root(void)
{
    return P.rank == 0;
}

void pdes_finalize(void)
{
    for (int r = 0; P.out && r < P.np; r++) {
        free(P.out[r].v);
        free(P.out[r].vi);
    }
    free(P.sibuf);
    free(P.ribuf);
    free(P.sicount);
    free(P.ricount);
    free(P.sidispl);
    free(P.ridispl);
    free(P.out);
    free(P.part);
    free(P.remote);
    free(P.scount);
    free(P.rcount);
    free(P.sdispl);
    free(P.rdispl);
    free(P.sbuf);
    free(P.rbuf);
    free(P.flow_tp_counters);
    free(P.hl);
    MPI_Finalize();
}

/* Room for one more record in o (and its telemetry's, with -hpcc). */
static void outbox_grow(struct outbox *o)
{
    if (o->len < o->cap)
        return;
    o->cap = o->cap ? 2 * o->cap : 256;
    o->v = xrealloc(o->v, (size_t)o->cap * sizeof *o->v);
    if (P.int_tab)
        o->vi = xrealloc(o->vi, (size_t)o->cap * sizeof *o->vi);
}

static void export_arrival(struct sim *s, simtime_ps at_ps, uint64_t seq, uint32_t pkt_idx, uint32_t aux)
{
    const struct packet *pkt = pkt_at(&s->pool, pkt_idx);
    struct outbox *o = &P.out[P.part[pkt->node]];
    outbox_grow(o);
    if (P.int_tab) {
        /* the telemetry travels in the packet (HPCC paper Sec. 3.2) */
        struct xint *xi = &o->vi[o->len];
        memset(xi, 0, sizeof *xi);
        uint32_t n;
        const struct hpcc_int *rec = hpcc_int_of(P.int_tab, pkt_idx, &n);
        xi->n = n;
        if (n)
            memcpy(xi->rec, rec, n * sizeof *rec);
    }
    struct xpkt *x = &o->v[o->len++];
    memset(x, 0, sizeof *x);
    x->at_ps = at_ps;
    x->seq = seq;
    x->aux = aux;
    x->kind = EV_PKT_ARRIVE;
    x->pkt = *pkt;
    pkt_release(&s->pool, pkt_idx);
    P.sent_pkts++;
}

/* A PFC frame for another process's port (EV_PFC), a trigger's
 * activation for another process's host (EV_TRIGGER, --trigger-delay
 * path), or a GOAL send's note that its receiver matched it for the
 * sender's host (EV_GOAL, aux = 1 + that host: --goal-send-done path): its
 * event, one link latency ahead, or the one-way latency of a path that
 * crosses a link between processes (so all at least the window:
 * pdes_attach checks every link between processes), with the key its
 * sender gave it. */
static void export_event(struct sim *s, simtime_ps at_ps, uint64_t seq, uint32_t kind, uint32_t id, uint32_t aux)
{
    invariant(kind == EV_PFC || kind == EV_TRIGGER || (kind == EV_GOAL && aux != 0), "event kind %u exported", kind);
    if (at_ps < s->now + s->lookahead_ps) /* checked always: it would break the windows silently */
        die_internal("event kind %u for another process at %llu ps, within the window of %llu ps from %llu ps", kind,
                     (unsigned long long)at_ps, (unsigned long long)s->lookahead_ps, (unsigned long long)s->now);
    struct outbox *o = &P.out[P.part[kind == EV_PFC ? s->ports[id].owner_node : kind == EV_GOAL ? aux - 1 : id]];
    outbox_grow(o);
    if (P.int_tab)
        memset(&o->vi[o->len], 0, sizeof o->vi[0]);
    struct xpkt *x = &o->v[o->len++];
    memset(x, 0, sizeof *x);
    x->at_ps = at_ps;
    x->seq = seq;
    x->aux = aux;
    x->kind = kind;
    x->id = id;
    P.sent_pkts++;
}

/* One --htsim-output line, with where it comes in the plain run's stdout:
 * events of one instant run in the order of the queue's pops, each the
 * smallest key pending, and an event may schedule another at the same
 * instant with a smaller key than its own. So an event's place is the
 * largest key run before it at that instant (itself included): at the
 * pop of e that maximum equals the largest key along e's chain of
 * same-instant ancestors (a smaller maximum m would mean one of e's
 * ancestors, pending when m was popped, had a key below m), and a chain
 * never leaves its process (no lookahead is zero), so each process
 * computes it from its own events (sim_run_window's cur_order_max).
 * Sorting by (time, that maximum, process, line number on it) is the plain
 * run's order: two processes never share a maximum. The text follows. */
struct hline {
    simtime_ps time_ps;
    uint64_t order_max;
    uint64_t nth;  /* this process's line number */
    uint32_t rank;
    uint32_t len;  /* the text's bytes, its NUL included */
};

static void htsim_line(struct sim *s, const char *line)
{
    static uint64_t nth;
    size_t len = strlen(line) + 1;
    size_t need = sizeof(struct hline) + ((len + 7) & ~(size_t)7);
    if (P.hl_len + need > P.hl_cap) {
        P.hl_cap = (P.hl_len + need) * 2;
        P.hl = xrealloc(P.hl, P.hl_cap);
    }
    /* outside an event (none prints there now): first at its instant */
    struct hline h = {.time_ps = s->cur_event ? s->cur_time_ps : s->now,
                      .order_max = s->cur_event ? s->cur_order_max : 0,
                      .nth = nth++,
                      .rank = (uint32_t)P.rank,
                      .len = (uint32_t)len};
    memcpy(P.hl + P.hl_len, &h, sizeof h);
    memset(P.hl + P.hl_len + sizeof h, 0, need - sizeof h);
    memcpy(P.hl + P.hl_len + sizeof h, line, len);
    P.hl_len += need;
}

static int hline_cmp(const void *a, const void *b)
{
    const struct hline *x = *(const struct hline *const *)a, *y = *(const struct hline *const *)b;
    if (x->time_ps != y->time_ps)
        return x->time_ps < y->time_ps ? -1 : 1;
    if (x->order_max != y->order_max)
        return x->order_max < y->order_max ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->nth < y->nth ? -1 : x->nth > y->nth;
}

static void *gather_recs(const void *mine, int n_mine, size_t size, int *n_all);

/* Every process's --htsim-output lines to rank 0, printed there in the
 * order of the events that printed them: the plain run's order. */
static void htsim_flush(void)
{
    if (P.hl_len > INT32_MAX)
        die_internal("%zu bytes of --htsim-output lines: more than MPI's int counts hold", P.hl_len);
    int n_all;
    char *all = gather_recs(P.hl, (int)P.hl_len, 1, &n_all);
    if (P.rank != 0)
        return;
    size_t n = 0;
    for (size_t at = 0; at < (size_t)n_all; n++) {
        struct hline h;
        memcpy(&h, all + at, sizeof h);
        at += sizeof h + ((h.len + 7) & ~(size_t)7);
    }
    const struct hline **v = xcalloc(n ? n : 1, sizeof *v);
    size_t k = 0;
    for (size_t at = 0; at < (size_t)n_all; k++) {
        v[k] = (const struct hline *)(const void *)(all + at); /* records are 8-byte aligned */
        at += sizeof *v[k] + ((v[k]->len + 7) & ~(size_t)7);
    }
    qsort(v, n, sizeof *v, hline_cmp);
    for (size_t i = 0; i < n; i++)
        fputs((const char *)(v[i] + 1), stdout);
    free(v);
    free(all);
}

/* MIN and MAX reductions go over int64_t, never an unsigned type: MPICH
 * 4.0.x computes MPI_MIN and MPI_MAX on unsigned types as signed
 * (pmodels/mpich issue 6083), so SIMTIME_NEVER (UINT64_MAX) read as -1 won
 * every MIN and emptied every rcv_finish_us of a parallel run. Times and
 * counts stay far below 2^63 (292 simulated years of picoseconds); NEVER
 * maps to INT64_MAX and back. */
static int64_t time_to_i64(simtime_ps t)
{
    return t >= (simtime_ps)INT64_MAX ? INT64_MAX : (int64_t)t;
}

static simtime_ps i64_to_time(int64_t v)
{
    return v == INT64_MAX ? SIMTIME_NEVER : (simtime_ps)v;
}

void pdes_refuse(const char *msg)
{
    if (P.rank == 0) {
        /* as die_input prints it: bytes that could break the line shown as '?' */
        fputs("spraysim: ", stderr);
        for (const char *c = msg; *c; c++)
            fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, stderr);
        fputc('\n', stderr);
    }
    MPI_Finalize();
    exit(2);
}

/* pdes_refuse with a format */
__attribute__((format(printf, 1, 2))) _Noreturn static void refuse(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pdes_refuse(msg);
}

/* Refuses what a partitioned run cannot do exactly (docs/parallel.md "Parallel runs
 * (MPI)"): one line naming the flag, exit 2, on every process alike. */
static void check_supported(const struct sim *s)
{
    const struct config *c = &s->cfg;
    if (P.np == 1)
        return; /* one process runs anything else the plain binary runs */
    /* A GOAL schedule under --goal-send-done match (the default): a send op
     * completes when its receiver matches the message (goal.c matched(),
     * in the receiver's event), releasing the sending rank's next ops and
     * CPU with no message back to it: no lookahead. Under path the send
     * completes when a note from the receiver's host reaches the sender's
     * (at least the window when they are on different processes), every
     * GOAL event belongs to a rank's host, and the schedule's end and
     * deadlock are decided from every process's counts at window ends
     * (goal_sync). */
    if (s->goal && !c->goal_send_done)
        refuse("--goal with more than one process needs --goal-send-done path: under --goal-send-done match (the "
               "default) a send op completes the instant its receiver matches the message, which changes the "
               "sending rank's state on another process with no lookahead");
    /* a transport says whether it is exact across processes
     * (transport_ops.parallel_exact: its per-host state is touched only by
     * that host's events, checked in tests/mpi_test.sh); pdes names none */
    const struct transport_ops *run_tp = transport_find(c->transport_name);
    if (run_tp && !run_tp->parallel_exact)
        refuse("--transport %s: not exact across processes (%s); parallel runs refuse it", c->transport_name,
               run_tp->parallel_note ? run_tp->parallel_note : "not checked in tests/mpi_test.sh");
    for (uint32_t i = 0; i < s->cm.n_conns; i++) {
        const struct transport_ops *tp = s->cm.conns[i].transport[0] ? transport_find(s->cm.conns[i].transport) : NULL;
        if (tp && !tp->parallel_exact)
            refuse("%s:%u: transport %s: not exact across processes (%s); parallel runs refuse it",
                   c->tm_path ? c->tm_path : "--workload", s->cm.conns[i].line, s->cm.conns[i].transport,
                   tp->parallel_note ? tp->parallel_note : "not checked in tests/mpi_test.sh");
    }
    /* UET's messages pipelined over a connection (uet_msg_pipeline): the
     * receiver learns each message's span from its packets (uet_send.c),
     * so nothing crosses but packets */
    /* a class's egress hook writes what a packet carries; HPCC's telemetry
     * (the only one) crosses processes beside the packet (struct xint) */
    if (s->class_egress && !roce_hpcc_int(s))
        refuse("an egress hook other than -hpcc's telemetry: its records do not cross processes; parallel runs refuse it");
    /* the deadlock check walks every switch's pauses at once: exact only
     * when it cannot fire before -end (it is set for the deadlock time
     * after a pause acted; one pending at the end keeps the clock at -end
     * in both runs, as any process that paused a port holds one) */
    if (s->pfc && s->pfc->deadlock_ps && s->pfc->deadlock_ps <= c->end_ps)
        refuse("--pfc-deadlock-us: PFC's deadlock check reads every switch at once; parallel runs need it beyond "
               "-end (above %g us here)", (double)c->end_ps / PS_PER_US);
    /* --stream recycles a finished message's flow slot once none of its
     * packets is left in the network (flowstream.c); across processes that
     * count is split between the processes its packets visit, and every
     * process must recycle the same slot at the same point (packets name
     * their flow by slot), so no process can decide it alone */
    if (s->fstream)
        refuse("--stream: parallel runs keep every message's flow slot (recycling one needs every process to know "
               "its packets are gone); give --stream off%s, or run with one process",
               c->stream < 0 ? (s->goal ? " (GOAL schedules stream by default)" : " (open-loop workloads stream by default)")
                             : "");
}

/* The index of trigger `id` (sim.c's sorted trigger_by_id), UINT32_MAX if none. */
static uint32_t trigger_index(const struct sim *s, uint32_t id)
{
    size_t lo = 0, hi = s->cm.n_triggers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((s->trigger_by_id[mid] >> 32) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->cm.n_triggers && (s->trigger_by_id[lo] >> 32) == id ? (uint32_t)s->trigger_by_id[lo] : UINT32_MAX;
}

/* Triggers (.cm send_done_trigger, recv_done_trigger, trigger; generated
 * collectives). The reference starts a trigger's flows the instant it fires
 * (htsim trigger.cpp: activate() calls each target's activate(); no
 * message crosses the network), and so does the plain run by default (sim.c
 * sim_trigger_activate), so a trigger has no lookahead: its count and its
 * flows' starts are exact in a parallel run only when every host that
 * fires it (a send_done flow's source, a recv_done flow's destination) and
 * every flow it starts are on one process. Others are refused, naming the
 * trigger and --trigger-delay path, under which (in plain runs too) an
 * activation reaches each waiting connection's source after a control
 * packet's minimum one-way latency: an event for that host, exchanged
 * between processes like a packet (export_event). */
static void check_triggers(const struct sim *s)
{
    uint32_t nt = s->cm.n_triggers;
    if (!nt || P.np == 1 || s->cfg.trigger_delay)
        return; /* --trigger-delay path: activations travel between processes like packets */
    uint32_t *proc = xmalloc(nt * sizeof *proc);
    for (uint32_t t = 0; t < nt; t++)
        proc[t] = UINT32_MAX;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct flow *f = &s->flows[i];
        const struct cm_conn *c = &s->cm.conns[f->conn_index];
        const uint32_t ids[3] = {c->send_done_trigger, c->recv_done_trigger, c->start_trigger};
        const uint32_t hosts[3] = {f->src, f->dst, f->src};
        for (int k = 0; k < 3; k++) {
            uint32_t t = ids[k] == CM_NO_TRIGGER ? UINT32_MAX : trigger_index(s, ids[k]);
            if (t == UINT32_MAX)
                continue;
            uint32_t p = P.part[hosts[k]];
            if (proc[t] == UINT32_MAX)
                proc[t] = p;
            else if (proc[t] != p)
                refuse("%s:%u: trigger %u is fired or waited for on hosts of processes %u and %u, and starts its "
                       "flows at once (as htsim does); parallel runs take a trigger across processes with "
                       "--trigger-delay path only",
                       s->cfg.tm_path ? s->cfg.tm_path : "--workload", s->cm.triggers[t].line, s->cm.triggers[t].id,
                       proc[t], p);
        }
    }
    free(proc);
}

void pdes_attach(struct sim *s)
{
    check_supported(s);
    P.part = partition_by_pods(s, (uint32_t)P.np, &P.pods);
    check_triggers(s);
    if (s->goal && P.np > 1) {
        char gerr[512];
        if (!goal_check_partition(s, P.part, gerr, sizeof gerr))
            pdes_refuse(gerr);
        goal_partition(s);
    }
    /* time series: each process samples what it owns, rank 0 merges the
     * rows (pdes_collect); with one process too, so the test at -np 1 runs
     * the same code */
    char err[512];
    if (!ts_split(s, (uint32_t)P.rank, P.part, err, sizeof err))
        pdes_refuse(err);
    uint32_t nodes = s->n_hosts + s->n_switches;
    P.remote = xcalloc(nodes ? nodes : 1, 1);
    for (uint32_t i = 0; i < nodes; i++)
        P.remote[i] = P.part[i] != (uint32_t)P.rank;
    for (uint32_t i = 0; i < s->n_flows; i++)
        P.n_own_flows += !P.remote[s->flows[i].src];
    /* the windows are safe only if no link between processes is shorter */
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const struct port *p = &s->ports[i];
        if (P.part[p->owner_node] != P.part[p->peer_node] && p->latency_ps < s->lookahead_ps)
            die_internal("port %u joins processes %u and %u with %llu ps, below the %llu ps windows", i,
                         P.part[p->owner_node], P.part[p->peer_node], (unsigned long long)p->latency_ps,
                         (unsigned long long)s->lookahead_ps);
    }
    P.out = xcalloc((size_t)P.np, sizeof *P.out);
    P.scount = xcalloc((size_t)P.np, sizeof(int));
    P.rcount = xcalloc((size_t)P.np, sizeof(int));
    P.sdispl = xcalloc((size_t)P.np, sizeof(int));
    P.rdispl = xcalloc((size_t)P.np, sizeof(int));
    P.int_tab = roce_hpcc_int(s);
    if (P.int_tab) {
        P.sicount = xcalloc((size_t)P.np, sizeof(int));
        P.ricount = xcalloc((size_t)P.np, sizeof(int));
        P.sidispl = xcalloc((size_t)P.np, sizeof(int));
        P.ridispl = xcalloc((size_t)P.np, sizeof(int));
    }
    s->node_remote = P.remote;
    s->export_arrival = export_arrival;
    s->export_event = export_event;
    if (s->cfg.htsim_output && P.np > 1)
        s->htsim_line = htsim_line;
    s->pdes = &P;
}

/* Events of no node (origin 0) are rank 0's, but link changes and
 * routing's learning of them, which every process applies to its copy of
 * the fabric, time-series samples, where every process samples what
 * it owns, and open-loop arrivals, which every process draws so that it
 * makes every message's flow slot in the same order (sim_event_everywhere;
 * only the source's process starts the message). */
static inline bool origin_is_local(uint32_t o)
{
    return o == 0 ? P.rank == 0 : !P.remote[o - 1];
}

static inline bool event_is_local(const struct sim *s, const struct event *ev)
{
    uint32_t o = sim_event_origin(s, ev);
    return origin_is_local(o) || (o == 0 && sim_event_everywhere(ev));
}

/* The earliest event this process owns (events for other processes' nodes,
 * scheduled at setup by every process, are dropped on the way). */
static simtime_ps next_local_time(struct sim *s)
{
    const struct event *e;
    while ((e = eq_peek(&s->eq)) != NULL) {
        if (event_is_local(s, e))
            return e->time_ps;
        struct event dummy;
        eq_pop(&s->eq, &dummy);
    }
    return SIMTIME_NEVER;
}

static void count_real(const struct event *e, void *arg)
{
    struct sim *s = ((void **)arg)[0];
    uint64_t *n = ((void **)arg)[1];
    *n += e->kind != EV_TS_SAMPLE && event_is_local(s, e);
}

/* Events of the simulated system still pending here at the run's end (a
 * time-series sample is not one, nor another process's event left over
 * from setup). */
static uint64_t real_pending(struct sim *s)
{
    uint64_t n = 0;
    void *arg[2] = {s, &n};
    eq_visit(&s->eq, count_real, arg);
    return n;
}

/* What every process tells every other at a window's end, in one
 * MPI_Alltoall: the bytes of packets it sends that one, and (the same to
 * all) its earliest event after the exchange, counting the packets it
 * sends, and whether its own flows have all finished. So every process
 * learns the next window's start and the stop decision from the same
 * numbers, without a separate MPI_Allreduce. */
struct xhdr {
    uint64_t bytes;
    uint64_t next_ps;
    uint64_t done;
    uint64_t sends;  /* packets it sends anyone: the Alltoallv runs only when some process sends */
};

static struct xhdr *H_out, *H_in;

/* A GOAL schedule's end and deadlock (--goal-send-done path, more than one
 * process): each process knows only its own ranks, so at every window's
 * end the counts are summed (ops done, what is pending) and the last pump
 * and completion times taken at their largest; goal_window_end then
 * decides as the plain run did within the window, before the exchange
 * below computes the stop from it. Reductions over int64_t: MAX on an
 * unsigned type is wrong under MPICH 4.0.x (see time_to_i64). */
static void goal_sync(struct sim *s)
{
    int64_t v[4], sum[2], max[2];
    goal_window_counts(s, v);
    MPI_Allreduce(v, sum, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(v + 2, max, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    const int64_t all[4] = {sum[0], sum[1], max[0], max[1]};
    goal_window_end(s, all);
}

/* The outboxes to their processes and what came in onto the queue; returns
 * the next window's start (SIMTIME_NEVER: nothing anywhere) and sets
 * *all_done when every process's flows have finished. */
static simtime_ps exchange(struct sim *s, bool *all_done)
{
    simtime_ps next = next_local_time(s);
    size_t total = 0;
    for (int r = 0; r < P.np; r++)
        for (uint32_t i = 0; i < P.out[r].len; i++)
            if (P.out[r].v[i].at_ps < next)
                next = P.out[r].v[i].at_ps;
    /* its flows, those made during the run included, have finished, and
     * no more will come (open-loop arrivals, which every process draws,
     * are over): the plain run's stop (transport_flow_finished) */
    uint64_t done = s->flows_finished == P.n_own_flows + s->n_msgs_added_here && !s->arrivals_open;
    for (int r = 0; r < P.np; r++) {
        P.scount[r] = (int)(P.out[r].len * sizeof(struct xpkt));
        P.sdispl[r] = (int)(total * sizeof(struct xpkt));
        total += P.out[r].len;
    }
    if (total * sizeof(struct xpkt) > INT32_MAX)
        die_internal("%zu packets leave this process in one window: more than MPI's int counts hold", total);
    for (int r = 0; r < P.np; r++)
        H_out[r] = (struct xhdr){.bytes = (uint64_t)P.scount[r], .next_ps = next, .done = done, .sends = total};
    double t0 = wall_s();
    MPI_Alltoall(H_out, (int)sizeof(struct xhdr), MPI_BYTE, H_in, (int)sizeof(struct xhdr), MPI_BYTE, MPI_COMM_WORLD);
    P.sync_s += wall_s() - t0;
    simtime_ps t = SIMTIME_NEVER;
    bool all = true;
    size_t rtotal = 0, any = 0;
    for (int r = 0; r < P.np; r++) {
        if (H_in[r].next_ps < t)
            t = H_in[r].next_ps;
        all = all && H_in[r].done;
        P.rcount[r] = (int)H_in[r].bytes;
        P.rdispl[r] = (int)rtotal;
        rtotal += H_in[r].bytes;
        any |= H_in[r].sends;
    }
    /* as the plain run's stop, which the last flow's finish sets: never in
     * a run without flows */
    *all_done = all && s->n_msgs > 0;
    rtotal /= sizeof(struct xpkt);
    if (!any) /* every process knows that nobody sends anything */
        return t;
    if (total > P.sbuf_cap || !P.sbuf) {
        P.sbuf_cap = total ? total * 2 : 1;
        P.sbuf = xrealloc(P.sbuf, P.sbuf_cap * sizeof(struct xpkt));
    }
    if (rtotal > P.rbuf_cap || !P.rbuf) {
        P.rbuf_cap = rtotal ? rtotal * 2 : 1;
        P.rbuf = xrealloc(P.rbuf, P.rbuf_cap * sizeof(struct xpkt));
    }
    if (P.int_tab && (total * sizeof(struct xint) > INT32_MAX || rtotal * sizeof(struct xint) > INT32_MAX))
        die_internal("%zu packets' telemetry in one window: more than MPI's int counts hold", total);
    if (P.int_tab) {
        P.sibuf = xrealloc(P.sibuf, (total ? total : 1) * sizeof(struct xint));
        P.ribuf = xrealloc(P.ribuf, (rtotal ? rtotal : 1) * sizeof(struct xint));
        for (int r = 0, st = 0, rt = 0; r < P.np; r++) {
            P.sicount[r] = (int)(P.out[r].len * sizeof(struct xint));
            P.sidispl[r] = st;
            st += P.sicount[r];
            P.ricount[r] = (int)(H_in[r].bytes / sizeof(struct xpkt) * sizeof(struct xint));
            P.ridispl[r] = rt;
            rt += P.ricount[r];
        }
    }
    size_t k = 0;
    for (int r = 0; r < P.np; r++) {
        if (P.out[r].len) {
            memcpy(P.sbuf + k, P.out[r].v, P.out[r].len * sizeof(struct xpkt));
            if (P.int_tab)
                memcpy(P.sibuf + k, P.out[r].vi, P.out[r].len * sizeof(struct xint));
        }
        k += P.out[r].len;
        P.out[r].len = 0;
    }
    double t1 = wall_s();
    MPI_Alltoallv(P.sbuf, P.scount, P.sdispl, MPI_BYTE, P.rbuf, P.rcount, P.rdispl, MPI_BYTE, MPI_COMM_WORLD);
    if (P.int_tab)
        MPI_Alltoallv(P.sibuf, P.sicount, P.sidispl, MPI_BYTE, P.ribuf, P.ricount, P.ridispl, MPI_BYTE,
                      MPI_COMM_WORLD);
    P.alltoallv_s += wall_s() - t1;
    /* each arrival keeps the key its sender gave it */
    for (size_t i = 0; i < rtotal; i++) {
        const struct xpkt *x = &P.rbuf[i];
        if (x->kind != EV_PKT_ARRIVE) {
            eq_push_import(&s->eq, x->at_ps, x->seq, x->kind, x->id, x->aux);
            continue;
        }
        uint32_t idx = pkt_alloc(&s->pool);
        *pkt_at(&s->pool, idx) = x->pkt;
        pkt_at(&s->pool, idx)->next = PKT_NONE;
        if (P.int_tab) /* its slot's row here: the records it carried (none: none) */
            hpcc_int_put(P.int_tab, idx, P.ribuf[i].rec, P.ribuf[i].n);
        eq_push_import(&s->eq, x->at_ps, x->seq, EV_PKT_ARRIVE, idx, x->aux);
    }
    P.recv_pkts += rtotal;
    return t;
}

/* The latency of one empty window end here (the floor of synchronisation):
 * the header exchange, n times. */
static double empty_exchange_us(int n)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = wall_s();
    for (int i = 0; i < n; i++) {
        MPI_Alltoall(H_out, (int)sizeof(struct xhdr), MPI_BYTE, H_in, (int)sizeof(struct xhdr), MPI_BYTE,
                     MPI_COMM_WORLD);
    }
    return (wall_s() - t0) / n * 1e6;
}

/* The latency of the packets' exchange alone at this run's mean volume
 * (each process sends `per_peer` records to every other), n times. */
static double full_exchange_us(uint64_t per_peer, int n)
{
    size_t cnt = (size_t)per_peer * (size_t)P.np;
    struct xpkt *sb = xcalloc(cnt ? cnt : 1, sizeof *sb), *rb = xcalloc(cnt ? cnt : 1, sizeof *rb);
    for (int r = 0; r < P.np; r++) {
        P.scount[r] = P.rcount[r] = r == P.rank ? 0 : (int)(per_peer * sizeof(struct xpkt));
        P.sdispl[r] = P.rdispl[r] = (int)((size_t)r * per_peer * sizeof(struct xpkt));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = wall_s();
    for (int i = 0; i < n; i++)
        MPI_Alltoallv(sb, P.scount, P.sdispl, MPI_BYTE, rb, P.rcount, P.rdispl, MPI_BYTE, MPI_COMM_WORLD);
    double us = (wall_s() - t0) / n * 1e6;
    free(sb);
    free(rb);
    return us;
}

void pdes_run(struct sim *s)
{
    double t_start = wall_s();
    simtime_ps last_ps = 0;
    bool all_done = false, any_event = false;
    H_out = xcalloc((size_t)P.np, sizeof *H_out);
    H_in = xcalloc((size_t)P.np, sizeof *H_in);
    simtime_ps t = exchange(s, &all_done);
    /* rank 0's progress line, as sim_run's (its own share of the events):
     * refreshed in place once a second on a terminal; under mpirun, which
     * forwards stderr line by line through a pipe, and in a batch log, as a
     * full line every 5 s (--progress-every) starting "spraysim: progress"
     * as the plain run's, so a long parallel run shows it too and a short
     * one prints nothing */
    bool tty = isatty(STDERR_FILENO);
    bool progress = P.rank == 0 && s->cfg.progress, printed = false;
    double every_s = s->cfg.progress_every_s > 0 ? s->cfg.progress_every_s : tty ? 1.0 : 5.0;
    double last_print = t_start;
    while (t != SIMTIME_NEVER && t <= s->cfg.end_ps && !all_done) {
        double t1 = wall_s(), c1 = cpu_s();
        simtime_ps limit = t + s->lookahead_ps - 1;
        if (limit > s->cfg.end_ps)
            limit = s->cfg.end_ps;
        uint64_t n = sim_run_window(s, limit, P.rank == 0, &last_ps);
        any_event |= n > 0;
        P.windows++;
        P.busy_windows += n > 0;
        if (n > P.max_window_events)
            P.max_window_events = n;
        double t2 = wall_s();
        P.compute_s += t2 - t1;
        P.compute_cpu_s += cpu_s() - c1;
        if (s->goal && P.np > 1)
            goal_sync(s);
        t = exchange(s, &all_done);
        P.exchange_s += wall_s() - t2;
        if (progress && wall_s() - last_print >= every_s) {
            last_print = wall_s();
            printed = tty;
            /* the time left at this pace of simulated time: an upper bound,
             * as the run also ends when every flow is done (sim.c's line) */
            double eta = s->now ? (last_print - t_start) * (double)(s->cfg.end_ps - s->now) / (double)s->now : 0;
            fprintf(stderr, "%s[%.0f s] simulated %.1f of %.1f us on %d processes, %u/%u flows finished here, "
                    "%.2fM events/s here, ETA <= %.0f s%s",
                    tty ? "\r" : "spraysim: progress ", last_print - t_start, (double)s->now / PS_PER_US,
                    (double)s->cfg.end_ps / PS_PER_US, P.np, s->flows_finished, s->n_msgs,
                    s->events_processed / (last_print - t_start) / 1e6, eta, tty ? "   " : "\n");
        }
    }
    if (printed)
        fputc('\n', stderr);
    if (s->htsim_line)
        htsim_flush();
    /* the clock: the last event run anywhere (time-series samples aside:
     * ts_split_settle says which the plain run took, and whether one came
     * after that event); the rest as sim_finish decides */
    uint64_t in[3] = {last_ps, s->flows_finished, real_pending(s)}, red[3];
    uint64_t mine[3] = {last_ps, s->last_event_order, any_event}, *all_last = xmalloc((size_t)P.np * sizeof mine);
    MPI_Allgather(mine, 3, MPI_UINT64_T, all_last, 3, MPI_UINT64_T, MPI_COMM_WORLD);
    simtime_ps last_max = 0;
    uint64_t last_order = 0;
    bool any = false;
    for (int r = 0; r < P.np; r++) {
        const uint64_t *x = all_last + 3 * r;
        if (x[2] && (!any || x[0] > last_max || (x[0] == last_max && x[1] > last_order))) {
            last_max = x[0];
            last_order = x[1];
            any = true;
        }
    }
    free(all_last);
    MPI_Allreduce(in + 1, red + 1, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    simtime_ps sample_ps = ts_split_settle(s, last_max, last_order, any, red[2] != 0);
    if (sample_ps > last_max)
        last_max = sample_ps;
    s->now = last_max;
    uint64_t finished = red[1];
    bool pending = red[2] != 0;
    if (!all_done && s->now < s->cfg.end_ps && finished < s->n_msgs && !pending) {
        /* nothing left to happen: time stands where the last event was */
    } else if (!all_done) {
        s->now = s->cfg.end_ps;
    }
    s->stop = all_done;
    net_close_stats(s);
    if (getenv("SPRAYSIM_MPI_STATS")) {
        double total = wall_s() - t_start;
        double floor_us = empty_exchange_us(200);
        int64_t sent = (int64_t)P.sent_pkts, max_sent = 0;
        MPI_Allreduce(&sent, &max_sent, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        uint64_t mean_sent = (uint64_t)max_sent;
        uint64_t windows = P.windows ? P.windows : 1;
        uint64_t per_peer = P.np > 1 ? mean_sent / windows / (uint64_t)(P.np - 1) : 0;
        double full_us = full_exchange_us(per_peer, 100);
        fprintf(stderr,
                "mpi rank %d/%d: pods %u, lookahead %.3f us, windows %llu (%llu with events here), events %llu (%.1f "
                "per window, max %llu), packets sent to other processes %llu, received %llu; wall %.3f s: events "
                "%.3f s (CPU %.3f s), window ends %.3f s (of which the header exchange %.3f s, the packets' %.3f s); an empty window end "
                "%.1f us, one with %llu packets to each other process %.1f us\n",
                P.rank, P.np, P.pods, (double)s->lookahead_ps / PS_PER_US, (unsigned long long)P.windows,
                (unsigned long long)P.busy_windows, (unsigned long long)s->events_processed,
                P.windows ? (double)s->events_processed / (double)P.windows : 0.0,
                (unsigned long long)P.max_window_events, (unsigned long long)P.sent_pkts,
                (unsigned long long)P.recv_pkts, total, P.compute_s, P.compute_cpu_s, P.exchange_s, P.sync_s, P.alltoallv_s, floor_us, (unsigned long long)per_peer, full_us);
    }
    free(H_out);
    free(H_in);
}

/* What rank 0 needs of a flow its sender's process ran. */
struct flow_rec {
    uint32_t index;
    uint8_t state, posted, has_cc;
    uint8_t pad;
    simtime_ps posted_ps, start_ps, finish_ps;
    double cc[16];
};

/* What rank 0 needs of a port another process ran. */
struct port_rec {
    uint32_t index;
    uint32_t pad;
    struct port_stats st;
    struct pfc_port_stats pfc; /* with PFC: its pauses sent (its switch's frames), received, time paused */
    double class_occ[PORT_MAX_CLASSES - 2];
    uint32_t class_peak[PORT_MAX_CLASSES - 2];
};

/* What rank 0 needs of a switch another process ran (--switch-stats). */
struct switch_rec {
    uint32_t index;
    uint32_t pad;
    uint64_t buffered_bytes, peak_buffered_bytes, win_peak_buffered_bytes;
    double buffered_byte_ps;
};

/* Gathers n_mine records of `size` bytes from every process into rank 0;
 * returns them there (count in *n_all), NULL elsewhere. */
static void *gather_recs(const void *mine, int n_mine, size_t size, int *n_all)
{
    int *counts = xcalloc((size_t)P.np, sizeof(int)), *displ = xcalloc((size_t)P.np, sizeof(int));
    int bytes = n_mine * (int)size;
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < P.np; r++) {
        displ[r] = total;
        total += counts[r];
    }
    char *all = P.rank == 0 ? xmalloc(total ? (size_t)total : 1) : NULL;
    MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displ, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(counts);
    free(displ);
    *n_all = P.rank == 0 ? total / (int)size : 0;
    return all;
}

/* A GOAL schedule's state (--goal-send-done path): each op's and rank's
 * from the process of the rank's host, summed into rank 0 (the others'
 * entries are zero), in pieces MPI's int counts hold. */
static void goal_gather(struct sim *s)
{
    if (!s->goal)
        return;
    size_t n = goal_state_words(s);
    int64_t *v = xmalloc(n * sizeof *v);
    goal_state_export(s, P.remote, v);
    const size_t piece = (size_t)1 << 24;
    for (size_t at = 0; at < n; at += piece) {
        int k = (int)(n - at < piece ? n - at : piece);
        MPI_Reduce(P.rank == 0 ? MPI_IN_PLACE : v + at, v + at, k, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    if (P.rank == 0)
        goal_state_import(s, v);
    free(v);
}

/* Every process's time-series rows to rank 0, written there in the plain
 * run's order, and the samples each process counted alone. */
static void ts_gather(struct sim *s)
{
    if (!s->ts)
        return;
    for (unsigned which = 0; which < 3; which++) {
        char *mine;
        size_t bytes = ts_split_pack(s, which, &mine);
        if (bytes > INT32_MAX)
            die_internal("%zu bytes of time-series rows: more than MPI's int counts hold", bytes);
        int n_all;
        char *all = gather_recs(mine, (int)bytes, 1, &n_all);
        if (P.rank == 0 && ts_file_selected(s->ts, which))
            ts_split_write(s, which, all, (size_t)n_all);
        free(mine);
        free(all);
    }
    uint64_t own = P.rank == 0 ? 0 : ts_split_own_samples(s), others = 0;
    MPI_Reduce(&own, &others, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (P.rank == 0)
        ts_split_set_samples(s, others);
}

/* An open-loop run's window statistics (poisson.h struct poisson_run): the
 * payload each host had received at the window's start and end from the
 * process of the host, which holds its receiving ends; each switch's
 * buffer integrals and window peak (--switch-stats) from the switch's
 * process. Every process noted them for every host and switch at the same
 * events (the snapshots run everywhere); the others' entries are zeroed and
 * summed into rank 0. A run that ended before its window did (every
 * message done) needs no more: poisson_collect then counts each host's
 * payload from the flows' records, all delivered, which rank 0 has. */
static void poisson_gather(struct sim *s)
{
    struct poisson_run *pr = s->poisson;
    if (!pr)
        return;
    uint32_t nh = s->n_hosts, nsw = s->n_switches;
    double *v = xcalloc(2 * (size_t)nh + 2 * (size_t)nsw + 1, sizeof(double));
    uint64_t *peak = xcalloc((size_t)nsw + 1, sizeof(uint64_t));
    for (uint32_t h = 0; h < nh; h++) {
        if (P.remote[h])
            continue;
        v[h] = pr->rcv_at_start[h];
        v[nh + h] = pr->rcv_at_end[h];
    }
    double *sw = v + 2 * (size_t)nh;
    for (uint32_t i = 0; pr->sw_int_start && i < nsw; i++) {
        if (P.remote[nh + i])
            continue;
        sw[i] = pr->sw_int_start[i];
        sw[nsw + i] = pr->sw_int_end[i];
        peak[i] = pr->sw_peak_win[i];
    }
    int nv = (int)(2 * (size_t)nh + 2 * (size_t)nsw);
    MPI_Reduce(P.rank == 0 ? MPI_IN_PLACE : v, v, nv, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(P.rank == 0 ? MPI_IN_PLACE : peak, peak, (int)nsw, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (P.rank == 0) {
        memcpy(pr->rcv_at_start, v, nh * sizeof(double));
        memcpy(pr->rcv_at_end, v + nh, nh * sizeof(double));
        for (uint32_t i = 0; pr->sw_int_start && i < nsw; i++) {
            pr->sw_int_start[i] = sw[i];
            pr->sw_int_end[i] = sw[nsw + i];
            pr->sw_peak_win[i] = peak[i];
        }
    }
    free(v);
    free(peak);
}

void pdes_collect(struct sim *s, double wall, struct run_stats *r)
{
    /* packets still in the network: counted where they are */
    report_collect(s, wall, r);
    uint64_t inet[2] = {r->pkts_in_network, r->data_in_network}, inet_sum[2];
    MPI_Reduce(inet, inet_sum, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    ts_gather(s);
    if (P.np == 1)
        return;
    /* counters: sums (sim_totals is all uint64_t) */
    _Static_assert(sizeof(struct sim_totals) % sizeof(uint64_t) == 0, "sim_totals holds only uint64_t");
    struct sim_totals tot;
    MPI_Reduce(&s->tot, &tot, (int)(sizeof tot / sizeof(uint64_t)), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    uint64_t cnt[3] = {s->events_processed, s->flows_finished, s->flows_started}, cnt_sum[3];
    MPI_Reduce(cnt, cnt_sum, 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    /* PFC's frames by class, each counted by the switch that sent it */
    uint64_t pauses[PFC_CLASSES] = {0};
    if (s->pfc)
        MPI_Reduce(s->pfc->pauses_by_class, pauses, PFC_CLASSES, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    /* receivers' completion times */
    int64_t *rcv = xmalloc((s->n_flows ? s->n_flows : 1) * sizeof(int64_t));
    for (uint32_t i = 0; i < s->n_flows; i++)
        rcv[i] = time_to_i64(!P.remote[s->flows[i].dst] && s->flows[i].rcv_complete ? s->flows[i].rcv_done_ps
                                                                                        : SIMTIME_NEVER);
    MPI_Allreduce(MPI_IN_PLACE, rcv, (int)s->n_flows, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    /* per-flow counters (struct flow_counters and the run transport's):
     * sums of what each process counted, as a flow's sender and receiver
     * may count on different processes (EQDS's and UET's receivers count
     * too) and a process that runs neither end never touches them */
    _Static_assert(sizeof(struct flow_counters) % sizeof(uint64_t) == 0, "flow_counters holds only uint64_t");
    const size_t nfc = sizeof(struct flow_counters) / sizeof(uint64_t);
    const struct transport_ops *run_tp = transport_find(s->cfg.transport_name);
    const unsigned ntc = run_tp->n_counters < 32 ? run_tp->n_counters : 32;
    const size_t per_flow = nfc + ntc;
    if ((size_t)s->n_flows * per_flow > INT32_MAX)
        die_internal("%u flows' counters: more than MPI's int counts hold", s->n_flows);
    uint64_t *fctr = xcalloc((s->n_flows ? s->n_flows : 1) * per_flow, sizeof(uint64_t));
    for (uint32_t i = 0; i < s->n_flows; i++) {
        memcpy(fctr + i * per_flow, &s->flows[i].c, sizeof(struct flow_counters));
        if (s->flows[i].tp == run_tp && ntc)
            run_tp->counters(s, i, fctr + i * per_flow + nfc);
    }
    MPI_Reduce(P.rank == 0 ? MPI_IN_PLACE : fctr, fctr, (int)((size_t)s->n_flows * per_flow), MPI_UINT64_T, MPI_SUM,
               0, MPI_COMM_WORLD);
    /* senders' records */
    unsigned ncc = s->cc->n_counters < 16 ? s->cc->n_counters : 16;
    uint32_t n_own = 0; /* those made during the run included */
    for (uint32_t i = 0; i < s->n_flows; i++)
        n_own += !P.remote[s->flows[i].src];
    struct flow_rec *fr = xcalloc(n_own ? n_own : 1, sizeof *fr);
    int nf = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct flow *f = &s->flows[i];
        if (P.remote[f->src])
            continue;
        struct flow_rec *x = &fr[nf++];
        x->index = i;
        x->state = f->state;
        x->posted = f->posted;
        x->posted_ps = f->posted_ps;
        x->start_ps = f->start_ps;
        x->finish_ps = f->finish_ps;
        if (ncc && f->cc_counters) {
            memcpy(x->cc, f->cc_counters, ncc * sizeof(double));
            x->has_cc = 1;
        } else if (ncc && f->cc_state && s->cc->counters) {
            double tmp[32] = {0};
            s->cc->counters(f->cc_state, tmp);
            memcpy(x->cc, tmp, ncc * sizeof(double));
            x->has_cc = 1;
        }
    }
    int nf_all;
    struct flow_rec *fall = gather_recs(fr, nf, sizeof *fr, &nf_all);
    free(fr);
    /* ports, with the process of their node */
    uint32_t n_own_ports = 0;
    for (uint32_t i = 0; i < s->n_ports; i++)
        n_own_ports += !P.remote[s->ports[i].owner_node];
    struct port_rec *pr = xcalloc(n_own_ports ? n_own_ports : 1, sizeof *pr);
    int np_ = 0;
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const struct port *p = &s->ports[i];
        if (P.remote[p->owner_node])
            continue;
        struct port_rec *x = &pr[np_++];
        x->index = i;
        x->st = p->st;
        if (s->pfc)
            x->pfc = s->pfc->st[i];
        for (uint32_t k = 0; p->x && k + 2 < p->x->n; k++) {
            x->class_occ[k] = p->x->c[k].occupancy_byte_ps;
            x->class_peak[k] = p->x->c[k].peak_bytes;
        }
    }
    int np_all;
    struct port_rec *pall = gather_recs(pr, np_, sizeof *pr, &np_all);
    free(pr);
    /* switches' buffer totals (--switch-stats), from each switch's process */
    struct switch_rec *sr = xcalloc(s->n_switches ? s->n_switches : 1, sizeof *sr);
    int ns = 0;
    for (uint32_t i = 0; s->cfg.switch_stats && i < s->n_switches; i++) {
        if (P.remote[s->n_hosts + i])
            continue;
        const struct switch_node *sw = &s->switches[i];
        sr[ns++] = (struct switch_rec){.index = i,
                                       .buffered_bytes = sw->buffered_bytes,
                                       .peak_buffered_bytes = sw->peak_buffered_bytes,
                                       .win_peak_buffered_bytes = sw->win_peak_buffered_bytes,
                                       .buffered_byte_ps = sw->buffered_byte_ps};
    }
    int ns_all;
    struct switch_rec *sall = gather_recs(sr, ns, sizeof *sr, &ns_all);
    free(sr);
    poisson_gather(s);
    goal_gather(s);
    if (P.rank == 0) {
        s->tot = tot;
        if (s->pfc)
            memcpy(s->pfc->pauses_by_class, pauses, sizeof pauses);
        s->events_processed = cnt_sum[0];
        s->flows_finished = (uint32_t)cnt_sum[1];
        s->flows_started = (uint32_t)cnt_sum[2];
        for (uint32_t i = 0; i < s->n_flows; i++) {
            s->flows[i].rcv_done_ps = i64_to_time(rcv[i]);
            s->flows[i].rcv_complete = s->flows[i].rcv_done_ps != SIMTIME_NEVER;
        }
        for (uint32_t i = 0; i < s->n_flows; i++)
            memcpy(&s->flows[i].c, fctr + i * per_flow, sizeof(struct flow_counters));
        if (ntc) { /* report.c reads them from here; rank 0's transport state holds its own share only */
            P.flow_tp_counters = xcalloc((s->n_flows ? s->n_flows : 1) * (size_t)ntc, sizeof(uint64_t));
            for (uint32_t i = 0; i < s->n_flows; i++)
                memcpy(P.flow_tp_counters + (size_t)i * ntc, fctr + i * per_flow + nfc, ntc * sizeof(uint64_t));
            s->flow_tp_counters = P.flow_tp_counters;
        }
        for (int k = 0; k < nf_all; k++) {
            const struct flow_rec *x = &fall[k];
            struct flow *f = &s->flows[x->index];
            f->state = x->state;
            f->posted = x->posted;
            f->posted_ps = x->posted_ps;
            f->start_ps = x->start_ps;
            f->finish_ps = x->finish_ps;
            if (x->has_cc) {
                if (!f->cc_counters)
                    f->cc_counters = xcalloc(s->cc->n_counters, sizeof(double));
                memcpy(f->cc_counters, x->cc, ncc * sizeof(double));
            }
        }
        for (int k = 0; k < np_all; k++) {
            struct port *p = &s->ports[pall[k].index];
            p->st = pall[k].st;
            if (s->pfc)
                s->pfc->st[pall[k].index] = pall[k].pfc;
            for (uint32_t c = 0; p->x && c + 2 < p->x->n; c++) {
                p->x->c[c].occupancy_byte_ps = pall[k].class_occ[c];
                p->x->c[c].peak_bytes = pall[k].class_peak[c];
            }
        }
        for (int k = 0; k < ns_all; k++) {
            struct switch_node *sw = &s->switches[sall[k].index];
            sw->buffered_bytes = sall[k].buffered_bytes;
            sw->peak_buffered_bytes = sall[k].peak_buffered_bytes;
            sw->win_peak_buffered_bytes = sall[k].win_peak_buffered_bytes;
            sw->buffered_byte_ps = sall[k].buffered_byte_ps;
        }
        report_collect(s, wall, r);
        r->pkts_in_network = inet_sum[0];
        r->data_in_network = inet_sum[1];
    }
    free(fall);
    free(pall);
    free(sall);
    free(rcv);
    free(fctr);
}
