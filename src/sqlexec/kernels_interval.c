/*
 * kernels_interval.c — arithmetic of Spark's ANSI intervals: year-month ± year-month (int32
 * months) and day-time ± day-time (int64 microseconds) whatever their fields, an interval times
 * or divided by a number (Spark's MultiplyYMInterval / DivideDTInterval ...: integral factors
 * exactly, HALF_UP on division, fractional ones rounded HALF_UP too), negative / abs of an
 * interval, DATE - DATE (interval day) / TIMESTAMP - TIMESTAMP (interval day to second), and
 * the fields of an interval (EXTRACT's year, month, day, hour, minute, second).
 * Overflow is Spark's ARITHMETIC_OVERFLOW, division by zero INTERVAL_DIVIDED_BY_ZERO. One loop
 * per batch. Called through cs_px_interval_lookup (pexpr.c's chain), which also hands out the
 * constructors of kernels_interval_make.c.
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static bool is_interval(cs_type_id id)
{
    return id == CS_TYPE_INTERVAL_YM || id == CS_TYPE_INTERVAL_DT;
}

static bool is_number(cs_type_id id)
{
    return id == CS_TYPE_BYTE || id == CS_TYPE_SHORT || id == CS_TYPE_INT || id == CS_TYPE_LONG ||
           id == CS_TYPE_FLOAT || id == CS_TYPE_DOUBLE || id == CS_TYPE_DECIMAL;
}

/* a number as an int64 (exact) or a double, by its type */
static bool load_number(const cs_column *c, int64_t i, int64_t *l, double *d)
{
    switch (c->type->id) {
    case CS_TYPE_BYTE:
        *l = ((const int8_t *)c->values)[i];
        return true;
    case CS_TYPE_SHORT:
        *l = ((const int16_t *)(const void *)c->values)[i];
        return true;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM:
        *l = ((const int32_t *)(const void *)c->values)[i];
        return true;
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
    case CS_TYPE_INTERVAL_DT:
        *l = ((const int64_t *)(const void *)c->values)[i];
        return true;
    case CS_TYPE_FLOAT:
        *d = ((const float *)(const void *)c->values)[i];
        return false;
    case CS_TYPE_DECIMAL: {
        char t[64];
        cs_px_dec_format(cs_px_dec_get(c, i), c->type->scale, t);
        *d = strtod(t, NULL);
        return false;
    }
    default:
        *d = ((const double *)(const void *)c->values)[i];
        return false;
    }
}

/* x / y rounded HALF_UP */
static int64_t div_half_up(int64_t x, int64_t y)
{
    int64_t q = x / y, r = x % y;
    if (r != 0 && (r < 0 ? -r : r) * 2 >= (y < 0 ? -y : y)) q += (x < 0) != (y < 0) ? -1 : 1;
    return q;
}

static int interval_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    const char *fn = k->e->fn;
    char op = strcmp(fn, "negative") == 0 ? 'n' : strcmp(fn, "abs") == 0 ? 'a' : fn[0];
    bool ym = k->e->type->id == CS_TYPE_INTERVAL_YM;
    int64_t n = k->n, sx = cs_px_stride(a[0], n), sy = na > 1 ? cs_px_stride(a[1], n) : 0;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    /* the interval operand of * (either side) and of / (the left) */
    int iv = na > 1 && !is_interval(a[0]->type->id) && op == '*' ? 1 : 0;
    int num = 1 - iv;
    bool dates = na > 1 && a[0]->type->id == CS_TYPE_DATE;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        int64_t x = 0, y = 0, v = 0;
        double dx = 0, dy = 0;
        bool over = false;
        if (na == 1 || op == '+' || op == '-') {
            load_number(a[0], i * sx, &x, &dx);
            if (na > 1) load_number(a[1], i * sy, &y, &dy);
            if (op == 'n')
                over = __builtin_sub_overflow((int64_t)0, x, &v);
            else if (op == 'a')
                over = x < 0 ? __builtin_sub_overflow((int64_t)0, x, &v) : (v = x, false);
            else if (op == '+')
                over = __builtin_add_overflow(x, y, &v);
            else
                over = __builtin_sub_overflow(x, y, &v);
            if (dates && !over) over = __builtin_mul_overflow(v, (int64_t)86400000000LL, &v);
        } else {
            int64_t ip = 0;
            double unused;
            int64_t li = iv ? i * sy : i * sx, ln = num ? i * sy : i * sx;
            load_number(a[iv], li, &ip, &unused);
            int64_t lv;
            double dv;
            bool exact = load_number(a[num], ln, &lv, &dv);
            if (op == '/' && (exact ? lv == 0 : dv == 0)) {
                rc = cs_sql_error_set(k->err, CS_ETASK, "INTERVAL_DIVIDED_BY_ZERO", "22012",
                                      "Division by zero. Use `try_divide` to tolerate divisor "
                                      "being 0 and return NULL instead.");
                break;
            }
            if (exact) {
                if (op == '*')
                    over = __builtin_mul_overflow(ip, lv, &v);
                else if (ip == INT64_MIN && lv == -1)
                    over = true;
                else
                    v = div_half_up(ip, lv);
            } else {
                double res = op == '*' ? (double)ip * dv : (double)ip / dv;
                res = round(res);
                over = !(res >= -9223372036854775808.0 && res < 9223372036854775808.0);
                v = over ? 0 : (int64_t)res;
            }
        }
        if (ym && !over && (v < INT32_MIN || v > INT32_MAX)) over = true;
        if (over) {
            rc = cs_px_err_overflow(k->err, ym ? "integer" : "long", NULL);
            break;
        }
        if (ym)
            ((int32_t *)(void *)r->values)[i] = (int32_t)v;
        else
            ((int64_t *)(void *)r->values)[i] = v;
    }
    if (rc) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

/* year / month of an interval year to month, day / hour / minute / second of an interval day to
 * second (Spark's ExtractInterval*: truncated toward zero, the sign kept; seconds with their
 * fraction as decimal(8, 6)) */
static int field_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    cs_column *x = a[na - 1]; /* date_part('SECOND', x) or second(x) ... */
    const char *fn = na == 2 ? "second" : k->e->fn;
    int64_t n = k->n, sa = cs_px_stride(x, n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a + na - 1, 1, n);
    bool ym = x->type->id == CS_TYPE_INTERVAL_YM;
    const int64_t us_min = 60000000LL, us_hour = 60 * us_min, us_day = 24 * us_hour;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = ym ? ((const int32_t *)(const void *)x->values)[i * sa]
                       : ((const int64_t *)(const void *)x->values)[i * sa];
        if (strcmp(fn, "second") == 0) {
            cs_px_dec_put(r, i, (__int128)(v % us_min));
            continue;
        }
        int64_t f = ym                        ? (strcmp(fn, "year") == 0 ? v / 12 : v % 12)
                    : strcmp(fn, "day") == 0  ? v / us_day
                    : strcmp(fn, "hour") == 0 ? v % us_day / us_hour
                                              : v % us_hour / us_min;
        cs_px_int_put(r, i, f);
    }
    *out = r;
    return CS_OK;
}

cs_px_kernel cs_px_interval_lookup(const char *fn, const cs_col_type *const *t, int n,
                                   const cs_col_type *result)
{
    if (n == 1 && t[0]->id == CS_TYPE_INTERVAL_YM &&
        (strcmp(fn, "year") == 0 || strcmp(fn, "month") == 0) && result->id != CS_TYPE_DECIMAL)
        return field_kernel;
    if (n == 1 && t[0]->id == CS_TYPE_INTERVAL_DT &&
        ((strcmp(fn, "second") == 0 && result->id == CS_TYPE_DECIMAL && result->scale == 6) ||
         ((strcmp(fn, "day") == 0 || strcmp(fn, "hour") == 0 || strcmp(fn, "minute") == 0) &&
          result->id != CS_TYPE_DECIMAL)))
        return field_kernel;
    if (n == 2 && strcmp(fn, "date_part") == 0 && t[0]->id == CS_TYPE_STRING &&
        t[1]->id == CS_TYPE_INTERVAL_DT && result->id == CS_TYPE_DECIMAL && result->scale == 6)
        return field_kernel; /* the analyzer types only a literal SECOND field so */
    if (result->id == CS_TYPE_INTERVAL_CAL) return cs_px_interval_make_lookup(fn, t, n, result);
    if (!is_interval(result->id)) return NULL;
    cs_px_kernel make = cs_px_interval_make_lookup(fn, t, n, result);
    if (make) return make;
    if (n == 1 && (strcmp(fn, "negative") == 0 || strcmp(fn, "abs") == 0))
        return t[0]->id == result->id ? interval_kernel : NULL;
    if (n != 2) return NULL;
    if (strcmp(fn, "+") == 0 || strcmp(fn, "-") == 0) {
        if (t[0]->id == result->id && t[1]->id == result->id) return interval_kernel;
        if (strcmp(fn, "-") == 0 && result->id == CS_TYPE_INTERVAL_DT &&
            ((t[0]->id == CS_TYPE_DATE && t[1]->id == CS_TYPE_DATE) ||
             (t[0]->id == t[1]->id &&
              (t[0]->id == CS_TYPE_TIMESTAMP || t[0]->id == CS_TYPE_TIMESTAMP_NTZ))))
            return interval_kernel;
        return NULL;
    }
    if (strcmp(fn, "*") == 0)
        return (t[0]->id == result->id && is_number(t[1]->id)) ||
                       (t[1]->id == result->id && is_number(t[0]->id))
                   ? interval_kernel
                   : NULL;
    if (strcmp(fn, "/") == 0)
        return t[0]->id == result->id && is_number(t[1]->id) ? interval_kernel : NULL;
    return NULL;
}
