/*
 * part_iter.c — the pull iterators that compute one partition of an RDD inside a task (see
 * part_iter.h). Narrow operators transform whole batches: a map/flat_map/filter iterator pulls
 * one batch from its parent, runs the user function over every record into its own output
 * batch and returns it, so there is no allocation per record and one indirect call per record.
 * map_partitions runs the user function once over an iterator of its parent and keeps what it
 * emits in memory up to a bound, spilling the rest to a temporary file, then replays it.
 * Shuffled RDDs read their map outputs through the shuffle reader, and the parents they read
 * narrowly (already partitioned as they are) partition by partition, and post-process them with
 * the external aggregator or sorter, which spill under memory pressure.
 */
#include "exec/part_iter.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "records/recio.h"
#include "blocktransfer/block_fetcher.h"
#include "shuffle/external_agg.h"
#include "shuffle/external_sort.h"

/* What a per-record function may emit: any record, only values (map_values: the key is the
 * input's), or only keys (key_by: the value is the input record as a pair). */
typedef enum { EMIT_ANY = 0, EMIT_VALUES, EMIT_KEYS } emit_mode;

struct cspark_emitter {
    cs_batch *out;
    void (*on_full)(cspark_emitter *e);
    void *arg;
    cspark_task_context *tc; /* failed when a record is over the record limit */
    const cspark_record *in; /* the input record of a per-record function, else NULL */
    emit_mode mode;
    const char *fn_name; /* for the refusals of a mode */
};

/* Lengths are size_t in the API and uint32_t in a batch: a record over CSPARK_MAX_RECORD_BYTES
 * fails the task here, before anything is narrowed or copied. */
static void emit_check(cspark_emitter *e, size_t key_len, size_t value_len, const char *what)
{
    cs_error err;
    if (cs_recio_check_record(key_len, value_len, what, &err) < 0)
        cspark_task_fail(e->tc, "%s", err.msg);
}

static void emit_refuse_mode(cspark_emitter *e, const char *call)
{
    cspark_task_fail(e->tc, "%s called %s: a %s function emits with %s", e->fn_name, call,
                     e->mode == EMIT_VALUES ? "map_values" : "key_by/sort_by",
                     e->mode == EMIT_VALUES ? "cspark_emit_value" : "cspark_emit_key");
}

void cspark_emit(cspark_emitter *e, const void *key, size_t key_len, const void *value,
                 size_t value_len)
{
    if (__builtin_expect(e->mode != EMIT_ANY, 0)) emit_refuse_mode(e, "cspark_emit");
    emit_check(e, key_len, value_len, "cspark_emit");
    cs_batch_append_record(e->out, key, (uint32_t)key_len, value, (uint32_t)value_len);
    if (e->on_full && batch_full(e->out)) e->on_full(e);
}

/* Room for one record (checked against the record limit, a full batch handed on first). */
static uint8_t *emit_space(cspark_emitter *e, size_t key_len, size_t value_len, const char *what)
{
    emit_check(e, key_len, value_len, what);
    if (e->on_full && batch_full(e->out)) e->on_full(e);
    return batch_append(e->out, (uint32_t)key_len, (uint32_t)value_len);
}

void cspark_emit_value(cspark_emitter *e, const void *value, size_t value_len)
{
    if (!e->in || e->mode == EMIT_KEYS)
        cspark_task_fail(e->tc,
                         "%s called cspark_emit_value where no input record is at hand "
                         "(it is for per-record functions such as map and map_values)",
                         e->fn_name ? e->fn_name : "a function");
    const cspark_slice k = e->in->key;
    uint8_t *p = emit_space(e, k.len, value_len, "cspark_emit_value");
    memcpy(p, k.ptr, k.len);
    if (value_len) memcpy(p + k.len, value, value_len);
}

void cspark_emit_key(cspark_emitter *e, const void *key, size_t key_len)
{
    if (!e->in || e->mode == EMIT_VALUES)
        cspark_task_fail(e->tc,
                         "%s called cspark_emit_key where no input record is at hand "
                         "(it is for per-record functions such as map and key_by)",
                         e->fn_name ? e->fn_name : "a function");
    const cspark_record *in = e->in;
    if (e->mode == EMIT_KEYS) { /* value = pair(key, value) of the input */
        size_t vlen = 4 + (size_t)in->key.len + 1 + in->value.len;
        uint8_t *p = emit_space(e, key_len, vlen, "cspark_emit_key");
        if (key_len) memcpy(p, key, key_len);
        uint8_t *v = p + key_len;
        memcpy(v, &in->key.len, 4);
        memcpy(v + 4, in->key.ptr, in->key.len);
        v[4 + in->key.len] = 1;
        memcpy(v + 5 + in->key.len, in->value.ptr, in->value.len);
        return;
    }
    uint8_t *p = emit_space(e, key_len, in->value.len, "cspark_emit_key");
    if (key_len) memcpy(p, key, key_len);
    memcpy(p + key_len, in->value.ptr, in->value.len);
}

static __attribute__((noinline)) uint8_t *emit_reserve_slow(cspark_emitter *e, size_t key_len,
                                                            size_t value_len, uint8_t **value_out)
{
    if (e->mode != EMIT_ANY) emit_refuse_mode(e, "cspark_emit_reserve");
    emit_check(e, key_len, value_len, "cspark_emit_reserve");
    /* A full batch is handed on before reserving, so the returned space stays valid. */
    if (e->on_full && batch_full(e->out)) e->on_full(e);
    uint8_t *p = batch_append(e->out, (uint32_t)key_len, (uint32_t)value_len);
    if (value_out) *value_out = p + key_len;
    return p;
}

uint8_t *cspark_emit_reserve(cspark_emitter *e, size_t key_len, size_t value_len,
                             uint8_t **value_out)
{
    /* Runs once per emitted record (a flat_map's words): the common case (room in the batch,
     * which is not full or has no hand-on) has no call and saves no registers. A sum of lengths
     * that wraps around or passes the record limit takes the slow path, which fails the task. */
    cs_batch *b = e->out;
    size_t kv;
    bool wraps = __builtin_add_overflow(key_len, value_len, &kv);
    size_t need = b->len + kv;
    if (__builtin_expect(!wraps && kv <= CSPARK_MAX_RECORD_BYTES && e->mode == EMIT_ANY &&
                             b->data && need <= b->cap && b->n < b->rcap &&
                             (!e->on_full || !batch_full(b)),
                         1)) {
        cs_rec *r = &b->recs[b->n++];
        r->off = b->len;
        r->klen = (uint32_t)key_len;
        r->vlen = (uint32_t)value_len;
        uint8_t *p = b->data + b->len;
        b->len = need;
        if (value_out) *value_out = p + key_len;
        return p;
    }
    return emit_reserve_slow(e, key_len, value_len, value_out);
}

/* ---- sources --------------------------------------------------------------------------- */

typedef struct par_iter {
    part_iter base;
    const cs_batch *src;
    size_t i, end;
    cs_batch out;
} par_iter;

static int par_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    par_iter *p = (par_iter *)it;
    if (p->i >= p->end) return 0;
    cs_batch_reset(&p->out);
    while (p->i < p->end && !batch_full(&p->out)) {
        cspark_record r = batch_get(p->src, p->i++);
        cs_batch_append_record(&p->out, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
    }
    *out = &p->out;
    return 1;
}

static void par_free(part_iter *it)
{
    par_iter *p = (par_iter *)it;
    cs_batch_free(&p->out);
    free(p);
}

typedef struct range_iter {
    part_iter base;
    int64_t next_value, step;
    uint64_t remaining;
    cs_batch out;
} range_iter;

static int range_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    range_iter *r = (range_iter *)it;
    if (!r->remaining) return 0;
    cs_batch_reset(&r->out);
    uint64_t n = r->remaining < CS_BATCH_TARGET_RECORDS ? r->remaining : CS_BATCH_TARGET_RECORDS;
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *k = batch_append(&r->out, 8, 0);
        cspark_i64_encode(r->next_value, k);
        r->next_value += r->step;
    }
    r->remaining -= n;
    *out = &r->out;
    return 1;
}

static void range_free(part_iter *it)
{
    range_iter *r = (range_iter *)it;
    cs_batch_free(&r->out);
    free(r);
}

static part_iter *range_open(cspark_rdd *rdd, int partition)
{
    range_iter *r = cs_xcalloc(1, sizeof *r);
    r->base.next = range_next;
    r->base.free = range_free;
    __int128 span = (__int128)rdd->range_end - rdd->range_start;
    __int128 step = rdd->range_step;
    if (step < 0) {
        span = -span;
        step = -step;
    }
    __int128 total = span <= 0 ? 0 : (span + step - 1) / step;
    __int128 lo = total * partition / rdd->num_partitions;
    __int128 hi = total * (partition + 1) / rdd->num_partitions;
    r->remaining = (uint64_t)(hi - lo);
    r->next_value = (int64_t)(rdd->range_start + lo * rdd->range_step);
    r->step = rdd->range_step;
    return &r->base;
}

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

/* ---- coalesce ---------------------------------------------------------------------------- */

typedef struct coalesce_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    int next_part, end_part;
    part_iter *cur;
} coalesce_iter;

static int coalesce_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    coalesce_iter *c = (coalesce_iter *)it;
    for (;;) {
        if (!c->cur) {
            if (c->next_part >= c->end_part) return 0;
            c->cur = cs_part_iter_open(c->tc, c->rdd->parents[0], c->next_part++, err);
            if (!c->cur) return err->code ? err->code : CS_EINVAL;
        }
        int rc = c->cur->next(c->cur, out, err);
        if (rc != 0) return rc;
        cs_part_iter_free(c->cur);
        c->cur = NULL;
    }
}

static void coalesce_free(part_iter *it)
{
    coalesce_iter *c = (coalesce_iter *)it;
    cs_part_iter_free(c->cur);
    free(c);
}

/* ---- shuffled ---------------------------------------------------------------------------- */

typedef struct shuffled_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    int partition;
    bool prepared;
    shuffle_reader *plain; /* PLAIN */
    block_prefetch *plain_prefetch;
    cs_aggregator agg;
    ext_agg *aggr;      /* AGGREGATE, COGROUP */
    ext_sorter *sorter; /* SORT */
    cs_batch out, tmp;
} shuffled_iter;

static const shuffle_input *find_input(const task_desc *t, int shuffle_id)
{
    for (int i = 0; i < t->num_inputs; i++)
        if (t->inputs[i].shuffle_id == shuffle_id) return &t->inputs[i];
    return NULL;
}

/* Spark's shuffle read metrics for the blocks this reader will read: their counts, split by
 * where they come from: this executor's own outputs are local, the others' remote (every block
 * is local where no fetcher is set: local mode). Empty blocks (exact in every status) are not
 * read. Their bytes are counted as read, by count_shuffle_bytes. */
static bool remote_block(cspark_task_context *tc, const cs_map_status *st)
{
    return tc->env->fetcher && strcmp(st->executor_id, tc->env->executor_id) != 0;
}

static void count_shuffle_blocks(cspark_task_context *tc, const shuffle_input *in, int reduce_id)
{
    cs_task_metrics *m = &tc->result->metrics;
    for (int i = 0; i < in->num_maps; i++) {
        const cs_map_status *st = in->maps[i];
        if (cs_map_status_block_empty(st, reduce_id)) continue;
        if (remote_block(tc, st))
            m->shuffle_remote_blocks_fetched++;
        else
            m->shuffle_local_blocks_fetched++;
    }
}

/* The bytes reader r read, as stored (so a stage reads what its parents' Shuffle Bytes Written
 * add up to): called once, before r is freed. */
static void count_shuffle_bytes(cspark_task_context *tc, const shuffle_input *in,
                                const shuffle_reader *r)
{
    cs_task_metrics *m = &tc->result->metrics;
    for (int i = 0; in && r && i < in->num_maps; i++) {
        uint64_t n = cs_shuffle_reader_map_bytes(r, i);
        m->shuffle_bytes_read += (int64_t)n;
        if (n && remote_block(tc, in->maps[i])) m->shuffle_remote_bytes_read += (int64_t)n;
    }
}

static shuffle_reader *open_reader(shuffled_iter *s, const shuffle_dep *dep, block_prefetch **pf,
                                   cs_error *err)
{
    const shuffle_input *in = find_input(s->tc->task, dep->shuffle_id);
    if (!in) {
        cs_error_set(err, CS_EINVAL, "internal: no map outputs given for shuffle %d",
                     dep->shuffle_id);
        return NULL;
    }
    for (int m = 0; m < in->num_maps; m++) {
        if (in->maps[m]) continue;
        /* lost before this attempt started (its executor is gone): no point fetching */
        s->tc->result->status = TASK_FETCH_FAILED;
        s->tc->result->fetch_shuffle_id = dep->shuffle_id;
        s->tc->result->fetch_map_id = m;
        cs_error_set(err, CS_EIO, "map output %d of shuffle %d is lost", m, dep->shuffle_id);
        return NULL;
    }
    count_shuffle_blocks(s->tc, in, s->partition);
    *pf = NULL;
    if (s->tc->env->fetcher) { /* remote blocks requested ahead, up to maxSizeInFlight */
        *pf = cs_block_fetcher_prefetch(s->tc->env->fetcher, in->maps, in->num_maps, s->partition);
        shuffle_block_source src = cs_block_prefetch_source(*pf);
        shuffle_reader *r = cs_shuffle_reader_new(in->maps, in->num_maps, s->partition, &src, err);
        if (!r) {
            cs_block_prefetch_free(*pf);
            *pf = NULL;
        }
        return r;
    }
    return cs_shuffle_reader_new(in->maps, in->num_maps, s->partition, &s->tc->env->blocks, err);
}

/* Reads every block of one shuffle, passing each batch to sink(s, batch). */
static int drain_shuffle(shuffled_iter *s, const shuffle_dep *dep, bool sort, cs_error *err)
{
    block_prefetch *pf;
    shuffle_reader *r = open_reader(s, dep, &pf, err);
    if (!r) return err->code ? err->code : CS_EINVAL;
    int rc;
    for (;;) {
        int failed_map = -1;
        const cs_batch *b = NULL;
        rc = cs_shuffle_reader_next_view(r, &b, &failed_map, err);
        if (rc < 0) {
            if (failed_map >= 0) {
                s->tc->result->status = TASK_FETCH_FAILED;
                s->tc->result->fetch_shuffle_id = dep->shuffle_id;
                s->tc->result->fetch_map_id = failed_map;
            }
            break;
        }
        if (rc == 0) break;
        s->tc->result->metrics.shuffle_records_read += (int64_t)b->n;
        cs_task_context_enter(s->tc, &s->rdd->agg.merge_value);
        rc = sort ? cs_ext_sorter_insert(s->sorter, b, err)
                  : cs_ext_agg_insert(s->aggr, b, s->rdd->values_are_combiners, err);
        cs_task_context_enter(s->tc, NULL);
        if (rc < 0) break;
    }
    count_shuffle_bytes(s->tc, find_input(s->tc->task, dep->shuffle_id), r);
    cs_shuffle_reader_free(r);
    if (pf) cs_block_prefetch_free(pf);
    return rc < 0 ? rc : 0;
}

/* Feeds partition s->partition of a parent read narrowly (placed as this node already, so no
 * shuffle: Spark's one-to-one dependency of a cogroup, or reduceByKey over an RDD partitioned by
 * its partitioner) to the aggregator. */
static int drain_parent(shuffled_iter *s, cspark_rdd *parent, cs_error *err)
{
    part_iter *in = cs_part_iter_open(s->tc, parent, s->partition, err);
    if (!in) return err->code ? err->code : CS_EINVAL;
    int rc;
    for (;;) {
        const cs_batch *b = NULL;
        rc = in->next(in, &b, err);
        if (rc <= 0) break;
        cs_task_context_enter(s->tc, &s->rdd->agg.merge_value);
        rc = cs_ext_agg_insert(s->aggr, b, s->rdd->values_are_combiners, err);
        cs_task_context_enter(s->tc, NULL);
        if (rc < 0) break;
    }
    cs_part_iter_free(in);
    return rc < 0 ? rc : 0;
}

static int shuffled_prepare(shuffled_iter *s, cs_error *err)
{
    cspark_rdd *rdd = s->rdd;
    const char *dir = s->tc->env->local_dir;
    switch (rdd->read_mode) {
    case SHUFFLE_READ_PLAIN:
        s->plain = open_reader(s, rdd->deps[0], &s->plain_prefetch, err);
        return s->plain ? 0 : (err->code ? err->code : CS_EINVAL);
    case SHUFFLE_READ_SORT:
        s->sorter = cs_ext_sorter_new(rdd->ascending, &s->tc->mem, dir, err);
        if (!s->sorter) return err->code ? err->code : CS_EINVAL;
        cs_ext_sorter_set_spill_compress(s->sorter, s->tc->env->shuffle_compress);
        cs_ext_sorter_set_spill_checksum(s->sorter, s->tc->env->shuffle_checksum);
        return drain_shuffle(s, rdd->deps[0], true, err);
    case SHUFFLE_READ_AGGREGATE:
    case SHUFFLE_READ_COGROUP:
        cs_plan_aggregator_bind(&rdd->agg, s->tc, &s->agg);
        s->aggr = cs_ext_agg_new(&s->agg, &s->tc->mem, dir, err);
        if (!s->aggr) return err->code ? err->code : CS_EINVAL;
        cs_ext_agg_set_spill_checksum(s->aggr, s->tc->env->shuffle_checksum);
        for (int d = 0; d < rdd->num_deps; d++) {
            int rc = drain_shuffle(s, rdd->deps[d], false, err);
            if (rc < 0) return rc;
        }
        for (int p = 0; p < rdd->num_parents; p++) {
            int rc = drain_parent(s, rdd->parents[p], err);
            if (rc < 0) return rc;
        }
        return 0;
    }
    return CS_EINVAL;
}

/* COGROUP combiners are lists of items whose first byte tags the side (0 left, 1 right); the
 * output value is pair(list of left values, list of right values). */
static void cogroup_to_pair(cs_batch *dst, const cs_batch *src)
{
    for (size_t i = 0; i < src->n; i++) {
        cspark_record r = batch_get(src, i);
        uint32_t left_bytes = 0, right_bytes = 0;
        cspark_slice list = r.value, item;
        while (cspark_list_next(&list, &item))
            if (item.len) *(item.ptr[0] == 0 ? &left_bytes : &right_bytes) += 4 + item.len - 1;
        uint8_t *k = batch_append(dst, r.key.len, 4 + left_bytes + 1 + right_bytes);
        memcpy(k, r.key.ptr, r.key.len);
        uint8_t *v = k + r.key.len;
        memcpy(v, &left_bytes, 4);
        uint8_t *lp = v + 4, *rp = v + 4 + left_bytes + 1;
        v[4 + left_bytes] = 1;
        list = r.value;
        while (cspark_list_next(&list, &item)) {
            if (!item.len) continue;
            uint32_t n = item.len - 1;
            uint8_t **p = item.ptr[0] == 0 ? &lp : &rp;
            memcpy(*p, &n, 4);
            memcpy(*p + 4, item.ptr + 1, n);
            *p += 4 + n;
        }
    }
}

static int shuffled_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    shuffled_iter *s = (shuffled_iter *)it;
    if (!s->prepared) {
        s->prepared = true;
        int rc = shuffled_prepare(s, err);
        if (rc < 0) return rc;
    }
    cs_batch_reset(&s->out);
    int rc;
    switch (s->rdd->read_mode) {
    case SHUFFLE_READ_PLAIN: {
        /* the records of one block where the reader decoded them: no copy */
        int failed_map = -1;
        const cs_batch *b = NULL;
        rc = cs_shuffle_reader_next_view(s->plain, &b, &failed_map, err);
        if (rc < 0 && failed_map >= 0) {
            s->tc->result->status = TASK_FETCH_FAILED;
            s->tc->result->fetch_shuffle_id = s->rdd->deps[0]->shuffle_id;
            s->tc->result->fetch_map_id = failed_map;
        }
        if (rc > 0) {
            s->tc->result->metrics.shuffle_records_read += (int64_t)b->n;
            *out = b;
        }
        return rc;
    }
    case SHUFFLE_READ_SORT:
        rc = cs_ext_sorter_next(s->sorter, &s->out, err);
        break;
    case SHUFFLE_READ_AGGREGATE:
        cs_task_context_enter(s->tc, &s->rdd->agg.merge_value);
        rc = cs_ext_agg_next(s->aggr, &s->out, err);
        cs_task_context_enter(s->tc, NULL);
        break;
    default:
        cs_batch_reset(&s->tmp);
        cs_task_context_enter(s->tc, &s->rdd->agg.merge_value);
        rc = cs_ext_agg_next(s->aggr, &s->tmp, err);
        cs_task_context_enter(s->tc, NULL);
        if (rc > 0) cogroup_to_pair(&s->out, &s->tmp);
        break;
    }
    if (rc > 0) *out = &s->out;
    return rc;
}

static void shuffled_free(part_iter *it)
{
    shuffled_iter *s = (shuffled_iter *)it;
    if (s->plain)
        count_shuffle_bytes(s->tc, find_input(s->tc->task, s->rdd->deps[0]->shuffle_id), s->plain);
    cs_shuffle_reader_free(s->plain);
    if (s->plain_prefetch) cs_block_prefetch_free(s->plain_prefetch);
    if (s->aggr) cs_ext_agg_free(s->aggr);
    if (s->sorter) cs_ext_sorter_free(s->sorter);
    cs_batch_free(&s->out);
    cs_batch_free(&s->tmp);
    free(s);
}

/* ---- construction ------------------------------------------------------------------------ */

part_iter *cs_part_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition, cs_error *err)
{
    if (rdd->storage_level != CSPARK_STORAGE_NONE && tc->env->block_manager)
        return cs_cache_iter_open(tc, rdd, partition, err);
    return cs_part_iter_compute(tc, rdd, partition, err);
}

part_iter *cs_part_iter_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                cs_error *err)
{
    switch (rdd->kind) {
    case RDD_PARALLELIZE: {
        par_iter *p = cs_xcalloc(1, sizeof *p);
        p->base.next = par_next;
        p->base.free = par_free;
        p->src = &rdd->par_data;
        p->i = rdd->par_offsets[partition];
        p->end = rdd->par_offsets[partition + 1];
        return &p->base;
    }
    case RDD_RANGE:
        return range_open(rdd, partition);
    case RDD_TEXT_FILE:
        return cs_text_iter_open(tc, &rdd->splits[partition], err);
    case RDD_MAP:
    case RDD_FLAT_MAP:
    case RDD_FILTER:
    case RDD_MAP_VALUES:
    case RDD_FLAT_MAP_VALUES:
    case RDD_KEY_BY:
    case RDD_SAMPLE:
    case RDD_ZIP_WITH_INDEX:
    case RDD_PARTITION_TAG: {
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
    case RDD_WHOLE_TEXT_FILES:
        return cs_whole_files_iter_open(tc, rdd, partition, err);
    case RDD_CARTESIAN:
        return cs_cartesian_iter_open(tc, rdd, partition, err);
    case RDD_FOLD_PARTITION:
        return cs_fold_iter_open(tc, rdd, partition, err);
    case RDD_CHECKPOINT:
        return cs_checkpoint_iter_open(tc, &rdd->splits[partition], err);
    case RDD_MAP_PARTITIONS_WITH_INDEX:
    case RDD_MAP_PARTITIONS: {
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
    case RDD_UNION:
        return cs_part_iter_open(tc, rdd->parents[rdd->union_parent[partition]],
                                 rdd->union_index[partition], err);
    case RDD_COALESCE: {
        coalesce_iter *c = cs_xcalloc(1, sizeof *c);
        c->base.next = coalesce_next;
        c->base.free = coalesce_free;
        c->tc = tc;
        c->rdd = rdd;
        c->next_part = rdd->group_start[partition];
        c->end_part = rdd->group_start[partition + 1];
        return &c->base;
    }
    case RDD_SHUFFLED: {
        shuffled_iter *s = cs_xcalloc(1, sizeof *s);
        s->base.next = shuffled_next;
        s->base.free = shuffled_free;
        s->tc = tc;
        s->rdd = rdd;
        s->partition = partition;
        return &s->base;
    }
    }
    cs_error_set(err, CS_EINVAL, "internal: unknown RDD kind %d", (int)rdd->kind);
    return NULL;
}

void cs_part_iter_free(part_iter *it)
{
    if (it) it->free(it);
}
