/*
 * planner_python.c — Spark's ExtractPythonUDFs for the planner: Python UDF calls
 * (CS_EX_PYTHON_UDF) in a Project's list or a Filter's condition are evaluated by PYTHON_EVAL
 * nodes (sqlexec's ArrowEvalPython) put under the Project / Filter, and the expressions read the
 * nodes' result columns instead.
 *
 * Rounds, as Spark's: each round takes the calls whose arguments call no other Python UDF, of
 * one eval type (a row-at-a-time UDF and a pandas UDF never share a worker; a scalar iterator
 * pandas UDF, eval type 204, shares it with no other call), computes their
 * arguments as columns (a Project below when they are expressions), and puts one PYTHON_EVAL
 * over the input; calls nested in others are left for the next round. Equal calls (same function
 * name and arguments, as printed) are evaluated once. A named argument's value is computed as
 * the others and its name passed with its offset (PySpark's kwargs offsets).
 *
 * Functions over relations are one PYTHON_EVAL with one UDF whose output is the node's own:
 * applyInPandas (FlatMapGroupsInPandas, eval type 201) over an Exchange and a Sort by its keys,
 * mapInPandas / mapInArrow (MapInPandas / MapInArrow, 205 / 207) over the child's partitions.
 *
 * Called by planner.c. Ownership: as planner.c's (nodes made here join the tree in *in;
 * expressions and attributes in the planner's arena; UDF commands copied into the node).
 */
#include <stdlib.h>
#include <string.h>

#include "sql/planner_internal.h"
#include "sql/type_coercion.h"

#define MAX_UDFS_PER_ROUND 256

bool cs_pl_has_python_udf(const cs_sql_expr *e)
{
    if (!e) return false;
    if (e->kind == CS_EX_PYTHON_UDF) return true;
    for (int i = 0; i < e->n_args; i++)
        if (cs_pl_has_python_udf(e->args[i])) return true;
    return false;
}

/* The row-at-a-time kinds run the same way (sqlexec sends both as Arrow batches). */
static int kind_of(const cs_sql_expr *udf)
{
    int t = udf->python_udf->eval_type;
    return t == 101 ? 100 : t;
}

/* The same call: the same function (its pickled command) over the same arguments. Two lambdas
 * print alike ("<lambda>(x)"), so the command decides, not the name. */
static bool same_call(const cs_sql_expr *a, const cs_sql_expr *b)
{
    if (a->kind != CS_EX_PYTHON_UDF || b->kind != CS_EX_PYTHON_UDF || a->n_args != b->n_args)
        return false;
    const cs_sql_python_udf *x = a->python_udf, *y = b->python_udf;
    if (x->eval_type != y->eval_type || x->command_len != y->command_len ||
        memcmp(x->command, y->command, x->command_len) != 0)
        return false;
    for (int i = 0; i < a->n_args; i++)
        if (!cs_pl_same_expr(a->args[i], b->args[i])) return false;
    return true;
}

/* e with every call equal to from[i] replaced by to[i]. */
static cs_sql_expr *replace_calls(cs_pl_ctx *c, cs_sql_expr *e, const cs_sql_expr *const *from,
                                  cs_sql_expr *const *to, int n)
{
    if (!e) return NULL;
    for (int i = 0; i < n; i++)
        if (same_call(e, from[i])) return to[i];
    if (!cs_pl_has_python_udf(e)) return e;
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
    for (int i = 0; i < e->n_args; i++)
        r->args[i] = replace_calls(c, e->args[i], from, to, n);
    return r;
}

typedef struct udf_set {
    const cs_sql_expr *calls[MAX_UDFS_PER_ROUND];
    int n;
    int kind; /* 0: not chosen yet */
} udf_set;

/* Collects the calls of e whose arguments call no Python UDF, of the round's kind. */
static void collect(const cs_sql_expr *e, udf_set *s)
{
    if (!e) return;
    if (e->kind == CS_EX_PYTHON_UDF) {
        bool inner = false;
        for (int i = 0; i < e->n_args; i++)
            inner |= cs_pl_has_python_udf(e->args[i]);
        if (!inner) {
            if (!s->kind) s->kind = kind_of(e);
            if (kind_of(e) != s->kind || s->n == MAX_UDFS_PER_ROUND) return;
            /* a scalar iterator UDF runs alone: Spark's worker takes one per node */
            if (s->kind == 204 && s->n == 1) return;
            for (int i = 0; i < s->n; i++)
                if (same_call(s->calls[i], e)) return;
            s->calls[s->n++] = e;
            return;
        }
    }
    for (int i = 0; i < e->n_args; i++)
        collect(e->args[i], s);
}

/* A named argument (`f(b => x)`): an ALIAS the analyzer kept, whose name goes to the worker. */
static bool is_named(const cs_sql_expr *arg)
{
    return arg->kind == CS_EX_ALIAS && arg->named_argument;
}

static cs_sql_expr *unnamed(cs_sql_expr *arg)
{
    return is_named(arg) ? arg->args[0] : arg;
}

/* One PYTHON_EVAL over in for the calls of s; to[i] is the attribute of calls[i]'s result. */
static int eval_node(cs_pl_ctx *c, cs_pl_out *in, const udf_set *s, cs_sql_expr **to)
{
    int total = 0;
    for (int i = 0; i < s->n; i++)
        total += s->calls[i]->n_args;
    cs_sql_expr **args = cs_sql_alloc(c->arena, sizeof *args * (size_t)(total + 1));
    int *ords = cs_xcalloc((size_t)total + 1, sizeof *ords);
    for (int i = 0, k = 0; i < s->n; i++)
        for (int a = 0; a < s->calls[i]->n_args; a++)
            args[k++] = unnamed(s->calls[i]->args[a]);
    if (cs_pl_columns(c, in, args, total, ords) != 0) {
        free(ords);
        return -1;
    }
    int n_out = in->n + s->n;
    cs_sql_expr **attrs = cs_sql_alloc(c->arena, sizeof *attrs * (size_t)(n_out + 1));
    memcpy(attrs, in->attrs, sizeof *attrs * (size_t)in->n);
    for (int i = 0; i < s->n; i++) {
        cs_sbuf name = CS_SBUF_INIT;
        cs_sql_expr_pretty_name(s->calls[i], &name);
        to[i] = cs_pl_new_attr(c, cs_sbuf_str(&name), s->calls[i]->type, true);
        cs_sbuf_free(&name);
        attrs[in->n + i] = to[i];
    }
    cs_phys_node *n = cs_pl_node(c, CS_PH_PYTHON_EVAL, attrs, n_out, 1);
    n->children[0] = in->node;
    const cs_sql_python_udf *first = s->calls[0]->python_udf;
    n->py_eval_type = first->eval_type;
    n->py_python = cs_xstrdup(c->pc->conf.python_exec ? c->pc->conf.python_exec : "python3");
    n->py_max_records = c->pc->conf.arrow_max_records;
    n->py_safe_cast = c->pc->conf.arrow_safe_cast;
    n->py_columns_by_name = c->pc->conf.pandas_columns_by_name;
    n->py_faulthandler = c->pc->conf.py_faulthandler;
    n->py_python_ver = cs_xstrdup(first->python_ver);
    n->py_udfs = cs_xcalloc((size_t)s->n, sizeof *n->py_udfs);
    n->n_py_udfs = s->n;
    for (int i = 0, k = 0; i < s->n; i++) {
        const cs_sql_python_udf *u = s->calls[i]->python_udf;
        cs_phys_py_udf *d = &n->py_udfs[i];
        d->command = cs_xmalloc(u->command_len + 1);
        if (u->command_len) memcpy(d->command, u->command, u->command_len);
        d->command_len = u->command_len;
        d->n_args = s->calls[i]->n_args;
        d->args = cs_xcalloc((size_t)d->n_args + 1, sizeof *d->args);
        for (int a = 0; a < d->n_args; a++) {
            const cs_sql_expr *arg = s->calls[i]->args[a];
            d->args[a] = ords[k++];
            if (!is_named(arg)) continue;
            if (!d->arg_names) d->arg_names = cs_xcalloc((size_t)d->n_args, sizeof *d->arg_names);
            d->arg_names[a] = cs_xstrdup(arg->name);
        }
    }
    free(ords);
    cs_pl_out was = *in;
    *in = (cs_pl_out){n, attrs, n_out, NULL, 0, 0};
    cs_pl_keep_partitioning(in, &was);
    return 0;
}

int cs_pl_python_udfs(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *exprs, int n,
                      cs_sql_expr ***rewritten)
{
    cs_sql_expr **cur = cs_sql_alloc(c->arena, sizeof *cur * (size_t)(n + 1));
    memcpy(cur, exprs, sizeof *cur * (size_t)n);
    *rewritten = cur;
    for (;;) {
        udf_set s = {.n = 0};
        for (int i = 0; i < n; i++)
            collect(cur[i], &s);
        if (s.n == 0) return 0;
        cs_sql_expr *to[MAX_UDFS_PER_ROUND];
        if (eval_node(c, in, &s, to) != 0) return -1;
        for (int i = 0; i < n; i++)
            cur[i] = replace_calls(c, cur[i], s.calls, to, s.n);
    }
}

/* The PYTHON_EVAL node of a function over a relation (p's generator, one UDF): output p's,
 * over child, the UDF's argument offsets args (taken over). */
static cs_phys_node *relation_udf_node(cs_pl_ctx *c, const cs_logical_plan *p,
                                       cs_phys_node *const *children, int n_children, int *args,
                                       int n_args)
{
    const cs_sql_python_udf *u = p->generator->python_udf;
    cs_phys_node *n = cs_pl_node(c, CS_PH_PYTHON_EVAL, p->output, p->n_output, n_children);
    for (int i = 0; i < n_children; i++)
        n->children[i] = children[i];
    n->py_eval_type = u->eval_type;
    n->py_python = cs_xstrdup(c->pc->conf.python_exec ? c->pc->conf.python_exec : "python3");
    n->py_max_records = c->pc->conf.arrow_max_records;
    n->py_safe_cast = c->pc->conf.arrow_safe_cast;
    n->py_columns_by_name = c->pc->conf.pandas_columns_by_name;
    n->py_faulthandler = c->pc->conf.py_faulthandler;
    n->py_barrier = p->kind == CS_LP_PYTHON_MAP_IN_BATCH && p->barrier;
    n->py_python_ver = cs_xstrdup(u->python_ver);
    n->n_py_udfs = 1;
    n->py_udfs = cs_xcalloc(1, sizeof *n->py_udfs);
    cs_phys_py_udf *d = &n->py_udfs[0];
    d->command = cs_xmalloc(u->command_len + 1);
    if (u->command_len) memcpy(d->command, u->command, u->command_len);
    d->command_len = u->command_len;
    d->n_args = n_args;
    d->args = args;
    return n;
}

/* The columns a function over a relation reads are sent to Python under their names in the
 * plan: an argument that is a column of in under another name (renamed keeping its id: toDF, a
 * subquery's column aliases, whose alias the optimizer removed) is renamed by a PROJECT. */
static int rename_args(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *args, int n)
{
    cs_sql_expr **all = NULL;
    for (int i = 0; i < n; i++) {
        cs_sql_expr *e = args[i];
        int k = e->kind == CS_EX_ATTR && e->name ? cs_pl_find(in->attrs, in->n, e->id) : -1;
        if (k < 0 || strcmp(in->node->schema->fields[k].name, e->name) == 0) continue;
        if (!all) {
            all = cs_sql_alloc(c->arena, sizeof *all * (size_t)(in->n + 1));
            memcpy(all, in->attrs, sizeof *all * (size_t)in->n);
        }
        all[k] = e;
    }
    return all ? cs_pl_project(c, in, all, in->n) : 0;
}

/* Spark's FlatMapGroupsInPandasExec under its required distribution and ordering: an Exchange
 * by the grouping keys (none: a single partition), a Sort by them, then a PYTHON_EVAL of eval
 * type 201 whose one UDF's arguments are Spark's grouped offsets ([length, number of keys,
 * keys..., values...], ordinals of the sorted input) and whose output is p's. */
int cs_pl_python_group_map(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    const cs_sql_expr *udf = p->generator;
    if (!udf || udf->kind != CS_EX_PYTHON_UDF) return cs_pl_unsupported(c, "this grouped map");
    cs_pl_out in;
    if (cs_pl_plan(c, p->children[0], &in) != 0) return -1;
    int nk = p->n_exprs, nv = udf->n_args;
    int *ords = cs_xcalloc((size_t)(nk + nv + 1), sizeof *ords);
    if (rename_args(c, &in, udf->args, nv) != 0 || cs_pl_columns(c, &in, p->exprs, nk, ords) != 0 ||
        cs_pl_columns(c, &in, udf->args, nv, ords + nk) != 0) {
        free(ords);
        cs_phys_free(in.node);
        return -1;
    }
    if (nk == 0 || !cs_pl_partitioned_by(&in, ords, nk, c->pc->conf.shuffle_partitions, false))
        cs_pl_exchange(c, &in, CS_PART_HASH, ords, nk, c->pc->conf.shuffle_partitions);
    if (nk > 0) {
        cs_phys_node *s = cs_pl_node(c, CS_PH_SORT, in.attrs, in.n, 1);
        s->children[0] = in.node;
        in.node = s;
        s->n_sort_keys = nk;
        s->sort_keys = cs_xcalloc((size_t)nk, sizeof *s->sort_keys);
        for (int i = 0; i < nk; i++)
            s->sort_keys[i] = (cs_sort_key){ords[i], false, true};
    }
    int n_args = 2 + nk + nv;
    int *args = cs_xcalloc((size_t)n_args, sizeof *args);
    args[0] = 1 + nk + nv;
    args[1] = nk;
    memcpy(args + 2, ords, sizeof *ords * (size_t)(nk + nv));
    free(ords);
    *out = (cs_pl_out){
        relation_udf_node(c, p, &in.node, 1, args, n_args), p->output, p->n_output, NULL, 0, 0};
    return 0;
}

/* One side of a cogroup: child planned, exchanged by its keys (exactly those, in spark.sql.
 * shuffle.partitions partitions, so that both sides' rows of a key meet in one partition) unless
 * already so, sorted by them; its grouped offsets ([length, number of keys, keys..., every
 * column of the child]) appended to args at *at; named (or NULL) are the child's columns as the
 * UDF sees them, renamed by rename_args when their names differ. */
static int cogroup_side(cs_pl_ctx *c, const cs_logical_plan *child, cs_sql_expr *const *keys,
                        int nk, cs_sql_expr *const *named, cs_pl_out *in, int *args, int *at)
{
    if (cs_pl_plan(c, child, in) != 0) return -1;
    int nv = child->n_output;
    int *ords = cs_xcalloc((size_t)(nk + nv + 1), sizeof *ords);
    if ((named && rename_args(c, in, named, nv) != 0) ||
        cs_pl_columns(c, in, keys, nk, ords) != 0 ||
        cs_pl_columns(c, in, child->output, nv, ords + nk) != 0) {
        free(ords);
        cs_phys_free(in->node);
        in->node = NULL;
        return -1;
    }
    int parts = c->pc->conf.shuffle_partitions;
    if (!cs_pl_partitioned_by(in, ords, nk, parts, true))
        cs_pl_exchange(c, in, CS_PART_HASH, ords, nk, parts);
    cs_phys_node *s = cs_pl_node(c, CS_PH_SORT, in->attrs, in->n, 1);
    s->children[0] = in->node;
    in->node = s;
    s->n_sort_keys = nk;
    s->sort_keys = cs_xcalloc((size_t)nk, sizeof *s->sort_keys);
    for (int i = 0; i < nk; i++)
        s->sort_keys[i] = (cs_sort_key){ords[i], false, true};
    args[(*at)++] = 1 + nk + nv;
    args[(*at)++] = nk;
    memcpy(args + *at, ords, sizeof *ords * (size_t)(nk + nv));
    *at += nk + nv;
    free(ords);
    return 0;
}

/* The keys of the two sides as their rows meet (by hash, then by encoded key), as Spark 4 meets
 * them: Spark's analyzer casts neither side, and its cogroup compares the right side's key with
 * the left's as if it had the left's type, so integral keys of different widths (byte, short,
 * int, long) meet by value — here both are cast to the wider type —, while keys of types apart
 * (int and double, string and int, date and timestamp, ...) never meet: each side's key is its
 * own group, the other side's frame empty (Spark meets them only where their bits happen to be
 * the same, as 0 and 0.0). Fills lk, rk (nk each, in c's arena). */
static void cogroup_keys(cs_pl_ctx *c, const cs_logical_plan *p, int nk, cs_sql_expr **lk,
                         cs_sql_expr **rk)
{
    for (int i = 0; i < nk; i++) {
        cs_sql_expr *l = p->exprs[i], *r = p->group_by[i];
        lk[i] = l;
        rk[i] = r;
        if (cs_col_type_equal(l->type, r->type) || !cs_tc_is_integral(l->type) ||
            !cs_tc_is_integral(r->type))
            continue;
        cs_col_type *wide = cs_tc_wider(c->arena, l->type, r->type);
        if (l->kind == CS_EX_ALIAS) l = l->args[0];
        if (r->kind == CS_EX_ALIAS) r = r->args[0];
        lk[i] = cs_tc_cast(c->arena, l, wide);
        rk[i] = cs_tc_cast(c->arena, r, wide);
    }
}

/* Spark's FlatMapCoGroupsInPandasExec / InArrowExec under its required distribution and
 * ordering: each side exchanged and sorted by its keys (cogroup_side; keys of different types
 * as cogroup_keys says), then a PYTHON_EVAL of eval type 206 / 210 over both whose one UDF's
 * arguments are both sides' grouped offsets. */
int cs_pl_python_cogroup_map(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    const cs_sql_expr *udf = p->generator;
    if (!udf || udf->kind != CS_EX_PYTHON_UDF || p->n_exprs != p->n_group_by || p->n_exprs == 0)
        return cs_pl_unsupported(c, "this cogrouped map");
    int nk = p->n_exprs;
    cs_sql_expr **lk = cs_sql_alloc(c->arena, sizeof *lk * (size_t)nk);
    cs_sql_expr **rk = cs_sql_alloc(c->arena, sizeof *rk * (size_t)nk);
    cogroup_keys(c, p, nk, lk, rk);
    int n_args = 2 * (2 + nk) + p->children[0]->n_output + p->children[1]->n_output;
    int *args = cs_xcalloc((size_t)n_args, sizeof *args);
    int at = 0;
    cs_pl_out l, r;
    /* the UDF's arguments name both sides' columns (analyzer.c) */
    int nl = p->children[0]->n_output;
    bool named = udf->n_args == nl + p->children[1]->n_output;
    if (cogroup_side(c, p->children[0], lk, nk, named ? udf->args : NULL, &l, args, &at) != 0) {
        free(args);
        return -1;
    }
    if (cogroup_side(c, p->children[1], rk, nk, named ? udf->args + nl : NULL, &r, args, &at) !=
        0) {
        cs_phys_free(l.node);
        free(args);
        return -1;
    }
    cs_phys_node *children[2] = {l.node, r.node};
    *out = (cs_pl_out){
        relation_udf_node(c, p, children, 2, args, n_args), p->output, p->n_output, NULL, 0, 0};
    return 0;
}

/* Spark's MapInPandasExec / MapInArrowExec: a PYTHON_EVAL of eval type 205 / 207 over each
 * partition of the child as it is, its one UDF's arguments the ordinals of the child's columns
 * it reads, its output p's. */
int cs_pl_python_map_in_batch(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    const cs_sql_expr *udf = p->generator;
    if (!udf || udf->kind != CS_EX_PYTHON_UDF || udf->n_args == 0)
        return cs_pl_unsupported(c, "this mapInPandas / mapInArrow");
    cs_pl_out in;
    if (cs_pl_plan(c, p->children[0], &in) != 0) return -1;
    int *ords = cs_xcalloc((size_t)udf->n_args + 1, sizeof *ords);
    if (rename_args(c, &in, udf->args, udf->n_args) != 0 ||
        cs_pl_columns(c, &in, udf->args, udf->n_args, ords) != 0) {
        free(ords);
        cs_phys_free(in.node);
        return -1;
    }
    *out = (cs_pl_out){relation_udf_node(c, p, &in.node, 1, ords, udf->n_args),
                       p->output,
                       p->n_output,
                       NULL,
                       0,
                       0};
    return 0;
}
