/*
 * op_project.c — the Project operator (Spark's ProjectExec): one output column per expression,
 * evaluated a batch at a time; a plain column reference shares the child's column (a new
 * reference, no copy), and a subexpression several expressions share (pexpr_cse.c) is evaluated
 * once per batch. Built by the planner (cs_sql_op_project); runs on the task's thread.
 */
#include <stdlib.h>

#include "sqlexec/op_filter.h"
#include "sqlexec/pexpr_internal.h"

typedef struct project_op {
    cs_sql_op base;
    int n;
    cs_pexpr **exprs;
    cs_pexpr_program **programs; /* NULL where the expression is a plain column reference */
    cs_pexpr_cse *cse;           /* the programs' shared subexpressions, or NULL */
} project_op;

static int project_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    project_op *p = (project_op *)op;
    int rc = cs_sql_op_open(op->children[0], ctx, err);
    if (rc) return rc;
    p->programs = cs_xcalloc((size_t)(p->n ? p->n : 1), sizeof *p->programs);
    for (int i = 0; i < p->n; i++) {
        if (p->exprs[i]->kind == CS_PX_COLUMN) continue;
        p->programs[i] = cs_pexpr_compile(p->exprs[i], op->children[0]->schema, err);
        if (!p->programs[i]) return err && err->code ? err->code : CS_EINVAL;
    }
    p->cse = cs_pexpr_cse_new(p->programs, p->n);
    return CS_OK;
}

static int project_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    project_op *p = (project_op *)op;
    cs_col_batch *in;
    int rc = cs_sql_op_next(op->children[0], &in, err);
    if (rc || !in) return rc;
    cs_column **cols = cs_xcalloc((size_t)(p->n ? p->n : 1), sizeof *cols);
    for (int i = 0; i < p->n && rc == CS_OK; i++) {
        if (!p->programs[i])
            cols[i] = cs_column_ref(in->columns[p->exprs[i]->ordinal]);
        else
            rc = cs_pexpr_eval_shared(p->programs[i], p->cse, in, op->ctx, &cols[i], err);
    }
    cs_pexpr_cse_clear(p->cse);
    if (rc == CS_OK)
        *out = cs_col_batch_new(cs_col_type_ref(op->schema), cols, p->n, in->num_rows, err);
    else
        for (int i = 0; i < p->n; i++)
            if (cols[i]) cs_column_unref(cols[i]);
    if (rc == CS_OK && !*out) rc = err && err->code ? err->code : CS_EINVAL;
    free(cols);
    cs_col_batch_unref(in);
    return rc;
}

static void project_close(cs_sql_op *op)
{
    project_op *p = (project_op *)op;
    cs_pexpr_cse_free(p->cse);
    p->cse = NULL;
    if (p->programs)
        for (int i = 0; i < p->n; i++)
            cs_pexpr_program_free(p->programs[i]);
    free(p->programs);
    p->programs = NULL;
    cs_sql_op_close(op->children[0]);
}

static void project_destroy(cs_sql_op *op)
{
    project_op *p = (project_op *)op;
    for (int i = 0; i < p->n; i++)
        cs_pexpr_free(p->exprs[i]);
    free(p->exprs);
    free(p);
}

static void project_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const project_op *p = (const project_op *)op;
    cs_sbuf_putc(out, '[');
    for (int i = 0; i < p->n; i++) {
        if (i) cs_sbuf_puts(out, ", ");
        cs_pexpr_explain(p->exprs[i], out);
        if (i < op->schema->n_fields && op->schema->fields[i].name)
            cs_sbuf_printf(out, " AS %s", op->schema->fields[i].name);
    }
    cs_sbuf_putc(out, ']');
}

static const cs_sql_op_vtable PROJECT_VT = {"Project",     project_open,    project_next,
                                            project_close, project_destroy, project_explain};

cs_sql_op *cs_sql_op_project(cs_sql_op *child, cs_pexpr **exprs, int n, cs_col_type *schema)
{
    project_op *p = cs_xcalloc(1, sizeof *p);
    p->n = n;
    p->exprs = cs_xmalloc(sizeof *p->exprs * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        p->exprs[i] = exprs[i];
    cs_sql_op_init(&p->base, &PROJECT_VT, schema, &child, 1);
    return &p->base;
}
