/*
 * phys_test_util.h — helpers of the physical plan tests (test_phys_*.c) on top of
 * op_test_util.h: primitive types, a (k, v) bigint schema, LOCAL nodes of (k = i % mod,
 * v = from + i) rows, unary nodes, bigint column references and literals. Header-only.
 */
#ifndef CSPARK_TESTS_PHYS_TEST_UTIL_H
#define CSPARK_TESTS_PHYS_TEST_UTIL_H

#include "op_test_util.h"
#include "sqlexec/phys_plan.h"

static inline cs_col_type *T(cs_type_id id)
{
    return cs_col_type_primitive(id);
}

static inline cs_col_type *kv_schema_named(const char *k, const char *v)
{
    return t_schema(2, (const char *[]){k, v}, (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG)});
}

static inline cs_col_type *kv_schema(void)
{
    return kv_schema_named("k", "v");
}

/* A LOCAL node of n (<= 64) rows (k = i % mod, v = from + i) in one batch. */
static inline cs_phys_node *local_kv_named(const char *k, const char *v, int64_t n, int64_t mod,
                                           int64_t from)
{
    cs_col_type *schema = kv_schema_named(k, v);
    int64_t ks[64], vs[64];
    for (int64_t i = 0; i < n; i++) {
        ks[i] = i % mod;
        vs[i] = from + i;
    }
    cs_phys_node *node = cs_phys_new(CS_PH_LOCAL, cs_col_type_ref(schema), 0);
    node->n_batches = 1;
    node->batches = calloc(1, sizeof *node->batches);
    node->batches[0] =
        t_batch(schema, (cs_column *[]){t_longs(ks, n, NULL), t_longs(vs, n, NULL)}, n);
    cs_col_type_unref(schema);
    return node;
}

static inline cs_phys_node *unary(cs_phys_kind kind, cs_col_type *schema, cs_phys_node *child)
{
    cs_phys_node *n = cs_phys_new(kind, schema, 1);
    n->children[0] = child;
    return n;
}

static inline cs_pexpr *col(int ordinal)
{
    return cs_pexpr_column(ordinal, T(CS_TYPE_LONG), true);
}

static inline cs_pexpr *lit(int64_t v)
{
    return cs_pexpr_literal(t_longs(&v, 1, NULL));
}

/* A two-argument call returning boolean ("<", "=", "and", ...). */
static inline cs_pexpr *call2(const char *fn, cs_pexpr *a, cs_pexpr *b)
{
    return cs_pexpr_call(fn, T(CS_TYPE_BOOLEAN), true, (cs_pexpr *[]){a, b}, 2);
}

/* An aggregate node summing column v by column k (mode: partial or final). */
static inline cs_phys_node *sum_by_k(cs_agg_mode mode, cs_phys_node *child)
{
    cs_phys_node *a = unary(CS_PH_HASH_AGGREGATE, kv_schema(), child);
    a->agg_mode = mode;
    a->n_group_keys = 1;
    a->group_keys = calloc(1, sizeof(int));
    a->n_aggs = 1;
    a->aggs = calloc(1, sizeof *a->aggs);
    a->aggs[0] = (cs_agg_spec){CS_AGG_SUM, 1, T(CS_TYPE_LONG), false, strdup("sum(v)")};
    return a;
}

#endif /* CSPARK_TESTS_PHYS_TEST_UTIL_H */
