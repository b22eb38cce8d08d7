/*
 * exchange_reuse.c — ReuseExchangeAndSubquery's exchange half (exchange_reuse.h): a post-order
 * walk keeping a map from each kept exchange's canonical form to the exchange; a later exchange
 * with a form in the map is freed and its place taken by a REUSED_EXCHANGE leaf of its own output
 * (Spark's ReusedExchangeExec(exchange.output, cachedExchange)) that borrows the kept one and
 * copies its partitioning (the driver reads partitions from it before cutting stages). A
 * broadcast's form adds its mode, which cspark keeps in the consuming join (the build keys).
 */
#include <stdlib.h>

#include "sql/exchange_reuse.h"
#include "sqlexec/phys_canonical.h"

typedef struct reuse {
    cs_phys_canonical_map map; /* canonical form -> index in kept */
    cs_phys_node **kept;
    int n_kept, cap_kept;
    int replaced;
} reuse;

static bool is_exchange(const cs_phys_node *n)
{
    return n->kind == CS_PH_EXCHANGE || n->kind == CS_PH_BROADCAST_EXCHANGE;
}

/* A leaf with ex's output that reads kept. */
static cs_phys_node *reused_leaf(const cs_phys_node *ex, const cs_phys_node *kept)
{
    cs_phys_node *r = cs_phys_new(CS_PH_REUSED_EXCHANGE, cs_col_type_ref(ex->schema), 0);
    r->id = ex->id;
    r->input = kept->id;
    r->reused = kept;
    r->partitioning = kept->partitioning;
    r->num_partitions = kept->num_partitions;
    r->user_partitions = kept->user_partitions;
    r->shuffle_origin = kept->shuffle_origin;
    return r;
}

/* A broadcast's mode (Spark's BroadcastMode, part of BroadcastExchangeExec's canonical form,
 * here its consumer's): a hash join's build keys of side i and null-awareness, else the rows. */
static void broadcast_mode(const cs_phys_node *join, int i, cs_sbuf *key)
{
    if (join->kind != CS_PH_HASH_JOIN) {
        cs_sbuf_puts(key, "|identity");
        return;
    }
    const int *keys = i == 0 ? join->left_keys : join->right_keys;
    cs_sbuf_printf(key, "|hashed %d", join->join_type == CS_HJ_LEFT_ANTI_NULL_AWARE);
    for (int k = 0; k < join->n_join_keys; k++)
        cs_sbuf_printf(key, " %d", keys[k]);
}

int cs_sql_exchange_key(const cs_phys_node *ex, const cs_phys_node *parent, int i, cs_sbuf *key,
                        cs_error *err)
{
    if (cs_phys_canonical(ex, key, err) < 0) return err->code;
    if (ex->kind == CS_PH_BROADCAST_EXCHANGE) broadcast_mode(parent, i, key);
    return 0;
}

static int walk(reuse *st, cs_phys_node *n, int depth, cs_error *err)
{
    if (depth > 500) return cs_error_set(err, CS_EINVAL, "SQL plan: deeper than 500 nodes");
    for (int i = 0; i < n->n_children; i++) {
        cs_phys_node *ch = n->children[i];
        if (!ch) continue;
        if (walk(st, ch, depth + 1, err) < 0) return err->code;
        if (!is_exchange(ch)) continue;
        cs_sbuf key = CS_SBUF_INIT;
        if (cs_sql_exchange_key(ch, n, i, &key, err) < 0) {
            cs_sbuf_free(&key);
            return err->code;
        }
        int k = cs_phys_canonical_map_get(&st->map, &key);
        if (k >= 0) {
            n->children[i] = reused_leaf(ch, st->kept[k]);
            cs_phys_free(ch);
            st->replaced++;
            cs_sbuf_free(&key);
            continue;
        }
        if (st->n_kept == st->cap_kept) {
            st->cap_kept = st->cap_kept ? 2 * st->cap_kept : 8;
            st->kept = cs_xrealloc(st->kept, sizeof *st->kept * (size_t)st->cap_kept);
        }
        st->kept[st->n_kept] = ch;
        cs_phys_canonical_map_put(&st->map, &key, st->n_kept++);
    }
    return 0;
}

int cs_sql_reuse_exchanges(cs_phys_node *root, cs_error *err)
{
    reuse st = {0};
    int rc = root ? walk(&st, root, 0, err) : 0;
    cs_phys_canonical_map_free(&st.map);
    free(st.kept);
    return rc < 0 ? rc : st.replaced;
}
