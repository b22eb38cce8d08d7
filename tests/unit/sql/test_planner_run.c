/*
 * test_planner_run.c — SQL text to rows through the planner: parse, analyze (then, in a second
 * round, optimize), plan (sql/planner.h), then run the physical tree in one process with the local
 * runner (local_runner.h: stages cut at exchanges, rows distributed by the exchanges'
 * partitioners), over small in-memory views and a partitioned Parquet table. The expected rows are
 * Spark 4.0.1's answers to the same statements, printed in the golden format's row syntax.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "common/fsutil.h"
#include "local_runner.h"
#include "planner_fixture.h"

static pf_session S;
static cs_sql_exec_ctx X;
static char dir[] = "/tmp/cs_planner_run_XXXXXX";

static bool optimized; /* the second round runs the optimizer before planning */

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", "/tmp/cs_planner_run_XXXXXX");
    pf_open(&S);
    S.ctx.conf.shuffle_partitions = 3;
    S.optimize = optimized;
    X = (cs_sql_exec_ctx){.alloc = cs_col_default_allocator(), .ansi = true, .session_tz = "UTC"};
    S.ctx.run_scalar = lr_run_scalar;
    S.ctx.arg = &X;
    if (pf_view(&S, "t",
                "SELECT * FROM VALUES (1, 10L, 'a'), (2, 20L, 'b'), (1, 30L, 'c'), "
                "(3, CAST(NULL AS BIGINT), 'd'), (NULL, 5L, 'e') AS t(k, v, s)") != 0)
        return -1;
    if (pf_view(&S, "u",
                "SELECT * FROM VALUES (1, 'x'), (3, 'y'), (4, 'z'), (1, 'w') AS u(k, w)") != 0)
        return -1;
    return pf_events_table(&S, dir, 30, 3);
}

static int teardown(void **state)
{
    (void)state;
    cs_remove_tree(dir);
    pf_close(&S);
    return 0;
}

/* The rows of sql, one line each (golden row syntax), sorted unless ordered; "ERROR <class>"
 * when it fails. A static buffer. */
static const char *run(const char *sql, bool ordered)
{
    static char buf[16384];
    cs_phys_node *n = pf_plan(&S, sql);
    if (!n) {
        snprintf(buf, sizeof buf, "ERROR %s %s", S.err.error_class, S.err.msg);
        return buf;
    }
    cs_col_batch **b = NULL;
    int nb = 0;
    if (lr_run(&X, n, &b, &nb, &S.err) != 0) {
        snprintf(buf, sizeof buf, "ERROR %s %s", S.err.error_class, S.err.msg);
        cs_phys_free(n);
        return buf;
    }
    cs_sbuf out = {0};
    assert_int_equal(lr_print_block(&X, 1, sql, n->schema, b, nb, ordered, &out, &S.err), 0);
    /* keep the rows only */
    const char *rows = strstr(out.data, "\n-- rows ");
    rows = rows ? strchr(rows + 1, '\n') : NULL;
    snprintf(buf, sizeof buf, "%s", rows ? rows + 1 : "");
    cs_sbuf_free(&out);
    for (int i = 0; i < nb; i++)
        cs_col_batch_unref(b[i]);
    free(b);
    cs_phys_free(n);
    return buf;
}

static void test_aggregates(void **state)
{
    (void)state;
    assert_string_equal(
        run("SELECT k, sum(v), count(*), count(v), avg(v) FROM t GROUP BY k", false),
        "1\t40\t2\t2\t20.0\n2\t20\t1\t1\t20.0\n3\tNULL\t1\t0\tNULL\n"
        "NULL\t5\t1\t1\t5.0\n");
    assert_string_equal(run("SELECT sum(v) / count(v), max(s), count(DISTINCT k) FROM t", false),
                        "16.25\t\"e\"\t3\n");
    assert_string_equal(run("SELECT k % 2 AS odd, count(DISTINCT s) FROM t GROUP BY k % 2", false),
                        "0\t1\n1\t3\nNULL\t1\n");
    assert_string_equal(run("SELECT DISTINCT k FROM t", false), "1\n2\n3\nNULL\n");
    assert_string_equal(run("SELECT k, count(DISTINCT s), sum(v), count(*), min(s) FROM t "
                            "GROUP BY k",
                            false),
                        "1\t2\t40\t2\t\"a\"\n2\t1\t20\t1\t\"b\"\n3\t1\tNULL\t1\t\"d\"\n"
                        "NULL\t1\t5\t1\t\"e\"\n");
    assert_string_equal(run("SELECT count(DISTINCT k), count(*) FROM t WHERE v > 100", false),
                        "0\t0\n");
    assert_string_equal(run("SELECT count(*) FROM t WHERE k > 5", false), "0\n");
}

static void test_joins(void **state)
{
    (void)state;
    const char *inner = "SELECT t.k, s, w FROM t JOIN u ON t.k = u.k";
    const char *want = "1\t\"a\"\t\"w\"\n1\t\"a\"\t\"x\"\n1\t\"c\"\t\"w\"\n1\t\"c\"\t\"x\"\n"
                       "3\t\"d\"\t\"y\"\n";
    assert_string_equal(run(inner, false), want);
    S.ctx.conf.auto_broadcast_threshold = -1; /* shuffled hash join */
    assert_string_equal(run(inner, false), want);
    assert_string_equal(run("SELECT t.k, u.k FROM t FULL JOIN u ON t.k = u.k AND v > 15", false),
                        "1\t1\n1\t1\n1\tNULL\n2\tNULL\n3\tNULL\nNULL\t3\nNULL\t4\nNULL\tNULL\n");
    S.ctx.conf.auto_broadcast_threshold = 10LL << 20;
    assert_string_equal(run("SELECT s FROM t LEFT SEMI JOIN u ON t.k = u.k", false),
                        "\"a\"\n\"c\"\n\"d\"\n");
    assert_string_equal(run("SELECT s FROM t LEFT ANTI JOIN u ON t.k = u.k", false),
                        "\"b\"\n\"e\"\n");
    assert_string_equal(run("SELECT u.k, s FROM t RIGHT JOIN u ON t.k = u.k WHERE u.k > 2", false),
                        "3\t\"d\"\n4\tNULL\n");
}

static void test_nested_loop_join(void **state)
{
    (void)state;
    assert_string_equal(run("SELECT t.k, u.k FROM t JOIN u ON t.k > u.k", false),
                        "2\t1\n2\t1\n3\t1\n3\t1\n");
}

static void test_sort_limit(void **state)
{
    (void)state;
    assert_string_equal(run("SELECT k, v FROM t ORDER BY v DESC NULLS LAST, k LIMIT 3", true),
                        "1\t30\n2\t20\n1\t10\n");
    assert_string_equal(run("SELECT s FROM t ORDER BY s DESC", true),
                        "\"e\"\n\"d\"\n\"c\"\n\"b\"\n\"a\"\n");
    assert_string_equal(run("SELECT s FROM t ORDER BY s LIMIT 2 OFFSET 1", true), "\"b\"\n\"c\"\n");
    assert_string_equal(run("SELECT count(*) FROM (SELECT * FROM t LIMIT 2)", false), "2\n");
}

static void test_union_and_subquery(void **state)
{
    (void)state;
    assert_string_equal(run("SELECT k FROM t UNION ALL SELECT k FROM u", false),
                        "1\n1\n1\n1\n2\n3\n3\n4\nNULL\n");
    assert_string_equal(run("SELECT k FROM t UNION SELECT k FROM u", false), "1\n2\n3\n4\nNULL\n");
    assert_string_equal(run("SELECT s FROM t WHERE v > (SELECT avg(v) FROM t)", false),
                        "\"b\"\n\"c\"\n");
    assert_string_equal(run("SELECT (SELECT max(w) FROM u) AS m, count(*) FROM t", false),
                        "\"z\"\t5\n");
}

static void test_window(void **state)
{
    (void)state;
    assert_string_equal(run("SELECT s, row_number() OVER (PARTITION BY k ORDER BY v) AS rn, "
                            "sum(v) OVER (PARTITION BY k) AS total FROM t",
                            false),
                        "\"a\"\t1\t40\n\"b\"\t1\t20\n\"c\"\t2\t40\n\"d\"\t1\tNULL\n\"e\"\t1\t5\n");
    /* aggregates of two inputs and with parameters over a window (regression: refused) */
    assert_string_equal(run("SELECT s, max_by(s, v) OVER (PARTITION BY k) AS m, "
                            "percentile(v, 0.5) OVER (PARTITION BY k) AS p FROM t",
                            false),
                        "\"a\"\t\"c\"\t20.0\n\"b\"\t\"b\"\t20.0\n\"c\"\t\"c\"\t20.0\n"
                        "\"d\"\tNULL\tNULL\n\"e\"\t\"e\"\t5.0\n");
}

static void test_expand(void **state)
{
    (void)state;
    assert_string_equal(run("SELECT k, sum(v) FROM t GROUP BY ROLLUP(k)", false),
                        "1\t40\n2\t20\n3\tNULL\nNULL\t5\nNULL\t65\n");
    /* a plain key beside CUBE: the cross product of the sets, (k, s) and (k) */
    assert_string_equal(run("SELECT k, s, count(*), grouping_id() FROM t WHERE k < 3 "
                            "GROUP BY k, CUBE(s)",
                            false),
                        "1\t\"a\"\t1\t0\n1\t\"c\"\t1\t0\n1\tNULL\t2\t1\n2\t\"b\"\t1\t0\n"
                        "2\tNULL\t1\t1\n");
}

static void test_file_scan(void **state)
{
    (void)state;
    assert_string_equal(
        run("SELECT day, count(*), min(id), max(id) FROM events GROUP BY day", false),
        "1\t30\t100\t129\n2\t30\t200\t229\n");
    assert_string_equal(
        run("SELECT name, count(*) FROM events WHERE id >= 220L GROUP BY name", false),
        "\"n0\"\t3\n\"n1\"\t4\n\"n2\"\t3\n");
    assert_string_equal(run("SELECT count(*) FROM range(0, 100, 7)", false), "15\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aggregates),
        cmocka_unit_test(test_joins),
        cmocka_unit_test(test_nested_loop_join),
        cmocka_unit_test(test_sort_limit),
        cmocka_unit_test(test_union_and_subquery),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_file_scan),
    };
    int failed = cmocka_run_group_tests_name("analyzed plans", tests, setup, teardown);
    optimized = true;
    return failed + cmocka_run_group_tests_name("optimized plans", tests, setup, teardown);
}
