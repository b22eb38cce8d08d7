/*
 * sql_tree.c — making and copying expression and logical plan nodes in a query's arena (see
 * sql_expr.h and logical_plan.h). Called by the parser, analyzer, optimizer and planner.
 */
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/logical_plan.h"
#include "sql/sql_expr.h"

cs_sql_expr *cs_sql_expr_new(cs_sql_arena *a, cs_sql_expr_kind kind, int n_args)
{
    cs_sql_expr *e = cs_sql_alloc(a, sizeof *e);
    e->kind = kind;
    e->n_args = n_args;
    if (n_args > 0) e->args = cs_sql_alloc(a, sizeof *e->args * (size_t)n_args);
    return e;
}

cs_sql_expr *cs_sql_expr_copy(cs_sql_arena *a, const cs_sql_expr *e)
{
    cs_sql_expr *c = cs_sql_alloc(a, sizeof *c);
    *c = *e;
    if (e->n_args > 0) {
        c->args = cs_sql_alloc(a, sizeof *c->args * (size_t)e->n_args);
        memcpy(c->args, e->args, sizeof *c->args * (size_t)e->n_args);
    }
    return c;
}

cs_sql_expr *cs_sql_expr_literal(cs_sql_arena *a, cs_column *one_row)
{
    cs_sql_expr *e = cs_sql_expr_new(a, CS_EX_LITERAL, 0);
    e->literal = cs_sql_arena_keep_column(a, one_row);
    e->type = one_row->type;
    e->nullable = one_row->null_count > 0;
    e->resolved = true;
    return e;
}

cs_sql_expr *cs_sql_expr_string_literal(cs_sql_arena *a, const char *s)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_STRING));
    cs_col_builder_append_string(b, s, strlen(s));
    cs_sql_expr *e = cs_sql_expr_literal(a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

cs_sql_expr *cs_sql_expr_to_attr(cs_sql_arena *a, const cs_sql_expr *named)
{
    if (named->kind == CS_EX_ATTR) return (cs_sql_expr *)named;
    cs_sql_expr *r = cs_sql_expr_new(a, CS_EX_ATTR, 0);
    r->name = named->name;
    r->type = named->type;
    r->nullable = named->nullable;
    r->id = named->id;
    r->resolved = true;
    return r;
}

cs_logical_plan *cs_logical_plan_new(cs_sql_arena *a, cs_plan_kind kind, int n_children)
{
    cs_logical_plan *p = cs_sql_alloc(a, sizeof *p);
    p->kind = kind;
    p->n_children = n_children;
    if (n_children > 0) p->children = cs_sql_alloc(a, sizeof *p->children * (size_t)n_children);
    p->stat_bytes = -1;
    p->stat_rows = -1;
    return p;
}

cs_logical_plan *cs_logical_plan_copy(cs_sql_arena *a, const cs_logical_plan *p)
{
    cs_logical_plan *c = cs_sql_alloc(a, sizeof *c);
    *c = *p;
    if (p->n_children > 0) {
        c->children = cs_sql_alloc(a, sizeof *c->children * (size_t)p->n_children);
        memcpy(c->children, p->children, sizeof *c->children * (size_t)p->n_children);
    }
    return c;
}

void cs_logical_plan_output_of_list(cs_sql_arena *a, cs_logical_plan *p)
{
    p->n_output = p->n_exprs;
    p->output = cs_sql_alloc(a, sizeof *p->output * (size_t)(p->n_exprs + 1));
    for (int i = 0; i < p->n_exprs; i++)
        p->output[i] = cs_sql_expr_to_attr(a, p->exprs[i]);
    p->resolved = true;
}
