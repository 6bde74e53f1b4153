/* timeseries.h: opt-in, bounded time series of a run (docs/outputs.md "Time
 * series"): per-flow window or rate, RTT and delivered bytes for selected
 * flows (ts_flows.csv), per-port queue occupancy for selected ports
 * (ts_ports.csv), per-host goodput for selected hosts (ts_hosts.csv).
 *
 * Off unless a --ts-flows, --ts-ports or --ts-hosts flag selects something;
 * then s->ts is non-NULL. Sampling is driven by one periodic event per
 * interval (EV_TS_SAMPLE), never by the per-packet path; the "change" mode
 * instead compares the selected objects after every event inside the
 * window, through a second copy of the event loop that sim_run uses only
 * then (so a run without it pays nothing).
 */
#ifndef SPRAYSIM_TIMESERIES_H
#define SPRAYSIM_TIMESERIES_H

#include "../core/core.h"

#include <stdio.h>

/* A selection: "all", or ranges of numbers. */
struct ts_select {
    bool given;
    bool all;
    uint32_t n;             /* ranges */
    uint32_t (*range)[2];   /* [lo, hi], inclusive, in the order given */
};

/* The --ts-* flags as parsed (struct config's `ts`). */
struct ts_config {
    struct ts_select flows;  /* --ts-flows: flows.csv flow_id values */
    struct ts_select ports;  /* --ts-ports: queues.csv port values */
    struct ts_select hosts;  /* --ts-hosts: host numbers (flows.csv src/dst) */
    simtime_ps interval_ps;  /* --ts-interval US; 0 = the base RTT */
    bool change;             /* --ts-interval change */
    bool interval_given;
    bool window_given;       /* --ts-window START:END */
    simtime_ps win_start_ps, win_end_ps;
    double max_mb;           /* --ts-max-mb: refuse a larger estimate */
    bool max_given;
};

#define TS_DEFAULT_MAX_MB 512.0 /* ours: a capture larger than this needs --ts-max-mb */
#define TS_ANNOUNCE_BYTES (16ull << 20) /* ours: estimates from 16 MiB on are printed before the run */

/* Bytes per row the estimate assumes (typical rows at 100 Gb/s, measured
 * on docs/outputs.md's examples, rounded up). */
#define TS_FLOW_ROW_BYTES 64
#define TS_PORT_ROW_BYTES 56
#define TS_HOST_ROW_BYTES 40

/* Is `arg` one of the --ts-* flags? */
bool ts_is_flag(const char *arg);
/* Parses one --ts-* flag's value into c; false with one line in err
 * naming the flag. */
bool ts_parse_flag(struct ts_config *c, const char *flag, const char *value, char *err, size_t errlen);
/* Any selection given. */
bool ts_wanted(const struct ts_config *c);
/* Releases what parsing allocated. */
void ts_config_free(struct ts_config *c);

struct sim;
struct ts_run;

/* After the network and flows exist: checks the selections against them
 * and the flags against each other (exit 2 naming the flag), estimates the
 * size (printed when large, refused above --ts-max-mb), and schedules the
 * first sample. Sets s->ts; nothing when no selection was given. */
void ts_setup(struct sim *s);
/* Where the rows go: three streams (NULL for a file not selected). */
void ts_attach(struct ts_run *t, FILE *flows, FILE *ports, FILE *hosts);
/* The EV_TS_SAMPLE event. */
void ts_sample_event(struct sim *s);
/* --stream is about to recycle flow fi's slot (a finished message): its
 * last state is kept for its last row and its host's delivered bytes. */
void ts_flow_retire(struct sim *s, uint32_t fi);
/* Change mode: after every event of the run (the second event loop). */
void ts_after_event(struct sim *s);
/* After the run: the final sample at the run's end (when inside the
 * window and not sampled at that time already); flushes the streams.
 * False with err when a stream failed. */
bool ts_finish(struct sim *s, char *err, size_t errlen);
void ts_free(struct sim *s);

/* What the estimate said and what was written (summary.json). */
struct ts_totals {
    uint64_t estimate_bytes;
    uint64_t rows_flows, rows_ports, rows_hosts;
    uint64_t samples;        /* sampling instants (interval mode) or events examined (change mode) */
    simtime_ps interval_ps;  /* 0 in change mode */
    bool change;
};
void ts_totals(const struct ts_run *t, struct ts_totals *out);
bool ts_file_selected(const struct ts_run *t, unsigned which); /* 0 flows, 1 ports, 2 hosts */

/* Parallel runs (src/mpi/pdes.c, docs/parallel.md). Each
 * process samples the ports and hosts it owns and the flows it sends
 * (--ts-flows: refused, exit 2, for a selected flow whose ends are on two
 * processes), and keeps each row with the key that places it: the instant,
 * the event's place there (sim.h cur_order_max), then, for a look every
 * process makes (a sample, a link change, the run's end), the object's
 * number, else the process and its row count. part[node] is a node's
 * process. False, with one line in err, for such a flow. */
bool ts_split(struct sim *s, uint32_t rank, const uint32_t *part, char *err, size_t errlen);
/* After the run, before ts_finish: every process schedules the next sample
 * (it cannot see whether the others have events pending); unless events
 * were left pending anywhere (`pending`: the run ended at -end or with
 * every flow finished), the plain run takes samples up to the first after
 * its last event (last_ps, last_order: the last event of any process,
 * any_event false when none ran). Drops the others and their rows; returns
 * the time of the last sample kept (the plain run's clock is the later of
 * it and the last event's), 0 if none. */
simtime_ps ts_split_settle(struct sim *s, simtime_ps last_ps, uint64_t last_order, bool any_event, bool pending);
/* This process's rows of file `which` as records for rank 0 (*blob:
 * malloc'd); returns their bytes. */
size_t ts_split_pack(struct sim *s, unsigned which, char **blob);
/* Rank 0: every process's records of file `which`, written in the plain run's order. */
void ts_split_write(struct sim *s, unsigned which, const char *all, size_t bytes);
/* Samples this process counted in looks of its own events (the shared ones
 * every process counts once), and rank 0's sum of the others'. */
uint64_t ts_split_own_samples(const struct sim *s);
void ts_split_set_samples(struct sim *s, uint64_t others_own);

#endif
