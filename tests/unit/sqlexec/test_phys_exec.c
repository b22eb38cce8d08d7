/*
 * test_phys_exec.c — the SQL_EXEC kind (src/plan/kinds/sql_exec.c) run by the task runner
 * (cs_task_run) after a trip through the stage plan codec, as an executor gets it:
 *   stage 1: RANGE(0, 100, 2 slices) -> Project(k = id % 3, v = id) -> partial HashAggregate ->
 *            Exchange hashpartitioning(k, 3): a shuffle map stage whose dependency uses the
 *            PART_PASSTHROUGH partitioner (rows land in the partition the exchange gave them);
 *   stage 2: AQEShuffleRead -> final HashAggregate: collected, decoded, the grouped sums checked
 *            (each key in the reduce partition Spark's pmod(hash(k), 3) names);
 * a lost map output fails the reduce task as FETCH_FAILED naming the shuffle and map (so the
 * scheduler resubmits the map stage); a node reading a narrow parent's batches (PARENT_READ);
 * and a stage plan whose SQL tree reads more shuffles than the node has refused with CS_EPROTO.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "common/fsutil.h"
#include "exec/task.h"
#include "phys_test_util.h"
#include "plan/stage_plan.h"

static char g_dir[] = "/tmp/cs_phys_exec_XXXXXX";
static exec_env g_env;
static lineage_graph g_graph;

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(g_dir)) return -1;
    cs_lineage_init(&g_graph);
    g_env = (exec_env){.executor_id = "exec-1",
                       .host = "localhost",
                       .local_dir = g_dir,
                       .task_memory_budget = 64 << 20,
                       .blocks = cs_shuffle_local_source(g_dir)};
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cs_lineage_free(&g_graph);
    cs_remove_tree(g_dir);
    return 0;
}

/* RANGE(0, 100, 2 slices) -> Project(k = id % 3, v = id) */
static cs_phys_node *range_kv(void)
{
    cs_col_field idf = {"id", T(CS_TYPE_LONG), false};
    cs_phys_node *range = cs_phys_new(CS_PH_RANGE, cs_col_type_struct(&idf, 1), 0);
    range->range_end = 100;
    range->range_step = 1;
    range->num_slices = 2;
    cs_phys_node *proj = unary(CS_PH_PROJECT, kv_schema(), range);
    proj->n_exprs = 2;
    proj->exprs = calloc(2, sizeof *proj->exprs);
    int64_t three = 3;
    proj->exprs[0] = cs_pexpr_call("%", T(CS_TYPE_LONG), false,
                                   (cs_pexpr *[]){cs_pexpr_column(0, T(CS_TYPE_LONG), false),
                                                  cs_pexpr_literal(t_longs(&three, 1, NULL))},
                                   2);
    proj->exprs[1] = cs_pexpr_column(0, T(CS_TYPE_LONG), false);
    return proj;
}

static cspark_rdd *sql_node(const cs_phys_node *tree, int partitions)
{
    cs_sbuf plan = {0};
    cs_error err = {0};
    assert_int_equal(cs_phys_encode(tree, &plan, &err), CS_OK);
    cspark_rdd *r = cs_rdd_sql_exec_new(&g_graph, (const uint8_t *)plan.data, plan.len, partitions,
                                        "sql at test");
    cs_sbuf_free(&plan);
    return r;
}

/* The stage through the wire codec (as an executor decodes it). */
static stage_plan *roundtrip(cspark_rdd *root, const task_sink *sink, const shuffle_input *in,
                             int nin, cs_error *err)
{
    Cspark__StagePlan *pb = cs_stage_plan_encode(root, sink, in, nin, err);
    if (!pb) fail_msg("encode: %s", err->msg);
    size_t len = cspark__stage_plan__get_packed_size(pb);
    uint8_t *buf = malloc(len);
    cspark__stage_plan__pack(pb, buf);
    cs_stage_plan_pb_free(pb);
    Cspark__StagePlan *u = cspark__stage_plan__unpack(NULL, len, buf);
    free(buf);
    assert_non_null(u);
    stage_plan *p = NULL;
    int rc = cs_stage_plan_decode(u, NULL, &p, err);
    cspark__stage_plan__free_unpacked(u, NULL);
    return rc == 0 ? p : NULL;
}

static void run_task(const stage_plan *p, int partition, task_result *res)
{
    static int64_t task_id = 1;
    task_desc t = {.task_id = task_id++,
                   .partition = partition,
                   .rdd = p->root,
                   .sink = &p->sink,
                   .inputs = p->inputs,
                   .num_inputs = p->num_inputs};
    cs_task_result_init(res);
    cs_task_run(&g_env, &t, res);
}

/* The rows of collected records (empty keys, values encoded batches of schema). */
static void rows_of_records(const cs_batch *recs, const cs_col_type *schema, t_rows *rows)
{
    for (size_t i = 0; i < recs->n; i++) {
        cspark_record r = batch_get(recs, i);
        assert_int_equal(r.key.len, 0);
        cs_col_batch *b = NULL;
        cs_error err = {0};
        if (cs_sql_batch_decode(schema, r.value.ptr, r.value.len, NULL, &b, &err))
            fail_msg("decode: %s", err.msg);
        t_rows_of_batch(rows, b);
        cs_col_batch_unref(b);
    }
}

static void test_two_stage_aggregate(void **state)
{
    (void)state;
    /* stage 1: the map side */
    cs_phys_node *ex = unary(CS_PH_EXCHANGE, kv_schema(), sum_by_k(CS_AGG_PARTIAL, range_kv()));
    ex->partitioning = CS_PART_HASH;
    ex->num_partitions = 3;
    ex->n_exprs = 1;
    ex->exprs = calloc(1, sizeof *ex->exprs);
    ex->exprs[0] = cs_pexpr_column(0, T(CS_TYPE_LONG), true);
    cspark_rdd *map = sql_node(ex, 2);
    shuffle_dep *dep = cs_shuffle_dep_new(&g_graph, map);
    dep->shuffle_id = 5;
    dep->partitioner = (cs_partitioner){.kind = PART_PASSTHROUGH, .num_partitions = 3};
    task_sink sink = {.kind = SINK_SHUFFLE, .dep = dep};
    cs_error err = {0};
    stage_plan *p1 = roundtrip(map, &sink, NULL, 0, &err);
    if (!p1) fail_msg("decode: %s", err.msg);
    static cs_map_status statuses[2];
    const cs_map_status *maps[2];
    int64_t records = 0;
    for (int m = 0; m < 2; m++) {
        task_result res;
        run_task(p1, m, &res);
        if (res.status != TASK_OK) fail_msg("map task %d: %s", m, res.error);
        assert_true(res.has_map_status);
        statuses[m] = res.map_status;
        res.has_map_status = false;
        maps[m] = &statuses[m];
        records += statuses[m].records_written;
        cs_task_result_free(&res);
    }
    assert_true(records >= 3 && records <= 6); /* one record per non-empty (map, reduce) pair */
    cs_stage_plan_free(p1);

    /* stage 2: the reduce side */
    cs_phys_node *read = cs_phys_new(CS_PH_SHUFFLE_READ, kv_schema(), 0);
    read->input = 0;
    cs_phys_node *final = sum_by_k(CS_AGG_FINAL, read);
    cspark_rdd *reduce = sql_node(final, 3);
    reduce->deps[reduce->num_deps++] = dep;
    shuffle_input in = {.shuffle_id = 5, .maps = maps, .num_maps = 2};
    task_sink collect = {.kind = SINK_COLLECT};
    stage_plan *p2 = roundtrip(reduce, &collect, &in, 1, &err);
    if (!p2) fail_msg("decode: %s", err.msg);
    t_rows all = {0};
    cs_col_type *schema = kv_schema();
    for (int part = 0; part < 3; part++) {
        task_result res;
        run_task(p2, part, &res);
        if (res.status != TASK_OK) fail_msg("reduce task %d: %s", part, res.error);
        t_rows rows = {0};
        rows_of_records(&res.data, schema, &rows);
        /* every key sits in the partition its hash names: pmod(hash(k), 3) */
        for (int64_t i = 0; i < rows.n; i++) {
            int64_t k = atoll(rows.row[i]);
            cs_col_batch *kb =
                t_batch(schema, (cs_column *[]){t_longs(&k, 1, NULL), t_longs(&k, 1, NULL)}, 1);
            cs_exchange_partitioner *pt = cs_exchange_partitioner_new(ex, 0, NULL, &err);
            int32_t want;
            cs_sql_exec_ctx ctx = t_ctx();
            assert_int_equal(cs_exchange_partition(pt, kb, &ctx, &want, &err), CS_OK);
            assert_int_equal(want, part);
            cs_exchange_partitioner_free(pt);
            cs_col_batch_unref(kb);
            t_rows_add(&all, rows.row[i]);
        }
        assert_true(res.metrics.shuffle_records_read > 0 || rows.n == 0);
        t_rows_free(&rows);
        cs_task_result_free(&res);
    }
    t_rows_sort(&all);
    /* sum of ids 0..99 by id % 3 */
    assert_int_equal(all.n, 3);
    assert_string_equal(all.row[0], "0|1683");
    assert_string_equal(all.row[1], "1|1617");
    assert_string_equal(all.row[2], "2|1650");
    t_rows_free(&all);

    /* a lost map output: FETCH_FAILED naming the shuffle and the map */
    const cs_map_status *lost[2] = {maps[0], NULL};
    shuffle_input in_lost = {.shuffle_id = 5, .maps = lost, .num_maps = 2};
    task_desc t = {.task_id = 99,
                   .partition = 0,
                   .rdd = p2->root,
                   .sink = &p2->sink,
                   .inputs = &in_lost,
                   .num_inputs = 1};
    task_result res;
    cs_task_result_init(&res);
    cs_task_run(&g_env, &t, &res);
    assert_int_equal(res.status, TASK_FETCH_FAILED);
    assert_int_equal(res.fetch_shuffle_id, 5);
    assert_int_equal(res.fetch_map_id, 1);
    cs_task_result_free(&res);

    cs_stage_plan_free(p2);
    cs_col_type_unref(schema);
    for (int m = 0; m < 2; m++)
        cs_map_status_free(&statuses[m]);
    cs_phys_free(ex);
    cs_phys_free(final);
}

static void test_parent_read_and_bad_inputs(void **state)
{
    (void)state;
    /* node a computes range_kv's rows; node b reads them narrowly and keeps v >= 95 */
    cs_phys_node *ta = range_kv();
    cspark_rdd *a = sql_node(ta, 2);
    cs_phys_node *read = cs_phys_new(CS_PH_PARENT_READ, kv_schema(), 0);
    read->input = 0;
    cs_phys_node *f = unary(CS_PH_FILTER, kv_schema(), read);
    int64_t lim = 95;
    f->condition = cs_pexpr_call(">=", T(CS_TYPE_BOOLEAN), true,
                                 (cs_pexpr *[]){cs_pexpr_column(1, T(CS_TYPE_LONG), true),
                                                cs_pexpr_literal(t_longs(&lim, 1, NULL))},
                                 2);
    cspark_rdd *b = sql_node(f, 2);
    b->parents[b->num_parents++] = a;
    task_sink collect = {.kind = SINK_COLLECT};
    cs_error err = {0};
    stage_plan *p = roundtrip(b, &collect, NULL, 0, &err);
    if (!p) fail_msg("decode: %s", err.msg);
    task_result res;
    run_task(p, 1, &res);
    if (res.status != TASK_OK) fail_msg("task: %s", res.error);
    t_rows rows = {0};
    cs_col_type *schema = kv_schema();
    rows_of_records(&res.data, schema, &rows);
    assert_int_equal(rows.n, 5);
    assert_string_equal(rows.row[0], "2|95");
    assert_string_equal(rows.row[4], "0|99");
    t_rows_free(&rows);
    cs_task_result_free(&res);
    cs_stage_plan_free(p);

    /* a tree reading a shuffle the node does not have */
    cs_phys_node *sr = cs_phys_new(CS_PH_SHUFFLE_READ, kv_schema(), 0);
    sr->input = 0;
    cspark_rdd *c = sql_node(sr, 1);
    p = roundtrip(c, &collect, NULL, 0, &err);
    assert_null(p);
    assert_int_equal(err.code, CS_EPROTO);
    assert_non_null(strstr(err.msg, "its plan reads 1 shuffles, 0 parents and 0 broadcasts"));
    /* and a plan that is no plan */
    cspark_rdd *d = cs_rdd_sql_exec_new(&g_graph, (const uint8_t *)"\xff\xff", 2, 1, "bad");
    p = roundtrip(d, &collect, NULL, 0, &err);
    assert_null(p);
    assert_int_equal(err.code, CS_EPROTO);
    cs_col_type_unref(schema);
    cs_phys_free(sr);
    cs_phys_free(ta);
    cs_phys_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_stage_aggregate),
        cmocka_unit_test(test_parent_read_and_bad_inputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
