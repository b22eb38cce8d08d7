/*
 * test_phys_exchange.c — src/sqlexec/exchange_codec.c: a batch (nulls, strings plain and
 * dictionary encoded, decimals, booleans, no rows) through cs_sql_batch_encode / decode equals
 * itself, and truncated, padded or foreign bytes are one CS_EPROTO line; the exchange
 * partitioner gives Spark's partition of every row: HASH as `pmod(hash(keys), n)`, ROUND_ROBIN
 * from `new XORShiftRandom(mapPartition).nextInt(n)` plus one per row (every expected number
 * printed by Spark 4.0.1 through pyspark), SINGLE 0, RANGE by the bounds in the keys' order.
 * The map side's gather of runs (cs_sql_batch_gather_runs, and cs_sql_batch_concat through it)
 * gives each run's rows as they are in its batch, whatever the types and nulls of the sources.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "phys_test_util.h"

static cs_column *ints(const int32_t *v, int64_t n, const uint8_t *valid)
{
    return t_fixed(T(CS_TYPE_INT), v, n, valid);
}

static cs_column *dict_strings(const char *const *dict, int nd, const int32_t *idx, int64_t n)
{
    cs_column *d = t_strings(dict, nd);
    cs_col_builder *b = cs_col_builder_new_dictionary(NULL, d);
    cs_column_unref(d);
    cs_col_builder_append_values(b, idx, n, NULL);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

static cs_column *decimals(const int64_t *unscaled, int64_t n)
{
    cs_error err = {0};
    __int128 v[8];
    for (int64_t i = 0; i < n; i++)
        v[i] = unscaled[i];
    cs_col_type *t = cs_col_type_decimal(10, 2, &err);
    cs_column *c = t_fixed(t, v, n, NULL); /* the builder takes its own reference */
    cs_col_type_unref(t);
    return c;
}

static cs_col_batch *sample_batch(int64_t n)
{
    cs_error err = {0};
    cs_col_field f[5] = {{"id", T(CS_TYPE_LONG), true},
                         {"s", T(CS_TYPE_STRING), true},
                         {"d", T(CS_TYPE_STRING), true},
                         {"x", cs_col_type_decimal(10, 2, &err), true},
                         {"b", T(CS_TYPE_BOOLEAN), true}};
    cs_col_type *schema = cs_col_type_struct(f, 5);
    int64_t ids[5] = {1, -2, 3, 4, 5}, dec[5] = {123, -45600, 0, 1, 99999};
    uint8_t valid[5] = {1, 0, 1, 1, 1}, bools[5] = {1, 0, 0, 1, 1};
    const char *s[5] = {"a", NULL, "", "h\xc3\xa9llo", "zz"};
    const char *dict[2] = {"red", "green"};
    int32_t di[5] = {1, 0, 0, 1, 1};
    cs_col_batch *b = t_batch(schema,
                              (cs_column *[]){t_longs(ids, n, valid), t_strings(s, n),
                                              dict_strings(dict, 2, di, n), decimals(dec, n),
                                              t_fixed(T(CS_TYPE_BOOLEAN), bools, n, valid)},
                              n);
    cs_col_type_unref(schema);
    return b;
}

static void test_batch_round_trip(void **state)
{
    (void)state;
    for (int64_t n = 0; n <= 5; n += 5) {
        cs_col_batch *b = sample_batch(n);
        cs_sbuf buf = {0};
        cs_error err = {0};
        assert_int_equal(cs_sql_batch_encode(b, &buf, &err), CS_OK);
        cs_col_batch *back = NULL;
        assert_int_equal(cs_sql_batch_decode(b->schema, (const uint8_t *)buf.data, buf.len,
                                             cs_col_default_allocator(), &back, &err),
                         CS_OK);
        assert_int_equal(back->num_rows, n);
        assert_true(cs_col_batch_equal(b, back));
        cs_col_batch_unref(back);

        /* truncated anywhere, or followed by bytes: one CS_EPROTO line */
        for (size_t cut = 0; cut < buf.len; cut += 7) {
            err = (cs_error){0};
            assert_int_not_equal(
                cs_sql_batch_decode(b->schema, (const uint8_t *)buf.data, cut, NULL, &back, &err),
                CS_OK);
            assert_null(back);
            assert_int_equal(err.code, CS_EPROTO);
        }
        cs_sbuf_append(&buf, "\0\0\0\0\0\0\0\0", 8);
        assert_int_equal(
            cs_sql_batch_decode(b->schema, (const uint8_t *)buf.data, buf.len, NULL, &back, &err),
            CS_EPROTO);
        assert_non_null(strstr(err.msg, "8 bytes after the record batch"));
        cs_sbuf_free(&buf);
        cs_col_batch_unref(b);
    }
    /* a batch read as another schema (one column where the bytes hold five) */
    cs_col_batch *b = sample_batch(5);
    cs_sbuf buf = {0};
    cs_error err = {0};
    assert_int_equal(cs_sql_batch_encode(b, &buf, &err), CS_OK);
    cs_col_type *one = t_schema(1, (const char *[]){"s"}, (cs_col_type *[]){T(CS_TYPE_STRING)});
    cs_col_batch *back = NULL;
    assert_int_not_equal(
        cs_sql_batch_decode(one, (const uint8_t *)buf.data, buf.len, NULL, &back, &err), CS_OK);
    assert_null(back);
    cs_col_type_unref(one);
    cs_sbuf_free(&buf);
    cs_col_batch_unref(b);
}

/* An EXCHANGE node over a child of `schema`. */
static cs_phys_node *exchange(cs_phys_partitioning_kind kind, int n, cs_col_type *schema)
{
    cs_phys_node *ex = cs_phys_new(CS_PH_EXCHANGE, cs_col_type_ref(schema), 1);
    ex->children[0] = cs_phys_new(CS_PH_LOCAL, schema, 0);
    ex->partitioning = kind;
    ex->num_partitions = n;
    return ex;
}

static void partition_of(cs_phys_node *ex, int map_partition, const cs_col_batch *bounds,
                         cs_col_batch *b, int32_t *part)
{
    cs_error err = {0};
    cs_exchange_partitioner *p = cs_exchange_partitioner_new(ex, map_partition, bounds, &err);
    if (!p) fail_msg("partitioner: %s", err.msg);
    cs_sql_exec_ctx ctx = t_ctx();
    assert_int_equal(cs_exchange_partition(p, b, &ctx, part, &err), CS_OK);
    cs_exchange_partitioner_free(p);
}

static void test_hash_partitions_as_spark(void **state)
{
    (void)state;
    /* SELECT pmod(hash(CAST(k AS INT)), 200), pmod(hash(CAST(k AS BIGINT)), 7),
     *        pmod(hash(CAST(k AS STRING)), 200), pmod(hash(CAST(k AS INT), CAST(k AS STRING)), 13)
     * FROM VALUES (0), (1), (2), (3), (-5), (123456789) AS t(k) — Spark 4.0.1; the null row
     * is hash() = 42 (the seed, as Spark's for null keys) */
    static const int32_t want[4][7] = {
        {191, 43, 174, 51, 61, 120, 42},
        {4, 5, 5, 5, 2, 4, 0},
        {35, 144, 189, 18, 184, 163, 42},
        {4, 0, 6, 5, 5, 6, 3},
    };
    int32_t k[7] = {0, 1, 2, 3, -5, 123456789, 0};
    int64_t kl[7] = {0, 1, 2, 3, -5, 123456789, 0};
    uint8_t valid[7] = {1, 1, 1, 1, 1, 1, 0};
    const char *ks[7] = {"0", "1", "2", "3", "-5", "123456789", NULL};
    cs_col_type *schema =
        t_schema(3, (const char *[]){"i", "l", "s"},
                 (cs_col_type *[]){T(CS_TYPE_INT), T(CS_TYPE_LONG), T(CS_TYPE_STRING)});
    cs_col_batch *b = t_batch(
        schema, (cs_column *[]){ints(k, 7, valid), t_longs(kl, 7, valid), t_strings(ks, 7)}, 7);
    const int n[4] = {200, 7, 200, 13};
    const int keys[4][2] = {{0, -1}, {1, -1}, {2, -1}, {0, 2}};
    for (int t = 0; t < 4; t++) {
        cs_phys_node *ex = exchange(CS_PART_HASH, n[t], cs_col_type_ref(schema));
        ex->n_exprs = keys[t][1] < 0 ? 1 : 2;
        ex->exprs = calloc(2, sizeof *ex->exprs);
        for (int i = 0; i < ex->n_exprs; i++)
            ex->exprs[i] =
                cs_pexpr_column(keys[t][i], cs_col_type_ref(schema->fields[keys[t][i]].type), true);
        int32_t part[7];
        partition_of(ex, 0, NULL, b, part);
        for (int i = 0; i < 7; i++)
            if (part[i] != want[t][i])
                fail_msg("key set %d, row %d: %d, Spark %d", t, i, part[i], want[t][i]);
        cs_phys_free(ex);
    }
    /* SINGLE: everything to 0 */
    cs_phys_node *ex = exchange(CS_PART_SINGLE, 1, cs_col_type_ref(schema));
    int32_t part[7];
    partition_of(ex, 3, NULL, b, part);
    for (int i = 0; i < 7; i++)
        assert_int_equal(part[i], 0);
    cs_phys_free(ex);
    /* a key over a column that is not there */
    ex = exchange(CS_PART_HASH, 4, cs_col_type_ref(schema));
    ex->n_exprs = 1;
    ex->exprs = calloc(1, sizeof *ex->exprs);
    ex->exprs[0] = cs_pexpr_column(5, T(CS_TYPE_INT), true);
    cs_error err = {0};
    assert_null(cs_exchange_partitioner_new(ex, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "Exchange hashpartitioning"));
    cs_phys_free(ex);
    cs_col_batch_unref(b);
    cs_col_type_unref(schema);
}

static void test_round_robin_starts_as_spark(void **state)
{
    (void)state;
    /* new XORShiftRandom(p).nextInt(n) for p = 0..5 — Spark 4.0.1 */
    static const int n[3] = {4, 7, 200};
    static const int32_t start[3][6] = {
        {0, 0, 3, 2, 2, 3},
        {2, 5, 1, 6, 1, 1},
        {28, 103, 28, 47, 53, 25},
    };
    cs_col_type *schema = t_schema(1, (const char *[]){"v"}, (cs_col_type *[]){T(CS_TYPE_LONG)});
    int64_t v[10] = {0};
    cs_col_batch *b = t_batch(schema, (cs_column *[]){t_longs(v, 10, NULL)}, 10);
    for (int t = 0; t < 3; t++)
        for (int p = 0; p < 6; p++) {
            cs_phys_node *ex = exchange(CS_PART_ROUND_ROBIN, n[t], cs_col_type_ref(schema));
            int32_t part[10];
            partition_of(ex, p, NULL, b, part);
            for (int i = 0; i < 10; i++) /* position += 1 before each row */
                assert_int_equal(part[i], (start[t][p] + 1 + i) % n[t]);
            cs_phys_free(ex);
        }
    cs_col_batch_unref(b);
    cs_col_type_unref(schema);
}

static void test_range_partitions_by_bounds(void **state)
{
    (void)state;
    cs_col_type *schema = t_schema(1, (const char *[]){"v"}, (cs_col_type *[]){T(CS_TYPE_LONG)});
    int64_t v[7] = {5, 10, 11, 20, 21, 0, -100};
    uint8_t valid[7] = {1, 1, 1, 1, 1, 0, 1};
    cs_col_batch *b = t_batch(schema, (cs_column *[]){t_longs(v, 7, valid)}, 7);
    /* ascending, nulls first: bounds 10, 20 -> (-inf, 10], (10, 20], (20, inf) */
    int64_t asc[2] = {10, 20}, desc[2] = {20, 10};
    cs_col_batch *ab = t_batch(schema, (cs_column *[]){t_longs(asc, 2, NULL)}, 2);
    cs_col_batch *db = t_batch(schema, (cs_column *[]){t_longs(desc, 2, NULL)}, 2);
    cs_phys_node *ex = exchange(CS_PART_RANGE, 3, cs_col_type_ref(schema));
    ex->n_sort_keys = 1;
    ex->sort_keys = calloc(1, sizeof *ex->sort_keys);
    ex->sort_keys[0] = (cs_sort_key){0, false, true};
    int32_t part[7];
    partition_of(ex, 0, ab, b, part);
    const int32_t want_asc[7] = {0, 0, 1, 1, 2, 0, 0};
    for (int i = 0; i < 7; i++)
        assert_int_equal(part[i], want_asc[i]);
    /* descending, nulls last: bounds 20, 10 */
    ex->sort_keys[0] = (cs_sort_key){0, true, false};
    partition_of(ex, 0, db, b, part);
    const int32_t want_desc[7] = {2, 1, 1, 0, 0, 2, 2};
    for (int i = 0; i < 7; i++)
        assert_int_equal(part[i], want_desc[i]);
    /* no bounds (an empty sample): partition 0 */
    partition_of(ex, 0, NULL, b, part);
    for (int i = 0; i < 7; i++)
        assert_int_equal(part[i], 0);
    /* more bounds than partitions - 1 */
    cs_error err = {0};
    ex->num_partitions = 2;
    assert_null(cs_exchange_partitioner_new(ex, 0, ab, &err));
    assert_int_equal(err.code, CS_EINVAL);
    cs_phys_free(ex);
    cs_col_batch_unref(ab);
    cs_col_batch_unref(db);
    cs_col_batch_unref(b);
    cs_col_type_unref(schema);
}

/* Batch `seed` of n rows: long, string, dictionary string, decimal, boolean, a struct of (int,
 * string) and an array of longs; nulls in some columns of odd seeds only, so that runs mix
 * sources with and without nulls. */
static cs_col_batch *varied_batch(int seed, int64_t n)
{
    cs_error err = {0};
    cs_col_type *dec = cs_col_type_decimal(10, 2, &err);
    cs_col_field sf[2] = {{"i", T(CS_TYPE_INT), true}, {"t", T(CS_TYPE_STRING), true}};
    cs_col_type *st = cs_col_type_struct(sf, 2);
    cs_col_type *arr = cs_col_type_array(T(CS_TYPE_LONG), true);
    cs_col_field f[7] = {{"id", T(CS_TYPE_LONG), true},
                         {"s", T(CS_TYPE_STRING), true},
                         {"d", T(CS_TYPE_STRING), true},
                         {"x", dec, true},
                         {"b", T(CS_TYPE_BOOLEAN), true},
                         {"st", st, true},
                         {"a", arr, true}};
    cs_col_type *schema = cs_col_type_struct(f, 7);
    int64_t *ids = calloc((size_t)n + 1, 8);
    __int128 *xs = calloc((size_t)n + 1, 16);
    uint8_t *valid = calloc((size_t)n + 1, 1), *bools = calloc((size_t)n + 1, 1);
    int32_t *ints = calloc((size_t)n + 1, 4), *di = calloc((size_t)n + 1, 4);
    int32_t *lens = calloc((size_t)n + 1, 4);
    char **strs = calloc((size_t)n + 1, sizeof *strs);
    for (int64_t i = 0; i < n; i++) {
        ids[i] = seed * 1000 + i;
        xs[i] = (seed + 1) * 100003 - i * 7;
        valid[i] = seed % 2 == 0 || i % 3 != 1;
        bools[i] = (i + seed) % 2 == 0;
        ints[i] = (int32_t)(seed * 10 + i);
        di[i] = (int32_t)((i + seed) % 3);
        lens[i] = valid[i] ? (int32_t)(i % 3) : 0;
        char buf[32];
        snprintf(buf, sizeof buf, "b%d-row%lld", seed, (long long)i);
        strs[i] = seed % 2 == 1 && i % 4 == 2 ? NULL : strdup(buf);
    }
    const char *dict[3] = {"red", "green", "a longer blue"};
    cs_column *ds = t_strings(dict, 3);
    cs_col_builder *db = cs_col_builder_new_dictionary(NULL, ds);
    cs_column_unref(ds);
    cs_col_builder_append_values(db, di, n, NULL);
    cs_col_builder *sb = cs_col_builder_new(NULL, st);
    cs_col_builder_append_structs(sb, n, valid);
    cs_col_builder_append_values(cs_col_builder_child(sb, 0), ints, n, NULL);
    for (int64_t i = 0; i < n; i++)
        if (strs[i])
            cs_col_builder_append_string(cs_col_builder_child(sb, 1), strs[i], strlen(strs[i]));
        else
            cs_col_builder_append_nulls(cs_col_builder_child(sb, 1), 1);
    cs_col_builder *ab = cs_col_builder_new(NULL, arr);
    cs_col_builder_append_lists(ab, lens, n, valid);
    for (int64_t i = 0; i < n; i++)
        for (int32_t k = 0; k < lens[i]; k++) {
            int64_t v = ids[i] * 10 + k;
            cs_col_builder_append_values(cs_col_builder_child(ab, 0), &v, 1, NULL);
        }
    cs_column *cols[7] = {t_longs(ids, n, valid),
                          t_strings((const char *const *)strs, n),
                          cs_col_builder_finish(db),
                          t_fixed(dec, xs, n, NULL),
                          t_fixed(T(CS_TYPE_BOOLEAN), bools, n, valid),
                          cs_col_builder_finish(sb),
                          cs_col_builder_finish(ab)};
    cs_col_batch *b = t_batch(schema, cols, n);
    cs_col_builder_free(db);
    cs_col_builder_free(sb);
    cs_col_builder_free(ab);
    for (int64_t i = 0; i < n; i++)
        free(strs[i]);
    free(strs);
    free(ids);
    free(xs);
    free(valid);
    free(bools);
    free(ints);
    free(di);
    free(lens);
    cs_col_type_unref(schema); /* with it dec, st and arr (the struct took them over) */
    return b;
}

/* Rows [from, from + n) of b (a plain take, the reference). */
static cs_col_batch *rows_of(cs_col_batch *b, int64_t from, int64_t n)
{
    int32_t *idx = malloc(sizeof *idx * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        idx[i] = (int32_t)(from + i);
    cs_col_batch *out = cs_col_batch_take(b, idx, n, cs_col_default_allocator());
    free(idx);
    return out;
}

static void assert_runs_gathered(cs_col_batch *out, cs_col_batch *const *b,
                                 const cs_sql_row_run *runs, int n_runs)
{
    int64_t rows = 0;
    for (int r = 0; r < n_runs; r++)
        rows += runs[r].len;
    assert_int_equal(out->num_rows, rows);
    cs_error err = {0};
    for (int c = 0; c < out->n_columns; c++)
        if (cs_column_validate(out->columns[c], &err) != CS_OK)
            fail_msg("column %d: %s", c, err.msg);
    int64_t at = 0;
    for (int r = 0; r < n_runs; r++) {
        cs_col_batch *got = rows_of(out, at, runs[r].len);
        cs_col_batch *want = rows_of(b[runs[r].batch], runs[r].start, runs[r].len);
        if (!cs_col_batch_equal(got, want)) fail_msg("run %d differs", r);
        cs_col_batch_unref(got);
        cs_col_batch_unref(want);
        at += runs[r].len;
    }
}

static void test_gather_runs_keeps_each_runs_rows(void **state)
{
    (void)state;
    cs_col_batch *b[3] = {varied_batch(0, 9), varied_batch(1, 12), varied_batch(2, 1)};
    cs_col_type *schema = b[0]->schema;
    const cs_sql_row_run runs[] = {{1, 2, 5}, {0, 0, 0}, {2, 0, 1}, {0, 3, 6},
                                   {1, 0, 2}, {1, 7, 5}, {0, 0, 3}};
    int n_runs = (int)(sizeof runs / sizeof runs[0]);
    cs_col_batch *out = cs_sql_batch_gather_runs(schema, b, runs, n_runs, NULL);
    assert_runs_gathered(out, b, runs, n_runs);
    cs_col_batch_unref(out);
    /* runs of sources without nulls only (batches 0 and 2), and one run alone */
    const cs_sql_row_run even[] = {{2, 0, 1}, {0, 4, 5}};
    out = cs_sql_batch_gather_runs(schema, b, even, 2, NULL);
    assert_runs_gathered(out, b, even, 2);
    for (int c = 0; c < out->n_columns; c++)
        assert_int_equal(out->columns[c]->null_count, 0);
    cs_col_batch_unref(out);
    out = cs_sql_batch_gather_runs(schema, b, &runs[0], 1, NULL);
    assert_runs_gathered(out, b, &runs[0], 1);
    cs_col_batch_unref(out);
    /* no run: no rows, valid columns */
    out = cs_sql_batch_gather_runs(schema, b, runs, 0, NULL);
    assert_runs_gathered(out, b, runs, 0);
    cs_col_batch_unref(out);
    /* concatenation: every batch whole */
    out = cs_sql_batch_concat(schema, b, 3, NULL);
    const cs_sql_row_run whole[] = {{0, 0, 9}, {1, 0, 12}, {2, 0, 1}};
    assert_runs_gathered(out, b, whole, 3);
    cs_col_batch_unref(out);
    for (int i = 0; i < 3; i++)
        cs_col_batch_unref(b[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_round_trip),
        cmocka_unit_test(test_hash_partitions_as_spark),
        cmocka_unit_test(test_round_robin_starts_as_spark),
        cmocka_unit_test(test_range_partitions_by_bounds),
        cmocka_unit_test(test_gather_runs_keeps_each_runs_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
