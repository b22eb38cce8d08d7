/*
 * test_pexpr_lambda.c — the higher-order functions of src/sqlexec/kernels_lambda.c over a batch
 * of four arrays ([1, 2, 3], NULL, [], [4, NULL]) and an outer int column (10, 20, 30, 40) the
 * lambdas read: transform with the element and with its index, filter (null predicates drop),
 * exists / forall with Spark's three-valued answers, aggregate with a finish, zip_with padding
 * the shorter array with nulls, array_sort with a comparator and its COMPARATOR_RETURNS_NULL
 * error, and a lambda nested in another's body. Lambdas are built as the planner binds them:
 * lambdafunction(body, variables...), the variables numbered after the input's columns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "px_test.h"

static cs_col_type *arr_t(void)
{
    return cs_col_type_array(T(CS_TYPE_INT), true);
}

/* c0: array<int> rows [1, 2, 3], NULL, [], [4, NULL]; c1: int 10, 20, 30, 40 */
static cs_col_batch *input(void)
{
    cs_col_type *t = arr_t();
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    int32_t lens[4] = {3, 0, 0, 2};
    uint8_t valid[4] = {1, 0, 1, 1};
    cs_col_builder_append_lists(b, lens, 4, valid);
    int32_t el[5] = {1, 2, 3, 4, 0};
    uint8_t el_valid[5] = {1, 1, 1, 1, 0};
    cs_col_builder_append_values(cs_col_builder_child(b, 0), el, 5, el_valid);
    cs_column *cols[2] = {cs_col_builder_finish(b), NULL};
    cs_col_builder_free(b);
    cs_col_type_unref(t);
    int32_t outer[4] = {10, 20, 30, 40};
    cols[1] = col_fixed(T(CS_TYPE_INT), outer, NULL, 4);
    return batch_of(cols, 2);
}

static cs_pexpr *var(int ordinal)
{
    return cs_pexpr_column(ordinal, T(CS_TYPE_INT), true);
}

static cs_pexpr *lambda1(cs_pexpr *body, int v0)
{
    return cs_pexpr_call("lambdafunction", cs_col_type_ref(body->type), true,
                         (cs_pexpr *[]){body, var(v0)}, 2);
}

static cs_pexpr *lambda2(cs_pexpr *body, int v0, int v1)
{
    return cs_pexpr_call("lambdafunction", cs_col_type_ref(body->type), true,
                         (cs_pexpr *[]){body, var(v0), var(v1)}, 3);
}

static cs_pexpr *array_col(void)
{
    return cs_pexpr_column(0, arr_t(), true);
}

/* "[1, 2, null]" or "NULL" per row, joined with " | " */
static void text(const cs_column *c, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int64_t r = 0; r < c->length; r++) {
        n += (size_t)snprintf(buf + n, cap - n, "%s", r ? " | " : "");
        if (!VALID(c, r)) {
            n += (size_t)snprintf(buf + n, cap - n, "NULL");
            continue;
        }
        if (c->type->id == CS_TYPE_BOOLEAN) {
            n += (size_t)snprintf(buf + n, cap - n, "%s", BOOLV(c, r) ? "true" : "false");
            continue;
        }
        if (c->type->id == CS_TYPE_INT) {
            n += (size_t)snprintf(buf + n, cap - n, "%d", I32(c, r));
            continue;
        }
        const int32_t *off = cs_column_offsets(c);
        const cs_column *el = c->children[0];
        n += (size_t)snprintf(buf + n, cap - n, "[");
        for (int32_t e = off[r]; e < off[r + 1]; e++) {
            const char *sep = e > off[r] ? ", " : "";
            if (!VALID(el, e))
                n += (size_t)snprintf(buf + n, cap - n, "%snull", sep);
            else
                n += (size_t)snprintf(buf + n, cap - n, "%s%d", sep, I32(el, e));
        }
        n += (size_t)snprintf(buf + n, cap - n, "]");
    }
}

static void check(cs_pexpr *e, const char *want)
{
    cs_col_batch *b = input();
    cs_column *out = NULL;
    cs_error err;
    int rc = eval(e, b, &out, &err);
    if (rc) fprintf(stderr, "error: %s\n", err.msg);
    assert_int_equal(rc, CS_OK);
    char got[256];
    text(out, got, sizeof got);
    assert_string_equal(got, want);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_transform_reads_element_outer_column_and_index(void **state)
{
    (void)state;
    /* transform(c0, x -> x + c1) */
    cs_pexpr *body = call2("+", T(CS_TYPE_INT), var(2), var(1));
    check(
        cs_pexpr_call("transform", arr_t(), true, (cs_pexpr *[]){array_col(), lambda1(body, 2)}, 2),
        "[11, 12, 13] | NULL | [] | [44, null]");
    /* transform(c0, (x, i) -> i) */
    check(cs_pexpr_call("transform", arr_t(), true,
                        (cs_pexpr *[]){array_col(), lambda2(var(3), 2, 3)}, 2),
          "[0, 1, 2] | NULL | [] | [0, 1]");
    /* transform(c0, x -> 7): a literal body */
    check(cs_pexpr_call("transform", arr_t(), true,
                        (cs_pexpr *[]){array_col(), lambda1(lit_i32(7), 2)}, 2),
          "[7, 7, 7] | NULL | [] | [7, 7]");
}

static void test_filter_drops_false_and_null(void **state)
{
    (void)state;
    cs_pexpr *body = call2(">", T(CS_TYPE_BOOLEAN), var(2), lit_i32(1));
    check(cs_pexpr_call("filter", arr_t(), true, (cs_pexpr *[]){array_col(), lambda1(body, 2)}, 2),
          "[2, 3] | NULL | [] | [4]");
}

static void test_exists_forall_three_valued(void **state)
{
    (void)state;
    cs_pexpr *gt3 = call2(">", T(CS_TYPE_BOOLEAN), var(2), lit_i32(3));
    check(cs_pexpr_call("exists", T(CS_TYPE_BOOLEAN), true,
                        (cs_pexpr *[]){array_col(), lambda1(gt3, 2)}, 2),
          "false | NULL | false | true");
    cs_pexpr *gt5 = call2(">", T(CS_TYPE_BOOLEAN), var(2), lit_i32(5));
    check(cs_pexpr_call("exists", T(CS_TYPE_BOOLEAN), true,
                        (cs_pexpr *[]){array_col(), lambda1(gt5, 2)}, 2),
          "false | NULL | false | NULL");
    cs_pexpr *gt0 = call2(">", T(CS_TYPE_BOOLEAN), var(2), lit_i32(0));
    check(cs_pexpr_call("forall", T(CS_TYPE_BOOLEAN), true,
                        (cs_pexpr *[]){array_col(), lambda1(gt0, 2)}, 2),
          "true | NULL | true | NULL");
    cs_pexpr *gt1 = call2(">", T(CS_TYPE_BOOLEAN), var(2), lit_i32(1));
    check(cs_pexpr_call("forall", T(CS_TYPE_BOOLEAN), true,
                        (cs_pexpr *[]){array_col(), lambda1(gt1, 2)}, 2),
          "false | NULL | true | NULL");
}

static void test_aggregate_folds_then_finishes(void **state)
{
    (void)state;
    /* aggregate(c0, c1, (acc, x) -> acc + x, acc -> acc * 2) */
    cs_pexpr *merge = call2("+", T(CS_TYPE_INT), var(2), var(3));
    cs_pexpr *finish = call2("*", T(CS_TYPE_INT), var(2), lit_i32(2));
    check(cs_pexpr_call("aggregate", T(CS_TYPE_INT), true,
                        (cs_pexpr *[]){array_col(), cs_pexpr_column(1, T(CS_TYPE_INT), true),
                                       lambda2(merge, 2, 3), lambda1(finish, 2)},
                        4),
          "32 | NULL | 60 | NULL");
}

static void test_zip_with_pads_the_shorter_array(void **state)
{
    (void)state;
    /* zip_with(c0, filter(c0, x -> x > 1), (a, b) -> coalesce(b, -a)) */
    cs_pexpr *gt1 = call2(">", T(CS_TYPE_BOOLEAN), var(2), lit_i32(1));
    cs_pexpr *filtered =
        cs_pexpr_call("filter", arr_t(), true, (cs_pexpr *[]){array_col(), lambda1(gt1, 2)}, 2);
    cs_pexpr *body =
        call2("coalesce", T(CS_TYPE_INT), var(3), call1("negative", T(CS_TYPE_INT), var(2)));
    check(cs_pexpr_call("zip_with", arr_t(), true,
                        (cs_pexpr *[]){array_col(), filtered, lambda2(body, 2, 3)}, 3),
          "[2, 3, -3] | NULL | [] | [4, null]");
}

static void test_array_sort_with_comparator(void **state)
{
    (void)state;
    /* array_sort(filter(c0, x -> x is not null), (l, r) -> r - l): descending */
    cs_pexpr *nn = call1("isnotnull", T(CS_TYPE_BOOLEAN), var(2));
    cs_pexpr *filtered =
        cs_pexpr_call("filter", arr_t(), true, (cs_pexpr *[]){array_col(), lambda1(nn, 2)}, 2);
    cs_pexpr *desc = call2("-", T(CS_TYPE_INT), var(3), var(2));
    check(cs_pexpr_call("array_sort", arr_t(), true, (cs_pexpr *[]){filtered, lambda2(desc, 2, 3)},
                        2),
          "[3, 2, 1] | NULL | [] | [4]");
    /* over [4, NULL] the comparator answers NULL: Spark's error */
    cs_pexpr *desc2 = call2("-", T(CS_TYPE_INT), var(3), var(2));
    cs_col_batch *b = input();
    cs_column *out = NULL;
    cs_error err;
    int rc = eval(cs_pexpr_call("array_sort", arr_t(), true,
                                (cs_pexpr *[]){array_col(), lambda2(desc2, 2, 3)}, 2),
                  b, &out, &err);
    assert_int_not_equal(rc, CS_OK);
    assert_non_null(strstr(err.msg, "COMPARATOR_RETURNS_NULL"));
    cs_col_batch_unref(b);
}

static void test_nested_lambda_reads_outer_variable(void **state)
{
    (void)state;
    /* transform(c0, x -> aggregate(c0, 0, (acc, y) -> acc + x, acc -> acc)): x * size(c0)
     * (inner variables after the outer's: x 2, acc 3, y 4; the finish's acc 3) */
    cs_pexpr *merge = call2("+", T(CS_TYPE_INT), var(3), var(2));
    cs_pexpr *agg = cs_pexpr_call(
        "aggregate", T(CS_TYPE_INT), true,
        (cs_pexpr *[]){array_col(), lit_i32(0), lambda2(merge, 3, 4), lambda1(var(3), 3)}, 4);
    check(
        cs_pexpr_call("transform", arr_t(), true, (cs_pexpr *[]){array_col(), lambda1(agg, 2)}, 2),
        "[3, 6, 9] | NULL | [] | [8, null]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transform_reads_element_outer_column_and_index),
        cmocka_unit_test(test_filter_drops_false_and_null),
        cmocka_unit_test(test_exists_forall_three_valued),
        cmocka_unit_test(test_aggregate_folds_then_finishes),
        cmocka_unit_test(test_zip_with_pads_the_shorter_array),
        cmocka_unit_test(test_array_sort_with_comparator),
        cmocka_unit_test(test_nested_lambda_reads_outer_variable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
