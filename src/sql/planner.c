/*
 * planner.c — Spark's SparkPlanner and EnsureRequirements (planner.h): the walk over an
 * optimized logical plan that picks each node's physical operator, puts the exchanges where
 * the next operator needs its input distributed (hash by keys, one partition, broadcast), and
 * binds every expression to its input's columns. Scans are planner_scan.c's; joins
 * planner_join.c's; aggregates, windows, expand and generate planner_agg.c's. Also tolerates plans
 * that are only analyzed (SUBQUERY_ALIAS and HINT pass through, DISTINCT is an aggregate) so that a
 * statement can run without the optimizer's rewrites.
 *
 * Called by the session's statement runner (and the tests' local runner). Ownership: the input
 * plan is read only; the planner's own expressions live in a private arena freed at the end;
 * the physical tree is the caller's.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/planner_bind.h"
#include "sql/planner_internal.h"
#include "sqlexec/sql_error.h"

struct cs_pl_scalar {
    const cs_logical_plan *plan;
    cs_sql_expr *value; /* a LITERAL in the planner's arena */
    cs_pl_scalar *next;
};

void cs_sql_planner_conf_default(cs_sql_planner_conf *c, int default_parallelism)
{
    c->shuffle_partitions = 200;
    c->auto_broadcast_threshold = 10LL << 20;
    c->max_partition_bytes = 128LL << 20;
    c->open_cost_bytes = 4LL << 20;
    c->min_partitions = default_parallelism > 0 ? default_parallelism : 1;
    c->leaf_parallelism = c->min_partitions;
    c->partition_type_inference = true;
    c->python_exec = "python3";
    c->arrow_max_records = 10000;
    c->pandas_columns_by_name = true;
}

/* ---- helpers shared with planner_agg.c and planner_scan.c ---- */

int cs_pl_unsupported(cs_pl_ctx *c, const char *what)
{
    return cs_sql_error_set(c->err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                            "The feature is not supported: %s.", what);
}

cs_col_type *cs_pl_schema_of(cs_sql_expr *const *attrs, int n)
{
    cs_col_field *f = cs_xcalloc((size_t)(n > 0 ? n : 1), sizeof *f);
    for (int i = 0; i < n; i++)
        f[i] = (cs_col_field){(char *)attrs[i]->name, cs_col_type_ref(attrs[i]->type),
                              attrs[i]->nullable};
    cs_col_type *t = cs_col_type_struct(f, n);
    free(f);
    return t;
}

cs_phys_node *cs_pl_node(cs_pl_ctx *c, cs_phys_kind kind, cs_sql_expr **attrs, int n,
                         int n_children)
{
    /* a node without columns (SELECT without FROM reads a one-row, no-column scan) is struct<> */
    cs_phys_node *node = cs_phys_new(kind, cs_pl_schema_of(attrs, attrs ? n : 0), n_children);
    node->id = c->next_node_id++;
    return node;
}

cs_sql_expr *cs_pl_new_attr(cs_pl_ctx *c, const char *name, cs_col_type *type, bool nullable)
{
    cs_sql_expr *a = cs_sql_expr_new(c->arena, CS_EX_ATTR, 0);
    a->name = cs_sql_strdup(c->arena, name ? name : "");
    a->type = type;
    a->nullable = nullable;
    a->resolved = true;
    a->id = c->next_id--;
    return a;
}

cs_sql_expr *cs_pl_attr_of(cs_pl_ctx *c, const cs_sql_expr *named)
{
    if (named->kind == CS_EX_ATTR) return (cs_sql_expr *)named;
    cs_sql_expr *a = cs_sql_expr_new(c->arena, CS_EX_ATTR, 0);
    a->name = named->name;
    a->type = named->type;
    a->nullable = named->nullable;
    a->resolved = true;
    a->id = named->id;
    return a;
}

int cs_pl_find(cs_sql_expr *const *attrs, int n, cs_expr_id id)
{
    for (int i = 0; i < n; i++)
        if (attrs[i]->id == id) return i;
    return -1;
}

/* the flags of a and b's trees that their printed text leaves out: first(x) and first(x, true)
 * both print as Spark's "first(x)", yet are different aggregates; a map, array or struct literal
 * prints as "<literal>" whatever it holds */
static bool same_unprinted_flags(const cs_sql_expr *a, const cs_sql_expr *b)
{
    if (!a || !b) return a == b;
    if (a->ignore_nulls != b->ignore_nulls || a->n_args != b->n_args) return false;
    if (a->kind == CS_EX_LITERAL && b->kind == CS_EX_LITERAL && a->literal && b->literal &&
        !cs_column_equal(a->literal, b->literal))
        return false;
    for (int i = 0; i < a->n_args; i++)
        if (!same_unprinted_flags(a->args[i], b->args[i])) return false;
    return same_unprinted_flags(a->filter, b->filter);
}

bool cs_pl_same_expr(const cs_sql_expr *a, const cs_sql_expr *b)
{
    if (a == b) return true;
    if (a->kind != b->kind) return false;
    if (a->kind == CS_EX_ATTR) return a->id == b->id;
    if (!same_unprinted_flags(a, b)) return false;
    cs_sbuf x = {0}, y = {0};
    cs_sql_expr_print(a, &x);
    cs_sql_expr_print(b, &y);
    bool same = x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
    cs_sbuf_free(&x);
    cs_sbuf_free(&y);
    return same;
}

cs_sql_expr *cs_pl_replace(cs_pl_ctx *c, const cs_sql_expr *e, cs_sql_expr *const *from,
                           cs_sql_expr *const *to, int n)
{
    if (!e) return NULL;
    if (e->kind != CS_EX_ATTR && e->kind != CS_EX_LITERAL && e->kind != CS_EX_ALIAS)
        for (int i = 0; i < n; i++)
            if (cs_pl_same_expr(e, from[i])) return to[i];
    if (e->kind == CS_EX_SCALAR_SUBQUERY || e->kind == CS_EX_EXISTS || e->kind == CS_EX_IN_SUBQUERY)
        return (cs_sql_expr *)e;
    cs_sql_expr *r = NULL;
    for (int i = 0; i < e->n_args; i++) {
        cs_sql_expr *a = cs_pl_replace(c, e->args[i], from, to, n);
        if (a == e->args[i]) continue;
        if (!r) r = cs_sql_expr_copy(c->arena, e);
        r->args[i] = a;
    }
    return r ? r : (cs_sql_expr *)e;
}

/* e with its uncorrelated scalar subqueries run (planned, then ctx->run_scalar) and replaced
 * by their value; NULL + err on failure. */
static cs_sql_expr *run_subqueries(cs_pl_ctx *c, const cs_sql_expr *e)
{
    if (!e) return NULL;
    if (e->kind == CS_EX_SCALAR_SUBQUERY) {
        for (cs_pl_scalar *s = c->scalars; s; s = s->next)
            if (s->plan == e->subquery) return s->value;
        if (!c->pc->run_scalar) {
            cs_pl_unsupported(c, "a scalar subquery without a runner");
            return NULL;
        }
        cs_phys_node *sub = NULL;
        if (cs_sql_plan(c->pc, e->subquery, &sub, c->err) != 0) return NULL;
        cs_column *v = NULL;
        int rc = c->pc->run_scalar(c->pc->arg, sub, &v, c->err);
        cs_phys_free(sub);
        if (rc != 0) return NULL;
        cs_sql_expr *lit = cs_sql_expr_literal(c->arena, v);
        lit->type = e->type;
        lit->nullable = true;
        lit->resolved = true;
        cs_pl_scalar *s = cs_sql_alloc(c->arena, sizeof *s);
        *s = (cs_pl_scalar){e->subquery, lit, c->scalars};
        c->scalars = s;
        return lit;
    }
    cs_sql_expr *r = NULL;
    for (int i = 0; i < e->n_args; i++) {
        if (!e->args[i]) continue;
        cs_sql_expr *a = run_subqueries(c, e->args[i]);
        if (!a) return NULL;
        if (a == e->args[i]) continue;
        if (!r) r = cs_sql_expr_copy(c->arena, e);
        r->args[i] = a;
    }
    return r ? r : (cs_sql_expr *)e;
}

int cs_pl_bind(cs_pl_ctx *c, const cs_sql_expr *e, cs_sql_expr *const *attrs, int n, cs_pexpr **out)
{
    const cs_sql_expr *r = run_subqueries(c, e);
    if (!r) return -1;
    return cs_sql_bind_expr(r, attrs, n, out, c->err) < 0 ? -1 : 0;
}

int cs_pl_project(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *exprs, int n)
{
    cs_sql_expr **attrs = cs_sql_alloc(c->arena, sizeof *attrs * (size_t)(n + 1));
    cs_pexpr **bound = cs_xcalloc((size_t)(n + 1), sizeof *bound);
    for (int i = 0; i < n; i++) {
        attrs[i] = cs_pl_attr_of(c, exprs[i]);
        if (cs_pl_bind(c, exprs[i], in->attrs, in->n, &bound[i]) != 0) {
            for (int j = 0; j < i; j++)
                cs_pexpr_free(bound[j]);
            free(bound);
            return -1;
        }
    }
    cs_phys_node *p = cs_pl_node(c, CS_PH_PROJECT, attrs, n, 1);
    p->children[0] = in->node;
    p->exprs = bound;
    p->n_exprs = n;
    cs_pl_out was = *in;
    *in = (cs_pl_out){p, attrs, n, NULL, 0, 0};
    cs_pl_keep_partitioning(in, &was);
    return 0;
}

int cs_pl_columns(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *exprs, int n, int *ords)
{
    cs_sql_expr **extra = cs_sql_alloc(c->arena, sizeof *extra * (size_t)(n + 1));
    int n_extra = 0;
    for (int i = 0; i < n; i++) {
        const cs_sql_expr *e = exprs[i];
        if (e->kind == CS_EX_ALIAS) e = e->args[0];
        ords[i] = e->kind == CS_EX_ATTR ? cs_pl_find(in->attrs, in->n, e->id) : -1;
        if (ords[i] >= 0) continue;
        int j = 0;
        while (j < n_extra && !cs_pl_same_expr(extra[j]->args[0], e))
            j++;
        if (j == n_extra) {
            cs_sbuf name = {0};
            cs_sql_expr_pretty_name(e, &name);
            cs_sql_expr *a = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
            a->args[0] = (cs_sql_expr *)e;
            a->name = cs_sql_strdup(c->arena, name.data ? name.data : "");
            cs_sbuf_free(&name);
            a->type = e->type;
            a->nullable = e->nullable;
            a->resolved = true;
            a->id = c->next_id--;
            extra[n_extra++] = a;
        }
        ords[i] = -2 - j;
    }
    if (n_extra == 0) return 0;
    /* keys and arguments calling Python UDFs: the UDFs run below the project */
    if (cs_pl_python_udfs(c, in, extra, n_extra, &extra) != 0) return -1;
    int base = in->n;
    cs_sql_expr **all = cs_sql_alloc(c->arena, sizeof *all * (size_t)(base + n_extra));
    if (base) memcpy(all, in->attrs, sizeof *all * (size_t)base);
    if (n_extra) memcpy(all + base, extra, sizeof *all * (size_t)n_extra);
    if (cs_pl_project(c, in, all, base + n_extra) != 0) return -1;
    for (int i = 0; i < n; i++)
        if (ords[i] <= -2) ords[i] = base + (-2 - ords[i]);
    return 0;
}

bool cs_pl_partitioned_by(const cs_pl_out *in, const int *keys, int n_keys, int n, bool exact)
{
    if (in->n_part == 0 || in->part_n != n || (exact && in->n_part != n_keys)) return false;
    for (int i = 0; i < in->n_part; i++) {
        if (exact) {
            if (in->attrs[keys[i]]->id != in->part[i]) return false;
            continue;
        }
        int k = 0;
        while (k < n_keys && in->attrs[keys[k]]->id != in->part[i])
            k++;
        if (k == n_keys) return false;
    }
    return true;
}

void cs_pl_keep_partitioning(cs_pl_out *to, const cs_pl_out *from)
{
    to->part = NULL;
    to->n_part = to->part_n = 0;
    for (int i = 0; i < from->n_part; i++)
        if (cs_pl_find(to->attrs, to->n, from->part[i]) < 0) return;
    to->part = from->part;
    to->n_part = from->n_part;
    to->part_n = from->part_n;
}

void cs_pl_exchange(cs_pl_ctx *c, cs_pl_out *in, cs_phys_partitioning_kind kind, const int *keys,
                    int n_keys, int num_partitions)
{
    cs_phys_node *x = cs_pl_node(c, CS_PH_EXCHANGE, in->attrs, in->n, 1);
    x->children[0] = in->node;
    if (kind == CS_PART_HASH && n_keys == 0) kind = CS_PART_SINGLE;
    x->partitioning = kind;
    x->num_partitions = kind == CS_PART_SINGLE ? 1 : num_partitions;
    in->part = NULL;
    in->n_part = in->part_n = 0;
    if (kind == CS_PART_HASH) {
        in->part = cs_sql_alloc(c->arena, sizeof *in->part * (size_t)n_keys);
        for (int i = 0; i < n_keys; i++)
            in->part[i] = in->attrs[keys[i]]->id;
        in->n_part = n_keys;
        in->part_n = num_partitions;
        x->exprs = cs_xcalloc((size_t)n_keys, sizeof *x->exprs);
        x->n_exprs = n_keys;
        for (int i = 0; i < n_keys; i++) {
            const cs_sql_expr *a = in->attrs[keys[i]];
            x->exprs[i] = cs_pexpr_column(keys[i], cs_col_type_ref(a->type), a->nullable);
        }
    }
    in->node = x;
}

cs_col_type *cs_pl_op_schema(const cs_col_type *in, cs_pl_op_maker make, void *arg, cs_error *err)
{
    cs_sql_op *src = cs_sql_op_batches(cs_col_type_ref((cs_col_type *)in), NULL, 0);
    cs_sql_op *op = make(src, arg, err);
    if (!op) return NULL;
    cs_col_type *t = cs_col_type_ref(op->schema);
    cs_sql_op_free(op);
    return t;
}

/* ---- literals and conjuncts ---- */

static int literal_int64(cs_pl_ctx *c, const cs_sql_expr *e, int64_t *v)
{
    if (!e || e->kind != CS_EX_LITERAL || !e->literal || !cs_column_is_valid(e->literal, 0))
        return cs_pl_unsupported(c, "a LIMIT or OFFSET that is not a constant");
    switch (e->literal->type->id) {
    case CS_TYPE_INT:
        *v = ((const int32_t *)(const void *)e->literal->values)[0];
        return 0;
    case CS_TYPE_LONG:
        *v = ((const int64_t *)(const void *)e->literal->values)[0];
        return 0;
    default:
        return cs_pl_unsupported(c, "a LIMIT or OFFSET that is not an integer");
    }
}

/* ---- sort, top-n, limit, offset ---- */

static int sort_keys_of(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *order, int n,
                        cs_sort_key **keys)
{
    cs_sql_expr **vals = cs_sql_alloc(c->arena, sizeof *vals * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        vals[i] = cs_pl_collation_key(c, order[i]->kind == CS_EX_SORT_ORDER ? order[i]->args[0]
                                                                            : order[i]);
    int *ords = cs_xcalloc((size_t)(n + 1), sizeof *ords);
    if (cs_pl_columns(c, in, vals, n, ords) != 0) {
        free(ords);
        return -1;
    }
    *keys = cs_xcalloc((size_t)(n + 1), sizeof **keys);
    for (int i = 0; i < n; i++) {
        bool desc = order[i]->kind == CS_EX_SORT_ORDER && order[i]->descending;
        bool nf = order[i]->kind == CS_EX_SORT_ORDER ? order[i]->nulls_first : !desc;
        (*keys)[i] = (cs_sort_key){ords[i], desc, nf};
    }
    free(ords);
    return 0;
}

static cs_phys_node *unary(cs_pl_ctx *c, cs_phys_kind kind, cs_pl_out *in)
{
    cs_phys_node *n = cs_pl_node(c, kind, in->attrs, in->n, 1);
    n->children[0] = in->node;
    in->node = n;
    return n;
}

/* Whether Spark's RowOrdering.isOrderable holds for t: atomic types, and structs and arrays of
 * orderable types (not maps, variants, calendar intervals). */
static bool orderable(const cs_col_type *t)
{
    if (cs_col_type_is_variant(t)) return false;
    switch (t->id) {
    case CS_TYPE_MAP:
    case CS_TYPE_INTERVAL_CAL:
        return false;
    case CS_TYPE_ARRAY:
    case CS_TYPE_STRUCT:
        for (int i = 0; i < t->n_fields; i++)
            if (!orderable(t->fields[i].type)) return false;
        return true;
    default:
        return true;
    }
}

/* Spark's Sample(lower, upper, with replacement, seed) as SampleExec (sqlexec/op_sample.c):
 * without replacement a partition's XORShiftRandom (seeded with seed + the partition index, the
 * draws of rand(seed)) keeps the rows whose draw is in [lower, upper); with replacement each row
 * comes out by its PoissonSampler count. A randomSplit's sample (deterministic_order) first sorts
 * each partition by every orderable column ascending, as the Connect planner does, so that the
 * splits of one seed see the same order. */
static int plan_sample(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    if (cs_pl_plan(c, p->children[0], out) != 0) return -1;
    if (p->deterministic_order) {
        int n = out->n, k = 0;
        cs_sql_expr **attrs = out->attrs;
        cs_sql_expr **keys = cs_sql_alloc(c->arena, sizeof *keys * (size_t)(n + 1));
        for (int i = 0; i < n; i++)
            if (orderable(attrs[i]->type)) keys[k++] = attrs[i];
        if (k > 0) {
            cs_sort_key *sk = NULL;
            if (sort_keys_of(c, out, keys, k, &sk) != 0) {
                cs_phys_free(out->node);
                return -1;
            }
            cs_phys_node *s = unary(c, CS_PH_SORT, out);
            s->sort_keys = sk;
            s->n_sort_keys = k;
            s->global = false;
            if (out->n != n && cs_pl_exact(c, out, attrs, n) != 0) {
                cs_phys_free(out->node);
                return -1;
            }
        }
    }
    cs_phys_node *s = unary(c, CS_PH_SAMPLE, out);
    s->sample_lower = p->sample_lower;
    s->sample_upper = p->sample_upper;
    s->with_replacement = p->with_replacement;
    s->seed = p->seed;
    return 0;
}

static int plan_sort(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    if (cs_pl_plan(c, p->children[0], out) != 0) return -1;
    cs_sort_key *keys = NULL;
    if (sort_keys_of(c, out, p->order, p->n_order, &keys) != 0) goto fail;
    if (p->global) { /* EnsureRequirements: OrderedDistribution -> RangePartitioning */
        cs_pl_exchange(c, out, CS_PART_RANGE, NULL, 0, c->pc->conf.shuffle_partitions);
        out->node->sort_keys = cs_xcalloc((size_t)p->n_order + 1, sizeof *keys);
        memcpy(out->node->sort_keys, keys, sizeof *keys * (size_t)p->n_order);
        out->node->n_sort_keys = p->n_order;
    }
    cs_phys_node *s = unary(c, CS_PH_SORT, out);
    s->sort_keys = keys;
    s->n_sort_keys = p->n_order;
    s->global = p->global;
    return 0;
fail:
    cs_phys_free(out->node);
    return -1;
}

/* TakeOrderedAndProject: a top-n per partition, one partition, the top-n of those; then the
 * project between the limit and the sort, if any. */
static int plan_top_n(cs_pl_ctx *c, const cs_logical_plan *sort, const cs_logical_plan *proj,
                      int64_t limit, int64_t offset, cs_pl_out *out)
{
    if (cs_pl_plan(c, sort->children[0], out) != 0) return -1;
    cs_sort_key *keys = NULL;
    if (sort_keys_of(c, out, sort->order, sort->n_order, &keys) != 0) {
        cs_phys_free(out->node);
        return -1;
    }
    cs_phys_node *local = unary(c, CS_PH_TOP_N, out);
    local->sort_keys = keys;
    local->n_sort_keys = sort->n_order;
    local->limit = limit + offset;
    cs_pl_exchange(c, out, CS_PART_SINGLE, NULL, 0, 1);
    cs_phys_node *top = unary(c, CS_PH_TOP_N, out);
    top->sort_keys = cs_xcalloc((size_t)(sort->n_order + 1), sizeof *top->sort_keys);
    memcpy(top->sort_keys, keys, sizeof *keys * (size_t)sort->n_order);
    top->n_sort_keys = sort->n_order;
    top->limit = limit;
    top->offset = offset;
    top->global = true;
    if (proj && cs_pl_project(c, out, proj->exprs, proj->n_exprs) != 0) {
        cs_phys_free(out->node);
        return -1;
    }
    return 0;
}

static int plan_limit(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    int64_t limit = -1, offset = 0;
    const cs_logical_plan *child = p;
    if (p->kind == CS_LP_LIMIT) {
        if (literal_int64(c, p->limit, &limit) != 0) return -1;
        child = p->children[0];
    }
    if (child->kind == CS_LP_OFFSET) {
        if (literal_int64(c, child->limit, &offset) != 0) return -1;
        child = child->children[0];
    }
    if (p->kind == CS_LP_LIMIT && p->local_limit) {
        /* LocalLimit (LimitPushDown's): at most `limit` rows per partition, no exchange */
        if (cs_pl_plan(c, child, out) != 0) return -1;
        unary(c, CS_PH_LIMIT, out)->limit = limit;
        return 0;
    }
    if (limit >= 0) {
        const cs_logical_plan *proj = NULL, *s = child;
        if (s->kind == CS_LP_PROJECT) {
            proj = s;
            s = s->children[0];
        }
        if (s->kind == CS_LP_SORT && s->global) return plan_top_n(c, s, proj, limit, offset, out);
    }
    if (cs_pl_plan(c, child, out) != 0) return -1;
    if (limit >= 0) {
        cs_phys_node *local = unary(c, CS_PH_LIMIT, out);
        local->limit = limit + offset;
    }
    cs_pl_exchange(c, out, CS_PART_SINGLE, NULL, 0, 1);
    cs_phys_node *g = unary(c, CS_PH_LIMIT, out);
    g->limit = limit;
    g->offset = offset;
    g->global = true;
    return 0;
}

/* ---- leaves and the rest ---- */

/* Projects in to exactly the attributes want[0..n) (ids, order and names) unless it is so. */
int cs_pl_exact(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *want, int n)
{
    bool same = in->n == n;
    for (int i = 0; same && i < n; i++)
        same = in->attrs[i]->id == want[i]->id &&
               strcmp(in->node->schema->fields[i].name, want[i]->name) == 0;
    if (same) return 0;
    return cs_pl_project(c, in, want, n);
}

static int plan_union(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    if (p->set_op != CS_SET_UNION)
        return cs_pl_unsupported(c, "INTERSECT / EXCEPT that the optimizer did not rewrite");
    cs_phys_node *u = cs_pl_node(c, CS_PH_UNION, p->output, p->n_output, p->n_children);
    for (int i = 0; i < p->n_children; i++) {
        cs_pl_out ch;
        const cs_logical_plan *lc = p->children[i];
        if (cs_pl_plan(c, lc, &ch) != 0 || cs_pl_exact(c, &ch, lc->output, lc->n_output) != 0) {
            cs_phys_free(u);
            return -1;
        }
        u->children[i] = ch.node;
    }
    *out = (cs_pl_out){u, p->output, p->n_output, NULL, 0, 0};
    if (!p->all) return cs_pl_distinct(c, NULL, out);
    return 0;
}

/* VALUES the analyzer resolved as expressions (rows × columns): evaluated now, one batch per
 * row, as Spark's ConvertToLocalRelation folds them when optimizing. */
static int values_batches(cs_pl_ctx *c, const cs_logical_plan *p, cs_phys_node *n)
{
    int rows = p->n_rows, cols = p->n_output;
    cs_sql_exec_ctx x = {.alloc = cs_col_default_allocator(), .ansi = true, .session_tz = "UTC"};
    cs_col_batch *one = cs_col_batch_new(cs_col_type_struct(NULL, 0), NULL, 0, 1, c->err);
    if (!one) return -1;
    n->batches = cs_xcalloc((size_t)(rows + 1), sizeof *n->batches);
    cs_column **vals = cs_xcalloc((size_t)(cols + 1), sizeof *vals);
    int rc = 0;
    for (int i = 0; i < rows && rc == 0; i++) {
        int made = 0;
        for (int j = 0; j < cols && rc == 0; j++, made++) {
            const cs_sql_expr *v = p->exprs[i * cols + j];
            if (v->kind == CS_EX_CAST && v->args[0]->kind == CS_EX_LITERAL &&
                !cs_column_is_valid(v->args[0]->literal, 0)) { /* a typed NULL */
                cs_col_builder *b = cs_col_builder_new(NULL, n->schema->fields[j].type);
                cs_col_builder_append_nulls(b, 1);
                vals[j] = cs_col_builder_finish(b);
                cs_col_builder_free(b);
                continue;
            }
            cs_pexpr *e = NULL;
            cs_pexpr_program *pg = NULL;
            rc = cs_pl_bind(c, v, NULL, 0, &e);
            if (rc == 0 && !(pg = cs_pexpr_compile(e, one->schema, c->err))) rc = -1;
            if (rc == 0 && cs_pexpr_eval(pg, one, &x, &vals[j], c->err) != 0) rc = -1;
            cs_pexpr_program_free(pg);
            cs_pexpr_free(e);
            if (rc != 0) break;
        }
        if (rc != 0) {
            for (int j = 0; j < made; j++)
                cs_column_unref(vals[j]);
            break;
        }
        n->batches[i] = cs_col_batch_new(cs_col_type_ref(n->schema), vals, cols, 1, c->err);
        if (!n->batches[i]) rc = -1;
        n->n_batches = i + (rc == 0);
    }
    free(vals);
    cs_col_batch_unref(one);
    return rc;
}

static int plan_local(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    cs_phys_node *n = cs_pl_node(c, CS_PH_LOCAL, p->output, p->n_output, 0);
    n->local_origin = (int)p->local_origin;
    if (p->local_origin == CS_LOCAL_CACHED) n->storage_level = cs_xstrdup(p->local_note);
    if (p->kind == CS_LP_ONE_ROW) {
        cs_col_batch *b = cs_col_batch_new(cs_col_type_struct(NULL, 0), NULL, 0, 1, c->err);
        if (!b) {
            cs_phys_free(n);
            return -1;
        }
        n->batches = cs_xcalloc(1, sizeof *n->batches);
        n->batches[0] = b;
        n->n_batches = 1;
    } else if (p->n_batches == 0 && p->n_rows > 0 && p->exprs) {
        if (values_batches(c, p, n) != 0) {
            cs_phys_free(n);
            return -1;
        }
    } else {
        n->batches = cs_xcalloc((size_t)(p->n_batches + 1), sizeof *n->batches);
        for (int i = 0; i < p->n_batches; i++)
            n->batches[i] = cs_col_batch_ref(p->batches[i]);
        n->n_batches = p->n_batches;
    }
    if (p->kind != CS_LP_ONE_ROW) { /* LocalTableScanExec: parallelize(rows, min(rows, leaf)) */
        int64_t rows = 0;
        for (int i = 0; i < n->n_batches; i++)
            rows += n->batches[i]->num_rows;
        int leaf = c->pc->conf.leaf_parallelism > 0 ? c->pc->conf.leaf_parallelism : 1;
        n->num_slices = c->local_one_slice ? 0 : rows < leaf ? (int)rows : leaf;
    }
    c->local_one_slice = false;
    *out = (cs_pl_out){n, p->output, p->n_output, NULL, 0, 0};
    return 0;
}

/* Spark's ConvertToLocalRelation evaluates a projection or filter of a LocalRelation when it
 * optimizes (partition 0, every row; PullOutNondeterministic has made an aggregate's
 * nondeterministic keys such a projection) and slices the result afresh: local rows under a
 * nondeterministic one (spark_partition_id(), rand(), monotonically_increasing_id(); no Python
 * UDF: Spark's are unevaluable) are read as one partition, so that it sees what Spark's folding
 * sees. Sets c->local_one_slice for plan_local. */
static void local_folded(cs_pl_ctx *c, const cs_logical_plan *p)
{
    const cs_logical_plan *ch = p->children[0];
    while (ch->kind == CS_LP_PROJECT || ch->kind == CS_LP_SUBQUERY_ALIAS) /* pruning's */
        ch = ch->children[0];
    if (ch->kind != CS_LP_LOCAL_RELATION || ch->local_origin != CS_LOCAL_ROWS) return;
    cs_sql_expr *const *lists[2] = {p->kind == CS_LP_FILTER ? &p->condition : p->exprs,
                                    p->kind == CS_LP_AGGREGATE ? p->group_by : NULL};
    int ns[2] = {p->kind == CS_LP_FILTER ? 1 : p->n_exprs,
                 p->kind == CS_LP_AGGREGATE ? p->n_group_by : 0};
    bool nondeterministic = false;
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < ns[l]; i++) {
            if (cs_pl_has_python_udf(lists[l][i])) return;
            nondeterministic |= !cs_sql_expr_deterministic(lists[l][i]);
        }
    if (nondeterministic) c->local_one_slice = true; /* plan_local clears it */
}

/* Repartition(n, false): CoalesceExec (the child's partitions merged, no exchange); the
 * others a ShuffleExchangeExec: Repartition(n, true) RoundRobinPartitioning(n),
 * RepartitionByExpression hash partitioning by its expressions (range partitioning when they
 * are sort orders; round-robin over spark.sql.shuffle.partitions when it has none),
 * RebalancePartitions the same with its own shuffle origins. Only an explicit count of
 * Repartition / RepartitionByExpression stays as the user's (adaptive execution keeps it). */
static int plan_repartition(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    if (cs_pl_plan(c, p->children[0], out) != 0) return -1;
    if (!p->shuffle) { /* CoalesceExec: outputPartitioning Unknown (Single for 1) */
        cs_phys_node *x = unary(c, CS_PH_COALESCE, out);
        x->num_partitions = (int)p->num_partitions;
        out->part = NULL;
        out->n_part = out->part_n = 0;
        return 0;
    }
    int num = p->num_partitions > 0 ? (int)p->num_partitions : c->pc->conf.shuffle_partitions;
    bool range = p->n_exprs > 0 && p->exprs[0]->kind == CS_EX_SORT_ORDER;
    cs_sort_key *keys = NULL;
    if (range && sort_keys_of(c, out, p->exprs, p->n_exprs, &keys) != 0) goto fail;
    cs_phys_node *x = unary(c, CS_PH_EXCHANGE, out);
    out->part = NULL;
    out->n_part = out->part_n = 0;
    x->num_partitions = num;
    x->user_partitions = p->num_partitions > 0 && !p->rebalance;
    x->partitioning = range ? CS_PART_RANGE : p->n_exprs > 0 ? CS_PART_HASH : CS_PART_ROUND_ROBIN;
    x->shuffle_origin =
        p->rebalance ? (p->n_exprs ? CS_ORIGIN_REBALANCE_BY_COL : CS_ORIGIN_REBALANCE_BY_NONE)
        : !p->by_expression     ? CS_ORIGIN_REPARTITION_BY_NUM
        : p->num_partitions > 0 ? CS_ORIGIN_REPARTITION_BY_NUM
        : p->n_exprs > 0        ? CS_ORIGIN_REPARTITION_BY_COL
                                : CS_ORIGIN_REBALANCE_BY_NONE;
    if (range) {
        x->sort_keys = keys;
        x->n_sort_keys = p->n_exprs;
        return 0;
    }
    if (p->n_exprs > 0) {
        x->exprs = cs_xcalloc((size_t)p->n_exprs, sizeof *x->exprs);
        x->n_exprs = p->n_exprs;
        /* x's child is the previous node: bind over its attributes (the same as out's) */
        for (int i = 0; i < p->n_exprs; i++)
            if (cs_pl_bind(c, p->exprs[i], out->attrs, out->n, &x->exprs[i]) != 0) goto fail;
    }
    return 0;
fail:
    cs_phys_free(out->node);
    return -1;
}

int cs_pl_plan(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    switch (p->kind) {
    case CS_LP_RELATION:
        return cs_pl_scan(c, p, NULL, out);
    case CS_LP_FILTER: {
        if (p->children[0]->kind == CS_LP_RELATION && !cs_pl_has_python_udf(p->condition))
            return cs_pl_scan(c, p->children[0], p->condition, out);
        local_folded(c, p);
        if (cs_pl_plan(c, p->children[0], out) != 0) return -1;
        cs_sql_expr **cond = NULL;
        if (cs_pl_python_udfs(c, out, &p->condition, 1, &cond) != 0) {
            cs_phys_free(out->node);
            return -1;
        }
        cs_phys_node *f = unary(c, CS_PH_FILTER, out);
        if (cs_pl_bind(c, cond[0], out->attrs, out->n, &f->condition) != 0) {
            cs_phys_free(out->node);
            return -1;
        }
        return 0;
    }
    case CS_LP_PROJECT: {
        local_folded(c, p);
        if (cs_pl_plan(c, p->children[0], out) != 0) return -1;
        cs_sql_expr **exprs = NULL;
        if (cs_pl_python_udfs(c, out, p->exprs, p->n_exprs, &exprs) != 0 ||
            cs_pl_project(c, out, exprs, p->n_exprs) != 0) {
            cs_phys_free(out->node);
            return -1;
        }
        return 0;
    }
    case CS_LP_AGGREGATE:
        local_folded(c, p);
        return cs_pl_aggregate(c, p, out);
    case CS_LP_DISTINCT: {
        cs_logical_plan *agg = cs_pl_distinct_as_aggregate(c, p);
        if (agg) return cs_pl_aggregate(c, agg, out);
        if (cs_pl_plan(c, p->children[0], out) != 0) return -1;
        return cs_pl_distinct(c, p, out);
    }
    case CS_LP_JOIN:
        return cs_pl_join(c, p, out);
    case CS_LP_SORT:
        return plan_sort(c, p, out);
    case CS_LP_LIMIT:
    case CS_LP_OFFSET:
        return plan_limit(c, p, out);
    case CS_LP_SET_OP:
        return plan_union(c, p, out);
    case CS_LP_WINDOW:
        return cs_pl_window(c, p, out);
    case CS_LP_EXPAND:
        return cs_pl_expand(c, p, out);
    case CS_LP_GENERATE:
        return cs_pl_generate(c, p, out);
    case CS_LP_PYTHON_GROUP_MAP:
        return cs_pl_python_group_map(c, p, out);
    case CS_LP_PYTHON_MAP_IN_BATCH:
        return cs_pl_python_map_in_batch(c, p, out);
    case CS_LP_PYTHON_COGROUP_MAP:
        return cs_pl_python_cogroup_map(c, p, out);
    case CS_LP_LOCAL_RELATION:
    case CS_LP_ONE_ROW:
        return plan_local(c, p, out);
    case CS_LP_RANGE: {
        cs_phys_node *n = cs_pl_node(c, CS_PH_RANGE, p->output, p->n_output, 0);
        n->range_start = p->range_start;
        n->range_end = p->range_end;
        n->range_step = p->range_step;
        n->num_slices =
            p->num_partitions > 0 ? (int)p->num_partitions : c->pc->conf.leaf_parallelism;
        *out = (cs_pl_out){n, p->output, p->n_output, NULL, 0, 0};
        return 0;
    }
    case CS_LP_REPARTITION:
        return plan_repartition(c, p, out);
    case CS_LP_SUBQUERY_ALIAS:
    case CS_LP_HINT:
    case CS_LP_WITH:
        return cs_pl_plan(c, p->children[0], out);
    case CS_LP_SAMPLE:
        return plan_sample(c, p, out);
    default:
        return cs_pl_unsupported(c, "a logical plan node the planner does not know");
    }
}

int cs_sql_plan(const cs_sql_planner_ctx *ctx, const cs_logical_plan *plan, cs_phys_node **out,
                cs_error *err)
{
    cs_pl_ctx c = {.pc = ctx, .arena = cs_sql_arena_new(), .next_id = -1, .err = err};
    cs_pl_out o;
    int rc = cs_pl_plan(&c, plan, &o);
    if (rc == 0 && cs_pl_exact(&c, &o, plan->output, plan->n_output) != 0) {
        cs_phys_free(o.node);
        rc = -1;
    }
    cs_sql_arena_free(c.arena);
    if (rc != 0) return err->code ? err->code : CS_EINVAL;
    *out = o.node;
    return 0;
}
