/* cm_write.c: writes a connection matrix back as a .cm file (--write-cm),
 * so a generated workload, or a read one with its random failures added,
 * can be run again, by spraysim or by the reference simulator.
 *
 * The reference simulator's reader (uet-htsim connection_matrix.cpp) sets
 * the form: words separated by single spaces; comments only before the
 * first body line; a connection's "id" before its "trigger" (it files the
 * connection under the trigger as it reads the word); "Triggers" and
 * "Failures" headers that count their lines. Keys left at their defaults
 * are not written (an absent "prio" is not 0 there). spraysim's own keys (lb,
 * transport, class, priority) and its own failure grammar are written when a
 * read matrix had them; the reference simulator rejects those files.
 */
#include "cm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Start times are whole picoseconds: microseconds with at most six
 * decimals, exact, trailing zeros dropped ("40.5", "0"). */
static void put_start_us(struct strbuf *b, simtime_ps t)
{
    unsigned long long whole = t / PS_PER_US, frac = t % PS_PER_US;
    if (!frac) {
        sb_printf(b, "%llu", whole);
        return;
    }
    int digits = 6;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    sb_printf(b, "%llu.%0*llu", whole, digits, frac);
}

static void put_comment(struct strbuf *b, const char *comment)
{
    /* one line whatever the text: control bytes would end it or drive a terminal */
    sb_printf(b, "# ");
    for (const char *c = comment; *c; c++)
        sb_printf(b, "%c", (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c);
    sb_printf(b, "\n");
}

void cm_format(const struct conn_matrix *cm, const char *comment, const char *const *extra_failures, unsigned n_extra,
               struct strbuf *b)
{
    static const char *const trigger_types[3] = {"oneshot", "multishot", "barrier"};
    static const char *const switch_types[3] = {"TOR", "AGG", "CORE"};
    if (comment)
        put_comment(b, comment);
    sb_printf(b, "Nodes %u\nConnections %u\n", cm->nodes, cm->n_conns);
    if (cm->n_triggers)
        sb_printf(b, "Triggers %u\n", cm->n_triggers);
    if (cm->n_failures + n_extra)
        sb_printf(b, "Failures %u\n", cm->n_failures + n_extra);
    for (uint32_t i = 0; i < cm->n_conns; i++) {
        const struct cm_conn *c = &cm->conns[i];
        sb_printf(b, "%u->%u id %u ", c->src, c->dst, c->id);
        if (c->start_trigger != CM_NO_TRIGGER) {
            sb_printf(b, "trigger %u", c->start_trigger);
        } else {
            sb_printf(b, "start ");
            put_start_us(b, c->start_ps);
        }
        sb_printf(b, " size %llu", (unsigned long long)c->size_bytes);
        if (c->send_done_trigger != CM_NO_TRIGGER)
            sb_printf(b, " send_done_trigger %u", c->send_done_trigger);
        if (c->recv_done_trigger != CM_NO_TRIGGER)
            sb_printf(b, " recv_done_trigger %u", c->recv_done_trigger);
        if (c->prio)
            sb_printf(b, " prio %lld", (long long)c->prio);
        if (c->msg)
            sb_printf(b, " msg %u", c->msg);
        if (c->lb[0])
            sb_printf(b, " lb %s", c->lb);
        if (c->transport[0])
            sb_printf(b, " transport %s", c->transport);
        if (c->tclass != CM_CLASS_AUTO)
            sb_printf(b, " class %u", c->tclass);
        if (c->prio_class != 1)
            sb_printf(b, " priority %u", c->prio_class);
        sb_printf(b, "\n");
    }
    for (uint32_t i = 0; i < cm->n_triggers; i++) {
        const struct cm_trigger *t = &cm->triggers[i];
        sb_printf(b, "trigger id %u %s", t->id, trigger_types[t->type % 3]);
        if (t->type == TRIGGER_BARRIER)
            sb_printf(b, " count %u", t->count);
        sb_printf(b, "\n");
    }
    for (uint32_t i = 0; i < cm->n_failures; i++) {
        const struct cm_failure *f = &cm->failures[i];
        if (f->spec)
            sb_printf(b, "failure %s\n", f->spec);
        else
            sb_printf(b, "failure switch_type %s switch_id %u link_id %u\n", switch_types[f->switch_type % 3],
                      f->switch_id, f->link_id);
    }
    for (unsigned i = 0; i < n_extra; i++)
        sb_printf(b, "failure %s\n", extra_failures[i]);
}

bool cm_write_file(const struct conn_matrix *cm, const char *path, const char *comment,
                   const char *const *extra_failures, unsigned n_extra, char *err, size_t errlen)
{
    struct strbuf b;
    sb_init(&b);
    cm_format(cm, comment, extra_failures, n_extra, &b);
    errno = 0;
    bool ok = write_file_atomic(path, b.data ? b.data : "", b.len);
    int saved = errno;
    sb_free(&b);
    if (!ok && err && errlen)
        snprintf(err, errlen, "cannot write '%s': %s", path, saved ? strerror(saved) : "unknown error");
    return ok;
}
