/* topo.c: topology descriptions: the default k-ary fat tree, the .topo file
 * reader, and the derivation of switch counts from a description.
 *
 * The .topo rules follow the reference simulator's fat-tree configuration
 * (see docs/workloads.md, "Topologies"): hosts per ToR = tier 0 Radix_Down;
 * ToRs per pod = Podsize / hosts per ToR; oversubscription reduces the
 * number of uplinks, not their speed; aggregation switches per pod are
 * derived from the ToR uplink count; tier t's Downlink speed and latency
 * apply to both directions of the links between tier t and the tier below.
 */
#include "topo.h"

#include "../core/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    TS_SPEED = 1 << 0,
    TS_RDOWN = 1 << 1,
    TS_RUP = 1 << 2,
    TS_LAT = 1 << 3,
    TS_SWLAT = 1 << 4,
    TS_OVERSUB = 1 << 5,
    TS_BUNDLE = 1 << 6,
    TS_QDOWN = 1 << 7,
    TS_QUP = 1 << 8,
    TS_PRESENT = 1 << 9,
};

bool topo_default_spec(struct topo_spec *spec, uint32_t nodes, uint32_t tiers, uint32_t mbps,
                       simtime_ps hop_latency_ps, simtime_ps switch_latency_ps, char *err, size_t errlen)
{
    memset(spec, 0, sizeof(*spec));
    if (tiers != 2 && tiers != 3) {
        snprintf(err, errlen, "-tiers must be 2 or 3 (got %u)", tiers);
        return false;
    }
    uint32_t k = 2;
    /* The reference simulator accepts only node counts that fill a tree exactly. */
    for (;; k += 2) {
        uint64_t n = tiers == 3 ? (uint64_t)k * k * k / 4 : (uint64_t)k * k / 2;
        if (n == nodes)
            break;
        if (n > nodes) {
            uint64_t below = k > 2 ? (tiers == 3 ? (uint64_t)(k - 2) * (k - 2) * (k - 2) / 4 : (uint64_t)(k - 2) * (k - 2) / 2) : 0;
            snprintf(err, errlen,
                     "%u nodes fit no %u-tier k-ary fat tree (nearest: %llu with k=%u, %llu with k=%u); give a -topo file",
                     nodes, tiers, (unsigned long long)below, k - 2, (unsigned long long)n, k);
            return false;
        }
        if (k >= TOPO_DEFAULT_MAX_K) {
            snprintf(err, errlen, "%u nodes: the largest %u-tier default fat tree has %llu (k=%u); give a -topo file",
                     nodes, tiers, (unsigned long long)n, k);
            return false;
        }
    }
    spec->nodes = nodes;
    spec->tiers = tiers;
    spec->podsize = tiers == 3 ? k * k / 4 : nodes;
    for (uint32_t t = 0; t < tiers; t++) {
        struct tier_spec *ts = &spec->tier[t];
        ts->downlink_mbps = mbps;
        ts->downlink_latency_ps = hop_latency_ps;
        ts->switch_latency_ps = switch_latency_ps;
        ts->oversub = 1;
        ts->bundle = 1;
        ts->set_mask = TS_PRESENT;
    }
    if (tiers == 3) {
        spec->tier[0].radix_down = spec->tier[0].radix_up = k / 2;
        spec->tier[1].radix_down = spec->tier[1].radix_up = k / 2;
        spec->tier[2].radix_down = k;
    } else {
        spec->tier[0].radix_down = spec->tier[0].radix_up = k / 2;
        spec->tier[1].radix_down = k;
    }
    return true;
}

/* ---- .topo reader ------------------------------------------------------------ */

static bool parse_u32(const char *tok, uint32_t *out)
{
    uint64_t v = 0;
    if (parse_u64(tok, &v) != NUM_OK || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* A .topo file is a few dozen short lines; these limits turn an endless or
 * binary input (-topo /dev/zero) into one clear error. */
#define TOPO_MAX_LINE 1024
#define TOPO_MAX_LINES 100000

enum line_status { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_NUL, LINE_ERROR };

/* Reads one line (without its newline) into buf, stopping at the limits. */
static enum line_status read_line(FILE *f, char *buf, size_t cap)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (c == '\n')
            break;
        if (c == '\0')
            return LINE_NUL;
        if (n + 1 >= cap)
            return LINE_TOO_LONG;
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    if (c == EOF) {
        if (ferror(f))
            return LINE_ERROR;
        if (n == 0)
            return LINE_EOF;
    }
    return LINE_OK;
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

/* Reads a .topo description from an open stream; `path` names it in
 * messages. Closes nothing: the caller owns the stream. */
static bool topo_read_stream(struct topo_spec *spec, FILE *f, const char *path, char *err, size_t errlen)
{
    memset(spec, 0, sizeof(*spec));
    char line[TOPO_MAX_LINE];
    char q1[SHOWN_BUF], q2[SHOWN_BUF], q3[SHOWN_BUF]; /* tokens quoted in messages */
    unsigned lineno = 0;
    int cur_tier = -1;
    bool have_nodes = false, have_tiers = false, have_podsize = false;
    bool ok = true;
#define FAIL(...)                                                                  \
    do {                                                                           \
        int n_ = snprintf(err, errlen, "%s:%u: ", path, lineno);                   \
        if (n_ >= 0 && (size_t)n_ < errlen)                                        \
            snprintf(err + n_, errlen - (size_t)n_, __VA_ARGS__);                  \
        ok = false;                                                                \
        goto done;                                                                 \
    } while (0)
    for (;;) {
        enum line_status st = read_line(f, line, sizeof line);
        if (st == LINE_EOF)
            break;
        lineno++;
        if (st == LINE_ERROR)
            FAIL("read error: %s", strerror(errno));
        if (st == LINE_NUL)
            FAIL("contains a NUL byte; not a text file");
        if (st == LINE_TOO_LONG)
            FAIL("line longer than %d bytes; not a topology file", TOPO_MAX_LINE - 1);
        if (lineno > TOPO_MAX_LINES)
            FAIL("more than %d lines; not a topology file", TOPO_MAX_LINES);
        char *save = NULL;
        char *key = strtok_r(line, " \t\r\n", &save);
        if (!key || key[0] == '#')
            continue;
        char *val = strtok_r(NULL, " \t\r\n", &save);
        char *extra = strtok_r(NULL, " \t\r\n", &save);
        lower(key);
        if (!val || val[0] == '#')
            FAIL("'%s' needs a value", shown(key, q1));
        if (extra && extra[0] != '#')
            FAIL("unexpected '%s' after '%s %s'", shown(extra, q1), shown(key, q2), shown(val, q3));
        uint32_t v;
        if (!parse_u32(val, &v))
            FAIL("'%s' is not a non-negative integer for '%s'", shown(val, q1), shown(key, q2));
        if (!strcmp(key, "tier")) {
            if (v >= TOPO_MAX_TIERS)
                FAIL("invalid tier %u (tiers are numbered 0 to 2)", v);
            if (spec->tier[v].set_mask & TS_PRESENT)
                FAIL("tier %u is defined twice", v);
            cur_tier = (int)v;
            spec->tier[v].set_mask |= TS_PRESENT;
            spec->tier[v].oversub = 1;
            spec->tier[v].bundle = 1;
            continue;
        }
        if (cur_tier < 0) {
            if (!strcmp(key, "nodes")) {
                if (have_nodes)
                    FAIL("duplicate 'Nodes'");
                if (v == 0 || v > TOPO_MAX_NODES)
                    FAIL("'Nodes' must be from 1 to %u", TOPO_MAX_NODES);
                spec->nodes = v;
                have_nodes = true;
            } else if (!strcmp(key, "tiers")) {
                if (have_tiers)
                    FAIL("duplicate 'Tiers'");
                if (v != 2 && v != 3)
                    FAIL("invalid number of tiers %u (must be 2 or 3)", v);
                spec->tiers = v;
                have_tiers = true;
            } else if (!strcmp(key, "podsize")) {
                if (have_podsize)
                    FAIL("duplicate 'Podsize'");
                if (v == 0)
                    FAIL("'Podsize' must be positive");
                spec->podsize = v;
                have_podsize = true;
            } else {
                FAIL("unknown header key '%s' (expected Nodes, Tiers, Podsize, or a Tier block)", shown(key, q1));
            }
            continue;
        }
        struct tier_spec *ts = &spec->tier[cur_tier];
        uint32_t bit;
        if (!strcmp(key, "downlink_speed_gbps")) {
            bit = TS_SPEED;
            if (v == 0 || v > 4000000)
                FAIL("Downlink_speed_Gbps must be between 1 and 4000000");
            ts->downlink_mbps = v * 1000;
        } else if (!strcmp(key, "radix_down")) {
            bit = TS_RDOWN;
            if (v == 0)
                FAIL("Radix_Down must be positive");
            ts->radix_down = v;
        } else if (!strcmp(key, "radix_up")) {
            bit = TS_RUP;
            if (cur_tier == TOPO_MAX_TIERS - 1)
                FAIL("tier 2 has no uplinks: Radix_Up is not allowed");
            ts->radix_up = v;
        } else if (!strcmp(key, "downlink_latency_ns")) {
            bit = TS_LAT;
            ts->downlink_latency_ps = (simtime_ps)v * PS_PER_NS;
        } else if (!strcmp(key, "switch_latency_ns")) {
            bit = TS_SWLAT;
            ts->switch_latency_ps = (simtime_ps)v * PS_PER_NS;
        } else if (!strcmp(key, "oversubscribed")) {
            bit = TS_OVERSUB;
            if (v == 0)
                FAIL("Oversubscribed must be at least 1");
            ts->oversub = v;
        } else if (!strcmp(key, "bundle")) {
            bit = TS_BUNDLE;
            if (v == 0)
                FAIL("Bundle must be at least 1");
            ts->bundle = v;
        } else if (!strcmp(key, "queue_down")) {
            bit = TS_QDOWN;
            if (v == 0)
                FAIL("Queue_Down must be positive (bytes)");
            ts->queue_down_bytes = v;
        } else if (!strcmp(key, "queue_up")) {
            bit = TS_QUP;
            if (cur_tier == TOPO_MAX_TIERS - 1)
                FAIL("tier 2 has no uplinks: Queue_Up is not allowed");
            if (v == 0)
                FAIL("Queue_Up must be positive (bytes)");
            ts->queue_up_bytes = v;
        } else {
            FAIL("unknown attribute '%s' (allowed: Downlink_speed_Gbps, Radix_Down, Radix_Up, "
                 "Downlink_Latency_ns, Switch_Latency_ns, Oversubscribed, Bundle, Queue_Down, Queue_Up)",
                 shown(key, q1));
        }
        if (ts->set_mask & bit)
            FAIL("duplicate '%s' for tier %d", shown(key, q1), cur_tier);
        ts->set_mask |= bit;
        if (bit == TS_QDOWN)
            ts->queue_down_line = lineno;
        else if (bit == TS_QUP)
            ts->queue_up_line = lineno;
    }
    lineno = 0;
    if (!have_nodes)
        FAIL("missing 'Nodes' in header");
    if (!have_tiers)
        FAIL("missing 'Tiers' in header");
    if (!have_podsize)
        FAIL("missing 'Podsize' in header");
    for (uint32_t t = 0; t < spec->tiers; t++) {
        const struct tier_spec *ts = &spec->tier[t];
        if (!(ts->set_mask & TS_PRESENT))
            FAIL("no 'Tier %u' block", t);
        if (!(ts->set_mask & TS_SPEED))
            FAIL("missing Downlink_speed_Gbps for tier %u", t);
        if (!(ts->set_mask & TS_RDOWN))
            FAIL("missing Radix_Down for tier %u", t);
        if (t + 1 < spec->tiers && !(ts->set_mask & TS_RUP))
            FAIL("missing Radix_Up for tier %u", t);
        if (!(ts->set_mask & TS_LAT))
            FAIL("missing Downlink_Latency_ns for tier %u", t);
    }
    /* a Tier block beyond Tiers would be ignored: surely a mistake */
    for (uint32_t t = spec->tiers; t < TOPO_MAX_TIERS; t++)
        if (spec->tier[t].set_mask & TS_PRESENT)
            FAIL("'Tier %u' block, but Tiers is %u (tiers are numbered 0 to %u)", t, spec->tiers, spec->tiers - 1);
done:
    if (!ok && lineno == 0) {
        /* whole-file errors: drop the ":0" */
        char tmp[512];
        const char *msg = strstr(err, ":0: ");
        if (msg) {
            snprintf(tmp, sizeof tmp, "%s: %s", path, msg + 4);
            snprintf(err, errlen, "%s", tmp);
        }
    }
    return ok;
#undef FAIL
}

bool topo_read_file(struct topo_spec *spec, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        memset(spec, 0, sizeof(*spec));
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    bool ok = topo_read_stream(spec, f, path, err, errlen);
    fclose(f);
    return ok;
}

bool topo_read_buffer(struct topo_spec *spec, const char *name, const char *text, size_t len, char *err,
                      size_t errlen)
{
    /* fmemopen refuses a zero-length buffer: an empty text is an empty file */
    static const char empty[1] = "";
    FILE *f = fmemopen((void *)(len ? text : empty), len ? len : 1, "r");
    if (!f) {
        memset(spec, 0, sizeof(*spec));
        snprintf(err, errlen, "%s: cannot read: %s", name, strerror(errno));
        return false;
    }
    if (!len)
        (void)fgetc(f); /* consume the placeholder byte: the stream is at its end */
    bool ok = topo_read_stream(spec, f, name, err, errlen);
    fclose(f);
    return ok;
}

/* ---- derivation ----------------------------------------------------------------- */

bool topo_derive(struct topo *t, const struct topo_spec *spec, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    t->spec = *spec;
    const struct tier_spec *t0 = &spec->tier[0], *t1 = &spec->tier[1], *t2 = &spec->tier[2];
    uint32_t N = spec->nodes, P = spec->podsize;
    if (spec->tiers != 2 && spec->tiers != 3) {
        snprintf(err, errlen, "topology: tiers must be 2 or 3");
        return false;
    }
    if (t0->bundle != 1) {
        snprintf(err, errlen, "topology: tier 0 Bundle must be 1 (hosts have one link)");
        return false;
    }
    if (N % P) {
        snprintf(err, errlen, "topology: Nodes (%u) is not a multiple of Podsize (%u)", N, P);
        return false;
    }
    if (P % t0->radix_down) {
        snprintf(err, errlen, "topology: Podsize (%u) is not a multiple of tier 0 Radix_Down (%u)", P, t0->radix_down);
        return false;
    }
    t->hosts_per_tor = t0->radix_down;
    t->tors_per_pod = P / t0->radix_down;
    t->pods = N / P;
    t->n_tor = N / t0->radix_down;
    /* Oversubscription reduces the number of ToR uplinks, never their speed. */
    uint64_t up_num = (uint64_t)N * t0->downlink_mbps;
    uint64_t up_den = (uint64_t)t1->downlink_mbps * t0->oversub;
    if (up_num % up_den) {
        snprintf(err, errlen, "topology: tier 0 speeds and Oversubscribed %u give a fractional number of ToR uplinks", t0->oversub);
        return false;
    }
    uint64_t tor_uplinks = up_num / up_den;
    if (t0->radix_up == 0 || tor_uplinks != (uint64_t)t->n_tor * t0->radix_up) {
        snprintf(err, errlen,
                 "topology: tier 0 Radix_Up %u does not match Radix_Down %u, the speeds %u/%u Gb/s and Oversubscribed %u",
                 t0->radix_up, t0->radix_down, t0->downlink_mbps / 1000, t1->downlink_mbps / 1000, t0->oversub);
        return false;
    }
    if (t0->radix_up % t1->bundle || t1->radix_down % t1->bundle) {
        snprintf(err, errlen, "topology: tier 0 Radix_Up and tier 1 Radix_Down must be multiples of the tier 1 Bundle (%u)", t1->bundle);
        return false;
    }
    uint64_t agg_den = (uint64_t)(spec->tiers == 3 ? t->pods : 1) * t1->radix_down;
    if (tor_uplinks % agg_den) {
        snprintf(err, errlen, "topology: ToR uplinks (%llu) do not divide evenly among tier 1 switches of Radix_Down %u",
                 (unsigned long long)tor_uplinks, t1->radix_down);
        return false;
    }
    t->aggs_per_pod = (uint32_t)(tor_uplinks / agg_den);
    t->tor_bundle = t1->bundle;
    if ((uint64_t)t->aggs_per_pod * t1->bundle != t0->radix_up) {
        snprintf(err, errlen,
                 "topology: each ToR needs %u uplinks to reach its %u tier 1 switches with Bundle %u, but tier 0 Radix_Up is %u",
                 t->aggs_per_pod * t1->bundle, t->aggs_per_pod, t1->bundle, t0->radix_up);
        return false;
    }
    /* In a leaf-spine every ToR reaches every spine: spine down radix = ToRs x bundle. */
    uint32_t tors_per_agg_group = spec->tiers == 3 ? t->tors_per_pod : t->n_tor;
    if ((uint64_t)tors_per_agg_group * t1->bundle != t1->radix_down) {
        snprintf(err, errlen, "topology: tier 1 Radix_Down %u must equal %u ToRs x Bundle %u",
                 t1->radix_down, tors_per_agg_group, t1->bundle);
        return false;
    }
    t->n_agg = t->aggs_per_pod * (spec->tiers == 3 ? t->pods : 1);
    t->first_switch = N;
    t->planes = 1; /* the caller sets -planes after the derivation */
    if (spec->tiers == 3) {
        uint64_t agg_up_num = tor_uplinks * t1->downlink_mbps;
        uint64_t agg_up_den = (uint64_t)t2->downlink_mbps * t1->oversub;
        if (agg_up_num % agg_up_den) {
            snprintf(err, errlen, "topology: tier 1 speeds and Oversubscribed give a fractional number of uplinks");
            return false;
        }
        uint64_t agg_uplinks = agg_up_num / agg_up_den;
        if (t1->radix_up == 0 || agg_uplinks != (uint64_t)t->n_agg * t1->radix_up) {
            snprintf(err, errlen, "topology: tier 1 Radix_Up %u does not match its speeds and Oversubscribed %u",
                     t1->radix_up, t1->oversub);
            return false;
        }
        if (agg_uplinks % t2->radix_down) {
            snprintf(err, errlen, "topology: tier 1 uplinks (%llu) are not a multiple of tier 2 Radix_Down %u",
                     (unsigned long long)agg_uplinks, t2->radix_down);
            return false;
        }
        t->n_core = (uint32_t)(agg_uplinks / t2->radix_down);
        if (t->n_core % t->aggs_per_pod || t1->radix_up % t2->bundle ||
            (uint64_t)t->n_core * t2->bundle / t->aggs_per_pod != t1->radix_up ||
            (uint64_t)t->pods * t2->bundle != t2->radix_down) {
            snprintf(err, errlen,
                     "topology: %u cores cannot be wired to %u aggregation switches per pod with tier 1 Radix_Up %u, "
                     "tier 2 Radix_Down %u and Bundle %u",
                     t->n_core, t->aggs_per_pod, t1->radix_up, t2->radix_down, t2->bundle);
            return false;
        }
        t->agg_bundle = t2->bundle;
        t->cores_per_agg = t1->radix_up / t2->bundle;
        t->diameter_hops = 6;
        t->diameter_latency_ps = 2 * (t0->downlink_latency_ps + t1->downlink_latency_ps + t2->downlink_latency_ps) +
                                 2 * t0->switch_latency_ps + 2 * t1->switch_latency_ps + t2->switch_latency_ps;
    } else {
        t->n_core = 0;
        t->agg_bundle = 1;
        t->diameter_hops = 4;
        t->diameter_latency_ps = 2 * (t0->downlink_latency_ps + t1->downlink_latency_ps) +
                                 2 * t0->switch_latency_ps + t1->switch_latency_ps;
    }
    t->switches_per_plane = t->n_tor + t->n_agg + t->n_core;
    /* Switches count their ports per side in 16 bits (struct switch_node):
     * a side of 65,536 ports or more is refused here rather than wrapped. */
    const struct {
        const char *what;
        uint64_t ports;
    } sides[] = {
        {"a ToR's down ports (tier 0 Radix_Down)", t0->radix_down},
        {"a ToR's up ports (tier 0 Radix_Up)", t0->radix_up},
        {"a tier 1 switch's down ports", (uint64_t)(spec->tiers == 3 ? t->tors_per_pod : t->n_tor) * t->tor_bundle},
        {"a tier 1 switch's up ports (tier 1 Radix_Up)", spec->tiers == 3 ? t1->radix_up : 0},
        {"a core's down ports", spec->tiers == 3 ? (uint64_t)t->pods * t->agg_bundle : 0},
    };
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++)
        if (sides[i].ports > TOPO_MAX_PORTS_PER_SIDE) {
            snprintf(err, errlen, "topology: %s would be %llu; at most %u are supported", sides[i].what,
                     (unsigned long long)sides[i].ports, TOPO_MAX_PORTS_PER_SIDE);
            return false;
        }
    return true;
}

uint32_t topo_hops(const struct topo *t, uint32_t a, uint32_t b)
{
    uint32_t ta = a / t->hosts_per_tor, tb = b / t->hosts_per_tor;
    if (ta == tb)
        return 2;
    if (t->spec.tiers == 2 || ta / t->tors_per_pod == tb / t->tors_per_pod)
        return 4;
    return 6;
}
