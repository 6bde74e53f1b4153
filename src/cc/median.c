/* median.c: the recent-samples ring and its exact order statistic (see
 * median.h). The newest n samples are copied out and the k-th smallest is
 * found by quickselect with a median-of-three pivot: O(n) per query on
 * average, deterministic, no allocation (n <= MEDIAN_CAP).
 */
#include "median.h"

#include <math.h>

void median_init(struct median_hist *m)
{
    m->head = 0;
    m->count = 0;
}

void median_push(struct median_hist *m, double sample)
{
    m->s[m->head] = sample;
    m->head = (m->head + 1) % MEDIAN_CAP;
    if (m->count < MEDIAN_CAP)
        m->count++;
}

uint32_t median_count(const struct median_hist *m)
{
    return m->count;
}

static void swap_d(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* k-th smallest (0-based) of a[0..n-1]; reorders a. */
static double select_kth(double *a, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n - 1;
    while (hi > lo) {
        uint32_t mid = lo + (hi - lo) / 2;
        /* median of three into a[mid] */
        if (a[mid] < a[lo])
            swap_d(&a[mid], &a[lo]);
        if (a[hi] < a[lo])
            swap_d(&a[hi], &a[lo]);
        if (a[hi] < a[mid])
            swap_d(&a[hi], &a[mid]);
        double pivot = a[mid];
        /* Hoare partition */
        uint32_t i = lo, j = hi;
        for (;;) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i >= j)
                break;
            swap_d(&a[i], &a[j]);
            i++;
            j--;
        }
        /* a[lo..j] <= pivot <= a[j+1..hi] */
        if (k <= j)
            hi = j;
        else
            lo = j + 1;
    }
    return a[k];
}

double median_percentile(const struct median_hist *m, uint32_t h, double p)
{
    uint32_t n = h < m->count ? h : m->count;
    if (n == 0)
        return 0.0;
    double buf[MEDIAN_CAP];
    uint32_t idx = (m->head + MEDIAN_CAP - n) % MEDIAN_CAP;
    for (uint32_t i = 0; i < n; i++) {
        buf[i] = m->s[idx];
        idx = (idx + 1) % MEDIAN_CAP;
    }
    double r = ceil(p / 100.0 * (double)n);
    uint32_t rank = r < 1 ? 1 : r > n ? n : (uint32_t)r; /* 1-based nearest rank */
    return select_kth(buf, n, rank - 1);
}
