/*
 * operator.c — the parts every physical SQL operator shares (see operator.h): the open / next /
 * close protocol with metrics and cancellation, freeing a tree, Spark's EXPLAIN layout, and the
 * leaf that gives a list of batches. Called by every operator and by whoever runs a tree.
 */
#include "sqlexec/operator.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sqlexec/sql_error.h"

void cs_sql_op_init(cs_sql_op *op, const cs_sql_op_vtable *vt, cs_col_type *schema,
                    cs_sql_op **children, int n_children)
{
    op->vt = vt;
    op->schema = schema;
    op->n_children = n_children;
    op->children = NULL;
    if (n_children > 0) {
        op->children = cs_xmalloc(sizeof *op->children * (size_t)n_children);
        memcpy(op->children, children, sizeof *op->children * (size_t)n_children);
    }
    op->ctx = NULL;
    op->opened = false;
    memset(&op->metrics, 0, sizeof op->metrics);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool is_cancelled(const cs_sql_exec_ctx *ctx)
{
    return ctx && ctx->cancelled && atomic_load(ctx->cancelled);
}

int cs_sql_op_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    op->ctx = ctx;
    if (is_cancelled(ctx)) return cs_error_set(err, CS_ECANCELLED, "task cancelled");
    int rc = op->vt->open(op, ctx, err);
    /* opened even on failure: close must release whatever open made before it failed */
    op->opened = true;
    return rc;
}

int cs_sql_op_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    *out = NULL;
    if (is_cancelled(op->ctx)) return cs_error_set(err, CS_ECANCELLED, "task cancelled");
    int64_t t0 = now_ns();
    int rc = op->vt->next(op, out, err);
    op->metrics.time_ns += now_ns() - t0;
    if (rc == CS_OK && *out) {
        op->metrics.rows_out += (*out)->num_rows;
        op->metrics.batches_out++;
    }
    return rc;
}

void cs_sql_op_close(cs_sql_op *op)
{
    if (!op->opened) return;
    op->opened = false;
    if (op->vt->close) op->vt->close(op);
}

void cs_sql_op_free(cs_sql_op *op)
{
    if (!op) return;
    cs_sql_op_close(op);
    for (int i = 0; i < op->n_children; i++)
        cs_sql_op_free(op->children[i]);
    free(op->children);
    cs_col_type *schema = op->schema;
    op->vt->destroy(op);
    cs_col_type_unref(schema);
}

static void explain_node(const cs_sql_op *op, cs_sbuf *out, cs_sbuf *prefix, bool last, bool root)
{
    if (!root) {
        cs_sbuf_puts(out, cs_sbuf_str(prefix));
        cs_sbuf_puts(out, last ? "+- " : ":- ");
    }
    cs_sbuf_puts(out, op->vt->name);
    if (op->vt->explain_args) {
        cs_sbuf_putc(out, ' ');
        op->vt->explain_args(op, out);
    }
    cs_sbuf_putc(out, '\n');
    size_t keep = prefix->len;
    if (!root) cs_sbuf_puts(prefix, last ? "   " : ":  ");
    for (int i = 0; i < op->n_children; i++)
        explain_node(op->children[i], out, prefix, i == op->n_children - 1, false);
    prefix->len = keep;
    if (prefix->data) prefix->data[keep] = '\0';
}

void cs_sql_op_explain(const cs_sql_op *op, cs_sbuf *out)
{
    cs_sbuf prefix = {0};
    cs_sbuf_puts(&prefix, "");
    explain_node(op, out, &prefix, true, true);
    cs_sbuf_free(&prefix);
}

/* ---- the batch-list leaf ---- */

typedef struct batches_op {
    cs_sql_op base;
    cs_col_batch **batches;
    int n, next;
} batches_op;

static int batches_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    ((batches_op *)op)->next = 0;
    return CS_OK;
}

static int batches_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    batches_op *b = (batches_op *)op;
    if (b->next < b->n) *out = cs_col_batch_ref(b->batches[b->next++]);
    return CS_OK;
}

static void batches_destroy(cs_sql_op *op)
{
    batches_op *b = (batches_op *)op;
    for (int i = 0; i < b->n; i++)
        cs_col_batch_unref(b->batches[i]);
    free(b->batches);
    free(b);
}

static void batches_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const batches_op *b = (const batches_op *)op;
    cs_sbuf_printf(out, "[%d batches]", b->n);
}

static const cs_sql_op_vtable batches_vt = {
    .name = "LocalTableScan",
    .open = batches_open,
    .next = batches_next,
    .destroy = batches_destroy,
    .explain_args = batches_explain,
};

cs_sql_op *cs_sql_op_batches(cs_col_type *schema, cs_col_batch **b, int n)
{
    batches_op *op = cs_xcalloc(1, sizeof *op);
    cs_sql_op_init(&op->base, &batches_vt, schema, NULL, 0);
    op->n = n;
    op->batches = cs_xmalloc(sizeof *op->batches * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        op->batches[i] = cs_col_batch_ref(b[i]);
    return &op->base;
}
