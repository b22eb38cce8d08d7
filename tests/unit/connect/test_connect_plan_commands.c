/*
 * test_connect_plan_commands.c — Spark Connect commands translated into the statements the
 * session runs (createOrReplaceTempView, spark.sql commands with arguments, DataFrameWriter
 * saves), and the errors of malformed or unsupported plans with Spark's error classes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "connect_builders.h"

static Spark__Connect__Command *command_new(void)
{
    return NEW(Spark__Connect__Command, spark__connect__command__init);
}

static int translate(Spark__Connect__Command *cmd, cs_sql_statement **out)
{
    cs_connect_plan_ctx ctx = plan_ctx();
    *out = NULL;
    return cs_connect_plan_command(&ctx, cmd, out);
}

static void test_create_view_then_query_it(void **state)
{
    (void)state;
    Spark__Connect__Command *cmd = command_new();
    cmd->command_type_case = SPARK__CONNECT__COMMAND__COMMAND_TYPE_CREATE_DATAFRAME_VIEW;
    cmd->create_dataframe_view = NEW(Spark__Connect__CreateDataFrameViewCommand,
                                     spark__connect__create_data_frame_view_command__init);
    cmd->create_dataframe_view->input =
        project(filter(read_table("t"), fn(">", 2, col("a"), lit_i(1))), 1, col("s"));
    cmd->create_dataframe_view->name = "v";
    cmd->create_dataframe_view->replace = true;
    cs_sql_statement *st;
    assert_int_equal(translate(cmd, &st), 0);
    assert_int_equal(st->kind, CS_STMT_CREATE_VIEW);
    assert_true(st->temporary && st->or_replace && !st->global);
    assert_int_equal(st->n_parts, 1);
    assert_string_equal(st->parts[0], "v");
    /* the session runs it (the view takes the arena), and the view is a relation */
    cs_sql_result res;
    bool kept = false;
    cs_sql_arena *keep = P_ARENA;
    assert_int_equal(cs_sql_session_run_statement(SESSION, P_ARENA, st, "createOrReplaceTempView",
                                                  &res, &kept, &ERR),
                     0);
    cs_sql_result_free(&res);
    if (kept) P_ARENA = cs_sql_arena_new(); /* the catalog owns the old one */
    (void)keep;
    assert_same_plan(project(read_table("v"), 1, star(NULL)), "SELECT * FROM v");

    cmd->create_dataframe_view->name = "a.b.c";
    assert_int_equal(translate(cmd, &st), CS_EINVAL);
    assert_string_equal(ERR.error_class, "INVALID_VIEW_NAME");
}

static void test_sql_command_with_arguments(void **state)
{
    (void)state;
    Spark__Connect__Command *cmd = command_new();
    cmd->command_type_case = SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND;
    cmd->sql_command = NEW(Spark__Connect__SqlCommand, spark__connect__sql_command__init);
    cmd->sql_command->input = sql_rel("SELECT a FROM t WHERE s = ?");
    cmd->sql_command->input->sql->n_pos_arguments = 1;
    cmd->sql_command->input->sql->pos_arguments = exprs(1, lit_s("x"));
    cs_sql_statement *st;
    assert_int_equal(translate(cmd, &st), 0);
    assert_int_equal(st->kind, CS_STMT_QUERY);
    char *got = analyzed_text(st->plan);
    cs_sql_statement *want;
    assert_int_equal(
        cs_sql_parse_statement(P_ARENA, "SELECT a FROM t WHERE s = 'x'", &want, NULL, &ERR), 0);
    assert_string_equal(got, analyzed_text(want->plan));

    cmd->sql_command->input = sql_rel("SHOW TABLES");
    assert_int_equal(translate(cmd, &st), 0);
    assert_int_equal(st->kind, CS_STMT_SHOW);
    cmd->sql_command->input = sql_rel("SELEC 1");
    assert_int_equal(translate(cmd, &st), CS_EINVAL);
    assert_string_equal(ERR.error_class, "PARSE_SYNTAX_ERROR");
}

static Spark__Connect__Command *write_op(Rel *in)
{
    Spark__Connect__Command *cmd = command_new();
    cmd->command_type_case = SPARK__CONNECT__COMMAND__COMMAND_TYPE_WRITE_OPERATION;
    cmd->write_operation =
        NEW(Spark__Connect__WriteOperation, spark__connect__write_operation__init);
    cmd->write_operation->input = in;
    return cmd;
}

static void test_write_operations(void **state)
{
    (void)state;
    /* df.write.mode("overwrite").partitionBy("s").option("compression", "zstd").parquet(p) */
    Spark__Connect__Command *cmd = write_op(read_table("t"));
    Spark__Connect__WriteOperation *w = cmd->write_operation;
    w->_source_case = SPARK__CONNECT__WRITE_OPERATION___SOURCE_SOURCE;
    w->source = "parquet";
    w->save_type_case = SPARK__CONNECT__WRITE_OPERATION__SAVE_TYPE_PATH;
    w->path = "/tmp/out";
    w->mode = SPARK__CONNECT__WRITE_OPERATION__SAVE_MODE__SAVE_MODE_OVERWRITE;
    w->n_partitioning_columns = 1;
    w->partitioning_columns = names(1, "s");
    Spark__Connect__WriteOperation__OptionsEntry *o =
        NEW(Spark__Connect__WriteOperation__OptionsEntry,
            spark__connect__write_operation__options_entry__init);
    o->key = "compression";
    o->value = "zstd";
    w->n_options = 1;
    w->options = pnew(sizeof o);
    w->options[0] = o;
    cs_sql_statement *st;
    assert_int_equal(translate(cmd, &st), 0);
    assert_int_equal(st->kind, CS_STMT_INSERT);
    assert_string_equal(st->mode, "DIRECTORY");
    assert_string_equal(st->location, "/tmp/out");
    assert_string_equal(st->format, "parquet");
    assert_string_equal(st->save_mode, "overwrite");
    assert_true(st->overwrite);
    assert_int_equal(st->n_partition_by, 1);
    assert_string_equal(st->partition_by[0], "s");
    assert_int_equal(st->n_options, 1);
    assert_string_equal(st->option_values[0], "zstd");
    assert_non_null(st->plan);

    /* saveAsTable, mode ignore: CREATE TABLE IF NOT EXISTS t2 USING <default> AS ... */
    cmd = write_op(read_table("t"));
    w = cmd->write_operation;
    w->save_type_case = SPARK__CONNECT__WRITE_OPERATION__SAVE_TYPE_TABLE;
    w->table = NEW(Spark__Connect__WriteOperation__SaveTable,
                   spark__connect__write_operation__save_table__init);
    w->table->table_name = "db.t2";
    w->table->save_method =
        SPARK__CONNECT__WRITE_OPERATION__SAVE_TABLE__TABLE_SAVE_METHOD__TABLE_SAVE_METHOD_SAVE_AS_TABLE;
    w->mode = SPARK__CONNECT__WRITE_OPERATION__SAVE_MODE__SAVE_MODE_IGNORE;
    assert_int_equal(translate(cmd, &st), 0);
    assert_int_equal(st->kind, CS_STMT_CREATE_TABLE);
    assert_int_equal(st->n_parts, 2);
    assert_string_equal(st->parts[1], "t2");
    assert_true(st->if_not_exists);
    assert_string_equal(st->format, "parquet"); /* spark.sql.sources.default */
    assert_string_equal(st->save_mode, "ignore");

    /* insertInto, default mode */
    w->table->save_method =
        SPARK__CONNECT__WRITE_OPERATION__SAVE_TABLE__TABLE_SAVE_METHOD__TABLE_SAVE_METHOD_INSERT_INTO;
    w->mode = SPARK__CONNECT__WRITE_OPERATION__SAVE_MODE__SAVE_MODE_UNSPECIFIED;
    assert_int_equal(translate(cmd, &st), 0);
    assert_int_equal(st->kind, CS_STMT_INSERT);
    assert_false(st->overwrite);
    assert_string_equal(st->save_mode, "errorifexists");

    /* bucketBy: insertInto refuses it (DataFrameWriter.assertNotBucketed), saveAsTable makes a
     * bucketed table; sortBy needs bucketBy */
    static char *bucket_cols[] = {"x", "y"}, *sort_cols[] = {"z"};
    w->bucket_by = NEW(Spark__Connect__WriteOperation__BucketBy,
                       spark__connect__write_operation__bucket_by__init);
    w->bucket_by->num_buckets = 4;
    w->bucket_by->n_bucket_column_names = 2;
    w->bucket_by->bucket_column_names = bucket_cols;
    assert_int_equal(translate(cmd, &st), CS_EINVAL);
    assert_string_equal(ERR.error_class, "_LEGACY_ERROR_TEMP_1312");
    assert_non_null(strstr(ERR.msg, "'insertInto' does not support bucketBy"));
    w->table->save_method =
        SPARK__CONNECT__WRITE_OPERATION__SAVE_TABLE__TABLE_SAVE_METHOD__TABLE_SAVE_METHOD_SAVE_AS_TABLE;
    w->n_sort_column_names = 1;
    w->sort_column_names = sort_cols;
    assert_int_equal(translate(cmd, &st), 0);
    assert_int_equal(st->kind, CS_STMT_CREATE_TABLE);
    assert_true(st->bucketed);
    assert_int_equal(st->num_buckets, 4);
    assert_int_equal(st->n_bucket_by, 2);
    assert_string_equal(st->bucket_by[1], "y");
    assert_int_equal(st->n_sort_by, 1);
    assert_string_equal(st->sort_by[0], "z");
    w->bucket_by = NULL;
    assert_int_equal(translate(cmd, &st), CS_EINVAL);
    assert_string_equal(ERR.error_class, "SORT_BY_WITHOUT_BUCKETING");
    w->n_sort_column_names = 0;
    w->sort_column_names = NULL;
}

static void test_errors_name_the_problem(void **state)
{
    (void)state;
    /* an empty relation, a relation without its input */
    assert_plan_error(rel_new(), "INTERNAL_ERROR");
    assert_non_null(strstr(ERR.msg, "Expected Relation to be set"));
    assert_plan_error(filter(NULL, lit_i(1)), "INTERNAL_ERROR");
    assert_non_null(strstr(ERR.msg, "Filter needs a plan input"));
    /* a bad literal */
    Spark__Connect__Expression__Literal *dec = literal_new();
    dec->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL;
    dec->decimal = NEW(Spark__Connect__Expression__Literal__Decimal,
                       spark__connect__expression__literal__decimal__init);
    dec->decimal->value = "12x";
    assert_plan_error(project(NULL, 1, lit_expr(dec)), "INVALID_TYPED_LITERAL");
    Spark__Connect__Expression__Literal *unset = literal_new();
    assert_plan_error(project(NULL, 1, lit_expr(unset)), "INTERNAL_ERROR");
    /* a bad attribute name */
    assert_plan_error(project(read_table("t"), 1, col("a`b")), "INVALID_ATTRIBUTE_NAME_SYNTAX");
    /* kinds cspark does not run yet */
    Rel *tail = rel_new();
    tail->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_TAIL;
    tail->tail = NEW(Spark__Connect__Tail, spark__connect__tail__init);
    tail->tail->input = read_table("t");
    assert_plan_error(tail, "UNSUPPORTED_FEATURE");
    Expr *udf = expr_new();
    udf->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_COMMON_INLINE_USER_DEFINED_FUNCTION;
    udf->common_inline_user_defined_function =
        NEW(Spark__Connect__CommonInlineUserDefinedFunction,
            spark__connect__common_inline_user_defined_function__init);
    udf->common_inline_user_defined_function->function_name = "plus_one";
    assert_plan_error(project(read_table("t"), 1, udf), "UNSUPPORTED_FEATURE");
    assert_non_null(strstr(ERR.msg, "plus_one"));
    /* an unknown command */
    Spark__Connect__Command *cmd = command_new();
    cs_sql_statement *st;
    assert_int_equal(translate(cmd, &st), CS_EINVAL);
    assert_string_equal(ERR.error_class, "INTERNAL_ERROR");
    /* nesting a hostile client sends is refused, not followed down the stack */
    Rel *deep = read_table("t");
    for (int i = 0; i < 5000; i++)
        deep = filter(deep, lit_i(1));
    assert_plan_error(deep, "INTERNAL_ERROR");
}

static Spark__Connect__Expression__Literal *decimal_lit(const char *v, int p, int s)
{
    Spark__Connect__Expression__Literal *l = literal_new();
    l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL;
    l->decimal = NEW(Spark__Connect__Expression__Literal__Decimal,
                     spark__connect__expression__literal__decimal__init);
    l->decimal->value = (char *)v;
    if (p >= 0) {
        l->decimal->_precision_case =
            SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___PRECISION_PRECISION;
        l->decimal->precision = p;
        l->decimal->_scale_case = SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___SCALE_SCALE;
        l->decimal->scale = s;
    }
    return l;
}

/* Spark's Decimal(BigDecimal(text)).set(p, s): half-up rounding, the text's own precision */
static void test_decimal_literals_round_half_up(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int p, s;
        int64_t unscaled;
        int want_p, want_s;
    } cases[] = {
        {"1.005", 3, 2, 101, 3, 2}, {"-1.005", 3, 2, -101, 3, 2}, {"1E+2", -1, 0, 100, 3, 0},
        {"0.50", -1, 0, 50, 2, 2},  {"12", 10, 3, 12000, 10, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_connect_plan_ctx ctx = plan_ctx();
        cs_sql_expr *e = NULL;
        assert_int_equal(
            cs_connect_plan_expression(
                &ctx, lit_expr(decimal_lit(cases[i].text, cases[i].p, cases[i].s)), &e),
            0);
        assert_int_equal(e->kind, CS_EX_LITERAL);
        const cs_col_type *t = e->literal->type;
        assert_int_equal(t->id, CS_TYPE_DECIMAL);
        assert_int_equal(t->precision, cases[i].want_p);
        assert_int_equal(t->scale, cases[i].want_s);
        __int128 v;
        memcpy(&v, e->literal->values, sizeof v);
        assert_true(v == cases[i].unscaled);
    }
    /* out of range for the precision asked, an exponent past any decimal */
    cs_connect_plan_ctx ctx = plan_ctx();
    cs_sql_expr *e = NULL;
    assert_int_equal(cs_connect_plan_expression(&ctx, lit_expr(decimal_lit("123.4", 3, 1)), &e),
                     CS_EINVAL);
    assert_string_equal(ERR.error_class, "NUMERIC_VALUE_OUT_OF_RANGE.WITHOUT_SUGGESTION");
    ctx = plan_ctx();
    assert_int_equal(
        cs_connect_plan_expression(&ctx, lit_expr(decimal_lit("0e999999999", -1, 0)), &e),
        CS_EINVAL);
    assert_string_equal(ERR.error_class, "INVALID_TYPED_LITERAL");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, session_setup, session_teardown)
    const struct CMUnitTest tests[] = {
        T(test_create_view_then_query_it),
        T(test_sql_command_with_arguments),
        T(test_write_operations),
        T(test_errors_name_the_problem),
        T(test_decimal_literals_round_half_up),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
