/*
 * sql_exec.c — the kind RDD_SQL_EXEC: one stage of a Spark SQL query (Spark's
 * WholeStageCodegen / ShuffledRowRDD / FileScanRDD chain of one stage, as one node). The node
 * carries the stage's physical tree (sqlexec/phys_plan.h, encoded by cs_phys_encode); its task
 * builds the operators for its partition (cs_phys_build), runs them and outputs their batches
 * as records:
 *   - root EXCHANGE (the map side of a shuffle): every row goes to its reduce partition
 *     (cs_exchange_partition, Spark's); each input batch is held reordered by partition (so a
 *     partition's rows are one run of it) and each partition keeps its runs, gathered (a copy
 *     per run) once when it reaches batch_rows, or when the held batches reach batch_rows times
 *     the partitions (every partition is then gathered and the batches let go); each gathered
 *     batch becomes a record (key = the 4-byte big-endian reduce partition, value = the batch
 *     encoded by cs_sql_batch_encode), written by the stage's shuffle sink through a
 *     dependency whose partitioner is PART_PASSTHROUGH;
 *   - otherwise (a result, or a BROADCAST_EXCHANGE's rows for the driver): an empty key and one
 *     encoded batch per record.
 * The tree's input leaves read: SHUFFLE_READ i the node's shuffle dependency i (exec's plain
 * shuffle read: remote fetches, and fetch failures that make the scheduler resubmit the map
 * stage; with adaptive execution's read ranges, partitions [start[p], end[p]) one after the
 * other), PARENT_READ i partition p of parent i (records as above), BROADCAST_READ i the
 * broadcast variable broadcast_ids[i] (encoded batches, each preceded by its u32 little-endian
 * length). A RANGE exchange's bounds (a batch of its sort keys' columns, sampled by the driver)
 * travel with the node too. A sampling node (sql_sample_size > 0: the same tree as a RANGE
 * exchange's map side, run first by the driver) partitions nothing: each task keeps a reservoir
 * sample of its rows' sort keys (sqlexec/range_partitioner.h) and outputs it as one record whose
 * key is its row count.
 *
 * The operators see a cs_sql_exec_ctx made from the task: columns allocated against the task's
 * execution memory, spills in the executor's local directory, spark.sql.ansi.enabled and
 * spark.sql.session.timeZone from the query's session (carried by the node; the application's
 * conf when the node has none), the task's kill flag, and the executor's Python worker factory
 * (an exec service, with spark.python.worker.reuse of the application's conf), and a broadcast
 * input's value derived once per process (a broadcast join's hash table) through the task's pinned
 * broadcast (exec/task_vars.h). The tree is
 * decoded once per stage plan on executors (kept in the node, read by every task) and once per
 * task where the node was never encoded (local mode).
 *
 * Ownership: the node owns its packed plan, bounds, broadcast ids and decoded tree (freed with
 * its graph); an iterator owns its operators and buffers. One task thread per iterator.
 */
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "exec/barrier_task.h"
#include "exec/exec_services.h"
#include "exec/part_iter.h"
#include "exec/task_vars.h"
#include "common/conf_entries.h"
#include "plan/rdd_kind.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/python_worker_factory.h"
#include "sqlexec/range_partitioner.h"

static void free_tree(void *tree)
{
    cs_phys_free(tree);
}

cspark_rdd *cs_rdd_sql_exec_new(lineage_graph *g, const uint8_t *plan, size_t plan_len,
                                int num_partitions, const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, RDD_SQL_EXEC, num_partitions, name);
    r->sql_plan = cs_xmalloc(plan_len + 1);
    if (plan_len) memcpy(r->sql_plan, plan, plan_len);
    r->sql_plan_len = plan_len;
    return r;
}

void cs_rdd_sql_exec_set_broadcasts(cspark_rdd *r, const int64_t *ids, int n)
{
    free(r->broadcast_ids);
    r->broadcast_ids = cs_xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof *r->broadcast_ids);
    if (n > 0) memcpy(r->broadcast_ids, ids, (size_t)n * sizeof *ids);
    r->num_broadcasts = n > 0 ? n : 0;
}

void cs_rdd_sql_exec_set_range_bounds(cspark_rdd *r, const uint8_t *bounds, size_t len)
{
    free(r->sql_bounds);
    r->sql_bounds = cs_xmalloc(len + 1);
    if (len) memcpy(r->sql_bounds, bounds, len);
    r->sql_bounds_len = len;
}

void cs_rdd_sql_exec_set_read_ranges(cspark_rdd *r, const int *start, const int *end)
{
    size_t n = (size_t)(r->num_partitions > 0 ? r->num_partitions : 0);
    free(r->sql_read_start);
    free(r->sql_read_end);
    r->sql_read_start = cs_xcalloc(n + 1, sizeof *r->sql_read_start);
    r->sql_read_end = cs_xcalloc(n + 1, sizeof *r->sql_read_end);
    if (n) memcpy(r->sql_read_start, start, n * sizeof *start);
    if (n) memcpy(r->sql_read_end, end, n * sizeof *end);
}

void cs_rdd_sql_exec_set_session(cspark_rdd *r, bool ansi, const char *tz)
{
    free(r->sql_tz);
    r->sql_session = true;
    r->sql_ansi = ansi;
    r->sql_tz = cs_xstrdup(tz && *tz ? tz : "UTC");
}

static int sql_encode(const cspark_rdd *r, Cspark__RddNode *pb, cs_error *err)
{
    (void)err;
    pb->sql_plan.data = cs_xmalloc(r->sql_plan_len + 1);
    memcpy(pb->sql_plan.data, r->sql_plan, r->sql_plan_len);
    pb->sql_plan.len = r->sql_plan_len;
    if (r->sql_bounds) {
        pb->sql_range_bounds.data = cs_xmalloc(r->sql_bounds_len + 1);
        memcpy(pb->sql_range_bounds.data, r->sql_bounds, r->sql_bounds_len);
        pb->sql_range_bounds.len = r->sql_bounds_len;
        pb->has_sql_range_bounds = true;
    }
    pb->sql_sample_size = r->sql_sample_size;
    if (r->sql_read_start) {
        size_t n = (size_t)r->num_partitions;
        pb->sql_read_start = cs_xcalloc(n + 1, sizeof *pb->sql_read_start);
        pb->sql_read_end = cs_xcalloc(n + 1, sizeof *pb->sql_read_end);
        for (size_t i = 0; i < n; i++) {
            pb->sql_read_start[i] = r->sql_read_start[i];
            pb->sql_read_end[i] = r->sql_read_end[i];
        }
        pb->n_sql_read_start = pb->n_sql_read_end = n;
    }
    if (r->num_broadcasts > 0) {
        pb->broadcast_ids = cs_xmalloc((size_t)r->num_broadcasts * sizeof *pb->broadcast_ids);
        memcpy(pb->broadcast_ids, r->broadcast_ids,
               (size_t)r->num_broadcasts * sizeof *pb->broadcast_ids);
        pb->n_broadcast_ids = (size_t)r->num_broadcasts;
    }
    if (r->sql_session) {
        pb->has_sql_session = true;
        pb->sql_ansi = r->sql_ansi;
        pb->sql_session_time_zone = cs_xstrdup(r->sql_tz);
    }
    return 0;
}

/* Counts the input leaves of each kind (their highest input + 1). */
static void count_inputs(const cs_phys_node *n, int *shuffles, int *broadcasts, int *parents)
{
    int *c = n->kind == CS_PH_SHUFFLE_READ     ? shuffles
             : n->kind == CS_PH_BROADCAST_READ ? broadcasts
             : n->kind == CS_PH_PARENT_READ    ? parents
                                               : NULL;
    if (c && n->input + 1 > *c) *c = n->input + 1;
    for (int i = 0; i < n->n_children; i++)
        count_inputs(n->children[i], shuffles, broadcasts, parents);
}

static int sql_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    r->sql_plan = cs_xmalloc(pb->sql_plan.len + 1);
    if (pb->sql_plan.len) memcpy(r->sql_plan, pb->sql_plan.data, pb->sql_plan.len);
    r->sql_plan_len = pb->sql_plan.len;
    if (pb->has_sql_range_bounds)
        cs_rdd_sql_exec_set_range_bounds(r, pb->sql_range_bounds.data, pb->sql_range_bounds.len);
    if (pb->sql_sample_size < 0)
        return cs_rdd_kind_proto_error(err, idx, "a sample of %d rows", pb->sql_sample_size);
    r->sql_sample_size = pb->sql_sample_size;
    if (pb->n_sql_read_start || pb->n_sql_read_end) {
        if (pb->n_sql_read_start != (size_t)r->num_partitions ||
            pb->n_sql_read_end != pb->n_sql_read_start)
            return cs_rdd_kind_proto_error(err, idx, "%zu read ranges for %d partitions",
                                           pb->n_sql_read_start, r->num_partitions);
        for (size_t i = 0; i < pb->n_sql_read_start; i++)
            if (pb->sql_read_start[i] < 0 || pb->sql_read_end[i] <= pb->sql_read_start[i])
                return cs_rdd_kind_proto_error(err, idx, "read range %zu is [%d, %d)", i,
                                               pb->sql_read_start[i], pb->sql_read_end[i]);
        cs_rdd_sql_exec_set_read_ranges(r, pb->sql_read_start, pb->sql_read_end);
    }
    if (pb->n_broadcast_ids > 4096)
        return cs_rdd_kind_proto_error(err, idx, "%zu broadcast inputs", pb->n_broadcast_ids);
    cs_rdd_sql_exec_set_broadcasts(r, pb->broadcast_ids, (int)pb->n_broadcast_ids);
    if (pb->has_sql_session)
        cs_rdd_sql_exec_set_session(r, pb->sql_ansi, pb->sql_session_time_zone);
    cs_phys_node *tree = cs_phys_decode(r->sql_plan, r->sql_plan_len, err);
    if (!tree) return cs_error_prefix(err, "stage plan: node %d", idx);
    int shuffles = 0, broadcasts = 0, parents = 0;
    count_inputs(tree, &shuffles, &broadcasts, &parents);
    if (shuffles > (int)pb->n_deps || parents > (int)pb->n_parents ||
        broadcasts > r->num_broadcasts) {
        cs_phys_free(tree);
        return cs_rdd_kind_proto_error(err, idx,
                                       "its plan reads %d shuffles, %d parents and %d broadcasts "
                                       "but the node has %zu, %zu and %d",
                                       shuffles, parents, broadcasts, pb->n_deps, pb->n_parents,
                                       r->num_broadcasts);
    }
    r->sql_tree = tree;
    r->sql_tree_free = free_tree;
    return 0;
}

static int sql_check_parents(const cspark_rdd *r, int idx, cs_error *err)
{
    for (int i = 0; i < r->num_parents; i++) /* read narrowly: partition i is theirs */
        if (r->parents[i]->num_partitions != r->num_partitions)
            return cs_rdd_kind_proto_error(err, idx, "%d partitions but its parent %d has %d",
                                           r->num_partitions, i, r->parents[i]->num_partitions);
    return 0;
}

static int sql_parent_partitions(const cspark_rdd *r, int partition, cs_rdd_parent_partition *out,
                                 int max)
{
    for (int p = 0; p < r->num_parents && p < max; p++)
        out[p] = (cs_rdd_parent_partition){r->parents[p], partition};
    return r->num_parents;
}

/* ---- the task ---- */

/* Rows of one reduce partition waiting to leave as one record: one run of each held batch it has
 * rows in. */
typedef struct pending {
    cs_sql_row_run *runs;
    int n_runs, cap;
    int64_t rows;
} pending;

typedef struct sql_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    int partition;
    cs_phys_node *own_tree;       /* decoded for this task when the node holds none */
    const cs_phys_node *exchange; /* the root EXCHANGE, or NULL */
    cs_col_type *out_schema;      /* the batches' schema (the exchange's child's) */
    cs_col_allocator alloc;
    cs_sql_exec_ctx ctx;
    cs_sql_op *op;
    bool opened, drained;
    cs_exchange_partitioner *partitioner;
    cs_range_reservoir *reservoir; /* a sampling node's (sql_sample_size > 0) */
    bool sampled;                  /* its record was output */
    pending *pend;
    cs_col_batch **held; /* the input batches pending rows are in (one reference each) */
    int n_held, held_cap;
    int64_t held_rows;
    int n_parts, flush_next;
    int32_t *part, *idx;
    int64_t part_cap;
    cs_batch out;
    cs_sbuf enc;
    cs_barrier_task *barrier; /* a barrier task's BarrierTaskContext service, or NULL */
} sql_iter;

/* An input leaf: batches decoded from records (a shuffle's or a parent's) or from a broadcast
 * value. */
typedef struct input_op {
    cs_sql_op base;
    sql_iter *it;
    part_iter *records;      /* shuffle, parent */
    const shuffle_dep *dep;  /* shuffle: its dependency ... */
    int next_part, end_part; /* ... and the partitions still to read after records' */
    const cs_batch *recs;
    size_t next_rec;
    const uint8_t *value; /* broadcast: the pinned value */
    size_t value_len, value_pos;
} input_op;

static int input_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    (void)op;
    (void)ctx;
    (void)err;
    return CS_OK;
}

static int decode_into(input_op *in, const uint8_t *p, size_t n, cs_col_batch **out, cs_error *err)
{
    int rc = cs_sql_batch_decode(in->base.schema, p, n, &in->it->alloc, out, err);
    if (rc) cs_error_prefix(err, "SQL stage input");
    return rc;
}

static int input_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    input_op *in = (input_op *)op;
    if (!in->records) { /* broadcast: u32 little-endian length, batch, ... */
        if (in->value_pos >= in->value_len) return CS_OK;
        uint32_t n;
        if (in->value_len - in->value_pos < 4) goto bad;
        memcpy(&n, in->value + in->value_pos, 4);
        in->value_pos += 4;
        if (n > in->value_len - in->value_pos) goto bad;
        const uint8_t *p = in->value + in->value_pos;
        in->value_pos += n;
        return decode_into(in, p, n, out, err);
    bad:
        return cs_error_set(err, CS_EPROTO, "a broadcast relation: a batch runs past its end");
    }
    for (;;) {
        if (in->recs && in->next_rec < in->recs->n) {
            cspark_record r = batch_get(in->recs, in->next_rec++);
            return decode_into(in, r.value.ptr, r.value.len, out, err);
        }
        const cs_batch *b = NULL;
        int rc = in->records->next(in->records, &b, err);
        if (rc < 0) return rc;
        if (rc == 0 && in->next_part < in->end_part) { /* the next partition of the range */
            cs_part_iter_free(in->records);
            in->recs = NULL;
            in->records = cs_shuffle_dep_iter_open(in->it->tc, in->dep, in->next_part++, err);
            if (!in->records) return err->code ? err->code : CS_EINVAL;
            continue;
        }
        if (rc == 0) return CS_OK;
        in->recs = b;
        in->next_rec = 0;
    }
}

static void input_destroy(cs_sql_op *op)
{
    input_op *in = (input_op *)op;
    if (in->records) cs_part_iter_free(in->records);
    free(in);
}

static const cs_sql_op_vtable input_vt = {
    .name = "InputAdapter",
    .open = input_open,
    .next = input_next,
    .destroy = input_destroy,
};

static cs_sql_op *open_input(void *arg, const cs_phys_node *leaf, cs_error *err)
{
    sql_iter *it = arg;
    cspark_rdd *r = it->rdd;
    input_op *in = cs_xcalloc(1, sizeof *in);
    in->it = it;
    int i = leaf->input;
    switch (leaf->kind) {
    case CS_PH_SHUFFLE_READ: {
        if (i < 0 || i >= r->num_deps) goto missing;
        int from = it->partition, to = it->partition + 1;
        if (r->sql_read_start) { /* a coalesced read: a range of partitions, one after another */
            from = r->sql_read_start[it->partition];
            to = r->sql_read_end[it->partition];
        }
        in->dep = r->deps[i];
        in->next_part = from + 1;
        in->end_part = to;
        in->records = cs_shuffle_dep_iter_open(it->tc, r->deps[i], from, err);
        break;
    }
    case CS_PH_PARENT_READ:
        if (i < 0 || i >= r->num_parents) goto missing;
        in->records = cs_part_iter_open(it->tc, r->parents[i], it->partition, err);
        break;
    case CS_PH_BROADCAST_READ:
        if (i < 0 || i >= r->num_broadcasts) goto missing;
        /* pinned for the attempt; an unreachable broadcast fails the task */
        in->value = cspark_broadcast_value(it->tc, (cspark_broadcast_var){r->broadcast_ids[i]},
                                           &in->value_len);
        break;
    default:
        goto missing;
    }
    if (leaf->kind != CS_PH_BROADCAST_READ && !in->records) {
        free(in);
        return NULL;
    }
    cs_sql_op_init(&in->base, &input_vt, cs_col_type_ref(leaf->schema), NULL, 0);
    return &in->base;
missing:
    free(in);
    cs_error_set(err, CS_EINVAL, "SQL stage node %d: %s reads input %d, which it does not have",
                 r->id, cs_phys_node_name(leaf), i);
    return NULL;
}

/* cs_sql_exec_ctx.broadcast_shared: the task's broadcast input i, its value derived once per
 * process in the broadcast store (exec/task_vars.h). */
static int broadcast_shared(void *arg, int input, const char *key, cs_sql_broadcast_build_fn build,
                            void *build_arg, void (*free_fn)(void *value), void **out,
                            cs_error *err)
{
    sql_iter *it = arg;
    if (input < 0 || input >= it->rdd->num_broadcasts)
        return cs_error_set(err, CS_EINVAL,
                            "SQL stage node %d reads broadcast %d, which it does "
                            "not have",
                            it->rdd->id, input);
    return cs_task_vars_broadcast_derived(it->tc, it->rdd->broadcast_ids[input], key, build,
                                          build_arg, free_fn, out, err);
}

/* One record of batch b: key (4 bytes or none), value its encoding. A batch over the record
 * limit is halved until it fits. */
static int emit_batch(sql_iter *it, const uint8_t *key, uint32_t klen, cs_col_batch *b,
                      cs_error *err)
{
    it->enc.len = 0;
    int rc = cs_sql_batch_encode(b, &it->enc, err);
    if (rc) return rc;
    if (klen + it->enc.len > CSPARK_MAX_RECORD_BYTES) {
        if (b->num_rows < 2)
            return cs_error_set(err, CS_EINVAL,
                                "SQL stage: one row of %zu bytes is over the record limit "
                                "(CSPARK_MAX_RECORD_BYTES)",
                                it->enc.len);
        int64_t half = b->num_rows / 2;
        for (int k = 0; k < 2 && rc == CS_OK; k++) {
            int64_t from = k ? half : 0, to = k ? b->num_rows : half;
            int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(to - from));
            for (int64_t r = from; r < to; r++)
                idx[r - from] = (int32_t)r;
            cs_col_batch *part = cs_col_batch_take(b, idx, to - from, &it->alloc);
            free(idx);
            rc = emit_batch(it, key, klen, part, err);
            cs_col_batch_unref(part);
        }
        return rc;
    }
    cs_batch_append_record(&it->out, key, klen, it->enc.data, (uint32_t)it->enc.len);
    return CS_OK;
}

/* The rows waiting for reduce partition p as one record. */
static int flush_partition(sql_iter *it, int p, cs_error *err)
{
    pending *pd = &it->pend[p];
    if (pd->rows == 0) return CS_OK;
    uint8_t key[4] = {(uint8_t)(p >> 24), (uint8_t)(p >> 16), (uint8_t)(p >> 8), (uint8_t)p};
    cs_col_batch *whole = it->held[pd->runs[0].batch]; /* all of one batch: no copy */
    bool all = pd->n_runs == 1 && whole->num_rows == pd->rows;
    cs_col_batch *b =
        all ? cs_col_batch_ref(whole)
            : cs_sql_batch_gather_runs(it->out_schema, it->held, pd->runs, pd->n_runs, &it->alloc);
    int rc = emit_batch(it, key, 4, b, err);
    cs_col_batch_unref(b);
    pd->rows = 0;
    pd->n_runs = 0;
    return rc;
}

/* Lets the held batches go (no partition has rows pending). */
static void release_held(sql_iter *it)
{
    for (int i = 0; i < it->n_held; i++)
        cs_col_batch_unref(it->held[i]);
    it->n_held = 0;
    it->held_rows = 0;
}

/* Adds batch b's rows to their reduce partitions' pending rows (holding b); flushes partitions
 * that reach batch_rows, and every partition when the held batches reach batch_rows times the
 * partitions (so that a partition with few rows does not hold batches without bound). */
static int partition_batch(sql_iter *it, cs_col_batch *b, cs_error *err)
{
    int64_t rows = b->num_rows;
    if (rows > it->part_cap) {
        it->part_cap = rows;
        it->part = cs_xrealloc(it->part, sizeof *it->part * (size_t)rows);
        it->idx = cs_xrealloc(it->idx, sizeof *it->idx * (size_t)rows);
    }
    int rc = cs_exchange_partition(it->partitioner, b, &it->ctx, it->part, err);
    if (rc) return rc;
    /* rows grouped by partition with a counting pass (no per-row allocation) */
    int64_t *start = cs_xcalloc((size_t)it->n_parts + 1, sizeof *start);
    for (int64_t r = 0; r < rows; r++)
        start[it->part[r] + 1]++;
    bool one_part = false;
    for (int p = 0; p < it->n_parts; p++) {
        one_part = one_part || start[p + 1] == rows;
        start[p + 1] += start[p];
    }
    int64_t *fill = cs_xmalloc(sizeof *fill * (size_t)it->n_parts);
    memcpy(fill, start, sizeof *fill * (size_t)it->n_parts);
    for (int64_t r = 0; r < rows; r++)
        it->idx[fill[it->part[r]]++] = (int32_t)r;
    free(fill);
    if (it->n_held == it->held_cap) {
        it->held_cap = it->held_cap ? 2 * it->held_cap : 64;
        it->held = cs_xrealloc(it->held, sizeof *it->held * (size_t)it->held_cap);
    }
    /* The batch is held reordered by partition (one take whose reads stay within this batch,
     * still in cache): each partition's rows are then one run of it, and the gather at flush
     * reads runs of consecutive values instead of one scattered value per row. A batch all of
     * one partition is already in that order. */
    int32_t hb = it->n_held++;
    it->held[hb] = one_part ? cs_col_batch_ref(b) : cs_col_batch_take(b, it->idx, rows, &it->alloc);
    it->held_rows += rows;
    int64_t limit = cs_sql_batch_rows(&it->ctx);
    for (int p = 0; p < it->n_parts && rc == CS_OK; p++) {
        int64_t n = start[p + 1] - start[p];
        if (n == 0) continue;
        pending *pd = &it->pend[p];
        if (pd->n_runs == pd->cap) {
            pd->cap = pd->cap ? 2 * pd->cap : 8;
            pd->runs = cs_xrealloc(pd->runs, sizeof *pd->runs * (size_t)pd->cap);
        }
        pd->runs[pd->n_runs++] =
            (cs_sql_row_run){.batch = hb, .start = (int32_t)start[p], .len = n};
        pd->rows += n;
        if (pd->rows >= limit) rc = flush_partition(it, p, err);
    }
    free(start);
    if (rc == CS_OK && it->held_rows >= limit * it->n_parts) {
        for (int p = 0; p < it->n_parts && rc == CS_OK; p++)
            rc = flush_partition(it, p, err);
        if (rc == CS_OK) release_held(it);
    }
    return rc;
}

/* A sampling node's one record: key = rows seen (8 bytes big-endian), value = the sample. */
static int emit_sample(sql_iter *it, cs_error *err)
{
    it->sampled = true;
    cs_col_batch *b = cs_range_reservoir_sample(it->reservoir, &it->alloc, err);
    if (!b) return err->code ? err->code : CS_EINVAL;
    uint64_t n = (uint64_t)cs_range_reservoir_count(it->reservoir);
    uint8_t key[8];
    for (int i = 0; i < 8; i++)
        key[i] = (uint8_t)(n >> (56 - 8 * i));
    int rc = emit_batch(it, key, 8, b, err);
    cs_col_batch_unref(b);
    return rc;
}

static int sql_next(part_iter *pi, const cs_batch **out, cs_error *err)
{
    sql_iter *it = (sql_iter *)pi;
    cs_batch_reset(&it->out);
    if (!it->opened) {
        it->opened = true;
        int rc = cs_sql_op_open(it->op, &it->ctx, err);
        if (rc) return rc;
    }
    while (it->out.n == 0) {
        if (it->drained) { /* the exchange's leftovers, a partition per call */
            if (it->reservoir && !it->sampled) {
                int rc = emit_sample(it, err);
                if (rc) return rc;
                continue;
            }
            if (!it->exchange) return 0;
            if (it->flush_next >= it->n_parts) {
                release_held(it);
                return 0;
            }
            int rc = flush_partition(it, it->flush_next++, err);
            if (rc) return rc;
            continue;
        }
        cs_col_batch *b = NULL;
        int rc = cs_sql_op_next(it->op, &b, err);
        if (rc) return rc;
        if (!b) {
            it->drained = true;
            continue;
        }
        if (b->num_rows > 0 && it->reservoir)
            rc = cs_range_reservoir_add(it->reservoir, b, &it->alloc, err);
        else if (b->num_rows > 0)
            rc = it->exchange ? partition_batch(it, b, err) : emit_batch(it, NULL, 0, b, err);
        cs_col_batch_unref(b);
        if (rc) return rc;
    }
    *out = &it->out;
    return 1;
}

static void sql_free(part_iter *pi)
{
    sql_iter *it = (sql_iter *)pi;
    release_held(it); /* before the operators whose batches they are */
    if (it->op) cs_sql_op_free(it->op);
    cs_exchange_partitioner_free(it->partitioner);
    cs_range_reservoir_free(it->reservoir);
    free(it->held);
    for (int p = 0; it->pend && p < it->n_parts; p++)
        free(it->pend[p].runs);
    free(it->pend);
    free(it->part);
    free(it->idx);
    if (it->out_schema) cs_col_type_unref(it->out_schema);
    cs_phys_free(it->own_tree);
    cs_batch_free(&it->out);
    cs_sbuf_free(&it->enc);
    cs_barrier_task_free(it->barrier); /* after the Python workers that call it */
    free(it);
}

/* The session settings the operators need: the query's session's (what SET changed), else the
 * application's conf. */
static int read_conf(sql_iter *it, cs_error *err)
{
    const cs_conf *conf = it->tc->env->conf;
    it->ctx.ansi = true;
    it->ctx.session_tz = "UTC";
    if (it->rdd->sql_session) {
        it->ctx.ansi = it->rdd->sql_ansi;
        it->ctx.session_tz = it->rdd->sql_tz;
        return CS_OK;
    }
    if (!conf) return CS_OK;
    int rc = cs_conf_entry_bool(conf, "spark.sql.ansi.enabled", &it->ctx.ansi, err);
    const char *tz = cs_conf_get(conf, "spark.sql.session.timeZone");
    if (tz && *tz) it->ctx.session_tz = tz;
    return rc < 0 ? rc : CS_OK;
}

static void *py_factory_new(void *arg)
{
    return cs_py_worker_factory_new(*(const int *)arg);
}

static void py_factory_free(void *f)
{
    cs_py_worker_factory_free(f);
}

/* The executor's Python worker factory (made at the first task that asks, kept until the
 * executor stops: its idle workers serve the next tasks) and spark.python.worker.reuse. */
static int python_workers(sql_iter *it, cs_error *err)
{
    const exec_env *env = it->tc->env;
    it->ctx.py_reuse = true;
    if (env->conf &&
        cs_conf_entry_bool(env->conf, "spark.python.worker.reuse", &it->ctx.py_reuse, err) < 0)
        return err->code;
    int cores = env->cores > 0 ? env->cores : 1;
    it->ctx.py_workers =
        cs_exec_service(env->services, "python.workers", py_factory_new, py_factory_free, &cores);
    return CS_OK;
}

static part_iter *sql_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                              cs_error *err)
{
    sql_iter *it = cs_xcalloc(1, sizeof *it);
    it->base.next = sql_next;
    it->base.free = sql_free;
    it->tc = tc;
    it->rdd = rdd;
    it->partition = partition;
    cs_batch_init(&it->out);
    const cs_phys_node *tree = rdd->sql_tree;
    if (!tree) tree = it->own_tree = cs_phys_decode(rdd->sql_plan, rdd->sql_plan_len, err);
    if (!tree) goto fail;
    cs_col_allocator_init(&it->alloc, &tc->mem);
    it->ctx.alloc = &it->alloc;
    it->ctx.task_memory = &tc->mem;
    it->ctx.spill_dir = tc->env->local_dir;
    it->ctx.cancelled = tc->task->cancelled;
    it->ctx.partition_id = partition;
    it->ctx.stage_id = tc->task->stage_id;
    it->ctx.attempt_number = tc->task->attempt;
    it->ctx.task_attempt_id = tc->task->task_id;
    if (tc->task->barrier) { /* BarrierTaskContext's service, for the Python workers */
        if (!(it->barrier = cs_barrier_task_start(tc->env, tc->task, err))) goto fail;
        it->ctx.barrier_port = cs_barrier_task_port(it->barrier);
        it->ctx.barrier_secret = cs_barrier_task_secret(it->barrier);
        it->ctx.barrier_addresses = cs_barrier_task_addresses(it->barrier);
    }
    it->ctx.broadcast_shared = broadcast_shared;
    it->ctx.broadcast_arg = it;
    if (read_conf(it, err) < 0 || python_workers(it, err) < 0) goto fail;
    const cs_phys_node *body = tree;
    if (tree->kind == CS_PH_EXCHANGE || tree->kind == CS_PH_BROADCAST_EXCHANGE) {
        if (tree->n_children != 1) {
            cs_error_set(err, CS_EINVAL, "SQL stage node %d: an exchange without its child",
                         rdd->id);
            goto fail;
        }
        body = tree->children[0];
    }
    if (tree->kind == CS_PH_EXCHANGE && rdd->sql_sample_size > 0) { /* the bounds' sample */
        if (tree->n_sort_keys <= 0) {
            cs_error_set(err, CS_EINVAL, "SQL stage node %d: a sample without sort keys", rdd->id);
            goto fail;
        }
        it->reservoir =
            cs_range_reservoir_new(body->schema, tree->sort_keys, tree->n_sort_keys,
                                   rdd->sql_sample_size, cs_range_sample_seed(rdd->id, partition));
    } else if (tree->kind == CS_PH_EXCHANGE) {
        cs_col_batch *bounds = NULL;
        if (rdd->sql_bounds) {
            cs_col_type *bt = NULL;
            int nk = tree->n_sort_keys;
            cs_col_field *f = cs_xcalloc((size_t)nk + 1, sizeof *f);
            for (int k = 0; k < nk; k++)
                f[k] = body->schema->fields[tree->sort_keys[k].ordinal];
            for (int k = 0; k < nk; k++)
                cs_col_type_ref(f[k].type);
            bt = cs_col_type_struct(f, nk);
            free(f);
            int rc =
                cs_sql_batch_decode(bt, rdd->sql_bounds, rdd->sql_bounds_len, NULL, &bounds, err);
            cs_col_type_unref(bt);
            if (rc) goto fail;
        }
        it->exchange = tree;
        it->partitioner = cs_exchange_partitioner_new(tree, partition, bounds, err);
        if (bounds) cs_col_batch_unref(bounds);
        if (!it->partitioner) goto fail;
        it->n_parts = tree->partitioning == CS_PART_SINGLE ? 1 : tree->num_partitions;
        it->pend = cs_xcalloc((size_t)it->n_parts, sizeof *it->pend);
    }
    it->out_schema = cs_col_type_ref(body->schema);
    cs_phys_inputs in = {.partition = partition, .open_input = open_input, .arg = it};
    it->op = cs_phys_build(body, &in, err);
    if (!it->op) goto fail;
    return &it->base;
fail:
    if (!err->code) cs_error_set(err, CS_EINVAL, "SQL stage node %d: cannot start", rdd->id);
    sql_free(&it->base);
    return NULL;
}

const cs_rdd_kind cs_rdd_kind_sql_exec = {
    .kind = RDD_SQL_EXEC,
    .spark_class = "MapPartitionsRDD", /* the top RDD of a Spark SQL stage */
    .num_parents = CS_RDD_PARENTS_WITH_SHUFFLES,
    .encode = sql_encode,
    .decode = sql_decode,
    .check_parents = sql_check_parents,
    .parent_partitions = sql_parent_partitions,
    .compute = sql_compute,
};
