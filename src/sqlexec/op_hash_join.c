/*
 * op_hash_join.c — HashJoin (Spark's ShuffledHashJoinExec / BroadcastHashJoinExec inside one
 * task): the build side (left or right) is read whole and hashed, the probe side streamed a batch
 * at a time. Join types inner, left/right/full outer, left semi, left anti and null-aware left
 * anti (NOT IN), with equi-keys by ordinal and an optional residual condition callback
 * (sql_ops.h). Null keys never match.
 *
 * Build: the build batches are kept first (references; their memory is already the task's), so
 * that the row count is known and the index is allocated once at its final size (no regrowth, no
 * rehash). Then each row with no null key goes into an open-addressing table of chain heads: rows
 * with equal keys form a chain (next[]), so the table holds distinct keys and a probe walks only
 * its matches. A slot is 32 bits: the head row (+ 1) in as many low bits as the row count needs,
 * and above them a tag of the key's hash, so a probe passes a slot of another key (and a missing
 * key its whole run of slots) without reading any build row's key. Every build row has a global
 * index (its batch and row) and a matched flag, for outer joins' unmatched build rows and for semi
 * / anti joins that build the left side.
 *
 * Keys: one or two integral keys (byte .. long, date, timestamp, intervals; TPC-H's composite
 * keys such as (ps_partkey, ps_suppkey)) are used as their values, one or two 64-bit words per
 * row compared directly and hashed with a multiply-xorshift mix; any other key list is encoded a
 * batch at a time (sort_keys.c) into bytes kept in an arena and hashed with XXH3.
 *
 * Probe: keys of the whole probe batch are encoded and hashed at once; candidate pairs (probe
 * row, build row) are collected up to cs_sql_batch_rows at a time, gathered into a batch (left
 * columns then right), filtered by the residual condition when there is one, and their rows
 * marked matched. A semi / anti join probing the left side under a condition needs only one pair
 * holding per probe row: its matches are tried in rounds (1, 2, 4, .. more per row) and a row
 * leaves once one holds, as Spark's semi join stops at the first match the condition accepts. After
 * the probe batch: its unmatched rows (outer on the probe side), its matched rows (semi) or
 * unmatched ones (anti). After the probe side: unmatched build rows (outer on the build side, anti
 * building left) or matched ones (semi building left).
 *
 * Grace hash join: when the task is over its execution memory while the build side is read
 * (cs_sql_should_spill), both sides are partitioned by the top bits of their key hashes into 16
 * spill files each (build first, then the whole probe side), and the partitions are joined one
 * after another in memory. Null-aware anti join's two global facts (the build side is empty / has
 * a null key) are taken while partitioning.
 *
 * A partition whose build side is still over memory (a key group larger than the task's share:
 * skew no repartitioning can split) is joined block by block: its build rows are loaded until
 * the task is over memory again, the whole probe partition is probed against that block (its
 * spill file read again for each block), and the next block is loaded. Pairs come out of the one
 * block holding their build row, and so do the build side's unmatched (outer, anti) or matched
 * (semi) rows; the probe side's are decided once every block has been probed: a byte per probe
 * row of the partition says it matched in some block, and one more pass over the probe partition
 * emits its unmatched (outer, anti) or matched (semi) rows. Memory then holds one block, as
 * Spark's sort-merge join spills the buffered rows of a key group that does not fit.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/sql_error.h"
#include "sqlexec/sql_ops_internal.h"
#include "common/hmap.h"

#define GRACE_PARTS 16

enum phase { PH_BUILD, PH_PROBE, PH_LOAD_PART, PH_PROBE_PART, PH_PROBE_REST, PH_DONE };

typedef struct out_queue {
    cs_col_batch **b;
    int n, head, cap;
} out_queue;

typedef struct join_op {
    cs_sql_op base;
    cs_hash_join_type type;
    cs_build_side build_side;
    int n_keys;
    cs_sort_key *left_keys, *right_keys;
    cs_join_condition_fn condition;
    void *condition_arg;
    cs_col_type *pairs_schema; /* left ++ right (the condition's input) */
    int probe_child, build_child;
    const cs_sort_key *probe_keys, *build_keys;
    /* build side */
    cs_col_batch **bb;
    int nbb, bb_cap;
    int64_t bb_memory; /* bytes of the kept build batches */
    int64_t n_kept;    /* rows of the kept build batches */
    uint64_t *row_loc; /* each build row's batch (high 32 bits) and row in it (low 32 bits) */
    int32_t *next;     /* the chain of rows with the same key */
    uint8_t *matched;
    int64_t n_rows, rows_cap; /* rows indexed; rows the index arrays hold */
    int words;                /* integral keys (1 or 2): row_kv, else 0: row_key and row_hash */
    uint64_t *row_kv;         /* the key values of each build row, `words` per row */
    cs_sql_arena arena;       /* build keys */
    uint8_t **row_key;        /* encoded key of each build row (NULL: a null key) */
    uint64_t *row_hash;
    uint32_t *slots;   /* chain heads: 0 empty, else row + 1 under row_mask and a tag above it */
    uint32_t row_mask; /* the low bits of a slot that hold its row + 1 */
    int64_t cap, n_distinct;
    /* the keys of the batch being built or probed: kb, or kv / kv_null / kv_hash for words;
     * key_null and key_hash point at whichever holds them */
    cs_sql_keybuf kb;
    uint64_t *kv, *kv_hash;
    uint8_t *kv_null;
    int64_t kv_cap;
    const uint8_t *key_null;
    const uint64_t *key_hash;
    /* global facts (null-aware anti) */
    int64_t build_total;
    bool build_null_key;
    /* probe scratch */
    int32_t *pi, *pb;
    int64_t pairs_cap;
    uint8_t *probe_matched;
    int32_t *act_row, *act_next; /* semi / anti rounds: probe rows still open, their next match */
    int32_t *probe_first;        /* the first build row each probe row's key meets (-1: none) */
    int64_t probe_cap;
    out_queue q;
    enum phase phase;
    bool grace;
    cs_sql_spill *gbuild[GRACE_PARTS], *gprobe[GRACE_PARTS];
    int part;
    /* a partition joined block by block */
    bool blocked;       /* this partition's build side did not fit */
    bool block_more;    /* build rows of this partition wait for the next block */
    int64_t block;      /* blocks of this partition loaded so far */
    uint8_t *pmatched;  /* blocked: probe row r of the partition matched in some block */
    int64_t pmatched_n; /* the partition's probe rows */
    int64_t probe_row0; /* the partition's probe row of the current batch's first row */
} join_op;

static bool emits_pairs(cs_hash_join_type t)
{
    return t == CS_HJ_INNER || t == CS_HJ_LEFT_OUTER || t == CS_HJ_RIGHT_OUTER ||
           t == CS_HJ_FULL_OUTER;
}

static bool is_semi_anti(cs_hash_join_type t)
{
    return t == CS_HJ_LEFT_SEMI || t == CS_HJ_LEFT_ANTI || t == CS_HJ_LEFT_ANTI_NULL_AWARE;
}

static bool preserves(const join_op *j, int child)
{
    return j->type == CS_HJ_FULL_OUTER || (child == 0 && j->type == CS_HJ_LEFT_OUTER) ||
           (child == 1 && j->type == CS_HJ_RIGHT_OUTER);
}

static void push(join_op *j, cs_col_batch *b)
{
    if (!b) return;
    if (b->num_rows == 0) {
        cs_col_batch_unref(b);
        return;
    }
    if (j->q.n == j->q.cap) {
        j->q.cap = j->q.cap ? 2 * j->q.cap : 8;
        j->q.b = cs_xrealloc(j->q.b, sizeof *j->q.b * (size_t)j->q.cap);
    }
    j->q.b[j->q.n++] = b;
}

/* ---- the build table ---- */

static void build_reset(join_op *j)
{
    cs_col_allocator *al = j->base.ctx->alloc;
    for (int i = 0; i < j->nbb; i++)
        cs_col_batch_unref(j->bb[i]);
    j->nbb = 0;
    j->bb_memory = 0;
    j->n_kept = 0;
    size_t rc = (size_t)j->rows_cap;
    cs_col_buffer_free(al, j->row_loc, rc * 8);
    cs_col_buffer_free(al, j->next, rc * 4);
    cs_col_buffer_free(al, j->matched, rc);
    if (j->words) {
        cs_col_buffer_free(al, j->row_kv, rc * 8 * (size_t)j->words);
    } else {
        cs_col_buffer_free(al, j->row_key, rc * sizeof *j->row_key);
        cs_col_buffer_free(al, j->row_hash, rc * 8);
    }
    cs_col_buffer_free(al, j->slots, (size_t)j->cap * 4);
    j->row_loc = NULL;
    j->next = NULL;
    j->slots = NULL;
    j->matched = NULL;
    j->row_kv = NULL;
    j->row_key = NULL;
    j->row_hash = NULL;
    j->n_rows = j->rows_cap = j->cap = j->n_distinct = 0;
    cs_sql_arena_reset(&j->arena);
    j->arena.alloc = al;
}

/* The keys of every row of b (keys: the side's key list) into key_null / key_hash, and kv (the
 * values, `words` per row) or kb (the encodings). */
static void batch_keys(join_op *j, const cs_col_batch *b, const cs_sort_key *keys)
{
    int64_t n = b->num_rows;
    int w = j->words;
    if (!w) {
        cs_sql_keys_encode(&j->kb, b, keys, j->n_keys, true);
        j->key_null = j->kb.any_null;
        j->key_hash = j->kb.hash;
        return;
    }
    if (n > j->kv_cap) {
        j->kv_cap = n;
        free(j->kv);
        free(j->kv_hash);
        free(j->kv_null);
        j->kv = cs_xmalloc(sizeof *j->kv * (size_t)n * (size_t)w);
        j->kv_hash = cs_xmalloc(sizeof *j->kv_hash * (size_t)n);
        j->kv_null = cs_xmalloc((size_t)n);
    }
    const cs_column *c0 = b->columns[keys[0].ordinal];
    cs_sql_key_words(c0, n, j->kv, w);
    if (w == 1) {
        for (int64_t i = 0; i < n; i++) {
            j->kv_null[i] = !cs_column_is_valid(c0, i);
            j->kv_hash[i] = cs_hash_mix64(j->kv[i]);
        }
    } else {
        const cs_column *c1 = b->columns[keys[1].ordinal];
        cs_sql_key_words(c1, n, j->kv + 1, w);
        for (int64_t i = 0; i < n; i++) {
            j->kv_null[i] = !cs_column_is_valid(c0, i) || !cs_column_is_valid(c1, i);
            j->kv_hash[i] = cs_hash_mix64(cs_hash_mix64(j->kv[2 * i]) + j->kv[2 * i + 1]);
        }
    }
    j->key_null = j->kv_null;
    j->key_hash = j->kv_hash;
}

/* The tag a key of hash h leaves in its slot: the hash bits 28.. above the slot's row bits (the
 * slot's index takes the low bits, grace partitioning the top four). A slot whose tag differs
 * holds another key, so a probe passes it without reading that key. */
static inline uint32_t slot_tag(const join_op *j, uint64_t h)
{
    return (uint32_t)(h >> 28) & ~j->row_mask;
}

/* The chain head a non-empty slot holds. */
static inline int32_t slot_row(const join_op *j, uint32_t e)
{
    return (int32_t)(e & j->row_mask) - 1;
}

/* The slots of the table for `rows` build rows: a power of two at least twice the rows, so the
 * table is at most half full whatever the number of distinct keys. */
static int64_t table_slots(int64_t rows)
{
    int64_t cap = 1024;
    while (cap < 2 * rows)
        cap *= 2;
    return cap;
}

/* Bytes the index of `rows` build rows takes (the arrays build_index allocates; the key arena
 * is counted apart). */
static int64_t index_bytes(const join_op *j, int64_t rows)
{
    int64_t per_row = 8 + 4 + 1 + (j->words ? 8 * j->words : 8 + (int64_t)sizeof(uint8_t *));
    return rows * per_row + (int64_t)cs_col_padded((size_t)table_slots(rows) * 4);
}

/* Keeps a build batch (taking the reference) for build_index. */
static void build_keep(join_op *j, cs_col_batch *b)
{
    if (j->nbb == j->bb_cap) {
        j->bb_cap = j->bb_cap ? 2 * j->bb_cap : 64;
        j->bb = cs_xrealloc(j->bb, sizeof *j->bb * (size_t)j->bb_cap);
    }
    j->bb[j->nbb++] = b;
    j->bb_memory += cs_col_batch_memory(b);
    j->n_kept += b->num_rows;
}

/* Inserts build row r with encoded key i of the current batch keys into the table. */
static void table_insert(join_op *j, int64_t r, int64_t i)
{
    uint64_t h = j->key_hash[i], mask = (uint64_t)j->cap - 1, s = h & mask;
    uint32_t tag = slot_tag(j, h);
    size_t len = (size_t)(j->kb.off[i + 1] - j->kb.off[i]);
    const uint8_t *key = j->kb.bytes + j->kb.off[i];
    for (;; s = (s + 1) & mask) {
        uint32_t e = j->slots[s];
        if (!e) {
            uint8_t *k = cs_sql_arena_alloc(&j->arena, len ? len : 1);
            memcpy(k, key, len);
            j->row_key[r] = k;
            j->slots[s] = tag | (uint32_t)(r + 1);
            j->n_distinct++;
            return;
        }
        if ((e & ~j->row_mask) != tag) continue;
        int32_t head = slot_row(j, e);
        if (j->row_hash[head] == h && memcmp(j->row_key[head], key, len) == 0) {
            j->row_key[r] = j->row_key[head]; /* the key bytes are shared */
            j->next[r] = j->next[head];
            j->next[head] = (int32_t)r;
            return;
        }
    }
}

/* Indexes the rows of build batch bi (n rows, their keys in kv / key_hash / key_null) whose keys
 * are w words (1 or 2, a constant once inlined): table_insert's loop with the table's fields in
 * locals, which stores into the slots and chains would otherwise make the compiler read again. */
static inline __attribute__((always_inline)) void insert_word_rows(join_op *j, int bi, int64_t n,
                                                                   int w)
{
    uint32_t *slots = j->slots, rm = j->row_mask;
    int32_t *next = j->next;
    uint64_t *row_loc = j->row_loc, *row_kv = j->row_kv;
    const uint64_t *kv = j->kv, *hash = j->key_hash;
    const uint8_t *key_null = j->key_null;
    uint64_t mask = (uint64_t)j->cap - 1;
    int64_t r = j->n_rows, distinct = 0;
    bool null_key = false;
    for (int64_t i = 0; i < n; i++, r++) {
        /* the slot of a row 16 ahead, and the head row a row 8 ahead meets, while this one
         * inserts (the table is far larger than the caches on a big build side) */
        if (i + 16 < n) __builtin_prefetch(&slots[hash[i + 16] & mask], 1);
        if (i + 8 < n) {
            uint64_t h8 = hash[i + 8];
            uint32_t e8 = slots[h8 & mask];
            if (e8 && (e8 & ~rm) == ((uint32_t)(h8 >> 28) & ~rm)) {
                int64_t ahead = (int64_t)(e8 & rm) - 1;
                __builtin_prefetch(&next[ahead], 1);
                __builtin_prefetch(&row_kv[ahead * w]);
            }
        }
        row_loc[r] = (uint64_t)bi << 32 | (uint32_t)i;
        if (key_null[i]) {
            null_key = true;
            continue;
        }
        const uint64_t *k = kv + i * w;
        row_kv[r * w] = k[0];
        if (w == 2) row_kv[r * w + 1] = k[1];
        uint64_t h = hash[i], s = h & mask;
        uint32_t tag = (uint32_t)(h >> 28) & ~rm;
        for (;; s = (s + 1) & mask) {
            uint32_t e = slots[s];
            if (!e) {
                slots[s] = tag | (uint32_t)(r + 1);
                distinct++;
                break;
            }
            if ((e & ~rm) != tag) continue;
            int64_t head = (int64_t)(e & rm) - 1;
            const uint64_t *hk = row_kv + head * w;
            if (hk[0] == k[0] && (w == 1 || hk[1] == k[1])) { /* into the head's chain */
                next[r] = next[head];
                next[head] = (int32_t)r;
                break;
            }
        }
    }
    j->n_rows = r;
    j->n_distinct += distinct;
    j->build_null_key |= null_key;
}

/* Indexes every kept build batch: the arrays and the table allocated once for n_kept rows. */
static void build_index(join_op *j)
{
    cs_col_allocator *al = j->base.ctx->alloc;
    size_t c = (size_t)j->n_kept;
    j->rows_cap = j->n_kept;
    j->row_loc = cs_col_buffer_alloc(al, c * 8);
    j->next = cs_col_buffer_alloc(al, c * 4);
    j->matched = cs_col_buffer_alloc(al, c);
    if (j->words) {
        j->row_kv = cs_col_buffer_alloc(al, c * 8 * (size_t)j->words);
    } else {
        j->row_key = cs_col_buffer_alloc(al, c * sizeof *j->row_key);
        j->row_hash = cs_col_buffer_alloc(al, c * 8);
    }
    j->cap = table_slots(j->n_kept);
    j->slots = cs_col_buffer_alloc(al, (size_t)j->cap * 4); /* all empty (zero) */
    uint64_t rows_end = 2; /* row + 1 of every row fits under the mask; the tag takes the rest */
    while (rows_end - 1 < (uint64_t)j->n_kept)
        rows_end <<= 1;
    j->row_mask = (uint32_t)(rows_end - 1);
    if (c > 0) memset(j->next, 0xFF, c * 4);
    for (int bi = 0; bi < j->nbb; bi++) {
        cs_col_batch *b = j->bb[bi];
        int64_t n = b->num_rows;
        batch_keys(j, b, j->build_keys);
        if (j->words == 1) {
            insert_word_rows(j, bi, n, 1);
            continue;
        }
        if (j->words == 2) {
            insert_word_rows(j, bi, n, 2);
            continue;
        }
        uint64_t mask = (uint64_t)j->cap - 1; /* encoded keys */
        for (int64_t i = 0; i < n; i++) {
            /* prefetches as insert_word_rows' */
            if (i + 16 < n) __builtin_prefetch(&j->slots[j->key_hash[i + 16] & mask], 1);
            if (i + 8 < n) {
                uint64_t h8 = j->key_hash[i + 8];
                uint32_t e = j->slots[h8 & mask];
                if (e && (e & ~j->row_mask) == slot_tag(j, h8)) {
                    int32_t ahead = slot_row(j, e);
                    __builtin_prefetch(&j->next[ahead], 1);
                    __builtin_prefetch(&j->row_hash[ahead]);
                }
            }
            int64_t r = j->n_rows++;
            j->row_loc[r] = (uint64_t)bi << 32 | (uint32_t)i;
            if (j->key_null[i]) {
                j->build_null_key = true;
                continue;
            }
            j->row_hash[r] = j->key_hash[i];
            table_insert(j, r, i);
        }
    }
}

/* ---- output ---- */

/* A batch of n rows: probe columns from P (pidx[i] < 0: null) and build columns from the build
 * rows brow[i] (< 0: null). both: left ++ right (the pairs' schema), else the output schema. */
static cs_col_batch *make_rows(join_op *j, cs_col_batch *P, const int32_t *pidx,
                               const int32_t *brow, int64_t n, bool both)
{
    cs_col_allocator *al = j->base.ctx->alloc;
    cs_col_type *schema = both ? j->pairs_schema : j->base.schema;
    int nl = j->base.children[0]->schema->n_fields;
    int np = j->base.children[j->probe_child]->schema->n_fields;
    int nbc = j->base.children[j->build_child]->schema->n_fields;
    bool left_only = !both && is_semi_anti(j->type);
    int32_t *bb = cs_xmalloc(sizeof *bb * (size_t)(n > 0 ? n : 1));
    int32_t *br = cs_xmalloc(sizeof *br * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        if (i + 16 < n && brow[i + 16] >= 0) __builtin_prefetch(&j->row_loc[brow[i + 16]]);
        uint64_t loc = brow[i] < 0 ? 0 : j->row_loc[brow[i]];
        bb[i] = (int32_t)(loc >> 32);
        br[i] = brow[i] < 0 ? -1 : (int32_t)(uint32_t)loc;
    }
    int nsrc = j->nbb > 0 ? j->nbb : 1;
    cs_column **src = cs_xcalloc((size_t)nsrc, sizeof *src);
    int nc = schema->n_fields;
    cs_column **cols = cs_xcalloc((size_t)nc + 1, sizeof *cols);
    for (int c = 0; c < nc; c++) {
        /* which side and which of its columns output column c is */
        bool from_left = c < nl;
        int side_col = from_left ? c : c - nl;
        bool from_probe = left_only ? j->probe_child == 0 : from_left == (j->probe_child == 0);
        if (from_probe) {
            cs_column *pc = P ? P->columns[side_col] : NULL;
            cs_column *one[1] = {pc};
            cols[c] = cs_sql_gather(schema->fields[c].type, one, NULL, pidx, n, al);
        } else {
            for (int k = 0; k < j->nbb; k++)
                src[k] = j->bb[k]->columns[side_col];
            cols[c] = cs_sql_gather(schema->fields[c].type, src, bb, br, n, al);
        }
    }
    (void)np;
    (void)nbc;
    cs_col_batch *out = cs_col_batch_new(cs_col_type_ref(schema), cols, nc, n, NULL);
    free(cols);
    free(src);
    free(bb);
    free(br);
    return out;
}

static void ensure_scratch(join_op *j, int64_t n)
{
    if (n > j->pairs_cap) {
        j->pairs_cap = n;
        free(j->pi);
        free(j->pb);
        j->pi = cs_xmalloc(sizeof *j->pi * (size_t)n);
        j->pb = cs_xmalloc(sizeof *j->pb * (size_t)n);
    }
}

/* Handles np candidate pairs (j->pi, j->pb): residual condition, matched flags, output. */
static int flush_pairs(join_op *j, cs_col_batch *P, int64_t np, cs_error *err)
{
    if (np == 0) return CS_OK;
    cs_col_batch *pairs = NULL;
    if (j->condition) {
        pairs = make_rows(j, P, j->pi, j->pb, np, true);
        uint8_t *keep = cs_xcalloc((size_t)np, 1);
        int rc = j->condition(j->condition_arg, pairs, keep, err);
        if (rc != CS_OK) {
            free(keep);
            cs_col_batch_unref(pairs);
            return rc;
        }
        int64_t k = 0;
        for (int64_t i = 0; i < np; i++)
            if (keep[i]) {
                j->pi[k] = j->pi[i];
                j->pb[k++] = j->pb[i];
            }
        free(keep);
        if (k != np || !emits_pairs(j->type)) {
            cs_col_batch_unref(pairs);
            pairs = NULL;
        }
        np = k;
    }
    for (int64_t i = 0; i < np; i++) {
        j->probe_matched[j->pi[i]] = 1;
        j->matched[j->pb[i]] = 1;
    }
    if (emits_pairs(j->type) && np > 0)
        push(j, pairs ? pairs : make_rows(j, P, j->pi, j->pb, np, false));
    else
        cs_col_batch_unref(pairs);
    return CS_OK;
}

/* The first build row whose encoded key equals key i of the current batch keys, or -1. */
static int32_t lookup(const join_op *j, int64_t i)
{
    uint64_t h = j->key_hash[i], mask = (uint64_t)j->cap - 1, s = h & mask;
    uint32_t tag = slot_tag(j, h), rm = j->row_mask;
    size_t len = (size_t)(j->kb.off[i + 1] - j->kb.off[i]);
    const uint8_t *key = j->kb.bytes + j->kb.off[i];
    for (;; s = (s + 1) & mask) {
        uint32_t e = j->slots[s];
        if (!e) return -1;
        if ((e & ~rm) != tag) continue;
        int32_t head = slot_row(j, e);
        if (j->row_hash[head] == h && memcmp(j->row_key[head], key, len) == 0) return head;
    }
}

/* lookup_batch for keys of w words (1 or 2, a constant once inlined), the table's fields in
 * locals: the slot of a row 16 ahead and the key words of the head a row 8 ahead meets (when its
 * tag agrees) are fetched while this row looks up. */
static inline __attribute__((always_inline)) void lookup_words(const join_op *j, int64_t n, int w,
                                                               int32_t *first)
{
    const uint32_t *slots = j->slots;
    uint32_t rm = j->row_mask;
    const uint64_t *row_kv = j->row_kv, *kv = j->kv, *hash = j->key_hash;
    const uint8_t *key_null = j->key_null;
    uint64_t mask = (uint64_t)j->cap - 1;
    for (int64_t i = 0; i < n; i++) {
        if (i + 16 < n) __builtin_prefetch(&slots[hash[i + 16] & mask]);
        if (i + 8 < n) {
            uint64_t h8 = hash[i + 8];
            uint32_t e8 = slots[h8 & mask];
            if (e8 && (e8 & ~rm) == ((uint32_t)(h8 >> 28) & ~rm))
                __builtin_prefetch(&row_kv[((int64_t)(e8 & rm) - 1) * w]);
        }
        int32_t found = -1;
        if (!key_null[i]) {
            const uint64_t *k = kv + i * w;
            uint64_t h = hash[i], s = h & mask;
            uint32_t tag = (uint32_t)(h >> 28) & ~rm;
            for (;; s = (s + 1) & mask) {
                uint32_t e = slots[s];
                if (!e) break;
                if ((e & ~rm) != tag) continue;
                int64_t head = (int64_t)(e & rm) - 1;
                const uint64_t *hk = row_kv + head * w;
                if (hk[0] == k[0] && (w == 1 || hk[1] == k[1])) {
                    found = (int32_t)head;
                    break;
                }
            }
        }
        first[i] = found;
    }
}

/* The first build row matching each of the n keys of the current batch keys into first[] (-1:
 * none, or a null key): one pass over the batch before any pair is made. */
static void lookup_batch(join_op *j, int64_t n, int32_t *first)
{
    if (j->cap == 0) {
        for (int64_t i = 0; i < n; i++)
            first[i] = -1;
    } else if (j->words == 1) {
        lookup_words(j, n, 1, first);
    } else if (j->words == 2) {
        lookup_words(j, n, 2, first);
    } else {
        uint64_t mask = (uint64_t)j->cap - 1;
        for (int64_t i = 0; i < n; i++) {
            if (i + 16 < n) __builtin_prefetch(&j->slots[j->key_hash[i + 16] & mask]);
            if (i + 8 < n) {
                uint64_t h8 = j->key_hash[i + 8];
                uint32_t e = j->slots[h8 & mask];
                if (e && (e & ~j->row_mask) == slot_tag(j, h8)) {
                    __builtin_prefetch(&j->row_hash[slot_row(j, e)]);
                    __builtin_prefetch(&j->row_key[slot_row(j, e)]);
                }
            }
            first[i] = j->key_null[i] ? -1 : lookup(j, i);
        }
    }
}

static void emit_probe_rows(join_op *j, cs_col_batch *P, const uint8_t *m);

/* A semi / anti join probing the left side under a residual condition: a probe row is decided by
 * its first pair for which the condition holds, so its matches are tried in rounds (1, 2, 4, ..
 * of each row's next matches per round) and a row leaves once a pair holds, instead of pairing
 * it with every build row of its key. na rows open (act_row, act_next: their first match). */
static int probe_rounds(join_op *j, cs_col_batch *P, int64_t na, cs_error *err)
{
    int64_t chunk = cs_sql_batch_rows(j->base.ctx), take = 1, np = 0;
    int rc = CS_OK;
    while (na > 0 && rc == CS_OK) {
        int64_t still = 0;
        for (int64_t a = 0; a < na && rc == CS_OK; a++) {
            int32_t i = j->act_row[a], r = j->act_next[a];
            if (j->probe_matched[i]) continue; /* decided by an earlier chunk of this round */
            for (int64_t t = 0; t < take && r >= 0 && rc == CS_OK; t++, r = j->next[r]) {
                j->pi[np] = i;
                j->pb[np++] = r;
                if (np == chunk) {
                    rc = flush_pairs(j, P, np, err);
                    np = 0;
                }
            }
            if (r >= 0) { /* still <= a: the open rows are compacted in place */
                j->act_row[still] = i;
                j->act_next[still++] = r;
            }
        }
        if (rc == CS_OK) rc = flush_pairs(j, P, np, err);
        np = 0;
        na = still;
        if (take < chunk) take *= 2;
    }
    return rc;
}

static int probe_batch(join_op *j, cs_col_batch *P, cs_error *err)
{
    int64_t n = P->num_rows, chunk = cs_sql_batch_rows(j->base.ctx);
    if (n > j->probe_cap) {
        j->probe_cap = n;
        free(j->probe_matched);
        free(j->act_row);
        free(j->act_next);
        free(j->probe_first);
        j->probe_matched = cs_xmalloc((size_t)n);
        j->probe_first = cs_xmalloc(sizeof *j->probe_first * (size_t)n);
        j->act_row = cs_xmalloc(sizeof *j->act_row * (size_t)n);
        j->act_next = cs_xmalloc(sizeof *j->act_next * (size_t)n);
    }
    memset(j->probe_matched, 0, (size_t)n);
    ensure_scratch(j, n > chunk ? n : chunk);
    batch_keys(j, P, j->probe_keys);
    bool probe_left = j->probe_child == 0;
    bool need_pairs = emits_pairs(j->type) || j->condition || !probe_left;
    /* a semi / anti join building the left side with no residual condition only marks the build
     * rows its keys meet */
    bool mark_build = !emits_pairs(j->type) && !j->condition && !probe_left;
    /* semi / anti probing the left side under a condition: the first pair holding decides */
    bool rounds = !emits_pairs(j->type) && j->condition && probe_left;
    int64_t np = 0, na = 0;
    int rc = CS_OK;
    int32_t *first = j->probe_first;
    lookup_batch(j, n, first);
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (i + 8 < n && first[i + 8] >= 0) __builtin_prefetch(&j->next[first[i + 8]]);
        int32_t r = first[i];
        if (r < 0) continue;
        if (!need_pairs) {
            j->probe_matched[i] = 1;
            continue;
        }
        if (mark_build) {
            for (; r >= 0 && !j->matched[r]; r = j->next[r])
                j->matched[r] = 1;
            continue;
        }
        if (rounds) {
            j->act_row[na] = (int32_t)i;
            j->act_next[na++] = r;
            continue;
        }
        for (; r >= 0 && rc == CS_OK; r = j->next[r]) {
            j->pi[np] = (int32_t)i;
            j->pb[np++] = r;
            if (np == chunk) {
                rc = flush_pairs(j, P, np, err);
                np = 0;
            }
        }
    }
    if (rc == CS_OK) rc = flush_pairs(j, P, np, err);
    if (rc == CS_OK && na > 0) rc = probe_rounds(j, P, na, err);
    if (rc != CS_OK) return rc;
    if (j->blocked) { /* the probe rows' fate waits for the partition's last block */
        if (j->probe_row0 + n > j->pmatched_n)
            return cs_error_set(err, CS_EIO,
                                "HashJoin: a probe partition gave more rows than it holds (%lld)",
                                (long long)j->pmatched_n);
        for (int64_t i = 0; i < n; i++)
            j->pmatched[j->probe_row0 + i] |= j->probe_matched[i];
        j->probe_row0 += n;
        return CS_OK;
    }
    emit_probe_rows(j, P, j->probe_matched);
    return CS_OK;
}

/* Whether the probe side's own rows come out (outer: unmatched, semi: matched, anti: unmatched). */
static bool probe_rows_out(const join_op *j)
{
    bool probe_left = j->probe_child == 0;
    return preserves(j, j->probe_child) ||
           (probe_left && (j->type == CS_HJ_LEFT_SEMI || j->type == CS_HJ_LEFT_ANTI ||
                           j->type == CS_HJ_LEFT_ANTI_NULL_AWARE));
}

/* The probe batch P's own rows by their matched flags m[] (j->kb: P's keys). */
static void emit_probe_rows(join_op *j, cs_col_batch *P, const uint8_t *m)
{
    int64_t n = P->num_rows, chunk = cs_sql_batch_rows(j->base.ctx);
    bool probe_left = j->probe_child == 0;
    bool want_unmatched =
        preserves(j, j->probe_child) ||
        (probe_left && (j->type == CS_HJ_LEFT_ANTI || j->type == CS_HJ_LEFT_ANTI_NULL_AWARE));
    bool want_matched = probe_left && j->type == CS_HJ_LEFT_SEMI;
    if (!want_unmatched && !want_matched) return;
    if (j->type == CS_HJ_LEFT_ANTI_NULL_AWARE && j->build_total > 0 && j->build_null_key)
        return; /* NOT IN over a list holding a null: never true */
    ensure_scratch(j, n > chunk ? n : chunk);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (want_matched ? !m[i] : m[i]) continue;
        if (j->type == CS_HJ_LEFT_ANTI_NULL_AWARE && j->build_total > 0 && j->key_null[i])
            continue; /* null NOT IN (non-empty list) is null */
        j->pi[k] = (int32_t)i;
        j->pb[k++] = -1;
    }
    for (int64_t o = 0; o < k; o += chunk) {
        int64_t c = k - o < chunk ? k - o : chunk;
        push(j, make_rows(j, P, j->pi + o, j->pb + o, c, false));
    }
}

/* After the probe side: the build rows an outer join keeps unmatched, or a semi / anti join
 * building the left side keeps. */
static void tail(join_op *j)
{
    bool build_left = j->build_child == 0;
    bool want_unmatched =
        preserves(j, j->build_child) || (build_left && j->type == CS_HJ_LEFT_ANTI);
    bool want_matched = build_left && j->type == CS_HJ_LEFT_SEMI;
    if (!want_unmatched && !want_matched) return;
    int64_t chunk = cs_sql_batch_rows(j->base.ctx);
    ensure_scratch(j, chunk);
    int64_t k = 0;
    for (int64_t r = 0; r <= j->n_rows; r++) {
        if (k == chunk || (r == j->n_rows && k > 0)) {
            push(j, make_rows(j, NULL, j->pi, j->pb, k, false));
            k = 0;
        }
        if (r == j->n_rows) break;
        if (want_matched ? !j->matched[r] : j->matched[r]) continue;
        j->pi[k] = -1;
        j->pb[k++] = (int32_t)r;
    }
}

/* ---- grace partitioning ---- */

static int partition_write(join_op *j, cs_col_batch *b, const cs_sort_key *keys,
                           cs_sql_spill **spills, cs_error *err)
{
    int64_t n = b->num_rows;
    cs_sql_keys_encode(&j->kb, b, keys, j->n_keys, true);
    if (keys == j->build_keys) /* null-aware anti's global fact, taken while partitioning */
        for (int64_t i = 0; i < n; i++)
            j->build_null_key |= j->kb.any_null[i];
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(n > 0 ? n : 1));
    int rc = CS_OK;
    for (int p = 0; p < GRACE_PARTS && rc == CS_OK; p++) {
        int64_t k = 0;
        for (int64_t i = 0; i < n; i++)
            if ((int)(j->kb.hash[i] >> 60) == p) idx[k++] = (int32_t)i;
        if (k == 0) continue;
        cs_col_batch *part = cs_sql_gather_batch(b->schema, &b, NULL, idx, k, j->base.ctx->alloc);
        rc = cs_sql_spill_write(spills[p], part, err);
        cs_col_batch_unref(part);
    }
    free(idx);
    return rc;
}

/* Bytes the build side holds: its batches, and its index (built, or the one it will need). */
static int64_t build_held(const join_op *j)
{
    return j->bb_memory + j->arena.held + index_bytes(j, j->n_kept);
}

static int start_grace(join_op *j, cs_error *err)
{
    const cs_sql_exec_ctx *ctx = j->base.ctx;
    for (int p = 0; p < GRACE_PARTS; p++) {
        j->gbuild[p] =
            cs_sql_spill_new(ctx->spill_dir, j->base.children[j->build_child]->schema, err);
        j->gprobe[p] =
            cs_sql_spill_new(ctx->spill_dir, j->base.children[j->probe_child]->schema, err);
        if (!j->gbuild[p] || !j->gprobe[p]) return CS_EIO;
    }
    j->grace = true;
    int rc = CS_OK;
    for (int i = 0; i < j->nbb && rc == CS_OK; i++)
        rc = partition_write(j, j->bb[i], j->build_keys, j->gbuild, err);
    build_reset(j);
    return rc;
}

static int do_build(join_op *j, cs_error *err)
{
    cs_sql_op *bc = j->base.children[j->build_child];
    int rc;
    int64_t peak = 0;
    for (;;) {
        cs_col_batch *b;
        if ((rc = cs_sql_op_next(bc, &b, err)) != CS_OK) return rc;
        if (!b) break;
        j->build_total += b->num_rows;
        if (j->grace) {
            rc = partition_write(j, b, j->build_keys, j->gbuild, err);
            cs_col_batch_unref(b);
            if (rc != CS_OK) return rc;
            continue;
        }
        build_keep(j, b);
        int64_t held = build_held(j);
        if (held > peak) peak = held;
        if (cs_sql_should_spill_before(j->base.ctx, held, index_bytes(j, j->n_kept)) &&
            (rc = start_grace(j, err)) != CS_OK)
            return rc;
    }
    if (!j->grace) {
        build_index(j);
        /* the index may be what brings the task over its share */
        if (cs_sql_should_spill(j->base.ctx, build_held(j)) && (rc = start_grace(j, err)) != CS_OK)
            return rc;
    }
    if (peak > j->base.metrics.peak_memory) j->base.metrics.peak_memory = peak;
    if (!j->grace) {
        j->phase = PH_PROBE;
        return CS_OK;
    }
    cs_sql_op *pc = j->base.children[j->probe_child];
    for (;;) {
        cs_col_batch *b;
        if ((rc = cs_sql_op_next(pc, &b, err)) != CS_OK) return rc;
        if (!b) break;
        rc = partition_write(j, b, j->probe_keys, j->gprobe, err);
        cs_col_batch_unref(b);
        if (rc != CS_OK) return rc;
    }
    int64_t bytes = 0;
    for (int p = 0; p < GRACE_PARTS; p++) {
        bytes += cs_sql_spill_bytes(j->gbuild[p]) + cs_sql_spill_bytes(j->gprobe[p]);
        if ((rc = cs_sql_spill_finish(j->gbuild[p], j->base.ctx->alloc, err)) != CS_OK ||
            (rc = cs_sql_spill_finish(j->gprobe[p], j->base.ctx->alloc, err)) != CS_OK)
            return rc;
    }
    cs_sql_note_spill(&j->base, peak, bytes);
    j->part = 0;
    j->phase = PH_LOAD_PART;
    return CS_OK;
}

/* ---- a grace partition, block by block: the next block of partition j->part's build side is
 * its rows until the end or until they and their index pass the task's memory (more wait) ---- */
static int load_block(join_op *j, cs_error *err)
{
    const cs_sql_exec_ctx *ctx = j->base.ctx;
    build_reset(j);
    j->block_more = false;
    int rc;
    cs_col_batch *b;
    while ((rc = cs_sql_spill_next(j->gbuild[j->part], &b, err)) > 0) {
        build_keep(j, b);
        int64_t held = build_held(j);
        if (held > j->base.metrics.peak_memory) j->base.metrics.peak_memory = held;
        if (cs_sql_should_spill_before(ctx, held, index_bytes(j, j->n_kept))) {
            j->block_more = true;
            break;
        }
    }
    if (rc < 0) return rc;
    build_index(j); /* the kept rows, indexed once at their final size */
    if (j->block_more && !j->blocked) {
        j->blocked = true;
        j->pmatched_n = cs_sql_spill_rows(j->gprobe[j->part]);
        j->pmatched = cs_xcalloc((size_t)j->pmatched_n + 1, 1);
    }
    if (j->block > 0 && (rc = cs_sql_spill_rewind(j->gprobe[j->part], ctx->alloc, err)) != CS_OK)
        return rc;
    j->block++;
    j->probe_row0 = 0;
    j->phase = PH_PROBE_PART;
    return CS_OK;
}

/* Frees partition j->part's files and moves to the next partition. */
static void next_part(join_op *j)
{
    cs_sql_spill_free(j->gbuild[j->part]);
    cs_sql_spill_free(j->gprobe[j->part]);
    j->gbuild[j->part] = j->gprobe[j->part] = NULL;
    free(j->pmatched);
    j->pmatched = NULL;
    j->pmatched_n = 0;
    j->blocked = false;
    j->block = 0;
    j->part++;
    j->phase = PH_LOAD_PART;
}

/* A probe partition's probe pass ended: the next block, the probe rows' own pass, or the next
 * partition. */
static int end_probe_pass(join_op *j, cs_error *err)
{
    tail(j);
    if (j->block_more) {
        j->phase = PH_LOAD_PART;
        return CS_OK;
    }
    if (j->blocked && probe_rows_out(j)) {
        int rc = cs_sql_spill_rewind(j->gprobe[j->part], j->base.ctx->alloc, err);
        if (rc != CS_OK) return rc;
        j->probe_row0 = 0;
        j->phase = PH_PROBE_REST;
        return CS_OK;
    }
    next_part(j);
    return CS_OK;
}

/* The probe rows of a blocked partition once every block was probed. */
static int probe_rest(join_op *j, cs_col_batch *P, cs_error *err)
{
    int64_t n = P->num_rows;
    if (j->probe_row0 + n > j->pmatched_n)
        return cs_error_set(err, CS_EIO,
                            "HashJoin: a probe partition gave more rows than it holds (%lld)",
                            (long long)j->pmatched_n);
    batch_keys(j, P, j->probe_keys); /* key_null: emit_probe_rows reads it */
    emit_probe_rows(j, P, j->pmatched + j->probe_row0);
    j->probe_row0 += n;
    return CS_OK;
}

/* ---- the operator ---- */

static int join_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    join_op *j = (join_op *)op;
    j->arena.alloc = ctx->alloc;
    j->phase = PH_BUILD;
    j->build_total = 0;
    j->build_null_key = false;
    int rc = cs_sql_op_open(op->children[0], ctx, err);
    if (rc == CS_OK) rc = cs_sql_op_open(op->children[1], ctx, err);
    return rc;
}

static int join_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    join_op *j = (join_op *)op;
    int rc = CS_OK;
    while (j->q.head == j->q.n && rc == CS_OK) {
        j->q.head = j->q.n = 0;
        cs_col_batch *b = NULL;
        switch (j->phase) {
        case PH_BUILD:
            rc = do_build(j, err);
            break;
        case PH_PROBE:
            rc = cs_sql_op_next(op->children[j->probe_child], &b, err);
            if (rc != CS_OK) break;
            if (!b) {
                tail(j);
                j->phase = PH_DONE;
                break;
            }
            rc = probe_batch(j, b, err);
            cs_col_batch_unref(b);
            break;
        case PH_LOAD_PART:
            if (j->part == GRACE_PARTS) {
                j->phase = PH_DONE;
                break;
            }
            rc = load_block(j, err);
            break;
        case PH_PROBE_PART:
            rc = cs_sql_spill_next(j->gprobe[j->part], &b, err);
            if (rc < 0) break;
            if (rc == 0) {
                rc = end_probe_pass(j, err);
                break;
            }
            rc = probe_batch(j, b, err);
            cs_col_batch_unref(b);
            break;
        case PH_PROBE_REST:
            rc = cs_sql_spill_next(j->gprobe[j->part], &b, err);
            if (rc < 0) break;
            if (rc == 0) {
                next_part(j);
                break;
            }
            rc = probe_rest(j, b, err);
            cs_col_batch_unref(b);
            break;
        case PH_DONE:
            return CS_OK;
        }
    }
    if (rc != CS_OK) return rc;
    *out = j->q.b[j->q.head];
    j->q.b[j->q.head++] = NULL;
    return CS_OK;
}

static void join_close(cs_sql_op *op)
{
    join_op *j = (join_op *)op;
    for (int i = j->q.head; i < j->q.n; i++)
        cs_col_batch_unref(j->q.b[i]);
    j->q.head = j->q.n = 0;
    build_reset(j);
    for (int p = 0; p < GRACE_PARTS; p++) {
        cs_sql_spill_free(j->gbuild[p]);
        cs_sql_spill_free(j->gprobe[p]);
        j->gbuild[p] = j->gprobe[p] = NULL;
    }
    j->grace = false;
    free(j->pmatched);
    j->pmatched = NULL;
    j->pmatched_n = 0;
    j->blocked = false;
    j->block = 0;
    j->part = 0;
    cs_sql_keybuf_free(&j->kb);
    free(j->kv);
    free(j->kv_hash);
    free(j->kv_null);
    j->kv = j->kv_hash = NULL;
    j->kv_null = NULL;
    j->kv_cap = 0;
    cs_sql_op_close(op->children[0]);
    cs_sql_op_close(op->children[1]);
}

static void join_destroy(cs_sql_op *op)
{
    join_op *j = (join_op *)op;
    free(j->q.b);
    free(j->bb);
    free(j->pi);
    free(j->pb);
    free(j->probe_matched);
    free(j->act_row);
    free(j->act_next);
    free(j->probe_first);
    free(j->left_keys);
    free(j->right_keys);
    cs_col_type_unref(j->pairs_schema);
    free(j);
}

static const char *const join_names[] = {"Inner",    "LeftOuter", "RightOuter", "FullOuter",
                                         "LeftSemi", "LeftAnti",  "LeftAnti"};

static void join_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const join_op *j = (const join_op *)op;
    const cs_col_type *l = op->children[0]->schema, *r = op->children[1]->schema;
    cs_sbuf_putc(out, '[');
    for (int k = 0; k < j->n_keys; k++)
        cs_sbuf_printf(out, "%s%s", k ? ", " : "", l->fields[j->left_keys[k].ordinal].name);
    cs_sbuf_puts(out, "], [");
    for (int k = 0; k < j->n_keys; k++)
        cs_sbuf_printf(out, "%s%s", k ? ", " : "", r->fields[j->right_keys[k].ordinal].name);
    cs_sbuf_printf(out, "], %s, %s", join_names[j->type],
                   j->build_side == CS_BUILD_LEFT ? "BuildLeft" : "BuildRight");
    if (j->type == CS_HJ_LEFT_ANTI_NULL_AWARE) cs_sbuf_puts(out, ", true");
}

static const cs_sql_op_vtable join_vt = {
    .name = "ShuffledHashJoin",
    .open = join_open,
    .next = join_next,
    .close = join_close,
    .destroy = join_destroy,
    .explain_args = join_explain,
};

cs_sql_op *cs_sql_op_hash_join(cs_sql_op *left, cs_sql_op *right, const cs_join_spec *spec,
                               cs_error *err)
{
    const cs_col_type *l = left->schema, *r = right->schema;
    int rc = CS_OK;
    if (spec->n_keys < 1)
        rc = cs_error_set(err, CS_EINVAL, "HashJoin: at least one key is needed, got %d",
                          spec->n_keys);
    for (int k = 0; k < spec->n_keys && rc == CS_OK; k++) {
        int lo = spec->left_keys[k], ro = spec->right_keys[k];
        if (lo < 0 || lo >= l->n_fields || ro < 0 || ro >= r->n_fields)
            rc = cs_error_set(err, CS_EINVAL,
                              "HashJoin: key %d's ordinals (%d, %d) are not "
                              "columns of its inputs (%d, %d columns)",
                              k, lo, ro, l->n_fields, r->n_fields);
        else if (!cs_col_type_equal(l->fields[lo].type, r->fields[ro].type) ||
                 !cs_sql_key_type_ok(l->fields[lo].type))
            rc = cs_error_set(err, CS_EINVAL,
                              "HashJoin: key %d (%s, %s) needs one hashable "
                              "type on both sides",
                              k, l->fields[lo].name, r->fields[ro].name);
    }
    if (rc == CS_OK && spec->type == CS_HJ_LEFT_ANTI_NULL_AWARE &&
        (spec->build != CS_BUILD_RIGHT || spec->n_keys != 1))
        rc = cs_error_set(err, CS_EINVAL,
                          "HashJoin: a null-aware anti join builds the right "
                          "side over one key");
    if (rc != CS_OK) {
        cs_sql_op_free(left);
        cs_sql_op_free(right);
        return NULL;
    }
    join_op *j = cs_xcalloc(1, sizeof *j);
    j->type = spec->type;
    j->build_side = spec->build;
    j->n_keys = spec->n_keys;
    j->words = spec->n_keys == 1 || spec->n_keys == 2 ? spec->n_keys : 0;
    for (int k = 0; k < spec->n_keys && j->words; k++)
        if (cs_col_type_integral_width(l->fields[spec->left_keys[k]].type->id) <= 0 ||
            cs_col_type_integral_width(r->fields[spec->right_keys[k]].type->id) <= 0)
            j->words = 0;
    j->condition = spec->condition;
    j->condition_arg = spec->condition_arg;
    j->left_keys = cs_xcalloc((size_t)spec->n_keys, sizeof *j->left_keys);
    j->right_keys = cs_xcalloc((size_t)spec->n_keys, sizeof *j->right_keys);
    for (int k = 0; k < spec->n_keys; k++) {
        j->left_keys[k] = (cs_sort_key){.ordinal = spec->left_keys[k], .nulls_first = true};
        j->right_keys[k] = (cs_sort_key){.ordinal = spec->right_keys[k], .nulls_first = true};
    }
    j->build_child = spec->build == CS_BUILD_LEFT ? 0 : 1;
    j->probe_child = 1 - j->build_child;
    j->build_keys = j->build_child == 0 ? j->left_keys : j->right_keys;
    j->probe_keys = j->probe_child == 0 ? j->left_keys : j->right_keys;
    const cs_col_type *parts[2] = {l, r};
    j->pairs_schema = cs_sql_concat_schema(parts, NULL, 2);
    cs_col_type *schema;
    if (is_semi_anti(spec->type)) {
        schema = cs_col_type_ref((cs_col_type *)l);
    } else {
        bool force[2] = {spec->type == CS_HJ_RIGHT_OUTER || spec->type == CS_HJ_FULL_OUTER,
                         spec->type == CS_HJ_LEFT_OUTER || spec->type == CS_HJ_FULL_OUTER};
        schema = cs_sql_concat_schema(parts, force, 2);
    }
    cs_sql_op *children[2] = {left, right};
    cs_sql_op_init(&j->base, &join_vt, schema, children, 2);
    return &j->base;
}
