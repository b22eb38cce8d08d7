/*
 * op_hash_join.c — HashJoin (Spark's ShuffledHashJoinExec / BroadcastHashJoinExec inside one
 * task): the build side (left or right) is read whole and hashed, the probe side streamed a batch
 * at a time. Join types inner, left/right/full outer, left semi, left anti and null-aware left
 * anti (NOT IN), with equi-keys by ordinal and an optional residual condition callback
 * (sql_ops.h). Null keys never match.
 *
 * Build: the build side is kept whole and indexed once at its final size by the build table
 * (hash_join_table.c: chains of equal keys under tagged open-addressing slots; one or two
 * integral keys compared as 64-bit words, any other key list encoded into bytes). Every build row
 * has a global index (its batch and row) and a matched flag, for outer joins' unmatched build
 * rows and for semi / anti joins that build the left side.
 *
 * Probe: keys of the whole probe batch are encoded and hashed at once; candidate pairs (probe
 * row, build row) are collected up to cs_sql_batch_rows at a time, filtered by the residual
 * condition when there is one (over a gather of only the columns it reads, when the planner names
 * them), and their rows marked matched; the pairs kept are gathered into output rows. A semi / anti
 * join probing the left side under a condition needs only one pair holding per probe row: its
 * matches are tried in rounds (1, 2, 4, .. more per row) and a row leaves once one holds, as
 * Spark's semi join stops at the first match the condition accepts. Building the left side
 * under a condition, a build row is paired until a pair holds: never again once matched, and at
 * most once in each chunk of pairs (a probe row's pair with it waits for that chunk's result), so
 * the probe rows of one key do not each pair with all of its build rows. After the probe batch: its
 * unmatched rows (outer on the probe side), its matched rows (semi) or unmatched ones (anti). After
 * the probe side: unmatched build rows (outer on the build side, anti building left) or matched
 * ones (semi building left).
 *
 * A broadcast build side (cs_join_spec.build_broadcast) is not read by the task: the table of the
 * process (hash_join_shared.c's shared table, built once by the first task that asks, helped by
 * the tasks that ask meanwhile) is probed in place, only the matched flags being the task's; it
 * never spills (a broadcast is built whole, as Spark's broadcast relation).
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

#include "sqlexec/hash_join_internal.h"
#include "sqlexec/sql_error.h"

static bool emits_pairs(cs_hash_join_type t)
{
    return t == CS_HJ_INNER || t == CS_HJ_LEFT_OUTER || t == CS_HJ_RIGHT_OUTER ||
           t == CS_HJ_FULL_OUTER;
}

static bool is_semi_anti(cs_hash_join_type t)
{
    return t == CS_HJ_LEFT_SEMI || t == CS_HJ_LEFT_ANTI || t == CS_HJ_LEFT_ANTI_NULL_AWARE;
}

static bool preserves(const cs_sql_hj *j, int child)
{
    return j->type == CS_HJ_FULL_OUTER || (child == 0 && j->type == CS_HJ_LEFT_OUTER) ||
           (child == 1 && j->type == CS_HJ_RIGHT_OUTER);
}

static void push(cs_sql_hj *j, cs_col_batch *b)
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

/* ---- output ---- */

/* A batch of n rows: probe columns from P (pidx[i] < 0: null) and build columns from the build
 * rows brow[i] (< 0: null). both: the condition's input (left ++ right, or only its columns
 * cond_cols of that), else the output schema. */
static cs_col_batch *make_rows(cs_sql_hj *j, cs_col_batch *P, const int32_t *pidx,
                               const int32_t *brow, int64_t n, bool both)
{
    cs_col_allocator *al = j->base.ctx->alloc;
    const int *pick = both ? j->cond_cols : NULL; /* column c is column pick[c] of left ++ right */
    cs_col_type *schema = !both ? j->base.schema : pick ? j->cond_schema : j->pairs_schema;
    int nl = j->base.children[0]->schema->n_fields;
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
        int pc_at = pick ? pick[c] : c;
        bool from_left = pc_at < nl;
        int side_col = from_left ? pc_at : pc_at - nl;
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
    cs_col_batch *out = cs_col_batch_new(cs_col_type_ref(schema), cols, nc, n, NULL);
    free(cols);
    free(src);
    free(bb);
    free(br);
    return out;
}

static void ensure_scratch(cs_sql_hj *j, int64_t n)
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
static int flush_pairs(cs_sql_hj *j, cs_col_batch *P, int64_t np, cs_error *err)
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
        /* the condition's batch is the output when every pair held and it has every column */
        if (k != np || !emits_pairs(j->type) || j->cond_cols) {
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

static void emit_probe_rows(cs_sql_hj *j, cs_col_batch *P, const uint8_t *m);

/* A semi / anti join probing the left side under a residual condition: a probe row is decided by
 * its first pair for which the condition holds, so its matches are tried in rounds (1, 2, 4, ..
 * of each row's next matches per round) and a row leaves once a pair holds, instead of pairing
 * it with every build row of its key. na rows open (act_row, act_next: their first match). */
static int probe_rounds(cs_sql_hj *j, cs_col_batch *P, int64_t na, cs_error *err)
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

/* A semi / anti join building the left side under a condition: a build row is decided by its
 * first pair for which the condition holds (Spark's ShuffledHashJoin building the left side skips
 * build rows already matched), so a build row gets at most one pair in each chunk of pairs the
 * condition is evaluated over: matched[r] bit 1 says it matched, bit 2 that it has a pair in the
 * unflushed chunk. A probe row's pair with a build row that has one waits (act_row / act_next, at
 * most cap) for the chunk's result, and is dropped if the build row matched then. Without this,
 * the probe rows of one key (an order's line items) each paired with every build row of it. */
static int flush_pending(cs_sql_hj *j, cs_col_batch *P, int64_t np, cs_error *err)
{
    for (int64_t i = 0; i < np; i++)
        j->matched[j->pb[i]] &= 1;
    return flush_pairs(j, P, np, err);
}

/* The waiting pairs (nw of them, np == 0 on entry), in passes until none waits; a pass pairing a
 * build row for fewer than one in eight of the pairs waiting (many probe rows on few undecided
 * build rows) pairs all of them at once, so the passes cost at most a few times the pairs made. */
static int drain_waiting(cs_sql_hj *j, cs_col_batch *P, int64_t nw, cs_error *err)
{
    int64_t chunk = cs_sql_batch_rows(j->base.ctx);
    int32_t *wi = j->act_row, *wr = j->act_next;
    uint8_t *matched = j->matched;
    int rc = CS_OK;
    while (nw > 0 && rc == CS_OK) {
        int64_t kept = 0, made = 0, np = 0;
        for (int64_t w = 0; w < nw && rc == CS_OK; w++) {
            int32_t r = wr[w];
            if (matched[r] & 1) continue;
            if (matched[r] & 2) { /* kept <= w: compacted in place */
                wi[kept] = wi[w];
                wr[kept++] = r;
                continue;
            }
            matched[r] = 2;
            j->pi[np] = wi[w];
            j->pb[np++] = r;
            made++;
            if (np == chunk) {
                rc = flush_pending(j, P, np, err);
                np = 0;
            }
        }
        if (rc == CS_OK) rc = flush_pending(j, P, np, err);
        nw = kept;
        if (rc != CS_OK || made * 8 >= nw) continue;
        np = 0;
        for (int64_t w = 0; w < nw && rc == CS_OK; w++) {
            if (matched[wr[w]] & 1) continue;
            j->pi[np] = wi[w];
            j->pb[np++] = wr[w];
            if (np == chunk) {
                rc = flush_pairs(j, P, np, err);
                np = 0;
            }
        }
        if (rc == CS_OK) rc = flush_pairs(j, P, np, err);
        nw = 0;
    }
    return rc;
}

/* The pairs of probe batch P's n rows (first[]: each row's first build row) for a semi / anti
 * join building the left side under a condition. */
static int probe_build_left(cs_sql_hj *j, cs_col_batch *P, int64_t n, const int32_t *first,
                            cs_error *err)
{
    int64_t chunk = cs_sql_batch_rows(j->base.ctx), np = 0, nw = 0, cap = j->probe_cap;
    uint8_t *matched = j->matched;
    const int32_t *next = j->next;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (i + 8 < n && first[i + 8] >= 0) __builtin_prefetch(&next[first[i + 8]]);
        for (int32_t r = first[i]; r >= 0 && rc == CS_OK; r = next[r]) {
            if (matched[r] & 1) continue;
            if (matched[r] & 2) {
                if (nw < cap) {
                    j->act_row[nw] = (int32_t)i;
                    j->act_next[nw++] = r;
                    continue;
                }
                /* the waiting list is full: decide the chunk and the waiting pairs first */
                rc = flush_pending(j, P, np, err);
                np = 0;
                if (rc == CS_OK) rc = drain_waiting(j, P, nw, err);
                nw = 0;
                if (rc != CS_OK || (matched[r] & 1)) continue;
            }
            matched[r] = 2;
            j->pi[np] = (int32_t)i;
            j->pb[np++] = r;
            if (np == chunk) {
                rc = flush_pending(j, P, np, err);
                np = 0;
            }
        }
    }
    if (rc == CS_OK) rc = flush_pending(j, P, np, err);
    if (rc == CS_OK) rc = drain_waiting(j, P, nw, err);
    return rc;
}

static int probe_batch(cs_sql_hj *j, cs_col_batch *P, cs_error *err)
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
    cs_sql_hj_batch_keys(j, P, j->probe_keys);
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
    cs_sql_hj_lookup_batch(j, n, first);
    /* semi / anti building the left side under a condition: one pair per build row at a time */
    bool build_rounds = !emits_pairs(j->type) && j->condition && !probe_left;
    if (build_rounds) rc = probe_build_left(j, P, n, first, err);
    for (int64_t i = 0; i < n && rc == CS_OK && !build_rounds; i++) {
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
static bool probe_rows_out(const cs_sql_hj *j)
{
    bool probe_left = j->probe_child == 0;
    return preserves(j, j->probe_child) ||
           (probe_left && (j->type == CS_HJ_LEFT_SEMI || j->type == CS_HJ_LEFT_ANTI ||
                           j->type == CS_HJ_LEFT_ANTI_NULL_AWARE));
}

/* The probe batch P's own rows by their matched flags m[] (j->kb: P's keys). */
static void emit_probe_rows(cs_sql_hj *j, cs_col_batch *P, const uint8_t *m)
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
static void tail(cs_sql_hj *j)
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

static int partition_write(cs_sql_hj *j, cs_col_batch *b, const cs_sort_key *keys,
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
static int64_t build_held(const cs_sql_hj *j)
{
    return j->bb_memory + j->arena.held + cs_sql_hj_index_bytes(j, j->n_kept);
}

static int start_grace(cs_sql_hj *j, cs_error *err)
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
    cs_sql_hj_reset(j);
    return rc;
}

/* A broadcast build side: the process's table of it (built by the first task that asks). */
static int adopt_shared(cs_sql_hj *j, cs_error *err)
{
    const cs_sql_exec_ctx *ctx = j->base.ctx;
    char key[256];
    cs_sql_hj_shared_key(j, key, sizeof key);
    void *t = NULL;
    int rc = ctx->broadcast_shared(ctx->broadcast_arg, j->build_broadcast, key,
                                   cs_sql_hj_shared_build, j, cs_sql_hj_shared_free, &t, err);
    if (rc != CS_OK) return rc;
    cs_sql_hj_adopt(j, t);
    j->phase = PH_PROBE;
    return CS_OK;
}

static int do_build(cs_sql_hj *j, cs_error *err)
{
    if (j->build_broadcast >= 0 && j->base.ctx->broadcast_shared) return adopt_shared(j, err);
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
        cs_sql_hj_keep(j, b);
        int64_t held = build_held(j);
        if (held > peak) peak = held;
        if (cs_sql_should_spill_before(j->base.ctx, held, cs_sql_hj_index_bytes(j, j->n_kept)) &&
            (rc = start_grace(j, err)) != CS_OK)
            return rc;
    }
    if (!j->grace) {
        cs_sql_hj_index(j);
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
static int load_block(cs_sql_hj *j, cs_error *err)
{
    const cs_sql_exec_ctx *ctx = j->base.ctx;
    cs_sql_hj_reset(j);
    j->block_more = false;
    int rc;
    cs_col_batch *b;
    while ((rc = cs_sql_spill_next(j->gbuild[j->part], &b, err)) > 0) {
        cs_sql_hj_keep(j, b);
        int64_t held = build_held(j);
        if (held > j->base.metrics.peak_memory) j->base.metrics.peak_memory = held;
        if (cs_sql_should_spill_before(ctx, held, cs_sql_hj_index_bytes(j, j->n_kept))) {
            j->block_more = true;
            break;
        }
    }
    if (rc < 0) return rc;
    cs_sql_hj_index(j); /* the kept rows, indexed once at their final size */
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
static void next_part(cs_sql_hj *j)
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
static int end_probe_pass(cs_sql_hj *j, cs_error *err)
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
static int probe_rest(cs_sql_hj *j, cs_col_batch *P, cs_error *err)
{
    int64_t n = P->num_rows;
    if (j->probe_row0 + n > j->pmatched_n)
        return cs_error_set(err, CS_EIO,
                            "HashJoin: a probe partition gave more rows than it holds (%lld)",
                            (long long)j->pmatched_n);
    cs_sql_hj_batch_keys(j, P, j->probe_keys); /* key_null: emit_probe_rows reads it */
    emit_probe_rows(j, P, j->pmatched + j->probe_row0);
    j->probe_row0 += n;
    return CS_OK;
}

/* ---- the operator ---- */

static int join_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    cs_sql_hj *j = (cs_sql_hj *)op;
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
    cs_sql_hj *j = (cs_sql_hj *)op;
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
    cs_sql_hj *j = (cs_sql_hj *)op;
    for (int i = j->q.head; i < j->q.n; i++)
        cs_col_batch_unref(j->q.b[i]);
    j->q.head = j->q.n = 0;
    cs_sql_hj_reset(j);
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
    cs_sql_hj *j = (cs_sql_hj *)op;
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
    cs_col_type_unref(j->cond_schema);
    free(j->cond_cols);
    free(j);
}

static const char *const join_names[] = {"Inner",    "LeftOuter", "RightOuter", "FullOuter",
                                         "LeftSemi", "LeftAnti",  "LeftAnti"};

static void join_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const cs_sql_hj *j = (const cs_sql_hj *)op;
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
    for (int c = 0; spec->condition_cols && c < spec->n_condition_cols && rc == CS_OK; c++)
        if (spec->condition_cols[c] < 0 || spec->condition_cols[c] >= l->n_fields + r->n_fields ||
            (c > 0 && spec->condition_cols[c] <= spec->condition_cols[c - 1]))
            rc = cs_error_set(err, CS_EINVAL,
                              "HashJoin: the condition's column %d (%d) is not an ascending "
                              "column of its inputs (%d columns)",
                              c, spec->condition_cols[c], l->n_fields + r->n_fields);
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
    cs_sql_hj *j = cs_xcalloc(1, sizeof *j);
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
    j->build_broadcast = spec->build_broadcast ? spec->build_broadcast_input : -1;
    j->probe_child = 1 - j->build_child;
    j->build_keys = j->build_child == 0 ? j->left_keys : j->right_keys;
    j->probe_keys = j->probe_child == 0 ? j->left_keys : j->right_keys;
    const cs_col_type *parts[2] = {l, r};
    j->pairs_schema = cs_sql_concat_schema(parts, NULL, 2);
    if (spec->condition && spec->condition_cols) {
        int nc = spec->n_condition_cols;
        j->n_cond_cols = nc;
        j->cond_cols = cs_xcalloc((size_t)(nc > 0 ? nc : 1), sizeof *j->cond_cols);
        cs_col_field *f = cs_xcalloc((size_t)(nc > 0 ? nc : 1), sizeof *f);
        for (int c = 0; c < nc; c++) {
            j->cond_cols[c] = spec->condition_cols[c];
            f[c] = j->pairs_schema->fields[spec->condition_cols[c]];
            cs_col_type_ref(f[c].type);
        }
        j->cond_schema = cs_col_type_struct(f, nc);
        free(f);
    }
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
