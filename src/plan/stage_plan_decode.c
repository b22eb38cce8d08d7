/*
 * stage_plan_decode.c — the executor's side of the StagePlan codec (see stage_plan.h).
 *
 * Decoding rebuilds the stage's nodes and dependencies in the plan's own lineage graph, so they
 * are freed as every graph's are. Everything a task could index with a partition number is
 * validated against num_partitions, and parent links are checked for cycles, so a malformed
 * message fails with CS_EPROTO instead of crashing a task later. The fields every node has are
 * read here, a kind's own by its entry in the table of kinds (plan/rdd_kind.h).
 */
#include "plan/stage_plan.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "records/recio.h"
#include "plan/pb_helpers.h"
#include "plan/rdd_kind.h"
#include "plan/task_codec.h"

#define PROTO_ERR(...) cs_error_set(err, CS_EPROTO, "stage plan: " __VA_ARGS__)

static int fn_from_pb(const Cspark__FnRef *pb, void *app, fn_ref *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!pb || !pb->name || !*pb->name) return 0;
    if (pb->closure.len && !pb->closure.data)
        return PROTO_ERR("closure of '%s' has no data", pb->name);
    return cs_fn_ref_resolve(out, pb->name, app, pb->closure.data, pb->closure.len, err);
}

static int zero_from_pb(ProtobufCBinaryData z, bool has, uint8_t **dst, uint32_t *len,
                        cs_error *err)
{
    *dst = NULL;
    *len = 0;
    if (!has) return 0;
    if (z.len > UINT32_MAX || (z.len && !z.data)) return PROTO_ERR("bad zero value");
    *dst = cs_pb_memdup(z.data, z.len);
    *len = (uint32_t)z.len;
    return 0;
}

/* The aggregator's fields of an RddNode or a ShuffleDep message. */
static int agg_from_pb(const Cspark__FnRef *create, const Cspark__FnRef *merge_value,
                       const Cspark__FnRef *merge_combiners, ProtobufCBinaryData zero,
                       bool has_zero, void *app, plan_aggregator *a, cs_error *err)
{
    int rc;
    if ((rc = fn_from_pb(create, app, &a->create, err)) < 0 ||
        (rc = fn_from_pb(merge_value, app, &a->merge_value, err)) < 0 ||
        (rc = fn_from_pb(merge_combiners, app, &a->merge_combiners, err)) < 0)
        return rc;
    a->has_zero = has_zero;
    return zero_from_pb(zero, has_zero, &a->zero, &a->zero_len, err);
}

static int dep_from_pb(const Cspark__ShuffleDep *pb, int num_rdds, void *app, shuffle_dep *d,
                       cs_error *err)
{
    d->shuffle_id = pb->shuffle_id;
    if (pb->parent < -1 || pb->parent >= num_rdds)
        return PROTO_ERR("shuffle %d: parent %d out of range", pb->shuffle_id, pb->parent);
    const Cspark__Partitioner *pt = pb->partitioner;
    if (!pt) return PROTO_ERR("shuffle %d: no partitioner", pb->shuffle_id);
    if (pt->kind < PART_HASH || pt->kind > PART_PASSTHROUGH || pt->num_partitions < 1)
        return PROTO_ERR("shuffle %d: bad partitioner (kind %d, %d partitions)", pb->shuffle_id,
                         pt->kind, pt->num_partitions);
    d->partitioner.kind = (cs_partitioner_kind)pt->kind;
    d->partitioner.num_partitions = pt->num_partitions;
    d->partitioner.ascending = pt->ascending;
    if (pt->n_bounds > 0) {
        if (pt->kind != PART_RANGE || pt->n_bounds > (size_t)pt->num_partitions - 1)
            return PROTO_ERR("shuffle %d: %zu range bounds for %d partitions", pb->shuffle_id,
                             pt->n_bounds, pt->num_partitions);
        size_t bytes = 0;
        for (size_t i = 0; i < pt->n_bounds; i++) {
            if (pt->bounds[i].len > UINT32_MAX || (pt->bounds[i].len && !pt->bounds[i].data))
                return PROTO_ERR("shuffle %d: bad range bound", pb->shuffle_id);
            bytes += pt->bounds[i].len;
        }
        d->range_bound_data = cs_xmalloc(bytes ? bytes : 1);
        d->range_bounds = cs_xcalloc(pt->n_bounds, sizeof *d->range_bounds);
        size_t off = 0;
        for (size_t i = 0; i < pt->n_bounds; i++) {
            if (pt->bounds[i].len)
                memcpy(d->range_bound_data + off, pt->bounds[i].data, pt->bounds[i].len);
            d->range_bounds[i].ptr = d->range_bound_data + off;
            d->range_bounds[i].len = (uint32_t)pt->bounds[i].len;
            off += pt->bounds[i].len;
        }
        d->partitioner.bounds = d->range_bounds;
        d->partitioner.num_bounds = (int)pt->n_bounds;
    }
    d->map_side_combine = pb->map_side_combine;
    int rc = agg_from_pb(pb->agg_create, pb->agg_merge_value, pb->agg_merge_combiners, pb->agg_zero,
                         pb->agg_has_zero, app, &d->agg, err);
    if (rc < 0) return rc;
    if (d->map_side_combine && (!d->agg.merge_value.ptr || !d->agg.merge_combiners.ptr))
        return PROTO_ERR("shuffle %d: map-side combine without merge functions", pb->shuffle_id);
    return 0;
}

/* Fields of one node that do not depend on other nodes: those every node has here, the kind's
 * own by its table entry. */
static int node_from_pb(const Cspark__RddNode *pb, int idx, int num_rdds, int num_deps, void *app,
                        cspark_rdd *r, cs_error *err)
{
    r->id = pb->id;
    const cs_rdd_kind *k = cs_rdd_kind_of(pb->kind);
    if (!k) return PROTO_ERR("node %d: unknown kind %d", idx, pb->kind);
    r->kind = (rdd_kind)pb->kind;
    if (pb->num_partitions < 0 || pb->num_partitions == INT_MAX)
        return PROTO_ERR("node %d: bad partition count %d", idx, pb->num_partitions);
    r->num_partitions = pb->num_partitions;
    /* a shuffled node's parents are the inputs it reads narrowly (checked with its deps) */
    if (k->num_parents == CS_RDD_PARENTS_WITH_SHUFFLES ? pb->n_parents > 2
                                                       : pb->n_parents != (size_t)k->num_parents)
        return PROTO_ERR("node %d: %zu parents for kind %d", idx, pb->n_parents, pb->kind);
    for (size_t i = 0; i < pb->n_parents; i++)
        if (pb->parents[i] < 0 || pb->parents[i] >= num_rdds || pb->parents[i] == idx)
            return PROTO_ERR("node %d: parent %d out of range", idx, pb->parents[i]);
    if (pb->n_deps && k->num_parents != CS_RDD_PARENTS_WITH_SHUFFLES)
        return PROTO_ERR("node %d: shuffle dependencies on a narrow node", idx);
    if (pb->n_deps > 2) return PROTO_ERR("node %d: %zu shuffle dependencies", idx, pb->n_deps);
    for (size_t i = 0; i < pb->n_deps; i++)
        if (pb->deps[i] < 0 || pb->deps[i] >= num_deps)
            return PROTO_ERR("node %d: dependency %d out of range", idx, pb->deps[i]);
    int rc;
    if ((rc = fn_from_pb(pb->fn, app, &r->fn, err)) < 0) return rc;
    r->range_start = pb->range_start;
    r->range_end = pb->range_end;
    r->range_step = pb->range_step;
    r->read_mode = (shuffle_read_mode)pb->read_mode;
    if ((rc = agg_from_pb(pb->agg_create, pb->agg_merge_value, pb->agg_merge_combiners,
                          pb->agg_zero, pb->agg_has_zero, app, &r->agg, err)) < 0)
        return rc;
    r->values_are_combiners = pb->values_are_combiners;
    r->ascending = pb->ascending;
    if (pb->storage_level < CSPARK_STORAGE_NONE || pb->storage_level > CSPARK_DISK_ONLY)
        return PROTO_ERR("node %d: unknown storage level %d", idx, pb->storage_level);
    r->storage_level = pb->storage_level;
    return k->decode ? k->decode(pb, idx, r, err) : 0;
}

/* Links parents and deps; checks what depends on the parents' partition counts. */
static int node_link(const Cspark__RddNode *pb, int idx, stage_plan *p, cs_error *err)
{
    cspark_rdd *r = p->graph.rdds[idx];
    const cs_rdd_kind *k = cs_rdd_kind_of(r->kind);
    r->num_parents = (int)pb->n_parents;
    for (size_t i = 0; i < pb->n_parents; i++)
        r->parents[i] = p->graph.rdds[pb->parents[i]];
    r->num_deps = (int)pb->n_deps;
    for (size_t i = 0; i < pb->n_deps; i++)
        r->deps[i] = p->graph.deps[pb->deps[i]];
    int np = r->num_partitions;
    if (k->one_to_one && r->parents[0]->num_partitions != np)
        return PROTO_ERR("node %d: %d partitions but its parent has %d", idx, np,
                         r->parents[0]->num_partitions);
    return k->check_parents ? k->check_parents(r, idx, err) : 0;
}

/* Parent links (and the sink dep's parent) must form a DAG: iterative three-colour DFS. */
static int check_acyclic(const stage_plan *p, const Cspark__StagePlan *pb, cs_error *err)
{
    int n = p->graph.num_rdds;
    uint8_t *color = cs_xcalloc((size_t)n, 1);
    int *stack = cs_xmalloc((size_t)n * sizeof *stack), *next = cs_xcalloc((size_t)n, sizeof *next);
    int rc = 0;
    for (int s = 0; s < n && rc == 0; s++) {
        if (color[s]) continue;
        int top = 0;
        stack[top++] = s;
        color[s] = 1;
        while (top && rc == 0) {
            int v = stack[top - 1];
            const Cspark__RddNode *nv = pb->rdds[v];
            /* edges: parents, then the parents of the deps a shuffled node reads */
            int edges = (int)nv->n_parents + (int)nv->n_deps, u = -1;
            while (next[v] < edges && u < 0) {
                int e = next[v]++;
                if (e < (int)nv->n_parents)
                    u = nv->parents[e];
                else
                    u = pb->deps[nv->deps[e - (int)nv->n_parents]]->parent;
            }
            if (u < 0) {
                color[v] = 2;
                top--;
            } else if (color[u] == 1) {
                rc = PROTO_ERR("node %d: lineage cycle through node %d", v, u);
            } else if (color[u] == 0) {
                color[u] = 1;
                stack[top++] = u;
            }
        }
    }
    free(color);
    free(stack);
    free(next);
    return rc;
}

static int sink_from_pb(const Cspark__TaskSink *pb, stage_plan *p, void *app, cs_error *err)
{
    task_sink *s = &p->sink;
    if (pb->kind < SINK_SHUFFLE || pb->kind > SINK_KIND_LAST)
        return PROTO_ERR("unknown sink kind %d", pb->kind);
    s->kind = (sink_kind)pb->kind;
    if (s->kind == SINK_SHUFFLE) {
        if (pb->dep < 0 || pb->dep >= p->graph.num_deps)
            return PROTO_ERR("sink dependency %d out of range", pb->dep);
        s->dep = p->graph.deps[pb->dep];
    }
    s->take_n = (size_t)pb->take_n;
    int rc = fn_from_pb(pb->fn, app, &s->fn, err);
    if (rc < 0) return rc;
    if ((s->kind == SINK_FOLD || s->kind == SINK_FOREACH) && !s->fn.ptr)
        return PROTO_ERR("sink kind %d without a function", pb->kind);
    uint8_t *zero;
    if ((rc = zero_from_pb(pb->zero, pb->has_zero, &zero, &s->zero_len, err)) < 0) return rc;
    s->zero = zero;
    s->has_zero = pb->has_zero;
    const char *sp = cs_pb_str(pb->save_path);
    if (*sp) s->save_path = cs_xstrdup(sp);
    if ((s->kind == SINK_SAVE || s->kind == SINK_CHECKPOINT) && !s->save_path)
        return PROTO_ERR("save sink without a path");
    if (pb->sample_size < 0) return PROTO_ERR("negative sample size");
    s->sample_size = pb->sample_size;
    return 0;
}

static int inputs_from_pb(const Cspark__StagePlan *pb, stage_plan *p, cs_error *err)
{
    if (pb->n_inputs > (size_t)INT_MAX) return PROTO_ERR("too many inputs");
    size_t total = 0;
    for (size_t i = 0; i < pb->n_inputs; i++) {
        const Cspark__ShuffleInput *in = pb->inputs[i];
        if (!in || in->n_maps > (size_t)INT_MAX) return PROTO_ERR("bad shuffle input %zu", i);
        for (size_t m = 0; m < in->n_maps; m++) {
            if (!in->maps[m] || in->maps[m]->map_id < -1)
                return PROTO_ERR("shuffle %d: bad map status %zu", in->shuffle_id, m);
            if (in->maps[m]->map_id >= 0) total++;
        }
    }
    if (total > (size_t)INT_MAX) return PROTO_ERR("too many map statuses");
    p->statuses = cs_xcalloc(total ? total : 1, sizeof *p->statuses);
    p->inputs = cs_xcalloc(pb->n_inputs ? pb->n_inputs : 1, sizeof *p->inputs);
    for (size_t i = 0; i < pb->n_inputs; i++) {
        const Cspark__ShuffleInput *in = pb->inputs[i];
        shuffle_input *si = &p->inputs[i];
        p->num_inputs = (int)i + 1;
        si->shuffle_id = in->shuffle_id;
        const cs_map_status **maps = cs_xcalloc(in->n_maps ? in->n_maps : 1, sizeof *maps);
        si->maps = maps;
        si->num_maps = (int)in->n_maps;
        for (size_t m = 0; m < in->n_maps; m++) {
            if (in->maps[m]->map_id < 0) continue;
            cs_map_status *st = &p->statuses[p->num_statuses];
            int rc = cs_map_status_decode(in->maps[m], st, err);
            if (rc < 0) return rc;
            p->num_statuses++;
            maps[m] = st;
        }
    }
    return 0;
}

int cs_stage_plan_decode(const Cspark__StagePlan *pb, void *app_handle, stage_plan **out,
                         cs_error *err)
{
    *out = NULL;
    if (!pb) return PROTO_ERR("missing");
    if (pb->n_rdds < 1 || pb->n_rdds > (size_t)INT_MAX / 2 || pb->n_deps > (size_t)INT_MAX / 2)
        return PROTO_ERR("%zu nodes, %zu dependencies", pb->n_rdds, pb->n_deps);
    if (pb->root < 0 || (size_t)pb->root >= pb->n_rdds)
        return PROTO_ERR("root %d out of range", pb->root);
    if (!pb->sink) return PROTO_ERR("no sink");
    for (size_t i = 0; i < pb->n_rdds; i++)
        if (!pb->rdds[i]) return PROTO_ERR("node %zu missing", i);
    for (size_t i = 0; i < pb->n_deps; i++)
        if (!pb->deps[i]) return PROTO_ERR("dependency %zu missing", i);

    stage_plan *p = cs_xcalloc(1, sizeof *p);
    cs_lineage_init(&p->graph);
    int n = (int)pb->n_rdds, nd = (int)pb->n_deps, rc = 0;
    for (int i = 0; i < nd && rc == 0; i++) {
        shuffle_dep *d = cs_shuffle_dep_new(&p->graph, NULL);
        rc = dep_from_pb(pb->deps[i], n, app_handle, d, err);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        cspark_rdd *r = cs_rdd_new(&p->graph, RDD_PARALLELIZE, 0, cs_pb_str(pb->rdds[i]->name));
        rc = node_from_pb(pb->rdds[i], i, n, nd, app_handle, r, err);
    }
    if (rc == 0) rc = check_acyclic(p, pb, err);
    for (int i = 0; i < n && rc == 0; i++)
        rc = node_link(pb->rdds[i], i, p, err);
    for (int i = 0; i < nd && rc == 0; i++)
        if (pb->deps[i]->parent >= 0) p->graph.deps[i]->parent = p->graph.rdds[pb->deps[i]->parent];
    if (rc == 0) rc = sink_from_pb(pb->sink, p, app_handle, err);
    if (rc == 0) rc = inputs_from_pb(pb, p, err);
    if (rc < 0) {
        cs_stage_plan_free(p);
        return rc;
    }
    p->root = p->graph.rdds[pb->root];
    *out = p;
    return 0;
}

void cs_stage_plan_free(stage_plan *p)
{
    if (!p) return;
    cs_lineage_free(&p->graph);
    cs_fn_ref_free(&p->sink.fn);
    free((void *)p->sink.zero);
    free((void *)p->sink.save_path);
    for (int i = 0; i < p->num_inputs; i++)
        free((void *)p->inputs[i].maps);
    free(p->inputs);
    for (int i = 0; i < p->num_statuses; i++)
        cs_map_status_free(&p->statuses[i]);
    free(p->statuses);
    free(p);
}
