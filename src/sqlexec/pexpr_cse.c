/*
 * pexpr_cse.c — common subexpression elimination across the compiled programs of one operator
 * (Spark's spark.sql.subexpressionElimination in whole-stage codegen): a subtree that occurs
 * more than once among the programs, such as the `cast(ResolutionWidth as int)` under each of
 * ninety `ResolutionWidth + k`, is evaluated once per batch and its column shared.
 *
 * Which subtrees: calls (not the lazy ones), casts and INs whose whole subtree is deterministic
 * and which lie on no lazy node's path (AND, OR, IF, CASE, COALESCE, NVL evaluate their branches
 * on sub-batches of the rows that reach them, so only the eagerly evaluated nodes are sure to
 * see the whole batch, where sharing changes neither the values nor which errors are raised).
 * Equal means the same kind, function, cast mode, ordinal, result type, nullability and literal
 * value, recursively; a hash of each subtree keeps the comparisons few.
 *
 * cs_pexpr_cse_new marks the repeated nodes of the programs with a slot number; the operator
 * then evaluates its programs with cs_pexpr_eval_shared over one batch, which keeps the first
 * column of each slot, and calls cs_pexpr_cse_clear before the next batch. Called by Project.
 *
 * Ownership: the cse borrows the programs (their nodes carry the slots) and must be freed
 * before them; it holds one reference to each cached column until clear or free.
 * cs_pexpr_deterministic, the same test of a whole tree, is what the planner asks before
 * evaluating a condition somewhere else than its operator (a scan's late filter).
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

struct cs_pexpr_cse {
    int n_slots;
    cs_column **cache; /* per slot: the column of the current batch, or NULL */
};

bool cs_pexpr_deterministic(const cs_pexpr *e)
{
    if (e->kind == CS_PX_CALL && cs_px_nondeterministic(e->fn)) return false;
    for (int i = 0; i < e->n_args; i++)
        if (!cs_pexpr_deterministic(e->args[i])) return false;
    return true;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; s && *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h;
}

/* Whether two one-row literal columns hold the same value (false for nested values: they are
 * simply not shared). */
static bool literal_equal(const cs_column *a, const cs_column *b)
{
    if (!cs_col_type_equal(a->type, b->type)) return false;
    bool va = cs_column_is_valid(a, 0), vb = cs_column_is_valid(b, 0);
    if (!va || !vb) return va == vb;
    cs_type_id id = a->type->id;
    if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) {
        int32_t la, lb;
        const uint8_t *pa = cs_column_bytes(a, 0, &la), *pb = cs_column_bytes(b, 0, &lb);
        return la == lb && (la == 0 || memcmp(pa, pb, (size_t)la) == 0);
    }
    if (id == CS_TYPE_BOOLEAN) return cs_bit_get(a->values, 0) == cs_bit_get(b->values, 0);
    int w = cs_col_type_width(id);
    return w > 0 && memcmp(a->values, b->values, (size_t)w) == 0;
}

static bool expr_equal(const cs_pexpr *a, const cs_pexpr *b)
{
    if (a->kind != b->kind || a->nullable != b->nullable || a->n_args != b->n_args ||
        !cs_col_type_equal(a->type, b->type))
        return false;
    switch (a->kind) {
    case CS_PX_COLUMN:
        if (a->ordinal != b->ordinal) return false;
        break;
    case CS_PX_LITERAL:
        if (!literal_equal(a->literal, b->literal)) return false;
        break;
    case CS_PX_CALL:
        if (strcmp(a->fn, b->fn) != 0) return false;
        break;
    case CS_PX_CAST:
        if (a->cast_mode != b->cast_mode) return false;
        break;
    case CS_PX_CASE:
        if (a->has_else != b->has_else) return false;
        break;
    case CS_PX_IN:
        break;
    }
    for (int i = 0; i < a->n_args; i++)
        if (!expr_equal(a->args[i], b->args[i])) return false;
    return true;
}

/* a node that may be shared, with its subtree's hash */
typedef struct candidate {
    cs_px_node *node;
    uint64_t hash;
} candidate;

typedef struct walk {
    candidate *c;
    int n, cap;
} walk;

/* Hashes n's subtree into *h; returns whether it is deterministic. Eager nodes (no lazy node
 * above: `eager`) that are calls, casts or INs over deterministic subtrees become candidates. */
static bool collect(cs_px_node *n, bool eager, walk *w, uint64_t *h)
{
    const cs_pexpr *e = n->e;
    uint64_t hh = mix((uint64_t)e->kind, (uint64_t)e->type->id);
    bool lazy = e->kind == CS_PX_CASE || (e->kind == CS_PX_CALL && !n->kernel);
    bool det = !(e->kind == CS_PX_CALL && cs_px_nondeterministic(e->fn));
    if (e->kind == CS_PX_COLUMN) hh = mix(hh, (uint64_t)e->ordinal);
    if (e->kind == CS_PX_CALL) hh = mix(hh, str_hash(e->fn));
    if (e->kind == CS_PX_CAST) hh = mix(hh, (uint64_t)e->cast_mode);
    for (int i = 0; i < n->n_children; i++) {
        uint64_t ch;
        det = collect(&n->children[i], eager && !lazy, w, &ch) && det;
        hh = mix(hh, ch);
    }
    *h = hh;
    bool shareable =
        e->kind == CS_PX_CAST || e->kind == CS_PX_IN || (e->kind == CS_PX_CALL && n->kernel);
    if (eager && det && shareable) {
        if (w->n == w->cap) {
            w->cap = w->cap ? 2 * w->cap : 64;
            w->c = cs_xrealloc(w->c, sizeof *w->c * (size_t)w->cap);
        }
        w->c[w->n++] = (candidate){n, hh};
    }
    return det;
}

static int by_hash(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    return a->hash < b->hash ? -1 : a->hash > b->hash;
}

cs_pexpr_cse *cs_pexpr_cse_new(cs_pexpr_program *const *programs, int n)
{
    walk w = {0};
    for (int i = 0; i < n; i++) {
        uint64_t h;
        if (programs[i]) collect(&programs[i]->root, true, &w, &h);
    }
    if (w.n > 1) qsort(w.c, (size_t)w.n, sizeof *w.c, by_hash);
    int slots = 0;
    /* within each run of equal hashes, every node equal to an earlier unmarked one joins it */
    for (int i = 0; i < w.n; i++) {
        cs_px_node *a = w.c[i].node;
        if (a->shared >= 0) continue;
        for (int j = i + 1; j < w.n && w.c[j].hash == w.c[i].hash; j++) {
            cs_px_node *b = w.c[j].node;
            if (b->shared >= 0 || !expr_equal(a->e, b->e)) continue;
            if (a->shared < 0) a->shared = slots++;
            b->shared = a->shared;
        }
    }
    free(w.c);
    if (slots == 0) return NULL;
    cs_pexpr_cse *s = cs_xcalloc(1, sizeof *s);
    s->n_slots = slots;
    s->cache = cs_xcalloc((size_t)slots, sizeof *s->cache);
    return s;
}

int cs_pexpr_eval_shared(cs_pexpr_program *p, cs_pexpr_cse *cse, cs_col_batch *batch,
                         const cs_sql_exec_ctx *ctx, cs_column **out, cs_error *err)
{
    return cs_px_eval_cached(p, cse ? cse->cache : NULL, batch, ctx, out, err);
}

void cs_pexpr_cse_clear(cs_pexpr_cse *cse)
{
    if (!cse) return;
    for (int i = 0; i < cse->n_slots; i++) {
        if (cse->cache[i]) cs_column_unref(cse->cache[i]);
        cse->cache[i] = NULL;
    }
}

void cs_pexpr_cse_free(cs_pexpr_cse *cse)
{
    if (!cse) return;
    cs_pexpr_cse_clear(cse);
    free(cse->cache);
    free(cse);
}
