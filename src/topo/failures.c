/* failures.c: the failure and asymmetry model.
 *
 * A link (both directions) or a switch (all its links) can go down at a
 * time and come back later; a link can run at a reduced rate or with extra
 * propagation delay. A down link drops whatever reaches it, including its
 * queue at the moment it fails and the packet on the wire. Routing does not
 * know at first: switches keep hashing onto the dead link until the
 * detection delay has passed (seed 003 Sec. 4.1.1: hundreds of milliseconds
 * in their network), so the transport and the load balancer must cope.
 *
 * Specifications, from "failure ..." lines of the .cm file or --fail:
 *   link NODE NODE [member K] EVENT [EVENT ...]      NODE: host3 tor0 agg5 spine1 core2
 *   switch NODE EVENT [EVENT ...]
 * with EVENT one of "down [at US]", "up [at US]", "rate GBPS [at US]",
 * "delay US [at US]", "mark [at US]", "unmark [at US]" (times in
 * microseconds, default 0). "mark" ECN-marks every data packet the link
 * sends, in both directions: seed 004's model of a congested path (App. A:
 * long-path packets "get ECN-marked", short-path ones do not), which a
 * pure extra delay, never queueing, would not give (Thm. 2 (ii), Thm. 4). The reference
 * simulator's "failure switch_type AGG switch_id S link_id L" takes that
 * switch's up port L (TOR, AGG) or down port L (CORE) down from the start.
 * -failed N (htsim): N links run at 25% speed with 25% of the queue.
 * --random-failures P: each inter-switch link down from the start with
 * probability P (seed 004's Fig. 11), as reference-form matrix lines.
 * With -planes N every failure names and hits plane 0's switches and host
 * ports only (htsim main_eqds.cpp: "we only support failures in plane 0").
 */
#include "failures.h"

#include "../core/parse.h"
#include "../sim.h"
#include "../transport/transport.h"
#include "../workload/gen.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* htsim fat_tree_topology: reduced links run at 0.25 of their speed. */
#define FAILED_LINK_RATIO 0.25

static uint32_t add_event(struct sim *s, simtime_ps at, uint32_t kind, uint32_t pa, uint32_t pb, uint64_t value)
{
    if (s->n_link_events == s->cap_link_events) {
        s->cap_link_events = s->cap_link_events ? 2 * s->cap_link_events : 16;
        s->link_events = xrealloc(s->link_events, s->cap_link_events * sizeof(struct link_event));
    }
    uint32_t i = s->n_link_events++;
    s->link_events[i] = (struct link_event){at, kind, pa, pb, value};
    return i;
}

/* "tor3" -> node id; false with a message for anything else. */
static bool parse_node(const struct sim *s, const char *w, uint32_t *node, char *err, size_t errlen)
{
    static const struct {
        const char *prefix;
        int kind;
    } kinds[] = {{"host", 0}, {"tor", 1}, {"agg", 2}, {"spine", 2}, {"core", 3}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t n = strlen(kinds[k].prefix);
        if (strncmp(w, kinds[k].prefix, n) || !isdigit((unsigned char)w[n]))
            continue;
        char *end;
        errno = 0;
        unsigned long v = strtoul(w + n, &end, 10);
        if (*end || errno)
            break;
        const struct topo *t = &s->topo;
        uint32_t count[4] = {s->n_hosts, t->n_tor, t->n_agg, t->n_core};
        uint32_t base[4] = {0, s->n_hosts, s->n_hosts + t->n_tor, s->n_hosts + t->n_tor + t->n_agg};
        if (v >= count[kinds[k].kind]) {
            snprintf(err, errlen, "'%s' does not exist (this topology has %u %s%s)", w, count[kinds[k].kind],
                     kinds[k].prefix, count[kinds[k].kind] == 1 ? "" : "s");
            return false;
        }
        *node = base[kinds[k].kind] + (uint32_t)v;
        return true;
    }
    snprintf(err, errlen, "'%s' is not a node name (host3, tor0, agg5, spine1, core2)", w);
    return false;
}

/* The member-th port from a to b, or UINT32_MAX. */
static uint32_t find_port(const struct sim *s, uint32_t a, uint32_t b, uint32_t member)
{
    uint32_t first, n;
    if (a < s->n_hosts) {
        first = s->hosts[a].nic_port;
        n = 1;
    } else {
        const struct switch_node *sw = &s->switches[a - s->n_hosts];
        first = sw->first_port;
        n = (uint32_t)sw->n_down + sw->n_up;
    }
    for (uint32_t i = first; i < first + n; i++)
        if (s->ports[i].peer_node == b && member-- == 0)
            return i;
    return UINT32_MAX;
}

/* Failure times and extra delays are microseconds; beyond this (about 16
 * minutes, as for .cm start times) they are surely typos, and a delay that
 * large would leave the link dead while it looks up. */
#define FAILURE_MAX_US 1e9

static bool parse_us(const char *w, double *out)
{
    double v = 0;
    if (!w || parse_real(w, &v) != NUM_OK || v < 0 || v > FAILURE_MAX_US)
        return false;
    *out = v;
    return true;
}

#define SPEC_FAIL(...)                                                                                           \
    do {                                                                                                         \
        snprintf(err, errlen, __VA_ARGS__);                                                                      \
        return false;                                                                                            \
    } while (0)

static bool parse_spec_events(struct sim *s, const char *spec, char *err, size_t errlen);
static bool parse_words(struct sim *s, const char *spec, char **w, int n, uint32_t **ports_out, char *err,
                        size_t errlen);

/* A rejected specification leaves no events behind. */
bool failures_parse_spec(struct sim *s, const char *spec, char *err, size_t errlen)
{
    uint32_t before = s->n_link_events;
    if (parse_spec_events(s, spec, err, errlen))
        return true;
    s->n_link_events = before;
    return false;
}

static bool parse_spec_events(struct sim *s, const char *spec, char *err, size_t errlen)
{
    /* the words of the specification, however many: no length limit */
    size_t len = strlen(spec);
    char *buf = xmalloc(len + 1);
    memcpy(buf, spec, len + 1);
    char **w = xmalloc((len / 2 + 2) * sizeof *w);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        w[n++] = t;
    uint32_t *ports = NULL;
    bool ok = parse_words(s, spec, w, n, &ports, err, errlen);
    free(ports);
    free(w);
    free(buf);
    return ok;
}

static bool parse_words(struct sim *s, const char *spec, char **w, int n, uint32_t **ports_out, char *err,
                        size_t errlen)
{
    char qb[SHOWN_BUF], qb2[SHOWN_BUF];
    if (n < 2)
        SPEC_FAIL("'%s': expected 'link NODE NODE EVENT...' or 'switch NODE EVENT...'", shown(spec, qb));
    /* the ports this specification changes, two per link */
    uint32_t *ports;
    uint32_t np = 0;
    int i;
    if (!strcmp(w[0], "link")) {
        uint32_t a, b, member = 0;
        if (n < 4)
            SPEC_FAIL("'%s': a link needs two nodes and an event", shown(spec, qb));
        if (!parse_node(s, w[1], &a, err, errlen) || !parse_node(s, w[2], &b, err, errlen))
            return false;
        i = 3;
        if (!strcmp(w[i], "member")) {
            uint64_t m = 0;
            if (i + 1 >= n || parse_u64(w[i + 1], &m) != NUM_OK || m >= UINT32_MAX)
                SPEC_FAIL("'member' needs a whole number, not '%s'", i + 1 < n ? shown(w[i + 1], qb) : "");
            member = (uint32_t)m;
            i += 2;
        }
        uint32_t pa = find_port(s, a, b, member), pb = find_port(s, b, a, member);
        if (pa == UINT32_MAX || pb == UINT32_MAX)
            SPEC_FAIL("there is no link %s-%s%s", shown(w[1], qb), shown(w[2], qb2), member ? " with that member" : "");
        ports = *ports_out = xmalloc(2 * sizeof *ports);
        ports[np++] = pa;
        ports[np++] = pb;
    } else if (!strcmp(w[0], "switch")) {
        uint32_t x;
        if (!parse_node(s, w[1], &x, err, errlen))
            return false;
        if (x < s->n_hosts)
            SPEC_FAIL("'%s' is a host, not a switch", shown(w[1], qb));
        const struct switch_node *sw = &s->switches[x - s->n_hosts];
        /* every port of the switch, however many */
        ports = *ports_out = xmalloc(2 * ((size_t)sw->n_down + sw->n_up) * sizeof *ports);
        for (uint32_t p = sw->first_port; p < sw->first_port + sw->n_down + sw->n_up; p++) {
            /* the k-th of several parallel links to the same peer (a bundle)
             * pairs with the peer's k-th port back, not always its first */
            uint32_t peer = s->ports[p].peer_node, member = 0;
            for (uint32_t q = sw->first_port; q < p; q++)
                member += s->ports[q].peer_node == peer;
            uint32_t back = find_port(s, peer, x, member);
            ports[np++] = p;
            ports[np++] = back;
        }
        i = 2;
    } else {
        SPEC_FAIL("'%s': expected 'link' or 'switch', not '%s'", shown(spec, qb), shown(w[0], qb2));
    }
    if (i >= n)
        SPEC_FAIL("'%s': no event (down, up, rate GBPS, delay US, mark, unmark)", shown(spec, qb));
    /* events in the order they happen: "down at 50 up at 10" would leave
     * the link down for ever, surely not what was meant */
    double last_at_us = 0;
    const char *last_ev = NULL;
    while (i < n) {
        const char *ev = w[i++];
        uint32_t kind;
        double value = 0;
        if (!strcmp(ev, "down"))
            kind = LC_DOWN;
        else if (!strcmp(ev, "up"))
            kind = LC_UP;
        else if (!strcmp(ev, "mark") || !strcmp(ev, "unmark")) {
            kind = LC_MARK;
            value = ev[0] == 'm';
            if (w[0][0] == 's')
                SPEC_FAIL("'%s' marks a link's packets: use 'link'", ev);
        } else if (!strcmp(ev, "rate") || !strcmp(ev, "delay")) {
            kind = ev[0] == 'r' ? LC_RATE : LC_DELAY;
            if (i >= n || !parse_us(w[i], &value))
                SPEC_FAIL("'%s' needs a number from 0 to %g (%s)", ev, FAILURE_MAX_US,
                          kind == LC_RATE ? "Gb/s" : "microseconds");
            i++;
            if (kind == LC_RATE && w[0][0] == 's')
                SPEC_FAIL("a switch has no rate: use 'link'");
        } else
            SPEC_FAIL("unknown event '%s' (down, up, rate GBPS, delay US, mark, unmark)", shown(ev, qb));
        double at_us = 0;
        if (i < n && !strcmp(w[i], "at")) {
            if (i + 1 >= n || !parse_us(w[i + 1], &at_us))
                SPEC_FAIL("'at' needs a time from 0 to %g microseconds", FAILURE_MAX_US);
            i += 2;
        }
        if (last_ev && at_us < last_at_us)
            SPEC_FAIL("'%s at %g' comes after '%s at %g': give events in time order", ev, at_us, last_ev, last_at_us);
        last_ev = ev;
        last_at_us = at_us;
        simtime_ps at = (simtime_ps)llround(at_us * PS_PER_US);
        for (uint32_t k = 0; k < np; k += 2) {
            uint64_t v = 0;
            if (kind == LC_RATE) {
                uint32_t link_mbps = s->ports[ports[k]].nominal_mbps;
                double mbps = value * 1000.0;
                if (mbps < 1 || mbps > link_mbps)
                    SPEC_FAIL("rate %g Gb/s must be above 0 and at most the link's %g Gb/s", value, link_mbps / 1000.0);
                v = (uint64_t)llround(mbps);
            } else if (kind == LC_DELAY) {
                v = (uint64_t)llround(value * PS_PER_US);
            } else if (kind == LC_MARK) {
                v = (uint64_t)value;
            }
            add_event(s, at, kind, ports[k], ports[k + 1], v);
        }
    }
    return true;
}

/* htsim's "failure switch_type T switch_id S link_id L": down from the start. */
static bool reference_failure(struct sim *s, const struct cm_failure *f, char *err, size_t errlen)
{
    const struct topo *t = &s->topo;
    uint32_t count[3] = {t->n_tor, t->n_agg, t->n_core};
    uint32_t base[3] = {s->n_hosts, s->n_hosts + t->n_tor, s->n_hosts + t->n_tor + t->n_agg};
    static const char *names[3] = {"TOR", "AGG", "CORE"};
    if (f->switch_id >= count[f->switch_type])
        SPEC_FAIL("%s switch %u does not exist (%u of them)", names[f->switch_type], f->switch_id, count[f->switch_type]);
    const struct switch_node *sw = &s->switches[base[f->switch_type] - s->n_hosts + f->switch_id];
    uint32_t p;
    if (f->switch_type == FAILURE_CORE) {
        if (f->link_id >= sw->n_down)
            SPEC_FAIL("core %u has %u links; link_id %u does not exist", f->switch_id, sw->n_down, f->link_id);
        p = sw->first_port + f->link_id;
    } else {
        if (f->link_id >= sw->n_up)
            SPEC_FAIL("%s %u has %u uplinks; link_id %u does not exist", names[f->switch_type], f->switch_id,
                      sw->n_up, f->link_id);
        p = sw->first_port + sw->n_down + f->link_id;
    }
    /* the k-th link of a bundle pairs with the peer's k-th port back */
    uint32_t peer = s->ports[p].peer_node, member = 0;
    for (uint32_t q = sw->first_port; q < p; q++)
        member += s->ports[q].peer_node == peer;
    uint32_t back = find_port(s, peer, s->ports[p].owner_node, member);
    add_event(s, 0, LC_DOWN, p, back, 0);
    return true;
}

/* --random-failures P, seed 004 (seeds/004_4a49ceaf98ce83ec.txt) Sec. IV-D,
 * Fig. 11: "failing each inter-switch link with a 0.01 probability", "the
 * same topology for all algorithms". Every link between two switches (each
 * bundle member apart), taken as the lower switch's up port in port order,
 * is down from t=0 with probability P, drawn from the seed's own substream:
 * the set depends on the topology and the seed only, not on the workload
 * or the algorithms. The failures join the matrix as the reference
 * simulator's "failure switch_type TOR|AGG switch_id S link_id L" lines
 * after its own, so --write-cm writes them and failures_setup schedules
 * them like any other (routing learns of them after --detect-us). */
static void add_random_failures(struct sim *s, double p)
{
    struct conn_matrix *cm = &s->cm;
    const struct topo *t = &s->topo;
    uint64_t up_ports = 0;
    /* plane 0's links only (-planes: failures apply to plane 0, as htsim's) */
    uint32_t plane0 = t->switches_per_plane;
    for (uint32_t w = 0; w < plane0; w++)
        up_ports += s->switches[w].n_up;
    cm->failures = xrealloc(cm->failures, ((size_t)cm->n_failures + up_ports + 1) * sizeof *cm->failures);
    struct rng r;
    rng_seed(&r, s->cfg.seed, RNG_STREAM_WORKLOAD, GEN_SUBSTREAM_RANDOM_FAILURES);
    for (uint32_t w = 0; w < plane0; w++) {
        const struct switch_node *sw = &s->switches[w];
        for (uint32_t l = 0; l < sw->n_up; l++) {
            s->inter_switch_links++;
            if (rng_uniform(&r) >= p)
                continue;
            bool tor = w < t->n_tor;
            cm->failures[cm->n_failures++] = (struct cm_failure){
                .switch_type = tor ? FAILURE_TOR : FAILURE_AGG,
                .switch_id = tor ? w : w - t->n_tor,
                .link_id = l,
            };
            s->random_failed_links++;
        }
    }
}

/* -failed N as htsim's fat-tree builder does it: in a 2-tier tree every
 * ToR's links to the first N spines, in a 3-tier tree the core->agg
 * direction of the first N agg-core links (agg-major), run at 25% speed with
 * 25% of the queue and ECN thresholds. */
static void apply_failed_links(struct sim *s, uint32_t n)
{
    const struct topo *t = &s->topo;
    uint64_t rule_links = t->spec.tiers == 2 ? t->n_agg : (uint64_t)t->n_agg * t->cores_per_agg;
    if (n > rule_links)
        die_input("-failed %u: this topology has only %llu %s that rule applies to", n, (unsigned long long)rule_links,
                  t->spec.tiers == 2 ? "spines" : "aggregation-core links");
    uint32_t changed = 0;
    for (uint32_t i = 0; i < s->n_ports; i++) {
        struct port *p = &s->ports[i];
        if (p->owner_node < s->n_hosts)
            continue;
        const struct switch_node *sw = &s->switches[p->owner_node - s->n_hosts];
        if (sw->plane != 0)
            continue; /* -planes: failures apply to plane 0, as htsim's */
        bool reduce = false;
        if (t->spec.tiers == 2) {
            uint32_t peer = p->peer_node;
            uint32_t spine_base = s->n_hosts + t->n_tor;
            if (sw->tier == 0 && p->up)
                reduce = peer - spine_base < n;
            else if (sw->tier == 1)
                reduce = sw->index_in_tier < n;
        } else if (sw->tier == 2) {
            /* core -> agg: number the agg-core links agg-major */
            uint32_t agg = p->peer_node - (s->n_hosts + t->n_tor);
            uint32_t l = sw->index_in_tier / t->aggs_per_pod;
            reduce = (uint64_t)agg * t->cores_per_agg + l < n;
        }
        if (!reduce)
            continue;
        p->rate_mbps = (uint32_t)(p->rate_mbps * FAILED_LINK_RATIO);
        p->data_limit_bytes = (uint32_t)(p->data_limit_bytes * FAILED_LINK_RATIO);
        p->ecn_kmin_bytes = (uint32_t)(p->ecn_kmin_bytes * FAILED_LINK_RATIO);
        p->ecn_kmax_bytes = (uint32_t)(p->ecn_kmax_bytes * FAILED_LINK_RATIO);
        changed++;
    }
    if (changed == 0)
        die_input("-failed %u: this topology has no links that rule applies to", n);
}

/* Events at or after -end are legal (a schedule written for a longer run)
 * but cannot change the run (one at -end itself happens with nothing left
 * to affect): one warning line per specification, as for connections that
 * start at or after -end. */
static void warn_late_events(const struct sim *s, uint32_t first, const char *where)
{
    for (uint32_t i = first; i < s->n_link_events; i++)
        if (s->link_events[i].at_ps >= s->cfg.end_ps) {
            warn_input("%s: the event at %g us is at or after -end %g us and cannot affect the run", where,
                       (double)s->link_events[i].at_ps / PS_PER_US, (double)s->cfg.end_ps / PS_PER_US);
            return;
        }
}

void failures_setup(struct sim *s)
{
    char err[512], where[600];
    if (s->cfg.failed_links)
        apply_failed_links(s, s->cfg.failed_links);
    uint32_t from_matrix = s->cm.n_failures; /* a generated matrix has none */
    if (s->cfg.random_failure_p > 0)
        add_random_failures(s, s->cfg.random_failure_p);
    for (uint32_t i = 0; i < s->cm.n_failures; i++) {
        const struct cm_failure *f = &s->cm.failures[i];
        uint32_t before = s->n_link_events;
        if (i < from_matrix)
            snprintf(where, sizeof where, "%s:%u", s->cfg.tm_path, f->line);
        else
            snprintf(where, sizeof where, "--random-failures");
        bool ok = f->spec ? failures_parse_spec(s, f->spec, err, sizeof err) : reference_failure(s, f, err, sizeof err);
        if (!ok)
            die_input("%s: %s", where, err);
        warn_late_events(s, before, where);
    }
    for (unsigned i = 0; i < s->cfg.n_fail_specs; i++) {
        uint32_t before = s->n_link_events;
        if (!failures_parse_spec(s, s->cfg.fail_specs[i], err, sizeof err))
            die_input("--fail: %s", err);
        warn_late_events(s, before, "--fail");
    }
    for (uint32_t i = 0; i < s->n_link_events; i++)
        sim_at(s, s->link_events[i].at_ps, EV_LINK_CHANGE, i);
    if (s->cfg.routing != ROUTE_ECMP)
        s->routing_dynamic = true;
}

static void set_down(struct sim *s, uint32_t port_idx, bool down)
{
    if (down)
        port_fail(s, port_idx);
    else
        s->ports[port_idx].flags &= (uint16_t)~PORTF_DOWN;
}

void failures_apply(struct sim *s, uint32_t ei)
{
    const struct link_event *e = &s->link_events[ei];
    uint32_t both[2] = {e->port_a, e->port_b};
    for (int k = 0; k < 2; k++) {
        struct port *p = &s->ports[both[k]];
        switch (e->kind) {
        case LC_DOWN:
        case LC_UP:
            set_down(s, both[k], e->kind == LC_DOWN);
            break;
        case LC_RATE:
            p->rate_mbps = (uint32_t)e->value;
            break;
        case LC_DELAY:
            p->latency_ps = p->base_latency_ps + e->value; /* "delay 0" restores the link */
            break;
        case LC_MARK:
            if (e->value)
                p->flags |= PORTF_MARK_ALL;
            else
                p->flags &= (uint16_t)~PORTF_MARK_ALL;
            break;
        }
    }
    if (e->kind == LC_DOWN || e->kind == LC_UP)
        sim_at(s, s->now + s->cfg.detect_ps, EV_ROUTE_LEARN, ei);
}

void failures_learn(struct sim *s, uint32_t ei)
{
    const struct link_event *e = &s->link_events[ei];
    uint32_t both[2] = {e->port_a, e->port_b};
    for (int k = 0; k < 2; k++) {
        struct port *p = &s->ports[both[k]];
        if (p->flags & PORTF_DOWN)
            p->flags |= PORTF_KNOWN_DOWN;
        else
            p->flags &= (uint16_t)~PORTF_KNOWN_DOWN;
    }
    s->failures_known = true;
    s->routing_dynamic = true;
    if (!s->route_cache)
        s->route_cache = xcalloc((size_t)s->n_switches * s->topo.n_tor, sizeof(uint64_t));
    else
        memset(s->route_cache, 0, (size_t)s->n_switches * s->topo.n_tor * sizeof(uint64_t));
}

void failures_free(struct sim *s)
{
    free(s->link_events);
    free(s->route_cache);
    s->link_events = NULL;
    s->route_cache = NULL;
}
