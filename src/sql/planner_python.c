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
 * An aggregate whose list calls grouped-aggregate pandas UDFs (eval type 202) is Spark's
 * AggregateInPandasExec: one PYTHON_EVAL over an Exchange by the grouping keys (a single
 * partition without keys) and a Sort by them, whose output is the keys then a column per distinct
 * call; a Project above computes the aggregate list over those. Built-in aggregate functions in
 * the same list are refused (INVALID_PANDAS_UDF_PLACEMENT), as Spark's CheckAnalysis refuses them.
 * Over a window (Spark's WindowInPandasExec) they are one PYTHON_EVAL of eval type 203 over an
 * Exchange by the partition keys and a Sort by them and the order keys, each UDF's arguments
 * led by its frame (python_eval.h); a RANGE frame's offsets need one integral or date order key.
 *
 * Called by planner.c. Ownership: as planner.c's (nodes made here join the tree in *in;
 * expressions and attributes in the planner's arena; UDF commands copied into the node).
 */
#include <stdlib.h>
#include <string.h>

#include "sql/planner_internal.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

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

/* The session's Python settings on a PYTHON_EVAL node of u's eval type. */
static void set_python_conf(cs_pl_ctx *c, cs_phys_node *n, const cs_sql_python_udf *u)
{
    n->py_eval_type = u->eval_type;
    n->py_python = cs_xstrdup(c->pc->conf.python_exec ? c->pc->conf.python_exec : "python3");
    n->py_max_records = c->pc->conf.arrow_max_records;
    n->py_safe_cast = c->pc->conf.arrow_safe_cast;
    n->py_columns_by_name = c->pc->conf.pandas_columns_by_name;
    n->py_faulthandler = c->pc->conf.py_faulthandler;
    n->py_python_ver = cs_xstrdup(u->python_ver);
}

/* d: call's command and arguments, their ordinals ords[0..n_args) (*k advanced past them), a
 * named argument's name kept. */
static void copy_udf(cs_phys_py_udf *d, const cs_sql_expr *call, const int *ords, int *k)
{
    const cs_sql_python_udf *u = call->python_udf;
    d->command = cs_xmalloc(u->command_len + 1);
    if (u->command_len) memcpy(d->command, u->command, u->command_len);
    d->command_len = u->command_len;
    d->n_args = call->n_args;
    d->args = cs_xcalloc((size_t)d->n_args + 1, sizeof *d->args);
    for (int a = 0; a < d->n_args; a++) {
        const cs_sql_expr *arg = call->args[a];
        d->args[a] = ords[a];
        if (!is_named(arg)) continue;
        if (!d->arg_names) d->arg_names = cs_xcalloc((size_t)d->n_args, sizeof *d->arg_names);
        d->arg_names[a] = cs_xstrdup(arg->name);
    }
    *k += call->n_args;
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
    set_python_conf(c, n, s->calls[0]->python_udf);
    n->py_udfs = cs_xcalloc((size_t)s->n, sizeof *n->py_udfs);
    n->n_py_udfs = s->n;
    for (int i = 0, k = 0; i < s->n; i++)
        copy_udf(&n->py_udfs[i], s->calls[i], ords + k, &k);
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
    set_python_conf(c, n, u);
    n->py_barrier = p->kind == CS_LP_PYTHON_MAP_IN_BATCH && p->barrier;
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

/* ---- AggregateInPandas ---- */

/* Collects the grouped-aggregate pandas UDF calls of e (distinct calls once; their arguments are
 * not searched) into s; *builtin set when e holds a built-in aggregate function too. */
static void collect_python_aggs(const cs_sql_expr *e, udf_set *s, bool *builtin)
{
    if (!e) return;
    if (cs_sql_expr_is_python_agg(e)) {
        for (int i = 0; i < s->n; i++)
            if (same_call(s->calls[i], e)) return;
        if (s->n < MAX_UDFS_PER_ROUND) s->calls[s->n++] = e;
        return;
    }
    if (e->kind == CS_EX_AGG) *builtin = true;
    if (e->kind == CS_EX_SCALAR_SUBQUERY || e->kind == CS_EX_WINDOW) return;
    for (int i = 0; i < e->n_args; i++)
        collect_python_aggs(e->args[i], s, builtin);
}

/* Spark's INVALID_PANDAS_UDF_PLACEMENT: grouped-aggregate pandas UDFs with built-in aggregates
 * in one aggregate (Spark's CheckAnalysis; its AggregateInPandasExec runs pandas UDFs only). */
static int mixture_error(cs_pl_ctx *c, const udf_set *s)
{
    cs_sbuf names = CS_SBUF_INIT;
    for (int i = 0; i < s->n; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(s->calls[j]->name, s->calls[i]->name) == 0;
        if (seen) continue;
        if (names.len) cs_sbuf_puts(&names, ", ");
        cs_sbuf_putc(&names, '`'); /* Spark's toSQLId */
        for (const char *q = s->calls[i]->name ? s->calls[i]->name : "udf"; *q; q++) {
            if (*q == '`') cs_sbuf_putc(&names, '`');
            cs_sbuf_putc(&names, *q);
        }
        cs_sbuf_putc(&names, '`');
    }
    cs_sql_error_set(c->err, CS_EINVAL, "INVALID_PANDAS_UDF_PLACEMENT", "0A000",
                     "The group aggregate pandas UDF %s cannot be invoked together with as other, "
                     "non-pandas aggregate functions.",
                     cs_sbuf_str(&names));
    cs_sbuf_free(&names);
    return -1;
}

int cs_pl_python_aggregate(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    udf_set s = {.n = 0};
    bool builtin = false;
    for (int i = 0; i < p->n_exprs; i++)
        collect_python_aggs(p->exprs[i], &s, &builtin);
    if (builtin) return mixture_error(c, &s);
    cs_pl_out in;
    if (cs_pl_plan(c, p->children[0], &in) != 0) return -1;
    int g = p->n_group_by, total = 0;
    for (int i = 0; i < s.n; i++)
        total += s.calls[i]->n_args;
    /* the keys, then every UDF's arguments (Python UDFs in them evaluated below first) */
    cs_sql_expr **cols = cs_sql_alloc(c->arena, sizeof *cols * (size_t)(g + total + 1));
    for (int i = 0; i < g; i++)
        cols[i] = p->group_by[i];
    for (int i = 0, k = g; i < s.n; i++)
        for (int a = 0; a < s.calls[i]->n_args; a++)
            cols[k++] = unnamed(s.calls[i]->args[a]);
    cs_sql_expr **args = NULL;
    int *ords = cs_xcalloc((size_t)(g + total + 1), sizeof *ords);
    if (cs_pl_python_udfs(c, &in, cols + g, total, &args) != 0 ||
        (memcpy(cols + g, args, sizeof *args * (size_t)total),
         cs_pl_columns(c, &in, cols, g + total, ords) != 0)) {
        free(ords);
        cs_phys_free(in.node);
        return -1;
    }
    /* Spark's required distribution and ordering: clustered by the keys (all rows together
     * without keys), sorted by them */
    if (g == 0 || !cs_pl_partitioned_by(&in, ords, g, c->pc->conf.shuffle_partitions, false))
        cs_pl_exchange(c, &in, CS_PART_HASH, ords, g, c->pc->conf.shuffle_partitions);
    if (g > 0) {
        cs_phys_node *sort = cs_pl_node(c, CS_PH_SORT, in.attrs, in.n, 1);
        sort->children[0] = in.node;
        in.node = sort;
        sort->n_sort_keys = g;
        sort->sort_keys = cs_xcalloc((size_t)g, sizeof *sort->sort_keys);
        for (int i = 0; i < g; i++)
            sort->sort_keys[i] = (cs_sort_key){ords[i], false, true};
    }
    /* the node: the keys, then a column per UDF */
    int n_out = g + s.n;
    cs_sql_expr **attrs = cs_sql_alloc(c->arena, sizeof *attrs * (size_t)(n_out + 1));
    cs_sql_expr *to[MAX_UDFS_PER_ROUND];
    for (int i = 0; i < g; i++)
        attrs[i] = in.attrs[ords[i]];
    for (int i = 0; i < s.n; i++) {
        cs_sbuf name = CS_SBUF_INIT;
        cs_sql_expr_pretty_name(s.calls[i], &name);
        to[i] = attrs[g + i] = cs_pl_new_attr(c, cs_sbuf_str(&name), s.calls[i]->type, true);
        cs_sbuf_free(&name);
    }
    cs_phys_node *n = cs_pl_node(c, CS_PH_PYTHON_EVAL, attrs, n_out, 1);
    n->children[0] = in.node;
    set_python_conf(c, n, s.calls[0]->python_udf);
    n->n_group_keys = g;
    n->group_keys = cs_xcalloc((size_t)g + 1, sizeof *n->group_keys);
    memcpy(n->group_keys, ords, sizeof *ords * (size_t)g);
    n->py_udfs = cs_xcalloc((size_t)s.n, sizeof *n->py_udfs);
    n->n_py_udfs = s.n;
    for (int i = 0, k = g; i < s.n; i++)
        copy_udf(&n->py_udfs[i], s.calls[i], ords + k, &k);
    free(ords);
    cs_pl_out agg = {n, attrs, n_out, NULL, 0, 0};
    /* the aggregate list over the keys and the results */
    cs_sql_expr **from = cs_sql_alloc(c->arena, sizeof *from * (size_t)(g + 1));
    cs_sql_expr **key_to = cs_sql_alloc(c->arena, sizeof *key_to * (size_t)(g + 1));
    int n_map = 0;
    for (int i = 0; i < g; i++)
        if (p->group_by[i]->kind != CS_EX_ATTR) {
            from[n_map] = p->group_by[i];
            key_to[n_map++] = attrs[i];
        }
    cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(p->n_exprs + 1));
    for (int i = 0; i < p->n_exprs; i++)
        list[i] =
            cs_pl_replace(c, replace_calls(c, p->exprs[i], s.calls, to, s.n), from, key_to, n_map);
    if (cs_pl_project(c, &agg, list, p->n_exprs) != 0) {
        cs_phys_free(agg.node);
        return -1;
    }
    *out = agg;
    return 0;
}

/* ---- WindowInPandas ---- */

/* A frame bound as WindowInPandas takes it: its kind and an offset (rows; a RANGE frame's: in
 * the units of its one order key, integral or a date). */
static int window_bound(cs_pl_ctx *c, const cs_frame_bound *b, const cs_logical_plan *p, bool range,
                        int *kind, int *off)
{
    *off = 0;
    switch (b->kind) {
    case CS_BOUND_UNBOUNDED_PRECEDING:
        *kind = CS_WB_UNBOUNDED_PRECEDING;
        return 0;
    case CS_BOUND_CURRENT_ROW:
        *kind = CS_WB_CURRENT_ROW;
        return 0;
    case CS_BOUND_UNBOUNDED_FOLLOWING:
        *kind = CS_WB_UNBOUNDED_FOLLOWING;
        return 0;
    default:
        break;
    }
    const cs_sql_expr *o = b->offset;
    bool integral = o && o->kind == CS_EX_LITERAL && o->literal &&
                    cs_column_is_valid(o->literal, 0) &&
                    (o->literal->type->id == CS_TYPE_INT || o->literal->type->id == CS_TYPE_LONG);
    const cs_sql_expr *key = p->n_order == 1 ? p->order[0] : NULL;
    if (key && key->kind == CS_EX_SORT_ORDER) key = key->args[0];
    bool key_ok = key && (cs_tc_is_integral(key->type) || key->type->id == CS_TYPE_DATE);
    if (!integral || (range && !key_ok))
        return cs_pl_unsupported(c, "a grouped-aggregate pandas UDF over a frame with offsets "
                                    "that are not integral, or a RANGE frame whose order key is "
                                    "not one integral or date column");
    int64_t v = o->literal->type->id == CS_TYPE_INT
                    ? ((const int32_t *)(const void *)o->literal->values)[0]
                    : ((const int64_t *)(const void *)o->literal->values)[0];
    if (v > INT32_MAX) v = INT32_MAX;
    *kind = CS_WB_OFFSET;
    *off = (int)(b->kind == CS_BOUND_PRECEDING ? -v : v);
    return 0;
}

/* The window function of a WINDOW node's entry (ALIAS of WINDOW), or NULL. */
static const cs_sql_expr *window_function(const cs_sql_expr *named)
{
    return named->kind == CS_EX_ALIAS && named->args[0]->kind == CS_EX_WINDOW
               ? named->args[0]->args[0]
               : NULL;
}

bool cs_pl_python_window_fns(const cs_logical_plan *p)
{
    for (int i = 0; i < p->n_exprs; i++)
        if (cs_sql_expr_is_python_agg(window_function(p->exprs[i]))) return true;
    return false;
}

int cs_pl_python_window(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    int np = p->n_partition, no = p->n_order, nf = p->n_exprs, total = 0;
    for (int i = 0; i < nf; i++) {
        const cs_sql_expr *f = window_function(p->exprs[i]);
        if (!cs_sql_expr_is_python_agg(f))
            return cs_pl_unsupported(c, "grouped-aggregate pandas UDFs and other functions "
                                        "over one window");
        total += f->n_args;
    }
    cs_pl_out in;
    if (cs_pl_plan(c, p->children[0], &in) != 0) return -1;
    /* the partition keys, the order keys, then every UDF's arguments */
    int nc = np + no + total;
    cs_sql_expr **cols = cs_sql_alloc(c->arena, sizeof *cols * (size_t)(nc + 1));
    for (int i = 0; i < np; i++)
        cols[i] = p->partition[i];
    for (int i = 0; i < no; i++)
        cols[np + i] = p->order[i]->kind == CS_EX_SORT_ORDER ? p->order[i]->args[0] : p->order[i];
    for (int i = 0, k = np + no; i < nf; i++) {
        const cs_sql_expr *f = window_function(p->exprs[i]);
        for (int a = 0; a < f->n_args; a++)
            cols[k++] = unnamed(f->args[a]);
    }
    cs_sql_expr **args = NULL;
    int *ords = cs_xcalloc((size_t)nc + 1, sizeof *ords);
    if (cs_pl_python_udfs(c, &in, cols + np + no, total, &args) != 0 ||
        (memcpy(cols + np + no, args, sizeof *args * (size_t)total),
         cs_pl_columns(c, &in, cols, nc, ords) != 0)) {
        free(ords);
        cs_phys_free(in.node);
        return -1;
    }
    if (np == 0 || !cs_pl_partitioned_by(&in, ords, np, c->pc->conf.shuffle_partitions, false))
        cs_pl_exchange(c, &in, CS_PART_HASH, ords, np, c->pc->conf.shuffle_partitions);
    cs_phys_node *sort = cs_pl_node(c, CS_PH_SORT, in.attrs, in.n, 1);
    sort->children[0] = in.node;
    in.node = sort;
    sort->n_sort_keys = np + no;
    sort->sort_keys = cs_xcalloc((size_t)(np + no + 1), sizeof *sort->sort_keys);
    cs_sort_key *order = cs_xcalloc((size_t)no + 1, sizeof *order);
    for (int i = 0; i < np; i++)
        sort->sort_keys[i] = (cs_sort_key){ords[i], false, true};
    for (int i = 0; i < no; i++) {
        const cs_sql_expr *o = p->order[i];
        bool desc = o->kind == CS_EX_SORT_ORDER && o->descending;
        order[i] =
            (cs_sort_key){ords[np + i], desc, o->kind == CS_EX_SORT_ORDER ? o->nulls_first : !desc};
        sort->sort_keys[np + i] = order[i];
    }
    int n_out = in.n + nf;
    cs_sql_expr **attrs = cs_sql_alloc(c->arena, sizeof *attrs * (size_t)(n_out + 1));
    memcpy(attrs, in.attrs, sizeof *attrs * (size_t)in.n);
    for (int i = 0; i < nf; i++)
        attrs[in.n + i] = cs_pl_attr_of(c, p->exprs[i]);
    cs_phys_node *n = cs_pl_node(c, CS_PH_PYTHON_EVAL, attrs, n_out, 1);
    n->children[0] = in.node;
    set_python_conf(c, n, window_function(p->exprs[0])->python_udf);
    n->py_eval_type = 203; /* SQL_WINDOW_AGG_PANDAS_UDF */
    n->n_group_keys = np;
    n->group_keys = cs_xcalloc((size_t)np + 1, sizeof *n->group_keys);
    memcpy(n->group_keys, ords, sizeof *ords * (size_t)np);
    n->n_sort_keys = no;
    n->sort_keys = order;
    n->py_udfs = cs_xcalloc((size_t)nf, sizeof *n->py_udfs);
    n->n_py_udfs = nf;
    cs_pl_out was = in;
    in = (cs_pl_out){n, attrs, n_out, NULL, 0, 0};
    cs_pl_keep_partitioning(&in, &was);
    int rc = 0;
    for (int i = 0, k = np + no; rc == 0 && i < nf; i++) {
        const cs_sql_expr *f = window_function(p->exprs[i]);
        const cs_window_spec *w = p->exprs[i]->args[0]->window;
        /* the frame: the one given, else Spark's default for an aggregate function */
        int frame[5] = {0, CS_WB_UNBOUNDED_PRECEDING, 0, CS_WB_UNBOUNDED_FOLLOWING, 0};
        if (w->has_frame) {
            frame[0] = w->frame_type == CS_FRAME_RANGE;
            rc = window_bound(c, &w->lower, p, frame[0], &frame[1], &frame[2]);
            if (rc == 0) rc = window_bound(c, &w->upper, p, frame[0], &frame[3], &frame[4]);
        } else if (no > 0) {
            frame[0] = 1;
            frame[3] = CS_WB_CURRENT_ROW;
        }
        int *fa = cs_xcalloc((size_t)f->n_args + 6, sizeof *fa);
        memcpy(fa, frame, sizeof frame);
        memcpy(fa + 5, ords + k, sizeof *ords * (size_t)f->n_args);
        cs_phys_py_udf *d = &n->py_udfs[i];
        copy_udf(d, f, ords + k, &k);
        free(d->args);
        d->args = fa;
        d->n_args += 5;
        if (d->arg_names) { /* the names after the frame's 5 values */
            char **names = cs_xcalloc((size_t)d->n_args, sizeof *names);
            memcpy(names + 5, d->arg_names, sizeof *names * (size_t)f->n_args);
            free(d->arg_names);
            d->arg_names = names;
        }
    }
    free(ords);
    if (rc != 0) {
        cs_phys_free(in.node);
        return -1;
    }
    *out = in;
    return 0;
}
