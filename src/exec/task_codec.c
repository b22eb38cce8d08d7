/*
 * task_codec.c — StagePlan / TaskResult / MapStatus / TaskMetrics codecs (see task_codec.h).
 *
 * Encoding walks the stage's narrow lineage iteratively (deep lineages do not recurse) and
 * numbers nodes in discovery order (root = 0); shared nodes and deps are numbered once through a
 * pointer hash. Every protobuf-c structure built here is malloc'd and unshared, so a whole
 * StagePlan is released with protobuf_c_message_free_unpacked.
 *
 * Decoding builds context-free nodes (sc == NULL) with exactly the allocations cs_rdd_free and
 * cs_shuffle_dep_free release (names, fn_refs, par_data, par_offsets, splits + paths, union and
 * coalesce tables, agg zeros, range_bounds + range_bound_data), so cs_stage_plan_free uses them.
 * Everything a task could index with a partition number is validated against num_partitions,
 * and parent links are checked for cycles, so a malformed message fails with CS_EPROTO instead
 * of crashing a task later.
 *
 * Record payloads (parallelize data, task results) are written as uncompressed recio blocks
 * directly into one exact-size buffer: no intermediate writer buffers on the per-task path.
 */
#define _GNU_SOURCE
#include "exec/task_codec.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/rdd_internal.h"
#include "common/recio.h"

/* ---- small helpers ----------------------------------------------------------------------- */

static void *memdup(const void *p, size_t n)
{
    void *q = cs_xmalloc(n ? n : 1);
    if (n) memcpy(q, p, n);
    return q;
}

static ProtobufCBinaryData bin_dup(const void *p, size_t n)
{
    ProtobufCBinaryData b = {0, NULL};
    if (p && n) {
        b.data = memdup(p, n);
        b.len = n;
    }
    return b;
}

static const char *pb_str(const char *s)
{
    return s ? s : "";
}

/* Uncompressed recio blocks of b's records, cut as the recio writer cuts them. out == NULL
 * measures. Returns the encoded length. */
static size_t records_emit(const cs_batch *b, uint8_t *out)
{
    size_t total = 0, i = 0;
    while (i < b->n) {
        size_t raw = 0, j = i;
        while (j < b->n) {
            size_t rs = recio_record_size(b->recs[j].klen, b->recs[j].vlen);
            if (raw > 0 && raw + rs > RECIO_BLOCK_TARGET) break;
            raw += rs;
            j++;
        }
        if (out) {
            uint8_t *h = out + total;
            uint8_t *p = h + RECIO_HEADER_LEN;
            for (size_t k = i; k < j; k++) {
                const cs_rec *r = &b->recs[k];
                p += recio_put_header(p, r->klen, r->vlen);
                memcpy(p, b->data + r->off, (size_t)r->klen + r->vlen);
                p += (size_t)r->klen + r->vlen;
            }
            cs_recio_seal_stored_block(h, (uint32_t)raw, CS_CHECKSUM_DEFAULT);
        }
        total += RECIO_HEADER_LEN + raw;
        i = j;
    }
    return total;
}

static ProtobufCBinaryData records_encode(const cs_batch *b)
{
    ProtobufCBinaryData d = {0, NULL};
    if (!b || b->n == 0) return d;
    d.len = records_emit(b, NULL);
    d.data = cs_xmalloc(d.len);
    records_emit(b, d.data);
    return d;
}

/* ---- pointer → index map (open addressing) ------------------------------------------------ */

typedef struct ptr_index {
    const void **keys;
    int *vals;
    size_t cap, n;
} ptr_index;

static size_t ptr_hash(const void *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

static int ptr_index_get(const ptr_index *m, const void *p)
{
    if (!m->cap) return -1;
    for (size_t i = ptr_hash(p, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i]) return -1;
        if (m->keys[i] == p) return m->vals[i];
    }
}

static void ptr_index_put(ptr_index *m, const void *p, int v)
{
    if ((m->n + 1) * 2 > m->cap) {
        ptr_index old = *m;
        m->cap = old.cap ? old.cap * 2 : 16;
        m->keys = cs_xcalloc(m->cap, sizeof *m->keys);
        m->vals = cs_xcalloc(m->cap, sizeof *m->vals);
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i]) ptr_index_put(m, old.keys[i], old.vals[i]);
        free(old.keys);
        free(old.vals);
    }
    size_t i = ptr_hash(p, m->cap);
    while (m->keys[i])
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = p;
    m->vals[i] = v;
    m->n++;
}

static void ptr_index_free(ptr_index *m)
{
    free(m->keys);
    free(m->vals);
}

/* ---- metrics and map statuses -------------------------------------------------------------- */

void cs_task_metrics_to_pb(const cs_task_metrics *m, Cspark__TaskMetrics *pb)
{
    cspark__task_metrics__init(pb);
    pb->run_time_ms = m->run_time_ms;
    pb->cpu_time_ns = m->cpu_time_ns;
    pb->result_size = m->result_size;
    pb->records_read = m->records_read;
    pb->bytes_read = m->bytes_read;
    pb->records_written = m->records_written;
    pb->bytes_written = m->bytes_written;
    pb->shuffle_bytes_written = m->shuffle_bytes_written;
    pb->shuffle_records_written = m->shuffle_records_written;
    pb->shuffle_bytes_read = m->shuffle_bytes_read;
    pb->shuffle_records_read = m->shuffle_records_read;
    pb->memory_bytes_spilled = m->memory_bytes_spilled;
    pb->disk_bytes_spilled = m->disk_bytes_spilled;
    pb->peak_execution_memory = m->peak_execution_memory;
    pb->shuffle_remote_bytes_read = m->shuffle_remote_bytes_read;
    pb->shuffle_local_blocks_fetched = m->shuffle_local_blocks_fetched;
    pb->shuffle_remote_blocks_fetched = m->shuffle_remote_blocks_fetched;
}

void cs_task_metrics_from_pb(const Cspark__TaskMetrics *pb, cs_task_metrics *m)
{
    memset(m, 0, sizeof *m);
    if (!pb) return;
    m->run_time_ms = pb->run_time_ms;
    m->cpu_time_ns = pb->cpu_time_ns;
    m->result_size = pb->result_size;
    m->records_read = pb->records_read;
    m->bytes_read = pb->bytes_read;
    m->records_written = pb->records_written;
    m->bytes_written = pb->bytes_written;
    m->shuffle_bytes_written = pb->shuffle_bytes_written;
    m->shuffle_records_written = pb->shuffle_records_written;
    m->shuffle_bytes_read = pb->shuffle_bytes_read;
    m->shuffle_records_read = pb->shuffle_records_read;
    m->memory_bytes_spilled = pb->memory_bytes_spilled;
    m->disk_bytes_spilled = pb->disk_bytes_spilled;
    m->peak_execution_memory = pb->peak_execution_memory;
    m->shuffle_remote_bytes_read = pb->shuffle_remote_bytes_read;
    m->shuffle_local_blocks_fetched = pb->shuffle_local_blocks_fetched;
    m->shuffle_remote_blocks_fetched = pb->shuffle_remote_blocks_fetched;
}

int cs_map_status_encode(const cs_map_status *st, Cspark__MapStatus *out, cs_error *err)
{
    cspark__map_status__init(out);
    if (!st) return cs_error_set(err, CS_EINVAL, "map status: NULL");
    if (st->num_reduces < 0 || (st->num_reduces > 0 && !st->sizes))
        return cs_error_set(err, CS_EINVAL, "map status of shuffle %d map %d: no sizes",
                            st->shuffle_id, st->map_id);
    out->shuffle_id = st->shuffle_id;
    out->map_id = st->map_id;
    if (st->num_reduces > 0) {
        out->sizes = memdup(st->sizes, (size_t)st->num_reduces * sizeof *st->sizes);
        out->n_sizes = (size_t)st->num_reduces;
    }
    out->executor_id = cs_xstrndup(st->executor_id, sizeof st->executor_id - 1);
    out->host = cs_xstrndup(st->host, sizeof st->host - 1);
    out->port = st->port;
    out->records_written = st->records_written;
    out->bytes_written = st->bytes_written;
    return 0;
}

void cs_map_status_pb_clear(Cspark__MapStatus *pb)
{
    if (!pb) return;
    free(pb->sizes);
    if (pb->executor_id && pb->executor_id != protobuf_c_empty_string) free(pb->executor_id);
    if (pb->host && pb->host != protobuf_c_empty_string) free(pb->host);
    cspark__map_status__init(pb);
}

int cs_map_status_decode(const Cspark__MapStatus *pb, cs_map_status *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!pb) return cs_error_set(err, CS_EPROTO, "map status missing");
    const char *eid = pb_str(pb->executor_id), *host = pb_str(pb->host);
    if (pb->n_sizes > (size_t)INT_MAX || strlen(eid) >= sizeof out->executor_id ||
        strlen(host) >= sizeof out->host)
        return cs_error_set(err, CS_EPROTO, "map status of shuffle %d map %d: field too long",
                            pb->shuffle_id, pb->map_id);
    out->shuffle_id = pb->shuffle_id;
    out->map_id = pb->map_id;
    out->num_reduces = (int)pb->n_sizes;
    if (pb->n_sizes) out->sizes = memdup(pb->sizes, pb->n_sizes * sizeof *out->sizes);
    strcpy(out->executor_id, eid);
    strcpy(out->host, host);
    out->port = pb->port;
    out->records_written = pb->records_written;
    out->bytes_written = pb->bytes_written;
    return 0;
}

/* ---- task results ---------------------------------------------------------------------------- */

int cs_task_result_encode(const task_result *r, Cspark__TaskResult *out, cs_error *err)
{
    cspark__task_result__init(out);
    if (!r) return cs_error_set(err, CS_EINVAL, "task result: NULL");
    out->status = (int32_t)r->status;
    if (r->error) out->error = cs_xstrdup(r->error);
    out->fetch_shuffle_id = r->fetch_shuffle_id;
    out->fetch_map_id = r->fetch_map_id;
    out->data = records_encode(&r->data);
    out->count = r->count;
    if (r->has_map_status) {
        out->map_status = cs_xmalloc(sizeof *out->map_status);
        int rc = cs_map_status_encode(&r->map_status, out->map_status, err);
        if (rc < 0) {
            cs_task_result_pb_clear(out);
            return rc;
        }
        out->has_map_status = 1;
    }
    out->metrics = cs_xmalloc(sizeof *out->metrics);
    cs_task_metrics_to_pb(&r->metrics, out->metrics);
    return 0;
}

void cs_task_result_pb_clear(Cspark__TaskResult *pb)
{
    if (!pb) return;
    if (pb->error && pb->error != protobuf_c_empty_string) free(pb->error);
    free(pb->data.data);
    if (pb->map_status) {
        cs_map_status_pb_clear(pb->map_status);
        free(pb->map_status);
    }
    free(pb->metrics);
    cspark__task_result__init(pb);
}

int cs_task_result_decode(const Cspark__TaskResult *pb, task_result *out, cs_error *err)
{
    if (!pb) return cs_error_set(err, CS_EPROTO, "task result missing");
    if (pb->status < TASK_OK || pb->status > TASK_FETCH_FAILED)
        return cs_error_set(err, CS_EPROTO, "task result: unknown status %d", pb->status);
    if (pb->has_map_status && !pb->map_status)
        return cs_error_set(err, CS_EPROTO, "task result: has_map_status without a map status");
    if (pb->data.len) {
        if (!pb->data.data) return cs_error_set(err, CS_EPROTO, "task result: no data");
        int rc = cs_recio_decode_all(pb->data.data, pb->data.len, &out->data, err);
        if (rc < 0) {
            cs_batch_reset(&out->data);
            cs_error_prefix(err, "task result data");
            if (err) err->code = CS_EPROTO;
            return CS_EPROTO;
        }
    }
    if (pb->has_map_status) {
        int rc = cs_map_status_decode(pb->map_status, &out->map_status, err);
        if (rc < 0) {
            cs_batch_reset(&out->data);
            return rc;
        }
        out->has_map_status = true;
    }
    out->status = (task_status)pb->status;
    const char *e = pb_str(pb->error);
    if (*e) out->error = cs_xstrdup(e);
    out->fetch_shuffle_id = pb->fetch_shuffle_id;
    out->fetch_map_id = pb->fetch_map_id;
    out->count = pb->count;
    cs_task_metrics_from_pb(pb->metrics, &out->metrics);
    return 0;
}

/* ---- stage plan: encode ---------------------------------------------------------------------- */

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
    p->closure = bin_dup(f->closure, f->closure_len);
    *out = p;
    return 0;
}

static int32_t *ints_dup(const int *v, size_t n)
{
    int32_t *o = cs_xmalloc(n * sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = v[i];
    return o;
}

static int node_to_pb(const cspark_rdd *r, const ptr_index *nodes, const ptr_index *deps,
                      Cspark__RddNode *p, cs_error *err)
{
    int np = r->num_partitions;
    p->id = r->id;
    p->kind = (int32_t)r->kind;
    p->num_partitions = np;
    if (r->name) p->name = cs_xstrdup(r->name);
    if (r->num_parents > 0) {
        p->parents = cs_xmalloc((size_t)r->num_parents * sizeof *p->parents);
        for (int i = 0; i < r->num_parents; i++)
            p->parents[i] = ptr_index_get(nodes, r->parents[i]);
        p->n_parents = (size_t)r->num_parents;
    }
    int rc = fn_to_pb(&r->fn, &p->fn, "rdd", err);
    if (rc < 0) return rc;
    p->range_start = r->range_start;
    p->range_end = r->range_end;
    p->range_step = r->range_step;
    switch (r->kind) {
    case RDD_PARALLELIZE:
        if (!r->par_offsets)
            return cs_error_set(err, CS_EINVAL, "parallelize node %d: no slices", r->id);
        p->par_data = records_encode(&r->par_data);
        p->par_offsets = cs_xmalloc(((size_t)np + 1) * sizeof *p->par_offsets);
        for (int i = 0; i <= np; i++)
            p->par_offsets[i] = r->par_offsets[i];
        p->n_par_offsets = (size_t)np + 1;
        break;
    case RDD_TEXT_FILE:
        if (np > 0 && !r->splits)
            return cs_error_set(err, CS_EINVAL, "text node %d: no splits", r->id);
        if (np > 0) p->splits = cs_xcalloc((size_t)np, sizeof *p->splits);
        for (int i = 0; i < np; i++) {
            Cspark__TextSplit *s = cs_xmalloc(sizeof *s);
            cspark__text_split__init(s);
            s->path = cs_xstrdup(pb_str(r->splits[i].path));
            s->start = r->splits[i].start;
            s->length = r->splits[i].length;
            s->file_size = r->splits[i].file_size;
            p->splits[i] = s;
            p->n_splits = (size_t)i + 1;
        }
        break;
    case RDD_UNION:
        if (np > 0 && (!r->union_parent || !r->union_index))
            return cs_error_set(err, CS_EINVAL, "union node %d: no partition table", r->id);
        if (np > 0) {
            p->union_parent = ints_dup(r->union_parent, (size_t)np);
            p->n_union_parent = (size_t)np;
            p->union_index = ints_dup(r->union_index, (size_t)np);
            p->n_union_index = (size_t)np;
        }
        break;
    case RDD_COALESCE:
        if (!r->group_start)
            return cs_error_set(err, CS_EINVAL, "coalesce node %d: no groups", r->id);
        p->group_start = ints_dup(r->group_start, (size_t)np + 1);
        p->n_group_start = (size_t)np + 1;
        break;
    case RDD_SHUFFLED:
        if (r->num_deps > 0) {
            p->deps = cs_xmalloc((size_t)r->num_deps * sizeof *p->deps);
            for (int i = 0; i < r->num_deps; i++)
                p->deps[i] = ptr_index_get(deps, r->deps[i]);
            p->n_deps = (size_t)r->num_deps;
        }
        break;
    default:
        break;
    }
    p->read_mode = (int32_t)r->read_mode;
    if ((rc = fn_to_pb(&r->agg_create, &p->agg_create, "rdd", err)) < 0 ||
        (rc = fn_to_pb(&r->agg_merge_value, &p->agg_merge_value, "rdd", err)) < 0 ||
        (rc = fn_to_pb(&r->agg_merge_combiners, &p->agg_merge_combiners, "rdd", err)) < 0)
        return rc;
    if (r->agg_has_zero) p->agg_zero = bin_dup(r->agg_zero, r->agg_zero_len);
    p->agg_has_zero = r->agg_has_zero;
    p->values_are_combiners = r->values_are_combiners;
    p->ascending = r->ascending;
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
            pt->bounds[i] = bin_dup(d->partitioner.bounds[i].ptr, d->partitioner.bounds[i].len);
        pt->n_bounds = nb;
    }
    p->map_side_combine = d->map_side_combine;
    int rc;
    if ((rc = fn_to_pb(&d->agg_create, &p->agg_create, "shuffle dep", err)) < 0 ||
        (rc = fn_to_pb(&d->agg_merge_value, &p->agg_merge_value, "shuffle dep", err)) < 0 ||
        (rc = fn_to_pb(&d->agg_merge_combiners, &p->agg_merge_combiners, "shuffle dep", err)) < 0)
        return rc;
    if (d->agg_has_zero) p->agg_zero = bin_dup(d->agg_zero, d->agg_zero_len);
    p->agg_has_zero = d->agg_has_zero;
    return 0;
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

/* Adds r and its narrow ancestors (not beyond shuffled nodes) to nodes/order. */
static int collect_nodes(cspark_rdd *start, ptr_index *nodes, ptr_vec *order, ptr_vec *stack,
                         cs_error *err)
{
    stack->n = 0;
    ptr_vec_push(stack, start);
    while (stack->n) {
        cspark_rdd *r = stack->v[--stack->n];
        if (ptr_index_get(nodes, r) >= 0) continue;
        if (order->n >= (size_t)INT_MAX)
            return cs_error_set(err, CS_EINVAL, "stage plan: too many nodes");
        if ((unsigned)r->kind > RDD_SHUFFLED)
            return cs_error_set(err, CS_EINVAL, "rdd %d: unknown kind %d", r->id, (int)r->kind);
        if (r->num_parents < 0 || r->num_parents > 2 || r->num_deps < 0 || r->num_deps > 2 ||
            r->num_partitions < 0)
            return cs_error_set(err, CS_EINVAL, "rdd %d: bad parent, dep or partition count",
                                r->id);
        ptr_index_put(nodes, r, (int)order->n);
        ptr_vec_push(order, r);
        if (r->kind == RDD_SHUFFLED) continue;
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
    ptr_index nodes = {0}, deps = {0};
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
        if (r->kind != RDD_SHUFFLED) continue;
        for (int d = 0; d < r->num_deps; d++) {
            if (!r->deps[d]) {
                rc = cs_error_set(err, CS_EINVAL, "rdd %d: NULL shuffle dependency", r->id);
                goto fail;
            }
            if (ptr_index_get(&deps, r->deps[d]) < 0) {
                ptr_index_put(&deps, r->deps[d], (int)dep_order.n);
                ptr_vec_push(&dep_order, r->deps[d]);
            }
        }
    }
    if (sink->kind == SINK_SHUFFLE && ptr_index_get(&deps, sink->dep) < 0) {
        ptr_index_put(&deps, sink->dep, (int)dep_order.n);
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
    pb->root = ptr_index_get(&nodes, root);
    if (dep_order.n) pb->deps = cs_xcalloc(dep_order.n, sizeof *pb->deps);
    for (size_t i = 0; i < dep_order.n; i++) {
        const shuffle_dep *d = dep_order.v[i];
        Cspark__ShuffleDep *p = cs_xmalloc(sizeof *p);
        cspark__shuffle_dep__init(p);
        pb->deps[i] = p;
        pb->n_deps = i + 1;
        int parent =
            d == sink->dep && sink->kind == SINK_SHUFFLE ? ptr_index_get(&nodes, d->parent) : -1;
        if ((rc = dep_to_pb(d, parent, p, err)) < 0) goto fail;
    }

    Cspark__TaskSink *s = cs_xmalloc(sizeof *s);
    cspark__task_sink__init(s);
    pb->sink = s;
    s->kind = (int32_t)sink->kind;
    s->dep = sink->kind == SINK_SHUFFLE ? ptr_index_get(&deps, sink->dep) : -1;
    s->take_n = sink->take_n;
    if ((rc = fn_to_pb(&sink->fn, &s->fn, "sink", err)) < 0) goto fail;
    if (sink->has_zero) s->zero = bin_dup(sink->zero, sink->zero_len);
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
    ptr_index_free(&nodes);
    ptr_index_free(&deps);
    free(order.v);
    free(dep_order.v);
    free(stack.v);
    return pb;
fail:
    ptr_index_free(&nodes);
    ptr_index_free(&deps);
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

/* ---- stage plan: decode ---------------------------------------------------------------------- */

#define PROTO_ERR(...) cs_error_set(err, CS_EPROTO, "stage plan: " __VA_ARGS__)

static int fn_from_pb(const Cspark__FnRef *pb, void *app, fn_ref *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!pb || !pb->name || !*pb->name) return 0;
    void *p = cs_builtin_lookup(pb->name);
    if (!p && app) p = dlsym(app, pb->name);
    if (!p) p = dlsym(RTLD_DEFAULT, pb->name);
    if (!p)
        return cs_error_set(err, CS_ENOTFOUND,
                            "function '%s' not found in the application or libcspark", pb->name);
    out->name = cs_xstrdup(pb->name);
    out->ptr = p;
    if (pb->closure.len) {
        if (!pb->closure.data) return PROTO_ERR("closure of '%s' has no data", pb->name);
        cs_fn_ref_copy_closure(out, pb->closure.data, pb->closure.len);
    }
    return 0;
}

static int zero_from_pb(ProtobufCBinaryData z, bool has, uint8_t **dst, uint32_t *len,
                        cs_error *err)
{
    *dst = NULL;
    *len = 0;
    if (!has) return 0;
    if (z.len > UINT32_MAX || (z.len && !z.data)) return PROTO_ERR("bad zero value");
    *dst = memdup(z.data, z.len);
    *len = (uint32_t)z.len;
    return 0;
}

static int dep_from_pb(const Cspark__ShuffleDep *pb, int num_rdds, void *app, shuffle_dep *d,
                       cs_error *err)
{
    d->shuffle_id = pb->shuffle_id;
    if (pb->parent < -1 || pb->parent >= num_rdds)
        return PROTO_ERR("shuffle %d: parent %d out of range", pb->shuffle_id, pb->parent);
    const Cspark__Partitioner *pt = pb->partitioner;
    if (!pt) return PROTO_ERR("shuffle %d: no partitioner", pb->shuffle_id);
    if (pt->kind < PART_HASH || pt->kind > PART_ROUND_ROBIN || pt->num_partitions < 1)
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
    int rc;
    if ((rc = fn_from_pb(pb->agg_create, app, &d->agg_create, err)) < 0 ||
        (rc = fn_from_pb(pb->agg_merge_value, app, &d->agg_merge_value, err)) < 0 ||
        (rc = fn_from_pb(pb->agg_merge_combiners, app, &d->agg_merge_combiners, err)) < 0)
        return rc;
    if (d->map_side_combine && (!d->agg_merge_value.ptr || !d->agg_merge_combiners.ptr))
        return PROTO_ERR("shuffle %d: map-side combine without merge functions", pb->shuffle_id);
    d->agg_has_zero = pb->agg_has_zero;
    return zero_from_pb(pb->agg_zero, pb->agg_has_zero, &d->agg_zero, &d->agg_zero_len, err);
}

static int parents_expected(rdd_kind k)
{
    switch (k) {
    case RDD_MAP:
    case RDD_FLAT_MAP:
    case RDD_FILTER:
    case RDD_MAP_PARTITIONS:
    case RDD_COALESCE:
        return 1;
    case RDD_UNION:
        return 2;
    default:
        return 0;
    }
}

/* Fields of one node that do not depend on other nodes. */
static int node_from_pb(const Cspark__RddNode *pb, int idx, int num_rdds, int num_deps, void *app,
                        cspark_rdd *r, cs_error *err)
{
    r->id = pb->id;
    r->name = cs_xstrdup(pb_str(pb->name));
    if (pb->kind < RDD_PARALLELIZE || pb->kind > RDD_SHUFFLED)
        return PROTO_ERR("node %d: unknown kind %d", idx, pb->kind);
    r->kind = (rdd_kind)pb->kind;
    if (pb->num_partitions < 0 || pb->num_partitions == INT_MAX)
        return PROTO_ERR("node %d: bad partition count %d", idx, pb->num_partitions);
    int np = r->num_partitions = pb->num_partitions;
    size_t unp = (size_t)np;
    if (pb->n_parents != (size_t)parents_expected(r->kind))
        return PROTO_ERR("node %d: %zu parents for kind %d", idx, pb->n_parents, pb->kind);
    for (size_t i = 0; i < pb->n_parents; i++)
        if (pb->parents[i] < 0 || pb->parents[i] >= num_rdds || pb->parents[i] == idx)
            return PROTO_ERR("node %d: parent %d out of range", idx, pb->parents[i]);
    int rc;
    if ((rc = fn_from_pb(pb->fn, app, &r->fn, err)) < 0) return rc;
    r->range_start = pb->range_start;
    r->range_end = pb->range_end;
    r->range_step = pb->range_step;
    switch (r->kind) {
    case RDD_PARALLELIZE:
        if (pb->n_par_offsets != unp + 1)
            return PROTO_ERR("node %d: %zu slice offsets for %d partitions", idx, pb->n_par_offsets,
                             np);
        if (pb->par_data.len) {
            if (!pb->par_data.data) return PROTO_ERR("node %d: no data", idx);
            if (cs_recio_decode_all(pb->par_data.data, pb->par_data.len, &r->par_data, err) < 0)
                return PROTO_ERR("node %d: corrupt parallelize data", idx);
        }
        r->par_offsets = cs_xmalloc((unp + 1) * sizeof *r->par_offsets);
        for (size_t i = 0; i <= unp; i++) {
            if (pb->par_offsets[i] > r->par_data.n ||
                (i && pb->par_offsets[i] < pb->par_offsets[i - 1]))
                return PROTO_ERR("node %d: bad slice offset %llu", idx,
                                 (unsigned long long)pb->par_offsets[i]);
            r->par_offsets[i] = (size_t)pb->par_offsets[i];
        }
        break;
    case RDD_RANGE:
        if (r->range_step == 0) return PROTO_ERR("node %d: range step 0", idx);
        break;
    case RDD_TEXT_FILE:
        if (pb->n_splits != unp)
            return PROTO_ERR("node %d: %zu splits for %d partitions", idx, pb->n_splits, np);
        r->splits = cs_xcalloc(unp ? unp : 1, sizeof *r->splits);
        r->paths = cs_xcalloc(unp ? unp : 1, sizeof *r->paths);
        for (size_t i = 0; i < unp; i++) {
            const Cspark__TextSplit *s = pb->splits[i];
            if (!s || !s->path || !*s->path) return PROTO_ERR("node %d: split without a path", idx);
            if (s->start > s->file_size || s->length > s->file_size - s->start)
                return PROTO_ERR("node %d: split beyond its file", idx);
            if (r->num_paths == 0 || strcmp(r->paths[r->num_paths - 1], s->path) != 0)
                r->paths[r->num_paths++] = cs_xstrdup(s->path);
            r->splits[i] =
                (text_split){r->paths[r->num_paths - 1], s->start, s->length, s->file_size};
        }
        break;
    case RDD_UNION:
        if (pb->n_union_parent != unp || pb->n_union_index != unp)
            return PROTO_ERR("node %d: union table size does not match %d partitions", idx, np);
        r->union_parent = cs_xcalloc(unp + 1, sizeof(int));
        r->union_index = cs_xcalloc(unp + 1, sizeof(int));
        for (size_t i = 0; i < unp; i++) {
            r->union_parent[i] = pb->union_parent[i];
            r->union_index[i] = pb->union_index[i];
        }
        break;
    case RDD_COALESCE:
        if (pb->n_group_start != unp + 1)
            return PROTO_ERR("node %d: %zu group starts for %d partitions", idx, pb->n_group_start,
                             np);
        r->group_start = cs_xcalloc(unp + 1, sizeof(int));
        for (size_t i = 0; i <= unp; i++)
            r->group_start[i] = pb->group_start[i];
        break;
    case RDD_SHUFFLED:
        if (pb->n_deps < 1 || pb->n_deps > 2)
            return PROTO_ERR("node %d: %zu shuffle dependencies", idx, pb->n_deps);
        if (pb->read_mode < SHUFFLE_READ_PLAIN || pb->read_mode > SHUFFLE_READ_COGROUP)
            return PROTO_ERR("node %d: unknown read mode %d", idx, pb->read_mode);
        if ((pb->read_mode == SHUFFLE_READ_COGROUP) != (pb->n_deps == 2))
            return PROTO_ERR("node %d: %zu dependencies for read mode %d", idx, pb->n_deps,
                             pb->read_mode);
        for (size_t i = 0; i < pb->n_deps; i++)
            if (pb->deps[i] < 0 || pb->deps[i] >= num_deps)
                return PROTO_ERR("node %d: dependency %d out of range", idx, pb->deps[i]);
        break;
    default:
        break;
    }
    if (pb->n_deps && r->kind != RDD_SHUFFLED)
        return PROTO_ERR("node %d: shuffle dependencies on a narrow node", idx);
    r->read_mode = (shuffle_read_mode)pb->read_mode;
    if ((rc = fn_from_pb(pb->agg_create, app, &r->agg_create, err)) < 0 ||
        (rc = fn_from_pb(pb->agg_merge_value, app, &r->agg_merge_value, err)) < 0 ||
        (rc = fn_from_pb(pb->agg_merge_combiners, app, &r->agg_merge_combiners, err)) < 0)
        return rc;
    if ((rc = zero_from_pb(pb->agg_zero, pb->agg_has_zero, &r->agg_zero, &r->agg_zero_len, err)) <
        0)
        return rc;
    r->agg_has_zero = pb->agg_has_zero;
    r->values_are_combiners = pb->values_are_combiners;
    r->ascending = pb->ascending;
    switch (r->kind) {
    case RDD_MAP:
    case RDD_FLAT_MAP:
    case RDD_FILTER:
    case RDD_MAP_PARTITIONS:
        if (!r->fn.ptr) return PROTO_ERR("node %d: no function", idx);
        break;
    case RDD_SHUFFLED:
        if ((r->read_mode == SHUFFLE_READ_AGGREGATE || r->read_mode == SHUFFLE_READ_COGROUP) &&
            (!r->agg_merge_value.ptr || !r->agg_merge_combiners.ptr))
            return PROTO_ERR("node %d: aggregation without merge functions", idx);
        break;
    default:
        break;
    }
    return 0;
}

/* Links parents and deps; checks what depends on the parents' partition counts. */
static int node_link(const Cspark__RddNode *pb, int idx, stage_plan *p, cs_error *err)
{
    cspark_rdd *r = p->rdds[idx];
    r->num_parents = (int)pb->n_parents;
    for (size_t i = 0; i < pb->n_parents; i++)
        r->parents[i] = p->rdds[pb->parents[i]];
    if (r->kind == RDD_SHUFFLED) {
        r->num_deps = (int)pb->n_deps;
        for (size_t i = 0; i < pb->n_deps; i++)
            r->deps[i] = p->deps[pb->deps[i]];
    }
    int np = r->num_partitions;
    switch (r->kind) {
    case RDD_MAP:
    case RDD_FLAT_MAP:
    case RDD_FILTER:
    case RDD_MAP_PARTITIONS:
        if (r->parents[0]->num_partitions != np)
            return PROTO_ERR("node %d: %d partitions but its parent has %d", idx, np,
                             r->parents[0]->num_partitions);
        break;
    case RDD_UNION:
        for (int i = 0; i < np; i++) {
            int up = r->union_parent[i], ui = r->union_index[i];
            if (up < 0 || up > 1 || ui < 0 || ui >= r->parents[up]->num_partitions)
                return PROTO_ERR("node %d: union partition %d maps to (%d, %d)", idx, i, up, ui);
        }
        break;
    case RDD_COALESCE:
        for (int i = 0; i <= np; i++) {
            int g = r->group_start[i];
            if (g < 0 || g > r->parents[0]->num_partitions || (i && g < r->group_start[i - 1]))
                return PROTO_ERR("node %d: bad coalesce group start %d", idx, g);
        }
        break;
    default:
        break;
    }
    return 0;
}

/* Parent links (and the sink dep's parent) must form a DAG: iterative three-colour DFS. */
static int check_acyclic(const stage_plan *p, const Cspark__StagePlan *pb, cs_error *err)
{
    int n = p->num_rdds;
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
    if (pb->kind < SINK_SHUFFLE || pb->kind > SINK_SAMPLE)
        return PROTO_ERR("unknown sink kind %d", pb->kind);
    s->kind = (sink_kind)pb->kind;
    if (s->kind == SINK_SHUFFLE) {
        if (pb->dep < 0 || pb->dep >= p->num_deps)
            return PROTO_ERR("sink dependency %d out of range", pb->dep);
        s->dep = p->deps[pb->dep];
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
    const char *sp = pb_str(pb->save_path);
    if (*sp) s->save_path = cs_xstrdup(sp);
    if (s->kind == SINK_SAVE && !s->save_path) return PROTO_ERR("save sink without a path");
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
    int n = (int)pb->n_rdds, nd = (int)pb->n_deps, rc = 0;
    p->rdds = cs_xcalloc((size_t)n, sizeof *p->rdds);
    p->deps = cs_xcalloc(nd ? (size_t)nd : 1, sizeof *p->deps);
    for (int i = 0; i < nd && rc == 0; i++) {
        p->deps[i] = cs_xcalloc(1, sizeof *p->deps[i]);
        p->num_deps = i + 1;
        rc = dep_from_pb(pb->deps[i], n, app_handle, p->deps[i], err);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        cspark_rdd *r = cs_xcalloc(1, sizeof *r);
        cs_batch_init(&r->par_data);
        p->rdds[i] = r;
        p->num_rdds = i + 1;
        rc = node_from_pb(pb->rdds[i], i, n, nd, app_handle, r, err);
    }
    if (rc == 0) rc = check_acyclic(p, pb, err);
    for (int i = 0; i < n && rc == 0; i++)
        rc = node_link(pb->rdds[i], i, p, err);
    for (int i = 0; i < nd && rc == 0; i++)
        if (pb->deps[i]->parent >= 0) p->deps[i]->parent = p->rdds[pb->deps[i]->parent];
    if (rc == 0) rc = sink_from_pb(pb->sink, p, app_handle, err);
    if (rc == 0) rc = inputs_from_pb(pb, p, err);
    if (rc < 0) {
        cs_stage_plan_free(p);
        return rc;
    }
    p->root = p->rdds[pb->root];
    *out = p;
    return 0;
}

void cs_stage_plan_free(stage_plan *p)
{
    if (!p) return;
    for (int i = 0; i < p->num_rdds; i++)
        cs_rdd_free(p->rdds[i]);
    free(p->rdds);
    for (int i = 0; i < p->num_deps; i++)
        cs_shuffle_dep_free(p->deps[i]);
    free(p->deps);
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
