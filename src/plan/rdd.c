/*
 * rdd.c — the lineage graph's storage (see rdd.h): nodes and shuffle dependencies added with ids,
 * and freed with everything they own when the graph goes (or, a finished part, before).
 */
#include "plan/rdd.h"

#include <stdlib.h>
#include <string.h>

void cs_lineage_init(lineage_graph *g)
{
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
}

static void aggregator_free(plan_aggregator *a)
{
    cs_fn_ref_free(&a->create);
    cs_fn_ref_free(&a->merge_value);
    cs_fn_ref_free(&a->merge_combiners);
    free(a->zero);
}

static void rdd_free(cspark_rdd *r)
{
    free(r->name);
    cs_fn_ref_free(&r->fn);
    cs_batch_free(&r->par_data);
    free(r->par_offsets);
    free(r->splits);
    for (int i = 0; i < r->num_paths; i++)
        free(r->paths[i]);
    free(r->paths);
    free(r->union_parent);
    free(r->union_index);
    free(r->group_start);
    free(r->datasource);
    free(r->sql_plan);
    free(r->sql_bounds);
    free(r->sql_read_start);
    free(r->sql_read_end);
    free(r->sql_tz);
    free(r->broadcast_ids);
    if (r->sql_tree) r->sql_tree_free(r->sql_tree);
    aggregator_free(&r->agg);
    free(r);
}

static void dep_free(shuffle_dep *d)
{
    aggregator_free(&d->agg);
    free(d->range_bounds);
    free(d->range_bound_data);
    free(d);
}

void cs_lineage_free(lineage_graph *g)
{
    for (int i = 0; i < g->num_rdds; i++)
        rdd_free(g->rdds[i]);
    for (int i = 0; i < g->num_deps; i++)
        dep_free(g->deps[i]);
    free(g->rdds);
    free(g->deps);
    pthread_mutex_destroy(&g->lock);
    memset(g, 0, sizeof *g);
}

/* Takes items[0..n) out of the array arr[0..*len) (order is not kept; ids are not positions). */
static void take_out(void **arr, int *len, void *const *items, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = *len - 1; k >= 0; k--)
            if (arr[k] == items[i]) {
                arr[k] = arr[--*len];
                break;
            }
}

void cs_lineage_release(lineage_graph *g, cspark_rdd *const *rdds, int n, shuffle_dep *const *deps,
                        int nd)
{
    pthread_mutex_lock(&g->lock);
    take_out((void **)g->rdds, &g->num_rdds, (void *const *)rdds, n);
    take_out((void **)g->deps, &g->num_deps, (void *const *)deps, nd);
    pthread_mutex_unlock(&g->lock);
    for (int i = 0; i < n; i++)
        rdd_free(rdds[i]);
    for (int i = 0; i < nd; i++)
        dep_free(deps[i]);
}

cspark_rdd *cs_rdd_new(lineage_graph *g, rdd_kind kind, int num_partitions, const char *name)
{
    cspark_rdd *r = cs_xcalloc(1, sizeof *r);
    r->graph = g;
    r->kind = kind;
    r->num_partitions = num_partitions;
    r->name = cs_xstrdup(name ? name : "");
    cs_batch_init(&r->par_data);
    pthread_mutex_lock(&g->lock);
    if (g->num_rdds == g->cap_rdds) {
        g->cap_rdds = g->cap_rdds ? g->cap_rdds * 2 : 64;
        g->rdds = cs_xrealloc(g->rdds, (size_t)g->cap_rdds * sizeof *g->rdds);
    }
    r->id = g->next_rdd_id++;
    g->rdds[g->num_rdds++] = r;
    pthread_mutex_unlock(&g->lock);
    return r;
}

shuffle_dep *cs_shuffle_dep_new(lineage_graph *g, cspark_rdd *parent)
{
    shuffle_dep *d = cs_xcalloc(1, sizeof *d);
    d->parent = parent;
    pthread_mutex_lock(&g->lock);
    if (g->num_deps == g->cap_deps) {
        g->cap_deps = g->cap_deps ? g->cap_deps * 2 : 16;
        g->deps = cs_xrealloc(g->deps, (size_t)g->cap_deps * sizeof *g->deps);
    }
    d->shuffle_id = g->next_shuffle_id++;
    g->deps[g->num_deps++] = d;
    pthread_mutex_unlock(&g->lock);
    return d;
}

static bool slices_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

bool cs_rdd_is_barrier(const cspark_rdd *rdd)
{
    if (rdd->barrier) return true;
    for (int i = 0; i < rdd->num_parents; i++)
        if (cs_rdd_is_barrier(rdd->parents[i])) return true;
    return false;
}

bool cs_rdd_partitioner_equal(const rdd_partitioner *a, const rdd_partitioner *b)
{
    if (a->kind == RDD_PARTITIONER_NONE || a->kind != b->kind ||
        a->num_partitions != b->num_partitions)
        return false;
    switch (a->kind) {
    case RDD_PARTITIONER_HASH:
        return true;
    case RDD_PARTITIONER_RANGE:
        if (a->range == b->range) return true;
        if (a->range->ascending != b->range->ascending ||
            a->range->num_bounds != b->range->num_bounds)
            return false;
        for (int i = 0; i < a->range->num_bounds; i++)
            if (!slices_equal(a->range->bounds[i].ptr, a->range->bounds[i].len,
                              b->range->bounds[i].ptr, b->range->bounds[i].len))
                return false;
        return true;
    case RDD_PARTITIONER_FUNCTION:
        return a->fn->ptr == b->fn->ptr && a->fn->name && b->fn->name &&
               strcmp(a->fn->name, b->fn->name) == 0 &&
               slices_equal(a->fn->closure, a->fn->closure_len, b->fn->closure, b->fn->closure_len);
    default:
        return false;
    }
}

rdd_partitioner cs_rdd_partitioner_of_dep(const shuffle_dep *d)
{
    rdd_partitioner p = {.kind = RDD_PARTITIONER_NONE};
    if (d->partitioner.kind == PART_HASH) p.kind = RDD_PARTITIONER_HASH;
    if (d->partitioner.kind == PART_RANGE) {
        p.kind = RDD_PARTITIONER_RANGE;
        p.range = &d->partitioner;
    }
    if (p.kind != RDD_PARTITIONER_NONE) p.num_partitions = d->partitioner.num_partitions;
    return p;
}

void cs_plan_aggregator_bind(const plan_aggregator *a, cspark_task_context *tc, cs_aggregator *out)
{
    out->create = (cspark_reduce_fn)a->create.ptr;
    out->merge_value = (cspark_reduce_fn)a->merge_value.ptr;
    out->merge_combiners = (cspark_reduce_fn)a->merge_combiners.ptr;
    out->zero = a->zero;
    out->zero_len = a->zero_len;
    out->has_zero = a->has_zero;
    out->tc = tc;
}
