/* transport.c: the generic transport layer (see transport.h): the registry
 * of transports, the flows built from the connection matrix (and those an
 * open-loop workload adds during the run, in a table that grows), the dispatch of
 * packets, drops and timers to each flow's transport, and each host's NIC
 * ready ring.
 *
 * The ready ring is a doubly linked ring of flow indices per host: a flow
 * joins at the end when it may have something to send; the NIC, when free,
 * asks the flow at the head for a packet and moves the head on (round
 * robin); a flow with nothing to send leaves the ring.
 */
#include "transport.h"
#include "../metrics/flowstream.h"

#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../sim.h"
#include "../workload/poisson.h"
#include "data_packet.h"
#include "flow.h"

#include "../core/parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READY_NONE UINT32_MAX

/* ---- registry -------------------------------------------------------------------- */

/* registry.def, one line per transport */
static const struct transport_ops *const all_transports[] = {
#define TRANSPORT(name) &transport_##name##_ops,
#include "registry.def"
#undef TRANSPORT
};
#define N_TRANSPORTS (sizeof all_transports / sizeof all_transports[0])
/* host timers carry the transport's index in the top 8 bits of their aux */
#define HOST_TIMER_KIND_BITS 24
_Static_assert(TRANSPORT_MAX <= (1u << (32 - HOST_TIMER_KIND_BITS)), "a host timer's aux holds the registry index");

const struct transport_ops *transport_find(const char *name)
{
    for (size_t i = 0; i < N_TRANSPORTS; i++)
        if (!strcmp(all_transports[i]->name, name))
            return all_transports[i];
    return NULL;
}

/* In the spirit of Linux's tcp_register_congestion_control, which refuses a
 * congestion-control module without ssthresh or cong_avoid: a table missing
 * a hook the generic layer calls would crash mid-run, so it is refused at
 * start-up, naming the transport and the hook. */
const char *transport_registry_check(const struct transport_ops *const *ops, size_t n, char *err, size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        const struct transport_ops *t = ops[i];
        const char *name = t->name && t->name[0] ? t->name : "(unnamed)";
        const char *missing = !t->name || !t->name[0] ? "name"
                              : !t->description       ? "description"
                              : !t->setup             ? "setup"
                              : !t->flow_start        ? "flow_start"
                              : !t->nic_pull          ? "nic_pull"
                              : !t->receive           ? "receive"
                              : !t->timer             ? "timer"
                              : !t->free              ? "free"
                              : !t->fabric_needs      ? "fabric_needs"
                              : t->n_counters && (!t->counter_names || !t->counters) ? "counter_names or counters"
                              : !t->flow_release != !t->can_release ? "flow_release and can_release (one without the other)"
                                                                     : NULL;
        if (missing) {
            snprintf(err, err_len, "transport %s: its ops table lacks %s", name, missing);
            return err;
        }
        if ((t->n_flags && !t->flags) || (t->n_pkt_types && !t->pkt_type_names)) {
            snprintf(err, err_len, "transport %s: its ops table lacks %s", name, !t->flags ? "flags" : "pkt_type_names");
            return err;
        }
        if (PKT_TP_FIRST + t->n_pkt_types > 256) {
            snprintf(err, err_len, "transport %s: %u packet types from %u do not fit a packet's 8-bit type", name,
                     t->n_pkt_types, PKT_TP_FIRST);
            return err;
        }
        for (unsigned k = 0; k < t->n_pkt_types; k++)
            if (!t->pkt_type_names[k] || !t->pkt_type_names[k][0]) {
                snprintf(err, err_len, "transport %s: packet type %u has no name", name, PKT_TP_FIRST + k);
                return err;
            }
        for (unsigned k = 0; k < t->n_flags; k++) {
            const struct transport_flag *fl = &t->flags[k];
            if (!fl->name || fl->name[0] != '-' || fl->n_args > 2 || !fl->help || (fl->n_args && !fl->args)) {
                snprintf(err, err_len, "transport %s: flag %u (%s) needs a name starting with '-', 0 to 2 arguments "
                         "(named in args) and a help line", name, k, fl->name ? fl->name : "unnamed");
                return err;
            }
            /* a name two transports own must take the same arguments: the CLI parses it once */
            for (size_t j = 0; j <= i; j++)
                for (unsigned m = 0; m < ops[j]->n_flags && (j < i || m < k); m++)
                    if (!strcmp(ops[j]->flags[m].name, fl->name) &&
                        (ops[j]->flags[m].n_args != fl->n_args || ops[j]->flags[m].repeats != fl->repeats)) {
                        snprintf(err, err_len, "transport %s: flag %s takes other arguments in transport %s", name,
                                 fl->name, ops[j]->name);
                        return err;
                    }
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(ops[j]->name, t->name)) {
                snprintf(err, err_len, "transport %s: registered twice", name);
                return err;
            }
    }
    if (n > TRANSPORT_MAX) {
        snprintf(err, err_len, "%zu transports registered; host timers carry the index in 8 bits (at most %u)", n,
                 TRANSPORT_MAX);
        return err;
    }
    return NULL;
}

const struct transport_ops *const *transport_registry(size_t *n)
{
    *n = N_TRANSPORTS;
    return all_transports;
}

const char *transport_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0; i < N_TRANSPORTS; i++) {
            if (i)
                strcat(names, ", ");
            strcat(names, all_transports[i]->name);
        }
    return names;
}

/* ---- per-run state ------------------------------------------------------------------ */

unsigned transport_index(const struct transport_ops *ops)
{
    for (unsigned t = 0; t < N_TRANSPORTS; t++)
        if (all_transports[t] == ops)
            return t;
    die_internal("transport %s is not registered", ops && ops->name ? ops->name : "(unnamed)");
}

void *transport_run_state(const struct sim *s, const struct transport_ops *ops)
{
    return s->tp_run[transport_index(ops)];
}

void transport_set_run_state(struct sim *s, const struct transport_ops *ops, void *state)
{
    s->tp_run[transport_index(ops)] = state;
}

/* ---- flags transports own ------------------------------------------------------------ */

const struct transport_flag *transport_flag_find(const char *name)
{
    for (size_t t = 0; t < N_TRANSPORTS; t++)
        for (unsigned k = 0; k < all_transports[t]->n_flags; k++)
            if (!strcmp(all_transports[t]->flags[k].name, name))
                return &all_transports[t]->flags[k];
    size_t n_lb;
    const struct lb_ops *const *lbs = lb_registry(&n_lb);
    for (size_t j = 0; j < n_lb; j++)
        for (unsigned k = 0; k < lbs[j]->n_flags; k++)
            if (!strcmp(lbs[j]->flags[k].name, name))
                return &lbs[j]->flags[k];
    return NULL;
}

/* The balancer owning flag `name`, or NULL. */
static bool lb_owns(const struct lb_ops *lb, const char *name)
{
    for (unsigned k = 0; k < lb->n_flags; k++)
        if (!strcmp(lb->flags[k].name, name))
            return true;
    return false;
}

static void flags_usage(FILE *out, const char *what, const char *name, const struct transport_flag *flags,
                        unsigned n)
{
    if (!n)
        return;
    fprintf(out, "\nFlags of %s %s (read only by its connections):\n", what, name);
    for (unsigned k = 0; k < n; k++) {
        const struct transport_flag *fl = &flags[k];
        char head[64];
        snprintf(head, sizeof head, "%s%s%s", fl->name, fl->n_args ? " " : "", fl->n_args ? fl->args : "");
        if (strlen(head) < 22)
            fprintf(out, "  %-22s%s\n", head, fl->help);
        else
            fprintf(out, "  %s\n  %-22s%s\n", head, "", fl->help);
    }
}

void transport_flags_usage(FILE *out)
{
    for (size_t t = 0; t < N_TRANSPORTS; t++)
        flags_usage(out, "--transport", all_transports[t]->name, all_transports[t]->flags, all_transports[t]->n_flags);
    size_t n_lb;
    const struct lb_ops *const *lbs = lb_registry(&n_lb);
    for (size_t j = 0; j < n_lb; j++)
        flags_usage(out, "--lb", lbs[j]->name, lbs[j]->flags, lbs[j]->n_flags);
}

bool transport_flag_given(const struct sim *s, const char *name)
{
    return transport_flag_count(s, name) > 0;
}

unsigned transport_flag_count(const struct sim *s, const char *name)
{
    unsigned n = 0;
    for (unsigned i = 0; i < s->cfg.n_tp_flags; i++)
        n += !strcmp(s->cfg.tp_flags[i].name, name);
    return n;
}

const char *transport_flag_arg_at(const struct sim *s, const char *name, unsigned occurrence, unsigned k)
{
    if (k >= 2)
        return NULL;
    for (unsigned i = 0; i < s->cfg.n_tp_flags; i++)
        if (!strcmp(s->cfg.tp_flags[i].name, name) && occurrence-- == 0)
            return s->cfg.tp_flags[i].args[k];
    return NULL;
}

const char *transport_flag_arg(const struct sim *s, const char *name, unsigned k)
{
    unsigned n = transport_flag_count(s, name);
    return n ? transport_flag_arg_at(s, name, n - 1, k) : NULL;
}

int transport_flag_last(const struct sim *s, const char *const *names, unsigned n)
{
    int last = -1;
    for (unsigned i = 0; i < s->cfg.n_tp_flags; i++)
        for (unsigned k = 0; k < n; k++)
            if (!strcmp(s->cfg.tp_flags[i].name, names[k]))
                last = (int)k;
    return last;
}

/* "-flag" or, for a flag of two arguments, "-flag (low)" / "-flag (high)"
 * after its args' words ("LOW HIGH"), as the shared two-value flags say. */
static void flag_label(char *out, size_t len, const char *name, unsigned k)
{
    const struct transport_flag *fl = transport_flag_find(name);
    if (!fl || fl->n_args < 2 || !fl->args) {
        snprintf(out, len, "%s", name);
        return;
    }
    const char *w = fl->args;
    for (unsigned i = 0; i < k && strchr(w, ' '); i++)
        w = strchr(w, ' ') + 1;
    size_t wl = strcspn(w, " ");
    char word[32];
    size_t n = wl < sizeof word - 1 ? wl : sizeof word - 1;
    for (size_t i = 0; i < n; i++)
        word[i] = (char)(w[i] >= 'A' && w[i] <= 'Z' ? w[i] - 'A' + 'a' : w[i]);
    word[n] = '\0';
    snprintf(out, len, "%s (%s)", name, word);
}

uint64_t transport_flag_uint(const struct sim *s, const char *name, unsigned k, uint64_t min, uint64_t max,
                             uint64_t dflt)
{
    const char *v = transport_flag_arg(s, name, k);
    if (!v)
        return dflt;
    char b[SHOWN_BUF], label[96];
    flag_label(label, sizeof label, name, k);
    uint64_t u = 0;
    enum num_status st = parse_u64(v, &u);
    if (st == NUM_BAD)
        die_input("%s: '%s' is not a non-negative whole number", label, shown(v, b));
    if (st == NUM_RANGE || u < min || u > max)
        die_input("%s: '%s' is out of range (%llu to %llu)", label, shown(v, b), (unsigned long long)min,
                  (unsigned long long)max);
    return u;
}

double transport_flag_real(const struct sim *s, const char *name, unsigned k, double min, double max, double dflt)
{
    const char *v = transport_flag_arg(s, name, k);
    if (!v)
        return dflt;
    char b[SHOWN_BUF], label[96];
    flag_label(label, sizeof label, name, k);
    double d = 0;
    enum num_status st = parse_real(v, &d);
    if (st == NUM_BAD)
        die_input("%s: '%s' is not a number", label, shown(v, b));
    if (st == NUM_RANGE || d < min || d > max)
        die_input("%s: '%s' is out of range (%g to %g)", label, shown(v, b), min, max);
    return d;
}

void transport_flag_opts(const struct sim *s, const char *name, const struct transport_opt *table, unsigned n)
{
    char b[SHOWN_BUF], b2[SHOWN_BUF];
    unsigned count = transport_flag_count(s, name);
    for (unsigned o = 0; o < count; o++) {
        const char *v = transport_flag_arg_at(s, name, o, 0), *eq = strchr(v, '=');
        if (!eq || eq == v || !eq[1])
            die_input("%s: '%s' is not NAME=VALUE", name, shown(v, b));
        size_t nl = (size_t)(eq - v);
        unsigned k = 0;
        while (k < n && (strlen(table[k].name) != nl || strncmp(table[k].name, v, nl)))
            k++;
        if (k == n) {
            char names[256] = "";
            for (unsigned j = 0; j < n; j++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? ", " : "", table[j].name);
            die_input("%s %s: unknown option (known: %s)", name, shown(v, b), names);
        }
        double d = 0;
        enum num_status st = parse_real(eq + 1, &d);
        if (st == NUM_BAD || (table[k].whole && d != floor(d)))
            die_input("%s %s: '%s' is not %s", name, table[k].name, shown(eq + 1, b2),
                      table[k].whole ? "a whole number" : "a number");
        if (st == NUM_RANGE || d < table[k].min || d > table[k].max)
            die_input("%s %s: '%s' is out of range (%g to %g)", name, table[k].name, shown(eq + 1, b2), table[k].min,
                      table[k].max);
        *table[k].out = d;
        if (table[k].given)
            *table[k].given = true;
    }
}

void transport_check_flags(const struct sim *s)
{
    for (size_t t = 0; t < N_TRANSPORTS; t++)
        if (all_transports[t]->check_flags)
            all_transports[t]->check_flags(s);
    /* the balancers' flags too, whether or not a flow uses them: a bad value
     * is refused, never left for a flow that starts mid-run */
    size_t n_lb;
    const struct lb_ops *const *lbs = lb_registry(&n_lb);
    for (size_t j = 0; j < n_lb; j++)
        if (lbs[j]->read_opts) {
            struct lb_params scratch;
            memset(&scratch, 0, sizeof scratch);
            lbs[j]->read_opts(s, &scratch);
        }
}

/* ---- packets ---------------------------------------------------------------------------- */

uint32_t transport_make_packet(struct sim *s, uint32_t fi, uint8_t type, uint32_t seq, uint32_t size_bytes)
{
    return transport_new_packet(s, fi, type, seq, size_bytes); /* data_packet.h: the body, inline for senders */
}

uint32_t transport_make_reply(struct sim *s, uint32_t fi, uint8_t type, uint32_t seq, uint32_t size_bytes)
{
    uint32_t idx = transport_make_packet(s, fi, type, seq, size_bytes);
    struct packet *p = pkt_at(&s->pool, idx);
    p->src_host = s->flows[fi].dst;
    p->dst_host = s->flows[fi].src;
    return idx;
}

/* ---- flows ------------------------------------------------------------------------ */

/* Flow i from connection s->cm.conns[i], speaking run_tp unless its line
 * names another transport. */
static void flow_init(struct sim *s, uint32_t i, const struct transport_ops *run_tp)
{
    uint32_t mss = s->cfg.mtu_bytes - s->cfg.hdr_bytes;
    const struct cm_conn *c = &s->cm.conns[i];
    struct flow *f = &s->flows[i];
    f->tp = run_tp;
    if (c->transport[0]) {
        f->tp = transport_find(c->transport);
        if (!f->tp)
            die_input("%s:%u: unknown transport '%s' (known: %s)", s->cfg.tm_path, c->line, c->transport,
                      transport_names());
    }
    f->src = c->src;
    f->dst = c->dst;
    f->id = c->id;
    f->conn_index = i;
    f->size_bytes = c->size_bytes;
    /* no "(size + mss - 1) / mss": it wraps for sizes near 2^64 */
    uint64_t n = c->size_bytes / mss + (c->size_bytes % mss != 0);
    if (n > UINT32_MAX / 2)
        die_input("%s:%u: size %llu needs more than 2^31 packets", s->cfg.tm_path, c->line,
                  (unsigned long long)c->size_bytes);
    f->n_pkts = (uint32_t)n;
    f->last_payload_bytes = (uint32_t)(c->size_bytes - (n - 1) * mss);
    f->state = FLOW_WAITING;
    f->finish_ps = f->rcv_done_ps = SIMTIME_NEVER;
    f->lb = s->lb;
    if (c->lb[0]) {
        f->lb = lb_find(c->lb);
        if (!f->lb)
            die_input("%s:%u: unknown load balancer '%s' (known: %s)", s->cfg.tm_path, c->line, c->lb, lb_names());
    }
    if (s->cfg.paths == 1)
        f->lb = &lb_single_ops;
    /* a RoCE queue pair keeps one path (its 5-tuple's ECMP hash), as NICs
     * and htsim_roce/htsim_hpcc do; go-back-N would resend on every
     * reordering of a sprayed one. -paths or --lb (or the line's lb) spray it. */
    if (f->tp->one_path_default && !c->lb[0] && !s->cfg.lb_given && !s->cfg.paths_given)
        f->lb = &lb_single_ops;
    /* seed 004 Sec. IV-A: ECMP flows and sprayed flows form two classes */
    f->tclass = c->tclass != CM_CLASS_AUTO ? c->tclass : (f->lb == &lb_single_ops);
    if (c->prio_class >= s->cfg.n_classes)
        die_input("%s:%u: priority %u needs --classes %u or more (this run has %u switch classes)",
                  s->cfg.tm_path, c->line, c->prio_class, c->prio_class + 1, s->cfg.n_classes);
    f->prio_class = c->prio_class;
    /* a mixed fabric: a RoCE connection left in class 1 (the default) goes
     * to the lowest lossless class */
    if (s->cfg.lossless_mask && f->tp->lossless && f->prio_class == PKT_PRIO_DATA)
        f->prio_class = (uint8_t)__builtin_ctz(s->cfg.lossless_mask);
    f->ready_next = f->ready_prev = READY_NONE;
}

/* Issue 20: an option no connection of the run reads is never silently
 * ignored. A .cm line picks its own transport and balancer, so this is
 * decided over the flows (and, for an open-loop workload, the run's
 * transport and balancer, which the messages added during the run get);
 * each transport and balancer declares what it reads (transport_ops.reads,
 * lb_ops.reads_reps_opts), so no protocol is named here. One line per
 * option group, to stderr, like the --cc warning. */
static void warn_unread_options(const struct sim *s, const struct transport_ops *run_tp, const bool *used,
                                bool open_loop)
{
    char in_use[128] = "", lbs_in_use[128] = "";
    unsigned reads = 0;
    for (size_t t = 0; t < N_TRANSPORTS; t++)
        if (used[t] || (open_loop && all_transports[t] == run_tp)) {
            reads |= all_transports[t]->reads;
            snprintf(in_use + strlen(in_use), sizeof in_use - strlen(in_use), "%s%s", in_use[0] ? ", " : "",
                     all_transports[t]->name);
        }
    const struct {
        unsigned bit;
        const char *flag; /* NULL: not given */
    } checks[] = {
        {TP_READS_CC_MODE, s->cfg.cc_mode_flag},
        {TP_READS_SLEEK, s->cfg.sleek ? "-sleek" : NULL},
        {TP_READS_LOSS_DETECT, s->cfg.loss_detect >= 0 ? "--loss-detect" : NULL},
        {TP_READS_CWND, s->cfg.cwnd_pkts ? "-cwnd" : NULL},
        {TP_READS_ACK_THRESHOLD, s->cfg.ack_threshold_given ? "-sack_threshold" : NULL},
    };
    for (size_t k = 0; k < sizeof checks / sizeof checks[0]; k++) {
        if (!checks[k].flag || (reads & checks[k].bit))
            continue;
        char readers[128] = "";
        for (size_t t = 0; t < N_TRANSPORTS; t++)
            if (all_transports[t]->reads & checks[k].bit)
                snprintf(readers + strlen(readers), sizeof readers - strlen(readers), "%s%s",
                         readers[0] ? " or " : "", all_transports[t]->name);
        warn_input("%s has no effect: no connection of this run uses %s (its transports: %s)", checks[k].flag,
                   readers, in_use[0] ? in_use : "none");
    }
    /* the flags transports own: each name once, warned when none of its
     * owners is in use (a balancer's flags: below) */
    for (unsigned i = 0; i < s->cfg.n_tp_flags; i++) {
        const char *name = s->cfg.tp_flags[i].name;
        bool seen = false, read = false, a_transports = false;
        for (size_t t = 0; t < N_TRANSPORTS && !a_transports; t++)
            for (unsigned k = 0; k < all_transports[t]->n_flags; k++)
                a_transports |= !strcmp(all_transports[t]->flags[k].name, name);
        seen = !a_transports;
        for (unsigned j = 0; j < i && !seen; j++)
            seen = !strcmp(s->cfg.tp_flags[j].name, name);
        char readers[128] = "";
        for (size_t t = 0; t < N_TRANSPORTS && !seen; t++)
            for (unsigned k = 0; k < all_transports[t]->n_flags; k++)
                if (!strcmp(all_transports[t]->flags[k].name, name)) {
                    read |= used[t] || (open_loop && all_transports[t] == run_tp);
                    snprintf(readers + strlen(readers), sizeof readers - strlen(readers), "%s%s",
                             readers[0] ? " or " : "", all_transports[t]->name);
                }
        if (!seen && !read)
            warn_input("%s has no effect: no connection of this run uses %s (its transports: %s)", name, readers,
                       in_use[0] ? in_use : "none");
    }
    /* the balancers' flags: one line for the last one given that no flow's
     * balancer owns */
    const char *lb_flag = NULL;
    size_t n_lb;
    const struct lb_ops *const *lbs = lb_registry(&n_lb);
    for (unsigned i = 0; i < s->cfg.n_tp_flags; i++)
        for (size_t j = 0; j < n_lb; j++)
            if (lb_owns(lbs[j], s->cfg.tp_flags[i].name))
                lb_flag = s->cfg.tp_flags[i].name;
    if (!lb_flag)
        return;
    /* the balancers in use, each named once */
    const struct lb_ops *seen[16];
    size_t n_seen = 0;
    bool reps_read = false;
    for (uint32_t i = 0; i <= s->n_flows && !reps_read; i++) {
        const struct lb_ops *lb = i < s->n_flows ? s->flows[i].lb : open_loop ? s->lb : NULL;
        if (!lb)
            continue;
        reps_read |= lb_owns(lb, lb_flag);
        bool known = false;
        for (size_t j = 0; j < n_seen; j++)
            known |= seen[j] == lb;
        if (!known && n_seen < sizeof seen / sizeof seen[0]) {
            seen[n_seen++] = lb;
            snprintf(lbs_in_use + strlen(lbs_in_use), sizeof lbs_in_use - strlen(lbs_in_use), "%s%s",
                     lbs_in_use[0] ? ", " : "", lb->name);
        }
    }
    if (reps_read)
        return;
    char readers[128] = "";
    for (size_t j = 0; j < n_lb; j++)
        if (lb_owns(lbs[j], lb_flag))
            snprintf(readers + strlen(readers), sizeof readers - strlen(readers), "%s%s", readers[0] ? " or " : "",
                     lbs[j]->name);
    warn_input("%s has no effect: no connection of this run uses the %s balancer (its balancers: %s)",
               lb_flag, readers, lbs_in_use[0] ? lbs_in_use : "none");
}

void transport_setup(struct sim *s)
{
    char err[256];
    if (transport_registry_check(all_transports, N_TRANSPORTS, err, sizeof err))
        die_internal("%s", err);
    const struct transport_ops *run_tp = transport_find(s->cfg.transport_name);
    if (!run_tp)
        die_input("--transport: unknown transport '%s' (known: %s)", s->cfg.transport_name, transport_names());
    s->n_flows = s->cm.n_conns;
    s->n_flows_matrix = s->n_flows;
    s->n_msgs = s->n_flows;
    for (uint32_t i = 0; i < s->cm.n_conns && !s->cm_has_msgs; i++)
        s->cm_has_msgs = s->cm.conns[i].msg_prev != CM_NO_MSG || s->cm.conns[i].msg_next != CM_NO_MSG ||
                         s->cm.conns[i].msg;
    s->cap_flows = s->n_flows;
    s->flows = xcalloc(s->n_flows ? s->n_flows : 1, sizeof(struct flow));
    bool used[N_TRANSPORTS] = {false};
    for (uint32_t i = 0; i < s->n_flows; i++) {
        flow_init(s, i, run_tp);
        s->flows[i].ordinal = i;
        for (size_t t = 0; t < N_TRANSPORTS; t++)
            used[t] |= all_transports[t] == s->flows[i].tp;
    }
    /* the run's transport checks its options even when no flow uses it */
    bool windowed = false; /* a flow whose transport reads --cc, or says it does not */
    for (size_t t = 0; t < N_TRANSPORTS; t++)
        if (used[t] || all_transports[t] == run_tp) {
            all_transports[t]->setup(s);
            windowed |= (all_transports[t]->reads & TP_READS_CC) != 0;
        }
    /* a transport without a sender window (receiver credit, or rate
     * control: RoCE's --cc dcqcn, timely, hpcc became its rate control in
     * options.c): --cc names nothing here, as EQDS's and Homa's setups say
     * for theirs */
    if (s->cfg.cc_given && !windowed) {
        if (run_tp->cc_hint)
            warn_input("--cc %s has no effect on %s", s->cc->name, run_tp->cc_hint);
        else
            warn_input("--cc %s has no effect on %s: senders keep no window", s->cc->name, run_tp->name);
    }
    /* flows added during the run: open-loop arrivals, a GOAL schedule's sends */
    bool open_loop = poisson_is_spec(s->cfg.workload_spec) || s->goal;
    warn_unread_options(s, run_tp, used, open_loop);
    /* the fabric each needs, for the classes its flows use; the run's
     * transport of an open-loop workload also for the class of the
     * messages it adds during the run (transport_add_flow: class 1, RoCE's
     * lowest lossless class) */
    for (size_t t = 0; t < N_TRANSPORTS; t++) {
        const struct transport_ops *tp = all_transports[t];
        if (!used[t] && tp != run_tp)
            continue;
        uint32_t classes = 0;
        for (uint32_t i = 0; i < s->n_flows; i++)
            if (s->flows[i].tp == tp)
                classes |= 1u << s->flows[i].prio_class;
        if (tp == run_tp && open_loop)
            classes |= 1u << (s->cfg.lossless_mask && tp->lossless
                                  ? (uint32_t)__builtin_ctz(s->cfg.lossless_mask)
                                  : PKT_PRIO_DATA);
        struct class_need need[PORT_MAX_CLASSES];
        memset(need, 0, sizeof need);
        tp->fabric_needs(s, classes, need);
        net_class_needs_add(s, tp->name, need);
    }
    net_class_policy_apply(s);
}

uint32_t transport_add_flow(struct sim *s, uint32_t src, uint32_t dst, uint64_t size_bytes)
{
    if (s->n_msgs == UINT32_MAX - 1)
        die_input("--workload: more than %u messages in one run", UINT32_MAX - 1);
    uint32_t fi = flowstream_take_slot(s); /* a recycled slot (--stream), else a new one */
    if (fi == UINT32_MAX && s->n_flows == s->cap_flows) {
        /* doubling: amortised O(1) per flow; indices stay valid, pointers do not */
        uint32_t cap = s->cap_flows < 1024 ? 1024 : s->cap_flows > UINT32_MAX / 2 ? UINT32_MAX - 1 : 2 * s->cap_flows;
        s->flows = xrealloc(s->flows, (size_t)cap * sizeof(struct flow));
        memset(&s->flows[s->cap_flows], 0, (size_t)(cap - s->cap_flows) * sizeof(struct flow));
        s->cm.conns = xrealloc(s->cm.conns, (size_t)cap * sizeof(struct cm_conn));
        s->cap_flows = cap;
    }
    uint16_t gen = 0;
    if (fi == UINT32_MAX) {
        fi = s->n_flows++;
        s->cm.n_conns = s->n_flows;
    } else {
        gen = s->flows[fi].gen;
    }
    uint32_t ordinal = s->n_msgs++;
    s->n_msgs_added_here += !s->node_remote || !s->node_remote[src];
    s->cm.conns[fi] = (struct cm_conn){
        .src = src,
        .dst = dst,
        .id = ordinal + 1,
        .size_bytes = size_bytes,
        .start_ps = s->now,
        .start_trigger = CM_NO_TRIGGER,
        .send_done_trigger = CM_NO_TRIGGER,
        .recv_done_trigger = CM_NO_TRIGGER,
        .msg_prev = CM_NO_MSG,
        .msg_next = CM_NO_MSG,
        .msg_index = 1,
        .tclass = CM_CLASS_AUTO,
        .prio_class = 1,
    };
    const struct transport_ops *run_tp = transport_find(s->cfg.transport_name);
    flow_init(s, fi, run_tp);
    s->flows[fi].ordinal = ordinal;
    s->flows[fi].gen = gen;
    run_tp->flow_add(s, fi);
    return fi;
}

/* ---- persistent connections of open-loop messages ------------------------------------ */

struct pool_conn {
    uint64_t queued_bytes;   /* of its messages not finished (running or waiting) */
    uint32_t last_slot;      /* the flow slot of its newest message (valid while queued_bytes > 0) */
    void *cc_state, *lb_state; /* kept while it idles (messages inherit) */
    const struct lb_ops *lb;   /* lb_state's balancer */
};

struct conn_pools {
    uint32_t k;
    uint32_t *first;         /* [src * hosts + dst]: 1 + index of the pair's first of k connections, 0: none yet */
    struct pool_conn *conns;
    uint32_t n, cap;
};

uint32_t transport_add_flow_pooled(struct sim *s, uint32_t src, uint32_t dst, uint64_t size_bytes, uint32_t pool_k)
{
    /* another process's source (a parallel run makes every message's slot
     * everywhere): its connections live where it sends, and only the
     * sender reads a message's place on its connection (msg_prev) */
    if (!pool_k || (s->node_remote && s->node_remote[src]))
        return transport_add_flow(s, src, dst, size_bytes);
    struct conn_pools *cp = s->pools;
    if (!cp) {
        cp = s->pools = xcalloc(1, sizeof *cp);
        cp->k = pool_k;
        cp->first = xcalloc((size_t)s->n_hosts * s->n_hosts, sizeof(uint32_t));
    }
    invariant(cp->k == pool_k, "pools of %u and %u connections in one run", cp->k, pool_k);
    uint32_t *first = &cp->first[(size_t)src * s->n_hosts + dst];
    if (!*first) { /* the pair's connections, made when it first has a message */
        if (cp->n + cp->k > cp->cap) {
            cp->cap = cp->cap ? 2 * cp->cap : 1024;
            while (cp->cap < cp->n + cp->k)
                cp->cap *= 2;
            cp->conns = xrealloc(cp->conns, (size_t)cp->cap * sizeof *cp->conns);
        }
        memset(&cp->conns[cp->n], 0, (size_t)cp->k * sizeof *cp->conns);
        *first = cp->n + 1;
        cp->n += cp->k;
    }
    uint32_t base = *first - 1, pick = base;
    for (uint32_t i = 0; i < cp->k; i++) {
        const struct pool_conn *c = &cp->conns[base + i];
        if (c->queued_bytes < cp->conns[pick].queued_bytes)
            pick = base + i;
        if (!c->queued_bytes) {
            pick = base + i; /* the lowest idle one */
            break;
        }
    }
    uint32_t fi = transport_add_flow(s, src, dst, size_bytes);
    struct pool_conn *c = &cp->conns[pick];
    struct flow *f = &s->flows[fi];
    f->pool_conn = pick + 1;
    if (c->queued_bytes) {
        /* behind the connection's newest message, which has not finished */
        uint32_t last = c->last_slot;
        invariant(s->flows[last].state != FLOW_DONE && s->flows[last].pool_conn == pick + 1,
                  "pool connection %u: its newest message (slot %u) is gone", pick, last);
        s->cm.conns[last].msg_next = fi;
        s->cm.conns[fi].msg_prev = last;
    } else if (c->cc_state || c->lb_state) {
        f->cc_state = c->cc_state; /* the idle connection's state (transport_msg_sent) */
        f->lb_state = c->lb_state;
        c->cc_state = c->lb_state = NULL;
    }
    c->queued_bytes += size_bytes;
    c->last_slot = fi;
    return fi;
}

static void pools_free(struct sim *s)
{
    struct conn_pools *cp = s->pools;
    if (!cp)
        return;
    for (uint32_t i = 0; i < cp->n; i++) {
        free(cp->conns[i].cc_state);
        if (cp->conns[i].lb_state)
            lb_state_free(cp->conns[i].lb, cp->conns[i].lb_state);
    }
    free(cp->conns);
    free(cp->first);
    free(cp);
    s->pools = NULL;
}

void transport_free(struct sim *s)
{
    pools_free(s);
    for (size_t t = 0; t < N_TRANSPORTS; t++)
        all_transports[t]->free(s);
    free(s->flows);
    s->flows = NULL;
}

/* ---- dispatch ---------------------------------------------------------------------- */

/* A message is posted when its start time or trigger comes; it starts
 * sending at once behind the connection's message before it when its
 * transport pipelines them (msg_pipeline), else when that one has been
 * acknowledged in full (transport_msg_sent), so a connection carries its
 * messages one after another, in file order. */
void transport_flow_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (f->state != FLOW_WAITING)
        return;
    if (!f->posted) {
        f->posted = true;
        f->posted_ps = s->now;
    }
    if (s->cm.conns[f->conn_index].msg_prev != CM_NO_MSG && !f->prev_done) {
        if (f->tp->msg_pipeline && f->tp->msg_pipeline(s, fi))
            return; /* sent behind the earlier ones, in their sequence space */
        return; /* started by transport_msg_sent(prev) */
    }
    f->tp->flow_start(s, fi);
    invariant(f->state != FLOW_WAITING, "flow %u: its transport did not start it", fi);
}

bool transport_flow_activate(struct sim *s, struct flow *f)
{
    if (f->state != FLOW_WAITING)
        return false;
    f->state = FLOW_ACTIVE;
    f->start_ps = s->now;
    s->flows_started++;
    return true;
}

void transport_flow_finished(struct sim *s, uint32_t fi)
{
    const struct cm_conn *c = &s->cm.conns[s->flows[fi].conn_index];
    if (c->send_done_trigger != CM_NO_TRIGGER)
        sim_trigger_activate(s, c->send_done_trigger);
    if (s->flows_finished == s->n_msgs && !s->arrivals_open)
        s->stop = true;
}

bool transport_msg_inherits(const struct sim *s, const struct flow *f)
{
    return s->cfg.msg_cc < 0 ? f->tp->msg_inherit_default : s->cfg.msg_cc == 1;
}

void transport_msg_sent(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (s->fstream)
        flowstream_finished(s, fi);
    struct pool_conn *pc = f->pool_conn ? &s->pools->conns[f->pool_conn - 1] : NULL;
    if (pc) {
        invariant(pc->queued_bytes >= f->size_bytes, "flow %u: its pool connection holds fewer bytes than it", fi);
        pc->queued_bytes -= f->size_bytes;
    }
    uint32_t next = s->cm.conns[f->conn_index].msg_next;
    if (next == CM_NO_MSG) {
        if (pc && transport_msg_inherits(s, f)) {
            /* the connection idles with its state until its next message */
            invariant(!pc->cc_state && !pc->lb_state, "flow %u: its idle connection already holds a state", fi);
            pc->cc_state = f->cc_state;
            pc->lb_state = f->lb_state;
            pc->lb = f->lb;
            f->cc_state = f->lb_state = NULL;
        }
        return;
    }
    struct flow *n = &s->flows[next];
    n->prev_done = true;
    invariant(n->state == FLOW_WAITING && !n->cc_state && !n->lb_state,
              "flow %u: the next message on its connection (%u) already runs", fi, next);
    if (transport_msg_inherits(s, f)) {
        /* the connection's window, rate and path state carry over, as a
         * TCP connection's do (seen at the next message's flow_start) */
        n->cc_state = f->cc_state;
        n->lb_state = f->lb_state;
        f->cc_state = f->lb_state = NULL;
    }
    if (n->posted)
        sim_at(s, s->now, EV_FLOW_START, next);
}

/* A packet (or timer) of an earlier message whose slot was recycled
 * (--stream): nobody is left to take it. Only the invariant checks read it,
 * so it exists only where they are compiled in (clang warns of an unused
 * static inline function otherwise). */
#ifdef SPRAYSIM_CHECKS
static inline bool stale(const struct sim *s, const struct packet *p)
{
    return s->fstream && p->flow_gen != s->flows[p->flow].gen;
}
#endif

/* Packet p leaves the network (received or dropped): when it was the last
 * of a message already streamed, the slot can be recycled. */
static inline void pkt_out_of_network(struct sim *s, const struct packet *p)
{
    if (!s->count_pkts)
        return;
    struct flow *f = &s->flows[p->flow];
    invariant(f->pkts_out > 0, "flow %u: a packet left the network with none counted in it", p->flow);
    if (--f->pkts_out == 0 && f->streamed)
        flowstream_quiet(s, p->flow);
}

void transport_receive(struct sim *s, uint32_t pkt_idx)
{
    const struct packet *p = pkt_at(&s->pool, pkt_idx);
    invariant(!stale(s, p), "packet %u arrived for flow slot %u after it was recycled", pkt_idx, p->flow);
    uint32_t fi = p->flow;
    pkt_out_of_network(s, p);
    s->flows[fi].tp->receive(s, pkt_idx);
}

/* A drop is counted here for every transport; loss is for the transport to
 * discover (NACK, timeout), never an oracle, so on_drop is optional. */
void transport_on_drop(struct sim *s, uint32_t pkt_idx)
{
    if (pkt_at(&s->pool, pkt_idx)->type == PKT_DATA)
        s->tot.data_drops++;
    else
        s->tot.ctl_drops++;
    invariant(!stale(s, pkt_at(&s->pool, pkt_idx)), "packet %u dropped for a recycled flow slot", pkt_idx);
    const struct transport_ops *tp = s->flows[pkt_at(&s->pool, pkt_idx)->flow].tp;
    pkt_out_of_network(s, pkt_at(&s->pool, pkt_idx));
    if (tp->on_drop)
        tp->on_drop(s, pkt_idx);
}

bool transport_on_control_full(struct sim *s, uint32_t port_idx, uint32_t pkt_idx)
{
    const struct transport_ops *tp = s->flows[pkt_at(&s->pool, pkt_idx)->flow].tp;
    return tp->on_control_full && tp->on_control_full(s, port_idx, pkt_idx);
}

/* A timer event's aux: the transport's kind below, the slot's generation
 * above (--stream: a recycled slot's old timers are stale). */
#define TIMER_KIND_BITS 16

void transport_timer(struct sim *s, uint32_t fi, uint32_t aux)
{
    if (s->fstream && (aux >> TIMER_KIND_BITS) != s->flows[fi].gen) {
        s->fstream->stale_timers++;
        return;
    }
    s->flows[fi].tp->timer(s, fi, aux & ((1u << TIMER_KIND_BITS) - 1));
}

void transport_timer_at(struct sim *s, simtime_ps t, uint32_t fi, uint32_t kind)
{
    invariant(kind < (1u << TIMER_KIND_BITS), "flow %u: timer kind %u does not fit", fi, kind);
    eq_push_aux(&s->eq, t, EV_TRANSPORT_TIMER, fi, kind | (uint32_t)s->flows[fi].gen << TIMER_KIND_BITS);
}

void transport_host_timer_at(struct sim *s, simtime_ps t, const struct transport_ops *tp, uint32_t host,
                             uint32_t kind)
{
    uint32_t t_idx = 0;
    while (t_idx < N_TRANSPORTS && all_transports[t_idx] != tp)
        t_idx++;
    if (t_idx == N_TRANSPORTS || !tp->host_timer || kind >= (1u << HOST_TIMER_KIND_BITS) || host >= s->n_hosts)
        die_internal("host %u: host timer kind %u of transport %s cannot be set (unregistered, no host_timer, or "
                     "out of range)", host, kind, tp->name);
    eq_push_aux(&s->eq, t, EV_HOST_TIMER, host, kind | t_idx << HOST_TIMER_KIND_BITS);
}

void transport_host_timer(struct sim *s, uint32_t host, uint32_t aux)
{
    all_transports[aux >> HOST_TIMER_KIND_BITS]->host_timer(s, host, aux & ((1u << HOST_TIMER_KIND_BITS) - 1));
}

void transport_cc_params(const struct sim *s, struct cc_params *cp, uint32_t path_hops, uint32_t cls)
{
    *cp = (struct cc_params){
        .mtu_bytes = s->cfg.mtu_bytes,
        .mss_bytes = s->cfg.mtu_bytes - s->cfg.hdr_bytes,
        .base_rtt_ps = s->base_rtt_ps,
        .network_rtt_ps = s->base_rtt_ps,
        .linkspeed_mbps = s->cfg.linkspeed_mbps,
        .init_cwnd_bytes = (uint64_t)s->cfg.cwnd_pkts * s->cfg.mtu_bytes,
        .target_qdelay_ps = s->cfg.target_qdelay_ps,
        .qa_gate = s->cfg.qa_gate,
        .fair_decrease_off = s->cfg.disable_fd,
        .trimming = net_class_trims(s, cls), /* the flow's class as the run uses it */
        .q3_pressure = s->cfg.q3_pressure,
        .path_hops = path_hops,
        .opts = s->cfg.cc_opts,
        .n_opts = s->cfg.n_cc_opts,
    };
}

void transport_cc_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (f->cc_state)
        return; /* inherited from the connection's previous message */
    struct cc_params cp;
    transport_cc_params(s, &cp, topo_hops(&s->topo, f->src, f->dst), f->prio_class);
    f->cc_state = xcalloc(1, s->cc->state_size);
    s->cc->init(f->cc_state, &cp);
}

void transport_cc_save_counters(const struct sim *s, struct flow *f)
{
    if (!f->cc_state || !s->cc->n_counters)
        return;
    f->cc_counters = xcalloc(s->cc->n_counters, sizeof(double));
    s->cc->counters(f->cc_state, f->cc_counters);
}

void transport_cc_lb_free(struct flow *f)
{
    free(f->cc_state);
    lb_state_free(f->lb, f->lb_state);
    f->cc_state = f->lb_state = NULL;
}

void transport_lb_start(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (f->lb_state)
        return; /* inherited from the connection's previous message */
    struct lb_params lp = {
        .paths = s->cfg.paths,
        .bdp_pkts = (uint32_t)((s->bdp_bytes + s->cfg.mtu_bytes - 1) / s->cfg.mtu_bytes),
        .trimming = net_class_trims(s, f->prio_class),
        .seed = s->cfg.seed,
        .flow_index = f->ordinal, /* the message, not its slot: the same stream with --stream */
        .base_rtt_ps = s->base_rtt_ps,
    };
    if (f->lb->read_opts)
        f->lb->read_opts(s, &lp); /* its own flags (REPS: --reps-buffer, --reps-freeze) */
    f->lb_state = xcalloc(1, lb_state_bytes(f->lb, &lp));
    f->lb->init(f->lb_state, &lp);
}

uint64_t transport_unsent_wire_bytes(const struct sim *s, uint32_t fi, uint32_t next_new_seq)
{
    const struct flow *f = &s->flows[fi];
    if (next_new_seq >= f->n_pkts)
        return 0;
    uint32_t mss = s->cfg.mtu_bytes - s->cfg.hdr_bytes;
    return (uint64_t)(f->n_pkts - next_new_seq) * s->cfg.mtu_bytes - (mss - f->last_payload_bytes);
}

/* ---- the NIC's ring of flows that may send ------------------------------------------ */

static void ready_insert(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (f->in_ready_ring)
        return;
    struct host *h = &s->hosts[f->src];
    f->in_ready_ring = true;
    if (h->ready_head == READY_NONE) {
        h->ready_head = fi;
        f->ready_next = f->ready_prev = fi;
    } else {
        /* insert just before head: the end of the round-robin order */
        uint32_t head = h->ready_head;
        uint32_t tail = s->flows[head].ready_prev;
        f->ready_next = head;
        f->ready_prev = tail;
        s->flows[tail].ready_next = fi;
        s->flows[head].ready_prev = fi;
    }
    h->ready_count++;
}

void transport_nic_unready(struct sim *s, uint32_t fi)
{
    struct flow *f = &s->flows[fi];
    if (!f->in_ready_ring)
        return;
    struct host *h = &s->hosts[f->src];
    f->in_ready_ring = false;
    if (--h->ready_count == 0) {
        h->ready_head = READY_NONE;
    } else {
        s->flows[f->ready_prev].ready_next = f->ready_next;
        s->flows[f->ready_next].ready_prev = f->ready_prev;
        if (h->ready_head == fi)
            h->ready_head = f->ready_next;
    }
    f->ready_next = f->ready_prev = READY_NONE;
}

void transport_nic_ready(struct sim *s, uint32_t fi)
{
    ready_insert(s, fi);
    nic_kick(s, s->flows[fi].src);
}

uint32_t transport_nic_pull(struct sim *s, uint32_t host)
{
    struct host *h = &s->hosts[host];
    while (h->ready_head != READY_NONE) {
        uint32_t fi = h->ready_head;
        struct flow *f = &s->flows[fi];
        uint32_t idx = f->tp->nic_pull(s, fi);
        if (idx == PKT_NONE) {
            transport_nic_unready(s, fi);
            continue;
        }
        h->ready_head = f->ready_next; /* round robin among the host's flows */
        return idx;
    }
    return PKT_NONE;
}

uint32_t transport_answer(struct sim *s, const struct packet *from, uint8_t type)
{
    invariant(from->flow_gen == s->flows[from->flow].gen && from->tclass == s->flows[from->flow].tclass,
              "packet of flow %u answered with another generation or class than its flow's", from->flow);
    uint32_t idx = transport_new_packet(s, from->flow, type, 0, s->cfg.hdr_bytes);
    struct packet *a = pkt_at(&s->pool, idx);
    a->src_host = from->dst_host;
    a->dst_host = from->src_host;
    a->entropy = from->entropy;
    a->ref_seq = from->seq;
    a->flags = from->flags & PKTF_PINNED; /* echoed: the answer keeps the flow's path rule */
    return idx;
}
