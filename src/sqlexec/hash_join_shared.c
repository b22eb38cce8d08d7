/*
 * hash_join_shared.c — a broadcast's hash table, built once per process and probed by every task
 * of it (Spark's HashedRelation of a broadcast, cached by the executor's block manager; the
 * functions are declared in hash_join_internal.h). The first task that asks (through its
 * cs_sql_exec_ctx.broadcast_shared) builds it into a cs_sql_hj of its own whose allocator charges
 * no task; the tasks that ask meanwhile join the builder's work team (common/work_team.h) and
 * build with it, then every task adopts the table: its arrays (never written after the build)
 * read with the task's own probe scratch and matched flags.
 *
 * The build, in loops over the team (each item on whichever thread takes it):
 *   1. decode: one item per broadcast batch (their positions found first, in one pass);
 *   2. keys: one item per batch — its rows' key words, locations and empty chain links written at
 *      the batch's first global row, and a count of its rows per region of the slot table (the
 *      high bits of a key's home slot);
 *   3. scatter: one item per batch — its rows' numbers into the order region by region, batch by
 *      batch (a prefix sum between 2 and 3 gives every batch its place in every region);
 *   4. insert: one item per region — its rows in row order into its own slots (linear probing
 *      never leaves the region: a row whose probe reaches the region's end waits in the region's
 *      overflow list, and every later row of its key follows it there, since the region's slots
 *      only fill);
 *   5. the overflow lists, region after region, probing on across regions (one thread).
 * A key's rows are inserted in row order by one thread, so every chain (head: the key's first
 * row, then the later rows newest first) is the one hash_join_table.c's serial index makes, and
 * a probe finds the same rows in the same order whoever built it; only which empty slot a key
 * took may differ, which no lookup sees. Keys that are not one or two integral words, and small
 * tables, are indexed by cs_sql_hj_index alone.
 *
 * Ownership: the table is the broadcast store's (cs_sql_hj_shared_free when its broadcast goes);
 * an operator borrows it from cs_sql_hj_adopt to cs_sql_hj_reset. The build's scratch (batch
 * positions, counts, the order, overflow lists) is freed before the build returns.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/work_team.h"
#include "sqlexec/hash_join_internal.h"

struct cs_sql_hj_shared {
    cs_sql_hj t; /* the build fields only */
    cs_sql_exec_ctx ctx;
    cs_col_allocator alloc;
    cs_sort_key *keys;
};

/* Rows below which one thread indexes the table (cs_sql_hj_index): the loops' bookkeeping would
 * cost more than they share. */
#define PAR_MIN_ROWS 32768
/* Regions of the slot table at most, and slots of a region at least. */
#define PAR_REGIONS 64
#define PAR_REGION_MIN_SLOTS 4096

typedef struct par_build {
    cs_sql_hj *t;
    cs_col_allocator *alloc;
    const cs_col_type *schema;
    const uint8_t *value;
    size_t *off; /* batch i's bytes: value + off[i] + 4, len[i] of them */
    uint32_t *len;
    cs_col_batch **dec; /* decoded batches */
    int nb;
    pthread_mutex_t mu; /* err */
    bool failed;
    cs_error *err;
    /* the index */
    int64_t *row0;   /* each batch's first global row */
    uint8_t *bnull;  /* a batch has a row with a null key */
    int nreg, shift; /* regions: a home slot's index >> shift */
    int64_t *cnt;    /* [batch * nreg + region]: its rows, then (after the prefix) its cursor */
    int64_t *reg0;   /* [nreg + 1]: each region's first position in perm */
    uint8_t *knull;  /* each row's key is null */
    int32_t *perm;   /* the rows with a key, region by region, in row order within a region */
    int64_t *distinct;
    int32_t **ovf; /* each region's overflow rows, in row order */
    int64_t *novf;
} par_build;

/* The team's loop, or the same items on this thread when there is no team. */
static void team_for(cs_work_team *team, int64_t n, cs_work_item_fn fn, void *arg)
{
    if (team) {
        cs_work_team_for(team, n, fn, arg);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        fn(arg, i, 0);
}

static void decode_item(void *arg, int64_t i, int worker)
{
    (void)worker;
    par_build *p = arg;
    cs_error e;
    cs_error_clear(&e);
    if (cs_sql_batch_decode(p->schema, p->value + p->off[i] + 4, p->len[i], p->alloc, &p->dec[i],
                            &e) == CS_OK)
        return;
    p->dec[i] = NULL;
    pthread_mutex_lock(&p->mu);
    if (!p->failed) *p->err = e;
    p->failed = true;
    pthread_mutex_unlock(&p->mu);
}

/* The hash of a key of w words, as cs_sql_hj_batch_keys computes it. */
static inline uint64_t key_hash(const uint64_t *k, int w)
{
    return w == 1 ? cs_hash_mix64(k[0]) : cs_hash_mix64(cs_hash_mix64(k[0]) + k[1]);
}

static void keys_item(void *arg, int64_t bi, int worker)
{
    (void)worker;
    par_build *p = arg;
    cs_sql_hj *t = p->t;
    const cs_col_batch *b = t->bb[bi];
    int64_t n = b->num_rows, r0 = p->row0[bi];
    int w = t->words;
    uint64_t *kv = t->row_kv + r0 * w, mask = (uint64_t)t->cap - 1;
    const cs_column *c0 = b->columns[t->build_keys[0].ordinal];
    const cs_column *c1 = w == 2 ? b->columns[t->build_keys[1].ordinal] : NULL;
    cs_sql_key_words(c0, n, kv, w);
    if (c1) cs_sql_key_words(c1, n, kv + 1, w);
    int64_t *cnt = p->cnt + bi * p->nreg;
    bool any_null = false;
    for (int64_t i = 0; i < n; i++) {
        t->row_loc[r0 + i] = (uint64_t)bi << 32 | (uint32_t)i;
        t->next[r0 + i] = -1;
        if (!cs_column_is_valid(c0, i) || (c1 && !cs_column_is_valid(c1, i))) {
            any_null = true;
            t->row_kv[(r0 + i) * w] = 0;
            if (w == 2) t->row_kv[(r0 + i) * w + 1] = 0;
            p->knull[r0 + i] = 1;
            continue;
        }
        p->knull[r0 + i] = 0;
        cnt[(key_hash(kv + i * w, w) & mask) >> p->shift]++;
    }
    p->bnull[bi] = any_null;
}

static void scatter_item(void *arg, int64_t bi, int worker)
{
    (void)worker;
    par_build *p = arg;
    cs_sql_hj *t = p->t;
    int64_t n = t->bb[bi]->num_rows, r0 = p->row0[bi];
    int w = t->words;
    uint64_t mask = (uint64_t)t->cap - 1;
    int64_t *cur = p->cnt + bi * p->nreg;
    for (int64_t r = r0; r < r0 + n; r++)
        if (!p->knull[r])
            p->perm[cur[(key_hash(t->row_kv + r * w, w) & mask) >> p->shift]++] = (int32_t)r;
}

/* Inserts row r (key k of w words, hash h) probing from slot s up to slot lim (exclusive; the
 * table's size: every slot, wrapping); false when it reached lim without a place. */
static inline __attribute__((always_inline)) bool insert_row(cs_sql_hj *t, int64_t r,
                                                             const uint64_t *k, uint64_t h, int w,
                                                             uint64_t s, uint64_t lim, bool wrap,
                                                             int64_t *distinct)
{
    uint32_t *slots = t->slots, rm = t->row_mask;
    uint64_t mask = (uint64_t)t->cap - 1;
    uint32_t tag = (uint32_t)(h >> 28) & ~rm;
    for (;;) {
        uint32_t e = slots[s];
        if (!e) {
            slots[s] = tag | (uint32_t)(r + 1);
            (*distinct)++;
            return true;
        }
        if ((e & ~rm) == tag) {
            int64_t head = (int64_t)(e & rm) - 1;
            const uint64_t *hk = t->row_kv + head * w;
            if (hk[0] == k[0] && (w == 1 || hk[1] == k[1])) { /* into the head's chain */
                t->next[r] = t->next[head];
                t->next[head] = (int32_t)r;
                return true;
            }
        }
        s = wrap ? (s + 1) & mask : s + 1;
        if (!wrap && s == lim) return false;
    }
}

static inline __attribute__((always_inline)) void insert_region(par_build *p, int64_t g, int w)
{
    cs_sql_hj *t = p->t;
    const int32_t *order = p->perm;
    const uint64_t *row_kv = t->row_kv;
    uint64_t mask = (uint64_t)t->cap - 1, lim = (uint64_t)(g + 1) << p->shift;
    int64_t from = p->reg0[g], to = p->reg0[g + 1], distinct = 0, novf = 0, ovf_cap = 0;
    int32_t *ovf = NULL;
    for (int64_t k = from; k < to; k++) {
        /* the region's rows are far apart in the row arrays: the key and link of a row 32
         * ahead, then the slot a row 16 ahead starts at (its key fetched by then) */
        if (k + 32 < to) {
            __builtin_prefetch(&row_kv[(int64_t)order[k + 32] * w]);
            __builtin_prefetch(&t->next[order[k + 32]], 1);
        }
        if (k + 16 < to)
            __builtin_prefetch(&t->slots[key_hash(row_kv + (int64_t)order[k + 16] * w, w) & mask],
                               1);
        int64_t r = order[k];
        const uint64_t *kr = row_kv + r * w;
        uint64_t h = key_hash(kr, w);
        if (insert_row(t, r, kr, h, w, h & mask, lim, false, &distinct)) continue;
        if (novf == ovf_cap) {
            ovf_cap = ovf_cap ? 2 * ovf_cap : 64;
            ovf = cs_xrealloc(ovf, sizeof *ovf * (size_t)ovf_cap);
        }
        ovf[novf++] = (int32_t)r;
    }
    p->distinct[g] = distinct;
    p->ovf[g] = ovf;
    p->novf[g] = novf;
}

static void insert_item(void *arg, int64_t g, int worker)
{
    (void)worker;
    par_build *p = arg;
    if (p->t->words == 1)
        insert_region(p, g, 1);
    else
        insert_region(p, g, 2);
}

/* The rows in row order on this thread (no helper came): cs_sql_hj_index's insert over the keys
 * the keys loop wrote, its prefetches the same. */
static inline __attribute__((always_inline)) void insert_rows(par_build *p, int w)
{
    cs_sql_hj *t = p->t;
    const uint64_t *row_kv = t->row_kv;
    const uint8_t *knull = p->knull;
    uint32_t rm = t->row_mask;
    uint64_t mask = (uint64_t)t->cap - 1;
    int64_t n = t->n_kept, distinct = 0;
    for (int64_t r = 0; r < n; r++) {
        if (r + 16 < n) __builtin_prefetch(&t->slots[key_hash(row_kv + (r + 16) * w, w) & mask], 1);
        if (r + 8 < n) {
            uint64_t h8 = key_hash(row_kv + (r + 8) * w, w);
            uint32_t e8 = t->slots[h8 & mask];
            if (e8 && (e8 & ~rm) == ((uint32_t)(h8 >> 28) & ~rm)) {
                int64_t ahead = (int64_t)(e8 & rm) - 1;
                __builtin_prefetch(&t->next[ahead], 1);
                __builtin_prefetch(&row_kv[ahead * w]);
            }
        }
        if (knull[r]) continue;
        const uint64_t *kr = row_kv + r * w;
        uint64_t h = key_hash(kr, w);
        insert_row(t, r, kr, h, w, h & mask, 0, true, &distinct);
    }
    p->distinct[0] = distinct;
}

/* cs_sql_hj_index for keys of one or two words, the passes split among the team. */
static void index_par(par_build *p, cs_work_team *team)
{
    cs_sql_hj *t = p->t;
    cs_col_allocator *al = t->base.ctx->alloc;
    size_t c = (size_t)t->n_kept;
    int w = t->words;
    t->rows_cap = t->n_kept;
    t->row_loc = cs_col_buffer_alloc_unset(al, c * 8);
    t->next = cs_col_buffer_alloc_unset(al, c * 4);
    t->row_kv = cs_col_buffer_alloc_unset(al, c * 8 * (size_t)w);
    int64_t cap = 1024;
    while (cap < 2 * t->n_kept)
        cap *= 2;
    t->cap = cap;
    t->slots = cs_col_buffer_alloc(al, (size_t)cap * 4); /* all empty (zero) */
    uint64_t rows_end = 2;
    while (rows_end - 1 < (uint64_t)t->n_kept)
        rows_end <<= 1;
    t->row_mask = (uint32_t)(rows_end - 1);
    int nreg = PAR_REGIONS, shift = 0;
    while (nreg > 1 && cap / nreg < PAR_REGION_MIN_SLOTS)
        nreg /= 2;
    while (((int64_t)1 << shift) < cap / nreg)
        shift++;
    p->nreg = nreg;
    p->shift = shift;
    p->row0 = cs_xmalloc(sizeof *p->row0 * (size_t)t->nbb);
    for (int64_t bi = 0, r = 0; bi < t->nbb; r += t->bb[bi]->num_rows, bi++)
        p->row0[bi] = r;
    p->bnull = cs_xcalloc((size_t)t->nbb, 1);
    p->cnt = cs_xcalloc((size_t)t->nbb * (size_t)nreg, sizeof *p->cnt);
    p->reg0 = cs_xmalloc(sizeof *p->reg0 * (size_t)(nreg + 1));
    p->knull = cs_xmalloc(c ? c : 1);
    p->distinct = cs_xcalloc((size_t)nreg, sizeof *p->distinct);
    p->ovf = cs_xcalloc((size_t)nreg, sizeof *p->ovf);
    p->novf = cs_xcalloc((size_t)nreg, sizeof *p->novf);
    team_for(team, t->nbb, keys_item, p);
    if (!team || cs_work_team_helpers_joined(team) == 0) {
        /* alone: the rows in row order keep their arrays' locality (a key's rows are often
         * adjacent), which the regions' order gives up for the slots' */
        if (w == 1)
            insert_rows(p, 1);
        else
            insert_rows(p, 2);
        goto done;
    }
    p->perm = cs_xmalloc(sizeof *p->perm * (c ? c : 1));
    int64_t pos = 0;
    for (int g = 0; g < nreg; g++) {
        p->reg0[g] = pos;
        for (int bi = 0; bi < t->nbb; bi++) {
            int64_t k = p->cnt[(int64_t)bi * nreg + g];
            p->cnt[(int64_t)bi * nreg + g] = pos;
            pos += k;
        }
    }
    p->reg0[nreg] = pos;
    team_for(team, t->nbb, scatter_item, p);
    team_for(team, nreg, insert_item, p);
done:;
    int64_t distinct = 0;
    uint64_t mask = (uint64_t)cap - 1;
    for (int g = 0; g < nreg; g++) {
        distinct += p->distinct[g];
        for (int64_t k = 0; k < p->novf[g]; k++) {
            int64_t r = p->ovf[g][k];
            const uint64_t *kr = t->row_kv + r * w;
            uint64_t h = key_hash(kr, w);
            insert_row(t, r, kr, h, w, h & mask, 0, true, &distinct);
        }
        free(p->ovf[g]);
    }
    for (int bi = 0; bi < t->nbb; bi++)
        t->build_null_key |= p->bnull[bi];
    t->n_rows = t->n_kept;
    t->n_distinct = distinct;
    free(p->row0);
    free(p->bnull);
    free(p->cnt);
    free(p->reg0);
    free(p->knull);
    free(p->perm);
    free(p->distinct);
    free(p->ovf);
    free(p->novf);
}

void cs_sql_hj_shared_key(const cs_sql_hj *j, char *key, size_t cap)
{
    size_t n = (size_t)snprintf(key, cap, "hash_join words=%d keys", j->words);
    for (int k = 0; k < j->n_keys && n < cap; k++)
        n += (size_t)snprintf(key + n, cap - n, " %d", j->build_keys[k].ordinal);
}

/* The positions of the value's batches (each after its u32 little-endian length) into p. */
static int find_batches(par_build *p, size_t len, cs_error *err)
{
    int cap = 0;
    for (size_t off = 0; off < len;) {
        const uint8_t *q = p->value + off;
        uint32_t n = 0;
        if (len - off >= 4)
            n = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
        if (len - off < 4 || n > len - off - 4)
            return cs_error_set(err, CS_EPROTO, "a broadcast relation: a batch runs past its end");
        if (p->nb == cap) {
            cap = cap ? 2 * cap : 64;
            p->off = cs_xrealloc(p->off, sizeof *p->off * (size_t)cap);
            p->len = cs_xrealloc(p->len, sizeof *p->len * (size_t)cap);
        }
        p->off[p->nb] = off;
        p->len[p->nb++] = n;
        off += 4 + (size_t)n;
    }
    return CS_OK;
}

void *cs_sql_hj_shared_build(void *arg, const void *value, size_t len, cs_work_team *team,
                             cs_error *err)
{
    const cs_sql_hj *j = arg;
    cs_sql_hj_shared *s = cs_xcalloc(1, sizeof *s);
    cs_col_allocator_init(&s->alloc, NULL);
    s->ctx.alloc = &s->alloc;
    cs_sql_hj *t = &s->t;
    t->base.ctx = &s->ctx;
    t->arena.alloc = &s->alloc;
    t->type = j->type;
    t->n_keys = j->n_keys;
    t->words = j->words;
    s->keys = cs_xcalloc((size_t)j->n_keys, sizeof *s->keys);
    memcpy(s->keys, j->build_keys, (size_t)j->n_keys * sizeof *s->keys);
    t->build_keys = s->keys;
    par_build p = {.t = t, .alloc = &s->alloc, .value = value, .err = err};
    p.schema = j->base.children[j->build_child]->schema;
    pthread_mutex_init(&p.mu, NULL);
    int rc = find_batches(&p, len, err);
    if (rc == CS_OK && p.nb > 0) {
        p.dec = cs_xcalloc((size_t)p.nb, sizeof *p.dec);
        team_for(team, p.nb, decode_item, &p);
        rc = p.failed ? (err->code ? err->code : CS_EPROTO) : CS_OK;
        for (int i = 0; i < p.nb; i++) {
            if (!p.dec[i]) continue;
            if (rc == CS_OK) {
                t->build_total += p.dec[i]->num_rows;
                cs_sql_hj_keep(t, p.dec[i]);
            } else {
                cs_col_batch_unref(p.dec[i]);
            }
        }
    }
    if (rc == CS_OK) {
        if (t->words && t->n_kept >= PAR_MIN_ROWS)
            index_par(&p, team);
        else
            cs_sql_hj_index(t);
    }
    free(p.dec);
    free(p.off);
    free(p.len);
    pthread_mutex_destroy(&p.mu);
    cs_sql_keybuf_free(&t->kb); /* the build's scratch */
    free(t->kv);
    free(t->kv_hash);
    free(t->kv_null);
    t->kv = t->kv_hash = NULL;
    t->kv_null = NULL;
    if (rc != CS_OK) {
        cs_sql_hj_shared_free(s);
        return NULL;
    }
    return s;
}

void cs_sql_hj_shared_free(void *shared)
{
    cs_sql_hj_shared *s = shared;
    if (!s) return;
    cs_sql_hj_reset(&s->t);
    free(s->t.bb);
    free(s->keys);
    free(s);
}

int64_t cs_sql_hj_shared_bytes(const cs_sql_hj_shared *s)
{
    return (int64_t)s->alloc.allocated;
}

void cs_sql_hj_adopt(cs_sql_hj *j, const cs_sql_hj_shared *s)
{
    const cs_sql_hj *t = &s->t;
    cs_sql_hj_reset(j);
    free(j->bb);
    j->shared = s;
    j->bb = t->bb;
    j->nbb = t->nbb;
    j->bb_memory = t->bb_memory;
    j->n_kept = t->n_kept;
    j->row_loc = t->row_loc;
    j->next = t->next;
    j->n_rows = t->n_rows;
    j->rows_cap = t->rows_cap;
    j->row_kv = t->row_kv;
    j->row_key = t->row_key;
    j->row_hash = t->row_hash;
    j->slots = t->slots;
    j->row_mask = t->row_mask;
    j->cap = t->cap;
    j->n_distinct = t->n_distinct;
    j->build_total = t->build_total;
    j->build_null_key = t->build_null_key;
    j->matched = cs_col_buffer_alloc(j->base.ctx->alloc, (size_t)j->rows_cap);
}
