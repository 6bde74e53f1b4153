/* vcollect.c: exact or sketched percentiles (see vcollect.h). */
#include "vcollect.h"

#include "../core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Buckets: value v >= VC_MIN goes to floor(log(v / VC_MIN) / log(VC_GAMMA)).
 * gamma 1.002: a bucket's midpoint is within 0.1% of anything in it. */
#define VC_GAMMA 1.002
#define VC_MIN 1e-9
#define VC_BUCKETS 24000u /* 1e-9 * 1.002^24000 > 1e11: above any FCT in us or slowdown */

void vc_init(struct vcollect *c, bool sketch)
{
    memset(c, 0, sizeof *c);
    c->sketch = sketch;
}

static uint32_t bucket_of(double v)
{
    double b = floor(log(v / VC_MIN) / log(VC_GAMMA));
    return b >= VC_BUCKETS - 1 ? VC_BUCKETS - 1 : (uint32_t)b;
}

void vc_add(struct vcollect *c, double v)
{
    invariant(v >= 0 && !isnan(v), "a negative or NaN value (%g) in a percentile collector", v);
    if (c->n == 0 || v > c->max)
        c->max = v;
    c->n++;
    if (c->sketch) {
        if (!c->bucket)
            c->bucket = xcalloc(VC_BUCKETS, sizeof(uint64_t));
        if (v < VC_MIN)
            c->zeros++;
        else
            c->bucket[bucket_of(v)]++;
        return;
    }
    if (c->n > c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->v = xrealloc(c->v, c->cap * sizeof(double));
    }
    c->v[c->n - 1] = v;
    c->sorted = false;
}

void vc_merge(struct vcollect *to, const struct vcollect *from)
{
    invariant(to->sketch == from->sketch, "merging an exact and a sketched collector");
    if (!from->n)
        return;
    if (!to->sketch) {
        for (uint64_t i = 0; i < from->n; i++)
            vc_add(to, from->v[i]);
        return;
    }
    if (!to->bucket)
        to->bucket = xcalloc(VC_BUCKETS, sizeof(uint64_t));
    for (uint32_t b = 0; b < VC_BUCKETS; b++)
        to->bucket[b] += from->bucket[b];
    to->zeros += from->zeros;
    if (to->n == 0 || from->max > to->max)
        to->max = from->max;
    to->n += from->n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double vc_percentile(struct vcollect *c, double p)
{
    if (!c->n)
        return 0;
    double r = ceil(p / 100.0 * (double)c->n);
    uint64_t rank = r < 1 ? 1 : (uint64_t)r > c->n ? c->n : (uint64_t)r;
    if (!c->sketch) {
        if (!c->sorted) {
            qsort(c->v, c->n, sizeof(double), cmp_double);
            c->sorted = true;
        }
        return c->v[rank - 1];
    }
    if (rank == c->n)
        return c->max; /* the largest is known exactly */
    uint64_t seen = c->zeros;
    if (seen >= rank)
        return 0;
    for (uint32_t b = 0; b < VC_BUCKETS; b++) {
        seen += c->bucket[b];
        if (seen >= rank) {
            double lo = VC_MIN * pow(VC_GAMMA, b), mid = lo * (1 + VC_GAMMA) / 2;
            return mid < c->max ? mid : c->max;
        }
    }
    return c->max;
}

void vc_free(struct vcollect *c)
{
    free(c->v);
    free(c->bucket);
    memset(c, 0, sizeof *c);
}
