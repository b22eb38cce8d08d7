/*
 * test_phys_explain.c — cs_phys_explain (src/sqlexec/phys_explain.c) against the text Spark
 * 4.0.1's EXPLAIN printed for the same plans (pyspark, a parquet table t(k, g, name, x) at
 * file:/tmp/physspark/t and u = range(10) AS k2, k2 * 2 AS w), with Spark's expression ids
 * ("#5L") taken out — a bound tree has none — and the AdaptiveSparkPlan line left to the caller;
 * and cs_phys_plan_info, the same tree as Spark's SparkPlanInfo (the SQL tab's plan graph).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>

#include "phys_test_util.h"

/* Spark's text without expression ids ("k#5L" -> "k"). */
static char *without_ids(const char *s)
{
    char *o = malloc(strlen(s) + 1), *q = o;
    for (const char *p = s; *p;) {
        if (*p == '#' && p[1] >= '0' && p[1] <= '9') {
            p++;
            while (*p >= '0' && *p <= '9')
                p++;
            if (*p == 'L') p++;
            continue;
        }
        *q++ = *p++;
    }
    *q = 0;
    return o;
}

static void expect_explain(const cs_phys_node *n, const char *spark)
{
    cs_sbuf sb = {0};
    cs_phys_explain(n, &sb);
    char *want = without_ids(spark);
    if (strcmp(sb.data, want) != 0) {
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", sb.data, want);
        fail();
    }
    free(want);
    cs_sbuf_free(&sb);
}

/* cs_phys_plan_info: Spark's SparkPlanInfo of the same tree, in pre-order (the order EXPLAIN
 * prints), each node's simpleString its EXPLAIN line (as Spark's: SparkPlan.simpleString is what
 * the tree string prints), its nodeName the start of that line, no metadata, no metrics. */
static void collect_info(const json_t *n, json_t *lines)
{
    assert_true(json_is_object(n));
    assert_int_equal(json_object_size(n), 5);
    const char *name = json_string_value(json_object_get(n, "nodeName"));
    const char *simple = json_string_value(json_object_get(n, "simpleString"));
    assert_non_null(name);
    assert_non_null(simple);
    assert_memory_equal(simple, name, strlen(name));
    assert_int_equal(json_object_size(json_object_get(n, "metadata")), 0);
    assert_int_equal(json_array_size(json_object_get(n, "metrics")), 0);
    json_array_append_new(lines, json_string(simple));
    const json_t *kids = json_object_get(n, "children");
    for (size_t i = 0; i < json_array_size(kids); i++)
        collect_info(json_array_get(kids, i), lines);
}

static void expect_plan_info(const cs_phys_node *n)
{
    cs_sbuf info = {0}, text = {0};
    cs_phys_plan_info(n, &info);
    cs_phys_explain(n, &text);
    json_t *root = json_loads(info.data, 0, NULL), *lines = json_array();
    assert_non_null(root);
    collect_info(root, lines);
    size_t i = 0;
    for (char *line = strtok(text.data, "\n"); line; line = strtok(NULL, "\n"), i++) {
        while (*line == ' ' || *line == ':' || *line == '+' || *line == '-')
            line++;
        assert_true(i < json_array_size(lines));
        assert_string_equal(json_string_value(json_array_get(lines, i)), line);
    }
    assert_int_equal(i, json_array_size(lines));
    json_decref(lines);
    json_decref(root);
    cs_sbuf_free(&info);
    cs_sbuf_free(&text);
}

static cs_pexpr *typed_col(int i, cs_type_id t)
{
    return cs_pexpr_column(i, T(t), true);
}

static cs_pexpr *call(const char *fn, cs_pexpr *a, cs_pexpr *b)
{
    return cs_pexpr_call(fn, T(CS_TYPE_BOOLEAN), true, (cs_pexpr *[]){a, b}, b ? 2 : 1);
}

static cs_col_type *t_schema_full(void)
{
    cs_error err = {0};
    return t_schema(4, (const char *[]){"k", "g", "name", "x"},
                    (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_STRING),
                                      cs_col_type_decimal(12, 2, &err)});
}

static cs_phys_node *scan_t(int n_filters, cs_pexpr **filters)
{
    cs_phys_node *s = cs_phys_new(CS_PH_FILE_SCAN, t_schema_full(), 0);
    s->format = strdup("parquet");
    s->data_schema = t_schema_full();
    s->read_schema = t_schema_full();
    s->n_splits = 2;
    s->split_uri = calloc(2, sizeof(char *));
    s->split_uri[0] = strdup("file:/tmp/physspark/t/part-00000.snappy.parquet");
    s->split_uri[1] = strdup("file:/tmp/physspark/t/part-00001.snappy.parquet");
    s->split_start = calloc(2, sizeof(uint64_t));
    s->split_length = calloc(2, sizeof(uint64_t));
    s->split_file_size = calloc(2, sizeof(uint64_t));
    s->n_groups = 1;
    s->group_start = calloc(2, sizeof(int));
    s->group_start[1] = 2;
    s->n_filters = n_filters;
    s->filters = calloc((size_t)n_filters + 1, sizeof *s->filters);
    for (int i = 0; i < n_filters; i++)
        s->filters[i] = cs_pexpr_clone(filters[i]);
    return s;
}

static void test_aggregate_query(void **state)
{
    (void)state;
    /* SELECT g, sum(x), count(*) FROM t WHERE k >= 5 AND name IS NOT NULL GROUP BY g ORDER BY g */
    int64_t five = 5;
    cs_pexpr *f[3] = {
        call("isnotnull", typed_col(0, CS_TYPE_LONG), NULL),
        call(">=", typed_col(0, CS_TYPE_LONG), cs_pexpr_literal(t_longs(&five, 1, NULL))),
        call("isnotnull", typed_col(2, CS_TYPE_STRING), NULL)};
    cs_phys_node *scan = scan_t(3, f);
    cs_phys_node *filter = unary(CS_PH_FILTER, t_schema_full(), scan);
    filter->condition =
        call("and", call("and", cs_pexpr_clone(f[0]), cs_pexpr_clone(f[1])), cs_pexpr_clone(f[2]));
    for (int i = 0; i < 3; i++)
        cs_pexpr_free(f[i]);
    cs_error err = {0};
    cs_col_type *gx =
        t_schema(2, (const char *[]){"g", "x"},
                 (cs_col_type *[]){T(CS_TYPE_LONG), cs_col_type_decimal(12, 2, &err)});
    cs_phys_node *proj = unary(CS_PH_PROJECT, gx, filter);
    proj->n_exprs = 2;
    proj->exprs = calloc(2, sizeof *proj->exprs);
    proj->exprs[0] = typed_col(1, CS_TYPE_LONG);
    proj->exprs[1] = cs_pexpr_column(3, cs_col_type_decimal(12, 2, &err), true);
    cs_phys_node *child = proj;
    for (int m = 0; m < 2; m++) {
        cs_phys_node *a = unary(CS_PH_HASH_AGGREGATE, NULL, child);
        a->agg_mode = m ? CS_AGG_FINAL : CS_AGG_PARTIAL;
        a->n_group_keys = 1;
        a->group_keys = calloc(1, sizeof(int));
        a->n_aggs = 2;
        a->aggs = calloc(2, sizeof *a->aggs);
        a->aggs[0] =
            (cs_agg_spec){CS_AGG_SUM, 1, cs_col_type_decimal(12, 2, &err), false, strdup("sum(x)")};
        a->aggs[1] = (cs_agg_spec){CS_AGG_COUNT_STAR, -1, NULL, false, strdup("count(1)")};
        if (m == 0) {
            a->schema =
                t_schema(3, (const char *[]){"g", "sum", "count"},
                         (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_LONG)});
            cs_phys_node *ex = unary(CS_PH_EXCHANGE, cs_col_type_ref(a->schema), a);
            ex->id = 44;
            ex->partitioning = CS_PART_HASH;
            ex->num_partitions = 200;
            ex->n_exprs = 1;
            ex->exprs = calloc(1, sizeof *ex->exprs);
            ex->exprs[0] = typed_col(0, CS_TYPE_LONG);
            a = ex;
        } else {
            a->schema =
                t_schema(3, (const char *[]){"g", "sum(x)", "count(1)"},
                         (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_LONG)});
        }
        child = a;
    }
    cs_phys_node *ex = unary(CS_PH_EXCHANGE, cs_col_type_ref(child->schema), child);
    ex->id = 47;
    ex->partitioning = CS_PART_RANGE;
    ex->num_partitions = 200;
    ex->n_sort_keys = 1;
    ex->sort_keys = calloc(1, sizeof *ex->sort_keys);
    ex->sort_keys[0] = (cs_sort_key){0, false, true};
    cs_phys_node *sort = unary(CS_PH_SORT, cs_col_type_ref(child->schema), ex);
    sort->global = true;
    sort->n_sort_keys = 1;
    sort->sort_keys = calloc(1, sizeof *sort->sort_keys);
    sort->sort_keys[0] = (cs_sort_key){0, false, true};
    expect_explain(
        sort,
        "Sort [g#6L ASC NULLS FIRST], true, 0\n"
        "+- Exchange rangepartitioning(g#6L ASC NULLS FIRST, 200), ENSURE_REQUIREMENTS, "
        "[plan_id=47]\n"
        "   +- HashAggregate(keys=[g#6L], functions=[sum(x#8), count(1)])\n"
        "      +- Exchange hashpartitioning(g#6L, 200), ENSURE_REQUIREMENTS, [plan_id=44]\n"
        "         +- HashAggregate(keys=[g#6L], functions=[partial_sum(x#8), partial_count(1)])\n"
        "            +- Project [g#6L, x#8]\n"
        "               +- Filter ((isnotnull(k#5L) AND (k#5L >= 5)) AND isnotnull(name#7))\n"
        "                  +- FileScan parquet [k#5L,g#6L,name#7,x#8] Batched: true, "
        "DataFilters: [isnotnull(k#5L), (k#5L >= 5), isnotnull(name#7)], Format: Parquet, "
        "Location: InMemoryFileIndex(1 paths)[file:/tmp/physspark/t], PartitionFilters: [], "
        "PushedFilters: [IsNotNull(k), GreaterThanOrEqual(k,5), IsNotNull(name)], ReadSchema: "
        "struct<k:bigint,g:bigint,name:string,x:decimal(12,2)>\n");
    expect_plan_info(sort);
    cs_phys_free(sort);
}

static void test_broadcast_joins_and_leaves(void **state)
{
    (void)state;
    /* SELECT * FROM t JOIN u ON t.k = u.k2 AND t.g < u.w */
    cs_pexpr *f[2] = {call("isnotnull", typed_col(0, CS_TYPE_LONG), NULL),
                      call("isnotnull", typed_col(1, CS_TYPE_LONG), NULL)};
    cs_phys_node *filter = unary(CS_PH_FILTER, t_schema_full(), scan_t(2, f));
    filter->condition = call("and", f[0], f[1]);
    cs_col_field idf = {"id", T(CS_TYPE_LONG), false};
    cs_phys_node *range = cs_phys_new(CS_PH_RANGE, cs_col_type_struct(&idf, 1), 0);
    range->range_end = 10;
    range->range_step = 1;
    range->num_slices = 1;
    cs_col_field uf[2] = {{"k2", T(CS_TYPE_LONG), false}, {"w", T(CS_TYPE_LONG), false}};
    cs_phys_node *proj = unary(CS_PH_PROJECT, cs_col_type_struct(uf, 2), range);
    proj->n_exprs = 2;
    proj->exprs = calloc(2, sizeof *proj->exprs);
    proj->exprs[0] = cs_pexpr_column(0, T(CS_TYPE_LONG), false);
    int64_t two = 2;
    proj->exprs[1] = cs_pexpr_call("*", T(CS_TYPE_LONG), false,
                                   (cs_pexpr *[]){cs_pexpr_column(0, T(CS_TYPE_LONG), false),
                                                  cs_pexpr_literal(t_longs(&two, 1, NULL))},
                                   2);
    cs_phys_node *bx = unary(CS_PH_BROADCAST_EXCHANGE, cs_col_type_ref(proj->schema), proj);
    bx->id = 70;
    cs_phys_node *j = cs_phys_new(CS_PH_HASH_JOIN, NULL, 2);
    j->children[0] = filter;
    j->children[1] = bx;
    j->broadcast = true;
    j->join_type = CS_HJ_INNER;
    j->build_side = CS_BUILD_RIGHT;
    j->n_join_keys = 1;
    j->left_keys = calloc(1, sizeof(int));
    j->right_keys = calloc(1, sizeof(int));
    j->join_condition = call("<", typed_col(1, CS_TYPE_LONG), typed_col(5, CS_TYPE_LONG));
    expect_explain(
        j, "BroadcastHashJoin [k#5L], [k2#10L], Inner, BuildRight, (g#6L < w#11L), false\n"
           ":- Filter (isnotnull(k#5L) AND isnotnull(g#6L))\n"
           ":  +- FileScan parquet [k#5L,g#6L,name#7,x#8] Batched: true, DataFilters: "
           "[isnotnull(k#5L), isnotnull(g#6L)], Format: Parquet, Location: InMemoryFileIndex(1 "
           "paths)[file:/tmp/physspark/t], PartitionFilters: [], PushedFilters: [IsNotNull(k), "
           "IsNotNull(g)], ReadSchema: struct<k:bigint,g:bigint,name:string,x:decimal(12,2)>\n"
           "+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, false]),false), "
           "[plan_id=70]\n"
           "   +- Project [id#9L AS k2#10L, (id#9L * 2) AS w#11L]\n"
           "      +- Range (0, 10, step=1, splits=1)\n");
    /* the same as a nested loop join: SELECT * FROM t, u WHERE t.k < u.k2 */
    j->kind = CS_PH_NESTED_LOOP_JOIN;
    cs_pexpr_free(j->join_condition);
    j->join_condition = call("<", typed_col(0, CS_TYPE_LONG), typed_col(4, CS_TYPE_LONG));
    cs_sbuf sb = {0};
    cs_phys_explain(j, &sb);
    char *first = strtok(sb.data, "\n");
    assert_string_equal(first, "BroadcastNestedLoopJoin BuildRight, Inner, (k < k2)");
    cs_sbuf_free(&sb);
    cs_phys_free(j);

    /* SELECT k, name FROM t ORDER BY k DESC LIMIT 5 OFFSET 2 (the top-N node alone) */
    cs_phys_node *top = unary(CS_PH_TOP_N,
                              t_schema(2, (const char *[]){"k", "name"},
                                       (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_STRING)}),
                              scan_t(0, NULL));
    top->limit = 5;
    top->offset = 2;
    top->n_sort_keys = 1;
    top->sort_keys = calloc(1, sizeof *top->sort_keys);
    top->sort_keys[0] = (cs_sort_key){0, true, false};
    sb = (cs_sbuf){0};
    cs_phys_explain(top, &sb);
    first = strtok(sb.data, "\n");
    assert_string_equal(first, "TakeOrderedAndProject(limit=7, offset=2, orderBy=[k DESC NULLS "
                               "LAST], output=[k,name])");
    cs_sbuf_free(&sb);
    cs_phys_free(top);

    /* Filter k IN (1,2,3) and its pushed In(k, [1,2,3]); RoundRobin exchange */
    int64_t v[3] = {1, 2, 3};
    cs_pexpr *in = cs_pexpr_in(typed_col(0, CS_TYPE_LONG),
                               (cs_pexpr *[]){cs_pexpr_literal(t_longs(&v[0], 1, NULL)),
                                              cs_pexpr_literal(t_longs(&v[1], 1, NULL)),
                                              cs_pexpr_literal(t_longs(&v[2], 1, NULL))},
                               3);
    cs_phys_node *fl = unary(CS_PH_FILTER, t_schema_full(), scan_t(1, &in));
    fl->condition = in;
    cs_phys_node *rr = unary(CS_PH_EXCHANGE, t_schema_full(), fl);
    rr->id = 157;
    rr->partitioning = CS_PART_ROUND_ROBIN;
    rr->num_partitions = 3;
    rr->shuffle_origin = CS_ORIGIN_REPARTITION_BY_NUM; /* the planner sets it (repartition(3)) */
    sb = (cs_sbuf){0};
    cs_phys_explain(rr, &sb);
    assert_non_null(strstr(sb.data, "Exchange RoundRobinPartitioning(3), REPARTITION_BY_NUM, "
                                    "[plan_id=157]\n+- Filter k IN (1,2,3)\n"));
    assert_non_null(strstr(sb.data, "PushedFilters: [In(k, [1,2,3])]"));
    cs_sbuf_free(&sb);
    cs_phys_free(rr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aggregate_query),
        cmocka_unit_test(test_broadcast_joins_and_leaves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
