/*
 * pexpr_eval.c — cs_pexpr_eval: runs a compiled program over a batch, children first, one
 * kernel call per node per batch. The lazy nodes are run here: AND, OR, IF, CASE, COALESCE and
 * NVL evaluate a branch that could raise only on the rows that reach it (a sub-batch taken with
 * cs_col_batch_take, the branch's rows scattered back with cs_px_merge), as Spark evaluates them
 * row by row — `CASE WHEN x <> 0 THEN 1 / x END` never divides by zero. Branches that cannot
 * raise are evaluated on the whole batch (cheaper than a gather), and AND / OR then combine the
 * two sides' bitmaps a byte of rows at a time. With a cache (pexpr_cse.c) a
 * subexpression shared across an operator's programs is evaluated once per batch. Called by the
 * operators.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

typedef struct eval_env {
    const cs_sql_exec_ctx *ctx;
    cs_col_allocator *alloc;
    cs_error *err;
    cs_column **cache; /* shared subexpressions' columns by slot (pexpr_cse.c), or NULL */
} eval_env;

static int eval_node(const cs_px_node *n, cs_col_batch *b, const eval_env *env, cs_column **out);

bool cs_px_is_lazy(const char *fn)
{
    return strcmp(fn, "and") == 0 || strcmp(fn, "or") == 0 || strcmp(fn, "if") == 0 ||
           strcmp(fn, "coalesce") == 0 || strcmp(fn, "nvl") == 0 || strcmp(fn, "ifnull") == 0;
}

/* A branch's values for rows idx[0..m) of b: *out and, per j, the row of *out holding row
 * idx[j]'s value (the branch evaluated on a sub-batch when it could raise, else on all of b). */
typedef struct branch {
    cs_column *col;
    bool sub;     /* col has m rows (one per idx) rather than b's rows */
    bool literal; /* col has one row */
} branch;

static int eval_branch(const cs_px_node *n, cs_col_batch *b, const int32_t *idx, int64_t m,
                       const eval_env *env, branch *br)
{
    br->col = NULL;
    br->sub = false;
    br->literal = n->e->kind == CS_PX_LITERAL;
    if (!n->could_raise || m == b->num_rows) return eval_node(n, b, env, &br->col);
    cs_col_batch *s = cs_col_batch_take(b, idx, m, env->alloc);
    int rc = eval_node(n, s, env, &br->col);
    cs_col_batch_unref(s);
    br->sub = true;
    return rc;
}

static inline int32_t branch_row(const branch *br, int64_t j, const int32_t *idx)
{
    return br->literal ? 0 : br->sub ? (int32_t)j : idx[j];
}

/* The values of a boolean column row r: 1 true, 0 false, -1 null. */
static inline int bool_at(const cs_column *c, int64_t r)
{
    if (!cs_column_is_valid(c, r)) return -1;
    return cs_bit_get(c->values, r);
}

/* AND / OR of two boolean columns of `rows` rows, eight rows a byte, in Spark's three-valued logic:
 * AND is false where either side is false, true where both are true, else null (OR: the dual).
 * Null rows' value bits are 0; no bitmap when no row is null. */
static cs_column *and_or_bits(const cs_column *l, const cs_column *r, int64_t rows, bool is_and,
                              const cs_col_type *type, cs_col_allocator *alloc)
{
    cs_column *res = cs_px_new_fixed(alloc, type, rows);
    cs_px_ensure_validity(res);
    int64_t bytes = (rows + 7) / 8, nulls = 0;
    for (int64_t k = 0; k < bytes; k++) {
        unsigned lk = l->validity ? l->validity[k] : 0xFFu,
                 rk = r->validity ? r->validity[k] : 0xFFu;
        unsigned lt = lk & l->values[k], lf = lk & ~(unsigned)l->values[k];
        unsigned rt = rk & r->values[k], rf = rk & ~(unsigned)r->values[k];
        unsigned t = is_and ? lt & rt : lt | rt, f = is_and ? lf | rf : lf & rf;
        unsigned in = k == bytes - 1 && rows % 8 ? (1u << (rows % 8)) - 1 : 0xFFu;
        res->values[k] = (uint8_t)(t & in);
        res->validity[k] = (uint8_t)((t | f) & in);
        nulls += __builtin_popcount(~(t | f) & in);
    }
    res->null_count = nulls;
    if (nulls == 0) { /* as cs_px_and_validity leaves a column without nulls */
        cs_col_buffer_free(res->alloc, res->validity, res->validity_size);
        res->validity = NULL;
        res->validity_size = 0;
    }
    return res;
}

static int eval_and_or(const cs_px_node *n, cs_col_batch *b, const eval_env *env, bool is_and,
                       cs_column **out)
{
    int64_t rows = b->num_rows;
    cs_column *l;
    int rc = eval_node(&n->children[0], b, env, &l);
    if (rc) return rc;
    int64_t ls = cs_px_stride(l, rows);
    if (!n->children[1].could_raise && n->children[1].e->kind != CS_PX_LITERAL && ls == 1 &&
        rows > 1) {
        /* a right side that cannot raise is evaluated on every row anyway (eval_branch): the
         * sides combine a byte of rows at a time, no per-row walk */
        cs_column *r;
        rc = eval_node(&n->children[1], b, env, &r);
        if (rc) {
            cs_column_unref(l);
            return rc;
        }
        if (r->length == rows) {
            *out = and_or_bits(l, r, rows, is_and, n->e->type, env->alloc);
            cs_column_unref(l);
            cs_column_unref(r);
            return CS_OK;
        }
        cs_column_unref(r); /* a literal: the walk below */
    }
    /* rows whose result the left side does not decide */
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(rows ? rows : 1));
    int64_t m = 0;
    for (int64_t i = 0; i < rows; i++) {
        int v = bool_at(l, i * ls);
        if (v != (is_and ? 0 : 1)) idx[m++] = (int32_t)i;
    }
    branch r = {0};
    if (m > 0) rc = eval_branch(&n->children[1], b, idx, m, env, &r);
    if (rc) {
        free(idx);
        cs_column_unref(l);
        return rc;
    }
    cs_column *res = cs_px_new_fixed(env->alloc, n->e->type, rows);
    cs_px_ensure_validity(res);
    int decided = is_and ? 0 : 1;
    for (int64_t i = 0, j = 0; i < rows; i++) {
        int lv = bool_at(l, i * ls), v;
        if (lv == decided) {
            v = decided;
        } else {
            int rv = bool_at(r.col, branch_row(&r, j, idx));
            j++;
            if (rv == decided)
                v = decided;
            else if (lv == -1 || rv == -1)
                v = -1;
            else
                v = !decided;
        }
        if (v < 0)
            cs_px_set_null(res, i);
        else
            cs_bit_set(res->values, i, v);
    }
    free(idx);
    cs_column_unref(l);
    if (r.col) cs_column_unref(r.col);
    *out = res;
    return CS_OK;
}

/* CASE (and IF as CASE WHEN c THEN a ELSE b END): each WHEN evaluated on the rows no earlier
 * WHEN took, each THEN on its rows, the ELSE on what is left (null without ELSE). */
static int eval_case(const cs_px_node *n, int pairs, bool has_else, cs_col_batch *b,
                     const eval_env *env, cs_column **out)
{
    int64_t rows = b->num_rows;
    size_t sz = sizeof(int32_t) * (size_t)(rows ? rows : 1);
    int32_t *left = cs_xmalloc(sz), *next = cs_xmalloc(sz), *taken = cs_xmalloc(sz);
    int32_t *which = cs_xmalloc(sz), *row = cs_xmalloc(sz);
    int n_src = pairs + (has_else ? 1 : 0);
    cs_column **src = cs_xcalloc((size_t)n_src + 1, sizeof *src);
    int64_t m = rows;
    for (int64_t i = 0; i < rows; i++) {
        left[i] = (int32_t)i;
        which[i] = -1;
        row[i] = 0;
    }
    int rc = CS_OK;
    for (int p = 0; p < pairs && m > 0 && rc == CS_OK; p++) {
        branch c = {0};
        rc = eval_branch(&n->children[2 * p], b, left, m, env, &c);
        if (rc) break;
        int64_t nt = 0, nn = 0;
        for (int64_t j = 0; j < m; j++) {
            if (bool_at(c.col, branch_row(&c, j, left)) == 1)
                taken[nt++] = left[j];
            else
                next[nn++] = left[j];
        }
        cs_column_unref(c.col);
        if (nt > 0) {
            branch t = {0};
            rc = eval_branch(&n->children[2 * p + 1], b, taken, nt, env, &t);
            if (rc) break;
            src[p] = t.col;
            for (int64_t j = 0; j < nt; j++) {
                which[taken[j]] = p;
                row[taken[j]] = branch_row(&t, j, taken);
            }
        }
        memcpy(left, next, sizeof(int32_t) * (size_t)nn);
        m = nn;
    }
    if (rc == CS_OK && has_else && m > 0) {
        branch t = {0};
        rc = eval_branch(&n->children[n->n_children - 1], b, left, m, env, &t);
        if (rc == CS_OK) {
            src[pairs] = t.col;
            for (int64_t j = 0; j < m; j++) {
                which[left[j]] = pairs;
                row[left[j]] = branch_row(&t, j, left);
            }
        }
    }
    if (rc == CS_OK) *out = cs_px_merge(env->alloc, n->e->type, src, n_src, which, row, rows);
    for (int i = 0; i < n_src; i++)
        if (src[i]) cs_column_unref(src[i]);
    free(src);
    free(left);
    free(next);
    free(taken);
    free(which);
    free(row);
    return rc;
}

static int eval_coalesce(const cs_px_node *n, cs_col_batch *b, const eval_env *env, cs_column **out)
{
    int64_t rows = b->num_rows;
    size_t sz = sizeof(int32_t) * (size_t)(rows ? rows : 1);
    int32_t *left = cs_xmalloc(sz), *next = cs_xmalloc(sz);
    int32_t *which = cs_xmalloc(sz), *row = cs_xmalloc(sz);
    cs_column **src = cs_xcalloc((size_t)n->n_children + 1, sizeof *src);
    int64_t m = rows;
    for (int64_t i = 0; i < rows; i++) {
        left[i] = (int32_t)i;
        which[i] = -1;
        row[i] = 0;
    }
    int rc = CS_OK;
    for (int a = 0; a < n->n_children && m > 0; a++) {
        branch v = {0};
        rc = eval_branch(&n->children[a], b, left, m, env, &v);
        if (rc) break;
        src[a] = v.col;
        int64_t nn = 0;
        for (int64_t j = 0; j < m; j++) {
            int32_t r = branch_row(&v, j, left);
            if (cs_column_is_valid(v.col, r)) {
                which[left[j]] = a;
                row[left[j]] = r;
            } else {
                next[nn++] = left[j];
            }
        }
        memcpy(left, next, sizeof(int32_t) * (size_t)nn);
        m = nn;
    }
    if (rc == CS_OK)
        *out = cs_px_merge(env->alloc, n->e->type, src, n->n_children, which, row, rows);
    for (int i = 0; i < n->n_children; i++)
        if (src[i]) cs_column_unref(src[i]);
    free(src);
    free(left);
    free(next);
    free(which);
    free(row);
    return rc;
}

/* A higher-order function: its plain arguments evaluated, its lambdas run by its kernel. */
static int eval_hof(const cs_px_node *n, cs_col_batch *b, const eval_env *env, cs_column **out)
{
    int na = n->n_children;
    cs_column *args[na > 0 ? na : 1];
    int rc = CS_OK;
    for (int i = 0; i < na; i++)
        args[i] = NULL;
    for (int i = 0; i < na && rc == CS_OK; i++)
        if (!n->children[i].lambda) rc = eval_node(&n->children[i], b, env, &args[i]);
    if (rc == CS_OK) {
        cs_px_kctx k = {n->e, env->ctx, env->alloc, env->err, b->num_rows};
        rc = n->hof(&k, n, b, args, out);
    }
    for (int i = 0; i < na; i++)
        if (args[i]) cs_column_unref(args[i]);
    return rc;
}

static int eval_node_once(const cs_px_node *n, cs_col_batch *b, const eval_env *env,
                          cs_column **out);

/* A node's column: a shared subexpression's from the cache when this batch already has it. */
static int eval_node(const cs_px_node *n, cs_col_batch *b, const eval_env *env, cs_column **out)
{
    if (!env->cache || n->shared < 0) return eval_node_once(n, b, env, out);
    if (env->cache[n->shared]) {
        *out = cs_column_ref(env->cache[n->shared]);
        return CS_OK;
    }
    int rc = eval_node_once(n, b, env, out);
    if (rc == CS_OK) env->cache[n->shared] = cs_column_ref(*out);
    return rc;
}

static int eval_node_once(const cs_px_node *n, cs_col_batch *b, const eval_env *env,
                          cs_column **out)
{
    const cs_pexpr *e = n->e;
    *out = NULL;
    switch (e->kind) {
    case CS_PX_COLUMN:
        *out = cs_column_ref(b->columns[e->ordinal]);
        return CS_OK;
    case CS_PX_LITERAL:
        *out = cs_column_ref(e->literal);
        return CS_OK;
    case CS_PX_CASE:
        return eval_case(n, (e->n_args - (e->has_else ? 1 : 0)) / 2, e->has_else, b, env, out);
    case CS_PX_CALL:
        if (n->hof) return eval_hof(n, b, env, out);
        if (n->lambda)
            return cs_error_set(env->err, CS_EINVAL,
                                "a lambda function outside a higher-order "
                                "function");
        if (!n->kernel) {
            if (strcmp(e->fn, "and") == 0) return eval_and_or(n, b, env, true, out);
            if (strcmp(e->fn, "or") == 0) return eval_and_or(n, b, env, false, out);
            if (strcmp(e->fn, "if") == 0) return eval_case(n, 1, true, b, env, out);
            return eval_coalesce(n, b, env, out);
        }
        break;
    case CS_PX_CAST:
    case CS_PX_IN:
        break;
    }
    int na = n->n_children;
    cs_column *args[na > 0 ? na : 1];
    int rc = CS_OK, done = 0;
    for (; done < na && rc == CS_OK; done++)
        rc = eval_node(&n->children[done], b, env, &args[done]);
    if (rc == CS_OK) {
        cs_px_kctx k = {e, env->ctx, env->alloc, env->err, b->num_rows, n->rng};
        rc = n->kernel(&k, args, na, out);
    }
    for (int i = 0; i < done; i++)
        if (args[i]) cs_column_unref(args[i]);
    return rc;
}

int cs_pexpr_eval(cs_pexpr_program *p, cs_col_batch *batch, const cs_sql_exec_ctx *ctx,
                  cs_column **out, cs_error *err)
{
    return cs_px_eval_cached(p, NULL, batch, ctx, out, err);
}

int cs_px_eval_cached(cs_pexpr_program *p, cs_column **cache, cs_col_batch *batch,
                      const cs_sql_exec_ctx *ctx, cs_column **out, cs_error *err)
{
    eval_env env = {ctx, ctx->alloc ? ctx->alloc : cs_col_default_allocator(), err, cache};
    cs_column *c;
    int rc = eval_node(&p->root, batch, &env, &c);
    if (rc) return rc;
    if (c->length != batch->num_rows) {
        /* a literal at the root: its one row repeated */
        int32_t *zeros = cs_xcalloc((size_t)(batch->num_rows ? batch->num_rows : 1), sizeof *zeros);
        cs_column *full = cs_px_take(c, zeros, batch->num_rows, env.alloc);
        free(zeros);
        cs_column_unref(c);
        c = full;
    }
    *out = c;
    return CS_OK;
}
