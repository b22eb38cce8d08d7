/*
 * op_hash_aggregate.c — HashAggregate (Spark's HashAggregateExec with its
 * TungstenAggregationIterator): groups the child's rows by key ordinals and folds the aggregate
 * functions of agg_functions.c, in Spark's Partial, Final or Complete mode (see sql_ops.h).
 *
 * The table: the group keys of a whole batch are encoded at once (sort_keys.c, normalized so
 * that NaN = NaN, -0.0 = 0.0 and nulls group together) and hashed (XXH3); each row is then
 * probed in an open-addressing table (linear probing, load <= 1/2) of 64-bit slots, a group id
 * and the top 32 bits of its hash (a tag compared before any group's key is read, so probing past
 * another group costs no cache miss on the groups' arrays), whose groups keep their hash, their key
 * bytes (in an arena of 64-byte aligned chunks from the task's allocator, never one malloc per
 * group) and a fixed-size state row. Word keys: when every key (at most CS_AGG_KEYS_MAX) is
 * integral (byte, short, int, long, date, timestamp, intervals), a string or binary, a group keeps
 * its keys as 64-bit words instead (agg_keys.c: an integral value widened, a string's length and a
 * pointer to its bytes, then one word of null bits), hashed by mixing the words (a string's bytes
 * through XXH3) and compared word by word, a string's bytes with memcmp: no encoding, and the
 * output columns built straight back from the words. Integral-only rows sit in an array of
 * fixed-size rows (gword, no pointer to follow); a row with a string sits in the arena with its
 * strings' bytes right after it (gkey[g] points to it), so a group costs its keys' size, not the
 * widest row times the table's spare capacity. The aggregate functions then
 * run over the batch with the row -> group id vector; without group keys (a global aggregate) count
 * and sum fold the batch straight into the one group's state.
 *
 * Spilling: after each input batch, when the task is over its execution memory
 * (cs_sql_should_spill), the table is written out as Partial buffers (keys + buffer columns,
 * i.e. what Partial mode outputs) into 16 spill files by the top bits of the key hash, and
 * emptied. At the end of the input, if anything spilled, the rest of the table follows, and each
 * partition is read back alone into an empty table merging the buffers (as Final mode does) and
 * emitted — one partition of groups in memory at a time. Rows of a group are merged in the
 * order they were spilled, so first/last keep their order.
 *
 * Partial aggregation that does not reduce: in Partial mode the table only saves the shuffle
 * rows it merges. When, after at least SKIP_MIN_ROWS input rows, the groups are more than
 * SKIP_GROUP_PCT percent of the rows seen (q33's WatchID: a group per row), the table is
 * emitted as it stands and the operator turns to streaming: each further input batch is folded
 * into an emptied small table and emitted at once (duplicates within a batch still merge). The
 * Final aggregate merges the buffers all the same; this saves the growth, the cache misses and
 * the spill of a table as large as the task's input (Velox's abandonPartialAggregation, DuckDB's
 * radix table that stops looking up when it does not reduce). It changes the order in which the
 * Final side meets its groups, so only the rows a LIMIT keeps among ties may differ.
 *
 * Output: insertion order of the groups, batches of at most cs_sql_batch_rows rows.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/agg_keys.h"
#include "sqlexec/sql_error.h"
#include "sqlexec/sql_ops_internal.h"
#include "common/hmap.h"

#define SPILL_PARTS 16
#define SKIP_MIN_ROWS 100000
#define SKIP_GROUP_PCT 80
#define GROW_BY_HALF (1 << 20)

typedef struct agg_op {
    cs_sql_op base;
    cs_agg_mode mode;
    int n_keys, n_aggs;
    int *keys;        /* input ordinals */
    cs_sort_key *enc; /* the keys as encode wants them (ASC NULLS FIRST) */
    cs_sql_agg *aggs; /* bound functions */
    int *inputs;      /* per aggregate: input ordinal (Partial/Complete) or first buffer (Final) */
    int *inputs2;     /* per aggregate: second input ordinal (corr, covar, max_by...), or -1 */
    cs_col_type **key_types;
    cs_col_type *buffer_schema; /* keys + buffers: the spill files' schema */
    size_t stride;              /* bytes of a group's state row */
    /* the table */
    cs_sql_arena arena;
    uint64_t *slots; /* a group id in the low 32 bits (all ones: empty), its hash's tag above */
    int64_t cap;     /* slots, a power of 2 */
    uint8_t **gkey;
    uint64_t *ghash;
    uint8_t *states;
    int64_t n_groups, groups_cap;
    cs_sql_keybuf kb;
    int32_t *gid;
    int64_t gid_cap;
    /* word keys: group g's row of words, laid out as kl says, is gword[g * wstride ..] for
     * integral keys, at gkey[g] (in the arena, its strings after it) with a string key */
    bool word_keys;
    bool in_arena;   /* word keys with a string: rows at gkey[] */
    int wstride;     /* kl.wstride */
    int gstride;     /* words per group in gword: wstride, or 0 when none are kept there */
    cs_agg_keys kl;  /* the words' layout (agg_keys.h) */
    uint64_t *gword; /* groups_cap * wstride */
    uint64_t *bword; /* the batch's rows, wstride words each (gid_cap rows) */
    uint64_t *bhash; /* the batch's hashes (gid_cap rows) */
    /* spills and output */
    cs_sql_spill *spill[SPILL_PARTS];
    bool spilled;
    int part;        /* partition being emitted after a spill */
    bool input_done; /* child consumed */
    int64_t emit;    /* next group to emit */
    int64_t rows_in; /* input rows folded (Partial) */
    bool streaming;  /* Partial that does not reduce: one batch's groups at a time */
} agg_op;

static int64_t table_bytes(const agg_op *a)
{
    return a->arena.held + (int64_t)cs_col_padded((size_t)a->cap * 8) +
           (int64_t)cs_col_padded((size_t)a->groups_cap * (16 + a->stride)) +
           (int64_t)cs_col_padded((size_t)a->groups_cap * 8 * (size_t)a->gstride);
}

static void table_free(agg_op *a)
{
    cs_col_allocator *al = a->base.ctx->alloc;
    cs_sql_arena_reset(&a->arena);
    cs_col_buffer_free(al, a->slots, (size_t)a->cap * 8);
    cs_col_buffer_free(al, a->gkey, (size_t)a->groups_cap * sizeof *a->gkey);
    cs_col_buffer_free(al, a->ghash, (size_t)a->groups_cap * 8);
    cs_col_buffer_free(al, a->states, (size_t)a->groups_cap * a->stride);
    cs_col_buffer_free(al, a->gword, (size_t)a->groups_cap * 8 * (size_t)a->gstride);
    a->slots = NULL;
    a->gword = NULL;
    a->gkey = NULL;
    a->ghash = NULL;
    a->states = NULL;
    a->cap = a->groups_cap = a->n_groups = 0;
}

static void table_init(agg_op *a)
{
    a->arena.alloc = a->base.ctx->alloc;
    a->cap = 1024;
    a->slots = cs_col_buffer_alloc(a->base.ctx->alloc, (size_t)a->cap * 8);
    memset(a->slots, 0xFF, (size_t)a->cap * 8);
}

/* Empties the table keeping its allocations (the streaming Partial's per-batch reset). */
static void table_clear(agg_op *a)
{
    cs_sql_arena_reset(&a->arena);
    memset(a->slots, 0xFF, (size_t)a->cap * 8);
    a->n_groups = 0;
    a->emit = 0;
}

/* A slot holds its group id and the top 32 bits of the group's hash (the tag): a probe compares
 * the tag first and reads a group's key only when the tags agree, so a collision in the table
 * costs no cache miss on the groups' arrays. */
static inline bool slot_empty(uint64_t e)
{
    return (uint32_t)e == UINT32_MAX;
}

static inline uint64_t slot_of(uint64_t h, int32_t g)
{
    return (h & 0xFFFFFFFF00000000ull) | (uint32_t)g;
}

static inline bool slot_tag_is(uint64_t e, uint64_t h)
{
    return (e >> 32) == (h >> 32);
}

static void rehash(agg_op *a)
{
    cs_col_allocator *al = a->base.ctx->alloc;
    cs_col_buffer_free(al, a->slots, (size_t)a->cap * 8);
    a->cap *= 2;
    a->slots = cs_col_buffer_alloc(al, (size_t)a->cap * 8);
    memset(a->slots, 0xFF, (size_t)a->cap * 8);
    uint64_t mask = (uint64_t)a->cap - 1;
    for (int64_t g = 0; g < a->n_groups; g++) {
        uint64_t s = a->ghash[g] & mask;
        while (!slot_empty(a->slots[s]))
            s = (s + 1) & mask;
        a->slots[s] = slot_of(a->ghash[g], (int32_t)g);
    }
}

static int32_t new_group(agg_op *a, const uint8_t *key, size_t len, uint64_t h)
{
    cs_col_allocator *al = a->base.ctx->alloc;
    if (a->n_groups == a->groups_cap) {
        /* twice, and by half again past GROW_BY_HALF groups: a table of millions of groups
         * (q18's Final aggregate of orders) holds at most half as many rows again as it has
         * groups, not twice (past that size its growth copies up to twice as many bytes) */
        int64_t nc = !a->groups_cap                 ? 256
                     : a->groups_cap < GROW_BY_HALF ? 2 * a->groups_cap
                                                    : a->groups_cap + a->groups_cap / 2;
        if (!a->word_keys || a->in_arena)
            a->gkey = cs_col_buffer_realloc(al, a->gkey, (size_t)a->groups_cap * sizeof *a->gkey,
                                            (size_t)nc * sizeof *a->gkey);
        a->ghash = cs_col_buffer_realloc(al, a->ghash, (size_t)a->groups_cap * 8, (size_t)nc * 8);
        a->states = cs_col_buffer_realloc(al, a->states, (size_t)a->groups_cap * a->stride,
                                          (size_t)nc * a->stride);
        if (a->gstride)
            a->gword =
                cs_col_buffer_realloc(al, a->gword, (size_t)a->groups_cap * 8 * (size_t)a->gstride,
                                      (size_t)nc * 8 * (size_t)a->gstride);
        a->groups_cap = nc;
    }
    int32_t g = (int32_t)a->n_groups++;
    if (a->word_keys) { /* key: the words; no bytes */
        const uint64_t *w = (const uint64_t *)(const void *)key;
        if (a->in_arena)
            a->gkey[g] = (uint8_t *)cs_agg_keys_store_row(&a->kl, w, &a->arena);
        else
            memcpy(a->gword + (size_t)g * (size_t)a->wstride, w, 8 * (size_t)a->wstride);
        a->ghash[g] = h;
        return g;
    }
    uint8_t *k = cs_sql_arena_alloc(&a->arena, len ? len : 1);
    if (len) memcpy(k, key, len); /* no group keys: every row's key is empty */
    a->gkey[g] = k;
    a->ghash[g] = h;
    return g;
}

/* Group g's row of words (word keys). */
static inline const uint64_t *group_row(const agg_op *a, int64_t g)
{
    return a->in_arena ? (const uint64_t *)(const void *)a->gkey[g]
                       : a->gword + (size_t)g * (size_t)a->wstride;
}

/* find_groups for word keys: the rows' words probed against the groups' words. */
static void find_word_groups(agg_op *a, const cs_col_batch *b, const cs_sort_key *keys)
{
    int64_t n = b->num_rows;
    int ws = a->wstride;
    cs_agg_keys_batch(&a->kl, b, keys, n, a->bword, a->bhash);
    for (int64_t i = 0; i < n; i++) {
        if (i + 16 < n) __builtin_prefetch(&a->slots[a->bhash[i + 16] & (uint64_t)(a->cap - 1)]);
        if (i + 8 < n) {
            uint64_t ahead = a->slots[a->bhash[i + 8] & (uint64_t)(a->cap - 1)];
            if (!slot_empty(ahead) && slot_tag_is(ahead, a->bhash[i + 8]))
                __builtin_prefetch(a->in_arena ? (const void *)&a->gkey[(uint32_t)ahead]
                                               : &a->gword[(size_t)(uint32_t)ahead * (size_t)ws]);
        }
        if (2 * (a->n_groups + 1) > a->cap) rehash(a);
        uint64_t mask = (uint64_t)a->cap - 1, h = a->bhash[i];
        const uint64_t *key = a->bword + (size_t)i * (size_t)ws;
        uint64_t s = h & mask;
        int32_t g;
        for (;;) {
            uint64_t e = a->slots[s];
            if (slot_empty(e)) {
                g = new_group(a, (const uint8_t *)key, 0, h);
                a->slots[s] = slot_of(h, g);
                break;
            }
            g = (int32_t)(uint32_t)e;
            if (slot_tag_is(e, h) && cs_agg_keys_equal(&a->kl, group_row(a, g), key)) break;
            s = (s + 1) & mask;
        }
        a->gid[i] = g;
    }
}

/* Group ids of every row of b (keys at ordinals keys[]), new groups added. */
static void find_groups(agg_op *a, const cs_col_batch *b, const cs_sort_key *keys)
{
    int64_t n = b->num_rows;
    if (n > a->gid_cap) {
        a->gid_cap = n;
        free(a->gid);
        a->gid = cs_xmalloc(sizeof *a->gid * (size_t)n);
        if (a->word_keys) {
            free(a->bword);
            free(a->bhash);
            a->bword = cs_xmalloc(sizeof *a->bword * (size_t)n * (size_t)a->wstride);
            a->bhash = cs_xmalloc(sizeof *a->bhash * (size_t)n);
        }
    }
    if (a->word_keys) {
        find_word_groups(a, b, keys);
        return;
    }
    if (a->n_keys == 0) { /* a global aggregate: one group, no key to hash */
        if (a->n_groups == 0) new_group(a, NULL, 0, 0);
        memset(a->gid, 0, sizeof *a->gid * (size_t)n);
        return;
    }
    cs_sql_keys_encode(&a->kb, b, keys, a->n_keys, true);
    for (int64_t i = 0; i < n; i++) {
        /* the batch's hashes are known: fetch the slot 16 rows ahead and the group (hash, key
         * pointer) 8 rows ahead, so the probe of row i finds them in cache */
        if (i + 16 < n) __builtin_prefetch(&a->slots[a->kb.hash[i + 16] & (uint64_t)(a->cap - 1)]);
        if (i + 8 < n) {
            uint64_t ahead = a->slots[a->kb.hash[i + 8] & (uint64_t)(a->cap - 1)];
            if (!slot_empty(ahead) && slot_tag_is(ahead, a->kb.hash[i + 8])) {
                __builtin_prefetch(&a->ghash[(uint32_t)ahead]);
                __builtin_prefetch(&a->gkey[(uint32_t)ahead]);
            }
        }
        if (2 * (a->n_groups + 1) > a->cap) rehash(a);
        uint64_t mask = (uint64_t)a->cap - 1, h = a->kb.hash[i];
        const uint8_t *key = a->kb.bytes + a->kb.off[i];
        size_t len = (size_t)(a->kb.off[i + 1] - a->kb.off[i]);
        uint64_t s = h & mask;
        int32_t g;
        for (;;) {
            uint64_t e = a->slots[s];
            if (slot_empty(e)) {
                g = new_group(a, key, len, h);
                a->slots[s] = slot_of(h, g);
                break;
            }
            g = (int32_t)(uint32_t)e;
            /* keys are self-delimiting: equal hashes and equal bytes up to len mean equal keys */
            if (slot_tag_is(e, h) && a->ghash[g] == h && memcmp(a->gkey[g], key, len) == 0) break;
            s = (s + 1) & mask;
        }
        a->gid[i] = g;
    }
}

/* Folds one batch: input rows (merge false) or buffers at bufs_at[] (merge true). */
static int fold_batch(agg_op *a, cs_col_batch *b, const cs_sort_key *keys, bool merge,
                      const int *bufs_at, cs_error *err)
{
    int64_t before = a->n_groups;
    find_groups(a, b, keys);
    if (a->n_groups > before)
        memset(a->states + (size_t)before * a->stride, 0,
               (size_t)(a->n_groups - before) * a->stride);
    const cs_sql_exec_ctx *ctx = a->base.ctx;
    for (int j = 0; j < a->n_aggs; j++) {
        int rc;
        if (merge) {
            rc = cs_sql_agg_merge(&a->aggs[j], a->states, a->stride, a->gid,
                                  b->columns + bufs_at[j], b->num_rows, ctx->ansi, &a->arena, err);
        } else {
            const cs_column *in = a->inputs[j] >= 0 ? b->columns[a->inputs[j]] : NULL;
            const cs_column *in2 = a->inputs2[j] >= 0 ? b->columns[a->inputs2[j]] : NULL;
            if (a->n_keys == 0) /* one group: folded into one value per batch */
                rc = cs_sql_agg_update_one(&a->aggs[j], a->states, a->stride, a->gid, in, in2,
                                           b->num_rows, ctx->ansi, &a->arena, err);
            else
                rc = cs_sql_agg_update2(&a->aggs[j], a->states, a->stride, a->gid, in, in2,
                                        b->num_rows, ctx->ansi, &a->arena, err);
        }
        if (rc != CS_OK) return rc;
    }
    int64_t held = table_bytes(a);
    if (held > a->base.metrics.peak_memory) a->base.metrics.peak_memory = held;
    return CS_OK;
}

/* The key columns of groups [g0, g0 + n) from their words. */
static void words_decode(agg_op *a, int64_t g0, int64_t n, cs_column **cols)
{
    const uint64_t **rows = cs_xmalloc(sizeof *rows * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++)
        rows[i] = group_row(a, g0 + i);
    cs_agg_keys_decode(&a->kl, rows, n, a->key_types, a->base.ctx->alloc, cols);
    free(rows);
}

/* The output batch of groups [g0, g0 + n): keys then buffers (as_buffers) or results. */
static int groups_batch(agg_op *a, int64_t g0, int64_t n, bool as_buffers, cs_col_batch **out,
                        cs_error *err)
{
    cs_col_allocator *al = a->base.ctx->alloc;
    cs_col_type *schema = as_buffers ? a->buffer_schema : a->base.schema;
    cs_column **cols = cs_xcalloc((size_t)schema->n_fields + 1, sizeof *cols);
    if (a->word_keys)
        words_decode(a, g0, n, cols);
    else
        cs_sql_keys_decode((const uint8_t *const *)(a->gkey + g0), n, a->key_types, a->n_keys, al,
                           cols);
    int c = a->n_keys, rc = CS_OK;
    for (int j = 0; j < a->n_aggs && rc == CS_OK; j++) {
        if (as_buffers) {
            cs_sql_agg_export(&a->aggs[j], a->states, a->stride, g0, n, al, cols + c);
            c += a->aggs[j].n_buf;
        } else {
            rc = cs_sql_agg_evaluate(&a->aggs[j], a->states, a->stride, g0, n, a->base.ctx->ansi,
                                     al, cols + c, err);
            c++;
        }
    }
    if (rc != CS_OK) {
        for (int i = 0; i < schema->n_fields; i++)
            cs_column_unref(cols[i]);
        free(cols);
        return rc;
    }
    *out = cs_col_batch_new(cs_col_type_ref(schema), cols, schema->n_fields, n, err);
    free(cols);
    return *out ? CS_OK : CS_EINVAL;
}

/* The spill partition of group g: the top bits of the hash of its encoded key (for word keys,
 * the key encoded as sort_keys.c would: cs_agg_keys_encoded_hash), so groups spill alike whichever
 * way the table keeps its keys, and the output order after a spill does not depend on it. */
static int spill_part(const agg_op *a, int64_t g)
{
    if (!a->word_keys) return (int)(a->ghash[g] >> 60);
    return (int)(cs_agg_keys_encoded_hash(&a->kl, group_row(a, g)) >> 60);
}

static int spill_table(agg_op *a, cs_error *err)
{
    const cs_sql_exec_ctx *ctx = a->base.ctx;
    for (int p = 0; p < SPILL_PARTS; p++)
        if (!a->spill[p] &&
            !(a->spill[p] = cs_sql_spill_new(ctx->spill_dir, a->buffer_schema, err)))
            return CS_EIO;
    int64_t before = 0;
    for (int p = 0; p < SPILL_PARTS; p++)
        before += cs_sql_spill_bytes(a->spill[p]);
    /* group ids by partition, then one batch per partition and chunk */
    int32_t *order = cs_xmalloc(sizeof *order * (size_t)(a->n_groups > 0 ? a->n_groups : 1));
    uint8_t *part = cs_xmalloc((size_t)(a->n_groups > 0 ? a->n_groups : 1));
    int64_t count[SPILL_PARTS + 1] = {0};
    for (int64_t g = 0; g < a->n_groups; g++) {
        part[g] = (uint8_t)spill_part(a, g);
        count[part[g] + 1]++;
    }
    for (int p = 0; p < SPILL_PARTS; p++)
        count[p + 1] += count[p];
    int64_t fill[SPILL_PARTS];
    memcpy(fill, count, sizeof fill);
    for (int64_t g = 0; g < a->n_groups; g++)
        order[fill[part[g]]++] = (int32_t)g;
    free(part);
    /* rewrite the table in partition order so each partition is a run of groups */
    uint8_t **keys = cs_xmalloc(sizeof *keys * (size_t)(a->n_groups > 0 ? a->n_groups : 1));
    uint8_t *st = cs_xmalloc(a->stride * (size_t)(a->n_groups > 0 ? a->n_groups : 1));
    size_t wrow = 8 * (size_t)a->wstride;
    uint64_t *words =
        a->gstride ? cs_xmalloc(wrow * (size_t)(a->n_groups > 0 ? a->n_groups : 1)) : NULL;
    for (int64_t i = 0; i < a->n_groups; i++) {
        if (words)
            memcpy(words + (size_t)i * (size_t)a->wstride,
                   a->gword + (size_t)order[i] * (size_t)a->wstride, wrow);
        else
            keys[i] = a->gkey[order[i]];
        memcpy(st + (size_t)i * a->stride, a->states + (size_t)order[i] * a->stride, a->stride);
    }
    if (words)
        memcpy(a->gword, words, wrow * (size_t)a->n_groups);
    else
        memcpy(a->gkey, keys, sizeof *keys * (size_t)a->n_groups);
    memcpy(a->states, st, a->stride * (size_t)a->n_groups);
    free(words);
    free(keys);
    free(st);
    free(order);
    int rc = CS_OK;
    int64_t chunk = cs_sql_batch_rows(ctx);
    for (int p = 0; p < SPILL_PARTS && rc == CS_OK; p++)
        for (int64_t g = count[p]; g < count[p + 1] && rc == CS_OK; g += chunk) {
            int64_t n = count[p + 1] - g < chunk ? count[p + 1] - g : chunk;
            cs_col_batch *b;
            rc = groups_batch(a, g, n, true, &b, err);
            if (rc == CS_OK) {
                rc = cs_sql_spill_write(a->spill[p], b, err);
                cs_col_batch_unref(b);
            }
        }
    int64_t after = 0;
    for (int p = 0; p < SPILL_PARTS; p++)
        after += cs_sql_spill_bytes(a->spill[p]);
    cs_sql_note_spill(&a->base, table_bytes(a), after - before);
    a->spilled = true;
    table_free(a);
    table_init(a);
    return rc;
}

static int agg_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    agg_op *a = (agg_op *)op;
    table_init(a);
    a->emit = 0;
    a->part = -1;
    a->input_done = false;
    a->streaming = false;
    a->rows_in = 0;
    return cs_sql_op_open(op->children[0], ctx, err);
}

/* Whether a Partial table that has not spilled keeps too many groups to be worth its cost. */
static bool partial_does_not_reduce(const agg_op *a)
{
    return a->mode == CS_AGG_PARTIAL && a->n_keys > 0 && !a->spilled &&
           a->rows_in >= SKIP_MIN_ROWS && a->n_groups * 100 > a->rows_in * SKIP_GROUP_PCT;
}

/* Consumes the child; with no group keys, one group even for an empty input (Spark). Returns
 * early, the input not done, when a Partial turns to streaming. */
static int consume(agg_op *a, cs_error *err)
{
    int *bufs_at = cs_xmalloc(sizeof *bufs_at * (size_t)(a->n_aggs + 1));
    for (int j = 0; j < a->n_aggs; j++)
        bufs_at[j] = a->inputs[j];
    int rc = CS_OK;
    for (;;) {
        cs_col_batch *b;
        rc = cs_sql_op_next(a->base.children[0], &b, err);
        if (rc != CS_OK) break;
        if (!b) {
            a->input_done = true;
            break;
        }
        a->rows_in += b->num_rows;
        rc = fold_batch(a, b, a->enc, a->mode == CS_AGG_FINAL, bufs_at, err);
        cs_col_batch_unref(b);
        if (rc != CS_OK) break;
        if (partial_does_not_reduce(a)) {
            a->streaming = true;
            break;
        }
        if (a->n_keys > 0 && cs_sql_should_spill(a->base.ctx, table_bytes(a)) &&
            (rc = spill_table(a, err)) != CS_OK)
            break;
    }
    free(bufs_at);
    if (rc != CS_OK || a->streaming) return rc;
    if (a->spilled) {
        if (a->n_groups > 0 && (rc = spill_table(a, err)) != CS_OK) return rc;
        for (int p = 0; p < SPILL_PARTS; p++)
            if ((rc = cs_sql_spill_finish(a->spill[p], a->base.ctx->alloc, err)) != CS_OK)
                return rc;
        a->part = 0;
    } else if (a->n_keys == 0 && a->n_groups == 0) {
        new_group(a, NULL, 0, 0);
        memset(a->states, 0, a->stride);
    }
    return CS_OK;
}

/* Streaming Partial: the table (all emitted) is emptied and the next input batch folded into
 * it; input_done at the child's end. The big table of before the switch is let go first, so
 * the per-batch reset clears a table of about a batch's groups. */
static int stream_batch(agg_op *a, cs_error *err)
{
    if (a->cap > 4 * cs_sql_batch_rows(a->base.ctx)) {
        table_free(a);
        table_init(a);
        a->emit = 0;
    } else {
        table_clear(a);
    }
    cs_col_batch *b;
    int rc = cs_sql_op_next(a->base.children[0], &b, err);
    if (rc != CS_OK) return rc;
    if (!b) {
        a->input_done = true;
        return CS_OK;
    }
    rc = fold_batch(a, b, a->enc, false, a->inputs, err);
    cs_col_batch_unref(b);
    return rc;
}

/* Reads spill partition p back into the (empty) table, merging buffers. */
static int load_partition(agg_op *a, int p, cs_error *err)
{
    table_free(a);
    table_init(a);
    a->emit = 0;
    cs_sort_key *keys = cs_xmalloc(sizeof *keys * (size_t)(a->n_keys + 1));
    int *bufs_at = cs_xmalloc(sizeof *bufs_at * (size_t)(a->n_aggs + 1));
    for (int k = 0; k < a->n_keys; k++)
        keys[k] = (cs_sort_key){.ordinal = k, .nulls_first = true};
    for (int j = 0, c = a->n_keys; j < a->n_aggs; c += a->aggs[j++].n_buf)
        bufs_at[j] = c;
    int rc;
    for (;;) {
        cs_col_batch *b;
        rc = cs_sql_spill_next(a->spill[p], &b, err);
        if (rc <= 0) break;
        rc = fold_batch(a, b, keys, true, bufs_at, err);
        cs_col_batch_unref(b);
        if (rc != CS_OK) break;
    }
    free(keys);
    free(bufs_at);
    cs_sql_spill_free(a->spill[p]);
    a->spill[p] = NULL;
    return rc < 0 ? rc : CS_OK;
}

static int agg_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    agg_op *a = (agg_op *)op;
    int rc;
    if (!a->input_done && !a->streaming) {
        if ((rc = consume(a, err)) != CS_OK) return rc;
        if (a->spilled) a->emit = a->n_groups; /* nothing in memory: load partition 0 */
    }
    while (a->emit >= a->n_groups) {
        if (a->streaming && !a->input_done) {
            if ((rc = stream_batch(a, err)) != CS_OK) return rc;
            continue;
        }
        if (!a->spilled || a->part >= SPILL_PARTS) return CS_OK;
        if ((rc = load_partition(a, a->part++, err)) != CS_OK) return rc;
    }
    int64_t n = a->n_groups - a->emit, max = cs_sql_batch_rows(op->ctx);
    if (n > max) n = max;
    rc = groups_batch(a, a->emit, n, a->mode == CS_AGG_PARTIAL, out, err);
    a->emit += n;
    return rc;
}

static void agg_close(cs_sql_op *op)
{
    agg_op *a = (agg_op *)op;
    table_free(a);
    for (int p = 0; p < SPILL_PARTS; p++) {
        cs_sql_spill_free(a->spill[p]);
        a->spill[p] = NULL;
    }
    cs_sql_keybuf_free(&a->kb);
    free(a->gid);
    free(a->bword);
    free(a->bhash);
    a->gid = NULL;
    a->bword = NULL;
    a->bhash = NULL;
    a->gid_cap = 0;
    cs_sql_op_close(op->children[0]);
}

static void agg_destroy(cs_sql_op *op)
{
    agg_op *a = (agg_op *)op;
    for (int j = 0; j < a->n_aggs; j++)
        cs_sql_agg_release(&a->aggs[j]);
    for (int k = 0; k < a->n_keys; k++)
        cs_col_type_unref(a->key_types[k]);
    cs_col_type_unref(a->buffer_schema);
    free(a->key_types);
    free(a->aggs);
    free(a->inputs);
    free(a->inputs2);
    free(a->keys);
    free(a->enc);
    free(a);
}

static void agg_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const agg_op *a = (const agg_op *)op;
    static const char *const modes[] = {"partial_", "", ""};
    const cs_col_type *in = op->children[0]->schema;
    cs_sbuf_puts(out, "(keys=[");
    for (int k = 0; k < a->n_keys; k++)
        cs_sbuf_printf(out, "%s%s", k ? ", " : "", in->fields[a->keys[k]].name);
    cs_sbuf_puts(out, "], functions=[");
    for (int j = 0; j < a->n_aggs; j++)
        cs_sbuf_printf(out, "%s%s%s", j ? ", " : "", modes[a->mode],
                       op->schema->fields[a->n_keys + (a->mode == CS_AGG_PARTIAL ? 0 : j)].name);
    cs_sbuf_puts(out, "])");
}

static const cs_sql_op_vtable agg_vt = {
    .name = "HashAggregate",
    .open = agg_open,
    .next = agg_next,
    .close = agg_close,
    .destroy = agg_destroy,
    .explain_args = agg_explain,
};

cs_sql_op *cs_sql_op_hash_aggregate(cs_sql_op *child, cs_agg_mode mode, const int *group_keys,
                                    int n_keys, const cs_agg_spec *aggs, int n_aggs, cs_error *err)
{
    const cs_col_type *in = child->schema;
    agg_op *a = cs_xcalloc(1, sizeof *a);
    a->mode = mode;
    a->n_keys = n_keys;
    a->n_aggs = n_aggs;
    a->keys = cs_xmalloc(sizeof *a->keys * (size_t)(n_keys + 1));
    a->enc = cs_xcalloc((size_t)n_keys + 1, sizeof *a->enc);
    a->key_types = cs_xcalloc((size_t)n_keys + 1, sizeof *a->key_types);
    a->aggs = cs_xcalloc((size_t)n_aggs + 1, sizeof *a->aggs);
    a->inputs = cs_xmalloc(sizeof *a->inputs * (size_t)(n_aggs + 1));
    a->inputs2 = cs_xmalloc(sizeof *a->inputs2 * (size_t)(n_aggs + 1));
    int bound = 0;
    /* fields: keys, then buffers (the spill schema) and results */
    int n_buf_fields = 0;
    cs_col_field *bf = NULL, *rf = NULL;
    int rc = CS_OK;
    for (int k = 0; k < n_keys && rc == CS_OK; k++) {
        int o = group_keys[k];
        if (o < 0 || o >= in->n_fields)
            rc = cs_error_set(err, CS_EINVAL,
                              "HashAggregate: group key ordinal %d is not a "
                              "column of its %d-column input",
                              o, in->n_fields);
        else if (!cs_sql_struct_key_type_ok(in->fields[o].type))
            rc = cs_sql_error_set(err, CS_EINVAL, "GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE", "42822",
                                  "The expression \"%s\" cannot be used as a grouping "
                                  "expression because its data type is not an orderable data "
                                  "type.",
                                  in->fields[o].name);
        else {
            a->keys[k] = o;
            a->enc[k] = (cs_sort_key){.ordinal = o, .nulls_first = true};
            a->key_types[k] = cs_col_type_ref(in->fields[o].type);
        }
    }
    for (int j = 0; j < n_aggs && rc == CS_OK; j++) {
        int o = aggs[j].input;
        bool no_input = aggs[j].fn == CS_AGG_COUNT_STAR && mode != CS_AGG_FINAL;
        if (!no_input && (o < 0 || o >= in->n_fields)) {
            rc = cs_error_set(err, CS_EINVAL,
                              "HashAggregate: aggregate %d's input ordinal %d is "
                              "not a column of its %d-column input",
                              j, o, in->n_fields);
            break;
        }
        a->inputs[j] = no_input ? -1 : o;
        a->inputs2[j] = -1;
        if (cs_agg_takes_two_inputs(aggs[j].fn) && mode != CS_AGG_FINAL) {
            if (aggs[j].input2 < 0 || aggs[j].input2 >= in->n_fields) {
                rc = cs_error_set(err, CS_EINVAL,
                                  "HashAggregate: aggregate %d's second input ordinal %d is "
                                  "not a column of its %d-column input",
                                  j, aggs[j].input2, in->n_fields);
                break;
            }
            a->inputs2[j] = aggs[j].input2;
        }
        rc = cs_sql_agg_bind_spec(&a->aggs[j], &aggs[j], err);
        if (rc == CS_OK) bound++;
        if (rc == CS_OK && mode == CS_AGG_FINAL && o + a->aggs[j].n_buf > in->n_fields)
            rc = cs_error_set(err, CS_EINVAL,
                              "HashAggregate: aggregate %d's %d buffer columns "
                              "from ordinal %d pass the input's %d columns",
                              j, a->aggs[j].n_buf, o, in->n_fields);
    }
    if (rc != CS_OK) {
        a->n_aggs = bound;
        a->n_keys = 0;
        for (int k = 0; k < n_keys; k++)
            cs_col_type_unref(a->key_types[k]);
        agg_destroy(&a->base);
        cs_sql_op_free(child);
        return NULL;
    }
    size_t off = 0;
    for (int j = 0; j < n_aggs; j++) {
        a->aggs[j].state_off = (int)off;
        off += (size_t)a->aggs[j].state_size;
        n_buf_fields += a->aggs[j].n_buf;
    }
    a->stride = off ? off : 8;
    a->word_keys = cs_agg_keys_init(&a->kl, a->key_types, n_keys);
    a->wstride = a->word_keys ? a->kl.wstride : 0;
    a->in_arena = a->word_keys && a->kl.n_str > 0;
    a->gstride = a->word_keys && !a->in_arena ? a->wstride : 0;
    bf = cs_xcalloc((size_t)(n_keys + n_buf_fields + 1), sizeof *bf);
    rf = cs_xcalloc((size_t)(n_keys + n_aggs + 1), sizeof *rf);
    for (int k = 0; k < n_keys; k++) {
        const cs_col_field *f = &in->fields[a->keys[k]];
        bf[k] = rf[k] = (cs_col_field){f->name, cs_col_type_ref(f->type), f->nullable};
        cs_col_type_ref(f->type);
    }
    char **names = cs_xcalloc((size_t)n_aggs + 1, sizeof *names);
    for (int j = 0, c = n_keys; j < n_aggs; j++) {
        const cs_sql_agg *g = &a->aggs[j];
        names[j] = cs_xstrdup(aggs[j].name ? aggs[j].name : cs_agg_fn_name(aggs[j].fn));
        for (int i = 0; i < g->n_buf; i++, c++)
            bf[c] = (cs_col_field){(char *)g->buf_names[i], cs_col_type_ref(g->buf_types[i]), true};
        bool nullable =
            !(g->fn == CS_AGG_COUNT || g->fn == CS_AGG_COUNT_STAR || g->fn == CS_AGG_COUNT_IF);
        rf[n_keys + j] = (cs_col_field){names[j], cs_col_type_ref(g->result_type), nullable};
    }
    a->buffer_schema = cs_col_type_struct(bf, n_keys + n_buf_fields);
    cs_col_type *out = mode == CS_AGG_PARTIAL ? cs_col_type_ref(a->buffer_schema)
                                              : cs_col_type_struct(rf, n_keys + n_aggs);
    if (mode == CS_AGG_PARTIAL)
        for (int i = 0; i < n_keys + n_aggs; i++)
            cs_col_type_unref(rf[i].type);
    for (int j = 0; j < n_aggs; j++)
        free(names[j]);
    free(names);
    free(bf);
    free(rf);
    cs_sql_op_init(&a->base, &agg_vt, out, &child, 1);
    return &a->base;
}
