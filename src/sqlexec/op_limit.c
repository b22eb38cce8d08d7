/*
 * op_limit.c — Limit / Offset (Spark's GlobalLimitExec, LocalLimitExec and the offset of
 * GlobalLimitExec / CollectLimitExec): passes on rows [offset, offset + limit) of its child's
 * output, slicing the batch that straddles a bound (a gather of the kept rows) and passing whole
 * batches through untouched. It stops pulling from its child once the limit is reached, so a
 * LIMIT over a scan reads no further. Which task's rows a global limit sees is the planner's
 * business (a single partition after an exchange, as Spark).
 */
#include <stdlib.h>

#include "sqlexec/sql_ops_internal.h"

typedef struct limit_op {
    cs_sql_op base;
    int64_t limit, offset; /* limit < 0: none */
    int64_t seen, given;   /* rows read from the child, rows passed on */
} limit_op;

static int limit_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    limit_op *l = (limit_op *)op;
    l->seen = l->given = 0;
    return cs_sql_op_open(op->children[0], ctx, err);
}

static int limit_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    limit_op *l = (limit_op *)op;
    for (;;) {
        if (l->limit >= 0 && l->given >= l->limit) return CS_OK;
        cs_col_batch *b;
        int rc = cs_sql_op_next(op->children[0], &b, err);
        if (rc != CS_OK || !b) return rc;
        int64_t n = b->num_rows, from = 0, to = n;
        if (l->seen < l->offset) from = l->offset - l->seen < n ? l->offset - l->seen : n;
        l->seen += n;
        if (l->limit >= 0 && to - from > l->limit - l->given) to = from + (l->limit - l->given);
        if (to <= from) {
            cs_col_batch_unref(b);
            continue;
        }
        l->given += to - from;
        if (from == 0 && to == n) {
            *out = b;
            return CS_OK;
        }
        int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(to - from));
        for (int64_t i = from; i < to; i++)
            idx[i - from] = (int32_t)i;
        *out = cs_sql_gather_batch(op->schema, &b, NULL, idx, to - from, op->ctx->alloc);
        free(idx);
        cs_col_batch_unref(b);
        return CS_OK;
    }
}

static void limit_close(cs_sql_op *op)
{
    cs_sql_op_close(op->children[0]);
}

static void limit_destroy(cs_sql_op *op)
{
    free(op);
}

static void limit_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const limit_op *l = (const limit_op *)op;
    cs_sbuf_printf(out, "%lld", (long long)l->limit);
    if (l->offset > 0) cs_sbuf_printf(out, ", %lld", (long long)l->offset);
}

static const cs_sql_op_vtable limit_vt = {
    .name = "GlobalLimit",
    .open = limit_open,
    .next = limit_next,
    .close = limit_close,
    .destroy = limit_destroy,
    .explain_args = limit_explain,
};

cs_sql_op *cs_sql_op_limit(cs_sql_op *child, int64_t limit, int64_t offset, cs_error *err)
{
    if (offset < 0) {
        cs_error_set(err, CS_EINVAL, "Limit: offset %lld must be >= 0", (long long)offset);
        cs_sql_op_free(child);
        return NULL;
    }
    limit_op *l = cs_xcalloc(1, sizeof *l);
    l->limit = limit;
    l->offset = offset;
    cs_sql_op_init(&l->base, &limit_vt, cs_col_type_ref(child->schema), &child, 1);
    return &l->base;
}
