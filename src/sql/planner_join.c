/*
 * planner_join.c — the planner's join strategies (Spark's JoinSelection, planner.h): equi-keys
 * taken from the join condition, BroadcastHashJoin when hints, sizes (Spark's
 * SizeInBytesOnlyStatsPlanVisitor estimates where the optimizer left none; a pruned relation's
 * scaled to the columns it reads, as Spark's Project over the relation) and the join type
 * allow a side to be broadcast, else ShuffledHashJoin over both sides hash-partitioned by their
 * keys, BroadcastNestedLoopJoin without keys; the null-aware anti join of NOT IN; existence
 * joins as a semi and an anti join's union. The residual condition is bound over the left
 * output followed by the right. A shuffled join also names the side adaptive execution
 * materializes first (the smaller by a foreign-key estimate of joins' sizes and a guessed share
 * for filters): when it proves small enough to broadcast, the other side is never shuffled.
 *
 * Called by planner.c. Ownership: as planner.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "sql/catalog.h"
#include "sql/planner_internal.h"

static bool is_call(const cs_sql_expr *e, const char *fn, int n_args)
{
    return e && e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, fn) == 0 && e->n_args == n_args;
}

static void split_conjuncts(const cs_sql_expr *e, const cs_sql_expr **out, int *n)
{
    if (!e) return;
    if (is_call(e, "and", 2)) {
        split_conjuncts(e->args[0], out, n);
        split_conjuncts(e->args[1], out, n);
        return;
    }
    out[(*n)++] = e;
}

static int count_conjuncts(const cs_sql_expr *e)
{
    return is_call(e, "and", 2) ? count_conjuncts(e->args[0]) + count_conjuncts(e->args[1]) : 1;
}

/* Whether every attribute of e is one of attrs (and e has no outer reference). */
static bool refs_only(const cs_sql_expr *e, cs_sql_expr *const *attrs, int n)
{
    if (!e) return true;
    if (e->kind == CS_EX_ATTR) return cs_pl_find(attrs, n, e->id) >= 0;
    if (e->kind == CS_EX_OUTER_ATTR) return false;
    for (int i = 0; i < e->n_args; i++)
        if (!refs_only(e->args[i], attrs, n)) return false;
    return true;
}

static cs_sql_expr *conjunction(cs_pl_ctx *c, const cs_sql_expr **parts, int n)
{
    if (n == 0) return NULL;
    cs_sql_expr *acc = (cs_sql_expr *)parts[0];
    for (int i = 1; i < n; i++) {
        cs_sql_expr *a = cs_sql_expr_new(c->arena, CS_EX_FUNC, 2);
        a->fn = "and";
        a->args[0] = acc;
        a->args[1] = (cs_sql_expr *)parts[i];
        a->type = parts[0]->type;
        a->nullable = acc->nullable || parts[i]->nullable;
        a->resolved = true;
        acc = a;
    }
    return acc;
}

/* ---- statistics (Spark's SizeInBytesOnlyStatsPlanVisitor) ---- */

static int64_t default_size(const cs_col_type *t)
{
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
    case CS_TYPE_BYTE:
        return 1;
    case CS_TYPE_SHORT:
        return 2;
    case CS_TYPE_INT:
    case CS_TYPE_FLOAT:
    case CS_TYPE_DATE:
        return 4;
    case CS_TYPE_DECIMAL:
        return t->precision <= 18 ? 8 : 16;
    case CS_TYPE_STRING:
        return 20;
    case CS_TYPE_BINARY:
        return 100;
    default:
        return 8;
    }
}

static int64_t row_size(const cs_logical_plan *p)
{
    int64_t s = 8;
    for (int i = 0; i < p->n_output; i++)
        s += default_size(p->output[i]->type);
    return s;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0) return 0;
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* A relation's files' size, scaled to the columns column pruning left it: Spark keeps the
 * relation's every column under a Project of those read, whose size is the relation's times
 * the ratio of their row sizes (SizeInBytesOnlyStatsPlanVisitor's unary nodes). */
static int64_t relation_bytes(const cs_logical_plan *p)
{
    int64_t size = p->stat_bytes >= 0                      ? p->stat_bytes
                   : p->table && p->table->size_bytes >= 0 ? p->table->size_bytes
                                                           : INT64_MAX;
    const cs_col_type *schema = p->table ? p->table->schema : NULL;
    if (size == INT64_MAX || !schema || p->n_output >= schema->n_fields) return size;
    int64_t full = 8;
    for (int i = 0; i < schema->n_fields; i++)
        full += default_size(schema->fields[i].type);
    int64_t s = (int64_t)((double)size * (double)row_size(p) / (double)full);
    return s < 1 ? 1 : s;
}

/* The share of its input's rows a filter is guessed to keep, for ordering map stages only: half
 * per conjunct, but an isnotnull keeps all (the optimizer infers one on every inner join key,
 * on both sides alike), and never under 1/64 (the guess must not outweigh a size ratio that
 * large). Spark without statistics keeps a filter's input estimate. */
static double filter_share(const cs_sql_expr *e)
{
    if (!e) return 1.0;
    if (is_call(e, "and", 2)) {
        double s = filter_share(e->args[0]) * filter_share(e->args[1]);
        return s < 1.0 / 64 ? 1.0 / 64 : s;
    }
    return is_call(e, "isnotnull", 1) ? 1.0 : 0.5;
}

/* The estimated bytes of p's rows: Spark's estimate (a join's the product of its sides'), or,
 * with fk_joins, a join with a condition estimated as its larger side's rows (a foreign-key
 * join's) and a filter as the share of its input filter_share guesses, which orders the sides'
 * map stages (adaptive_*_first) and decides nothing else. */
static int64_t est_size(const cs_logical_plan *p, bool fk_joins)
{
    if (p->kind == CS_LP_RELATION) return relation_bytes(p);
    if (p->stat_bytes >= 0) return p->stat_bytes;
    switch (p->kind) {
    case CS_LP_LOCAL_RELATION: {
        int64_t rows = 0;
        for (int i = 0; i < p->n_batches; i++)
            rows += p->batches[i]->num_rows;
        return sat_mul(rows, row_size(p));
    }
    case CS_LP_ONE_ROW:
        return 1;
    case CS_LP_RANGE: {
        int64_t n = p->range_step ? (p->range_end - p->range_start) / p->range_step : 0;
        return sat_mul(n < 0 ? 0 : n, 8);
    }
    case CS_LP_JOIN: {
        int64_t l = est_size(p->children[0], fk_joins);
        if (p->join_type == CS_JOIN_LEFT_SEMI || p->join_type == CS_JOIN_LEFT_ANTI) return l;
        int64_t r = est_size(p->children[1], fk_joins);
        if (!fk_joins || !p->condition) return sat_mul(l, r);
        const cs_logical_plan *big = l >= r ? p->children[0] : p->children[1];
        int64_t s = l >= r ? l : r;
        if (s == INT64_MAX) return s;
        s = (int64_t)((double)s * (double)row_size(p) / (double)row_size(big));
        return s < 1 ? 1 : s;
    }
    case CS_LP_FILTER: {
        int64_t child = est_size(p->children[0], fk_joins);
        if (!fk_joins || child == INT64_MAX) return child;
        int64_t s = (int64_t)((double)child * filter_share(p->condition));
        return s < 1 ? 1 : s;
    }
    case CS_LP_SET_OP: {
        int64_t s = 0;
        for (int i = 0; i < p->n_children; i++) {
            int64_t x = est_size(p->children[i], fk_joins);
            s = x > INT64_MAX - s ? INT64_MAX : s + x;
        }
        return s;
    }
    case CS_LP_AGGREGATE:
        if (p->n_group_by == 0) return row_size(p);
        /* fall through */
    case CS_LP_PROJECT:
    case CS_LP_WINDOW:
    case CS_LP_GENERATE:
    case CS_LP_EXPAND: {
        int64_t child = est_size(p->children[0], fk_joins);
        int64_t crs = row_size(p->children[0]);
        if (child == INT64_MAX) return child;
        int64_t s = (int64_t)((double)child * (double)row_size(p) / (double)crs);
        return s < 1 ? 1 : s;
    }
    case CS_LP_LIMIT: {
        if (p->limit && p->limit->kind == CS_EX_LITERAL && p->limit->literal &&
            cs_column_is_valid(p->limit->literal, 0)) {
            int64_t n = p->limit->literal->type->id == CS_TYPE_INT
                            ? ((const int32_t *)(const void *)p->limit->literal->values)[0]
                            : ((const int64_t *)(const void *)p->limit->literal->values)[0];
            int64_t s = sat_mul(n, row_size(p));
            int64_t child = est_size(p->children[0], fk_joins);
            return s < child ? s : child;
        }
        return est_size(p->children[0], fk_joins);
    }
    default:
        return p->n_children > 0 ? est_size(p->children[0], fk_joins) : INT64_MAX;
    }
}

static int64_t est_bytes(const cs_logical_plan *p)
{
    return est_size(p, false);
}

/* ---- joins (Spark's JoinSelection) ---- */

static bool can_build_right(cs_join_type t)
{
    return t == CS_JOIN_INNER || t == CS_JOIN_CROSS || t == CS_JOIN_LEFT_OUTER ||
           t == CS_JOIN_LEFT_SEMI || t == CS_JOIN_LEFT_ANTI;
}

static bool can_build_left(cs_join_type t)
{
    return t == CS_JOIN_INNER || t == CS_JOIN_CROSS || t == CS_JOIN_RIGHT_OUTER;
}

static bool is_hint(const char *h, const char *name)
{
    return h && strcasecmp(h, name) == 0;
}

static cs_hash_join_type hj_type(cs_join_type t)
{
    switch (t) {
    case CS_JOIN_LEFT_OUTER:
        return CS_HJ_LEFT_OUTER;
    case CS_JOIN_RIGHT_OUTER:
        return CS_HJ_RIGHT_OUTER;
    case CS_JOIN_FULL_OUTER:
        return CS_HJ_FULL_OUTER;
    case CS_JOIN_LEFT_SEMI:
        return CS_HJ_LEFT_SEMI;
    case CS_JOIN_LEFT_ANTI:
        return CS_HJ_LEFT_ANTI;
    default:
        return CS_HJ_INNER;
    }
}

/* Spark's ExtractSingleColumnNullAwareAntiJoin: a NOT IN's anti join condition
 * `(a = b) OR isnull(a = b)`. */
static bool null_aware_keys(const cs_logical_plan *p, const cs_pl_out *l, const cs_pl_out *r,
                            const cs_sql_expr **lk, const cs_sql_expr **rk)
{
    const cs_sql_expr *e = p->condition;
    /* the optimizer marks the NOT IN it made (null_aware); the shape is what decides */
    if (p->join_type != CS_JOIN_LEFT_ANTI || !is_call(e, "or", 2)) return false;
    const cs_sql_expr *eq = e->args[0], *isn = e->args[1];
    if (!is_call(eq, "=", 2) || !is_call(isn, "isnull", 1) || !cs_pl_same_expr(eq, isn->args[0]))
        return false;
    if (refs_only(eq->args[0], l->attrs, l->n) && refs_only(eq->args[1], r->attrs, r->n)) {
        *lk = eq->args[0];
        *rk = eq->args[1];
        return true;
    }
    if (refs_only(eq->args[1], l->attrs, l->n) && refs_only(eq->args[0], r->attrs, r->n)) {
        *lk = eq->args[1];
        *rk = eq->args[0];
        return true;
    }
    return false;
}

static void broadcast_side(cs_pl_ctx *c, cs_pl_out *side)
{
    cs_phys_node *b = cs_pl_node(c, CS_PH_BROADCAST_EXCHANGE, side->attrs, side->n, 1);
    b->children[0] = side->node;
    side->node = b;
}

/* Spark's ExistenceJoin (the left rows, each once, with `exists`: whether a right row matches)
 * as the union of the left semi join's rows with true and the left anti join's with false. */
static int plan_existence(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    const cs_logical_plan *left = p->children[0];
    const cs_sql_expr *exists = p->output[p->n_output - 1];
    cs_phys_node *u = cs_pl_node(c, CS_PH_UNION, p->output, p->n_output, 2);
    for (int side = 0; side < 2; side++) {
        cs_logical_plan *j = cs_logical_plan_copy(c->arena, p);
        j->join_type = side == 0 ? CS_JOIN_LEFT_SEMI : CS_JOIN_LEFT_ANTI;
        cs_pl_out o;
        if (cs_pl_join(c, j, &o) != 0) {
            cs_phys_free(u);
            return -1;
        }
        cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_BOOLEAN));
        uint8_t v = side == 0;
        cs_col_builder_append_values(b, &v, 1, NULL);
        cs_sql_expr *lit = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
        cs_col_builder_free(b);
        lit->type = exists->type;
        lit->resolved = true;
        cs_sql_expr *alias = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
        alias->args[0] = lit;
        alias->name = exists->name;
        alias->id = exists->id;
        alias->type = exists->type;
        alias->resolved = true;
        cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(left->n_output + 1));
        if (left->n_output) memcpy(list, left->output, sizeof *list * (size_t)left->n_output);
        list[left->n_output] = alias;
        if (cs_pl_project(c, &o, list, left->n_output + 1) != 0) {
            cs_phys_free(o.node);
            cs_phys_free(u);
            return -1;
        }
        u->children[side] = o.node;
    }
    *out = (cs_pl_out){u, p->output, p->n_output, NULL, 0, 0};
    return 0;
}

int cs_pl_join(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    cs_join_type jt = p->join_type;
    if (jt == CS_JOIN_EXISTENCE) return plan_existence(c, p, out);
    cs_pl_out l, r;
    if (cs_pl_plan(c, p->children[0], &l) != 0) return -1;
    if (cs_pl_plan(c, p->children[1], &r) != 0) {
        cs_phys_free(l.node);
        return -1;
    }
    int nc = p->condition ? count_conjuncts(p->condition) : 0;
    const cs_sql_expr **conj = cs_sql_alloc(c->arena, sizeof *conj * (size_t)(nc + 1));
    const cs_sql_expr **rest = cs_sql_alloc(c->arena, sizeof *rest * (size_t)(nc + 1));
    cs_sql_expr **lk = cs_sql_alloc(c->arena, sizeof *lk * (size_t)(nc + 1));
    cs_sql_expr **rk = cs_sql_alloc(c->arena, sizeof *rk * (size_t)(nc + 1));
    int n = 0, n_rest = 0, n_keys = 0;
    bool naaj = false;
    const cs_sql_expr *nl, *nr;
    if (null_aware_keys(p, &l, &r, &nl, &nr)) {
        naaj = true;
        lk[0] = (cs_sql_expr *)nl;
        rk[0] = (cs_sql_expr *)nr;
        n_keys = 1;
    } else {
        split_conjuncts(p->condition, conj, &n);
        for (int i = 0; i < n; i++) {
            const cs_sql_expr *e = conj[i];
            if (is_call(e, "=", 2) && e->args[0]->type &&
                cs_col_type_equal(e->args[0]->type, e->args[1]->type)) {
                const cs_sql_expr *a = e->args[0], *b = e->args[1];
                bool ab = refs_only(a, l.attrs, l.n) && refs_only(b, r.attrs, r.n);
                bool ba = !ab && refs_only(b, l.attrs, l.n) && refs_only(a, r.attrs, r.n);
                if ((ab || ba) && !(refs_only(a, NULL, 0) || refs_only(b, NULL, 0))) {
                    /* collated keys match by their collation keys (Spark's CollationKey) */
                    lk[n_keys] = cs_pl_collation_key(c, (cs_sql_expr *)(ab ? a : b));
                    rk[n_keys++] = cs_pl_collation_key(c, (cs_sql_expr *)(ab ? b : a));
                    continue;
                }
            }
            rest[n_rest++] = e;
        }
    }
    int64_t thr = c->pc->conf.auto_broadcast_threshold;
    int64_t lsize = est_bytes(p->children[0]), rsize = est_bytes(p->children[1]);
    bool hint_r = is_hint(p->right_hint, "BROADCAST") && can_build_right(jt);
    bool hint_l = is_hint(p->left_hint, "BROADCAST") && can_build_left(jt);
    /* a SHUFFLE_HASH / MERGE / SHUFFLE_REPLICATE_NL hint asks for no broadcast */
    bool shuffle_hint = (p->left_hint && !is_hint(p->left_hint, "BROADCAST")) ||
                        (p->right_hint && !is_hint(p->right_hint, "BROADCAST"));
    bool size_r = !shuffle_hint && can_build_right(jt) && thr >= 0 && rsize <= thr;
    bool size_l = !shuffle_hint && can_build_left(jt) && thr >= 0 && lsize <= thr;
    cs_build_side build = CS_BUILD_RIGHT;
    bool broadcast = false;
    if (hint_r || hint_l) {
        broadcast = true;
        build = hint_r && (!hint_l || rsize <= lsize) ? CS_BUILD_RIGHT : CS_BUILD_LEFT;
    } else if (naaj) {
        broadcast = true;
    } else if (size_r || size_l) {
        broadcast = true;
        build = size_r && (!size_l || rsize <= lsize) ? CS_BUILD_RIGHT : CS_BUILD_LEFT;
    }

    int *lo = cs_xcalloc((size_t)(n_keys + 1), sizeof *lo);
    int *ro = cs_xcalloc((size_t)(n_keys + 1), sizeof *ro);
    cs_phys_node *j = NULL;
    if (n_keys > 0) {
        if (cs_pl_columns(c, &l, lk, n_keys, lo) != 0 || cs_pl_columns(c, &r, rk, n_keys, ro) != 0)
            goto fail;
        if (!broadcast) {
            /* shuffled hash join: the build side is the smaller one it may be. An outer join
             * may build its preserved side too (Spark's canBuildShuffledHashJoinLeft / Right),
             * when that side is much smaller (Spark's muchSmaller: 3 times): q13's left join
             * builds its customers, not their orders; q20's keeps building its aggregated
             * lineitem side, as before */
            bool bl = can_build_left(jt) || jt == CS_JOIN_FULL_OUTER ||
                      (jt == CS_JOIN_LEFT_OUTER && lsize <= rsize / 3);
            bool br = jt != CS_JOIN_RIGHT_OUTER || rsize <= lsize / 3;
            build = br && (!bl || rsize <= lsize) ? CS_BUILD_RIGHT : CS_BUILD_LEFT;
            int np = c->pc->conf.shuffle_partitions;
            if (!cs_pl_partitioned_by(&l, lo, n_keys, np, true))
                cs_pl_exchange(c, &l, CS_PART_HASH, lo, n_keys, np);
            if (!cs_pl_partitioned_by(&r, ro, n_keys, np, true))
                cs_pl_exchange(c, &r, CS_PART_HASH, ro, n_keys, np);
        }
        j = cs_phys_new(CS_PH_HASH_JOIN, NULL, 2);
        j->left_keys = lo;
        j->right_keys = ro;
        j->n_join_keys = n_keys;
        lo = ro = NULL;
        j->join_type = naaj ? CS_HJ_LEFT_ANTI_NULL_AWARE : hj_type(jt);
    } else {
        n_rest = n;
        memcpy(rest, conj, sizeof *rest * (size_t)n);
        if (jt == CS_JOIN_FULL_OUTER) {
            broadcast = false;
            build = CS_BUILD_RIGHT;
            cs_pl_exchange(c, &l, CS_PART_SINGLE, NULL, 0, 1);
            cs_pl_exchange(c, &r, CS_PART_SINGLE, NULL, 0, 1);
        } else {
            broadcast = true;
            if (!hint_r && !hint_l)
                build = can_build_right(jt) && (!can_build_left(jt) || rsize <= lsize)
                            ? CS_BUILD_RIGHT
                            : CS_BUILD_LEFT;
        }
        j = cs_phys_new(CS_PH_NESTED_LOOP_JOIN, NULL, 2);
        j->join_type = hj_type(jt);
    }
    free(lo);
    free(ro);
    j->id = c->next_node_id++;
    j->build_side = build;
    j->broadcast = broadcast;
    /* the sides adaptive execution may broadcast once their shuffle shows them small: those
     * the join type can build and no hint keeps shuffled (Spark's JoinSelection, rerun) */
    j->adaptive_build_right = !broadcast && !shuffle_hint && can_build_right(jt);
    j->adaptive_build_left = !broadcast && !shuffle_hint && can_build_left(jt);
    if (!broadcast && n_keys > 0) { /* the side likelier to prove small is materialized first */
        int64_t lo_size = est_size(p->children[0], true), ro_size = est_size(p->children[1], true);
        j->adaptive_left_first = j->adaptive_build_left && lo_size < ro_size;
        j->adaptive_right_first = j->adaptive_build_right && ro_size < lo_size;
    }
    if (n_rest > 0) {
        cs_sql_expr **both = cs_sql_alloc(c->arena, sizeof *both * (size_t)(l.n + r.n));
        memcpy(both, l.attrs, sizeof *both * (size_t)l.n);
        memcpy(both + l.n, r.attrs, sizeof *both * (size_t)r.n);
        if (cs_pl_bind(c, conjunction(c, rest, n_rest), both, l.n + r.n, &j->join_condition) != 0) {
            cs_phys_free(j);
            cs_phys_free(l.node);
            cs_phys_free(r.node);
            return -1;
        }
    }
    if (broadcast) broadcast_side(c, build == CS_BUILD_RIGHT ? &r : &l);
    j->children[0] = l.node;
    j->children[1] = r.node;

    bool semi = jt == CS_JOIN_LEFT_SEMI || jt == CS_JOIN_LEFT_ANTI;
    int n_out = semi ? l.n : l.n + r.n;
    cs_sql_expr **attrs = cs_sql_alloc(c->arena, sizeof *attrs * (size_t)(n_out + 1));
    if (l.n) memcpy(attrs, l.attrs, sizeof *attrs * (size_t)l.n);
    if (!semi && r.n) memcpy(attrs + l.n, r.attrs, sizeof *attrs * (size_t)r.n);
    j->schema = cs_pl_schema_of(attrs, n_out);
    bool null_left = jt == CS_JOIN_RIGHT_OUTER || jt == CS_JOIN_FULL_OUTER;
    bool null_right = jt == CS_JOIN_LEFT_OUTER || jt == CS_JOIN_FULL_OUTER;
    for (int i = 0; i < n_out; i++)
        if (i < l.n ? null_left : null_right) j->schema->fields[i].nullable = true;
    *out = (cs_pl_out){j, attrs, n_out, NULL, 0, 0};
    /* the streamed side's partitioning survives where its rows keep their keys */
    const cs_pl_out *stream = build == CS_BUILD_RIGHT ? &l : &r;
    if (jt != CS_JOIN_FULL_OUTER && (build == CS_BUILD_RIGHT ? !null_left : !null_right))
        cs_pl_keep_partitioning(out, stream);
    return 0;
fail:
    free(lo);
    free(ro);
    cs_phys_free(l.node);
    cs_phys_free(r.node);
    return -1;
}
