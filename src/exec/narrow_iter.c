/*
 * narrow_iter.c — the iterators of the kinds that compute a partition from the same partition of
 * one parent (Spark's MapPartitionsRDD and its kin; see plan/kinds/map_partitions.c, which opens
 * them). Per-record kinds transform whole batches: the iterator pulls one batch from its parent,
 * runs the user function over every record into its own output batch and returns it, so there is
 * no allocation per record and one indirect call per record (map, flat_map, filter, map_values,
 * flat_map_values, key_by, and without a user function sample, zip_with_index, partition_tag).
 * map_partitions runs the user function once over an iterator of its parent and keeps what it
 * emits in memory up to a bound, spilling the rest to a temporary file, then replays it.
 * fold_partition folds the parent's values into one record.
 *
 * Ownership: as part_iter.h; an iterator owns its parent's iterator and its output. One task
 * thread.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "records/recio.h"
#include "exec/emitter.h"
#include "exec/part_iter.h"

/* ---- map, flat_map, filter --------------------------------------------------------------- */

typedef struct narrow_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    part_iter *parent;
    const cs_batch *in; /* the parent's current batch (valid until we pull the next one) */
    size_t in_pos;      /* next input record to process */
    bool eof;           /* the parent has ended: never pull it again */
    int partition;      /* of rdd (a coalesce above may number its task otherwise) */
    uint64_t rng;       /* RDD_SAMPLE: the draws' generator state */
    int64_t index;      /* RDD_ZIP_WITH_INDEX: the next record's index */
    bool started;       /* rng / index set up */
    cs_batch out;
} narrow_iter;

/* RDD_SAMPLE's draws: splitmix64 started from the seed and the partition index, so a partition's
 * draws are the same in every attempt; u is uniform in [0, 1) with 53 bits. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double next_draw(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15ULL;
    return (double)(mix64(*state) >> 11) * 0x1.0p-53;
}

/* A Poisson(lambda) count (Knuth's method: lambda is a sampling fraction, small). */
static int poisson_draw(uint64_t *state, double lambda)
{
    double limit = exp(-lambda), p = 1.0;
    int k = -1;
    do {
        k++;
        p *= next_draw(state);
    } while (p > limit && k < 1000000);
    return k;
}

static size_t sample_apply(narrow_iter *m, size_t i)
{
    sample_params sp;
    memcpy(&sp, m->rdd->fn.closure, sizeof sp);
    const cs_batch *in = m->in;
    if (!m->started) { /* seeds the partition's generator */
        m->rng = mix64(sp.seed) ^ mix64((uint64_t)m->partition + 0x632BE59BD9B4E019ULL);
        m->started = true;
    }
    for (; i < in->n && !batch_full(&m->out); i++) {
        int copies;
        if (sp.with_replacement) {
            copies = poisson_draw(&m->rng, sp.fraction);
        } else {
            double u = next_draw(&m->rng);
            copies = u >= sp.lo && u < sp.hi;
        }
        cspark_record r = batch_get(in, i);
        for (int c = 0; c < copies; c++)
            cs_batch_append_record(&m->out, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
    }
    return i;
}

static size_t zip_apply(narrow_iter *m, size_t i)
{
    const cs_batch *in = m->in;
    if (!m->started) {
        memcpy(&m->index, m->rdd->fn.closure + (size_t)m->partition * 8, 8);
        m->started = true;
    }
    for (; i < in->n && !batch_full(&m->out); i++) {
        cspark_record r = batch_get(in, i);
        uint8_t *k = batch_append(&m->out, 8, 4 + r.key.len + 1 + r.value.len);
        cspark_i64_encode(m->index++, k);
        uint8_t *v = k + 8;
        memcpy(v, &r.key.len, 4);
        memcpy(v + 4, r.key.ptr, r.key.len);
        v[4 + r.key.len] = 1;
        memcpy(v + 5 + r.key.len, r.value.ptr, r.value.len);
    }
    return i;
}

/* partition_by: [be32 partition][key] with the partition the user's function gives. */
static size_t tag_apply(narrow_iter *m, size_t i)
{
    const cs_batch *in = m->in;
    cspark_partitioner_fn fn = (cspark_partitioner_fn)m->rdd->fn.ptr;
    int n = (int)m->rdd->range_start;
    cs_task_context_enter(m->tc, &m->rdd->fn);
    for (; i < in->n && !batch_full(&m->out); i++) {
        cspark_record r = batch_get(in, i);
        int p = fn(r.key, n, m->tc);
        if (p < 0 || p >= n)
            cspark_task_fail(m->tc,
                             "partition function %s returned %d for %d partitions "
                             "(expected 0 to %d)",
                             m->rdd->fn.name, p, n, n - 1);
        if ((size_t)r.key.len + 4 + r.value.len > CSPARK_MAX_RECORD_BYTES)
            cspark_task_fail(m->tc, "partition_by: a record of %zu bytes is over the limit",
                             (size_t)r.key.len + r.value.len);
        uint8_t *k = batch_append(&m->out, r.key.len + 4, r.value.len);
        k[0] = (uint8_t)((uint32_t)p >> 24);
        k[1] = (uint8_t)((uint32_t)p >> 16);
        k[2] = (uint8_t)((uint32_t)p >> 8);
        k[3] = (uint8_t)p;
        memcpy(k + 4, r.key.ptr, r.key.len);
        memcpy(k + 4 + r.key.len, r.value.ptr, r.value.len);
    }
    cs_task_context_enter(m->tc, NULL);
    return i;
}

/* Runs the function over input records from in_pos until the input is used up or the output
 * batch is full, so a flat_map that multiplies its input still hands on bounded batches. */
static void narrow_apply(narrow_iter *m)
{
    const cs_batch *in = m->in;
    cspark_emitter em = {&m->out, NULL, NULL, m->tc, NULL, EMIT_ANY, m->rdd->fn.name};
    size_t i = m->in_pos;
    rdd_kind kind = m->rdd->kind;
    if (kind == RDD_SAMPLE || kind == RDD_ZIP_WITH_INDEX) { /* no user function */
        m->in_pos = kind == RDD_SAMPLE ? sample_apply(m, i) : zip_apply(m, i);
        return;
    }
    if (kind == RDD_PARTITION_TAG) {
        m->in_pos = tag_apply(m, i);
        return;
    }
    if (kind == RDD_MAP_VALUES || kind == RDD_FLAT_MAP_VALUES) em.mode = EMIT_VALUES;
    if (kind == RDD_KEY_BY) em.mode = EMIT_KEYS;
    cs_task_context_enter(m->tc, &m->rdd->fn);
    switch (kind) {
    case RDD_FILTER: {
        cspark_filter_fn fn = (cspark_filter_fn)m->rdd->fn.ptr;
        for (; i < in->n && !batch_full(&m->out); i++) {
            cspark_record r = batch_get(in, i);
            if (fn(&r, m->tc))
                cs_batch_append_record(&m->out, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
        }
        break;
    }
    case RDD_MAP:
    case RDD_MAP_VALUES:
    case RDD_KEY_BY: {
        cspark_map_fn fn = (cspark_map_fn)m->rdd->fn.ptr;
        for (; i < in->n && !batch_full(&m->out); i++) {
            cspark_record r = batch_get(in, i);
            size_t before = m->out.n;
            em.in = &r;
            fn(&r, &em, m->tc);
            if (m->out.n != before + 1)
                cspark_task_fail(m->tc,
                                 "%s function %s emitted %zu records for one input "
                                 "(it emits exactly one; use %s)",
                                 kind == RDD_MAP      ? "map"
                                 : kind == RDD_KEY_BY ? "key"
                                                      : "map_values",
                                 m->rdd->fn.name, m->out.n - before,
                                 kind == RDD_MAP_VALUES ? "flat_map_values" : "flat_map");
        }
        break;
    }
    default: {
        cspark_map_fn fn = (cspark_map_fn)m->rdd->fn.ptr;
        for (; i < in->n && !batch_full(&m->out); i++) {
            cspark_record r = batch_get(in, i);
            em.in = &r;
            fn(&r, &em, m->tc);
        }
        break;
    }
    }
    cs_task_context_enter(m->tc, NULL);
    m->in_pos = i;
}

static int narrow_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    narrow_iter *m = (narrow_iter *)it;
    cs_batch_reset(&m->out);
    for (;;) {
        if (!m->in || m->in_pos >= m->in->n) {
            int rc = m->eof ? 0 : m->parent->next(m->parent, &m->in, err);
            if (rc <= 0) {
                m->in = NULL;
                m->eof = true;
                if (rc < 0) return rc;
                if (!m->out.n) return 0;
                *out = &m->out; /* what the last input produced */
                return 1;
            }
            m->in_pos = 0;
        }
        narrow_apply(m);
        if (batch_full(&m->out)) {
            *out = &m->out;
            return 1;
        }
    }
}

static void narrow_free(part_iter *it)
{
    narrow_iter *m = (narrow_iter *)it;
    cs_part_iter_free(m->parent);
    cs_batch_free(&m->out);
    free(m);
}

part_iter *cs_narrow_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                               cs_error *err)
{
    part_iter *parent = cs_part_iter_open(tc, rdd->parents[0], partition, err);
    if (!parent) return NULL;
    narrow_iter *m = cs_xcalloc(1, sizeof *m);
    m->base.next = narrow_next;
    m->base.free = narrow_free;
    m->tc = tc;
    m->rdd = rdd;
    m->parent = parent;
    m->partition = partition;
    return &m->base;
}

/* ---- map_partitions ---------------------------------------------------------------------- */

/* Output kept in memory up to this many bytes, the rest spilled to a temporary file. */
#define MAPPART_MEMORY_LIMIT (16u << 20)

struct cspark_iterator {
    part_iter *src;
    const cs_batch *cur;
    size_t i;
    int status; /* 1 while records may follow, 0 at end, <0 on error */
    cs_error err;
};

bool cspark_iterator_next(cspark_iterator *it, cspark_record *out)
{
    while (it->status > 0) {
        if (it->cur && it->i < it->cur->n) {
            *out = batch_get(it->cur, it->i++);
            return true;
        }
        it->status = it->src->next(it->src, &it->cur, &it->err);
        it->i = 0;
    }
    return false;
}

typedef struct mappart_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    part_iter *parent;
    int partition; /* of rdd, for map_partitions_with_index */
    bool ran;
    cs_batch *kept; /* batches kept in memory, in emit order */
    size_t num_kept, cap_kept, next_kept, kept_bytes;
    cs_batch cur; /* the emitter's current batch */
    char spill_path[4096];
    int spill_fd;
    recio_writer *spill;
    recio_reader *replay;
    cs_batch out;
    cs_error spill_err;
    int spill_failed;
} mappart_iter;

static void mappart_on_full(cspark_emitter *e)
{
    mappart_iter *m = e->arg;
    if (m->kept_bytes < MAPPART_MEMORY_LIMIT && !m->spill) {
        if (m->num_kept == m->cap_kept) {
            m->cap_kept = m->cap_kept ? m->cap_kept * 2 : 8;
            m->kept = cs_xrealloc(m->kept, m->cap_kept * sizeof *m->kept);
        }
        m->kept_bytes += cs_batch_memory(&m->cur);
        m->kept[m->num_kept++] = m->cur; /* moves the buffers */
        cs_batch_init(&m->cur);
        return;
    }
    if (!m->spill) {
        snprintf(m->spill_path, sizeof m->spill_path, "%s/mappart-%lld-XXXXXX",
                 m->tc->env->local_dir, (long long)m->tc->task->task_id);
        m->spill_fd = mkstemp(m->spill_path);
        if (m->spill_fd < 0) {
            cspark_task_fail(m->tc, "cannot create spill file under %s: %s", m->tc->env->local_dir,
                             strerror(errno));
        }
        m->spill = cs_recio_writer_new(m->spill_fd, m->tc->env->shuffle_compress, 1 << 20);
        cs_recio_writer_set_checksum(m->spill, m->tc->env->shuffle_checksum);
    }
    if (cs_recio_writer_add_batch(m->spill, &m->cur, &m->spill_err) < 0)
        cspark_task_fail(m->tc, "map_partitions spill failed: %s", m->spill_err.msg);
    cs_batch_reset(&m->cur);
}

static int mappart_run(mappart_iter *m, cs_error *err)
{
    cspark_iterator in = {m->parent, NULL, 0, 1, {0}};
    cspark_emitter em = {&m->cur, mappart_on_full, m, m->tc, NULL, EMIT_ANY, m->rdd->fn.name};
    cs_task_context_enter(m->tc, &m->rdd->fn);
    if (m->rdd->kind == RDD_MAP_PARTITIONS_WITH_INDEX)
        ((cspark_partition_index_fn)m->rdd->fn.ptr)(m->partition, &in, &em, m->tc);
    else
        ((cspark_partition_fn)m->rdd->fn.ptr)(&in, &em, m->tc);
    cs_task_context_enter(m->tc, NULL);
    if (in.status < 0) {
        *err = in.err;
        return in.status;
    }
    if (m->spill) {
        if (m->cur.n && cs_recio_writer_add_batch(m->spill, &m->cur, err) < 0) return err->code;
        cs_batch_reset(&m->cur);
        if (cs_recio_writer_flush(m->spill, err) < 0) return err->code;
        uint64_t len = cs_recio_writer_offset(m->spill);
        m->replay = cs_recio_reader_fd(m->spill_fd, 0, len, 1 << 20);
    }
    return 0;
}

static int mappart_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    mappart_iter *m = (mappart_iter *)it;
    if (!m->ran) {
        m->ran = true;
        int rc = mappart_run(m, err);
        if (rc < 0) return rc;
    }
    if (m->next_kept < m->num_kept) {
        cs_batch_free(&m->out);
        m->out = m->kept[m->next_kept];
        cs_batch_init(&m->kept[m->next_kept++]);
        *out = &m->out;
        return 1;
    }
    if (m->replay) {
        cs_batch_reset(&m->out);
        int rc = cs_recio_reader_next_block(m->replay, &m->out, err);
        if (rc < 0) return rc;
        if (rc > 0) {
            *out = &m->out;
            return 1;
        }
        return 0;
    }
    if (m->cur.n) { /* the tail that never filled a batch */
        cs_batch_free(&m->out);
        m->out = m->cur;
        cs_batch_init(&m->cur);
        *out = &m->out;
        return 1;
    }
    return 0;
}

static void mappart_free(part_iter *it)
{
    mappart_iter *m = (mappart_iter *)it;
    cs_part_iter_free(m->parent);
    for (size_t i = 0; i < m->num_kept; i++)
        cs_batch_free(&m->kept[i]);
    free(m->kept);
    cs_batch_free(&m->cur);
    cs_batch_free(&m->out);
    if (m->replay) cs_recio_reader_free(m->replay);
    if (m->spill) cs_recio_writer_free(m->spill);
    if (m->spill_path[0]) {
        unlink(m->spill_path);
        close(m->spill_fd);
    }
    free(m);
}

part_iter *cs_map_partitions_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                       cs_error *err)
{
    part_iter *parent = cs_part_iter_open(tc, rdd->parents[0], partition, err);
    if (!parent) return NULL;
    mappart_iter *m = cs_xcalloc(1, sizeof *m);
    m->base.next = mappart_next;
    m->base.free = mappart_free;
    m->tc = tc;
    m->rdd = rdd;
    m->parent = parent;
    m->partition = partition;
    m->spill_fd = -1;
    return &m->base;
}

/* ---- fold_partition ---------------------------------------------------------------------- */

/* tree_aggregate's first level, Spark's mapPartitions(it => Iterator(it.aggregate(zero)(seqOp,
 * combOp))): the values of the parent's partition folded with the node's function from its zero
 * into one record, key = the partition index (cspark_i64), value = the accumulator. */
typedef struct fold_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    int partition;
    part_iter *parent;
    bool done;
    cspark_value acc;
    cs_batch out;
} fold_iter;

static int fold_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    fold_iter *f = (fold_iter *)it;
    if (f->done) return 0;
    f->done = true;
    cspark_reduce_fn fn = (cspark_reduce_fn)f->rdd->fn.ptr;
    cs_task_context_enter(f->tc, &f->rdd->fn);
    cspark_value_set(&f->acc, f->rdd->agg.zero, f->rdd->agg.zero_len);
    cs_task_context_enter(f->tc, NULL);
    const cs_batch *b;
    int rc;
    while ((rc = f->parent->next(f->parent, &b, err)) > 0) {
        cs_task_context_enter(f->tc, &f->rdd->fn);
        for (size_t i = 0; i < b->n; i++)
            fn(&f->acc, batch_get(b, i).value, f->tc);
        cs_task_context_enter(f->tc, NULL);
    }
    if (rc < 0) return rc;
    uint8_t *k = batch_append(&f->out, 8, f->acc.len);
    cspark_i64_encode(f->partition, k);
    memcpy(k + 8, f->acc.ptr, f->acc.len);
    *out = &f->out;
    return 1;
}

static void fold_free(part_iter *it)
{
    fold_iter *f = (fold_iter *)it;
    cs_part_iter_free(f->parent);
    free(f->acc.ptr);
    cs_batch_free(&f->out);
    free(f);
}

part_iter *cs_fold_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition, cs_error *err)
{
    part_iter *parent = cs_part_iter_open(tc, rdd->parents[0], partition, err);
    if (!parent) return NULL;
    fold_iter *f = cs_xcalloc(1, sizeof *f);
    f->base.next = fold_next;
    f->base.free = fold_free;
    f->tc = tc;
    f->rdd = rdd;
    f->partition = partition;
    f->parent = parent;
    cs_batch_init(&f->out);
    return &f->base;
}
