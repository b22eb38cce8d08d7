/*
 * range_partitioner.c — Spark's RangePartitioner for SQL range exchanges (range_partitioner.h):
 * the per-partition reservoir sample of sort keys a sampling task takes, and the weighted bounds
 * the driver chooses from those samples.
 *
 * The reservoir keeps its rows in small batches of the key columns taken from each input batch
 * (no per-row allocation); slot i of the reservoir names a batch and a row. When the rows held
 * grow past twice the reservoir's size (replaced rows stay in their batch until it is dropped),
 * the live slots are gathered into one batch and the rest let go.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "formats/text_values.h"
#include "sqlexec/pexpr.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/range_partitioner.h"
#include "sqlexec/sql_ops_internal.h"

int cs_range_sample_per_partition(int partitions, int input_partitions, int hint)
{
    double sample_size = (double)hint * partitions;
    if (sample_size > 1e6) sample_size = 1e6;
    if (input_partitions < 1) input_partitions = 1;
    double per = ceil(3.0 * sample_size / input_partitions);
    return per > 1e9 ? 1000000000 : (int)per;
}

int64_t cs_range_sample_seed(int rdd_id, int partition)
{
    uint32_t x = (uint32_t)partition ^ ((uint32_t)rdd_id << 16);
    /* scala.util.hashing.byteswap32 */
    uint32_t h = x * 0x9e3775cdu;
    h = __builtin_bswap32(h);
    return (int32_t)(h * 0x9e3775cdu);
}

struct cs_range_reservoir {
    cs_col_type *key_schema;
    int *cols;
    int n_keys;
    int k, filled;
    int64_t seen;
    cs_tv_sampler rng;
    cs_col_batch **held; /* batches of key columns that slots point into */
    int n_held, cap_held;
    int64_t held_rows;
    int32_t *slot_batch, *slot_row; /* k entries */
    int32_t *pick_row, *pick_slot;  /* scratch: rows of one batch chosen, and their slots */
    int64_t pick_cap;
};

cs_range_reservoir *cs_range_reservoir_new(const cs_col_type *input, const cs_sort_key *keys,
                                           int n_keys, int k, int64_t seed)
{
    cs_range_reservoir *r = cs_xcalloc(1, sizeof *r);
    r->n_keys = n_keys;
    r->cols = cs_xcalloc((size_t)n_keys + 1, sizeof *r->cols);
    cs_col_field *f = cs_xcalloc((size_t)n_keys + 1, sizeof *f);
    for (int i = 0; i < n_keys; i++) {
        r->cols[i] = keys[i].ordinal;
        f[i] = input->fields[keys[i].ordinal];
        cs_col_type_ref(f[i].type);
    }
    r->key_schema = cs_col_type_struct(f, n_keys);
    free(f);
    r->k = k > 0 ? k : 1;
    r->slot_batch = cs_xcalloc((size_t)r->k, sizeof *r->slot_batch);
    r->slot_row = cs_xcalloc((size_t)r->k, sizeof *r->slot_row);
    cs_tv_sampler_init(&r->rng, 1.0, seed);
    return r;
}

void cs_range_reservoir_free(cs_range_reservoir *r)
{
    if (!r) return;
    for (int i = 0; i < r->n_held; i++)
        cs_col_batch_unref(r->held[i]);
    free(r->held);
    free(r->slot_batch);
    free(r->slot_row);
    free(r->pick_row);
    free(r->pick_slot);
    free(r->cols);
    cs_col_type_unref(r->key_schema);
    free(r);
}

int64_t cs_range_reservoir_count(const cs_range_reservoir *r)
{
    return r->seen;
}

/* The live slots gathered into one batch (NULL when the reservoir is empty). */
static cs_col_batch *gather_slots(cs_range_reservoir *r, cs_col_allocator *alloc)
{
    if (r->filled == 0) return NULL;
    return cs_sql_gather_batch(r->key_schema, r->held, r->slot_batch, r->slot_row, r->filled,
                               alloc);
}

static void compact(cs_range_reservoir *r, cs_col_allocator *alloc)
{
    cs_col_batch *one = gather_slots(r, alloc);
    for (int i = 0; i < r->n_held; i++)
        cs_col_batch_unref(r->held[i]);
    r->n_held = 0;
    r->held_rows = 0;
    if (!one) return;
    r->held[r->n_held++] = one;
    r->held_rows = one->num_rows;
    for (int i = 0; i < r->filled; i++) {
        r->slot_batch[i] = 0;
        r->slot_row[i] = i;
    }
}

int cs_range_reservoir_add(cs_range_reservoir *r, cs_col_batch *b, cs_col_allocator *alloc,
                           cs_error *err)
{
    int64_t rows = b->num_rows;
    if (rows == 0) return CS_OK;
    if (rows > r->pick_cap) {
        r->pick_cap = rows;
        r->pick_row = cs_xrealloc(r->pick_row, sizeof *r->pick_row * (size_t)rows);
        r->pick_slot = cs_xrealloc(r->pick_slot, sizeof *r->pick_slot * (size_t)rows);
    }
    /* SamplingUtils.reservoirSampleAndCount: the first k rows fill the reservoir; row l (1-based
     * count) after that replaces slot floor(nextDouble * l) when that is below k */
    int64_t m = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t slot;
        if (r->filled < r->k) {
            slot = r->filled++;
            r->seen++;
        } else {
            r->seen++;
            slot = (int64_t)(cs_tv_sampler_next_double(&r->rng) * (double)r->seen);
            if (slot >= r->k) continue;
        }
        r->pick_row[m] = (int32_t)i;
        r->pick_slot[m++] = (int32_t)slot;
    }
    if (m == 0) return CS_OK;
    cs_col_batch *keys = cs_col_batch_project(b, r->cols, r->n_keys, err);
    if (!keys) return err->code ? err->code : CS_EINVAL;
    cs_col_batch *taken = cs_col_batch_take(keys, r->pick_row, m, alloc);
    cs_col_batch_unref(keys);
    if (r->n_held == r->cap_held) {
        r->cap_held = r->cap_held ? 2 * r->cap_held : 8;
        r->held = cs_xrealloc(r->held, sizeof *r->held * (size_t)r->cap_held);
    }
    int at = r->n_held++;
    r->held[at] = taken;
    r->held_rows += m;
    for (int64_t j = 0; j < m; j++) {
        r->slot_batch[r->pick_slot[j]] = at;
        r->slot_row[r->pick_slot[j]] = (int32_t)j;
    }
    if (r->held_rows > 2 * (int64_t)r->k + 64) compact(r, alloc);
    return CS_OK;
}

cs_col_batch *cs_range_reservoir_sample(cs_range_reservoir *r, cs_col_allocator *alloc,
                                        cs_error *err)
{
    cs_col_batch *b = gather_slots(r, alloc);
    if (b) return b;
    cs_column **cols = cs_xcalloc((size_t)r->n_keys + 1, sizeof *cols);
    for (int i = 0; i < r->n_keys; i++) { /* no row seen: empty columns */
        cs_col_builder *cb = cs_col_builder_new(alloc, r->key_schema->fields[i].type);
        cols[i] = cs_col_builder_finish(cb);
        cs_col_builder_free(cb);
    }
    b = cs_col_batch_new(cs_col_type_ref(r->key_schema), cols, r->n_keys, 0, err);
    free(cols);
    return b;
}

/* ---- the bounds (the driver) ---- */

typedef struct by_key {
    const cs_sql_keybuf *kb;
} by_key;

static int compare_keys(const cs_sql_keybuf *kb, int32_t i, int32_t j)
{
    const uint8_t *a = kb->bytes + kb->off[i], *b = kb->bytes + kb->off[j];
    size_t la = (size_t)(kb->off[i + 1] - kb->off[i]), lb = (size_t)(kb->off[j + 1] - kb->off[j]);
    int c = memcmp(a, b, la < lb ? la : lb);
    if (c) return c;
    return la < lb ? -1 : la > lb;
}

/* By key, then by position: Scala's sortBy is stable. */
static int cmp_candidates(const void *x, const void *y, void *arg)
{
    int32_t i = *(const int32_t *)x, j = *(const int32_t *)y;
    int c = compare_keys(((const by_key *)arg)->kb, i, j);
    return c ? c : (i > j) - (i < j);
}

int cs_range_bounds(cs_col_batch *const *samples, const int64_t *counts, int n,
                    const cs_sort_key *dirs, int n_keys, int partitions, int hint,
                    cs_col_allocator *alloc, cs_col_batch **out, cs_error *err)
{
    *out = NULL;
    int64_t total = 0, candidates = 0;
    for (int i = 0; i < n; i++) {
        total += counts[i];
        if (samples[i]) candidates += samples[i]->num_rows;
    }
    if (partitions <= 1 || total == 0 || candidates == 0) return CS_OK;
    if (candidates > INT32_MAX)
        return cs_error_set(err, CS_EINVAL, "range bounds: %lld sampled keys",
                            (long long)candidates);
    /* every sampled key weighted by its partition's rows over its sample's size (as a float) */
    cs_col_batch **parts = cs_xcalloc((size_t)n + 1, sizeof *parts);
    float *weight = cs_xcalloc((size_t)candidates, sizeof *weight);
    int n_parts = 0;
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        if (!samples[i] || samples[i]->num_rows == 0) continue;
        parts[n_parts++] = samples[i];
        float w = (float)((double)counts[i] / (double)samples[i]->num_rows);
        for (int64_t r = 0; r < samples[i]->num_rows; r++)
            weight[at++] = w;
    }
    cs_col_batch *all = cs_sql_batch_concat(parts[0]->schema, parts, n_parts, alloc);
    free(parts);
    cs_sort_key *enc = cs_xcalloc((size_t)n_keys + 1, sizeof *enc);
    for (int k = 0; k < n_keys; k++)
        enc[k] = (cs_sort_key){k, dirs[k].descending, dirs[k].nulls_first};
    cs_sql_keybuf kb = {0};
    cs_sql_keys_encode(&kb, all, enc, n_keys, false);
    free(enc);
    int32_t *order = cs_xmalloc(sizeof *order * (size_t)candidates);
    for (int32_t i = 0; i < (int32_t)candidates; i++)
        order[i] = i;
    by_key arg = {&kb};
    qsort_r(order, (size_t)candidates, sizeof *order, cmp_candidates, &arg);
    /* RangePartitioner.determineBounds over min(partitions, candidates) partitions */
    int64_t want = partitions < candidates ? partitions : candidates;
    double sum = 0;
    for (int64_t i = 0; i < candidates; i++)
        sum += (double)weight[i];
    double step = sum / (double)want, cum = 0, target = step;
    int32_t *chosen = cs_xcalloc((size_t)want + 1, sizeof *chosen);
    int64_t nb = 0;
    for (int64_t i = 0; i < candidates && nb < want - 1; i++) {
        cum += (double)weight[order[i]];
        if (cum < target) continue;
        if (nb == 0 || compare_keys(&kb, order[i], chosen[nb - 1]) > 0) {
            chosen[nb++] = order[i];
            target += step;
        }
    }
    if (nb > 0) *out = cs_col_batch_take(all, chosen, nb, alloc);
    free(chosen);
    free(order);
    free(weight);
    cs_sql_keybuf_free(&kb);
    cs_col_batch_unref(all);
    return CS_OK;
}

int cs_range_bounds_of_samples(const cs_phys_node *ex, const int64_t *counts,
                               const uint8_t *const *values, const size_t *lens, int n, int hint,
                               cs_sbuf *bounds, int *num_partitions, cs_error *err)
{
    const cs_col_type *input = ex->children[0]->schema;
    cs_col_field *f = cs_xcalloc((size_t)ex->n_sort_keys + 1, sizeof *f);
    for (int k = 0; k < ex->n_sort_keys; k++) {
        f[k] = input->fields[ex->sort_keys[k].ordinal];
        cs_col_type_ref(f[k].type);
    }
    cs_col_type *key_type = cs_col_type_struct(f, ex->n_sort_keys);
    free(f);
    cs_col_allocator *alloc = cs_col_default_allocator();
    cs_col_batch **samples = cs_xcalloc((size_t)n + 1, sizeof *samples);
    int rc = CS_OK;
    for (int p = 0; rc == CS_OK && p < n; p++)
        rc = cs_sql_batch_decode(key_type, values[p], lens[p], alloc, &samples[p], err);
    cs_col_batch *chosen = NULL;
    if (rc == CS_OK)
        rc = cs_range_bounds(samples, counts, n, ex->sort_keys, ex->n_sort_keys, ex->num_partitions,
                             hint, alloc, &chosen, err);
    if (rc == CS_OK && chosen) rc = cs_sql_batch_encode(chosen, bounds, err);
    if (rc == CS_OK) *num_partitions = (chosen ? (int)chosen->num_rows : 0) + 1;
    if (chosen) cs_col_batch_unref(chosen);
    for (int p = 0; p < n; p++)
        if (samples[p]) cs_col_batch_unref(samples[p]);
    free(samples);
    cs_col_type_unref(key_type);
    return rc;
}
