/*
 * test_planner_bind.c — src/sql/planner_bind.c: expressions the parser and analyzer resolve
 * are bound to the ordinals of their input and evaluated by the engine (sqlexec/pexpr.h) with
 * Spark's results: arithmetic, a CASE with an operand (rewritten to CASE WHEN x = v), IN over
 * literals and IN over a column (rewritten to = / OR with SQL's null logic), and an internal
 * error for an attribute that is not an input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "columnar/col_builder.h"
#include "sql/analyzer.h"
#include "sql/planner_bind.h"
#include "sql/sql_parser.h"

/* a: 1, 3, null; b: 2, 3, 4 */
static cs_col_batch *input_batch(void)
{
    cs_col_field f[2] = {{"a", cs_col_type_primitive(CS_TYPE_INT), true},
                         {"b", cs_col_type_primitive(CS_TYPE_INT), true}};
    cs_col_type *schema = cs_col_type_struct(f, 2);
    cs_col_builder *a = cs_col_builder_new(NULL, schema->fields[0].type);
    cs_col_builder *b = cs_col_builder_new(NULL, schema->fields[1].type);
    int32_t av[3] = {1, 3, 0}, bv[3] = {2, 3, 4};
    uint8_t avalid[3] = {1, 1, 0};
    cs_col_builder_append_values(a, av, 3, avalid);
    cs_col_builder_append_values(b, bv, 3, NULL);
    cs_column *cols[2] = {cs_col_builder_finish(a), cs_col_builder_finish(b)};
    cs_col_builder_free(a);
    cs_col_builder_free(b);
    cs_error err = {0};
    cs_col_batch *batch = cs_col_batch_new(schema, cols, 2, 3, &err);
    assert_non_null(batch);
    return batch;
}

typedef struct analyzed {
    cs_sql_arena *arena;
    cs_catalog *catalog;
    cs_logical_plan *project; /* the top Project */
} analyzed;

static void analyze(analyzed *q, const char *sql)
{
    q->arena = cs_sql_arena_new();
    q->catalog = cs_catalog_new();
    cs_sql_statement *st = NULL;
    cs_error err = {0};
    assert_int_equal(cs_sql_parse_statement(q->arena, sql, &st, NULL, &err), 0);
    cs_logical_plan *plan = NULL;
    int rc = cs_sql_analyze(q->catalog, q->arena, st->plan, &plan, &err);
    if (rc != 0) fail_msg("%s", err.msg);
    assert_int_equal(plan->kind, CS_LP_PROJECT);
    q->project = plan;
}

static void done(analyzed *q)
{
    cs_catalog_free(q->catalog);
    cs_sql_arena_free(q->arena);
}

/* Binds project expression i over the Project's child and evaluates it on input_batch(). */
static cs_column *eval(analyzed *q, int i, cs_error *err)
{
    const cs_logical_plan *child = q->project->children[0];
    cs_pexpr *p = NULL;
    int rc = cs_sql_bind_expr(q->project->exprs[i], child->output, child->n_output, &p, err);
    if (rc < 0) return NULL;
    cs_col_batch *batch = input_batch();
    cs_pexpr_program *prog = cs_pexpr_compile(p, batch->schema, err);
    assert_non_null(prog);
    cs_sql_exec_ctx ctx = {.alloc = cs_col_default_allocator(), .ansi = true, .session_tz = "UTC"};
    cs_column *out = NULL;
    rc = cs_pexpr_eval(prog, batch, &ctx, &out, err);
    cs_pexpr_program_free(prog);
    cs_pexpr_free(p);
    cs_col_batch_unref(batch);
    return rc < 0 ? NULL : out;
}

static const char *const FROM = " FROM VALUES (1, 2), (3, 3), (CAST(NULL AS INT), 4) AS t(a, b)";

static void test_arithmetic_and_case_with_operand(void **state)
{
    (void)state;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT a + b, CASE a WHEN 1 THEN 'one' WHEN 3 THEN 'three' "
             "ELSE 'other' END%s",
             FROM);
    analyzed q;
    analyze(&q, sql);
    cs_error err = {0};
    cs_column *sum = eval(&q, 0, &err);
    assert_non_null(sum);
    assert_int_equal(sum->type->id, CS_TYPE_INT);
    assert_int_equal(((const int32_t *)(const void *)sum->values)[0], 3);
    assert_int_equal(((const int32_t *)(const void *)sum->values)[1], 6);
    assert_false(cs_column_is_valid(sum, 2));
    cs_column_unref(sum);
    cs_column *name = eval(&q, 1, &err);
    assert_non_null(name);
    const char *want[3] = {"one", "three", "other"}; /* null a matches no WHEN: ELSE */
    for (int i = 0; i < 3; i++) {
        int32_t len;
        const uint8_t *p = cs_column_bytes(name, i, &len);
        assert_int_equal(len, (int32_t)strlen(want[i]));
        assert_memory_equal(p, want[i], (size_t)len);
    }
    cs_column_unref(name);
    done(&q);
}

/* NOT LIKE / NOT RLIKE are the parser's like / rlike calls marked negated: bound as not(...)
 * (they were bound as the plain like, TPC-H Q13 counting the wrong orders) */
static void test_not_like(void **state)
{
    (void)state;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT CAST(a AS STRING) NOT LIKE '1%%', CAST(a AS STRING) NOT RLIKE '^3'%s", FROM);
    analyzed q;
    analyze(&q, sql);
    cs_error err = {0};
    cs_column *c = eval(&q, 0, &err);
    assert_non_null(c);
    assert_true(cs_column_is_valid(c, 0) && !cs_bit_get(c->values, 0));
    assert_true(cs_column_is_valid(c, 1) && cs_bit_get(c->values, 1));
    assert_false(cs_column_is_valid(c, 2));
    cs_column_unref(c);
    c = eval(&q, 1, &err);
    assert_non_null(c);
    assert_true(cs_column_is_valid(c, 0) && cs_bit_get(c->values, 0));
    assert_true(cs_column_is_valid(c, 1) && !cs_bit_get(c->values, 1));
    cs_column_unref(c);
    done(&q);
}

static void test_in_lists(void **state)
{
    (void)state;
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT a IN (1, 5), a IN (2, b), b IN (a, 7)%s", FROM);
    analyzed q;
    analyze(&q, sql);
    cs_error err = {0};
    /* a IN (1, 5): true, false, null */
    cs_column *c = eval(&q, 0, &err);
    assert_non_null(c);
    assert_true(cs_bit_get(c->values, 0));
    assert_false(cs_bit_get(c->values, 1));
    assert_false(cs_column_is_valid(c, 2));
    cs_column_unref(c);
    /* a IN (2, b): false (1 vs 2, 2), true (3 = b), null */
    c = eval(&q, 1, &err);
    assert_non_null(c);
    assert_true(cs_column_is_valid(c, 0) && !cs_bit_get(c->values, 0));
    assert_true(cs_column_is_valid(c, 1) && cs_bit_get(c->values, 1));
    assert_false(cs_column_is_valid(c, 2));
    cs_column_unref(c);
    /* b IN (a, 7): false, true, null (4 = null is unknown, 4 = 7 false) */
    c = eval(&q, 2, &err);
    assert_non_null(c);
    assert_true(cs_column_is_valid(c, 0) && !cs_bit_get(c->values, 0));
    assert_true(cs_column_is_valid(c, 1) && cs_bit_get(c->values, 1));
    assert_false(cs_column_is_valid(c, 2));
    cs_column_unref(c);
    done(&q);
}

static void test_attribute_not_in_input_is_an_internal_error(void **state)
{
    (void)state;
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT a + 1%s", FROM);
    analyzed q;
    analyze(&q, sql);
    cs_error err = {0};
    cs_pexpr *p = NULL;
    /* bound over no input at all */
    assert_int_equal(cs_sql_bind_expr(q.project->exprs[0], NULL, 0, &p, &err), CS_EINVAL);
    assert_null(p);
    assert_non_null(strstr(err.msg, "is not among the 0 inputs"));
    done(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arithmetic_and_case_with_operand),
        cmocka_unit_test(test_not_like),
        cmocka_unit_test(test_in_lists),
        cmocka_unit_test(test_attribute_not_in_input_is_an_internal_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
