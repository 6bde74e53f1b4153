/* flowstream.c: streamed flows.csv rows and recycled flow slots for long
 * message workloads (--stream; see flowstream.h and docs/outputs.md "Streamed
 * output and bounded memory").
 */
#include "flowstream.h"

#include "../sim.h"
#include "../transport/flow.h"
#include "../transport/transport.h"
#include "../workload/poisson.h"
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void flowstream_setup(struct sim *s, const char *path)
{
    struct flow_stream *fs = xcalloc(1, sizeof *fs);
    s->fstream = fs;
    fs->cap = 1024;
    fs->rows = xcalloc(fs->cap, sizeof(char *));
    vc_init(&fs->fct_us, s->cfg.quantile_sketch);
    /* recycling needs every transport that can carry an open-loop message
     * to release a flow; the run's transport is the one that does */
    const struct transport_ops *tp = transport_find(s->cfg.transport_name);
    fs->recycle = tp && tp->flow_release && tp->can_release && tp->can_release(s);
    s->count_pkts = fs->recycle;
    if (path) {
        fs->path = strdup(path);
        if (!fs->path)
            die_internal("out of memory");
        fs->out = fopen(path, "w");
        if (!fs->out)
            die_internal("cannot write %s: %s", path, strerror(errno));
        struct strbuf b;
        sb_init(&b);
        report_flows_header(s, &b);
        fwrite(b.data, 1, b.len, fs->out);
        sb_free(&b);
    }
}

/* Room in the reorder buffer for `ordinal`: doubling, rows keep their
 * ordinal's place modulo the new capacity. */
static void rows_reserve(struct flow_stream *fs, uint32_t ordinal)
{
    if (ordinal - fs->next_ordinal < fs->cap)
        return;
    uint32_t cap = fs->cap;
    while (ordinal - fs->next_ordinal >= cap)
        cap *= 2;
    char **rows = xcalloc(cap, sizeof(char *));
    for (uint32_t o = fs->next_ordinal; o - fs->next_ordinal < fs->cap; o++)
        rows[o & (cap - 1)] = fs->rows[o & (fs->cap - 1)];
    free(fs->rows);
    fs->rows = rows;
    fs->cap = cap;
}

/* Writes the rows that are next in order. */
static void rows_flush(struct flow_stream *fs)
{
    for (;;) {
        char **slot = &fs->rows[fs->next_ordinal & (fs->cap - 1)];
        if (!*slot)
            return;
        if (fs->out)
            fputs(*slot, fs->out);
        free(*slot);
        *slot = NULL;
        fs->rows_pending--;
        fs->next_ordinal++;
    }
}

static void rows_put(struct sim *s, uint32_t fi)
{
    struct flow_stream *fs = s->fstream;
    uint32_t ordinal = s->flows[fi].ordinal;
    invariant(ordinal >= fs->next_ordinal, "flow %u: message %u's row is written twice", fi, ordinal);
    rows_reserve(fs, ordinal);
    char *row;
    if (fs->out) {
        struct strbuf b;
        sb_init(&b);
        report_flow_row(s, fi, &b);
        row = xmalloc(b.len + 1); /* exact size: a strbuf starts at 4 KB */
        memcpy(row, b.data, b.len + 1);
        sb_free(&b);
    } else {
        row = xmalloc(1); /* a placeholder: no file, but the order is kept all the same */
        row[0] = '\0';
    }
    fs->rows[ordinal & (fs->cap - 1)] = row;
    fs->rows_pending++;
    rows_flush(fs);
}

void flowstream_finished(struct sim *s, uint32_t fi)
{
    struct flow_stream *fs = s->fstream;
    struct flow *f = &s->flows[fi];
    invariant(f->state == FLOW_DONE && f->rcv_complete && !f->streamed,
              "flow %u retired before it finished at both ends", fi);
    rows_put(s, fi);
    vc_add(&fs->fct_us, (double)(f->finish_ps - f->posted_ps) / PS_PER_US);
    fs->fct_sum_ps += f->finish_ps - f->posted_ps;
    if (s->poisson)
        poisson_account_finished(s, fi);
    f->streamed = true;
    fs->retired++;
    if (f->pkts_out == 0 && s->count_pkts)
        flowstream_quiet(s, fi);
}

void flowstream_quiet(struct sim *s, uint32_t fi)
{
    if (s->count_pkts && fi >= s->n_flows_matrix)
        eq_push_aux(&s->eq, s->now, EV_FLOW_RETIRE, fi, s->flows[fi].gen);
}

void flowstream_retire(struct sim *s, uint32_t fi, uint32_t gen_then)
{
    struct flow_stream *fs = s->fstream;
    struct flow *f = &s->flows[fi];
    /* the slot moved on (recycled by an earlier retire event), or the
     * message made a packet since (a timer's late answer): that packet's
     * departure from the network schedules the retirement again */
    if (gen_then != f->gen || f->state == FLOW_FREE || f->pkts_out) {
        fs->retire_deferred++;
        return;
    }
    invariant(f->streamed && fi >= s->n_flows_matrix, "flow %u recycled before its row was kept", fi);
    if (s->ts)
        ts_flow_retire(s, fi); /* time series: the message's last state, before its slot goes */
    f->tp->flow_release(s, fi);
    uint16_t gen = (uint16_t)(f->gen + 1);
    memset(f, 0, sizeof *f);
    f->gen = gen;
    f->state = FLOW_FREE;
    if (fs->free_len == fs->free_cap) {
        /* grow the ring, unrolling it so the oldest stays first */
        uint32_t cap = fs->free_cap ? 2 * fs->free_cap : 1024;
        uint32_t *slots = xmalloc(cap * sizeof(uint32_t));
        for (uint32_t k = 0; k < fs->free_len; k++)
            slots[k] = fs->free_slots[(fs->free_head + k) % fs->free_cap];
        free(fs->free_slots);
        fs->free_slots = slots;
        fs->free_cap = cap;
        fs->free_head = 0;
    }
    fs->free_slots[(fs->free_head + fs->free_len++) % fs->free_cap] = fi;
}

uint32_t flowstream_take_slot(struct sim *s)
{
    struct flow_stream *fs = s->fstream;
    if (!fs || !fs->free_len)
        return UINT32_MAX;
    uint32_t fi = fs->free_slots[fs->free_head];
    fs->free_head = (fs->free_head + 1) % fs->free_cap;
    fs->free_len--;
    fs->recycled++;
    return fi;
}

/* Orders active slots by their message's ordinal. */
static const struct sim *g_sort_sim;
static int cmp_by_ordinal(const void *a, const void *b)
{
    uint32_t x = g_sort_sim->flows[*(const uint32_t *)a].ordinal, y = g_sort_sim->flows[*(const uint32_t *)b].ordinal;
    return x < y ? -1 : x > y;
}

bool flowstream_close(struct sim *s)
{
    struct flow_stream *fs = s->fstream;
    /* the messages still in their slots (unfinished, or finished at the
     * very end), in message order, between the rows held back */
    uint32_t *active = xmalloc((s->n_flows ? s->n_flows : 1) * sizeof(uint32_t));
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        if (s->flows[i].state != FLOW_FREE && !s->flows[i].streamed)
            active[n++] = i;
    g_sort_sim = s;
    qsort(active, n, sizeof(uint32_t), cmp_by_ordinal);
    for (uint32_t k = 0; k < n; k++)
        rows_put(s, active[k]);
    free(active);
    invariant(fs->rows_pending == 0 && fs->next_ordinal == s->n_msgs,
              "flows.csv stream ends with %llu rows held and %u of %u written",
              (unsigned long long)fs->rows_pending, fs->next_ordinal, s->n_msgs);
    bool ok = true;
    if (fs->out) {
        ok = !ferror(fs->out);
        ok &= fclose(fs->out) == 0;
        fs->out = NULL;
    }
    return ok;
}

void flowstream_free(struct sim *s)
{
    struct flow_stream *fs = s->fstream;
    if (!fs)
        return;
    if (fs->out)
        fclose(fs->out);
    for (uint32_t k = 0; k < fs->cap; k++)
        free(fs->rows[k]);
    free(fs->rows);
    free(fs->free_slots);
    vc_free(&fs->fct_us);
    free(fs->path);
    free(fs);
    s->fstream = NULL;
}
