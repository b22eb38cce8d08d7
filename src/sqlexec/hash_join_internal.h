/*
 * hash_join_internal.h — private to the HashJoin operator (op_hash_join.c) and its build table
 * (hash_join_table.c, and hash_join_shared.c for a broadcast's table): the operator's state, and
 * the table's functions — keep the build side's batches, index them, hash a batch's keys, look a
 * probe batch's keys up. Nothing else includes it. The table's arrays are the operator's (charged
 * to its task through ctx->alloc) and freed by cs_sql_hj_reset; the kept batches' references are
 * the operator's until then.
 */
#ifndef CSPARK_SQLEXEC_HASH_JOIN_INTERNAL_H
#define CSPARK_SQLEXEC_HASH_JOIN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sqlexec/sql_ops_internal.h"

#define GRACE_PARTS 16

enum cs_sql_hj_phase { PH_BUILD, PH_PROBE, PH_LOAD_PART, PH_PROBE_PART, PH_PROBE_REST, PH_DONE };

typedef struct cs_sql_hj_queue {
    cs_col_batch **b;
    int n, head, cap;
} cs_sql_hj_queue;

typedef struct cs_sql_hj_shared cs_sql_hj_shared;
struct cs_work_team;

typedef struct cs_sql_hj {
    cs_sql_op base;
    cs_hash_join_type type;
    cs_build_side build_side;
    int n_keys;
    cs_sort_key *left_keys, *right_keys;
    cs_join_condition_fn condition;
    void *condition_arg;
    cs_col_type *pairs_schema; /* left ++ right (the condition's input) */
    int *cond_cols;            /* the columns of pairs_schema the condition reads, NULL: all */
    int n_cond_cols;
    cs_col_type *cond_schema; /* pairs_schema's fields cond_cols (NULL: pairs_schema) */
    int probe_child, build_child;
    const cs_sort_key *probe_keys, *build_keys;
    int build_broadcast; /* the build side is this broadcast input of the stage, -1: not one */
    /* the table below is this process's shared one (read only; only matched is the task's) */
    const cs_sql_hj_shared *shared;
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
    cs_sql_hj_queue q;
    enum cs_sql_hj_phase phase;
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
} cs_sql_hj;

/* Frees the index and the kept build batches (the operator stays usable for another build). */
void cs_sql_hj_reset(cs_sql_hj *j);
/* Keeps a build batch (taking the reference) for cs_sql_hj_index. */
void cs_sql_hj_keep(cs_sql_hj *j, cs_col_batch *b);
/* Bytes the index of `rows` build rows takes (the key arena counted apart). */
int64_t cs_sql_hj_index_bytes(const cs_sql_hj *j, int64_t rows);
/* Indexes every kept build batch, the arrays and the table allocated once for their rows. */
void cs_sql_hj_index(cs_sql_hj *j);
/* The keys of every row of b (keys: the side's key list) into key_null / key_hash, and kv or kb. */
void cs_sql_hj_batch_keys(cs_sql_hj *j, const cs_col_batch *b, const cs_sort_key *keys);
/* The first build row matching each of the n keys of the current batch keys into first[] (-1:
 * none, or a null key). */
void cs_sql_hj_lookup_batch(cs_sql_hj *j, int64_t n, int32_t *first);

/* A broadcast's table, built once per process and probed by every task of it (Spark's
 * HashedRelation of a broadcast, cached by the executor's block manager): its batches and index
 * come from an allocator of its own (counted once, charged to no task) and never change after the
 * build. */
/* The key it is shared under: the build keys and their form (j's build side). */
void cs_sql_hj_shared_key(const cs_sql_hj *j, char *key, size_t cap);
/* cs_sql_exec_ctx.broadcast_shared's build (hash_join_shared.c): the table of j's build keys over
 * a broadcast's batches, its loops shared with team's helpers (NULL: none) (value, len: each
 * preceded by its u32 little-endian length). NULL with err when the value is malformed. */
void *cs_sql_hj_shared_build(void *j, const void *value, size_t len, struct cs_work_team *team,
                             cs_error *err);
void cs_sql_hj_shared_free(void *shared);
/* j probes shared from now on (its own matched flags allocated); cs_sql_hj_reset lets it go. */
void cs_sql_hj_adopt(cs_sql_hj *j, const cs_sql_hj_shared *shared);
/* The bytes the shared table holds (its batches and index: its allocator's count). */
int64_t cs_sql_hj_shared_bytes(const cs_sql_hj_shared *shared);

#endif /* CSPARK_SQLEXEC_HASH_JOIN_INTERNAL_H */
