/*
 * window_frames.c — the frames and the ranking and value functions of the Window operator
 * (op_window.c), over one window partition of a chunk of closed partitions: a row's frame
 * [lo, hi) for ROWS and RANGE bounds (RANGE offsets over a single numeric, decimal, date or
 * timestamp order key, DESC flipping the offset's sign and NULL keys framing their NULL peers, as
 * Spark's RangeBoundOrdering); row_number, rank, dense_rank, percent_rank, cume_dist and ntile
 * over the order keys' peers; and the row whose value lag / lead / nth_value / first_value /
 * last_value takes (ignore nulls too). Called by op_window.c on the task's thread; every argument
 * is borrowed for the call, result columns are new references of the caller's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/window_internal.h"

typedef __int128 i128;

/* ---- frames ---- */

static i128 okey_int(const cs_column *c, int64_t i)
{
    if (c->type->id != CS_TYPE_DECIMAL) return cs_sql_long_at(c, i);
    i128 x;
    memcpy(&x, c->values + 16 * i, 16);
    return x;
}

/* A bound: row i's key plus an offset (the offset's sign flipped for DESC). */
typedef struct bound {
    bool null;
    i128 iv;
    double dv;
} bound;

static bound make_bound(const cs_sql_win_okey *k, int64_t i, i128 ioff, double doff)
{
    bound b = {0};
    if (!cs_column_is_valid(k->c, i)) {
        b.null = true;
        return b;
    }
    if (k->is_double)
        b.dv = cs_sql_double_at(k->c, i) + (k->desc ? -doff : doff);
    else
        b.iv = okey_int(k->c, i) + (k->desc ? -ioff : ioff);
    return b;
}

/* Row j's key against a bound in the window's ordering (<0: j comes first). */
static int cmp_bound(const cs_sql_win_okey *k, int64_t j, const bound *b)
{
    bool jn = !cs_column_is_valid(k->c, j);
    if (jn || b->null) {
        if (jn && b->null) return 0;
        return (jn ? -1 : 1) * (k->nulls_first ? 1 : -1);
    }
    int r;
    if (k->is_double) {
        double x = cs_sql_double_at(k->c, j), y = b->dv;
        if (isnan(x) || isnan(y))
            r = isnan(x) - isnan(y);
        else
            r = (x > y) - (x < y);
    } else {
        i128 x = okey_int(k->c, j);
        r = (x > b->iv) - (x < b->iv);
    }
    return k->desc ? -r : r;
}

/* First row of [lo, hi) whose key compares > 0 (strict) or >= 0 to the bound. */
static int64_t search(const cs_sql_win_okey *k, int64_t lo, int64_t hi, const bound *b, bool strict)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int r = cmp_bound(k, mid, b);
        if (strict ? r <= 0 : r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static i128 offset_int(const cs_column *c, int64_t dflt, int order_scale)
{
    if (!c) return dflt;
    i128 v = okey_int(c, 0);
    if (c->type->id == CS_TYPE_DECIMAL)
        for (int s = c->type->scale; s < order_scale; s++)
            v *= 10;
    return v;
}

/* Row i's frame [*lo, *hi) in the partition. */
void cs_sql_win_frame(const cs_sql_win_fn *fn, const cs_sql_win_part *pc, int64_t i, int64_t *lo,
                      int64_t *hi)
{
    const cs_window_frame *fr = &fn->f.frame;
    int scale = pc->ok.c && pc->ok.c->type->id == CS_TYPE_DECIMAL ? pc->ok.c->type->scale : 0;
    for (int side = 0; side < 2; side++) {
        cs_win_bound_kind kind = side == 0 ? fr->lower_kind : fr->upper_kind;
        int64_t off = side == 0 ? fr->lower : fr->upper;
        int64_t r;
        if (kind == CS_WB_UNBOUNDED_PRECEDING) {
            r = pc->p0;
        } else if (kind == CS_WB_UNBOUNDED_FOLLOWING) {
            r = pc->p1;
        } else if (kind == CS_WB_CURRENT_ROW) {
            r = fr->range ? (side == 0 ? pc->peer_first[i] : pc->peer_end[i]) : i + side;
        } else if (!fr->range) {
            r = i + off + side;
            r = r < pc->p0 ? pc->p0 : r > pc->p1 ? pc->p1 : r;
        } else {
            const cs_column *oc = side == 0 ? fr->lower_value : fr->upper_value;
            i128 ioff = offset_int(oc, off, scale);
            double doff = oc ? (oc->type->id == CS_TYPE_DECIMAL
                                    ? (double)okey_int(oc, 0) / pow(10, oc->type->scale)
                                    : (double)okey_int(oc, 0))
                             : (double)off;
            bound b = make_bound(&pc->ok, i, ioff, doff);
            r = search(&pc->ok, pc->p0, pc->p1, &b, side == 1);
        }
        if (side == 0)
            *lo = r;
        else
            *hi = r;
    }
    if (*hi < *lo) *hi = *lo;
}

/* ---- the functions over one chunk ---- */

static cs_column *fixed_column(cs_col_type *t, const void *v, const uint8_t *valid, int64_t n,
                               cs_col_allocator *alloc)
{
    cs_col_builder *b = cs_col_builder_new(alloc, t);
    cs_col_builder_append_values(b, v, n, valid);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

/* Ranking functions: a column of n rows of the function's type (int, bigint or double). */
cs_column *cs_sql_win_ranking(const cs_sql_win_fn *fn, const cs_sql_win_part *pcs, int npc,
                              int64_t n, cs_col_allocator *alloc)
{
    bool dbl = fn->f.type->id == CS_TYPE_DOUBLE, lng = fn->f.type->id == CS_TYPE_LONG;
    void *v = cs_xmalloc((size_t)(n > 0 ? n : 1) * 8);
    for (int p = 0; p < npc; p++) {
        const cs_sql_win_part *pc = &pcs[p];
        int64_t size = pc->p1 - pc->p0, dense = 0;
        for (int64_t i = pc->p0; i < pc->p1; i++) {
            int64_t r = i - pc->p0; /* 0-based row in the partition */
            if (pc->peer_start[i] || i == pc->p0) dense++;
            double d = 0;
            int64_t x = 0;
            switch (fn->f.kind) {
            case CS_WIN_ROW_NUMBER:
                x = r + 1;
                break;
            case CS_WIN_RANK:
                x = pc->peer_first[i] - pc->p0 + 1;
                break;
            case CS_WIN_DENSE_RANK:
                x = dense;
                break;
            case CS_WIN_PERCENT_RANK:
                d = size > 1 ? (double)(pc->peer_first[i] - pc->p0) / (double)(size - 1) : 0.0;
                break;
            case CS_WIN_CUME_DIST:
                d = (double)(pc->peer_end[i] - pc->p0) / (double)size;
                break;
            default: { /* ntile: the first size % n buckets hold one row more */
                int64_t buckets = fn->f.offset, bsize = size / buckets, rem = size % buckets;
                int64_t big = rem * (bsize + 1);
                x = r < big ? r / (bsize + 1) + 1 : rem + (r - big) / (bsize ? bsize : 1) + 1;
                break;
            }
            }
            bool frac = fn->f.kind == CS_WIN_PERCENT_RANK || fn->f.kind == CS_WIN_CUME_DIST;
            if (dbl)
                ((double *)v)[i] = frac ? d : (double)x;
            else if (lng)
                ((int64_t *)v)[i] = x;
            else
                ((int32_t *)v)[i] = (int32_t)x;
        }
    }
    cs_column *c = fixed_column(fn->f.type, v, NULL, n, alloc);
    free(v);
    return c;
}

/* Value functions: ridx[i] = the chunk row whose value row i takes (-1: null, -2: the
 * default). */
void cs_sql_win_value_rows(const cs_sql_win_fn *fn, const cs_column *in, const cs_sql_win_part *pc,
                           int32_t *ridx, int64_t *nn)
{
    bool ign = fn->f.ignore_nulls;
    cs_window_fn_kind kind = fn->f.kind;
    if (kind == CS_WIN_LAG || kind == CS_WIN_LEAD) {
        int64_t d = kind == CS_WIN_LEAD ? fn->f.offset : -fn->f.offset;
        if (!ign || d == 0) {
            for (int64_t i = pc->p0; i < pc->p1; i++) {
                int64_t j = i + d;
                ridx[i] = j >= pc->p0 && j < pc->p1 ? (int32_t)j : -2;
            }
            return;
        }
        /* ignore nulls: nn[] lists the partition's non-null rows; row i takes the d-th of
         * them after it (lead) or the |d|-th before it (lag) */
        int64_t cnt = 0, at = 0; /* non-null rows listed; of them, rows <= i (lead) or < i */
        for (int64_t j = pc->p0; j < pc->p1; j++)
            if (cs_column_is_valid(in, j)) nn[cnt++] = j;
        for (int64_t i = pc->p0; i < pc->p1; i++) {
            if (d > 0) {
                while (at < cnt && nn[at] <= i)
                    at++;
                int64_t t = at + d - 1;
                ridx[i] = t < cnt ? (int32_t)nn[t] : -2;
            } else {
                while (at < cnt && nn[at] < i)
                    at++;
                int64_t t = at + d;
                ridx[i] = t >= 0 ? (int32_t)nn[t] : -2;
            }
        }
        return;
    }
    int64_t plo = -1, phi = -1;
    int32_t prev = -1;
    for (int64_t i = pc->p0; i < pc->p1; i++) {
        int64_t lo, hi;
        cs_sql_win_frame(fn, pc, i, &lo, &hi);
        if (lo == plo && hi == phi) {
            ridx[i] = prev;
            continue;
        }
        int32_t r = -1;
        if (kind == CS_WIN_FIRST_VALUE || kind == CS_WIN_NTH_VALUE) {
            int64_t want = kind == CS_WIN_NTH_VALUE ? fn->f.offset : 1;
            for (int64_t j = lo, seen = 0; j < hi; j++) {
                if (ign && !cs_column_is_valid(in, j)) continue;
                if (++seen == want) {
                    r = (int32_t)j;
                    break;
                }
            }
        } else { /* last_value */
            for (int64_t j = hi - 1; j >= lo; j--)
                if (!ign || cs_column_is_valid(in, j)) {
                    r = (int32_t)j;
                    break;
                }
        }
        ridx[i] = prev = r;
        plo = lo;
        phi = hi;
    }
}
