/*
 * analyzer_pivot.c — Spark's ResolvePivot and Unpivot: `FROM t PIVOT (agg [AS a], ... FOR col IN (v
 * [AS n], ...))` becomes two aggregates, as Spark plans a pivot whose aggregates PivotFirst takes:
 *
 *   Aggregate 1 groups the input by its columns that neither the aggregates nor the pivot
 *     column read, and by the pivot column, computing each aggregate per pivot value;
 *   Aggregate 2 groups by the same columns and gives, for each value v and aggregate a, the
 *     result of a in v's row of aggregate 1 (first(if(col <=> v, a, null), true)): null when
 *     the group has no row of that value, as PivotFirst.
 *
 * Output columns: the grouping columns, then per value (in order) per aggregate: the value's
 * name (its alias, or the value as a string) alone when there is one aggregate, else
 * value_aggregate (the aggregate's alias, or its SQL).
 *
 * UNPIVOT (value FOR name IN (a, b AS x)) is Spark's Unpivot as a union of one projection per
 * column (the columns it does not list, then name = 'a' / 'x', value = a / b; values widened
 * to one type as a union does) under a filter dropping null values unless INCLUDE NULLS.
 *
 * Called by analyzer.c for an AGGREGATE node the parser made of PIVOT (pivot_column set) and a
 * PROJECT made of UNPIVOT (unpivot set).
 * Ownership: every node in the query's arena.
 */
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/analyzer_internal.h"

/* a one-row literal of type id: value (NULL: null) */
static cs_sql_expr *literal(cs_an_ctx *c, cs_type_id id, const void *value)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(id));
    if (value)
        cs_col_builder_append_values(b, value, 1, NULL);
    else
        cs_col_builder_append_nulls(b, 1);
    cs_sql_expr *e = cs_sql_expr_literal(c->a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

/* Adds the last name part of every unresolved column e reads to names. */
static void read_names(cs_an_ctx *c, const cs_sql_expr *e, const char ***names, int *n, int *cap)
{
    if (!e) return;
    if (e->kind == CS_EX_UNRESOLVED_ATTR && e->n_parts > 0) {
        if (*n == *cap) {
            int ncap = *cap ? 2 * *cap : 16;
            const char **x = cs_sql_alloc(c->a, sizeof *x * (size_t)ncap);
            if (*n) memcpy(x, *names, sizeof *x * (size_t)*n);
            *names = x;
            *cap = ncap;
        }
        (*names)[(*n)++] = e->parts[e->n_parts - 1];
    }
    for (int i = 0; i < e->n_args; i++)
        read_names(c, e->args[i], names, n, cap);
    read_names(c, e->filter, names, n, cap);
}

static cs_sql_expr *call(cs_an_ctx *c, const char *fn, cs_sql_expr **args, int n)
{
    cs_sql_expr *f = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_FUNC, n);
    f->name = fn;
    memcpy(f->args, args, sizeof *args * (size_t)n);
    return f;
}

static cs_sql_expr *alias(cs_an_ctx *c, cs_sql_expr *e, const char *name)
{
    cs_sql_expr *a = cs_sql_expr_new(c->a, CS_EX_ALIAS, 1);
    a->args[0] = e;
    a->name = name;
    return a;
}

static const cs_sql_expr *unaliased(const cs_sql_expr *e)
{
    return e->kind == CS_EX_ALIAS ? e->args[0] : e;
}

/* The name a pivot value gives its columns: its alias, or the value as a string. */
static const char *value_name(cs_an_ctx *c, const cs_sql_expr *v)
{
    if (v->kind == CS_EX_ALIAS) return v->name;
    if (v->kind == CS_EX_LITERAL && v->literal && v->literal->type->id == CS_TYPE_STRING) {
        if (!cs_column_is_valid(v->literal, 0)) return "null";
        int32_t len;
        const uint8_t *b = cs_column_bytes(v->literal, 0, &len);
        char *s = cs_sql_alloc(c->a, (size_t)len + 1);
        memcpy(s, b, (size_t)len);
        s[len] = '\0';
        return s;
    }
    if (v->kind == CS_EX_LITERAL && v->literal && !cs_column_is_valid(v->literal, 0)) return "null";
    cs_sbuf s = {0};
    cs_sql_expr_pretty_name(v, &s);
    const char *r = cs_sql_strdup(c->a, cs_sbuf_str(&s));
    cs_sbuf_free(&s);
    return r;
}

cs_logical_plan *cs_an_pivot(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *child = cs_an_plan(c, p->children[0]);
    if (!child) return NULL;
    const char **names = NULL;
    int n_names = 0, cap = 0;
    read_names(c, p->pivot_column, &names, &n_names, &cap);
    for (int i = 0; i < p->n_exprs; i++)
        read_names(c, p->exprs[i], &names, &n_names, &cap);

    /* aggregate 1: by the columns nothing reads and the pivot column */
    int na = p->n_exprs, nv = p->n_pivot_values, ng = 0;
    cs_sql_expr **group = cs_sql_alloc(c->a, sizeof *group * (size_t)(child->n_output + 2));
    for (int i = 0; i < child->n_output; i++) {
        bool read = false;
        for (int k = 0; k < n_names && !read; k++)
            read = cs_str_ieq(child->output[i]->name, names[k]);
        if (!read) group[ng++] = child->output[i];
    }
    cs_logical_plan *a1 = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    a1->line = p->line;
    a1->pos = p->pos;
    a1->children[0] = child;
    a1->n_group_by = ng + 1;
    a1->group_by = cs_sql_alloc(c->a, sizeof *a1->group_by * (size_t)(ng + 2));
    memcpy(a1->group_by, group, sizeof *group * (size_t)ng);
    a1->group_by[ng] = p->pivot_column;
    a1->n_exprs = ng + 1 + na;
    a1->exprs = cs_sql_alloc(c->a, sizeof *a1->exprs * (size_t)(a1->n_exprs + 1));
    memcpy(a1->exprs, group, sizeof *group * (size_t)ng);
    a1->exprs[ng] = alias(c, p->pivot_column, "__pivot_col");
    for (int j = 0; j < na; j++)
        a1->exprs[ng + 1 + j] = alias(c, (cs_sql_expr *)unaliased(p->exprs[j]), "__pivot_agg");
    cs_logical_plan *r1 = cs_an_select(c, a1);
    if (!r1) return NULL;
    if (r1->kind != CS_LP_AGGREGATE || r1->n_output != ng + 1 + na)
        return cs_sql_error_set(c->err, CS_EINVAL, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: PIVOT over these aggregates."),
               NULL;

    /* aggregate 2: each value's row of each aggregate */
    cs_sql_expr *col = r1->output[ng];
    cs_logical_plan *a2 = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    a2->line = p->line;
    a2->pos = p->pos;
    a2->children[0] = r1;
    a2->n_group_by = ng;
    a2->group_by = r1->output;
    a2->n_exprs = ng + nv * na;
    a2->exprs = cs_sql_alloc(c->a, sizeof *a2->exprs * (size_t)(a2->n_exprs + 1));
    memcpy(a2->exprs, r1->output, sizeof *a2->exprs * (size_t)ng);
    int at = ng;
    for (int v = 0; v < nv; v++) {
        const char *vname = value_name(c, p->pivot_values[v]);
        cs_sql_expr *eq_args[2] = {col, (cs_sql_expr *)unaliased(p->pivot_values[v])};
        cs_sql_expr *is_v = call(c, "<=>", eq_args, 2);
        for (int j = 0; j < na; j++) {
            uint8_t yes = 1;
            cs_sql_expr *if_args[3] = {is_v, r1->output[ng + 1 + j],
                                       literal(c, CS_TYPE_NULL, NULL)};
            cs_sql_expr *first_args[2] = {call(c, "if", if_args, 3),
                                          literal(c, CS_TYPE_BOOLEAN, &yes)};
            const char *name = vname;
            if (na > 1) {
                const cs_sql_expr *a = p->exprs[j];
                cs_sbuf s = {0};
                cs_sbuf_printf(&s, "%s_", vname);
                if (a->kind == CS_EX_ALIAS)
                    cs_sbuf_puts(&s, a->name);
                else
                    cs_sql_expr_pretty_name(a, &s);
                name = cs_sql_strdup(c->a, cs_sbuf_str(&s));
                cs_sbuf_free(&s);
            }
            a2->exprs[at++] = alias(c, call(c, "first", first_args, 2), name);
        }
    }
    return cs_an_select(c, a2);
}

/* The name of an unpivoted column's rows: its alias, or the column's name. */
static const char *column_name(cs_an_ctx *c, const cs_sql_expr *v)
{
    if (v->kind == CS_EX_ALIAS) return v->name;
    if (v->kind == CS_EX_UNRESOLVED_ATTR && v->n_parts > 0) return v->parts[v->n_parts - 1];
    return value_name(c, v);
}

static cs_sql_expr *column(cs_an_ctx *c, const char *name)
{
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_ATTR, 0);
    const char **parts = cs_sql_alloc(c->a, sizeof *parts);
    parts[0] = name;
    e->name = name;
    e->parts = parts;
    e->n_parts = 1;
    return e;
}

cs_logical_plan *cs_an_unpivot(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *child = cs_an_plan(c, p->children[0]);
    if (!child) return NULL;
    const char **names = NULL;
    int n_names = 0, cap = 0, nv = p->n_pivot_values, ni = 0;
    for (int v = 0; v < nv; v++)
        read_names(c, unaliased(p->pivot_values[v]), &names, &n_names, &cap);
    /* the id columns: those not unpivoted, in the input's order */
    cs_sql_expr **ids = cs_sql_alloc(c->a, sizeof *ids * (size_t)(child->n_output + 1));
    for (int i = 0; i < child->n_output; i++) {
        bool read = false;
        for (int k = 0; k < n_names && !read; k++)
            read = cs_str_ieq(child->output[i]->name, names[k]);
        if (!read) ids[ni++] = child->output[i];
    }
    /* one projection per column: ids, the column's name, its value; their union */
    cs_logical_plan *u = NULL;
    for (int v = 0; v < nv; v++) {
        const char *name = column_name(c, p->pivot_values[v]);
        cs_logical_plan *proj = cs_logical_plan_new(c->a, CS_LP_PROJECT, 1);
        proj->line = p->line;
        proj->pos = p->pos;
        proj->children[0] = child;
        proj->n_exprs = ni + 2;
        proj->exprs = cs_sql_alloc(c->a, sizeof *proj->exprs * (size_t)(ni + 3));
        memcpy(proj->exprs, ids, sizeof *ids * (size_t)ni);
        proj->exprs[ni] = alias(c, cs_sql_expr_string_literal(c->a, name), p->unpivot_name);
        proj->exprs[ni + 1] =
            alias(c, (cs_sql_expr *)unaliased(p->pivot_values[v]), p->unpivot_value);
        if (!u) {
            u = proj;
            continue;
        }
        cs_logical_plan *s = cs_logical_plan_new(c->a, CS_LP_SET_OP, 2);
        s->children[0] = u;
        s->children[1] = proj;
        s->set_op = CS_SET_UNION;
        s->all = true;
        u = s;
    }
    if (!p->unpivot_include_nulls) { /* EXCLUDE NULLS, the default */
        cs_sql_expr *value = column(c, p->unpivot_value);
        cs_logical_plan *f = cs_logical_plan_new(c->a, CS_LP_FILTER, 1);
        f->children[0] = u;
        f->condition = call(c, "isnotnull", &value, 1);
        u = f;
    }
    return cs_an_plan(c, u);
}
