/*
 * phys_canonical.c — canonical forms of physical subtrees (phys_canonical.h), for exchange
 * reuse. Each node's own fields go through the wire encoder (phys_encode.c), so every field a
 * task reads takes part and a field added to the wire form later takes part too; the plan id and
 * the output names (which a consumer never reads: it binds columns by ordinal) are left out.
 *
 * Expressions are written as Spark's Canonicalize.expressionReorder leaves them: the operands of
 * a chain of deterministic ANDs (or ORs) in one order, the two sides of = and <=> in that order,
 * and a > b (a >= b) whose sides are out of it written b < a (b <= a); the order is that of
 * the operands' EXPLAIN text (cs_pexpr_explain: bound columns by ordinal and type), so that
 * `a = 1 OR a = 2` and `a = 2 OR a = 1` compare equal, as Spark's canonicalized plans do.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/phys_canonical.h"

#define MAX_DEPTH 200

static void put_u32(cs_sbuf *out, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    cs_sbuf_append(out, b, sizeof b);
}

/* ---- Canonicalize.expressionReorder over a copy of an expression ---- */

static char *text_of(const cs_pexpr *e)
{
    cs_sbuf b = CS_SBUF_INIT;
    cs_pexpr_explain(e, &b);
    return b.data ? b.data : cs_xstrdup("");
}

static bool is_call(const cs_pexpr *e, const char *fn)
{
    return e && e->kind == CS_PX_CALL && strcmp(e->fn, fn) == 0 && e->n_args == 2;
}

/* Appends the operands of the chain of fn calls at e to ops (the calls freed, their operands
 * taken). */
static void flatten(cs_pexpr *e, const char *fn, cs_pexpr ***ops, int *n, int *cap)
{
    if (is_call(e, fn)) {
        flatten(e->args[0], fn, ops, n, cap);
        flatten(e->args[1], fn, ops, n, cap);
        e->args[0] = e->args[1] = NULL;
        cs_pexpr_free(e);
        return;
    }
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *ops = cs_xrealloc(*ops, sizeof **ops * (size_t)*cap);
    }
    (*ops)[(*n)++] = e;
}

typedef struct keyed {
    char *text;
    cs_pexpr *e;
} keyed;

static int by_text(const void *a, const void *b)
{
    return strcmp(((const keyed *)a)->text, ((const keyed *)b)->text);
}

/* e (taken over) reordered, bottom-up. */
static cs_pexpr *reorder(cs_pexpr *e)
{
    if (!e) return NULL;
    for (int i = 0; i < e->n_args; i++)
        e->args[i] = reorder(e->args[i]);
    if (e->kind != CS_PX_CALL || e->n_args != 2) return e;
    bool chain = strcmp(e->fn, "and") == 0 || strcmp(e->fn, "or") == 0;
    if (chain && cs_pexpr_deterministic(e)) {
        char *fn = cs_xstrdup(e->fn);
        cs_col_type *type = cs_col_type_ref(e->type);
        cs_pexpr **ops = NULL;
        int n = 0, cap = 0;
        flatten(e, fn, &ops, &n, &cap);
        keyed *k = cs_xcalloc((size_t)n, sizeof *k);
        for (int i = 0; i < n; i++)
            k[i] = (keyed){text_of(ops[i]), ops[i]};
        qsort(k, (size_t)n, sizeof *k, by_text);
        cs_pexpr *acc = k[0].e;
        for (int i = 1; i < n; i++)
            acc = cs_pexpr_call(fn, cs_col_type_ref(type), acc->nullable || k[i].e->nullable,
                                (cs_pexpr *[]){acc, k[i].e}, 2);
        for (int i = 0; i < n; i++)
            free(k[i].text);
        free(k);
        free(ops);
        free(fn);
        cs_col_type_unref(type);
        return acc;
    }
    static const char *const swapped[][2] = {{"=", "="}, {"<=>", "<=>"}, {">", "<"},
                                             {"<", ">"}, {">=", "<="},   {"<=", ">="}};
    for (size_t i = 0; i < sizeof swapped / sizeof swapped[0]; i++) {
        if (strcmp(e->fn, swapped[i][0]) != 0) continue;
        char *l = text_of(e->args[0]), *r = text_of(e->args[1]);
        if (strcmp(l, r) > 0) {
            cs_pexpr *t = e->args[0];
            e->args[0] = e->args[1];
            e->args[1] = t;
            free(e->fn);
            e->fn = cs_xstrdup(swapped[i][1]);
        }
        free(l);
        free(r);
        break;
    }
    return e;
}

static cs_pexpr *reordered(const cs_pexpr *e)
{
    return e ? reorder(cs_pexpr_clone(e)) : NULL;
}

static cs_pexpr **reordered_all(cs_pexpr *const *e, int n)
{
    if (!e || n <= 0) return NULL;
    cs_pexpr **c = cs_xcalloc((size_t)n, sizeof *c);
    for (int i = 0; i < n; i++)
        c[i] = reordered(e[i]);
    return c;
}

static void free_all(cs_pexpr **e, int n)
{
    for (int i = 0; e && i < n; i++)
        cs_pexpr_free(e[i]);
    free(e);
}

/* n's own fields with its expressions reordered, encoded. */
static int encode_node(const cs_phys_node *n, cs_sbuf *out, cs_error *err)
{
    cs_phys_node c = *n; /* shares n's fields but the expressions (never freed as a node) */
    c.condition = reordered(n->condition);
    c.join_condition = reordered(n->join_condition);
    c.exprs = reordered_all(n->exprs, n->n_exprs);
    c.filters = reordered_all(n->filters, n->n_filters);
    int rc = cs_phys_encode_node_canonical(&c, out, err);
    cs_pexpr_free(c.condition);
    cs_pexpr_free(c.join_condition);
    free_all(c.exprs, n->n_exprs);
    free_all(c.filters, n->n_filters);
    return rc;
}

/* ---- the form ---- */

static int canonical(const cs_phys_node *n, cs_sbuf *out, int depth, cs_error *err)
{
    if (depth > MAX_DEPTH)
        return cs_error_set(err, CS_EINVAL, "SQL plan: deeper than %d nodes", MAX_DEPTH);
    if (n->kind == CS_PH_REUSED_EXCHANGE) { /* the exchange it reads */
        if (!n->reused)
            return cs_error_set(err, CS_EINVAL, "a ReusedExchange of no exchange (plan id %d)",
                                n->input);
        return canonical(n->reused, out, depth + 1, err);
    }
    cs_sbuf self = CS_SBUF_INIT;
    int rc = encode_node(n, &self, err);
    if (rc == 0) {
        put_u32(out, (uint32_t)self.len);
        cs_sbuf_append(out, self.data, self.len);
        if (n->kind == CS_PH_EXCHANGE) { /* the driver's: not in the wire form */
            put_u32(out, (uint32_t)n->shuffle_origin);
            put_u32(out, n->user_partitions ? 1u : 0u);
        }
        put_u32(out, (uint32_t)n->n_children);
    }
    cs_sbuf_free(&self);
    for (int i = 0; rc == 0 && i < n->n_children; i++) {
        if (!n->children[i])
            return cs_error_set(err, CS_EINVAL, "SQL plan: %s without child %d",
                                cs_phys_node_name(n), i);
        rc = canonical(n->children[i], out, depth + 1, err);
    }
    return rc;
}

int cs_phys_canonical(const cs_phys_node *n, cs_sbuf *out, cs_error *err)
{
    if (!n) return cs_error_set(err, CS_EINVAL, "SQL plan: no tree to canonicalize");
    return canonical(n, out, 0, err);
}

bool cs_phys_canonical_equal(const cs_phys_node *a, const cs_phys_node *b)
{
    cs_sbuf ca = CS_SBUF_INIT, cb = CS_SBUF_INIT;
    cs_error err = {0};
    bool eq = cs_phys_canonical(a, &ca, &err) == 0 && cs_phys_canonical(b, &cb, &err) == 0 &&
              ca.len == cb.len && (ca.len == 0 || memcmp(ca.data, cb.data, ca.len) == 0);
    cs_sbuf_free(&ca);
    cs_sbuf_free(&cb);
    return eq;
}

int cs_phys_canonical_map_get(const cs_phys_canonical_map *m, const cs_sbuf *key)
{
    for (int i = 0; i < m->n; i++)
        if (m->keys[i].len == key->len &&
            (key->len == 0 || memcmp(m->keys[i].data, key->data, key->len) == 0))
            return m->values[i];
    return -1;
}

void cs_phys_canonical_map_put(cs_phys_canonical_map *m, cs_sbuf *key, int value)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 8;
        m->keys = cs_xrealloc(m->keys, sizeof *m->keys * (size_t)m->cap);
        m->values = cs_xrealloc(m->values, sizeof *m->values * (size_t)m->cap);
    }
    m->keys[m->n] = *key;
    m->values[m->n++] = value;
    *key = (cs_sbuf)CS_SBUF_INIT;
}

void cs_phys_canonical_map_free(cs_phys_canonical_map *m)
{
    for (int i = 0; i < m->n; i++)
        cs_sbuf_free(&m->keys[i]);
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}
