/*
 * adaptive_plan.c — adaptive execution's questions about a physical plan (adaptive_plan.h): the
 * exchanges whose map stages can run (no exchange below them; a shuffled join's side waits for
 * the other side's shuffle when the planner chose to materialize that one first), whether a plan
 * has exchanges, whether a join's partitioning matters to the operators above it within its
 * stage, and which side a shuffled join builds once both its shuffles' sizes are known.
 *
 * Called by query_run.c; nothing here allocates but the ready list's arrays (the caller's).
 */
#include <stdlib.h>

#include "session/adaptive_plan.h"

bool cs_aqe_has_exchange_anywhere(const cs_phys_node *n)
{
    if (n->kind == CS_PH_EXCHANGE || n->kind == CS_PH_BROADCAST_EXCHANGE) return true;
    for (int i = 0; i < n->n_children; i++)
        if (n->children[i] && cs_aqe_has_exchange_anywhere(n->children[i])) return true;
    return false;
}

static bool has_exchange(const cs_phys_node *n)
{
    if (n->kind == CS_PH_EXCHANGE) return true;
    for (int i = 0; i < n->n_children; i++)
        if (n->children[i] && has_exchange(n->children[i])) return true;
    return false;
}

/* Whether child i of n waits for its sibling's map stage: n is a shuffled hash join that
 * materializes the sibling first (adaptive_*_first) and the sibling's shuffle has not run. */
static bool waits_for_sibling(const cs_phys_node *n, int i)
{
    if (n->kind != CS_PH_HASH_JOIN || n->broadcast || n->n_children != 2) return false;
    bool first = i == 0 ? n->adaptive_right_first : n->adaptive_left_first;
    const cs_phys_node *sibling = n->children[1 - i];
    return first && sibling && sibling->kind == CS_PH_EXCHANGE;
}

static void find_ready(cs_phys_node *n, cs_aqe_ready *r, bool ordered)
{
    for (int i = 0; i < n->n_children; i++) {
        cs_phys_node *ch = n->children[i];
        if (!ch) continue;
        bool below = false;
        for (int k = 0; k < ch->n_children && !below; k++)
            below = ch->children[k] && has_exchange(ch->children[k]);
        if (ch->kind != CS_PH_EXCHANGE || below) {
            find_ready(ch, r, ordered);
            continue;
        }
        if (ordered && waits_for_sibling(n, i)) continue;
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 8;
            r->parent = cs_xrealloc(r->parent, sizeof *r->parent * (size_t)r->cap);
            r->child = cs_xrealloc(r->child, sizeof *r->child * (size_t)r->cap);
        }
        r->parent[r->n] = n;
        r->child[r->n++] = i;
    }
}

void cs_aqe_find_ready(cs_phys_node *n, cs_aqe_ready *r)
{
    int before = r->n;
    find_ready(n, r, true);
    if (r->n == before) /* (a sibling first always leaves one ready; never stall regardless) */
        find_ready(n, r, false);
}

bool cs_aqe_partitioning_unused(cs_phys_node *const *path, const int *via, int depth)
{
    for (int i = depth - 1; i >= 0; i--) {
        const cs_phys_node *a = path[i];
        switch (a->kind) {
        case CS_PH_EXCHANGE:
        case CS_PH_BROADCAST_EXCHANGE:
            return true; /* the next stage's rows are placed again */
        case CS_PH_FILTER:
        case CS_PH_PROJECT:
        case CS_PH_EXPAND:
        case CS_PH_GENERATE:
        case CS_PH_PYTHON_EVAL:
            break;
        case CS_PH_HASH_AGGREGATE:
            if (a->agg_mode != CS_AGG_PARTIAL) return false;
            break;
        case CS_PH_LIMIT:
        case CS_PH_TOP_N:
        case CS_PH_SORT:
            if (a->global) return false;
            break;
        case CS_PH_HASH_JOIN:
        case CS_PH_NESTED_LOOP_JOIN: /* the streamed side of a broadcast join passes through */
            if (!a->broadcast || via[i] == (a->build_side == CS_BUILD_LEFT ? 0 : 1)) return false;
            break;
        default:
            return false;
        }
    }
    return true;
}

bool cs_aqe_build_smaller_side(cs_phys_node *n, int64_t lb, int64_t rb)
{
    cs_hash_join_type t = n->join_type;
    if (n->kind != CS_PH_HASH_JOIN || n->broadcast || lb < 0 || rb < 0) return false;
    /* the left rows of a semi / anti join come out in the same reduce partition either way */
    if (t != CS_HJ_INNER && t != CS_HJ_LEFT_SEMI && t != CS_HJ_LEFT_ANTI) return false;
    cs_build_side side = rb <= lb ? CS_BUILD_RIGHT : CS_BUILD_LEFT;
    if (side == n->build_side) return false;
    n->build_side = side;
    return true;
}
