/*
 * op_union.c — Union (Spark's UnionExec, i.e. UNION ALL): the batches of its children, one child
 * after the other, each opened in turn and closed once exhausted (so one child's state is
 * released before the next one runs). Batches pass through by reference, re-labelled with the
 * union's schema (the first child's names; a column nullable when it is in any child) when a
 * child's names or nullability differ.
 *
 * Also Expand (Spark's ExpandExec), the other operator that only re-arranges its child's
 * batches: each input batch comes out once per projection, its columns shared (a reference, no
 * copy), the nulled ones and the grouping id made as constant columns.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
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

/* ---- Expand ---- */

typedef struct expand_op {
    cs_sql_op base;
    int *proj; /* n_proj x n_out ordinals (CS_EXPAND_NULL: null) */
    int n_proj, n_out;
    int64_t *gid; /* NULL: no grouping id column */
    cs_col_batch *cur;
    int next_proj;
} expand_op;

static int expand_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    expand_op *e = (expand_op *)op;
    e->cur = NULL;
    e->next_proj = 0;
    return cs_sql_op_open(op->children[0], ctx, err);
}

static int expand_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    expand_op *e = (expand_op *)op;
    if (!e->cur || e->next_proj == e->n_proj) {
        cs_col_batch_unref(e->cur);
        e->cur = NULL;
        int rc = cs_sql_op_next(op->children[0], &e->cur, err);
        if (rc != CS_OK || !e->cur) return rc;
        e->next_proj = 0;
    }
    int p = e->next_proj++, nc = op->schema->n_fields;
    int64_t n = e->cur->num_rows;
    cs_column **cols = cs_xcalloc((size_t)nc + 1, sizeof *cols);
    for (int c = 0; c < nc; c++) {
        int o = c < e->n_out ? e->proj[p * e->n_out + c] : -2;
        if (o >= 0) {
            cols[c] = cs_column_ref(e->cur->columns[o]);
            continue;
        }
        cs_col_builder *b = cs_col_builder_new(op->ctx->alloc, op->schema->fields[c].type);
        if (o == -2) { /* the grouping id: one value repeated */
            int64_t *v = cs_xmalloc(sizeof *v * (size_t)(n > 0 ? n : 1));
            for (int64_t i = 0; i < n; i++)
                v[i] = e->gid[p];
            cs_col_builder_append_values(b, v, n, NULL);
            free(v);
        } else {
            cs_col_builder_append_nulls(b, n);
        }
        cols[c] = cs_col_builder_finish(b);
        cs_col_builder_free(b);
    }
    *out = cs_col_batch_new(cs_col_type_ref(op->schema), cols, nc, n, err);
    free(cols);
    return *out ? CS_OK : CS_EINVAL;
}

static void expand_close(cs_sql_op *op)
{
    expand_op *e = (expand_op *)op;
    cs_col_batch_unref(e->cur);
    e->cur = NULL;
    cs_sql_op_close(op->children[0]);
}

static void expand_destroy(cs_sql_op *op)
{
    expand_op *e = (expand_op *)op;
    free(e->proj);
    free(e->gid);
    free(e);
}

static void expand_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const expand_op *e = (const expand_op *)op;
    cs_sbuf_printf(out, "[%d projections]", e->n_proj);
}

static const cs_sql_op_vtable expand_vt = {
    .name = "Expand",
    .open = expand_open,
    .next = expand_next,
    .close = expand_close,
    .destroy = expand_destroy,
    .explain_args = expand_explain,
};

cs_sql_op *cs_sql_op_expand(cs_sql_op *child, const int *projections, int n_projections, int n_out,
                            const int64_t *grouping_ids, const char *const *names, cs_error *err)
{
    const cs_col_type *in = child->schema;
    int rc = CS_OK;
    int *typed_by = cs_xmalloc(sizeof *typed_by * (size_t)(n_out + 1));
    if (n_projections < 1 || n_out < 0)
        rc = cs_error_set(err, CS_EINVAL, "Expand: %d projections of %d columns", n_projections,
                          n_out);
    for (int c = 0; c < n_out && rc == CS_OK; c++) {
        typed_by[c] = -1;
        for (int p = 0; p < n_projections && rc == CS_OK; p++) {
            int o = projections[p * n_out + c];
            if (o == CS_EXPAND_NULL) continue;
            if (o < 0 || o >= in->n_fields)
                rc = cs_error_set(err, CS_EINVAL,
                                  "Expand: projection %d's column %d is input "
                                  "ordinal %d, not one of its %d columns",
                                  p, c, o, in->n_fields);
            else if (typed_by[c] < 0)
                typed_by[c] = o;
            else if (!cs_col_type_equal(in->fields[o].type, in->fields[typed_by[c]].type))
                rc = cs_error_set(err, CS_EINVAL, "Expand: column %d has two types", c);
        }
        if (rc == CS_OK && typed_by[c] < 0)
            rc = cs_error_set(err, CS_EINVAL,
                              "Expand: column %d is null in every projection, "
                              "so it has no type",
                              c);
    }
    if (rc != CS_OK) {
        free(typed_by);
        cs_sql_op_free(child);
        return NULL;
    }
    int nc = n_out + (grouping_ids ? 1 : 0);
    cs_col_field *f = cs_xcalloc((size_t)nc + 1, sizeof *f);
    for (int c = 0; c < n_out; c++) {
        const cs_col_field *src = &in->fields[typed_by[c]];
        bool nullable = false;
        for (int p = 0; p < n_projections; p++) {
            int o = projections[p * n_out + c];
            nullable |= o == CS_EXPAND_NULL || in->fields[o].nullable;
        }
        f[c] = (cs_col_field){names ? (char *)names[c] : src->name, cs_col_type_ref(src->type),
                              nullable};
    }
    if (grouping_ids)
        f[n_out] = (cs_col_field){"spark_grouping_id", cs_col_type_primitive(CS_TYPE_LONG), false};
    expand_op *e = cs_xcalloc(1, sizeof *e);
    e->n_proj = n_projections;
    e->n_out = n_out;
    e->proj = cs_xmalloc(sizeof *e->proj * (size_t)(n_projections * n_out + 1));
    memcpy(e->proj, projections, sizeof *e->proj * (size_t)(n_projections * n_out));
    if (grouping_ids) {
        e->gid = cs_xmalloc(sizeof *e->gid * (size_t)n_projections);
        memcpy(e->gid, grouping_ids, sizeof *e->gid * (size_t)n_projections);
    }
    cs_sql_op_init(&e->base, &expand_vt, cs_col_type_struct(f, nc), &child, 1);
    free(f);
    free(typed_by);
    return &e->base;
}
