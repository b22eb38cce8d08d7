/*
 * test_analyzer_errors.c — every analysis error class the analyzer raises, one case each, with
 * Spark 4's exact message (taken from Spark 4.0.1 running the same query on the same views,
 * see analyzer_fixture.h; Spark's "; line 1 pos 7" suffix and plan dump are not part of the
 * message kept here).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analyzer_fixture.h"

static void test_unresolved_column_with_suggestion(void **state)
{
    (void)state;
    assert_string_equal(
        error_of(project(rel(1, "t"), 1, col("zz")), "UNRESOLVED_COLUMN.WITH_SUGGESTION"),
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function "
        "parameter with name `zz` cannot be resolved. Did you mean one of the "
        "following? [`a`, `b`, `d`, `e`, `f`]. SQLSTATE: 42703");
    assert_string_equal(error_of(project(rel(1, "t"), 2, col("unknowncol"), col("a")),
                                 "UNRESOLVED_COLUMN.WITH_SUGGESTION"),
                        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function "
                        "parameter with name `unknowncol` cannot be resolved. Did you mean one of "
                        "the following? [`a`, `b`, `d`, `dt`, `e`]. SQLSTATE: 42703");
    /* ORDER BY a column the select list dropped and the input lacks: suggestions of the list */
    assert_string_equal(
        error_of(sort(project(rel(1, "t"), 2, col("a"), col("b")), 1, sort_by(col("c"), false)),
                 "UNRESOLVED_COLUMN.WITH_SUGGESTION"),
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function "
        "parameter with name `c` cannot be resolved. Did you mean one of the "
        "following? [`a`, `b`]. SQLSTATE: 42703");
}

static void test_unresolved_column_without_suggestion(void **state)
{
    (void)state;
    assert_string_equal(
        error_of(project(one_row(), 1, col("x")), "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION"),
        "[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function "
        "parameter with name `x` cannot be resolved.  SQLSTATE: 42703");
}

static void test_table_or_view_not_found(void **state)
{
    (void)state;
    assert_string_equal(error_of(project(rel(1, "nosuch"), 1, col("a")), "TABLE_OR_VIEW_NOT_FOUND"),
                        "[TABLE_OR_VIEW_NOT_FOUND] The table or view `nosuch` cannot be found. "
                        "Verify the spelling and correctness of the schema and catalog.\nIf you "
                        "did not qualify the name with a schema, verify the current_schema() "
                        "output, or qualify the name with the correct schema and catalog.\nTo "
                        "tolerate the error on drop use DROP VIEW IF EXISTS or DROP TABLE IF "
                        "EXISTS. SQLSTATE: 42P01");
}

static void test_unresolved_routine(void **state)
{
    (void)state;
    assert_string_equal(
        error_of(project(rel(1, "t"), 1, fn("nosuchfn", 1, col("a"))), "UNRESOLVED_ROUTINE"),
        "[UNRESOLVED_ROUTINE] Cannot resolve routine `nosuchfn` on search path "
        "[`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]. "
        "SQLSTATE: 42883");
}

static void test_ambiguous_reference(void **state)
{
    (void)state;
    assert_string_equal(
        error_of(
            project(join(rel(1, "t"), rel(1, "u"), CS_JOIN_INNER, lit_bool(true)), 1, col("a")),
            "AMBIGUOUS_REFERENCE"),
        "[AMBIGUOUS_REFERENCE] Reference `a` is ambiguous, could be: [`t`.`a`, "
        "`u`.`a`]. SQLSTATE: 42704");
}

static void test_missing_aggregation_and_group_by(void **state)
{
    (void)state;
    assert_string_equal(
        error_of(aggregate(rel(1, "t"), 1, col("a"), 2, col("a"), col("b")), "MISSING_AGGREGATION"),
        "[MISSING_AGGREGATION] The non-aggregating expression \"b\" is based on "
        "columns which are not participating in the GROUP BY clause.\nAdd the "
        "columns or the expression to the GROUP BY, aggregate the expression, or "
        "use \"any_value(b)\" if you do not care which of the values within a "
        "group is returned. SQLSTATE: 42803");
    assert_string_equal(
        error_of(project(rel(1, "t"), 2, col("a"), fn("count", 1, star())), "MISSING_GROUP_BY"),
        "[MISSING_GROUP_BY] The query does not include a GROUP BY clause. Add "
        "GROUP BY or turn it into the window functions using OVER clauses. "
        "SQLSTATE: 42803");
}

static void test_datatype_mismatch(void **state)
{
    (void)state;
    assert_string_equal(error_of(project(rel(1, "t"), 1, bin("+", col("a"), col("ts"))),
                                 "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES"),
                        "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve \"(a + ts)\" due "
                        "to data type mismatch: the left and right operands of the binary "
                        "operator have incompatible types (\"INT\" and \"TIMESTAMP\"). SQLSTATE: "
                        "42K09");
    assert_string_equal(error_of(project(rel(1, "t"), 1, fn("year", 1, col("f"))),
                                 "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
                        "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"year(f)\" due "
                        "to data type mismatch: The first parameter requires the \"DATE\" type, "
                        "however \"f\" has the type \"DOUBLE\". SQLSTATE: 42K09");
}

static void test_wrong_num_args(void **state)
{
    (void)state;
    assert_string_equal(error_of(project(rel(1, "t"), 1, fn("abs", 2, col("a"), col("b"))),
                                 "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
                        "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `abs` requires 1 parameters but "
                        "the actual number is 2. Please, refer to "
                        "'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix. "
                        "SQLSTATE: 42605");
    assert_string_equal(error_of(project(rel(1, "t"), 1, fn("substring", 1, col("s"))),
                                 "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
                        "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `substring` requires [2, 3] "
                        "parameters but the actual number is 1. Please, refer to "
                        "'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix. "
                        "SQLSTATE: 42605");
}

static void test_positions_out_of_range(void **state)
{
    (void)state;
    assert_string_equal(
        error_of(aggregate(rel(1, "t"), 1, ordinal(3), 1, col("a")), "GROUP_BY_POS_OUT_OF_RANGE"),
        "[GROUP_BY_POS_OUT_OF_RANGE] GROUP BY position 3 is not in select list "
        "(valid range is [1, 1]). SQLSTATE: 42805");
    assert_string_equal(
        error_of(sort(project(rel(1, "t"), 1, col("a")), 1, sort_by(ordinal(3), false)),
                 "ORDER_BY_POS_OUT_OF_RANGE"),
        "[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position 3 is not in select list "
        "(valid range is [1, 1]). SQLSTATE: 42805");
}

static void test_set_operation_errors(void **state)
{
    (void)state;
    assert_string_equal(error_of(set_op(CS_SET_UNION, false, project(rel(1, "t"), 1, col("a")),
                                        project(rel(1, "t"), 2, col("a"), col("b"))),
                                 "NUM_COLUMNS_MISMATCH"),
                        "[NUM_COLUMNS_MISMATCH] UNION can only be performed on inputs with the "
                        "same number of columns, but the first input has 1 columns and the second "
                        "input has 2 columns. SQLSTATE: 42826");
    assert_string_equal(error_of(set_op(CS_SET_UNION, false, project(rel(1, "t"), 1, col("dt")),
                                        project(rel(1, "t"), 1, col("a"))),
                                 "INCOMPATIBLE_COLUMN_TYPE"),
                        "[INCOMPATIBLE_COLUMN_TYPE] UNION can only be performed on tables with "
                        "compatible column types. The first column of the second table is \"INT\" "
                        "type which is not compatible with \"DATE\" at the same column of the "
                        "first table.. SQLSTATE: 42825");
}

static void test_catalog_errors(void **state)
{
    (void)state;
    cs_sql_arena *va = cs_sql_arena_new();
    cs_error_clear(&ERR);
    assert_int_not_equal(
        cs_catalog_create_temp_view(CAT, "T", false, false, NULL, 0, one_row(), va, &ERR), 0);
    assert_true(cs_sql_error_is(&ERR, "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS"));
    assert_string_equal(ERR.msg, "[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary "
                                 "view `T` because it already exists.\nChoose a different name, "
                                 "drop or replace the existing view, or add the IF NOT EXISTS "
                                 "clause to tolerate pre-existing views. SQLSTATE: 42P07");
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_UNRESOLVED_RELATION, 0);
    p->format = "parquet";
    p->path = "/nonexistent/path";
    assert_string_equal(error_of(project(p, 1, star()), "PATH_NOT_FOUND"),
                        "[PATH_NOT_FOUND] Path does not exist: file:/nonexistent/path. SQLSTATE: "
                        "42K03");
    const char *name[1] = {"x"};
    cs_error_clear(&ERR);
    assert_int_not_equal(cs_catalog_create_table(CAT, name, 1, "parquet", "/nonexistent/path", NULL,
                                                 NULL, 0, NULL, false, &ERR),
                         0);
    assert_true(cs_sql_error_is(&ERR, "PATH_NOT_FOUND"));
    assert_null(cs_catalog_lookup_relation(CAT, name, 1)); /* nothing half-created */
}

static void test_group_by_aggregate(void **state)
{
    (void)state;
    assert_string_equal(error_of(aggregate(rel(1, "t"), 1, fn("sum", 1, col("a")), 1, col("a")),
                                 "GROUP_BY_AGGREGATE"),
                        "[GROUP_BY_AGGREGATE] Aggregate functions are not allowed in GROUP BY, "
                        "but found sum(t.a). SQLSTATE: 42903");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unresolved_column_with_suggestion, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_unresolved_column_without_suggestion, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_table_or_view_not_found, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_unresolved_routine, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_ambiguous_reference, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_missing_aggregation_and_group_by, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_datatype_mismatch, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_wrong_num_args, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_positions_out_of_range, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_set_operation_errors, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_catalog_errors, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_group_by_aggregate, fixture_setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
