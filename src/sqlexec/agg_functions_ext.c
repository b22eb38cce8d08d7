/*
 * agg_functions_ext.c — the statistical, collecting and sketching aggregates of the hash
 * aggregate and the window, in agg_functions.c's frame (bind, update, merge, export, evaluate
 * over state rows; agg_functions.c dispatches here for impl >= CS_SQL_AGG_IMPL_EXT):
 *
 *   stddev_samp / stddev_pop / var_samp / var_pop   Spark's CentralMomentAgg: buffers n, avg, m2
 *       (doubles) updated and merged with Spark's formulas in Spark's order of operations, so
 *       results are the same doubles; a sample statistic of one row is null (Spark 4's
 *       nullOnDivideByZero).
 *   covar_samp / covar_pop / corr   Spark's Covariance (n, xAvg, yAvg, ck) and
 *       PearsonCorrelation (+ xMk, yMk) over rows where both inputs are non-null; the regr_*
 *       aggregates (y, x) evaluate corr's state (slope = covar_pop / var_pop(x), intercept,
 *       r2, sxx, syy, sxy, avgx, avgy; null where Spark's divide by a zero variance).
 *   max_by / min_by   Spark's MaxMinBy: buffers valueWithExtremumOrdering, extremumOrdering; a
 *       later row with an equal ordering wins; null orderings are skipped.
 *   collect_list / collect_set   non-null values in arrival order (the set without repeats: a
 *       hash of the value's bytes per group); buffer and result array<T> (containsNull false).
 *   approx_count_distinct   Spark's HyperLogLogPlusPlus: p = ceil(2 log2(1.106 / rsd)), each
 *       value hashed with Spark's xxhash64 (seed 42), register index the hash's top p bits, rank
 *       the leading zeros of the rest; the estimate is Spark's (linear counting under
 *       THRESHOLDS[p - 4], else the raw estimate, bias-corrected under 5m from Spark's
 *       empirical tables of agg_hll.c). The buffer is one binary column
 *       of the m registers (Spark packs them into m / 10 + 1 longs).
 *   skewness / kurtosis   CentralMomentAgg of order 3 / 4 (buffers n, avg, m2, m3[, m4]);
 *       null when m2 is 0 (Spark 4's nullOnDivideByZero).
 *   bit_and / bit_or / bit_xor   over integral types, the argument's type; null when empty.
 *   try_sum of integral types   a long sum whose overflow makes the result null (buffers sum,
 *       isEmpty: a null sum of a non-empty buffer has overflowed); of floats and decimals it is
 *       agg_functions.c's sum that never raises.
 *   percentile (exact) / mode   collect the values as collect_list does (the buffer is the
 *       array of values) and evaluate over them sorted: percentile interpolates between the
 *       values at floor and ceil of (n - 1) * p as Spark's Percentile (a double, or an array
 *       of doubles for an array of percentages; percentile_disc the first value whose
 *       cumulative share reaches p); mode is the most frequent value, the smallest
 *       of those tied (Spark leaves ties to its hash map's order).
 *   histogram_numeric   Spark's NumericHistogram (agg_histogram.c); the buffer is its wire
 *       form (binary), the result array<struct<x, y>> with x of the argument's type.
 *   percentile_approx   Spark's ApproximatePercentile: a PercentileDigest of QuantileSummaries
 *       (Greenwald-Khanna; head buffer of 50000, compress threshold 10000, relative error
 *       1 / accuracy) with Spark's insert, compress, merge and query, the result cast back to
 *       the argument's type (truncation, as Spark's toInt / toLong). The buffer is one binary
 *       column: the compressed summary (relative error, count, then value, g, delta triples).
 *   schema_of_variant_agg   Spark's SchemaOfVariantAgg (agg_variant.c); the buffer is the
 *       merged schema's byte form (binary), the result its text.
 *
 * The state arithmetic of the moments, covariance and correlation lives in agg_moments.c, the
 * value-collecting aggregates (collect_list / collect_set, percentile, mode) in agg_collect.c,
 * NumericHistogram in agg_histogram.c, QuantileSummaries in agg_quantiles.c, HLL++ in agg_hll.c.
 *
 * Variable state (collect vectors, digests) lives in the operator's arena (charged to the
 * task) behind a pointer in the state row; growth is geometric, so the arena's garbage stays
 * below the live size.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/sql_error.h"
#include "sqlexec/sql_ops_internal.h"

enum {
    X_MOMENT = CS_SQL_AGG_IMPL_EXT,
    X_COVAR,
    X_CORR,
    X_MAXBY,
    X_MINBY,
    X_COLLECT_LIST,
    X_COLLECT_SET,
    X_HLL,
    X_PCT,
    X_ISUM, /* sum of an ANSI interval */
    X_IAVG, /* avg of an ANSI interval */
    X_BIT,
    X_TRYSUM,
    X_PERCENTILE,
    X_MODE,
    X_HIST,
    X_VSCHEMA, /* agg_variant.c */
};

static bool numeric_id(cs_type_id id)
{
    return id == CS_TYPE_BYTE || id == CS_TYPE_SHORT || id == CS_TYPE_INT || id == CS_TYPE_LONG ||
           id == CS_TYPE_FLOAT || id == CS_TYPE_DOUBLE || id == CS_TYPE_DECIMAL;
}

/* ---- binding ---- */

static const char *const moment_names[] = {"n", "avg", "m2", "m3", "m4"};
static const char *const corr_names[] = {"n", "xAvg", "yAvg", "ck", "xMk", "yMk"};

int cs_sql_agg_ext_bind(cs_sql_agg *a, const cs_agg_spec *spec, cs_error *err)
{
    cs_agg_fn fn = spec->fn;
    const cs_col_type *t = spec->arg_type, *t2 = spec->arg2_type;
    cs_col_type *dbl = cs_col_type_primitive(CS_TYPE_DOUBLE);
    cs_col_type *bin = cs_col_type_primitive(CS_TYPE_BINARY);
    switch (fn) {
    case CS_AGG_SUM:
    case CS_AGG_AVG: /* intervals only: numbers are agg_functions.c's */
        if (!t || (t->id != CS_TYPE_INTERVAL_YM && t->id != CS_TYPE_INTERVAL_DT)) return 0;
        a->impl = fn == CS_AGG_SUM ? X_ISUM : X_IAVG;
        a->n_buf = fn == CS_AGG_SUM ? 1 : 2;
        /* sum keeps the argument's fields; avg's sum and result span the whole kind (Spark's
         * YearMonthIntervalType() / DayTimeIntervalType()) */
        a->result_type =
            fn == CS_AGG_SUM
                ? cs_col_type_ref((cs_col_type *)t)
                : cs_col_type_interval(t->id, 0, t->id == CS_TYPE_INTERVAL_YM ? 1 : 3, NULL);
        a->buf_types[0] = cs_col_type_ref(a->result_type);
        a->buf_names[0] = "sum";
        if (fn == CS_AGG_AVG) {
            a->buf_types[1] = cs_col_type_primitive(CS_TYPE_LONG);
            a->buf_names[1] = "count";
        }
        a->state_size = 16; /* sum, then has (sum) or count (avg) */
        return 1;
    case CS_AGG_STDDEV_SAMP:
    case CS_AGG_STDDEV_POP:
    case CS_AGG_VAR_SAMP:
    case CS_AGG_VAR_POP:
    case CS_AGG_SKEWNESS:
    case CS_AGG_KURTOSIS:
    case CS_AGG_CORR:
    case CS_AGG_COVAR_SAMP:
    case CS_AGG_COVAR_POP:
    case CS_AGG_REGR_SLOPE:
    case CS_AGG_REGR_INTERCEPT:
    case CS_AGG_REGR_R2:
    case CS_AGG_REGR_SXX:
    case CS_AGG_REGR_SYY:
    case CS_AGG_REGR_SXY:
    case CS_AGG_REGR_AVGX:
    case CS_AGG_REGR_AVGY: {
        bool two = cs_agg_takes_two_inputs(fn);
        bool regr = fn >= CS_AGG_REGR_SLOPE && fn <= CS_AGG_REGR_AVGY;
        if (!t || !numeric_id(t->id)) return cs_sql_agg_bad_arg(fn, t, err), -1;
        if (two && (!t2 || !numeric_id(t2->id))) return cs_sql_agg_bad_arg(fn, t2, err), -1;
        a->impl = !two ? X_MOMENT : fn == CS_AGG_CORR || regr ? X_CORR : X_COVAR;
        a->n_buf = a->impl == X_MOMENT  ? (fn == CS_AGG_SKEWNESS   ? 4
                                           : fn == CS_AGG_KURTOSIS ? 5
                                                                   : 3)
                   : a->impl == X_COVAR ? 4
                                        : 6;
        for (int i = 0; i < a->n_buf; i++) {
            a->buf_types[i] = dbl;
            a->buf_names[i] = a->impl == X_MOMENT ? moment_names[i] : corr_names[i];
        }
        a->result_type = dbl;
        a->state_size = 8 * a->n_buf;
        return 1;
    }
    case CS_AGG_BIT_AND:
    case CS_AGG_BIT_OR:
    case CS_AGG_BIT_XOR:
    case CS_AGG_TRY_SUM:
        if (!t || !(t->id == CS_TYPE_BYTE || t->id == CS_TYPE_SHORT || t->id == CS_TYPE_INT ||
                    t->id == CS_TYPE_LONG)) {
            if (fn == CS_AGG_TRY_SUM) return 0; /* agg_functions.c's sum */
            return cs_sql_agg_bad_arg(fn, t, err), -1;
        }
        a->impl = fn == CS_AGG_TRY_SUM ? X_TRYSUM : X_BIT;
        a->result_type = fn == CS_AGG_TRY_SUM ? cs_col_type_primitive(CS_TYPE_LONG)
                                              : cs_col_type_ref((cs_col_type *)t);
        a->buf_types[0] = cs_col_type_ref(a->result_type);
        a->buf_names[0] = fn == CS_AGG_TRY_SUM ? "sum" : "bits";
        a->n_buf = 1;
        if (fn == CS_AGG_TRY_SUM) {
            a->buf_types[1] = cs_col_type_primitive(CS_TYPE_BOOLEAN);
            a->buf_names[1] = "isEmpty";
            a->n_buf = 2;
        }
        a->state_size = 16; /* the value as a long, has, overflowed */
        return 1;
    case CS_AGG_PERCENTILE:
    case CS_AGG_PERCENTILE_DISC:
    case CS_AGG_MODE:
        if (fn == CS_AGG_PERCENTILE_DISC) fn = CS_AGG_PERCENTILE; /* the same buffers */
        if (fn == CS_AGG_PERCENTILE && (!t || !numeric_id(t->id)))
            return cs_sql_agg_bad_arg(fn, t, err), -1;
        if (!t || !cs_sql_key_type_ok(t) || t->id == CS_TYPE_NULL)
            return cs_sql_agg_bad_arg(fn, t, err), -1;
        if (fn == CS_AGG_PERCENTILE) {
            int np = spec->n_percentages > 0 ? spec->n_percentages : 1;
            for (int i = 0; i < spec->n_percentages; i++)
                if (!(spec->percentages[i] >= 0 && spec->percentages[i] <= 1)) {
                    cs_error_set(err, CS_EINVAL,
                                 "percentile: the percentage %g must be between 0.0 and 1.0",
                                 spec->percentages[i]);
                    return -1;
                }
            a->percentages = cs_xmalloc(sizeof *a->percentages * (size_t)np);
            for (int i = 0; i < np; i++)
                a->percentages[i] = spec->n_percentages > 0 ? spec->percentages[i] : 0.5;
            a->n_percentages = np;
            a->pct_array = spec->percentages_array;
            a->result_type = a->pct_array ? cs_col_type_array(dbl, false) : dbl;
        } else {
            a->result_type = cs_col_type_ref((cs_col_type *)t);
        }
        a->impl = fn == CS_AGG_PERCENTILE ? X_PERCENTILE : X_MODE;
        a->n_buf = 1;
        a->buf_types[0] = cs_col_type_array(cs_col_type_ref((cs_col_type *)t), false);
        a->buf_names[0] = "buf";
        a->state_size = 8; /* the group's vector in the arena */
        return 1;
    case CS_AGG_HISTOGRAM_NUMERIC: {
        if (!t || !numeric_id(t->id)) return cs_sql_agg_bad_arg(fn, t, err), -1;
        if (spec->param < 2 || spec->param > 1000000) {
            cs_error_set(err, CS_EINVAL,
                         "histogram_numeric: the number of bins %g must be between 2 and 1000000",
                         spec->param);
            return -1;
        }
        a->impl = X_HIST;
        a->nbins = (int)spec->param;
        a->n_buf = 1;
        a->buf_types[0] = bin;
        a->buf_names[0] = "histogram";
        /* array<struct<x: T, y: double>>, as the analyzer types it */
        cs_col_field f[2] = {{"x", cs_col_type_ref((cs_col_type *)t), true}, {"y", dbl, true}};
        a->result_type = cs_col_type_array(cs_col_type_struct(f, 2), true);
        a->state_size = 8; /* the group's histogram in the arena */
        return 1;
    }
    case CS_AGG_SCHEMA_OF_VARIANT:
        if (!t || !cs_col_type_is_variant(t)) return cs_sql_agg_bad_arg(fn, t, err), -1;
        a->impl = X_VSCHEMA;
        a->n_buf = 1;
        a->buf_types[0] = bin;
        a->buf_names[0] = "schema";
        a->result_type = cs_col_type_primitive(CS_TYPE_STRING);
        a->state_size = 8; /* the group's schema bytes in the arena */
        return 1;
    case CS_AGG_MAX_BY:
    case CS_AGG_MIN_BY:
        if (!t || !cs_sql_key_type_ok(t)) return cs_sql_agg_bad_arg(fn, t, err), -1;
        if (!t2 || !cs_sql_key_type_ok(t2)) return cs_sql_agg_bad_arg(fn, t2, err), -1;
        a->impl = fn == CS_AGG_MAX_BY ? X_MAXBY : X_MINBY;
        a->n_buf = 2;
        a->buf_types[0] = cs_col_type_ref((cs_col_type *)t);
        a->buf_names[0] = "valueWithExtremumOrdering";
        a->buf_types[1] = cs_col_type_ref((cs_col_type *)t2);
        a->buf_names[1] = "extremumOrdering";
        a->result_type = cs_col_type_ref((cs_col_type *)t);
        a->state_size = 40; /* value 16, ordering 16, value valid, ordering set */
        return 1;
    case CS_AGG_COLLECT_LIST:
    case CS_AGG_COLLECT_SET:
        if (!t || !cs_sql_struct_key_type_ok(t) || t->id == CS_TYPE_NULL)
            return cs_sql_agg_bad_arg(fn, t, err), -1;
        a->impl = fn == CS_AGG_COLLECT_LIST ? X_COLLECT_LIST : X_COLLECT_SET;
        a->n_buf = 1;
        a->result_type = cs_col_type_array(cs_col_type_ref((cs_col_type *)t), false);
        a->buf_types[0] = cs_col_type_ref(a->result_type);
        a->buf_names[0] = "buf";
        a->state_size = 8; /* the group's vector in the arena */
        return 1;
    case CS_AGG_APPROX_COUNT_DISTINCT: {
        if (!t) return cs_sql_agg_bad_arg(fn, t, err), -1;
        double rsd = spec->param > 0 ? spec->param : 0.05;
        int p = (int)ceil(2.0 * log(1.106 / rsd) / log(2.0));
        if (p < 4) {
            cs_error_set(err, CS_EINVAL,
                         "approx_count_distinct: relativeSD %g is too large (at most 0.39)", rsd);
            return -1;
        }
        if (p > 18) {
            cs_error_set(err, CS_EINVAL,
                         "approx_count_distinct: relativeSD %g is too small (at least 0.0015)",
                         rsd);
            return -1;
        }
        a->impl = X_HLL;
        a->hll_p = p;
        a->n_buf = 1;
        a->buf_types[0] = bin;
        a->buf_names[0] = "registers";
        a->result_type = cs_col_type_primitive(CS_TYPE_LONG);
        a->state_size = (1 << p) + 8; /* registers; 8 more: the stride stays a multiple of 8 */
        return 1;
    }
    case CS_AGG_PERCENTILE_APPROX: {
        if (!t || !(numeric_id(t->id) || t->id == CS_TYPE_DATE || t->id == CS_TYPE_TIMESTAMP ||
                    t->id == CS_TYPE_TIMESTAMP_NTZ || t->id == CS_TYPE_INTERVAL_YM ||
                    t->id == CS_TYPE_INTERVAL_DT))
            return cs_sql_agg_bad_arg(fn, t, err), -1;
        double acc = spec->param > 0 ? spec->param : 10000;
        int np = spec->n_percentages > 0 ? spec->n_percentages : 1;
        a->percentages = cs_xmalloc(sizeof *a->percentages * (size_t)np);
        for (int i = 0; i < np; i++) {
            double q = spec->n_percentages > 0 ? spec->percentages[i] : 0.5;
            if (!(q >= 0 && q <= 1)) {
                free(a->percentages);
                a->percentages = NULL;
                cs_error_set(err, CS_EINVAL,
                             "percentile_approx: the percentage %g must be between 0.0 and 1.0", q);
                return -1;
            }
            a->percentages[i] = q;
        }
        a->n_percentages = np;
        a->pct_array = spec->percentages_array;
        a->rel_error = 1.0 / acc;
        a->impl = X_PCT;
        a->n_buf = 1;
        a->buf_types[0] = bin;
        a->buf_names[0] = "digest";
        a->result_type = a->pct_array ? cs_col_type_array(cs_col_type_ref((cs_col_type *)t), false)
                                      : cs_col_type_ref((cs_col_type *)t);
        a->state_size = 8;
        return 1;
    }
    default:
        return 0;
    }
}

/* ---- max_by / min_by ---- */

/* Folds (value, ordering) into a MaxMinBy state: Spark's update / merge expressions. */
static void by_fold(const cs_sql_agg *a, uint8_t *st, const cs_column *val, int64_t vi,
                    const cs_column *ord, int64_t oi, cs_sql_arena *arena)
{
    if (!cs_column_is_valid(ord, oi)) return;
    uint8_t o[16] = {0};
    cs_sql_agg_load_value(ord, oi, o);
    if (st[33]) {
        int r = cs_sql_agg_cmp_value(a->arg2_type->id, st + 16, o);
        if (a->impl == X_MAXBY ? r > 0 : r < 0) return; /* the kept one stays */
    }
    cs_sql_agg_keep_value(a->arg2_type->id, st + 16, o, arena);
    st[33] = 1;
    st[32] = cs_column_is_valid(val, vi);
    if (st[32]) {
        uint8_t v[16] = {0};
        cs_sql_agg_load_value(val, vi, v);
        cs_sql_agg_keep_value(a->arg_type->id, st, v, arena);
    }
}

/* ---- bit_and / bit_or / bit_xor, try_sum ---- */

static void bit_fold(cs_agg_fn fn, uint8_t *st, int64_t x)
{
    int64_t *v = (int64_t *)(void *)st;
    if (!st[8])
        *v = x;
    else if (fn == CS_AGG_BIT_AND)
        *v &= x;
    else if (fn == CS_AGG_BIT_OR)
        *v |= x;
    else
        *v ^= x;
    st[8] = 1;
}

static void trysum_add(uint8_t *st, int64_t x)
{
    int64_t *v = (int64_t *)(void *)st;
    st[8] = 1;
    if (!st[9] && __builtin_add_overflow(*v, x, v)) st[9] = 1;
}

/* ---- approx_count_distinct ---- */

/* ---- percentile_approx: Spark's QuantileSummaries ---- */

static cs_sql_digest *digest_of(const cs_sql_agg *a, uint8_t *st, cs_sql_arena *arena)
{
    cs_sql_digest *d;
    memcpy(&d, st, sizeof d);
    if (!d) {
        d = cs_sql_arena_alloc(arena, sizeof *d);
        memset(d, 0, sizeof *d);
        d->rel = a->rel_error;
        d->compressed = true;
        memcpy(st, &d, sizeof d);
    }
    return d;
}

/* ---- sum / avg of ANSI intervals ---- */

/* Adds x to the interval sum of st (Spark's exact interval addition: overflow is an error,
 * ANSI or not). */
static int interval_add(const cs_sql_agg *a, uint8_t *st, int64_t x, cs_error *err)
{
    int64_t *sum = (int64_t *)(void *)st;
    bool over = __builtin_add_overflow(*sum, x, sum);
    if (a->arg_type->id == CS_TYPE_INTERVAL_YM) over |= *sum > INT32_MAX || *sum < INT32_MIN;
    if (over)
        return cs_sql_error_set(err, CS_ETASK, "INTERVAL_ARITHMETIC_OVERFLOW.WITH_SUGGESTION",
                                "22015",
                                "Integer overflow while operating with intervals. Use `try_add` "
                                "to tolerate overflow and return NULL instead.");
    if (a->impl == X_ISUM)
        st[8] = 1;
    else
        (*(int64_t *)(void *)(st + 8))++;
    return CS_OK;
}

/* ---- update, merge, export, evaluate ---- */

#define STATE(g) (states + (size_t)(g)*stride + a->state_off)

int cs_sql_agg_ext_update(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                          const cs_column *in, const cs_column *in2, int64_t row0, int64_t n,
                          cs_sql_arena *arena, cs_error *err)
{
    switch (a->impl) {
    case X_ISUM:
    case X_IAVG:
        for (int64_t k = 0; k < n; k++) {
            if (!cs_column_is_valid(in, row0 + k)) continue;
            int rc = interval_add(a, STATE(gid[k]), cs_sql_long_at(in, row0 + k), err);
            if (rc != CS_OK) return rc;
        }
        return CS_OK;
    case X_MOMENT:
        for (int64_t k = 0; k < n; k++)
            if (cs_column_is_valid(in, row0 + k))
                cs_sql_moment_add(STATE(gid[k]), cs_sql_double_at(in, row0 + k), a->n_buf - 1);
        return CS_OK;
    case X_BIT:
        for (int64_t k = 0; k < n; k++)
            if (cs_column_is_valid(in, row0 + k))
                bit_fold(a->fn, STATE(gid[k]), cs_sql_long_at(in, row0 + k));
        return CS_OK;
    case X_TRYSUM:
        for (int64_t k = 0; k < n; k++)
            if (cs_column_is_valid(in, row0 + k))
                trysum_add(STATE(gid[k]), cs_sql_long_at(in, row0 + k));
        return CS_OK;
    case X_COVAR:
    case X_CORR:
        for (int64_t k = 0; k < n; k++) {
            int64_t i = row0 + k;
            if (cs_column_is_valid(in, i) && cs_column_is_valid(in2, i))
                cs_sql_covar_add(STATE(gid[k]), cs_sql_double_at(in, i), cs_sql_double_at(in2, i),
                                 a->impl == X_CORR);
        }
        return CS_OK;
    case X_MAXBY:
    case X_MINBY:
        for (int64_t k = 0; k < n; k++)
            by_fold(a, STATE(gid[k]), in, row0 + k, in2, row0 + k, arena);
        return CS_OK;
    case X_COLLECT_LIST:
    case X_COLLECT_SET:
    case X_PERCENTILE:
    case X_MODE:
        cs_sql_collect_add_rows(a, states, stride, gid, NULL, in, row0, n, arena);
        return CS_OK;
    case X_HLL: {
        uint64_t h[256];
        for (int64_t k0 = 0; k0 < n; k0 += 256) {
            int64_t m = n - k0 < 256 ? n - k0 : 256;
            for (int64_t k = 0; k < m; k++)
                h[k] = 42;
            cs_sql_xxhash64_fold(in, row0 + k0, m, h);
            for (int64_t k = 0; k < m; k++)
                if (cs_column_is_valid(in, row0 + k0 + k))
                    cs_sql_hll_add(STATE(gid[k0 + k]), a->hll_p, h[k]);
        }
        return CS_OK;
    }
    case X_VSCHEMA:
        return cs_sql_vschema_update(a, states, stride, gid, in, row0, n, arena, err);
    case X_HIST:
        for (int64_t k = 0; k < n; k++)
            if (cs_column_is_valid(in, row0 + k))
                cs_sql_hist_add(cs_sql_hist_of(STATE(gid[k]), a->nbins, arena),
                                cs_sql_double_at(in, row0 + k), arena);
        return CS_OK;
    case X_PCT:
        for (int64_t k = 0; k < n; k++)
            if (cs_column_is_valid(in, row0 + k))
                cs_sql_gk_add(digest_of(a, STATE(gid[k]), arena), cs_sql_double_at(in, row0 + k),
                              arena);
        return CS_OK;
    default:
        return cs_error_set(err, CS_EINVAL, "aggregate: unknown implementation %d", a->impl);
    }
}

int cs_sql_agg_ext_merge(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                         cs_column *const *bufs, int64_t n, cs_sql_arena *arena, cs_error *err)
{
    switch (a->impl) {
    case X_ISUM:
    case X_IAVG:
        for (int64_t i = 0; i < n; i++) {
            int64_t cnt = a->impl == X_IAVG && cs_column_is_valid(bufs[1], i)
                              ? ((const int64_t *)(const void *)bufs[1]->values)[i]
                              : 1;
            if (!cs_column_is_valid(bufs[0], i) || cnt == 0) continue;
            uint8_t *st = STATE(gid[i]);
            int rc = interval_add(a, st, cs_sql_long_at(bufs[0], i), err);
            if (rc != CS_OK) return rc;
            if (a->impl == X_IAVG) *(int64_t *)(void *)(st + 8) += cnt - 1;
        }
        return CS_OK;
    case X_MOMENT:
    case X_COVAR:
    case X_CORR:
        for (int64_t i = 0; i < n; i++) {
            double o[6] = {0};
            for (int b = 0; b < a->n_buf; b++)
                o[b] = cs_column_is_valid(bufs[b], i) ? cs_sql_double_at(bufs[b], i) : 0.0;
            if (a->impl == X_MOMENT)
                cs_sql_moment_merge(STATE(gid[i]), o, a->n_buf - 1);
            else
                cs_sql_covar_merge(STATE(gid[i]), o, a->impl == X_CORR);
        }
        return CS_OK;
    case X_MAXBY:
    case X_MINBY:
        for (int64_t i = 0; i < n; i++)
            by_fold(a, STATE(gid[i]), bufs[0], i, bufs[1], i, arena);
        return CS_OK;
    case X_BIT:
        for (int64_t i = 0; i < n; i++)
            if (cs_column_is_valid(bufs[0], i))
                bit_fold(a->fn, STATE(gid[i]), cs_sql_long_at(bufs[0], i));
        return CS_OK;
    case X_TRYSUM:
        for (int64_t i = 0; i < n; i++) {
            if (cs_column_is_valid(bufs[1], i) && cs_bit_get(bufs[1]->values, i)) continue;
            uint8_t *st = STATE(gid[i]);
            if (!cs_column_is_valid(bufs[0], i))
                st[8] = st[9] = 1; /* a null sum of a non-empty buffer: it overflowed */
            else
                trysum_add(st, cs_sql_long_at(bufs[0], i));
        }
        return CS_OK;
    case X_PERCENTILE:
    case X_MODE:
    case X_COLLECT_LIST:
    case X_COLLECT_SET: {
        const cs_column *list = bufs[0], *el = list->children[0];
        const int32_t *off = cs_column_offsets(list);
        if (a->arg_type->id == CS_TYPE_STRUCT) { /* a null buffer has no elements */
            cs_sql_collect_add_rows(a, states, stride, gid, off, el, 0, n, arena);
            return CS_OK;
        }
        for (int64_t i = 0; i < n; i++) {
            if (!cs_column_is_valid(list, i)) continue;
            for (int32_t e = off[i]; e < off[i + 1]; e++)
                if (cs_column_is_valid(el, e)) cs_sql_collect_add(a, STATE(gid[i]), el, e, arena);
        }
        return CS_OK;
    }
    case X_HLL: {
        int m = 1 << a->hll_p;
        for (int64_t i = 0; i < n; i++) {
            if (!cs_column_is_valid(bufs[0], i)) continue;
            int32_t len;
            const uint8_t *r = cs_column_bytes(bufs[0], i, &len);
            if (len != m)
                return cs_error_set(err, CS_EINVAL,
                                    "approx_count_distinct: a buffer of %d registers, expected %d",
                                    (int)len, m);
            uint8_t *st = STATE(gid[i]);
            for (int k = 0; k < m; k++)
                if (r[k] > st[k]) st[k] = r[k];
        }
        return CS_OK;
    }
    case X_VSCHEMA:
        return cs_sql_vschema_merge(a, states, stride, gid, bufs[0], n, arena, err);
    case X_HIST:
        for (int64_t i = 0; i < n; i++) {
            if (!cs_column_is_valid(bufs[0], i)) continue;
            int32_t len;
            const uint8_t *r = cs_column_bytes(bufs[0], i, &len);
            int rc = cs_sql_hist_merge(cs_sql_hist_of(STATE(gid[i]), a->nbins, arena), r, len,
                                       arena, err);
            if (rc != CS_OK) return rc;
        }
        return CS_OK;
    case X_PCT:
        for (int64_t i = 0; i < n; i++) {
            if (!cs_column_is_valid(bufs[0], i)) continue;
            int32_t len;
            const uint8_t *r = cs_column_bytes(bufs[0], i, &len);
            if (len < 16 || (len - 16) % 24 != 0)
                return cs_error_set(err, CS_EINVAL,
                                    "percentile_approx: a digest buffer of %d bytes", (int)len);
            double orel;
            int64_t ocount, ons = (len - 16) / 24;
            memcpy(&orel, r, 8);
            memcpy(&ocount, r + 8, 8);
            cs_sql_gk_stat *os = cs_xmalloc(sizeof *os * (size_t)(ons > 0 ? ons : 1));
            if (ons) memcpy(os, r + 16, (size_t)ons * sizeof *os);
            cs_sql_gk_merge(digest_of(a, STATE(gid[i]), arena), orel, ocount, os, ons, arena);
            free(os);
        }
        return CS_OK;
    default:
        return cs_error_set(err, CS_EINVAL, "aggregate: unknown implementation %d", a->impl);
    }
}

static cs_column *doubles_column(const double *v, const uint8_t *valid, int64_t n,
                                 cs_col_allocator *alloc)
{
    cs_col_builder *b = cs_col_builder_new(alloc, cs_col_type_primitive(CS_TYPE_DOUBLE));
    cs_col_builder_append_values(b, v, n, valid);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

static cs_column *binary_column(const uint8_t *const *p, const int32_t *len, int64_t n,
                                cs_col_allocator *alloc)
{
    cs_col_builder *b = cs_col_builder_new(alloc, cs_col_type_primitive(CS_TYPE_BINARY));
    for (int64_t i = 0; i < n; i++)
        cs_col_builder_append_string(b, len[i] ? (const void *)p[i] : "", (size_t)len[i]);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

void cs_sql_agg_ext_export(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                           int64_t n, cs_col_allocator *alloc, cs_column **bufs)
{
    int64_t nn = n > 0 ? n : 1;
    int o = a->state_off;
    switch (a->impl) {
    case X_ISUM: /* the sum's low bytes are the interval (little-endian) */
        bufs[0] = cs_sql_agg_value_column(a->buf_types[0], states, stride, o, 8, g0, n, alloc);
        return;
    case X_IAVG:
        bufs[0] = cs_sql_agg_value_column(a->buf_types[0], states, stride, o, -1, g0, n, alloc);
        bufs[1] = cs_sql_agg_value_column(a->buf_types[1], states, stride, o + 8, -1, g0, n, alloc);
        return;
    case X_MOMENT:
    case X_COVAR:
    case X_CORR: {
        double *v = cs_xmalloc(sizeof *v * (size_t)nn);
        for (int b = 0; b < a->n_buf; b++) {
            for (int64_t i = 0; i < n; i++)
                memcpy(&v[i], STATE(g0 + i) + 8 * b, 8);
            bufs[b] = doubles_column(v, NULL, n, alloc);
        }
        free(v);
        return;
    }
    case X_MAXBY:
    case X_MINBY:
        bufs[0] = cs_sql_agg_value_column(a->buf_types[0], states, stride, a->state_off + 0, 32, g0,
                                          n, alloc);
        bufs[1] = cs_sql_agg_value_column(a->buf_types[1], states, stride, a->state_off + 16, 17,
                                          g0, n, alloc);
        return;
    case X_COLLECT_LIST:
    case X_COLLECT_SET:
    case X_PERCENTILE:
    case X_MODE:
        bufs[0] = cs_sql_collect_column(a, states, stride, g0, n, alloc);
        return;
    case X_BIT:
        bufs[0] = cs_sql_agg_value_column(a->buf_types[0], states, stride, o, 8, g0, n, alloc);
        return;
    case X_TRYSUM: {
        int64_t *v = cs_xcalloc((size_t)nn, sizeof *v);
        uint8_t *valid = cs_xmalloc((size_t)nn), *empty = cs_xmalloc((size_t)nn);
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *st = STATE(g0 + i);
            valid[i] = st[8] && !st[9];
            empty[i] = !st[8];
            memcpy(&v[i], st, 8);
        }
        cs_col_builder *b = cs_col_builder_new(alloc, a->buf_types[0]);
        cs_col_builder_append_values(b, v, n, valid);
        bufs[0] = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        b = cs_col_builder_new(alloc, a->buf_types[1]);
        cs_col_builder_append_values(b, empty, n, NULL);
        bufs[1] = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        free(v);
        free(valid);
        free(empty);
        return;
    }
    case X_HLL: {
        const uint8_t **p = cs_xmalloc(sizeof *p * (size_t)nn);
        int32_t *len = cs_xmalloc(sizeof *len * (size_t)nn);
        for (int64_t i = 0; i < n; i++) {
            p[i] = STATE(g0 + i);
            len[i] = 1 << a->hll_p;
        }
        bufs[0] = binary_column(p, len, n, alloc);
        free(p);
        free(len);
        return;
    }
    case X_VSCHEMA:
        bufs[0] = cs_sql_vschema_export(a, states, stride, g0, n, alloc);
        return;
    case X_HIST: {
        cs_col_builder *b = cs_col_builder_new(alloc, cs_col_type_primitive(CS_TYPE_BINARY));
        cs_sbuf sb = {0};
        for (int64_t i = 0; i < n; i++) {
            cs_sql_hist *h;
            memcpy(&h, STATE(g0 + i), sizeof h);
            cs_sql_hist_bytes(h, a->nbins, &sb);
            cs_col_builder_append_string(b, sb.data, sb.len);
        }
        cs_sbuf_free(&sb);
        bufs[0] = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        return;
    }
    case X_PCT: {
        cs_col_builder *b = cs_col_builder_new(alloc, cs_col_type_primitive(CS_TYPE_BINARY));
        uint8_t *tmp = NULL;
        size_t tcap = 0;
        cs_sql_arena scratch = {.alloc = alloc};
        for (int64_t i = 0; i < n; i++) {
            cs_sql_digest *s0, c = {.rel = a->rel_error, .compressed = true}, *d = &c;
            memcpy(&s0, STATE(g0 + i), sizeof s0);
            if (s0) cs_sql_gk_compressed_copy(s0, &c, &scratch);
            size_t len = 16 + (size_t)d->ns * 24;
            if (len > tcap) {
                tcap = len * 2;
                tmp = cs_xrealloc(tmp, tcap);
            }
            memcpy(tmp, &d->rel, 8);
            memcpy(tmp + 8, &d->count, 8);
            if (d->ns) memcpy(tmp + 16, d->s, (size_t)d->ns * 24);
            cs_col_builder_append_string(b, tmp, len);
            cs_sql_arena_reset(&scratch);
        }
        free(tmp);
        bufs[0] = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        return;
    }
    default:
        return;
    }
}

/* A column of the argument's type from doubles (Spark's casts of the approximate percentile). */
static void put_as(cs_type_id id, int scale, double d, uint8_t *dst)
{
    switch (id) {
    case CS_TYPE_BYTE:
        *(int8_t *)dst = (int8_t)(int32_t)d;
        break;
    case CS_TYPE_SHORT:
        *(int16_t *)(void *)dst = (int16_t)(int32_t)d;
        break;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM:
        *(int32_t *)(void *)dst = (int32_t)d;
        break;
    case CS_TYPE_FLOAT:
        *(float *)(void *)dst = (float)d;
        break;
    case CS_TYPE_DOUBLE:
        *(double *)(void *)dst = d;
        break;
    case CS_TYPE_DECIMAL: {
        __int128 v = (__int128)llround(d * pow(10, scale));
        memcpy(dst, &v, 16);
        break;
    }
    default:
        *(int64_t *)(void *)dst = (int64_t)d;
        break;
    }
}

/* histogram_numeric's results: per group its bins as structs (x as the argument's type, y); null
 * for a group without values */
static cs_column *histogram_column(const cs_sql_agg *a, const uint8_t *states, size_t stride,
                                   int64_t g0, int64_t n, cs_col_allocator *alloc)
{
    int64_t nn = n > 0 ? n : 1, total = 0;
    int32_t *lens = cs_xmalloc(sizeof *lens * (size_t)nn);
    uint8_t *valid = cs_xmalloc((size_t)nn);
    for (int64_t i = 0; i < n; i++) {
        cs_sql_hist *h;
        memcpy(&h, STATE(g0 + i), sizeof h);
        lens[i] = h ? h->n : 0;
        valid[i] = lens[i] > 0;
        total += lens[i];
    }
    int w = cs_col_type_width(a->arg_type->id);
    uint8_t *xs = cs_xcalloc((size_t)(total > 0 ? total : 1), (size_t)w);
    double *ys = cs_xcalloc((size_t)(total > 0 ? total : 1), sizeof *ys);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        cs_sql_hist *h;
        memcpy(&h, STATE(g0 + i), sizeof h);
        for (int j = 0; h && j < h->n; j++, k++) {
            put_as(a->arg_type->id, a->arg_type->scale, h->x[j], xs + (size_t)k * (size_t)w);
            ys[k] = h->y[j];
        }
    }
    cs_col_builder *b = cs_col_builder_new(alloc, a->result_type);
    cs_col_builder_append_lists(b, lens, n, valid);
    cs_col_builder *sb = cs_col_builder_child(b, 0);
    cs_col_builder_append_structs(sb, total, NULL);
    cs_col_builder_append_values(cs_col_builder_child(sb, 0), xs, total, NULL);
    cs_col_builder_append_values(cs_col_builder_child(sb, 1), ys, total, NULL);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    free(xs);
    free(ys);
    free(lens);
    free(valid);
    return c;
}

int cs_sql_agg_ext_evaluate(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                            int64_t n, cs_col_allocator *alloc, cs_column **out, cs_error *err)
{
    int64_t nn = n > 0 ? n : 1;
    switch (a->impl) {
    case X_ISUM:
        cs_sql_agg_ext_export(a, states, stride, g0, n, alloc, out);
        return CS_OK;
    case X_IAVG: { /* sum / count rounded HALF_UP (Spark's DivideYMInterval / DTInterval) */
        int64_t *v = cs_xcalloc((size_t)nn, sizeof *v);
        uint8_t *valid = cs_xmalloc((size_t)nn);
        int32_t *v32 = (int32_t *)(void *)v;
        for (int64_t i = 0; i < n; i++) {
            const int64_t *st = (const int64_t *)(const void *)STATE(g0 + i);
            int64_t sum = st[0], cnt = st[1], q = cnt ? sum / cnt : 0, r = cnt ? sum % cnt : 0;
            if (cnt && 2 * (r < 0 ? -r : r) >= cnt) q += sum < 0 ? -1 : 1;
            valid[i] = cnt != 0;
            if (a->arg_type->id == CS_TYPE_INTERVAL_YM)
                v32[i] = (int32_t)q;
            else
                v[i] = q;
        }
        cs_col_builder *b = cs_col_builder_new(alloc, a->result_type);
        cs_col_builder_append_values(b, v, n, valid);
        *out = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        free(v);
        free(valid);
        return CS_OK;
    }
    case X_MOMENT:
    case X_COVAR:
    case X_CORR: {
        double *v = cs_xcalloc((size_t)nn, sizeof *v);
        uint8_t *valid = cs_xmalloc((size_t)nn);
        for (int64_t i = 0; i < n; i++)
            valid[i] = cs_sql_stat_result(a->fn, STATE(g0 + i), &v[i]);
        *out = doubles_column(v, valid, n, alloc);
        free(v);
        free(valid);
        return CS_OK;
    }
    case X_MAXBY:
    case X_MINBY:
        *out =
            cs_sql_agg_value_column(a->result_type, states, stride, a->state_off, 32, g0, n, alloc);
        return CS_OK;
    case X_COLLECT_LIST:
    case X_COLLECT_SET:
        *out = cs_sql_collect_column(a, states, stride, g0, n, alloc);
        return CS_OK;
    case X_BIT:
        *out =
            cs_sql_agg_value_column(a->result_type, states, stride, a->state_off, 8, g0, n, alloc);
        return CS_OK;
    case X_TRYSUM: {
        cs_column *bufs[2] = {NULL, NULL};
        cs_sql_agg_ext_export(a, states, stride, g0, n, alloc, bufs);
        *out = bufs[0];
        cs_column_unref(bufs[1]);
        return CS_OK;
    }
    case X_PERCENTILE:
        *out = cs_sql_percentile_column(a, states, stride, g0, n, alloc);
        return CS_OK;
    case X_MODE:
        *out = cs_sql_mode_column(a, states, stride, g0, n, alloc);
        return CS_OK;
    case X_HLL: {
        int64_t *v = cs_xmalloc(sizeof *v * (size_t)nn);
        for (int64_t i = 0; i < n; i++)
            v[i] = cs_sql_hll_estimate(STATE(g0 + i), a->hll_p);
        cs_col_builder *b = cs_col_builder_new(alloc, a->result_type);
        cs_col_builder_append_values(b, v, n, NULL);
        *out = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        free(v);
        return CS_OK;
    }
    case X_VSCHEMA:
        return cs_sql_vschema_evaluate(a, states, stride, g0, n, alloc, out, err);
    case X_HIST:
        *out = histogram_column(a, states, stride, g0, n, alloc);
        return CS_OK;
    case X_PCT: {
        const cs_col_type *t = a->arg_type;
        int w = cs_col_type_width(t->id), np = a->n_percentages;
        uint8_t *vals = cs_xcalloc((size_t)nn * (size_t)np, (size_t)w);
        uint8_t *valid = cs_xmalloc((size_t)nn);
        int32_t *lens = cs_xmalloc(sizeof *lens * (size_t)nn);
        int64_t k = 0;
        cs_sql_arena scratch = {.alloc = alloc};
        for (int64_t i = 0; i < n; i++) {
            cs_sql_digest *d;
            memcpy(&d, STATE(g0 + i), sizeof d);
            valid[i] = d && d->count + d->nhead > 0;
            lens[i] = valid[i] ? np : 0;
            if (!valid[i]) continue;
            cs_sql_digest c;
            cs_sql_gk_compressed_copy(d, &c, &scratch);
            for (int q = 0; q < np; q++, k++)
                put_as(t->id, t->scale, cs_sql_gk_query(&c, a->percentages[q]),
                       vals + (size_t)k * w);
        }
        cs_sql_arena_reset(&scratch);
        cs_col_builder *b = cs_col_builder_new(alloc, a->result_type);
        if (a->pct_array) {
            cs_col_builder_append_lists(b, lens, n, valid);
            cs_col_builder_append_values(cs_col_builder_child(b, 0), vals, k, NULL);
        } else {
            /* one value per valid group: spread them to their rows */
            uint8_t *rows = cs_xcalloc((size_t)nn, (size_t)w);
            for (int64_t i = 0, j = 0; i < n; i++)
                if (valid[i]) memcpy(rows + (size_t)i * w, vals + (size_t)(j++) * w, (size_t)w);
            cs_col_builder_append_values(b, rows, n, valid);
            free(rows);
        }
        *out = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        free(vals);
        free(valid);
        free(lens);
        return CS_OK;
    }
    default:
        return cs_error_set(err, CS_EINVAL, "aggregate: unknown implementation %d", a->impl);
    }
}
