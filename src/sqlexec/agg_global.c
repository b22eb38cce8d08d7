/*
 * agg_global.c — the aggregate functions' fast path for a global aggregate (no group keys, as
 * ClickBench's `SELECT SUM(a), SUM(a + 1), ...` or TPC-H's q06): every row of a batch folds into
 * the one group, so count(*) and count add a number per batch and sum of an integral column folds
 * the batch into a local value (a narrow column without a check per row: an int64 cannot
 * overflow on fewer than 2^32 values of at most 32 bits), then into the state with Spark's
 * ANSI overflow check. The other functions go through agg_functions.c's per-row loops.
 *
 * Called by op_hash_aggregate.c for each batch of a Partial or Complete aggregate without keys;
 * the state row and the arena are the operator's, the columns borrowed.
 */
#include <string.h>

#include "sqlexec/sql_ops_internal.h"

/* The sum of rows [0, n) of an integral column of at most 32 bits (nulls skipped, *any set when
 * a row was valid): an int64 cannot overflow below 2^32 such rows, so the loop has no check and
 * compilers vectorize it. */
#define NARROW_SUM(NAME, T)                                                                        \
    static int64_t NAME(const cs_column *in, int64_t n, bool *any)                                 \
    {                                                                                              \
        const T *v = (const T *)(const void *)in->values;                                          \
        const uint8_t *vb = in->validity;                                                          \
        int64_t t = 0;                                                                             \
        if (!vb || in->null_count == 0) {                                                          \
            for (int64_t i = 0; i < n; i++)                                                        \
                t += v[i];                                                                         \
            *any = n > 0;                                                                          \
            return t;                                                                              \
        }                                                                                          \
        int64_t valid = 0;                                                                         \
        for (int64_t i = 0; i < n; i++) {                                                          \
            int64_t ok = cs_bit_get(vb, i);                                                        \
            t += v[i] & -ok;                                                                       \
            valid += ok;                                                                           \
        }                                                                                          \
        *any = valid > 0;                                                                          \
        return t;                                                                                  \
    }
NARROW_SUM(narrow_sum_i8, int8_t)
NARROW_SUM(narrow_sum_i16, int16_t)
NARROW_SUM(narrow_sum_i32, int32_t)

/* sum(long) of one group: a local accumulator, each addition checked under ANSI as Spark's */
static int sum_long_one(uint8_t *st, const cs_column *in, int64_t n, bool ansi, cs_error *err)
{
    const int64_t *v = (const int64_t *)(const void *)in->values;
    const uint8_t *vb = in->null_count > 0 ? in->validity : NULL;
    int64_t s;
    memcpy(&s, st, 8);
    bool any = false;
    for (int64_t i = 0; i < n; i++) {
        if (vb && !cs_bit_get(vb, i)) continue;
        any = true;
        if (!ansi)
            s = (int64_t)((uint64_t)s + (uint64_t)v[i]);
        else if (__builtin_add_overflow(s, v[i], &s))
            return cs_sql_agg_long_overflow(err);
    }
    memcpy(st, &s, 8);
    if (any) st[8] = 1;
    return CS_OK;
}

int cs_sql_agg_update_one(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *zeros,
                          const cs_column *in, const cs_column *in2, int64_t n, bool ansi,
                          cs_sql_arena *arena, cs_error *err)
{
    uint8_t *st = states + a->state_off;
    ansi = ansi && !a->never_ansi;
    if (a->impl >= CS_SQL_AGG_IMPL_EXT) /* try_sum of integers, the statistical ones, ... */
        return cs_sql_agg_update_rows(a, states, stride, zeros, in, in2, 0, n, ansi, arena, err);
    if (a->fn == CS_AGG_COUNT_STAR) {
        *(int64_t *)(void *)st += n;
        return CS_OK;
    }
    if (a->fn == CS_AGG_COUNT && in->type->id != CS_TYPE_NULL) {
        int64_t nulls = in->validity ? in->null_count : 0;
        *(int64_t *)(void *)st += n - nulls;
        return CS_OK;
    }
    if (a->fn == CS_AGG_SUM && a->result_type->id == CS_TYPE_LONG) { /* of an integral */
        int64_t (*narrow)(const cs_column *, int64_t, bool *) =
            in->type->id == CS_TYPE_BYTE    ? narrow_sum_i8
            : in->type->id == CS_TYPE_SHORT ? narrow_sum_i16
            : in->type->id == CS_TYPE_INT   ? narrow_sum_i32
                                            : NULL;
        if (!narrow) return sum_long_one(st, in, n, ansi, err);
        bool any;
        int64_t t = narrow(in, n, &any), s;
        if (!any) return CS_OK;
        memcpy(&s, st, 8);
        if (!ansi)
            s = (int64_t)((uint64_t)s + (uint64_t)t);
        else if (__builtin_add_overflow(s, t, &s))
            return cs_sql_agg_long_overflow(err);
        memcpy(st, &s, 8);
        st[8] = 1;
        return CS_OK;
    }
    return cs_sql_agg_update_rows(a, states, stride, zeros, in, in2, 0, n, ansi, arena, err);
}
