/*
 * exchange_codec.c — the data of SQL exchanges (phys_plan.h): a batch as the bytes of one
 * shuffle record or broadcast block (Arrow IPC's RecordBatch message alone, the schema being
 * the plan's), and the map side's partitioner, which gives every row its reduce partition as
 * Spark's ShuffleExchangeExec does:
 *   HASH         pmod(hash(keys), n): Murmur3Hash with seed 42 over the key expressions (the
 *                engine's `hash` function, Spark's) — the same partition as Spark's for every row;
 *   SINGLE       0;
 *   ROUND_ROBIN  from new XORShiftRandom(map partition).nextInt(n), plus one before each row,
 *                mod n (Spark's position counter fed to a HashPartitioner);
 *   RANGE        the first of the n - 1 bounds (Spark's RangePartitioner's rangeBounds, sampled
 *                by the driver) that is not below the row's sort key, in the sort's order.
 *
 * Called by the SQL node's task body (plan/kinds/sql_exec.c) on both sides of an exchange, and by
 * the driver for broadcast relations. Ownership: a partitioner owns its compiled key expression
 * and encoded bounds; batches are borrowed.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/arrow_ipc.h"
#include "formats/text_values.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/sql_ops_internal.h"

int cs_sql_batch_encode(const cs_col_batch *b, cs_sbuf *out, cs_error *err)
{
    return cs_ipc_write_batch_message(b, cs_ipc_write_sbuf, out, err);
}

int cs_sql_batch_decode(const cs_col_type *schema, const uint8_t *buf, size_t len,
                        cs_col_allocator *alloc, cs_col_batch **out, cs_error *err)
{
    return cs_ipc_read_batch_message(alloc, schema, buf, len, "of an exchange", out, err);
}

cs_col_batch *cs_sql_batch_gather_runs(cs_col_type *schema, cs_col_batch *const *b,
                                       const cs_sql_row_run *runs, int n_runs,
                                       cs_col_allocator *alloc)
{
    return cs_sql_gather_runs_batch(schema, b, runs, n_runs, alloc);
}

cs_col_batch *cs_sql_batch_concat(cs_col_type *schema, cs_col_batch *const *b, int n,
                                  cs_col_allocator *alloc)
{
    cs_sql_row_run *runs = cs_xmalloc(sizeof *runs * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        runs[i] = (cs_sql_row_run){.batch = i, .start = 0, .len = b[i]->num_rows};
    cs_col_batch *out = cs_sql_gather_runs_batch(schema, b, runs, n, alloc);
    free(runs);
    return out;
}

struct cs_exchange_partitioner {
    cs_phys_partitioning_kind kind;
    int32_t n;
    cs_pexpr_program *hash; /* HASH: hash(keys...) over the child's output */
    int32_t position;       /* ROUND_ROBIN: the last position given */
    /* RANGE: the sort keys, the bounds' encoded keys */
    cs_sort_key *keys;
    int n_keys;
    cs_sql_keybuf bounds, rows;
    int64_t n_bounds;
};

void cs_exchange_partitioner_free(cs_exchange_partitioner *p)
{
    if (!p) return;
    cs_pexpr_program_free(p->hash);
    free(p->keys);
    cs_sql_keybuf_free(&p->bounds);
    cs_sql_keybuf_free(&p->rows);
    free(p);
}

/* Frees p after a failure (err set): NULL. */
static cs_exchange_partitioner *failed(cs_exchange_partitioner *p)
{
    cs_exchange_partitioner_free(p);
    return NULL;
}

/* Prepares RANGE: the bounds' keys encoded once (their columns are the sort keys' in order). */
static int range_setup(cs_exchange_partitioner *p, const cs_phys_node *ex, const cs_col_type *input,
                       const cs_col_batch *bounds, cs_error *err)
{
    if (ex->n_sort_keys <= 0)
        return cs_error_set(err, CS_EINVAL, "Exchange rangepartitioning: no sort keys");
    for (int i = 0; i < ex->n_sort_keys; i++) {
        int o = ex->sort_keys[i].ordinal;
        if (o < 0 || o >= input->n_fields)
            return cs_error_set(err, CS_EINVAL,
                                "Exchange rangepartitioning: sort key ordinal %d of %d columns", o,
                                input->n_fields);
    }
    p->n_keys = ex->n_sort_keys;
    p->keys = cs_xcalloc((size_t)p->n_keys, sizeof *p->keys);
    memcpy(p->keys, ex->sort_keys, sizeof *p->keys * (size_t)p->n_keys);
    if (!bounds || bounds->num_rows == 0) return CS_OK; /* everything to partition 0 */
    if (bounds->num_rows > p->n - 1 || bounds->n_columns != p->n_keys)
        return cs_error_set(err, CS_EINVAL,
                            "Exchange rangepartitioning: %lld bounds of %d columns for %d "
                            "partitions and %d sort keys",
                            (long long)bounds->num_rows, bounds->n_columns, p->n, p->n_keys);
    cs_sort_key *bk = cs_xcalloc((size_t)p->n_keys, sizeof *bk);
    for (int i = 0; i < p->n_keys; i++) {
        if (!cs_col_type_equal(bounds->columns[i]->type, input->fields[p->keys[i].ordinal].type)) {
            free(bk);
            return cs_error_set(err, CS_EINVAL,
                                "Exchange rangepartitioning: bound column %d is not of its sort "
                                "key's type",
                                i);
        }
        bk[i] = (cs_sort_key){i, p->keys[i].descending, p->keys[i].nulls_first};
    }
    cs_sql_keys_encode(&p->bounds, bounds, bk, p->n_keys, false);
    free(bk);
    p->n_bounds = bounds->num_rows;
    return CS_OK;
}

cs_exchange_partitioner *cs_exchange_partitioner_new(const cs_phys_node *ex, int map_partition,
                                                     const cs_col_batch *bounds, cs_error *err)
{
    if (ex->kind != CS_PH_EXCHANGE || ex->n_children != 1 || !ex->children[0] ||
        !ex->children[0]->schema)
        return cs_error_set(err, CS_EINVAL,
                            "a partitioner for %s: expected an Exchange over one "
                            "child",
                            cs_phys_node_name(ex)),
               NULL;
    cs_exchange_partitioner *p = cs_xcalloc(1, sizeof *p);
    p->kind = ex->partitioning;
    p->n = ex->partitioning == CS_PART_SINGLE ? 1 : ex->num_partitions;
    if (p->n <= 0) {
        cs_error_set(err, CS_EINVAL, "Exchange: %d partitions (expected at least 1)", p->n);
        return failed(p);
    }
    const cs_col_type *input = ex->children[0]->schema;
    switch (ex->partitioning) {
    case CS_PART_SINGLE:
        return p;
    case CS_PART_ROUND_ROBIN:
        p->position = cs_tv_xorshift_first_int(map_partition, p->n);
        return p;
    case CS_PART_HASH: {
        if (ex->n_exprs <= 0) {
            cs_error_set(err, CS_EINVAL, "Exchange hashpartitioning: no keys");
            return failed(p);
        }
        cs_pexpr **args = cs_xcalloc((size_t)ex->n_exprs, sizeof *args);
        for (int i = 0; i < ex->n_exprs; i++)
            args[i] = cs_pexpr_clone(ex->exprs[i]);
        cs_pexpr *h =
            cs_pexpr_call("hash", cs_col_type_primitive(CS_TYPE_INT), false, args, ex->n_exprs);
        free(args);
        p->hash = cs_pexpr_compile(h, input, err);
        cs_pexpr_free(h);
        if (!p->hash) {
            cs_error_prefix(err, "Exchange hashpartitioning");
            return failed(p);
        }
        return p;
    }
    case CS_PART_RANGE:
        return range_setup(p, ex, input, bounds, err) ? failed(p) : p;
    }
    cs_error_set(err, CS_EINVAL, "Exchange: partitioning kind %d", (int)ex->partitioning);
    return failed(p);
}

/* The number of bounds strictly below key k (Spark's RangePartitioner.getPartition). */
static int32_t range_partition(const cs_exchange_partitioner *p, const uint8_t *k, size_t klen)
{
    int64_t lo = 0, hi = p->n_bounds;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        const uint8_t *b = p->bounds.bytes + p->bounds.off[mid];
        size_t blen = (size_t)(p->bounds.off[mid + 1] - p->bounds.off[mid]);
        int c = memcmp(b, k, blen < klen ? blen : klen);
        if (c < 0 || (c == 0 && blen < klen))
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int32_t)lo;
}

int cs_exchange_partition(cs_exchange_partitioner *p, cs_col_batch *batch,
                          const cs_sql_exec_ctx *ctx, int32_t *part, cs_error *err)
{
    int64_t rows = batch->num_rows;
    switch (p->kind) {
    case CS_PART_SINGLE:
        memset(part, 0, sizeof *part * (size_t)rows);
        return CS_OK;
    case CS_PART_ROUND_ROBIN:
        for (int64_t i = 0; i < rows; i++) { /* Spark's Int position, HashPartitioner's mod */
            p->position = (int32_t)((uint32_t)p->position + 1u);
            int32_t m = p->position % p->n;
            part[i] = m < 0 ? m + p->n : m;
        }
        return CS_OK;
    case CS_PART_HASH: {
        cs_column *h = NULL;
        int rc = cs_pexpr_eval(p->hash, batch, ctx, &h, err);
        if (rc) return rc;
        const int32_t *v = (const int32_t *)(const void *)h->values;
        for (int64_t i = 0; i < rows; i++) {
            int32_t m = v[i] % p->n;
            part[i] = m < 0 ? m + p->n : m;
        }
        cs_column_unref(h);
        return CS_OK;
    }
    case CS_PART_RANGE:
        if (p->n_bounds == 0) {
            memset(part, 0, sizeof *part * (size_t)rows);
            return CS_OK;
        }
        cs_sql_keys_encode(&p->rows, batch, p->keys, p->n_keys, false);
        for (int64_t i = 0; i < rows; i++)
            part[i] = range_partition(p, p->rows.bytes + p->rows.off[i],
                                      (size_t)(p->rows.off[i + 1] - p->rows.off[i]));
        return CS_OK;
    }
    return cs_error_set(err, CS_EINVAL, "Exchange: partitioning kind %d", (int)p->kind);
}
