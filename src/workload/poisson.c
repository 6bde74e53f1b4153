/* poisson.c: open-loop Poisson arrivals from a size CDF (see poisson.h):
 * the CDF reader, the specification parser, the generator and the
 * arrival events of a run.
 *
 * Load (seed 001 Sec. 5.1, specs/sird.md Sec. 2.3): application payload
 * rate over the host link rate, headers excluded. So a host's message
 * rate is load x rate / (8 x mean size), and the mean gap between its
 * arrivals is the inverse of that.
 *
 * Randomness: host h draws from rng_seed(seed, RNG_STREAM_WORKLOAD,
 * POISSON_SUBSTREAM_BASE + h), in the fixed order gap, destination, size,
 * so a host's messages depend only on the specification, the seed and h,
 * never on the network or on other hosts.
 */
#include "poisson.h"

#include "../core/parse.h"
#include "../metrics/report.h"
#include "../sim.h"
#include "../transport/flow.h"
#include "../transport/transport.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the CDF ----------------------------------------------------------------------- */

#define CDF_MAX_POINTS 1000000u
/* Sizes as large as gen.h's cap on flows. */
#define CDF_MAX_SIZE_BYTES 1099511627776.0
/* A last probability this close to 1 is 1 (files print 1 or 0.99999999...). */
#define CDF_ONE_TOLERANCE 1e-9

__attribute__((format(printf, 5, 6)))
static bool cdf_fail(char *err, size_t errlen, const char *name, unsigned line, const char *fmt, ...)
{
    if (!err || !errlen)
        return false;
    int n = line ? snprintf(err, errlen, "%s:%u: ", name, line) : snprintf(err, errlen, "%s: ", name);
    if (n >= 0 && (size_t)n < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

void cdf_free(struct size_cdf *c)
{
    free(c->size_bytes);
    free(c->prob);
    memset(c, 0, sizeof *c);
}

/* One line "SIZE PROB" (already without its newline); blank and '#'
 * lines are skipped. */
static bool cdf_line(struct size_cdf *c, uint32_t *cap, const char *name, unsigned line, char *text, char *err,
                     size_t errlen)
{
    char b[SHOWN_BUF];
    char *save = NULL;
    char *tok[3];
    int k = 0;
    for (char *t = strtok_r(text, " \t\r", &save); t && k < 3; t = strtok_r(NULL, " \t\r", &save))
        tok[k++] = t;
    if (k == 0 || tok[0][0] == '#')
        return true;
    if (k != 2)
        return cdf_fail(err, errlen, name, line, "expected two fields, SIZE_BYTES PROBABILITY");
    double size = 0, p = 0;
    if (parse_real(tok[0], &size) != NUM_OK || !(size >= 0) || size > CDF_MAX_SIZE_BYTES)
        return cdf_fail(err, errlen, name, line, "size '%s' is not a number of bytes from 0 to %.0f", shown(tok[0], b),
                        CDF_MAX_SIZE_BYTES);
    if (parse_real(tok[1], &p) != NUM_OK || !(p >= 0) || p > 1)
        return cdf_fail(err, errlen, name, line, "probability '%s' is not a number from 0 to 1", shown(tok[1], b));
    if (c->n) {
        if (size < c->size_bytes[c->n - 1])
            return cdf_fail(err, errlen, name, line, "size %s is below the previous line's %.17g", shown(tok[0], b),
                            c->size_bytes[c->n - 1]);
        if (p < c->prob[c->n - 1])
            return cdf_fail(err, errlen, name, line, "probability %s is below the previous line's %.17g",
                            shown(tok[1], b), c->prob[c->n - 1]);
    }
    if (c->n == CDF_MAX_POINTS)
        return cdf_fail(err, errlen, name, line, "more than %u points", CDF_MAX_POINTS);
    if (c->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        c->size_bytes = xrealloc(c->size_bytes, *cap * sizeof(double));
        c->prob = xrealloc(c->prob, *cap * sizeof(double));
    }
    c->size_bytes[c->n] = size;
    c->prob[c->n] = p;
    c->n++;
    return true;
}

static bool cdf_finish(struct size_cdf *c, const char *name, unsigned lines, char *err, size_t errlen)
{
    if (!c->n)
        return cdf_fail(err, errlen, name, 0, "no points (expected SIZE_BYTES PROBABILITY lines)");
    if (fabs(c->prob[c->n - 1] - 1.0) > CDF_ONE_TOLERANCE)
        return cdf_fail(err, errlen, name, lines, "the last probability is %.17g, not 1", c->prob[c->n - 1]);
    c->prob[c->n - 1] = 1.0;
    if (c->size_bytes[c->n - 1] < 1)
        return cdf_fail(err, errlen, name, lines, "every size is 0: no message could carry a byte");
    return true;
}

bool cdf_parse_text(struct size_cdf *c, const char *name, const char *text, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    uint32_t cap = 0;
    unsigned line = 0;
    const char *p = text;
    bool ok = true;
    while (ok && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *copy = xmalloc(len + 1);
        memcpy(copy, p, len);
        copy[len] = '\0';
        ok = cdf_line(c, &cap, name, ++line, copy, err, errlen);
        free(copy);
        p = nl ? nl + 1 : p + len;
    }
    ok = ok && cdf_finish(c, name, line, err, errlen);
    if (!ok)
        cdf_free(c);
    return ok;
}

bool cdf_read_file(struct size_cdf *c, const char *path, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    if (!f)
        return cdf_fail(err, errlen, path, 0, "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t bufcap = 0;
    uint32_t cap = 0;
    unsigned line = 0;
    bool ok = true;
    ssize_t len;
    while (ok && (len = getline(&buf, &bufcap, f)) >= 0) {
        line++;
        if (memchr(buf, '\0', (size_t)len))
            ok = cdf_fail(err, errlen, path, line, "contains a NUL byte; not a text file");
        else {
            if (len && buf[len - 1] == '\n')
                buf[len - 1] = '\0';
            ok = cdf_line(c, &cap, path, line, buf, err, errlen);
        }
    }
    if (ok && ferror(f))
        ok = cdf_fail(err, errlen, path, 0, "read error");
    free(buf);
    fclose(f);
    ok = ok && cdf_finish(c, path, line, err, errlen);
    if (!ok)
        cdf_free(c);
    return ok;
}

uint64_t cdf_sample(const struct size_cdf *c, double u, bool step)
{
    /* the first point whose probability exceeds u (the last is 1 > u) */
    uint32_t lo = 0, hi = c->n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->prob[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    double size = c->size_bytes[lo];
    if (lo > 0 && !step) {
        double p0 = c->prob[lo - 1], s0 = c->size_bytes[lo - 1];
        size = s0 + (size - s0) * (u - p0) / (c->prob[lo] - p0);
    }
    double whole = floor(size + 0.5);
    return whole < 1 ? 1 : (uint64_t)whole;
}

double cdf_mean_bytes(const struct size_cdf *c, bool step)
{
    double mean = c->prob[0] * c->size_bytes[0];
    for (uint32_t i = 1; i < c->n; i++) {
        double w = c->prob[i] - c->prob[i - 1];
        mean += w * (step ? c->size_bytes[i] : 0.5 * (c->size_bytes[i - 1] + c->size_bytes[i]));
    }
    return mean;
}

/* ---- the specification ------------------------------------------------------------ */

#define SPEC_PREFIX "poisson:"

bool poisson_is_spec(const char *text)
{
    return text && (!strncmp(text, SPEC_PREFIX, strlen(SPEC_PREFIX)) || !strcmp(text, "poisson"));
}

__attribute__((format(printf, 3, 4)))
static bool spec_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return false;
    int n = snprintf(err, errlen, "--workload poisson: ");
    if (n >= 0 && (size_t)n < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

static const char *const spec_params =
    "cdf, load, n, sampling, warmup_us, stop_us, bdp, seed, incast, incast_senders, incast_bytes, conns";

/* A time in microseconds, as a whole number of picoseconds. */
static bool get_us(const char *name, const char *v, simtime_ps *out, char *err, size_t errlen)
{
    char b[SHOWN_BUF];
    double us = 0;
    if (parse_real(v, &us) != NUM_OK || !(us >= 0) || us > 1e12)
        return spec_fail(err, errlen, "%s '%s' is not a time from 0 to 1e12 microseconds", name, shown(v, b));
    *out = (simtime_ps)llround(us * (double)PS_PER_US);
    return true;
}

static bool set_spec_param(struct poisson_spec *p, const char *name, const char *v, char *err, size_t errlen)
{
    char b[SHOWN_BUF];
    uint64_t u = 0;
    if (!strcmp(name, "cdf")) {
        if (strlen(v) >= sizeof p->cdf_path)
            return spec_fail(err, errlen, "cdf path is longer than %zu bytes", sizeof p->cdf_path - 1);
        strcpy(p->cdf_path, v);
        return true;
    }
    if (!strcmp(name, "load")) {
        if (parse_real(v, &p->load) != NUM_OK || !(p->load >= POISSON_MIN_LOAD) || p->load > POISSON_MAX_LOAD)
            return spec_fail(err, errlen, "load '%s' is not a fraction of the link rate from %g to %g", shown(v, b),
                             POISSON_MIN_LOAD, POISSON_MAX_LOAD);
        return true;
    }
    if (!strcmp(name, "n")) {
        if (parse_u64(v, &u) != NUM_OK || u < 2 || u > (1u << 24))
            return spec_fail(err, errlen, "n '%s' is not a number of hosts from 2 to %u", shown(v, b), 1u << 24);
        p->nodes = (uint32_t)u;
        return true;
    }
    if (!strcmp(name, "sampling")) {
        if (strcmp(v, "linear") && strcmp(v, "step"))
            return spec_fail(err, errlen, "sampling '%s' is not linear or step", shown(v, b));
        p->step = v[0] == 's';
        return true;
    }
    if (!strcmp(name, "warmup_us"))
        return get_us(name, v, &p->warmup_ps, err, errlen);
    if (!strcmp(name, "stop_us"))
        return get_us(name, v, &p->stop_ps, err, errlen);
    if (!strcmp(name, "bdp")) {
        if (parse_u64(v, &u) != NUM_OK || u < 1 || u > (1ull << 40))
            return spec_fail(err, errlen, "bdp '%s' is not a number of bytes from 1 to %llu", shown(v, b),
                             1ull << 40);
        p->bdp_bytes = u;
        return true;
    }
    if (!strcmp(name, "incast")) {
        if (parse_real(v, &p->incast_share) != NUM_OK || !(p->incast_share >= 0) || !(p->incast_share < 1))
            return spec_fail(err, errlen, "incast '%s' is not a share of the load from 0 to below 1", shown(v, b));
        return true;
    }
    if (!strcmp(name, "incast_senders")) {
        if (parse_u64(v, &u) != NUM_OK || u < 1 || u >= (1u << 24))
            return spec_fail(err, errlen, "incast_senders '%s' is not a number of hosts from 1 to %u", shown(v, b),
                             (1u << 24) - 1);
        p->incast_senders = (uint32_t)u;
        return true;
    }
    if (!strcmp(name, "incast_bytes")) {
        if (parse_u64(v, &u) != NUM_OK || u < 1 || u > (1ull << 40))
            return spec_fail(err, errlen, "incast_bytes '%s' is not a number of bytes from 1 to %llu", shown(v, b),
                             1ull << 40);
        p->incast_bytes = u;
        return true;
    }
    if (!strcmp(name, "conns")) {
        if (parse_u64(v, &u) != NUM_OK || u > 4096)
            return spec_fail(err, errlen, "conns '%s' is not a number of connections per host pair from 0 to 4096",
                             shown(v, b));
        p->pool_conns = (uint32_t)u;
        return true;
    }
    if (!strcmp(name, "seed")) {
        if (parse_u64(v, &p->seed) != NUM_OK)
            return spec_fail(err, errlen, "seed '%s' is not a whole number from 0 to 2^64-1", shown(v, b));
        p->has_seed = true;
        return true;
    }
    return spec_fail(err, errlen, "unknown parameter '%s' (poisson takes %s)", shown(name, b), spec_params);
}

bool poisson_parse(struct poisson_spec *p, const char *text, char *err, size_t errlen)
{
    char b[SHOWN_BUF];
    memset(p, 0, sizeof *p);
    p->stop_ps = SIMTIME_NEVER;
    p->incast_senders = POISSON_INCAST_SENDERS;
    p->incast_bytes = POISSON_INCAST_BYTES;
    if (err && errlen)
        err[0] = '\0';
    if (!poisson_is_spec(text))
        return spec_fail(err, errlen, "not a poisson specification");
    const char *rest = text + strlen("poisson");
    if (*rest == ':')
        rest++;
    size_t len = strlen(rest);
    char *buf = xmalloc(len + 1);
    memcpy(buf, rest, len + 1);
    bool ok = true, seen_cdf = false, seen_load = false, seen_n = false;
    const char *incast_param = NULL; /* incast_senders or incast_bytes, which only the overlay uses */
    /* every accepted name is a distinct known one: at most the 12 of
     * spec_params */
    char seen_names[12][16];
    unsigned n_seen = 0;
    for (char *s = buf; ok && s;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        char *eq = strchr(s, '=');
        if (!*s) {
            ok = spec_fail(err, errlen, "%s", len ? "empty parameter (a stray comma?)" : "parameters cdf, load and n are required");
            break;
        }
        if (eq)
            *eq = '\0';
        for (unsigned i = 0; ok && i < n_seen; i++)
            if (!strcmp(seen_names[i], s))
                ok = spec_fail(err, errlen, "parameter '%s' given twice", shown(s, b));
        /* any text before its check as a name: quoted, control bytes and all */
        if (ok && (!eq || !eq[1]))
            ok = spec_fail(err, errlen, "parameter '%s' has no value (NAME=VALUE)", shown(s, b));
        if (ok)
            ok = set_spec_param(p, s, eq + 1, err, errlen);
        if (ok) {
            snprintf(seen_names[n_seen++], sizeof seen_names[0], "%s", s);
            seen_cdf |= !strcmp(s, "cdf");
            seen_load |= !strcmp(s, "load");
            seen_n |= !strcmp(s, "n");
            if (!incast_param && (!strcmp(s, "incast_senders") || !strcmp(s, "incast_bytes")))
                incast_param = !strcmp(s, "incast_senders") ? "incast_senders" : "incast_bytes";
        }
        s = comma ? comma + 1 : NULL;
    }
    free(buf);
    if (!ok)
        return false;
    if (!seen_cdf)
        return spec_fail(err, errlen, "parameter 'cdf' (the message-size CDF file) is required");
    if (!seen_load)
        return spec_fail(err, errlen, "parameter 'load' (payload rate / host link rate) is required");
    if (!seen_n)
        return spec_fail(err, errlen, "parameter 'n' (hosts) is required");
    if (incast_param && !(p->incast_share > 0))
        return spec_fail(err, errlen, "%s is for the incast overlay: give incast=F too (its share of the load, "
                         "above 0)", incast_param);
    if (p->incast_share > 0 && p->incast_senders > p->nodes - 1)
        return spec_fail(err, errlen, "incast_senders %u needs more hosts than n=%u (senders exclude the receiver)",
                         p->incast_senders, p->nodes);
    if (p->stop_ps != SIMTIME_NEVER && p->stop_ps <= p->warmup_ps)
        return spec_fail(err, errlen, "stop_us %g is not after warmup_us %g: nothing would be measured",
                         (double)p->stop_ps / PS_PER_US, (double)p->warmup_ps / PS_PER_US);
    return true;
}

/* The integral of ceil(t / mss) over t from 0 to x: whole packets of mss
 * up to k x mss contribute mss x (1 + ... + k), the rest (k + 1) each. */
static double packets_integral(double x, double mss)
{
    double k = floor(x / mss);
    return mss * k * (k + 1) / 2 + (x - k * mss) * (k + 1);
}

/* A message is at least one packet, as a 1-byte one is. */
static double packets_of(double size_bytes, double mss)
{
    double n = ceil(size_bytes / mss);
    return n < 1 ? 1 : n;
}

double cdf_mean_packets(const struct size_cdf *c, bool step, uint32_t mss_bytes)
{
    double mss = mss_bytes, mean = c->prob[0] * packets_of(c->size_bytes[0], mss);
    for (uint32_t i = 1; i < c->n; i++) {
        double w = c->prob[i] - c->prob[i - 1], a = c->size_bytes[i - 1], b = c->size_bytes[i];
        if (step || b <= a)
            mean += w * packets_of(b, mss);
        else /* uniform on [a, b]: the mean of ceil over the segment */
            mean += w * (packets_integral(b, mss) - packets_integral(a, mss)) / (b - a);
    }
    return mean;
}

/* ---- the generator ---------------------------------------------------------------- */

/* A gap this long (about 46 days) is beyond any run; it keeps the
 * conversion to integer picoseconds defined. */
#define GAP_CAP_PS 4e18

bool poisson_gen_init(struct poisson_gen *g, const struct poisson_spec *p, uint32_t hosts, uint32_t host_rate_mbps,
                      uint64_t run_seed, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    if (!cdf_read_file(&g->cdf, p->cdf_path, err, errlen))
        return false;
    g->step = p->step;
    g->hosts = hosts;
    g->mean_bytes = cdf_mean_bytes(&g->cdf, p->step);
    /* bits / (Mb/s) = us; x 1e6 = ps */
    g->mean_gap_ps = 8.0 * g->mean_bytes / (p->load * host_rate_mbps) * (double)PS_PER_US;
    g->rng = xcalloc(hosts, sizeof *g->rng);
    uint64_t seed = p->has_seed ? p->seed : run_seed;
    for (uint32_t h = 0; h < hosts; h++)
        rng_seed(&g->rng[h], seed, RNG_STREAM_WORKLOAD, POISSON_SUBSTREAM_BASE + h);
    return true;
}

void poisson_gen_free(struct poisson_gen *g)
{
    cdf_free(&g->cdf);
    free(g->rng);
    memset(g, 0, sizeof *g);
}

void poisson_next(struct poisson_gen *g, uint32_t src, struct poisson_msg *m)
{
    struct rng *r = &g->rng[src];
    /* exponential by inversion; 1 - u is in (0, 1], so the log is finite */
    double gap = -log(1.0 - rng_uniform(r)) * g->mean_gap_ps;
    m->gap_ps = gap >= GAP_CAP_PS ? (simtime_ps)GAP_CAP_PS : (simtime_ps)llround(gap);
    uint32_t d = (uint32_t)rng_below(r, g->hosts - 1);
    m->dst = d >= src ? d + 1 : d; /* uniform over the other hosts */
    m->size_bytes = cdf_sample(&g->cdf, rng_uniform(r), g->step);
    g->messages++;
    g->bytes += (double)m->size_bytes;
}

/* ---- in a run --------------------------------------------------------------------- */

struct poisson_host_next {
    simtime_ps at_ps;
    struct poisson_msg msg;
};

/* The pending message of each host (its arrival event is queued). */
static struct poisson_host_next *pending_of(struct poisson_run *pr)
{
    return pr->next;
}

/* Draws host h's next message after time `after`; queues its arrival
 * unless it comes at or after the stop time (or -end). */
static void schedule_next(struct sim *s, uint32_t h, simtime_ps after)
{
    struct poisson_run *pr = s->poisson;
    struct poisson_host_next *nx = &pending_of(pr)[h];
    poisson_next(&pr->gen, h, &nx->msg);
    simtime_ps limit = pr->spec.stop_ps < s->cfg.end_ps ? pr->spec.stop_ps : s->cfg.end_ps;
    if (nx->msg.gap_ps >= limit || after >= limit - nx->msg.gap_ps) {
        pr->pending--;
        s->arrivals_open = pr->pending > 0;
        if (!s->arrivals_open && s->flows_finished == s->n_msgs)
            s->stop = true; /* as a transport does when the last flow finishes */
        return;
    }
    nx->at_ps = after + nx->msg.gap_ps;
    sim_at(s, nx->at_ps, EV_ARRIVAL, h);
}

/* Payload flow f's receiver holds: wire bytes less a header per packet
 * (the reassembly bitmap counts them). */
static double received_payload(const struct sim *s, const struct flow *f)
{
    if (!f->tp_state)
        return 0;
    if (f->rcv_complete)
        return (double)f->size_bytes;
    if (f->tp->rcv_payload_bytes)
        return (double)f->tp->rcv_payload_bytes(s, (uint32_t)(f - s->flows));
    return 0; /* a transport that cannot say counts nothing before the message completes */
}

bool workload_size_cdf(const struct config *c, struct size_cdf *cdf, bool *step)
{
    if (!poisson_is_spec(c->workload_spec))
        return false;
    struct poisson_spec ps;
    char err[1024];
    if (!poisson_parse(&ps, c->workload_spec, err, sizeof err) || !cdf_read_file(cdf, ps.cdf_path, err, sizeof err))
        die_input("%s", err);
    *step = ps.step;
    return true;
}

/* The incast overlay's next event after `after`, unless past the stop. */
static void schedule_incast(struct sim *s, simtime_ps after)
{
    struct poisson_run *pr = s->poisson;
    simtime_ps limit = pr->spec.stop_ps < s->cfg.end_ps ? pr->spec.stop_ps : s->cfg.end_ps;
    if (pr->incast_period_ps >= limit || after >= limit - pr->incast_period_ps) {
        pr->pending--;
        s->arrivals_open = pr->pending > 0;
        if (!s->arrivals_open && s->flows_finished == s->n_msgs)
            s->stop = true;
        return;
    }
    sim_at(s, after + pr->incast_period_ps, EV_ARRIVAL, s->n_hosts + 2);
}

static void mark_incast(struct poisson_run *pr, uint32_t ordinal)
{
    uint32_t k = ordinal - pr->first_flow;
    if (k >= pr->cap_is_incast) {
        uint32_t cap = pr->cap_is_incast ? pr->cap_is_incast : 1024;
        while (cap <= k)
            cap = cap > UINT32_MAX / 2 ? UINT32_MAX : 2 * cap;
        pr->is_incast = xrealloc(pr->is_incast, cap);
        memset(pr->is_incast + pr->cap_is_incast, 0, cap - pr->cap_is_incast);
        pr->cap_is_incast = cap;
    }
    pr->is_incast[k] = 1;
}

static bool is_incast(const struct poisson_run *pr, uint32_t ordinal)
{
    uint32_t k = ordinal - pr->first_flow;
    return k < pr->cap_is_incast && pr->is_incast[k];
}

/* Message fi, made now by an arrival (an event of no node, origin 0),
 * starts at its source's NIC: what its start schedules is numbered as that
 * host's events are (origin 1 + source), so its keys are the same whichever
 * process runs the host. In a parallel run every process makes the slot
 * (the arrival runs everywhere: sim_event_everywhere) and only the
 * source's process starts it. */
static void start_here(struct sim *s, uint32_t fi)
{
    uint32_t src = s->flows[fi].src;
    s->flows[fi].start_scheduled = true;
    if (s->node_remote && s->node_remote[src])
        return;
    sim_set_origin(s, 1 + src);
    transport_flow_start(s, fi);
    sim_set_origin(s, 0);
}

/* One incast: a random receiver, incast_senders distinct random others
 * (a partial shuffle), each starting one message now. */
static void incast_event(struct sim *s)
{
    struct poisson_run *pr = s->poisson;
    uint32_t n = s->n_hosts, k = pr->spec.incast_senders;
    uint32_t dst = (uint32_t)rng_below(&pr->incast_rng, n);
    for (uint32_t i = 0, j = 0; i < n; i++)
        if (i != dst)
            pr->incast_pick[j++] = i;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t j = i + (uint32_t)rng_below(&pr->incast_rng, n - 1 - i);
        uint32_t t = pr->incast_pick[i];
        pr->incast_pick[i] = pr->incast_pick[j];
        pr->incast_pick[j] = t;
    }
    for (uint32_t i = 0; i < k; i++) {
        uint32_t fi = transport_add_flow_pooled(s, pr->incast_pick[i], dst, pr->spec.incast_bytes,
                                                pr->spec.pool_conns);
        mark_incast(pr, s->flows[fi].ordinal);
        start_here(s, fi);
    }
    schedule_incast(s, s->now);
}

static bool is_poisson_msg(const struct sim *s, const struct flow *f)
{
    return f->state != FLOW_FREE && !f->streamed && f->ordinal >= s->poisson->first_flow;
}

static void note_received(const struct sim *s, double *per_host)
{
    if (s->poisson->rcv_retired)
        memcpy(per_host, s->poisson->rcv_retired, s->n_hosts * sizeof *per_host);
    else
        memset(per_host, 0, s->n_hosts * sizeof *per_host);
    for (uint32_t i = 0; i < s->n_flows; i++)
        if (is_poisson_msg(s, &s->flows[i]))
            per_host[s->flows[i].dst] += received_payload(s, &s->flows[i]);
}

/* --switch-stats: each switch's buffer integral brought up to now and
 * noted; at the window's start the window peak restarts from what is
 * buffered now. */
static void note_switches(struct sim *s, double *integral, bool start)
{
    for (uint32_t i = 0; i < s->n_switches; i++) {
        struct switch_node *sw = &s->switches[i];
        sw->buffered_byte_ps += (double)sw->buffered_bytes * (double)(s->now - sw->buffered_changed_ps);
        sw->buffered_changed_ps = s->now;
        integral[i] = sw->buffered_byte_ps;
        if (start)
            sw->win_peak_buffered_bytes = sw->buffered_bytes;
        else
            s->poisson->sw_peak_win[i] = sw->win_peak_buffered_bytes;
    }
}

static simtime_ps window_end_ps(const struct sim *s)
{
    const struct poisson_spec *p = &s->poisson->spec;
    return p->stop_ps < s->cfg.end_ps ? p->stop_ps : s->cfg.end_ps;
}

/* load counts payload only; each packet also carries a header on the
 * wire. An offered load above the host links' rate once headers count
 * cannot be carried: the senders' backlog (and memory) grows all run long,
 * which is legal but surely not what was meant (a 5-byte CDF at load 0.5
 * is 0.5 x (5 + 64) / 5 = 6.9 links' worth). */
static void warn_overload(const struct sim *s, const struct poisson_spec *p, const struct poisson_gen *g)
{
    uint32_t hdr = s->cfg.hdr_bytes, mss = s->cfg.mtu_bytes - hdr;
    double bg_pkts = cdf_mean_packets(&g->cdf, p->step, mss);
    double ic_pkts = packets_of((double)p->incast_bytes, mss);
    double wire = p->load * (1 - p->incast_share) * (g->mean_bytes + hdr * bg_pkts) / g->mean_bytes;
    if (p->incast_share > 0)
        wire += p->load * p->incast_share * ((double)p->incast_bytes + hdr * ic_pkts) / (double)p->incast_bytes;
    if (wire > 1)
        warn_input("--workload poisson: load %g (payload) is %.3g times the host links' rate once each packet's "
                   "%u-byte header counts (%s: mean %.4g bytes, %.4g packets per message): the backlog grows all run",
                   p->load, wire, hdr, p->cdf_path, g->mean_bytes, bg_pkts);
}

void poisson_setup(struct sim *s, const struct poisson_spec *p)
{
    char err[1024];
    if (p->pool_conns && s->n_hosts > POISSON_POOL_MAX_HOSTS)
        die_input("--workload poisson: conns needs a table of every host pair; at most %u hosts (this run has %u)",
                  POISSON_POOL_MAX_HOSTS, s->n_hosts);
    if (p->pool_conns && !transport_find(s->cfg.transport_name)->flow_add)
        die_input("--workload poisson: conns: transport %s cannot set up flows during a run", s->cfg.transport_name);
    struct poisson_run *pr = xcalloc(1, sizeof *pr);
    s->poisson = pr;
    pr->spec = *p;
    vc_init(&pr->acc.sd_all, s->cfg.quantile_sketch);
    for (uint32_t k = 0; k < POISSON_GROUPS; k++)
        vc_init(&pr->acc.sd_group[k], s->cfg.quantile_sketch);
    /* the background carries what the overlay does not */
    struct poisson_spec background = *p;
    background.load = p->load * (1 - p->incast_share);
    uint32_t mbps = s->topo.spec.tier[0].downlink_mbps;
    if (!poisson_gen_init(&pr->gen, &background, s->n_hosts, mbps, s->cfg.seed, err, sizeof err))
        die_input("%s", err); /* names the CDF file and line */
    warn_overload(s, p, &pr->gen);
    if (p->warmup_ps >= s->cfg.end_ps)
        die_input("--workload poisson: warmup_us %g is not before -end %g: nothing would be measured",
                  (double)p->warmup_ps / PS_PER_US, (double)s->cfg.end_ps / PS_PER_US);
    if (!transport_find(s->cfg.transport_name)->flow_add)
        die_input("--workload poisson: transport %s cannot set up flows during a run (it has no flow_add)",
                  s->cfg.transport_name);
    pr->bdp_bytes = p->bdp_bytes ? p->bdp_bytes : s->bdp_bytes;
    pr->first_flow = s->n_msgs;
    pr->next = xcalloc(s->n_hosts, sizeof(struct poisson_host_next));
    pr->pending = s->n_hosts + (p->incast_share > 0); /* each host, and the overlay */
    s->arrivals_open = true;
    pr->rcv_at_start = xcalloc(s->n_hosts, sizeof(double));
    pr->rcv_at_end = xcalloc(s->n_hosts, sizeof(double));
    if (s->cfg.switch_stats) {
        pr->sw_int_start = xcalloc(s->n_switches, sizeof(double));
        pr->sw_int_end = xcalloc(s->n_switches, sizeof(double));
        pr->sw_peak_win = xcalloc(s->n_switches, sizeof(uint64_t));
    }
    /* the window's start (nothing received before a warm-up of 0) and end */
    pr->start_taken = !p->warmup_ps; /* else at the warm-up's end */
    if (p->warmup_ps)
        sim_at(s, p->warmup_ps, EV_ARRIVAL, s->n_hosts);
    sim_at(s, window_end_ps(s), EV_ARRIVAL, s->n_hosts + 1);
    for (uint32_t h = 0; h < s->n_hosts; h++)
        schedule_next(s, h, 0);
    if (p->incast_share > 0) {
        /* period = overlay bytes per event / (share x load x all hosts' rate);
         * bits / (Mb/s) = us */
        double period_us = (double)p->incast_senders * (double)p->incast_bytes * 8 /
                           (p->incast_share * p->load * s->n_hosts * mbps);
        double period_ps = period_us * (double)PS_PER_US;
        pr->incast_period_ps = period_ps >= GAP_CAP_PS ? (simtime_ps)GAP_CAP_PS : (simtime_ps)llround(period_ps);
        if (!pr->incast_period_ps)
            pr->incast_period_ps = 1;
        rng_seed(&pr->incast_rng, p->has_seed ? p->seed : s->cfg.seed, RNG_STREAM_WORKLOAD, POISSON_SUBSTREAM_INCAST);
        pr->incast_pick = xmalloc((size_t)(s->n_hosts - 1) * sizeof(uint32_t));
        schedule_incast(s, 0);
    }
}

void poisson_arrival(struct sim *s, uint32_t host)
{
    struct poisson_run *pr = s->poisson;
    if (host == s->n_hosts + 2) {
        incast_event(s);
        return;
    }
    if (host >= s->n_hosts) {
        bool end = host == s->n_hosts + 1;
        note_received(s, end ? pr->rcv_at_end : pr->rcv_at_start);
        if (pr->sw_int_start)
            note_switches(s, end ? pr->sw_int_end : pr->sw_int_start, !end);
        pr->end_taken |= end;
        pr->start_taken |= !end;
        return;
    }
    const struct poisson_msg m = pending_of(pr)[host].msg;
    /* the flow table may move here: no struct flow * is held across it */
    uint32_t fi = transport_add_flow_pooled(s, host, m.dst, m.size_bytes, pr->spec.pool_conns);
    start_here(s, fi);
    schedule_next(s, host, s->now);
}

void poisson_free(struct sim *s)
{
    struct poisson_run *pr = s->poisson;
    if (!pr)
        return;
    poisson_gen_free(&pr->gen);
    free(pr->next);
    free(pr->rcv_at_start);
    free(pr->rcv_at_end);
    free(pr->sw_int_start);
    free(pr->sw_int_end);
    free(pr->sw_peak_win);
    free(pr->incast_pick);
    free(pr->is_incast);
    vc_free(&pr->acc.sd_all);
    for (uint32_t k = 0; k < POISSON_GROUPS; k++)
        vc_free(&pr->acc.sd_group[k]);
    free(pr->rcv_retired);
    free(pr);
    s->poisson = NULL;
}

/* ---- statistics ------------------------------------------------------------------- */

uint32_t poisson_group_of(uint64_t size_bytes, uint64_t mss_bytes, uint64_t bdp_bytes)
{
    if (size_bytes < mss_bytes)
        return 0;
    if (size_bytes < bdp_bytes)
        return 1;
    return size_bytes < 8 * bdp_bytes ? 2 : 3;
}

static void slowdown_stats(struct poisson_group_stats *g, struct vcollect *v)
{
    g->slowdown_median = vc_percentile(v, 50);
    g->slowdown_p99 = vc_percentile(v, 99);
}

/* Folds message f into the accumulator: the one place a message counts,
 * whether it retired during the run (--stream) or is read at the end. */
static void account(const struct sim *s, const struct flow *f, simtime_ps w0, simtime_ps w1, uint64_t mss,
                    uint64_t bdp, struct poisson_acc *a)
{
    const struct poisson_run *pr = s->poisson;
    if (f->posted_ps < w0 || f->posted_ps >= w1)
        return;
    a->all_bytes += (double)f->size_bytes;
    if (is_incast(pr, f->ordinal)) {
        /* seed 001: in goodput and load, not in slowdowns or the mean size */
        a->incast_measured++;
        a->incast_delivered += f->rcv_complete;
        return;
    }
    a->measured++;
    a->bytes += (double)f->size_bytes;
    uint32_t k = poisson_group_of(f->size_bytes, mss, bdp);
    a->group_messages[k]++;
    /* from its arrival: waiting behind its pool connection's earlier
     * messages counts. Undelivered (only ever at the run's end: a retired
     * message was delivered): censored at the end, a lower bound that keeps
     * it in the percentiles instead of leaving the slowest out. */
    simtime_ps done_ps = f->rcv_complete ? f->rcv_done_ps : s->now;
    double sd = (double)(done_ps - f->posted_ps) / (double)ideal_delivery_ps(s, f);
    vc_add(&a->sd_group[k], sd);
    vc_add(&a->sd_all, sd);
    if (!f->rcv_complete)
        return;
    a->group_delivered[k]++;
    a->delivered_all++;
}

const char *poisson_group_label(const struct sim *s, const struct flow *f)
{
    static const char *const names[POISSON_GROUPS] = {"A", "B", "C", "D"};
    const struct poisson_run *pr = s->poisson;
    /* the same tests, in the same order, as account() */
    if (f->ordinal < pr->first_flow || f->posted_ps < pr->spec.warmup_ps || f->posted_ps >= window_end_ps(s))
        return "";
    if (is_incast(pr, f->ordinal))
        return "incast";
    return names[poisson_group_of(f->size_bytes, s->cfg.mtu_bytes - s->cfg.hdr_bytes, pr->bdp_bytes)];
}

void poisson_account_finished(struct sim *s, uint32_t fi)
{
    struct poisson_run *pr = s->poisson;
    const struct flow *f = &s->flows[fi];
    if (f->ordinal < pr->first_flow)
        return;
    if (!pr->rcv_retired)
        pr->rcv_retired = xcalloc(s->n_hosts, sizeof(double));
    pr->rcv_retired[f->dst] += received_payload(s, f);
    account(s, f, pr->spec.warmup_ps, window_end_ps(s), s->cfg.mtu_bytes - s->cfg.hdr_bytes, pr->bdp_bytes,
            &pr->acc);
}

void poisson_collect(const struct sim *s, struct poisson_stats *ps)
{
    const struct poisson_run *pr = s->poisson;
    memset(ps, 0, sizeof *ps);
    ps->window_start_ps = pr->spec.warmup_ps;
    ps->window_end_ps = window_end_ps(s);
    ps->load_requested = pr->spec.load;
    ps->mean_bytes_cdf = pr->gen.mean_bytes;
    ps->mss_bytes = s->cfg.mtu_bytes - s->cfg.hdr_bytes;
    ps->bdp_bytes = pr->bdp_bytes;
    ps->messages = s->n_msgs - pr->first_flow;
    /* the retired messages' part (--stream), then the messages still in
     * their slots: the same multiset of values either way */
    struct poisson_acc a = pr->acc;
    vc_init(&a.sd_all, s->cfg.quantile_sketch);
    vc_merge(&a.sd_all, &pr->acc.sd_all);
    for (uint32_t k = 0; k < POISSON_GROUPS; k++) {
        vc_init(&a.sd_group[k], s->cfg.quantile_sketch);
        vc_merge(&a.sd_group[k], &pr->acc.sd_group[k]);
    }
    for (uint32_t i = 0; i < s->n_flows; i++)
        if (is_poisson_msg(s, &s->flows[i]))
            account(s, &s->flows[i], ps->window_start_ps, ps->window_end_ps, ps->mss_bytes, ps->bdp_bytes, &a);
    ps->measured = a.measured;
    ps->incast_measured = a.incast_measured;
    ps->incast_delivered = a.incast_delivered;
    double bytes = a.bytes, all_bytes = a.all_bytes;
    ps->all.messages = a.measured;
    ps->all.delivered = a.delivered_all;
    ps->all.unfinished = a.measured - a.delivered_all;
    slowdown_stats(&ps->all, &a.sd_all);
    vc_free(&a.sd_all);
    for (uint32_t k = 0; k < POISSON_GROUPS; k++) {
        ps->group[k].messages = a.group_messages[k];
        ps->group[k].delivered = a.group_delivered[k];
        ps->group[k].unfinished = a.group_messages[k] - a.group_delivered[k];
        slowdown_stats(&ps->group[k], &a.sd_group[k]);
        vc_free(&a.sd_group[k]);
    }
    ps->delivered = ps->all.delivered;
    double window_s = (double)(ps->window_end_ps - ps->window_start_ps) / 1e12;
    double rate_bytes_per_s = s->topo.spec.tier[0].downlink_mbps * 1e6 / 8;
    if (window_s > 0) {
        ps->load_achieved = all_bytes / (s->n_hosts * window_s * rate_bytes_per_s);
        ps->msgs_per_s_per_host = ps->measured / (s->n_hosts * window_s);
        /* a run that ended before the window did (every message done)
         * received nothing after: its final state is the window's end; one
         * that ended before the window began noted neither end (0 and 0) */
        double *at_end = pr->rcv_at_end, *now = NULL;
        if (!pr->end_taken && pr->start_taken) {
            at_end = now = xmalloc(s->n_hosts * sizeof(double));
            note_received(s, now);
        }
        ps->goodput_gbps_min = INFINITY;
        for (uint32_t h = 0; h < s->n_hosts; h++) {
            double gbps = (at_end[h] - pr->rcv_at_start[h]) * 8 / window_s / 1e9;
            ps->goodput_gbps_mean += gbps / s->n_hosts;
            ps->goodput_gbps_min = gbps < ps->goodput_gbps_min ? gbps : ps->goodput_gbps_min;
            ps->goodput_gbps_max = gbps > ps->goodput_gbps_max ? gbps : ps->goodput_gbps_max;
        }
        free(now);
        if (pr->sw_int_start) {
            /* a run that ended before the window did: its final state (the
             * integrals were closed at the run's end) is the window's end,
             * the switches empty from then on, so the average is over the
             * whole window, as goodput's is (window_s above) */
            ps->has_switch_window = true;
            double dur_ps = (double)(ps->window_end_ps - ps->window_start_ps);
            uint32_t per_tier[TOPO_MAX_TIERS] = {0};
            for (uint32_t i = 0; i < s->n_switches; i++) {
                const struct switch_node *sw = &s->switches[i];
                /* a run that ended before the window began saw nothing in it:
                 * the end's values were never noted (0, as the start's) */
                bool noted = pr->end_taken || !pr->start_taken;
                double end_int = noted ? pr->sw_int_end[i] : sw->buffered_byte_ps;
                uint64_t peak = noted ? pr->sw_peak_win[i] : sw->win_peak_buffered_bytes;
                invariant(sw->tier < TOPO_MAX_TIERS, "switch %u in tier %u", i, sw->tier);
                per_tier[sw->tier]++;
                ps->win_mean_bytes[sw->tier] += dur_ps > 0 ? (end_int - pr->sw_int_start[i]) / dur_ps : 0;
                if (peak > ps->win_peak_bytes[sw->tier])
                    ps->win_peak_bytes[sw->tier] = peak;
            }
            for (uint32_t t = 0; t < TOPO_MAX_TIERS; t++)
                if (per_tier[t])
                    ps->win_mean_bytes[t] /= per_tier[t];
        }
    }
    ps->mean_bytes_generated = ps->measured ? bytes / ps->measured : 0;
}

const char *poisson_param_names(void)
{
    return spec_params;
}
