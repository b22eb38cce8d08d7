/*
 * plan_print.c — Spark's three ways of writing trees (see sql_expr.h, logical_plan.h):
 *   - cs_sql_expr_pretty_name: the column name Spark gives an unaliased expression (toPrettySQL:
 *     attributes by name, string literals bare, operators in parentheses "(a + 1)", functions by
 *     the name as written "substr(s, 1)", count(*) as "count(1)", implicit casts left out);
 *   - cs_sql_expr_print: Catalyst's toString for EXPLAIN ("(a#1 + 1)", "cast(a#1 as bigint)",
 *     "'a" for unresolved names, "b#2L" for bigint attributes);
 *   - cs_logical_plan_print: the tree string ("Project [...]" with "+- " / ":- " children).
 * Called by the analyzer (names, error messages), EXPLAIN and the SQL tab.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "sql/catalog.h"
#include "sql/logical_plan.h"
#include "sql/sql_expr.h"
#include "sql/type_coercion.h"

/* PRETTY: toPrettySQL (result names); PRINT: toString (EXPLAIN); SQL: Expression.sql as Spark's
 * messages quote expressions (attributes with their qualifier) */
typedef enum { MODE_PRETTY, MODE_PRINT, MODE_SQL } print_mode;

static void expr_out(const cs_sql_expr *e, print_mode m, cs_sbuf *out);

static void civil_from_days(int64_t z, int *y, unsigned *mo, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *mo = mp < 10 ? mp + 3 : mp - 9;
    *y = (int)(yy + (*mo <= 2));
}

static void put_int128(__int128 v, int scale, cs_sbuf *out)
{
    char buf[64];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        buf[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale)
        buf[n++] = '0';
    if (neg) cs_sbuf_putc(out, '-');
    for (int i = n - 1; i >= 0; i--) {
        cs_sbuf_putc(out, buf[i]);
        if (i == scale && scale > 0) cs_sbuf_putc(out, '.');
    }
}

static void put_timestamp(int64_t us, cs_sbuf *out)
{
    int64_t days = us >= 0 ? us / 86400000000LL : -((-us + 86399999999LL) / 86400000000LL);
    int64_t rem = us - days * 86400000000LL;
    int y;
    unsigned mo, d;
    civil_from_days(days, &y, &mo, &d);
    cs_sbuf_printf(out, "%04d-%02u-%02u %02d:%02d:%02d", y, mo, d, (int)(rem / 3600000000LL),
                   (int)(rem / 60000000LL % 60), (int)(rem / 1000000LL % 60));
    int64_t frac = rem % 1000000LL;
    if (frac) {
        char f[8];
        snprintf(f, sizeof f, "%06d", (int)frac);
        for (int i = 5; i > 0 && f[i] == '0'; i--)
            f[i] = '\0';
        cs_sbuf_printf(out, ".%s", f);
    }
}

/* Java's Double.toString / Float.toString, as Spark prints a double literal ("0.1", "1.0E16",
 * "1.5E-7", "NaN"): the shortest digits that read back as v, in plain notation when
 * 1e-3 <= |v| < 1e7, else d.dddE<exponent>; always a digit after the point. */
static void java_double_out(double v, bool is_float, cs_sbuf *out)
{
    if (isnan(v)) {
        cs_sbuf_puts(out, "NaN");
        return;
    }
    if (isinf(v)) {
        cs_sbuf_puts(out, v < 0 ? "-Infinity" : "Infinity");
        return;
    }
    if (v == 0) {
        cs_sbuf_puts(out, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char buf[48];
    for (int p = 0; p <= 17; p++) { /* the shortest %e form that reads back as v */
        snprintf(buf, sizeof buf, "%.*e", p, v);
        double back = strtod(buf, NULL);
        if (is_float ? (float)back == (float)v : back == v) break;
    }
    /* buf: [-]d[.ddd]e[+-]xx */
    const char *q = buf;
    if (*q == '-') cs_sbuf_putc(out, *q++);
    char digits[24];
    int nd = 0;
    for (; *q && *q != 'e'; q++)
        if (*q != '.' && nd < (int)sizeof digits - 1) digits[nd++] = *q;
    digits[nd] = '\0';
    int exp10 = atoi(q + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        digits[--nd] = '\0';
    if (exp10 >= -3 && exp10 < 7) {
        if (exp10 < 0) {
            cs_sbuf_puts(out, "0.");
            for (int i = -1; i > exp10; i--)
                cs_sbuf_putc(out, '0');
            cs_sbuf_puts(out, digits);
        } else {
            for (int i = 0; i <= exp10; i++)
                cs_sbuf_putc(out, i < nd ? digits[i] : '0');
            cs_sbuf_putc(out, '.');
            if (nd > exp10 + 1)
                cs_sbuf_puts(out, digits + exp10 + 1);
            else
                cs_sbuf_putc(out, '0');
        }
    } else {
        cs_sbuf_putc(out, digits[0]);
        cs_sbuf_putc(out, '.');
        cs_sbuf_puts(out, nd > 1 ? digits + 1 : "0");
        cs_sbuf_printf(out, "E%d", exp10);
    }
}

/* IntervalUtils.toDayTimeIntervalString: INTERVAL '1 02:03:04.5' DAY TO SECOND, '90' MINUTE,
 * '02:30' HOUR TO MINUTE (fields of t: precision = start, scale = end; 0 DAY .. 3 SECOND). */
static void day_time_interval_out(int64_t us, const cs_col_type *t, cs_sbuf *out)
{
    static const int64_t unit[] = {86400000000LL, 3600000000LL, 60000000LL, 1000000LL};
    static const char *const names[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
    int from = t->precision, to = t->scale;
    if (from < 0 || from > 3 || to < from || to > 3) {
        cs_sbuf_printf(out, "INTERVAL '%" PRId64 "' MICROSECOND", us);
        return;
    }
    cs_sbuf_puts(out, "INTERVAL '");
    uint64_t rest = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
    if (us < 0) cs_sbuf_putc(out, '-');
    for (int f = from; f <= to; f++) {
        if (f > from) cs_sbuf_putc(out, f == 1 ? ' ' : ':');
        if (f == 3) { /* seconds with their fraction, trailing zeros dropped */
            cs_sbuf_printf(out, "%02" PRIu64, rest / 1000000);
            uint64_t frac = rest % 1000000;
            if (frac) {
                char fb[8];
                snprintf(fb, sizeof fb, "%06" PRIu64, frac);
                for (int i = 5; i > 0 && fb[i] == '0'; i--)
                    fb[i] = '\0';
                cs_sbuf_printf(out, ".%s", fb);
            }
        } else {
            cs_sbuf_printf(out, f == 0 ? "%" PRIu64 : "%02" PRIu64, rest / (uint64_t)unit[f]);
            rest %= (uint64_t)unit[f];
        }
    }
    if (from == to)
        cs_sbuf_printf(out, "' %s", names[from]);
    else
        cs_sbuf_printf(out, "' %s TO %s", names[from], names[to]);
}

static void literal_out(const cs_sql_expr *e, print_mode m, cs_sbuf *out)
{
    const cs_column *c = e->literal;
    if (!c || c->type->id == CS_TYPE_NULL || c->null_count > 0 ||
        (c->validity && !cs_column_is_valid(c, 0))) {
        cs_sbuf_puts(out, m == MODE_PRETTY ? "NULL" : "null");
        return;
    }
    switch (c->type->id) {
    case CS_TYPE_BOOLEAN:
        cs_sbuf_puts(out, cs_bit_get(c->values, 0) ? "true" : "false");
        return;
    /* numbers print bare in names and plans (Spark's usePrettyExpression, Literal.toString) */
    case CS_TYPE_BYTE:
        cs_sbuf_printf(out, "%d", ((const int8_t *)c->values)[0]);
        return;
    case CS_TYPE_SHORT:
        cs_sbuf_printf(out, "%d", ((const int16_t *)c->values)[0]);
        return;
    case CS_TYPE_INT:
        cs_sbuf_printf(out, "%" PRId32, ((const int32_t *)c->values)[0]);
        return;
    case CS_TYPE_LONG:
        cs_sbuf_printf(out, "%" PRId64, ((const int64_t *)c->values)[0]);
        return;
    case CS_TYPE_FLOAT:
        java_double_out(((const float *)c->values)[0], true, out);
        return;
    case CS_TYPE_DOUBLE:
        java_double_out(((const double *)c->values)[0], false, out);
        return;
    case CS_TYPE_DECIMAL: {
        __int128 v;
        memcpy(&v, c->values, sizeof v);
        /* Java's BigDecimal.toString: scientific when the exponent is below -6 (1E-38) */
        unsigned __int128 u =
            v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
        char digits[48];
        int nd = 0;
        do {
            digits[nd++] = (char)('0' + (int)(u % 10));
            u /= 10;
        } while (u);
        int adjusted = nd - 1 - c->type->scale;
        if (c->type->scale > 0 && adjusted < -6) {
            if (v < 0) cs_sbuf_putc(out, '-');
            cs_sbuf_putc(out, digits[nd - 1]);
            if (nd > 1) cs_sbuf_putc(out, '.');
            for (int i = nd - 2; i >= 0; i--)
                cs_sbuf_putc(out, digits[i]);
            cs_sbuf_printf(out, "E%d", adjusted);
        } else {
            put_int128(v, c->type->scale, out);
        }
        return;
    }
    case CS_TYPE_STRING: {
        int32_t len = 0;
        const uint8_t *p = cs_column_bytes(c, 0, &len);
        if (m == MODE_PRETTY)
            cs_sbuf_append(out, p, (size_t)len);
        else
            cs_sbuf_append(out, p, (size_t)len);
        return;
    }
    case CS_TYPE_DATE: {
        int y;
        unsigned mo, d;
        civil_from_days(((const int32_t *)c->values)[0], &y, &mo, &d);
        cs_sbuf_printf(out, "DATE '%04d-%02u-%02u'", y, mo, d);
        return;
    }
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
        cs_sbuf_puts(out, c->type->id == CS_TYPE_TIMESTAMP ? "TIMESTAMP '" : "TIMESTAMP_NTZ '");
        put_timestamp(((const int64_t *)c->values)[0], out);
        cs_sbuf_putc(out, '\'');
        return;
    case CS_TYPE_BINARY: {
        int32_t len = 0;
        const uint8_t *p = cs_column_bytes(c, 0, &len);
        cs_sbuf_puts(out, "X'");
        for (int32_t i = 0; i < len; i++)
            cs_sbuf_printf(out, "%02X", p[i]);
        cs_sbuf_putc(out, '\'');
        return;
    }
    case CS_TYPE_INTERVAL_DT:
        day_time_interval_out(((const int64_t *)c->values)[0], c->type, out);
        return;
    case CS_TYPE_INTERVAL_YM: {
        /* IntervalUtils.toYearMonthIntervalString: the sign before the first field */
        int32_t mo = ((const int32_t *)c->values)[0];
        const char *sign = mo < 0 ? "-" : "";
        int64_t abs_mo = mo < 0 ? -(int64_t)mo : mo;
        if (c->type->precision == CS_INTERVAL_YEAR && c->type->scale == CS_INTERVAL_YEAR)
            cs_sbuf_printf(out, "INTERVAL '%s%" PRId64 "' YEAR", sign, abs_mo / 12);
        else if (c->type->precision == CS_INTERVAL_MONTH)
            cs_sbuf_printf(out, "INTERVAL '%s%" PRId64 "' MONTH", sign, abs_mo);
        else
            cs_sbuf_printf(out, "INTERVAL '%s%" PRId64 "-%" PRId64 "' YEAR TO MONTH", sign,
                           abs_mo / 12, abs_mo % 12);
        return;
    }
    default:
        cs_sbuf_puts(out, "<literal>");
        return;
    }
}

/* Operators written between their operands, with Spark's symbols. */
static const char *infix_symbol(const char *fn)
{
    static const char *const ops[][2] = {
        {"+", "+"},     {"-", "-"},     {"*", "*"}, {"/", "/"},   {"%", "%"}, {"div", "div"},
        {"=", "="},     {"<=>", "<=>"}, {"<", "<"}, {"<=", "<="}, {">", ">"}, {">=", ">="},
        {"and", "AND"}, {"or", "OR"},   {"&", "&"}, {"|", "|"},   {"^", "^"}, {"||", "||"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i][0], fn) == 0) return ops[i][1];
    return NULL;
}

/* Whether Spark's expression for fn prints its own name in upper case (SQRT, CEIL, RANK); ceil
 * and power only as written: ceiling(x), pow(x) keep their lower-case alias */
static bool prints_upper(const char *fn)
{
    static const char *const names[] = {
        "sqrt",   "exp",         "ceil", "power",      "floor",       "cbrt", "sin",     "cos",
        "tan",    "asin",        "acos", "atan",       "log10",       "log2", "degrees", "radians",
        "signum", "regexp_like", "log",  "log1p",      "expm1",       "sinh", "cosh",    "acosh",
        "asinh",  "atanh",       "sec",  "csc",        "cot",         "tanh", "atan2",   "hypot",
        "pi",     "e",           "rank", "dense_rank", "percent_rank"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], fn) == 0) return true;
    return false;
}

static void args_out(const cs_sql_expr *e, int from, print_mode m, cs_sbuf *out)
{
    for (int i = from; i < e->n_args; i++) {
        if (i > from) cs_sbuf_puts(out, ", ");
        expr_out(e->args[i], m, out);
    }
}

static void lower_out(const char *s, cs_sbuf *out)
{
    for (; *s; s++)
        cs_sbuf_putc(out, (char)tolower((unsigned char)*s));
}

static void type_out(const cs_col_type *t, print_mode m, cs_sbuf *out)
{
    if (m == MODE_PRETTY)
        cs_tc_type_sql(t, out);
    else
        cs_col_type_simple_string(t, out);
}

static void sort_order_out(const cs_sql_expr *e, print_mode m, cs_sbuf *out)
{
    expr_out(e->args[0], m, out);
    cs_sbuf_puts(out, e->descending ? " DESC" : " ASC");
    cs_sbuf_puts(out, e->nulls_first ? " NULLS FIRST" : " NULLS LAST");
}

static void bound_out(const cs_frame_bound *b, print_mode m, cs_sbuf *out)
{
    switch (b->kind) {
    case CS_BOUND_UNBOUNDED_PRECEDING:
        cs_sbuf_puts(out, "UNBOUNDED PRECEDING");
        return;
    case CS_BOUND_UNBOUNDED_FOLLOWING:
        cs_sbuf_puts(out, "UNBOUNDED FOLLOWING");
        return;
    case CS_BOUND_CURRENT_ROW:
        cs_sbuf_puts(out, "CURRENT ROW");
        return;
    case CS_BOUND_PRECEDING:
        if (b->offset) expr_out(b->offset, m, out);
        cs_sbuf_puts(out, " PRECEDING");
        return;
    case CS_BOUND_FOLLOWING:
        if (b->offset) expr_out(b->offset, m, out);
        cs_sbuf_puts(out, " FOLLOWING");
        return;
    }
}

static void window_out(const cs_sql_expr *e, print_mode m, cs_sbuf *out)
{
    expr_out(e->args[0], m, out);
    const cs_window_spec *w = e->window;
    cs_sbuf_puts(out, " OVER (");
    bool sp = false;
    if (w && w->n_partition) {
        cs_sbuf_puts(out, "PARTITION BY ");
        for (int i = 0; i < w->n_partition; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            expr_out(w->partition[i], m, out);
        }
        sp = true;
    }
    if (w && w->n_order) {
        cs_sbuf_puts(out, sp ? " ORDER BY " : "ORDER BY ");
        for (int i = 0; i < w->n_order; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            expr_out(w->order[i], m, out);
        }
        sp = true;
    }
    if (w && w->has_frame) {
        cs_sbuf_puts(out, sp ? " " : "");
        cs_sbuf_puts(out, w->frame_type == CS_FRAME_ROWS ? "ROWS BETWEEN " : "RANGE BETWEEN ");
        bound_out(&w->lower, m, out);
        cs_sbuf_puts(out, " AND ");
        bound_out(&w->upper, m, out);
    }
    cs_sbuf_putc(out, ')');
}

static bool is_datetime(const cs_col_type *t)
{
    return t->id == CS_TYPE_DATE || t->id == CS_TYPE_TIMESTAMP || t->id == CS_TYPE_TIMESTAMP_NTZ;
}

static bool is_interval(const cs_col_type *t)
{
    return t->id == CS_TYPE_INTERVAL_DT || t->id == CS_TYPE_INTERVAL_YM;
}

/* The comparator Spark's ArraySort gets when none is written (ascending, nulls last). */
#define ARRAY_SORT_DEFAULT_COMPARATOR                                                              \
    "lambdafunction((IF(((namedlambdavariable() IS NULL) AND (namedlambdavariable() IS NULL)), "   \
    "0, "                                                                                          \
    "(IF((namedlambdavariable() IS NULL), 1, (IF((namedlambdavariable() IS NULL), -1, "            \
    "(IF((namedlambdavariable() < namedlambdavariable()), -1, (IF((namedlambdavariable() > "       \
    "namedlambdavariable()), 1, 0)))))))))), namedlambdavariable(), namedlambdavariable())"

static void call_out(const cs_sql_expr *e, print_mode m, cs_sbuf *out)
{
    const char *fn = e->fn ? e->fn : e->name;
    const char *written = e->name ? e->name : fn;
    if (e->n_args == 2 && (strcmp(fn, "get_array_item") == 0 || strcmp(fn, "get_map_value") == 0 ||
                           strcmp(fn, "get_struct_field") == 0)) { /* x[k], x.field */
        expr_out(e->args[0], m, out);
        if (fn[4] == 's') {
            cs_sbuf_putc(out, '.');
            expr_out(e->args[1], MODE_PRETTY, out);
            return;
        }
        cs_sbuf_putc(out, '[');
        expr_out(e->args[1], m, out);
        cs_sbuf_putc(out, ']');
        return;
    }
    const char *sym = infix_symbol(fn);
    if (sym && e->n_args == 2 && (sym[0] == '+' || sym[0] == '-') && !sym[1] && e->args[0]->type &&
        e->args[1]->type && is_datetime(e->args[0]->type) && is_interval(e->args[1]->type)) {
        /* Spark's datetime arithmetic: DateAddYMInterval, TimestampAddInterval, DatetimeSub
         * print "l + r" without parentheses; a date plus days is date_add */
        const cs_col_type *r = e->args[1]->type;
        if (sym[0] == '+' && e->args[0]->type->id == CS_TYPE_DATE && r->id == CS_TYPE_INTERVAL_DT &&
            r->precision == 0 && r->scale == 0) {
            cs_sbuf_puts(out, "date_add(");
            expr_out(e->args[0], m, out);
            cs_sbuf_puts(out, ", extractansiintervaldays(");
            expr_out(e->args[1], m, out);
            cs_sbuf_puts(out, "))");
            return;
        }
        expr_out(e->args[0], m, out);
        cs_sbuf_printf(out, " %s ", sym);
        expr_out(e->args[1], m, out);
        return;
    }
    if (sym && e->n_args == 2 && strcmp(written, "mod") != 0) { /* mod(a, b) keeps its name */
        cs_sbuf_putc(out, '(');
        expr_out(e->args[0], m, out);
        cs_sbuf_printf(out, " %s ", sym);
        expr_out(e->args[1], m, out);
        cs_sbuf_putc(out, ')');
        return;
    }
    if (strcmp(fn, "!=") == 0 && e->n_args == 2) {
        cs_sbuf_puts(out, "(NOT (");
        expr_out(e->args[0], m, out);
        cs_sbuf_puts(out, " = ");
        expr_out(e->args[1], m, out);
        cs_sbuf_puts(out, "))");
        return;
    }
    if (e->n_args == 1) {
        const char *pre = strcmp(fn, "not") == 0 ? "(NOT "
                          : strcmp(fn, "negative") == 0 && !cs_sql_call_written_negative(e) ? "(- "
                          : strcmp(fn, "positive") == 0                                     ? "(+ "
                          : strcmp(fn, "~") == 0                                            ? "~"
                                                                                            : NULL;
        if (pre) {
            cs_sbuf_puts(out, pre);
            expr_out(e->args[0], m, out);
            if (pre[0] == '(') cs_sbuf_putc(out, ')');
            return;
        }
        if (strcmp(fn, "isnull") == 0 || strcmp(fn, "isnotnull") == 0) {
            cs_sbuf_putc(out, '(');
            expr_out(e->args[0], m, out);
            cs_sbuf_puts(out, fn[2] == 'n' && fn[3] == 'o' ? " IS NOT NULL)" : " IS NULL)");
            return;
        }
    }
    if ((strcmp(fn, "trim") == 0 || strcmp(fn, "ltrim") == 0 || strcmp(fn, "rtrim") == 0) &&
        e->n_args == 2 && m == MODE_PRETTY) { /* the parser's trim(chars, s) of TRIM(.. FROM s) */
        cs_sbuf_puts(out, fn[0] == 'l'   ? "TRIM(LEADING "
                          : fn[0] == 'r' ? "TRIM(TRAILING "
                                         : "TRIM(BOTH ");
        expr_out(e->args[0], m, out);
        cs_sbuf_puts(out, " FROM ");
        expr_out(e->args[1], m, out);
        cs_sbuf_putc(out, ')');
        return;
    }
    if (strncmp(fn, "like_", 5) == 0 || strncmp(fn, "ilike_", 6) == 0) {
        /* Spark's LikeAny / NotLikeAll ...: "likeany(s)", the patterns left out */
        cs_sbuf_puts(out, e->negated ? "not" : "");
        for (const char *q = fn; *q; q++)
            if (*q != '_') cs_sbuf_putc(out, *q);
        cs_sbuf_putc(out, '(');
        expr_out(e->args[0], m, out);
        cs_sbuf_putc(out, ')');
        return;
    }
    if ((strcmp(fn, "like") == 0 || strcmp(fn, "ilike") == 0) && e->n_args >= 2) {
        expr_out(e->args[0], m, out);
        cs_sbuf_puts(out, fn[0] == 'i' ? " ILIKE " : " LIKE ");
        expr_out(e->args[1], m, out);
        if (e->n_args == 3 && e->args[2]->kind == CS_EX_LITERAL && e->args[2]->literal &&
            e->args[2]->literal->type->id == CS_TYPE_STRING) {
            int32_t len = 0;
            const uint8_t *p = cs_column_bytes(e->args[2]->literal, 0, &len);
            if (!(len == 1 && p[0] == '\\')) { /* Spark: ESCAPE '/' unless the default */
                cs_sbuf_puts(out, " ESCAPE '");
                cs_sbuf_append(out, p, (size_t)len);
                cs_sbuf_putc(out, '\'');
            }
        }
        return;
    }
    if (e->name && cs_str_ieq(e->name, "extract") && e->n_args == 2) {
        /* extract(year FROM dt): the field is a string literal, printed bare */
        cs_sbuf_puts(out, "extract(");
        expr_out(e->args[0], MODE_PRETTY, out);
        cs_sbuf_puts(out, " FROM ");
        expr_out(e->args[1], m, out);
        cs_sbuf_putc(out, ')');
        return;
    }
    if (strcmp(fn, "if") == 0 && e->n_args == 3 && m == MODE_PRETTY) {
        cs_sbuf_puts(out, "(IF(");
        args_out(e, 0, m, out);
        cs_sbuf_puts(out, "))");
        return;
    }
    /* the name as written (Spark keeps an alias's name: substr, ucase), lower case; a few
     * of Spark's expressions print their own upper-case names (SQRT, CEIL, RANK) */
    bool upper = e->kind != CS_EX_UNRESOLVED_FUNC && prints_upper(written);
    if (e->n_args == 2 && (strcmp(fn, "ceil") == 0 || strcmp(fn, "floor") == 0))
        upper = false; /* ceil(x, 2) is Spark's RoundCeil, named in lower case */
    if (upper)
        for (const char *p = written; *p; p++)
            cs_sbuf_putc(out, (char)toupper((unsigned char)*p));
    else if (e->kind != CS_EX_UNRESOLVED_FUNC && e->name &&
             (strcmp(e->name, "array_agg") == 0 || strcmp(e->name, "random") == 0 ||
              cs_str_ieq(e->name, "current_database")))
        cs_sbuf_puts(out, fn); /* Spark names array_agg(x) collect_list(x), random rand,
                                  current_database() current_schema() */
    else if (e->kind != CS_EX_UNRESOLVED_FUNC && e->name)
        lower_out(e->name, out);
    else if (e->kind == CS_EX_UNRESOLVED_FUNC) {
        if (m == MODE_PRINT) cs_sbuf_putc(out, '\'');
        cs_sbuf_puts(out, e->name);
    } else
        cs_sbuf_puts(out, fn);
    cs_sbuf_putc(out, '(');
    if (e->distinct) cs_sbuf_puts(out, "DISTINCT ");
    if (e->within_group) { /* Spark: percentile_cont(p) WITHIN GROUP (ORDER BY x [DESC]) */
        bool resolved = e->kind != CS_EX_UNRESOLVED_FUNC && e->n_args > 1;
        expr_out(e->args[resolved ? 1 : 0], m, out);
        cs_sbuf_puts(out, ") WITHIN GROUP (ORDER BY ");
        expr_out(e->within_group->args[0], m, out);
        if (e->within_group->descending) cs_sbuf_puts(out, " DESC");
    } else if (e->kind == CS_EX_FUNC && e->n_args == 2 && e->name &&
               (cs_str_ieq(e->name, "nullifzero") || cs_str_ieq(e->name, "zeroifnull"))) {
        expr_out(e->args[0], m, out); /* the analyzer's 0 is not written */
    } else if (e->n_args == 2 && fn && strcmp(fn, "shuffle") == 0 && m != MODE_PRINT) {
        expr_out(e->args[0], m, out); /* Spark's Shuffle and Uuid keep their seeds out of */
    } else if (e->n_args == 1 && fn && strcmp(fn, "uuid") == 0 && m != MODE_PRINT) {
        /* their names */
    } else {
        args_out(e, 0, m, out);
    }
    if (e->kind == CS_EX_FUNC && strcmp(fn, "array_sort") == 0 && e->n_args == 1 && m != MODE_PRINT)
        cs_sbuf_puts(out, ", " ARRAY_SORT_DEFAULT_COMPARATOR); /* Spark's ArraySort(x) adds it */
    cs_sbuf_putc(out, ')');
    if (e->filter) {
        cs_sbuf_puts(out, " FILTER (WHERE ");
        expr_out(e->filter, m, out);
        cs_sbuf_putc(out, ')');
    }
}

static void parts_out(const cs_sql_expr *e, cs_sbuf *out)
{
    for (int i = 0; i < e->n_parts; i++) {
        if (i) cs_sbuf_putc(out, '.');
        cs_sbuf_puts(out, e->parts[i]);
    }
}

static void expr_out(const cs_sql_expr *e, print_mode m, cs_sbuf *out)
{
    if (!e) {
        cs_sbuf_puts(out, "?");
        return;
    }
    switch (e->kind) {
    case CS_EX_LITERAL:
        literal_out(e, m, out);
        return;
    case CS_EX_UNRESOLVED_ATTR:
        if (m == MODE_PRINT) cs_sbuf_putc(out, '\'');
        parts_out(e, out);
        return;
    case CS_EX_STAR:
        if (e->n_parts) {
            parts_out(e, out);
            cs_sbuf_putc(out, '.');
        }
        cs_sbuf_putc(out, '*');
        return;
    case CS_EX_ATTR:
    case CS_EX_OUTER_ATTR:
    case CS_EX_LAMBDA_VAR:
        if (e->kind == CS_EX_LAMBDA_VAR && m != MODE_PRINT) { /* Spark's NamedLambdaVariable */
            cs_sbuf_puts(out, "namedlambdavariable()");
            return;
        }
        if (m == MODE_PRETTY) {
            cs_sbuf_puts(out, e->name);
            return;
        }
        if (m == MODE_SQL) {
            for (int i = 0; i < e->n_parts; i++)
                cs_sbuf_printf(out, "%s.", e->parts[i]);
            cs_sbuf_puts(out, e->name);
            return;
        }
        if (e->kind == CS_EX_OUTER_ATTR) cs_sbuf_puts(out, "outer(");
        cs_sbuf_printf(out, "%s#%" PRId64 "%s", e->name, e->id,
                       e->type && e->type->id == CS_TYPE_LONG ? "L" : "");
        if (e->kind == CS_EX_OUTER_ATTR) cs_sbuf_putc(out, ')');
        return;
    case CS_EX_ALIAS:
        if (e->named_argument) { /* Spark's NamedArgumentExpression: key => value */
            cs_sbuf_printf(out, "%s => ", e->name);
            expr_out(e->args[0], m, out);
            return;
        }
        expr_out(e->args[0], m, out);
        if (m != MODE_PRINT && e->args[0]->kind == CS_EX_FUNC && e->args[0]->fn &&
            strcmp(e->args[0]->fn, "get_struct_field") == 0)
            return; /* s.b inside an expression: Spark trims the alias the name made */
        cs_sbuf_printf(out, " AS %s", e->name);
        if (m == MODE_PRINT)
            cs_sbuf_printf(out, "#%" PRId64 "%s", e->id,
                           e->type && e->type->id == CS_TYPE_LONG ? "L" : "");
        return;
    case CS_EX_UNRESOLVED_FUNC:
    case CS_EX_FUNC:
    case CS_EX_AGG:
        if (m == MODE_PRETTY && cs_sql_call_own_name(e))
            cs_sbuf_puts(out, cs_sql_call_own_name(e));
        else
            call_out(e, m, out);
        return;
    case CS_EX_WINDOW:
        window_out(e, m, out);
        return;
    case CS_EX_CAST:
        if (e->implicit_cast && m != MODE_PRINT && cs_sql_collated_literal_name(e, out)) return;
        if (e->implicit_cast && m != MODE_PRINT) {
            expr_out(e->args[0], m, out);
            return;
        }
        if (e->typed_literal && e->args[0]->kind == CS_EX_LITERAL && e->args[0]->literal &&
            e->args[0]->literal->type->id == CS_TYPE_TIMESTAMP_NTZ) {
            cs_sbuf_puts(out, "TIMESTAMP '"); /* TIMESTAMP '2024-01-02 03:04:05' as written */
            put_timestamp(((const int64_t *)e->args[0]->literal->values)[0], out);
            cs_sbuf_putc(out, '\'');
            return;
        }
        if (m != MODE_PRINT && e->cast_mode != CS_CAST_TRY &&
            (e->cast_type->id == CS_TYPE_ARRAY || e->cast_type->id == CS_TYPE_MAP ||
             e->cast_type->id == CS_TYPE_STRUCT) &&
            !cs_col_type_is_variant(e->cast_type)) {
            /* Spark names a cast to a complex type after its operand (NULL: a typed literal) */
            expr_out(e->args[0], m, out);
            return;
        }
        if (e->cast_mode == CS_CAST_TRY)
            cs_sbuf_puts(out, m == MODE_PRETTY ? "TRY_CAST(" : "try_cast(");
        else
            cs_sbuf_puts(out, m == MODE_PRETTY ? "CAST(" : "cast(");
        expr_out(e->args[0], m, out);
        cs_sbuf_puts(out, m == MODE_PRETTY ? " AS " : " as ");
        type_out(e->cast_type, m, out);
        cs_sbuf_putc(out, ')');
        return;
    case CS_EX_CASE: {
        cs_sbuf_puts(out, "CASE");
        int i = 0;
        if (e->has_operand) {
            cs_sbuf_putc(out, ' ');
            expr_out(e->args[0], m, out);
            i = 1;
        }
        int end = e->n_args - (e->has_else ? 1 : 0);
        for (; i + 1 < end + 1 && i < end; i += 2) {
            cs_sbuf_puts(out, " WHEN ");
            expr_out(e->args[i], m, out);
            cs_sbuf_puts(out, " THEN ");
            expr_out(e->args[i + 1], m, out);
        }
        if (e->has_else) {
            cs_sbuf_puts(out, " ELSE ");
            expr_out(e->args[e->n_args - 1], m, out);
        }
        cs_sbuf_puts(out, " END");
        return;
    }
    case CS_EX_IN_LIST:
        cs_sbuf_putc(out, '(');
        expr_out(e->args[0], m, out);
        cs_sbuf_puts(out, e->negated ? " NOT IN (" : " IN (");
        args_out(e, 1, m, out);
        cs_sbuf_puts(out, "))");
        return;
    case CS_EX_IN_SUBQUERY:
        cs_sbuf_putc(out, '(');
        args_out(e, 0, m, out);
        cs_sbuf_puts(out, e->negated ? " NOT IN (listquery()))" : " IN (listquery()))");
        return;
    case CS_EX_EXISTS:
        cs_sbuf_puts(out, e->negated ? "(NOT exists())" : "exists()");
        return;
    case CS_EX_SCALAR_SUBQUERY:
        cs_sbuf_puts(out, "scalarsubquery()");
        return;
    case CS_EX_SORT_ORDER:
        sort_order_out(e, m, out);
        return;
    case CS_EX_LAMBDA:
        cs_sbuf_puts(out, "lambdafunction(");
        expr_out(e->args[0], m, out);
        for (int i = 1; i < e->n_args; i++) { /* resolved: the variables */
            cs_sbuf_puts(out, ", ");
            expr_out(e->args[i], m, out);
        }
        for (int i = 0; e->n_args == 1 && i < e->n_parts; i++) /* unresolved: their names */
            cs_sbuf_printf(out, ", %s", e->parts[i]);
        cs_sbuf_putc(out, ')');
        return;
    case CS_EX_UNRESOLVED_ORDINAL:
        cs_sbuf_printf(out, "%" PRId64, e->ordinal);
        return;
    case CS_EX_UNRESOLVED_EXTRACT_VALUE: /* Spark's UnresolvedExtractValue: child[extraction] */
        expr_out(e->args[0], m, out);
        cs_sbuf_putc(out, '[');
        expr_out(e->args[1], m, out);
        cs_sbuf_putc(out, ']');
        return;
    case CS_EX_PYTHON_UDF: /* Spark's PythonUDF: name(args) */
        cs_sbuf_printf(out, "%s(", e->name ? e->name : "udf");
        for (int i = 0; i < e->n_args; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            expr_out(e->args[i], m, out);
        }
        cs_sbuf_putc(out, ')');
        return;
    }
}

void cs_sql_expr_print(const cs_sql_expr *e, cs_sbuf *out)
{
    expr_out(e, MODE_PRINT, out);
}

void cs_sql_expr_pretty_name(const cs_sql_expr *e, cs_sbuf *out)
{
    expr_out(e, MODE_PRETTY, out);
}

void cs_sql_expr_sql(const cs_sql_expr *e, cs_sbuf *out)
{
    expr_out(e, MODE_SQL, out);
}

/* ---- plans -------------------------------------------------------------------------------- */

static void list_out(cs_sql_expr **xs, int n, cs_sbuf *out)
{
    cs_sbuf_putc(out, '[');
    for (int i = 0; i < n; i++) {
        if (i) cs_sbuf_puts(out, ", ");
        cs_sql_expr_print(xs[i], out);
    }
    cs_sbuf_putc(out, ']');
}

/* Spark's JoinType names, indexed by cs_join_type (logical_plan.h's order). */
static const char *const JOIN_NAMES[] = {"Inner",    "LeftOuter", "RightOuter", "FullOuter",
                                         "LeftSemi", "LeftAnti",  "Cross",      "ExistenceJoin"};

static const char *join_name(cs_join_type t)
{
    return (unsigned)t < sizeof JOIN_NAMES / sizeof JOIN_NAMES[0] ? JOIN_NAMES[t] : "?";
}

/* Spark's JoinHint: ", leftHint=(strategy=broadcast)" */
static void hint_out(const char *side, const char *strategy, cs_sbuf *out)
{
    if (!strategy) return;
    cs_sbuf_printf(out, ", %s=(strategy=", side);
    if (strcmp(strategy, "MERGE") == 0)
        cs_sbuf_puts(out, "shuffle_merge");
    else
        lower_out(strategy, out);
    cs_sbuf_putc(out, ')');
}

static void node_out(const cs_logical_plan *p, cs_sbuf *out)
{
    switch (p->kind) {
    case CS_LP_UNRESOLVED_RELATION:
        if (p->path) {
            cs_sbuf_printf(out, "'UnresolvedRelation [%s, %s], [], false", p->format, p->path);
            return;
        }
        cs_sbuf_puts(out, "'UnresolvedRelation [");
        for (int i = 0; i < p->n_parts; i++)
            cs_sbuf_printf(out, "%s%s", i ? ", " : "", p->parts[i]);
        cs_sbuf_puts(out, "], [], false");
        return;
    case CS_LP_RELATION:
        cs_sbuf_puts(out, "Relation ");
        if (p->table && p->table->name && p->table->database)
            cs_sbuf_printf(out, "spark_catalog.%s.%s", p->table->database, p->table->name);
        cs_sbuf_putc(out, '[');
        for (int i = 0; i < p->n_output; i++) {
            if (i) cs_sbuf_putc(out, ',');
            cs_sql_expr_print(p->output[i], out);
        }
        cs_sbuf_printf(out, "] %s", p->table && p->table->format ? p->table->format : "");
        return;
    case CS_LP_LOCAL_RELATION:
        cs_sbuf_printf(out, "%s ", cs_local_origin_name(p->local_origin));
        list_out(p->output, p->n_output, out);
        if (p->local_note) cs_sbuf_printf(out, ", %s", p->local_note);
        return;
    case CS_LP_RANGE:
        cs_sbuf_printf(out, "Range (%" PRId64 ", %" PRId64 ", step=%" PRId64 ")", p->range_start,
                       p->range_end, p->range_step);
        return;
    case CS_LP_ONE_ROW:
        cs_sbuf_puts(out, "OneRowRelation");
        return;
    case CS_LP_PROJECT:
        cs_sbuf_puts(out, p->resolved ? "Project " : "'Project ");
        list_out(p->exprs, p->n_exprs, out);
        return;
    case CS_LP_FILTER:
        cs_sbuf_puts(out, p->resolved ? "Filter " : "'Filter ");
        cs_sql_expr_print(p->condition, out);
        return;
    case CS_LP_AGGREGATE:
        cs_sbuf_puts(out, p->resolved ? "Aggregate " : "'Aggregate ");
        list_out(p->group_by, p->n_group_by, out);
        cs_sbuf_puts(out, ", ");
        list_out(p->exprs, p->n_exprs, out);
        return;
    case CS_LP_JOIN:
        cs_sbuf_printf(out, "%sJoin %s", p->resolved ? "" : "'", join_name(p->join_type));
        if (p->join_type == CS_JOIN_EXISTENCE && p->n_output > 0) { /* ExistenceJoin(exists#7) */
            cs_sbuf_putc(out, '(');
            cs_sql_expr_print(p->output[p->n_output - 1], out);
            cs_sbuf_putc(out, ')');
        }
        if (p->condition) {
            cs_sbuf_puts(out, ", ");
            cs_sql_expr_print(p->condition, out);
        }
        hint_out("leftHint", p->left_hint, out);
        hint_out("rightHint", p->right_hint, out);
        return;
    case CS_LP_SORT:
        cs_sbuf_puts(out, p->resolved ? "Sort " : "'Sort ");
        list_out(p->order, p->n_order, out);
        cs_sbuf_puts(out, p->global ? ", true" : ", false");
        return;
    case CS_LP_LIMIT:
        cs_sbuf_puts(out, p->local_limit ? "LocalLimit " : "GlobalLimit ");
        cs_sql_expr_print(p->limit, out);
        return;
    case CS_LP_OFFSET:
        cs_sbuf_puts(out, "Offset ");
        cs_sql_expr_print(p->limit, out);
        return;
    case CS_LP_SET_OP:
        cs_sbuf_printf(out, "%s%s",
                       p->set_op == CS_SET_UNION       ? "Union"
                       : p->set_op == CS_SET_INTERSECT ? "Intersect"
                                                       : "Except",
                       p->all ? " All" : "");
        if (p->set_op == CS_SET_UNION)
            cs_sbuf_printf(out, " %s", p->all ? "true, false" : "false, false");
        else
            cs_sbuf_puts(out, p->all ? " true" : " false");
        return;
    case CS_LP_DISTINCT:
        cs_sbuf_puts(out, "Distinct");
        return;
    case CS_LP_WINDOW:
        cs_sbuf_puts(out, "Window ");
        list_out(p->exprs, p->n_exprs, out);
        cs_sbuf_puts(out, ", ");
        list_out(p->partition, p->n_partition, out);
        cs_sbuf_puts(out, ", ");
        list_out(p->order, p->n_order, out);
        return;
    case CS_LP_GENERATE:
        cs_sbuf_puts(out, "Generate ");
        cs_sql_expr_print(p->generator, out);
        cs_sbuf_printf(out, ", %s, ", p->outer ? "true" : "false");
        list_out(p->output, p->n_output, out);
        return;
    case CS_LP_PYTHON_GROUP_MAP:    /* Spark's FlatMapGroupsInPandas */
    case CS_LP_PYTHON_MAP_IN_BATCH: /* MapInPandas / MapInArrow: no grouping list */
        cs_sbuf_puts(out, p->kind == CS_LP_PYTHON_GROUP_MAP            ? "FlatMapGroupsInPandas "
                          : p->generator->python_udf->eval_type == 207 ? "MapInArrow "
                                                                       : "MapInPandas ");
        if (p->kind == CS_LP_PYTHON_GROUP_MAP) list_out(p->exprs, p->n_exprs, out);
        if (p->kind == CS_LP_PYTHON_GROUP_MAP) cs_sbuf_puts(out, ", ");
        cs_sql_expr_print(p->generator, out);
        cs_sbuf_puts(out, ", ");
        list_out(p->output, p->n_output, out);
        return;
    case CS_LP_PYTHON_COGROUP_MAP: /* Spark's FlatMapCoGroupsInPandas */
        cs_sbuf_puts(out, p->generator->python_udf->eval_type == 210 ? "FlatMapCoGroupsInArrow "
                                                                     : "FlatMapCoGroupsInPandas ");
        list_out(p->exprs, p->n_exprs, out);
        cs_sbuf_puts(out, ", ");
        list_out(p->group_by, p->n_group_by, out);
        cs_sbuf_puts(out, ", ");
        cs_sql_expr_print(p->generator, out);
        cs_sbuf_puts(out, ", ");
        list_out(p->output, p->n_output, out);
        return;
    case CS_LP_SUBQUERY_ALIAS:
        cs_sbuf_printf(out, "SubqueryAlias %s", p->alias);
        return;
    case CS_LP_WITH:
        cs_sbuf_puts(out, "'UnresolvedWith");
        return;
    case CS_LP_REPARTITION: /* Spark's argString: empty lists and options left out */
        if (!p->by_expression && !p->rebalance) {
            cs_sbuf_printf(out, "Repartition %lld, %s", (long long)p->num_partitions,
                           p->shuffle ? "true" : "false");
            return;
        }
        cs_sbuf_puts(out, p->rebalance ? "RebalancePartitions" : "RepartitionByExpression");
        if (p->n_exprs) cs_sbuf_putc(out, ' '), list_out(p->exprs, p->n_exprs, out);
        if (p->num_partitions > 0)
            cs_sbuf_printf(out, "%s%lld", p->n_exprs ? ", " : " ", (long long)p->num_partitions);
        return;
    case CS_LP_SAMPLE:
        cs_sbuf_printf(out, "Sample %g", p->fraction);
        return;
    case CS_LP_HINT: /* the parser's and Connect's name is parts[0] */
        cs_sbuf_printf(out, "'UnresolvedHint %s", p->n_parts ? p->parts[0] : p->alias);
        if (p->n_exprs) cs_sbuf_puts(out, ", "), list_out(p->exprs, p->n_exprs, out);
        return;
    case CS_LP_EXPAND:
        cs_sbuf_puts(out, "Expand");
        return;
    case CS_LP_TABLE_FUNCTION:
        cs_sbuf_printf(out, "'UnresolvedTableValuedFunction %s", p->alias ? p->alias : "");
        return;
    }
}

static void tree_out(const cs_logical_plan *p, cs_sbuf *prefix, cs_sbuf *out)
{
    node_out(p, out);
    cs_sbuf_putc(out, '\n');
    for (int i = 0; i < p->n_children; i++) {
        bool last = i == p->n_children - 1;
        if (!p->children[i]) continue;
        cs_sbuf_puts(out, cs_sbuf_str(prefix));
        cs_sbuf_puts(out, last ? "+- " : ":- ");
        cs_sbuf child = {0};
        cs_sbuf_puts(&child, cs_sbuf_str(prefix));
        cs_sbuf_puts(&child, last ? "   " : ":  ");
        tree_out(p->children[i], &child, out);
        cs_sbuf_free(&child);
    }
}

void cs_logical_plan_print(const cs_logical_plan *p, cs_sbuf *out)
{
    cs_sbuf prefix = {0};
    cs_sbuf_puts(&prefix, "");
    tree_out(p, &prefix, out);
    cs_sbuf_free(&prefix);
}
