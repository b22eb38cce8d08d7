/*
 * agg_functions.c — the aggregate functions of the hash aggregate (Spark's DeclarativeAggregate
 * implementations, a batch at a time): count(*), count, count_if, sum, avg, min, max, first,
 * last, bool_and, bool_or. Each is bound once to its argument type (cs_sql_agg_bind), which fixes
 * Spark's buffer schema (aggBufferAttributes: sum -> sum [, isEmpty for decimals]; avg -> sum,
 * count; first/last -> first/last, valueSet; bool_and/bool_or -> min/max), the result type and
 * the layout of the state in a group's state row. update folds input rows, merge folds another
 * task's buffers, export writes buffers (Partial mode, spills) and evaluate writes results.
 * Loops run over a whole batch with the group id of each row; the per-type switch is outside
 * the loops.
 *
 * Types: sum of byte/short/int/long is a long (ANSI: ARITHMETIC_OVERFLOW on overflow, else it
 * wraps), of float/double a double, of decimal(p,s) a decimal(min(38, p + 10), s) (overflow:
 * ARITHMETIC_OVERFLOW for a sum, NUMERIC_VALUE_OUT_OF_RANGE for an average, under ANSI, else
 * null); avg is a double, or for decimal(p,s) a
 * decimal(min(38, p + 4), min(38, s + 4)) rounded half up. min/max take every fixed-width type,
 * string and binary, ordered as Spark (NaN greatest). String values of min/max/first/last are
 * copied into the operator's arena (charged to the task).
 *
 * any_value is first (its ignore_nulls). The statistical, collecting and sketching aggregates
 * (stddev / variance, corr / covar, max_by / min_by, collect_list / collect_set,
 * approx_count_distinct, percentile_approx) live in agg_functions_ext.c: bind asks it first, and
 * update / merge / export / evaluate hand it every impl >= CS_SQL_AGG_IMPL_EXT.
 *
 * Called by op_hash_aggregate.c and op_window.c; state rows and the arena are the operator's.
 */
#include "sqlexec/sql_ops_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/sql_error.h"

typedef __int128 i128;

enum {
    IMPL_COUNT_STAR,
    IMPL_COUNT,
    IMPL_COUNT_IF,
    IMPL_SUM_LONG,
    IMPL_SUM_DOUBLE,
    IMPL_SUM_DEC,
    IMPL_AVG_DOUBLE,
    IMPL_AVG_DEC,
    IMPL_MIN,
    IMPL_MAX,
    IMPL_FIRST,
    IMPL_LAST,
};

/* ---- the arena ---- */

#define ARENA_CHUNK (64 * 1024)

void *cs_sql_arena_alloc(cs_sql_arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    if (a->n == 0 || a->pos + n > a->sizes[a->n - 1]) {
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 16;
            a->chunks = cs_xrealloc(a->chunks, sizeof *a->chunks * (size_t)a->cap);
            a->sizes = cs_xrealloc(a->sizes, sizeof *a->sizes * (size_t)a->cap);
        }
        size_t sz = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        a->chunks[a->n] = cs_col_buffer_alloc(a->alloc, sz);
        a->sizes[a->n++] = sz;
        a->held += (int64_t)cs_col_padded(sz);
        a->pos = 0;
    }
    void *p = a->chunks[a->n - 1] + a->pos;
    a->pos += n;
    return p;
}

void cs_sql_arena_reset(cs_sql_arena *a)
{
    for (int i = 0; i < a->n; i++)
        cs_col_buffer_free(a->alloc, a->chunks[i], a->sizes[i]);
    free(a->chunks);
    free(a->sizes);
    cs_col_allocator *alloc = a->alloc;
    memset(a, 0, sizeof *a);
    a->alloc = alloc;
}

/* ---- binding ---- */

static bool is_integral(cs_type_id id)
{
    return id == CS_TYPE_BYTE || id == CS_TYPE_SHORT || id == CS_TYPE_INT || id == CS_TYPE_LONG;
}

static bool is_numeric(cs_type_id id)
{
    return is_integral(id) || id == CS_TYPE_FLOAT || id == CS_TYPE_DOUBLE || id == CS_TYPE_DECIMAL;
}

const char *cs_agg_fn_name(cs_agg_fn fn)
{
    static const char *const names[] = {"count",
                                        "count",
                                        "sum",
                                        "avg",
                                        "min",
                                        "max",
                                        "first",
                                        "last",
                                        "count_if",
                                        "bool_and",
                                        "bool_or",
                                        "collect_list",
                                        "collect_set",
                                        "stddev_samp",
                                        "stddev_pop",
                                        "var_samp",
                                        "var_pop",
                                        "corr",
                                        "covar_samp",
                                        "covar_pop",
                                        "approx_count_distinct",
                                        "percentile_approx",
                                        "max_by",
                                        "min_by",
                                        "any_value",
                                        "skewness",
                                        "kurtosis",
                                        "bit_and",
                                        "bit_or",
                                        "bit_xor",
                                        "mode",
                                        "percentile",
                                        "try_sum",
                                        "regr_slope",
                                        "regr_intercept",
                                        "regr_r2",
                                        "regr_sxx",
                                        "regr_syy",
                                        "regr_sxy",
                                        "regr_avgx",
                                        "regr_avgy",
                                        "percentile_disc",
                                        "histogram_numeric",
                                        "schema_of_variant_agg"};
    _Static_assert(sizeof names / sizeof names[0] == CS_AGG_SCHEMA_OF_VARIANT + 1,
                   "a name for every aggregate function");
    return (size_t)fn < sizeof names / sizeof names[0] ? names[fn] : "aggregate";
}

int cs_sql_agg_bad_arg(cs_agg_fn fn, const cs_col_type *t, cs_error *err)
{
    cs_sbuf sb = {0};
    if (t)
        cs_col_type_simple_string(t, &sb);
    else
        cs_sbuf_puts(&sb, "no argument");
    cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
                     "Cannot resolve \"%s\" due to data type mismatch: the argument requires "
                     "another type, however it has the type \"%s\".",
                     cs_agg_fn_name(fn), sb.data ? sb.data : "");
    cs_sbuf_free(&sb);
    return CS_EINVAL;
}

int cs_sql_agg_bind(cs_sql_agg *a, cs_agg_fn fn, const cs_col_type *arg_type, bool ignore_nulls,
                    cs_error *err)
{
    cs_agg_spec spec = {.fn = fn, .arg_type = arg_type, .ignore_nulls = ignore_nulls};
    return cs_sql_agg_bind_spec(a, &spec, err);
}

int cs_sql_agg_bind_spec(cs_sql_agg *a, const cs_agg_spec *spec, cs_error *err)
{
    cs_agg_fn fn = spec->fn;
    const cs_col_type *arg_type = spec->arg_type;
    memset(a, 0, sizeof *a);
    a->fn = fn;
    a->ignore_nulls = spec->ignore_nulls;
    int ext = cs_sql_agg_ext_bind(a, spec, err);
    if (ext < 0) return CS_EINVAL;
    if (ext > 0) {
        a->fn = fn;
        a->arg_type = cs_col_type_ref((cs_col_type *)arg_type);
        a->arg2_type = spec->arg2_type ? cs_col_type_ref((cs_col_type *)spec->arg2_type) : NULL;
        return CS_OK;
    }
    cs_col_type *longt = cs_col_type_primitive(CS_TYPE_LONG);
    cs_col_type *boolt = cs_col_type_primitive(CS_TYPE_BOOLEAN);
    cs_col_type *dbl = cs_col_type_primitive(CS_TYPE_DOUBLE);
    cs_type_id id = arg_type ? arg_type->id : CS_TYPE_NULL;
    if (fn != CS_AGG_COUNT_STAR && !arg_type) return cs_sql_agg_bad_arg(fn, arg_type, err);
    if (fn == CS_AGG_TRY_SUM) { /* of floats and decimals (integers are the ext's): sum */
        a->never_ansi = true;
        fn = CS_AGG_SUM;
    }
    switch (fn) {
    case CS_AGG_COUNT_STAR:
    case CS_AGG_COUNT:
    case CS_AGG_COUNT_IF:
        if (fn == CS_AGG_COUNT_IF && id != CS_TYPE_BOOLEAN)
            return cs_sql_agg_bad_arg(fn, arg_type, err);
        a->impl = fn == CS_AGG_COUNT_STAR ? IMPL_COUNT_STAR
                  : fn == CS_AGG_COUNT    ? IMPL_COUNT
                                          : IMPL_COUNT_IF;
        a->result_type = longt;
        a->n_buf = 1;
        a->buf_types[0] = longt;
        a->buf_names[0] = "count";
        a->state_size = 8;
        break;
    case CS_AGG_SUM:
    case CS_AGG_AVG:
        if (!is_numeric(id)) return cs_sql_agg_bad_arg(fn, arg_type, err);
        a->buf_names[0] = "sum";
        if (id == CS_TYPE_DECIMAL) {
            int p = arg_type->precision, s = arg_type->scale;
            int bp = p + 10 > 38 ? 38 : p + 10;
            a->buf_types[0] = cs_col_type_decimal(bp, s, NULL);
            if (fn == CS_AGG_SUM) {
                a->impl = IMPL_SUM_DEC;
                a->result_type = cs_col_type_ref(a->buf_types[0]);
                a->res_precision = bp;
                a->buf_types[1] = boolt;
                a->buf_names[1] = "isEmpty";
                a->state_size = 24; /* i128 sum, has, overflow */
            } else {
                a->impl = IMPL_AVG_DEC;
                int rp = p + 4 > 38 ? 38 : p + 4, rs = s + 4 > 38 ? 38 : s + 4;
                a->result_type = cs_col_type_decimal(rp, rs, NULL);
                a->res_precision = bp;
                a->buf_types[1] = longt;
                a->buf_names[1] = "count";
                a->state_size = 32; /* i128 sum, count, overflow */
            }
            a->n_buf = 2;
        } else if (fn == CS_AGG_SUM) {
            a->impl = is_integral(id) ? IMPL_SUM_LONG : IMPL_SUM_DOUBLE;
            a->result_type = is_integral(id) ? longt : dbl;
            a->buf_types[0] = a->result_type;
            a->n_buf = 1;
            a->state_size = 16; /* value, has */
        } else {
            a->impl = IMPL_AVG_DOUBLE;
            a->result_type = dbl;
            a->buf_types[0] = dbl;
            a->buf_types[1] = longt;
            a->buf_names[1] = "count";
            a->n_buf = 2;
            a->state_size = 16; /* sum, count */
        }
        break;
    case CS_AGG_MIN:
    case CS_AGG_MAX:
    case CS_AGG_BOOL_AND:
    case CS_AGG_BOOL_OR:
    case CS_AGG_FIRST:
    case CS_AGG_LAST:
    case CS_AGG_ANY_VALUE:
        if ((fn == CS_AGG_BOOL_AND || fn == CS_AGG_BOOL_OR) && id != CS_TYPE_BOOLEAN)
            return cs_sql_agg_bad_arg(fn, arg_type, err);
        if (!cs_sql_key_type_ok(arg_type)) return cs_sql_agg_bad_arg(fn, arg_type, err);
        a->impl = (fn == CS_AGG_MIN || fn == CS_AGG_BOOL_AND)    ? IMPL_MIN
                  : (fn == CS_AGG_MAX || fn == CS_AGG_BOOL_OR)   ? IMPL_MAX
                  : fn == CS_AGG_FIRST || fn == CS_AGG_ANY_VALUE ? IMPL_FIRST
                                                                 : IMPL_LAST;
        a->result_type = cs_col_type_ref((cs_col_type *)arg_type);
        a->buf_types[0] = cs_col_type_ref((cs_col_type *)arg_type);
        a->buf_names[0] = a->impl == IMPL_MIN     ? "min"
                          : a->impl == IMPL_MAX   ? "max"
                          : a->impl == IMPL_FIRST ? "first"
                                                  : "last";
        a->n_buf = 1;
        if (a->impl == IMPL_FIRST || a->impl == IMPL_LAST) {
            a->buf_types[1] = boolt;
            a->buf_names[1] = "valueSet";
            a->n_buf = 2;
        }
        a->state_size = 24; /* 16 value bytes (or ptr + len), has, set */
        break;
    default:
        return cs_sql_agg_bad_arg(fn, arg_type, err);
    }
    a->arg_type = arg_type ? cs_col_type_ref((cs_col_type *)arg_type) : NULL;
    return CS_OK;
}

void cs_sql_agg_release(cs_sql_agg *a)
{
    cs_col_type_unref(a->arg_type);
    cs_col_type_unref(a->arg2_type);
    cs_col_type_unref(a->result_type);
    for (int i = 0; i < a->n_buf; i++)
        cs_col_type_unref(a->buf_types[i]);
    free(a->percentages);
    memset(a, 0, sizeof *a);
}

int cs_agg_buffer_width(cs_agg_fn fn, const cs_col_type *arg_type)
{
    cs_sql_agg a;
    if (cs_sql_agg_bind(&a, fn, arg_type, false, NULL) != CS_OK) return -1;
    int n = a.n_buf;
    cs_sql_agg_release(&a);
    return n;
}

int cs_agg_spec_buffer_width(const cs_agg_spec *spec)
{
    cs_sql_agg a;
    if (cs_sql_agg_bind_spec(&a, spec, NULL) != CS_OK) return -1;
    int n = a.n_buf;
    cs_sql_agg_release(&a);
    return n;
}

cs_col_type *cs_agg_spec_result_type(const cs_agg_spec *spec, cs_error *err)
{
    cs_sql_agg a;
    if (cs_sql_agg_bind_spec(&a, spec, err) != CS_OK) return NULL;
    cs_col_type *t = cs_col_type_ref(a.result_type);
    cs_sql_agg_release(&a);
    return t;
}

bool cs_agg_takes_two_inputs(cs_agg_fn fn)
{
    return fn == CS_AGG_CORR || fn == CS_AGG_COVAR_SAMP || fn == CS_AGG_COVAR_POP ||
           fn == CS_AGG_MAX_BY || fn == CS_AGG_MIN_BY ||
           (fn >= CS_AGG_REGR_SLOPE && fn <= CS_AGG_REGR_AVGY);
}

cs_col_type *cs_agg_result_type(cs_agg_fn fn, const cs_col_type *arg_type, cs_error *err)
{
    cs_sql_agg a;
    if (cs_sql_agg_bind(&a, fn, arg_type, false, err) != CS_OK) return NULL;
    cs_col_type *t = cs_col_type_ref(a.result_type);
    cs_sql_agg_release(&a);
    return t;
}

/* ---- value access ---- */

double cs_sql_double_at(const cs_column *c, int64_t i)
{
    switch (c->type->id) {
    case CS_TYPE_FLOAT:
        return ((const float *)(const void *)c->values)[i];
    case CS_TYPE_DOUBLE:
        return ((const double *)(const void *)c->values)[i];
    case CS_TYPE_DECIMAL: {
        i128 x;
        memcpy(&x, c->values + 16 * i, 16);
        return (double)x / pow(10, c->type->scale);
    }
    default:
        return (double)cs_sql_long_at(c, i);
    }
}

static inline i128 rd_dec(const cs_column *c, int64_t i)
{
    i128 v;
    memcpy(&v, c->values + 16 * i, 16);
    return v;
}

static i128 pow10_128(int n)
{
    i128 v = 1;
    while (n-- > 0)
        v *= 10;
    return v;
}

static void dec_to_string(i128 v, int scale, char *out)
{
    char digits[64];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u || n <= scale);
    char *p = out;
    if (neg) *p++ = '-';
    for (int i = n - 1; i >= 0; i--) {
        *p++ = digits[i];
        if (i == scale && scale > 0) *p++ = '.';
    }
    *p = '\0';
}

static int dec_out_of_range(i128 v, int precision, int scale, cs_error *err)
{
    char text[64];
    dec_to_string(v, scale, text);
    return cs_sql_error_set(err, CS_ETASK, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "22003",
                            "%s cannot be represented as Decimal(%d, %d). If necessary set "
                            "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and "
                            "return NULL instead.",
                            text, precision, scale);
}

/* Spark's CheckOverflowInSum under ANSI */
static int sum_dec_overflow(cs_error *err)
{
    return cs_sql_error_set(err, CS_ETASK, "ARITHMETIC_OVERFLOW", "22003",
                            "Overflow in sum of decimals. Use 'try_sum' to tolerate overflow and "
                            "return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to "
                            "\"false\" to bypass this error.");
}

int cs_sql_agg_long_overflow(cs_error *err)
{
    return cs_sql_error_set(err, CS_ETASK, "ARITHMETIC_OVERFLOW", "22003",
                            "long overflow. Use 'try_sum' to tolerate overflow and return NULL "
                            "instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to "
                            "bypass this error.");
}

/* Spark's ordering of two stored values of a min/max state (NaN greatest, -0.0 = 0.0). */
int cs_sql_agg_cmp_value(cs_type_id id, const uint8_t *a, const uint8_t *b)
{
    switch (id) {
    case CS_TYPE_BOOLEAN:
        return (int)a[0] - (int)b[0];
    case CS_TYPE_BYTE:
        return (int)(int8_t)a[0] - (int)(int8_t)b[0];
    case CS_TYPE_SHORT: {
        int16_t x, y;
        memcpy(&x, a, 2);
        memcpy(&y, b, 2);
        return (x > y) - (x < y);
    }
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM: {
        int32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case CS_TYPE_FLOAT: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
        return (x > y) - (x < y);
    }
    case CS_TYPE_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
        return (x > y) - (x < y);
    }
    case CS_TYPE_DECIMAL: {
        i128 x, y;
        memcpy(&x, a, 16);
        memcpy(&y, b, 16);
        return (x > y) - (x < y);
    }
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        const uint8_t *pa, *pb;
        int32_t la, lb;
        memcpy(&pa, a, sizeof pa);
        memcpy(&la, a + 8, 4);
        memcpy(&pb, b, sizeof pb);
        memcpy(&lb, b + 8, 4);
        int m = la < lb ? la : lb;
        int r = m ? memcmp(pa, pb, (size_t)m) : 0;
        return r ? r : (la > lb) - (la < lb);
    }
    default: { /* long, timestamps, day-time intervals */
        int64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    }
}

static bool is_var(cs_type_id id)
{
    return id == CS_TYPE_STRING || id == CS_TYPE_BINARY;
}

/* The value of row i of c as a min/max/first/last state holds it; strings point into c (the
 * caller copies them into the arena when it keeps them). */
void cs_sql_agg_load_value(const cs_column *c, int64_t i, uint8_t *dst)
{
    cs_type_id id = c->type->id;
    if (id == CS_TYPE_BOOLEAN) {
        dst[0] = cs_bit_get(c->values, i);
    } else if (is_var(id)) {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, i, &len);
        memcpy(dst, &p, sizeof p);
        memcpy(dst + 8, &len, 4);
    } else {
        int w = cs_col_type_width(id);
        memcpy(dst, c->values + (size_t)i * (size_t)w, (size_t)w);
    }
}

/* Stores the value v (load_value's form) into the state, copying string bytes to the arena. */
void cs_sql_agg_keep_value(cs_type_id id, uint8_t *st, const uint8_t *v, cs_sql_arena *arena)
{
    if (is_var(id)) {
        const uint8_t *p;
        int32_t len;
        memcpy(&p, v, sizeof p);
        memcpy(&len, v + 8, 4);
        uint8_t *copy = len ? cs_sql_arena_alloc(arena, (size_t)len) : NULL;
        if (len) memcpy(copy, p, (size_t)len);
        memcpy(st, &copy, sizeof copy);
        memcpy(st + 8, &len, 4);
    } else {
        memcpy(st, v, 16);
    }
}

/* One value (valid or not) into a min/max/first/last state: the shared fold of update and
 * merge. */
static void fold_value(const cs_sql_agg *a, uint8_t *st, const cs_column *c, int64_t i, bool valid,
                       cs_sql_arena *arena)
{
    cs_type_id id = a->arg_type->id;
    uint8_t v[16] = {0};
    switch (a->impl) {
    case IMPL_MIN:
    case IMPL_MAX:
        if (!valid) return;
        cs_sql_agg_load_value(c, i, v);
        if (st[16]) {
            int r = cs_sql_agg_cmp_value(id, v, st);
            if (a->impl == IMPL_MIN ? r >= 0 : r <= 0) return;
        }
        cs_sql_agg_keep_value(id, st, v, arena);
        st[16] = 1;
        return;
    case IMPL_FIRST:
        if (st[17] || (!valid && a->ignore_nulls)) return;
        break;
    case IMPL_LAST:
        if (!valid && a->ignore_nulls) return;
        break;
    default:
        return;
    }
    if (valid) {
        cs_sql_agg_load_value(c, i, v);
        cs_sql_agg_keep_value(id, st, v, arena);
    }
    st[16] = valid;
    st[17] = 1;
}

#define STATE(g) (states + (size_t)(g)*stride + a->state_off)

/* Adds x to the decimal sum in st; lim is 10^(result precision) (taken once per batch: the
 * loop that makes it costs more than the addition), past which the sum is marked overflowed. */
static inline void add_dec(const cs_sql_agg *a, uint8_t *st, i128 x, i128 lim)
{
    i128 s;
    memcpy(&s, st, 16);
    bool wrapped = __builtin_add_overflow(s, x, &s); /* two sums of 38 digits pass an i128 */
    memcpy(st, &s, 16);
    if (wrapped || s >= lim || s <= -lim) st[a->impl == IMPL_SUM_DEC ? 17 : 24] = 1;
}

int cs_sql_agg_update_rows(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                           const cs_column *in, const cs_column *in2, int64_t row0, int64_t n,
                           bool ansi, cs_sql_arena *arena, cs_error *err)
{
    if (a->impl >= CS_SQL_AGG_IMPL_EXT)
        return cs_sql_agg_ext_update(a, states, stride, gid, in, in2, row0, n, arena, err);
    /* row k of the call is row row0 + k of in, folded into group gid[k] */
    ansi = ansi && !a->never_ansi;
    n += row0;
    const uint8_t *vb = in ? in->validity : NULL;
#define VALID(i) (!vb || cs_bit_get(vb, (i)))
    switch (a->impl) {
    case IMPL_COUNT_STAR:
        for (int64_t i = row0; i < n; i++)
            (*(int64_t *)(void *)STATE(gid[i - row0]))++;
        return CS_OK;
    case IMPL_COUNT:
        if (in->type->id == CS_TYPE_NULL) return CS_OK; /* count(NULL): every value is null */
        for (int64_t i = row0; i < n; i++)
            if (VALID(i)) (*(int64_t *)(void *)STATE(gid[i - row0]))++;
        return CS_OK;
    case IMPL_COUNT_IF:
        for (int64_t i = row0; i < n; i++)
            if (VALID(i) && cs_bit_get(in->values, i)) (*(int64_t *)(void *)STATE(gid[i - row0]))++;
        return CS_OK;
    case IMPL_SUM_LONG:
        for (int64_t i = row0; i < n; i++) {
            if (!VALID(i)) continue;
            uint8_t *st = STATE(gid[i - row0]);
            int64_t *s = (int64_t *)(void *)st, x = cs_sql_long_at(in, i);
            if (ansi) {
                if (__builtin_add_overflow(*s, x, s)) return cs_sql_agg_long_overflow(err);
            } else {
                *s = (int64_t)((uint64_t)*s + (uint64_t)x);
            }
            st[8] = 1;
        }
        return CS_OK;
    case IMPL_SUM_DOUBLE:
        for (int64_t i = row0; i < n; i++) {
            if (!VALID(i)) continue;
            uint8_t *st = STATE(gid[i - row0]);
            *(double *)(void *)st += cs_sql_double_at(in, i);
            st[8] = 1;
        }
        return CS_OK;
    case IMPL_AVG_DOUBLE:
        for (int64_t i = row0; i < n; i++) {
            if (!VALID(i)) continue;
            uint8_t *st = STATE(gid[i - row0]);
            *(double *)(void *)st += cs_sql_double_at(in, i);
            (*(int64_t *)(void *)(st + 8))++;
        }
        return CS_OK;
    case IMPL_SUM_DEC:
    case IMPL_AVG_DEC: {
        const i128 lim = pow10_128(a->res_precision);
        for (int64_t i = row0; i < n; i++) {
            if (!VALID(i)) continue;
            uint8_t *st = STATE(gid[i - row0]);
            add_dec(a, st, rd_dec(in, i), lim);
            if (a->impl == IMPL_SUM_DEC)
                st[16] = 1;
            else
                (*(int64_t *)(void *)(st + 16))++;
        }
        return CS_OK;
    }
    default:
        for (int64_t i = row0; i < n; i++)
            fold_value(a, STATE(gid[i - row0]), in, i, VALID(i), arena);
        return CS_OK;
    }
#undef VALID
}

int cs_sql_agg_update(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                      const cs_column *in, int64_t n, bool ansi, cs_sql_arena *arena, cs_error *err)
{
    return cs_sql_agg_update_rows(a, states, stride, gid, in, NULL, 0, n, ansi, arena, err);
}

int cs_sql_agg_update2(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                       const cs_column *in, const cs_column *in2, int64_t n, bool ansi,
                       cs_sql_arena *arena, cs_error *err)
{
    return cs_sql_agg_update_rows(a, states, stride, gid, in, in2, 0, n, ansi, arena, err);
}

int cs_sql_agg_merge(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                     cs_column *const *bufs, int64_t n, bool ansi, cs_sql_arena *arena,
                     cs_error *err)
{
    if (a->impl >= CS_SQL_AGG_IMPL_EXT)
        return cs_sql_agg_ext_merge(a, states, stride, gid, bufs, n, arena, err);
    ansi = ansi && !a->never_ansi;
    const cs_column *b0 = bufs[0], *b1 = a->n_buf > 1 ? bufs[1] : NULL;
    switch (a->impl) {
    case IMPL_COUNT_STAR:
    case IMPL_COUNT:
    case IMPL_COUNT_IF:
        for (int64_t i = 0; i < n; i++)
            if (cs_column_is_valid(b0, i))
                *(int64_t *)(void *)STATE(gid[i]) += cs_sql_long_at(b0, i);
        return CS_OK;
    case IMPL_SUM_LONG:
    case IMPL_SUM_DOUBLE:
        return cs_sql_agg_update(a, states, stride, gid, b0, n, ansi, arena, err);
    case IMPL_AVG_DOUBLE:
        for (int64_t i = 0; i < n; i++) {
            uint8_t *st = STATE(gid[i]);
            if (cs_column_is_valid(b0, i)) *(double *)(void *)st += cs_sql_double_at(b0, i);
            if (cs_column_is_valid(b1, i)) *(int64_t *)(void *)(st + 8) += cs_sql_long_at(b1, i);
        }
        return CS_OK;
    case IMPL_SUM_DEC: {
        const i128 lim = pow10_128(a->res_precision);
        for (int64_t i = 0; i < n; i++) {
            uint8_t *st = STATE(gid[i]);
            bool empty = cs_column_is_valid(b1, i) && cs_bit_get(b1->values, i);
            if (empty) continue;
            st[16] = 1;
            if (!cs_column_is_valid(b0, i))
                st[17] = 1; /* a null sum of a non-empty buffer: it overflowed */
            else
                add_dec(a, st, rd_dec(b0, i), lim);
        }
        return CS_OK;
    }
    case IMPL_AVG_DEC: {
        const i128 lim = pow10_128(a->res_precision);
        for (int64_t i = 0; i < n; i++) {
            uint8_t *st = STATE(gid[i]);
            int64_t cnt = cs_column_is_valid(b1, i) ? cs_sql_long_at(b1, i) : 0;
            if (cnt == 0) continue;
            *(int64_t *)(void *)(st + 16) += cnt;
            if (!cs_column_is_valid(b0, i))
                st[24] = 1;
            else
                add_dec(a, st, rd_dec(b0, i), lim);
        }
        return CS_OK;
    }
    case IMPL_MIN:
    case IMPL_MAX:
        for (int64_t i = 0; i < n; i++)
            fold_value(a, STATE(gid[i]), b0, i, cs_column_is_valid(b0, i), arena);
        return CS_OK;
    default: /* first / last: only buffers whose valueSet is true count */
        for (int64_t i = 0; i < n; i++) {
            if (!cs_column_is_valid(b1, i) || !cs_bit_get(b1->values, i)) continue;
            uint8_t *st = STATE(gid[i]);
            if (a->impl == IMPL_FIRST && st[17]) continue;
            bool valid = cs_column_is_valid(b0, i);
            if (valid) {
                uint8_t v[16] = {0};
                cs_sql_agg_load_value(b0, i, v);
                cs_sql_agg_keep_value(a->arg_type->id, st, v, arena);
            }
            st[16] = valid;
            st[17] = 1;
        }
        return CS_OK;
    }
}

/* A column of n values of `type` from the stored form at st(g) (valid when has(g)). */
cs_column *cs_sql_agg_value_column(cs_col_type *type, const uint8_t *states, size_t stride, int off,
                                   int has_off, int64_t g0, int64_t n, cs_col_allocator *alloc)
{
    cs_col_builder *b = cs_col_builder_new(alloc, type);
    cs_type_id id = type->id;
    if (is_var(id)) {
        for (int64_t g = g0; g < g0 + n; g++) {
            const uint8_t *st = states + (size_t)g * stride + off;
            if (!st[has_off]) {
                cs_col_builder_append_nulls(b, 1);
                continue;
            }
            const uint8_t *p;
            int32_t len;
            memcpy(&p, st, sizeof p);
            memcpy(&len, st + 8, 4);
            cs_col_builder_append_string(b, len ? (const void *)p : "", (size_t)len);
        }
    } else {
        int w = id == CS_TYPE_BOOLEAN ? 1 : cs_col_type_width(id);
        uint8_t *vals = cs_xcalloc((size_t)(n > 0 ? n : 1), (size_t)w);
        uint8_t *valid = cs_xmalloc((size_t)(n > 0 ? n : 1));
        bool any_null = false;
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *st = states + (size_t)(g0 + i) * stride + off;
            valid[i] = has_off < 0 || st[has_off];
            any_null |= !valid[i];
            if (valid[i]) memcpy(vals + (size_t)i * (size_t)w, st, (size_t)w);
        }
        cs_col_builder_append_values(b, vals, n, any_null ? valid : NULL);
        free(vals);
        free(valid);
    }
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

/* A boolean column of n values: st[flag_off] (negated when negate). */
static cs_column *flag_column(const uint8_t *states, size_t stride, int off, int64_t g0, int64_t n,
                              bool negate, cs_col_allocator *alloc)
{
    uint8_t *v = cs_xmalloc((size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++)
        v[i] = (uint8_t)((states[(size_t)(g0 + i) * stride + (size_t)off] != 0) != negate);
    cs_col_builder *b = cs_col_builder_new(alloc, cs_col_type_primitive(CS_TYPE_BOOLEAN));
    cs_col_builder_append_values(b, v, n, NULL);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    free(v);
    return c;
}

void cs_sql_agg_export(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                       int64_t n, cs_col_allocator *alloc, cs_column **bufs)
{
    if (a->impl >= CS_SQL_AGG_IMPL_EXT) {
        cs_sql_agg_ext_export(a, states, stride, g0, n, alloc, bufs);
        return;
    }
    int o = a->state_off;
    switch (a->impl) {
    case IMPL_COUNT_STAR:
    case IMPL_COUNT:
    case IMPL_COUNT_IF:
        bufs[0] = cs_sql_agg_value_column(a->buf_types[0], states, stride, o, -1, g0, n, alloc);
        return;
    case IMPL_SUM_LONG:
    case IMPL_SUM_DOUBLE:
        bufs[0] = cs_sql_agg_value_column(a->buf_types[0], states, stride, o, 8, g0, n, alloc);
        return;
    case IMPL_AVG_DOUBLE:
        bufs[0] = cs_sql_agg_value_column(a->buf_types[0], states, stride, o, -1, g0, n, alloc);
        bufs[1] = cs_sql_agg_value_column(a->buf_types[1], states, stride, o + 8, -1, g0, n, alloc);
        return;
    case IMPL_SUM_DEC: {
        /* sum is null when empty or overflowed; isEmpty = !has */
        uint8_t *valid = cs_xmalloc((size_t)(n > 0 ? n : 1));
        i128 *v = cs_xcalloc((size_t)(n > 0 ? n : 1), 16);
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *st = states + (size_t)(g0 + i) * stride + o;
            valid[i] = st[16] && !st[17];
            if (valid[i]) memcpy(&v[i], st, 16);
        }
        cs_col_builder *b = cs_col_builder_new(alloc, a->buf_types[0]);
        cs_col_builder_append_values(b, v, n, valid);
        bufs[0] = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        free(v);
        free(valid);
        bufs[1] = flag_column(states, stride, o + 16, g0, n, true, alloc);
        return;
    }
    case IMPL_AVG_DEC: {
        uint8_t *valid = cs_xmalloc((size_t)(n > 0 ? n : 1));
        i128 *v = cs_xcalloc((size_t)(n > 0 ? n : 1), 16);
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *st = states + (size_t)(g0 + i) * stride + o;
            valid[i] = !st[24];
            if (valid[i]) memcpy(&v[i], st, 16);
        }
        cs_col_builder *b = cs_col_builder_new(alloc, a->buf_types[0]);
        cs_col_builder_append_values(b, v, n, valid);
        bufs[0] = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        free(v);
        free(valid);
        bufs[1] =
            cs_sql_agg_value_column(a->buf_types[1], states, stride, o + 16, -1, g0, n, alloc);
        return;
    }
    case IMPL_MIN:
    case IMPL_MAX:
        bufs[0] = cs_sql_agg_value_column(a->buf_types[0], states, stride, o, 16, g0, n, alloc);
        return;
    default:
        bufs[0] = cs_sql_agg_value_column(a->buf_types[0], states, stride, o, 16, g0, n, alloc);
        bufs[1] = flag_column(states, stride, o + 17, g0, n, false, alloc);
        return;
    }
}

/* Rounds x / d half away from zero (Spark's ROUND_HALF_UP), d > 0. */
static i128 div_half_up(i128 x, i128 d)
{
    i128 q = x / d, r = x % d;
    if (r < 0) r = -r;
    if (2 * r >= d) q += x < 0 ? -1 : 1;
    return q;
}

int cs_sql_agg_evaluate(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                        int64_t n, bool ansi, cs_col_allocator *alloc, cs_column **out,
                        cs_error *err)
{
    int o = a->state_off;
    *out = NULL;
    if (a->impl >= CS_SQL_AGG_IMPL_EXT)
        return cs_sql_agg_ext_evaluate(a, states, stride, g0, n, alloc, out, err);
    ansi = ansi && !a->never_ansi;
    if (a->impl == IMPL_AVG_DOUBLE) {
        double *v = cs_xcalloc((size_t)(n > 0 ? n : 1), 8);
        uint8_t *valid = cs_xmalloc((size_t)(n > 0 ? n : 1));
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *st = states + (size_t)(g0 + i) * stride + o;
            int64_t cnt;
            memcpy(&cnt, st + 8, 8);
            valid[i] = cnt != 0;
            if (cnt) v[i] = *(const double *)(const void *)st / (double)cnt;
        }
        cs_col_builder *b = cs_col_builder_new(alloc, a->result_type);
        cs_col_builder_append_values(b, v, n, valid);
        *out = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        free(v);
        free(valid);
        return CS_OK;
    }
    if (a->impl == IMPL_SUM_DEC || a->impl == IMPL_AVG_DEC) {
        i128 *v = cs_xcalloc((size_t)(n > 0 ? n : 1), 16);
        uint8_t *valid = cs_xmalloc((size_t)(n > 0 ? n : 1));
        int rp = a->result_type->precision, rs = a->result_type->scale;
        i128 lim = pow10_128(rp);
        int rc = CS_OK;
        for (int64_t i = 0; i < n && rc == CS_OK; i++) {
            const uint8_t *st = states + (size_t)(g0 + i) * stride + o;
            i128 s;
            memcpy(&s, st, 16);
            bool overflow;
            if (a->impl == IMPL_SUM_DEC) {
                valid[i] = st[16];
                overflow = st[17];
            } else {
                int64_t cnt;
                memcpy(&cnt, st + 16, 8);
                valid[i] = cnt != 0;
                overflow = st[24];
                if (valid[i] && !overflow) {
                    /* sum (scale s) / cnt at scale rs: q * 10^k + round(r * 10^k / cnt) */
                    int k = rs - a->arg_type->scale;
                    i128 q = s / cnt, r = s % cnt, m = pow10_128(k);
                    i128 qs = q * m;
                    if (q != 0 && (qs / m != q)) overflow = true;
                    s = qs + div_half_up(r * m, cnt);
                }
            }
            if (valid[i] && !overflow && (s >= lim || s <= -lim)) overflow = true;
            if (valid[i] && overflow) {
                if (ansi)
                    rc = a->impl == IMPL_SUM_DEC ? sum_dec_overflow(err)
                                                 : dec_out_of_range(s, rp, rs, err);
                valid[i] = 0;
            }
            if (valid[i]) v[i] = s;
        }
        if (rc == CS_OK) {
            cs_col_builder *b = cs_col_builder_new(alloc, a->result_type);
            cs_col_builder_append_values(b, v, n, valid);
            *out = cs_col_builder_finish(b);
            cs_col_builder_free(b);
        }
        free(v);
        free(valid);
        return rc;
    }
    /* the others: the result is the (first) buffer */
    cs_column *bufs[2] = {NULL, NULL};
    cs_sql_agg_export(a, states, stride, g0, n, alloc, bufs);
    *out = bufs[0];
    cs_column_unref(bufs[1]);
    return CS_OK;
}
