/*
 * agg_quantiles.c — Spark's QuantileSummaries (Greenwald-Khanna, as ApproximatePercentile's
 * PercentileDigest uses it) for agg_functions_ext.c's percentile_approx: a head buffer of up to
 * 50000 values inserted sorted into the samples, compressed (Spark's compressImmut, here in
 * place) once 10000 samples are held, merges of compressed summaries with Spark's extra deltas,
 * and Spark's query. Arrays live in the aggregate's arena and grow geometrically; the insert
 * works into a second array swapped with the first, so the garbage stays bounded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/sql_ops_internal.h"

#define GK_HEAD 50000
#define GK_COMPRESS 10000

void cs_sql_gk_reserve(cs_sql_gk_stat **p, int64_t *cap, int64_t n, cs_sql_arena *arena,
                       int64_t keep)
{
    if (n <= *cap) return;
    int64_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    cs_sql_gk_stat *q = cs_sql_arena_alloc(arena, (size_t)c * sizeof *q);
    if (keep) memcpy(q, *p, (size_t)keep * sizeof *q);
    *p = q;
    *cap = c;
}

/* java.lang.Double.compare: -0.0 < 0.0, NaN greatest. */
static int jcmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    if (a < b) return -1;
    if (a > b) return 1;
    int64_t ba, bb;
    double ca = isnan(a) ? NAN : a, cb = isnan(b) ? NAN : b;
    memcpy(&ba, &ca, 8);
    memcpy(&bb, &cb, 8);
    return (ba > bb) - (ba < bb);
}

static void gk_swap(cs_sql_digest *d)
{
    cs_sql_gk_stat *t = d->s;
    int64_t c = d->scap;
    d->s = d->tmp;
    d->scap = d->tcap;
    d->tmp = t;
    d->tcap = c;
}

static void gk_insert_head(cs_sql_digest *d, cs_sql_arena *arena)
{
    if (d->nhead == 0) return;
    qsort(d->head, (size_t)d->nhead, sizeof *d->head, jcmp);
    cs_sql_gk_reserve(&d->tmp, &d->tcap, d->ns + d->nhead, arena, 0);
    int64_t cur = d->count, si = 0, k = 0;
    for (int64_t op = 0; op < d->nhead; op++) {
        double x = d->head[op];
        while (si < d->ns && d->s[si].v <= x)
            d->tmp[k++] = d->s[si++];
        cur++;
        int64_t delta = k == 0 || (si == d->ns && op == d->nhead - 1)
                            ? 0
                            : (int64_t)floor(2 * d->rel * (double)cur);
        d->tmp[k++] = (cs_sql_gk_stat){x, 1, delta};
    }
    while (si < d->ns)
        d->tmp[k++] = d->s[si++];
    gk_swap(d);
    d->ns = k;
    d->count = cur;
    d->nhead = 0;
}

/* Spark's compressImmut, in place. */
static void gk_compress_samples(cs_sql_gk_stat *s, int64_t *ns, double threshold)
{
    int64_t n = *ns;
    if (n == 0) return;
    cs_sql_gk_stat head = s[n - 1];
    int64_t w = n;
    for (int64_t i = n - 2; i >= 1; i--) {
        cs_sql_gk_stat s1 = s[i];
        if ((double)(s1.g + head.g + head.delta) < threshold) {
            head.g += s1.g;
        } else {
            s[--w] = head;
            head = s1;
        }
    }
    cs_sql_gk_stat first = s[0];
    s[--w] = head;
    if (first.v <= head.v && n > 1) s[--w] = first;
    memmove(s, s + w, (size_t)(n - w) * sizeof *s);
    *ns = n - w;
}

static void gk_compress(cs_sql_digest *d, cs_sql_arena *arena)
{
    gk_insert_head(d, arena);
    gk_compress_samples(d->s, &d->ns, 2 * d->rel * (double)d->count);
    d->compressed = true;
}

void cs_sql_gk_add(cs_sql_digest *d, double x, cs_sql_arena *arena)
{
    if (d->nhead == d->headcap) {
        int64_t c = d->headcap ? 2 * d->headcap : 64;
        if (c > GK_HEAD) c = GK_HEAD;
        double *h = cs_sql_arena_alloc(arena, (size_t)c * sizeof *h);
        if (d->nhead) memcpy(h, d->head, (size_t)d->nhead * sizeof *h);
        d->head = h;
        d->headcap = c;
    }
    d->head[d->nhead++] = x;
    d->compressed = false;
    if (d->nhead >= GK_HEAD) {
        gk_insert_head(d, arena);
        if (d->ns >= GK_COMPRESS) gk_compress(d, arena);
    }
}

/* Merges the compressed summary (rel, count, s[0..ns)) into d (Spark's PercentileDigest.merge). */
void cs_sql_gk_merge(cs_sql_digest *d, double orel, int64_t ocount, const cs_sql_gk_stat *os,
                     int64_t ons, cs_sql_arena *arena)
{
    if (!d->compressed) gk_compress(d, arena);
    if (ocount == 0) return;
    if (d->count == 0) {
        cs_sql_gk_reserve(&d->s, &d->scap, ons, arena, 0);
        memcpy(d->s, os, (size_t)ons * sizeof *os);
        d->ns = ons;
        d->count = ocount;
        d->rel = orel;
        return;
    }
    double mrel = d->rel > orel ? d->rel : orel;
    int64_t mcount = d->count + ocount;
    int64_t add_self = (int64_t)floor(2 * orel * (double)ocount);
    int64_t add_other = (int64_t)floor(2 * d->rel * (double)d->count);
    cs_sql_gk_reserve(&d->tmp, &d->tcap, d->ns + ons, arena, 0);
    int64_t i = 0, j = 0, k = 0;
    while (i < d->ns && j < ons) {
        if (d->s[i].v < os[j].v) {
            d->tmp[k] = d->s[i++];
            d->tmp[k++].delta += j > 0 ? add_self : 0;
        } else {
            d->tmp[k] = os[j++];
            d->tmp[k++].delta += i > 0 ? add_other : 0;
        }
    }
    while (i < d->ns)
        d->tmp[k++] = d->s[i++];
    while (j < ons)
        d->tmp[k++] = os[j++];
    gk_swap(d);
    d->ns = k;
    gk_compress_samples(d->s, &d->ns, 2 * mrel * (double)mcount);
    d->rel = mrel;
    d->count = mcount;
    d->compressed = true;
}

/* A compressed copy of d in scratch (Spark compresses before it serializes or queries; the
 * state itself may still take rows: window frames evaluate as they go). */
void cs_sql_gk_compressed_copy(const cs_sql_digest *d, cs_sql_digest *c, cs_sql_arena *scratch)
{
    *c = *d;
    c->head = NULL;
    c->headcap = 0;
    c->s = c->tmp = NULL;
    c->scap = c->tcap = 0;
    cs_sql_gk_reserve(&c->s, &c->scap, d->ns, scratch, 0);
    if (d->ns) memcpy(c->s, d->s, (size_t)d->ns * sizeof *c->s);
    if (d->nhead) {
        c->head = cs_sql_arena_alloc(scratch, (size_t)d->nhead * sizeof *c->head);
        memcpy(c->head, d->head, (size_t)d->nhead * sizeof *c->head);
        c->headcap = d->nhead;
    }
    if (!c->compressed) gk_compress(c, scratch);
}

double cs_sql_gk_query(const cs_sql_digest *d, double q)
{
    if (q <= d->rel) return d->s[0].v;
    if (q >= 1 - d->rel) return d->s[d->ns - 1].v;
    int64_t rank = (int64_t)ceil(q * (double)d->count);
    int64_t target = INT64_MIN;
    for (int64_t i = 0; i < d->ns; i++)
        if (d->s[i].delta + d->s[i].g > target) target = d->s[i].delta + d->s[i].g;
    target /= 2;
    int64_t min_rank = 0;
    for (int64_t i = 0; i < d->ns - 1; i++) {
        min_rank += d->s[i].g;
        int64_t max_rank = min_rank + d->s[i].delta;
        if (max_rank - target <= rank && rank <= min_rank + target) return d->s[i].v;
    }
    return d->s[d->ns - 1].v;
}
