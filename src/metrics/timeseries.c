/* timeseries.c: opt-in, bounded time series (docs/outputs.md "Time series").
 *
 * What is sampled. Flows (--ts-flows): what the flow's transport knows at
 * the instant (its ops table's sample(): window or pacing rate, latest RTT,
 * bytes in flight, payload delivered), read without changing anything, so
 * the algorithms' numbers are untouched. Ports (--ts-ports): the port's
 * queued bytes per class and its cumulative counters. Hosts (--ts-hosts):
 * the payload delivered to the host over every flow it receives, and the
 * goodput since the host's previous row.
 *
 * When. Interval mode: one EV_TS_SAMPLE event per interval inside the
 * window (first at the window's start), plus one final sample at the run's
 * end; an active flow gets a row at every sample and a finished one a last
 * row at the first sample after it finished; every selected port and host
 * gets a row at every sample. The event reschedules itself only while
 * other events are pending, so it never keeps a run going. It does not
 * count in the run's events (summary.json stays as without time series).
 * Change mode (--ts-interval change): rows for everything at the window's
 * start, then after every event inside the window a row for each selected
 * object whose recorded values changed.
 *
 * Bounded. Before the run the size is estimated from the selection, the
 * window and the interval, printed when large, and refused above
 * --ts-max-mb. Rows are streamed into the output set's staging directory,
 * so memory stays constant whatever the capture's size.
 *
 * Parallel runs (ts_split, src/mpi/pdes.c): each process samples what it
 * owns and keeps its rows in memory with their place in the plain run's
 * order; rank 0 merges them after the run.
 */
#include "timeseries.h"

#include "../core/parse.h"
#include "../sim.h"
#include "flowstream.h"
#include "../transport/flow.h"
#include "../transport/transport.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- flags ------------------------------------------------------------------ */

static const char *const ts_flags[] = {"--ts-flows", "--ts-ports", "--ts-hosts", "--ts-interval", "--ts-window",
                                       "--ts-max-mb", NULL};

bool ts_is_flag(const char *arg)
{
    for (const char *const *f = ts_flags; *f; f++)
        if (!strcmp(arg, *f))
            return true;
    return false;
}

#define TS_MAX_RANGES 4096 /* ours: a command line names at most this many items */

/* "all" or N[,N|A-B]...: numbers as the strict parser reads them. */
static bool parse_select(struct ts_select *sel, const char *flag, const char *v, char *err, size_t errlen)
{
    char b[SHOWN_BUF];
    free(sel->range);
    memset(sel, 0, sizeof *sel);
    sel->given = true;
    if (!strcmp(v, "all")) {
        sel->all = true;
        return true;
    }
    if (!*v) {
        snprintf(err, errlen, "%s: empty list (give numbers such as 0,3,8-15, or all)", flag);
        return false;
    }
    size_t cap = 8;
    sel->range = xmalloc(cap * sizeof *sel->range);
    const char *p = v;
    while (1) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[48];
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, "%s: '%s' is not a list of numbers and ranges A-B, or all", flag, shown(v, b));
            return false;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *dash = strchr(item, '-');
        uint64_t lo = 0, hi = 0;
        if (dash)
            *dash = '\0';
        if (parse_u64(item, &lo) != NUM_OK || (dash && parse_u64(dash + 1, &hi) != NUM_OK)) {
            snprintf(err, errlen, "%s: '%s' is not a list of numbers and ranges A-B, or all", flag, shown(v, b));
            return false;
        }
        if (!dash)
            hi = lo;
        if (lo > UINT32_MAX || hi > UINT32_MAX || lo > hi) {
            snprintf(err, errlen, "%s: '%s' has a range that is reversed or beyond %u", flag, shown(v, b),
                     UINT32_MAX);
            return false;
        }
        if (sel->n == TS_MAX_RANGES) {
            snprintf(err, errlen, "%s: more than %u items (use ranges A-B, or all)", flag, TS_MAX_RANGES);
            return false;
        }
        if (sel->n == cap) {
            cap *= 2;
            sel->range = xrealloc(sel->range, cap * sizeof *sel->range);
        }
        sel->range[sel->n][0] = (uint32_t)lo;
        sel->range[sel->n][1] = (uint32_t)hi;
        sel->n++;
        if (!comma)
            return true;
        p = comma + 1;
    }
}

static bool parse_us(const char *flag, const char *what, const char *v, double *us, char *err, size_t errlen)
{
    char b[SHOWN_BUF];
    if (parse_real(v, us) != NUM_OK || *us < 0 || *us > 1e9) {
        snprintf(err, errlen, "%s: %s '%s' is not a time in us from 0 to 1e9", flag, what, shown(v, b));
        return false;
    }
    return true;
}

bool ts_parse_flag(struct ts_config *c, const char *flag, const char *v, char *err, size_t errlen)
{
    char b[SHOWN_BUF];
    if (!strcmp(flag, "--ts-flows"))
        return parse_select(&c->flows, flag, v, err, errlen);
    if (!strcmp(flag, "--ts-ports"))
        return parse_select(&c->ports, flag, v, err, errlen);
    if (!strcmp(flag, "--ts-hosts"))
        return parse_select(&c->hosts, flag, v, err, errlen);
    if (!strcmp(flag, "--ts-interval")) {
        c->interval_given = true;
        c->change = !strcmp(v, "change");
        if (c->change) {
            c->interval_ps = 0;
            return true;
        }
        double us;
        if (parse_real(v, &us) != NUM_OK || us < 1e-3 || us > 1e9) {
            snprintf(err, errlen, "--ts-interval: '%s' is neither change nor an interval in us from 0.001 to 1e9",
                     shown(v, b));
            return false;
        }
        c->interval_ps = (simtime_ps)llround(us * (double)PS_PER_US);
        return true;
    }
    if (!strcmp(flag, "--ts-window")) {
        const char *colon = strchr(v, ':');
        if (!colon) {
            snprintf(err, errlen, "--ts-window: '%s' is not START:END (us)", shown(v, b));
            return false;
        }
        char start[64];
        size_t n = (size_t)(colon - v);
        if (n >= sizeof start) {
            snprintf(err, errlen, "--ts-window: '%s' is not START:END (us)", shown(v, b));
            return false;
        }
        memcpy(start, v, n);
        start[n] = '\0';
        double a, z;
        if (!parse_us(flag, "START", start, &a, err, errlen) || !parse_us(flag, "END", colon + 1, &z, err, errlen))
            return false;
        if (a >= z) {
            snprintf(err, errlen, "--ts-window: START %g us is not before END %g us", a, z);
            return false;
        }
        c->window_given = true;
        c->win_start_ps = (simtime_ps)llround(a * (double)PS_PER_US);
        c->win_end_ps = (simtime_ps)llround(z * (double)PS_PER_US);
        return true;
    }
    if (!strcmp(flag, "--ts-max-mb")) {
        double mb;
        if (parse_real(v, &mb) != NUM_OK || mb <= 0 || mb > 1e9) {
            snprintf(err, errlen, "--ts-max-mb: '%s' is not a size in MB above 0 (up to 1e9)", shown(v, b));
            return false;
        }
        c->max_mb = mb;
        c->max_given = true;
        return true;
    }
    snprintf(err, errlen, "unknown flag '%s' (see --help)", shown(flag, b));
    return false;
}

bool ts_wanted(const struct ts_config *c)
{
    return c->flows.given || c->ports.given || c->hosts.given;
}

void ts_config_free(struct ts_config *c)
{
    free(c->flows.range);
    free(c->ports.range);
    free(c->hosts.range);
    c->flows.range = c->ports.range = c->hosts.range = NULL;
    c->flows.n = c->ports.n = c->hosts.n = 0;
}

static bool sel_has(const struct ts_select *sel, uint32_t v)
{
    if (sel->all)
        return true;
    for (uint32_t i = 0; i < sel->n; i++)
        if (v >= sel->range[i][0] && v <= sel->range[i][1])
            return true;
    return false;
}

/* ---- the run's state ---------------------------------------------------------- */

/* A flow followed for its own rows (`rows`) or for its receiving host's
 * goodput (`feeds_host`), with what was last recorded. */
struct ts_watch {
    uint32_t fi;
    uint32_t ordinal;         /* the message in slot fi (--stream may recycle the slot) */
    uint32_t id;              /* its flows.csv flow_id and msg values */
    uint32_t msg;
    uint32_t dst;
    uint64_t size_bytes;
    bool rows, feeds_host;
    bool retired;             /* --stream recycled its slot: `final` holds its state just before */
    bool written;             /* a row exists (change mode compares with `last`) */
    bool done_written;        /* the row after it finished is written: no more */
    struct flow_sample last;
    struct flow_sample final;
    uint64_t delivered_seen;  /* delivered bytes already added to its host */
};

/* What a port row records, to see change. */
struct ts_port_rec {
    uint32_t data_bytes, ctl_bytes;
    uint32_t cls_bytes[PORT_MAX_CLASSES - 2];
    uint64_t tx_bytes, ecn_marks, trims, drops;
};

struct ts_host {
    uint32_t host;
    uint64_t delivered;           /* payload delivered to it so far */
    uint64_t written_delivered;   /* at its latest row */
    simtime_ps written_ps;
    bool written;
};

struct ts_run {
    simtime_ps interval_ps;       /* 0 in change mode */
    simtime_ps start_ps, end_ps;  /* the window */
    bool change;
    bool started;                 /* the window's first sample happened */
    bool sampled_at_last;
    simtime_ps last_sample_ps;
    FILE *out[3];                 /* flows, ports, hosts */
    bool want[3];
    struct ts_watch *w;
    uint32_t n_w, cap_w;
    uint32_t flows_seen;          /* flows 0 .. flows_seen-1 were considered for watching */
    uint32_t msgs_seen;           /* messages (ordinals) 0 .. msgs_seen-1 likewise */
    uint32_t *cand;               /* slots --stream freed since the last look: where new messages may be */
    uint32_t n_cand, cap_cand;
    bool msg_col;                 /* ts_flows.csv has flows.csv's msg column */
    uint32_t *ports;              /* selected port indices, ascending */
    uint32_t n_ports;
    struct ts_port_rec *port_last;
    bool *port_written;
    struct ts_host *hosts;        /* selected hosts, ascending */
    uint32_t n_hosts;
    uint32_t *host_slot;          /* [host] -> index in hosts, UINT32_MAX if not selected */
    const struct ts_config *cfg;
    uint32_t n_classes;           /* switch classes per port (--classes) */
    struct ts_totals tot;
    struct ts_split *split;       /* a parallel run's process: its share, rows kept with their place (ts_split) */
};

/* A process's share of a parallel run's time series (ts_split): the rows
 * of the objects it owns, each with the key that places it among every
 * process's rows in the plain run's order (timeseries.h, ts_split_rows). */
struct ts_row_key {
    simtime_ps time_ps;
    uint64_t order;   /* the event's place at its instant (sim.h cur_order_max); UINT64_MAX: the run's end */
    uint64_t seq;     /* a shared look's rows: the object's number; an event of this process's: its row count */
    uint32_t rank;    /* 0 in a shared look (every process's objects in one plain look) */
    uint32_t off;     /* where the row's text starts in the file's buffer */
};

struct ts_split {
    uint32_t rank;
    bool several;                 /* other processes own nodes */
    const uint32_t *part;         /* [node]: its process */
    FILE *mem[3];                 /* the rows' text, by file */
    char *buf[3];
    size_t len[3];
    struct ts_row_key *key[3];
    uint32_t n_key[3], cap_key[3];
    uint64_t local_rows;          /* rows of this process's own events so far (their seq) */
    uint64_t shared_samples;      /* tot.samples counted in looks every process makes */
    struct ts_row_key *samples;   /* interval mode: every sample run, (time, order) */
    uint32_t n_samples, cap_samples;
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_watch_ordinal(const void *a, const void *b)
{
    uint32_t x = ((const struct ts_watch *)a)->ordinal, y = ((const struct ts_watch *)b)->ordinal;
    return x < y ? -1 : x > y;
}

/* Slot fi holds a message not seen yet: watch it if selected or feeding a
 * selected host. */
static void consider(struct sim *s, struct ts_run *t, uint32_t fi)
{
    const struct flow *f = &s->flows[fi];
    if (f->state == FLOW_FREE || f->ordinal < t->msgs_seen)
        return;
    bool rows = t->want[0] && sel_has(&t->cfg->flows, f->id);
    bool feeds = t->want[2] && t->host_slot[f->dst] != UINT32_MAX; /* a parallel run: its own hosts only */
    if (t->split && t->split->part[f->src] != t->split->rank)
        rows = false; /* its sender's process writes them (ts_split: the receiver is there too) */
    if (!rows && !feeds)
        return;
    if (t->n_w == t->cap_w) {
        t->cap_w = t->cap_w ? 2 * t->cap_w : 64;
        t->w = xrealloc(t->w, t->cap_w * sizeof *t->w);
    }
    const struct cm_conn *c = &s->cm.conns[f->conn_index];
    t->w[t->n_w++] = (struct ts_watch){.fi = fi, .ordinal = f->ordinal, .id = f->id, .msg = c->msg ? c->msg : c->msg_index,
                                       .dst = f->dst, .size_bytes = f->size_bytes, .rows = rows, .feeds_host = feeds};
}

/* Messages created since the last look (all of them at the first; more
 * during an open-loop run) join the watch list, in creation order. A new
 * message is in a slot beyond those seen, or in one --stream freed since
 * (ts_flow_retire lists them), so the look costs what is new, not the
 * whole flow table. */
static void watch_new_flows(struct sim *s, struct ts_run *t)
{
    if (s->n_msgs == t->msgs_seen)
        return;
    uint32_t first_new = t->n_w;
    if (t->n_cand) {
        qsort(t->cand, t->n_cand, sizeof *t->cand, cmp_u32);
        uint32_t still_free = 0, prev = UINT32_MAX;
        for (uint32_t k = 0; k < t->n_cand; k++) {
            uint32_t fi = t->cand[k];
            if (fi == prev)
                continue; /* freed twice since the last look */
            prev = fi;
            if (s->flows[fi].state == FLOW_FREE)
                t->cand[still_free++] = fi; /* not reused yet */
            else
                consider(s, t, fi);
        }
        t->n_cand = still_free;
    }
    for (uint32_t fi = t->flows_seen; fi < s->n_flows; fi++)
        consider(s, t, fi);
    if (t->n_w > first_new + 1)
        qsort(t->w + first_new, t->n_w - first_new, sizeof *t->w, cmp_watch_ordinal);
    t->flows_seen = s->n_flows;
    t->msgs_seen = s->n_msgs;
}

static void flow_sample_of(const struct sim *s, uint32_t fi, struct flow_sample *out)
{
    memset(out, 0, sizeof *out);
    const struct flow *f = &s->flows[fi];
    if (f->tp && f->tp->sample && f->tp_state)
        f->tp->sample(s, fi, out);
    else if (f->tp && f->tp->rcv_payload_bytes)
        out->delivered_bytes = f->tp->rcv_payload_bytes(s, fi); /* Homa, SIRD: delivered bytes only */
}

static void port_rec_of(const struct sim *s, uint32_t pi, struct ts_port_rec *r)
{
    const struct port *p = &s->ports[pi];
    memset(r, 0, sizeof *r);
    r->data_bytes = p->data_bytes;
    r->ctl_bytes = p->ctl_bytes;
    for (uint32_t k = 2; p->x && k < p->x->n; k++)
        r->cls_bytes[k - 2] = p->x->c[k - 2].bytes;
    r->tx_bytes = p->st.tx_bytes;
    r->ecn_marks = p->st.ecn_marks;
    r->trims = p->st.trims;
    r->drops = p->st.drops;
}

static bool same_sample(const struct flow_sample *a, const struct flow_sample *b)
{
    return a->has_cwnd == b->has_cwnd && a->has_rate == b->has_rate && a->has_rtt == b->has_rtt &&
           a->has_in_flight == b->has_in_flight && (!a->has_cwnd || a->cwnd_bytes == b->cwnd_bytes) &&
           (!a->has_rate || a->rate_mbps == b->rate_mbps) && (!a->has_rtt || a->rtt_ps == b->rtt_ps) &&
           (!a->has_in_flight || a->in_flight_bytes == b->in_flight_bytes) && a->delivered_bytes == b->delivered_bytes;
}

/* Where a row goes: the file, or in a parallel run the process's buffer,
 * after the key that places it (obj: its flow's message, port or host). */
static FILE *row_out(const struct sim *s, struct ts_run *t, unsigned which, uint32_t obj)
{
    struct ts_split *sp = t->split;
    if (!sp)
        return t->out[which];
    /* shared: the sample (every process samples its objects at its
     * instant), a link change every process applies, the run's end. One
     * process keeps its rows in the order it makes them (with one, GOAL's
     * events are of origin 0 too) */
    bool shared = sp->several && (!s->cur_event || sim_event_origin(s, s->cur_event) == 0);
    if (sp->n_key[which] == sp->cap_key[which]) {
        sp->cap_key[which] = sp->cap_key[which] ? 2 * sp->cap_key[which] : 1024;
        sp->key[which] = xrealloc(sp->key[which], sp->cap_key[which] * sizeof *sp->key[which]);
    }
    off_t off = ftello(sp->mem[which]);
    if (off < 0 || off > (off_t)UINT32_MAX)
        die_internal("time series: %lld bytes of rows on one process (at most 4 GiB)", (long long)off);
    sp->key[which][sp->n_key[which]++] = (struct ts_row_key){
        .time_ps = s->now,
        .order = s->cur_event ? s->cur_order_max : UINT64_MAX,
        .seq = shared ? obj : sp->local_rows++,
        .rank = shared ? 0 : sp->rank + 1,
        .off = (uint32_t)off};
    return sp->mem[which];
}

static void put_time(FILE *f, simtime_ps t)
{
    /* exact decimal microseconds, as flows.csv writes them */
    fprintf(f, "%llu.%06llu", (unsigned long long)(t / PS_PER_US), (unsigned long long)(t % PS_PER_US));
}

static void write_flow_row(const struct sim *s, struct ts_run *t, const struct ts_watch *w, const struct flow_sample *x)
{
    FILE *f = row_out(s, t, 0, w->ordinal);
    t->tot.rows_flows++;
    if (!f)
        return;
    put_time(f, s->now);
    fprintf(f, ",%u,", w->id);
    if (t->msg_col)
        fprintf(f, "%u,", w->msg);
    if (x->has_cwnd)
        fprintf(f, "%" PRIu64, x->cwnd_bytes);
    fputc(',', f);
    if (x->has_rate)
        fprintf(f, "%.6f", x->rate_mbps / 1000.0);
    fputc(',', f);
    if (x->has_rtt)
        put_time(f, x->rtt_ps);
    fprintf(f, ",%" PRIu64 ",", x->delivered_bytes);
    if (x->has_in_flight)
        fprintf(f, "%" PRIu64, x->in_flight_bytes);
    fputc('\n', f);
}

static void write_port_row(const struct sim *s, struct ts_run *t, uint32_t pi, const struct ts_port_rec *r)
{
    FILE *f = row_out(s, t, 1, pi);
    t->tot.rows_ports++;
    if (!f)
        return;
    put_time(f, s->now);
    fprintf(f, ",%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, pi, r->data_bytes, r->ctl_bytes, r->tx_bytes,
            r->ecn_marks, r->trims, r->drops);
    for (uint32_t k = 2; k < s->cfg.n_classes; k++)
        fprintf(f, ",%u", r->cls_bytes[k - 2]);
    fputc('\n', f);
}

static void write_host_row(const struct sim *s, struct ts_run *t, struct ts_host *h)
{
    FILE *f = row_out(s, t, 2, h->host);
    t->tot.rows_hosts++;
    if (f) {
        put_time(f, s->now);
        fprintf(f, ",%u,%" PRIu64 ",", h->host, h->delivered);
        /* goodput since the host's previous row: payload bits per ps x 1000 = Gb/s */
        if (h->written && s->now > h->written_ps)
            fprintf(f, "%.6f", (double)(h->delivered - h->written_delivered) * 8.0 * 1000.0 /
                                   (double)(s->now - h->written_ps));
        fputc('\n', f);
    }
    h->written = true;
    h->written_delivered = h->delivered;
    h->written_ps = s->now;
}

/* One look at everything: `every` writes a row for each object (interval
 * mode), otherwise only for those whose values changed (change mode). */
static void look(struct sim *s, struct ts_run *t, bool every)
{
    watch_new_flows(s, t);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < t->n_w; i++) {
        struct ts_watch *w = &t->w[i];
        const struct flow *f = &s->flows[w->fi];
        if (w->retired) {
            /* --stream recycled its slot (ts_flow_retire kept its state):
             * its last row, as the slot would have given it */
            if (w->rows && !w->done_written && (every || !w->written || !same_sample(&w->final, &w->last)))
                write_flow_row(s, t, w, &w->final);
            continue;
        }
        invariant(f->state != FLOW_FREE && f->ordinal == w->ordinal, "slot %u was recycled behind the time series",
                  w->fi);
        if (kept != i)
            t->w[kept] = *w; /* closing the gaps of dropped watches */
        w = &t->w[kept++];
        /* a parallel run's receiver's process feeds its host from a copy
         * whose sender never ran: its delivered bytes tell, not its state */
        bool sender_here = !t->split || t->split->part[f->src] == t->split->rank;
        if (f->state == FLOW_WAITING && sender_here)
            continue;
        if (!sender_here && !f->tp_state)
            continue; /* no packet has reached the receiver yet: nothing delivered */
        if (w->done_written || (!w->rows && (f->state == FLOW_DONE || !sender_here))) {
            /* nothing more to record: its last row is written and its
             * receiver has every byte (the sender holds every ACK) */
            if (!w->feeds_host || w->delivered_seen == w->size_bytes) {
                kept--;
                continue;
            }
        }
        struct flow_sample x;
        flow_sample_of(s, w->fi, &x);
        if (w->feeds_host) {
            invariant(x.delivered_bytes >= w->delivered_seen, "flow %u: delivered bytes went back from %llu to %llu",
                      w->fi, (unsigned long long)w->delivered_seen, (unsigned long long)x.delivered_bytes);
            t->hosts[t->host_slot[f->dst]].delivered += x.delivered_bytes - w->delivered_seen;
            w->delivered_seen = x.delivered_bytes;
        }
        if (!w->rows || w->done_written)
            continue;
        if (every || !w->written || !same_sample(&x, &w->last)) {
            write_flow_row(s, t, w, &x);
            w->written = true;
            w->last = x;
            if (f->state == FLOW_DONE)
                w->done_written = true;
        }
    }
    t->n_w = kept;
    for (uint32_t i = 0; i < t->n_ports; i++) {
        struct ts_port_rec r;
        port_rec_of(s, t->ports[i], &r);
        if (every || !t->port_written[i] || memcmp(&r, &t->port_last[i], sizeof r)) {
            write_port_row(s, t, t->ports[i], &r);
            t->port_written[i] = true;
            t->port_last[i] = r;
        }
    }
    for (uint32_t i = 0; i < t->n_hosts; i++) {
        struct ts_host *h = &t->hosts[i];
        if (every || !h->written || h->delivered != h->written_delivered)
            write_host_row(s, t, h);
    }
}

/* ---- setup -------------------------------------------------------------------- */

/* Every number of a selection names an object: 0 .. n-1 (ports, hosts). */
static void check_indices(const struct ts_select *sel, const char *flag, const char *what, uint32_t n)
{
    for (uint32_t i = 0; i < sel->n; i++)
        if (sel->range[i][1] >= n)
            die_input("%s: %s %u does not exist (this run has %s 0 to %u)", flag, what, sel->range[i][1], what,
                      n - 1);
}

/* Flow ids name flows of the matrix (flows.csv flow_id); in an open-loop
 * run flows appear later, so any id is accepted there. */
static void check_flow_ids(const struct sim *s, const struct ts_select *sel)
{
    if (sel->all || s->arrivals_open || !sel->n)
        return;
    uint32_t *ids = xmalloc((s->n_flows ? s->n_flows : 1) * sizeof *ids);
    for (uint32_t i = 0; i < s->n_flows; i++)
        ids[i] = s->flows[i].id;
    qsort(ids, s->n_flows, sizeof *ids, cmp_u32);
    for (uint32_t r = 0; r < sel->n; r++) {
        uint64_t lo = sel->range[r][0], hi = sel->range[r][1];
        if (hi - lo >= s->n_flows) {
            free(ids);
            die_input("--ts-flows: the range %llu-%llu is longer than the %u flows of the run", (unsigned long long)lo,
                      (unsigned long long)hi, s->n_flows);
        }
        for (uint64_t id = lo; id <= hi; id++)
            if (!bsearch(&(uint32_t){(uint32_t)id}, ids, s->n_flows, sizeof *ids, cmp_u32)) {
                free(ids);
                die_input("--ts-flows: no flow has id %llu (flows.csv flow_id)", (unsigned long long)id);
            }
    }
    free(ids);
}

/* Size estimate in bytes. Interval mode: rows = samples x selected objects
 * (every selected flow taken as active throughout). Change mode: every
 * selected object taken to change twice per MTU-sized packet time of its
 * link (flows and hosts: the host link) for the whole window. */
static uint64_t estimate(const struct sim *s, const struct ts_run *t, uint32_t n_flows_sel)
{
    double win = (double)(t->end_ps - t->start_ps);
    double rows_f, rows_p = 0, rows_h;
    if (!t->change) {
        double samples = floor(win / (double)t->interval_ps) + 2; /* the window's samples and the final one */
        rows_f = samples * n_flows_sel;
        rows_p = samples * t->n_ports;
        rows_h = samples * t->n_hosts;
    } else {
        double host_changes = 2.0 * win / (double)serialize_ps(s->cfg.mtu_bytes, s->cfg.linkspeed_mbps) + 1;
        rows_f = host_changes * n_flows_sel;
        rows_h = host_changes * t->n_hosts;
        for (uint32_t i = 0; i < t->n_ports; i++)
            rows_p += 2.0 * win / (double)serialize_ps(s->cfg.mtu_bytes, s->ports[t->ports[i]].rate_mbps) + 1;
    }
    double bytes = rows_f * TS_FLOW_ROW_BYTES + rows_p * TS_PORT_ROW_BYTES + rows_h * TS_HOST_ROW_BYTES;
    return bytes > 1e19 ? UINT64_MAX / 2 : (uint64_t)bytes;
}

void ts_setup(struct sim *s)
{
    const struct ts_config *c = &s->cfg.ts;
    if (!ts_wanted(c)) {
        if (c->interval_given || c->window_given || c->max_given)
            die_input("%s: no time series selected; give --ts-flows, --ts-ports or --ts-hosts",
                      c->interval_given ? "--ts-interval" : c->window_given ? "--ts-window" : "--ts-max-mb");
        return;
    }
    const char *first = c->flows.given ? "--ts-flows" : c->ports.given ? "--ts-ports" : "--ts-hosts";
    if (!s->cfg.out_dir)
        die_input("%s: time series are written into the output directory; give --out DIR", first);
    check_flow_ids(s, &c->flows);
    check_indices(&c->ports, "--ts-ports", "port", s->n_ports);
    check_indices(&c->hosts, "--ts-hosts", "host", s->n_hosts);
    if (c->window_given && c->win_start_ps >= s->cfg.end_ps)
        die_input("--ts-window: START %g us is not before -end %g us", (double)c->win_start_ps / PS_PER_US,
                  (double)s->cfg.end_ps / PS_PER_US);

    struct ts_run *t = xcalloc(1, sizeof *t);
    t->cfg = c;
    t->change = c->change;
    t->msg_col = s->cm_has_msgs;
    t->n_classes = s->cfg.n_classes;
    /* default: one sample per base RTT (the network's largest unloaded RTT) */
    /* an interval from --ts-interval, or from htsim's -logtime (interval_ps set, not "given") */
    t->interval_ps = c->change ? 0 : c->interval_ps ? c->interval_ps : s->base_rtt_ps;
    t->start_ps = c->window_given ? c->win_start_ps : 0;
    t->end_ps = c->window_given && c->win_end_ps < s->cfg.end_ps ? c->win_end_ps : s->cfg.end_ps;
    t->tot.interval_ps = t->interval_ps;
    t->tot.change = t->change;
    t->want[0] = c->flows.given;
    t->want[1] = c->ports.given;
    t->want[2] = c->hosts.given;

    t->ports = xmalloc((s->n_ports ? s->n_ports : 1) * sizeof *t->ports);
    for (uint32_t i = 0; i < s->n_ports && c->ports.given; i++)
        if (sel_has(&c->ports, i))
            t->ports[t->n_ports++] = i;
    t->port_last = xcalloc(t->n_ports ? t->n_ports : 1, sizeof *t->port_last);
    t->port_written = xcalloc(t->n_ports ? t->n_ports : 1, sizeof *t->port_written);
    t->host_slot = xmalloc((s->n_hosts ? s->n_hosts : 1) * sizeof *t->host_slot);
    t->hosts = xcalloc(s->n_hosts ? s->n_hosts : 1, sizeof *t->hosts);
    for (uint32_t h = 0; h < s->n_hosts; h++) {
        t->host_slot[h] = UINT32_MAX;
        if (c->hosts.given && sel_has(&c->hosts, h)) {
            t->host_slot[h] = t->n_hosts;
            t->hosts[t->n_hosts++].host = h;
        }
    }
    s->ts = t;
    watch_new_flows(s, t);
    uint32_t n_flows_sel = 0;
    for (uint32_t i = 0; i < t->n_w; i++)
        n_flows_sel += t->w[i].rows;

    t->tot.estimate_bytes = estimate(s, t, n_flows_sel);
    double mb = (double)t->tot.estimate_bytes / 1e6;
    double max_mb = c->max_given ? c->max_mb : TS_DEFAULT_MAX_MB;
    if (mb > max_mb)
        die_input("--ts-max-mb: the time series would write about %.0f MB (estimate), above the limit of %g MB; "
                  "raise --ts-max-mb, or select fewer flows, ports or hosts, a longer --ts-interval or a shorter "
                  "--ts-window", mb, max_mb);
    if (t->tot.estimate_bytes >= TS_ANNOUNCE_BYTES)
        fprintf(stderr, "spraysim: time series: about %.0f MB (estimate: %u flows, %u ports, %u hosts, %s)\n", mb,
                n_flows_sel, t->n_ports, t->n_hosts, t->change ? "every change" : "interval sampling");
    sim_at(s, t->start_ps, EV_TS_SAMPLE, 0);
}

void ts_attach(struct ts_run *t, FILE *flows, FILE *ports, FILE *hosts)
{
    t->out[0] = flows;
    t->out[1] = ports;
    t->out[2] = hosts;
    if (flows)
        fprintf(flows, "time_us,flow_id,%scwnd_bytes,rate_gbps,rtt_us,delivered_bytes,in_flight_bytes\n",
                t->msg_col ? "msg," : "");
    if (ports) {
        fputs("time_us,port,data_bytes,ctl_bytes,tx_bytes,ecn_marks,trims,drops", ports);
        /* the extra data classes of --classes N, as queues.csv adds them */
        for (uint32_t k = 2; k < t->n_classes; k++)
            fprintf(ports, ",data_bytes_c%u", k);
        fputc('\n', ports);
    }
    if (hosts)
        fputs("time_us,host,delivered_bytes,goodput_gbps\n", hosts);
}

bool ts_file_selected(const struct ts_run *t, unsigned which)
{
    return which < 3 && t->want[which];
}

/* ---- sampling ----------------------------------------------------------------- */

void ts_sample_event(struct sim *s)
{
    struct ts_run *t = s->ts;
    /* the sampling event is not part of the simulated system: the run's
     * event count stays what it is without time series */
    s->events_processed--;
    t->started = true;
    t->tot.samples++;
    if (t->split) {
        struct ts_split *sp = t->split;
        sp->shared_samples++;
        if (sp->n_samples == sp->cap_samples) {
            sp->cap_samples = sp->cap_samples ? 2 * sp->cap_samples : 64;
            sp->samples = xrealloc(sp->samples, sp->cap_samples * sizeof *sp->samples);
        }
        sp->samples[sp->n_samples++] = (struct ts_row_key){.time_ps = s->now, .order = s->cur_event->order};
    }
    look(s, t, !t->change);
    t->last_sample_ps = s->now;
    t->sampled_at_last = true;
    if (t->change)
        return;
    /* only while something else is pending: a sample never keeps a run
     * going. A parallel run's process cannot see what the others have
     * pending: it schedules the next one anyway, and ts_split_settle drops
     * those the plain run would not have taken */
    simtime_ps next = s->now + t->interval_ps;
    if (next <= t->end_ps && (t->split || eq_count(&s->eq)))
        sim_at(s, next, EV_TS_SAMPLE, 0);
}

void ts_flow_retire(struct sim *s, uint32_t fi)
{
    struct ts_run *t = s->ts;
    watch_new_flows(s, t); /* it may be newer than the last look */
    if (t->n_cand == t->cap_cand) {
        t->cap_cand = t->cap_cand ? 2 * t->cap_cand : 64;
        t->cand = xrealloc(t->cand, t->cap_cand * sizeof *t->cand);
    }
    t->cand[t->n_cand++] = fi;
    for (uint32_t i = 0; i < t->n_w; i++) {
        struct ts_watch *w = &t->w[i];
        if (w->fi != fi || w->retired || s->flows[fi].ordinal != w->ordinal)
            continue;
        flow_sample_of(s, fi, &w->final);
        if (w->feeds_host) {
            t->hosts[t->host_slot[w->dst]].delivered += w->final.delivered_bytes - w->delivered_seen;
            w->delivered_seen = w->final.delivered_bytes;
        }
        w->retired = true;
        return;
    }
}

void ts_after_event(struct sim *s)
{
    struct ts_run *t = s->ts;
    if (!t->started || s->now > t->end_ps)
        return;
    t->tot.samples++;
    if (t->split && sim_event_origin(s, s->cur_event) == 0)
        t->split->shared_samples++; /* an event every process runs (a link change, a sample) */
    look(s, t, false);
}

bool ts_finish(struct sim *s, char *err, size_t errlen)
{
    struct ts_run *t = s->ts;
    if (!t)
        return true;
    /* the run's end, when inside the window and not just sampled */
    if (s->now >= t->start_ps && s->now <= t->end_ps && !(t->sampled_at_last && t->last_sample_ps == s->now)) {
        t->started = true;
        t->tot.samples++;
        if (t->split)
            t->split->shared_samples++;
        look(s, t, !t->change);
    }
    static const char *const names[] = {"ts_flows.csv", "ts_ports.csv", "ts_hosts.csv"};
    for (unsigned i = 0; i < 3; i++)
        if (t->out[i] && (fflush(t->out[i]) || ferror(t->out[i]))) {
            snprintf(err, errlen, "%s: could not write", names[i]);
            return false;
        }
    return true;
}

void ts_free(struct sim *s)
{
    struct ts_run *t = s->ts;
    if (!t)
        return;
    free(t->w);
    free(t->cand);
    free(t->ports);
    free(t->port_last);
    free(t->port_written);
    free(t->hosts);
    free(t->host_slot);
    if (t->split) {
        for (unsigned i = 0; i < 3; i++) {
            if (t->split->mem[i])
                fclose(t->split->mem[i]);
            free(t->split->buf[i]);
            free(t->split->key[i]);
        }
        free(t->split->samples);
        free(t->split);
    }
    free(t);
    s->ts = NULL;
}

void ts_totals(const struct ts_run *t, struct ts_totals *out)
{
    *out = t->tot;
}

/* ---- parallel runs (src/mpi/pdes.c) ----------------------------------------- */

bool ts_split(struct sim *s, uint32_t rank, const uint32_t *part, char *err, size_t errlen)
{
    struct ts_run *t = s->ts;
    if (!t)
        return true;
    /* a flow's row joins its sender's state (window, rate, RTT, bytes in
     * flight) with its receiver's (bytes delivered): both on one process */
    for (uint32_t i = 0; t->want[0] && i < s->n_flows; i++) {
        const struct flow *f = &s->flows[i];
        if (sel_has(&t->cfg->flows, f->id) && part[f->src] != part[f->dst]) {
            snprintf(err, errlen,
                     "--ts-flows: flow %u runs from host %u (process %u) to host %u (process %u): its rows join its "
                     "sender's and its receiver's state, so parallel runs take only flows within one process",
                     f->id, f->src, part[f->src], f->dst, part[f->dst]);
            return false;
        }
    }
    struct ts_split *sp = xcalloc(1, sizeof *sp);
    sp->rank = rank;
    sp->part = part;
    for (uint32_t i = 0; i < s->n_hosts + s->n_switches; i++)
        sp->several |= part[i] != rank;
    for (unsigned i = 0; i < 3; i++) {
        if (!t->want[i])
            continue;
        sp->mem[i] = open_memstream(&sp->buf[i], &sp->len[i]);
        if (!sp->mem[i])
            die_internal("time series: no memory stream for the rows");
    }
    /* this process's ports and hosts only; the watches start again from its flows */
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->n_ports; i++)
        if (part[s->ports[t->ports[i]].owner_node] == rank)
            t->ports[k++] = t->ports[i];
    t->n_ports = k;
    k = 0;
    for (uint32_t i = 0; i < t->n_hosts; i++) {
        uint32_t h = t->hosts[i].host;
        t->host_slot[h] = UINT32_MAX;
        if (part[h] == rank) {
            t->host_slot[h] = k;
            t->hosts[k++] = t->hosts[i];
        }
    }
    t->n_hosts = k;
    t->split = sp;
    t->n_w = 0;
    t->flows_seen = t->msgs_seen = 0;
    watch_new_flows(s, t);
    return true;
}

static int key_cmp(const struct ts_row_key *x, const struct ts_row_key *y)
{
    if (x->time_ps != y->time_ps)
        return x->time_ps < y->time_ps ? -1 : 1;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

simtime_ps ts_split_settle(struct sim *s, simtime_ps last_ps, uint64_t last_order, bool any_event, bool pending)
{
    struct ts_run *t = s->ts;
    if (!t || !t->split || !t->split->n_samples)
        return 0;
    struct ts_split *sp = t->split;
    /* the plain run schedules sample j + 1 only while an event is pending
     * at sample j: one runs after it, or the run ended (-end, every flow
     * finished) with one pending. Else the first sample after the run's
     * last event is the last the plain run takes */
    if (pending || t->change)
        return sp->samples[sp->n_samples - 1].time_ps;
    struct ts_row_key last = {.time_ps = last_ps, .order = last_order};
    uint32_t k = 0;
    while (k < sp->n_samples && any_event && key_cmp(&sp->samples[k], &last) < 0)
        k++;
    if (k == sp->n_samples)
        return 0; /* every sample came before the last event: all were the plain run's */
    uint32_t kept = k + 1;
    const struct ts_row_key *cut = &sp->samples[kept - 1];
    for (unsigned i = 0; i < 3; i++) {
        uint32_t n = 0;
        while (n < sp->n_key[i] && key_cmp(&sp->key[i][n], &(struct ts_row_key){.time_ps = cut->time_ps,
                                                                                  .order = cut->order,
                                                                                  .rank = UINT32_MAX}) < 0)
            n++;
        if (n < sp->n_key[i]) {
            /* the dropped rows were the buffer's last: cut its text there */
            fflush(sp->mem[i]);
            if (fseeko(sp->mem[i], (off_t)sp->key[i][n].off, SEEK_SET))
                die_internal("time series: cannot cut the rows' buffer");
        }
        uint64_t dropped = sp->n_key[i] - n;
        if (i == 0)
            t->tot.rows_flows -= dropped;
        else if (i == 1)
            t->tot.rows_ports -= dropped;
        else
            t->tot.rows_hosts -= dropped;
        sp->n_key[i] = n;
    }
    uint32_t fake = sp->n_samples - kept;
    t->tot.samples -= fake;
    sp->shared_samples -= fake;
    t->last_sample_ps = cut->time_ps;
    sp->n_samples = kept;
    return cut->time_ps;
}

/* A row on its way to rank 0: its key (off holding the text's length),
 * then the text, padded to 8 bytes. */
static size_t rec_bytes(uint32_t len)
{
    return sizeof(struct ts_row_key) + (((size_t)len + 7) & ~(size_t)7);
}

size_t ts_split_pack(struct sim *s, unsigned which, char **blob)
{
    struct ts_run *t = s->ts;
    *blob = NULL;
    if (!t || !t->split || which > 2 || !t->split->mem[which])
        return 0;
    struct ts_split *sp = t->split;
    if (fflush(sp->mem[which]))
        die_internal("time series: cannot flush the rows' buffer");
    size_t total = 0;
    for (uint32_t i = 0; i < sp->n_key[which]; i++) {
        size_t end = i + 1 < sp->n_key[which] ? sp->key[which][i + 1].off : sp->len[which];
        total += rec_bytes((uint32_t)(end - sp->key[which][i].off));
    }
    char *b = xcalloc(total ? total : 1, 1);
    size_t at = 0;
    for (uint32_t i = 0; i < sp->n_key[which]; i++) {
        struct ts_row_key k = sp->key[which][i];
        size_t end = i + 1 < sp->n_key[which] ? sp->key[which][i + 1].off : sp->len[which];
        uint32_t len = (uint32_t)(end - k.off);
        memcpy(b + at + sizeof k, sp->buf[which] + k.off, len);
        k.off = len;
        memcpy(b + at, &k, sizeof k);
        at += rec_bytes(len);
    }
    *blob = b;
    return total;
}

static int rec_cmp(const void *a, const void *b)
{
    return key_cmp(*(const struct ts_row_key *const *)a, *(const struct ts_row_key *const *)b);
}

void ts_split_write(struct sim *s, unsigned which, const char *all, size_t bytes)
{
    struct ts_run *t = s->ts;
    size_t n = 0;
    for (size_t at = 0; at < bytes; n++) {
        struct ts_row_key k;
        memcpy(&k, all + at, sizeof k);
        at += rec_bytes(k.off);
    }
    const struct ts_row_key **v = xcalloc(n ? n : 1, sizeof *v);
    size_t i = 0;
    for (size_t at = 0; at < bytes; i++) {
        v[i] = (const struct ts_row_key *)(const void *)(all + at); /* records are 8-byte aligned */
        at += rec_bytes(v[i]->off);
    }
    qsort(v, n, sizeof *v, rec_cmp);
    for (i = 0; i < n && t->out[which]; i++)
        fwrite(v[i] + 1, 1, v[i]->off, t->out[which]);
    free(v);
    uint64_t *rows[3] = {&t->tot.rows_flows, &t->tot.rows_ports, &t->tot.rows_hosts};
    *rows[which] = n;
}

uint64_t ts_split_own_samples(const struct sim *s)
{
    const struct ts_run *t = s->ts;
    return t && t->split ? t->tot.samples - t->split->shared_samples : 0;
}

void ts_split_set_samples(struct sim *s, uint64_t others_own)
{
    struct ts_run *t = s->ts;
    if (t && t->split)
        t->tot.samples += others_own;
}
