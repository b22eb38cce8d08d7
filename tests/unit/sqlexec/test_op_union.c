/*
 * test_op_union.c — Union and Expand (src/sqlexec/op_union.c): UNION ALL of children (an empty
 * one among them) in order with the union's nullability, children of other types refused;
 * Expand's projections for GROUPING SETS ((k), ()) with spark_grouping_id, aggregated by the
 * hash aggregate into the per-key and the grand totals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "op_test_util.h"

/* A leaf of n rows (k = i % 3, null when i % 5 == 4; v = from + i) in batches of `batch`. */
static cs_sql_op *kv_op(int64_t from, int64_t n, int64_t batch, bool v_nullable)
{
    cs_col_field f[2] = {{"k", cs_col_type_primitive(CS_TYPE_LONG), true},
                         {"v", cs_col_type_primitive(CS_TYPE_LONG), v_nullable}};
    cs_col_type *schema = cs_col_type_struct(f, 2);
    cs_col_batch *b[64];
    int nb = 0;
    for (int64_t at = 0; at < n; at += batch) {
        int64_t m = n - at < batch ? n - at : batch, k[64], v[64];
        uint8_t kv[64];
        for (int64_t i = 0; i < m; i++) {
            k[i] = (from + at + i) % 3;
            kv[i] = (from + at + i) % 5 != 4;
            v[i] = from + at + i;
        }
        b[nb++] = t_batch(schema, (cs_column *[]){t_longs(k, m, kv), t_longs(v, m, NULL)}, m);
    }
    cs_sql_op *op = t_leaf(schema, b, nb);
    cs_col_type_unref(schema);
    return op;
}

static void test_union_all(void **state)
{
    cs_error err = {0};
    cs_sql_op *u = cs_sql_op_union(
        (cs_sql_op *[]){kv_op(0, 10, 4, false), kv_op(10, 0, 4, false), kv_op(10, 20, 8, true)}, 3,
        &err);
    assert_non_null(u);
    assert_true(u->schema->fields[1].nullable); /* nullable in one child */
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows got = t_run(u, &ctx);
    assert_int_equal(got.rc, CS_OK);
    assert_int_equal(got.n, 30);
    for (int i = 0; i < 30; i++) {
        char want[32];
        if (i % 5 == 4)
            snprintf(want, sizeof want, "NULL|%d", i);
        else
            snprintf(want, sizeof want, "%d|%d", i % 3, i);
        assert_string_equal(got.row[i], want);
    }
    t_rows_free(&got);
    cs_sql_op_free(u);
    /* children of other column types are refused */
    const char *names[] = {"x"};
    cs_col_type *other = t_schema(1, names, (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_INT)});
    assert_null(
        cs_sql_op_union((cs_sql_op *[]){kv_op(0, 3, 4, true), t_leaf(other, NULL, 0)}, 2, &err));
    assert_non_null(strstr(err.msg, "types differ"));
    cs_col_type_unref(other);
}

static void test_expand_for_grouping_sets(void **state)
{
    /* SELECT k, sum(v) ... GROUP BY GROUPING SETS ((k), ()): Expand [k, v, 0] and [null, v, 1],
     * then HashAggregate by (k, spark_grouping_id) */
    cs_error err = {0};
    int proj[] = {0, 1, CS_EXPAND_NULL, 1};
    int64_t gid[] = {0, 1};
    cs_sql_op *e = cs_sql_op_expand(kv_op(0, 30, 7, false), proj, 2, 2, gid, NULL, &err);
    assert_non_null(e);
    cs_sbuf sb = {0};
    cs_col_type_simple_string(e->schema, &sb);
    assert_string_equal(sb.data, "struct<k:bigint,v:bigint,spark_grouping_id:bigint>");
    cs_sbuf_free(&sb);
    cs_agg_spec sum = {CS_AGG_SUM, 1, cs_col_type_primitive(CS_TYPE_LONG)};
    cs_sql_op *a = cs_sql_op_hash_aggregate(e, CS_AGG_COMPLETE, (int[]){0, 2}, 2, &sum, 1, &err);
    assert_non_null(a);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows got = t_run(a, &ctx);
    assert_int_equal(got.rc, CS_OK);
    t_rows_sort(&got);
    /* per key k (v = i, i % 3 == k, i % 5 != 4), the null key group (i % 5 == 4), the total */
    int64_t s[3] = {0}, snull = 0, total = 0;
    for (int i = 0; i < 30; i++) {
        total += i;
        if (i % 5 == 4)
            snull += i;
        else
            s[i % 3] += i;
    }
    t_rows want = {0};
    char line[64];
    for (int k = 0; k < 3; k++) {
        snprintf(line, sizeof line, "%d|0|%lld", k, (long long)s[k]);
        t_rows_add(&want, line);
    }
    snprintf(line, sizeof line, "NULL|0|%lld", (long long)snull);
    t_rows_add(&want, line);
    snprintf(line, sizeof line, "NULL|1|%lld", (long long)total);
    t_rows_add(&want, line);
    t_rows_sort(&want);
    assert_true(t_rows_equal(&want, &got));
    t_rows_free(&want);
    t_rows_free(&got);
    cs_sql_op_free(a);
    /* a column null in every projection has no type */
    int bad[] = {CS_EXPAND_NULL, 1};
    assert_null(cs_sql_op_expand(kv_op(0, 3, 4, false), bad, 1, 2, NULL, NULL, &err));
    assert_non_null(strstr(err.msg, "no type"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_union_all),
        cmocka_unit_test(test_expand_for_grouping_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
