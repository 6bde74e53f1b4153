/* report.h: what a finished run reports: the human summary on stdout and
 * the machine-readable files (flows.csv, queues.csv, summary.json). */
#ifndef SPRAYSIM_REPORT_H
#define SPRAYSIM_REPORT_H

#include "../sim.h"

struct run_stats {
    double wall_s;
    uint64_t peak_rss_kb;
    uint32_t finished;
    /* The FCT figures (to the sender's last ACK) are over every message
     * started by the run's end (fct_n of them); one still unfinished counts
     * as (end - start), a lower bound of its FCT, so every figure is a lower
     * bound when fct_unfinished > 0 (docs/outputs.md "Unfinished messages"). Messages
     * never started (not_started) have no FCT at all and are not counted. */
    uint32_t fct_n, fct_unfinished, not_started;
    double fct_median_us, fct_p99_us, fct_max_us, fct_mean_us;
    uint64_t drops, trims, ecn_marks;
    /* packet conservation, counted independently of the send counters */
    uint64_t data_in_network;   /* data packets in queues, in service or on links */
    uint64_t pkts_in_network;   /* all packets (data and control) likewise */
    uint64_t data_drops;
};

/* Completion time of flow f alone on an idle network, from first principles
 * (line rate at the host, store-and-forward at each hop, the ACK's return). */
simtime_ps ideal_fct_ps(const struct sim *s, const struct flow *f);
/* The same without the ACK's return: the receiver has every byte (the
 * ideal for seed 001's slowdown, specs/sird.md Sec. 2.5). */
simtime_ps ideal_delivery_ps(const struct sim *s, const struct flow *f);
/* Nearest-rank percentile p (0..100) of sorted v[0..n-1]; 0 when n = 0. */
double report_percentile(const double *v, uint32_t n, double p);
/* qsort comparison of doubles, ascending. */
int report_cmp_double(const void *a, const void *b);
void report_collect(const struct sim *s, double wall_s, struct run_stats *r);
/* The summary on stdout, then report_warn_censored (so --quiet, which
 * prints no figure, warns of none). */
void report_stdout(const struct sim *s, const struct run_stats *r);
/* One warning line on stderr when a figure of the summary (FCT, Poisson
 * slowdowns) counts unfinished messages at the run's end; nothing else. */
void report_warn_censored(const struct sim *s, const struct run_stats *r);
/* The output set: DIR/flows.csv, DIR/queues.csv and DIR/summary.json,
 * replacing DIR as a whole. prepare() checks DIR before the run (exit 2
 * naming --out when it is unusable); commit() writes the set and frees the
 * handle (exit 1 if the disk fails). */
struct report_out;
struct report_out *report_out_prepare(const char *dir);
void report_out_commit(struct report_out *o, const struct sim *s, const struct run_stats *r);
/* Removes the staging directory report_out_prepare made, and frees o. */
void report_out_abort(struct report_out *o);
/* Where file `name` of the set is staged (--stream writes flows.csv there during the run). */
const char *report_out_path(struct report_out *o, const char *name);
/* flows.csv's header line, and flow i's row (report_flows_csv is the header and every row). */
void report_flows_header(const struct sim *s, struct strbuf *b);
void report_flow_row(const struct sim *s, uint32_t i, struct strbuf *b);
/* With time series (s->ts): opens their files in the staging directory
 * and hands them to the sampler, before the run. */
void report_out_attach_ts(struct report_out *o, struct sim *s);
/* prepare + commit, for callers that already ran. */
void report_write_files(const struct sim *s, const struct run_stats *r, const char *dir);
/* Builds the flows.csv text (for tests of byte-identical output). */
void report_flows_csv(const struct sim *s, struct strbuf *b);

#endif
