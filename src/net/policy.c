/* policy.c: each switch class's queueing policy, merged from what the
 * run's transports need of it (net.h, "per-class queueing policy").
 *
 * The fabric is built as the run configured it (fabric.c: -ecn, trimming,
 * --class-opt). Each transport in use then declares, per data class its
 * packets use, what it needs of ECN marking, marking on last-hop ports and
 * trimming (transport_ops.fabric_needs); this file merges those needs class
 * by class, refuses two transports that need different things of one class
 * (a need beats a preference; two needs must agree), and only then writes
 * ports. So a transport sees the fabric it would see alone: before this, each
 * transport's setup() wrote every switch port itself, and one 2 KB SIRD
 * message between two unrelated hosts turned trimming off for every UET flow
 * of the run.
 *
 * The merged policy goes into the fields the per-packet path already reads
 * (the port's flags and thresholds for class 1, struct port_class for
 * classes 2 ..): deciding a packet's fate costs what it did before.
 */
#include "net.h"

#include "../sim.h"

#include <stdio.h>
#include <string.h>

/* The value a need asks for, made concrete: BASE becomes what the run
 * configured for the class (read from a built switch port, where every
 * switch port starts alike), so "as configured" and "off" agree when the
 * configuration is off (UET with -disable_trim next to RoCE). */
struct concrete {
    uint8_t kind;  /* NEED_BASE (configured and on), NEED_OFF or NEED_STEP */
    uint32_t step; /* NEED_STEP's threshold */
};

static bool base_ecn_on(const struct sim *s, uint32_t cls)
{
    if (s->n_ports <= s->n_hosts * s->topo.planes)
        return true;
    const struct port *p = &s->ports[s->n_hosts * s->topo.planes]; /* the first switch port */
    return cls == PKT_PRIO_DATA ? (p->flags & PORTF_ECN) != 0 : p->x && p->x->c[cls - 2].ecn;
}

static bool base_trim_on(const struct sim *s, uint32_t cls)
{
    if (s->n_ports <= s->n_hosts * s->topo.planes)
        return s->cfg.trimming;
    const struct port *p = &s->ports[s->n_hosts * s->topo.planes]; /* the first switch port */
    return cls == PKT_PRIO_DATA ? (p->flags & PORTF_TRIM) != 0 : p->x && p->x->c[cls - 2].trim;
}

static struct concrete concrete_of(uint8_t kind, uint32_t step, bool base_on)
{
    if (kind == NEED_BASE)
        return (struct concrete){base_on ? NEED_BASE : NEED_OFF, 0};
    return (struct concrete){kind, kind == NEED_STEP ? step : 0};
}

static const char *ecn_text(struct concrete v, char *buf, size_t n)
{
    if (v.kind == NEED_OFF)
        return "no ECN marking";
    if (v.kind == NEED_STEP) {
        snprintf(buf, n, "ECN step marking above %u bytes", v.step);
        return buf;
    }
    return "ECN marking as configured (RED)";
}

static const char *lasthop_text(struct concrete v, char *buf, size_t n)
{
    (void)buf;
    (void)n;
    return v.kind == NEED_OFF ? "no ECN marking on ports facing a host" : "ECN marking on ports facing a host";
}

static const char *trim_text(struct concrete v, char *buf, size_t n)
{
    (void)buf;
    (void)n;
    return v.kind == NEED_OFF ? "no trimming" : "trimming";
}

/* One field of one class: the decided value, its owner and strength. */
struct field {
    uint8_t *kind;
    uint32_t *step;
    const char **by;
    bool *strong;
};

/* Merges need (kind, step, strong) of transport `who` into field f of class
 * cls: a need beats a preference, and two needs (or two preferences) must
 * agree. */
static void merge(struct field f, uint32_t cls, bool base_on, const char *who, uint8_t kind,
                  uint32_t step, bool strong, const char *(*text)(struct concrete, char *, size_t))
{
    if (kind == NEED_ANY)
        return;
    struct concrete want = concrete_of(kind, step, base_on);
    if (!*f.by) {
        *f.kind = want.kind;
        *f.step = want.step;
        *f.by = who;
        *f.strong = strong;
        return;
    }
    struct concrete have = {*f.kind, *f.step};
    if (have.kind == want.kind && have.step == want.step) {
        if (strong && !*f.strong) {
            *f.by = who;
            *f.strong = true;
        }
        return;
    }
    if (*f.strong != strong) {
        if (strong) { /* a need replaces a preference */
            *f.kind = want.kind;
            *f.step = want.step;
            *f.by = who;
            *f.strong = true;
        }
        return;
    }
    char b1[64], b2[64];
    die_input("switch class %u: %s needs %s but %s needs %s; give one of them another class (.cm key priority K "
              "with --classes N)",
              cls, *f.by, text(have, b1, sizeof b1), who, text(want, b2, sizeof b2));
}

void net_class_needs_add(struct sim *s, const char *who, const struct class_need need[PORT_MAX_CLASSES])
{
    for (uint32_t k = PKT_PRIO_DATA; k < s->cfg.n_classes && k < PORT_MAX_CLASSES; k++) {
        const struct class_need *n = &need[k];
        struct class_policy *cp = &s->class_policy[k];
        bool ecn_on = base_ecn_on(s, k);
        merge((struct field){&cp->ecn, &cp->ecn_step_bytes, &cp->ecn_by, &cp->ecn_strong}, k, ecn_on, who,
              n->ecn, n->ecn_step_bytes, !n->ecn_weak, ecn_text);
        uint32_t no_step = 0;
        merge((struct field){&cp->ecn_lasthop, &no_step, &cp->lasthop_by, &cp->lasthop_strong}, k, ecn_on,
              who, n->ecn_lasthop, 0, !n->ecn_weak, lasthop_text);
        merge((struct field){&cp->trim, &no_step, &cp->trim_by, &cp->trim_strong}, k, base_trim_on(s, k),
              who, n->trim, 0, !n->trim_weak, trim_text);
        if (n->egress) {
            if (cp->egress && cp->egress != n->egress)
                die_input("switch class %u: %s and %s each stamp their packets as they leave a port; give their "
                          "connections different classes (--classes, 'priority K')", k, cp->egress_by, who);
            cp->egress = n->egress;
            cp->egress_by = who;
            s->class_egress = true;
        }
    }
}

void net_class_policy_apply(struct sim *s)
{
    for (uint32_t k = PKT_PRIO_DATA; k < s->cfg.n_classes && k < PORT_MAX_CLASSES; k++) {
        const struct class_policy *cp = &s->class_policy[k];
        bool set_ecn = cp->ecn_by && cp->ecn != NEED_BASE;
        bool lasthop_off = cp->lasthop_by && cp->ecn_lasthop == NEED_OFF;
        bool trim_off = cp->trim_by && cp->trim == NEED_OFF;
        if (!set_ecn && !lasthop_off && !trim_off)
            continue;
        for (uint32_t i = s->n_hosts * s->topo.planes; i < s->n_ports; i++) { /* switch ports */
            struct port *p = &s->ports[i];
            bool ecn_off = (cp->ecn_by && cp->ecn == NEED_OFF) || (lasthop_off && (p->flags & PORTF_LASTHOP));
            if (k == PKT_PRIO_DATA) {
                if (set_ecn && cp->ecn == NEED_STEP) {
                    p->flags |= PORTF_ECN;
                    p->ecn_kmin_bytes = p->ecn_kmax_bytes = cp->ecn_step_bytes;
                }
                if (ecn_off)
                    p->flags &= (uint16_t)~PORTF_ECN;
                if (trim_off)
                    p->flags &= (uint16_t)~PORTF_TRIM;
            } else {
                struct port_class *c = &p->x->c[k - 2];
                if (set_ecn && cp->ecn == NEED_STEP) {
                    c->ecn = true;
                    c->ecn_kmin_bytes = c->ecn_kmax_bytes = cp->ecn_step_bytes;
                }
                if (ecn_off)
                    c->ecn = false;
                if (trim_off)
                    c->trim = false;
            }
        }
    }
}

bool net_class_trims(const struct sim *s, uint32_t cls)
{
    const struct class_policy *cp = &s->class_policy[cls % PORT_MAX_CLASSES];
    return cp->trim_by ? cp->trim != NEED_OFF : base_trim_on(s, cls);
}

uint32_t net_class_ecn(const struct sim *s, uint32_t cls, uint32_t *step_bytes)
{
    const struct class_policy *cp = &s->class_policy[cls % PORT_MAX_CLASSES];
    bool on = cp->ecn_by ? cp->ecn != NEED_OFF : base_ecn_on(s, cls);
    *step_bytes = on && cp->ecn_by && cp->ecn == NEED_STEP ? cp->ecn_step_bytes : 0;
    return !on ? NET_ECN_OFF : *step_bytes ? NET_ECN_STEP : NET_ECN_RED;
}

void net_class_policy_json(const struct sim *s, struct strbuf *b)
{
    sb_printf(b, "[");
    for (uint32_t k = PKT_PRIO_DATA; k < s->cfg.n_classes && k < PORT_MAX_CLASSES; k++) {
        const struct class_policy *cp = &s->class_policy[k];
        bool ecn_on = cp->ecn_by ? cp->ecn != NEED_OFF : base_ecn_on(s, k);
        bool trim_on = cp->trim_by ? cp->trim != NEED_OFF : base_trim_on(s, k);
        bool lossless = s->cfg.lossless_mask ? (s->cfg.lossless_mask >> k) & 1 : s->cfg.pfc;
        sb_printf(b, "%s{\"class\": %u, \"ecn\": \"%s\", ", k > PKT_PRIO_DATA ? ", " : "", k,
                  !ecn_on ? "off" : cp->ecn_by && cp->ecn == NEED_STEP ? "step" : "red");
        if (ecn_on && cp->ecn_by && cp->ecn == NEED_STEP)
            sb_printf(b, "\"ecn_step_bytes\": %u, ", cp->ecn_step_bytes);
        /* how the class is served against the others: strict priority by
         * class number, or DRR among the data classes (--sched class-drr);
         * --sched drr splits class 1 into two traffic classes */
        const char *sched = s->cfg.class_drr ? "class-drr" : s->cfg.drr && k == PKT_PRIO_DATA ? "strict, drr inside"
                                                                                               : "strict";
        sb_printf(b, "\"ecn_last_hop\": %s, \"trim\": %s, \"lossless\": %s, \"sched\": \"%s\", \"set_by\": [",
                  ecn_on && !(cp->lasthop_by && cp->ecn_lasthop == NEED_OFF) ? "true" : "false",
                  trim_on ? "true" : "false", lossless ? "true" : "false", sched);
        /* the transports whose needs or preferences decided this class */
        const char *by[3] = {cp->ecn_by, cp->lasthop_by, cp->trim_by};
        unsigned shown = 0;
        for (int i = 0; i < 3; i++) {
            bool dup = !by[i];
            for (int j = 0; j < i && !dup; j++)
                dup = by[j] && !strcmp(by[j], by[i]);
            if (!dup)
                sb_printf(b, "%s\"%s\"", shown++ ? ", " : "", by[i]);
        }
        sb_printf(b, "]}");
    }
    sb_printf(b, "]");
}
