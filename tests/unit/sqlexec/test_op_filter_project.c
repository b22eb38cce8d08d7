/*
 * test_op_filter_project.c — the Filter and Project operators (src/sqlexec/op_filter.c,
 * op_project.c) and the gathers under them (cs_column_take, cs_col_batch_take,
 * cs_pexpr_true_rows): Filter keeps the rows where the condition is true (null dropped) and
 * compacts strings and nulls; a batch with no row left is skipped; Project shares a plain
 * column reference's column and evaluates the others; a runtime error stops the query with
 * Spark's class; a subexpression several expressions share is evaluated once per batch, never
 * one inside a CASE branch; EXPLAIN prints the condition; a Filter told the columns its parent
 * reads does not compact a string column it does not read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "px_test.h"
#include "sqlexec/op_filter.h"

static cs_col_batch *sample(int32_t base)
{
    int32_t x[] = {base + 1, base + 2, base + 3, base + 4};
    uint8_t vx[] = {1, 1, 0, 1};
    cs_column *cx = col_fixed(T(CS_TYPE_INT), x, vx, 4);
    cs_column *cs = col_str((const char *[]){"a", NULL, "ccc", "dd"}, 4);
    return batch_of((cs_column *[]){cx, cs}, 2);
}

static void test_filter_compacts_and_project_shares(void **state)
{
    (void)state;
    cs_col_batch *in[2] = {sample(0), sample(100)};
    cs_col_type *schema = cs_col_type_ref(in[0]->schema);
    cs_sql_op *src = cs_sql_op_batches(cs_col_type_ref(schema), in, 2);
    cs_col_batch_unref(in[0]); /* the leaf holds its own references */
    cs_col_batch_unref(in[1]);
    /* WHERE c0 % 2 = 0 AND c0 < 100: rows 2 and 4 of the first batch, none of the second */
    cs_pexpr *cond = call2(
        "and", T(CS_TYPE_BOOLEAN),
        call2("=", T(CS_TYPE_BOOLEAN),
              call2("%", T(CS_TYPE_INT), cs_pexpr_column(0, T(CS_TYPE_INT), true), lit_i32(2)),
              lit_i32(0)),
        call2("<", T(CS_TYPE_BOOLEAN), cs_pexpr_column(0, T(CS_TYPE_INT), true), lit_i32(100)));
    cs_sql_op *filter = cs_sql_op_filter(src, cond);
    cs_col_field f[2] = {{"s", T(CS_TYPE_STRING), true}, {"y", T(CS_TYPE_INT), true}};
    cs_pexpr *exprs[2] = {
        cs_pexpr_column(1, T(CS_TYPE_STRING), true),
        call2("*", T(CS_TYPE_INT), cs_pexpr_column(0, T(CS_TYPE_INT), true), lit_i32(10))};
    cs_sql_op *project = cs_sql_op_project(filter, exprs, 2, cs_col_type_struct(f, 2));
    cs_sql_exec_ctx ctx = test_ctx(true);
    cs_error err = {0};
    assert_int_equal(cs_sql_op_open(project, &ctx, &err), CS_OK);
    cs_col_batch *out;
    assert_int_equal(cs_sql_op_next(project, &out, &err), CS_OK);
    assert_non_null(out);
    assert_int_equal(out->num_rows, 2);
    int32_t len;
    assert_false(VALID(out->columns[0], 0)); /* row 2's string was null */
    const uint8_t *p = cs_column_bytes(out->columns[0], 1, &len);
    assert_int_equal(len, 2);
    assert_memory_equal(p, "dd", 2);
    assert_int_equal(I32(out->columns[1], 0), 20);
    assert_int_equal(I32(out->columns[1], 1), 40);
    cs_col_batch_unref(out);
    /* the second batch has no row left: skipped, then the end */
    assert_int_equal(cs_sql_op_next(project, &out, &err), CS_OK);
    assert_null(out);
    assert_int_equal(project->metrics.rows_out, 2);
    cs_sbuf sb = CS_SBUF_INIT;
    cs_sql_op_explain(project, &sb);
    assert_non_null(strstr(cs_sbuf_str(&sb), "Filter"));
    assert_non_null(strstr(cs_sbuf_str(&sb), "((input[0, int, true] % 2) = 0)"));
    cs_sbuf_free(&sb);
    cs_sql_op_close(project);
    cs_sql_op_free(project);
    cs_col_type_unref(schema);
}

/* A Filter told its parent reads only c0 passes c1 (a string column) on as nulls of its type,
 * not compacted; c0 compacted as ever. Told nothing (or reading both), it compacts both. */
static void test_filter_compacts_only_the_columns_read(void **state)
{
    (void)state;
    for (int told = 0; told < 3; told++) {
        cs_col_batch *in = sample(0);
        cs_sql_op *src = cs_sql_op_batches(cs_col_type_ref(in->schema), &in, 1);
        cs_col_batch_unref(in);
        /* WHERE c0 % 2 = 0: rows 2 and 4 */
        cs_pexpr *cond =
            call2("=", T(CS_TYPE_BOOLEAN),
                  call2("%", T(CS_TYPE_INT), cs_pexpr_column(0, T(CS_TYPE_INT), true), lit_i32(2)),
                  lit_i32(0));
        cs_sql_op *filter = cs_sql_op_filter(src, cond);
        bool read[2] = {true, told == 2};
        if (told) cs_sql_op_filter_reads(filter, read, 2);
        cs_sql_op_filter_reads(src, read, 2); /* not a Filter: nothing */
        cs_sql_exec_ctx ctx = test_ctx(true);
        cs_error err = {0};
        assert_int_equal(cs_sql_op_open(filter, &ctx, &err), CS_OK);
        cs_col_batch *out;
        assert_int_equal(cs_sql_op_next(filter, &out, &err), CS_OK);
        assert_int_equal(out->num_rows, 2);
        assert_int_equal(I32(out->columns[0], 0), 2);
        assert_int_equal(I32(out->columns[0], 1), 4);
        assert_int_equal(out->columns[1]->type->id, CS_TYPE_STRING);
        assert_int_equal(out->columns[1]->length, 2);
        assert_false(VALID(out->columns[1], 0)); /* row 2's string was null */
        if (told == 1) {
            assert_int_equal(out->columns[1]->null_count, 2);
        } else {
            int32_t len;
            const uint8_t *p = cs_column_bytes(out->columns[1], 1, &len);
            assert_int_equal(len, 2);
            assert_memory_equal(p, "dd", 2);
        }
        cs_col_batch_unref(out);
        cs_sql_op_close(filter);
        cs_sql_op_free(filter);
    }
}

static void test_project_shares_plain_columns_and_raises(void **state)
{
    (void)state;
    cs_col_batch *in[1] = {sample(0)};
    cs_column *orig = cs_column_ref(in[0]->columns[1]);
    cs_sql_op *src = cs_sql_op_batches(cs_col_type_ref(in[0]->schema), in, 1);
    cs_col_batch_unref(in[0]);
    cs_col_field f[1] = {{"s", T(CS_TYPE_STRING), true}};
    cs_sql_op *project =
        cs_sql_op_project(src, (cs_pexpr *[]){cs_pexpr_column(1, T(CS_TYPE_STRING), true)}, 1,
                          cs_col_type_struct(f, 1));
    cs_sql_exec_ctx ctx = test_ctx(true);
    cs_error err = {0};
    assert_int_equal(cs_sql_op_open(project, &ctx, &err), CS_OK);
    cs_col_batch *out;
    assert_int_equal(cs_sql_op_next(project, &out, &err), CS_OK);
    assert_ptr_equal(out->columns[0], orig); /* shared, not copied */
    cs_col_batch_unref(out);
    cs_sql_op_free(project);
    cs_column_unref(orig);
    /* a division by zero in a projection fails the batch with Spark's class */
    cs_col_batch *in2[1] = {sample(0)};
    src = cs_sql_op_batches(cs_col_type_ref(in2[0]->schema), in2, 1);
    cs_col_batch_unref(in2[0]);
    cs_col_field g[1] = {{"q", T(CS_TYPE_INT), true}};
    project = cs_sql_op_project(
        src,
        (cs_pexpr *[]){
            call2("%", T(CS_TYPE_INT), cs_pexpr_column(0, T(CS_TYPE_INT), true), lit_i32(0))},
        1, cs_col_type_struct(g, 1));
    assert_int_equal(cs_sql_op_open(project, &ctx, &err), CS_OK);
    assert_int_equal(cs_sql_op_next(project, &out, &err), CS_ETASK);
    assert_true(cs_sql_error_is(&err, "DIVIDE_BY_ZERO"));
    cs_sql_op_free(project);
}

static cs_pexpr *x_col(void)
{
    return cs_pexpr_column(0, T(CS_TYPE_INT), true);
}

/* Project evaluates a subexpression its expressions share once per batch (pexpr_cse.c), but
 * never one inside a CASE branch, which runs on the branch's rows only: `x - 2` both eager and
 * under `CASE WHEN x <> 2 THEN 7 % (x - 2) ELSE -1 END` must not divide by zero. */
static void test_project_shares_common_subexpressions_outside_branches(void **state)
{
    (void)state;
    cs_col_batch *in[2] = {sample(0), sample(0)}; /* x = 1, 2, NULL, 4 twice */
    cs_sql_op *src = cs_sql_op_batches(cs_col_type_ref(in[0]->schema), in, 2);
    cs_col_batch_unref(in[0]);
    cs_col_batch_unref(in[1]);
    cs_pexpr *when = call2("<>", T(CS_TYPE_BOOLEAN), x_col(), lit_i32(2));
    cs_pexpr *then =
        call2("%", T(CS_TYPE_INT), lit_i32(7), call2("-", T(CS_TYPE_INT), x_col(), lit_i32(2)));
    cs_pexpr *exprs[4] = {
        call2("*", T(CS_TYPE_INT), call2("+", T(CS_TYPE_INT), x_col(), lit_i32(1)), lit_i32(2)),
        call2("*", T(CS_TYPE_INT), call2("+", T(CS_TYPE_INT), x_col(), lit_i32(1)), lit_i32(3)),
        call2("-", T(CS_TYPE_INT), x_col(), lit_i32(2)),
        cs_pexpr_case(T(CS_TYPE_INT), true, (cs_pexpr *[]){when, then, lit_i32(-1)}, 3, true)};
    /* which programs share: (x + 1) in the first two; nothing between the last two */
    cs_error err = {0};
    cs_pexpr_program *pg[4];
    for (int i = 0; i < 4; i++)
        assert_non_null(pg[i] = cs_pexpr_compile(exprs[i], in[0]->schema, &err));
    cs_pexpr_cse *cse = cs_pexpr_cse_new(pg, 2);
    assert_non_null(cse);
    cs_pexpr_cse_free(cse);
    assert_null(cs_pexpr_cse_new(pg + 2, 2));
    for (int i = 0; i < 4; i++)
        cs_pexpr_program_free(pg[i]);
    cs_col_field f[4] = {{"a", T(CS_TYPE_INT), true},
                         {"b", T(CS_TYPE_INT), true},
                         {"c", T(CS_TYPE_INT), true},
                         {"d", T(CS_TYPE_INT), true}};
    cs_sql_op *project = cs_sql_op_project(src, exprs, 4, cs_col_type_struct(f, 4));
    cs_sql_exec_ctx ctx = test_ctx(true);
    assert_int_equal(cs_sql_op_open(project, &ctx, &err), CS_OK);
    int32_t want[4][4] = {{4, 6, 0, 10}, {6, 9, 0, 15}, {-1, 0, 0, 2}, {0, -1, -1, 1}};
    for (int batch = 0; batch < 2; batch++) {
        cs_col_batch *out;
        assert_int_equal(cs_sql_op_next(project, &out, &err), CS_OK);
        assert_non_null(out);
        assert_int_equal(out->num_rows, 4);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                if (r == 2 && c < 3) {
                    assert_false(VALID(out->columns[c], r)); /* x null */
                    continue;
                }
                assert_true(VALID(out->columns[c], r));
                assert_int_equal(I32(out->columns[c], r), want[c][r]);
            }
        cs_col_batch_unref(out);
    }
    cs_sql_op_close(project);
    cs_sql_op_free(project);
}

static void test_take_keeps_dictionary_and_true_rows(void **state)
{
    (void)state;
    cs_column *dict = col_str((const char *[]){"x", "yy"}, 2);
    cs_col_builder *b = cs_col_builder_new_dictionary(NULL, dict);
    int32_t idx[] = {1, 0, 1};
    cs_col_builder_append_values(b, idx, 3, (const uint8_t[]){1, 0, 1});
    cs_column *enc = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    int32_t pick[] = {2, 0, 1};
    cs_column *t = cs_column_take(enc, pick, 3, NULL);
    assert_non_null(t->dictionary);
    int32_t len;
    const uint8_t *p = cs_column_bytes(t, 0, &len);
    assert_int_equal(len, 2);
    assert_memory_equal(p, "yy", 2);
    assert_false(VALID(t, 2));
    assert_int_equal(t->null_count, 1);
    cs_column_unref(t);
    cs_column_unref(enc);
    cs_column_unref(dict);
    uint8_t pv[] = {1, 0, 1, 1}, pvalid[] = {1, 1, 0, 1};
    cs_column *pred = col_fixed(T(CS_TYPE_BOOLEAN), pv, pvalid, 4);
    int32_t sel[4];
    assert_int_equal(cs_pexpr_true_rows(pred, sel), 2);
    assert_int_equal(sel[0], 0);
    assert_int_equal(sel[1], 3);
    cs_column_unref(pred);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_compacts_and_project_shares),
        cmocka_unit_test(test_filter_compacts_only_the_columns_read),
        cmocka_unit_test(test_project_shares_plain_columns_and_raises),
        cmocka_unit_test(test_project_shares_common_subexpressions_outside_branches),
        cmocka_unit_test(test_take_keeps_dictionary_and_true_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
