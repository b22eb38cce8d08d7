/*
 * op_nested_loop_join.c — the nested loop join (Spark's BroadcastNestedLoopJoinExec and
 * CartesianProductExec inside one task): joins without equi-keys. The build side (left or right)
 * is read whole and kept as one batch (its batches gathered together; the memory is the task's
 * allocator's), the other side streamed a batch at a time. Join types inner (and cross), left /
 * right / full outer, left semi and left anti; the condition is the planner's callback of
 * sql_ops.h (NULL: every pair matches).
 *
 * Pairs: for a probe batch of n rows and a build side of m rows the n * m candidate pairs are
 * walked in blocks of cs_sql_batch_rows: a block's pairs are gathered into one batch (left
 * columns then right), the condition is evaluated on the whole block (vectorized), matched flags
 * of both sides are set, and for inner / outer joins the kept pairs come out as one batch. next
 * returns at most one block's output per call, so a large cross product never sits in memory.
 * After a probe batch: its unmatched rows (outer on the probe side, anti probing left) or its
 * matched rows (semi probing left). After the probe side: the unmatched build rows (outer on the
 * build side, anti building left) or the matched ones (semi building left). Semi and anti joins
 * without a condition take no pairs at all: a row matches when the other side is not empty.
 *
 * Called by the physical plan builder (phys_build.c); ownership as every sql_ops.h operator.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/sql_ops_internal.h"

enum nlj_phase { NLJ_BUILD, NLJ_PROBE, NLJ_TAIL, NLJ_DONE };

typedef struct nlj_op {
    cs_sql_op base;
    cs_hash_join_type type;
    cs_build_side build_side;
    int build_child, probe_child;
    cs_join_condition_fn condition;
    void *condition_arg;
    cs_col_type *pairs_schema; /* left ++ right: the condition's input */
    enum nlj_phase phase;
    /* build side: the whole of it as one batch */
    cs_col_batch **bb;
    int nbb, bb_cap;
    cs_col_batch *build;
    int64_t m;
    uint8_t *build_matched;
    /* the probe batch being joined and the next pair (pi, bi) */
    cs_col_batch *P;
    uint8_t *probe_matched;
    int64_t probe_cap;
    int64_t pi, bi;
    int64_t tail_at; /* next build row of the tail */
    int32_t *lidx, *ridx;
    int64_t idx_cap;
} nlj_op;

static bool emits_pairs(cs_hash_join_type t)
{
    return t == CS_HJ_INNER || t == CS_HJ_LEFT_OUTER || t == CS_HJ_RIGHT_OUTER ||
           t == CS_HJ_FULL_OUTER;
}

static bool preserves(const nlj_op *j, int child)
{
    return j->type == CS_HJ_FULL_OUTER || (child == 0 && j->type == CS_HJ_LEFT_OUTER) ||
           (child == 1 && j->type == CS_HJ_RIGHT_OUTER);
}

static void ensure_idx(nlj_op *j, int64_t n)
{
    if (n <= j->idx_cap) return;
    j->idx_cap = n;
    free(j->lidx);
    free(j->ridx);
    j->lidx = cs_xmalloc(sizeof *j->lidx * (size_t)n);
    j->ridx = cs_xmalloc(sizeof *j->ridx * (size_t)n);
}

/* Rows of `schema` (the pairs' schema, the output schema or the left side's): left columns from
 * left row lidx[i], right ones from right row ridx[i] (-1: null). */
static cs_col_batch *make_rows(nlj_op *j, cs_col_type *schema, const int32_t *lidx,
                               const int32_t *ridx, int64_t n)
{
    cs_col_allocator *al = j->base.ctx->alloc;
    cs_col_batch *L = j->build_child == 0 ? j->build : j->P;
    cs_col_batch *R = j->build_child == 1 ? j->build : j->P;
    int nl = j->base.children[0]->schema->n_fields;
    int nc = schema->n_fields;
    cs_column **cols = cs_xcalloc((size_t)nc + 1, sizeof *cols);
    for (int c = 0; c < nc; c++) {
        bool from_left = c < nl;
        cs_col_batch *src = from_left ? L : R;
        cs_column *one[1] = {src ? src->columns[from_left ? c : c - nl] : NULL};
        cols[c] = cs_sql_gather(schema->fields[c].type, one, NULL, from_left ? lidx : ridx, n, al);
    }
    cs_col_batch *out = cs_col_batch_new(cs_col_type_ref(schema), cols, nc, n, NULL);
    free(cols);
    return out;
}

static int do_build(nlj_op *j, cs_error *err)
{
    cs_sql_op *child = j->base.children[j->build_child];
    for (;;) {
        cs_col_batch *b;
        int rc = cs_sql_op_next(child, &b, err);
        if (rc != CS_OK) return rc;
        if (!b) break;
        if (b->num_rows == 0) {
            cs_col_batch_unref(b);
            continue;
        }
        if (j->nbb == j->bb_cap) {
            j->bb_cap = j->bb_cap ? 2 * j->bb_cap : 8;
            j->bb = cs_xrealloc(j->bb, sizeof *j->bb * (size_t)j->bb_cap);
        }
        j->bb[j->nbb++] = b;
        j->m += b->num_rows;
        if (j->m > INT32_MAX)
            return cs_error_set(err, CS_EINVAL,
                                "BroadcastNestedLoopJoin: the build side has more than %d rows",
                                INT32_MAX);
    }
    if (j->nbb == 0) { /* an empty build side: columns of no rows, for outer rows' nulls */
        const cs_col_type *t = child->schema;
        cs_column **cols = cs_xcalloc((size_t)t->n_fields + 1, sizeof *cols);
        for (int c = 0; c < t->n_fields; c++) {
            cs_col_builder *cb = cs_col_builder_new(j->base.ctx->alloc, t->fields[c].type);
            cols[c] = cs_col_builder_finish(cb);
            cs_col_builder_free(cb);
        }
        j->build = cs_col_batch_new(cs_col_type_ref(child->schema), cols, t->n_fields, 0, NULL);
        free(cols);
    } else if (j->nbb == 1) {
        j->build = j->bb[0];
    } else {
        int32_t *bidx = cs_xmalloc(sizeof *bidx * (size_t)(j->m + 1));
        int32_t *ridx = cs_xmalloc(sizeof *ridx * (size_t)(j->m + 1));
        int64_t k = 0;
        for (int b = 0; b < j->nbb; b++)
            for (int64_t r = 0; r < j->bb[b]->num_rows; r++, k++) {
                bidx[k] = b;
                ridx[k] = (int32_t)r;
            }
        j->build = cs_sql_gather_batch(child->schema, j->bb, bidx, ridx, j->m, j->base.ctx->alloc);
        free(bidx);
        free(ridx);
        for (int b = 0; b < j->nbb; b++)
            cs_col_batch_unref(j->bb[b]);
    }
    j->nbb = 0;
    j->build_matched = cs_xcalloc((size_t)j->m + 1, 1);
    int64_t held = cs_col_batch_memory(j->build);
    if (held > j->base.metrics.peak_memory) j->base.metrics.peak_memory = held;
    j->phase = NLJ_PROBE;
    return CS_OK;
}

/* The probe rows a finished probe batch gives: unmatched ones (outer on the probe side, anti
 * probing left) or matched ones (semi probing left); NULL when none. */
static cs_col_batch *probe_rest(nlj_op *j)
{
    bool probe_left = j->probe_child == 0;
    bool want_unmatched =
        preserves(j, j->probe_child) || (probe_left && j->type == CS_HJ_LEFT_ANTI);
    bool want_matched = probe_left && j->type == CS_HJ_LEFT_SEMI;
    if (!want_unmatched && !want_matched) return NULL;
    int64_t n = j->P->num_rows, k = 0;
    ensure_idx(j, n);
    for (int64_t i = 0; i < n; i++)
        if (want_matched ? j->probe_matched[i] : !j->probe_matched[i]) {
            j->lidx[k] = j->ridx[k] = (int32_t)i;
            k++;
        }
    if (k == 0) return NULL;
    if (probe_left) {
        for (int64_t i = 0; i < k; i++)
            j->ridx[i] = -1;
        if (j->type == CS_HJ_LEFT_SEMI || j->type == CS_HJ_LEFT_ANTI) {
            if (k == n) return cs_col_batch_ref(j->P);
            return cs_sql_gather_batch(j->base.schema, &j->P, NULL, j->lidx, k, j->base.ctx->alloc);
        }
    } else {
        for (int64_t i = 0; i < k; i++)
            j->lidx[i] = -1;
    }
    return make_rows(j, j->base.schema, j->lidx, j->ridx, k);
}

/* One block of pairs of the current probe batch: *out the kept pairs (inner / outer) or NULL. */
static int probe_block(nlj_op *j, cs_col_batch **out, cs_error *err)
{
    int64_t n = j->P->num_rows, chunk = cs_sql_batch_rows(j->base.ctx);
    if (!j->condition && !emits_pairs(j->type)) {
        /* semi / anti without a condition: every row matches a non-empty other side */
        if (j->m > 0) {
            memset(j->probe_matched, 1, (size_t)n);
            memset(j->build_matched, 1, (size_t)j->m);
        }
        j->pi = n;
        return CS_OK;
    }
    ensure_idx(j, chunk);
    int32_t *pidx = j->probe_child == 0 ? j->lidx : j->ridx;
    int32_t *bidx = j->probe_child == 0 ? j->ridx : j->lidx;
    int64_t k = 0;
    while (k < chunk && j->pi < n) {
        int64_t take = j->m - j->bi < chunk - k ? j->m - j->bi : chunk - k;
        for (int64_t t = 0; t < take; t++) {
            pidx[k + t] = (int32_t)j->pi;
            bidx[k + t] = (int32_t)(j->bi + t);
        }
        k += take;
        j->bi += take;
        if (j->bi >= j->m) {
            j->bi = 0;
            j->pi++;
        }
    }
    if (k == 0) return CS_OK;
    cs_col_batch *pairs = NULL;
    if (j->condition) {
        pairs = make_rows(j, j->pairs_schema, j->lidx, j->ridx, k);
        uint8_t *keep = cs_xcalloc((size_t)k, 1);
        int rc = j->condition(j->condition_arg, pairs, keep, err);
        if (rc != CS_OK) {
            free(keep);
            cs_col_batch_unref(pairs);
            return rc;
        }
        int64_t kept = 0;
        for (int64_t i = 0; i < k; i++)
            if (keep[i]) {
                j->lidx[kept] = j->lidx[i];
                j->ridx[kept++] = j->ridx[i];
            }
        free(keep);
        if (kept != k) {
            cs_col_batch_unref(pairs);
            pairs = NULL;
        }
        k = kept;
    }
    for (int64_t i = 0; i < k; i++) {
        j->probe_matched[pidx[i]] = 1;
        j->build_matched[bidx[i]] = 1;
    }
    if (emits_pairs(j->type) && k > 0) {
        /* the pairs' schema and the output's differ only in nullability */
        if (pairs) {
            cs_column **cols = cs_xmalloc(sizeof *cols * (size_t)pairs->n_columns);
            for (int c = 0; c < pairs->n_columns; c++)
                cols[c] = cs_column_ref(pairs->columns[c]);
            *out =
                cs_col_batch_new(cs_col_type_ref(j->base.schema), cols, pairs->n_columns, k, NULL);
            free(cols);
        } else {
            *out = make_rows(j, j->base.schema, j->lidx, j->ridx, k);
        }
    }
    cs_col_batch_unref(pairs);
    return CS_OK;
}

/* One chunk of the build rows the tail gives, or NULL at the end of the tail. */
static cs_col_batch *tail_chunk(nlj_op *j)
{
    bool build_left = j->build_child == 0;
    bool want_unmatched =
        preserves(j, j->build_child) || (build_left && j->type == CS_HJ_LEFT_ANTI);
    bool want_matched = build_left && j->type == CS_HJ_LEFT_SEMI;
    if (!want_unmatched && !want_matched) return NULL;
    int64_t chunk = cs_sql_batch_rows(j->base.ctx), k = 0;
    ensure_idx(j, chunk);
    int32_t *bidx = build_left ? j->lidx : j->ridx;
    int32_t *pidx = build_left ? j->ridx : j->lidx;
    while (j->tail_at < j->m && k < chunk) {
        int64_t r = j->tail_at++;
        if (want_matched ? !j->build_matched[r] : j->build_matched[r]) continue;
        bidx[k] = (int32_t)r;
        pidx[k++] = -1;
    }
    if (k == 0) return NULL;
    if (build_left && (j->type == CS_HJ_LEFT_SEMI || j->type == CS_HJ_LEFT_ANTI))
        return cs_sql_gather_batch(j->base.schema, &j->build, NULL, bidx, k, j->base.ctx->alloc);
    return make_rows(j, j->base.schema, j->lidx, j->ridx, k);
}

static int nlj_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    nlj_op *j = (nlj_op *)op;
    j->phase = NLJ_BUILD;
    j->m = j->tail_at = 0;
    int rc = cs_sql_op_open(op->children[0], ctx, err);
    if (rc == CS_OK) rc = cs_sql_op_open(op->children[1], ctx, err);
    return rc;
}

static int nlj_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    nlj_op *j = (nlj_op *)op;
    int rc = CS_OK;
    while (rc == CS_OK && !*out) {
        switch (j->phase) {
        case NLJ_BUILD:
            rc = do_build(j, err);
            break;
        case NLJ_PROBE:
            if (!j->P) {
                cs_col_batch *b = NULL;
                rc = cs_sql_op_next(op->children[j->probe_child], &b, err);
                if (rc != CS_OK) break;
                if (!b) {
                    j->phase = NLJ_TAIL;
                    break;
                }
                if (b->num_rows == 0) {
                    cs_col_batch_unref(b);
                    break;
                }
                j->P = b;
                j->pi = j->bi = 0;
                if (b->num_rows > j->probe_cap) {
                    j->probe_cap = b->num_rows;
                    free(j->probe_matched);
                    j->probe_matched = cs_xmalloc((size_t)j->probe_cap);
                }
                memset(j->probe_matched, 0, (size_t)b->num_rows);
            }
            if (j->pi < j->P->num_rows && j->m > 0) {
                rc = probe_block(j, out, err);
                break;
            }
            *out = probe_rest(j);
            cs_col_batch_unref(j->P);
            j->P = NULL;
            break;
        case NLJ_TAIL:
            *out = tail_chunk(j);
            if (!*out) j->phase = NLJ_DONE;
            break;
        case NLJ_DONE:
            return CS_OK;
        }
    }
    return rc;
}

static void nlj_close(cs_sql_op *op)
{
    nlj_op *j = (nlj_op *)op;
    for (int b = 0; b < j->nbb; b++)
        cs_col_batch_unref(j->bb[b]);
    j->nbb = 0;
    cs_col_batch_unref(j->build);
    j->build = NULL;
    cs_col_batch_unref(j->P);
    j->P = NULL;
    free(j->build_matched);
    j->build_matched = NULL;
    cs_sql_op_close(op->children[0]);
    cs_sql_op_close(op->children[1]);
}

static void nlj_destroy(cs_sql_op *op)
{
    nlj_op *j = (nlj_op *)op;
    free(j->bb);
    free(j->probe_matched);
    free(j->lidx);
    free(j->ridx);
    cs_col_type_unref(j->pairs_schema);
    free(j);
}

static const char *const nlj_type_names[] = {"Inner",    "LeftOuter", "RightOuter", "FullOuter",
                                             "LeftSemi", "LeftAnti",  "LeftAnti"};

static void nlj_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const nlj_op *j = (const nlj_op *)op;
    cs_sbuf_printf(out, "%s, %s", j->build_side == CS_BUILD_LEFT ? "BuildLeft" : "BuildRight",
                   nlj_type_names[j->type]);
    if (j->condition) cs_sbuf_puts(out, ", condition");
}

static const cs_sql_op_vtable nlj_vt = {
    .name = "BroadcastNestedLoopJoin",
    .open = nlj_open,
    .next = nlj_next,
    .close = nlj_close,
    .destroy = nlj_destroy,
    .explain_args = nlj_explain,
};

cs_sql_op *cs_sql_op_nested_loop_join(cs_sql_op *left, cs_sql_op *right, cs_hash_join_type type,
                                      cs_build_side build, cs_join_condition_fn condition,
                                      void *condition_arg, cs_error *err)
{
    if (type == CS_HJ_LEFT_ANTI_NULL_AWARE || (int)type < 0 || type > CS_HJ_LEFT_ANTI_NULL_AWARE) {
        cs_error_set(err, CS_EINVAL,
                     "BroadcastNestedLoopJoin: join type %d is not inner, outer, left semi or "
                     "left anti",
                     (int)type);
        cs_sql_op_free(left);
        cs_sql_op_free(right);
        return NULL;
    }
    nlj_op *j = cs_xcalloc(1, sizeof *j);
    j->type = type;
    j->build_side = build;
    j->build_child = build == CS_BUILD_LEFT ? 0 : 1;
    j->probe_child = 1 - j->build_child;
    j->condition = condition;
    j->condition_arg = condition_arg;
    const cs_col_type *parts[2] = {left->schema, right->schema};
    j->pairs_schema = cs_sql_concat_schema(parts, NULL, 2);
    cs_col_type *schema;
    if (type == CS_HJ_LEFT_SEMI || type == CS_HJ_LEFT_ANTI) {
        schema = cs_col_type_ref(left->schema);
    } else {
        bool force[2] = {type == CS_HJ_RIGHT_OUTER || type == CS_HJ_FULL_OUTER,
                         type == CS_HJ_LEFT_OUTER || type == CS_HJ_FULL_OUTER};
        schema = cs_sql_concat_schema(parts, force, 2);
    }
    cs_sql_op *children[2] = {left, right};
    cs_sql_op_init(&j->base, &nlj_vt, schema, children, 2);
    return &j->base;
}
