/*
 * test_stage_plan_codec.c — stage plans, task results and map statuses through the wire codec
 * (src/plan/stage_plan_*.c, task_codec.c).
 *
 * Lineages are built here in a lineage graph of the test's own (no context), as the API builds
 * them in the context's. User functions (filter, flat_map with a closure, map_partitions, foreach)
 * live in a small application .so compiled at setup from the source below and linked against
 * libcspark.so — the test executable does not export its symbols, and an executor resolves
 * functions in the application's .so anyway. Every plan goes encode -> pack -> unpack -> decode,
 * is compared field by field with the original nodes, and is then run with cs_task_run next to the
 * original nodes: map stages write real shuffle files (original and decoded into separate local
 * dirs), reduce stages decoded from their plans read them. Map statuses carry their raw sizes
 * through the wire; a process whose map outputs only it reads stores them without LZ4.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "records/recio.h"
#include "exec/task_context.h"
#include "plan/builtins.h"
#include "plan/stage_plan.h"
#include "plan/task_codec.h"
#include "shuffle/builtin_aggs.h"

/* ---- the application .so ------------------------------------------------------------------ */

static const char *HELPER_SRC =
    "#include <cspark.h>\n"
    "#include <string.h>\n"
    "long long tc_foreach_calls = 0;\n"
    "bool tc_keep_even(const cspark_record *in, cspark_task_context *tc)\n"
    "{ (void)tc; return in->key.len == 8 && cspark_i64_decode(in->key.ptr) % 2 == 0; }\n"
    "void tc_repeat(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)\n"
    "{ size_t len = 0; const void *c = cspark_closure(tc, &len); int n = 1;\n"
    "  if (c && len == sizeof n) memcpy(&n, c, sizeof n);\n"
    "  for (int i = 0; i < n; i++) cspark_emit_record(out, in); }\n"
    "void tc_count_part(cspark_iterator *it, cspark_emitter *out, cspark_task_context *tc)\n"
    "{ (void)tc; cspark_record r; long long n = 0; uint8_t k[8];\n"
    "  while (cspark_iterator_next(it, &r)) n++;\n"
    "  cspark_i64_encode(n, k); cspark_emit(out, k, 8, k, 8); }\n"
    "void tc_count_each(const cspark_record *in, cspark_task_context *tc)\n"
    "{ (void)in; (void)tc; __atomic_add_fetch(&tc_foreach_calls, 1, __ATOMIC_RELAXED); }\n";

static void *g_app;
static char g_tmp[256];
static exec_env g_env_a, g_env_b; /* original nodes run in a, decoded plans in b */
static char g_dir_a[300], g_dir_b[300];

static lineage_graph g_graph; /* the original nodes */
static cs_map_status g_statuses[64];
static int g_nstatuses;
static int g_next_id = 1;

static int setup(void **state)
{
    (void)state;
    cs_lineage_init(&g_graph);
    snprintf(g_tmp, sizeof g_tmp, "/tmp/cspark_task_codec_XXXXXX");
    if (!mkdtemp(g_tmp)) return -1;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = 0;
    char *bin = dirname(exe); /* <build>/tests */
    char src_copy[4096];
    snprintf(src_copy, sizeof src_copy, "%s", __FILE__);
    char *srcdir = dirname(src_copy); /* <source>/tests/unit/exec */
    char path[512], cmd[8192];
    snprintf(path, sizeof path, "%s/app.c", g_tmp);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(HELPER_SRC, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "cc -shared -fPIC -O1 -I%s/../../../include -o %s/app.so %s -L%s/../lib -lcspark "
             "-Wl,-rpath,%s/../lib",
             srcdir, g_tmp, path, bin, bin);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot build the test application: %s\n", cmd);
        return -1;
    }
    snprintf(path, sizeof path, "%s/app.so", g_tmp);
    g_app = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!g_app) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return -1;
    }
    snprintf(g_dir_a, sizeof g_dir_a, "%s/a", g_tmp);
    snprintf(g_dir_b, sizeof g_dir_b, "%s/b", g_tmp);
    mkdir(g_dir_a, 0700);
    mkdir(g_dir_b, 0700);
    g_env_a = (exec_env){.executor_id = "exec-a",
                         .host = "host-a",
                         .local_dir = g_dir_a,
                         .task_memory_budget = 64 << 20,
                         .blocks = cs_shuffle_local_source(g_dir_a)};
    g_env_b = (exec_env){.executor_id = "exec-a",
                         .host = "host-a",
                         .local_dir = g_dir_b,
                         .task_memory_budget = 64 << 20,
                         .blocks = cs_shuffle_local_source(g_dir_b)};
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cs_lineage_free(&g_graph);
    for (int i = 0; i < g_nstatuses; i++)
        cs_map_status_free(&g_statuses[i]);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_tmp);
    if (system(cmd) != 0) return -1;
    if (g_app) dlclose(g_app);
    return 0;
}

/* ---- building lineages -------------------------------------------------------------------- */

/* Nodes are built by the kinds' constructors (plan/rdd_kind_list.h); ids follow the test's own
 * numbering, not the graph's. */
static cspark_rdd *numbered(cspark_rdd *r)
{
    r->id = g_next_id++;
    return r;
}

static void user_fn(fn_ref *f, const char *name, const void *closure, size_t len)
{
    void *p = dlsym(g_app, name);
    assert_non_null(p);
    cs_fn_ref_builtin(f, name, p);
    cs_fn_ref_copy_closure(f, closure, len);
}

static void put_kv(cs_batch *b, int64_t k, int64_t v)
{
    uint8_t *p = batch_append(b, 8, 8);
    cspark_i64_encode(k, p);
    cspark_i64_encode(v, p + 8);
}

/* n records (i mod m, i), in slices */
static cspark_rdd *mk_par(int n, int slices, int m)
{
    cs_batch records;
    cs_batch_init(&records);
    for (int i = 0; i < n; i++)
        put_kv(&records, i % m, i);
    size_t *offsets = cs_xcalloc((size_t)slices + 1, sizeof *offsets);
    for (int i = 0; i <= slices; i++)
        offsets[i] = (size_t)n * (size_t)i / (size_t)slices;
    cspark_rdd *r = numbered(
        cs_rdd_parallelize_new(&g_graph, &records, offsets, slices, "parallelize at test"));
    free(offsets);
    return r;
}

static cspark_rdd *mk_range(int64_t a, int64_t b, int64_t step, int np)
{
    return numbered(cs_rdd_range_new(&g_graph, a, b, step, np, "range at test"));
}

static cspark_rdd *mk_text(int nsplits)
{
    char path[512];
    snprintf(path, sizeof path, "%s/input.txt", g_tmp);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 200; i++)
        fprintf(f, "line number %d of the input\n", i);
    fclose(f);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    uint64_t size = (uint64_t)st.st_size;
    text_split *splits = cs_xcalloc((size_t)nsplits, sizeof *splits);
    for (int i = 0; i < nsplits; i++) {
        uint64_t lo = size * (uint64_t)i / (uint64_t)nsplits,
                 hi = size * (uint64_t)(i + 1) / (uint64_t)nsplits;
        splits[i] = (text_split){path, lo, hi - lo, size};
    }
    cspark_rdd *r = numbered(cs_rdd_text_file_new(&g_graph, splits, nsplits, "text_file at test"));
    free(splits);
    assert_int_equal(r->num_paths, 1); /* one file: one path shared by its splits */
    return r;
}

static cspark_rdd *mk_narrow(rdd_kind kind, cspark_rdd *parent, const char *fn, bool builtin,
                             void *ptr, const void *closure, size_t len)
{
    cspark_rdd *r = numbered(cs_rdd_narrow_new(&g_graph, kind, parent, fn));
    if (builtin) {
        cs_fn_ref_builtin(&r->fn, fn, ptr);
        cs_fn_ref_copy_closure(&r->fn, closure, len);
    } else {
        user_fn(&r->fn, fn, closure, len);
    }
    return r;
}

static cspark_rdd *mk_union(cspark_rdd *a, cspark_rdd *b)
{
    return numbered(cs_rdd_union_new(&g_graph, a, b, "union at test"));
}

static cspark_rdd *mk_coalesce(cspark_rdd *p, int n)
{
    return numbered(cs_rdd_coalesce_new(&g_graph, p, NULL, n, "coalesce at test"));
}

static shuffle_dep *mk_dep(cspark_rdd *parent, int shuffle_id, cs_partitioner_kind kind, int n)
{
    shuffle_dep *d = cs_shuffle_dep_new(&g_graph, parent);
    d->shuffle_id = shuffle_id;
    d->partitioner.kind = kind;
    d->partitioner.num_partitions = n;
    d->partitioner.ascending = true;
    return d;
}

static void set_sum(fn_ref *mv, fn_ref *mc)
{
    cs_fn_ref_builtin(mv, "cspark_sum_i64", (void *)cspark_sum_i64);
    cs_fn_ref_builtin(mc, "cspark_sum_i64", (void *)cspark_sum_i64);
}

static void dep_range_bounds(shuffle_dep *d, const int64_t *keys, int nb)
{
    d->range_bound_data = cs_xmalloc((size_t)nb * 8);
    d->range_bounds = cs_xcalloc((size_t)nb, sizeof *d->range_bounds);
    for (int i = 0; i < nb; i++) {
        cspark_i64_encode(keys[i], d->range_bound_data + 8 * i);
        d->range_bounds[i] = (cspark_slice){d->range_bound_data + 8 * i, 8};
    }
    d->partitioner.bounds = d->range_bounds;
    d->partitioner.num_bounds = nb;
}

static cspark_rdd *mk_shuffled(shuffle_dep *a, shuffle_dep *b, shuffle_read_mode mode, int np)
{
    cspark_rdd *r = numbered(cs_rdd_shuffled_new(&g_graph, a, mode, np, "shuffled at test"));
    if (b) r->deps[r->num_deps++] = b;
    return r;
}

/* ---- codec round trip and comparison --------------------------------------------------------- */

static stage_plan *roundtrip(cspark_rdd *root, const task_sink *sink, const shuffle_input *in,
                             int nin)
{
    cs_error err;
    cs_error_clear(&err);
    Cspark__StagePlan *pb = cs_stage_plan_encode(root, sink, in, nin, &err);
    if (!pb) fail_msg("encode: %s", err.msg);
    size_t len = cspark__stage_plan__get_packed_size(pb);
    uint8_t *buf = cs_xmalloc(len);
    assert_int_equal(cspark__stage_plan__pack(pb, buf), len);
    cs_stage_plan_pb_free(pb);
    Cspark__StagePlan *u = cspark__stage_plan__unpack(NULL, len, buf);
    free(buf);
    assert_non_null(u);
    stage_plan *p = NULL;
    int rc = cs_stage_plan_decode(u, g_app, &p, &err);
    if (rc != 0) fail_msg("decode: %s", err.msg);
    cspark__stage_plan__free_unpacked(u, NULL);
    assert_non_null(p);
    assert_ptr_equal(p->graph.rdds[0], p->root); /* root is numbered first */
    return p;
}

static void cmp_fn(const fn_ref *a, const fn_ref *b)
{
    if (!a->name) {
        assert_null(b->name);
        assert_null(b->ptr);
        return;
    }
    assert_string_equal(a->name, b->name);
    assert_non_null(b->ptr);
    assert_int_equal(a->closure_len, b->closure_len);
    if (a->closure_len) assert_memory_equal(a->closure, b->closure, a->closure_len);
}

static void cmp_dep(const shuffle_dep *a, const shuffle_dep *b)
{
    assert_int_equal(a->shuffle_id, b->shuffle_id);
    assert_int_equal(a->partitioner.kind, b->partitioner.kind);
    assert_int_equal(a->partitioner.num_partitions, b->partitioner.num_partitions);
    assert_int_equal(a->partitioner.ascending, b->partitioner.ascending);
    assert_int_equal(a->partitioner.num_bounds, b->partitioner.num_bounds);
    for (int i = 0; i < a->partitioner.num_bounds; i++) {
        assert_int_equal(a->partitioner.bounds[i].len, b->partitioner.bounds[i].len);
        assert_memory_equal(a->partitioner.bounds[i].ptr, b->partitioner.bounds[i].ptr,
                            a->partitioner.bounds[i].len);
        assert_true(b->partitioner.bounds[i].ptr >= b->range_bound_data);
    }
    if (a->partitioner.num_bounds) assert_ptr_equal(b->partitioner.bounds, b->range_bounds);
    assert_int_equal(a->map_side_combine, b->map_side_combine);
    cmp_fn(&a->agg.create, &b->agg.create);
    cmp_fn(&a->agg.merge_value, &b->agg.merge_value);
    cmp_fn(&a->agg.merge_combiners, &b->agg.merge_combiners);
    assert_int_equal(a->agg.has_zero, b->agg.has_zero);
    assert_int_equal(a->agg.zero_len, b->agg.zero_len);
    if (a->agg.zero_len) assert_memory_equal(a->agg.zero, b->agg.zero, a->agg.zero_len);
}

static void cmp_batch(const cs_batch *a, const cs_batch *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        cspark_record x = batch_get(a, i), y = batch_get(b, i);
        assert_int_equal(x.key.len, y.key.len);
        assert_int_equal(x.value.len, y.value.len);
        assert_memory_equal(x.key.ptr, y.key.ptr, x.key.len);
        if (x.value.len) assert_memory_equal(x.value.ptr, y.value.ptr, x.value.len);
    }
}

/* Field by field, following narrow parents (shuffled nodes: their deps, whose parents are not in
 * the plan unless written by the sink). */
static void cmp_rdd(const cspark_rdd *a, const cspark_rdd *b)
{
    assert_ptr_equal(a->graph, &g_graph);
    assert_ptr_not_equal(b->graph, &g_graph); /* decoded into the plan's own graph */
    assert_int_equal(a->id, b->id);
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->num_partitions, b->num_partitions);
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->num_parents, b->num_parents);
    cmp_fn(&a->fn, &b->fn);
    int np = a->num_partitions;
    switch (a->kind) {
    case RDD_PARALLELIZE:
        cmp_batch(&a->par_data, &b->par_data);
        for (int i = 0; i <= np; i++)
            assert_int_equal(a->par_offsets[i], b->par_offsets[i]);
        break;
    case RDD_RANGE:
        assert_int_equal(a->range_start, b->range_start);
        assert_int_equal(a->range_end, b->range_end);
        assert_int_equal(a->range_step, b->range_step);
        break;
    case RDD_TEXT_FILE:
        for (int i = 0; i < np; i++) {
            assert_string_equal(a->splits[i].path, b->splits[i].path);
            assert_int_equal(a->splits[i].start, b->splits[i].start);
            assert_int_equal(a->splits[i].length, b->splits[i].length);
            assert_int_equal(a->splits[i].file_size, b->splits[i].file_size);
            bool owned = false;
            for (int j = 0; j < b->num_paths; j++)
                owned |= b->splits[i].path == b->paths[j];
            assert_true(owned);
        }
        break;
    case RDD_UNION:
        for (int i = 0; i < np; i++) {
            assert_int_equal(a->union_parent[i], b->union_parent[i]);
            assert_int_equal(a->union_index[i], b->union_index[i]);
        }
        assert_int_equal(a->parents[0] == a->parents[1], b->parents[0] == b->parents[1]);
        break;
    case RDD_COALESCE:
        for (int i = 0; i <= np; i++)
            assert_int_equal(a->group_start[i], b->group_start[i]);
        break;
    case RDD_SHUFFLED:
        assert_int_equal(a->num_deps, b->num_deps);
        assert_int_equal(a->read_mode, b->read_mode);
        for (int i = 0; i < a->num_deps; i++)
            cmp_dep(a->deps[i], b->deps[i]);
        break;
    default:
        break;
    }
    cmp_fn(&a->agg.create, &b->agg.create);
    cmp_fn(&a->agg.merge_value, &b->agg.merge_value);
    cmp_fn(&a->agg.merge_combiners, &b->agg.merge_combiners);
    assert_int_equal(a->agg.has_zero, b->agg.has_zero);
    assert_int_equal(a->agg.zero_len, b->agg.zero_len);
    if (a->agg.zero_len) assert_memory_equal(a->agg.zero, b->agg.zero, a->agg.zero_len);
    assert_int_equal(a->values_are_combiners, b->values_are_combiners);
    assert_int_equal(a->ascending, b->ascending);
    for (int i = 0; i < a->num_parents; i++)
        cmp_rdd(a->parents[i], b->parents[i]);
}

static void cmp_sink(const task_sink *a, const task_sink *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->take_n, b->take_n);
    cmp_fn(&a->fn, &b->fn);
    assert_int_equal(a->has_zero, b->has_zero);
    assert_int_equal(a->zero_len, b->zero_len);
    if (a->zero_len) assert_memory_equal(a->zero, b->zero, a->zero_len);
    if (a->save_path)
        assert_string_equal(a->save_path, b->save_path);
    else
        assert_null(b->save_path);
    assert_int_equal(a->sample_size, b->sample_size);
    if (a->kind == SINK_SHUFFLE) cmp_dep(a->dep, b->dep);
}

static int count_distinct(const cspark_rdd *r, const cspark_rdd **seen, int n)
{
    for (int i = 0; i < n; i++)
        if (seen[i] == r) return n;
    seen[n++] = r;
    if (r->kind != RDD_SHUFFLED)
        for (int i = 0; i < r->num_parents; i++)
            n = count_distinct(r->parents[i], seen, n);
    return n;
}

/* ---- running ------------------------------------------------------------------------------- */

static void run1(const exec_env *env, cspark_rdd *root, const task_sink *sink,
                 const shuffle_input *in, int nin, int partition, task_result *res)
{
    static int64_t task_id = 1;
    task_desc t = {.task_id = task_id++,
                   .partition = partition,
                   .rdd = root,
                   .sink = sink,
                   .inputs = in,
                   .num_inputs = nin};
    cs_task_result_init(res);
    cs_task_run(env, &t, res);
}

static bool g_allow_failure; /* the missing-map test expects fetch failures */

/* Runs every partition with the original and the decoded plan; compares status, data, count. */
static void run_compare(cspark_rdd *root, const task_sink *sink, const shuffle_input *in, int nin,
                        stage_plan *p)
{
    for (int part = 0; part < root->num_partitions; part++) {
        task_result a, b;
        run1(&g_env_a, root, sink, in, nin, part, &a);
        run1(&g_env_b, p->root, &p->sink, p->inputs, p->num_inputs, part, &b);
        if (a.status != TASK_OK && !g_allow_failure)
            fail_msg("original failed: %s", a.error ? a.error : "");
        if (b.status != a.status) fail_msg("decoded: %s", b.error ? b.error : "");
        assert_int_equal(a.fetch_shuffle_id, b.fetch_shuffle_id);
        assert_int_equal(a.fetch_map_id, b.fetch_map_id);
        cmp_batch(&a.data, &b.data);
        assert_int_equal(a.count, b.count);
        assert_int_equal(a.has_map_status, b.has_map_status);
        cs_task_result_free(&a);
        cs_task_result_free(&b);
    }
}

/* ---- narrow lineage, every narrow kind ---------------------------------------------------------
 */

static void test_narrow_lineage(void **state)
{
    (void)state;
    int three = 3;
    cspark_rdd *par = mk_par(50, 3, 1000);
    cspark_rdd *filt = mk_narrow(RDD_FILTER, par, "tc_keep_even", false, NULL, NULL, 0);
    cspark_rdd *tagged =
        mk_narrow(RDD_MAP, filt, "cs_builtin_tag_left", true, (void *)cs_builtin_tag_left, NULL, 0);
    cspark_rdd *range = mk_range(-7, 100, 3, 4);
    cspark_rdd *rep =
        mk_narrow(RDD_FLAT_MAP, range, "tc_repeat", false, NULL, &three, sizeof three);
    cspark_rdd *text = mk_text(2);
    cspark_rdd *counted =
        mk_narrow(RDD_MAP_PARTITIONS, text, "tc_count_part", false, NULL, NULL, 0);
    cspark_rdd *ua = mk_union(tagged, rep);
    cspark_rdd *ub = mk_union(counted, counted); /* the same parent twice */
    cspark_rdd *u = mk_union(ua, ub);
    cspark_rdd *root = mk_coalesce(u, 5);

    task_sink sink = {.kind = SINK_COLLECT};
    stage_plan *p = roundtrip(root, &sink, NULL, 0);
    const cspark_rdd *seen[64];
    assert_int_equal(p->graph.num_rdds,
                     count_distinct(root, seen, 0)); /* shared parent encoded once */
    assert_int_equal(p->graph.num_rdds, 11);
    assert_int_equal(p->graph.num_deps, 0);
    assert_int_equal(p->num_inputs, 0);
    cmp_rdd(root, p->root);
    cmp_sink(&sink, &p->sink);
    /* union(a, a) decodes to one node referenced twice */
    const cspark_rdd *dub = p->root->parents[0]->parents[1];
    assert_int_equal(dub->kind, RDD_UNION);
    assert_ptr_equal(dub->parents[0], dub->parents[1]);
    run_compare(root, &sink, NULL, 0, p);

    /* the same decoded through RTLD_DEFAULT only (app .so is loaded RTLD_GLOBAL) */
    cs_error err;
    Cspark__StagePlan *pb = cs_stage_plan_encode(root, &sink, NULL, 0, &err);
    assert_non_null(pb);
    stage_plan *q = NULL;
    assert_int_equal(cs_stage_plan_decode(pb, NULL, &q, &err), 0);
    cmp_rdd(root, q->root);
    cs_stage_plan_free(q);
    cs_stage_plan_pb_free(pb);
    cs_stage_plan_free(p);
}

/* ---- cartesian ----------------------------------------------------------------------------- */

static void test_cartesian(void **state)
{
    (void)state;
    cspark_rdd *a = mk_par(20, 2, 1000), *b = mk_range(0, 7, 1, 3);
    cspark_rdd *root = numbered(cs_rdd_cartesian_new(&g_graph, a, b, "cartesian at test"));
    assert_int_equal(root->num_partitions, 6);
    task_sink sink = {.kind = SINK_COLLECT};
    stage_plan *p = roundtrip(root, &sink, NULL, 0);
    cmp_rdd(root, p->root);
    run_compare(root, &sink, NULL, 0, p);
    task_result res; /* partition 4 = a's 1 x b's 1: 10 records x (7 * 1 / 3 .. 7 * 2 / 3) = 20 */
    run1(&g_env_b, p->root, &p->sink, NULL, 0, 4, &res);
    assert_int_equal(res.status, TASK_OK);
    assert_int_equal(res.data.n, 20);
    cs_task_result_free(&res);
    cs_stage_plan_free(p);

    /* a partition count that is not the product of its parents' is refused */
    cs_error err;
    Cspark__StagePlan *pb = cs_stage_plan_encode(root, &sink, NULL, 0, &err);
    assert_non_null(pb);
    pb->rdds[pb->root]->num_partitions = 5;
    stage_plan *q = NULL;
    assert_int_equal(cs_stage_plan_decode(pb, g_app, &q, &err), CS_EPROTO);
    assert_non_null(strstr(err.msg, "5 partitions for a 2 x 3 cartesian product"));
    assert_null(q);
    cs_stage_plan_pb_free(pb);
}

/* ---- every sink kind ------------------------------------------------------------------------- */

static void read_file(const char *path, char *buf, size_t cap, size_t *len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    *len = fread(buf, 1, cap, f);
    fclose(f);
}

static void test_sinks(void **state)
{
    (void)state;
    cspark_rdd *par = mk_par(40, 2, 1000);
    cspark_rdd *root = mk_narrow(RDD_FILTER, par, "tc_keep_even", false, NULL, NULL, 0);
    uint8_t zero[8];
    cspark_i64_encode(5, zero);
    int64_t closure = 42;
    char out_a[400], out_b[400];
    snprintf(out_a, sizeof out_a, "%s/save_a", g_tmp);
    snprintf(out_b, sizeof out_b, "%s/save_b", g_tmp);
    for (int i = 0; i < 2; i++) {
        char d[600];
        const char *o = i ? out_b : out_a;
        mkdir(o, 0700);
        snprintf(d, sizeof d, "%s/_temporary", o);
        mkdir(d, 0700);
        snprintf(d, sizeof d, "%s/_temporary/0", o);
        mkdir(d, 0700);
        snprintf(d, sizeof d, "%s/_temporary/0/_temporary", o);
        mkdir(d, 0700);
    }
    long long *calls = dlsym(g_app, "tc_foreach_calls");
    assert_non_null(calls);

    for (int kind = SINK_COUNT; kind <= SINK_SAMPLE; kind++) {
        task_sink sink = {.kind = (sink_kind)kind};
        switch (kind) {
        case SINK_TAKE:
            sink.take_n = 3;
            break;
        case SINK_FOLD:
            cs_fn_ref_builtin(&sink.fn, "cspark_sum_i64", (void *)cspark_sum_i64);
            cs_fn_ref_copy_closure(&sink.fn, &closure, sizeof closure);
            sink.zero = zero;
            sink.zero_len = 8;
            sink.has_zero = true;
            break;
        case SINK_SAVE:
            sink.save_path = out_a;
            break;
        case SINK_FOREACH:
            user_fn(&sink.fn, "tc_count_each", NULL, 0);
            break;
        case SINK_SAMPLE:
            sink.sample_size = 4;
            break;
        default:
            break;
        }
        stage_plan *p = roundtrip(root, &sink, NULL, 0);
        cmp_sink(&sink, &p->sink);
        cmp_rdd(root, p->root);
        if (kind == SINK_SAVE) {
            free((void *)p->sink.save_path);
            p->sink.save_path = cs_xstrdup(out_b);
        }
        long long before = *calls;
        run_compare(root, &sink, NULL, 0, p);
        if (kind == SINK_FOREACH)
            assert_int_equal(*calls - before, 2 * 20); /* 20 even keys, twice */
        if (kind == SINK_SAVE) {
            for (int part = 0; part < 2; part++) {
                char pa[500], pbp[500], ba[8192], bb[8192];
                size_t la, lb;
                snprintf(pa, sizeof pa, "%s/part-%05d", out_a, part);
                snprintf(pbp, sizeof pbp, "%s/part-%05d", out_b, part);
                read_file(pa, ba, sizeof ba, &la);
                read_file(pbp, bb, sizeof bb, &lb);
                assert_true(la > 0);
                assert_int_equal(la, lb);
                assert_memory_equal(ba, bb, la);
            }
        }
        cs_fn_ref_free(&sink.fn);
        cs_stage_plan_free(p);
    }
}

/* ---- shuffles: map stages write, reduce stages decoded from their plans read ----------------- */

/* The sizes of two map statuses read the same for every block. */
static void cmp_sizes(const cs_map_status *a, const cs_map_status *b)
{
    assert_int_equal(a->num_reduces, b->num_reduces);
    assert_int_equal(a->sizes_kind, b->sizes_kind);
    for (int r = 0; r < a->num_reduces; r++) {
        assert_int_equal(cs_map_status_size(a, r), cs_map_status_size(b, r));
        assert_int_equal(cs_map_status_block_empty(a, r), cs_map_status_block_empty(b, r));
        assert_int_equal(cs_map_status_raw_size(a, r), cs_map_status_raw_size(b, r));
    }
    assert_int_equal(a->has_raw, b->has_raw);
}

/* Runs the map stage of d with the original nodes (dir a) and its decoded plan (dir b); checks
 * the outputs match; returns the map statuses of dir a in in->maps (owned by the test). */
static void map_stage(shuffle_dep *d, shuffle_input *in, const cs_map_status **maps)
{
    task_sink sink = {.kind = SINK_SHUFFLE, .dep = d};
    stage_plan *p = roundtrip(d->parent, &sink, NULL, 0);
    cmp_rdd(d->parent, p->root);
    cmp_sink(&sink, &p->sink);
    assert_ptr_equal(p->sink.dep->parent, p->root); /* the written dep's parent is the root */
    bool in_deps = false;
    for (int i = 0; i < p->graph.num_deps; i++)
        in_deps |= p->graph.deps[i] == p->sink.dep;
    assert_true(in_deps);
    int n = d->parent->num_partitions;
    for (int m = 0; m < n; m++) {
        task_result a, b;
        run1(&g_env_a, d->parent, &sink, NULL, 0, m, &a);
        run1(&g_env_b, p->root, &p->sink, NULL, 0, m, &b);
        if (a.status != TASK_OK) fail_msg("map original: %s", a.error);
        if (b.status != TASK_OK) fail_msg("map decoded: %s", b.error);
        assert_true(a.has_map_status && b.has_map_status);
        assert_int_equal(a.map_status.num_reduces, b.map_status.num_reduces);
        cmp_sizes(&a.map_status, &b.map_status);
        assert_int_equal(a.map_status.records_written, b.map_status.records_written);
        assert_true(g_nstatuses < 64);
        g_statuses[g_nstatuses] = a.map_status;
        a.has_map_status = false; /* moved */
        maps[m] = &g_statuses[g_nstatuses++];
        cs_task_result_free(&a);
        cs_task_result_free(&b);
    }
    in->shuffle_id = d->shuffle_id;
    in->maps = maps;
    in->num_maps = n;
    cs_stage_plan_free(p);
}

static void reduce_stage(cspark_rdd *root, const shuffle_input *in, int nin)
{
    task_sink sink = {.kind = SINK_COLLECT};
    stage_plan *p = roundtrip(root, &sink, in, nin);
    cmp_rdd(root, p->root);
    assert_int_equal(p->num_inputs, nin);
    for (int i = 0; i < nin; i++) {
        assert_int_equal(p->inputs[i].shuffle_id, in[i].shuffle_id);
        assert_int_equal(p->inputs[i].num_maps, in[i].num_maps);
        for (int m = 0; m < in[i].num_maps; m++) {
            const cs_map_status *x = in[i].maps[m], *y = p->inputs[i].maps[m];
            assert_non_null(y);
            assert_true(y >= p->statuses && y < p->statuses + p->num_statuses);
            assert_int_equal(x->map_id, y->map_id);
            assert_int_equal(x->shuffle_id, y->shuffle_id);
            assert_string_equal(x->executor_id, y->executor_id);
            assert_string_equal(x->host, y->host);
            cmp_sizes(x, y);
        }
    }
    for (int i = 0; i < p->graph.num_deps; i++)
        assert_null(p->graph.deps[i]->parent); /* read only */
    run_compare(root, &sink, in, nin, p);
    /* something was read */
    task_result r;
    run1(&g_env_b, p->root, &p->sink, p->inputs, p->num_inputs, 0, &r);
    assert_int_equal(r.status, TASK_OK);
    assert_true(r.metrics.shuffle_records_read > 0);
    cs_task_result_free(&r);
    cs_stage_plan_free(p);
}

static void test_shuffle_aggregate(void **state)
{
    (void)state;
    cspark_rdd *par = mk_par(300, 3, 7);
    shuffle_dep *d = mk_dep(par, 11, PART_HASH, 3);
    d->map_side_combine = true;
    set_sum(&d->agg.merge_value, &d->agg.merge_combiners);
    int64_t c = 9;
    cs_fn_ref_copy_closure(&d->agg.merge_value, &c, sizeof c);
    const cs_map_status *maps[3];
    shuffle_input in;
    map_stage(d, &in, maps);
    cspark_rdd *s = mk_shuffled(d, NULL, SHUFFLE_READ_AGGREGATE, 3);
    set_sum(&s->agg.merge_value, &s->agg.merge_combiners);
    s->values_are_combiners = true;
    cspark_rdd *root =
        mk_narrow(RDD_MAP, s, "cs_builtin_tag_right", true, (void *)cs_builtin_tag_right, NULL, 0);
    reduce_stage(root, &in, 1);
}

/* The codec of every block of map output (shuffle sid, map 0) in dir: *lz4 and *stored blocks. */
static void count_codecs(const char *dir, int sid, int *lz4, int *stored)
{
    char data[1024], index[1024];
    cs_shuffle_file_paths(dir, sid, 0, data, index, sizeof data);
    FILE *f = fopen(data, "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    *lz4 = *stored = 0;
    for (size_t at = 0; at + RECIO_HEADER_LEN <= n;) {
        uint32_t len = (uint32_t)buf[at + 4] | (uint32_t)buf[at + 5] << 8 |
                       (uint32_t)buf[at + 6] << 16 | (uint32_t)buf[at + 7] << 24;
        if ((buf[at + 8] & 0xf) == RECIO_CODEC_LZ4)
            ++*lz4;
        else
            ++*stored;
        at += RECIO_HEADER_LEN + len;
    }
}

/* spark.shuffle.compress on: a process whose map outputs only it reads (local mode,
 * exec_env.shuffle_in_process) stores their blocks without LZ4; one whose outputs other
 * processes read compresses them. The statuses' raw sizes are the same either way. */
static void test_in_process_map_outputs_not_compressed(void **state)
{
    (void)state;
    cspark_rdd *par = mk_par(3000, 1, 7); /* repetitive records: LZ4 shrinks them */
    shuffle_dep *d = mk_dep(par, 31, PART_HASH, 2);
    task_sink sink = {.kind = SINK_SHUFFLE, .dep = d};
    uint64_t raw[2][2];
    for (int in_process = 0; in_process <= 1; in_process++) {
        exec_env env = g_env_a;
        env.shuffle_compress = true;
        env.shuffle_in_process = in_process;
        task_result r;
        run1(&env, par, &sink, NULL, 0, 0, &r);
        if (r.status != TASK_OK) fail_msg("map: %s", r.error);
        assert_true(r.has_map_status && r.map_status.has_raw);
        int lz4, stored;
        count_codecs(g_dir_a, 31, &lz4, &stored);
        assert_int_equal(lz4 + stored, 2); /* a block per reduce partition */
        assert_int_equal(lz4, in_process ? 0 : 2);
        for (int p = 0; p < 2; p++) {
            raw[in_process][p] = cs_map_status_raw_size(&r.map_status, p);
            if (!in_process)
                assert_true(cs_map_status_size(&r.map_status, p) < raw[in_process][p] / 2);
        }
        cs_task_result_free(&r);
    }
    assert_memory_equal(raw[0], raw[1], sizeof raw[0]);
}

static void test_shuffle_fold_by_key_zero(void **state)
{
    (void)state;
    /* aggregate with a zero on both sides (aggregate_by_key) */
    cspark_rdd *par = mk_par(120, 2, 5);
    shuffle_dep *d = mk_dep(par, 12, PART_HASH, 2);
    d->map_side_combine = true;
    set_sum(&d->agg.merge_value, &d->agg.merge_combiners);
    d->agg.zero = cs_xmalloc(8);
    cspark_i64_encode(1000, d->agg.zero);
    d->agg.zero_len = 8;
    d->agg.has_zero = true;
    const cs_map_status *maps[2];
    shuffle_input in;
    map_stage(d, &in, maps);
    cspark_rdd *s = mk_shuffled(d, NULL, SHUFFLE_READ_AGGREGATE, 2);
    set_sum(&s->agg.merge_value, &s->agg.merge_combiners);
    s->values_are_combiners = true;
    s->agg.zero = cs_xmalloc(8);
    cspark_i64_encode(0, s->agg.zero);
    s->agg.zero_len = 8;
    s->agg.has_zero = true;
    reduce_stage(s, &in, 1);
}

static void test_shuffle_sort_range(void **state)
{
    (void)state;
    cspark_rdd *par = mk_par(90, 3, 1000);
    shuffle_dep *d = mk_dep(par, 13, PART_RANGE, 3);
    int64_t bounds[2] = {30, 60};
    dep_range_bounds(d, bounds, 2);
    d->partitioner.ascending = false;
    const cs_map_status *maps[3];
    shuffle_input in;
    map_stage(d, &in, maps);
    cspark_rdd *s = mk_shuffled(d, NULL, SHUFFLE_READ_SORT, 3);
    s->ascending = false;
    reduce_stage(s, &in, 1);
}

static void test_shuffle_plain_round_robin(void **state)
{
    (void)state;
    cspark_rdd *range = mk_range(0, 500, 1, 2);
    cspark_rdd *kv = mk_narrow(RDD_MAP, range, "cs_builtin_tag_left", true,
                               (void *)cs_builtin_tag_left, NULL, 0);
    shuffle_dep *d = mk_dep(kv, 14, PART_ROUND_ROBIN, 4);
    const cs_map_status *maps[2];
    shuffle_input in;
    map_stage(d, &in, maps);
    cspark_rdd *s = mk_shuffled(d, NULL, SHUFFLE_READ_PLAIN, 4);
    reduce_stage(mk_coalesce(s, 2), &in, 1);
}

static void list_agg(cspark_rdd *r)
{
    cs_fn_ref_builtin(&r->agg.create, "cs_list_wrap", (void *)cs_list_wrap);
    cs_fn_ref_builtin(&r->agg.merge_value, "cs_list_append", (void *)cs_list_append);
    cs_fn_ref_builtin(&r->agg.merge_combiners, "cs_list_concat", (void *)cs_list_concat);
}

static void test_shuffle_cogroup_join(void **state)
{
    (void)state;
    cspark_rdd *left = mk_par(60, 2, 10), *right = mk_par(40, 3, 8);
    cspark_rdd *tl =
        mk_narrow(RDD_MAP, left, "cs_builtin_tag_left", true, (void *)cs_builtin_tag_left, NULL, 0);
    cspark_rdd *tr = mk_narrow(RDD_MAP, right, "cs_builtin_tag_right", true,
                               (void *)cs_builtin_tag_right, NULL, 0);
    shuffle_dep *dl = mk_dep(tl, 15, PART_HASH, 3), *dr = mk_dep(tr, 16, PART_HASH, 3);
    const cs_map_status *ml[2], *mr[3];
    shuffle_input in[2];
    map_stage(dl, &in[0], ml);
    map_stage(dr, &in[1], mr);
    cspark_rdd *cg = mk_shuffled(dl, dr, SHUFFLE_READ_COGROUP, 3);
    list_agg(cg);
    cspark_rdd *join = mk_narrow(RDD_FLAT_MAP, cg, "cs_builtin_join_flatten", true,
                                 (void *)cs_builtin_join_flatten, NULL, 0);
    reduce_stage(join, in, 2);
    /* group_by_key shape: aggregate with create */
    shuffle_dep *dg = mk_dep(left, 17, PART_HASH, 2);
    const cs_map_status *mg[2];
    shuffle_input ing;
    map_stage(dg, &ing, mg);
    cspark_rdd *g = mk_shuffled(dg, NULL, SHUFFLE_READ_AGGREGATE, 2);
    list_agg(g);
    reduce_stage(g, &ing, 1);
    /* a cogroup whose left side is partitioned as it is: read narrowly, partition by partition
     * (a copartitioned join), the right side through its shuffle */
    cspark_rdd *left3 = mk_par(60, 3, 10);
    cspark_rdd *cg2 = mk_shuffled(dr, NULL, SHUFFLE_READ_COGROUP, 3);
    cg2->parents[0] = mk_narrow(RDD_MAP, left3, "cs_builtin_tag_left", true,
                                (void *)cs_builtin_tag_left, NULL, 0);
    cg2->num_parents = 1;
    list_agg(cg2);
    reduce_stage(mk_narrow(RDD_FLAT_MAP, cg2, "cs_builtin_join_flatten", true,
                           (void *)cs_builtin_join_flatten, NULL, 0),
                 &in[1], 1);
}

static void test_missing_map_output(void **state)
{
    (void)state;
    cspark_rdd *par = mk_par(100, 3, 6);
    shuffle_dep *d = mk_dep(par, 18, PART_HASH, 2);
    const cs_map_status *maps[3];
    shuffle_input in;
    map_stage(d, &in, maps);
    maps[1] = NULL; /* lost */
    cspark_rdd *s = mk_shuffled(d, NULL, SHUFFLE_READ_PLAIN, 2);
    task_sink sink = {.kind = SINK_COUNT};
    stage_plan *p = roundtrip(s, &sink, &in, 1);
    assert_int_equal(p->num_inputs, 1);
    assert_int_equal(p->inputs[0].num_maps, 3);
    assert_non_null(p->inputs[0].maps[0]);
    assert_null(p->inputs[0].maps[1]);
    assert_non_null(p->inputs[0].maps[2]);
    assert_int_equal(p->inputs[0].maps[2]->map_id, 2);
    assert_int_equal(p->num_statuses, 2);
    /* both fail the same way: fetch failure of map 1 */
    g_allow_failure = true;
    run_compare(s, &sink, &in, 1, p);
    g_allow_failure = false;
    task_result r;
    run1(&g_env_b, p->root, &p->sink, p->inputs, p->num_inputs, 0, &r);
    assert_int_equal(r.status, TASK_FETCH_FAILED);
    assert_int_equal(r.fetch_shuffle_id, 18);
    assert_int_equal(r.fetch_map_id, 1);
    cs_task_result_free(&r);
    cs_stage_plan_free(p);
}

/* ---- malformed plans ---------------------------------------------------------------------------
 */

static cspark_rdd *g_bad_root;
static task_sink g_bad_sink;
static shuffle_input g_bad_in;
static const cs_map_status *g_bad_maps[2];
static cs_map_status g_bad_st[2];

static void build_bad_lineage(void)
{
    if (g_bad_root) return;
    cspark_rdd *par = mk_par(10, 2, 100);
    cspark_rdd *f = mk_narrow(RDD_FILTER, par, "tc_keep_even", false, NULL, NULL, 0);
    cspark_rdd *m =
        mk_narrow(RDD_MAP, f, "cs_builtin_tag_left", true, (void *)cs_builtin_tag_left, NULL, 0);
    cspark_rdd *t = mk_text(2);
    cspark_rdd *c = mk_coalesce(mk_union(m, t), 2);
    shuffle_dep *d = mk_dep(par, 20, PART_RANGE, 3);
    int64_t b[2] = {3, 6};
    dep_range_bounds(d, b, 2);
    cspark_rdd *s = mk_shuffled(d, NULL, SHUFFLE_READ_AGGREGATE, 3);
    set_sum(&s->agg.merge_value, &s->agg.merge_combiners);
    g_bad_root = mk_union(c, s);
    shuffle_dep *w = mk_dep(g_bad_root, 21, PART_HASH, 2);
    g_bad_sink = (task_sink){.kind = SINK_SHUFFLE, .dep = w};
    for (int i = 0; i < 2; i++) {
        g_bad_st[i] = (cs_map_status){.shuffle_id = 20, .map_id = i, .num_reduces = 0};
        g_bad_maps[i] = &g_bad_st[i];
    }
    g_bad_in = (shuffle_input){.shuffle_id = 20, .maps = g_bad_maps, .num_maps = 2};
}

static Cspark__RddNode *find_kind(Cspark__StagePlan *pb, int kind)
{
    for (size_t i = 0; i < pb->n_rdds; i++)
        if (pb->rdds[i]->kind == kind) return pb->rdds[i];
    fail_msg("no node of kind %d", kind);
    return NULL;
}

static int find_index(Cspark__StagePlan *pb, int kind)
{
    for (size_t i = 0; i < pb->n_rdds; i++)
        if (pb->rdds[i]->kind == kind) return (int)i;
    return -1;
}

enum { BAD_COUNT = 25 };

/* Applies mutation k; returns the expected code. */
static int mutate(Cspark__StagePlan *pb, int k, size_t *saved)
{
    switch (k) {
    case 0:
        pb->root = 99;
        return CS_EPROTO;
    case 1:
        pb->root = -1;
        return CS_EPROTO;
    case 2: { /* self-parent */
        int i = find_index(pb, RDD_MAP);
        pb->rdds[i]->parents[0] = i;
        return CS_EPROTO;
    }
    case 3: { /* cycle: the filter's parent becomes the map above it */
        int mi = find_index(pb, RDD_MAP), fi = find_index(pb, RDD_FILTER);
        pb->rdds[fi]->parents[0] = mi;
        return CS_EPROTO;
    }
    case 4:
        find_kind(pb, RDD_MAP)->parents[0] = 1000;
        return CS_EPROTO;
    case 5:
        find_kind(pb, RDD_MAP)->kind = 42;
        return CS_EPROTO;
    case 6: {
        Cspark__FnRef *f = find_kind(pb, RDD_FILTER)->fn;
        free(f->name);
        f->name = cs_xstrdup("no_such_function_xyz");
        return CS_ENOTFOUND;
    }
    case 7:
        find_kind(pb, RDD_PARALLELIZE)->n_par_offsets--;
        return CS_EPROTO;
    case 8:
        find_kind(pb, RDD_PARALLELIZE)->par_offsets[1] = 1000000000;
        return CS_EPROTO;
    case 9:
        find_kind(pb, RDD_UNION)->union_index[0] = 50;
        return CS_EPROTO;
    case 10:
        find_kind(pb, RDD_COALESCE)->group_start[1] = 1000;
        return CS_EPROTO;
    case 11:
        pb->sink->kind = 99;
        return CS_EPROTO;
    case 12:
        pb->sink->dep = 5;
        return CS_EPROTO;
    case 13:
        find_kind(pb, RDD_SHUFFLED)->read_mode = 9;
        return CS_EPROTO;
    case 14:
        find_kind(pb, RDD_SHUFFLED)->deps[0] = 7;
        return CS_EPROTO;
    case 15:
        find_kind(pb, RDD_PARALLELIZE)->par_data.data[8] = 7;
        return CS_EPROTO; /* codec */
    case 16:
        pb->deps[0]->partitioner->kind = 9;
        return CS_EPROTO;
    case 17:
        pb->deps[0]->partitioner->num_partitions = 1;
        return CS_EPROTO; /* 2 bounds */
    case 18:
        pb->inputs[0]->maps[0]->map_id = -5;
        return CS_EPROTO;
    case 19:
        find_kind(pb, RDD_MAP)->num_partitions = 7;
        return CS_EPROTO;
    case 20:
        find_kind(pb, RDD_TEXT_FILE)->splits[0]->start = 1u << 30;
        return CS_EPROTO;
    case 21:
        *saved = pb->n_rdds;
        pb->n_rdds = 0;
        return CS_EPROTO;
    case 22:
        find_kind(pb, RDD_MAP)->n_parents = 0;
        return CS_EPROTO;
    case 23:
        find_kind(pb, RDD_SHUFFLED)->agg_merge_combiners->name[0] = 0;
        return CS_EPROTO;
    case 24: { /* an aggregation of one input given a shuffle and a parent */
        Cspark__RddNode *n = find_kind(pb, RDD_SHUFFLED);
        n->parents = malloc(sizeof *n->parents);
        n->parents[0] = find_index(pb, RDD_MAP);
        n->n_parents = 1;
        return CS_EPROTO;
    }
    }
    return 0;
}

static void test_malformed(void **state)
{
    (void)state;
    build_bad_lineage();
    cs_error err;
    /* the unmodified plan is fine */
    {
        Cspark__StagePlan *pb = cs_stage_plan_encode(g_bad_root, &g_bad_sink, &g_bad_in, 1, &err);
        assert_non_null(pb);
        stage_plan *p = NULL;
        if (cs_stage_plan_decode(pb, g_app, &p, &err) != 0) fail_msg("%s", err.msg);
        assert_int_equal(p->graph.num_deps, 2);
        assert_ptr_equal(p->sink.dep->parent, p->root);
        cmp_rdd(g_bad_root, p->root);
        cs_stage_plan_free(p);
        cs_stage_plan_pb_free(pb);
    }
    for (int k = 0; k < BAD_COUNT; k++) {
        Cspark__StagePlan *pb = cs_stage_plan_encode(g_bad_root, &g_bad_sink, &g_bad_in, 1, &err);
        assert_non_null(pb);
        size_t saved = 0;
        int want = mutate(pb, k, &saved);
        stage_plan *p = (stage_plan *)1;
        cs_error_clear(&err);
        int rc = cs_stage_plan_decode(pb, g_app, &p, &err);
        if (rc != want) fail_msg("mutation %d: got %d (%s), want %d", k, rc, err.msg, want);
        assert_int_equal(err.code, want);
        assert_null(p);
        if (k == 6)
            assert_string_equal(
                err.msg,
                "function 'no_such_function_xyz' not found in the application or libcspark");
        if (k == 21) pb->n_rdds = saved;
        cs_stage_plan_pb_free(pb);
    }
    /* garbage bytes do not unpack into something that crashes decode */
    uint8_t junk[64];
    for (int i = 0; i < 64; i++)
        junk[i] = (uint8_t)(i * 37 + 11);
    Cspark__StagePlan *u = cspark__stage_plan__unpack(NULL, sizeof junk, junk);
    if (u) {
        stage_plan *p = NULL;
        assert_true(cs_stage_plan_decode(u, g_app, &p, &err) < 0);
        cspark__stage_plan__free_unpacked(u, NULL);
    }
    assert_int_equal(cs_stage_plan_decode(NULL, g_app, &(stage_plan *){NULL}, &err), CS_EPROTO);
}

/* ---- task results, map statuses, metrics ----------------------------------------------------- */

/* Sizes 0, 1000003, 2000006, ... with every seventh block empty and, above 2000 reduces, two
 * blocks past spark.shuffle.accurateBlockThreshold (kept exactly); raw sizes three times those
 * (the huge ones 3 x + 1: kept exactly too). */
static void fill_status(cs_map_status *st, int nred)
{
    memset(st, 0, sizeof *st);
    st->shuffle_id = 7;
    st->map_id = 3;
    uint64_t *sizes = cs_xcalloc((size_t)nred + 1, sizeof *sizes);
    for (int i = 0; i < nred; i++)
        sizes[i] = i % 7 ? (uint64_t)(i % 100) * 1000003u : 0;
    if (nred > 2000) sizes[11] = sizes[nred - 1] = 200ull << 20;
    cs_map_status_set_sizes(st, sizes, nred, NULL);
    for (int i = 0; i < nred; i++)
        sizes[i] = sizes[i] * 3 + (sizes[i] == 200ull << 20);
    cs_map_status_set_raw_sizes(st, sizes);
    assert_true(nred == 0 || st->has_raw);
    if (nred > 2000) assert_int_equal(cs_map_status_raw_size(st, 11), (600ull << 20) + 1);
    free(sizes);
    snprintf(st->executor_id, sizeof st->executor_id, "executor-17");
    snprintf(st->host, sizeof st->host, "worker-3.example.com");
    st->port = 40123;
    st->records_written = 123456789012ULL;
    st->bytes_written = 98765432101ULL;
}

static void cmp_status(const cs_map_status *a, const cs_map_status *b)
{
    assert_int_equal(a->shuffle_id, b->shuffle_id);
    assert_int_equal(a->map_id, b->map_id);
    cmp_sizes(a, b);
    assert_string_equal(a->executor_id, b->executor_id);
    assert_string_equal(a->host, b->host);
    assert_int_equal(a->port, b->port);
    assert_int_equal(a->records_written, b->records_written);
    assert_int_equal(a->bytes_written, b->bytes_written);
}

static void result_roundtrip(const task_result *r, task_result *out)
{
    cs_error err;
    Cspark__TaskResult pb;
    memset(&pb, 0, sizeof pb);
    assert_int_equal(cs_task_result_encode(r, &pb, &err), 0);
    size_t len = cspark__task_result__get_packed_size(&pb);
    uint8_t *buf = cs_xmalloc(len);
    assert_int_equal(cspark__task_result__pack(&pb, buf), len);
    cs_task_result_pb_clear(&pb);
    Cspark__TaskResult *u = cspark__task_result__unpack(NULL, len, buf);
    free(buf);
    assert_non_null(u);
    cs_task_result_init(out);
    if (cs_task_result_decode(u, out, &err) != 0) fail_msg("%s", err.msg);
    cspark__task_result__free_unpacked(u, NULL);
}

static void test_task_result(void **state)
{
    (void)state;
    task_result r;
    cs_task_result_init(&r);
    r.status = TASK_FETCH_FAILED;
    r.error = cs_xstrdup("fetch of shuffle 7 map 3 failed");
    r.fetch_shuffle_id = 7;
    r.fetch_map_id = 3;
    for (int i = 0; i < 20000; i++) {
        char v[128];
        int n = snprintf(v, sizeof v, "value-%d-%.*s", i, i % 90,
                         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                         "xxxxxxxxxxxxxxxxxx");
        uint8_t k[8];
        cspark_i64_encode(i, k);
        cs_batch_append_record(&r.data, k, 8, v, (uint32_t)n);
    }
    uint8_t *big = cs_xcalloc(200000, 1);
    for (int i = 0; i < 200000; i++)
        big[i] = (uint8_t)i;
    cs_batch_append_record(&r.data, "", 0, big, 200000); /* a block of its own */
    cs_batch_append_record(&r.data, "k", 1, "", 0);
    free(big);
    r.count = 20002;
    fill_status(&r.map_status, 5);
    r.has_map_status = true;
    int64_t *m = (int64_t *)&r.metrics;
    for (size_t i = 0; i < sizeof r.metrics / sizeof *m; i++)
        m[i] = (int64_t)(i + 1) * 1000000007LL;

    task_result o;
    result_roundtrip(&r, &o);
    assert_int_equal(o.status, r.status);
    assert_string_equal(o.error, r.error);
    assert_int_equal(o.fetch_shuffle_id, 7);
    assert_int_equal(o.fetch_map_id, 3);
    cmp_batch(&r.data, &o.data);
    assert_int_equal(o.count, r.count);
    assert_true(o.has_map_status);
    cmp_status(&r.map_status, &o.map_status);
    assert_memory_equal(&o.metrics, &r.metrics, sizeof r.metrics);
    cs_task_result_free(&o);

    /* the encoded data is plain recio: a recio reader decodes it as well */
    Cspark__TaskResult pb;
    memset(&pb, 0, sizeof pb);
    cs_error err;
    assert_int_equal(cs_task_result_encode(&r, &pb, &err), 0);
    cs_batch b;
    cs_batch_init(&b);
    assert_int_equal(cs_recio_decode_all(pb.data.data, pb.data.len, &b, &err), 0);
    cmp_batch(&r.data, &b);
    cs_batch_free(&b);
    /* corrupt data and a bad status are refused */
    pb.data.data[8] = 9;
    cs_task_result_init(&o);
    assert_int_equal(cs_task_result_decode(&pb, &o, &err), CS_EPROTO);
    assert_int_equal(o.data.n, 0);
    cs_task_result_free(&o);
    pb.data.data[8] = RECIO_CODEC_NONE;
    pb.status = 17;
    cs_task_result_init(&o);
    assert_int_equal(cs_task_result_decode(&pb, &o, &err), CS_EPROTO);
    cs_task_result_free(&o);
    cs_task_result_pb_clear(&pb);
    cs_task_result_free(&r);

    /* an empty OK result */
    cs_task_result_init(&r);
    r.count = 5;
    result_roundtrip(&r, &o);
    assert_int_equal(o.status, TASK_OK);
    assert_null(o.error);
    assert_int_equal(o.data.n, 0);
    assert_false(o.has_map_status);
    assert_int_equal(o.count, 5);
    assert_int_equal(o.fetch_map_id, -1);
    cs_task_result_free(&o);
    cs_task_result_free(&r);
}

static void map_status_roundtrip(int nred)
{
    cs_error err;
    cs_map_status st, back;
    fill_status(&st, nred);
    assert_int_equal(st.sizes_kind,
                     nred > 2000 ? CS_MAP_SIZES_HIGHLY_COMPRESSED : CS_MAP_SIZES_COMPRESSED);
    Cspark__MapStatus pb;
    assert_int_equal(cs_map_status_encode(&st, &pb, &err), 0);
    size_t len = cspark__map_status__get_packed_size(&pb);
    uint8_t *buf = cs_xmalloc(len);
    cspark__map_status__pack(&pb, buf);
    Cspark__MapStatus *u = cspark__map_status__unpack(NULL, len, buf);
    assert_non_null(u);
    assert_int_equal(cs_map_status_decode(u, &back, &err), 0);
    cmp_status(&st, &back);
    cs_map_status_free(&back);
    cspark__map_status__free_unpacked(u, NULL);
    free(buf);
    /* a host longer than cs_map_status holds is refused */
    char *host = pb.host;
    char longhost[400];
    memset(longhost, 'h', sizeof longhost - 1);
    longhost[sizeof longhost - 1] = 0;
    pb.host = longhost;
    assert_int_equal(cs_map_status_decode(&pb, &back, &err), CS_EPROTO);
    assert_null(back.blocks);
    pb.host = host;
    if (st.sizes_kind == CS_MAP_SIZES_HIGHLY_COMPRESSED) {
        /* exact sizes for the two huge blocks; an empty one, and the average for the others */
        assert_int_equal(st.num_huge, 2);
        assert_int_equal(cs_map_status_size(&st, 11), 200ull << 20);
        assert_int_equal(cs_map_status_size(&st, nred - 1), 200ull << 20);
        assert_true(cs_map_status_block_empty(&st, 7) && !cs_map_status_block_empty(&st, 8));
        assert_true(cs_map_status_size(&st, 8) > 0);
        /* huge blocks out of order, or one marked empty, are refused */
        uint32_t swapped = pb.huge_ids[0];
        pb.huge_ids[0] = pb.huge_ids[1];
        pb.huge_ids[1] = swapped;
        assert_int_equal(cs_map_status_decode(&pb, &back, &err), CS_EPROTO);
        pb.huge_ids[1] = pb.huge_ids[0];
        pb.huge_ids[0] = 14;
        assert_int_equal(cs_map_status_decode(&pb, &back, &err), CS_EPROTO);
        pb.huge_ids[0] = swapped;
    }
    /* a bitmap or a byte array of the wrong length is refused */
    pb.blocks.len--;
    assert_int_equal(cs_map_status_decode(&pb, &back, &err), CS_EPROTO);
    pb.blocks.len++;
    cs_map_status_pb_clear(&pb);
    cs_map_status_free(&st);
}

static void test_map_status(void **state)
{
    (void)state;
    for (int nred = 300; nred <= 3000; nred += 2700)
        map_status_roundtrip(nred);
    /* metrics alone */
    cs_task_metrics mt, mb;
    int64_t *m = (int64_t *)&mt;
    for (size_t i = 0; i < sizeof mt / sizeof *m; i++)
        m[i] = -(int64_t)i * 77;
    Cspark__TaskMetrics tm;
    cs_task_metrics_to_pb(&mt, &tm);
    cs_task_metrics_from_pb(&tm, &mb);
    assert_memory_equal(&mt, &mb, sizeof mt);
}

/* Per-task cost: a map task's result (200 reduce sizes) and a small collect result, through
 * encode, pack, unpack and decode, well above 10,000 tasks/s. */
static void test_result_throughput(void **state)
{
    (void)state;
    task_result map_r, col_r;
    cs_task_result_init(&map_r);
    fill_status(&map_r.map_status, 200);
    map_r.has_map_status = true;
    cs_task_result_init(&col_r);
    for (int i = 0; i < 16; i++)
        put_kv(&col_r.data, i, i * 3);
    col_r.count = 16;
    const int n = 20000;
    uint8_t buf[8192];
    cs_error err;
    for (int i = 0; i < n; i++) {
        const task_result *r = (i & 1) ? &col_r : &map_r;
        Cspark__TaskResult pb;
        memset(&pb, 0, sizeof pb);
        assert_int_equal(cs_task_result_encode(r, &pb, &err), 0);
        size_t len = cspark__task_result__get_packed_size(&pb);
        assert_true(len <= sizeof buf);
        cspark__task_result__pack(&pb, buf);
        cs_task_result_pb_clear(&pb);
        Cspark__TaskResult *u = cspark__task_result__unpack(NULL, len, buf);
        task_result o;
        cs_task_result_init(&o);
        assert_int_equal(cs_task_result_decode(u, &o, &err), 0);
        assert_int_equal(o.data.n, r->data.n);
        cspark__task_result__free_unpacked(u, NULL);
        cs_task_result_free(&o);
    }
    cs_task_result_free(&map_r);
    cs_task_result_free(&col_r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrow_lineage),
        cmocka_unit_test(test_cartesian),
        cmocka_unit_test(test_sinks),
        cmocka_unit_test(test_shuffle_aggregate),
        cmocka_unit_test(test_in_process_map_outputs_not_compressed),
        cmocka_unit_test(test_shuffle_fold_by_key_zero),
        cmocka_unit_test(test_shuffle_sort_range),
        cmocka_unit_test(test_shuffle_plain_round_robin),
        cmocka_unit_test(test_shuffle_cogroup_join),
        cmocka_unit_test(test_missing_map_output),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_task_result),
        cmocka_unit_test(test_map_status),
        cmocka_unit_test(test_result_throughput),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
