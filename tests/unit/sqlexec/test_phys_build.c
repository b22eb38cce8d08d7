/*
 * test_phys_build.c — cs_phys_build (src/sqlexec/phys_build.c): physical trees turned into one
 * task's operators and run: LOCAL -> FILTER -> partial and final HASH_AGGREGATE; RANGE sliced
 * as Spark's RangeExec (spark.range(10, 0, -3, 3) gives [10], [7], [4, 1]); a hash join with a
 * residual condition against a nested-loop reference; UNION, SORT, TOP_N, LIMIT, PROJECT; a
 * FILE_SCAN reading its task's file group with the translatable pushed filters handed to the
 * format; TOP_N over FILTER over FILE_SCAN with the TopN's bound pushed into the scan (row
 * groups and batches passed over, the rows unchanged); input leaves through open_input; and
 * bad trees refused with one line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "common/fsutil.h"
#include "phys_test_util.h"

/* Builds root for partition p (no inputs), runs it, frees the operators; rows sorted when asked. */
static t_rows run_tree(const cs_phys_node *root, int p, bool sorted)
{
    cs_phys_inputs in = {.partition = p};
    cs_error err = {0};
    cs_sql_op *op = cs_phys_build(root, &in, &err);
    if (!op) fail_msg("build: %s", err.msg);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    if (r.rc) fail_msg("run: %s", r.err.msg);
    cs_sql_op_free(op);
    if (sorted) t_rows_sort(&r);
    return r;
}

static void expect_rows(t_rows *r, const char *const *want, int n)
{
    assert_int_equal(r->n, n);
    for (int i = 0; i < n; i++)
        assert_string_equal(r->row[i], want[i]);
    t_rows_free(r);
}

static void test_filter_and_two_phase_aggregate(void **state)
{
    (void)state;
    /* SELECT k, sum(v) FROM t WHERE v >= 5 GROUP BY k over v = 0..19, k = v % 3 */
    cs_phys_node *filter = unary(CS_PH_FILTER, NULL, local_kv_named("k", "v", 20, 3, 0));
    filter->condition = call2(">=", col(1), lit(5));
    cs_phys_node *final = sum_by_k(CS_AGG_FINAL, sum_by_k(CS_AGG_PARTIAL, filter));
    t_rows r = run_tree(final, 0, true);
    expect_rows(&r, (const char *[]){"0|60", "1|65", "2|55"}, 3);
    /* the tree is only read: a second task builds the same operators from it */
    r = run_tree(final, 0, true);
    expect_rows(&r, (const char *[]){"0|60", "1|65", "2|55"}, 3);
    cs_phys_free(final);
}

static cs_phys_node *range_node(int64_t start, int64_t end, int64_t step, int slices)
{
    cs_col_field f = {"id", T(CS_TYPE_LONG), false};
    cs_phys_node *n = cs_phys_new(CS_PH_RANGE, cs_col_type_struct(&f, 1), 0);
    n->range_start = start;
    n->range_end = end;
    n->range_step = step;
    n->num_slices = slices;
    return n;
}

static void test_range_slices_as_spark(void **state)
{
    (void)state;
    /* spark.range(10, 0, -3, 3).rdd.glom(): [[10], [7], [4, 1]] */
    cs_phys_node *n = range_node(10, 0, -3, 3);
    t_rows r = run_tree(n, 0, false);
    expect_rows(&r, (const char *[]){"10"}, 1);
    r = run_tree(n, 1, false);
    expect_rows(&r, (const char *[]){"7"}, 1);
    r = run_tree(n, 2, false);
    expect_rows(&r, (const char *[]){"4", "1"}, 2);
    cs_phys_free(n);
    /* spark.range(0, 10, 3, 2): [[0, 3], [6, 9]]; range(5, 0, 1) is empty */
    n = range_node(0, 10, 3, 2);
    r = run_tree(n, 1, false);
    expect_rows(&r, (const char *[]){"6", "9"}, 2);
    cs_phys_free(n);
    n = range_node(5, 0, 1, 2);
    r = run_tree(n, 0, false);
    expect_rows(&r, NULL, 0);
    cs_phys_free(n);
    /* many ids in batches of batch_rows */
    n = range_node(0, 10000, 1, 1);
    r = run_tree(n, 0, false);
    assert_int_equal(r.n, 10000);
    assert_string_equal(r.row[9999], "9999");
    t_rows_free(&r);
    cs_phys_free(n);
}

static void test_hash_join_with_residual_condition(void **state)
{
    (void)state;
    /* l(k = i % 4, v = i) JOIN r(k2 = j % 4, w = 2 + j) ON k = k2 AND v < w, both sides'
     * build variants, then as a nested loop join whose condition holds both, against a
     * reference */
    for (int build = 0; build < 3; build++) {
        cs_phys_node *j = cs_phys_new(CS_PH_HASH_JOIN, NULL, 2);
        j->children[0] = local_kv_named("k", "v", 12, 4, 0);
        j->children[1] = local_kv_named("k2", "w", 8, 4, 2);
        j->join_type = CS_HJ_INNER;
        j->build_side = build ? CS_BUILD_LEFT : CS_BUILD_RIGHT;
        j->n_join_keys = 1;
        j->left_keys = calloc(1, sizeof(int));
        j->right_keys = calloc(1, sizeof(int));
        j->join_condition = call2("<", col(1), col(3));
        if (build == 2) {
            j->kind = CS_PH_NESTED_LOOP_JOIN;
            j->build_side = CS_BUILD_RIGHT;
            j->join_condition = call2("and", call2("=", col(0), col(2)), j->join_condition);
        }
        t_rows got = run_tree(j, 0, true);
        t_rows want = {0};
        for (int l = 0; l < 12; l++)
            for (int r = 0; r < 8; r++)
                if (l % 4 == r % 4 && l < 2 + r) {
                    char s[64];
                    snprintf(s, sizeof s, "%d|%d|%d|%d", l % 4, l, r % 4, 2 + r);
                    t_rows_add(&want, s);
                }
        t_rows_sort(&want);
        assert_true(want.n > 0);
        assert_true(t_rows_equal(&got, &want));
        t_rows_free(&got);
        t_rows_free(&want);
        cs_phys_free(j);
    }
}

static void test_union_sort_top_n_limit_project(void **state)
{
    (void)state;
    cs_phys_node *u = cs_phys_new(CS_PH_UNION, NULL, 2);
    u->children[0] = local_kv_named("k", "v", 5, 5, 0);
    u->children[1] = local_kv_named("k", "v", 5, 5, 10);
    /* ORDER BY v DESC LIMIT 3 OFFSET 1 */
    cs_phys_node *sort = unary(CS_PH_SORT, NULL, u);
    sort->n_sort_keys = 1;
    sort->sort_keys = calloc(1, sizeof *sort->sort_keys);
    sort->sort_keys[0] = (cs_sort_key){1, true, false};
    cs_phys_node *lim = unary(CS_PH_LIMIT, NULL, sort);
    lim->limit = 3;
    lim->offset = 1;
    /* SELECT v * 2 AS d */
    cs_col_field f = {"d", T(CS_TYPE_LONG), true};
    cs_phys_node *proj = unary(CS_PH_PROJECT, NULL, lim);
    proj->schema = cs_col_type_struct(&f, 1);
    proj->n_exprs = 1;
    proj->exprs = calloc(1, sizeof *proj->exprs);
    proj->exprs[0] = cs_pexpr_call("*", T(CS_TYPE_LONG), true, (cs_pexpr *[]){col(1), lit(2)}, 2);
    t_rows r = run_tree(proj, 0, false);
    expect_rows(&r, (const char *[]){"26", "24", "22"}, 3);
    /* the same as TOP_N */
    cs_phys_node *top = cs_phys_new(CS_PH_TOP_N, NULL, 1);
    top->children[0] = sort->children[0];
    sort->children[0] = NULL;
    sort->n_children = 0;
    top->n_sort_keys = 1;
    top->sort_keys = calloc(1, sizeof *top->sort_keys);
    top->sort_keys[0] = (cs_sort_key){1, true, false};
    top->limit = 2;
    top->offset = 1;
    r = run_tree(top, 0, false);
    expect_rows(&r, (const char *[]){"3|13", "2|12"}, 2);
    cs_phys_free(top);
    cs_phys_free(proj);
}

/* An input leaf: the batches of a LOCAL node the test keeps, checking which input is read. */
typedef struct inputs {
    cs_phys_node *local;
    int opened_input;
} inputs;

static cs_sql_op *open_input(void *arg, const cs_phys_node *leaf, cs_error *err)
{
    inputs *in = arg;
    in->opened_input = leaf->input;
    if (leaf->input != 1) return cs_error_set(err, CS_ENOTFOUND, "no input %d", leaf->input), NULL;
    return cs_sql_op_batches(cs_col_type_ref(in->local->schema), in->local->batches,
                             in->local->n_batches);
}

static void test_input_leaves_and_bad_trees(void **state)
{
    (void)state;
    inputs data = {local_kv_named("k", "v", 3, 3, 7), -1};
    cs_phys_node *read = cs_phys_new(CS_PH_SHUFFLE_READ, kv_schema_named("k", "v"), 0);
    read->input = 1;
    cs_phys_node *lim = unary(CS_PH_LIMIT, NULL, read);
    lim->limit = 2;
    cs_phys_inputs in = {.partition = 0, .open_input = open_input, .arg = &data};
    cs_error err = {0};
    cs_sql_op *op = cs_phys_build(lim, &in, &err);
    assert_non_null(op);
    assert_int_equal(data.opened_input, 1);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    cs_sql_op_free(op);
    expect_rows(&r, (const char *[]){"0|7", "1|8"}, 2);
    /* the input's error comes back */
    read->input = 4;
    assert_null(cs_phys_build(lim, &in, &err));
    assert_string_equal(err.msg, "no input 4");
    /* without open_input */
    in.open_input = NULL;
    assert_null(cs_phys_build(lim, &in, &err));
    assert_int_equal(err.code, CS_EINVAL);
    cs_phys_free(lim);
    cs_phys_free(data.local);

    /* an exchange below the root */
    cs_phys_node *ex = unary(CS_PH_EXCHANGE, NULL, local_kv_named("k", "v", 3, 3, 0));
    cs_phys_node *f = unary(CS_PH_LIMIT, NULL, ex);
    assert_null(cs_phys_build(f, &in, &err));
    assert_non_null(strstr(err.msg, "Exchange below the root"));
    cs_phys_free(f);
    /* a join condition over a column that is not there */
    cs_phys_node *j = cs_phys_new(CS_PH_HASH_JOIN, NULL, 2);
    j->children[0] = local_kv_named("k", "v", 3, 3, 0);
    j->children[1] = local_kv_named("k", "v", 3, 3, 0);
    j->n_join_keys = 1;
    j->left_keys = calloc(1, sizeof(int));
    j->right_keys = calloc(1, sizeof(int));
    j->join_condition = call2("<", col(1), col(9));
    assert_null(cs_phys_build(j, &in, &err));
    assert_non_null(strstr(err.msg, "the join condition"));
    cs_phys_free(j);
    /* a unary node without its child; a range partition out of its slices */
    cs_phys_node *lonely = cs_phys_new(CS_PH_SORT, NULL, 0);
    assert_null(cs_phys_build(lonely, &in, &err));
    assert_string_equal(err.msg, "Sort: 0 children (expected 1)");
    cs_phys_free(lonely);
    cs_phys_node *rg = range_node(0, 10, 1, 2);
    in.partition = 2;
    assert_null(cs_phys_build(rg, &in, &err));
    assert_string_equal(err.msg, "Range: partition 2 of 2 slices");
    cs_phys_free(rg);
}

/* ---- FILE_SCAN ---- */

static char dir[] = "/tmp/cs_phys_build_XXXXXX";

static cs_col_type *id_name_schema(void)
{
    return t_schema(2, (const char *[]){"id", "name"},
                    (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_STRING)});
}

/* Rows first..first+n-1 (name "n<i>") to path as Parquet; returns the file's size. */
static uint64_t write_part(const char *path, int64_t first, int64_t n)
{
    const cs_file_format *pq = cs_file_format_find("parquet");
    cs_col_type *schema = id_name_schema();
    int64_t ids[16];
    char names[16][16];
    const char *np[16];
    for (int64_t i = 0; i < n; i++) {
        ids[i] = first + i;
        snprintf(names[i], sizeof names[i], "n%lld", (long long)(first + i));
        np[i] = names[i];
    }
    cs_col_batch *b = t_batch(schema, (cs_column *[]){t_longs(ids, n, NULL), t_strings(np, n)}, n);
    cs_format_options none = {0};
    void *w = NULL;
    cs_error err = {0};
    assert_int_equal(pq->open_writer(path, schema, &none, &w, &err), 0);
    assert_int_equal(pq->write_batch(w, b, &err), 0);
    assert_int_equal(pq->close_writer(w, true, &err), 0);
    cs_col_batch_unref(b);
    cs_col_type_unref(schema);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

static cs_pexpr *str_lit(const char *s)
{
    return cs_pexpr_literal(t_strings(&s, 1));
}

static void test_file_scan_group_and_pushed_filters(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/a.parquet", dir);
    snprintf(b, sizeof b, "%s/b.parquet", dir);
    cs_phys_node *scan = cs_phys_new(CS_PH_FILE_SCAN, id_name_schema(), 0);
    scan->format = strdup("parquet");
    scan->data_schema = id_name_schema();
    scan->read_schema = id_name_schema();
    scan->n_splits = 2;
    scan->split_uri = calloc(2, sizeof(char *));
    scan->split_start = calloc(2, sizeof(uint64_t));
    scan->split_length = calloc(2, sizeof(uint64_t));
    scan->split_file_size = calloc(2, sizeof(uint64_t));
    scan->split_uri[0] = strdup(a);
    scan->split_uri[1] = strdup(b);
    scan->split_length[0] = scan->split_file_size[0] = write_part(a, 0, 10);
    scan->split_length[1] = scan->split_file_size[1] = write_part(b, 10, 10);
    scan->n_groups = 2;
    scan->group_start = calloc(3, sizeof(int));
    scan->group_start[1] = 1;
    scan->group_start[2] = 2;
    /* pushed: id >= 13, 19 > id (flipped), isnotnull(name), name IN ('n14', 'n15', 'n16');
     * not pushed: id + 1 > 3 (not a column), name = 5 (a literal of another type) */
    cs_pexpr *name = cs_pexpr_column(1, T(CS_TYPE_STRING), true);
    scan->n_filters = 6;
    scan->filters = calloc(6, sizeof *scan->filters);
    scan->filters[0] = call2(">=", col(0), lit(13));
    scan->filters[1] = call2(">", lit(19), col(0));
    scan->filters[2] = cs_pexpr_call("isnotnull", T(CS_TYPE_BOOLEAN), false,
                                     (cs_pexpr *[]){cs_pexpr_clone(name)}, 1);
    scan->filters[3] =
        cs_pexpr_in(cs_pexpr_clone(name), (cs_pexpr *[]){str_lit("n14"), str_lit("n15")}, 2);
    scan->filters[4] = call2(
        ">", cs_pexpr_call("+", T(CS_TYPE_LONG), true, (cs_pexpr *[]){col(0), lit(1)}, 2), lit(3));
    scan->filters[5] = call2("=", name, lit(5));
    cs_phys_inputs in = {.partition = 1};
    cs_error err = {0};
    cs_sql_op *op = cs_phys_build(scan, &in, &err);
    assert_non_null(op);
    cs_sbuf sb = {0};
    cs_sql_op_explain(op, &sb);
    assert_string_equal(sb.data, "FileScan parquet [id,name] Splits: 1, PushedFilters: 4\n");
    cs_sbuf_free(&sb);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx); /* the format may skip; rows are the group's (the Filter above
                                   applies the conditions) */
    cs_sql_op_free(op);
    assert_int_equal(r.rc, CS_OK);
    assert_true(r.n <= 10);
    for (int64_t i = 0; i < r.n; i++)
        assert_true(atoi(r.row[i]) >= 10);
    t_rows_free(&r);
    /* isnotnull(name) alone, pushed: every row of the group has a name, so the format must not
     * skip any (a pushed IS NULL would skip the whole row group) */
    for (int i = 0; i < scan->n_filters; i++)
        cs_pexpr_free(scan->filters[i]);
    scan->n_filters = 1;
    scan->filters[0] =
        cs_pexpr_call("isnotnull", T(CS_TYPE_BOOLEAN), false,
                      (cs_pexpr *[]){cs_pexpr_column(1, T(CS_TYPE_STRING), true)}, 1);
    op = cs_phys_build(scan, &in, &err);
    assert_non_null(op);
    r = t_run(op, &ctx);
    cs_sql_op_free(op);
    assert_int_equal(r.rc, CS_OK);
    assert_int_equal(r.n, 10);
    t_rows_free(&r);
    /* a group out of range, an unknown format */
    in.partition = 2;
    assert_null(cs_phys_build(scan, &in, &err));
    assert_string_equal(err.msg, "FileScan parquet: partition 2 of 2 file groups");
    free(scan->format);
    scan->format = strdup("orcish");
    assert_null(cs_phys_build(scan, &in, &err));
    assert_int_equal(err.code, CS_EUNSUPPORTED);
    cs_phys_free(scan);
    cs_remove_tree(dir);
}

/* ---- TOP_N over FILTER over FILE_SCAN: the TopN's bound pushed into the scan ---- */

/* 20,000 rows (k = i % 3, v = i rising, null for the last row, name "n<i>") in small row groups
 * of small pages, so that a bound on v rules later row groups out by their statistics. */
static uint64_t write_rising(const char *path)
{
    enum { N = 20000 };
    const cs_file_format *pq = cs_file_format_find("parquet");
    cs_col_type *schema =
        t_schema(3, (const char *[]){"k", "v", "name"},
                 (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_STRING)});
    int64_t *ks = calloc(N, sizeof *ks), *vs = calloc(N, sizeof *vs);
    uint8_t *valid = calloc(N, 1); /* a byte per row */
    char(*names)[16] = calloc(N, sizeof *names);
    const char **np = calloc(N, sizeof *np);
    for (int64_t i = 0; i < N; i++) {
        ks[i] = i % 3;
        vs[i] = i;
        valid[i] = i != N - 1;
        snprintf(names[i], sizeof names[i], "n%lld", (long long)i);
        np[i] = names[i];
    }
    cs_col_batch *b = t_batch(
        schema, (cs_column *[]){t_longs(ks, N, NULL), t_longs(vs, N, valid), t_strings(np, N)}, N);
    const char *keys[] = {"parquet.block.size", "parquet.page.row.count.limit"};
    const char *values[] = {"16384", "300"};
    cs_format_options small = {keys, values, 2};
    void *w = NULL;
    cs_error err = {0};
    assert_int_equal(pq->open_writer(path, schema, &small, &w, &err), 0);
    assert_int_equal(pq->write_batch(w, b, &err), 0);
    assert_int_equal(pq->close_writer(w, true, &err), 0);
    cs_col_batch_unref(b);
    cs_col_type_unref(schema);
    free(ks);
    free(vs);
    free(valid);
    free(names);
    free(np);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

/* SELECT * FROM t WHERE k = 1 ORDER BY v [DESC] LIMIT 4, as one task's tree. */
static cs_phys_node *top_n_over_scan(const char *path, uint64_t size, bool descending)
{
    cs_col_type *schema =
        t_schema(3, (const char *[]){"k", "v", "name"},
                 (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG), T(CS_TYPE_STRING)});
    cs_phys_node *scan = cs_phys_new(CS_PH_FILE_SCAN, cs_col_type_ref(schema), 0);
    scan->format = strdup("parquet");
    scan->data_schema = cs_col_type_ref(schema);
    scan->read_schema = schema;
    scan->n_splits = 1;
    scan->split_uri = calloc(1, sizeof(char *));
    scan->split_start = calloc(1, sizeof(uint64_t));
    scan->split_length = calloc(1, sizeof(uint64_t));
    scan->split_file_size = calloc(1, sizeof(uint64_t));
    scan->split_uri[0] = strdup(path);
    scan->split_length[0] = scan->split_file_size[0] = size;
    scan->n_groups = 1;
    scan->group_start = calloc(2, sizeof(int));
    scan->group_start[1] = 1;
    cs_phys_node *filter = unary(CS_PH_FILTER, NULL, scan);
    filter->condition = call2("=", col(0), lit(1));
    cs_phys_node *top = unary(CS_PH_TOP_N, NULL, filter);
    top->n_sort_keys = 1;
    top->sort_keys = calloc(1, sizeof *top->sort_keys);
    top->sort_keys[0] = (cs_sort_key){1, descending, !descending};
    top->limit = 4;
    return top;
}

static void test_top_n_bound_skips_row_groups_of_the_scan(void **state)
{
    (void)state;
    char tmp[] = "/tmp/cs_topn_scan_XXXXXX", path[256];
    assert_non_null(mkdtemp(tmp));
    snprintf(path, sizeof path, "%s/rising.parquet", tmp);
    uint64_t size = write_rising(path);
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = 256;
    /* ASC NULLS FIRST: the null row first, then the first rows; past the first batches the
     * bound (v <= 10) rules the rest out: row groups by statistics (not the last one, which
     * holds the null), other batches with only k and v decoded */
    cs_phys_node *asc = top_n_over_scan(path, size, false);
    cs_phys_inputs in = {.partition = 0};
    cs_error err = {0};
    cs_sql_op *op = cs_phys_build(asc, &in, &err);
    assert_non_null(op);
    t_rows r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    const cs_sql_op *scan = op->children[0]->children[0];
    assert_string_equal(scan->vt->name, "FileScan");
    assert_true(scan->metrics.row_groups_skipped > 0);
    assert_true(scan->metrics.rows_skipped > 0);
    assert_true(scan->metrics.rows_out < 20000 / 2);
    cs_sql_op_free(op);
    expect_rows(&r, (const char *[]){"1|NULL|'n19999'", "1|1|'n1'", "1|4|'n4'", "1|7|'n7'"}, 4);
    cs_phys_free(asc);
    /* DESC NULLS LAST: the best rows come last, nothing can be ruled out early, and the
     * answer is the same as reading everything */
    cs_phys_node *desc = top_n_over_scan(path, size, true);
    op = cs_phys_build(desc, &in, &err);
    assert_non_null(op);
    r = t_run(op, &ctx);
    assert_int_equal(r.rc, CS_OK);
    cs_sql_op_free(op);
    expect_rows(&r,
                (const char *[]){"1|19996|'n19996'", "1|19993|'n19993'", "1|19990|'n19990'",
                                 "1|19987|'n19987'"},
                4);
    cs_phys_free(desc);
    cs_remove_tree(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_and_two_phase_aggregate),
        cmocka_unit_test(test_range_slices_as_spark),
        cmocka_unit_test(test_hash_join_with_residual_condition),
        cmocka_unit_test(test_union_sort_top_n_limit_project),
        cmocka_unit_test(test_input_leaves_and_bad_trees),
        cmocka_unit_test(test_file_scan_group_and_pushed_filters),
        cmocka_unit_test(test_top_n_bound_skips_row_groups_of_the_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
