/*
 * test_op_hash_aggregate.c — HashAggregate (src/sqlexec/op_hash_aggregate.c, agg_functions.c):
 * every aggregate function on a small input with nulls, Spark's grouping of NaN / -0.0 / null
 * keys, Partial -> Final equal to Complete on a generated input, results equal to a reference
 * computed here on a larger input, the empty input without keys (one row), ANSI overflow errors
 * of sum (long and decimal), a global sum and count of narrow integers with nulls (the one-group
 * path), decimal sum/avg types and rounding, a spill under a small task memory equal to the
 * in-memory result with non-zero spill metrics, and integral keys of every width kept as words
 * (extremes, nulls, a spill); a struct group key and collect_set / collect_list of structs
 * (through Partial and Final buffers); many groups (long and string keys) each found again
 * through the table's growth; a table past a million groups growing its group arrays by half;
 * integral and string keys kept as words (long strings, empty and null ones) spilled, in memory
 * and through Partial -> Final equal to a reference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "op_test_util.h"
#include "sqlexec/sql_error.h"

static cs_col_type *T(cs_type_id id)
{
    return cs_col_type_primitive(id);
}

static void test_functions_with_nulls(void **state)
{
    const char *names[] = {"k", "s", "v"};
    cs_col_type *schema =
        t_schema(3, names, (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_STRING), T(CS_TYPE_LONG)});
    int64_t k[] = {1, 2, 1, 0, 2, 0, 1};
    uint8_t kv[] = {1, 1, 1, 0, 1, 0, 1};
    const char *s[] = {"b", "a", "a", "c", NULL, "a", "z"};
    int64_t v[] = {10, 20, 0, 5, 7, 1, 3};
    uint8_t vv[] = {1, 1, 0, 1, 1, 1, 1};
    cs_col_batch *b[2];
    b[0] =
        t_batch(schema, (cs_column *[]){t_longs(k, 4, kv), t_strings(s, 4), t_longs(v, 4, vv)}, 4);
    b[1] = t_batch(
        schema,
        (cs_column *[]){t_longs(k + 4, 3, kv + 4), t_strings(s + 4, 3), t_longs(v + 4, 3, vv + 4)},
        3);
    cs_agg_spec aggs[] = {
        {CS_AGG_COUNT_STAR, -1, NULL},
        {CS_AGG_COUNT, 2, T(CS_TYPE_LONG)},
        {CS_AGG_SUM, 2, T(CS_TYPE_LONG)},
        {CS_AGG_AVG, 2, T(CS_TYPE_LONG)},
        {CS_AGG_MIN, 1, T(CS_TYPE_STRING)},
        {CS_AGG_MAX, 1, T(CS_TYPE_STRING)},
        {CS_AGG_FIRST, 2, T(CS_TYPE_LONG)},
        {CS_AGG_LAST, 1, T(CS_TYPE_STRING), .ignore_nulls = true},
    };
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_hash_aggregate(t_leaf(schema, b, 2), CS_AGG_COMPLETE, (int[]){0}, 1,
                                             aggs, 8, &err);
    assert_non_null(op);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    assert_int_equal(r.n, 3);
    assert_string_equal(r.row[0], "1|3|2|13|6.5|'a'|'z'|10|'z'");
    assert_string_equal(r.row[1], "2|2|2|27|13.5|'a'|'a'|20|'a'");
    assert_string_equal(r.row[2], "NULL|2|2|6|3|'a'|'c'|5|'a'");
    cs_sbuf sb = {0};
    cs_col_type_simple_string(op->schema, &sb);
    assert_string_equal(sb.data, "struct<k:bigint,count:bigint,count:bigint,sum:bigint,"
                                 "avg:double,min:string,max:string,first:bigint,last:string>");
    cs_sbuf_free(&sb);
    t_rows_free(&r);
    cs_sql_op_free(op);
    /* group by the string: nulls are one group, bytes compare exactly */
    cs_col_batch *c[1] = {
        t_batch(schema, (cs_column *[]){t_longs(k, 7, kv), t_strings(s, 7), t_longs(v, 7, vv)}, 7)};
    op = cs_sql_op_hash_aggregate(t_leaf(schema, c, 1), CS_AGG_COMPLETE, (int[]){1}, 1, aggs, 1,
                                  &err);
    r = t_run(op, &ctx);
    t_rows_sort(&r);
    assert_int_equal(r.n, 5);
    assert_string_equal(r.row[0], "'a'|3");
    assert_string_equal(r.row[3], "'z'|1");
    assert_string_equal(r.row[4], "NULL|1");
    t_rows_free(&r);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
}

static void test_nan_and_negative_zero_group_as_spark(void **state)
{
    const char *names[] = {"d"};
    cs_col_type *schema = t_schema(1, names, (cs_col_type *[]){T(CS_TYPE_DOUBLE)});
    uint64_t other_nan = 0x7ff0000000000001ull;
    double d[7] = {NAN, 0, -0.0, 0.0, 0, 0, 1.5};
    memcpy(&d[1], &other_nan, 8);
    uint8_t valid[7] = {1, 1, 1, 1, 0, 0, 1};
    cs_col_batch *b[1] = {t_batch(schema, (cs_column *[]){t_doubles(d, 7, valid)}, 7)};
    cs_agg_spec count = {CS_AGG_COUNT_STAR, -1, NULL};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_hash_aggregate(t_leaf(schema, b, 1), CS_AGG_COMPLETE, (int[]){0}, 1,
                                             &count, 1, &err);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    assert_int_equal(r.n, 4);
    assert_string_equal(r.row[0], "NaN|2");
    assert_string_equal(r.row[1], "0|2"); /* -0.0 groups with 0.0 and comes out as 0.0 */
    assert_string_equal(r.row[2], "NULL|2");
    assert_string_equal(r.row[3], "1.5|1");
    t_rows_free(&r);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
}

/* A generated input: k (long, 1 in 50 null), s (string of k % 7), v (long, 1 in 10 null),
 * d (double, exact halves), m (decimal(10,2)), b (boolean), in batches of 1000 rows. */
static cs_col_type *gen_schema(void)
{
    const char *names[] = {"k", "s", "v", "d", "m", "b"};
    return t_schema(6, names,
                    (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_STRING), T(CS_TYPE_LONG),
                                      T(CS_TYPE_DOUBLE), cs_col_type_decimal(10, 2, NULL),
                                      T(CS_TYPE_BOOLEAN)});
}

static int gen_batches(cs_col_type *schema, int64_t rows, int64_t groups, uint64_t seed,
                       cs_col_batch **out)
{
    int nb = 0;
    for (int64_t at = 0; at < rows; at += 1000) {
        int64_t n = rows - at < 1000 ? rows - at : 1000;
        int64_t k[1000], v[1000];
        double d[1000];
        __int128 m[1000];
        uint8_t kv[1000], vv[1000], bo[1000];
        char sbuf[1000][16];
        const char *s[1000];
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = t_rand(&seed);
            k[i] = (int64_t)(x % (uint64_t)groups);
            kv[i] = (x >> 50) % 50 != 7;
            v[i] = (int64_t)(x >> 20) % 100000 - 50000;
            vv[i] = (x >> 8) % 10 != 3;
            d[i] = (double)((int64_t)(x >> 30) % 2001 - 1000) / 2;
            m[i] = (__int128)((int64_t)(x >> 12) % 2000000) - 1000000;
            bo[i] = (x >> 40) % 3 != 0;
            snprintf(sbuf[i], sizeof sbuf[i], "s%lld", (long long)(k[i] % 7));
            s[i] = kv[i] ? sbuf[i] : NULL;
        }
        out[nb++] = t_batch(schema,
                            (cs_column *[]){t_longs(k, n, kv), t_strings(s, n), t_longs(v, n, vv),
                                            t_doubles(d, n, NULL),
                                            t_fixed(schema->fields[4].type, m, n, NULL),
                                            t_fixed(T(CS_TYPE_BOOLEAN), bo, n, NULL)},
                            n);
    }
    return nb;
}

static const cs_agg_spec *gen_aggs(int *n, cs_col_type *schema)
{
    static cs_agg_spec a[14];
    cs_col_type *dec = schema->fields[4].type;
    cs_agg_spec list[] = {
        {CS_AGG_COUNT_STAR, -1, NULL},
        {CS_AGG_COUNT, 2, T(CS_TYPE_LONG)},
        {CS_AGG_SUM, 2, T(CS_TYPE_LONG)},
        {CS_AGG_AVG, 2, T(CS_TYPE_LONG)},
        {CS_AGG_MIN, 2, T(CS_TYPE_LONG)},
        {CS_AGG_MAX, 3, T(CS_TYPE_DOUBLE)},
        {CS_AGG_SUM, 3, T(CS_TYPE_DOUBLE)},
        {CS_AGG_SUM, 4, dec},
        {CS_AGG_AVG, 4, dec},
        {CS_AGG_BOOL_AND, 5, T(CS_TYPE_BOOLEAN)},
        {CS_AGG_BOOL_OR, 5, T(CS_TYPE_BOOLEAN)},
        {CS_AGG_COUNT_IF, 5, T(CS_TYPE_BOOLEAN)},
        {CS_AGG_FIRST, 2, T(CS_TYPE_LONG)},
        {CS_AGG_LAST, 2, T(CS_TYPE_LONG), .ignore_nulls = true},
    };
    memcpy(a, list, sizeof list);
    *n = 14;
    return a;
}

static void test_partial_then_final_equals_complete(void **state)
{
    cs_col_type *schema = gen_schema();
    cs_col_batch *b[40];
    int nb = gen_batches(schema, 40000, 300, 42, b);
    int na;
    const cs_agg_spec *aggs = gen_aggs(&na, schema);
    cs_error err = {0};
    cs_sql_exec_ctx ctx = t_ctx();
    for (int i = 0; i < nb; i++)
        cs_col_batch_ref(b[i]);
    cs_sql_op *complete = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_COMPLETE,
                                                   (int[]){0, 1}, 2, aggs, na, &err);
    assert_non_null(complete);
    t_rows want = t_run(complete, &ctx);
    assert_int_equal(want.rc, CS_OK);
    /* two map-side partials over halves of the input, their union, one final */
    cs_sql_op *p1 = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb / 2), CS_AGG_PARTIAL,
                                             (int[]){0, 1}, 2, aggs, na, &err);
    cs_sql_op *p2 = cs_sql_op_hash_aggregate(t_leaf(schema, b + nb / 2, nb - nb / 2),
                                             CS_AGG_PARTIAL, (int[]){0, 1}, 2, aggs, na, &err);
    assert_non_null(p1);
    /* buffers: count 1, count 1, sum 1, avg 2, min 1, max 1, sum 1, sum(dec) 2, avg(dec) 2,
     * bool_and 1, bool_or 1, count_if 1, first 2, last 2 */
    assert_int_equal(p1->schema->n_fields, 2 + 19);
    assert_string_equal(p1->schema->fields[2 + 9].name, "isEmpty");
    cs_sql_op *u = cs_sql_op_union((cs_sql_op *[]){p1, p2}, 2, &err);
    cs_agg_spec fin[14];
    memcpy(fin, aggs, sizeof fin);
    for (int j = 0, c = 2; j < na; j++) {
        fin[j].input = c;
        c += cs_agg_buffer_width(aggs[j].fn, aggs[j].arg_type);
    }
    cs_sql_op *final = cs_sql_op_hash_aggregate(u, CS_AGG_FINAL, (int[]){0, 1}, 2, fin, na, &err);
    assert_non_null(final);
    t_rows got = t_run(final, &ctx);
    assert_int_equal(got.rc, CS_OK);
    t_rows_sort(&want);
    t_rows_sort(&got);
    assert_true(t_rows_equal(&want, &got));
    assert_int_equal(got.n, 301); /* 300 keys and the null key */
    t_rows_free(&want);
    t_rows_free(&got);
    cs_sql_op_free(complete);
    cs_sql_op_free(final);
    cs_col_type_unref(schema);
}

static void test_results_equal_reference(void **state)
{
    cs_col_type *schema = gen_schema();
    cs_col_batch *b[100];
    int nb = gen_batches(schema, 100000, 5000, 7, b);
    /* reference: count, sum, min, max of v per k (null k: index groups) */
    enum { G = 5001 };
    int64_t *cnt = calloc(G, 8), *sum = calloc(G, 8), *mn = calloc(G, 8), *mx = calloc(G, 8),
            *nv = calloc(G, 8);
    for (int i = 0; i < nb; i++) {
        const cs_column *k = b[i]->columns[0], *v = b[i]->columns[2];
        for (int64_t r = 0; r < b[i]->num_rows; r++) {
            int g = cs_column_is_valid(k, r) ? (int)((const int64_t *)(void *)k->values)[r] : 5000;
            cnt[g]++;
            if (!cs_column_is_valid(v, r)) continue;
            int64_t x = ((const int64_t *)(void *)v->values)[r];
            sum[g] += x;
            if (!nv[g]++ || x < mn[g]) mn[g] = x;
            if (nv[g] == 1 || x > mx[g]) mx[g] = x;
        }
    }
    t_rows want = {0};
    char line[128];
    for (int g = 0; g < G; g++) {
        if (!cnt[g]) continue;
        char key[24];
        snprintf(key, sizeof key, g == 5000 ? "NULL" : "%d", g);
        if (nv[g])
            snprintf(line, sizeof line, "%s|%lld|%lld|%lld|%lld", key, (long long)cnt[g],
                     (long long)sum[g], (long long)mn[g], (long long)mx[g]);
        else
            snprintf(line, sizeof line, "%s|%lld|NULL|NULL|NULL", key, (long long)cnt[g]);
        t_rows_add(&want, line);
    }
    cs_agg_spec aggs[] = {{CS_AGG_COUNT_STAR, -1, NULL},
                          {CS_AGG_SUM, 2, T(CS_TYPE_LONG)},
                          {CS_AGG_MIN, 2, T(CS_TYPE_LONG)},
                          {CS_AGG_MAX, 2, T(CS_TYPE_LONG)}};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_COMPLETE, (int[]){0}, 1,
                                             aggs, 4, &err);
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = 777;
    t_rows got = t_run(op, &ctx);
    assert_int_equal(got.rc, CS_OK);
    t_rows_sort(&want);
    t_rows_sort(&got);
    assert_true(t_rows_equal(&want, &got));
    t_rows_free(&want);
    t_rows_free(&got);
    cs_sql_op_free(op);
    free(cnt);
    free(sum);
    free(mn);
    free(mx);
    free(nv);
    cs_col_type_unref(schema);
}

static void test_empty_input_without_keys_gives_one_row(void **state)
{
    cs_col_type *schema = gen_schema();
    int na;
    const cs_agg_spec *aggs = gen_aggs(&na, schema);
    cs_error err = {0};
    cs_sql_exec_ctx ctx = t_ctx();
    cs_sql_op *op =
        cs_sql_op_hash_aggregate(t_leaf(schema, NULL, 0), CS_AGG_COMPLETE, NULL, 0, aggs, 3, &err);
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.n, 1);
    assert_string_equal(r.row[0], "0|0|NULL");
    t_rows_free(&r);
    cs_sql_op_free(op);
    /* with a key: no group, no row */
    op = cs_sql_op_hash_aggregate(t_leaf(schema, NULL, 0), CS_AGG_COMPLETE, (int[]){0}, 1, aggs, 3,
                                  &err);
    r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    assert_int_equal(r.n, 0);
    t_rows_free(&r);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
}

static void test_sum_overflow_raises_under_ansi(void **state)
{
    const char *names[] = {"v", "m"};
    cs_col_type *dec = cs_col_type_decimal(38, 0, NULL);
    cs_col_type *schema = t_schema(2, names, (cs_col_type *[]){T(CS_TYPE_LONG), dec});
    int64_t v[] = {INT64_MAX, 1};
    __int128 big = 1;
    for (int i = 0; i < 38; i++)
        big *= 10;
    __int128 m[] = {big - 1, 1};
    cs_agg_spec sum_v = {CS_AGG_SUM, 0, T(CS_TYPE_LONG)}, sum_m = {CS_AGG_SUM, 1, dec};
    cs_error err = {0};
    cs_sql_exec_ctx ctx = t_ctx();
    for (int ansi = 1; ansi >= 0; ansi--) {
        ctx.ansi = ansi;
        for (int which = 0; which < 2; which++) {
            cs_col_batch *b[1] = {
                t_batch(schema, (cs_column *[]){t_longs(v, 2, NULL), t_fixed(dec, m, 2, NULL)}, 2)};
            cs_sql_op *op = cs_sql_op_hash_aggregate(t_leaf(schema, b, 1), CS_AGG_COMPLETE, NULL, 0,
                                                     which ? &sum_m : &sum_v, 1, &err);
            t_rows r = t_run(op, &ctx);
            if (ansi) {
                assert_int_equal(r.rc, CS_ETASK);
                /* Spark 4: "Overflow in sum of decimals" (CheckOverflowInSum) */
                assert_true(cs_sql_error_is(&r.err, "ARITHMETIC_OVERFLOW"));
                const char *want = which ? "[ARITHMETIC_OVERFLOW] Overflow in sum of decimals"
                                         : "[ARITHMETIC_OVERFLOW] long overflow";
                assert_int_equal(strncmp(r.err.msg, want, strlen(want)), 0);
            } else {
                assert_int_equal(r.rc, CS_OK);
                /* legacy mode: a long wraps, a decimal overflow is null */
                assert_string_equal(r.row[0], which ? "NULL" : "-9223372036854775808");
            }
            t_rows_free(&r);
            cs_sql_op_free(op);
        }
    }
    cs_col_type_unref(schema);
}

static void test_decimal_sum_and_avg_types_and_rounding(void **state)
{
    const char *names[] = {"m"};
    cs_col_type *dec = cs_col_type_decimal(10, 2, NULL);
    cs_col_type *schema = t_schema(1, names, (cs_col_type *[]){dec});
    __int128 m[] = {100, 200, 200, -1};
    uint8_t valid[] = {1, 1, 1, 0};
    cs_col_batch *b[1] = {t_batch(schema, (cs_column *[]){t_fixed(dec, m, 4, valid)}, 4)};
    cs_agg_spec aggs[] = {{CS_AGG_SUM, 0, dec}, {CS_AGG_AVG, 0, dec}};
    cs_error err = {0};
    cs_sql_op *op =
        cs_sql_op_hash_aggregate(t_leaf(schema, b, 1), CS_AGG_COMPLETE, NULL, 0, aggs, 2, &err);
    cs_sbuf sb = {0};
    cs_col_type_simple_string(op->schema, &sb);
    assert_string_equal(sb.data, "struct<sum:decimal(20,2),avg:decimal(14,6)>");
    cs_sbuf_free(&sb);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    assert_string_equal(r.row[0], "5.00|1.666667"); /* 5 / 3 rounded half up at scale 6 */
    t_rows_free(&r);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
}

static void test_spill_under_small_memory_equals_in_memory(void **state)
{
    cs_col_type *schema = gen_schema();
    cs_col_batch *b[200];
    int nb = gen_batches(schema, 200000, 60000, 99, b);
    int na;
    const cs_agg_spec *aggs = gen_aggs(&na, schema);
    cs_error err = {0};
    cs_sql_exec_ctx ctx = t_ctx();
    for (int i = 0; i < nb; i++)
        cs_col_batch_ref(b[i]);
    cs_sql_op *mem = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_COMPLETE, (int[]){0, 1},
                                              2, aggs, na, &err);
    t_rows want = t_run(mem, &ctx);
    assert_int_equal(want.rc, CS_OK);
    assert_int_equal(mem->metrics.spill_count, 0);
    cs_task_memory tm;
    cs_task_memory_init(&tm, 2 << 20);
    cs_col_allocator alloc;
    cs_col_allocator_init(&alloc, &tm);
    cs_sql_exec_ctx small = ctx;
    small.alloc = &alloc;
    small.task_memory = &tm;
    cs_sql_op *sp = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_COMPLETE, (int[]){0, 1},
                                             2, aggs, na, &err);
    t_rows got = t_run(sp, &small);
    assert_int_equal(got.rc, CS_OK);
    assert_true(sp->metrics.spill_count > 0);
    assert_true(sp->metrics.spill_bytes > 0);
    assert_true(tm.spill_count > 0 && tm.spilled_bytes > 0);
    t_rows_sort(&want);
    t_rows_sort(&got);
    assert_true(t_rows_equal(&want, &got));
    t_rows_free(&want);
    t_rows_free(&got);
    cs_sql_op_free(mem);
    cs_sql_op_free(sp);
    assert_int_equal(tm.used, 0); /* everything the operator held went back */
    cs_col_type_unref(schema);
}

/* Keys that are all integral (byte, short, int, date, long) are kept as 64-bit words: each width
 * groups and comes back exactly, negative values and the extremes included, nulls group together
 * per key; and a spill under a small task memory gives the in-memory groups. */
static void test_integral_keys_of_each_width_with_nulls(void **state)
{
    const char *names[] = {"b", "h", "i", "l"};
    cs_col_type *schema = t_schema(
        4, names,
        (cs_col_type *[]){T(CS_TYPE_BYTE), T(CS_TYPE_SHORT), T(CS_TYPE_DATE), T(CS_TYPE_LONG)});
    int8_t b8[] = {-128, 127, -128, 0, 0, 5};
    int16_t h16[] = {-32768, 32767, -32768, 0, 0, 5};
    int32_t i32[] = {-1, 19000, -1, 0, 0, 5};
    int64_t l64[] = {INT64_MIN, INT64_MAX, INT64_MIN, 0, 0, 5};
    uint8_t valid[] = {1, 1, 1, 0, 1, 1};
    cs_col_batch *b[1] = {t_batch(schema,
                                  (cs_column *[]){t_fixed(T(CS_TYPE_BYTE), b8, 6, valid),
                                                  t_fixed(T(CS_TYPE_SHORT), h16, 6, valid),
                                                  t_fixed(T(CS_TYPE_DATE), i32, 6, valid),
                                                  t_fixed(T(CS_TYPE_LONG), l64, 6, NULL)},
                                  6)};
    cs_agg_spec count = {CS_AGG_COUNT_STAR, -1, NULL};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_hash_aggregate(t_leaf(schema, b, 1), CS_AGG_COMPLETE,
                                             (int[]){0, 1, 2, 3}, 4, &count, 1, &err);
    assert_non_null(op);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    assert_int_equal(r.n, 5);
    assert_string_equal(r.row[0], "-128|-32768|-1|-9223372036854775808|2");
    assert_string_equal(r.row[1], "127|32767|19000|9223372036854775807|1");
    assert_string_equal(r.row[2], "NULL|NULL|NULL|0|1"); /* not the group of the zeros */
    assert_string_equal(r.row[3], "0|0|0|0|1");
    assert_string_equal(r.row[4], "5|5|5|5|1");
    t_rows_free(&r);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);

    /* many long keys, spilled and in memory: the same groups */
    cs_col_type *gs = gen_schema();
    cs_col_batch *g[200];
    int nb = gen_batches(gs, 200000, 60000, 7, g);
    for (int i = 0; i < nb; i++)
        cs_col_batch_ref(g[i]);
    cs_sql_op *mem = cs_sql_op_hash_aggregate(t_leaf(gs, g, nb), CS_AGG_COMPLETE, (int[]){0}, 1,
                                              &count, 1, &err);
    cs_task_memory tm;
    cs_task_memory_init(&tm, 1 << 20);
    cs_col_allocator alloc;
    cs_col_allocator_init(&alloc, &tm);
    cs_sql_exec_ctx small = ctx;
    small.alloc = &alloc;
    small.task_memory = &tm;
    cs_sql_op *sp = cs_sql_op_hash_aggregate(t_leaf(gs, g, nb), CS_AGG_COMPLETE, (int[]){0}, 1,
                                             &count, 1, &err);
    t_rows want = t_run(mem, &ctx), got = t_run(sp, &small);
    assert_int_equal(got.rc, CS_OK);
    assert_true(sp->metrics.spill_count > 0);
    assert_int_equal(want.n, got.n);
    assert_true(want.n > 50000);
    t_rows_sort(&want);
    t_rows_sort(&got);
    assert_true(t_rows_equal(&want, &got));
    t_rows_free(&want);
    t_rows_free(&got);
    cs_sql_op_free(mem);
    cs_sql_op_free(sp);
    assert_int_equal(tm.used, 0);
    cs_col_type_unref(gs);
}

/* struct<a: bigint, s: string> rows {1, 'x'}, {1, 'x'}, NULL, {1, NULL}, NULL, {2, 'x'} */
static cs_column *struct_keys(cs_col_type *type)
{
    int64_t a[] = {1, 1, 0, 1, 0, 2};
    const char *s[] = {"x", "x", "", "", "", "x"};
    uint8_t valid[] = {1, 1, 0, 1, 0, 1}, s_valid[] = {1, 1, 0, 0, 0, 1};
    cs_col_builder *b = cs_col_builder_new(NULL, type);
    cs_col_builder_append_structs(b, 6, valid);
    cs_col_builder_append_values(cs_col_builder_child(b, 0), a, 6, valid);
    cs_col_builder *sb = cs_col_builder_child(b, 1);
    for (int i = 0; i < 6; i++)
        if (s_valid[i])
            cs_col_builder_append_string(sb, s[i], strlen(s[i]));
        else
            cs_col_builder_append_nulls(sb, 1);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

/* GROUP BY a struct (Spark's window(...) groups by one) and collect_list / collect_set of
 * structs: equal structs are one group, null structs one more, a null field is a value */
static void test_struct_keys_and_collected_structs(void **state)
{
    (void)state;
    cs_col_field f[] = {{"a", T(CS_TYPE_LONG), true}, {"s", T(CS_TYPE_STRING), true}};
    cs_col_type *st = cs_col_type_struct(f, 2);
    const char *names[] = {"k", "v"};
    cs_col_type *schema = t_schema(2, names, (cs_col_type *[]){st, T(CS_TYPE_LONG)});
    int64_t v[] = {1, 2, 3, 4, 5, 6};
    cs_col_batch *b[1] = {
        t_batch(schema, (cs_column *[]){struct_keys(st), t_longs(v, 6, NULL)}, 6)};
    cs_agg_spec aggs[] = {{CS_AGG_COUNT_STAR, -1, NULL},
                          {CS_AGG_SUM, 1, T(CS_TYPE_LONG)},
                          {CS_AGG_COLLECT_SET, 0, st}};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_hash_aggregate(t_leaf(schema, b, 1), CS_AGG_COMPLETE, (int[]){0}, 1,
                                             aggs, 3, &err);
    assert_non_null(op);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    t_rows_sort(&r);
    assert_int_equal(r.n, 4);
    assert_string_equal(r.row[0], "NULL|2|8|[]");
    assert_string_equal(r.row[1], "{1, 'x'}|2|3|[{1, 'x'}]");
    assert_string_equal(r.row[2], "{1, NULL}|1|4|[{1, NULL}]");
    assert_string_equal(r.row[3], "{2, 'x'}|1|6|[{2, 'x'}]");
    t_rows_free(&r);
    cs_sql_op_free(op);
    /* collect_list of the structs in one group, through Partial and Final buffers */
    cs_agg_spec list = {CS_AGG_COLLECT_LIST, 0, st};
    cs_col_batch *b2[1] = {
        t_batch(schema, (cs_column *[]){struct_keys(st), t_longs(v, 6, NULL)}, 6)};
    cs_sql_op *partial =
        cs_sql_op_hash_aggregate(t_leaf(schema, b2, 1), CS_AGG_PARTIAL, NULL, 0, &list, 1, &err);
    assert_non_null(partial);
    cs_agg_spec merge = {CS_AGG_COLLECT_LIST, 0, st};
    op = cs_sql_op_hash_aggregate(partial, CS_AGG_FINAL, NULL, 0, &merge, 1, &err);
    assert_non_null(op);
    r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    assert_int_equal(r.n, 1);
    assert_string_equal(r.row[0], "[{1, 'x'}, {1, 'x'}, {1, NULL}, {2, 'x'}]");
    t_rows_free(&r);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
}

/* A Partial whose groups are about as many as its rows turns to streaming (one batch's groups
 * at a time, so it outputs more rows than it has groups); its Final result is Complete's, with
 * first/last in input order, for word keys and for encoded (string) keys alike. */
static void test_partial_that_does_not_reduce_streams(void **state)
{
    cs_col_type *schema = gen_schema();
    cs_col_batch *b[300];
    int nb = gen_batches(schema, 300000, 1000000, 11, b);
    int na;
    const cs_agg_spec *aggs = gen_aggs(&na, schema);
    cs_error err = {0};
    cs_sql_exec_ctx ctx = t_ctx();
    cs_agg_spec fin[14];
    for (int nk = 1; nk <= 2; nk++) { /* (k): word keys; (k, s): encoded keys */
        int keys[] = {0, 1};
        for (int i = 0; i < nb; i++)
            cs_col_batch_ref(b[i]);
        cs_sql_op *complete = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_COMPLETE, keys,
                                                       nk, aggs, na, &err);
        assert_non_null(complete);
        t_rows want = t_run(complete, &ctx);
        assert_int_equal(want.rc, CS_OK);
        assert_true(want.n > 200000);

        for (int i = 0; i < nb; i++)
            cs_col_batch_ref(b[i]);
        cs_sql_op *partial = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_PARTIAL, keys,
                                                      nk, aggs, na, &err);
        t_rows streamed = t_run(partial, &ctx);
        assert_int_equal(streamed.rc, CS_OK);
        assert_true(streamed.n > want.n && streamed.n < 300000);
        t_rows_free(&streamed);
        cs_sql_op_free(partial);

        for (int i = 0; i < nb; i++)
            cs_col_batch_ref(b[i]);
        partial = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_PARTIAL, keys, nk, aggs,
                                           na, &err);
        memcpy(fin, aggs, sizeof fin);
        for (int j = 0, c = nk; j < na; j++) {
            fin[j].input = c;
            c += cs_agg_buffer_width(aggs[j].fn, aggs[j].arg_type);
        }
        cs_sql_op *final = cs_sql_op_hash_aggregate(partial, CS_AGG_FINAL, keys, nk, fin, na, &err);
        assert_non_null(final);
        t_rows got = t_run(final, &ctx);
        assert_int_equal(got.rc, CS_OK);
        t_rows_sort(&want);
        t_rows_sort(&got);
        assert_true(t_rows_equal(&want, &got));
        t_rows_free(&want);
        t_rows_free(&got);
        cs_sql_op_free(complete);
        cs_sql_op_free(final);
    }
    for (int i = 0; i < nb; i++)
        cs_col_batch_unref(b[i]);
    cs_col_type_unref(schema);
}

/* Many groups, each key three or four times far apart, through the table's growth: every group
 * finds its own rows again (the slots' hash tags only skip other groups), for a long key (words)
 * and a string key (encoded), nulls as one group, in Complete mode and through Partial -> Final. */
static void test_many_groups_each_found_again_through_growth(void **state)
{
    enum { G = 60000, NULLS = 100, ROWS = 3 * G + NULLS, BATCH = 4096 };
    cs_col_type *schema = t_schema(2, (const char *const[]){"k", "s"},
                                   (cs_col_type *const[]){T(CS_TYPE_LONG), T(CS_TYPE_STRING)});
    int64_t *k = malloc(sizeof *k * ROWS);
    uint8_t *valid = malloc(ROWS);
    char **str = malloc(sizeof *str * ROWS);
    for (int64_t r = 0; r < ROWS; r++) {
        bool null = r % (ROWS / NULLS) == 5 && r / (ROWS / NULLS) < NULLS;
        k[r] = null ? 0 : (r * 7919) % G; /* 7919 and G coprime: 3 rows per key */
        valid[r] = !null;
        str[r] = NULL;
        if (!null) {
            str[r] = malloc(24);
            snprintf(str[r], 24, "key-%lld", (long long)k[r]);
        }
    }
    /* the keys of the rows past 3 * G and of the null rows: count what each key really got */
    int *cnt = calloc(G, sizeof *cnt);
    int n_null = 0;
    for (int64_t r = 0; r < ROWS; r++)
        if (valid[r])
            cnt[k[r]]++;
        else
            n_null++;
    cs_col_batch *b[ROWS / BATCH + 1];
    int nb = 0;
    for (int64_t r = 0; r < ROWS; r += BATCH) {
        int64_t n = ROWS - r < BATCH ? ROWS - r : BATCH;
        b[nb++] = t_batch(schema,
                          (cs_column *[]){t_longs(k + r, n, valid + r),
                                          t_strings((const char *const *)str + r, n)},
                          n);
    }
    cs_agg_spec aggs[] = {{CS_AGG_COUNT_STAR, -1, NULL}, {CS_AGG_SUM, 0, T(CS_TYPE_LONG)}};
    cs_agg_spec fin[] = {{CS_AGG_COUNT_STAR, 1, NULL}, {CS_AGG_SUM, 2, T(CS_TYPE_LONG)}};
    cs_error err = {0};
    cs_sql_exec_ctx ctx = t_ctx();
    for (int key = 0; key < 2; key++) {
        t_rows want = {0};
        char line[96];
        for (int g = 0; g < G; g++) {
            if (!cnt[g]) continue;
            if (key == 0)
                snprintf(line, sizeof line, "%d|%d|%lld", g, cnt[g], (long long)g * cnt[g]);
            else
                snprintf(line, sizeof line, "'key-%d'|%d|%lld", g, cnt[g], (long long)g * cnt[g]);
            t_rows_add(&want, line);
        }
        snprintf(line, sizeof line, "NULL|%d|NULL", n_null);
        t_rows_add(&want, line);
        t_rows_sort(&want);
        for (int two_step = 0; two_step < 2; two_step++) {
            for (int i = 0; i < nb; i++)
                cs_col_batch_ref(b[i]);
            cs_sql_op *op;
            if (!two_step) {
                op = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_COMPLETE, &key, 1, aggs,
                                              2, &err);
            } else {
                cs_sql_op *partial = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_PARTIAL,
                                                              &key, 1, aggs, 2, &err);
                op = cs_sql_op_hash_aggregate(partial, CS_AGG_FINAL, (int[]){0}, 1, fin, 2, &err);
            }
            assert_non_null(op);
            t_rows got = t_run(op, &ctx);
            assert_int_equal(got.rc, CS_OK);
            assert_int_equal(got.n, want.n);
            t_rows_sort(&got);
            assert_true(t_rows_equal(&want, &got));
            t_rows_free(&got);
            cs_sql_op_free(op);
        }
        t_rows_free(&want);
    }
    for (int i = 0; i < nb; i++)
        cs_col_batch_unref(b[i]);
    for (int64_t r = 0; r < ROWS; r++)
        free(str[r]);
    free(str);
    free(k);
    free(valid);
    free(cnt);
    cs_col_type_unref(schema);
}

/* Groups 0..g-1 of a long key, one row each, counted in Complete mode; the output is drained
 * (every group once, count 1) and the table's peak memory returned. */
static int64_t distinct_keys_peak(int64_t g)
{
    enum { BATCH = 8192 };
    cs_col_type *schema =
        t_schema(1, (const char *const[]){"k"}, (cs_col_type *const[]){T(CS_TYPE_LONG)});
    int64_t *k = malloc(sizeof *k * (size_t)g);
    for (int64_t r = 0; r < g; r++)
        k[r] = (r * 7919) % g; /* 7919 and g coprime: every key once, not in order */
    int nb = (int)((g + BATCH - 1) / BATCH);
    cs_col_batch **b = calloc((size_t)nb, sizeof *b);
    for (int i = 0; i < nb; i++) {
        int64_t at = (int64_t)i * BATCH, n = g - at < BATCH ? g - at : BATCH;
        b[i] = t_batch(schema, (cs_column *[]){t_longs(k + at, n, NULL)}, n);
    }
    cs_agg_spec count[] = {{CS_AGG_COUNT_STAR, -1, NULL}};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_COMPLETE, (int[]){0}, 1,
                                             count, 1, &err);
    assert_non_null(op);
    cs_sql_exec_ctx ctx = t_ctx();
    assert_int_equal(cs_sql_op_open(op, &ctx, &err), CS_OK);
    uint8_t *seen = calloc((size_t)g, 1);
    int64_t rows = 0;
    for (;;) {
        cs_col_batch *out;
        assert_int_equal(cs_sql_op_next(op, &out, &err), CS_OK);
        if (!out) break;
        const int64_t *key = (const int64_t *)(const void *)out->columns[0]->values;
        const int64_t *cnt = (const int64_t *)(const void *)out->columns[1]->values;
        for (int64_t i = 0; i < out->num_rows; i++) {
            assert_true(key[i] >= 0 && key[i] < g && !seen[key[i]]);
            assert_int_equal(cnt[i], 1);
            seen[key[i]] = 1;
        }
        rows += out->num_rows;
        cs_col_batch_unref(out);
    }
    assert_int_equal(rows, g);
    cs_sql_op_close(op);
    int64_t peak = op->metrics.peak_memory;
    cs_sql_op_free(op);
    free(b);
    free(seen);
    free(k);
    cs_col_type_unref(schema);
    return peak;
}

/* A table past a million groups grows its group arrays by half, not twice: 1,100,000 groups hold
 * 1,572,864 group rows, half as many again as 2^20 groups hold (2^20), not twice as many. What the
 * group rows take is the peak less the slots (load <= 1/2: 2^21 slots for 2^20 groups, 2^22 for
 * 1,100,000). */
static void test_table_past_a_million_groups_grows_by_half(void **state)
{
    (void)state;
    int64_t p0 = distinct_keys_peak(1 << 20), p1 = distinct_keys_peak(1100000);
    int64_t rows0 = p0 - ((int64_t)8 << 21), rows1 = p1 - ((int64_t)8 << 22);
    assert_true(rows0 > 0);
    assert_true(rows1 * 10 <= rows0 * 16); /* doubling: rows1 = 2 * rows0 */
    assert_true(rows1 > rows0);
}

/* (byte, string, int) keys kept as words (agg_keys.c), the strings past a word's length, empty
 * or null, nulls in the byte key: every group found again through growth, and Complete in memory,
 * Complete spilled under a small task memory and Partial -> Final all equal a reference computed
 * here. */
static void test_integral_and_string_keys_spilled_and_in_memory(void **state)
{
    enum { G = 40000, ROWS = 3 * G, BATCH = 4096 };
    cs_col_type *schema =
        t_schema(3, (const char *const[]){"b", "s", "i"},
                 (cs_col_type *const[]){T(CS_TYPE_BYTE), T(CS_TYPE_STRING), T(CS_TYPE_INT)});
    int8_t *b8 = malloc(ROWS);
    int32_t *i32 = malloc(sizeof *i32 * ROWS);
    uint8_t *bvalid = malloc(ROWS);
    char **str = malloc(sizeof *str * ROWS);
    for (int64_t r = 0; r < ROWS; r++) {
        int g = (int)((r * 7919) % G);
        b8[r] = (int8_t)(g % 7 - 3);
        bvalid[r] = g % 11 != 0;
        i32[r] = g - G / 2;
        str[r] = NULL;
        if (g % 17 != 0) {
            str[r] = malloc(48);
            snprintf(str[r], 48, g % 13 == 0 ? "" : "group %d with a tail past a word", g);
        }
    }
    t_rows want = {0};
    for (int g = 0; g < G; g++) {
        char line[128], bv[8], sv[64];
        snprintf(bv, sizeof bv, g % 11 ? "%d" : "NULL", g % 7 - 3);
        if (g % 17 == 0)
            snprintf(sv, sizeof sv, "NULL");
        else if (g % 13 == 0)
            snprintf(sv, sizeof sv, "''");
        else
            snprintf(sv, sizeof sv, "'group %d with a tail past a word'", g);
        snprintf(line, sizeof line, "%s|%s|%d|3", bv, sv, g - G / 2);
        t_rows_add(&want, line);
    }
    t_rows_sort(&want);
    cs_col_batch *b[ROWS / BATCH + 1];
    int nb = 0;
    for (int64_t r = 0; r < ROWS; r += BATCH) {
        int64_t n = ROWS - r < BATCH ? ROWS - r : BATCH;
        b[nb++] = t_batch(schema,
                          (cs_column *[]){t_fixed(T(CS_TYPE_BYTE), b8 + r, n, bvalid + r),
                                          t_strings((const char *const *)str + r, n),
                                          t_fixed(T(CS_TYPE_INT), i32 + r, n, NULL)},
                          n);
    }
    cs_agg_spec count = {CS_AGG_COUNT_STAR, -1, NULL}, fin = {CS_AGG_COUNT_STAR, 3, NULL};
    cs_error err = {0};
    cs_sql_exec_ctx ctx = t_ctx();
    cs_task_memory tm;
    cs_task_memory_init(&tm, 1 << 20);
    cs_col_allocator alloc;
    cs_col_allocator_init(&alloc, &tm);
    cs_sql_exec_ctx small = ctx;
    small.alloc = &alloc;
    small.task_memory = &tm;
    for (int run = 0; run < 3; run++) {
        for (int i = 0; i < nb; i++)
            cs_col_batch_ref(b[i]);
        cs_sql_op *op;
        if (run < 2) {
            op = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_COMPLETE, (int[]){0, 1, 2},
                                          3, &count, 1, &err);
        } else {
            cs_sql_op *partial = cs_sql_op_hash_aggregate(t_leaf(schema, b, nb), CS_AGG_PARTIAL,
                                                          (int[]){0, 1, 2}, 3, &count, 1, &err);
            op =
                cs_sql_op_hash_aggregate(partial, CS_AGG_FINAL, (int[]){0, 1, 2}, 3, &fin, 1, &err);
        }
        assert_non_null(op);
        t_rows got = t_run(op, run == 1 ? &small : &ctx);
        assert_int_equal(got.rc, CS_OK);
        if (run == 1) assert_true(op->metrics.spill_count > 0);
        assert_int_equal(got.n, want.n);
        t_rows_sort(&got);
        assert_true(t_rows_equal(&want, &got));
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
    assert_int_equal(tm.used, 0);
    t_rows_free(&want);
    for (int i = 0; i < nb; i++)
        cs_col_batch_unref(b[i]);
    for (int64_t r = 0; r < ROWS; r++)
        free(str[r]);
    free(str);
    free(b8);
    free(i32);
    free(bvalid);
    cs_col_type_unref(schema);
}

static void test_bad_arguments_are_refused(void **state)
{
    cs_col_type *schema = gen_schema();
    cs_error err = {0};
    cs_agg_spec sum_s = {CS_AGG_SUM, 1, T(CS_TYPE_STRING)};
    assert_null(cs_sql_op_hash_aggregate(t_leaf(schema, NULL, 0), CS_AGG_COMPLETE, NULL, 0, &sum_s,
                                         1, &err));
    assert_true(cs_sql_error_is(&err, "DATATYPE_MISMATCH"));
    cs_agg_spec cnt = {CS_AGG_COUNT_STAR, -1, NULL};
    assert_null(cs_sql_op_hash_aggregate(t_leaf(schema, NULL, 0), CS_AGG_COMPLETE, (int[]){9}, 1,
                                         &cnt, 1, &err));
    assert_non_null(strstr(err.msg, "ordinal 9"));
    cs_col_type_unref(schema);
}

/* A global aggregate (no keys) folds count and sum a batch at a time into one value: sums of
 * byte, short and int columns with nulls, a column of nulls only (sum null), count skipping the
 * nulls, over two batches. */
static void test_global_sum_and_count_of_narrow_integers(void **state)
{
    const char *names[] = {"a", "b", "c", "d"};
    cs_col_type *schema = t_schema(
        4, names,
        (cs_col_type *[]){T(CS_TYPE_SHORT), T(CS_TYPE_INT), T(CS_TYPE_BYTE), T(CS_TYPE_INT)});
    int16_t a[] = {1, -2, 300, 0, 7, 0};
    uint8_t av[] = {1, 1, 1, 0, 1, 0};
    int32_t b[] = {INT32_MAX, INT32_MAX, 0, 5, -1, 3};
    uint8_t bv[] = {1, 1, 0, 1, 1, 1};
    int8_t c[] = {-128, 0, 0, 0, 0, 0};
    uint8_t cv[] = {1, 0, 0, 0, 0, 0};
    int32_t d[] = {0, 0, 0, 0, 0, 0};
    uint8_t dv[] = {0, 0, 0, 0, 0, 0};
    const cs_col_field *f = schema->fields;
    cs_col_batch *in[2];
    for (int i = 0; i < 2; i++) {
        int o = i ? 4 : 0, n = i ? 2 : 4;
        in[i] = t_batch(schema,
                        (cs_column *[]){t_fixed(f[0].type, a + o, n, av + o),
                                        t_fixed(f[1].type, b + o, n, bv + o),
                                        t_fixed(f[2].type, c + o, n, cv + o),
                                        t_fixed(f[3].type, d + o, n, dv + o)},
                        n);
    }
    cs_agg_spec aggs[] = {
        {CS_AGG_SUM, 0, T(CS_TYPE_SHORT)},   {CS_AGG_SUM, 1, T(CS_TYPE_INT)},
        {CS_AGG_SUM, 2, T(CS_TYPE_BYTE)},    {CS_AGG_SUM, 3, T(CS_TYPE_INT)},
        {CS_AGG_COUNT, 0, T(CS_TYPE_SHORT)}, {CS_AGG_COUNT_STAR, -1, NULL},
        {CS_AGG_AVG, 1, T(CS_TYPE_INT)},
    };
    cs_error err = {0};
    cs_sql_op *op =
        cs_sql_op_hash_aggregate(t_leaf(schema, in, 2), CS_AGG_COMPLETE, NULL, 0, aggs, 7, &err);
    assert_non_null(op);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    assert_int_equal(r.n, 1);
    assert_string_equal(r.row[0], "306|4294967301|-128|NULL|4|6|858993460.20000005");
    t_rows_free(&r);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_functions_with_nulls),
        cmocka_unit_test(test_nan_and_negative_zero_group_as_spark),
        cmocka_unit_test(test_partial_then_final_equals_complete),
        cmocka_unit_test(test_results_equal_reference),
        cmocka_unit_test(test_empty_input_without_keys_gives_one_row),
        cmocka_unit_test(test_sum_overflow_raises_under_ansi),
        cmocka_unit_test(test_global_sum_and_count_of_narrow_integers),
        cmocka_unit_test(test_decimal_sum_and_avg_types_and_rounding),
        cmocka_unit_test(test_spill_under_small_memory_equals_in_memory),
        cmocka_unit_test(test_integral_keys_of_each_width_with_nulls),
        cmocka_unit_test(test_partial_that_does_not_reduce_streams),
        cmocka_unit_test(test_many_groups_each_found_again_through_growth),
        cmocka_unit_test(test_table_past_a_million_groups_grows_by_half),
        cmocka_unit_test(test_integral_and_string_keys_spilled_and_in_memory),
        cmocka_unit_test(test_bad_arguments_are_refused),
        cmocka_unit_test(test_struct_keys_and_collected_structs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
