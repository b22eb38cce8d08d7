/*
 * stage_plan_encode.c — the driver's side of the StagePlan codec (see stage_plan.h).
 *
 * Encoding walks the stage's narrow lineage iteratively (deep lineages do not recurse) and
 * numbers nodes in discovery order (root = 0); shared nodes and deps are numbered once through a
 * map from address to number (common/hmap.h). Every protobuf-c structure built here is malloc'd and
 * unshared, so a whole StagePlan is released with protobuf_c_message_free_unpacked. The fields
 * every node has are written here, a kind's own by its entry in the table of kinds
 * (plan/rdd_kind.h).
 */
#include "plan/stage_plan.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "records/recio.h"
#include "plan/pb_helpers.h"
#include "plan/rdd_kind.h"
#include "plan/task_codec.h"

/* Node and dependency numbers by address (cs_hmap: pointer -> index). */
static int index_of(const cs_hmap *m, const void *p)
{
    uint64_t v;
    return cs_hmap_get(m, (uint64_t)(uintptr_t)p, &v) ? (int)v : -1;
}

static void index_put(cs_hmap *m, const void *p, int v)
{
    cs_hmap_put(m, (uint64_t)(uintptr_t)p, (uint64_t)v);
}

static int fn_to_pb(const fn_ref *f, Cspark__FnRef **out, const char *what, cs_error *err)
{
    *out = NULL;
    if (!f->name) {
        if (f->ptr)
            return cs_error_set(err, CS_EINVAL, "%s: function reference without a name", what);
        return 0;
    }
    Cspark__FnRef *p = cs_xmalloc(sizeof *p);
    cspark__fn_ref__init(p);
    p->name = cs_xstrdup(f->name);
    p->closure = cs_pb_bin_dup(f->closure, f->closure_len);
    *out = p;
    return 0;
}

/* The aggregator's fields of an RddNode or a ShuffleDep message. */
static int agg_to_pb(const plan_aggregator *a, Cspark__FnRef **create, Cspark__FnRef **merge_value,
                     Cspark__FnRef **merge_combiners, ProtobufCBinaryData *zero,
                     protobuf_c_boolean *has_zero, const char *what, cs_error *err)
{
    int rc;
    if ((rc = fn_to_pb(&a->create, create, what, err)) < 0 ||
        (rc = fn_to_pb(&a->merge_value, merge_value, what, err)) < 0 ||
        (rc = fn_to_pb(&a->merge_combiners, merge_combiners, what, err)) < 0)
        return rc;
    if (a->has_zero) *zero = cs_pb_bin_dup(a->zero, a->zero_len);
    *has_zero = a->has_zero;
    return 0;
}

static int node_to_pb(const cspark_rdd *r, const cs_hmap *nodes, const cs_hmap *deps,
                      Cspark__RddNode *p, cs_error *err)
{
    const cs_rdd_kind *k = cs_rdd_kind_of(r->kind);
    p->id = r->id;
    p->kind = (int32_t)r->kind;
    p->num_partitions = r->num_partitions;
    if (r->name) p->name = cs_xstrdup(r->name);
    if (r->num_parents > 0) {
        p->parents = cs_xmalloc((size_t)r->num_parents * sizeof *p->parents);
        for (int i = 0; i < r->num_parents; i++)
            p->parents[i] = index_of(nodes, r->parents[i]);
        p->n_parents = (size_t)r->num_parents;
    }
    if (r->num_deps > 0) {
        p->deps = cs_xmalloc((size_t)r->num_deps * sizeof *p->deps);
        for (int i = 0; i < r->num_deps; i++)
            p->deps[i] = index_of(deps, r->deps[i]);
        p->n_deps = (size_t)r->num_deps;
    }
    int rc = fn_to_pb(&r->fn, &p->fn, "rdd", err);
    if (rc < 0) return rc;
    p->range_start = r->range_start;
    p->range_end = r->range_end;
    p->range_step = r->range_step;
    if (k->encode && (rc = k->encode(r, p, err)) < 0) return rc;
    p->read_mode = (int32_t)r->read_mode;
    if ((rc = agg_to_pb(&r->agg, &p->agg_create, &p->agg_merge_value, &p->agg_merge_combiners,
                        &p->agg_zero, &p->agg_has_zero, "rdd", err)) < 0)
        return rc;
    p->values_are_combiners = r->values_are_combiners;
    p->ascending = r->ascending;
    p->storage_level = r->storage_level;
    return 0;
}

static int dep_to_pb(const shuffle_dep *d, int parent, Cspark__ShuffleDep *p, cs_error *err)
{
    p->shuffle_id = d->shuffle_id;
    p->parent = parent;
    Cspark__Partitioner *pt = cs_xmalloc(sizeof *pt);
    cspark__partitioner__init(pt);
    p->partitioner = pt;
    pt->kind = (int32_t)d->partitioner.kind;
    pt->num_partitions = d->partitioner.num_partitions;
    pt->ascending = d->partitioner.ascending;
    if (d->partitioner.num_bounds > 0) {
        if (!d->partitioner.bounds)
            return cs_error_set(err, CS_EINVAL, "shuffle %d: range bounds missing", d->shuffle_id);
        size_t nb = (size_t)d->partitioner.num_bounds;
        pt->bounds = cs_xcalloc(nb, sizeof *pt->bounds);
        for (size_t i = 0; i < nb; i++)
            pt->bounds[i] =
                cs_pb_bin_dup(d->partitioner.bounds[i].ptr, d->partitioner.bounds[i].len);
        pt->n_bounds = nb;
    }
    p->map_side_combine = d->map_side_combine;
    return agg_to_pb(&d->agg, &p->agg_create, &p->agg_merge_value, &p->agg_merge_combiners,
                     &p->agg_zero, &p->agg_has_zero, "shuffle dep", err);
}

typedef struct ptr_vec {
    void **v;
    size_t n, cap;
} ptr_vec;

static void ptr_vec_push(ptr_vec *s, void *p)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->v = cs_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = p;
}

/* Adds r and its narrow ancestors (not beyond the shuffles shuffled nodes read) to nodes/order. */
static int collect_nodes(cspark_rdd *start, cs_hmap *nodes, ptr_vec *order, ptr_vec *stack,
                         cs_error *err)
{
    stack->n = 0;
    ptr_vec_push(stack, start);
    while (stack->n) {
        cspark_rdd *r = stack->v[--stack->n];
        if (index_of(nodes, r) >= 0) continue;
        if (order->n >= (size_t)INT_MAX)
            return cs_error_set(err, CS_EINVAL, "stage plan: too many nodes");
        if (!cs_rdd_kind_of(r->kind))
            return cs_error_set(err, CS_EINVAL, "rdd %d: unknown kind %d", r->id, (int)r->kind);
        if (r->num_parents < 0 || r->num_parents > 2 || r->num_deps < 0 || r->num_deps > 2 ||
            r->num_partitions < 0)
            return cs_error_set(err, CS_EINVAL, "rdd %d: bad parent, dep or partition count",
                                r->id);
        index_put(nodes, r, (int)order->n);
        ptr_vec_push(order, r);
        /* a shuffled node's parents, if any, are read narrowly: part of the stage */
        for (int i = r->num_parents - 1; i >= 0; i--) {
            if (!r->parents[i]) return cs_error_set(err, CS_EINVAL, "rdd %d: NULL parent", r->id);
            ptr_vec_push(stack, r->parents[i]);
        }
    }
    return 0;
}

Cspark__StagePlan *cs_stage_plan_encode(cspark_rdd *root, const task_sink *sink,
                                        const shuffle_input *inputs, int num_inputs, cs_error *err)
{
    if (!root || !sink || num_inputs < 0 || (num_inputs > 0 && !inputs)) {
        cs_error_set(err, CS_EINVAL, "stage plan: bad arguments");
        return NULL;
    }
    if (sink->kind == SINK_SHUFFLE && (!sink->dep || !sink->dep->parent)) {
        cs_error_set(err, CS_EINVAL, "stage plan: shuffle sink without a dependency");
        return NULL;
    }
    cs_hmap nodes = {0}, deps = {0};
    ptr_vec order = {0}, dep_order = {0}, stack = {0};
    Cspark__StagePlan *pb = cs_xmalloc(sizeof *pb);
    cspark__stage_plan__init(pb);
    int rc = collect_nodes(root, &nodes, &order, &stack, err);
    if (rc == 0 && sink->kind == SINK_SHUFFLE)
        rc = collect_nodes(sink->dep->parent, &nodes, &order, &stack, err);
    if (rc < 0) goto fail;

    /* deps: those read by shuffled nodes, then the one the sink writes */
    for (size_t i = 0; i < order.n; i++) {
        cspark_rdd *r = order.v[i];
        for (int d = 0; d < r->num_deps; d++) {
            if (!r->deps[d]) {
                rc = cs_error_set(err, CS_EINVAL, "rdd %d: NULL shuffle dependency", r->id);
                goto fail;
            }
            if (index_of(&deps, r->deps[d]) < 0) {
                index_put(&deps, r->deps[d], (int)dep_order.n);
                ptr_vec_push(&dep_order, r->deps[d]);
            }
        }
    }
    if (sink->kind == SINK_SHUFFLE && index_of(&deps, sink->dep) < 0) {
        index_put(&deps, sink->dep, (int)dep_order.n);
        ptr_vec_push(&dep_order, sink->dep);
    }

    pb->rdds = cs_xcalloc(order.n ? order.n : 1, sizeof *pb->rdds);
    for (size_t i = 0; i < order.n; i++) {
        Cspark__RddNode *n = cs_xmalloc(sizeof *n);
        cspark__rdd_node__init(n);
        pb->rdds[i] = n;
        pb->n_rdds = i + 1;
        if ((rc = node_to_pb(order.v[i], &nodes, &deps, n, err)) < 0) goto fail;
    }
    pb->root = index_of(&nodes, root);
    if (dep_order.n) pb->deps = cs_xcalloc(dep_order.n, sizeof *pb->deps);
    for (size_t i = 0; i < dep_order.n; i++) {
        const shuffle_dep *d = dep_order.v[i];
        Cspark__ShuffleDep *p = cs_xmalloc(sizeof *p);
        cspark__shuffle_dep__init(p);
        pb->deps[i] = p;
        pb->n_deps = i + 1;
        int parent =
            d == sink->dep && sink->kind == SINK_SHUFFLE ? index_of(&nodes, d->parent) : -1;
        if ((rc = dep_to_pb(d, parent, p, err)) < 0) goto fail;
    }

    Cspark__TaskSink *s = cs_xmalloc(sizeof *s);
    cspark__task_sink__init(s);
    pb->sink = s;
    s->kind = (int32_t)sink->kind;
    s->dep = sink->kind == SINK_SHUFFLE ? index_of(&deps, sink->dep) : -1;
    s->take_n = sink->take_n;
    if ((rc = fn_to_pb(&sink->fn, &s->fn, "sink", err)) < 0) goto fail;
    if (sink->has_zero) s->zero = cs_pb_bin_dup(sink->zero, sink->zero_len);
    s->has_zero = sink->has_zero;
    if (sink->save_path) s->save_path = cs_xstrdup(sink->save_path);
    s->sample_size = sink->sample_size;

    if (num_inputs > 0) pb->inputs = cs_xcalloc((size_t)num_inputs, sizeof *pb->inputs);
    for (int i = 0; i < num_inputs; i++) {
        const shuffle_input *in = &inputs[i];
        Cspark__ShuffleInput *pi = cs_xmalloc(sizeof *pi);
        cspark__shuffle_input__init(pi);
        pb->inputs[i] = pi;
        pb->n_inputs = (size_t)i + 1;
        pi->shuffle_id = in->shuffle_id;
        if (in->num_maps < 0 || (in->num_maps > 0 && !in->maps)) {
            rc = cs_error_set(err, CS_EINVAL, "shuffle input %d: bad map list", in->shuffle_id);
            goto fail;
        }
        if (in->num_maps > 0) pi->maps = cs_xcalloc((size_t)in->num_maps, sizeof *pi->maps);
        for (int m = 0; m < in->num_maps; m++) {
            Cspark__MapStatus *ms = cs_xmalloc(sizeof *ms);
            pi->maps[m] = ms;
            pi->n_maps = (size_t)m + 1;
            if (!in->maps[m]) {
                cspark__map_status__init(ms);
                ms->shuffle_id = in->shuffle_id;
                ms->map_id = -1;
            } else if ((rc = cs_map_status_encode(in->maps[m], ms, err)) < 0) {
                goto fail;
            }
        }
    }
    cs_hmap_free(&nodes);
    cs_hmap_free(&deps);
    free(order.v);
    free(dep_order.v);
    free(stack.v);
    return pb;
fail:
    cs_hmap_free(&nodes);
    cs_hmap_free(&deps);
    free(order.v);
    free(dep_order.v);
    free(stack.v);
    cs_stage_plan_pb_free(pb);
    return NULL;
}

void cs_stage_plan_pb_free(Cspark__StagePlan *pb)
{
    if (pb) protobuf_c_message_free_unpacked(&pb->base, NULL);
}
