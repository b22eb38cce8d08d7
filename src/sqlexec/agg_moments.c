/*
 * agg_moments.c — the state arithmetic of agg_functions_ext.c's statistical aggregates, in
 * Spark's order of operations so that results are the same doubles: CentralMomentAgg (n, avg,
 * m2[, m3[, m4]]: stddev / variance, skewness, kurtosis), Covariance and PearsonCorrelation
 * (n, xAvg, yAvg, ck[, xMk, yMk]), and the results of each function over those states (the
 * regr_* aggregates read corr's state; null where Spark 4 divides by zero).
 *
 * States are doubles in the aggregate's state rows (the caller's); nothing here allocates.
 */
#include <math.h>
#include <string.h>

#include "sqlexec/sql_ops_internal.h"

static double *D(uint8_t *st, int k)
{
    return (double *)(void *)(st + 8 * k);
}

/* order: the highest moment kept (2, 3 or 4), in Spark's order of operations */
void cs_sql_moment_add(uint8_t *st, double x, int order)
{
    double n = *D(st, 0) + 1.0, delta = x - *D(st, 1), deltaN = delta / n;
    double m2 = *D(st, 2) + delta * (delta - deltaN);
    double delta2 = delta * delta, deltaN2 = deltaN * deltaN;
    *D(st, 0) = n;
    *D(st, 1) += deltaN;
    *D(st, 2) = m2;
    if (order >= 3) {
        double m3 = *D(st, 3) - 3.0 * deltaN * m2 + delta * (delta2 - deltaN2);
        if (order >= 4)
            *D(st, 4) = *D(st, 4) - 4.0 * deltaN * m3 - 6.0 * deltaN2 * m2 +
                        delta * (delta * delta2 - deltaN * deltaN2);
        *D(st, 3) = m3;
    }
}

void cs_sql_moment_merge(uint8_t *st, const double *o, int order)
{
    double n1 = *D(st, 0), n2 = o[0], avg1 = *D(st, 1), newN = n1 + n2;
    double delta = o[1] - avg1, deltaN = newN == 0.0 ? 0.0 : delta / newN;
    double m2l = *D(st, 2), m2r = o[2];
    *D(st, 0) = newN;
    *D(st, 1) = avg1 + deltaN * n2;
    *D(st, 2) = m2l + m2r + delta * deltaN * n1 * n2;
    if (order >= 3) {
        double m3l = *D(st, 3), m3r = o[3];
        *D(st, 3) = m3l + m3r + deltaN * deltaN * delta * n1 * n2 * (n1 - n2) +
                    3.0 * deltaN * (n1 * m2r - n2 * m2l);
        if (order >= 4)
            *D(st, 4) = *D(st, 4) + o[4] +
                        deltaN * deltaN * deltaN * delta * n1 * n2 * (n1 * n1 - n1 * n2 + n2 * n2) +
                        6.0 * deltaN * deltaN * (n1 * n1 * m2r + n2 * n2 * m2l) +
                        4.0 * deltaN * (n1 * m3r - n2 * m3l);
    }
}

void cs_sql_covar_add(uint8_t *st, double x, double y, bool corr)
{
    double n = *D(st, 0) + 1.0;
    double dx = x - *D(st, 1), dxN = dx / n, dy = y - *D(st, 2), dyN = dy / n;
    double xAvg = *D(st, 1) + dxN, yAvg = *D(st, 2) + dyN;
    *D(st, 0) = n;
    *D(st, 1) = xAvg;
    *D(st, 2) = yAvg;
    *D(st, 3) += dx * (y - yAvg);
    if (corr) {
        *D(st, 4) += dx * (x - xAvg);
        *D(st, 5) += dy * (y - yAvg);
    }
}

void cs_sql_covar_merge(uint8_t *st, const double *o, bool corr)
{
    double n1 = *D(st, 0), n2 = o[0], newN = n1 + n2;
    double dx = o[1] - *D(st, 1), dxN = newN == 0.0 ? 0.0 : dx / newN;
    double dy = o[2] - *D(st, 2), dyN = newN == 0.0 ? 0.0 : dy / newN;
    *D(st, 0) = newN;
    *D(st, 1) += dxN * n2;
    *D(st, 2) += dyN * n2;
    *D(st, 3) += o[3] + dx * dyN * n1 * n2;
    if (corr) {
        *D(st, 4) += o[4] + dx * dxN * n1 * n2;
        *D(st, 5) += o[5] + dy * dyN * n1 * n2;
    }
}

/* The result of one moment / covariance / correlation state; false: null. */
bool cs_sql_stat_result(cs_agg_fn fn, const uint8_t *st, double *out)
{
    double n, v[6];
    int nv = fn == CS_AGG_CORR || fn >= CS_AGG_REGR_SLOPE        ? 6
             : fn == CS_AGG_COVAR_SAMP || fn == CS_AGG_COVAR_POP ? 4
             : fn == CS_AGG_SKEWNESS                             ? 4
             : fn == CS_AGG_KURTOSIS                             ? 5
                                                                 : 3;
    memcpy(v, st, sizeof v[0] * (size_t)nv);
    n = v[0];
    if (n == 0.0) return false;
    switch (fn) {
    case CS_AGG_STDDEV_POP:
        *out = sqrt(v[2] / n);
        return true;
    case CS_AGG_VAR_POP:
        *out = v[2] / n;
        return true;
    case CS_AGG_STDDEV_SAMP:
        if (n == 1.0) return false;
        *out = sqrt(v[2] / (n - 1.0));
        return true;
    case CS_AGG_VAR_SAMP:
        if (n == 1.0) return false;
        *out = v[2] / (n - 1.0);
        return true;
    case CS_AGG_SKEWNESS:
        if (v[2] == 0.0) return false;
        *out = sqrt(n) * v[3] / sqrt(v[2] * v[2] * v[2]);
        return true;
    case CS_AGG_KURTOSIS:
        if (v[2] == 0.0) return false;
        *out = n * v[4] / (v[2] * v[2]) - 3.0;
        return true;
    case CS_AGG_COVAR_POP:
        *out = v[3] / n;
        return true;
    /* regr_*(y, x): v[1] avg(y), v[2] avg(x), v[3] ck, v[4] M2(y), v[5] M2(x) */
    case CS_AGG_REGR_SLOPE:
        if (v[5] == 0.0) return false;
        *out = (v[3] / n) / (v[5] / n);
        return true;
    case CS_AGG_REGR_INTERCEPT:
        if (v[5] == 0.0) return false;
        *out = v[1] - (v[3] / n) / (v[5] / n) * v[2];
        return true;
    case CS_AGG_REGR_R2: {
        if (v[5] == 0.0) return false;
        if (v[4] == 0.0) {
            *out = 1.0;
            return true;
        }
        double r = v[3] / sqrt(v[4] * v[5]);
        *out = r * r;
        return true;
    }
    case CS_AGG_REGR_SXX:
        *out = v[5];
        return true;
    case CS_AGG_REGR_SYY:
        *out = v[4];
        return true;
    case CS_AGG_REGR_SXY:
        *out = v[3];
        return true;
    case CS_AGG_REGR_AVGX:
        *out = v[2];
        return true;
    case CS_AGG_REGR_AVGY:
        *out = v[1];
        return true;
    case CS_AGG_COVAR_SAMP:
        if (n == 1.0) return false;
        *out = v[3] / (n - 1.0);
        return true;
    default: /* corr */
        if (n == 1.0) return false;
        *out = v[3] / sqrt(v[4] * v[5]);
        return true;
    }
}
