/*
 * test_phys_codec.c — src/sqlexec/phys_codec.c: a tree using every node kind's fields (a file
 * scan with pushed filters and partition values, local batches, range, filter, project, two-phase
 * aggregate, sort, expand, window, generate, exchange, hash join with its condition, union,
 * limit) encodes, decodes and encodes again to the same bytes, and a decoded tree runs to the
 * same rows as the original; a bad plan (unknown kind, an ordinal outside its input, a child
 * missing, file groups beyond the splits, a literal of another type, truncated bytes) is one
 * CS_EPROTO line naming the node. An ArrowEvalPython node (Python UDFs) keeps its pickled command,
 * eval type and arguments. A filter whose condition is a higher-order function, its lambda reading
 * a column of the input and its variable (numbered after the input's columns), round-trips and
 * runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cspark.pb-c.h"

#include "phys_test_util.h"

/* SELECT k, sum(v) FROM local WHERE v > 4 GROUP BY k, as partial + final aggregates. */
static cs_phys_node *agg_tree(void)
{
    cs_phys_node *f = unary(CS_PH_FILTER, kv_schema(), local_kv_named("k", "v", 12, 3, 0));
    f->condition = call2(">", col(1), lit(4));
    return sum_by_k(CS_AGG_FINAL, sum_by_k(CS_AGG_PARTIAL, f));
}

/* A tree with every kind's fields set (not meant to run as a whole). */
static cs_phys_node *everything_tree(void)
{
    cs_error err = {0};
    /* FILE_SCAN with partition values and filters */
    cs_col_type *data = t_schema(2, (const char *[]){"id", "name"},
                                 (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_STRING)});
    cs_col_type *parts = t_schema(1, (const char *[]){"day"}, (cs_col_type *[]){T(CS_TYPE_DATE)});
    cs_col_type *out =
        t_schema(3, (const char *[]){"id", "name", "day"},
                 (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_STRING), T(CS_TYPE_DATE)});
    cs_phys_node *scan = cs_phys_new(CS_PH_FILE_SCAN, out, 0);
    scan->id = 7;
    scan->format = strdup("parquet");
    scan->n_options = 1;
    scan->option_keys = calloc(1, sizeof(char *));
    scan->option_values = calloc(1, sizeof(char *));
    scan->option_keys[0] = strdup("mergeSchema");
    scan->option_values[0] = strdup("false");
    scan->data_schema = cs_col_type_ref(data);
    scan->read_schema = data;
    int32_t days[2] = {19000, 19001};
    scan->partition_values =
        t_batch(parts, (cs_column *[]){t_fixed(T(CS_TYPE_DATE), days, 2, NULL)}, 2);
    cs_col_type_unref(parts);
    scan->n_splits = 3;
    scan->split_uri = calloc(3, sizeof(char *));
    scan->split_start = calloc(3, sizeof(uint64_t));
    scan->split_length = calloc(3, sizeof(uint64_t));
    scan->split_file_size = calloc(3, sizeof(uint64_t));
    scan->split_partition = calloc(3, sizeof(int));
    for (int i = 0; i < 3; i++) {
        scan->split_uri[i] = strdup(i < 2 ? "file:/data/t/day=2022-01-08/a.parquet"
                                          : "file:/data/t/day=2022-01-09/b.parquet");
        scan->split_start[i] = i == 1 ? 100 : 0;
        scan->split_length[i] = 100;
        scan->split_file_size[i] = i < 2 ? 200 : 100;
        scan->split_partition[i] = i < 2 ? 0 : 1;
    }
    scan->n_groups = 2;
    scan->group_start = calloc(3, sizeof(int));
    scan->group_start[1] = 2;
    scan->group_start[2] = 3;
    scan->table_name = strdup("spark_catalog.default.t");
    scan->n_filters = 2;
    scan->filters = calloc(2, sizeof *scan->filters);
    scan->filters[0] = call2(">=", col(0), lit(3));
    const char *s = "x";
    scan->filters[1] = cs_pexpr_in(cs_pexpr_column(1, T(CS_TYPE_STRING), true),
                                   (cs_pexpr *[]){cs_pexpr_literal(t_strings(&s, 1))}, 1);
    /* PROJECT with a cast and a case over the scan: (id, CAST(id AS DOUBLE)) */
    cs_col_type *ps = t_schema(2, (const char *[]){"k", "v"},
                               (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG)});
    cs_phys_node *proj = unary(CS_PH_PROJECT, ps, scan);
    proj->n_exprs = 2;
    proj->exprs = calloc(2, sizeof *proj->exprs);
    proj->exprs[0] = col(0);
    proj->exprs[1] =
        cs_pexpr_case(T(CS_TYPE_LONG), true,
                      (cs_pexpr *[]){call2("=", col(0), lit(1)),
                                     cs_pexpr_cast(cs_pexpr_column(2, T(CS_TYPE_DATE), true),
                                                   T(CS_TYPE_LONG), CS_CAST_TRY),
                                     lit(0)},
                      3, true);
    /* EXPAND (grouping sets) then SORT, WINDOW, GENERATE-free chain, TOP_N, LIMIT */
    cs_col_type *es =
        t_schema(3, (const char *[]){"k", "v", "spark_grouping_id"},
                 (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_LONG)});
    cs_phys_node *ex = unary(CS_PH_EXPAND, es, proj);
    ex->n_projections = 2;
    ex->n_out = 2;
    ex->projections = calloc(4, sizeof(int));
    ex->projections[1] = 1;
    ex->projections[2] = CS_EXPAND_NULL;
    ex->projections[3] = 1;
    ex->grouping_ids = calloc(2, sizeof(int64_t));
    ex->grouping_ids[1] = 1;
    cs_phys_node *sort = unary(CS_PH_SORT, cs_col_type_ref(es), ex);
    sort->global = true;
    sort->n_sort_keys = 2;
    sort->sort_keys = calloc(2, sizeof *sort->sort_keys);
    sort->sort_keys[0] = (cs_sort_key){0, false, true};
    sort->sort_keys[1] = (cs_sort_key){1, true, false};
    cs_col_type *ws = t_schema(
        4, (const char *[]){"k", "v", "g", "rn"},
        (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_INT)});
    cs_phys_node *win = unary(CS_PH_WINDOW, ws, sort);
    win->n_partition_keys = 1;
    win->partition_keys = calloc(1, sizeof(int));
    win->n_order_keys = 1;
    win->order_keys = calloc(1, sizeof *win->order_keys);
    win->order_keys[0] = (cs_sort_key){1, true, false};
    win->n_window_fns = 2;
    win->window_fns = calloc(2, sizeof *win->window_fns);
    int64_t dflt = -1;
    win->window_fns[0] = (cs_window_fn){.kind = CS_WIN_LAG,
                                        .input = 1,
                                        .offset = 2,
                                        .default_value = t_longs(&dflt, 1, NULL),
                                        .type = T(CS_TYPE_LONG),
                                        .name = strdup("lag")};
    win->window_fns[1] =
        (cs_window_fn){.kind = CS_WIN_AGGREGATE,
                       .input = -1,
                       .agg = {CS_AGG_SUM, 1, T(CS_TYPE_LONG), false, strdup("sum")},
                       .frame = {false, CS_WB_OFFSET, CS_WB_CURRENT_ROW, -2, 0, NULL, NULL},
                       .type = T(CS_TYPE_LONG),
                       .name = strdup("s")};
    cs_phys_node *top = unary(CS_PH_TOP_N, cs_col_type_ref(ws), win);
    top->limit = 10;
    top->offset = 2;
    top->n_sort_keys = 1;
    top->sort_keys = calloc(1, sizeof *top->sort_keys);
    top->sort_keys[0] = (cs_sort_key){3, false, true};
    /* the other side: RANGE -> GENERATE(stack) ; joined on k with a condition */
    cs_col_field idf = {"id", T(CS_TYPE_LONG), false};
    cs_phys_node *range = cs_phys_new(CS_PH_RANGE, cs_col_type_struct(&idf, 1), 0);
    range->range_start = 5;
    range->range_end = -5;
    range->range_step = -2;
    range->num_slices = 3;
    cs_col_type *gs = t_schema(2, (const char *[]){"id", "col0"},
                               (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG)});
    cs_phys_node *gen = unary(CS_PH_GENERATE, gs, range);
    gen->generator = CS_GEN_STACK;
    gen->n_generator_args = 1;
    gen->generator_args = calloc(1, sizeof(int));
    gen->stack_rows = 1;
    gen->generator_outer = true;
    gen->generator_pruned = true; /* keeps the input's id (ColumnPruning's required output) */
    gen->n_generator_keep = 1;
    gen->generator_keep = calloc(1, sizeof(int));
    cs_col_type *js = cs_col_type_ref(ws); /* the schemas of joins are not checked here */
    cs_phys_node *join = cs_phys_new(CS_PH_HASH_JOIN, js, 2);
    join->children[0] = top;
    join->children[1] = gen;
    join->join_type = CS_HJ_LEFT_OUTER;
    join->build_side = CS_BUILD_RIGHT;
    join->broadcast = true;
    join->n_join_keys = 1;
    join->left_keys = calloc(1, sizeof(int));
    join->right_keys = calloc(1, sizeof(int));
    join->join_condition = call2("<", col(1), col(5));
    /* UNION with the aggregate tree, LIMIT, then the EXCHANGE at the root */
    cs_phys_node *u = cs_phys_new(CS_PH_UNION, cs_col_type_ref(ws), 2);
    u->children[0] = join;
    u->children[1] = cs_phys_new(CS_PH_SHUFFLE_READ, cs_col_type_ref(ws), 0);
    u->children[1]->input = 1;
    cs_phys_node *lim = unary(CS_PH_LIMIT, cs_col_type_ref(ws), u);
    lim->limit = 100;
    cs_phys_node *xch = unary(CS_PH_EXCHANGE, cs_col_type_ref(ws), lim);
    xch->partitioning = CS_PART_HASH;
    xch->num_partitions = 200;
    xch->n_exprs = 1;
    xch->exprs = calloc(1, sizeof *xch->exprs);
    xch->exprs[0] = col(0);
    (void)err;
    return xch;
}

static void encode(const cs_phys_node *n, cs_sbuf *out)
{
    cs_error err = {0};
    out->len = 0;
    if (cs_phys_encode(n, out, &err)) fail_msg("encode: %s", err.msg);
}

static void test_round_trip_every_kind(void **state)
{
    (void)state;
    cs_phys_node *tree = everything_tree();
    cs_sbuf a = {0}, b = {0};
    encode(tree, &a);
    cs_error err = {0};
    cs_phys_node *back = cs_phys_decode((const uint8_t *)a.data, a.len, &err);
    if (!back) fail_msg("decode: %s", err.msg);
    encode(back, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    /* a few fields by hand */
    const cs_phys_node *scan = back;
    while (scan->n_children)
        scan = scan->children[0];
    assert_int_equal(scan->kind, CS_PH_FILE_SCAN);
    assert_int_equal(scan->id, 7);
    assert_string_equal(scan->split_uri[2], "file:/data/t/day=2022-01-09/b.parquet");
    assert_int_equal(scan->partition_values->num_rows, 2);
    assert_int_equal(scan->filters[1]->kind, CS_PX_IN);
    cs_phys_free(back);
    cs_phys_free(tree);
    cs_sbuf_free(&a);
    cs_sbuf_free(&b);
}

static void test_decoded_tree_runs(void **state)
{
    (void)state;
    cs_phys_node *tree = agg_tree();
    cs_sbuf a = {0};
    encode(tree, &a);
    cs_error err = {0};
    cs_phys_node *back = cs_phys_decode((const uint8_t *)a.data, a.len, &err);
    assert_non_null(back);
    cs_phys_inputs in = {0};
    cs_sql_op *op = cs_phys_build(back, &in, &err);
    assert_non_null(op);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    t_rows_sort(&r);
    /* v = 5..11, k = v % 3: 0 -> 6 + 9 = 15, 1 -> 7 + 10 = 17, 2 -> 5 + 8 + 11 = 24 */
    assert_int_equal(r.n, 3);
    assert_string_equal(r.row[0], "0|15");
    assert_string_equal(r.row[1], "1|17");
    assert_string_equal(r.row[2], "2|24");
    t_rows_free(&r);
    cs_sql_op_free(op);
    cs_phys_free(back);
    cs_phys_free(tree);
    cs_sbuf_free(&a);
}

/* Encodes tree, lets mutate change the message, and expects the decoder's error. */
static void expect_bad(cs_phys_node *tree, void (*mutate)(Cspark__SqlPlan *), const char *want)
{
    cs_sbuf a = {0};
    encode(tree, &a);
    Cspark__SqlPlan *pb = cspark__sql_plan__unpack(NULL, a.len, (const uint8_t *)a.data);
    assert_non_null(pb);
    mutate(pb);
    size_t len = cspark__sql_plan__get_packed_size(pb);
    uint8_t *buf = malloc(len + 1);
    cspark__sql_plan__pack(pb, buf);
    cspark__sql_plan__free_unpacked(pb, NULL);
    cs_error err = {0};
    cs_phys_node *back = cs_phys_decode(buf, len, &err);
    if (back) fail_msg("decoded a bad plan (want: %s)", want);
    assert_int_equal(err.code, CS_EPROTO);
    if (!strstr(err.msg, want)) fail_msg("error [%s], want [%s]", err.msg, want);
    free(buf);
    cs_sbuf_free(&a);
}

static void unknown_kind(Cspark__SqlPlan *pb)
{
    pb->root->children[0]->kind = 99;
}
static void ordinal_out_of_range(Cspark__SqlPlan *pb)
{
    pb->root->children[0]->children[0]->condition->args[0]->ordinal = 2; /* the filter's v > 4 */
}
static void column_of_other_type(Cspark__SqlPlan *pb)
{
    pb->root->children[0]->children[0]->condition->args[0]->type->id = CS_TYPE_INT;
}
static void group_key_out_of_range(Cspark__SqlPlan *pb)
{
    pb->root->group_keys[0] = -1;
}
static void child_missing(Cspark__SqlPlan *pb)
{
    cspark__sql_plan_node__free_unpacked(pb->root->children[0], NULL);
    pb->root->n_children = 0;
}
static void literal_of_other_type(Cspark__SqlPlan *pb)
{
    pb->root->children[0]->children[0]->condition->args[1]->type->id = CS_TYPE_DOUBLE;
}
static void groups_beyond_splits(Cspark__SqlPlan *pb)
{
    Cspark__SqlPlanNode *n = pb->root;
    while (n->n_children)
        n = n->children[0];
    n->group_start[2] = 4;
}
static void agg_fn_unknown(Cspark__SqlPlan *pb)
{
    pb->root->aggs[0]->fn = 77;
}

static void test_bad_plans_refused(void **state)
{
    (void)state;
    cs_phys_node *tree = agg_tree();
    expect_bad(tree, unknown_kind, "node 1 (?): unknown kind 99");
    expect_bad(tree, ordinal_out_of_range,
               "node 2 (Filter): a column 2 out of range (the input has 2 columns)");
    expect_bad(tree, column_of_other_type, "node 2 (Filter): column 1 is not of its input's type");
    expect_bad(tree, literal_of_other_type, "a literal whose value is not of its type");
    expect_bad(tree, group_key_out_of_range, "node 0 (HashAggregate): a group key -1 out of range");
    expect_bad(tree, child_missing, "node 0 (HashAggregate): 0 children");
    expect_bad(tree, agg_fn_unknown, "unknown aggregate function 77");
    cs_phys_free(tree);
    tree = everything_tree();
    expect_bad(tree, groups_beyond_splits, "(FileScan): file groups span splits 0..4 of 3");
    cs_phys_free(tree);
    /* bytes that are no SqlPlan, and truncations of a good one */
    cs_error err = {0};
    assert_null(cs_phys_decode((const uint8_t *)"\xff\xff\xff", 3, &err));
    assert_int_equal(err.code, CS_EPROTO);
    tree = agg_tree();
    cs_sbuf a = {0};
    encode(tree, &a);
    for (size_t cut = 0; cut < a.len; cut += 3) {
        cs_phys_node *n = cs_phys_decode((const uint8_t *)a.data, cut, &err);
        if (n) cs_phys_free(n); /* a cut on a field boundary may still be a valid plan */
    }
    cs_sbuf_free(&a);
    cs_phys_free(tree);
}

/* An ArrowEvalPython node (a pandas UDF f(v) over local k, v): its command (bytes with NULs),
 * eval type, interpreter and argument ordinals survive the wire form, EXPLAIN names the UDF's
 * column, and an argument outside the input is refused. */
static cs_phys_node *python_eval_tree(void)
{
    cs_col_type *out =
        t_schema(3, (const char *[]){"k", "v", "f(v)"},
                 (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_DOUBLE)});
    cs_phys_node *n = unary(CS_PH_PYTHON_EVAL, out, local_kv_named("k", "v", 12, 3, 0));
    n->py_eval_type = 200;
    n->py_python = strdup("python3");
    n->py_python_ver = strdup("3.11");
    n->n_py_udfs = 1;
    n->py_udfs = calloc(1, sizeof *n->py_udfs);
    n->py_udfs[0].command = malloc(5);
    memcpy(n->py_udfs[0].command, "\x80\x05\0\x01.", 5);
    n->py_udfs[0].command_len = 5;
    n->py_udfs[0].n_args = 1;
    n->py_udfs[0].args = calloc(1, sizeof(int));
    n->py_udfs[0].args[0] = 1;
    return n;
}

static void python_arg_out_of_range(Cspark__SqlPlan *pb)
{
    pb->root->py_udfs[0]->args[0] = 5;
}

static void test_python_eval_round_trip(void **state)
{
    (void)state;
    cs_phys_node *tree = python_eval_tree();
    cs_sbuf a = {0}, b = {0}, x = {0};
    encode(tree, &a);
    cs_error err = {0};
    cs_phys_node *back = cs_phys_decode((const uint8_t *)a.data, a.len, &err);
    if (!back) fail_msg("decode: %s", err.msg);
    encode(back, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    assert_int_equal(back->py_eval_type, 200);
    assert_string_equal(back->py_python, "python3");
    assert_string_equal(back->py_python_ver, "3.11");
    assert_int_equal(back->n_py_udfs, 1);
    assert_int_equal(back->py_udfs[0].command_len, 5);
    assert_memory_equal(back->py_udfs[0].command, "\x80\x05\0\x01.", 5);
    assert_int_equal(back->py_udfs[0].args[0], 1);
    cs_phys_explain(back, &x);
    if (!strstr(cs_sbuf_str(&x), "ArrowEvalPython [f(v)], 200"))
        fail_msg("explain: %s", cs_sbuf_str(&x));
    expect_bad(tree, python_arg_out_of_range, "a Python UDF argument");
    cs_phys_free(back);
    cs_phys_free(tree);
    cs_sbuf_free(&a);
    cs_sbuf_free(&b);
    cs_sbuf_free(&x);
}

/* A cogrouped map (eval type 206) over two local k, v relations: two children and both sides'
 * grouped offsets survive the wire form, EXPLAIN names it, and two children for a kind of one
 * (a grouped map, 201) are refused. */
static void python_grouped_two_children(Cspark__SqlPlan *pb)
{
    pb->root->py_eval_type = 201;
}

static void test_python_cogroup_round_trip(void **state)
{
    (void)state;
    cs_col_type *out = t_schema(2, (const char *[]){"k", "n"},
                                (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG)});
    cs_phys_node *tree = cs_phys_new(CS_PH_PYTHON_EVAL, out, 2);
    tree->children[0] = local_kv_named("k", "v", 12, 3, 0);
    tree->children[1] = local_kv_named("k", "w", 12, 3, 0);
    tree->py_eval_type = 206;
    tree->py_python = strdup("python3");
    tree->py_python_ver = strdup("3.11");
    tree->n_py_udfs = 1;
    tree->py_udfs = calloc(1, sizeof *tree->py_udfs);
    tree->py_udfs[0].command = malloc(1);
    tree->py_udfs[0].command[0] = '.';
    tree->py_udfs[0].command_len = 1;
    static const int args[] = {4, 1, 0, 0, 1, 4, 1, 0, 0, 1};
    tree->py_udfs[0].n_args = 10;
    tree->py_udfs[0].args = calloc(10, sizeof(int));
    memcpy(tree->py_udfs[0].args, args, sizeof args);
    cs_sbuf a = {0}, b = {0}, x = {0};
    encode(tree, &a);
    cs_error err = {0};
    cs_phys_node *back = cs_phys_decode((const uint8_t *)a.data, a.len, &err);
    if (!back) fail_msg("decode: %s", err.msg);
    encode(back, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    assert_int_equal(back->n_children, 2);
    assert_int_equal(back->py_udfs[0].n_args, 10);
    assert_memory_equal(back->py_udfs[0].args, args, sizeof args);
    cs_phys_explain(back, &x);
    if (!strstr(cs_sbuf_str(&x), "FlatMapCoGroupsInPandas [k, n], 206"))
        fail_msg("explain: %s", cs_sbuf_str(&x));
    expect_bad(tree, python_grouped_two_children, "2 children for eval type 201");
    cs_phys_free(back);
    cs_phys_free(tree);
    cs_sbuf_free(&a);
    cs_sbuf_free(&b);
    cs_sbuf_free(&x);
}

/* AggregateInPandas (202) and WindowInPandas (203) over a local k, v relation: the grouping (or
 * partition) keys and a window's order keys survive the wire form (the executor cuts its groups
 * by them), EXPLAIN names the operators, and a key outside the child is refused. */
static void python_key_out_of_range(Cspark__SqlPlan *pb)
{
    pb->root->group_keys[0] = 7;
}

static cs_phys_node *python_agg_tree(int eval_type)
{
    cs_col_type *out =
        eval_type == 202
            ? t_schema(2, (const char *[]){"k", "m(v)"},
                       (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_DOUBLE)})
            : t_schema(3, (const char *[]){"k", "v", "m"},
                       (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_DOUBLE)});
    cs_phys_node *n = unary(CS_PH_PYTHON_EVAL, out, local_kv_named("k", "v", 12, 3, 0));
    n->py_eval_type = eval_type;
    n->py_python = strdup("python3");
    n->py_python_ver = strdup("3.11");
    n->n_group_keys = 1;
    n->group_keys = calloc(1, sizeof(int));
    if (eval_type == 203) {
        n->n_sort_keys = 1;
        n->sort_keys = calloc(1, sizeof *n->sort_keys);
        n->sort_keys[0] = (cs_sort_key){1, true, false};
    }
    n->n_py_udfs = 1;
    n->py_udfs = calloc(1, sizeof *n->py_udfs);
    n->py_udfs[0].command = malloc(1);
    n->py_udfs[0].command[0] = '.';
    n->py_udfs[0].command_len = 1;
    /* a window's UDF: its frame (ROWS, 1 PRECEDING to CURRENT ROW), then its argument */
    static const int window_args[] = {0, CS_WB_OFFSET, -1, CS_WB_CURRENT_ROW, 0, 1};
    n->py_udfs[0].n_args = eval_type == 203 ? 6 : 1;
    n->py_udfs[0].args = calloc(6, sizeof(int));
    if (eval_type == 203)
        memcpy(n->py_udfs[0].args, window_args, sizeof window_args);
    else
        n->py_udfs[0].args[0] = 1;
    return n;
}

static void test_python_aggregate_round_trip(void **state)
{
    (void)state;
    for (int t = 202; t <= 203; t++) {
        cs_phys_node *tree = python_agg_tree(t);
        cs_sbuf a = {0}, b = {0}, x = {0};
        encode(tree, &a);
        cs_error err = {0};
        cs_phys_node *back = cs_phys_decode((const uint8_t *)a.data, a.len, &err);
        if (!back) fail_msg("decode: %s", err.msg);
        encode(back, &b);
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.data, b.data, a.len);
        assert_int_equal(back->n_group_keys, 1);
        assert_int_equal(back->group_keys[0], 0);
        assert_int_equal(back->n_sort_keys, t == 203 ? 1 : 0);
        if (t == 203) {
            assert_int_equal(back->sort_keys[0].ordinal, 1);
            assert_true(back->sort_keys[0].descending);
            assert_int_equal(back->py_udfs[0].n_args, 6);
            assert_int_equal(back->py_udfs[0].args[2], -1);
        }
        cs_phys_explain(back, &x);
        const char *want =
            t == 202 ? "AggregateInPandas [k, m(v)], 202" : "WindowInPandas [m], 203";
        if (!strstr(cs_sbuf_str(&x), want)) fail_msg("explain: %s", cs_sbuf_str(&x));
        expect_bad(tree, python_key_out_of_range, "a grouping key");
        cs_phys_free(back);
        cs_phys_free(tree);
        cs_sbuf_free(&a);
        cs_sbuf_free(&b);
        cs_sbuf_free(&x);
    }
}

/* WHERE exists(array(1L, 2L), x -> x + v = 11) over v = 0..11 */
static cs_phys_node *lambda_filter_tree(void)
{
    cs_col_type *t = cs_col_type_array(T(CS_TYPE_LONG), true);
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    int32_t len = 2;
    int64_t el[2] = {1, 2};
    cs_col_builder_append_lists(b, &len, 1, NULL);
    cs_col_builder_append_values(cs_col_builder_child(b, 0), el, 2, NULL);
    cs_pexpr *arr = cs_pexpr_literal(cs_col_builder_finish(b));
    cs_col_builder_free(b);
    cs_col_type_unref(t);
    cs_pexpr *sum = cs_pexpr_call("+", T(CS_TYPE_LONG), true, (cs_pexpr *[]){col(2), col(1)}, 2);
    cs_pexpr *lambda = cs_pexpr_call("lambdafunction", T(CS_TYPE_BOOLEAN), true,
                                     (cs_pexpr *[]){call2("=", sum, lit(11)), col(2)}, 2);
    cs_phys_node *f = unary(CS_PH_FILTER, kv_schema(), local_kv_named("k", "v", 12, 3, 0));
    f->condition = call2("exists", arr, lambda);
    return f;
}

static void test_lambda_round_trip_runs(void **state)
{
    (void)state;
    cs_phys_node *tree = lambda_filter_tree();
    cs_sbuf a = {0}, b = {0};
    encode(tree, &a);
    cs_error err = {0};
    cs_phys_node *back = cs_phys_decode((const uint8_t *)a.data, a.len, &err);
    if (!back) fail_msg("decode: %s", err.msg);
    encode(back, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    cs_phys_inputs in = {0};
    cs_sql_op *op = cs_phys_build(back, &in, &err);
    if (!op) fail_msg("build: %s", err.msg);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    t_rows_sort(&r);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.row[0], "0|9");
    assert_string_equal(r.row[1], "1|10");
    t_rows_free(&r);
    cs_sql_op_free(op);
    cs_phys_free(back);
    cs_phys_free(tree);
    cs_sbuf_free(&a);
    cs_sbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_kind),
        cmocka_unit_test(test_decoded_tree_runs),
        cmocka_unit_test(test_bad_plans_refused),
        cmocka_unit_test(test_python_eval_round_trip),
        cmocka_unit_test(test_python_cogroup_round_trip),
        cmocka_unit_test(test_python_aggregate_round_trip),
        cmocka_unit_test(test_lambda_round_trip_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
