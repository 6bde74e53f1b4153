/* gen.c: the built-in workload generators (see gen.h for the specification
 * syntax). Parsing checks every parameter and every combination before
 * anything is built, so gen_build cannot fail: a bad specification is one
 * line naming --workload, the kind and the parameter. Numbers go through
 * the strict parser of src/core/parse.c, as every other input's do.
 *
 * Randomness: one xoshiro stream seeded from (seed, RNG_STREAM_WORKLOAD,
 * GEN_SUBSTREAM_MATRIX), drawn in a fixed order, so a matrix depends only
 * on its specification and the seed.
 */
#include "gen.h"

#include "../core/parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seed 004 (seeds/004_4a49ceaf98ce83ec.txt) Sec. IV-A (ii), HSDP: "our
 * 128-GPU cluster organized as 16 servers of 8 GPUs", "8 parallel rings:
 * each logical GPU i is connected to logical GPU i + 8 (mod 128)", "one
 * ring step ... 3,344 packets per flow". Bytes per packet: 4096 of payload
 * (its "4 KB packets"), as specs/seeds-figures.md Sec. 5.1 takes them. */
#define RING_DEFAULT_NODES 128
#define RING_DEFAULT_GPUS 8
#define RING_DEFAULT_PACKETS 3344ull
#define RING_DEFAULT_PAYLOAD_BYTES 4096ull

/* Seed 000 (seeds/000_666e8ab3ef72f21d.txt) Sec. IV-B, Fig. 13d: "32MiB
 * flows, except for one that is bigger and sends 64MiB"; seed 003
 * (seeds/003_989d80b4b4518d2f.txt) Sec. 4.4, Fig. 11d: "2MiB flows, except
 * for one that is bigger and sends 4MiB". The long flow is twice the others. */
#define UNEVEN_DEFAULT_FACTOR 2
/* Our limits, far beyond the seeds' use; they keep sizes and counts small. */
#define UNEVEN_MAX_FACTOR 1024
#define PARALLEL_MAX_COUNT 1024

/* Parameter names; each kind accepts those of its mask. */
enum param {
    P_N, P_SIZE, P_DEGREE, P_DST, P_FACTOR, P_COUNT, P_WINDOW, P_ORDER, P_GPUS, P_PLACEMENT, P_SEED, P_PODSIZE,
    P_COUNT_ALL
};
static const char *const param_names[P_COUNT_ALL] = {
    "n", "size", "degree", "dst", "factor", "count", "window", "order", "gpus", "placement", "seed", "podsize",
};
#define BIT(p) (1u << (p))

struct kind_def {
    const char *name;
    unsigned params;      /* BIT(P_...) of each parameter it takes */
    const char *listed;   /* the same, for messages */
};

static const struct kind_def kinds[GEN_KINDS] = {
    [GEN_INCAST] = {"incast", BIT(P_N) | BIT(P_SIZE) | BIT(P_DEGREE) | BIT(P_DST) | BIT(P_SEED),
                    "n, size, degree, dst, seed"},
    [GEN_PERM] = {"perm", BIT(P_N) | BIT(P_SIZE) | BIT(P_SEED) | BIT(P_PODSIZE), "n, size, seed, podsize"},
    [GEN_UNEVEN] = {"uneven", BIT(P_N) | BIT(P_SIZE) | BIT(P_FACTOR) | BIT(P_SEED), "n, size, factor, seed"},
    [GEN_PARALLEL] = {"parallel", BIT(P_N) | BIT(P_SIZE) | BIT(P_COUNT) | BIT(P_SEED), "n, size, count, seed"},
    [GEN_ALLTOALL] = {"alltoall", BIT(P_N) | BIT(P_SIZE) | BIT(P_WINDOW) | BIT(P_ORDER) | BIT(P_SEED),
                      "n, size, window, order, seed"},
    [GEN_RING] = {"ring", BIT(P_N) | BIT(P_GPUS) | BIT(P_SIZE) | BIT(P_PLACEMENT) | BIT(P_SEED),
                  "n, gpus, size, placement, seed"},
};

struct gen_parser {
    char *err;
    size_t errlen;
    const char *kind;   /* for messages */
};

__attribute__((format(printf, 2, 3)))
static bool fail(struct gen_parser *p, const char *fmt, ...)
{
    if (!p->err || !p->errlen)
        return false;
    int n = p->kind ? snprintf(p->err, p->errlen, "--workload %s: ", p->kind) : snprintf(p->err, p->errlen, "--workload: ");
    if (n >= 0 && (size_t)n < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool get_u64(struct gen_parser *p, const char *name, const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char b[SHOWN_BUF];
    uint64_t u = 0;
    enum num_status st = parse_u64(v, &u);
    if (st == NUM_BAD)
        return fail(p, "%s '%s' is not a whole number", name, shown(v, b));
    if (st == NUM_RANGE || u < lo || u > hi)
        return fail(p, "%s '%s' is out of range (%llu to %llu)", name, shown(v, b), (unsigned long long)lo,
                    (unsigned long long)hi);
    *out = u;
    return true;
}

/* One NAME=VALUE (NUL-terminated copies). */
static bool set_param(struct gen_parser *p, struct gen_spec *g, enum param prm, const char *v)
{
    char b[SHOWN_BUF];
    const char *name = param_names[prm];
    uint64_t u = 0;
    switch (prm) {
    case P_N:
        if (!get_u64(p, name, v, 2, GEN_MAX_NODES, &u))
            return false;
        g->nodes = (uint32_t)u;
        return true;
    case P_SIZE:
        if (!get_u64(p, "size (bytes)", v, 1, GEN_MAX_SIZE_BYTES, &g->size_bytes))
            return false;
        return true;
    case P_DEGREE:
        if (!get_u64(p, name, v, 1, GEN_MAX_NODES - 1, &u))
            return false;
        g->degree = (uint32_t)u;
        return true;
    case P_DST:
        if (!strcmp(v, "random")) {
            g->dst = GEN_RANDOM;
            return true;
        }
        if (parse_u64(v, &u) == NUM_BAD)
            return fail(p, "dst '%s' is neither a host number nor 'random'", shown(v, b));
        if (!get_u64(p, name, v, 0, GEN_MAX_NODES - 1, &u))
            return false;
        g->dst = (uint32_t)u;
        return true;
    case P_FACTOR:
        if (!get_u64(p, name, v, 1, UNEVEN_MAX_FACTOR, &u))
            return false;
        g->factor = (uint32_t)u;
        return true;
    case P_COUNT:
        if (!get_u64(p, name, v, 1, PARALLEL_MAX_COUNT, &u))
            return false;
        g->count = (uint32_t)u;
        return true;
    case P_WINDOW:
        if (!get_u64(p, name, v, 1, UINT32_MAX, &u))
            return false;
        g->window = (uint32_t)u;
        return true;
    case P_ORDER:
        if (!strcmp(v, "shift") || !strcmp(v, "random")) {
            g->order_random = v[0] == 'r';
            return true;
        }
        return fail(p, "order '%s' is not shift or random", shown(v, b));
    case P_GPUS:
        if (!get_u64(p, name, v, 1, GEN_MAX_NODES, &u))
            return false;
        g->gpus = (uint32_t)u;
        return true;
    case P_PLACEMENT:
        if (!strcmp(v, "block") || !strcmp(v, "host")) {
            g->placement_host = v[0] == 'h';
            return true;
        }
        return fail(p, "placement '%s' is not block or host", shown(v, b));
    case P_SEED:
        if (!get_u64(p, name, v, 0, UINT64_MAX, &g->seed))
            return false;
        g->has_seed = true;
        return true;
    case P_PODSIZE:
        if (!get_u64(p, name, v, 1, GEN_MAX_NODES / 2, &u))
            return false;
        g->podsize = (uint32_t)u;
        return true;
    case P_COUNT_ALL:
        break;
    }
    return fail(p, "internal: parameter %d", (int)prm);
}

uint64_t gen_connections(const struct gen_spec *g)
{
    switch ((enum gen_kind)g->kind) {
    case GEN_INCAST:
        return g->degree;
    case GEN_PARALLEL:
        return (uint64_t)g->nodes * g->count;
    case GEN_ALLTOALL:
        return (uint64_t)g->nodes * (g->nodes - 1);
    case GEN_PERM:
    case GEN_UNEVEN:
    case GEN_RING:
    case GEN_KINDS:
        break;
    }
    return g->nodes;
}

/* The checks that involve several parameters, and the defaults that
 * depend on others. */
static bool check_spec(struct gen_parser *p, struct gen_spec *g, const bool *seen)
{
    if (g->kind != GEN_RING) {
        if (!seen[P_N])
            return fail(p, "parameter 'n' (hosts) is required");
        if (!seen[P_SIZE])
            return fail(p, "parameter 'size' (bytes per flow) is required");
    }
    if (g->kind == GEN_PARALLEL && !seen[P_COUNT])
        return fail(p, "parameter 'count' (permutations) is required");
    uint32_t n = g->nodes;
    switch ((enum gen_kind)g->kind) {
    case GEN_INCAST:
        if (!seen[P_DEGREE])
            g->degree = n - 1;
        if (g->degree > n - 1)
            return fail(p, "degree %u needs at least %llu hosts (n is %u)", g->degree, (unsigned long long)g->degree + 1,
                        n);
        if (g->dst != GEN_RANDOM && g->dst >= n)
            return fail(p, "dst %u is out of range (0 to %u for n=%u)", g->dst, n - 1, n);
        break;
    case GEN_UNEVEN:
        if (g->size_bytes * g->factor > GEN_MAX_SIZE_BYTES)
            return fail(p, "size %llu x factor %u is beyond %llu bytes", (unsigned long long)g->size_bytes, g->factor,
                        (unsigned long long)GEN_MAX_SIZE_BYTES);
        break;
    case GEN_ALLTOALL:
        if (!seen[P_WINDOW])
            g->window = n - 1;
        break;
    case GEN_RING:
        if (g->gpus > n || n % g->gpus)
            return fail(p, "n %u is not a whole number of servers of gpus=%u", n, g->gpus);
        if (n / g->gpus < 2)
            return fail(p, "n=%u with gpus=%u is one server; a ring needs two or more (GPU i sends to i + gpus mod n)",
                        n, g->gpus);
        break;
    case GEN_PERM:
        /* a cross-pod permutation needs whole pods, and at least two */
        if (g->podsize && (n % g->podsize || n / g->podsize < 2))
            return fail(p, "podsize %u must divide n=%u into two or more pods", g->podsize, n);
        break;
    case GEN_PARALLEL:
    case GEN_KINDS:
        break;
    }
    uint64_t conns = gen_connections(g);
    if (conns > GEN_MAX_CONNS)
        return fail(p, "makes %llu connections, more than %u", (unsigned long long)conns, GEN_MAX_CONNS);
    return true;
}

bool gen_parse(struct gen_spec *g, const char *text, char *err, size_t errlen)
{
    char b[SHOWN_BUF];
    struct gen_parser p = {err, errlen, NULL};
    memset(g, 0, sizeof *g);
    if (err && errlen)
        err[0] = '\0';
    if (!text || !*text)
        return fail(&p, "empty specification; expected KIND:NAME=VALUE,... with KIND one of incast, perm, uneven, "
                        "parallel, alltoall, ring");
    size_t len = strlen(text);
    char *buf = xmalloc(len + 1);
    memcpy(buf, text, len + 1);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    g->kind = GEN_KINDS;
    for (uint32_t k = 0; k < GEN_KINDS; k++)
        if (!strcmp(buf, kinds[k].name))
            g->kind = k;
    if (g->kind == GEN_KINDS) {
        fail(&p, "unknown kind '%s' (incast, perm, uneven, parallel, alltoall, ring, poisson)", shown(buf, b));
        free(buf);
        return false;
    }
    p.kind = kinds[g->kind].name;
    g->dst = GEN_RANDOM;
    g->factor = UNEVEN_DEFAULT_FACTOR;
    if (g->kind == GEN_RING) {
        g->nodes = RING_DEFAULT_NODES;
        g->gpus = RING_DEFAULT_GPUS;
        g->size_bytes = RING_DEFAULT_PACKETS * RING_DEFAULT_PAYLOAD_BYTES;
    }
    bool seen[P_COUNT_ALL] = {false};
    bool ok = true;
    if (colon) {
        char *s = colon + 1;
        if (!*s)
            ok = fail(&p, "nothing after ':' (it takes %s)", kinds[g->kind].listed);
        while (ok && s) {
            char *comma = strchr(s, ',');
            if (comma)
                *comma = '\0';
            char *eq = strchr(s, '=');
            if (!*s) {
                ok = fail(&p, "empty parameter (a stray comma?)");
                break;
            }
            if (eq)
                *eq = '\0';
            int prm = -1;
            for (int i = 0; i < P_COUNT_ALL; i++)
                if (!strcmp(s, param_names[i]) && (kinds[g->kind].params & BIT(i)))
                    prm = i;
            if (prm < 0)
                ok = fail(&p, "unknown parameter '%s' (%s takes %s)", shown(s, b), p.kind, kinds[g->kind].listed);
            else if (seen[prm])
                ok = fail(&p, "parameter '%s' given twice", s);
            else if (!eq || !eq[1])
                ok = fail(&p, "parameter '%s' has no value (NAME=VALUE)", s);
            else {
                seen[prm] = true;
                ok = set_param(&p, g, (enum param)prm, eq + 1);
            }
            s = comma ? comma + 1 : NULL;
        }
    }
    free(buf);
    return ok && check_spec(&p, g, seen);
}

/* ---- building ------------------------------------------------------------ */

static void matrix_init(struct conn_matrix *cm, uint32_t nodes, uint64_t conns)
{
    memset(cm, 0, sizeof *cm);
    cm->nodes = nodes;
    cm->conns = xcalloc(conns ? (size_t)conns : 1, sizeof *cm->conns);
}

/* Appends src->dst of size bytes starting at 0; the id is its position. */
static struct cm_conn *add_conn(struct conn_matrix *cm, uint32_t src, uint32_t dst, uint64_t size)
{
    struct cm_conn *c = &cm->conns[cm->n_conns++];
    *c = (struct cm_conn){
        .src = src,
        .dst = dst,
        .id = cm->n_conns,
        .has_id = true,
        .size_bytes = size,
        .start_ps = 0,
        .start_trigger = CM_NO_TRIGGER,
        .send_done_trigger = CM_NO_TRIGGER,
        .recv_done_trigger = CM_NO_TRIGGER,
        .msg_prev = CM_NO_MSG,
        .msg_next = CM_NO_MSG,
        .msg_index = 1,
        .tclass = CM_CLASS_AUTO,
        .prio_class = 1,
    };
    return c;
}

static void shuffle(struct rng *r, uint32_t *a, uint32_t n)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)rng_below(r, i);
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* A derangement of 0..n-1 (n >= 2), uniform over all derangements: a
 * Fisher-Yates shuffle restarted as soon as a finished position holds its
 * own index (about e = 2.7 shuffles on average). */
static void derangement(struct rng *r, uint32_t *p, uint32_t n)
{
    for (;;) {
        for (uint32_t i = 0; i < n; i++)
            p[i] = i;
        uint32_t i = n;
        for (; i > 1; i--) {
            uint32_t j = (uint32_t)rng_below(r, i);
            uint32_t t = p[i - 1];
            p[i - 1] = p[j];
            p[j] = t;
            if (p[i - 1] == i - 1)
                break; /* position i-1 is final: a fixed point */
        }
        if (i == 1 && p[0] != 0)
            return;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* degree senders into one host; seed 004 Sec. IV-A (iii): "32 random hosts
 * send 8 MB to one host". */
static void build_incast(struct conn_matrix *cm, const struct gen_spec *g, struct rng *r)
{
    uint32_t n = g->nodes;
    uint32_t dst = g->dst == GEN_RANDOM ? (uint32_t)rng_below(r, n) : g->dst;
    uint32_t *others = xmalloc((size_t)(n - 1) * sizeof *others);
    for (uint32_t i = 0, k = 0; i < n; i++)
        if (i != dst)
            others[k++] = i;
    if (g->degree < n - 1) {
        /* a random subset: the first `degree` places of a partial shuffle */
        for (uint32_t i = 0; i < g->degree; i++) {
            uint32_t j = i + (uint32_t)rng_below(r, n - 1 - i);
            uint32_t t = others[i];
            others[i] = others[j];
            others[j] = t;
        }
        qsort(others, g->degree, sizeof *others, cmp_u32); /* senders in host order: a readable matrix */
    }
    for (uint32_t i = 0; i < g->degree; i++)
        add_conn(cm, others[i], dst, g->size_bytes);
    free(others);
}

/* podsize (seeds 000 Sec. IV-c, 003 Sec. 4: permutations "selected so that
 * each packet crosses the core switches"): a random permutation whose every
 * flow leaves its pod (hosts i and j share a pod when i / podsize == j /
 * podsize). Draw a uniform permutation, then repair each same-pod pair by
 * swapping its destination with a random sender's whose swap is valid both
 * ways; with n >= 2 podsize at least n - 2 podsize + 1 senders qualify, so
 * the retry loop ends. Not uniform over cross-pod permutations, but random
 * and the same for a given seed. */
static void cross_pod_perm(struct rng *r, uint32_t *p, uint32_t n, uint32_t podsize)
{
    for (uint32_t i = 0; i < n; i++)
        p[i] = i;
    shuffle(r, p, n);
    for (uint32_t i = 0; i < n; i++) {
        while (p[i] / podsize == i / podsize) {
            uint32_t j = (uint32_t)rng_below(r, n);
            if (j / podsize != i / podsize && p[j] / podsize != i / podsize) {
                uint32_t t = p[i];
                p[i] = p[j];
                p[j] = t;
            }
        }
    }
}

/* perm and uneven: one derangement; parallel (seed 003 Sec. 4.4, Fig. 11c:
 * "multiple permutations run in parallel"): count of them, one after the
 * other in the matrix. */
static void build_perms(struct conn_matrix *cm, const struct gen_spec *g, struct rng *r)
{
    uint32_t n = g->nodes;
    uint32_t *p = xmalloc((size_t)n * sizeof *p);
    uint32_t perms = g->kind == GEN_PARALLEL ? g->count : 1;
    for (uint32_t k = 0; k < perms; k++) {
        if (g->podsize)
            cross_pod_perm(r, p, n, g->podsize);
        else
            derangement(r, p, n);
        for (uint32_t i = 0; i < n; i++)
            add_conn(cm, i, p[i], g->size_bytes);
    }
    free(p);
    if (g->kind == GEN_UNEVEN)
        cm->conns[rng_below(r, n)].size_bytes = g->size_bytes * g->factor;
}

/* Seed 000 Sec. IV-C and seed 003 Sec. 4.5: "a windowed algorithm for the
 * alltoall to have at least k active flows per node".
 * Sender i's messages go to i+1, i+2, ... (mod n) or, with order=random, to
 * the other hosts shuffled. With a window W < n-1, sender i has multishot
 * trigger i+1: its first W messages start at 0, the rest wait on the
 * trigger in matrix order, and every one of its messages activates it when
 * the sender has its last ACK (send_done_trigger). A multishot trigger
 * starts one waiting connection per activation, so each finished message
 * starts at most one more and no more than W are ever outstanding. */
static void build_alltoall(struct conn_matrix *cm, const struct gen_spec *g, struct rng *r)
{
    uint32_t n = g->nodes;
    bool windowed = g->window < n - 1;
    if (windowed) {
        cm->triggers = xcalloc(n, sizeof *cm->triggers);
        cm->n_triggers = n;
    }
    uint32_t *dsts = xmalloc((size_t)(n - 1) * sizeof *dsts);
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < n - 1; k++)
            dsts[k] = (uint32_t)(((uint64_t)i + k + 1) % n);
        if (g->order_random)
            shuffle(r, dsts, n - 1);
        for (uint32_t k = 0; k < n - 1; k++) {
            struct cm_conn *c = add_conn(cm, i, dsts[k], g->size_bytes);
            if (!windowed)
                continue;
            c->send_done_trigger = i + 1;
            if (k >= g->window) {
                c->start_ps = SIMTIME_NEVER;
                c->start_trigger = i + 1;
            }
        }
        if (windowed)
            cm->triggers[i] = (struct cm_trigger){.id = i + 1, .type = TRIGGER_MULTISHOT};
    }
    free(dsts);
}

/* Seed 004's HSDP ring step: logical GPU i is local rank i mod G of server
 * i / G; every logical GPU sends to logical GPU i + G (mod n), which is the
 * same rank on the next server: G parallel rings over the n/G servers.
 * "Random server placement": with placement=block (default) each server is
 * one box, put on a random block of G consecutive hosts, so logical GPU i
 * is host G * pi(i / G) + i mod G; with placement=host each GPU gets a
 * random host of its own. */
static void build_ring(struct conn_matrix *cm, const struct gen_spec *g, struct rng *r)
{
    uint32_t n = g->nodes, gpus = g->gpus, servers = n / gpus;
    uint32_t *host = xmalloc((size_t)n * sizeof *host);
    if (g->placement_host) {
        for (uint32_t i = 0; i < n; i++)
            host[i] = i;
        shuffle(r, host, n);
    } else {
        uint32_t *block = xmalloc((size_t)servers * sizeof *block);
        for (uint32_t sv = 0; sv < servers; sv++)
            block[sv] = sv;
        shuffle(r, block, servers);
        for (uint32_t i = 0; i < n; i++)
            host[i] = gpus * block[i / gpus] + i % gpus;
        free(block);
    }
    for (uint32_t i = 0; i < n; i++)
        add_conn(cm, host[i], host[(uint32_t)(((uint64_t)i + gpus) % n)], g->size_bytes);
    free(host);
}

void gen_build(struct conn_matrix *cm, const struct gen_spec *g, uint64_t run_seed)
{
    struct rng r;
    rng_seed(&r, g->has_seed ? g->seed : run_seed, RNG_STREAM_WORKLOAD, GEN_SUBSTREAM_MATRIX);
    matrix_init(cm, g->nodes, gen_connections(g));
    switch ((enum gen_kind)g->kind) {
    case GEN_INCAST:
        build_incast(cm, g, &r);
        break;
    case GEN_PERM:
    case GEN_UNEVEN:
    case GEN_PARALLEL:
        build_perms(cm, g, &r);
        break;
    case GEN_ALLTOALL:
        build_alltoall(cm, g, &r);
        break;
    case GEN_RING:
        build_ring(cm, g, &r);
        break;
    case GEN_KINDS:
        die_internal("gen_build: kind %u", g->kind);
    }
}

bool gen_workload(struct conn_matrix *cm, const char *text, uint64_t run_seed, char *err, size_t errlen)
{
    struct gen_spec g;
    memset(cm, 0, sizeof *cm);
    if (!gen_parse(&g, text, err, errlen))
        return false;
    gen_build(cm, &g, run_seed);
    return true;
}

const char *gen_kind_info(unsigned k, const char **params)
{
    if (k >= GEN_KINDS)
        return NULL;
    *params = kinds[k].listed;
    return kinds[k].name;
}
