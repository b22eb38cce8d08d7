/*
 * test_op_generate.c — Generate (src/sqlexec/op_generate.c): explode / explode_outer / posexplode
 * of an array with empty, null and null-element rows (Spark 4.0.1's answers of
 * tests/sql/corpus/generators.sql over its `arr` view), explode of a map, inline of an array of
 * structs with a null element, stack with a missing last value, output batches cut at
 * batch_rows, only the kept input columns in the rows (ColumnPruning's required child output),
 * and the argument checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "op_test_util.h"

/* The corpus's arr(id, xs): (1, [10, 20]), (2, []), (3, NULL), (4, [30, NULL]). */
static cs_sql_op *arr_op(void)
{
    cs_col_type *at = cs_col_type_array(cs_col_type_primitive(CS_TYPE_INT), true);
    cs_col_type *schema = t_schema(2, (const char *[]){"id", "xs"},
                                   (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_INT), at});
    int32_t ids[] = {1, 2, 3, 4};
    cs_col_builder *b = cs_col_builder_new(NULL, at);
    cs_col_builder_append_lists(b, (int32_t[]){2, 0, 0, 2}, 4, (uint8_t[]){1, 1, 0, 1});
    cs_col_builder_append_values(cs_col_builder_child(b, 0), (int32_t[]){10, 20, 30, 0}, 4,
                                 (uint8_t[]){1, 1, 1, 0});
    cs_column *xs = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_col_batch *batch = t_batch(
        schema, (cs_column *[]){t_fixed(cs_col_type_primitive(CS_TYPE_INT), ids, 4, NULL), xs}, 4);
    cs_sql_op *op = t_leaf(schema, &batch, 1);
    cs_col_type_unref(schema);
    return op;
}

static t_rows run_cols(cs_sql_op *op, int64_t batch_rows, const int *cols, int n_cols)
{
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = batch_rows;
    t_rows r = {0};
    r.rc = cs_sql_op_open(op, &ctx, &r.err);
    while (r.rc == CS_OK) {
        cs_col_batch *b;
        r.rc = cs_sql_op_next(op, &b, &r.err);
        if (r.rc != CS_OK || !b) break;
        cs_col_batch *p = cs_col_batch_project(b, cols, n_cols, &r.err);
        t_rows_of_batch(&r, p);
        cs_col_batch_unref(p);
        cs_col_batch_unref(b);
    }
    cs_sql_op_close(op);
    return r;
}

static void check(cs_sql_op *op, int64_t batch_rows, const int *cols, int n_cols,
                  const char *const *want, int n)
{
    assert_non_null(op);
    t_rows got = run_cols(op, batch_rows, cols, n_cols);
    if (got.rc != CS_OK) fprintf(stderr, "%s\n", got.err.msg);
    assert_int_equal(got.rc, CS_OK);
    t_rows w = {0};
    for (int i = 0; i < n; i++)
        t_rows_add(&w, want[i]);
    assert_true(t_rows_equal(&w, &got));
    t_rows_free(&w);
    t_rows_free(&got);
    cs_sql_op_free(op);
}

static void test_explode_posexplode_outer_golden(void **state)
{
    cs_error err = {0};
    /* generators.sql query 5: LATERAL VIEW explode(xs) */
    const char *ex[] = {"1|10", "1|20", "4|30", "4|NULL"};
    for (int64_t br = 0; br <= 3; br += 3)
        check(cs_sql_op_generate(arr_op(), CS_GEN_EXPLODE, 1, NULL, 0, 0, false, &err), br,
              (int[]){0, 2}, 2, ex, 4);
    /* query 6 / 9: OUTER explode, explode_outer */
    const char *outer[] = {"1|10", "1|20", "2|NULL", "3|NULL", "4|30", "4|NULL"};
    for (int64_t br = 0; br <= 2; br += 1)
        check(cs_sql_op_generate(arr_op(), CS_GEN_EXPLODE, 1, NULL, 0, 0, true, &err), br,
              (int[]){0, 2}, 2, outer, 6);
    /* query 7: posexplode */
    const char *pos[] = {"1|0|10", "1|1|20", "4|0|30", "4|1|NULL"};
    cs_sql_op *op = cs_sql_op_generate(arr_op(), CS_GEN_POSEXPLODE, 1, NULL, 0, 0, false, &err);
    assert_string_equal(op->schema->fields[2].name, "pos");
    assert_string_equal(op->schema->fields[3].name, "col");
    assert_false(op->schema->fields[2].nullable);
    check(op, 0, (int[]){0, 2, 3}, 3, pos, 4);
    const char *pos_outer[] = {"1|0|10",      "1|1|20", "2|NULL|NULL",
                               "3|NULL|NULL", "4|0|30", "4|1|NULL"};
    check(cs_sql_op_generate(arr_op(), CS_GEN_POSEXPLODE, 1, NULL, 0, 0, true, &err), 1,
          (int[]){0, 2, 3}, 3, pos_outer, 6);
}

static void test_explode_map(void **state)
{
    /* generators.sql query 3: explode(map('a', 1, 'b', 2)), and a null and an empty map */
    cs_col_type *mt = cs_col_type_map(cs_col_type_primitive(CS_TYPE_STRING),
                                      cs_col_type_primitive(CS_TYPE_INT), true);
    cs_col_type *schema = t_schema(1, (const char *[]){"m"}, (cs_col_type *[]){mt});
    cs_col_builder *b = cs_col_builder_new(NULL, mt);
    cs_col_builder_append_lists(b, (int32_t[]){2, 0, 0}, 3, (uint8_t[]){1, 0, 1});
    cs_col_builder_append_string(cs_col_builder_child(b, 0), "a", 1);
    cs_col_builder_append_string(cs_col_builder_child(b, 0), "b", 1);
    cs_col_builder_append_values(cs_col_builder_child(b, 1), (int32_t[]){1, 2}, 2, NULL);
    cs_column *m = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_col_batch *batch = t_batch(schema, (cs_column *[]){m}, 3);
    cs_sql_op *leaf = t_leaf(schema, &batch, 1);
    cs_col_type_unref(schema);
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_generate(leaf, CS_GEN_EXPLODE, 0, NULL, 0, 0, false, &err);
    assert_string_equal(op->schema->fields[1].name, "key");
    assert_string_equal(op->schema->fields[2].name, "value");
    const char *want[] = {"'a'|1", "'b'|2"};
    check(op, 0, (int[]){1, 2}, 2, want, 2);
}

static void test_inline_with_null_struct(void **state)
{
    /* inline(array(struct(1, 'a'), NULL, struct(2, NULL))), then an empty array (outer) */
    cs_col_field f[2] = {{"col1", cs_col_type_primitive(CS_TYPE_INT), true},
                         {"col2", cs_col_type_primitive(CS_TYPE_STRING), true}};
    cs_col_type *st = cs_col_type_struct(f, 2);
    cs_col_type *at = cs_col_type_array(st, true);
    cs_col_type *schema = t_schema(1, (const char *[]){"a"}, (cs_col_type *[]){at});
    cs_col_builder *b = cs_col_builder_new(NULL, at);
    cs_col_builder_append_lists(b, (int32_t[]){3, 0}, 2, NULL);
    cs_col_builder *sb = cs_col_builder_child(b, 0);
    cs_col_builder_append_structs(sb, 3, (uint8_t[]){1, 0, 1});
    cs_col_builder_append_values(cs_col_builder_child(sb, 0), (int32_t[]){1, 0, 2}, 3,
                                 (uint8_t[]){1, 0, 1});
    cs_col_builder_append_string(cs_col_builder_child(sb, 1), "a", 1);
    cs_col_builder_append_nulls(cs_col_builder_child(sb, 1), 2);
    cs_column *a = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_col_batch *batch = t_batch(schema, (cs_column *[]){a}, 2);
    cs_sql_op *leaf = t_leaf(schema, &batch, 1);
    cs_col_type_unref(schema);
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_generate(leaf, CS_GEN_INLINE, 0, NULL, 0, 0, true, &err);
    assert_string_equal(op->schema->fields[1].name, "col1");
    assert_string_equal(op->schema->fields[2].name, "col2");
    const char *want[] = {"1|'a'", "NULL|NULL", "2|NULL", "NULL|NULL"};
    check(op, 0, (int[]){1, 2}, 2, want, 4);
}

static void test_stack(void **state)
{
    /* generators.sql query 13: stack(2, 1, 'one', 2, 'two'); and stack(2, x, y, z) with the last
     * row's second value missing */
    cs_col_type *it = cs_col_type_primitive(CS_TYPE_INT),
                *s = cs_col_type_primitive(CS_TYPE_STRING);
    cs_col_type *schema =
        t_schema(4, (const char *[]){"a", "b", "c", "d"}, (cs_col_type *[]){it, s, it, s});
    int32_t one[] = {1}, two[] = {2};
    cs_col_batch *batch =
        t_batch(schema,
                (cs_column *[]){t_fixed(it, one, 1, NULL), t_strings((const char *[]){"one"}, 1),
                                t_fixed(it, two, 1, NULL), t_strings((const char *[]){"two"}, 1)},
                1);
    cs_sql_op *leaf = t_leaf(schema, &batch, 1);
    cs_error err = {0};
    cs_sql_op *op =
        cs_sql_op_generate(leaf, CS_GEN_STACK, -1, (int[]){0, 1, 2, 3}, 4, 2, false, &err);
    assert_string_equal(op->schema->fields[4].name, "col0");
    assert_string_equal(op->schema->fields[5].name, "col1");
    const char *want[] = {"1|'one'", "2|'two'"};
    check(op, 0, (int[]){4, 5}, 2, want, 2);

    batch = t_batch(schema,
                    (cs_column *[]){t_fixed(it, one, 1, NULL), t_strings((const char *[]){"x"}, 1),
                                    t_fixed(it, two, 1, NULL), t_strings((const char *[]){"y"}, 1)},
                    1);
    leaf = t_leaf(schema, &batch, 1);
    op = cs_sql_op_generate(leaf, CS_GEN_STACK, -1, (int[]){0, 1, 2}, 3, 2, false, &err);
    const char *want2[] = {"1|'x'", "2|NULL"};
    check(op, 0, (int[]){4, 5}, 2, want2, 2);

    /* stack's values of one column must share its type */
    leaf = t_leaf(schema, NULL, 0);
    op = cs_sql_op_generate(leaf, CS_GEN_STACK, -1, (int[]){0, 1, 1}, 3, 2, false, &err);
    assert_null(op);
    assert_non_null(strstr(err.msg, "stack argument 2"));
    cs_col_type_unref(schema);
}

/* keep: only the listed input columns before the generated one, in that order (none: the
 * generated column alone), the exploded array itself left out */
static void test_kept_columns(void **state)
{
    cs_error err = {0};
    cs_sql_op *op =
        cs_sql_op_generate_kept(arr_op(), CS_GEN_EXPLODE, 1, NULL, 0, 0, true, (int[]){0}, 0, &err);
    assert_int_equal(op->schema->n_fields, 1);
    assert_string_equal(op->schema->fields[0].name, "col");
    const char *only[] = {"10", "20", "NULL", "NULL", "30", "NULL"};
    check(op, 2, (int[]){0}, 1, only, 6);
    op = cs_sql_op_generate_kept(arr_op(), CS_GEN_POSEXPLODE, 1, NULL, 0, 0, false, (int[]){0}, 1,
                                 &err);
    assert_int_equal(op->schema->n_fields, 3);
    assert_string_equal(op->schema->fields[0].name, "id");
    const char *pos[] = {"1|0|10", "1|1|20", "4|0|30", "4|1|NULL"};
    check(op, 0, (int[]){0, 1, 2}, 3, pos, 4);
    assert_null(cs_sql_op_generate_kept(arr_op(), CS_GEN_EXPLODE, 1, NULL, 0, 0, false, (int[]){2},
                                        1, &err));
    assert_non_null(strstr(err.msg, "kept column 0's ordinal 2"));
}

static void test_bad_arguments(void **state)
{
    cs_error err = {0};
    assert_null(cs_sql_op_generate(arr_op(), CS_GEN_EXPLODE, 0, NULL, 0, 0, false, &err));
    assert_non_null(strstr(err.msg, "explode takes an array or a map, not column id"));
    assert_null(cs_sql_op_generate(arr_op(), CS_GEN_INLINE, 1, NULL, 0, 0, false, &err));
    assert_non_null(strstr(err.msg, "inline takes an array of structs"));
    assert_null(cs_sql_op_generate(arr_op(), CS_GEN_EXPLODE, 7, NULL, 0, 0, false, &err));
    assert_non_null(strstr(err.msg, "ordinal 7"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explode_posexplode_outer_golden),
        cmocka_unit_test(test_explode_map),
        cmocka_unit_test(test_inline_with_null_struct),
        cmocka_unit_test(test_stack),
        cmocka_unit_test(test_kept_columns),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
