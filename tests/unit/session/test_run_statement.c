/*
 * test_run_statement.c — cs_sql_session_run_statement (session/sql_session.h) with a result
 * whose memory held anything: the result starts empty whatever the caller left in it (a Spark
 * Connect server's stack variable once made the query path append to a garbage batch count and
 * abort), on success and on failure, so that cs_sql_result_free is always safe; `kept` starts
 * false.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "session/sql_session.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"
#include "sql/sql_parser.h"

static void test_result_starts_empty_whatever_the_caller_left(void **state)
{
    (void)state;
    cs_error err;
    cs_error_clear(&err);
    cs_sql_session *s = cs_sql_session_new(NULL, &err);
    assert_non_null(s);
    cs_sql_arena *a = cs_sql_arena_new();

    /* a command: its rows only */
    cs_sql_statement set = {.kind = CS_STMT_SET, .mode = "SET", .key = "spark.sql.x", .value = "1"};
    cs_sql_result r;
    memset(&r, 0xab, sizeof r);
    bool kept = true;
    assert_int_equal(cs_sql_session_run_statement(s, a, &set, "SET", &r, &kept, &err), 0);
    assert_false(kept);
    assert_int_equal(r.n_batches, 1);
    assert_int_equal(r.num_rows, 1);
    cs_sql_result_free(&r);

    /* a query that fails (no context here): the result is empty, freeing it is safe */
    cs_sql_statement *q;
    assert_int_equal(cs_sql_parse_statement(a, "SELECT 1 AS x", &q, NULL, &err), 0);
    memset(&r, 0xab, sizeof r);
    kept = true;
    assert_int_not_equal(cs_sql_session_run_statement(s, a, q, "q", &r, &kept, &err), 0);
    assert_false(kept);
    assert_int_equal(r.n_batches, 0);
    assert_null(r.batches);
    assert_null(r.schema);
    cs_sql_result_free(&r);

    cs_sql_arena_free(a);
    cs_sql_session_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_starts_empty_whatever_the_caller_left),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
