/*
 * agg_keys.h — the hash aggregate's group keys kept as 64-bit words (op_hash_aggregate.c), not
 * encoded into bytes: an integral key (byte, short, int, long, date, timestamp, intervals) is one
 * word, its value widened; a string or binary key is two words, its length and a pointer to its
 * bytes (the batch's column while a batch is probed, the aggregate's arena once a group keeps
 * it); a last word holds the keys' null bits (bit k: key k is null, its words zero). Rows are
 * hashed by mixing the words (a string's bytes through XXH3) and compared word by word, a
 * string's bytes with memcmp. A group's row with a string is copied into the aggregate's arena
 * with its strings' bytes after it (cs_agg_keys_store_row); integral-only rows are fixed-size and
 * the aggregate keeps them in an array. The layout is a value owned by its aggregate; the
 * functions keep no state.
 */
#ifndef CSPARK_SQLEXEC_AGG_KEYS_H
#define CSPARK_SQLEXEC_AGG_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sqlexec/sql_ops_internal.h"

#define CS_AGG_KEYS_MAX 8

typedef struct cs_agg_keys {
    int n_keys;
    int wstride;                /* words per row: the keys' words, then the null bits */
    int n_str;                  /* string / binary keys */
    int at[CS_AGG_KEYS_MAX];    /* key k's first word */
    int width[CS_AGG_KEYS_MAX]; /* key k: bytes of its integral values, 0 for a string */
} cs_agg_keys;

/* The layout of keys of these types, or false when one of them is neither integral nor a string
 * / binary, or there are none or more than CS_AGG_KEYS_MAX. */
bool cs_agg_keys_init(cs_agg_keys *l, cs_col_type *const *types, int n_keys);

/* Rows [0, n) of b's key columns (keys[k].ordinal) as words into w (wstride a row) and their
 * hashes into hash. A string's pointer is into b: valid while b is. */
void cs_agg_keys_batch(const cs_agg_keys *l, const cs_col_batch *b, const cs_sort_key *keys,
                       int64_t n, uint64_t *w, uint64_t *hash);

/* Row src copied into arena with its strings' bytes right after it (one allocation: a group's
 * key in one place, its size the keys', not a fixed width); returns the copy. */
uint64_t *cs_agg_keys_store_row(const cs_agg_keys *l, const uint64_t *src, cs_sql_arena *arena);

/* Key columns (types[k]) of the n rows rows[i]; cols[] get one new reference each, built as
 * cs_sql_keys_decode builds them. */
void cs_agg_keys_decode(const cs_agg_keys *l, const uint64_t *const *rows, int64_t n,
                        cs_col_type *const *types, cs_col_allocator *alloc, cs_column **cols);

/* XXH3 of the row's key as cs_sql_keys_encode encodes it (ASC NULLS FIRST): what a table of
 * encoded keys would hash it to, so spill partitions do not depend on the layout. */
uint64_t cs_agg_keys_encoded_hash(const cs_agg_keys *l, const uint64_t *row);

static inline bool cs_agg_keys_equal(const cs_agg_keys *l, const uint64_t *x, const uint64_t *y)
{
    if (l->n_str == 0) {
        for (int k = 0; k < l->wstride; k++)
            if (x[k] != y[k]) return false;
        return true;
    }
    if (x[l->wstride - 1] != y[l->wstride - 1]) return false;
    for (int k = 0; k < l->n_keys; k++) {
        int a = l->at[k];
        if (x[a] != y[a]) return false;
        if (l->width[k] == 0 && x[a] != 0 &&
            memcmp((const void *)(uintptr_t)x[a + 1], (const void *)(uintptr_t)y[a + 1],
                   (size_t)x[a]) != 0)
            return false;
    }
    return true;
}

#endif /* CSPARK_SQLEXEC_AGG_KEYS_H */
