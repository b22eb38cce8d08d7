/*
 * op_filter.c — the Filter operator (Spark's FilterExec): evaluates its condition on each child
 * batch and passes on the rows where it is true (false and null dropped), compacted with
 * cs_col_batch_take; a batch whose rows all pass moves on as it is, one where none pass is
 * skipped. Built by the planner (cs_sql_op_filter); runs on the task's thread.
 */
#include "sqlexec/op_filter.h"

#include <stdlib.h>

#include "sqlexec/pexpr_internal.h"

typedef struct filter_op {
    cs_sql_op base;
    cs_pexpr *condition;
    cs_pexpr_program *program;
    int32_t *sel;
    int64_t sel_cap;
    bool *read; /* the columns the parent reads (cs_sql_op_filter_reads), or NULL: all */
} filter_op;

/* Column c of `in` with its rows sel[0..m): a column the parent never reads and whose take would
 * copy bytes or children (strings, lists, structs) is all nulls of its type instead. */
static cs_column *kept_column(const filter_op *f, const cs_col_batch *in, int c, int64_t m)
{
    const cs_col_type *t = in->columns[c]->type;
    if (f->read && !f->read[c] && (cs_col_type_has_offsets(t->id) || t->id == CS_TYPE_STRUCT))
        return cs_px_all_null(f->base.ctx->alloc, t, m);
    return cs_px_take(in->columns[c], f->sel, m, f->base.ctx->alloc);
}

static int filter_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    filter_op *f = (filter_op *)op;
    int rc = cs_sql_op_open(op->children[0], ctx, err);
    if (rc) return rc;
    f->program = cs_pexpr_compile(f->condition, op->children[0]->schema, err);
    return f->program ? CS_OK : (err && err->code ? err->code : CS_EINVAL);
}

static int filter_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    filter_op *f = (filter_op *)op;
    for (;;) {
        cs_col_batch *in;
        int rc = cs_sql_op_next(op->children[0], &in, err);
        if (rc || !in) return rc;
        if (in->num_rows == 0) {
            cs_col_batch_unref(in);
            continue;
        }
        cs_column *pred;
        rc = cs_pexpr_eval(f->program, in, op->ctx, &pred, err);
        if (rc) {
            cs_col_batch_unref(in);
            return rc;
        }
        if (in->num_rows > f->sel_cap) {
            free(f->sel);
            f->sel_cap = in->num_rows;
            f->sel = cs_xmalloc(sizeof *f->sel * (size_t)f->sel_cap);
        }
        int64_t m = cs_pexpr_true_rows(pred, f->sel);
        cs_column_unref(pred);
        if (m == 0) {
            cs_col_batch_unref(in);
            continue;
        }
        if (m == in->num_rows) {
            *out = in;
            return CS_OK;
        }
        cs_column **cols = cs_xmalloc(sizeof *cols * (size_t)(in->n_columns ? in->n_columns : 1));
        for (int c = 0; c < in->n_columns; c++)
            cols[c] = kept_column(f, in, c, m);
        *out = cs_col_batch_new(cs_col_type_ref(in->schema), cols, in->n_columns, m, NULL);
        free(cols);
        cs_col_batch_unref(in);
        return CS_OK;
    }
}

static void filter_close(cs_sql_op *op)
{
    filter_op *f = (filter_op *)op;
    cs_pexpr_program_free(f->program);
    f->program = NULL;
    free(f->sel);
    f->sel = NULL;
    f->sel_cap = 0;
    cs_sql_op_close(op->children[0]);
}

static void filter_destroy(cs_sql_op *op)
{
    filter_op *f = (filter_op *)op;
    free(f->read);
    cs_pexpr_free(f->condition);
    free(f);
}

static void filter_explain(const cs_sql_op *op, cs_sbuf *out)
{
    cs_pexpr_explain(((const filter_op *)op)->condition, out);
}

static const cs_sql_op_vtable FILTER_VT = {"Filter",     filter_open,    filter_next,
                                           filter_close, filter_destroy, filter_explain};

cs_sql_op *cs_sql_op_filter(cs_sql_op *child, cs_pexpr *condition)
{
    filter_op *f = cs_xcalloc(1, sizeof *f);
    f->condition = condition;
    cs_sql_op_init(&f->base, &FILTER_VT, cs_col_type_ref(child->schema), &child, 1);
    return &f->base;
}

void cs_sql_op_filter_reads(cs_sql_op *op, const bool *read, int n)
{
    if (op->vt != &FILTER_VT || n != op->schema->n_fields) return;
    filter_op *f = (filter_op *)op;
    free(f->read);
    f->read = cs_xmalloc(sizeof *f->read * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        f->read[i] = read[i];
}
