/*
 * op_union.c — Union (Spark's UnionExec, i.e. UNION ALL): the batches of its children, one child
 * after the other, each opened in turn and closed once exhausted (so one child's state is
 * released before the next one runs). Batches pass through by reference, re-labelled with the
 * union's schema (the first child's names; a column nullable when it is in any child) when a
 * child's names or nullability differ.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/sql_ops_internal.h"

typedef struct union_op {
    cs_sql_op base;
    int cur; /* child being read */
} union_op;

static int union_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    union_op *u = (union_op *)op;
    u->cur = 0;
    return op->n_children > 0 ? cs_sql_op_open(op->children[0], ctx, err) : CS_OK;
}

static int union_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    union_op *u = (union_op *)op;
    while (u->cur < op->n_children) {
        cs_col_batch *b;
        int rc = cs_sql_op_next(op->children[u->cur], &b, err);
        if (rc != CS_OK) return rc;
        if (b) {
            if (cs_col_type_equal(b->schema, op->schema)) {
                *out = b;
                return CS_OK;
            }
            cs_column **cols = cs_xmalloc(sizeof *cols * (size_t)(b->n_columns + 1));
            for (int c = 0; c < b->n_columns; c++)
                cols[c] = cs_column_ref(b->columns[c]);
            *out =
                cs_col_batch_new(cs_col_type_ref(op->schema), cols, b->n_columns, b->num_rows, err);
            free(cols);
            cs_col_batch_unref(b);
            return *out ? CS_OK : CS_EINVAL;
        }
        cs_sql_op_close(op->children[u->cur]);
        if (++u->cur < op->n_children &&
            (rc = cs_sql_op_open(op->children[u->cur], op->ctx, err)) != CS_OK)
            return rc;
    }
    return CS_OK;
}

static void union_close(cs_sql_op *op)
{
    for (int i = 0; i < op->n_children; i++)
        cs_sql_op_close(op->children[i]);
}

static void union_destroy(cs_sql_op *op)
{
    free(op);
}

static const cs_sql_op_vtable union_vt = {
    .name = "Union",
    .open = union_open,
    .next = union_next,
    .close = union_close,
    .destroy = union_destroy,
};

cs_sql_op *cs_sql_op_union(cs_sql_op **children, int n, cs_error *err)
{
    int rc = CS_OK;
    if (n < 1) rc = cs_error_set(err, CS_EINVAL, "Union: at least one child is needed");
    for (int i = 1; i < n && rc == CS_OK; i++) {
        const cs_col_type *a = children[0]->schema, *b = children[i]->schema;
        bool same = a->n_fields == b->n_fields;
        for (int f = 0; same && f < a->n_fields; f++)
            same = cs_col_type_equal(a->fields[f].type, b->fields[f].type);
        if (!same)
            rc = cs_error_set(err, CS_EINVAL,
                              "Union: child %d's column types differ from the "
                              "first child's",
                              i);
    }
    if (rc != CS_OK) {
        for (int i = 0; i < n; i++)
            cs_sql_op_free(children[i]);
        return NULL;
    }
    const cs_col_type *first = children[0]->schema;
    cs_col_field *f = cs_xcalloc((size_t)first->n_fields + 1, sizeof *f);
    for (int c = 0; c < first->n_fields; c++) {
        f[c] = (cs_col_field){first->fields[c].name, cs_col_type_ref(first->fields[c].type), false};
        for (int i = 0; i < n; i++)
            f[c].nullable |= children[i]->schema->fields[c].nullable;
    }
    cs_col_type *schema = cs_col_type_struct(f, first->n_fields);
    free(f);
    union_op *u = cs_xcalloc(1, sizeof *u);
    cs_sql_op_init(&u->base, &union_vt, schema, children, n);
    return &u->base;
}
