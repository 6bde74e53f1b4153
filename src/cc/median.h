/* median.h: "median of the last H samples" for the median-based congestion
 * controls of seed 004 (Sec. III-A to III-C): MSwift keeps the delays of its
 * recent ACKs here and decides on their median (or another percentile,
 * Fig. 12's P10 and P90 variants); MNSCC does the same with NSCC's delays.
 *
 * A fixed ring of MEDIAN_CAP samples; percentile(H, p) is the exact
 * nearest-rank order statistic of the newest min(H, samples seen) samples:
 * the ceil(p/100 x n)-th smallest (at least the first). For p = 50 and even n
 * that is the lower median, so a tie between congested and uncongested
 * samples (e.g. [low, low, high, high]) reads as uncongested, in the spirit
 * of seed 004's Thm. 6 (the uncongested majority prevails).
 * No allocation; the same samples always give the same answer.
 */
#ifndef SPRAYSIM_MEDIAN_H
#define SPRAYSIM_MEDIAN_H

#include <stdint.h>

/* Largest history kept. Seed 004's H = max(W/2, 1) (Eq. 8) stays below this
 * up to windows of 2048 packets (8 MB of 4 KB packets: 160 BDPs of the
 * 100 Gb/s default network); a larger H is clamped to it. 16 KB per flow
 * (the ring and the sorted window, median.c). */
#define MEDIAN_CAP 1024u

struct median_hist {
    double s[MEDIAN_CAP];
    uint32_t head;    /* next slot written */
    uint32_t count;   /* samples held, <= MEDIAN_CAP */
    uint64_t pushed;  /* samples ever pushed: the next arrival number */
    uint32_t w;       /* the values of the newest w samples are also in win, sorted */
    double win[MEDIAN_CAP];
};

void median_init(struct median_hist *m);
void median_push(struct median_hist *m, double sample);
/* Samples held (at most MEDIAN_CAP). */
uint32_t median_count(const struct median_hist *m);
/* The p-th percentile (0 < p <= 100; p <= 0 gives the minimum) of the newest
 * min(h, count) samples, h >= 1; 0.0 when no sample was pushed yet. */
double median_percentile(struct median_hist *m, uint32_t h, double p);

#endif
