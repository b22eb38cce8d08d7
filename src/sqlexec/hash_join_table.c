/*
 * hash_join_table.c — the HashJoin's build table (op_hash_join.c calls it through
 * hash_join_internal.h): the build batches are kept first (references; their memory is already
 * the task's), so that the row count is known and the index is allocated once at its final size
 * (no regrowth, no rehash). Then each row with no null key goes into an open-addressing table of
 * chain heads: rows with equal keys form a chain (next[]), so the table holds distinct keys and a
 * probe walks only its matches. A slot is 32 bits: the head row (+ 1) in as many low bits as the
 * row count needs, and above them a tag of the key's hash, so a probe passes a slot of another
 * key (and a missing key its whole run of slots) without reading any build row's key. Every build
 * row has a global index (its batch and row, one word) and a matched flag.
 *
 * Keys: one or two integral keys are used as their values, one or two 64-bit words per row,
 * inserted and looked up in loops specialised for the word count; any other key list is encoded
 * a batch at a time (sort_keys.c) into bytes kept in an arena and hashed with XXH3. A probe
 * batch's keys are all looked up before the operator makes any pair.
 *
 * A broadcast's table is built once per process and adopted by every task probing it
 * (hash_join_shared.c): the same arrays, indexed by the tasks waiting for it together.
 *
 * Ownership: every array here is the operator's, allocated through its task's allocator and
 * freed by cs_sql_hj_reset; nothing is returned to the caller but row numbers. An operator that
 * adopted a shared table only borrows its arrays (cs_sql_hj_reset lets them go).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/hash_join_internal.h"
#include "common/hmap.h"

void cs_sql_hj_reset(cs_sql_hj *j)
{
    cs_col_allocator *al = j->base.ctx->alloc;
    size_t rc = (size_t)j->rows_cap;
    if (j->shared) { /* the table is the process's: only the matched flags are the task's */
        cs_col_buffer_free(al, j->matched, rc);
        j->shared = NULL;
        j->bb = NULL;
        j->nbb = j->bb_cap = 0;
        j->matched = NULL;
        j->row_kv = NULL;
        j->row_key = NULL;
        j->row_hash = NULL;
        j->row_loc = NULL;
        j->next = NULL;
        j->slots = NULL;
        j->bb_memory = j->n_kept = 0;
        j->n_rows = j->rows_cap = j->cap = j->n_distinct = 0;
        return;
    }
    for (int i = 0; i < j->nbb; i++)
        cs_col_batch_unref(j->bb[i]);
    j->nbb = 0;
    j->bb_memory = 0;
    j->n_kept = 0;
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
void cs_sql_hj_batch_keys(cs_sql_hj *j, const cs_col_batch *b, const cs_sort_key *keys)
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
static inline uint32_t slot_tag(const cs_sql_hj *j, uint64_t h)
{
    return (uint32_t)(h >> 28) & ~j->row_mask;
}

/* The chain head a non-empty slot holds. */
static inline int32_t slot_row(const cs_sql_hj *j, uint32_t e)
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

/* Bytes the index of `rows` build rows takes (the arrays cs_sql_hj_index allocates; the key arena
 * is counted apart). */
int64_t cs_sql_hj_index_bytes(const cs_sql_hj *j, int64_t rows)
{
    int64_t per_row = 8 + 4 + 1 + (j->words ? 8 * j->words : 8 + (int64_t)sizeof(uint8_t *));
    return rows * per_row + (int64_t)cs_col_padded((size_t)table_slots(rows) * 4);
}

/* Keeps a build batch (taking the reference) for cs_sql_hj_index. */
void cs_sql_hj_keep(cs_sql_hj *j, cs_col_batch *b)
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
static void table_insert(cs_sql_hj *j, int64_t r, int64_t i)
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
static inline __attribute__((always_inline)) void insert_word_rows(cs_sql_hj *j, int bi, int64_t n,
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
void cs_sql_hj_index(cs_sql_hj *j)
{
    cs_col_allocator *al = j->base.ctx->alloc;
    size_t c = (size_t)j->n_kept;
    j->rows_cap = j->n_kept;
    /* written below before they are read: every row's location, every chain link (-1 first),
     * and the key words / hash / key of every row inserted (only inserted rows are read) */
    j->row_loc = cs_col_buffer_alloc_unset(al, c * 8);
    j->next = cs_col_buffer_alloc_unset(al, c * 4);
    j->matched = cs_col_buffer_alloc(al, c);
    if (j->words) {
        j->row_kv = cs_col_buffer_alloc_unset(al, c * 8 * (size_t)j->words);
    } else {
        j->row_key = cs_col_buffer_alloc_unset(al, c * sizeof *j->row_key);
        j->row_hash = cs_col_buffer_alloc_unset(al, c * 8);
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
        cs_sql_hj_batch_keys(j, b, j->build_keys);
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

/* The first build row whose encoded key equals key i of the current batch keys, or -1. */
static int32_t lookup(const cs_sql_hj *j, int64_t i)
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

/* cs_sql_hj_lookup_batch for keys of w words (1 or 2, a constant once inlined), the table's fields
 * in locals: the slot of a row 16 ahead and the key words of the head a row 8 ahead meets (when its
 * tag agrees) are fetched while this row looks up. */
static inline __attribute__((always_inline)) void lookup_words(const cs_sql_hj *j, int64_t n, int w,
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
void cs_sql_hj_lookup_batch(cs_sql_hj *j, int64_t n, int32_t *first)
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
