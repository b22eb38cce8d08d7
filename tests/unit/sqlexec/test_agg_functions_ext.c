/*
 * test_agg_functions_ext.c — the statistical, collecting and sketching aggregates
 * (src/sqlexec/agg_functions_ext.c) through the hash aggregate, against Spark 4.0.1's answers of
 * tests/sql/corpus/aggregates.sql over its view agg(k, i, d): stddev / variance (samp, pop),
 * corr / covar_pop / covar_samp, approx_count_distinct (also of range(100000): 95546),
 * percentile_approx (scalar, array, accuracy 100; range(1, 1001) at 0.9), max_by / min_by,
 * collect_list / collect_set, any_value, and the empty input, each in Complete mode and as
 * Partial over two halves then Final (the buffers round-trip); HLL++'s bias-corrected range,
 * rsd 0.01 and percentile_approx over two 100000-row digests against values Spark 4.0.1 gave on
 * local[2]; sum / avg of ANSI intervals (rounding half up, overflow's error class);
 * skewness / kurtosis, bit_and / bit_or / bit_xor, mode, the exact percentile (continuous and
 * discrete) and median,
 * try_sum of integers, the regr_* aggregates and histogram_numeric.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "op_test_util.h"

/* agg: ('x',1,2.0) ('x',2,NULL) ('x',2,4.0) ('y',NULL,NULL) ('y',5,1.5) ('z',7,7.0) ('x',3,6.0) */
static cs_col_type *agg_schema(void)
{
    return t_schema(3, (const char *[]){"k", "i", "d"},
                    (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_STRING),
                                      cs_col_type_primitive(CS_TYPE_INT),
                                      cs_col_type_primitive(CS_TYPE_DOUBLE)});
}

static cs_col_batch *agg_rows(int from, int to)
{
    const char *k[] = {"x", "x", "x", "y", "y", "z", "x"};
    int32_t i[] = {1, 2, 2, 0, 5, 7, 3};
    uint8_t iv[] = {1, 1, 1, 0, 1, 1, 1};
    double d[] = {2.0, 0, 4.0, 0, 1.5, 7.0, 6.0};
    uint8_t dv[] = {1, 0, 1, 0, 1, 1, 1};
    cs_col_type *s = agg_schema();
    int n = to - from;
    cs_col_batch *b =
        t_batch(s,
                (cs_column *[]){t_strings(k + from, n),
                                t_fixed(cs_col_type_primitive(CS_TYPE_INT), i + from, n, iv + from),
                                t_doubles(d + from, n, dv + from)},
                n);
    cs_col_type_unref(s);
    return b;
}

/* A value as the golden prints it: strings quoted, arrays [a, b], doubles as Java. */
static void golden_value(const cs_column *c, int64_t i, cs_sbuf *sb)
{
    if (!cs_column_is_valid(c, i)) {
        cs_sbuf_puts(sb, "NULL");
    } else if (c->type->id == CS_TYPE_STRING) {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, i, &len);
        cs_sbuf_printf(sb, "\"%.*s\"", (int)len, (const char *)p);
    } else if (c->type->id == CS_TYPE_DOUBLE) {
        char d[64];
        t_java_double(((const double *)(const void *)c->values)[i], d, sizeof d);
        cs_sbuf_puts(sb, d);
    } else if (c->type->id == CS_TYPE_ARRAY) {
        const int32_t *o = cs_column_offsets(c);
        cs_sbuf_putc(sb, '[');
        for (int32_t e = o[i]; e < o[i + 1]; e++) {
            if (e > o[i]) cs_sbuf_puts(sb, ", ");
            golden_value(c->children[0], e, sb);
        }
        cs_sbuf_putc(sb, ']');
    } else if (c->type->id == CS_TYPE_STRUCT) { /* {a, b} */
        cs_sbuf_putc(sb, '{');
        for (int f = 0; f < c->n_children; f++) {
            if (f) cs_sbuf_puts(sb, ", ");
            golden_value(c->children[f], i, sb);
        }
        cs_sbuf_putc(sb, '}');
    } else if (c->type->id == CS_TYPE_INTERVAL_YM) { /* months */
        cs_sbuf_printf(sb, "%d", ((const int32_t *)(const void *)c->values)[i]);
    } else {
        t_value(c, i, sb);
    }
}

static t_rows golden_rows(cs_sql_op *op)
{
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = {0};
    r.rc = cs_sql_op_open(op, &ctx, &r.err);
    cs_sbuf sb = {0};
    while (r.rc == CS_OK) {
        cs_col_batch *b;
        r.rc = cs_sql_op_next(op, &b, &r.err);
        if (r.rc != CS_OK || !b) break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            sb.len = 0;
            cs_sbuf_puts(&sb, "");
            for (int c = 0; c < b->n_columns; c++) {
                if (c) cs_sbuf_putc(&sb, '\t');
                golden_value(b->columns[c], i, &sb);
            }
            t_rows_add(&r, sb.data);
        }
        cs_col_batch_unref(b);
    }
    cs_sbuf_free(&sb);
    cs_sql_op_close(op);
    t_rows_sort(&r);
    return r;
}

static t_rows rows_of_text(const char *text)
{
    t_rows w = {0};
    char *copy = strdup(text), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        t_rows_add(&w, line);
    free(copy);
    t_rows_sort(&w);
    return w;
}

/* Runs the aggregates over agg (rows [0, 7)) grouped by keys, Complete, then Partial over rows
 * [0, 3) and [3, 7) and Final: the two partitions Spark's local run of the corpus split the
 * VALUES into. Partial + Final must print `want` (rows separated by \n, any order), Complete
 * `want_complete` (NULL: want; floating point statistics differ in their last bits between one
 * pass and merged partials, in Spark as here). */
static void check2(const int *keys, int n_keys, const cs_agg_spec *aggs, int n_aggs,
                   const char *want, const char *want_complete)
{
    t_rows w = rows_of_text(want_complete ? want_complete : want);
    cs_col_type *schema = agg_schema();
    cs_error err = {0};
    /* Complete */
    cs_col_batch *all = agg_rows(0, 7);
    cs_sql_op *op = cs_sql_op_hash_aggregate(t_leaf(schema, &all, 1), CS_AGG_COMPLETE, keys, n_keys,
                                             aggs, n_aggs, &err);
    if (!op) fail_msg("%s", err.msg);
    t_rows got = golden_rows(op);
    if (got.rc != CS_OK) fail_msg("%s", got.err.msg);
    if (!t_rows_equal(&w, &got)) fail_msg("Complete mode");
    t_rows_free(&got);
    t_rows_free(&w);
    w = rows_of_text(want);
    cs_sql_op_free(op);
    /* Partial over [0, 3) and [3, 7), Final over both outputs */
    cs_sql_exec_ctx ctx = t_ctx();
    cs_col_batch *parts[2];
    cs_col_type *pschema = NULL;
    for (int h = 0; h < 2; h++) {
        cs_col_batch *b = h ? agg_rows(3, 7) : agg_rows(0, 3);
        cs_sql_op *p = cs_sql_op_hash_aggregate(t_leaf(schema, &b, 1), CS_AGG_PARTIAL, keys, n_keys,
                                                aggs, n_aggs, &err);
        assert_non_null(p);
        assert_int_equal(cs_sql_op_open(p, &ctx, &err), CS_OK);
        assert_int_equal(cs_sql_op_next(p, &parts[h], &err), CS_OK);
        assert_non_null(parts[h]);
        if (!pschema) pschema = cs_col_type_ref(p->schema);
        cs_sql_op_close(p);
        cs_sql_op_free(p);
    }
    cs_agg_spec fin[8];
    int fk[4];
    for (int k = 0; k < n_keys; k++)
        fk[k] = k;
    for (int j = 0, c = n_keys; j < n_aggs; j++) {
        fin[j] = aggs[j];
        fin[j].input = c;
        c += cs_agg_spec_buffer_width(&aggs[j]);
    }
    op = cs_sql_op_hash_aggregate(t_leaf(pschema, parts, 2), CS_AGG_FINAL, fk, n_keys, fin, n_aggs,
                                  &err);
    if (!op) fail_msg("%s", err.msg);
    got = golden_rows(op);
    if (got.rc != CS_OK) fail_msg("%s", got.err.msg);
    if (!t_rows_equal(&w, &got)) fail_msg("Partial + Final");
    t_rows_free(&got);
    cs_sql_op_free(op);
    cs_col_type_unref(pschema);
    cs_col_type_unref(schema);
    t_rows_free(&w);
}

static void check(const int *keys, int n_keys, const cs_agg_spec *aggs, int n_aggs,
                  const char *want)
{
    check2(keys, n_keys, aggs, n_aggs, want, NULL);
}

#define INT_T cs_col_type_primitive(CS_TYPE_INT)
#define DBL_T cs_col_type_primitive(CS_TYPE_DOUBLE)
#define STR_T cs_col_type_primitive(CS_TYPE_STRING)

static void test_stddev_variance_as_spark(void **state)
{
    /* aggregates.sql line 18 and 19 */
    cs_agg_spec a[6] = {
        {.fn = CS_AGG_STDDEV_SAMP, .input = 2, .arg_type = DBL_T},
        {.fn = CS_AGG_STDDEV_SAMP, .input = 2, .arg_type = DBL_T},
        {.fn = CS_AGG_STDDEV_POP, .input = 2, .arg_type = DBL_T},
        {.fn = CS_AGG_VAR_SAMP, .input = 2, .arg_type = DBL_T},
        {.fn = CS_AGG_VAR_SAMP, .input = 2, .arg_type = DBL_T},
        {.fn = CS_AGG_VAR_POP, .input = 2, .arg_type = DBL_T},
    };
    check(NULL, 0, a, 6,
          "2.4083189157584592\t2.4083189157584592\t2.1540659228538015\t5.8\t5.8\t4.64");
    cs_agg_spec b[2] = {{.fn = CS_AGG_STDDEV_SAMP, .input = 2, .arg_type = DBL_T},
                        {.fn = CS_AGG_VAR_SAMP, .input = 2, .arg_type = DBL_T}};
    check((int[]){0}, 1, b, 2, "\"x\"\t2.0\t4.0\n\"y\"\tNULL\tNULL\n\"z\"\tNULL\tNULL");
}

static void test_corr_covariance_as_spark(void **state)
{
    /* aggregates.sql line 20 (skewness and kurtosis aside) */
    cs_agg_spec a[3] = {
        {.fn = CS_AGG_CORR, .input = 1, .arg_type = INT_T, .input2 = 2, .arg2_type = DBL_T},
        {.fn = CS_AGG_COVAR_POP, .input = 1, .arg_type = INT_T, .input2 = 2, .arg2_type = DBL_T},
        {.fn = CS_AGG_COVAR_SAMP, .input = 1, .arg_type = INT_T, .input2 = 2, .arg2_type = DBL_T},
    };
    check2(NULL, 0, a, 3, "0.461206896551724\t2.1399999999999992\t2.674999999999999",
           "0.46120689655172403\t2.1399999999999997\t2.6749999999999994");
}

static void test_max_by_min_by_any_value_as_spark(void **state)
{
    /* aggregates.sql line 28 and 17 */
    cs_agg_spec a[2] = {
        {.fn = CS_AGG_MAX_BY, .input = 0, .arg_type = STR_T, .input2 = 1, .arg2_type = INT_T},
        {.fn = CS_AGG_MIN_BY, .input = 0, .arg_type = STR_T, .input2 = 1, .arg2_type = INT_T},
    };
    check(NULL, 0, a, 2, "\"z\"\t\"x\"");
    cs_agg_spec b[1] = {{.fn = CS_AGG_ANY_VALUE, .input = 0, .arg_type = STR_T}};
    check((int[]){0}, 1, b, 1, "\"x\"\t\"x\"\n\"y\"\t\"y\"\n\"z\"\t\"z\"");
}

static void test_collect_list_set_as_spark(void **state)
{
    /* aggregates.sql line 14: the golden sorts the arrays; these come in arrival order */
    cs_agg_spec a[3] = {
        {.fn = CS_AGG_COLLECT_LIST, .input = 1, .arg_type = INT_T},
        {.fn = CS_AGG_COLLECT_SET, .input = 1, .arg_type = INT_T},
        {.fn = CS_AGG_COLLECT_LIST, .input = 2, .arg_type = DBL_T},
    };
    check((int[]){0}, 1, a, 3,
          "\"x\"\t[1, 2, 2, 3]\t[1, 2, 3]\t[2.0, 4.0, 6.0]\n\"y\"\t[5]\t[5]\t[1.5]\n"
          "\"z\"\t[7]\t[7]\t[7.0]");
    cs_agg_spec s[1] = {{.fn = CS_AGG_COLLECT_SET, .input = 0, .arg_type = STR_T}};
    check(NULL, 0, s, 1, "[\"x\", \"y\", \"z\"]");
}

static void test_approx_count_distinct_as_spark(void **state)
{
    /* aggregates.sql line 21 */
    cs_agg_spec a[2] = {{.fn = CS_AGG_APPROX_COUNT_DISTINCT, .input = 1, .arg_type = INT_T},
                        {.fn = CS_AGG_APPROX_COUNT_DISTINCT, .input = 0, .arg_type = STR_T}};
    check(NULL, 0, a, 2, "5\t3");
}

static void test_percentile_approx_as_spark(void **state)
{
    /* aggregates.sql line 23 */
    cs_agg_spec a[3] = {
        {.fn = CS_AGG_PERCENTILE_APPROX,
         .input = 1,
         .arg_type = INT_T,
         .percentages = (double[]){0.5},
         .n_percentages = 1},
        {.fn = CS_AGG_PERCENTILE_APPROX,
         .input = 1,
         .arg_type = INT_T,
         .percentages = (double[]){0.25, 0.75},
         .n_percentages = 2,
         .percentages_array = true},
        {.fn = CS_AGG_PERCENTILE_APPROX,
         .input = 2,
         .arg_type = DBL_T,
         .param = 100,
         .percentages = (double[]){0.5},
         .n_percentages = 1},
    };
    check(NULL, 0, a, 3, "2\t[2, 5]\t4.0");
}

/* One column of range(from, to) in batches of 4096: the id (kind 0), id as int (1), id as a
 * string (2) or id * 7 % 100003 (3). */
static cs_sql_op *range_of(int64_t from, int64_t to, int kind)
{
    cs_col_type *t = cs_col_type_primitive(kind == 1   ? CS_TYPE_INT
                                           : kind == 2 ? CS_TYPE_STRING
                                                       : CS_TYPE_LONG);
    cs_col_type *schema = t_schema(1, (const char *[]){"id"}, (cs_col_type *[]){t});
    int64_t n = to - from, nb = 0;
    cs_col_batch **b = calloc((size_t)(n / 4096 + 2), sizeof *b);
    int64_t *v = malloc(sizeof *v * 4096);
    int32_t *iv = malloc(sizeof *iv * 4096);
    char(*text)[24] = malloc(24 * 4096);
    const char **sv = malloc(sizeof *sv * 4096);
    for (int64_t at = from; at < to; at += 4096) {
        int64_t m = to - at < 4096 ? to - at : 4096;
        for (int64_t i = 0; i < m; i++) {
            v[i] = kind == 3 ? (at + i) * 7 % 100003 : at + i;
            iv[i] = (int32_t)v[i];
            snprintf(text[i], 24, "%lld", (long long)v[i]);
            sv[i] = text[i];
        }
        cs_column *c = kind == 1   ? t_fixed(t, iv, m, NULL)
                       : kind == 2 ? t_strings(sv, m)
                                   : t_longs(v, m, NULL);
        b[nb++] = t_batch(schema, &c, m);
    }
    cs_sql_op *op = t_leaf(schema, b, (int)nb);
    free(v), free(iv), free(text), free(sv), free(b);
    cs_col_type_unref(schema);
    return op;
}

/* The one result of spec over range(from, to) as Spark's local[2] computes it: Partial over
 * each half, then Final. */
static char *two_partitions(int64_t from, int64_t to, int kind, const cs_agg_spec *spec)
{
    cs_sql_exec_ctx ctx = t_ctx();
    cs_error err = {0};
    cs_col_batch *parts[2];
    cs_col_type *pschema = NULL;
    int64_t mid = from + (to - from) / 2;
    for (int h = 0; h < 2; h++) {
        cs_sql_op *p =
            cs_sql_op_hash_aggregate(h ? range_of(mid, to, kind) : range_of(from, mid, kind),
                                     CS_AGG_PARTIAL, NULL, 0, spec, 1, &err);
        assert_non_null(p);
        assert_int_equal(cs_sql_op_open(p, &ctx, &err), CS_OK);
        assert_int_equal(cs_sql_op_next(p, &parts[h], &err), CS_OK);
        if (!pschema) pschema = cs_col_type_ref(p->schema);
        cs_sql_op_close(p);
        cs_sql_op_free(p);
    }
    cs_agg_spec fin = *spec;
    fin.input = 0;
    cs_sql_op *op =
        cs_sql_op_hash_aggregate(t_leaf(pschema, parts, 2), CS_AGG_FINAL, NULL, 0, &fin, 1, &err);
    cs_col_type_unref(pschema);
    t_rows r = golden_rows(op);
    if (r.rc != CS_OK) fail_msg("%s", r.err.msg);
    char *s = strdup(r.row[0]);
    t_rows_free(&r);
    cs_sql_op_free(op);
    return s;
}

static void expect_two_partitions(int64_t from, int64_t to, int kind, const cs_agg_spec *spec,
                                  const char *want)
{
    char *s = two_partitions(from, to, kind, spec);
    if (strcmp(s, want) != 0)
        fail_msg("range(%lld, %lld) kind %d: %s, Spark %s", (long long)from, (long long)to, kind, s,
                 want);
    free(s);
}

static void test_hll_bias_correction_and_big_digests_as_spark(void **state)
{
    /* values from Spark 4.0.1 on local[2]: estimates in HLL++'s bias-corrected range, ints,
     * strings, rsd 0.01 (p = 14) */
    cs_col_type *lt = cs_col_type_primitive(CS_TYPE_LONG);
    cs_agg_spec h = {.fn = CS_AGG_APPROX_COUNT_DISTINCT, .input = 0, .arg_type = lt};
    expect_two_partitions(0, 2000, 0, &h, "1947");
    expect_two_partitions(0, 1500, 0, &h, "1400");
    h.arg_type = INT_T;
    expect_two_partitions(0, 2200, 1, &h, "2248");
    h.arg_type = STR_T;
    expect_two_partitions(0, 1800, 2, &h, "1760");
    cs_agg_spec h14 = {
        .fn = CS_AGG_APPROX_COUNT_DISTINCT, .input = 0, .arg_type = lt, .param = 0.01};
    expect_two_partitions(0, 50000, 0, &h14, "49813");
    /* percentile_approx(id * 7 % 100003, array(0.1, 0.5, 0.99)) FROM range(200000): two digests
     * of 100000 rows (head buffers flushed and compressed) merged */
    cs_agg_spec p = {.fn = CS_AGG_PERCENTILE_APPROX,
                     .input = 0,
                     .arg_type = lt,
                     .percentages = (double[]){0.1, 0.5, 0.99},
                     .n_percentages = 3,
                     .percentages_array = true};
    expect_two_partitions(0, 200000, 3, &p, "[10002, 49992, 98989]");
    cs_agg_spec p100 = {.fn = CS_AGG_PERCENTILE_APPROX,
                        .input = 0,
                        .arg_type = lt,
                        .param = 100,
                        .percentages = (double[]){0.5},
                        .n_percentages = 1};
    expect_two_partitions(0, 200000, 3, &p100, "49326");
}

static cs_sql_op *range_op(int64_t from, int64_t to)
{
    return range_of(from, to, 0);
}

static char *one_value(cs_sql_op *op)
{
    t_rows r = golden_rows(op);
    if (r.rc != CS_OK) fail_msg("%s", r.err.msg);
    assert_int_equal(r.n, 1);
    char *s = strdup(r.row[0]);
    t_rows_free(&r);
    cs_sql_op_free(op);
    return s;
}

static void test_over_ranges_as_spark(void **state)
{
    cs_col_type *lt = cs_col_type_primitive(CS_TYPE_LONG);
    cs_error err = {0};
    /* aggregates.sql line 22: approx_count_distinct(id) FROM range(100000) */
    cs_agg_spec h = {.fn = CS_AGG_APPROX_COUNT_DISTINCT, .input = 0, .arg_type = lt};
    char *s = one_value(
        cs_sql_op_hash_aggregate(range_op(0, 100000), CS_AGG_COMPLETE, NULL, 0, &h, 1, &err));
    assert_string_equal(s, "95546");
    free(s);
    /* aggregates.sql line 24: percentile_approx(id, 0.9) FROM range(1, 1001) */
    cs_agg_spec p = {.fn = CS_AGG_PERCENTILE_APPROX,
                     .input = 0,
                     .arg_type = lt,
                     .percentages = (double[]){0.9},
                     .n_percentages = 1};
    s = one_value(
        cs_sql_op_hash_aggregate(range_op(1, 1001), CS_AGG_COMPLETE, NULL, 0, &p, 1, &err));
    assert_string_equal(s, "900");
    free(s);
}

static void test_empty_input_as_spark(void **state)
{
    /* aggregates.sql line 31: collect_list -> [], stddev -> NULL */
    cs_col_type *schema = agg_schema();
    cs_agg_spec a[3] = {{.fn = CS_AGG_COLLECT_LIST, .input = 1, .arg_type = INT_T},
                        {.fn = CS_AGG_STDDEV_SAMP, .input = 2, .arg_type = DBL_T},
                        {.fn = CS_AGG_APPROX_COUNT_DISTINCT, .input = 1, .arg_type = INT_T}};
    cs_error err = {0};
    char *s = one_value(
        cs_sql_op_hash_aggregate(t_leaf(schema, NULL, 0), CS_AGG_COMPLETE, NULL, 0, a, 3, &err));
    assert_string_equal(s, "[]\tNULL\t0");
    free(s);
    cs_col_type_unref(schema);
}

/* sum and avg (Complete) of one interval column of n values (valid[i] 0: null): "sum\tavg" in
 * months or microseconds, NULL + *err on an error. */
static char *interval_sum_avg(cs_type_id id, const int64_t *v, const uint8_t *valid, int n,
                              cs_error *err)
{
    cs_col_type *t = cs_col_type_interval(id, id == CS_TYPE_INTERVAL_YM ? 0 : 0,
                                          id == CS_TYPE_INTERVAL_YM ? 1 : 3, NULL);
    cs_col_type *schema = t_schema(1, (const char *[]){"x"}, (cs_col_type *[]){t});
    int32_t v32[8];
    for (int i = 0; i < n; i++)
        v32[i] = (int32_t)v[i];
    cs_col_batch *b = t_batch(
        schema,
        (cs_column *[]){t_fixed(t, id == CS_TYPE_INTERVAL_YM ? (void *)v32 : (void *)v, n, valid)},
        n);
    cs_agg_spec a[2] = {{.fn = CS_AGG_SUM, .input = 0, .arg_type = t},
                        {.fn = CS_AGG_AVG, .input = 0, .arg_type = t}};
    cs_sql_op *op =
        cs_sql_op_hash_aggregate(t_leaf(schema, &b, 1), CS_AGG_COMPLETE, NULL, 0, a, 2, err);
    cs_col_type_unref(schema);
    assert_non_null(op);
    t_rows r = golden_rows(op);
    cs_sql_op_free(op);
    char *s = r.rc == CS_OK ? strdup(r.row[0]) : NULL;
    if (r.rc != CS_OK) *err = r.err;
    t_rows_free(&r);
    return s;
}

static void test_sum_avg_of_intervals_as_spark(void **state)
{
    /* Spark 4.0.1: sum / avg of INTERVAL '1' MONTH, '2' MONTH, NULL -> 0-3, 0-2 (1.5 rounds half
     * up); of '-1', '-2' MONTH -> avg -0-2; of INTERVAL '1' SECOND, '2.000001' SECOND ->
     * 3.000001 s, 1.500001 s; INTERVAL '178956970' YEAR twice overflows */
    cs_error err = {0};
    char *s =
        interval_sum_avg(CS_TYPE_INTERVAL_YM, (int64_t[]){1, 2, 0}, (uint8_t[]){1, 1, 0}, 3, &err);
    assert_string_equal(s, "3\t2");
    free(s);
    s = interval_sum_avg(CS_TYPE_INTERVAL_YM, (int64_t[]){-1, -2}, NULL, 2, &err);
    assert_string_equal(s, "-3\t-2");
    free(s);
    s = interval_sum_avg(CS_TYPE_INTERVAL_DT, (int64_t[]){1000000, 2000001}, NULL, 2, &err);
    assert_string_equal(s, "3000001\t1500001");
    free(s);
    s = interval_sum_avg(CS_TYPE_INTERVAL_YM, (int64_t[]){178956970LL * 12, 178956970LL * 12}, NULL,
                         2, &err);
    assert_null(s);
    assert_string_equal(err.error_class, "INTERVAL_ARITHMETIC_OVERFLOW.WITH_SUGGESTION");
    assert_string_equal(err.sql_state, "22015");
}

static void test_skewness_kurtosis_as_spark(void **state)
{
    /* aggregates.sql line 20: skewness(d), kurtosis(d) */
    cs_agg_spec a[2] = {{.fn = CS_AGG_SKEWNESS, .input = 2, .arg_type = DBL_T},
                        {.fn = CS_AGG_KURTOSIS, .input = 2, .arg_type = DBL_T}};
    check2(NULL, 0, a, 2, "0.08824530618112042\t-1.6167323127229494",
           "0.08824530618112066\t-1.6167323127229491");
    /* one value per group: m2 is 0, the result null (Spark 4) */
    check((int[]){0}, 1, a, 2, "\"x\"\t0.0\t-1.5\n\"y\"\tNULL\tNULL\n\"z\"\tNULL\tNULL");
}

static void test_bitwise_mode_try_sum_as_spark(void **state)
{
    /* aggregates.sql lines 28 (mode) and 29 */
    cs_agg_spec a[5] = {{.fn = CS_AGG_BIT_AND, .input = 1, .arg_type = INT_T},
                        {.fn = CS_AGG_BIT_OR, .input = 1, .arg_type = INT_T},
                        {.fn = CS_AGG_BIT_XOR, .input = 1, .arg_type = INT_T},
                        {.fn = CS_AGG_MODE, .input = 1, .arg_type = INT_T},
                        {.fn = CS_AGG_TRY_SUM, .input = 1, .arg_type = INT_T}};
    check(NULL, 0, a, 5, "0\t7\t0\t2\t20");
    check((int[]){0}, 1, a, 5, "\"x\"\t0\t3\t2\t2\t8\n\"y\"\t5\t5\t5\t5\t5\n\"z\"\t7\t7\t7\t7\t7");
    cs_agg_spec m[1] = {{.fn = CS_AGG_MODE, .input = 0, .arg_type = STR_T}};
    check(NULL, 0, m, 1, "\"x\"");
}

static void test_percentile_median_as_spark(void **state)
{
    /* aggregates.sql line 25: percentile(i, 0.5), percentile(i, array(0.0, 1.0)), median(d) */
    cs_agg_spec a[3] = {{.fn = CS_AGG_PERCENTILE,
                         .input = 1,
                         .arg_type = INT_T,
                         .percentages = (double[]){0.5},
                         .n_percentages = 1},
                        {.fn = CS_AGG_PERCENTILE,
                         .input = 1,
                         .arg_type = INT_T,
                         .percentages = (double[]){0.0, 1.0},
                         .n_percentages = 2,
                         .percentages_array = true},
                        {.fn = CS_AGG_PERCENTILE,
                         .input = 2,
                         .arg_type = DBL_T,
                         .percentages = (double[]){0.5},
                         .n_percentages = 1}};
    check(NULL, 0, a, 3, "2.5\t[1.0, 7.0]\t4.0");
    /* line 26: percentile_disc(0.5) WITHIN GROUP (ORDER BY i); 0 and 1 give the extremes */
    cs_agg_spec d[3] = {{.fn = CS_AGG_PERCENTILE_DISC,
                         .input = 1,
                         .arg_type = INT_T,
                         .percentages = (double[]){0.5},
                         .n_percentages = 1},
                        {.fn = CS_AGG_PERCENTILE_DISC,
                         .input = 1,
                         .arg_type = INT_T,
                         .percentages = (double[]){0.0, 1.0},
                         .n_percentages = 2,
                         .percentages_array = true},
                        {.fn = CS_AGG_PERCENTILE_DISC,
                         .input = 2,
                         .arg_type = DBL_T,
                         .percentages = (double[]){0.6},
                         .n_percentages = 1}};
    check(NULL, 0, d, 3, "2.0\t[1.0, 7.0]\t4.0");
    check((int[]){0}, 1, a, 3,
          "\"x\"\t2.0\t[1.0, 3.0]\t4.0\n\"y\"\t5.0\t[5.0, 5.0]\t1.5\n\"z\"\t7.0\t[7.0, 7.0]\t7.0");
}

static void test_regression_as_spark(void **state)
{
    /* aggregates.sql line 42: regr_slope(d, i), regr_intercept(d, i) (regr_count is count(d, i),
     * the planner's); y = d is the first input, x = i the second */
    cs_agg_spec a[4] = {
        {.fn = CS_AGG_REGR_SLOPE, .input = 2, .arg_type = DBL_T, .input2 = 1, .arg2_type = INT_T},
        {.fn = CS_AGG_REGR_INTERCEPT,
         .input = 2,
         .arg_type = DBL_T,
         .input2 = 1,
         .arg2_type = INT_T},
        {.fn = CS_AGG_REGR_AVGX, .input = 2, .arg_type = DBL_T, .input2 = 1, .arg2_type = INT_T},
        {.fn = CS_AGG_REGR_AVGY, .input = 2, .arg_type = DBL_T, .input2 = 1, .arg2_type = INT_T}};
    /* Spark: 0.461206896551724, 2.4396551724137936, 3.6, 4.1 (its regr_* keep Covariance and
     * VariancePop buffers apart, merged in another order: the last bits differ, within the
     * corpus judge's 1e-9) */
    check2(NULL, 0, a, 4, "0.4612068965517241\t2.439655172413793\t3.5999999999999996\t4.1",
           "0.4612068965517241\t2.4396551724137927\t3.6\t4.1");
}

static void test_histogram_numeric(void **state)
{
    /* aggregates.sql line 30 (its golden only says the result is not null): d = 2, 4, 1.5, 7,
     * 6 in 3 bins; the closest bins merge into their weighted mean (no ties here, which Spark
     * breaks at random); the integer column's x is cast back to int */
    cs_agg_spec a[2] = {
        {.fn = CS_AGG_HISTOGRAM_NUMERIC, .input = 2, .arg_type = DBL_T, .param = 3},
        {.fn = CS_AGG_HISTOGRAM_NUMERIC, .input = 1, .arg_type = INT_T, .param = 2}};
    check((int[]){0}, 1, a, 2,
          "\"x\"\t[{2.0, 1.0}, {4.0, 1.0}, {6.0, 1.0}]\t[{1, 3.0}, {3, 1.0}]\n"
          "\"y\"\t[{1.5, 1.0}]\t[{5, 1.0}]\n\"z\"\t[{7.0, 1.0}]\t[{7, 1.0}]");
    check(NULL, 0, a, 1, "[{1.75, 2.0}, {4.0, 1.0}, {6.5, 2.0}]");
}

static void test_bad_arguments(void **state)
{
    cs_col_type *schema = agg_schema();
    cs_error err = {0};
    cs_agg_spec a = {.fn = CS_AGG_STDDEV_SAMP, .input = 0, .arg_type = STR_T};
    assert_null(
        cs_sql_op_hash_aggregate(t_leaf(schema, NULL, 0), CS_AGG_COMPLETE, NULL, 0, &a, 1, &err));
    assert_non_null(strstr(err.msg, "stddev_samp"));
    cs_agg_spec c = {
        .fn = CS_AGG_CORR, .input = 1, .arg_type = INT_T, .input2 = 9, .arg2_type = DBL_T};
    assert_null(
        cs_sql_op_hash_aggregate(t_leaf(schema, NULL, 0), CS_AGG_COMPLETE, NULL, 0, &c, 1, &err));
    assert_non_null(strstr(err.msg, "second input ordinal 9"));
    cs_agg_spec p = {.fn = CS_AGG_PERCENTILE_APPROX,
                     .input = 1,
                     .arg_type = INT_T,
                     .percentages = (double[]){1.5},
                     .n_percentages = 1};
    assert_null(
        cs_sql_op_hash_aggregate(t_leaf(schema, NULL, 0), CS_AGG_COMPLETE, NULL, 0, &p, 1, &err));
    assert_non_null(strstr(err.msg, "between 0.0 and 1.0"));
    cs_col_type_unref(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stddev_variance_as_spark),
        cmocka_unit_test(test_corr_covariance_as_spark),
        cmocka_unit_test(test_max_by_min_by_any_value_as_spark),
        cmocka_unit_test(test_collect_list_set_as_spark),
        cmocka_unit_test(test_approx_count_distinct_as_spark),
        cmocka_unit_test(test_percentile_approx_as_spark),
        cmocka_unit_test(test_over_ranges_as_spark),
        cmocka_unit_test(test_hll_bias_correction_and_big_digests_as_spark),
        cmocka_unit_test(test_empty_input_as_spark),
        cmocka_unit_test(test_sum_avg_of_intervals_as_spark),
        cmocka_unit_test(test_skewness_kurtosis_as_spark),
        cmocka_unit_test(test_bitwise_mode_try_sum_as_spark),
        cmocka_unit_test(test_percentile_median_as_spark),
        cmocka_unit_test(test_regression_as_spark),
        cmocka_unit_test(test_histogram_numeric),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
