/*
 * opt_util.c — the tree helpers of the optimizer's rules (optimizer_internal.h): transforms that
 * copy only changed nodes, a node over new children with its output recomputed, attribute sets
 * and references, conjuncts, alias substitution, determinism and foldability, and small
 * constructors of resolved expressions. Called by every opt_*.c file.
 *
 * Ownership: everything is made in the rule context's arena; inputs are never modified.
 */
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/function_registry.h"
#include "sql/optimizer_internal.h"
#include "sqlexec/pexpr.h"

/* ---- expressions --------------------------------------------------------------------------- */

static cs_sql_expr *expr_children(cs_opt_ctx *c, cs_sql_expr *e, bool up, cs_opt_expr_fn fn,
                                  void *ud);

static cs_sql_expr *expr_visit(cs_opt_ctx *c, cs_sql_expr *e, bool up, cs_opt_expr_fn fn, void *ud)
{
    if (!e) return NULL;
    if (up) return fn(c, expr_children(c, e, up, fn, ud), ud);
    cs_sql_expr *r = fn(c, e, ud);
    return expr_children(c, r, up, fn, ud);
}

static cs_sql_expr **visit_list(cs_opt_ctx *c, cs_sql_expr **xs, int n, bool up, cs_opt_expr_fn fn,
                                void *ud)
{
    cs_sql_expr **out = xs;
    for (int i = 0; i < n; i++) {
        cs_sql_expr *x = expr_visit(c, xs[i], up, fn, ud);
        if (x == xs[i]) continue;
        if (out == xs) {
            out = cs_sql_alloc(c->arena, sizeof *out * (size_t)(n + 1));
            memcpy(out, xs, sizeof *out * (size_t)n);
        }
        out[i] = x;
    }
    return out;
}

static cs_window_spec *visit_window(cs_opt_ctx *c, cs_window_spec *w, bool up, cs_opt_expr_fn fn,
                                    void *ud)
{
    if (!w) return NULL;
    cs_sql_expr **part = visit_list(c, w->partition, w->n_partition, up, fn, ud);
    cs_sql_expr **order = visit_list(c, w->order, w->n_order, up, fn, ud);
    if (part == w->partition && order == w->order) return w;
    cs_window_spec *r = cs_sql_alloc(c->arena, sizeof *r);
    *r = *w;
    r->partition = part;
    r->order = order;
    return r;
}

static cs_sql_expr *expr_children(cs_opt_ctx *c, cs_sql_expr *e, bool up, cs_opt_expr_fn fn,
                                  void *ud)
{
    cs_sql_expr **args = visit_list(c, e->args, e->n_args, up, fn, ud);
    cs_sql_expr *filter = expr_visit(c, e->filter, up, fn, ud);
    cs_window_spec *w = visit_window(c, e->window, up, fn, ud);
    /* a subquery's pulled-up correlated condition reads the enclosing query's columns as
     * plain attributes: rewritten with the expression (Spark's joinCond is a child) */
    cs_sql_expr *jc = expr_visit(c, e->join_cond, up, fn, ud);
    if (args == e->args && filter == e->filter && w == e->window && jc == e->join_cond) return e;
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
    if (args != e->args) memcpy(r->args, args, sizeof *args * (size_t)e->n_args);
    r->filter = filter;
    r->window = w;
    r->join_cond = jc;
    return r;
}

cs_sql_expr *cs_opt_expr_up(cs_opt_ctx *c, cs_sql_expr *e, cs_opt_expr_fn fn, void *ud)
{
    return expr_visit(c, e, true, fn, ud);
}

cs_sql_expr *cs_opt_expr_down(cs_opt_ctx *c, cs_sql_expr *e, cs_opt_expr_fn fn, void *ud)
{
    return expr_visit(c, e, false, fn, ud);
}

cs_logical_plan *cs_opt_node_exprs_up(cs_opt_ctx *c, cs_logical_plan *p, cs_opt_expr_fn fn,
                                      void *ud)
{
    int n_exprs = p->n_exprs;
    if (p->kind == CS_LP_EXPAND) n_exprs = p->n_exprs * p->n_projections;
    if (p->kind == CS_LP_LOCAL_RELATION) n_exprs = p->n_rows * p->n_cols;
    if (p->kind == CS_LP_HINT) n_exprs = 0; /* names of relations, not expressions */
    cs_sql_expr **exprs = visit_list(c, p->exprs, n_exprs, true, fn, ud);
    cs_sql_expr **group = visit_list(c, p->group_by, p->n_group_by, true, fn, ud);
    cs_sql_expr **order = visit_list(c, p->order, p->n_order, true, fn, ud);
    cs_sql_expr **part = visit_list(c, p->partition, p->n_partition, true, fn, ud);
    cs_sql_expr *cond = expr_visit(c, p->condition, true, fn, ud);
    cs_sql_expr *gen = expr_visit(c, p->generator, true, fn, ud);
    cs_sql_expr *limit = expr_visit(c, p->limit, true, fn, ud);
    if (exprs == p->exprs && group == p->group_by && order == p->order && part == p->partition &&
        cond == p->condition && gen == p->generator && limit == p->limit)
        return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    r->exprs = exprs;
    r->group_by = group;
    r->order = order;
    r->partition = part;
    r->condition = cond;
    r->generator = gen;
    r->limit = limit;
    return r;
}

/* ---- plans --------------------------------------------------------------------------------- */

cs_logical_plan *cs_opt_plan_up(cs_opt_ctx *c, cs_logical_plan *p, cs_opt_plan_fn fn, void *ud)
{
    cs_logical_plan *kids[p->n_children > 0 ? p->n_children : 1];
    for (int i = 0; i < p->n_children; i++)
        kids[i] = cs_opt_plan_up(c, p->children[i], fn, ud);
    return fn(c, cs_opt_with_children(c, p, kids), ud);
}

cs_logical_plan *cs_opt_plan_down(cs_opt_ctx *c, cs_logical_plan *p, cs_opt_plan_fn fn, void *ud)
{
    cs_logical_plan *r = fn(c, p, ud);
    cs_logical_plan *kids[r->n_children > 0 ? r->n_children : 1];
    for (int i = 0; i < r->n_children; i++)
        kids[i] = cs_opt_plan_down(c, r->children[i], fn, ud);
    return cs_opt_with_children(c, r, kids);
}

static cs_sql_expr *nullable_attr(cs_opt_ctx *c, cs_sql_expr *a)
{
    if (a->nullable) return a;
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, a);
    r->nullable = true;
    return r;
}

/* p's output after its own attributes (those not its old child's): WINDOW, GENERATE. */
static void output_child_plus_own(cs_opt_ctx *c, cs_logical_plan *r, const cs_logical_plan *old)
{
    const cs_logical_plan *old_child = old->children[0], *child = r->children[0];
    int own = old->n_output - old_child->n_output;
    if (own < 0) own = 0;
    r->n_output = child->n_output + own;
    r->output = cs_sql_alloc(c->arena, sizeof *r->output * (size_t)(r->n_output + 1));
    if (child->n_output)
        memcpy(r->output, child->output, sizeof *r->output * (size_t)child->n_output);
    if (own)
        memcpy(r->output + child->n_output, old->output + old->n_output - own,
               sizeof *r->output * (size_t)own);
}

static void join_output(cs_opt_ctx *c, cs_logical_plan *j, const cs_logical_plan *old)
{
    const cs_logical_plan *l = j->children[0], *r = j->children[1];
    bool semi = j->join_type == CS_JOIN_LEFT_SEMI || j->join_type == CS_JOIN_LEFT_ANTI;
    bool exist = j->join_type == CS_JOIN_EXISTENCE;
    int n = l->n_output + (semi ? 0 : exist ? 1 : r->n_output);
    j->output = cs_sql_alloc(c->arena, sizeof *j->output * (size_t)(n + 1));
    j->n_output = n;
    bool ln = j->join_type == CS_JOIN_RIGHT_OUTER || j->join_type == CS_JOIN_FULL_OUTER;
    bool rn = j->join_type == CS_JOIN_LEFT_OUTER || j->join_type == CS_JOIN_FULL_OUTER;
    for (int i = 0; i < l->n_output; i++)
        j->output[i] = ln ? nullable_attr(c, l->output[i]) : l->output[i];
    if (exist)
        j->output[l->n_output] = old->output[old->n_output - 1]; /* the `exists` attribute */
    else if (!semi)
        for (int i = 0; i < r->n_output; i++)
            j->output[l->n_output + i] = rn ? nullable_attr(c, r->output[i]) : r->output[i];
}

static void set_op_output(cs_opt_ctx *c, cs_logical_plan *s)
{
    const cs_logical_plan *l = s->children[0];
    s->n_output = l->n_output;
    s->output = cs_sql_alloc(c->arena, sizeof *s->output * (size_t)(s->n_output + 1));
    for (int i = 0; i < s->n_output; i++) {
        bool nullable = false;
        for (int k = 0; k < s->n_children; k++)
            if (i < s->children[k]->n_output)
                nullable |=
                    s->children[k]->output[i]->nullable && (k == 0 || s->set_op == CS_SET_UNION);
        s->output[i] = nullable ? nullable_attr(c, l->output[i]) : l->output[i];
    }
}

cs_logical_plan *cs_opt_with_children(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **children)
{
    bool same = true;
    for (int i = 0; i < p->n_children; i++)
        same &= children[i] == p->children[i];
    if (same) return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    memcpy(r->children, children, sizeof *children * (size_t)p->n_children);
    switch (p->kind) {
    case CS_LP_FILTER:
    case CS_LP_SORT:
    case CS_LP_LIMIT:
    case CS_LP_OFFSET:
    case CS_LP_DISTINCT:
    case CS_LP_REPARTITION:
    case CS_LP_SAMPLE:
    case CS_LP_HINT:
        r->n_output = r->children[0]->n_output;
        r->output = r->children[0]->output;
        break;
    case CS_LP_JOIN:
        join_output(c, r, p);
        break;
    case CS_LP_SET_OP:
        set_op_output(c, r);
        break;
    case CS_LP_WINDOW:
    case CS_LP_GENERATE:
        output_child_plus_own(c, r, p);
        break;
    default: /* PROJECT, AGGREGATE, EXPAND, SUBQUERY_ALIAS: their own output */
        break;
    }
    return r;
}

cs_logical_plan *cs_opt_with_child(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan *child)
{
    return cs_opt_with_children(c, p, &child);
}

cs_logical_plan *cs_opt_unary(cs_opt_ctx *c, cs_plan_kind kind, cs_logical_plan *child)
{
    cs_logical_plan *u = cs_logical_plan_new(c->arena, kind, 1);
    u->children[0] = child;
    u->n_output = child->n_output;
    u->output = child->output;
    u->resolved = true;
    return u;
}

cs_logical_plan *cs_opt_filter(cs_opt_ctx *c, cs_sql_expr *cond, cs_logical_plan *child)
{
    cs_logical_plan *f = cs_opt_unary(c, CS_LP_FILTER, child);
    f->condition = cond;
    return f;
}

cs_logical_plan *cs_opt_project(cs_opt_ctx *c, cs_sql_expr **exprs, int n, cs_logical_plan *child)
{
    cs_logical_plan *p = cs_logical_plan_new(c->arena, CS_LP_PROJECT, 1);
    p->children[0] = child;
    p->exprs = exprs;
    p->n_exprs = n;
    cs_logical_plan_output_of_list(c->arena, p);
    return p;
}

cs_logical_plan *cs_opt_empty_relation(cs_opt_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *r = cs_logical_plan_new(c->arena, CS_LP_LOCAL_RELATION, 0);
    r->n_output = p->n_output;
    r->output = p->output;
    r->n_cols = p->n_output;
    r->resolved = true;
    r->stat_rows = 0;
    r->stat_bytes = 0;
    return r;
}

bool cs_opt_is_empty_relation(const cs_logical_plan *p)
{
    if (p->kind != CS_LP_LOCAL_RELATION || p->local_origin != CS_LOCAL_ROWS) return false;
    if (p->n_rows > 0) return false;
    for (int i = 0; i < p->n_batches; i++)
        if (p->batches[i] && p->batches[i]->num_rows > 0) return false;
    return true;
}

/* ---- attribute sets ------------------------------------------------------------------------ */

void cs_opt_attrs_add(cs_opt_ctx *c, cs_opt_attrs *s, cs_expr_id id)
{
    if (cs_opt_attrs_has(s, id)) return;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        cs_expr_id *ids = cs_sql_alloc(c->arena, sizeof *ids * (size_t)cap);
        if (s->n) memcpy(ids, s->ids, sizeof *ids * (size_t)s->n);
        s->ids = ids;
        s->cap = cap;
    }
    s->ids[s->n++] = id;
}

bool cs_opt_attrs_has(const cs_opt_attrs *s, cs_expr_id id)
{
    for (int i = 0; i < s->n; i++)
        if (s->ids[i] == id) return true;
    return false;
}

static void plan_outer_refs(cs_opt_ctx *c, const cs_logical_plan *p, cs_opt_attrs *s);

static void expr_outer_refs(cs_opt_ctx *c, const cs_sql_expr *e, cs_opt_attrs *s)
{
    if (!e) return;
    if (e->kind == CS_EX_OUTER_ATTR) cs_opt_attrs_add(c, s, e->id);
    for (int i = 0; i < e->n_args; i++)
        expr_outer_refs(c, e->args[i], s);
    expr_outer_refs(c, e->filter, s);
    if (e->window) {
        for (int i = 0; i < e->window->n_partition; i++)
            expr_outer_refs(c, e->window->partition[i], s);
        for (int i = 0; i < e->window->n_order; i++)
            expr_outer_refs(c, e->window->order[i], s);
    }
    expr_outer_refs(c, e->join_cond, s);
    if (e->subquery) plan_outer_refs(c, e->subquery, s);
}

static void list_outer_refs(cs_opt_ctx *c, cs_sql_expr **xs, int n, cs_opt_attrs *s)
{
    for (int i = 0; i < n; i++)
        expr_outer_refs(c, xs[i], s);
}

/* The OUTER_ATTRs anywhere in a subquery's plan: the enclosing query's columns it reads. */
static void plan_outer_refs(cs_opt_ctx *c, const cs_logical_plan *p, cs_opt_attrs *s)
{
    int n_exprs = p->kind == CS_LP_EXPAND ? p->n_exprs * p->n_projections
                  : p->kind == CS_LP_HINT ? 0
                                          : p->n_exprs;
    list_outer_refs(c, p->exprs, n_exprs, s);
    list_outer_refs(c, p->group_by, p->n_group_by, s);
    list_outer_refs(c, p->order, p->n_order, s);
    list_outer_refs(c, p->partition, p->n_partition, s);
    expr_outer_refs(c, p->condition, s);
    expr_outer_refs(c, p->generator, s);
    for (int i = 0; i < p->n_children; i++)
        plan_outer_refs(c, p->children[i], s);
}

/* Every attribute some node of p (or of a subquery inside it) outputs. */
static void plan_defined(cs_opt_ctx *c, const cs_logical_plan *p, cs_opt_attrs *s);

static void expr_defined(cs_opt_ctx *c, const cs_sql_expr *e, cs_opt_attrs *s)
{
    if (!e) return;
    if (e->subquery) plan_defined(c, e->subquery, s);
    for (int i = 0; i < e->n_args; i++)
        expr_defined(c, e->args[i], s);
    expr_defined(c, e->join_cond, s);
}

static void plan_defined(cs_opt_ctx *c, const cs_logical_plan *p, cs_opt_attrs *s)
{
    for (int i = 0; i < p->n_output; i++)
        cs_opt_attrs_add(c, s, p->output[i]->id);
    int n_exprs = p->kind == CS_LP_EXPAND           ? p->n_exprs * p->n_projections
                  : p->kind == CS_LP_HINT           ? 0
                  : p->kind == CS_LP_LOCAL_RELATION ? 0
                                                    : p->n_exprs;
    for (int i = 0; i < n_exprs; i++)
        expr_defined(c, p->exprs[i], s);
    expr_defined(c, p->condition, s);
    for (int i = 0; i < p->n_children; i++)
        plan_defined(c, p->children[i], s);
}

/* The enclosing query's columns a subquery's plan reads: its outer references, less those a
 * nested subquery makes to this plan's own columns. */
static void subquery_outer_refs(cs_opt_ctx *c, const cs_logical_plan *p, cs_opt_attrs *s)
{
    cs_opt_attrs outer = {0}, defined = {0};
    plan_outer_refs(c, p, &outer);
    if (!outer.n) return;
    plan_defined(c, p, &defined);
    for (int i = 0; i < outer.n; i++)
        if (!cs_opt_attrs_has(&defined, outer.ids[i])) cs_opt_attrs_add(c, s, outer.ids[i]);
}

void cs_opt_refs(cs_opt_ctx *c, const cs_sql_expr *e, cs_opt_attrs *s)
{
    if (!e) return;
    if (e->kind == CS_EX_ATTR) cs_opt_attrs_add(c, s, e->id);
    for (int i = 0; i < e->n_args; i++)
        cs_opt_refs(c, e->args[i], s);
    cs_opt_refs(c, e->filter, s);
    if (e->window) {
        for (int i = 0; i < e->window->n_partition; i++)
            cs_opt_refs(c, e->window->partition[i], s);
        for (int i = 0; i < e->window->n_order; i++)
            cs_opt_refs(c, e->window->order[i], s);
    }
    if (e->subquery) subquery_outer_refs(c, e->subquery, s);
    if (e->join_cond) {
        /* the pulled-up condition's attributes that are not the subquery's own columns */
        cs_opt_attrs jc = {0};
        cs_opt_refs(c, e->join_cond, &jc);
        for (int i = 0; i < jc.n; i++)
            if (!e->subquery || !cs_opt_output_find(e->subquery, jc.ids[i]))
                cs_opt_attrs_add(c, s, jc.ids[i]);
    }
}

void cs_opt_node_refs(cs_opt_ctx *c, const cs_logical_plan *p, cs_opt_attrs *s)
{
    int n_exprs = p->kind == CS_LP_EXPAND           ? p->n_exprs * p->n_projections
                  : p->kind == CS_LP_HINT           ? 0
                  : p->kind == CS_LP_LOCAL_RELATION ? 0
                                                    : p->n_exprs;
    for (int i = 0; i < n_exprs; i++)
        cs_opt_refs(c, p->exprs[i], s);
    for (int i = 0; i < p->n_group_by; i++)
        cs_opt_refs(c, p->group_by[i], s);
    for (int i = 0; i < p->n_order; i++)
        cs_opt_refs(c, p->order[i], s);
    for (int i = 0; i < p->n_partition; i++)
        cs_opt_refs(c, p->partition[i], s);
    cs_opt_refs(c, p->condition, s);
    cs_opt_refs(c, p->generator, s);
}

static bool refs_within(const cs_sql_expr *e, cs_sql_expr *const *attrs, int n)
{
    if (!e) return true;
    if (e->kind == CS_EX_ATTR) {
        for (int i = 0; i < n; i++)
            if (attrs[i]->id == e->id) return true;
        return false;
    }
    for (int i = 0; i < e->n_args; i++)
        if (!refs_within(e->args[i], attrs, n)) return false;
    if (!refs_within(e->filter, attrs, n)) return false;
    if (e->window) {
        for (int i = 0; i < e->window->n_partition; i++)
            if (!refs_within(e->window->partition[i], attrs, n)) return false;
        for (int i = 0; i < e->window->n_order; i++)
            if (!refs_within(e->window->order[i], attrs, n)) return false;
    }
    return true;
}

bool cs_opt_refs_within(const cs_sql_expr *e, cs_sql_expr *const *attrs, int n)
{
    if (!refs_within(e, attrs, n)) return false;
    if (!cs_opt_has_subquery(e)) return true;
    /* a subquery's outer references count too */
    cs_sql_arena *a = cs_sql_arena_new();
    cs_opt_ctx tmp = {.arena = a};
    cs_opt_attrs s = {0};
    cs_opt_refs(&tmp, e, &s);
    bool ok = true;
    for (int i = 0; ok && i < s.n; i++) {
        bool found = false;
        for (int k = 0; !found && k < n; k++)
            found = attrs[k]->id == s.ids[i];
        ok = found;
    }
    cs_sql_arena_free(a);
    return ok;
}

int cs_opt_output_index(const cs_logical_plan *p, cs_expr_id id)
{
    for (int i = 0; i < p->n_output; i++)
        if (p->output[i]->id == id) return i;
    return -1;
}

cs_sql_expr *cs_opt_output_find(const cs_logical_plan *p, cs_expr_id id)
{
    int i = cs_opt_output_index(p, id);
    return i < 0 ? NULL : p->output[i];
}

/* ---- conjuncts and constructors ------------------------------------------------------------ */

bool cs_opt_is_call(const cs_sql_expr *e, const char *fn, int n_args)
{
    return e && e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, fn) == 0 &&
           (n_args < 0 || e->n_args == n_args);
}

static void split(cs_opt_ctx *c, cs_sql_expr *e, cs_sql_expr ***list, int *n, int *cap)
{
    if (cs_opt_is_call(e, "and", 2)) {
        split(c, e->args[0], list, n, cap);
        split(c, e->args[1], list, n, cap);
        return;
    }
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        cs_sql_expr **l = cs_sql_alloc(c->arena, sizeof *l * (size_t)nc);
        if (*n) memcpy(l, *list, sizeof *l * (size_t)*n);
        *list = l;
        *cap = nc;
    }
    (*list)[(*n)++] = e;
}

int cs_opt_split_conjuncts(cs_opt_ctx *c, cs_sql_expr *e, cs_sql_expr ***out)
{
    int n = 0, cap = 0;
    *out = NULL;
    if (e) split(c, e, out, &n, &cap);
    return n;
}

cs_sql_expr *cs_opt_call(cs_opt_ctx *c, const char *name, cs_sql_expr **args, int n)
{
    cs_error err;
    cs_error_clear(&err);
    cs_sql_expr **copy = cs_sql_alloc(c->arena, sizeof *copy * (size_t)(n + 1));
    if (n) memcpy(copy, args, sizeof *copy * (size_t)n);
    return cs_fn_resolve(c->arena, cs_fn_lookup(name), NULL, copy, n, &err);
}

cs_sql_expr *cs_opt_and(cs_opt_ctx *c, cs_sql_expr *l, cs_sql_expr *r)
{
    if (!l) return r;
    if (!r) return l;
    cs_sql_expr *args[2] = {l, r};
    return cs_opt_call(c, "and", args, 2);
}

cs_sql_expr *cs_opt_or(cs_opt_ctx *c, cs_sql_expr *l, cs_sql_expr *r)
{
    cs_sql_expr *args[2] = {l, r};
    return cs_opt_call(c, "or", args, 2);
}

cs_sql_expr *cs_opt_not(cs_opt_ctx *c, cs_sql_expr *e)
{
    return cs_opt_call(c, "not", &e, 1);
}

cs_sql_expr *cs_opt_and_all(cs_opt_ctx *c, cs_sql_expr **conj, int n)
{
    cs_sql_expr *r = NULL;
    for (int i = 0; i < n; i++)
        r = cs_opt_and(c, r, conj[i]);
    return r;
}

cs_sql_expr *cs_opt_bool_literal(cs_opt_ctx *c, bool v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_BOOLEAN));
    uint8_t x = v;
    cs_col_builder_append_values(b, &x, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

cs_sql_expr *cs_opt_null_literal(cs_opt_ctx *c, cs_col_type *t)
{
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    cs_col_builder_append_nulls(b, 1);
    cs_sql_expr *e = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    e->nullable = true;
    return e;
}

static bool bool_literal_is(const cs_sql_expr *e, bool v)
{
    if (!e || e->kind != CS_EX_LITERAL || !e->literal) return false;
    const cs_column *col = e->literal;
    if (col->type->id != CS_TYPE_BOOLEAN || col->length < 1 || !cs_column_is_valid(col, 0))
        return false;
    return cs_bit_get(col->values, 0) == v;
}

bool cs_opt_is_true(const cs_sql_expr *e)
{
    return bool_literal_is(e, true);
}

bool cs_opt_is_false(const cs_sql_expr *e)
{
    return bool_literal_is(e, false);
}

bool cs_opt_is_null_literal(const cs_sql_expr *e)
{
    if (!e || e->kind != CS_EX_LITERAL || !e->literal) return false;
    const cs_column *col = e->literal;
    return col->type->id == CS_TYPE_NULL || col->length < 1 || !cs_column_is_valid(col, 0);
}

/* ---- substitution, equality, determinism --------------------------------------------------- */

typedef struct alias_map {
    cs_sql_expr *const *named;
    int n;
} alias_map;

static cs_sql_expr *replace_one(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)c;
    const alias_map *m = ud;
    if (e->kind != CS_EX_ATTR) return e;
    for (int i = 0; i < m->n; i++)
        if (m->named[i]->kind == CS_EX_ALIAS && m->named[i]->id == e->id)
            return m->named[i]->args[0];
    return e;
}

cs_sql_expr *cs_opt_replace_alias(cs_opt_ctx *c, cs_sql_expr *e, cs_sql_expr *const *named, int n)
{
    alias_map m = {named, n};
    /* down: a replaced definition is not visited again (its attributes are the child's) */
    return cs_opt_expr_down(c, e, replace_one, &m);
}

static bool window_equal(const cs_window_spec *a, const cs_window_spec *b)
{
    if (!a || !b) return a == b;
    if (a->n_partition != b->n_partition || a->n_order != b->n_order ||
        a->has_frame != b->has_frame)
        return false;
    for (int i = 0; i < a->n_partition; i++)
        if (!cs_opt_expr_equal(a->partition[i], b->partition[i])) return false;
    for (int i = 0; i < a->n_order; i++)
        if (!cs_opt_expr_equal(a->order[i], b->order[i])) return false;
    if (a->has_frame &&
        (a->frame_type != b->frame_type || a->lower.kind != b->lower.kind ||
         a->upper.kind != b->upper.kind || !cs_opt_expr_equal(a->lower.offset, b->lower.offset) ||
         !cs_opt_expr_equal(a->upper.offset, b->upper.offset)))
        return false;
    return true;
}

bool cs_opt_expr_equal(const cs_sql_expr *a, const cs_sql_expr *b)
{
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->n_args != b->n_args) return false;
    switch (a->kind) {
    case CS_EX_ATTR:
    case CS_EX_OUTER_ATTR:
    case CS_EX_LAMBDA_VAR:
        return a->id == b->id;
    case CS_EX_LITERAL:
        return a->literal && b->literal && cs_column_equal(a->literal, b->literal);
    case CS_EX_ALIAS:
        if (a->id != b->id) return false;
        break;
    case CS_EX_FUNC:
    case CS_EX_AGG:
        if (!a->fn || !b->fn || strcmp(a->fn, b->fn) != 0 || a->distinct != b->distinct ||
            a->ignore_nulls != b->ignore_nulls || !cs_opt_expr_equal(a->filter, b->filter))
            return false;
        break;
    case CS_EX_CAST:
        if (a->cast_mode != b->cast_mode || !cs_col_type_equal(a->cast_type, b->cast_type))
            return false;
        break;
    case CS_EX_CASE:
        if (a->has_operand != b->has_operand || a->has_else != b->has_else) return false;
        break;
    case CS_EX_IN_LIST:
    case CS_EX_EXISTS:
    case CS_EX_IN_SUBQUERY:
        if (a->negated != b->negated) return false;
        if (a->subquery != b->subquery || !cs_opt_expr_equal(a->join_cond, b->join_cond))
            return false;
        break;
    case CS_EX_SCALAR_SUBQUERY:
        if (a->subquery != b->subquery || !cs_opt_expr_equal(a->join_cond, b->join_cond))
            return false;
        break;
    case CS_EX_SORT_ORDER:
        if (a->descending != b->descending || a->nulls_first != b->nulls_first) return false;
        break;
    case CS_EX_WINDOW:
        if (!window_equal(a->window, b->window)) return false;
        break;
    case CS_EX_PYTHON_UDF: { /* the same deterministic function (its pickled command) */
        const cs_sql_python_udf *x = a->python_udf, *y = b->python_udf;
        if (!x || !y || !x->deterministic || !y->deterministic || x->eval_type != y->eval_type ||
            x->command_len != y->command_len || memcmp(x->command, y->command, x->command_len) != 0)
            return false;
        break;
    }
    default:
        return false;
    }
    for (int i = 0; i < a->n_args; i++)
        if (!cs_opt_expr_equal(a->args[i], b->args[i])) return false;
    return true;
}

/* Spark's Nondeterministic: the scalar functions of sqlexec's one list, and the aggregates whose
 * value depends on the order rows arrive in (First, Last, AnyValue) */
static bool nondeterministic_fn(const char *fn)
{
    static const char *const order_dependent_aggregates[] = {"first", "last", "any_value",
                                                             "first_value", "last_value"};
    for (size_t i = 0; i < sizeof order_dependent_aggregates / sizeof order_dependent_aggregates[0];
         i++)
        if (strcmp(fn, order_dependent_aggregates[i]) == 0) return true;
    return cs_px_nondeterministic(fn);
}

bool cs_opt_deterministic(const cs_sql_expr *e)
{
    if (!e) return true;
    if ((e->kind == CS_EX_FUNC || e->kind == CS_EX_AGG) && e->fn && nondeterministic_fn(e->fn))
        return false;
    if (e->kind == CS_EX_PYTHON_UDF && e->python_udf && !e->python_udf->deterministic)
        return false; /* asNondeterministic() */
    for (int i = 0; i < e->n_args; i++)
        if (!cs_opt_deterministic(e->args[i])) return false;
    if (!cs_opt_deterministic(e->filter)) return false;
    return true;
}

bool cs_sql_expr_deterministic(const cs_sql_expr *e)
{
    return cs_opt_deterministic(e);
}

bool cs_opt_deterministic_list(cs_sql_expr *const *xs, int n)
{
    for (int i = 0; i < n; i++)
        if (!cs_opt_deterministic(xs[i])) return false;
    return true;
}

static bool unfoldable_fn(const char *fn)
{
    static const char *const names[] = {
        "current_date", "current_timestamp", "now",          "localtimestamp", "current_timezone",
        "raise_error",  "assert_true",       "current_user", "current_schema", "current_catalog",
        "grouping",     "grouping_id",       "version",      "unix_timestamp"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(fn, names[i]) == 0) return true;
    return nondeterministic_fn(fn);
}

bool cs_opt_foldable(const cs_sql_expr *e)
{
    if (!e) return true;
    switch (e->kind) {
    case CS_EX_LITERAL:
        return true;
    case CS_EX_FUNC:
        if (!e->fn || unfoldable_fn(e->fn)) return false;
        if (e->fn && strcmp(e->fn, "unix_timestamp") == 0 && e->n_args == 0) return false;
        break;
    case CS_EX_CAST:
    case CS_EX_CASE:
    case CS_EX_IN_LIST:
        break;
    default:
        return false;
    }
    for (int i = 0; i < e->n_args; i++)
        if (!cs_opt_foldable(e->args[i])) return false;
    return true;
}

bool cs_opt_contains_kind(const cs_sql_expr *e, cs_sql_expr_kind kind)
{
    if (!e) return false;
    if (e->kind == kind) return true;
    for (int i = 0; i < e->n_args; i++)
        if (cs_opt_contains_kind(e->args[i], kind)) return true;
    if (cs_opt_contains_kind(e->filter, kind)) return true;
    if (e->window) {
        for (int i = 0; i < e->window->n_partition; i++)
            if (cs_opt_contains_kind(e->window->partition[i], kind)) return true;
        for (int i = 0; i < e->window->n_order; i++)
            if (cs_opt_contains_kind(e->window->order[i], kind)) return true;
    }
    return false;
}

bool cs_opt_has_subquery(const cs_sql_expr *e)
{
    return cs_opt_contains_kind(e, CS_EX_SCALAR_SUBQUERY) ||
           cs_opt_contains_kind(e, CS_EX_EXISTS) || cs_opt_contains_kind(e, CS_EX_IN_SUBQUERY);
}
