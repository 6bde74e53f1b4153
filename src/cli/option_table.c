/* option_table.c: the command line's flags, one entry each (option_table.h
 * says what an entry holds), and the three renderings of them: --help,
 * the markdown reference docs/flags.md and the troff man page
 * man/spraysim.1. The renderings add what the registries hold (transports'
 * and balancers' own flags, --cc algorithms and their --cc-opt names,
 * workload kinds and their parameters), so `make docs` regenerates both
 * files and tests/docs_test.sh fails when a committed one differs.
 *
 * Help texts: '\n' is where --help breaks a line (it indents the rest);
 * the markdown and the man page join the lines into one paragraph. A
 * default goes in dflt, not in the text: --help appends "(default DFLT)".
 */
#include "option_table.h"

#include "../cc/cc.h"
#include "../core/core.h"
#include "../lb/lb.h"
#include "../metrics/timeseries.h"
#include "../transport/transport.h"
#include "../workload/gen.h"
#include "../workload/poisson.h"

#include <string.h>

#define H OPT_GROUP_HTSIM
#define HC OPT_GROUP_HTSIM_COMPAT
#define W OPT_GROUP_WORKLOAD
#define M OPT_GROUP_MODEL
#define O OPT_GROUP_OUTPUT
#define R OPT_GROUP_RUN

/* {id, {names}, n_args, args, group, units, default, help[, list]} */
static const struct option_spec table[] = {
    /* ---- the reference simulator's flags (htsim_uec's meaning and units) ---- */
    {OPT_TM, {"-tm"}, 1, "FILE", H, NULL, NULL, "connection matrix (.cm)", 0},
    {OPT_TOPO, {"-topo"}, 1, "FILE", H, NULL, "k-ary fat tree sized by Nodes", "topology (.topo)", 0},
    {OPT_END, {"-end"}, 1, "US", H, "us", "1000", "simulated time limit, microseconds", 0},
    {OPT_NODES, {"-nodes"}, 1, "N", H, "hosts", NULL, "must equal the matrix's Nodes (checked)", 0},
    {OPT_TIERS, {"-tiers"}, 1, "2|3", H, NULL, "3", "tiers of the default fat tree", 0},
    {OPT_LINKSPEED, {"-linkspeed"}, 1, "MBPS", H, "Mb/s", "100000 = 100 Gb/s",
     "host link speed in Mb/s;\nall links when no -topo", 0},
    {OPT_MTU, {"-mtu"}, 1, "BYTES", H, "bytes", "4150; payload = mtu-64", "data packet size on the wire", 0},
    {OPT_Q, {"-q"}, 1, "PKTS|inf", H, "packets", "1 BDP, 5 BDP without trimming",
     "switch queue size in packets;\ninf: queues never overflow (no trimming or drops; seed 001's setup)", 0},
    {OPT_ECN, {"-ecn"}, 2, "LOW HIGH", H, "packets", "20% and 80% of 1 BDP", "RED marking thresholds in packets", 0},
    {OPT_CWND, {"-cwnd"}, 1, "PKTS", H, "packets", "the algorithm's, e.g. NSCC 1.5 BDP", "initial window in packets", 0},
    {OPT_PATHS, {"-paths"}, 1, "N", H, NULL, "64", "entropy values per flow (1 = one path per flow)", 0},
    {OPT_SEED, {"-seed", "--seed"}, 1, "S", H, NULL, "13", "seed of every random stream", 0},
    {OPT_SENDER_CC_ONLY, {"-sender_cc_only"}, 0, NULL, H, NULL, NULL,
     "sender window only (UET's default; EQDS: a pull pacer per connection)", 0},
    {OPT_SENDER_CC, {"-sender_cc"}, 0, NULL, H, NULL, NULL,
     "the sender's window applies (UET: default; EQDS: the --cc window caps it)", 0},
    {OPT_RECEIVER_CC_ONLY, {"-receiver_cc_only"}, 0, NULL, H, NULL, NULL,
     "UET receiver credit only: the receiver paces credit, no sender window;\na later -sender_cc adds the window back",
     0},
    {OPT_RECEIVER_CC, {"-receiver_cc"}, 0, NULL, H, NULL, NULL,
     "UET receiver credit as well (with the window unless -receiver_cc_only)", 0},
    {OPT_SENDER_CC_ALGO, {"-sender_cc_algo"}, 1, "NAME", H, NULL, NULL,
     "same as -sender_cc --cc NAME (its dctcp is --cc uec-dctcp, htsim's own)", 0},
    {OPT_USE_REPS, {"-use_reps"}, 1, "0|1", H, NULL, "0", "1: same as --lb reps (htsim_eqds)", 0},
    {OPT_DISABLE_TRIM, {"-disable_trim"}, 0, NULL, H, NULL, NULL, "switches drop instead of trimming", 0},
    {OPT_SLEEK, {"-sleek"}, 0, NULL, H, NULL, NULL, "SLEEK loss recovery and probes (seed 002 Sec. 6)", 0},
    {OPT_FAILED, {"-failed"}, 1, "N", H, "links", "0", "N links run at 25% speed and queue (htsim's rule)", 0},
    {OPT_TARGET_Q_DELAY, {"-target_q_delay"}, 1, "US", H, "us", "0.75 base RTT, 1.0 without trimming",
     "NSCC target queueing delay", 0},
    {OPT_QA_GATE, {"-qa_gate"}, 1, "N", H, NULL, "3", "Quick Adapt gate: fires when achieved < maxwnd >> N", 0},
    {OPT_HOP_LATENCY, {"-hop_latency"}, 1, "US", H, "us", "1", "per-link latency without -topo", 0},
    {OPT_SWITCH_LATENCY, {"-switch_latency"}, 1, "US", H, "us", "0", "per-switch latency without -topo", 0},
    {OPT_SACK_THRESHOLD, {"-sack_threshold"}, 1, "BYTES", H, "bytes", "16384", "delayed-ACK threshold", 0},
    {OPT_PFC_THRESHOLDS, {"-pfc_thresholds"}, 2, "LOW HIGH", H, "packets", "12 15",
     "PFC: RESUME below LOW, PAUSE above HIGH packets per ingress link", 0},
    {OPT_TRIMSIZE, {"-trimsize"}, 1, "BYTES", H, "bytes", "the 64-byte header",
     "size of a trimmed packet (at most -mtu)", 0},
    {OPT_CONN_REUSE, {"-conn_reuse"}, 0, NULL, H, NULL, NULL,
     "accepted and changes nothing: lines sharing an id in the .cm are always one\n"
     "connection's messages (--msg-cc)", 0},

    /* ---- the rest of htsim_uec's command line ---- */
    {OPT_STRAT, {"-strat"}, 1, "ecmp_host|ecmp_ar", HC, NULL, "ecmp_host",
     "htsim's route strategy: ecmp_host or ecmp_ar (-paths 1,\n"
     "--routing ar); its other strategies are refused as not modelled", 0},
    {OPT_LOG, {"-log"}, 1, "KIND", HC, NULL, NULL,
     "htsim's logs: flow_events is --htsim-output, switch is --switch-stats;\n"
     "the others name the output that replaces them", 0},
    {OPT_LOGTIME, {"-logtime"}, 1, "MS", HC, "ms", NULL, "htsim's logging period: the time series' --ts-interval", 0},
    {OPT_LOGTIME_US, {"-logtime_us"}, 1, "US", HC, "us", NULL, "the same period in microseconds", 0},
    {OPT_O, {"-o"}, 1, "FILE", HC, NULL, NULL, "htsim's event log: not written (a warning names the outputs instead)",
     0},
    {OPT_QUEUE_TYPE, {"-queue_type"}, 1, "composite", HC, NULL, "composite",
     "htsim's switch queue; spraysim models composite (trimming, ECN, a\n"
     "strict-priority control class); composite_ecn, aeolus, aeolus_ecn exit 2\n"
     "as not modelled", 0},
    {OPT_HOST_QUEUE_TYPE, {"-host_queue_type"}, 1, "fair_prio", HC, NULL, "fair_prio",
     "htsim's NIC queue; spraysim models fair_prio (control first, flows in\n"
     "round robin); prio and swift exit 2 as not modelled", 0},
    {OPT_PLANES, {"-planes"}, 1, "N", HC, NULL, "1",
     "N identical fat trees (1 to 8); every host has one NIC port at\n"
     "-linkspeed in each, its NIC spreads packets over the free ports (round\n"
     "robin, as htsim_eqds); failures apply to plane 0", 0},
    {OPT_AR_METHOD, {"-ar_method"}, 1, "queue|pause|pq", HC, NULL, "queue",
     "what adaptive routing compares up ports by: queue sizes, PFC's pause, or\n"
     "the pause then queues; htsim's bandwidth, qb, pb, pqb exit 2 as not modelled", 0},
    {OPT_AR_GRANULARITY, {"-ar_granularity"}, 1, "packet|flow", HC, NULL, "packet",
     "adaptive routing per packet, or per flowlet: a flow keeps its up port\n"
     "until its packets leave a gap of -ar_sticky_delta", 0},
    {OPT_AR_STICKY_DELTA, {"-ar_sticky_delta"}, 1, "US", HC, "us", "10",
     "-ar_granularity flow: the gap after which a flow may change its up port", 0},
    {OPT_CONNS, {"-conns"}, 1, "N", HC, NULL, NULL,
     "htsim_tcp's long-running connections of a random permutation: exits 2 as\n"
     "not modelled", 0},
    {OPT_PCIE, {"-pcie"}, 1, "X", HC, NULL, NULL, "htsim_uec's receiver PCIe model: exits 2 as not modelled", 0},
    {OPT_DISABLE_FD, {"-disable_fd"}, 0, NULL, HC, NULL, NULL,
     "no Fair Decrease: SMaRTT's --cc-opt fd=0 (NSCC has none)", 0},
    {OPT_ENABLE_QA_GATE, {"-enable_qa_gate"}, 0, NULL, HC, NULL, NULL,
     "Quick Adapt only below maxwnd/8: NSCC's default gate (-qa_gate 3)", 0},
    {OPT_DEBUG, {"-debug"}, 0, NULL, HC, NULL, NULL, "accepted; prints nothing more", 0},

    /* ---- workloads ---- */
    {OPT_WORKLOAD, {"--workload"}, 1, "SPEC", W, NULL, NULL,
     "a built-in workload instead of -tm (docs/workloads.md):\n"
     "incast:n=N,size=B[,degree=D][,dst=K|random]  perm:n=N,size=B[,podsize=P]\n"
     "uneven:n=N,size=B[,factor=K]  parallel:n=N,size=B,count=P\n"
     "alltoall:n=N,size=B[,window=W][,order=shift|random]\n"
     "ring[:n=128,gpus=8,size=13697024,placement=block|host]; each takes seed=S\n"
     "poisson:cdf=FILE,load=L,n=N[,sampling=linear|step][,warmup_us=W][,stop_us=S]\n"
     "[,bdp=B][,incast=F,incast_senders=K,incast_bytes=B][,conns=K][,seed=S]: open-loop\n"
     "arrivals; conns=K: K persistent connections per host pair", 0},
    {OPT_GOAL, {"--goal", "-goal"}, 1, "FILE", W, NULL, NULL,
     "run a GOAL schedule (LogGOPSim/Schedgen/ATLAHS, text or binary)\ninstead of -tm (docs/goal.md)", 0},
    {OPT_GOAL_MAP, {"--goal-map"}, 1, "FILE", W, NULL, "host = rank", "GOAL rank to host: lines \"RANK HOST...\"", 0},
    {OPT_GOAL_SEND_DONE, {"--goal-send-done"}, 1, "match|path", W, NULL, "match",
     "a GOAL send op completes when its receiver matches the message (match), or\n"
     "after the minimum one-way latency of a control packet from the receiver's\n"
     "host back to the sender's (path); parallel runs take --goal only with path", 0},
    {OPT_TRIGGER_DELAY, {"--trigger-delay"}, 1, "none|path", W, NULL, "none",
     "a .cm trigger starts its connections at once, as htsim does (none), or each\n"
     "waiting connection's source hears an activation after the minimum one-way\n"
     "latency of a control packet from the activating host (path); parallel runs\n"
     "take a trigger across processes only with path", 0},
    {OPT_WRITE_CM, {"--write-cm"}, 1, "FILE", W, NULL, NULL,
     "write the simulated workload as a .cm file (failures included)", 0},

    /* ---- models: transport, congestion control, balancing, switches, failures ---- */
    {OPT_TRANSPORT, {"--transport"}, 1, "NAME", M, NULL, "uet; eqds when the binary is called htsim_eqds",
     "transport of every connection without a 'transport' key:", OPT_LIST_TRANSPORTS},
    {OPT_CC, {"--cc"}, 1, "NAME", M, NULL, "nscc", "congestion control:", OPT_LIST_CCS},
    {OPT_CC_OPT, {"--cc-opt"}, 1, "NAME=VALUE", M, NULL, NULL,
     "an option of the selected algorithm; repeatable, a repeated NAME\n"
     "replaces the earlier value (the algorithms' options are listed below)", 0},
    {OPT_LB, {"--lb", "-load_balancing_algo"}, 1, "NAME", M, NULL, "mixed", "load balancer:", OPT_LIST_LBS},
    {OPT_Q3_PRESSURE, {"--q3-pressure"}, 1, "F", M, NULL, "0",
     "NSCC decrease per base RTT in the ECN/low-delay quadrant, 0..0.5", 0},
    {OPT_ROUTING, {"--routing"}, 1, "MODE", M, NULL, "ecmp",
     "switch forwarding: ecmp (hash), ar (shortest queue), ev-mod (entropy mod ports)", 0},
    {OPT_AR_QUANTUM, {"--ar-quantum"}, 1, "BYTES|bands", M, "bytes", "one MTU; bands with -strat ecmp_ar",
     "adaptive routing compares queues in these units, or (bands) in htsim's\n"
     "four bands of the queue's limit (5%, 10%, 20%) sampled every 0.1 us", 0},
    {OPT_SCHED, {"--sched"}, 1, "fifo|drr|class-drr", M, NULL, "fifo",
     "switch data scheduling: one FIFO, DRR between traffic classes 0 and 1,\n"
     "or (class-drr) DRR between data classes 1..N-1 instead of strict priority", 0},
    {OPT_DRR_QUANTUM, {"--drr-quantum"}, 1, "BYTES", M, "bytes", "4096", "DRR quantum", 0},
    {OPT_CLASSES, {"--classes"}, 1, "N", M, NULL, "2",
     "switch classes per port, 2..8: control, data, and data classes 2..N-1 in\n"
     "strict priority (a connection's .cm key 'priority K' picks one)", 0},
    {OPT_CLASS_OPT, {"--class-opt"}, 1, "K:NAME=V", M, NULL, "those of class 1",
     "data class K's queue_bytes, ecn_kmin_bytes, ecn_kmax_bytes, trim (0/1), ecn (0/1)\n"
     "(repeatable); lossless (0/1): PFC on this class only, no limit, never trims\n"
     "or drops; RoCE connections go to it (mixed fabric)", 0},
    {OPT_PFC, {"--pfc"}, 1, "on|off", M, NULL, "on with --transport roce",
     "PFC on the data class, lossless switch queues", 0},
    {OPT_PFC_DEADLOCK_US, {"--pfc-deadlock-us"}, 1, "US", M, "us", "500",
     "report a PFC deadlock (a cycle of paused ports) after US without a PAUSE or\n"
     "RESUME anywhere, and stop", 0},
    {OPT_MSG_CC, {"--msg-cc"}, 1, "inherit|fresh", M, NULL, "UET and EQDS inherit, RoCE fresh",
     "a connection's next message (lines sharing an id in the .cm) keeps the\n"
     "connection's CC and balancer state, or starts fresh", 0},
    {OPT_LOSS_DETECT, {"--loss-detect"}, 1, "MODE", M, NULL, "the algorithm's own",
     "loss besides NACKs and timeouts: nack (nothing more), dupack (3 duplicate\n"
     "ACKs), sack (3 later packets acknowledged)", 0},
    {OPT_MIN_RTO_US, {"--min-rto-us"}, 1, "US", M, "us", "15 us + six drains of the switch queue", "the minimum RTO", 0},
    {OPT_AGGRESSIVE_RTO, {"--aggressive-rto"}, 0, NULL, M, NULL, NULL,
     "the minimum RTO of a one-BDP queue whatever -q is (seed 003's aggressive\ntimeouts without trimming)", 0},
    {OPT_FAIL, {"--fail"}, 1, "SPEC", M, NULL, NULL,
     "e.g. \"link tor0 agg1 down at 500 up at 900\", \"switch core2 down at 100\",\n"
     "\"link tor1 spine0 rate 200\", \"link tor0 spine3 delay 5\" (repeatable)", 0},
    {OPT_RANDOM_FAILURES, {"--random-failures"}, 1, "P", M, "probability", "0",
     "each inter-switch link down from t=0 with probability P (0..1)", 0},
    {OPT_DETECT_US, {"--detect-us"}, 1, "US", M, "us", "100000",
     "failure detection delay before routing avoids a dead link", 0},
    {OPT_REROUTE, {"--reroute"}, 1, "MODE", M, NULL, "none",
     "none or bounce: a switch with no up-down route left sends the packet\n"
     "down to another switch that still reaches the destination (a valley)", 0},

    /* ---- outputs ---- */
    {OPT_OUT, {"--out", "-out"}, 1, "DIR", O, NULL, NULL,
     "write flows.csv, queues.csv, summary.json into DIR, replacing\n"
     "the set as a whole (DIR may hold only spraysim's outputs)", 0},
    {OPT_HTSIM_OUTPUT, {"--htsim-output"}, 0, NULL, O, NULL, NULL,
     "also print htsim's per-flow lines (\"Flow Uec_0_13 flowId 1 ... finished at T\")", 0},
    {OPT_SWITCH_STATS, {"--switch-stats"}, 0, NULL, O, NULL, NULL,
     "each switch's total buffered bytes (peak, time average): switches.csv, summary", 0},
    {OPT_GOAL_OPS, {"--goal-ops"}, 0, NULL, O, NULL, NULL, "with --out: goal_ops.csv, every operation's start and end", 0},
    {OPT_QUANTILES, {"--quantiles"}, 1, "exact|sketch", O, NULL, "exact",
     "summary percentiles (FCT, slowdowns) from every value or\n"
     "from fixed-size histograms within 0.1% (memory independent of the messages)", 0},
    {OPT_STREAM, {"--stream"}, 1, "on|off", O, NULL, "on for --workload poisson, off otherwise",
     "write flows.csv rows as messages finish and recycle finished flows' memory;\nsame output either way", 0},
    {OPT_TS, {"--ts-flows"}, 1, "LIST|all", O, NULL, NULL,
     "time series of these flows (flows.csv flow_id; e.g. 0,3,8-15): window or\n"
     "rate, RTT, delivered and in-flight bytes -> ts_flows.csv (needs --out)", 0},
    {OPT_TS, {"--ts-ports"}, 1, "LIST|all", O, NULL, NULL,
     "time series of these ports' queues (queues.csv port) -> ts_ports.csv", 0},
    {OPT_TS, {"--ts-hosts"}, 1, "LIST|all", O, NULL, NULL,
     "time series of these hosts' delivered bytes and goodput -> ts_hosts.csv", 0},
    {OPT_TS, {"--ts-interval"}, 1, "US|change", O, "us", "the base RTT", "sample every US, or at every change", 0},
    {OPT_TS, {"--ts-window"}, 1, "START:END", O, "us", "the whole run", "time series only between START and END us", 0},
    {OPT_TS, {"--ts-max-mb"}, 1, "MB", O, "MB", "512", "refuse a time series estimated above MB megabytes", 0},

    /* ---- the run itself ---- */
    {OPT_PROGRESS, {"--progress"}, 0, NULL, R, NULL, "on",
     "progress on stderr: a line redrawn every second on a\nterminal, else a whole line every 5 s (batch logs)", 0},
    {OPT_NO_PROGRESS, {"--no-progress"}, 0, NULL, R, NULL, NULL, "no progress on stderr", 0},
    {OPT_PROGRESS_EVERY, {"--progress-every"}, 1, "S", R, "s", NULL, "seconds between progress reports (0.01..86400)",
     0},
    {OPT_QUIET, {"--quiet"}, 0, NULL, R, NULL, NULL, "no summary on stdout", 0},
    {OPT_CHECK, {"--check"}, 0, NULL, R, NULL, NULL,
     "validate the flags and read the input files as a run would, then\n"
     "exit 0 without running (or the run's one-line error, exit 2)", 0},
    {OPT_VERSION, {"--version"}, 0, NULL, R, NULL, NULL, "print the version and the git commit, and exit", 0},
    {OPT_HELP, {"-h", "-help", "--help"}, 0, NULL, R, NULL, NULL, "print this list of flags and exit", 0},
    {OPT_HELP_FORMAT, {"--help-format"}, 1, "text|markdown|man", R, NULL, NULL,
     "print the list of flags as --help does (text), as the reference docs/flags.md\n"
     "(markdown) or as the man page man/spraysim.1 (man), and exit", 0},
};

#undef H
#undef HC
#undef W
#undef M
#undef O
#undef R

const struct option_spec *option_table(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

static const struct option_spec *find_in(const struct option_spec *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < OPT_MAX_NAMES && t[i].names[k]; k++)
            if (!strcmp(t[i].names[k], name))
                return &t[i];
    return NULL;
}

const struct option_spec *option_find(const char *name)
{
    return find_in(table, sizeof table / sizeof table[0], name);
}

bool option_table_check_entries(const struct option_spec *t, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        const struct option_spec *o = &t[i];
        if (!o->names[0]) {
            snprintf(err, errlen, "option table: entry %zu has no name", i);
            return false;
        }
        const char *first = o->names[0];
        if (!o->help || !o->help[0]) {
            snprintf(err, errlen, "option table: %s has no help text", first);
            return false;
        }
        if (o->n_args > 2 || (o->n_args > 0) != (o->args != NULL && o->args[0] != '\0')) {
            snprintf(err, errlen, "option table: %s takes %u values but its syntax is '%s'", first, o->n_args,
                     o->args ? o->args : "");
            return false;
        }
        if ((unsigned)o->group >= OPT_GROUP_COUNT) {
            snprintf(err, errlen, "option table: %s has no group", first);
            return false;
        }
        for (unsigned k = 0; k < OPT_MAX_NAMES && o->names[k]; k++) {
            const char *nm = o->names[k];
            if (nm[0] != '-' || !nm[1] || strchr(nm, '=') || strchr(nm, ' ') || strlen(nm) >= 64) {
                snprintf(err, errlen, "option table: '%s' is no flag name", nm);
                return false;
            }
            if (find_in(t, n, nm) != o) {
                snprintf(err, errlen, "option table: %s has two entries", nm);
                return false;
            }
            for (unsigned j = 0; j < k; j++)
                if (!strcmp(o->names[j], nm)) {
                    snprintf(err, errlen, "option table: %s is named twice in its entry", nm);
                    return false;
                }
            if (transport_flag_find(nm)) {
                snprintf(err, errlen, "option table: %s is also a transport's or balancer's flag", nm);
                return false;
            }
            /* the time series' flags are parsed by timeseries.c: both must know them */
            if ((o->id == OPT_TS) != ts_is_flag(nm)) {
                snprintf(err, errlen, "option table: %s and src/metrics/timeseries.c disagree on it", nm);
                return false;
            }
        }
    }
    return true;
}

bool option_table_check(char *err, size_t errlen)
{
    return option_table_check_entries(table, sizeof table / sizeof table[0], err, errlen);
}

/* ---- rendering ------------------------------------------------------------------------ */

static const char *const group_title[OPT_GROUP_COUNT] = {
    [OPT_GROUP_HTSIM] = "Reference-simulator flags (same meaning and units as htsim_uec)",
    [OPT_GROUP_HTSIM_COMPAT] = "The rest of htsim_uec's flags (an equivalent, a warning, or exit 2 as not modelled)",
    [OPT_GROUP_WORKLOAD] = "Workloads",
    [OPT_GROUP_MODEL] = "Transport, congestion control, balancing, switches, failures",
    [OPT_GROUP_OUTPUT] = "Outputs",
    [OPT_GROUP_RUN] = "The run",
};

static const char *list_of(enum opt_list l)
{
    switch (l) {
    case OPT_LIST_TRANSPORTS:
        return transport_names();
    case OPT_LIST_CCS:
        return cc_names();
    case OPT_LIST_LBS:
        return lb_names();
    case OPT_LIST_NONE:
        break;
    }
    return NULL;
}

/* "-seed, --seed S": every name, then the values' syntax once */
static void head_of(const struct option_spec *o, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < OPT_MAX_NAMES && o->names[k]; k++)
        used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s", k ? ", " : "", o->names[k]);
    if (o->n_args && used < n)
        snprintf(buf + used, n - used, " %s", o->args);
}

/* One --help entry: the help's lines indented to column 24, the registry
 * list and the default after its last line. The default moves to a line of
 * its own when it would end past column 100, unless a list precedes it
 * (tests/contract_test.sh reads "--transport NAME ...: LIST (default" as
 * one line). */
#define HELP_COLUMN 24
#define HELP_WIDTH 100
static void text_entry(FILE *out, const char *head, const char *help, const char *list, const char *dflt)
{
    size_t col;
    if (strlen(head) < HELP_COLUMN - 2)
        col = (size_t)fprintf(out, "  %-22s", head);
    else
        col = (size_t)fprintf(out, "  %s  ", head);
    for (const char *p = help; *p; p++) {
        fputc(*p, out);
        col++;
        if (*p == '\n')
            col = (size_t)fprintf(out, "%*s", HELP_COLUMN, "");
    }
    if (list)
        col += (size_t)fprintf(out, " %s", list);
    if (dflt) {
        if (!list && col + strlen(" (default )") + strlen(dflt) > HELP_WIDTH)
            fprintf(out, "\n%*s(default %s)", HELP_COLUMN, "", dflt);
        else
            fprintf(out, " (default %s)", dflt);
    }
    fputc('\n', out);
}

static void help_text(FILE *out)
{
    size_t n;
    const struct option_spec *t = option_table(&n);
    fputs("usage: spraysim -tm FILE [options]\n"
          "       spraysim --workload KIND:NAME=VALUE,... [options]\n"
          "\n"
          "Packet-level simulator of datacenter fabrics: Ultra Ethernet's NSCC and the\n"
          "congestion controls it is measured against, packet spraying (REPS, Bitmap,\n"
          "Mixed, oblivious), trimming, SLEEK, failures, on fat trees and leaf-spines.\n"
          "Native flags take --flag VALUE or --flag=VALUE.\n",
          out);
    for (int g = 0; g < OPT_GROUP_COUNT; g++) {
        fprintf(out, "\n%s:\n", group_title[g]);
        for (size_t i = 0; i < n; i++) {
            if ((int)t[i].group != g)
                continue;
            char head[96];
            head_of(&t[i], head, sizeof head);
            text_entry(out, head, t[i].help, list_of(t[i].list), t[i].dflt);
        }
    }
    transport_flags_usage(out);
}

/* ---- markdown (docs/flags.md) ---- */

/* s as a table cell's text: '|' escaped, --help's line breaks joined */
static void md_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else if (*s == '\n')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
}

/* s in a code span of a table cell ('|' escaped, as tables need inside one too) */
static void md_code(FILE *out, const char *s)
{
    fputc('`', out);
    md_text(out, s);
    fputc('`', out);
}

static void md_owned_flags(FILE *out, const char *what, const char *name, const char *desc,
                           const struct transport_flag *flags, unsigned n)
{
    if (!n)
        return;
    fprintf(out, "\n### %s %s\n\n", what, name);
    md_text(out, desc);
    fputs("\n\n| Flag | Value | Repeatable | Meaning |\n|---|---|---|---|\n", out);
    for (unsigned k = 0; k < n; k++) {
        fputs("| ", out);
        md_code(out, flags[k].name);
        fputs(" | ", out);
        if (flags[k].n_args)
            md_code(out, flags[k].args);
        fprintf(out, " | %s | ", flags[k].repeats ? "yes" : "no (the last one counts)");
        md_text(out, flags[k].help);
        fputs(" |\n", out);
    }
}

static void help_markdown(FILE *out)
{
    size_t n;
    const struct option_spec *t = option_table(&n);
    fputs("<!-- Generated by `spraysim --help-format=markdown` (`make docs`) from the option table\n"
          "     src/cli/option_table.c and the registries of transports, algorithms, balancers and\n"
          "     workloads. Do not edit: tests/docs_test.sh fails when this file differs. -->\n",
          out);
    fprintf(out, "# spraysim command-line flags\n\n"
                 "The complete flag reference of spraysim %s, generated from the table the parser reads, "
                 "so it lists exactly the flags the binary accepts (`spraysim --help` prints the same; "
                 "`man -l man/spraysim.1` is the man page).\n\n",
            spraysim_version);
    fputs("    spraysim -tm FILE [options]\n"
          "    spraysim --workload KIND:NAME=VALUE,... [options]\n\n"
          "Single-dash flags are the reference simulator's (htsim_uec), with its meanings and units, so its "
          "scripts run unchanged. Native flags take `--flag VALUE` or `--flag=VALUE`. A bad flag or value is "
          "one line naming the flag and exit status 2.\n",
          out);
    for (int g = 0; g < OPT_GROUP_COUNT; g++) {
        fprintf(out, "\n## %s\n\n| Flag | Value | Units | Default | Meaning |\n|---|---|---|---|---|\n",
                group_title[g]);
        for (size_t i = 0; i < n; i++) {
            if ((int)t[i].group != g)
                continue;
            fputs("| ", out);
            for (unsigned k = 0; k < OPT_MAX_NAMES && t[i].names[k]; k++) {
                fputs(k ? ", " : "", out);
                md_code(out, t[i].names[k]);
            }
            fputs(" | ", out);
            if (t[i].n_args)
                md_code(out, t[i].args);
            fputs(" | ", out);
            md_text(out, t[i].units ? t[i].units : "");
            fputs(" | ", out);
            md_text(out, t[i].dflt ? t[i].dflt : "");
            fputs(" | ", out);
            md_text(out, t[i].help);
            const char *list = list_of(t[i].list);
            if (list) {
                fputc(' ', out);
                md_text(out, list);
            }
            fputs(" |\n", out);
        }
    }

    size_t ntp, nlb, ncc;
    const struct transport_ops *const *tps = transport_registry(&ntp);
    const struct lb_ops *const *lbs = lb_registry(&nlb);
    const struct cc_ops *const *ccs = cc_registry(&ncc);
    fputs("\n## Flags of transports and balancers\n\n"
          "Each transport and load balancer owns its flags (read only by its connections); a flag no "
          "connection's transport or balancer reads is refused.\n",
          out);
    for (size_t j = 0; j < ntp; j++)
        md_owned_flags(out, "--transport", tps[j]->name, tps[j]->description, tps[j]->flags, tps[j]->n_flags);
    for (size_t j = 0; j < nlb; j++)
        md_owned_flags(out, "--lb", lbs[j]->name, lbs[j]->description, lbs[j]->flags, lbs[j]->n_flags);

    fputs("\n## Transports (`--transport NAME`, .cm key `transport NAME`)\n\n| Name | What it is |\n|---|---|\n", out);
    for (size_t j = 0; j < ntp; j++) {
        fputs("| ", out);
        md_code(out, tps[j]->name);
        fputs(" | ", out);
        md_text(out, tps[j]->description);
        fputs(" |\n", out);
    }
    fputs("\n## Congestion controls (`--cc NAME`) and their options (`--cc-opt NAME=VALUE`)\n\n"
          "Rate-based algorithms (rate) run on RoCE connections (`--transport roce`); the others are "
          "window algorithms (window). Each option's default and source are in the algorithm's file "
          "under src/cc or src/transport.\n\n"
          "| Name | Kind | `--cc-opt` names | What it is |\n|---|---|---|---|\n",
          out);
    for (size_t j = 0; j < ncc; j++) {
        fputs("| ", out);
        md_code(out, ccs[j]->name);
        fprintf(out, " | %s | ", ccs[j]->rate_based ? "rate" : "window");
        for (const char *const *o = ccs[j]->option_names; o && *o; o++) {
            fputs(o == ccs[j]->option_names ? "" : ", ", out);
            md_code(out, *o);
        }
        fputs(" | ", out);
        md_text(out, ccs[j]->description);
        fputs(" |\n", out);
    }
    fputs("\n## Load balancers (`--lb NAME`, .cm key `lb NAME`)\n\n| Name | What it is |\n|---|---|\n", out);
    for (size_t j = 0; j < nlb; j++) {
        fputs("| ", out);
        md_code(out, lbs[j]->name);
        if (!strcmp(lbs[j]->name, "single"))
            fputs(" (alias `ecmp`)", out);
        fputs(" | ", out);
        md_text(out, lbs[j]->description);
        fputs(" |\n", out);
    }
    fputs("\n## Workload kinds (`--workload KIND:NAME=VALUE,...`)\n\n| Kind | Parameters |\n|---|---|\n", out);
    const char *params;
    for (unsigned k = 0; gen_kind_info(k, &params); k++) {
        fputs("| ", out);
        md_code(out, gen_kind_info(k, &params));
        fputs(" | ", out);
        md_text(out, params);
        fputs(" |\n", out);
    }
    fputs("| `poisson` | ", out);
    md_text(out, poisson_param_names());
    fputs(" |\n", out);
}

/* ---- man page (man/spraysim.1) ---- */

/* s as troff text: backslashes and dashes escaped, --help's line breaks
 * joined; a leading '.' or '\'' cannot start a request (\&). */
static void man_text(FILE *out, const char *s)
{
    fputs("\\&", out);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else if (*s == '\n')
            fputc(' ', out);
        else if (*s == ',' && s[1] && s[1] != ' ')
            fputs(",\\:", out); /* a place to break a long spec (\: prints nothing) */
        else
            fputc(*s, out);
    }
}

static void man_bold(FILE *out, const char *s)
{
    fputs("\\fB", out);
    man_text(out, s);
    fputs("\\fR", out);
}

static void man_italic(FILE *out, const char *s)
{
    fputs("\\fI", out);
    man_text(out, s);
    fputs("\\fR", out);
}

static void man_owned_flags(FILE *out, const char *what, const char *name, const struct transport_flag *flags,
                            unsigned n)
{
    if (!n)
        return;
    fputs(".SS \"", out);
    man_text(out, what);
    fputc(' ', out);
    man_text(out, name);
    fputs("\"\n", out);
    for (unsigned k = 0; k < n; k++) {
        fputs(".TP\n", out);
        man_bold(out, flags[k].name);
        if (flags[k].n_args) {
            fputc(' ', out);
            man_italic(out, flags[k].args);
        }
        fputc('\n', out);
        man_text(out, flags[k].help);
        fputc('\n', out);
    }
}

static void help_man(FILE *out)
{
    size_t n;
    const struct option_spec *t = option_table(&n);
    fputs(".\\\" Generated by `spraysim --help-format=man` (`make docs`) from the option table\n"
          ".\\\" src/cli/option_table.c and the registries. Do not edit: tests/docs_test.sh\n"
          ".\\\" fails when this file differs.\n",
          out);
    fprintf(out, ".TH SPRAYSIM 1 \"\" \"spraysim %s\" \"User Commands\"\n", spraysim_version);
    /* no hyphenation or justification: flag names and specs stay whole */
    fputs(".nh\n"
          ".ad l\n"
          ".SH NAME\n"
          "spraysim \\- packet\\-level simulator of datacenter fabrics\n"
          ".SH SYNOPSIS\n"
          ".B spraysim\n"
          "\\fB\\-tm\\fR \\fIFILE\\fR [\\fIoptions\\fR]\n"
          ".br\n"
          ".B spraysim\n"
          "\\fB\\-\\-workload\\fR \\fIKIND\\fR:\\fINAME\\fR=\\fIVALUE\\fR,... [\\fIoptions\\fR]\n"
          ".SH DESCRIPTION\n"
          "Packet\\-level simulator of datacenter fabrics: Ultra Ethernet's NSCC and the congestion controls "
          "it is measured against, packet spraying (REPS, Bitmap, Mixed, oblivious), trimming, SLEEK, failures, "
          "on fat trees and leaf\\-spines.\n"
          ".PP\n"
          "Single\\-dash flags are the reference simulator's (htsim_uec), with its meanings and units. Native "
          "flags take \\fB\\-\\-flag\\fR \\fIVALUE\\fR or \\fB\\-\\-flag\\fR=\\fIVALUE\\fR.\n"
          ".SH OPTIONS\n",
          out);
    for (int g = 0; g < OPT_GROUP_COUNT; g++) {
        fputs(".SS \"", out);
        man_text(out, group_title[g]);
        fputs("\"\n", out);
        for (size_t i = 0; i < n; i++) {
            if ((int)t[i].group != g)
                continue;
            fputs(".TP\n", out);
            for (unsigned k = 0; k < OPT_MAX_NAMES && t[i].names[k]; k++) {
                fputs(k ? ", " : "", out);
                man_bold(out, t[i].names[k]);
            }
            if (t[i].n_args) {
                fputc(' ', out);
                man_italic(out, t[i].args);
            }
            fputc('\n', out);
            man_text(out, t[i].help);
            const char *list = list_of(t[i].list);
            if (list) {
                fputc(' ', out);
                man_text(out, list);
            }
            fputc('\n', out);
            if (t[i].units || t[i].dflt)
                fputs(".br\n", out);
            if (t[i].units) {
                fputs("Units: ", out);
                man_text(out, t[i].units);
                fputs(t[i].dflt ? ". " : ".\n", out);
            }
            if (t[i].dflt) {
                fputs("Default: ", out);
                man_text(out, t[i].dflt);
                fputs(".\n", out);
            }
        }
    }
    size_t ntp, nlb, ncc;
    const struct transport_ops *const *tps = transport_registry(&ntp);
    const struct lb_ops *const *lbs = lb_registry(&nlb);
    const struct cc_ops *const *ccs = cc_registry(&ncc);
    fputs(".SH \"TRANSPORT AND BALANCER FLAGS\"\n"
          "Read only by the connections of the transport or balancer that owns them.\n",
          out);
    for (size_t j = 0; j < ntp; j++)
        man_owned_flags(out, "--transport", tps[j]->name, tps[j]->flags, tps[j]->n_flags);
    for (size_t j = 0; j < nlb; j++)
        man_owned_flags(out, "--lb", lbs[j]->name, lbs[j]->flags, lbs[j]->n_flags);
    fputs(".SH TRANSPORTS\n", out);
    for (size_t j = 0; j < ntp; j++) {
        fputs(".TP\n", out);
        man_bold(out, tps[j]->name);
        fputc('\n', out);
        man_text(out, tps[j]->description);
        fputc('\n', out);
    }
    fputs(".SH \"CONGESTION CONTROLS\"\n", out);
    for (size_t j = 0; j < ncc; j++) {
        fputs(".TP\n", out);
        man_bold(out, ccs[j]->name);
        fputc('\n', out);
        man_text(out, ccs[j]->description);
        fputs(ccs[j]->rate_based ? " (rate\\-based: RoCE)" : "", out);
        if (ccs[j]->option_names && ccs[j]->option_names[0]) {
            fputs(". \\fB\\-\\-cc\\-opt\\fR names:", out);
            for (const char *const *o = ccs[j]->option_names; *o; o++) {
                fputs(o == ccs[j]->option_names ? " " : ", ", out);
                man_italic(out, *o);
            }
        }
        fputc('\n', out);
    }
    fputs(".SH \"LOAD BALANCERS\"\n", out);
    for (size_t j = 0; j < nlb; j++) {
        fputs(".TP\n", out);
        man_bold(out, lbs[j]->name);
        if (!strcmp(lbs[j]->name, "single"))
            fputs(" (alias \\fBecmp\\fR)", out);
        fputc('\n', out);
        man_text(out, lbs[j]->description);
        fputc('\n', out);
    }
    fputs(".SH WORKLOADS\n"
          "\\fB\\-\\-workload\\fR \\fIKIND\\fR:\\fINAME\\fR=\\fIVALUE\\fR,... with these kinds and parameters:\n",
          out);
    const char *params;
    for (unsigned k = 0; gen_kind_info(k, &params); k++) {
        fputs(".TP\n", out);
        man_bold(out, gen_kind_info(k, &params));
        fputc('\n', out);
        man_text(out, params);
        fputc('\n', out);
    }
    fputs(".TP\n\\fBpoisson\\fR\n", out);
    man_text(out, poisson_param_names());
    fputc('\n', out);
    fputs(".SH \"EXIT STATUS\"\n"
          ".TP\n0\nthe run (or \\fB\\-\\-check\\fR, \\fB\\-\\-help\\fR, \\fB\\-\\-version\\fR) succeeded\n"
          ".TP\n1\nan internal error (a bug) or a failed write\n"
          ".TP\n2\nbad input: one line on stderr naming the flag, or the file and line\n"
          ".SH \"SEE ALSO\"\n"
          "docs/flags.md (this reference in markdown) and the manual under docs/ in the source tree.\n",
          out);
}

void option_help(FILE *out, enum help_format fmt)
{
    switch (fmt) {
    case HELP_TEXT:
        help_text(out);
        break;
    case HELP_MARKDOWN:
        help_markdown(out);
        break;
    case HELP_MAN:
        help_man(out);
        break;
    }
}
