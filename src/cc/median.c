/* median.c: the recent-samples ring and its exact order statistic (see
 * median.h).
 *
 * A query asks for the k-th smallest of the newest n samples, with n that
 * moves a little from ACK to ACK (H = max(W/2, 1) follows the window). Copying
 * the newest n out and selecting cost O(n) per ACK (about 5,000 instructions
 * at n = 175); instead the values of the newest w samples are also kept
 * sorted in `win`, where w is the last query's n. A push inserts the new
 * value; a query first slides the window to n by removing its oldest samples'
 * values or adding older ones back from the ring; each insertion or removal
 * is a binary search and one memmove of the values above it. Only the
 * multiset of values matters, so removing "a value v" is the same as removing
 * that sample. The answer is win[k-1]: the value the selection gave,
 * deterministic, no allocation.
 */
#include "median.h"

#include <math.h>
#include <string.h>

void median_init(struct median_hist *m)
{
    m->head = 0;
    m->count = 0;
    m->pushed = 0;
    m->w = 0;
}

/* The first position in win whose value is not below v. */
static uint32_t win_find(const struct median_hist *m, double v)
{
    uint32_t lo = 0, hi = m->w;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->win[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void win_insert(struct median_hist *m, double v)
{
    uint32_t i = win_find(m, v);
    memmove(&m->win[i + 1], &m->win[i], (size_t)(m->w - i) * sizeof m->win[0]);
    m->win[i] = v;
    m->w++;
}

/* v is in the window (it is the value of one of its samples). */
static void win_remove(struct median_hist *m, double v)
{
    uint32_t i = win_find(m, v);
    memmove(&m->win[i], &m->win[i + 1], (size_t)(m->w - i - 1) * sizeof m->win[0]);
    m->w--;
}

/* The sample that arrived as number seq (it must still be in the ring). */
static double ring_value(const struct median_hist *m, uint64_t seq)
{
    return m->s[seq % MEDIAN_CAP];
}

void median_push(struct median_hist *m, double sample)
{
    /* the window holds the newest w samples; the ring is about to forget the
     * oldest one when full, so the window must not reach back that far */
    if (m->w == MEDIAN_CAP) {
        uint64_t oldest = m->pushed - m->w;
        win_remove(m, ring_value(m, oldest));
    }
    m->s[m->head] = sample;
    m->head = (m->head + 1) % MEDIAN_CAP;
    if (m->count < MEDIAN_CAP)
        m->count++;
    win_insert(m, sample);
    m->pushed++;
}

uint32_t median_count(const struct median_hist *m)
{
    return m->count;
}

double median_percentile(struct median_hist *m, uint32_t h, double p)
{
    uint32_t n = h < m->count ? h : m->count;
    if (n == 0)
        return 0.0;
    while (m->w > n) { /* forget the oldest samples of the window */
        uint64_t oldest = m->pushed - m->w;
        win_remove(m, ring_value(m, oldest));
    }
    while (m->w < n) { /* take older samples back from the ring */
        uint64_t older = m->pushed - m->w - 1;
        win_insert(m, ring_value(m, older));
    }
    double r = ceil(p / 100.0 * (double)n);
    uint32_t rank = r < 1 ? 1 : r > n ? n : (uint32_t)r; /* 1-based nearest rank */
    return m->win[rank - 1];
}
