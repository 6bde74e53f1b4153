/* options.c: the command line. Accepts the reference simulator's single-dash
 * flags with that simulator's meanings and units (so existing experiment
 * scripts run unchanged) and native long flags (`--flag value` or
 * `--flag=value`). Every number goes through the one strict parser of
 * src/core/parse.c, as numbers in files do. Every bad flag or value is one
 * line naming the flag; nothing here exits, so the same function serves
 * main, the tests and the fuzz harness.
 */
#include "options.h"
#include "option_table.h"

#include "../cc/cc.h"
#include "../core/parse.h"
#include "../lb/lb.h"
#include "../transport/transport.h"
#include "../workload/gen.h"
#include "../workload/poisson.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void options_usage(FILE *out)
{
    option_help(out, HELP_TEXT);
}

struct parse_ctx {
    char *err;
    size_t errlen;
    bool failed;
};

__attribute__((format(printf, 2, 3)))
static void bad(struct parse_ctx *x, const char *fmt, ...)
{
    if (x->failed)
        return; /* the first problem is the one reported */
    x->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, x->errlen, fmt, ap);
    va_end(ap);
}

static uint64_t get_uint(struct parse_ctx *x, const char *flag, const char *v, uint64_t min, uint64_t max)
{
    char b[SHOWN_BUF];
    uint64_t u = 0;
    enum num_status st = parse_u64(v, &u);
    if (st == NUM_BAD)
        bad(x, "%s: '%s' is not a non-negative whole number", flag, shown(v, b));
    else if (st == NUM_RANGE || u < min || u > max)
        bad(x, "%s: '%s' is out of range (%llu to %llu)", flag, shown(v, b), (unsigned long long)min,
            (unsigned long long)max);
    else
        return u;
    return min;
}

static double get_real(struct parse_ctx *x, const char *flag, const char *v, double min, double max)
{
    char b[SHOWN_BUF];
    double d = 0;
    enum num_status st = parse_real(v, &d);
    if (st == NUM_BAD)
        bad(x, "%s: '%s' is not a number", flag, shown(v, b));
    else if (st == NUM_RANGE || d < min || d > max)
        bad(x, "%s: '%s' is out of range (%g to %g)", flag, shown(v, b), min, max);
    else
        return d;
    return min;
}

static simtime_ps us_to_ps(double us)
{
    return (simtime_ps)llround(us * (double)PS_PER_US);
}

void options_free(struct config *cfg)
{
    for (unsigned i = 0; i < cfg->n_cc_opts; i++)
        free((char *)cfg->cc_opts[i].name);
    cfg->n_cc_opts = 0;
    ts_config_free(&cfg->ts);
}

/* --class-opt K:NAME=VALUE: an option of extra data class K (2..7). A
 * repeated (K, NAME) replaces the earlier value. */
static void parse_class_opt(struct parse_ctx *x, struct config *cfg, const char *v)
{
    char b[SHOWN_BUF];
    static const struct {
        const char *name;
        double max;
    } names[] = {
        {"queue_bytes", QUEUE_INFINITE_BYTES}, {"ecn_kmin_bytes", QUEUE_INFINITE_BYTES},
        {"ecn_kmax_bytes", QUEUE_INFINITE_BYTES}, {"trim", 1}, {"ecn", 1}, {"lossless", 1},
    };
    const char *colon = strchr(v, ':'), *eqs = colon ? strchr(colon, '=') : NULL;
    if (!colon || !eqs || eqs == colon + 1) {
        bad(x, "--class-opt: '%s' is not K:NAME=VALUE", shown(v, b));
        return;
    }
    char num[16];
    size_t nl = (size_t)(colon - v);
    if (nl == 0 || nl >= sizeof num) {
        bad(x, "--class-opt: '%s' does not start with a class number", shown(v, b));
        return;
    }
    memcpy(num, v, nl);
    num[nl] = '\0';
    uint32_t cls = (uint32_t)get_uint(x, "--class-opt (class)", num, 2, PORT_MAX_CLASSES - 1);
    size_t namelen = (size_t)(eqs - colon - 1);
    int which = -1;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strlen(names[i].name) == namelen && !strncmp(names[i].name, colon + 1, namelen))
            which = i;
    if (which < 0) {
        bad(x, "--class-opt: '%s' names no class option (queue_bytes, ecn_kmin_bytes, ecn_kmax_bytes, trim, ecn, lossless)",
            shown(v, b));
        return;
    }
    double value = (double)get_uint(x, "--class-opt (value)", eqs + 1, 0, (uint64_t)names[which].max);
    if (x->failed)
        return;
    unsigned k = 0;
    while (k < cfg->n_class_opts && !(cfg->class_opts[k].cls == cls && !strcmp(cfg->class_opts[k].name, names[which].name)))
        k++;
    if (k == cfg->n_class_opts) {
        if (k == sizeof cfg->class_opts / sizeof cfg->class_opts[0]) {
            bad(x, "--class-opt: at most %zu options", sizeof cfg->class_opts / sizeof cfg->class_opts[0]);
            return;
        }
        cfg->n_class_opts++;
        cfg->class_opts[k].cls = cls;
        snprintf(cfg->class_opts[k].name, sizeof cfg->class_opts[k].name, "%s", names[which].name);
    }
    cfg->class_opts[k].value = value;
}

/* Flags whose value has a default, so the configuration alone cannot tell
 * whether the user gave them: check_combinations() refuses those the run
 * would ignore. */
struct given {
    bool tiers, hop_latency, switch_latency; /* the default tree's: a .topo file gives its own */
    bool pfc_thresholds, pfc_deadlock;       /* PFC's */
    bool drr_quantum;                        /* DRR's (--sched drr, class-drr) */
    bool ar_quantum;                         /* adaptive routing's (--routing ar) */
    bool ar_bands;                           /* --ar-quantum bands */
};

/* "did you mean": the flag nearest to a mistyped one, among every name of
 * the option table and of the transports' and balancers' flag tables, in
 * --help's order (the first of equally near names wins). Names are
 * compared without their dashes, '-' and '_' alike and case ignored
 * (htsim's -sender_cc_only against --sender-cc-only), by edit distance: at
 * most 1 for names of up to 4 letters, 2 beyond, so a suggestion is a
 * likely typo, not a guess. */
static void normalise_flag(const char *in, char *out, size_t n)
{
    while (*in == '-')
        in++;
    size_t k = 0;
    for (; *in && *in != '=' && k + 1 < n; in++)
        out[k++] = *in == '-' ? '_' : (char)tolower((unsigned char)*in);
    out[k] = '\0';
}

static unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return UINT32_MAX;
    unsigned row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* Leading dashes: 1 for htsim's flags, 2 for native ones. */
static size_t dashes(const char *name)
{
    return strspn(name, "-");
}

/* The name nearer to want than *best so far replaces it; of two as near,
 * the one spelt with as many dashes as the mistyped arg (-outx: -out, not
 * its alias --out). */
static void consider(const char *arg, const char *want, const char *name, unsigned *best, const char **best_name)
{
    char norm[64];
    normalise_flag(name, norm, sizeof norm);
    unsigned d = edit_distance(want, norm);
    if (d < *best || (d == *best && *best_name && dashes(name) == dashes(arg) && dashes(*best_name) != dashes(arg))) {
        *best = d;
        *best_name = name;
    }
}

/* Writes "; did you mean X?" into out (empty when nothing is near). */
static void suggest_flag(const char *arg, char *out, size_t n)
{
    out[0] = '\0';
    char want[64];
    normalise_flag(arg, want, sizeof want);
    size_t wl = strlen(want);
    unsigned limit = wl <= 4 ? 1 : 2, best = UINT32_MAX;
    const char *best_name = NULL;
    size_t nt;
    const struct option_spec *t = option_table(&nt);
    for (int g = 0; g < OPT_GROUP_COUNT; g++) /* --help's order: group by group */
        for (size_t i = 0; i < nt; i++)
            for (unsigned k = 0; (int)t[i].group == g && k < OPT_MAX_NAMES && t[i].names[k]; k++)
                consider(arg, want, t[i].names[k], &best, &best_name);
    size_t ntp, nlb;
    const struct transport_ops *const *tps = transport_registry(&ntp);
    for (size_t j = 0; j < ntp; j++)
        for (unsigned k = 0; k < tps[j]->n_flags; k++)
            consider(arg, want, tps[j]->flags[k].name, &best, &best_name);
    const struct lb_ops *const *lbs = lb_registry(&nlb);
    for (size_t j = 0; j < nlb; j++)
        for (unsigned k = 0; k < lbs[j]->n_flags; k++)
            consider(arg, want, lbs[j]->flags[k].name, &best, &best_name);
    if (best_name && best <= limit && strcmp(best_name, arg))
        snprintf(out, n, "; did you mean %s?", best_name);
}

/* One class's --class-opt values; a NaN is an option not given. */
static double class_opt_of(const struct config *cfg, uint32_t cls, const char *name)
{
    for (unsigned k = 0; k < cfg->n_class_opts; k++)
        if (cfg->class_opts[k].cls == cls && !strcmp(cfg->class_opts[k].name, name))
            return cfg->class_opts[k].value;
    return NAN;
}

/* The cross-option checks, all in one place: options that contradict each
 * other, and options this run would ignore. Both are refused with one line
 * naming the flags, so a setting that took no effect never passes for one
 * that did. What needs the matrix, the topology or a transport's resolved
 * mode is checked where that is known: -ecn and --class-opt against the
 * BDP's queue in sim_setup, --cc without a sender window in the
 * transports' setups, an option no connection's transport or balancer
 * reads (-sleek, -cwnd, -sender_cc, --reps-buffer, ...) in transport_setup, --sird-opt and --homa-opt values in their transports' setups.
 * Runs after the rate-control names are mapped (--cc timely is -timely). */
static void check_combinations(struct parse_ctx *x, const struct config *cfg, const struct given *g)
{
    if ((cfg->tm_path != NULL) + (cfg->workload_spec != NULL) + (cfg->goal_path != NULL) > 1)
        bad(x, "%s and %s both give the workload: give one of them", cfg->tm_path ? "-tm" : "--workload",
            cfg->goal_path ? "--goal" : "--workload");
    if (!cfg->tm_path && !cfg->workload_spec && !cfg->goal_path)
        bad(x, "no connection matrix: give -tm FILE or --workload SPEC (or --goal FILE, a GOAL schedule; see --help)");
    if (!cfg->goal_path && (cfg->goal_map_path || cfg->goal_ops))
        bad(x, "%s: only with --goal FILE", cfg->goal_map_path ? "--goal-map" : "--goal-ops");
    if (!cfg->goal_path && cfg->goal_send_done)
        bad(x, "--goal-send-done path: only with --goal FILE");
    if (cfg->goal_path && cfg->write_cm_path)
        bad(x, "--write-cm: a GOAL schedule's messages start when their dependencies are met, which a .cm file "
               "cannot say");
    if (cfg->mtu_bytes <= cfg->hdr_bytes)
        bad(x, "-mtu %u must exceed the %u-byte header", cfg->mtu_bytes, cfg->hdr_bytes);
    /* the default tree's shape and latencies; a .topo file gives its own */
    if (cfg->topo_path && (g->tiers || g->hop_latency || g->switch_latency))
        bad(x, "%s: only for the default fat tree; -topo %s gives its own tiers and latencies",
            g->tiers ? "-tiers" : g->hop_latency ? "-hop_latency" : "-switch_latency", cfg->topo_path);
    /* PFC: on with RoCE unless --pfc off, with --pfc on, or for a lossless
     * class (sim_setup's rule) */
    bool lossless = false;
    for (unsigned k = 0; k < cfg->n_class_opts; k++)
        lossless |= !strcmp(cfg->class_opts[k].name, "lossless") && cfg->class_opts[k].value != 0;
    const struct transport_ops *run_tp = transport_find(cfg->transport_name);
    bool pfc = cfg->pfc_flag == 1 || (cfg->pfc_flag == -1 && run_tp && run_tp->lossless) || lossless;
    if (!pfc && (g->pfc_thresholds || g->pfc_deadlock))
        bad(x, "%s: PFC is off in this run (on with --transport roce, --pfc on or --class-opt K:lossless=1)",
            g->pfc_thresholds ? "-pfc_thresholds" : "--pfc-deadlock-us");
    if (cfg->ar_method != AR_BY_QUEUE && cfg->routing != ROUTE_AR)
        warn_input("-ar_method: has no effect without adaptive routing (-strat ecmp_ar or --routing ar)");
    else if (cfg->ar_method != AR_BY_QUEUE && !pfc)
        warn_input("-ar_method %s: PFC is off in this run, so no port is ever paused (on with --transport roce, "
                   "--pfc on or --class-opt K:lossless=1)", cfg->ar_method == AR_BY_PAUSE ? "pause" : "pq");
    if (g->drr_quantum && !cfg->drr && !cfg->class_drr)
        bad(x, "--drr-quantum: the quantum of DRR; add --sched drr or --sched class-drr");
    if (g->ar_quantum && cfg->routing != ROUTE_AR)
        bad(x, "--ar-quantum: the unit adaptive routing compares queues in; add --routing ar");
    /* --class-opt, one class at a time (a pair with one side left at class
     * 1's default is checked in sim_setup) */
    for (uint32_t k = 2; k < PORT_MAX_CLASSES; k++) {
        double q = class_opt_of(cfg, k, "queue_bytes"), kmin = class_opt_of(cfg, k, "ecn_kmin_bytes");
        double kmax = class_opt_of(cfg, k, "ecn_kmax_bytes"), trim = class_opt_of(cfg, k, "trim");
        double ecn = class_opt_of(cfg, k, "ecn"), ll = class_opt_of(cfg, k, "lossless");
        if (kmin > kmax) /* false when either is NaN */
            bad(x, "--class-opt %u:ecn_kmin_bytes=%.0f exceeds %u:ecn_kmax_bytes=%.0f", k, kmin, k, kmax);
        if (ecn == 0 && (!isnan(kmin) || !isnan(kmax)))
            bad(x, "--class-opt %u:%s: class %u marks no ECN (%u:ecn=0)", k,
                isnan(kmin) ? "ecn_kmax_bytes" : "ecn_kmin_bytes", k, k);
        if (ll == 1 && !isnan(q))
            bad(x, "--class-opt %u:queue_bytes: class %u is lossless (%u:lossless=1): PFC holds it back, it has no limit",
                k, k, k);
        if (ll == 1 && trim == 1)
            bad(x, "--class-opt %u:trim=1 and %u:lossless=1: a lossless class never trims", k, k);
        if (ll != 1 && kmax > q)
            bad(x, "--class-opt %u:ecn_kmax_bytes=%.0f exceeds %u:queue_bytes=%.0f: the queue would overflow first", k,
                kmax, k, q);
    }
}

/* The rest of htsim_uec's command line (its main_uec.cpp, uet-htsim
 * 40ccb05, and the usage text of the htsim binaries), so a script written
 * for the reference runs unchanged or is told, in one line, why not:
 *  - flags with a spraysim equivalent or model set it (-strat ecmp_ar is
 *    -paths 1 --routing ar; -log switch is --switch-stats; -trimsize sets
 *    the trimmed header's size; -ar_granularity flow, -ar_sticky_delta and
 *    -ar_method pause|pq are adaptive routing's, fabric.c; -disable_fd is
 *    SMaRTT's fd = 0; -enable_qa_gate NSCC's default gate); -path_burst is
 *    not here: it is the oblivious balancer's own flag (lb/oblivious.c);
 *  - flags about htsim's own log file (-o, most -log kinds, -logtime)
 *    warn naming the output that replaces it;
 *  - values the reference has and spraysim does not model (multi-plane
 *    NICs, utilisation-based adaptive routing, ECN-FIFO and Aeolus queues,
 *    the priority and Swift host queues, htsim_tcp's -conns, -pcie) exit 2
 *    "FLAG VALUE: not modelled (reason)", never "unknown flag".
 * The caller has taken the value of those that take one (v; NULL for
 * those that take none). */
static void parse_htsim_flag(struct parse_ctx *x, struct config *cfg, enum opt_id id, const char *arg, const char *v)
{
    char b[SHOWN_BUF];
    if (id == OPT_O) {
        warn_input("-o %s: htsim's binary event log is not written; spraysim writes flows.csv, queues.csv and "
                   "summary.json (--out DIR) and time series with --ts-* (docs/outputs.md)", shown(v, b));
    } else if (id == OPT_STRAT) {
        /* htsim_uec: ecmp_host is its default (hash of flow and path id);
         * ecmp_ar one path and switch-side adaptive routing on queue size */
        if (!strcmp(v, "ecmp_host")) {
        } else if (!strcmp(v, "ecmp_ar")) {
            cfg->paths = 1;
            cfg->paths_given = true;
            cfg->routing = ROUTE_AR;
            cfg->strat_ecmp_ar = true; /* htsim's queue bands, unless --ar-quantum says otherwise */
        } else if (!strcmp(v, "ecmp_host_ar") || !strcmp(v, "ecmp_rr") || !strcmp(v, "rr_ecmp") ||
                   !strcmp(v, "ecmp_host_ecn") || !strcmp(v, "reactive_ecn")) {
            bad(x, "-strat %s: htsim's route strategy %s is not modelled (spraysim has ecmp_host, the default, "
                   "and ecmp_ar; --lb and --routing choose paths)", v, v);
        } else if (!strcmp(v, "perm") || !strcmp(v, "single") || !strcmp(v, "rand") || !strcmp(v, "pull") ||
                   !strcmp(v, "ecmp")) {
            /* other htsim binaries' strategies (htsim_ndp -strat perm):
             * htsim_uec ignores them, and so does spraysim, saying so */
            warn_input("-strat %s: a strategy of other htsim binaries, which htsim_uec ignores: paths come from "
                       "--lb (default mixed) and -paths", v);
        } else {
            bad(x, "-strat: '%s' is no htsim route strategy (ecmp_host, ecmp_ar, ecmp_host_ar, ecmp_rr, rr_ecmp, "
                   "ecmp_host_ecn, reactive_ecn)", shown(v, b));
        }
    } else if (id == OPT_TRIMSIZE) {
        /* checked against -mtu and the header once both are known */
        cfg->trim_bytes = (uint32_t)get_uint(x, arg, v, 1, 65535);
    } else if (id == OPT_LOG) {
        static const struct {
            const char *kind, *instead;
        } logs[] = {
            {"flow_events", "--htsim-output (htsim's per-flow lines) and flows.csv"},
            {"sink", "--ts-hosts (delivered bytes and goodput per host)"},
            {"nic", "--ts-hosts, and --ts-flows for each flow's window and rate"},
            {"tor_downqueue", "--ts-ports with queues.csv's port numbers"},
            {"tor_upqueue", "--ts-ports with queues.csv's port numbers"},
            {"traffic", "flows.csv and queues.csv"},
            {"queue_usage", "queues.csv (peak and mean occupancy per port) and --ts-ports"},
            {"switch", NULL},
        };
        size_t k = 0;
        while (k < sizeof logs / sizeof logs[0] && strcmp(v, logs[k].kind))
            k++;
        if (k == sizeof logs / sizeof logs[0])
            bad(x, "-log: '%s' is no htsim log kind (flow_events, sink, nic, tor_downqueue, tor_upqueue, switch, "
                   "traffic, queue_usage)", shown(v, b));
        else if (!logs[k].instead)
            cfg->switch_stats = true; /* htsim's total switch queues: switches.csv */
        else if (!strcmp(v, "flow_events"))
            cfg->htsim_output = true;
        else
            warn_input("-log %s: htsim's log file is not written; the same quantities: %s", v, logs[k].instead);
    } else if (id == OPT_LOGTIME || id == OPT_LOGTIME_US) {
        /* -logtime is in ms, -logtime_us in us; the range is --ts-interval's, 0.001 us to 1e9 us */
        double us = id == OPT_LOGTIME_US ? get_real(x, arg, v, 1e-3, 1e9) : get_real(x, arg, v, 1e-6, 1e6) * 1000.0;
        /* htsim's sampling period of its loggers: the time series' interval */
        if (!cfg->ts.interval_given) {
            cfg->ts.interval_ps = us_to_ps(us);
            cfg->htsim_logtime = true;
        }
    } else if (id == OPT_QUEUE_TYPE) {
        /* htsim_uec main_uec.cpp takes composite (its default, the trimming
         * queue spraysim models), composite_ecn, aeolus, aeolus_ecn */
        if (!strcmp(v, "composite_ecn"))
            bad(x, "-queue_type composite_ecn: not modelled (htsim's ECNQueue on every port but ToR downlinks: one "
                   "FIFO where ACKs wait behind data, no trimming; spraysim's switch ports serve control first)");
        else if (!strcmp(v, "aeolus") || !strcmp(v, "aeolus_ecn"))
            bad(x, "-queue_type %s: not modelled (Aeolus's queues, which drop unscheduled packets first)", v);
        else if (strcmp(v, "composite"))
            bad(x, "-queue_type: '%s' is no htsim_uec queue type (composite, composite_ecn, aeolus, aeolus_ecn)",
                shown(v, b));
    } else if (id == OPT_HOST_QUEUE_TYPE) {
        /* htsim_uec: fair_prio (its default: control first, data round
         * robin among flows, what spraysim's NIC does), prio, swift */
        if (!strcmp(v, "prio"))
            bad(x, "-host_queue_type prio: not modelled (htsim's priority NIC queue: control first, data in "
                   "arrival order across flows; spraysim's NIC is fair_prio, flows in round robin)");
        else if (!strcmp(v, "swift"))
            bad(x, "-host_queue_type swift: not modelled (htsim's FairScheduler: flows in round robin, control "
                   "without priority; spraysim's NIC is fair_prio)");
        else if (strcmp(v, "fair_prio"))
            bad(x, "-host_queue_type: '%s' is no htsim host queue type (fair_prio, prio, swift)", shown(v, b));
    } else if (id == OPT_PLANES) {
        /* htsim main_eqds.cpp / main_uec.cpp: "-planes N" builds N fat
         * trees and gives each NIC N ports, asserting 1 <= N <= 8 (htsim_uec
         * 40ccb05 then stops on N > 1; htsim_eqds runs them). What spraysim
         * does with them: src/topo/fabric.c's opening paragraph. */
        cfg->planes = (uint32_t)get_uint(x, arg, v, 1, 8);
    } else if (id == OPT_AR_METHOD) {
        /* htsim FatTreeSwitch::fn: compare_queuesize (its default), _pause, _pq */
        if (!strcmp(v, "queue"))
            cfg->ar_method = AR_BY_QUEUE;
        else if (!strcmp(v, "pause"))
            cfg->ar_method = AR_BY_PAUSE;
        else if (!strcmp(v, "pq"))
            cfg->ar_method = AR_BY_PAUSE_QUEUE;
        else if (!strcmp(v, "bandwidth") || !strcmp(v, "qb") || !strcmp(v, "pb") || !strcmp(v, "pqb"))
            bad(x, "-ar_method %s: not modelled (htsim's link utilisation over 30 us windows is not tracked; "
                   "queue, pause and pq are)", v);
        else
            bad(x, "-ar_method: '%s' is no htsim AR method (queue, pause, pq, bandwidth, qb, pb, pqb)", shown(v, b));
    } else if (id == OPT_AR_GRANULARITY) {
        /* htsim FatTreeSwitch: PER_PACKET (its default) or PER_FLOWLET */
        cfg->ar_granularity_given = true;
        if (!strcmp(v, "packet"))
            cfg->ar_flowlet = false;
        else if (!strcmp(v, "flow"))
            cfg->ar_flowlet = true;
        else
            bad(x, "-ar_granularity: '%s' is not packet or flow", shown(v, b));
    } else if (id == OPT_AR_STICKY_DELTA) {
        /* htsim: microseconds, default 10; the flowlet gap of -ar_granularity flow */
        cfg->ar_sticky_delta_ps = us_to_ps(get_real(x, arg, v, 0, 1e9));
        cfg->ar_sticky_given = true; /* checked once every flag is read */
    } else if (id == OPT_CONNS) {
        /* htsim_tcp: -conns N keeps N connections of a random permutation
         * of -nodes hosts (ConnectionMatrix::setPermutation), each an
         * MPTCP flow with no size that runs until -end */
        bad(x, "-conns %s: not modelled (htsim_tcp's N long-running MPTCP connections of a random permutation; "
               "spraysim's flows have sizes: --workload perm:n=HOSTS,size=BYTES or a .cm file)", shown(v, b));
    } else if (id == OPT_PCIE) {
        bad(x, "-pcie %s: not modelled (htsim_uec's receiver PCIe model)", shown(v, b));
    } else if (id == OPT_DISABLE_FD) {
        /* SMaRTT's htsim (and htsim_uec before 40ccb05, which comments it
         * out with NSCC's fair_decrease): no Fair Decrease; checked once the
         * algorithm is known */
        cfg->disable_fd = true;
    } else if (id == OPT_ENABLE_QA_GATE) {
        /* htsim_uec before 40ccb05 (and its forks): Quick Adapt fires only
         * when achieved < maxwnd / 8; 40ccb05 always gates, at maxwnd >>
         * -qa_gate (default 3, the same 1/8): the algorithm's default gate,
         * replacing an earlier -qa_gate */
        cfg->qa_gate = -1;
    } else if (id == OPT_DEBUG) {
        /* htsim's debug prints: accepted, nothing more is printed */
    } else {
        /* an id of this range without its branch above */
        bad(x, "%s: in the option table but not parsed (an internal error)", arg);
    }
}

/* A known flag that takes no value (an unknown one may take one: its next
 * argument is not looked at until it is reported). */
static bool takes_none(const struct option_spec *o, const struct transport_flag *owned)
{
    return o ? o->n_args == 0 : owned && owned->n_args == 0;
}

enum options_result options_parse(struct config *cfg, int argc, char **argv, char *err, size_t errlen)
{
    struct parse_ctx x = {err, errlen, false};
    char b[SHOWN_BUF];
    config_defaults(cfg);
    cfg->progress = true;
    /* the reference's way of choosing EQDS: its binary's name */
    if (argc > 0 && argv[0]) {
        const char *base = strrchr(argv[0], '/');
        if (!strcmp(base ? base + 1 : argv[0], "htsim_eqds"))
            cfg->transport_name = "eqds";
        /* called as the reference (a symlink htsim_uec or htsim_eqds):
         * its per-flow lines, which users' parsers read, by default */
        if (!strcmp(base ? base + 1 : argv[0], "htsim_uec") || !strcmp(base ? base + 1 : argv[0], "htsim_eqds"))
            cfg->htsim_output = true;
    }
    struct given given = {0};
    for (int i = 1; i < argc && !x.failed; i++) {
        const char *arg = argv[i];
        /* --flag=value for the native long flags; the name is copied so argv stays intact */
        char name[64];
        const char *inline_value = NULL;
        /* the flag's entry: the option table's, or a transport's or balancer's own */
        const struct option_spec *o = option_find(arg);
        const struct transport_flag *owned = o ? NULL : transport_flag_find(arg);
        const char *eq = !strncmp(arg, "--", 2) ? strchr(arg, '=') : NULL;
        if (eq) {
            size_t n = (size_t)(eq - arg);
            if (n >= sizeof name) {
                bad(&x, "unknown flag '%s' (see --help)", shown(arg, b));
                break;
            }
            memcpy(name, arg, n);
            name[n] = '\0';
            arg = name;
            inline_value = eq + 1;
            o = option_find(arg);
            owned = o ? NULL : transport_flag_find(arg);
            if (takes_none(o, owned)) {
                bad(&x, "%s takes no value", arg);
                break;
            }
        }
        const char *v = inline_value;
        int id = o ? (int)o->id : -1;
        if (!v && !takes_none(o, owned) && (arg[0] == '-')) {
            /* every other known flag takes a value; unknown ones are reported below */
            if (i + 1 < argc)
                v = argv[i + 1];
        }
#define TAKE()                                                                                                    \
    do {                                                                                                          \
        if (!v) {                                                                                                 \
            bad(&x, "%s needs a value", arg);                                                                     \
            goto next;                                                                                            \
        }                                                                                                         \
        if (!inline_value)                                                                                        \
            i++;                                                                                                  \
    } while (0)
        if (id == OPT_HELP) {
            return OPTIONS_HELP;
        } else if (id == OPT_HELP_FORMAT) {
            TAKE();
            if (!strcmp(v, "text"))
                return OPTIONS_HELP;
            if (!strcmp(v, "markdown"))
                return OPTIONS_HELP_MARKDOWN;
            if (!strcmp(v, "man"))
                return OPTIONS_HELP_MAN;
            bad(&x, "%s: '%s' is not text, markdown or man", arg, shown(v, b));
        } else if (id == OPT_VERSION) {
            return OPTIONS_VERSION;
        } else if (id == OPT_TM) {
            TAKE();
            cfg->tm_path = v;
        } else if (id == OPT_WORKLOAD) {
            TAKE();
            struct gen_spec g;
            struct poisson_spec ps;
            char gerr[512];
            if (poisson_is_spec(v) ? !poisson_parse(&ps, v, gerr, sizeof gerr) : !gen_parse(&g, v, gerr, sizeof gerr))
                bad(&x, "%s", gerr);
            cfg->workload_spec = v;
        } else if (id == OPT_GOAL) {
            TAKE();
            if (!*v)
                bad(&x, "%s: empty file name", arg);
            cfg->goal_path = v;
        } else if (id == OPT_GOAL_MAP) {
            TAKE();
            if (!*v)
                bad(&x, "%s: empty file name", arg);
            cfg->goal_map_path = v;
        } else if (id == OPT_GOAL_OPS) {
            cfg->goal_ops = true;
        } else if (id == OPT_WRITE_CM) {
            TAKE();
            if (!*v)
                bad(&x, "%s: empty file name", arg);
            cfg->write_cm_path = v;
        } else if (id == OPT_RANDOM_FAILURES) {
            TAKE();
            cfg->random_failure_p = get_real(&x, arg, v, 0, 1);
        } else if (id == OPT_TOPO) {
            TAKE();
            cfg->topo_path = v;
        } else if (id == OPT_END) {
            TAKE();
            cfg->end_ps = us_to_ps(get_real(&x, arg, v, 1e-6, 1e9));
        } else if (id == OPT_NODES) {
            TAKE();
            cfg->nodes = (uint32_t)get_uint(&x, arg, v, 1, 1u << 24);
        } else if (id == OPT_TIERS) {
            TAKE();
            given.tiers = true;
            cfg->tiers = (uint32_t)get_uint(&x, arg, v, 2, 3);
        } else if (id == OPT_LINKSPEED) {
            TAKE();
            /* 1 Mb/s to 100 Tb/s: serialisation times stay whole picoseconds' worth of resolution */
            cfg->linkspeed_mbps = (uint32_t)get_uint(&x, arg, v, 1, 100000000u);
        } else if (id == OPT_MTU) {
            TAKE();
            cfg->mtu_bytes = (uint32_t)get_uint(&x, arg, v, 256, 65535);
        } else if (id == OPT_Q) {
            TAKE();
            cfg->queue_infinite = !strcmp(v, "inf");
            cfg->queue_pkts = cfg->queue_infinite ? 0 : (uint32_t)get_uint(&x, arg, v, 1, 1000000);
        } else if (id == OPT_ECN) {
            if (i + 2 >= argc || eq) {
                bad(&x, "-ecn needs two values: LOW HIGH (packets)");
                break;
            }
            cfg->ecn_low_pkts = (uint32_t)get_uint(&x, "-ecn (low)", argv[i + 1], 1, 1000000);
            cfg->ecn_high_pkts = (uint32_t)get_uint(&x, "-ecn (high)", argv[i + 2], 1, 1000000);
            i += 2;
        } else if (id == OPT_PFC_THRESHOLDS) {
            if (i + 2 >= argc || eq) {
                bad(&x, "-pfc_thresholds needs two values: LOW HIGH (packets)");
                break;
            }
            given.pfc_thresholds = true;
            cfg->pfc_low_pkts = (uint32_t)get_uint(&x, "-pfc_thresholds (low)", argv[i + 1], 1, 1000000);
            cfg->pfc_high_pkts = (uint32_t)get_uint(&x, "-pfc_thresholds (high)", argv[i + 2], 1, 1000000);
            if (!x.failed && cfg->pfc_low_pkts > cfg->pfc_high_pkts)
                bad(&x, "-pfc_thresholds: low threshold %u exceeds high threshold %u (packets)", cfg->pfc_low_pkts,
                    cfg->pfc_high_pkts);
            i += 2;
        } else if (id == OPT_MSG_CC) {
            TAKE();
            if (!strcmp(v, "inherit"))
                cfg->msg_cc = 1;
            else if (!strcmp(v, "fresh"))
                cfg->msg_cc = 0;
            else
                bad(&x, "%s: '%s' is neither inherit nor fresh", arg, shown(v, b));
        } else if (id == OPT_GOAL_SEND_DONE) {
            TAKE();
            if (!strcmp(v, "match"))
                cfg->goal_send_done = 0;
            else if (!strcmp(v, "path"))
                cfg->goal_send_done = 1;
            else
                bad(&x, "%s: '%s' is neither match nor path", arg, shown(v, b));
        } else if (id == OPT_TRIGGER_DELAY) {
            TAKE();
            if (!strcmp(v, "none"))
                cfg->trigger_delay = 0;
            else if (!strcmp(v, "path"))
                cfg->trigger_delay = 1;
            else
                bad(&x, "%s: '%s' is neither none nor path", arg, shown(v, b));
        } else if (id == OPT_QUANTILES) {
            TAKE();
            if (!strcmp(v, "exact"))
                cfg->quantile_sketch = false;
            else if (!strcmp(v, "sketch"))
                cfg->quantile_sketch = true;
            else
                bad(&x, "%s: '%s' is neither exact nor sketch", arg, shown(v, b));
        } else if (id == OPT_STREAM) {
            TAKE();
            if (!strcmp(v, "on"))
                cfg->stream = 1;
            else if (!strcmp(v, "off"))
                cfg->stream = 0;
            else
                bad(&x, "%s: '%s' is neither on nor off", arg, shown(v, b));
        } else if (id == OPT_CONN_REUSE) {
            /* htsim_uec's switch for messages over connections; spraysim
             * always reads lines sharing an id as one connection's messages */
        } else if (id == OPT_PFC) {
            TAKE();
            if (!strcmp(v, "on"))
                cfg->pfc_flag = 1;
            else if (!strcmp(v, "off"))
                cfg->pfc_flag = 0;
            else
                bad(&x, "%s: '%s' is neither on nor off", arg, shown(v, b));
        } else if (id == OPT_PFC_DEADLOCK_US) {
            TAKE();
            given.pfc_deadlock = true;
            cfg->pfc_deadlock_ps = us_to_ps(get_real(&x, arg, v, 1e-3, 1e9));
        } else if (id == OPT_CWND) {
            TAKE();
            cfg->cwnd_pkts = (uint32_t)get_uint(&x, arg, v, 1, 1000000);
        } else if (id == OPT_PATHS) {
            TAKE();
            cfg->paths = (uint32_t)get_uint(&x, arg, v, 1, 65536);
            cfg->paths_given = true;
        } else if (id == OPT_SEED) {
            TAKE();
            cfg->seed = get_uint(&x, arg, v, 0, UINT64_MAX);
        } else if (id == OPT_SENDER_CC_ONLY) {
            cfg->cc_mode_flag = "-sender_cc_only"; /* a literal: arg may be a local copy */
            /* htsim: each flag sets its modes, in the order given */
            cfg->sender_cc = 1;
            cfg->receiver_cc = 0;
        } else if (id == OPT_SENDER_CC) {
            cfg->cc_mode_flag = "-sender_cc";
            cfg->sender_cc = 1;
        } else if (id == OPT_RECEIVER_CC_ONLY) {
            cfg->cc_mode_flag = "-receiver_cc_only";
            cfg->sender_cc = 0;
            cfg->receiver_cc = 1;
        } else if (id == OPT_RECEIVER_CC) {
            cfg->cc_mode_flag = "-receiver_cc";
            cfg->receiver_cc = 1;
        } else if (id == OPT_USE_REPS) {
            TAKE();
            if (get_uint(&x, arg, v, 0, 1)) {
                cfg->lb_name = "reps";
                cfg->lb_given = true;
            }
        } else if (id == OPT_TRANSPORT) {
            TAKE();
            cfg->transport_name = v;
            if (!transport_find(v))
                bad(&x, "%s: unknown transport '%s' (known: %s)", arg, shown(v, b), transport_names());
        } else if (id == OPT_CC || id == OPT_SENDER_CC_ALGO) {
            TAKE();
            cfg->cc_name = v;
            cfg->cc_given = true;
            if (arg[1] == 's') { /* htsim's -sender_cc_algo also turns the sender's window on */
                cfg->sender_cc = 1;
                /* and means htsim's own DCTCP, which is not RFC 8257's (--cc dctcp) */
                if (!strcmp(v, "dctcp"))
                    cfg->cc_name = "uec-dctcp";
            }
            if (!cc_find(v))
                bad(&x, "%s: unknown algorithm '%s' (known: %s)", arg, shown(v, b), cc_names());
        } else if (id == OPT_LB) {
            TAKE();
            cfg->lb_name = v;
            cfg->lb_given = true;
            if (!lb_find(v))
                bad(&x, "%s: unknown or not yet implemented load balancer '%s' (known: %s)", arg, shown(v, b),
                    lb_names());
        } else if (id == OPT_DISABLE_TRIM) {
            cfg->trimming = false;
        } else if (id == OPT_SLEEK) {
            cfg->sleek = true;
        } else if (id == OPT_TARGET_Q_DELAY) {
            TAKE();
            cfg->target_qdelay_ps = us_to_ps(get_real(&x, arg, v, 0.001, 1e6));
        } else if (id == OPT_QA_GATE) {
            TAKE();
            cfg->qa_gate = (int)get_uint(&x, arg, v, 0, 30);
        } else if (id == OPT_HOP_LATENCY) {
            TAKE();
            given.hop_latency = true;
            cfg->hop_latency_ps = us_to_ps(get_real(&x, arg, v, 0, 1e6));
        } else if (id == OPT_SWITCH_LATENCY) {
            TAKE();
            given.switch_latency = true;
            cfg->switch_latency_ps = us_to_ps(get_real(&x, arg, v, 0, 1e6));
        } else if (id == OPT_SACK_THRESHOLD) {
            TAKE();
            cfg->ack_threshold_given = true;
            cfg->ack_threshold_bytes = (uint32_t)get_uint(&x, arg, v, 1, 1u << 30);
        } else if (id == OPT_OUT) {
            TAKE();
            if (!*v)
                bad(&x, "%s: empty directory name", arg);
            cfg->out_dir = v;
        } else if (id == OPT_Q3_PRESSURE) {
            TAKE();
            cfg->q3_pressure = get_real(&x, arg, v, 0, 0.5);
        } else if (id == OPT_CC_OPT) {
            TAKE();
            const char *eqs = strchr(v, '=');
            if (!eqs || eqs == v) {
                bad(&x, "--cc-opt: '%s' is not NAME=VALUE", shown(v, b));
                break;
            }
            double value = get_real(&x, "--cc-opt", eqs + 1, -1e18, 1e18);
            size_t n = (size_t)(eqs - v);
            unsigned k = 0;
            while (k < cfg->n_cc_opts && (strlen(cfg->cc_opts[k].name) != n || strncmp(cfg->cc_opts[k].name, v, n)))
                k++;
            if (k == cfg->n_cc_opts) {
                /* one entry per name: a repeated name replaces the earlier value, as repeated flags do */
                if (k == sizeof cfg->cc_opts / sizeof cfg->cc_opts[0]) {
                    bad(&x, "--cc-opt: at most %zu distinct options", sizeof cfg->cc_opts / sizeof cfg->cc_opts[0]);
                    break;
                }
                cfg->cc_opts[k].name = strndup(v, n);
                if (!cfg->cc_opts[k].name)
                    die_internal("out of memory");
                cfg->n_cc_opts++;
            }
            cfg->cc_opts[k].value = value;
        } else if (id == OPT_ROUTING) {
            TAKE();
            if (!strcmp(v, "ecmp"))
                cfg->routing = ROUTE_ECMP;
            else if (!strcmp(v, "ar"))
                cfg->routing = ROUTE_AR;
            else if (!strcmp(v, "ev-mod"))
                cfg->routing = ROUTE_EV_MOD;
            else
                bad(&x, "--routing: '%s' is not ecmp, ar or ev-mod", shown(v, b));
        } else if (id == OPT_REROUTE) {
            TAKE();
            if (!strcmp(v, "none"))
                cfg->reroute = REROUTE_NONE;
            else if (!strcmp(v, "bounce"))
                cfg->reroute = REROUTE_BOUNCE;
            else
                bad(&x, "--reroute: '%s' is not none or bounce", shown(v, b));
        } else if (id == OPT_SCHED) {
            TAKE();
            cfg->drr = cfg->class_drr = false;
            if (!strcmp(v, "fifo"))
                ;
            else if (!strcmp(v, "drr"))
                cfg->drr = true;
            else if (!strcmp(v, "class-drr"))
                cfg->class_drr = true;
            else
                bad(&x, "--sched: '%s' is not fifo, drr or class-drr", shown(v, b));
        } else if (id == OPT_DRR_QUANTUM) {
            TAKE();
            given.drr_quantum = true;
            cfg->drr_quantum_bytes = (uint32_t)get_uint(&x, arg, v, 64, 1u << 24);
        } else if (id == OPT_AR_QUANTUM) {
            TAKE();
            given.ar_quantum = true;
            if (!strcmp(v, "bands"))
                given.ar_bands = true;
            else
                cfg->ar_quantum_bytes = (uint32_t)get_uint(&x, arg, v, 1, 1u << 30);
        } else if (id == OPT_FAILED) {
            TAKE();
            cfg->failed_links = (uint32_t)get_uint(&x, arg, v, 0, 1u << 20);
        } else if (id == OPT_FAIL) {
            TAKE();
            if (cfg->n_fail_specs == sizeof cfg->fail_specs / sizeof cfg->fail_specs[0]) {
                bad(&x, "--fail: at most %zu specifications on the command line (put more in the .cm as "
                        "'failure' lines)", sizeof cfg->fail_specs / sizeof cfg->fail_specs[0]);
                break;
            }
            cfg->fail_specs[cfg->n_fail_specs++] = v;
        } else if (id == OPT_MIN_RTO_US) {
            TAKE();
            cfg->min_rto_flag_ps = us_to_ps(get_real(&x, arg, v, 0.001, 1e9));
        } else if (id == OPT_AGGRESSIVE_RTO) {
            cfg->aggressive_rto = true;
        } else if (id == OPT_DETECT_US) {
            TAKE();
            cfg->detect_ps = us_to_ps(get_real(&x, arg, v, 0, 1e9));
        } else if (id == OPT_PROGRESS) {
            cfg->progress = true;
        } else if (id == OPT_NO_PROGRESS) {
            cfg->progress = false;
        } else if (id == OPT_PROGRESS_EVERY) {
            TAKE();
            cfg->progress_every_s = get_real(&x, arg, v, 0.01, 86400);
        } else if (id == OPT_QUIET) {
            cfg->quiet = true;
        } else if (id == OPT_CHECK) {
            cfg->check_only = true;
        } else if (id == OPT_HTSIM_OUTPUT) {
            cfg->htsim_output = true;
        } else if (id == OPT_SWITCH_STATS) {
            cfg->switch_stats = true;
        } else if (id == OPT_LOSS_DETECT) {
            TAKE();
            if (!strcmp(v, "nack"))
                cfg->loss_detect = CC_LOSS_NACK_RTO;
            else if (!strcmp(v, "dupack"))
                cfg->loss_detect = CC_LOSS_DUPACK;
            else if (!strcmp(v, "sack"))
                cfg->loss_detect = CC_LOSS_SACK_HOLE;
            else
                bad(&x, "--loss-detect: '%s' is not nack, dupack or sack", shown(v, b));
        } else if (id == OPT_CLASSES) {
            TAKE();
            cfg->n_classes = (uint32_t)get_uint(&x, arg, v, 2, PORT_MAX_CLASSES);
            cfg->classes_given = true;
        } else if (id == OPT_CLASS_OPT) {
            TAKE();
            parse_class_opt(&x, cfg, v);
        } else if (id == OPT_TS) { /* --ts-*: time series (metrics/timeseries.c) */
            TAKE();
            if (!ts_parse_flag(&cfg->ts, arg, v, err, errlen))
                x.failed = true;
        } else if (o && o->id >= OPT_HTSIM_FIRST && o->id <= OPT_HTSIM_LAST) { /* the rest of htsim_uec's */
            if (o->n_args)
                TAKE();
            parse_htsim_flag(&x, cfg, o->id, arg, v);
        } else if (o) {
            /* an entry without its code here: the table and this chain disagree */
            bad(&x, "%s: in the option table but not parsed (an internal error)", arg);
        } else if (owned) {
            /* a flag a transport owns: stored as given, parsed by its owner's
             * code (transport.h transport_flag_*) */
            struct tp_flag_given rec = {owned->name, {NULL, NULL}};
            if (owned->n_args == 1) {
                TAKE();
                rec.args[0] = v;
            } else if (owned->n_args == 2) {
                if (i + 2 >= argc || eq) {
                    bad(&x, "%s needs two values: %s", owned->name, owned->args);
                    break;
                }
                rec.args[0] = argv[i + 1];
                rec.args[1] = argv[i + 2];
                i += 2;
            }
            if (!owned->repeats) /* a later occurrence replaces the earlier one, as shared flags do, and */
                for (unsigned j = 0; j < cfg->n_tp_flags; j++) /* takes its place in the order (the later wins) */
                    if (!strcmp(cfg->tp_flags[j].name, owned->name)) {
                        memmove(&cfg->tp_flags[j], &cfg->tp_flags[j + 1],
                                (cfg->n_tp_flags - j - 1) * sizeof cfg->tp_flags[0]);
                        cfg->n_tp_flags--;
                        break;
                    }
            if (cfg->n_tp_flags == CONFIG_MAX_TP_FLAGS) {
                bad(&x, "%s: at most %d flags of transports on one command line", owned->name, CONFIG_MAX_TP_FLAGS);
                break;
            }
            cfg->tp_flags[cfg->n_tp_flags++] = rec;
        } else {
            char hint[96];
            suggest_flag(arg, hint, sizeof hint);
            bad(&x, "unknown flag '%s'%s (see --help)", shown(arg, b), hint);
        }
    next:;
#undef TAKE
    }
    if (x.failed)
        return OPTIONS_ERROR;
    if (!given.ar_quantum || given.ar_bands)
        cfg->ar_quantum_bytes = cfg->mtu_bytes;
    /* -strat ecmp_ar is the reference's adaptive routing, so its measure is
     * htsim's queue bands; --routing ar is seed 004's shortest queue in
     * --ar-quantum units (fabric.c) */
    cfg->ar_bands = given.ar_bands || (cfg->strat_ecmp_ar && !given.ar_quantum);
    /* -trimsize: htsim asserts 64 <= trimsize <= mtu; here the header
     * (ACKs' size, 64 B) is the least a trimmed packet keeps */
    if (cfg->trim_bytes && (cfg->trim_bytes < cfg->hdr_bytes || cfg->trim_bytes > cfg->mtu_bytes)) {
        bad(&x, "-trimsize %u: a trimmed packet keeps at least its %u-byte header and at most -mtu %u", cfg->trim_bytes,
            cfg->hdr_bytes, cfg->mtu_bytes);
        return OPTIONS_ERROR;
    }
    if ((cfg->ar_sticky_given || cfg->ar_flowlet) && cfg->routing != ROUTE_AR)
        warn_input("%s: adaptive routing's flowlets have no effect without adaptive routing (-strat ecmp_ar or "
                   "--routing ar)", cfg->ar_flowlet ? "-ar_granularity flow" : "-ar_sticky_delta");
    /* -ar_sticky_delta under per-packet routing: warned by sim_setup, once
     * the run's transport has chosen its default granularity */
    if (cfg->disable_fd && strncmp(cfg->cc_name, "smartt", 6))
        warn_input("-disable_fd has no effect with --cc %s: only SMaRTT has a Fair Decrease (htsim_uec 40ccb05's "
                   "NSCC has none)", cfg->cc_name);
    if (cfg->htsim_logtime && !ts_wanted(&cfg->ts))
        warn_input("-logtime: htsim's logging period has no effect without a time series (--ts-flows, --ts-ports, "
                   "--ts-hosts), whose interval it then sets");
    /* RoCE's rate controls by name: --cc dcqcn|timely|hpcc is -dcqcn K,
     * -timely, -hpcc; the window algorithm of any other transport's
     * connections then stays the default */
    const struct cc_ops *named = cc_find(cfg->cc_name);
    if (named && named->rate_based) {
        /* kept aside for the run's transport, which checks and reads it
         * (RoCE: roce.c); the window algorithm stays the default */
        cfg->rate_cc_name = named->name;
        cfg->cc_name = "nscc";
        cfg->cc_given = false;
    }
    check_combinations(&x, cfg, &given);
    if (x.failed)
        return OPTIONS_ERROR;
    if (cfg->paths == 1 && strcmp(cfg->lb_name, "single") && strcmp(cfg->lb_name, "ecmp"))
        cfg->lb_name = "single"; /* one entropy value: every balancer degenerates to one path */
    return OPTIONS_RUN;
}
