/* vcollect.h: a multiset of non-negative values (FCTs, slowdowns) whose
 * percentiles the summary reports, kept one of two ways:
 *
 *   exact   every value (8 bytes each): percentiles by nearest rank on the
 *           sorted values, as report_percentile();
 *   sketch  (--quantiles sketch) counts in logarithmic buckets, each 0.1%
 *           wide (gamma = 1.002), from 1e-9 to 1e12: memory fixed (about
 *           190 KB per collector) whatever the number of values, and a
 *           percentile is its bucket's midpoint, within 0.1% of the exact
 *           one. Long open-loop runs use it to keep memory bounded by the
 *           active messages (docs/outputs.md "Streamed output and bounded memory").
 *
 * The count and the maximum are exact either way. Adding the same values in
 * any order gives the same percentiles in both modes.
 */
#ifndef SPRAYSIM_VCOLLECT_H
#define SPRAYSIM_VCOLLECT_H

#include <stdbool.h>
#include <stdint.h>

struct vcollect {
    bool sketch;
    uint64_t n;
    double max;
    /* exact */
    double *v;
    uint64_t cap;
    bool sorted;
    /* sketch */
    uint64_t *bucket;   /* VC_BUCKETS counts; NULL until the first value */
    uint64_t zeros;     /* values below the first bucket (0 included) */
};

void vc_init(struct vcollect *c, bool sketch);
void vc_add(struct vcollect *c, double v);
/* Adds every value of `from` to `to` (same mode). */
void vc_merge(struct vcollect *to, const struct vcollect *from);
/* Nearest-rank percentile p (0..100]; 0 when empty. */
double vc_percentile(struct vcollect *c, double p);
void vc_free(struct vcollect *c);

#endif
