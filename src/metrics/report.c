/* report.c: turns a finished run into numbers: FCT statistics, the stdout
 * summary, and the output files. FCT is the reference simulator's: from the
 * flow's start until its sender holds the acknowledgement of the last byte.
 * Every file is built in memory; the set replaces the output directory as a
 * whole (outdir.c).
 */
#include "report.h"
#include "flowstream.h"
#include "vcollect.h"

#include "../cc/cc.h"
#include "../net/pfc.h"
#include "../lb/lb.h"
#include "../transport/flow.h"
#include "../transport/transport.h"
#include "../workload/poisson.h"
#include "../workload/goal.h"
#include "outdir.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static simtime_ps path_latency_ps(const struct topo *t, uint32_t hops)
{
    const struct tier_spec *ts = t->spec.tier;
    if (hops <= 2)
        return 2 * ts[0].downlink_latency_ps + ts[0].switch_latency_ps;
    if (hops <= 4)
        return 2 * (ts[0].downlink_latency_ps + ts[1].downlink_latency_ps) + 2 * ts[0].switch_latency_ps +
               ts[1].switch_latency_ps;
    return t->diameter_latency_ps;
}

/* Serialisation of `bytes` on every link of a hops-link path but the first
 * (the sender's NIC): up through tiers 1 .. hops/2 - 1, then down through
 * hops/2 - 1 .. 0, each link at its tier's speed (seed 001: 400 G ToR-spine
 * links under 100 G hosts). */
static simtime_ps later_hops_ps(const struct topo *t, uint32_t hops, uint32_t bytes)
{
    const struct tier_spec *ts = t->spec.tier;
    simtime_ps sum = serialize_ps(bytes, ts[0].downlink_mbps); /* ToR to host */
    for (uint32_t k = 1; k < hops / 2; k++)
        sum += 2 * serialize_ps(bytes, ts[k].downlink_mbps);
    return sum;
}

simtime_ps ideal_delivery_ps(const struct sim *s, const struct flow *f)
{
    uint32_t hdr = s->cfg.hdr_bytes, mss = s->cfg.mtu_bytes - hdr;
    uint32_t rate = s->topo.spec.tier[0].downlink_mbps;
    /* its own message's packets, as flow_init counts them: a UET flow that
     * carries pipelined messages (uet_msg_pipeline) grows its n_pkts by
     * theirs, at its sender only */
    uint64_t n_pkts = f->size_bytes / mss + (f->size_bytes % mss != 0);
    uint64_t wire = f->size_bytes + n_pkts * hdr;
    uint32_t last = f->last_payload_bytes + hdr;
    uint32_t hops = topo_hops(&s->topo, f->src, f->dst);
    simtime_ps lat = path_latency_ps(&s->topo, hops);
    /* The NIC sends every byte back to back; each later hop stores and
     * forwards at its own link's speed. A short last packet can overtake the
     * full one before it, so the data is complete when the later of the two
     * arrives. With -planes N the NIC spreads the bytes over N ports. */
    simtime_ps nic_done = (simtime_ps)((double)wire * 8e6 / ((double)rate * s->topo.planes));
    simtime_ps last_arrival = nic_done + later_hops_ps(&s->topo, hops, last);
    if (n_pkts > 1) {
        simtime_ps prev = nic_done - serialize_ps(last, rate) + later_hops_ps(&s->topo, hops, mss + hdr);
        if (prev > last_arrival)
            last_arrival = prev;
    }
    return last_arrival + lat;
}

simtime_ps ideal_fct_ps(const struct sim *s, const struct flow *f)
{
    uint32_t hdr = s->cfg.hdr_bytes, rate = s->topo.spec.tier[0].downlink_mbps;
    uint32_t hops = topo_hops(&s->topo, f->src, f->dst);
    /* the ACK of the last packet returns over the same path */
    return ideal_delivery_ps(s, f) + serialize_ps(hdr, rate) + later_hops_ps(&s->topo, hops, hdr) +
           path_latency_ps(&s->topo, hops);
}

int report_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
double report_percentile(const double *v, uint32_t n, double p)
{
    if (!n)
        return 0;
    double rank = ceil(p / 100.0 * n);
    uint32_t i = rank < 1 ? 0 : (uint32_t)rank - 1;
    return v[i < n ? i : n - 1];
}

struct count_ctx {
    const struct sim *s;
    struct run_stats *r;
};

static void count_arrival(const struct event *e, void *arg)
{
    struct count_ctx *c = arg;
    if (e->kind != EV_PKT_ARRIVE)
        return;
    c->r->pkts_in_network++;
    c->r->data_in_network += c->s->pool.pkts[e->id].type == PKT_DATA;
}

/* packets held by a port: its queues and the one on the wire */
static bool count_held(const struct sim *s, uint32_t pkt_idx, bool on_wire, void *ctx)
{
    (void)on_wire;
    struct run_stats *r = ctx;
    r->pkts_in_network++;
    r->data_in_network += s->pool.pkts[pkt_idx].type == PKT_DATA;
    return true;
}

void report_collect(const struct sim *s, double wall_s, struct run_stats *r)
{
    memset(r, 0, sizeof(*r));
    r->wall_s = wall_s;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        r->peak_rss_kb = (uint64_t)ru.ru_maxrss;
    /* --stream: the FCTs of retired messages were kept as they finished */
    struct vcollect fct;
    vc_init(&fct, s->cfg.quantile_sketch);
    unsigned __int128 sum_ps = 0;
    if (s->fstream) {
        vc_merge(&fct, &s->fstream->fct_us);
        sum_ps = s->fstream->fct_sum_ps;
    }
    uint32_t done = s->fstream ? (uint32_t)s->fstream->fct_us.n : 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct flow *f = &s->flows[i];
        if (f->state == FLOW_FREE || f->streamed)
            continue;
        simtime_ps fct_ps;
        if (f->state == FLOW_DONE) {
            fct_ps = f->finish_ps - f->posted_ps;
            done++;
        } else if (f->posted) {
            /* censored at the run's end: its FCT is at least this */
            fct_ps = s->now - f->posted_ps;
            r->fct_unfinished++;
        } else {
            r->not_started++;
            continue;
        }
        vc_add(&fct, (double)fct_ps / PS_PER_US);
        sum_ps += fct_ps;
    }
    uint64_t n = fct.n;
    r->finished = done;
    r->fct_n = (uint32_t)n;
    r->fct_median_us = vc_percentile(&fct, 50);
    r->fct_p99_us = vc_percentile(&fct, 99);
    r->fct_max_us = n ? fct.max : 0;
    /* from the exact sum in picoseconds: the same mean whatever order they finished in */
    r->fct_mean_us = n ? (double)(sum_ps / n) / PS_PER_US + (double)(sum_ps % n) / (double)n / PS_PER_US : 0;
    vc_free(&fct);
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const struct port *p = &s->ports[i];
        r->drops += p->st.drops;
        r->trims += p->st.trims;
        r->ecn_marks += p->st.ecn_marks;
        port_visit_held(s, i, count_held, r);
    }
    /* packets on links: pending arrival events */
    struct count_ctx ctx = {s, r};
    eq_visit(&s->eq, count_arrival, &ctx);
    r->data_drops = s->tot.data_drops;
}

/* Per tier: the largest peak of a switch's buffered bytes, and the mean and
 * largest of the switches' time-averaged buffered bytes. */
struct tier_buffers {
    uint32_t switches;
    uint64_t max_peak_bytes;
    double sum_mean_bytes, max_mean_bytes;
};

static void tier_buffers(const struct sim *s, struct tier_buffers tb[TOPO_MAX_TIERS])
{
    memset(tb, 0, TOPO_MAX_TIERS * sizeof *tb);
    double dur = s->now ? (double)s->now : 1.0;
    for (uint32_t i = 0; i < s->n_switches; i++) {
        const struct switch_node *sw = &s->switches[i];
        struct tier_buffers *t = &tb[sw->tier];
        double mean = sw->buffered_byte_ps / dur;
        t->switches++;
        t->sum_mean_bytes += mean;
        if (mean > t->max_mean_bytes)
            t->max_mean_bytes = mean;
        if (sw->peak_buffered_bytes > t->max_peak_bytes)
            t->max_peak_bytes = sw->peak_buffered_bytes;
    }
}

static void json_str(struct strbuf *b, const char *v);

static const char *const group_names[POISSON_GROUPS] = {"A", "B", "C", "D"};

/* Open-loop runs: requested against achieved load and mean size, then
 * slowdowns by size group and goodput. */
static void poisson_stdout(const struct sim *s)
{
    struct poisson_stats ps;
    poisson_collect(s, &ps);
    printf("poisson: load %.4f requested, %.4f achieved; mean size %.1f B (CDF, %s), %.1f B generated; "
           "%u messages, %u in [%.3f, %.3f) us measured (%.4g per host per s), %u delivered\n",
           ps.load_requested, ps.load_achieved, ps.mean_bytes_cdf, s->poisson->spec.step ? "step" : "linear",
           ps.mean_bytes_generated, ps.messages, ps.measured, (double)ps.window_start_ps / PS_PER_US,
           (double)ps.window_end_ps / PS_PER_US, ps.msgs_per_s_per_host, ps.delivered);
    /* each figure: (messages, unfinished); unfinished ones count at the
     * run's end, making the figure a lower bound (flagged '>=') */
    printf("slowdown (median/p99):");
    for (uint32_t k = 0; k <= POISSON_GROUPS; k++) {
        const struct poisson_group_stats *g = k ? &ps.group[k - 1] : &ps.all;
        const char *name = k ? group_names[k - 1] : "all";
        if (g->messages)
            printf("%s %s %s%.3f/%.3f (%u, %u unfinished)", k ? "," : "", name, g->unfinished ? ">=" : "",
                   g->slowdown_median, g->slowdown_p99, g->messages, g->unfinished);
        else
            printf("%s %s n/a (0)", k ? "," : "", name); /* no statistic over no message */
    }
    printf(" [MSS %llu B, BDP %llu B]; goodput per host %.3f Gb/s (min %.3f, max %.3f)\n",
           (unsigned long long)ps.mss_bytes, (unsigned long long)ps.bdp_bytes, ps.goodput_gbps_mean,
           ps.goodput_gbps_min, ps.goodput_gbps_max);
    if (ps.has_switch_window) {
        printf("switch buffers in the window (all ports and classes, B):");
        for (uint32_t t = 0; t < s->topo.spec.tiers; t++)
            printf("%s tier %u peak %llu, mean %.0f", t ? ";" : "", t, (unsigned long long)ps.win_peak_bytes[t],
                   ps.win_mean_bytes[t]);
        printf("\n");
    }
    const struct poisson_run *pr = s->poisson;
    if (pr->spec.incast_share > 0)
        printf("incast overlay: %.4f of the load, %u senders x %llu B every %.3f us; %u messages measured, %u "
               "delivered (in load and goodput, not in slowdowns)\n",
               pr->spec.incast_share, pr->spec.incast_senders, (unsigned long long)pr->spec.incast_bytes,
               (double)pr->incast_period_ps / PS_PER_US, ps.incast_measured, ps.incast_delivered);
}

static void json_group(struct strbuf *b, const char *name, const struct poisson_group_stats *g)
{
    sb_printf(b, "\"%s\": {\"messages\": %u, \"delivered\": %u, \"unfinished\": %u, \"lower_bound\": %s, ", name,
              g->messages, g->delivered, g->unfinished, g->unfinished ? "true" : "false");
    /* no measured message: no statistic (null, never 0) */
    if (g->messages)
        sb_printf(b, "\"slowdown_median\": %.6f, \"slowdown_p99\": %.6f}", g->slowdown_median, g->slowdown_p99);
    else
        sb_printf(b, "\"slowdown_median\": null, \"slowdown_p99\": null}");
}

static void poisson_json(const struct sim *s, struct strbuf *b)
{
    struct poisson_stats ps;
    poisson_collect(s, &ps);
    const struct poisson_spec *sp = &s->poisson->spec;
    sb_printf(b, "  \"poisson\": {\"cdf\": ");
    json_str(b, sp->cdf_path);
    sb_printf(b, ", \"sampling\": \"%s\", \"window_start_us\": %.6f, \"window_end_us\": %.6f, "
                 "\"load_requested\": %.6f, \"load_achieved\": %.6f, \"mean_bytes_cdf\": %.3f, "
                 "\"mean_bytes_generated\": %.3f, \"messages\": %u, \"measured\": %u, \"delivered\": %u, "
                 "\"messages_per_s_per_host\": %.3f, \"mss_bytes\": %llu, \"bdp_bytes\": %llu, "
                 "\"goodput_gbps_per_host\": {\"mean\": %.6f, \"min\": %.6f, \"max\": %.6f}, \"slowdown\": {",
              sp->step ? "step" : "linear", (double)ps.window_start_ps / PS_PER_US,
              (double)ps.window_end_ps / PS_PER_US, ps.load_requested, ps.load_achieved, ps.mean_bytes_cdf,
              ps.mean_bytes_generated, ps.messages, ps.measured, ps.delivered, ps.msgs_per_s_per_host,
              (unsigned long long)ps.mss_bytes, (unsigned long long)ps.bdp_bytes, ps.goodput_gbps_mean,
              ps.goodput_gbps_min, ps.goodput_gbps_max);
    json_group(b, "all", &ps.all);
    for (uint32_t k = 0; k < POISSON_GROUPS; k++) {
        sb_printf(b, ", ");
        json_group(b, group_names[k], &ps.group[k]);
    }
    sb_printf(b, "}, \"switch_buffers_window\": ");
    if (ps.has_switch_window) {
        sb_printf(b, "[");
        for (uint32_t t = 0; t < s->topo.spec.tiers; t++)
            sb_printf(b, "%s{\"tier\": %u, \"max_peak_bytes\": %llu, \"mean_mean_bytes\": %.1f}", t ? ", " : "", t,
                      (unsigned long long)ps.win_peak_bytes[t], ps.win_mean_bytes[t]);
        sb_printf(b, "]");
    } else {
        sb_printf(b, "null");
    }
    sb_printf(b, ", \"incast\": ");
    const struct poisson_run *pr = s->poisson;
    if (sp->incast_share > 0)
        sb_printf(b, "{\"share\": %.6f, \"senders\": %u, \"bytes\": %llu, \"period_us\": %.6f, \"measured\": %u, "
                     "\"delivered\": %u}",
                  sp->incast_share, sp->incast_senders, (unsigned long long)sp->incast_bytes,
                  (double)pr->incast_period_ps / PS_PER_US, ps.incast_measured, ps.incast_delivered);
    else
        sb_printf(b, "null");
    sb_printf(b, "},\n");
}

/* summary.json's "reps_freeze" (kept in its place): what the REPS balancer
 * reads from its own flags (lb_ops.read_opts), whichever balancer runs. */
static bool reps_freeze(const struct sim *s)
{
    struct lb_params p;
    memset(&p, 0, sizeof p);
    const struct lb_ops *reps = lb_find("reps");
    if (reps && reps->read_opts)
        reps->read_opts(s, &p);
    return p.reps_freeze;
}

void report_stdout(const struct sim *s, const struct run_stats *r)
{
    const struct config *c = &s->cfg;
    /* the transport is named when it is not plain UET; "cc none" when no
     * sender window applies (receiver credit alone) */
    char pace[96] = "";
    size_t n_tp;
    const struct transport_ops *const *tps = transport_registry(&n_tp);
    const char *label = NULL;
    for (size_t t = 0; t < n_tp && !label; t++)
        label = tps[t]->run_label ? tps[t]->run_label(s) : NULL;
    if (strcmp(c->transport_name, TRANSPORT_DEFAULT) || label)
        snprintf(pace, sizeof pace, "transport %s%s%s, ", c->transport_name, label ? " " : "", label ? label : "");
    char planes[32] = ""; /* -planes N: N copies of the tree */
    if (s->topo.planes > 1)
        snprintf(planes, sizeof planes, " x %u planes", s->topo.planes);
    printf("spraysim: %u hosts, %u switches, %u-tier tree%s; %scc %s, lb %s, %u paths, trimming %s, seed %llu\n",
           s->n_hosts, s->n_switches, s->topo.spec.tiers, planes, pace, s->no_sender_window ? "none" : s->cc->name,
           s->lb->name, c->paths, net_class_trims(s, PKT_PRIO_DATA) ? "on" : "off", (unsigned long long)c->seed);
    char qtext[32];
    if (c->queue_infinite)
        snprintf(qtext, sizeof qtext, "inf");
    else
        snprintf(qtext, sizeof qtext, "%u B", s->queue_bytes);
    /* the data class as the run uses it (net/policy.c), not the flags alone */
    uint32_t step_bytes;
    uint32_t ecn_kind = net_class_ecn(s, PKT_PRIO_DATA, &step_bytes);
    char ecntext[48];
    if (ecn_kind == NET_ECN_OFF)
        snprintf(ecntext, sizeof ecntext, "off");
    else if (ecn_kind == NET_ECN_STEP)
        snprintf(ecntext, sizeof ecntext, "step at %u B", step_bytes);
    else
        snprintf(ecntext, sizeof ecntext, "%u-%u B", s->ecn_kmin_bytes_default, s->ecn_kmax_bytes_default);
    printf("network: base RTT %.3f us, BDP %llu B, queue %s, ECN %s, min RTO %.1f us\n",
           (double)s->base_rtt_ps / PS_PER_US, (unsigned long long)s->bdp_bytes, qtext, ecntext,
           (double)s->min_rto_ps / PS_PER_US);
    if (s->tier_queues_differ) {
        /* the .topo's Queue_Down / Queue_Up replace the default per tier
         * (ECN thresholds scale with each port's queue) */
        printf("queues by tier (down/up B):");
        for (uint32_t i = 0; i < s->topo.spec.tiers; i++) {
            printf(" tier %u %u", i, s->tier_queue_down_bytes[i]);
            if (i + 1 < s->topo.spec.tiers)
                printf("/%u", s->tier_queue_up_bytes[i]);
            printf(i + 1 < s->topo.spec.tiers ? "," : "\n");
        }
    }
    printf("flows: %u of %u finished", r->finished, s->n_msgs);
    /* a GOAL schedule's messages that it never reached (a deadlock, -end)
     * are its own story (goal_stdout), not unfinished flows */
    uint32_t unreached = s->goal ? r->not_started : 0;
    if (unreached)
        printf(" (%u never started: the schedule did not reach them)", unreached);
    if (r->finished + unreached < s->n_msgs) {
        printf(" (%u unfinished at %.1f us:", s->n_msgs - r->finished - unreached, (double)s->now / PS_PER_US);
        /* the first ten in message order (slots are not in that order
         * when --stream recycles them) */
        uint32_t first[10], shown = 0;
        for (uint32_t i = 0; i < s->n_flows; i++) {
            const struct flow *f = &s->flows[i];
            if (f->state == FLOW_DONE || f->state == FLOW_FREE || (unreached && !f->posted))
                continue;
            uint32_t k = shown < 10 ? shown++ : 10;
            if (k == 10 && f->ordinal > s->flows[first[9]].ordinal)
                continue;
            if (k == 10)
                k = 9;
            while (k > 0 && s->flows[first[k - 1]].ordinal > f->ordinal) {
                first[k] = first[k - 1];
                k--;
            }
            first[k] = i;
        }
        for (uint32_t k = 0; k < shown; k++)
            printf(" %u", s->flows[first[k]].id);
        printf("%s)", s->n_msgs - r->finished - unreached > 10 ? " ..." : "");
    }
    printf("\n");
    /* every figure names its population and how much of it is censored */
    if (r->fct_n)
        printf("FCT: median %.3f us, p99 %.3f us, max %.3f us, mean %.3f us (%u message%s, %u unfinished%s)\n",
               r->fct_median_us, r->fct_p99_us, r->fct_max_us, r->fct_mean_us, r->fct_n, r->fct_n == 1 ? "" : "s",
               r->fct_unfinished,
               r->fct_unfinished ? " counted at the run's end: lower bounds" : "");
    else
        printf("FCT: n/a (no message started)\n");
    if (s->poisson)
        poisson_stdout(s);
    printf("packets: %llu data sent, %llu retransmitted, %llu ACKs, %llu NACKs, %llu trims, %llu bounced, %llu drops, %llu ECN marks, %llu timeouts\n",
           (unsigned long long)s->tot.data_pkts_sent, (unsigned long long)s->tot.rtx_pkts_sent,
           (unsigned long long)s->tot.acks_sent, (unsigned long long)s->tot.nacks_sent, (unsigned long long)r->trims,
           (unsigned long long)s->tot.data_bounced, (unsigned long long)r->drops, (unsigned long long)r->ecn_marks, (unsigned long long)s->tot.rtos);
    if (c->random_failure_p > 0)
        printf("random failures: %u of %u inter-switch links down from t=0 (p %g)\n", s->random_failed_links,
               s->inter_switch_links, c->random_failure_p);
    if (s->tot.failure_drops || s->n_link_events)
        printf("failures: %u link events, %llu packets dropped by links that were down\n", s->n_link_events,
               (unsigned long long)s->tot.failure_drops);
    if (c->reroute == REROUTE_BOUNCE)
        printf("reroute bounce: %llu valleys, %llu packets refused another\n", (unsigned long long)s->tot.valleys,
               (unsigned long long)s->tot.valley_limit_hits);
    if (s->pfc) {
        uint64_t pauses = 0;
        double paused_us = 0;
        for (uint32_t i = 0; i < s->n_ports; i++) {
            pauses += s->pfc->st[i].pauses_received;
            paused_us += (double)s->pfc->st[i].paused_ps / PS_PER_US;
        }
        printf("pfc: %llu pauses, %.1f port-us paused%s\n", (unsigned long long)pauses, paused_us,
               s->pfc->deadlock ? ", DEADLOCK" : "");
    }
    if (s->tot.pulls_sent) /* receiver credit (EQDS, UET -receiver_cc) */
        printf("credit: %llu pulls sent\n", (unsigned long long)s->tot.pulls_sent);
    if (s->tot.probes_sent || s->tot.rts_sent || c->sleek)
        printf("recovery: %llu probes, %llu requests to send\n", (unsigned long long)s->tot.probes_sent,
               (unsigned long long)s->tot.rts_sent);
    if (c->switch_stats) {
        struct tier_buffers tb[TOPO_MAX_TIERS];
        tier_buffers(s, tb);
        printf("switch buffers (all ports and classes, B):");
        for (uint32_t t = 0; t < s->topo.spec.tiers; t++)
            printf("%s tier %u peak %llu, mean %.0f (largest mean %.0f)", t ? ";" : "", t,
                   (unsigned long long)tb[t].max_peak_bytes, tb[t].switches ? tb[t].sum_mean_bytes / tb[t].switches : 0.0,
                   tb[t].max_mean_bytes);
        printf("\n");
    }
    if (s->goal)
        goal_stdout(s);
    printf("run: simulated %.3f us in %.3f s wall, %llu events, %.2f M events/s, peak memory %.1f MB\n",
           (double)s->now / PS_PER_US, r->wall_s, (unsigned long long)s->events_processed,
           r->wall_s > 0 ? s->events_processed / r->wall_s / 1e6 : 0.0, r->peak_rss_kb / 1024.0);
    report_warn_censored(s, r);
}

void report_warn_censored(const struct sim *s, const struct run_stats *r)
{
    uint32_t sd_unfinished = 0, sd_messages = 0;
    if (s->poisson) {
        struct poisson_stats ps;
        poisson_collect(s, &ps);
        sd_unfinished = ps.all.unfinished;
        sd_messages = ps.all.messages;
    }
    if (!r->fct_unfinished && !sd_unfinished)
        return;
    char fct[96] = "", sd[96] = "";
    if (r->fct_unfinished)
        snprintf(fct, sizeof fct, "FCT %u of %u message%s", r->fct_unfinished, r->fct_n, r->fct_n == 1 ? "" : "s");
    if (sd_unfinished)
        snprintf(sd, sizeof sd, "%sslowdowns %u of %u measured", *fct ? ", " : "", sd_unfinished, sd_messages);
    fflush(stdout); /* the summary first, where both go to one place */
    warn_input("unfinished messages counted at the run's end (%.3f us), so these figures are lower bounds: %s%s",
               (double)s->now / PS_PER_US, fct, sd);
}

static void fmt_time_us(struct strbuf *b, simtime_ps t)
{
    /* exact decimal microseconds: picoseconds have six decimals */
    sb_ps_as_us(b, t);
}

void report_flows_header(const struct sim *s, struct strbuf *b)
{
    /* the run's transport names the counter columns; a flow of another
     * transport leaves them empty */
    const struct transport_ops *tp = transport_find(s->cfg.transport_name);
    unsigned ntc = tp->n_counters < 32 ? tp->n_counters : 32;
    /* a matrix with messages over connections adds the message column */
    /* two completions, each with its FCT, ideal and slowdown: the sender's
     * last ACK (fct_us, ideal_fct_us, slowdown_ack: the FCT summary's) and
     * the receiver having every byte (rcv_finish_us, fct_rcv_us,
     * ideal_rcv_us, slowdown_rcv: the Poisson summary's); an open-loop
     * run adds each message's size group in its measured window */
    sb_printf(b,
              "flow_id,%ssrc,dst,size_bytes,start_us,finish_us,fct_us,ideal_fct_us,slowdown_ack,rcv_finish_us,"
              "fct_rcv_us,ideal_rcv_us,slowdown_rcv%s",
              s->cm_has_msgs ? "msg," : "", s->poisson ? ",poisson_group" : "");
    for (unsigned k = 0; k < ntc; k++)
        sb_printf(b, ",%s", tp->counter_names[k]);
    for (unsigned k = 0; k < s->cc->n_counters; k++)
        sb_printf(b, ",%s", s->cc->counter_names[k]);
    sb_printf(b, "\n");
}

void report_flow_row(const struct sim *s, uint32_t i, struct strbuf *b)
{
    const struct transport_ops *tp = transport_find(s->cfg.transport_name);
    unsigned ntc = tp->n_counters < 32 ? tp->n_counters : 32;
    const struct flow *f = &s->flows[i];
    /* sb_u64 and sb_putc write what "%u," and the like would (util.c) */
    sb_u64(b, f->id);
    sb_putc(b, ',');
    if (s->cm_has_msgs) {
        const struct cm_conn *c = &s->cm.conns[f->conn_index];
        sb_u64(b, c->msg ? c->msg : c->msg_index);
        sb_putc(b, ',');
    }
    sb_u64(b, f->src);
    sb_putc(b, ',');
    sb_u64(b, f->dst);
    sb_putc(b, ',');
    sb_u64(b, f->size_bytes);
    sb_putc(b, ',');
    if (f->posted)
        fmt_time_us(b, f->posted_ps);
    sb_putc(b, ',');
    /* one-way messages (SIRD) finish at delivery: no ACK's return in the ideal */
    simtime_ps ideal = f->tp->one_way ? ideal_delivery_ps(s, f) : ideal_fct_ps(s, f);
    if (f->state == FLOW_DONE) {
        fmt_time_us(b, f->finish_ps);
        sb_putc(b, ',');
        fmt_time_us(b, f->finish_ps - f->posted_ps);
        sb_putc(b, ',');
        fmt_time_us(b, ideal);
        sb_printf(b, ",%.6f,", (double)(f->finish_ps - f->posted_ps) / (double)ideal);
    } else {
        sb_puts(b, ",,");
        fmt_time_us(b, ideal);
        sb_puts(b, ",,");
    }
    simtime_ps ideal_rcv = ideal_delivery_ps(s, f);
    if (f->rcv_complete) {
        fmt_time_us(b, f->rcv_done_ps);
        sb_putc(b, ',');
        fmt_time_us(b, f->rcv_done_ps - f->posted_ps);
        sb_putc(b, ',');
        fmt_time_us(b, ideal_rcv);
        sb_printf(b, ",%.6f", (double)(f->rcv_done_ps - f->posted_ps) / (double)ideal_rcv);
    } else {
        sb_puts(b, ",,");
        fmt_time_us(b, ideal_rcv);
        sb_putc(b, ',');
    }
    if (s->poisson)
        sb_printf(b, ",%s", poisson_group_label(s, f));
    uint64_t tc[32] = {0};
    if (f->tp == tp && ntc && s->flow_tp_counters) /* a parallel run's sums (pdes_collect) */
        memcpy(tc, s->flow_tp_counters + (size_t)i * ntc, ntc * sizeof(uint64_t));
    else if (f->tp == tp && ntc)
        tp->counters(s, i, tc);
    for (unsigned k = 0; k < ntc; k++) {
        sb_putc(b, ',');
        if (f->tp == tp)
            sb_u64(b, tc[k]);
    }
    double ctr[32] = {0};
    unsigned nc = s->cc->n_counters < 32 ? s->cc->n_counters : 32;
    if (f->cc_counters)
        memcpy(ctr, f->cc_counters, nc * sizeof(double));
    else if (f->cc_state && s->cc->counters) /* a CC without counters (the -fixed ones) */
        s->cc->counters(f->cc_state, ctr);
    for (unsigned k = 0; k < nc; k++) {
        sb_putc(b, ',');
        sb_f0(b, ctr[k]);
    }
    sb_putc(b, '\n');
}

void report_flows_csv(const struct sim *s, struct strbuf *b)
{
    report_flows_header(s, b);
    for (uint32_t i = 0; i < s->n_flows; i++)
        report_flow_row(s, i, b);
}

static const char *tier_name(const struct sim *s, uint32_t node)
{
    if (node < s->n_hosts)
        return "host";
    static const char *names[] = {"tor", "agg", "core"};
    uint32_t tier = s->switches[node - s->n_hosts].tier;
    if (tier == 1 && s->topo.spec.tiers == 2)
        return "spine";
    return names[tier];
}

/* switches.csv (--switch-stats): one row per switch. */
static void switches_csv(const struct sim *s, struct strbuf *b)
{
    bool planes = s->topo.planes > 1; /* a plane column only then: other runs' files keep theirs */
    sb_printf(b, "node,kind,index,ports,peak_buffered_bytes,mean_buffered_bytes%s\n", planes ? ",plane" : "");
    double dur = s->now ? (double)s->now : 1.0;
    for (uint32_t i = 0; i < s->n_switches; i++) {
        const struct switch_node *sw = &s->switches[i];
        uint32_t node = s->n_hosts + i;
        sb_printf(b, "%u,%s,%u,%u,%llu,%.1f", node, tier_name(s, node), sw->index_in_tier,
                  (uint32_t)sw->n_down + sw->n_up, (unsigned long long)sw->peak_buffered_bytes,
                  sw->buffered_byte_ps / dur);
        if (planes)
            sb_printf(b, ",%u", sw->plane);
        sb_printf(b, "\n");
    }
}

static void queues_csv(const struct sim *s, struct strbuf *b)
{
    sb_printf(b, "port,node,node_kind,peer,peer_kind,direction,rate_gbps,limit_bytes,tx_packets,tx_bytes,"
                 "peak_bytes,mean_bytes,ecn_marks,trims,bounces,drops,failure_drops");
    /* with --classes N, each extra data class's own occupancy */
    for (uint32_t k = 2; k < s->cfg.n_classes; k++)
        sb_printf(b, ",peak_bytes_c%u,mean_bytes_c%u", k, k);
    if (s->pfc) /* only with PFC, so other runs' files keep their columns */
        sb_printf(b, ",pfc_pauses_sent,pfc_pauses_received,pfc_paused_us");
    if (s->topo.planes > 1) /* -planes: the plane of the port's link (a host port's: its ToR's) */
        sb_printf(b, ",plane");
    sb_printf(b, "\n");
    double dur = s->now ? (double)s->now : 1.0;
    char rate_txt[48] = "";
    uint64_t rate_txt_mbps = UINT64_MAX; /* no port's rate: the first port formats its own */
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const struct port *p = &s->ports[i];
        double mean = p->st.occupancy_byte_ps / dur;
        /* "%u,%u,%s,%u,%s,%s,%g,%u,%llu,%llu,%llu,%.1f,%llu,%llu,%llu,%llu,%llu" written field by field
         * (sb_u64 is "%llu" without printf; the rate's "%g" is kept per rate) */
        if (p->rate_mbps != rate_txt_mbps) {
            rate_txt_mbps = p->rate_mbps;
            snprintf(rate_txt, sizeof rate_txt, ",%g,", p->rate_mbps / 1000.0);
        }
        sb_u64(b, i);
        sb_putc(b, ',');
        sb_u64(b, p->owner_node);
        sb_putc(b, ',');
        sb_puts(b, tier_name(s, p->owner_node));
        sb_putc(b, ',');
        sb_u64(b, p->peer_node);
        sb_putc(b, ',');
        sb_puts(b, tier_name(s, p->peer_node));
        sb_puts(b, p->up ? ",up" : ",down");
        sb_puts(b, rate_txt);
        sb_u64(b, (p->flags & PORTF_HOST_NIC) ? 0 : p->data_limit_bytes);
        sb_putc(b, ',');
        sb_u64(b, p->st.tx_packets);
        sb_putc(b, ',');
        sb_u64(b, p->st.tx_bytes);
        sb_putc(b, ',');
        sb_u64(b, p->st.peak_bytes);
        sb_printf(b, ",%.1f,", mean);
        sb_u64(b, p->st.ecn_marks);
        sb_putc(b, ',');
        sb_u64(b, p->st.trims);
        sb_putc(b, ',');
        sb_u64(b, p->st.bounces);
        sb_putc(b, ',');
        sb_u64(b, p->st.drops);
        sb_putc(b, ',');
        sb_u64(b, p->st.failure_drops);
        for (uint32_t k = 2; k < s->cfg.n_classes; k++) {
            if (p->x)
                sb_printf(b, ",%u,%.1f", p->x->c[k - 2].peak_bytes, p->x->c[k - 2].occupancy_byte_ps / dur);
            else
                sb_printf(b, ",0,0.0"); /* a host NIC queues no data */
        }
        if (s->pfc)
            sb_printf(b, ",%llu,%llu,%.3f", (unsigned long long)s->pfc->st[i].pauses_sent,
                      (unsigned long long)s->pfc->st[i].pauses_received,
                      (double)s->pfc->st[i].paused_ps / PS_PER_US);
        if (s->topo.planes > 1) {
            uint32_t sw_node = p->owner_node < s->n_hosts ? p->peer_node : p->owner_node;
            sb_printf(b, ",%u", s->switches[sw_node - s->n_hosts].plane);
        }
        sb_printf(b, "\n");
    }
}

static void json_str(struct strbuf *b, const char *v)
{
    sb_printf(b, "\"");
    for (; v && *v; v++) {
        if (*v == '"' || *v == '\\')
            sb_printf(b, "\\%c", *v);
        else if ((unsigned char)*v < 0x20 || (unsigned char)*v >= 0x7f)
            sb_printf(b, "\\u%04x", (unsigned char)*v); /* keeps the file valid JSON for any path bytes */
        else
            sb_printf(b, "%c", *v);
    }
    sb_printf(b, "\"");
}

/* A queue limit in bytes; an infinite one (-q inf) is null. */
static void json_queue(struct strbuf *b, uint32_t bytes)
{
    if (bytes == QUEUE_INFINITE_BYTES)
        sb_printf(b, "null");
    else
        sb_printf(b, "%u", bytes);
}

static void summary_json(const struct sim *s, const struct run_stats *r, struct strbuf *b)
{
    const struct config *c = &s->cfg;
    sb_printf(b, "{\n  \"tool\": \"spraysim\",\n  \"version\": ");
    json_str(b, spraysim_version);
    sb_printf(b, ",\n  \"commit\": ");
    json_str(b, spraysim_commit);
    sb_printf(b, ",\n  \"inputs\": {\"tm\": ");
    if (c->tm_path)
        json_str(b, c->tm_path);
    else
        sb_printf(b, "null");
    sb_printf(b, ", \"workload\": ");
    if (c->workload_spec)
        json_str(b, c->workload_spec);
    else
        sb_printf(b, "null");
    if (c->goal_path) { /* only then, so other runs keep their summary */
        sb_printf(b, ", \"goal\": ");
        json_str(b, c->goal_path);
    }
    sb_printf(b, ", \"topo\": ");
    if (c->topo_path)
        json_str(b, c->topo_path);
    else
        sb_printf(b, "null");
    sb_printf(b, "},\n  \"config\": {\"seed\": %llu, \"cc\": ", (unsigned long long)c->seed);
    json_str(b, s->cc->name);
    sb_printf(b, ", \"lb\": ");
    json_str(b, s->lb->name);
    sb_printf(b, ", \"paths\": %u, \"trimming\": %s, \"mtu_bytes\": %u, \"linkspeed_gbps\": %g, \"end_us\": %.3f, ",
              c->paths, c->trimming ? "true" : "false", c->mtu_bytes, c->linkspeed_mbps / 1000.0,
              (double)c->end_ps / PS_PER_US);
    /* null = the algorithm's own default (see docs/models.md, NSCC) */
    if (c->target_qdelay_ps)
        sb_printf(b, "\"target_qdelay_us\": %.6f, ", (double)c->target_qdelay_ps / PS_PER_US);
    else
        sb_printf(b, "\"target_qdelay_us\": null, ");
    if (c->qa_gate >= 0)
        sb_printf(b, "\"qa_gate\": %d, ", c->qa_gate);
    else
        sb_printf(b, "\"qa_gate\": null, ");
    static const char *routing_names[] = {"ecmp", "ar", "ev-mod"};
    sb_printf(b, "\"sleek\": %s, \"routing\": \"%s\", \"sched\": \"%s\", \"reps_freeze\": %s, "
                 "\"detect_us\": %.3f, \"failed_links\": %u, ",
              c->sleek ? "true" : "false", routing_names[c->routing % 3], c->drr ? "drr" : "fifo",
              reps_freeze(s) ? "true" : "false", (double)c->detect_ps / PS_PER_US, c->failed_links);
    if (c->routing == ROUTE_AR) /* what adaptive routing rested on (fabric.c): only then, others unchanged */
        sb_printf(b, "\"ar_measure\": \"%s\", \"ar_quantum_bytes\": %u, \"ar_granularity\": \"%s\", ",
                  c->ar_bands ? "bands" : "bytes", c->ar_quantum_bytes, c->ar_flowlet ? "flow" : "packet");
    sb_printf(b, "\"random_failures\": %.15g, ", c->random_failure_p);
    static const char *loss_names[] = {"nack", "dupack", "sack"};
    sb_printf(b, "\"transport\": \"%s\", \"loss_detect\": \"%s\", \"switch_stats\": %s, \"switch_classes\": %u, "
                 "\"class_options\": {",
              c->transport_name, loss_names[s->loss_mode % 3], c->switch_stats ? "true" : "false", c->n_classes);
    for (unsigned i = 0; i < c->n_class_opts; i++)
        sb_printf(b, "%s\"%u:%s\": %.0f", i ? ", " : "", c->class_opts[i].cls, c->class_opts[i].name,
                  c->class_opts[i].value);
    sb_printf(b, "}, \"cc_options\": {");
    for (unsigned i = 0; i < c->n_cc_opts; i++) {
        sb_printf(b, "%s", i ? ", " : "");
        json_str(b, c->cc_opts[i].name);
        sb_printf(b, ": %.17g", c->cc_opts[i].value);
    }
    sb_printf(b, "}},\n");
    sb_printf(b, "  \"network\": {\"hosts\": %u, \"switches\": %u, \"ports\": %u, \"tiers\": %u, ", s->n_hosts,
              s->n_switches, s->n_ports, s->topo.spec.tiers);
    if (s->topo.planes > 1) /* only then: other runs' summaries keep their keys */
        sb_printf(b, "\"planes\": %u, ", s->topo.planes);
    sb_printf(b, "\"base_rtt_us\": %.6f, \"bdp_bytes\": %llu, \"queue_bytes\": ", (double)s->base_rtt_ps / PS_PER_US,
              (unsigned long long)s->bdp_bytes);
    json_queue(b, s->queue_bytes);
    /* the configured RED band (class_policy says what each class does with it) */
    sb_printf(b, ", \"ecn_kmin_bytes\": %u, \"ecn_kmax_bytes\": %u, \"min_rto_us\": %.6f, ",
              s->ecn_kmin_bytes_default, s->ecn_kmax_bytes_default, (double)s->min_rto_ps / PS_PER_US);
    sb_printf(b, "\"class_policy\": "); /* each data class's ECN, trimming and PFC as used (net/policy.c) */
    net_class_policy_json(s, b);
    sb_printf(b, ", ");
    /* counted only when --random-failures draws them */
    if (c->random_failure_p > 0)
        sb_printf(b, "\"inter_switch_links\": %u, \"random_failed_links\": %u, ", s->inter_switch_links,
                  s->random_failed_links);
    else
        sb_printf(b, "\"inter_switch_links\": null, \"random_failed_links\": null, ");
    sb_printf(b, "\"queue_bytes_by_tier\": [");
    /* per tier: the queue of its down ports and (but the top tier) of its up ports */
    for (uint32_t i = 0; i < s->topo.spec.tiers; i++) {
        sb_printf(b, "%s{\"tier\": %u, \"down\": ", i ? ", " : "", i);
        json_queue(b, s->tier_queue_down_bytes[i]);
        sb_printf(b, ", \"up\": ");
        if (i + 1 < s->topo.spec.tiers)
            json_queue(b, s->tier_queue_up_bytes[i]);
        else
            sb_printf(b, "null");
        sb_printf(b, "}");
    }
    sb_printf(b, "]},\n");
    sb_printf(b, "  \"flows\": {\"total\": %u, \"finished\": %u, \"unfinished\": %u", s->n_msgs, r->finished,
              s->n_msgs - r->finished);
    /* the FCT figures' population and its censored part (fct_n messages
     * started, fct_unfinished of them counted at the run's end, making every
     * figure a lower bound: fct_lower_bound) */
    sb_printf(b, ", \"not_started\": %u, \"fct_n\": %u, \"fct_unfinished\": %u, \"fct_lower_bound\": %s",
              r->not_started, r->fct_n, r->fct_unfinished, r->fct_unfinished ? "true" : "false");
    /* statistics over no started message do not exist: null, never 0 */
    if (r->fct_n)
        sb_printf(b, ", \"fct_median_us\": %.6f, \"fct_p99_us\": %.6f, \"fct_max_us\": %.6f, \"fct_mean_us\": %.6f},\n",
                  r->fct_median_us, r->fct_p99_us, r->fct_max_us, r->fct_mean_us);
    else
        sb_printf(b, ", \"fct_median_us\": null, \"fct_p99_us\": null, \"fct_max_us\": null, \"fct_mean_us\": null},\n");
    sb_printf(b, "  \"packets\": {\"data_sent\": %llu, \"retransmits\": %llu, \"acks\": %llu, \"nacks\": %llu, "
                 "\"trims\": %llu, \"bounced\": %llu, \"drops\": %llu, \"ecn_marks\": %llu, \"timeouts\": %llu, "
                 "\"data_delivered\": %llu, \"trimmed_delivered\": %llu, \"data_in_network_at_end\": %llu, "
                 "\"probes\": %llu, \"rts\": %llu, \"failure_drops\": %llu},\n",
              (unsigned long long)s->tot.data_pkts_sent, (unsigned long long)s->tot.rtx_pkts_sent,
              (unsigned long long)s->tot.acks_sent, (unsigned long long)s->tot.nacks_sent, (unsigned long long)r->trims,
              (unsigned long long)s->tot.data_bounced, (unsigned long long)r->drops, (unsigned long long)r->ecn_marks,
              (unsigned long long)s->tot.rtos, (unsigned long long)s->tot.data_pkts_delivered, (unsigned long long)s->tot.trimmed_delivered,
              (unsigned long long)r->data_in_network, (unsigned long long)s->tot.probes_sent,
              (unsigned long long)s->tot.rts_sent, (unsigned long long)s->tot.failure_drops);
    if (s->cfg.reroute == REROUTE_BOUNCE)
        sb_printf(b, "  \"reroute\": {\"mode\": \"bounce\", \"valleys\": %llu, \"valley_limit_hits\": %llu},\n",
                  (unsigned long long)s->tot.valleys, (unsigned long long)s->tot.valley_limit_hits);
    if (s->cfg.switch_stats) {
        struct tier_buffers tb[TOPO_MAX_TIERS];
        tier_buffers(s, tb);
        sb_printf(b, "  \"switch_buffers\": [");
        for (uint32_t t = 0; t < s->topo.spec.tiers; t++)
            sb_printf(b, "%s{\"kind\": \"%s\", \"switches\": %u, \"max_peak_bytes\": %llu, \"mean_mean_bytes\": %.1f, "
                         "\"max_mean_bytes\": %.1f}",
                      t ? ", " : "", tier_name(s, s->n_hosts + (t == 0 ? 0 : t == 1 ? s->topo.n_tor : s->topo.n_tor + s->topo.n_agg)),
                      tb[t].switches, (unsigned long long)tb[t].max_peak_bytes,
                      tb[t].switches ? tb[t].sum_mean_bytes / tb[t].switches : 0.0, tb[t].max_mean_bytes);
        sb_printf(b, "],\n");
    }
    if (s->poisson)
        poisson_json(s, b);
    if (s->goal)
        goal_json(s, b);
    if (s->pfc) {
        uint64_t pauses = 0;
        for (uint32_t i = 0; i < s->n_ports; i++)
            pauses += s->pfc->st[i].pauses_received;
        sb_printf(b, "  \"pfc\": {\"low_pkts\": %u, \"high_pkts\": %u, \"pauses\": %llu, \"deadlock\": %s",
                  s->cfg.pfc_low_pkts, s->cfg.pfc_high_pkts, (unsigned long long)pauses,
                  s->pfc->deadlock ? "true" : "false");
        if (s->pfc->deadlock)
            sb_printf(b, ", \"deadlock_since_us\": %.3f, \"deadlock_cycle_ports\": %u",
                      (double)s->pfc->deadlock_at_ps / PS_PER_US, s->pfc->deadlock_cycle_ports);
        for (uint32_t k = 0; s->pfc->deadlock && s->pfc->deadlock_cycle && k < s->pfc->deadlock_cycle_ports; k++) {
            char name[64];
            pfc_port_name(s, s->pfc->deadlock_cycle[k], name, sizeof name);
            sb_printf(b, "%s\"%s\"%s", k ? ", " : ", \"deadlock_cycle\": [", name,
                      k + 1 == s->pfc->deadlock_cycle_ports ? "]" : "");
        }
        if (s->cfg.lossless_mask) {
            /* a mixed fabric: what each switch class went through, to show
             * the lossless ones paused and the lossy ones trimmed (only
             * then, so other runs keep their summary) */
            sb_printf(b, ", \"by_class\": [");
            for (uint32_t k = 1; k < s->cfg.n_classes && k < PFC_CLASSES; k++)
                sb_printf(b, "%s{\"class\": %u, \"lossless\": %s, \"pauses_sent\": %llu, \"trims\": %llu, "
                             "\"drops\": %llu}",
                          k > 1 ? ", " : "", k, (s->cfg.lossless_mask >> k) & 1 ? "true" : "false",
                          (unsigned long long)s->pfc->pauses_by_class[k], (unsigned long long)s->tot.class_trims[k],
                          (unsigned long long)s->tot.class_drops[k]);
            sb_printf(b, "]");
        }
        sb_printf(b, "},\n");
    }
    /* the run's transport's own section (transport_ops.summary_json) */
    const struct transport_ops *run_tp = transport_find(s->cfg.transport_name);
    if (run_tp && run_tp->summary_json)
        run_tp->summary_json(s, b);
    if (s->ts) { /* only then, so other runs keep their summary */
        struct ts_totals tt;
        ts_totals(s->ts, &tt);
        sb_printf(b, "  \"timeseries\": {\"interval_us\": ");
        if (tt.change)
            sb_printf(b, "\"change\"");
        else
            sb_printf(b, "%.6f", (double)tt.interval_ps / PS_PER_US);
        sb_printf(b, ", \"estimate_bytes\": %llu, \"rows_flows\": %llu, \"rows_ports\": %llu, \"rows_hosts\": %llu},\n",
                  (unsigned long long)tt.estimate_bytes, (unsigned long long)tt.rows_flows,
                  (unsigned long long)tt.rows_ports, (unsigned long long)tt.rows_hosts);
    }
    sb_printf(b, "  \"run\": {\"simulated_us\": %.6f, \"events\": %llu}\n}\n", (double)s->now / PS_PER_US,
              (unsigned long long)s->events_processed);
}

/* Every file a run may write (switches.csv only with --switch-stats): a
 * directory holding only these is one spraysim may replace. */
static const char *const output_names[] = {"flows.csv", "queues.csv", "switches.csv", "summary.json",
                                           "ts_flows.csv", "ts_ports.csv", "ts_hosts.csv", "ranks.csv",
                                           "goal_ops.csv", NULL};
static const char *const ts_names[] = {"ts_flows.csv", "ts_ports.csv", "ts_hosts.csv"};

struct report_out {
    struct outdir *dir;
    FILE *ts[3]; /* time-series streams in the staging directory (NULL when not selected) */
};

struct report_out *report_out_prepare(const char *dir)
{
    char err[1024];
    struct outdir *d = outdir_prepare(dir, output_names, err, sizeof err);
    if (!d)
        die_input("%s", err);
    struct report_out *o = xcalloc(1, sizeof *o);
    o->dir = d;
    return o;
}

void report_out_abort(struct report_out *o)
{
    outdir_abort(o->dir);
    free(o);
}

const char *report_out_path(struct report_out *o, const char *name)
{
    return outdir_file_path(o->dir, name);
}

void report_out_attach_ts(struct report_out *o, struct sim *s)
{
    if (!s->ts)
        return;
    for (unsigned i = 0; i < 3; i++) {
        if (!ts_file_selected(s->ts, i))
            continue;
        const char *path = outdir_file_path(o->dir, ts_names[i]);
        if (!path || !(o->ts[i] = fopen(path, "w")))
            die_internal("cannot write %s: %s", path ? path : ts_names[i], strerror(errno));
        setvbuf(o->ts[i], NULL, _IOFBF, 1 << 20); /* rows are small: write in large blocks */
    }
    ts_attach(s->ts, o->ts[0], o->ts[1], o->ts[2]);
}

/* Flushes, syncs and closes a time-series file; false when any write failed. */
static bool ts_stream_close(FILE *f)
{
    bool ok = fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
    return fclose(f) == 0 && ok;
}

static void write_or_die(struct report_out *o, const char *name, const struct strbuf *b)
{
    char err[1024];
    if (!outdir_write(o->dir, name, b->data, b->len, err, sizeof err)) {
        outdir_abort(o->dir);
        die_internal("%s", err);
    }
}

void report_out_commit(struct report_out *o, const struct sim *s, const struct run_stats *r)
{
    for (unsigned i = 0; i < 3; i++)
        if (o->ts[i] && !ts_stream_close(o->ts[i])) {
            int e = errno;
            outdir_abort(o->dir);
            die_internal("cannot write %s: %s", ts_names[i], strerror(e));
        }
    struct strbuf b;
    sb_init(&b);
    if (!s->fstream) { /* else streamed into the staging directory (flowstream.c) */
        report_flows_csv(s, &b);
        write_or_die(o, "flows.csv", &b);
    }
    b.len = 0;
    queues_csv(s, &b);
    write_or_die(o, "queues.csv", &b);
    if (s->cfg.switch_stats) {
        b.len = 0;
        switches_csv(s, &b);
        write_or_die(o, "switches.csv", &b);
    }
    if (s->goal) { /* GOAL schedules: each rank's finish, and with --goal-ops each operation */
        b.len = 0;
        goal_ranks_csv(s, &b);
        write_or_die(o, "ranks.csv", &b);
        if (s->cfg.goal_ops) {
            b.len = 0;
            goal_ops_csv(s, &b);
            write_or_die(o, "goal_ops.csv", &b);
        }
    }
    b.len = 0;
    summary_json(s, r, &b);
    write_or_die(o, "summary.json", &b);
    sb_free(&b);
    char err[1024];
    bool ok = outdir_commit(o->dir, err, sizeof err);
    free(o);
    if (!ok)
        die_internal("%s", err);
}

void report_write_files(const struct sim *s, const struct run_stats *r, const char *dir)
{
    report_out_commit(report_out_prepare(dir), s, r);
}
