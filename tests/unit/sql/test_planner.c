/*
 * test_planner.c — src/sql/planner*.c: the physical plans the planner makes from SQL text, as
 * shapes (node kinds, aggregate modes, exchanges, join strategies) and the fields that matter:
 * aggregates as partial -> exchange -> final with a Project above for expressions over them,
 * count(DISTINCT) in two levels, broadcast vs shuffled hash joins by size, hint and join type,
 * nested loop joins without equi-keys, TakeOrderedAndProject for ORDER BY + LIMIT, windows,
 * scans of a partitioned Parquet table (splits, partition values, pushed filters, pruned
 * partitions), scalar
 * subqueries run first and bound as literals, and Spark's UNSUPPORTED_FEATURE for the rest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "common/fsutil.h"
#include "planner_fixture.h"

static pf_session S;
static char dir[] = "/tmp/cs_planner_XXXXXX";

static int setup(void **state)
{
    (void)state;
    pf_open(&S);
    S.ctx.conf.shuffle_partitions = 4;
    if (pf_view(&S, "t",
                "SELECT * FROM VALUES (1, 10L, 'a'), (2, 20L, 'b'), (1, 30L, 'c') AS "
                "t(k, v, s)") != 0)
        return -1;
    if (pf_view(&S, "u", "SELECT * FROM VALUES (1, 'x'), (3, 'y') AS u(k, w)") != 0) return -1;
    return pf_events_table(&S, dir, 50, 0);
}

static int teardown(void **state)
{
    (void)state;
    cs_remove_tree(dir);
    pf_close(&S);
    return 0;
}

static cs_phys_node *plan_ok(const char *sql)
{
    cs_phys_node *n = pf_plan(&S, sql);
    if (!n) fail_msg("%s: %s", sql, S.err.msg);
    return n;
}

/* sum(v) / count(v): partial and final aggregates of both, the division in a Project above */
static void test_aggregate_partial_exchange_final(void **state)
{
    (void)state;
    cs_phys_node *n = plan_ok("SELECT k, sum(v) / count(v) AS r, max(s) FROM t GROUP BY k");
    assert_string_equal(pf_shape(n), "Project(HashAggregate[final k1 a3](Exchange[hash 4]("
                                     "HashAggregate[partial k1 a3](Project(LocalTableScan)))))");
    assert_string_equal(pf_schema(n), "k:int,r:double,max(s):string");
    cs_phys_free(n);
}

/* a key that is an expression is computed below; no keys: one partition */
static void test_aggregate_expression_keys_and_global(void **state)
{
    (void)state;
    cs_phys_node *n = plan_ok("SELECT k + 1 AS k1, count(*) FROM t GROUP BY k + 1");
    assert_string_equal(pf_shape(n), "Project(HashAggregate[final k1 a1](Exchange[hash 4]("
                                     "HashAggregate[partial k1 a1](Project(Project("
                                     "LocalTableScan))))))");
    assert_string_equal(pf_schema(n), "k1:int,count(1):bigint");
    cs_phys_free(n);
    n = plan_ok("SELECT CAST(avg(v) AS int) FROM t");
    assert_string_equal(pf_shape(n), "Project(HashAggregate[final k0 a1](Exchange[single 1]("
                                     "HashAggregate[partial k0 a1](Project(LocalTableScan)))))");
    cs_phys_free(n);
}

/* count(DISTINCT w): group by k, w twice, then count by k */
static void test_distinct_aggregate_two_levels(void **state)
{
    (void)state;
    cs_phys_node *n = plan_ok("SELECT k, count(DISTINCT s) FROM t GROUP BY k");
    assert_string_equal(
        pf_shape(n),
        "Project(HashAggregate[final k1 a1](Exchange[hash 4](HashAggregate[partial k1 a1]("
        "HashAggregate[final k2 a0](Exchange[hash 4](HashAggregate[partial k2 a0](Project("
        "LocalTableScan))))))))");
    cs_phys_free(n);
    /* with other aggregates: computed at level 1, merged at level 2 */
    n = plan_ok("SELECT k, count(DISTINCT s), sum(v), count(*) FROM t GROUP BY k");
    assert_string_equal(
        pf_shape(n),
        "Project(HashAggregate[final k1 a3](Exchange[hash 4](HashAggregate[partial k1 a3]("
        "HashAggregate[final k2 a2](Exchange[hash 4](HashAggregate[partial k2 a2](Project("
        "LocalTableScan))))))))");
    cs_phys_free(n);
    assert_null(pf_plan(&S, "SELECT count(DISTINCT s), avg(v) FROM t"));
    assert_string_equal(S.err.error_class, "UNSUPPORTED_FEATURE");
    n = plan_ok("SELECT DISTINCT k FROM t");
    assert_string_equal(pf_shape(n), "HashAggregate[final k1 a0](Exchange[hash 4]("
                                     "HashAggregate[partial k1 a0](Project(Project("
                                     "LocalTableScan)))))");
    cs_phys_free(n);
}

/* small sides are broadcast (the right one first); with the threshold off both sides are
 * hash-partitioned; a right outer join can only broadcast its left side */
static void test_join_strategies(void **state)
{
    (void)state;
    const char *q = "SELECT t.k, w FROM t JOIN u ON t.k = u.k AND v > 10";
    cs_phys_node *n = plan_ok(q);
    assert_string_equal(pf_shape(n), "Project(BroadcastHashJoin[t0 right k1 cond]("
                                     "Project(LocalTableScan), "
                                     "BroadcastExchange(Project(LocalTableScan))))");
    cs_phys_free(n);
    S.ctx.conf.auto_broadcast_threshold = -1;
    n = plan_ok(q);
    assert_string_equal(pf_shape(n), "Project(ShuffledHashJoin[t0 right k1 cond]("
                                     "Exchange[hash 4](Project(LocalTableScan)), "
                                     "Exchange[hash 4](Project(LocalTableScan))))");
    cs_phys_free(n);
    S.ctx.conf.auto_broadcast_threshold = 10LL << 20;
    n = plan_ok("SELECT * FROM range(100000) r RIGHT JOIN u ON r.id = u.k");
    assert_non_null(strstr(pf_shape(n), "BroadcastHashJoin[t2 left k1]"));
    cs_phys_free(n);
    n = plan_ok("SELECT * FROM t FULL JOIN u ON t.k = u.k");
    assert_non_null(strstr(pf_shape(n), "ShuffledHashJoin[t3 right k1]"));
    cs_phys_free(n);
    /* shuffled, an outer join builds its smaller side, the preserved one too (Spark's
     * canBuildShuffledHashJoinLeft / Right); a semi join only its right side */
    S.ctx.conf.auto_broadcast_threshold = -1;
    n = plan_ok("SELECT * FROM u LEFT JOIN range(100000) r ON r.id = u.k");
    assert_non_null(strstr(pf_shape(n), "ShuffledHashJoin[t1 left k1]"));
    cs_phys_free(n);
    n = plan_ok("SELECT * FROM t LEFT JOIN u ON t.k = u.k");
    assert_non_null(strstr(pf_shape(n), "ShuffledHashJoin[t1 right k1]"));
    cs_phys_free(n);
    n = plan_ok("SELECT * FROM range(100000) r RIGHT JOIN u ON r.id = u.k");
    assert_non_null(strstr(pf_shape(n), "ShuffledHashJoin[t2 right k1]"));
    cs_phys_free(n);
    n = plan_ok("SELECT * FROM u LEFT SEMI JOIN t ON t.k = u.k");
    assert_non_null(strstr(pf_shape(n), "ShuffledHashJoin[t4 right k1]"));
    cs_phys_free(n);
    S.ctx.conf.auto_broadcast_threshold = 10LL << 20;
}

/* Spark's join hints, as the optimizer leaves them on the join: BROADCAST whatever the sizes,
 * MERGE / SHUFFLE_HASH: no broadcast */
static void test_join_hints(void **state)
{
    (void)state;
    cs_logical_plan *p = pf_analyze(&S, "SELECT t.k, w FROM t JOIN u ON t.k = u.k");
    assert_non_null(p);
    assert_int_equal(p->children[0]->kind, CS_LP_JOIN);
    cs_logical_plan *top = cs_logical_plan_copy(S.arena, p);
    cs_logical_plan *j = cs_logical_plan_copy(S.arena, p->children[0]);
    top->children[0] = j;
    S.ctx.conf.auto_broadcast_threshold = -1;
    j->right_hint = "BROADCAST";
    cs_phys_node *n = NULL;
    assert_int_equal(cs_sql_plan(&S.ctx, top, &n, &S.err), 0);
    assert_non_null(strstr(pf_shape(n), "BroadcastHashJoin[t0 right k1]"));
    cs_phys_free(n);
    S.ctx.conf.auto_broadcast_threshold = 10LL << 20;
    j->right_hint = NULL;
    j->left_hint = "MERGE";
    assert_int_equal(cs_sql_plan(&S.ctx, top, &n, &S.err), 0);
    assert_non_null(strstr(pf_shape(n), "ShuffledHashJoin[t0 right k1]"));
    cs_phys_free(n);
}

/* no equi-key: a broadcast nested loop join with the condition over left ++ right */
static void test_nested_loop_join(void **state)
{
    (void)state;
    cs_phys_node *n = plan_ok("SELECT * FROM t JOIN u ON t.k < u.k");
    assert_string_equal(pf_shape(n), "Project(BroadcastNestedLoopJoin[t0 right k0 cond]("
                                     "Project(LocalTableScan), "
                                     "BroadcastExchange(Project(LocalTableScan))))");
    const cs_phys_node *j = n->children[0];
    assert_int_equal(j->schema->n_fields, 5);
    cs_phys_free(n);
}

/* EnsureRequirements: an input already hash-partitioned by the join keys needs no exchange for
 * an aggregate grouped by them, nor for a join on them */
static void test_no_exchange_when_partitioned(void **state)
{
    (void)state;
    S.ctx.conf.auto_broadcast_threshold = -1;
    cs_phys_node *n = plan_ok("SELECT t.k, count(*) FROM t JOIN u ON t.k = u.k GROUP BY t.k");
    assert_string_equal(pf_shape(n), "Project(HashAggregate[final k1 a1](HashAggregate[partial "
                                     "k1 a1](ShuffledHashJoin[t0 right k1]("
                                     "Exchange[hash 4](Project(LocalTableScan)), "
                                     "Exchange[hash 4](Project(LocalTableScan))))))");
    cs_phys_free(n);
    n = plan_ok("SELECT * FROM (SELECT k, count(*) AS c FROM t GROUP BY k) a JOIN u ON a.k = u.k");
    assert_string_equal(pf_shape(n), "Project(ShuffledHashJoin[t0 right k1](Project("
                                     "HashAggregate[final k1 a1](Exchange[hash 4](HashAggregate["
                                     "partial k1 a1](Project(LocalTableScan))))), "
                                     "Exchange[hash 4](Project(LocalTableScan))))");
    cs_phys_free(n);
    S.ctx.conf.auto_broadcast_threshold = 10LL << 20;
}

/* the optimizer's ExistenceJoin (EXISTS under OR): the left rows once each with `exists` */
static void test_existence_join(void **state)
{
    (void)state;
    cs_logical_plan *p = pf_analyze(&S, "SELECT * FROM t LEFT SEMI JOIN u ON t.k = u.k");
    assert_non_null(p);
    while (p->kind != CS_LP_JOIN)
        p = p->children[0];
    cs_logical_plan *x = cs_logical_plan_copy(S.arena, p);
    x->join_type = CS_JOIN_EXISTENCE;
    x->n_output = p->n_output + 1;
    x->output = cs_sql_alloc(S.arena, sizeof *x->output * (size_t)x->n_output);
    memcpy(x->output, p->output, sizeof *x->output * (size_t)p->n_output);
    cs_sql_expr *e = cs_sql_expr_new(S.arena, CS_EX_ATTR, 0);
    e->name = "exists";
    e->id = 999999;
    e->type = cs_col_type_primitive(CS_TYPE_BOOLEAN);
    e->resolved = true;
    x->output[p->n_output] = e;
    cs_phys_node *n = NULL;
    assert_int_equal(cs_sql_plan(&S.ctx, x, &n, &S.err), 0);
    assert_string_equal(pf_shape(n), "Union(Project(BroadcastHashJoin[t4 right k1](Project("
                                     "LocalTableScan), BroadcastExchange(Project("
                                     "LocalTableScan)))), Project(BroadcastHashJoin[t5 right k1]("
                                     "Project(LocalTableScan), BroadcastExchange(Project("
                                     "LocalTableScan)))))");
    assert_string_equal(pf_schema(n), "k:int,v:bigint,s:string,exists:boolean");
    cs_phys_free(n);
}

static void test_sort_limit_top_n(void **state)
{
    (void)state;
    cs_phys_node *n = plan_ok("SELECT k, v FROM t ORDER BY v DESC LIMIT 2");
    assert_string_equal(pf_shape(n),
                        "TakeOrderedAndProject[2](Exchange[single 1]("
                        "TakeOrderedAndProject[2](Project(Project(LocalTableScan)))))");
    assert_true(n->sort_keys[0].descending);
    assert_int_equal(n->sort_keys[0].ordinal, 1);
    cs_phys_free(n);
    /* a global sort: range partitioning by the sort's keys (EnsureRequirements), then a sort */
    n = plan_ok("SELECT k FROM t ORDER BY k DESC");
    assert_string_equal(pf_shape(n), "Sort(Exchange[range 4](Project(Project(LocalTableScan))))");
    assert_int_equal(n->children[0]->n_sort_keys, 1);
    assert_true(n->children[0]->sort_keys[0].descending);
    assert_false(n->children[0]->sort_keys[0].nulls_first);
    assert_int_equal(n->children[0]->sort_keys[0].ordinal, n->sort_keys[0].ordinal);
    cs_phys_free(n);
    n = plan_ok("SELECT k FROM t LIMIT 1 OFFSET 1");
    assert_string_equal(pf_shape(n), "GlobalLimit[1](Exchange[single 1](LocalLimit[2](Project("
                                     "Project(LocalTableScan)))))");
    assert_int_equal(n->offset, 1);
    cs_phys_free(n);
}

/* LimitPushDown's LocalLimit: a limit per partition, no exchange */
static void test_local_limit(void **state)
{
    (void)state;
    cs_logical_plan *p = pf_analyze(&S, "SELECT k FROM t LIMIT 2");
    assert_non_null(p);
    assert_int_equal(p->kind, CS_LP_LIMIT);
    cs_logical_plan *l = cs_logical_plan_copy(S.arena, p);
    l->local_limit = true;
    cs_phys_node *n = NULL;
    assert_int_equal(cs_sql_plan(&S.ctx, l, &n, &S.err), 0);
    assert_string_equal(pf_shape(n), "LocalLimit[2](Project(Project(LocalTableScan)))");
    cs_phys_free(n);
}

static void test_window(void **state)
{
    (void)state;
    cs_phys_node *n = plan_ok("SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) AS rn, "
                              "sum(v) OVER (PARTITION BY k) AS total FROM t");
    const char *shape = pf_shape(n);
    assert_non_null(strstr(shape, "Window(Sort(Exchange[hash 4]("));
    cs_phys_free(n);
}

/* LATERAL VIEW explode(...): the array computed by a Project below for the generator alone (not
 * in the Generate's rows), the generator's column after the child's */
static void test_generate(void **state)
{
    (void)state;
    cs_phys_node *n = plan_ok("SELECT k, x FROM t LATERAL VIEW OUTER explode(array(v, v + 1)) e "
                              "AS x");
    assert_string_equal(pf_shape(n), "Project(Generate(Project(Project(LocalTableScan))))");
    const cs_phys_node *g = n->children[0];
    assert_int_equal(g->generator, CS_GEN_EXPLODE);
    assert_true(g->generator_outer);
    assert_int_equal(g->generator_input, 3);
    assert_string_equal(pf_schema(g), "k:int,v:bigint,s:string,x:bigint");
    assert_true(g->generator_pruned);
    assert_int_equal(g->n_generator_keep, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(g->generator_keep[i], i);
    cs_phys_free(n);
}

/* two day=N folders: two files in two partitions, the day column from the folders, the
 * comparison of id pushed to the scan and kept in the Filter above */
static void test_scan_partitioned_table(void **state)
{
    (void)state;
    cs_phys_node *n = plan_ok("SELECT name, day FROM events WHERE id > 120L");
    assert_string_equal(pf_shape(n), "Project(Filter(FileScan[2 groups 1 filters]))");
    const cs_phys_node *scan = n->children[0]->children[0];
    assert_int_equal(scan->n_splits, 2);
    assert_non_null(scan->partition_values);
    assert_int_equal(scan->partition_values->num_rows, 2);
    assert_string_equal(pf_schema(scan), "id:bigint,name:string,day:int");
    assert_int_equal(scan->read_schema->n_fields, 3 - 1);
    assert_int_equal(scan->data_schema->n_fields, 2);
    assert_string_equal(scan->format, "parquet");
    cs_phys_free(n);
    /* partition pruning: only day=2's file is read */
    n = plan_ok("SELECT name FROM events WHERE day = 2 AND id > 0L");
    scan = n->children[0]->children[0];
    assert_int_equal(scan->kind, CS_PH_FILE_SCAN);
    assert_int_equal(scan->n_splits, 1);
    assert_non_null(strstr(scan->split_uri[0], "day=2"));
    cs_phys_free(n);
}

static int scalar_calls;

static int fake_scalar(void *arg, const cs_phys_node *plan, cs_column **value, cs_error *err)
{
    (void)arg;
    (void)err;
    scalar_calls++;
    assert_int_equal(plan->schema->n_fields, 1);
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_LONG));
    int64_t v = 15;
    cs_col_builder_append_values(b, &v, 1, NULL);
    *value = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return 0;
}

static void test_scalar_subquery_runs_first(void **state)
{
    (void)state;
    S.ctx.run_scalar = fake_scalar;
    scalar_calls = 0;
    cs_phys_node *n = plan_ok("SELECT k FROM t WHERE v > (SELECT avg(v) FROM t) + 0");
    assert_int_equal(scalar_calls, 1);
    const cs_phys_node *f = n->children[0];
    assert_int_equal(f->kind, CS_PH_FILTER);
    cs_phys_free(n);
    S.ctx.run_scalar = NULL;
    assert_null(pf_plan(&S, "SELECT k FROM t WHERE v > (SELECT max(v) FROM t)"));
    assert_string_equal(S.err.error_class, "UNSUPPORTED_FEATURE");
}

static void test_unsupported(void **state)
{
    (void)state;
    /* files gone since the table was made: Spark's PATH_NOT_FOUND, no plan */
    char gone[] = "/tmp/cs_planner_gone_XXXXXX", path[256];
    assert_non_null(mkdtemp(gone));
    snprintf(path, sizeof path, "%s/part-0.parquet", gone);
    assert_int_equal(pf_write_parquet(path, 0, 3, 0), 0);
    assert_int_equal(pf_table(&S, "gone", gone), 0);
    cs_remove_tree(gone);
    assert_null(pf_plan(&S, "SELECT * FROM gone"));
    assert_string_equal(S.err.error_class, "PATH_NOT_FOUND");
    assert_null(pf_plan(&S, "SELECT k FROM t INTERSECT SELECT k FROM u"));
    assert_string_equal(S.err.error_class, "UNSUPPORTED_FEATURE");
}

/* The partitioning hints plan what Spark's do: COALESCE a Coalesce (no exchange), the range
 * hint a range exchange (the planner refused it), REBALANCE a hash exchange; local rows are
 * sliced min(rows, parallelism) (they were one partition). */
static void test_partitioning_hints_and_local_slices(void **state)
{
    (void)state;
    cs_phys_node *n = plan_ok("SELECT /*+ COALESCE(2) */ k FROM t");
    assert_true(strncmp(pf_shape(n), "Coalesce(Project(", 17) == 0);
    assert_int_equal(n->num_partitions, 2);
    const cs_phys_node *leaf = n;
    while (leaf->n_children)
        leaf = leaf->children[0];
    assert_int_equal(leaf->kind, CS_PH_LOCAL);
    assert_int_equal(leaf->num_slices, 2); /* 3 rows, parallelism 2 */
    cs_phys_free(n);
    n = plan_ok("SELECT /*+ REPARTITION_BY_RANGE(3, k) */ k FROM t");
    assert_true(strncmp(pf_shape(n), "Exchange[range 3](", 18) == 0);
    assert_int_equal(n->shuffle_origin, CS_ORIGIN_REPARTITION_BY_NUM);
    assert_true(n->user_partitions);
    cs_phys_free(n);
    n = plan_ok("SELECT /*+ REBALANCE(k) */ k FROM t");
    assert_true(strncmp(pf_shape(n), "Exchange[hash 4](", 17) == 0);
    assert_int_equal(n->shuffle_origin, CS_ORIGIN_REBALANCE_BY_COL);
    assert_false(n->user_partitions);
    cs_phys_free(n);
    n = plan_ok("SELECT /*+ REPARTITION */ k FROM t");
    assert_true(strncmp(pf_shape(n), "Exchange[roundrobin 4](", 23) == 0);
    assert_int_equal(n->shuffle_origin, CS_ORIGIN_REBALANCE_BY_NONE);
    cs_phys_free(n);
    assert_null(pf_plan(&S, "SELECT /*+ COALESCE('k') */ k FROM t"));
    assert_string_equal(S.err.error_class, "_LEGACY_ERROR_TEMP_1048");
    assert_null(pf_plan(&S, "SELECT /*+ REPARTITION(1, 2) */ k FROM t"));
    assert_string_equal(S.err.error_class, "_LEGACY_ERROR_TEMP_1047");
    assert_non_null(strstr(S.err.msg, "but \"2\" can not be recognized"));
    assert_null(pf_plan(&S, "SELECT /*+ COALESCE(0) */ k FROM t"));
    assert_string_equal(S.err.msg,
                        "requirement failed: Number of partitions (0) must be positive.");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aggregate_partial_exchange_final),
        cmocka_unit_test(test_aggregate_expression_keys_and_global),
        cmocka_unit_test(test_distinct_aggregate_two_levels),
        cmocka_unit_test(test_join_strategies),
        cmocka_unit_test(test_join_hints),
        cmocka_unit_test(test_nested_loop_join),
        cmocka_unit_test(test_no_exchange_when_partitioned),
        cmocka_unit_test(test_existence_join),
        cmocka_unit_test(test_sort_limit_top_n),
        cmocka_unit_test(test_local_limit),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_generate),
        cmocka_unit_test(test_scan_partitioned_table),
        cmocka_unit_test(test_scalar_subquery_runs_first),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_partitioning_hints_and_local_slices),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
