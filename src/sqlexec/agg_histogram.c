/*
 * agg_histogram.c — Spark's NumericHistogram (Ben-Haim and Tom-Tov's streaming histogram, as
 * histogram_numeric keeps it) for agg_functions_ext.c: at most nbins bins (x, y) sorted by x;
 * a value equal to a bin's x counts in it, any other is a new bin, and while there are more than
 * nbins the two adjacent bins closest in x merge into their weighted mean (Spark picks among
 * equally close pairs at random; here the first). Merging appends the other histogram's bins,
 * sorts and trims the same way. The wire form (the aggregate's binary buffer) is nbins as a
 * little-endian int32, then each bin's x and y as doubles.
 *
 * Bins live in the aggregate's arena (geometric growth); nothing here frees.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/sql_error.h"
#include "sqlexec/sql_ops_internal.h"

cs_sql_hist *cs_sql_hist_of(uint8_t *st, int nbins, cs_sql_arena *arena)
{
    cs_sql_hist *h;
    memcpy(&h, st, sizeof h);
    if (!h) {
        h = cs_sql_arena_alloc(arena, sizeof *h);
        memset(h, 0, sizeof *h);
        h->nbins = nbins;
        memcpy(st, &h, sizeof h);
    }
    return h;
}

static void reserve(cs_sql_hist *h, int n, cs_sql_arena *arena)
{
    if (n <= h->cap) return;
    int cap = h->cap ? 2 * h->cap : 8;
    while (cap < n)
        cap *= 2;
    double *x = cs_sql_arena_alloc(arena, sizeof *x * (size_t)cap);
    double *y = cs_sql_arena_alloc(arena, sizeof *y * (size_t)cap);
    if (h->n) {
        memcpy(x, h->x, sizeof *x * (size_t)h->n);
        memcpy(y, h->y, sizeof *y * (size_t)h->n);
    }
    h->x = x;
    h->y = y;
    h->cap = cap;
}

/* merges the closest adjacent bins until at most nbins remain */
static void trim(cs_sql_hist *h)
{
    while (h->n > h->nbins && h->n > 1) {
        int at = 0;
        double best = h->x[1] - h->x[0];
        for (int i = 1; i < h->n - 1; i++)
            if (h->x[i + 1] - h->x[i] < best) {
                best = h->x[i + 1] - h->x[i];
                at = i;
            }
        double d = h->y[at] + h->y[at + 1];
        h->x[at] *= h->y[at] / d;
        h->x[at] += h->x[at + 1] / d * h->y[at + 1];
        h->y[at] = d;
        memmove(h->x + at + 1, h->x + at + 2, sizeof *h->x * (size_t)(h->n - at - 2));
        memmove(h->y + at + 1, h->y + at + 2, sizeof *h->y * (size_t)(h->n - at - 2));
        h->n--;
    }
}

void cs_sql_hist_add(cs_sql_hist *h, double v, cs_sql_arena *arena)
{
    int l = 0, r = h->n;
    while (l < r) {
        int m = (l + r) / 2;
        if (h->x[m] > v) {
            r = m;
        } else if (h->x[m] < v) {
            l = m + 1;
        } else {
            h->y[m] += 1;
            return;
        }
    }
    reserve(h, h->n + 1, arena);
    memmove(h->x + l + 1, h->x + l, sizeof *h->x * (size_t)(h->n - l));
    memmove(h->y + l + 1, h->y + l, sizeof *h->y * (size_t)(h->n - l));
    h->x[l] = v;
    h->y[l] = 1;
    h->n++;
    trim(h);
}

typedef struct bin {
    double x, y;
} bin;

static int cmp_bin(const void *a, const void *b)
{
    double x = ((const bin *)a)->x, y = ((const bin *)b)->x;
    return (x > y) - (x < y);
}

int cs_sql_hist_merge(cs_sql_hist *h, const uint8_t *buf, int32_t len, cs_sql_arena *arena,
                      cs_error *err)
{
    int32_t nb;
    if (len < 4 || (len - 4) % 16 != 0)
        return cs_error_set(err, CS_EINVAL, "histogram_numeric: a buffer of %d bytes", (int)len);
    memcpy(&nb, buf, 4);
    int on = (len - 4) / 16;
    if (on == 0) return CS_OK;
    if (h->nbins <= 0) h->nbins = nb;
    bin *all = cs_xmalloc(sizeof *all * (size_t)(h->n + on));
    for (int i = 0; i < h->n; i++)
        all[i] = (bin){h->x[i], h->y[i]};
    for (int i = 0; i < on; i++) {
        memcpy(&all[h->n + i].x, buf + 4 + 16 * i, 8);
        memcpy(&all[h->n + i].y, buf + 12 + 16 * i, 8);
    }
    int n = h->n + on;
    qsort(all, (size_t)n, sizeof *all, cmp_bin);
    reserve(h, n, arena);
    for (int i = 0; i < n; i++) {
        h->x[i] = all[i].x;
        h->y[i] = all[i].y;
    }
    h->n = n;
    free(all);
    trim(h);
    return CS_OK;
}

void cs_sql_hist_bytes(const cs_sql_hist *h, int nbins, cs_sbuf *out)
{
    int32_t nb = h ? h->nbins : nbins;
    out->len = 0;
    cs_sbuf_append(out, &nb, 4);
    for (int i = 0; h && i < h->n; i++) {
        cs_sbuf_append(out, &h->x[i], 8);
        cs_sbuf_append(out, &h->y[i], 8);
    }
}
