/*
 * analyzer_time_window.c — Spark's TimeWindowing for a SELECT block (called by analyzer_agg.c's
 * cs_an_select): one window(time, duration[, slide[, start]]) expression at most, the rows
 * whose time is NULL dropped below it, and a GROUP BY window(...) computed below the aggregate
 * as a column named `window` (so that the select list reads window.start and window.end).
 * Everything it makes lives in the statement's arena.
 */
#include <string.h>

#include "sql/analyzer_internal.h"

/* the first window(time, ...) call under e (Spark's TimeWindow), or NULL; *n counts the
 * distinct ones met so far (first: the one kept) */
static const cs_sql_expr *find_time_window(const cs_sql_expr *e, const cs_sql_expr *first, int *n)
{
    if (!e) return first;
    if (e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, "window") == 0) {
        if (!first) {
            *n = 1;
            return e;
        }
        if (!cs_an_equal(first, e)) (*n)++;
        return first;
    }
    for (int i = 0; i < e->n_args; i++)
        first = find_time_window(e->args[i], first, n);
    return first;
}

/* Spark's TimeWindowing for a select list with window(time, ...): one window expression at
 * most (_LEGACY_ERROR_TEMP_1039), and the rows whose time is NULL dropped (a Filter
 * isnotnull(time) over child). child itself when the list has none; NULL + error. */
cs_logical_plan *cs_an_time_window_filter(cs_an_ctx *c, cs_logical_plan *child, cs_sql_expr **list,
                                          int n)
{
    const cs_sql_expr *w = NULL;
    int distinct = 0;
    for (int i = 0; i < n; i++)
        w = find_time_window(list[i], w, &distinct);
    if (!w) return child;
    if (distinct > 1) {
        cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1039", "",
                         "Multiple time/session window expressions would result in a cartesian "
                         "product of rows, therefore they are currently not supported.");
        return NULL;
    }
    cs_sql_expr *time = w->args[0];
    cs_sql_expr *cond = cs_fn_resolve(c->a, cs_fn_lookup("isnotnull"), NULL, &time, 1, c->err);
    if (!cond) return NULL;
    cs_logical_plan *f = cs_logical_plan_new(c->a, CS_LP_FILTER, 1);
    f->children[0] = child;
    f->condition = cond;
    f->n_output = child->n_output;
    f->output = child->output;
    f->resolved = true;
    return f;
}

/* Spark's TimeWindowing for GROUP BY window(time, ...): the window struct is computed below the
 * aggregate as a column named `window` (a Project over child, the rows whose time is NULL
 * dropped first) and the grouping expression becomes that column, so that the select list
 * reads window.start and window.end. *pp becomes a copy of the block whose GROUP BY names the
 * column; gw gets the call and the column, for the select list's own window(...) calls. child
 * itself when no grouping expression is a window call; NULL + error. */
cs_logical_plan *cs_an_group_by_time_window(cs_an_ctx *c, cs_logical_plan *child,
                                            const cs_logical_plan **pp, cs_an_grouped_window *gw)
{
    const cs_logical_plan *p = *pp;
    int at = -1;
    for (int i = 0; i < p->n_group_by && at < 0; i++) {
        const cs_sql_expr *e = p->group_by[i];
        if (e->kind == CS_EX_UNRESOLVED_FUNC && e->name && cs_str_ieq(e->name, "window")) at = i;
    }
    if (at < 0) return child;
    cs_an_scope s = {child->output, child->n_output, c->outer};
    cs_sql_expr *w = cs_an_expr(c, p->group_by[at], &s, 0);
    if (!w) return NULL;
    int n = child->n_output;
    cs_sql_expr **list = cs_sql_alloc(c->a, sizeof *list * (size_t)(n + 1));
    memcpy(list, child->output, sizeof *list * (size_t)n);
    list[n] = cs_an_named(c, w, "window");
    if (!(child = cs_an_time_window_filter(c, child, &w, 1))) return NULL;
    cs_logical_plan *proj = cs_an_project(c, child, list, n + 1);
    if (!proj) return NULL;
    gw->call = w;
    gw->column = proj->output[n];
    cs_sql_expr *col = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_ATTR, 0);
    col->n_parts = 1;
    col->parts = cs_sql_alloc(c->a, sizeof *col->parts);
    col->parts[0] = "window";
    cs_logical_plan *q = cs_sql_alloc(c->a, sizeof *q);
    *q = *p;
    q->group_by = cs_sql_alloc(c->a, sizeof *q->group_by * (size_t)p->n_group_by);
    memcpy(q->group_by, p->group_by, sizeof *q->group_by * (size_t)p->n_group_by);
    q->group_by[at] = col;
    *pp = q;
    return proj;
}

/* Spark's TimeWindowing replaces the grouped window(...) call wherever the aggregate's
 * expressions hold it, so SELECT window(t, '5 seconds') ... GROUP BY window(t, '5 seconds') reads
 * the grouped `window` column (and is named `window`). Changed nodes are copied. */
cs_sql_expr *cs_an_time_window_grouped(cs_an_ctx *c, cs_sql_expr *e, const cs_an_grouped_window *gw)
{
    if (!e || !gw->call) return e;
    if (e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, "window") == 0 && cs_an_equal(e, gw->call))
        return gw->column;
    cs_sql_expr *copy = NULL;
    for (int i = 0; i < e->n_args; i++) {
        cs_sql_expr *r = cs_an_time_window_grouped(c, e->args[i], gw);
        if (r == e->args[i]) continue;
        if (!copy) {
            copy = cs_sql_expr_copy(c->a, e);
            copy->args = cs_sql_alloc(c->a, sizeof *copy->args * (size_t)e->n_args);
            memcpy(copy->args, e->args, sizeof *copy->args * (size_t)e->n_args);
        }
        copy->args[i] = r;
    }
    return copy ? copy : e;
}
